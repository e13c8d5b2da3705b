//! Tests of [`DmaReadMux`]: two random masters against a model of the DMA shell's read channel
//! (random request back-pressure, in-order responses after a random latency with random valid
//! gaps, some with `rsp_error`), checking that each master gets exactly the responses to its own
//! requests, in order and byte-exact, and that a request shown on `out` stays there unchanged
//! until accepted (AXI; the shell panics otherwise) even when `a` starts requesting while `b`
//! waits; plus directed tests of the priority, of the hold of a waiting `b` and of the full
//! owner queue, and a synthesis smoke test.
use super::DmaReadMux;
use crate::stream::{beats_to_frames, frame_to_beats, Beat};
use crate::testbench::{Bench, Collector, Rng, Stepper};
use std::collections::VecDeque;

/// Requests the mux keeps in flight at most (the depth of its owner queue).
const DEPTH: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Req {
    addr: u64,
    len: usize,
    tag: u8,
}

/// The shell model fails some reads: the response then carries zeros (docs/DMA.md).
fn is_error(addr: u64) -> bool {
    (addr >> 3).is_multiple_of(7)
}

/// The bytes the shell returns for a request: byte i = (addr + i) * 7 mod 256, zeros on error.
fn rsp_bytes(r: &Req) -> Vec<u8> {
    if is_error(r.addr) {
        return vec![0; r.len];
    }
    (0..r.len as u64)
        .map(|i| (r.addr.wrapping_add(i).wrapping_mul(7)) as u8)
        .collect()
}

/// One master: issues `total` random requests with random gaps (holding each until ready) and
/// consumes its responses with random ready stalls.
struct Master {
    tag_base: u8,
    total: usize,
    gap_percent: u32,
    pending: Option<Req>,
    issued: Vec<Req>,
    rsp: Collector,
    /// (`rsp_tag`, `rsp_error`) of every beat received, parallel to `rsp.beats`.
    side: Vec<(u8, bool)>,
}

impl Master {
    fn new(tag_base: u8, total: usize, gap_percent: u32, stall_percent: u32) -> Self {
        Master {
            tag_base,
            total,
            gap_percent,
            pending: None,
            issued: vec![],
            rsp: Collector::new(stall_percent),
            side: vec![],
        }
    }

    /// The request to present this cycle (a new one is drawn only when none is held).
    fn next_req(&mut self, rng: &mut Rng, max_len: usize) -> Option<Req> {
        if self.pending.is_none()
            && self.issued.len() < self.total
            && !rng.percent(self.gap_percent)
        {
            self.pending = Some(Req {
                addr: rng.next_u64(),
                len: rng.range(1, max_len),
                tag: self.tag_base + (self.issued.len() % 100) as u8,
            });
        }
        self.pending
    }

    fn responses(&self) -> usize {
        self.rsp.beats.iter().filter(|b| b.last).count()
    }

    fn done(&self) -> bool {
        self.issued.len() == self.total && self.responses() == self.total
    }

    /// Every response is the one to the matching request: bytes, tag and error flag.
    fn check(&self, name: &str) {
        assert_eq!(self.issued.len(), self.total, "{name}: requests issued");
        let frames = beats_to_frames(&self.rsp.beats);
        assert_eq!(
            frames.len(),
            self.issued.len(),
            "{name}: responses received"
        );
        let mut beat = 0;
        for (n, (req, frame)) in self.issued.iter().zip(&frames).enumerate() {
            assert_eq!(*frame, rsp_bytes(req), "{name}: response {n} to {req:?}");
            let beats = req.len.div_ceil(8);
            for &(tag, err) in &self.side[beat..beat + beats] {
                assert_eq!(tag, req.tag, "{name}: rsp_tag of response {n}");
                assert_eq!(err, is_error(req.addr), "{name}: rsp_error of response {n}");
            }
            beat += beats;
        }
        assert_eq!(beat, self.side.len());
    }
}

/// A model of the shell's read channel: answers the requests in order after a random latency,
/// with random valid gaps (a beat once presented is held). Its random `req_ready` is drawn in
/// [`run`].
struct Shell {
    gap_percent: u32,
    min_latency: u64,
    max_latency: u64,
    /// No response is started before this cycle (to fill the mux's owner queue).
    hold_until: u64,
    queue: VecDeque<(Req, u64, VecDeque<Beat>)>,
    presenting: bool,
    completed: usize,
}

impl Shell {
    fn new(gap_percent: u32, latency: (u64, u64)) -> Self {
        Shell {
            gap_percent,
            min_latency: latency.0,
            max_latency: latency.1,
            hold_until: 0,
            queue: VecDeque::new(),
            presenting: false,
            completed: 0,
        }
    }

