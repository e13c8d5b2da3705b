//! The VFIO backend: a ferroce NIC on the PCI bus, driven from user space.
//!
//! * **Open** ([`VfioBackend::open`]): check that `/dev/vfio/vfio` exists, that the PCI
//!   device exists, is bound to `vfio-pci` and has an IOMMU group, then open the container
//!   (type1v2 IOMMU), group and device through `vfio-ioctls`, mmap BAR0, enable memory
//!   decoding and bus mastering, and enable MSI-X with one eventfd per vector. Every failure
//!   is a [`VfioError`] that says what to do.
//! * **DMA memory** ([`Backend::alloc_dma`]): anonymous page-aligned memory, mapped into the
//!   IOMMU with `VFIO_IOMMU_MAP_DMA` at an IOVA from a first-fit allocator; unmapped and
//!   freed when the [`DmaBuffer`] drops. Access goes through raw pointers with volatile
//!   copies, because the NIC reads and writes the memory concurrently.
//! * **Registers**: volatile 32-bit loads and stores on the BAR0 mapping ([`Bar`]).
//! * **Interrupts**: `poll(2)` on the vector's eventfd.
//!
//! The system calls sit behind the internal `sys` traits, so this logic is tested with a fake
//! system-call layer (real anonymous memory standing in for the BAR and the DMA pages).

mod iova;
mod sys;
#[cfg(test)]
mod tests;

use core::fmt;
use core::str::FromStr;
use core::sync::atomic::{compiler_fence, Ordering};
use core::time::Duration;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ferroce_proto::host::regs;
use memmap2::{MmapOptions, MmapRaw};
use vmm_sys_util::eventfd::{EventFd, EFD_NONBLOCK};

use self::iova::IovaAllocator;
use self::sys::{DeviceSys, RealSys, VfioSys, BAR0_REGION, REGION_FLAG_MMAP};
use super::{align_up, check_alloc_args, Backend, DmaBuffer, DmaMemory};
use crate::error::{Error, Result};
use crate::util::lock;

/// A PCI address `domain:bus:device.function`, e.g. `0000:01:00.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PciAddress {
    pub domain: u16,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

impl FromStr for PciAddress {
    type Err = VfioError;

    /// Parse `DDDD:BB:DD.F`, or `BB:DD.F` (domain 0), in hexadecimal.
    fn from_str(s: &str) -> core::result::Result<PciAddress, VfioError> {
        let bad = || VfioError::BadPciAddress(s.to_string());
        let parts: Vec<&str> = s.trim().split(':').collect();
        let (domain, bus, rest) = match parts.as_slice() {
            [d, b, r] => (u16::from_str_radix(d, 16).map_err(|_| bad())?, *b, *r),
            [b, r] => (0, *b, *r),
            _ => return Err(bad()),
        };
        let (dev, func) = rest.split_once('.').ok_or_else(bad)?;
        let bus = u8::from_str_radix(bus, 16).map_err(|_| bad())?;
        let device = u8::from_str_radix(dev, 16).map_err(|_| bad())?;
        let function = u8::from_str_radix(func, 16).map_err(|_| bad())?;
        if device > 0x1f || function > 7 {
            return Err(bad());
        }
        Ok(PciAddress {
            domain,
            bus,
            device,
            function,
        })
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// Why the VFIO backend could not open or operate a device. Messages say what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VfioError {
    #[error("ferroce: /dev/vfio/vfio not found: load vfio-pci (modprobe vfio-pci) and bind the device to it")]
    NoVfio,
    #[error("ferroce: invalid PCI address {0:?}: expected DDDD:BB:DD.F or BB:DD.F (hex)")]
    BadPciAddress(String),
    #[error("ferroce: no PCI device {0}: /sys/bus/pci/devices/{0} does not exist (check lspci)")]
    NoDevice(PciAddress),
    #[error("ferroce: PCI device {pci} is bound to {driver}, not vfio-pci: unbind it, then `echo <vendor> <device> > /sys/bus/pci/drivers/vfio-pci/new_id` or use driverctl")]
    NotVfioPci { pci: PciAddress, driver: String },
    #[error("ferroce: PCI device {0} has no IOMMU group: enable the IOMMU (intel_iommu=on or amd_iommu=on) or load vfio with enable_unsafe_noiommu_mode")]
    NoIommuGroup(PciAddress),
    #[error("ferroce: /dev/vfio/{group} (IOMMU group of {pci}) not found: bind every device of the group to vfio-pci")]
    NoGroupFile { pci: PciAddress, group: u32 },
    #[error("ferroce: VFIO {op} failed: {message}")]
    Ioctl { op: &'static str, message: String },
    #[error(
        "ferroce: BAR0 of {pci} has {size:#x} bytes; the ferroce host interface needs {needed:#x}"
    )]
    BarTooSmall {
        pci: PciAddress,
        size: u64,
        needed: u64,
    },
    #[error("ferroce: BAR0 of {0} cannot be mmap'd through VFIO")]
    BarNotMappable(PciAddress),
    #[error("ferroce: mmap failed: {0}")]
    Mmap(String),
    #[error("ferroce: eventfd failed: {0}")]
    EventFd(String),
    #[error("ferroce: interrupt vector {vector} does not exist ({count} MSI-X vectors enabled)")]
    NoVector { vector: u16, count: usize },
    #[error("ferroce: IOVA space exhausted allocating {len} bytes")]
    IovaExhausted { len: usize },
}

