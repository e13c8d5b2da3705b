//! [`SimBackend`]: the driver's [`Backend`] on a simulated NIC.
//!
//! * **Registers**: [`Backend::read32`] / [`Backend::write32`] are AXI4-Lite transactions on the
//!   NIC model ([`RegisterTarget::axil_read`] / [`RegisterTarget::axil_write`]), which step the
//!   clock until they complete.
//! * **DMA memory**: [`Backend::alloc_dma`] maps a zeroed range of the host-memory model
//!   ([`HostMemory::alloc`](super::memory::HostMemory::alloc)); the returned `DmaBuffer`
//!   reads and writes the model at its IOVA and unmaps the range when dropped. The NIC's DMA
//!   shell serves the same model, so what the driver writes is what the NIC reads.
//! * **Time** is simulated: [`Backend::now`] is the NIC model's cycle count over its clock
//!   frequency ([`RegisterTarget::now`]); [`Backend::wait_interrupt`] steps the clock until
//!   the vector fires or the timeout has passed *in simulated time*; [`Backend::relax`] steps
//!   a few cycles, which is what lets the NIC make progress while the driver busy-waits. So
//!   every driver timeout means the same on the simulator as on a board.
//!
//! Thread safety: the target sits in a `Mutex` (the backend is `Send + Sync` as the driver
//! requires); a wait releases it between cycles, so other threads can post work while one
//! thread waits for an interrupt. Lock order: the target, then the host memory.
use super::lock;
use super::memory::{AllocError, SharedMemory};
use ferroce_driver::backend::{Backend, DmaBuffer, DmaMemory};
use ferroce_driver::{Error, Result};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Core clock of the simulated NIC, unless a model says otherwise (the `ID_CLOCK_KHZ` of the
/// reference build).
pub const DEFAULT_CLOCK_HZ: u64 = 250_000_000;

/// Cycles [`Backend::relax`] advances by default: enough for a register write to reach the
/// NIC's logic, short enough that polling loops stay fine-grained.
pub const DEFAULT_RELAX_CYCLES: u64 = 8;

/// Simulated time of `cycles` at `clock_hz` (rounded down to the nanosecond).
pub fn cycles_to_duration(cycles: u64, clock_hz: u64) -> Duration {
    let ns = cycles as u128 * 1_000_000_000 / clock_hz as u128;
    Duration::from_nanos(ns.min(u64::MAX as u128) as u64)
}

/// Cycles needed to cover `d` at `clock_hz` (rounded up).
pub fn duration_to_cycles(d: Duration, clock_hz: u64) -> u64 {
    let c = (d.as_nanos() * clock_hz as u128).div_ceil(1_000_000_000);
    c.min(u64::MAX as u128) as u64
}

/// What the driver's backend needs from the simulated NIC. The top-level NIC model implements
/// it: register accesses as AXI4-Lite transactions on its `s_axil_*` port (see
/// [`super::axil::AxiLiteMaster`]), `step` runs whole system cycles (the NIC plus its DMA shell,
/// links and peers), and the interrupt outputs are latched host-side as MSI-X messages would
/// be by the interrupt controller.
pub trait RegisterTarget: Send {
    /// One AXI4-Lite read of the 32-bit register at BAR0 byte offset `addr`, stepping the clock
    /// until it completes.
    fn axil_read(&mut self, addr: u32) -> u32;
    /// One AXI4-Lite write, stepping the clock until the write response.
    fn axil_write(&mut self, addr: u32, data: u32);
    /// Run `cycles` clock cycles.
    fn step(&mut self, cycles: u64);
    /// Interrupt `vector` has fired and the host has not yet consumed it.
    fn interrupt_pending(&self, vector: u16) -> bool;
    /// Simulated time: cycles so far over the clock frequency.
    fn now(&self) -> Duration;
    /// The host consumed one firing of `vector` (a successful wait; on VFIO, the eventfd
    /// read). A target whose pending state is a level that the driver clears through a
    /// register (`IRQ_VEC_PENDING`) keeps the default, which does nothing.
    fn ack_interrupt(&mut self, vector: u16) {
        let _ = vector;
    }
}

/// The simulator's driver backend (see the module doc).
pub struct SimBackend<T: RegisterTarget> {
    target: Mutex<T>,
    memory: SharedMemory,
    relax_cycles: u64,
}

impl<T: RegisterTarget> SimBackend<T> {
    /// A backend over `target`, with DMA buffers in `memory` (the same handle the NIC model's
    /// DMA shell serves).
    pub fn new(target: T, memory: SharedMemory) -> Self {
        SimBackend {
            target: Mutex::new(target),
            memory,
            relax_cycles: DEFAULT_RELAX_CYCLES,
        }
    }

    /// Set how many cycles [`Backend::relax`] steps (at least 1).
    pub fn with_relax_cycles(mut self, cycles: u64) -> Self {
        self.relax_cycles = cycles.max(1);
        self
    }

    /// The host memory the DMA buffers live in.
    pub fn memory(&self) -> &SharedMemory {
        &self.memory
    }

    /// Exclusive access to the NIC model (to inspect it or run cycles directly). Do not hold
    /// it across a driver call on the same thread: the driver would wait for it forever.
    pub fn target(&self) -> MutexGuard<'_, T> {
        lock(&self.target)
    }

    /// The NIC model back.
    pub fn into_target(self) -> T {
        self.target.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T: RegisterTarget> Backend for SimBackend<T> {
    fn read32(&self, offset: u32) -> u32 {
        lock(&self.target).axil_read(offset)
    }

    fn write32(&self, offset: u32, value: u32) {
        lock(&self.target).axil_write(offset, value)
    }

    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaBuffer> {
        let iova = lock(&self.memory)
            .alloc(len as u64, align as u64)
            .map_err(|e| match e {
                AllocError::ZeroLength => Error::InvalidArgument("DMA allocation of 0 bytes"),
                AllocError::BadAlignment(_) => {
                    Error::InvalidArgument("DMA alignment is not a power of two")
                }
                e @ AllocError::Exhausted { .. } => Error::DmaAlloc {
                    len,
                    reason: e.to_string(),
                },
            })?;
        let mem = SimDma {
            iova,
            memory: self.memory.clone(),
        };
        Ok(DmaBuffer::new(iova, len, Box::new(mem)))
    }

    fn wait_interrupt(&self, vector: u16, timeout: Duration) -> Result<bool> {
        let deadline = lock(&self.target).now().saturating_add(timeout);
        loop {
            // one cycle per iteration, releasing the lock in between so other threads can
            // reach the NIC while this one waits
            let mut t = lock(&self.target);
            if t.interrupt_pending(vector) {
                t.ack_interrupt(vector);
                return Ok(true);
            }
            if t.now() >= deadline {
                return Ok(false);
            }
            t.step(1);
        }
    }

    fn now(&self) -> Duration {
        lock(&self.target).now()
    }

    fn relax(&self) {
        lock(&self.target).step(self.relax_cycles);
    }
}

/// The memory behind one simulated `DmaBuffer`: a range of the host-memory model.
struct SimDma {
    iova: u64,
    memory: SharedMemory,
}

impl DmaMemory for SimDma {
    fn read(&self, offset: usize, buf: &mut [u8]) {
        lock(&self.memory).read(self.iova + offset as u64, buf);
    }

    fn write(&self, offset: usize, data: &[u8]) {
        lock(&self.memory).write(self.iova + offset as u64, data);
    }

    fn fill(&self, offset: usize, len: usize, byte: u8) {
        lock(&self.memory).fill(self.iova + offset as u64, len as u64, byte);
    }
}

impl Drop for SimDma {
    fn drop(&mut self) {
        lock(&self.memory).free(self.iova);
    }
}
