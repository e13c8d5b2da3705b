//! The TX header builder against `ferroce_proto` (the single source of truth): for every RC
//! opcode, UC, UD SEND, CNP, over IPv4/IPv6/RoCEv1, with and without VLAN, payload 0..=4096
//! bytes and random valid/ready gaps, the builder's frame equals byte for byte
//! `RoceHeader::to_frame(payload).emit()` (proto computes lengths, checksum, PadCnt, ICRC,
//! padding), and `FrameRepr::parse` of it gives back the descriptor. Plus a proptest over random
//! descriptors and timings.
use ferroce_hdl::header::{RoceHeader, L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::icrc::reference_icrc;
use ferroce_hdl::testbench::{Bench, Rng};
use ferroce_hdl::tx::drive::{
    all_opcodes, no_payload, random_header, run_builder, run_builder_with_bad, Timing,
};
use ferroce_hdl::tx::TxHeaderBuilder;
use ferroce_proto::wire::FrameRepr;
use proptest::prelude::*;

/// A random descriptor proto can represent: UDP destination port 4791 (proto's finalize forces
/// it), IPv4 fragment offset 0, and `pad_cnt` as the builder will send it (so the parse-back comparison is exact).
fn job(rng: &mut Rng, op: u8, l3: u64, vlan: bool, len: usize) -> (RoceHeader, Vec<u8>) {
    let mut h = random_header(rng, op, l3, vlan, len);
    h.udp_dport = 4791.into();
    // proto (like any receiver) reads a non-zero fragment offset as a non-first IP fragment
    h.ip_frag = (h.ip_frag.to_u64() & 0xE000).into();
    h.pad_cnt = (((4 - len % 4) % 4) as u64).into();
    (h, rng.bytes(len))
}

fn check(jobs: &[(RoceHeader, Vec<u8>)], t: Timing, seed: u64) {
    let mut b = Bench::new(TxHeaderBuilder::default(), |u| &mut u.clock);
    let mut rng = Rng::new(seed);
    let r = run_builder(&mut b, jobs, t, &mut rng);
    for (i, (h, p)) in jobs.iter().enumerate() {
        let want = h.to_frame(p).emit();
        assert!(
            r.frames[i] == want,
            "{t:?} frame {i}: op {:#x} l3 {} vlan {} len {}",
            h.opcode.to_u64(),
            h.l3.to_u64(),
            h.vlan,
            p.len()
        );
        let fr = FrameRepr::parse(&r.frames[i]).expect("proto parses the builder's frame");
        assert_eq!(fr.icrc_ok(), Some(true));
        let (h2, p2) = RoceHeader::from_frame(&fr).unwrap();
        assert_eq!(h2, h.canonical(), "parse back, frame {i}");
        assert_eq!(p2, p.as_slice(), "parse back payload, frame {i}");
    }
}

#[test]
fn tx_proto_every_opcode_l3_vlan() {
    let mut rng = Rng::new(31);
    let mut jobs = vec![];
    for op in all_opcodes() {
        for l3 in [L3_IPV4, L3_IPV6, L3_ROCEV1] {
            for vlan in [false, true] {
                let len = if no_payload(op) { 0 } else { rng.range(0, 64) };
                jobs.push(job(&mut rng, op, l3, vlan, len));
            }
        }
    }
    check(&jobs, Timing::default(), 1);
    check(
        &jobs,
        Timing {
            desc_gap: 40,
            pay_gap: 40,
            stall: 40,
        },
        2,
    );
}

#[test]
fn tx_proto_payload_0_to_4096() {
    let mut rng = Rng::new(32);
    let mut lens: Vec<usize> = (0..=64).collect();
    lens.extend([
        127, 128, 129, 511, 512, 1024, 2045, 2048, 4092, 4093, 4094, 4095, 4096,
    ]);
    let ops = [
        0x00u8, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0d, 0x0e, 0x0f,
        0x10, 0x16, 0x17, 0x24, 0x2b, 0x64, 0x65,
    ];
    let jobs: Vec<_> = lens
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            job(
                &mut rng,
                ops[i % ops.len()],
                [L3_IPV4, L3_IPV6, L3_ROCEV1][i % 3],
                i % 5 == 2,
                len,
            )
        })
        .collect();
    check(
        &jobs,
        Timing {
            desc_gap: 10,
            pay_gap: 25,
            stall: 25,
        },
        3,
    );
}

