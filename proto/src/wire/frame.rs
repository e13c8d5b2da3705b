//! A whole Ethernet frame (without FCS) as one value: [`FrameRepr`].
//!
//! Two ways to get bytes out:
//!
//! * [`FrameRepr::emit`] is byte-exact: it writes what the repr holds, lengths, pad bytes, ICRC,
//!   a wrong IPv4 checksum and trailing Ethernet padding included, so `emit(parse(b)) == b` for
//!   every frame `parse` accepts.
//! * [`FrameRepr::finalize`] first makes the repr consistent (extension headers matching the
//!   opcode, PadCnt and pad, IP/UDP/GRH lengths, IPv4 checksum, ICRC, minimum-size padding), for
//!   callers that build frames from fields: [`FrameRepr::new_roce`] does this for them.
//!
//! Parsing locates the ICRC from UDP.Length (RoCEv2) or the GRH PayLen (RoCEv1), never from the
//! end of the frame, because short frames carry Ethernet padding after the ICRC (docs/PROTOCOL.md
//! §1).

use core::fmt::Write as _;

use crate::icrc::{self, IcrcNet, ICRC_LEN};

use super::bth::{Bth, BthRepr};
use super::ethernet::{ethertype, EthernetFrame, EthernetRepr, VlanTag, MIN_FRAME_LEN};
use super::ext::ExtHeaders;
use super::grh::{self, Grh, GrhRepr};
use super::ipv4::{self, Ipv4Packet, Ipv4Repr};
use super::ipv6::{self, Ipv6Packet, Ipv6Repr};
use super::opcode::Opcode;
use super::pfc::{self, PfcPacket, PfcRepr};

/// The largest RoCE frame, FCS excluded: a tagged Ethernet header, IPv6, UDP, BTH, RETH and
/// ImmDt (RDMA WRITE Only with Immediate), a 4096-byte PMTU payload and the ICRC (4198 bytes).
pub const MAX_ROCE_FRAME_LEN: usize = super::ethernet::VLAN_HEADER_LEN
    + ipv6::HEADER_LEN
    + super::udp::HEADER_LEN
    + BthRepr::HEADER_LEN
    + super::opcode::header_len::RETH
    + super::opcode::header_len::IMM_DT
    + crate::flow::Pmtu::Mtu4096.bytes() as usize
    + ICRC_LEN;
use super::udp::{self, UdpPacket, UdpRepr, ROCE_V2_PORT};
use super::{get_u16, Error, Result};

/// The network layer under the IB transport headers, with its headers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RoceNet {
    /// RoCEv2 over IPv4 (EtherType 0x0800, UDP port 4791).
    Ipv4 { ip: Ipv4Repr, udp: UdpRepr },
    /// RoCEv2 over IPv6 (EtherType 0x86DD, UDP port 4791).
    Ipv6 { ip: Ipv6Repr, udp: UdpRepr },
    /// RoCEv1 (EtherType 0x8915): a GRH then the BTH.
    RoceV1 { grh: GrhRepr },
}

impl RoceNet {
    /// RoCEv2 over IPv4 with rxe-like defaults ([`Ipv4Repr::roce`], [`UdpRepr::roce`]).
    pub fn ipv4(src: [u8; 4], dst: [u8; 4], src_port: u16) -> RoceNet {
        RoceNet::Ipv4 {
            ip: Ipv4Repr::roce(src, dst),
            udp: UdpRepr::roce(src_port),
        }
    }

    /// RoCEv2 over IPv6 with rxe-like defaults ([`Ipv6Repr::roce`], [`UdpRepr::roce`]).
    pub fn ipv6(src: [u8; 16], dst: [u8; 16], src_port: u16) -> RoceNet {
        RoceNet::Ipv6 {
            ip: Ipv6Repr::roce(src, dst),
            udp: UdpRepr::roce(src_port),
        }
    }

    /// RoCEv1 between two GIDs ([`GrhRepr::new`]).
    pub fn roce_v1(sgid: [u8; 16], dgid: [u8; 16]) -> RoceNet {
        RoceNet::RoceV1 {
            grh: GrhRepr::new(sgid, dgid),
        }
    }

