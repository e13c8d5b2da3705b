//! RxParser on malformed traffic: truncation at every length, UDP/IP length fields too big or
//! too small, PadCnt larger than the payload, garbage, oversize frames, single-bit flips in the
//! ICRC span, zero-length payloads and minimum-size frames back to back. Every frame must end in
//! exactly the verdict of the reference model, nothing of a dropped frame may be released, the
//! parser must never hang (the harness panics after 10000 cycles without progress), and the
//! input must never be held off longer than the documented bound.
use ferroce_hdl::header::{RoceHeader, L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{check, random_roce_frame, run, unhex, FrameOpts, RxRun, Shaping};
use ferroce_hdl::rx::model::{expect, RxConfig};
use ferroce_hdl::rx::{DropReason, RxKind, RxParser64};
use ferroce_hdl::testbench::{Bench, Rng};

const HARD: usize = RxParser64::hard_max_frame();
/// Documented bound on consecutive input stall cycles with the outputs always ready.
const STALL_BOUND: u64 = RxParser64::STALL_BOUND;

const V4_SEND: &str = "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100b639e270";
const V6_WRITE: &str = "02000000000202000000000186dd66a1234500381140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0f3b334cde";
const V1_SEND: &str = "020000000002020000000001891566a12345001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe0000020410ffff000000118000010048656c6c6f20526f43452100d47caf1a";
const V4_CNP: &str = "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800008100ffff4000001200000000000000000000000000000000000000009d48499f";
const V4_ACK: &str = "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002001f000002f6b982db";
const PFC: &str = "0180c2000001020000000001880801010008000000000000ffff00000000000000000000000000000000000000000000000000000000000000000000";

fn sh_ready(sh: &Shaping) -> bool {
    sh.hdr_stall_percent == 0 && sh.pay_stall_percent == 0
}

fn go(frames: &[Vec<u8>], cfg: &RxConfig, sh: Shaping) -> RxRun {
    let mut b = Bench::new(RxParser64::default(), |u| &mut u.clock);
    let r = run(&mut b, frames, cfg, sh);
    check(frames, cfg, HARD, &r).unwrap();
    if sh_ready(&sh) {
        assert!(
            r.max_in_stall <= STALL_BOUND,
            "input stalled {} cycles",
            r.max_in_stall
        );
    }
    r
}

fn reasons(frames: &[Vec<u8>], cfg: &RxConfig) -> Vec<DropReason> {
    frames
        .iter()
        .map(|f| expect(f, cfg, HARD).verdict.reason)
        .collect()
}

fn with_vlan(f: &[u8], tci: u16) -> Vec<u8> {
    let mut g = f[..12].to_vec();
    g.extend_from_slice(&[0x81, 0x00]);
    g.extend_from_slice(&tci.to_be_bytes());
    g.extend_from_slice(&f[12..]);
    g
}

fn bases() -> Vec<Vec<u8>> {
    vec![
        unhex(V4_SEND),
        unhex(V6_WRITE),
        unhex(V1_SEND),
        unhex(V4_CNP),
        unhex(V4_ACK),
        unhex(PFC),
        with_vlan(&unhex(V4_SEND), 0x6123),
    ]
}

#[test]
fn truncation_at_every_length() {
    let cfg = RxConfig::default();
    let mut frames = vec![];
    for f in bases() {
        for n in 1..f.len() {
            frames.push(f[..n].to_vec());
        }
    }
    let r = go(
        &frames,
        &cfg,
        Shaping {
            gap_percent: 10,
            hdr_stall_percent: 10,
            pay_stall_percent: 10,
            seed: 1,
        },
    );
    // nothing accepted except Ethernet-padded frames cut inside their padding (ACK: 58 of 60
    // bytes are real; PFC: 34 of 60)
    let acc: Vec<usize> = r
        .verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| v.reason == DropReason::Accepted)
        .map(|(i, _)| frames[i].len())
        .collect();
    assert!(
        acc.iter().all(|&n| n >= 34),
        "accepted truncations: {acc:?}"
    );
    let rs = reasons(&frames, &cfg);
    assert!(rs.iter().filter(|r| **r == DropReason::Truncated).count() > frames.len() * 8 / 10);
    assert!(r
        .verdicts
        .iter()
        .all(|v| v.reason != DropReason::Truncated || !v.icrc_ok));
}

