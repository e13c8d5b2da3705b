//! RC queue pairs: rings in DMA memory, state transitions, posting work, destruction.

use core::time::Duration;
use std::sync::{Arc, Mutex};

use ferroce_proto::host::qp::{
    check_modify, AccessFlags, AddressVector, ModifyError, Pmtu, QpAttr, QpAttrMask, QpCreate,
    QpQuery, QpState, DEFAULT_LOG2_SQ_PSN_WINDOW, MAX_LOG2_SQ_PSN_WINDOW,
};
use ferroce_proto::host::regs::{self, caps, qp_index};
use ferroce_proto::host::ring::{
    Ring, RingKind, MAX_LOG2_WQE_STRIDE, MIN_LOG2_RQ_STRIDE, MIN_LOG2_SQ_STRIDE,
};
use ferroce_proto::host::wqe::{
    self, Payload, RecvWqe, SendOp, SendWqe, WqeFlags, MAX_MESSAGE_LEN, RECV_HEADER_LEN,
    SEND_HEADER_LEN, SGE_LEN,
};

use super::cq::{log2_entries, CompletionQueue, CqInner};
use super::device::lock_ids;
use super::pd::{check_local_sge, PdInner};
use super::wr::{RecvWr, SendWr};
use crate::backend::DmaBuffer;
use crate::error::{Error, Queue, Result, Window};
use crate::util::{lock, DeviceOwned};

/// Queue sizes requested at creation (`ibv_qp_cap`). The QP gets at least these; the
/// actual values are in [`QueuePair::caps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QpCapabilities {
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
    /// The send window in PSNs (a ferroce extension, fixed at creation: `QP_RING_CFG`
    /// 31:28): the requester starts a new message only while the PSNs sent and not
    /// acknowledged, that message's own included, stay within it (a message longer than the
    /// window goes alone). Rounded up to a power of two, 1 ..= 32768; 1024 by default.
    pub max_unacked_psns: u32,
}

impl Default for QpCapabilities {
    fn default() -> Self {
        QpCapabilities {
            max_send_wr: 64,
            max_recv_wr: 64,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
            max_unacked_psns: 1 << DEFAULT_LOG2_SQ_PSN_WINDOW,
        }
    }
}

/// What [`crate::ProtectionDomain::create_qp`] needs (`ibv_qp_init_attr`, RC only).
#[derive(Debug, Clone, Copy)]
pub struct QpInitAttr<'a> {
    pub send_cq: &'a CompletionQueue,
    pub recv_cq: &'a CompletionQueue,
    pub cap: QpCapabilities,
    /// Signal every send WQE, whatever its flags.
    pub sq_sig_all: bool,
}

/// The attributes of INIT -> RTR (IBTA Vol 1, 10.3; docs/PROTOCOL.md §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RtrAttr {
    pub av: AddressVector,
    pub path_mtu: Pmtu,
    pub dest_qpn: u32,
    /// Initial expected PSN of the responder (the peer's `sq_psn`).
    pub rq_psn: u32,
    pub max_dest_rd_atomic: u8,
    pub min_rnr_timer: u8,
}

/// The attributes of RTR -> RTS (IBTA Vol 1, 10.3; docs/PROTOCOL.md §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RtsAttr {
    pub sq_psn: u32,
    /// Local ACK timeout exponent (4.096 us x 2^timeout; 0 = infinite).
    pub timeout: u8,
    pub retry_cnt: u8,
    /// 7 = infinite.
    pub rnr_retry: u8,
    pub max_rd_atomic: u8,
}

impl Default for RtsAttr {
    fn default() -> Self {
        RtsAttr {
            sq_psn: 0,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
            max_rd_atomic: 1,
        }
    }
}

