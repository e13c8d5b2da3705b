//! Capture files: a reader for classic pcap and pcapng, and a writer for classic pcap.
//!
//! Reading:
//! * classic pcap in both byte orders, with microsecond (`A1B2C3D4`) or nanosecond (`A1B23C4D`)
//!   timestamps;
//! * pcapng in both byte orders, with any number of sections and interfaces: Section Header,
//!   Interface Description (honouring `if_tsresol` and `if_tsoffset`), Enhanced Packet, Simple
//!   Packet and the obsolete Packet Block. Other blocks are skipped.
//!
//! The whole file is read into memory (captures used here are small) and every record is
//! validated; any damage is reported as a [`PcapError`] naming the file and the byte offset at
//! which the damaged structure starts. No input makes the reader panic.
//!
//! The reader accepts any link type and reports it ([`Capture::interfaces`],
//! [`Capture::link_type`]); callers that need Ethernet frames use [`Capture::ensure_ethernet`].
//!
//! Writing: [`PcapWriter`] produces little-endian, nanosecond-resolution classic pcap with link
//! type Ethernet, which tcpdump, Wireshark and tshark read.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Link type (`LINKTYPE_ETHERNET`) of Ethernet II / 802.3 frames.
pub const LINKTYPE_ETHERNET: u16 = 1;

/// Largest captured record length accepted (256 KiB, the usual maximum snaplen). Longer lengths
/// in a file mean corruption, and refusing them bounds memory use.
pub const MAX_RECORD_LEN: u32 = 256 * 1024;

/// Classic pcap magic, microsecond timestamps.
const PCAP_MAGIC_US: u32 = 0xA1B2_C3D4;
/// Classic pcap magic, nanosecond timestamps.
const PCAP_MAGIC_NS: u32 = 0xA1B2_3C4D;
/// Classic pcap: file header and record header lengths.
const PCAP_FILE_HEADER_LEN: usize = 24;
const PCAP_RECORD_HEADER_LEN: usize = 16;
/// Offset of the link type in the classic pcap file header.
const PCAP_LINKTYPE_OFFSET: u64 = 20;

/// pcapng block types.
const NG_SHB: u32 = 0x0A0D_0D0A;
const NG_IDB: u32 = 0x0000_0001;
const NG_OPB: u32 = 0x0000_0002;
const NG_SPB: u32 = 0x0000_0003;
const NG_EPB: u32 = 0x0000_0006;
/// pcapng byte-order magic, as written by the capturing host.
const NG_BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
/// pcapng interface options.
const NG_OPT_END: u16 = 0;
const NG_OPT_IF_TSRESOL: u16 = 9;
const NG_OPT_IF_TSOFFSET: u16 = 14;
/// Default pcapng timestamp resolution: 10^-6 s.
const NG_DEFAULT_TSRESOL: u8 = 6;

/// Name used in errors for captures read from memory.
const MEMORY_NAME: &str = "<memory>";

/// One captured packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcapRecord {
    /// Capture time in nanoseconds since the Unix epoch (0 for pcapng Simple Packet Blocks,
    /// which carry no timestamp).
    pub ts_ns: u64,
    /// Length of the packet on the wire; larger than `data.len()` if the capture truncated it.
    pub orig_len: u32,
    /// Index into [`Capture::interfaces`] (always 0 for classic pcap).
    pub interface: u32,
    /// The captured bytes (for Ethernet: from the destination MAC, normally without FCS).
    pub data: Vec<u8>,
}

impl PcapRecord {
    /// A complete (untruncated) packet on interface 0.
    pub fn new(ts_ns: u64, data: Vec<u8>) -> PcapRecord {
        PcapRecord {
            ts_ns,
            orig_len: u32::try_from(data.len()).unwrap_or(u32::MAX),
            interface: 0,
            data,
        }
    }

    /// True if the capture kept fewer bytes than were on the wire.
    pub fn is_truncated(&self) -> bool {
        (self.orig_len as usize) > self.data.len()
    }
}

/// The container format a capture was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureFormat {
    /// Classic libpcap format.
    Pcap {
        /// File written big-endian.
        big_endian: bool,
        /// Nanosecond (rather than microsecond) timestamps.
        nanosecond: bool,
    },
    /// pcapng (each section may have its own byte order).
    PcapNg,
}

