//! The out-of-band messages that the Linux RDMA test tools exchange over their TCP socket
//! before, between and after their tests, as typed representations with checked `parse` and
//! `emit` (in the manner of smoltcp's `Repr` types): a session speaks them byte for byte as
//! the tool's peer would, over the control channel.
//!
//! Written from a study of the tools' behaviour, for the versions Debian 12 (bookworm) ships:
//! rdma-core 44.0 (`ibv_rc_pingpong`, package ibverbs-utils 44.0-2) and perftest 4.5-0.17
//! (package perftest 4.5+0.17-1, which announces itself as version "6.06" on the socket).
//! No code or text of those tools is reproduced here; the layouts below are described in our
//! own words (docs/INTEROP.md has the message order of each tool).
//!
//! Every message is a fixed number of bytes; the tools read each with one `read()` of that
//! size and give up if fewer bytes arrive, so a session must write each message whole.
//!
//! * `ibv_rc_pingpong`: one 52-byte record per side, `LID:QPN:PSN:GID` in hexadecimal text
//!   ([`PingpongDest`]), then the client's 5-byte `done` ([`DONE`]).
//! * perftest: a 16-byte version string ([`PerftestVersion`]), two 4-byte big-endian integers
//!   (the cycle buffer and the cache-line size), a 2-byte MTU string ([`MtuMessage`]), a
//!   108-byte record per QP and per handshake ([`PerftestDest`]), and for the bandwidth
//!   report five 8-byte big-endian fields ([`BwReport`]); each exchange is "client writes,
//!   then reads" against "server reads, then writes" ([`Side`]).
use ferroce_proto::host::config::Gid;
use thiserror::Error;

/// A message that does not have the layout its tool gives it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExchangeError {
    #[error("{what}: {len} bytes, expected {expected}")]
    Length {
        what: &'static str,
        len: usize,
        expected: usize,
    },
    #[error("{what}: not ASCII text")]
    NotText { what: &'static str },
    #[error("{what}: {found} ':'-separated fields, expected {expected}")]
    FieldCount {
        what: &'static str,
        found: usize,
        expected: usize,
    },
    #[error("{what}: field {field} '{text}' is not a hexadecimal number")]
    NotHex {
        what: &'static str,
        field: &'static str,
        text: String,
    },
    #[error("{what}: field {field} is {value:#x}, more than its {bits} bits")]
    TooWide {
        what: &'static str,
        field: &'static str,
        value: u64,
        bits: u32,
    },
    #[error("{what}: '{text}' is not a decimal number")]
    NotDecimal { what: &'static str, text: String },
    #[error("{what}: '{text}' is {len} bytes, at most {max} fit")]
    TooLong {
        what: &'static str,
        text: String,
        len: usize,
        max: usize,
    },
}

type Result<T> = core::result::Result<T, ExchangeError>;

/// Which end of the tool's TCP connection a session plays. The client (the tool run with a
/// server name) writes first in every exchange; the server reads first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

impl Side {
    /// In an exchange of one message each way, this side writes before it reads.
    pub fn writes_first(self) -> bool {
        self == Side::Client
    }
}

/// The `done` marker of 5 bytes (the word and its NUL): `ibv_rc_pingpong`'s client sends it
/// after it has read the server's record; both perftest sides send it after their last
/// handshake (and neither reads it).
pub const DONE: [u8; 5] = *b"done\0";

/// The text of a fixed-size message: the bytes before the first NUL (all of them if none),
/// which must be ASCII.
fn text_of<'a>(what: &'static str, buf: &'a [u8]) -> Result<&'a str> {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let t = &buf[..end];
    if !t.is_ascii() {
        return Err(ExchangeError::NotText { what });
    }
    // ASCII is UTF-8
    Ok(core::str::from_utf8(t).expect("ASCII"))
}

fn check_len(what: &'static str, buf: &[u8], expected: usize) -> Result<()> {
    if buf.len() == expected {
        Ok(())
    } else {
        Err(ExchangeError::Length {
            what,
            len: buf.len(),
            expected,
        })
    }
}

/// A hexadecimal field of at most `bits` bits. Any number of digits is accepted (the tools
/// scan these with `%x`-like parsing), an empty field or a sign is not.
fn hex_field(what: &'static str, field: &'static str, text: &str, bits: u32) -> Result<u64> {
    let bad = || ExchangeError::NotHex {
        what,
        field,
        text: text.to_string(),
    };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let digits = text.trim_start_matches('0');
    if digits.len() > 16 {
        return Err(ExchangeError::TooWide {
            what,
            field,
            value: u64::MAX,
            bits,
        });
    }
    let v = if digits.is_empty() {
        0
    } else {
        u64::from_str_radix(digits, 16).map_err(|_| bad())?
    };
    if bits < 64 && v >> bits != 0 {
        return Err(ExchangeError::TooWide {
            what,
            field,
            value: v,
            bits,
        });
    }
    Ok(v)
}

/// Copy `text` into a zero-filled message of `len` bytes (the text must leave room for its
/// NUL; callers format fixed-width fields, so this holds by construction).
fn fixed(text: &str, len: usize) -> Vec<u8> {
    debug_assert!(text.len() < len, "'{text}' does not fit {len} bytes");
    let mut out = vec![0u8; len];
    out[..text.len()].copy_from_slice(text.as_bytes());
    out
}

// ---------------------------------------------------------------------------------------------
// ibv_rc_pingpong

/// Size of `ibv_rc_pingpong`'s address record: 4 + 6 + 6 hex digits, 32 hex digits of GID,
/// three ':' and the NUL.
pub const PINGPONG_MSG_LEN: usize = 52;

/// `ibv_rc_pingpong`'s address record: `LLLL:QQQQQQ:PPPPPP:GGGG…` (lowercase hex, zero-padded:
/// LID 4 digits, QPN and PSN 6, then the GID as 32 digits, its 16 bytes in wire order), a NUL
/// after it; 52 bytes in all. A zero GID means "no GRH" to the tool (InfiniBand); on RoCE it
/// must be the peer's GID (the guest runs the tool with `-g`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PingpongDest {
    pub lid: u16,
    /// 24 bits.
    pub qpn: u32,
    /// 24 bits.
    pub psn: u32,
    pub gid: Gid,
}

