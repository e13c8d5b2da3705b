//! The RoCE link to a QEMU guest: QEMU's `-netdev stream` carries each Ethernet frame (no FCS)
//! over a stream socket as a 4-byte big-endian length followed by the frame's bytes.
//!
//! [`Deframer`] is the framing alone (bytes in, frames out, checked); [`QemuLink`] runs it over
//! a non-blocking Unix stream so that the simulation keeps clocking between polls: a poll takes
//! whatever has arrived, and frames to send wait in an output buffer until the socket takes
//! them (QEMU reading slowly must not stall the NIC model).
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use thiserror::Error;

/// Largest frame accepted from the stream: QEMU frames are at most 64 KiB plus headers; a larger
/// length means the byte stream is not QEMU's framing (or it lost sync), which is fatal.
pub const MAX_FRAME: usize = 65_536 + 64;

#[derive(Debug, Error)]
pub enum LinkError {
    #[error("link: a frame length of {0} bytes (more than {MAX_FRAME}): not QEMU stream framing")]
    BadLength(usize),
    #[error("link: the guest closed the connection")]
    Closed,
    #[error("link: {0}")]
    Io(#[from] io::Error),
}

/// The length prefix of one frame.
pub fn frame_header(len: usize) -> [u8; 4] {
    (len as u32).to_be_bytes()
}

/// Cuts a byte stream into frames. Bytes can arrive in any pieces.
#[derive(Default, Debug)]
pub struct Deframer {
    buf: Vec<u8>,
}

impl Deframer {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame, if one has arrived. A zero-length frame is returned as an empty
    /// frame (the caller drops it; the NIC's MAC never sees it).
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, LinkError> {
        if self.buf.len() < 4 {
            return Ok(None);
        }
        let len = u32::from_be_bytes(self.buf[..4].try_into().expect("4 bytes")) as usize;
        if len > MAX_FRAME {
            return Err(LinkError::BadLength(len));
        }
        if self.buf.len() < 4 + len {
            return Ok(None);
        }
        let frame = self.buf[4..4 + len].to_vec();
        self.buf.drain(..4 + len);
        Ok(Some(frame))
    }

    /// Bytes of an incomplete frame waiting for the rest.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }
}

/// Totals of one direction of the link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    pub frames: u64,
    /// Frame bytes (without the length prefixes).
    pub bytes: u64,
}

/// The link over a connected, non-blocking Unix stream.
pub struct QemuLink {
    stream: UnixStream,
    rx: Deframer,
    tx: VecDeque<u8>,
    pub received: DirStats,
    pub sent: DirStats,
    /// Zero-length frames received (dropped here).
    pub empty: u64,
}

impl QemuLink {
    pub fn new(stream: UnixStream) -> io::Result<QemuLink> {
        stream.set_nonblocking(true)?;
        Ok(QemuLink {
            stream,
            rx: Deframer::default(),
            tx: VecDeque::new(),
            received: DirStats::default(),
            sent: DirStats::default(),
            empty: 0,
        })
    }

    /// Every whole frame that has arrived (never blocks).
    pub fn poll_rx(&mut self) -> Result<Vec<Vec<u8>>, LinkError> {
        let mut chunk = [0u8; 16384];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(LinkError::Closed),
                Ok(n) => self.rx.push(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut frames = Vec::new();
        while let Some(f) = self.rx.next_frame()? {
            if f.is_empty() {
                self.empty += 1;
                continue;
            }
            self.received.frames += 1;
            self.received.bytes += f.len() as u64;
            frames.push(f);
        }
        Ok(frames)
    }

    /// Queue a frame for the guest (written by [`QemuLink::flush`]).
    pub fn send(&mut self, frame: &[u8]) {
        self.tx.extend(frame_header(frame.len()));
        self.tx.extend(frame);
        self.sent.frames += 1;
        self.sent.bytes += frame.len() as u64;
    }

    /// Write as much of the queued output as the socket takes now (never blocks).
    pub fn flush(&mut self) -> Result<(), LinkError> {
        while !self.tx.is_empty() {
            let (a, _) = self.tx.as_slices();
            match self.stream.write(a) {
                Ok(0) => return Err(LinkError::Closed),
                Ok(n) => {
                    self.tx.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(LinkError::Closed),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Bytes queued for the guest and not yet written.
    pub fn backlog(&self) -> usize {
        self.tx.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deframes_pieces() {
        let mut d = Deframer::default();
        let mut stream = Vec::new();
        for f in [&b"abc"[..], &b""[..], &[7u8; 1500][..]] {
            stream.extend(frame_header(f.len()));
            stream.extend(f);
        }
        // one byte at a time: nothing is returned before a frame is whole
        let mut out = Vec::new();
        for b in &stream {
            d.push(&[*b]);
            while let Some(f) = d.next_frame().unwrap() {
                out.push(f);
            }
        }
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], b"abc");
        assert!(out[1].is_empty());
        assert_eq!(out[2], vec![7u8; 1500]);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn header_is_big_endian() {
        assert_eq!(frame_header(0x0102), [0, 0, 1, 2]);
    }

    #[test]
    fn rejects_a_huge_length() {
        let mut d = Deframer::default();
        d.push(&[0x7f, 0, 0, 0, 1]);
        assert!(matches!(
            d.next_frame(),
            Err(LinkError::BadLength(0x7f00_0000))
        ));
    }

    #[test]
    fn over_a_socket_pair() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut link = QemuLink::new(a).unwrap();
        assert!(link.poll_rx().unwrap().is_empty());
        link.send(&[1, 2, 3]);
        link.flush().unwrap();
        assert_eq!(link.backlog(), 0);
        let mut got = [0u8; 7];
        b.read_exact(&mut got).unwrap();
        assert_eq!(got, [0, 0, 0, 3, 1, 2, 3]);
        b.write_all(&[0, 0, 0, 2, 9, 9, 0, 0, 0, 0]).unwrap();
        // the bytes are in the socket now: one poll takes them
        let frames = link.poll_rx().unwrap();
        assert_eq!(frames, vec![vec![9, 9]]);
        assert_eq!(link.empty, 1);
        assert_eq!(
            link.received,
            DirStats {
                frames: 1,
                bytes: 2
            }
        );
        drop(b);
        assert!(matches!(link.poll_rx(), Err(LinkError::Closed)));
    }
}
