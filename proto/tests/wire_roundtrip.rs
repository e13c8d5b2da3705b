//! Property tests of the wire module: every header repr survives emit -> parse, whole frames
//! built from random fields parse back to themselves with a good ICRC, and no input makes
//! `FrameRepr::parse` panic; whatever it accepts it re-emits byte for byte.

use ferroce_proto::wire::cnp::{CnpPayload, CnpRepr};
use ferroce_proto::wire::ext::{Aeth, AtomicAckEth, AtomicEth, Deth, Ieth, ImmDt, Reth};
use ferroce_proto::wire::{
    ipv4, AethRepr, AtomicAckEthRepr, AtomicEthRepr, Bth, BthRepr, DethRepr, EthernetFrame,
    EthernetRepr, ExtHeaders, FrameKind, FrameRepr, Grh, GrhRepr, IethRepr, ImmDtRepr, Ipv4Packet,
    Ipv4Repr, Ipv6Packet, Ipv6Repr, Opcode, PfcPacket, PfcRepr, RethRepr, RoceNet, UdpPacket,
    UdpRepr, VlanTag,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

// ---------------------------------------------------------------------------------------------
// Strategies

fn arb_vlan() -> impl Strategy<Value = VlanTag> {
    (0u8..8, any::<bool>(), 0u16..4096).prop_map(|(pcp, dei, vid)| VlanTag { pcp, dei, vid })
}

fn arb_eth() -> impl Strategy<Value = EthernetRepr> {
    (
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        proptest::option::of(arb_vlan()),
        any::<u16>(),
    )
        .prop_map(|(dst, src, vlan, ethertype)| {
            // Untagged, an EtherType of 0x8100 would read back as a tag.
            let ethertype = if vlan.is_none() && ethertype == 0x8100 {
                0x0800
            } else {
                ethertype
            };
            EthernetRepr {
                dst,
                src,
                vlan,
                ethertype,
            }
        })
}

fn arb_ipv4_options() -> impl Strategy<Value = Vec<u8>> {
    (0usize..=10).prop_flat_map(|words| vec(any::<u8>(), words * 4))
}

/// An IPv4 header with a correct checksum; `total_len` is set by the caller.
fn arb_ipv4(options: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Ipv4Repr> {
    (
        any::<(u8, u16, u16, u8, u8)>(),
        any::<([u8; 4], [u8; 4])>(),
        options,
    )
        .prop_map(
            |((tos, ident, flags_frag, ttl, protocol), (src, dst), options)| Ipv4Repr {
                tos,
                total_len: 0,
                ident,
                // Keep DF and the reserved bit; a fragment (MF or an offset) is not RoCE.
                flags_frag: flags_frag & 0xC000,
                ttl,
                protocol,
                src,
                dst,
                options,
                wrong_checksum: None,
            },
        )
}

fn arb_ipv6() -> impl Strategy<Value = Ipv6Repr> {
    (
        any::<(u8, u16, u8, u8)>(),
        0u32..(1 << 20),
        any::<([u8; 16], [u8; 16])>(),
    )
        .prop_map(
            |((traffic_class, payload_len, next_header, hop_limit), flow_label, (src, dst))| {
                Ipv6Repr {
                    traffic_class,
                    flow_label,
                    payload_len,
                    next_header,
                    hop_limit,
                    src,
                    dst,
                }
            },
        )
}

fn arb_grh() -> impl Strategy<Value = GrhRepr> {
    arb_ipv6().prop_map(|ip| GrhRepr {
        traffic_class: ip.traffic_class,
        flow_label: ip.flow_label,
        payload_len: ip.payload_len,
        next_header: ip.next_header,
        hop_limit: ip.hop_limit,
        sgid: ip.src,
        dgid: ip.dst,
    })
}

fn arb_opcode() -> impl Strategy<Value = Opcode> {
    prop_oneof![3 => select(Opcode::ALL_KNOWN.to_vec()), 1 => any::<u8>().prop_map(Opcode)]
}

fn arb_bth() -> impl Strategy<Value = BthRepr> {
    (
        arb_opcode(),
        any::<(bool, bool, bool, bool, bool, u16)>(),
        (0u8..4, 0u8..16, 0u8..64, 0u8..128),
        (0u32..(1 << 24), 0u32..(1 << 24)),
    )
        .prop_map(
            |(
                opcode,
                (solicited, mig_req, fecn, becn, ack_req, pkey),
                (pad_cnt, tver, resv6, resv7),
                (dest_qp, psn),
            )| {
                BthRepr {
                    opcode,
                    solicited,
                    mig_req,
                    pad_cnt,
                    tver,
                    pkey,
                    fecn,
                    becn,
                    resv6,
                    dest_qp,
                    ack_req,
                    resv7,
                    psn,
                }
            },
        )
}

fn arb_reth() -> impl Strategy<Value = RethRepr> {
    any::<(u64, u32, u32)>().prop_map(|(va, rkey, dma_len)| RethRepr { va, rkey, dma_len })
}
fn arb_aeth() -> impl Strategy<Value = AethRepr> {
    (any::<u8>(), 0u32..(1 << 24)).prop_map(|(syndrome, msn)| AethRepr { syndrome, msn })
}
fn arb_atomic_eth() -> impl Strategy<Value = AtomicEthRepr> {
    any::<(u64, u32, u64, u64)>().prop_map(|(va, rkey, swap_add, compare)| AtomicEthRepr {
        va,
        rkey,
        swap_add,
        compare,
    })
}
fn arb_deth() -> impl Strategy<Value = DethRepr> {
    (any::<u32>(), 0u32..(1 << 24), any::<u8>()).prop_map(|(qkey, src_qp, reserved)| DethRepr {
        qkey,
        src_qp,
        reserved,
    })
}

/// Every extension header present with random contents; `conform_to` then trims to an opcode.
fn arb_all_ext() -> impl Strategy<Value = ExtHeaders> {
    (
        (arb_deth(), arb_reth(), arb_atomic_eth(), arb_aeth()),
        any::<(u64, u32, u32, [u8; 16])>(),
    )
        .prop_map(
            |((deth, reth, atomic_eth, aeth), (orig, imm, rkey, reserved))| ExtHeaders {
                deth: Some(deth),
                reth: Some(reth),
                atomic_eth: Some(atomic_eth),
                aeth: Some(aeth),
                atomic_ack_eth: Some(AtomicAckEthRepr { orig }),
                imm_dt: Some(ImmDtRepr { imm }),
                ieth: Some(IethRepr { rkey }),
                cnp: Some(CnpRepr { reserved }),
            },
        )
}

fn arb_pfc() -> impl Strategy<Value = PfcRepr> {
    prop_oneof![
        any::<(u16, [u16; 8])>().prop_map(|(class_enable, times)| PfcRepr::Pfc {
            class_enable,
            times
        }),
        any::<u16>().prop_map(|time| PfcRepr::Pause { time }),
    ]
}

/// A RoCE network layer with random (non-length) fields; `finalize` fills the lengths.
fn arb_net() -> impl Strategy<Value = RoceNet> {
    let v4_options = prop_oneof![9 => Just(Vec::new()), 1 => arb_ipv4_options()];
    prop_oneof![
        (arb_ipv4(v4_options), any::<(u16, u16)>()).prop_map(|(ip, (src_port, checksum))| {
            RoceNet::Ipv4 {
                ip,
                udp: UdpRepr {
                    checksum,
                    ..UdpRepr::roce(src_port)
                },
            }
        }),
        (arb_ipv6(), any::<(u16, u16)>()).prop_map(|(ip, (src_port, checksum))| RoceNet::Ipv6 {
            ip,
            udp: UdpRepr {
                checksum,
                ..UdpRepr::roce(src_port)
            }
        }),
        arb_grh().prop_map(|grh| RoceNet::RoceV1 { grh }),
    ]
}

/// A finalized RoCE frame of random opcode, network layer, VLAN and payload 0..=4096 bytes.
fn arb_roce_frame() -> impl Strategy<Value = FrameRepr> {
    (
        arb_eth(),
        arb_net(),
        arb_bth(),
        arb_all_ext(),
        vec(any::<u8>(), 0..=4096),
    )
        .prop_map(|(eth, net, bth, ext, payload)| FrameRepr::new_roce(eth, net, bth, ext, payload))
}

/// Applies `edits` (offset, xor value) to `bytes`, then cuts or extends it.
fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8)], cut: usize, extra: &[u8]) -> Vec<u8> {
    if !bytes.is_empty() {
        for &(at, xor) in edits {
            let at = at % bytes.len();
            bytes[at] ^= xor;
        }
    }
    bytes.truncate(bytes.len().saturating_sub(cut));
    bytes.extend_from_slice(extra);
    bytes
}

