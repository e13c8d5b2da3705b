//! Packet headers as typed views over bytes plus small `Repr` values, in the style of smoltcp's
//! `wire` module.
//!
//! Every header has two halves:
//!
//! * a **view** (`Foo<T: AsRef<[u8]>>`) that reads fields straight out of a byte buffer
//!   (`new_unchecked`, `new_checked` which validates lengths, getters, and setters when
//!   `T: AsMut<[u8]>`). Getters on an unchecked view may panic on a short buffer; everything reached
//!   through `new_checked` never does.
//! * a **repr** (`FooRepr`), a plain value with `parse(&view) -> Result<FooRepr>`,
//!   `buffer_len()` and `emit(&self, &mut view)`. Reprs carry every bit the wire carries (reserved
//!   bits included) so that a parsed frame re-emits byte for byte.
//!
//! [`FrameRepr`] ties them together into a whole Ethernet frame: RoCEv2 over IPv4 or IPv6,
//! RoCEv1, PFC/PAUSE, or anything else carried opaquely.
//!
//! ```
//! use ferroce_proto::wire::{BthRepr, EthernetRepr, ExtHeaders, FrameRepr, Opcode, RoceNet};
//!
//! // Build a frame from fields: lengths, checksum, PadCnt and ICRC are filled in.
//! let eth = EthernetRepr { dst: [2, 0, 0, 0, 0, 2], src: [2, 0, 0, 0, 0, 1], vlan: None, ethertype: 0 };
//! let net = RoceNet::ipv4([192, 168, 1, 1], [192, 168, 1, 2], 0xC001);
//! let bth = BthRepr { ack_req: true, ..BthRepr::new(Opcode::RC_SEND_ONLY, 0x11, 0x100) };
//! let frame = FrameRepr::new_roce(eth, net, bth, ExtHeaders::default(), b"Hello RoCE!".to_vec());
//! let bytes = frame.emit();
//!
//! // Parse it back: the same value, a good ICRC, and a one-line summary.
//! let parsed = FrameRepr::parse(&bytes).unwrap();
//! assert_eq!(parsed, frame);
//! assert_eq!(parsed.icrc_ok(), Some(true));
//! assert!(parsed.summary().to_json().starts_with(r#"{"kind":"roce_v2""#));
//! ```
//!
//! Byte order is network order (big-endian) everywhere except the ICRC, which goes on the wire
//! least-significant byte first like an Ethernet FCS (docs/PROTOCOL.md §4.1).

use core::fmt;

/// Generates the boilerplate of a fixed-length header view: the struct, `new_unchecked`,
/// `new_checked`, `check_len`, `into_inner` and the `HEADER_LEN` constant.
macro_rules! fixed_header_view {
    ($(#[$meta:meta])* $name:ident, $len:expr, $what:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// Length of the header in bytes.
            pub const HEADER_LEN: usize = $len;

            /// Wraps a buffer without checking its length; getters may then panic.
            pub const fn new_unchecked(buffer: T) -> Self {
                Self { buffer }
            }

            /// Wraps a buffer after checking it holds the whole header.
            pub fn new_checked(buffer: T) -> $crate::wire::Result<Self> {
                let view = Self::new_unchecked(buffer);
                view.check_len()?;
                Ok(view)
            }

            /// `Err(Truncated)` when the buffer is shorter than the header.
            pub fn check_len(&self) -> $crate::wire::Result<()> {
                if self.buffer.as_ref().len() < $len {
                    Err($crate::wire::Error::Truncated($what))
                } else {
                    Ok(())
                }
            }

            /// Gives the buffer back.
            pub fn into_inner(self) -> T {
                self.buffer
            }
        }
    };
}

pub mod bth;
pub mod cnp;
pub mod ethernet;
pub mod ext;
pub mod frame;
pub mod grh;
pub mod ipv4;
pub mod ipv6;
pub mod opcode;
pub mod pfc;
pub mod udp;

pub use bth::{Bth, BthRepr};
pub use cnp::CnpRepr;
pub use ethernet::{ethertype, EthernetFrame, EthernetRepr, VlanTag};
pub use ext::{
    AethRepr, AtomicAckEthRepr, AtomicEthRepr, DethRepr, ExtHeaders, IethRepr, ImmDtRepr, RethRepr,
};
pub use frame::{FrameBody, FrameKind, FrameRepr, FrameSummary, RoceNet, RoceRepr};
pub use grh::{Grh, GrhRepr};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use opcode::{HeaderSet, Opcode, Position, Transport};
pub use pfc::{PfcPacket, PfcRepr};
pub use udp::{UdpPacket, UdpRepr, ROCE_V2_PORT};

/// Why bytes could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The bytes end before a header, or before the length a header field announces.
    /// Names the header or length that did not fit.
    Truncated(&'static str),
    /// A field holds a value the format forbids (wrong IP version, IHL < 5, UDP length < 8,
    /// PadCnt larger than the bytes after the headers, ...). Says which.
    Malformed(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated(what) => write!(f, "truncated: {what}"),
            Error::Malformed(what) => write!(f, "malformed: {what}"),
        }
    }
}

impl std::error::Error for Error {}

/// Result of parsing wire bytes.
pub type Result<T> = core::result::Result<T, Error>;

// Big-endian field access. Callers have checked lengths (views via `check_len`), so slicing here
// panicking would be a bug in a view, never a reaction to input.

#[inline]
pub(crate) fn get_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([buf[at], buf[at + 1]])
}

#[inline]
pub(crate) fn get_u24(buf: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, buf[at], buf[at + 1], buf[at + 2]])
}

#[inline]
pub(crate) fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

#[inline]
pub(crate) fn get_u64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_be_bytes(b)
}

#[inline]
pub(crate) fn put_u16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes the low 24 bits of `v`; the top byte is dropped (QPNs, PSNs and MSNs are 24-bit).
#[inline]
pub(crate) fn put_u24(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 3].copy_from_slice(&v.to_be_bytes()[1..]);
}

#[inline]
pub(crate) fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn get_array<const N: usize>(buf: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&buf[at..at + N]);
    out
}
