//! The published test vectors (docs/PROTOCOL.md §3.2, §11, §12) parse to the fields written beside
//! them, re-emit byte-identically, carry a correct ICRC, and rebuild from their fields alone.

use ferroce_proto::wire::{
    ethertype, AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, DethRepr, EthernetRepr,
    ExtHeaders, FrameBody, FrameKind, FrameRepr, ImmDtRepr, Opcode, PfcRepr, RethRepr, RoceNet,
    RoceRepr, UdpRepr, ROCE_V2_PORT,
};

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

// docs/PROTOCOL.md §11, Ethernet frames without FCS.
const V4_RC_SEND_ONLY: &str = "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100b639e270";
const V4_RC_RDMA_WRITE_ONLY: &str = "0200000000020200000000010800456a004c123440004011a4afc0a80101c0a80102c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0ff4f628d2";
const V4_RC_SEND_ONLY_IMM: &str = "0200000000020200000000010800456a0034123440004011a4c7c0a80101c0a80102c00112b7002000000510ffff0000001180000101deadbeef61626300ef1195d9";
const V4_RC_RDMA_READ_REQ: &str = "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800000c00ffff000000128000030000007f000000200000001234000010003611d66d";
const V4_RC_READ_RESP_ONLY: &str = "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800001020ffff00000034000003001f000005a5a5a5a5a5a5a5a5a5a50000a38b363f";
const V4_RC_ACK: &str = "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002001f000002f6b982db";
const V4_RC_NAK_PSN_SEQ: &str = "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff0000003400000205600000024c863e20";
const V4_RC_RNR_NAK: &str = "0200000000020200000000010800456a0030123440004011a4cbc0a80101c0a80102c00112b7001c00001100ffff00000034000002062e00000292d3551c";
const V4_RC_CMP_SWAP: &str = "0200000000020200000000010800456a0048123440004011a4b3c0a80101c0a80102c00112b7003400001300ffff000000128000040000007f00000030000000123411111111111111110000000000000000f6621415";
const V4_RC_ATOMIC_ACK: &str = "0200000000020200000000010800456a0038123440004011a4c3c0a80101c0a80102c00112b7002400001200ffff00000034000004001f0000070000000000000000f6d2252f";
const V4_CNP: &str = "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800008100ffff4000001200000000000000000000000000000000000000009d48499f";
const V6_RC_SEND_ONLY: &str = "02000000000202000000000186dd66a1234500241140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7002400000410ffff000000118000010048656c6c6f20526f43452100d8aedc99";
const V6_RC_RDMA_WRITE_ONLY: &str = "02000000000202000000000186dd66a1234500381140fd000000000000000000000000000001fd000000000000000000000000000002c00112b7003800000a00ffff000000128000020000007f00000010000000123400000010000102030405060708090a0b0c0d0e0f3b334cde";
const V4_UD_SEND_ONLY: &str = "0200000000020200000000010800456a003c123440004011a4bfc0a80101c0a80102c00112b7002800006420ffff0000003300000005111111110000002255446d7367210000021d59ea";
const ROCEV1_RC_SEND_ONLY: &str = "020000000002020000000001891566a12345001c1b40fe80000000000000020000fffe000001fe80000000000000020000fffe0000020410ffff000000118000010048656c6c6f20526f43452100d47caf1a";
// docs/PROTOCOL.md §3.2: a real ConnectX-4 Lx CNP.
const CX4LX_CNP: &str = "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b7002800008100ffff40000118000000000000000000000000000000000000000082fd002a";
// IEEE 802.1Qbb (docs/PROTOCOL.md §12): PFC pausing priority 3 for 0xFFFF quanta.
const PFC_PRIO3_FFFF: &str = "0180c2000001020000000001880801010008000000000000ffff00000000000000000000000000000000000000000000000000000000000000000000";

const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 1];
const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 2];
const IP_A: [u8; 4] = [192, 168, 1, 1];
const IP_B: [u8; 4] = [192, 168, 1, 2];
const IP6_A: [u8; 16] = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const IP6_B: [u8; 16] = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

