//! [`CtxWindows`]: the QP and CQ command windows (HOST-INTERFACE section 6), their staging
//! registers, and the command state machine that applies them to [`QpConfigTable`] and
//! [`CqConfigTable`] (both instantiated here; their engine read ports are passed through).
//!
//! # QP MODIFY (checks in this order; the first failing one is the result)
//!
//! 1. command code not MODIFY/QUERY: Unsupported; QPN >= 2^QA or QPN < 2: BadIndex;
//!    `QP_ATTR_MASK & !QpAttrMask::SUPPORTED` != 0: Unsupported.
//! 2. (table read) CUR_STATE in the mask and `QP_STATE.CUR_STATE` != the current state:
//!    CurStateMismatch.
//! 3. `(current, target)` not allowed: BadTransition; required attributes missing: MissingAttr;
//!    attributes the transition does not take: BadValue. The table is `qp::transition_attrs`,
//!    built into a 64-entry constant lookup at construction.
//! 4. values (BadValue): PATH_MTU code 1..=max; max_rd_atomic / max_dest_rd_atomic <= limits;
//!    AV source GID index < 16; CREATE ring log2 entries 1..=max, strides in range, bases aligned
//!    to max(stride, 64 B), CQNs < 2^CA, then both CQs exist (reference RAM reads).
//! 5. write: all words at one edge (`->RESET` writes every word 0); reference counts of the
//!    CQs (+1 on CREATE, -1 when a created QP goes to RESET); a [`super::QEV_MODIFY`]
//!    notification queued; result Ok.
//!
//! QUERY loads the staging registers from the table (QP_STATE: current state in STATE and
//! CUR_STATE, the notify flag), QP_ERR_INFO, then asks the engines for the runtime words
//! (`rtq_*`: QP_SQ_INDEX, QP_RQ_INDEX, SQ drained).
//!
//! # CQ commands
//!
//! CREATE: BadIndex (CQN >= 2^CA), BadValue (log2 entries 1..=max, vector < 32, base 64-byte
//! aligned), InUse (referenced), then the config is written (exists = 1) and a
//! [`super::CEV_CREATE`] notification (value = CQ_CI) queued. DESTROY: BadIndex, InUse, then
//! exists = 0 and [`super::CEV_DESTROY`]. QUERY: base, CQ_CFG with VALID, then `rtq_*` (CQ_PI,
//! CQ_CI, CQ_STATE).
//!
//! The QP and CQ windows share the state machine: a command runs only when the other window's
//! command is finished (CQ first if both wait). Each window shows BUSY from the edge after its
//! command register is written until its command finished; writes to a busy window are
//! ignored. `qerr_*` (an engine moves a QP to ERR, recording QP_ERR_INFO) is accepted only
//! while no command runs.
use super::cq_config::{
    CqConfigTable, CFG_W as CQ_CFG_W, LOG2_W as CQ_LOG2_W, REF_W, VEC_W as CQ_VEC_W,
};
use super::qp_config::*;
use super::qpc_port::QpcReadSlave;
use super::{addr_const, konst, lsb_const, Addr, CsrParams, CEV_CREATE, CEV_DESTROY};
use crate::csr::doorbell::DB_NUM_BITS;
use crate::widget::MuxTree;
use ferroce_proto::host::qp::{transition_attrs, QpAttrMask, QpState};
use ferroce_proto::host::regs::{
    self, cmd_status, cq_cfg, cq_cmd, qp_av_path, qp_cmd, qp_cqn, qp_mtu_rd, qp_ring_cfg, qp_state,
    qp_timers, CmdResult,
};
use ferroce_proto::host::ring;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum CtxState {
    /// No command runs: waits for a written command register or an engine's `qerr_*`.
    Idle,
    /// CFG_RESET: starts the tables' clears.
    Clear,
    /// CFG_RESET: waits until both tables are cleared.
    ClearWait,
    /// QP command: the checks that need no table read (code, QPN, mask).
    QpStart,
    /// QP command: the QP's row is read from the QP table.
    QpRead,
    /// QP command: the row's checks (current state, transition, attributes, values).
    QpEval,
    /// CREATE: the send CQ's reference word is addressed.
    QpCqA,
    /// CREATE: the receive CQ's reference word is addressed while the send CQ's is still in
    /// the reference RAM's registered read (latency 2, [`CqConfigTable`]).
    QpCqW,
    /// CREATE: the send CQ must exist.
    QpCqB,
    /// CREATE: the receive CQ must exist.
    QpCqC,
    /// The QP table is written.
    QpWrite,
    /// Reference count of the send CQ: waits for its read (addressed since `QpWrite`).
    QpRefRdA,
    /// Reference count of the send CQ written (+1 on CREATE, -1 to RESET).
    QpRefWrA,
    /// Reference count of the receive CQ addressed (after the send CQ's write: they may be
    /// the same CQ).
    QpRefRdB,
    /// Reference count of the receive CQ: its registered read (latency 2).
    QpRefWaitB,
    /// Reference count of the receive CQ written.
    QpRefWrB,
    /// The MODIFY notification to the engines is queued.
    QpNotify,
    /// An engine moved a QP to ERR: the notification to the engines is queued.
    ErrNotify,
    /// QUERY: the engines are asked for the runtime words.
    QpRtq,
    /// QUERY: waits for the engines' runtime words.
    QpRtqWait,
    /// CQ command: the checks that need no table read; the CQ's reference word is addressed.
    CqStart,
    /// CQ CREATE / DESTROY: the reference word's registered read (latency 2).
    CqRef,
    /// CQ CREATE / DESTROY: InUse, or the config and reference words written.
    CqRefEval,
    /// CQ CREATE / DESTROY: the notification to the completion engine is queued.
    CqNotify,
    /// CQ QUERY: the config row is read (granted when the engine does not read).
    CqRead,
    /// CQ QUERY: the config row is loaded into the staging registers.
    CqQEval,
    /// CQ QUERY: the completion engine is asked for the runtime words.
    CqRtq,
    /// CQ QUERY: waits for the completion engine's runtime words.
    CqRtqWait,
    /// The result is published and the window's BUSY cleared.
    Finish,
}

/// Number of `(from, to)` entries of the transition lookup (3-bit states).
const NT: usize = 64;

/// Address bits fixed for a read of the QP and CQ windows: all but raddr[9] (the window) and
/// raddr[6:2] (the word); they must equal `RD_MATCH` (0x800: raddr[11] set, the rest 0).
const RD_FREE: u32 = 0x200 | 0x7C;
const RD_MATCH: u32 = regs::QP_WIN_BASE;
/// The read-tree leaf of each readable register of the windows (the literal `rtree.leaf` indices
/// in `update`).
const READ_LEAF: [(u32, usize); 37] = [
    (regs::QP_CMD_QPN, 0),
    (regs::QP_CMD_STATUS, 2),
    (regs::QP_ATTR_MASK, 3),
    (regs::QP_STATE, 4),
    (regs::QP_ACCESS, 5),
    (regs::QP_PD, 6),
    (regs::QP_DEST_QPN, 7),
    (regs::QP_MTU_RD, 8),
    (regs::QP_TIMERS, 9),
    (regs::QP_SQ_PSN, 10),
    (regs::QP_RQ_PSN, 11),
    (regs::QP_AV_DMAC_LO, 12),
    (regs::QP_AV_DMAC_HI, 13),
    (regs::QP_AV_DGID0, 14),
    (regs::QP_AV_DGID1, 15),
    (regs::QP_AV_DGID2, 16),
    (regs::QP_AV_DGID3, 17),
    (regs::QP_AV_PATH, 18),
    (regs::QP_AV_FLOW, 19),
    (regs::QP_AV_SPORT, 20),
    (regs::QP_SQ_BASE_LO, 21),
    (regs::QP_SQ_BASE_HI, 22),
    (regs::QP_RQ_BASE_LO, 23),
    (regs::QP_RQ_BASE_HI, 24),
    (regs::QP_RING_CFG, 25),
    (regs::QP_CQN, 26),
    (regs::QP_SQ_INDEX, 27),
    (regs::QP_RQ_INDEX, 28),
    (regs::QP_ERR_INFO, 29),
    (regs::CQ_CMD_CQN, 32),
    (regs::CQ_CMD_STATUS, 34),
    (regs::CQ_BASE_LO, 35),
    (regs::CQ_BASE_HI, 36),
    (regs::CQ_CFG, 37),
    (regs::CQ_CI, 38),
    (regs::CQ_PI, 39),
    (regs::CQ_STATE, 40),
];

/// Checks the literal leaf positions of the read tree against the register map.
fn check_read_leaves() {
    let mask = (regs::BAR0_SIZE - 1) & !RD_FREE;
    for (off, l) in READ_LEAF {
        assert_eq!(off & mask, RD_MATCH, "{off:#x}");
        assert_eq!(
            (((off >> 9) & 1) * 32 + ((off >> 2) & 31)) as usize,
            l,
            "{off:#x}"
        );
    }
    // every readable register of the two windows is a leaf, and nothing else matches
    let n = regs::REGISTERS
        .iter()
        .filter(|r| (r.offset & mask) == RD_MATCH && r.access != regs::Access::WO)
        .count();
    assert_eq!(n, READ_LEAF.len());
    assert_eq!(regs::CQ_WIN_BASE, regs::QP_WIN_BASE | 0x200);
}