/// The driver's side of one work queue: its ring and free-running 16-bit indices.
pub(crate) struct WorkQueue {
    pub(crate) ring: Ring,
    pub(crate) buf: DeviceOwned<DmaBuffer>,
    /// Next index to post (what the doorbell announces).
    pub(crate) pi: u16,
    /// Oldest index not yet completed, advanced by CQEs' `wqe_index` (which also retires
    /// unsignalled WQEs before it).
    pub(crate) ci: u16,
}

impl WorkQueue {
    fn free(&self) -> u32 {
        self.ring.entries() - self.outstanding()
    }

    fn outstanding(&self) -> u32 {
        self.pi.wrapping_sub(self.ci) as u32
    }

    /// Write one encoded WQE into the slot of `pi`. The whole slot is written, so no bytes
    /// of an older WQE remain after the new one.
    fn put(&mut self, slot: &[u8]) -> Result<()> {
        let off = self.ring.slot_offset(self.pi as u32);
        self.buf.write(off, slot)?;
        self.pi = self.pi.wrapping_add(1);
        Ok(())
    }
}

/// QP state shared with the CQs it completes into.
pub(crate) struct QpShared {
    pub(crate) qpn: u32,
    /// The driver's view of the QP state (set by modify, and to ERR by error CQEs).
    pub(crate) state: Mutex<QpState>,
    pub(crate) sq: Mutex<WorkQueue>,
    pub(crate) rq: Mutex<WorkQueue>,
}

/// An RC queue pair. Created in RESET by [`crate::ProtectionDomain::create_qp`]; connect it
/// with [`QueuePair::to_init`], [`QueuePair::to_rtr`], [`QueuePair::to_rts`] (or
/// [`QueuePair::modify`]). Dropping it moves it to ERR, waits for the NIC to flush its
/// outstanding WQEs, moves it to RESET and frees the rings (HOST-INTERFACE.md 7.3);
/// completions it left in its CQs are discarded.
pub struct QueuePair {
    shared: Arc<QpShared>,
    pd: Arc<PdInner>,
    send_cq: Arc<CqInner>,
    recv_cq: Arc<CqInner>,
    caps: QpCapabilities,
    sq_sig_all: bool,
}

