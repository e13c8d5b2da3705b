//! The RC responder (IBTA Vol 1, 9.7; docs/PROTOCOL.md §7): the receive engine that executes
//! requests arriving on a Reliable Connected QP and acknowledges them. [`RcWriteResponder`]
//! executes RDMA WRITE (with and without immediate) and SEND (with and without immediate) and owns
//! the receive queue: RQ doorbells, receive WQE and SGE fetch, placement into the receive SGEs,
//! receive completions, RNR NAKs, the atomics (COMPARE_SWAP, FETCH_ADD) with their replay cache,
//! and RDMA READ requests, answered by its [`read::RcReadResponder`]. (The name is older than its
//! SEND support.)
//!
//! # Blocks (one per file)
//!
//! * [`write::RcWriteResponder`]: header in, QP context and responder state look-up, the
//!   checks' verdict acted on, MR check, payload into the DMA write channel, ACK/NAK entries
//!   into the ordered ACK queue.
//! * [`sequence_check::RespSequenceCheck`]: the decision on a packet before anything of it is
//!   executed (combinational, from the responder's header and state registers): opcode class,
//!   QP state, PSN against ePSN (new / duplicate / ahead), opcode sequence, PMTU and RETH
//!   lengths, QP access rights, a WRITE's bytes against its message's rest; one verdict
//!   (execute, duplicate, NAK sequence error, NAK invalid request, NAK remote access, drop).
//! * [`wqe_fetch::RqWqeFetch`]: the receive queue's DMA reads: a receive WQE (header and its
//!   first four SGEs, as far as the slot holds them, at the RQ slot of the consumer index, the
//!   SGEs kept in a buffer) or a later SGE (from the buffer, or read: 16 bytes), decoded (wr_id,
//!   SGE count, length, SGE address, length, lkey) and checked (owner bit of the index's ring
//!   pass, SGE count within the slot, read error). After a WQE taken whole it reads the next
//!   posted one ahead (the responder gives it the QP's producer index) and answers that WQE's
//!   command from the read ahead; a QP load drops it. The responder's `WqeReq`/`WqeRx`, `SgeReq`/
//!   `SgeRx` states wait on it; `WqeChk`, `SgeLoad` and the flush's `FlCqe` act on its result.
//! * [`ack_queue::RespAckQueue`]: the ordered ACK/NAK queue. It holds every response in packet
//!   order and lets one out only after the DMA completion of every earlier write (ACK means
//!   data placed, docs/DMA.md N2); it also raises the QP-to-ERR request (`qerr_*`).
//! * [`crate::dma::PayloadMover`] (shared with the requester, which places READ responses and
//!   atomic results with it): the data mover. Every DMA write of the responder is one of its jobs
//!   (a WRITE packet's payload, a SEND piece, an atomic's result) and so is the discard of a
//!   packet's rest after a receive error; it runs one job at a time while the state machine goes
//!   on. It owns the [`crate::widget::StreamCutter`] (a shared widget), which splits a packet's
//!   payload into pieces that each start at a beat boundary: one DMA write per piece (a SEND
//!   packet spanning two receive SGEs is two pieces; a WRITE packet is one).
//! * [`counters::RespCounters`]: saturating 32-bit event counters.
//! * [`flat::RcWriteResponderFlat`]: the block with the descriptor as a flat `Bits` port, for
//!   Verilog tops and the co-simulation harness.
//!
//! # Decisions
//!
//! * **Credits**: every ACK carries syndrome 0x1F ("no end-to-end flow control", what rxe
//!   always sends, docs/PROTOCOL.md §6 / §7.3). Plain RDMA WRITE never needs credits; SEND and
//!   WRITE_WITH_IMMEDIATE would, but no credit count is advertised (the ACK queue entry carries
//!   the whole syndrome byte, so one can be added).
//! * **ACK generation and coalescing** (`cfg_ack_every`, the NIC's `CFG_ACK_COALESCE`, reset
//!   64): one ACK for every executed packet with AckReq set and every executed LAST/ONLY
//!   packet, and besides those at least one every N executed packets of a QP (a per-QP count
//!   of executed packets since the QP's last ACK, in block RAM; N = 1 acknowledges every
//!   packet, N = 0 turns the count off); one ACK for every duplicate (not executed again,
//!   PSN = the duplicate's PSN, current MSN); every NAK; every READ response and ATOMIC
//!   ACKNOWLEDGE. So a long WRITE is acknowledged while it streams (a requester with a window
//!   of PSNs retires its packets without waiting for the message's end) even from a requester
//!   that sets AckReq only on the last packet (ferroce's). Why 64: rxe's requester asks for
//!   an ACK (AckReq) every 64 packets (`RXE_MAX_PKT_PER_ACK`) and its responder answers only
//!   those, so 64 acknowledges a ferroce requester as often as rxe is; and today's requester
//!   (one message in flight per QP) gains nothing from an ACK in the middle of a message but
//!   pays for it (measured, the cause not analysed yet): with N = 16, 16 QPs x 64 KiB WRITEs both ways at PMTU
//!   1024 took 219,776 cycles instead of 184,686 (`ferroce verbs --seed 1`, docs/MEASUREMENTS.md);
//!   at 64 a 64 KiB message at PMTU 1024 gets its one ACK at the end, as before. A requester
//!   with a window of PSNs may want a smaller N (16 gives a 128-PSN window eight ACKs). An ACK with PSN p acknowledges everything up to p, so a later version may drop
//!   queued ACKs that a newer one of the same QP supersedes; this one emits them all.
//! * **Ordering**: every response (ACK, duplicate re-ACK, NAK) goes through one FIFO in packet
//!   order, and an entry whose packet wrote memory waits for that write's `done_valid` (the
//!   DMA channel completes in order, so the entries consume completions in order). A response
//!   therefore never overtakes the data placement of any earlier packet.
//! * **PSN** (24-bit, `d = psn - ePSN mod 2^24`): `d == 0` execute; `d >= 2^23` duplicate
//!   (rxe's `psn_compare < 0`); otherwise out of sequence: the first one since the last
//!   in-sequence packet sends NAK 0x60 with PSN = ePSN and sets `nak_sent`, the following ones
//!   are dropped silently (IBTA Vol 1, 9.9, class B; docs/PROTOCOL.md §7.1: the QP stays up),
//!   except when the requester has gone back: a PSN not after the QP's previous one out of
//!   sequence (kept per QP) gets the NAK again. Either the resent ePSN was lost too (the
//!   packets after it arrive a second time), or the first NAK was lost and the requester
//!   probes with the highest PSN it sent (a tail-loss probe, [`crate::req`]); without a
//!   second NAK only the requester's ACK timer would repair either (rxe stays silent there).
//! * **Errors of class C** (IBTA Vol 1, 9.9; docs/PROTOCOL.md §7.1): an in-sequence packet that
//!   breaks the opcode sequence, the PMTU length rules or the 2^31 RETH length limit gets NAK 0x61
//!   (invalid request); one whose QP lacks REMOTE_WRITE, whose payload does not fit the message's
//!   remaining length (FIRST/MIDDLE must leave at least one byte for the LAST, LAST/ONLY must
//!   finish it exactly) or whose MR check fails (bad rkey, PD, missing REMOTE_WRITE on the MR,
//!   invalidated MR, out of range) gets NAK 0x62 (remote access error; ferroce sends 0x62
//!   for the QP access flags too, which IBTA leaves to the implementation: docs/PROTOCOL.md §7.1).
//!   Nothing of such a packet is written. **The QP then goes to ERR**, as in rxe and IBA: the
//!   responder state gets its `err` flag at once (so the rest of the message and everything after
//!   it is dropped and counted in `cnt_qp_drop`, even before the CSR block has changed
//!   `QP_STATE`), and the ACK queue raises `qerr_*` after the NAK is out (status
//!   `RemAccessErr` or `RemInvReqErr`, vendor 0). Only a new load (MODIFY into RTR after
//!   RESET) clears it.
//! * **DMA errors**: a completion with `done_error` turns that packet's response into NAK
//!   0x63 (remote operational error, always sent even for a FIRST/MIDDLE without AckReq) and
//!   raises `qerr_*` with `FatalErr` / vendor `DMA` (docs/DMA.md 6); `cnt_dma_error` counts.
//!   Packets of the QP already accepted behind it still complete normally (the CSR block's
//!   ERR state stops the next ones).
//! * **MR check per packet**: FIRST/ONLY look up `{RETH.rkey, qp.pd, REMOTE_WRITE, RETH.va,
//!   RETH.dma_len, remote}` (the whole message range, so a violation anywhere writes nothing);
//!   MIDDLE/LAST look up the saved rkey at the VA cursor for their own payload length. So every
//!   remote access is checked per packet (docs/ARCHITECTURE.md), an INVALIDATE takes effect at the
//!   next packet even in the middle of a message, and the translated address always comes fresh
//!   from the table. The cursor therefore keeps the **VA** (not the translated address), the
//!   rkey and the bytes remaining. A zero-length ONLY (RETH length 0) goes through the table,
//!   which answers ok without checking (IBA C9-88), and writes nothing.
//! * **MR drain** (`mr_drain_req` / `mr_drain_ack`, the CSR MR window's INVALIDATE handshake):
//!   while `mr_drain_req` is high no new header is taken; `mr_drain_ack` rises once the block
//!   is idle and every DMA write it issued has completed.
//! * **QP states that receive**: RTR, RTS and SQD (`QpState::receives`, IBA: SQD only stops
//!   the send queue). Others, a QPN at or above 2^QA, and a QP with the `err` flag: dropped,
//!   counted in `cnt_qp_drop`, no response.
//! * **Opcodes**: RC SEND FIRST 0x00, MIDDLE 0x01, LAST 0x02, LAST_WITH_IMMEDIATE 0x03, ONLY
//!   0x04, ONLY_WITH_IMMEDIATE 0x05; RC WRITE FIRST 0x06, MIDDLE 0x07, LAST 0x08,
//!   LAST_WITH_IMMEDIATE 0x09, ONLY 0x0A, ONLY_WITH_IMMEDIATE 0x0B. Anything else (the
//!   classifier in front should not send it) is consumed, its payload drained, and counted in
//!   `cnt_unsupported`. The opcode sequence is per kind: inside a SEND only SEND MIDDLE/LAST,
//!   inside a WRITE only WRITE MIDDLE/LAST (else NAK 0x61).
//! * **Receive queue** (SEND, and WRITE_WITH_IMMEDIATE's end): per QP the block keeps the RQ
//!   producer index (from the RQ doorbells, `rqdb_*`) and consumer index. A packet that needs a
//!   receive WQE (SEND FIRST/ONLY, WRITE LAST/ONLY_WITH_IMMEDIATE after its MR check) finds the
//!   RQ empty -> **RNR NAK** (`0x20 | min_rnr_timer`, PSN = the packet's, nothing executed, the
//!   QP stays up). Otherwise the WQE at the consumer index is read by DMA (32 bytes: header and
//!   SGE 0; later SGEs 16 bytes each, when the cursor reaches them) and checked: owner bit of
//!   the index's ring pass, SGE count within the slot, readable -> else **NAK 0x63**, QP to
//!   ERR, an error completion (`LOC_QP_OP_ERR`, vendor `WQE_OWNER` / `WQE_SGE_COUNT` / `DMA`).
//!   A SEND whose bytes so far exceed the WQE's length, or whose SGEs hold less than that length
//!   says, is **NAK 0x61** with `LOC_LEN_ERR` (checked per packet before anything of it is
//!   written). Each piece of a packet (at most the rest of the current SGE) is checked in the MR
//!   table with the SGE's lkey, the QP's PD and LOCAL_WRITE, `remote = 0`: a failure is **NAK
//!   0x63** with `LOC_PROT_ERR` and the rest of the packet is discarded. The WQE's state (wr_id,
//!   SGE count and index, length, bytes so far) stays in per-QP RAMs between the packets of a
//!   SEND; its SGE cursor uses the WRITE cursor RAMs (a QP is inside one message at a time).
//! * **Receive completions**: at the end of a SEND or WRITE_WITH_IMMEDIATE (or at a receive
//!   error) a CQE (`Recv` / `RecvRdmaWithImm`, byte_len = message bytes, imm_data in wire
//!   order with `WITH_IMM`, `SOLICITED` from the SE bit, wqe_index = the RQ index) goes into a
//!   FIFO beside the ACK queue, and its ACK-queue entry releases it (`cqe_*` out, to the CQE
//!   writer) only when every DMA write before it has completed: the driver never sees a
//!   receive completion before its data. The RQ consumer index advances then.
//! * **Flat wrapper**: [`RcWriteResponderFlat`] (the block-level test harness) has no receive
//!   queue: no RQ doorbell and no DMA read port, so every SEND gets an RNR NAK there.
//! * **Atomics**: an in-sequence COMPARE_SWAP or FETCH_ADD outside a message, without
//!   payload and with an 8-byte aligned VA (else **NAK 0x61**, QP to ERR), on a QP with
//!   REMOTE_ATOMIC whose rkey passes the MR check for 8 bytes with REMOTE_ATOMIC (else **NAK
//!   0x62**, QP to ERR) is executed as a read-modify-write on host memory: the block waits
//!   until every DMA write it issued has completed (so the read sees earlier WRITEs and
//!   atomics of every QP: atomics through this NIC are atomic with respect to each other,
//!   `IBV_ATOMIC_HCA`, docs/DMA.md 2.3), reads the 8 bytes (little-endian, the host's order),
//!   writes the swap / sum, and queues an **ATOMIC ACKNOWLEDGE** with the original value that
//!   waits for the write's completion like a WRITE's ACK. A read error is NAK 0x63 and QP to
//!   ERR, with nothing written. ePSN and MSN advance by one.
//! * **RDMA READ**: an in-sequence READ request outside a message, without payload, RETH
//!   length at most 2^31 (else **NAK 0x61**), on a QP with REMOTE_READ whose rkey passes the
//!   MR check for the whole range with REMOTE_READ (else **NAK 0x62**; both QP to ERR) is
//!   queued in the ACK queue with the translated address; ePSN advances by its response
//!   count, `ceil(length / PMTU)` (at least one), MSN by one. When it reaches the queue's head
//!   the [`read::RcReadResponder`] sends its responses (DMA reads of host memory, FIRST /
//!   MIDDLE / LAST or ONLY, AETH on FIRST, LAST, ONLY) before anything queued after it, so
//!   responses and ACKs leave in PSN order. A **duplicate READ** (a requester asking again
//!   from a PSN inside an earlier READ, with the RETH of the rest) passes the same MR check
//!   and is answered again from host memory at its own PSN; ePSN does not move (docs/PROTOCOL.md
//!   §7.2: READs are replayed by re-reading, not from a cache). While an MR drain is requested, the
//!   block acknowledges only with the ACK queue empty and the read responder idle (queued
//!   READs hold translated addresses).
//! * **Atomic replay cache** ([`atomic_cache::AtomicReplayCache`], its RAM organisation is
//!   argued there): per QP the last 16 executed atomics (PSN and original value, a ring per
//!   QP, cleared by the load into RTR); 16 is the NIC's `max_dest_rd_atomic`
//!   (`ID_QP_LIMITS[23:16]`). A duplicate atomic is never executed again: the cache is
//!   searched for its PSN (newest entry first, at most 18 cycles, only for duplicates) and a
//!   hit answers it with the saved value; one older than the cache is dropped (counted as a
//!   duplicate). A duplicate READ needs no resource: it is read again (below), so every
//!   duplicate of a QP's last 16 READs and atomics is answered.
//! * **More READs/atomics than `max_dest_rd_atomic`** (IBTA Vol 1, 9.4.4 and 9.7.5.1.3: a
//!   requester must not exceed the negotiated number): the responder keeps unanswered READs
//!   and atomics in its 32-entry ACK queue (shared by all QPs); when it is full the next
//!   request waits in `Check`, so the receive path back-pressures instead of refusing. A
//!   QP's queued READs and atomics therefore never exceed 32 (all of them answered); the
//!   requester's own count (responses it has not received) is not visible here, so a
//!   requester exceeding it is slowed, not detected: no NAK 0x61 is sent for it, and only a
//!   duplicate atomic older than the cache goes unanswered.
//! * **Flush on ERR**: when a QP enters ERR (the host's MODIFY, or any engine's `qerr_*`,
//!   which the CSR block notifies like a MODIFY into ERR), the NIC top gives the block a
//!   kind-2 load: it marks the QP's receive queue as in error and walks it from the consumer
//!   to the producer index, reading each WQE's wr_id by DMA and queueing a WR_FLUSH_ERR
//!   receive completion (byte_len 0) behind every completion queued before, in the same
//!   order-keeping path. A receive posted while the QP stays in ERR is flushed right after
//!   its doorbell. Only the RQ restart (MODIFY into RESET) clears the mark. A second
//!   notification for the same QP finds nothing left to flush.
//! * **QUERY**: the RQ producer and consumer indices come from copies of the index RAMs with
//!   their own read port (`rtq_qpn` / `rtq_rq_index`).
//! * **Not yet**: SEND_WITH_INVALIDATE is unsupported.
//! * **PMTU**: the block also reads `qpc.pmtu` (the CSR port has it): FIRST/MIDDLE payload
//!   must equal the PMTU, LAST must be 1..=PMTU, ONLY 0..=PMTU (IBTA Vol 1, 9.7; docs/PROTOCOL.md
//!   §7.1, length).
//!
//! # Retransmission (what the requester's Go-Back-N needs from this block)
//!
//! Retransmitted packets reuse their PSNs. Those already executed arrive as duplicates and are
//! re-ACKed without being executed again (IBA C9-105); the first one at ePSN continues the
//! message at the saved cursor, whether it is a MIDDLE/LAST (the cursor is per QP) or the
//! whole message again from its FIRST (the FIRST is then a duplicate only if it was executed).
//! READ and atomic requests share this per-QP state (docs/PROTOCOL.md §7.2 / §7.4): a READ
//! advances ePSN by its response packet count, and the atomic replay cache sits beside it in
//! RAMs keyed by QPN.
pub mod ack_queue;
pub mod atomic_cache;
pub mod counters;
pub mod flat;
pub mod read;
pub mod sequence_check;
pub mod wqe_fetch;
pub mod write;

