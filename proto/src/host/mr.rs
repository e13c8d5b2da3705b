//! Memory regions: the MR table entry, its key format, the protection check the hardware
//! performs (IBTA Vol 1, 10.6; docs/PROTOCOL.md §10), and its encoding into the MR command window.
//!
//! Keys follow rxe/mlx5: `key = index << 8 | key8`. The table is indexed by `key >> 8` and the
//! full 32-bit key is compared, so a stale key (same index, old `key8`) is refused after the
//! driver re-registers the slot with a new `key8`. lkey and rkey are the same value; remote use
//! additionally needs a REMOTE_* right.
//!
//! An MR is one IOVA-contiguous range: the driver maps the buffer into the IOMMU (VFIO) as a
//! single contiguous IOVA range, so translation is one subtraction and one addition
//! (`dma = addr - va + dma_base`) instead of a page table walk. `va` is the address
//! applications and peers use (SGE addr, RETH VA); ZERO_BASED MRs are simply `va = 0`, and a
//! driver that maps IOVA == VA programs `dma_base = va`.

use super::qp::AccessFlags;
use super::regs::{self, mr_access};
use super::{join64, split64, Error, RegWrite, Result};

/// Index of the MR table entry a key names.
pub const fn key_index(key: u32) -> u32 {
    key >> 8
}

/// Build a key from a table index (24 bits) and a key byte.
pub const fn make_key(index: u32, key8: u8) -> u32 {
    (index << 8) | key8 as u32
}

/// One MR table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MrEntry {
    /// Full key; the entry lives at index `key >> 8`.
    pub key: u32,
    /// Protection domain (24 bits).
    pub pd: u32,
    pub access: AccessFlags,
    /// First address of the region in the address space used by SGEs and remote VAs.
    pub va: u64,
    pub length: u64,
    /// IOVA (bus address) the region is mapped at.
    pub dma: u64,
}

/// Why an access is refused. Remote violations become NAK 0x62 (docs/PROTOCOL.md §10); local ones a
/// `LOC_PROT_ERR` completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MrViolation {
    Invalid,
    KeyMismatch,
    PdMismatch,
    Access,
    Range,
}

impl MrEntry {
    pub const fn index(&self) -> u32 {
        key_index(self.key)
    }

    /// Driver-side checks before WRITE (the hardware answers BadValue for the same faults).
    pub fn validate(&self) -> Result<()> {
        if !self.access.is_supported() || !self.access.is_valid_for_mr() {
            return Err(Error::InvalidField {
                field: "access",
                value: self.access.0 as u64,
            });
        }
        if self.pd > 0xFF_FFFF {
            return Err(Error::InvalidField {
                field: "pd",
                value: self.pd as u64,
            });
        }
        // The end of the region must be representable, in both address spaces, so the
        // hardware's range check and translation need no overflow handling.
        if self.va.checked_add(self.length).is_none() || self.dma.checked_add(self.length).is_none()
        {
            return Err(Error::Inconsistent {
                what: "MR end overflows 64 bits",
            });
        }
        Ok(())
    }

    /// The WRITE sequence: select the index, stage every field (LO before HI), command.
    pub fn write_writes(&self) -> Result<Vec<RegWrite>> {
        self.validate()?;
        let (va_lo, va_hi) = split64(self.va);
        let (len_lo, len_hi) = split64(self.length);
        let (dma_lo, dma_hi) = split64(self.dma);
        Ok(vec![
            RegWrite::new(regs::MR_CMD_INDEX, self.index()),
            RegWrite::new(regs::MR_KEY, self.key),
            RegWrite::new(regs::MR_PD, self.pd),
            RegWrite::new(regs::MR_ACCESS, mr_access::FLAGS.place(self.access.0)),
            RegWrite::new(regs::MR_VA_LO, va_lo),
            RegWrite::new(regs::MR_VA_HI, va_hi),
            RegWrite::new(regs::MR_LEN_LO, len_lo),
            RegWrite::new(regs::MR_LEN_HI, len_hi),
            RegWrite::new(regs::MR_DMA_LO, dma_lo),
            RegWrite::new(regs::MR_DMA_HI, dma_hi),
            RegWrite::new(regs::MR_CMD, regs::mr_cmd::WRITE),
        ])
    }

    /// The INVALIDATE sequence for table index `index`. The hardware finishes every access
    /// that already passed its check before reporting the command done, so after BUSY clears
    /// no DMA to the region can start (the driver may then unmap it from the IOMMU).
    pub fn invalidate_writes(index: u32) -> [RegWrite; 2] {
        [
            RegWrite::new(regs::MR_CMD_INDEX, index),
            RegWrite::new(regs::MR_CMD, regs::mr_cmd::INVALIDATE),
        ]
    }

    /// The QUERY sequence; decode with [`MrEntry::from_window`].
    pub fn query_writes(index: u32) -> [RegWrite; 2] {
        [
            RegWrite::new(regs::MR_CMD_INDEX, index),
            RegWrite::new(regs::MR_CMD, regs::mr_cmd::QUERY),
        ]
    }

    /// Decode the window: the entry and its VALID bit.
    pub fn from_window(mut read: impl FnMut(u32) -> u32) -> (MrEntry, bool) {
        let acc = read(regs::MR_ACCESS);
        let e = MrEntry {
            key: read(regs::MR_KEY),
            pd: read(regs::MR_PD) & 0xFF_FFFF,
            access: AccessFlags(mr_access::FLAGS.get(acc)),
            va: join64(read(regs::MR_VA_LO), read(regs::MR_VA_HI)),
            length: join64(read(regs::MR_LEN_LO), read(regs::MR_LEN_HI)),
            dma: join64(read(regs::MR_DMA_LO), read(regs::MR_DMA_HI)),
        };
        (e, mr_access::VALID.bit(acc))
    }

    /// The check every access makes (docs/PROTOCOL.md §10; rxe's `lookup_mr` + `mr_check_range`),
    /// returning the DMA address of `addr`. `needed` is the right the access requires (LOCAL_WRITE
    /// for a scatter, REMOTE_READ for a READ, ...); local gathers need no right (NONE).
    /// Zero-length remote READ/WRITE skip this check entirely (the responder does not call it).
    pub fn check(
        &self,
        valid: bool,
        key: u32,
        pd: u32,
        needed: AccessFlags,
        addr: u64,
        len: u64,
    ) -> core::result::Result<u64, MrViolation> {
        if !valid {
            return Err(MrViolation::Invalid);
        }
        if key != self.key {
            return Err(MrViolation::KeyMismatch);
        }
        if pd != self.pd {
            return Err(MrViolation::PdMismatch);
        }
        if !self.access.contains(needed) {
            return Err(MrViolation::Access);
        }
        // addr >= va && len <= length && addr - va <= length - len: no overflow anywhere.
        if addr < self.va || len > self.length || addr - self.va > self.length - len {
            return Err(MrViolation::Range);
        }
        Ok(addr - self.va + self.dma)
    }
}