    /// Which ICRC masking applies.
    pub const fn icrc_net(&self) -> IcrcNet {
        match self {
            RoceNet::Ipv4 { .. } => IcrcNet::Ipv4,
            RoceNet::Ipv6 { .. } => IcrcNet::Ipv6,
            RoceNet::RoceV1 { .. } => IcrcNet::RoceV1,
        }
    }

    /// The EtherType that carries this network layer.
    pub const fn ethertype(&self) -> u16 {
        match self {
            RoceNet::Ipv4 { .. } => ethertype::IPV4,
            RoceNet::Ipv6 { .. } => ethertype::IPV6,
            RoceNet::RoceV1 { .. } => ethertype::ROCE_V1,
        }
    }

    /// Bytes of IP + UDP headers, or of the GRH.
    pub fn header_len(&self) -> usize {
        match self {
            RoceNet::Ipv4 { ip, .. } => ip.buffer_len() + udp::HEADER_LEN,
            RoceNet::Ipv6 { .. } => ipv6::HEADER_LEN + udp::HEADER_LEN,
            RoceNet::RoceV1 { .. } => grh::HEADER_LEN,
        }
    }

    /// ECN bits of the IPv4 TOS / IPv6 or GRH traffic class (3 = CE).
    pub const fn ecn(&self) -> u8 {
        match self {
            RoceNet::Ipv4 { ip, .. } => ip.tos & 0x3,
            RoceNet::Ipv6 { ip, .. } => ip.traffic_class & 0x3,
            RoceNet::RoceV1 { grh } => grh.traffic_class & 0x3,
        }
    }

    /// The UDP header, for RoCEv2.
    pub const fn udp(&self) -> Option<&UdpRepr> {
        match self {
            RoceNet::Ipv4 { udp, .. } | RoceNet::Ipv6 { udp, .. } => Some(udp),
            RoceNet::RoceV1 { .. } => None,
        }
    }

    /// Writes the headers into the first `header_len()` bytes of `buf`.
    fn emit(&self, buf: &mut [u8]) {
        match self {
            RoceNet::Ipv4 { ip, udp } => {
                let ip_len = ip.buffer_len();
                ip.emit(&mut Ipv4Packet::new_unchecked(&mut buf[..ip_len]));
                udp.emit(&mut UdpPacket::new_unchecked(&mut buf[ip_len..]));
            }
            RoceNet::Ipv6 { ip, udp } => {
                ip.emit(&mut Ipv6Packet::new_unchecked(&mut buf[..ipv6::HEADER_LEN]));
                udp.emit(&mut UdpPacket::new_unchecked(&mut buf[ipv6::HEADER_LEN..]));
            }
            RoceNet::RoceV1 { grh } => {
                grh.emit(&mut Grh::new_unchecked(&mut buf[..grh::HEADER_LEN]))
            }
        }
    }

    /// Sets every length and derived field for an IB transport part of `ib_len` bytes
    /// (BTH through ICRC). Lengths that do not fit in 16 bits saturate.
    fn fix_lengths(&mut self, ib_len: usize) {
        let len16 = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        match self {
            RoceNet::Ipv4 { ip, udp } => {
                ip.protocol = ipv4::PROTOCOL_UDP;
                ip.total_len = len16(ip.buffer_len() + udp::HEADER_LEN + ib_len);
                ip.wrong_checksum = None;
                udp.dst_port = ROCE_V2_PORT;
                udp.length = len16(udp::HEADER_LEN + ib_len);
            }
            RoceNet::Ipv6 { ip, udp } => {
                ip.next_header = ipv6::NEXT_HEADER_UDP;
                ip.payload_len = len16(udp::HEADER_LEN + ib_len);
                udp.dst_port = ROCE_V2_PORT;
                udp.length = len16(udp::HEADER_LEN + ib_len);
            }
            RoceNet::RoceV1 { grh } => {
                grh.next_header = grh::NEXT_HEADER_IBA;
                grh.payload_len = len16(ib_len);
            }
        }
    }
}

/// A RoCE packet: network headers, BTH, extension headers, payload, pad and ICRC.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoceRepr {
    pub net: RoceNet,
    pub bth: BthRepr,
    pub ext: ExtHeaders,
    /// Message data only: pad bytes excluded.
    pub payload: Vec<u8>,
    /// The pad bytes as found (`bth.pad_cnt` of them, zero when sent correctly); carried so
    /// non-zero pad re-emits exactly. They are covered by the ICRC.
    pub pad: Vec<u8>,
    /// The ICRC as found on the wire: `icrc.to_le_bytes()` are the 4 wire bytes.
    pub icrc: u32,
}

