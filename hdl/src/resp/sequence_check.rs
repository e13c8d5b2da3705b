//! [`RespSequenceCheck`]: the RC responder's decision on a request packet before anything of it
//! is executed: which operation it is, whether the QP takes it, where its PSN lies against the
//! expected PSN (IBTA Vol 1, 9.7.4.1), whether it continues the QP's message in a valid opcode
//! sequence (IBTA Vol 1, 9.7.5), and whether its lengths and the QP's access rights allow it
//! (IBTA Vol 1, 9.9 error classes; docs/PROTOCOL.md §7.1). The rules are the
//! [module documentation](super)'s (PSN, errors of class C, opcodes, PMTU).
//!
//! # Combinational, and why
//!
//! The block has no register: [`super::RcWriteResponder`] feeds it from the registers its
//! `Latch` state loads (the QP context and the responder state) and registers the verdict in
//! its `Judge` state, one cycle per packet, so that the check's logic and what `Check` drives
//! (the ACK queue, the flag RAM, the next state) are not one clock period
//! ([`super::SeqVerdictFlags`]). The responder also keeps using the opcode class outputs
//! (`is_send`, `ends`, ...) combinationally in the states after `Check`, while its header
//! registers hold the packet. The clock input is there only for the benches' stepping
//! (nothing reads it).
//!
//! # Ports
//!
//! * The request: `opcode`, `qpn` (BTH DestQP), `psn`, `plen` (payload bytes), `dma_len` (the
//!   RETH DMA length, read for WRITE FIRST/ONLY and READ), `va_low` (the low three bits of the
//!   RETH or AtomicETH VA: an atomic's alignment).
//! * The QP: `qp_state`, `qp_access`, `qp_pmtu` (the QP context: `QpState`, `AccessFlags`,
//!   `ibv_mtu` enum); the responder state: `epsn`, the flags `nak_sent`, `in_write`, `in_send`,
//!   `qp_err` ([`super::RespQpFlags`]; the responder writes the flag word whole, so `in_write`
//!   and `in_send` are never both set), `cursor_resid` (the bytes a WRITE in progress has
//!   left, read for WRITE MIDDLE/LAST).
//! * The opcode class: `is_send`, `is_write`, `is_read`, `is_atomic`; `opens` (SEND or WRITE
//!   FIRST/ONLY), `ends` (SEND or WRITE LAST/ONLY), `has_reth`, `has_imm`, `send_opens` (SEND
//!   FIRST/ONLY: needs a receive WQE), `send_ends`, `write_imm_end` (WRITE LAST/ONLY with
//!   immediate: consumes a receive WQE); `pmtu_bytes`.
//! * The verdict, exactly one high ([`SeqVerdict`] in the model): `v_unsupported`,
//!   `v_qp_drop`, `v_dup_atomic`, `v_dup_read`, `v_dup`, `v_psn_nak`, `v_psn_drop`,
//!   `v_invalid`, `v_access`, `v_execute`. In this order of precedence: an opcode the
//!   responder does not execute; a QP that does not receive (state, QPN out of the table, or
//!   moved to ERR by the responder); a duplicate (PSN in the 2^23 before ePSN: an atomic is
//!   answered from the replay cache, a READ read again, anything else re-ACKed, IBA C9-105); a
//!   PSN ahead of ePSN (NAK sequence error once, then dropped until an in-sequence packet:
//!   class B; except when the requester has gone back, i.e. the PSN is not after the QP's
//!   previous out-of-sequence PSN (`oos_psn`): then it is NAKed again, for the missing PSN
//!   was lost again, or the NAK was lost and the requester probes, and no other NAK would
//!   report it); an invalid request (opcode sequence, PMTU length rules, RETH length above
//!   2^31, an atomic with payload or unaligned, a READ with payload: NAK 0x61, class C); a
//!   remote access error (the QP lacks the right, or a WRITE's payload does not fit what its
//!   message has left: NAK 0x62, class C); otherwise the packet is executed (the MR check and,
//!   for a SEND, the receive WQE decide the rest).
use crate::csr::qp_config::{ACC_W, PMTU_W, ST_W};
use ferroce_proto::flow::Pmtu;
use ferroce_proto::host::qp::{AccessFlags, QpState};
use ferroce_proto::psn::{psn_cmp, PSN_MASK};
use ferroce_proto::wire::Opcode;
use rust_hdl::prelude::*;
use std::cmp::Ordering;