/// A capture interface: one for classic pcap, one per Interface Description Block for pcapng.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Link type (`LINKTYPE_*`); [`LINKTYPE_ETHERNET`] for Ethernet. For classic pcap, the low
    /// 16 bits of the header's link-type word (the upper bits carry FCS flags).
    pub link_type: u16,
    /// Snapshot length the capture used (0 = unlimited in pcapng).
    pub snaplen: u32,
    /// Byte offset of the link-type field in the file, for error reports.
    pub offset: u64,
}

/// The contents of a capture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The file name (as given to [`read_file`]) or `<memory>`; used in error messages.
    pub name: String,
    /// Container format.
    pub format: CaptureFormat,
    /// Capture interfaces, in file order.
    pub interfaces: Vec<Interface>,
    /// The packets, in file order.
    pub records: Vec<PcapRecord>,
}

impl Capture {
    /// The link type of the first interface, or `None` for a pcapng file without interfaces.
    pub fn link_type(&self) -> Option<u16> {
        self.interfaces.first().map(|i| i.link_type)
    }

    /// Returns the capture unchanged if every interface is Ethernet, else a
    /// [`PcapErrorKind::NonEthernetLinkType`] error pointing at the first offending interface.
    pub fn ensure_ethernet(self) -> Result<Capture, PcapError> {
        match self
            .interfaces
            .iter()
            .find(|i| i.link_type != LINKTYPE_ETHERNET)
        {
            Some(i) => Err(PcapError::new(
                &self.name,
                i.offset,
                PcapErrorKind::NonEthernetLinkType {
                    link_type: i.link_type,
                },
            )),
            None => Ok(self),
        }
    }

    /// The captured bytes of each record.
    pub fn frames(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.records.iter().map(|r| r.data.as_slice())
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True if the capture holds no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// What went wrong while reading a capture.
#[derive(Debug)]
#[non_exhaustive]
pub enum PcapErrorKind {
    /// The file could not be read.
    Io(io::Error),
    /// The file starts with neither a pcap nor a pcapng magic number: a foreign file.
    BadMagic {
        /// The first 4 bytes, big-endian.
        magic: u32,
    },
    /// The file ends inside the pcap file header or the first pcapng section header.
    TruncatedFileHeader,
    /// The file ends inside a record (pcapng: block) header.
    TruncatedRecordHeader,
    /// The file ends before the end of a record or block.
    TruncatedRecord {
        /// Bytes the header says follow.
        declared: u64,
        /// Bytes actually left in the file.
        available: u64,
    },
    /// A record claims more than [`MAX_RECORD_LEN`] captured bytes.
    RecordTooLong {
        /// The claimed captured length.
        len: u32,
    },
    /// Link type other than Ethernet (reported by [`Capture::ensure_ethernet`]).
    NonEthernetLinkType {
        /// The link type found.
        link_type: u16,
    },
    /// A pcapng block is internally inconsistent.
    MalformedBlock {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A pcapng packet refers to an interface no Interface Description Block defined.
    UnknownInterface {
        /// The interface id in the packet (relative to its section).
        interface: u32,
    },
}

/// A capture reading error: the file, the byte offset where the damaged structure starts, and
/// what is wrong. Displays as e.g. `capture.pcap: truncated record header at byte 1234`.
#[derive(Debug)]
pub struct PcapError {
    /// File name as given, or `<memory>`.
    pub file: String,
    /// Byte offset of the problem (0 for I/O errors).
    pub offset: u64,
    /// The problem.
    pub kind: PcapErrorKind,
}

impl PcapError {
    fn new(file: &str, offset: u64, kind: PcapErrorKind) -> PcapError {
        PcapError {
            file: file.to_owned(),
            offset,
            kind,
        }
    }
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (file, at) = (&self.file, self.offset);
        match &self.kind {
            PcapErrorKind::Io(e) => write!(f, "{file}: cannot read: {e}"),
            PcapErrorKind::BadMagic { magic } => {
                write!(f, "{file}: not a pcap or pcapng file (magic {magic:#010x}) at byte {at}")
            }
            PcapErrorKind::TruncatedFileHeader => write!(f, "{file}: truncated file header at byte {at}"),
            PcapErrorKind::TruncatedRecordHeader => write!(f, "{file}: truncated record header at byte {at}"),
            PcapErrorKind::TruncatedRecord { declared, available } => write!(
                f,
                "{file}: truncated record at byte {at} ({declared} bytes declared, {available} present)"
            ),
            PcapErrorKind::RecordTooLong { len } => write!(
                f,
                "{file}: record length {len} exceeds the {MAX_RECORD_LEN}-byte limit at byte {at}"
            ),
            PcapErrorKind::NonEthernetLinkType { link_type } => write!(
                f,
                "{file}: link type {link_type} is not Ethernet ({LINKTYPE_ETHERNET}) at byte {at}"
            ),
            PcapErrorKind::MalformedBlock { reason } => {
                write!(f, "{file}: malformed pcapng block at byte {at}: {reason}")
            }
            PcapErrorKind::UnknownInterface { interface } => {
                write!(f, "{file}: packet for undefined interface {interface} at byte {at}")
            }
        }
    }
}

impl std::error::Error for PcapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PcapErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Reads a pcap or pcapng file. Errors name the file as `path` is displayed.
pub fn read_file(path: impl AsRef<Path>) -> Result<Capture, PcapError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| PcapError::new(&name, 0, PcapErrorKind::Io(e)))?;
    read_named_bytes(&name, &bytes)
}