/// A payload beat taken with `pay_bad` poisons its frame: the frame is the same byte for byte
/// except the ICRC, which is complemented, so proto's ICRC check (any receiver's) fails. Frames
/// of the same run without a bad beat are untouched, and the timing does not change.
#[test]
fn tx_poisoned_payload_complements_the_icrc() {
    let mut rng = Rng::new(33);
    let ops = [0x04u8, 0x06, 0x0a, 0x10, 0x00, 0x24, 0x65];
    let mut jobs = vec![];
    let mut bad_beats = vec![];
    let mut poisoned = vec![];
    let mut beat = 0;
    for i in 0..60 {
        let len = rng.range(1, 300);
        jobs.push(job(
            &mut rng,
            ops[i % ops.len()],
            [L3_IPV4, L3_IPV6, L3_ROCEV1][i % 3],
            i % 4 == 1,
            len,
        ));
        let beats = len.div_ceil(8);
        let bad = rng.percent(40);
        if bad {
            // one bad beat anywhere in the payload, sometimes two
            bad_beats.push(beat + rng.range(0, beats - 1));
            if rng.percent(30) {
                bad_beats.push(beat + beats - 1);
            }
        }
        poisoned.push(bad);
        beat += beats;
    }
    for (seed, t) in [
        (4, Timing::default()),
        (
            5,
            Timing {
                desc_gap: 30,
                pay_gap: 30,
                stall: 30,
            },
        ),
    ] {
        let mut b = Bench::new(TxHeaderBuilder::default(), |u| &mut u.clock);
        let mut rng = Rng::new(seed);
        let r = run_builder_with_bad(&mut b, &jobs, &bad_beats, t, &mut rng);
        // the same jobs without poison take exactly as long
        let mut b2 = Bench::new(TxHeaderBuilder::default(), |u| &mut u.clock);
        let mut rng = Rng::new(seed);
        let clean = run_builder(&mut b2, &jobs, t, &mut rng);
        assert_eq!(r.frame_end_cycles, clean.frame_end_cycles, "{t:?}");
        for (i, (h, p)) in jobs.iter().enumerate() {
            let mut want = h.to_frame(p).emit();
            let fr = FrameRepr::parse(&r.frames[i]).expect("proto parses a poisoned frame");
            if poisoned[i] {
                let (_, at) = reference_icrc(&want).expect("a RoCE frame");
                for x in &mut want[at..at + 4] {
                    *x ^= 0xFF;
                }
                assert_eq!(fr.icrc_ok(), Some(false), "{t:?} frame {i}");
            } else {
                assert_eq!(fr.icrc_ok(), Some(true), "{t:?} frame {i}");
            }
            assert!(
                r.frames[i] == want,
                "{t:?} frame {i} (poisoned {})",
                poisoned[i]
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, .. ProptestConfig::default() })]
    #[test]
    fn tx_proto_proptest(
        seed in any::<u64>(),
        specs in prop::collection::vec((0usize..40, 0u64..3, any::<bool>(), 0usize..600), 1..6),
        desc_gap in 0u32..60, pay_gap in 0u32..60, stall in 0u32..60,
    ) {
        let ops = all_opcodes();
        let mut rng = Rng::new(seed);
        let jobs: Vec<_> = specs
            .iter()
            .map(|&(o, l3, vlan, len)| {
                let op = ops[o % ops.len()];
                job(&mut rng, op, l3, vlan, if no_payload(op) { 0 } else { len })
            })
            .collect();
        check(&jobs, Timing { desc_gap, pay_gap, stall }, seed ^ 0x5a5a);
    }
}
