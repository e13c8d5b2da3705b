//! Co-simulation of RxParser: its emitted Verilog (Verilator) against the rust-hdl model in lock
//! step (`ferroce_hdl::cosim::CoSim`: every output port compared at every settle and both clock
//! phases), with the same stimulus as the rust-hdl tests: the ROCE.md vectors, random frames of
//! every opcode and L3 kind, malformed frames, random valid/ready gaps. The outputs must also
//! equal the reference model. Needs verilator, make and g++ (`verilog::require_tool` policy).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{check, known_opcodes, random_roce_frame, run, FrameOpts, Shaping};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::{RxParser64, RxParserFlat64};
use ferroce_hdl::testbench::Rng;
use ferroce_hdl::verilog::require_tool;

fn tools() -> bool {
    require_tool("verilator") && require_tool("g++") && require_tool("make")
}

fn mixed_frames(rng: &mut Rng, n_per_op: usize) -> Vec<Vec<u8>> {
    let opts = FrameOpts { max_payload: 300, ..Default::default() };
    let mut v = vec![];
    for op in known_opcodes() {
        for i in 0..n_per_op {
            let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][(op as usize + i) % 3];
            let mut f = random_roce_frame(rng, op, l3, &opts);
            match rng.below(10) {
                0 => {
                    let p = rng.range(0, f.len() - 1);
                    f[p] ^= 1 << rng.below(8);
                }
                1 => {
                    let n = rng.range(1, f.len());
                    f.truncate(n);
                }
                2 => {
                    let n = rng.range(1, 100);
                    f = rng.bytes(n);
                }
                _ => {}
            }
            v.push(f);
        }
    }
    v
}

#[test]
fn rx_cosim_parser() {
    if !tools() {
        return;
    }
    let t = std::time::Instant::now();
    let mut cs = CoSim::new(RxParserFlat64::default(), |u| &mut u.clock);
    eprintln!("model built in {:.1} s", t.elapsed().as_secs_f64());
    let mut rng = Rng::new(77);
    for (i, sh) in [(0, 0, 0), (25, 0, 0), (0, 40, 40), (30, 30, 50)].iter().enumerate() {
        let cfg = RxConfig { promisc: i % 2 == 1, ..RxConfig::default() };
        let frames = mixed_frames(&mut rng, 2);
        let t = std::time::Instant::now();
        let r = run(
            &mut cs,
            &frames,
            &cfg,
            Shaping { gap_percent: sh.0, hdr_stall_percent: sh.1, pay_stall_percent: sh.2, seed: 300 + i as u64 },
        );
        check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
        eprintln!(
            "shaping {sh:?}: {} frames, {} cycles in lock step, {:.0} cycles/s",
            frames.len(),
            r.cycles,
            r.cycles as f64 / t.elapsed().as_secs_f64()
        );
    }
    eprintln!("rx parser: {} lock-step comparisons, 0 mismatches", cs.compares);
}
