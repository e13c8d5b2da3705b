//! ICRC against the published vectors (docs/PROTOCOL.md §11 and §3.2: the real ConnectX-4 Lx
//! CNP). The hex is embedded so these tests need no files.
//!
//! Each frame is Ethernet without FCS: `l3` is sliced by hand as "after the 14-byte Ethernet
//! header, before the last 4 bytes (the ICRC)".

use ferroce_proto::icrc::{self, IcrcNet, ICRC_LEN};

const ETH_LEN: usize = 14;

/// (name, frame hex, ICRC as published with the vectors: the 4 wire bytes in order).
const VECTORS: &[(&str, &str, &str)] = &[
    (
        "v4_rc_send_only",
        "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100b639e270",
        "b639e270",
    ),
    (
        "v4_rc_rdma_write_only",
        "0200000000020200000000010800456a004c123440004011a4afc0a80101c0a80102c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0ff4f628d2",
        "f4f628d2",
    ),
    (
        "v4_rc_send_only_imm",
        "0200000000020200000000010800456a0034123440004011a4c7c0a80101c0a80102c00112b7002000000510ffff0000001180000101deadbeef61626300ef1195d9",
        "ef1195d9",
    ),
    (
        "v4_rc_rdma_read_req",
        "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800000c00ffff000000128000030000007f000000200000001234000010003611d66d",
        "3611d66d",
    ),
    (
        "v4_rc_read_resp_only",
        "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800001020ffff00000034000003001f000005a5a5a5a5a5a5a5a5a5a50000a38b363f",
        "a38b363f",
    ),
    (
        "v4_rc_ack",
        "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002001f000002f6b982db",
        "f6b982db",
    ),
    (
        "v4_rc_nak_psn_seq",
        "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff0000003400000205600000024c863e20",
        "4c863e20",
    ),
    (
        "v4_rc_rnr_nak",
        "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002062e00000292d3551c",
        "92d3551c",
    ),
    (
        "v4_rc_cmp_swap",
        "0200000000020200000000010800456a0048123440004011a4b3c0a80101c0a80102c00112b7003400001300ffff000000128000040000007f00000030000000123411111111111111110000000000000000f6621415",
        "f6621415",
    ),
    (
        "v4_rc_atomic_ack",
        "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400001200ffff00000034000004001f0000070000000000000000f6d2252f",
        "f6d2252f",
    ),
    (
        "v4_cnp",
        "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800008100ffff4000001200000000000000000000000000000000000000009d48499f",
        "9d48499f",
    ),
    (
        "v6_rc_send_only",
        "02000000000202000000000186dd66a1234500241140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100d8aedc99",
        "d8aedc99",
    ),
    (
        "v6_rc_rdma_write_only",
        "02000000000202000000000186dd66a1234500381140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0f3b334cde",
        "3b334cde",
    ),
    (
        "v4_ud_send_only",
        "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800006420ffff0000003300000005111111110000002255446d7367210000021d59ea",
        "021d59ea",
    ),
    (
        "rocev1_rc_send_only",
        "020000000002020000000001891566a12345001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe0000020410ffff000000118000010048656c6c6f20526f43452100d47caf1a",
        "d47caf1a",
    ),
    (
        // docs/PROTOCOL.md §3.2: a CNP captured from a real ConnectX-4 Lx (TOS 0xC2, UDP sport 0).
        "cx4lx_cnp",
        "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b7002800008100ffff40000118000000000000000000000000000000000000000082fd002a",
        "82fd002a",
    ),
];

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The ICRC flavour from the EtherType.
fn net_of(frame: &[u8]) -> IcrcNet {
    match u16::from_be_bytes([frame[12], frame[13]]) {
        0x0800 => IcrcNet::Ipv4,
        0x86DD => IcrcNet::Ipv6,
        0x8915 => IcrcNet::RoceV1,
        t => panic!("unexpected EtherType {t:#06x}"),
    }
}

#[test]
fn published_vectors() {
    for (name, frame_hex, icrc_hex) in VECTORS {
        let frame = hex(frame_hex);
        let net = net_of(&frame);
        let split = frame.len() - ICRC_LEN;
        let l3 = &frame[ETH_LEN..split];
        let wire = hex(icrc_hex);
        assert_eq!(
            &frame[split..],
            wire.as_slice(),
            "{name}: frame does not end with its ICRC"
        );

        let crc = icrc::compute(net, l3);
        assert_eq!(
            crc.to_le_bytes().as_slice(),
            wire.as_slice(),
            "{name}: computed {crc:#010x}"
        );
        assert!(icrc::verify(net, &frame[ETH_LEN..]), "{name}: verify");
    }
}

/// docs/PROTOCOL.md §11 worked example: v4_rc_send_only has ICRC 0x70E239B6 (zlib value), wire b6
/// 39 e2 70.
#[test]
fn worked_example_value() {
    let frame = hex(VECTORS[0].1);
    let l3 = &frame[ETH_LEN..frame.len() - ICRC_LEN];
    assert_eq!(l3.len() + 8, 60, "pseudo-packet is 60 bytes");
    assert_eq!(icrc::compute(IcrcNet::Ipv4, l3), 0x70E2_39B6);
}

/// A corrupted ICRC, or corrupted data, fails verification.
#[test]
fn verify_rejects_corruption() {
    for (name, frame_hex, _) in VECTORS {
        let frame = hex(frame_hex);
        let net = net_of(&frame);
        let mut bad = frame[ETH_LEN..].to_vec();
        let last = bad.len() - 1;
        bad[last] ^= 0x01;
        assert!(!icrc::verify(net, &bad), "{name}: bad ICRC accepted");

        let mut bad = frame[ETH_LEN..].to_vec();
        let payload = bad.len() - ICRC_LEN - 1;
        bad[payload] ^= 0x80;
        assert!(
            !icrc::verify(net, &bad),
            "{name}: corrupted payload accepted"
        );
    }
}

/// Using the wrong network flavour gives a different (wrong) ICRC: the masks matter.
#[test]
fn wrong_flavour_fails() {
    let frame = hex(VECTORS[0].1);
    assert!(!icrc::verify(IcrcNet::Ipv6, &frame[ETH_LEN..]));
    assert!(!icrc::verify(IcrcNet::RoceV1, &frame[ETH_LEN..]));
}
