//! Test scenarios of [`CsrBlock`], generic over the stepping engine, so the rust-hdl bench tests
//! (`hdl/tests/csr_bus.rs`) and the co-simulation (`hdl/tests/csr_cosim.rs`) run exactly the same
//! AXI stimulus. Every expected value comes from `ferroce_proto::host` (the register table, the
//! command sequences of `QpAttr::modify_writes`, `MrEntry::write_writes`, `CqConfig::create_writes`,
//! the decoders `*::from_window`, `qp::check_modify`). Not synthesised.
use super::bfm::*;
use super::block::CsrBlock;
use super::counters::counter_index;
use super::{
    CsrParams, CEV_ARM, CEV_CI, CEV_CREATE, CEV_DESTROY, DB_FIFO_DEPTH, EVENT_FIFO_DEPTH,
    NUM_COUNTERS, QEV_MODIFY, QEV_RQ, QEV_SQ,
};
use crate::testbench::{Rng, Stepper};
use ferroce_proto::host::config::{mac_writes, Gid, GidEntry, GidType};
use ferroce_proto::host::cq::{self, ArmMode, CqConfig, CqQuery};
use ferroce_proto::host::event::{AsyncEvent, AsyncEventType};
use ferroce_proto::host::mr::{make_key, MrEntry};
use ferroce_proto::host::qp::{
    check_modify, AccessFlags, AddressVector, Pmtu, QpAttr, QpAttrMask, QpCreate, QpQuery, QpState,
    MAX_LOG2_SQ_PSN_WINDOW,
};
use ferroce_proto::host::regs::{
    self, cfg_status, cmd_status, irq_status, Access, CmdResult, CmdStatus,
};
use ferroce_proto::host::ring::{Ring, RingKind};
use ferroce_proto::host::{ring, RegWrite};
use std::collections::HashMap;

type Result = core::result::Result<CmdResult, u8>;

fn res(s: CmdStatus) -> Result {
    s.result
}

const OK: Result = Ok(CmdResult::Ok);

/// The three MODIFY masks of a connection (HOST-INTERFACE 7.2).
pub fn connect_masks() -> [(QpState, QpAttrMask); 3] {
    use QpAttrMask as M;
    [
        (
            QpState::Init,
            M::STATE | M::PKEY_INDEX | M::PORT | M::ACCESS_FLAGS | M::CREATE,
        ),
        (
            QpState::Rtr,
            M::STATE
                | M::AV
                | M::PATH_MTU
                | M::DEST_QPN
                | M::RQ_PSN
                | M::MAX_DEST_RD_ATOMIC
                | M::MIN_RNR_TIMER,
        ),
        (
            QpState::Rts,
            M::STATE | M::SQ_PSN | M::TIMEOUT | M::RETRY_CNT | M::RNR_RETRY | M::MAX_QP_RD_ATOMIC,
        ),
    ]
}

fn aligned(rng: &mut Rng, align: u64) -> u64 {
    rng.next_u64() & !(align - 1)
}

/// Random, valid QP attributes (values within `p`'s limits) using the given CQs.
pub fn random_attr(rng: &mut Rng, p: &CsrParams, send_cqn: u16, recv_cqn: u16) -> QpAttr {
    let mut g = [0u8; 16];
    g.copy_from_slice(&rng.bytes(16));
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&rng.bytes(6));
    let sqs = rng.range(
        ring::MIN_LOG2_SQ_STRIDE as usize,
        p.max_log2_stride as usize,
    ) as u8;
    let rqs = rng.range(
        ring::MIN_LOG2_RQ_STRIDE as usize,
        p.max_log2_stride as usize,
    ) as u8;
    let sq = Ring::new(RingKind::Send, 1, sqs).unwrap();
    let rq = Ring::new(RingKind::Recv, 1, rqs).unwrap();
    QpAttr {
        state: QpState::Reset,
        cur_state: QpState::Reset,
        en_sqd_async_notify: rng.percent(50),
        access: AccessFlags(rng.below(16) as u32),
        pkey_index: 0,
        port: 1,
        av: AddressVector {
            dmac: mac,
            dgid: Gid(g),
            sgid_index: rng.below(regs::GID_MAX_ENTRIES as u64) as u8,
            traffic_class: rng.next_u64() as u8,
            use_default_dscp: rng.percent(50),
            hop_limit: rng.next_u64() as u8,
            flow_label: rng.below(1 << 20) as u32,
            udp_sport: rng.next_u64() as u16,
        },
        path_mtu: Pmtu::ALL[rng.below(p.max_pmtu as u64) as usize],
        timeout: rng.below(32) as u8,
        retry_cnt: rng.below(8) as u8,
        rnr_retry: rng.below(8) as u8,
        min_rnr_timer: rng.below(32) as u8,
        rq_psn: rng.below(1 << 24) as u32,
        sq_psn: rng.below(1 << 24) as u32,
        max_rd_atomic: rng.below(p.max_rd_atomic as u64 + 1) as u8,
        max_dest_rd_atomic: rng.below(p.max_dest_rd_atomic as u64 + 1) as u8,
        dest_qpn: rng.below(1 << 24) as u32,
        create: QpCreate {
            pd: rng.below(1 << 24) as u32,
            sq_base: aligned(rng, sq.align()),
            sq_log2_entries: rng.range(
                ring::MIN_LOG2_ENTRIES as usize,
                p.max_log2_sq_entries as usize,
            ) as u8,
            sq_log2_stride: sqs,
            rq_base: aligned(rng, rq.align()),
            rq_log2_entries: rng.range(
                ring::MIN_LOG2_ENTRIES as usize,
                p.max_log2_rq_entries as usize,
            ) as u8,
            rq_log2_stride: rqs,
            send_cqn,
            recv_cqn,
            sq_log2_psn_window: rng.below(MAX_LOG2_SQ_PSN_WINDOW as u64 + 1) as u8,
        },
    }
}

/// A random CQ configuration.
pub fn random_cq(rng: &mut Rng, p: &CsrParams) -> CqConfig {
    CqConfig {
        base: aligned(rng, 64),
        log2_entries: rng.range(
            ring::MIN_LOG2_ENTRIES as usize,
            p.max_log2_cq_entries as usize,
        ) as u8,
        vector: rng.below(regs::MAX_VECTORS as u64) as u8,
        ci: rng.below(1 << 24) as u32,
    }
}

/// The QP window registers (for `*::from_window`).
pub fn window<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    lo: u32,
    hi: u32,
) -> HashMap<u32, u32> {
    let offs: Vec<u32> = regs::REGISTERS
        .iter()
        .filter(|r| r.offset >= lo && r.offset < hi)
        .map(|r| r.offset)
        .collect();
    let v = c.read_burst(&offs);
    offs.into_iter().zip(v).collect()
}

/// The fields on the QP config read port (`qpc`) in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpcOut {
    pub state: u8,
    pub sqd_notify: bool,
    pub access: u32,
    pub pd: u32,
    pub dest_qpn: u32,
    pub pmtu: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub min_rnr_timer: u8,
    pub sq_psn: u32,
    pub rq_psn: u32,
    pub dmac: u64,
    pub dgid: u128,
    pub sgid_index: u8,
    pub traffic_class: u8,
    pub hop_limit: u8,
    pub default_dscp: bool,
    pub flow_label: u32,
    pub udp_sport: u16,
    pub sq_base: u64,
    pub rq_base: u64,
    pub sq_log2_entries: u8,
    pub sq_log2_stride: u8,
    pub rq_log2_entries: u8,
    pub rq_log2_stride: u8,
    pub send_cqn: u16,
    pub recv_cqn: u16,
}

impl QpcOut {
    /// What the read port must show for a QP holding `a` in state `state`.
    pub fn expect(a: &QpAttr, state: QpState, notify: bool) -> QpcOut {
        let mut mac = [0u8; 8];
        mac[2..].copy_from_slice(&a.av.dmac);
        QpcOut {
            state: state as u8,
            sqd_notify: notify,
            access: a.access.0,
            pd: a.create.pd,
            dest_qpn: a.dest_qpn,
            pmtu: a.path_mtu.ibv_enum(),
            max_rd_atomic: a.max_rd_atomic,
            max_dest_rd_atomic: a.max_dest_rd_atomic,
            timeout: a.timeout,
            retry_cnt: a.retry_cnt,
            rnr_retry: a.rnr_retry,
            min_rnr_timer: a.min_rnr_timer,
            sq_psn: a.sq_psn,
            rq_psn: a.rq_psn,
            dmac: u64::from_be_bytes(mac),
            dgid: u128::from_be_bytes(a.av.dgid.0),
            sgid_index: a.av.sgid_index,
            traffic_class: a.av.traffic_class,
            hop_limit: a.av.hop_limit,
            default_dscp: a.av.use_default_dscp,
            flow_label: a.av.flow_label,
            udp_sport: a.av.udp_sport,
            sq_base: a.create.sq_base,
            rq_base: a.create.rq_base,
            sq_log2_entries: a.create.sq_log2_entries,
            sq_log2_stride: a.create.sq_log2_stride,
            rq_log2_entries: a.create.rq_log2_entries,
            rq_log2_stride: a.create.rq_log2_stride,
            send_cqn: a.create.send_cqn,
            recv_cqn: a.create.recv_cqn,
        }
    }

