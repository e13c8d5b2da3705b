//! Queue pairs: states, legal transitions, access flags, the attribute mask, the attributes
//! each transition requires (IBTA Vol 1, 10.3; docs/PROTOCOL.md §9; IBA / `ib_modify_qp_is_ok` for
//! RC), and the encoding of QP attributes into the QP command window.
//!
//! A QP is programmed with MODIFY commands exactly like `ibv_modify_qp`: the driver stages the
//! attributes named by a [`QpAttrMask`] in the window registers, writes the mask and issues
//! MODIFY; the hardware checks the transition with the same table ([`check_modify`]) and
//! answers with a [`CmdResult`]. Only RC QPs exist in v1.

use super::config::Gid;
use super::regs::{
    self, qp_av_path, qp_cqn, qp_err_info, qp_index, qp_mtu_rd, qp_ring_cfg, qp_state, qp_timers,
    CmdResult,
};
use super::ring::{Ring, RingKind};
use super::{checked, join64, split64, Error, RegWrite, Result};
use core::ops::{BitAnd, BitOr, Not};

/// QP state; the numeric values are `enum ibv_qp_state` and the encoding of `QP_STATE[2:0]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum QpState {
    Reset = 0,
    Init = 1,
    Rtr = 2,
    Rts = 3,
    Sqd = 4,
    /// Send queue error. Defined for completeness of the encoding: an RC QP never enters it
    /// (RC send errors move the QP to ERR), so no transition leads here.
    Sqe = 5,
    Error = 6,
}

impl QpState {
    pub const ALL: [QpState; 7] = [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
        QpState::Error,
    ];

    pub const fn from_u8(v: u8) -> Option<QpState> {
        Some(match v {
            0 => QpState::Reset,
            1 => QpState::Init,
            2 => QpState::Rtr,
            3 => QpState::Rts,
            4 => QpState::Sqd,
            5 => QpState::Sqe,
            6 => QpState::Error,
            _ => return None,
        })
    }

    /// Whether the responder accepts request packets (RTR and later, docs/PROTOCOL.md §9).
    pub const fn receives(self) -> bool {
        matches!(self, QpState::Rtr | QpState::Rts | QpState::Sqd)
    }

    /// Whether the requester starts new WQEs (SQD finishes in-flight ones but starts none).
    pub const fn sends(self) -> bool {
        matches!(self, QpState::Rts)
    }
}

/// Whether software may move an RC QP from `from` to `to` (IBA 10.3.1 / `ib_modify_qp_is_ok`).
/// Any state may go to RESET or ERR; the hardware also moves a QP to ERR on its own.
pub const fn transition_allowed(from: QpState, to: QpState) -> bool {
    use QpState::*;
    matches!(
        (from, to),
        (_, Reset)
            | (_, Error)
            | (Reset, Init)
            | (Init, Init)
            | (Init, Rtr)
            | (Rtr, Rts)
            | (Rts, Rts)
            | (Rts, Sqd)
            | (Sqd, Rts)
            | (Sqd, Sqd)
    )
}

/// Access flags, `enum ibv_access_flags` values. On a QP (`qp_access_flags`) only the REMOTE_*
/// bits matter: they say what a remote peer may do to this QP's responder. On an MR they are
/// the MR's rights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AccessFlags(pub u32);

