//! The CSR block (default build: 256 QPs, 256 CQs, 1024 MRs) on the rust-hdl simulator, driven by
//! the AXI4-Lite bus-functional model of `ferroce_hdl::csr::bfm` with random valid/ready timing
//! (AW before W, W before AW, together; stalls on B and R). The scenarios live in
//! `ferroce_hdl::csr::scenarios` and take every expected value from `ferroce_proto::host`; the
//! co-simulation (`csr_cosim.rs`) runs the same ones against the emitted Verilog.
use ferroce_hdl::csr::bfm::{AxilTiming, Csr};
use ferroce_hdl::csr::scenarios as sc;
use ferroce_hdl::csr::{CsrBlockDefault, CsrParams};
use ferroce_hdl::testbench::Bench;

type Dut = Csr<Bench<CsrBlockDefault>, 8, 8, 10>;

fn dut(seed: u64, t: AxilTiming) -> Dut {
    Csr::new(
        Bench::new(CsrBlockDefault::default(), |u| &mut u.clock),
        seed,
        t,
    )
}

#[test]
fn csr_identity_matches_proto() {
    let mut c = dut(1, AxilTiming::RANDOM);
    sc::identity(&mut c, &CsrParams::default());
}

#[test]
fn csr_register_map_from_proto_table() {
    let mut c = dut(2, AxilTiming::RANDOM);
    sc::register_map(&mut c);
}

#[test]
fn csr_register_map_back_to_back() {
    let mut c = dut(3, AxilTiming::FAST);
    sc::register_map(&mut c);
}

#[test]
fn csr_qp_programming_and_read_port() {
    let mut c = dut(4, AxilTiming::RANDOM);
    c.rtq_latency = 3;
    sc::qp_programming(&mut c, &CsrParams::default(), 6);
}

#[test]
fn csr_qp_transition_rule() {
    let mut c = dut(5, AxilTiming::FAST);
    sc::qp_transitions(&mut c, &CsrParams::default(), 240);
}

#[test]
fn csr_qp_err_port() {
    let mut c = dut(6, AxilTiming::RANDOM);
    c.rtq_latency = 0;
    sc::qp_err_port(&mut c, &CsrParams::default());
}

#[test]
fn csr_mr_programming() {
    let mut c = dut(7, AxilTiming::RANDOM);
    c.drain_latency = 4;
    sc::mr_programming(&mut c, 8);
}

#[test]
fn csr_cq_programming() {
    let mut c = dut(8, AxilTiming::RANDOM);
    c.rtq_latency = 0;
    sc::cq_programming(&mut c, &CsrParams::default());
}

#[test]
fn csr_doorbells_in_order_none_lost() {
    let mut c = dut(9, AxilTiming::RANDOM);
    sc::doorbells(&mut c, 200);
    let mut c = dut(10, AxilTiming::FAST);
    sc::doorbells(&mut c, 200);
}

#[test]
fn csr_events_and_interrupts() {
    let mut c = dut(11, AxilTiming::RANDOM);
    sc::events_and_irqs(&mut c);
}

#[test]
fn csr_counters() {
    let mut c = dut(12, AxilTiming::RANDOM);
    sc::counters(&mut c, 300);
}

#[test]
fn csr_config_outputs() {
    let mut c = dut(13, AxilTiming::RANDOM);
    sc::config_outputs(&mut c);
}

#[test]
fn csr_cfg_reset_clears_contexts() {
    let mut c = dut(14, AxilTiming::RANDOM);
    sc::cfg_reset(&mut c, &CsrParams::default());
}
