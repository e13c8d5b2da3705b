//! Addresses and global configuration words: GIDs, GID table entries, MAC addresses, and the
//! packed global configuration registers.

use super::regs::{self, cfg_pfc, cfg_traffic, cfg_udp_sport, gid_attr};
use super::{Error, RegWrite, Result};
use std::net::{Ipv4Addr, Ipv6Addr};

/// A 128-bit GID in wire order (the bytes of an IPv6 address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Gid(pub [u8; 16]);

impl Gid {
    /// The IPv4-mapped GID `::ffff:a.b.c.d` that RoCEv2 uses for an IPv4 address.
    pub fn from_ipv4(ip: Ipv4Addr) -> Gid {
        Gid(ip.to_ipv6_mapped().octets())
    }

    /// The IPv4 address if this is an IPv4-mapped GID.
    pub fn to_ipv4(&self) -> Option<Ipv4Addr> {
        Ipv6Addr::from(self.0).to_ipv4_mapped()
    }

    /// The RoCEv1 link-local GID `fe80::/64` with the modified EUI-64 of `mac`.
    pub fn link_local(mac: [u8; 6]) -> Gid {
        let mut g = [0u8; 16];
        g[0] = 0xfe;
        g[1] = 0x80;
        g[8] = mac[0] ^ 0x02;
        g[9] = mac[1];
        g[10] = mac[2];
        g[11] = 0xff;
        g[12] = 0xfe;
        g[13] = mac[3];
        g[14] = mac[4];
        g[15] = mac[5];
        Gid(g)
    }

    /// Register words (DATA0..DATA3): byte 4k in bits 7:0 of word k.
    pub fn to_regs(&self) -> [u32; 4] {
        core::array::from_fn(|k| u32::from_le_bytes(self.0[4 * k..4 * k + 4].try_into().unwrap()))
    }

    pub fn from_regs(words: [u32; 4]) -> Gid {
        let mut g = [0u8; 16];
        for (k, w) in words.iter().enumerate() {
            g[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
        }
        Gid(g)
    }
}

impl From<Ipv6Addr> for Gid {
    fn from(ip: Ipv6Addr) -> Gid {
        Gid(ip.octets())
    }
}

/// The encapsulation a GID table entry selects, like Linux's RoCE GID types. A QP's source GID
/// index therefore decides whether it speaks RoCEv2/IPv4, RoCEv2/IPv6 or RoCEv1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum GidType {
    Invalid = 0,
    RoceV2Ipv4 = 1,
    RoceV2Ipv6 = 2,
    RoceV1 = 3,
}

impl GidType {
    pub const fn from_u8(v: u8) -> GidType {
        match v & 3 {
            1 => GidType::RoceV2Ipv4,
            2 => GidType::RoceV2Ipv6,
            3 => GidType::RoceV1,
            _ => GidType::Invalid,
        }
    }
}

/// One GID table entry. The local IPv4 address of the NIC is a `RoceV2Ipv4` entry: there is no
/// separate IPv4 register, so there is one source of truth for source addresses, and RX accepts
/// a packet whose destination matches any valid entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GidEntry {
    pub gid: Gid,
    pub ty: GidType,
}

impl GidEntry {
    pub fn ipv4(ip: Ipv4Addr) -> GidEntry {
        GidEntry {
            gid: Gid::from_ipv4(ip),
            ty: GidType::RoceV2Ipv4,
        }
    }

    pub fn ipv6(ip: Ipv6Addr) -> GidEntry {
        GidEntry {
            gid: ip.into(),
            ty: GidType::RoceV2Ipv6,
        }
    }

    /// An IPv4 entry must hold an IPv4-mapped GID (the hardware takes bytes 12..15 as the
    /// address and does not check the prefix).
    pub fn validate(&self) -> Result<()> {
        if self.ty == GidType::RoceV2Ipv4 && self.gid.to_ipv4().is_none() {
            return Err(Error::Inconsistent {
                what: "RoCEv2 IPv4 GID is not IPv4-mapped",
            });
        }
        Ok(())
    }