/// Parses, checks the common invariants (byte-exact re-emit, good ICRC, wire ICRC bytes), and
/// returns the frame and its RoCE part.
fn parse_roce(hex_frame: &str, wire_icrc: &str) -> (FrameRepr, RoceRepr) {
    let bytes = hex(hex_frame);
    let frame = FrameRepr::parse(&bytes).expect("vector parses");
    assert_eq!(frame.emit(), bytes, "re-emit is byte-identical");
    assert_eq!(frame.buffer_len(), bytes.len());
    let roce = frame.roce().expect("a RoCE frame").clone();
    assert_eq!(
        roce.icrc.to_le_bytes().to_vec(),
        hex(wire_icrc),
        "ICRC read from its place"
    );
    assert_eq!(roce.compute_icrc(), roce.icrc, "ICRC matches");
    assert_eq!(frame.icrc_ok(), Some(true));
    assert!(frame.trailing.is_empty());
    // Rebuilding from the fields alone gives the same bytes: finalize derives exactly the
    // lengths, checksum, pad and ICRC that were on the wire.
    let rebuilt = frame.clone().finalized();
    assert_eq!(rebuilt.emit(), bytes, "finalize reproduces the vector");
    (frame, roce)
}

/// The common fields of the IPv4 vectors (docs/PROTOCOL.md §11).
fn check_common_v4(frame: &FrameRepr, roce: &RoceRepr, udp_len: u16) {
    assert_eq!(
        frame.eth,
        EthernetRepr {
            dst: MAC_B,
            src: MAC_A,
            vlan: None,
            ethertype: ethertype::IPV4
        }
    );
    let RoceNet::Ipv4 { ip, udp } = &roce.net else {
        panic!("not IPv4: {:?}", roce.net)
    };
    assert_eq!(ip.tos, 0x6A);
    assert_eq!((ip.dscp(), ip.ecn()), (26, 2));
    assert_eq!(ip.total_len, 20 + udp_len);
    assert_eq!(ip.ident, 0x1234);
    assert_eq!(ip.flags_frag, 0x4000);
    assert_eq!(ip.ttl, 64);
    assert_eq!(ip.protocol, 17);
    assert_eq!((ip.src, ip.dst), (IP_A, IP_B));
    assert!(!ip.has_options());
    assert!(ip.checksum_ok());
    assert_eq!(
        *udp,
        UdpRepr {
            src_port: 0xC001,
            dst_port: ROCE_V2_PORT,
            length: udp_len,
            checksum: 0
        }
    );
    assert_eq!(
        frame.kind(),
        if roce.bth.opcode.is_cnp() {
            FrameKind::Cnp
        } else {
            FrameKind::RoceV2
        }
    );
}

fn bth(opcode: Opcode, dest_qp: u32, psn: u32, ack_req: bool, pad_cnt: u8) -> BthRepr {
    BthRepr {
        ack_req,
        pad_cnt,
        ..BthRepr::new(opcode, dest_qp, psn)
    }
}

#[test]
fn v4_rc_send_only() {
    let (frame, roce) = parse_roce(V4_RC_SEND_ONLY, "b639e270");
    check_common_v4(&frame, &roce, 0x24);
    assert_eq!(roce.bth, bth(Opcode::RC_SEND_ONLY, 0x11, 0x100, true, 1));
    assert_eq!(roce.ext, ExtHeaders::default());
    assert_eq!(roce.payload, b"Hello RoCE!");
    assert_eq!(roce.pad, [0]);
    // docs/PROTOCOL.md §11: the zlib-style CRC is 0x70E239B6, wire bytes b6 39 e2 70.
    assert_eq!(roce.icrc, 0x70E2_39B6);
    assert_eq!(frame.opcode(), Some(Opcode(0x04)));
    assert_eq!((frame.dest_qp(), frame.psn()), (Some(0x11), Some(0x100)));
}

