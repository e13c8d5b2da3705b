//! [`AxilSplit`]: one AXI4-Lite master (the UART bridge, `UartAxil`) reaching two slaves by
//! address bit 31: `m0_axil_*` (bit 31 = 0: the NIC's BAR0 registers) and `m1_axil_*`
//! (bit 31 = 1: `OnChipHostMemory`'s host port). Each slave sees the address with bit 31
//! cleared, so the host memory's offsets start at 0 at `0x8000_0000` on the UART.
//!
//! Kept simple because the master is a UART: one write and one read at a time (independent
//! of each other), every handshake registered (an access costs a few cycles more than a
//! combinational crossbar; the UART's character time is thousands of cycles). The slave side
//! accepts a write when `awvalid` and `wvalid` are both high (as `UartAxil` presents them).
//! A slave's response (`bresp`, `rresp`, `rdata`) is passed back unchanged.
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SplitWrState {
    /// Wait for AW and W together; take them and choose the slave.
    Idle,
    /// Offer AW and W to the chosen slave until both are taken.
    Req,
    /// Wait for the slave's B.
    Resp,
    /// Offer B to the master until it is taken.
    Back,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SplitRdState {
    /// Wait for AR; take it and choose the slave.
    Idle,
    /// Offer AR to the chosen slave until it is taken.
    Req,
    /// Wait for the slave's R.
    Resp,
    /// Offer R to the master until it is taken.
    Back,
}

#[derive(LogicBlock, Default)]
pub struct AxilSplit {
    pub clock: Signal<In, Clock>,
    // ---- slave port (from the master)
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
    // ---- master port 0 (address bit 31 = 0)
    pub m0_axil_awaddr: Signal<Out, Bits<32>>,
    pub m0_axil_awvalid: Signal<Out, Bit>,
    pub m0_axil_awready: Signal<In, Bit>,
    pub m0_axil_wdata: Signal<Out, Bits<32>>,
    pub m0_axil_wstrb: Signal<Out, Bits<4>>,
    pub m0_axil_wvalid: Signal<Out, Bit>,
    pub m0_axil_wready: Signal<In, Bit>,
    pub m0_axil_bresp: Signal<In, Bits<2>>,
    pub m0_axil_bvalid: Signal<In, Bit>,
    pub m0_axil_bready: Signal<Out, Bit>,
    pub m0_axil_araddr: Signal<Out, Bits<32>>,
    pub m0_axil_arvalid: Signal<Out, Bit>,
    pub m0_axil_arready: Signal<In, Bit>,
    pub m0_axil_rdata: Signal<In, Bits<32>>,
    pub m0_axil_rresp: Signal<In, Bits<2>>,
    pub m0_axil_rvalid: Signal<In, Bit>,
    pub m0_axil_rready: Signal<Out, Bit>,
    // ---- master port 1 (address bit 31 = 1)
    pub m1_axil_awaddr: Signal<Out, Bits<32>>,
    pub m1_axil_awvalid: Signal<Out, Bit>,
    pub m1_axil_awready: Signal<In, Bit>,
    pub m1_axil_wdata: Signal<Out, Bits<32>>,
    pub m1_axil_wstrb: Signal<Out, Bits<4>>,
    pub m1_axil_wvalid: Signal<Out, Bit>,
    pub m1_axil_wready: Signal<In, Bit>,
    pub m1_axil_bresp: Signal<In, Bits<2>>,
    pub m1_axil_bvalid: Signal<In, Bit>,
    pub m1_axil_bready: Signal<Out, Bit>,
    pub m1_axil_araddr: Signal<Out, Bits<32>>,
    pub m1_axil_arvalid: Signal<Out, Bit>,
    pub m1_axil_arready: Signal<In, Bit>,
    pub m1_axil_rdata: Signal<In, Bits<32>>,
    pub m1_axil_rresp: Signal<In, Bits<2>>,
    pub m1_axil_rvalid: Signal<In, Bit>,
    pub m1_axil_rready: Signal<Out, Bit>,
    // ---- write side
    w_state: DFF<SplitWrState>,
    w_sel: DFF<Bit>,
    w_addr: DFF<Bits<32>>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    w_resp: DFF<Bits<2>>,
    // ---- read side
    r_state: DFF<SplitRdState>,
    r_sel: DFF<Bit>,
    r_addr: DFF<Bits<32>>,
    r_data: DFF<Bits<32>>,
    r_resp: DFF<Bits<2>>,
    // ---- combinational temporaries: the chosen slave's handshakes
    l_awready: Signal<Local, Bit>,
    l_wready: Signal<Local, Bit>,
    l_bvalid: Signal<Local, Bit>,
    l_bresp: Signal<Local, Bits<2>>,
    l_arready: Signal<Local, Bit>,
    l_rvalid: Signal<Local, Bit>,
    l_rdata: Signal<Local, Bits<32>>,
    l_rresp: Signal<Local, Bits<2>>,
}

impl Logic for AxilSplit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_state, w_sel, w_addr, w_data, w_strb, aw_done, w_done, w_resp, r_state,
            r_sel, r_addr, r_data, r_resp
        );
        // ================= the chosen slave's side of each handshake
        self.l_awready.next = self.m0_axil_awready.val();
        self.l_wready.next = self.m0_axil_wready.val();
        self.l_bvalid.next = self.m0_axil_bvalid.val();
        self.l_bresp.next = self.m0_axil_bresp.val();
        if self.w_sel.q.val() {
            self.l_awready.next = self.m1_axil_awready.val();
            self.l_wready.next = self.m1_axil_wready.val();
            self.l_bvalid.next = self.m1_axil_bvalid.val();
            self.l_bresp.next = self.m1_axil_bresp.val();
        }
        self.l_arready.next = self.m0_axil_arready.val();
        self.l_rvalid.next = self.m0_axil_rvalid.val();
        self.l_rdata.next = self.m0_axil_rdata.val();
        self.l_rresp.next = self.m0_axil_rresp.val();
        if self.r_sel.q.val() {
            self.l_arready.next = self.m1_axil_arready.val();
            self.l_rvalid.next = self.m1_axil_rvalid.val();
            self.l_rdata.next = self.m1_axil_rdata.val();
            self.l_rresp.next = self.m1_axil_rresp.val();
        }

        // ================= outputs (payloads always driven from the registers)
        self.s_axil_awready.next = false;
        self.s_axil_wready.next = false;
        self.s_axil_bvalid.next = self.w_state.q.val() == SplitWrState::Back;
        self.s_axil_bresp.next = self.w_resp.q.val();
        self.s_axil_arready.next = false;
        self.s_axil_rvalid.next = self.r_state.q.val() == SplitRdState::Back;
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = self.r_resp.q.val();
        self.m0_axil_awaddr.next = self.w_addr.q.val();
        self.m1_axil_awaddr.next = self.w_addr.q.val();
        self.m0_axil_wdata.next = self.w_data.q.val();
        self.m1_axil_wdata.next = self.w_data.q.val();
        self.m0_axil_wstrb.next = self.w_strb.q.val();
        self.m1_axil_wstrb.next = self.w_strb.q.val();
        self.m0_axil_araddr.next = self.r_addr.q.val();
        self.m1_axil_araddr.next = self.r_addr.q.val();
        self.m0_axil_awvalid.next = false;
        self.m1_axil_awvalid.next = false;
        self.m0_axil_wvalid.next = false;
        self.m1_axil_wvalid.next = false;
        self.m0_axil_bready.next = false;
        self.m1_axil_bready.next = false;
        self.m0_axil_arvalid.next = false;
        self.m1_axil_arvalid.next = false;
        self.m0_axil_rready.next = false;
        self.m1_axil_rready.next = false;
        if self.w_state.q.val() == SplitWrState::Req {
            self.m0_axil_awvalid.next = !self.w_sel.q.val() & !self.aw_done.q.val();
            self.m1_axil_awvalid.next = self.w_sel.q.val() & !self.aw_done.q.val();
            self.m0_axil_wvalid.next = !self.w_sel.q.val() & !self.w_done.q.val();
            self.m1_axil_wvalid.next = self.w_sel.q.val() & !self.w_done.q.val();
        }
        if self.w_state.q.val() == SplitWrState::Resp {
            self.m0_axil_bready.next = !self.w_sel.q.val();
            self.m1_axil_bready.next = self.w_sel.q.val();
        }
        if self.r_state.q.val() == SplitRdState::Req {
            self.m0_axil_arvalid.next = !self.r_sel.q.val();
            self.m1_axil_arvalid.next = self.r_sel.q.val();
        }
        if self.r_state.q.val() == SplitRdState::Resp {
            self.m0_axil_rready.next = !self.r_sel.q.val();
            self.m1_axil_rready.next = self.r_sel.q.val();
        }

        // ================= write
        match self.w_state.q.val() {
            SplitWrState::Idle => {
                if self.s_axil_awvalid.val() & self.s_axil_wvalid.val() {
                    self.s_axil_awready.next = true;
                    self.s_axil_wready.next = true;
                    self.w_sel.d.next = self.s_axil_awaddr.val().get_bit(31);
                    // the slave sees its own offset: bit 31 cleared
                    self.w_addr.d.next =
                        bit_cast::<32, 31>(self.s_axil_awaddr.val().get_bits::<31>(0));
                    self.w_data.d.next = self.s_axil_wdata.val();
                    self.w_strb.d.next = self.s_axil_wstrb.val();
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                    self.w_state.d.next = SplitWrState::Req;
                }
            }
            SplitWrState::Req => {
                if self.l_awready.val() {
                    self.aw_done.d.next = true;
                }
                if self.l_wready.val() {
                    self.w_done.d.next = true;
                }
                if (self.aw_done.q.val() | self.l_awready.val())
                    & (self.w_done.q.val() | self.l_wready.val())
                {
                    self.w_state.d.next = SplitWrState::Resp;
                }
            }
            SplitWrState::Resp => {
                if self.l_bvalid.val() {
                    self.w_resp.d.next = self.l_bresp.val();
                    self.w_state.d.next = SplitWrState::Back;
                }
            }
            SplitWrState::Back => {
                if self.s_axil_bready.val() {
                    self.w_state.d.next = SplitWrState::Idle;
                }
            }
            _ => {
                self.w_state.d.next = SplitWrState::Idle;
            }
        }

        // ================= read
        match self.r_state.q.val() {
            SplitRdState::Idle => {
                if self.s_axil_arvalid.val() {
                    self.s_axil_arready.next = true;
                    self.r_sel.d.next = self.s_axil_araddr.val().get_bit(31);
                    self.r_addr.d.next =
                        bit_cast::<32, 31>(self.s_axil_araddr.val().get_bits::<31>(0));
                    self.r_state.d.next = SplitRdState::Req;
                }
            }
            SplitRdState::Req => {
                if self.l_arready.val() {
                    self.r_state.d.next = SplitRdState::Resp;
                }
            }
            SplitRdState::Resp => {
                if self.l_rvalid.val() {
                    self.r_data.d.next = self.l_rdata.val();
                    self.r_resp.d.next = self.l_rresp.val();
                    self.r_state.d.next = SplitRdState::Back;
                }
            }
            SplitRdState::Back => {
                if self.s_axil_rready.val() {
                    self.r_state.d.next = SplitRdState::Idle;
                }
            }
            _ => {
                self.r_state.d.next = SplitRdState::Idle;
            }
        }
    }
}