    /// The writes that install this entry at index `n`: invalidate, data, then type, so the
    /// hardware never matches or sends a half-written GID.
    pub fn writes(&self, n: u32) -> Result<Vec<RegWrite>> {
        if n >= regs::GID_MAX_ENTRIES {
            return Err(Error::InvalidField {
                field: "gid index",
                value: n as u64,
            });
        }
        self.validate()?;
        let mut w = vec![RegWrite::new(regs::gid_attr(n), 0)];
        for (k, v) in self.gid.to_regs().iter().enumerate() {
            w.push(RegWrite::new(regs::gid_data(n, k as u32), *v));
        }
        w.push(RegWrite::new(
            regs::gid_attr(n),
            gid_attr::TYPE.place(self.ty as u32),
        ));
        Ok(w)
    }

    /// Rebuild from the five register words of an entry.
    pub fn from_regs(data: [u32; 4], attr: u32) -> GidEntry {
        GidEntry {
            gid: Gid::from_regs(data),
            ty: GidType::from_u8(gid_attr::TYPE.get(attr) as u8),
        }
    }
}

/// MAC address to (LO, HI) register words: byte 0 in bits 7:0 of LO, bytes 4..5 in HI 15:0.
pub fn mac_to_regs(mac: [u8; 6]) -> (u32, u32) {
    (
        u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]),
        u16::from_le_bytes([mac[4], mac[5]]) as u32,
    )
}

pub fn mac_from_regs(lo: u32, hi: u32) -> [u8; 6] {
    let l = lo.to_le_bytes();
    let h = hi.to_le_bytes();
    [l[0], l[1], l[2], l[3], h[0], h[1]]
}

/// The local MAC writes, LO then HI (the HI write applies it).
pub fn mac_writes(mac: [u8; 6]) -> [RegWrite; 2] {
    let (lo, hi) = mac_to_regs(mac);
    [
        RegWrite::new(regs::CFG_MAC_LO, lo),
        RegWrite::new(regs::CFG_MAC_HI, hi),
    ]
}

/// [`regs::CFG_UDP_SPORT`]: how the NIC picks the UDP source port of a QP whose
/// `QP_AV_SPORT` is 0. RoCEv2 uses the source port as ECMP entropy; the destination is 4791.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpSportPolicy {
    pub base: u16,
    /// Low bits replaced by a per-QP hash (0..=14).
    pub entropy_bits: u8,
    /// Ignore entropy: every QP uses `base`.
    pub fixed: bool,
}

impl Default for UdpSportPolicy {
    fn default() -> Self {
        UdpSportPolicy::decode(regs::find("CFG_UDP_SPORT").unwrap().reset)
    }
}

impl UdpSportPolicy {
    pub fn encode(&self) -> Result<u32> {
        if self.entropy_bits > 14 {
            return Err(Error::InvalidField {
                field: "entropy_bits",
                value: self.entropy_bits as u64,
            });
        }
        Ok(cfg_udp_sport::BASE.place(self.base as u32)
            | cfg_udp_sport::ENTROPY_BITS.place(self.entropy_bits as u32)
            | cfg_udp_sport::FIXED.place(self.fixed as u32))
    }

    pub const fn decode(reg: u32) -> UdpSportPolicy {
        UdpSportPolicy {
            base: cfg_udp_sport::BASE.get(reg) as u16,
            entropy_bits: cfg_udp_sport::ENTROPY_BITS.get(reg) as u8,
            fixed: cfg_udp_sport::FIXED.bit(reg),
        }
    }

    /// The source port for a QP whose per-flow hash is `hash`. The NIC uses
    /// [`crate::flow::udp_source_port`] (Linux `rdma_get_udp_sport`) as the hash, so with the
    /// default policy (base 0xC000, 14 entropy bits) the port is exactly the one Linux picks.
    pub const fn port(&self, hash: u32) -> u16 {
        if self.fixed || self.entropy_bits == 0 {
            return self.base;
        }
        let m = (1u32 << self.entropy_bits) - 1;
        ((self.base as u32 & !m) | (hash & m)) as u16
    }
}

