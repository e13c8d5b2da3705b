//! A test double for the driver's own logic.
//!
//! [`FakeDevice`] is a [`Backend`] with a memory-backed BAR that logs every access, plain
//! `Vec`-backed DMA memory, and just enough scripted device-side behaviour to answer the
//! driver: identity registers, `CFG_RESET`/`READY`, command windows that report BUSY for a
//! configurable number of polls and then a scripted [`CmdResult`] (Ok by default), and a QP
//! QUERY that reports the state the last MODIFY set and a drained SQ/RQ. It is *not* a model
//! of the NIC: it never fetches WQEs or writes CQEs. Tests write CQEs themselves with
//! [`FakeDevice::mem_write`].
//!
//! It also checks the driver's manners: a write to a read-only register, a write to a command
//! window while it is BUSY, or an access outside BAR0 is recorded in
//! [`FakeDevice::violations`].

use core::time::Duration;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ferroce_proto::host::qp::QpAttrMask;
use ferroce_proto::host::regs::{self, Access as RegAccess, CmdResult, CmdStatus};
use ferroce_proto::host::{RegWrite, HOST_INTERFACE_VERSION};

use super::{align_up, check_alloc_args, Backend, DmaBuffer, DmaMemory};
use crate::error::{Error, Result, Window};

/// One BAR access as the fake saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarAccess {
    Read { offset: u32, value: u32 },
    Write { offset: u32, value: u32 },
}

/// Identity the fake reports (what `ID_*` registers read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FakeIdentity {
    pub version: u32,
    pub caps: u32,
    pub num_qps: u32,
    pub num_cqs: u32,
    pub num_mrs: u32,
    pub ring_limits: u32,
    pub qp_limits: u32,
    pub misc: u32,
}

impl Default for FakeIdentity {
    fn default() -> Self {
        use regs::{caps, id_misc, id_qp_limits, id_ring_limits};
        FakeIdentity {
            version: HOST_INTERFACE_VERSION.to_reg(),
            caps: caps::IPV4 | caps::IPV6 | caps::RDMA_READ | caps::ATOMICS | caps::INLINE,
            num_qps: 64,
            num_cqs: 16,
            num_mrs: 64,
            ring_limits: id_ring_limits::LOG2_SQ_ENTRIES.place(12)
                | id_ring_limits::LOG2_RQ_ENTRIES.place(12)
                | id_ring_limits::LOG2_CQ_ENTRIES.place(16)
                | id_ring_limits::LOG2_STRIDE.place(10),
            qp_limits: id_qp_limits::MAX_PMTU.place(5)
                | id_qp_limits::MAX_RD_ATOMIC.place(16)
                | id_qp_limits::MAX_DEST_RD_ATOMIC.place(16)
                | id_qp_limits::MAX_SGE.place(16),
            misc: id_misc::GID_ENTRIES.place(16)
                | id_misc::VECTORS.place(4)
                | id_misc::PD_BITS.place(24),
        }
    }
}

/// Base of the fake's IOVA space; nonzero so a zero IOVA in a register is visibly wrong.
pub const FAKE_IOVA_BASE: u64 = 0x1_0000_0000;

/// How far the fake clock moves per [`Backend::relax`].
pub const FAKE_RELAX_STEP: Duration = Duration::from_micros(1);

struct WindowState {
    /// Status reads that still report BUSY.
    busy: u32,
    result: CmdResult,
    scripted: VecDeque<CmdResult>,
}

struct BarState {
    regs: HashMap<u32, u32>,
    log: Vec<BarAccess>,
    violations: Vec<String>,
    windows: [WindowState; 3],
    busy_polls: u32,
    reset_polls: u32,
    reset_remaining: u32,
    /// QP states as the last successful MODIFY left them (for QUERY).
    qp_states: HashMap<u32, u32>,
    /// Last SQ / RQ doorbell values per QPN (for QUERY: producer = consumer = last doorbell).
    sq_db: HashMap<u32, u32>,
    rq_db: HashMap<u32, u32>,
    interrupts: HashMap<u16, u32>,
    events: VecDeque<(u32, u32)>,
}

