//! The VFIO backend's logic over a fake system-call layer. The BAR and the DMA pages are real
//! anonymous memory, so the volatile access paths run for real; only the VFIO ioctls and the
//! sysfs/devfs lookups are faked, and logged.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memmap2::{MmapOptions, MmapRaw};
use vmm_sys_util::eventfd::EventFd;

use super::device::page_size;
use super::sys::{DeviceSys, RegionInfo, VfioSys, BAR0_REGION, REGION_FLAG_MMAP};
use super::*;
use crate::backend::fake::FakeIdentity;
use crate::{Backend, Device, Error};

type Log = Arc<Mutex<Vec<String>>>;

const PCI: &str = "0000:01:00.0";

struct FakeDevSys {
    log: Log,
    bar0: Option<RegionInfo>,
    bar: Mutex<Option<usize>>,
    msix: u32,
    config: Mutex<[u8; 64]>,
    /// IOVA -> (len, host address) of live IOMMU mappings.
    mapped: Mutex<BTreeMap<u64, (usize, usize)>>,
    fail_unmap: AtomicBool,
    fds: Mutex<Vec<EventFd>>,
}

impl FakeDevSys {
    fn new(log: Log) -> Arc<FakeDevSys> {
        Arc::new(FakeDevSys {
            log,
            bar0: Some(RegionInfo {
                offset: 0,
                size: regs::BAR0_SIZE as u64,
                flags: REGION_FLAG_MMAP | 0x3,
            }),
            bar: Mutex::new(None),
            msix: 4,
            config: Mutex::new([0; 64]),
            mapped: Mutex::new(BTreeMap::new()),
            fail_unmap: AtomicBool::new(false),
            fds: Mutex::new(Vec::new()),
        })
    }

    fn log(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }

    /// What the device would read at `iova`.
    fn device_read(&self, iova: u64, len: usize) -> Vec<u8> {
        let m = self.mapped.lock().unwrap();
        let (&base, &(mlen, host)) = m.range(..=iova).next_back().expect("mapped");
        assert!(iova + len as u64 <= base + mlen as u64);
        let p = (host + (iova - base) as usize) as *const u8;
        // SAFETY: inside a live mapping (the test keeps the buffer alive).
        (0..len)
            .map(|i| unsafe { p.add(i).read_volatile() })
            .collect()
    }

    /// A DMA write by the device.
    fn device_write(&self, iova: u64, data: &[u8]) {
        let m = self.mapped.lock().unwrap();
        let (&base, &(mlen, host)) = m.range(..=iova).next_back().expect("mapped");
        assert!(iova + data.len() as u64 <= base + mlen as u64);
        let p = (host + (iova - base) as usize) as *mut u8;
        for (i, b) in data.iter().enumerate() {
            // SAFETY: as above.
            unsafe { p.add(i).write_volatile(*b) };
        }
    }
}

impl DeviceSys for FakeDevSys {
    fn region(&self, index: u32) -> Option<RegionInfo> {
        self.log(format!("region {index}"));
        if index == BAR0_REGION {
            self.bar0
        } else {
            None
        }
    }

    fn map_region(&self, index: u32, size: usize) -> io::Result<MmapRaw> {
        self.log(format!("map_region {index} {size:#x}"));
        let map: MmapRaw = MmapOptions::new().len(size).map_anon()?.into();
        // A BAR that holds a valid identity, READY status and idle command windows.
        let id = FakeIdentity::default();
        let put = |off: u32, v: u32| unsafe {
            map.as_mut_ptr()
                .add(off as usize)
                .cast::<u32>()
                .write_volatile(v)
        };
        put(regs::ID_MAGIC, regs::MAGIC);
        put(regs::ID_VERSION, id.version);
        put(regs::ID_CAPS, id.caps);
        put(regs::ID_NUM_QPS, id.num_qps);
        put(regs::ID_NUM_CQS, id.num_cqs);
        put(regs::ID_NUM_MRS, id.num_mrs);
        put(regs::ID_RING_LIMITS, id.ring_limits);
        put(regs::ID_QP_LIMITS, id.qp_limits);
        put(regs::ID_MISC, id.misc);
        put(regs::CFG_STATUS, regs::cfg_status::READY);
        *self.bar.lock().unwrap() = Some(map.as_ptr() as usize);
        Ok(map)
    }

    fn config_read(&self, offset: u64, buf: &mut [u8]) {
        self.log(format!("config_read {offset:#x} {}", buf.len()));
        let c = self.config.lock().unwrap();
        buf.copy_from_slice(&c[offset as usize..offset as usize + buf.len()]);
    }