impl PingpongDest {
    const WHAT: &'static str = "rc_pingpong address";

    pub fn parse(buf: &[u8]) -> Result<PingpongDest> {
        check_len(Self::WHAT, buf, PINGPONG_MSG_LEN)?;
        let text = text_of(Self::WHAT, buf)?;
        let f: Vec<&str> = text.split(':').collect();
        if f.len() != 4 {
            return Err(ExchangeError::FieldCount {
                what: Self::WHAT,
                found: f.len(),
                expected: 4,
            });
        }
        Ok(PingpongDest {
            lid: hex_field(Self::WHAT, "LID", f[0], 16)? as u16,
            qpn: hex_field(Self::WHAT, "QPN", f[1], 24)? as u32,
            psn: hex_field(Self::WHAT, "PSN", f[2], 24)? as u32,
            gid: parse_gid32(Self::WHAT, f[3])?,
        })
    }

    /// The 52-byte record (QPN and PSN are taken modulo 2^24, as their fields are 24 bits).
    pub fn emit(&self) -> Vec<u8> {
        let gid: String = self.gid.0.iter().map(|b| format!("{b:02x}")).collect();
        let text = format!(
            "{:04x}:{:06x}:{:06x}:{gid}",
            self.lid,
            self.qpn & 0xFF_FFFF,
            self.psn & 0xFF_FFFF
        );
        fixed(&text, PINGPONG_MSG_LEN)
    }
}

/// A GID as 32 hex digits, its bytes in wire order (the tool prints it 4 bytes at a time as
/// big-endian words, which gives the same digits on any host).
fn parse_gid32(what: &'static str, text: &str) -> Result<Gid> {
    if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ExchangeError::NotHex {
            what,
            field: "GID",
            text: text.to_string(),
        });
    }
    let mut g = [0u8; 16];
    for (i, b) in g.iter_mut().enumerate() {
        *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex digits");
    }
    Ok(Gid(g))
}

// ---------------------------------------------------------------------------------------------
// perftest

