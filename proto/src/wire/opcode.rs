//! BTH opcodes (IBTA Vol 1, 9.2; Annex A17; docs/PROTOCOL.md §3) and what each one implies: the
//! extension headers after the BTH, whether data follows, and the packet's place in its message.
//!
//! Bits 7:5 select the transport (000 RC, 001 UC, 010 RD, 011 UD, 100 CNP, 111
//! manufacturer-specific), bits 4:0 the operation. Known here: every RC opcode, UC 0x20..=0x2B,
//! UD 0x64/0x65 and the RoCEv2 CNP 0x81. Anything else is kept as a raw byte ([`Opcode::is_known`]
//! is false) and a frame carrying it is parsed with no extension headers.

use core::fmt;

/// A BTH opcode byte. Unknown values are representable so any frame can be carried.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Opcode(pub u8);

/// The transport an opcode belongs to (bits 7:5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Reliable Connected (000).
    Rc,
    /// Unreliable Connected (001).
    Uc,
    /// Reliable Datagram (010): not supported by RoCE NICs; carried opaquely.
    Rd,
    /// Unreliable Datagram (011).
    Ud,
    /// Congestion notification (100): RoCEv2 CNP is 0x81.
    Cnp,
    /// 101, 110: reserved.
    Reserved,
    /// 111: manufacturer-specific.
    Manufacturer,
}

impl Transport {
    /// "RC", "UC", "RD", "UD", "CNP", "RESERVED" or "MANUFACTURER".
    pub const fn name(self) -> &'static str {
        match self {
            Transport::Rc => "RC",
            Transport::Uc => "UC",
            Transport::Rd => "RD",
            Transport::Ud => "UD",
            Transport::Cnp => "CNP",
            Transport::Reserved => "RESERVED",
            Transport::Manufacturer => "MANUFACTURER",
        }
    }
}

/// Where a packet sits in its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    First,
    Middle,
    Last,
    /// A one-packet message (also every packet of an operation that has no data packets:
    /// READ request, ACK, atomics).
    Only,
}

/// Which extension headers follow the BTH. They always appear in the order of the fields here
/// (IBTA Vol 1, 9.3; docs/PROTOCOL.md §2.2): DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
/// IETH; the CNP's 16 reserved bytes stand alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HeaderSet {
    pub deth: bool,
    pub reth: bool,
    pub atomic_eth: bool,
    pub aeth: bool,
    pub atomic_ack_eth: bool,
    pub imm_dt: bool,
    pub ieth: bool,
    /// The RoCEv2 CNP's 16 reserved bytes.
    pub cnp: bool,
}

/// Header sizes in bytes (IBTA Vol 1, 9.3; docs/PROTOCOL.md §2.2).
pub mod header_len {
    pub const DETH: usize = 8;
    pub const RETH: usize = 16;
    pub const ATOMIC_ETH: usize = 28;
    pub const AETH: usize = 4;
    pub const ATOMIC_ACK_ETH: usize = 8;
    pub const IMM_DT: usize = 4;
    pub const IETH: usize = 4;
    pub const CNP: usize = 16;
}

impl HeaderSet {
    /// No extension header.
    pub const NONE: HeaderSet = HeaderSet {
        deth: false,
        reth: false,
        atomic_eth: false,
        aeth: false,
        atomic_ack_eth: false,
        imm_dt: false,
        ieth: false,
        cnp: false,
    };

    /// Total length in bytes of the headers in the set.
    pub const fn len(&self) -> usize {
        (self.deth as usize) * header_len::DETH
            + (self.reth as usize) * header_len::RETH
            + (self.atomic_eth as usize) * header_len::ATOMIC_ETH
            + (self.aeth as usize) * header_len::AETH
            + (self.atomic_ack_eth as usize) * header_len::ATOMIC_ACK_ETH
            + (self.imm_dt as usize) * header_len::IMM_DT
            + (self.ieth as usize) * header_len::IETH
            + (self.cnp as usize) * header_len::CNP
    }