// The kernel decodes opcodes, QP states, access bits and the PMTU enum as literals (rust-hdl
// emits a named constant as an undeclared Verilog identifier); these tie them to
// `ferroce_proto`.
const _: () = assert!(
    Opcode::RC_SEND_FIRST.0 == 0
        && Opcode::RC_SEND_MIDDLE.0 == 1
        && Opcode::RC_SEND_LAST.0 == 2
        && Opcode::RC_SEND_LAST_WITH_IMMEDIATE.0 == 3
        && Opcode::RC_SEND_ONLY.0 == 4
        && Opcode::RC_SEND_ONLY_WITH_IMMEDIATE.0 == 5
        && Opcode::RC_RDMA_WRITE_FIRST.0 == 6
        && Opcode::RC_RDMA_WRITE_MIDDLE.0 == 7
        && Opcode::RC_RDMA_WRITE_LAST.0 == 8
        && Opcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.0 == 9
        && Opcode::RC_RDMA_WRITE_ONLY.0 == 10
        && Opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.0 == 11
        && Opcode::RC_RDMA_READ_REQUEST.0 == 12
        && Opcode::RC_COMPARE_SWAP.0 == 19
        && Opcode::RC_FETCH_ADD.0 == 20
);
const _: () = assert!(
    QpState::Rtr as u8 == 2
        && QpState::Rts as u8 == 3
        && QpState::Sqd as u8 == 4
        && QpState::Rtr.receives()
        && QpState::Rts.receives()
        && QpState::Sqd.receives()
        && AccessFlags::REMOTE_WRITE.0 == 1 << 1
        && AccessFlags::REMOTE_READ.0 == 1 << 2
        && AccessFlags::REMOTE_ATOMIC.0 == 1 << 3
        && Pmtu::Mtu256.ibv_enum() == 1
        && Pmtu::Mtu512.ibv_enum() == 2
        && Pmtu::Mtu1024.ibv_enum() == 3
        && Pmtu::Mtu2048.ibv_enum() == 4
        && Pmtu::Mtu4096.ibv_enum() == 5
        && Pmtu::Mtu4096.bytes() == 4096
);

/// The default build: 256 QPs.
pub type RespSequenceCheck64 = RespSequenceCheck<8>;

