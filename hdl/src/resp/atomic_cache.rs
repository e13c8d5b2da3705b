//! [`AtomicReplayCache`]: the responder's per-QP record of its last executed atomics, which
//! answers a duplicate atomic with the original value it returned the first time (IBTA Vol 1,
//! 9.4.5 and 9.7.5.1.3: an atomic is never executed twice; docs/PROTOCOL.md §7.4).
//!
//! # Resources
//!
//! Every QP has [`AT_CACHE_ENTRIES`] (16) entries: the NIC's `max_dest_rd_atomic`
//! (`ID_QP_LIMITS[23:16]`) is this number, so a requester with up to 16 READs and atomics
//! outstanding finds every resent atomic still here. (READs need no entry: a duplicate READ is
//! answered by reading host memory again, docs/PROTOCOL.md §7.2.)
//!
//! # RAM organisation (why a ring per QP, searched one entry per cycle)
//!
//! 256 QPs x 16 entries x (24-bit PSN + 64-bit value) is 352 Kbit. The choices were:
//!
//! * **One wide row per QP** (16 x 88 bits read at once, a parallel compare): a 1,408-bit row
//!   is 40 block RAMs side by side (ECP5 DP16KD at 512 x 36) of which only half the depth is used,
//!   plus 16 comparators; a one-cycle lookup that no packet needs.
//! * **A shared pool with a per-QP count**: fewer entries in total, but one busy QP then evicts
//!   the entries of the others, so no QP could be promised 16: `max_dest_rd_atomic` would be
//!   false for some QPs.
//! * **A ring per QP in deep RAMs, searched sequentially** (chosen): the entry RAMs are 4,096
//!   words deep (address = QPN x 16 + slot), so they pack densely (PSN: 4,096 x 24; value: two
//!   4,096 x 32): Yosys `synth_ecp5` maps the whole block to 23 DP16KD, 278 LUT4 and 204
//!   flip-flops (`hdl/tests/atomic_cache.rs`). A lookup reads the QP's entries newest
//!   first, one per cycle, pipelined: at most 16 + 2 cycles. Only a **duplicate** atomic looks
//!   anything up, and a duplicate is a retransmission that costs a round trip anyway; an executed
//!   atomic only inserts (two cycles, while the responder's read-modify-write is going on). The
//!   packet path of every other request never touches the cache.
//!
//! A small per-QP RAM (`2^QA` x 9 bits) holds the ring's next slot (4 bits) and the number of
//! valid entries (5 bits, saturating at 16). Clearing a QP (the load into RTR: a new
//! connection has nothing to replay) resets that word only; the stale entries behind it are
//! never read, since a search reads only the valid ones.
//!
//! # Ports
//!
//! * Command: `cmd_valid`/`cmd_ready`, `cmd_op` ([`AT_OP_LOOKUP`], [`AT_OP_INSERT`],
//!   [`AT_OP_CLEAR`]), `cmd_qpn`, `cmd_psn`, `cmd_orig` (the value to record on insert).
//!   `cmd_ready` is high in `Idle` only; a command is taken when both are high.
//! * Lookup result: `rsp_valid` (a one-cycle pulse, registered), `rsp_hit`, `rsp_orig` (the
//!   newest entry of the QP with that PSN). Inserts and clears answer nothing.
//!
//! Per lookup: `Idle` -> `Meta` (the QP's ring word is read) -> `Search` (one entry per cycle,
//! newest first) -> `rsp_valid` in the following cycle. Insert and clear: `Idle` -> `Meta`,
//! written there. The entry RAMs are addressed with 8 QPN bits, so `QA` is at most 8 (the NIC's
//! 256 QPs).
use rust_hdl::prelude::*;
use std::collections::{HashMap, VecDeque};

/// Log2 of the entries per QP.
pub const AT_CACHE_LOG2: usize = 4;
/// Entries per QP: the responder's READ/atomic resources (`max_dest_rd_atomic`).
pub const AT_CACHE_ENTRIES: usize = 1 << AT_CACHE_LOG2;
/// QPN bits the entry RAMs are addressed with (at most 256 QPs).
pub const AT_CACHE_MAX_QA: usize = 8;
/// Address bits of the entry RAMs.
const EA: usize = AT_CACHE_MAX_QA + AT_CACHE_LOG2;

