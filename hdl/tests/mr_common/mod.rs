//! Shared by the `mr_*` tests: the reference model of the MR table (table contents and command
//! timing, with the verdict of every lookup taken from the software rule
//! `ferroce_proto::host::mr::MrEntry::check`), and a biased random stimulus generator.
//!
//! The protection rule comes from the proto crate (`ferroce_proto::host::mr`).
#![allow(dead_code)]

pub mod directed;

use ferroce_hdl::mr::drive::*;
use ferroce_hdl::mr::*;
use ferroce_hdl::testbench::{Rng, Stepper};
use ferroce_proto::host::mr::{make_key, MrEntry, MrViolation};
use ferroce_proto::host::qp::AccessFlags;

/// The one adaptation between the hardware request and `MrEntry::check`: a *remote* request
/// whose `need` names no REMOTE_* right is refused with `Access` by the hardware. Expressed by
/// asking the oracle for an extra right no entry can hold (MW_BIND, bit 4: the table stores
/// 4 bits), which fails the oracle's own access test at the same priority.
pub fn oracle_need(need: u8, remote: bool) -> AccessFlags {
    let n = AccessFlags(need as u32 & 0xF);
    if remote && !n.intersects(AccessFlags::REMOTE_ANY) {
        n | AccessFlags::MW_BIND
    } else {
        n
    }
}

pub fn code_of(v: MrViolation) -> u64 {
    match v {
        MrViolation::Invalid => CODE_INVALID,
        MrViolation::KeyMismatch => CODE_KEY,
        MrViolation::PdMismatch => CODE_PD,
        MrViolation::Access => CODE_ACCESS,
        MrViolation::Range => CODE_RANGE,
    }
}

/// The proto entry for table slot `index` holding `f`.
pub fn proto_entry(index: u32, f: &EntryFields) -> MrEntry {
    MrEntry {
        key: make_key(index, f.key8),
        pd: f.pd,
        access: AccessFlags(f.access as u32),
        va: f.va,
        length: f.len,
        dma: f.dma,
    }
}

/// The expected response to `l` given the table `slots` (`None` = never written / all-zero
/// row, which the hardware also has) and whether a CLEAR is running.
pub fn expected(slots: &[(EntryFields, bool)], l: &Lookup, clearing: bool) -> Response {
    let mut r = Response {
        remote: l.remote,
        tag: l.tag,
        ..Default::default()
    };
    if l.len == 0 {
        // zero length: nothing checked, no translation
        r.ok = true;
        r.zero = true;
        return r;
    }
    let idx = l.key >> 8;
    let verdict = if clearing || idx as usize >= slots.len() {
        Err(MrViolation::Invalid)
    } else {
        let (f, valid) = &slots[idx as usize];
        proto_entry(idx, f).check(
            *valid,
            l.key,
            l.pd,
            oracle_need(l.need, l.remote),
            l.va,
            l.len,
        )
    };
    match verdict {
        Ok(a) => {
            r.ok = true;
            r.addr = a;
        }
        Err(v) => r.code = code_of(v),
    }
    r
}

/// Cycle-exact model of the table: contents, command timing, lookup responses.
pub struct Model {
    pub slots: Vec<(EntryFields, bool)>,
    pub cycle: u64,
    /// Responses due: (cycle, response), in order.
    pub due: std::collections::VecDeque<(u64, Response)>,
    /// Last cycle with `cmd_busy = 1` of the running command.
    pub busy_until: Option<u64>,
    pub done_at: Option<u64>,
    /// The cycle in which `req_ready` is low (the QUERY read cycle).
    pub not_ready_at: Option<u64>,
    pub clearing_until: Option<u64>,
    /// `q_*` as shown now, and the value pending until `done_at`.
    pub query: QueryOut,
    pub query_next: Option<QueryOut>,
}

impl Model {
    pub fn new(entries: usize) -> Self {
        Model {
            slots: vec![(EntryFields::default(), false); entries],
            cycle: 0,
            due: Default::default(),
            busy_until: None,
            done_at: None,
            not_ready_at: None,
            clearing_until: None,
            query: QueryOut::default(),
            query_next: None,
        }
    }

    pub fn busy(&self) -> bool {
        self.busy_until.is_some_and(|u| self.cycle <= u)
    }

