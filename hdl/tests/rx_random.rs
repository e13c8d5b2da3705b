//! RxParser on random valid frames (every known opcode, IPv4/IPv6/RoCEv1, VLAN or not,
//! payload 0..=4096) built by the shared TX reference model, back to back at full rate and with
//! random valid/ready gaps: every descriptor equals the shared plain-Rust parse, every payload
//! is exact, every verdict and counter equals the reference model. Also measures cycles per
//! frame and simulation speed.
mod rx_common;

use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{
    check, known_opcodes, random_payload_len, random_roce_frame, run, run_with, FrameOpts, Shaping,
};
use ferroce_hdl::rx::model::{RxConfig, RxRelease};
use ferroce_hdl::rx::{DropReason, RxParser64};
use ferroce_hdl::testbench::{Bench, Rng};

fn bench() -> Bench<RxParser64> {
    Bench::new(RxParser64::default(), |u| &mut u.clock)
}

fn frames_all_opcodes(seed: u64, max_payload: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    let opts = FrameOpts {
        max_payload,
        ..Default::default()
    };
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
    assert_eq!(
        r.counters[DropReason::Accepted.code() as usize] as usize,
        frames.len()
    );
    // every descriptor and payload also equals ferroce_proto's FrameRepr::parse
    for (i, f) in frames.iter().enumerate() {
        let want = rx_common::proto_release(f);
        assert!(
            matches!(want, RxRelease::Roce { .. }),
            "proto does not parse frame {i}"
        );
        assert_eq!(r.releases[i], want, "frame {i}");
    }
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

/// Input gaps, `hdr_ready` and `pay.ready` stalls, in percent per cycle, and the seed.
fn shaping((gap, hdr, pay): (u32, u32, u32), seed: u64) -> Shaping {
    Shaping {
        gap_percent: gap,
        hdr_stall_percent: hdr,
        pay_stall_percent: pay,
        seed,
    }
}

#[test]
fn every_opcode_with_gaps_and_backpressure() {
    let cfg = RxConfig::default();
    let frames = frames_all_opcodes(12, 300);
    for (i, sh) in [(30, 0, 0), (0, 50, 50), (40, 30, 60)]
        .into_iter()
        .enumerate()
    {
        let r = run(&mut bench(), &frames, &cfg, shaping(sh, 100 + i as u64));
        check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    }
}

#[test]
fn large_payloads_up_to_4096() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(5);
    let opts = FrameOpts::default();
    let mut frames = vec![];
    for (i, op) in [0x04u8, 0x00, 0x0A, 0x10, 0x24, 0x65, 0x01, 0x02]
        .iter()
        .enumerate()
    {
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
    let r = run(
        &mut b,
        &frames,
        &cfg,
        Shaping {
            gap_percent: 5,
            hdr_stall_percent: 10,
            pay_stall_percent: 10,
            seed: 9,
        },
    );
    let secs = t.elapsed().as_secs_f64();
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    eprintln!(
        "large: {} cycles, {:.0} cycles/s, max input stall {}",
        r.cycles,
        r.cycles as f64 / secs,
        r.max_in_stall
    );
}

/// Input stall bound: a 4096-byte SEND followed by a burst of minimum frames fills the record
/// queue while the big payload is read out; with the outputs always ready the input is never
/// held off longer than one maximal readout plus the pipeline (see `rx::parser`).
#[test]
fn worst_case_input_stall_is_bounded() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(31);
    let big = FrameOpts {
        max_payload: 4096,
        vlan_percent: 0,
        ..Default::default()
    };
    let small = FrameOpts {
        max_payload: 0,
        vlan_percent: 0,
        ..Default::default()
    };
    let mut frames = vec![];
    for _ in 0..2 {
        let mut f = random_roce_frame(&mut rng, 0x04, L3_IPV6, &big);
        while f.len() < 4096 {
            f = random_roce_frame(&mut rng, 0x04, L3_IPV6, &big);
        }
        frames.push(f);
        for _ in 0..70 {
            frames.push(random_roce_frame(&mut rng, 0x11, L3_IPV4, &small));
        }
    }
    let mut b = bench();
    let r = run(&mut b, &frames, &cfg, Shaping::FULL_RATE);
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    let bound = RxParser64::STALL_BOUND;
    let beats: u64 = frames.iter().map(|f| f.len().div_ceil(8) as u64).sum();
    eprintln!(
        "worst case: max input stall {} cycles (bound {bound}); {} beats in {} cycles",
        r.max_in_stall, beats, r.last_in_cycle
    );
    assert!(
        r.max_in_stall > 0,
        "the pattern should fill the record queue"
    );
    assert!(r.max_in_stall <= bound);
}