/// The version string perftest 4.5-0.17 announces (its build's package version): what the
/// simulator announces too, so that the tool picks the same message sizes it would with its
/// own kind.
pub const PERFTEST_VERSION: &str = "6.06";
/// The oldest peer version perftest 4.5-0.17 accepts (it exits on anything older).
pub const PERFTEST_MIN_VERSION: f64 = 5.70;
/// Size of the version message.
pub const PERFTEST_VERSION_LEN: usize = 16;
/// Size of the address record without a GID (InfiniBand with LIDs).
pub const KEY_MSG_LEN: usize = 59;
/// Size of the address record with a GID (RoCE: always this one).
pub const KEY_MSG_LEN_GID: usize = 108;
/// Size of the MTU message (the `ibv_mtu` code as decimal text and its NUL).
pub const MTU_MSG_LEN: usize = 2;
/// TCP port perftest listens on by default (for documentation: the control channel here
/// is a byte stream, not a TCP socket).
pub const PERFTEST_PORT: u16 = 18515;

/// The 16-byte version message: the version as text, NUL-padded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftestVersion(pub String);

impl PerftestVersion {
    const WHAT: &'static str = "perftest version";

    pub fn ours() -> PerftestVersion {
        PerftestVersion(PERFTEST_VERSION.to_string())
    }

    pub fn parse(buf: &[u8]) -> Result<PerftestVersion> {
        check_len(Self::WHAT, buf, PERFTEST_VERSION_LEN)?;
        Ok(PerftestVersion(text_of(Self::WHAT, buf)?.to_string()))
    }

    pub fn emit(&self) -> Result<Vec<u8>> {
        if self.0.len() >= PERFTEST_VERSION_LEN || !self.0.is_ascii() {
            return Err(ExchangeError::TooLong {
                what: Self::WHAT,
                text: self.0.clone(),
                len: self.0.len(),
                max: PERFTEST_VERSION_LEN - 1,
            });
        }
        Ok(fixed(&self.0, PERFTEST_VERSION_LEN))
    }

    /// The version as the tool compares it: the longest leading decimal number (so "6.06"
    /// is 6.06, "5.70-rc" is 5.70); 0 if there is none.
    pub fn number(&self) -> f64 {
        let t = self.0.trim_start();
        let mut end = 0;
        let mut dot = false;
        for (i, c) in t.char_indices() {
            if c.is_ascii_digit() || (c == '.' && !dot) {
                dot |= c == '.';
                end = i + 1;
            } else {
                break;
            }
        }
        t[..end].parse().unwrap_or(0.0)
    }

    /// The peer sends the MTU as 2 bytes (from 5.31 on; 4 before).
    pub fn mtu_msg_len(&self) -> usize {
        if self.number() >= 5.31 {
            MTU_MSG_LEN
        } else {
            4
        }
    }

    /// The cycle-buffer and cache-line exchange happens (from 5.32 on).
    pub fn exchanges_sys_data(&self) -> bool {
        self.number() >= 5.32
    }

    /// Bytes of the iteration count in the bandwidth report (8 from 5.33 on, 4 before).
    pub fn report_iters_len(&self) -> usize {
        if self.number() >= 5.33 {
            8
        } else {
            4
        }
    }
}

