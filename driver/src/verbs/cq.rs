//! Completion queues: the ring in DMA memory, polling with the owner bit, arming.

use core::sync::atomic::{fence, Ordering};
use core::time::Duration;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ferroce_proto::host::cq::{self, ArmMode, CqConfig};
use ferroce_proto::host::cqe::{self, Cqe, CQE_LEN};
use ferroce_proto::host::qp::QpState;
use ferroce_proto::host::ring::Ring;

use super::device::{lock_ids, DeviceInner};
use super::qp::QpShared;
use super::wr::WorkCompletion;
use crate::backend::DmaBuffer;
use crate::error::{Error, Result, Window};
use crate::util::{lock, DeviceOwned};

pub(crate) struct CqState {
    /// Next CQE index to read (free-running, 24 bits).
    ci: u32,
    /// Last CI told to the NIC.
    ci_reported: u32,
    /// QPs completing into this CQ, by QPN.
    qps: HashMap<u32, Arc<QpShared>>,
    /// Destroyed QPs whose CQEs may still sit in the ring: (qpn, end). CQEs of `qpn` before
    /// ring index `end` belong to the dead QP and are dropped, even if the QPN is reused.
    zombies: Vec<(u32, u32)>,
    /// CQEs for QPs the CQ does not know (consumed and dropped).
    stray: u64,
}

pub(crate) struct CqInner {
    pub(crate) dev: Arc<DeviceInner>,
    pub(crate) cqn: u32,
    vector: u8,
    ring: Ring,
    buf: DeviceOwned<DmaBuffer>,
    pub(crate) state: Mutex<CqState>,
}

/// A completion queue. Dropping it destroys the CQ context (after every QP using it has
/// been destroyed: QPs hold a reference) and frees the ring.
pub struct CompletionQueue {
    pub(crate) inner: Arc<CqInner>,
}

impl CompletionQueue {
    pub(crate) fn new(
        dev: Arc<DeviceInner>,
        min_entries: u32,
        vector: u8,
    ) -> Result<CompletionQueue> {
        let info = &dev.info;
        if vector as u32 >= info.vectors.max(1) {
            return Err(Error::ExceedsDeviceLimit {
                attr: "interrupt vector",
                value: vector as u64,
                max: info.vectors.saturating_sub(1) as u64,
            });
        }
        let log2 = log2_entries(min_entries);
        if log2 > info.max_log2_cq_entries {
            return Err(Error::ExceedsDeviceLimit {
                attr: "CQ entries",
                value: min_entries as u64,
                max: 1u64 << info.max_log2_cq_entries,
            });
        }
        let ring = Ring::completion(log2).map_err(Error::Layout)?;
        let buf = dev
            .backend()
            .alloc_dma(ring.bytes(), ring.align() as usize)?;
        // Pass 0 expects owner 1, so a zeroed ring reads as empty (HOST-INTERFACE.md 8.1).
        buf.fill(0, ring.bytes(), 0)?;
        let cqn = lock_ids(&dev)
            .cqn
            .alloc()
            .ok_or(Error::OutOfResources("completion queues"))?;
        let config = CqConfig {
            base: buf.iova(),
            log2_entries: log2,
            vector,
            ci: 0,
        };
        let result = config
            .create_writes(cqn)
            .map_err(Error::Layout)
            .and_then(|w| dev.regs.command(Window::Cq, &w, |_| ()));
        if let Err(e) = result {
            lock_ids(&dev).cqn.release(cqn);
            return Err(e);
        }
        Ok(CompletionQueue {
            inner: Arc::new(CqInner {
                dev,
                cqn,
                vector,
                ring,
                buf: DeviceOwned::new(buf),
                state: Mutex::new(CqState {
                    ci: 0,
                    ci_reported: 0,
                    qps: HashMap::new(),
                    zombies: Vec::new(),
                    stray: 0,
                }),
            }),
        })
    }

    /// The CQ number.
    pub fn cqn(&self) -> u32 {
        self.inner.cqn
    }

    /// Number of CQE slots.
    pub fn capacity(&self) -> u32 {
        self.inner.ring.entries()
    }

