//! What a switch reads from (and writes into) a frame: its class, addresses and 5-tuple, the
//! ECN field. Frames are Ethernet without FCS, as the NIC's MAC streams carry them.
use ferroce_proto::wire::ethernet::{self, ethertype};
use ferroce_proto::wire::ipv4::Ipv4Packet;
use ferroce_proto::wire::pfc::{PfcPacket, PfcRepr, DST_MAC, PFC_LEN};
use ferroce_proto::wire::udp::ROCE_V2_PORT;

/// How a switch forwards a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// IPv4 or IPv6: routed (L3), ECMP over equal-cost next hops.
    Ip,
    /// RoCEv1 (EtherType 0x8915, GRH, no IP header): bridged (L2) only, never routed.
    RoceV1,
    /// MAC Control (PFC, PAUSE): consumed by the receiving port, never forwarded.
    MacControl,
    /// Anything else: bridged (L2) by destination MAC.
    Other,
}

/// The fields a switch looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    /// IPv4 addresses are IPv4-mapped (`::ffff:a.b.c.d`).
    pub src_ip: [u8; 16],
    pub dst_ip: [u8; 16],
    /// IP protocol / IPv6 next header (17: UDP).
    pub protocol: u8,
    pub sport: u16,
    pub dport: u16,
    /// DSCP (6 bits) and ECN (2 bits) of the IP header; 0 for non-IP frames.
    pub dscp: u8,
    pub ecn: u8,
    /// The 802.1Q tag's PCP of a tagged frame (IEEE 802.1Q 6.9.3), `None` when untagged.
    pub pcp: Option<u8>,
    /// A RoCEv2 frame (UDP destination port 4791).
    pub rocev2: bool,
    /// A RoCEv2 CNP (BTH opcode 0x81).
    pub cnp: bool,
    /// Offset of the IP header.
    pub l3: usize,
}

impl Header {
    /// The header of a frame nothing could be read from: kind `Other`, every field zero, L3
    /// right after an untagged Ethernet header.
    pub fn unparsed() -> Header {
        Header {
            kind: Kind::Other,
            dst_mac: [0; 6],
            src_mac: [0; 6],
            src_ip: [0; 16],
            dst_ip: [0; 16],
            protocol: 0,
            sport: 0,
            dport: 0,
            dscp: 0,
            ecn: 0,
            pcp: None,
            rocev2: false,
            cnp: false,
            l3: ethernet::HEADER_LEN,
        }
    }
}

/// ECN codepoint Congestion Experienced (RFC 3168).
pub const ECN_CE: u8 = 3;

/// BTH opcode of a RoCEv2 CNP (IBTA Vol 1, Annex A17).
const OPCODE_CNP: u8 = 0x81;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// IPv4-mapped IPv6 form of an IPv4 address.
pub fn mapped(v4: [u8; 4]) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[10] = 0xff;
    a[11] = 0xff;
    a[12..].copy_from_slice(&v4);
    a
}

/// Parse what the switch needs; `None` for a frame too short for its own headers (counted as
/// malformed and dropped by the switch).
pub fn parse(f: &[u8]) -> Option<Header> {
    if f.len() < ethernet::HEADER_LEN {
        return None;
    }
    let mut h = Header {
        dst_mac: f[0..6].try_into().ok()?,
        src_mac: f[6..12].try_into().ok()?,
        ..Header::unparsed()
    };
    let mut et = u16_at(f, 12);
    if et == ethertype::VLAN {
        if f.len() < ethernet::VLAN_HEADER_LEN {
            return None;
        }
        et = u16_at(f, 16);
        h.l3 = ethernet::VLAN_HEADER_LEN;
        h.pcp = ethernet::EthernetFrame::new_unchecked(f)
            .vlan()
            .map(|t| t.pcp);
    }
    let l3 = h.l3;
    let l4 = match et {
        ethertype::MAC_CONTROL => {
            h.kind = Kind::MacControl;
            return Some(h);
        }
        ethertype::ROCE_V1 => {
            // the GRH has the IPv6 header's layout: its traffic class selects the priority
            h.kind = Kind::RoceV1;
            if f.len() >= l3 + 40 {
                let tc = ((f[l3] & 0xf) << 4) | (f[l3 + 1] >> 4);
                h.dscp = tc >> 2;
                h.ecn = tc & 3;
            }
            return Some(h);
        }
        ethertype::IPV4 => {
            if f.len() < l3 + 20 {
                return None;
            }
            let ihl = (f[l3] & 0xf) as usize * 4;
            h.dscp = f[l3 + 1] >> 2;
            h.ecn = f[l3 + 1] & 3;
            h.protocol = f[l3 + 9];
            h.src_ip = mapped(f[l3 + 12..l3 + 16].try_into().ok()?);
            h.dst_ip = mapped(f[l3 + 16..l3 + 20].try_into().ok()?);
            l3 + ihl
        }
        ethertype::IPV6 => {
            if f.len() < l3 + 40 {
                return None;
            }
            let tc = ((f[l3] & 0xf) << 4) | (f[l3 + 1] >> 4);
            h.dscp = tc >> 2;
            h.ecn = tc & 3;
            h.protocol = f[l3 + 6];
            h.src_ip = f[l3 + 8..l3 + 24].try_into().ok()?;
            h.dst_ip = f[l3 + 24..l3 + 40].try_into().ok()?;
            l3 + 40
        }
        _ => return Some(h),
    };
    h.kind = Kind::Ip;
    if h.protocol == 17 && f.len() >= l4 + 8 {
        h.sport = u16_at(f, l4);
        h.dport = u16_at(f, l4 + 2);
        h.rocev2 = h.dport == ROCE_V2_PORT;
        h.cnp = h.rocev2 && f.len() > l4 + 8 && f[l4 + 8] == OPCODE_CNP;
    }
    Some(h)
}

