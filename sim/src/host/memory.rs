//! The host-memory model: what the NIC reaches by DMA and the driver reaches through
//! `DmaBuffer`s, addressed by IOVA.
//!
//! * **Sparse bytes.** Memory is a map of 4 KiB pages created on first write; a byte never
//!   written reads 0. Simulations touch a few MiB of a 48-bit space.
//! * **IOVA allocator = IOMMU mappings.** [`HostMemory::alloc`] maps a zeroed range at an
//!   aligned IOVA, [`HostMemory::free`] unmaps it. Like VFIO, every mapping starts on a page
//!   boundary (or a larger requested alignment), and the space starts above 4 GiB so the NIC's
//!   64-bit address paths are exercised. Two deliberate differences from a real IOMMU make NIC
//!   bugs visible: mappings are checked to the **byte** (an overrun past `len`, even within the
//!   last page, is a fault), and every mapping is followed by at least one unmapped guard page.
//!   Freed ranges are reused only after the allocator has gone round the whole space (next
//!   fit), so a DMA into a freed buffer faults instead of corrupting a new owner.
//! * **The NIC's accesses** go through [`HostMemory::dma_read`] / [`HostMemory::dma_write`]:
//!   an access not wholly inside mapped ranges is an IOMMU fault (logged, memory untouched,
//!   reported to the NIC as a DMA error by the shell). Every applied write is logged as
//!   `{addr, len}` ([`DmaWrite`]) for commands to report and tests to check.
//! * **Host-side accesses** ([`HostMemory::read`], [`HostMemory::write`], ...) model the CPU:
//!   any address, no log.
//! * **Protection checks.** [`HostMemory::snapshot`] before, [`HostMemory::check_unchanged_outside`]
//!   after: memory outside the allowed ranges must be byte-identical.
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Page size of the model and of its IOVA mappings.
pub const PAGE_SIZE: u64 = 4096;
/// First IOVA handed out (above 4 GiB, so the high half of every address register is used).
pub const IOVA_BASE: u64 = 0x1_0000_0000;
/// End of the IOVA space (exclusive): 48 bits, the usual IOMMU input width.
pub const IOVA_END: u64 = 1 << 48;
/// Unmapped bytes left after every mapping (at least; rounding to pages may add more).
pub const GUARD_BYTES: u64 = PAGE_SIZE;

type Page = Box<[u8; PAGE_SIZE as usize]>;

/// Host memory shared between the DMA shell (the NIC's side) and the driver backend (the
/// CPU's side). Lock order everywhere in the simulator: the NIC model first, then the memory.
pub type SharedMemory = Arc<Mutex<HostMemory>>;

/// One DMA write the NIC made (applied to memory), in the order they became visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DmaWrite {
    pub addr: u64,
    pub len: u64,
}

/// A NIC access that touched unmapped IOVA space (an IOMMU fault). Nothing was read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DmaFault {
    pub addr: u64,
    pub len: u64,
    pub write: bool,
}

impl fmt::Display for DmaFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.write { "write" } else { "read" };
        write!(
            f,
            "IOMMU fault: DMA {kind} of {} bytes at {:#x} outside every mapping",
            self.len, self.addr
        )
    }
}

/// Why an allocation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    ZeroLength,
    /// The alignment is not a power of two.
    BadAlignment(u64),
    /// No free IOVA range is large enough.
    Exhausted {
        len: u64,
        align: u64,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::ZeroLength => f.write_str("allocation of 0 bytes"),
            AllocError::BadAlignment(a) => write!(f, "alignment {a:#x} is not a power of two"),
            AllocError::Exhausted { len, align } => {
                write!(f, "no IOVA range for {len:#x} bytes aligned to {align:#x}")
            }
        }
    }
}

impl std::error::Error for AllocError {}

/// Counters of the NIC's traffic into this memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DmaStats {
    pub reads: u64,
    pub read_bytes: u64,
    pub writes: u64,
    pub write_bytes: u64,
    pub faults: u64,
}

