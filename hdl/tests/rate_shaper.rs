//! The DCQCN rate shaper's block bench, co-simulation, accuracy table and synthesis.
//!
//! * Block bench: random rate writes (allocations, changes, releases, more QPs than slots),
//!   random starts charged on eligible QPs and random back-pressure on the write port; every
//!   cycle both query ports, the slot count and the exhaustion counter against the reference
//!   model [`ShaperModel`] (written from the module doc with plain integers).
//! * Co-simulation: the same bench on the emitted Verilog (Verilator) in lock step with the
//!   rust-hdl block (`ferroce_hdl::cosim::CoSim`: every output at every settle).
//! * Accuracy: the emitted Verilog as the engine, a 64-bit link at 125 MHz (8 bytes per cycle,
//!   8000 Mb/s) shared by a QP held at 10, 100, 1000, 5000 Mb/s and line rate and an unlimited
//!   QP that always has a packet; the limited QP's throughput over 200 of its packets is
//!   compared with its setting (the time base is the cycle count, not the shaper), within 1 %,
//!   and the unlimited QP must take the rest of the link.
//! * Yosys `synth_ecp5` of the block (resources for docs/RESOURCES.md).
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cc::rate_shaper::{shaper_factor, RateShaper, ShaperModel, SHAPER_SLOTS};
use ferroce_hdl::cosim::{CoSim, VerilatedBlock};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

fn run_random<S: Stepper<RateShaper>>(b: &mut S, seed: u64, cycles: u64) {
    let mut rng = Rng::new(seed);
    let factor = if rng.percent(50) { 16777u32 } else { 8389 };
    let burst = if rng.percent(50) { 4096u32 } else { 1500 };
    let mut m = ShaperModel::default();
    // more QPs than slots, so some writes find the pool full
    let qps: Vec<u32> = (0..SHAPER_SLOTS as u32 + 5).map(|i| i * 11 % 256).collect();
    let mut offer: Option<(u32, u32)> = None;
    let mut pending: Option<(u32, u32, u64)> = None;
    let (mut writes, mut charges, mut waits) = (0u64, 0u64, 0u64);
    b.uut().factor.next = (factor as u64).into();
    b.uut().burst.next = (burst as u64).into();
    for c in 0..cycles {
        if offer.is_none() && rng.percent(3) {
            let q = qps[rng.range(0, qps.len() - 1)];
            let mbps = match rng.range(0, 5) {
                0 => 0,
                1 => rng.range(1, 20) as u32,
                2 => 1_000_000 + rng.range(0, 48_575) as u32,
                _ => rng.range(1, 100_000) as u32,
            };
            offer = Some((q, mbps));
        }
        let qq = if rng.percent(80) {
            qps[rng.range(0, qps.len() - 1)]
        } else {
            rng.range(0, 255) as u32
        };
        let rq = qps[rng.range(0, qps.len() - 1)];
        // the status port reads any QPN, limited or not
        let sq = if rng.percent(70) {
            qps[rng.range(0, qps.len() - 1)]
        } else {
            rng.range(0, 255) as u32
        };
        // a start on a QP the model says is eligible (the gate's contract)
        let mut charge = None;
        if rng.percent(30) {
            let q = qps[rng.range(0, qps.len() - 1)];
            if m.query(q).1 {
                let n = if rng.percent(1) {
                    // beyond the largest charge: saturates
                    if rng.percent(50) {
                        (1u64 << 31) + rng.range(0, 1000) as u64
                    } else {
                        65_536 + rng.range(0, 100_000) as u64
                    }
                } else {
                    rng.range(64, 9000) as u64
                };
                charge = Some((q, n));
            }
        }
        {
            let u = b.uut();
            u.set_valid.next = offer.is_some();
            u.set_qpn.next = (offer.map_or(0, |o| o.0) as u64).into();
            u.set_mbps.next = (offer.map_or(0, |o| o.1) as u64).into();
            u.q_qpn.next = (qq as u64).into();
            u.rd_qpn.next = (rq as u64).into();
            u.st_qpn.next = (sq as u64).into();
            u.charge_valid.next = charge.is_some();
            u.charge_qpn.next = (charge.map_or(0, |c| c.0) as u64).into();
            u.charge_bytes.next = charge.map_or(0, |c| c.1).into();
        }
        b.settle();
        let u = b.uut();
        let (lim, el) = m.query(qq);
        assert_eq!(u.q_limited.val(), lim, "cycle {c}: q_limited of QP {qq}");
        assert_eq!(u.q_eligible.val(), el, "cycle {c}: q_eligible of QP {qq}");
        if !el {
            waits += 1;
        }
        assert_eq!(
            u.rd_limited.val(),
            m.mbps(rq).is_some(),
            "cycle {c}: rd of {rq}"
        );
        assert_eq!(
            u.rd_mbps.val().to_u64(),
            m.mbps(rq).unwrap_or(0) as u64,
            "cycle {c}: rd_mbps of QP {rq}"
        );
        assert_eq!(
            (u.st_limited.val(), u.st_mbps.val().to_u64()),
            (m.mbps(sq).is_some(), m.mbps(sq).unwrap_or(0) as u64),
            "cycle {c}: status port of QP {sq}"
        );
        assert_eq!(
            u.slots_in_use.val().to_u64(),
            m.in_use() as u64,
            "cycle {c}"
        );
        assert_eq!(u.slot_exhausted.val().to_u64(), m.exhausted, "cycle {c}");
        assert_eq!(u.set_ready.val(), pending.is_none(), "cycle {c}: set_ready");
        if let Some((q, mbps)) = offer {
            if u.set_ready.val() {
                pending = Some((q, mbps, c + 3));
                offer = None;
                writes += 1;
            }
        }
        if charge.is_some() {
            charges += 1;
        }
        m.cycle(charge, burst);
        if let Some((q, mbps, at)) = pending {
            if at == c {
                m.set(q, mbps, factor, burst);
                pending = None;
            }
        }
        b.tick();
    }
    assert!(
        writes > 50 && charges > 100 && waits > 100,
        "{writes} {charges} {waits}"
    );
    assert!(m.exhausted > 0, "the pool never filled");
}