pub use ack_queue::RespAckQueue;
pub use atomic_cache::AtomicReplayCache;
pub use counters::RespCounters;
pub use flat::{RcWriteResponderFlat, RcWriteResponderFlat64};
pub use read::RcReadResponder;
pub use sequence_check::RespSequenceCheck;
pub use wqe_fetch::RqWqeFetch;
pub use write::{RcWriteResponder, RcWriteResponder64};

use crate::header::RoceHeader;
use ferroce_proto::host::cqe::{vendor_err, WcStatus};
use ferroce_proto::syndrome::{AethSyndrome, NakCode};
use rust_hdl::prelude::*;

/// RC RDMA WRITE opcodes (IBTA Vol 1, 9.2; docs/PROTOCOL.md §3.1).
pub const OP_WRITE_FIRST: u64 = 0x06;
pub const OP_WRITE_MIDDLE: u64 = 0x07;
pub const OP_WRITE_LAST: u64 = 0x08;
pub const OP_WRITE_LAST_IMM: u64 = 0x09;
pub const OP_WRITE_ONLY: u64 = 0x0A;
pub const OP_WRITE_ONLY_IMM: u64 = 0x0B;
/// RC ACKNOWLEDGE.
pub const OP_ACKNOWLEDGE: u64 = 0x11;

