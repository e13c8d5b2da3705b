//! ICRC blocks against the software reference: the published vectors (docs/PROTOCOL.md §11), random
//! frames of every kind (IPv4/IPv6/RoCEv1, with and without 802.1Q), single-bit corruption,
//! masked-field changes, truncation, back-to-back frames at full rate, random valid/ready gaps.
use ferroce_hdl::icrc::drive::{run_checker, run_generator, Verdict};
use ferroce_hdl::icrc::*;
use ferroce_hdl::testbench::*;

const VECTORS: &[(&str, &str)] = &[
    ("v4_rc_send_only", "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100b639e270"),
    ("v4_rc_rdma_write_only", "0200000000020200000000010800456a004c123440004011a4afc0a80101c0a80102c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0ff4f628d2"),
    ("v4_rc_send_only_imm", "0200000000020200000000010800456a0034123440004011a4c7c0a80101c0a80102c00112b7002000000510ffff0000001180000101deadbeef61626300ef1195d9"),
    ("v4_rc_ack", "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002001f000002f6b982db"),
    ("v4_cnp", "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800008100ffff4000001200000000000000000000000000000000000000009d48499f"),
    ("v6_rc_send_only", "02000000000202000000000186dd66a1234500241140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100d8aedc99"),
    ("v6_rc_rdma_write_only", "02000000000202000000000186dd66a1234500381140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0f3b334cde"),
    ("v4_ud_send_only", "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800006420ffff0000003300000005111111110000002255446d7367210000021d59ea"),
    ("rocev1_rc_send_only", "020000000002020000000001891566a12345001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe0000020410ffff000000118000010048656c6c6f20526f43452100d47caf1a"),
];

fn checker() -> Bench<IcrcChecker64> {
    Bench::new(IcrcChecker64::default(), |u| &mut u.clock)
}
fn generator() -> Bench<IcrcGenerator64> {
    Bench::new(IcrcGenerator64::default(), |u| &mut u.clock)
}
const GOOD: Verdict = Verdict {
    ok: true,
    not_roce: false,
    truncated: false,
};

/// Add an 802.1Q tag after the MAC addresses.
fn tagged(f: &[u8]) -> Vec<u8> {
    let mut v = f[..12].to_vec();
    v.extend_from_slice(&[0x81, 0x00, 0x20, 0x05]);
    v.extend_from_slice(&f[12..]);
    v
}

fn vectors() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = VECTORS.iter().map(|(_, h)| hex(h)).collect();
    let t: Vec<Vec<u8>> = v.iter().map(|f| tagged(f)).collect();
    v.extend(t);
    // the same frames padded to 60 bytes + a fake FCS
    let p: Vec<Vec<u8>> = v
        .iter()
        .map(|f| {
            let mut g = f.clone();
            while g.len() < 60 {
                g.push(0);
            }
            g.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
            g
        })
        .collect();
    v.extend(p);
    v
}

#[test]
fn reference_matches_roce_md_vectors() {
    for (name, h) in VECTORS {
        let f = hex(h);
        let (icrc, at) = reference_icrc(&f).unwrap_or_else(|| panic!("{name}: not parsed"));
        assert_eq!(at, f.len() - 4, "{name}");
        assert_eq!(&icrc.to_le_bytes()[..], &f[at..], "{name}");
        let (icrc2, _) = reference_icrc(&tagged(&f)).unwrap();
        assert_eq!(icrc, icrc2, "{name} with VLAN");
    }
}

#[test]
fn checker_accepts_vectors_back_to_back() {
    let frames = vectors();
    let mut b = checker();
    let mut rng = Rng::new(1);
    let (v, out, cycles) = run_checker(&mut b, &frames, 0, 0, &mut rng);
    assert!(v.iter().all(|x| *x == GOOD), "{v:?}");
    assert_eq!(out, frames);
    let beats: usize = frames.iter().map(|f| f.len().div_ceil(8)).sum();
    // full rate: one beat per cycle, plus the verdict latency of the last frame (the ICRC
    // front is pipelined in three stages to close timing, the verdict is registered)
    assert_eq!(cycles as usize, beats + IcrcChecker64::LATENCY);
}