#[test]
fn block_bench_random_back_pressure() {
    for seed in 1..4 {
        let mut b = Bench::new(RateShaper::default(), |u| &mut u.clock);
        run_random(&mut b, seed, 6000);
    }
}

#[test]
fn cosim_rate_shaper_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(RateShaper::default(), |u| &mut u.clock);
    run_random(&mut cs, 21, 4000);
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Link: 8 bytes per cycle at 125 MHz = 8000 Mb/s.
const CLOCK_KHZ: u32 = 125_000;
const LINK_BYTES_PER_CYCLE: u64 = 8;
const LINE_MBPS: u32 = 8_000;

struct Row {
    setting: u32,
    limited_mbps: f64,
    unlimited_mbps: f64,
    packets: usize,
    cycles: u64,
}

/// One QP (QPN 5) held at `mbps` and an unlimited QP (QPN 9) with a 1024-byte packet always
/// ready share the link; a free link takes the limited QP's packet if it is eligible, else the
/// unlimited one's. Throughputs from the cycle counts between the limited QP's starts.
fn share(v: &mut VerilatedBlock, mbps: u32, rng: &mut Rng) -> Row {
    let ports: Vec<String> = v.ports.iter().map(|p| p.name.clone()).collect();
    let p = |n: &str| {
        ports
            .iter()
            .position(|x| x == n)
            .unwrap_or_else(|| panic!("port {n}"))
    };
    let (set_valid, set_qpn, set_mbps, set_ready) =
        (p("set_valid"), p("set_qpn"), p("set_mbps"), p("set_ready"));
    let (q_qpn, q_eligible, q_limited) = (p("q_qpn"), p("q_eligible"), p("q_limited"));
    let (cv, cq, cb) = (p("charge_valid"), p("charge_qpn"), p("charge_bytes"));
    v.set(p("factor"), shaper_factor(CLOCK_KHZ).unwrap() as u64);
    v.set(p("burst"), 4096);
    // write the rate
    v.set(set_qpn, 5);
    v.set(set_mbps, mbps as u64);
    v.set(set_valid, 1);
    v.eval();
    while v.get(set_ready) == 0 {
        v.tick();
        v.eval();
    }
    v.tick();
    v.set(set_valid, 0);
    v.ticks(4);
    v.set(q_qpn, 5);
    v.eval();
    assert_eq!(v.get(q_limited), 1, "QP 5 holds a slot");
    // the QP 9 is unlimited
    v.set(q_qpn, 9);
    v.eval();
    assert_eq!((v.get(q_limited), v.get(q_eligible)), (0, 1));
    v.set(q_qpn, 5);
    v.eval();

    // the first packets spend the full bucket a new slot starts with (one burst): the window
    // starts after them, in the steady state
    let (warm, window) = (50usize, 200usize);
    let mut now = 0u64;
    let mut starts: Vec<(u64, u64)> = Vec::new(); // limited: (cycle, bytes)
    let mut others: Vec<(u64, u64)> = Vec::new(); // unlimited
    while starts.len() <= warm + window {
        let eligible = v.get(q_eligible) == 1;
        let bytes = if eligible {
            8 * rng.range(8, 187) as u64
        } else {
            1024
        };
        if eligible {
            starts.push((now, bytes));
            v.set(cv, 1);
            v.set(cq, 5);
            v.set(cb, bytes);
        } else {
            others.push((now, bytes));
        }
        v.tick();
        v.set(cv, 0);
        let busy = bytes.div_ceil(LINK_BYTES_PER_CYCLE);
        v.ticks(busy as u32 - 1);
        v.eval();
        now += busy;
        assert!(now < 4_000_000_000, "stuck");
    }
    let (t0, t1) = (starts[warm].0, starts[warm + window].0);
    let lb: u64 = starts[warm..warm + window].iter().map(|s| s.1).sum();
    let ub: u64 = others
        .iter()
        .filter(|o| o.0 >= t0 && o.0 < t1)
        .map(|o| o.1)
        .sum();
    let secs = (t1 - t0) as f64 / (CLOCK_KHZ as f64 * 1000.0);
    // release the slot for the next row
    v.set(set_qpn, 5);
    v.set(set_mbps, 0);
    v.set(set_valid, 1);
    v.eval();
    while v.get(set_ready) == 0 {
        v.tick();
        v.eval();
    }
    v.tick();
    v.set(set_valid, 0);
    v.ticks(4);
    Row {
        setting: mbps,
        limited_mbps: lb as f64 * 8.0 / secs / 1e6,
        unlimited_mbps: ub as f64 * 8.0 / secs / 1e6,
        packets: window,
        cycles: t1 - t0,
    }
}

