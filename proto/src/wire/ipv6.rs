//! IPv6 fixed header (RFC 8200). RoCEv2 puts UDP directly after it (no extension headers), and
//! the RoCEv1 GRH uses the same 40-byte layout (see [`super::grh`]).

use super::{get_array, get_u16, put_u16, Error, Result};

mod field {
    /// Version(4) | Traffic Class(8) | Flow Label(20), one big-endian word.
    pub const VER_TC_FL: usize = 0;
    pub const PAYLOAD_LEN: usize = 4;
    pub const NEXT_HEADER: usize = 6;
    pub const HOP_LIMIT: usize = 7;
    pub const SRC: usize = 8;
    pub const DST: usize = 24;
}

/// Length of the fixed header.
pub const HEADER_LEN: usize = 40;
/// Next-header value of UDP.
pub const NEXT_HEADER_UDP: u8 = 17;

/// A view of an IPv6 header (and its payload) in a byte buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Wraps a buffer without checking its length; getters may then panic.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the header and the payload announced by Payload Length fit in the buffer
    /// (which may be longer: Ethernet padding).
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated("IPv6/GRH header"));
        }
        if len < HEADER_LEN + usize::from(self.payload_len()) {
            return Err(Error::Truncated(
                "IPv6/GRH payload length exceeds the frame",
            ));
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn first_word(&self) -> u32 {
        super::get_u32(self.buffer.as_ref(), field::VER_TC_FL)
    }

    /// Version nibble (6).
    pub fn version(&self) -> u8 {
        (self.first_word() >> 28) as u8
    }

    /// Traffic class: DSCP (7:2) and ECN (1:0).
    pub fn traffic_class(&self) -> u8 {
        (self.first_word() >> 20) as u8
    }

    /// Flow label, 20 bits.
    pub fn flow_label(&self) -> u32 {
        self.first_word() & 0xF_FFFF
    }

    /// Payload Length: bytes after the 40-byte header.
    pub fn payload_len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::PAYLOAD_LEN)
    }

    /// Next header (17 = UDP; 0x1B in a RoCEv1 GRH).
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[field::NEXT_HEADER]
    }

    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }

    /// Source address (SGID in a GRH).
    pub fn src_addr(&self) -> [u8; 16] {
        get_array(self.buffer.as_ref(), field::SRC)
    }

    /// Destination address (DGID in a GRH).
    pub fn dst_addr(&self) -> [u8; 16] {
        get_array(self.buffer.as_ref(), field::DST)
    }

    /// The payload bounded by Payload Length.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..HEADER_LEN + usize::from(self.payload_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    fn set_first_word(&mut self, word: u32) {
        super::put_u32(self.buffer.as_mut(), field::VER_TC_FL, word);
    }

    /// Sets the version nibble.
    pub fn set_version(&mut self, version: u8) {
        let word = (self.first_word() & 0x0FFF_FFFF) | (u32::from(version & 0xF) << 28);
        self.set_first_word(word);
    }

    /// Sets the traffic class.
    pub fn set_traffic_class(&mut self, tc: u8) {
        let word = (self.first_word() & 0xF00F_FFFF) | (u32::from(tc) << 20);
        self.set_first_word(word);
    }

    /// Sets the flow label (low 20 bits of `label`).
    pub fn set_flow_label(&mut self, label: u32) {
        let word = (self.first_word() & 0xFFF0_0000) | (label & 0xF_FFFF);
        self.set_first_word(word);
    }

    /// Sets Payload Length.
    pub fn set_payload_len(&mut self, len: u16) {
        put_u16(self.buffer.as_mut(), field::PAYLOAD_LEN, len);
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, value: u8) {
        self.buffer.as_mut()[field::NEXT_HEADER] = value;
    }

    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, value: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = value;
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, addr: [u8; 16]) {
        self.buffer.as_mut()[field::SRC..field::SRC + 16].copy_from_slice(&addr);
    }

    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, addr: [u8; 16]) {
        self.buffer.as_mut()[field::DST..field::DST + 16].copy_from_slice(&addr);
    }

    /// The payload bounded by Payload Length, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = HEADER_LEN + usize::from(self.payload_len());
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// An IPv6 fixed header as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Repr {
    /// DSCP and ECN. Masked in the ICRC.
    pub traffic_class: u8,
    /// 20 bits. Masked in the ICRC.
    pub flow_label: u32,
    /// Payload Length as carried (8 + L_ib for RoCEv2).
    pub payload_len: u16,
    pub next_header: u8,
    /// Masked in the ICRC.
    pub hop_limit: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}

impl Ipv6Repr {
    /// A RoCEv2 header: TC 0x02 (ECT(0)), flow label 0, UDP, hop limit 64; `payload_len` is left
    /// 0 for [`FrameRepr::finalize`](super::FrameRepr::finalize).
    pub const fn roce(src: [u8; 16], dst: [u8; 16]) -> Ipv6Repr {
        Ipv6Repr {
            traffic_class: 0x02,
            flow_label: 0,
            payload_len: 0,
            next_header: NEXT_HEADER_UDP,
            hop_limit: 64,
            src,
            dst,
        }
    }

    /// Reads the header out of a view; rejects a version other than 6.
    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv6Packet<T>) -> Result<Ipv6Repr> {
        packet.check_len()?;
        if packet.version() != 6 {
            return Err(Error::Malformed("IPv6 version is not 6"));
        }
        Ok(Ipv6Repr {
            traffic_class: packet.traffic_class(),
            flow_label: packet.flow_label(),
            payload_len: packet.payload_len(),
            next_header: packet.next_header(),
            hop_limit: packet.hop_limit(),
            src: packet.src_addr(),
            dst: packet.dst_addr(),
        })
    }

    /// Always 40.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the 40-byte header into the view (the payload is left alone).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Ipv6Packet<T>) {
        packet.set_version(6);
        packet.set_traffic_class(self.traffic_class);
        packet.set_flow_label(self.flow_label);
        packet.set_payload_len(self.payload_len);
        packet.set_next_header(self.next_header);
        packet.set_hop_limit(self.hop_limit);
        packet.set_src_addr(self.src);
        packet.set_dst_addr(self.dst);
    }
}
