//! [`QpConfigTable`]: block RAM holding each QP's host-programmed attributes (exactly the
//! fields of `ferroce_proto::host::qp::QpAttr` / the QP command window), with the read port the
//! TX/RX engines use.
//!
//! # Storage
//!
//! One RAM of `2^QA` rows per QP window register, holding the register's defined bits at their
//! register positions (so the field positions of `regs::qp_*` apply unchanged): `QP_STATE`
//! (state only), `QP_ACCESS`, `QP_PD`, `QP_DEST_QPN`, `QP_MTU_RD`, `QP_TIMERS`, `QP_SQ_PSN`,
//! `QP_RQ_PSN`, `QP_AV_DMAC_LO/HI`, `QP_AV_DGID0..3`, `QP_AV_PATH`, `QP_AV_FLOW`, `QP_AV_SPORT`,
//! `QP_SQ_BASE_LO/HI`, `QP_RQ_BASE_LO/HI`, `QP_RING_CFG`, `QP_CQN`, plus `flags` (bit 0 CREATE
//! given since the last RESET, bit 1 the SQD async-notify request) and `QP_ERR_INFO`. All rows
//! are 0 at power-up (initialised RAM: state RESET) and after `clear` (CFG_RESET, `2^QA`
//! cycles, `clearing` high meanwhile). 595 bits per QP.
//!
//! # Engine read port (fixed latency 2)
//!
//! `qpc`, a [`QpcReadSlave`] (the interface is declared once, in [`super::qpc_port`]):
//! `qpc.rd_valid`/`qpc.rd_qpn` in cycle `c` -> `qpc.valid` = 1 and every field of that QP in
//! cycle `c + 2` (registered; the fields hold until the next read's data replace them).
//! `qpc.rd_ready` is always 1: one read per cycle, no back-pressure, full throughput. A read
//! sees every write committed at an edge before the read's own edge (a MODIFY writes all its
//! words at one edge, so a read never sees half of a MODIFY). Byte strings come out in wire
//! order (`qpc.dmac`: first byte in 47:40; `qpc.dgid`: GID byte 0 in 127:120), 64-bit ring
//! bases as one value.
//!
//! # Command port (the CSR block's QP window, [`super::ctx::CtxWindows`])
//!
//! * read: `fsm_rd` with `fsm_qpn`; granted (`fsm_ack`) in a cycle where the engines do not read
//!   (`qpc.rd_valid` = 0: the engines have priority); the raw words appear on `rq_*` in the next
//!   cycle (and stay while the engines leave the port idle).
//! * write: `wr_qpn` and per-group enables (`we_*`) with data `wd_*`, committed at the edge.
use super::qpc_port::QpcReadSlave;
use super::{konst, lsb_const};
use crate::widget::ByteSwap32;
use ferroce_proto::host::qp::AccessFlags;
use ferroce_proto::host::regs::{
    qp_av_path, qp_cqn, qp_err_info, qp_mtu_rd, qp_ring_cfg, qp_state, qp_timers,
};
use rust_hdl::prelude::*;

/// Stored widths (each the register's highest defined bit + 1).
pub const ST_W: usize = qp_state::STATE.width as usize;
pub const FLAGS_W: usize = 2;
pub const ACC_W: usize = (AccessFlags::HW_MASK.0 + 1).trailing_zeros() as usize;
/// PD, remote QPN and PSNs are 24 bits (IBA).
pub const W24: usize = 24;
pub const MTU_W: usize =
    (qp_mtu_rd::MAX_DEST_RD_ATOMIC.lsb + qp_mtu_rd::MAX_DEST_RD_ATOMIC.width) as usize;
pub const TMR_W: usize = (qp_timers::MIN_RNR_TIMER.lsb + qp_timers::MIN_RNR_TIMER.width) as usize;
pub const DMACHI_W: usize = 16;
pub const PATH_W: usize = (qp_av_path::DEFAULT_DSCP.lsb + qp_av_path::DEFAULT_DSCP.width) as usize;
/// IPv6 flow label.
pub const FLOW_W: usize = 20;
pub const SPORT_W: usize = 16;
pub const RING_W: usize =
    (qp_ring_cfg::LOG2_SQ_PSN_WINDOW.lsb + qp_ring_cfg::LOG2_SQ_PSN_WINDOW.width) as usize;
pub const ERR_W: usize = (qp_err_info::STATUS.lsb + qp_err_info::STATUS.width) as usize;
/// Field widths of the engine outputs.
pub const PMTU_W: usize = qp_mtu_rd::PATH_MTU.width as usize;
pub const RD_W: usize = qp_mtu_rd::MAX_RD_ATOMIC.width as usize;
pub const TIMEOUT_W: usize = qp_timers::TIMEOUT.width as usize;
pub const RETRY_W: usize = qp_timers::RETRY_CNT.width as usize;
pub const RNR_W: usize = qp_timers::MIN_RNR_TIMER.width as usize;
pub const SGID_W: usize = qp_av_path::SGID_INDEX.width as usize;
pub const LOG2E_W: usize = qp_ring_cfg::LOG2_SQ_ENTRIES.width as usize;
pub const LOG2S_W: usize = qp_ring_cfg::LOG2_SQ_STRIDE.width as usize;
pub const PSNWIN_W: usize = qp_ring_cfg::LOG2_SQ_PSN_WINDOW.width as usize;
pub const CQN_W: usize = qp_cqn::SEND_CQN.width as usize;
/// `flags` bits (the kernels use the literal positions).
pub const FLAG_CREATED: usize = 0;
pub const FLAG_NOTIFY: usize = 1;
const _: () = assert!(FLAG_CREATED == 0 && FLAG_NOTIFY == 1);

fn zero_ram<D: Synth, const A: usize>() -> RAM<D, A> {
    RAM::from((0..(1usize << A)).map(|_| D::default()))
}

