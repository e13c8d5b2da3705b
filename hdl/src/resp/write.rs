//! [`RcWriteResponder`]: the RC responder for RDMA WRITE and SEND, with the receive queue
//! (IBTA Vol 1, 9.7; docs/PROTOCOL.md §7; decisions in the [module documentation](super)).
//!
//! # Ports
//!
//! * Request in: `hdr_valid`/`hdr_ready`/`hdr` ([`RoceHeader`]) and `pay` (message data only,
//!   first byte in the top byte of the beat, `last` on the final beat, no beats for an empty
//!   payload), exactly [`crate::rx::RxParser`]'s outputs: the payload of a frame follows its
//!   header; the next header may come before the previous payload's last beat (payloads come in
//!   header order).
//! * QP context read `qpc` ([`QpcReadMaster`]; the CSR block's engine port, fixed latency 2,
//!   the NIC's priority reader): `qpc.rd_valid`, `qpc.rd_qpn` out; `qpc.state`, `qpc.access`,
//!   `qpc.pd`, `qpc.dest_qpn`, `qpc.pmtu`, `qpc.rq_psn` read 2 cycles after the request (they
//!   need not hold afterwards). `qpc.rd_ready` and `qpc.valid` are not looked at (the read is
//!   always taken, the data always come 2 cycles later), nor are the requester's fields.
//! * Responder state load: `load_valid`/`load_ready`/`load_qpn`/`load_kind`: kind 0
//!   (re)initialises the QP's responder state from its QP context (ePSN = `qpc.rq_psn`, MSN 0,
//!   no message in progress, flags clear): the NIC top raises it for every MODIFY into RTR;
//!   kind 1 restarts the receive queue (producer and consumer index 0, flags clear): MODIFY
//!   into RESET or RESET->INIT. The receive queue's geometry comes with the QP context
//!   (`qpc.rq_base`, `qpc.rq_log2_entries`, `qpc.rq_log2_stride`, `qpc.recv_cqn`,
//!   `qpc.min_rnr_timer`).
//!   Kind 2: the QP entered ERR: its posted receives are flushed (WR_FLUSH_ERR completions,
//!   see the module documentation), and so are those posted while it stays in ERR.
//! * RQ doorbells: `rqdb_valid`/`rqdb_ready`/`rqdb_qpn`/`rqdb_pi` (the new producer index).
//! * Runtime query: `rtq_qpn` in, `rtq_rq_index` out one cycle later (QUERY's QP_RQ_INDEX).
//! * DMA read master `dma_rd`: receive WQEs (32 bytes) and SGEs (16 bytes), issued by the
//!   [`RqWqeFetch`], and an atomic's 8 bytes (`AtRd`, `AtRx`); one read at a time (an
//!   atomic's waits while `RqWqeFetch` reads the next receive WQE ahead, `wqf.busy`).
//! * Receive completions: `cqe_valid`/`cqe_ready` and the CQE fields (`cqe_cqn`, `cqe_wr_id`,
//!   `cqe_byte_len`, `cqe_imm`, `cqe_qpn`, `cqe_src_qp`, `cqe_wqe_index`, `cqe_vendor`,
//!   `cqe_flags`, `cqe_status`, `cqe_opcode`), as the CQE writer takes them.
//! * MR lookup master: `mr_req_*` out, `mr_resp_*` in ([`crate::mr::MrTable`]'s port: response
//!   5 cycles after acceptance, no back-pressure; one lookup outstanding at a time here).
//!   `mr_drain_req` in / `mr_drain_ack` out: the INVALIDATE drain handshake.
//! * DMA write master `dma_wr` ([`DmaWriteMaster`], docs/DMA.md): one write per WRITE packet
//!   with a non-empty payload and one per piece of a SEND packet (a piece ends at an SGE end),
//!   `req_tag` = low 8 bits of the QPN; the port is the [`PayloadMover`]'s (the payload is cut
//!   by its [`crate::widget::StreamCutter`] and leaves through a register slice).
//! * Responses: `ack_valid`/`ack_ready`, `ack_qpn` (ours), `ack_dest_qpn`, `ack_psn`,
//!   `ack_syndrome` (AETH syndrome byte), `ack_msn`. `ack_park` in: the TX path is paused by
//!   PFC, so responses (ACKs, NAKs, atomic ACKs, READs) at the head of the ACK queue move
//!   aside instead of holding the responder (see [`RespAckQueue`]); `ack_parked` out: one
//!   pulse per response parked.
//! * QP to ERR: `qerr_valid`/`qerr_ready`, `qerr_qpn`, `qerr_status`, `qerr_vendor` (the CSR
//!   block's `qerr_*` port).
//! * Counters `cnt_*` (32-bit, saturating, see [`super::counters::RespCounters`]).
//!
//! # Sub-blocks
//!
//! [`RespSequenceCheck`] (the PSN, opcode-sequence, QP, length and access checks and the opcode
//! class), [`RqWqeFetch`] (the receive queue's WQE and SGE reads, decoded and checked),
//! [`RespAckQueue`], [`RcReadResponder`], [`PayloadMover`] (the data mover), [`AtomicReplayCache`],
//! [`RespCounters`], and a FIFO of receive completions.
//!
//! # Per-QP state (block RAM, `2^QA` rows, zero at power-up)
//!
//! ePSN (24), the PSN of the latest packet out of sequence (24: while `nak_sent`, a PSN not
//! after it is NAKed again, [`super::RespSequenceCheck`]), MSN (24), the flags
//! ([`super::RespQpFlags`]: `nak_sent`, `in_write`, `err`,
//! `in_send`), the executed packets since the QP's last ACK (8, ACK coalescing), and the WRITE
//! cursor: VA (64, as two 32-bit RAMs: 32-bit values simulate much faster), rkey (32) and bytes
//! remaining (32). Read at the address of the packet's QPN, written back once per packet. The
//! atomic replay cache is its own block ([`super::AtomicReplayCache`]).
//!
//! # Timing
//!
//! One packet header at a time, in this order of states: `Idle` (header taken) -> `Rd` (QP
//! context and state RAM read) -> `RdWait` -> `Latch` (both registered) -> `Judge` (the verdict
//! of [`RespSequenceCheck`], combinational from those registers, is registered) -> `Check`
//! (acts on it; waits while the ACK queue is full) -> `MrReq` -> `MrWait` (5 cycles) ->
//! `Commit` (state written, response queued). No payload is moved by the state machine: it
//! hands each DMA write to the data mover ([`PayloadMover`]) as a job (a WRITE packet's payload
//! from `Commit`, a SEND piece from `Xfer`, the rest of a packet after a receive error from
//! `DrainCut`, an atomic's new value from `AtWr`), which issues the write and streams its beats
//! from `pay` to `dma_wr.data`, while the state machine goes on: with the next piece, or with
//! the next header (the RX parser presents it ahead of the payload, see
//! [`crate::rx::RxParser`]'s `hdr_ahead_ok`). The mover holds one job at a time and takes them
//! in order, so payloads and DMA writes stay in packet order; a job's ACK-queue entry is pushed
//! when the job is handed over, before its write is issued, so entries match their completions
//! in order. `Drain` (a packet discarded whole, read from `pay` here) and `AtWait` wait until
//! the mover is idle. The state
//! written at `Commit` does not depend on the data's transfer, so the next packet of the same
//! QP reads it back correctly. So a stream of WRITE packets costs one cycle per payload beat
//! plus the mover's hand-over: 131 cycles per 1 KiB packet in the block bench
//! (`write_packets_taken_at_line_rate`), under the 136 beats of its frame on the link; the
//! header's 13 cycles are hidden. A packet that is not executed goes from `Check` or `MrWait` to
//! `Drain` (payload discarded) or straight back to `Idle`. A SEND adds, per packet that opens a
//! receive WQE, the WQE read (`WqeReq` -> `WqeRx` -> `WqeChk`, the read by the
//! [`RqWqeFetch`]), then per piece `PlaceNext` -> (`SgeReq` -> `SgeRx` -> `SgeLoad` when the SGE
//! is used up) -> `MrReq` -> `MrWait` -> `Xfer` (the piece handed to the mover, which moves it
//! while the next piece is prepared); a receive error goes through `RecvErr` (its NAK and error
//! completion) and `DrainCut`.
use super::atomic_cache::{AT_OP_CLEAR, AT_OP_INSERT, AT_OP_LOOKUP};
use super::{
    AtomicReplayCache, RcReadResponder, RecvCqe, RespAckQueue, RespCounters, RespQpFlags,
    RespSequenceCheck, RqWqeFetch, SeqVerdictFlags, ACKQ_BITS, QERR_STATUS_ACCESS, QERR_STATUS_DMA,
    QERR_STATUS_INVALID, SYN_ACK, SYN_NAK_ACCESS, SYN_NAK_INVALID, SYN_NAK_OPERATIONAL,
    SYN_NAK_PSN, SYN_RNR,
};
use crate::csr::qp_config::{ACC_W, CQN_W, LOG2E_W, LOG2S_W, PMTU_W, RNR_W, ST_W};
use crate::csr::qpc_port::QpcReadMaster;
use crate::dma::{DmaReadMaster, DmaWriteMaster, PayloadMover};
use crate::header::RoceHeader;
use crate::stream::{StreamSink, StreamSource};
use crate::widget::ByteSwap64;
use ferroce_proto::host::cqe::{flags as cqe_flags, vendor_err, CqeOpcode, WcStatus};
use rust_hdl::prelude::*;

// The kernel writes the CQE flags as literals (rust-hdl emits a named constant as an undeclared
// Verilog identifier); this assertion ties them to `ferroce_proto`, the one definition. (The
// receive WQE and SGE layouts are [`super::RqWqeFetch`]'s.)
const _: () = assert!(cqe_flags::WITH_IMM == 1 && cqe_flags::SOLICITED == 4);

/// The default build: 64-bit datapath, 256 QPs.
pub type RcWriteResponder64 = RcWriteResponder<8>;

// The READ and atomic opcodes the kernel decodes as literals (12, 19, 20), and the ACK
// opcodes it sends (17, 18), tied to `ferroce_proto`; the ACK queue's PMTU field is 3 bits.
const _: () = assert!(
    ferroce_proto::wire::Opcode::RC_RDMA_READ_REQUEST.0 == 12
        && ferroce_proto::wire::Opcode::RC_COMPARE_SWAP.0 == 19
        && ferroce_proto::wire::Opcode::RC_FETCH_ADD.0 == 20
        && ferroce_proto::wire::Opcode::RC_ACKNOWLEDGE.0 == 17
        && ferroce_proto::wire::Opcode::RC_ATOMIC_ACKNOWLEDGE.0 == 18
        && PMTU_W == 3
);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum WrState {
    /// waiting: a QP load (MODIFY) first, then an RQ doorbell, then a request header
    Idle,
    /// a QP load: the QP context is read at the loaded QPN
    LoadRd,
    /// a QP load: the context read's latency
    LoadWait,
    /// a QP load: into RTR, ePSN / MSN / flags reset; an RQ restart, its indices reset; into
    /// ERR, the RQ's flush begins
    LoadWrite,
    /// a request: the QP context and the per-QP state RAMs are read at its DestQP
    Rd,
    /// a request: the reads' latency
    RdWait,
    /// a request: the context and the state registered (the sequence check's inputs)
    Latch,
    /// the sequence check works on the latched packet and QP; its verdict is registered
    Judge,
    /// acts on the verdict: execute, re-ACK, NAK, drop (waits for room in the ACK queue)
    Check,
    /// the MR check of the packet's target (rkey, or the receive SGE's lkey) is asked
    MrReq,
    /// the MR check's answer (5 cycles): go on, or NAK remote access error
    MrWait,
    /// a SEND piece to the mover, with its completion entry; the SGE cursor advances
    Xfer,
    /// executed: response queued, ePSN / MSN / cursors written back, a WRITE's payload handed
    /// to the data mover (waits while the mover still has the previous one)
    Commit,
    /// a packet not executed: its payload is discarded
    Drain,
    /// a SEND that opens a message: the receive WQE at the RQ consumer index is fetched
    WqeReq,
    /// the WQE fetch's answer
    WqeRx,
    /// the receive WQE checked (owner, SGE count, readable)
    WqeChk,
    /// the SEND must fit the receive WQE's total length
    SendLen,
    /// the next piece of a SEND's payload: the rest of the current SGE or of the packet
    PlaceNext,
    /// the receive WQE's next SGE is fetched
    SgeReq,
    /// the SGE fetch's answer
    SgeRx,
    /// the SGE becomes the cursor
    SgeLoad,
    /// after a receive error: the packet's uncut rest goes to the mover as a discard
    DrainCut,
    /// a receive error: its NAK and error completion (handled after the state machine)
    RecvErr,
    /// an atomic waits until every DMA write this block issued has completed
    AtWait,
    /// an atomic: the 8-byte read of its target
    AtRd,
    /// an atomic: the original value arrives
    AtRx,
    /// an atomic: the new value to the mover as a word job (or a failed read NAKed)
    AtWr,
    /// an atomic: ACK queued once the write completed, the result into the replay cache
    AtDone,
    /// a duplicate atomic: its lookup in the replay cache, then its answer (or nothing)
    AtDup,
    /// an RQ doorbell: the QP's receive-error flag is read
    DbWait,
    /// an RQ doorbell: a QP in receive error goes on to flush its new WQEs
    DbChk,
    /// an RQ flush: the producer and consumer indices are read
    FlWait,
    /// an RQ flush: the indices registered
    FlLatch,
    /// an RQ flush: the next WQE (through `WqeReq`, for its wr_id), or the consumer index
    /// written back at the producer index
    FlNext,
    /// an RQ flush: the WR_FLUSH_ERR completion of that WQE is queued
    FlCqe,
}