/// A copy of the memory contents, for [`HostMemory::check_unchanged_outside`].
#[derive(Clone, Default)]
pub struct Snapshot {
    pages: BTreeMap<u64, Page>,
}

/// Memory changed where it must not have: the offending byte ranges (coalesced, sorted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryChanged {
    pub ranges: Vec<Range<u64>>,
    /// `(addr, before, after)` of the first differing bytes, for the message.
    pub first_bytes: Vec<(u64, u8, u8)>,
}

impl fmt::Display for MemoryChanged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "host memory changed outside the allowed regions:")?;
        for r in self.ranges.iter().take(8) {
            write!(f, " [{:#x}, {:#x})", r.start, r.end)?;
        }
        if self.ranges.len() > 8 {
            write!(f, " ... ({} ranges)", self.ranges.len())?;
        }
        for (a, b, n) in &self.first_bytes {
            write!(f, "; {a:#x}: {b:#04x} -> {n:#04x}")?;
        }
        Ok(())
    }
}

impl std::error::Error for MemoryChanged {}

/// One live mapping.
#[derive(Clone, Copy, Debug)]
struct Mapping {
    len: u64,
    /// IOVA space reserved (len rounded up to pages, plus the guard).
    span: u64,
}

/// The host-memory model (see the module doc).
pub struct HostMemory {
    pages: BTreeMap<u64, Page>,
    maps: BTreeMap<u64, Mapping>,
    /// Free IOVA extents: start -> end (exclusive), coalesced.
    free: BTreeMap<u64, u64>,
    /// Next-fit cursor: the search for a free range starts here.
    cursor: u64,
    writes: Vec<DmaWrite>,
    faults: Vec<DmaFault>,
    stats: DmaStats,
}

impl Default for HostMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for HostMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostMemory")
            .field("pages", &self.pages.len())
            .field("mappings", &self.maps.len())
            .field("stats", &self.stats)
            .finish()
    }
}

fn align_up(v: u64, align: u64) -> Option<u64> {
    v.checked_add(align - 1).map(|x| x & !(align - 1))
}

impl HostMemory {
    /// Empty memory, IOVA space `[IOVA_BASE, IOVA_END)`.
    pub fn new() -> Self {
        let mut free = BTreeMap::new();
        free.insert(IOVA_BASE, IOVA_END);
        HostMemory {
            pages: BTreeMap::new(),
            maps: BTreeMap::new(),
            free,
            cursor: IOVA_BASE,
            writes: vec![],
            faults: vec![],
            stats: DmaStats::default(),
        }
    }

    /// A new model behind the shared handle the shell and the backend use.
    pub fn shared() -> SharedMemory {
        Arc::new(Mutex::new(Self::new()))
    }

    // ---- IOVA allocator (the IOMMU mappings) ---------------------------------------------

    /// Map `len` zeroed bytes at an IOVA aligned to `align` (a power of two; at least a page
    /// is used) and return the IOVA.
    pub fn alloc(&mut self, len: u64, align: u64) -> Result<u64, AllocError> {
        if len == 0 {
            return Err(AllocError::ZeroLength);
        }
        if !align.is_power_of_two() {
            return Err(AllocError::BadAlignment(align));
        }
        let align = align.max(PAGE_SIZE);
        let exhausted = AllocError::Exhausted { len, align };
        let span = align_up(len, PAGE_SIZE)
            .and_then(|l| l.checked_add(GUARD_BYTES))
            .ok_or(exhausted.clone())?;
        let start = self.find_free(span, align).ok_or(exhausted)?;
        self.reserve(start, span);
        self.maps.insert(start, Mapping { len, span });
        self.cursor = start + span;
        self.zero(start, span - GUARD_BYTES);
        Ok(start)
    }

    /// Next fit: the first extent at or after the cursor that holds an aligned `span`, else
    /// the first one from the bottom.
    fn find_free(&self, span: u64, align: u64) -> Option<u64> {
        let fits = |lo: u64, end: u64| {
            align_up(lo, align).filter(|a| a.checked_add(span).is_some_and(|e| e <= end))
        };
        let after = self
            .free
            .iter()
            .filter(|(_, &e)| e > self.cursor)
            .find_map(|(&s, &e)| fits(s.max(self.cursor), e));
        after.or_else(|| self.free.iter().find_map(|(&s, &e)| fits(s, e)))
    }