/// Knobs of [`VfioBackend::open_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VfioOptions {
    /// At most this many MSI-X vectors are enabled (the NIC's CQs pick among them).
    pub max_vectors: u16,
    /// IOVA window for DMA buffers. The default (4 GiB .. 512 GiB) avoids the x86 MSI
    /// window below 4 GiB and fits IOMMUs with 39-bit address widths.
    pub iova_start: u64,
    pub iova_end: u64,
}

impl Default for VfioOptions {
    fn default() -> Self {
        VfioOptions {
            max_vectors: regs::MAX_VECTORS as u16,
            iova_start: 1 << 32,
            iova_end: 1 << 39,
        }
    }
}

/// PCI configuration space: the command register and its bits (Linux `pci_regs.h`).
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;

/// The mmap'd BAR0. [`Bar::read32`] and [`Bar::write32`] are the only MMIO of the backend.
pub struct Bar {
    map: MmapRaw,
}

impl Bar {
    fn in_bounds(&self, offset: u32) -> bool {
        offset.is_multiple_of(4) && (offset as usize) + 4 <= self.map.len()
    }

    /// Volatile aligned 32-bit load (one AXI4-Lite read). Out-of-range offsets read 0.
    pub fn read32(&self, offset: u32) -> u32 {
        if !self.in_bounds(offset) {
            return 0;
        }
        // SAFETY: in bounds and 4-byte aligned (the mapping is page aligned); the mapping
        // lives as long as `self`; volatile because the device changes registers on its own.
        unsafe {
            self.map
                .as_ptr()
                .add(offset as usize)
                .cast::<u32>()
                .read_volatile()
        }
    }

    /// Volatile aligned 32-bit store (one AXI4-Lite write). Out-of-range offsets are dropped.
    pub fn write32(&self, offset: u32, value: u32) {
        if !self.in_bounds(offset) {
            return;
        }
        // SAFETY: as in `read32`; volatile so the store is neither merged nor elided.
        unsafe {
            self.map
                .as_mut_ptr()
                .add(offset as usize)
                .cast::<u32>()
                .write_volatile(value)
        }
    }
}

/// A ferroce NIC opened through VFIO.
pub struct VfioBackend {
    pci: PciAddress,
    bar: Bar,
    dev: Arc<dyn DeviceSys>,
    iova: Arc<Mutex<IovaAllocator>>,
    irqs: Vec<EventFd>,
    page_size: usize,
    start: Instant,
}

impl VfioBackend {
    /// Open the NIC at PCI address `pci` (`0000:01:00.0`) with default options.
    pub fn open(pci: &str) -> Result<VfioBackend> {
        VfioBackend::open_with(pci, VfioOptions::default())
    }

    /// Open the NIC at `pci` with `options`.
    pub fn open_with(pci: &str, options: VfioOptions) -> Result<VfioBackend> {
        let pci: PciAddress = pci.parse()?;
        Ok(VfioBackend::open_sys(&RealSys, pci, options)?)
    }