/// The parse contract on any input: no panic, and an accepted frame re-emits exactly.
fn check_parse_total(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(frame) = FrameRepr::parse(bytes) {
        prop_assert_eq!(frame.emit(), bytes);
        let _ = frame.summary().to_json();
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Per-header round trips

proptest! {
    #[test]
    fn ethernet_roundtrip(repr in arb_eth()) {
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut EthernetFrame::new_unchecked(&mut buf[..]));
        let view = EthernetFrame::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(view.header_len(), repr.buffer_len());
        prop_assert_eq!(EthernetRepr::parse(&view).unwrap(), repr);
    }

    #[test]
    fn ipv4_roundtrip(repr in arb_ipv4(arb_ipv4_options()), extra in 0usize..64, bad in any::<Option<u16>>()) {
        let mut repr = repr;
        repr.total_len = (repr.buffer_len() + extra) as u16;
        let mut buf = vec![0u8; usize::from(repr.total_len)];
        repr.emit(&mut Ipv4Packet::new_unchecked(&mut buf[..]));
        let view = Ipv4Packet::new_checked(&buf[..]).unwrap();
        prop_assert!(view.verify_checksum());
        prop_assert_eq!(ipv4::checksum(view.header()), 0);
        prop_assert_eq!(Ipv4Repr::parse(&view).unwrap(), repr.clone());

        // A wrong checksum is carried through verbatim (a correct one is not "wrong").
        if let Some(value) = bad {
            prop_assume!(value != view.checksum());
            repr.wrong_checksum = Some(value);
            repr.emit(&mut Ipv4Packet::new_unchecked(&mut buf[..]));
            let view = Ipv4Packet::new_checked(&buf[..]).unwrap();
            prop_assert!(!view.verify_checksum());
            prop_assert_eq!(view.checksum(), value);
            prop_assert_eq!(Ipv4Repr::parse(&view).unwrap(), repr);
        }
    }

    #[test]
    fn ipv6_roundtrip(repr in arb_ipv6()) {
        let mut repr = repr;
        repr.payload_len %= 512;
        let mut buf = vec![0u8; repr.buffer_len() + usize::from(repr.payload_len)];
        repr.emit(&mut Ipv6Packet::new_unchecked(&mut buf[..]));
        prop_assert_eq!(Ipv6Repr::parse(&Ipv6Packet::new_checked(&buf[..]).unwrap()).unwrap(), repr);
    }

    #[test]
    fn grh_roundtrip(repr in arb_grh()) {
        let mut repr = repr;
        repr.payload_len %= 512;
        let mut buf = vec![0u8; repr.buffer_len() + usize::from(repr.payload_len)];
        repr.emit(&mut Grh::new_unchecked(&mut buf[..]));
        prop_assert_eq!(GrhRepr::parse(&Grh::new_checked(&buf[..]).unwrap()).unwrap(), repr);
    }

    #[test]
    fn udp_roundtrip(src_port in any::<u16>(), dst_port in any::<u16>(), length in 8u16..600, checksum in any::<u16>()) {
        let repr = UdpRepr { src_port, dst_port, length, checksum };
        let mut buf = vec![0u8; usize::from(length)];
        repr.emit(&mut UdpPacket::new_unchecked(&mut buf[..]));
        let view = UdpPacket::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(view.payload().len(), usize::from(length) - 8);
        prop_assert_eq!(UdpRepr::parse(&view).unwrap(), repr);
    }

    #[test]
    fn bth_roundtrip(repr in arb_bth()) {
        let mut buf = [0u8; 12];
        repr.emit(&mut Bth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(BthRepr::parse(&Bth::new_checked(&buf[..]).unwrap()).unwrap(), repr);
    }

    #[test]
    fn ext_header_roundtrips(
        reth in arb_reth(), aeth in arb_aeth(), atomic in arb_atomic_eth(), deth in arb_deth(),
        orig in any::<u64>(), imm in any::<u32>(), rkey in any::<u32>(), reserved in any::<[u8; 16]>(),
    ) {
        let mut buf = [0u8; 28];
        reth.emit(&mut Reth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(RethRepr::parse(&Reth::new_checked(&buf[..16]).unwrap()).unwrap(), reth);
        aeth.emit(&mut Aeth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(AethRepr::parse(&Aeth::new_checked(&buf[..4]).unwrap()).unwrap(), aeth);
        atomic.emit(&mut AtomicEth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(AtomicEthRepr::parse(&AtomicEth::new_checked(&buf[..28]).unwrap()).unwrap(), atomic);
        deth.emit(&mut Deth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(DethRepr::parse(&Deth::new_checked(&buf[..8]).unwrap()).unwrap(), deth);
        let ack = AtomicAckEthRepr { orig };
        ack.emit(&mut AtomicAckEth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(AtomicAckEthRepr::parse(&AtomicAckEth::new_checked(&buf[..8]).unwrap()).unwrap(), ack);
        let imm = ImmDtRepr { imm };
        imm.emit(&mut ImmDt::new_unchecked(&mut buf[..]));
        prop_assert_eq!(ImmDtRepr::parse(&ImmDt::new_checked(&buf[..4]).unwrap()).unwrap(), imm);
        let ieth = IethRepr { rkey };
        ieth.emit(&mut Ieth::new_unchecked(&mut buf[..]));
        prop_assert_eq!(IethRepr::parse(&Ieth::new_checked(&buf[..4]).unwrap()).unwrap(), ieth);
        let cnp = CnpRepr { reserved };
        cnp.emit(&mut CnpPayload::new_unchecked(&mut buf[..]));
        prop_assert_eq!(CnpRepr::parse(&CnpPayload::new_checked(&buf[..16]).unwrap()).unwrap(), cnp);
        // One byte short is Truncated, never a panic.
        prop_assert!(Reth::new_checked(&buf[..15]).is_err());
        prop_assert!(AtomicEth::new_checked(&buf[..27]).is_err());
    }

    #[test]
    fn ext_headers_follow_the_opcode(opcode in arb_opcode(), all in arb_all_ext()) {
        let mut ext = all;
        ext.conform_to(opcode);
        prop_assert!(ext.matches(opcode));
        prop_assert_eq!(ext.buffer_len(), opcode.ext_header_len());
        let mut buf = vec![0u8; ext.buffer_len()];
        ext.emit(&mut buf);
        let (parsed, used) = ExtHeaders::parse(opcode, &buf).unwrap();
        prop_assert_eq!(parsed, ext);
        prop_assert_eq!(used, buf.len());
        if !buf.is_empty() {
            prop_assert!(ExtHeaders::parse(opcode, &buf[..buf.len() - 1]).is_err());
        }
    }

    #[test]
    fn pfc_roundtrip(repr in arb_pfc()) {
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut PfcPacket::new_unchecked(&mut buf[..]));
        prop_assert_eq!(PfcRepr::parse(&PfcPacket::new_checked(&buf[..]).unwrap()).unwrap(), repr);
        prop_assert!(PfcPacket::new_checked(&buf[..buf.len() - 1]).is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Whole frames

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn roce_frame_build_emit_parse(frame in arb_roce_frame()) {
        let bytes = frame.emit();
        prop_assert!(bytes.len() >= 60);
        prop_assert_eq!(bytes.len(), frame.buffer_len());
        let parsed = FrameRepr::parse(&bytes).unwrap();
        prop_assert_eq!(&parsed, &frame);
        prop_assert_eq!(parsed.icrc_ok(), Some(true));
        let roce = parsed.roce().unwrap();
        prop_assert_eq!(usize::from(roce.bth.pad_cnt), roce.pad.len());
        prop_assert_eq!((roce.payload.len() + roce.pad.len()) % 4, 0);
        // Finalizing a finalized frame changes nothing.
        prop_assert_eq!(parsed.clone().finalized(), parsed);
    }

    #[test]
    fn pfc_frame_build_emit_parse(src in any::<[u8; 6]>(), pfc in arb_pfc()) {
        let frame = FrameRepr::new_pfc(src, pfc);
        let bytes = frame.emit();
        prop_assert_eq!(bytes.len(), 60);
        prop_assert_eq!(FrameRepr::parse(&bytes).unwrap(), frame);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..256)) {
        check_parse_total(&bytes)?;
    }

    /// Random bytes behind a plausible RoCE prefix reach deep into the parser.
    #[test]
    fn random_tail_after_roce_prefix_never_panics(
        prefix in select(vec![
            // Ethernet + IPv4 (IHL 5, UDP) + UDP to 4791, and the same with IHL 6.
            "02000000000202000000000108004500003812344000401100000a0000010a000002c00112b7",
            "0200000000020200000000010800460000381234400040110000c0a80101c0a8010200000000c00112b7",
            // Ethernet + IPv6 (UDP) + UDP to 4791.
            "02000000000202000000000186dd60000000002411400000000000000000000000000000000100000000000000000000000000000002c00112b7",
            // Ethernet + RoCEv1 GRH.
            "020000000002020000000001891560000000001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe000002",
            // VLAN + MAC Control PFC / PAUSE.
            "0180c20000010200000000018100600388080101",
            "0180c200000102000000000188080001",
        ]),
        tail in vec(any::<u8>(), 0..128),
    ) {
        let mut bytes: Vec<u8> = (0..prefix.len()).step_by(2)
            .map(|i| u8::from_str_radix(&prefix[i..i + 2], 16).unwrap())
            .collect();
        bytes.extend_from_slice(&tail);
        check_parse_total(&bytes)?;
    }

    #[test]
    fn mutated_valid_frames_never_panic(
        frame in arb_roce_frame(),
        edits in vec((any::<usize>(), 1u8..=255), 0..6),
        cut in prop_oneof![Just(0usize), 0usize..64, 0usize..5000],
        extra in vec(any::<u8>(), 0..16),
    ) {
        let bytes = mutate(frame.emit(), &edits, cut, &extra);
        check_parse_total(&bytes)?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_truncation_of_a_frame_is_handled(frame in arb_roce_frame()) {
        let bytes = frame.emit();
        // The bytes up to the ICRC's end are what the headers claim: a frame cut short of them
        // is an error, or, when the cut leaves too little to even tell it is RoCE (inside the
        // IP header), an opaque `Other` frame. Ethernet padding (`trailing`) may be cut freely.
        let needed = bytes.len() - frame.trailing.len();
        let lens = (0..bytes.len()).filter(|&len| len < 160 || len % 61 == 0 || len + 8 >= needed);
        for len in lens {
            match FrameRepr::parse(&bytes[..len]) {
                Ok(parsed) => {
                    prop_assert!(
                        len >= needed || parsed.kind() == FrameKind::Other,
                        "accepted a RoCE frame cut to {} of {} bytes", len, needed
                    );
                    prop_assert_eq!(parsed.emit(), &bytes[..len]);
                }
                Err(_) => prop_assert!(len < needed),
            }
        }
    }
}