impl QueuePair {
    pub(crate) fn new(pd: Arc<PdInner>, init: &QpInitAttr<'_>) -> Result<QueuePair> {
        let dev = &pd.dev;
        for cq in [init.send_cq, init.recv_cq] {
            if !Arc::ptr_eq(&cq.inner.dev, dev) {
                return Err(Error::WrongDevice);
            }
        }
        let info = &dev.info;
        let cap = init.cap;
        let max_sge = info.max_sge.min(u8::MAX as u32);
        let limit = |attr, value: u32, max: u32| {
            if value > max {
                Err(Error::ExceedsDeviceLimit {
                    attr,
                    value: value as u64,
                    max: max as u64,
                })
            } else {
                Ok(())
            }
        };
        limit("max_send_sge", cap.max_send_sge, max_sge)?;
        limit("max_recv_sge", cap.max_recv_sge, max_sge)?;
        if cap.max_inline_data > 0 && !info.has(caps::INLINE) {
            return Err(Error::Unsupported("inline data (capability INLINE)"));
        }
        if cap.max_unacked_psns == 0 {
            return Err(Error::InvalidArgument(
                "max_unacked_psns must be at least 1",
            ));
        }
        limit(
            "max_unacked_psns",
            cap.max_unacked_psns,
            1 << MAX_LOG2_SQ_PSN_WINDOW,
        )?;
        let sq_log2 = log2_entries(cap.max_send_wr);
        let rq_log2 = log2_entries(cap.max_recv_wr);
        limit(
            "max_send_wr",
            cap.max_send_wr,
            1 << info.max_log2_sq_entries,
        )?;
        limit(
            "max_recv_wr",
            cap.max_recv_wr,
            1 << info.max_log2_rq_entries,
        )?;
        let max_stride = info.max_log2_stride.min(MAX_LOG2_WQE_STRIDE);
        let sq_need = SEND_HEADER_LEN
            + (cap.max_send_sge as usize * SGE_LEN).max(cap.max_inline_data as usize);
        let sq_stride = log2_at_least(sq_need).max(MIN_LOG2_SQ_STRIDE);
        let rq_need = RECV_HEADER_LEN + cap.max_recv_sge as usize * SGE_LEN;
        let rq_stride = log2_at_least(rq_need).max(MIN_LOG2_RQ_STRIDE);
        let stride_max = 1u32 << max_stride;
        limit("send WQE size", 1 << sq_stride.min(31), stride_max)?;
        limit("receive WQE size", 1 << rq_stride.min(31), stride_max)?;
        let sq = Ring::new(RingKind::Send, sq_log2, sq_stride).map_err(Error::Layout)?;
        let rq = Ring::new(RingKind::Recv, rq_log2, rq_stride).map_err(Error::Layout)?;
        let alloc = |ring: &Ring| -> Result<DmaBuffer> {
            let buf = dev
                .backend()
                .alloc_dma(ring.bytes(), ring.align() as usize)?;
            buf.fill(0, ring.bytes(), 0)?;
            Ok(buf)
        };
        let sq_buf = alloc(&sq)?;
        let rq_buf = alloc(&rq)?;
        let qpn = lock_ids(dev)
            .qpn
            .alloc()
            .ok_or(Error::OutOfResources("queue pairs"))?;
        let caps = QpCapabilities {
            max_send_wr: sq.entries(),
            max_recv_wr: rq.entries(),
            max_send_sge: (wqe::send_sge_capacity(sq_stride) as u32).min(max_sge),
            max_recv_sge: (wqe::recv_sge_capacity(rq_stride) as u32).min(max_sge),
            max_inline_data: if info.has(caps::INLINE) {
                wqe::inline_capacity(sq_stride) as u32
            } else {
                0
            },
            max_unacked_psns: cap.max_unacked_psns.next_power_of_two(),
        };
        let shared = Arc::new(QpShared {
            qpn,
            state: Mutex::new(QpState::Reset),
            sq: Mutex::new(WorkQueue {
                ring: sq,
                buf: DeviceOwned::new(sq_buf),
                pi: 0,
                ci: 0,
            }),
            rq: Mutex::new(WorkQueue {
                ring: rq,
                buf: DeviceOwned::new(rq_buf),
                pi: 0,
                ci: 0,
            }),
        });
        let send_cq = init.send_cq.inner.clone();
        let recv_cq = init.recv_cq.inner.clone();
        send_cq.attach(shared.clone());
        if !Arc::ptr_eq(&send_cq, &recv_cq) {
            recv_cq.attach(shared.clone());
        }
        Ok(QueuePair {
            shared,
            pd,
            send_cq,
            recv_cq,
            caps,
            sq_sig_all: init.sq_sig_all,
        })
    }

    /// The QP number.
    pub fn qpn(&self) -> u32 {
        self.shared.qpn
    }

    /// The actual queue sizes (at least what was requested).
    pub fn caps(&self) -> QpCapabilities {
        self.caps
    }

    /// The state as the driver last knew it: set by modify, by [`QueuePair::query`], and to
    /// ERR when an error completion of this QP is polled.
    pub fn state(&self) -> QpState {
        *lock(&self.shared.state)
    }

    /// The PD number.
    pub fn pdn(&self) -> u32 {
        self.pd.pdn
    }

    /// SQ ring IOVA and geometry (diagnostics, test doubles).
    pub fn sq_ring(&self) -> (u64, Ring) {
        let sq = lock(&self.shared.sq);
        (sq.buf.iova(), sq.ring)
    }

    /// RQ ring IOVA and geometry.
    pub fn rq_ring(&self) -> (u64, Ring) {
        let rq = lock(&self.shared.rq);
        (rq.buf.iova(), rq.ring)
    }