/// ACK, no end-to-end flow control (0x1F).
pub const SYN_ACK: u64 = AethSyndrome::ACK_UNLIMITED.encode() as u64;
/// RNR NAK with timer code 0 (the QP's `min_rnr_timer` goes in bits 4:0).
pub const SYN_RNR: u64 = 0x20;
/// NAK PSN sequence error (0x60).
pub const SYN_NAK_PSN: u64 = AethSyndrome::Nak(NakCode::PsnSequenceError).encode() as u64;
/// NAK invalid request (0x61).
pub const SYN_NAK_INVALID: u64 = AethSyndrome::Nak(NakCode::InvalidRequest).encode() as u64;
/// NAK remote access error (0x62).
pub const SYN_NAK_ACCESS: u64 = AethSyndrome::Nak(NakCode::RemoteAccessError).encode() as u64;
/// NAK remote operational error (0x63): the DMA write of the packet failed.
pub const SYN_NAK_OPERATIONAL: u64 =
    AethSyndrome::Nak(NakCode::RemoteOperationalError).encode() as u64;

/// `qerr_status` after a NAK 0x61.
pub const QERR_STATUS_INVALID: u64 = WcStatus::RemInvReqErr as u64;
/// `qerr_status` after a NAK 0x62.
pub const QERR_STATUS_ACCESS: u64 = WcStatus::RemAccessErr as u64;
/// `qerr_status` after a failed DMA write.
pub const QERR_STATUS_DMA: u64 = WcStatus::FatalErr as u64;
/// `qerr_vendor` after a failed DMA write (0 otherwise).
pub const QERR_VENDOR_DMA: u64 = vendor_err::DMA as u64;