    /// What the block must show in the current cycle, given the inputs of the cycle (lookups
    /// and commands only affect later cycles, except nothing: all outputs are registers).
    pub fn outputs(&mut self) -> CycleOut {
        if self.done_at == Some(self.cycle) {
            if let Some(q) = self.query_next.take() {
                self.query = q;
            }
        }
        let resp = match self.due.front() {
            Some(&(c, r)) if c == self.cycle => Some(r),
            _ => None,
        };
        CycleOut {
            ready: self.not_ready_at != Some(self.cycle),
            resp,
            busy: self.busy(),
            done: self.done_at == Some(self.cycle),
            query: self.query,
        }
    }

    /// Apply the inputs of the current cycle (after `outputs`), then advance to the next cycle.
    /// Returns whether a presented lookup was accepted and whether the command was taken.
    pub fn apply(&mut self, inp: &CycleIn) -> (bool, bool) {
        let c = self.cycle;
        if self.due.front().is_some_and(|&(d, _)| d == c) {
            self.due.pop_front();
        }
        let mut accepted = false;
        if let Some(l) = &inp.lookup {
            if self.not_ready_at != Some(c) {
                accepted = true;
                let clearing = self.clearing_until.is_some_and(|u| c <= u);
                let r = expected(&self.slots, l, clearing);
                self.due.push_back((c + LATENCY, r));
            }
        }
        let mut taken = false;
        if let Some(cmd) = &inp.cmd {
            if !self.busy() {
                taken = true;
                match *cmd {
                    Cmd::Write { index, entry } => {
                        // written at the edge ending c + 1; no lookup accepted in c + 1
                        self.slots[index as usize] = (entry, true);
                        self.not_ready_at = Some(c + 1);
                        self.busy_until = Some(c + DRAIN_CYCLES);
                        self.done_at = Some(c + DRAIN_CYCLES + 1);
                    }
                    Cmd::Invalidate { index } => {
                        self.slots[index as usize].1 = false;
                        self.not_ready_at = Some(c + 1);
                        self.busy_until = Some(c + DRAIN_CYCLES);
                        self.done_at = Some(c + DRAIN_CYCLES + 1);
                    }
                    Cmd::Query { index } => {
                        let (e, v) = self.slots[index as usize];
                        self.query_next = Some(QueryOut { valid: v, entry: e });
                        self.not_ready_at = Some(c + 1);
                        self.busy_until = Some(c + 3);
                        self.done_at = Some(c + 4);
                    }
                    Cmd::Clear => {
                        let n = self.slots.len() as u64;
                        for s in self.slots.iter_mut() {
                            s.1 = false;
                        }
                        self.clearing_until = Some(c + n);
                        self.busy_until = Some(c + n);
                        self.done_at = Some(c + n + 1);
                    }
                }
            }
        }
        self.cycle += 1;
        (accepted, taken)
    }
}

// ---------------------------------------------------------------------------------------------
// Random stimulus
// ---------------------------------------------------------------------------------------------

/// Knobs of the random run.
#[derive(Clone, Copy, Debug)]
pub struct GenCfg {
    /// Table entries (2^A).
    pub entries: usize,
    /// Percent of cycles presenting a lookup (100 = back to back).
    pub lookup_pct: u32,
    /// Percent of idle-command cycles issuing a command.
    pub cmd_pct: u32,
    /// Percent of commands that are CLEAR (expensive with big tables).
    pub clear_pct: u32,
    /// Number of "hot" slots lookups and writes concentrate on.
    pub hot: usize,
}

pub struct Gen {
    pub cfg: GenCfg,
    pub rng: Rng,
    hot: Vec<u32>,
    /// What the generator believes is in each hot slot (the latest write, and the key8 before it),
    /// for aiming lookups at it.
    shadow: std::collections::HashMap<u32, (EntryFields, u8)>,
    tag: u8,
    /// A lookup not yet accepted is presented again (AXI-like hold).
    held: Option<Lookup>,
    /// What is on `cmd_index` / `wr_*` now (the last command driven).
    idx_now: u32,
    wr_now: EntryFields,
}

/// A random 64-bit value biased towards edges.
pub fn edgy_u64(rng: &mut Rng) -> u64 {
    match rng.below(10) {
        0 => 0,
        1 => u64::MAX - rng.below(4),
        2 => rng.below(16),
        3 => 1u64 << rng.below(64),
        4 => (1u64 << rng.below(64)).wrapping_sub(1),
        5 => 0xFFFF_FFFF - rng.below(3), // near the 32-bit half boundary
        6 => 0x1_0000_0000 + rng.below(3),
        _ => rng.next_u64(),
    }
}