#[test]
fn v4_rc_rdma_write_only() {
    let (frame, roce) = parse_roce(V4_RC_RDMA_WRITE_ONLY, "f4f628d2");
    check_common_v4(&frame, &roce, 0x38);
    assert_eq!(
        roce.bth,
        bth(Opcode::RC_RDMA_WRITE_ONLY, 0x12, 0x200, true, 0)
    );
    let reth = RethRepr {
        va: 0x0000_7f00_0000_1000,
        rkey: 0x1234,
        dma_len: 16,
    };
    assert_eq!(
        roce.ext,
        ExtHeaders {
            reth: Some(reth),
            ..Default::default()
        }
    );
    assert_eq!(roce.payload, (0u8..16).collect::<Vec<_>>());
    assert!(roce.pad.is_empty());
}

#[test]
fn v4_rc_send_only_imm() {
    let (frame, roce) = parse_roce(V4_RC_SEND_ONLY_IMM, "ef1195d9");
    check_common_v4(&frame, &roce, 0x20);
    assert_eq!(
        roce.bth,
        bth(Opcode::RC_SEND_ONLY_WITH_IMMEDIATE, 0x11, 0x101, true, 1)
    );
    assert_eq!(
        roce.ext,
        ExtHeaders {
            imm_dt: Some(ImmDtRepr { imm: 0xdead_beef }),
            ..Default::default()
        }
    );
    assert_eq!(roce.payload, b"abc");
    assert_eq!(roce.pad, [0]);
}

#[test]
fn v4_rc_rdma_read_req() {
    let (frame, roce) = parse_roce(V4_RC_RDMA_READ_REQ, "3611d66d");
    check_common_v4(&frame, &roce, 0x28);
    assert_eq!(
        roce.bth,
        bth(Opcode::RC_RDMA_READ_REQUEST, 0x12, 0x300, true, 0)
    );
    let reth = RethRepr {
        va: 0x7f00_0000_2000,
        rkey: 0x1234,
        dma_len: 4096,
    };
    assert_eq!(
        roce.ext,
        ExtHeaders {
            reth: Some(reth),
            ..Default::default()
        }
    );
    assert!(roce.payload.is_empty());
}

#[test]
fn v4_rc_read_resp_only() {
    let (frame, roce) = parse_roce(V4_RC_READ_RESP_ONLY, "a38b363f");
    check_common_v4(&frame, &roce, 0x28);
    assert_eq!(
        roce.bth,
        bth(Opcode::RC_RDMA_READ_RESPONSE_ONLY, 0x34, 0x300, false, 2)
    );
    assert_eq!(
        roce.ext,
        ExtHeaders {
            aeth: Some(AethRepr {
                syndrome: 0x1F,
                msn: 5
            }),
            ..Default::default()
        }
    );
    assert_eq!(roce.payload, [0xA5; 10]);
    assert_eq!(roce.pad, [0, 0]);
}

fn check_ack(hex_frame: &str, wire_icrc: &str, psn: u32, syndrome: u8) {
    let (frame, roce) = parse_roce(hex_frame, wire_icrc);
    check_common_v4(&frame, &roce, 0x1C);
    assert_eq!(roce.bth, bth(Opcode::RC_ACKNOWLEDGE, 0x34, psn, false, 0));
    assert_eq!(
        roce.ext,
        ExtHeaders {
            aeth: Some(AethRepr { syndrome, msn: 2 }),
            ..Default::default()
        }
    );
    assert!(roce.payload.is_empty());
    // The smallest RoCEv2/IPv4 frame: 14+20+8+12+4+4 = 62 bytes (docs/PROTOCOL.md §1).
    assert_eq!(frame.buffer_len(), 62);
}

#[test]
fn v4_rc_ack() {
    check_ack(V4_RC_ACK, "f6b982db", 0x200, 0x1F);
}

#[test]
fn v4_rc_nak_psn_seq() {
    check_ack(V4_RC_NAK_PSN_SEQ, "4c863e20", 0x205, 0x60);
}

#[test]
fn v4_rc_rnr_nak() {
    check_ack(V4_RC_RNR_NAK, "92d3551c", 0x206, 0x2E);
}

