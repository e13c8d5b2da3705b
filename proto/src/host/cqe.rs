//! Completion-queue entries: what the NIC writes into a CQ ring in host memory.
//!
//! # CQE (32 bytes)
//! ```text
//! off  size  field
//! 0x00  8    wr_id       of the completed WQE
//! 0x08  4    byte_len    bytes received (RECV*), read (READ), 8 (atomics); 0 for SEND/WRITE
//! 0x0C  4    imm / inv   immediate data in wire order (flag WITH_IMM) or invalidated rkey (WITH_INV, LE)
//! 0x10  4    qpn         23:0 local QPN; 31:24 reserved
//! 0x14  4    src_qp      23:0 remote QPN (the QP's dest_qpn for RC); 31:24 reserved
//! 0x18  2    wqe_index   SQ or RQ index (free-running, 16 bits) of the completed WQE
//! 0x1A  1    vendor_err  ferroce error detail (vendor_err), 0 on success
//! 0x1B  1    flags       bit 0 WITH_IMM, bit 1 WITH_INV, bit 2 SOLICITED (the request had SE)
//! 0x1C  1    status      WcStatus (ibv_wc_status values)
//! 0x1D  1    opcode      CqeOpcode (ibv_wc_opcode values)
//! 0x1E  1    reserved
//! 0x1F  1    owner       bit 0 = owner/phase bit (ring::owner_for); 7:1 reserved
//! ```
//!
//! The owner bit is in the *last* byte: the NIC writes a CQE as one 32-byte DMA write in
//! increasing address order, so by the time the driver sees the new owner value the rest of
//! the entry has landed (the same choice as mlx5's `op_own` byte). The driver still issues a
//! load-acquire barrier after seeing the owner bit and before reading the other fields.
//!
//! `wqe_index` exists because send WQEs need not be signalled: a CQE for SQ index `i` tells
//! the driver that every SQ WQE up to and including `i` has completed and its slot is free.

use super::{check_len, get_u16, get_u32, get_u64, put_u16, put_u32, put_u64, Error, Result};

/// Bytes per CQE.
pub const CQE_LEN: usize = 32;

/// Byte offsets inside a CQE (for the hardware's CQE writer).
pub mod field {
    pub const WR_ID: usize = 0x00;
    pub const BYTE_LEN: usize = 0x08;
    pub const IMM_INV: usize = 0x0C;
    pub const QPN: usize = 0x10;
    pub const SRC_QP: usize = 0x14;
    pub const WQE_INDEX: usize = 0x18;
    pub const VENDOR_ERR: usize = 0x1A;
    pub const FLAGS: usize = 0x1B;
    pub const STATUS: usize = 0x1C;
    pub const OPCODE: usize = 0x1D;
    pub const OWNER: usize = 0x1F;
}

/// CQE flag bits.
pub mod flags {
    pub const WITH_IMM: u8 = 1 << 0;
    pub const WITH_INV: u8 = 1 << 1;
    pub const SOLICITED: u8 = 1 << 2;
    pub const DEFINED: u8 = 0x07;
}

/// Completion opcode; values are `enum ibv_wc_opcode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CqeOpcode {
    Send = 0,
    RdmaWrite = 1,
    RdmaRead = 2,
    CompSwap = 3,
    FetchAdd = 4,
    LocalInv = 6,
    Recv = 128,
    RecvRdmaWithImm = 129,
}

impl CqeOpcode {
    pub const fn from_u8(v: u8) -> Option<CqeOpcode> {
        Some(match v {
            0 => CqeOpcode::Send,
            1 => CqeOpcode::RdmaWrite,
            2 => CqeOpcode::RdmaRead,
            3 => CqeOpcode::CompSwap,
            4 => CqeOpcode::FetchAdd,
            6 => CqeOpcode::LocalInv,
            128 => CqeOpcode::Recv,
            129 => CqeOpcode::RecvRdmaWithImm,
            _ => return None,
        })
    }

    /// Receive-side completions (bit 7, as in ibverbs) come from the RQ, others from the SQ.
    pub const fn is_recv(self) -> bool {
        self as u8 & 0x80 != 0
    }

    /// The completion opcode for a send WQE opcode.
    pub const fn for_send(op: super::wqe::SendOpcode) -> CqeOpcode {
        use super::wqe::SendOpcode as S;
        match op {
            S::Send | S::SendImm | S::SendInv => CqeOpcode::Send,
            S::RdmaWrite | S::RdmaWriteImm => CqeOpcode::RdmaWrite,
            S::RdmaRead => CqeOpcode::RdmaRead,
            S::AtomicCmpSwap => CqeOpcode::CompSwap,
            S::AtomicFetchAdd => CqeOpcode::FetchAdd,
            S::LocalInv => CqeOpcode::LocalInv,
        }
    }
}