#[derive(LogicBlock)]
pub struct QpConfigTable<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- engine read port (super::qpc_port) ----
    pub qpc: QpcReadSlave<QA>,

    // ---- command port: read ----
    pub fsm_rd: Signal<In, Bit>,
    pub fsm_qpn: Signal<In, Bits<QA>>,
    pub fsm_ack: Signal<Out, Bit>,
    pub rq_st: Signal<Out, Bits<ST_W>>,
    pub rq_flags: Signal<Out, Bits<FLAGS_W>>,
    pub rq_acc: Signal<Out, Bits<ACC_W>>,
    pub rq_pd: Signal<Out, Bits<W24>>,
    pub rq_dqpn: Signal<Out, Bits<W24>>,
    pub rq_mtu: Signal<Out, Bits<MTU_W>>,
    pub rq_tmr: Signal<Out, Bits<TMR_W>>,
    pub rq_spsn: Signal<Out, Bits<W24>>,
    pub rq_rpsn: Signal<Out, Bits<W24>>,
    pub rq_dmac_lo: Signal<Out, Bits<32>>,
    pub rq_dmac_hi: Signal<Out, Bits<DMACHI_W>>,
    pub rq_dgid0: Signal<Out, Bits<32>>,
    pub rq_dgid1: Signal<Out, Bits<32>>,
    pub rq_dgid2: Signal<Out, Bits<32>>,
    pub rq_dgid3: Signal<Out, Bits<32>>,
    pub rq_path: Signal<Out, Bits<PATH_W>>,
    pub rq_flow: Signal<Out, Bits<FLOW_W>>,
    pub rq_sport: Signal<Out, Bits<SPORT_W>>,
    pub rq_sqb_lo: Signal<Out, Bits<32>>,
    pub rq_sqb_hi: Signal<Out, Bits<32>>,
    pub rq_rqb_lo: Signal<Out, Bits<32>>,
    pub rq_rqb_hi: Signal<Out, Bits<32>>,
    pub rq_ring: Signal<Out, Bits<RING_W>>,
    pub rq_cqn: Signal<Out, Bits<32>>,
    pub rq_err: Signal<Out, Bits<ERR_W>>,
    // ---- command port: write ----
    pub wr_qpn: Signal<In, Bits<QA>>,
    pub we_st: Signal<In, Bit>,
    pub we_flags: Signal<In, Bit>,
    pub we_acc: Signal<In, Bit>,
    pub we_create: Signal<In, Bit>,
    pub we_dqpn: Signal<In, Bit>,
    pub we_mtu: Signal<In, Bit>,
    pub we_tmr: Signal<In, Bit>,
    pub we_spsn: Signal<In, Bit>,
    pub we_rpsn: Signal<In, Bit>,
    pub we_av: Signal<In, Bit>,
    pub we_err: Signal<In, Bit>,
    pub wd_st: Signal<In, Bits<ST_W>>,
    pub wd_flags: Signal<In, Bits<FLAGS_W>>,
    pub wd_acc: Signal<In, Bits<ACC_W>>,
    pub wd_pd: Signal<In, Bits<W24>>,
    pub wd_dqpn: Signal<In, Bits<W24>>,
    pub wd_mtu: Signal<In, Bits<MTU_W>>,
    pub wd_tmr: Signal<In, Bits<TMR_W>>,
    pub wd_spsn: Signal<In, Bits<W24>>,
    pub wd_rpsn: Signal<In, Bits<W24>>,
    pub wd_dmac_lo: Signal<In, Bits<32>>,
    pub wd_dmac_hi: Signal<In, Bits<DMACHI_W>>,
    pub wd_dgid0: Signal<In, Bits<32>>,
    pub wd_dgid1: Signal<In, Bits<32>>,
    pub wd_dgid2: Signal<In, Bits<32>>,
    pub wd_dgid3: Signal<In, Bits<32>>,
    pub wd_path: Signal<In, Bits<PATH_W>>,
    pub wd_flow: Signal<In, Bits<FLOW_W>>,
    pub wd_sport: Signal<In, Bits<SPORT_W>>,
    pub wd_sqb_lo: Signal<In, Bits<32>>,
    pub wd_sqb_hi: Signal<In, Bits<32>>,
    pub wd_rqb_lo: Signal<In, Bits<32>>,
    pub wd_rqb_hi: Signal<In, Bits<32>>,
    pub wd_ring: Signal<In, Bits<RING_W>>,
    pub wd_cqn: Signal<In, Bits<32>>,
    pub wd_err: Signal<In, Bits<ERR_W>>,
    // ---- clear (CFG_RESET) ----
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,

    // ---- storage ----
    m_st: RAM<Bits<ST_W>, QA>,
    m_flags: RAM<Bits<FLAGS_W>, QA>,
    m_acc: RAM<Bits<ACC_W>, QA>,
    m_pd: RAM<Bits<W24>, QA>,
    m_dqpn: RAM<Bits<W24>, QA>,
    m_mtu: RAM<Bits<MTU_W>, QA>,
    m_tmr: RAM<Bits<TMR_W>, QA>,
    m_spsn: RAM<Bits<W24>, QA>,
    m_rpsn: RAM<Bits<W24>, QA>,
    m_dmac_lo: RAM<Bits<32>, QA>,
    m_dmac_hi: RAM<Bits<DMACHI_W>, QA>,
    m_dgid0: RAM<Bits<32>, QA>,
    m_dgid1: RAM<Bits<32>, QA>,
    m_dgid2: RAM<Bits<32>, QA>,
    m_dgid3: RAM<Bits<32>, QA>,
    m_path: RAM<Bits<PATH_W>, QA>,
    m_flow: RAM<Bits<FLOW_W>, QA>,
    m_sport: RAM<Bits<SPORT_W>, QA>,
    m_sqb_lo: RAM<Bits<32>, QA>,
    m_sqb_hi: RAM<Bits<32>, QA>,
    m_rqb_lo: RAM<Bits<32>, QA>,
    m_rqb_hi: RAM<Bits<32>, QA>,
    m_ring: RAM<Bits<RING_W>, QA>,
    m_cqn: RAM<Bits<32>, QA>,
    m_err: RAM<Bits<ERR_W>, QA>,

    // ---- read pipeline and clear ----
    v1: DFF<Bit>,
    o_valid: DFF<Bit>,
    o_state: DFF<Bits<ST_W>>,
    o_notify: DFF<Bit>,
    o_access: DFF<Bits<ACC_W>>,
    o_pd: DFF<Bits<W24>>,
    o_dqpn: DFF<Bits<W24>>,
    o_pmtu: DFF<Bits<PMTU_W>>,
    o_rd: DFF<Bits<RD_W>>,
    o_drd: DFF<Bits<RD_W>>,
    o_timeout: DFF<Bits<TIMEOUT_W>>,
    o_retry: DFF<Bits<RETRY_W>>,
    o_rnr_retry: DFF<Bits<RETRY_W>>,
    o_min_rnr: DFF<Bits<RNR_W>>,
    o_spsn: DFF<Bits<W24>>,
    o_rpsn: DFF<Bits<W24>>,
    o_dmac: DFF<Bits<48>>,
    o_dgid: DFF<Bits<128>>,
    o_sgid: DFF<Bits<SGID_W>>,
    o_tclass: DFF<Bits<8>>,
    o_hop: DFF<Bits<8>>,
    o_dscp: DFF<Bit>,
    o_flow: DFF<Bits<FLOW_W>>,
    o_sport: DFF<Bits<SPORT_W>>,
    o_sqb: DFF<Bits<64>>,
    o_rqb: DFF<Bits<64>>,
    o_sqe: DFF<Bits<LOG2E_W>>,
    o_sqs: DFF<Bits<LOG2S_W>>,
    o_rqe: DFF<Bits<LOG2E_W>>,
    o_rqs: DFF<Bits<LOG2S_W>>,
    o_psnwin: DFF<Bits<PSNWIN_W>>,
    o_scqn: DFF<Bits<CQN_W>>,
    o_rcqn: DFF<Bits<CQN_W>>,
    clr: DFF<Bit>,
    clr_idx: DFF<Bits<QA>>,

    // ---- constants ----
    c_zero_a: Constant<Bits<QA>>,
    c_one_a: Constant<Bits<QA>>,
    c_last_a: Constant<Bits<QA>>,
    c_pmtu_lsb: Constant<Bits<5>>,
    c_rd_lsb: Constant<Bits<5>>,
    c_drd_lsb: Constant<Bits<5>>,
    c_timeout_lsb: Constant<Bits<5>>,
    c_retry_lsb: Constant<Bits<5>>,
    c_rnr_retry_lsb: Constant<Bits<5>>,
    c_min_rnr_lsb: Constant<Bits<5>>,
    c_sgid_lsb: Constant<Bits<5>>,
    c_tclass_lsb: Constant<Bits<5>>,
    c_hop_lsb: Constant<Bits<5>>,
    c_dscp_lsb: Constant<Bits<5>>,
    c_sqe_lsb: Constant<Bits<5>>,
    c_sqs_lsb: Constant<Bits<5>>,
    c_rqe_lsb: Constant<Bits<5>>,
    c_rqs_lsb: Constant<Bits<5>>,
    c_psnwin_lsb: Constant<Bits<5>>,
    c_scqn_lsb: Constant<Bits<5>>,
    c_rcqn_lsb: Constant<Bits<5>>,

    // ---- locals ----
    rd_addr: Signal<Local, Bits<QA>>,
    w_addr: Signal<Local, Bits<QA>>,
    bs0: Signal<Local, Bits<32>>,
    bs1: Signal<Local, Bits<32>>,
    bs2: Signal<Local, Bits<32>>,
    bs3: Signal<Local, Bits<32>>,
    bsm: Signal<Local, Bits<32>>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_dgid0: ByteSwap32,
    le_dgid1: ByteSwap32,
    le_dgid2: ByteSwap32,
    le_dgid3: ByteSwap32,
    le_dmac_lo: ByteSwap32,
}