struct Allocation {
    len: usize,
    bytes: Arc<Mutex<Vec<u8>>>,
}

struct MemState {
    next_iova: u64,
    allocs: BTreeMap<u64, Allocation>,
    freed: Vec<(u64, usize)>,
    /// Remaining bytes the fake will allocate (for out-of-memory tests).
    budget: Option<usize>,
}

/// The fake NIC. Create it with [`FakeDevice::new`], hand an `Arc` of it to
/// [`crate::Device::open`], and keep another `Arc` to inspect and script it.
pub struct FakeDevice {
    bar: Mutex<BarState>,
    mem: Arc<Mutex<MemState>>,
    clock_ns: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn window_of_command(offset: u32) -> Option<Window> {
    [Window::Qp, Window::Mr, Window::Cq]
        .into_iter()
        .find(|w| w.command_offset() == offset)
}

fn window_of_register(offset: u32) -> Option<Window> {
    match offset {
        regs::QP_WIN_BASE..regs::MR_WIN_BASE => Some(Window::Qp),
        regs::MR_WIN_BASE..regs::CQ_WIN_BASE => Some(Window::Mr),
        regs::CQ_WIN_BASE..regs::CNT_BASE => Some(Window::Cq),
        _ => None,
    }
}

fn widx(w: Window) -> usize {
    match w {
        Window::Qp => 0,
        Window::Mr => 1,
        Window::Cq => 2,
    }
}

impl FakeDevice {
    /// A fake with the default identity (64 QPs, 16 CQs, 64 MRs, IPv4/IPv6/READ/atomics/
    /// inline), command windows that are BUSY for one poll, and a reset that takes two polls.
    pub fn new() -> Arc<FakeDevice> {
        FakeDevice::with_identity(FakeIdentity::default())
    }

    /// A fake reporting `id`.
    pub fn with_identity(id: FakeIdentity) -> Arc<FakeDevice> {
        let mut regs_map = HashMap::new();
        for r in regs::REGISTERS {
            if r.reset != 0 && r.count == 1 {
                regs_map.insert(r.offset, r.reset);
            }
        }
        for (o, v) in [
            (regs::ID_MAGIC, regs::MAGIC),
            (regs::ID_VERSION, id.version),
            (regs::ID_CAPS, id.caps),
            (regs::ID_DATAPATH, 64),
            (regs::ID_CLOCK_KHZ, 156_250),
            (regs::ID_LINE_RATE, 10_000),
            (regs::ID_NUM_QPS, id.num_qps),
            (regs::ID_NUM_CQS, id.num_cqs),
            (regs::ID_NUM_MRS, id.num_mrs),
            (regs::ID_RING_LIMITS, id.ring_limits),
            (regs::ID_QP_LIMITS, id.qp_limits),
            (regs::ID_MISC, id.misc),
        ] {
            regs_map.insert(o, v);
        }
        let window = || WindowState {
            busy: 0,
            result: CmdResult::Ok,
            scripted: VecDeque::new(),
        };
        Arc::new(FakeDevice {
            bar: Mutex::new(BarState {
                regs: regs_map,
                log: Vec::new(),
                violations: Vec::new(),
                windows: [window(), window(), window()],
                busy_polls: 1,
                reset_polls: 2,
                reset_remaining: 0,
                qp_states: HashMap::new(),
                sq_db: HashMap::new(),
                rq_db: HashMap::new(),
                interrupts: HashMap::new(),
                events: VecDeque::new(),
            }),
            mem: Arc::new(Mutex::new(MemState {
                next_iova: FAKE_IOVA_BASE,
                allocs: BTreeMap::new(),
                freed: Vec::new(),
                budget: None,
            })),
            clock_ns: AtomicU64::new(0),
        })
    }

    // ---- scripting -----------------------------------------------------------------------

