//! [`DmaAxi4Bridge`]: serves the NIC's DMA port (docs/DMA.md) as an AXI4 memory-mapped master,
//! for a PCIe shell whose host path is an AXI4 slave: XDMA in AXI Bridge mode (`S_AXI_B`,
//! AMD PG195/PG194) or QDMA's slave bridge (PG302). docs/DMA.md section 7.1 is the mapping it
//! implements; docs/INTEGRATION.md section 9 shows it in the Alveo U250 wrapper.
//!
//! # What it does
//! * Splits every request into INCR bursts of 8-byte beats (`AxSIZE` = 3, `AxBURST` = INCR)
//!   that never cross a 4 KiB boundary (AXI4 rule) and have at most `max_beats` beats
//!   ([`DmaAxi4Bridge::new`], 1..=256). `AxADDR` is the request address aligned down to 8.
//! * Reads: reverses the byte lanes of each R beat (AXI puts the byte at `addr + i` in
//!   `data[8i+7:8i]`, the ferroce stream puts it `i` bytes below the MSB) and shifts out the
//!   `addr mod 8` leading bytes with a one-beat register ([`ReadRealign`], shared with
//!   `OnChipHostMemory`), so the response starts with the byte at `addr` in the MSB and
//!   carries exactly `len` bytes (`keep` contiguous from the top).
//! * Writes: the same realignment the other way ([`WriteRealign`]); `WSTRB` covers only the
//!   request's bytes on the first and last beats.
//! * Responses and completions keep request order and carry the request's tag. Any
//!   `RRESP != OKAY` sets `rsp_error` from that beat to the end of the response (earlier beats
//!   of a long response may already have left without it: docs/DMA.md section 6 asks
//!   consumers to OR the flag over the beats). Any `BRESP != OKAY` of a write's bursts sets its
//!   `done_error`. `done` is given only after the B response of every burst of the write.
//!
//! # What it does not do (kept simple on purpose)
//! * **One read request and one write request at a time**, each channel independent. A read's
//!   bursts are all issued back to back without waiting for data (as many as the slave's
//!   `ARREADY` takes), and R beats stream at one per cycle; the next read request is accepted
//!   when the last beat of the current one has been received. A write's bursts go one after
//!   the other (AW and W of a burst overlap; two idle cycles between bursts), and the next
//!   write is accepted after the last B. So a request costs one round trip of the host path
//!   plus `len / 8` cycles: at 250 MHz, 2 GB/s per direction while a request streams, and for
//!   4 KiB requests with a 1 us PCIe read latency about 1.3 GB/s of reads (a calculation from
//!   the cycle counts; the bench measures correctness, not a PCIe host's latency).
//! * One ID (the AXI ID ports are not even there: a top level ties `AxID` to 0), so the slave
//!   returns R and B in order; no `AxCACHE`/`AxPROT`/`AxLOCK` (tie them: 0, 0, 0 for XDMA).
//! * `RLAST` is not needed (beats are counted) and the NIC's write `keep`/`last` are not read:
//!   the contract fixes the byte count of every request (docs/DMA.md N6).
//!
//! # Ports
//! * `dma`: the shell side of the DMA port ([`DmaSlave`], join it to the NIC's `dma`).
//! * `m_axi_*`: the AXI4 master, 64-bit address and data.
use super::read_align::ReadRealign;
use super::write_align::WriteRealign;
use crate::dma::DmaSlave;
use crate::stream::{StreamSink, StreamSource};
use crate::widget::ByteSwap64;
use rust_hdl::prelude::*;