    fn sample<const QA: usize, const CA: usize, const MA: usize>(
        u: &CsrBlock<QA, CA, MA>,
    ) -> Option<QpcOut> {
        if !u.qpc.valid.val() {
            return None;
        }
        Some(QpcOut {
            state: u.qpc.state.val().to_u64() as u8,
            sqd_notify: u.qpc.sqd_notify.val(),
            access: u.qpc.access.val().to_u64() as u32,
            pd: u.qpc.pd.val().to_u64() as u32,
            dest_qpn: u.qpc.dest_qpn.val().to_u64() as u32,
            pmtu: u.qpc.pmtu.val().to_u64() as u8,
            max_rd_atomic: u.qpc.max_rd_atomic.val().to_u64() as u8,
            max_dest_rd_atomic: u.qpc.max_dest_rd_atomic.val().to_u64() as u8,
            timeout: u.qpc.timeout.val().to_u64() as u8,
            retry_cnt: u.qpc.retry_cnt.val().to_u64() as u8,
            rnr_retry: u.qpc.rnr_retry.val().to_u64() as u8,
            min_rnr_timer: u.qpc.min_rnr_timer.val().to_u64() as u8,
            sq_psn: u.qpc.sq_psn.val().to_u64() as u32,
            rq_psn: u.qpc.rq_psn.val().to_u64() as u32,
            dmac: u.qpc.dmac.val().to_u64(),
            dgid: u.qpc.dgid.val().to_u128(),
            sgid_index: u.qpc.sgid_index.val().to_u64() as u8,
            traffic_class: u.qpc.traffic_class.val().to_u64() as u8,
            hop_limit: u.qpc.hop_limit.val().to_u64() as u8,
            default_dscp: u.qpc.default_dscp.val(),
            flow_label: u.qpc.flow_label.val().to_u64() as u32,
            udp_sport: u.qpc.udp_sport.val().to_u64() as u16,
            sq_base: u.qpc.sq_base.val().to_u64(),
            rq_base: u.qpc.rq_base.val().to_u64(),
            sq_log2_entries: u.qpc.sq_log2_entries.val().to_u64() as u8,
            sq_log2_stride: u.qpc.sq_log2_stride.val().to_u64() as u8,
            rq_log2_entries: u.qpc.rq_log2_entries.val().to_u64() as u8,
            rq_log2_stride: u.qpc.rq_log2_stride.val().to_u64() as u8,
            send_cqn: u.qpc.send_cqn.val().to_u64() as u16,
            recv_cqn: u.qpc.recv_cqn.val().to_u64() as u16,
        })
    }
}

/// Read the QP config read port for `qpns`, one request per cycle (or with random gaps), and
/// check the fixed latency of 2; returns the outputs in request order.
pub fn qpc_read<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    qpns: &[u32],
    gaps: u32,
) -> Vec<QpcOut> {
    let mut issued: Vec<u64> = vec![];
    let mut out: Vec<(u64, QpcOut)> = vec![];
    let mut i = 0;
    while out.len() < qpns.len() {
        let cyc = c.s.cycles();
        let req = if i < qpns.len() && !c.rng.percent(gaps) {
            Some(qpns[i])
        } else {
            None
        };
        let o = c.cycle(
            |u, rng| {
                idle_axi(u, rng);
                u.qpc.rd_qpn.next = (rng.next_u64() & ((1 << QA) - 1)).into();
                if let Some(q) = req {
                    u.qpc.rd_valid.next = true;
                    u.qpc.rd_qpn.next = (q as u64).into();
                }
            },
            QpcOut::sample,
        );
        if req.is_some() {
            issued.push(cyc);
            i += 1;
        }
        if let Some(o) = o {
            out.push((cyc, o));
        }
        assert!(i >= out.len(), "qpc.valid without a read");
        assert!(
            out.len() + 4 > issued.len() || i < qpns.len(),
            "read port stuck"
        );
    }
    for (k, (cyc, _)) in out.iter().enumerate() {
        assert_eq!(*cyc, issued[k] + 2, "QP config read port latency");
    }
    out.into_iter().map(|x| x.1).collect()
}

// =====================================================================================
// Scenarios
// =====================================================================================

/// Identity registers: the build parameters and the proto constants.
pub fn identity<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
) {
    let want = p.identity(QA, CA, MA);
    let got = c.read_burst(&want.iter().map(|x| x.0).collect::<Vec<_>>());
    for (k, (off, v)) in want.iter().enumerate() {
        assert_eq!(got[k], *v, "{}", super::reg_info(*off).name);
    }
    assert_eq!(c.read(regs::ID_MAGIC), regs::MAGIC);
    assert_eq!(c.read(regs::ID_VERSION), regs::VERSION_REG);
    assert_eq!(c.read(regs::ID_NUM_QPS), 1 << QA);
    assert_eq!(c.read(regs::ID_NUM_CQS), 1 << CA);
    assert_eq!(c.read(regs::ID_NUM_MRS), 1 << MA);
}

/// Bits of RW registers that are read-only (VALID flags set by QUERY).
pub fn ro_bits(offset: u32) -> u32 {
    if offset == regs::MR_ACCESS {
        regs::mr_access::VALID.mask()
    } else if offset == regs::CQ_CFG {
        regs::cq_cfg::VALID.mask()
    } else {
        0
    }
}

/// The register table as the oracle: every non-doorbell register element. RW: the reset value,
/// then random values read back; RO: writes ignored; WO: reads 0; W1C: writing ones clears;
/// reserved offsets read 0 and ignore writes. Leaves the block with random staging values.
pub fn register_map<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
) {
    let elems: Vec<(&'static regs::RegisterInfo, u32)> = regs::REGISTERS
        .iter()
        .filter(|r| r.offset < regs::DB_QP_BASE)
        .flat_map(|r| (0..r.count).map(move |n| (r, r.at(n))))
        .collect();
    // 1. values after reset
    let first = c.read_burst(&elems.iter().map(|e| e.1).collect::<Vec<_>>());
    for ((r, off), v) in elems.iter().zip(&first) {
        match r.access {
            Access::RW => assert_eq!(*v, r.reset, "{} at {off:#x}: reset value", r.name),
            Access::WO => assert_eq!(*v, 0, "{} at {off:#x}: write-only reads 0", r.name),
            Access::W1C => assert_eq!(*v, 0, "{} at {off:#x}: nothing pending", r.name),
            Access::RO => {}
        }
    }
    // 2. RO: writes ignored; W1C: writing ones leaves 0
    let ro: Vec<(u32, u32)> = elems
        .iter()
        .filter(|e| matches!(e.0.access, Access::RO | Access::W1C))
        .map(|e| (e.1, c.rng.next_u64() as u32 | 1))
        .collect();
    c.write_burst(&ro);
    for ((r, off), v) in elems.iter().zip(&first) {
        if matches!(r.access, Access::RO | Access::W1C) {
            assert_eq!(
                c.read(*off),
                *v,
                "{} at {off:#x}: write must be ignored",
                r.name
            );
        }
    }
    // 3. RW: random values read back (twice, different values)
    for _ in 0..2 {
        let rw: Vec<(u32, u32)> = elems
            .iter()
            .filter(|e| e.0.access == Access::RW)
            .map(|e| (e.1, c.rng.next_u64() as u32))
            .collect();
        let before: Vec<u32> = c.read_burst(&rw.iter().map(|x| x.0).collect::<Vec<_>>());
        c.write_burst(&rw);
        let after = c.read_burst(&rw.iter().map(|x| x.0).collect::<Vec<_>>());
        for (k, (off, v)) in rw.iter().enumerate() {
            let m = ro_bits(*off);
            assert_eq!(
                after[k],
                (v & !m) | (before[k] & m),
                "{} at {off:#x}",
                super::reg_info(*off).name
            );
        }
    }
    // 4. WO: reads 0 (commands get an unknown code: Unsupported)
    for (r, off) in elems.iter().filter(|e| e.0.access == Access::WO) {
        let v = if *off == regs::CFG_RESET {
            1
        } else {
            0xDEAD_0000 | (c.rng.next_u64() as u32 & 0xFF00)
        };
        c.write(*off, v);
        if *off == regs::CFG_RESET {
            wait_ready(c);
        }
        for st in [
            regs::QP_CMD_STATUS,
            regs::MR_CMD_STATUS,
            regs::CQ_CMD_STATUS,
        ] {
            let s = c.wait_cmd(st);
            if (*off == regs::QP_CMD && st == regs::QP_CMD_STATUS)
                || (*off == regs::MR_CMD && st == regs::MR_CMD_STATUS)
                || (*off == regs::CQ_CMD && st == regs::CQ_CMD_STATUS)
            {
                assert_eq!(res(s), Ok(CmdResult::Unsupported), "{}", r.name);
            }
        }
        assert_eq!(c.read(*off), 0, "{} reads 0", r.name);
    }
    if c.timing.max_delay > 0 {
        assert!(
            c.aw_first > 10 && c.w_first > 10 && c.together > 10,
            "AW/W orders: {} {} {}",
            c.aw_first,
            c.w_first,
            c.together
        );
    }
    // 5. reserved offsets and doorbells read 0; writes to reserved offsets change nothing
    let mut gaps = vec![];
    let mut off = 0;
    while off < regs::CNT_BASE + 0x200 {
        if regs::decode(off).is_none() {
            gaps.push(off);
        }
        off += 4;
    }
    gaps.extend([0x2000, 0x8_0000, regs::BAR0_SIZE / 2 - 4]);
    let pick: Vec<u32> = (0..40)
        .map(|_| gaps[c.rng.below(gaps.len() as u64) as usize])
        .collect();
    let before = c.read_burst(&elems.iter().map(|e| e.1).collect::<Vec<_>>());
    let junk: Vec<(u32, u32)> = pick.iter().map(|a| (*a, c.rng.next_u64() as u32)).collect();
    c.write_burst(&junk);
    assert!(
        c.read_burst(&pick).iter().all(|v| *v == 0),
        "reserved offsets read 0"
    );
    let db = [
        regs::sq_doorbell(2),
        regs::rq_doorbell(3),
        regs::cq_ci_doorbell(1),
        regs::cq_arm_doorbell(1),
    ];
    assert!(
        c.read_burst(&db).iter().all(|v| *v == 0),
        "doorbells read 0"
    );
    let after = c.read_burst(&elems.iter().map(|e| e.1).collect::<Vec<_>>());
    for (k, (r, off)) in elems.iter().enumerate() {
        if !matches!(r.access, Access::W1C) && *off != regs::CFG_STATUS {
            assert_eq!(
                after[k], before[k],
                "{} at {off:#x} changed by a write to a reserved offset",
                r.name
            );
        }
    }
}

/// Wait for CFG_STATUS.READY.
pub fn wait_ready<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
) {
    for _ in 0..100_000 {
        if c.read(regs::CFG_STATUS) & cfg_status::READY != 0 {
            return;
        }
    }
    panic!("CFG_STATUS.READY never came back");
}