#[derive(LogicBlock)]
pub struct RespSequenceCheck<const QA: usize> {
    /// only for stepping the benches: the block has no register
    pub clock: Signal<In, Clock>,
    // ---- the request ----
    /// BTH opcode
    pub opcode: Signal<In, Bits<8>>,
    /// BTH DestQP (a QPN at or above 2^QA is not in the table)
    pub qpn: Signal<In, Bits<24>>,
    /// BTH PSN
    pub psn: Signal<In, Bits<24>>,
    /// payload bytes (pad and ICRC excluded)
    pub plen: Signal<In, Bits<13>>,
    /// RETH DMA length (WRITE FIRST/ONLY, READ)
    pub dma_len: Signal<In, Bits<32>>,
    /// bits 2:0 of the RETH or AtomicETH virtual address
    pub va_low: Signal<In, Bits<3>>,
    // ---- the QP ----
    /// QP state (`QpState`)
    pub qp_state: Signal<In, Bits<ST_W>>,
    /// QP access flags (`AccessFlags`: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC)
    pub qp_access: Signal<In, Bits<ACC_W>>,
    /// path MTU, verbs enum (1 = 256 .. 5 = 4096; anything else counts as 256)
    pub qp_pmtu: Signal<In, Bits<PMTU_W>>,
    /// the expected PSN
    pub epsn: Signal<In, Bits<24>>,
    /// a PSN sequence NAK was sent since the last in-sequence packet
    pub nak_sent: Signal<In, Bit>,
    /// the PSN of the QP's latest packet out of sequence (read while `nak_sent`)
    pub oos_psn: Signal<In, Bits<24>>,
    /// a WRITE message is in progress (MIDDLE/LAST expected)
    pub in_write: Signal<In, Bit>,
    /// a SEND message is in progress (MIDDLE/LAST expected)
    pub in_send: Signal<In, Bit>,
    /// the responder moved the QP to ERR
    pub qp_err: Signal<In, Bit>,
    /// bytes left of the WRITE in progress (its cursor)
    pub cursor_resid: Signal<In, Bits<32>>,
    // ---- the opcode class ----
    /// SEND (any position, with or without immediate)
    pub is_send: Signal<Out, Bit>,
    /// RDMA WRITE (any position, with or without immediate)
    pub is_write: Signal<Out, Bit>,
    /// RDMA READ request
    pub is_read: Signal<Out, Bit>,
    /// COMPARE_SWAP or FETCH_ADD
    pub is_atomic: Signal<Out, Bit>,
    /// the first packet of a SEND or WRITE message (FIRST, ONLY)
    pub opens: Signal<Out, Bit>,
    /// the last packet of a SEND or WRITE message (LAST, ONLY, with or without immediate)
    pub ends: Signal<Out, Bit>,
    /// the packet carries a RETH (WRITE FIRST/ONLY, READ)
    pub has_reth: Signal<Out, Bit>,
    /// the packet carries ImmDt
    pub has_imm: Signal<Out, Bit>,
    /// SEND FIRST/ONLY: opens a receive WQE
    pub send_opens: Signal<Out, Bit>,
    /// SEND LAST/ONLY: completes a receive WQE
    pub send_ends: Signal<Out, Bit>,
    /// WRITE LAST/ONLY with immediate: consumes a receive WQE
    pub write_imm_end: Signal<Out, Bit>,
    /// the path MTU in bytes
    pub pmtu_bytes: Signal<Out, Bits<13>>,
    // ---- the verdict (exactly one high) ----
    /// not an opcode the responder executes: consumed and counted, no response
    pub v_unsupported: Signal<Out, Bit>,
    /// the QP does not receive (state, QPN, ERR): dropped, no response
    pub v_qp_drop: Signal<Out, Bit>,
    /// with `v_qp_drop`: the QPN is not one the NIC implements (else: the QP's state)
    pub qpn_unknown: Signal<Out, Bit>,
    /// a duplicate atomic: answered from the replay cache
    pub v_dup_atomic: Signal<Out, Bit>,
    /// a duplicate READ: answered again from host memory, after its MR check
    pub v_dup_read: Signal<Out, Bit>,
    /// a duplicate SEND or WRITE: re-ACKed, not executed
    pub v_dup: Signal<Out, Bit>,
    /// ahead of ePSN, the first since the last in-sequence packet: NAK sequence error
    pub v_psn_nak: Signal<Out, Bit>,
    /// ahead of ePSN after that NAK: dropped silently
    pub v_psn_drop: Signal<Out, Bit>,
    /// in sequence, invalid request (NAK 0x61, QP to ERR)
    pub v_invalid: Signal<Out, Bit>,
    /// in sequence, remote access error (NAK 0x62, QP to ERR)
    pub v_access: Signal<Out, Bit>,
    /// in sequence and well formed: execute
    pub v_execute: Signal<Out, Bit>,

    /// 2^QA: QPNs at or above it are out of the table
    c_nqp: Constant<Bits<24>>,
    w_first: Signal<Local, Bit>,
    w_mid: Signal<Local, Bit>,
    w_last: Signal<Local, Bit>,
    w_only: Signal<Local, Bit>,
    /// SEND MIDDLE/LAST: continues an open SEND
    s_cont: Signal<Local, Bit>,
    g_first: Signal<Local, Bit>,
    g_mid: Signal<Local, Bit>,
    g_last: Signal<Local, Bit>,
    g_only: Signal<Local, Bit>,
    supported: Signal<Local, Bit>,
    qp_ok: Signal<Local, Bit>,
    diff: Signal<Local, Bits<24>>,
    behind: Signal<Local, Bit>,
    at_epsn: Signal<Local, Bit>,
    /// `psn - oos_psn` (24-bit modular): the PSN is after the latest one out of sequence
    /// when it is neither 0 nor 2^23 and above; otherwise the requester has gone back
    oos_d: Signal<Local, Bits<24>>,
    oos_after: Signal<Local, Bit>,
    seq_ok: Signal<Local, Bit>,
    len_ok: Signal<Local, Bit>,
    dlen_ok: Signal<Local, Bit>,
    acc_ok: Signal<Local, Bit>,
    plen32: Signal<Local, Bits<32>>,
    resid: Signal<Local, Bits<32>>,
    resid_ok: Signal<Local, Bit>,
}