    /// True when the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Everything an opcode implies, from one table.
#[derive(Clone, Copy)]
struct OpInfo {
    name: &'static str,
    headers: HeaderSet,
    payload: bool,
    position: Position,
    /// Sent by the requester (SEND/WRITE/READ request/atomic; all UC and UD packets).
    request: bool,
    /// Sent by the responder (READ responses, ACK, atomic ACK).
    response: bool,
}

const fn op(name: &'static str, headers: HeaderSet, payload: bool, position: Position) -> OpInfo {
    OpInfo {
        name,
        headers,
        payload,
        position,
        request: true,
        response: false,
    }
}

const fn response(
    name: &'static str,
    headers: HeaderSet,
    payload: bool,
    position: Position,
) -> OpInfo {
    OpInfo {
        name,
        headers,
        payload,
        position,
        request: false,
        response: true,
    }
}

const NONE: HeaderSet = HeaderSet::NONE;
const IMM: HeaderSet = HeaderSet {
    imm_dt: true,
    ..NONE
};
const RETH: HeaderSet = HeaderSet { reth: true, ..NONE };
const RETH_IMM: HeaderSet = HeaderSet {
    reth: true,
    imm_dt: true,
    ..NONE
};
const AETH: HeaderSet = HeaderSet { aeth: true, ..NONE };
const AETH_ATOMIC_ACK: HeaderSet = HeaderSet {
    aeth: true,
    atomic_ack_eth: true,
    ..NONE
};
const ATOMIC: HeaderSet = HeaderSet {
    atomic_eth: true,
    ..NONE
};
const IETH: HeaderSet = HeaderSet { ieth: true, ..NONE };
const CNP_RESERVED: HeaderSet = HeaderSet { cnp: true, ..NONE };

/// The RC operation table (IBTA Vol 1, 9.2; docs/PROTOCOL.md §3.1), indexed by opcode bits 4:0. UC
/// shares entries 0x00..=0x0B, UD entries 0x04/0x05 (plus a DETH).
const fn base_op(low5: u8) -> Option<OpInfo> {
    use Position::*;
    Some(match low5 {
        0x00 => op("SEND_FIRST", NONE, true, First),
        0x01 => op("SEND_MIDDLE", NONE, true, Middle),
        0x02 => op("SEND_LAST", NONE, true, Last),
        0x03 => op("SEND_LAST_WITH_IMMEDIATE", IMM, true, Last),
        0x04 => op("SEND_ONLY", NONE, true, Only),
        0x05 => op("SEND_ONLY_WITH_IMMEDIATE", IMM, true, Only),
        0x06 => op("RDMA_WRITE_FIRST", RETH, true, First),
        0x07 => op("RDMA_WRITE_MIDDLE", NONE, true, Middle),
        0x08 => op("RDMA_WRITE_LAST", NONE, true, Last),
        0x09 => op("RDMA_WRITE_LAST_WITH_IMMEDIATE", IMM, true, Last),
        0x0A => op("RDMA_WRITE_ONLY", RETH, true, Only),
        0x0B => op("RDMA_WRITE_ONLY_WITH_IMMEDIATE", RETH_IMM, true, Only),
        0x0C => op("RDMA_READ_REQUEST", RETH, false, Only),
        0x0D => response("RDMA_READ_RESPONSE_FIRST", AETH, true, First),
        0x0E => response("RDMA_READ_RESPONSE_MIDDLE", NONE, true, Middle),
        0x0F => response("RDMA_READ_RESPONSE_LAST", AETH, true, Last),
        0x10 => response("RDMA_READ_RESPONSE_ONLY", AETH, true, Only),
        0x11 => response("ACKNOWLEDGE", AETH, false, Only),
        0x12 => response("ATOMIC_ACKNOWLEDGE", AETH_ATOMIC_ACK, false, Only),
        0x13 => op("COMPARE_SWAP", ATOMIC, false, Only),
        0x14 => op("FETCH_ADD", ATOMIC, false, Only),
        0x16 => op("SEND_LAST_WITH_INVALIDATE", IETH, true, Last),
        0x17 => op("SEND_ONLY_WITH_INVALIDATE", IETH, true, Only),
        _ => return None,
    })
}

impl Opcode {
    pub const RC_SEND_FIRST: Opcode = Opcode(0x00);
    pub const RC_SEND_MIDDLE: Opcode = Opcode(0x01);
    pub const RC_SEND_LAST: Opcode = Opcode(0x02);
    pub const RC_SEND_LAST_WITH_IMMEDIATE: Opcode = Opcode(0x03);
    pub const RC_SEND_ONLY: Opcode = Opcode(0x04);
    pub const RC_SEND_ONLY_WITH_IMMEDIATE: Opcode = Opcode(0x05);
    pub const RC_RDMA_WRITE_FIRST: Opcode = Opcode(0x06);
    pub const RC_RDMA_WRITE_MIDDLE: Opcode = Opcode(0x07);
    pub const RC_RDMA_WRITE_LAST: Opcode = Opcode(0x08);
    pub const RC_RDMA_WRITE_LAST_WITH_IMMEDIATE: Opcode = Opcode(0x09);
    pub const RC_RDMA_WRITE_ONLY: Opcode = Opcode(0x0A);
    pub const RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: Opcode = Opcode(0x0B);
    pub const RC_RDMA_READ_REQUEST: Opcode = Opcode(0x0C);
    pub const RC_RDMA_READ_RESPONSE_FIRST: Opcode = Opcode(0x0D);
    pub const RC_RDMA_READ_RESPONSE_MIDDLE: Opcode = Opcode(0x0E);
    pub const RC_RDMA_READ_RESPONSE_LAST: Opcode = Opcode(0x0F);
    pub const RC_RDMA_READ_RESPONSE_ONLY: Opcode = Opcode(0x10);
    pub const RC_ACKNOWLEDGE: Opcode = Opcode(0x11);
    pub const RC_ATOMIC_ACKNOWLEDGE: Opcode = Opcode(0x12);
    pub const RC_COMPARE_SWAP: Opcode = Opcode(0x13);
    pub const RC_FETCH_ADD: Opcode = Opcode(0x14);
    pub const RC_SEND_LAST_WITH_INVALIDATE: Opcode = Opcode(0x16);
    pub const RC_SEND_ONLY_WITH_INVALIDATE: Opcode = Opcode(0x17);

