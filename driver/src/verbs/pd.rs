//! Protection domains and memory regions.

use std::sync::Arc;

use ferroce_proto::host::mr::{self, MrEntry, MrViolation};
use ferroce_proto::host::qp::AccessFlags;
use ferroce_proto::host::wqe::Sge;

use super::device::{lock_ids, DeviceInner};
use super::qp::{QpInitAttr, QueuePair};
use crate::backend::DmaBuffer;
use crate::error::{Error, Result, Window};
use crate::util::{lock, DeviceOwned};

pub(crate) struct PdInner {
    pub(crate) dev: Arc<DeviceInner>,
    pub(crate) pdn: u32,
}

impl Drop for PdInner {
    fn drop(&mut self) {
        // Every MR and QP holds an Arc of this PD, so nothing uses the number any more.
        lock_ids(&self.dev).pd.release(self.pdn);
    }
}

/// A protection domain: memory regions and QPs of one PD may only be used together (the NIC
/// compares the QP's PD with the MR's on every access). Freed when dropped and no longer
/// used by a memory region or QP.
pub struct ProtectionDomain {
    pub(crate) inner: Arc<PdInner>,
}

impl ProtectionDomain {
    pub(crate) fn new(dev: Arc<DeviceInner>) -> Result<ProtectionDomain> {
        let pdn = lock_ids(&dev)
            .pd
            .alloc()
            .ok_or(Error::OutOfResources("protection domains"))?;
        Ok(ProtectionDomain {
            inner: Arc::new(PdInner { dev, pdn }),
        })
    }

    /// The PD number programmed into QP and MR contexts.
    pub fn pdn(&self) -> u32 {
        self.inner.pdn
    }

    /// Register all of `buffer` with `access` rights.
    pub fn register(&self, buffer: Arc<DmaBuffer>, access: AccessFlags) -> Result<MemoryRegion> {
        let len = buffer.len();
        self.register_range(buffer, 0, len, access)
    }

    /// Register `len` bytes of `buffer` starting at `offset` (HOST-INTERFACE.md 6.2).
    ///
    /// The region's address space (SGE addresses, remote VAs) starts at the IOVA of the first
    /// byte, or at 0 with [`AccessFlags::ZERO_BASED`]; [`MemoryRegion::addr`] computes
    /// addresses. The MR keeps `buffer` alive: the memory is freed only after the NIC has
    /// confirmed the invalidation. `buffer` must come from this device's backend.
    pub fn register_range(
        &self,
        buffer: Arc<DmaBuffer>,
        offset: usize,
        len: usize,
        access: AccessFlags,
    ) -> Result<MemoryRegion> {
        if len == 0 {
            return Err(Error::InvalidArgument("memory region of 0 bytes"));
        }
        if offset.checked_add(len).is_none_or(|end| end > buffer.len()) {
            return Err(Error::DmaOutOfBounds {
                offset,
                len,
                size: buffer.len(),
            });
        }
        let zero_based = access.contains(AccessFlags::ZERO_BASED);
        let hw_access = AccessFlags(access.0 & !AccessFlags::ZERO_BASED.0);
        if access.contains(AccessFlags::MW_BIND) {
            return Err(Error::Unsupported("memory windows (MW_BIND)"));
        }
        if !hw_access.is_supported() || !hw_access.is_valid_for_mr() {
            return Err(Error::InvalidAccess(access));
        }
        let dev = &self.inner.dev;
        let (index, key) = {
            let mut ids = lock_ids(dev);
            let index = ids
                .mr
                .alloc()
                .ok_or(Error::OutOfResources("memory regions"))?;
            // A new key byte per registration of the same index: stale keys then fail.
            let key8 = ids.key8.get(&index).map_or(0, |k| k.wrapping_add(1));
            ids.key8.insert(index, key8);
            (index, mr::make_key(index, key8))
        };
        let dma = buffer.iova() + offset as u64;
        let entry = MrEntry {
            key,
            pd: self.inner.pdn,
            access: hw_access,
            va: if zero_based { 0 } else { dma },
            length: len as u64,
            dma,
        };
        let result = entry
            .write_writes()
            .map_err(Error::Layout)
            .and_then(|w| dev.regs.command(Window::Mr, &w, |_| ()));
        if let Err(e) = result {
            // The entry never became valid, so the index is free again. (After a timeout the
            // NIC state is unknown; a later WRITE of the index overrides it anyway.)
            lock_ids(dev).mr.release(index);
            return Err(e);
        }
        lock(&dev.mrs).insert(index, entry);
        Ok(MemoryRegion {
            pd: self.inner.clone(),
            entry,
            buffer: DeviceOwned::new(buffer),
            offset,
        })
    }

    /// Create an RC queue pair in this PD (in state RESET; no register is written until the
    /// first [`QueuePair::modify`]).
    pub fn create_qp(&self, init: &QpInitAttr<'_>) -> Result<QueuePair> {
        QueuePair::new(self.inner.clone(), init)
    }
}