impl RoceRepr {
    /// A packet from its fields, finalized (pad, lengths, ICRC filled in).
    pub fn new(net: RoceNet, bth: BthRepr, ext: ExtHeaders, payload: Vec<u8>) -> RoceRepr {
        let mut roce = RoceRepr {
            net,
            bth,
            ext,
            payload,
            pad: Vec::new(),
            icrc: 0,
        };
        roce.finalize();
        roce
    }

    /// L_ib: BTH + extension headers + payload + pad + ICRC, the bytes UDP.Length − 8 (or the
    /// GRH PayLen) counts.
    pub fn ib_len(&self) -> usize {
        BthRepr::HEADER_LEN + self.ext.buffer_len() + self.payload.len() + self.pad.len() + ICRC_LEN
    }

    /// Bytes `emit` writes: network headers + L_ib.
    pub fn buffer_len(&self) -> usize {
        self.net.header_len() + self.ib_len()
    }

    /// Writes everything the ICRC covers (network headers to the last pad byte) into the first
    /// `buffer_len() - 4` bytes of `buf`.
    fn emit_covered(&self, buf: &mut [u8]) {
        let mut at = self.net.header_len();
        self.net.emit(&mut buf[..at]);
        self.bth.emit(&mut Bth::new_unchecked(
            &mut buf[at..at + BthRepr::HEADER_LEN],
        ));
        at += BthRepr::HEADER_LEN;
        let ext_len = self.ext.buffer_len();
        self.ext.emit(&mut buf[at..at + ext_len]);
        at += ext_len;
        buf[at..at + self.payload.len()].copy_from_slice(&self.payload);
        at += self.payload.len();
        buf[at..at + self.pad.len()].copy_from_slice(&self.pad);
    }

