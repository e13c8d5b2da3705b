//! IPv4 header (RFC 791).
//!
//! RoCEv2 frames use a 20-byte header (IHL 5): rxe copies exactly 20 bytes into the ICRC, so
//! options must not be sent. Parsing still accepts options so that any captured frame can be
//! dissected and re-emitted; [`Ipv4Repr::options`] tells callers they are there.

use super::{get_array, get_u16, put_u16, Error, Result};

mod field {
    pub const VER_IHL: usize = 0;
    pub const TOS: usize = 1;
    pub const TOTAL_LEN: usize = 2;
    pub const IDENT: usize = 4;
    pub const FLAGS_FRAG: usize = 6;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: usize = 10;
    pub const SRC: usize = 12;
    pub const DST: usize = 16;
}

/// Length of a header without options.
pub const HEADER_LEN: usize = 20;
/// Longest header: IHL 15.
pub const MAX_HEADER_LEN: usize = 60;
/// IP protocol number of UDP.
pub const PROTOCOL_UDP: u8 = 17;
/// Flags/fragment-offset value of an unfragmented datagram with Don't Fragment set, as rxe and
/// hardware NICs send.
pub const FLAGS_DF: u16 = 0x4000;
/// More Fragments flag.
pub const FLAG_MF: u16 = 0x2000;
/// Fragment offset mask (in 8-byte units).
pub const FRAG_OFFSET_MASK: u16 = 0x1FFF;

