//! The ferroce host interface: everything the driver and the hardware must agree on.
//!
//! This module is the single definition of the host-visible contract; `docs/HOST-INTERFACE.md`
//! is its prose companion and a test (`tests/host_doc.rs`) keeps the register table in that
//! document identical to [`regs::REGISTERS`].
//!
//! * [`regs`]: the BAR0 register map (identity, global configuration, congestion control,
//!   interrupts, GID table, the QP/MR/CQ command windows, counters, doorbell pages), field
//!   helpers and doorbell offset/value encodings.
//! * [`ring`]: ring geometry and the owner/phase-bit protocol shared by SQ, RQ and CQ.
//! * [`wqe`]: send and receive work-queue entries in host memory.
//! * [`cqe`]: completion-queue entries in host memory.
//! * [`qp`]: QP states, legal transitions, access flags, the attribute mask, the attributes each
//!   transition requires, and the encoding of QP attributes into the QP command window.
//! * [`mr`], [`cq`]: MR table entries and CQ contexts, encoded into their command windows.
//! * [`config`]: GIDs, MAC addresses and the global configuration words.
//! * [`event`]: asynchronous events (QP fatal, CQ overflow, ...).
//!
//! Conventions, everywhere below:
//! * Registers are 32 bits wide, little-endian, accessed with aligned 32-bit AXI4-Lite
//!   transactions. 64-bit quantities are LO/HI register pairs (see [`regs`] for the write order).
//! * Structures in host memory (WQEs, CQEs) are little-endian, except the immediate-data field,
//!   which holds the 4 bytes exactly as they travel in the ImmDt header (network order).
//! * Byte strings (MAC addresses, GIDs) are packed into registers with their first byte in bits
//!   7:0 of the lowest register, so a byte-wise dump of the BAR reads them in wire order.
//! * Reserved fields are written as zero and ignored on read.
//!
//! ```
//! use ferroce_proto::host::cqe::{Cqe, CqeOpcode, WcStatus, CQE_LEN};
//! use ferroce_proto::host::regs;
//! use ferroce_proto::host::ring::{Ring, RingKind};
//! use ferroce_proto::host::wqe::{Remote, SendOp, SendWqe, Sge, WqeFlags};
//!
//! // Driver: post an RDMA WRITE on QP 5's send queue (16 entries of 64 bytes) and ring.
//! let sq = Ring::new(RingKind::Send, 4, 6).unwrap();
//! let mut sq_mem = vec![0u8; sq.bytes()];
//! let pi = 0u32;
//! let wqe = SendWqe::new(
//!     sq.owner(pi),
//!     SendOp::Write { remote: Remote { va: 0x7f00_0000_2000, rkey: 0x1234 } },
//!     WqeFlags::SIGNALED,
//!     42,
//!     vec![Sge { addr: 0x7f00_0000_1000, length: 16, lkey: 0x0105 }],
//! );
//! let off = sq.slot_offset(pi);
//! wqe.emit(&mut sq_mem[off..off + sq.stride()]).unwrap();
//! let doorbell = regs::sq_doorbell_write(5, pi + 1); // after a release fence
//! assert_eq!(doorbell.offset, 0x10_0028);
//!
//! // NIC: fetch and check the WQE, then complete it into an 8-entry CQ.
//! let fetched = SendWqe::parse(&sq_mem[off..off + sq.stride()]).unwrap();
//! assert_eq!(fetched.owner, sq.owner(pi));
//! let cq = Ring::completion(3).unwrap();
//! let mut cq_mem = vec![0u8; cq.bytes()];
//! let cqe = Cqe {
//!     owner: cq.owner(0), opcode: CqeOpcode::RdmaWrite, status: WcStatus::Success,
//!     qpn: 5, src_qp: 0x11, wr_id: fetched.wr_id, byte_len: 0, imm: None,
//!     invalidated_rkey: None, solicited: false, wqe_index: pi as u16, vendor_err: 0,
//! };
//! cqe.emit(&mut cq_mem[..CQE_LEN]).unwrap();
//!
//! // Driver: poll slot 0, expecting owner 1 on the first pass.
//! assert!(Cqe::is_new(&cq_mem[..CQE_LEN], cq.owner(0)).unwrap());
//! assert_eq!(Cqe::parse(&cq_mem[..CQE_LEN]).unwrap().wr_id, 42);
//! assert!(!Cqe::is_new(&cq_mem[CQE_LEN..2 * CQE_LEN], cq.owner(1)).unwrap());
//! ```

pub mod config;
pub mod cq;
pub mod cqe;
pub mod event;
pub mod mr;
pub mod qp;
pub mod regs;
pub mod ring;
pub mod wqe;

use core::fmt;

/// Version of the host interface layout (register map, WQE/CQE formats, command semantics).
///
/// Reported by the identity register [`regs::ID_VERSION`] as `major << 16 | minor`.
/// Rules (documented in HOST-INTERFACE.md, "Versioning"):
/// * `major` changes when anything existing moves or changes meaning: a driver refuses a device
///   whose major differs from its own.
/// * `minor` changes when something is only *added* in space that was reserved (a register, a
///   capability bit, an opcode, a field in a reserved byte). A driver built for minor `m` works
///   with any device of the same major and minor `>= m`, and with an older minor as long as it
///   does not use what that minor lacks (capability bits say what is there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u16,
    pub minor: u16,
}