#[derive(LogicBlock)]
pub struct RcWriteResponder<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- request ----
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_ready: Signal<Out, Bit>,
    pub hdr: Signal<In, RoceHeader>,
    pub pay: StreamSink<64, 8>,
    // ---- QP context read port (latency 2) ----
    pub qpc: QpcReadMaster<QA>,
    /// ACK coalescing (`CFG_ACK_COALESCE`): at least one ACK every this many executed
    /// packets of a QP, besides every AckReq packet and message end (1: every packet; 0: no
    /// count)
    pub cfg_ack_every: Signal<In, Bits<8>>,
    // ---- responder state load ----
    pub load_valid: Signal<In, Bit>,
    pub load_ready: Signal<Out, Bit>,
    pub load_qpn: Signal<In, Bits<QA>>,
    /// 0: MODIFY into RTR (load ePSN, clear the message state); 1: the receive queue starts
    /// over (MODIFY RESET->INIT or into RESET: RQ indices 0, flags clear)
    /// 2: the QP entered ERR (a MODIFY into ERR, or an engine moved it there): every posted
    /// receive WQE completes with WR_FLUSH_ERR, and so does every one posted while it stays
    /// in ERR (until the kind-1 restart)
    pub load_kind: Signal<In, Bits<2>>,
    // ---- RQ doorbells ----
    pub rqdb_valid: Signal<In, Bit>,
    pub rqdb_ready: Signal<Out, Bit>,
    pub rqdb_qpn: Signal<In, Bits<QA>>,
    pub rqdb_pi: Signal<In, Bits<16>>,
    // ---- runtime query (QUERY's QP_RQ_INDEX) ----
    /// the queried QP (held by the CSR block until its answer); `rtq_rq_index` follows one
    /// cycle later: 31:16 consumer index, 15:0 producer index
    pub rtq_qpn: Signal<In, Bits<QA>>,
    pub rtq_rq_index: Signal<Out, Bits<32>>,
    // ---- MR lookup master ----
    pub mr_req_valid: Signal<Out, Bit>,
    pub mr_req_ready: Signal<In, Bit>,
    pub mr_req_key: Signal<Out, Bits<32>>,
    pub mr_req_pd: Signal<Out, Bits<24>>,
    pub mr_req_need: Signal<Out, Bits<4>>,
    pub mr_req_va: Signal<Out, Bits<64>>,
    pub mr_req_len: Signal<Out, Bits<64>>,
    pub mr_req_remote: Signal<Out, Bit>,
    pub mr_req_tag: Signal<Out, Bits<8>>,
    pub mr_resp_valid: Signal<In, Bit>,
    pub mr_resp_ok: Signal<In, Bit>,
    pub mr_resp_code: Signal<In, Bits<3>>,
    pub mr_resp_zero: Signal<In, Bit>,
    pub mr_resp_addr: Signal<In, Bits<64>>,
    pub mr_resp_remote: Signal<In, Bit>,
    pub mr_resp_tag: Signal<In, Bits<8>>,
    pub mr_drain_req: Signal<In, Bit>,
    pub mr_drain_ack: Signal<Out, Bit>,
    // ---- DMA write master ----
    pub dma_wr: DmaWriteMaster<64, 8>,
    // ---- DMA read master (receive WQEs and SGEs) ----
    pub dma_rd: DmaReadMaster<64, 8>,
    // ---- receive completions (to the CQE writer) ----
    pub cqe_valid: Signal<Out, Bit>,
    pub cqe_ready: Signal<In, Bit>,
    pub cqe_cqn: Signal<Out, Bits<CQN_W>>,
    pub cqe_wr_id: Signal<Out, Bits<64>>,
    pub cqe_byte_len: Signal<Out, Bits<32>>,
    pub cqe_imm: Signal<Out, Bits<32>>,
    pub cqe_qpn: Signal<Out, Bits<24>>,
    pub cqe_src_qp: Signal<Out, Bits<24>>,
    pub cqe_wqe_index: Signal<Out, Bits<16>>,
    pub cqe_vendor: Signal<Out, Bits<8>>,
    pub cqe_flags: Signal<Out, Bits<8>>,
    pub cqe_status: Signal<Out, Bits<8>>,
    pub cqe_opcode: Signal<Out, Bits<8>>,
    // ---- responses ----
    pub ack_valid: Signal<Out, Bit>,
    pub ack_ready: Signal<In, Bit>,
    pub ack_qpn: Signal<Out, Bits<QA>>,
    pub ack_dest_qpn: Signal<Out, Bits<24>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub ack_syndrome: Signal<Out, Bits<8>>,
    pub ack_msn: Signal<Out, Bits<24>>,
    /// the response's opcode: ACKNOWLEDGE, ATOMIC ACKNOWLEDGE (with `ack_orig`) or a
    /// READ_RESPONSE (with `ack_plen` bytes of payload on `rpay`)
    pub ack_opcode: Signal<Out, Bits<8>>,
    pub ack_orig: Signal<Out, Bits<64>>,
    pub ack_plen: Signal<Out, Bits<13>>,
    /// the TX path is paused (PFC): park responses (ACKs, NAKs, atomic ACKs, READs) instead
    /// of waiting for it
    pub ack_park: Signal<In, Bit>,
    /// one-cycle pulse per response parked
    pub ack_parked: Signal<Out, Bit>,
    /// READ response payload, in the order of the READ_RESPONSE headers on `ack_*`
    pub rpay: StreamSource<64, 8>,
    /// valid with `rpay` beats: the response's payload read failed (poison the frame)
    pub rpay_bad: Signal<Out, Bit>,
    /// the READ responder's payload reads
    pub rd_dma: DmaReadMaster<64, 8>,
    // ---- QP to ERR ----
    pub qerr_valid: Signal<Out, Bit>,
    pub qerr_ready: Signal<In, Bit>,
    pub qerr_qpn: Signal<Out, Bits<QA>>,
    pub qerr_status: Signal<Out, Bits<8>>,
    pub qerr_vendor: Signal<Out, Bits<8>>,
    // ---- counters ----
    pub cnt_executed: Signal<Out, Bits<32>>,
    pub cnt_duplicate: Signal<Out, Bits<32>>,
    pub cnt_psn_err: Signal<Out, Bits<32>>,
    pub cnt_access_err: Signal<Out, Bits<32>>,
    pub cnt_invalid: Signal<Out, Bits<32>>,
    pub cnt_unsupported: Signal<Out, Bits<32>>,
    pub cnt_qp_drop: Signal<Out, Bits<32>>,
    pub cnt_dma_error: Signal<Out, Bits<32>>,
    pub cnt_rnr: Signal<Out, Bits<32>>,
    pub cnt_recv: Signal<Out, Bits<32>>,
    /// one-cycle pulse per duplicate request (re-ACKed or replayed, not executed)
    pub ev_duplicate: Signal<Out, Bit>,
    /// one-cycle pulses per request dropped: QPN not implemented, QP not receiving (state or
    /// ERR), PSN ahead of the expected one (NAKed once, then dropped)
    pub ev_unknown_qp: Signal<Out, Bit>,
    pub ev_qp_state: Signal<Out, Bit>,
    pub ev_out_of_seq: Signal<Out, Bit>,

    ackq: RespAckQueue<QA>,
    /// the receive queue's reads: a receive WQE (header and SGE 0) or one later SGE, decoded
    /// and checked
    wqf: RqWqeFetch,
    /// the PSN, opcode-sequence, QP, length and access checks of the packet in the header
    /// registers, and its opcode class (combinational)
    seqchk: RespSequenceCheck<QA>,
    /// sends the responses of the READ at the head of the ACK queue
    rdr: RcReadResponder<QA>,
    /// the READ being checked is a duplicate (answered again, ePSN unchanged)
    r_rddup: DFF<Bit>,
    /// response packets of the READ: ceil(length / PMTU), at least 1
    rd_np: Signal<Local, Bits<32>>,
    rd_sh: Signal<Local, Bits<5>>,
    head_read: Signal<Local, Bit>,
    /// The data mover: owns the payload stream's cutter and the DMA write port; takes a WRITE
    /// packet's payload, a SEND piece, a discard or an atomic's write as a job (see Timing).
    mover: PayloadMover,
    cqf: SynchronousFIFO<RecvCqe, ACKQ_BITS, { ACKQ_BITS + 1 }, 1>,
    counters: RespCounters,
    // per-QP responder state
    ram_epsn: RAM<Bits<24>, QA>,
    /// the PSN of the QP's latest packet out of sequence (what it is compared with while
    /// `nak_sent`: a PSN not after it means the requester has gone back)
    ram_oos: RAM<Bits<24>, QA>,
    ram_msn: RAM<Bits<24>, QA>,
    ram_flags: RAM<RespQpFlags, QA>,
    /// the flag words the kernel writes whole (no struct literals in a kernel)
    c_fl_clear: Constant<RespQpFlags>,
    c_fl_err: Constant<RespQpFlags>,
    c_fl_in_write: Constant<RespQpFlags>,
    c_fl_in_send: Constant<RespQpFlags>,
    /// executed packets of the QP since its last ACK (ACK coalescing)
    ram_nack: RAM<Bits<8>, QA>,
    n_nack: Signal<Local, Bits<8>>,
    ack_due: Signal<Local, Bit>,
    ram_va_hi: RAM<Bits<32>, QA>,
    ram_va_lo: RAM<Bits<32>, QA>,
    ram_rkey: RAM<Bits<32>, QA>,
    ram_resid: RAM<Bits<32>, QA>,
    // per-QP receive queue state: producer index (doorbells), consumer index, and the
    // receive WQE of the SEND in progress (wr_id, SGE count and index, capacity, bytes so far;
    // its SGE cursor lives in the WRITE cursor RAMs: a QP is in one message at a time)
    ram_rqpi: RAM<Bits<16>, QA>,
    ram_rqci: RAM<Bits<16>, QA>,
    ram_wrid_hi: RAM<Bits<32>, QA>,
    ram_wrid_lo: RAM<Bits<32>, QA>,
    ram_sge: RAM<Bits<16>, QA>,
    ram_cap: RAM<Bits<32>, QA>,
    ram_mlen: RAM<Bits<32>, QA>,
    /// the QP's receive queue is in ERR: posted receives are flushed (set by a kind-2 load,
    /// cleared by the kind-1 restart)
    ram_rqerr: RAM<Bits<1>, QA>,
    /// copies of the RQ indices, read at `rtq_qpn` (the query's own read port)
    ram_qrpi: RAM<Bits<16>, QA>,
    ram_qrci: RAM<Bits<16>, QA>,
    /// the WQE read in progress is a flush (WqeRx continues to FlCqe)
    r_fl: DFF<Bit>,
    /// the atomic replay cache: per QP the last 16 executed atomics (PSN, original value)
    atc: AtomicReplayCache<QA>,
    /// the duplicate atomic's lookup has been taken by the cache
    r_atq: DFF<Bit>,
    /// the atomic: swap (or add) and compare data, the value read (a beat, memory order)
    r_swap: DFF<Bits<64>>,
    r_cmp: DFF<Bits<64>>,
    r_old: DFF<Bits<64>>,
    c_at_lookup: Constant<Bits<2>>,
    c_at_insert: Constant<Bits<2>>,
    c_at_clear: Constant<Bits<2>>,
    old_v: Signal<Local, Bits<64>>,
    new_v: Signal<Local, Bits<64>>,

    state: DFF<WrState>,
    // the header fields this block uses, taken in Idle
    r_op: DFF<Bits<8>>,
    r_qpn: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    r_ackreq: DFF<Bit>,
    r_va_hi: DFF<Bits<32>>,
    r_va_lo: DFF<Bits<32>>,
    r_rkey: DFF<Bits<32>>,
    r_dlen: DFF<Bits<32>>,
    r_plen: DFF<Bits<13>>,
    r_imm: DFF<Bits<32>>,
    r_se: DFF<Bit>,
    // QP context
    r_qst: DFF<Bits<ST_W>>,
    r_qacc: DFF<Bits<ACC_W>>,
    r_qpd: DFF<Bits<24>>,
    r_qdest: DFF<Bits<24>>,
    r_pmtu: DFF<Bits<PMTU_W>>,
    r_rqbase: DFF<Bits<64>>,
    r_rqle: DFF<Bits<LOG2E_W>>,
    r_rqls: DFF<Bits<LOG2S_W>>,
    r_rcqn: DFF<Bits<CQN_W>>,
    r_rnrt: DFF<Bits<RNR_W>>,
    // responder state of the packet's QP
    s_epsn: DFF<Bits<24>>,
    s_oos: DFF<Bits<24>>,
    s_msn: DFF<Bits<24>>,
    s_flags: DFF<RespQpFlags>,
    /// the sequence check's verdict, one cycle after its inputs (loaded every cycle; `Judge`
    /// waits for it)
    verdict: DFF<SeqVerdictFlags>,
    s_va_hi: DFF<Bits<32>>,
    s_va_lo: DFF<Bits<32>>,
    s_rkey: DFF<Bits<32>>,
    s_resid: DFF<Bits<32>>,
    s_rqpi: DFF<Bits<16>>,
    s_rqci: DFF<Bits<16>>,
    s_wrid: DFF<Bits<64>>,
    s_nsge: DFF<Bits<8>>,
    s_sidx: DFF<Bits<8>>,
    s_cap: DFF<Bits<32>>,
    s_mlen: DFF<Bits<32>>,
    // load
    r_lqpn: DFF<Bits<QA>>,
    r_lkind: DFF<Bits<2>>,
    // receive placement: bytes of the packet still to place, the current piece, whether the
    // MR lookup is for a receive SGE, the WQE/SGE beats read by DMA and their count
    p_rem: DFF<Bits<16>>,
    r_n: DFF<Bits<16>>,
    r_place: DFF<Bit>,
    /// the atomic's read carried a DMA error
    at_err: DFF<Bit>,
    // a receive error being reported: NAK syndrome, completion status and vendor detail
    e_syn: DFF<Bits<8>>,
    e_st: DFF<Bits<8>>,
    e_vendor: DFF<Bits<8>>,
    // MR request and execution
    r_mkey: DFF<Bits<32>>,
    r_mva: DFF<Bits<64>>,
    r_mlen: DFF<Bits<64>>,
    r_addr: DFF<Bits<64>>,
    /// DMA writes issued and not completed (bounded by the ACK queue depth + 1).
    dma_out: DFF<Bits<8>>,

    c_syn_ack: Constant<Bits<8>>,
    c_syn_psn: Constant<Bits<8>>,
    c_syn_inv: Constant<Bits<8>>,
    c_syn_acc: Constant<Bits<8>>,
    c_st_inv: Constant<Bits<8>>,
    c_st_acc: Constant<Bits<8>>,
    c_syn_rnr: Constant<Bits<8>>,
    c_syn_op: Constant<Bits<8>>,
    // receive completion status, vendor detail and opcode (from ferroce_proto)
    c_st_len: Constant<Bits<8>>,
    c_st_qpop: Constant<Bits<8>>,
    c_st_prot: Constant<Bits<8>>,
    c_v_owner: Constant<Bits<8>>,
    c_v_sge: Constant<Bits<8>>,
    c_v_dma: Constant<Bits<8>>,
    c_op_recv: Constant<Bits<8>>,
    c_op_recv_imm: Constant<Bits<8>>,
    c_st_fatal: Constant<Bits<8>>,
    c_st_flush: Constant<Bits<8>>,

    // ---- locals ----
    hva: Signal<Local, Bits<64>>,
    plen32: Signal<Local, Bits<32>>,
    resid: Signal<Local, Bits<32>>,
    base_hi: Signal<Local, Bits<32>>,
    base_lo: Signal<Local, Bits<32>>,
    n_va_lo: Signal<Local, Bits<32>>,
    n_va_hi: Signal<Local, Bits<32>>,
    n_msn: Signal<Local, Bits<24>>,
    n_epsn: Signal<Local, Bits<24>>,
    emit: Signal<Local, Bit>,
    /// a DMA write request is taken this cycle
    req_fire: Signal<Local, Bit>,
    /// the packet being committed is a WRITE with payload: the mover takes it
    mv_need: Signal<Local, Bit>,
    wr_qpn: Signal<Local, Bits<QA>>,
    // receive queue decode
    rq_empty: Signal<Local, Bit>,
    mlen_base: Signal<Local, Bits<32>>,
    n_mlen: Signal<Local, Bits<32>>,
    cap_need: Signal<Local, Bits<33>>,
    p_rem32: Signal<Local, Bits<32>>,
    piece: Signal<Local, Bits<32>>,
    c_va_lo: Signal<Local, Bits<32>>,
    /// a receive error: NAK `rerr_syn`, QP to ERR with `rerr_st`, and an error receive CQE
    rerr: Signal<Local, Bit>,
    rerr_syn: Signal<Local, Bits<8>>,
    rerr_st: Signal<Local, Bits<8>>,
    rerr_vendor: Signal<Local, Bits<8>>,
    /// queue a receive CQE (with the entry pushed this cycle)
    cq_push: Signal<Local, Bit>,
    cq_flags: Signal<Local, Bits<8>>,
    /// RecvErr reports this cycle
    rep: Signal<Local, Bit>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_old: ByteSwap64,
    le_new: ByteSwap64,
}