#[test]
fn v4_rc_cmp_swap() {
    let (frame, roce) = parse_roce(V4_RC_CMP_SWAP, "f6621415");
    check_common_v4(&frame, &roce, 0x34);
    assert_eq!(roce.bth, bth(Opcode::RC_COMPARE_SWAP, 0x12, 0x400, true, 0));
    let atomic = AtomicEthRepr {
        va: 0x7f00_0000_3000,
        rkey: 0x1234,
        swap_add: 0x1111_1111_1111_1111,
        compare: 0,
    };
    assert_eq!(
        roce.ext,
        ExtHeaders {
            atomic_eth: Some(atomic),
            ..Default::default()
        }
    );
    assert!(roce.payload.is_empty());
}

#[test]
fn v4_rc_atomic_ack() {
    let (frame, roce) = parse_roce(V4_RC_ATOMIC_ACK, "f6d2252f");
    check_common_v4(&frame, &roce, 0x24);
    assert_eq!(
        roce.bth,
        bth(Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x34, 0x400, false, 0)
    );
    let expected = ExtHeaders {
        aeth: Some(AethRepr {
            syndrome: 0x1F,
            msn: 7,
        }),
        atomic_ack_eth: Some(AtomicAckEthRepr { orig: 0 }),
        ..Default::default()
    };
    assert_eq!(roce.ext, expected);
}

#[test]
fn v4_cnp() {
    let (frame, roce) = parse_roce(V4_CNP, "9d48499f");
    check_common_v4(&frame, &roce, 40);
    assert_eq!(
        roce.bth,
        BthRepr {
            becn: true,
            ..BthRepr::new(Opcode::CNP, 0x12, 0)
        }
    );
    assert_eq!(roce.bth, ferroce_proto::wire::cnp::bth(0x12));
    assert_eq!(roce.ext.cnp.map(|c| c.reserved), Some([0; 16]));
    assert_eq!(frame.kind(), FrameKind::Cnp);
    assert_eq!(frame.kind().name(), "cnp");
    // The helper builds the same frame from the network fields.
    let built = ferroce_proto::wire::cnp::frame(frame.eth, roce.net.clone(), 0x12);
    assert_eq!(built.emit(), hex(V4_CNP));
}

#[test]
fn cx4lx_real_cnp() {
    let (frame, roce) = parse_roce(CX4LX_CNP, "82fd002a");
    let RoceNet::Ipv4 { ip, udp } = &roce.net else {
        panic!("not IPv4")
    };
    assert_eq!(
        (ip.tos, ip.ident, ip.flags_frag, ip.ttl),
        (0xC2, 0x718c, 0x4000, 64)
    );
    assert_eq!((ip.dscp(), ip.ecn()), (48, 2));
    assert_eq!((udp.src_port, udp.length, udp.checksum), (0, 40, 0));
    assert_eq!(roce.bth, ferroce_proto::wire::cnp::bth(0x118));
    assert_eq!(frame.kind(), FrameKind::Cnp);
}

#[test]
fn v6_rc_send_only() {
    let (frame, roce) = parse_roce(V6_RC_SEND_ONLY, "d8aedc99");
    assert_eq!(frame.eth.ethertype, ethertype::IPV6);
    let RoceNet::Ipv6 { ip, udp } = &roce.net else {
        panic!("not IPv6")
    };
    assert_eq!(
        (ip.traffic_class, ip.flow_label, ip.payload_len),
        (0x6A, 0x12345, 0x24)
    );
    assert_eq!(
        (ip.next_header, ip.hop_limit, ip.src, ip.dst),
        (17, 64, IP6_A, IP6_B)
    );
    assert_eq!(
        *udp,
        UdpRepr {
            src_port: 0xC001,
            dst_port: ROCE_V2_PORT,
            length: 0x24,
            checksum: 0
        }
    );
    assert_eq!(roce.bth, bth(Opcode::RC_SEND_ONLY, 0x11, 0x100, true, 1));
    assert_eq!(roce.payload, b"Hello RoCE!");
    assert_eq!(frame.kind(), FrameKind::RoceV2);
}