impl AccessFlags {
    pub const NONE: AccessFlags = AccessFlags(0);
    pub const LOCAL_WRITE: AccessFlags = AccessFlags(1 << 0);
    pub const REMOTE_WRITE: AccessFlags = AccessFlags(1 << 1);
    pub const REMOTE_READ: AccessFlags = AccessFlags(1 << 2);
    pub const REMOTE_ATOMIC: AccessFlags = AccessFlags(1 << 3);
    /// Verbs values the hardware does not store; listed so the driver can recognise and
    /// handle them (ZERO_BASED is done by programming MR_VA = 0) or refuse them (MW_BIND).
    pub const MW_BIND: AccessFlags = AccessFlags(1 << 4);
    pub const ZERO_BASED: AccessFlags = AccessFlags(1 << 5);
    /// The bits the NIC implements (MR_ACCESS / QP_ACCESS).
    pub const HW_MASK: AccessFlags = AccessFlags(0xF);
    pub const REMOTE_ANY: AccessFlags = AccessFlags(0xE);

    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn contains(self, other: AccessFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn intersects(self, other: AccessFlags) -> bool {
        self.0 & other.0 != 0
    }

    /// Only bits the hardware implements.
    pub const fn is_supported(self) -> bool {
        self.0 & !Self::HW_MASK.0 == 0
    }

    /// Verbs rule (IBTA Vol 1, chapter 11; docs/PROTOCOL.md §10): REMOTE_WRITE or REMOTE_ATOMIC on
    /// an MR requires LOCAL_WRITE.
    pub const fn is_valid_for_mr(self) -> bool {
        !self.intersects(AccessFlags(Self::REMOTE_WRITE.0 | Self::REMOTE_ATOMIC.0))
            || self.contains(Self::LOCAL_WRITE)
    }
}

impl BitOr for AccessFlags {
    type Output = AccessFlags;
    fn bitor(self, rhs: AccessFlags) -> AccessFlags {
        AccessFlags(self.0 | rhs.0)
    }
}

impl BitAnd for AccessFlags {
    type Output = AccessFlags;
    fn bitand(self, rhs: AccessFlags) -> AccessFlags {
        AccessFlags(self.0 & rhs.0)
    }
}

/// Which attributes a MODIFY applies: `enum ibv_qp_attr_mask` bit values, so the driver passes
/// the application's mask through, plus ferroce's [`QpAttrMask::CREATE`] group in bit 31.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QpAttrMask(pub u32);

impl QpAttrMask {
    pub const NONE: QpAttrMask = QpAttrMask(0);
    pub const STATE: QpAttrMask = QpAttrMask(1 << 0);
    pub const CUR_STATE: QpAttrMask = QpAttrMask(1 << 1);
    pub const EN_SQD_ASYNC_NOTIFY: QpAttrMask = QpAttrMask(1 << 2);
    pub const ACCESS_FLAGS: QpAttrMask = QpAttrMask(1 << 3);
    /// Accepted for verbs compatibility; must be 0 (the only P_Key is the default 0xFFFF).
    pub const PKEY_INDEX: QpAttrMask = QpAttrMask(1 << 4);
    /// Accepted for verbs compatibility; must be 1 (one port).
    pub const PORT: QpAttrMask = QpAttrMask(1 << 5);
    /// UD only: unsupported.
    pub const QKEY: QpAttrMask = QpAttrMask(1 << 6);
    pub const AV: QpAttrMask = QpAttrMask(1 << 7);
    pub const PATH_MTU: QpAttrMask = QpAttrMask(1 << 8);
    pub const TIMEOUT: QpAttrMask = QpAttrMask(1 << 9);
    pub const RETRY_CNT: QpAttrMask = QpAttrMask(1 << 10);
    pub const RNR_RETRY: QpAttrMask = QpAttrMask(1 << 11);
    pub const RQ_PSN: QpAttrMask = QpAttrMask(1 << 12);
    pub const MAX_QP_RD_ATOMIC: QpAttrMask = QpAttrMask(1 << 13);
    /// Automatic path migration: unsupported.
    pub const ALT_PATH: QpAttrMask = QpAttrMask(1 << 14);
    pub const MIN_RNR_TIMER: QpAttrMask = QpAttrMask(1 << 15);
    pub const SQ_PSN: QpAttrMask = QpAttrMask(1 << 16);
    pub const MAX_DEST_RD_ATOMIC: QpAttrMask = QpAttrMask(1 << 17);
    /// Automatic path migration: unsupported.
    pub const PATH_MIG_STATE: QpAttrMask = QpAttrMask(1 << 18);
    /// Queue capacities are fixed by CREATE: unsupported as a modify attribute.
    pub const CAP: QpAttrMask = QpAttrMask(1 << 19);
    pub const DEST_QPN: QpAttrMask = QpAttrMask(1 << 20);
    /// ferroce: PD, SQ/RQ ring base and geometry, send/recv CQN. Given once, on RESET->INIT
    /// (what `ibv_create_qp` fixes in verbs); the context keeps them until the QP returns to
    /// RESET.
    pub const CREATE: QpAttrMask = QpAttrMask(1 << 31);