    /// Overwrite a register as the device would (identity, status, query results).
    pub fn set_reg(&self, offset: u32, value: u32) {
        lock(&self.bar).regs.insert(offset, value);
    }

    /// The register file's current value (what a read would return, without logging it).
    pub fn reg(&self, offset: u32) -> u32 {
        lock(&self.bar).regs.get(&offset).copied().unwrap_or(0)
    }

    /// How many status reads report BUSY after each command (default 1). `u32::MAX` never
    /// finishes.
    pub fn set_busy_polls(&self, polls: u32) {
        lock(&self.bar).busy_polls = polls;
    }

    /// How many `CFG_STATUS` reads report not READY after a reset (default 2).
    pub fn set_reset_polls(&self, polls: u32) {
        lock(&self.bar).reset_polls = polls;
    }

    /// The next command in `window` finishes with `result` (queued; later commands Ok).
    pub fn push_result(&self, window: Window, result: CmdResult) {
        lock(&self.bar).windows[widx(window)]
            .scripted
            .push_back(result);
    }

    /// Let interrupt `vector` fire once.
    pub fn raise_interrupt(&self, vector: u16) {
        *lock(&self.bar).interrupts.entry(vector).or_default() += 1;
    }

    /// Queue an async event (raw `ASYNC_EVENT` / `ASYNC_EVENT_INFO` values).
    pub fn push_event(&self, event: u32, info: u32) {
        lock(&self.bar).events.push_back((event, info));
    }

    /// Allocate at most `bytes` more DMA memory, then fail (for out-of-memory tests).
    pub fn set_dma_budget(&self, bytes: Option<usize>) {
        lock(&self.mem).budget = bytes;
    }

    // ---- inspection ----------------------------------------------------------------------

    /// Every BAR access so far, in order.
    pub fn log(&self) -> Vec<BarAccess> {
        lock(&self.bar).log.clone()
    }

    /// Every BAR write so far, in order.
    pub fn writes(&self) -> Vec<RegWrite> {
        lock(&self.bar)
            .log
            .iter()
            .filter_map(|a| match *a {
                BarAccess::Write { offset, value } => Some(RegWrite::new(offset, value)),
                BarAccess::Read { .. } => None,
            })
            .collect()
    }

    /// Forget the access log (typically after bring-up, before the sequence under test).
    pub fn clear_log(&self) {
        lock(&self.bar).log.clear();
    }

    /// Protocol violations the fake noticed (should stay empty).
    pub fn violations(&self) -> Vec<String> {
        lock(&self.bar).violations.clone()
    }

    /// Current fake time.
    pub fn time(&self) -> Duration {
        Duration::from_nanos(self.clock_ns.load(Ordering::Relaxed))
    }

    /// Read `len` bytes of fake host memory at `iova` (inside one live allocation).
    pub fn mem_read(&self, iova: u64, len: usize) -> Option<Vec<u8>> {
        let (bytes, off) = self.find(iova, len)?;
        let b = lock(&bytes);
        Some(b[off..off + len].to_vec())
    }

