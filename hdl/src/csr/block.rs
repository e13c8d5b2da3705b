//! [`CsrBlock`]: the top of the CSR subsystem: the AXI4-Lite slave (`s_axil_*`) and every
//! register block of BAR0, the QP / CQ / MR tables, and the doorbell event streams. See the
//! [module documentation](super) for the decisions, and the sub-blocks for each function.
//!
//! # Ports
//!
//! * `s_axil_*`: AXI4-Lite slave, 32-bit data, [`AXIL_ADDR_BITS`]-bit address (BAR0), no
//!   `*prot`. Responses are always OKAY.
//! * `dp_reset` (out): high from the CFG_RESET write until every context is cleared: the engines
//!   clear their runtime state while it is high. `link_up`, `fatal_set` (in): CFG_STATUS bits.
//! * Configuration (out, registers): `cfg_control`, `cfg_udp_sport`, `cfg_traffic`, `cfg_pfc`,
//!   `cfg_mac`, `cc_*` (sixteen DCQCN parameters), `gid0`..`gid15`, `gid_type`
//!   ([`super::global::CsrGlobal`]).
//! * Interrupts: `cq_irq_valid`/`cq_irq_vector` (in, from the completion engine), `irq_pulse`,
//!   `irq_level` (out).
//! * Async events (in): `ev_valid`, `ev_type`, `ev_id`, `ev_status`, `ev_vendor` (no
//!   back-pressure: a full FIFO drops and counts in ASYNC_EVENT_LOST).
//! * Counters (in): `cnt_inc` (bit i = counter i, see [`super::counters`]), `cnt_rx_bytes`,
//!   `cnt_tx_bytes`.
//! * Doorbell / notification streams (out, valid/ready): `qev_*`, `cev_*`
//!   ([`super::doorbell`]).
//! * QP config read port: `qpc`, a [`super::QpcReadSlave`] (`qpc.rd_valid`, `qpc.rd_qpn` in
//!   -> `qpc.valid` and the context fields out, latency 2, always ready;
//!   [`super::QpConfigTable`], interface in [`super::qpc_port`]). CQ config read port:
//!   `cqc_rd_valid`, `cqc_rd_cqn` -> `cqc_*` (latency 2, [`super::CqConfigTable`]).
//! * `qerr_*`: the engines move a QP to ERR (valid/ready; QP_ERR_INFO = status, vendor).
//! * `rtq_*`: the runtime-state query of QUERY commands (see the module documentation).
//! * `mr_req_*` / `mr_resp_*`: the MR table's lookup port ([`crate::mr`]); `mr_drain_req` /
//!   `mr_drain_ack`: the INVALIDATE drain handshake ([`super::mr_window`]).
use super::counters::CsrCounters;
use super::ctx::CtxWindows;
use super::doorbell::{CsrDoorbells, DB_NUM_BITS, PI_BITS};
use super::global::CsrGlobal;
use super::mr_window::MrWindow;
use super::qpc_port::QpcReadSlave;
use super::{cq_config, konst, Addr, CsrParams, AXIL_ADDR_BITS, NUM_COUNTERS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CsrBlock<const QA: usize, const CA: usize, const MA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- AXI4-Lite slave ----
    pub s_axil_awaddr: Signal<In, Addr>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Addr>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // ---- reset / status ----
    pub dp_reset: Signal<Out, Bit>,
    pub link_up: Signal<In, Bit>,
    pub fatal_set: Signal<In, Bit>,
    /// `CC_QP_RATE`'s word (the rate shaper's limit of the QP in `CC_QP_SELECT`)
    pub cc_qp_rate_now: Signal<In, Bits<32>>,
    // ---- configuration, interrupts, async events ----
    pub cfg_control: Signal<Out, Bits<32>>,
    pub cfg_udp_sport: Signal<Out, Bits<32>>,
    pub cfg_traffic: Signal<Out, Bits<32>>,
    pub cfg_pfc: Signal<Out, Bits<32>>,
    pub cfg_ack_coalesce: Signal<Out, Bits<32>>,
    pub cfg_pfc_xoff: Signal<Out, Bits<32>>,
    pub cfg_pfc_quanta: Signal<Out, Bits<32>>,
    pub cfg_sq_quantum: Signal<Out, Bits<32>>,
    pub cfg_mac: Signal<Out, Bits<48>>,
    pub cc_rp_time_reset: Signal<Out, Bits<32>>,
    pub cc_rp_byte_reset: Signal<Out, Bits<32>>,
    pub cc_rp_threshold: Signal<Out, Bits<32>>,
    pub cc_rp_ai_rate: Signal<Out, Bits<32>>,
    pub cc_rp_hai_rate: Signal<Out, Bits<32>>,
    pub cc_rp_min_rate: Signal<Out, Bits<32>>,
    pub cc_rp_max_rate: Signal<Out, Bits<32>>,
    pub cc_rp_gd: Signal<Out, Bits<32>>,
    pub cc_rp_min_dec_fac: Signal<Out, Bits<32>>,
    pub cc_rp_alpha_g: Signal<Out, Bits<32>>,
    pub cc_rp_alpha_period: Signal<Out, Bits<32>>,
    pub cc_rp_reduce_period: Signal<Out, Bits<32>>,
    pub cc_rp_initial_alpha: Signal<Out, Bits<32>>,
    pub cc_rp_flags: Signal<Out, Bits<32>>,
    pub cc_rp_first_cnp_rate: Signal<Out, Bits<32>>,
    pub cc_np_cnp_interval: Signal<Out, Bits<32>>,
    /// `CC_QP_SELECT`, `CC_QP_RATE_LIMIT` and the pulse after a write of the latter
    pub cc_qp_select: Signal<Out, Bits<32>>,
    pub cc_qp_rate_limit: Signal<Out, Bits<32>>,
    pub cc_qp_rate_wr: Signal<Out, Bit>,
    /// `CC_QP_DCQCN` and the pulse after a write of it
    pub cc_qp_dcqcn: Signal<Out, Bits<32>>,
    pub cc_qp_dcqcn_wr: Signal<Out, Bit>,
    pub gid0: Signal<Out, Bits<128>>,
    pub gid1: Signal<Out, Bits<128>>,
    pub gid2: Signal<Out, Bits<128>>,
    pub gid3: Signal<Out, Bits<128>>,
    pub gid4: Signal<Out, Bits<128>>,
    pub gid5: Signal<Out, Bits<128>>,
    pub gid6: Signal<Out, Bits<128>>,
    pub gid7: Signal<Out, Bits<128>>,
    pub gid8: Signal<Out, Bits<128>>,
    pub gid9: Signal<Out, Bits<128>>,
    pub gid10: Signal<Out, Bits<128>>,
    pub gid11: Signal<Out, Bits<128>>,
    pub gid12: Signal<Out, Bits<128>>,
    pub gid13: Signal<Out, Bits<128>>,
    pub gid14: Signal<Out, Bits<128>>,
    pub gid15: Signal<Out, Bits<128>>,
    pub gid_type: Signal<Out, Bits<32>>,
    pub cq_irq_valid: Signal<In, Bit>,
    pub cq_irq_vector: Signal<In, Bits<5>>,
    pub irq_pulse: Signal<Out, Bits<32>>,
    pub irq_level: Signal<Out, Bits<32>>,
    pub ev_valid: Signal<In, Bit>,
    pub ev_type: Signal<In, Bits<5>>,
    pub ev_id: Signal<In, Bits<24>>,
    pub ev_status: Signal<In, Bits<8>>,
    pub ev_vendor: Signal<In, Bits<8>>,
    // ---- counters ----
    pub cnt_inc: Signal<In, Bits<NUM_COUNTERS>>,
    pub cnt_rx_bytes: Signal<In, Bits<16>>,
    pub cnt_tx_bytes: Signal<In, Bits<16>>,
    // ---- doorbell / notification streams ----
    pub qev_valid: Signal<Out, Bit>,
    pub qev_ready: Signal<In, Bit>,
    pub qev_kind: Signal<Out, Bits<2>>,
    pub qev_qpn: Signal<Out, Bits<DB_NUM_BITS>>,
    pub qev_value: Signal<Out, Bits<PI_BITS>>,
    pub cev_valid: Signal<Out, Bit>,
    pub cev_ready: Signal<In, Bit>,
    pub cev_kind: Signal<Out, Bits<2>>,
    pub cev_cqn: Signal<Out, Bits<DB_NUM_BITS>>,
    pub cev_value: Signal<Out, Bits<32>>,
    // ---- QP / CQ tables: engine ports ----
    pub qpc: QpcReadSlave<QA>,
    pub cqc_rd_valid: Signal<In, Bit>,
    pub cqc_rd_cqn: Signal<In, Bits<CA>>,
    pub cqc_valid: Signal<Out, Bit>,
    pub cqc_exists: Signal<Out, Bit>,
    pub cqc_base: Signal<Out, Bits<64>>,
    pub cqc_log2_entries: Signal<Out, Bits<{ cq_config::LOG2_W }>>,
    pub cqc_vector: Signal<Out, Bits<{ cq_config::VEC_W }>>,
    pub qerr_valid: Signal<In, Bit>,
    pub qerr_ready: Signal<Out, Bit>,
    pub qerr_qpn: Signal<In, Bits<QA>>,
    pub qerr_status: Signal<In, Bits<8>>,
    pub qerr_vendor: Signal<In, Bits<8>>,
    pub rtq_req: Signal<Out, Bit>,
    pub rtq_cq: Signal<Out, Bit>,
    pub rtq_index: Signal<Out, Bits<DB_NUM_BITS>>,
    pub rtq_ack: Signal<In, Bit>,
    pub rtq_d0: Signal<In, Bits<32>>,
    pub rtq_d1: Signal<In, Bits<32>>,
    pub rtq_d2: Signal<In, Bits<32>>,
    // ---- MR table lookup port ----
    pub mr_req_valid: Signal<In, Bit>,
    pub mr_req_ready: Signal<Out, Bit>,
    pub mr_req_key: Signal<In, Bits<32>>,
    pub mr_req_pd: Signal<In, Bits<24>>,
    pub mr_req_need: Signal<In, Bits<4>>,
    pub mr_req_va: Signal<In, Bits<64>>,
    pub mr_req_len: Signal<In, Bits<64>>,
    pub mr_req_remote: Signal<In, Bit>,
    pub mr_req_tag: Signal<In, Bits<8>>,
    pub mr_resp_valid: Signal<Out, Bit>,
    pub mr_resp_ok: Signal<Out, Bit>,
    pub mr_resp_code: Signal<Out, Bits<3>>,
    pub mr_resp_zero: Signal<Out, Bit>,
    pub mr_resp_addr: Signal<Out, Bits<64>>,
    pub mr_resp_remote: Signal<Out, Bit>,
    pub mr_resp_tag: Signal<Out, Bits<8>>,
    pub mr_drain_req: Signal<Out, Bit>,
    pub mr_drain_ack: Signal<In, Bit>,

    glob: CsrGlobal,
    cnt: CsrCounters,
    db: CsrDoorbells<QA, CA>,
    ctx: CtxWindows<QA, CA>,
    mrw: MrWindow<MA>,

    aw_full: DFF<Bit>,
    aw_addr: DFF<Addr>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    b_valid: DFF<Bit>,
    ar_full: DFF<Bit>,
    ar_addr: DFF<Addr>,
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,

    c_word_mask: Constant<Addr>,
    c_strb_all: Constant<Bits<4>>,
    c_okay: Constant<Bits<2>>,

    do_write: Signal<Local, Bit>,
    do_read: Signal<Local, Bit>,
    bus_wr: Signal<Local, Bit>,
}