impl<const QA: usize> Default for RespSequenceCheck<QA> {
    fn default() -> Self {
        assert!(
            (1..=23).contains(&QA),
            "RespSequenceCheck: QA must be 1..=23"
        );
        Self {
            clock: Default::default(),
            opcode: Default::default(),
            qpn: Default::default(),
            psn: Default::default(),
            plen: Default::default(),
            dma_len: Default::default(),
            va_low: Default::default(),
            qp_state: Default::default(),
            qp_access: Default::default(),
            qp_pmtu: Default::default(),
            epsn: Default::default(),
            nak_sent: Default::default(),
            oos_psn: Default::default(),
            in_write: Default::default(),
            in_send: Default::default(),
            qp_err: Default::default(),
            cursor_resid: Default::default(),
            is_send: Default::default(),
            is_write: Default::default(),
            is_read: Default::default(),
            is_atomic: Default::default(),
            opens: Default::default(),
            ends: Default::default(),
            has_reth: Default::default(),
            has_imm: Default::default(),
            send_opens: Default::default(),
            send_ends: Default::default(),
            write_imm_end: Default::default(),
            pmtu_bytes: Default::default(),
            v_unsupported: Default::default(),
            v_qp_drop: Default::default(),
            qpn_unknown: Default::default(),
            v_dup_atomic: Default::default(),
            v_dup_read: Default::default(),
            v_dup: Default::default(),
            v_psn_nak: Default::default(),
            v_psn_drop: Default::default(),
            v_invalid: Default::default(),
            v_access: Default::default(),
            v_execute: Default::default(),
            c_nqp: Constant::new((1u64 << QA).into()),
            w_first: Default::default(),
            w_mid: Default::default(),
            w_last: Default::default(),
            w_only: Default::default(),
            s_cont: Default::default(),
            g_first: Default::default(),
            g_mid: Default::default(),
            g_last: Default::default(),
            g_only: Default::default(),
            supported: Default::default(),
            qp_ok: Default::default(),
            diff: Default::default(),
            behind: Default::default(),
            at_epsn: Default::default(),
            oos_d: Default::default(),
            oos_after: Default::default(),
            seq_ok: Default::default(),
            len_ok: Default::default(),
            dlen_ok: Default::default(),
            acc_ok: Default::default(),
            plen32: Default::default(),
            resid: Default::default(),
            resid_ok: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for RespSequenceCheck<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- the opcode class (decimal literals: rust-hdl emits hex patterns verbatim).
        // WRITE: 6 FIRST, 7 MIDDLE, 8 LAST, 9 LAST_WITH_IMMEDIATE, 10 ONLY, 11
        // ONLY_WITH_IMMEDIATE. SEND: 0 FIRST, 1 MIDDLE, 2 LAST, 3 LAST_WITH_IMMEDIATE, 4 ONLY,
        // 5 ONLY_WITH_IMMEDIATE. 12 READ request; 19 COMPARE_SWAP, 20 FETCH_ADD.
        self.w_first.next = self.opcode.val() == 6;
        self.w_mid.next = self.opcode.val() == 7;
        self.w_last.next = (self.opcode.val() == 8) | (self.opcode.val() == 9);
        self.w_only.next = (self.opcode.val() == 10) | (self.opcode.val() == 11);
        self.is_write.next =
            self.w_first.val() | self.w_mid.val() | self.w_last.val() | self.w_only.val();
        self.is_send.next = self.opcode.val() < 6;
        self.is_read.next = self.opcode.val() == 12;
        self.is_atomic.next = (self.opcode.val() == 19) | (self.opcode.val() == 20);
        self.send_opens.next =
            (self.opcode.val() == 0) | (self.opcode.val() == 4) | (self.opcode.val() == 5);
        self.s_cont.next =
            (self.opcode.val() == 1) | (self.opcode.val() == 2) | (self.opcode.val() == 3);
        self.send_ends.next =
            self.is_send.val() & (self.opcode.val() != 0) & (self.opcode.val() != 1);
        self.g_first.next = self.w_first.val() | (self.opcode.val() == 0);
        self.g_mid.next = self.w_mid.val() | (self.opcode.val() == 1);
        self.g_last.next = self.w_last.val() | (self.opcode.val() == 2) | (self.opcode.val() == 3);
        self.g_only.next = self.w_only.val() | (self.opcode.val() == 4) | (self.opcode.val() == 5);
        self.opens.next = self.g_first.val() | self.g_only.val();
        self.ends.next = self.g_last.val() | self.g_only.val();
        self.has_imm.next = (self.opcode.val() == 3)
            | (self.opcode.val() == 5)
            | (self.opcode.val() == 9)
            | (self.opcode.val() == 11);
        self.write_imm_end.next = (self.opcode.val() == 9) | (self.opcode.val() == 11);
        self.has_reth.next = self.w_first.val() | self.w_only.val() | self.is_read.val();
        self.supported.next =
            self.is_write.val() | self.is_send.val() | self.is_atomic.val() | self.is_read.val();

        // ---- the QP receives: RTR 2, RTS 3, SQD 4 (QpState::receives), in the table, and
        // not moved to ERR by the responder
        self.qpn_unknown.next = self.qpn.val() >= self.c_nqp.val();
        self.qp_ok.next = !self.qpn_unknown.val()
            & ((self.qp_state.val() == 2)
                | (self.qp_state.val() == 3)
                | (self.qp_state.val() == 4))
            & !self.qp_err.val();

        // ---- PSN (IBTA Vol 1, 9.7.4.1), 24-bit modular distance: 0 = expected, bit 23 set =
        // behind (a duplicate), otherwise ahead (out of sequence)
        self.diff.next = self.psn.val() - self.epsn.val();
        self.behind.next = self.diff.val().get_bit(23);
        self.at_epsn.next = self.diff.val() == 0;
        self.oos_d.next = self.psn.val() - self.oos_psn.val();
        self.oos_after.next = (self.oos_d.val() != 0) & !self.oos_d.val().get_bit(23);

        // ---- opcode sequence (IBTA Vol 1, 9.7.5): outside a message only FIRST/ONLY (and the
        // single-packet READ and atomics); inside a WRITE only WRITE MIDDLE/LAST, inside a SEND
        // only SEND MIDDLE/LAST
        self.seq_ok.next =
            self.g_first.val() | self.g_only.val() | self.is_atomic.val() | self.is_read.val();
        if self.in_write.val() {
            self.seq_ok.next = self.w_mid.val() | self.w_last.val();
        }
        if self.in_send.val() {
            self.seq_ok.next = self.s_cont.val();
        }

        // ---- lengths: PMTU in bytes from the verbs enum (anything but 2..=5 counts as 256, the
        // strictest; such a QP cannot be in RTR, the CSR block checks the value)
        self.pmtu_bytes.next = 256.into();
        match self.qp_pmtu.val().index() {
            2 => {
                self.pmtu_bytes.next = 512.into();
            }
            3 => {
                self.pmtu_bytes.next = 1024.into();
            }
            4 => {
                self.pmtu_bytes.next = 2048.into();
            }
            5 => {
                self.pmtu_bytes.next = 4096.into();
            }
            _ => {}
        }
        // docs/PROTOCOL.md §7.1, length: FIRST/MIDDLE carry exactly a PMTU, LAST 1..=PMTU, ONLY
        // 0..=PMTU; an atomic no payload and an 8-byte aligned VA; a READ request no payload;
        // the RETH DMA length at most 2^31
        self.len_ok.next = ((self.g_first.val() | self.g_mid.val())
            & (self.plen.val() == self.pmtu_bytes.val()))
            | (self.g_last.val()
                & (self.plen.val() != 0)
                & (self.plen.val() <= self.pmtu_bytes.val()))
            | (self.g_only.val() & (self.plen.val() <= self.pmtu_bytes.val()))
            | (self.is_atomic.val() & (self.plen.val() == 0) & (self.va_low.val() == 0))
            | (self.is_read.val() & (self.plen.val() == 0));
        self.dlen_ok.next = !self.has_reth.val()
            | !(self.dma_len.val().get_bit(31) & (self.dma_len.val().get_bits::<31>(0) != 0));

        // ---- access: REMOTE_WRITE (bit 1) for WRITEs, REMOTE_READ (bit 2) for READs,
        // REMOTE_ATOMIC (bit 3) for atomics; a SEND needs no remote right
        self.acc_ok.next = (self.qp_access.val().get_bit(1) & self.is_write.val())
            | self.is_send.val()
            | (self.qp_access.val().get_bit(3) & self.is_atomic.val())
            | (self.qp_access.val().get_bit(2) & self.is_read.val());
        // a WRITE's payload against what its message has left (the RETH length on FIRST/ONLY,
        // else the cursor): a FIRST/MIDDLE must leave at least one byte for the LAST, a
        // LAST/ONLY must end it exactly
        self.plen32.next = bit_cast::<32, 13>(self.plen.val());
        self.resid.next = self.cursor_resid.val();
        if self.has_reth.val() {
            self.resid.next = self.dma_len.val();
        }
        self.resid_ok.next = self.is_send.val()
            | self.is_atomic.val()
            | self.is_read.val()
            | ((self.w_first.val() | self.w_mid.val()) & (self.plen32.val() < self.resid.val()))
            | ((self.w_last.val() | self.w_only.val()) & (self.plen32.val() == self.resid.val()));

        // ---- the verdict, in the order of precedence of the module documentation
        self.v_unsupported.next = false;
        self.v_qp_drop.next = false;
        self.v_dup_atomic.next = false;
        self.v_dup_read.next = false;
        self.v_dup.next = false;
        self.v_psn_nak.next = false;
        self.v_psn_drop.next = false;
        self.v_invalid.next = false;
        self.v_access.next = false;
        self.v_execute.next = false;
        if !self.supported.val() {
            self.v_unsupported.next = true;
        } else if !self.qp_ok.val() {
            self.v_qp_drop.next = true;
        } else if self.behind.val() & self.is_atomic.val() {
            self.v_dup_atomic.next = true;
        } else if self.behind.val() & self.is_read.val() {
            self.v_dup_read.next = true;
        } else if self.behind.val() {
            self.v_dup.next = true;
        } else if !self.at_epsn.val() {
            if self.nak_sent.val() & self.oos_after.val() {
                self.v_psn_drop.next = true;
            } else {
                self.v_psn_nak.next = true;
            }
        } else if !self.seq_ok.val() | !self.len_ok.val() | !self.dlen_ok.val() {
            self.v_invalid.next = true;
        } else if !self.acc_ok.val() | !self.resid_ok.val() {
            self.v_access.next = true;
        } else {
            self.v_execute.next = true;
        }
    }
}

// ================= reference model ======================================================

/// What the responder does with a request packet (the model's verdict; one `v_*` port each).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SeqVerdict {
    Unsupported,
    QpDrop,
    DuplicateAtomic,
    DuplicateRead,
    Duplicate,
    PsnNak,
    PsnDrop,
    InvalidRequest,
    AccessError,
    Execute,
}