    /// Write fake host memory at `iova`, as the NIC's DMA would (e.g. a CQE).
    pub fn mem_write(&self, iova: u64, data: &[u8]) -> bool {
        match self.find(iova, data.len()) {
            Some((bytes, off)) => {
                lock(&bytes)[off..off + data.len()].copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    /// Live DMA allocations as (iova, len).
    pub fn allocations(&self) -> Vec<(u64, usize)> {
        lock(&self.mem)
            .allocs
            .iter()
            .map(|(i, a)| (*i, a.len))
            .collect()
    }

    /// Freed DMA allocations as (iova, len), in order of freeing.
    pub fn freed(&self) -> Vec<(u64, usize)> {
        lock(&self.mem).freed.clone()
    }

    fn find(&self, iova: u64, len: usize) -> Option<(Arc<Mutex<Vec<u8>>>, usize)> {
        let mem = lock(&self.mem);
        let (base, a) = mem.allocs.range(..=iova).next_back()?;
        let off = (iova - base) as usize;
        (off.checked_add(len)? <= a.len).then(|| (a.bytes.clone(), off))
    }

    // ---- device-side behaviour -------------------------------------------------------------

    fn start_command(bar: &mut BarState, window: Window, command: u32) {
        let busy_polls = bar.busy_polls;
        let w = &mut bar.windows[widx(window)];
        let result = w.scripted.pop_front().unwrap_or(CmdResult::Ok);
        w.busy = busy_polls;
        w.result = result;
        if result != CmdResult::Ok {
            return;
        }
        if window == Window::Qp {
            let qpn = bar.regs.get(&regs::QP_CMD_QPN).copied().unwrap_or(0);
            let st = bar.regs.get(&regs::QP_STATE).copied().unwrap_or(0);
            match command {
                regs::qp_cmd::MODIFY => {
                    let mask = QpAttrMask(bar.regs.get(&regs::QP_ATTR_MASK).copied().unwrap_or(0));
                    if mask.contains(QpAttrMask::STATE) {
                        bar.qp_states.insert(qpn, regs::qp_state::STATE.get(st));
                    }
                }
                regs::qp_cmd::QUERY => {
                    let state = bar.qp_states.get(&qpn).copied().unwrap_or(0);
                    bar.regs
                        .insert(regs::QP_STATE, regs::qp_state::STATE.place(state));
                    let sq = bar.sq_db.get(&qpn).copied().unwrap_or(0);
                    let rq = bar.rq_db.get(&qpn).copied().unwrap_or(0);
                    let idx = |p: u32| {
                        regs::qp_index::PRODUCER.place(p) | regs::qp_index::CONSUMER.place(p)
                    };
                    bar.regs.insert(regs::QP_SQ_INDEX, idx(sq));
                    bar.regs.insert(regs::QP_RQ_INDEX, idx(rq));
                }
                _ => {}
            }
        }
    }

    fn on_write(&self, bar: &mut BarState, offset: u32, value: u32) {
        if let Some(db) = regs::Doorbell::decode(offset) {
            match db {
                regs::Doorbell::Sq(q) => {
                    bar.sq_db.insert(q, value);
                }
                regs::Doorbell::Rq(q) => {
                    bar.rq_db.insert(q, value);
                }
                _ => {}
            }
            return;
        }
        if let Some(w) = window_of_register(offset) {
            if bar.windows[widx(w)].busy > 0 {
                bar.violations
                    .push(format!("write {offset:#x} while the {w:?} window is BUSY"));
                return;
            }
        }
        let Some((info, _)) = regs::decode(offset) else {
            bar.violations
                .push(format!("write {value:#x} to reserved offset {offset:#x}"));
            return;
        };
        match info.access {
            RegAccess::RO => bar
                .violations
                .push(format!("write {value:#x} to read-only {}", info.name)),
            RegAccess::RW => {
                bar.regs.insert(offset, value);
            }
            RegAccess::W1C => {
                let old = bar.regs.get(&offset).copied().unwrap_or(0);
                bar.regs.insert(offset, old & !value);
            }
            RegAccess::WO => {
                if let Some(w) = window_of_command(offset) {
                    Self::start_command(bar, w, value);
                } else if offset == regs::CFG_RESET && value & 1 != 0 {
                    bar.reset_remaining = bar.reset_polls;
                    bar.qp_states.clear();
                } else if offset == regs::ASYNC_EVENT_POP {
                    bar.events.pop_front();
                }
            }
        }
    }

    fn on_read(bar: &mut BarState, offset: u32) -> u32 {
        for w in [Window::Qp, Window::Mr, Window::Cq] {
            if offset == w.status_offset() {
                let ws = &mut bar.windows[widx(w)];
                let busy = ws.busy > 0;
                if busy && ws.busy != u32::MAX {
                    ws.busy -= 1;
                }
                return CmdStatus::encode(busy, ws.result);
            }
        }
        match offset {
            regs::CFG_STATUS => {
                if bar.reset_remaining > 0 {
                    bar.reset_remaining -= 1;
                    0
                } else {
                    regs::cfg_status::READY | regs::cfg_status::LINK_UP
                }
            }
            regs::ASYNC_EVENT => bar.events.front().map_or(0, |e| e.0),
            regs::ASYNC_EVENT_INFO => bar.events.front().map_or(0, |e| e.1),
            _ => match regs::decode(offset) {
                Some((info, _)) if info.access == RegAccess::WO => 0,
                _ => bar.regs.get(&offset).copied().unwrap_or(0),
            },
        }
    }
}

impl Backend for FakeDevice {
    fn read32(&self, offset: u32) -> u32 {
        let mut bar = lock(&self.bar);
        if !offset.is_multiple_of(4) || offset >= regs::BAR0_SIZE {
            bar.violations
                .push(format!("read at invalid offset {offset:#x}"));
            return 0;
        }
        let value = Self::on_read(&mut bar, offset);
        bar.log.push(BarAccess::Read { offset, value });
        value
    }

    fn write32(&self, offset: u32, value: u32) {
        let mut bar = lock(&self.bar);
        if !offset.is_multiple_of(4) || offset >= regs::BAR0_SIZE {
            bar.violations
                .push(format!("write at invalid offset {offset:#x}"));
            return;
        }
        bar.log.push(BarAccess::Write { offset, value });
        self.on_write(&mut bar, offset, value);
    }

    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaBuffer> {
        check_alloc_args(len, align)?;
        let mut mem = lock(&self.mem);
        if let Some(budget) = mem.budget {
            if len > budget {
                return Err(Error::DmaAlloc {
                    len,
                    reason: "fake DMA budget exhausted".into(),
                });
            }
            mem.budget = Some(budget - len);
        }
        let iova = align_up(mem.next_iova, align as u64).ok_or(Error::DmaAlloc {
            len,
            reason: "IOVA space exhausted".into(),
        })?;
        // Leave a gap after each buffer so an overrun never lands in the next one.
        mem.next_iova = align_up(iova + len as u64 + 64, 64).unwrap_or(u64::MAX);
        let bytes = Arc::new(Mutex::new(vec![0u8; len]));
        mem.allocs.insert(
            iova,
            Allocation {
                len,
                bytes: bytes.clone(),
            },
        );
        Ok(DmaBuffer::new(
            iova,
            len,
            Box::new(FakeDma {
                iova,
                len,
                bytes,
                mem: self.mem.clone(),
            }),
        ))
    }

    fn wait_interrupt(&self, vector: u16, timeout: Duration) -> Result<bool> {
        let mut bar = lock(&self.bar);
        match bar.interrupts.get_mut(&vector) {
            Some(n) if *n > 0 => {
                *n -= 1;
                Ok(true)
            }
            _ => {
                self.clock_ns
                    .fetch_add(timeout.as_nanos() as u64, Ordering::Relaxed);
                Ok(false)
            }
        }
    }

    fn now(&self) -> Duration {
        self.time()
    }

    fn relax(&self) {
        self.clock_ns
            .fetch_add(FAKE_RELAX_STEP.as_nanos() as u64, Ordering::Relaxed);
    }
}

/// One fake DMA allocation.
struct FakeDma {
    iova: u64,
    len: usize,
    bytes: Arc<Mutex<Vec<u8>>>,
    mem: Arc<Mutex<MemState>>,
}

impl DmaMemory for FakeDma {
    fn read(&self, offset: usize, buf: &mut [u8]) {
        buf.copy_from_slice(&lock(&self.bytes)[offset..offset + buf.len()]);
    }

    fn write(&self, offset: usize, data: &[u8]) {
        lock(&self.bytes)[offset..offset + data.len()].copy_from_slice(data);
    }
}

impl Drop for FakeDma {
    fn drop(&mut self) {
        let mut mem = lock(&self.mem);
        mem.allocs.remove(&self.iova);
        mem.freed.push((self.iova, self.len));
    }
}