#[test]
fn generator_fills_vectors_back_to_back() {
    let good = vectors();
    let blank: Vec<Vec<u8>> = good
        .iter()
        .map(|f| {
            let (_, at) = reference_icrc(f).unwrap();
            let mut g = f.clone();
            g[at..at + 4].copy_from_slice(&[0, 0, 0, 0]);
            g
        })
        .collect();
    let mut b = generator();
    let mut rng = Rng::new(2);
    let (out, cycles) = run_generator(&mut b, &blank, 0, 0, &mut rng);
    assert_eq!(out, good);
    let beats: usize = good.iter().map(|f| f.len().div_ceil(8)).sum();
    // full rate (no bubbles), plus the latency of the last beat through the pipelined front,
    // the patch stages and the output FIFO
    assert_eq!(
        cycles as usize,
        beats + IcrcGenerator64::LATENCY,
        "latency {}, no bubbles",
        IcrcGenerator64::LATENCY
    );
}

#[test]
fn checker_random_frames_with_corruption_and_gaps() {
    let mut rng = Rng::new(0xC0FFEE);
    let mut b = checker();
    for round in 0..6 {
        let (gap, stall) = [(0, 0), (30, 0), (0, 30), (25, 25), (0, 0), (50, 10)][round];
        let mut frames = vec![];
        let mut expect = vec![];
        for _ in 0..40 {
            let (mut f, at) = random_roce_frame(&mut rng, FrameOpts::default());
            let l3 = if f[12] == 0x81 { 18 } else { 14 };
            match rng.below(6) {
                // a flip anywhere in the covered span or the ICRC
                0 | 1 => {
                    let p = rng.range(l3, at + 3);
                    f[p] ^= 1u8 << rng.below(8);
                }
                // a flip in the Ethernet header (not the EtherType) or the trailer
                2 => {
                    let p = if rng.percent(50) || f.len() == at + 4 {
                        rng.range(0, 11)
                    } else {
                        rng.range(at + 4, f.len() - 1)
                    };
                    f[p] ^= 1 << rng.below(8);
                }
                3 => f.truncate(rng.range(1, at + 3)),
                4 => {
                    f[12] = 0x08;
                    f[13] = 0x06;
                }
                _ => {}
            }
            let v = expected(&f);
            frames.push(f);
            expect.push(v);
        }
        let (got, out, _) = run_checker(&mut b, &frames, gap, stall, &mut rng);
        assert_eq!(out, frames, "pass-through");
        assert_eq!(got, expect, "round {round}");
        let bad = expect.iter().filter(|v| !v.ok).count();
        assert!(bad > 5 && bad < 35, "round {round}: {bad} bad frames of 40");
    }
}

/// What the checker must say, from the software reference alone.
fn expected(f: &[u8]) -> Verdict {
    let et = |i: usize| {
        if f.len() >= i + 2 {
            Some(u16::from_be_bytes([f[i], f[i + 1]]))
        } else {
            None
        }
    };
    let l3_et = match et(12) {
        Some(0x8100) => et(16),
        x => x,
    };
    let roce = matches!(l3_et, Some(0x0800 | 0x86DD | 0x8915));
    if !roce {
        return Verdict {
            ok: false,
            not_roce: true,
            truncated: false,
        };
    }
    match reference_icrc(f) {
        None => Verdict {
            ok: false,
            not_roce: false,
            truncated: true,
        },
        Some((icrc, at)) => Verdict {
            ok: f[at..at + 4] == icrc.to_le_bytes(),
            not_roce: false,
            truncated: false,
        },
    }
}

#[test]
fn checker_masked_fields_do_not_matter() {
    let mut rng = Rng::new(5);
    let mut frames = vec![];
    for kind in [KIND_IPV4, KIND_IPV6, KIND_ROCEV1] {
        for vlan in [false, true] {
            let (mut f, _) = random_roce_frame(
                &mut rng,
                FrameOpts {
                    kind,
                    vlan: Some(vlan),
                    ..Default::default()
                },
            );
            let l3 = l3_start(vlan);
            for rel in 0..60 {
                let m = variant_or(kind, rel);
                if m != 0 {
                    f[l3 + rel] ^= m & (rng.next_u64() as u8 | 1);
                }
            }
            frames.push(f);
        }
    }
    let (v, _, _) = run_checker(&mut checker(), &frames, 0, 0, &mut rng);
    assert!(v.iter().all(|x| *x == GOOD), "{v:?}");
}