/// Create the CQs `cqns` (random configs) unless they exist already (an earlier scenario on
/// the same block); returns their configurations.
pub fn create_cqs<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
    cqns: &[u32],
) -> Vec<CqConfig> {
    cqns.iter()
        .map(|&n| {
            assert_eq!(res(c.command(&CqConfig::query_writes(n))), OK);
            let w = window(c, regs::CQ_WIN_BASE, regs::CNT_BASE);
            let q = CqQuery::from_window(|o| w[&o]);
            if q.valid {
                return q.config;
            }
            let cfg = random_cq(&mut c.rng, p);
            let n_ev = c.cev.len();
            assert_eq!(
                res(c.command(&cfg.create_writes(n).unwrap())),
                OK,
                "CQ {n} CREATE"
            );
            c.idle(4);
            assert_eq!(
                c.cev[n_ev..].last(),
                Some(&CEv {
                    kind: CEV_CREATE,
                    cqn: n,
                    value: cfg.ci
                })
            );
            cfg
        })
        .collect()
}

/// MODIFY `qpn` to RESET (allowed from any state) so a scenario starts from a clean QP.
pub fn reset_qp<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    qpn: u32,
) {
    let a = QpAttr {
        state: QpState::Reset,
        ..QpAttr::default()
    };
    assert_eq!(
        res(c.command(&a.modify_writes(qpn, QpAttrMask::STATE).unwrap())),
        OK,
        "QP {qpn} to RESET"
    );
}

/// The current state of `qpn` (QUERY).
pub fn qp_state_of<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    qpn: u32,
) -> QpState {
    assert_eq!(res(c.command(&QpQuery::writes(qpn))), OK);
    QpState::from_u8(regs::qp_state::STATE.get(c.read(regs::QP_STATE)) as u8).unwrap()
}

/// QP programming exactly as `QpAttr::modify_writes` produces it (RESET->INIT->RTR->RTS for
/// `nqp` random QPNs, including the largest), then the read port and QUERY against the
/// attributes.
pub fn qp_programming<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
    nqp: usize,
) {
    let ncq = 1u32 << CA;
    let cqns = [0, ncq - 1, 3 + c.rng.below(ncq as u64 - 4) as u32];
    create_cqs(c, p, &cqns);
    let mut qpns = vec![(1u32 << QA) - 1, 2];
    while qpns.len() < nqp {
        let q = 2 + c.rng.below((1u64 << QA) - 2) as u32;
        if !qpns.contains(&q) {
            qpns.push(q);
        }
    }
    let mut attrs = vec![];
    for &q in &qpns {
        reset_qp(c, q);
        let (s, r) = (
            cqns[c.rng.below(3) as usize] as u16,
            cqns[c.rng.below(3) as usize] as u16,
        );
        let mut a = random_attr(&mut c.rng, p, s, r);
        let mut from = QpState::Reset;
        for (to, mask) in connect_masks() {
            a.state = to;
            let n_ev = c.qev.len();
            let w = a.modify_writes(q, mask).unwrap();
            assert_eq!(res(c.command(&w)), OK, "QP {q} {from:?}->{to:?}");
            c.idle(3);
            let ev = QEv {
                kind: QEV_MODIFY,
                qpn: q,
                value: (to as u32) | ((from as u32) << 4),
            };
            assert_eq!(c.qev[n_ev..], [ev], "MODIFY notification");
            from = to;
        }
        attrs.push(a);
    }
    // the read port: back to back, then with gaps, in random order
    let exp: HashMap<u32, QpcOut> = qpns
        .iter()
        .zip(&attrs)
        .map(|(q, a)| (*q, QpcOut::expect(a, QpState::Rts, false)))
        .collect();
    for gaps in [0, 40] {
        let mut order = qpns.clone();
        for k in (1..order.len()).rev() {
            order.swap(k, c.rng.below(k as u64 + 1) as usize);
        }
        let got = qpc_read(c, &order, gaps);
        for (q, o) in order.iter().zip(got) {
            assert_eq!(o, exp[q], "read port of QP {q}");
        }
    }
    // QUERY through the window
    for (&q, a) in qpns.iter().zip(&attrs) {
        let rt = [
            c.rng.next_u64() as u32,
            c.rng.next_u64() as u32,
            c.rng.below(2) as u32,
        ];
        c.rtq_data.insert((false, q), rt);
        let n_log = c.rtq_log.len();
        assert_eq!(res(c.command(&QpQuery::writes(q))), OK);
        assert_eq!(c.rtq_log[n_log..], [(false, q)]);
        let w = window(c, regs::QP_WIN_BASE, regs::MR_WIN_BASE);
        let got = QpQuery::from_window(|o| w[&o]).unwrap();
        let mut want = *a;
        want.state = QpState::Rts;
        want.cur_state = QpState::Rts;
        want.en_sqd_async_notify = false;
        assert_eq!(got.attr, want, "QUERY of QP {q}");
        assert_eq!(
            (got.sq_producer as u32, got.sq_consumer as u32),
            (rt[0] & 0xFFFF, rt[0] >> 16)
        );
        assert_eq!(
            (got.rq_producer as u32, got.rq_consumer as u32),
            (rt[1] & 0xFFFF, rt[1] >> 16)
        );
        assert_eq!(got.sq_drained, rt[2] & 1 == 1);
        assert_eq!((got.err_status, got.err_vendor), (0, 0));
    }
}

/// The hardware's MODIFY check, from proto's `check_modify` plus the CSR rules (module
/// documentation of `ctx`): BadIndex, Unsupported, CurStateMismatch, then `check_modify`, then
/// the CQs of CREATE must exist. Values are valid unless `bad_value`.
pub fn expected_modify(
    qpn: u32,
    nqps: u32,
    current: QpState,
    mask: QpAttrMask,
    attr: &QpAttr,
    cq_exists: &dyn Fn(u16) -> bool,
    bad_value: bool,
) -> CmdResult {
    if qpn < 2 || qpn >= nqps {
        return CmdResult::BadIndex;
    }
    if !mask.difference(QpAttrMask::SUPPORTED).is_empty() {
        return CmdResult::Unsupported;
    }
    if mask.contains(QpAttrMask::CUR_STATE) && attr.cur_state != current {
        return CmdResult::CurStateMismatch;
    }
    match check_modify(current, mask, attr.state) {
        Err(e) => e.result(),
        Ok(_) if bad_value => CmdResult::BadValue,
        Ok(_)
            if mask.contains(QpAttrMask::CREATE)
                && !(cq_exists(attr.create.send_cqn) && cq_exists(attr.create.recv_cqn)) =>
        {
            CmdResult::BadValue
        }
        Ok(_) => CmdResult::Ok,
    }
}