    fn config_write(&self, offset: u64, data: &[u8]) {
        self.log(format!("config_write {offset:#x} {data:02x?}"));
        self.config.lock().unwrap()[offset as usize..offset as usize + data.len()]
            .copy_from_slice(data);
    }

    unsafe fn dma_map(
        &self,
        iova: u64,
        len: usize,
        vaddr: *mut u8,
    ) -> core::result::Result<(), VfioError> {
        self.log(format!("dma_map {iova:#x} {len:#x}"));
        let mut m = self.mapped.lock().unwrap();
        if m.range(iova..iova + len as u64).next().is_some() {
            return Err(VfioError::Ioctl {
                op: "VFIO_IOMMU_MAP_DMA",
                message: "File exists".into(),
            });
        }
        m.insert(iova, (len, vaddr as usize));
        Ok(())
    }

    fn dma_unmap(&self, iova: u64, len: usize) -> core::result::Result<(), VfioError> {
        self.log(format!("dma_unmap {iova:#x} {len:#x}"));
        if self.fail_unmap.load(Ordering::Relaxed) {
            return Err(VfioError::Ioctl {
                op: "VFIO_IOMMU_UNMAP_DMA",
                message: "Invalid argument".into(),
            });
        }
        let removed = self.mapped.lock().unwrap().remove(&iova);
        assert_eq!(removed.map(|r| r.0), Some(len), "unmap matches a map");
        Ok(())
    }

    fn msix_count(&self) -> u32 {
        self.log("msix_count".into());
        self.msix
    }

    fn enable_msix(&self, fds: &[&EventFd]) -> core::result::Result<(), VfioError> {
        self.log(format!("enable_msix {}", fds.len()));
        *self.fds.lock().unwrap() = fds.iter().map(|f| f.try_clone().unwrap()).collect();
        Ok(())
    }

    fn disable_msix(&self) -> core::result::Result<(), VfioError> {
        self.log("disable_msix".into());
        Ok(())
    }
}

struct FakeSys {
    log: Log,
    paths: HashSet<PathBuf>,
    links: HashMap<PathBuf, PathBuf>,
    dev: Arc<FakeDevSys>,
    open_error: Option<VfioError>,
}