fn set16(f: &mut [u8], at: usize, v: u16) {
    f[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

#[test]
fn udp_and_ip_lengths_too_big_or_small() {
    let cfg = RxConfig::default();
    let mut frames = vec![];
    let mut want = vec![];
    for d in [
        -40i32, -24, -13, -8, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 8, 100, 40000,
    ] {
        // IPv4: UDP length alone (IP total now disagrees), and both together
        let f = unhex(V4_SEND);
        let ulen = u16::from_be_bytes([f[38], f[39]]) as i32;
        let mut g = f.clone();
        set16(&mut g, 38, (ulen + d) as u16);
        frames.push(g);
        want.push(Some(DropReason::Length));
        let mut g = f.clone();
        set16(&mut g, 38, (ulen + d) as u16);
        set16(&mut g, 16, (ulen + d + 20) as u16);
        frames.push(g);
        want.push(if d > 0 {
            Some(DropReason::Truncated)
        } else {
            None
        });
        // IPv6: UDP length alone, both
        let f = unhex(V6_WRITE);
        let ulen = u16::from_be_bytes([f[58], f[59]]) as i32;
        let mut g = f.clone();
        set16(&mut g, 58, (ulen + d) as u16);
        frames.push(g);
        want.push(Some(DropReason::Length));
        let mut g = f.clone();
        set16(&mut g, 58, (ulen + d) as u16);
        set16(&mut g, 18, (ulen + d) as u16);
        frames.push(g);
        want.push(if d > 0 {
            Some(DropReason::Truncated)
        } else {
            None
        });
        // RoCEv1 PayLen
        let f = unhex(V1_SEND);
        let pl = u16::from_be_bytes([f[18], f[19]]) as i32;
        let mut g = f.clone();
        set16(&mut g, 18, (pl + d) as u16);
        frames.push(g);
        want.push(if d > 0 {
            Some(DropReason::Truncated)
        } else {
            None
        });
    }
    let r = go(&frames, &cfg, Shaping::FULL_RATE);
    for (i, w) in want.iter().enumerate() {
        let v = r.verdicts[i];
        assert_ne!(v.reason, DropReason::Accepted, "frame {i}");
        if let Some(w) = w {
            assert_eq!(v.reason, *w, "frame {i}");
        }
    }
}

#[test]
fn padcnt_larger_than_payload_and_inconsistent() {
    let cfg = RxConfig::default();
    let mut frames = vec![];
    // ACK (no payload) with PadCnt 1..3; SEND ONLY of 11 bytes with PadCnt 0, 2, 3
    for pad in 1..4u8 {
        let mut f = unhex(V4_ACK);
        f[43] = (f[43] & 0xCF) | pad << 4;
        frames.push(f);
    }
    // zero-payload SEND ONLY claiming 3 pad bytes: PadCnt larger than what follows the headers
    let (mut h, _) = RoceHeader::parse_frame(&unhex(V4_SEND)).unwrap();
    h.payload_len = 0.into();
    let mut f = h.to_frame_bytes(&[]);
    f[43] |= 3 << 4;
    frames.push(f);
    // L_ib not a multiple of 4: one byte more inside UDP.Length and IP TotalLength, so
    // payload + PadCnt cannot be aligned whatever PadCnt says
    for pad in 0..4u8 {
        let mut f = unhex(V4_SEND);
        f[43] = (f[43] & 0xCF) | pad << 4;
        f.insert(f.len() - 4, 0);
        let n = f.len() as u16;
        set16(&mut f, 16, n - 14);
        set16(&mut f, 38, n - 34);
        frames.push(f);
    }
    let n_len = frames.len();
    // the same aligned SEND ONLY with another PadCnt is self-consistent (12, 10 or 9 bytes of
    // payload): only the ICRC (which covers the BTH byte) catches it
    for pad in [0u8, 2, 3] {
        let mut f = unhex(V4_SEND);
        f[43] = (f[43] & 0xCF) | pad << 4;
        frames.push(f);
    }
    let r = go(&frames, &cfg, Shaping::FULL_RATE);
    for (i, v) in r.verdicts.iter().enumerate() {
        let want = if i < n_len {
            DropReason::Length
        } else {
            DropReason::BadIcrc
        };
        assert_eq!(v.reason, want, "frame {i}");
    }
}

#[test]
fn garbage_frames() {
    let cfg = RxConfig {
        promisc: true,
        ..RxConfig::default()
    };
    let mut rng = Rng::new(3);
    let mut frames = vec![];
    for i in 0..150 {
        let n = rng.range(1, 200);
        let mut f = rng.bytes(n);
        if i % 3 == 1 && n > 14 {
            // plausible Ethernet + L3 type so the parser goes deeper
            let et: [u16; 5] = [0x0800, 0x86dd, 0x8915, 0x8808, 0x8100];
            set16(&mut f, 12, et[rng.below(5) as usize]);
            if n > 24 && rng.percent(50) {
                f[14] = 0x45;
                f[23] = 17;
                if n > 38 {
                    set16(&mut f, 36, 4791);
                }
            }
        }
        frames.push(f);
    }
    let r = go(
        &frames,
        &cfg,
        Shaping {
            gap_percent: 20,
            hdr_stall_percent: 20,
            pay_stall_percent: 20,
            seed: 4,
        },
    );
    assert_eq!(r.verdicts.len(), frames.len());
}

#[test]
fn oversize_frames() {
    let mut rng = Rng::new(8);
    let opts = FrameOpts {
        max_payload: 1024,
        ..Default::default()
    };
    let mut frames = vec![];
    for op in [0x04u8, 0x0a, 0x10, 0x01] {
        for l3 in [L3_IPV4, L3_IPV6] {
            frames.push(random_roce_frame(&mut rng, op, l3, &opts));
        }
    }
    // a jumbo garbage frame longer than the hard limit, then a good frame
    let mut jumbo = unhex(V4_SEND);
    jumbo.resize(HARD + 100, 0xAB);
    frames.push(jumbo);
    frames.push(unhex(V4_SEND));
    let cfg = RxConfig {
        max_frame: 300,
        ..RxConfig::default()
    };
    let r = go(
        &frames,
        &cfg,
        Shaping {
            gap_percent: 5,
            hdr_stall_percent: 5,
            pay_stall_percent: 5,
            seed: 2,
        },
    );
    for (i, f) in frames.iter().enumerate() {
        let want = if f.len() > 300 {
            DropReason::Oversize
        } else {
            DropReason::Accepted
        };
        assert_eq!(r.verdicts[i].reason, want, "frame {i} ({} bytes)", f.len());
    }
    assert!(r.counters[DropReason::Oversize.code() as usize] >= 1);
}

#[test]
fn single_bit_flips_in_the_icrc_span() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(17);
    let opts = FrameOpts {
        max_payload: 200,
        vlan_percent: 30,
        ..Default::default()
    };
    let mut frames = vec![];
    let mut payload_region = vec![];
    for i in 0..120 {
        let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][i % 3];
        let op = [0x04u8, 0x0a, 0x05, 0x10, 0x11, 0x13, 0x64, 0x81, 0x24][i % 9];
        let mut f = random_roce_frame(&mut rng, op, l3, &opts);
        let (h, _) = RoceHeader::parse_frame(&f).unwrap();
        let l3s = h.eth_len();
        let end = h.header_len() + h.payload_len.index() + h.tx_pad() + 4;
        let p = rng.range(l3s, end - 1);
        f[p] ^= 1 << rng.below(8);
        // flips after the BTH's first two bytes (ext headers, payload, pad, ICRC) change no
        // length and no opcode: they must be bad_icrc
        payload_region.push(p >= l3s + h.l3_len() + 2 && p != l3s + h.l3_len() + 4);
        frames.push(f);
    }
    let r = go(
        &frames,
        &cfg,
        Shaping {
            gap_percent: 10,
            hdr_stall_percent: 10,
            pay_stall_percent: 10,
            seed: 5,
        },
    );
    for (i, v) in r.verdicts.iter().enumerate() {
        if payload_region[i] {
            assert_eq!(v.reason, DropReason::BadIcrc, "frame {i}");
            assert!(!v.icrc_ok);
        }
    }
    let n_bad = r
        .verdicts
        .iter()
        .filter(|v| v.reason == DropReason::BadIcrc)
        .count();
    assert!(n_bad > 80, "{n_bad} bad_icrc");
    // nothing but the (masked-field) survivors released
    let acc = r
        .verdicts
        .iter()
        .filter(|v| v.reason == DropReason::Accepted)
        .count();
    assert_eq!(r.releases.len(), acc);
}