/// Set ECN to CE in an ECN-capable IP frame (and fix the IPv4 header checksum). Returns false
/// (frame unchanged) for Not-ECT or non-IP frames.
pub fn mark_ce(f: &mut [u8], h: &Header) -> bool {
    if h.kind != Kind::Ip || h.ecn == 0 {
        return false;
    }
    let l3 = h.l3;
    if f[l3] >> 4 == 4 {
        f[l3 + 1] |= ECN_CE;
        let ihl = (f[l3] & 0xf) as usize * 4;
        let mut p = Ipv4Packet::new_unchecked(&mut f[l3..l3 + ihl]);
        p.fill_checksum();
    } else {
        f[l3 + 1] |= ECN_CE << 4;
    }
    true
}

/// A PFC frame from `src` pausing priority `prio` for `quanta` (0: resume), padded to the
/// minimum frame (IEEE 802.1Qbb).
pub fn pfc_frame(src: [u8; 6], prio: u8, quanta: u16) -> Vec<u8> {
    let mut f = vec![0u8; ethernet::MIN_FRAME_LEN];
    f[0..6].copy_from_slice(&DST_MAC);
    f[6..12].copy_from_slice(&src);
    f[12..14].copy_from_slice(&ethertype::MAC_CONTROL.to_be_bytes());
    PfcRepr::pause_priority(prio, quanta).emit(&mut PfcPacket::new_unchecked(
        &mut f[ethernet::HEADER_LEN..ethernet::HEADER_LEN + PFC_LEN],
    ));
    f
}

/// The pause times a MAC Control frame asks for, per priority (`None`: leaves it alone).
pub fn pause_times(f: &[u8], h: &Header) -> [Option<u16>; 8] {
    let mut t = [None; 8];
    if let Ok(p) = PfcPacket::new_checked(&f[h.l3..]) {
        if let Ok(r) = PfcRepr::parse(&p) {
            for (prio, slot) in t.iter_mut().enumerate() {
                *slot = r.time_for(prio as u8);
            }
        }
    }
    t
}

/// A UDP/IPv4 frame of a plain traffic source (zero payload).
pub fn udp_frame(src_mac: [u8; 6], src_ip: [u8; 4], s: &crate::Source) -> Vec<u8> {
    let len = s.frame_bytes.max(ethernet::MIN_FRAME_LEN);
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&s.dst_mac);
    f[6..12].copy_from_slice(&src_mac);
    f[12..14].copy_from_slice(&ethertype::IPV4.to_be_bytes());
    let l3 = ethernet::HEADER_LEN;
    let ip_len = (len - l3) as u16;
    let ip = &mut f[l3..];
    ip[0] = 0x45;
    ip[1] = (s.dscp << 2) | (s.ecn & 3);
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&src_ip);
    ip[16..20].copy_from_slice(&s.dst_ip);
    Ipv4Packet::new_unchecked(&mut ip[..20]).fill_checksum();
    let udp = &mut f[l3 + 20..];
    udp[0..2].copy_from_slice(&s.sport.to_be_bytes());
    udp[2..4].copy_from_slice(&s.dport.to_be_bytes());
    udp[4..6].copy_from_slice(&(ip_len - 20).to_be_bytes());
    f
}