    /// Interrupt vector of this CQ's events.
    pub fn vector(&self) -> u8 {
        self.inner.vector
    }

    /// IOVA of the ring (for diagnostics and test doubles).
    pub fn ring_iova(&self) -> u64 {
        self.inner.buf.iova()
    }

    /// The ring geometry.
    pub fn ring(&self) -> Ring {
        self.inner.ring
    }

    /// CQEs that named a QP this CQ does not serve (dropped). Nonzero only after a QP's
    /// destruction timed out, or with a misbehaving device.
    pub fn stray_completions(&self) -> u64 {
        lock(&self.inner.state).stray
    }

    /// Take up to `max` completions (HOST-INTERFACE.md 7.5, polling). Returns an empty vector
    /// when the CQ is empty. A CQE the driver cannot accept is reported as
    /// [`Error::BadCqe`] once it is the first entry of a poll (completions before it are
    /// returned first).
    pub fn poll(&self, max: usize) -> Result<Vec<WorkCompletion>> {
        let mut out = Vec::new();
        self.poll_into(&mut out, max)?;
        Ok(out)
    }

    /// Take one completion, if any.
    pub fn poll_one(&self) -> Result<Option<WorkCompletion>> {
        Ok(self.poll(1)?.pop())
    }

    /// Poll until at least `min` completions arrived (at most `max` are taken) or `timeout`
    /// of backend time passed; returns what arrived, possibly fewer than `min` on timeout.
    /// Between polls the backend relaxes (a simulator steps its clock).
    pub fn poll_until(
        &self,
        min: usize,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<WorkCompletion>> {
        let backend = self.inner.dev.backend();
        let start = backend.now();
        let mut out = Vec::new();
        loop {
            self.poll_into(&mut out, max)?;
            if out.len() >= min || backend.now().saturating_sub(start) >= timeout {
                return Ok(out);
            }
            backend.relax();
        }
    }

    /// Request an event (interrupt on this CQ's vector) for the next completion
    /// ([`ArmMode::Next`]) or the next solicited or error completion
    /// ([`ArmMode::Solicited`]). One-shot. If completions are already waiting, the event
    /// fires at once: poll again after waking.
    pub fn arm(&self, mode: ArmMode) {
        let mut st = lock(&self.inner.state);
        let w = cq::arm_doorbell(self.inner.cqn, st.ci, mode);
        self.inner.dev.regs.doorbell(w);
        st.ci_reported = st.ci;
    }

    /// Wait for this CQ's interrupt vector (after [`CompletionQueue::arm`]). Returns whether
    /// it fired within `timeout`.
    pub fn wait_event(&self, timeout: Duration) -> Result<bool> {
        self.inner
            .dev
            .backend()
            .wait_interrupt(self.inner.vector as u16, timeout)
    }

    fn poll_into(&self, out: &mut Vec<WorkCompletion>, max: usize) -> Result<()> {
        let inner = &*self.inner;
        let ring = inner.ring;
        let mut st = lock(&inner.state);
        let start_len = out.len();
        let mut result = Ok(());
        while out.len() - start_len < max {
            let index = st.ci;
            let slot = ring.slot_offset(index);
            let owner = inner.buf.read_u8(slot + cqe::field::OWNER)?;
            if (owner & 1 != 0) != ring.owner(index) {
                break;
            }
            // The owner byte is written last; read the rest only after seeing it.
            fence(Ordering::Acquire);
            let mut raw = [0u8; CQE_LEN];
            inner.buf.read(slot, &mut raw)?;
            match inner.retire(&mut st, index, &raw) {
                Ok(Some(wc)) => out.push(wc),
                Ok(None) => {}
                Err(e) if out.len() == start_len => {
                    // Consume it, or every later poll would fail on the same entry.
                    st.ci = (index + 1) & ring.index_mask();
                    result = Err(e);
                    break;
                }
                // Hand out the good completions first; the next poll reports the bad one.
                Err(_) => break,
            }
            st.ci = (index + 1) & ring.index_mask();
        }
        let ci = st.ci;
        st.zombies.retain(|&(_, end)| index_before(&ring, ci, end));
        if st.ci != st.ci_reported {
            // Tell the NIC how far we got after every poll that consumed something: it only
            // uses it for overflow detection, and a lagging CI could report a false overflow.
            inner.dev.regs.doorbell(cq::ci_doorbell(inner.cqn, ci));
            st.ci_reported = ci;
        }
        result
    }
}

impl CqInner {
    /// Account for the CQE at `index`: advance the owning work queue past `wqe_index` (which
    /// also retires unsignalled WQEs before it) and mark the QP in error on an error status.
    fn retire(&self, st: &mut CqState, index: u32, raw: &[u8]) -> Result<Option<WorkCompletion>> {
        let bad = |reason: String| Error::BadCqe {
            cqn: self.cqn,
            index,
            reason,
        };
        let cqe = Cqe::parse(raw).map_err(|e| bad(e.to_string()))?;
        if st
            .zombies
            .iter()
            .any(|&(qpn, end)| qpn == cqe.qpn && index_before(&self.ring, index, end))
        {
            return Ok(None);
        }
        let Some(qp) = st.qps.get(&cqe.qpn).cloned() else {
            st.stray += 1;
            return Ok(None);
        };
        let recv = cqe.opcode.is_recv();
        {
            let mut wq = lock(if recv { &qp.rq } else { &qp.sq });
            let outstanding = wq.pi.wrapping_sub(wq.ci);
            if cqe.wqe_index.wrapping_sub(wq.ci) >= outstanding {
                return Err(bad(format!(
                    "{} WQE index {:#x} is not outstanding (consumer {:#x}, producer {:#x}) on QP {}",
                    if recv { "RQ" } else { "SQ" },
                    cqe.wqe_index,
                    wq.ci,
                    wq.pi,
                    cqe.qpn
                )));
            }
            wq.ci = cqe.wqe_index.wrapping_add(1);
        }
        if cqe.status != cqe::WcStatus::Success {
            // Any error completion means the NIC moved the RC QP to ERR.
            *lock(&qp.state) = QpState::Error;
        }
        Ok(Some(WorkCompletion::from_cqe(&cqe)))
    }