/// Random MODIFY commands (legal and illegal transitions, missing and extra attributes,
/// unsupported mask bits, CUR_STATE, bad values, bad QPNs) against a model of the QP states;
/// every result code must be the one `expected_modify` gives.
pub fn qp_transitions<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
    ncmd: usize,
) {
    use QpAttrMask as M;
    let nqps = 1u32 << QA;
    let ncq = 1u32 << CA;
    let existing = [1u32, 2];
    create_cqs(c, p, &existing);
    // other CQNs a QP may name: out of range, or whatever earlier scenarios left
    let others = [4u32, ncq - 2, ncq];
    let mut valid: Vec<u32> = existing.to_vec();
    for &n in &others[..2] {
        assert_eq!(res(c.command(&CqConfig::query_writes(n))), OK);
        if c.read(regs::CQ_CFG) & regs::cq_cfg::VALID.mask() != 0 {
            valid.push(n);
        }
    }
    let cq_exists = |n: u16| valid.contains(&(n as u32));
    let qpns = [2u32, 3, nqps - 1];
    let mut model: HashMap<u32, QpState> = HashMap::new();
    for q in qpns {
        let st = qp_state_of(c, q);
        model.insert(q, st);
    }
    let optional_pool = [
        M::CUR_STATE,
        M::EN_SQD_ASYNC_NOTIFY,
        M::ACCESS_FLAGS,
        M::PKEY_INDEX,
        M::PORT,
        M::AV,
        M::PATH_MTU,
        M::TIMEOUT,
        M::RETRY_CNT,
        M::RNR_RETRY,
        M::RQ_PSN,
        M::MAX_QP_RD_ATOMIC,
        M::MIN_RNR_TIMER,
        M::SQ_PSN,
        M::MAX_DEST_RD_ATOMIC,
        M::DEST_QPN,
        M::CREATE,
    ];
    let unsupported = [
        M::QKEY,
        M::ALT_PATH,
        M::PATH_MIG_STATE,
        M::CAP,
        QpAttrMask(1 << 21),
        QpAttrMask(1 << 30),
    ];
    let mut seen: HashMap<CmdResult, usize> = HashMap::new();
    for i in 0..ncmd {
        let r = c.rng.below(100);
        let qpn = if r < 4 {
            [0u32, 1, nqps, 0xFFFF][c.rng.below(4) as usize]
        } else {
            qpns[c.rng.below(qpns.len() as u64) as usize]
        };
        let cur = *model.get(&qpn).unwrap_or(&QpState::Reset);
        // target: mostly a legal next state, sometimes anything
        let to = if c.rng.percent(70) {
            let legal: Vec<QpState> = QpState::ALL
                .iter()
                .copied()
                .filter(|t| ferroce_proto::host::qp::transition_allowed(cur, *t))
                .collect();
            legal[c.rng.below(legal.len() as u64) as usize]
        } else {
            QpState::ALL[c.rng.below(7) as usize]
        };
        let scq = if c.rng.percent(85) {
            existing[c.rng.below(2) as usize]
        } else {
            others[c.rng.below(3) as usize]
        };
        let rcq = if c.rng.percent(85) {
            existing[c.rng.below(2) as usize]
        } else {
            others[c.rng.below(3) as usize]
        };
        let mut a = random_attr(&mut c.rng, p, scq as u16, rcq as u16);
        a.state = to;
        a.cur_state = if c.rng.percent(80) {
            cur
        } else {
            QpState::ALL[c.rng.below(7) as usize]
        };
        let mut mask = if c.rng.percent(90) { M::STATE } else { M::NONE };
        if let Some(t) = ferroce_proto::host::qp::transition_attrs(cur, to) {
            // required, each dropped with a small probability
            for b in 0..32 {
                let m = QpAttrMask(1 << b);
                if t.required.contains(m) && !c.rng.percent(8) {
                    mask = mask | m;
                }
                if t.optional.contains(m) && c.rng.percent(40) {
                    mask = mask | m;
                }
            }
        }
        if c.rng.percent(10) {
            mask = mask | optional_pool[c.rng.below(optional_pool.len() as u64) as usize];
        }
        if c.rng.percent(5) {
            mask = mask | unsupported[c.rng.below(unsupported.len() as u64) as usize];
        }
        let mut w = a.modify_writes(qpn, mask).unwrap();
        // a bad value for an attribute in the mask (the driver's checks bypassed)
        let mut bad_value = false;
        if c.rng.percent(12) {
            let choices: Vec<(QpAttrMask, u32, u32)> = vec![
                (
                    M::PATH_MTU,
                    regs::QP_MTU_RD,
                    [0u32, 6, 7][c.rng.below(3) as usize],
                ),
                (
                    M::MAX_QP_RD_ATOMIC,
                    regs::QP_MTU_RD,
                    (p.max_rd_atomic as u32 + 1 + c.rng.below(50) as u32) << 8,
                ),
                (
                    M::MAX_DEST_RD_ATOMIC,
                    regs::QP_MTU_RD,
                    (p.max_dest_rd_atomic as u32 + 1) << 16 | 3,
                ),
                (M::AV, regs::QP_AV_PATH, 16 + c.rng.below(200) as u32),
                // RQ log2 entries 16, then SQ stride 5
                (M::CREATE, regs::QP_RING_CFG, 0x0610_0606),
                (M::CREATE, regs::QP_RING_CFG, 0x0601_0506),
                (M::CREATE, regs::QP_SQ_BASE_LO, 0x20),
                (M::CREATE, regs::QP_CQN, 1 << CA),
            ];
            let (m, off, v) = choices[c.rng.below(choices.len() as u64) as usize];
            if mask.contains(m) {
                if let Some(x) = w.iter_mut().find(|x| x.offset == off) {
                    if off == regs::QP_MTU_RD {
                        // keep the other fields valid
                        let f = if m == M::PATH_MTU {
                            regs::qp_mtu_rd::PATH_MTU
                        } else if m == M::MAX_QP_RD_ATOMIC {
                            regs::qp_mtu_rd::MAX_RD_ATOMIC
                        } else {
                            regs::qp_mtu_rd::MAX_DEST_RD_ATOMIC
                        };
                        x.value = f.set(x.value, f.get(v));
                    } else {
                        x.value = v;
                    }
                    bad_value = true;
                }
            }
        }
        let want = expected_modify(qpn, nqps, cur, mask, &a, &cq_exists, bad_value);
        let n_ev = c.qev.len();
        let got = res(c.command(&w));
        assert_eq!(
            got,
            Ok(want),
            "command {i}: QP {qpn} {cur:?}->{to:?} mask {:#x} (bad value {bad_value})",
            mask.0
        );
        *seen.entry(want).or_default() += 1;
        c.idle(3);
        if want == CmdResult::Ok {
            let to = if mask.contains(M::STATE) { to } else { cur };
            model.insert(qpn, to);
            assert_eq!(
                c.qev[n_ev..],
                [QEv {
                    kind: QEV_MODIFY,
                    qpn,
                    value: (to as u32) | ((cur as u32) << 4)
                }]
            );
        } else {
            assert_eq!(c.qev.len(), n_ev, "no notification for a refused MODIFY");
        }
    }
    for r in [
        CmdResult::Ok,
        CmdResult::BadTransition,
        CmdResult::MissingAttr,
        CmdResult::BadValue,
        CmdResult::Unsupported,
        CmdResult::BadIndex,
    ] {
        if ncmd >= 200 {
            assert!(
                seen.get(&r).copied().unwrap_or(0) > 0,
                "no {r:?} in {seen:?}"
            );
        }
    }
    // the states through QUERY
    for (&q, &s) in &model {
        assert_eq!(res(c.command(&QpQuery::writes(q))), OK);
        let st = c.read(regs::QP_STATE);
        assert_eq!(
            regs::qp_state::STATE.get(st),
            s as u32,
            "QUERY state of QP {q}"
        );
    }
}

