//! The VFIO backend: a ferroce NIC on the PCI bus, driven from user space.
//!
//! Two layers:
//! * [`VfioDevice`] (generic, any PCI device bound to `vfio-pci`): container, group and
//!   device open, BAR0 mmap ([`Bar`], the two audited register functions), DMA buffers by
//!   IOVA (owning [`DmaBuffer`]s, unmapped on drop), MSI-X routing, and [`IommuFaultLog`],
//!   which reports the IOMMU faults the kernel logged for the device as
//!   [`VfioError::DmaFault`]. Tested on a real kernel against QEMU's `edu` device
//!   (`scripts/vfio/guest-test.sh`, the `ferroce-vfio-edu` program).
//! * [`VfioBackend`] (ferroce): a [`VfioDevice`] whose BAR0 holds the ferroce host interface,
//!   with MSI-X eventfds for the CQs; the driver's [`Backend`].
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

mod device;
mod fault;
mod iova;
mod sys;
#[cfg(test)]
mod tests;

use core::fmt;
use core::str::FromStr;
use core::time::Duration;
use std::time::Instant;

use ferroce_proto::host::regs;
use memmap2::MmapRaw;
use vmm_sys_util::eventfd::{EventFd, EFD_NONBLOCK};

pub use self::device::{VfioDevice, VfioDeviceOptions};
pub use self::fault::{DmaAccess, IommuFault, IommuFaultLog};
use self::sys::{RealSys, VfioSys};
use super::{Backend, DmaBuffer};
use crate::error::Result;

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
    #[error("ferroce: BAR0 of {pci} has {size:#x} bytes; the driver needs {needed:#x}")]
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
    /// The IOMMU stopped a DMA of the device to an address outside its mappings (as the
    /// kernel's IOMMU driver reported it; `page` is the faulting IOVA's page).
    #[error("ferroce: IOMMU fault: {pci} {access} at IOVA page {page:#x} outside its DMA mappings ({reason})")]
    DmaFault {
        pci: PciAddress,
        access: DmaAccess,
        page: u64,
        reason: String,
    },
    #[error("ferroce: cannot read the kernel log for IOMMU faults: {0}")]
    KernelLog(String),
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

/// The mmap'd BAR0. [`Bar::read32`] and [`Bar::write32`] are the only MMIO of the VFIO layer.
pub struct Bar {
    map: MmapRaw,
}

impl Bar {
    /// Size of the mapping in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    fn in_bounds(&self, offset: u32) -> bool {
        offset.is_multiple_of(4) && (offset as usize) + 4 <= self.map.len()
    }

    /// Volatile aligned 32-bit load (one MMIO read; on ferroce one AXI4-Lite read).
    /// Out-of-range offsets read 0.
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

    /// Volatile aligned 32-bit store (one MMIO write; on ferroce one AXI4-Lite write).
    /// Out-of-range offsets are dropped.
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

/// A ferroce NIC opened through VFIO: the generic [`VfioDevice`] plus what ferroce needs on
/// top (a BAR0 that holds the host interface, MSI-X vectors for the CQs).
pub struct VfioBackend {
    // Field order is drop order: the eventfds stay open until MSI-X is off (see Drop).
    dev: VfioDevice,
    irqs: Vec<EventFd>,
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
        let dev = VfioDevice::open_sys(
            sys,
            pci,
            VfioDeviceOptions {
                iova_start: options.iova_start,
                iova_end: options.iova_end,
                bar0_min: regs::BAR0_SIZE as u64,
            },
        )?;
        let count = dev.msix_count().min(options.max_vectors as u32) as usize;
        let irqs = (0..count)
            .map(|_| EventFd::new(EFD_NONBLOCK).map_err(|e| VfioError::EventFd(e.to_string())))
            .collect::<core::result::Result<Vec<_>, _>>()?;
        if !irqs.is_empty() {
            dev.enable_msix(&irqs.iter().collect::<Vec<_>>())?;
        }
        Ok(VfioBackend {
            dev,
            irqs,
            start: Instant::now(),
        })
    }

    /// The device's PCI address.
    pub fn pci_address(&self) -> PciAddress {
        self.dev.pci_address()
    }

    /// Number of interrupt vectors enabled.
    pub fn vectors(&self) -> usize {
        self.irqs.len()
    }

    /// The generic VFIO device underneath.
    pub fn device(&self) -> &VfioDevice {
        &self.dev
    }
}

impl Backend for VfioBackend {
    fn read32(&self, offset: u32) -> u32 {
        self.dev.bar0().read32(offset)
    }

    fn write32(&self, offset: u32, value: u32) {
        self.dev.bar0().write32(offset, value)
    }

    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaBuffer> {
        self.dev.alloc_dma(len, align)
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
        // The BAR mapping goes with `self.dev`; the device and container close when the last
        // DMA buffer (which holds the device) is gone.
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
