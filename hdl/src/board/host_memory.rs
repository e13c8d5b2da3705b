//! [`OnChipHostMemory`]: "host memory" in block RAM behind the NIC's DMA port, for a board
//! with no PCIe host (the ECPIX-5): the NIC's WQEs, payload buffers and CQs live in the FPGA,
//! and a PC loads and inspects them through the second port (the UART register bridge,
//! docs/INTEGRATION.md section 8).
//!
//! # The memory
//! `8 << AW` bytes (`AW` = word address bits; [`HostMemory64K`] is `AW` = 13, 64 KiB) at the
//! IOVA `base` (a constructor parameter; the NIC sees the window `base .. base + size`). It is
//! built as eight byte-wide RAMs, one per byte lane of an 8-byte word, so a write can enable any
//! subset of bytes (the RAM primitive has no byte enables); Yosys maps each lane to DP16KD
//! blocks on ECP5. Lane `j` of word `w` holds the byte at `base + 8 w + j`.
//!
//! # DMA port (`dma`, the shell side, docs/DMA.md)
//! * Reads of any address and length: one RAM word per cycle, realigned to the ferroce stream
//!   (the byte at `req_addr` in the MSB of the first beat, `keep` contiguous from the top,
//!   exactly `req_len` bytes) by [`ReadRealign`], the realigner `DmaAxi4Bridge` uses too.
//!   One request at a time; the response streams at one beat per cycle while `rsp.ready` is
//!   high.
//! * Writes of any address and length, one word per cycle, byte enables for the first and last
//!   words ([`WriteRealign`]); `done` one cycle after the last word is in the RAM (so any read accepted after
//!   `done` sees it: docs/DMA.md O3). One request at a time.
//! * A request not wholly inside the window is an error: a read answers `req_len` zero bytes
//!   with `rsp_error` on every beat, a write takes its data, writes nothing and completes with
//!   `done_error` (docs/DMA.md section 6).
//!
//! # Host port (`s_axil_*`, an AXI4-Lite slave, 32-bit data)
//! Chosen over a bare word port because the UART bridge (`UartAxil`) is an AXI4-Lite master:
//! a top level decodes one address bit to send an access to the NIC's registers or here.
//! Addresses are byte offsets in the window (bits 1:0 ignored); AXI4-Lite is little-endian, so
//! the byte at offset `a + i` is `data[8i+7:8i]`, which is also how a little-endian CPU would
//! see the host structures (HOST-INTERFACE.md). `wstrb` is honoured. An offset at or beyond the
//! window's size answers SLVERR and writes nothing. One access at a time (a write when both a
//! write and a read are presented); the slave waits for `awvalid` and `wvalid` together.
//!
//! The host port takes priority over the DMA port for the one cycle its access uses the RAM's
//! read or write port, and the DMA channel stalls that cycle. No ordering between the host
//! port and DMA accesses is promised beyond the order in which they reach the RAM (the driver
//! writes WQEs before it rings a doorbell, which is a register access that cannot overtake a
//! completed host write).
use super::read_align::ReadRealign;
use super::write_align::WriteRealign;
use crate::dma::DmaSlave;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// 64 KiB of host memory (8192 words of 8 bytes).
pub type HostMemory64K = OnChipHostMemory<13>;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum HmWrState {
    /// Accept a write request.
    Idle,
    /// Write one realigned word per cycle as input beats arrive.
    Write,
    /// The last word is in the RAM: strobe `done`.
    Done,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum HmHostState {
    /// Wait for a write (AW and W together) or a read (AR).
    Idle,
    /// This cycle the host write uses the RAM's write port.
    Write,
    /// Present B until the master takes it.
    Bresp,
    /// This cycle the host read presents its address on the RAM's read port.
    Read,
    /// The RAM word is out: capture the addressed 32-bit half.
    Capture,
    /// Present R until the master takes it.
    Rresp,
}

#[derive(LogicBlock)]
pub struct OnChipHostMemory<const AW: usize> {
    pub clock: Signal<In, Clock>,
    /// The shell side of the NIC's DMA port.
    pub dma: DmaSlave<64, 8>,
    // ---- host port: AXI4-Lite slave
    pub s_axil_awaddr: Signal<In, Bits<32>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<32>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // ---- the byte lanes (lane j holds byte j of every word); named fields, not an array,
    // because indexing an array of blocks inside `update` does not emit valid Verilog
    mem0: RAM<Bits<8>, AW>,
    mem1: RAM<Bits<8>, AW>,
    mem2: RAM<Bits<8>, AW>,
    mem3: RAM<Bits<8>, AW>,
    mem4: RAM<Bits<8>, AW>,
    mem5: RAM<Bits<8>, AW>,
    mem6: RAM<Bits<8>, AW>,
    mem7: RAM<Bits<8>, AW>,
    // ---- constants
    c_base: Constant<Bits<64>>,
    c_size: Constant<Bits<64>>,
    c_hsize: Constant<Bits<32>>,
    // ---- read channel
    /// the RAM word the response needs next
    r_word: DFF<Bits<AW>>,
    /// the RAM's output is word `r_word` (false after the host port used the read port)
    r_qv: DFF<Bit>,
    /// RAM words realigned into the response stream (its error flag: the request is outside
    /// the window, zero beats with `rsp_error`)
    ral: ReadRealign,
    // ---- write channel
    w_state: DFF<HmWrState>,
    w_word: DFF<Bits<AW>>,
    /// the NIC's data beats realigned into RAM words with their byte masks
    wal: WriteRealign,
    w_tag: DFF<Bits<8>>,
    /// the request is outside the window: take the data, write nothing
    w_err: DFF<Bit>,
    // ---- host port
    h_state: DFF<HmHostState>,
    h_addr: DFF<Bits<32>>,
    h_data: DFF<Bits<32>>,
    h_strb: DFF<Bits<4>>,
    h_err: DFF<Bit>,
    h_rdata: DFF<Bits<32>>,
    // ---- combinational temporaries
    l_rd_rel: Signal<Local, Bits<64>>,
    l_rd_end: Signal<Local, Bits<64>>,
    l_rd_bad: Signal<Local, Bit>,
    l_rd_off: Signal<Local, Bits<3>>,
    l_rd_word: Signal<Local, Bits<AW>>,
    l_wr_rel: Signal<Local, Bits<64>>,
    l_wr_end: Signal<Local, Bits<64>>,
    l_wr_bad: Signal<Local, Bit>,
    l_wr_word: Signal<Local, Bits<AW>>,
    l_h_rd: Signal<Local, Bit>,
    l_h_wr: Signal<Local, Bit>,
    l_h_word: Signal<Local, Bits<AW>>,
    l_h_hi: Signal<Local, Bit>,
    l_q: Signal<Local, Bits<64>>,
    l_rin: Signal<Local, Bits<64>>,
    l_rfire: Signal<Local, Bit>,
    l_raddr: Signal<Local, Bits<AW>>,
    l_wgo: Signal<Local, Bit>,
    l_waddr: Signal<Local, Bits<AW>>,
    /// per-lane write data and enable (after the host/DMA choice)
    l_wd: [Signal<Local, Bits<8>>; 8],
    l_we: [Signal<Local, Bit>; 8],
}

impl<const AW: usize> OnChipHostMemory<AW> {
    /// A memory of `8 << AW` bytes that the DMA port sees at IOVA `base` (8-byte aligned).
    pub fn new(base: u64) -> Self {
        assert!(
            (3..=28).contains(&AW),
            "OnChipHostMemory: AW must be 3..=28"
        );
        assert!(
            base.is_multiple_of(8),
            "OnChipHostMemory: base must be 8-byte aligned"
        );
        assert!(
            base.checked_add(Self::SIZE as u64).is_some(),
            "OnChipHostMemory: the window wraps past 2^64"
        );
        OnChipHostMemory {
            clock: Default::default(),
            dma: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            mem0: Default::default(),
            mem1: Default::default(),
            mem2: Default::default(),
            mem3: Default::default(),
            mem4: Default::default(),
            mem5: Default::default(),
            mem6: Default::default(),
            mem7: Default::default(),
            c_base: Constant::new(base.into()),
            c_size: Constant::new((Self::SIZE as u64).into()),
            c_hsize: Constant::new((Self::SIZE as u64).into()),
            r_word: Default::default(),
            r_qv: Default::default(),
            ral: Default::default(),
            w_state: Default::default(),
            w_word: Default::default(),
            wal: Default::default(),
            w_tag: Default::default(),
            w_err: Default::default(),
            h_state: Default::default(),
            h_addr: Default::default(),
            h_data: Default::default(),
            h_strb: Default::default(),
            h_err: Default::default(),
            h_rdata: Default::default(),
            l_rd_rel: Default::default(),
            l_rd_end: Default::default(),
            l_rd_bad: Default::default(),
            l_rd_off: Default::default(),
            l_rd_word: Default::default(),
            l_wr_rel: Default::default(),
            l_wr_end: Default::default(),
            l_wr_bad: Default::default(),
            l_wr_word: Default::default(),
            l_h_rd: Default::default(),
            l_h_wr: Default::default(),
            l_h_word: Default::default(),
            l_h_hi: Default::default(),
            l_q: Default::default(),
            l_rin: Default::default(),
            l_rfire: Default::default(),
            l_raddr: Default::default(),
            l_wgo: Default::default(),
            l_waddr: Default::default(),
            l_wd: Default::default(),
            l_we: Default::default(),
        }
    }

    /// Bytes in the memory.
    pub const SIZE: usize = 8 << AW;
}

impl<const AW: usize> Default for OnChipHostMemory<AW> {
    /// The window at IOVA 0.
    fn default() -> Self {
        Self::new(0)
    }
}

impl<const AW: usize> Logic for OnChipHostMemory<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_word, r_qv, w_state, w_word, w_tag, w_err, h_state, h_addr, h_data,
            h_strb, h_err, h_rdata
        );
        self.ral.clock.next = self.clock.val();
        self.wal.clock.next = self.clock.val();
        self.mem0.read_clock.next = self.clock.val();
        self.mem1.read_clock.next = self.clock.val();
        self.mem2.read_clock.next = self.clock.val();
        self.mem3.read_clock.next = self.clock.val();
        self.mem4.read_clock.next = self.clock.val();
        self.mem5.read_clock.next = self.clock.val();
        self.mem6.read_clock.next = self.clock.val();
        self.mem7.read_clock.next = self.clock.val();
        self.mem0.write_clock.next = self.clock.val();
        self.mem1.write_clock.next = self.clock.val();
        self.mem2.write_clock.next = self.clock.val();
        self.mem3.write_clock.next = self.clock.val();
        self.mem4.write_clock.next = self.clock.val();
        self.mem5.write_clock.next = self.clock.val();
        self.mem6.write_clock.next = self.clock.val();
        self.mem7.write_clock.next = self.clock.val();

        // ================= request windows (used on acceptance)
        // Inside the window iff rel < size and rel + len <= size (when rel < size the sum
        // cannot wrap); the word counts and masks come from the realigners.
        self.l_rd_rel.next = self.dma.rd.req_addr.val() - self.c_base.val();
        self.l_rd_end.next = self.l_rd_rel.val() + bit_cast::<64, 16>(self.dma.rd.req_len.val());
        self.l_rd_bad.next = false;
        if self.l_rd_rel.val() >= self.c_size.val() {
            self.l_rd_bad.next = true;
        }
        if self.l_rd_end.val() > self.c_size.val() {
            self.l_rd_bad.next = true;
        }
        self.l_rd_off.next = self.l_rd_rel.val().get_bits::<3>(0);
        self.l_rd_word.next = self.l_rd_rel.val().get_bits::<AW>(3);
        self.l_wr_rel.next = self.dma.wr.req_addr.val() - self.c_base.val();
        self.l_wr_end.next = self.l_wr_rel.val() + bit_cast::<64, 16>(self.dma.wr.req_len.val());
        self.l_wr_bad.next = false;
        if self.l_wr_rel.val() >= self.c_size.val() {
            self.l_wr_bad.next = true;
        }
        if self.l_wr_end.val() > self.c_size.val() {
            self.l_wr_bad.next = true;
        }
        self.l_wr_word.next = self.l_wr_rel.val().get_bits::<AW>(3);

        // ================= host port: which RAM port it takes this cycle
        self.l_h_rd.next = self.h_state.q.val() == HmHostState::Read;
        self.l_h_wr.next = self.h_state.q.val() == HmHostState::Write;
        self.l_h_word.next = self.h_addr.q.val().get_bits::<AW>(3);
        self.l_h_hi.next = self.h_addr.q.val().get_bit(2);

        // ================= read: RAM words through the realigner
        // the RAM word in ferroce order (lane 0, the lowest address, in the MSB); an errored
        // request reads no RAM and answers zeros
        self.l_q.next = (bit_cast::<64, 8>(self.mem0.read_data.val()) << 56)
            | (bit_cast::<64, 8>(self.mem1.read_data.val()) << 48)
            | (bit_cast::<64, 8>(self.mem2.read_data.val()) << 40)
            | (bit_cast::<64, 8>(self.mem3.read_data.val()) << 32)
            | (bit_cast::<64, 8>(self.mem4.read_data.val()) << 24)
            | (bit_cast::<64, 8>(self.mem5.read_data.val()) << 16)
            | (bit_cast::<64, 8>(self.mem6.read_data.val()) << 8)
            | bit_cast::<64, 8>(self.mem7.read_data.val());
        self.l_rin.next = self.l_q.val();
        if self.ral.err.val() {
            self.l_rin.next = 0.into();
        }
        self.dma.rd.req_ready.next = self.ral.idle.val() & !self.l_h_rd.val();
        self.ral.start.next = self.dma.rd.req_valid.val() & self.dma.rd.req_ready.val();
        self.ral.start_off.next = self.l_rd_off.val();
        self.ral.start_len.next = self.dma.rd.req_len.val();
        self.ral.start_tag.next = self.dma.rd.req_tag.val();
        self.ral.start_err.next = self.l_rd_bad.val();
        // a word is there when it is on the RAM's output (an errored request needs no RAM)
        // and the host is not using the read port
        self.ral.word_valid.next = (self.ral.err.val() | self.r_qv.q.val()) & !self.l_h_rd.val();
        self.ral.word.next = self.l_rin.val();
        self.ral.word_err.next = false;
        self.l_rfire.next = self.ral.word_ready.val() & self.ral.word_valid.val();
        StreamSource::<64, 8>::link(&mut self.dma.rd.rsp, &mut self.ral.out);
        self.dma.rd.rsp_tag.next = self.ral.out_tag.val();
        self.dma.rd.rsp_error.next = self.ral.out_err.val();

        // read address: keep presenting the needed word (the RAM output then stays on it),
        // the next one when this one is taken, the request's first on acceptance, the host's
        // when the host reads; the output is the needed word next cycle unless the host read
        self.l_raddr.next = self.r_word.q.val();
        if self.l_rfire.val() {
            self.l_raddr.next = self.r_word.q.val() + 1;
            self.r_word.d.next = self.r_word.q.val() + 1;
        }
        if self.ral.start.val() {
            self.l_raddr.next = self.l_rd_word.val();
            self.r_word.d.next = self.l_rd_word.val();
        }
        if self.l_h_rd.val() {
            self.l_raddr.next = self.l_h_word.val();
        }
        self.r_qv.d.next = !self.l_h_rd.val();
        self.mem0.read_address.next = self.l_raddr.val();
        self.mem1.read_address.next = self.l_raddr.val();
        self.mem2.read_address.next = self.l_raddr.val();
        self.mem3.read_address.next = self.l_raddr.val();
        self.mem4.read_address.next = self.l_raddr.val();
        self.mem5.read_address.next = self.l_raddr.val();
        self.mem6.read_address.next = self.l_raddr.val();
        self.mem7.read_address.next = self.l_raddr.val();

        // ================= write: the realigner makes RAM words from the NIC's data
        self.wal.start.next =
            (self.w_state.q.val() == HmWrState::Idle) & self.dma.wr.req_valid.val();
        self.wal.start_off.next = self.l_wr_rel.val().get_bits::<3>(0);
        self.wal.start_len.next = self.dma.wr.req_len.val();
        StreamSink::<64, 8>::link(&mut self.dma.wr.data, &mut self.wal.inp);
        // a word goes in when its input beat is here (or none is needed), unless the host
        // writes this cycle
        self.wal.take.next = (self.w_state.q.val() == HmWrState::Write) & !self.l_h_wr.val();
        self.l_wgo.next = self.wal.take.val() & self.wal.word_valid.val();

        // ================= RAM write port: the host's write or the DMA's word
        self.l_waddr.next = self.w_word.q.val();
        for j in 0..8 {
            self.l_wd[j].next = self.wal.word.val().get_bits::<8>(56 - 8 * j);
            self.l_we[j].next =
                self.l_wgo.val() & !self.w_err.q.val() & self.wal.word_mask.val().get_bit(j);
        }
        if self.l_h_wr.val() {
            self.l_waddr.next = self.l_h_word.val();
            for j in 0..4 {
                self.l_wd[j].next = self.h_data.q.val().get_bits::<8>(8 * j);
                self.l_wd[j + 4].next = self.h_data.q.val().get_bits::<8>(8 * j);
                self.l_we[j].next =
                    !self.h_err.q.val() & !self.l_h_hi.val() & self.h_strb.q.val().get_bit(j);
                self.l_we[j + 4].next =
                    !self.h_err.q.val() & self.l_h_hi.val() & self.h_strb.q.val().get_bit(j);
            }
        }
        self.mem0.write_address.next = self.l_waddr.val();
        self.mem1.write_address.next = self.l_waddr.val();
        self.mem2.write_address.next = self.l_waddr.val();
        self.mem3.write_address.next = self.l_waddr.val();
        self.mem4.write_address.next = self.l_waddr.val();
        self.mem5.write_address.next = self.l_waddr.val();
        self.mem6.write_address.next = self.l_waddr.val();
        self.mem7.write_address.next = self.l_waddr.val();
        self.mem0.write_data.next = self.l_wd[0].val();
        self.mem1.write_data.next = self.l_wd[1].val();
        self.mem2.write_data.next = self.l_wd[2].val();
        self.mem3.write_data.next = self.l_wd[3].val();
        self.mem4.write_data.next = self.l_wd[4].val();
        self.mem5.write_data.next = self.l_wd[5].val();
        self.mem6.write_data.next = self.l_wd[6].val();
        self.mem7.write_data.next = self.l_wd[7].val();
        self.mem0.write_enable.next = self.l_we[0].val();
        self.mem1.write_enable.next = self.l_we[1].val();
        self.mem2.write_enable.next = self.l_we[2].val();
        self.mem3.write_enable.next = self.l_we[3].val();
        self.mem4.write_enable.next = self.l_we[4].val();
        self.mem5.write_enable.next = self.l_we[5].val();
        self.mem6.write_enable.next = self.l_we[6].val();
        self.mem7.write_enable.next = self.l_we[7].val();

        // ================= write outputs and state machine
        self.dma.wr.req_ready.next = self.w_state.q.val() == HmWrState::Idle;
        self.dma.wr.done_valid.next = false;
        self.dma.wr.done_tag.next = self.w_tag.q.val();
        self.dma.wr.done_error.next = self.w_err.q.val();
        match self.w_state.q.val() {
            HmWrState::Idle => {
                if self.dma.wr.req_valid.val() {
                    self.w_word.d.next = self.l_wr_word.val();
                    self.w_tag.d.next = self.dma.wr.req_tag.val();
                    self.w_err.d.next = self.l_wr_bad.val();
                    self.w_state.d.next = HmWrState::Write;
                }
            }
            HmWrState::Write => {
                if self.l_wgo.val() {
                    self.w_word.d.next = self.w_word.q.val() + 1;
                    if self.wal.words_left.val() == 1 {
                        self.w_state.d.next = HmWrState::Done;
                    }
                }
            }
            HmWrState::Done => {
                // the last word went into the RAM at the previous edge
                self.dma.wr.done_valid.next = true;
                self.w_state.d.next = HmWrState::Idle;
            }
            _ => {
                self.w_state.d.next = HmWrState::Idle;
            }
        }

        // ================= host port (AXI4-Lite slave)
        self.s_axil_awready.next = false;
        self.s_axil_wready.next = false;
        self.s_axil_arready.next = false;
        self.s_axil_bvalid.next = self.h_state.q.val() == HmHostState::Bresp;
        self.s_axil_rvalid.next = self.h_state.q.val() == HmHostState::Rresp;
        self.s_axil_bresp.next = 0.into();
        self.s_axil_rresp.next = 0.into();
        if self.h_err.q.val() {
            self.s_axil_bresp.next = 2.into();
            self.s_axil_rresp.next = 2.into();
        }
        self.s_axil_rdata.next = self.h_rdata.q.val();
        match self.h_state.q.val() {
            HmHostState::Idle => {
                if self.s_axil_awvalid.val() & self.s_axil_wvalid.val() {
                    self.s_axil_awready.next = true;
                    self.s_axil_wready.next = true;
                    self.h_addr.d.next = self.s_axil_awaddr.val();
                    self.h_data.d.next = self.s_axil_wdata.val();
                    self.h_strb.d.next = self.s_axil_wstrb.val();
                    self.h_err.d.next = self.s_axil_awaddr.val() >= self.c_hsize.val();
                    self.h_state.d.next = HmHostState::Write;
                } else if self.s_axil_arvalid.val() {
                    self.s_axil_arready.next = true;
                    self.h_addr.d.next = self.s_axil_araddr.val();
                    self.h_err.d.next = self.s_axil_araddr.val() >= self.c_hsize.val();
                    self.h_state.d.next = HmHostState::Read;
                }
            }
            HmHostState::Write => {
                self.h_state.d.next = HmHostState::Bresp;
            }
            HmHostState::Bresp => {
                if self.s_axil_bready.val() {
                    self.h_state.d.next = HmHostState::Idle;
                }
            }
            HmHostState::Read => {
                self.h_state.d.next = HmHostState::Capture;
            }
            HmHostState::Capture => {
                // little-endian: the byte at the lowest offset in data[7:0]
                self.h_rdata.d.next = (bit_cast::<32, 8>(self.mem3.read_data.val()) << 24)
                    | (bit_cast::<32, 8>(self.mem2.read_data.val()) << 16)
                    | (bit_cast::<32, 8>(self.mem1.read_data.val()) << 8)
                    | bit_cast::<32, 8>(self.mem0.read_data.val());
                if self.l_h_hi.val() {
                    self.h_rdata.d.next = (bit_cast::<32, 8>(self.mem7.read_data.val()) << 24)
                        | (bit_cast::<32, 8>(self.mem6.read_data.val()) << 16)
                        | (bit_cast::<32, 8>(self.mem5.read_data.val()) << 8)
                        | bit_cast::<32, 8>(self.mem4.read_data.val());
                }
                if self.h_err.q.val() {
                    self.h_rdata.d.next = 0.into();
                }
                self.h_state.d.next = HmHostState::Rresp;
            }
            HmHostState::Rresp => {
                if self.s_axil_rready.val() {
                    self.h_state.d.next = HmHostState::Idle;
                }
            }
            _ => {
                self.h_state.d.next = HmHostState::Idle;
            }
        }
    }
}
