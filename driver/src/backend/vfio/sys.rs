//! The system-call layer of the VFIO backend, behind two small traits so the backend's logic
//! (preflight checks, the open/map/unmap/irq sequence, error reporting) is tested with a fake
//! (see `tests.rs`). The real implementation is a thin layer over `vfio-ioctls`
//! (container/group API, no KVM) and `memmap2`.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::{MmapOptions, MmapRaw};
use vmm_sys_util::eventfd::EventFd;

use super::VfioError;

/// VFIO region index of BAR0 (`VFIO_PCI_BAR0_REGION_INDEX`, Linux UAPI).
pub(crate) const BAR0_REGION: u32 = 0;
/// VFIO region index of PCI configuration space (`VFIO_PCI_CONFIG_REGION_INDEX`).
pub(crate) const CONFIG_REGION: u32 = 7;
/// `VFIO_REGION_INFO_FLAG_MMAP`: the region can be mmap'd.
pub(crate) const REGION_FLAG_MMAP: u32 = 1 << 2;

/// One VFIO region (`vfio_region_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegionInfo {
    /// Offset of the region in the device file (for mmap and pread/pwrite).
    pub offset: u64,
    pub size: u64,
    pub flags: u32,
}

/// Host-level operations before a device is open.
pub(crate) trait VfioSys {
    fn exists(&self, path: &Path) -> bool;
    fn read_link(&self, path: &Path) -> io::Result<PathBuf>;
    /// Open the container (`/dev/vfio/vfio`, API version, type1v2 IOMMU), the device's group
    /// and the device itself (`VFIO_GROUP_GET_DEVICE_FD`).
    fn open_device(&self, sysfs: &Path) -> Result<Arc<dyn DeviceSys>, VfioError>;
}

/// Operations on one open VFIO device (and its container's IOMMU).
pub(crate) trait DeviceSys: Send + Sync {
    fn region(&self, index: u32) -> Option<RegionInfo>;
    /// mmap `size` bytes of region `index`.
    fn map_region(&self, index: u32, size: usize) -> io::Result<MmapRaw>;
    fn config_read(&self, offset: u64, buf: &mut [u8]);
    fn config_write(&self, offset: u64, data: &[u8]);
    /// `VFIO_IOMMU_MAP_DMA` of `len` bytes at host address `vaddr` to `iova`.
    ///
    /// # Safety
    /// `vaddr .. vaddr + len` must stay mapped until [`DeviceSys::dma_unmap`] of the same
    /// range succeeded, and must only be accessed through raw pointers meanwhile (the device
    /// writes it concurrently).
    unsafe fn dma_map(&self, iova: u64, len: usize, vaddr: *mut u8) -> Result<(), VfioError>;
    /// `VFIO_IOMMU_UNMAP_DMA`.
    fn dma_unmap(&self, iova: u64, len: usize) -> Result<(), VfioError>;
    /// Number of MSI-X vectors the device has.
    fn msix_count(&self) -> u32;
    /// `VFIO_DEVICE_SET_IRQS` for MSI-X: vector `i` signals `fds[i]`.
    fn enable_msix(&self, fds: &[&EventFd]) -> Result<(), VfioError>;
    fn disable_msix(&self) -> Result<(), VfioError>;
}

/// The real system calls.
pub(crate) struct RealSys;

impl VfioSys for RealSys {
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::read_link(path)
    }

    fn open_device(&self, sysfs: &Path) -> Result<Arc<dyn DeviceSys>, VfioError> {
        use vfio_ioctls::{VfioContainer, VfioDevice, VfioOps};
        let err = |op: &'static str| {
            move |e: vfio_ioctls::VfioError| VfioError::Ioctl {
                op,
                message: error_chain(&e),
            }
        };
        let container = Arc::new(VfioContainer::new(None).map_err(err("open container"))?);
        let ops: Arc<dyn VfioOps> = container.clone();
        let device = VfioDevice::new(sysfs, ops, false).map_err(err("open device"))?;
        Ok(Arc::new(RealDevice { device, container }))
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

struct RealDevice {
    // Field order is drop order: the device (and its group) before the container.
    device: vfio_ioctls::VfioDevice,
    container: Arc<vfio_ioctls::VfioContainer>,
}

/// `VFIO_PCI_MSIX_IRQ_INDEX` (Linux UAPI).
const MSIX_IRQ_INDEX: u32 = 2;

impl DeviceSys for RealDevice {
    fn region(&self, index: u32) -> Option<RegionInfo> {
        let size = self.device.get_region_size(index);
        (size > 0).then(|| RegionInfo {
            offset: self.device.get_region_offset(index),
            size,
            flags: self.device.get_region_flags(index),
        })
    }

    fn map_region(&self, index: u32, size: usize) -> io::Result<MmapRaw> {
        use std::os::unix::io::AsRawFd;
        let offset = self.device.get_region_offset(index);
        MmapOptions::new()
            .offset(offset)
            .len(size)
            .map_raw(self.device.as_raw_fd())
    }

    fn config_read(&self, offset: u64, buf: &mut [u8]) {
        self.device.region_read(CONFIG_REGION, buf, offset);
    }

    fn config_write(&self, offset: u64, data: &[u8]) {
        self.device.region_write(CONFIG_REGION, data, offset);
    }

    unsafe fn dma_map(&self, iova: u64, len: usize, vaddr: *mut u8) -> Result<(), VfioError> {
        // SAFETY: forwarded from our caller's contract.
        unsafe { self.container.vfio_dma_map(iova, len, vaddr) }.map_err(|e| VfioError::Ioctl {
            op: "VFIO_IOMMU_MAP_DMA",
            message: error_chain(&e),
        })
    }

    fn dma_unmap(&self, iova: u64, len: usize) -> Result<(), VfioError> {
        self.container
            .vfio_dma_unmap(iova, len)
            .map_err(|e| VfioError::Ioctl {
                op: "VFIO_IOMMU_UNMAP_DMA",
                message: error_chain(&e),
            })
    }

    fn msix_count(&self) -> u32 {
        self.device
            .get_irq_info(MSIX_IRQ_INDEX)
            .map_or(0, |i| i.count)
    }

    fn enable_msix(&self, fds: &[&EventFd]) -> Result<(), VfioError> {
        self.device
            .enable_msix(fds.to_vec())
            .map_err(|e| VfioError::Ioctl {
                op: "enable MSI-X",
                message: error_chain(&e),
            })
    }

    fn disable_msix(&self) -> Result<(), VfioError> {
        self.device.disable_msix().map_err(|e| VfioError::Ioctl {
            op: "disable MSI-X",
            message: error_chain(&e),
        })
    }
}