impl<const QA: usize> Default for RcWriteResponder<QA> {
    fn default() -> Self {
        assert!(
            (1..=23).contains(&QA),
            "RcWriteResponder: QA must be 1..=23"
        );
        fn zram<const N: usize, const A: usize>() -> RAM<Bits<N>, A> {
            // initialised (a Verilog `initial` loop): no X in 4-state simulators before a QP
            // is loaded, the same zeros the Rust model reads
            RAM::from((0..(1usize << A)).map(|_| Bits::<N>::default()))
        }
        Self {
            le_old: Default::default(),
            le_new: Default::default(),
            clock: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            hdr: Default::default(),
            pay: Default::default(),
            qpc: Default::default(),
            load_valid: Default::default(),
            load_ready: Default::default(),
            load_qpn: Default::default(),
            mr_req_valid: Default::default(),
            mr_req_ready: Default::default(),
            mr_req_key: Default::default(),
            mr_req_pd: Default::default(),
            mr_req_need: Default::default(),
            mr_req_va: Default::default(),
            mr_req_len: Default::default(),
            mr_req_remote: Default::default(),
            mr_req_tag: Default::default(),
            mr_resp_valid: Default::default(),
            mr_resp_ok: Default::default(),
            mr_resp_code: Default::default(),
            mr_resp_zero: Default::default(),
            mr_resp_addr: Default::default(),
            mr_resp_remote: Default::default(),
            mr_resp_tag: Default::default(),
            mr_drain_req: Default::default(),
            mr_drain_ack: Default::default(),
            dma_wr: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_park: Default::default(),
            ack_parked: Default::default(),
            ack_qpn: Default::default(),
            ack_dest_qpn: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            ack_msn: Default::default(),
            ack_opcode: Default::default(),
            ack_orig: Default::default(),
            ack_plen: Default::default(),
            rpay: Default::default(),
            rpay_bad: Default::default(),
            rd_dma: Default::default(),
            rdr: Default::default(),
            r_rddup: Default::default(),
            rd_np: Default::default(),
            rd_sh: Default::default(),
            head_read: Default::default(),
            qerr_valid: Default::default(),
            qerr_ready: Default::default(),
            qerr_qpn: Default::default(),
            qerr_status: Default::default(),
            qerr_vendor: Default::default(),
            cnt_executed: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_psn_err: Default::default(),
            cnt_access_err: Default::default(),
            cnt_invalid: Default::default(),
            cnt_unsupported: Default::default(),
            cnt_qp_drop: Default::default(),
            cnt_dma_error: Default::default(),
            ackq: Default::default(),
            wqf: Default::default(),
            seqchk: Default::default(),
            counters: Default::default(),
            ram_epsn: zram(),
            ram_oos: zram(),
            ram_msn: zram(),
            ram_flags: RAM::from((0..(1usize << QA)).map(|_| RespQpFlags::default())),
            c_fl_clear: Constant::new(RespQpFlags::default()),
            c_fl_err: Constant::new(RespQpFlags {
                err: true,
                ..Default::default()
            }),
            c_fl_in_write: Constant::new(RespQpFlags {
                in_write: true,
                ..Default::default()
            }),
            c_fl_in_send: Constant::new(RespQpFlags {
                in_send: true,
                ..Default::default()
            }),
            ram_nack: zram(),
            n_nack: Default::default(),
            ack_due: Default::default(),
            cfg_ack_every: Default::default(),
            ram_va_hi: zram(),
            ram_va_lo: zram(),
            ram_rkey: zram(),
            ram_resid: zram(),
            state: Default::default(),
            r_op: Default::default(),
            r_qpn: Default::default(),
            r_psn: Default::default(),
            r_ackreq: Default::default(),
            r_va_hi: Default::default(),
            r_va_lo: Default::default(),
            r_rkey: Default::default(),
            r_dlen: Default::default(),
            r_plen: Default::default(),
            r_qst: Default::default(),
            r_qacc: Default::default(),
            r_qpd: Default::default(),
            r_qdest: Default::default(),
            r_pmtu: Default::default(),
            s_epsn: Default::default(),
            s_oos: Default::default(),
            s_msn: Default::default(),
            s_flags: Default::default(),
            verdict: Default::default(),
            s_va_hi: Default::default(),
            s_va_lo: Default::default(),
            s_rkey: Default::default(),
            s_resid: Default::default(),
            r_lqpn: Default::default(),
            r_mkey: Default::default(),
            r_mva: Default::default(),
            r_mlen: Default::default(),
            r_addr: Default::default(),
            dma_out: Default::default(),
            c_syn_ack: Constant::new(SYN_ACK.into()),
            c_syn_psn: Constant::new(SYN_NAK_PSN.into()),
            c_syn_inv: Constant::new(SYN_NAK_INVALID.into()),
            c_syn_acc: Constant::new(SYN_NAK_ACCESS.into()),
            c_st_inv: Constant::new(QERR_STATUS_INVALID.into()),
            c_st_acc: Constant::new(QERR_STATUS_ACCESS.into()),
            hva: Default::default(),
            plen32: Default::default(),
            resid: Default::default(),
            base_hi: Default::default(),
            base_lo: Default::default(),
            n_va_lo: Default::default(),
            n_va_hi: Default::default(),
            n_msn: Default::default(),
            n_epsn: Default::default(),
            emit: Default::default(),
            req_fire: Default::default(),
            mv_need: Default::default(),
            wr_qpn: Default::default(),
            load_kind: Default::default(),
            rqdb_valid: Default::default(),
            rqdb_ready: Default::default(),
            rqdb_qpn: Default::default(),
            rqdb_pi: Default::default(),
            dma_rd: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_cqn: Default::default(),
            cqe_wr_id: Default::default(),
            cqe_byte_len: Default::default(),
            cqe_imm: Default::default(),
            cqe_qpn: Default::default(),
            cqe_src_qp: Default::default(),
            cqe_wqe_index: Default::default(),
            cqe_vendor: Default::default(),
            cqe_flags: Default::default(),
            cqe_status: Default::default(),
            cqe_opcode: Default::default(),
            cnt_rnr: Default::default(),
            cnt_recv: Default::default(),
            ev_duplicate: Default::default(),
            ev_unknown_qp: Default::default(),
            ev_qp_state: Default::default(),
            ev_out_of_seq: Default::default(),
            mover: Default::default(),
            cqf: Default::default(),
            r_imm: Default::default(),
            r_se: Default::default(),
            r_rqbase: Default::default(),
            r_rqle: Default::default(),
            r_rqls: Default::default(),
            r_rcqn: Default::default(),
            r_rnrt: Default::default(),
            s_rqpi: Default::default(),
            s_rqci: Default::default(),
            s_wrid: Default::default(),
            s_nsge: Default::default(),
            s_sidx: Default::default(),
            s_cap: Default::default(),
            s_mlen: Default::default(),
            r_lkind: Default::default(),
            p_rem: Default::default(),
            r_n: Default::default(),
            r_place: Default::default(),
            at_err: Default::default(),
            rq_empty: Default::default(),
            mlen_base: Default::default(),
            n_mlen: Default::default(),
            cap_need: Default::default(),
            p_rem32: Default::default(),
            piece: Default::default(),
            c_va_lo: Default::default(),
            rerr: Default::default(),
            rerr_syn: Default::default(),
            rerr_st: Default::default(),
            rerr_vendor: Default::default(),
            cq_push: Default::default(),
            cq_flags: Default::default(),
            rep: Default::default(),
            e_syn: Default::default(),
            e_st: Default::default(),
            e_vendor: Default::default(),
            ram_rqpi: zram(),
            ram_rqci: zram(),
            ram_wrid_hi: zram(),
            ram_wrid_lo: zram(),
            ram_sge: zram(),
            ram_cap: zram(),
            ram_mlen: zram(),
            ram_rqerr: zram(),
            ram_qrpi: zram(),
            ram_qrci: zram(),
            r_fl: Default::default(),
            rtq_qpn: Default::default(),
            rtq_rq_index: Default::default(),
            atc: Default::default(),
            r_atq: Default::default(),
            r_swap: Default::default(),
            r_cmp: Default::default(),
            r_old: Default::default(),
            c_at_lookup: Constant::new(AT_OP_LOOKUP.into()),
            c_at_insert: Constant::new(AT_OP_INSERT.into()),
            c_at_clear: Constant::new(AT_OP_CLEAR.into()),
            old_v: Default::default(),
            new_v: Default::default(),
            c_syn_rnr: Constant::new(SYN_RNR.into()),
            c_syn_op: Constant::new(SYN_NAK_OPERATIONAL.into()),
            c_st_len: Constant::new((WcStatus::LocLenErr as u64).into()),
            c_st_qpop: Constant::new((WcStatus::LocQpOpErr as u64).into()),
            c_st_prot: Constant::new((WcStatus::LocProtErr as u64).into()),
            c_v_owner: Constant::new((vendor_err::WQE_OWNER as u64).into()),
            c_v_sge: Constant::new((vendor_err::WQE_SGE_COUNT as u64).into()),
            c_v_dma: Constant::new((vendor_err::DMA as u64).into()),
            c_op_recv: Constant::new((CqeOpcode::Recv as u64).into()),
            c_op_recv_imm: Constant::new((CqeOpcode::RecvRdmaWithImm as u64).into()),
            c_st_fatal: Constant::new(QERR_STATUS_DMA.into()),
            c_st_flush: Constant::new((WcStatus::WrFlushErr as u64).into()),
        }
    }
}