/// A 4-byte big-endian integer message (the cycle buffer, the cache-line size).
pub fn emit_be32(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

pub fn parse_be32(what: &'static str, buf: &[u8]) -> Result<u32> {
    check_len(what, buf, 4)?;
    Ok(u32::from_be_bytes(buf.try_into().expect("4 bytes")))
}

/// The MTU message: the `ibv_mtu` code (1 = 256 .. 5 = 4096) as decimal text and its NUL.
/// Each side then runs with the smaller of its own and a valid peer code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtuMessage(pub u8);

impl MtuMessage {
    const WHAT: &'static str = "perftest MTU";

    /// `len` is what the peer's version makes it ([`PerftestVersion::mtu_msg_len`]).
    pub fn parse(buf: &[u8], len: usize) -> Result<MtuMessage> {
        check_len(Self::WHAT, buf, len)?;
        let text = text_of(Self::WHAT, buf)?;
        let digits: &str = &text[..text.bytes().take_while(u8::is_ascii_digit).count()];
        match digits.parse::<u8>() {
            Ok(v) => Ok(MtuMessage(v)),
            Err(_) => Err(ExchangeError::NotDecimal {
                what: Self::WHAT,
                text: text.to_string(),
            }),
        }
    }

    pub fn emit(&self, len: usize) -> Vec<u8> {
        let text = self.0.to_string();
        let mut out = vec![0u8; len];
        let n = text.len().min(len - 1);
        out[..n].copy_from_slice(&text.as_bytes()[..n]);
        out
    }

    /// A code the tool accepts (1..=5).
    pub fn is_valid(&self) -> bool {
        (1..=5).contains(&self.0)
    }
}

/// perftest's address record of one QP, exchanged in every handshake:
/// `LLLL:OOOO:QQQQQQ:PPPPPP:RRRRRRRR:VVVVVVVVVVVVVVVV:` then, with a GID (RoCE, 108 bytes),
/// its 16 bytes as `gg:` each, then `SSSSSSSS:` and a NUL; without (59 bytes), just
/// `SSSSSSSS` and the NUL. Fields: LID, outstanding RDMA reads/atomics the side accepts
/// (its max_dest_rd_atomic, which the other side uses as its max_rd_atomic), QPN, initial
/// PSN, rkey and virtual address of the side's buffer (where the other side writes, reads
/// or runs atomics), SRQ number (XRC/DC only, else 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftestDest {
    pub lid: u16,
    pub out_reads: u16,
    /// 24 bits.
    pub qpn: u32,
    /// 24 bits.
    pub psn: u32,
    pub rkey: u32,
    pub vaddr: u64,
    /// Present on RoCE (the 108-byte form).
    pub gid: Option<Gid>,
    pub srqn: u32,
}

impl PerftestDest {
    const WHAT: &'static str = "perftest address";

    /// The record's size: [`KEY_MSG_LEN_GID`] with a GID, [`KEY_MSG_LEN`] without.
    pub fn msg_len(with_gid: bool) -> usize {
        if with_gid {
            KEY_MSG_LEN_GID
        } else {
            KEY_MSG_LEN
        }
    }

    /// Parse a record of either size (the size says which form).
    pub fn parse(buf: &[u8]) -> Result<PerftestDest> {
        let with_gid = match buf.len() {
            KEY_MSG_LEN_GID => true,
            KEY_MSG_LEN => false,
            len => {
                return Err(ExchangeError::Length {
                    what: Self::WHAT,
                    len,
                    expected: KEY_MSG_LEN_GID,
                })
            }
        };
        let text = text_of(Self::WHAT, buf)?;
        let f: Vec<&str> = text.split(':').collect();
        // with a GID the text ends in ':', which leaves an empty last field
        let expected = if with_gid { 6 + 16 + 1 + 1 } else { 7 };
        if f.len() != expected || (with_gid && !f[expected - 1].is_empty()) {
            return Err(ExchangeError::FieldCount {
                what: Self::WHAT,
                found: f.len(),
                expected,
            });
        }
        let w = Self::WHAT;
        let gid = if with_gid {
            let mut g = [0u8; 16];
            for (i, b) in g.iter_mut().enumerate() {
                *b = hex_field(w, "GID byte", f[6 + i], 8)? as u8;
            }
            Some(Gid(g))
        } else {
            None
        };
        let srqn = if with_gid { f[22] } else { f[6] };
        Ok(PerftestDest {
            lid: hex_field(w, "LID", f[0], 16)? as u16,
            out_reads: hex_field(w, "OUT_READS", f[1], 16)? as u16,
            qpn: hex_field(w, "QPN", f[2], 24)? as u32,
            psn: hex_field(w, "PSN", f[3], 24)? as u32,
            rkey: hex_field(w, "RKEY", f[4], 32)? as u32,
            vaddr: hex_field(w, "VADDR", f[5], 64)?,
            gid,
            srqn: hex_field(w, "SRQN", srqn, 32)? as u32,
        })
    }

    /// The record ([`KEY_MSG_LEN_GID`] bytes with a GID, [`KEY_MSG_LEN`] without; QPN and
    /// PSN modulo 2^24).
    pub fn emit(&self) -> Vec<u8> {
        let mut text = format!(
            "{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:",
            self.lid,
            self.out_reads,
            self.qpn & 0xFF_FFFF,
            self.psn & 0xFF_FFFF,
            self.rkey,
            self.vaddr
        );
        match self.gid {
            Some(g) => {
                for b in g.0 {
                    text.push_str(&format!("{b:02x}:"));
                }
                text.push_str(&format!("{:08x}:", self.srqn));
            }
            None => text.push_str(&format!("{:08x}", self.srqn)),
        }
        fixed(&text, Self::msg_len(self.gid.is_some()))
    }
}