    /// Writes the packet, ICRC as carried, into the first `buffer_len()` bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) {
        let covered = self.buffer_len() - ICRC_LEN;
        self.emit_covered(&mut buf[..covered]);
        buf[covered..covered + ICRC_LEN].copy_from_slice(&self.icrc.to_le_bytes());
    }

    /// The ICRC these fields call for (whatever `icrc` holds).
    ///
    /// IPv4 options are not defined for RoCE (rxe's ICRC assumes a 20-byte header); if a frame
    /// has them, the CRC is taken over the fixed 20 bytes followed by UDP onward, options
    /// skipped, so the masks land on the right fields.
    pub fn compute_icrc(&self) -> u32 {
        let mut covered = vec![0u8; self.buffer_len() - ICRC_LEN];
        self.emit_covered(&mut covered);
        if let RoceNet::Ipv4 { ip, .. } = &self.net {
            if ip.has_options() {
                covered.drain(ipv4::HEADER_LEN..ip.buffer_len());
            }
        }
        icrc::compute(self.net.icrc_net(), &covered)
    }

    /// True when the carried ICRC is the one the fields call for.
    pub fn icrc_ok(&self) -> bool {
        self.icrc == self.compute_icrc()
    }

    /// Makes the packet consistent: extension headers conform to the opcode (missing ones added
    /// as zero, extra ones dropped), PadCnt = (−payload) & 3 with zero pad bytes, IP/UDP/GRH
    /// lengths, protocol/next-header, UDP port 4791, IPv4 checksum recomputed, ICRC filled.
    /// Addresses, ports, TOS/TTL, ident, flags and all BTH fields other than PadCnt are kept.
    pub fn finalize(&mut self) {
        self.ext.conform_to(self.bth.opcode);
        let pad_cnt = self.payload.len().wrapping_neg() & 3;
        self.bth.pad_cnt = pad_cnt as u8;
        self.pad = vec![0; pad_cnt];
        let ib_len = self.ib_len();
        self.net.fix_lengths(ib_len);
        self.icrc = self.compute_icrc();
    }

    /// Parses the IB transport part: `ib` is exactly L_ib bytes (BTH through ICRC), as bounded by
    /// UDP.Length or the GRH PayLen.
    fn parse_ib(net: RoceNet, ib: &[u8]) -> Result<RoceRepr> {
        let Some(covered_len) = ib.len().checked_sub(ICRC_LEN) else {
            return Err(Error::Truncated("ICRC within the UDP/GRH length"));
        };
        let (covered, icrc_bytes) = ib.split_at(covered_len);
        let icrc = u32::from_le_bytes([icrc_bytes[0], icrc_bytes[1], icrc_bytes[2], icrc_bytes[3]]);
        let bth = BthRepr::parse(&Bth::new_checked(covered)?)?;
        let after_bth = &covered[BthRepr::HEADER_LEN..];
        let (ext, ext_len) = ExtHeaders::parse(bth.opcode, after_bth)?;
        let rest = &after_bth[ext_len..];
        let pad_cnt = usize::from(bth.pad_cnt);
        let Some(payload_len) = rest.len().checked_sub(pad_cnt) else {
            return Err(Error::Malformed(
                "PadCnt exceeds the bytes after the headers",
            ));
        };
        let (payload, pad) = rest.split_at(payload_len);
        Ok(RoceRepr {
            net,
            bth,
            ext,
            payload: payload.to_vec(),
            pad: pad.to_vec(),
            icrc,
        })
    }

    /// Parses RoCEv2 over IPv4 from the IP header on; returns the packet and the bytes used.
    fn parse_ipv4(l3: &[u8]) -> Result<(RoceRepr, usize)> {
        let ip_view = Ipv4Packet::new_checked(l3)?;
        let ip = Ipv4Repr::parse(&ip_view)?;
        let udp_view = UdpPacket::new_checked(ip_view.payload())?;
        let udp = UdpRepr::parse(&udp_view)?;
        let used = ip_view.header_len() + usize::from(udp.length);
        let roce = Self::parse_ib(RoceNet::Ipv4 { ip, udp }, udp_view.payload())?;
        Ok((roce, used))
    }

    /// Parses RoCEv2 over IPv6 from the IP header on; returns the packet and the bytes used.
    fn parse_ipv6(l3: &[u8]) -> Result<(RoceRepr, usize)> {
        let ip_view = Ipv6Packet::new_checked(l3)?;
        let ip = Ipv6Repr::parse(&ip_view)?;
        let udp_view = UdpPacket::new_checked(ip_view.payload())?;
        let udp = UdpRepr::parse(&udp_view)?;
        let used = ipv6::HEADER_LEN + usize::from(udp.length);
        let roce = Self::parse_ib(RoceNet::Ipv6 { ip, udp }, udp_view.payload())?;
        Ok((roce, used))
    }

    /// Parses RoCEv1 from the GRH on; returns the packet and the bytes used.
    fn parse_roce_v1(l3: &[u8]) -> Result<(RoceRepr, usize)> {
        let grh_view = Grh::new_checked(l3)?;
        let grh = GrhRepr::parse(&grh_view)?;
        if grh.next_header != grh::NEXT_HEADER_IBA {
            return Err(Error::Malformed(
                "GRH next header is not 0x1B (IBA transport)",
            ));
        }
        let used = grh::HEADER_LEN + usize::from(grh.payload_len);
        let roce = Self::parse_ib(RoceNet::RoceV1 { grh }, grh_view.payload())?;
        Ok((roce, used))
    }
}

/// What follows the Ethernet header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
// A frame is a short-lived value handled one at a time; boxing the RoCE variant would only make
// every match clumsier.
#[allow(clippy::large_enum_variant)]
pub enum FrameBody {
    /// RoCEv2 (IPv4/IPv6) or RoCEv1, CNPs included.
    Roce(RoceRepr),
    /// PFC or PAUSE (EtherType 0x8808); its zero padding is in [`FrameRepr::trailing`].
    Pfc(PfcRepr),
    /// Anything else: every byte after the Ethernet header, verbatim.
    Other(Vec<u8>),
}

/// Coarse frame classification, for logs and the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// RoCEv2 over IPv4 or IPv6, except CNPs.
    RoceV2,
    /// RoCEv1, except CNPs.
    RoceV1,
    /// A CNP (opcode 0x81), over any network layer.
    Cnp,
    /// 802.1Qbb PFC.
    Pfc,
    /// Legacy 802.3x PAUSE.
    Pause,
    /// Not RoCE, PFC or PAUSE.
    Other,
}

