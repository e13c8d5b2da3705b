//! IOMMU faults of one device, as the kernel reports them.
//!
//! VFIO (type1) has no channel that tells user space about a DMA the IOMMU refused: the
//! device's request is dropped (a read returns no data of ours, a write lands nowhere) and the
//! kernel's IOMMU driver logs a fault record naming the requester and the page. What the
//! driver can truthfully observe is therefore that log entry. [`IommuFaultLog`] reads the
//! kernel log (`/dev/kmsg`, root) from the moment it was opened and picks out the fault records
//! of one PCI device; [`IommuFaultLog::check`] turns them into [`VfioError::DmaFault`].
//!
//! Recognised records: Intel VT-d (`DMAR: [DMA Read|DMA Write ...] Request device [BB:DD.F]
//! fault addr 0x... [fault reason 0xNN] text`), the format of Linux 5.x-6.x. On another IOMMU
//! (AMD-Vi, SMMU) no record is recognised and [`IommuFaultLog::check`] reports nothing: absence
//! of a record is not a proof that no fault happened.

use core::fmt;
use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

use super::{PciAddress, VfioError};

/// The direction of a DMA request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DmaAccess {
    /// The device read host memory.
    Read,
    /// The device wrote host memory.
    Write,
}

impl fmt::Display for DmaAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DmaAccess::Read => "DMA read",
            DmaAccess::Write => "DMA write",
        })
    }
}

/// One fault record of the IOMMU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IommuFault {
    /// Requester bus, device and function (the record does not name the PCI domain).
    pub bus: u8,
    pub device: u8,
    pub function: u8,
    pub access: DmaAccess,
    /// The faulting IOVA as recorded (VT-d records the page: the low 12 bits are zero).
    pub addr: u64,
    /// The fault reason code and its text.
    pub reason: String,
}

impl IommuFault {
    /// Parse one kernel log line; `None` if it is not an IOMMU DMA fault record.
    pub fn parse(line: &str) -> Option<IommuFault> {
        let rest = &line[line.find("DMAR: [")? + "DMAR: [".len()..];
        let access = if rest.starts_with("DMA Read") {
            DmaAccess::Read
        } else if rest.starts_with("DMA Write") {
            DmaAccess::Write
        } else {
            return None;
        };
        let rest = &rest[rest.find("Request device [")? + "Request device [".len()..];
        let (bdf, rest) = rest.split_once(']')?;
        let (bus, df) = bdf.split_once(':')?;
        let (dev, func) = df.split_once('.')?;
        let bus = u8::from_str_radix(bus, 16).ok()?;
        let device = u8::from_str_radix(dev, 16).ok()?;
        let function = u8::from_str_radix(func, 16).ok()?;
        let rest = &rest[rest.find("fault addr ")? + "fault addr ".len()..];
        let (addr, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16).ok()?;
        let reason = rest
            .trim()
            .trim_start_matches('[')
            .replacen(']', "", 1)
            .trim()
            .to_string();
        Some(IommuFault {
            bus,
            device,
            function,
            access,
            addr,
            reason,
        })
    }

    /// Whether the record names `pci` (bus, device and function).
    pub fn is_from(&self, pci: PciAddress) -> bool {
        (self.bus, self.device, self.function) == (pci.bus, pci.device, pci.function)
    }
}

/// The kernel log from the moment of [`IommuFaultLog::open`], filtered to one device's IOMMU
/// faults.
pub struct IommuFaultLog {
    kmsg: File,
    pci: PciAddress,
}

impl IommuFaultLog {
    /// Start watching for IOMMU faults of `pci`. Records logged before this call are skipped.
    pub fn open(pci: PciAddress) -> Result<IommuFaultLog, VfioError> {
        let mut kmsg = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/kmsg")
            .map_err(|e| VfioError::KernelLog(format!("/dev/kmsg: {e}")))?;
        kmsg.seek(SeekFrom::End(0))
            .map_err(|e| VfioError::KernelLog(format!("seek /dev/kmsg: {e}")))?;
        Ok(IommuFaultLog { kmsg, pci })
    }

    /// The device's fault records logged since the last call (or since open).
    pub fn take(&mut self) -> Result<Vec<IommuFault>, VfioError> {
        let mut faults = Vec::new();
        let mut buf = vec![0u8; 8192];
        loop {
            // One read returns one record: "prio,seq,time,flags;text".
            match self.kmsg.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let rec = String::from_utf8_lossy(&buf[..n]);
                    let text = rec.split_once(';').map_or(&*rec, |(_, t)| t);
                    if let Some(f) = IommuFault::parse(text.lines().next().unwrap_or("")) {
                        if f.is_from(self.pci) {
                            faults.push(f);
                        }
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                // Records were overwritten before we read them: carry on with the next one.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(VfioError::KernelLog(format!("read /dev/kmsg: {e}"))),
            }
        }
        Ok(faults)
    }

    /// Wait up to `settle` for a fault record of the device (the kernel logs it from the
    /// IOMMU's fault interrupt, which may come just after the device finished) and return the
    /// first as [`VfioError::DmaFault`]; `Ok(())` if none came.
    pub fn check(&mut self, settle: Duration) -> Result<(), VfioError> {
        let deadline = Instant::now() + settle;
        loop {
            if let Some(f) = self.take()?.into_iter().next() {
                return Err(VfioError::DmaFault {
                    pci: self.pci,
                    access: f.access,
                    page: f.addr & !0xfff,
                    reason: f.reason,
                });
            }
            if Instant::now() >= deadline {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vt_d_fault_records() {
        let f = IommuFault::parse(
            "DMAR: [DMA Read NO_PASID] Request device [00:04.0] fault addr 0x8000000 \
             [fault reason 0x06] PTE Read access is not set",
        )
        .unwrap();
        assert_eq!((f.bus, f.device, f.function), (0, 4, 0));
        assert_eq!(f.access, DmaAccess::Read);
        assert_eq!(f.addr, 0x800_0000);
        assert_eq!(f.reason, "fault reason 0x06 PTE Read access is not set");
        assert!(f.is_from("0000:00:04.0".parse().unwrap()));
        assert!(!f.is_from("0000:00:03.0".parse().unwrap()));

        let w = IommuFault::parse(
            "DMAR: [DMA Write] Request device [1a:1f.7] fault addr 0xfff000 [fault reason 0x05] PTE Write access is not set",
        )
        .unwrap();
        assert_eq!(
            (w.bus, w.device, w.function, w.access),
            (0x1a, 0x1f, 7, DmaAccess::Write)
        );
        assert_eq!(w.addr, 0xfff000);

        for other in [
            "DMAR: DRHD: handling fault status reg 2",
            "DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x0 [fault reason 0x25] Blocked a compatibility format interrupt request",
            "vfio-pci 0000:00:04.0: enabling device",
            "",
        ] {
            assert_eq!(IommuFault::parse(other), None, "{other}");
        }
    }
}