/// The Internet checksum (RFC 1071): one's complement of the one's-complement sum of the bytes
/// taken as big-endian 16-bit words (an odd last byte is padded with zero).
///
/// To fill a header's checksum, compute it over the header with the checksum field zeroed. Over a
/// header with a correct checksum in place it returns 0.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u32::from(*last) << 8;
    }
    // End-around carry: fold the overflow back into the low 16 bits.
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// A view of an IPv4 header (and its datagram) in a byte buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps a buffer without checking its length; getters may then panic.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the header (options included) and the whole datagram announced by Total
    /// Length fit in the buffer, and that IHL and Total Length are self-consistent. The buffer
    /// may be longer than Total Length (Ethernet padding follows short datagrams).
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated("IPv4 header"));
        }
        let header_len = self.header_len();
        if header_len < HEADER_LEN {
            return Err(Error::Malformed("IPv4 IHL below 5"));
        }
        if len < header_len {
            return Err(Error::Truncated("IPv4 options"));
        }
        let total_len = usize::from(self.total_len());
        if total_len < header_len {
            return Err(Error::Malformed(
                "IPv4 total length shorter than its header",
            ));
        }
        if len < total_len {
            return Err(Error::Truncated("IPv4 total length exceeds the frame"));
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Version nibble (4 for IPv4).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }

    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.buffer.as_ref()[field::VER_IHL] & 0x0F) * 4
    }

    /// Type of service byte: DSCP (7:2) and ECN (1:0).
    pub fn tos(&self) -> u8 {
        self.buffer.as_ref()[field::TOS]
    }

    /// Differentiated services code point.
    pub fn dscp(&self) -> u8 {
        self.tos() >> 2
    }

    /// ECN codepoint: 0 Not-ECT, 2 ECT(0), 1 ECT(1), 3 CE.
    pub fn ecn(&self) -> u8 {
        self.tos() & 0x3
    }

    /// Total Length: header plus payload.
    pub fn total_len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::TOTAL_LEN)
    }

    /// Identification.
    pub fn ident(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::IDENT)
    }

    /// Flags (3 bits) and fragment offset (13 bits) as one word.
    pub fn flags_frag(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::FLAGS_FRAG)
    }

    /// Don't Fragment flag.
    pub fn dont_frag(&self) -> bool {
        self.flags_frag() & FLAGS_DF != 0
    }

    /// More Fragments flag.
    pub fn more_frags(&self) -> bool {
        self.flags_frag() & FLAG_MF != 0
    }

    /// Fragment offset in bytes.
    pub fn frag_offset(&self) -> usize {
        usize::from(self.flags_frag() & FRAG_OFFSET_MASK) * 8
    }

    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }

    /// Payload protocol (17 = UDP).
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }

    /// Header checksum as found.
    pub fn checksum(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// Source address.
    pub fn src_addr(&self) -> [u8; 4] {
        get_array(self.buffer.as_ref(), field::SRC)
    }

    /// Destination address.
    pub fn dst_addr(&self) -> [u8; 4] {
        get_array(self.buffer.as_ref(), field::DST)
    }

    /// Option bytes (empty for IHL 5).
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len()]
    }

    /// The header, options included.
    pub fn header(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.header_len()]
    }

    /// True when the header checksum is correct.
    pub fn verify_checksum(&self) -> bool {
        checksum(self.header()) == 0
    }

    /// The datagram payload, bounded by Total Length (Ethernet padding excluded).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..usize::from(self.total_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Sets the version nibble.
    pub fn set_version(&mut self, version: u8) {
        let b = &mut self.buffer.as_mut()[field::VER_IHL];
        *b = (*b & 0x0F) | (version << 4);
    }

    /// Sets IHL from a header length in bytes (a multiple of 4, at most 60).
    pub fn set_header_len(&mut self, len: usize) {
        let b = &mut self.buffer.as_mut()[field::VER_IHL];
        *b = (*b & 0xF0) | ((len / 4) as u8 & 0x0F);
    }

    /// Sets the TOS byte (DSCP and ECN).
    pub fn set_tos(&mut self, tos: u8) {
        self.buffer.as_mut()[field::TOS] = tos;
    }

    /// Sets the ECN codepoint, keeping the DSCP: what a switch does when it marks CE.
    pub fn set_ecn(&mut self, ecn: u8) {
        let tos = (self.tos() & !0x3) | (ecn & 0x3);
        self.set_tos(tos);
    }

    /// Sets Total Length.
    pub fn set_total_len(&mut self, len: u16) {
        put_u16(self.buffer.as_mut(), field::TOTAL_LEN, len);
    }

    /// Sets Identification.
    pub fn set_ident(&mut self, ident: u16) {
        put_u16(self.buffer.as_mut(), field::IDENT, ident);
    }

    /// Sets the flags/fragment-offset word.
    pub fn set_flags_frag(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::FLAGS_FRAG, value);
    }

    /// Sets the TTL.
    pub fn set_ttl(&mut self, ttl: u8) {
        self.buffer.as_mut()[field::TTL] = ttl;
    }

    /// Sets the protocol.
    pub fn set_protocol(&mut self, protocol: u8) {
        self.buffer.as_mut()[field::PROTOCOL] = protocol;
    }

    /// Writes a checksum value verbatim.
    pub fn set_checksum(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::CHECKSUM, value);
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, addr: [u8; 4]) {
        self.buffer.as_mut()[field::SRC..field::SRC + 4].copy_from_slice(&addr);
    }

    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, addr: [u8; 4]) {
        self.buffer.as_mut()[field::DST..field::DST + 4].copy_from_slice(&addr);
    }

    /// Option bytes, mutable (the IHL must already be set).
    pub fn options_mut(&mut self) -> &mut [u8] {
        let end = self.header_len();
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }

    /// Computes and writes the header checksum (IHL must already be set).
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let sum = checksum(self.header());
        self.set_checksum(sum);
    }

    /// The payload bounded by Total Length, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (start, end) = (self.header_len(), usize::from(self.total_len()));
        &mut self.buffer.as_mut()[start..end]
    }
}

/// An IPv4 header as a value, carrying every field a real stack may set so that re-emission is
/// byte-exact.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ipv4Repr {
    /// DSCP (7:2) and ECN (1:0). Masked in the ICRC.
    pub tos: u8,
    /// Total Length as carried (see [`FrameRepr::finalize`](super::FrameRepr::finalize)).
    pub total_len: u16,
    pub ident: u16,
    /// Flags and fragment offset; RoCE sends 0x4000 (DF).
    pub flags_frag: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// Option bytes (IHL > 5), a multiple of 4 and at most 40 bytes. Empty on RoCEv2 frames;
    /// non-empty means the sender used options, which rxe's ICRC does not cover.
    pub options: Vec<u8>,
    /// `None` (the normal case): `emit` computes the correct header checksum.
    /// `Some(value)`: the parsed header carried this *wrong* checksum; `emit` writes it verbatim
    /// so a captured frame re-emits byte-exact. `parse` sets it only when the checksum is bad.
    pub wrong_checksum: Option<u16>,
}

