//! The control channel: the byte stream that carries a tool's out-of-band TCP exchange (bridged
//! by the guest onto a virtio-serial port, and by QEMU onto a Unix socket here). A session
//! writes and reads whole messages on it ([`super::exchange`]); while it waits for bytes, it
//! keeps the NIC clocking through the `idle` callback, since the NIC must go on answering the
//! guest's RoCE traffic in the meantime.
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ControlError {
    #[error("control channel: closed by the peer while waiting for {what} ({got} of {want} bytes had arrived)")]
    Closed {
        what: &'static str,
        got: usize,
        want: usize,
    },
    #[error("control channel: {0}")]
    Io(#[from] io::Error),
}

/// Direction of a logged message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

/// One message as it crossed the channel (for the summary: what the exchange looked like).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logged {
    pub dir: Dir,
    pub what: &'static str,
    pub len: usize,
}

/// A connected control channel (non-blocking underneath).
pub struct Control {
    stream: UnixStream,
    inbuf: Vec<u8>,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub log: Vec<Logged>,
}

impl Control {
    pub fn new(stream: UnixStream) -> io::Result<Control> {
        stream.set_nonblocking(true)?;
        Ok(Control {
            stream,
            inbuf: Vec::new(),
            bytes_in: 0,
            bytes_out: 0,
            log: Vec::new(),
        })
    }

    /// Write one whole message, calling `idle` whenever the socket is full.
    pub fn send<E: From<ControlError>>(
        &mut self,
        what: &'static str,
        msg: &[u8],
        idle: &mut dyn FnMut() -> Result<(), E>,
    ) -> Result<(), E> {
        let mut off = 0;
        while off < msg.len() {
            match self.stream.write(&msg[off..]) {
                Ok(0) => {
                    return Err(ControlError::Closed {
                        what,
                        got: off,
                        want: msg.len(),
                    }
                    .into())
                }
                Ok(n) => off += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => idle()?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                    return Err(ControlError::Closed {
                        what,
                        got: off,
                        want: msg.len(),
                    }
                    .into())
                }
                Err(e) => return Err(ControlError::Io(e).into()),
            }
        }
        self.bytes_out += msg.len() as u64;
        self.log.push(Logged {
            dir: Dir::Out,
            what,
            len: msg.len(),
        });
        Ok(())
    }

    /// Read exactly `n` bytes, calling `idle` while they have not all arrived.
    pub fn recv<E: From<ControlError>>(
        &mut self,
        what: &'static str,
        n: usize,
        idle: &mut dyn FnMut() -> Result<(), E>,
    ) -> Result<Vec<u8>, E> {
        while self.inbuf.len() < n {
            if !self.fill(what, n)? {
                idle()?;
            }
        }
        let msg: Vec<u8> = self.inbuf.drain(..n).collect();
        self.bytes_in += n as u64;
        self.log.push(Logged {
            dir: Dir::In,
            what,
            len: n,
        });
        Ok(msg)
    }

    /// Read what is there; false if nothing was.
    fn fill(&mut self, what: &'static str, want: usize) -> Result<bool, ControlError> {
        let mut chunk = [0u8; 4096];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(ControlError::Closed {
                what,
                got: self.inbuf.len(),
                want,
            }),
            Ok(k) => {
                self.inbuf.extend_from_slice(&chunk[..k]);
                Ok(true)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Bytes that arrived and were not read as a message yet.
    pub fn unread(&self) -> usize {
        self.inbuf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_in_pieces_and_close() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut c = Control::new(a).unwrap();
        let mut idle = || -> Result<(), ControlError> { Ok(()) };
        c.send("hello", b"0123", &mut idle).unwrap();
        let mut got = [0u8; 4];
        b.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"0123");
        b.write_all(b"abcdefg").unwrap();
        assert_eq!(c.recv("first", 3, &mut idle).unwrap(), b"abc");
        assert_eq!(c.recv("second", 4, &mut idle).unwrap(), b"defg");
        b.write_all(b"xy").unwrap();
        drop(b);
        let e = c.recv("third", 5, &mut idle).unwrap_err();
        assert!(matches!(
            e,
            ControlError::Closed {
                what: "third",
                got: 2,
                want: 5
            }
        ));
        assert_eq!(c.bytes_in, 7);
        assert_eq!(c.bytes_out, 4);
        assert_eq!(c.log.len(), 3);
    }
}
