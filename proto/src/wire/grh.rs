//! RoCEv1 Global Route Header (IBTA Annex A16; docs/PROTOCOL.md §4.3).
//!
//! The GRH has the IPv6 header layout (IPVer 6, TClass, FlowLabel, PayLen, NxtHdr, HopLmt, SGID,
//! DGID), so the [`Ipv6Packet`] view reads it; only the meaning differs: PayLen counts the IB
//! transport bytes (BTH through ICRC) and NxtHdr is 0x1B ("IBA transport header follows").

use super::ipv6::Ipv6Packet;
pub use super::ipv6::HEADER_LEN;
use super::{Error, Result};

/// A view of a GRH: the same bytes as an IPv6 header.
pub type Grh<T> = Ipv6Packet<T>;

/// GRH NxtHdr value announcing an IBA transport header (BTH).
pub const NEXT_HEADER_IBA: u8 = 0x1B;

/// A GRH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrhRepr {
    /// TClass. Masked in the ICRC.
    pub traffic_class: u8,
    /// 20 bits. Masked in the ICRC.
    pub flow_label: u32,
    /// PayLen as carried: L_ib = BTH + extension headers + payload + pad + ICRC.
    pub payload_len: u16,
    /// NxtHdr; 0x1B on RoCEv1.
    pub next_header: u8,
    /// HopLmt. Masked in the ICRC.
    pub hop_limit: u8,
    pub sgid: [u8; 16],
    pub dgid: [u8; 16],
}

impl GrhRepr {
    /// A RoCEv1 GRH between two GIDs: TClass 0, flow label 0, NxtHdr 0x1B, HopLmt 64; `payload_len`
    /// is left 0 for [`FrameRepr::finalize`](super::FrameRepr::finalize).
    pub const fn new(sgid: [u8; 16], dgid: [u8; 16]) -> GrhRepr {
        GrhRepr {
            traffic_class: 0,
            flow_label: 0,
            payload_len: 0,
            next_header: NEXT_HEADER_IBA,
            hop_limit: 64,
            sgid,
            dgid,
        }
    }

    /// Reads the GRH out of a view; rejects an IPVer other than 6.
    pub fn parse<T: AsRef<[u8]>>(grh: &Grh<T>) -> Result<GrhRepr> {
        grh.check_len()?;
        if grh.version() != 6 {
            return Err(Error::Malformed("GRH IPVer is not 6"));
        }
        Ok(GrhRepr {
            traffic_class: grh.traffic_class(),
            flow_label: grh.flow_label(),
            payload_len: grh.payload_len(),
            next_header: grh.next_header(),
            hop_limit: grh.hop_limit(),
            sgid: grh.src_addr(),
            dgid: grh.dst_addr(),
        })
    }

    /// Always 40.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the 40-byte GRH into the view.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, grh: &mut Grh<T>) {
        grh.set_version(6);
        grh.set_traffic_class(self.traffic_class);
        grh.set_flow_label(self.flow_label);
        grh.set_payload_len(self.payload_len);
        grh.set_next_header(self.next_header);
        grh.set_hop_limit(self.hop_limit);
        grh.set_src_addr(self.sgid);
        grh.set_dst_addr(self.dgid);
    }
}
