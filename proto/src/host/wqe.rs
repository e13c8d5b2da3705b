//! Work-queue entries in host memory: what the driver writes into the SQ and RQ rings and the
//! NIC fetches by DMA after a doorbell.
//!
//! # Send WQE (slot of 2^log2_sq_stride bytes, 64 ..= 1024)
//! ```text
//! off  size  field
//! 0x00  1    owner      bit 0 = owner/phase bit (ring::owner_for), bits 7:1 reserved
//! 0x01  1    opcode     SendOpcode (ibv_wr_opcode values)
//! 0x02  1    flags      bit 0 SIGNALED, 1 SOLICITED, 2 FENCE, 3 INLINE; others reserved (must be 0)
//! 0x03  1    num_sge    number of 16-byte SGEs following the header (0 when INLINE)
//! 0x04  4    length     total message length in bytes (= sum of SGE lengths, or inline bytes)
//! 0x08  8    wr_id      returned unchanged in the CQE
//! 0x10  4    imm / inv  SEND_IMM, WRITE_IMM: immediate data, 4 bytes in wire order;
//!                       SEND_INV: rkey to invalidate at the responder; LOCAL_INV: key (LE)
//! 0x14  4    rkey       WRITE*, READ, ATOMIC*
//! 0x18  8    remote_va  WRITE*, READ, ATOMIC* (8-byte aligned for atomics)
//! 0x20  8    compare    ATOMIC_CMP_SWAP: compare value; ATOMIC_FETCH_ADD: add value
//! 0x28  8    swap       ATOMIC_CMP_SWAP: swap value
//! 0x30  16*n SGEs       {addr u64, length u32, lkey u32}; or inline data when INLINE
//! ```
//! A slot holds `(stride - 48) / 16` SGEs: 1 at 64 B, 5 at 128 B, 13 at 256 B, 29 at 512 B,
//! 61 at 1024 B (or `stride - 48` inline bytes). The header is 48 bytes rather than a full
//! 64 so that the smallest stride still carries one SGE, the common case.
//!
//! # Receive WQE (slot of 2^log2_rq_stride bytes, 32 ..= 1024)
//! ```text
//! 0x00  1    owner      bit 0 = owner/phase bit
//! 0x01  2    reserved
//! 0x03  1    num_sge
//! 0x04  4    length     sum of SGE lengths (the buffer capacity, so the NIC need not add)
//! 0x08  8    wr_id
//! 0x10  16*n SGEs
//! ```
//! A slot holds `(stride - 16) / 16` SGEs: 1 at 32 B, 3 at 64 B, 7 at 128 B, ...
//!
//! All multi-byte fields are little-endian except the immediate data (wire order). Fields an
//! opcode does not use are written as zero and ignored by the NIC.

use super::{check_len, get_u32, get_u64, put_u32, put_u64, Error, Result};

/// Bytes of the send WQE header before the first SGE.
pub const SEND_HEADER_LEN: usize = 48;
/// Bytes of the receive WQE header before the first SGE.
pub const RECV_HEADER_LEN: usize = 16;
/// Bytes per scatter/gather entry.
pub const SGE_LEN: usize = 16;
/// Largest message a WQE may describe (RETH DMA length limit, docs/PROTOCOL.md §7.1).
pub const MAX_MESSAGE_LEN: u32 = 1 << 31;

/// Byte offsets inside a send WQE (for the hardware's fetch parser).
pub mod send_field {
    pub const OWNER: usize = 0x00;
    pub const OPCODE: usize = 0x01;
    pub const FLAGS: usize = 0x02;
    pub const NUM_SGE: usize = 0x03;
    pub const LENGTH: usize = 0x04;
    pub const WR_ID: usize = 0x08;
    pub const IMM_INV: usize = 0x10;
    pub const RKEY: usize = 0x14;
    pub const REMOTE_VA: usize = 0x18;
    pub const COMPARE_ADD: usize = 0x20;
    pub const SWAP: usize = 0x28;
    pub const SGES: usize = 0x30;
}

