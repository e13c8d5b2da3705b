//! Shared by the rx_* tests: the descriptor and payload of a frame according to
//! `ferroce_proto::wire::FrameRepr::parse` (the project's single source of truth for wire
//! formats), converted to the hardware descriptor `RoceHeader`; and PFC fields likewise.
#![allow(dead_code)]
use ferroce_hdl::header::{RoceHeader, L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::model::RxRelease;
use ferroce_proto::wire::{FrameBody, FrameRepr, PfcRepr, RoceNet};
use rust_hdl::prelude::*;

fn b<const N: usize>(x: u64) -> Bits<N> {
    let m = if N >= 64 { u64::MAX } else { (1u64 << N) - 1 };
    (x & m).into()
}

fn b128(x: &[u8; 16]) -> Bits<128> {
    let v = u128::from_be_bytes(*x);
    let mut r = Bits::<128>::default();
    r.set_bits::<64>(64, ((v >> 64) as u64).into());
    r.set_bits::<64>(0, (v as u64).into());
    r
}

fn mac(m: &[u8; 6]) -> Bits<48> {
    b(m.iter().fold(0u64, |a, x| a << 8 | *x as u64))
}

/// What proto's parser says the RX front end must release for `frame` if it accepts it:
/// `Roce` (descriptor + payload), `Pfc`, or `Nothing` for frames proto does not parse as RoCE
/// or PFC.
pub fn proto_release(frame: &[u8]) -> RxRelease {
    let Ok(fr) = FrameRepr::parse(frame) else {
        return RxRelease::Nothing;
    };
    match &fr.body {
        FrameBody::Pfc(PfcRepr::Pfc {
            class_enable,
            times,
        }) => RxRelease::Pfc {
            enable: *class_enable as u8,
            times: *times,
        },
        FrameBody::Roce(r) => {
            let mut h = RoceHeader {
                eth_dst: mac(&fr.eth.dst),
                eth_src: mac(&fr.eth.src),
                ..Default::default()
            };
            if let Some(v) = fr.eth.vlan {
                h.vlan = true;
                h.vlan_pcp = b(v.pcp as u64);
                h.vlan_dei = v.dei;
                h.vlan_vid = b(v.vid as u64);
            }
            match &r.net {
                RoceNet::Ipv4 { ip, udp } => {
                    h.l3 = L3_IPV4.into();
                    h.tclass = b(ip.tos as u64);
                    h.ip_id = b(ip.ident as u64);
                    h.ip_frag = b(ip.flags_frag as u64);
                    h.hop_limit = b(ip.ttl as u64);
                    h.ip4_src = b(u32::from_be_bytes(ip.src) as u64);
                    h.ip4_dst = b(u32::from_be_bytes(ip.dst) as u64);
                    h.udp_sport = b(udp.src_port as u64);
                    h.udp_dport = b(udp.dst_port as u64);
                    h.udp_csum = b(udp.checksum as u64);
                }
                RoceNet::Ipv6 { ip, udp } => {
                    h.l3 = L3_IPV6.into();
                    h.tclass = b(ip.traffic_class as u64);
                    h.flow_label = b(ip.flow_label as u64);
                    h.hop_limit = b(ip.hop_limit as u64);
                    h.ip6_src = b128(&ip.src);
                    h.ip6_dst = b128(&ip.dst);
                    h.udp_sport = b(udp.src_port as u64);
                    h.udp_dport = b(udp.dst_port as u64);
                    h.udp_csum = b(udp.checksum as u64);
                }
                RoceNet::RoceV1 { grh } => {
                    h.l3 = L3_ROCEV1.into();
                    h.tclass = b(grh.traffic_class as u64);
                    h.flow_label = b(grh.flow_label as u64);
                    h.hop_limit = b(grh.hop_limit as u64);
                    h.ip6_src = b128(&grh.sgid);
                    h.ip6_dst = b128(&grh.dgid);
                }
            }
            let t = &r.bth;
            h.opcode = b(t.opcode.0 as u64);
            h.se = t.solicited;
            h.mig_req = t.mig_req;
            h.pad_cnt = b(t.pad_cnt as u64);
            h.tver = b(t.tver as u64);
            h.pkey = b(t.pkey as u64);
            h.fecn = t.fecn;
            h.becn = t.becn;
            h.resv6 = b(t.resv6 as u64);
            h.dest_qp = b(t.dest_qp as u64);
            h.ack_req = t.ack_req;
            h.resv7 = b(t.resv7 as u64);
            h.psn = b(t.psn as u64);
            let e = &r.ext;
            if let Some(d) = e.deth {
                h.deth_qkey = b(d.qkey as u64);
                h.deth_src_qp = b(d.src_qp as u64);
            }
            if let Some(x) = e.reth {
                h.va = b(x.va);
                h.rkey = b(x.rkey as u64);
                h.dma_len = b(x.dma_len as u64);
            }
            if let Some(x) = e.atomic_eth {
                h.va = b(x.va);
                h.rkey = b(x.rkey as u64);
                h.swap_add = b(x.swap_add);
                h.compare = b(x.compare);
            }
            if let Some(x) = e.aeth {
                h.aeth_syndrome = b(x.syndrome as u64);
                h.aeth_msn = b(x.msn as u64);
            }
            if let Some(x) = e.atomic_ack_eth {
                h.atomic_orig = b(x.orig);
            }
            if let Some(x) = e.imm_dt {
                h.imm = b(x.imm as u64);
            }
            if let Some(x) = e.ieth {
                h.ieth_rkey = b(x.rkey as u64);
            }
            h.payload_len = b(r.payload.len() as u64);
            RxRelease::Roce {
                hdr: h,
                payload: r.payload.clone(),
            }
        }
        _ => RxRelease::Nothing,
    }
}

/// Minimal classic-pcap reader, independent of ferroce_proto (used to cross-check it).
pub fn pcap_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let le = match &bytes[..4] {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        m => panic!("not a classic pcap: magic {m:02x?}"),
    };
    let u32at = |p: usize| {
        let a = [bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]];
        if le {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let mut p = 24;
    let mut v = vec![];
    while p + 16 <= bytes.len() {
        let incl = u32at(p + 8) as usize;
        v.push(bytes[p + 16..p + 16 + incl].to_vec());
        p += 16 + incl;
    }
    v
}

/// A random valid frame built by ferroce_proto (`FrameRepr::new_roce`, finalized: lengths,
/// PadCnt, IPv4 checksum, ICRC, padding), independent of the hardware's own TX model.
/// `l3`: 0 IPv4, 1 IPv6, 2 RoCEv1.
pub fn proto_random_frame(
    rng: &mut ferroce_hdl::testbench::Rng,
    op: u8,
    l3: u64,
    vlan: bool,
    plen: usize,
    dst: u64,
) -> Vec<u8> {
    use ferroce_proto::wire::*;
    let mut r =
        |n: u32| -> u64 { rng.next_u64() & if n >= 64 { u64::MAX } else { (1u64 << n) - 1 } };
    let arr16 = |a: u64, b: u64| -> [u8; 16] {
        let mut x = [0u8; 16];
        x[..8].copy_from_slice(&a.to_be_bytes());
        x[8..].copy_from_slice(&b.to_be_bytes());
        x
    };
    let src6 = arr16(r(64), r(64));
    let dst6 = arr16(r(64), r(64));
    let eth = EthernetRepr {
        dst: dst.to_be_bytes()[2..].try_into().unwrap(),
        src: r(48).to_be_bytes()[2..].try_into().unwrap(),
        vlan: if vlan {
            Some(VlanTag::from_tci(r(16) as u16))
        } else {
            None
        },
        ethertype: 0,
    };
    let net = match l3 {
        0 => {
            let mut n = RoceNet::ipv4(
                (r(32) as u32).to_be_bytes(),
                (r(32) as u32).to_be_bytes(),
                r(16) as u16,
            );
            if let RoceNet::Ipv4 { ip, udp } = &mut n {
                ip.tos = r(8) as u8;
                ip.ttl = r(8) as u8;
                ip.ident = r(16) as u16;
                udp.checksum = r(16) as u16;
            }
            n
        }
        1 => {
            let mut n = RoceNet::ipv6(src6, dst6, r(16) as u16);
            if let RoceNet::Ipv6 { ip, .. } = &mut n {
                ip.traffic_class = r(8) as u8;
                ip.flow_label = r(20) as u32;
                ip.hop_limit = r(8) as u8;
            }
            n
        }
        _ => {
            let mut n = RoceNet::roce_v1(src6, dst6);
            if let RoceNet::RoceV1 { grh } = &mut n {
                grh.traffic_class = r(8) as u8;
                grh.flow_label = r(20) as u32;
                grh.hop_limit = r(8) as u8;
            }
            n
        }
    };
    let mut bth = BthRepr::new(Opcode(op), r(24) as u32, r(24) as u32);
    bth.solicited = r(1) == 1;
    bth.mig_req = r(1) == 1;
    bth.pkey = r(16) as u16;
    bth.fecn = r(1) == 1;
    bth.becn = r(1) == 1;
    bth.resv6 = r(6) as u8;
    bth.ack_req = r(1) == 1;
    bth.resv7 = r(7) as u8;
    let ext = ExtHeaders {
        deth: Some(DethRepr {
            qkey: r(32) as u32,
            src_qp: r(24) as u32,
            reserved: 0,
        }),
        reth: Some(RethRepr {
            va: r(64),
            rkey: r(32) as u32,
            dma_len: r(32) as u32,
        }),
        atomic_eth: Some(AtomicEthRepr {
            va: r(64),
            rkey: r(32) as u32,
            swap_add: r(64),
            compare: r(64),
        }),
        aeth: Some(AethRepr {
            syndrome: r(8) as u8,
            msn: r(24) as u32,
        }),
        atomic_ack_eth: Some(AtomicAckEthRepr { orig: r(64) }),
        imm_dt: Some(ImmDtRepr { imm: r(32) as u32 }),
        ieth: Some(IethRepr { rkey: r(32) as u32 }),
        cnp: None,
    };
    let payload = rng.bytes(plen);
    FrameRepr::new_roce(eth, net, bth, ext, payload).emit()
}
