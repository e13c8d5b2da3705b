//! The PFC pause block's bench and co-simulation: random PFC frames (random class-enable
//! vectors, random quanta with many XONs and short pauses so timers expire), a random MAC pause
//! input, rare `enable` drops and several link speeds; `paused` (and the per-priority XOFF/XON
//! events) checked every cycle against the reference model [`PfcPauseModel`] (written from IEEE 802.1Qbb: a quantum is 512 bit times),
//! on the rust-hdl block and on the emitted Verilog (Verilator) in lock step with it. Also
//! Yosys `synth_ecp5` of the block (resources for docs/RESOURCES.md).
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cc::pfc_pause::{frame_xoff_xon, PfcPause, PfcPauseModel};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use rust_hdl::prelude::*;

fn times_bits(t: &[u16; 8]) -> Bits<128> {
    let mut b = Bits::<128>::default();
    for (n, q) in t.iter().enumerate() {
        b.set_bits::<16>(112 - 16 * n, (*q as u64).into());
    }
    b
}

/// `n` cycles of random PFC traffic at `bits_per_cycle`; returns (pause starts, expiries seen,
/// XON resumes seen) so the caller can check every case was exercised.
fn run_random<S: Stepper<PfcPause>>(
    b: &mut S,
    seed: u64,
    n: usize,
    bits_per_cycle: u16,
) -> (u64, u64, u64) {
    let mut rng = Rng::new(seed);
    let mut model = PfcPauseModel::default();
    let (mut starts, mut expiries, mut xons) = (0u64, 0u64, 0u64);
    let mut last = 0u8;
    let mut last_frame: Option<(u8, [u16; 8])> = None;
    let mut mac = 0u8;
    b.uut().bits_per_cycle.next = (bits_per_cycle as u64).into();
    for _ in 0..n {
        let enable = !rng.percent(1);
        if rng.percent(2) {
            mac = (rng.range(0, 255) as u8) & (rng.range(0, 255) as u8);
        }
        let frame = if rng.percent(3) {
            let en = rng.range(0, 255) as u8;
            let mut t = [0u16; 8];
            for q in t.iter_mut() {
                *q = match rng.range(0, 9) {
                    0..=2 => 0,
                    3..=6 => rng.range(1, 8) as u16,
                    7 | 8 => rng.range(8, 200) as u16,
                    _ => 0xFFFF,
                };
            }
            Some((en, t))
        } else {
            None
        };
        {
            let u = b.uut();
            u.enable.next = enable;
            u.pause_in.next = (mac as u64).into();
            u.pfc_valid.next = frame.is_some();
            let (en, t) = frame.unwrap_or((0, [0; 8]));
            u.pfc_enable.next = (en as u64).into();
            u.pfc_times.next = times_bits(&t);
        }
        b.settle();
        let want = model.cycle(enable, bits_per_cycle as u64, mac, frame);
        let got = b.uut().paused.val().to_u64() as u8;
        assert_eq!(got, want, "paused, cycle {}", b.cycles());
        assert_eq!(b.uut().ev_frame.val(), last_frame.is_some());
        let (xoff, xon) = last_frame.map_or((0, 0), |(en, t)| frame_xoff_xon(en, &t));
        assert_eq!(
            b.uut().ev_xoff.val().to_u64() as u8,
            xoff,
            "ev_xoff, cycle {}",
            b.cycles()
        );
        assert_eq!(
            b.uut().ev_xon.val().to_u64() as u8,
            xon,
            "ev_xon, cycle {}",
            b.cycles()
        );
        // classify the transitions of the timers alone (no MAC pause, enabled)
        for p in 0..8 {
            let (was, is) = (last >> p & 1 == 1, want >> p & 1 == 1);
            if mac >> p & 1 == 0 && enable {
                if !was && is {
                    starts += 1;
                }
                if was && !is {
                    match last_frame {
                        Some((en, t)) if en >> p & 1 == 1 && t[p] == 0 => xons += 1,
                        _ => expiries += 1,
                    }
                }
            }
        }
        last = want;
        last_frame = frame;
        b.tick();
    }
    (starts, expiries, xons)
}

#[test]
fn block_bench_random_frames_against_model() {
    for (seed, bpc) in [(1u64, 80u16), (2, 100), (3, 400), (4, 7), (5, 512)] {
        let mut b = Bench::new(PfcPause::default(), |u| &mut u.clock);
        let (s, e, x) = run_random(&mut b, seed, 20_000, bpc);
        eprintln!("bits/cycle {bpc}: {s} pauses, {e} expiries, {x} XON resumes");
        assert!(s > 50 && e > 20 && x > 20, "{s} {e} {x}");
    }
}

/// Exact durations: q quanta hold the priority ceil(q * 512 / bits_per_cycle) cycles from the
/// cycle after the frame, figures written out by hand (docs/CONGESTION.md).
#[test]
fn pause_durations_exact() {
    for (q, bpc, cycles) in [
        (1u16, 80u16, 7u64),
        (10, 80, 64),
        (3, 100, 16),
        (65535, 100, 335_540),
        (1, 512, 1),
        (2, 400, 3),
    ] {
        let mut b = Bench::new(PfcPause::default(), |u| &mut u.clock);
        b.uut().enable.next = true;
        b.uut().bits_per_cycle.next = (bpc as u64).into();
        b.uut().pfc_valid.next = true;
        b.uut().pfc_enable.next = 0x40.into();
        let mut t = [0u16; 8];
        t[6] = q;
        b.uut().pfc_times.next = times_bits(&t);
        b.settle();
        assert_eq!(b.uut().paused.val().to_u64(), 0);
        b.tick();
        b.uut().pfc_valid.next = false;
        let mut held = 0u64;
        loop {
            b.settle();
            if b.uut().paused.val().to_u64() == 0 {
                break;
            }
            assert_eq!(b.uut().paused.val().to_u64(), 0x40);
            held += 1;
            b.tick();
        }
        assert_eq!(held, cycles, "{q} quanta at {bpc} bits/cycle");
    }
}

#[test]
fn cosim_pfc_pause_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(PfcPause::default(), |u| &mut u.clock);
    let (s, e, x) = run_random(&mut cs, 11, 6_000, 80);
    assert!(s > 10 && e > 5 && x > 5, "{s} {e} {x}");
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_pfc_pause() {
    let m = "ferroce_pfc_pause";
    let v = ferroce_hdl::verilog::block_verilog(&mut PfcPause::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pfc_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // eight 25-bit timers and the frame pulse
    assert!(st.count("TRELLIS_FF") >= 8 * 25, "{}", st.line(ECP5_CELLS));
}