/// Parses a pcap or pcapng capture held in memory (errors name it `<memory>`).
pub fn read_bytes(bytes: &[u8]) -> Result<Capture, PcapError> {
    read_named_bytes(MEMORY_NAME, bytes)
}

/// Parses a capture held in memory, naming it `name` in errors.
pub fn read_named_bytes(name: &str, bytes: &[u8]) -> Result<Capture, PcapError> {
    let err = |offset: u64, kind| PcapError::new(name, offset, kind);
    let Some(magic) = bytes.get(..4) else {
        return Err(err(0, PcapErrorKind::TruncatedFileHeader));
    };
    let magic = [magic[0], magic[1], magic[2], magic[3]];
    let (le, be) = (u32::from_le_bytes(magic), u32::from_be_bytes(magic));
    match (le, be) {
        (PCAP_MAGIC_US, _) => parse_pcap(name, bytes, Endian::Little, false),
        (PCAP_MAGIC_NS, _) => parse_pcap(name, bytes, Endian::Little, true),
        (_, PCAP_MAGIC_US) => parse_pcap(name, bytes, Endian::Big, false),
        (_, PCAP_MAGIC_NS) => parse_pcap(name, bytes, Endian::Big, true),
        (NG_SHB, _) => parse_pcapng(name, bytes),
        _ => Err(err(0, PcapErrorKind::BadMagic { magic: be })),
    }
}

/// Byte order of the file (classic pcap) or of the current section (pcapng).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endian {
    Little,
    Big,
}

impl Endian {
    /// Reads a u16 at `at`; `None` if out of bounds.
    fn u16(self, b: &[u8], at: usize) -> Option<u16> {
        let s = b.get(at..at.checked_add(2)?)?;
        let a = [s[0], s[1]];
        Some(match self {
            Endian::Little => u16::from_le_bytes(a),
            Endian::Big => u16::from_be_bytes(a),
        })
    }

    /// Reads a u32 at `at`; `None` if out of bounds.
    fn u32(self, b: &[u8], at: usize) -> Option<u32> {
        let s = b.get(at..at.checked_add(4)?)?;
        let a = [s[0], s[1], s[2], s[3]];
        Some(match self {
            Endian::Little => u32::from_le_bytes(a),
            Endian::Big => u32::from_be_bytes(a),
        })
    }

    /// Reads a u64 at `at`; `None` if out of bounds.
    fn u64(self, b: &[u8], at: usize) -> Option<u64> {
        let hi_first = matches!(self, Endian::Big);
        let (a, b2) = (
            self.u32(b, at)? as u64,
            self.u32(b, at.checked_add(4)?)? as u64,
        );
        Some(if hi_first { a << 32 | b2 } else { b2 << 32 | a })
    }
}

