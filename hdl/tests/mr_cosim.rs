//! Co-simulation of `MrTable` (the default 1024-entry build and a 16-entry build): the emitted
//! Verilog (Verilator) and the rust-hdl model in lock step, every output port compared at
//! every settle and both clock phases (`ferroce_hdl::cosim::CoSim`), driven by the same
//! stimulus as `mr_table` (directed scenarios and random runs), while the cycle-exact model
//! with `MrEntry::check` verdicts checks the outputs too.
//!
//! Needs verilator, make and g++ (policy of `ferroce_testkit::require_tool`).
#![allow(dead_code)]

mod mr_common;

use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::mr::*;
use ferroce_testkit::require_cosim_tools;
use mr_common::*;

fn cosim() -> CoSim<MrTable1k> {
    CoSim::new(MrTable1k::default(), |u| &mut u.clock)
}

#[test]
fn cosim_mr_directed() {
    if !require_cosim_tools() {
        return;
    }
    let t = std::time::Instant::now();
    directed::edge_cases_range_and_wrap(cosim());
    directed::edge_cases_keys_pd_rights(cosim());
    directed::writes_while_pipeline_full(cosim());
    directed::clear_invalidates_everything(cosim());
    eprintln!(
        "directed scenarios co-simulated in {:.1} s, 0 mismatches",
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn cosim_mr_random() {
    if !require_cosim_tools() {
        return;
    }
    let (mut cycles, mut compares, mut secs) = (0, 0, 0.0);
    for (seed, c) in [
        (
            21u64,
            GenCfg {
                entries: 1024,
                lookup_pct: 100,
                cmd_pct: 30,
                clear_pct: 0,
                hot: 8,
            },
        ),
        (
            22,
            GenCfg {
                entries: 1024,
                lookup_pct: 90,
                cmd_pct: 20,
                clear_pct: 2,
                hot: 16,
            },
        ),
    ] {
        let mut cs = cosim(); // fresh block and model per run
        let t = std::time::Instant::now();
        let st = run_random(&mut cs, c, seed, 15_000);
        secs += t.elapsed().as_secs_f64();
        eprintln!("{st:?}");
        cycles += st.cycles;
        compares += cs.compares;
    }
    eprintln!(
        "MrTable1k: {cycles} cycles, {compares} lock-step comparisons, 0 mismatches, {:.0} cycles/s (both simulators)",
        cycles as f64 / secs
    );
}

#[test]
fn cosim_mr_small_table() {
    if !require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(MrTable::<4>::default(), |u| &mut u.clock);
    let st = run_random(
        &mut cs,
        GenCfg {
            entries: 16,
            lookup_pct: 95,
            cmd_pct: 30,
            clear_pct: 5,
            hot: 6,
        },
        23,
        15_000,
    );
    eprintln!("{st:?}");
    assert!(st.commands[3] > 5);
}