#[derive(LogicBlock)]
pub struct CtxWindows<const QA: usize, const CA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- register bus ----
    pub wr: Signal<In, Bit>,
    pub waddr: Signal<In, Addr>,
    pub wdata: Signal<In, Bits<32>>,
    pub rd: Signal<In, Bit>,
    pub raddr: Signal<In, Addr>,
    pub rdata: Signal<Out, Bits<32>>,
    // ---- control ----
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    pub cmd_done: Signal<Out, Bit>,
    // ---- notifications (to the doorbell FIFOs) ----
    pub qmod_valid: Signal<Out, Bit>,
    pub qmod_ready: Signal<In, Bit>,
    pub qmod_qpn: Signal<Out, Bits<DB_NUM_BITS>>,
    pub qmod_value: Signal<Out, Bits<16>>,
    pub cnote_valid: Signal<Out, Bit>,
    pub cnote_ready: Signal<In, Bit>,
    pub cnote_kind: Signal<Out, Bits<2>>,
    pub cnote_cqn: Signal<Out, Bits<DB_NUM_BITS>>,
    pub cnote_value: Signal<Out, Bits<32>>,
    // ---- runtime query of the engines ----
    pub rtq_req: Signal<Out, Bit>,
    pub rtq_cq: Signal<Out, Bit>,
    pub rtq_index: Signal<Out, Bits<DB_NUM_BITS>>,
    pub rtq_ack: Signal<In, Bit>,
    pub rtq_d0: Signal<In, Bits<32>>,
    pub rtq_d1: Signal<In, Bits<32>>,
    pub rtq_d2: Signal<In, Bits<32>>,
    // ---- engines move a QP to ERR ----
    pub qerr_valid: Signal<In, Bit>,
    pub qerr_ready: Signal<Out, Bit>,
    pub qerr_qpn: Signal<In, Bits<QA>>,
    pub qerr_status: Signal<In, Bits<8>>,
    pub qerr_vendor: Signal<In, Bits<8>>,
    // ---- engine read ports of the tables (pass-through) ----
    pub qpc: QpcReadSlave<QA>,
    pub cqc_rd_valid: Signal<In, Bit>,
    pub cqc_rd_cqn: Signal<In, Bits<CA>>,
    pub cqc_valid: Signal<Out, Bit>,
    pub cqc_exists: Signal<Out, Bit>,
    pub cqc_base: Signal<Out, Bits<64>>,
    pub cqc_log2_entries: Signal<Out, Bits<CQ_LOG2_W>>,
    pub cqc_vector: Signal<Out, Bits<CQ_VEC_W>>,
    // ---- the tables ----
    qpt: QpConfigTable<QA>,
    cqt: CqConfigTable<CA>,

    // ---- QP window staging registers ----
    s_qpn: DFF<Bits<32>>,
    s_mask: DFF<Bits<32>>,
    s_state: DFF<Bits<32>>,
    s_access: DFF<Bits<32>>,
    s_pd: DFF<Bits<32>>,
    s_dqpn: DFF<Bits<32>>,
    s_mtu: DFF<Bits<32>>,
    s_tmr: DFF<Bits<32>>,
    s_spsn: DFF<Bits<32>>,
    s_rpsn: DFF<Bits<32>>,
    s_dmac_lo: DFF<Bits<32>>,
    s_dmac_hi: DFF<Bits<32>>,
    s_dgid0: DFF<Bits<32>>,
    s_dgid1: DFF<Bits<32>>,
    s_dgid2: DFF<Bits<32>>,
    s_dgid3: DFF<Bits<32>>,
    s_path: DFF<Bits<32>>,
    s_flow: DFF<Bits<32>>,
    s_sport: DFF<Bits<32>>,
    s_sqb_lo: DFF<Bits<32>>,
    s_sqb_hi: DFF<Bits<32>>,
    s_rqb_lo: DFF<Bits<32>>,
    s_rqb_hi: DFF<Bits<32>>,
    s_ring: DFF<Bits<32>>,
    s_cqn: DFF<Bits<32>>,
    s_sqi: DFF<Bits<32>>,
    s_rqi: DFF<Bits<32>>,
    s_err: DFF<Bits<32>>,
    q_busy: DFF<Bit>,
    q_cmd: DFF<Bits<32>>,
    q_result: DFF<Bits<8>>,
    // ---- CQ window ----
    c_cqn: DFF<Bits<32>>,
    c_base_lo: DFF<Bits<32>>,
    c_base_hi: DFF<Bits<32>>,
    c_cfg: DFF<Bits<32>>,
    c_ci: DFF<Bits<32>>,
    c_pi: DFF<Bits<32>>,
    c_cst: DFF<Bits<32>>,
    c_busy: DFF<Bit>,
    c_cmd: DFF<Bits<32>>,
    c_result: DFF<Bits<8>>,
    // ---- state machine ----
    st: DFF<CtxState>,
    on_cq: DFF<Bit>,
    res: DFF<Bits<8>>,
    clr_pend: DFF<Bit>,
    done_q: DFF<Bit>,
    o_cur: DFF<Bits<ST_W>>,
    o_to: DFF<Bits<ST_W>>,
    /// the QP an engine moved to ERR, notified to the engines (ErrNotify)
    e_qpn: DFF<Bits<QA>>,
    o_created: DFF<Bit>,
    o_notify: DFF<Bit>,
    o_mtu: DFF<Bits<MTU_W>>,
    o_tmr: DFF<Bits<TMR_W>>,
    ref_a: DFF<Bits<CA>>,
    ref_b: DFF<Bits<CA>>,
    ref_inc: DFF<Bit>,

    // ---- address constants ----
    a_qpn: Constant<Addr>,
    a_qcmd: Constant<Addr>,
    a_mask: Constant<Addr>,
    a_state: Constant<Addr>,
    a_access: Constant<Addr>,
    a_pd: Constant<Addr>,
    a_dqpn: Constant<Addr>,
    a_mtu: Constant<Addr>,
    a_tmr: Constant<Addr>,
    a_spsn: Constant<Addr>,
    a_rpsn: Constant<Addr>,
    a_dmac_lo: Constant<Addr>,
    a_dmac_hi: Constant<Addr>,
    a_dgid0: Constant<Addr>,
    a_dgid1: Constant<Addr>,
    a_dgid2: Constant<Addr>,
    a_dgid3: Constant<Addr>,
    a_path: Constant<Addr>,
    a_flow: Constant<Addr>,
    a_sport: Constant<Addr>,
    a_sqb_lo: Constant<Addr>,
    a_sqb_hi: Constant<Addr>,
    a_rqb_lo: Constant<Addr>,
    a_rqb_hi: Constant<Addr>,
    a_ring: Constant<Addr>,
    a_cqn: Constant<Addr>,
    a_ccqn: Constant<Addr>,
    a_ccmd: Constant<Addr>,
    a_cbase_lo: Constant<Addr>,
    a_cbase_hi: Constant<Addr>,
    a_ccfg: Constant<Addr>,
    a_cci: Constant<Addr>,
    // ---- value constants ----
    k_modify: Constant<Bits<32>>,
    k_query: Constant<Bits<32>>,
    k_create: Constant<Bits<32>>,
    k_destroy: Constant<Bits<32>>,
    k_cquery: Constant<Bits<32>>,
    k_r_ok: Constant<Bits<8>>,
    k_r_index: Constant<Bits<8>>,
    k_r_trans: Constant<Bits<8>>,
    k_r_missing: Constant<Bits<8>>,
    k_r_value: Constant<Bits<8>>,
    k_r_inuse: Constant<Bits<8>>,
    k_r_unsup: Constant<Bits<8>>,
    k_r_cur: Constant<Bits<8>>,
    k_busy_mask: Constant<Bits<32>>,
    k_result_lsb: Constant<Bits<5>>,
    k_supported_n: Constant<Bits<32>>,
    k_m_state: Constant<Bits<32>>,
    k_m_cur: Constant<Bits<32>>,
    k_m_notify: Constant<Bits<32>>,
    k_m_access: Constant<Bits<32>>,
    k_m_av: Constant<Bits<32>>,
    k_m_pmtu: Constant<Bits<32>>,
    k_m_timeout: Constant<Bits<32>>,
    k_m_retry: Constant<Bits<32>>,
    k_m_rnr_retry: Constant<Bits<32>>,
    k_m_rq_psn: Constant<Bits<32>>,
    k_m_rd: Constant<Bits<32>>,
    k_m_min_rnr: Constant<Bits<32>>,
    k_m_sq_psn: Constant<Bits<32>>,
    k_m_drd: Constant<Bits<32>>,
    k_m_dqpn: Constant<Bits<32>>,
    k_m_create: Constant<Bits<32>>,
    k_f_pmtu: Constant<Bits<32>>,
    k_f_rd: Constant<Bits<32>>,
    k_f_drd: Constant<Bits<32>>,
    k_f_timeout: Constant<Bits<32>>,
    k_f_retry: Constant<Bits<32>>,
    k_f_rnr_retry: Constant<Bits<32>>,
    k_f_min_rnr: Constant<Bits<32>>,
    k_f_notify: Constant<Bits<32>>,
    k_f_drained: Constant<Bits<32>>,
    k_st_lsb: Constant<Bits<5>>,
    k_cur_lsb: Constant<Bits<5>>,
    k_pmtu_lsb: Constant<Bits<5>>,
    k_rd_lsb: Constant<Bits<5>>,
    k_drd_lsb: Constant<Bits<5>>,
    k_sgid_lsb: Constant<Bits<5>>,
    k_sqe_lsb: Constant<Bits<5>>,
    k_sqs_lsb: Constant<Bits<5>>,
    k_rqe_lsb: Constant<Bits<5>>,
    k_rqs_lsb: Constant<Bits<5>>,
    k_scqn_lsb: Constant<Bits<5>>,
    k_rcqn_lsb: Constant<Bits<5>>,
    k_st_reset: Constant<Bits<ST_W>>,
    k_st_err: Constant<Bits<ST_W>>,
    k_qpn_oob: Constant<Bits<16>>,
    k_qpn_min: Constant<Bits<16>>,
    k_cqn_oob: Constant<Bits<16>>,
    k_zero16: Constant<Bits<16>>,
    k_zero32: Constant<Bits<32>>,
    k_ones32: Constant<Bits<32>>,
    k_pmtu_max: Constant<Bits<PMTU_W>>,
    k_pmtu_zero: Constant<Bits<PMTU_W>>,
    k_rd_max: Constant<Bits<RD_W>>,
    k_drd_max: Constant<Bits<RD_W>>,
    k_gid_entries: Constant<Bits<SGID_W>>,
    k_log2e_min: Constant<Bits<LOG2E_W>>,
    k_sqe_max: Constant<Bits<LOG2E_W>>,
    k_rqe_max: Constant<Bits<LOG2E_W>>,
    k_sqs_min: Constant<Bits<LOG2S_W>>,
    k_rqs_min: Constant<Bits<LOG2S_W>>,
    k_stride_max: Constant<Bits<LOG2S_W>>,
    k_align_log2: Constant<Bits<LOG2S_W>>,
    k_cq_log2_min: Constant<Bits<CQ_LOG2_W>>,
    k_cq_log2_max: Constant<Bits<CQ_LOG2_W>>,
    k_cq_vec_max: Constant<Bits<CQ_VEC_W>>,
    k_cq_align_mask: Constant<Bits<32>>,
    k_cq_log2_lsb: Constant<Bits<5>>,
    k_cq_vec_lsb: Constant<Bits<5>>,
    k_cq_valid: Constant<Bits<32>>,
    k_ref_exists: Constant<Bits<REF_W>>,
    k_ref_one: Constant<Bits<REF_W>>,
    k_ref_zero: Constant<Bits<REF_W>>,
    k_ref_cnt_mask: Constant<Bits<REF_W>>,
    k_kind_create: Constant<Bits<2>>,
    k_kind_destroy: Constant<Bits<2>>,
    k_ci_mask: Constant<Bits<32>>,
    k_fl_zero: Constant<Bits<FLAGS_W>>,
    k_fl_created: Constant<Bits<FLAGS_W>>,
    k_fl_notify: Constant<Bits<FLAGS_W>>,
    k_ti: [Constant<Bits<6>>; NT],
    k_tok: [Constant<Bit>; NT],
    k_treq: [Constant<Bits<32>>; NT],
    k_topt: [Constant<Bits<32>>; NT],

    // ---- locals ----
    qwin_wr: Signal<Local, Bit>,
    cwin_wr: Signal<Local, Bit>,
    qpn16: Signal<Local, Bits<16>>,
    cqn16: Signal<Local, Bits<16>>,
    qpn_bad: Signal<Local, Bit>,
    cqn_bad: Signal<Local, Bit>,
    cur: Signal<Local, Bits<ST_W>>,
    to: Signal<Local, Bits<ST_W>>,
    has_state: Signal<Local, Bit>,
    has_cur: Signal<Local, Bit>,
    has_notify: Signal<Local, Bit>,
    has_access: Signal<Local, Bit>,
    has_av: Signal<Local, Bit>,
    has_pmtu: Signal<Local, Bit>,
    has_rd: Signal<Local, Bit>,
    has_drd: Signal<Local, Bit>,
    has_dqpn: Signal<Local, Bit>,
    has_spsn: Signal<Local, Bit>,
    has_rpsn: Signal<Local, Bit>,
    has_tmr: Signal<Local, Bit>,
    has_create: Signal<Local, Bit>,
    given: Signal<Local, Bits<32>>,
    t_idx: Signal<Local, Bits<6>>,
    t_ok: Signal<Local, Bit>,
    t_req: Signal<Local, Bits<32>>,
    t_opt: Signal<Local, Bits<32>>,
    cur_mismatch: Signal<Local, Bit>,
    missing: Signal<Local, Bit>,
    extra: Signal<Local, Bit>,
    pmtu: Signal<Local, Bits<PMTU_W>>,
    bad_mtu: Signal<Local, Bit>,
    bad_sgid: Signal<Local, Bit>,
    sqe: Signal<Local, Bits<LOG2E_W>>,
    sqs: Signal<Local, Bits<LOG2S_W>>,
    rqe: Signal<Local, Bits<LOG2E_W>>,
    rqs: Signal<Local, Bits<LOG2S_W>>,
    sq_al: Signal<Local, Bits<LOG2S_W>>,
    rq_al: Signal<Local, Bits<LOG2S_W>>,
    scqn16: Signal<Local, Bits<16>>,
    rcqn16: Signal<Local, Bits<16>>,
    bad_create: Signal<Local, Bit>,
    badval: Signal<Local, Bit>,
    reset_all: Signal<Local, Bit>,
    sel_pm: Signal<Local, Bits<32>>,
    sel_rd: Signal<Local, Bits<32>>,
    sel_drd: Signal<Local, Bits<32>>,
    sel_to: Signal<Local, Bits<32>>,
    sel_rt: Signal<Local, Bits<32>>,
    sel_rr: Signal<Local, Bits<32>>,
    sel_mr: Signal<Local, Bits<32>>,
    sel_mtu: Signal<Local, Bits<32>>,
    sel_tmr: Signal<Local, Bits<32>>,
    new_mtu: Signal<Local, Bits<32>>,
    new_tmr: Signal<Local, Bits<32>>,
    new_created: Signal<Local, Bit>,
    new_notify: Signal<Local, Bit>,
    notify_word: Signal<Local, Bits<32>>,
    cq_log2: Signal<Local, Bits<CQ_LOG2_W>>,
    cq_vec: Signal<Local, Bits<CQ_VEC_W>>,
    cq_badval: Signal<Local, Bit>,
    cq_is_create: Signal<Local, Bit>,
    ref_cnt_nz: Signal<Local, Bit>,
    fl_c: Signal<Local, Bits<FLAGS_W>>,
    fl_n: Signal<Local, Bits<FLAGS_W>>,
    q_stat: Signal<Local, Bits<32>>,
    c_stat: Signal<Local, Bits<32>>,
    /// the read multiplexer: leaf `window * 32 + word`, selected by raddr[9] and raddr[6:2]
    rtree: MuxTree<32, 64, 6>,
    k_rd_mask: Constant<Addr>,
    k_rd_match: Constant<Addr>,
}