    /// Send WQEs posted and not yet completed (as far as polled CQEs tell).
    pub fn outstanding_sends(&self) -> u32 {
        lock(&self.shared.sq).outstanding()
    }

    /// Receive WQEs posted and not yet completed.
    pub fn outstanding_recvs(&self) -> u32 {
        lock(&self.shared.rq).outstanding()
    }

    /// `ibv_modify_qp`: apply the attributes named by `mask`.
    ///
    /// The transition and mask are checked against the RC table of
    /// `ferroce_proto::host::qp::transition_attrs` and the device limits before anything is
    /// written; then `QpAttr::modify_writes` runs in the QP command window. The CREATE group
    /// (PD, rings, CQs) is the driver's business: it is added to RESET -> INIT automatically
    /// and must not be in `mask`.
    pub fn modify(&self, attr: &QpAttr, mask: QpAttrMask) -> Result<()> {
        if mask.intersects(QpAttrMask::CREATE) {
            return Err(Error::InvalidArgument(
                "the CREATE attribute group is supplied by the driver",
            ));
        }
        let dev = &self.pd.dev;
        let mut state = lock(&self.shared.state);
        let current = *state;
        let target = if mask.contains(QpAttrMask::STATE) {
            attr.state
        } else {
            current
        };
        let mask = if current == QpState::Reset && target == QpState::Init {
            mask | QpAttrMask::CREATE
        } else {
            mask
        };
        let to = check_modify(current, mask, attr.state).map_err(|e| match e {
            ModifyError::BadTransition { from, to } => Error::BadTransition { from, to },
            ModifyError::Missing(m) => Error::MissingAttributes(m),
            ModifyError::Unsupported(m) => Error::UnsupportedAttributes(m),
            ModifyError::NotAllowed(m) => Error::AttributeNotAllowed(m),
        })?;
        self.check_limits(attr, mask)?;
        let mut full = *attr;
        if mask.contains(QpAttrMask::CREATE) {
            full.create = self.create_group();
        }
        let writes = full
            .modify_writes(self.shared.qpn, mask)
            .map_err(Error::InvalidAttribute)?;
        dev.regs.command(Window::Qp, &writes, |_| ())?;
        *state = to;
        // Release the state lock before touching the CQs: polling takes CQ then QP locks.
        drop(state);
        if to == QpState::Reset && current != QpState::Reset {
            self.forget_work();
        }
        Ok(())
    }

    /// RESET -> INIT with the remote rights `access` (REMOTE_WRITE, REMOTE_READ,
    /// REMOTE_ATOMIC); P_Key index 0 and port 1, the only ones ferroce has.
    pub fn to_init(&self, access: AccessFlags) -> Result<()> {
        let attr = QpAttr {
            state: QpState::Init,
            access,
            pkey_index: 0,
            port: 1,
            ..QpAttr::default()
        };
        self.modify(
            &attr,
            QpAttrMask::STATE
                | QpAttrMask::PKEY_INDEX
                | QpAttrMask::PORT
                | QpAttrMask::ACCESS_FLAGS,
        )
    }

    /// INIT -> RTR: connect to the peer (HOST-INTERFACE.md 7.2 step 5).
    pub fn to_rtr(&self, rtr: &RtrAttr) -> Result<()> {
        let attr = QpAttr {
            state: QpState::Rtr,
            av: rtr.av,
            path_mtu: rtr.path_mtu,
            dest_qpn: rtr.dest_qpn,
            rq_psn: rtr.rq_psn,
            max_dest_rd_atomic: rtr.max_dest_rd_atomic,
            min_rnr_timer: rtr.min_rnr_timer,
            ..QpAttr::default()
        };
        self.modify(
            &attr,
            QpAttrMask::STATE
                | QpAttrMask::AV
                | QpAttrMask::PATH_MTU
                | QpAttrMask::DEST_QPN
                | QpAttrMask::RQ_PSN
                | QpAttrMask::MAX_DEST_RD_ATOMIC
                | QpAttrMask::MIN_RNR_TIMER,
        )
    }