/// Beats in a 4 KiB page at 8 bytes per beat.
const PAGE_BEATS: u64 = 512;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ArState {
    /// No read request, or all bursts of the current one issued: wait for the R side to
    /// take a new request.
    Idle,
    /// Work out the next burst's length from the address and the beats left.
    Plan,
    /// Present AR until the slave takes it.
    Issue,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum WState {
    /// Accept a write request.
    Idle,
    /// Work out the next burst's length.
    Plan,
    /// Present AW and stream the burst's W beats (both at once); leave when both are done.
    Burst,
    /// Every burst written: wait for the outstanding B responses, then strobe `done`.
    Resp,
}

#[derive(LogicBlock)]
pub struct DmaAxi4Bridge {
    pub clock: Signal<In, Clock>,
    pub dma: DmaSlave<64, 8>,
    // ---- AXI4 master: write address
    pub m_axi_awaddr: Signal<Out, Bits<64>>,
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    pub m_axi_awsize: Signal<Out, Bits<3>>,
    pub m_axi_awburst: Signal<Out, Bits<2>>,
    pub m_axi_awvalid: Signal<Out, Bit>,
    pub m_axi_awready: Signal<In, Bit>,
    // ---- write data
    pub m_axi_wdata: Signal<Out, Bits<64>>,
    pub m_axi_wstrb: Signal<Out, Bits<8>>,
    pub m_axi_wlast: Signal<Out, Bit>,
    pub m_axi_wvalid: Signal<Out, Bit>,
    pub m_axi_wready: Signal<In, Bit>,
    // ---- write response
    pub m_axi_bresp: Signal<In, Bits<2>>,
    pub m_axi_bvalid: Signal<In, Bit>,
    pub m_axi_bready: Signal<Out, Bit>,
    // ---- read address
    pub m_axi_araddr: Signal<Out, Bits<64>>,
    pub m_axi_arlen: Signal<Out, Bits<8>>,
    pub m_axi_arsize: Signal<Out, Bits<3>>,
    pub m_axi_arburst: Signal<Out, Bits<2>>,
    pub m_axi_arvalid: Signal<Out, Bit>,
    pub m_axi_arready: Signal<In, Bit>,
    // ---- read data
    pub m_axi_rdata: Signal<In, Bits<64>>,
    pub m_axi_rresp: Signal<In, Bits<2>>,
    pub m_axi_rlast: Signal<In, Bit>,
    pub m_axi_rvalid: Signal<In, Bit>,
    pub m_axi_rready: Signal<Out, Bit>,
    // ---- constants
    c_maxb: Constant<Bits<14>>,
    c_page: Constant<Bits<14>>,
    // ---- read: AR side
    ar_state: DFF<ArState>,
    /// address of the next burst (8-byte aligned)
    ar_addr: DFF<Bits<64>>,
    /// AXI beats of the request not yet asked for
    ar_left: DFF<Bits<14>>,
    /// beats of the burst being presented
    ar_n: DFF<Bits<14>>,
    ar_len: DFF<Bits<8>>,
    // ---- read: R side (R beats realigned into the response stream)
    ral: ReadRealign,
    // ---- write
    w_state: DFF<WState>,
    aw_addr: DFF<Bits<64>>,
    aw_len: DFF<Bits<8>>,
    aw_done: DFF<Bit>,
    /// beats of the current burst not yet sent
    w_bcnt: DFF<Bits<14>>,
    /// beats of the current burst (to advance the address)
    w_n: DFF<Bits<14>>,
    /// the NIC's data beats realigned into AXI beats with their strobes
    wal: WriteRealign,
    w_tag: DFF<Bits<8>>,
    w_err: DFF<Bit>,
    /// bursts whose B response is outstanding
    w_bpend: DFF<Bits<14>>,
    // ---- combinational temporaries
    l_ar_to4k: Signal<Local, Bits<14>>,
    l_ar_n: Signal<Local, Bits<14>>,
    l_aw_to4k: Signal<Local, Bits<14>>,
    l_aw_n: Signal<Local, Bits<14>>,
    l_rrev: Signal<Local, Bits<64>>,
    l_wfire: Signal<Local, Bit>,
    l_awfire: Signal<Local, Bit>,
    l_bfire: Signal<Local, Bit>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_rdata: ByteSwap64,
    le_wdata: ByteSwap64,
}

impl DmaAxi4Bridge {
    /// A bridge whose bursts have at most `max_beats` beats (1..=256; AXI4 INCR allows 256;
    /// a slave with a smaller limit, or a wish for shorter bursts, sets it lower).
    pub fn new(max_beats: u16) -> Self {
        assert!(
            (1..=256).contains(&max_beats),
            "DmaAxi4Bridge: max_beats must be 1..=256"
        );
        DmaAxi4Bridge {
            le_rdata: Default::default(),
            le_wdata: Default::default(),
            clock: Default::default(),
            dma: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_awsize: Default::default(),
            m_axi_awburst: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_bresp: Default::default(),
            m_axi_bvalid: Default::default(),
            m_axi_bready: Default::default(),
            m_axi_araddr: Default::default(),
            m_axi_arlen: Default::default(),
            m_axi_arsize: Default::default(),
            m_axi_arburst: Default::default(),
            m_axi_arvalid: Default::default(),
            m_axi_arready: Default::default(),
            m_axi_rdata: Default::default(),
            m_axi_rresp: Default::default(),
            m_axi_rlast: Default::default(),
            m_axi_rvalid: Default::default(),
            m_axi_rready: Default::default(),
            c_maxb: Constant::new((max_beats as u64).into()),
            c_page: Constant::new(PAGE_BEATS.into()),
            ar_state: Default::default(),
            ar_addr: Default::default(),
            ar_left: Default::default(),
            ar_n: Default::default(),
            ar_len: Default::default(),
            ral: Default::default(),
            w_state: Default::default(),
            aw_addr: Default::default(),
            aw_len: Default::default(),
            aw_done: Default::default(),
            w_bcnt: Default::default(),
            w_n: Default::default(),
            wal: Default::default(),
            w_tag: Default::default(),
            w_err: Default::default(),
            w_bpend: Default::default(),
            l_ar_to4k: Default::default(),
            l_ar_n: Default::default(),
            l_aw_to4k: Default::default(),
            l_aw_n: Default::default(),
            l_rrev: Default::default(),
            l_wfire: Default::default(),
            l_awfire: Default::default(),
            l_bfire: Default::default(),
        }
    }
}

impl Default for DmaAxi4Bridge {
    /// Bursts of up to 256 beats (2 KiB), the AXI4 maximum.
    fn default() -> Self {
        Self::new(256)
    }
}

impl Logic for DmaAxi4Bridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ar_state, ar_addr, ar_left, ar_n, ar_len, w_state, aw_addr, aw_len,
            aw_done, w_bcnt, w_n, w_tag, w_err, w_bpend
        );
        self.ral.clock.next = self.clock.val();
        self.wal.clock.next = self.clock.val();

        // ================= burst lengths: min(beats left, beats to the 4 KiB boundary, max)
        self.l_ar_to4k.next =
            self.c_page.val() - bit_cast::<14, 9>(self.ar_addr.q.val().get_bits::<9>(3));
        self.l_ar_n.next = self.ar_left.q.val();
        if self.l_ar_to4k.val() < self.l_ar_n.val() {
            self.l_ar_n.next = self.l_ar_to4k.val();
        }
        if self.c_maxb.val() < self.l_ar_n.val() {
            self.l_ar_n.next = self.c_maxb.val();
        }
        self.l_aw_to4k.next =
            self.c_page.val() - bit_cast::<14, 9>(self.aw_addr.q.val().get_bits::<9>(3));
        self.l_aw_n.next = self.wal.words_left.val();
        if self.l_aw_to4k.val() < self.l_aw_n.val() {
            self.l_aw_n.next = self.l_aw_to4k.val();
        }
        if self.c_maxb.val() < self.l_aw_n.val() {
            self.l_aw_n.next = self.c_maxb.val();
        }

        // ================= read: the R side is the realigner, fed with R beats
        // AXI lanes to ferroce order: the byte at addr + i moves from bits 8i.. to 56-8i..
        self.le_rdata.inp.next = self.m_axi_rdata.val();
        self.l_rrev.next = self.le_rdata.out.val();
        self.dma.rd.req_ready.next = self.ral.idle.val() & (self.ar_state.q.val() == ArState::Idle);
        self.ral.start.next = self.dma.rd.req_valid.val() & self.dma.rd.req_ready.val();
        self.ral.start_off.next = self.dma.rd.req_addr.val().get_bits::<3>(0);
        self.ral.start_len.next = self.dma.rd.req_len.val();
        self.ral.start_tag.next = self.dma.rd.req_tag.val();
        self.ral.start_err.next = false;
        self.ral.word_valid.next = self.m_axi_rvalid.val();
        self.ral.word.next = self.l_rrev.val();
        // any RRESP != OKAY marks the response from this beat on
        self.ral.word_err.next = self.m_axi_rresp.val().any();
        self.m_axi_rready.next = self.ral.word_ready.val();
        StreamSource::<64, 8>::link(&mut self.dma.rd.rsp, &mut self.ral.out);
        self.dma.rd.rsp_tag.next = self.ral.out_tag.val();
        self.dma.rd.rsp_error.next = self.ral.out_err.val();
        self.m_axi_araddr.next = self.ar_addr.q.val();
        self.m_axi_arlen.next = self.ar_len.q.val();
        self.m_axi_arsize.next = 3.into();
        self.m_axi_arburst.next = 1.into();
        self.m_axi_arvalid.next = self.ar_state.q.val() == ArState::Issue;

        // ================= AR side
        match self.ar_state.q.val() {
            ArState::Idle => {
                if self.dma.rd.req_valid.val() & self.dma.rd.req_ready.val() {
                    self.ar_addr.d.next = (self.dma.rd.req_addr.val() >> 3) << 3;
                    self.ar_left.d.next = self.ral.start_words.val();
                    self.ar_state.d.next = ArState::Plan;
                }
            }
            ArState::Plan => {
                self.ar_n.d.next = self.l_ar_n.val();
                self.ar_len.d.next = bit_cast::<8, 14>(self.l_ar_n.val() - 1);
                self.ar_state.d.next = ArState::Issue;
            }
            ArState::Issue => {
                if self.m_axi_arready.val() {
                    self.ar_addr.d.next =
                        self.ar_addr.q.val() + (bit_cast::<64, 14>(self.ar_n.q.val()) << 3);
                    self.ar_left.d.next = self.ar_left.q.val() - self.ar_n.q.val();
                    if self.ar_left.q.val() == self.ar_n.q.val() {
                        self.ar_state.d.next = ArState::Idle;
                    } else {
                        self.ar_state.d.next = ArState::Plan;
                    }
                }
            }
            _ => {
                self.ar_state.d.next = ArState::Idle;
            }
        }

        // ================= write: the realigner makes the AXI beats from the NIC's data
        self.wal.start.next = (self.w_state.q.val() == WState::Idle) & self.dma.wr.req_valid.val();
        self.wal.start_off.next = self.dma.wr.req_addr.val().get_bits::<3>(0);
        self.wal.start_len.next = self.dma.wr.req_len.val();
        StreamSink::<64, 8>::link(&mut self.dma.wr.data, &mut self.wal.inp);
        // W may run ahead of AW (AXI allows it); an input beat is passed straight through
        // (valid forward, ready back), a trailing flush beat needs no input
        self.wal.take.next = (self.w_state.q.val() == WState::Burst)
            & self.w_bcnt.q.val().any()
            & self.m_axi_wready.val();
        self.m_axi_wvalid.next = (self.w_state.q.val() == WState::Burst)
            & self.w_bcnt.q.val().any()
            & self.wal.word_valid.val();
        // ferroce order to AXI lanes (the strobes are in AXI lane order already)
        self.le_wdata.inp.next = self.wal.word.val();
        self.m_axi_wdata.next = self.le_wdata.out.val();
        self.m_axi_wstrb.next = self.wal.word_mask.val();
        self.m_axi_wlast.next = self.w_bcnt.q.val() == 1;

        // ================= write outputs
        self.dma.wr.req_ready.next = self.w_state.q.val() == WState::Idle;
        self.dma.wr.done_valid.next = false;
        self.dma.wr.done_tag.next = self.w_tag.q.val();
        self.dma.wr.done_error.next = self.w_err.q.val();
        self.m_axi_awaddr.next = self.aw_addr.q.val();
        self.m_axi_awlen.next = self.aw_len.q.val();
        self.m_axi_awsize.next = 3.into();
        self.m_axi_awburst.next = 1.into();
        self.m_axi_awvalid.next = (self.w_state.q.val() == WState::Burst) & !self.aw_done.q.val();
        self.m_axi_bready.next = true;
        self.l_wfire.next = self.m_axi_wvalid.val() & self.m_axi_wready.val();
        self.l_awfire.next = self.m_axi_awvalid.val() & self.m_axi_awready.val();
        self.l_bfire.next = self.m_axi_bvalid.val() & self.m_axi_bready.val();

        // B responses: one outstanding per burst whose AW went out
        if self.l_awfire.val() & !self.l_bfire.val() {
            self.w_bpend.d.next = self.w_bpend.q.val() + 1;
        }
        if !self.l_awfire.val() & self.l_bfire.val() {
            self.w_bpend.d.next = self.w_bpend.q.val() - 1;
        }
        if self.l_bfire.val() & self.m_axi_bresp.val().any() {
            self.w_err.d.next = true;
        }
        if self.l_awfire.val() {
            self.aw_done.d.next = true;
        }
        if self.l_wfire.val() {
            self.w_bcnt.d.next = self.w_bcnt.q.val() - 1;
        }

        // ================= write state machine
        match self.w_state.q.val() {
            WState::Idle => {
                if self.dma.wr.req_valid.val() {
                    self.aw_addr.d.next = (self.dma.wr.req_addr.val() >> 3) << 3;
                    self.w_tag.d.next = self.dma.wr.req_tag.val();
                    self.w_err.d.next = false;
                    self.w_state.d.next = WState::Plan;
                }
            }
            WState::Plan => {
                self.w_n.d.next = self.l_aw_n.val();
                self.w_bcnt.d.next = self.l_aw_n.val();
                self.aw_len.d.next = bit_cast::<8, 14>(self.l_aw_n.val() - 1);
                self.aw_done.d.next = false;
                self.w_state.d.next = WState::Burst;
            }
            WState::Burst => {
                if self.aw_done.q.val() & !self.w_bcnt.q.val().any() {
                    self.aw_addr.d.next =
                        self.aw_addr.q.val() + (bit_cast::<64, 14>(self.w_n.q.val()) << 3);
                    if self.wal.words_left.val().any() {
                        self.w_state.d.next = WState::Plan;
                    } else {
                        self.w_state.d.next = WState::Resp;
                    }
                }
            }
            WState::Resp => {
                // every burst's B is in (none can be firing now): complete the request
                if !self.w_bpend.q.val().any() {
                    self.dma.wr.done_valid.next = true;
                    self.w_state.d.next = WState::Idle;
                }
            }
            _ => {
                self.w_state.d.next = WState::Idle;
            }
        }
    }
}