/// Parses classic pcap once the magic has been recognised.
fn parse_pcap(name: &str, bytes: &[u8], e: Endian, nanosecond: bool) -> Result<Capture, PcapError> {
    let err = |offset: usize, kind| PcapError::new(name, offset as u64, kind);
    if bytes.len() < PCAP_FILE_HEADER_LEN {
        return Err(err(0, PcapErrorKind::TruncatedFileHeader));
    }
    // Length checked above, so these reads succeed.
    let snaplen = e.u32(bytes, 16).unwrap_or(0);
    let link_word = e.u32(bytes, 20).unwrap_or(0);
    let interface = Interface {
        link_type: link_word as u16,
        snaplen,
        offset: PCAP_LINKTYPE_OFFSET,
    };

    let mut records = Vec::new();
    let mut pos = PCAP_FILE_HEADER_LEN;
    while pos < bytes.len() {
        let hdr = &bytes[pos..];
        let (Some(ts_sec), Some(ts_frac), Some(incl_len), Some(orig_len)) =
            (e.u32(hdr, 0), e.u32(hdr, 4), e.u32(hdr, 8), e.u32(hdr, 12))
        else {
            return Err(err(pos, PcapErrorKind::TruncatedRecordHeader));
        };
        if incl_len > MAX_RECORD_LEN {
            return Err(err(pos, PcapErrorKind::RecordTooLong { len: incl_len }));
        }
        let available = hdr.len() - PCAP_RECORD_HEADER_LEN;
        let Some(data) =
            hdr.get(PCAP_RECORD_HEADER_LEN..PCAP_RECORD_HEADER_LEN + incl_len as usize)
        else {
            return Err(err(
                pos,
                PcapErrorKind::TruncatedRecord {
                    declared: incl_len as u64,
                    available: available as u64,
                },
            ));
        };
        // Cannot overflow: u32 seconds x 1e9 plus < 2^32 x 1000 stays below 2^63.
        let frac_ns = if nanosecond {
            ts_frac as u64
        } else {
            ts_frac as u64 * 1_000
        };
        records.push(PcapRecord {
            ts_ns: ts_sec as u64 * 1_000_000_000 + frac_ns,
            orig_len,
            interface: 0,
            data: data.to_vec(),
        });
        pos += PCAP_RECORD_HEADER_LEN + incl_len as usize;
    }
    Ok(Capture {
        name: name.to_owned(),
        format: CaptureFormat::Pcap {
            big_endian: e == Endian::Big,
            nanosecond,
        },
        interfaces: vec![interface],
        records,
    })
}

/// Timestamp parameters of a pcapng interface.
#[derive(Debug, Clone, Copy)]
struct TsParams {
    /// Raw `if_tsresol`: bit 7 clear = 10^-n s per tick, set = 2^-n s.
    resol: u8,
    /// `if_tsoffset`: seconds added to every timestamp.
    offset_s: i64,
}

impl TsParams {
    /// Converts a 64-bit tick count to nanoseconds since the epoch, saturating to `0..=u64::MAX`.
    fn to_ns(self, ticks: u64) -> u64 {
        let n = u32::from(self.resol & 0x7F);
        let ticks = u128::from(ticks);
        let ns: u128 = if self.resol & 0x80 == 0 {
            if n <= 9 {
                ticks * 10u128.pow(9 - n)
            } else {
                // 10^39 exceeds u128; any tick count is then below one nanosecond.
                10u128.checked_pow(n - 9).map_or(0, |d| ticks / d)
            }
        } else {
            // ticks < 2^64, so ticks x 1e9 < 2^94: no overflow; n <= 127 keeps the shift valid.
            (ticks * 1_000_000_000) >> n
        };
        let total = ns as i128 + i128::from(self.offset_s) * 1_000_000_000;
        total.clamp(0, i128::from(u64::MAX)) as u64
    }
}