pub fn random_entry(rng: &mut Rng) -> EntryFields {
    loop {
        let len = match rng.below(8) {
            0 => 0,
            1 => 1 + rng.below(8),
            2 => 0x1000,
            3 => rng.next_u64() >> rng.below(64),
            4 => u64::MAX - rng.below(2),
            5 => 0xFFFF_FFFF + rng.below(3),
            _ => rng.next_u64() >> (8 + rng.below(40)),
        };
        let va = match rng.below(6) {
            0 => 0,
            1 => u64::MAX - len, // region ends exactly at 2^64 - 1
            2 => (u64::MAX - len).wrapping_sub(rng.below(0x1_0000)),
            _ => edgy_u64(rng),
        };
        let dma = match rng.below(4) {
            0 => 0,
            1 => u64::MAX - len,
            _ => edgy_u64(rng),
        };
        // the CSR block refuses regions whose end overflows (MrEntry::validate); the table
        // never holds one. Any access bits are allowed (the verbs rule is the CSR's too).
        if va.checked_add(len).is_none() || dma.checked_add(len).is_none() {
            continue;
        }
        let pd = if rng.percent(50) {
            rng.below(4) as u32
        } else {
            rng.next_u64() as u32 & 0xFF_FFFF
        };
        return EntryFields {
            key8: rng.next_u64() as u8,
            pd,
            access: rng.below(16) as u8,
            va,
            len,
            dma,
        };
    }
}

impl Gen {
    pub fn new(cfg: GenCfg, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let n = cfg.entries as u32;
        let mut hot: Vec<u32> = vec![0, n - 1];
        while hot.len() < cfg.hot.max(2) {
            hot.push(rng.below(n as u64) as u32);
        }
        Gen {
            cfg,
            rng,
            hot,
            shadow: Default::default(),
            tag: 0,
            held: None,
            idx_now: 0,
            wr_now: EntryFields::default(),
        }
    }

    fn hot_index(&mut self) -> u32 {
        self.hot[self.rng.below(self.hot.len() as u64) as usize]
    }

    fn new_command(&mut self) -> Cmd {
        let r = self.rng.below(100) as u32;
        if r < self.cfg.clear_pct {
            return Cmd::Clear;
        }
        let index = self.hot_index();
        match self.rng.below(10) {
            0..=5 => {
                let mut e = random_entry(&mut self.rng);
                let old = self.shadow.get(&index).map(|x| x.0.key8);
                if let Some(k) = old {
                    // re-register: usually a new key8 (rxe), sometimes the same one
                    if self.rng.percent(20) {
                        e.key8 = k;
                    }
                }
                self.shadow.insert(index, (e, old.unwrap_or(e.key8 ^ 1)));
                Cmd::Write { index, entry: e }
            }
            6 | 7 => Cmd::Invalidate { index },
            _ => Cmd::Query { index },
        }
    }

    fn new_lookup(&mut self) -> Lookup {
        self.tag = self.tag.wrapping_add(1);
        let rng = &mut self.rng;
        let n = self.cfg.entries as u64;
        // which slot and key
        let (key, e) = if rng.percent(90) && !self.shadow.is_empty() {
            let i = self.hot[rng.below(self.hot.len() as u64) as usize];
            let (e, stale) = self
                .shadow
                .get(&i)
                .copied()
                .unwrap_or((EntryFields::default(), 1));
            let key8 = match rng.below(10) {
                0 => stale,
                1 => rng.next_u64() as u8,
                _ => e.key8,
            };
            (make_key(i, key8), e)
        } else {
            let key = match rng.below(4) {
                0 => make_key(
                    (n + rng.below(0x00FF_FFFF - n + 1)) as u32,
                    rng.next_u64() as u8,
                ), // index out of range
                1 => u32::MAX,
                _ => rng.next_u64() as u32,
            };
            (key, random_entry(rng))
        };
        let pd = if rng.percent(85) {
            e.pd
        } else if rng.percent(50) {
            e.pd ^ (1 << rng.below(24))
        } else {
            rng.next_u64() as u32 & 0xFF_FFFF
        };
        let remote = rng.percent(60);
        let need: u8 = match rng.below(10) {
            0 => 0,
            1 => rng.below(16) as u8,
            _ if remote => [2u8, 4, 8][rng.below(3) as usize],
            _ => [0u8, 1][rng.below(2) as usize],
        };
        let need = if rng.percent(80) && need != 0 && (need as u64 & REMOTE_ANY) == 0 && remote {
            need | 4
        } else {
            need
        };
        // length and address, aimed at the region's edges
        let len = match rng.below(12) {
            0 => 0,
            1 => e.len,
            2 => e.len.wrapping_add(1),
            3 => 1,
            4 => u64::MAX - rng.below(2),
            5 => edgy_u64(rng),
            _ => 1 + (rng.next_u64() % e.len.max(1).min(1 << 20)),
        };
        let span = e.len.wrapping_sub(len); // va - base <= span is in range (if len <= length)
        let off = match rng.below(12) {
            0 => 0,
            1 => span,
            2 => span.wrapping_add(1),
            3 => u64::MAX - rng.below(2), // va = base - 1 .. wrap
            4 => e.len,
            5 => e.len.wrapping_sub(1),
            6 => edgy_u64(rng),
            7 => (1u64 << 32).wrapping_sub(e.va & 0xFFFF_FFFF), // va low half = 0
            _ => rng.next_u64() % span.saturating_add(1).max(1),
        };
        let va = if rng.percent(5) {
            edgy_u64(rng)
        } else {
            e.va.wrapping_add(off)
        };
        Lookup {
            key,
            pd,
            need,
            va,
            len,
            remote,
            tag: self.tag,
        }
    }

