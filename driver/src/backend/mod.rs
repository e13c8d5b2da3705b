//! Backends: how the driver reaches a NIC.
//!
//! The whole driver is written against the [`Backend`] trait: 32-bit BAR0 register access,
//! DMA-able memory, interrupt waits and a clock. Each backend is one module:
//!
//! * [`vfio`] (feature `vfio`): real hardware through Linux VFIO. BAR0 is mmap'd, DMA memory
//!   is anonymous memory mapped into the IOMMU, interrupts are MSI-X eventfds.
//! * [`fake`]: a test double (memory-backed BAR, Vec-backed DMA memory, scripted command
//!   results) for testing the driver's own logic.
//! * The simulator backend lives in the `ferroce-sim` crate: its registers are AXI4-Lite
//!   transactions on the cycle-accurate NIC, its DMA memory is the simulator's host-memory
//!   model, and its waits step the clock.
//!
//! DMA memory is an owning type, [`DmaBuffer`]: an IOVA range plus a backend object that
//! reads and writes it. The driver never dereferences a raw pointer into DMA memory, because
//! in the simulator the memory is not in this address space at all; on VFIO the backend object
//! does the (volatile) pointer access. Dropping the buffer frees it (VFIO: unmaps it from the
//! IOMMU first).

use core::fmt;
use core::time::Duration;

use crate::error::{Error, Result};

pub mod fake;
#[cfg(feature = "vfio")]
pub mod vfio;

/// What the driver needs from a way of reaching a ferroce NIC.
///
/// Implementations must be usable from several threads (`Send + Sync`): verbs objects are
/// shared between threads, as in ibverbs. A backend whose model is single-threaded wraps it in
/// a `Mutex`.
///
/// The driver performs every register access through [`crate::regs::Registers`], which
/// checks alignment and range before calling [`Backend::read32`] / [`Backend::write32`].
pub trait Backend: Send + Sync {
    /// Read the 32-bit register at BAR0 byte `offset` (4-byte aligned, `< BAR0_SIZE`).
    fn read32(&self, offset: u32) -> u32;

    /// Write the 32-bit register at BAR0 byte `offset` (4-byte aligned, `< BAR0_SIZE`).
    /// The write must be issued in program order with respect to earlier DMA-memory writes
    /// that the driver fenced (`fence(Release)`) before it: doorbells rely on it.
    fn write32(&self, offset: u32, value: u32);

    /// Allocate `len` bytes of zeroed memory the NIC can reach by DMA, at an IOVA aligned to
    /// `align` (a power of two). The memory stays reachable until the buffer is dropped.
    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaBuffer>;

    /// Wait until interrupt `vector` fires or `timeout` (backend time) passes. Returns
    /// whether it fired. One firing is consumed per successful wait.
    fn wait_interrupt(&self, vector: u16, timeout: Duration) -> Result<bool>;

    /// Monotonic time of this backend, used for every driver timeout. Real hardware: wall
    /// time since open. Simulator: simulated time, so timeouts mean the same in both.
    fn now(&self) -> Duration;

    /// Called in every iteration of a driver busy-wait (command BUSY polling, reset, QP
    /// drain, [`crate::CompletionQueue::poll_until`]). Real hardware spins; a simulator
    /// advances its clock here, which is what makes the device make progress.
    fn relax(&self) {
        core::hint::spin_loop();
    }
}

/// The memory behind one [`DmaBuffer`], as seen by its backend. Offsets are relative to the
/// buffer start and already bounds-checked by [`DmaBuffer`].
///
/// Dropping the object releases the memory (VFIO: `VFIO_IOMMU_UNMAP_DMA`, then `munmap`;
/// simulator: return the range to the host-memory model's allocator).
pub trait DmaMemory: Send + Sync {
    /// Copy `buf.len()` bytes at `offset` into `buf`. Must observe the device's latest
    /// writes (no caching across calls).
    fn read(&self, offset: usize, buf: &mut [u8]);
    /// Copy `data` to `offset`.
    fn write(&self, offset: usize, data: &[u8]);
    /// Set `len` bytes at `offset` to `byte`.
    fn fill(&self, offset: usize, len: usize, byte: u8) {
        let chunk = [byte; 256];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(chunk.len());
            self.write(offset + done, &chunk[..n]);
            done += n;
        }
    }
}