/// Byte offsets inside a receive WQE.
pub mod recv_field {
    pub const OWNER: usize = 0x00;
    pub const NUM_SGE: usize = 0x03;
    pub const LENGTH: usize = 0x04;
    pub const WR_ID: usize = 0x08;
    pub const SGES: usize = 0x10;
}

/// Byte offsets inside an SGE.
pub mod sge_field {
    pub const ADDR: usize = 0x00;
    pub const LENGTH: usize = 0x08;
    pub const LKEY: usize = 0x0C;
}

/// SGEs that fit in a send WQE slot of `2^log2_stride` bytes.
pub const fn send_sge_capacity(log2_stride: u8) -> usize {
    ((1usize << log2_stride) - SEND_HEADER_LEN) / SGE_LEN
}

/// Inline bytes that fit in a send WQE slot of `2^log2_stride` bytes.
pub const fn inline_capacity(log2_stride: u8) -> usize {
    (1usize << log2_stride) - SEND_HEADER_LEN
}

/// SGEs that fit in a receive WQE slot of `2^log2_stride` bytes.
pub const fn recv_sge_capacity(log2_stride: u8) -> usize {
    ((1usize << log2_stride) - RECV_HEADER_LEN) / SGE_LEN
}

/// Send opcodes; the numeric values are `enum ibv_wr_opcode` so the driver maps them 1:1.
/// 8 (BIND_MW) and 10.. are reserved for later minor versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SendOpcode {
    RdmaWrite = 0,
    RdmaWriteImm = 1,
    Send = 2,
    SendImm = 3,
    RdmaRead = 4,
    AtomicCmpSwap = 5,
    AtomicFetchAdd = 6,
    LocalInv = 7,
    SendInv = 9,
}

impl SendOpcode {
    pub const fn from_u8(v: u8) -> Option<SendOpcode> {
        Some(match v {
            0 => SendOpcode::RdmaWrite,
            1 => SendOpcode::RdmaWriteImm,
            2 => SendOpcode::Send,
            3 => SendOpcode::SendImm,
            4 => SendOpcode::RdmaRead,
            5 => SendOpcode::AtomicCmpSwap,
            6 => SendOpcode::AtomicFetchAdd,
            7 => SendOpcode::LocalInv,
            9 => SendOpcode::SendInv,
            _ => return None,
        })
    }
}

/// Send WQE flags (the INLINE bit is not here: it follows from [`Payload::Inline`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WqeFlags(pub u8);

impl WqeFlags {
    pub const NONE: WqeFlags = WqeFlags(0);
    /// Write a CQE when the WQE completes successfully (errors always produce one).
    pub const SIGNALED: WqeFlags = WqeFlags(1 << 0);
    /// Set the BTH SE bit on the last packet of SEND / WRITE_IMM.
    pub const SOLICITED: WqeFlags = WqeFlags(1 << 1);
    /// Do not start this WQE until every earlier READ / ATOMIC on the SQ has completed.
    pub const FENCE: WqeFlags = WqeFlags(1 << 2);
    /// Layout bit: the data follows the header instead of SGEs.
    pub const INLINE_BIT: u8 = 1 << 3;
    /// Every bit this version defines in the flags byte (including INLINE).
    pub const DEFINED: u8 = 0x0F;

