//! RoCEv2 Congestion Notification Packet (IBTA Annex A17; docs/PROTOCOL.md §3.2).
//!
//! ```text
//! BTH(op 0x81, SE=M=Pad=TVer=0, P_Key 0xFFFF, FECN 0, BECN 1, DestQP = QP to throttle, A 0, PSN 0)
//! 16 reserved bytes (zero) | ICRC
//! ```
//! so UDP.Length = 40 and IPv4 Total Length = 60. The notification point (receiver of CE-marked
//! packets) sends it to the reaction point (the sender), addressed to the sender's QP.

use super::bth::BthRepr;
use super::ethernet::EthernetRepr;
use super::ext::ExtHeaders;
use super::frame::{FrameBody, FrameRepr, RoceNet, RoceRepr};
use super::opcode::{header_len, Opcode};
use super::Result;

/// UDP.Length of a CNP: UDP 8 + BTH 12 + 16 reserved + ICRC 4.
pub const UDP_LEN: u16 = 40;
/// IPv4 Total Length of a CNP.
pub const IPV4_TOTAL_LEN: u16 = 60;
/// Number of reserved bytes after the BTH.
pub const RESERVED_LEN: usize = header_len::CNP;

fixed_header_view!(
    /// A view of the CNP's 16 reserved bytes.
    CnpPayload,
    header_len::CNP,
    "CNP reserved bytes"
);

impl<T: AsRef<[u8]>> CnpPayload<T> {
    /// The reserved bytes.
    pub fn reserved(&self) -> [u8; 16] {
        super::get_array(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> CnpPayload<T> {
    /// Sets the reserved bytes.
    pub fn set_reserved(&mut self, bytes: [u8; 16]) {
        self.buffer.as_mut()[..16].copy_from_slice(&bytes);
    }
}

/// The CNP's reserved bytes as a value; zero when sent, carried so anything else re-emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CnpRepr {
    pub reserved: [u8; 16],
}

impl CnpRepr {
    pub const HEADER_LEN: usize = header_len::CNP;

    /// Reads the bytes out of a view.
    pub fn parse<T: AsRef<[u8]>>(view: &CnpPayload<T>) -> Result<CnpRepr> {
        view.check_len()?;
        Ok(CnpRepr {
            reserved: view.reserved(),
        })
    }

    /// Always 16.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }

    /// Writes the 16 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, view: &mut CnpPayload<T>) {
        view.set_reserved(self.reserved);
    }
}

/// The BTH of a CNP throttling `dest_qp`: opcode 0x81, P_Key 0xFFFF, BECN 1, everything else 0.
pub const fn bth(dest_qp: u32) -> BthRepr {
    let mut bth = BthRepr::new(Opcode::CNP, dest_qp, 0);
    bth.becn = true;
    bth
}

/// True when the BTH is a RoCEv2 CNP.
pub const fn is_cnp(bth: &BthRepr) -> bool {
    bth.opcode.is_cnp()
}

/// A finished CNP frame (lengths, checksum and ICRC filled) to `dest_qp` over `net` (whose
/// addresses and UDP source port the caller chose; ConnectX sends source port 0 and DSCP 48).
pub fn frame(eth: EthernetRepr, net: RoceNet, dest_qp: u32) -> FrameRepr {
    let roce = RoceRepr {
        net,
        bth: bth(dest_qp),
        ext: ExtHeaders {
            cnp: Some(CnpRepr::default()),
            ..ExtHeaders::default()
        },
        payload: Vec::new(),
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
