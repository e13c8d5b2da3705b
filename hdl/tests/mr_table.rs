//! `MrTable` (hdl/src/mr) against the software protection rule,
//! `ferroce_proto::host::mr::MrEntry::check`, which is the oracle of every lookup here:
//! directed edge cases (each also checked against a hand-written expectation so the oracle
//! adaptation cannot hide a bug), the write-versus-lookup ordering with the pipeline full, the
//! command timing, and long random runs at one lookup per cycle with programming commands in
//! between, every output of every cycle compared with the cycle-exact model (`mr_common`).
//!
#![allow(dead_code)]

mod mr_common;

use ferroce_hdl::mr::*;
use ferroce_hdl::testbench::Bench;
use mr_common::*;

fn bench() -> Bench<MrTable1k> {
    Bench::new(MrTable1k::default(), |u| &mut u.clock)
}

#[test]
fn edge_cases_range_and_wrap() {
    directed::edge_cases_range_and_wrap(bench());
}

#[test]
fn edge_cases_keys_pd_rights() {
    directed::edge_cases_keys_pd_rights(bench());
}

/// Lookups of one key every cycle (pipeline full) while the entry is written, re-registered
/// and invalidated: the response flips exactly between the lookup of the command's cycle
/// (old entry) and the next one (new entry).
#[test]
fn writes_while_pipeline_full() {
    directed::writes_while_pipeline_full(bench());
}

#[test]
fn clear_invalidates_everything() {
    directed::clear_invalidates_everything(bench());
}

fn cfg(lookup_pct: u32, cmd_pct: u32, clear_pct: u32, hot: usize) -> GenCfg {
    GenCfg {
        entries: 1024,
        lookup_pct,
        cmd_pct,
        clear_pct,
        hot,
    }
}

/// Back-to-back random lookups (one per cycle) with programming commands between them, the
/// whole output of every cycle compared with the model; the verdicts come from
/// `MrEntry::check`. Prints the spread of verdicts (`--nocapture`).
#[test]
fn random_full_rate_vs_oracle() {
    let t0 = std::time::Instant::now();
    let mut total = Stats::default();
    for (seed, c) in [
        (1u64, cfg(100, 30, 0, 8)),
        (2, cfg(100, 10, 0, 32)),
        (3, cfg(100, 60, 0, 4)),
        (4, cfg(70, 20, 0, 8)),
    ] {
        let mut b = bench();
        let st = run_random(&mut b, c, seed, 25_000);
        total.cycles += st.cycles;
        total.lookups += st.lookups;
        total.zero += st.zero;
        total.stalls += st.stalls;
        total.ignored += st.ignored;
        for i in 0..6 {
            total.by_code[i] += st.by_code[i];
        }
        for i in 0..4 {
            total.commands[i] += st.commands[i];
        }
    }
    let dt = t0.elapsed().as_secs_f64();
    eprintln!(
        "{total:?}\n{:.0} cycles/s (rust-hdl)",
        total.cycles as f64 / dt
    );
    // every verdict reached often enough to mean something
    assert!(
        total.by_code.iter().all(|&n| n > 500),
        "{:?}",
        total.by_code
    );
    assert!(
        total.zero > 500 && total.commands.iter().take(3).all(|&n| n > 200) && total.ignored > 100
    );
}

/// The same with CLEAR commands mixed in (each takes 1024 cycles).
#[test]
fn random_with_clears_vs_oracle() {
    let mut b = bench();
    let st = run_random(&mut b, cfg(90, 20, 3, 8), 5, 40_000);
    eprintln!("{st:?}");
    assert!(st.commands[3] >= 3, "{st:?}");
}

/// A 16-entry build: out-of-range indexes, aliasing and CLEAR are frequent here.
#[test]
fn random_small_table_vs_oracle() {
    let mut b = Bench::new(MrTable::<4>::default(), |u| &mut u.clock);
    let st = run_random(
        &mut b,
        GenCfg {
            entries: 16,
            lookup_pct: 95,
            cmd_pct: 30,
            clear_pct: 5,
            hot: 6,
        },
        6,
        40_000,
    );
    eprintln!("{st:?}");
    assert!(
        st.commands[3] > 20 && st.by_code.iter().all(|&n| n > 200),
        "{st:?}"
    );
}