impl FrameKind {
    /// "roce_v2", "roce_v1", "cnp", "pfc", "pause" or "other".
    pub const fn name(self) -> &'static str {
        match self {
            FrameKind::RoceV2 => "roce_v2",
            FrameKind::RoceV1 => "roce_v1",
            FrameKind::Cnp => "cnp",
            FrameKind::Pfc => "pfc",
            FrameKind::Pause => "pause",
            FrameKind::Other => "other",
        }
    }
}

/// An Ethernet frame without FCS.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FrameRepr {
    pub eth: EthernetRepr,
    pub body: FrameBody,
    /// Bytes after everything the headers account for: Ethernet padding after the ICRC or after
    /// a PFC body, and any bytes inside the IP datagram past UDP.Length. Kept so `emit`
    /// reproduces the frame byte for byte.
    pub trailing: Vec<u8>,
}

/// How [`FrameRepr::parse`] decided to read the bytes after the Ethernet header.
enum Class {
    RoceV2Ipv4,
    RoceV2Ipv6,
    RoceV1,
    Pfc,
    Other,
}

/// Decides what the bytes after the Ethernet header are, looking only at the few fields that
/// identify RoCE and PFC. A frame that cannot be identified (not IP, not UDP to port 4791, a
/// non-first fragment, an IP header too short to hold the ports) is `Other`; once identified,
/// every inconsistency is an error.
fn classify(ethertype: u16, l3: &[u8]) -> Class {
    match ethertype {
        ethertype::IPV4 => {
            let Some(&ver_ihl) = l3.first() else {
                return Class::Other;
            };
            let ihl_len = usize::from(ver_ihl & 0x0F) * 4;
            let is_roce = ver_ihl >> 4 == 4
                && ihl_len >= ipv4::HEADER_LEN
                && l3.len() >= ihl_len + 4
                && l3[9] == ipv4::PROTOCOL_UDP
                && get_u16(l3, 6) & ipv4::FRAG_OFFSET_MASK == 0
                && get_u16(l3, ihl_len + 2) == ROCE_V2_PORT;
            if is_roce {
                Class::RoceV2Ipv4
            } else {
                Class::Other
            }
        }
        ethertype::IPV6 => {
            let is_roce = l3.len() >= ipv6::HEADER_LEN + 4
                && l3[0] >> 4 == 6
                && l3[6] == ipv6::NEXT_HEADER_UDP
                && get_u16(l3, ipv6::HEADER_LEN + 2) == ROCE_V2_PORT;
            if is_roce {
                Class::RoceV2Ipv6
            } else {
                Class::Other
            }
        }
        ethertype::ROCE_V1 => Class::RoceV1,
        ethertype::MAC_CONTROL if l3.len() >= 2 => match get_u16(l3, 0) {
            pfc::OPCODE_PFC | pfc::OPCODE_PAUSE => Class::Pfc,
            _ => Class::Other,
        },
        _ => Class::Other,
    }
}

impl FrameRepr {
    /// Parses a frame (without FCS). Never panics; RoCE and PFC frames whose lengths or fields do
    /// not fit are errors, unidentified frames are [`FrameBody::Other`].
    pub fn parse(bytes: &[u8]) -> Result<FrameRepr> {
        let eth_view = EthernetFrame::new_checked(bytes)?;
        let eth = EthernetRepr::parse(&eth_view)?;
        let l3 = eth_view.payload();
        let (body, used) = match classify(eth.ethertype, l3) {
            Class::RoceV2Ipv4 => {
                let (roce, used) = RoceRepr::parse_ipv4(l3)?;
                (FrameBody::Roce(roce), used)
            }
            Class::RoceV2Ipv6 => {
                let (roce, used) = RoceRepr::parse_ipv6(l3)?;
                (FrameBody::Roce(roce), used)
            }
            Class::RoceV1 => {
                let (roce, used) = RoceRepr::parse_roce_v1(l3)?;
                (FrameBody::Roce(roce), used)
            }
            Class::Pfc => {
                let pfc = PfcRepr::parse(&PfcPacket::new_checked(l3)?)?;
                (FrameBody::Pfc(pfc), pfc.buffer_len())
            }
            Class::Other => (FrameBody::Other(l3.to_vec()), l3.len()),
        };
        Ok(FrameRepr {
            eth,
            body,
            trailing: l3[used..].to_vec(),
        })
    }