/// Address bits of the ACK queue (32 entries). It also bounds the DMA writes in flight. A READ
/// request waits at the queue's head until the READ responder takes it (one READ at a time), so
/// the queue must hold the READ requests that arrive meanwhile: with 8 entries, 16 QPs each
/// asking a 64 KiB READ at once filled it, the responder stopped draining the receive FIFO, and
/// the READ responses arriving for this NIC's own requester were dropped (docs/MEASUREMENTS.md).
pub const ACKQ_BITS: usize = 5;
/// log2 of the depth of the ACK queue's parking FIFO: responses (ACKs, NAKs, atomic ACKs,
/// READs to answer) that wait there while PFC pauses the RoCE priority ([`RespAckQueue`]).
pub const PARK_BITS: usize = 4;

/// One entry of the ordered ACK queue (a `LogicStruct`, so it fits a rust-hdl FIFO).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct AckEntry {
    /// The packet issued a DMA write: wait for its completion before responding.
    pub need_done: Bit,
    /// Send a response (otherwise the entry only consumes the completion).
    pub emit: Bit,
    /// After the response, ask the CSR block to move the QP to ERR.
    pub qerr: Bit,
    /// Before the response, release the next receive completion (the responder's CQE FIFO
    /// holds it): a receive CQE is written only after its message's data has landed.
    pub cqe: Bit,
    pub qerr_status: Bits<8>,
    /// Our QPN (the BTH destination QP of the request; < 2^QA).
    pub qpn: Bits<24>,
    /// The requester's QPN (BTH destination QP of the response).
    pub dest_qpn: Bits<24>,
    pub psn: Bits<24>,
    pub syndrome: Bits<8>,
    pub msn: Bits<24>,
    /// The response is an ATOMIC ACKNOWLEDGE carrying `orig` (AtomicAckETH), not an
    /// ACKNOWLEDGE.
    pub atomic: Bit,
    /// The atomic's original remote value (a number; the wire carries it big-endian).
    pub orig: Bits<64>,
    /// The entry is an RDMA READ to answer (by the read responder, with `raddr`, `rlen`,
    /// `rpmtu`) instead of an ACK.
    pub read: Bit,
    pub raddr: Bits<64>,
    pub rlen: Bits<32>,
    pub rpmtu: Bits<3>,
}