impl<const QA: usize> Default for QpConfigTable<QA> {
    fn default() -> Self {
        assert!((2..=16).contains(&QA), "QpConfigTable: QA must be 2..=16");
        Self {
            le_dgid0: Default::default(),
            le_dgid1: Default::default(),
            le_dgid2: Default::default(),
            le_dgid3: Default::default(),
            le_dmac_lo: Default::default(),
            clock: Default::default(),
            qpc: Default::default(),
            fsm_rd: Default::default(),
            fsm_qpn: Default::default(),
            fsm_ack: Default::default(),
            rq_st: Default::default(),
            rq_flags: Default::default(),
            rq_acc: Default::default(),
            rq_pd: Default::default(),
            rq_dqpn: Default::default(),
            rq_mtu: Default::default(),
            rq_tmr: Default::default(),
            rq_spsn: Default::default(),
            rq_rpsn: Default::default(),
            rq_dmac_lo: Default::default(),
            rq_dmac_hi: Default::default(),
            rq_dgid0: Default::default(),
            rq_dgid1: Default::default(),
            rq_dgid2: Default::default(),
            rq_dgid3: Default::default(),
            rq_path: Default::default(),
            rq_flow: Default::default(),
            rq_sport: Default::default(),
            rq_sqb_lo: Default::default(),
            rq_sqb_hi: Default::default(),
            rq_rqb_lo: Default::default(),
            rq_rqb_hi: Default::default(),
            rq_ring: Default::default(),
            rq_cqn: Default::default(),
            rq_err: Default::default(),
            wr_qpn: Default::default(),
            we_st: Default::default(),
            we_flags: Default::default(),
            we_acc: Default::default(),
            we_create: Default::default(),
            we_dqpn: Default::default(),
            we_mtu: Default::default(),
            we_tmr: Default::default(),
            we_spsn: Default::default(),
            we_rpsn: Default::default(),
            we_av: Default::default(),
            we_err: Default::default(),
            wd_st: Default::default(),
            wd_flags: Default::default(),
            wd_acc: Default::default(),
            wd_pd: Default::default(),
            wd_dqpn: Default::default(),
            wd_mtu: Default::default(),
            wd_tmr: Default::default(),
            wd_spsn: Default::default(),
            wd_rpsn: Default::default(),
            wd_dmac_lo: Default::default(),
            wd_dmac_hi: Default::default(),
            wd_dgid0: Default::default(),
            wd_dgid1: Default::default(),
            wd_dgid2: Default::default(),
            wd_dgid3: Default::default(),
            wd_path: Default::default(),
            wd_flow: Default::default(),
            wd_sport: Default::default(),
            wd_sqb_lo: Default::default(),
            wd_sqb_hi: Default::default(),
            wd_rqb_lo: Default::default(),
            wd_rqb_hi: Default::default(),
            wd_ring: Default::default(),
            wd_cqn: Default::default(),
            wd_err: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            m_st: zero_ram(),
            m_flags: zero_ram(),
            m_acc: zero_ram(),
            m_pd: zero_ram(),
            m_dqpn: zero_ram(),
            m_mtu: zero_ram(),
            m_tmr: zero_ram(),
            m_spsn: zero_ram(),
            m_rpsn: zero_ram(),
            m_dmac_lo: zero_ram(),
            m_dmac_hi: zero_ram(),
            m_dgid0: zero_ram(),
            m_dgid1: zero_ram(),
            m_dgid2: zero_ram(),
            m_dgid3: zero_ram(),
            m_path: zero_ram(),
            m_flow: zero_ram(),
            m_sport: zero_ram(),
            m_sqb_lo: zero_ram(),
            m_sqb_hi: zero_ram(),
            m_rqb_lo: zero_ram(),
            m_rqb_hi: zero_ram(),
            m_ring: zero_ram(),
            m_cqn: zero_ram(),
            m_err: zero_ram(),
            v1: Default::default(),
            o_valid: Default::default(),
            o_state: Default::default(),
            o_notify: Default::default(),
            o_access: Default::default(),
            o_pd: Default::default(),
            o_dqpn: Default::default(),
            o_pmtu: Default::default(),
            o_rd: Default::default(),
            o_drd: Default::default(),
            o_timeout: Default::default(),
            o_retry: Default::default(),
            o_rnr_retry: Default::default(),
            o_min_rnr: Default::default(),
            o_spsn: Default::default(),
            o_rpsn: Default::default(),
            o_dmac: Default::default(),
            o_dgid: Default::default(),
            o_sgid: Default::default(),
            o_tclass: Default::default(),
            o_hop: Default::default(),
            o_dscp: Default::default(),
            o_flow: Default::default(),
            o_sport: Default::default(),
            o_sqb: Default::default(),
            o_rqb: Default::default(),
            o_sqe: Default::default(),
            o_sqs: Default::default(),
            o_rqe: Default::default(),
            o_rqs: Default::default(),
            o_psnwin: Default::default(),
            o_scqn: Default::default(),
            o_rcqn: Default::default(),
            clr: Default::default(),
            clr_idx: Default::default(),
            c_zero_a: konst(0),
            c_one_a: konst(1),
            c_last_a: konst((1u64 << QA) - 1),
            c_pmtu_lsb: lsb_const(qp_mtu_rd::PATH_MTU),
            c_rd_lsb: lsb_const(qp_mtu_rd::MAX_RD_ATOMIC),
            c_drd_lsb: lsb_const(qp_mtu_rd::MAX_DEST_RD_ATOMIC),
            c_timeout_lsb: lsb_const(qp_timers::TIMEOUT),
            c_retry_lsb: lsb_const(qp_timers::RETRY_CNT),
            c_rnr_retry_lsb: lsb_const(qp_timers::RNR_RETRY),
            c_min_rnr_lsb: lsb_const(qp_timers::MIN_RNR_TIMER),
            c_sgid_lsb: lsb_const(qp_av_path::SGID_INDEX),
            c_tclass_lsb: lsb_const(qp_av_path::TRAFFIC_CLASS),
            c_hop_lsb: lsb_const(qp_av_path::HOP_LIMIT),
            c_dscp_lsb: lsb_const(qp_av_path::DEFAULT_DSCP),
            c_sqe_lsb: lsb_const(qp_ring_cfg::LOG2_SQ_ENTRIES),
            c_sqs_lsb: lsb_const(qp_ring_cfg::LOG2_SQ_STRIDE),
            c_rqe_lsb: lsb_const(qp_ring_cfg::LOG2_RQ_ENTRIES),
            c_rqs_lsb: lsb_const(qp_ring_cfg::LOG2_RQ_STRIDE),
            c_psnwin_lsb: lsb_const(qp_ring_cfg::LOG2_SQ_PSN_WINDOW),
            c_scqn_lsb: lsb_const(qp_cqn::SEND_CQN),
            c_rcqn_lsb: lsb_const(qp_cqn::RECV_CQN),
            rd_addr: Default::default(),
            w_addr: Default::default(),
            bs0: Default::default(),
            bs1: Default::default(),
            bs2: Default::default(),
            bs3: Default::default(),
            bsm: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for QpConfigTable<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            v1,
            o_valid,
            o_state,
            o_notify,
            o_access,
            o_pd,
            o_dqpn,
            o_pmtu,
            o_rd,
            o_drd,
            o_timeout,
            o_retry,
            o_rnr_retry,
            o_min_rnr,
            o_spsn,
            o_rpsn,
            o_dmac,
            o_dgid,
            o_sgid,
            o_tclass,
            o_hop,
            o_dscp,
            o_flow,
            o_sport,
            o_sqb,
            o_rqb,
            o_sqe,
            o_sqs,
            o_rqe,
            o_rqs,
            o_psnwin,
            o_scqn,
            o_rcqn,
            clr,
            clr_idx
        );
        // ---------------- RAM clocks ----------------
        self.m_st.read_clock.next = self.clock.val();
        self.m_st.write_clock.next = self.clock.val();
        self.m_flags.read_clock.next = self.clock.val();
        self.m_flags.write_clock.next = self.clock.val();
        self.m_acc.read_clock.next = self.clock.val();
        self.m_acc.write_clock.next = self.clock.val();
        self.m_pd.read_clock.next = self.clock.val();
        self.m_pd.write_clock.next = self.clock.val();
        self.m_dqpn.read_clock.next = self.clock.val();
        self.m_dqpn.write_clock.next = self.clock.val();
        self.m_mtu.read_clock.next = self.clock.val();
        self.m_mtu.write_clock.next = self.clock.val();
        self.m_tmr.read_clock.next = self.clock.val();
        self.m_tmr.write_clock.next = self.clock.val();
        self.m_spsn.read_clock.next = self.clock.val();
        self.m_spsn.write_clock.next = self.clock.val();
        self.m_rpsn.read_clock.next = self.clock.val();
        self.m_rpsn.write_clock.next = self.clock.val();
        self.m_dmac_lo.read_clock.next = self.clock.val();
        self.m_dmac_lo.write_clock.next = self.clock.val();
        self.m_dmac_hi.read_clock.next = self.clock.val();
        self.m_dmac_hi.write_clock.next = self.clock.val();
        self.m_dgid0.read_clock.next = self.clock.val();
        self.m_dgid0.write_clock.next = self.clock.val();
        self.m_dgid1.read_clock.next = self.clock.val();
        self.m_dgid1.write_clock.next = self.clock.val();
        self.m_dgid2.read_clock.next = self.clock.val();
        self.m_dgid2.write_clock.next = self.clock.val();
        self.m_dgid3.read_clock.next = self.clock.val();
        self.m_dgid3.write_clock.next = self.clock.val();
        self.m_path.read_clock.next = self.clock.val();
        self.m_path.write_clock.next = self.clock.val();
        self.m_flow.read_clock.next = self.clock.val();
        self.m_flow.write_clock.next = self.clock.val();
        self.m_sport.read_clock.next = self.clock.val();
        self.m_sport.write_clock.next = self.clock.val();
        self.m_sqb_lo.read_clock.next = self.clock.val();
        self.m_sqb_lo.write_clock.next = self.clock.val();
        self.m_sqb_hi.read_clock.next = self.clock.val();
        self.m_sqb_hi.write_clock.next = self.clock.val();
        self.m_rqb_lo.read_clock.next = self.clock.val();
        self.m_rqb_lo.write_clock.next = self.clock.val();
        self.m_rqb_hi.read_clock.next = self.clock.val();
        self.m_rqb_hi.write_clock.next = self.clock.val();
        self.m_ring.read_clock.next = self.clock.val();
        self.m_ring.write_clock.next = self.clock.val();
        self.m_cqn.read_clock.next = self.clock.val();
        self.m_cqn.write_clock.next = self.clock.val();
        self.m_err.read_clock.next = self.clock.val();
        self.m_err.write_clock.next = self.clock.val();

        // ---------------- addresses (engines first) ----------------
        self.rd_addr.next = self.fsm_qpn.val();
        if self.qpc.rd_valid.val() {
            self.rd_addr.next = self.qpc.rd_qpn.val();
        }
        self.fsm_ack.next = self.fsm_rd.val() & !self.qpc.rd_valid.val();
        self.w_addr.next = self.wr_qpn.val();
        if self.clr.q.val() {
            self.w_addr.next = self.clr_idx.q.val();
        }
        self.m_st.read_address.next = self.rd_addr.val();
        self.m_flags.read_address.next = self.rd_addr.val();
        self.m_acc.read_address.next = self.rd_addr.val();
        self.m_pd.read_address.next = self.rd_addr.val();
        self.m_dqpn.read_address.next = self.rd_addr.val();
        self.m_mtu.read_address.next = self.rd_addr.val();
        self.m_tmr.read_address.next = self.rd_addr.val();
        self.m_spsn.read_address.next = self.rd_addr.val();
        self.m_rpsn.read_address.next = self.rd_addr.val();
        self.m_dmac_lo.read_address.next = self.rd_addr.val();
        self.m_dmac_hi.read_address.next = self.rd_addr.val();
        self.m_dgid0.read_address.next = self.rd_addr.val();
        self.m_dgid1.read_address.next = self.rd_addr.val();
        self.m_dgid2.read_address.next = self.rd_addr.val();
        self.m_dgid3.read_address.next = self.rd_addr.val();
        self.m_path.read_address.next = self.rd_addr.val();
        self.m_flow.read_address.next = self.rd_addr.val();
        self.m_sport.read_address.next = self.rd_addr.val();
        self.m_sqb_lo.read_address.next = self.rd_addr.val();
        self.m_sqb_hi.read_address.next = self.rd_addr.val();
        self.m_rqb_lo.read_address.next = self.rd_addr.val();
        self.m_rqb_hi.read_address.next = self.rd_addr.val();
        self.m_ring.read_address.next = self.rd_addr.val();
        self.m_cqn.read_address.next = self.rd_addr.val();
        self.m_err.read_address.next = self.rd_addr.val();
        self.m_st.write_address.next = self.w_addr.val();
        self.m_flags.write_address.next = self.w_addr.val();
        self.m_acc.write_address.next = self.w_addr.val();
        self.m_pd.write_address.next = self.w_addr.val();
        self.m_dqpn.write_address.next = self.w_addr.val();
        self.m_mtu.write_address.next = self.w_addr.val();
        self.m_tmr.write_address.next = self.w_addr.val();
        self.m_spsn.write_address.next = self.w_addr.val();
        self.m_rpsn.write_address.next = self.w_addr.val();
        self.m_dmac_lo.write_address.next = self.w_addr.val();
        self.m_dmac_hi.write_address.next = self.w_addr.val();
        self.m_dgid0.write_address.next = self.w_addr.val();
        self.m_dgid1.write_address.next = self.w_addr.val();
        self.m_dgid2.write_address.next = self.w_addr.val();
        self.m_dgid3.write_address.next = self.w_addr.val();
        self.m_path.write_address.next = self.w_addr.val();
        self.m_flow.write_address.next = self.w_addr.val();
        self.m_sport.write_address.next = self.w_addr.val();
        self.m_sqb_lo.write_address.next = self.w_addr.val();
        self.m_sqb_hi.write_address.next = self.w_addr.val();
        self.m_rqb_lo.write_address.next = self.w_addr.val();
        self.m_rqb_hi.write_address.next = self.w_addr.val();
        self.m_ring.write_address.next = self.w_addr.val();
        self.m_cqn.write_address.next = self.w_addr.val();
        self.m_err.write_address.next = self.w_addr.val();

        // ---------------- write data and enables (clear writes zeros everywhere) ----------------
        self.m_st.write_data.next = self.wd_st.val();
        self.m_flags.write_data.next = self.wd_flags.val();
        self.m_acc.write_data.next = self.wd_acc.val();
        self.m_pd.write_data.next = self.wd_pd.val();
        self.m_dqpn.write_data.next = self.wd_dqpn.val();
        self.m_mtu.write_data.next = self.wd_mtu.val();
        self.m_tmr.write_data.next = self.wd_tmr.val();
        self.m_spsn.write_data.next = self.wd_spsn.val();
        self.m_rpsn.write_data.next = self.wd_rpsn.val();
        self.m_dmac_lo.write_data.next = self.wd_dmac_lo.val();
        self.m_dmac_hi.write_data.next = self.wd_dmac_hi.val();
        self.m_dgid0.write_data.next = self.wd_dgid0.val();
        self.m_dgid1.write_data.next = self.wd_dgid1.val();
        self.m_dgid2.write_data.next = self.wd_dgid2.val();
        self.m_dgid3.write_data.next = self.wd_dgid3.val();
        self.m_path.write_data.next = self.wd_path.val();
        self.m_flow.write_data.next = self.wd_flow.val();
        self.m_sport.write_data.next = self.wd_sport.val();
        self.m_sqb_lo.write_data.next = self.wd_sqb_lo.val();
        self.m_sqb_hi.write_data.next = self.wd_sqb_hi.val();
        self.m_rqb_lo.write_data.next = self.wd_rqb_lo.val();
        self.m_rqb_hi.write_data.next = self.wd_rqb_hi.val();
        self.m_ring.write_data.next = self.wd_ring.val();
        self.m_cqn.write_data.next = self.wd_cqn.val();
        self.m_err.write_data.next = self.wd_err.val();
        self.m_st.write_enable.next = self.we_st.val();
        self.m_flags.write_enable.next = self.we_flags.val();
        self.m_acc.write_enable.next = self.we_acc.val();
        self.m_pd.write_enable.next = self.we_create.val();
        self.m_dqpn.write_enable.next = self.we_dqpn.val();
        self.m_mtu.write_enable.next = self.we_mtu.val();
        self.m_tmr.write_enable.next = self.we_tmr.val();
        self.m_spsn.write_enable.next = self.we_spsn.val();
        self.m_rpsn.write_enable.next = self.we_rpsn.val();
        self.m_dmac_lo.write_enable.next = self.we_av.val();
        self.m_dmac_hi.write_enable.next = self.we_av.val();
        self.m_dgid0.write_enable.next = self.we_av.val();
        self.m_dgid1.write_enable.next = self.we_av.val();
        self.m_dgid2.write_enable.next = self.we_av.val();
        self.m_dgid3.write_enable.next = self.we_av.val();
        self.m_path.write_enable.next = self.we_av.val();
        self.m_flow.write_enable.next = self.we_av.val();
        self.m_sport.write_enable.next = self.we_av.val();
        self.m_sqb_lo.write_enable.next = self.we_create.val();
        self.m_sqb_hi.write_enable.next = self.we_create.val();
        self.m_rqb_lo.write_enable.next = self.we_create.val();
        self.m_rqb_hi.write_enable.next = self.we_create.val();
        self.m_ring.write_enable.next = self.we_create.val();
        self.m_cqn.write_enable.next = self.we_create.val();
        self.m_err.write_enable.next = self.we_err.val();
        if self.clr.q.val() {
            self.m_st.write_data.next = 0.into();
            self.m_flags.write_data.next = 0.into();
            self.m_acc.write_data.next = 0.into();
            self.m_pd.write_data.next = 0.into();
            self.m_dqpn.write_data.next = 0.into();
            self.m_mtu.write_data.next = 0.into();
            self.m_tmr.write_data.next = 0.into();
            self.m_spsn.write_data.next = 0.into();
            self.m_rpsn.write_data.next = 0.into();
            self.m_dmac_lo.write_data.next = 0.into();
            self.m_dmac_hi.write_data.next = 0.into();
            self.m_dgid0.write_data.next = 0.into();
            self.m_dgid1.write_data.next = 0.into();
            self.m_dgid2.write_data.next = 0.into();
            self.m_dgid3.write_data.next = 0.into();
            self.m_path.write_data.next = 0.into();
            self.m_flow.write_data.next = 0.into();
            self.m_sport.write_data.next = 0.into();
            self.m_sqb_lo.write_data.next = 0.into();
            self.m_sqb_hi.write_data.next = 0.into();
            self.m_rqb_lo.write_data.next = 0.into();
            self.m_rqb_hi.write_data.next = 0.into();
            self.m_ring.write_data.next = 0.into();
            self.m_cqn.write_data.next = 0.into();
            self.m_err.write_data.next = 0.into();
            self.m_st.write_enable.next = true;
            self.m_flags.write_enable.next = true;
            self.m_acc.write_enable.next = true;
            self.m_pd.write_enable.next = true;
            self.m_dqpn.write_enable.next = true;
            self.m_mtu.write_enable.next = true;
            self.m_tmr.write_enable.next = true;
            self.m_spsn.write_enable.next = true;
            self.m_rpsn.write_enable.next = true;
            self.m_dmac_lo.write_enable.next = true;
            self.m_dmac_hi.write_enable.next = true;
            self.m_dgid0.write_enable.next = true;
            self.m_dgid1.write_enable.next = true;
            self.m_dgid2.write_enable.next = true;
            self.m_dgid3.write_enable.next = true;
            self.m_path.write_enable.next = true;
            self.m_flow.write_enable.next = true;
            self.m_sport.write_enable.next = true;
            self.m_sqb_lo.write_enable.next = true;
            self.m_sqb_hi.write_enable.next = true;
            self.m_rqb_lo.write_enable.next = true;
            self.m_rqb_hi.write_enable.next = true;
            self.m_ring.write_enable.next = true;
            self.m_cqn.write_enable.next = true;
            self.m_err.write_enable.next = true;
            self.clr_idx.d.next = self.clr_idx.q.val() + self.c_one_a.val();
            if self.clr_idx.q.val() == self.c_last_a.val() {
                self.clr.d.next = false;
            }
        }
        if self.clear.val() & !self.clr.q.val() {
            self.clr.d.next = true;
            self.clr_idx.d.next = self.c_zero_a.val();
        }
        self.clearing.next = self.clr.q.val();

        // ---------------- command read data (raw words) ----------------
        self.rq_st.next = self.m_st.read_data.val();
        self.rq_flags.next = self.m_flags.read_data.val();
        self.rq_acc.next = self.m_acc.read_data.val();
        self.rq_pd.next = self.m_pd.read_data.val();
        self.rq_dqpn.next = self.m_dqpn.read_data.val();
        self.rq_mtu.next = self.m_mtu.read_data.val();
        self.rq_tmr.next = self.m_tmr.read_data.val();
        self.rq_spsn.next = self.m_spsn.read_data.val();
        self.rq_rpsn.next = self.m_rpsn.read_data.val();
        self.rq_dmac_lo.next = self.m_dmac_lo.read_data.val();
        self.rq_dmac_hi.next = self.m_dmac_hi.read_data.val();
        self.rq_dgid0.next = self.m_dgid0.read_data.val();
        self.rq_dgid1.next = self.m_dgid1.read_data.val();
        self.rq_dgid2.next = self.m_dgid2.read_data.val();
        self.rq_dgid3.next = self.m_dgid3.read_data.val();
        self.rq_path.next = self.m_path.read_data.val();
        self.rq_flow.next = self.m_flow.read_data.val();
        self.rq_sport.next = self.m_sport.read_data.val();
        self.rq_sqb_lo.next = self.m_sqb_lo.read_data.val();
        self.rq_sqb_hi.next = self.m_sqb_hi.read_data.val();
        self.rq_rqb_lo.next = self.m_rqb_lo.read_data.val();
        self.rq_rqb_hi.next = self.m_rqb_hi.read_data.val();
        self.rq_ring.next = self.m_ring.read_data.val();
        self.rq_cqn.next = self.m_cqn.read_data.val();
        self.rq_err.next = self.m_err.read_data.val();

        // ---------------- engine read pipeline: stage 2 registers the fields ----------------
        // byte swaps (register byte 0 in 7:0 -> wire byte 0 on top)
        self.le_dgid0.inp.next = self.m_dgid0.read_data.val();
        self.bs0.next = self.le_dgid0.out.val();
        self.le_dgid1.inp.next = self.m_dgid1.read_data.val();
        self.bs1.next = self.le_dgid1.out.val();
        self.le_dgid2.inp.next = self.m_dgid2.read_data.val();
        self.bs2.next = self.le_dgid2.out.val();
        self.le_dgid3.inp.next = self.m_dgid3.read_data.val();
        self.bs3.next = self.le_dgid3.out.val();
        self.le_dmac_lo.inp.next = self.m_dmac_lo.read_data.val();
        self.bsm.next = self.le_dmac_lo.out.val();
        self.v1.d.next = self.qpc.rd_valid.val();
        self.o_valid.d.next = self.v1.q.val();
        if self.v1.q.val() {
            self.o_state.d.next = self.m_st.read_data.val();
            self.o_notify.d.next = self.m_flags.read_data.val().get_bit(1);
            self.o_access.d.next = self.m_acc.read_data.val();
            self.o_pd.d.next = self.m_pd.read_data.val();
            self.o_dqpn.d.next = self.m_dqpn.read_data.val();
            self.o_pmtu.d.next = self
                .m_mtu
                .read_data
                .val()
                .get_bits::<PMTU_W>(self.c_pmtu_lsb.val().index());
            self.o_rd.d.next = self
                .m_mtu
                .read_data
                .val()
                .get_bits::<RD_W>(self.c_rd_lsb.val().index());
            self.o_drd.d.next = self
                .m_mtu
                .read_data
                .val()
                .get_bits::<RD_W>(self.c_drd_lsb.val().index());
            self.o_timeout.d.next = self
                .m_tmr
                .read_data
                .val()
                .get_bits::<TIMEOUT_W>(self.c_timeout_lsb.val().index());
            self.o_retry.d.next = self
                .m_tmr
                .read_data
                .val()
                .get_bits::<RETRY_W>(self.c_retry_lsb.val().index());
            self.o_rnr_retry.d.next = self
                .m_tmr
                .read_data
                .val()
                .get_bits::<RETRY_W>(self.c_rnr_retry_lsb.val().index());
            self.o_min_rnr.d.next = self
                .m_tmr
                .read_data
                .val()
                .get_bits::<RNR_W>(self.c_min_rnr_lsb.val().index());
            self.o_spsn.d.next = self.m_spsn.read_data.val();
            self.o_rpsn.d.next = self.m_rpsn.read_data.val();
            self.o_dmac.d.next = (bit_cast::<48, 32>(self.bsm.val()) << 16)
                | (bit_cast::<48, 8>(self.m_dmac_hi.read_data.val().get_bits::<8>(0)) << 8)
                | bit_cast::<48, 8>(self.m_dmac_hi.read_data.val().get_bits::<8>(8));
            self.o_dgid.d.next = (bit_cast::<128, 32>(self.bs0.val()) << 96)
                | (bit_cast::<128, 32>(self.bs1.val()) << 64)
                | (bit_cast::<128, 32>(self.bs2.val()) << 32)
                | bit_cast::<128, 32>(self.bs3.val());
            self.o_sgid.d.next = self
                .m_path
                .read_data
                .val()
                .get_bits::<SGID_W>(self.c_sgid_lsb.val().index());
            self.o_tclass.d.next = self
                .m_path
                .read_data
                .val()
                .get_bits::<8>(self.c_tclass_lsb.val().index());
            self.o_hop.d.next = self
                .m_path
                .read_data
                .val()
                .get_bits::<8>(self.c_hop_lsb.val().index());
            self.o_dscp.d.next = self
                .m_path
                .read_data
                .val()
                .get_bit(self.c_dscp_lsb.val().index());
            self.o_flow.d.next = self.m_flow.read_data.val();
            self.o_sport.d.next = self.m_sport.read_data.val();
            self.o_sqb.d.next = (bit_cast::<64, 32>(self.m_sqb_hi.read_data.val()) << 32)
                | bit_cast::<64, 32>(self.m_sqb_lo.read_data.val());
            self.o_rqb.d.next = (bit_cast::<64, 32>(self.m_rqb_hi.read_data.val()) << 32)
                | bit_cast::<64, 32>(self.m_rqb_lo.read_data.val());
            self.o_sqe.d.next = self
                .m_ring
                .read_data
                .val()
                .get_bits::<LOG2E_W>(self.c_sqe_lsb.val().index());
            self.o_sqs.d.next = self
                .m_ring
                .read_data
                .val()
                .get_bits::<LOG2S_W>(self.c_sqs_lsb.val().index());
            self.o_rqe.d.next = self
                .m_ring
                .read_data
                .val()
                .get_bits::<LOG2E_W>(self.c_rqe_lsb.val().index());
            self.o_rqs.d.next = self
                .m_ring
                .read_data
                .val()
                .get_bits::<LOG2S_W>(self.c_rqs_lsb.val().index());
            self.o_psnwin.d.next = self
                .m_ring
                .read_data
                .val()
                .get_bits::<PSNWIN_W>(self.c_psnwin_lsb.val().index());
            self.o_scqn.d.next = self
                .m_cqn
                .read_data
                .val()
                .get_bits::<CQN_W>(self.c_scqn_lsb.val().index());
            self.o_rcqn.d.next = self
                .m_cqn
                .read_data
                .val()
                .get_bits::<CQN_W>(self.c_rcqn_lsb.val().index());
        }
        // no back-pressure: the engines have priority over the command port
        self.qpc.rd_ready.next = true;
        self.qpc.valid.next = self.o_valid.q.val();
        self.qpc.state.next = self.o_state.q.val();
        self.qpc.sqd_notify.next = self.o_notify.q.val();
        self.qpc.access.next = self.o_access.q.val();
        self.qpc.pd.next = self.o_pd.q.val();
        self.qpc.dest_qpn.next = self.o_dqpn.q.val();
        self.qpc.pmtu.next = self.o_pmtu.q.val();
        self.qpc.max_rd_atomic.next = self.o_rd.q.val();
        self.qpc.max_dest_rd_atomic.next = self.o_drd.q.val();
        self.qpc.timeout.next = self.o_timeout.q.val();
        self.qpc.retry_cnt.next = self.o_retry.q.val();
        self.qpc.rnr_retry.next = self.o_rnr_retry.q.val();
        self.qpc.min_rnr_timer.next = self.o_min_rnr.q.val();
        self.qpc.sq_psn.next = self.o_spsn.q.val();
        self.qpc.rq_psn.next = self.o_rpsn.q.val();
        self.qpc.dmac.next = self.o_dmac.q.val();
        self.qpc.dgid.next = self.o_dgid.q.val();
        self.qpc.sgid_index.next = self.o_sgid.q.val();
        self.qpc.traffic_class.next = self.o_tclass.q.val();
        self.qpc.hop_limit.next = self.o_hop.q.val();
        self.qpc.default_dscp.next = self.o_dscp.q.val();
        self.qpc.flow_label.next = self.o_flow.q.val();
        self.qpc.udp_sport.next = self.o_sport.q.val();
        self.qpc.sq_base.next = self.o_sqb.q.val();
        self.qpc.rq_base.next = self.o_rqb.q.val();
        self.qpc.sq_log2_entries.next = self.o_sqe.q.val();
        self.qpc.sq_log2_stride.next = self.o_sqs.q.val();
        self.qpc.sq_log2_psn_window.next = self.o_psnwin.q.val();
        self.qpc.rq_log2_entries.next = self.o_rqe.q.val();
        self.qpc.rq_log2_stride.next = self.o_rqs.q.val();
        self.qpc.send_cqn.next = self.o_scqn.q.val();
        self.qpc.recv_cqn.next = self.o_rcqn.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_widths_follow_proto() {
        assert_eq!(ST_W, 3);
        assert_eq!(ACC_W, 4);
        assert_eq!(MTU_W, 24);
        assert_eq!(TMR_W, 21);
        assert_eq!(PATH_W, 25);
        assert_eq!(RING_W, 32);
        assert_eq!(ERR_W, 16);
        let total = ST_W
            + FLAGS_W
            + ACC_W
            + 4 * W24
            + MTU_W
            + TMR_W
            + 32
            + DMACHI_W
            + 128
            + PATH_W
            + FLOW_W
            + SPORT_W
            + 128
            + RING_W
            + 32
            + ERR_W;
        assert_eq!(total, 595);
    }

    #[test]
    fn qp_config_table_synthesises() {
        let mut uut = QpConfigTable::<4>::default();
        super::super::synth_check(&mut uut, "qp_config");
    }
}
