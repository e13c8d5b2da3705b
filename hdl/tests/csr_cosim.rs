//! Co-simulation of the CSR block: its emitted Verilog (Verilator) and the rust-hdl model in
//! lock step, every output port compared at every settle and both clock phases
//! (`ferroce_hdl::cosim::CoSim`), driven by the same scenarios and AXI stimulus as `csr_bus.rs`
//! (`ferroce_hdl::csr::scenarios`), whose proto-derived checks run on top.
//!
//! The default build (256 QPs, 256 CQs, 1024 MRs) and a small one (16 / 8 / 16).
//! Needs verilator, make and g++ (policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::csr::bfm::{AxilTiming, Csr};
use ferroce_hdl::csr::scenarios as sc;
use ferroce_hdl::csr::{CsrBlock, CsrBlockDefault, CsrParams};
use ferroce_testkit::require_cosim_tools;

type Big = Csr<CoSim<CsrBlockDefault>, 8, 8, 10>;
type Small = Csr<CoSim<CsrBlock<4, 3, 4>>, 4, 3, 4>;

fn big(seed: u64, t: AxilTiming) -> Big {
    let t0 = std::time::Instant::now();
    let cs = CoSim::new(CsrBlockDefault::default(), |u| &mut u.clock);
    eprintln!(
        "CsrBlockDefault Verilator model ready in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    Csr::new(cs, seed, t)
}

fn small(seed: u64, t: AxilTiming) -> Small {
    Csr::new(
        CoSim::new(CsrBlock::<4, 3, 4>::default(), |u| &mut u.clock),
        seed,
        t,
    )
}

fn report<S: ferroce_hdl::testbench::Stepper<B>, B: rust_hdl::prelude::Block>(
    what: &str,
    s: &S,
    t0: std::time::Instant,
) {
    let dt = t0.elapsed().as_secs_f64();
    eprintln!(
        "{what}: {} cycles in {dt:.1} s ({:.0} cycles/s), 0 mismatches",
        s.cycles(),
        s.cycles() as f64 / dt
    );
}

/// Register map, identity, config outputs, counters, events and interrupts.
#[test]
fn cosim_csr_registers() {
    if !require_cosim_tools() {
        return;
    }
    let p = CsrParams::default();
    let mut c = big(21, AxilTiming::RANDOM);
    let t0 = std::time::Instant::now();
    sc::register_map(&mut c);
    sc::identity(&mut c, &p);
    sc::config_outputs(&mut c);
    sc::counters(&mut c, 200);
    sc::events_and_irqs(&mut c);
    report("registers", &c.s, t0);
    eprintln!("  {} lock-step comparisons", c.s.compares);
}

/// QP programming and the read port, the transition rule, the ERR port.
#[test]
fn cosim_csr_qp() {
    if !require_cosim_tools() {
        return;
    }
    let p = CsrParams::default();
    let mut c = big(22, AxilTiming::RANDOM);
    let t0 = std::time::Instant::now();
    c.rtq_latency = 2;
    sc::qp_programming(&mut c, &p, 4);
    c.timing = AxilTiming::FAST;
    sc::qp_transitions(&mut c, &p, 200);
    c.rtq_latency = 0;
    sc::qp_err_port(&mut c, &p);
    report("qp", &c.s, t0);
}

/// MR and CQ windows, doorbells, CFG_RESET.
#[test]
fn cosim_csr_mr_cq_doorbells_reset() {
    if !require_cosim_tools() {
        return;
    }
    let p = CsrParams::default();
    let mut c = big(23, AxilTiming::RANDOM);
    let t0 = std::time::Instant::now();
    c.drain_latency = 3;
    sc::mr_programming(&mut c, 6);
    c.drain_latency = 0;
    c.rtq_latency = 0;
    sc::cq_programming(&mut c, &p);
    sc::doorbells(&mut c, 150);
    sc::cfg_reset(&mut c, &p);
    report("mr/cq/doorbells/reset", &c.s, t0);
}

/// A small build (other table sizes, same checks).
#[test]
fn cosim_csr_small_build() {
    if !require_cosim_tools() {
        return;
    }
    let p = CsrParams::default();
    let mut c = small(24, AxilTiming::RANDOM);
    let t0 = std::time::Instant::now();
    sc::register_map(&mut c);
    sc::qp_programming(&mut c, &p, 3);
    sc::qp_transitions(&mut c, &p, 80);
    sc::doorbells(&mut c, 80);
    sc::cfg_reset(&mut c, &p);
    report("small build", &c.s, t0);
}
