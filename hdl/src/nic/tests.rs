//! Block tests of the NIC glue: the packet formatter (addressing an ACK) against hand-computed
//! headers, with its QP context read served through the read mux by a model of the CSR block's
//! fixed-latency port; synthesis smoke tests of the port muxes.
use super::*;
use crate::header::{RoceHeader, L3_IPV4, L3_IPV6};
use crate::testbench::{Bench, Stepper};
use ferroce_proto::host::config::{Gid, GidType};
use rust_hdl::prelude::*;

/// One QP's address vector as the CSR block's read port presents it.
#[derive(Clone, Copy)]
struct Av {
    dmac: u64,
    dgid: u128,
    sgid_index: u64,
    traffic_class: u64,
    hop_limit: u64,
    default_dscp: bool,
    flow_label: u64,
    udp_sport: u64,
    dest_qpn: u64,
    state: u64,
}

/// The packet request given to the formatter, and the device's `CFG_TRAFFIC`.
#[derive(Clone, Copy)]
struct Req {
    opcode: u64,
    plen: u64,
    cfg_traffic: u64,
    cfg_pfc: u64,
}

/// An ACK with the NIC's reset `CFG_TRAFFIC`.
fn ack_req() -> Req {
    Req {
        opcode: super::packet_formatter::OPCODE_RC_ACK,
        plen: 0,
        cfg_traffic: ferroce_proto::host::regs::find("CFG_TRAFFIC")
            .unwrap()
            .reset as u64,
        cfg_pfc: ferroce_proto::host::regs::find("CFG_PFC").unwrap().reset as u64,
    }
}

fn b128(x: u128) -> Bits<128> {
    let mut r = Bits::<128>::default();
    r.set_bits::<64>(64, ((x >> 64) as u64).into());
    r.set_bits::<64>(0, (x as u64).into());
    r
}

fn u128_of(b: Bits<128>) -> u128 {
    ((b.get_bits::<64>(64).to_u64() as u128) << 64) | b.get_bits::<64>(0).to_u64() as u128
}

fn gid_u128(g: Gid) -> u128 {
    u128::from_be_bytes(g.0)
}

/// Runs one ACK through the formatter. `grant_delay`: cycles the mux's port `a` keeps reading
/// (so `b`, the formatter, must wait). Returns the header and the cycles it took.
fn format_one(
    av: Av,
    gids: &[(usize, u128, GidType)],
    grant_delay: u64,
    hdr_stall: u64,
) -> (RoceHeader, u64) {
    format_req(ack_req(), av, gids, grant_delay, hdr_stall).expect("the ACK was not sent")
}