impl<const QA: usize, const CA: usize> CtxWindows<QA, CA> {
    pub fn new(p: &CsrParams) -> Self {
        assert!(QA <= 16 && CA <= 16);
        check_read_leaves();
        let m = |x: QpAttrMask| konst::<32>(x.0 as u64);
        let f = |x: ferroce_proto::host::Field| konst::<32>(x.mask() as u64);
        let trans: Vec<(bool, u32, u32)> = (0..NT)
            .map(|i| {
                match (
                    QpState::from_u8((i >> 3) as u8),
                    QpState::from_u8((i & 7) as u8),
                ) {
                    (Some(a), Some(b)) => match transition_attrs(a, b) {
                        Some(t) => (true, t.required.0, t.optional.0),
                        None => (false, 0, 0),
                    },
                    _ => (false, 0, 0),
                }
            })
            .collect();
        let r = |x: CmdResult| konst::<8>(x as u64);
        let oob16 = |bits: usize| konst::<16>(0xFFFF & !((1u64 << bits) - 1));
        let align_log2 = ring::MIN_RING_ALIGN.trailing_zeros() as u64;
        let cq_align = (ring::MIN_RING_ALIGN.max(1 << ring::LOG2_CQE_SIZE)) as u64;
        Self {
            clock: Default::default(),
            wr: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            rd: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            cmd_done: Default::default(),
            qmod_valid: Default::default(),
            qmod_ready: Default::default(),
            qmod_qpn: Default::default(),
            qmod_value: Default::default(),
            cnote_valid: Default::default(),
            cnote_ready: Default::default(),
            cnote_kind: Default::default(),
            cnote_cqn: Default::default(),
            cnote_value: Default::default(),
            rtq_req: Default::default(),
            rtq_cq: Default::default(),
            rtq_index: Default::default(),
            rtq_ack: Default::default(),
            rtq_d0: Default::default(),
            rtq_d1: Default::default(),
            rtq_d2: Default::default(),
            qerr_valid: Default::default(),
            qerr_ready: Default::default(),
            qerr_qpn: Default::default(),
            qerr_status: Default::default(),
            qerr_vendor: Default::default(),
            qpc: Default::default(),
            cqc_rd_valid: Default::default(),
            cqc_rd_cqn: Default::default(),
            cqc_valid: Default::default(),
            cqc_exists: Default::default(),
            cqc_base: Default::default(),
            cqc_log2_entries: Default::default(),
            cqc_vector: Default::default(),
            qpt: Default::default(),
            cqt: Default::default(),
            s_qpn: Default::default(),
            s_mask: Default::default(),
            s_state: Default::default(),
            s_access: Default::default(),
            s_pd: Default::default(),
            s_dqpn: Default::default(),
            s_mtu: Default::default(),
            s_tmr: Default::default(),
            s_spsn: Default::default(),
            s_rpsn: Default::default(),
            s_dmac_lo: Default::default(),
            s_dmac_hi: Default::default(),
            s_dgid0: Default::default(),
            s_dgid1: Default::default(),
            s_dgid2: Default::default(),
            s_dgid3: Default::default(),
            s_path: Default::default(),
            s_flow: Default::default(),
            s_sport: Default::default(),
            s_sqb_lo: Default::default(),
            s_sqb_hi: Default::default(),
            s_rqb_lo: Default::default(),
            s_rqb_hi: Default::default(),
            s_ring: Default::default(),
            s_cqn: Default::default(),
            s_sqi: Default::default(),
            s_rqi: Default::default(),
            s_err: Default::default(),
            q_busy: Default::default(),
            q_cmd: Default::default(),
            q_result: Default::default(),
            c_cqn: Default::default(),
            c_base_lo: Default::default(),
            c_base_hi: Default::default(),
            c_cfg: Default::default(),
            c_ci: Default::default(),
            c_pi: Default::default(),
            c_cst: Default::default(),
            c_busy: Default::default(),
            c_cmd: Default::default(),
            c_result: Default::default(),
            st: Default::default(),
            on_cq: Default::default(),
            res: Default::default(),
            clr_pend: Default::default(),
            done_q: Default::default(),
            o_cur: Default::default(),
            o_to: Default::default(),
            e_qpn: Default::default(),
            o_created: Default::default(),
            o_notify: Default::default(),
            o_mtu: Default::default(),
            o_tmr: Default::default(),
            ref_a: Default::default(),
            ref_b: Default::default(),
            ref_inc: Default::default(),
            a_qpn: addr_const(regs::QP_CMD_QPN),
            a_qcmd: addr_const(regs::QP_CMD),
            a_mask: addr_const(regs::QP_ATTR_MASK),
            a_state: addr_const(regs::QP_STATE),
            a_access: addr_const(regs::QP_ACCESS),
            a_pd: addr_const(regs::QP_PD),
            a_dqpn: addr_const(regs::QP_DEST_QPN),
            a_mtu: addr_const(regs::QP_MTU_RD),
            a_tmr: addr_const(regs::QP_TIMERS),
            a_spsn: addr_const(regs::QP_SQ_PSN),
            a_rpsn: addr_const(regs::QP_RQ_PSN),
            a_dmac_lo: addr_const(regs::QP_AV_DMAC_LO),
            a_dmac_hi: addr_const(regs::QP_AV_DMAC_HI),
            a_dgid0: addr_const(regs::QP_AV_DGID0),
            a_dgid1: addr_const(regs::QP_AV_DGID1),
            a_dgid2: addr_const(regs::QP_AV_DGID2),
            a_dgid3: addr_const(regs::QP_AV_DGID3),
            a_path: addr_const(regs::QP_AV_PATH),
            a_flow: addr_const(regs::QP_AV_FLOW),
            a_sport: addr_const(regs::QP_AV_SPORT),
            a_sqb_lo: addr_const(regs::QP_SQ_BASE_LO),
            a_sqb_hi: addr_const(regs::QP_SQ_BASE_HI),
            a_rqb_lo: addr_const(regs::QP_RQ_BASE_LO),
            a_rqb_hi: addr_const(regs::QP_RQ_BASE_HI),
            a_ring: addr_const(regs::QP_RING_CFG),
            a_cqn: addr_const(regs::QP_CQN),
            a_ccqn: addr_const(regs::CQ_CMD_CQN),
            a_ccmd: addr_const(regs::CQ_CMD),
            a_cbase_lo: addr_const(regs::CQ_BASE_LO),
            a_cbase_hi: addr_const(regs::CQ_BASE_HI),
            a_ccfg: addr_const(regs::CQ_CFG),
            a_cci: addr_const(regs::CQ_CI),
            k_modify: konst(qp_cmd::MODIFY as u64),
            k_query: konst(qp_cmd::QUERY as u64),
            k_create: konst(cq_cmd::CREATE as u64),
            k_destroy: konst(cq_cmd::DESTROY as u64),
            k_cquery: konst(cq_cmd::QUERY as u64),
            k_r_ok: r(CmdResult::Ok),
            k_r_index: r(CmdResult::BadIndex),
            k_r_trans: r(CmdResult::BadTransition),
            k_r_missing: r(CmdResult::MissingAttr),
            k_r_value: r(CmdResult::BadValue),
            k_r_inuse: r(CmdResult::InUse),
            k_r_unsup: r(CmdResult::Unsupported),
            k_r_cur: r(CmdResult::CurStateMismatch),
            k_busy_mask: konst(cmd_status::BUSY.mask() as u64),
            k_result_lsb: lsb_const(cmd_status::RESULT),
            k_supported_n: konst(!QpAttrMask::SUPPORTED.0 as u64),
            k_m_state: m(QpAttrMask::STATE),
            k_m_cur: m(QpAttrMask::CUR_STATE),
            k_m_notify: m(QpAttrMask::EN_SQD_ASYNC_NOTIFY),
            k_m_access: m(QpAttrMask::ACCESS_FLAGS),
            k_m_av: m(QpAttrMask::AV),
            k_m_pmtu: m(QpAttrMask::PATH_MTU),
            k_m_timeout: m(QpAttrMask::TIMEOUT),
            k_m_retry: m(QpAttrMask::RETRY_CNT),
            k_m_rnr_retry: m(QpAttrMask::RNR_RETRY),
            k_m_rq_psn: m(QpAttrMask::RQ_PSN),
            k_m_rd: m(QpAttrMask::MAX_QP_RD_ATOMIC),
            k_m_min_rnr: m(QpAttrMask::MIN_RNR_TIMER),
            k_m_sq_psn: m(QpAttrMask::SQ_PSN),
            k_m_drd: m(QpAttrMask::MAX_DEST_RD_ATOMIC),
            k_m_dqpn: m(QpAttrMask::DEST_QPN),
            k_m_create: m(QpAttrMask::CREATE),
            k_f_pmtu: f(qp_mtu_rd::PATH_MTU),
            k_f_rd: f(qp_mtu_rd::MAX_RD_ATOMIC),
            k_f_drd: f(qp_mtu_rd::MAX_DEST_RD_ATOMIC),
            k_f_timeout: f(qp_timers::TIMEOUT),
            k_f_retry: f(qp_timers::RETRY_CNT),
            k_f_rnr_retry: f(qp_timers::RNR_RETRY),
            k_f_min_rnr: f(qp_timers::MIN_RNR_TIMER),
            k_f_notify: f(qp_state::SQD_NOTIFY),
            k_f_drained: f(qp_state::SQ_DRAINED),
            k_st_lsb: lsb_const(qp_state::STATE),
            k_cur_lsb: lsb_const(qp_state::CUR_STATE),
            k_pmtu_lsb: lsb_const(qp_mtu_rd::PATH_MTU),
            k_rd_lsb: lsb_const(qp_mtu_rd::MAX_RD_ATOMIC),
            k_drd_lsb: lsb_const(qp_mtu_rd::MAX_DEST_RD_ATOMIC),
            k_sgid_lsb: lsb_const(qp_av_path::SGID_INDEX),
            k_sqe_lsb: lsb_const(qp_ring_cfg::LOG2_SQ_ENTRIES),
            k_sqs_lsb: lsb_const(qp_ring_cfg::LOG2_SQ_STRIDE),
            k_rqe_lsb: lsb_const(qp_ring_cfg::LOG2_RQ_ENTRIES),
            k_rqs_lsb: lsb_const(qp_ring_cfg::LOG2_RQ_STRIDE),
            k_scqn_lsb: lsb_const(qp_cqn::SEND_CQN),
            k_rcqn_lsb: lsb_const(qp_cqn::RECV_CQN),
            k_st_reset: konst(QpState::Reset as u64),
            k_st_err: konst(QpState::Error as u64),
            k_qpn_oob: oob16(QA),
            k_qpn_min: konst(2),
            k_cqn_oob: oob16(CA),
            k_zero16: konst(0),
            k_zero32: konst(0),
            k_ones32: konst(0xFFFF_FFFF),
            k_pmtu_max: konst(p.max_pmtu as u64),
            k_pmtu_zero: konst(0),
            k_rd_max: konst(p.max_rd_atomic as u64),
            k_drd_max: konst(p.max_dest_rd_atomic as u64),
            k_gid_entries: konst(regs::GID_MAX_ENTRIES as u64),
            k_log2e_min: konst(ring::MIN_LOG2_ENTRIES as u64),
            k_sqe_max: konst(p.max_log2_sq_entries as u64),
            k_rqe_max: konst(p.max_log2_rq_entries as u64),
            k_sqs_min: konst(ring::MIN_LOG2_SQ_STRIDE as u64),
            k_rqs_min: konst(ring::MIN_LOG2_RQ_STRIDE as u64),
            k_stride_max: konst(p.max_log2_stride as u64),
            k_align_log2: konst(align_log2),
            k_cq_log2_min: konst(ring::MIN_LOG2_ENTRIES as u64),
            k_cq_log2_max: konst(p.max_log2_cq_entries as u64),
            k_cq_vec_max: konst((regs::MAX_VECTORS - 1) as u64),
            k_cq_align_mask: konst(cq_align - 1),
            k_cq_log2_lsb: lsb_const(cq_cfg::LOG2_ENTRIES),
            k_cq_vec_lsb: lsb_const(cq_cfg::VECTOR),
            k_cq_valid: konst(cq_cfg::VALID.mask() as u64),
            k_ref_exists: konst(1 << 24),
            k_ref_one: konst(1),
            k_ref_zero: konst(0),
            k_ref_cnt_mask: konst((1 << 24) - 1),
            k_kind_create: konst(CEV_CREATE),
            k_kind_destroy: konst(CEV_DESTROY),
            k_ci_mask: konst(regs::db::CQ_CI.mask() as u64),
            k_fl_zero: konst(0),
            k_fl_created: konst(1 << FLAG_CREATED),
            k_fl_notify: konst(1 << FLAG_NOTIFY),
            k_ti: core::array::from_fn(|i| konst(i as u64)),
            k_tok: core::array::from_fn(|i| Constant::new(trans[i].0)),
            k_treq: core::array::from_fn(|i| konst(trans[i].1 as u64)),
            k_topt: core::array::from_fn(|i| konst(trans[i].2 as u64)),
            qwin_wr: Default::default(),
            cwin_wr: Default::default(),
            qpn16: Default::default(),
            cqn16: Default::default(),
            qpn_bad: Default::default(),
            cqn_bad: Default::default(),
            cur: Default::default(),
            to: Default::default(),
            has_state: Default::default(),
            has_cur: Default::default(),
            has_notify: Default::default(),
            has_access: Default::default(),
            has_av: Default::default(),
            has_pmtu: Default::default(),
            has_rd: Default::default(),
            has_drd: Default::default(),
            has_dqpn: Default::default(),
            has_spsn: Default::default(),
            has_rpsn: Default::default(),
            has_tmr: Default::default(),
            has_create: Default::default(),
            given: Default::default(),
            t_idx: Default::default(),
            t_ok: Default::default(),
            t_req: Default::default(),
            t_opt: Default::default(),
            cur_mismatch: Default::default(),
            missing: Default::default(),
            extra: Default::default(),
            pmtu: Default::default(),
            bad_mtu: Default::default(),
            bad_sgid: Default::default(),
            sqe: Default::default(),
            sqs: Default::default(),
            rqe: Default::default(),
            rqs: Default::default(),
            sq_al: Default::default(),
            rq_al: Default::default(),
            scqn16: Default::default(),
            rcqn16: Default::default(),
            bad_create: Default::default(),
            badval: Default::default(),
            reset_all: Default::default(),
            sel_pm: Default::default(),
            sel_rd: Default::default(),
            sel_drd: Default::default(),
            sel_to: Default::default(),
            sel_rt: Default::default(),
            sel_rr: Default::default(),
            sel_mr: Default::default(),
            sel_mtu: Default::default(),
            sel_tmr: Default::default(),
            new_mtu: Default::default(),
            new_tmr: Default::default(),
            new_created: Default::default(),
            new_notify: Default::default(),
            notify_word: Default::default(),
            cq_log2: Default::default(),
            cq_vec: Default::default(),
            cq_badval: Default::default(),
            cq_is_create: Default::default(),
            ref_cnt_nz: Default::default(),
            fl_c: Default::default(),
            fl_n: Default::default(),
            q_stat: Default::default(),
            c_stat: Default::default(),
            rtree: Default::default(),
            k_rd_mask: addr_const((regs::BAR0_SIZE - 1) & !RD_FREE),
            k_rd_match: addr_const(RD_MATCH),
        }
    }
}