    pub const fn contains(self, other: WqeFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for WqeFlags {
    type Output = WqeFlags;
    fn bitor(self, rhs: WqeFlags) -> WqeFlags {
        WqeFlags(self.0 | rhs.0)
    }
}

/// One scatter/gather entry: `length` bytes at `addr` inside the MR named by `lkey`.
/// `addr` is in the MR's address space (its VA), translated by the MR table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

impl Sge {
    pub fn parse(buf: &[u8]) -> Result<Sge> {
        check_len(buf.len(), SGE_LEN)?;
        Ok(Sge {
            addr: get_u64(buf, sge_field::ADDR),
            length: get_u32(buf, sge_field::LENGTH),
            lkey: get_u32(buf, sge_field::LKEY),
        })
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        check_len(buf.len(), SGE_LEN)?;
        put_u64(buf, sge_field::ADDR, self.addr);
        put_u32(buf, sge_field::LENGTH, self.length);
        put_u32(buf, sge_field::LKEY, self.lkey);
        Ok(())
    }
}

/// Target of a remote operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Remote {
    pub va: u64,
    pub rkey: u32,
}

/// The operation of a send WQE with its opcode-specific fields.
///
/// `imm` values are the 32-bit number whose big-endian bytes travel in ImmDt (like
/// `__be32 imm_data` read with `u32::from_be`): 0x01020304 goes on the wire as 01 02 03 04.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendOp {
    Send,
    SendImm {
        imm: u32,
    },
    SendInv {
        rkey: u32,
    },
    Write {
        remote: Remote,
    },
    WriteImm {
        remote: Remote,
        imm: u32,
    },
    Read {
        remote: Remote,
    },
    CmpSwap {
        remote: Remote,
        compare: u64,
        swap: u64,
    },
    FetchAdd {
        remote: Remote,
        add: u64,
    },
    LocalInv {
        key: u32,
    },
}

impl SendOp {
    pub const fn opcode(&self) -> SendOpcode {
        match self {
            SendOp::Send => SendOpcode::Send,
            SendOp::SendImm { .. } => SendOpcode::SendImm,
            SendOp::SendInv { .. } => SendOpcode::SendInv,
            SendOp::Write { .. } => SendOpcode::RdmaWrite,
            SendOp::WriteImm { .. } => SendOpcode::RdmaWriteImm,
            SendOp::Read { .. } => SendOpcode::RdmaRead,
            SendOp::CmpSwap { .. } => SendOpcode::AtomicCmpSwap,
            SendOp::FetchAdd { .. } => SendOpcode::AtomicFetchAdd,
            SendOp::LocalInv { .. } => SendOpcode::LocalInv,
        }
    }

    pub const fn remote(&self) -> Option<Remote> {
        match *self {
            SendOp::Write { remote }
            | SendOp::WriteImm { remote, .. }
            | SendOp::Read { remote }
            | SendOp::CmpSwap { remote, .. }
            | SendOp::FetchAdd { remote, .. } => Some(remote),
            _ => None,
        }
    }

    pub const fn is_atomic(&self) -> bool {
        matches!(self, SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. })
    }
}

/// Where a send WQE's data comes from (or, for READ and atomics, where the result goes).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Payload {
    Sges(Vec<Sge>),
    /// Data copied into the WQE itself (capability [`crate::host::regs::caps::INLINE`]).
    Inline(Vec<u8>),
}

/// A send WQE.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SendWqe {
    pub owner: bool,
    pub op: SendOp,
    pub flags: WqeFlags,
    pub wr_id: u64,
    /// Total message length. Kept explicit (not recomputed) so a malformed WQE can be
    /// represented and the NIC's length check tested; [`SendWqe::new`] fills it correctly.
    pub length: u32,
    pub payload: Payload,
}

impl SendWqe {
    /// A WQE gathering from (or, for READ/atomics, scattering into) `sges`; the length is
    /// the sum of the SGE lengths.
    pub fn new(owner: bool, op: SendOp, flags: WqeFlags, wr_id: u64, sges: Vec<Sge>) -> SendWqe {
        let length = sges.iter().fold(0u32, |a, s| a.wrapping_add(s.length));
        SendWqe {
            owner,
            op,
            flags,
            wr_id,
            length,
            payload: Payload::Sges(sges),
        }
    }