/// DMA-able memory owned by the driver: `len` bytes at IOVA `iova`.
///
/// All access is bounds-checked and goes through the backend's [`DmaMemory`], so the same
/// driver code runs on mmap'd memory (VFIO) and on the simulator's host-memory model. The
/// memory is freed when the buffer is dropped; share a buffer between several owners (for
/// example a [`crate::MemoryRegion`] and the application) with `Arc<DmaBuffer>`.
pub struct DmaBuffer {
    iova: u64,
    len: usize,
    mem: Box<dyn DmaMemory>,
}

impl DmaBuffer {
    /// For backends: wrap memory that is reachable by the NIC at `iova .. iova + len`.
    pub fn new(iova: u64, len: usize, mem: Box<dyn DmaMemory>) -> DmaBuffer {
        DmaBuffer { iova, len, mem }
    }

    /// The bus address (IOVA) of the first byte: what the NIC is given.
    pub fn iova(&self) -> u64 {
        self.iova
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check(&self, offset: usize, len: usize) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::DmaOutOfBounds {
                offset,
                len,
                size: self.len,
            }),
        }
    }

    /// Copy bytes at `offset` into `buf`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(offset, buf.len())?;
        self.mem.read(offset, buf);
        Ok(())
    }

    /// Copy `data` to `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        self.mem.write(offset, data);
        Ok(())
    }

    /// Set `len` bytes at `offset` to `byte`.
    pub fn fill(&self, offset: usize, len: usize, byte: u8) -> Result<()> {
        self.check(offset, len)?;
        self.mem.fill(offset, len, byte);
        Ok(())
    }

    /// The bytes `offset .. offset + len` as a vector.
    pub fn to_vec(&self, offset: usize, len: usize) -> Result<Vec<u8>> {
        let mut v = vec![0; len];
        self.read(offset, &mut v)?;
        Ok(v)
    }

    /// The byte at `offset`.
    pub fn read_u8(&self, offset: usize) -> Result<u8> {
        let mut b = [0u8; 1];
        self.read(offset, &mut b)?;
        Ok(b[0])
    }

    /// The little-endian u32 at `offset`.
    pub fn read_u32(&self, offset: usize) -> Result<u32> {
        let mut b = [0u8; 4];
        self.read(offset, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// The little-endian u64 at `offset`.
    pub fn read_u64(&self, offset: usize) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read(offset, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Store `value` little-endian at `offset`.
    pub fn write_u32(&self, offset: usize, value: u32) -> Result<()> {
        self.write(offset, &value.to_le_bytes())
    }

    /// Store `value` little-endian at `offset`.
    pub fn write_u64(&self, offset: usize, value: u64) -> Result<()> {
        self.write(offset, &value.to_le_bytes())
    }
}

impl fmt::Debug for DmaBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DmaBuffer")
            .field("iova", &format_args!("{:#x}", self.iova))
            .field("len", &self.len)
            .finish()
    }
}

/// Round `value` up to a multiple of `align` (a power of two); `None` on overflow.
pub(crate) fn align_up(value: u64, align: u64) -> Option<u64> {
    debug_assert!(align.is_power_of_two());
    value.checked_add(align - 1).map(|v| v & !(align - 1))
}

/// Argument check shared by the backends' `alloc_dma`.
pub(crate) fn check_alloc_args(len: usize, align: usize) -> Result<()> {
    if len == 0 {
        return Err(Error::InvalidArgument("DMA allocation of 0 bytes"));
    }
    if !align.is_power_of_two() {
        return Err(Error::InvalidArgument(
            "DMA alignment is not a power of two",
        ));
    }
    Ok(())
}