    /// RTR -> RTS: start the requester (HOST-INTERFACE.md 7.2 step 6).
    pub fn to_rts(&self, rts: &RtsAttr) -> Result<()> {
        let attr = QpAttr {
            state: QpState::Rts,
            sq_psn: rts.sq_psn,
            timeout: rts.timeout,
            retry_cnt: rts.retry_cnt,
            rnr_retry: rts.rnr_retry,
            max_rd_atomic: rts.max_rd_atomic,
            ..QpAttr::default()
        };
        self.modify(
            &attr,
            QpAttrMask::STATE
                | QpAttrMask::SQ_PSN
                | QpAttrMask::TIMEOUT
                | QpAttrMask::RETRY_CNT
                | QpAttrMask::RNR_RETRY
                | QpAttrMask::MAX_QP_RD_ATOMIC,
        )
    }

    /// Move to ERR: the NIC flushes every outstanding WQE with `WR_FLUSH_ERR`.
    pub fn to_error(&self) -> Result<()> {
        self.to_state(QpState::Error)
    }

    /// Move to RESET: the NIC forgets the QP; outstanding work is dropped without completions.
    pub fn to_reset(&self) -> Result<()> {
        self.to_state(QpState::Reset)
    }

    fn to_state(&self, state: QpState) -> Result<()> {
        let attr = QpAttr {
            state,
            ..QpAttr::default()
        };
        self.modify(&attr, QpAttrMask::STATE)
    }

    /// `ibv_query_qp`: read the QP context back. Refreshes [`QueuePair::state`].
    pub fn query(&self) -> Result<QpQuery> {
        let q = self.query_raw()?;
        *lock(&self.shared.state) = q.attr.state;
        Ok(q)
    }

    fn query_raw(&self) -> Result<QpQuery> {
        let dev = &self.pd.dev;
        dev.regs
            .command(Window::Qp, &QpQuery::writes(self.shared.qpn), |r| {
                QpQuery::from_window(|o| r.read(o))
            })?
            .map_err(Error::Layout)
    }

    /// `ibv_post_send`: write one WQE per request into the SQ and ring the doorbell once.
    ///
    /// All or nothing: every request is checked first (QP in RTS, capabilities, SGE count,
    /// message length, each SGE inside a memory region of this QP's PD with the rights the
    /// operation needs, room in the SQ); if any fails, nothing is posted and its error is
    /// returned.
    pub fn post_send(&self, wrs: &[SendWr]) -> Result<()> {
        let state = self.state();
        if state != QpState::Rts {
            return Err(Error::InvalidState {
                qpn: self.shared.qpn,
                state,
                op: "post a send (needs RTS)",
            });
        }
        let wqes = wrs
            .iter()
            .map(|wr| self.build_send(wr))
            .collect::<Result<Vec<_>>>()?;
        let mut sq = lock(&self.shared.sq);
        self.post(&mut sq, Queue::Send, wqes.len(), |sq, slot, k| {
            let w = SendWqe {
                owner: sq.ring.owner(sq.pi as u32),
                ..wqes[k].clone()
            };
            w.emit(slot).map_err(Error::InvalidWorkRequest)
        })
    }

    /// `ibv_post_recv`: write one receive WQE per request into the RQ and ring the doorbell
    /// once. All or nothing, like [`QueuePair::post_send`]. Allowed from INIT on.
    pub fn post_recv(&self, wrs: &[RecvWr]) -> Result<()> {
        let state = self.state();
        if state == QpState::Reset {
            return Err(Error::InvalidState {
                qpn: self.shared.qpn,
                state,
                op: "post a receive (needs INIT or later)",
            });
        }
        let wqes = wrs
            .iter()
            .map(|wr| self.build_recv(wr))
            .collect::<Result<Vec<_>>>()?;
        let mut rq = lock(&self.shared.rq);
        self.post(&mut rq, Queue::Recv, wqes.len(), |rq, slot, k| {
            let w = RecvWqe {
                owner: rq.ring.owner(rq.pi as u32),
                ..wqes[k].clone()
            };
            w.emit(slot).map_err(Error::InvalidWorkRequest)
        })
    }