impl core::fmt::Debug for ProtectionDomain {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProtectionDomain")
            .field("pdn", &self.inner.pdn)
            .finish()
    }
}

/// A registered memory region. Dropping it invalidates the MR table entry (the NIC then
/// guarantees no access to it is still moving data) before the buffer can be freed.
pub struct MemoryRegion {
    pd: Arc<PdInner>,
    entry: MrEntry,
    buffer: DeviceOwned<Arc<DmaBuffer>>,
    offset: usize,
}

impl MemoryRegion {
    /// Local key, for SGEs.
    pub fn lkey(&self) -> u32 {
        self.entry.key
    }

    /// Remote key, for a peer's RDMA WRITE / READ / ATOMIC (same number as the lkey; remote
    /// use also needs the REMOTE_* right).
    pub fn rkey(&self) -> u32 {
        self.entry.key
    }

    /// The region's first address as SGEs and remote VAs name it.
    pub fn va(&self) -> u64 {
        self.entry.va
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.entry.length as usize
    }

    pub fn is_empty(&self) -> bool {
        self.entry.length == 0
    }

    /// The rights the region was registered with (without ZERO_BASED).
    pub fn access(&self) -> AccessFlags {
        self.entry.access
    }

    /// The PD number the region belongs to.
    pub fn pdn(&self) -> u32 {
        self.pd.pdn
    }

    /// The address of byte `offset` of the region.
    pub fn addr(&self, offset: usize) -> u64 {
        self.entry.va + offset as u64
    }

    /// An SGE for `len` bytes at `offset` within the region, checked against its bounds.
    pub fn sge(&self, offset: usize, len: u32) -> Result<Sge> {
        if offset
            .checked_add(len as usize)
            .is_none_or(|end| end > self.len())
        {
            return Err(Error::SgeOutOfRange {
                lkey: self.lkey(),
                addr: self.addr(offset),
                length: len,
            });
        }
        Ok(Sge {
            addr: self.addr(offset),
            length: len,
            lkey: self.lkey(),
        })
    }

    /// The registered buffer (the region starts at [`MemoryRegion::buffer_offset`] in it).
    pub fn buffer(&self) -> &Arc<DmaBuffer> {
        &self.buffer
    }

    /// Where the region starts inside [`MemoryRegion::buffer`].
    pub fn buffer_offset(&self) -> usize {
        self.offset
    }

    /// Copy `data` into the region at `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        self.buffer.write(self.offset + offset, data)
    }

    /// Copy bytes at `offset` of the region into `buf`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(offset, buf.len())?;
        self.buffer.read(self.offset + offset, buf)
    }

    fn check(&self, offset: usize, len: usize) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(Error::DmaOutOfBounds {
                offset,
                len,
                size: self.len(),
            }),
        }
    }
}

impl Drop for MemoryRegion {
    fn drop(&mut self) {
        let dev = &self.pd.dev;
        let index = self.entry.index();
        // Forget it first so no new work request passes the driver's SGE check.
        lock(&dev.mrs).remove(&index);
        let inv = MrEntry::invalidate_writes(index);
        match dev.regs.command(Window::Mr, &inv, |_| ()) {
            Ok(()) => lock_ids(dev).mr.release(index),
            // The NIC may still use the region: keep the memory (and the index) forever
            // rather than free memory a device can write to.
            Err(_) => self.buffer.leak(),
        }
    }
}

impl core::fmt::Debug for MemoryRegion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MemoryRegion")
            .field("key", &format_args!("{:#x}", self.entry.key))
            .field("pd", &self.entry.pd)
            .field("va", &format_args!("{:#x}", self.entry.va))
            .field("len", &self.entry.length)
            .field("access", &self.entry.access)
            .finish()
    }
}

/// Check one local SGE against the driver's MR table the way the NIC will
/// (`MrEntry::check`), so misuse is a typed error at post time rather than a QP error later.
pub(crate) fn check_local_sge(
    dev: &DeviceInner,
    pdn: u32,
    sge: &Sge,
    needed: AccessFlags,
) -> Result<()> {
    let mrs = lock(&dev.mrs);
    let Some(entry) = mrs.get(&mr::key_index(sge.lkey)) else {
        return Err(Error::UnknownKey { lkey: sge.lkey });
    };
    match entry.check(true, sge.lkey, pdn, needed, sge.addr, sge.length as u64) {
        Ok(_) => Ok(()),
        Err(MrViolation::Invalid | MrViolation::KeyMismatch) => {
            Err(Error::UnknownKey { lkey: sge.lkey })
        }
        Err(MrViolation::PdMismatch) => Err(Error::WrongPd {
            lkey: sge.lkey,
            mr_pd: entry.pd,
            qp_pd: pdn,
        }),
        Err(MrViolation::Access) => Err(Error::AccessDenied {
            lkey: sge.lkey,
            needed,
        }),
        Err(MrViolation::Range) => Err(Error::SgeOutOfRange {
            lkey: sge.lkey,
            addr: sge.addr,
            length: sge.length,
        }),
    }
}