/// Runs one packet request through the formatter: its header and the cycles it took, or `None`
/// if the formatter discarded it (`cnp_drop`) instead of offering a header.
fn format_req(
    req: Req,
    av: Av,
    gids: &[(usize, u128, GidType)],
    grant_delay: u64,
    hdr_stall: u64,
) -> Option<(RoceHeader, u64)> {
    let mut fmt = Bench::new(PacketFormatter::<8>::default(), |u| &mut u.clock);
    let mut mux = Bench::new(QpcReadMux::<8>::default(), |u| &mut u.clock);
    let mut gid = [0u128; 16];
    let mut gid_type = 0u64;
    for &(n, g, t) in gids {
        gid[n] = g;
        gid_type |= (t as u64) << (2 * n);
    }
    {
        let u = fmt.uut();
        u.cfg_mac.next = 0x0200_0000_0002u64.into();
        u.cfg_traffic.next = req.cfg_traffic.into();
        u.cfg_pfc.next = req.cfg_pfc.into();
        u.cfg_udp_sport.next = (0xC000u64 | (14 << 16)).into();
        for (n, g) in gid.iter().enumerate() {
            let b = b128(*g);
            match n {
                0 => u.gid0.next = b,
                1 => u.gid1.next = b,
                2 => u.gid2.next = b,
                3 => u.gid3.next = b,
                4 => u.gid4.next = b,
                5 => u.gid5.next = b,
                6 => u.gid6.next = b,
                7 => u.gid7.next = b,
                8 => u.gid8.next = b,
                9 => u.gid9.next = b,
                10 => u.gid10.next = b,
                11 => u.gid11.next = b,
                12 => u.gid12.next = b,
                13 => u.gid13.next = b,
                14 => u.gid14.next = b,
                _ => u.gid15.next = b,
            }
        }
        u.gid_type.next = gid_type.into();
        u.pk_valid.next = true;
        u.pk_opcode.next = req.opcode.into();
        u.pk_plen.next = req.plen.into();
        u.pk_qpn.next = 17u64.into();
        u.pk_dest_qpn.next = 0x12_3456u64.into();
        u.pk_psn.next = 0xFF_FFFEu64.into();
        u.pk_syndrome.next = 0x62u64.into();
        u.pk_msn.next = 0x00_0203u64.into();
    }
    // the CSR model: a read strobe at edge t is answered during cycle t+2
    let mut pipe: [Option<u64>; 2] = [None, None];
    let mut cycles = 0u64;
    let mut stall = hdr_stall;
    let mut taken_ack = false;
    let mut dropped = false;
    loop {
        cycles += 1;
        assert!(cycles < 100, "no header after 100 cycles");
        // drive the mux from the formatter and the competing reader
        let (b_valid, b_qpn) = {
            let u = fmt.uut();
            (u.qpc.rd_valid.val(), u.qpc.rd_qpn.val())
        };
        let answer = pipe[1];
        {
            let m = mux.uut();
            m.a.rd_valid.next = cycles <= grant_delay;
            m.a.rd_qpn.next = 3u64.into();
            m.b.rd_valid.next = b_valid;
            m.b.rd_qpn.next = b_qpn;
            m.out.valid.next = answer.is_some();
        }
        mux.settle();
        let (rd_valid, rd_qpn, b_ready, b_data_valid, a_data_valid) = {
            let m = mux.uut();
            (
                m.out.rd_valid.val(),
                m.out.rd_qpn.val().to_u64(),
                m.b.rd_ready.val(),
                m.b.valid.val(),
                m.a.valid.val(),
            )
        };
        if let Some(q) = answer {
            // exactly one reader sees the answer, and it is the one that asked
            assert_eq!(b_data_valid, q == 17, "b_valid for a read of QP {q}");
            assert_eq!(a_data_valid, q == 3, "a_valid for a read of QP {q}");
        }
        {
            let u = fmt.uut();
            u.qpc.rd_ready.next = b_ready;
            u.qpc.valid.next = b_data_valid;
            u.qpc.dmac.next = av.dmac.into();
            u.qpc.dgid.next = b128(av.dgid);
            u.qpc.sgid_index.next = av.sgid_index.into();
            u.qpc.traffic_class.next = av.traffic_class.into();
            u.qpc.hop_limit.next = av.hop_limit.into();
            u.qpc.default_dscp.next = av.default_dscp;
            u.qpc.flow_label.next = av.flow_label.into();
            u.qpc.udp_sport.next = av.udp_sport.into();
            u.qpc.dest_qpn.next = av.dest_qpn.into();
            u.qpc.state.next = av.state.into();
            u.hdr_ready.next = stall == 0;
        }
        fmt.settle();
        let (hv, h, ack_ready) = {
            let u = fmt.uut();
            (u.hdr_valid.val(), u.hdr.val(), u.pk_ready.val())
        };
        if ack_ready && !taken_ack {
            taken_ack = true;
        } else if taken_ack {
            fmt.uut().pk_valid.next = false;
        }
        if hv && stall == 0 {
            assert!(!dropped);
            return Some((h, cycles));
        }
        if fmt.uut().cnp_drop.val() {
            assert_eq!(req.opcode, super::packet_formatter::OPCODE_RC_CNP);
            dropped = true;
        }
        if dropped && fmt.uut().pk_ready.val() {
            // back in Idle without offering anything
            return None;
        }
        if hv {
            stall -= 1;
        }
        pipe = [if rd_valid { Some(rd_qpn) } else { None }, pipe[0]];
        fmt.tick();
        mux.tick();
    }
}

