//! Co-simulation of the TX header builder: its emitted Verilog (Verilator) against the rust-hdl
//! model, in lock step, every output port compared at every settle and clock phase (the
//! `ferroce_hdl::cosim` harness), with the same random descriptors, payloads and valid/ready
//! gaps as the rust-hdl tests; the frames must also equal the reference.
//!
//! Needs verilator, make and g++ (policy of `ferroce_hdl::verilog::require_tool`).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::testbench::Rng;
use ferroce_hdl::tx::drive::{all_opcodes, no_payload, random_header, run_builder, Timing};
use ferroce_hdl::tx::vectors::{hex, ROCE_MD_VECTORS};
use ferroce_hdl::tx::TxHeaderBuilderFlat;
use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::verilog::require_tool;

fn tools() -> bool {
    require_tool("verilator") && require_tool("g++") && require_tool("make")
}

#[test]
fn tx_cosim_header_builder() {
    if !tools() {
        return;
    }
    let mut cs = CoSim::new(TxHeaderBuilderFlat::default(), |u| &mut u.clock);
    let mut rng = Rng::new(21);
    let mut jobs: Vec<(RoceHeader, Vec<u8>)> =
        ROCE_MD_VECTORS.iter().map(|(_, h)| RoceHeader::parse_frame(&hex(h)).unwrap()).collect();
    for op in all_opcodes() {
        for l3 in [L3_IPV4, L3_IPV6, L3_ROCEV1] {
            for vlan in [false, true] {
                let len = if no_payload(op) { 0 } else { rng.range(0, 300) };
                jobs.push((random_header(&mut rng, op, l3, vlan, len), rng.bytes(len)));
            }
        }
    }
    for len in [1000usize, 4093, 4096] {
        jobs.push((random_header(&mut rng, 0x0a, L3_IPV6, true, len), rng.bytes(len)));
    }
    for t in [
        Timing::default(),
        Timing { desc_gap: 30, pay_gap: 30, stall: 0 },
        Timing { desc_gap: 0, pay_gap: 0, stall: 40 },
        Timing { desc_gap: 50, pay_gap: 50, stall: 50 },
    ] {
        let r = run_builder(&mut cs, &jobs, t, &mut rng);
        for (i, (h, p)) in jobs.iter().enumerate() {
            assert_eq!(r.frames[i], h.to_frame_bytes(p), "{t:?} frame {i}");
        }
    }
    eprintln!("tx header builder: {} lock-step comparisons, 0 mismatches", cs.compares);
}
