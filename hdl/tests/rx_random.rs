//! RxParser on random valid frames (every known opcode, IPv4/IPv6/RoCEv1, VLAN or not,
//! payload 0..=4096) built by the shared TX reference model, back to back at full rate and with
//! random valid/ready gaps: every descriptor equals the shared plain-Rust parse, every payload
//! is exact, every verdict and counter equals the reference model. Also measures cycles per
//! frame and simulation speed.
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{check, known_opcodes, random_roce_frame, run, FrameOpts, Shaping};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::{DropReason, RxParser64};
use ferroce_hdl::testbench::{Bench, Rng};

fn bench() -> Bench<RxParser64> {
    Bench::new(RxParser64::default(), |u| &mut u.clock)
}

fn frames_all_opcodes(seed: u64, max_payload: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    let opts = FrameOpts { max_payload, ..Default::default() };
    let mut v = vec![];
    for op in known_opcodes() {
        for l3 in [L3_IPV4, L3_IPV6, L3_ROCEV1] {
            v.push(random_roce_frame(&mut rng, op, l3, &opts));
        }
    }
    v
}

#[test]
fn every_opcode_every_l3_full_rate() {
    let cfg = RxConfig::default();
    let frames = frames_all_opcodes(11, 512);
    let mut b = bench();
    let t = std::time::Instant::now();
    let r = run(&mut b, &frames, &cfg, Shaping::FULL_RATE);
    let secs = t.elapsed().as_secs_f64();
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    assert_eq!(r.counters[DropReason::Accepted.code() as usize] as usize, frames.len());
    let beats: u64 = frames.iter().map(|f| f.len().div_ceil(8) as u64).sum();
    eprintln!(
        "{} frames, {} input beats (sum of ceil(bytes/8)), last input beat at cycle {}, {} cycles total; \
         {:.0} cycles/s; max input stall {} cycles",
        frames.len(),
        beats,
        r.last_in_cycle,
        r.cycles,
        r.cycles as f64 / secs,
        r.max_in_stall
    );
}

#[test]
fn every_opcode_with_gaps_and_backpressure() {
    let cfg = RxConfig::default();
    let frames = frames_all_opcodes(12, 300);
    for (i, sh) in [(30, 0, 0), (0, 50, 50), (40, 30, 60)].iter().enumerate() {
        let mut b = bench();
        let r = run(
            &mut b,
            &frames,
            &cfg,
            Shaping { gap_percent: sh.0, hdr_stall_percent: sh.1, pay_stall_percent: sh.2, seed: 100 + i as u64 },
        );
        check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    }
}

#[test]
fn large_payloads_up_to_4096() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(5);
    let opts = FrameOpts::default();
    let mut frames = vec![];
    for (i, op) in [0x04u8, 0x00, 0x0A, 0x10, 0x24, 0x65, 0x01, 0x02].iter().enumerate() {
        let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][i % 3];
        let mut f = random_roce_frame(&mut rng, *op, l3, &opts);
        // make sure some are exactly 4096
        while f.len() < 4000 && i < 3 {
            f = random_roce_frame(&mut rng, *op, l3, &opts);
        }
        frames.push(f);
    }
    let mut b = bench();
    let t = std::time::Instant::now();
    let r = run(&mut b, &frames, &cfg, Shaping { gap_percent: 5, hdr_stall_percent: 10, pay_stall_percent: 10, seed: 9 });
    let secs = t.elapsed().as_secs_f64();
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    eprintln!("large: {} cycles, {:.0} cycles/s, max input stall {}", r.cycles, r.cycles as f64 / secs, r.max_in_stall);
}