    /// The beat to present this cycle, with the head request.
    fn next_beat(&mut self, now: u64, rng: &mut Rng) -> Option<(Req, Beat)> {
        let (req, at, beats) = self.queue.front()?;
        if !self.presenting {
            self.presenting =
                now >= *at && now >= self.hold_until && !rng.percent(self.gap_percent);
        }
        if self.presenting {
            Some((*req, beats.front().unwrap().clone()))
        } else {
            None
        }
    }

    fn accept(&mut self, req: Req, now: u64, rng: &mut Rng) {
        let lat = self.min_latency + rng.below(self.max_latency - self.min_latency + 1);
        let beats = frame_to_beats(&rsp_bytes(&req), 8).into();
        self.queue.push_back((req, now + lat, beats));
    }

    /// After the edge: `fired` = a response beat was transferred. Returns true on a last beat.
    fn after_edge(&mut self, fired: bool) -> bool {
        if !fired {
            return false;
        }
        assert!(self.presenting);
        self.presenting = false;
        let (_, _, beats) = self.queue.front_mut().unwrap();
        let b = beats.pop_front().unwrap();
        if b.last {
            assert!(beats.is_empty());
            self.queue.pop_front();
            self.completed += 1;
        }
        b.last
    }
}

#[derive(Clone, Copy)]
struct Cfg {
    seed: u64,
    per_master: usize,
    max_len: usize,
    a_gap: u32,
    b_gap: u32,
    stall: u32,
    shell_ready: u32,
    /// Chance (percent) per cycle that the shell starts a run of 1..=8 cycles of `req_ready`
    /// low (so that `b` waits on `out` long enough for `a` to start requesting).
    shell_busy: u32,
    shell_gap: u32,
    latency: (u64, u64),
    hold_until: u64,
}

impl Cfg {
    fn new(seed: u64) -> Self {
        Cfg {
            seed,
            per_master: 120,
            max_len: 300,
            a_gap: 60,
            b_gap: 40,
            stall: 25,
            shell_ready: 70,
            shell_busy: 5,
            shell_gap: 20,
            latency: (1, 30),
            hold_until: 0,
        }
    }
}

#[derive(Default, Debug)]
struct Stats {
    cycles: u64,
    /// Cycles where both masters requested, nothing was held on `out` and the shell took `a`.
    both_granted_a: usize,
    /// Cycles where `a` requested while `b`'s request, shown and not accepted in the cycle
    /// before, stayed on `out` (where a mux that lets `a` win would break AXI).
    b_held_over_a: usize,
    /// Of those, the cycles where the shell took the held `b`.
    b_held_granted: usize,
    /// Cycles where a request was accepted while a response's last beat went through.
    push_and_pop: usize,
    /// Most requests in flight at once (accepted, last beat not yet transferred).
    max_in_flight: usize,
    /// Cycles where `out.req_valid` was held low with a request waiting (owner queue full).
    blocked_full: usize,
}