    pub const UC_SEND_FIRST: Opcode = Opcode(0x20);
    pub const UC_SEND_MIDDLE: Opcode = Opcode(0x21);
    pub const UC_SEND_LAST: Opcode = Opcode(0x22);
    pub const UC_SEND_LAST_WITH_IMMEDIATE: Opcode = Opcode(0x23);
    pub const UC_SEND_ONLY: Opcode = Opcode(0x24);
    pub const UC_SEND_ONLY_WITH_IMMEDIATE: Opcode = Opcode(0x25);
    pub const UC_RDMA_WRITE_FIRST: Opcode = Opcode(0x26);
    pub const UC_RDMA_WRITE_MIDDLE: Opcode = Opcode(0x27);
    pub const UC_RDMA_WRITE_LAST: Opcode = Opcode(0x28);
    pub const UC_RDMA_WRITE_LAST_WITH_IMMEDIATE: Opcode = Opcode(0x29);
    pub const UC_RDMA_WRITE_ONLY: Opcode = Opcode(0x2A);
    pub const UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: Opcode = Opcode(0x2B);

    pub const UD_SEND_ONLY: Opcode = Opcode(0x64);
    pub const UD_SEND_ONLY_WITH_IMMEDIATE: Opcode = Opcode(0x65);

    /// RoCEv2 Congestion Notification Packet (Annex A17). Not 0x80, which is native IB CC.
    pub const CNP: Opcode = Opcode(0x81);

    /// Every opcode this module knows, in numeric order.
    pub const ALL_KNOWN: [Opcode; 38] = [
        Self::RC_SEND_FIRST,
        Self::RC_SEND_MIDDLE,
        Self::RC_SEND_LAST,
        Self::RC_SEND_LAST_WITH_IMMEDIATE,
        Self::RC_SEND_ONLY,
        Self::RC_SEND_ONLY_WITH_IMMEDIATE,
        Self::RC_RDMA_WRITE_FIRST,
        Self::RC_RDMA_WRITE_MIDDLE,
        Self::RC_RDMA_WRITE_LAST,
        Self::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        Self::RC_RDMA_WRITE_ONLY,
        Self::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        Self::RC_RDMA_READ_REQUEST,
        Self::RC_RDMA_READ_RESPONSE_FIRST,
        Self::RC_RDMA_READ_RESPONSE_MIDDLE,
        Self::RC_RDMA_READ_RESPONSE_LAST,
        Self::RC_RDMA_READ_RESPONSE_ONLY,
        Self::RC_ACKNOWLEDGE,
        Self::RC_ATOMIC_ACKNOWLEDGE,
        Self::RC_COMPARE_SWAP,
        Self::RC_FETCH_ADD,
        Self::RC_SEND_LAST_WITH_INVALIDATE,
        Self::RC_SEND_ONLY_WITH_INVALIDATE,
        Self::UC_SEND_FIRST,
        Self::UC_SEND_MIDDLE,
        Self::UC_SEND_LAST,
        Self::UC_SEND_LAST_WITH_IMMEDIATE,
        Self::UC_SEND_ONLY,
        Self::UC_SEND_ONLY_WITH_IMMEDIATE,
        Self::UC_RDMA_WRITE_FIRST,
        Self::UC_RDMA_WRITE_MIDDLE,
        Self::UC_RDMA_WRITE_LAST,
        Self::UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        Self::UC_RDMA_WRITE_ONLY,
        Self::UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        Self::UD_SEND_ONLY,
        Self::UD_SEND_ONLY_WITH_IMMEDIATE,
        Self::CNP,
    ];