    /// The open sequence, over any system-call layer.
    fn open_sys(
        sys: &dyn VfioSys,
        pci: PciAddress,
        options: VfioOptions,
    ) -> core::result::Result<VfioBackend, VfioError> {
        let sysfs = preflight(sys, pci)?;
        let dev = sys.open_device(&sysfs)?;

        let bar0 = dev.region(BAR0_REGION).ok_or(VfioError::BarTooSmall {
            pci,
            size: 0,
            needed: regs::BAR0_SIZE as u64,
        })?;
        if bar0.size < regs::BAR0_SIZE as u64 {
            return Err(VfioError::BarTooSmall {
                pci,
                size: bar0.size,
                needed: regs::BAR0_SIZE as u64,
            });
        }
        if bar0.flags & REGION_FLAG_MMAP == 0 {
            return Err(VfioError::BarNotMappable(pci));
        }
        let map = dev
            .map_region(BAR0_REGION, regs::BAR0_SIZE as usize)
            .map_err(|e| VfioError::Mmap(format!("BAR0 of {pci}: {e}")))?;

        // Let the device decode its BAR and master the bus (DMA); vfio-pci leaves bus
        // mastering to the user.
        let mut cmd = [0u8; 2];
        dev.config_read(PCI_COMMAND, &mut cmd);
        let cmd = u16::from_le_bytes(cmd) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
        dev.config_write(PCI_COMMAND, &cmd.to_le_bytes());

        let count = dev.msix_count().min(options.max_vectors as u32) as usize;
        let irqs = (0..count)
            .map(|_| EventFd::new(EFD_NONBLOCK).map_err(|e| VfioError::EventFd(e.to_string())))
            .collect::<core::result::Result<Vec<_>, _>>()?;
        if !irqs.is_empty() {
            dev.enable_msix(&irqs.iter().collect::<Vec<_>>())?;
        }

        Ok(VfioBackend {
            pci,
            bar: Bar { map },
            dev,
            iova: Arc::new(Mutex::new(IovaAllocator::new(
                options.iova_start,
                options.iova_end,
            ))),
            irqs,
            page_size: page_size(),
            start: Instant::now(),
        })
    }

    /// The device's PCI address.
    pub fn pci_address(&self) -> PciAddress {
        self.pci
    }

    /// Number of interrupt vectors enabled.
    pub fn vectors(&self) -> usize {
        self.irqs.len()
    }
}

/// The checks before any VFIO call, each with a message that says what is wrong.
fn preflight(sys: &dyn VfioSys, pci: PciAddress) -> core::result::Result<PathBuf, VfioError> {
    if !sys.exists(Path::new("/dev/vfio/vfio")) {
        return Err(VfioError::NoVfio);
    }
    let sysfs = PathBuf::from(format!("/sys/bus/pci/devices/{pci}"));
    if !sys.exists(&sysfs) {
        return Err(VfioError::NoDevice(pci));
    }
    let link_name = |p: PathBuf| p.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let driver = sys
        .read_link(&sysfs.join("driver"))
        .ok()
        .and_then(link_name);
    if driver.as_deref() != Some("vfio-pci") {
        return Err(VfioError::NotVfioPci {
            pci,
            driver: driver.unwrap_or_else(|| "no driver".to_string()),
        });
    }
    let group = sys
        .read_link(&sysfs.join("iommu_group"))
        .ok()
        .and_then(link_name)
        .and_then(|g| g.parse::<u32>().ok())
        .ok_or(VfioError::NoIommuGroup(pci))?;
    if !sys.exists(&PathBuf::from(format!("/dev/vfio/{group}"))) {
        return Err(VfioError::NoGroupFile { pci, group });
    }
    Ok(sysfs)
}

fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl Backend for VfioBackend {
    fn read32(&self, offset: u32) -> u32 {
        self.bar.read32(offset)
    }

    fn write32(&self, offset: u32, value: u32) {
        self.bar.write32(offset, value)
    }

    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaBuffer> {
        check_alloc_args(len, align)?;
        let page = self.page_size as u64;
        let map_len = align_up(len as u64, page).ok_or(Error::DmaAlloc {
            len,
            reason: "size overflows".into(),
        })? as usize;
        let host: MmapRaw = MmapOptions::new()
            .len(map_len)
            .map_anon()
            .map_err(|e| Error::DmaAlloc {
                len,
                reason: format!("anonymous mmap: {e}"),
            })?
            .into();
        let iova = lock(&self.iova)
            .alloc(map_len as u64, (align as u64).max(page))
            .ok_or(VfioError::IovaExhausted { len })?;
        // SAFETY: `host` stays mapped until the VfioDma drop has unmapped the IOVA range (it
        // leaks the mapping if the unmap fails), and is only accessed through raw pointers.
        if let Err(e) = unsafe { self.dev.dma_map(iova, map_len, host.as_mut_ptr()) } {
            lock(&self.iova).release(iova, map_len as u64);
            return Err(e.into());
        }
        Ok(DmaBuffer::new(
            iova,
            len,
            Box::new(VfioDma {
                host: ManuallyDrop::new(host),
                iova,
                map_len,
                dev: self.dev.clone(),
                iova_alloc: self.iova.clone(),
            }),
        ))
    }

    fn wait_interrupt(&self, vector: u16, timeout: Duration) -> Result<bool> {
        let fd = self.irqs.get(vector as usize).ok_or(VfioError::NoVector {
            vector,
            count: self.irqs.len(),
        })?;
        Ok(wait_eventfd(fd, timeout)?)
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }
}