/// Runs both masters against the shell model through the mux and checks everything.
fn run(cfg: Cfg) -> Stats {
    let mut rng = Rng::new(cfg.seed);
    let mut b = Bench::new(DmaReadMux::default(), |u| &mut u.clock);
    let mut ma = Master::new(0, cfg.per_master, cfg.a_gap, cfg.stall);
    let mut mb = Master::new(128, cfg.per_master, cfg.b_gap, cfg.stall);
    let mut shell = Shell::new(cfg.shell_gap, cfg.latency);
    shell.hold_until = cfg.hold_until;
    let mut st = Stats::default();
    let bound = 400 * cfg.per_master as u64 + cfg.hold_until + 1000;
    // cycles left in the shell's current run of `req_ready` low
    let mut busy_left = 0;
    // the request on `out` that was not accepted at the last edge (fields, is it b's)
    let mut waiting: Option<(Req, bool)> = None;
    while !(ma.done() && mb.done()) {
        let now = b.cycles();
        assert!(
            now < bound,
            "seed {}: deadlock? a {}/{} b {}/{} after {now} cycles",
            cfg.seed,
            ma.responses(),
            ma.total,
            mb.responses(),
            mb.total
        );
        // 1. drive the inputs
        let ra = ma.next_req(&mut rng, cfg.max_len);
        let rb = mb.next_req(&mut rng, cfg.max_len);
        let beat = shell.next_beat(now, &mut rng);
        let shell_ready = if busy_left > 0 {
            busy_left -= 1;
            false
        } else if rng.percent(cfg.shell_busy) {
            busy_left = rng.range(0, 7);
            false
        } else {
            rng.percent(cfg.shell_ready)
        };
        {
            let u = b.uut();
            for (port, r) in [(&mut u.a, ra), (&mut u.b, rb)] {
                port.req_valid.next = r.is_some();
                // a held request keeps its fields; an idle master drives junk
                let r = r.unwrap_or(Req {
                    addr: 0xDEAD_BEEF,
                    len: 0xFFFF,
                    tag: 0x55,
                });
                port.req_addr.next = r.addr.into();
                port.req_len.next = (r.len as u64).into();
                port.req_tag.next = (r.tag as u64).into();
            }
            ma.rsp.drive_ready(&mut u.a.rsp, &mut rng);
            mb.rsp.drive_ready(&mut u.b.rsp, &mut rng);
            u.out.rsp.drive(beat.as_ref().map(|(_, bt)| bt));
            let (tag, err) = match &beat {
                Some((r, _)) => (r.tag, is_error(r.addr)),
                None => (0xEE, true),
            };
            u.out.rsp_tag.next = (tag as u64).into();
            u.out.rsp_error.next = err;
            u.out.req_ready.next = false;
        }
        // 2. out.req_valid must not depend on out.req_ready
        b.settle();
        let valid_unready = b.uut().out.req_valid.val();
        b.uut().out.req_ready.next = shell_ready;
        b.settle();
        // 3. sample
        let u = b.uut();
        assert_eq!(
            u.out.req_valid.val(),
            valid_unready,
            "req_valid depends on req_ready"
        );
        let shown = Req {
            addr: u.out.req_addr.val().to_u64(),
            len: u.out.req_len.val().to_u64() as usize,
            tag: u.out.req_tag.val().to_u64() as u8,
        };
        // AXI: a request on `out` not accepted at the last edge is still there, unchanged
        if let Some((w, _)) = waiting {
            assert!(
                u.out.req_valid.val(),
                "seed {} cycle {now}: request {w:?} withdrawn before it was accepted",
                cfg.seed
            );
            assert_eq!(
                shown, w,
                "seed {} cycle {now}: request on out changed before it was accepted",
                cfg.seed
            );
        }
        let in_flight = shell.queue.len();
        let want_valid = (ra.is_some() || rb.is_some()) && in_flight < DEPTH;
        assert_eq!(u.out.req_valid.val(), want_valid, "out.req_valid");
        // b is shown when a does not request or b is the one waiting on out
        let held_b = waiting.is_some_and(|(_, is_b)| is_b);
        let sel_b = rb.is_some() && (ra.is_none() || held_b);
        if want_valid {
            let r = if sel_b { rb.unwrap() } else { ra.unwrap() };
            assert_eq!(shown, r, "seed {} cycle {now}: request on out", cfg.seed);
        }
        if (ra.is_some() || rb.is_some()) && in_flight >= DEPTH {
            st.blocked_full += 1;
        }
        let a_fire = u.a.req_valid.val() && u.a.req_ready.val();
        let b_fire = u.b.req_valid.val() && u.b.req_ready.val();
        let out_fire = u.out.req_valid.val() && u.out.req_ready.val();
        assert!(!(a_fire && b_fire), "both masters granted");
        assert_eq!(out_fire, a_fire || b_fire, "a request lost or invented");
        assert_eq!(
            b_fire,
            out_fire && sel_b,
            "seed {} cycle {now}: b_fire",
            cfg.seed
        );
        if ra.is_some() && held_b {
            st.b_held_over_a += 1;
            if out_fire {
                st.b_held_granted += 1;
            }
        } else if out_fire && ra.is_some() && rb.is_some() {
            st.both_granted_a += 1;
        }
        waiting = if u.out.req_valid.val() && !out_fire {
            Some((shown, sel_b))
        } else {
            None
        };
        // responses go to the owner of the oldest request only
        let owner_b = shell.queue.front().map(|(r, _, _)| r.tag >= 128);
        let av = u.a.rsp.valid.val();
        let bv = u.b.rsp.valid.val();
        assert!(!(av && bv), "both masters see a response beat");
        assert_eq!(av, beat.is_some() && owner_b == Some(false), "a.rsp.valid");
        assert_eq!(bv, beat.is_some() && owner_b == Some(true), "b.rsp.valid");
        if av {
            assert_eq!(u.out.rsp.ready.val(), u.a.rsp.ready.val());
        }
        if bv {
            assert_eq!(u.out.rsp.ready.val(), u.b.rsp.ready.val());
        }
        if ma.rsp.sample(&u.a.rsp) {
            ma.side
                .push((u.a.rsp_tag.val().to_u64() as u8, u.a.rsp_error.val()));
        }
        if mb.rsp.sample(&u.b.rsp) {
            mb.side
                .push((u.b.rsp_tag.val().to_u64() as u8, u.b.rsp_error.val()));
        }
        let rsp_fire = u.out.rsp.fires();
        assert_eq!(rsp_fire, u.a.rsp.fires() || u.b.rsp.fires());
        // 4. edge
        b.tick();
        let popped = shell.after_edge(rsp_fire);
        if out_fire && popped {
            st.push_and_pop += 1;
        }
        if out_fire {
            let now = b.cycles();
            if a_fire {
                let r = ma.pending.take().unwrap();
                ma.issued.push(r);
                shell.accept(r, now, &mut rng);
            } else {
                let r = mb.pending.take().unwrap();
                mb.issued.push(r);
                shell.accept(r, now, &mut rng);
            }
        }
        st.max_in_flight = st.max_in_flight.max(shell.queue.len());
    }
    assert!(shell.queue.is_empty());
    assert_eq!(shell.completed, 2 * cfg.per_master);
    ma.check("a");
    mb.check("b");
    st.cycles = b.cycles();
    st
}