/// Both GIDs are IPv4-mapped, or neither is: perftest stops when the two sides' GID types
/// differ.
pub fn gids_compatible(a: &Gid, b: &Gid) -> bool {
    a.to_ipv4().is_some() == b.to_ipv4().is_some()
}

/// The bandwidth report one side sends the other after a test (the server of a one-way test
/// prints the client's). Sent as separate exchanges of big-endian fields, in this order:
/// message size (8 bytes), iterations (8 bytes, or 4 for peers before 5.33), peak bandwidth,
/// average bandwidth, average message rate (IEEE-754 doubles, 8 bytes each). Bandwidths are
/// in the unit the reporting side prints (MB/s of 2^20 bytes by default), the message rate
/// in millions per second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BwReport {
    pub size: u64,
    pub iters: u64,
    pub bw_peak: f64,
    pub bw_avg: f64,
    pub msg_rate: f64,
}

/// Number of fields of a [`BwReport`] on the wire (without the per-port extension).
pub const BW_REPORT_FIELDS: usize = 5;

impl BwReport {
    const WHAT: &'static str = "perftest report field";

    /// Each field's bytes, in exchange order (`iters_len`: 8, or 4 for old peers).
    pub fn emit_fields(&self, iters_len: usize) -> [Vec<u8>; BW_REPORT_FIELDS] {
        let iters = if iters_len == 4 {
            (self.iters as u32).to_be_bytes().to_vec()
        } else {
            self.iters.to_be_bytes().to_vec()
        };
        [
            self.size.to_be_bytes().to_vec(),
            iters,
            self.bw_peak.to_bits().to_be_bytes().to_vec(),
            self.bw_avg.to_bits().to_be_bytes().to_vec(),
            self.msg_rate.to_bits().to_be_bytes().to_vec(),
        ]
    }

    /// The size of field `i` on the wire.
    pub fn field_len(i: usize, iters_len: usize) -> usize {
        if i == 1 {
            iters_len
        } else {
            8
        }
    }

