//! The RX admission FIFO's bench and co-simulation: a MAC that never waits (random frames of
//! 1..=600 beats, random last-beat keep, random gaps, back-to-back bursts, rare bubbles inside
//! a frame), a consumer with random `out.ready` (30-90 % on, long stalls so the FIFO fills and
//! frames are dropped or cut), a `reserve` that changes between frames; every cycle checked
//! against the reference model [`RxAdmissionModel`] (written from the admission rule: a frame
//! is admitted at its first beat if `2^F - held >= reserve`, else dropped whole; an admitted
//! frame meeting a full FIFO is cut with `last` on the beat written when one word is left):
//! `inp.ready`, the offered beat (data, keep, last, and that it is offered as soon as the
//! cut-through latency allows), `fill`, `ev_drop`, `ev_cut`; at the end every admitted frame
//! came out whole (a cut one as a prefix), in order. A hand case with the sizes written out,
//! Verilator lock-step co-simulation, and Yosys `synth_ecp5` at the NIC's size (block RAM).
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::rx::admission::{AdmStep, RxAdmission, RxAdmissionModel};
use ferroce_hdl::stream::{beats_to_frames, frame_to_beats, Beat};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

const K: usize = 8;
type Adm<const F: usize> = RxAdmission<64, K, F>;

/// The MAC: frames at line rate, it never looks at `ready`.
struct Mac {
    rng: Rng,
    frames_left: usize,
    max_beats: usize,
    cur: VecDeque<Beat>,
    gap: usize,
    burst: usize,
    /// every frame sent, in order
    sent: Vec<Vec<u8>>,
}

impl Mac {
    fn new(seed: u64, frames: usize, max_beats: usize) -> Self {
        Mac {
            rng: Rng::new(seed),
            frames_left: frames,
            max_beats,
            cur: VecDeque::new(),
            gap: 0,
            burst: 0,
            sent: vec![],
        }
    }
    fn beats(&mut self) -> usize {
        let r = self.rng.below(100);
        let hi = if r < 45 {
            8
        } else if r < 80 {
            128
        } else {
            self.max_beats
        };
        self.rng.range(1, hi.min(self.max_beats))
    }
    /// This cycle's beat, if any.
    fn next(&mut self) -> Option<Beat> {
        if self.cur.is_empty() {
            if self.gap > 0 {
                self.gap -= 1;
                return None;
            }
            if self.frames_left == 0 {
                return None;
            }
            self.frames_left -= 1;
            let n = self.beats();
            let bytes = (n - 1) * K + self.rng.range(1, K);
            let f = self.rng.bytes(bytes);
            self.cur = frame_to_beats(&f, K).into();
            self.sent.push(f);
            if self.burst > 0 {
                self.burst -= 1;
            } else if self.rng.percent(5) {
                self.burst = self.rng.range(5, 30);
            } else {
                self.gap = self.rng.range(0, 40);
            }
        } else if self.rng.percent(2) {
            // a bubble inside the frame (the MAC's width conversion)
            return None;
        }
        self.cur.pop_front()
    }
    fn done(&self) -> bool {
        self.frames_left == 0 && self.cur.is_empty()
    }
}

/// The consumer's `ready`: a duty cycle that drifts in 30..=90 %, and long stalls.
struct Consumer {
    on: u32,
    stall: usize,
}

impl Consumer {
    fn ready(&mut self, rng: &mut Rng) -> bool {
        if self.stall > 0 {
            self.stall -= 1;
            return false;
        }
        if rng.below(500) == 0 {
            self.on = rng.range(30, 90) as u32;
        }
        if rng.below(2500) == 0 {
            self.stall = rng.range(200, 3000);
            return false;
        }
        rng.percent(self.on)
    }
}

#[derive(Debug, Default)]
struct Stats {
    cycles: u64,
    frames: usize,
    admitted: usize,
    dropped: usize,
    cut: usize,
    beats_out: usize,
}

