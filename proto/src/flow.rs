//! Per-flow arithmetic: UDP source port entropy (IBTA Annex A17; docs/PROTOCOL.md §1.1), packets
//! and PSNs per message and padding (§2.3, §5), path MTU, and the local ACK timeout (§6).

/// RoCEv2 UDP destination port (IANA).
pub const ROCEV2_UDP_PORT: u16 = 4791;

/// Mask of the 20-bit IPv6 / GRH flow label.
pub const FLOW_LABEL_MASK: u32 = 0x000F_FFFF;

/// Linux `rdma_calc_flow_label(lqpn, rqpn)`: a 20-bit flow label hashed from the two QPNs.
pub const fn calc_flow_label(lqpn: u32, rqpn: u32) -> u32 {
    let mut v = lqpn as u64 * rqpn as u64;
    v ^= v >> 20;
    v ^= v >> 40;
    (v as u32) & FLOW_LABEL_MASK
}

/// Linux `rdma_flow_label_to_udp_sport(fl)`: folds a 20-bit flow label into 14 bits and puts it
/// in the 0xC000..=0xFFFF range reserved for RoCE source-port entropy.
pub const fn flow_label_to_udp_sport(flow_label: u32) -> u16 {
    let lo = flow_label & 0x3FFF;
    let hi = (flow_label & 0xF_C000) >> 14;
    ((lo ^ hi) | 0xC000) as u16
}

/// The UDP source port of an RC QP, Linux `rdma_get_udp_sport(fl, lqpn, rqpn)`: from the flow
/// label of the address vector, or, when that is 0, from a hash of the local and remote QPNs.
///
/// The port must stay fixed for the QP's life so that ECMP keeps its packets on one path, in
/// order.
pub const fn udp_source_port(lqpn: u32, rqpn: u32, flow_label: u32) -> u16 {
    let fl = if flow_label != 0 {
        flow_label
    } else {
        calc_flow_label(lqpn, rqpn)
    };
    flow_label_to_udp_sport(fl)
}

/// Packets needed for a message of `len` bytes at path MTU `pmtu` bytes: `max(1, ceil(len/pmtu))`.
/// A zero-length SEND or WRITE still takes one packet. Saturates at `u32::MAX` (RoCE messages
/// are at most 2^31 bytes, far below that).
///
/// # Panics
/// If `pmtu` is 0.
pub const fn packets_per_message(len: u64, pmtu: u32) -> u32 {
    assert!(pmtu != 0, "path MTU must not be 0");
    let n = len.div_ceil(pmtu as u64);
    if n == 0 {
        1
    } else if n > u32::MAX as u64 {
        u32::MAX
    } else {
        n as u32
    }
}

/// PSNs consumed by an RDMA READ request of `len` bytes: one per response packet, which is
/// [`packets_per_message`]. The requester's next PSN is `first_psn + read_psns(len, pmtu)`.
///
/// # Panics
/// If `pmtu` is 0.
pub const fn read_psns(len: u64, pmtu: u32) -> u32 {
    packets_per_message(len, pmtu)
}

/// BTH PadCnt for a payload of `payload_len` bytes: `(-len) & 3`, the zero bytes that bring the
/// payload to a multiple of 4.
pub const fn pad_count(payload_len: usize) -> u8 {
    (payload_len.wrapping_neg() & 3) as u8
}

/// Path MTU of a RoCE connection (IB MTUs; RoCE has no 8 KiB MTU).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pmtu {
    /// 256 bytes (`IBV_MTU_256` = 1).
    Mtu256,
    /// 512 bytes (`IBV_MTU_512` = 2).
    Mtu512,
    /// 1024 bytes (`IBV_MTU_1024` = 3).
    Mtu1024,
    /// 2048 bytes (`IBV_MTU_2048` = 4).
    Mtu2048,
    /// 4096 bytes (`IBV_MTU_4096` = 5).
    Mtu4096,
}

impl Pmtu {
    /// All path MTUs, smallest first.
    pub const ALL: [Pmtu; 5] = [
        Pmtu::Mtu256,
        Pmtu::Mtu512,
        Pmtu::Mtu1024,
        Pmtu::Mtu2048,
        Pmtu::Mtu4096,
    ];

    /// The MTU for an exact byte count (256, 512, 1024, 2048 or 4096).
    pub const fn from_bytes(bytes: u32) -> Option<Pmtu> {
        match bytes {
            256 => Some(Pmtu::Mtu256),
            512 => Some(Pmtu::Mtu512),
            1024 => Some(Pmtu::Mtu1024),
            2048 => Some(Pmtu::Mtu2048),
            4096 => Some(Pmtu::Mtu4096),
            _ => None,
        }
    }

    /// The MTU for a verbs `enum ibv_mtu` value (1..=5).
    pub const fn from_ibv_enum(v: u8) -> Option<Pmtu> {
        match v {
            1 => Some(Pmtu::Mtu256),
            2 => Some(Pmtu::Mtu512),
            3 => Some(Pmtu::Mtu1024),
            4 => Some(Pmtu::Mtu2048),
            5 => Some(Pmtu::Mtu4096),
            _ => None,
        }
    }

    /// Size in bytes.
    pub const fn bytes(self) -> u32 {
        128 << self.ibv_enum()
    }

