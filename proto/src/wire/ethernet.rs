//! Ethernet II header with an optional single 802.1Q VLAN tag.
//!
//! ```text
//! DA(6) SA(6) [TPID 0x8100(2) PCP(3) DEI(1) VID(12)] EtherType(2)
//! ```
//! The frame check sequence is not part of the bytes handled here (captures omit it).

use super::{get_array, get_u16, put_u16, Error, Result};

/// EtherType values the NIC cares about.
pub mod ethertype {
    /// IPv4 (RoCEv2 over IPv4).
    pub const IPV4: u16 = 0x0800;
    /// IPv6 (RoCEv2 over IPv6).
    pub const IPV6: u16 = 0x86DD;
    /// RoCEv1: GRH directly over Ethernet.
    pub const ROCE_V1: u16 = 0x8915;
    /// MAC Control: PFC (802.1Qbb) and PAUSE (802.3x).
    pub const MAC_CONTROL: u16 = 0x8808;
    /// 802.1Q VLAN tag protocol identifier.
    pub const VLAN: u16 = 0x8100;
}

/// Smallest Ethernet frame without its 4-byte FCS; shorter frames are padded up to it.
pub const MIN_FRAME_LEN: usize = 60;

mod field {
    pub const DST: usize = 0;
    pub const SRC: usize = 6;
    /// EtherType of an untagged frame, or the TPID of a tagged one.
    pub const TYPE_OR_TPID: usize = 12;
    pub const TCI: usize = 14;
    pub const INNER_TYPE: usize = 16;
}

/// A MAC address as a 48-bit number, first wire byte in bits 47..40 (how the hardware's
/// registers and constants hold one).
pub const fn mac_to_u64(mac: [u8; 6]) -> u64 {
    ((mac[0] as u64) << 40)
        | ((mac[1] as u64) << 32)
        | ((mac[2] as u64) << 24)
        | ((mac[3] as u64) << 16)
        | ((mac[4] as u64) << 8)
        | (mac[5] as u64)
}

/// Header length without a VLAN tag.
pub const HEADER_LEN: usize = 14;
/// Header length with one 802.1Q tag.
pub const VLAN_HEADER_LEN: usize = 18;

/// 802.1Q tag control information.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VlanTag {
    /// Priority code point, 3 bits: the PFC priority the frame travels on.
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 12 bits.
    pub vid: u16,
}

impl VlanTag {
    /// Decodes the 16-bit TCI.
    pub const fn from_tci(tci: u16) -> Self {
        VlanTag {
            pcp: (tci >> 13) as u8,
            dei: tci & 0x1000 != 0,
            vid: tci & 0x0FFF,
        }
    }

    /// Encodes the 16-bit TCI. Out-of-range `pcp`/`vid` bits are dropped.
    pub const fn tci(&self) -> u16 {
        ((self.pcp as u16 & 0x7) << 13) | ((self.dei as u16) << 12) | (self.vid & 0x0FFF)
    }
}