    /// Every bit the hardware accepts in `QP_ATTR_MASK`; others give `Unsupported`.
    pub const SUPPORTED: QpAttrMask = QpAttrMask(
        Self::STATE.0
            | Self::CUR_STATE.0
            | Self::EN_SQD_ASYNC_NOTIFY.0
            | Self::ACCESS_FLAGS.0
            | Self::PKEY_INDEX.0
            | Self::PORT.0
            | Self::AV.0
            | Self::PATH_MTU.0
            | Self::TIMEOUT.0
            | Self::RETRY_CNT.0
            | Self::RNR_RETRY.0
            | Self::RQ_PSN.0
            | Self::MAX_QP_RD_ATOMIC.0
            | Self::MIN_RNR_TIMER.0
            | Self::SQ_PSN.0
            | Self::MAX_DEST_RD_ATOMIC.0
            | Self::DEST_QPN.0
            | Self::CREATE.0,
    );

    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn contains(self, other: QpAttrMask) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn intersects(self, other: QpAttrMask) -> bool {
        self.0 & other.0 != 0
    }

    pub const fn union(self, other: QpAttrMask) -> QpAttrMask {
        QpAttrMask(self.0 | other.0)
    }

    pub const fn difference(self, other: QpAttrMask) -> QpAttrMask {
        QpAttrMask(self.0 & !other.0)
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl BitOr for QpAttrMask {
    type Output = QpAttrMask;
    fn bitor(self, rhs: QpAttrMask) -> QpAttrMask {
        QpAttrMask(self.0 | rhs.0)
    }
}

impl BitAnd for QpAttrMask {
    type Output = QpAttrMask;
    fn bitand(self, rhs: QpAttrMask) -> QpAttrMask {
        QpAttrMask(self.0 & rhs.0)
    }
}

impl Not for QpAttrMask {
    type Output = QpAttrMask;
    fn not(self) -> QpAttrMask {
        QpAttrMask(!self.0)
    }
}

/// The attributes a transition must carry and may carry, for RC. `STATE` is implied by any
/// transition and not listed. Unsupported verbs attributes (ALT_PATH, PATH_MIG_STATE, QKEY,
/// CAP) appear in no `optional` set, so a mask naming them fails [`check_modify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransitionAttrs {
    pub required: QpAttrMask,
    pub optional: QpAttrMask,
}

/// The table, as data: `None` if the transition is not allowed.
///
/// | Transition | Required | Optional |
/// |---|---|---|
/// | RESET->INIT | PKEY_INDEX, PORT, ACCESS_FLAGS, CREATE | - |
/// | INIT->INIT | - | PKEY_INDEX, PORT, ACCESS_FLAGS |
/// | INIT->RTR | AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER | ACCESS_FLAGS, PKEY_INDEX |
/// | RTR->RTS | SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC | CUR_STATE, ACCESS_FLAGS, MIN_RNR_TIMER |
/// | RTS->RTS | - | CUR_STATE, ACCESS_FLAGS, MIN_RNR_TIMER |
/// | RTS->SQD | - | EN_SQD_ASYNC_NOTIFY |
/// | SQD->RTS | - | CUR_STATE, ACCESS_FLAGS, MIN_RNR_TIMER |
/// | SQD->SQD | - | PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC, ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER |
/// | any->RESET, any->ERR | - | - |
pub const fn transition_attrs(from: QpState, to: QpState) -> Option<TransitionAttrs> {
    use QpAttrMask as M;
    use QpState::*;
    const fn t(required: u32, optional: u32) -> Option<TransitionAttrs> {
        Some(TransitionAttrs {
            required: QpAttrMask(required),
            optional: QpAttrMask(optional),
        })
    }
    if !transition_allowed(from, to) {
        return None;
    }
    match (from, to) {
        (_, Reset) | (_, Error) => t(0, 0),
        (Reset, Init) => t(
            M::PKEY_INDEX.0 | M::PORT.0 | M::ACCESS_FLAGS.0 | M::CREATE.0,
            0,
        ),
        (Init, Init) => t(0, M::PKEY_INDEX.0 | M::PORT.0 | M::ACCESS_FLAGS.0),
        (Init, Rtr) => t(
            M::AV.0
                | M::PATH_MTU.0
                | M::DEST_QPN.0
                | M::RQ_PSN.0
                | M::MAX_DEST_RD_ATOMIC.0
                | M::MIN_RNR_TIMER.0,
            M::ACCESS_FLAGS.0 | M::PKEY_INDEX.0,
        ),
        (Rtr, Rts) => t(
            M::SQ_PSN.0 | M::TIMEOUT.0 | M::RETRY_CNT.0 | M::RNR_RETRY.0 | M::MAX_QP_RD_ATOMIC.0,
            M::CUR_STATE.0 | M::ACCESS_FLAGS.0 | M::MIN_RNR_TIMER.0,
        ),
        (Rts, Rts) | (Sqd, Rts) => t(0, M::CUR_STATE.0 | M::ACCESS_FLAGS.0 | M::MIN_RNR_TIMER.0),
        (Rts, Sqd) => t(0, M::EN_SQD_ASYNC_NOTIFY.0),
        (Sqd, Sqd) => t(
            0,
            M::PORT.0
                | M::AV.0
                | M::TIMEOUT.0
                | M::RETRY_CNT.0
                | M::RNR_RETRY.0
                | M::MAX_QP_RD_ATOMIC.0
                | M::MAX_DEST_RD_ATOMIC.0
                | M::ACCESS_FLAGS.0
                | M::PKEY_INDEX.0
                | M::MIN_RNR_TIMER.0,
        ),
        _ => None,
    }
}

/// Why a MODIFY is refused (the hardware reports the [`CmdResult`] given by `.result()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModifyError {
    BadTransition {
        from: QpState,
        to: QpState,
    },
    /// Required attributes missing from the mask.
    Missing(QpAttrMask),
    /// Attributes this build never accepts (APM, Q_Key, CAP, unknown bits).
    Unsupported(QpAttrMask),
    /// Supported attributes that this transition does not take.
    NotAllowed(QpAttrMask),
}

impl ModifyError {
    pub const fn result(self) -> CmdResult {
        match self {
            ModifyError::BadTransition { .. } => CmdResult::BadTransition,
            ModifyError::Missing(_) => CmdResult::MissingAttr,
            ModifyError::Unsupported(_) => CmdResult::Unsupported,
            ModifyError::NotAllowed(_) => CmdResult::BadValue,
        }
    }
}

/// Check a MODIFY from state `current` with `mask` (and target `attr_state` if STATE is in
/// the mask; without STATE the QP stays in `current`, as in verbs). Returns the target state.
pub fn check_modify(
    current: QpState,
    mask: QpAttrMask,
    attr_state: QpState,
) -> core::result::Result<QpState, ModifyError> {
    let unsupported = mask.difference(QpAttrMask::SUPPORTED);
    if !unsupported.is_empty() {
        return Err(ModifyError::Unsupported(unsupported));
    }
    let to = if mask.contains(QpAttrMask::STATE) {
        attr_state
    } else {
        current
    };
    let t =
        transition_attrs(current, to).ok_or(ModifyError::BadTransition { from: current, to })?;
    let given = mask.difference(QpAttrMask::STATE);
    let missing = t.required.difference(given);
    if !missing.is_empty() {
        return Err(ModifyError::Missing(missing));
    }
    let extra = given.difference(t.required | t.optional);
    if !extra.is_empty() {
        return Err(ModifyError::NotAllowed(extra));
    }
    Ok(to)
}

/// Path MTU, shared with the transport code; `QP_MTU_RD[2:0]` holds its `enum ibv_mtu` value
/// ([`Pmtu::ibv_enum`], 1 = 256 .. 5 = 4096).
pub use crate::flow::Pmtu;

/// Address vector (the AV attribute): where the QP's packets go and how they are marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AddressVector {
    /// Next-hop MAC, resolved by the driver (ARP / neighbour discovery) from the DGID.
    pub dmac: [u8; 6],
    /// Destination GID: IPv4-mapped for RoCEv2/IPv4 peers. Its family must match the source
    /// GID entry's type.
    pub dgid: Gid,
    /// Index of the local GID table entry (source address and encapsulation).
    pub sgid_index: u8,
    /// IP traffic class / TOS: DSCP in 7:2 (the ECN bits 1:0 come from CFG_TRAFFIC).
    pub traffic_class: u8,
    /// Use CFG_TRAFFIC's default DSCP instead of `traffic_class`.
    pub use_default_dscp: bool,
    /// IPv4 TTL / IPv6 hop limit / GRH hop limit.
    pub hop_limit: u8,
    /// IPv6 / GRH flow label (20 bits).
    pub flow_label: u32,
    /// UDP source port; 0 = the CFG_UDP_SPORT policy.
    pub udp_sport: u16,
}

