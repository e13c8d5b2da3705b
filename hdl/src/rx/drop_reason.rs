//! The per-frame verdict codes of the RX front end, defined once: [`DropReason`] (why a frame was
//! dropped, or `Accepted`) and [`RxKind`] (what the frame is).
//!
//! Both are rust-hdl `LogicState` enums, so they are port and register types in hardware; their
//! numeric code is the declaration index (`LogicState` assigns 0, 1, 2, ... in order and emits
//! them as Verilog localparams). [`DropReason::code`] and [`RxKind::code`] give that number in
//! plain Rust, `name()` a stable snake_case string for logs, counters and CLI output.
//!
//! | code | reason | meaning |
//! |---|---|---|
//! | 0 | `accepted` | delivered: descriptor (and payload) released, or the PFC output pulsed |
//! | 1 | `bad_icrc` | every length check passed but the ICRC residue is wrong |
//! | 2 | `truncated` | the frame ends before the Ethernet/L3 headers, before the BTH and extension headers, or before the end UDP.Length (GRH PayLen) announces |
//! | 3 | `length` | length fields disagree: IPv4 TotalLength != 20 + UDP.Length, IPv6 PayLen != UDP.Length, UDP.Length < 8, L_ib shorter than BTH + ext + ICRC, PadCnt larger than the payload or inconsistent with it, payload illegal for the opcode (none allowed / FIRST-MIDDLE not a non-zero multiple of 256 / LAST empty / over 4096), bytes after the ICRC in a frame longer than 64 bytes |
//! | 4 | `oversize` | the frame is longer than the configured maximum (checked first: its tail was not buffered) |
//! | 5 | `unsupported` | not something this NIC parses: unknown EtherType, IPv4 with options or fragmented or not UDP, IPv6 next header not UDP, UDP destination port != 4791, GRH next header != 0x1B, MAC control other than PFC |
//! | 6 | `mac_mismatch` | RoCE or PFC frame whose destination MAC is not ours (and the parser is not promiscuous) |
//! | 7 | `bad_opcode` | RoCE frame with a BTH opcode this NIC does not know (RD, reserved, manufacturer, 0x15, 0x18..0x1F, UC > 0x0B, UD other than 0x64/0x65, CNP other than 0x81) |
use rust_hdl::prelude::*;

/// Why a received frame was dropped (`Accepted` if it was not). See the module table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, LogicState)]
pub enum DropReason {
    Accepted,
    BadIcrc,
    Truncated,
    Length,
    Oversize,
    Unsupported,
    MacMismatch,
    BadOpcode,
}

impl DropReason {
    /// Every code, in numeric order.
    pub const ALL: [DropReason; 8] = [
        DropReason::Accepted,
        DropReason::BadIcrc,
        DropReason::Truncated,
        DropReason::Length,
        DropReason::Oversize,
        DropReason::Unsupported,
        DropReason::MacMismatch,
        DropReason::BadOpcode,
    ];
    /// Number of codes (the counters block has one counter per code).
    pub const COUNT: usize = 8;

    /// Numeric value (the value on the `vd_reason` port, 3 bits).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The reason with numeric value `c`.
    pub fn from_code(c: u8) -> Option<DropReason> {
        Self::ALL.get(c as usize).copied()
    }

    /// Stable snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::Accepted => "accepted",
            DropReason::BadIcrc => "bad_icrc",
            DropReason::Truncated => "truncated",
            DropReason::Length => "length",
            DropReason::Oversize => "oversize",
            DropReason::Unsupported => "unsupported",
            DropReason::MacMismatch => "mac_mismatch",
            DropReason::BadOpcode => "bad_opcode",
        }
    }
}

/// What a received frame is (the `vd_kind` port, 3 bits).
///
/// RoCE kinds require the whole L3 header to be present and to say RoCE (IPv4 IHL 5, not
/// fragmented, protocol UDP, or IPv6 next header UDP, and UDP port 4791; or EtherType 0x8915
/// with GRH next header 0x1B). `Cnp` is any of those whose BTH opcode is 0x81. `Pfc` is MAC
/// control (0x8808) opcode 0x0101. Everything else, including frames too short to tell, is
/// `Other`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, LogicState)]
pub enum RxKind {
    Other,
    RoceV2Ipv4,
    RoceV2Ipv6,
    Cnp,
    RoceV1,
    Pfc,
}

impl RxKind {
    /// Every kind, in numeric order.
    pub const ALL: [RxKind; 6] = [
        RxKind::Other,
        RxKind::RoceV2Ipv4,
        RxKind::RoceV2Ipv6,
        RxKind::Cnp,
        RxKind::RoceV1,
        RxKind::Pfc,
    ];

    /// Numeric value.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The kind with numeric value `c`.
    pub fn from_code(c: u8) -> Option<RxKind> {
        Self::ALL.get(c as usize).copied()
    }

    /// Stable snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            RxKind::Other => "other",
            RxKind::RoceV2Ipv4 => "rocev2_ipv4",
            RxKind::RoceV2Ipv6 => "rocev2_ipv6",
            RxKind::Cnp => "cnp",
            RxKind::RoceV1 => "rocev1",
            RxKind::Pfc => "pfc",
        }
    }

    /// Carries an ICRC (RoCEv2, RoCEv1, CNP).
    pub const fn is_roce(self) -> bool {
        matches!(
            self,
            RxKind::RoceV2Ipv4 | RxKind::RoceV2Ipv6 | RxKind::Cnp | RxKind::RoceV1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_logic_state_encoding() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.code() as usize, i);
            assert_eq!(DropReason::from_code(i as u8), Some(*r));
            let b: Bits<3> = (*r).into();
            assert_eq!(b.index(), i, "{}", r.name());
        }
        for (i, k) in RxKind::ALL.iter().enumerate() {
            assert_eq!(k.code() as usize, i);
            let b: Bits<3> = (*k).into();
            assert_eq!(b.index(), i, "{}", k.name());
        }
        assert_eq!(DropReason::BITS, 3);
        assert_eq!(RxKind::BITS, 3);
        let names: std::collections::HashSet<_> =
            DropReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), DropReason::COUNT);
    }
}