impl<const QA: usize> Logic for RcWriteResponder<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ackq, counters, mover, cqf, rdr, atc, seqchk, wqf);
        dff_setup!(
            self, clock, state, r_op, r_qpn, r_psn, r_ackreq, r_va_hi, r_va_lo, r_rkey, r_dlen,
            r_plen, r_imm, r_se, r_qst, r_qacc, r_qpd, r_qdest, r_pmtu, r_rqbase, r_rqle, r_rqls,
            r_rcqn, r_rnrt, s_epsn, s_oos, s_msn, s_flags, s_va_hi, s_va_lo, s_rkey, s_resid,
            s_rqpi, s_rqci, s_wrid, s_nsge, s_sidx, s_cap, s_mlen, r_lqpn, r_lkind, p_rem, r_n,
            r_place, at_err, r_mkey, r_mva, r_mlen, r_addr, dma_out, e_syn, e_st, e_vendor, r_swap,
            r_cmp, r_old, r_rddup, r_fl, r_atq, verdict
        );
        self.ram_rqerr.read_clock.next = self.clock.val();
        self.ram_rqerr.write_clock.next = self.clock.val();
        self.ram_qrpi.read_clock.next = self.clock.val();
        self.ram_qrpi.write_clock.next = self.clock.val();
        self.ram_qrci.read_clock.next = self.clock.val();
        self.ram_qrci.write_clock.next = self.clock.val();
        self.ram_epsn.read_clock.next = self.clock.val();
        self.ram_epsn.write_clock.next = self.clock.val();
        self.ram_oos.read_clock.next = self.clock.val();
        self.ram_oos.write_clock.next = self.clock.val();
        self.ram_msn.read_clock.next = self.clock.val();
        self.ram_msn.write_clock.next = self.clock.val();
        self.ram_flags.read_clock.next = self.clock.val();
        self.ram_nack.read_clock.next = self.clock.val();
        self.ram_nack.write_clock.next = self.clock.val();
        self.ram_flags.write_clock.next = self.clock.val();
        self.ram_va_hi.read_clock.next = self.clock.val();
        self.ram_va_hi.write_clock.next = self.clock.val();
        self.ram_va_lo.read_clock.next = self.clock.val();
        self.ram_va_lo.write_clock.next = self.clock.val();
        self.ram_rkey.read_clock.next = self.clock.val();
        self.ram_rkey.write_clock.next = self.clock.val();
        self.ram_resid.read_clock.next = self.clock.val();
        self.ram_resid.write_clock.next = self.clock.val();
        self.ram_rqpi.read_clock.next = self.clock.val();
        self.ram_rqpi.write_clock.next = self.clock.val();
        self.ram_rqci.read_clock.next = self.clock.val();
        self.ram_rqci.write_clock.next = self.clock.val();
        self.ram_wrid_hi.read_clock.next = self.clock.val();
        self.ram_wrid_hi.write_clock.next = self.clock.val();
        self.ram_wrid_lo.read_clock.next = self.clock.val();
        self.ram_wrid_lo.write_clock.next = self.clock.val();
        self.ram_sge.read_clock.next = self.clock.val();
        self.ram_sge.write_clock.next = self.clock.val();
        self.ram_cap.read_clock.next = self.clock.val();
        self.ram_cap.write_clock.next = self.clock.val();
        self.ram_mlen.read_clock.next = self.clock.val();
        self.ram_mlen.write_clock.next = self.clock.val();

        // ================= the packet's checks (used by Check; the opcode class by every state) =
        // the PSN, opcode sequence, QP, length and access checks: `RespSequenceCheck`
        // (combinational, from the header and state registers); its verdict registered
        self.seqchk.opcode.next = self.r_op.q.val();
        self.seqchk.qpn.next = self.r_qpn.q.val();
        self.seqchk.psn.next = self.r_psn.q.val();
        self.seqchk.plen.next = self.r_plen.q.val();
        self.seqchk.dma_len.next = self.r_dlen.q.val();
        self.seqchk.va_low.next = self.r_va_lo.q.val().get_bits::<3>(0);
        self.seqchk.qp_state.next = self.r_qst.q.val();
        self.seqchk.qp_access.next = self.r_qacc.q.val();
        self.seqchk.qp_pmtu.next = self.r_pmtu.q.val();
        self.seqchk.epsn.next = self.s_epsn.q.val();
        self.seqchk.oos_psn.next = self.s_oos.q.val();
        self.seqchk.nak_sent.next = self.s_flags.q.val().nak_sent;
        self.seqchk.in_write.next = self.s_flags.q.val().in_write;
        self.seqchk.in_send.next = self.s_flags.q.val().in_send;
        self.seqchk.qp_err.next = self.s_flags.q.val().err;
        self.seqchk.cursor_resid.next = self.s_resid.q.val();
        self.verdict.d.next.unsupported = self.seqchk.v_unsupported.val();
        self.verdict.d.next.qp_drop = self.seqchk.v_qp_drop.val();
        self.verdict.d.next.dup_atomic = self.seqchk.v_dup_atomic.val();
        self.verdict.d.next.dup_read = self.seqchk.v_dup_read.val();
        self.verdict.d.next.dup = self.seqchk.v_dup.val();
        self.verdict.d.next.psn_nak = self.seqchk.v_psn_nak.val();
        self.verdict.d.next.psn_drop = self.seqchk.v_psn_drop.val();
        self.verdict.d.next.invalid = self.seqchk.v_invalid.val();
        self.verdict.d.next.access = self.seqchk.v_access.val();
        // a WRITE's remaining bytes (the RETH length on FIRST/ONLY, else the cursor) and
        // where it continues
        self.plen32.next = bit_cast::<32, 13>(self.r_plen.q.val());
        self.resid.next = self.s_resid.q.val();
        self.base_hi.next = self.s_va_hi.q.val();
        self.base_lo.next = self.s_va_lo.q.val();
        if self.seqchk.has_reth.val() {
            self.resid.next = self.r_dlen.q.val();
            self.base_hi.next = self.r_va_hi.q.val();
            self.base_lo.next = self.r_va_lo.q.val();
        }
        // a READ's response packets: (length + PMTU - 1) >> log2(PMTU), at least one
        self.rd_sh.next = bit_cast::<5, 3>(self.r_pmtu.q.val()) + 7;
        self.rd_np.next = (self.r_dlen.q.val() + bit_cast::<32, 13>(self.seqchk.pmtu_bytes.val())
            - 1)
            >> self.rd_sh.val();
        if self.r_dlen.q.val() == 0 {
            self.rd_np.next = 1.into();
        }
        // the state after executing this packet
        self.n_va_lo.next = self.base_lo.val() + self.plen32.val();
        self.n_va_hi.next = self.base_hi.val();
        if self.n_va_lo.val() < self.base_lo.val() {
            self.n_va_hi.next = self.base_hi.val() + 1;
        }
        self.n_msn.next = self.s_msn.q.val();
        if self.seqchk.ends.val() {
            self.n_msn.next = self.s_msn.q.val() + 1;
        }
        self.n_epsn.next = self.r_psn.q.val() + 1;
        // ACK coalescing: an executed packet is acknowledged when it asks (AckReq), ends its
        // message, or is the N-th executed packet of its QP since the QP's last ACK
        self.n_nack.next = self.ram_nack.read_data.val() + 1;
        self.ack_due.next =
            (self.cfg_ack_every.val() != 0) & (self.n_nack.val() >= self.cfg_ack_every.val());
        self.emit.next = self.seqchk.ends.val() | self.r_ackreq.q.val() | self.ack_due.val();
        // bytes of the message so far, this packet included (a receive CQE's byte_len), and
        // the receive WQE's room for them (33 bits: no wrap)
        self.mlen_base.next = self.s_mlen.q.val();
        if self.seqchk.opens.val() {
            self.mlen_base.next = 0.into();
        }
        self.n_mlen.next = self.mlen_base.val() + self.plen32.val();
        self.cap_need.next =
            bit_cast::<33, 32>(self.mlen_base.val()) + bit_cast::<33, 32>(self.plen32.val());

        // ================= receive queue decode ==============================================
        self.rq_empty.next = self.s_rqci.q.val() == self.s_rqpi.q.val();
        // the receive queue's reads (`RqWqeFetch`): the WQE at the consumer index, or its SGE
        // at the cursor's index, in the QP's ring
        self.wqf.cmd_valid.next = false;
        self.wqf.cmd_sge.next = false;
        self.wqf.cmd_tag.next = self.r_qpn.q.val().get_bits::<8>(0);
        self.wqf.rq_base.next = self.r_rqbase.q.val();
        self.wqf.rq_log2_entries.next = self.r_rqle.q.val();
        self.wqf.rq_log2_stride.next = self.r_rqls.q.val();
        self.wqf.rq_ci.next = self.s_rqci.q.val();
        self.wqf.sge_index.next = self.s_sidx.q.val();
        // the next posted WQE is read ahead (`RqWqeFetch`); a QP load drops what was read ahead
        self.wqf.rq_pi.next = self.s_rqpi.q.val();
        self.wqf.flush.next = false;
        // the next piece of a SEND packet: what is left of it, at most the SGE's rest
        self.p_rem32.next = bit_cast::<32, 16>(self.p_rem.q.val());
        self.piece.next = self.p_rem32.val();
        if self.s_resid.q.val() < self.p_rem32.val() {
            self.piece.next = self.s_resid.q.val();
        }
        self.c_va_lo.next = self.s_va_lo.q.val() + bit_cast::<32, 16>(self.r_n.q.val());

        // ================= atomics ===========================================================
        // host memory holds the 8-byte value little-endian; a beat's MSB is the byte at the
        // lowest address, so the value is the byte-reversed beat (and back for the write)
        self.le_old.inp.next = self.r_old.q.val();
        self.old_v.next = self.le_old.out.val();
        self.new_v.next = self.old_v.val() + self.r_swap.q.val();
        if self.r_op.q.val() == 19 {
            self.new_v.next = self.old_v.val();
            if self.old_v.val() == self.r_cmp.q.val() {
                self.new_v.next = self.r_swap.q.val();
            }
        }

        // the replay cache: looked up by a duplicate (`AtDup`), written by an executed atomic
        // (`AtDone`), cleared by the load into RTR
        self.atc.cmd_valid.next = false;
        self.atc.cmd_op.next = self.c_at_lookup.val();
        self.atc.cmd_qpn.next = self.r_qpn.q.val().get_bits::<QA>(0);
        self.atc.cmd_psn.next = self.r_psn.q.val();
        self.atc.cmd_orig.next = self.old_v.val();

        // ================= defaults ==========================================================
        self.hdr_ready.next = false;
        self.hva.next = self.hdr.val().va;
        self.load_ready.next = false;
        self.rqdb_ready.next = false;
        self.qpc.rd_valid.next = false;
        self.qpc.rd_qpn.next = self.r_qpn.q.val().get_bits::<QA>(0);
        // the state RAMs are read at the packet's QPN continuously: the row is stable from
        // the edge that takes the header on, so `Latch` sees it (and any write-back of the
        // previous packet, which happens before that edge)
        self.wr_qpn.next = self.r_qpn.q.val().get_bits::<QA>(0);
        self.ram_epsn.read_address.next = self.wr_qpn.val();
        self.ram_oos.read_address.next = self.wr_qpn.val();
        self.ram_msn.read_address.next = self.wr_qpn.val();
        self.ram_flags.read_address.next = self.wr_qpn.val();
        self.ram_nack.read_address.next = self.wr_qpn.val();
        self.ram_nack.write_data.next = 0.into();
        self.ram_nack.write_enable.next = false;
        self.ram_va_hi.read_address.next = self.wr_qpn.val();
        self.ram_va_lo.read_address.next = self.wr_qpn.val();
        self.ram_rkey.read_address.next = self.wr_qpn.val();
        self.ram_resid.read_address.next = self.wr_qpn.val();
        self.ram_rqpi.read_address.next = self.wr_qpn.val();
        self.ram_rqci.read_address.next = self.wr_qpn.val();
        self.ram_wrid_hi.read_address.next = self.wr_qpn.val();
        self.ram_wrid_lo.read_address.next = self.wr_qpn.val();
        self.ram_sge.read_address.next = self.wr_qpn.val();
        self.ram_cap.read_address.next = self.wr_qpn.val();
        self.ram_mlen.read_address.next = self.wr_qpn.val();
        self.ram_rqerr.read_address.next = self.wr_qpn.val();
        self.ram_rqerr.write_data.next = 1.into();
        self.ram_rqerr.write_enable.next = false;
        self.ram_qrpi.read_address.next = self.rtq_qpn.val();
        self.ram_qrci.read_address.next = self.rtq_qpn.val();
        self.rtq_rq_index.next = (bit_cast::<32, 16>(self.ram_qrci.read_data.val()) << 16)
            | bit_cast::<32, 16>(self.ram_qrpi.read_data.val());
        // write-back: unchanged fields keep the row's current value
        self.ram_epsn.write_enable.next = false;
        self.ram_oos.write_enable.next = false;
        self.ram_oos.write_data.next = self.r_psn.q.val();
        self.ram_msn.write_enable.next = false;
        self.ram_flags.write_enable.next = false;
        self.ram_va_hi.write_enable.next = false;
        self.ram_va_lo.write_enable.next = false;
        self.ram_rkey.write_enable.next = false;
        self.ram_resid.write_enable.next = false;
        self.ram_rqpi.write_enable.next = false;
        self.ram_rqci.write_enable.next = false;
        self.ram_wrid_hi.write_enable.next = false;
        self.ram_wrid_lo.write_enable.next = false;
        self.ram_sge.write_enable.next = false;
        self.ram_cap.write_enable.next = false;
        self.ram_mlen.write_enable.next = false;
        self.ram_epsn.write_data.next = self.s_epsn.q.val();
        self.ram_msn.write_data.next = self.s_msn.q.val();
        self.ram_flags.write_data.next = self.s_flags.q.val();
        self.ram_va_hi.write_data.next = self.s_va_hi.q.val();
        self.ram_va_lo.write_data.next = self.s_va_lo.q.val();
        self.ram_rkey.write_data.next = self.s_rkey.q.val();
        self.ram_resid.write_data.next = self.s_resid.q.val();
        self.ram_rqpi.write_data.next = self.s_rqpi.q.val();
        self.ram_rqci.write_data.next = self.s_rqci.q.val();
        self.ram_wrid_hi.write_data.next = self.s_wrid.q.val().get_bits::<32>(32);
        self.ram_wrid_lo.write_data.next = self.s_wrid.q.val().get_bits::<32>(0);
        self.ram_sge.write_data.next =
            (bit_cast::<16, 8>(self.s_nsge.q.val()) << 8) | bit_cast::<16, 8>(self.s_sidx.q.val());
        self.ram_cap.write_data.next = self.s_cap.q.val();
        self.ram_mlen.write_data.next = self.s_mlen.q.val();
        // MR request from registers (held while waiting for req_ready): a WRITE's rkey with
        // REMOTE_WRITE, or a receive SGE's lkey with LOCAL_WRITE
        self.mr_req_valid.next = false;
        self.mr_req_key.next = self.r_mkey.q.val();
        self.mr_req_pd.next = self.r_qpd.q.val();
        self.mr_req_need.next = 2.into(); // ACCESS_REMOTE_WRITE
        self.mr_req_remote.next = true;
        if self.seqchk.is_atomic.val() {
            self.mr_req_need.next = 8.into(); // ACCESS_REMOTE_ATOMIC
        }
        if self.seqchk.is_read.val() {
            self.mr_req_need.next = 4.into(); // ACCESS_REMOTE_READ
        }
        if self.r_place.q.val() {
            self.mr_req_need.next = 1.into(); // ACCESS_LOCAL_WRITE
            self.mr_req_remote.next = false;
        }
        self.mr_req_va.next = self.r_mva.q.val();
        self.mr_req_len.next = self.r_mlen.q.val();
        self.mr_req_tag.next = self.r_qpn.q.val().get_bits::<8>(0);
        self.mr_drain_ack.next = false;
        // The DMA write port is the mover's; the payload stream goes to the mover, except in
        // `Drain` (a packet discarded whole, read here while the mover is idle)
        self.dma_wr.req_valid.next = self.mover.wr_valid.val();
        self.dma_wr.req_addr.next = self.mover.wr_addr.val();
        self.dma_wr.req_len.next = self.mover.wr_len.val();
        self.dma_wr.req_tag.next = self.mover.wr_tag.val();
        self.mover.wr_ready.next = self.dma_wr.req_ready.val();
        self.dma_wr.data.valid.next = self.mover.data.valid.val();
        self.dma_wr.data.data.next = self.mover.data.data.val();
        self.dma_wr.data.keep.next = self.mover.data.keep.val();
        self.dma_wr.data.last.next = self.mover.data.last.val();
        self.mover.data.ready.next = self.dma_wr.data.ready.val();
        self.req_fire.next = self.mover.wr_valid.val() & self.dma_wr.req_ready.val();
        self.mover.pay.valid.next = self.pay.valid.val();
        self.mover.pay.data.next = self.pay.data.val();
        self.mover.pay.keep.next = self.pay.keep.val();
        self.mover.pay.last.next = self.pay.last.val();
        self.pay.ready.next = self.mover.pay.ready.val();
        // the job: a SEND piece at the cursor unless a state says otherwise
        self.mover.job_valid.next = false;
        self.mover.job_addr.next = self.r_addr.q.val();
        self.mover.job_len.next = self.r_n.q.val();
        self.mover.job_tag.next = self.r_qpn.q.val().get_bits::<8>(0);
        self.mover.job_discard.next = false;
        self.mover.job_word_job.next = false;
        self.mover.job_word.next = self.le_new.out.val();
        self.mover.job_end.next = false;
        self.mv_need.next = !self.seqchk.is_send.val() & (self.r_plen.q.val() != 0);
        // DMA read: the receive queue's reads (the fetch block's requests and beats); the
        // atomic's read (`AtRd`, `AtRx`) takes the port over
        self.dma_rd.req_valid.next = self.wqf.dma_rd.req_valid.val();
        self.dma_rd.req_addr.next = self.wqf.dma_rd.req_addr.val();
        self.dma_rd.req_len.next = self.wqf.dma_rd.req_len.val();
        self.dma_rd.req_tag.next = self.wqf.dma_rd.req_tag.val();
        self.dma_rd.rsp.ready.next = self.wqf.dma_rd.rsp.ready.val();
        self.wqf.dma_rd.req_ready.next = self.dma_rd.req_ready.val();
        self.wqf.dma_rd.rsp.valid.next = self.dma_rd.rsp.valid.val();
        self.wqf.dma_rd.rsp.data.next = self.dma_rd.rsp.data.val();
        self.wqf.dma_rd.rsp.keep.next = self.dma_rd.rsp.keep.val();
        self.wqf.dma_rd.rsp.last.next = self.dma_rd.rsp.last.val();
        self.wqf.dma_rd.rsp_tag.next = self.dma_rd.rsp_tag.val();
        self.wqf.dma_rd.rsp_error.next = self.dma_rd.rsp_error.val();
        // response entry: an ACK of this packet unless a branch says otherwise
        self.ackq.push.next = false;
        self.ackq.entry.next.need_done = false;
        self.ackq.entry.next.emit = true;
        self.ackq.entry.next.qerr = false;
        self.ackq.entry.next.cqe = false;
        self.ackq.entry.next.qerr_status = 0.into();
        self.ackq.entry.next.qpn = self.r_qpn.q.val();
        self.ackq.entry.next.dest_qpn = self.r_qdest.q.val();
        self.ackq.entry.next.psn = self.r_psn.q.val();
        self.ackq.entry.next.syndrome = self.c_syn_ack.val();
        self.ackq.entry.next.msn = self.s_msn.q.val();
        self.ackq.entry.next.atomic = false;
        self.ackq.entry.next.orig = self.old_v.val();
        self.ackq.entry.next.read = false;
        self.ackq.entry.next.raddr = self.mr_resp_addr.val();
        self.ackq.entry.next.rlen = self.r_dlen.q.val();
        self.ackq.entry.next.rpmtu = self.r_pmtu.q.val();
        self.ackq.done_valid.next = self.dma_wr.done_valid.val();
        self.ackq.done_error.next = self.dma_wr.done_error.val();
        // receive errors and completions (acted on after the state machine)
        self.rerr.next = false;
        self.rerr_syn.next = self.c_syn_op.val();
        self.rerr_st.next = 0.into();
        self.rerr_vendor.next = 0.into();
        self.cq_push.next = false;
        // counters
        self.counters.inc_executed.next = false;
        self.counters.inc_duplicate.next = false;
        self.counters.inc_psn_err.next = false;
        self.counters.inc_access_err.next = false;
        self.counters.inc_invalid.next = false;
        self.counters.inc_unsupported.next = false;
        self.counters.inc_qp_drop.next = false;
        self.counters.inc_dma_error.next = self.ackq.dma_error.val();
        self.counters.inc_rnr.next = false;
        self.counters.inc_recv.next = false;

        // ================= the packet state machine =========================================
        self.le_new.inp.next = self.new_v.val();
        match self.state.q.val() {
            WrState::Idle => {
                // a load first: a MODIFY must apply before the QP's next packet; then RQ
                // doorbells (one per cycle)
                if self.load_valid.val() {
                    self.load_ready.next = true;
                    self.wqf.flush.next = true;
                    self.r_lqpn.d.next = self.load_qpn.val();
                    self.r_lkind.d.next = self.load_kind.val();
                    self.state.d.next = WrState::LoadRd;
                } else if self.rqdb_valid.val() {
                    // the new producer index; then, if the QP's RQ is in ERR, the new WQEs
                    // are flushed at once (DbWait, DbChk)
                    self.rqdb_ready.next = true;
                    self.wr_qpn.next = self.rqdb_qpn.val();
                    self.ram_rqpi.write_data.next = self.rqdb_pi.val();
                    self.ram_rqpi.write_enable.next = true;
                    self.r_qpn.d.next = bit_cast::<24, QA>(self.rqdb_qpn.val());
                    self.r_lqpn.d.next = self.rqdb_qpn.val();
                    self.r_lkind.d.next = 2.into();
                    self.state.d.next = WrState::DbWait;
                } else if !self.mr_drain_req.val() {
                    // during an MR drain no new packet starts (see the module doc)
                    self.hdr_ready.next = true;
                    if self.hdr_valid.val() {
                        self.r_op.d.next = self.hdr.val().opcode;
                        self.r_qpn.d.next = self.hdr.val().dest_qp;
                        self.r_psn.d.next = self.hdr.val().psn;
                        self.r_ackreq.d.next = self.hdr.val().ack_req;
                        self.r_va_hi.d.next = self.hva.val().get_bits::<32>(32);
                        self.r_va_lo.d.next = self.hva.val().get_bits::<32>(0);
                        self.r_rkey.d.next = self.hdr.val().rkey;
                        self.r_dlen.d.next = self.hdr.val().dma_len;
                        self.r_plen.d.next = self.hdr.val().payload_len;
                        self.r_imm.d.next = self.hdr.val().imm;
                        self.r_se.d.next = self.hdr.val().se;
                        self.r_swap.d.next = self.hdr.val().swap_add;
                        self.r_cmp.d.next = self.hdr.val().compare;
                        self.state.d.next = WrState::Rd;
                    }
                } else {
                    // idle and draining: acknowledge once every issued write has completed
                    // (queued READs hold translated addresses: the queue and the READ
                    // responder must be empty too)
                    self.mr_drain_ack.next = (self.dma_out.q.val() == 0)
                        & !self.mover.busy.val()
                        & self.ackq.idle.val()
                        & !self.rdr.busy.val();
                }
            }
            WrState::LoadRd => {
                // only this block gives the cache commands, and none between here and
                // `LoadWrite`: ready now means ready for the clear there
                self.qpc.rd_qpn.next = self.r_lqpn.q.val();
                if self.atc.cmd_ready.val() {
                    self.qpc.rd_valid.next = true;
                    self.state.d.next = WrState::LoadWait;
                }
            }
            WrState::LoadWait => {
                self.state.d.next = WrState::LoadWrite;
            }
            WrState::LoadWrite => {
                // the QP context of the load is on `qpc` now. Into RTR: ePSN = rq_psn, MSN 0,
                // flags clear, no message in progress. RQ restart: indices 0, flags clear.
                self.wr_qpn.next = self.r_lqpn.q.val();
                self.ram_flags.write_data.next = self.c_fl_clear.val();
                self.ram_flags.write_enable.next = true;
                self.ram_mlen.write_data.next = 0.into();
                self.ram_mlen.write_enable.next = true;
                if self.r_lkind.q.val() == 2 {
                    // the QP entered ERR: keep the message state (the QP's packets are
                    // dropped from now on), flush the RQ from its consumer index. The walk
                    // uses the packet registers: the QPN, the RQ geometry, the CQ
                    self.ram_flags.write_enable.next = false;
                    self.ram_mlen.write_enable.next = false;
                    self.ram_rqerr.write_enable.next = true;
                    self.r_qpn.d.next = bit_cast::<24, QA>(self.r_lqpn.q.val());
                    self.r_qdest.d.next = self.qpc.dest_qpn.val();
                    self.r_rqbase.d.next = self.qpc.rq_base.val();
                    self.r_rqle.d.next = self.qpc.rq_log2_entries.val();
                    self.r_rqls.d.next = self.qpc.rq_log2_stride.val();
                    self.r_rcqn.d.next = self.qpc.recv_cqn.val();
                    self.r_fl.d.next = true;
                } else if self.r_lkind.q.val() == 1 {
                    self.ram_rqerr.write_data.next = 0.into();
                    self.ram_rqerr.write_enable.next = true;
                    self.ram_rqpi.write_data.next = 0.into();
                    self.ram_rqci.write_data.next = 0.into();
                    self.ram_rqpi.write_enable.next = true;
                    self.ram_rqci.write_enable.next = true;
                } else {
                    self.ram_epsn.write_data.next = self.qpc.rq_psn.val();
                    self.ram_msn.write_data.next = 0.into();
                    self.ram_nack.write_enable.next = true;
                    self.ram_va_hi.write_data.next = 0.into();
                    self.ram_va_lo.write_data.next = 0.into();
                    self.ram_rkey.write_data.next = 0.into();
                    self.ram_resid.write_data.next = 0.into();
                    self.ram_epsn.write_enable.next = true;
                    self.ram_msn.write_enable.next = true;
                    self.ram_va_hi.write_enable.next = true;
                    self.ram_va_lo.write_enable.next = true;
                    self.ram_rkey.write_enable.next = true;
                    self.ram_resid.write_enable.next = true;
                    // a new connection: no atomic to replay (the cache is idle: `LoadRd`
                    // waited for it)
                    self.atc.cmd_valid.next = true;
                    self.atc.cmd_op.next = self.c_at_clear.val();
                    self.atc.cmd_qpn.next = self.r_lqpn.q.val();
                }
                self.state.d.next = WrState::Idle;
                if self.r_lkind.q.val() == 2 {
                    self.state.d.next = WrState::FlWait;
                }
            }
            WrState::DbWait => {
                // the state RAMs are read at the doorbell's QP (r_qpn) from this cycle on
                self.state.d.next = WrState::DbChk;
            }
            WrState::DbChk => {
                self.state.d.next = WrState::Idle;
                if self.ram_rqerr.read_data.val().any() {
                    self.state.d.next = WrState::LoadRd;
                }
            }
            WrState::FlWait => {
                self.state.d.next = WrState::FlLatch;
            }
            WrState::FlLatch => {
                self.s_rqpi.d.next = self.ram_rqpi.read_data.val();
                self.s_rqci.d.next = self.ram_rqci.read_data.val();
                self.state.d.next = WrState::FlNext;
            }
            WrState::FlNext => {
                // every WQE from the consumer to the producer index: its wr_id (a DMA read of
                // the slot), then a WR_FLUSH_ERR completion; the consumer index is written back
                if self.s_rqci.q.val() == self.s_rqpi.q.val() {
                    self.ram_rqci.write_enable.next = true;
                    self.r_fl.d.next = false;
                    self.state.d.next = WrState::Idle;
                } else {
                    self.state.d.next = WrState::WqeReq;
                }
            }
            WrState::FlCqe => {
                // with an entry that only releases it (no response, no write to wait for), in
                // order behind every completion queued before
                if !self.ackq.full.val() {
                    self.ackq.push.next = true;
                    self.ackq.entry.next.emit = false;
                    self.ackq.entry.next.cqe = true;
                    self.cq_push.next = true;
                    self.s_rqci.d.next = self.s_rqci.q.val() + 1;
                    self.state.d.next = WrState::FlNext;
                }
            }
            WrState::Rd => {
                self.qpc.rd_valid.next = true;
                self.state.d.next = WrState::RdWait;
            }
            WrState::RdWait => {
                self.state.d.next = WrState::Latch;
            }
            WrState::Latch => {
                self.r_qst.d.next = self.qpc.state.val();
                self.r_qacc.d.next = self.qpc.access.val();
                self.r_qpd.d.next = self.qpc.pd.val();
                self.r_qdest.d.next = self.qpc.dest_qpn.val();
                self.r_pmtu.d.next = self.qpc.pmtu.val();
                self.r_rqbase.d.next = self.qpc.rq_base.val();
                self.r_rqle.d.next = self.qpc.rq_log2_entries.val();
                self.r_rqls.d.next = self.qpc.rq_log2_stride.val();
                self.r_rcqn.d.next = self.qpc.recv_cqn.val();
                self.r_rnrt.d.next = self.qpc.min_rnr_timer.val();
                self.s_epsn.d.next = self.ram_epsn.read_data.val();
                self.s_oos.d.next = self.ram_oos.read_data.val();
                self.s_msn.d.next = self.ram_msn.read_data.val();
                self.s_flags.d.next = self.ram_flags.read_data.val();
                self.s_va_hi.d.next = self.ram_va_hi.read_data.val();
                self.s_va_lo.d.next = self.ram_va_lo.read_data.val();
                self.s_rkey.d.next = self.ram_rkey.read_data.val();
                self.s_resid.d.next = self.ram_resid.read_data.val();
                self.s_rqpi.d.next = self.ram_rqpi.read_data.val();
                self.s_rqci.d.next = self.ram_rqci.read_data.val();
                self.s_wrid.d.next = (bit_cast::<64, 32>(self.ram_wrid_hi.read_data.val()) << 32)
                    | bit_cast::<64, 32>(self.ram_wrid_lo.read_data.val());
                self.s_nsge.d.next = self.ram_sge.read_data.val().get_bits::<8>(8);
                self.s_sidx.d.next = self.ram_sge.read_data.val().get_bits::<8>(0);
                self.s_cap.d.next = self.ram_cap.read_data.val();
                self.s_mlen.d.next = self.ram_mlen.read_data.val();
                self.state.d.next = WrState::Judge;
            }
            WrState::Judge => {
                // `verdict` is loaded from the sequence check at the end of this cycle
                self.state.d.next = WrState::Check;
            }
            WrState::Check => {
                // every path below pushes at most one entry; waiting here for room keeps the
                // queue (and the completion FIFO behind it) from overflowing
                if !self.ackq.full.val() {
                    self.state.d.next = WrState::Idle;
                    if self.r_plen.q.val() != 0 {
                        self.state.d.next = WrState::Drain;
                    }
                    if self.verdict.q.val().unsupported {
                        self.counters.inc_unsupported.next = true;
                    } else if self.verdict.q.val().qp_drop {
                        self.counters.inc_qp_drop.next = true;
                    } else if self.verdict.q.val().dup_atomic {
                        // a duplicate atomic is never executed again: the cache's original
                        // value answers it (`AtDup`)
                        self.counters.inc_duplicate.next = true;
                        self.r_atq.d.next = false;
                        self.state.d.next = WrState::AtDup;
                    } else if self.verdict.q.val().dup_read {
                        // a duplicate READ (the requester asks again from a PSN inside an
                        // earlier READ, with the RETH of the rest): answered again from host
                        // memory after the same MR check; ePSN does not move
                        self.counters.inc_duplicate.next = true;
                        self.r_rddup.d.next = true;
                        self.r_place.d.next = false;
                        self.r_mkey.d.next = self.r_rkey.q.val();
                        self.r_mlen.d.next = bit_cast::<64, 32>(self.r_dlen.q.val());
                        self.r_mva.d.next = (bit_cast::<64, 32>(self.r_va_hi.q.val()) << 32)
                            | bit_cast::<64, 32>(self.r_va_lo.q.val());
                        self.state.d.next = WrState::MrReq;
                    } else if self.verdict.q.val().dup {
                        // re-ACK, do not execute again (IBA C9-105)
                        self.ackq.push.next = true;
                        self.counters.inc_duplicate.next = true;
                    } else if self.verdict.q.val().psn_nak | self.verdict.q.val().psn_drop {
                        // ahead of ePSN: one NAK (PSN = ePSN) until an in-sequence packet,
                        // again when the requester has gone back; its PSN kept for that
                        self.counters.inc_psn_err.next = true;
                        self.ram_oos.write_enable.next = true;
                        if self.verdict.q.val().psn_nak {
                            self.ackq.push.next = true;
                            self.ackq.entry.next.psn = self.s_epsn.q.val();
                            self.ackq.entry.next.syndrome = self.c_syn_psn.val();
                            // flags: nak_sent set, the message in progress kept (err is clear)
                            self.ram_flags.write_data.next.nak_sent = true;
                            self.ram_flags.write_data.next.err = false;
                            self.ram_flags.write_enable.next = true;
                        }
                    } else if self.verdict.q.val().invalid {
                        // class C, invalid request: NAK 0x61, QP to ERR
                        self.ackq.push.next = true;
                        self.ackq.entry.next.syndrome = self.c_syn_inv.val();
                        self.ackq.entry.next.qerr = true;
                        self.ackq.entry.next.qerr_status = self.c_st_inv.val();
                        self.ram_flags.write_data.next = self.c_fl_err.val();
                        self.ram_flags.write_enable.next = true;
                        self.counters.inc_invalid.next = true;
                    } else if self.verdict.q.val().access {
                        // class C, remote access error: NAK 0x62, QP to ERR
                        self.ackq.push.next = true;
                        self.ackq.entry.next.syndrome = self.c_syn_acc.val();
                        self.ackq.entry.next.qerr = true;
                        self.ackq.entry.next.qerr_status = self.c_st_acc.val();
                        self.ram_flags.write_data.next = self.c_fl_err.val();
                        self.ram_flags.write_enable.next = true;
                        self.counters.inc_access_err.next = true;
                    } else if self.seqchk.is_send.val() {
                        // SEND: the first packet needs a posted receive WQE (else RNR NAK,
                        // PSN = this packet's, the QP stays up); the others continue the open one
                        if self.seqchk.send_opens.val() {
                            if self.rq_empty.val() {
                                self.ackq.push.next = true;
                                self.ackq.entry.next.syndrome = self.c_syn_rnr.val()
                                    | bit_cast::<8, RNR_W>(self.r_rnrt.q.val());
                                self.counters.inc_rnr.next = true;
                                // in sequence: a later PSN gap may be NAKed again
                                self.ram_flags.write_data.next.nak_sent = false;
                                self.ram_flags.write_enable.next = true;
                            } else {
                                self.state.d.next = WrState::WqeReq;
                            }
                        } else {
                            self.state.d.next = WrState::SendLen;
                        }
                    } else {
                        // in sequence and well formed: the MR check decides. FIRST/ONLY check
                        // the whole message range, MIDDLE/LAST their own bytes at the cursor
                        self.r_place.d.next = false;
                        self.r_rddup.d.next = false;
                        self.r_n.d.next = bit_cast::<16, 13>(self.r_plen.q.val());
                        self.r_mkey.d.next = self.s_rkey.q.val();
                        self.r_mlen.d.next = bit_cast::<64, 32>(self.plen32.val());
                        if self.seqchk.has_reth.val() {
                            self.r_mkey.d.next = self.r_rkey.q.val();
                            self.r_mlen.d.next = bit_cast::<64, 32>(self.r_dlen.q.val());
                        }
                        self.r_mva.d.next = (bit_cast::<64, 32>(self.base_hi.val()) << 32)
                            | bit_cast::<64, 32>(self.base_lo.val());
                        if self.seqchk.is_atomic.val() {
                            // the AtomicETH's 8 bytes
                            self.r_mkey.d.next = self.r_rkey.q.val();
                            self.r_mlen.d.next = 8.into();
                            self.r_mva.d.next = (bit_cast::<64, 32>(self.r_va_hi.q.val()) << 32)
                                | bit_cast::<64, 32>(self.r_va_lo.q.val());
                        }
                        self.state.d.next = WrState::MrReq;
                    }
                }
            }
            WrState::MrReq => {
                self.mr_req_valid.next = true;
                if self.mr_req_ready.val() {
                    self.state.d.next = WrState::MrWait;
                }
            }
            WrState::MrWait => {
                // the only lookup outstanding is ours: its response is the next one
                if self.mr_resp_valid.val() {
                    if self.mr_resp_ok.val() {
                        self.r_addr.d.next = self.mr_resp_addr.val();
                        if self.r_place.q.val() {
                            self.state.d.next = WrState::Xfer;
                        } else if self.seqchk.is_atomic.val() {
                            self.state.d.next = WrState::AtWait;
                        } else if self.seqchk.is_read.val() {
                            // queue the READ: the read responder answers it at the head of
                            // the ACK queue (after every earlier response)
                            self.ackq.push.next = true;
                            self.ackq.entry.next.read = true;
                            self.state.d.next = WrState::Idle;
                            if self.r_plen.q.val() != 0 {
                                self.state.d.next = WrState::Drain;
                            }
                            if !self.r_rddup.q.val() {
                                self.ackq.entry.next.msn = self.s_msn.q.val() + 1;
                                self.ram_epsn.write_data.next =
                                    self.r_psn.q.val() + self.rd_np.val().get_bits::<24>(0);
                                self.ram_msn.write_data.next = self.s_msn.q.val() + 1;
                                self.ram_flags.write_data.next = self.c_fl_clear.val();
                                self.ram_epsn.write_enable.next = true;
                                self.ram_msn.write_enable.next = true;
                                self.ram_flags.write_enable.next = true;
                                self.counters.inc_executed.next = true;
                            }
                        } else if self.seqchk.write_imm_end.val() & self.rq_empty.val() {
                            // WRITE_WITH_IMMEDIATE's end without a receive WQE: RNR NAK,
                            // nothing written (the whole range was checked first)
                            self.ackq.push.next = true;
                            self.ackq.entry.next.syndrome =
                                self.c_syn_rnr.val() | bit_cast::<8, RNR_W>(self.r_rnrt.q.val());
                            self.counters.inc_rnr.next = true;
                            self.ram_flags.write_data.next.nak_sent = false;
                            self.ram_flags.write_enable.next = true;
                            self.state.d.next = WrState::Idle;
                            if self.r_plen.q.val() != 0 {
                                self.state.d.next = WrState::Drain;
                            }
                        } else if self.seqchk.write_imm_end.val() {
                            self.state.d.next = WrState::WqeReq;
                        } else {
                            // (Commit hands the payload to the mover)
                            self.state.d.next = WrState::Commit;
                        }
                    } else if self.r_place.q.val() {
                        // a receive SGE the QP may not write: local protection error
                        self.rerr.next = true;
                        self.rerr_st.next = self.c_st_prot.val();
                        self.state.d.next = WrState::DrainCut;
                    } else {
                        // bad rkey, PD, MR right, invalidated, out of range: nothing written
                        self.ackq.push.next = true;
                        self.ackq.entry.next.syndrome = self.c_syn_acc.val();
                        self.ackq.entry.next.qerr = true;
                        self.ackq.entry.next.qerr_status = self.c_st_acc.val();
                        self.ram_flags.write_data.next = self.c_fl_err.val();
                        self.ram_flags.write_enable.next = true;
                        self.counters.inc_access_err.next = true;
                        self.state.d.next = WrState::Idle;
                        if self.r_plen.q.val() != 0 {
                            self.state.d.next = WrState::Drain;
                        }
                    }
                }
            }
            WrState::WqeReq => {
                // the receive WQE at the RQ consumer index: header and its first SGE
                self.wqf.cmd_valid.next = true;
                if self.wqf.cmd_ready.val() {
                    self.state.d.next = WrState::WqeRx;
                }
            }
            WrState::WqeRx => {
                if self.wqf.done.val() {
                    self.state.d.next = WrState::WqeChk;
                    if self.r_fl.q.val() {
                        self.state.d.next = WrState::FlCqe;
                    }
                }
            }
            WrState::WqeChk => {
                // a malformed WQE (owner bit, SGE count, unreadable) is class A: NAK 0x63,
                // QP to ERR, an error completion for it. The whole payload is still to cut (for
                // `DrainCut`; a SEND sets it again in `SendLen`): set whatever the verdict, so
                // that the WQE checks stay out of the register's enable
                self.s_wrid.d.next = self.wqf.wr_id.val();
                self.p_rem.d.next = bit_cast::<16, 13>(self.r_plen.q.val());
                if self.wqf.rd_error.val() {
                    self.rerr.next = true;
                    self.rerr_st.next = self.c_st_qpop.val();
                    self.rerr_vendor.next = self.c_v_dma.val();
                    self.state.d.next = WrState::DrainCut;
                } else if !self.wqf.owner_ok.val() {
                    self.rerr.next = true;
                    self.rerr_st.next = self.c_st_qpop.val();
                    self.rerr_vendor.next = self.c_v_owner.val();
                    self.state.d.next = WrState::DrainCut;
                } else if !self.wqf.nsge_ok.val() {
                    self.rerr.next = true;
                    self.rerr_st.next = self.c_st_qpop.val();
                    self.rerr_vendor.next = self.c_v_sge.val();
                    self.state.d.next = WrState::DrainCut;
                } else {
                    if self.seqchk.is_send.val() {
                        // the WQE is open: SGE 0 is the cursor (none if it has no SGE); a
                        // WRITE_WITH_IMMEDIATE keeps its WRITE cursor and uses only the wr_id
                        self.s_nsge.d.next = self.wqf.wqe_nsge.val();
                        self.s_cap.d.next = self.wqf.wqe_len.val();
                        self.s_va_hi.d.next = self.wqf.sge_addr.val().get_bits::<32>(32);
                        self.s_va_lo.d.next = self.wqf.sge_addr.val().get_bits::<32>(0);
                        self.s_rkey.d.next = self.wqf.sge_lkey.val();
                        self.s_resid.d.next = self.wqf.sge_len.val();
                        self.s_sidx.d.next = 1.into();
                        if self.wqf.wqe_nsge.val() == 0 {
                            self.s_resid.d.next = 0.into();
                            self.s_sidx.d.next = 0.into();
                        }
                        self.state.d.next = WrState::SendLen;
                    } else {
                        // WRITE_WITH_IMMEDIATE: its data goes to the RETH's MR (checked; Commit
                        // hands it to the mover)
                        self.state.d.next = WrState::Commit;
                    }
                }
            }
            WrState::SendLen => {
                // the message must fit the receive WQE (docs/PROTOCOL.md §7.1: overflow -> NAK
                // 0x61)
                self.p_rem.d.next = bit_cast::<16, 13>(self.r_plen.q.val());
                self.state.d.next = WrState::PlaceNext;
                if self.cap_need.val() > bit_cast::<33, 32>(self.s_cap.q.val()) {
                    self.rerr.next = true;
                    self.rerr_syn.next = self.c_syn_inv.val();
                    self.rerr_st.next = self.c_st_len.val();
                    self.state.d.next = WrState::DrainCut;
                }
            }
            WrState::PlaceNext => {
                if self.p_rem.q.val() == 0 {
                    self.state.d.next = WrState::Commit;
                } else if self.s_resid.q.val() == 0 {
                    if self.s_sidx.q.val() == self.s_nsge.q.val() {
                        // the SGEs hold less than the WQE's length said: malformed WQE
                        self.rerr.next = true;
                        self.rerr_syn.next = self.c_syn_inv.val();
                        self.rerr_st.next = self.c_st_len.val();
                        self.state.d.next = WrState::DrainCut;
                    } else {
                        self.state.d.next = WrState::SgeReq;
                    }
                } else {
                    // the next piece: check it against the SGE's lkey, then write it
                    self.r_place.d.next = true;
                    self.r_n.d.next = self.piece.val().get_bits::<16>(0);
                    self.r_mkey.d.next = self.s_rkey.q.val();
                    self.r_mva.d.next = (bit_cast::<64, 32>(self.s_va_hi.q.val()) << 32)
                        | bit_cast::<64, 32>(self.s_va_lo.q.val());
                    self.r_mlen.d.next = bit_cast::<64, 32>(self.piece.val());
                    self.state.d.next = WrState::MrReq;
                }
            }
            WrState::SgeReq => {
                // the cursor's next SGE of the open receive WQE
                self.wqf.cmd_valid.next = true;
                self.wqf.cmd_sge.next = true;
                if self.wqf.cmd_ready.val() {
                    self.state.d.next = WrState::SgeRx;
                }
            }
            WrState::SgeRx => {
                if self.wqf.done.val() {
                    self.state.d.next = WrState::SgeLoad;
                }
            }
            WrState::SgeLoad => {
                self.s_va_hi.d.next = self.wqf.sge_addr.val().get_bits::<32>(32);
                self.s_va_lo.d.next = self.wqf.sge_addr.val().get_bits::<32>(0);
                self.s_rkey.d.next = self.wqf.sge_lkey.val();
                self.s_resid.d.next = self.wqf.sge_len.val();
                self.s_sidx.d.next = self.s_sidx.q.val() + 1;
                self.state.d.next = WrState::PlaceNext;
                if self.wqf.rd_error.val() {
                    self.rerr.next = true;
                    self.rerr_st.next = self.c_st_qpop.val();
                    self.rerr_vendor.next = self.c_v_dma.val();
                    self.state.d.next = WrState::DrainCut;
                }
            }
            WrState::Xfer => {
                // a SEND piece goes to the mover with its completion entry (so it waits for
                // room in the entry queue, and for the mover to take it); the SGE cursor and
                // the packet advance at once, and the next piece is prepared while this one moves
                self.mover.job_valid.next = !self.ackq.full.val();
                self.mover.job_end.next = self.r_n.q.val() == self.p_rem.q.val();
                if self.mover.job_ready.val() & !self.ackq.full.val() {
                    self.ackq.push.next = true;
                    self.ackq.entry.next.need_done = true;
                    self.ackq.entry.next.emit = false;
                    self.s_va_lo.d.next = self.c_va_lo.val();
                    if self.c_va_lo.val() < self.s_va_lo.q.val() {
                        self.s_va_hi.d.next = self.s_va_hi.q.val() + 1;
                    }
                    self.s_resid.d.next =
                        self.s_resid.q.val() - bit_cast::<32, 16>(self.r_n.q.val());
                    self.p_rem.d.next = self.p_rem.q.val() - self.r_n.q.val();
                    self.state.d.next = WrState::PlaceNext;
                }
            }
            WrState::Commit => {
                // executed: queue the response (a WRITE's entry also waits for its data's
                // completion; a SEND's pieces queued theirs), advance ePSN, MSN at the end of
                // a message, the cursors; at the end of a SEND or WRITE_WITH_IMMEDIATE the
                // receive completion (released by the entry queue after the data has landed)
                // and the RQ consumer index
                // (a WRITE's payload waits for the mover to finish the previous one)
                if !(self.mv_need.val() & self.mover.busy.val()) {
                    if !self.ackq.full.val() {
                        self.ackq.push.next = true;
                        self.ackq.entry.next.need_done = self.mv_need.val();
                        self.ackq.entry.next.emit = self.emit.val();
                        self.ackq.entry.next.msn = self.n_msn.val();
                        self.ram_nack.write_enable.next = true;
                        if !self.emit.val() & (self.cfg_ack_every.val() != 0) {
                            self.ram_nack.write_data.next = self.n_nack.val();
                        }
                        self.ram_epsn.write_data.next = self.n_epsn.val();
                        self.ram_msn.write_data.next = self.n_msn.val();
                        self.ram_flags.write_data.next = self.c_fl_clear.val();
                        if !self.seqchk.ends.val() & self.seqchk.is_send.val() {
                            self.ram_flags.write_data.next = self.c_fl_in_send.val();
                        }
                        if !self.seqchk.ends.val() & !self.seqchk.is_send.val() {
                            self.ram_flags.write_data.next = self.c_fl_in_write.val();
                        }
                        if !self.seqchk.is_send.val() {
                            self.ram_va_hi.write_data.next = self.n_va_hi.val();
                            self.ram_va_lo.write_data.next = self.n_va_lo.val();
                            self.ram_rkey.write_data.next = self.r_mkey.q.val();
                            self.ram_resid.write_data.next = self.resid.val() - self.plen32.val();
                        }
                        self.ram_mlen.write_data.next = self.n_mlen.val();
                        if self.seqchk.ends.val() {
                            self.ram_mlen.write_data.next = 0.into();
                        }
                        if self.seqchk.send_ends.val() | self.seqchk.write_imm_end.val() {
                            self.ackq.entry.next.cqe = true;
                            self.cq_push.next = true;
                            self.ram_rqci.write_data.next = self.s_rqci.q.val() + 1;
                        }
                        self.ram_epsn.write_enable.next = true;
                        self.ram_msn.write_enable.next = true;
                        self.ram_flags.write_enable.next = true;
                        self.ram_va_hi.write_enable.next = true;
                        self.ram_va_lo.write_enable.next = true;
                        self.ram_rkey.write_enable.next = true;
                        self.ram_resid.write_enable.next = true;
                        self.ram_rqci.write_enable.next = true;
                        self.ram_wrid_hi.write_enable.next = true;
                        self.ram_wrid_lo.write_enable.next = true;
                        self.ram_sge.write_enable.next = true;
                        self.ram_cap.write_enable.next = true;
                        self.ram_mlen.write_enable.next = true;
                        self.counters.inc_executed.next = true;
                        self.state.d.next = WrState::Idle;
                        if self.mv_need.val() {
                            // the payload to the mover; the next header may be taken at once
                            self.mover.job_valid.next = true;
                            self.mover.job_len.next = bit_cast::<16, 13>(self.r_plen.q.val());
                            self.mover.job_end.next = true;
                        }
                    }
                }
            }
            WrState::AtWait => {
                // an atomic reads only after every write this block issued has completed:
                // earlier WRITEs and atomics (of any QP) are visible to its read, which makes
                // atomics through this NIC atomic with respect to each other (docs/DMA.md 2.3)
                if (self.dma_out.q.val() == 0) & !self.mover.busy.val() {
                    self.state.d.next = WrState::AtRd;
                }
            }
            WrState::AtRd => {
                // after the receive queue's read ahead, if one holds the port (its beats
                // come first on the in-order channel)
                self.at_err.d.next = false;
                if !self.wqf.busy.val() {
                    self.dma_rd.req_valid.next = true;
                    self.dma_rd.req_addr.next = self.r_addr.q.val();
                    self.dma_rd.req_len.next = 8.into();
                    self.dma_rd.req_tag.next = self.r_qpn.q.val().get_bits::<8>(0);
                    if self.dma_rd.req_ready.val() {
                        self.state.d.next = WrState::AtRx;
                    }
                }
            }
            WrState::AtRx => {
                self.dma_rd.rsp.ready.next = true;
                if self.dma_rd.rsp.valid.val() {
                    self.r_old.d.next = self.dma_rd.rsp.data.val();
                    if self.dma_rd.rsp_error.val() {
                        self.at_err.d.next = true;
                    }
                    if self.dma_rd.rsp.last.val() {
                        self.state.d.next = WrState::AtWr;
                    }
                }
            }
            WrState::AtWr => {
                if self.at_err.q.val() {
                    // the read failed: NAK remote operational error, QP to ERR, nothing
                    // written
                    self.ackq.push.next = true;
                    self.ackq.entry.next.syndrome = self.c_syn_op.val();
                    self.ackq.entry.next.qerr = true;
                    self.ackq.entry.next.qerr_status = self.c_st_fatal.val();
                    self.ram_flags.write_data.next = self.c_fl_err.val();
                    self.ram_flags.write_enable.next = true;
                    self.counters.inc_dma_error.next = true;
                    self.state.d.next = WrState::Idle;
                } else {
                    // the new value: a word job of the mover (idle since AtWait)
                    self.mover.job_valid.next = true;
                    self.mover.job_word_job.next = true;
                    self.state.d.next = WrState::AtDone;
                }
            }
            WrState::AtDup => {
                // the duplicate's lookup; the ACK queue has room (checked in `Check`, and only
                // this block pushes). One older than the cache's 16 is dropped (the requester
                // has more than `max_dest_rd_atomic` outstanding, or it asked after the
                // response was retired on its side)
                self.atc.cmd_valid.next = !self.r_atq.q.val();
                if self.atc.cmd_ready.val() & !self.r_atq.q.val() {
                    self.r_atq.d.next = true;
                }
                if self.atc.rsp_valid.val() {
                    self.r_atq.d.next = false;
                    if self.atc.rsp_hit.val() {
                        self.ackq.push.next = true;
                        self.ackq.entry.next.atomic = true;
                        self.ackq.entry.next.orig = self.atc.rsp_orig.val();
                    }
                    self.state.d.next = WrState::Idle;
                    if self.r_plen.q.val() != 0 {
                        self.state.d.next = WrState::Drain;
                    }
                }
            }
            WrState::AtDone => {
                // executed: the ATOMIC ACKNOWLEDGE waits for the write's completion (the
                // requester may read the location next), ePSN and MSN advance, the result
                // goes into the replay cache as the QP's newest entry (the cache is idle by
                // now: its last command was answered or written long before this packet's read)
                if self.atc.cmd_ready.val() {
                    self.atc.cmd_valid.next = true;
                    self.atc.cmd_op.next = self.c_at_insert.val();
                    self.ackq.push.next = true;
                    self.ackq.entry.next.need_done = true;
                    self.ackq.entry.next.atomic = true;
                    self.ackq.entry.next.msn = self.s_msn.q.val() + 1;
                    self.ram_epsn.write_data.next = self.n_epsn.val();
                    self.ram_msn.write_data.next = self.s_msn.q.val() + 1;
                    self.ram_flags.write_data.next = self.c_fl_clear.val();
                    self.ram_epsn.write_enable.next = true;
                    self.ram_msn.write_enable.next = true;
                    self.ram_flags.write_enable.next = true;
                    self.counters.inc_executed.next = true;
                    self.state.d.next = WrState::Idle;
                }
            }
            WrState::Drain => {
                // (the payload ahead of this packet's may still be the mover's)
                if !self.mover.busy.val() {
                    self.pay.ready.next = true;
                    if self.pay.valid.val() & self.pay.last.val() {
                        self.state.d.next = WrState::Idle;
                    }
                }
            }
            WrState::RecvErr => {
                // handled after the state machine (it shares the completion fields)
            }
            WrState::DrainCut => {
                // after a receive error: the rest of the packet (what was not cut yet) goes to
                // the mover as a discard (which may hold some of its bytes in the cutter)
                // once the mover is free
                if self.p_rem.q.val() == 0 {
                    self.state.d.next = WrState::Idle;
                } else if self.mover.job_ready.val() {
                    self.mover.job_valid.next = true;
                    self.mover.job_discard.next = true;
                    self.mover.job_len.next = self.p_rem.q.val();
                    self.mover.job_end.next = true;
                    self.state.d.next = WrState::Idle;
                }
            }
        }

        // a receive error (malformed WQE, message too long, SGE not writable) is reported from
        // RecvErr, which waits for room in the entry queue (the pieces of this packet may have
        // filled it). What of the packet was not cut yet is then discarded (DrainCut): after
        // the WQE checks that is the whole payload.
        if self.rerr.val() {
            self.e_syn.d.next = self.rerr_syn.val();
            self.e_st.d.next = self.rerr_st.val();
            self.e_vendor.d.next = self.rerr_vendor.val();
            self.state.d.next = WrState::RecvErr;
        }
        self.rep.next = false;
        if self.state.q.val() == WrState::RecvErr {
            if !self.ackq.full.val() {
                // NAK, QP to ERR, and the receive WQE completes with the error status
                self.rep.next = true;
                self.ackq.push.next = true;
                self.ackq.entry.next.syndrome = self.e_syn.q.val();
                self.ackq.entry.next.qerr = true;
                self.ackq.entry.next.qerr_status = self.e_st.q.val();
                self.ackq.entry.next.cqe = true;
                self.cq_push.next = true;
                self.ram_flags.write_data.next = self.c_fl_err.val();
                self.ram_flags.write_enable.next = true;
                self.ram_rqci.write_data.next = self.s_rqci.q.val() + 1;
                self.ram_rqci.write_enable.next = true;
                if self.e_syn.q.val() == self.c_syn_inv.val() {
                    self.counters.inc_invalid.next = true;
                }
                self.state.d.next = WrState::DrainCut;
            }
        }

        // the receive completion queued with this entry
        // flags: WITH_IMM 1, SOLICITED 4 (none on an error completion)
        self.cq_flags.next = 0.into();
        if !self.rep.val() {
            if self.seqchk.has_imm.val() & self.r_se.q.val() {
                self.cq_flags.next = 5.into();
            } else if self.seqchk.has_imm.val() {
                self.cq_flags.next = 1.into();
            } else if self.r_se.q.val() {
                self.cq_flags.next = 4.into();
            }
        }
        self.cqf.write.next = self.cq_push.val();
        self.cqf.data_in.next.cqn = self.r_rcqn.q.val();
        self.cqf.data_in.next.wr_id = self.s_wrid.q.val();
        self.cqf.data_in.next.byte_len = self.n_mlen.val();
        self.cqf.data_in.next.imm = 0.into();
        if self.seqchk.has_imm.val() {
            self.cqf.data_in.next.imm = self.r_imm.q.val();
        }
        self.cqf.data_in.next.qpn = self.r_qpn.q.val();
        self.cqf.data_in.next.src_qp = self.r_qdest.q.val();
        self.cqf.data_in.next.wqe_index = self.s_rqci.q.val();
        self.cqf.data_in.next.vendor = 0.into();
        self.cqf.data_in.next.status = 0.into();
        if self.rep.val() {
            self.cqf.data_in.next.vendor = self.e_vendor.q.val();
            self.cqf.data_in.next.status = self.e_st.q.val();
        }
        self.cqf.data_in.next.flags = self.cq_flags.val();
        self.cqf.data_in.next.opcode = self.c_op_recv.val();
        if !self.seqchk.is_send.val() {
            self.cqf.data_in.next.opcode = self.c_op_recv_imm.val();
        }
        if self.state.q.val() == WrState::FlCqe {
            // a flushed receive: its wr_id from the slot just read (0 if the read failed)
            self.cqf.data_in.next.wr_id = self.wqf.wr_id.val();
            if self.wqf.rd_error.val() {
                self.cqf.data_in.next.wr_id = 0.into();
            }
            self.cqf.data_in.next.byte_len = 0.into();
            self.cqf.data_in.next.imm = 0.into();
            self.cqf.data_in.next.status = self.c_st_flush.val();
            self.cqf.data_in.next.flags = 0.into();
            self.cqf.data_in.next.opcode = self.c_op_recv.val();
        }
        if self.cq_push.val() {
            self.counters.inc_recv.next = true;
        }
        // out to the CQE writer when the entry queue releases it
        self.cqe_valid.next = self.ackq.cqe_go.val() & !self.cqf.empty.val();
        self.ackq.cqe_taken.next = self.cqe_valid.val() & self.cqe_ready.val();
        self.cqf.read.next = self.cqe_valid.val() & self.cqe_ready.val();
        self.cqe_cqn.next = self.cqf.data_out.val().cqn;
        self.cqe_wr_id.next = self.cqf.data_out.val().wr_id;
        self.cqe_byte_len.next = self.cqf.data_out.val().byte_len;
        self.cqe_imm.next = self.cqf.data_out.val().imm;
        self.cqe_qpn.next = self.cqf.data_out.val().qpn;
        self.cqe_src_qp.next = self.cqf.data_out.val().src_qp;
        self.cqe_wqe_index.next = self.cqf.data_out.val().wqe_index;
        self.cqe_vendor.next = self.cqf.data_out.val().vendor;
        self.cqe_flags.next = self.cqf.data_out.val().flags;
        self.cqe_status.next = self.cqf.data_out.val().status;
        self.cqe_opcode.next = self.cqf.data_out.val().opcode;

        // write-back address: the packet's QP, or the loaded one (or a doorbell's)
        self.ram_epsn.write_address.next = self.wr_qpn.val();
        self.ram_oos.write_address.next = self.wr_qpn.val();
        self.ram_msn.write_address.next = self.wr_qpn.val();
        self.ram_flags.write_address.next = self.wr_qpn.val();
        self.ram_va_hi.write_address.next = self.wr_qpn.val();
        self.ram_va_lo.write_address.next = self.wr_qpn.val();
        self.ram_rkey.write_address.next = self.wr_qpn.val();
        self.ram_resid.write_address.next = self.wr_qpn.val();
        self.ram_rqpi.write_address.next = self.wr_qpn.val();
        self.ram_rqci.write_address.next = self.wr_qpn.val();
        self.ram_wrid_hi.write_address.next = self.wr_qpn.val();
        self.ram_wrid_lo.write_address.next = self.wr_qpn.val();
        self.ram_sge.write_address.next = self.wr_qpn.val();
        self.ram_cap.write_address.next = self.wr_qpn.val();
        self.ram_mlen.write_address.next = self.wr_qpn.val();
        self.ram_nack.write_address.next = self.wr_qpn.val();
        self.ram_rqerr.write_address.next = self.wr_qpn.val();
        // the query copies follow every write of the indices
        self.ram_qrpi.write_address.next = self.wr_qpn.val();
        self.ram_qrpi.write_data.next = self.ram_rqpi.write_data.val();
        self.ram_qrpi.write_enable.next = self.ram_rqpi.write_enable.val();
        self.ram_qrci.write_address.next = self.wr_qpn.val();
        self.ram_qrci.write_data.next = self.ram_rqci.write_data.val();
        self.ram_qrci.write_enable.next = self.ram_rqci.write_enable.val();

        // DMA writes in flight (for the MR drain): +1 per request, -1 per completion
        if self.req_fire.val() & !self.dma_wr.done_valid.val() {
            self.dma_out.d.next = self.dma_out.q.val() + 1;
        }
        if !self.req_fire.val() & self.dma_wr.done_valid.val() {
            self.dma_out.d.next = self.dma_out.q.val() - 1;
        }

        // ================= outputs of the sub-blocks ========================================
        // responses: the ACK queue's head, or, when it is a READ, the read responder's packets
        // (the queue waits behind them)
        self.head_read.next = self.ackq.ack_read.val();
        self.rdr.job_valid.next = self.ackq.ack_valid.val() & self.head_read.val();
        self.rdr.job_qpn.next = self.ackq.ack_qpn.val();
        self.rdr.job_dest_qpn.next = self.ackq.ack_dest_qpn.val();
        self.rdr.job_psn.next = self.ackq.ack_psn.val();
        self.rdr.job_msn.next = self.ackq.ack_msn.val();
        self.rdr.job_syndrome.next = self.ackq.ack_syndrome.val();
        self.rdr.job_addr.next = self.ackq.ack_raddr.val();
        self.rdr.job_len.next = self.ackq.ack_rlen.val();
        self.rdr.job_pmtu.next = self.ackq.ack_rpmtu.val();
        self.ackq.ack_ready.next = self.ack_ready.val() & !self.rdr.busy.val();
        self.ackq.park.next = self.ack_park.val();
        self.ack_parked.next = self.ackq.parked.val();
        if self.head_read.val() {
            self.ackq.ack_ready.next = self.rdr.job_ready.val();
        }
        self.ack_valid.next =
            self.ackq.ack_valid.val() & !self.head_read.val() & !self.rdr.busy.val();
        self.ack_qpn.next = self.ackq.ack_qpn.val();
        self.ack_dest_qpn.next = self.ackq.ack_dest_qpn.val();
        self.ack_psn.next = self.ackq.ack_psn.val();
        self.ack_syndrome.next = self.ackq.ack_syndrome.val();
        self.ack_msn.next = self.ackq.ack_msn.val();
        self.ack_opcode.next = 17.into();
        if self.ackq.ack_atomic.val() {
            self.ack_opcode.next = 18.into();
        }
        self.ack_orig.next = self.ackq.ack_orig.val();
        self.ack_plen.next = 0.into();
        self.rdr.pk_ready.next = self.ack_ready.val();
        if self.rdr.busy.val() {
            self.ack_valid.next = self.rdr.pk_valid.val();
            self.ack_qpn.next = self.rdr.pk_qpn.val();
            self.ack_dest_qpn.next = self.rdr.pk_dest_qpn.val();
            self.ack_psn.next = self.rdr.pk_psn.val();
            self.ack_syndrome.next = self.rdr.pk_syndrome.val();
            self.ack_msn.next = self.rdr.pk_msn.val();
            self.ack_opcode.next = self.rdr.pk_opcode.val();
            self.ack_orig.next = 0.into();
            self.ack_plen.next = self.rdr.pk_plen.val();
        }
        StreamSource::<64, 8>::link(&mut self.rpay, &mut self.rdr.pay);
        self.rpay_bad.next = self.rdr.pay_bad.val();
        DmaReadMaster::<64, 8>::link(&mut self.rd_dma, &mut self.rdr.dma_rd);
        self.qerr_valid.next = self.ackq.qerr_valid.val();
        self.ackq.qerr_ready.next = self.qerr_ready.val();
        self.qerr_qpn.next = self.ackq.qerr_qpn.val();
        self.qerr_status.next = self.ackq.qerr_status.val();
        self.qerr_vendor.next = self.ackq.qerr_vendor.val();
        self.cnt_executed.next = self.counters.executed.val();
        self.cnt_duplicate.next = self.counters.duplicate.val();
        self.cnt_psn_err.next = self.counters.psn_err.val();
        self.cnt_access_err.next = self.counters.access_err.val();
        self.cnt_invalid.next = self.counters.invalid.val();
        self.cnt_unsupported.next = self.counters.unsupported.val();
        self.cnt_qp_drop.next = self.counters.qp_drop.val();
        self.cnt_dma_error.next = self.counters.dma_error.val();
        self.cnt_rnr.next = self.counters.rnr.val();
        self.cnt_recv.next = self.counters.recv.val();
        self.ev_duplicate.next = self.counters.inc_duplicate.val();
        // (the sequence check's outputs hold in `Check`, where `inc_qp_drop` is set)
        self.ev_unknown_qp.next = self.counters.inc_qp_drop.val() & self.seqchk.qpn_unknown.val();
        self.ev_qp_state.next = self.counters.inc_qp_drop.val() & !self.seqchk.qpn_unknown.val();
        self.ev_out_of_seq.next = self.counters.inc_psn_err.val();
    }
}