#[test]
fn v6_rc_rdma_write_only() {
    let (_, roce) = parse_roce(V6_RC_RDMA_WRITE_ONLY, "3b334cde");
    assert!(matches!(roce.net, RoceNet::Ipv6 { .. }));
    assert_eq!(
        roce.bth,
        bth(Opcode::RC_RDMA_WRITE_ONLY, 0x12, 0x200, true, 0)
    );
    let reth = RethRepr {
        va: 0x7f00_0000_1000,
        rkey: 0x1234,
        dma_len: 16,
    };
    assert_eq!(roce.ext.reth, Some(reth));
    assert_eq!(roce.payload, (0u8..16).collect::<Vec<_>>());
}

#[test]
fn v4_ud_send_only() {
    let (frame, roce) = parse_roce(V4_UD_SEND_ONLY, "021d59ea");
    check_common_v4(&frame, &roce, 0x28);
    assert_eq!(roce.bth, bth(Opcode::UD_SEND_ONLY, 0x33, 5, false, 2));
    let deth = DethRepr {
        qkey: 0x1111_1111,
        src_qp: 0x22,
        reserved: 0,
    };
    assert_eq!(
        roce.ext,
        ExtHeaders {
            deth: Some(deth),
            ..Default::default()
        }
    );
    assert_eq!(roce.payload, b"UDmsg!");
}

#[test]
fn rocev1_rc_send_only() {
    let (frame, roce) = parse_roce(ROCEV1_RC_SEND_ONLY, "d47caf1a");
    assert_eq!(frame.eth.ethertype, ethertype::ROCE_V1);
    assert_eq!(frame.kind(), FrameKind::RoceV1);
    let RoceNet::RoceV1 { grh } = &roce.net else {
        panic!("not RoCEv1")
    };
    assert_eq!(
        (grh.traffic_class, grh.flow_label, grh.payload_len),
        (0x6A, 0x12345, 0x1C)
    );
    assert_eq!((grh.next_header, grh.hop_limit), (0x1B, 64));
    let gid = |last| {
        [
            0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, last,
        ]
    };
    assert_eq!((grh.sgid, grh.dgid), (gid(1), gid(2)));
    assert_eq!(roce.bth, bth(Opcode::RC_SEND_ONLY, 0x11, 0x100, true, 1));
    assert_eq!(roce.payload, b"Hello RoCE!");
}

#[test]
fn pfc_prio3() {
    let bytes = hex(PFC_PRIO3_FFFF);
    assert_eq!(bytes.len(), 60);
    let frame = FrameRepr::parse(&bytes).unwrap();
    assert_eq!(frame.eth.dst, [0x01, 0x80, 0xC2, 0, 0, 1]);
    assert_eq!(frame.eth.ethertype, ethertype::MAC_CONTROL);
    let pfc = PfcRepr::pause_priority(3, 0xFFFF);
    assert_eq!(frame.body, FrameBody::Pfc(pfc));
    assert_eq!(pfc.time_for(3), Some(0xFFFF));
    assert_eq!(pfc.time_for(2), None);
    assert_eq!(frame.trailing, [0; 26]);
    assert_eq!(frame.kind(), FrameKind::Pfc);
    assert_eq!(frame.icrc_ok(), None);
    assert_eq!(frame.emit(), bytes);
    assert_eq!(FrameRepr::new_pfc(MAC_A, pfc).emit(), bytes);
}

#[test]
fn pause_frame_roundtrip() {
    let frame = FrameRepr::new_pfc(MAC_A, PfcRepr::Pause { time: 0x1234 });
    let bytes = frame.emit();
    assert_eq!(bytes.len(), 60);
    assert_eq!(&bytes[12..18], &[0x88, 0x08, 0x00, 0x01, 0x12, 0x34]);
    let parsed = FrameRepr::parse(&bytes).unwrap();
    assert_eq!(parsed, frame);
    assert_eq!(parsed.kind().name(), "pause");
}