/// A view of an Ethernet II header (and what follows it) in a byte buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps a buffer without checking its length; getters may then panic.
    pub const fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }

    /// Wraps a buffer after checking it holds the whole header (tag included when present).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let frame = Self::new_unchecked(buffer);
        frame.check_len()?;
        Ok(frame)
    }

    /// `Err(Truncated)` when the buffer cannot hold the header the TPID announces.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated("Ethernet header"));
        }
        if len < self.header_len() {
            return Err(Error::Truncated("802.1Q tag"));
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Destination MAC address.
    pub fn dst_addr(&self) -> [u8; 6] {
        get_array(self.buffer.as_ref(), field::DST)
    }

    /// Source MAC address.
    pub fn src_addr(&self) -> [u8; 6] {
        get_array(self.buffer.as_ref(), field::SRC)
    }

    /// True when bytes 12..14 hold the 802.1Q TPID.
    pub fn has_vlan(&self) -> bool {
        get_u16(self.buffer.as_ref(), field::TYPE_OR_TPID) == ethertype::VLAN
    }

    /// The VLAN tag, if the frame has one.
    pub fn vlan(&self) -> Option<VlanTag> {
        self.has_vlan()
            .then(|| VlanTag::from_tci(get_u16(self.buffer.as_ref(), field::TCI)))
    }

    /// 14, or 18 with a VLAN tag.
    pub fn header_len(&self) -> usize {
        if self.has_vlan() {
            VLAN_HEADER_LEN
        } else {
            HEADER_LEN
        }
    }

    /// The EtherType of the payload (the one after the tag, when tagged).
    pub fn ethertype(&self) -> u16 {
        let at = if self.has_vlan() {
            field::INNER_TYPE
        } else {
            field::TYPE_OR_TPID
        };
        get_u16(self.buffer.as_ref(), at)
    }

    /// Everything after the header, Ethernet padding included.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination MAC address.
    pub fn set_dst_addr(&mut self, addr: [u8; 6]) {
        self.buffer.as_mut()[field::DST..field::DST + 6].copy_from_slice(&addr);
    }

    /// Sets the source MAC address.
    pub fn set_src_addr(&mut self, addr: [u8; 6]) {
        self.buffer.as_mut()[field::SRC..field::SRC + 6].copy_from_slice(&addr);
    }

    /// Writes a VLAN tag (TPID and TCI), or for `None` nothing: the layout shifts with the tag,
    /// so call this before [`set_ethertype`](Self::set_ethertype) and before writing the payload.
    pub fn set_vlan(&mut self, vlan: Option<VlanTag>) {
        if let Some(tag) = vlan {
            let buf = self.buffer.as_mut();
            put_u16(buf, field::TYPE_OR_TPID, ethertype::VLAN);
            put_u16(buf, field::TCI, tag.tci());
        }
    }

    /// Sets the payload EtherType at the position the current TPID implies.
    pub fn set_ethertype(&mut self, value: u16) {
        let at = if self.has_vlan() {
            field::INNER_TYPE
        } else {
            field::TYPE_OR_TPID
        };
        put_u16(self.buffer.as_mut(), at, value);
    }

    /// Everything after the header, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        &mut self.buffer.as_mut()[start..]
    }
}

/// An Ethernet II header as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetRepr {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    pub vlan: Option<VlanTag>,
    /// The payload EtherType (inner, when tagged).
    pub ethertype: u16,
}

impl EthernetRepr {
    /// Reads the header out of a checked view.
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<EthernetRepr> {
        frame.check_len()?;
        Ok(EthernetRepr {
            dst: frame.dst_addr(),
            src: frame.src_addr(),
            vlan: frame.vlan(),
            ethertype: frame.ethertype(),
        })
    }

    /// Header length this repr emits: 14, or 18 with a tag.
    pub const fn buffer_len(&self) -> usize {
        if self.vlan.is_some() {
            VLAN_HEADER_LEN
        } else {
            HEADER_LEN
        }
    }

    /// Writes the header into the first `buffer_len()` bytes of the view.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) {
        frame.set_dst_addr(self.dst);
        frame.set_src_addr(self.src);
        if self.vlan.is_none() {
            // Clear a stale TPID so set_ethertype writes at offset 12.
            put_u16(frame.buffer.as_mut(), field::TYPE_OR_TPID, 0);
        }
        frame.set_vlan(self.vlan);
        frame.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlan_tci_packing() {
        let tag = VlanTag {
            pcp: 3,
            dei: true,
            vid: 0xABC,
        };
        assert_eq!(tag.tci(), 0x7ABC);
        assert_eq!(VlanTag::from_tci(0x7ABC), tag);
    }

    #[test]
    fn truncated_tag_is_an_error() {
        let mut bytes = [0u8; 16];
        bytes[12] = 0x81;
        assert_eq!(
            EthernetFrame::new_checked(&bytes[..]),
            Err(Error::Truncated("802.1Q tag"))
        );
        assert_eq!(
            EthernetFrame::new_checked(&bytes[..13]),
            Err(Error::Truncated("Ethernet header"))
        );
    }
}