impl Drop for VfioBackend {
    fn drop(&mut self) {
        if !self.irqs.is_empty() {
            let _ = self.dev.disable_msix();
        }
        // The BAR mapping goes with `self.bar`; the device and container close when the last
        // DMA buffer (which holds `dev`) is gone.
    }
}

/// Wait for an eventfd to be signalled (and reset it), for at most `timeout`.
fn wait_eventfd(fd: &EventFd, timeout: Duration) -> core::result::Result<bool, VfioError> {
    use std::os::unix::io::AsRawFd;
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // Round up so a short timeout still waits instead of spinning.
        let ms = left.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as i32;
        let mut pfd = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `pfd` is a valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n > 0 {
            return match fd.read() {
                Ok(_) => Ok(true),
                // Another waiter took it first.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(false),
                Err(e) => Err(VfioError::EventFd(e.to_string())),
            };
        }
        if n == 0 {
            return Ok(false);
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(VfioError::EventFd(err.to_string()));
        }
        if left.is_zero() {
            return Ok(false);
        }
    }
}

/// One DMA buffer: anonymous memory mapped into the IOMMU.
struct VfioDma {
    /// Freed only after the IOMMU mapping is gone (see Drop).
    host: ManuallyDrop<MmapRaw>,
    iova: u64,
    map_len: usize,
    dev: Arc<dyn DeviceSys>,
    iova_alloc: Arc<Mutex<IovaAllocator>>,
}

impl DmaMemory for VfioDma {
    fn read(&self, offset: usize, buf: &mut [u8]) {
        // The device writes this memory behind the compiler's back: never form a reference
        // to it, and read it with volatile loads so a polling loop re-reads every time.
        // SAFETY: `DmaBuffer` checked `offset + buf.len() <= len <= map_len`.
        unsafe { volatile_copy_from(self.host.as_ptr().add(offset), buf) };
        compiler_fence(Ordering::Acquire);
    }

    fn write(&self, offset: usize, data: &[u8]) {
        compiler_fence(Ordering::Release);
        // SAFETY: bounds as in `read`.
        unsafe { volatile_copy_to(self.host.as_mut_ptr().add(offset), data) };
    }
}

impl Drop for VfioDma {
    fn drop(&mut self) {
        if self.dev.dma_unmap(self.iova, self.map_len).is_ok() {
            lock(&self.iova_alloc).release(self.iova, self.map_len as u64);
            // SAFETY: the device can no longer reach the memory, and `host` is not used after.
            unsafe { ManuallyDrop::drop(&mut self.host) };
        }
        // Otherwise the device may still write the pages: keep them (and the IOVA) forever.
    }
}

/// Copy `dst.len()` bytes from device-shared memory with volatile loads (8 bytes at a time
/// where aligned).
///
/// # Safety
/// `src .. src + dst.len()` must be valid for reads.
unsafe fn volatile_copy_from(src: *const u8, dst: &mut [u8]) {
    let mut i = 0;
    while i < dst.len() {
        // SAFETY (all three arms): `src + i .. src + i + n` is inside the range the caller
        // guarantees, and the u64 load is 8-byte aligned.
        let p = unsafe { src.add(i) };
        if (p as usize).is_multiple_of(8) && dst.len() - i >= 8 {
            let v = unsafe { p.cast::<u64>().read_volatile() };
            dst[i..i + 8].copy_from_slice(&v.to_ne_bytes());
            i += 8;
        } else {
            dst[i] = unsafe { p.read_volatile() };
            i += 1;
        }
    }
}

/// Copy `src` into device-shared memory with volatile stores.
///
/// # Safety
/// `dst .. dst + src.len()` must be valid for writes.
unsafe fn volatile_copy_to(dst: *mut u8, src: &[u8]) {
    let mut i = 0;
    while i < src.len() {
        // SAFETY: as in `volatile_copy_from`.
        let p = unsafe { dst.add(i) };
        if (p as usize).is_multiple_of(8) && src.len() - i >= 8 {
            let v = u64::from_ne_bytes(src[i..i + 8].try_into().expect("8 bytes"));
            unsafe { p.cast::<u64>().write_volatile(v) };
            i += 8;
        } else {
            unsafe { p.write_volatile(src[i]) };
            i += 1;
        }
    }
}
