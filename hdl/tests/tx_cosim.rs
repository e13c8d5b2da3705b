//! Co-simulation of the TX header builder: its emitted Verilog (Verilator) against the rust-hdl
//! model, in lock step, every output port compared at every settle and clock phase (the
//! `ferroce_hdl::cosim` harness), with the same random descriptors, payloads and valid/ready
//! gaps as the rust-hdl tests; the frames must also equal the reference.
//!
//! Needs verilator, make and g++ (policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::testbench::Rng;
use ferroce_hdl::tx::drive::{all_opcodes, no_payload, random_header, run_builder, Timing};
use ferroce_hdl::tx::vectors::{hex, ROCE_MD_VECTORS};
use ferroce_hdl::tx::TxHeaderBuilderFlat;
use ferroce_testkit::require_cosim_tools;

#[test]
fn tx_cosim_header_builder() {
    if !require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(TxHeaderBuilderFlat::default(), |u| &mut u.clock);
    let mut rng = Rng::new(21);
    let mut jobs: Vec<(RoceHeader, Vec<u8>)> = ROCE_MD_VECTORS
        .iter()
        .map(|(_, h)| RoceHeader::parse_frame(&hex(h)).unwrap())
        .collect();
    for op in all_opcodes() {
        for l3 in [L3_IPV4, L3_IPV6, L3_ROCEV1] {
            for vlan in [false, true] {
                let len = if no_payload(op) { 0 } else { rng.range(0, 300) };
                jobs.push((random_header(&mut rng, op, l3, vlan, len), rng.bytes(len)));
            }
        }
    }
    for len in [1000usize, 4093, 4096] {
        jobs.push((
            random_header(&mut rng, 0x0a, L3_IPV6, true, len),
            rng.bytes(len),
        ));
    }
    for t in [
        Timing::default(),
        Timing {
            desc_gap: 30,
            pay_gap: 30,
            stall: 0,
        },
        Timing {
            desc_gap: 0,
            pay_gap: 0,
            stall: 40,
        },
        Timing {
            desc_gap: 50,
            pay_gap: 50,
            stall: 50,
        },
    ] {
        let r = run_builder(&mut cs, &jobs, t, &mut rng);
        for (i, (h, p)) in jobs.iter().enumerate() {
            assert_eq!(r.frames[i], h.to_frame_bytes(p), "{t:?} frame {i}");
        }
    }
    eprintln!(
        "tx header builder: {} lock-step comparisons, 0 mismatches",
        cs.compares
    );
}

/// The builder on the fast engine alone (Verilator model of the emitted Verilog): back-to-back
/// frames at full rate, every frame checked against the reference, and its speed in cycles/s
/// (run with --nocapture).
#[test]
fn tx_verilated_builder_speed() {
    if !require_cosim_tools() {
        return;
    }
    use ferroce_hdl::cosim::VerilatedBlock;
    use ferroce_hdl::header::ROCE_HEADER_BITS;
    use ferroce_hdl::stream::frame_to_beats;
    use rust_hdl::prelude::Bits;
    use std::collections::VecDeque;
    let mut m = VerilatedBlock::new(&mut TxHeaderBuilderFlat::default());
    let (dv, dr, d) = (m.port("desc_valid"), m.port("desc_ready"), m.port("desc"));
    let (pay, out) = (m.stream("pay"), m.stream("out"));
    let mut rng = Rng::new(22);
    let jobs: Vec<(RoceHeader, Vec<u8>)> = (0..300)
        .map(|i| {
            let len = [0usize, 64, 256, 1024, 4096][i % 5];
            (
                random_header(&mut rng, 0x0a, [L3_IPV4, L3_IPV6][i % 2], i % 3 == 0, len),
                rng.bytes(len),
            )
        })
        .collect();
    let words = |h: &RoceHeader| -> Vec<u64> {
        let b: Bits<ROCE_HEADER_BITS> = (*h).into();
        (0..ROCE_HEADER_BITS.div_ceil(64))
            .map(|i| {
                let lo = 64 * i;
                let n = (ROCE_HEADER_BITS - lo).min(64);
                (0..n).fold(0u64, |acc, j| acc | ((b.get_bit(lo + j) as u64) << j))
            })
            .collect()
    };
    let dwords: Vec<Vec<u64>> = jobs.iter().map(|(h, _)| words(h)).collect();
    let mut beats: VecDeque<_> = jobs
        .iter()
        .flat_map(|(_, p)| frame_to_beats(p, 8))
        .collect();
    let mut next_desc = 0;
    let mut got = vec![];
    let mut cur = vec![];
    m.set(out.ready, 1);
    let t = std::time::Instant::now();
    let mut cycles = 0u64;
    while got.len() < jobs.len() {
        if next_desc < jobs.len() {
            m.set(dv, 1);
            m.set_words(d, &dwords[next_desc]);
        } else {
            m.set(dv, 0);
        }
        m.drive_stream(pay, beats.front());
        m.eval();
        let dfire = next_desc < jobs.len() && m.get(dr) == 1;
        let pfire = !beats.is_empty() && m.get(pay.ready) == 1;
        if let Some(b) = m.peek_stream(out) {
            cur.extend_from_slice(&b.bytes);
            if b.last {
                got.push(std::mem::take(&mut cur));
            }
        }
        m.tick();
        cycles += 1;
        if dfire {
            next_desc += 1;
        }
        if pfire {
            beats.pop_front();
        }
        assert!(cycles < 10_000_000);
    }
    let dt = t.elapsed().as_secs_f64();
    for (i, (h, p)) in jobs.iter().enumerate() {
        assert_eq!(got[i], h.to_frame_bytes(p), "frame {i}");
    }
    let ideal: u64 = jobs
        .iter()
        .map(|(h, p)| (h.to_frame_bytes(p).len() as u64).div_ceil(8))
        .sum();
    eprintln!(
        "Verilator TxHeaderBuilder: {cycles} cycles ({ideal} ideal beats) in {dt:.3} s = {:.0} cycles/s",
        cycles as f64 / dt
    );
}