/// Output back-pressure fills the 16 KiB frame buffer: the input is held off (never anything
/// lost), and every frame still comes out exactly once and in order.
#[test]
fn buffer_full_backpressure_loses_nothing() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(41);
    let opts = FrameOpts {
        max_payload: 4096,
        ..Default::default()
    };
    let mut frames = vec![];
    for i in 0..10 {
        let op = [0x04u8, 0x00, 0x0a, 0x0d][i % 4];
        let mut f = random_roce_frame(&mut rng, op, [L3_IPV4, L3_IPV6][i % 2], &opts);
        while f.len() < 3000 {
            f = random_roce_frame(&mut rng, op, [L3_IPV4, L3_IPV6][i % 2], &opts);
        }
        frames.push(f);
        frames.push(random_roce_frame(
            &mut rng,
            0x11,
            L3_IPV4,
            &FrameOpts {
                max_payload: 0,
                ..Default::default()
            },
        ));
    }
    let mut b = bench();
    let r = run(
        &mut b,
        &frames,
        &cfg,
        Shaping {
            gap_percent: 0,
            hdr_stall_percent: 20,
            pay_stall_percent: 75,
            seed: 3,
        },
    );
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    eprintln!(
        "back-pressure: {bytes} bytes through a 16 KiB buffer, max input stall {} cycles",
        r.max_in_stall
    );
    assert!(r.max_in_stall > 100, "the buffer should have filled");
}

/// Frames built by ferroce_proto's own builder (`FrameRepr::new_roce`): every opcode, every L3
/// kind, with and without VLAN, payload 0..=4096 by the opcode's rule; the released descriptors
/// and payloads equal proto's parse.
#[test]
fn proto_built_frames_every_opcode() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(99);
    let mut frames = vec![];
    for op in known_opcodes() {
        for l3 in [L3_IPV4, L3_IPV6, L3_ROCEV1] {
            let vlan = rng.percent(50);
            let max = if rng.percent(10) { 4096 } else { 200 };
            let plen = random_payload_len(&mut rng, op, max);
            frames.push(rx_common::proto_random_frame(
                &mut rng, op, l3, vlan, plen, cfg.mac,
            ));
        }
    }
    let mut b = bench();
    let r = run(
        &mut b,
        &frames,
        &cfg,
        Shaping {
            gap_percent: 10,
            hdr_stall_percent: 10,
            pay_stall_percent: 10,
            seed: 8,
        },
    );
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    assert_eq!(
        r.counters[DropReason::Accepted.code() as usize] as usize,
        frames.len()
    );
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(r.releases[i], rx_common::proto_release(f), "frame {i}");
    }
}

/// A PFC frame right behind a 4 KiB frame pulses the PFC output at its own commit (8 cycles
/// after its last beat), not after the big payload has been read out: pause must act fast.
#[test]
fn pfc_pulse_is_not_queued_behind_payload() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(51);
    let big = FrameOpts {
        max_payload: 4096,
        vlan_percent: 0,
        ..Default::default()
    };
    let mut f = random_roce_frame(&mut rng, 0x04, L3_IPV4, &big);
    while f.len() < 4000 {
        f = random_roce_frame(&mut rng, 0x04, L3_IPV4, &big);
    }
    let pfc = ferroce_hdl::rx::harness::unhex(
        "0180c2000001020000000001880801010008000000000000ffff00000000000000000000000000000000000000000000000000000000000000000000",
    );
    let frames = vec![f, pfc];
    let mut b = bench();
    let r = run(
        &mut b,
        &frames,
        &cfg,
        Shaping {
            gap_percent: 0,
            hdr_stall_percent: 0,
            pay_stall_percent: 30,
            seed: 2,
        },
    );
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    assert!(
        matches!(r.releases[0], RxRelease::Pfc { .. }),
        "PFC pulse should come first"
    );
    // commit: the ICRC front's 3 pipeline stages, the record register, L3, transport, the
    // verdict register
    assert_eq!(r.release_cycles[0] - r.frame_end_cycles[1], 8);
}

/// `hdr_ahead_ok` held high (the NIC's responder takes its next descriptor while its data mover
/// still streams the last payload): descriptors are taken ahead of the streaming payload (at
/// most two before a payload's last beat), payloads still come in descriptor order, and every
/// release, verdict and counter equals the reference model, at full rate and under random gaps
/// and back-pressure.
#[test]
fn descriptors_taken_ahead_of_streaming_payloads() {
    let cfg = RxConfig::default();
    let frames = frames_all_opcodes(13, 2048);
    for (i, sh) in [(0, 0, 0), (30, 0, 0), (0, 50, 50), (40, 30, 60)]
        .into_iter()
        .enumerate()
    {
        let r = run_with(
            &mut bench(),
            &frames,
            &cfg,
            shaping(sh, 300 + i as u64),
            true,
        );
        check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
        assert!(
            r.taken_ahead > 0,
            "shaping {sh:?}: no descriptor was taken ahead of a payload"
        );
        eprintln!(
            "shaping {sh:?}: {} of {} descriptors taken ahead, {} cycles",
            r.taken_ahead,
            frames.len(),
            r.cycles
        );
    }
}