    /// The verbs `enum ibv_mtu` value (1..=5).
    pub const fn ibv_enum(self) -> u8 {
        match self {
            Pmtu::Mtu256 => 1,
            Pmtu::Mtu512 => 2,
            Pmtu::Mtu1024 => 3,
            Pmtu::Mtu2048 => 4,
            Pmtu::Mtu4096 => 5,
        }
    }

    /// Packets per message of `len` bytes at this MTU, see [`packets_per_message`].
    pub const fn packets(self, len: u64) -> u32 {
        packets_per_message(len, self.bytes())
    }
}

impl From<Pmtu> for u32 {
    fn from(p: Pmtu) -> u32 {
        p.bytes()
    }
}

/// Local ACK timeout of a QP in nanoseconds: `4.096 µs x 2^timeout`, i.e. `4096 ns << timeout`.
/// `timeout` is the 5-bit QP attribute (upper bits are ignored); 0 means the timer never
/// fires, returned as `None`.
pub const fn ack_timeout_ns(timeout: u8) -> Option<u64> {
    let t = timeout & 0x1F;
    if t == 0 {
        None
    } else {
        Some(4096u64 << t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sport_examples() {
        assert_eq!(udp_source_port(0x11, 0x12, 0), 0xC132);
        assert_eq!(udp_source_port(0x45, 0x48, 0), 0xD368);
        // Symmetric in the QPNs, so both ends of a connection pick the same port.
        assert_eq!(udp_source_port(0x48, 0x45, 0), 0xD368);
    }

    #[test]
    fn sport_from_flow_label() {
        // An explicit flow label wins over the QPN hash.
        assert_eq!(
            udp_source_port(0x11, 0x12, 0x12345),
            flow_label_to_udp_sport(0x12345)
        );
        // 0x12345: lo 0x2345 ^ hi (0x10000 >> 14 = 4) = 0x2341 | 0xC000.
        assert_eq!(flow_label_to_udp_sport(0x12345), 0xE341);
        assert_eq!(calc_flow_label(0x11, 0x12), 0x11 * 0x12);
        for fl in [1u32, 0x3FFF, 0xFC000, 0xFFFFF] {
            assert!(flow_label_to_udp_sport(fl) >= 0xC000);
        }
    }

    #[test]
    fn calc_flow_label_folds_high_bits() {
        // Large QPNs: the product exceeds 40 bits, exercising both folds.
        let (l, r) = (0xFF_FFFFu32, 0xFF_FFFEu32);
        let mut v = l as u64 * r as u64;
        v ^= v >> 20;
        v ^= v >> 40;
        assert_eq!(calc_flow_label(l, r), (v & 0xFFFFF) as u32);
    }

    #[test]
    fn packets() {
        assert_eq!(packets_per_message(0, 1024), 1);
        assert_eq!(packets_per_message(1, 1024), 1);
        assert_eq!(packets_per_message(1024, 1024), 1);
        assert_eq!(packets_per_message(1025, 1024), 2);
        assert_eq!(packets_per_message(4096, 256), 16);
        assert_eq!(packets_per_message(1 << 31, 256), 1 << 23);
        assert_eq!(packets_per_message(u64::MAX, 256), u32::MAX);
        assert_eq!(read_psns(4096, 1024), 4);
        assert_eq!(read_psns(0, 4096), 1);
        assert_eq!(Pmtu::Mtu1024.packets(2048), 2);
    }

    #[test]
    fn pads() {
        assert_eq!(pad_count(0), 0);
        assert_eq!(pad_count(11), 1);
        assert_eq!(pad_count(10), 2);
        assert_eq!(pad_count(3), 1);
        assert_eq!(pad_count(6), 2);
        assert_eq!(pad_count(5), 3);
        assert_eq!(pad_count(1024), 0);
    }

    #[test]
    fn pmtu() {
        for (i, p) in Pmtu::ALL.iter().enumerate() {
            assert_eq!(p.ibv_enum() as usize, i + 1);
            assert_eq!(Pmtu::from_ibv_enum(p.ibv_enum()), Some(*p));
            assert_eq!(Pmtu::from_bytes(p.bytes()), Some(*p));
        }
        assert_eq!(Pmtu::Mtu256.bytes(), 256);
        assert_eq!(Pmtu::Mtu4096.bytes(), 4096);
        assert_eq!(u32::from(Pmtu::Mtu1024), 1024);
        assert_eq!(Pmtu::from_bytes(1500), None);
        assert_eq!(Pmtu::from_ibv_enum(0), None);
        assert_eq!(Pmtu::from_ibv_enum(6), None);
        assert!(Pmtu::Mtu256 < Pmtu::Mtu4096);
    }

    #[test]
    fn ack_timeout() {
        assert_eq!(ack_timeout_ns(0), None);
        assert_eq!(ack_timeout_ns(1), Some(8192));
        // IBTA Vol 1, 9.7 local ACK timeout (docs/PROTOCOL.md §6): 14 -> 67.1 ms.
        assert_eq!(ack_timeout_ns(14), Some(67_108_864));
        assert_eq!(ack_timeout_ns(31), Some(4096u64 << 31));
        assert_eq!(ack_timeout_ns(0x20 | 14), Some(67_108_864));
    }
}