/// Reads the options of an Interface Description Block. Malformed options end the scan quietly:
/// they only refine timestamps, which is not worth rejecting an otherwise readable file for.
fn parse_if_options(e: Endian, opts: &[u8]) -> TsParams {
    let mut ts = TsParams {
        resol: NG_DEFAULT_TSRESOL,
        offset_s: 0,
    };
    let mut i = 0usize;
    while let (Some(code), Some(len)) = (e.u16(opts, i), e.u16(opts, i + 2)) {
        let start = i + 4;
        let len = len as usize;
        let Some(value) = opts.get(start..start + len) else {
            break;
        };
        match code {
            NG_OPT_END => break,
            NG_OPT_IF_TSRESOL if len >= 1 => ts.resol = value[0],
            NG_OPT_IF_TSOFFSET if len == 8 => ts.offset_s = e.u64(value, 0).unwrap_or(0) as i64,
            _ => {}
        }
        // Option values are padded to 32 bits.
        i = start + len.next_multiple_of(4);
    }
    ts
}

/// Parses a pcapng file (the first 4 bytes are the Section Header Block type).
fn parse_pcapng(name: &str, bytes: &[u8]) -> Result<Capture, PcapError> {
    let err = |offset: usize, kind| PcapError::new(name, offset as u64, kind);
    let malformed = |offset: usize, reason| err(offset, PcapErrorKind::MalformedBlock { reason });

    let mut interfaces: Vec<Interface> = Vec::new();
    let mut ts_params: Vec<TsParams> = Vec::new();
    let mut records = Vec::new();
    // Byte order and first global interface index of the current section. The file starts
    // with a Section Header Block, so this is set before any other block is looked at.
    let mut endian = Endian::Little;
    let mut iface_base = 0usize;

    let mut pos = 0usize;
    while pos < bytes.len() {
        let blk = &bytes[pos..];
        // A truncated first section header is a truncated file header.
        let truncated_header = if pos == 0 {
            PcapErrorKind::TruncatedFileHeader
        } else {
            PcapErrorKind::TruncatedRecordHeader
        };
        let Some(raw_type) = Endian::Little.u32(blk, 0) else {
            return Err(err(pos, truncated_header));
        };

        // The SHB type is a palindrome; its byte-order magic tells how to read the section.
        if raw_type == NG_SHB {
            endian = match Endian::Little.u32(blk, 8) {
                Some(NG_BYTE_ORDER_MAGIC) => Endian::Little,
                Some(m) if m.swap_bytes() == NG_BYTE_ORDER_MAGIC => Endian::Big,
                Some(_) => return Err(malformed(pos, "bad byte-order magic in section header")),
                None => return Err(err(pos, truncated_header)),
            };
            iface_base = interfaces.len();
        }
        let e = endian;
        let block_type = e.u32(blk, 0).unwrap_or(0);
        let Some(total) = e.u32(blk, 4) else {
            return Err(err(pos, truncated_header));
        };
        if total < 12 || !total.is_multiple_of(4) {
            return Err(malformed(
                pos,
                "block length below 12 or not a multiple of 4",
            ));
        }
        let total = total as usize;
        if total > blk.len() {
            let kind = if pos == 0 {
                PcapErrorKind::TruncatedFileHeader
            } else {
                PcapErrorKind::TruncatedRecord {
                    declared: total as u64,
                    available: blk.len() as u64,
                }
            };
            return Err(err(pos, kind));
        }
        if e.u32(blk, total - 4) != Some(total as u32) {
            return Err(malformed(
                pos,
                "trailing block length differs from the leading one",
            ));
        }
        let body = &blk[8..total - 4];

        match block_type {
            NG_SHB => {
                // Byte-order magic (4), major (2), minor (2), section length (8), options.
                let Some(major) = e.u16(body, 4).filter(|_| body.len() >= 16) else {
                    return Err(malformed(pos, "section header block too short"));
                };
                if major != 1 {
                    return Err(malformed(pos, "unsupported pcapng major version"));
                }
            }
            NG_IDB => {
                let (Some(link_type), Some(snaplen)) = (e.u16(body, 0), e.u32(body, 4)) else {
                    return Err(malformed(pos, "interface description block too short"));
                };
                interfaces.push(Interface {
                    link_type,
                    snaplen,
                    offset: (pos + 8) as u64,
                });
                ts_params.push(parse_if_options(e, &body[8..]));
            }
            NG_EPB | NG_OPB => {
                // EPB: interface (4), ts high (4), ts low (4), captured len (4), orig len (4).
                // Obsolete PB: interface (2), drops (2), then the same.
                let iface = if block_type == NG_EPB {
                    e.u32(body, 0)
                } else {
                    e.u16(body, 0).map(u32::from)
                };
                let (Some(iface), Some(ts_hi), Some(ts_lo), Some(cap_len), Some(orig_len)) = (
                    iface,
                    e.u32(body, 4),
                    e.u32(body, 8),
                    e.u32(body, 12),
                    e.u32(body, 16),
                ) else {
                    return Err(malformed(pos, "packet block too short"));
                };
                let Some(index) = iface_base
                    .checked_add(iface as usize)
                    .filter(|&i| i < interfaces.len())
                else {
                    return Err(err(
                        pos + 8,
                        PcapErrorKind::UnknownInterface { interface: iface },
                    ));
                };
                if cap_len > MAX_RECORD_LEN {
                    return Err(err(pos, PcapErrorKind::RecordTooLong { len: cap_len }));
                }
                let Some(data) = body.get(20..20 + cap_len as usize) else {
                    return Err(malformed(pos, "captured length exceeds the block"));
                };
                let ticks = u64::from(ts_hi) << 32 | u64::from(ts_lo);
                records.push(PcapRecord {
                    ts_ns: ts_params[index].to_ns(ticks),
                    orig_len,
                    interface: index as u32,
                    data: data.to_vec(),
                });
            }
            NG_SPB => {
                // Original length (4), then data; the captured length is implied by the block
                // length and the snaplen of the section's first interface.
                let Some(orig_len) = e.u32(body, 0) else {
                    return Err(malformed(pos, "simple packet block too short"));
                };
                let Some(iface) = interfaces.get(iface_base) else {
                    return Err(err(pos, PcapErrorKind::UnknownInterface { interface: 0 }));
                };
                let mut cap_len = orig_len.min((body.len() - 4) as u32);
                if iface.snaplen != 0 {
                    cap_len = cap_len.min(iface.snaplen);
                }
                if cap_len > MAX_RECORD_LEN {
                    return Err(err(pos, PcapErrorKind::RecordTooLong { len: cap_len }));
                }
                records.push(PcapRecord {
                    ts_ns: 0,
                    orig_len,
                    interface: iface_base as u32,
                    data: body[4..4 + cap_len as usize].to_vec(),
                });
            }
            _ => {} // Name resolution, statistics, custom blocks...: not needed.
        }
        pos += total;
    }
    Ok(Capture {
        name: name.to_owned(),
        format: CaptureFormat::PcapNg,
        interfaces,
        records,
    })
}