/// The inputs of one check, in plain Rust.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqCheckInput {
    pub opcode: u8,
    pub qpn: u32,
    pub psn: u32,
    pub plen: u32,
    pub dma_len: u32,
    /// the RETH or AtomicETH VA (only its alignment matters)
    pub va: u64,
    pub qp_state: u8,
    pub qp_access: u32,
    pub qp_pmtu: u8,
    pub epsn: u32,
    pub nak_sent: bool,
    /// the PSN of the QP's latest packet out of sequence
    pub oos_psn: u32,
    pub in_write: bool,
    pub in_send: bool,
    pub qp_err: bool,
    pub cursor_resid: u32,
}

/// The opcode class outputs, in plain Rust.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqOpClass {
    pub is_send: bool,
    pub is_write: bool,
    pub is_read: bool,
    pub is_atomic: bool,
    pub opens: bool,
    pub ends: bool,
    pub has_reth: bool,
    pub has_imm: bool,
    pub send_opens: bool,
    pub send_ends: bool,
    pub write_imm_end: bool,
}

/// The reference model: the responder's checks from the protocol rules (IBTA Vol 1, 9.7.4.1
/// PSN, 9.7.5 opcode sequence, 9.9 error classes; docs/PROTOCOL.md §7.1), with the opcode
/// properties taken from `ferroce_proto` (the wire definitions), not from the kernel's decode.
#[derive(Copy, Clone, Debug)]
pub struct RespSequenceCheckModel {
    /// QPN bits of the QP table (2^qa QPs)
    pub qa: usize,
}

