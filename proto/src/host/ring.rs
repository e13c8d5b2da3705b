//! Ring geometry and the owner/phase-bit protocol shared by send queues, receive queues and
//! completion queues.
//!
//! Every ring has `2^log2_entries` slots of `2^log2_stride` bytes in IOVA-contiguous host
//! memory. Producer and consumer indices are *free-running* counters (they are not reduced
//! modulo the ring size): slot = `index & (entries - 1)`, and the *pass* = `index >> log2_entries`
//! counts how often the ring has wrapped. Keeping one extra bit distinguishes a full ring
//! (`pi - ci == entries`) from an empty one (`pi == ci`) without wasting a slot.
//!
//! # Owner (phase) bit
//! Each WQE and CQE carries an owner bit. The writer of an entry sets it to
//! [`owner_for`]`(index)`, which is **1 on pass 0, 0 on pass 1, 1 on pass 2, ...** The reader
//! knows which index it expects next and therefore which owner value a *new* entry has; an
//! entry whose owner bit differs is stale (left over from the previous pass).
//!
//! Pass 0 uses 1 (not 0) so that a freshly zeroed ring never looks valid: the driver zeroes a
//! CQ at creation, and until the NIC writes a slot its owner bit stays 0, which is "old" for
//! pass 0. On pass 1 the stale entries from pass 0 carry 1 and the new ones 0, and so on.
//!
//! * CQ: the NIC writes CQEs, the driver polls the owner bit of slot `ci` (no MMIO read needed).
//! * SQ/RQ: the driver writes WQEs and then rings the doorbell; the NIC checks the owner bit of
//!   every WQE it fetches. A mismatch means the doorbell ran ahead of the WQE (a driver bug or
//!   missing write barrier) and the QP goes to ERR with vendor error
//!   [`crate::host::cqe::vendor_err::WQE_OWNER`]; it also lets a later NIC prefetch ahead of
//!   the doorbell safely.

use super::{Error, Result};

/// Width of SQ/RQ producer and consumer indices (doorbell values wrap modulo 2^16).
pub const WQ_INDEX_BITS: u32 = 16;
/// Width of CQ producer and consumer indices (doorbell values wrap modulo 2^24).
pub const CQ_INDEX_BITS: u32 = 24;

/// Limits for ring sizes. An index must be at least one bit wider than log2(entries) so the
/// pass parity survives the wrap of the counter.
pub const MIN_LOG2_ENTRIES: u8 = 1;
pub const MAX_LOG2_WQ_ENTRIES: u8 = 15;
pub const MAX_LOG2_CQ_ENTRIES: u8 = 22;
/// Send WQE stride: 64 B (1 SGE) ..= 1024 B (61 SGEs).
pub const MIN_LOG2_SQ_STRIDE: u8 = 6;
/// Receive WQE stride: 32 B (1 SGE) ..= 1024 B (63 SGEs).
pub const MIN_LOG2_RQ_STRIDE: u8 = 5;
pub const MAX_LOG2_WQE_STRIDE: u8 = 10;
/// CQEs are always 32 bytes.
pub const LOG2_CQE_SIZE: u8 = 5;
/// Ring base IOVAs must be aligned to max(stride, this); with strides up to 1 KiB no entry
/// crosses a 4 KiB boundary, so every WQE fetch or CQE write is one PCIe request.
pub const MIN_RING_ALIGN: u64 = 64;

/// The owner bit a writer puts into the entry at free-running `index`: 1 on even passes.
pub const fn owner_for(index: u32, log2_entries: u8) -> bool {
    (index >> log2_entries) & 1 == 0
}

/// Which kind of ring a geometry describes; decides the legal stride range and index width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RingKind {
    Send,
    Recv,
    Completion,
}

impl RingKind {
    pub const fn index_bits(self) -> u32 {
        match self {
            RingKind::Send | RingKind::Recv => WQ_INDEX_BITS,
            RingKind::Completion => CQ_INDEX_BITS,
        }
    }

    const fn max_log2_entries(self) -> u8 {
        match self {
            RingKind::Send | RingKind::Recv => MAX_LOG2_WQ_ENTRIES,
            RingKind::Completion => MAX_LOG2_CQ_ENTRIES,
        }
    }

    const fn stride_range(self) -> (u8, u8) {
        match self {
            RingKind::Send => (MIN_LOG2_SQ_STRIDE, MAX_LOG2_WQE_STRIDE),
            RingKind::Recv => (MIN_LOG2_RQ_STRIDE, MAX_LOG2_WQE_STRIDE),
            RingKind::Completion => (LOG2_CQE_SIZE, LOG2_CQE_SIZE),
        }
    }
}

/// Size and entry stride of one ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ring {
    pub kind: RingKind,
    pub log2_entries: u8,
    pub log2_stride: u8,
}

impl Ring {
    /// A checked ring geometry.
    pub fn new(kind: RingKind, log2_entries: u8, log2_stride: u8) -> Result<Ring> {
        if !(MIN_LOG2_ENTRIES..=kind.max_log2_entries()).contains(&log2_entries) {
            return Err(Error::InvalidField {
                field: "log2_entries",
                value: log2_entries as u64,
            });
        }
        let (lo, hi) = kind.stride_range();
        if !(lo..=hi).contains(&log2_stride) {
            return Err(Error::InvalidField {
                field: "log2_stride",
                value: log2_stride as u64,
            });
        }
        Ok(Ring {
            kind,
            log2_entries,
            log2_stride,
        })
    }

    /// A completion ring of `2^log2_entries` CQEs.
    pub fn completion(log2_entries: u8) -> Result<Ring> {
        Ring::new(RingKind::Completion, log2_entries, LOG2_CQE_SIZE)
    }

    pub const fn entries(&self) -> u32 {
        1 << self.log2_entries
    }

    pub const fn stride(&self) -> usize {
        1 << self.log2_stride
    }

    /// Bytes of host memory the ring occupies.
    pub const fn bytes(&self) -> usize {
        (self.entries() as usize) << self.log2_stride
    }

    /// Required alignment of the ring base IOVA.
    pub const fn align(&self) -> u64 {
        let s = self.stride() as u64;
        if s > MIN_RING_ALIGN {
            s
        } else {
            MIN_RING_ALIGN
        }
    }

    /// Mask that reduces a free-running index to the width carried by doorbells.
    pub const fn index_mask(&self) -> u32 {
        (1 << self.kind.index_bits()) - 1
    }

    /// Byte offset of the slot for free-running `index` from the ring base.
    pub const fn slot_offset(&self, index: u32) -> usize {
        ((index & (self.entries() - 1)) as usize) << self.log2_stride
    }

    /// Owner bit for the entry at `index` (see the module documentation).
    pub const fn owner(&self, index: u32) -> bool {
        owner_for(index, self.log2_entries)
    }

    /// Entries between consumer and producer (both free-running, compared in index width).
    pub const fn used(&self, producer: u32, consumer: u32) -> u32 {
        producer.wrapping_sub(consumer) & self.index_mask()
    }

    pub const fn is_full(&self, producer: u32, consumer: u32) -> bool {
        self.used(producer, consumer) >= self.entries()
    }

    pub const fn is_empty(&self, producer: u32, consumer: u32) -> bool {
        self.used(producer, consumer) == 0
    }
}