/// One checked cycle: drive, settle, compare with the model, edge. `prev` holds the model's
/// decisions of the previous cycle (the event outputs are registered). Returns the beat taken.
fn step<const F: usize, S: Stepper<Adm<F>>>(
    b: &mut S,
    model: &mut RxAdmissionModel,
    prev: &mut AdmStep,
    inp: Option<&Beat>,
    reserve: u16,
    ready: bool,
) -> Option<Beat> {
    let u = b.uut();
    u.inp.drive(inp);
    u.reserve.next = (reserve as u64).into();
    u.out.ready.next = ready;
    b.settle();
    let c = b.cycles();
    let u = b.uut();
    assert!(u.inp.ready.val(), "inp.ready low, cycle {c}");
    assert_eq!(u.out.peek().as_ref(), model.offered(), "out, cycle {c}");
    assert_eq!(
        u.fill.val().to_u64() as usize,
        model.fill(),
        "fill, cycle {c}"
    );
    assert_eq!(u.ev_drop.val(), prev.drop, "ev_drop, cycle {c}");
    assert_eq!(u.ev_cut.val(), prev.cut, "ev_cut, cycle {c}");
    let taken = u.out.fires().then(|| u.out.peek().unwrap());
    *prev = model.cycle(inp, reserve, taken.is_some());
    b.tick();
    taken
}

fn run_random<const F: usize, S: Stepper<Adm<F>>>(
    b: &mut S,
    seed: u64,
    frames: usize,
    max_beats: usize,
) -> Stats {
    let size = 1usize << F;
    let mut rng = Rng::new(seed ^ 0xad);
    let mut mac = Mac::new(seed, frames, max_beats);
    let mut cons = Consumer { on: 60, stall: 0 };
    let mut model = RxAdmissionModel::new(size);
    let mut prev = AdmStep::default();
    let mut reserve: u16 = (size / 2) as u16;
    let mut st = Stats::default();
    // per admitted frame: (index into mac.sent, cut)
    let mut expect: Vec<(usize, bool)> = vec![];
    let mut out: Vec<Beat> = vec![];
    let mut idle = 0;
    while idle < 10 {
        if rng.below(1500) == 0 {
            let r = rng.below(100);
            reserve = if r < 5 {
                0
            } else if r < 40 {
                rng.range(1, size / 4)
            } else if r < 95 {
                rng.range(size / 4, size)
            } else {
                rng.range(size + 1, size + 50)
            } as u16;
        }
        let beat = mac.next();
        let ready = if mac.done() {
            true
        } else {
            cons.ready(&mut rng)
        };
        let taken = step(b, &mut model, &mut prev, beat.as_ref(), reserve, ready);
        if prev.admitted {
            expect.push((mac.sent.len() - 1, false));
        }
        if prev.cut {
            expect.last_mut().unwrap().1 = true;
        }
        st.admitted += prev.admitted as usize;
        st.dropped += prev.drop as usize;
        st.cut += prev.cut as usize;
        out.extend(taken);
        idle = if mac.done() && model.fill() == 0 {
            idle + 1
        } else {
            0
        };
    }
    // drained: nothing offered, nothing held
    assert!(!b.uut().out.valid.val() && b.uut().fill.val().to_u64() == 0);
    // every admitted frame came out, in order, whole or (cut) as a prefix of itself
    let got = beats_to_frames(&out);
    assert_eq!(got.len(), expect.len(), "frames out vs admitted");
    for (k, (g, &(i, cut))) in got.iter().zip(&expect).enumerate() {
        let f = &mac.sent[i];
        if cut {
            assert!(
                g.len() < f.len() && g.len() % K == 0 && f.starts_with(g),
                "cut frame {k} (sent #{i}): {} of {} bytes",
                g.len(),
                f.len()
            );
        } else {
            assert_eq!(g, f, "frame {k} (sent #{i})");
        }
    }
    assert_eq!(st.admitted + st.dropped, mac.sent.len());
    st.frames = mac.sent.len();
    st.beats_out = out.len();
    st.cycles = b.cycles();
    st
}