impl<const QA: usize, const CA: usize> Logic for CtxWindows<QA, CA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s_qpn, s_mask, s_state, s_access, s_pd, s_dqpn, s_mtu, s_tmr, s_spsn,
            s_rpsn, s_dmac_lo, s_dmac_hi, s_dgid0, s_dgid1, s_dgid2, s_dgid3, s_path, s_flow,
            s_sport, s_sqb_lo, s_sqb_hi, s_rqb_lo, s_rqb_hi, s_ring, s_cqn, s_sqi, s_rqi, s_err,
            q_busy, q_cmd, q_result, c_cqn, c_base_lo, c_base_hi, c_cfg, c_ci, c_pi, c_cst, c_busy,
            c_cmd, c_result, st, on_cq, res, clr_pend, done_q, o_cur, o_to, e_qpn, o_created,
            o_notify, o_mtu, o_tmr, ref_a, ref_b, ref_inc
        );
        self.qpt.clock.next = self.clock.val();
        self.cqt.clock.next = self.clock.val();
        // engine read ports
        QpcReadSlave::<QA>::link(&mut self.qpc, &mut self.qpt.qpc);
        self.cqt.rd_valid.next = self.cqc_rd_valid.val();
        self.cqt.rd_cqn.next = self.cqc_rd_cqn.val();
        self.cqc_valid.next = self.cqt.cqc_valid.val();
        self.cqc_exists.next = self.cqt.cqc_exists.val();
        self.cqc_base.next = self.cqt.cqc_base.val();
        self.cqc_log2_entries.next = self.cqt.cqc_log2_entries.val();
        self.cqc_vector.next = self.cqt.cqc_vector.val();

        // ================= combinational decode (defaults first) =================
        self.qwin_wr.next = self.wr.val() & !self.q_busy.q.val();
        self.cwin_wr.next = self.wr.val() & !self.c_busy.q.val();
        self.qpn16.next = self.s_qpn.q.val().get_bits::<16>(0);
        self.cqn16.next = self.c_cqn.q.val().get_bits::<16>(0);
        self.qpn_bad.next = ((self.qpn16.val() & self.k_qpn_oob.val()) != self.k_zero16.val())
            | (self.qpn16.val() < self.k_qpn_min.val());
        self.cqn_bad.next = (self.cqn16.val() & self.k_cqn_oob.val()) != self.k_zero16.val();
        // mask bits
        self.has_state.next = (self.s_mask.q.val() & self.k_m_state.val()) != self.k_zero32.val();
        self.has_cur.next = (self.s_mask.q.val() & self.k_m_cur.val()) != self.k_zero32.val();
        self.has_notify.next = (self.s_mask.q.val() & self.k_m_notify.val()) != self.k_zero32.val();
        self.has_access.next = (self.s_mask.q.val() & self.k_m_access.val()) != self.k_zero32.val();
        self.has_av.next = (self.s_mask.q.val() & self.k_m_av.val()) != self.k_zero32.val();
        self.has_pmtu.next = (self.s_mask.q.val() & self.k_m_pmtu.val()) != self.k_zero32.val();
        self.has_rd.next = (self.s_mask.q.val() & self.k_m_rd.val()) != self.k_zero32.val();
        self.has_drd.next = (self.s_mask.q.val() & self.k_m_drd.val()) != self.k_zero32.val();
        self.has_dqpn.next = (self.s_mask.q.val() & self.k_m_dqpn.val()) != self.k_zero32.val();
        self.has_spsn.next = (self.s_mask.q.val() & self.k_m_sq_psn.val()) != self.k_zero32.val();
        self.has_rpsn.next = (self.s_mask.q.val() & self.k_m_rq_psn.val()) != self.k_zero32.val();
        self.has_tmr.next = (self.s_mask.q.val()
            & (self.k_m_timeout.val()
                | self.k_m_retry.val()
                | self.k_m_rnr_retry.val()
                | self.k_m_min_rnr.val()))
            != self.k_zero32.val();
        self.has_create.next = (self.s_mask.q.val() & self.k_m_create.val()) != self.k_zero32.val();
        self.given.next = self.s_mask.q.val() & !self.k_m_state.val();
        // the transition
        self.cur.next = self.qpt.rq_st.val();
        self.to.next = self.qpt.rq_st.val();
        if self.has_state.val() {
            self.to.next = self
                .s_state
                .q
                .val()
                .get_bits::<ST_W>(self.k_st_lsb.val().index());
        }
        self.t_idx.next =
            (bit_cast::<6, ST_W>(self.cur.val()) << 3) | bit_cast::<6, ST_W>(self.to.val());
        self.t_ok.next = false;
        self.t_req.next = self.k_zero32.val();
        self.t_opt.next = self.k_zero32.val();
        if self.st.q.val() == CtxState::QpEval {
            for i in 0..NT {
                if self.t_idx.val() == self.k_ti[i].val() {
                    self.t_ok.next = self.k_tok[i].val();
                    self.t_req.next = self.k_treq[i].val();
                    self.t_opt.next = self.k_topt[i].val();
                }
            }
        }
        self.cur_mismatch.next = self.has_cur.val()
            & (self
                .s_state
                .q
                .val()
                .get_bits::<ST_W>(self.k_cur_lsb.val().index())
                != self.cur.val());
        self.missing.next = (self.t_req.val() & !self.given.val()) != self.k_zero32.val();
        self.extra.next =
            (self.given.val() & !(self.t_req.val() | self.t_opt.val())) != self.k_zero32.val();
        // values
        self.pmtu.next = self
            .s_mtu
            .q
            .val()
            .get_bits::<PMTU_W>(self.k_pmtu_lsb.val().index());
        self.bad_mtu.next = (self.has_pmtu.val()
            & ((self.pmtu.val() == self.k_pmtu_zero.val())
                | (self.pmtu.val() > self.k_pmtu_max.val())))
            | (self.has_rd.val()
                & (self
                    .s_mtu
                    .q
                    .val()
                    .get_bits::<RD_W>(self.k_rd_lsb.val().index())
                    > self.k_rd_max.val()))
            | (self.has_drd.val()
                & (self
                    .s_mtu
                    .q
                    .val()
                    .get_bits::<RD_W>(self.k_drd_lsb.val().index())
                    > self.k_drd_max.val()));
        self.bad_sgid.next = self.has_av.val()
            & (self
                .s_path
                .q
                .val()
                .get_bits::<SGID_W>(self.k_sgid_lsb.val().index())
                >= self.k_gid_entries.val());
        self.sqe.next = self
            .s_ring
            .q
            .val()
            .get_bits::<LOG2E_W>(self.k_sqe_lsb.val().index());
        self.sqs.next = self
            .s_ring
            .q
            .val()
            .get_bits::<LOG2S_W>(self.k_sqs_lsb.val().index());
        self.rqe.next = self
            .s_ring
            .q
            .val()
            .get_bits::<LOG2E_W>(self.k_rqe_lsb.val().index());
        self.rqs.next = self
            .s_ring
            .q
            .val()
            .get_bits::<LOG2S_W>(self.k_rqs_lsb.val().index());
        self.sq_al.next = self.sqs.val();
        if self.sqs.val() < self.k_align_log2.val() {
            self.sq_al.next = self.k_align_log2.val();
        }
        self.rq_al.next = self.rqs.val();
        if self.rqs.val() < self.k_align_log2.val() {
            self.rq_al.next = self.k_align_log2.val();
        }
        self.scqn16.next = self
            .s_cqn
            .q
            .val()
            .get_bits::<16>(self.k_scqn_lsb.val().index());
        self.rcqn16.next = self
            .s_cqn
            .q
            .val()
            .get_bits::<16>(self.k_rcqn_lsb.val().index());
        self.bad_create.next = self.has_create.val()
            & ((self.sqe.val() < self.k_log2e_min.val())
                | (self.sqe.val() > self.k_sqe_max.val())
                | (self.sqs.val() < self.k_sqs_min.val())
                | (self.sqs.val() > self.k_stride_max.val())
                | (self.rqe.val() < self.k_log2e_min.val())
                | (self.rqe.val() > self.k_rqe_max.val())
                | (self.rqs.val() < self.k_rqs_min.val())
                | (self.rqs.val() > self.k_stride_max.val())
                | ((self.s_sqb_lo.q.val() & !(self.k_ones32.val() << self.sq_al.val()))
                    != self.k_zero32.val())
                | ((self.s_rqb_lo.q.val() & !(self.k_ones32.val() << self.rq_al.val()))
                    != self.k_zero32.val())
                | ((self.scqn16.val() & self.k_cqn_oob.val()) != self.k_zero16.val())
                | ((self.rcqn16.val() & self.k_cqn_oob.val()) != self.k_zero16.val()));
        self.badval.next = self.bad_mtu.val() | self.bad_sgid.val() | self.bad_create.val();
        // the write (from the values saved in QpEval)
        self.reset_all.next = self.o_to.q.val() == self.k_st_reset.val();
        self.sel_pm.next = self.k_zero32.val();
        if self.has_pmtu.val() {
            self.sel_pm.next = self.k_f_pmtu.val();
        }
        self.sel_rd.next = self.k_zero32.val();
        if self.has_rd.val() {
            self.sel_rd.next = self.k_f_rd.val();
        }
        self.sel_drd.next = self.k_zero32.val();
        if self.has_drd.val() {
            self.sel_drd.next = self.k_f_drd.val();
        }
        self.sel_to.next = self.k_zero32.val();
        if (self.s_mask.q.val() & self.k_m_timeout.val()) != self.k_zero32.val() {
            self.sel_to.next = self.k_f_timeout.val();
        }
        self.sel_rt.next = self.k_zero32.val();
        if (self.s_mask.q.val() & self.k_m_retry.val()) != self.k_zero32.val() {
            self.sel_rt.next = self.k_f_retry.val();
        }
        self.sel_rr.next = self.k_zero32.val();
        if (self.s_mask.q.val() & self.k_m_rnr_retry.val()) != self.k_zero32.val() {
            self.sel_rr.next = self.k_f_rnr_retry.val();
        }
        self.sel_mr.next = self.k_zero32.val();
        if (self.s_mask.q.val() & self.k_m_min_rnr.val()) != self.k_zero32.val() {
            self.sel_mr.next = self.k_f_min_rnr.val();
        }
        self.sel_mtu.next = self.sel_pm.val() | self.sel_rd.val() | self.sel_drd.val();
        self.sel_tmr.next =
            self.sel_to.val() | self.sel_rt.val() | self.sel_rr.val() | self.sel_mr.val();
        self.new_mtu.next = (bit_cast::<32, MTU_W>(self.o_mtu.q.val()) & !self.sel_mtu.val())
            | (self.s_mtu.q.val() & self.sel_mtu.val());
        self.new_tmr.next = (bit_cast::<32, TMR_W>(self.o_tmr.q.val()) & !self.sel_tmr.val())
            | (self.s_tmr.q.val() & self.sel_tmr.val());
        self.new_created.next = self.o_created.q.val() | self.has_create.val();
        self.new_notify.next = self.o_notify.q.val();
        if self.has_notify.val() {
            self.new_notify.next =
                (self.s_state.q.val() & self.k_f_notify.val()) != self.k_zero32.val();
        }
        self.notify_word.next = self.k_zero32.val();
        if self.qpt.rq_flags.val().get_bit(1) {
            self.notify_word.next = self.k_f_notify.val();
        }
        // CQ command values
        self.cq_log2.next = self
            .c_cfg
            .q
            .val()
            .get_bits::<CQ_LOG2_W>(self.k_cq_log2_lsb.val().index());
        self.cq_vec.next = self
            .c_cfg
            .q
            .val()
            .get_bits::<CQ_VEC_W>(self.k_cq_vec_lsb.val().index());
        self.cq_badval.next = (self.cq_log2.val() < self.k_cq_log2_min.val())
            | (self.cq_log2.val() > self.k_cq_log2_max.val())
            | (self.cq_vec.val() > self.k_cq_vec_max.val())
            | ((self.c_base_lo.q.val() & self.k_cq_align_mask.val()) != self.k_zero32.val());
        self.cq_is_create.next = self.c_cmd.q.val() == self.k_create.val();
        self.ref_cnt_nz.next =
            (self.cqt.rq_ref.val() & self.k_ref_cnt_mask.val()) != self.k_ref_zero.val();

        // ================= table ports: defaults =================
        self.qpt.fsm_rd.next = false;
        self.qpt.fsm_qpn.next = self.s_qpn.q.val().get_bits::<QA>(0);
        self.qpt.wr_qpn.next = self.s_qpn.q.val().get_bits::<QA>(0);
        self.qpt.we_st.next = false;
        self.qpt.we_flags.next = false;
        self.qpt.we_acc.next = false;
        self.qpt.we_create.next = false;
        self.qpt.we_dqpn.next = false;
        self.qpt.we_mtu.next = false;
        self.qpt.we_tmr.next = false;
        self.qpt.we_spsn.next = false;
        self.qpt.we_rpsn.next = false;
        self.qpt.we_av.next = false;
        self.qpt.we_err.next = false;
        self.qpt.wd_st.next = self.o_to.q.val();
        self.fl_c.next = self.k_fl_zero.val();
        if self.new_created.val() {
            self.fl_c.next = self.k_fl_created.val();
        }
        self.fl_n.next = self.k_fl_zero.val();
        if self.new_notify.val() {
            self.fl_n.next = self.k_fl_notify.val();
        }
        self.qpt.wd_flags.next = self.fl_c.val() | self.fl_n.val();
        self.qpt.wd_acc.next = self.s_access.q.val().get_bits::<ACC_W>(0);
        self.qpt.wd_pd.next = self.s_pd.q.val().get_bits::<W24>(0);
        self.qpt.wd_dqpn.next = self.s_dqpn.q.val().get_bits::<W24>(0);
        self.qpt.wd_mtu.next = self.new_mtu.val().get_bits::<MTU_W>(0);
        self.qpt.wd_tmr.next = self.new_tmr.val().get_bits::<TMR_W>(0);
        self.qpt.wd_spsn.next = self.s_spsn.q.val().get_bits::<W24>(0);
        self.qpt.wd_rpsn.next = self.s_rpsn.q.val().get_bits::<W24>(0);
        self.qpt.wd_dmac_lo.next = self.s_dmac_lo.q.val();
        self.qpt.wd_dmac_hi.next = self.s_dmac_hi.q.val().get_bits::<DMACHI_W>(0);
        self.qpt.wd_dgid0.next = self.s_dgid0.q.val();
        self.qpt.wd_dgid1.next = self.s_dgid1.q.val();
        self.qpt.wd_dgid2.next = self.s_dgid2.q.val();
        self.qpt.wd_dgid3.next = self.s_dgid3.q.val();
        self.qpt.wd_path.next = self.s_path.q.val().get_bits::<PATH_W>(0);
        self.qpt.wd_flow.next = self.s_flow.q.val().get_bits::<FLOW_W>(0);
        self.qpt.wd_sport.next = self.s_sport.q.val().get_bits::<SPORT_W>(0);
        self.qpt.wd_sqb_lo.next = self.s_sqb_lo.q.val();
        self.qpt.wd_sqb_hi.next = self.s_sqb_hi.q.val();
        self.qpt.wd_rqb_lo.next = self.s_rqb_lo.q.val();
        self.qpt.wd_rqb_hi.next = self.s_rqb_hi.q.val();
        self.qpt.wd_ring.next = self.s_ring.q.val().get_bits::<RING_W>(0);
        self.qpt.wd_cqn.next = self.s_cqn.q.val();
        self.qpt.wd_err.next = bit_cast::<ERR_W, 8>(self.qerr_vendor.val())
            | (bit_cast::<ERR_W, 8>(self.qerr_status.val()) << 8);
        if self.reset_all.val() {
            self.qpt.wd_st.next = self.k_st_reset.val();
            self.qpt.wd_flags.next = 0.into();
            self.qpt.wd_acc.next = 0.into();
            self.qpt.wd_pd.next = 0.into();
            self.qpt.wd_dqpn.next = 0.into();
            self.qpt.wd_mtu.next = 0.into();
            self.qpt.wd_tmr.next = 0.into();
            self.qpt.wd_spsn.next = 0.into();
            self.qpt.wd_rpsn.next = 0.into();
            self.qpt.wd_dmac_lo.next = 0.into();
            self.qpt.wd_dmac_hi.next = 0.into();
            self.qpt.wd_dgid0.next = 0.into();
            self.qpt.wd_dgid1.next = 0.into();
            self.qpt.wd_dgid2.next = 0.into();
            self.qpt.wd_dgid3.next = 0.into();
            self.qpt.wd_path.next = 0.into();
            self.qpt.wd_flow.next = 0.into();
            self.qpt.wd_sport.next = 0.into();
            self.qpt.wd_sqb_lo.next = 0.into();
            self.qpt.wd_sqb_hi.next = 0.into();
            self.qpt.wd_rqb_lo.next = 0.into();
            self.qpt.wd_rqb_hi.next = 0.into();
            self.qpt.wd_ring.next = 0.into();
            self.qpt.wd_cqn.next = 0.into();
            self.qpt.wd_err.next = 0.into();
        }
        self.qpt.clear.next = false;
        self.cqt.fsm_rd.next = false;
        self.cqt.fsm_cqn.next = self.c_cqn.q.val().get_bits::<CA>(0);
        self.cqt.wr_cqn.next = self.c_cqn.q.val().get_bits::<CA>(0);
        self.cqt.we_cfg.next = false;
        self.cqt.wd_base_lo.next = self.c_base_lo.q.val();
        self.cqt.wd_base_hi.next = self.c_base_hi.q.val();
        self.cqt.wd_cfg.next = self.c_cfg.q.val().get_bits::<CQ_CFG_W>(0);
        self.cqt.wd_exists.next = self.cq_is_create.val();
        if !self.cq_is_create.val() {
            self.cqt.wd_base_lo.next = self.k_zero32.val();
            self.cqt.wd_base_hi.next = self.k_zero32.val();
            self.cqt.wd_cfg.next = 0.into();
        }
        self.cqt.ref_cqn.next = self.ref_a.q.val();
        self.cqt.ref_we.next = false;
        self.cqt.ref_wd.next =
            (self.cqt.rq_ref.val() + self.k_ref_one.val()) | self.k_ref_exists.val();
        if !self.ref_inc.q.val() {
            self.cqt.ref_wd.next =
                (self.cqt.rq_ref.val() - self.k_ref_one.val()) | self.k_ref_exists.val();
        }
        self.cqt.clear.next = false;

        // ================= outputs: defaults =================
        self.qmod_valid.next = false;
        self.qmod_qpn.next = bit_cast::<DB_NUM_BITS, QA>(self.s_qpn.q.val().get_bits::<QA>(0));
        self.qmod_value.next = (bit_cast::<16, ST_W>(self.o_to.q.val()) << self.k_st_lsb.val())
            | (bit_cast::<16, ST_W>(self.o_cur.q.val()) << self.k_cur_lsb.val());
        self.cnote_valid.next = false;
        self.cnote_kind.next = self.k_kind_destroy.val();
        if self.cq_is_create.val() {
            self.cnote_kind.next = self.k_kind_create.val();
        }
        self.cnote_cqn.next = bit_cast::<DB_NUM_BITS, CA>(self.c_cqn.q.val().get_bits::<CA>(0));
        self.cnote_value.next = self.k_zero32.val();
        if self.cq_is_create.val() {
            self.cnote_value.next = self.c_ci.q.val() & self.k_ci_mask.val();
        }
        self.rtq_req.next = false;
        self.rtq_cq.next = self.on_cq.q.val();
        self.rtq_index.next = self.qpn16.val();
        if self.on_cq.q.val() {
            self.rtq_index.next = self.cqn16.val();
        }
        self.qerr_ready.next = false;
        self.done_q.d.next = false;

        // ================= host writes to the windows =================
        if self.qwin_wr.val() {
            if self.waddr.val() == self.a_qpn.val() {
                self.s_qpn.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_qcmd.val() {
                self.q_busy.d.next = true;
                self.q_cmd.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_mask.val() {
                self.s_mask.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_state.val() {
                self.s_state.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_access.val() {
                self.s_access.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_pd.val() {
                self.s_pd.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dqpn.val() {
                self.s_dqpn.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_mtu.val() {
                self.s_mtu.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_tmr.val() {
                self.s_tmr.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_spsn.val() {
                self.s_spsn.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_rpsn.val() {
                self.s_rpsn.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dmac_lo.val() {
                self.s_dmac_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dmac_hi.val() {
                self.s_dmac_hi.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dgid0.val() {
                self.s_dgid0.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dgid1.val() {
                self.s_dgid1.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dgid2.val() {
                self.s_dgid2.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dgid3.val() {
                self.s_dgid3.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_path.val() {
                self.s_path.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_flow.val() {
                self.s_flow.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_sport.val() {
                self.s_sport.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_sqb_lo.val() {
                self.s_sqb_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_sqb_hi.val() {
                self.s_sqb_hi.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_rqb_lo.val() {
                self.s_rqb_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_rqb_hi.val() {
                self.s_rqb_hi.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_ring.val() {
                self.s_ring.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_cqn.val() {
                self.s_cqn.d.next = self.wdata.val();
            }
        }
        if self.cwin_wr.val() {
            if self.waddr.val() == self.a_ccqn.val() {
                self.c_cqn.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_ccmd.val() {
                self.c_busy.d.next = true;
                self.c_cmd.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_cbase_lo.val() {
                self.c_base_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_cbase_hi.val() {
                self.c_base_hi.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_ccfg.val() {
                // VALID (bit 31) is read-only: kept
                self.c_cfg.d.next = (self.wdata.val() & !self.k_cq_valid.val())
                    | (self.c_cfg.q.val() & self.k_cq_valid.val());
            }
            if self.waddr.val() == self.a_cci.val() {
                self.c_ci.d.next = self.wdata.val();
            }
        }
        if self.clear.val() {
            self.clr_pend.d.next = true;
        }

        // ================= the command state machine =================
        match self.st.q.val() {
            CtxState::Idle => {
                self.qerr_ready.next = !self.clr_pend.q.val();
                if self.qerr_valid.val() & !self.clr_pend.q.val() {
                    self.qpt.wr_qpn.next = self.qerr_qpn.val();
                    self.qpt.wd_st.next = self.k_st_err.val();
                    self.qpt.wd_err.next = bit_cast::<ERR_W, 8>(self.qerr_vendor.val())
                        | (bit_cast::<ERR_W, 8>(self.qerr_status.val()) << 8);
                    self.qpt.we_st.next = true;
                    self.qpt.we_err.next = true;
                    self.e_qpn.d.next = self.qerr_qpn.val();
                }
                if self.clr_pend.q.val() {
                    self.st.d.next = CtxState::Clear;
                } else if self.qerr_valid.val() {
                    // the engines hear of it as of a MODIFY into ERR (they flush both queues)
                    self.st.d.next = CtxState::ErrNotify;
                } else if self.c_busy.q.val() {
                    self.on_cq.d.next = true;
                    self.st.d.next = CtxState::CqStart;
                } else if self.q_busy.q.val() {
                    self.on_cq.d.next = false;
                    self.st.d.next = CtxState::QpStart;
                }
            }
            CtxState::Clear => {
                self.qpt.clear.next = true;
                self.cqt.clear.next = true;
                self.clr_pend.d.next = false;
                self.st.d.next = CtxState::ClearWait;
            }
            CtxState::ClearWait => {
                if !self.qpt.clearing.val() & !self.cqt.clearing.val() {
                    self.st.d.next = CtxState::Idle;
                }
            }
            // ---------------- QP ----------------
            CtxState::QpStart => {
                self.st.d.next = CtxState::QpRead;
                if (self.q_cmd.q.val() != self.k_modify.val())
                    & (self.q_cmd.q.val() != self.k_query.val())
                {
                    self.res.d.next = self.k_r_unsup.val();
                    self.st.d.next = CtxState::Finish;
                } else if self.qpn_bad.val() {
                    self.res.d.next = self.k_r_index.val();
                    self.st.d.next = CtxState::Finish;
                } else if (self.q_cmd.q.val() == self.k_modify.val())
                    & ((self.s_mask.q.val() & self.k_supported_n.val()) != self.k_zero32.val())
                {
                    self.res.d.next = self.k_r_unsup.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            CtxState::QpRead => {
                self.qpt.fsm_rd.next = true;
                if self.qpt.fsm_ack.val() {
                    self.st.d.next = CtxState::QpEval;
                }
            }
            CtxState::QpEval => {
                self.o_cur.d.next = self.cur.val();
                self.o_to.d.next = self.to.val();
                self.o_created.d.next = self.qpt.rq_flags.val().get_bit(0);
                self.o_notify.d.next = self.qpt.rq_flags.val().get_bit(1);
                self.o_mtu.d.next = self.qpt.rq_mtu.val();
                self.o_tmr.d.next = self.qpt.rq_tmr.val();
                self.ref_inc.d.next = self.has_create.val();
                self.ref_a.d.next = self
                    .qpt
                    .rq_cqn
                    .val()
                    .get_bits::<CA>(self.k_scqn_lsb.val().index());
                self.ref_b.d.next = self
                    .qpt
                    .rq_cqn
                    .val()
                    .get_bits::<CA>(self.k_rcqn_lsb.val().index());
                if self.has_create.val() {
                    self.ref_a.d.next = self.scqn16.val().get_bits::<CA>(0);
                    self.ref_b.d.next = self.rcqn16.val().get_bits::<CA>(0);
                }
                if self.q_cmd.q.val() == self.k_query.val() {
                    self.s_state.d.next = (bit_cast::<32, ST_W>(self.cur.val())
                        << self.k_st_lsb.val())
                        | (bit_cast::<32, ST_W>(self.cur.val()) << self.k_cur_lsb.val())
                        | self.notify_word.val();
                    self.s_access.d.next = bit_cast::<32, ACC_W>(self.qpt.rq_acc.val());
                    self.s_pd.d.next = bit_cast::<32, W24>(self.qpt.rq_pd.val());
                    self.s_dqpn.d.next = bit_cast::<32, W24>(self.qpt.rq_dqpn.val());
                    self.s_mtu.d.next = bit_cast::<32, MTU_W>(self.qpt.rq_mtu.val());
                    self.s_tmr.d.next = bit_cast::<32, TMR_W>(self.qpt.rq_tmr.val());
                    self.s_spsn.d.next = bit_cast::<32, W24>(self.qpt.rq_spsn.val());
                    self.s_rpsn.d.next = bit_cast::<32, W24>(self.qpt.rq_rpsn.val());
                    self.s_dmac_lo.d.next = self.qpt.rq_dmac_lo.val();
                    self.s_dmac_hi.d.next = bit_cast::<32, DMACHI_W>(self.qpt.rq_dmac_hi.val());
                    self.s_dgid0.d.next = self.qpt.rq_dgid0.val();
                    self.s_dgid1.d.next = self.qpt.rq_dgid1.val();
                    self.s_dgid2.d.next = self.qpt.rq_dgid2.val();
                    self.s_dgid3.d.next = self.qpt.rq_dgid3.val();
                    self.s_path.d.next = bit_cast::<32, PATH_W>(self.qpt.rq_path.val());
                    self.s_flow.d.next = bit_cast::<32, FLOW_W>(self.qpt.rq_flow.val());
                    self.s_sport.d.next = bit_cast::<32, SPORT_W>(self.qpt.rq_sport.val());
                    self.s_sqb_lo.d.next = self.qpt.rq_sqb_lo.val();
                    self.s_sqb_hi.d.next = self.qpt.rq_sqb_hi.val();
                    self.s_rqb_lo.d.next = self.qpt.rq_rqb_lo.val();
                    self.s_rqb_hi.d.next = self.qpt.rq_rqb_hi.val();
                    self.s_ring.d.next = bit_cast::<32, RING_W>(self.qpt.rq_ring.val());
                    self.s_cqn.d.next = self.qpt.rq_cqn.val();
                    self.s_err.d.next = bit_cast::<32, ERR_W>(self.qpt.rq_err.val());
                    self.st.d.next = CtxState::QpRtq;
                } else if self.cur_mismatch.val() {
                    self.res.d.next = self.k_r_cur.val();
                    self.st.d.next = CtxState::Finish;
                } else if !self.t_ok.val() {
                    self.res.d.next = self.k_r_trans.val();
                    self.st.d.next = CtxState::Finish;
                } else if self.missing.val() {
                    self.res.d.next = self.k_r_missing.val();
                    self.st.d.next = CtxState::Finish;
                } else if self.extra.val() | self.badval.val() {
                    self.res.d.next = self.k_r_value.val();
                    self.st.d.next = CtxState::Finish;
                } else if self.has_create.val() {
                    self.st.d.next = CtxState::QpCqA;
                } else {
                    self.st.d.next = CtxState::QpWrite;
                }
            }
            CtxState::QpCqA => {
                self.st.d.next = CtxState::QpCqW;
            }
            CtxState::QpCqW => {
                self.cqt.ref_cqn.next = self.ref_b.q.val();
                self.st.d.next = CtxState::QpCqB;
            }
            CtxState::QpCqB => {
                self.cqt.ref_cqn.next = self.ref_b.q.val();
                if (self.cqt.rq_ref.val() & self.k_ref_exists.val()) == self.k_ref_zero.val() {
                    self.res.d.next = self.k_r_value.val();
                    self.st.d.next = CtxState::Finish;
                } else {
                    self.st.d.next = CtxState::QpCqC;
                }
            }
            CtxState::QpCqC => {
                self.cqt.ref_cqn.next = self.ref_b.q.val();
                if (self.cqt.rq_ref.val() & self.k_ref_exists.val()) == self.k_ref_zero.val() {
                    self.res.d.next = self.k_r_value.val();
                    self.st.d.next = CtxState::Finish;
                } else {
                    self.st.d.next = CtxState::QpWrite;
                }
            }
            CtxState::QpWrite => {
                self.qpt.we_st.next = true;
                self.qpt.we_flags.next = true;
                self.qpt.we_acc.next = self.reset_all.val() | self.has_access.val();
                self.qpt.we_create.next = self.reset_all.val() | self.has_create.val();
                self.qpt.we_dqpn.next = self.reset_all.val() | self.has_dqpn.val();
                self.qpt.we_mtu.next = self.reset_all.val()
                    | self.has_pmtu.val()
                    | self.has_rd.val()
                    | self.has_drd.val();
                self.qpt.we_tmr.next = self.reset_all.val() | self.has_tmr.val();
                self.qpt.we_spsn.next = self.reset_all.val() | self.has_spsn.val();
                self.qpt.we_rpsn.next = self.reset_all.val() | self.has_rpsn.val();
                self.qpt.we_av.next = self.reset_all.val() | self.has_av.val();
                self.qpt.we_err.next = self.reset_all.val();
                if self.has_create.val() | (self.reset_all.val() & self.o_created.q.val()) {
                    self.st.d.next = CtxState::QpRefRdA;
                } else {
                    self.st.d.next = CtxState::QpNotify;
                }
            }
            CtxState::QpRefRdA => {
                self.st.d.next = CtxState::QpRefWrA;
            }
            CtxState::QpRefWrA => {
                self.cqt.ref_we.next = true;
                self.st.d.next = CtxState::QpRefRdB;
            }
            CtxState::QpRefRdB => {
                self.cqt.ref_cqn.next = self.ref_b.q.val();
                self.st.d.next = CtxState::QpRefWaitB;
            }
            CtxState::QpRefWaitB => {
                self.cqt.ref_cqn.next = self.ref_b.q.val();
                self.st.d.next = CtxState::QpRefWrB;
            }
            CtxState::QpRefWrB => {
                self.cqt.ref_cqn.next = self.ref_b.q.val();
                self.cqt.ref_we.next = true;
                self.st.d.next = CtxState::QpNotify;
            }
            CtxState::QpNotify => {
                self.qmod_valid.next = true;
                if self.qmod_ready.val() {
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            CtxState::ErrNotify => {
                // new state ERR; the old one is not read again (reported as ERR too)
                self.qmod_valid.next = true;
                self.qmod_qpn.next = bit_cast::<DB_NUM_BITS, QA>(self.e_qpn.q.val());
                self.qmod_value.next = (bit_cast::<16, ST_W>(self.k_st_err.val())
                    << self.k_st_lsb.val())
                    | (bit_cast::<16, ST_W>(self.k_st_err.val()) << self.k_cur_lsb.val());
                if self.qmod_ready.val() {
                    self.st.d.next = CtxState::Idle;
                }
            }
            CtxState::QpRtq => {
                self.rtq_req.next = true;
                self.st.d.next = CtxState::QpRtqWait;
                if self.rtq_ack.val() {
                    self.s_sqi.d.next = self.rtq_d0.val();
                    self.s_rqi.d.next = self.rtq_d1.val();
                    if self.rtq_d2.val().get_bit(0) {
                        self.s_state.d.next = self.s_state.q.val() | self.k_f_drained.val();
                    }
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            CtxState::QpRtqWait => {
                if self.rtq_ack.val() {
                    self.s_sqi.d.next = self.rtq_d0.val();
                    self.s_rqi.d.next = self.rtq_d1.val();
                    if self.rtq_d2.val().get_bit(0) {
                        self.s_state.d.next = self.s_state.q.val() | self.k_f_drained.val();
                    }
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            // ---------------- CQ ----------------
            CtxState::CqStart => {
                self.cqt.ref_cqn.next = self.c_cqn.q.val().get_bits::<CA>(0);
                self.st.d.next = CtxState::Finish;
                if (self.c_cmd.q.val() != self.k_create.val())
                    & (self.c_cmd.q.val() != self.k_destroy.val())
                    & (self.c_cmd.q.val() != self.k_cquery.val())
                {
                    self.res.d.next = self.k_r_unsup.val();
                } else if self.cqn_bad.val() {
                    self.res.d.next = self.k_r_index.val();
                } else if self.c_cmd.q.val() == self.k_cquery.val() {
                    self.st.d.next = CtxState::CqRead;
                } else if self.cq_is_create.val() & self.cq_badval.val() {
                    self.res.d.next = self.k_r_value.val();
                } else {
                    self.st.d.next = CtxState::CqRef;
                }
            }
            CtxState::CqRef => {
                self.cqt.ref_cqn.next = self.c_cqn.q.val().get_bits::<CA>(0);
                self.st.d.next = CtxState::CqRefEval;
            }
            CtxState::CqRefEval => {
                self.cqt.ref_cqn.next = self.c_cqn.q.val().get_bits::<CA>(0);
                if self.ref_cnt_nz.val() {
                    self.res.d.next = self.k_r_inuse.val();
                    self.st.d.next = CtxState::Finish;
                } else {
                    self.cqt.we_cfg.next = true;
                    self.cqt.ref_we.next = true;
                    self.cqt.ref_wd.next = self.k_ref_zero.val();
                    if self.cq_is_create.val() {
                        self.cqt.ref_wd.next = self.k_ref_exists.val();
                    }
                    self.st.d.next = CtxState::CqNotify;
                }
            }
            CtxState::CqNotify => {
                self.cnote_valid.next = true;
                if self.cnote_ready.val() {
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            CtxState::CqRead => {
                self.cqt.fsm_rd.next = true;
                if self.cqt.fsm_ack.val() {
                    self.st.d.next = CtxState::CqQEval;
                }
            }
            CtxState::CqQEval => {
                self.c_base_lo.d.next = self.cqt.rq_base_lo.val();
                self.c_base_hi.d.next = self.cqt.rq_base_hi.val();
                self.c_cfg.d.next = bit_cast::<32, CQ_CFG_W>(self.cqt.rq_cfg.val());
                if self.cqt.rq_exists.val() {
                    self.c_cfg.d.next =
                        bit_cast::<32, CQ_CFG_W>(self.cqt.rq_cfg.val()) | self.k_cq_valid.val();
                }
                self.st.d.next = CtxState::CqRtq;
            }
            CtxState::CqRtq => {
                self.rtq_req.next = true;
                self.st.d.next = CtxState::CqRtqWait;
                if self.rtq_ack.val() {
                    self.c_pi.d.next = self.rtq_d0.val();
                    self.c_ci.d.next = self.rtq_d1.val();
                    self.c_cst.d.next = self.rtq_d2.val();
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            CtxState::CqRtqWait => {
                if self.rtq_ack.val() {
                    self.c_pi.d.next = self.rtq_d0.val();
                    self.c_ci.d.next = self.rtq_d1.val();
                    self.c_cst.d.next = self.rtq_d2.val();
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = CtxState::Finish;
                }
            }
            CtxState::Finish => {
                self.done_q.d.next = true;
                if self.on_cq.q.val() {
                    self.c_busy.d.next = false;
                    self.c_result.d.next = self.res.q.val();
                } else {
                    self.q_busy.d.next = false;
                    self.q_result.d.next = self.res.q.val();
                }
                self.st.d.next = CtxState::Idle;
            }
        }

        // ================= reads =================
        // A multiplexer tree on the address bits (not a compare per register, `MuxTree`): 2 x
        // 32 leaves `rtree.leaf[window * 32 + word]` (window = raddr[9]: QP 0x800, CQ 0xA00; word = raddr[6:2];
        // write-only and reserved words are 0 leaves). Only the two windows' exact register
        // addresses reach a register (see `RD_MATCH`): every other address reads 0, as before.
        self.q_stat.next = bit_cast::<32, 8>(self.q_result.q.val()) << self.k_result_lsb.val();
        if self.q_busy.q.val() {
            self.q_stat.next = (bit_cast::<32, 8>(self.q_result.q.val())
                << self.k_result_lsb.val())
                | self.k_busy_mask.val();
        }
        self.c_stat.next = bit_cast::<32, 8>(self.c_result.q.val()) << self.k_result_lsb.val();
        if self.c_busy.q.val() {
            self.c_stat.next = (bit_cast::<32, 8>(self.c_result.q.val())
                << self.k_result_lsb.val())
                | self.k_busy_mask.val();
        }
        for i in 0..64 {
            self.rtree.leaf[i].next = self.k_zero32.val();
        }
        self.rtree.leaf[0].next = self.s_qpn.q.val();
        self.rtree.leaf[2].next = self.q_stat.val();
        self.rtree.leaf[3].next = self.s_mask.q.val();
        self.rtree.leaf[4].next = self.s_state.q.val();
        self.rtree.leaf[5].next = self.s_access.q.val();
        self.rtree.leaf[6].next = self.s_pd.q.val();
        self.rtree.leaf[7].next = self.s_dqpn.q.val();
        self.rtree.leaf[8].next = self.s_mtu.q.val();
        self.rtree.leaf[9].next = self.s_tmr.q.val();
        self.rtree.leaf[10].next = self.s_spsn.q.val();
        self.rtree.leaf[11].next = self.s_rpsn.q.val();
        self.rtree.leaf[12].next = self.s_dmac_lo.q.val();
        self.rtree.leaf[13].next = self.s_dmac_hi.q.val();
        self.rtree.leaf[14].next = self.s_dgid0.q.val();
        self.rtree.leaf[15].next = self.s_dgid1.q.val();
        self.rtree.leaf[16].next = self.s_dgid2.q.val();
        self.rtree.leaf[17].next = self.s_dgid3.q.val();
        self.rtree.leaf[18].next = self.s_path.q.val();
        self.rtree.leaf[19].next = self.s_flow.q.val();
        self.rtree.leaf[20].next = self.s_sport.q.val();
        self.rtree.leaf[21].next = self.s_sqb_lo.q.val();
        self.rtree.leaf[22].next = self.s_sqb_hi.q.val();
        self.rtree.leaf[23].next = self.s_rqb_lo.q.val();
        self.rtree.leaf[24].next = self.s_rqb_hi.q.val();
        self.rtree.leaf[25].next = self.s_ring.q.val();
        self.rtree.leaf[26].next = self.s_cqn.q.val();
        self.rtree.leaf[27].next = self.s_sqi.q.val();
        self.rtree.leaf[28].next = self.s_rqi.q.val();
        self.rtree.leaf[29].next = self.s_err.q.val();
        self.rtree.leaf[32].next = self.c_cqn.q.val();
        self.rtree.leaf[34].next = self.c_stat.val();
        self.rtree.leaf[35].next = self.c_base_lo.q.val();
        self.rtree.leaf[36].next = self.c_base_hi.q.val();
        self.rtree.leaf[37].next = self.c_cfg.q.val();
        self.rtree.leaf[38].next = self.c_ci.q.val();
        self.rtree.leaf[39].next = self.c_pi.q.val();
        self.rtree.leaf[40].next = self.c_cst.q.val();
        // index: raddr[6:2] the word, raddr[9] the window
        self.rtree.sel.next = self
            .raddr
            .val()
            .get_bits::<6>(2)
            .replace_bit(5, self.raddr.val().get_bit(9));
        self.rdata.next = self.k_zero32.val();
        if self.rd.val() & ((self.raddr.val() & self.k_rd_mask.val()) == self.k_rd_match.val()) {
            self.rdata.next = self.rtree.out.val();
        }

        // ================= status outputs =================
        self.clearing.next = self.clr_pend.q.val()
            | (self.st.q.val() == CtxState::Clear)
            | (self.st.q.val() == CtxState::ClearWait);
        self.cmd_done.next = self.done_q.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctx_windows_synthesise() {
        let mut uut = CtxWindows::<4, 3>::new(&CsrParams::default());
        super::super::synth_check(&mut uut, "csr_ctx");
    }
}