/// [`regs::CFG_TRAFFIC`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TrafficConfig {
    /// DSCP for QPs whose address vector asks for the default.
    pub default_dscp: u8,
    /// ECN codepoint in every request and READ-response packet (0b10 = ECT(0); 0 = not ECT,
    /// which disables ECN marking and therefore DCQCN on the path).
    pub data_ecn: u8,
    pub cnp_dscp: u8,
    /// ECN codepoint of ACKs, NAKs and atomic ACKs.
    pub ack_ecn: u8,
    /// ECN codepoint of CNPs (ECT(0) after reset, as a ConnectX-4 Lx sends them).
    pub cnp_ecn: u8,
    /// `Some(vid)`: every RoCE frame goes out with an IEEE 802.1Q tag of this VLAN ID
    /// (0 ..= 4094; 0 is a priority tag), its PCP the priority [`PfcConfig`] gives its kind
    /// (RoCE data and ACKs, or CNPs). `None` (reset): untagged.
    pub vlan: Option<u16>,
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig::decode(regs::find("CFG_TRAFFIC").unwrap().reset)
    }
}

impl TrafficConfig {
    pub fn encode(&self) -> Result<u32> {
        Ok(cfg_traffic::DEFAULT_DSCP.place(super::checked(
            cfg_traffic::DEFAULT_DSCP,
            "default_dscp",
            self.default_dscp as u32,
        )?) | cfg_traffic::DATA_ECN.place(super::checked(
            cfg_traffic::DATA_ECN,
            "data_ecn",
            self.data_ecn as u32,
        )?) | cfg_traffic::CNP_DSCP.place(super::checked(
            cfg_traffic::CNP_DSCP,
            "cnp_dscp",
            self.cnp_dscp as u32,
        )?) | cfg_traffic::ACK_ECN.place(super::checked(
            cfg_traffic::ACK_ECN,
            "ack_ecn",
            self.ack_ecn as u32,
        )?) | cfg_traffic::CNP_ECN.place(super::checked(
            cfg_traffic::CNP_ECN,
            "cnp_ecn",
            self.cnp_ecn as u32,
        )?) | match self.vlan {
            None => 0,
            // VID 0xFFF is reserved (IEEE 802.1Q 9.6)
            Some(vid) if vid >= 0xFFF => {
                return Err(Error::InvalidField {
                    field: "vlan",
                    value: vid as u64,
                })
            }
            Some(vid) => cfg_traffic::VLAN_TAG.place(1) | cfg_traffic::VLAN_VID.place(vid as u32),
        })
    }

    pub const fn decode(reg: u32) -> TrafficConfig {
        TrafficConfig {
            default_dscp: cfg_traffic::DEFAULT_DSCP.get(reg) as u8,
            data_ecn: cfg_traffic::DATA_ECN.get(reg) as u8,
            cnp_dscp: cfg_traffic::CNP_DSCP.get(reg) as u8,
            ack_ecn: cfg_traffic::ACK_ECN.get(reg) as u8,
            cnp_ecn: cfg_traffic::CNP_ECN.get(reg) as u8,
            vlan: if cfg_traffic::VLAN_TAG.bit(reg) {
                Some(cfg_traffic::VLAN_VID.get(reg) as u16)
            } else {
                None
            },
        }
    }
}

/// [`regs::CFG_PFC`]: which 802.1Qbb priority class the NIC's traffic travels in, so that a
/// pause for that class stops it (untagged frames: the switch maps DSCP to the class, and
/// these must agree with that mapping; with [`TrafficConfig::vlan`] they are also the frames'
/// 802.1Q PCP), and the link's bit times per core clock
/// cycle that pace PFC pause quanta (IEEE 802.1Qbb: a quantum is 512 bit times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PfcConfig {
    pub data_prio: u8,
    pub cnp_prio: u8,
    /// floor(line rate in b/s / core clock in Hz), at least 1 (e.g. 100 for 25 Gb/s at
    /// 250 MHz, 80 for 10 Gb/s at 125 MHz).
    pub link_bits_per_cycle: u16,
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig::decode(regs::find("CFG_PFC").unwrap().reset)
    }
}