#[test]
fn accuracy_table_10_mbps_to_line_rate() {
    if !require_cosim_tools() {
        return;
    }
    let mut v = VerilatedBlock::new(&mut RateShaper::default());
    let mut rng = Rng::new(3);
    v.ticks(4);
    eprintln!("| setting Mb/s | limited QP Mb/s | error | unlimited QP Mb/s | packets | cycles |");
    eprintln!("|---:|---:|---:|---:|---:|---:|");
    for mbps in [10u32, 100, 1000, 5000, LINE_MBPS] {
        let r = share(&mut v, mbps, &mut rng);
        let err = (r.limited_mbps - r.setting as f64) / r.setting as f64;
        eprintln!(
            "| {} | {:.3} | {:+.4} % | {:.3} | {} | {} |",
            r.setting,
            r.limited_mbps,
            err * 100.0,
            r.unlimited_mbps,
            r.packets,
            r.cycles
        );
        assert!(r.packets >= 100);
        assert!(
            err.abs() < 0.01,
            "{mbps} Mb/s: measured {:.3}",
            r.limited_mbps
        );
        // the unlimited QP keeps the rest of the link (within 1 % of the line)
        let rest = LINE_MBPS as f64 - r.limited_mbps;
        assert!(
            (r.unlimited_mbps - rest).abs() < 0.01 * LINE_MBPS as f64,
            "{mbps} Mb/s: unlimited {:.3}, rest {:.3}",
            r.unlimited_mbps,
            rest
        );
    }
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_rate_shaper() {
    let m = "ferroce_rate_shaper";
    let v = ferroce_hdl::verilog::block_verilog(&mut RateShaper::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shaper_synth");
    let cells: Vec<&str> = ECP5_CELLS.iter().copied().chain(["MULT18X18D"]).collect();
    let Some(st) = synth_ecp5_block(m, &v, &dir, &cells) else {
        return;
    };
    // every slot's rate and bucket are registers (refilled every cycle)
    assert!(st.count("TRELLIS_FF") >= 16 * 100, "{}", st.line(&cells));
}
