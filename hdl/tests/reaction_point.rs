//! The DCQCN reaction point's block bench and co-simulation: the emitted Verilog (Verilator) and
//! the rust-hdl model in lock step, every output port compared at every settle and both clock
//! phases (`ferroce_hdl::cosim::run_cosim`), under random CNPs, bytes and ticks on more QPs than the
//! pool has limiters, with release on recovery; the pool's accounting is checked on the way.
//! (The rates themselves are checked against the reference model by the simulator's
//! `cli_dcqcn` test.)
//!
//! Also: the reciprocal division is exact over the block's whole input range, and Yosys
//! `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cc::drive::{HdlPins, Pin, RpDriver, RpParams, RpPins};
use ferroce_hdl::cc::reaction_point::{RATE_W, RECIP_100};
use ferroce_hdl::cc::{ReactionPoint, LIMITERS};
use ferroce_hdl::cosim::{run_cosim, CoSim};
use ferroce_hdl::testbench::Rng;
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block};

/// floor(x / 100) = (x * M) >> 32 for every product x = Rc x (100 - f) the block can form, and
/// the kernel's evaluation, floor(Rc x K / 2^32) with K = (100 - f) x M in 16-bit pieces, gives
/// the same quotient for every Rc and f, with every partial sum below 2^32.
#[test]
fn reciprocal_is_exact() {
    let (m0, m1) = (RECIP_100 & 0xFFFF, RECIP_100 >> 16);
    let max = 100 * ((1u64 << RATE_W) - 1);
    for x in 0..=max {
        let q = (x * RECIP_100) >> 32;
        assert_eq!(q, x / 100, "x = {x}");
    }
    for k in 0..=100u64 {
        // the kernel's K pieces: t0 = k m0, u0 = (t0 >> 16) + k m1
        let t0 = k * m0;
        let u0 = (t0 >> 16) + k * m1;
        assert!(t0 < 1 << 32 && u0 < 1 << 32);
        let (km0, km1, km2) = (t0 & 0xFFFF, u0 & 0xFFFF, (u0 >> 16) & 1);
        assert_eq!(km2 << 32 | km1 << 16 | km0, k * RECIP_100, "k = {k}");
        for rc in 0..1u64 << RATE_W {
            let (r0, r1) = (rc & 0xFFFF, rc >> 16);
            let lo = ((r0 * km1) & 0xFFFF) + r1 * km0 + ((r0 * km0) >> 16);
            let hi = r1 * km1 + ((r0 * km1) >> 16) + km2 * rc;
            assert!(lo < 1 << 32 && hi < 1 << 32);
            assert_eq!(hi + (lo >> 16), rc * k / 100, "rc = {rc}, k = {k}");
        }
    }
}

#[test]
fn cosim_reaction_point_random_pool() {
    if !require_cosim_tools() {
        return;
    }
    run_cosim(
        "reaction point",
        ReactionPoint::default(),
        |u| &mut u.clock,
        |cs| random_pool(cs),
    );
}