/// docs/PROTOCOL.md §1: the ICRC is found from UDP.Length, not from the end of the frame, which may
/// carry Ethernet padding.
#[test]
fn icrc_located_from_udp_length_with_padding() {
    for (vector, icrc) in [
        (V4_RC_ACK, "f6b982db"),
        (V6_RC_SEND_ONLY, "d8aedc99"),
        (ROCEV1_RC_SEND_ONLY, "d47caf1a"),
    ] {
        let mut bytes = hex(vector);
        let original_len = bytes.len();
        bytes.extend_from_slice(&[0xEE; 9]);
        let frame = FrameRepr::parse(&bytes).unwrap();
        assert_eq!(frame.roce().unwrap().icrc.to_le_bytes().to_vec(), hex(icrc));
        assert_eq!(frame.icrc_ok(), Some(true));
        assert_eq!(frame.trailing, [0xEE; 9]);
        assert_eq!(frame.emit(), bytes);
        // finalize drops non-padding trailing bytes: the original frame is already >= 60 bytes.
        assert_eq!(frame.finalized().emit().len(), original_len);
    }
}

#[test]
fn corrupted_icrc_is_detected_and_reemitted() {
    let mut bytes = hex(V4_RC_SEND_ONLY);
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    let frame = FrameRepr::parse(&bytes).unwrap();
    assert_eq!(frame.icrc_ok(), Some(false));
    assert_eq!(frame.emit(), bytes);
    assert_eq!(frame.summary().icrc_ok, Some(false));
}

/// ICRC masking (IBTA Annex A17; docs/PROTOCOL.md §4.1): TOS, TTL, IP checksum, UDP checksum, BTH
/// byte 4 do not change it.
#[test]
fn masked_fields_keep_the_icrc() {
    let frame = FrameRepr::parse(&hex(V4_RC_SEND_ONLY)).unwrap();
    let mut roce = frame.roce().unwrap().clone();
    let RoceNet::Ipv4 { ip, udp } = &mut roce.net else {
        unreachable!()
    };
    ip.tos = 0x03;
    ip.ttl = 1;
    ip.wrong_checksum = Some(0xBEEF);
    udp.checksum = 0xACA2;
    roce.bth.fecn = true;
    roce.bth.becn = true;
    roce.bth.resv6 = 0x10;
    assert_eq!(roce.compute_icrc(), 0x70E2_39B6);
    roce.payload[0] ^= 1;
    assert_ne!(roce.compute_icrc(), 0x70E2_39B6);
}

#[test]
fn wrong_ipv4_checksum_reemits_exactly() {
    let mut bytes = hex(V4_RC_SEND_ONLY);
    bytes[24] ^= 0xFF; // checksum high byte
    let frame = FrameRepr::parse(&bytes).unwrap();
    let RoceNet::Ipv4 { ip, .. } = &frame.roce().unwrap().net else {
        unreachable!()
    };
    assert!(!ip.checksum_ok());
    assert_eq!(frame.emit(), bytes);
    assert_eq!(
        frame.icrc_ok(),
        Some(true),
        "the IP checksum is masked in the ICRC"
    );
    assert_eq!(frame.finalized().emit(), hex(V4_RC_SEND_ONLY));
}

#[test]
fn vlan_tagged_vector() {
    let plain = hex(V4_RC_SEND_ONLY);
    let mut tagged = plain[..12].to_vec();
    tagged.extend_from_slice(&[0x81, 0x00, 0x60, 0x64]); // PCP 3, DEI 0, VID 100
    tagged.extend_from_slice(&plain[12..]);
    let frame = FrameRepr::parse(&tagged).unwrap();
    let vlan = frame.eth.vlan.unwrap();
    assert_eq!((vlan.pcp, vlan.dei, vlan.vid), (3, false, 100));
    assert_eq!(frame.eth.ethertype, ethertype::IPV4);
    assert_eq!(
        frame.icrc_ok(),
        Some(true),
        "the VLAN tag is outside the ICRC"
    );
    assert_eq!(frame.emit(), tagged);
}

#[test]
fn build_send_only_from_fields() {
    let eth = EthernetRepr {
        dst: MAC_B,
        src: MAC_A,
        vlan: None,
        ethertype: 0,
    };
    let mut net = RoceNet::ipv4(IP_A, IP_B, 0xC001);
    if let RoceNet::Ipv4 { ip, .. } = &mut net {
        ip.tos = 0x6A;
        ip.ident = 0x1234;
    }
    let bth = BthRepr {
        ack_req: true,
        ..BthRepr::new(Opcode::RC_SEND_ONLY, 0x11, 0x100)
    };
    let frame = FrameRepr::new_roce(
        eth,
        net,
        bth,
        ExtHeaders::default(),
        b"Hello RoCE!".to_vec(),
    );
    assert_eq!(frame.emit(), hex(V4_RC_SEND_ONLY));
}

