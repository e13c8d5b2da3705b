//! RxParser on the published vectors: docs/PROTOCOL.md §11 (all 15), §3.2 (the real ConnectX-4 Lx
//! CNP) and 6.5 (PFC). Each gives the right kind, fields and a good ICRC; each is also checked with
//! its ICRC corrupted, back to back, and against the reference model.
use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::rx::harness::{check, run, unhex, Shaping};
use ferroce_hdl::rx::model::{RxConfig, RxRelease};
use ferroce_hdl::rx::{DropReason, RxKind, RxParser64};
use ferroce_hdl::testbench::Bench;

/// The published vectors, docs/PROTOCOL.md §11 (Ethernet frames without FCS).
const ROCE_MD_3_3: &[(&str, RxKind, &str)] = &[
    ("v4_rc_send_only", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100b639e270"),
    ("v4_rc_rdma_write_only", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a004c123440004011a4afc0a80101c0a80102c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0ff4f628d2"),
    ("v4_rc_send_only_imm", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0034123440004011a4c7c0a80101c0a80102c00112b7002000000510ffff0000001180000101deadbeef61626300ef1195d9"),
    ("v4_rc_rdma_read_req", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800000c00ffff000000128000030000007f000000200000001234000010003611d66d"),
    ("v4_rc_read_resp_only", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800001020ffff00000034000003001f000005a5a5a5a5a5a5a5a5a5a50000a38b363f"),
    ("v4_rc_ack", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002001f000002f6b982db"),
    ("v4_rc_nak_psn_seq", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff0000003400000205600000024c863e20"),
    ("v4_rc_rnr_nak", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002062e00000292d3551c"),
    ("v4_rc_cmp_swap", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0048123440004011a4b3c0a80101c0a80102c00112b7003400001300ffff000000128000040000007f00000030000000123411111111111111110000000000000000f6621415"),
    ("v4_rc_atomic_ack", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400001200ffff00000034000004001f0000070000000000000000f6d2252f"),
    ("v4_cnp", RxKind::Cnp, "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800008100ffff4000001200000000000000000000000000000000000000009d48499f"),
    ("v6_rc_send_only", RxKind::RoceV2Ipv6, "02000000000202000000000186dd66a1234500241140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100d8aedc99"),
    ("v6_rc_rdma_write_only", RxKind::RoceV2Ipv6, "02000000000202000000000186dd66a1234500381140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0f3b334cde"),
    ("v4_ud_send_only", RxKind::RoceV2Ipv4, "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800006420ffff0000003300000005111111110000002255446d7367210000021d59ea"),
    ("rocev1_rc_send_only", RxKind::RoceV1, "020000000002020000000001891566a12345001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe0000020410ffff000000118000010048656c6c6f20526f43452100d47caf1a"),
];

/// docs/PROTOCOL.md §3.2: the real ConnectX-4 Lx CNP (DestQP 0x118, ICRC 82fd002a).
const CX4_CNP: &str = "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b7002800008100ffff40000118000000000000000000000000000000000000000082fd002a";

/// IEEE 802.1Qbb (docs/PROTOCOL.md §12): PFC pause for priority 3, 0xFFFF quanta.
const PFC: &str = "0180c2000001020000000001880801010008000000000000ffff00000000000000000000000000000000000000000000000000000000000000000000";

fn bench() -> Bench<RxParser64> {
    Bench::new(RxParser64::default(), |u| &mut u.clock)
}

fn cfg() -> RxConfig {
    RxConfig {
        promisc: true,
        ..RxConfig::default()
    }
}

#[test]
fn roce_md_vectors_accepted_with_exact_fields() {
    let mut frames: Vec<Vec<u8>> = ROCE_MD_3_3.iter().map(|v| unhex(v.2)).collect();
    frames.push(unhex(CX4_CNP));
    frames.push(unhex(PFC));
    let mut b = bench();
    let r = run(&mut b, &frames, &cfg(), Shaping::FULL_RATE);
    check(&frames, &cfg(), RxParser64::hard_max_frame(), &r).unwrap();
    // kinds and ICRC
    for (i, (name, kind, _)) in ROCE_MD_3_3.iter().enumerate() {
        let v = &r.verdicts[i];
        assert_eq!(
            (v.kind, v.reason, v.icrc_ok),
            (*kind, DropReason::Accepted, true),
            "{name}"
        );
    }
    let n = ROCE_MD_3_3.len();
    assert_eq!(
        (
            r.verdicts[n].kind,
            r.verdicts[n].reason,
            r.verdicts[n].icrc_ok
        ),
        (RxKind::Cnp, DropReason::Accepted, true)
    );
    assert_eq!(
        (r.verdicts[n + 1].kind, r.verdicts[n + 1].reason),
        (RxKind::Pfc, DropReason::Accepted)
    );
    // descriptors equal the shared plain-Rust parser, payloads exact
    let mut rel = r.releases.iter();
    for f in &frames[..n + 1] {
        let (h, p) = RoceHeader::parse_frame(f).unwrap();
        assert_eq!(rel.next().unwrap(), &RxRelease::Roce { hdr: h, payload: p });
    }
    // spot checks of fields straight from the vectors' descriptions
    let RxRelease::Roce { hdr, payload } = &r.releases[0] else {
        panic!()
    };
    assert_eq!(
        (
            hdr.opcode.index(),
            hdr.dest_qp.index(),
            hdr.psn.index(),
            hdr.ack_req
        ),
        (0x04, 0x11, 0x100, true)
    );
    assert_eq!(payload, b"Hello RoCE!");
    let RxRelease::Roce { hdr, .. } = &r.releases[1] else {
        panic!()
    };
    assert_eq!(
        (hdr.va.to_u64(), hdr.rkey.index(), hdr.dma_len.index()),
        (0x7f00_0000_1000, 0x1234, 16)
    );
    let RxRelease::Roce { hdr, .. } = &r.releases[2] else {
        panic!()
    };
    assert_eq!(hdr.imm.to_u64(), 0xdead_beef);
    let RxRelease::Roce { hdr, .. } = &r.releases[7] else {
        panic!()
    };
    assert_eq!((hdr.aeth_syndrome.index(), hdr.aeth_msn.index()), (0x2e, 2));
    let RxRelease::Roce { hdr, .. } = &r.releases[8] else {
        panic!()
    };
    assert_eq!(
        (hdr.swap_add.to_u64(), hdr.compare.to_u64()),
        (0x1111_1111_1111_1111, 0)
    );
    let RxRelease::Roce { hdr, .. } = &r.releases[10] else {
        panic!()
    };
    assert_eq!(
        (hdr.opcode.index(), hdr.dest_qp.index(), hdr.becn),
        (0x81, 0x12, true)
    );
    let RxRelease::Roce { hdr, .. } = &r.releases[13] else {
        panic!()
    };
    assert_eq!(
        (hdr.deth_qkey.to_u64(), hdr.deth_src_qp.index()),
        (0x1111_1111, 0x22)
    );
    let RxRelease::Roce { hdr, .. } = &r.releases[n] else {
        panic!()
    };
    assert_eq!(
        (
            hdr.dest_qp.index(),
            hdr.udp_sport.index(),
            hdr.tclass.index()
        ),
        (0x118, 0, 0xc2)
    );
    assert_eq!(
        r.releases[n + 1],
        RxRelease::Pfc {
            enable: 0x08,
            times: [0, 0, 0, 0xffff, 0, 0, 0, 0]
        }
    );
    assert_eq!(r.counters[0] as usize, frames.len());
    // latency: last input beat -> verdict pulse, and -> descriptor offered (outputs ready)
    let lat_v: Vec<u64> = r
        .verdict_cycles
        .iter()
        .zip(&r.frame_end_cycles)
        .map(|(v, e)| v - e)
        .collect();
    eprintln!("latency last beat -> verdict: {:?} cycles", lat_v);
    let first_hdr = r.hdr_cycles[0] - r.frame_end_cycles[0];
    eprintln!("latency last beat -> first descriptor taken: {first_hdr} cycles");
    assert!(
        lat_v.iter().all(|&l| l == lat_v[0]),
        "constant verdict latency"
    );
}

#[test]
fn roce_md_vectors_with_bad_icrc_are_dropped() {
    let frames: Vec<Vec<u8>> = ROCE_MD_3_3
        .iter()
        .map(|v| {
            let mut f = unhex(v.2);
            let n = f.len();
            f[n - 1] ^= 0x01;
            f
        })
        .collect();
    let mut b = bench();
    let r = run(&mut b, &frames, &cfg(), Shaping::FULL_RATE);
    check(&frames, &cfg(), RxParser64::hard_max_frame(), &r).unwrap();
    assert!(r
        .verdicts
        .iter()
        .all(|v| v.reason == DropReason::BadIcrc && !v.icrc_ok));
    assert!(r.releases.is_empty());
    assert_eq!(
        r.counters[DropReason::BadIcrc.code() as usize] as usize,
        frames.len()
    );
}