/// Random CNPs, bytes and ticks on more QPs than the pool has limiters, with release on
/// recovery; the pool's accounting checked on the way.
fn random_pool(cs: &mut CoSim<ReactionPoint>) {
    let p = RpParams {
        rpg_time_reset: 12,
        rpg_byte_reset: 4,
        rate_reduce_monitor_period: 3,
        dce_tcp_rtt: 2,
        rpg_ai_rate: 3000,
        rpg_hai_rate: 20000,
        rpg_gd: 9,
        line_rate_mbps: 100_000,
        rate_to_set_on_first_cnp: 60_000,
        ..RpParams::default()
    };
    let mut d = RpDriver::new(HdlPins(cs), &p);
    d.pins.set(Pin::ReleaseOnRecovery, 1);
    let qps: Vec<u32> = (2..2 + LIMITERS as u32 + 6).collect();
    for &q in &qps[..qps.len() - 1] {
        d.set_qp_enable(q, true);
    }
    let disabled = *qps.last().unwrap();
    let mut rng = Rng::new(7);
    let (mut cnps, mut max_in_use) = (0u64, 0u64);
    for us in 0..700 {
        let congested = us < 350;
        for _ in 0..rng.range(0, 4) {
            let q = qps[rng.range(0, qps.len() - 1)];
            if congested && rng.percent(60) {
                d.cnp(q);
                cnps += 1;
            } else {
                d.bytes(q, rng.range(64, 1500) as u64);
            }
        }
        d.tick();
        d.pins.settle();
        let in_use = d.pins.get(Pin::LimitersInUse);
        assert!(in_use <= LIMITERS as u64);
        max_in_use = max_in_use.max(in_use);
        let q = qps[rng.range(0, qps.len() - 1)];
        let v = d.read(q);
        assert!(v.rc <= v.rt && v.rt <= 100_000, "QP {q} at {us} us: {v:?}");
    }
    d.pins.settle();
    let no_limiter = d.pins.get(Pin::CnpNoLimiter);
    let disabled_cnps = d.pins.get(Pin::CnpDisabled);
    assert_eq!(max_in_use, LIMITERS as u64, "the pool filled up");
    assert!(no_limiter > 0, "CNPs beyond the pool are counted");
    assert!(
        disabled_cnps > 0,
        "CNPs for the disabled QP {disabled} are counted"
    );
    assert_eq!(d.pins.get(Pin::TickOverruns), 0);
    // congestion over for 350 us at 12 us per increase: every limiter recovered and released
    assert_eq!(
        d.pins.get(Pin::LimitersInUse),
        0,
        "all released after recovery"
    );
    assert!(!d.read(qps[0]).limited);
    eprintln!(
        "{cnps} CNPs, {no_limiter} without a limiter, {disabled_cnps} for a disabled QP; {} driver cycles",
        d.cycles
    );
}

/// The reaction point's resource line adds the multipliers.
const RP_CELLS: &[&str] = &[
    "LUT4",
    "TRELLIS_FF",
    "CCU2C",
    "DP16KD",
    "TRELLIS_DPR16X4",
    "MULT18X18D",
];

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources
/// (docs/CONGESTION.md quotes them).
#[test]
fn yosys_synth_ecp5_reaction_point() {
    let m = "ferroce_reaction_point";
    let v = ferroce_hdl::verilog::block_verilog(&mut ReactionPoint::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cc_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, RP_CELLS) else {
        return;
    };
    assert!(st.count("LUT4") > 0);
}

/// The sweep's length with the whole pool active: 98 cycles from the cycle that takes the tick
/// to idle (that cycle, loading limiter 0, then 6 cycles a limiter), the figure
/// docs/CONGESTION.md's no-overrun bound (98 + the longest event <= 125 at 125 MHz) rests on;
/// a tick that comes while a CNP is in progress waits only for that CNP.
#[test]
fn sweep_of_a_full_pool_takes_98_cycles() {
    use ferroce_hdl::testbench::Bench;
    let bench = Bench::new(ReactionPoint::default(), |u: &mut ReactionPoint| {
        &mut u.clock
    });
    let p = RpParams {
        rpg_time_reset: 3,
        rate_reduce_monitor_period: 2,
        ..RpParams::default()
    };
    let mut d = RpDriver::new(HdlPins(bench), &p);
    for q in 2..2 + LIMITERS as u32 {
        d.set_qp_enable(q, true);
        d.cnp(q);
    }
    d.wait_idle();
    assert_eq!(d.pins.get(Pin::LimitersInUse), LIMITERS as u64);
    // the driver counts the tick's own cycle too
    let (mut idle_tick, mut busy_tick) = (0, 0);
    for us in 0..40 {
        // CNPs keep every limiter busy (and cutting) while the timers fire
        if us % 2 == 0 {
            for q in 2..2 + LIMITERS as u32 {
                d.cnp(q);
            }
            // the tick comes in the cycle after the last CNP was taken
            let before = d.cycles;
            d.tick();
            busy_tick = busy_tick.max(d.cycles - before);
        } else {
            d.wait_idle();
            let before = d.cycles;
            d.tick();
            idle_tick = idle_tick.max(d.cycles - before);
        }
    }
    assert_eq!(d.pins.get(Pin::LimitersInUse), LIMITERS as u64);
    assert_eq!(idle_tick, 1 + 98, "tick to idle, 16 active limiters");
    // the CNP's four cycles after the one that took it (wait, map, load, store), the first
    // beside the tick's
    assert_eq!(busy_tick, 1 + 3 + 98, "tick behind a CNP");
}