#[test]
fn summary_json() {
    let frame = FrameRepr::parse(&hex(V4_RC_SEND_ONLY)).unwrap();
    let summary = frame.summary();
    assert_eq!(summary.kind.name(), "roce_v2");
    assert_eq!(
        summary.opcode.map(|op| op.to_string()),
        Some("RC_SEND_ONLY".to_string())
    );
    assert_eq!(
        summary.to_json(),
        r#"{"kind":"roce_v2","len":70,"vlan":null,"opcode":"RC_SEND_ONLY","opcode_num":4,"dest_qp":17,"psn":256,"ack_req":true,"ecn":2,"payload_len":11,"icrc_ok":true}"#
    );
    let pfc = FrameRepr::parse(&hex(PFC_PRIO3_FFFF))
        .unwrap()
        .summary()
        .to_json();
    assert!(
        pfc.starts_with(r#"{"kind":"pfc","len":60,"vlan":null,"opcode":null,"#),
        "{pfc}"
    );
}

/// Frames of a shared capture file, or `None` when the shared vectors are absent.
fn read_pcap(name: &str) -> Option<Vec<Vec<u8>>> {
    let dir = ferroce_proto::testgen::shared_vectors_dir()?;
    let capture = ferroce_proto::pcap::read_file(dir.join(name)).expect("readable capture");
    Some(capture.records.into_iter().map(|r| r.data).collect())
}

/// The real hardware capture of docs/PROTOCOL.md §11 (105 RoCEv2 frames from a hardware NIC, MigReq
/// = 1, BTH byte 4 = 0x10): every frame parses, its ICRC is good, and it re-emits byte-exact.
/// Skipped when ../shared is not beside the workspace.
#[test]
fn real_hardware_capture() {
    let Some(frames) = read_pcap("real/hw_send_imm_ack_mtu1024.pcap") else {
        return;
    };
    let (mut roce, mut mig_req, mut byte4) = (0, 0, 0);
    for bytes in &frames {
        let frame = FrameRepr::parse(bytes).expect("every captured frame parses");
        assert_eq!(&frame.emit(), bytes, "byte-exact re-emit");
        if let Some(r) = frame.roce() {
            roce += 1;
            assert!(r.icrc_ok(), "ICRC of a real frame");
            mig_req += usize::from(r.bth.mig_req);
            byte4 += usize::from(r.bth.resv6 == 0x10);
        }
    }
    assert_eq!(roce, 105);
    assert_eq!(mig_req, 105);
    assert!(byte4 > 0, "request frames carry BTH byte 4 = 0x10");
}

/// The shared vector pcaps (the same vectors as above, the extra and external ones, and one
/// frame with a corrupted ICRC).
#[test]
fn shared_vector_pcaps() {
    for (name, icrc_good) in [
        ("roce_vectors.pcap", true),
        ("extra_vectors.pcap", true),
        ("external_vectors.pcap", true),
        ("roce_bad_icrc.pcap", false),
    ] {
        let Some(frames) = read_pcap(name) else {
            return;
        };
        assert!(!frames.is_empty(), "{name}");
        for bytes in &frames {
            let frame = FrameRepr::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&frame.emit(), bytes, "{name}: byte-exact re-emit");
            if let Some(ok) = frame.icrc_ok() {
                assert_eq!(ok, icrc_good, "{name}: ICRC verdict");
            }
        }
    }
}