#[test]
fn min_frames_and_empty_payloads_back_to_back_at_full_rate() {
    let cfg = RxConfig::default();
    let mut rng = Rng::new(23);
    let opts = FrameOpts {
        max_payload: 0,
        vlan_percent: 0,
        ..Default::default()
    };
    let mut frames = vec![];
    for i in 0..60 {
        let f = match i % 4 {
            0 => unhex(V4_ACK),
            1 => unhex(V4_CNP),
            2 => unhex(PFC),
            _ => random_roce_frame(&mut rng, 0x04, L3_IPV4, &opts),
        };
        frames.push(f);
    }
    let r = go(&frames, &cfg, Shaping::FULL_RATE);
    let beats: u64 = frames.iter().map(|f| f.len().div_ceil(8) as u64).sum();
    assert_eq!(r.last_in_cycle, beats, "not full rate");
    assert_eq!(r.max_in_stall, 0);
    assert!(r.verdicts.iter().all(|v| v.reason == DropReason::Accepted));
    assert_eq!(
        r.verdicts.iter().filter(|v| v.kind == RxKind::Pfc).count(),
        15
    );
}

#[test]
fn mac_filtering() {
    let frames = bases();
    let cfg = RxConfig {
        mac: 0x0200_0000_0099,
        promisc: false,
        ..RxConfig::default()
    };
    let r = go(&frames, &cfg, Shaping::FULL_RATE);
    for (i, v) in r.verdicts.iter().enumerate() {
        // PFC is addressed to 01:80:C2:00:00:01 and stays accepted
        let want = if i == 5 {
            DropReason::Accepted
        } else {
            DropReason::MacMismatch
        };
        assert_eq!(v.reason, want, "frame {i}");
    }
}