impl<const QA: usize, const CA: usize, const MA: usize> CsrBlock<QA, CA, MA> {
    /// A CSR block with the given build parameters (identity values and command limits).
    pub fn new(p: &CsrParams) -> Self {
        Self {
            clock: Default::default(),
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
            dp_reset: Default::default(),
            link_up: Default::default(),
            cc_qp_rate_now: Default::default(),
            fatal_set: Default::default(),
            cfg_control: Default::default(),
            cfg_udp_sport: Default::default(),
            cfg_traffic: Default::default(),
            cfg_pfc: Default::default(),
            cfg_ack_coalesce: Default::default(),
            cfg_pfc_xoff: Default::default(),
            cfg_pfc_quanta: Default::default(),
            cfg_sq_quantum: Default::default(),
            cfg_mac: Default::default(),
            cc_rp_time_reset: Default::default(),
            cc_rp_byte_reset: Default::default(),
            cc_rp_threshold: Default::default(),
            cc_rp_ai_rate: Default::default(),
            cc_rp_hai_rate: Default::default(),
            cc_rp_min_rate: Default::default(),
            cc_rp_max_rate: Default::default(),
            cc_rp_gd: Default::default(),
            cc_rp_min_dec_fac: Default::default(),
            cc_rp_alpha_g: Default::default(),
            cc_rp_alpha_period: Default::default(),
            cc_rp_reduce_period: Default::default(),
            cc_rp_initial_alpha: Default::default(),
            cc_rp_flags: Default::default(),
            cc_rp_first_cnp_rate: Default::default(),
            cc_np_cnp_interval: Default::default(),
            cc_qp_select: Default::default(),
            cc_qp_rate_limit: Default::default(),
            cc_qp_rate_wr: Default::default(),
            cc_qp_dcqcn: Default::default(),
            cc_qp_dcqcn_wr: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            gid4: Default::default(),
            gid5: Default::default(),
            gid6: Default::default(),
            gid7: Default::default(),
            gid8: Default::default(),
            gid9: Default::default(),
            gid10: Default::default(),
            gid11: Default::default(),
            gid12: Default::default(),
            gid13: Default::default(),
            gid14: Default::default(),
            gid15: Default::default(),
            gid_type: Default::default(),
            cq_irq_valid: Default::default(),
            cq_irq_vector: Default::default(),
            irq_pulse: Default::default(),
            irq_level: Default::default(),
            ev_valid: Default::default(),
            ev_type: Default::default(),
            ev_id: Default::default(),
            ev_status: Default::default(),
            ev_vendor: Default::default(),
            cnt_inc: Default::default(),
            cnt_rx_bytes: Default::default(),
            cnt_tx_bytes: Default::default(),
            qev_valid: Default::default(),
            qev_ready: Default::default(),
            qev_kind: Default::default(),
            qev_qpn: Default::default(),
            qev_value: Default::default(),
            cev_valid: Default::default(),
            cev_ready: Default::default(),
            cev_kind: Default::default(),
            cev_cqn: Default::default(),
            cev_value: Default::default(),
            qpc: Default::default(),
            cqc_rd_valid: Default::default(),
            cqc_rd_cqn: Default::default(),
            cqc_valid: Default::default(),
            cqc_exists: Default::default(),
            cqc_base: Default::default(),
            cqc_log2_entries: Default::default(),
            cqc_vector: Default::default(),
            qerr_valid: Default::default(),
            qerr_ready: Default::default(),
            qerr_qpn: Default::default(),
            qerr_status: Default::default(),
            qerr_vendor: Default::default(),
            rtq_req: Default::default(),
            rtq_cq: Default::default(),
            rtq_index: Default::default(),
            rtq_ack: Default::default(),
            rtq_d0: Default::default(),
            rtq_d1: Default::default(),
            rtq_d2: Default::default(),
            mr_req_valid: Default::default(),
            mr_req_ready: Default::default(),
            mr_req_key: Default::default(),
            mr_req_pd: Default::default(),
            mr_req_need: Default::default(),
            mr_req_va: Default::default(),
            mr_req_len: Default::default(),
            mr_req_remote: Default::default(),
            mr_req_tag: Default::default(),
            mr_resp_valid: Default::default(),
            mr_resp_ok: Default::default(),
            mr_resp_code: Default::default(),
            mr_resp_zero: Default::default(),
            mr_resp_addr: Default::default(),
            mr_resp_remote: Default::default(),
            mr_resp_tag: Default::default(),
            mr_drain_req: Default::default(),
            mr_drain_ack: Default::default(),
            glob: CsrGlobal::new(p, QA, CA, MA),
            cnt: Default::default(),
            db: Default::default(),
            ctx: CtxWindows::new(p),
            mrw: Default::default(),
            aw_full: Default::default(),
            aw_addr: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            b_valid: Default::default(),
            ar_full: Default::default(),
            ar_addr: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            c_word_mask: konst(((1u64 << AXIL_ADDR_BITS) - 1) & !3),
            c_strb_all: konst(0xF),
            c_okay: konst(0),
            do_write: Default::default(),
            do_read: Default::default(),
            bus_wr: Default::default(),
        }
    }
}

