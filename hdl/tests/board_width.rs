//! The stream width converters between the MAC (8 bits) and the NIC (64 bits):
//! `StreamWidthUp8To64` and `StreamWidthDown64To8` (`ferroce_hdl::board`).
//!
//! Random frames of 1 to 1600 bytes (every length modulo 8, so every partial last beat), with
//! random `valid` gaps on the input and random `ready` on the output. Checked: the frames come
//! out byte for byte and in order; every beat's `keep` is contiguous from the top, full on
//! every beat but a frame's last, and the bytes outside `keep` are zero (the stream
//! convention); the input is never stalled by the up-converter when its sink is always ready;
//! the down-converter sends a frame without gaps when its input has none (what `MacTx`
//! needs). On the rust-hdl blocks, then on the emitted Verilog (Verilator) in lock step; Yosys
//! `synth_ecp5` of both.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::{StreamWidthDown64To8, StreamWidthUp8To64};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::stream::Beat;
use ferroce_hdl::testbench::{Bench, Collector, Feeder, Rng, Stepper};
use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};

fn random_frames(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = if rng.percent(30) {
                rng.range(1, 20)
            } else {
                rng.range(21, 1600)
            };
            rng.bytes(len)
        })
        .collect();
    // the extremes, every time
    v.push(rng.bytes(1));
    v.push(rng.bytes(1600));
    v
}

/// Each beat's keep rules (`peek` already rejects a mask that is not contiguous from the top).
fn check_beats(beats: &[Beat], k: usize) {
    for b in beats {
        assert!(b.last || b.bytes.len() == k, "short beat before last");
    }
}

struct Outcome {
    cycles: u64,
    bytes: usize,
    in_stalls: u64,
    out_gaps: u64,
}

/// Drives `frames` through the up-converter; returns the cycles taken and the input stalls
/// (cycles with input valid but not ready).
fn run_up<S: Stepper<StreamWidthUp8To64>>(
    b: &mut S,
    rng: &mut Rng,
    frames: &[Vec<u8>],
    gap: u32,
    stall: u32,
) -> Outcome {
    let mut feeder = Feeder::new(gap);
    for f in frames {
        feeder.push_frame(f, 1);
    }
    let mut coll = Collector::new(stall);
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    let (mut in_stalls, start) = (0u64, b.cycles());
    let mut guard = 0u64;
    while coll.beats.iter().filter(|x| x.last).count() < frames.len() {
        feeder.drive(&mut b.uut().inp, rng);
        coll.drive_ready(&mut b.uut().out, rng);
        b.settle();
        let u = b.uut();
        let fired = u.inp.fires();
        in_stalls += (u.inp.valid.val() && !u.inp.ready.val()) as u64;
        if u.out.valid.val() {
            // bytes outside keep are zero
            let n = u.out.keep.val().to_u64().count_ones();
            if n < 8 {
                assert_eq!(
                    u.out.data.val().to_u64() << (8 * n),
                    0,
                    "bytes outside keep"
                );
            }
        }
        coll.sample(&u.out);
        b.tick();
        feeder.after_edge(fired);
        guard += 1;
        assert!(guard < 10_000_000, "stuck");
    }
    check_beats(&coll.beats, 8);
    assert!(coll.frames() == frames, "frames differ");
    Outcome {
        cycles: b.cycles() - start,
        bytes,
        in_stalls,
        out_gaps: 0,
    }
}

/// Drives `frames` through the down-converter; also counts the cycles inside a frame (after
/// its first byte left, before its last) in which no byte was presented.
fn run_down<S: Stepper<StreamWidthDown64To8>>(
    b: &mut S,
    rng: &mut Rng,
    frames: &[Vec<u8>],
    gap: u32,
    stall: u32,
) -> Outcome {
    let mut feeder = Feeder::new(gap);
    for f in frames {
        feeder.push_frame(f, 8);
    }
    let mut coll = Collector::new(stall);
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    let (mut out_gaps, mut inside, start) = (0u64, false, b.cycles());
    let mut guard = 0u64;
    while coll.beats.iter().filter(|x| x.last).count() < frames.len() {
        feeder.drive(&mut b.uut().inp, rng);
        coll.drive_ready(&mut b.uut().out, rng);
        b.settle();
        let u = b.uut();
        let fired = u.inp.fires();
        if inside && !u.out.valid.val() {
            out_gaps += 1;
        }
        if coll.sample(&u.out) {
            inside = !u.out.last.val();
        }
        b.tick();
        feeder.after_edge(fired);
        guard += 1;
        assert!(guard < 10_000_000, "stuck");
    }
    check_beats(&coll.beats, 1);
    assert!(coll.frames() == frames, "frames differ");
    Outcome {
        cycles: b.cycles() - start,
        bytes,
        in_stalls: 0,
        out_gaps,
    }
}