#[test]
fn unsupported_and_bad_opcodes() {
    let cfg = RxConfig::default();
    let mut frames = vec![];
    let base = unhex(V4_SEND);
    // UDP port 4792, IPv4 options (IHL 6), fragment (MF), protocol TCP, ARP, PAUSE (0x0001)
    let mut f = base.clone();
    set16(&mut f, 36, 4792);
    frames.push(f);
    let mut f = base.clone();
    f[14] = 0x46;
    frames.push(f);
    let mut f = base.clone();
    set16(&mut f, 20, 0x2000);
    frames.push(f);
    let mut f = base.clone();
    f[23] = 6;
    frames.push(f);
    let mut f = base.clone();
    set16(&mut f, 12, 0x0806);
    frames.push(f);
    let mut f = unhex(PFC);
    set16(&mut f, 14, 0x0001);
    frames.push(f);
    let unsupported = frames.len();
    // opcodes: RD, reserved RC 0x15, UC 0x2C, UD 0x66, CNP 0x80, manufacturer 0xE0
    for op in [0x40u8, 0x15, 0x2c, 0x66, 0x80, 0xe0] {
        let mut f = base.clone();
        f[42] = op;
        frames.push(f);
    }
    let r = go(&frames, &cfg, Shaping::FULL_RATE);
    for (i, v) in r.verdicts.iter().enumerate() {
        if i < unsupported {
            assert_eq!(
                (v.kind, v.reason),
                (RxKind::Other, DropReason::Unsupported),
                "frame {i}"
            );
        } else {
            assert_eq!(
                (v.kind, v.reason),
                (RxKind::RoceV2Ipv4, DropReason::BadOpcode),
                "frame {i}"
            );
        }
    }
}