/// MR programming from `proto::host::mr` through the window into the MR table, QUERY read-back,
/// lookups on the MR port, INVALIDATE with its drain handshake, and the refusals.
pub fn mr_programming<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    n: usize,
) {
    let nmr = 1u32 << MA;
    let mut entries = vec![];
    for k in 0..n {
        let index = match k {
            0 => 0,
            1 => nmr - 1,
            _ => c.rng.below(nmr as u64) as u32,
        };
        let mut acc = c.rng.below(16) as u32;
        if acc & (AccessFlags::REMOTE_WRITE.0 | AccessFlags::REMOTE_ATOMIC.0) != 0 {
            acc |= AccessFlags::LOCAL_WRITE.0;
        }
        let length = (c.rng.next_u64() & ((1 << 40) - 1)) + 1;
        let e = MrEntry {
            key: make_key(index, c.rng.next_u64() as u8),
            pd: c.rng.below(1 << 24) as u32,
            access: AccessFlags(acc),
            va: c.rng.next_u64() >> 2,
            length,
            dma: c.rng.next_u64() >> 2,
        };
        assert_eq!(
            res(c.command(&e.write_writes().unwrap())),
            OK,
            "MR WRITE {index}"
        );
        entries.retain(|x: &MrEntry| x.index() != index);
        entries.push(e);
    }
    for e in &entries {
        assert_eq!(res(c.command(&MrEntry::query_writes(e.index()))), OK);
        let w = window(c, regs::MR_WIN_BASE, regs::CQ_WIN_BASE);
        assert_eq!(
            MrEntry::from_window(|o| w[&o]),
            (*e, true),
            "QUERY of MR {}",
            e.index()
        );
        // a lookup that passes and one with a wrong PD
        let addr = e.va + c.rng.next_u64() % e.length;
        let r = mr_lookup(c, e.key, e.pd, 0, addr, 1);
        assert!(
            r.0 && r.1
                == e.check(true, e.key, e.pd, AccessFlags::NONE, addr, 1)
                    .unwrap(),
            "lookup {r:?}"
        );
        let r = mr_lookup(c, e.key, e.pd ^ 1, 0, addr, 1);
        assert!(!r.0, "wrong PD must fail");
    }
    // INVALIDATE with the drain handshake
    let e = entries[0];
    let drains = c.drains;
    assert_eq!(res(c.command(&MrEntry::invalidate_writes(e.index()))), OK);
    assert_eq!(
        c.drains,
        drains + 1,
        "INVALIDATE waits for the drain handshake"
    );
    assert_eq!(res(c.command(&MrEntry::query_writes(e.index()))), OK);
    let w = window(c, regs::MR_WIN_BASE, regs::CQ_WIN_BASE);
    assert_eq!(MrEntry::from_window(|o| w[&o]), (e, false));
    assert!(!mr_lookup(c, e.key, e.pd, 0, e.va, 1).0);
    // refusals
    let good = entries[entries.len() - 1];
    let with = |c: &mut Csr<S, QA, CA, MA>, f: &dyn Fn(&mut Vec<RegWrite>)| {
        let mut w = good.write_writes().unwrap();
        f(&mut w);
        res(c.command(&w))
    };
    let set = |w: &mut Vec<RegWrite>, off: u32, v: u32| {
        w.iter_mut().find(|x| x.offset == off).unwrap().value = v
    };
    assert_eq!(
        with(c, &|w| set(w, regs::MR_CMD_INDEX, nmr)),
        Ok(CmdResult::BadIndex)
    );
    assert_eq!(
        with(c, &|w| set(w, regs::MR_CMD_INDEX, 0xFFFF_FFFF)),
        Ok(CmdResult::BadIndex)
    );
    assert_eq!(
        with(c, &|w| set(w, regs::MR_KEY, good.key ^ 0x100)),
        Ok(CmdResult::BadValue)
    );
    assert_eq!(
        with(c, &|w| set(w, regs::MR_ACCESS, AccessFlags::REMOTE_WRITE.0)),
        Ok(CmdResult::BadValue)
    );
    assert_eq!(
        with(c, &|w| set(
            w,
            regs::MR_ACCESS,
            AccessFlags::REMOTE_ATOMIC.0 | 4
        )),
        Ok(CmdResult::BadValue)
    );
    assert_eq!(
        with(c, &|w| set(w, regs::MR_ACCESS, 0x10 | 1)),
        Ok(CmdResult::BadValue)
    );
    assert_eq!(
        with(c, &|w| {
            set(w, regs::MR_VA_HI, 0xFFFF_FFFF);
            set(w, regs::MR_LEN_HI, 1);
        }),
        Ok(CmdResult::BadValue)
    );
    assert_eq!(
        with(c, &|w| {
            set(w, regs::MR_DMA_LO, 0xFFFF_FFFF);
            set(w, regs::MR_DMA_HI, 0xFFFF_FFFF);
            set(w, regs::MR_LEN_LO, 1);
            set(w, regs::MR_LEN_HI, 0);
        }),
        Ok(CmdResult::BadValue)
    );
    // exactly at the top is fine: va + len = 2^64 - 1
    assert_eq!(
        with(c, &|w| {
            set(w, regs::MR_VA_LO, 0xFFFF_FFFE);
            set(w, regs::MR_VA_HI, 0xFFFF_FFFF);
            set(w, regs::MR_LEN_LO, 1);
            set(w, regs::MR_LEN_HI, 0);
        }),
        OK
    );
    assert_eq!(
        with(c, &|w| set(w, regs::MR_CMD, 7)),
        Ok(CmdResult::Unsupported)
    );
    assert_eq!(
        res(c.command(&MrEntry::invalidate_writes(nmr + 3))),
        Ok(CmdResult::BadIndex)
    );
}

/// One lookup on the MR port: (ok, translated address).
pub fn mr_lookup<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    key: u32,
    pd: u32,
    need: u8,
    va: u64,
    len: u64,
) -> (bool, u64) {
    let mut sent = false;
    for _ in 0..20 {
        let s = sent;
        let (acc, r) = c.cycle(
            |u, rng| {
                idle_axi(u, rng);
                if !s {
                    u.mr_req_valid.next = true;
                    u.mr_req_key.next = (key as u64).into();
                    u.mr_req_pd.next = (pd as u64).into();
                    u.mr_req_need.next = (need as u64).into();
                    u.mr_req_va.next = va.into();
                    u.mr_req_len.next = len.into();
                    u.mr_req_remote.next = false;
                    u.mr_req_tag.next = 0x5A.into();
                }
            },
            |u| {
                let acc = u.mr_req_valid.val() && u.mr_req_ready.val();
                let r = if u.mr_resp_valid.val() {
                    assert_eq!(u.mr_resp_tag.val().to_u64(), 0x5A);
                    Some((u.mr_resp_ok.val(), u.mr_resp_addr.val().to_u64()))
                } else {
                    None
                };
                (acc, r)
            },
        );
        sent |= acc;
        if let Some(r) = r {
            return r;
        }
    }
    panic!("no MR lookup response");
}

/// CQ commands: CREATE / QUERY / DESTROY with the notifications, the refusals (BadIndex,
/// BadValue, InUse while a QP references the CQ, Unsupported), and the CQ doorbells.
pub fn cq_programming<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
) {
    let ncq = 1u32 << CA;
    let cqns = [0, ncq - 1, 3];
    let cfgs = create_cqs(c, p, &cqns);
    for (&n, cfg) in cqns.iter().zip(&cfgs) {
        let rt = [
            c.rng.below(1 << 24) as u32,
            c.rng.below(1 << 24) as u32,
            c.rng.below(8) as u32,
        ];
        c.rtq_data.insert((true, n), rt);
        assert_eq!(res(c.command(&CqConfig::query_writes(n))), OK);
        let w = window(c, regs::CQ_WIN_BASE, regs::CNT_BASE);
        let q = CqQuery::from_window(|o| w[&o]);
        let mut want = *cfg;
        want.ci = rt[1];
        assert_eq!(q.config, want, "QUERY of CQ {n}");
        assert!(q.valid);
        assert_eq!(q.pi, rt[0]);
        assert_eq!(
            (q.armed, q.armed_solicited, q.overflow),
            (rt[2] & 1 != 0, rt[2] & 2 != 0, rt[2] & 4 != 0)
        );
    }
    // refusals
    let good = random_cq(&mut c.rng, p);
    let mut w = good.create_writes(5).unwrap();
    w[0].value = ncq;
    assert_eq!(res(c.command(&w)), Ok(CmdResult::BadIndex));
    for cfgword in [0u32, (p.max_log2_cq_entries as u32 + 1), 4 | (32 << 8)] {
        let mut w = good.create_writes(5).unwrap();
        w.iter_mut()
            .find(|x| x.offset == regs::CQ_CFG)
            .unwrap()
            .value = cfgword;
        assert_eq!(
            res(c.command(&w)),
            Ok(CmdResult::BadValue),
            "CQ_CFG {cfgword:#x}"
        );
    }
    let mut w = good.create_writes(5).unwrap();
    w.iter_mut()
        .find(|x| x.offset == regs::CQ_BASE_LO)
        .unwrap()
        .value |= 0x20;
    assert_eq!(
        res(c.command(&w)),
        Ok(CmdResult::BadValue),
        "misaligned CQ base"
    );
    let mut w = good.create_writes(5).unwrap();
    w.last_mut().unwrap().value = 9;
    assert_eq!(res(c.command(&w)), Ok(CmdResult::Unsupported));
    // InUse: a QP in INIT names CQ 3
    reset_qp(c, 5);
    let mut a = random_attr(&mut c.rng, p, 3, 0);
    a.state = QpState::Init;
    assert_eq!(
        res(c.command(&a.modify_writes(5, connect_masks()[0].1).unwrap())),
        OK
    );
    assert_eq!(
        res(c.command(&CqConfig::destroy_writes(3))),
        Ok(CmdResult::InUse)
    );
    assert_eq!(
        res(c.command(&CqConfig::destroy_writes(0))),
        Ok(CmdResult::InUse)
    );
    assert_eq!(
        res(c.command(&cfgs[2].create_writes(3).unwrap())),
        Ok(CmdResult::InUse),
        "re-CREATE of a referenced CQ"
    );
    // QP to ERR keeps the reference; to RESET drops it
    a.state = QpState::Error;
    assert_eq!(
        res(c.command(&a.modify_writes(5, QpAttrMask::STATE).unwrap())),
        OK
    );
    assert_eq!(
        res(c.command(&CqConfig::destroy_writes(3))),
        Ok(CmdResult::InUse)
    );
    a.state = QpState::Reset;
    assert_eq!(
        res(c.command(&a.modify_writes(5, QpAttrMask::STATE).unwrap())),
        OK
    );
    let n_ev = c.cev.len();
    assert_eq!(res(c.command(&CqConfig::destroy_writes(3))), OK);
    assert_eq!(res(c.command(&CqConfig::destroy_writes(0))), OK);
    c.idle(4);
    assert_eq!(
        c.cev[n_ev..],
        [
            CEv {
                kind: CEV_DESTROY,
                cqn: 3,
                value: 0
            },
            CEv {
                kind: CEV_DESTROY,
                cqn: 0,
                value: 0
            }
        ]
    );
    assert_eq!(res(c.command(&CqConfig::query_writes(3))), OK);
    assert!(!CqQuery::from_window(|o| c_read(c, o)).valid);
    // a QP cannot be created on a destroyed CQ
    a.state = QpState::Init;
    assert_eq!(
        res(c.command(&a.modify_writes(5, connect_masks()[0].1).unwrap())),
        Ok(CmdResult::BadValue)
    );
    // CQ doorbells
    let n_ev = c.cev.len();
    let ci = c.rng.below(1 << 24) as u32;
    let arm = cq::arm_doorbell(ncq - 1, ci, ArmMode::Solicited);
    c.run(&[cq::ci_doorbell(ncq - 1, ci), arm]);
    c.idle(6);
    assert_eq!(
        c.cev[n_ev..],
        [
            CEv {
                kind: CEV_CI,
                cqn: ncq - 1,
                value: ci
            },
            CEv {
                kind: CEV_ARM,
                cqn: ncq - 1,
                value: arm.value
            }
        ]
    );
    assert_eq!(
        cq::decode_arm(c.cev.last().unwrap().value).unwrap(),
        (ci, ArmMode::Solicited)
    );
}