/// Completion status; values are `enum ibv_wc_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WcStatus {
    Success = 0,
    /// Local length error: a received message longer than the recv WQE, or a WQE whose
    /// length disagrees with its SGEs.
    LocLenErr = 1,
    /// Local QP operation error: malformed WQE (owner bit, opcode, SGE count), CQ overflow.
    LocQpOpErr = 2,
    /// Local protection error: an SGE lkey is invalid, in another PD or out of range.
    LocProtErr = 4,
    /// The WQE was flushed because the QP is in ERR.
    WrFlushErr = 5,
    /// Unexpected response opcode or sequence from the responder.
    BadRespErr = 7,
    /// Local access error at the responder (e.g. SEND_INV target not invalidatable).
    LocAccessErr = 8,
    /// NAK 0x61 received: invalid request.
    RemInvReqErr = 9,
    /// NAK 0x62 received: remote access error.
    RemAccessErr = 10,
    /// NAK 0x63 received: remote operational error.
    RemOpErr = 11,
    /// Transport retries (timeout or sequence NAK) exhausted.
    RetryExcErr = 12,
    /// RNR retries exhausted.
    RnrRetryExcErr = 13,
    /// Fatal device error (DMA failure).
    FatalErr = 19,
    GeneralErr = 21,
}

impl WcStatus {
    /// The requester's completion status for a received NAK (IBTA Vol 1, 9.9; docs/PROTOCOL.md §8,
    /// as rxe maps it): `None` for a PSN sequence error, which triggers Go-Back-N rather than a
    /// completion.
    pub const fn for_nak(nak: crate::syndrome::NakCode) -> Option<WcStatus> {
        use crate::syndrome::NakCode as N;
        match nak {
            N::PsnSequenceError => None,
            N::InvalidRequest => Some(WcStatus::RemInvReqErr),
            N::RemoteAccessError => Some(WcStatus::RemAccessErr),
            N::RemoteOperationalError | N::InvalidRdRequest | N::Reserved(_) => {
                Some(WcStatus::RemOpErr)
            }
        }
    }

    pub const fn from_u8(v: u8) -> Option<WcStatus> {
        Some(match v {
            0 => WcStatus::Success,
            1 => WcStatus::LocLenErr,
            2 => WcStatus::LocQpOpErr,
            4 => WcStatus::LocProtErr,
            5 => WcStatus::WrFlushErr,
            7 => WcStatus::BadRespErr,
            8 => WcStatus::LocAccessErr,
            9 => WcStatus::RemInvReqErr,
            10 => WcStatus::RemAccessErr,
            11 => WcStatus::RemOpErr,
            12 => WcStatus::RetryExcErr,
            13 => WcStatus::RnrRetryExcErr,
            19 => WcStatus::FatalErr,
            21 => WcStatus::GeneralErr,
            _ => return None,
        })
    }
}

/// Vendor error codes in the CQE `vendor_err` byte and in `QP_ERR_INFO`: the precise reason
/// behind a status, for debugging. 0 means none.
pub mod vendor_err {
    pub const NONE: u8 = 0;
    /// A fetched WQE's owner bit did not match the expected phase.
    pub const WQE_OWNER: u8 = 1;
    /// Undefined or unsupported opcode / flag in a WQE.
    pub const WQE_OPCODE: u8 = 2;
    /// More SGEs than the WQE stride holds.
    pub const WQE_SGE_COUNT: u8 = 3;
    /// WQE length does not match its SGEs or exceeds 2^31.
    pub const WQE_LENGTH: u8 = 4;
    /// SGE lkey invalid, wrong PD, missing access right or out of range.
    pub const LKEY: u8 = 5;
    /// DMA read or write to host memory failed.
    pub const DMA: u8 = 6;
    /// The CQ overflowed.
    pub const CQ_OVERFLOW: u8 = 7;
    /// Received message longer than the posted receive buffer.
    pub const RECV_OVERFLOW: u8 = 8;
    /// Atomic remote VA not 8-byte aligned, or atomic WQE malformed.
    pub const ATOMIC_ALIGN: u8 = 9;
    /// Local ACK timeout retries exhausted.
    pub const RETRY_TIMEOUT: u8 = 10;
    /// Sequence-NAK retries exhausted.
    pub const RETRY_NAK: u8 = 11;
    /// Unexpected response opcode or PSN.
    pub const BAD_RESPONSE: u8 = 12;
    /// QP moved to ERR by software (MODIFY to ERR): flush.
    pub const FLUSH: u8 = 13;
}

