//! The generic VFIO layer: any PCI device bound to `vfio-pci`, opened from user space.
//!
//! [`VfioDevice`] owns the container (type1v2 IOMMU), the group and the device, BAR0 mmap'd
//! ([`Bar`]), and an IOVA allocator. It knows nothing about ferroce: the ferroce backend
//! ([`super::VfioBackend`]) builds on it, and so can a program that drives another device
//! (the project tests this layer on a real kernel against QEMU's `edu` device,
//! `scripts/vfio/guest-test.sh`).
//!
//! DMA memory ([`VfioDevice::alloc_dma`]) is anonymous page-aligned memory mapped into the
//! IOMMU with `VFIO_IOMMU_MAP_DMA` at an IOVA from a first-fit allocator, returned as an owning
//! [`DmaBuffer`]: dropping it unmaps the IOVA range first, then frees the pages. A device that
//! touches an IOVA outside every mapping is stopped by the IOMMU; the kernel reports the fault,
//! and [`super::IommuFaultLog`] turns that report into [`VfioError::DmaFault`].

use core::sync::atomic::{compiler_fence, Ordering};
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::{MmapOptions, MmapRaw};
use vmm_sys_util::eventfd::EventFd;

use super::iova::IovaAllocator;
use super::sys::{DeviceSys, RealSys, VfioSys, BAR0_REGION, REGION_FLAG_MMAP};
use super::{Bar, PciAddress, VfioError};
use crate::backend::{align_up, check_alloc_args, DmaBuffer, DmaMemory};
use crate::error::{Error, Result};
use crate::util::lock;

/// Knobs of [`VfioDevice::open_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VfioDeviceOptions {
    /// IOVA window for DMA buffers (`iova_start .. iova_end`). Choose it inside what the
    /// device can address (its DMA mask) and outside the platform's reserved ranges (on x86
    /// the MSI window `0xfee00000 .. 0xfef00000`).
    pub iova_start: u64,
    pub iova_end: u64,
    /// BAR0 must have at least this many bytes ([`VfioError::BarTooSmall`] otherwise).
    pub bar0_min: u64,
}

impl Default for VfioDeviceOptions {
    /// 4 GiB .. 512 GiB: above the x86 MSI window, inside a 39-bit IOMMU address width.
    fn default() -> Self {
        VfioDeviceOptions {
            iova_start: 1 << 32,
            iova_end: 1 << 39,
            bar0_min: 4,
        }
    }
}

/// PCI configuration space: the command register and its bits (PCI Local Bus 3.0, 6.2.2).
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;

/// A PCI device opened through VFIO, with BAR0 mmap'd, memory decoding and bus mastering on.
///
/// Closing is RAII: dropping the device unmaps BAR0; the device file, group and container
/// close when the last [`DmaBuffer`] allocated from it is gone too (each buffer holds the
/// device so that its IOMMU mapping can be removed before its pages are freed).
pub struct VfioDevice {
    pci: PciAddress,
    bar: Bar,
    pub(super) dev: Arc<dyn DeviceSys>,
    iova: Arc<Mutex<IovaAllocator>>,
    page_size: usize,
}

impl VfioDevice {
    /// Open the device at PCI address `pci` (`0000:00:04.0`) with default options.
    pub fn open(pci: &str) -> core::result::Result<VfioDevice, VfioError> {
        VfioDevice::open_with(pci, VfioDeviceOptions::default())
    }

    /// Open the device at `pci` with `options`.
    pub fn open_with(
        pci: &str,
        options: VfioDeviceOptions,
    ) -> core::result::Result<VfioDevice, VfioError> {
        let pci: PciAddress = pci.parse()?;
        VfioDevice::open_sys(&RealSys, pci, options)
    }

    /// The open sequence, over any system-call layer.
    pub(super) fn open_sys(
        sys: &dyn VfioSys,
        pci: PciAddress,
        options: VfioDeviceOptions,
    ) -> core::result::Result<VfioDevice, VfioError> {
        let sysfs = preflight(sys, pci)?;
        let dev = sys.open_device(&sysfs)?;

        let bar0 = dev.region(BAR0_REGION).ok_or(VfioError::BarTooSmall {
            pci,
            size: 0,
            needed: options.bar0_min,
        })?;
        if bar0.size < options.bar0_min {
            return Err(VfioError::BarTooSmall {
                pci,
                size: bar0.size,
                needed: options.bar0_min,
            });
        }
        if bar0.flags & REGION_FLAG_MMAP == 0 {
            return Err(VfioError::BarNotMappable(pci));
        }
        let map_len = usize::try_from(bar0.size).map_err(|_| VfioError::BarNotMappable(pci))?;
        let map = dev
            .map_region(BAR0_REGION, map_len)
            .map_err(|e| VfioError::Mmap(format!("BAR0 of {pci}: {e}")))?;

        // Let the device decode its BAR and master the bus (DMA); vfio-pci leaves bus
        // mastering to the user.
        let mut cmd = [0u8; 2];
        dev.config_read(PCI_COMMAND, &mut cmd);
        let cmd = u16::from_le_bytes(cmd) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
        dev.config_write(PCI_COMMAND, &cmd.to_le_bytes());

        Ok(VfioDevice {
            pci,
            bar: Bar { map },
            dev,
            iova: Arc::new(Mutex::new(IovaAllocator::new(
                options.iova_start,
                options.iova_end,
            ))),
            page_size: page_size(),
        })
    }

    /// The device's PCI address.
    pub fn pci_address(&self) -> PciAddress {
        self.pci
    }

    /// BAR0: the device's registers.
    pub fn bar0(&self) -> &Bar {
        &self.bar
    }

    /// Allocate `len` bytes of zeroed memory (whole pages) and map it into the IOMMU at an
    /// IOVA aligned to `align` (a power of two; at least a page). The device can reach
    /// exactly `iova .. iova + len` rounded up to the page until the buffer is dropped.
    pub fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaBuffer> {
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

    /// Number of MSI-X vectors the device has.
    pub fn msix_count(&self) -> u32 {
        self.dev.msix_count()
    }

    /// Route MSI-X vector `i` to `fds[i]`.
    pub fn enable_msix(&self, fds: &[&EventFd]) -> core::result::Result<(), VfioError> {
        self.dev.enable_msix(fds)
    }

    /// Turn MSI-X off again.
    pub fn disable_msix(&self) -> core::result::Result<(), VfioError> {
        self.dev.disable_msix()
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

pub(super) fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
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