fn c_read<S: Stepper<CsrBlock<QA, CA, MA>>, const QA: usize, const CA: usize, const MA: usize>(
    c: &mut Csr<S, QA, CA, MA>,
    off: u32,
) -> u32 {
    c.read(off)
}

/// Doorbells for random QPNs and CQNs (including 0, the largest implemented and some beyond,
/// which are dropped), as a burst with random consumer back-pressure; then a burst into a
/// stalled consumer, which must hold the bus (awready/wready low) and lose nothing.
pub fn doorbells<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    n: usize,
) {
    let (nq, ncq) = (1u32 << QA, 1u32 << CA);
    let mut writes = vec![];
    let mut exp_q = vec![];
    let mut exp_c = vec![];
    for k in 0..n {
        let pick = |rng: &mut Rng, lim: u32| -> u32 {
            match rng.below(10) {
                0 => 0,
                1 => lim - 1,
                2 => lim + rng.below((regs::MAX_QPS - lim) as u64) as u32,
                _ => rng.below(lim as u64) as u32,
            }
        };
        let v = c.rng.next_u64() as u32;
        let forced = match k {
            0 => Some((0, 0u32)),
            1 => Some((1, nq - 1)),
            2 => Some((2, 0)),
            3 => Some((3, ncq - 1)),
            _ => None,
        };
        let (kind, num) = forced.unwrap_or_else(|| {
            let kind = c.rng.below(4);
            let lim = if kind < 2 { nq } else { ncq };
            (kind, pick(&mut c.rng, lim))
        });
        let off = match kind {
            0 => regs::sq_doorbell(num),
            1 => regs::rq_doorbell(num),
            2 => regs::cq_ci_doorbell(num),
            _ => regs::cq_arm_doorbell(num),
        };
        assert_eq!(
            regs::Doorbell::decode(off),
            Some(match kind {
                0 => regs::Doorbell::Sq(num),
                1 => regs::Doorbell::Rq(num),
                2 => regs::Doorbell::CqCi(num),
                _ => regs::Doorbell::CqArm(num),
            })
        );
        writes.push((off, v));
        if kind < 2 && num < nq {
            exp_q.push(QEv {
                kind: if kind == 0 { QEV_SQ } else { QEV_RQ },
                qpn: num,
                value: regs::db::PRODUCER.get(v),
            });
        }
        if kind >= 2 && num < ncq {
            exp_c.push(CEv {
                kind: if kind == 2 { CEV_CI } else { CEV_ARM },
                cqn: num,
                value: v,
            });
        }
    }
    let (q0, c0) = (c.qev.len(), c.cev.len());
    c.qev_stall = 50;
    c.cev_stall = 50;
    c.write_burst(&writes);
    c.idle(4 * DB_FIFO_DEPTH + 20);
    assert_eq!(c.qev[q0..], exp_q[..], "QP doorbell events");
    assert_eq!(c.cev[c0..], exp_c[..], "CQ doorbell events");
    // a stalled consumer: the FIFO fills, the bus is held, nothing is lost
    let k = 3 * DB_FIFO_DEPTH;
    let burst: Vec<(u32, u32)> = (0..k as u32)
        .map(|i| (regs::sq_doorbell(2 + i % (nq - 2)), i))
        .collect();
    let q0 = c.qev.len();
    let held0 = c.held_cycles;
    let start = c.s.cycles();
    c.qev_stall = 0;
    c.hook = Some(Box::new(move |u, cyc| {
        if cyc < start + 60 {
            u.qev_ready.next = false;
        }
    }));
    c.write_burst(&burst);
    c.idle(2 * k + 10);
    c.hook = None;
    c.cev_stall = 0;
    assert!(
        c.held_cycles > held0 + 20,
        "a full FIFO must hold the bus ({} cycles)",
        c.held_cycles - held0
    );
    let got: Vec<(u32, u32)> = c.qev[q0..].iter().map(|e| (e.qpn, e.value)).collect();
    let want: Vec<(u32, u32)> = burst
        .iter()
        .map(|(o, v)| ((o - regs::DB_SQ) / regs::DB_QP_STRIDE, *v))
        .collect();
    assert_eq!(got, want, "doorbells lost or reordered under back-pressure");
}