    /// A WQE carrying its data inline.
    pub fn inline(owner: bool, op: SendOp, flags: WqeFlags, wr_id: u64, data: Vec<u8>) -> SendWqe {
        let length = data.len() as u32;
        SendWqe {
            owner,
            op,
            flags,
            wr_id,
            length,
            payload: Payload::Inline(data),
        }
    }

    /// Bytes of the slot this WQE occupies (header plus SGEs or inline data).
    pub fn buffer_len(&self) -> usize {
        SEND_HEADER_LEN
            + match &self.payload {
                Payload::Sges(s) => s.len() * SGE_LEN,
                Payload::Inline(d) => d.len(),
            }
    }

    /// Parse one slot. Checks the structure (lengths, defined opcode and flags); semantic
    /// rules are in [`SendWqe::validate`], so malformed-but-parseable WQEs stay representable.
    pub fn parse(buf: &[u8]) -> Result<SendWqe> {
        use send_field as f;
        check_len(buf.len(), SEND_HEADER_LEN)?;
        let opcode = SendOpcode::from_u8(buf[f::OPCODE]).ok_or(Error::InvalidField {
            field: "opcode",
            value: buf[f::OPCODE] as u64,
        })?;
        let raw_flags = buf[f::FLAGS];
        if raw_flags & !WqeFlags::DEFINED != 0 {
            return Err(Error::InvalidField {
                field: "flags",
                value: raw_flags as u64,
            });
        }
        let num_sge = buf[f::NUM_SGE] as usize;
        let length = get_u32(buf, f::LENGTH);
        let remote = Remote {
            va: get_u64(buf, f::REMOTE_VA),
            rkey: get_u32(buf, f::RKEY),
        };
        let imm_bytes: [u8; 4] = buf[f::IMM_INV..f::IMM_INV + 4].try_into().unwrap();
        let imm = u32::from_be_bytes(imm_bytes);
        let inv = u32::from_le_bytes(imm_bytes);
        let op = match opcode {
            SendOpcode::Send => SendOp::Send,
            SendOpcode::SendImm => SendOp::SendImm { imm },
            SendOpcode::SendInv => SendOp::SendInv { rkey: inv },
            SendOpcode::RdmaWrite => SendOp::Write { remote },
            SendOpcode::RdmaWriteImm => SendOp::WriteImm { remote, imm },
            SendOpcode::RdmaRead => SendOp::Read { remote },
            SendOpcode::AtomicCmpSwap => SendOp::CmpSwap {
                remote,
                compare: get_u64(buf, f::COMPARE_ADD),
                swap: get_u64(buf, f::SWAP),
            },
            SendOpcode::AtomicFetchAdd => SendOp::FetchAdd {
                remote,
                add: get_u64(buf, f::COMPARE_ADD),
            },
            SendOpcode::LocalInv => SendOp::LocalInv { key: inv },
        };
        let payload = if raw_flags & WqeFlags::INLINE_BIT != 0 {
            if num_sge != 0 {
                return Err(Error::Inconsistent {
                    what: "inline WQE with num_sge != 0",
                });
            }
            let end = SEND_HEADER_LEN + length as usize;
            check_len(buf.len(), end)?;
            Payload::Inline(buf[SEND_HEADER_LEN..end].to_vec())
        } else {
            check_len(buf.len(), SEND_HEADER_LEN + num_sge * SGE_LEN)?;
            Payload::Sges(parse_sges(&buf[SEND_HEADER_LEN..], num_sge)?)
        };
        Ok(SendWqe {
            owner: buf[f::OWNER] & 1 != 0,
            op,
            flags: WqeFlags(raw_flags & !WqeFlags::INLINE_BIT),
            wr_id: get_u64(buf, f::WR_ID),
            length,
            payload,
        })
    }