#[test]
fn dma_rd_mux_random_seeds() {
    let mut both = 0;
    let mut held = 0;
    let mut held_granted = 0;
    let mut push_pop = 0;
    for seed in 1..=6 {
        let st = run(Cfg::new(seed));
        assert!(st.max_in_flight >= 2, "seed {seed}: {st:?}");
        both += st.both_granted_a;
        held += st.b_held_over_a;
        held_granted += st.b_held_granted;
        push_pop += st.push_and_pop;
    }
    assert!(both > 0, "never saw both masters request in the same cycle");
    assert!(held > 0, "never saw a request from a while b waited on out");
    assert!(
        held_granted > 0,
        "never saw a held b accepted while a requested"
    );
    assert!(push_pop > 0, "never saw a push and a pop in the same cycle");
}

#[test]
fn dma_rd_mux_busy_masters_fast_shell() {
    // no request gaps, no stalls: back-to-back requests, short responses, constant contention
    for seed in 10..=12 {
        let mut cfg = Cfg::new(seed);
        cfg.a_gap = 0;
        cfg.b_gap = 0;
        cfg.stall = 0;
        cfg.shell_ready = 100;
        cfg.shell_busy = 0;
        cfg.shell_gap = 0;
        cfg.latency = (0, 3);
        cfg.max_len = 20;
        let st = run(cfg);
        assert!(st.both_granted_a > 0, "seed {seed}: {st:?}");
        assert!(st.push_and_pop > 0, "seed {seed}: {st:?}");
    }
}

#[test]
fn dma_rd_mux_full_queue_stops_requests() {
    // the shell answers nothing for a while: the owner queue fills and the mux stops
    for seed in 20..=21 {
        let mut cfg = Cfg::new(seed);
        cfg.per_master = 60;
        cfg.a_gap = 10;
        cfg.b_gap = 10;
        cfg.shell_ready = 90;
        cfg.max_len = 40;
        cfg.hold_until = 400;
        let st = run(cfg);
        assert_eq!(st.max_in_flight, DEPTH, "seed {seed}: {st:?}");
        assert!(st.blocked_full > 100, "seed {seed}: {st:?}");
    }
}

