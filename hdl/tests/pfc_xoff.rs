//! The PFC XOFF/XON generator's bench and co-simulation: a random-walk buffer fill level
//! crossing both thresholds, random `send_ready` back-pressure, rare `enable` drops, several
//! link speeds and pause lengths; every output checked every cycle against the reference model
//! [`PfcXoffModel`] (written from IEEE 802.1Qbb: XOFF above one threshold, XON of 0 quanta below
//! the other, the XOFF refreshed at half its pause of quanta x 512 bit times), on the rust-hdl
//! block and on the emitted Verilog (Verilator) in lock step with it. Exact refresh timing and
//! hysteresis with figures written out by hand. Also Yosys `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cc::pfc_xoff::{PfcXoffGenerator, PfcXoffModel, XoffIn};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

fn drive<S: Stepper<PfcXoffGenerator>>(b: &mut S, i: &XoffIn) {
    let u = b.uut();
    u.enable.next = i.enable;
    u.fill.next = (i.fill as u64).into();
    u.xoff_thresh.next = (i.xoff_thresh as u64).into();
    u.xon_thresh.next = (i.xon_thresh as u64).into();
    u.quanta.next = (i.quanta as u64).into();
    u.bits_per_cycle.next = (i.bits_per_cycle as u64).into();
    u.send_ready.next = i.send_ready;
}

/// (xoffs taken, xons taken, refreshes: an XOFF taken while already paused)
fn run_random<S: Stepper<PfcXoffGenerator>>(
    b: &mut S,
    seed: u64,
    n: usize,
    bits_per_cycle: u16,
    quanta: u16,
) -> (u64, u64, u64) {
    let mut rng = Rng::new(seed);
    let mut model = PfcXoffModel::default();
    let (mut xoffs, mut xons, mut refreshes) = (0u64, 0u64, 0u64);
    let mut fill: i64 = 0;
    // drift: the buffer fills for a while, then drains
    let mut filling = true;
    for _ in 0..n {
        if rng.below(150) == 0 {
            filling = !filling;
        }
        let d = rng.range(0, 3) as i64;
        fill = if filling { fill + d } else { fill - d }.clamp(0, 300);
        let i = XoffIn {
            enable: !rng.percent(1) || rng.percent(50),
            fill: fill as u16,
            xoff_thresh: 200,
            xon_thresh: 100,
            quanta,
            bits_per_cycle,
            send_ready: !rng.percent(40),
        };
        drive(b, &i);
        b.settle();
        let was_paused = model.peer_paused;
        let want = model.cycle(i);
        let c = b.cycles();
        let u = b.uut();
        assert_eq!(
            u.send_valid.val(),
            want.request.is_some(),
            "send_valid, cycle {c}"
        );
        if let Some(xon) = want.request {
            assert_eq!(u.send_xon.val(), xon, "send_xon, cycle {c}");
        }
        assert_eq!(u.ev_xoff.val(), want.ev_xoff, "ev_xoff, cycle {c}");
        assert_eq!(u.ev_xon.val(), want.ev_xon, "ev_xon, cycle {c}");
        assert_eq!(u.asserted.val(), want.asserted, "asserted, cycle {c}");
        xoffs += want.ev_xoff as u64;
        xons += want.ev_xon as u64;
        refreshes += (want.ev_xoff && was_paused) as u64;
        b.tick();
    }
    (xoffs, xons, refreshes)
}

#[test]
fn block_bench_random_fill_against_model() {
    for (seed, bpc, q) in [
        (1u64, 80u16, 20u16),
        (2, 100, 3),
        (3, 400, 200),
        (4, 7, 2),
        (5, 80, 0xFFFF),
    ] {
        let mut b = Bench::new(PfcXoffGenerator::default(), |u| &mut u.clock);
        let (x, o, r) = run_random(&mut b, seed, 30_000, bpc, q);
        eprintln!("bits/cycle {bpc}, {q} quanta: {x} XOFF ({r} refreshes), {o} XON");
        assert!(x > 10 && o > 10, "{x} {o}");
        if q != 0xFFFF {
            assert!(r > 5, "refreshes {r}");
        }
    }
}

/// Hand-computed: 10 quanta = 5120 bit times at 80 bits/cycle. XOFF taken in cycle t: the timer
/// reads 5120 at t+1 and 5120 - 80k at t+1+k; it is at most half (2560) first at k = 32, so
/// `Paused` sees it at t+33 and the refresh is offered at t+34.
#[test]
fn refresh_at_half_the_pause_and_hysteresis() {
    let mut b = Bench::new(PfcXoffGenerator::default(), |u| &mut u.clock);
    let mut i = XoffIn {
        enable: true,
        fill: 99,
        xoff_thresh: 200,
        xon_thresh: 100,
        quanta: 10,
        bits_per_cycle: 80,
        send_ready: true,
    };
    drive(&mut b, &i);
    b.settle();
    assert!(!b.uut().send_valid.val());
    // just below the XOFF threshold: nothing
    i.fill = 199;
    drive(&mut b, &i);
    for _ in 0..5 {
        b.tick();
        b.settle();
        assert!(!b.uut().send_valid.val());
    }
    // at the threshold: the request shows the next cycle, an XOFF, taken at once
    i.fill = 200;
    drive(&mut b, &i);
    b.tick();
    b.settle();
    assert!(b.uut().send_valid.val() && !b.uut().send_xon.val());
    assert!(b.uut().ev_xoff.val());
    // in the band between the thresholds: no XON; the refresh 34 cycles after the XOFF
    i.fill = 150;
    drive(&mut b, &i);
    let mut k = 0;
    loop {
        b.tick();
        k += 1;
        b.settle();
        if b.uut().send_valid.val() {
            break;
        }
        assert!(k < 100);
    }
    assert_eq!(k, 34);
    assert!(!b.uut().send_xon.val() && b.uut().ev_xoff.val());
    // drained below the XON threshold: XON two cycles later (Paused sees it, then offers)
    i.fill = 99;
    drive(&mut b, &i);
    b.tick();
    b.settle();
    assert!(!b.uut().send_valid.val());
    b.tick();
    b.settle();
    assert!(b.uut().send_valid.val() && b.uut().send_xon.val() && b.uut().ev_xon.val());
    b.tick();
    b.settle();
    assert!(!b.uut().send_valid.val() && !b.uut().asserted.val());
}

#[test]
fn cosim_pfc_xoff_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(PfcXoffGenerator::default(), |u| &mut u.clock);
    let (x, o, r) = run_random(&mut cs, 11, 20_000, 80, 20);
    assert!(x > 5 && o > 3 && r > 1, "{x} {o} {r}");
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_pfc_xoff() {
    let m = "ferroce_pfc_xoff";
    let v = ferroce_hdl::verilog::block_verilog(&mut PfcXoffGenerator::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pfc_xoff_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the 25-bit timer and the state
    assert!(st.count("TRELLIS_FF") >= 25, "{}", st.line(ECP5_CELLS));
}