/// Writes Ethernet captures in classic pcap format: little-endian, nanosecond timestamps,
/// snaplen [`MAX_RECORD_LEN`].
///
/// Buffered writers only reach the file on [`PcapWriter::flush`] (or when dropped, which
/// ignores errors), so call `flush` before reading the file back.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
}

impl PcapWriter<BufWriter<File>> {
    /// Creates (or truncates) the file at `path` and writes the pcap file header.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        PcapWriter::new(BufWriter::new(File::create(path)?))
    }
}

impl<W: Write> PcapWriter<W> {
    /// Writes the pcap file header to `out`.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut hdr = [0u8; PCAP_FILE_HEADER_LEN];
        hdr[0..4].copy_from_slice(&PCAP_MAGIC_NS.to_le_bytes());
        hdr[4..6].copy_from_slice(&2u16.to_le_bytes()); // version 2.4
        hdr[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs (8..16) stay 0.
        hdr[16..20].copy_from_slice(&MAX_RECORD_LEN.to_le_bytes());
        hdr[20..24].copy_from_slice(&u32::from(LINKTYPE_ETHERNET).to_le_bytes());
        out.write_all(&hdr)?;
        Ok(PcapWriter { out })
    }

    /// Appends a complete frame captured at `ts_ns` nanoseconds since the epoch.
    ///
    /// Fails with `InvalidInput` if the frame is longer than [`MAX_RECORD_LEN`] (the reader would
    /// refuse it) or the time is past the pcap epoch range (year 2106).
    pub fn write_packet(&mut self, ts_ns: u64, data: &[u8]) -> io::Result<()> {
        let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
        self.write_parts(ts_ns, len, data)
    }