    /// Write the WQE into `buf` (one slot). The 48-byte header is written completely (unused
    /// fields zero); bytes after the payload are left untouched.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        use send_field as f;
        check_len(buf.len(), SEND_HEADER_LEN)?;
        if self.flags.0 & !(WqeFlags::DEFINED & !WqeFlags::INLINE_BIT) != 0 {
            return Err(Error::InvalidField {
                field: "flags",
                value: self.flags.0 as u64,
            });
        }
        let (num_sge, inline) = match &self.payload {
            Payload::Sges(s) => {
                let cap = (buf.len() - SEND_HEADER_LEN) / SGE_LEN;
                if s.len() > cap.min(u8::MAX as usize) {
                    return Err(Error::TooLarge {
                        field: "SGEs",
                        count: s.len(),
                        capacity: cap,
                    });
                }
                (s.len() as u8, false)
            }
            Payload::Inline(d) => {
                let cap = buf.len() - SEND_HEADER_LEN;
                if d.len() > cap {
                    return Err(Error::TooLarge {
                        field: "inline bytes",
                        count: d.len(),
                        capacity: cap,
                    });
                }
                if d.len() != self.length as usize {
                    return Err(Error::Inconsistent {
                        what: "inline data length != length",
                    });
                }
                (0, true)
            }
        };
        buf[..SEND_HEADER_LEN].fill(0);
        buf[f::OWNER] = self.owner as u8;
        buf[f::OPCODE] = self.op.opcode() as u8;
        buf[f::FLAGS] = self.flags.0 | if inline { WqeFlags::INLINE_BIT } else { 0 };
        buf[f::NUM_SGE] = num_sge;
        put_u32(buf, f::LENGTH, self.length);
        put_u64(buf, f::WR_ID, self.wr_id);
        match self.op {
            SendOp::SendImm { imm } | SendOp::WriteImm { imm, .. } => {
                buf[f::IMM_INV..f::IMM_INV + 4].copy_from_slice(&imm.to_be_bytes())
            }
            SendOp::SendInv { rkey: key } | SendOp::LocalInv { key } => {
                put_u32(buf, f::IMM_INV, key)
            }
            _ => {}
        }
        if let Some(r) = self.op.remote() {
            put_u32(buf, f::RKEY, r.rkey);
            put_u64(buf, f::REMOTE_VA, r.va);
        }
        match self.op {
            SendOp::CmpSwap { compare, swap, .. } => {
                put_u64(buf, f::COMPARE_ADD, compare);
                put_u64(buf, f::SWAP, swap);
            }
            SendOp::FetchAdd { add, .. } => put_u64(buf, f::COMPARE_ADD, add),
            _ => {}
        }
        match &self.payload {
            Payload::Sges(s) => emit_sges(&mut buf[SEND_HEADER_LEN..], s),
            Payload::Inline(d) => {
                buf[SEND_HEADER_LEN..SEND_HEADER_LEN + d.len()].copy_from_slice(d)
            }
        }
        Ok(())
    }

    /// The rules the NIC enforces before executing a WQE (a violation completes it with
    /// `LOC_LEN_ERR` or `LOC_QP_OP_ERR` and moves the QP to ERR):
    /// * `length` equals the sum of SGE lengths (or the inline byte count) and is `<= 2^31`;
    /// * READ, atomics and LOCAL_INV carry no inline data;
    /// * atomics: remote VA 8-byte aligned, length 8, exactly one SGE (the 8-byte result);
    /// * LOCAL_INV: no data at all.
    pub fn validate(&self) -> Result<()> {
        let sum = match &self.payload {
            Payload::Sges(s) => s.iter().map(|s| s.length as u64).sum::<u64>(),
            Payload::Inline(d) => d.len() as u64,
        };
        if sum != self.length as u64 {
            return Err(Error::Inconsistent {
                what: "length != sum of SGE lengths",
            });
        }
        if self.length > MAX_MESSAGE_LEN {
            return Err(Error::InvalidField {
                field: "length",
                value: self.length as u64,
            });
        }
        let inline = matches!(self.payload, Payload::Inline(_));
        match self.op {
            SendOp::Read { .. } if inline => Err(Error::Inconsistent {
                what: "READ cannot be inline",
            }),
            SendOp::CmpSwap { remote, .. } | SendOp::FetchAdd { remote, .. } => {
                if inline {
                    return Err(Error::Inconsistent {
                        what: "atomic cannot be inline",
                    });
                }
                if !remote.va.is_multiple_of(8) {
                    return Err(Error::InvalidField {
                        field: "remote_va",
                        value: remote.va,
                    });
                }
                match &self.payload {
                    Payload::Sges(s) if s.len() == 1 && self.length == 8 => Ok(()),
                    _ => Err(Error::Inconsistent {
                        what: "atomic needs one 8-byte SGE",
                    }),
                }
            }
            SendOp::LocalInv { .. } if self.length != 0 || inline => Err(Error::Inconsistent {
                what: "LOCAL_INV carries no data",
            }),
            _ => Ok(()),
        }
    }
}

