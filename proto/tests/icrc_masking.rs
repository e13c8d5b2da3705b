//! ICRC masking: the fields switches may rewrite do not change the ICRC, every other bit does.

use ferroce_proto::icrc::{self, IcrcNet};
use proptest::prelude::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// `l3` (IPv4 header .. pad, no ICRC) of the published vector v4_rc_send_only.
fn v4_l3() -> Vec<u8> {
    hex("456a0038123440004011a4c3c0a80101c0a80102c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100")
}

/// `l3` of v6_rc_send_only.
fn v6_l3() -> Vec<u8> {
    hex("66a1234500241140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100")
}

/// `l3` of rocev1_rc_send_only (GRH, BTH, payload).
fn v1_l3() -> Vec<u8> {
    hex("66a12345001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe0000020410ffff000000118000010048656c6c6f20526f43452100")
}

/// Bit masks of the masked (variant) bits in the first bytes of `l3`, per flavour:
/// (byte offset, bit mask).
fn masked_bits(net: IcrcNet) -> Vec<(usize, u8)> {
    match net {
        // TOS, TTL, IP checksum, UDP checksum, BTH byte 4.
        IcrcNet::Ipv4 => vec![
            (1, 0xFF),
            (8, 0xFF),
            (10, 0xFF),
            (11, 0xFF),
            (26, 0xFF),
            (27, 0xFF),
            (32, 0xFF),
        ],
        // Traffic class + flow label (not the version nibble), hop limit, UDP checksum, BTH byte 4.
        IcrcNet::Ipv6 => {
            vec![
                (0, 0x0F),
                (1, 0xFF),
                (2, 0xFF),
                (3, 0xFF),
                (7, 0xFF),
                (46, 0xFF),
                (47, 0xFF),
                (52, 0xFF),
            ]
        }
        IcrcNet::RoceV1 => vec![
            (0, 0x0F),
            (1, 0xFF),
            (2, 0xFF),
            (3, 0xFF),
            (7, 0xFF),
            (44, 0xFF),
        ],
    }
}

fn is_masked(net: IcrcNet, byte: usize, bit: u8) -> bool {
    masked_bits(net)
        .iter()
        .any(|&(b, m)| b == byte && m & (1 << bit) != 0)
}

fn all() -> [(IcrcNet, Vec<u8>); 3] {
    [
        (IcrcNet::Ipv4, v4_l3()),
        (IcrcNet::Ipv6, v6_l3()),
        (IcrcNet::RoceV1, v1_l3()),
    ]
}

#[test]
fn ipv4_variant_fields_do_not_matter() {
    let base = v4_l3();
    let want = icrc::compute(IcrcNet::Ipv4, &base);
    let edits: [(&str, usize, u8); 8] = [
        ("DSCP", 1, 0xB8),
        ("ECN CE", 1, 0x6B),
        ("TTL", 8, 1),
        ("IP checksum hi", 10, 0x00),
        ("IP checksum lo", 11, 0x12),
        ("UDP checksum", 26, 0xAC),
        ("UDP checksum lo", 27, 0xA2),
        ("FECN/BECN/Resv6a", 32, 0xD0),
    ];
    for (what, at, v) in edits {
        let mut p = base.clone();
        p[at] = v;
        assert_eq!(icrc::compute(IcrcNet::Ipv4, &p), want, "{what}");
    }
}

#[test]
fn ipv6_and_grh_variant_fields_do_not_matter() {
    for (net, base, bth) in [(IcrcNet::Ipv6, v6_l3(), 48), (IcrcNet::RoceV1, v1_l3(), 40)] {
        let want = icrc::compute(net, &base);
        let mut p = base.clone();
        p[0] = 0x60; // traffic class high nibble 0
        p[1] = 0x0F; // traffic class low nibble, flow label high nibble
        p[2] = 0x00;
        p[3] = 0x01; // flow label
        p[7] = 3; // hop limit
        p[bth + 4] = 0x40; // BECN
        if net == IcrcNet::Ipv6 {
            p[46] = 0x12; // UDP checksum
            p[47] = 0x34;
        }
        assert_eq!(icrc::compute(net, &p), want, "{net:?}");
    }
}

/// The version nibble is covered: an IPv6 header claiming version 4 changes the ICRC.
#[test]
fn ipv6_version_nibble_is_covered() {
    let mut p = v6_l3();
    let want = icrc::compute(IcrcNet::Ipv6, &p);
    p[0] = 0x46;
    assert_ne!(icrc::compute(IcrcNet::Ipv6, &p), want);
}

/// Exhaustive single-bit flips over the vectors: masked bits keep the ICRC, all others change it.
#[test]
fn every_single_bit_flip() {
    for (net, base) in all() {
        let want = icrc::compute(net, &base);
        for byte in 0..base.len() {
            for bit in 0..8u8 {
                let mut p = base.clone();
                p[byte] ^= 1 << bit;
                let got = icrc::compute(net, &p);
                if is_masked(net, byte, bit) {
                    assert_eq!(got, want, "{net:?} byte {byte} bit {bit} is masked");
                } else {
                    assert_ne!(got, want, "{net:?} byte {byte} bit {bit} is covered");
                }
            }
        }
    }
}

fn net_strategy() -> impl Strategy<Value = IcrcNet> {
    prop_oneof![
        Just(IcrcNet::Ipv4),
        Just(IcrcNet::Ipv6),
        Just(IcrcNet::RoceV1)
    ]
}

proptest! {
    /// Random packets (long enough for all headers), random single-bit flips.
    #[test]
    fn random_bit_flip(net in net_strategy(),
                       l3 in proptest::collection::vec(any::<u8>(), 53..600),
                       pos in any::<proptest::sample::Index>(),
                       bit in 0u8..8) {
        let want = icrc::compute(net, &l3);
        let byte = pos.index(l3.len());
        let mut p = l3.clone();
        p[byte] ^= 1 << bit;
        let got = icrc::compute(net, &p);
        if is_masked(net, byte, bit) {
            prop_assert_eq!(got, want);
        } else {
            prop_assert_ne!(got, want);
        }
    }

    /// Random values in every masked field at once leave the ICRC unchanged, and verify()
    /// accepts the rewritten packet with the original ICRC.
    #[test]
    fn random_masked_rewrites(net in net_strategy(),
                              l3 in proptest::collection::vec(any::<u8>(), 53..300),
                              noise in proptest::collection::vec(any::<u8>(), 8)) {
        let want = icrc::compute(net, &l3);
        let mut p = l3.clone();
        for (i, &(b, m)) in masked_bits(net).iter().enumerate() {
            p[b] = (p[b] & !m) | (noise[i] & m);
        }
        prop_assert_eq!(icrc::compute(net, &p), want);
        p.extend_from_slice(&want.to_le_bytes());
        prop_assert!(icrc::verify(net, &p));
    }

    /// Short or arbitrary input never panics.
    #[test]
    fn arbitrary_input_no_panic(net in net_strategy(),
                                l3 in proptest::collection::vec(any::<u8>(), 0..80)) {
        let _ = icrc::compute(net, &l3);
        let _ = icrc::verify(net, &l3);
    }
}