impl Version {
    /// The identity-register encoding: major in bits 31:16, minor in bits 15:0.
    pub const fn to_reg(self) -> u32 {
        ((self.major as u32) << 16) | self.minor as u32
    }

    pub const fn from_reg(reg: u32) -> Version {
        Version {
            major: (reg >> 16) as u16,
            minor: reg as u16,
        }
    }

    /// Whether a driver built against `self` may drive a device reporting `device`.
    /// Same major, and the device is not older than the minor the driver requires.
    pub const fn driver_accepts(self, device: Version) -> bool {
        self.major == device.major && device.minor >= self.minor
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The layout version this crate describes. Bump it together with docs/HOST-INTERFACE.md.
pub const HOST_INTERFACE_VERSION: Version = Version { major: 1, minor: 0 };

/// Errors from parsing or emitting host-interface structures. Every variant says which
/// rule was broken, so the driver can report it and the hardware model can map it to a
/// completion status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The buffer is shorter than the structure needs.
    Truncated { needed: usize, available: usize },
    /// A field holds a value this layout version does not define (unknown opcode, status,
    /// reserved flag bit, out-of-range number).
    InvalidField { field: &'static str, value: u64 },
    /// More scatter/gather entries (or inline bytes) than one WQE slot of this stride holds.
    TooLarge {
        field: &'static str,
        count: usize,
        capacity: usize,
    },
    /// Two fields contradict each other (e.g. `length` differs from the inline data length).
    Inconsistent { what: &'static str },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated { needed, available } => {
                write!(f, "buffer too short: need {needed} bytes, have {available}")
            }
            Error::InvalidField { field, value } => write!(f, "invalid {field}: {value:#x}"),
            Error::TooLarge {
                field,
                count,
                capacity,
            } => {
                write!(f, "too many {field}: {count} > {capacity}")
            }
            Error::Inconsistent { what } => write!(f, "inconsistent fields: {what}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = core::result::Result<T, Error>;

/// A bit field inside a 32-bit register (or any 32-bit word): `width` bits starting at `lsb`.
///
/// Used for every packed register so that the hardware (which needs the bit positions as
/// constants) and the driver (which needs get/set) read the same definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub lsb: u8,
    pub width: u8,
}

impl Field {
    pub const fn new(lsb: u8, width: u8) -> Field {
        assert!(width >= 1 && lsb as u32 + width as u32 <= 32);
        Field { lsb, width }
    }

    /// Mask of the field's value, right-aligned (`(1 << width) - 1`).
    pub const fn max(self) -> u32 {
        if self.width == 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        }
    }

    /// Mask of the field in register position.
    pub const fn mask(self) -> u32 {
        self.max() << self.lsb
    }

    /// Extract the field from a register value.
    pub const fn get(self, reg: u32) -> u32 {
        (reg >> self.lsb) & self.max()
    }

    /// Whether `value` fits in the field without truncation.
    pub const fn fits(self, value: u32) -> bool {
        value <= self.max()
    }

    /// Replace the field in `reg` with `value` (truncated to the field width; check with
    /// [`Field::fits`] first where truncation would be a bug).
    pub const fn set(self, reg: u32, value: u32) -> u32 {
        (reg & !self.mask()) | ((value & self.max()) << self.lsb)
    }

    /// The register value with only this field set.
    pub const fn place(self, value: u32) -> u32 {
        self.set(0, value)
    }

    /// A single-bit field's value as a bool.
    pub const fn bit(self, reg: u32) -> bool {
        self.get(reg) != 0
    }
}

/// One 32-bit register write: absolute BAR0 offset and value. Command sequences are returned as
/// lists of these so the driver and the simulator's host model replay exactly the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegWrite {
    pub offset: u32,
    pub value: u32,
}

impl RegWrite {
    pub const fn new(offset: u32, value: u32) -> RegWrite {
        RegWrite { offset, value }
    }
}

/// Split a 64-bit value into its (LO, HI) register words.
pub const fn split64(value: u64) -> (u32, u32) {
    (value as u32, (value >> 32) as u32)
}

/// Join (LO, HI) register words into a 64-bit value.
pub const fn join64(lo: u32, hi: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

// Small little-endian accessors for the host-memory layouts. Callers check lengths first.
pub(crate) fn get_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([buf[at], buf[at + 1]])
}
pub(crate) fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}
pub(crate) fn get_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}
pub(crate) fn put_u16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
pub(crate) fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
pub(crate) fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub(crate) fn check_len(buf_len: usize, needed: usize) -> Result<()> {
    if buf_len < needed {
        Err(Error::Truncated {
            needed,
            available: buf_len,
        })
    } else {
        Ok(())
    }
}

/// Check that `value` fits `field` before packing it into a register, with a typed error.
pub(crate) fn checked(field: Field, name: &'static str, value: u32) -> Result<u32> {
    if field.fits(value) {
        Ok(value)
    } else {
        Err(Error::InvalidField {
            field: name,
            value: value as u64,
        })
    }
}