    /// Appends a record, keeping its `orig_len` (raised to `data.len()` if smaller).
    /// Its interface is ignored: the file has a single Ethernet interface.
    pub fn write_record(&mut self, record: &PcapRecord) -> io::Result<()> {
        let data_len = u32::try_from(record.data.len()).unwrap_or(u32::MAX);
        self.write_parts(record.ts_ns, record.orig_len.max(data_len), &record.data)
    }

    fn write_parts(&mut self, ts_ns: u64, orig_len: u32, data: &[u8]) -> io::Result<()> {
        if data.len() > MAX_RECORD_LEN as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "pcap record of {} bytes exceeds the {MAX_RECORD_LEN}-byte snaplen",
                    data.len()
                ),
            ));
        }
        let secs = u32::try_from(ts_ns / 1_000_000_000).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "timestamp beyond the 32-bit pcap seconds range",
            )
        })?;
        let nanos = (ts_ns % 1_000_000_000) as u32;
        let mut hdr = [0u8; PCAP_RECORD_HEADER_LEN];
        hdr[0..4].copy_from_slice(&secs.to_le_bytes());
        hdr[4..8].copy_from_slice(&nanos.to_le_bytes());
        hdr[8..12].copy_from_slice(&(data.len() as u32).to_le_bytes());
        hdr[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&hdr)?;
        self.out.write_all(data)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Returns the underlying writer (not flushed; a `BufWriter` flushes when dropped).
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ts_resolution_conversion() {
        let us = TsParams {
            resol: 6,
            offset_s: 0,
        };
        assert_eq!(us.to_ns(1_500_000), 1_500_000_000);
        let ns = TsParams {
            resol: 9,
            offset_s: 0,
        };
        assert_eq!(ns.to_ns(42), 42);
        let ps = TsParams {
            resol: 12,
            offset_s: 0,
        };
        assert_eq!(ps.to_ns(5_000), 5);
        let bin = TsParams {
            resol: 0x80 | 10,
            offset_s: 0,
        }; // 1/1024 s
        assert_eq!(bin.to_ns(1024), 1_000_000_000);
        let off = TsParams {
            resol: 9,
            offset_s: 2,
        };
        assert_eq!(off.to_ns(1), 2_000_000_001);
        // Extremes saturate instead of overflowing.
        assert_eq!(
            TsParams {
                resol: 0,
                offset_s: 0
            }
            .to_ns(u64::MAX),
            u64::MAX
        );
        assert_eq!(
            TsParams {
                resol: 0x7F,
                offset_s: 0
            }
            .to_ns(u64::MAX),
            0
        );
        assert_eq!(
            TsParams {
                resol: 0xFF,
                offset_s: 0
            }
            .to_ns(u64::MAX),
            0
        );
        assert_eq!(
            TsParams {
                resol: 9,
                offset_s: -5
            }
            .to_ns(1),
            0
        );
        assert_eq!(
            TsParams {
                resol: 9,
                offset_s: i64::MAX
            }
            .to_ns(1),
            u64::MAX
        );
    }

    #[test]
    fn if_options() {
        // if_tsresol = 9, then an unknown option, then if_tsoffset = 7, then end.
        let mut o = Vec::new();
        o.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0]);
        o.extend_from_slice(&[2, 0, 3, 0, b'e', b't', b'h', 0]);
        o.extend_from_slice(&[14, 0, 8, 0]);
        o.extend_from_slice(&7u64.to_le_bytes());
        o.extend_from_slice(&[0, 0, 0, 0]);
        let ts = parse_if_options(Endian::Little, &o);
        assert_eq!((ts.resol, ts.offset_s), (9, 7));
        // Truncated option lists do not panic.
        for n in 0..o.len() {
            let _ = parse_if_options(Endian::Big, &o[..n]);
        }
    }

    #[test]
    fn endian_reads() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(Endian::Big.u32(&b, 0), Some(0x0102_0304));
        assert_eq!(Endian::Little.u16(&b, 6), Some(0x0807));
        assert_eq!(Endian::Big.u64(&b, 0), Some(0x0102_0304_0506_0708));
        assert_eq!(Endian::Little.u64(&b, 0), Some(0x0807_0605_0403_0201));
        assert_eq!(Endian::Little.u32(&b, 5), None);
        assert_eq!(Endian::Little.u32(&b, usize::MAX), None);
    }
}