/// `cmd_op`: look the PSN up among the QP's entries (answers on `rsp_*`).
pub const AT_OP_LOOKUP: u64 = 0;
/// `cmd_op`: record `(cmd_psn, cmd_orig)` as the QP's newest entry (the oldest of a full ring
/// is overwritten).
pub const AT_OP_INSERT: u64 = 1;
/// `cmd_op`: forget every entry of the QP.
pub const AT_OP_CLEAR: u64 = 2;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum AtCacheState {
    /// Ready for a command; the ring word of `cmd_qpn` is being read.
    Idle,
    /// The ring word is in: an insert writes its entry and the word, a clear zeroes the word,
    /// a lookup starts its search at the newest entry.
    Meta,
    /// A lookup: one entry read per cycle (newest first), each compared the cycle after its
    /// read; the result is registered for `rsp_*`.
    Search,
}

#[derive(LogicBlock)]
pub struct AtomicReplayCache<const QA: usize> {
    pub clock: Signal<In, Clock>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    pub cmd_op: Signal<In, Bits<2>>,
    pub cmd_qpn: Signal<In, Bits<QA>>,
    pub cmd_psn: Signal<In, Bits<24>>,
    pub cmd_orig: Signal<In, Bits<64>>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_hit: Signal<Out, Bit>,
    pub rsp_orig: Signal<Out, Bits<64>>,

    /// per QP: 8:4 valid entries (0..=16), 3:0 the slot the next insert writes
    ram_ring: RAM<Bits<9>, QA>,
    /// entries at QPN x 16 + slot: PSN, original value (two halves: 32-bit values simulate
    /// much faster than 64-bit ones)
    ram_psn: RAM<Bits<24>, EA>,
    ram_hi: RAM<Bits<32>, EA>,
    ram_lo: RAM<Bits<32>, EA>,

    state: DFF<AtCacheState>,
    r_op: DFF<Bits<2>>,
    r_qpn: DFF<Bits<QA>>,
    r_psn: DFF<Bits<24>>,
    r_orig: DFF<Bits<64>>,
    /// the slot read this cycle during a search
    r_slot: DFF<Bits<4>>,
    /// entries not yet read
    r_left: DFF<Bits<5>>,
    /// the entry RAMs' output holds an entry read in the previous cycle
    r_pend: DFF<Bit>,
    r_done: DFF<Bit>,
    r_hit: DFF<Bit>,
    r_res: DFF<Bits<64>>,

    c_lookup: Constant<Bits<2>>,
    c_insert: Constant<Bits<2>>,
    c_clear: Constant<Bits<2>>,
    c_full: Constant<Bits<5>>,

    /// the ring word of the command's QP: valid entries, next slot, and both after an insert
    m_n: Signal<Local, Bits<5>>,
    m_wp: Signal<Local, Bits<4>>,
    m_n1: Signal<Local, Bits<5>>,
    m_wp1: Signal<Local, Bits<4>>,
    m_newest: Signal<Local, Bits<4>>,
    /// the entry address: QPN x 16 + slot
    e_qpn: Signal<Local, Bits<EA>>,
    e_slot: Signal<Local, Bits<4>>,
    e_addr: Signal<Local, Bits<EA>>,
    e_match: Signal<Local, Bit>,
}