fn base_av() -> Av {
    Av {
        dmac: 0x0200_0000_0001,
        dgid: gid_u128(Gid::from_ipv4("10.0.0.1".parse().unwrap())),
        sgid_index: 3,
        traffic_class: 0x68, // DSCP 26
        hop_limit: 61,
        default_dscp: false,
        flow_label: 0xABCDE,
        udp_sport: 0xD00D,
        dest_qpn: 0x00_0118,
        state: ferroce_proto::host::qp::QpState::Rts as u64,
    }
}

#[test]
fn ipv4_ack_is_addressed_from_the_qp_context() {
    let v4 = gid_u128(Gid::from_ipv4("10.0.0.2".parse().unwrap()));
    let (h, _) = format_one(base_av(), &[(3, v4, GidType::RoceV2Ipv4)], 0, 0);
    assert_eq!(h.opcode.to_u64(), 0x11);
    assert_eq!(h.l3.to_u64(), L3_IPV4);
    assert_eq!(h.eth_dst.to_u64(), 0x0200_0000_0001);
    assert_eq!(h.eth_src.to_u64(), 0x0200_0000_0002);
    assert_eq!(h.ip4_src.to_u64(), 0x0A00_0002);
    assert_eq!(h.ip4_dst.to_u64(), 0x0A00_0001);
    // DSCP from the QP (0x68 >> 2 = 26), ECN = CFG_TRAFFIC.DATA_ECN (ECT(0))
    assert_eq!(h.tclass.to_u64(), (26 << 2) | 2);
    assert_eq!(h.hop_limit.to_u64(), 61);
    assert_eq!(h.ip_frag.to_u64(), 0x4000);
    assert_eq!(h.udp_sport.to_u64(), 0xD00D);
    assert_eq!(h.udp_dport.to_u64(), 4791);
    assert_eq!(h.pkey.to_u64(), 0xFFFF);
    assert_eq!(h.dest_qp.to_u64(), 0x12_3456);
    assert_eq!(h.psn.to_u64(), 0xFF_FFFE);
    assert_eq!(h.aeth_syndrome.to_u64(), 0x62);
    assert_eq!(h.aeth_msn.to_u64(), 0x203);
    assert_eq!(h.payload_len.to_u64(), 0);
    // the header is a frame the proto crate accepts as an ACK with these fields
    let f = h.to_frame(&[]);
    let back = ferroce_proto::wire::FrameRepr::parse(&f.emit()).unwrap();
    assert_eq!(back, f);
    let s = back.summary();
    assert_eq!(s.opcode.map(|o| o.0), Some(0x11));
}

#[test]
fn ipv6_gid_frames_ipv6_and_defaults_apply() {
    let v6: u128 = 0xFD00_0000_0000_0000_0000_0000_0000_0002;
    let mut av = base_av();
    av.dgid = 0xFD00_0000_0000_0000_0000_0000_0000_0001;
    av.sgid_index = 15;
    av.default_dscp = true;
    av.udp_sport = 0;
    let (h, _) = format_one(
        av,
        &[
            (3, 0x1234, GidType::RoceV2Ipv4),
            (15, v6, GidType::RoceV2Ipv6),
        ],
        0,
        0,
    );
    assert_eq!(h.l3.to_u64(), L3_IPV6);
    assert_eq!(u128_of(h.ip6_src), v6);
    assert_eq!(u128_of(h.ip6_dst), av.dgid);
    assert_eq!(h.flow_label.to_u64(), 0xABCDE);
    // CFG_TRAFFIC default DSCP 26 because the AV says so; CFG_UDP_SPORT base for sport 0
    assert_eq!(h.tclass.to_u64(), (26 << 2) | 2);
    assert_eq!(h.udp_sport.to_u64(), 0xC000);
}