impl PfcConfig {
    /// `link_bits_per_cycle` for a line rate and a core clock: floor(rate / clock), so a
    /// pause lasts at least as long as the peer asked. None if it is 0 or does not fit.
    pub fn link_bits_for(line_rate_mbps: u32, clock_khz: u32) -> Option<u16> {
        if clock_khz == 0 {
            return None;
        }
        let b = (line_rate_mbps as u64 * 1000) / clock_khz as u64;
        u16::try_from(b).ok().filter(|&b| b > 0)
    }

    pub fn encode(&self) -> Result<u32> {
        if self.link_bits_per_cycle == 0 {
            return Err(Error::InvalidField {
                field: "link_bits_per_cycle",
                value: 0,
            });
        }
        Ok(cfg_pfc::DATA_PRIO.place(super::checked(
            cfg_pfc::DATA_PRIO,
            "data_prio",
            self.data_prio as u32,
        )?) | cfg_pfc::CNP_PRIO.place(super::checked(
            cfg_pfc::CNP_PRIO,
            "cnp_prio",
            self.cnp_prio as u32,
        )?) | cfg_pfc::LINK_BITS.place(self.link_bits_per_cycle as u32))
    }

    pub const fn decode(reg: u32) -> PfcConfig {
        PfcConfig {
            data_prio: cfg_pfc::DATA_PRIO.get(reg) as u8,
            cnp_prio: cfg_pfc::CNP_PRIO.get(reg) as u8,
            link_bits_per_cycle: cfg_pfc::LINK_BITS.get(reg) as u16,
        }
    }
}

/// PFC transmit (IEEE 802.1Qbb): when the NIC sends XOFF and XON on its RoCE priority
/// (`CFG_PFC_XOFF`, `CFG_PFC_QUANTA`), from the fill of its receive FIFO in 8-byte words
/// ([`regs::cfg_pfc_xoff::FIFO_WORDS`]). The XOFF threshold must leave headroom above it for
/// the frames still arriving after the XOFF is decided (docs/CONGESTION.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfcXoffConfig {
    /// Send XOFF when the FIFO holds at least this many words (1 ..= FIFO_WORDS - 1).
    pub xoff_words: u16,
    /// Send XON when it holds fewer than this many (1 ..= xoff_words).
    pub xon_words: u16,
    /// Pause time of the XOFFs, in quanta of 512 bit times (1 ..= 65535).
    pub quanta: u16,
}

impl Default for PfcXoffConfig {
    /// The reset values of `CFG_PFC_XOFF` and `CFG_PFC_QUANTA`.
    fn default() -> Self {
        PfcXoffConfig::decode(
            regs::find("CFG_PFC_XOFF").unwrap().reset,
            regs::find("CFG_PFC_QUANTA").unwrap().reset,
        )
    }
}

impl PfcXoffConfig {
    /// `(CFG_PFC_XOFF, CFG_PFC_QUANTA)`, or the first field out of range.
    pub fn encode(&self) -> Result<(u32, u32)> {
        use regs::cfg_pfc_xoff as x;
        let bad = |field, value: u16| {
            Err(Error::InvalidField {
                field,
                value: value as u64,
            })
        };
        if self.xoff_words == 0 || self.xoff_words as u32 >= x::FIFO_WORDS {
            return bad("xoff_words", self.xoff_words);
        }
        if self.xon_words == 0 || self.xon_words > self.xoff_words {
            return bad("xon_words", self.xon_words);
        }
        if self.quanta == 0 {
            return bad("quanta", 0);
        }
        Ok((
            x::XOFF.place(self.xoff_words as u32) | x::XON.place(self.xon_words as u32),
            regs::cfg_pfc_quanta::QUANTA.place(self.quanta as u32),
        ))
    }

    pub const fn decode(xoff_reg: u32, quanta_reg: u32) -> PfcXoffConfig {
        PfcXoffConfig {
            xoff_words: regs::cfg_pfc_xoff::XOFF.get(xoff_reg) as u16,
            xon_words: regs::cfg_pfc_xoff::XON.get(xoff_reg) as u16,
            quanta: regs::cfg_pfc_quanta::QUANTA.get(quanta_reg) as u16,
        }
    }
}