impl Default for AddressVector {
    fn default() -> Self {
        AddressVector {
            dmac: [0; 6],
            dgid: Gid::default(),
            sgid_index: 0,
            traffic_class: 0,
            use_default_dscp: true,
            hop_limit: 64,
            flow_label: 0,
            udp_sport: 0,
        }
    }
}

/// The CREATE group: what verbs fixes at `ibv_create_qp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QpCreate {
    pub pd: u32,
    /// SQ ring IOVA (aligned to the ring's [`Ring::align`]).
    pub sq_base: u64,
    pub sq_log2_entries: u8,
    pub sq_log2_stride: u8,
    pub rq_base: u64,
    pub rq_log2_entries: u8,
    pub rq_log2_stride: u8,
    pub send_cqn: u16,
    pub recv_cqn: u16,
    /// log2 of the send window in PSNs (`QP_RING_CFG` 31:28): a new message starts only while
    /// the PSNs sent and not acknowledged, its own included, stay within `2^v`; a message
    /// longer than the window goes alone. At most [`MAX_LOG2_SQ_PSN_WINDOW`].
    pub sq_log2_psn_window: u8,
}

/// The send window a QP gets unless its creator asks otherwise: 1024 PSNs.
pub const DEFAULT_LOG2_SQ_PSN_WINDOW: u8 = 10;
/// The largest send window: 32768 PSNs (the field's four bits; far below the 2^23 that IBTA
/// Vol 1, 9.7.1 allows outstanding).
pub const MAX_LOG2_SQ_PSN_WINDOW: u8 = 15;