impl FakeSys {
    /// A host where 0000:01:00.0 is bound to vfio-pci in IOMMU group 7.
    fn healthy() -> FakeSys {
        let log: Log = Arc::default();
        let sysfs = PathBuf::from(format!("/sys/bus/pci/devices/{PCI}"));
        let mut paths = HashSet::new();
        paths.insert(PathBuf::from("/dev/vfio/vfio"));
        paths.insert(PathBuf::from("/dev/vfio/7"));
        paths.insert(sysfs.clone());
        let mut links = HashMap::new();
        links.insert(
            sysfs.join("driver"),
            PathBuf::from("../../../bus/pci/drivers/vfio-pci"),
        );
        links.insert(
            sysfs.join("iommu_group"),
            PathBuf::from("../../../kernel/iommu_groups/7"),
        );
        FakeSys {
            dev: FakeDevSys::new(log.clone()),
            log,
            paths,
            links,
            open_error: None,
        }
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl VfioSys for FakeSys {
    fn exists(&self, path: &Path) -> bool {
        self.paths.contains(path)
    }

    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        self.links
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn open_device(&self, sysfs: &Path) -> core::result::Result<Arc<dyn DeviceSys>, VfioError> {
        self.log
            .lock()
            .unwrap()
            .push(format!("open_device {}", sysfs.display()));
        match &self.open_error {
            Some(e) => Err(e.clone()),
            None => Ok(self.dev.clone()),
        }
    }
}

fn open(sys: &FakeSys) -> core::result::Result<VfioBackend, VfioError> {
    VfioBackend::open_sys(sys, PCI.parse().unwrap(), VfioOptions::default())
}

#[test]
fn pci_addresses() {
    let a: PciAddress = "0000:3b:00.1".parse().unwrap();
    assert_eq!((a.domain, a.bus, a.device, a.function), (0, 0x3b, 0, 1));
    assert_eq!(a.to_string(), "0000:3b:00.1");
    assert_eq!("3b:00.1".parse::<PciAddress>().unwrap(), a);
    for bad in [
        "",
        "3b:00",
        "0000:3b:20.0",
        "0000:3b:00.8",
        "x:3b:00.0",
        "1:2:3:4.0",
    ] {
        assert_eq!(
            bad.parse::<PciAddress>(),
            Err(VfioError::BadPciAddress(bad.to_string())),
            "{bad}"
        );
    }
}

/// The real system-call layer on this machine: no /dev/vfio here (CI containers have none),
/// so opening must fail with the typed, instructive error rather than an ioctl failure.
#[test]
fn real_open_without_vfio_says_what_to_do() {
    if Path::new("/dev/vfio/vfio").exists() {
        return; // A host with VFIO: the message below does not apply.
    }
    let err = VfioBackend::open(PCI).err().expect("no VFIO here");
    assert!(matches!(err, Error::Vfio(VfioError::NoVfio)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "ferroce: /dev/vfio/vfio not found: load vfio-pci (modprobe vfio-pci) and bind the device to it"
    );
    let err = VfioBackend::open("not-a-pci-address").err().unwrap();
    assert!(matches!(err, Error::Vfio(VfioError::BadPciAddress(_))));
}

#[test]
fn preflight_errors_name_the_problem() {
    let pci: PciAddress = PCI.parse().unwrap();
    let sysfs = PathBuf::from(format!("/sys/bus/pci/devices/{PCI}"));

    let mut s = FakeSys::healthy();
    s.paths.remove(Path::new("/dev/vfio/vfio"));
    assert_eq!(open(&s).err(), Some(VfioError::NoVfio));
    assert!(s.log().is_empty(), "nothing opened: {:?}", s.log());

    let mut s = FakeSys::healthy();
    s.paths.remove(&sysfs);
    let e = open(&s).err().unwrap();
    assert_eq!(e, VfioError::NoDevice(pci));
    assert!(e
        .to_string()
        .contains("/sys/bus/pci/devices/0000:01:00.0 does not exist"));

    let mut s = FakeSys::healthy();
    s.links
        .insert(sysfs.join("driver"), PathBuf::from("../drivers/ixgbe"));
    let e = open(&s).err().unwrap();
    assert_eq!(
        e,
        VfioError::NotVfioPci {
            pci,
            driver: "ixgbe".into()
        }
    );
    assert!(e.to_string().contains("is bound to ixgbe, not vfio-pci"));

    let mut s = FakeSys::healthy();
    s.links.remove(&sysfs.join("driver"));
    assert_eq!(
        open(&s).err(),
        Some(VfioError::NotVfioPci {
            pci,
            driver: "no driver".into()
        })
    );

    let mut s = FakeSys::healthy();
    s.links.remove(&sysfs.join("iommu_group"));
    assert_eq!(open(&s).err(), Some(VfioError::NoIommuGroup(pci)));

    let mut s = FakeSys::healthy();
    s.paths.remove(Path::new("/dev/vfio/7"));
    assert_eq!(
        open(&s).err(),
        Some(VfioError::NoGroupFile { pci, group: 7 })
    );

    let mut s = FakeSys::healthy();
    s.open_error = Some(VfioError::Ioctl {
        op: "open device",
        message: "group is not viable".into(),
    });
    let e = open(&s).err().unwrap();
    assert_eq!(
        e.to_string(),
        "ferroce: VFIO open device failed: group is not viable"
    );
}

#[test]
fn bar_must_be_big_enough_and_mappable() {
    let pci: PciAddress = PCI.parse().unwrap();
    let mut s = FakeSys::healthy();
    let mut d = FakeDevSys::new(s.log.clone());
    Arc::get_mut(&mut d).unwrap().bar0 = Some(RegionInfo {
        offset: 0,
        size: 0x1000,
        flags: REGION_FLAG_MMAP,
    });
    s.dev = d;
    assert_eq!(
        open(&s).err(),
        Some(VfioError::BarTooSmall {
            pci,
            size: 0x1000,
            needed: 0x20_0000
        })
    );

    let mut s = FakeSys::healthy();
    let mut d = FakeDevSys::new(s.log.clone());
    Arc::get_mut(&mut d).unwrap().bar0 = Some(RegionInfo {
        offset: 0,
        size: regs::BAR0_SIZE as u64,
        flags: 0x3,
    });
    s.dev = d;
    assert_eq!(open(&s).err(), Some(VfioError::BarNotMappable(pci)));
}

#[test]
fn open_map_unmap_irq_sequence() {
    let s = FakeSys::healthy();
    let b = open(&s).unwrap();
    assert_eq!(b.vectors(), 4);
    assert_eq!(
        s.log(),
        [
            "open_device /sys/bus/pci/devices/0000:01:00.0",
            "region 0",
            "map_region 0 0x200000",
            "config_read 0x4 2",
            "config_write 0x4 [06, 00]",
            "msix_count",
            "enable_msix 4",
        ]
    );
    s.log.lock().unwrap().clear();

    let page = page_size();
    let a = b.alloc_dma(100, 64).unwrap();
    let c = b.alloc_dma(page + 1, 1 << 16).unwrap();
    assert_eq!(a.iova(), 1 << 32);
    assert_eq!(a.len(), 100);
    assert_eq!(c.iova() % (1 << 16), 0, "IOVA honours the alignment");
    drop(a);
    let d = b.alloc_dma(10, 8).unwrap();
    assert_eq!(d.iova(), 1 << 32, "freed IOVA is reused");
    drop(c);
    drop(d);
    drop(b);
    assert_eq!(
        s.log(),
        [
            format!("dma_map 0x100000000 {page:#x}"),
            format!("dma_map 0x100010000 {:#x}", 2 * page),
            format!("dma_unmap 0x100000000 {page:#x}"),
            format!("dma_map 0x100000000 {page:#x}"),
            format!("dma_unmap 0x100010000 {:#x}", 2 * page),
            format!("dma_unmap 0x100000000 {page:#x}"),
            "disable_msix".to_string(),
        ]
    );
    assert!(s.dev.mapped.lock().unwrap().is_empty());
}

#[test]
fn dma_memory_is_what_the_device_sees() {
    let s = FakeSys::healthy();
    let b = open(&s).unwrap();
    let buf = b.alloc_dma(256, 64).unwrap();
    assert_eq!(buf.to_vec(0, 256).unwrap(), vec![0; 256], "zeroed");
    buf.write(3, b"ferroce").unwrap();
    assert_eq!(s.dev.device_read(buf.iova() + 3, 7), b"ferroce");
    s.dev
        .device_write(buf.iova() + 200, &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(
        buf.to_vec(199, 11).unwrap(),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
    );
    assert!(matches!(
        buf.write(250, &[0; 7]),
        Err(Error::DmaOutOfBounds {
            offset: 250,
            len: 7,
            size: 256
        })
    ));
}

#[test]
fn failed_unmap_leaks_instead_of_reusing() {
    let s = FakeSys::healthy();
    let b = open(&s).unwrap();
    let a = b.alloc_dma(64, 64).unwrap();
    let iova = a.iova();
    s.dev.fail_unmap.store(true, Ordering::Relaxed);
    drop(a);
    s.dev.fail_unmap.store(false, Ordering::Relaxed);
    let c = b.alloc_dma(64, 64).unwrap();
    assert_ne!(
        c.iova(),
        iova,
        "an IOVA the device may still use is never handed out again"
    );
}

#[test]
fn interrupts_through_eventfds() {
    let s = FakeSys::healthy();
    let b = open(&s).unwrap();
    s.dev.fds.lock().unwrap()[1].write(1).unwrap();
    assert!(b.wait_interrupt(1, Duration::from_secs(5)).unwrap());
    assert!(
        !b.wait_interrupt(1, Duration::from_millis(1)).unwrap(),
        "consumed"
    );
    assert!(!b.wait_interrupt(0, Duration::ZERO).unwrap());
    assert!(matches!(
        b.wait_interrupt(9, Duration::ZERO),
        Err(Error::Vfio(VfioError::NoVector {
            vector: 9,
            count: 4
        }))
    ));
}

/// The verbs layer on top of the VFIO backend: bring-up and a CQ, with the writes landing in
/// the (memory-backed) BAR and the CQ ring IOVA-mapped.
#[test]
fn device_over_vfio_backend() {
    let s = FakeSys::healthy();
    let b = Arc::new(open(&s).unwrap());
    let dev = Device::open(b.clone()).unwrap();
    assert_eq!(dev.info().num_qps, FakeIdentity::default().num_qps);
    assert_eq!(
        b.device().bar0().read32(regs::IRQ_ENABLE),
        regs::irq_status::ASYNC | regs::irq_status::FATAL
    );
    let cq = dev.create_cq(8, 1).unwrap();
    assert_eq!(
        b.device().bar0().read32(regs::CQ_BASE_LO) as u64,
        cq.ring_iova() & 0xFFFF_FFFF
    );
    assert_eq!(
        b.device().bar0().read32(regs::CQ_BASE_HI) as u64,
        cq.ring_iova() >> 32
    );
    assert!(s.dev.mapped.lock().unwrap().contains_key(&cq.ring_iova()));
    assert_eq!(
        b.device().bar0().read32(regs::BAR0_SIZE),
        0,
        "out of range reads 0"
    );
}