/// Async events, IRQ_STATUS / IRQ_ENABLE / vectors / masks, CQ interrupts, CMD_DONE, FATAL.
pub fn events_and_irqs<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
) {
    let push = |c: &mut Csr<S, QA, CA, MA>, e: AsyncEvent| {
        c.cycle(
            |u, rng| {
                idle_axi(u, rng);
                u.ev_valid.next = true;
                u.ev_type.next = (e.ty as u64).into();
                u.ev_id.next = (e.id as u64).into();
                u.ev_status.next = (e.status as u64).into();
                u.ev_vendor.next = (e.vendor_err as u64).into();
            },
            |_| (),
        )
    };
    let types = [
        AsyncEventType::CqErr,
        AsyncEventType::QpFatal,
        AsyncEventType::QpReqErr,
        AsyncEventType::QpAccessErr,
        AsyncEventType::CommEst,
        AsyncEventType::SqDrained,
        AsyncEventType::DeviceFatal,
    ];
    // clear pending state from earlier scenarios
    c.write_burst(&[
        (regs::IRQ_ENABLE, 0),
        (regs::IRQ_VEC_MASK, 0),
        (regs::IRQ_STATUS, !0),
        (regs::IRQ_VEC_PENDING, !0),
    ]);
    let n_irq0 = c.irq.len();
    assert_eq!(
        AsyncEvent::decode(c.read(regs::ASYNC_EVENT), c.read(regs::ASYNC_EVENT_INFO)).unwrap(),
        None
    );
    let lost0 = c.read(regs::ASYNC_EVENT_LOST);
    let evs: Vec<AsyncEvent> = (0..EVENT_FIFO_DEPTH + 3)
        .map(|_| AsyncEvent {
            ty: types[c.rng.below(types.len() as u64) as usize],
            id: c.rng.below(1 << 24) as u32,
            status: c.rng.next_u64() as u8,
            vendor_err: c.rng.next_u64() as u8,
        })
        .collect();
    for e in &evs {
        push(c, *e);
    }
    assert_eq!(
        c.read(regs::ASYNC_EVENT_LOST),
        lost0 + 3,
        "events beyond the FIFO depth are counted"
    );
    assert_ne!(c.read(regs::IRQ_STATUS) & irq_status::ASYNC, 0);
    for e in &evs[..EVENT_FIFO_DEPTH] {
        // reads have no side effects: read twice
        for _ in 0..2 {
            let v = c.read_burst(&[regs::ASYNC_EVENT, regs::ASYNC_EVENT_INFO]);
            assert_eq!(AsyncEvent::decode(v[0], v[1]).unwrap(), Some(*e));
        }
        c.write(regs::ASYNC_EVENT_POP, 0);
    }
    assert_eq!(
        c.read(regs::ASYNC_EVENT) & regs::async_event::VALID.mask(),
        0,
        "FIFO empty"
    );
    c.write(regs::IRQ_STATUS, irq_status::ASYNC);
    assert_eq!(c.read(regs::IRQ_STATUS) & irq_status::ASYNC, 0, "W1C");
    assert_eq!(c.irq.len(), n_irq0, "no interrupt while nothing is enabled");
    // enabled cause -> control vector
    c.write_burst(&[
        (regs::IRQ_CTRL_VECTOR, 5),
        (regs::IRQ_ENABLE, irq_status::ASYNC | irq_status::CMD_DONE),
    ]);
    let n_irq = c.irq.len();
    push(c, evs[0]);
    c.idle(2);
    assert_eq!(
        c.irq[n_irq..].iter().map(|x| x.1).collect::<Vec<_>>(),
        [1 << 5]
    );
    assert_ne!(c.read(regs::IRQ_VEC_PENDING) & (1 << 5), 0);
    assert_ne!(c.uut().irq_level.val().to_u64() & (1 << 5), 0);
    // masked: pending set, no pulse, no level
    c.write_burst(&[
        (regs::IRQ_VEC_PENDING, 1 << 5),
        (regs::IRQ_VEC_MASK, 1 << 5),
    ]);
    let n_irq = c.irq.len();
    push(c, evs[1]);
    c.idle(2);
    assert_eq!(c.irq.len(), n_irq, "masked vector sends no pulse");
    assert_ne!(c.read(regs::IRQ_VEC_PENDING) & (1 << 5), 0);
    assert_eq!(c.uut().irq_level.val().to_u64() & (1 << 5), 0);
    c.write_burst(&[(regs::IRQ_VEC_MASK, 0), (regs::IRQ_VEC_PENDING, !0)]);
    // CMD_DONE on a command
    let n_irq = c.irq.len();
    c.command(&[
        RegWrite::new(regs::QP_CMD_QPN, 0),
        RegWrite::new(regs::QP_CMD, regs::qp_cmd::QUERY),
    ]);
    c.idle(2);
    assert_eq!(
        c.irq[n_irq..].iter().map(|x| x.1).collect::<Vec<_>>(),
        [1 << 5]
    );
    assert_ne!(c.read(regs::IRQ_STATUS) & irq_status::CMD_DONE, 0);
    // CQ interrupt on its vector
    let n_irq = c.irq.len();
    c.cycle(
        |u, rng| {
            idle_axi(u, rng);
            u.cq_irq_valid.next = true;
            u.cq_irq_vector.next = 30.into();
        },
        |_| (),
    );
    c.idle(2);
    assert_eq!(
        c.irq[n_irq..].iter().map(|x| x.1).collect::<Vec<_>>(),
        [1 << 30]
    );
    assert_ne!(c.read(regs::IRQ_VEC_PENDING) & (1 << 30), 0);
    // FATAL and link
    c.cycle(
        |u, rng| {
            idle_axi(u, rng);
            u.fatal_set.next = true;
        },
        |_| (),
    );
    c.uut().link_up.next = true;
    let st = c.read(regs::CFG_STATUS);
    assert_eq!(
        st & (cfg_status::FATAL | cfg_status::LINK_UP | cfg_status::READY),
        cfg_status::FATAL | cfg_status::LINK_UP | cfg_status::READY
    );
    assert_ne!(c.read(regs::IRQ_STATUS) & irq_status::FATAL, 0);
    c.uut().link_up.next = false;
    c.write_burst(&[
        (regs::IRQ_ENABLE, 0),
        (regs::IRQ_STATUS, !0),
        (regs::IRQ_VEC_PENDING, !0),
    ]);
    let _ = cmd_status::BUSY;
}

/// Counters: random increments (bytes counters by random amounts) for `cycles` cycles, then
/// every LO/HI pair read (LO first) against a model.
pub fn counters<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    cycles: usize,
) {
    let offs: Vec<u32> = regs::counters().map(|(_, o)| o).collect();
    let base = c.read_burst(&offs.iter().flat_map(|o| [*o, o + 4]).collect::<Vec<_>>());
    let mut model: Vec<u64> = (0..NUM_COUNTERS)
        .map(|i| base[2 * i] as u64 | (base[2 * i + 1] as u64) << 32)
        .collect();
    let rxb = counter_index(regs::CNT_RX_BYTES_LO);
    let txb = counter_index(regs::CNT_TX_BYTES_LO);
    for _ in 0..cycles {
        // about a quarter of the counters move each cycle (NUM_COUNTERS may exceed 64 bits)
        let inc: Vec<bool> = (0..NUM_COUNTERS).map(|_| c.rng.percent(25)).collect();
        let mut inc_bits = rust_hdl::prelude::Bits::<NUM_COUNTERS>::default();
        for (i, on) in inc.iter().enumerate() {
            inc_bits = inc_bits.replace_bit(i, *on);
        }
        let (rb, tb) = (c.rng.next_u64() & 0xFFFF, c.rng.next_u64() & 0xFFFF);
        c.cycle(
            |u, rng| {
                idle_axi(u, rng);
                u.cnt_inc.next = inc_bits;
                u.cnt_rx_bytes.next = rb.into();
                u.cnt_tx_bytes.next = tb.into();
            },
            |_| (),
        );
        for (i, m) in model.iter_mut().enumerate() {
            if inc[i] {
                *m += if i == rxb {
                    rb
                } else if i == txb {
                    tb
                } else {
                    1
                };
            }
        }
    }
    let got = c.read_burst(&offs.iter().flat_map(|o| [*o, o + 4]).collect::<Vec<_>>());
    for (i, (name, _)) in regs::counters().enumerate() {
        let v = got[2 * i] as u64 | (got[2 * i + 1] as u64) << 32;
        assert_eq!(
            v,
            model[i] & ((1 << super::COUNTER_BITS) - 1),
            "counter {name}"
        );
    }
}