impl Default for QpCreate {
    fn default() -> Self {
        QpCreate {
            pd: 0,
            sq_base: 0,
            sq_log2_entries: 1,
            sq_log2_stride: super::ring::MIN_LOG2_SQ_STRIDE,
            rq_base: 0,
            rq_log2_entries: 1,
            rq_log2_stride: super::ring::MIN_LOG2_RQ_STRIDE,
            send_cqn: 0,
            recv_cqn: 0,
            sq_log2_psn_window: DEFAULT_LOG2_SQ_PSN_WINDOW,
        }
    }
}

impl QpCreate {
    pub fn sq_ring(&self) -> Result<Ring> {
        Ring::new(RingKind::Send, self.sq_log2_entries, self.sq_log2_stride)
    }

    pub fn rq_ring(&self) -> Result<Ring> {
        Ring::new(RingKind::Recv, self.rq_log2_entries, self.rq_log2_stride)
    }
}

/// QP attributes, mirroring `struct ibv_qp_attr` for what RC on ferroce uses, plus the CREATE
/// group. Which fields take effect is decided by the [`QpAttrMask`] given with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QpAttr {
    pub state: QpState,
    /// Expected current state (checked when the mask has CUR_STATE).
    pub cur_state: QpState,
    pub en_sqd_async_notify: bool,
    pub access: AccessFlags,
    pub pkey_index: u16,
    pub port: u8,
    pub av: AddressVector,
    pub path_mtu: Pmtu,
    /// Local ACK timeout exponent: 4.096 us * 2^timeout, 0 = infinite (5 bits).
    pub timeout: u8,
    /// Transport retries (3 bits).
    pub retry_cnt: u8,
    /// RNR retries (3 bits, 7 = infinite).
    pub rnr_retry: u8,
    /// RNR NAK timer code sent by this QP's responder (5 bits).
    pub min_rnr_timer: u8,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub dest_qpn: u32,
    pub create: QpCreate,
}

impl Default for QpAttr {
    fn default() -> Self {
        QpAttr {
            state: QpState::Reset,
            cur_state: QpState::Reset,
            en_sqd_async_notify: false,
            access: AccessFlags::NONE,
            pkey_index: 0,
            port: 1,
            av: AddressVector::default(),
            path_mtu: Pmtu::Mtu1024,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
            min_rnr_timer: 12,
            rq_psn: 0,
            sq_psn: 0,
            max_rd_atomic: 1,
            max_dest_rd_atomic: 1,
            dest_qpn: 0,
            create: QpCreate::default(),
        }
    }
}

/// The QP window registers after a QUERY, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpQuery {
    /// All attributes (`state` and `cur_state` both the current state).
    pub attr: QpAttr,
    pub sq_drained: bool,
    pub sq_producer: u16,
    pub sq_consumer: u16,
    pub rq_producer: u16,
    pub rq_consumer: u16,
    /// Why the QP entered ERR (raw completion status and vendor error; 0 if not in ERR).
    pub err_status: u8,
    pub err_vendor: u8,
}

const PSN_MASK: u32 = 0xFF_FFFF;

fn check24(name: &'static str, v: u32) -> Result<u32> {
    if v > PSN_MASK {
        return Err(Error::InvalidField {
            field: name,
            value: v as u64,
        });
    }
    Ok(v)
}

