//! IOVA allocator: first fit over a sorted free list, coalescing on free.
//!
//! Every DMA buffer gets one contiguous IOVA range (the NIC translates an MR with one
//! subtraction and one addition, so MRs must be IOVA-contiguous). Allocation sizes are whole
//! pages, so the free list stays short in practice.

use std::collections::BTreeMap;

use crate::backend::align_up;

#[derive(Debug)]
pub(crate) struct IovaAllocator {
    /// Free ranges: start -> length.
    free: BTreeMap<u64, u64>,
}

impl IovaAllocator {
    /// An allocator handing out addresses in `start .. end`.
    pub(crate) fn new(start: u64, end: u64) -> IovaAllocator {
        let mut free = BTreeMap::new();
        if end > start {
            free.insert(start, end - start);
        }
        IovaAllocator { free }
    }

    /// `len` bytes at an address aligned to `align` (a power of two), or `None`.
    pub(crate) fn alloc(&mut self, len: u64, align: u64) -> Option<u64> {
        if len == 0 {
            return None;
        }
        let (start, flen, at) = self.free.iter().find_map(|(&start, &flen)| {
            let at = align_up(start, align)?;
            let end = start.checked_add(flen)?;
            (at.checked_add(len)? <= end).then_some((start, flen, at))
        })?;
        self.free.remove(&start);
        if at > start {
            self.free.insert(start, at - start);
        }
        let tail = start + flen - (at + len);
        if tail > 0 {
            self.free.insert(at + len, tail);
        }
        Some(at)
    }

    /// Return `len` bytes at `iova` (exactly as allocated).
    pub(crate) fn release(&mut self, iova: u64, len: u64) {
        let mut start = iova;
        let mut end = iova + len;
        // Merge with the free range ending at `iova`.
        if let Some((&ps, &pl)) = self.free.range(..iova).next_back() {
            debug_assert!(ps + pl <= iova, "double free of IOVA {iova:#x}");
            if ps + pl == iova {
                self.free.remove(&ps);
                start = ps;
            }
        }
        // Merge with the free range starting where this one ends.
        if let Some(nl) = self.free.remove(&end) {
            end += nl;
        }
        self.free.insert(start, end - start);
    }

    #[cfg(test)]
    pub(crate) fn free_ranges(&self) -> Vec<(u64, u64)> {
        self.free.iter().map(|(&s, &l)| (s, l)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_aligned_and_coalescing() {
        let mut a = IovaAllocator::new(0x1000, 0x10000);
        let x = a.alloc(0x1000, 0x1000).unwrap();
        assert_eq!(x, 0x1000);
        let y = a.alloc(0x1000, 0x4000).unwrap();
        assert_eq!(y, 0x4000);
        assert_eq!(a.free_ranges(), vec![(0x2000, 0x2000), (0x5000, 0xB000)]);
        let z = a.alloc(0x2000, 0x1000).unwrap();
        assert_eq!(z, 0x2000, "the gap before the aligned block is reused");
        a.release(y, 0x1000);
        a.release(x, 0x1000);
        a.release(z, 0x2000);
        assert_eq!(a.free_ranges(), vec![(0x1000, 0xF000)]);
    }

    #[test]
    fn exhaustion() {
        let mut a = IovaAllocator::new(0, 0x2000);
        assert!(a.alloc(0x3000, 0x1000).is_none());
        assert_eq!(a.alloc(0x2000, 0x1000), Some(0));
        assert!(a.alloc(0x1000, 0x1000).is_none());
        assert!(a.alloc(0, 0x1000).is_none());
    }
}