/// Lengths and fields that do not fit give typed errors (and never panic).
#[test]
fn malformed_roce_frames_are_typed_errors() {
    use ferroce_proto::wire::Error;
    let ack = hex(V4_RC_ACK); // IPv4 at 14, UDP at 34, BTH at 42, AETH at 54, ICRC at 58
    let with = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = ack.clone();
        edit(&mut bytes);
        FrameRepr::parse(&bytes)
    };
    // PadCnt 3 with no payload: the pad would eat into the AETH.
    assert_eq!(
        with(&|b| b[43] |= 0x30),
        Err(Error::Malformed(
            "PadCnt exceeds the bytes after the headers"
        ))
    );
    // UDP.Length larger than the IP payload.
    assert!(matches!(with(&|b| b[39] = 0x40), Err(Error::Truncated(_))));
    // UDP.Length below 8.
    assert!(matches!(with(&|b| b[39] = 4), Err(Error::Malformed(_))));
    // UDP.Length too short for BTH + AETH + ICRC.
    assert!(matches!(
        with(&|b| b[39] = 8 + 12),
        Err(Error::Truncated(_))
    ));
    assert!(matches!(
        with(&|b| b[39] = 8 + 12 + 2 + 4),
        Err(Error::Truncated("AETH"))
    ));
    // IP Total Length beyond the frame, and shorter than its own header.
    assert!(matches!(with(&|b| b[17] = 0xFF), Err(Error::Truncated(_))));
    assert!(matches!(with(&|b| b[17] = 10), Err(Error::Malformed(_))));
    // IPv4 options announced but the UDP port then sits elsewhere: not RoCE any more.
    assert_eq!(
        with(&|b| b[14] = 0x46).map(|f| f.kind()),
        Ok(FrameKind::Other)
    );
    // A frame cut inside the ICRC.
    assert!(matches!(
        FrameRepr::parse(&ack[..ack.len() - 1]),
        Err(Error::Truncated(_))
    ));

    let v1 = hex(ROCEV1_RC_SEND_ONLY);
    let mut bad_next = v1.clone();
    bad_next[14 + 6] = 17;
    assert!(matches!(
        FrameRepr::parse(&bad_next),
        Err(Error::Malformed(_))
    ));
    let mut bad_version = v1.clone();
    bad_version[14] = 0x46;
    assert_eq!(
        FrameRepr::parse(&bad_version),
        Err(Error::Malformed("GRH IPVer is not 6"))
    );
    assert!(matches!(
        FrameRepr::parse(&v1[..50]),
        Err(Error::Truncated(_))
    ));

    let pfc = hex(PFC_PRIO3_FFFF);
    assert!(matches!(
        FrameRepr::parse(&pfc[..20]),
        Err(Error::Truncated(_))
    ));
    assert!(matches!(
        FrameRepr::parse(&pfc[..10]),
        Err(Error::Truncated("Ethernet header"))
    ));
    assert_eq!(
        Error::Truncated("UDP header").to_string(),
        "truncated: UDP header"
    );
}

/// Frames that are not RoCE or PFC are carried opaquely.
#[test]
fn other_frames_are_opaque() {
    // An ARP-like frame, and an IPv4 UDP frame to another port.
    let arp =
        hex("ffffffffffff020000000001080600010800060400010200000000010a0000010000000000000a000002");
    let frame = FrameRepr::parse(&arp).unwrap();
    assert_eq!(frame.kind(), FrameKind::Other);
    assert_eq!(frame.body, FrameBody::Other(arp[14..].to_vec()));
    assert_eq!(frame.emit(), arp);
    let mut dns = hex(V4_RC_SEND_ONLY);
    dns[36] = 0;
    dns[37] = 53;
    let frame = FrameRepr::parse(&dns).unwrap();
    assert_eq!(frame.kind(), FrameKind::Other);
    assert_eq!(frame.summary().opcode, None);
    assert_eq!(frame.emit(), dns);
}

/// The largest RoCE frame (what the NIC's receive FIFO reserves) and the MAC as a number.
#[test]
fn largest_roce_frame_and_mac_number() {
    use ferroce_proto::wire::ethernet::mac_to_u64;
    use ferroce_proto::wire::frame::MAX_ROCE_FRAME_LEN;
    // 18 + 40 + 8 + 12 + 16 + 4 + 4096 + 4
    assert_eq!(MAX_ROCE_FRAME_LEN, 4198);
    assert_eq!(
        mac_to_u64([0x01, 0x80, 0xC2, 0x00, 0x00, 0x01]),
        0x0180_C200_0001
    );
}