impl QpAttr {
    /// The window registers that carry `mask`'s attributes, with their values (absolute BAR0
    /// offsets, LO before HI). Values are range-checked here, so the hardware's BadValue is
    /// only reachable by a driver that bypasses this function.
    pub fn staging_writes(&self, mask: QpAttrMask) -> Result<Vec<RegWrite>> {
        use QpAttrMask as M;
        let mut w = Vec::new();
        let mut put = |o: u32, v: u32| w.push(RegWrite::new(o, v));
        if mask.intersects(M::STATE | M::CUR_STATE | M::EN_SQD_ASYNC_NOTIFY) {
            put(
                regs::QP_STATE,
                qp_state::STATE.place(self.state as u32)
                    | qp_state::CUR_STATE.place(self.cur_state as u32)
                    | qp_state::SQD_NOTIFY.place(self.en_sqd_async_notify as u32),
            );
        }
        if mask.intersects(M::PKEY_INDEX) && self.pkey_index != 0 {
            return Err(Error::InvalidField {
                field: "pkey_index",
                value: self.pkey_index as u64,
            });
        }
        if mask.intersects(M::PORT) && self.port != 1 {
            return Err(Error::InvalidField {
                field: "port",
                value: self.port as u64,
            });
        }
        if mask.intersects(M::ACCESS_FLAGS) {
            if !self.access.is_supported() {
                return Err(Error::InvalidField {
                    field: "access",
                    value: self.access.0 as u64,
                });
            }
            put(regs::QP_ACCESS, self.access.0);
        }
        if mask.intersects(M::CREATE) {
            let c = &self.create;
            let sq = c.sq_ring()?;
            let rq = c.rq_ring()?;
            if !c.sq_base.is_multiple_of(sq.align()) {
                return Err(Error::InvalidField {
                    field: "sq_base",
                    value: c.sq_base,
                });
            }
            if !c.rq_base.is_multiple_of(rq.align()) {
                return Err(Error::InvalidField {
                    field: "rq_base",
                    value: c.rq_base,
                });
            }
            if c.sq_log2_psn_window > MAX_LOG2_SQ_PSN_WINDOW {
                return Err(Error::InvalidField {
                    field: "sq_log2_psn_window",
                    value: c.sq_log2_psn_window as u64,
                });
            }
            put(regs::QP_PD, check24("pd", c.pd)?);
            let (lo, hi) = split64(c.sq_base);
            put(regs::QP_SQ_BASE_LO, lo);
            put(regs::QP_SQ_BASE_HI, hi);
            let (lo, hi) = split64(c.rq_base);
            put(regs::QP_RQ_BASE_LO, lo);
            put(regs::QP_RQ_BASE_HI, hi);
            put(
                regs::QP_RING_CFG,
                qp_ring_cfg::LOG2_SQ_ENTRIES.place(c.sq_log2_entries as u32)
                    | qp_ring_cfg::LOG2_SQ_STRIDE.place(c.sq_log2_stride as u32)
                    | qp_ring_cfg::LOG2_RQ_ENTRIES.place(c.rq_log2_entries as u32)
                    | qp_ring_cfg::LOG2_RQ_STRIDE.place(c.rq_log2_stride as u32)
                    | qp_ring_cfg::LOG2_SQ_PSN_WINDOW.place(c.sq_log2_psn_window as u32),
            );
            put(
                regs::QP_CQN,
                qp_cqn::SEND_CQN.place(c.send_cqn as u32)
                    | qp_cqn::RECV_CQN.place(c.recv_cqn as u32),
            );
        }
        if mask.intersects(M::DEST_QPN) {
            put(regs::QP_DEST_QPN, check24("dest_qpn", self.dest_qpn)?);
        }
        if mask.intersects(M::PATH_MTU | M::MAX_QP_RD_ATOMIC | M::MAX_DEST_RD_ATOMIC) {
            put(
                regs::QP_MTU_RD,
                qp_mtu_rd::PATH_MTU.place(self.path_mtu.ibv_enum() as u32)
                    | qp_mtu_rd::MAX_RD_ATOMIC.place(self.max_rd_atomic as u32)
                    | qp_mtu_rd::MAX_DEST_RD_ATOMIC.place(self.max_dest_rd_atomic as u32),
            );
        }
        if mask.intersects(M::TIMEOUT | M::RETRY_CNT | M::RNR_RETRY | M::MIN_RNR_TIMER) {
            put(
                regs::QP_TIMERS,
                qp_timers::TIMEOUT.place(checked(
                    qp_timers::TIMEOUT,
                    "timeout",
                    self.timeout as u32,
                )?) | qp_timers::RETRY_CNT.place(checked(
                    qp_timers::RETRY_CNT,
                    "retry_cnt",
                    self.retry_cnt as u32,
                )?) | qp_timers::RNR_RETRY.place(checked(
                    qp_timers::RNR_RETRY,
                    "rnr_retry",
                    self.rnr_retry as u32,
                )?) | qp_timers::MIN_RNR_TIMER.place(checked(
                    qp_timers::MIN_RNR_TIMER,
                    "min_rnr_timer",
                    self.min_rnr_timer as u32,
                )?),
            );
        }
        if mask.intersects(M::SQ_PSN) {
            put(regs::QP_SQ_PSN, check24("sq_psn", self.sq_psn)?);
        }
        if mask.intersects(M::RQ_PSN) {
            put(regs::QP_RQ_PSN, check24("rq_psn", self.rq_psn)?);
        }
        if mask.intersects(M::AV) {
            let av = &self.av;
            if av.sgid_index as u32 >= regs::GID_MAX_ENTRIES {
                return Err(Error::InvalidField {
                    field: "sgid_index",
                    value: av.sgid_index as u64,
                });
            }
            if av.flow_label > 0xF_FFFF {
                return Err(Error::InvalidField {
                    field: "flow_label",
                    value: av.flow_label as u64,
                });
            }
            let (lo, hi) = super::config::mac_to_regs(av.dmac);
            put(regs::QP_AV_DMAC_LO, lo);
            put(regs::QP_AV_DMAC_HI, hi);
            for (k, v) in av.dgid.to_regs().iter().enumerate() {
                put(regs::QP_AV_DGID0 + 4 * k as u32, *v);
            }
            put(
                regs::QP_AV_PATH,
                qp_av_path::SGID_INDEX.place(av.sgid_index as u32)
                    | qp_av_path::TRAFFIC_CLASS.place(av.traffic_class as u32)
                    | qp_av_path::HOP_LIMIT.place(av.hop_limit as u32)
                    | qp_av_path::DEFAULT_DSCP.place(av.use_default_dscp as u32),
            );
            put(regs::QP_AV_FLOW, av.flow_label);
            put(regs::QP_AV_SPORT, av.udp_sport as u32);
        }
        w.sort_by_key(|r| r.offset);
        Ok(w)
    }