fn report(what: &str, st: &Stats, secs: f64) {
    eprintln!(
        "{what}: {} frames, {} admitted ({} cut), {} dropped, {} beats out, {} cycles, {:.1} s ({:.0} k cycles/s)",
        st.frames,
        st.admitted,
        st.cut,
        st.dropped,
        st.beats_out,
        st.cycles,
        secs,
        st.cycles as f64 / secs / 1e3
    );
}

#[test]
fn block_bench_random_against_model() {
    let mut total = 0;
    for (seed, f_bits, frames) in [(1u64, 8, 1500), (2, 8, 1500), (3, 10, 1500), (4, 10, 1500)] {
        let t0 = std::time::Instant::now();
        let st = if f_bits == 8 {
            let mut b = Bench::new(Adm::<8>::default(), |u| &mut u.clock);
            run_random::<8, _>(&mut b, seed, frames, 600)
        } else {
            let mut b = Bench::new(Adm::<10>::default(), |u| &mut u.clock);
            run_random::<10, _>(&mut b, seed, frames, 600)
        };
        report(
            &format!("seed {seed}, F={f_bits}"),
            &st,
            t0.elapsed().as_secs_f64(),
        );
        // the rules were exercised
        assert!(st.dropped > 20 && st.cut > 5 && st.admitted > 100, "{st:?}");
        total += st.frames;
    }
    assert!(total >= 6000);
}

/// Sends `beats` one per cycle (then `idle` empty cycles), checking against the model too;
/// returns the beats taken and the event pulses seen.
fn hand_run<S: Stepper<Adm<8>>>(
    b: &mut S,
    m: &mut (RxAdmissionModel, AdmStep),
    beats: &[Beat],
    idle: usize,
    reserve: u16,
    ready: bool,
) -> (Vec<Beat>, usize, usize) {
    let (mut out, mut drops, mut cuts) = (vec![], 0, 0);
    for i in 0..beats.len() + idle {
        let u = b.uut();
        u.inp.drive(beats.get(i));
        u.reserve.next = (reserve as u64).into();
        u.out.ready.next = ready;
        b.settle();
        drops += b.uut().ev_drop.val() as usize;
        cuts += b.uut().ev_cut.val() as usize;
        out.extend(step(b, &mut m.0, &mut m.1, beats.get(i), reserve, ready));
    }
    (out, drops, cuts)
}

fn frame(n_beats: usize, tag: u8) -> Vec<Beat> {
    let f: Vec<u8> = (0..n_beats * K - 3)
        .map(|i| tag ^ (i as u8) ^ ((i >> 8) as u8))
        .collect();
    frame_to_beats(&f, K)
}