    /// The common posting sequence (HOST-INTERFACE.md 7.5): room check, emit each WQE with
    /// the owner bit of its index, release fence, one doorbell with the new producer index.
    fn post(
        &self,
        wq: &mut WorkQueue,
        queue: Queue,
        count: usize,
        mut emit: impl FnMut(&WorkQueue, &mut [u8], usize) -> Result<()>,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        if count as u64 > wq.free() as u64 {
            return Err(Error::QueueFull {
                qpn: self.shared.qpn,
                queue,
            });
        }
        let mut slot = vec![0u8; wq.ring.stride()];
        let start = wq.pi;
        for k in 0..count {
            slot.fill(0);
            if let Err(e) = emit(wq, &mut slot, k).and_then(|()| wq.put(&slot)) {
                // Nothing was announced to the NIC: take the partial batch back.
                wq.pi = start;
                return Err(e);
            }
        }
        let qpn = self.shared.qpn;
        let db = match queue {
            Queue::Send => regs::sq_doorbell_write(qpn, wq.pi as u32),
            Queue::Recv => regs::rq_doorbell_write(qpn, wq.pi as u32),
        };
        self.pd.dev.regs.doorbell(db);
        Ok(())
    }

    fn build_send(&self, wr: &SendWr) -> Result<SendWqe> {
        let dev = &self.pd.dev;
        let info = &dev.info;
        let defined = WqeFlags::SIGNALED | WqeFlags::SOLICITED | WqeFlags::FENCE;
        if wr.flags.0 & !defined.0 != 0 {
            return Err(Error::InvalidArgument(
                "send flags other than SIGNALED, SOLICITED, FENCE",
            ));
        }
        let needed_cap = match wr.op {
            SendOp::Read { .. } => Some((caps::RDMA_READ, "RDMA READ")),
            SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. } => Some((caps::ATOMICS, "atomics")),
            SendOp::SendInv { .. } => Some((caps::SEND_INV, "SEND with invalidate")),
            SendOp::LocalInv { .. } => Some((caps::LOCAL_INV, "LOCAL_INV")),
            _ => None,
        };
        if let Some((cap, name)) = needed_cap {
            if !info.has(cap) {
                return Err(Error::Unsupported(name));
            }
        }
        let length = wr.length();
        if length > MAX_MESSAGE_LEN as u64 {
            return Err(Error::MessageTooLong {
                length,
                max: MAX_MESSAGE_LEN as u64,
            });
        }
        let mut flags = wr.flags;
        if self.sq_sig_all {
            flags = flags | WqeFlags::SIGNALED;
        }
        let wqe = match &wr.payload {
            Payload::Sges(sges) => {
                let max = self.caps.max_send_sge as usize;
                if sges.len() > max {
                    return Err(Error::TooManySges {
                        count: sges.len(),
                        max,
                    });
                }
                // READ and atomics scatter the response into local memory.
                let needed = match wr.op {
                    SendOp::Read { .. } | SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. } => {
                        AccessFlags::LOCAL_WRITE
                    }
                    _ => AccessFlags::NONE,
                };
                for sge in sges {
                    check_local_sge(dev, self.pd.pdn, sge, needed)?;
                }
                SendWqe::new(false, wr.op, flags, wr.wr_id, sges.clone())
            }
            Payload::Inline(data) => {
                if !info.has(caps::INLINE) {
                    return Err(Error::Unsupported("inline data (capability INLINE)"));
                }
                let max = self.caps.max_inline_data as usize;
                if data.len() > max {
                    return Err(Error::InlineTooLarge {
                        length: data.len(),
                        max,
                    });
                }
                SendWqe::inline(false, wr.op, flags, wr.wr_id, data.clone())
            }
        };
        // The NIC's own pre-execution rules (atomics: one 8-byte SGE, aligned remote VA; no
        // inline READ; ...), checked here so a violation is an error instead of a QP error.
        wqe.validate().map_err(Error::InvalidWorkRequest)?;
        Ok(wqe)
    }

    fn build_recv(&self, wr: &RecvWr) -> Result<RecvWqe> {
        let max = self.caps.max_recv_sge as usize;
        if wr.sges.len() > max {
            return Err(Error::TooManySges {
                count: wr.sges.len(),
                max,
            });
        }
        let length: u64 = wr.sges.iter().map(|s| s.length as u64).sum();
        if length > MAX_MESSAGE_LEN as u64 {
            return Err(Error::MessageTooLong {
                length,
                max: MAX_MESSAGE_LEN as u64,
            });
        }
        for sge in &wr.sges {
            check_local_sge(&self.pd.dev, self.pd.pdn, sge, AccessFlags::LOCAL_WRITE)?;
        }
        let wqe = RecvWqe::new(false, wr.wr_id, wr.sges.clone());
        wqe.validate().map_err(Error::InvalidWorkRequest)?;
        Ok(wqe)
    }

    /// Refuse attribute values above what the device implements.
    fn check_limits(&self, attr: &QpAttr, mask: QpAttrMask) -> Result<()> {
        let info = &self.pd.dev.info;
        let over = |attr: &'static str, value: u64, max: u64| {
            if value > max {
                Err(Error::ExceedsDeviceLimit { attr, value, max })
            } else {
                Ok(())
            }
        };
        if mask.contains(QpAttrMask::PATH_MTU) {
            over(
                "path_mtu",
                attr.path_mtu.bytes() as u64,
                info.max_pmtu.bytes() as u64,
            )?;
        }
        if mask.contains(QpAttrMask::MAX_QP_RD_ATOMIC) {
            over(
                "max_rd_atomic",
                attr.max_rd_atomic as u64,
                info.max_rd_atomic as u64,
            )?;
        }
        if mask.contains(QpAttrMask::MAX_DEST_RD_ATOMIC) {
            over(
                "max_dest_rd_atomic",
                attr.max_dest_rd_atomic as u64,
                info.max_dest_rd_atomic as u64,
            )?;
        }
        if mask.contains(QpAttrMask::AV) && attr.av.sgid_index as u32 >= info.gid_entries {
            return Err(Error::ExceedsDeviceLimit {
                attr: "sgid_index",
                value: attr.av.sgid_index as u64,
                max: info.gid_entries.saturating_sub(1) as u64,
            });
        }
        if mask.contains(QpAttrMask::ACCESS_FLAGS) {
            if !attr.access.is_supported() {
                return Err(Error::InvalidAccess(attr.access));
            }
            if attr.access.contains(AccessFlags::REMOTE_ATOMIC) && !info.has(caps::ATOMICS) {
                return Err(Error::Unsupported("remote atomics (capability ATOMICS)"));
            }
            if attr.access.contains(AccessFlags::REMOTE_READ) && !info.has(caps::RDMA_READ) {
                return Err(Error::Unsupported("remote READ (capability RDMA_READ)"));
            }
        }
        Ok(())
    }

    /// The CREATE group: what `ibv_create_qp` fixed.
    fn create_group(&self) -> QpCreate {
        let sq = lock(&self.shared.sq);
        let rq = lock(&self.shared.rq);
        QpCreate {
            pd: self.pd.pdn,
            sq_base: sq.buf.iova(),
            sq_log2_entries: sq.ring.log2_entries,
            sq_log2_stride: sq.ring.log2_stride,
            rq_base: rq.buf.iova(),
            rq_log2_entries: rq.ring.log2_entries,
            rq_log2_stride: rq.ring.log2_stride,
            send_cqn: self.send_cq.cqn as u16,
            recv_cqn: self.recv_cq.cqn as u16,
            sq_log2_psn_window: self.caps.max_unacked_psns.trailing_zeros() as u8,
        }
    }

    /// After RESET the NIC has forgotten the QP and restarts its indices at 0 on the next
    /// RESET -> INIT: drop CQEs still queued for it, and restart the rings.
    fn forget_work(&self) {
        let qpn = self.shared.qpn;
        self.send_cq.detach(qpn);
        if !Arc::ptr_eq(&self.send_cq, &self.recv_cq) {
            self.recv_cq.detach(qpn);
        }
        for wq in [&self.shared.sq, &self.shared.rq] {
            let mut wq = lock(wq);
            wq.pi = 0;
            wq.ci = 0;
            let bytes = wq.ring.bytes();
            // Cannot fail: the ring buffer is exactly `bytes` long.
            let _ = wq.buf.fill(0, bytes, 0);
        }
        self.send_cq.attach(self.shared.clone());
        if !Arc::ptr_eq(&self.send_cq, &self.recv_cq) {
            self.recv_cq.attach(self.shared.clone());
        }
    }

    /// Wait (bounded) until the NIC has consumed everything posted: after a move to ERR that
    /// means every WQE has been flushed into the CQs. Only the index registers of the QUERY
    /// are read, so a QP that never reached RTR (no path MTU yet) drains too.
    fn drain(&self, timeout: Duration) {
        let dev = &self.pd.dev;
        let backend = dev.backend();
        let start = backend.now();
        let query = QpQuery::writes(self.shared.qpn);
        let drained = |r: &crate::regs::Registers| {
            [regs::QP_SQ_INDEX, regs::QP_RQ_INDEX].iter().all(|&o| {
                let v = r.read(o);
                qp_index::PRODUCER.get(v) == qp_index::CONSUMER.get(v)
            })
        };
        loop {
            match dev.regs.command(Window::Qp, &query, drained) {
                Ok(true) | Err(_) => return,
                Ok(false) => {}
            }
            if backend.now().saturating_sub(start) >= timeout {
                return;
            }
            backend.relax();
        }
    }
}