impl<const QA: usize> Default for AtomicReplayCache<QA> {
    fn default() -> Self {
        assert!(
            (1..=AT_CACHE_MAX_QA).contains(&QA),
            "AtomicReplayCache: QA must be 1..=8"
        );
        fn zram<const N: usize, const A: usize>() -> RAM<Bits<N>, A> {
            // zero-initialised: the ring words read "empty" before any QP is loaded, in
            // every simulator
            RAM::from((0..(1usize << A)).map(|_| Bits::<N>::default()))
        }
        Self {
            clock: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_op: Default::default(),
            cmd_qpn: Default::default(),
            cmd_psn: Default::default(),
            cmd_orig: Default::default(),
            rsp_valid: Default::default(),
            rsp_hit: Default::default(),
            rsp_orig: Default::default(),
            ram_ring: zram(),
            ram_psn: zram(),
            ram_hi: zram(),
            ram_lo: zram(),
            state: Default::default(),
            r_op: Default::default(),
            r_qpn: Default::default(),
            r_psn: Default::default(),
            r_orig: Default::default(),
            r_slot: Default::default(),
            r_left: Default::default(),
            r_pend: Default::default(),
            r_done: Default::default(),
            r_hit: Default::default(),
            r_res: Default::default(),
            c_lookup: Constant::new(AT_OP_LOOKUP.into()),
            c_insert: Constant::new(AT_OP_INSERT.into()),
            c_clear: Constant::new(AT_OP_CLEAR.into()),
            c_full: Constant::new((AT_CACHE_ENTRIES as u64).into()),
            m_n: Default::default(),
            m_wp: Default::default(),
            m_n1: Default::default(),
            m_wp1: Default::default(),
            m_newest: Default::default(),
            e_qpn: Default::default(),
            e_slot: Default::default(),
            e_addr: Default::default(),
            e_match: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for AtomicReplayCache<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, r_op, r_qpn, r_psn, r_orig, r_slot, r_left, r_pend, r_done, r_hit,
            r_res
        );
        self.ram_ring.read_clock.next = self.clock.val();
        self.ram_ring.write_clock.next = self.clock.val();
        self.ram_psn.read_clock.next = self.clock.val();
        self.ram_psn.write_clock.next = self.clock.val();
        self.ram_hi.read_clock.next = self.clock.val();
        self.ram_hi.write_clock.next = self.clock.val();
        self.ram_lo.read_clock.next = self.clock.val();
        self.ram_lo.write_clock.next = self.clock.val();

        // ---- the ring word (read at the command's QPN in Idle, at the held one after) ----
        self.ram_ring.read_address.next = self.r_qpn.q.val();
        if self.state.q.val() == AtCacheState::Idle {
            self.ram_ring.read_address.next = self.cmd_qpn.val();
        }
        self.m_n.next = self.ram_ring.read_data.val().get_bits::<5>(4);
        self.m_wp.next = self.ram_ring.read_data.val().get_bits::<4>(0);
        self.m_wp1.next = self.m_wp.val() + 1;
        self.m_newest.next = self.m_wp.val() - 1;
        self.m_n1.next = self.m_n.val();
        if self.m_n.val() != self.c_full.val() {
            self.m_n1.next = self.m_n.val() + 1;
        }
        self.ram_ring.write_address.next = self.r_qpn.q.val();
        self.ram_ring.write_data.next =
            (bit_cast::<9, 5>(self.m_n1.val()) << 4) | bit_cast::<9, 4>(self.m_wp1.val());
        self.ram_ring.write_enable.next = false;

        // ---- the entry RAMs: written at the ring's next slot, read at the search's slot ----
        self.e_qpn.next = bit_cast::<EA, QA>(self.r_qpn.q.val()) << 4;
        self.e_slot.next = self.r_slot.q.val();
        if self.state.q.val() == AtCacheState::Meta {
            self.e_slot.next = self.m_wp.val();
        }
        self.e_addr.next = self.e_qpn.val() | bit_cast::<EA, 4>(self.e_slot.val());
        self.ram_psn.read_address.next = self.e_addr.val();
        self.ram_hi.read_address.next = self.e_addr.val();
        self.ram_lo.read_address.next = self.e_addr.val();
        self.ram_psn.write_address.next = self.e_addr.val();
        self.ram_hi.write_address.next = self.e_addr.val();
        self.ram_lo.write_address.next = self.e_addr.val();
        self.ram_psn.write_data.next = self.r_psn.q.val();
        self.ram_hi.write_data.next = self.r_orig.q.val().get_bits::<32>(32);
        self.ram_lo.write_data.next = self.r_orig.q.val().get_bits::<32>(0);
        self.ram_psn.write_enable.next = false;
        self.ram_hi.write_enable.next = false;
        self.ram_lo.write_enable.next = false;
        self.e_match.next =
            self.r_pend.q.val() & (self.ram_psn.read_data.val() == self.r_psn.q.val());

        // ---- outputs ----
        self.cmd_ready.next = false;
        self.rsp_valid.next = self.r_done.q.val();
        self.rsp_hit.next = self.r_hit.q.val();
        self.rsp_orig.next = self.r_res.q.val();
        self.r_done.d.next = false;

        match self.state.q.val() {
            AtCacheState::Idle => {
                self.cmd_ready.next = true;
                if self.cmd_valid.val() {
                    self.r_op.d.next = self.cmd_op.val();
                    self.r_qpn.d.next = self.cmd_qpn.val();
                    self.r_psn.d.next = self.cmd_psn.val();
                    self.r_orig.d.next = self.cmd_orig.val();
                    self.state.d.next = AtCacheState::Meta;
                }
            }
            AtCacheState::Meta => {
                self.state.d.next = AtCacheState::Idle;
                if self.r_op.q.val() == self.c_insert.val() {
                    // the newest entry goes into the next slot (over the oldest of a full ring)
                    self.ram_psn.write_enable.next = true;
                    self.ram_hi.write_enable.next = true;
                    self.ram_lo.write_enable.next = true;
                    self.ram_ring.write_enable.next = true;
                } else if self.r_op.q.val() == self.c_clear.val() {
                    self.ram_ring.write_data.next = 0.into();
                    self.ram_ring.write_enable.next = true;
                } else if self.r_op.q.val() == self.c_lookup.val() {
                    self.r_slot.d.next = self.m_newest.val();
                    self.r_left.d.next = self.m_n.val();
                    self.r_pend.d.next = false;
                    self.state.d.next = AtCacheState::Search;
                }
            }
            AtCacheState::Search => {
                // the entry read last cycle is compared now while the next one is read
                if self.e_match.val() {
                    self.r_done.d.next = true;
                    self.r_hit.d.next = true;
                    self.r_res.d.next = (bit_cast::<64, 32>(self.ram_hi.read_data.val()) << 32)
                        | bit_cast::<64, 32>(self.ram_lo.read_data.val());
                    self.state.d.next = AtCacheState::Idle;
                } else if self.r_left.q.val() == 0 {
                    // every valid entry compared: a miss
                    self.r_done.d.next = true;
                    self.r_hit.d.next = false;
                    self.r_res.d.next = 0.into();
                    self.state.d.next = AtCacheState::Idle;
                } else {
                    self.r_slot.d.next = self.r_slot.q.val() - 1;
                    self.r_left.d.next = self.r_left.q.val() - 1;
                    self.r_pend.d.next = true;
                }
            }
        }
    }
}

/// The reference model: per QP the last [`AT_CACHE_ENTRIES`] inserted `(psn, orig)`, newest
/// last; a lookup answers the newest entry with that PSN.
#[derive(Clone, Debug, Default)]
pub struct AtomicReplayCacheModel {
    rings: HashMap<u32, VecDeque<(u32, u64)>>,
}

impl AtomicReplayCacheModel {
    pub fn insert(&mut self, qpn: u32, psn: u32, orig: u64) {
        let r = self.rings.entry(qpn).or_default();
        if r.len() == AT_CACHE_ENTRIES {
            r.pop_front();
        }
        r.push_back((psn & 0xFF_FFFF, orig));
    }
    pub fn clear(&mut self, qpn: u32) {
        self.rings.remove(&qpn);
    }
    pub fn lookup(&self, qpn: u32, psn: u32) -> Option<u64> {
        self.rings
            .get(&qpn)?
            .iter()
            .rev()
            .find(|&&(p, _)| p == psn & 0xFF_FFFF)
            .map(|&(_, v)| v)
    }
}