/// A completion-queue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cqe {
    pub owner: bool,
    pub opcode: CqeOpcode,
    pub status: WcStatus,
    /// Local QPN (24 bits).
    pub qpn: u32,
    /// Remote QPN (24 bits).
    pub src_qp: u32,
    pub wr_id: u64,
    pub byte_len: u32,
    /// Immediate data, as the number whose big-endian bytes were on the wire.
    pub imm: Option<u32>,
    /// The rkey a SEND_WITH_INV invalidated.
    pub invalidated_rkey: Option<u32>,
    /// The request carried the solicited-event bit.
    pub solicited: bool,
    pub wqe_index: u16,
    pub vendor_err: u8,
}

impl Cqe {
    pub fn parse(buf: &[u8]) -> Result<Cqe> {
        use field as f;
        check_len(buf.len(), CQE_LEN)?;
        let opcode = CqeOpcode::from_u8(buf[f::OPCODE]).ok_or(Error::InvalidField {
            field: "opcode",
            value: buf[f::OPCODE] as u64,
        })?;
        let status = WcStatus::from_u8(buf[f::STATUS]).ok_or(Error::InvalidField {
            field: "status",
            value: buf[f::STATUS] as u64,
        })?;
        let fl = buf[f::FLAGS];
        if fl & !flags::DEFINED != 0 {
            return Err(Error::InvalidField {
                field: "flags",
                value: fl as u64,
            });
        }
        if fl & flags::WITH_IMM != 0 && fl & flags::WITH_INV != 0 {
            return Err(Error::Inconsistent {
                what: "CQE with both WITH_IMM and WITH_INV",
            });
        }
        let word: [u8; 4] = buf[f::IMM_INV..f::IMM_INV + 4].try_into().unwrap();
        Ok(Cqe {
            owner: buf[f::OWNER] & 1 != 0,
            opcode,
            status,
            qpn: get_u32(buf, f::QPN) & 0xFF_FFFF,
            src_qp: get_u32(buf, f::SRC_QP) & 0xFF_FFFF,
            wr_id: get_u64(buf, f::WR_ID),
            byte_len: get_u32(buf, f::BYTE_LEN),
            imm: (fl & flags::WITH_IMM != 0).then(|| u32::from_be_bytes(word)),
            invalidated_rkey: (fl & flags::WITH_INV != 0).then(|| u32::from_le_bytes(word)),
            solicited: fl & flags::SOLICITED != 0,
            wqe_index: get_u16(buf, f::WQE_INDEX),
            vendor_err: buf[f::VENDOR_ERR],
        })
    }

    /// Write all 32 bytes (reserved bytes zero).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        use field as f;
        check_len(buf.len(), CQE_LEN)?;
        if self.imm.is_some() && self.invalidated_rkey.is_some() {
            return Err(Error::Inconsistent {
                what: "CQE with both imm and invalidated_rkey",
            });
        }
        for (name, v) in [("qpn", self.qpn), ("src_qp", self.src_qp)] {
            if v > 0xFF_FFFF {
                return Err(Error::InvalidField {
                    field: name,
                    value: v as u64,
                });
            }
        }
        buf[..CQE_LEN].fill(0);
        put_u64(buf, f::WR_ID, self.wr_id);
        put_u32(buf, f::BYTE_LEN, self.byte_len);
        let mut fl = 0;
        if let Some(imm) = self.imm {
            buf[f::IMM_INV..f::IMM_INV + 4].copy_from_slice(&imm.to_be_bytes());
            fl |= flags::WITH_IMM;
        }
        if let Some(rkey) = self.invalidated_rkey {
            put_u32(buf, f::IMM_INV, rkey);
            fl |= flags::WITH_INV;
        }
        if self.solicited {
            fl |= flags::SOLICITED;
        }
        put_u32(buf, f::QPN, self.qpn);
        put_u32(buf, f::SRC_QP, self.src_qp);
        put_u16(buf, f::WQE_INDEX, self.wqe_index);
        buf[f::VENDOR_ERR] = self.vendor_err;
        buf[f::FLAGS] = fl;
        buf[f::STATUS] = self.status as u8;
        buf[f::OPCODE] = self.opcode as u8;
        buf[f::OWNER] = self.owner as u8;
        Ok(())
    }

    /// Whether the entry at `buf` is new for a reader expecting owner value `expected`
    /// (`ring::owner_for(ci, log2_entries)`). Reads only the owner byte, as the poll loop does.
    pub fn is_new(buf: &[u8], expected: bool) -> Result<bool> {
        check_len(buf.len(), CQE_LEN)?;
        Ok((buf[field::OWNER] & 1 != 0) == expected)
    }
}