/// A receive WQE.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecvWqe {
    pub owner: bool,
    pub wr_id: u64,
    /// Capacity in bytes; must equal the sum of SGE lengths ([`RecvWqe::new`] computes it).
    pub length: u32,
    pub sges: Vec<Sge>,
}

impl RecvWqe {
    pub fn new(owner: bool, wr_id: u64, sges: Vec<Sge>) -> RecvWqe {
        let length = sges.iter().fold(0u32, |a, s| a.wrapping_add(s.length));
        RecvWqe {
            owner,
            wr_id,
            length,
            sges,
        }
    }

    pub fn buffer_len(&self) -> usize {
        RECV_HEADER_LEN + self.sges.len() * SGE_LEN
    }

    pub fn parse(buf: &[u8]) -> Result<RecvWqe> {
        use recv_field as f;
        check_len(buf.len(), RECV_HEADER_LEN)?;
        let num_sge = buf[f::NUM_SGE] as usize;
        check_len(buf.len(), RECV_HEADER_LEN + num_sge * SGE_LEN)?;
        Ok(RecvWqe {
            owner: buf[f::OWNER] & 1 != 0,
            wr_id: get_u64(buf, f::WR_ID),
            length: get_u32(buf, f::LENGTH),
            sges: parse_sges(&buf[RECV_HEADER_LEN..], num_sge)?,
        })
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        use recv_field as f;
        check_len(buf.len(), RECV_HEADER_LEN)?;
        let cap = (buf.len() - RECV_HEADER_LEN) / SGE_LEN;
        if self.sges.len() > cap.min(u8::MAX as usize) {
            return Err(Error::TooLarge {
                field: "SGEs",
                count: self.sges.len(),
                capacity: cap,
            });
        }
        buf[..RECV_HEADER_LEN].fill(0);
        buf[f::OWNER] = self.owner as u8;
        buf[f::NUM_SGE] = self.sges.len() as u8;
        put_u32(buf, f::LENGTH, self.length);
        put_u64(buf, f::WR_ID, self.wr_id);
        emit_sges(&mut buf[RECV_HEADER_LEN..], &self.sges);
        Ok(())
    }

    /// `length` must equal the sum of SGE lengths (else the NIC completes the receive with
    /// `LOC_QP_OP_ERR`).
    pub fn validate(&self) -> Result<()> {
        let sum: u64 = self.sges.iter().map(|s| s.length as u64).sum();
        if sum != self.length as u64 {
            return Err(Error::Inconsistent {
                what: "length != sum of SGE lengths",
            });
        }
        Ok(())
    }
}

fn parse_sges(buf: &[u8], n: usize) -> Result<Vec<Sge>> {
    (0..n).map(|i| Sge::parse(&buf[i * SGE_LEN..])).collect()
}

fn emit_sges(buf: &mut [u8], sges: &[Sge]) {
    for (i, s) in sges.iter().enumerate() {
        // Capacity was checked by the caller.
        s.emit(&mut buf[i * SGE_LEN..]).expect("SGE slot checked");
    }
}
