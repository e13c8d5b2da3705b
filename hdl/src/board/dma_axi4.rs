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
//!   `addr mod 8` leading bytes with a one-beat register, so the response starts with the byte
//!   at `addr` in the MSB and carries exactly `len` bytes (`keep` contiguous from the top).
//! * Writes: the same realignment the other way; `WSTRB` covers only the request's bytes on
//!   the first and last beats.
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
use crate::dma::DmaSlave;
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
pub enum RState {
    /// Accept a read request (the AR side is idle too).
    Idle,
    /// Take R beats, realign, fill the output register.
    Data,
    /// Every R beat is in but one output beat is left in the hold register: send it.
    Flush,
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
    c_ff: Constant<Bits<8>>,
    c_seven: Constant<Bits<3>>,
    // ---- read: AR side
    ar_state: DFF<ArState>,
    /// address of the next burst (8-byte aligned)
    ar_addr: DFF<Bits<64>>,
    /// AXI beats of the request not yet asked for
    ar_left: DFF<Bits<14>>,
    /// beats of the burst being presented
    ar_n: DFF<Bits<14>>,
    ar_len: DFF<Bits<8>>,
    // ---- read: R side
    r_state: DFF<RState>,
    r_off: DFF<Bits<3>>,
    /// R beats still to receive
    r_left: DFF<Bits<14>>,
    /// response beats still to produce
    r_oleft: DFF<Bits<14>>,
    /// the last response beat comes from the hold register alone (after the last R beat)
    r_flush: DFF<Bit>,
    /// the next R beat is the request's first
    r_first: DFF<Bit>,
    r_lastkeep: DFF<Bits<8>>,
    r_tag: DFF<Bits<8>>,
    /// an R beat of this request had RRESP != OKAY
    r_err: DFF<Bit>,
    /// the previous R beat, in ferroce byte order
    r_hold: DFF<Bits<64>>,
    // ---- read: output register (the response stream)
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_keep: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    o_tag: DFF<Bits<8>>,
    o_err: DFF<Bit>,
    // ---- write
    w_state: DFF<WState>,
    aw_addr: DFF<Bits<64>>,
    aw_len: DFF<Bits<8>>,
    aw_done: DFF<Bit>,
    w_off: DFF<Bits<3>>,
    /// AXI beats of the request not yet sent
    w_rem: DFF<Bits<14>>,
    /// beats of the current burst not yet sent
    w_bcnt: DFF<Bits<14>>,
    /// beats of the current burst (to advance the address)
    w_n: DFF<Bits<14>>,
    /// input (NIC) beats not yet taken
    w_ileft: DFF<Bits<14>>,
    w_first: DFF<Bit>,
    /// strobe mask of the request's last AXI beat
    w_lastmask: DFF<Bits<8>>,
    w_hold: DFF<Bits<64>>,
    w_tag: DFF<Bits<8>>,
    w_err: DFF<Bit>,
    /// bursts whose B response is outstanding
    w_bpend: DFF<Bits<14>>,
    // ---- combinational temporaries
    l_rd_end: Signal<Local, Bits<17>>,
    l_rd_lm: Signal<Local, Bits<16>>,
    l_rd_a: Signal<Local, Bits<14>>,
    l_rd_o: Signal<Local, Bits<14>>,
    l_rd_ksh: Signal<Local, Bits<3>>,
    l_rd_off: Signal<Local, Bits<3>>,
    l_wr_end: Signal<Local, Bits<17>>,
    l_wr_lm: Signal<Local, Bits<16>>,
    l_wr_a: Signal<Local, Bits<14>>,
    l_wr_o: Signal<Local, Bits<14>>,
    l_wr_e: Signal<Local, Bits<3>>,
    l_wr_esh: Signal<Local, Bits<3>>,
    l_wr_off: Signal<Local, Bits<3>>,
    l_ar_to4k: Signal<Local, Bits<14>>,
    l_ar_n: Signal<Local, Bits<14>>,
    l_aw_to4k: Signal<Local, Bits<14>>,
    l_aw_n: Signal<Local, Bits<14>>,
    l_rrev: Signal<Local, Bits<64>>,
    l_rcat: Signal<Local, Bits<128>>,
    l_rflcat: Signal<Local, Bits<128>>,
    l_rsh: Signal<Local, Bits<8>>,
    l_rcomb: Signal<Local, Bits<64>>,
    l_rfl: Signal<Local, Bits<64>>,
    l_ofree: Signal<Local, Bit>,
    l_rfire: Signal<Local, Bit>,
    l_rbad: Signal<Local, Bit>,
    l_remit: Signal<Local, Bit>,
    l_need: Signal<Local, Bit>,
    l_wcur: Signal<Local, Bits<64>>,
    l_wcat: Signal<Local, Bits<128>>,
    l_wsh: Signal<Local, Bits<8>>,
    l_wfer: Signal<Local, Bits<64>>,
    l_wmask: Signal<Local, Bits<8>>,
    l_wfire: Signal<Local, Bit>,
    l_awfire: Signal<Local, Bit>,
    l_bfire: Signal<Local, Bit>,
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
            c_ff: Constant::new(0xFF.into()),
            c_seven: Constant::new(7.into()),
            ar_state: Default::default(),
            ar_addr: Default::default(),
            ar_left: Default::default(),
            ar_n: Default::default(),
            ar_len: Default::default(),
            r_state: Default::default(),
            r_off: Default::default(),
            r_left: Default::default(),
            r_oleft: Default::default(),
            r_flush: Default::default(),
            r_first: Default::default(),
            r_lastkeep: Default::default(),
            r_tag: Default::default(),
            r_err: Default::default(),
            r_hold: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_tag: Default::default(),
            o_err: Default::default(),
            w_state: Default::default(),
            aw_addr: Default::default(),
            aw_len: Default::default(),
            aw_done: Default::default(),
            w_off: Default::default(),
            w_rem: Default::default(),
            w_bcnt: Default::default(),
            w_n: Default::default(),
            w_ileft: Default::default(),
            w_first: Default::default(),
            w_lastmask: Default::default(),
            w_hold: Default::default(),
            w_tag: Default::default(),
            w_err: Default::default(),
            w_bpend: Default::default(),
            l_rd_end: Default::default(),
            l_rd_lm: Default::default(),
            l_rd_a: Default::default(),
            l_rd_o: Default::default(),
            l_rd_ksh: Default::default(),
            l_rd_off: Default::default(),
            l_wr_end: Default::default(),
            l_wr_lm: Default::default(),
            l_wr_a: Default::default(),
            l_wr_o: Default::default(),
            l_wr_e: Default::default(),
            l_wr_esh: Default::default(),
            l_wr_off: Default::default(),
            l_ar_to4k: Default::default(),
            l_ar_n: Default::default(),
            l_aw_to4k: Default::default(),
            l_aw_n: Default::default(),
            l_rrev: Default::default(),
            l_rcat: Default::default(),
            l_rflcat: Default::default(),
            l_rsh: Default::default(),
            l_rcomb: Default::default(),
            l_rfl: Default::default(),
            l_ofree: Default::default(),
            l_rfire: Default::default(),
            l_rbad: Default::default(),
            l_remit: Default::default(),
            l_need: Default::default(),
            l_wcur: Default::default(),
            l_wcat: Default::default(),
            l_wsh: Default::default(),
            l_wfer: Default::default(),
            l_wmask: Default::default(),
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
            self, clock, ar_state, ar_addr, ar_left, ar_n, ar_len, r_state, r_off, r_left, r_oleft,
            r_flush, r_first, r_lastkeep, r_tag, r_err, r_hold, o_valid, o_data, o_keep, o_last,
            o_tag, o_err, w_state, aw_addr, aw_len, aw_done, w_off, w_rem, w_bcnt, w_n, w_ileft,
            w_first, w_lastmask, w_hold, w_tag, w_err, w_bpend
        );
        // ================= request geometry (from the request fields, used on acceptance)
        // AXI beats = (off + len - 1) / 8 + 1; response beats = (len - 1) / 8 + 1; the last
        // response beat holds (len - 1) % 8 + 1 bytes. Widths chosen so nothing wraps (len >= 1).
        self.l_rd_off.next = self.dma.rd.req_addr.val().get_bits::<3>(0);
        self.l_rd_end.next = bit_cast::<17, 3>(self.l_rd_off.val())
            + bit_cast::<17, 16>(self.dma.rd.req_len.val())
            - 1;
        self.l_rd_lm.next = self.dma.rd.req_len.val() - 1;
        self.l_rd_a.next = bit_cast::<14, 17>(self.l_rd_end.val() >> 3) + 1;
        self.l_rd_o.next = bit_cast::<14, 16>(self.l_rd_lm.val() >> 3) + 1;
        self.l_rd_ksh.next = self.c_seven.val() - self.l_rd_lm.val().get_bits::<3>(0);
        self.l_wr_off.next = self.dma.wr.req_addr.val().get_bits::<3>(0);
        self.l_wr_end.next = bit_cast::<17, 3>(self.l_wr_off.val())
            + bit_cast::<17, 16>(self.dma.wr.req_len.val())
            - 1;
        self.l_wr_lm.next = self.dma.wr.req_len.val() - 1;
        self.l_wr_a.next = bit_cast::<14, 17>(self.l_wr_end.val() >> 3) + 1;
        self.l_wr_o.next = bit_cast::<14, 16>(self.l_wr_lm.val() >> 3) + 1;
        // byte lane of the last byte within its AXI beat
        self.l_wr_e.next = self.l_wr_end.val().get_bits::<3>(0);
        self.l_wr_esh.next = self.c_seven.val() - self.l_wr_e.val();

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
        self.l_aw_n.next = self.w_rem.q.val();
        if self.l_aw_to4k.val() < self.l_aw_n.val() {
            self.l_aw_n.next = self.l_aw_to4k.val();
        }
        if self.c_maxb.val() < self.l_aw_n.val() {
            self.l_aw_n.next = self.c_maxb.val();
        }

        // ================= read data path
        // AXI lanes to ferroce order: the byte at addr + i moves from bits 8i.. to 56-8i..
        self.l_rrev.next = (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(0)) << 56)
            | (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(16)) << 40)
            | (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(24)) << 32)
            | (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(32)) << 24)
            | (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(48)) << 8)
            | bit_cast::<64, 8>(self.m_axi_rdata.val().get_bits::<8>(56));
        // {previous beat, this beat}: the response beat is the 8 bytes starting `off` bytes
        // into the previous one, i.e. bits [127 - 8 off : 64 - 8 off]
        self.l_rcat.next = (bit_cast::<128, 64>(self.r_hold.q.val()) << 64)
            | bit_cast::<128, 64>(self.l_rrev.val());
        self.l_rflcat.next = bit_cast::<128, 64>(self.r_hold.q.val()) << 64;
        self.l_rsh.next = 64 - (bit_cast::<8, 3>(self.r_off.q.val()) << 3);
        self.l_rcomb.next = self.l_rrev.val();
        if self.r_off.q.val().any() {
            self.l_rcomb.next = self.l_rcat.val().get_bits::<64>(self.l_rsh.val().index());
        }
        self.l_rfl.next = self.l_rflcat.val().get_bits::<64>(self.l_rsh.val().index());
        self.l_rbad.next = self.m_axi_rresp.val().any();
        // the output register is free this cycle if empty or being taken
        self.l_ofree.next = !self.o_valid.q.val() | self.dma.rd.rsp.ready.val();
        // with an unaligned start the first R beat only fills the hold register
        self.l_remit.next = !self.r_first.q.val() | !self.r_off.q.val().any();

        // ================= read outputs
        self.dma.rd.req_ready.next =
            (self.r_state.q.val() == RState::Idle) & (self.ar_state.q.val() == ArState::Idle);
        self.dma.rd.rsp.valid.next = self.o_valid.q.val();
        self.dma.rd.rsp.data.next = self.o_data.q.val();
        self.dma.rd.rsp.keep.next = self.o_keep.q.val();
        self.dma.rd.rsp.last.next = self.o_last.q.val();
        self.dma.rd.rsp_tag.next = self.o_tag.q.val();
        self.dma.rd.rsp_error.next = self.o_err.q.val();
        self.m_axi_araddr.next = self.ar_addr.q.val();
        self.m_axi_arlen.next = self.ar_len.q.val();
        self.m_axi_arsize.next = 3.into();
        self.m_axi_arburst.next = 1.into();
        self.m_axi_arvalid.next = self.ar_state.q.val() == ArState::Issue;
        self.m_axi_rready.next = (self.r_state.q.val() == RState::Data) & self.l_ofree.val();
        self.l_rfire.next = self.m_axi_rready.val() & self.m_axi_rvalid.val();
        if self.dma.rd.rsp.ready.val() {
            self.o_valid.d.next = false;
        }

        // ================= AR side
        match self.ar_state.q.val() {
            ArState::Idle => {
                if self.dma.rd.req_valid.val() & self.dma.rd.req_ready.val() {
                    self.ar_addr.d.next = (self.dma.rd.req_addr.val() >> 3) << 3;
                    self.ar_left.d.next = self.l_rd_a.val();
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

        // ================= R side
        match self.r_state.q.val() {
            RState::Idle => {
                if self.dma.rd.req_valid.val() & self.dma.rd.req_ready.val() {
                    self.r_off.d.next = self.l_rd_off.val();
                    self.r_left.d.next = self.l_rd_a.val();
                    self.r_oleft.d.next = self.l_rd_o.val();
                    // an unaligned start whose bytes fit in as many AXI beats as response
                    // beats ends with a beat made of the hold register alone
                    self.r_flush.d.next =
                        self.l_rd_off.val().any() & (self.l_rd_a.val() == self.l_rd_o.val());
                    self.r_first.d.next = true;
                    self.r_lastkeep.d.next = self.c_ff.val() << self.l_rd_ksh.val();
                    self.r_tag.d.next = self.dma.rd.req_tag.val();
                    self.r_err.d.next = false;
                    self.r_state.d.next = RState::Data;
                }
            }
            RState::Data => {
                if self.l_rfire.val() {
                    self.r_left.d.next = self.r_left.q.val() - 1;
                    self.r_hold.d.next = self.l_rrev.val();
                    self.r_first.d.next = false;
                    self.r_err.d.next = self.r_err.q.val() | self.l_rbad.val();
                    if self.l_remit.val() {
                        self.o_valid.d.next = true;
                        self.o_data.d.next = self.l_rcomb.val();
                        self.o_tag.d.next = self.r_tag.q.val();
                        self.o_err.d.next = self.r_err.q.val() | self.l_rbad.val();
                        self.r_oleft.d.next = self.r_oleft.q.val() - 1;
                        if self.r_oleft.q.val() == 1 {
                            self.o_keep.d.next = self.r_lastkeep.q.val();
                            self.o_last.d.next = true;
                        } else {
                            self.o_keep.d.next = self.c_ff.val();
                            self.o_last.d.next = false;
                        }
                    }
                    if self.r_left.q.val() == 1 {
                        if self.r_flush.q.val() {
                            self.r_state.d.next = RState::Flush;
                        } else {
                            self.r_state.d.next = RState::Idle;
                        }
                    }
                }
            }
            RState::Flush => {
                if self.l_ofree.val() {
                    self.o_valid.d.next = true;
                    self.o_data.d.next = self.l_rfl.val();
                    self.o_keep.d.next = self.r_lastkeep.q.val();
                    self.o_last.d.next = true;
                    self.o_tag.d.next = self.r_tag.q.val();
                    self.o_err.d.next = self.r_err.q.val();
                    self.r_oleft.d.next = 0.into();
                    self.r_state.d.next = RState::Idle;
                }
            }
            _ => {
                self.r_state.d.next = RState::Idle;
            }
        }

        // ================= write data path
        // the AXI beat is the 8 bytes starting 8 - off bytes into {previous input, this
        // input}, i.e. bits [63 + 8 off : 8 off]; after the last input beat, zeros fill in
        self.l_need.next = self.w_ileft.q.val().any();
        self.l_wcur.next = 0.into();
        if self.l_need.val() {
            self.l_wcur.next = self.dma.wr.data.data.val();
        }
        self.l_wcat.next = (bit_cast::<128, 64>(self.w_hold.q.val()) << 64)
            | bit_cast::<128, 64>(self.l_wcur.val());
        self.l_wsh.next = bit_cast::<8, 3>(self.w_off.q.val()) << 3;
        self.l_wfer.next = self.l_wcur.val();
        if self.w_off.q.val().any() {
            self.l_wfer.next = self.l_wcat.val().get_bits::<64>(self.l_wsh.val().index());
        }
        // strobes in AXI lane order: the first beat starts at lane `off`, the last ends at
        // the lane of the request's last byte
        self.l_wmask.next = self.c_ff.val();
        if self.w_first.q.val() {
            self.l_wmask.next = self.c_ff.val() << self.w_off.q.val();
        }
        if self.w_rem.q.val() == 1 {
            self.l_wmask.next = self.l_wmask.val() & self.w_lastmask.q.val();
        }

        // ================= write outputs
        self.dma.wr.req_ready.next = self.w_state.q.val() == WState::Idle;
        self.dma.wr.data.ready.next = false;
        self.dma.wr.done_valid.next = false;
        self.dma.wr.done_tag.next = self.w_tag.q.val();
        self.dma.wr.done_error.next = self.w_err.q.val();
        self.m_axi_awaddr.next = self.aw_addr.q.val();
        self.m_axi_awlen.next = self.aw_len.q.val();
        self.m_axi_awsize.next = 3.into();
        self.m_axi_awburst.next = 1.into();
        self.m_axi_awvalid.next = (self.w_state.q.val() == WState::Burst) & !self.aw_done.q.val();
        self.m_axi_wdata.next = (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(0)) << 56)
            | (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(16)) << 40)
            | (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(24)) << 32)
            | (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(32)) << 24)
            | (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(48)) << 8)
            | bit_cast::<64, 8>(self.l_wfer.val().get_bits::<8>(56));
        self.m_axi_wstrb.next = self.l_wmask.val();
        self.m_axi_wlast.next = self.w_bcnt.q.val() == 1;
        self.m_axi_wvalid.next = false;
        if (self.w_state.q.val() == WState::Burst) & self.w_bcnt.q.val().any() {
            // W may run ahead of AW (AXI allows it); an input beat is passed straight through
            // (valid forward, ready back), a trailing flush beat needs no input
            if self.l_need.val() {
                self.m_axi_wvalid.next = self.dma.wr.data.valid.val();
                self.dma.wr.data.ready.next = self.m_axi_wready.val();
            } else {
                self.m_axi_wvalid.next = true;
            }
        }
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
            self.w_rem.d.next = self.w_rem.q.val() - 1;
            self.w_first.d.next = false;
            if self.l_need.val() {
                self.w_ileft.d.next = self.w_ileft.q.val() - 1;
                self.w_hold.d.next = self.dma.wr.data.data.val();
            }
        }

        // ================= write state machine
        match self.w_state.q.val() {
            WState::Idle => {
                if self.dma.wr.req_valid.val() {
                    self.aw_addr.d.next = (self.dma.wr.req_addr.val() >> 3) << 3;
                    self.w_off.d.next = self.l_wr_off.val();
                    self.w_rem.d.next = self.l_wr_a.val();
                    self.w_ileft.d.next = self.l_wr_o.val();
                    self.w_first.d.next = true;
                    self.w_lastmask.d.next = self.c_ff.val() >> self.l_wr_esh.val();
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
                    if self.w_rem.q.val().any() {
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