#[test]
fn dma_rd_mux_a_wins_same_cycle() {
    let mut b = Bench::new(DmaReadMux::default(), |u| &mut u.clock);
    let set = |u: &mut DmaReadMux, a: bool, bv: bool| {
        u.a.req_valid.next = a;
        u.a.req_addr.next = 0x1000u64.into();
        u.a.req_len.next = 8u64.into();
        u.a.req_tag.next = 1u64.into();
        u.b.req_valid.next = bv;
        u.b.req_addr.next = 0x2000u64.into();
        u.b.req_len.next = 8u64.into();
        u.b.req_tag.next = 200u64.into();
        u.out.req_ready.next = true;
        u.a.rsp.ready.next = true;
        u.b.rsp.ready.next = true;
        u.out.rsp.valid.next = false;
    };
    // both request: a goes first, b waits
    set(b.uut(), true, true);
    b.settle();
    {
        let u = b.uut();
        assert!(u.out.req_valid.val() && u.a.req_ready.val() && !u.b.req_ready.val());
        assert_eq!(u.out.req_addr.val().to_u64(), 0x1000);
        assert_eq!(u.out.req_tag.val().to_u64(), 1);
    }
    b.tick();
    // a is done, b still holds its request: b goes now
    set(b.uut(), false, true);
    b.settle();
    {
        let u = b.uut();
        assert!(u.out.req_valid.val() && u.b.req_ready.val());
        assert_eq!(u.out.req_addr.val().to_u64(), 0x2000);
        assert_eq!(u.out.req_tag.val().to_u64(), 200);
    }
    b.tick();
    set(b.uut(), false, false);
    // the responses come back in order: the first to a, the second to b
    for (owner_b, tag) in [(false, 1u64), (true, 200u64)] {
        let u = b.uut();
        u.out.rsp.drive(Some(&Beat {
            bytes: vec![tag as u8; 8],
            last: true,
        }));
        u.out.rsp_tag.next = tag.into();
        b.settle();
        let u = b.uut();
        assert_eq!(u.a.rsp.valid.val(), !owner_b);
        assert_eq!(u.b.rsp.valid.val(), owner_b);
        assert!(u.out.rsp.ready.val());
        let tag_seen = if owner_b {
            u.b.rsp_tag.val()
        } else {
            u.a.rsp_tag.val()
        };
        assert_eq!(tag_seen.to_u64(), tag);
        b.tick();
    }
    // nothing in flight: a stray beat goes nowhere and is not accepted
    b.uut().out.rsp.drive(Some(&Beat {
        bytes: vec![0; 8],
        last: true,
    }));
    b.settle();
    let u = b.uut();
    assert!(!u.a.rsp.valid.val() && !u.b.rsp.valid.val() && !u.out.rsp.ready.val());
}

#[test]
fn dma_rd_mux_waiting_b_keeps_out() {
    let mut b = Bench::new(DmaReadMux::default(), |u| &mut u.clock);
    let set = |u: &mut DmaReadMux, a: bool, bv: bool, b_tag: u64, ready: bool| {
        u.a.req_valid.next = a;
        u.a.req_addr.next = 0x1000u64.into();
        u.a.req_len.next = 8u64.into();
        u.a.req_tag.next = 1u64.into();
        u.b.req_valid.next = bv;
        u.b.req_addr.next = (0x2000u64 + b_tag).into();
        u.b.req_len.next = 8u64.into();
        u.b.req_tag.next = b_tag.into();
        u.out.req_ready.next = ready;
        u.a.rsp.ready.next = true;
        u.b.rsp.ready.next = true;
        u.out.rsp.valid.next = false;
    };
    // (a requests, b requests, shell ready, request expected on out, accepted)
    let steps: [(bool, bool, bool, u64, bool); 6] = [
        // b alone, the shell is busy: b waits on out
        (false, true, false, 200, false),
        // a starts requesting: b stays on out, a waits
        (true, true, false, 200, false),
        (true, true, false, 200, false),
        // the shell takes b, not a
        (true, true, true, 200, true),
        // b's next request and a together, nothing held: a wins
        (true, true, true, 1, true),
        (false, true, true, 201, true),
    ];
    let mut b_tag = 200;
    for (n, &(av, bv, ready, tag, fire)) in steps.iter().enumerate() {
        set(b.uut(), av, bv, b_tag, ready);
        b.settle();
        let u = b.uut();
        assert!(u.out.req_valid.val(), "step {n}");
        assert_eq!(u.out.req_tag.val().to_u64(), tag, "step {n}");
        let want_addr = if tag == 1 { 0x1000 } else { 0x2000 + tag };
        assert_eq!(u.out.req_addr.val().to_u64(), want_addr, "step {n}");
        let a_fire = u.a.req_valid.val() && u.a.req_ready.val();
        let b_fire = u.b.req_valid.val() && u.b.req_ready.val();
        assert_eq!(a_fire, fire && tag == 1, "step {n}: a accepted");
        assert_eq!(b_fire, fire && tag != 1, "step {n}: b accepted");
        b.tick();
        if b_fire {
            b_tag += 1;
        }
    }
    set(b.uut(), false, false, b_tag, true);
    // the responses come back in request order: b, a, b
    for (owner_b, tag) in [(true, 200u64), (false, 1), (true, 201)] {
        let u = b.uut();
        u.out.rsp.drive(Some(&Beat {
            bytes: vec![tag as u8; 8],
            last: true,
        }));
        u.out.rsp_tag.next = tag.into();
        b.settle();
        let u = b.uut();
        assert_eq!(u.a.rsp.valid.val(), !owner_b, "response {tag}");
        assert_eq!(u.b.rsp.valid.val(), owner_b, "response {tag}");
        assert!(u.out.rsp.ready.val());
        b.tick();
    }
}

#[test]
fn dma_rd_mux_synthesizes() {
    crate::csr::synth_check(&mut DmaReadMux::default(), "dma_rd_mux");
}