    /// The complete MODIFY sequence for QP `qpn`: select, mask, staged attributes, command.
    /// Afterwards poll `QP_CMD_STATUS` until BUSY clears and check the result.
    pub fn modify_writes(&self, qpn: u32, mask: QpAttrMask) -> Result<Vec<RegWrite>> {
        if qpn >= regs::MAX_QPS {
            return Err(Error::InvalidField {
                field: "qpn",
                value: qpn as u64,
            });
        }
        let mut w = vec![
            RegWrite::new(regs::QP_CMD_QPN, qpn),
            RegWrite::new(regs::QP_ATTR_MASK, mask.0),
        ];
        w.extend(self.staging_writes(mask)?);
        w.push(RegWrite::new(regs::QP_CMD, regs::qp_cmd::MODIFY));
        Ok(w)
    }

    /// Decode the window registers (as left by a QUERY, or as staged) through `read`.
    pub fn from_window(mut read: impl FnMut(u32) -> u32) -> Result<QpAttr> {
        let st = read(regs::QP_STATE);
        let state_of = |v: u32| {
            QpState::from_u8(v as u8).ok_or(Error::InvalidField {
                field: "state",
                value: v as u64,
            })
        };
        let mtu = read(regs::QP_MTU_RD);
        let timers = read(regs::QP_TIMERS);
        let path = read(regs::QP_AV_PATH);
        let ring = read(regs::QP_RING_CFG);
        let cqn = read(regs::QP_CQN);
        let pmtu_raw = qp_mtu_rd::PATH_MTU.get(mtu);
        Ok(QpAttr {
            state: state_of(qp_state::STATE.get(st))?,
            cur_state: state_of(qp_state::CUR_STATE.get(st))?,
            en_sqd_async_notify: qp_state::SQD_NOTIFY.bit(st),
            access: AccessFlags(read(regs::QP_ACCESS)),
            pkey_index: 0,
            port: 1,
            av: AddressVector {
                dmac: super::config::mac_from_regs(
                    read(regs::QP_AV_DMAC_LO),
                    read(regs::QP_AV_DMAC_HI),
                ),
                dgid: Gid::from_regs(core::array::from_fn(|k| {
                    read(regs::QP_AV_DGID0 + 4 * k as u32)
                })),
                sgid_index: qp_av_path::SGID_INDEX.get(path) as u8,
                traffic_class: qp_av_path::TRAFFIC_CLASS.get(path) as u8,
                use_default_dscp: qp_av_path::DEFAULT_DSCP.bit(path),
                hop_limit: qp_av_path::HOP_LIMIT.get(path) as u8,
                flow_label: read(regs::QP_AV_FLOW) & 0xF_FFFF,
                udp_sport: read(regs::QP_AV_SPORT) as u16,
            },
            // A QP that has not been through INIT->RTR has no path MTU programmed yet and the
            // window reads 0: report the same default a freshly created QpAttr carries, so
            // querying a QP in RESET or INIT works. Any other unknown encoding is an error.
            path_mtu: if pmtu_raw == 0 {
                QpAttr::default().path_mtu
            } else {
                Pmtu::from_ibv_enum(pmtu_raw as u8).ok_or(Error::InvalidField {
                    field: "path_mtu",
                    value: pmtu_raw as u64,
                })?
            },
            timeout: qp_timers::TIMEOUT.get(timers) as u8,
            retry_cnt: qp_timers::RETRY_CNT.get(timers) as u8,
            rnr_retry: qp_timers::RNR_RETRY.get(timers) as u8,
            min_rnr_timer: qp_timers::MIN_RNR_TIMER.get(timers) as u8,
            rq_psn: read(regs::QP_RQ_PSN) & PSN_MASK,
            sq_psn: read(regs::QP_SQ_PSN) & PSN_MASK,
            max_rd_atomic: qp_mtu_rd::MAX_RD_ATOMIC.get(mtu) as u8,
            max_dest_rd_atomic: qp_mtu_rd::MAX_DEST_RD_ATOMIC.get(mtu) as u8,
            dest_qpn: read(regs::QP_DEST_QPN) & PSN_MASK,
            create: QpCreate {
                pd: read(regs::QP_PD) & 0xFF_FFFF,
                sq_base: join64(read(regs::QP_SQ_BASE_LO), read(regs::QP_SQ_BASE_HI)),
                sq_log2_entries: qp_ring_cfg::LOG2_SQ_ENTRIES.get(ring) as u8,
                sq_log2_stride: qp_ring_cfg::LOG2_SQ_STRIDE.get(ring) as u8,
                rq_base: join64(read(regs::QP_RQ_BASE_LO), read(regs::QP_RQ_BASE_HI)),
                rq_log2_entries: qp_ring_cfg::LOG2_RQ_ENTRIES.get(ring) as u8,
                rq_log2_stride: qp_ring_cfg::LOG2_RQ_STRIDE.get(ring) as u8,
                send_cqn: qp_cqn::SEND_CQN.get(cqn) as u16,
                recv_cqn: qp_cqn::RECV_CQN.get(cqn) as u16,
                sq_log2_psn_window: qp_ring_cfg::LOG2_SQ_PSN_WINDOW.get(ring) as u8,
            },
        })
    }
}