#[test]
fn formatter_waits_for_the_priority_reader_and_a_stalled_builder() {
    let v4 = gid_u128(Gid::from_ipv4("10.0.0.2".parse().unwrap()));
    let (h0, fast) = format_one(base_av(), &[(3, v4, GidType::RoceV2Ipv4)], 0, 0);
    let (h1, slow) = format_one(base_av(), &[(3, v4, GidType::RoceV2Ipv4)], 7, 5);
    assert_eq!(h0, h1, "contention changed the header");
    // 7 cycles of priority reads, the first of which overlaps the formatter's Idle cycle
    // (taking the ACK), plus 5 stalled offer cycles
    assert_eq!(slow, fast + 6 + 5, "fast {fast} slow {slow}");
    assert!(fast <= 6, "an uncontended ACK took {fast} cycles");
}

#[test]
fn port_muxes_synthesize() {
    crate::csr::synth_check(&mut MrPortMux::default(), "mr_mux");
    crate::csr::synth_check(&mut DmaWriteMux::default(), "dma_wr_mux");
    crate::csr::synth_check(&mut QpcReadMux::<8>::default(), "qpc_mux");
}

/// ECN by packet kind: distinct codepoints in the three `CFG_TRAFFIC` fields show which one each
/// kind takes; a CNP also takes `CNP_DSCP`, the QP's peer as DestQP, BECN, PSN 0, source port 0.
#[test]
fn ecn_and_dscp_follow_the_packet_kind() {
    use ferroce_proto::host::regs::cfg_traffic as ct;
    let v4 = gid_u128(Gid::from_ipv4("10.0.0.2".parse().unwrap()));
    let gids = [(3, v4, GidType::RoceV2Ipv4)];
    let traffic = (ct::DEFAULT_DSCP.place(26)
        | ct::DATA_ECN.place(1)
        | ct::CNP_DSCP.place(40)
        | ct::ACK_ECN.place(0)
        | ct::CNP_ECN.place(3)) as u64;
    let kind = |opcode: u64, plen: u64| {
        let req = Req {
            opcode,
            plen,
            cfg_traffic: traffic,
            ..ack_req()
        };
        format_req(req, base_av(), &gids, 0, 0).unwrap().0
    };
    use ferroce_proto::wire::Opcode;
    // requests and READ responses: DATA_ECN (ECT(1) here), the QP's DSCP 26
    for op in [
        Opcode::RC_SEND_ONLY,
        Opcode::RC_RDMA_WRITE_FIRST,
        Opcode::RC_RDMA_READ_REQUEST,
        Opcode::RC_RDMA_READ_RESPONSE_ONLY,
        Opcode::RC_COMPARE_SWAP,
    ] {
        let h = kind(op.0 as u64, 64);
        assert_eq!(h.tclass.to_u64(), (26 << 2) | 1, "opcode {:#x}", op.0);
        assert!(!h.becn);
    }
    // ACKs, NAKs and atomic ACKs: ACK_ECN (not ECT here)
    for op in [Opcode::RC_ACKNOWLEDGE, Opcode::RC_ATOMIC_ACKNOWLEDGE] {
        let h = kind(op.0 as u64, 0);
        assert_eq!(h.tclass.to_u64(), 26 << 2, "opcode {:#x}", op.0);
    }
    // CNP: CNP_DSCP and CNP_ECN whatever the AV's traffic class
    let h = kind(super::packet_formatter::OPCODE_RC_CNP, 0);
    assert_eq!(h.opcode.to_u64(), 0x81);
    assert_eq!(h.tclass.to_u64(), (40 << 2) | 3);
    assert!(h.becn && !h.fecn);
    assert_eq!(h.dest_qp.to_u64(), 0x118);
    assert_eq!(h.psn.to_u64(), 0);
    assert_eq!(h.udp_sport.to_u64(), 0);
    assert_eq!(h.payload_len.to_u64(), 0);
    // and a packet after the CNP does not inherit its BECN
    assert!(!kind(Opcode::RC_SEND_ONLY.0 as u64, 8).becn);
}