impl Ipv4Repr {
    /// A RoCEv2 header as rxe sends it: TOS 0x02 (ECT(0)), ID 0, DF, TTL 64, UDP, no options.
    /// `total_len` is left 0 for [`FrameRepr::finalize`](super::FrameRepr::finalize) to fill.
    pub fn roce(src: [u8; 4], dst: [u8; 4]) -> Ipv4Repr {
        Ipv4Repr {
            tos: 0x02,
            total_len: 0,
            ident: 0,
            flags_frag: FLAGS_DF,
            ttl: 64,
            protocol: PROTOCOL_UDP,
            src,
            dst,
            options: Vec::new(),
            wrong_checksum: None,
        }
    }

    /// Reads the header out of a view; rejects a version other than 4.
    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv4Packet<T>) -> Result<Ipv4Repr> {
        packet.check_len()?;
        if packet.version() != 4 {
            return Err(Error::Malformed("IPv4 version is not 4"));
        }
        Ok(Ipv4Repr {
            tos: packet.tos(),
            total_len: packet.total_len(),
            ident: packet.ident(),
            flags_frag: packet.flags_frag(),
            ttl: packet.ttl(),
            protocol: packet.protocol(),
            src: packet.src_addr(),
            dst: packet.dst_addr(),
            options: packet.options().to_vec(),
            wrong_checksum: (!packet.verify_checksum()).then(|| packet.checksum()),
        })
    }

    /// Header length this repr emits (20 plus options).
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.options.len()
    }

    /// True when the header carries options (IHL > 5): not a valid RoCEv2 sender.
    pub fn has_options(&self) -> bool {
        !self.options.is_empty()
    }

    /// DSCP part of `tos`.
    pub const fn dscp(&self) -> u8 {
        self.tos >> 2
    }

    /// ECN part of `tos`.
    pub const fn ecn(&self) -> u8 {
        self.tos & 0x3
    }

    /// True unless the parsed checksum was wrong.
    pub const fn checksum_ok(&self) -> bool {
        self.wrong_checksum.is_none()
    }

    /// Writes the header into the first `buffer_len()` bytes of the view (the payload is left
    /// alone), then the checksum: computed, or `wrong_checksum` verbatim.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Ipv4Packet<T>) {
        packet.set_version(4);
        packet.set_header_len(self.buffer_len());
        packet.set_tos(self.tos);
        packet.set_total_len(self.total_len);
        packet.set_ident(self.ident);
        packet.set_flags_frag(self.flags_frag);
        packet.set_ttl(self.ttl);
        packet.set_protocol(self.protocol);
        packet.set_src_addr(self.src);
        packet.set_dst_addr(self.dst);
        // A repr whose options are not whole 32-bit words (or exceed 40 bytes) cannot be
        // described by IHL; write what fits rather than panic.
        let options = packet.options_mut();
        let n = options.len().min(self.options.len());
        options[..n].copy_from_slice(&self.options[..n]);
        match self.wrong_checksum {
            Some(value) => packet.set_checksum(value),
            None => packet.fill_checksum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_the_vector_header() {
        // IPv4 header of the published vector v4_rc_send_only; its checksum is a4c3.
        let mut header = [
            0x45, 0x6a, 0x00, 0x38, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0xa4, 0xc3, 0xc0, 0xa8,
            0x01, 0x01, 0xc0, 0xa8, 0x01, 0x02,
        ];
        assert_eq!(checksum(&header), 0);
        header[10] = 0;
        header[11] = 0;
        assert_eq!(checksum(&header), 0xa4c3);
        // Odd-length input pads with a zero byte.
        assert_eq!(checksum(&[0x01]), !0x0100);
    }

    #[test]
    fn check_len_rejects_bad_lengths() {
        let mut header = [0u8; 24];
        header[0] = 0x44; // IHL 4
        header[3] = 20;
        assert_eq!(
            Ipv4Packet::new_checked(&header[..]),
            Err(Error::Malformed("IPv4 IHL below 5"))
        );
        header[0] = 0x46; // IHL 6: 24 bytes, but Total Length 20
        assert!(matches!(
            Ipv4Packet::new_checked(&header[..]),
            Err(Error::Malformed(_))
        ));
        header[3] = 200;
        assert!(matches!(
            Ipv4Packet::new_checked(&header[..]),
            Err(Error::Truncated(_))
        ));
        header[3] = 24;
        let packet = Ipv4Packet::new_checked(&header[..]).unwrap();
        assert_eq!(
            (
                packet.header_len(),
                packet.options().len(),
                packet.payload().len()
            ),
            (24, 4, 0)
        );
    }
}