impl RespSequenceCheckModel {
    /// The opcode class of an RC request opcode the responder executes (SEND, RDMA WRITE, RDMA
    /// READ request, COMPARE_SWAP, FETCH_ADD); `None` for anything else.
    pub fn class(opcode: u8) -> Option<SeqOpClass> {
        let op = Opcode(opcode);
        let send = [
            Opcode::RC_SEND_FIRST,
            Opcode::RC_SEND_MIDDLE,
            Opcode::RC_SEND_LAST,
            Opcode::RC_SEND_LAST_WITH_IMMEDIATE,
            Opcode::RC_SEND_ONLY,
            Opcode::RC_SEND_ONLY_WITH_IMMEDIATE,
        ]
        .contains(&op);
        let write = [
            Opcode::RC_RDMA_WRITE_FIRST,
            Opcode::RC_RDMA_WRITE_MIDDLE,
            Opcode::RC_RDMA_WRITE_LAST,
            Opcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
            Opcode::RC_RDMA_WRITE_ONLY,
            Opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        ]
        .contains(&op);
        let read = op == Opcode::RC_RDMA_READ_REQUEST;
        let atomic = op == Opcode::RC_COMPARE_SWAP || op == Opcode::RC_FETCH_ADD;
        if !(send || write || read || atomic) {
            return None;
        }
        let msg = send || write;
        let h = op.headers();
        Some(SeqOpClass {
            is_send: send,
            is_write: write,
            is_read: read,
            is_atomic: atomic,
            opens: msg && op.starts_message(),
            ends: msg && op.ends_message(),
            has_reth: h.reth,
            has_imm: h.imm_dt,
            send_opens: send && op.starts_message(),
            send_ends: send && op.ends_message(),
            write_imm_end: write && op.ends_message() && h.imm_dt,
        })
    }