    /// The transport, from bits 7:5.
    pub const fn transport(self) -> Transport {
        match self.0 >> 5 {
            0 => Transport::Rc,
            1 => Transport::Uc,
            2 => Transport::Rd,
            3 => Transport::Ud,
            4 => Transport::Cnp,
            7 => Transport::Manufacturer,
            _ => Transport::Reserved,
        }
    }

    const fn info(self) -> Option<OpInfo> {
        let low5 = self.0 & 0x1F;
        match self.transport() {
            Transport::Rc => base_op(low5),
            // UC has SEND and RDMA WRITE only.
            Transport::Uc if low5 <= 0x0B => base_op(low5),
            // UD has SEND_ONLY (with immediate), each behind a DETH.
            Transport::Ud if low5 == 0x04 || low5 == 0x05 => match base_op(low5) {
                Some(mut info) => {
                    info.headers.deth = true;
                    Some(info)
                }
                None => None,
            },
            Transport::Cnp if self.0 == Self::CNP.0 => Some(OpInfo {
                name: "CNP",
                headers: CNP_RESERVED,
                payload: false,
                position: Position::Only,
                request: false,
                response: false,
            }),
            _ => None,
        }
    }

    /// True for the opcodes listed in [`Opcode::ALL_KNOWN`].
    pub const fn is_known(self) -> bool {
        self.info().is_some()
    }

    /// The operation name without the transport ("RDMA_WRITE_ONLY", "SEND_ONLY", "CNP"), or
    /// "UNKNOWN". `Display` adds the transport: "RC_RDMA_WRITE_ONLY", "UD_SEND_ONLY", "CNP".
    pub const fn name(self) -> &'static str {
        match self.info() {
            Some(info) => info.name,
            None => "UNKNOWN",
        }
    }

    /// The extension headers that follow the BTH (none for unknown opcodes).
    pub const fn headers(self) -> HeaderSet {
        match self.info() {
            Some(info) => info.headers,
            None => HeaderSet::NONE,
        }
    }

    /// Total length of the extension headers, in bytes.
    pub const fn ext_header_len(self) -> usize {
        self.headers().len()
    }

    /// True when the packet carries message data (SEND, WRITE, READ response). Unknown opcodes
    /// answer true: everything after their BTH is treated as payload.
    pub const fn has_payload(self) -> bool {
        match self.info() {
            Some(info) => info.payload,
            None => true,
        }
    }

    /// Place in the message, for known opcodes.
    pub const fn position(self) -> Option<Position> {
        match self.info() {
            Some(info) => Some(info.position),
            None => None,
        }
    }

    /// *_FIRST.
    pub const fn is_first(self) -> bool {
        matches!(self.position(), Some(Position::First))
    }

    /// *_MIDDLE.
    pub const fn is_middle(self) -> bool {
        matches!(self.position(), Some(Position::Middle))
    }

    /// *_LAST*.
    pub const fn is_last(self) -> bool {
        matches!(self.position(), Some(Position::Last))
    }

    /// *_ONLY* and the single-packet operations (READ request, ACK, atomics, CNP).
    pub const fn is_only(self) -> bool {
        matches!(self.position(), Some(Position::Only))
    }

    /// First packet of a message: FIRST or ONLY (rxe's START mask).
    pub const fn starts_message(self) -> bool {
        self.is_first() || self.is_only()
    }

    /// Last packet of a message: LAST or ONLY (rxe's END mask).
    pub const fn ends_message(self) -> bool {
        self.is_last() || self.is_only()
    }

    /// Sent by a requester: SEND, WRITE, READ request, atomics, and all UC/UD packets.
    pub const fn is_request(self) -> bool {
        match self.info() {
            Some(info) => info.request,
            None => false,
        }
    }

    /// Sent by a responder: READ responses, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE.
    pub const fn is_response(self) -> bool {
        match self.info() {
            Some(info) => info.response,
            None => false,
        }
    }

    /// The RoCEv2 CNP (0x81).
    pub const fn is_cnp(self) -> bool {
        self.0 == Self::CNP.0
    }
}

impl From<u8> for Opcode {
    fn from(byte: u8) -> Self {
        Opcode(byte)
    }
}

impl From<Opcode> for u8 {
    fn from(op: Opcode) -> Self {
        op.0
    }
}

