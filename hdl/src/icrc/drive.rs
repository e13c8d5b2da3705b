//! Stimulus drivers for the ICRC blocks, generic over the stepping engine (pure rust-hdl
//! [`crate::testbench::Bench`] or the lock-step co-simulation), shared by the unit tests, the
//! co-simulation tests and benchmarks.
use super::{IcrcChecker, IcrcGenerator};
use crate::testbench::{Collector, Feeder, Rng, Stepper};

/// One checker verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub ok: bool,
    pub not_roce: bool,
    pub truncated: bool,
}

/// Feed `frames` through a checker with random input gaps / output stalls (percent); returns
/// the verdicts in order, the frames seen on `out` and the number of cycles used.
pub fn run_checker<const B: usize, const K: usize, S: Stepper<IcrcChecker<B, K>>>(
    s: &mut S,
    frames: &[Vec<u8>],
    gap: u32,
    stall: u32,
    rng: &mut Rng,
) -> (Vec<Verdict>, Vec<Vec<u8>>, u64) {
    let mut feeder = Feeder::new(gap);
    for f in frames {
        feeder.push_frame(f, K);
    }
    let mut col = Collector::new(stall);
    let mut verdicts = vec![];
    let start = s.cycles();
    let mut idle = 0;
    while verdicts.len() < frames.len() {
        let u = s.uut();
        feeder.drive(&mut u.inp, rng);
        col.drive_ready(&mut u.out, rng);
        s.settle();
        let u = s.uut();
        let fired = u.inp.fires();
        col.sample(&u.out);
        if u.verdict.val() {
            verdicts.push(Verdict {
                ok: u.icrc_ok.val(),
                not_roce: u.not_roce.val(),
                truncated: u.truncated.val(),
            });
        }
        s.tick();
        feeder.after_edge(fired);
        idle = if fired { 0 } else { idle + 1 };
        assert!(idle < 1000, "checker: no progress");
    }
    (verdicts, col.frames(), s.cycles() - start)
}

/// Feed `frames` through a generator; returns the output frames and the number of cycles.
pub fn run_generator<const B: usize, const K: usize, S: Stepper<IcrcGenerator<B, K>>>(
    s: &mut S,
    frames: &[Vec<u8>],
    gap: u32,
    stall: u32,
    rng: &mut Rng,
) -> (Vec<Vec<u8>>, u64) {
    let mut feeder = Feeder::new(gap);
    for f in frames {
        feeder.push_frame(f, K);
    }
    let mut col = Collector::new(stall);
    let start = s.cycles();
    let mut idle = 0;
    while col.beats.iter().filter(|b| b.last).count() < frames.len() {
        let u = s.uut();
        feeder.drive(&mut u.inp, rng);
        col.drive_ready(&mut u.out, rng);
        s.settle();
        let u = s.uut();
        let fired = u.inp.fires();
        let got = col.sample(&u.out);
        s.tick();
        feeder.after_edge(fired);
        idle = if fired || got { 0 } else { idle + 1 };
        assert!(idle < 1000, "generator: no progress");
    }
    (col.frames(), s.cycles() - start)
}