    /// Remove `[start, start + span)` from the free extent that contains it.
    fn reserve(&mut self, start: u64, span: u64) {
        let (&s, &e) = self
            .free
            .range(..=start)
            .next_back()
            .expect("reserve inside a free extent");
        debug_assert!(start + span <= e);
        self.free.remove(&s);
        if s < start {
            self.free.insert(s, start);
        }
        if start + span < e {
            self.free.insert(start + span, e);
        }
    }

    /// Unmap the allocation that starts at `iova`. Returns its length, or `None` if no
    /// allocation starts there. The bytes stay as they were (like freed RAM); the next
    /// allocation of the range zeroes them.
    pub fn free(&mut self, iova: u64) -> Option<u64> {
        let m = self.maps.remove(&iova)?;
        let (mut s, mut e) = (iova, iova + m.span);
        if let Some((&ps, &pe)) = self.free.range(..s).next_back() {
            if pe == s {
                self.free.remove(&ps);
                s = ps;
            }
        }
        if let Some(&ne) = self.free.get(&e) {
            self.free.remove(&e);
            e = ne;
        }
        self.free.insert(s, e);
        Some(m.len)
    }

    /// The live mappings as `iova .. iova + len`, in address order.
    pub fn mappings(&self) -> Vec<Range<u64>> {
        self.maps.iter().map(|(&s, m)| s..s + m.len).collect()
    }

    /// The mapping containing byte `addr`, if any.
    pub fn mapping_of(&self, addr: u64) -> Option<Range<u64>> {
        let (&s, m) = self.maps.range(..=addr).next_back()?;
        (addr < s + m.len).then_some(s..s + m.len)
    }