/// A FIFO of 256 words, figures by hand. Reserve 56, output stalled: A (100 beats, free 256),
/// B (100, free 156), C (50, free 56 = reserve: admitted), D (1 beat, free 6 < 56: dropped).
/// Drain at one beat per cycle; then E (100) is admitted. Reserve 10: G (300 beats, free 156)
/// is admitted and cut at its 156th beat (held 255: one word left); H (1 beat, free 0) is
/// dropped, and with reserve 0, I (1 beat, free 0) too.
#[test]
fn hand_case_exact_sizes() {
    let mut b = Bench::new(Adm::<8>::default(), |u| &mut u.clock);
    let mut m = (RxAdmissionModel::new(256), AdmStep::default());
    let (a, bb, c, d) = (frame(100, 1), frame(100, 2), frame(50, 3), frame(1, 4));
    let all: Vec<Beat> = [&a, &bb, &c, &d].into_iter().flatten().cloned().collect();
    let (out, drops, cuts) = hand_run(&mut b, &mut m, &all, 3, 56, false);
    assert!(out.is_empty());
    assert_eq!((drops, cuts), (1, 0));
    assert_eq!(b.uut.fill.val().to_u64(), 250);
    // drain: 250 beats, one per cycle once the first is offered
    let (out, drops, _) = hand_run(&mut b, &mut m, &[], 252, 56, true);
    assert_eq!(drops, 0);
    assert_eq!(out.len(), 250);
    assert_eq!(beats_to_frames(&out).len(), 3);
    assert_eq!(b.uut.fill.val().to_u64(), 0);
    assert_eq!(out[..100], a[..]);
    assert_eq!(out[100..200], bb[..]);
    assert_eq!(out[200..], c[..]);
    // after draining the next frame fits again
    let e = frame(100, 5);
    let (out, drops, _) = hand_run(&mut b, &mut m, &e, 2, 56, false);
    assert!(out.is_empty() && drops == 0);
    assert_eq!(b.uut.fill.val().to_u64(), 100);
    // cut: G written with free 156 .. 1, the 156th beat gets last; the rest is discarded
    let g = frame(300, 6);
    let (_, drops, cuts) = hand_run(&mut b, &mut m, &g, 2, 10, false);
    assert_eq!((drops, cuts), (0, 1));
    assert_eq!(b.uut.fill.val().to_u64(), 256);
    let (_, drops, _) = hand_run(&mut b, &mut m, &frame(1, 7), 2, 10, false);
    assert_eq!(drops, 1);
    let (_, drops, _) = hand_run(&mut b, &mut m, &frame(1, 8), 2, 0, false);
    assert_eq!(drops, 1);
    let (out, _, _) = hand_run(&mut b, &mut m, &[], 260, 0, true);
    assert_eq!(out.len(), 256);
    assert_eq!(out[..100], e[..]);
    let gc = &out[100..];
    assert_eq!(gc[..155], g[..155]);
    assert_eq!(gc[155].bytes, g[155].bytes);
    assert!(gc[155].last && !g[155].last);
    assert_eq!(b.uut.fill.val().to_u64(), 0);
}

/// Latency and rate: a beat is offered two cycles after it arrives; back to back frames with
/// `ready` high come out at one beat per cycle, held to 2 words.
#[test]
fn cut_through_full_rate() {
    let mut b = Bench::new(Adm::<8>::default(), |u| &mut u.clock);
    let (mut model, mut prev) = (RxAdmissionModel::new(256), AdmStep::default());
    let f: Vec<Beat> = (0..20).flat_map(|i| frame(1 + i % 7, i as u8)).collect();
    let (mut out, mut taken_at) = (vec![], vec![]);
    for i in 0..f.len() + 4 {
        if let Some(o) = step(&mut b, &mut model, &mut prev, f.get(i), 8, true) {
            out.push(o);
            taken_at.push(i);
        }
        assert!(b.uut.fill.val().to_u64() <= 2);
    }
    assert_eq!(taken_at, (2..f.len() + 2).collect::<Vec<_>>());
    assert_eq!(out, f);
}

#[test]
fn cosim_rx_admission_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(Adm::<8>::default(), |u| &mut u.clock);
    let st = run_random::<8, _>(&mut cs, 21, 300, 300);
    report("co-simulation F=8", &st, t0.elapsed().as_secs_f64());
    assert!(st.dropped > 0 && st.cut > 0, "{st:?}");
    eprintln!(
        "{} cycles co-simulated, {} comparisons, 0 mismatches",
        cs.cycles(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` at the NIC's size (B = 64, F = 12): the FIFO must be block RAM.
#[test]
fn yosys_synth_ecp5_rx_admission() {
    let m = "ferroce_rx_admission";
    let v = ferroce_hdl::verilog::block_verilog(&mut Adm::<12>::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rx_admission_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // 4096 x (64 + 8 + 1) bits: DP16KD as 4096 x 4, at least 16 for the data alone
    assert!(st.count("DP16KD") >= 16, "{}", st.line(ECP5_CELLS));
    assert!(st.count("TRELLIS_DPR16X4") == 0, "{}", st.line(ECP5_CELLS));
}