/// A CNP for a QP that is not in a receiving state is discarded (`cnp_drop`), not sent.
#[test]
fn cnp_needs_a_receiving_qp() {
    use ferroce_proto::host::qp::QpState;
    let v4 = gid_u128(Gid::from_ipv4("10.0.0.2".parse().unwrap()));
    let gids = [(3, v4, GidType::RoceV2Ipv4)];
    let req = Req {
        opcode: super::packet_formatter::OPCODE_RC_CNP,
        ..ack_req()
    };
    for st in [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
        QpState::Error,
    ] {
        let mut av = base_av();
        av.state = st as u64;
        let sent = format_req(req, av, &gids, 0, 0).is_some();
        let receiving = matches!(
            st,
            QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe
        );
        assert_eq!(sent, receiving, "{st:?}");
    }
}

/// `CFG_TRAFFIC.VLAN_TAG`: every kind of packet gets an 802.1Q tag with `VLAN_VID`, DEI 0, and
/// as PCP `CFG_PFC.DATA_PRIO`, or `CNP_PRIO` for a CNP; without it no frame is tagged.
#[test]
fn vlan_tag_carries_the_vid_and_the_kinds_priority() {
    use ferroce_proto::host::config::{PfcConfig, TrafficConfig};
    use ferroce_proto::wire::Opcode;
    let v4 = gid_u128(Gid::from_ipv4("10.0.0.2".parse().unwrap()));
    let gids = [(3, v4, GidType::RoceV2Ipv4)];
    let pfc = PfcConfig {
        data_prio: 5,
        cnp_prio: 2,
        ..PfcConfig::default()
    };
    for vlan in [None, Some(0u16), Some(100), Some(0xFFE)] {
        let traffic = TrafficConfig {
            vlan,
            ..TrafficConfig::default()
        };
        let req = |opcode: u64, plen: u64| Req {
            opcode,
            plen,
            cfg_traffic: traffic.encode().unwrap() as u64,
            cfg_pfc: pfc.encode().unwrap() as u64,
        };
        for (op, plen, pcp) in [
            (Opcode::RC_SEND_ONLY.0 as u64, 64, 5),
            (Opcode::RC_RDMA_READ_RESPONSE_ONLY.0 as u64, 64, 5),
            (Opcode::RC_ACKNOWLEDGE.0 as u64, 0, 5),
            (super::packet_formatter::OPCODE_RC_CNP, 0, 2),
            (Opcode::RC_RDMA_WRITE_MIDDLE.0 as u64, 1024, 5),
        ] {
            let h = format_req(req(op, plen), base_av(), &gids, 0, 0).unwrap().0;
            assert_eq!(h.vlan, vlan.is_some(), "opcode {op:#x}, {vlan:?}");
            if let Some(vid) = vlan {
                assert_eq!(h.vlan_vid.to_u64(), vid as u64, "opcode {op:#x}");
                assert_eq!(h.vlan_pcp.to_u64(), pcp, "opcode {op:#x}");
                assert!(!h.vlan_dei);
            }
            // the frame the TX builder makes of it: the tag on the wire, then the IPv4 header
            let frame = h.to_frame_bytes(&vec![0u8; plen as usize]);
            let eth = ferroce_proto::wire::EthernetFrame::new_checked(&frame[..]).unwrap();
            assert_eq!(
                eth.vlan().map(|t| (t.vid, t.pcp)),
                vlan.map(|v| (v, pcp as u8))
            );
        }
    }
    // VID 4095 is reserved: the driver's encoder refuses it
    assert!(TrafficConfig {
        vlan: Some(0xFFF),
        ..TrafficConfig::default()
    }
    .encode()
    .is_err());
}