    /// The path MTU in bytes of the QP's `ibv_mtu` enum (an invalid value counts as the
    /// smallest, 256).
    pub fn pmtu_bytes(pmtu: u8) -> u32 {
        Pmtu::from_ibv_enum(pmtu).unwrap_or(Pmtu::Mtu256).bytes()
    }

    pub fn verdict(&self, x: &SeqCheckInput) -> SeqVerdict {
        let Some(c) = Self::class(x.opcode) else {
            return SeqVerdict::Unsupported;
        };
        let receives = QpState::from_u8(x.qp_state).is_some_and(|s| s.receives());
        if (x.qpn as u64) >= (1u64 << self.qa) || !receives || x.qp_err {
            return SeqVerdict::QpDrop;
        }
        match psn_cmp(x.psn & PSN_MASK, x.epsn & PSN_MASK) {
            Ordering::Less if c.is_atomic => return SeqVerdict::DuplicateAtomic,
            Ordering::Less if c.is_read => return SeqVerdict::DuplicateRead,
            Ordering::Less => return SeqVerdict::Duplicate,
            Ordering::Greater
                if x.nak_sent && psn_cmp(x.psn & PSN_MASK, x.oos_psn & PSN_MASK).is_gt() =>
            {
                return SeqVerdict::PsnDrop
            }
            Ordering::Greater => return SeqVerdict::PsnNak,
            Ordering::Equal => {}
        }
        let op = Opcode(x.opcode);
        // the opcode sequence: a message in progress continues with its own kind's MIDDLE or
        // LAST; outside a message, anything that starts one (or a single-packet request)
        let continues = op.is_middle() || op.is_last();
        let seq_ok = if x.in_send {
            c.is_send && continues
        } else if x.in_write {
            c.is_write && continues
        } else {
            !continues
        };
        let pmtu = Self::pmtu_bytes(x.qp_pmtu);
        let len_ok = if c.is_atomic {
            x.plen == 0 && x.va % 8 == 0
        } else if c.is_read {
            x.plen == 0
        } else if op.is_first() || op.is_middle() {
            x.plen == pmtu
        } else if op.is_last() {
            (1..=pmtu).contains(&x.plen)
        } else {
            x.plen <= pmtu
        };
        let dlen_ok = !c.has_reth || x.dma_len <= 1 << 31;
        if !(seq_ok && len_ok && dlen_ok) {
            return SeqVerdict::InvalidRequest;
        }
        let acc = AccessFlags(x.qp_access);
        let has = |f: AccessFlags| acc.0 & f.0 != 0;
        let acc_ok = if c.is_write {
            has(AccessFlags::REMOTE_WRITE)
        } else if c.is_read {
            has(AccessFlags::REMOTE_READ)
        } else if c.is_atomic {
            has(AccessFlags::REMOTE_ATOMIC)
        } else {
            true
        };
        let fits = if c.is_write {
            let left = if c.has_reth {
                x.dma_len
            } else {
                x.cursor_resid
            };
            if op.ends_message() {
                x.plen == left
            } else {
                x.plen < left
            }
        } else {
            true
        };
        if !(acc_ok && fits) {
            return SeqVerdict::AccessError;
        }
        SeqVerdict::Execute
    }
}