    /// The report from its fields as received.
    pub fn parse_fields(fields: &[Vec<u8>], iters_len: usize) -> Result<BwReport> {
        if fields.len() != BW_REPORT_FIELDS {
            return Err(ExchangeError::FieldCount {
                what: Self::WHAT,
                found: fields.len(),
                expected: BW_REPORT_FIELDS,
            });
        }
        for (i, f) in fields.iter().enumerate() {
            check_len(Self::WHAT, f, Self::field_len(i, iters_len))?;
        }
        let u64_of = |f: &Vec<u8>| u64::from_be_bytes(f[..8].try_into().expect("8 bytes"));
        let iters = if iters_len == 4 {
            u32::from_be_bytes(fields[1][..4].try_into().expect("4 bytes")) as u64
        } else {
            u64_of(&fields[1])
        };
        Ok(BwReport {
            size: u64_of(&fields[0]),
            iters,
            bw_peak: f64::from_bits(u64_of(&fields[2])),
            bw_avg: f64::from_bits(u64_of(&fields[3])),
            msg_rate: f64::from_bits(u64_of(&fields[4])),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn gid_v4(a: u8, b: u8, c: u8, d: u8) -> Gid {
        Gid::from_ipv4(Ipv4Addr::new(a, b, c, d))
    }

    #[test]
    fn pingpong_record_bytes() {
        let d = PingpongDest {
            lid: 0,
            qpn: 0x11,
            psn: 0x00abcd,
            gid: gid_v4(10, 0, 0, 2),
        };
        let b = d.emit();
        assert_eq!(b.len(), PINGPONG_MSG_LEN);
        let text = b"0000:000011:00abcd:00000000000000000000ffff0a000002\0";
        assert_eq!(&b[..], &text[..]);
        assert_eq!(PingpongDest::parse(&b).unwrap(), d);
    }

    #[test]
    fn pingpong_record_from_the_tool() {
        // what the tool writes for LID 0, QPN 0x000123, PSN 0x5a5a5a, GID ::ffff:192.168.7.3
        let msg = b"0000:000123:5a5a5a:00000000000000000000ffffc0a80703\0";
        let d = PingpongDest::parse(msg).unwrap();
        assert_eq!((d.lid, d.qpn, d.psn), (0, 0x123, 0x5a5a5a));
        assert_eq!(d.gid.to_ipv4(), Some(Ipv4Addr::new(192, 168, 7, 3)));
        assert_eq!(d.emit(), msg.to_vec());
    }

    #[test]
    fn pingpong_record_errors() {
        assert_eq!(
            PingpongDest::parse(&[0u8; 51]),
            Err(ExchangeError::Length {
                what: "rc_pingpong address",
                len: 51,
                expected: 52
            })
        );
        let mut m = *b"0000:000123:5a5a5a:00000000000000000000ffffc0a80703\0";
        m[6] = b'x';
        assert!(matches!(
            PingpongDest::parse(&m),
            Err(ExchangeError::NotHex { field: "QPN", .. })
        ));
        let mut m = *b"0000:000123:5a5a5a:00000000000000000000ffffc0a80703\0";
        m[4] = b'-';
        assert!(matches!(
            PingpongDest::parse(&m),
            Err(ExchangeError::FieldCount { found: 3, .. })
        ));
        // a short GID (the tool would read garbage past it)
        let mut m = [0u8; 52];
        m[..23].copy_from_slice(b"0000:000123:5a5a5a:0000");
        assert!(matches!(
            PingpongDest::parse(&m),
            Err(ExchangeError::NotHex { field: "GID", .. })
        ));
        let mut m = *b"0000:000123:5a5a5a:00000000000000000000ffffc0a80703\0";
        m[0] = 0xc3;
        assert!(matches!(
            PingpongDest::parse(&m),
            Err(ExchangeError::NotText { .. })
        ));
    }

    #[test]
    fn done_marker() {
        assert_eq!(&DONE, b"done\0");
        assert_eq!(DONE.len(), 5);
    }

    #[test]
    fn perftest_record_with_gid_bytes() {
        let d = PerftestDest {
            lid: 0,
            out_reads: 0x10,
            qpn: 0x000011,
            psn: 0x123456,
            rkey: 0x0000_1234,
            vaddr: 0x5555_5555_8000,
            gid: Some(gid_v4(10, 0, 0, 1)),
            srqn: 0,
        };
        let b = d.emit();
        assert_eq!(b.len(), KEY_MSG_LEN_GID);
        let text = concat!(
            "0000:0010:000011:123456:00001234:0000555555558000:",
            "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:01:",
            "00000000:"
        );
        assert_eq!(text.len(), KEY_MSG_LEN_GID - 1);
        assert_eq!(&b[..text.len()], text.as_bytes());
        assert_eq!(b[KEY_MSG_LEN_GID - 1], 0);
        assert_eq!(PerftestDest::parse(&b).unwrap(), d);
    }

    #[test]
    fn perftest_record_without_gid_bytes() {
        let d = PerftestDest {
            lid: 0x1f,
            out_reads: 1,
            qpn: 0xabcdef,
            psn: 1,
            rkey: 0xdeadbeef,
            vaddr: 0x7f00_0000_1000,
            gid: None,
            srqn: 7,
        };
        let b = d.emit();
        assert_eq!(b.len(), KEY_MSG_LEN);
        assert_eq!(
            &b[..KEY_MSG_LEN - 1],
            b"001f:0001:abcdef:000001:deadbeef:00007f0000001000:00000007"
        );
        assert_eq!(PerftestDest::parse(&b).unwrap(), d);
    }

    #[test]
    fn perftest_record_errors() {
        assert!(matches!(
            PerftestDest::parse(&[0u8; 100]),
            Err(ExchangeError::Length {
                len: 100,
                expected: KEY_MSG_LEN_GID,
                ..
            })
        ));
        let good = PerftestDest {
            lid: 0,
            out_reads: 1,
            qpn: 1,
            psn: 1,
            rkey: 1,
            vaddr: 1,
            gid: Some(Gid::default()),
            srqn: 0,
        }
        .emit();
        let mut bad = good.clone();
        // a GID byte of three digits: does not fit 8 bits
        bad[50..53].copy_from_slice(b"1ff");
        assert!(PerftestDest::parse(&bad).is_err());
        let mut bad = good.clone();
        bad[106] = b'x'; // the trailing ':' replaced
        assert!(matches!(
            PerftestDest::parse(&bad),
            Err(ExchangeError::FieldCount { .. })
        ));
        let mut bad = good;
        bad[10] = b'g';
        assert!(matches!(
            PerftestDest::parse(&bad),
            Err(ExchangeError::NotHex { field: "QPN", .. })
        ));
    }

    #[test]
    fn version_message() {
        let v = PerftestVersion::ours();
        let b = v.emit().unwrap();
        assert_eq!(b.len(), 16);
        assert_eq!(&b[..5], b"6.06\0");
        assert!(b[4..].iter().all(|&x| x == 0));
        let p = PerftestVersion::parse(&b).unwrap();
        assert_eq!(p, v);
        assert!((p.number() - 6.06).abs() < 1e-9);
        assert!(p.number() >= PERFTEST_MIN_VERSION);
        assert_eq!(p.mtu_msg_len(), 2);
        assert_eq!(p.report_iters_len(), 8);
        assert!(p.exchanges_sys_data());
        let old = PerftestVersion("5.30".into());
        assert_eq!(old.mtu_msg_len(), 4);
        assert_eq!(old.report_iters_len(), 4);
        assert!(!old.exchanges_sys_data());
        assert_eq!(PerftestVersion("5.70-rc1".into()).number(), 5.70);
        assert_eq!(PerftestVersion("x".into()).number(), 0.0);
        assert!(PerftestVersion("0123456789abcdef".into()).emit().is_err());
        assert!(PerftestVersion::parse(&[0u8; 15]).is_err());
    }

    #[test]
    fn sys_data_and_mtu_messages() {
        assert_eq!(emit_be32(4096), [0, 0, 0x10, 0]);
        assert_eq!(parse_be32("cycle buffer", &[0, 0, 0, 64]).unwrap(), 64);
        assert!(parse_be32("cycle buffer", &[0, 0, 64]).is_err());
        assert_eq!(MtuMessage(3).emit(2), b"3\0".to_vec());
        assert_eq!(MtuMessage::parse(b"5\0", 2).unwrap(), MtuMessage(5));
        assert_eq!(MtuMessage::parse(b"3\0\0\0", 4).unwrap(), MtuMessage(3));
        assert!(MtuMessage(5).is_valid() && !MtuMessage(0).is_valid());
        assert!(matches!(
            MtuMessage::parse(b"x\0", 2),
            Err(ExchangeError::NotDecimal { .. })
        ));
        assert!(MtuMessage::parse(b"3", 2).is_err());
    }

    #[test]
    fn report_fields() {
        let r = BwReport {
            size: 65536,
            iters: 1000,
            bw_peak: 1.5,
            bw_avg: 1.25,
            msg_rate: 0.000_02,
        };
        let f = r.emit_fields(8);
        assert_eq!(f[0], vec![0, 0, 0, 0, 0, 1, 0, 0]);
        assert_eq!(f[1], vec![0, 0, 0, 0, 0, 0, 0x03, 0xe8]);
        // 1.5 = 0x3FF8000000000000, big-endian
        assert_eq!(f[2], vec![0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
        assert_eq!(BwReport::parse_fields(&f, 8).unwrap(), r);
        let old = r.emit_fields(4);
        assert_eq!(old[1], vec![0, 0, 0x03, 0xe8]);
        assert_eq!(BwReport::parse_fields(&old, 4).unwrap(), r);
        assert!(BwReport::parse_fields(&f, 4).is_err());
        assert!(BwReport::parse_fields(&f[..4], 8).is_err());
    }

    #[test]
    fn gid_types() {
        let v4 = gid_v4(10, 0, 0, 1);
        let v6 = Gid::link_local([2, 0, 0, 0, 0, 1]);
        assert!(gids_compatible(&v4, &gid_v4(1, 2, 3, 4)));
        assert!(!gids_compatible(&v4, &v6));
        assert!(gids_compatible(&v6, &v6));
    }

    #[test]
    fn sides() {
        assert!(Side::Client.writes_first());
        assert!(!Side::Server.writes_first());
    }
}