    /// Register a QP that completes into this CQ.
    pub(crate) fn attach(&self, qp: Arc<QpShared>) {
        lock(&self.state).qps.insert(qp.qpn, qp);
    }

    /// Forget a destroyed QP. CQEs it left in the ring (up to the first slot that holds no
    /// new entry) are dropped by later polls, so a new QP with the same QPN never sees them.
    pub(crate) fn detach(&self, qpn: u32) {
        let mut st = lock(&self.state);
        st.qps.remove(&qpn);
        let mut end = st.ci;
        for _ in 0..self.ring.entries() {
            let slot = self.ring.slot_offset(end);
            match self.buf.read_u8(slot + cqe::field::OWNER) {
                Ok(o) if (o & 1 != 0) == self.ring.owner(end) => {
                    end = (end + 1) & self.ring.index_mask();
                }
                _ => break,
            }
        }
        if end != st.ci {
            st.zombies.push((qpn, end));
        }
    }
}

impl Drop for CqInner {
    fn drop(&mut self) {
        let w = CqConfig::destroy_writes(self.cqn);
        match self.dev.regs.command(Window::Cq, &w, |_| ()) {
            Ok(()) => lock_ids(&self.dev).cqn.release(self.cqn),
            // The NIC may still write CQEs: never free the ring, never reuse the CQN.
            Err(_) => self.buf.leak(),
        }
    }
}

impl core::fmt::Debug for CompletionQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CompletionQueue")
            .field("cqn", &self.inner.cqn)
            .field("entries", &self.inner.ring.entries())
            .field("vector", &self.inner.vector)
            .finish()
    }
}

/// Smallest log2 ring size holding `n` entries (at least 2 entries).
pub(crate) fn log2_entries(n: u32) -> u8 {
    n.max(2)
        .checked_next_power_of_two()
        .map_or(32, |p| p.trailing_zeros() as u8)
}

/// Whether free-running CQ index `a` comes before `end` in the current window of the ring.
fn index_before(ring: &Ring, a: u32, end: u32) -> bool {
    let d = end.wrapping_sub(a) & ring.index_mask();
    d != 0 && d <= ring.entries()
}