    /// The inputs of the next cycle (`busy` = what the model predicts for this cycle).
    pub fn next(&mut self, busy: bool) -> CycleIn {
        let lookup = match self.held {
            Some(l) => Some(l),
            None if self.rng.percent(self.cfg.lookup_pct) => Some(self.new_lookup()),
            None => None,
        };
        self.held = lookup;
        let cmd = if !busy && self.rng.percent(self.cfg.cmd_pct) {
            let c = self.new_command();
            match c {
                Cmd::Write { index, entry } => {
                    self.idx_now = index;
                    self.wr_now = entry;
                }
                Cmd::Invalidate { index } | Cmd::Query { index } => self.idx_now = index,
                Cmd::Clear => {}
            }
            Some(c)
        } else if busy && self.rng.percent(2) {
            // ignored while busy: must change nothing
            Some(self.new_command_ignored())
        } else {
            None
        };
        CycleIn { lookup, cmd }
    }

    /// A strobe raised while busy (ignored by the block), with the index and fields the running
    /// command needs held (the block's input contract).
    fn new_command_ignored(&mut self) -> Cmd {
        let index = self.idx_now;
        match self.rng.below(4) {
            0 => Cmd::Write {
                index,
                entry: self.wr_now,
            },
            1 => Cmd::Invalidate { index },
            2 => Cmd::Query { index },
            _ => Cmd::Clear,
        }
    }

    /// Tell the generator whether the presented lookup was accepted.
    pub fn after(&mut self, accepted: bool) {
        if accepted {
            self.held = None;
        }
    }
}

/// Statistics of a run, to show the stimulus is not vacuous.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub cycles: u64,
    pub lookups: u64,
    pub by_code: [u64; 6],
    pub zero: u64,
    pub commands: [u64; 4],
    pub ignored: u64,
    pub stalls: u64,
}

/// Run `cycles` cycles of random stimulus on `s`, comparing every output of every cycle with
/// the model.
pub fn run_random<const A: usize, S: Stepper<MrTable<A>>>(
    s: &mut S,
    cfg: GenCfg,
    seed: u64,
    cycles: u64,
) -> Stats {
    assert_eq!(cfg.entries, 1 << A);
    let mut g = Gen::new(cfg, seed);
    let mut m = Model::new(cfg.entries);
    let mut st = Stats::default();
    for _ in 0..cycles {
        let want = m.outputs();
        let inp = g.next(want.busy);
        let got = step(s, &inp);
        if got != want {
            panic!(
                "cycle {}: inputs {inp:?}\n  block {got:?}\n  model {want:?}",
                m.cycle
            );
        }
        if let Some(r) = got.resp {
            st.lookups += 1;
            st.by_code[r.code as usize] += 1;
            st.zero += r.zero as u64;
        }
        let (acc, taken) = m.apply(&inp);
        g.after(acc);
        if inp.lookup.is_some() && !acc {
            st.stalls += 1;
        }
        if let Some(c) = inp.cmd {
            if taken {
                st.commands[match c {
                    Cmd::Write { .. } => 0,
                    Cmd::Invalidate { .. } => 1,
                    Cmd::Query { .. } => 2,
                    Cmd::Clear => 3,
                }] += 1;
            } else {
                st.ignored += 1;
            }
        }
        st.cycles += 1;
    }
    st
}