impl Drop for QueuePair {
    fn drop(&mut self) {
        let dev = self.pd.dev.clone();
        let state = self.state();
        // Whether the NIC is known to have let go of the rings.
        let mut released = true;
        if state != QpState::Reset {
            // HOST-INTERFACE.md 7.3: ERR (flush), wait for the flush, RESET. Errors cannot be
            // returned from Drop; a failed RESET means the rings must not be freed.
            let _ = self.to_state(QpState::Error);
            self.drain(dev.options.drain_timeout);
            released = self.to_state(QpState::Reset).is_ok();
        }
        let qpn = self.shared.qpn;
        self.send_cq.detach(qpn);
        if !Arc::ptr_eq(&self.send_cq, &self.recv_cq) {
            self.recv_cq.detach(qpn);
        }
        if released {
            lock_ids(&dev).qpn.release(qpn);
        } else {
            lock(&self.shared.sq).buf.leak();
            lock(&self.shared.rq).buf.leak();
        }
    }
}

impl core::fmt::Debug for QueuePair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueuePair")
            .field("qpn", &self.shared.qpn)
            .field("state", &self.state())
            .field("pd", &self.pd.pdn)
            .field("caps", &self.caps)
            .finish()
    }
}

/// Smallest log2 of a power of two holding `bytes`.
fn log2_at_least(bytes: usize) -> u8 {
    bytes
        .max(1)
        .checked_next_power_of_two()
        .map_or(usize::BITS as u8, |p| p.trailing_zeros() as u8)
}