    /// True if every byte of `[addr, addr + len)` is mapped (possibly across several
    /// mappings). An empty range is mapped; a range that wraps past 2^64 is not.
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else {
            return false;
        };
        let mut pos = addr;
        while pos < end {
            match self.mapping_of(pos) {
                Some(r) => pos = r.end,
                None => return false,
            }
        }
        true
    }

    // ---- host (CPU) side -----------------------------------------------------------------

    fn chunks(addr: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize, usize)> {
        // (page number, offset in page, offset in buffer, bytes)
        assert!(
            addr.checked_add(len as u64).is_some(),
            "host memory access at {addr:#x} + {len} wraps"
        );
        let mut done = 0usize;
        std::iter::from_fn(move || {
            if done == len {
                return None;
            }
            let a = addr + done as u64;
            let off = (a % PAGE_SIZE) as usize;
            let n = (PAGE_SIZE as usize - off).min(len - done);
            let item = (a / PAGE_SIZE, off, done, n);
            done += n;
            Some(item)
        })
    }

    /// Copy `buf.len()` bytes at `addr` into `buf` (unwritten bytes read 0).
    pub fn read(&self, addr: u64, buf: &mut [u8]) {
        for (page, off, at, n) in Self::chunks(addr, buf.len()) {
            match self.pages.get(&page) {
                Some(p) => buf[at..at + n].copy_from_slice(&p[off..off + n]),
                None => buf[at..at + n].fill(0),
            }
        }
    }

    /// `len` bytes at `addr`.
    pub fn read_vec(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.read(addr, &mut v);
        v
    }

    /// Copy `data` to `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (page, off, at, n) in Self::chunks(addr, data.len()) {
            let p = self
                .pages
                .entry(page)
                .or_insert_with(|| Box::new([0; PAGE_SIZE as usize]));
            p[off..off + n].copy_from_slice(&data[at..at + n]);
        }
    }

    /// Set `len` bytes at `addr` to `byte`.
    pub fn fill(&mut self, addr: u64, len: u64, byte: u8) {
        for (page, off, _, n) in Self::chunks(addr, len as usize) {
            if byte == 0 && !self.pages.contains_key(&page) {
                continue;
            }
            let p = self
                .pages
                .entry(page)
                .or_insert_with(|| Box::new([0; PAGE_SIZE as usize]));
            p[off..off + n].fill(byte);
        }
    }

    /// Zero `[addr, addr + len)`, dropping whole pages. Visits only the pages that exist, so
    /// zeroing a huge fresh mapping costs nothing.
    fn zero(&mut self, addr: u64, len: u64) {
        if len == 0 {
            return;
        }
        let end = addr + len;
        let keys: Vec<u64> = self
            .pages
            .range(addr / PAGE_SIZE..=(end - 1) / PAGE_SIZE)
            .map(|(&k, _)| k)
            .collect();
        for k in keys {
            let lo = (k * PAGE_SIZE).max(addr);
            let hi = ((k + 1) * PAGE_SIZE).min(end);
            if hi - lo == PAGE_SIZE {
                self.pages.remove(&k);
            } else if let Some(p) = self.pages.get_mut(&k) {
                p[(lo % PAGE_SIZE) as usize..(lo % PAGE_SIZE + (hi - lo)) as usize].fill(0);
            }
        }
    }

    /// The little-endian u32 at `addr`.
    pub fn read_u32(&self, addr: u64) -> u32 {
        let mut b = [0; 4];
        self.read(addr, &mut b);
        u32::from_le_bytes(b)
    }

    /// The little-endian u64 at `addr`.
    pub fn read_u64(&self, addr: u64) -> u64 {
        let mut b = [0; 8];
        self.read(addr, &mut b);
        u64::from_le_bytes(b)
    }

    /// Store `v` little-endian at `addr`.
    pub fn write_u32(&mut self, addr: u64, v: u32) {
        self.write(addr, &v.to_le_bytes());
    }

    /// Store `v` little-endian at `addr`.
    pub fn write_u64(&mut self, addr: u64, v: u64) {
        self.write(addr, &v.to_le_bytes());
    }

    // ---- NIC (DMA) side ------------------------------------------------------------------

    /// A DMA read by the NIC: the bytes, or an IOMMU fault (logged) if any byte is unmapped.
    pub fn dma_read(&mut self, addr: u64, len: u64) -> Result<Vec<u8>, DmaFault> {
        if !self.is_mapped(addr, len) {
            return Err(self.fault(addr, len, false));
        }
        self.stats.reads += 1;
        self.stats.read_bytes += len;
        Ok(self.read_vec(addr, len as usize))
    }

    /// A DMA write by the NIC: applied and logged, or an IOMMU fault (logged, memory
    /// untouched) if any byte is unmapped.
    pub fn dma_write(&mut self, addr: u64, data: &[u8]) -> Result<(), DmaFault> {
        let len = data.len() as u64;
        if !self.is_mapped(addr, len) {
            return Err(self.fault(addr, len, true));
        }
        self.write(addr, data);
        self.writes.push(DmaWrite { addr, len });
        self.stats.writes += 1;
        self.stats.write_bytes += len;
        Ok(())
    }

    fn fault(&mut self, addr: u64, len: u64, write: bool) -> DmaFault {
        let f = DmaFault { addr, len, write };
        self.faults.push(f);
        self.stats.faults += 1;
        f
    }

    /// Every DMA write applied so far, in the order it became visible.
    pub fn dma_writes(&self) -> &[DmaWrite] {
        &self.writes
    }

    /// Take (and clear) the DMA write log.
    pub fn take_dma_writes(&mut self) -> Vec<DmaWrite> {
        std::mem::take(&mut self.writes)
    }

    /// Every IOMMU fault so far.
    pub fn faults(&self) -> &[DmaFault] {
        &self.faults
    }

    /// Take (and clear) the fault log.
    pub fn take_faults(&mut self) -> Vec<DmaFault> {
        std::mem::take(&mut self.faults)
    }

    /// Traffic counters.
    pub fn stats(&self) -> DmaStats {
        self.stats
    }

    // ---- protection checks ---------------------------------------------------------------

    /// A copy of the whole contents (cost: the touched pages).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            pages: self.pages.clone(),
        }
    }

    /// Byte ranges whose contents differ from `before` (coalesced, sorted).
    pub fn changed_since(&self, before: &Snapshot) -> Vec<Range<u64>> {
        static ZERO: [u8; PAGE_SIZE as usize] = [0; PAGE_SIZE as usize];
        let mut keys: Vec<u64> = self
            .pages
            .keys()
            .chain(before.pages.keys())
            .copied()
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let mut out: Vec<Range<u64>> = vec![];
        for k in keys {
            let now: &[u8] = self.pages.get(&k).map_or(&ZERO[..], |p| &p[..]);
            let old: &[u8] = before.pages.get(&k).map_or(&ZERO[..], |p| &p[..]);
            if now == old {
                continue;
            }
            for i in 0..PAGE_SIZE as usize {
                if now[i] != old[i] {
                    let a = k * PAGE_SIZE + i as u64;
                    match out.last_mut() {
                        Some(r) if r.end == a => r.end = a + 1,
                        _ => out.push(a..a + 1),
                    }
                }
            }
        }
        out
    }

    /// Check that every byte outside `allowed` is identical to `before` (the "protected
    /// memory" check: a NIC must not touch memory outside the regions a test gave it).
    pub fn check_unchanged_outside(
        &self,
        before: &Snapshot,
        allowed: &[Range<u64>],
    ) -> Result<(), MemoryChanged> {
        let mut bad: Vec<Range<u64>> = vec![];
        for r in self.changed_since(before) {
            // subtract every allowed range from r
            let mut pieces = vec![r];
            for a in allowed {
                pieces = pieces
                    .into_iter()
                    .flat_map(|p| {
                        let mut keep = vec![];
                        if p.start < a.start {
                            keep.push(p.start..p.end.min(a.start));
                        }
                        if p.end > a.end {
                            keep.push(p.start.max(a.end)..p.end);
                        }
                        if a.start >= a.end {
                            keep = vec![p];
                        }
                        keep.into_iter().filter(|x| x.start < x.end)
                    })
                    .collect();
            }
            bad.extend(pieces);
        }
        if bad.is_empty() {
            return Ok(());
        }
        let mut first_bytes = vec![];
        'outer: for r in &bad {
            for a in r.clone() {
                let old = before
                    .pages
                    .get(&(a / PAGE_SIZE))
                    .map_or(0, |p| p[(a % PAGE_SIZE) as usize]);
                let now = self.read_vec(a, 1)[0];
                first_bytes.push((a, old, now));
                if first_bytes.len() == 4 {
                    break 'outer;
                }
            }
        }
        Err(MemoryChanged {
            ranges: bad,
            first_bytes,
        })
    }

    /// [`Self::check_unchanged_outside`], panicking with the differences.
    #[track_caller]
    pub fn assert_unchanged_outside(&self, before: &Snapshot, allowed: &[Range<u64>]) {
        if let Err(e) = self.check_unchanged_outside(before, allowed) {
            panic!("{e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_read_write_across_pages() {
        let mut m = HostMemory::new();
        let a = IOVA_BASE + PAGE_SIZE - 3;
        m.write(a, &[1, 2, 3, 4, 5, 6]);
        assert_eq!(m.read_vec(a - 1, 8), vec![0, 1, 2, 3, 4, 5, 6, 0]);
        m.fill(a + 1, 2, 0xee);
        assert_eq!(m.read_vec(a, 4), vec![1, 0xee, 0xee, 4]);
        m.write_u64(0x10, 0x0807_0605_0403_0201);
        assert_eq!(m.read_vec(0x10, 8), vec![1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(m.read_u32(0x14), 0x0807_0605);
    }

    #[test]
    fn allocations_are_aligned_guarded_zeroed_and_reused_late() {
        let mut m = HostMemory::new();
        let a = m.alloc(100, 64).unwrap();
        let b = m.alloc(8192, 1 << 16).unwrap();
        assert_eq!(a % PAGE_SIZE, 0);
        assert_eq!(b % (1 << 16), 0);
        assert!(m.is_mapped(a, 100) && !m.is_mapped(a, 101) && !m.is_mapped(a + 100, 1));
        assert!(!m.is_mapped(a + PAGE_SIZE, 1), "guard page after a mapping");
        m.write(a, &[9; 100]);
        assert_eq!(m.free(a), Some(100));
        assert_eq!(m.free(a), None);
        assert!(!m.is_mapped(a, 1));
        // next fit: the freed range is not handed out again right away
        let c = m.alloc(100, 64).unwrap();
        assert_ne!(c, a);
        assert_eq!(m.read_vec(c, 100), vec![0; 100]);
        assert_eq!(m.alloc(0, 8), Err(AllocError::ZeroLength));
        assert_eq!(m.alloc(8, 3), Err(AllocError::BadAlignment(3)));
        assert!(m.alloc(IOVA_END, 8).is_err());
    }

    #[test]
    fn freed_space_is_reused_after_wrapping_and_zeroed() {
        let mut m = HostMemory::new();
        // fill almost the whole space with one mapping (one page stays free after it), free
        // it, and allocate two pages: only the freed range fits, and it must come back zeroed
        let big = IOVA_END - IOVA_BASE - 2 * PAGE_SIZE;
        let a = m.alloc(big, PAGE_SIZE).unwrap();
        m.write(a, &[7; 64]);
        m.free(a);
        let b = m.alloc(64, 8).unwrap();
        assert_eq!(b, a);
        assert_eq!(m.read_vec(b, 64), vec![0; 64]);
    }

    #[test]
    fn dma_accesses_check_the_mappings_and_log() {
        let mut m = HostMemory::new();
        let a = m.alloc(64, 64).unwrap();
        let b = m.alloc(64, 64).unwrap();
        assert!(
            m.dma_write(a + 60, &[1; 8]).is_err(),
            "overrun past the mapping"
        );
        assert_eq!(
            m.read_vec(a + 60, 4),
            vec![0; 4],
            "a faulting write changes nothing"
        );
        m.dma_write(a + 4, &[5; 4]).unwrap();
        m.dma_write(b, &[6; 64]).unwrap();
        assert_eq!(m.dma_read(a, 8).unwrap(), vec![0, 0, 0, 0, 5, 5, 5, 5]);
        assert!(m.dma_read(b + 1, 64).is_err());
        assert_eq!(
            m.dma_writes(),
            &[
                DmaWrite {
                    addr: a + 4,
                    len: 4
                },
                DmaWrite { addr: b, len: 64 }
            ]
        );
        assert_eq!(m.faults().len(), 2);
        assert_eq!(m.stats().faults, 2);
        assert_eq!(m.take_dma_writes().len(), 2);
        assert!(m.dma_writes().is_empty());
    }

    #[test]
    fn protection_check_reports_changes_outside_allowed_ranges() {
        let mut m = HostMemory::new();
        m.write(0x1000, &[1; 32]);
        let before = m.snapshot();
        m.write(0x1008, &[2; 8]);
        m.write(0x2ffe, &[3; 4]); // crosses a page boundary, in a page absent before
        assert_eq!(
            m.changed_since(&before),
            vec![0x1008..0x1010, 0x2ffe..0x3002]
        );
        assert!(m
            .check_unchanged_outside(&before, &[0x1000..0x1010, 0x2f00..0x3100])
            .is_ok());
        let e = m
            .check_unchanged_outside(&before, &[0x1000..0x100c, 0x3000..0x3002])
            .unwrap_err();
        assert_eq!(e.ranges, vec![0x100c..0x1010, 0x2ffe..0x3000]);
        assert_eq!(e.first_bytes[0], (0x100c, 1, 2));
        // writing the same value is not a change
        m.write(0x1000, &[1; 8]);
        assert_eq!(m.changed_since(&before).len(), 2);
    }
}