/// The responder's per-QP flags (one block-RAM word per QP, written back once per packet).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct RespQpFlags {
    /// A PSN sequence NAK was sent; later out-of-sequence packets are dropped silently until
    /// an in-sequence one.
    pub nak_sent: Bit,
    /// A WRITE FIRST/MIDDLE was executed: the message continues (MIDDLE/LAST expected).
    pub in_write: Bit,
    /// This responder moved the QP to ERR: everything after is dropped.
    pub err: Bit,
    /// A SEND FIRST/MIDDLE was executed: the message continues.
    pub in_send: Bit,
}

/// The verdict of [`RespSequenceCheck`] on a request, registered for the responder's `Check`
/// state (at most one set; none set: execute). A register between the check's logic and
/// everything `Check` drives (the ACK queue, the flag RAM, the next state) keeps the two out
/// of one clock period.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct SeqVerdictFlags {
    pub unsupported: Bit,
    pub qp_drop: Bit,
    pub dup_atomic: Bit,
    pub dup_read: Bit,
    pub dup: Bit,
    pub psn_nak: Bit,
    pub psn_drop: Bit,
    pub invalid: Bit,
    pub access: Bit,
}

/// One receive completion, queued by the responder until its message's data is placed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct RecvCqe {
    pub cqn: Bits<16>,
    pub wr_id: Bits<64>,
    pub byte_len: Bits<32>,
    /// immediate data in wire order (first byte in the MSBs)
    pub imm: Bits<32>,
    pub qpn: Bits<24>,
    pub src_qp: Bits<24>,
    pub wqe_index: Bits<16>,
    pub vendor: Bits<8>,
    pub flags: Bits<8>,
    pub status: Bits<8>,
    pub opcode: Bits<8>,
}