    /// A finished RoCE frame built from fields: see [`FrameRepr::finalize`] for what is filled
    /// in (EtherType, PadCnt, lengths, checksum, ICRC, padding to 60 bytes).
    pub fn new_roce(
        eth: EthernetRepr,
        net: RoceNet,
        bth: BthRepr,
        ext: ExtHeaders,
        payload: Vec<u8>,
    ) -> FrameRepr {
        let roce = RoceRepr {
            net,
            bth,
            ext,
            payload,
            pad: Vec::new(),
            icrc: 0,
        };
        FrameRepr {
            eth,
            body: FrameBody::Roce(roce),
            trailing: Vec::new(),
        }
        .finalized()
    }

    /// A finished PFC/PAUSE frame from `src`, to the MAC Control multicast address, untagged,
    /// padded to 60 bytes.
    pub fn new_pfc(src: [u8; 6], pfc: PfcRepr) -> FrameRepr {
        let eth = EthernetRepr {
            dst: pfc::DST_MAC,
            src,
            vlan: None,
            ethertype: ethertype::MAC_CONTROL,
        };
        FrameRepr {
            eth,
            body: FrameBody::Pfc(pfc),
            trailing: Vec::new(),
        }
        .finalized()
    }

    /// Makes the frame consistent for sending: the EtherType follows the body, a RoCE body is
    /// finalized ([`RoceRepr::finalize`]), and `trailing` becomes the zero padding that brings
    /// the frame to the 60-byte minimum (empty when already long enough).
    pub fn finalize(&mut self) {
        match &mut self.body {
            FrameBody::Roce(roce) => {
                self.eth.ethertype = roce.net.ethertype();
                roce.finalize();
            }
            FrameBody::Pfc(_) => self.eth.ethertype = ethertype::MAC_CONTROL,
            FrameBody::Other(_) => {}
        }
        self.trailing.clear();
        let unpadded = self.buffer_len();
        self.trailing
            .resize(MIN_FRAME_LEN.saturating_sub(unpadded), 0);
    }

    /// [`finalize`](Self::finalize) by value.
    pub fn finalized(mut self) -> FrameRepr {
        self.finalize();
        self
    }

    /// Bytes `emit` writes.
    pub fn buffer_len(&self) -> usize {
        self.eth.buffer_len() + self.body_len() + self.trailing.len()
    }

    fn body_len(&self) -> usize {
        match &self.body {
            FrameBody::Roce(roce) => roce.buffer_len(),
            FrameBody::Pfc(pfc) => pfc.buffer_len(),
            FrameBody::Other(bytes) => bytes.len(),
        }
    }