impl<const QA: usize, const CA: usize, const MA: usize> Default for CsrBlock<QA, CA, MA> {
    fn default() -> Self {
        Self::new(&CsrParams::default())
    }
}

impl<const QA: usize, const CA: usize, const MA: usize> Logic for CsrBlock<QA, CA, MA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, aw_full, aw_addr, w_full, w_data, w_strb, b_valid, ar_full, ar_addr,
            r_valid, r_data
        );
        self.glob.clock.next = self.clock.val();
        self.cnt.clock.next = self.clock.val();
        self.db.clock.next = self.clock.val();
        self.ctx.clock.next = self.clock.val();
        self.mrw.clock.next = self.clock.val();

        // ---------------- AXI4-Lite front end ----------------
        // one write and one read in flight; AW and W in any order into holding registers;
        // a doorbell write for a full FIFO waits here (wr_ok low) so awready/wready stay low
        self.do_write.next = self.aw_full.q.val()
            & self.w_full.q.val()
            & (!self.b_valid.q.val() | self.s_axil_bready.val())
            & self.db.wr_ok.val();
        self.bus_wr.next = self.do_write.val() & (self.w_strb.q.val() == self.c_strb_all.val());
        // a counter read waits one cycle for the counter RAM (`CsrCounters::rd_ready`)
        self.do_read.next = self.ar_full.q.val()
            & (!self.r_valid.q.val() | self.s_axil_rready.val())
            & self.cnt.rd_ready.val();
        if self.s_axil_awvalid.val() & !self.aw_full.q.val() {
            self.aw_full.d.next = true;
            self.aw_addr.d.next = self.s_axil_awaddr.val() & self.c_word_mask.val();
        }
        if self.s_axil_wvalid.val() & !self.w_full.q.val() {
            self.w_full.d.next = true;
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_strb.d.next = self.s_axil_wstrb.val();
        }
        if self.b_valid.q.val() & self.s_axil_bready.val() {
            self.b_valid.d.next = false;
        }
        if self.do_write.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.b_valid.d.next = true;
        }
        if self.s_axil_arvalid.val() & !self.ar_full.q.val() {
            self.ar_full.d.next = true;
            self.ar_addr.d.next = self.s_axil_araddr.val() & self.c_word_mask.val();
        }
        if self.r_valid.q.val() & self.s_axil_rready.val() {
            self.r_valid.d.next = false;
        }
        if self.do_read.val() {
            self.ar_full.d.next = false;
            self.r_valid.d.next = true;
            self.r_data.d.next = self.glob.rdata.val()
                | self.cnt.rdata.val()
                | self.ctx.rdata.val()
                | self.mrw.rdata.val();
        }
        self.s_axil_awready.next = !self.aw_full.q.val();
        self.s_axil_wready.next = !self.w_full.q.val();
        self.s_axil_bvalid.next = self.b_valid.q.val();
        self.s_axil_bresp.next = self.c_okay.val();
        self.s_axil_arready.next = !self.ar_full.q.val();
        self.s_axil_rvalid.next = self.r_valid.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = self.c_okay.val();

        // ---------------- register bus ----------------
        self.glob.wr.next = self.bus_wr.val();
        self.glob.waddr.next = self.aw_addr.q.val();
        self.glob.wdata.next = self.w_data.q.val();
        self.glob.rd.next = self.do_read.val();
        self.glob.raddr.next = self.ar_addr.q.val();
        self.cnt.rd.next = self.do_read.val();
        self.cnt.rd_pending.next = self.ar_full.q.val();
        self.cnt.raddr.next = self.ar_addr.q.val();
        self.db.wr.next = self.bus_wr.val();
        self.db.waddr.next = self.aw_addr.q.val();
        self.db.wdata.next = self.w_data.q.val();
        self.ctx.wr.next = self.bus_wr.val();
        self.ctx.waddr.next = self.aw_addr.q.val();
        self.ctx.wdata.next = self.w_data.q.val();
        self.ctx.rd.next = self.do_read.val();
        self.ctx.raddr.next = self.ar_addr.q.val();
        self.mrw.wr.next = self.bus_wr.val();
        self.mrw.waddr.next = self.aw_addr.q.val();
        self.mrw.wdata.next = self.w_data.q.val();
        self.mrw.rd.next = self.do_read.val();
        self.mrw.raddr.next = self.ar_addr.q.val();

        // ---------------- reset, command done ----------------
        self.ctx.clear.next = self.glob.reset_req.val();
        self.mrw.clear.next = self.glob.reset_req.val();
        self.cnt.clear.next = self.glob.reset_req.val();
        self.db.flush.next = self.glob.reset_req.val();
        self.glob.resetting.next = self.ctx.clearing.val() | self.mrw.clearing.val();
        self.dp_reset.next =
            self.glob.reset_req.val() | self.ctx.clearing.val() | self.mrw.clearing.val();
        self.glob.cmd_done.next = self.ctx.cmd_done.val() | self.mrw.cmd_done.val();

        // ---------------- notifications into the doorbell FIFOs ----------------
        self.db.qmod_valid.next = self.ctx.qmod_valid.val();
        self.ctx.qmod_ready.next = self.db.qmod_ready.val();
        self.db.qmod_qpn.next = self.ctx.qmod_qpn.val();
        self.db.qmod_value.next = self.ctx.qmod_value.val();
        self.db.cnote_valid.next = self.ctx.cnote_valid.val();
        self.ctx.cnote_ready.next = self.db.cnote_ready.val();
        self.db.cnote_kind.next = self.ctx.cnote_kind.val();
        self.db.cnote_cqn.next = self.ctx.cnote_cqn.val();
        self.db.cnote_value.next = self.ctx.cnote_value.val();

        // ---------------- pass-through ports ----------------
        self.glob.link_up.next = self.link_up.val();
        self.glob.cc_qp_rate_now.next = self.cc_qp_rate_now.val();
        self.glob.fatal_set.next = self.fatal_set.val();
        self.cfg_control.next = self.glob.cfg_control.val();
        self.cfg_udp_sport.next = self.glob.cfg_udp_sport.val();
        self.cfg_traffic.next = self.glob.cfg_traffic.val();
        self.cfg_pfc.next = self.glob.cfg_pfc.val();
        self.cfg_ack_coalesce.next = self.glob.cfg_ack_coalesce.val();
        self.cfg_pfc_xoff.next = self.glob.cfg_pfc_xoff.val();
        self.cfg_pfc_quanta.next = self.glob.cfg_pfc_quanta.val();
        self.cfg_sq_quantum.next = self.glob.cfg_sq_quantum.val();
        self.cfg_mac.next = self.glob.cfg_mac.val();
        self.cc_rp_time_reset.next = self.glob.cc_rp_time_reset.val();
        self.cc_rp_byte_reset.next = self.glob.cc_rp_byte_reset.val();
        self.cc_rp_threshold.next = self.glob.cc_rp_threshold.val();
        self.cc_rp_ai_rate.next = self.glob.cc_rp_ai_rate.val();
        self.cc_rp_hai_rate.next = self.glob.cc_rp_hai_rate.val();
        self.cc_rp_min_rate.next = self.glob.cc_rp_min_rate.val();
        self.cc_rp_max_rate.next = self.glob.cc_rp_max_rate.val();
        self.cc_rp_gd.next = self.glob.cc_rp_gd.val();
        self.cc_rp_min_dec_fac.next = self.glob.cc_rp_min_dec_fac.val();
        self.cc_rp_alpha_g.next = self.glob.cc_rp_alpha_g.val();
        self.cc_rp_alpha_period.next = self.glob.cc_rp_alpha_period.val();
        self.cc_rp_reduce_period.next = self.glob.cc_rp_reduce_period.val();
        self.cc_rp_initial_alpha.next = self.glob.cc_rp_initial_alpha.val();
        self.cc_rp_flags.next = self.glob.cc_rp_flags.val();
        self.cc_rp_first_cnp_rate.next = self.glob.cc_rp_first_cnp_rate.val();
        self.cc_np_cnp_interval.next = self.glob.cc_np_cnp_interval.val();
        self.cc_qp_select.next = self.glob.cc_qp_select.val();
        self.cc_qp_rate_limit.next = self.glob.cc_qp_rate_limit.val();
        self.cc_qp_rate_wr.next = self.glob.cc_qp_rate_wr.val();
        self.cc_qp_dcqcn.next = self.glob.cc_qp_dcqcn.val();
        self.cc_qp_dcqcn_wr.next = self.glob.cc_qp_dcqcn_wr.val();
        self.gid0.next = self.glob.gid0.val();
        self.gid1.next = self.glob.gid1.val();
        self.gid2.next = self.glob.gid2.val();
        self.gid3.next = self.glob.gid3.val();
        self.gid4.next = self.glob.gid4.val();
        self.gid5.next = self.glob.gid5.val();
        self.gid6.next = self.glob.gid6.val();
        self.gid7.next = self.glob.gid7.val();
        self.gid8.next = self.glob.gid8.val();
        self.gid9.next = self.glob.gid9.val();
        self.gid10.next = self.glob.gid10.val();
        self.gid11.next = self.glob.gid11.val();
        self.gid12.next = self.glob.gid12.val();
        self.gid13.next = self.glob.gid13.val();
        self.gid14.next = self.glob.gid14.val();
        self.gid15.next = self.glob.gid15.val();
        self.gid_type.next = self.glob.gid_type.val();
        self.glob.cq_irq_valid.next = self.cq_irq_valid.val();
        self.glob.cq_irq_vector.next = self.cq_irq_vector.val();
        self.irq_pulse.next = self.glob.irq_pulse.val();
        self.irq_level.next = self.glob.irq_level.val();
        self.glob.ev_valid.next = self.ev_valid.val();
        self.glob.ev_type.next = self.ev_type.val();
        self.glob.ev_id.next = self.ev_id.val();
        self.glob.ev_status.next = self.ev_status.val();
        self.glob.ev_vendor.next = self.ev_vendor.val();
        self.cnt.inc.next = self.cnt_inc.val();
        self.cnt.rx_bytes.next = self.cnt_rx_bytes.val();
        self.cnt.tx_bytes.next = self.cnt_tx_bytes.val();
        self.qev_valid.next = self.db.qev_valid.val();
        self.db.qev_ready.next = self.qev_ready.val();
        self.qev_kind.next = self.db.qev_kind.val();
        self.qev_qpn.next = self.db.qev_qpn.val();
        self.qev_value.next = self.db.qev_value.val();
        self.cev_valid.next = self.db.cev_valid.val();
        self.db.cev_ready.next = self.cev_ready.val();
        self.cev_kind.next = self.db.cev_kind.val();
        self.cev_cqn.next = self.db.cev_cqn.val();
        self.cev_value.next = self.db.cev_value.val();
        QpcReadSlave::<QA>::link(&mut self.qpc, &mut self.ctx.qpc);
        self.ctx.cqc_rd_valid.next = self.cqc_rd_valid.val();
        self.ctx.cqc_rd_cqn.next = self.cqc_rd_cqn.val();
        self.cqc_valid.next = self.ctx.cqc_valid.val();
        self.cqc_exists.next = self.ctx.cqc_exists.val();
        self.cqc_base.next = self.ctx.cqc_base.val();
        self.cqc_log2_entries.next = self.ctx.cqc_log2_entries.val();
        self.cqc_vector.next = self.ctx.cqc_vector.val();
        self.ctx.qerr_valid.next = self.qerr_valid.val();
        self.qerr_ready.next = self.ctx.qerr_ready.val();
        self.ctx.qerr_qpn.next = self.qerr_qpn.val();
        self.ctx.qerr_status.next = self.qerr_status.val();
        self.ctx.qerr_vendor.next = self.qerr_vendor.val();
        self.rtq_req.next = self.ctx.rtq_req.val();
        self.rtq_cq.next = self.ctx.rtq_cq.val();
        self.rtq_index.next = self.ctx.rtq_index.val();
        self.ctx.rtq_ack.next = self.rtq_ack.val();
        self.ctx.rtq_d0.next = self.rtq_d0.val();
        self.ctx.rtq_d1.next = self.rtq_d1.val();
        self.ctx.rtq_d2.next = self.rtq_d2.val();
        self.mrw.req_valid.next = self.mr_req_valid.val();
        self.mr_req_ready.next = self.mrw.req_ready.val();
        self.mrw.req_key.next = self.mr_req_key.val();
        self.mrw.req_pd.next = self.mr_req_pd.val();
        self.mrw.req_need.next = self.mr_req_need.val();
        self.mrw.req_va.next = self.mr_req_va.val();
        self.mrw.req_len.next = self.mr_req_len.val();
        self.mrw.req_remote.next = self.mr_req_remote.val();
        self.mrw.req_tag.next = self.mr_req_tag.val();
        self.mr_resp_valid.next = self.mrw.resp_valid.val();
        self.mr_resp_ok.next = self.mrw.resp_ok.val();
        self.mr_resp_code.next = self.mrw.resp_code.val();
        self.mr_resp_zero.next = self.mrw.resp_zero.val();
        self.mr_resp_addr.next = self.mrw.resp_addr.val();
        self.mr_resp_remote.next = self.mrw.resp_remote.val();
        self.mr_resp_tag.next = self.mrw.resp_tag.val();
        self.mr_drain_req.next = self.mrw.drain_req.val();
        self.mrw.drain_ack.next = self.mr_drain_ack.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rust-hdl's own synthesis smoke test (Yosys `read; hierarchy; proc`) of a small build.
    #[test]
    fn csr_block_synthesises() {
        let mut uut = CsrBlock::<4, 3, 4>::default();
        crate::csr::synth_check(&mut uut, "csr_block");
    }
}