/// One response as it leaves the block (`ack_*` while `ack_valid`), in plain Rust.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct AckOut {
    pub qpn: u32,
    pub dest_qpn: u32,
    pub psn: u32,
    pub syndrome: u8,
    pub msn: u32,
}

/// Plain-Rust helper (simulator glue, tests): the ACKNOWLEDGE descriptor answering `req`
/// (the request's descriptor) with `ack`. Addresses and ports are the request's swapped
/// (the NIC top takes them from the QP's address vector instead), BTH as rxe sends an ACK:
/// opcode 0x11, P_Key 0xFFFF, no AckReq, DestQP = the requester's QPN, AETH = syndrome/MSN,
/// no payload.
pub fn ack_descriptor(req: &RoceHeader, ack: &AckOut) -> RoceHeader {
    RoceHeader {
        eth_dst: req.eth_src,
        eth_src: req.eth_dst,
        vlan: req.vlan,
        vlan_pcp: req.vlan_pcp,
        vlan_dei: req.vlan_dei,
        vlan_vid: req.vlan_vid,
        l3: req.l3,
        tclass: req.tclass,
        hop_limit: 64.into(),
        ip4_src: req.ip4_dst,
        ip4_dst: req.ip4_src,
        ip6_src: req.ip6_dst,
        ip6_dst: req.ip6_src,
        flow_label: req.flow_label,
        udp_sport: req.udp_sport,
        udp_dport: 4791.into(),
        opcode: OP_ACKNOWLEDGE.into(),
        pkey: 0xFFFF.into(),
        dest_qp: (ack.dest_qpn as u64 & 0xFF_FFFF).into(),
        psn: (ack.psn as u64 & 0xFF_FFFF).into(),
        aeth_syndrome: (ack.syndrome as u64).into(),
        aeth_msn: (ack.msn as u64 & 0xFF_FFFF).into(),
        ..Default::default()
    }
}