    /// The frame's bytes exactly as the repr holds them (no length, checksum or ICRC fix-up).
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; self.buffer_len()];
        self.eth
            .emit(&mut EthernetFrame::new_unchecked(&mut buf[..]));
        let start = self.eth.buffer_len();
        let end = start + self.body_len();
        let body = &mut buf[start..end];
        match &self.body {
            FrameBody::Roce(roce) => roce.emit(body),
            FrameBody::Pfc(pfc) => pfc.emit(&mut PfcPacket::new_unchecked(body)),
            FrameBody::Other(bytes) => body.copy_from_slice(bytes),
        }
        buf[end..].copy_from_slice(&self.trailing);
        buf
    }

    /// The RoCE packet, if the frame is one.
    pub fn roce(&self) -> Option<&RoceRepr> {
        match &self.body {
            FrameBody::Roce(roce) => Some(roce),
            _ => None,
        }
    }

    /// The RoCE packet, mutable.
    pub fn roce_mut(&mut self) -> Option<&mut RoceRepr> {
        match &mut self.body {
            FrameBody::Roce(roce) => Some(roce),
            _ => None,
        }
    }

    /// Classification for logs and the CLI.
    pub fn kind(&self) -> FrameKind {
        match &self.body {
            FrameBody::Roce(roce) if roce.bth.opcode.is_cnp() => FrameKind::Cnp,
            FrameBody::Roce(RoceRepr {
                net: RoceNet::RoceV1 { .. },
                ..
            }) => FrameKind::RoceV1,
            FrameBody::Roce(_) => FrameKind::RoceV2,
            FrameBody::Pfc(PfcRepr::Pfc { .. }) => FrameKind::Pfc,
            FrameBody::Pfc(PfcRepr::Pause { .. }) => FrameKind::Pause,
            FrameBody::Other(_) => FrameKind::Other,
        }
    }

    /// The BTH of a RoCE frame.
    pub fn bth(&self) -> Option<&BthRepr> {
        self.roce().map(|roce| &roce.bth)
    }

    /// The opcode of a RoCE frame.
    pub fn opcode(&self) -> Option<Opcode> {
        self.bth().map(|bth| bth.opcode)
    }

    /// The destination QP of a RoCE frame.
    pub fn dest_qp(&self) -> Option<u32> {
        self.bth().map(|bth| bth.dest_qp)
    }

    /// The PSN of a RoCE frame.
    pub fn psn(&self) -> Option<u32> {
        self.bth().map(|bth| bth.psn)
    }

    /// The ICRC the fields call for, for a RoCE frame.
    pub fn compute_icrc(&self) -> Option<u32> {
        self.roce().map(RoceRepr::compute_icrc)
    }

    /// Whether the carried ICRC is right, for a RoCE frame (`None` otherwise).
    pub fn icrc_ok(&self) -> Option<bool> {
        self.roce().map(RoceRepr::icrc_ok)
    }

    /// The main facts of the frame in one value (see [`FrameSummary::to_json`]).
    pub fn summary(&self) -> FrameSummary {
        let roce = self.roce();
        FrameSummary {
            kind: self.kind(),
            len: self.buffer_len(),
            vlan: self.eth.vlan,
            opcode: self.opcode(),
            dest_qp: self.dest_qp(),
            psn: self.psn(),
            ack_req: self.bth().map(|bth| bth.ack_req),
            ecn: roce.map(|roce| roce.net.ecn()),
            payload_len: roce.map(|roce| roce.payload.len()),
            icrc_ok: self.icrc_ok(),
        }
    }
}

/// The facts a per-frame log line needs; RoCE-only fields are `None` for other frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameSummary {
    pub kind: FrameKind,
    /// Frame length in bytes (without FCS).
    pub len: usize,
    pub vlan: Option<VlanTag>,
    pub opcode: Option<Opcode>,
    pub dest_qp: Option<u32>,
    pub psn: Option<u32>,
    pub ack_req: Option<bool>,
    /// IP/GRH ECN bits (3 = congestion experienced).
    pub ecn: Option<u8>,
    /// Message bytes (pad excluded).
    pub payload_len: Option<usize>,
    pub icrc_ok: Option<bool>,
}

impl FrameSummary {
    /// One JSON object on one line, absent values as `null`, e.g.
    /// `{"kind":"roce_v2","len":70,"vlan":null,"opcode":"RC_SEND_ONLY","opcode_num":4,"dest_qp":17,"psn":256,"ack_req":true,"ecn":2,"payload_len":11,"icrc_ok":true}`.
    pub fn to_json(&self) -> String {
        fn opt<T: core::fmt::Display>(value: Option<T>) -> String {
            value.map_or_else(|| "null".to_string(), |v| v.to_string())
        }
        let vlan = self.vlan.map_or_else(
            || "null".to_string(),
            |tag| {
                format!(
                    r#"{{"pcp":{},"dei":{},"vid":{}}}"#,
                    tag.pcp, tag.dei, tag.vid
                )
            },
        );
        let mut out = String::with_capacity(192);
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            r#"{{"kind":"{}","len":{},"vlan":{},"opcode":{},"opcode_num":{},"dest_qp":{},"psn":{},"ack_req":{},"ecn":{},"payload_len":{},"icrc_ok":{}}}"#,
            self.kind.name(),
            self.len,
            vlan,
            opt(self.opcode.map(|op| format!("\"{op}\""))),
            opt(self.opcode.map(|op| op.0)),
            opt(self.dest_qp),
            opt(self.psn),
            opt(self.ack_req),
            opt(self.ecn),
            opt(self.payload_len),
            opt(self.icrc_ok),
        );
        out
    }
}