#[test]
fn up_bench_random_frames() {
    let t0 = std::time::Instant::now();
    let mut rng = Rng::new(7);
    for (gap, stall) in [(0, 0), (30, 0), (0, 60), (50, 50), (10, 90)] {
        let mut b = Bench::new(StreamWidthUp8To64::default(), |u| &mut u.clock);
        let frames = random_frames(&mut rng, 60);
        let o = run_up(&mut b, &mut rng, &frames, gap, stall);
        eprintln!(
            "up, gap {gap}% stall {stall}%: {} frames, {} bytes in {} cycles, {} input stalls",
            frames.len(),
            o.bytes,
            o.cycles,
            o.in_stalls
        );
        if stall == 0 {
            // a sink that is always ready never slows the MAC side
            assert_eq!(o.in_stalls, 0, "input stalled with an always-ready sink");
        }
        if gap == 0 && stall == 0 {
            assert!(o.cycles <= o.bytes as u64 + 2, "not one byte per cycle");
        }
    }
    eprintln!("up bench: {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn down_bench_random_frames() {
    let t0 = std::time::Instant::now();
    let mut rng = Rng::new(8);
    for (gap, stall) in [(0, 0), (30, 0), (0, 60), (50, 50), (90, 10)] {
        let mut b = Bench::new(StreamWidthDown64To8::default(), |u| &mut u.clock);
        let frames = random_frames(&mut rng, 60);
        let o = run_down(&mut b, &mut rng, &frames, gap, stall);
        eprintln!(
            "down, gap {gap}% stall {stall}%: {} frames, {} bytes in {} cycles, {} gaps inside frames",
            frames.len(),
            o.bytes,
            o.cycles,
            o.out_gaps
        );
        if gap == 0 {
            // with no input gaps a frame leaves without gaps (MacTx's requirement)
            assert_eq!(o.out_gaps, 0, "a gap inside a frame");
        }
        if gap == 0 && stall == 0 {
            assert!(o.cycles <= o.bytes as u64 + 2, "not one byte per cycle");
        }
    }
    eprintln!("down bench: {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn cosim_width_converters() {
    if !ferroce_testkit::require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut rng = Rng::new(9);
    let mut cs = CoSim::new(StreamWidthUp8To64::default(), |u| &mut u.clock);
    for (gap, stall) in [(0, 0), (40, 40)] {
        let frames = random_frames(&mut rng, 40);
        run_up(&mut cs, &mut rng, &frames, gap, stall);
    }
    let up = (cs.cycles(), cs.compares);
    let mut cs = CoSim::new(StreamWidthDown64To8::default(), |u| &mut u.clock);
    for (gap, stall) in [(0, 0), (40, 40)] {
        let frames = random_frames(&mut rng, 40);
        run_down(&mut cs, &mut rng, &frames, gap, stall);
    }
    eprintln!(
        "co-simulated: up {} cycles ({} comparisons), down {} cycles ({} comparisons), 0 mismatches, {:.1} s",
        up.0,
        up.1,
        cs.cycles(),
        cs.compares,
        t0.elapsed().as_secs_f64()
    );
}

#[test]
fn yosys_synth_width_converters() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("width_synth");
    let m = "ferroce_width_up_8_64";
    let v = ferroce_hdl::verilog::block_verilog(&mut StreamWidthUp8To64::default(), m);
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the output register (64 data, 8 keep, valid, last) and the accumulator's 7 bytes (the
    // eighth byte goes straight to the output)
    assert!(st.count("TRELLIS_FF") >= 130, "{}", st.line(ECP5_CELLS));
    let m = "ferroce_width_down_64_8";
    let v = ferroce_hdl::verilog::block_verilog(&mut StreamWidthDown64To8::default(), m);
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the held beat (64) and its count and flags
    assert!(st.count("TRELLIS_FF") >= 64, "{}", st.line(ECP5_CELLS));
}