#[test]
fn generator_random_frames_with_gaps() {
    let mut rng = Rng::new(77);
    let mut b = generator();
    for (gap, stall) in [(0, 0), (30, 0), (0, 30), (40, 40)] {
        let mut good = vec![];
        let mut blank = vec![];
        for i in 0..40 {
            let (mut f, at) = random_roce_frame(&mut rng, FrameOpts::default());
            // the placeholder's content is XORed into the ICRC: zeros give the ICRC, ones its
            // complement (a poisoned frame), anything else that XOR
            let ph = match i % 5 {
                0 => vec![0; 4],
                1 => vec![0xFF; 4],
                _ => rng.bytes(4),
            };
            let mut g = f.clone();
            g[at..at + 4].copy_from_slice(&ph);
            if i % 7 == 3 {
                // not RoCE: passes unchanged
                g[12] = 0x08;
                g[13] = 0x06;
                good.push(g.clone());
            } else {
                for k in 0..4 {
                    f[at + k] ^= ph[k];
                }
                good.push(f);
            }
            blank.push(g);
        }
        let (out, _) = run_generator(&mut b, &blank, gap, stall, &mut rng);
        assert_eq!(out.len(), good.len());
        for (i, (o, g)) in out.iter().zip(&good).enumerate() {
            assert_eq!(o, g, "gap {gap} stall {stall} frame {i}");
        }
    }
}

/// rust-hdl simulation speed of the checker, full rate (run with --nocapture to see it).
#[test]
fn checker_sim_speed() {
    let mut rng = Rng::new(9);
    let frames: Vec<Vec<u8>> = (0..60)
        .map(|_| {
            random_roce_frame(
                &mut rng,
                FrameOpts {
                    max_payload: 1000,
                    ..Default::default()
                },
            )
            .0
        })
        .collect();
    let mut b = checker();
    let t = std::time::Instant::now();
    let (v, _, cycles) = run_checker(&mut b, &frames, 0, 0, &mut rng);
    let dt = t.elapsed().as_secs_f64();
    assert!(v.iter().all(|x| x.ok));
    eprintln!(
        "rust-hdl IcrcChecker64: {cycles} cycles in {dt:.3} s = {:.0} cycles/s",
        cycles as f64 / dt
    );
}

/// The hardware's software reference (`reference_icrc`, which the tests above use) agrees with
/// the project's single source of truth, `ferroce_proto::icrc::compute`, on random frames.
#[test]
fn reference_agrees_with_proto() {
    use ferroce_proto::icrc::{compute, IcrcNet};
    let mut rng = Rng::new(99);
    for i in 0..3000 {
        let (f, at) = random_roce_frame(
            &mut rng,
            FrameOpts {
                max_payload: 300,
                ..Default::default()
            },
        );
        let vlan = f[12] == 0x81;
        let l3 = l3_start(vlan);
        let et = u16::from_be_bytes([f[l3 - 2], f[l3 - 1]]);
        let net = match et {
            0x0800 => IcrcNet::Ipv4,
            0x86DD => IcrcNet::Ipv6,
            _ => IcrcNet::RoceV1,
        };
        let (mine, at2) = reference_icrc(&f).unwrap();
        assert_eq!(at, at2);
        assert_eq!(mine, compute(net, &f[l3..at]), "frame {i}: {f:02x?}");
    }
    for (name, h) in VECTORS {
        let f = hex(h);
        let net = match u16::from_be_bytes([f[12], f[13]]) {
            0x0800 => IcrcNet::Ipv4,
            0x86DD => IcrcNet::Ipv6,
            _ => IcrcNet::RoceV1,
        };
        assert_eq!(
            reference_icrc(&f).unwrap().0,
            compute(net, &f[14..f.len() - 4]),
            "{name}"
        );
    }
}

/// The blocks are width-generic: the 512-bit profile (64 bytes per beat, whole header in beat
/// 0, ICRC often straddling two beats) passes the same checks in rust-hdl simulation.
#[test]
fn profile_512_checker_and_generator() {
    let mut rng = Rng::new(512);
    let mut good = vectors();
    for _ in 0..20 {
        good.push(
            random_roce_frame(
                &mut rng,
                FrameOpts {
                    max_payload: 300,
                    max_trailer: 70,
                    ..Default::default()
                },
            )
            .0,
        );
    }
    let mut c = Bench::new(IcrcChecker::<512, 64>::default(), |u| &mut u.clock);
    let (v, out, _) = run_checker(&mut c, &good, 10, 10, &mut rng);
    assert!(v.iter().all(|x| *x == GOOD), "{v:?}");
    assert_eq!(out, good);
    let blank: Vec<Vec<u8>> = good
        .iter()
        .map(|f| {
            let (_, at) = reference_icrc(f).unwrap();
            let mut g = f.clone();
            g[at..at + 4].copy_from_slice(&[0; 4]);
            g
        })
        .collect();
    let mut g = Bench::new(IcrcGenerator::<512, 64>::default(), |u| &mut u.clock);
    let (out, _) = run_generator(&mut g, &blank, 10, 10, &mut rng);
    assert_eq!(out, good);
}
