//! UDP header. RoCEv2 uses destination port 4791 and sends checksum 0 (masked in the ICRC,
//! receivers must not check it), so the checksum is carried as found and never computed here.

use super::{get_u16, put_u16, Error, Result};

/// The IANA RoCEv2 destination port.
pub const ROCE_V2_PORT: u16 = 4791;

mod field {
    pub const SRC_PORT: usize = 0;
    pub const DST_PORT: usize = 2;
    pub const LENGTH: usize = 4;
    pub const CHECKSUM: usize = 6;
}

/// Length of the header.
pub const HEADER_LEN: usize = 8;

/// A view of a UDP header (and its payload) in a byte buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Wraps a buffer without checking its length; getters may then panic.
    pub const fn new_unchecked(buffer: T) -> Self {
        UdpPacket { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the header fits, that Length covers at least the header, and that the
    /// datagram Length announces fits in the buffer.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated("UDP header"));
        }
        let udp_len = usize::from(self.len());
        if udp_len < HEADER_LEN {
            return Err(Error::Malformed("UDP length below 8"));
        }
        if len < udp_len {
            return Err(Error::Truncated("UDP length exceeds the IP payload"));
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Source port (flow entropy for RoCEv2).
    pub fn src_port(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Length: header plus payload.
    pub fn len(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::LENGTH)
    }

    /// True when Length is 0 (never valid; present for clippy's `len` convention).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checksum as found.
    pub fn checksum(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// The payload bounded by Length.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..usize::from(self.len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, port: u16) {
        put_u16(self.buffer.as_mut(), field::SRC_PORT, port);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, port: u16) {
        put_u16(self.buffer.as_mut(), field::DST_PORT, port);
    }

    /// Sets Length.
    pub fn set_len(&mut self, len: u16) {
        put_u16(self.buffer.as_mut(), field::LENGTH, len);
    }

    /// Writes the checksum verbatim.
    pub fn set_checksum(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::CHECKSUM, value);
    }

    /// The payload bounded by Length, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = usize::from(self.len());
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// A UDP header as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    /// Length as carried (8 + L_ib for RoCEv2). The ICRC is found at UDP start + length − 4.
    pub length: u16,
    /// Carried as-is: RoCE senders put 0 here.
    pub checksum: u16,
}

impl UdpRepr {
    /// A RoCEv2 UDP header from `src_port` to 4791 with checksum 0; `length` is left 0 for
    /// [`FrameRepr::finalize`](super::FrameRepr::finalize).
    pub const fn roce(src_port: u16) -> UdpRepr {
        UdpRepr {
            src_port,
            dst_port: ROCE_V2_PORT,
            length: 0,
            checksum: 0,
        }
    }

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(packet: &UdpPacket<T>) -> Result<UdpRepr> {
        packet.check_len()?;
        Ok(UdpRepr {
            src_port: packet.src_port(),
            dst_port: packet.dst_port(),
            length: packet.len(),
            checksum: packet.checksum(),
        })
    }

    /// Always 8.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the 8-byte header into the view (the payload is left alone).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut UdpPacket<T>) {
        packet.set_src_port(self.src_port);
        packet.set_dst_port(self.dst_port);
        packet.set_len(self.length);
        packet.set_checksum(self.checksum);
    }
}