impl QpQuery {
    /// The QUERY command for QP `qpn`; after BUSY clears, decode with [`QpQuery::from_window`].
    pub fn writes(qpn: u32) -> [RegWrite; 2] {
        [
            RegWrite::new(regs::QP_CMD_QPN, qpn),
            RegWrite::new(regs::QP_CMD, regs::qp_cmd::QUERY),
        ]
    }

    pub fn from_window(mut read: impl FnMut(u32) -> u32) -> Result<QpQuery> {
        let mut attr = QpAttr::from_window(&mut read)?;
        attr.cur_state = attr.state;
        let st = read(regs::QP_STATE);
        let sq = read(regs::QP_SQ_INDEX);
        let rq = read(regs::QP_RQ_INDEX);
        let err = read(regs::QP_ERR_INFO);
        Ok(QpQuery {
            attr,
            sq_drained: qp_state::SQ_DRAINED.bit(st),
            sq_producer: qp_index::PRODUCER.get(sq) as u16,
            sq_consumer: qp_index::CONSUMER.get(sq) as u16,
            rq_producer: qp_index::PRODUCER.get(rq) as u16,
            rq_consumer: qp_index::CONSUMER.get(rq) as u16,
            err_status: qp_err_info::STATUS.get(err) as u8,
            err_vendor: qp_err_info::VENDOR_ERR.get(err) as u8,
        })
    }
}