impl fmt::Display for Opcode {
    /// "RC_SEND_ONLY", "UC_RDMA_WRITE_FIRST", "UD_SEND_ONLY", "CNP", or "UNKNOWN_0x15".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_known() {
            write!(f, "UNKNOWN_{:#04x}", self.0)
        } else if self.is_cnp() {
            f.write_str("CNP")
        } else {
            write!(f, "{}_{}", self.transport().name(), self.name())
        }
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Opcode({:#04x} {})", self.0, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lengths_match_rxe() {
        // Bytes from the end of the BTH to the payload, per rxe's rxe_opcode[] offsets.
        let expected: &[(Opcode, usize)] = &[
            (Opcode::RC_SEND_ONLY, 0),
            (Opcode::RC_SEND_LAST_WITH_IMMEDIATE, 4),
            (Opcode::RC_RDMA_WRITE_FIRST, 16),
            (Opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 20),
            (Opcode::RC_RDMA_READ_REQUEST, 16),
            (Opcode::RC_RDMA_READ_RESPONSE_MIDDLE, 0),
            (Opcode::RC_RDMA_READ_RESPONSE_LAST, 4),
            (Opcode::RC_ACKNOWLEDGE, 4),
            (Opcode::RC_ATOMIC_ACKNOWLEDGE, 12),
            (Opcode::RC_COMPARE_SWAP, 28),
            (Opcode::RC_FETCH_ADD, 28),
            (Opcode::RC_SEND_ONLY_WITH_INVALIDATE, 4),
            (Opcode::UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 20),
            (Opcode::UD_SEND_ONLY, 8),
            (Opcode::UD_SEND_ONLY_WITH_IMMEDIATE, 12),
            (Opcode::CNP, 16),
        ];
        for &(op, len) in expected {
            assert_eq!(op.ext_header_len(), len, "{op}");
        }
    }

    #[test]
    fn known_set_is_exactly_the_table() {
        let known: Vec<u8> = (0..=255u8).filter(|&b| Opcode(b).is_known()).collect();
        let listed: Vec<u8> = Opcode::ALL_KNOWN.iter().map(|op| op.0).collect();
        assert_eq!(known, listed);
        // 0x15 is reserved, UC has no READ/atomics, 0x80 is IB CC (not RoCE's CNP), RD is not
        // supported.
        for raw in [0x15, 0x18, 0x2C, 0x30, 0x40, 0x66, 0x80, 0xFF] {
            assert!(!Opcode(raw).is_known(), "{raw:#x}");
            assert_eq!(Opcode(raw).ext_header_len(), 0);
        }
    }

    #[test]
    fn names_and_classes() {
        assert_eq!(Opcode::RC_RDMA_WRITE_ONLY.name(), "RDMA_WRITE_ONLY");
        assert_eq!(Opcode::RC_RDMA_WRITE_ONLY.to_string(), "RC_RDMA_WRITE_ONLY");
        assert_eq!(Opcode::UC_SEND_FIRST.to_string(), "UC_SEND_FIRST");
        assert_eq!(Opcode::UD_SEND_ONLY.to_string(), "UD_SEND_ONLY");
        assert_eq!(Opcode::CNP.to_string(), "CNP");
        assert_eq!(Opcode(0x15).to_string(), "UNKNOWN_0x15");
        assert_eq!(
            format!("{:?}", Opcode(0x0A)),
            "Opcode(0x0a RC_RDMA_WRITE_ONLY)"
        );

        assert_eq!(Opcode::UC_SEND_ONLY.transport(), Transport::Uc);
        assert_eq!(Opcode::CNP.transport(), Transport::Cnp);
        assert!(Opcode::RC_SEND_FIRST.is_first() && Opcode::RC_SEND_FIRST.starts_message());
        assert!(Opcode::RC_RDMA_WRITE_MIDDLE.is_middle());
        assert!(Opcode::RC_RDMA_READ_RESPONSE_LAST.is_last());
        assert!(Opcode::RC_RDMA_READ_RESPONSE_LAST.ends_message());
        assert!(Opcode::RC_ACKNOWLEDGE.is_only() && Opcode::RC_ACKNOWLEDGE.is_response());
        assert!(Opcode::RC_FETCH_ADD.is_request() && !Opcode::RC_FETCH_ADD.has_payload());
        assert!(Opcode::RC_RDMA_READ_RESPONSE_MIDDLE.has_payload());
        assert!(!Opcode::RC_RDMA_READ_REQUEST.has_payload());
        assert!(!Opcode::CNP.is_request() && !Opcode::CNP.is_response());
        let atomic_ack = Opcode::RC_ATOMIC_ACKNOWLEDGE.headers();
        assert!(atomic_ack.aeth && atomic_ack.atomic_ack_eth && !atomic_ack.reth);
        assert!(Opcode::UD_SEND_ONLY_WITH_IMMEDIATE.headers().deth);
    }
}