/// Configuration outputs: MAC (applied by the HI write), GID table, CFG words, CC parameters.
pub fn config_outputs<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
) {
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&c.rng.bytes(6));
    let before = c.uut().cfg_mac.val().to_u64();
    let [lo, hi] = mac_writes(mac);
    c.write(lo.offset, lo.value);
    assert_eq!(
        c.uut().cfg_mac.val().to_u64(),
        before,
        "the LO write alone does not apply"
    );
    c.write(hi.offset, hi.value);
    let mut m8 = [0u8; 8];
    m8[2..].copy_from_slice(&mac);
    assert_eq!(
        c.uut().cfg_mac.val().to_u64(),
        u64::from_be_bytes(m8),
        "cfg_mac: first byte on top"
    );
    // GID entries
    let mut table: Vec<GidEntry> = vec![];
    for n in 0..regs::GID_MAX_ENTRIES {
        let e = if c.rng.percent(50) {
            GidEntry::ipv4(std::net::Ipv4Addr::from(c.rng.next_u64() as u32))
        } else {
            let mut g = [0u8; 16];
            g.copy_from_slice(&c.rng.bytes(16));
            GidEntry {
                gid: Gid(g),
                ty: [GidType::RoceV2Ipv6, GidType::RoceV1, GidType::Invalid]
                    [c.rng.below(3) as usize],
            }
        };
        c.run(&e.writes(n).unwrap());
        table.push(e);
    }
    let ty = c.uut().gid_type.val().to_u64();
    for (n, e) in table.iter().enumerate() {
        let u = c.uut();
        let port = [
            &u.gid0, &u.gid1, &u.gid2, &u.gid3, &u.gid4, &u.gid5, &u.gid6, &u.gid7, &u.gid8,
            &u.gid9, &u.gid10, &u.gid11, &u.gid12, &u.gid13, &u.gid14, &u.gid15,
        ][n];
        assert_eq!(
            port.val().to_u128(),
            u128::from_be_bytes(e.gid.0),
            "gid{n}: GID byte 0 on top"
        );
        assert_eq!((ty >> (2 * n)) & 3, e.ty as u64, "gid_type entry {n}");
        let words = c.read_burst(&[
            regs::gid_data(n as u32, 0),
            regs::gid_data(n as u32, 1),
            regs::gid_data(n as u32, 2),
            regs::gid_data(n as u32, 3),
            regs::gid_attr(n as u32),
        ]);
        assert_eq!(
            GidEntry::from_regs([words[0], words[1], words[2], words[3]], words[4]),
            *e
        );
    }
    // CFG words and CC parameters on their ports
    let vals: Vec<(u32, u32)> = [
        regs::CFG_CONTROL,
        regs::CFG_UDP_SPORT,
        regs::CFG_TRAFFIC,
        regs::CFG_PFC,
        regs::CFG_PFC_XOFF,
        regs::CFG_PFC_QUANTA,
    ]
    .into_iter()
    .chain(
        regs::REGISTERS
            .iter()
            // (the RW words; CC_QP_RATE is a status word read from the shaper, checked
            // through the whole NIC: sim/tests/rate_limit.rs)
            .filter(|r| r.name.starts_with("CC_") && r.access == regs::Access::RW)
            .map(|r| r.offset),
    )
    .map(|o| (o, c.rng.next_u64() as u32))
    .collect();
    c.write_burst(&vals);
    let u = c.uut();
    let port = |o: u32| -> u64 {
        let r = match o {
            regs::CFG_CONTROL => &u.cfg_control,
            regs::CFG_UDP_SPORT => &u.cfg_udp_sport,
            regs::CFG_TRAFFIC => &u.cfg_traffic,
            regs::CFG_PFC => &u.cfg_pfc,
            regs::CC_RP_TIME_RESET => &u.cc_rp_time_reset,
            regs::CC_RP_BYTE_RESET => &u.cc_rp_byte_reset,
            regs::CC_RP_THRESHOLD => &u.cc_rp_threshold,
            regs::CC_RP_AI_RATE => &u.cc_rp_ai_rate,
            regs::CC_RP_HAI_RATE => &u.cc_rp_hai_rate,
            regs::CC_RP_MIN_RATE => &u.cc_rp_min_rate,
            regs::CC_RP_MAX_RATE => &u.cc_rp_max_rate,
            regs::CC_RP_GD => &u.cc_rp_gd,
            regs::CC_RP_MIN_DEC_FAC => &u.cc_rp_min_dec_fac,
            regs::CC_RP_ALPHA_G => &u.cc_rp_alpha_g,
            regs::CC_RP_ALPHA_PERIOD => &u.cc_rp_alpha_period,
            regs::CC_RP_REDUCE_PERIOD => &u.cc_rp_reduce_period,
            regs::CC_RP_INITIAL_ALPHA => &u.cc_rp_initial_alpha,
            regs::CC_RP_FLAGS => &u.cc_rp_flags,
            regs::CC_RP_FIRST_CNP_RATE => &u.cc_rp_first_cnp_rate,
            regs::CC_NP_CNP_INTERVAL => &u.cc_np_cnp_interval,
            regs::CC_QP_SELECT => &u.cc_qp_select,
            regs::CC_QP_RATE_LIMIT => &u.cc_qp_rate_limit,
            regs::CC_QP_DCQCN => &u.cc_qp_dcqcn,
            regs::CFG_PFC_XOFF => &u.cfg_pfc_xoff,
            regs::CFG_PFC_QUANTA => &u.cfg_pfc_quanta,
            _ => panic!("no port for {o:#x}"),
        };
        r.val().to_u64()
    };
    for (o, v) in &vals {
        assert_eq!(
            port(*o),
            *v as u64,
            "output of {}",
            super::reg_info(*o).name
        );
    }
}

/// CFG_RESET: every context cleared (QP back to RESET with nothing kept, CQs gone, MRs invalid),
/// counters zero, the doorbell FIFOs flushed; `dp_reset` high meanwhile; READY afterwards.
pub fn cfg_reset<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
) {
    create_cqs(c, p, &[2]);
    reset_qp(c, 7);
    let mut a = random_attr(&mut c.rng, p, 2, 2);
    a.state = QpState::Init;
    assert_eq!(
        res(c.command(&a.modify_writes(7, connect_masks()[0].1).unwrap())),
        OK
    );
    let e = MrEntry {
        key: make_key(3, 9),
        pd: 1,
        access: AccessFlags::LOCAL_WRITE,
        va: 0x1000,
        length: 0x1000,
        dma: 0x2000,
    };
    assert_eq!(res(c.command(&e.write_writes().unwrap())), OK);
    c.cycle(
        |u, rng| {
            idle_axi(u, rng);
            u.cnt_inc.next = 0x7.into();
        },
        |_| (),
    );
    // a doorbell left in a stalled FIFO
    c.qev_stall = 100;
    c.write(regs::sq_doorbell(7), 1);
    let mut saw_dp_reset = 0;
    c.write(regs::CFG_RESET, 1);
    for _ in 0..100_000 {
        let (r, busy) = c.cycle(idle_axi, |u| (u.dp_reset.val(), u.dp_reset.val()));
        saw_dp_reset += r as u32;
        if !busy && saw_dp_reset > 0 {
            break;
        }
    }
    c.qev_stall = 0;
    assert!(
        saw_dp_reset as u64 + 8 >= 1 << QA.max(CA).max(MA),
        "dp_reset for the whole clear ({saw_dp_reset} cycles)"
    );
    wait_ready(c);
    let n = c.qev.len();
    c.idle(5);
    assert_eq!(c.qev.len(), n, "doorbell FIFO flushed");
    assert_eq!(res(c.command(&QpQuery::writes(7))), OK);
    let w = window(c, regs::QP_WIN_BASE, regs::MR_WIN_BASE);
    assert_eq!(
        regs::qp_state::STATE.get(w[&regs::QP_STATE]),
        QpState::Reset as u32
    );
    assert_eq!(w[&regs::QP_PD], 0);
    assert_eq!(w[&regs::QP_SQ_BASE_LO], 0);
    assert_eq!(res(c.command(&MrEntry::query_writes(3))), OK);
    assert_eq!(c.read(regs::MR_ACCESS) & regs::mr_access::VALID.mask(), 0);
    assert_eq!(res(c.command(&CqConfig::query_writes(2))), OK);
    assert_eq!(c.read(regs::CQ_CFG) & regs::cq_cfg::VALID.mask(), 0);
    assert_eq!(c.read(regs::CNT_RX_FRAMES_LO), 0);
    // and the cleared CQ can be created again, and its reference count is 0
    create_cqs(c, p, &[2]);
    assert_eq!(res(c.command(&CqConfig::destroy_writes(2))), OK);
}

/// The engines' ERR port: state ERR and QP_ERR_INFO on QUERY, a MODIFY-into-ERR notification
/// for the engines; RESET clears both.
pub fn qp_err_port<
    S: Stepper<CsrBlock<QA, CA, MA>>,
    const QA: usize,
    const CA: usize,
    const MA: usize,
>(
    c: &mut Csr<S, QA, CA, MA>,
    p: &CsrParams,
) {
    create_cqs(c, p, &[1]);
    let q = 9 % (1 << QA) as u32;
    reset_qp(c, q);
    let mut a = random_attr(&mut c.rng, p, 1, 1);
    let mut from = QpState::Reset;
    for (to, mask) in connect_masks() {
        a.state = to;
        assert_eq!(
            res(c.command(&a.modify_writes(q, mask).unwrap())),
            OK,
            "{from:?}->{to:?}"
        );
        from = to;
    }
    let n_ev = c.qev.len();
    let mut accepted = false;
    for _ in 0..10 {
        let done = accepted;
        accepted |= c.cycle(
            |u, rng| {
                idle_axi(u, rng);
                if !done {
                    u.qerr_valid.next = true;
                    u.qerr_qpn.next = (q as u64).into();
                    u.qerr_status.next = 12.into();
                    u.qerr_vendor.next = 10.into();
                }
            },
            |u| u.qerr_valid.val() && u.qerr_ready.val(),
        );
    }
    assert!(accepted);
    c.idle(20);
    // the engines hear of it as of a MODIFY into ERR (new and old state ERR), once
    let err = QpState::Error as u32;
    let ev = QEv {
        kind: QEV_MODIFY,
        qpn: q,
        value: err | (err << 4),
    };
    assert_eq!(c.qev[n_ev..], [ev], "ERR notification");
    assert_eq!(res(c.command(&QpQuery::writes(q))), OK);
    let w = window(c, regs::QP_WIN_BASE, regs::MR_WIN_BASE);
    let qq = QpQuery::from_window(|o| w[&o]).unwrap();
    assert_eq!(
        (qq.attr.state, qq.err_status, qq.err_vendor),
        (QpState::Error, 12, 10)
    );
    // RTS->RTS is now a bad transition; CUR_STATE = RTS mismatches
    a.state = QpState::Rts;
    assert_eq!(
        res(c.command(&a.modify_writes(q, QpAttrMask::STATE).unwrap())),
        Ok(CmdResult::BadTransition)
    );
    a.cur_state = QpState::Rts;
    assert_eq!(
        res(c.command(
            &a.modify_writes(q, QpAttrMask::STATE | QpAttrMask::CUR_STATE)
                .unwrap()
        )),
        Ok(CmdResult::CurStateMismatch)
    );
    a.state = QpState::Reset;
    assert_eq!(
        res(c.command(&a.modify_writes(q, QpAttrMask::STATE).unwrap())),
        OK
    );
    assert_eq!(res(c.command(&QpQuery::writes(q))), OK);
    assert_eq!(c.read(regs::QP_ERR_INFO), 0);
}
