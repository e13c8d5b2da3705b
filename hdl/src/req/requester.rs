//! [`RcRequester`]: the RC requester and completer (SEND, SEND with immediate, RDMA WRITE, RDMA
//! WRITE with immediate), 64-bit datapath. Decisions are in the [module documentation](super).
//!
//! # Ports
//!
//! * `ev_*`: SQ doorbells (kind `QEV_SQ`, value = producer index) and QP MODIFY notifications
//!   (kind `QEV_MODIFY`, value = new state in 2:0, old state in 6:4) from the CSR block.
//! * `ack_*`: ACKNOWLEDGE packets from the RX parser (BTH destination QP, PSN, AETH syndrome).
//! * `qpc`: the QP context read port ([`QpcReadMaster`], through the NIC's `QpcReadMux`, with
//!   a grant).
//! * `tick`: the 1.024 us timer tick ([`crate::nic::TimeBase`]), for the per-QP timers
//!   ([`super::RetransmitTimer`], a block inside this one).
//! * `mr_*`: the MR table's lookup port (local gather: no rights needed, not remote).
//! * `dma_rd`: WQE, SGE and payload reads (docs/DMA.md).
//! * `pk_*`: one request per packet to the packet formatter (which addresses it from the QP's
//!   address vector); `pay`: the packet's payload, packed, `last` on its final beat.
//! * `cqe_*`: send completions to the CQE writer; `qerr_*`: QP to ERR (the CSR block).
//!
//! # Per-QP state (block RAM, `2^QA` rows)
//!
//! SQ producer index (last doorbell), consumer index (the oldest WQE not completed), send
//! index (the next WQE to send) and the window's high index, next PSN, the window's first PSN,
//! one past the highest PSN sent, the resume PSN (first one not acknowledged), retries left,
//! the timer (armed, ACK or RNR kind, deadline: kept by [`super::RetransmitTimer`], read when
//! a job starts and written back when it ends), the flags ([`super::ReqQpFlags`]: `queued` in
//! the work ring, `err`, a READ's gap rewind, a WQE waiting for the window to drain, a message
//! set aside at a packet), and the in-flight table
//! ([`super::InflightTable`]: per WQE in flight its last PSN, wr_id, completion opcode and
//! whether it is signaled).
//!
//! # Flow
//!
//! One job at a time, in priority order: an ACK, an SQ event, an expired timer, then the QP at
//! the head of the work ring ([`super::SendScheduler`], a block inside this one; a QP the rate
//! shaper holds goes to the ring's tail instead). Each job reads the QP's context and state,
//! updates it, and writes it back:
//!
//! * send: fetch the WQE at the send index (48 bytes), check owner bit, opcode, flags, SGE
//!   count and length; fetch and check every SGE's lkey in the MR table and add up their lengths
//!   (pass 1, nothing sent yet); then segment (pass 2): per packet a header request (FIRST /
//!   MIDDLE / LAST / ONLY, RETH on a WRITE's first packet, ImmDt on the last, AckReq on the last),
//!   then one DMA read per piece of SGE the packet covers, packed into one payload.
//! * ACK: retire every WQE it covers from the oldest (a CQE for each signaled one), the QP
//!   back in the ring if the window has room; an ACK inside the oldest moves the resume PSN.
//!   NAK PSN sequence error or ACK timeout: send again from the resume PSN (earlier packets
//!   skipped); RNR NAK: the same after the RNR wait. A sequence NAK during a rewind counts if
//!   the rewind has already sent its PSN again (that packet was lost again).
//! * timers: while the window holds only SEND / WRITE, the ACK timer first runs a quarter of
//!   the local ACK timeout; then a tail-loss probe sends the highest PSN sent again, alone and
//!   with AckReq (no retry spent), and the timer runs the whole timeout before Go-Back-N. The
//!   probe is answered whatever was lost at the tail: the last packet (now in sequence), its
//!   ACK (the duplicate is re-ACKed) or a NAK (the responder NAKs again for a PSN that is
//!   not after its previous one out of sequence).
//!   NAK invalid request / remote access / remote operational, or retries exhausted: error
//!   completion, QP to ERR.
//! * a QP in ERR: every WQE left completes with WR_FLUSH_ERR.
//! * a failed DMA read (docs/DMA.md 6): a WQE or SGE that could not be read fails its WQE
//!   (FATAL_ERR, QP to ERR; `wr_id` 0 for an unreadable WQE); a payload beat that could not be
//!   read poisons its packet (`pay_bad`: the frame leaves with its ICRC complemented), which
//!   Go-Back-N then sends again like a packet lost on the link.
use super::inflight::{InflightSlot, InflightTable, WINDOW, WIN_LOG2};
use super::retransmit_timer::{QpTimer, RetransmitTimer};
use super::send_scheduler::SendScheduler;
use super::ReqQpFlags;
use crate::csr::qp_config::{CQN_W, LOG2E_W, LOG2S_W, PMTU_W, PSNWIN_W, RETRY_W, ST_W, TIMEOUT_W};
use crate::csr::qpc_port::QpcReadMaster;
use crate::dma::{DmaReadMaster, DmaWriteMaster, PayloadMover};
use crate::stream::{StreamSink, StreamSource};
use crate::widget::RegFifo;
use crate::widget::StreamPacker;
use crate::widget::StreamSkid;
use crate::widget::{ByteSwap32, ByteSwap64};
use ferroce_proto::host::cqe::{vendor_err, CqeOpcode, WcStatus};
use ferroce_proto::host::wqe::{
    send_field as wf, sge_field as sf, SendOpcode, SEND_HEADER_LEN, SGE_LEN,
};
use ferroce_proto::syndrome::rnr_timer_ns;
use ferroce_proto::wire::Opcode;
use rust_hdl::prelude::*;

// The kernel below reads the WQE, SGE and opcode encodings as literals (rust-hdl emits a named
// constant as an undeclared Verilog identifier); these assertions tie every literal it uses to
// `ferroce_proto`, the one definition of the layouts.
// WQE header (48 bytes = 6 beats): beat 0 = owner, opcode, flags, num_sge, length (LE); beat 1 =
// wr_id (LE); beat 2 = imm (wire order), rkey (LE); beat 3 = remote VA (LE).
const _: () = assert!(
    wf::OWNER == 0
        && wf::OPCODE == 1
        && wf::FLAGS == 2
        && wf::NUM_SGE == 3
        && wf::LENGTH == 4
        && wf::WR_ID == 8
        && wf::IMM_INV == 16
        && wf::RKEY == 20
        && wf::REMOTE_VA == 24
        && wf::SGES == SEND_HEADER_LEN
        && SEND_HEADER_LEN == 48
);
// The in-flight table's row index is the low 4 bits of a WQE index (a literal in the kernel).
const _: () = assert!(WIN_LOG2 == 4);
// beat 4 = compare (or add) data (LE), beat 5 = swap data (LE).
const _: () = assert!(wf::COMPARE_ADD == 32 && wf::SWAP == 40);
// SGEs (16 bytes = 2 beats) follow the header in the slot: SGE k at 48 + 16 k.
const _: () = assert!(SGE_LEN == 16);

/// SGEs read with their WQE's header in one DMA read (fewer if the slot holds fewer): a send
/// job's two passes over them, and a message set aside going on, take them from the job's SGE
/// buffer instead of reading each from host memory once per pass. An SGE past these is read
/// on its own, as before. Four cover the common scatter lists (perftest posts one) at 64 bytes
/// more per WQE read than the header alone.
pub const SGE_PREFETCH: usize = 4;

// (the beats of the WQE read count in `d_cnt`, 4 bits: 6 header beats + 2 per SGE)
const _: () = assert!(SEND_HEADER_LEN / 8 + 2 * SGE_PREFETCH <= 16);
/// Beats of the WQE header (8 bytes each).
const HDR_BEATS: usize = SEND_HEADER_LEN / 8;
// Atomics: WQE opcodes 5 (compare-swap) and 6 (fetch-add), their completion opcodes and
// packet opcodes, and the ATOMIC ACKNOWLEDGE they wait for.
const _: () = assert!(
    SendOpcode::AtomicCmpSwap as u8 == 5
        && SendOpcode::AtomicFetchAdd as u8 == 6
        && SendOpcode::RdmaRead as u8 == 4
        && CqeOpcode::CompSwap as u8 == 3
        && CqeOpcode::FetchAdd as u8 == 4
        && Opcode::RC_COMPARE_SWAP.0 == 19
        && Opcode::RC_FETCH_ADD.0 == 20
        && Opcode::RC_ATOMIC_ACKNOWLEDGE.0 == 18
);
// READ: the request (12) and its responses FIRST, MIDDLE, LAST, ONLY (13..=16); completion
// RdmaRead (2).
const _: () = assert!(
    Opcode::RC_RDMA_READ_REQUEST.0 == 12
        && Opcode::RC_RDMA_READ_RESPONSE_FIRST.0 == 13
        && Opcode::RC_RDMA_READ_RESPONSE_MIDDLE.0 == 14
        && Opcode::RC_RDMA_READ_RESPONSE_LAST.0 == 15
        && Opcode::RC_RDMA_READ_RESPONSE_ONLY.0 == 16
        && CqeOpcode::RdmaRead as u8 == 2
);
// SGE (16 bytes = 2 beats): address (LE), length (LE), lkey (LE).
const _: () = assert!(sf::ADDR == 0 && sf::LENGTH == 8 && sf::LKEY == 12);
// WQE opcodes 0..=3 (bit 1: SEND, bit 0: with immediate) and their completion opcodes.
const _: () = assert!(
    SendOpcode::RdmaWrite as u8 == 0
        && SendOpcode::RdmaWriteImm as u8 == 1
        && SendOpcode::Send as u8 == 2
        && SendOpcode::SendImm as u8 == 3
        && CqeOpcode::Send as u8 == 0
        && CqeOpcode::RdmaWrite as u8 == 1
);
// Packet opcodes: SEND 0..=5, RDMA WRITE 6..=11 (FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM).
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
);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ReqState {
    /// waiting: a runtime query, then an ACK, a READ response, an SQ event, a timer expiry,
    /// the work ring (in that order of priority) starts a job for one QP
    Idle,
    /// the work ring's head is read
    PopWait,
    /// the ring's head becomes a send job, unless the shaper holds it (moved to the tail)
    Pop,
    /// the job's QP context is asked for
    QRd,
    /// the QP context arrives and is registered
    QWait,
    /// the QP's state RAMs (indices, PSNs, flags, timers) registered
    QLatch,
    /// by job kind: an SQ event, a send job, an ACK, a timer expiry, a READ response
    Dispatch,
    /// an SQ event (doorbell, MODIFY, ...) applied to the QP's state
    EvApply,
    /// an ACK or NAK: the retirement walk begins, or a stale one is dropped
    AckApply,
    /// a send job: a WQE to send (or, in ERR, to flush) at the send (consumer) index
    SqStart,
    /// the WQE's 48-byte header is read from the SQ ring
    WqeReq,
    /// the WQE read's data (or its error)
    WqeWait,
    /// the WQE checked (owner, opcode, SGE count, length): on, or an error completion
    WqeCheck,
    /// the next SGE, or both passes done: the first checks and sums, the second segments
    SgeNext,
    /// the SGE's 16 bytes are read from the WQE slot
    SgeReq,
    /// the SGE read's data (or its error)
    SgeWait,
    /// the SGE's MR check (lkey, range, local access) is asked
    SgeMr,
    /// the MR check's answer: the SGE's IOVA, or a local protection error
    SgeMrWait,
    /// a packet's header to the TX builder (while nothing holds the TX path)
    PktHdr,
    /// the packet's payload: DMA reads of the SGEs at the cursor into the payload FIFO
    Gather,
    /// an SGE went away between the passes: zeros to the packet's end (the packet poisoned)
    ZeroFill,
    /// a packet is out: the next one, or the message's row in the in-flight table
    PktDone,
    /// a local or remote error: the QP to ERR, then its error completion
    Qerr,
    /// a completion to the CQE writer
    Cqe,
    /// the QP back on the work ring if it still has work
    Requeue,
    /// the QP's state RAMs written back: the job ends
    Writeback,
    /// a runtime query: the RAMs read at the queried QP
    QueryWait,
    /// a runtime query answered
    QueryAns,
    /// a timer expiry: retry from the oldest unacknowledged PSN, or retries exhausted
    TmrApply,
    /// an atomic's original value written to its local SGE (request and beat)
    AtWr,
    /// the atomic's write completed: it completes (or a failed write fails the QP)
    AtDone,
    /// a READ request (one packet, from the resume PSN)
    RdReq,
    /// a READ response: placed at the cursor if in sequence and well formed, else drained
    RrApply,
    /// the response's bytes at the cursor, SGE by SGE: the next piece
    RrPlace,
    /// one piece: its cut, its DMA write request and its data
    RrXfer,
    /// every write of the response completed: the cursor and resume PSN move on
    RrDone,
    /// a dropped response's payload discarded, then the gap's rewind or the write-back
    RrDrain,
    /// the in-flight row of the consumer index is read (the QP's oldest outstanding WQE)
    SlotRd,
    /// retirement: the oldest row retires if the ACK (NAK) covers it, else the walk ends
    RetChk,
    /// retirement: the next row is read
    RetRd,
    /// retirement: the CQE of a signaled row
    RetCqe,
    /// after retirement: what the ACK / NAK means for the oldest WQE left
    AckTail,
    /// the QP's next posted WQE is read ahead (its data land in `ahd_*`)
    WqeAhead,
}

// Job kinds (`r_job`, written as literals in the kernel: rust-hdl emits named constants as
// undeclared Verilog identifiers): 0 SQ event, 1 send / flush from the work ring, 2 ACK.
// `c_st` / `c_vend` indices: status 0 success, 1 LOC_LEN, 2 LOC_QP_OP, 3 LOC_PROT, 4 WR_FLUSH,
// 5 REM_INV_REQ, 6 REM_ACCESS, 7 REM_OP, 8 RETRY_EXC, 9 RNR_RETRY_EXC, 10 FATAL; vendor 0 none,
// 1 owner, 2 opcode, 3 SGE count, 4 length, 5 lkey, 6 retry timeout, 7 retry NAK, 8 DMA.

#[derive(LogicBlock)]
pub struct RcRequester<const QA: usize, const TA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- SQ events ----
    pub ev_valid: Signal<In, Bit>,
    pub ev_ready: Signal<Out, Bit>,
    pub ev_kind: Signal<In, Bits<2>>,
    pub ev_qpn: Signal<In, Bits<QA>>,
    pub ev_value: Signal<In, Bits<16>>,
    // ---- ACKs from the receive path ----
    pub ack_valid: Signal<In, Bit>,
    pub ack_ready: Signal<Out, Bit>,
    pub ack_qpn: Signal<In, Bits<24>>,
    pub ack_psn: Signal<In, Bits<24>>,
    pub ack_syndrome: Signal<In, Bits<8>>,
    /// an ATOMIC ACKNOWLEDGE (opcode 0x12) with its AtomicAckETH original value
    pub ack_atomic: Signal<In, Bit>,
    pub ack_orig: Signal<In, Bits<64>>,
    // ---- READ responses from the receive path (header, then `rpay` if it has payload) ----
    pub rr_valid: Signal<In, Bit>,
    pub rr_ready: Signal<Out, Bit>,
    pub rr_qpn: Signal<In, Bits<24>>,
    pub rr_psn: Signal<In, Bits<24>>,
    pub rr_opcode: Signal<In, Bits<8>>,
    pub rr_plen: Signal<In, Bits<13>>,
    pub rpay: StreamSink<64, 8>,
    // ---- QP context read ----
    pub qpc: QpcReadMaster<QA>,
    /// one pulse per timer tick (1.024 us, from the NIC's [`crate::nic::TimeBase`])
    pub tick: Signal<In, Bit>,
    // ---- MR lookup ----
    pub mr_req_valid: Signal<Out, Bit>,
    pub mr_req_ready: Signal<In, Bit>,
    pub mr_req_key: Signal<Out, Bits<32>>,
    pub mr_req_pd: Signal<Out, Bits<24>>,
    pub mr_req_va: Signal<Out, Bits<64>>,
    pub mr_req_len: Signal<Out, Bits<64>>,
    /// rights needed: LOCAL_WRITE for an atomic's destination, none for a gather
    pub mr_req_need: Signal<Out, Bits<4>>,
    pub mr_resp_valid: Signal<In, Bit>,
    pub mr_resp_ok: Signal<In, Bit>,
    pub mr_resp_addr: Signal<In, Bits<64>>,
    // ---- DMA reads ----
    pub dma_rd: DmaReadMaster<64, 8>,
    // ---- DMA writes (an atomic's original value into its local SGE) ----
    pub dma_wr: DmaWriteMaster<64, 8>,
    // ---- packets out ----
    pub pk_valid: Signal<Out, Bit>,
    pub pk_ready: Signal<In, Bit>,
    pub pk_qpn: Signal<Out, Bits<QA>>,
    pub pk_dest_qpn: Signal<Out, Bits<24>>,
    pub pk_opcode: Signal<Out, Bits<8>>,
    pub pk_psn: Signal<Out, Bits<24>>,
    pub pk_ackreq: Signal<Out, Bit>,
    pub pk_se: Signal<Out, Bit>,
    pub pk_va: Signal<Out, Bits<64>>,
    pub pk_rkey: Signal<Out, Bits<32>>,
    pub pk_dlen: Signal<Out, Bits<32>>,
    pub pk_imm: Signal<Out, Bits<32>>,
    /// AtomicETH swap (or add) and compare data
    pub pk_swap: Signal<Out, Bits<64>>,
    pub pk_compare: Signal<Out, Bits<64>>,
    pub pk_plen: Signal<Out, Bits<13>>,
    pub pay: StreamSource<64, 8>,
    /// valid with `pay` beats: a beat of this packet's payload came from a failed DMA read
    /// (or was zero-filled after its SGE went away), so the frame must be poisoned
    pub pay_bad: Signal<Out, Bit>,
    // ---- completions ----
    pub cqe_valid: Signal<Out, Bit>,
    pub cqe_ready: Signal<In, Bit>,
    pub cqe_cqn: Signal<Out, Bits<CQN_W>>,
    pub cqe_wr_id: Signal<Out, Bits<64>>,
    pub cqe_qpn: Signal<Out, Bits<24>>,
    pub cqe_src_qp: Signal<Out, Bits<24>>,
    pub cqe_wqe_index: Signal<Out, Bits<16>>,
    pub cqe_vendor: Signal<Out, Bits<8>>,
    pub cqe_status: Signal<Out, Bits<8>>,
    pub cqe_opcode: Signal<Out, Bits<8>>,
    // ---- QP to ERR ----
    pub qerr_valid: Signal<Out, Bit>,
    pub qerr_ready: Signal<In, Bit>,
    pub qerr_qpn: Signal<Out, Bits<QA>>,
    pub qerr_status: Signal<Out, Bits<8>>,
    pub qerr_vendor: Signal<Out, Bits<8>>,
    // ---- runtime query (QUERY of a QP: QP_SQ_INDEX and SQ drained), answered in a few cycles
    pub rtq_valid: Signal<In, Bit>,
    pub rtq_qpn: Signal<In, Bits<QA>>,
    pub rtq_ack: Signal<Out, Bit>,
    /// 15:0 producer index, 31:16 consumer index (`regs::qp_index`)
    pub rtq_sq_index: Signal<Out, Bits<32>>,
    pub rtq_drained: Signal<Out, Bit>,
    // ---- rate shaper (docs/CONGESTION.md): the gate, packet by packet, and the charge
    /// the QP the gate asks about: the job's QP while it is at a packet (`PktHdr`), else the
    /// QPN at the work ring's head (what `Pop` takes next)
    pub sh_qpn: Signal<Out, Bits<QA>>,
    /// the QP `sh_qpn` must wait (its shaper bucket is negative). At `Pop` the QP goes back to
    /// the ring's tail instead of starting; at a packet the job waits there while the engine
    /// has nothing else to do, and sets itself aside (`ev_sh_yield`, the message's cursor
    /// saved) as soon as anything else waits. Active high, 0 when undriven (no shaper).
    pub sh_wait: Signal<In, Bit>,
    /// one-cycle pulse per request packet sent: QP `sh_charge_qpn` sends `sh_charge_bytes`
    /// payload bytes (0 for a READ request or an atomic)
    pub sh_charge: Signal<Out, Bit>,
    pub sh_charge_qpn: Signal<Out, Bits<QA>>,
    pub sh_charge_bytes: Signal<Out, Bits<32>>,
    // ---- the receive path waits (docs/CONGESTION.md) ----
    /// The receive path waits on the requester (NicTop: a READ response, or an ACK its full
    /// ACK queue cannot take) while PFC pauses the priority the requester's packets go on, or
    /// while the receive FIFO is half full (`RX_REQ_YIELD_WORDS`). While high no send job
    /// starts from the work ring, and a job that is at a packet it would send, a READ request
    /// or its next SGE read sets itself aside (`ev_yield`): the QP goes back to the ring with
    /// its message's resume point, and the engine takes ACKs and READ responses meanwhile.
    /// Else a requester held inside a message (by a pause, or by its WQE and SGE reads queued
    /// behind the host's bulk reads) stops taking READ responses and its receive FIFO
    /// overflows, or, with PFC, it pauses its peer, and two NICs that READ from each other
    /// pause each other for good. (A job paused with nothing waiting stays at its packet,
    /// which leaves as soon as the pause ends.)
    pub tx_hold: Signal<In, Bit>,
    /// `CFG_SQ_QUANTUM`: packets a send job sends in one turn while other QPs wait in the
    /// work ring; then it sets itself aside like a held job (its QP to the ring's tail, the
    /// message's cursor saved), so a long message does not hold up a short one on another QP
    /// for its whole length. 0 = no limit (a whole message per turn).
    pub cfg_quantum: Signal<In, Bits<8>>,
    /// one-cycle pulse per send job set aside for `tx_hold`
    pub ev_yield: Signal<Out, Bit>,
    /// one-cycle pulse per send job set aside because the shaper held its next packet while
    /// other work waited
    pub ev_sh_yield: Signal<Out, Bit>,
    // ---- counters (32-bit, wrapping) ----
    pub cnt_packets: Signal<Out, Bits<32>>,
    pub cnt_messages: Signal<Out, Bits<32>>,
    pub cnt_acks: Signal<Out, Bits<32>>,
    pub cnt_naks: Signal<Out, Bits<32>>,
    pub cnt_resent: Signal<Out, Bits<32>>,
    pub cnt_errors: Signal<Out, Bits<32>>,
    pub cnt_retransmitted: Signal<Out, Bits<32>>,
    pub cnt_timeouts: Signal<Out, Bits<32>>,
    /// one-cycle pulses for the NIC's 64-bit counters: a request packet sent again, a
    /// Go-Back-N rewind, a local ACK timer expiry, a QP failed with its retries exhausted
    pub ev_retransmit: Signal<Out, Bit>,
    pub ev_rewind: Signal<Out, Bit>,
    /// a tail-loss probe
    pub ev_probe: Signal<Out, Bit>,
    pub ev_timeout: Signal<Out, Bit>,
    pub ev_retry_exc: Signal<Out, Bit>,

    packer: StreamPacker,
    /// kind of each DMA read in flight, in order: bit 0 payload (else a descriptor), bit 1 the
    /// piece ends its packet; a descriptor with bit 1 (2) is a WQE read ahead
    kinds: RegFifo<2, 16, 5>,
    /// Payload read responses wait here for the packer: a gather read is issued only when the
    /// FIFO has room for its whole response (`resv` counts the beats reserved), so the shared
    /// DMA read channel never waits for the TX path (which may wait for the peer, whose
    /// responder may wait for its own reads: a cycle that would deadlock two NICs)
    pfifo: SynchronousFIFO<Bits<75>, 10, 11, 1>,
    resv: DFF<Bits<11>>,
    pf_beats: Signal<Local, Bits<11>>,
    pf_room: Signal<Local, Bit>,
    /// The FIFO's head leaves through a register slice before the packer: the block RAM's
    /// output (5.8 ns clock-to-output on ECP5) no longer feeds the packer's logic directly
    /// (the path it was on: docs/RESOURCES.md). `keep` and `last` of the slice are unused:
    /// the 75-bit entry is its data.
    pfreg: StreamSkid<75, 1>,
    /// an entry moves from the FIFO into `pfreg` (the FIFO's room, `resv`, counts these)
    pf_pop: Signal<Local, Bit>,
    /// the entry at the packer's input (`pfreg`'s output)
    pf_out: Signal<Local, Bits<75>>,
    /// neither the FIFO nor its output slice holds a payload beat
    pf_empty: Signal<Local, Bit>,
    pf_lastb: Signal<Local, Bits<75>>,
    pf_c14: Signal<Local, Bits<14>>,
    // per-QP state
    ram_pi: RAM<Bits<16>, QA>,
    ram_ci: RAM<Bits<16>, QA>,
    ram_psn: RAM<Bits<24>, QA>,
    ram_spsn: RAM<Bits<24>, QA>,
    /// one past the highest PSN sent (a rewind sends again below it)
    ram_hpsn: RAM<Bits<24>, QA>,
    /// the QP's flags ([`ReqQpFlags`])
    ram_flags: RAM<ReqQpFlags, QA>,
    /// the send index (the next WQE to send) and the window's high index (one past the newest
    /// WQE sent): rows `ci .. hi` of the in-flight table are outstanding
    ram_si: RAM<Bits<16>, QA>,
    ram_hi: RAM<Bits<16>, QA>,
    /// first PSN of the message in flight not acknowledged yet: where Go-Back-N resumes
    ram_rpsn: RAM<Bits<24>, QA>,
    /// the cursor of a message set aside at a packet (`suspended`; for PFC or the shaper):
    /// 31:0 bytes of the message left (`m_rem`), 39:32 the next SGE to fetch (`r_k`), 71:40
    /// bytes left in the SGE before it (`g_rem`, 0: none). The message goes on from there
    /// when the QP is next served: its WQE read again, the one SGE the cursor is in fetched
    /// and checked in the MR table again, nothing walked twice
    ram_cur: RAM<Bits<72>, QA>,
    /// retries left: 2:0 retry_cnt, 6:4 rnr_retry (loaded at each message and on progress)
    ram_retry: RAM<Bits<8>, QA>,
    /// the QPs' timers (ACK timeout or RNR wait), the tick count and the expiry scanner
    timers: RetransmitTimer<QA>,
    /// the work ring (QPs with WQEs to send or flush, each at most once) and the shaper's
    /// gate at its head
    sched: SendScheduler<QA>,
    /// the translated address of an atomic's local SGE (where its original value goes)
    ram_dst: RAM<Bits<64>, QA>,
    s_dst: DFF<Bits<64>>,
    r_aatom: DFF<Bit>,
    r_aorig: DFF<Bits<64>>,
    d4: DFF<Bits<64>>,
    d5: DFF<Bits<64>>,
    w_cmpadd: DFF<Bits<64>>,
    w_swap: DFF<Bits<64>>,
    is_atom: Signal<Local, Bit>,
    out_atom: Signal<Local, Bit>,
    /// The DMA writes (a READ response's pieces, an atomic's original value) are jobs of the
    /// data mover shared with the responder: it cuts the response payload into pieces, one DMA
    /// write per piece, and its request and data leave through registers, so the shell's
    /// `ready` never reaches the cursors or the state machine combinationally
    mover: PayloadMover,
    /// the READ's scatter cursor (per QP, at the resume PSN): SGE index, bytes left in that
    /// SGE (its translated address is `ram_dst`), and bytes of the message still to come
    ram_rk: RAM<Bits<8>, QA>,
    ram_rrem: RAM<Bits<32>, QA>,
    ram_rleft: RAM<Bits<32>, QA>,
    s_rk: DFF<Bits<8>>,
    s_rrem: DFF<Bits<32>>,
    s_rleft: DFF<Bits<32>>,
    r_rop: DFF<Bits<8>>,
    r_rplen: DFF<Bits<13>>,
    /// the SGE fetch states serve a READ response (return to RrPlace)
    r_rrsp: DFF<Bit>,
    /// an SGE of the READ failed its MR check: the rest of the packet is discarded
    r_rfail: DFF<Bit>,
    /// RrDrain: a response beyond a gap, rewind after draining
    r_gap: DFF<Bit>,
    /// RrDrain: the job loaded the QP (write it back)
    r_wb: DFF<Bit>,
    /// RrDrain: the dropped response's last payload beat was taken
    pay_done: DFF<Bit>,
    /// DMA writes issued and not completed, and whether one of them failed since the mover
    /// was last idle with nothing outstanding (the job's writes, or those of the earlier
    /// packets of the same READ still in flight: `wr_idle`)
    w_out: DFF<Bits<8>>,
    w_err: DFF<Bit>,
    /// the QP whose READ-response payload the mover placed last: a response of another QP
    /// waits in RrApply until those writes have completed, so that a failed write is charged
    /// to the READ it belongs to
    w_qpn: DFF<Bits<QA>>,
    /// the mover is idle and every DMA write has completed
    wr_idle: Signal<Local, Bit>,
    r_piece: DFF<Bits<16>>,
    is_rd: Signal<Local, Bit>,
    out_rd: Signal<Local, Bit>,
    need_lw: Signal<Local, Bit>,
    rd_sh: Signal<Local, Bits<5>>,
    rd_np: Signal<Local, Bits<32>>,
    rd_off: Signal<Local, Bits<32>>,
    rr_d: Signal<Local, Bits<24>>,
    rr_ahead: Signal<Local, Bit>,
    rr_first: Signal<Local, Bit>,
    rr_lastp: Signal<Local, Bit>,
    rr_op_ok: Signal<Local, Bit>,
    rr_len_ok: Signal<Local, Bit>,
    rr_ok: Signal<Local, Bit>,
    rp_ready: Signal<Local, Bit>,
    wr_any: Signal<Local, Bit>,
    pmtu32: Signal<Local, Bits<32>>,
    // the QP's transport attributes
    q_timeout: DFF<Bits<TIMEOUT_W>>,
    /// log2 of the QP's send window in PSNs (`QP_RING_CFG`)
    q_psnwin: DFF<Bits<PSNWIN_W>>,
    q_retry: DFF<Bits<RETRY_W>>,
    q_rnr_retry: DFF<Bits<RETRY_W>>,

    state: DFF<ReqState>,
    /// a runtime query waits (the CSR block's request is a pulse)
    q_pend: DFF<Bit>,
    q_qpn: DFF<Bits<QA>>,
    r_job: DFF<Bits<3>>,
    r_qpn: DFF<Bits<QA>>,
    r_evkind: DFF<Bits<2>>,
    r_evval: DFF<Bits<16>>,
    r_apsn: DFF<Bits<24>>,
    r_asyn: DFF<Bits<8>>,
    // QP context
    q_state: DFF<Bits<ST_W>>,
    q_pd: DFF<Bits<24>>,
    q_dest: DFF<Bits<24>>,
    q_pmtu: DFF<Bits<PMTU_W>>,
    q_sqpsn: DFF<Bits<24>>,
    q_base: DFF<Bits<64>>,
    q_log2e: DFF<Bits<LOG2E_W>>,
    q_log2s: DFF<Bits<LOG2S_W>>,
    q_cqn: DFF<Bits<CQN_W>>,
    // the QP's requester state
    s_pi: DFF<Bits<16>>,
    s_ci: DFF<Bits<16>>,
    s_psn: DFF<Bits<24>>,
    s_spsn: DFF<Bits<24>>,
    s_lpsn: DFF<Bits<24>>,
    s_si: DFF<Bits<16>>,
    s_hi: DFF<Bits<16>>,
    s_hpsn: DFF<Bits<24>>,
    /// the oldest outstanding WQE is signaled (its row, as `s_wrid`, `s_op`, `s_lpsn`)
    s_sig: DFF<Bit>,
    /// the send window: one row per WQE sent and not retired
    tbl: InflightTable<TA>,
    /// The in-flight table's output, registered: the retirement walk decides from this
    /// register, not from the block RAM's output (its clock-to-output began the engine's
    /// critical path, `tbl` -> the completion's fields). The walk reads a row two cycles ahead
    /// (RetChk addresses the next row), so the register costs no cycle.
    row: DFF<InflightSlot>,
    ci_next: Signal<Local, Bits<16>>,
    /// the ACK job retired at least one WQE (progress)
    r_ret: DFF<Bit>,
    inflight: Signal<Local, Bit>,
    rewinding: Signal<Local, Bit>,
    d_rew: Signal<Local, Bits<24>>,
    d_rs: Signal<Local, Bits<24>>,
    d_ps: Signal<Local, Bits<24>>,
    d_sc: Signal<Local, Bits<16>>,
    /// the oldest outstanding message was sent whole (its last packet, with AckReq, is out)
    whole_out: Signal<Local, Bit>,
    can_send: Signal<Local, Bit>,
    new_ok: Signal<Local, Bit>,
    win_used: Signal<Local, Bits<16>>,
    psn_used: Signal<Local, Bits<24>>,
    w_idx: Signal<Local, Bits<16>>,
    out_rdat: Signal<Local, Bit>,
    wq_rdat: Signal<Local, Bit>,
    is_ackc: Signal<Local, Bit>,
    l_off: Signal<Local, Bits<24>>,
    ret_ok: Signal<Local, Bit>,
    c_win: Constant<Bits<16>>,
    c_one24: Constant<Bits<24>>,
    /// the QP's send window in PSNs (`1 << q_psnwin`)
    psn_lim: Signal<Local, Bits<24>>,
    /// the new message at `si` fits in the window with what is outstanding: PSNs sent and not
    /// retired plus its own packets (registered: its length settled two cycles before PktHdr,
    /// except when a message set aside at its first packet goes on straight from WqeCheck;
    /// then it holds the previous job's result and may make the QP wait for a drain it does
    /// not need, never send past the window)
    fit_ok: DFF<Bit>,
    /// PktHdr: the message's first packet, new, with a window too full for it
    win_wait: Signal<Local, Bit>,
    /// packets this send job has sent in its turn (`cfg_quantum`)
    turn_pk: DFF<Bits<8>>,
    /// PktHdr: the turn's quantum is used up and other QPs wait in the work ring
    turn_over: Signal<Local, Bit>,
    s_flags: DFF<ReqQpFlags>,
    s_wrid: DFF<Bits<64>>,
    s_op: DFF<Bits<8>>,
    s_rpsn: DFF<Bits<24>>,
    s_cur: DFF<Bits<72>>,
    /// a message set aside goes on: the SGE its cursor is in is being fetched again
    r_resume: DFF<Bit>,
    s_retry: DFF<Bits<8>>,
    /// the job's QP timer (read from `timers` when the job starts, written back at its end)
    s_tmr: DFF<QpTimer>,
    /// the packet being walked lies before the resume PSN: its bytes are skipped, not sent
    r_skip: DFF<Bit>,
    // descriptor beats (WQE header or SGE)
    d0: DFF<Bits<64>>,
    d1: DFF<Bits<64>>,
    d2: DFF<Bits<64>>,
    d3: DFF<Bits<64>>,
    d_cnt: DFF<Bits<4>>,
    d_done: DFF<Bit>,
    /// the descriptor read that set `d_done` failed (`rsp_error` on one of its beats)
    d_err: DFF<Bit>,
    d_erracc: DFF<Bit>,
    /// the SGE buffer: SGE k of the WQE at `w_slot` (k < `sgb_n`), as read with its header
    /// (`SGE_PREFETCH`): the address beat and the length/lkey beat
    sgb_addr: [DFF<Bits<64>>; SGE_PREFETCH],
    sgb_lkey: [DFF<Bits<64>>; SGE_PREFETCH],
    /// `sgb_*` hold the first `sgb_n` SGEs of the WQE at `w_slot` (cleared when a job reads
    /// another WQE or a READ response's cursor moves `w_slot`)
    sgb_ok: DFF<Bit>,
    sgb_n: DFF<Bits<8>>,
    /// read the WQE's header alone: its read with the SGEs failed (a failed read's flag may
    /// come on any beat, docs/DMA.md 6), so the header is read again without them and each
    /// SGE on its own, which keeps a failure in the SGEs an SGE failure
    wqe_hdr_only: DFF<Bit>,
    /// SGEs read with a WQE's header: min(the slot's capacity, SGE_PREFETCH)
    sgb_fetch: Signal<Local, Bits<8>>,
    /// bytes of the WQE read
    wqe_rd_len: Signal<Local, Bits<16>>,
    /// the job's SGE `r_k` is in the SGE buffer
    sgb_hit: Signal<Local, Bit>,
    /// SGE `r_k`'s two beats from the SGE buffer
    sgb_a: Signal<Local, Bits<64>>,
    sgb_l: Signal<Local, Bits<64>>,
    /// the beats of the WQE read that carry SGE k's address and its length/lkey
    c_sgb_beat_a: [Constant<Bits<4>>; SGE_PREFETCH],
    c_sgb_beat_l: [Constant<Bits<4>>; SGE_PREFETCH],
    c_sgb_max: Constant<Bits<16>>,
    c_hdr_len: Constant<Bits<16>>,
    c_sge_len: Constant<Bits<16>>,
    // The WQE read ahead: while a send job checks its WQE, the QP's next posted WQE (header
    // and first SGEs, as `WqeReq` reads them) is read into these registers, so that its data
    // arrive before the current message's payload, which the job requests next. The QP's next
    // send job takes them at `WqeReq` instead of reading the WQE then (behind that payload).
    /// header beats and SGE beats of the WQE read ahead
    ahd_hdr: [DFF<Bits<64>>; HDR_BEATS],
    ahd_sga: [DFF<Bits<64>>; SGE_PREFETCH],
    ahd_sgl: [DFF<Bits<64>>; SGE_PREFETCH],
    /// a WQE read ahead is held (or on its way) for QP `ahd_qpn`, WQE index `ahd_idx`, with
    /// `ahd_n` SGEs; cleared when that QP's next send or flush job starts (taken or not) and
    /// by any MODIFY event (a QP reset may reuse the ring)
    ahd_valid: DFF<Bit>,
    ahd_qpn: DFF<Bits<QA>>,
    ahd_idx: DFF<Bits<16>>,
    ahd_n: DFF<Bits<8>>,
    /// its read is in flight (no other is issued meanwhile), its beat count, errors so far
    ahd_busy: DFF<Bit>,
    ahd_cnt: DFF<Bits<4>>,
    ahd_erracc: DFF<Bit>,
    /// all of its beats arrived; one of them was flagged failed
    ahd_done: DFF<Bit>,
    ahd_err: DFF<Bit>,
    /// the SQ slot of the WQE after the send index
    slot_nx: DFF<Bits<64>>,
    /// the DMA response beat belongs to a read ahead (kind 2)
    is_ahd: Signal<Local, Bit>,
    /// read the next WQE ahead now (a send job that has its WQE; another is posted)
    ahd_want: Signal<Local, Bit>,
    /// the send or flush job's QP holds the WQE read ahead
    ahd_qp: Signal<Local, Bit>,
    /// ... and it is the WQE the job reads (a send job, not the header-only retry)
    ahd_hit: Signal<Local, Bit>,
    // poisoned packets: the packer's current input packet had a bad beat; the packet whose
    // end the packer is still flushing, and whether it is bad
    pb_acc: DFF<Bit>,
    pb_pend: DFF<Bit>,
    pb_flush: DFF<Bit>,
    in_err: Signal<Local, Bit>,
    pk_in_fire: Signal<Local, Bit>,
    pk_out_last: Signal<Local, Bit>,
    cur_bad: Signal<Local, Bit>,
    c_err_bit: Constant<Bits<75>>,
    // the WQE being sent
    r_flush: DFF<Bit>,
    w_op: DFF<Bits<8>>,
    w_flags: DFF<Bits<8>>,
    w_nsge: DFF<Bits<8>>,
    w_len: DFF<Bits<32>>,
    w_imm: DFF<Bits<32>>,
    w_rkey: DFF<Bits<32>>,
    w_va: DFF<Bits<64>>,
    w_wrid: DFF<Bits<64>>,
    w_slot: DFF<Bits<64>>,
    r_pass2: DFF<Bit>,
    r_k: DFF<Bits<8>>,
    r_sum: DFF<Bits<40>>,
    // current SGE
    g_addr: DFF<Bits<64>>,
    g_len: DFF<Bits<32>>,
    g_lkey: DFF<Bits<32>>,
    g_iova: DFF<Bits<64>>,
    g_rem: DFF<Bits<32>>,
    // segmentation
    m_rem: DFF<Bits<32>>,
    m_first: DFF<Bit>,
    /// the last PSN of the message whose first packet goes now (its in-flight row)
    row_lpsn: Signal<Local, Bits<24>>,
    p_rem: DFF<Bits<13>>,
    p_last: DFF<Bit>,
    // completion to write
    c_status: DFF<Bits<8>>,
    c_vendor: DFF<Bits<8>>,
    c_wrid: DFF<Bits<64>>,
    c_op: DFF<Bits<8>>,
    c_index: DFF<Bits<16>>,
    c_err: DFF<Bit>,
    // counters
    n_packets: DFF<Bits<32>>,
    n_messages: DFF<Bits<32>>,
    n_acks: DFF<Bits<32>>,
    n_naks: DFF<Bits<32>>,
    n_resent: DFF<Bits<32>>,
    n_errors: DFF<Bits<32>>,
    n_retx: DFF<Bits<32>>,
    n_tmo: DFF<Bits<32>>,

    /// 2^QA: ACKs for QPNs at or above it are dropped
    c_nqp: Constant<Bits<24>>,
    c_st: [Constant<Bits<8>>; 11],
    c_vend: [Constant<Bits<8>>; 9],
    /// RNR NAK timer field -> wait in ticks (`rnr_timer_ns`, 1 tick per us)
    c_rnr: [Constant<Bits<32>>; 32],
    c_idx5: [Constant<Bits<5>>; 32],
    c_four: Constant<Bits<32>>,
    /// 1: a quarter of the local ACK timeout (4 << timeout ticks) is 1 << timeout
    c_one32: Constant<Bits<32>>,

    // ---- locals ----
    is_pay: Signal<Local, Bit>,
    rsp_fire: Signal<Local, Bit>,
    rd_fire: Signal<Local, Bit>,
    ring_mask: Signal<Local, Bits<16>>,
    slot_addr: Signal<Local, Bits<64>>,
    /// The slot addresses of the send index and of the consumer index, registered every
    /// cycle: `slot_addr` selects between the two registers, so the shifter and the 64-bit
    /// adder end in a register instead of running on into the DMA read request and `w_slot`.
    /// Both are valid where `slot_addr` is used (`WqeReq`, `RrApply`): the indices and the
    /// ring settled in `QLatch`, at least two cycles before.
    slot_si: DFF<Bits<64>>,
    slot_ci: DFF<Bits<64>>,
    exp_owner: Signal<Local, Bit>,
    sge_cap: Signal<Local, Bits<16>>,
    x_len: Signal<Local, Bits<32>>,
    x_wrid: Signal<Local, Bits<64>>,
    x_rkey: Signal<Local, Bits<32>>,
    x_va: Signal<Local, Bits<64>>,
    x_saddr: Signal<Local, Bits<64>>,
    x_slen: Signal<Local, Bits<32>>,
    x_lkey: Signal<Local, Bits<32>>,
    cqe_op: Signal<Local, Bits<8>>,
    pmtu: Signal<Local, Bits<13>>,
    plen: Signal<Local, Bits<13>>,
    plen32: Signal<Local, Bits<32>>,
    is_last: Signal<Local, Bit>,
    opc: Signal<Local, Bits<8>>,
    chunk: Signal<Local, Bits<32>>,
    p_rem32: Signal<Local, Bits<32>>,
    queued: Signal<Local, Bit>,
    outstanding: Signal<Local, Bit>,
    signaled: Signal<Local, Bit>,
    qp_err: Signal<Local, Bit>,
    covered: Signal<Local, Bit>,
    apsn_d: Signal<Local, Bits<24>>,
    ci_pass: Signal<Local, Bits<16>>,
    retrying: Signal<Local, Bit>,
    a_off: Signal<Local, Bits<24>>,
    m_span: Signal<Local, Bits<24>>,
    in_range: Signal<Local, Bit>,
    a_fwd: Signal<Local, Bits<24>>,
    /// a sequence NAK's PSN relative to the send cursor: during a rewind, a NAK for a PSN
    /// the rewind has already sent again (bit 23 set) reports a new loss
    a_cur: Signal<Local, Bits<24>>,
    /// a sequence NAK starts a Go-Back-N (see `AckTail`)
    nak_new: Signal<Local, Bit>,
    skip_d: Signal<Local, Bits<24>>,
    tmo_t: Signal<Local, Bits<TIMEOUT_W>>,
    tmo_ticks: Signal<Local, Bits<32>>,
    /// the probe timeout: a quarter of the local ACK timeout
    pto_ticks: Signal<Local, Bits<32>>,
    /// the ACK timer armed for the probe timeout
    arm_pto: Signal<Local, QpTimer>,
    /// the ACK timer a new timer period starts with: the probe timeout while the window holds
    /// only SEND / WRITE (no READ or atomic), else the local ACK timeout
    arm_next: Signal<Local, QpTimer>,
    /// a tail-loss probe is being sent (the `probe` flag during a rewind)
    probing: Signal<Local, Bit>,
    /// the send cursor is at the highest PSN sent (the probe's packet)
    at_top: Signal<Local, Bit>,
    rnr_ticks: Signal<Local, Bits<32>>,
    tmr_armed: Signal<Local, Bit>,
    tmr_rnr: Signal<Local, Bit>,
    tmr_due: Signal<Local, Bit>,
    tmr_left: Signal<Local, Bits<32>>,
    /// the timer armed for the local ACK timeout from now (stopped if the QP has none)
    arm_ack: Signal<Local, QpTimer>,
    /// the timer armed for the RNR wait the NAK asks for
    arm_rnr: Signal<Local, QpTimer>,
    retry_load: Signal<Local, Bits<8>>,
    retry_now: Signal<Local, Bits<8>>,
    skip_now: Signal<Local, Bit>,
    suspended: Signal<Local, Bit>,
    /// anything else waits for the job engine (an ACK, a READ response, an SQ event, a timer,
    /// a query, or a QP in the work ring)
    others_wait: Signal<Local, Bit>,
    /// the job's message at its next packet, set aside: its cursor (`ram_cur`)
    cur_now: Signal<Local, Bits<72>>,
    c_tmr_stop: Constant<QpTimer>,
    c_one16: Constant<Bits<16>>,
    c_128: Constant<Bits<13>>,
    zf_n: Signal<Local, Bits<4>>,
    c_keep: [Constant<Bits<8>>; 9],
    c_cnt: [Constant<Bits<4>>; 16],
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_aorig: ByteSwap64,
    le_wrid: ByteSwap64,
    le_va: ByteSwap64,
    le_sge_addr: ByteSwap64,
    le_cmpadd: ByteSwap64,
    le_swap: ByteSwap64,
    le_len: ByteSwap32,
    le_rkey: ByteSwap32,
    le_sge_len: ByteSwap32,
    le_sge_lkey: ByteSwap32,
}

impl<const QA: usize, const TA: usize> Default for RcRequester<QA, TA> {
    fn default() -> Self {
        assert!((1..=16).contains(&QA), "RcRequester: QA must be 1..=16");
        assert!(TA == QA + WIN_LOG2, "RcRequester: TA must be QA + WIN_LOG2");
        fn zram<T: Synth + Default, const A: usize>() -> RAM<T, A> {
            RAM::from((0..(1usize << A)).map(|_| T::default()))
        }
        let st = [
            WcStatus::Success,
            WcStatus::LocLenErr,
            WcStatus::LocQpOpErr,
            WcStatus::LocProtErr,
            WcStatus::WrFlushErr,
            WcStatus::RemInvReqErr,
            WcStatus::RemAccessErr,
            WcStatus::RemOpErr,
            WcStatus::RetryExcErr,
            WcStatus::RnrRetryExcErr,
            WcStatus::FatalErr,
        ];
        let vend = [
            vendor_err::NONE,
            vendor_err::WQE_OWNER,
            vendor_err::WQE_OPCODE,
            vendor_err::WQE_SGE_COUNT,
            vendor_err::WQE_LENGTH,
            vendor_err::LKEY,
            vendor_err::RETRY_TIMEOUT,
            vendor_err::RETRY_NAK,
            vendor_err::DMA,
        ];
        RcRequester {
            le_aorig: Default::default(),
            le_wrid: Default::default(),
            le_va: Default::default(),
            le_sge_addr: Default::default(),
            le_cmpadd: Default::default(),
            le_swap: Default::default(),
            le_len: Default::default(),
            le_rkey: Default::default(),
            le_sge_len: Default::default(),
            le_sge_lkey: Default::default(),
            clock: Default::default(),
            ev_valid: Default::default(),
            ev_ready: Default::default(),
            ev_kind: Default::default(),
            ev_qpn: Default::default(),
            ev_value: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_qpn: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            ack_atomic: Default::default(),
            ack_orig: Default::default(),
            rr_valid: Default::default(),
            rr_ready: Default::default(),
            rr_qpn: Default::default(),
            rr_psn: Default::default(),
            rr_opcode: Default::default(),
            rr_plen: Default::default(),
            rpay: Default::default(),
            mover: Default::default(),
            ram_rk: zram(),
            ram_rrem: zram(),
            ram_rleft: zram(),
            s_rk: Default::default(),
            s_rrem: Default::default(),
            s_rleft: Default::default(),
            r_rop: Default::default(),
            r_rplen: Default::default(),
            r_rrsp: Default::default(),
            r_rfail: Default::default(),
            r_gap: Default::default(),
            r_wb: Default::default(),
            pay_done: Default::default(),
            w_out: Default::default(),
            w_err: Default::default(),
            w_qpn: Default::default(),
            wr_idle: Default::default(),
            r_piece: Default::default(),
            is_rd: Default::default(),
            out_rd: Default::default(),
            need_lw: Default::default(),
            rd_sh: Default::default(),
            rd_np: Default::default(),
            rd_off: Default::default(),
            rr_d: Default::default(),
            rr_ahead: Default::default(),
            rr_first: Default::default(),
            rr_lastp: Default::default(),
            rr_op_ok: Default::default(),
            rr_len_ok: Default::default(),
            rr_ok: Default::default(),
            rp_ready: Default::default(),
            wr_any: Default::default(),
            pmtu32: Default::default(),
            qpc: Default::default(),
            tick: Default::default(),
            mr_req_valid: Default::default(),
            mr_req_ready: Default::default(),
            mr_req_key: Default::default(),
            mr_req_pd: Default::default(),
            mr_req_va: Default::default(),
            mr_req_len: Default::default(),
            mr_req_need: Default::default(),
            mr_resp_valid: Default::default(),
            mr_resp_ok: Default::default(),
            mr_resp_addr: Default::default(),
            dma_rd: Default::default(),
            dma_wr: Default::default(),
            pk_valid: Default::default(),
            pk_ready: Default::default(),
            pk_qpn: Default::default(),
            pk_dest_qpn: Default::default(),
            pk_opcode: Default::default(),
            pk_psn: Default::default(),
            pk_ackreq: Default::default(),
            pk_se: Default::default(),
            pk_va: Default::default(),
            pk_rkey: Default::default(),
            pk_dlen: Default::default(),
            pk_imm: Default::default(),
            pk_swap: Default::default(),
            pk_compare: Default::default(),
            pk_plen: Default::default(),
            pay: Default::default(),
            pay_bad: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_cqn: Default::default(),
            cqe_wr_id: Default::default(),
            cqe_qpn: Default::default(),
            cqe_src_qp: Default::default(),
            cqe_wqe_index: Default::default(),
            cqe_vendor: Default::default(),
            cqe_status: Default::default(),
            cqe_opcode: Default::default(),
            qerr_valid: Default::default(),
            qerr_ready: Default::default(),
            qerr_qpn: Default::default(),
            qerr_status: Default::default(),
            qerr_vendor: Default::default(),
            rtq_valid: Default::default(),
            rtq_qpn: Default::default(),
            sh_qpn: Default::default(),
            sh_wait: Default::default(),
            sh_charge: Default::default(),
            sh_charge_qpn: Default::default(),
            sh_charge_bytes: Default::default(),
            tx_hold: Default::default(),
            cfg_quantum: Default::default(),
            ev_yield: Default::default(),
            ev_sh_yield: Default::default(),
            rtq_ack: Default::default(),
            rtq_sq_index: Default::default(),
            rtq_drained: Default::default(),
            cnt_packets: Default::default(),
            cnt_messages: Default::default(),
            cnt_acks: Default::default(),
            cnt_naks: Default::default(),
            cnt_resent: Default::default(),
            cnt_errors: Default::default(),
            cnt_retransmitted: Default::default(),
            cnt_timeouts: Default::default(),
            ev_retransmit: Default::default(),
            ev_rewind: Default::default(),
            ev_probe: Default::default(),
            ev_timeout: Default::default(),
            ev_retry_exc: Default::default(),
            packer: Default::default(),
            kinds: Default::default(),
            pfifo: Default::default(),
            resv: Default::default(),
            pf_beats: Default::default(),
            pf_room: Default::default(),
            pfreg: Default::default(),
            pf_pop: Default::default(),
            pf_out: Default::default(),
            pf_empty: Default::default(),
            pf_lastb: Default::default(),
            pf_c14: Default::default(),
            ram_pi: zram(),
            ram_ci: zram(),
            ram_psn: zram(),
            ram_spsn: zram(),
            ram_hpsn: zram(),
            ram_flags: zram(),
            ram_si: zram(),
            ram_hi: zram(),
            ram_rpsn: zram(),
            ram_cur: zram(),
            ram_retry: zram(),
            timers: Default::default(),
            sched: Default::default(),
            ram_dst: zram(),
            s_dst: Default::default(),
            r_aatom: Default::default(),
            r_aorig: Default::default(),
            d4: Default::default(),
            d5: Default::default(),
            w_cmpadd: Default::default(),
            w_swap: Default::default(),
            is_atom: Default::default(),
            out_atom: Default::default(),
            q_timeout: Default::default(),
            q_psnwin: Default::default(),
            q_retry: Default::default(),
            q_rnr_retry: Default::default(),
            state: Default::default(),
            q_pend: Default::default(),
            q_qpn: Default::default(),
            r_job: Default::default(),
            r_qpn: Default::default(),
            r_evkind: Default::default(),
            r_evval: Default::default(),
            r_apsn: Default::default(),
            r_asyn: Default::default(),
            q_state: Default::default(),
            q_pd: Default::default(),
            q_dest: Default::default(),
            q_pmtu: Default::default(),
            q_sqpsn: Default::default(),
            q_base: Default::default(),
            q_log2e: Default::default(),
            q_log2s: Default::default(),
            q_cqn: Default::default(),
            s_pi: Default::default(),
            s_ci: Default::default(),
            s_psn: Default::default(),
            s_spsn: Default::default(),
            s_lpsn: Default::default(),
            s_si: Default::default(),
            s_hi: Default::default(),
            s_hpsn: Default::default(),
            s_sig: Default::default(),
            tbl: Default::default(),
            row: Default::default(),
            ci_next: Default::default(),
            r_ret: Default::default(),
            inflight: Default::default(),
            rewinding: Default::default(),
            d_rew: Default::default(),
            d_rs: Default::default(),
            d_ps: Default::default(),
            d_sc: Default::default(),
            whole_out: Default::default(),
            can_send: Default::default(),
            new_ok: Default::default(),
            win_used: Default::default(),
            psn_used: Default::default(),
            w_idx: Default::default(),
            out_rdat: Default::default(),
            wq_rdat: Default::default(),
            is_ackc: Default::default(),
            l_off: Default::default(),
            ret_ok: Default::default(),
            c_win: Constant::new((WINDOW as u64).into()),
            c_one24: Constant::new(1.into()),
            psn_lim: Default::default(),
            fit_ok: Default::default(),
            win_wait: Default::default(),
            turn_pk: Default::default(),
            turn_over: Default::default(),
            s_flags: Default::default(),
            s_wrid: Default::default(),
            s_op: Default::default(),
            s_rpsn: Default::default(),
            s_cur: Default::default(),
            r_resume: Default::default(),
            s_retry: Default::default(),
            s_tmr: Default::default(),
            r_skip: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            d2: Default::default(),
            d3: Default::default(),
            d_cnt: Default::default(),
            d_done: Default::default(),
            d_err: Default::default(),
            d_erracc: Default::default(),
            sgb_addr: Default::default(),
            sgb_lkey: Default::default(),
            sgb_ok: Default::default(),
            sgb_n: Default::default(),
            wqe_hdr_only: Default::default(),
            sgb_fetch: Default::default(),
            wqe_rd_len: Default::default(),
            sgb_hit: Default::default(),
            sgb_a: Default::default(),
            sgb_l: Default::default(),
            c_sgb_beat_a: core::array::from_fn(|k| {
                Constant::new(((SEND_HEADER_LEN / 8 + 2 * k) as u64).into())
            }),
            c_sgb_beat_l: core::array::from_fn(|k| {
                Constant::new(((SEND_HEADER_LEN / 8 + 2 * k + 1) as u64).into())
            }),
            c_sgb_max: Constant::new((SGE_PREFETCH as u64).into()),
            c_hdr_len: Constant::new((SEND_HEADER_LEN as u64).into()),
            c_sge_len: Constant::new((SGE_LEN as u64).into()),
            ahd_hdr: Default::default(),
            ahd_sga: Default::default(),
            ahd_sgl: Default::default(),
            ahd_valid: Default::default(),
            ahd_qpn: Default::default(),
            ahd_idx: Default::default(),
            ahd_n: Default::default(),
            ahd_busy: Default::default(),
            ahd_cnt: Default::default(),
            ahd_erracc: Default::default(),
            ahd_done: Default::default(),
            ahd_err: Default::default(),
            slot_nx: Default::default(),
            is_ahd: Default::default(),
            ahd_want: Default::default(),
            ahd_qp: Default::default(),
            ahd_hit: Default::default(),
            pb_acc: Default::default(),
            pb_pend: Default::default(),
            pb_flush: Default::default(),
            in_err: Default::default(),
            pk_in_fire: Default::default(),
            pk_out_last: Default::default(),
            cur_bad: Default::default(),
            c_err_bit: Constant::new(Bits::<75>::from(1u64) << 74),
            r_flush: Default::default(),
            w_op: Default::default(),
            w_flags: Default::default(),
            w_nsge: Default::default(),
            w_len: Default::default(),
            w_imm: Default::default(),
            w_rkey: Default::default(),
            w_va: Default::default(),
            w_wrid: Default::default(),
            w_slot: Default::default(),
            r_pass2: Default::default(),
            r_k: Default::default(),
            r_sum: Default::default(),
            g_addr: Default::default(),
            g_len: Default::default(),
            g_lkey: Default::default(),
            g_iova: Default::default(),
            g_rem: Default::default(),
            m_rem: Default::default(),
            m_first: Default::default(),
            row_lpsn: Default::default(),
            p_rem: Default::default(),
            p_last: Default::default(),
            c_status: Default::default(),
            c_vendor: Default::default(),
            c_wrid: Default::default(),
            c_op: Default::default(),
            c_index: Default::default(),
            c_err: Default::default(),
            n_packets: Default::default(),
            n_messages: Default::default(),
            n_acks: Default::default(),
            n_naks: Default::default(),
            n_resent: Default::default(),
            n_errors: Default::default(),
            n_retx: Default::default(),
            n_tmo: Default::default(),
            c_nqp: Constant::new((1u64 << QA).into()),
            c_st: core::array::from_fn(|i| Constant::new((st[i] as u64).into())),
            c_vend: core::array::from_fn(|i| Constant::new((vend[i] as u64).into())),
            // the RNR wait of each timer code (proto's table, all multiples of 10 us) as one
            // 1.024 us tick per us: never shorter than the peer asked
            c_rnr: core::array::from_fn(|i| Constant::new((rnr_timer_ns(i as u8) / 1000).into())),
            c_idx5: core::array::from_fn(|i| Constant::new((i as u64).into())),
            c_four: Constant::new(4u64.into()),
            c_one32: Constant::new(1u64.into()),
            is_pay: Default::default(),
            rsp_fire: Default::default(),
            rd_fire: Default::default(),
            ring_mask: Default::default(),
            slot_addr: Default::default(),
            slot_si: Default::default(),
            slot_ci: Default::default(),
            exp_owner: Default::default(),
            sge_cap: Default::default(),
            x_len: Default::default(),
            x_wrid: Default::default(),
            x_rkey: Default::default(),
            x_va: Default::default(),
            x_saddr: Default::default(),
            x_slen: Default::default(),
            x_lkey: Default::default(),
            cqe_op: Default::default(),
            pmtu: Default::default(),
            plen: Default::default(),
            plen32: Default::default(),
            is_last: Default::default(),
            opc: Default::default(),
            chunk: Default::default(),
            p_rem32: Default::default(),
            queued: Default::default(),
            outstanding: Default::default(),
            signaled: Default::default(),
            qp_err: Default::default(),
            covered: Default::default(),
            apsn_d: Default::default(),
            ci_pass: Default::default(),
            retrying: Default::default(),
            a_off: Default::default(),
            m_span: Default::default(),
            in_range: Default::default(),
            a_fwd: Default::default(),
            a_cur: Default::default(),
            nak_new: Default::default(),
            skip_d: Default::default(),
            tmo_t: Default::default(),
            tmo_ticks: Default::default(),
            pto_ticks: Default::default(),
            arm_pto: Default::default(),
            arm_next: Default::default(),
            probing: Default::default(),
            at_top: Default::default(),
            rnr_ticks: Default::default(),
            tmr_armed: Default::default(),
            tmr_rnr: Default::default(),
            tmr_due: Default::default(),
            tmr_left: Default::default(),
            arm_ack: Default::default(),
            arm_rnr: Default::default(),
            retry_load: Default::default(),
            retry_now: Default::default(),
            skip_now: Default::default(),
            suspended: Default::default(),
            others_wait: Default::default(),
            cur_now: Default::default(),
            c_tmr_stop: Constant::new(QpTimer::default()),
            c_one16: Constant::new(1u64.into()),
            c_128: Constant::new(128u64.into()),
            zf_n: Default::default(),
            c_keep: core::array::from_fn(|k| Constant::new(((0xFF00u64 >> k) & 0xFF).into())),
            c_cnt: core::array::from_fn(|k| Constant::new((k as u64).into())),
        }
    }
}

impl<const QA: usize, const TA: usize> Logic for RcRequester<QA, TA> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, packer, kinds, pfifo, pfreg);
        for k in 0..SGE_PREFETCH {
            self.sgb_addr[k].clock.next = self.clock.val();
            self.sgb_lkey[k].clock.next = self.clock.val();
            self.sgb_addr[k].d.next = self.sgb_addr[k].q.val();
            self.sgb_lkey[k].d.next = self.sgb_lkey[k].q.val();
            self.ahd_sga[k].clock.next = self.clock.val();
            self.ahd_sgl[k].clock.next = self.clock.val();
            self.ahd_sga[k].d.next = self.ahd_sga[k].q.val();
            self.ahd_sgl[k].d.next = self.ahd_sgl[k].q.val();
        }
        for k in 0..HDR_BEATS {
            self.ahd_hdr[k].clock.next = self.clock.val();
            self.ahd_hdr[k].d.next = self.ahd_hdr[k].q.val();
        }
        dff_setup!(
            self,
            clock,
            row,
            resv,
            state,
            q_pend,
            q_qpn,
            r_job,
            r_qpn,
            r_evkind,
            r_evval,
            r_apsn,
            r_asyn,
            q_state,
            q_pd,
            q_dest,
            q_pmtu,
            q_sqpsn,
            q_base,
            q_log2e,
            q_log2s,
            q_cqn,
            slot_si,
            slot_ci,
            s_pi,
            s_ci,
            s_psn,
            s_spsn,
            s_lpsn,
            s_si,
            s_hi,
            s_hpsn,
            s_sig,
            r_ret,
            s_flags,
            s_wrid,
            s_op,
            d0,
            d1,
            d2,
            d3,
            d_cnt,
            d_done,
            d_err,
            d_erracc,
            sgb_ok,
            sgb_n,
            wqe_hdr_only,
            ahd_valid,
            ahd_qpn,
            ahd_idx,
            ahd_n,
            ahd_busy,
            ahd_cnt,
            ahd_erracc,
            ahd_done,
            ahd_err,
            slot_nx,
            pb_acc,
            pb_pend,
            pb_flush,
            r_flush,
            w_op,
            w_flags,
            w_nsge,
            w_len,
            w_imm,
            w_rkey,
            w_va,
            w_wrid,
            w_slot,
            r_pass2,
            r_k,
            r_sum,
            g_addr,
            g_len,
            g_lkey,
            g_iova,
            g_rem,
            m_rem,
            m_first,
            p_rem,
            p_last,
            c_status,
            c_vendor,
            c_wrid,
            c_op,
            c_index,
            c_err,
            n_packets,
            n_messages,
            n_acks,
            n_naks,
            n_resent,
            n_errors,
            q_timeout,
            q_psnwin,
            fit_ok,
            turn_pk,
            q_retry,
            q_rnr_retry,
            s_rpsn,
            s_cur,
            r_resume,
            s_retry,
            s_tmr,
            r_skip,
            n_retx,
            n_tmo,
            s_dst,
            r_aatom,
            r_aorig,
            d4,
            d5,
            w_cmpadd,
            w_swap,
            s_rk,
            s_rrem,
            s_rleft,
            r_rop,
            r_rplen,
            r_rrsp,
            r_rfail,
            r_gap,
            r_wb,
            pay_done,
            w_out,
            w_err,
            w_qpn,
            r_piece
        );
        self.mover.clock.next = self.clock.val();
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
        // READ response payload: the mover takes it piece by piece (its gate lets in no beat
        // of a packet before the packet's first job); RrDrain reads a dropped one itself
        self.mover.pay.valid.next = self.rpay.valid.val();
        self.mover.pay.data.next = self.rpay.data.val();
        self.mover.pay.keep.next = self.rpay.keep.val();
        self.mover.pay.last.next = self.rpay.last.val();
        self.tbl.clock.next = self.clock.val();
        self.ram_rk.read_clock.next = self.clock.val();
        self.ram_rk.write_clock.next = self.clock.val();
        self.ram_rrem.read_clock.next = self.clock.val();
        self.ram_rrem.write_clock.next = self.clock.val();
        self.ram_rleft.read_clock.next = self.clock.val();
        self.ram_rleft.write_clock.next = self.clock.val();
        self.ram_dst.read_clock.next = self.clock.val();
        self.ram_dst.write_clock.next = self.clock.val();
        self.ram_pi.read_clock.next = self.clock.val();
        self.ram_pi.write_clock.next = self.clock.val();
        self.ram_ci.read_clock.next = self.clock.val();
        self.ram_ci.write_clock.next = self.clock.val();
        self.ram_psn.read_clock.next = self.clock.val();
        self.ram_psn.write_clock.next = self.clock.val();
        self.ram_spsn.read_clock.next = self.clock.val();
        self.ram_spsn.write_clock.next = self.clock.val();
        self.ram_hpsn.read_clock.next = self.clock.val();
        self.ram_hpsn.write_clock.next = self.clock.val();
        self.ram_flags.read_clock.next = self.clock.val();
        self.ram_flags.write_clock.next = self.clock.val();
        self.ram_si.read_clock.next = self.clock.val();
        self.ram_si.write_clock.next = self.clock.val();
        self.ram_hi.read_clock.next = self.clock.val();
        self.ram_hi.write_clock.next = self.clock.val();
        self.ram_rpsn.read_clock.next = self.clock.val();
        self.ram_cur.read_clock.next = self.clock.val();
        self.ram_cur.write_clock.next = self.clock.val();
        self.ram_rpsn.write_clock.next = self.clock.val();
        self.ram_retry.read_clock.next = self.clock.val();
        self.ram_retry.write_clock.next = self.clock.val();
        self.timers.clock.next = self.clock.val();
        self.sched.clock.next = self.clock.val();

        // ================= defaults ==========================================================
        self.ev_ready.next = false;
        self.ack_ready.next = false;
        self.qpc.rd_valid.next = false;
        self.qpc.rd_qpn.next = self.r_qpn.q.val();
        self.mr_req_valid.next = false;
        self.mr_req_key.next = self.g_lkey.q.val();
        self.mr_req_pd.next = self.q_pd.q.val();
        self.mr_req_va.next = self.g_addr.q.val();
        self.mr_req_len.next = bit_cast::<64, 32>(self.g_len.q.val());
        // data mover jobs: a READ response's piece at the cursor (RrXfer), or an atomic's
        // original value (AtWr: 8 bytes, little-endian in host memory: the byte at the
        // address, a beat's MSB, is the value's LSB)
        self.mover.job_valid.next = false;
        self.mover.job_addr.next = self.g_iova.q.val();
        self.mover.job_len.next = self.r_piece.q.val();
        self.mover.job_tag.next = 0.into();
        self.mover.job_discard.next = self.r_rfail.q.val();
        self.mover.job_word_job.next = false;
        self.le_aorig.inp.next = self.r_aorig.q.val();
        self.mover.job_word.next = self.le_aorig.out.val();
        self.mover.job_end.next = bit_cast::<16, 13>(self.p_rem.q.val()) == self.r_piece.q.val();
        self.rp_ready.next = false;
        self.rr_ready.next = false;
        // the mover is idle and every DMA write has completed
        self.wr_idle.next = (self.w_out.q.val() == 0) & !self.mover.busy.val();
        self.dma_rd.req_valid.next = false;
        self.dma_rd.req_addr.next = self.g_iova.q.val();
        self.dma_rd.req_len.next = 16.into();
        self.dma_rd.req_tag.next = 0.into();
        self.kinds.push.next = false;
        self.kinds.din.next = 0.into();
        self.pk_valid.next = false;
        self.pk_qpn.next = self.r_qpn.q.val();
        self.pk_dest_qpn.next = self.q_dest.q.val();
        self.pk_psn.next = self.s_psn.q.val();
        self.pk_se.next = false;
        self.pk_va.next = self.w_va.q.val();
        self.pk_rkey.next = self.w_rkey.q.val();
        self.pk_dlen.next = self.w_len.q.val();
        self.pk_imm.next = self.w_imm.q.val();
        // AtomicETH: COMPARE_SWAP carries swap and compare, FETCH_ADD the add value
        self.pk_swap.next = self.w_swap.q.val();
        self.pk_compare.next = self.w_cmpadd.q.val();
        if self.w_op.q.val() == 6 {
            self.pk_swap.next = self.w_cmpadd.q.val();
            self.pk_compare.next = 0.into();
        }
        self.cqe_valid.next = false;
        self.cqe_cqn.next = self.q_cqn.q.val();
        self.cqe_wr_id.next = self.c_wrid.q.val();
        self.cqe_qpn.next = bit_cast::<24, QA>(self.r_qpn.q.val());
        self.cqe_src_qp.next = self.q_dest.q.val();
        self.cqe_wqe_index.next = self.c_index.q.val();
        self.cqe_vendor.next = self.c_vendor.q.val();
        self.cqe_status.next = self.c_status.q.val();
        self.cqe_opcode.next = self.c_op.q.val();
        self.qerr_valid.next = false;
        self.qerr_qpn.next = self.r_qpn.q.val();
        self.qerr_status.next = self.c_status.q.val();
        self.qerr_vendor.next = self.c_vendor.q.val();
        self.cnt_packets.next = self.n_packets.q.val();
        self.cnt_messages.next = self.n_messages.q.val();
        self.cnt_acks.next = self.n_acks.q.val();
        self.cnt_naks.next = self.n_naks.q.val();
        self.cnt_resent.next = self.n_resent.q.val();
        self.cnt_errors.next = self.n_errors.q.val();
        self.cnt_retransmitted.next = self.n_retx.q.val();
        self.cnt_timeouts.next = self.n_tmo.q.val();
        self.ev_retransmit.next = false;
        self.ev_rewind.next = false;
        self.ev_probe.next = false;
        self.ev_yield.next = false;
        self.ev_sh_yield.next = false;
        self.ev_timeout.next = false;
        self.ev_retry_exc.next = false;
        // per-QP RAMs: read and written at the job's QP
        self.ram_pi.read_address.next = self.r_qpn.q.val();
        self.ram_ci.read_address.next = self.r_qpn.q.val();
        self.ram_psn.read_address.next = self.r_qpn.q.val();
        self.ram_spsn.read_address.next = self.r_qpn.q.val();
        self.ram_hpsn.read_address.next = self.r_qpn.q.val();
        self.ram_flags.read_address.next = self.r_qpn.q.val();
        self.ram_si.read_address.next = self.r_qpn.q.val();
        self.ram_hi.read_address.next = self.r_qpn.q.val();
        self.ram_rpsn.read_address.next = self.r_qpn.q.val();
        self.ram_cur.read_address.next = self.r_qpn.q.val();
        self.ram_cur.write_address.next = self.r_qpn.q.val();
        self.ram_cur.write_data.next = self.s_cur.q.val();
        self.ram_cur.write_enable.next = false;
        self.ram_retry.read_address.next = self.r_qpn.q.val();
        self.timers.job_qpn.next = self.r_qpn.q.val();
        self.ram_rpsn.write_address.next = self.r_qpn.q.val();
        self.ram_retry.write_address.next = self.r_qpn.q.val();
        self.timers.set_qpn.next = self.r_qpn.q.val();
        self.ram_rpsn.write_data.next = self.s_rpsn.q.val();
        self.ram_retry.write_data.next = self.s_retry.q.val();
        self.timers.set_armed.next = self.s_tmr.q.val().armed;
        self.timers.set_rnr.next = self.s_tmr.q.val().rnr;
        self.timers.set_deadline.next = self.s_tmr.q.val().deadline;
        self.ram_rpsn.write_enable.next = false;
        self.ram_retry.write_enable.next = false;
        self.timers.set_valid.next = false;
        self.ram_pi.write_address.next = self.r_qpn.q.val();
        self.ram_ci.write_address.next = self.r_qpn.q.val();
        self.ram_psn.write_address.next = self.r_qpn.q.val();
        self.ram_spsn.write_address.next = self.r_qpn.q.val();
        self.ram_hpsn.write_address.next = self.r_qpn.q.val();
        self.ram_flags.write_address.next = self.r_qpn.q.val();
        self.ram_si.write_address.next = self.r_qpn.q.val();
        self.ram_hi.write_address.next = self.r_qpn.q.val();
        self.ram_pi.write_data.next = self.s_pi.q.val();
        self.ram_ci.write_data.next = self.s_ci.q.val();
        self.ram_psn.write_data.next = self.s_psn.q.val();
        self.ram_spsn.write_data.next = self.s_spsn.q.val();
        self.ram_hpsn.write_data.next = self.s_hpsn.q.val();
        self.ram_flags.write_data.next = self.s_flags.q.val();
        self.ram_si.write_data.next = self.s_si.q.val();
        self.ram_hi.write_data.next = self.s_hi.q.val();
        self.ram_pi.write_enable.next = false;
        self.ram_ci.write_enable.next = false;
        self.ram_psn.write_enable.next = false;
        self.ram_spsn.write_enable.next = false;
        self.ram_hpsn.write_enable.next = false;
        self.ram_flags.write_enable.next = false;
        self.ram_si.write_enable.next = false;
        self.ram_hi.write_enable.next = false;
        // the work ring: a job puts its own QP back (Requeue); Pop takes the head
        self.sched.push_valid.next = false;
        self.sched.push_qpn.next = self.r_qpn.q.val();
        self.sched.pop.next = false;
        self.sched.gate_wait.next = self.sh_wait.val();
        self.ram_dst.read_address.next = self.r_qpn.q.val();
        self.ram_dst.write_address.next = self.r_qpn.q.val();
        self.ram_dst.write_data.next = self.s_dst.q.val();
        self.ram_dst.write_enable.next = false;
        self.ram_rk.read_address.next = self.r_qpn.q.val();
        self.ram_rk.write_address.next = self.r_qpn.q.val();
        self.ram_rk.write_data.next = self.s_rk.q.val();
        self.ram_rk.write_enable.next = false;
        self.ram_rrem.read_address.next = self.r_qpn.q.val();
        self.ram_rrem.write_address.next = self.r_qpn.q.val();
        self.ram_rrem.write_data.next = self.s_rrem.q.val();
        self.ram_rrem.write_enable.next = false;
        self.ram_rleft.read_address.next = self.r_qpn.q.val();
        self.ram_rleft.write_address.next = self.r_qpn.q.val();
        self.ram_rleft.write_data.next = self.s_rleft.q.val();
        self.ram_rleft.write_enable.next = false;
        // the in-flight table: read at the oldest WQE's row, written at the send index's row
        // (a row is written when its WQE's first packet, or a READ's request, is out)
        self.tbl.rd_addr.next = (bit_cast::<TA, QA>(self.r_qpn.q.val()) << 4)
            | bit_cast::<TA, 4>(self.s_ci.q.val().get_bits::<4>(0));
        // RetChk reads the next row: if the oldest retires, `row` holds the next one when the
        // walk comes back to RetChk through RetRd (or RetCqe); if not, the walk is over
        self.ci_next.next = self.s_ci.q.val() + 1;
        if self.state.q.val() == ReqState::RetChk {
            self.tbl.rd_addr.next = (bit_cast::<TA, QA>(self.r_qpn.q.val()) << 4)
                | bit_cast::<TA, 4>(self.ci_next.val().get_bits::<4>(0));
        }
        self.row.d.next = self.tbl.rd_data.val();
        self.tbl.wr_addr.next = (bit_cast::<TA, QA>(self.r_qpn.q.val()) << 4)
            | bit_cast::<TA, 4>(self.s_si.q.val().get_bits::<4>(0));
        self.tbl.wr_en.next = false;

        // ================= read responses: descriptors here, payload to the packer ===========
        self.is_pay.next = self.kinds.valid.val() & self.kinds.dout.val().get_bit(0);
        self.pf_lastb.next = 0.into();
        if self.dma_rd.rsp.last.val() {
            self.pf_lastb.next = 2.into();
        }
        // payload beats into the FIFO (room was reserved when the read was issued) as
        // {data, keep, last, end of packet}; the packer takes them from there
        self.pfifo.write.next = self.dma_rd.rsp.valid.val() & self.is_pay.val();
        if self.dma_rd.rsp_error.val() {
            self.pf_lastb.next = self.pf_lastb.val() | self.c_err_bit.val();
        }
        self.pfifo.data_in.next = (bit_cast::<75, 64>(self.dma_rd.rsp.data.val()) << 10)
            | (bit_cast::<75, 8>(self.dma_rd.rsp.keep.val()) << 2)
            | self.pf_lastb.val()
            | bit_cast::<75, 1>(self.kinds.dout.val().get_bits::<1>(1));
        self.pfreg.inp.valid.next = !self.pfifo.empty.val();
        self.pfreg.inp.data.next = self.pfifo.data_out.val();
        self.pfreg.inp.keep.next = 1.into();
        self.pfreg.inp.last.next = true;
        self.pf_pop.next = !self.pfifo.empty.val() & self.pfreg.inp.ready.val();
        self.pfifo.read.next = self.pf_pop.val();
        self.pf_empty.next = self.pfifo.empty.val() & !self.pfreg.out.valid.val();
        self.pf_out.next = self.pfreg.out.data.val();
        self.packer.inp.valid.next = self.pfreg.out.valid.val();
        self.packer.inp.data.next = self.pf_out.val().get_bits::<64>(10);
        self.packer.inp.keep.next = self.pf_out.val().get_bits::<8>(2);
        self.packer.inp.last.next = self.pf_out.val().get_bit(1);
        self.packer.inp_eop.next = self.pf_out.val().get_bit(0);
        self.pfreg.out.ready.next = self.packer.inp.ready.val();
        self.dma_rd.rsp.ready.next = self.kinds.valid.val();
        if self.is_pay.val() {
            self.dma_rd.rsp.ready.next = !self.pfifo.full.val();
        }
        if self.pf_pop.val() {
            self.resv.d.next = self.resv.q.val() - 1;
        }
        self.rsp_fire.next = self.dma_rd.rsp.valid.val() & self.dma_rd.rsp.ready.val();
        self.kinds.pop.next = self.rsp_fire.val() & self.dma_rd.rsp.last.val();
        self.kinds.flush.next = false;
        // a WQE read ahead: into its own registers
        self.is_ahd.next = self.kinds.valid.val() & (self.kinds.dout.val() == 2);
        if self.rsp_fire.val() & self.is_ahd.val() {
            for k in 0..HDR_BEATS {
                if self.ahd_cnt.q.val() == self.c_cnt[k].val() {
                    self.ahd_hdr[k].d.next = self.dma_rd.rsp.data.val();
                }
            }
            for k in 0..SGE_PREFETCH {
                if self.ahd_cnt.q.val() == self.c_sgb_beat_a[k].val() {
                    self.ahd_sga[k].d.next = self.dma_rd.rsp.data.val();
                }
                if self.ahd_cnt.q.val() == self.c_sgb_beat_l[k].val() {
                    self.ahd_sgl[k].d.next = self.dma_rd.rsp.data.val();
                }
            }
            self.ahd_cnt.d.next = self.ahd_cnt.q.val() + 1;
            self.ahd_erracc.d.next = self.ahd_erracc.q.val() | self.dma_rd.rsp_error.val();
            if self.dma_rd.rsp.last.val() {
                self.ahd_cnt.d.next = 0.into();
                self.ahd_busy.d.next = false;
                self.ahd_done.d.next = true;
                self.ahd_err.d.next = self.ahd_erracc.q.val() | self.dma_rd.rsp_error.val();
                self.ahd_erracc.d.next = false;
            }
        }
        if self.rsp_fire.val() & !self.is_pay.val() & !self.is_ahd.val() {
            if self.d_cnt.q.val() == 0 {
                self.d0.d.next = self.dma_rd.rsp.data.val();
            }
            if self.d_cnt.q.val() == 1 {
                self.d1.d.next = self.dma_rd.rsp.data.val();
            }
            if self.d_cnt.q.val() == 2 {
                self.d2.d.next = self.dma_rd.rsp.data.val();
            }
            if self.d_cnt.q.val() == 3 {
                self.d3.d.next = self.dma_rd.rsp.data.val();
            }
            if self.d_cnt.q.val() == 4 {
                self.d4.d.next = self.dma_rd.rsp.data.val();
            }
            if self.d_cnt.q.val() == 5 {
                self.d5.d.next = self.dma_rd.rsp.data.val();
            }
            for k in 0..SGE_PREFETCH {
                if self.d_cnt.q.val() == self.c_sgb_beat_a[k].val() {
                    self.sgb_addr[k].d.next = self.dma_rd.rsp.data.val();
                }
                if self.d_cnt.q.val() == self.c_sgb_beat_l[k].val() {
                    self.sgb_lkey[k].d.next = self.dma_rd.rsp.data.val();
                }
            }
            self.d_cnt.d.next = self.d_cnt.q.val() + 1;
            self.d_erracc.d.next = self.d_erracc.q.val() | self.dma_rd.rsp_error.val();
            if self.dma_rd.rsp.last.val() {
                self.d_cnt.d.next = 0.into();
                self.d_done.d.next = true;
                // (docs/DMA.md 6: the flag may come on a later beat only; OR over the beats)
                self.d_err.d.next = self.d_erracc.q.val() | self.dma_rd.rsp_error.val();
                self.d_erracc.d.next = false;
            }
        }
        self.pay.valid.next = self.packer.out.valid.val();
        self.pay.data.next = self.packer.out.data.val();
        self.pay.keep.next = self.packer.out.keep.val();
        self.pay.last.next = self.packer.out.last.val();
        self.packer.out.ready.next = self.pay.ready.val();

        // ================= decode ============================================================
        // SQ slot of the consumer index: base + (ci mod 2^log2e) << log2s
        self.ring_mask.next = (self.c_one16.val() << self.q_log2e.q.val()) - 1;
        // (the WQE a send reads is the send index's; a flush, or a READ response, reads the
        // consumer index's)
        self.w_idx.next = self.s_ci.q.val();
        if (self.r_job.q.val() == 1) & !self.r_flush.q.val() {
            self.w_idx.next = self.s_si.q.val();
        }
        self.slot_si.d.next = self.q_base.q.val()
            + (bit_cast::<64, 16>(self.s_si.q.val() & self.ring_mask.val())
                << self.q_log2s.q.val());
        self.slot_ci.d.next = self.q_base.q.val()
            + (bit_cast::<64, 16>(self.s_ci.q.val() & self.ring_mask.val())
                << self.q_log2s.q.val());
        self.slot_nx.d.next = self.q_base.q.val()
            + (bit_cast::<64, 16>((self.s_si.q.val() + 1) & self.ring_mask.val())
                << self.q_log2s.q.val());
        self.slot_addr.next = self.slot_ci.q.val();
        if (self.r_job.q.val() == 1) & !self.r_flush.q.val() {
            self.slot_addr.next = self.slot_si.q.val();
        }
        // owner bit of that index: 1 on even passes of the ring (ring::owner_for)
        self.ci_pass.next = self.w_idx.val() >> self.q_log2e.q.val();
        self.exp_owner.next = !self.ci_pass.val().get_bit(0);
        // SGEs a slot holds: (2^log2s - 48) / 16
        self.sge_cap.next = (self.c_one16.val() << (self.q_log2s.q.val() - 4)) - 3;
        // the WQE read: the header and the first SGEs the slot holds (`SGE_PREFETCH`)
        self.sgb_fetch.next = bit_cast::<8, 16>(self.c_sgb_max.val());
        if self.sge_cap.val() < self.c_sgb_max.val() {
            self.sgb_fetch.next = bit_cast::<8, 16>(self.sge_cap.val());
        }
        self.wqe_rd_len.next =
            self.c_hdr_len.val() + (bit_cast::<16, 8>(self.sgb_fetch.val()) << 4);
        if self.wqe_hdr_only.q.val() {
            self.wqe_rd_len.next = self.c_hdr_len.val();
        }
        // the WQE read ahead
        self.ahd_qp.next = self.ahd_valid.q.val()
            & (self.r_job.q.val() == 1)
            & (self.ahd_qpn.q.val() == self.r_qpn.q.val());
        self.ahd_hit.next = self.ahd_qp.val()
            & !self.r_flush.q.val()
            & !self.wqe_hdr_only.q.val()
            & (self.ahd_idx.q.val() == self.s_si.q.val());
        // (only while no other QP waits in the work ring, or the one at its head is held by the
        // rate shaper (`sh_wait` answers for the head outside `PktHdr`): a job sends one
        // message, so the QP's next job comes next only then; with other QPs taking turns a
        // read ahead would be overwritten before use and cost the read channel 14 beats a
        // message, and a rate-limited QP waiting in the ring must not cost an unlimited one
        // its read ahead)
        self.ahd_want.next = (self.r_job.q.val() == 1)
            & !self.r_flush.q.val()
            & !self.ahd_busy.q.val()
            & (!self.sched.nonempty.val() | self.sh_wait.val())
            & (self.s_si.q.val() + 1 != self.s_pi.q.val());
        // SGE `r_k` from the buffer (it holds at most SGE_PREFETCH, so `r_k`'s low bits pick it)
        self.sgb_hit.next = self.sgb_ok.q.val() & (self.r_k.q.val() < self.sgb_n.q.val());
        self.sgb_a.next = self.sgb_addr[0].q.val();
        self.sgb_l.next = self.sgb_lkey[0].q.val();
        for k in 1..SGE_PREFETCH {
            if self.r_k.q.val().get_bits::<4>(0) == self.c_cnt[k].val() {
                self.sgb_a.next = self.sgb_addr[k].q.val();
                self.sgb_l.next = self.sgb_lkey[k].q.val();
            }
        }
        // little-endian WQE fields (the first byte is the beat's MSB)
        // WQE header: length (bytes 4..8), wr_id (8..16), rkey (20..24), remote VA (24..32)
        self.le_len.inp.next = self.d0.q.val().get_bits::<32>(0);
        self.x_len.next = self.le_len.out.val();
        self.le_wrid.inp.next = self.d1.q.val();
        self.x_wrid.next = self.le_wrid.out.val();
        self.le_rkey.inp.next = self.d2.q.val().get_bits::<32>(0);
        self.x_rkey.next = self.le_rkey.out.val();
        self.le_va.inp.next = self.d3.q.val();
        self.x_va.next = self.le_va.out.val();
        // SGE: address (bytes 0..8), length (8..12), lkey (12..16)
        self.le_sge_addr.inp.next = self.d0.q.val();
        self.x_saddr.next = self.le_sge_addr.out.val();
        self.le_sge_len.inp.next = self.d1.q.val().get_bits::<32>(32);
        self.x_slen.next = self.le_sge_len.out.val();
        self.le_sge_lkey.inp.next = self.d1.q.val().get_bits::<32>(0);
        self.x_lkey.next = self.le_sge_lkey.out.val();
        // completion opcode: SEND* -> 0 (Send), WRITE* -> 1 (RdmaWrite)
        self.cqe_op.next = 0.into();
        if !self.w_op.q.val().get_bit(1) {
            self.cqe_op.next = 1.into();
        }
        // ATOMIC_CMP_AND_SWP 5, ATOMIC_FETCH_AND_ADD 6: completions CompSwap 3, FetchAdd 4
        self.is_atom.next = (self.w_op.q.val() == 5) | (self.w_op.q.val() == 6);
        if self.w_op.q.val() == 5 {
            self.cqe_op.next = 3.into();
        }
        if self.w_op.q.val() == 6 {
            self.cqe_op.next = 4.into();
        }
        // RDMA_READ 4: completion RdmaRead 2; its destination SGEs need LOCAL_WRITE
        self.is_rd.next = self.w_op.q.val() == 4;
        if self.is_rd.val() {
            self.cqe_op.next = 2.into();
        }
        self.need_lw.next = self.is_atom.val() | self.is_rd.val() | self.r_rrsp.q.val();
        self.tbl.wr_data.next.last_psn = self.s_lpsn.q.val();
        self.tbl.wr_data.next.wr_id = self.w_wrid.q.val();
        self.tbl.wr_data.next.opcode = self.cqe_op.val().get_bits::<3>(0);
        self.tbl.wr_data.next.signaled = self.w_flags.q.val().get_bit(0);
        self.mr_req_need.next = 0.into();
        if self.need_lw.val() {
            self.mr_req_need.next = 1.into(); // ACCESS_LOCAL_WRITE
        }
        // PMTU bytes: 256 << (pmtu - 1)
        self.pmtu.next = self.c_128.val() << self.q_pmtu.q.val();
        self.plen.next = self.pmtu.val();
        if self.m_rem.q.val() < bit_cast::<32, 13>(self.pmtu.val()) {
            self.plen.next = self.m_rem.q.val().get_bits::<13>(0);
        }
        self.plen32.next = bit_cast::<32, 13>(self.plen.val());
        self.is_last.next = self.m_rem.q.val() == self.plen32.val();
        // packet opcode: WRITE 6/7/8/9(imm)/10/11(imm), SEND 0/1/2/3(imm)/4/5(imm)
        self.opc.next = 0.into();
        if self.w_op.q.val().get_bit(1) {
            // SEND, SEND_IMM
            if self.m_first.q.val() & self.is_last.val() {
                self.opc.next = 4.into();
                if self.w_op.q.val().get_bit(0) {
                    self.opc.next = 5.into();
                }
            } else if self.m_first.q.val() {
                self.opc.next = 0.into();
            } else if self.is_last.val() {
                self.opc.next = 2.into();
                if self.w_op.q.val().get_bit(0) {
                    self.opc.next = 3.into();
                }
            } else {
                self.opc.next = 1.into();
            }
        } else if self.m_first.q.val() & self.is_last.val() {
            self.opc.next = 10.into();
            if self.w_op.q.val().get_bit(0) {
                self.opc.next = 11.into();
            }
        } else if self.m_first.q.val() {
            self.opc.next = 6.into();
        } else if self.is_last.val() {
            self.opc.next = 8.into();
            if self.w_op.q.val().get_bit(0) {
                self.opc.next = 9.into();
            }
        } else {
            self.opc.next = 7.into();
        }
        // an atomic is one packet without payload: COMPARE_SWAP 19, FETCH_ADD 20
        if self.is_atom.val() {
            self.plen.next = 0.into();
            self.plen32.next = 0.into();
            self.is_last.next = true;
            self.opc.next = 19.into();
            if self.w_op.q.val() == 6 {
                self.opc.next = 20.into();
            }
        }
        self.pk_opcode.next = self.opc.val();
        self.pk_plen.next = self.plen.val();
        self.pk_ackreq.next = self.is_last.val();
        // gather piece: min(bytes left in the packet, bytes left in the SGE)
        self.p_rem32.next = bit_cast::<32, 13>(self.p_rem.q.val());
        self.chunk.next = self.g_rem.q.val();
        if self.p_rem32.val() < self.g_rem.q.val() {
            self.chunk.next = self.p_rem32.val();
        }
        // beats of the next gather read, and whether the FIFO can take them on top of what is
        // reserved (1024 beats: two 4096-byte packets)
        self.pf_c14.next = bit_cast::<14, 13>(self.chunk.val().get_bits::<13>(0)) + 7;
        self.pf_beats.next = bit_cast::<11, 11>(self.pf_c14.val().get_bits::<11>(3));
        if self.chunk.val().get_bits::<19>(13) != 0 {
            self.pf_beats.next = 2047.into();
        }
        self.pf_room.next =
            bit_cast::<12, 11>(self.resv.q.val()) + bit_cast::<12, 11>(self.pf_beats.val()) <= 1024;
        // the QP's flags (`ReqQpFlags`, one field each)
        self.queued.next = self.s_flags.q.val().queued;
        // WQEs ci .. hi are outstanding (sent, not retired); a rewind sends again from ci
        // while the PSN is below the highest one sent
        self.inflight.next = (self.s_ci.q.val() != self.s_hi.q.val()) & !self.s_flags.q.val().err;
        self.d_rew.next = self.s_psn.q.val() - self.s_hpsn.q.val();
        self.d_rs.next = self.s_rpsn.q.val() - self.s_spsn.q.val();
        self.d_ps.next = self.s_psn.q.val() - self.s_spsn.q.val();
        self.d_sc.next = self.s_si.q.val() - self.s_ci.q.val();
        // WQEs ci .. si-1 are sent whole; si's message (if in flight) only in part, or not yet
        // again after a rewind. The ACK timer runs while a whole message awaits its ACK: a
        // message sent in part has not asked for one yet (its last packet will, and arms the
        // timer), and may wait for its next turn, a PFC pause or the shaper for long
        self.whole_out.next = (self.d_sc.val() != 0) & !self.d_sc.val().get_bit(15);
        self.rewinding.next = self.d_rew.val().get_bit(23);
        self.outstanding.next = self.inflight.val() & !self.rewinding.val();
        // a tail-loss probe sends one packet, the highest PSN sent, and asks for an ACK
        self.probing.next = self.s_flags.q.val().probe & self.rewinding.val();
        self.at_top.next = (self.s_psn.q.val() + 1) == self.s_hpsn.q.val();
        if self.probing.val() {
            self.pk_ackreq.next = true;
        }
        self.signaled.next = self.s_sig.q.val();
        self.qp_err.next = self.s_flags.q.val().err | (self.q_state.q.val() == 6);
        // an ACK covers the message when its PSN is at or after the last PSN (24-bit modular)
        self.apsn_d.next = self.r_apsn.q.val() - self.s_lpsn.q.val();
        self.covered.next = !self.apsn_d.val().get_bit(23);
        // a packet below the highest PSN sent is sent again (a retransmission)
        self.retrying.next = self.rewinding.val();
        // the message in flight is an atomic (its completion opcode says so): only an
        // ATOMIC ACKNOWLEDGE retires it, and only it takes one
        self.out_atom.next = (self.s_op.q.val() == 3) | (self.s_op.q.val() == 4);
        // ... a READ: its responses carry the data, an ACK never retires it
        self.out_rd.next = self.s_op.q.val() == 2;
        self.out_rdat.next = self.out_rd.val() | self.out_atom.val();
        // the WQE just read is a READ or an atomic (opcodes 4..=6)
        self.wq_rdat.next =
            (self.d0.q.val().get_bits::<8>(48) >= 4) & (self.d0.q.val().get_bits::<8>(48) <= 6);
        // a READ's response packets: ceil(length / PMTU), at least one; the bytes before the
        // resume PSN (a request sent again asks for the rest only)
        self.pmtu32.next = bit_cast::<32, 13>(self.pmtu.val());
        self.rd_sh.next = bit_cast::<5, PMTU_W>(self.q_pmtu.q.val()) + 7;
        self.rd_np.next = (self.w_len.q.val() + self.pmtu32.val() - 1) >> self.rd_sh.val();
        if self.w_len.q.val() == 0 {
            self.rd_np.next = 1.into();
        }
        // the row a send writes in PktHdr (at its first packet): its last PSN from its packet
        // count (an atomic is one packet)
        self.row_lpsn.next = self.s_psn.q.val() + self.rd_np.val().get_bits::<24>(0) - 1;
        if self.is_atom.val() {
            self.row_lpsn.next = self.s_psn.q.val();
        }
        self.rd_off.next =
            bit_cast::<32, 24>(self.s_rpsn.q.val() - self.s_spsn.q.val()) << self.rd_sh.val();
        // a READ response: in sequence at the resume PSN, or ahead of it inside the READ (a
        // response was lost); its expected opcode and length from its place in the READ
        self.rr_d.next = self.r_apsn.q.val() - self.s_rpsn.q.val();
        self.rr_first.next = self.s_rpsn.q.val() == self.s_spsn.q.val();
        self.rr_lastp.next = self.s_rpsn.q.val() == self.s_lpsn.q.val();
        // Every request (the first, or one sent again from the resume PSN) is answered from
        // its own PSN with FIRST..LAST or ONLY, so past the READ's first PSN a FIRST (ONLY) is
        // as good as a MIDDLE (LAST): PSN and length decide where the bytes go
        self.rr_op_ok.next =
            (self.r_rop.q.val() == 13) | ((self.r_rop.q.val() == 14) & !self.rr_first.val());
        if self.rr_lastp.val() {
            self.rr_op_ok.next =
                (self.r_rop.q.val() == 16) | ((self.r_rop.q.val() == 15) & !self.rr_first.val());
        }
        self.rr_len_ok.next = bit_cast::<32, 13>(self.r_rplen.q.val()) == self.pmtu32.val();
        if self.rr_lastp.val() {
            self.rr_len_ok.next = bit_cast::<32, 13>(self.r_rplen.q.val()) == self.s_rleft.q.val();
        }
        self.rr_ok.next = self.inflight.val()
            & self.out_rd.val()
            & (self.rr_d.val() == 0)
            & self.rr_op_ok.val()
            & self.rr_len_ok.val();
        // an ACK/NAK PSN inside the message in flight: psn - first <= last - first (mod 2^24)
        self.a_off.next = self.r_apsn.q.val() - self.s_spsn.q.val();
        self.m_span.next = self.s_hpsn.q.val() - 1 - self.s_spsn.q.val();
        // retirement walk: the oldest row's last PSN relative to the window start; it retires
        // if an ACK's PSN is at or after it, a NAK's after it (a NAK acknowledges the PSNs
        // before its own), and only a SEND / WRITE row (opcode 0 or 1)
        self.is_ackc.next = self.r_asyn.q.val().get_bits::<3>(5) == 0;
        self.l_off.next = self.row.q.val().last_psn - self.s_spsn.q.val();
        self.ret_ok.next = self.inflight.val()
            & (self.a_off.val() <= self.m_span.val())
            & (self.row.q.val().opcode <= 1)
            & ((self.l_off.val() < self.a_off.val())
                | (self.is_ackc.val() & (self.l_off.val() == self.a_off.val())));
        self.in_range.next = self.a_off.val() <= self.m_span.val();
        self.rr_ahead.next =
            !self.rr_d.val().get_bit(23) & (self.rr_d.val() != 0) & self.in_range.val();
        // an ACK moves the resume point when its PSN is at or after it (bit 23 clear)
        self.a_fwd.next = self.r_apsn.q.val() - self.s_rpsn.q.val();
        // a sequence NAK outside a rewind is a new loss; during a rewind only if its PSN is at
        // or after the resume PSN and the rewind has sent it again (the NAK reports the resent
        // packet lost too). A NAK for a PSN the rewind has not reached yet is the echo of the
        // loss the rewind is already repairing.
        self.a_cur.next = self.r_apsn.q.val() - self.s_psn.q.val();
        self.nak_new.next = self.inflight.val()
            & (!self.rewinding.val()
                | (!self.a_fwd.val().get_bit(23) & self.a_cur.val().get_bit(23)));
        // Go-Back-N resumes mid-message: a packet before the resume PSN is walked (the SGE
        // cursor moves over its bytes) but not sent
        self.skip_d.next = self.s_psn.q.val() - self.s_rpsn.q.val();
        self.skip_now.next =
            self.skip_d.val().get_bit(23) | (self.probing.val() & !self.at_top.val());
        // a message set aside at a packet (`suspended`) goes on from its cursor
        self.suspended.next = self.s_flags.q.val().suspended;
        self.cur_now.next = (bit_cast::<72, 32>(self.g_rem.q.val()) << 40)
            | (bit_cast::<72, 8>(self.r_k.q.val()) << 32)
            | bit_cast::<72, 32>(self.m_rem.q.val());
        self.others_wait.next = self.ack_valid.val()
            | self.rr_valid.val()
            | self.ev_valid.val()
            | self.timers.exp_valid.val()
            | self.q_pend.q.val()
            | self.sched.nonempty.val();
        // retries of a new message: 2:0 retry_cnt, 6:4 rnr_retry
        self.retry_load.next = (bit_cast::<8, RETRY_W>(self.q_rnr_retry.q.val()) << 4)
            | bit_cast::<8, RETRY_W>(self.q_retry.q.val());
        // local ACK timeout: 4 ticks (4.096 us) << timeout, codes above 28 taken as 28 (the
        // deadline compare is modulo 2^32 ticks); timeout 0 = infinite (timer not armed)
        self.tmo_t.next = self.q_timeout.q.val();
        if self.q_timeout.q.val() > 28 {
            self.tmo_t.next = 28.into();
        }
        self.tmo_ticks.next = self.c_four.val() << self.tmo_t.val();
        self.arm_ack.next.armed = true;
        self.arm_ack.next.rnr = false;
        self.arm_ack.next.deadline = self.timers.now.val() + self.tmo_ticks.val();
        if self.q_timeout.q.val() == 0 {
            self.arm_ack.next = self.c_tmr_stop.val();
        }
        self.pto_ticks.next = self.c_one32.val() << self.tmo_t.val();
        self.arm_pto.next = self.arm_ack.val();
        self.arm_pto.next.deadline = self.timers.now.val() + self.pto_ticks.val();
        self.arm_next.next = self.arm_pto.val();
        if self.out_rdat.val() {
            self.arm_next.next = self.arm_ack.val();
        }
        // RNR NAK timer field (AETH 4:0) -> ticks
        self.rnr_ticks.next = self.c_rnr[0].val();
        for k in 1..32 {
            if self.r_asyn.q.val().get_bits::<5>(0) == self.c_idx5[k].val() {
                self.rnr_ticks.next = self.c_rnr[k].val();
            }
        }
        self.arm_rnr.next.armed = true;
        self.arm_rnr.next.rnr = true;
        self.arm_rnr.next.deadline = self.timers.now.val() + self.rnr_ticks.val();
        // the job's QP timer
        self.tmr_armed.next = self.s_tmr.q.val().armed;
        self.tmr_rnr.next = self.s_tmr.q.val().rnr;
        self.tmr_left.next = self.timers.now.val() - self.s_tmr.q.val().deadline;
        self.tmr_due.next = self.tmr_armed.val() & !self.tmr_left.val().get_bit(31);
        // the send window: a WQE sent again after a rewind (si < hi) may always go; a new one
        // needs a free row, fewer unacknowledged PSNs than the QP's window (`QP_RING_CFG`;
        // PktHdr then holds a message that does not fit whole), and no READ or atomic
        // outstanding (they are alone in the window); none while an RNR wait runs
        self.win_used.next = self.s_hi.q.val() - self.s_ci.q.val();
        self.psn_used.next = self.s_hpsn.q.val() - self.s_spsn.q.val();
        self.psn_lim.next = self.c_one24.val() << self.q_psnwin.q.val();
        self.fit_ok.d.next = bit_cast::<32, 24>(self.psn_used.val()) + self.rd_np.val()
            <= bit_cast::<32, 24>(self.psn_lim.val());
        self.win_wait.next = self.m_first.q.val()
            & (self.s_si.q.val() == self.s_hi.q.val())
            & self.inflight.val()
            & !self.fit_ok.q.val();
        self.turn_over.next = (self.cfg_quantum.val() != 0)
            & (self.turn_pk.q.val() >= self.cfg_quantum.val())
            & self.sched.nonempty.val();
        self.new_ok.next = !self.inflight.val()
            | ((self.win_used.val() < self.c_win.val())
                & (self.psn_used.val() < self.psn_lim.val())
                & !self.out_rdat.val());
        self.can_send.next = (self.s_si.q.val() != self.s_pi.q.val())
            & (!self.s_flags.q.val().wait_drain | (self.s_si.q.val() == self.s_ci.q.val()))
            & ((self.s_si.q.val() != self.s_hi.q.val()) | self.new_ok.val())
            & !(self.tmr_armed.val() & self.tmr_rnr.val());
        // retries left for a NAK: a NAK past the resume PSN shows progress (full budget again)
        self.retry_now.next = self.s_retry.q.val();
        if !self.a_fwd.val().get_bit(23) & (self.r_apsn.q.val() != self.s_rpsn.q.val()) {
            self.retry_now.next = self.retry_load.val();
        }

        // ================= timers ============================================================
        // the timer block counts the ticks and scans the QPs' timers; an expired one waits on
        // `exp_*` until the job machine takes it (Idle). The job re-reads the timer itself
        // (`s_tmr`), so a stale find does nothing.
        self.timers.tick.next = self.tick.val();
        self.timers.exp_ready.next = false;
        // zero fill: bytes of the next beat
        self.zf_n.next = 8.into();
        if self.p_rem.q.val() < 8 {
            self.zf_n.next = self.p_rem.q.val().get_bits::<4>(0);
        }
        self.rd_fire.next = false;

        // runtime query: latched, answered between jobs
        self.rtq_ack.next = false;
        self.rtq_sq_index.next = (bit_cast::<32, 16>(self.ram_ci.read_data.val()) << 16)
            | bit_cast::<32, 16>(self.ram_pi.read_data.val());
        self.rtq_drained.next = self.ram_pi.read_data.val() == self.ram_ci.read_data.val();
        if self.rtq_valid.val() {
            self.q_pend.d.next = true;
            self.q_qpn.d.next = self.rtq_qpn.val();
        }

        // ---- rate shaper gate and charge (defaults)
        self.sh_qpn.next = self.sched.head_qpn.val();
        if self.state.q.val() == ReqState::PktHdr {
            self.sh_qpn.next = self.r_qpn.q.val();
        }
        self.sh_charge.next = false;
        self.sh_charge_qpn.next = self.r_qpn.q.val();
        self.sh_charge_bytes.next = self.plen32.val();

        // ================= the job state machine =============================================
        self.le_swap.inp.next = self.d5.q.val();
        self.le_cmpadd.inp.next = self.d4.q.val();
        match self.state.q.val() {
            ReqState::Idle => {
                if self.q_pend.q.val() {
                    self.r_qpn.d.next = self.q_qpn.q.val();
                    self.state.d.next = ReqState::QueryWait;
                } else if self.ack_valid.val() {
                    self.ack_ready.next = true;
                    self.r_job.d.next = 2.into();
                    self.r_qpn.d.next = self.ack_qpn.val().get_bits::<QA>(0);
                    self.r_apsn.d.next = self.ack_psn.val();
                    self.r_asyn.d.next = self.ack_syndrome.val();
                    self.r_aatom.d.next = self.ack_atomic.val();
                    self.r_aorig.d.next = self.ack_orig.val();
                    self.n_acks.d.next = self.n_acks.q.val() + 1;
                    // an ACK for a QPN outside the table is dropped
                    if self.ack_qpn.val() < self.c_nqp.val() {
                        self.state.d.next = ReqState::QRd;
                    }
                } else if self.rr_valid.val() {
                    // a READ response: its header now, its payload in the job
                    self.rr_ready.next = true;
                    self.r_job.d.next = 4.into();
                    self.r_qpn.d.next = self.rr_qpn.val().get_bits::<QA>(0);
                    self.r_apsn.d.next = self.rr_psn.val();
                    self.r_rop.d.next = self.rr_opcode.val();
                    self.r_rplen.d.next = self.rr_plen.val();
                    self.pay_done.d.next = false;
                    self.r_gap.d.next = false;
                    self.r_wb.d.next = false;
                    self.state.d.next = ReqState::RrDrain;
                    if self.rr_qpn.val() < self.c_nqp.val() {
                        self.state.d.next = ReqState::QRd;
                    }
                } else if self.ev_valid.val() {
                    self.ev_ready.next = true;
                    self.r_job.d.next = 0.into();
                    self.r_qpn.d.next = self.ev_qpn.val();
                    self.r_evkind.d.next = self.ev_kind.val();
                    self.r_evval.d.next = self.ev_value.val();
                    self.state.d.next = ReqState::QRd;
                } else if self.timers.exp_valid.val() {
                    self.timers.exp_ready.next = true;
                    self.r_job.d.next = 3.into();
                    self.r_qpn.d.next = self.timers.exp_qpn.val();
                    self.state.d.next = ReqState::QRd;
                } else if self.sched.nonempty.val() & !self.tx_hold.val() {
                    // (while PFC holds the TX path the work ring waits: a job started now
                    // would only set itself aside again)
                    self.state.d.next = ReqState::PopWait;
                }
            }
            ReqState::PopWait => {
                self.state.d.next = ReqState::Pop;
            }
            ReqState::Pop => {
                // the head of the ring: a send job for it, unless the shaper holds it (`sh_wait`
                // at `sh_qpn`, the head): then the scheduler moves it to the ring's tail (it
                // stays queued) and the next QP of the ring gets its turn
                self.sched.pop.next = true;
                self.state.d.next = ReqState::Idle;
                if self.sched.taken.val() {
                    self.r_job.d.next = 1.into();
                    self.r_qpn.d.next = self.sched.head_qpn.val();
                    self.state.d.next = ReqState::QRd;
                }
            }
            ReqState::QRd => {
                self.qpc.rd_valid.next = true;
                if self.qpc.rd_ready.val() {
                    self.state.d.next = ReqState::QWait;
                }
            }
            ReqState::QWait => {
                if self.qpc.valid.val() {
                    self.q_state.d.next = self.qpc.state.val();
                    self.q_pd.d.next = self.qpc.pd.val();
                    self.q_dest.d.next = self.qpc.dest_qpn.val();
                    self.q_pmtu.d.next = self.qpc.pmtu.val();
                    self.q_sqpsn.d.next = self.qpc.sq_psn.val();
                    self.q_base.d.next = self.qpc.sq_base.val();
                    self.q_log2e.d.next = self.qpc.sq_log2_entries.val();
                    self.q_log2s.d.next = self.qpc.sq_log2_stride.val();
                    self.q_cqn.d.next = self.qpc.send_cqn.val();
                    self.q_timeout.d.next = self.qpc.timeout.val();
                    self.q_psnwin.d.next = self.qpc.sq_log2_psn_window.val();
                    self.q_retry.d.next = self.qpc.retry_cnt.val();
                    self.q_rnr_retry.d.next = self.qpc.rnr_retry.val();
                    self.state.d.next = ReqState::QLatch;
                }
            }
            ReqState::QLatch => {
                // the RAMs were read at r_qpn (stable since the job started)
                self.s_pi.d.next = self.ram_pi.read_data.val();
                self.s_ci.d.next = self.ram_ci.read_data.val();
                self.s_psn.d.next = self.ram_psn.read_data.val();
                self.s_spsn.d.next = self.ram_spsn.read_data.val();
                self.s_hpsn.d.next = self.ram_hpsn.read_data.val();
                self.s_flags.d.next = self.ram_flags.read_data.val();
                self.s_si.d.next = self.ram_si.read_data.val();
                self.s_hi.d.next = self.ram_hi.read_data.val();
                self.s_rpsn.d.next = self.ram_rpsn.read_data.val();
                self.s_cur.d.next = self.ram_cur.read_data.val();
                self.s_retry.d.next = self.ram_retry.read_data.val();
                self.s_tmr.d.next.armed = self.timers.job_armed.val();
                self.s_tmr.d.next.rnr = self.timers.job_rnr.val();
                self.s_tmr.d.next.deadline = self.timers.job_deadline.val();
                self.s_dst.d.next = self.ram_dst.read_data.val();
                self.s_rk.d.next = self.ram_rk.read_data.val();
                self.s_rrem.d.next = self.ram_rrem.read_data.val();
                self.s_rleft.d.next = self.ram_rleft.read_data.val();
                self.r_rrsp.d.next = false;
                self.state.d.next = ReqState::SlotRd;
            }
            ReqState::SlotRd => {
                // the table reads the row of the consumer index (now in s_ci)
                self.state.d.next = ReqState::Dispatch;
            }
            ReqState::Dispatch => {
                // the oldest outstanding WQE (meaningful while ci != hi)
                self.s_lpsn.d.next = self.tbl.rd_data.val().last_psn;
                self.s_wrid.d.next = self.tbl.rd_data.val().wr_id;
                self.s_op.d.next = bit_cast::<8, 3>(self.tbl.rd_data.val().opcode);
                self.s_sig.d.next = self.tbl.rd_data.val().signaled;
                self.state.d.next = ReqState::EvApply;
                if self.r_job.q.val() == 1 {
                    self.state.d.next = ReqState::SqStart;
                }
                if self.r_job.q.val() == 2 {
                    self.state.d.next = ReqState::AckApply;
                }
                if self.r_job.q.val() == 3 {
                    self.state.d.next = ReqState::TmrApply;
                }
                if self.r_job.q.val() == 4 {
                    self.state.d.next = ReqState::RrApply;
                }
            }
            ReqState::EvApply => {
                self.state.d.next = ReqState::Requeue;
                if self.r_evkind.q.val() == 0 {
                    // SQ doorbell: the new producer index
                    self.s_pi.d.next = self.r_evval.q.val();
                } else if self.r_evkind.q.val() == 2 {
                    // (a QP reset may reuse its ring: no WQE read ahead survives a MODIFY)
                    self.ahd_valid.d.next = false;
                    // MODIFY: RESET->INIT and ->RESET start the SQ from index 0; RTR->RTS
                    // takes the initial PSN; ->ERR flushes what is posted (Requeue), the
                    // message in flight included (its WQE is still at the consumer index)
                    if (self.r_evval.q.val().get_bits::<3>(0) == 0)
                        | ((self.r_evval.q.val().get_bits::<3>(0) == 1)
                            & (self.r_evval.q.val().get_bits::<3>(4) == 0))
                    {
                        self.s_pi.d.next = 0.into();
                        self.s_ci.d.next = 0.into();
                        self.s_si.d.next = 0.into();
                        self.s_hi.d.next = 0.into();
                        self.s_flags.d.next.err = false;
                        self.s_flags.d.next.read_gap = false;
                        self.s_flags.d.next.wait_drain = false;
                        self.s_flags.d.next.suspended = false;
                        self.s_flags.d.next.probe = false;
                        self.s_flags.d.next.probed = false;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                    }
                    if (self.r_evval.q.val().get_bits::<3>(0) == 3)
                        & (self.r_evval.q.val().get_bits::<3>(4) == 2)
                    {
                        self.s_psn.d.next = self.q_sqpsn.q.val();
                        self.s_hpsn.d.next = self.q_sqpsn.q.val();
                        self.s_spsn.d.next = self.q_sqpsn.q.val();
                        self.s_rpsn.d.next = self.q_sqpsn.q.val();
                    }
                    if self.r_evval.q.val().get_bits::<3>(0) == 6 {
                        self.s_flags.d.next.err = true;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                    }
                }
            }
            ReqState::SqStart => {
                // taken off the work ring: a new turn
                self.s_flags.d.next.queued = false;
                self.turn_pk.d.next = 0.into();
                self.r_pass2.d.next = false;
                self.state.d.next = ReqState::Writeback;
                if self.qp_err.val() {
                    // in ERR: every WQE from the consumer index is flushed, in order
                    if self.s_pi.q.val() != self.s_ci.q.val() {
                        self.r_flush.d.next = true;
                        self.state.d.next = ReqState::WqeReq;
                    }
                } else if (self.q_state.q.val() == 3) & self.can_send.val() {
                    // the WQE at the send index (a new one, or one sent again after a rewind)
                    self.r_flush.d.next = false;
                    self.state.d.next = ReqState::WqeReq;
                }
            }
            ReqState::WqeReq => {
                if self.ahd_hit.val() & !self.ahd_err.q.val() {
                    // the WQE was read ahead: as if read now, once all of it has arrived
                    if self.ahd_done.q.val() {
                        self.d0.d.next = self.ahd_hdr[0].q.val();
                        self.d1.d.next = self.ahd_hdr[1].q.val();
                        self.d2.d.next = self.ahd_hdr[2].q.val();
                        self.d3.d.next = self.ahd_hdr[3].q.val();
                        self.d4.d.next = self.ahd_hdr[4].q.val();
                        self.d5.d.next = self.ahd_hdr[5].q.val();
                        for k in 0..SGE_PREFETCH {
                            self.sgb_addr[k].d.next = self.ahd_sga[k].q.val();
                            self.sgb_lkey[k].d.next = self.ahd_sgl[k].q.val();
                        }
                        self.sgb_ok.d.next = true;
                        self.sgb_n.d.next = self.ahd_n.q.val();
                        self.d_err.d.next = false;
                        self.w_slot.d.next = self.slot_addr.val();
                        self.ahd_valid.d.next = false;
                        self.state.d.next = ReqState::WqeCheck;
                        if self.ahd_want.val() {
                            self.state.d.next = ReqState::WqeAhead;
                        }
                    }
                } else {
                    // the header and the first SGEs in one read (the SGE buffer); a WQE read
                    // ahead for this QP is some other (a rewind, a flush): dropped
                    if self.ahd_qp.val() {
                        self.ahd_valid.d.next = false;
                    }
                    self.dma_rd.req_valid.next = !self.kinds.full.val();
                    self.dma_rd.req_addr.next = self.slot_addr.val();
                    self.dma_rd.req_len.next = self.wqe_rd_len.val();
                    self.rd_fire.next = self.dma_rd.req_valid.val() & self.dma_rd.req_ready.val();
                    if self.rd_fire.val() {
                        self.kinds.push.next = true;
                        self.kinds.din.next = 0.into();
                        self.w_slot.d.next = self.slot_addr.val();
                        self.sgb_ok.d.next = false;
                        self.state.d.next = ReqState::WqeWait;
                    }
                }
            }
            ReqState::WqeAhead => {
                // the QP's next posted WQE read ahead (its data come before the payload this
                // job is about to request)
                self.dma_rd.req_valid.next = !self.kinds.full.val();
                self.dma_rd.req_addr.next = self.slot_nx.q.val();
                self.dma_rd.req_len.next = self.wqe_rd_len.val();
                self.rd_fire.next = self.dma_rd.req_valid.val() & self.dma_rd.req_ready.val();
                if self.rd_fire.val() {
                    self.kinds.push.next = true;
                    self.kinds.din.next = 2.into();
                    self.ahd_valid.d.next = true;
                    self.ahd_busy.d.next = true;
                    self.ahd_done.d.next = false;
                    self.ahd_qpn.d.next = self.r_qpn.q.val();
                    self.ahd_idx.d.next = self.s_si.q.val() + 1;
                    self.ahd_n.d.next = self.sgb_fetch.val();
                    self.state.d.next = ReqState::WqeCheck;
                }
            }
            ReqState::WqeWait => {
                if self.d_done.q.val() {
                    self.d_done.d.next = false;
                    self.wqe_hdr_only.d.next = false;
                    self.sgb_ok.d.next = !self.wqe_hdr_only.q.val() & !self.d_err.q.val();
                    self.sgb_n.d.next = self.sgb_fetch.val();
                    self.state.d.next = ReqState::WqeCheck;
                    if self.ahd_want.val() & !self.d_err.q.val() {
                        self.state.d.next = ReqState::WqeAhead;
                    }
                    if self.d_err.q.val() & !self.wqe_hdr_only.q.val() {
                        // the read with the SGEs failed somewhere: the header alone again
                        self.wqe_hdr_only.d.next = true;
                        self.state.d.next = ReqState::WqeReq;
                    }
                }
            }
            ReqState::WqeCheck => {
                self.w_op.d.next = self.d0.q.val().get_bits::<8>(48);
                self.w_flags.d.next = self.d0.q.val().get_bits::<8>(40);
                self.w_nsge.d.next = self.d0.q.val().get_bits::<8>(32);
                self.w_len.d.next = self.x_len.val();
                self.w_wrid.d.next = self.x_wrid.val();
                self.w_imm.d.next = self.d2.q.val().get_bits::<32>(32);
                self.w_rkey.d.next = self.x_rkey.val();
                self.w_va.d.next = self.x_va.val();
                // compare (or add) and swap data: bytes 32..40 and 40..48 (LE)
                self.w_cmpadd.d.next = self.le_cmpadd.out.val();
                self.w_swap.d.next = self.le_swap.out.val();
                // a completion for this WQE, if it ends here
                self.c_wrid.d.next = self.x_wrid.val();
                self.c_op.d.next = 0.into();
                if !self.d0.q.val().get_bit(49) {
                    self.c_op.d.next = 1.into();
                }
                if self.d0.q.val().get_bits::<8>(48) == 5 {
                    self.c_op.d.next = 3.into();
                }
                if self.d0.q.val().get_bits::<8>(48) == 6 {
                    self.c_op.d.next = 4.into();
                }
                if self.d0.q.val().get_bits::<8>(48) == 4 {
                    self.c_op.d.next = 2.into();
                }
                self.c_index.d.next = self.w_idx.val();
                self.c_vendor.d.next = self.c_vend[0].val();
                self.c_err.d.next = true;
                self.state.d.next = ReqState::Qerr;
                if self.r_flush.q.val() {
                    // QP in ERR: flushed, no QP error to report again (the window follows)
                    self.c_status.d.next = self.c_st[4].val();
                    self.c_err.d.next = false;
                    self.s_ci.d.next = self.s_ci.q.val() + 1;
                    self.s_si.d.next = self.s_ci.q.val() + 1;
                    self.s_hi.d.next = self.s_ci.q.val() + 1;
                    self.state.d.next = ReqState::Cqe;
                    if self.d_err.q.val() {
                        // (the WQE could not be read: its wr_id is unknown)
                        self.c_wrid.d.next = 0.into();
                    }
                } else if self.d_err.q.val() {
                    // the WQE's read failed (docs/DMA.md 6): nothing of it is used; a fatal
                    // error completion (wr_id unknown, 0), the QP to ERR
                    self.c_wrid.d.next = 0.into();
                    self.c_status.d.next = self.c_st[10].val();
                    self.c_vendor.d.next = self.c_vend[8].val();
                } else if self.wq_rdat.val()
                    & (self.s_si.q.val() != self.s_ci.q.val())
                    & (self.d0.q.val().get_bit(56) == self.exp_owner.val())
                {
                    // a READ or an atomic is sent only with the window empty: wait for it
                    self.s_flags.d.next.wait_drain = true;
                    self.state.d.next = ReqState::Requeue;
                } else if self.d0.q.val().get_bit(56) != self.exp_owner.val() {
                    self.c_status.d.next = self.c_st[2].val();
                    self.c_vendor.d.next = self.c_vend[1].val();
                } else if (self.d0.q.val().get_bits::<8>(48) > 6)
                    | (self.d0.q.val().get_bits::<8>(40) > 7)
                {
                    // LOCAL_INV, SEND_WITH_INV, unknown opcodes, and INLINE or undefined flags
                    self.c_status.d.next = self.c_st[2].val();
                    self.c_vendor.d.next = self.c_vend[2].val();
                } else if ((self.d0.q.val().get_bits::<8>(48) == 5)
                    | (self.d0.q.val().get_bits::<8>(48) == 6))
                    & ((self.x_len.val() != 8) | (self.d0.q.val().get_bits::<8>(32) != 1))
                {
                    // an atomic's result needs exactly one 8-byte local SGE
                    self.c_status.d.next = self.c_st[1].val();
                    self.c_vendor.d.next = self.c_vend[4].val();
                } else if bit_cast::<16, 8>(self.d0.q.val().get_bits::<8>(32)) > self.sge_cap.val()
                {
                    self.c_status.d.next = self.c_st[2].val();
                    self.c_vendor.d.next = self.c_vend[3].val();
                } else if self.x_len.val().get_bit(31) & (self.x_len.val().get_bits::<31>(0) != 0) {
                    self.c_status.d.next = self.c_st[1].val();
                    self.c_vendor.d.next = self.c_vend[4].val();
                } else if self.suspended.val() & !self.wq_rdat.val() {
                    // a SEND / WRITE set aside at a packet goes on from its cursor (pass 1 and
                    // the window's start were done when it first started): the SGE the cursor
                    // is in is fetched and checked again (it may have been deregistered), or
                    // the next packet starts at once if the cursor is between SGEs
                    self.r_pass2.d.next = true;
                    self.m_rem.d.next = self.s_cur.q.val().get_bits::<32>(0);
                    self.m_first.d.next = self.s_cur.q.val().get_bits::<32>(0) == self.x_len.val();
                    self.r_k.d.next = self.s_cur.q.val().get_bits::<8>(32);
                    self.g_rem.d.next = 0.into();
                    self.state.d.next = ReqState::PktHdr;
                    if self.s_cur.q.val().get_bits::<32>(40) != 0 {
                        self.r_k.d.next = self.s_cur.q.val().get_bits::<8>(32) - 1;
                        self.r_resume.d.next = true;
                        self.state.d.next = ReqState::SgeReq;
                    }
                } else {
                    // pass 1: check every SGE and add up their lengths
                    self.r_pass2.d.next = false;
                    self.r_k.d.next = 0.into();
                    self.r_sum.d.next = 0.into();
                    self.state.d.next = ReqState::SgeNext;
                }
            }
            ReqState::SgeNext => {
                if self.tx_hold.val() {
                    // the receive path waits on the requester (PFC, or its FIFO half full):
                    // the job sets itself aside before its next SGE read, which may wait long
                    // behind the host's bulk reads (nothing of the WQE was sent in this pass:
                    // it is read and checked again when the QP is next served)
                    self.ev_yield.next = true;
                    self.state.d.next = ReqState::Requeue;
                } else if self.r_k.q.val() == self.w_nsge.q.val() {
                    if bit_cast::<40, 32>(self.w_len.q.val()) == self.r_sum.q.val() {
                        // pass 2: segment (the shaper is charged packet by packet, PktHdr)
                        self.r_pass2.d.next = true;
                        self.r_k.d.next = 0.into();
                        self.g_rem.d.next = 0.into();
                        self.m_rem.d.next = self.w_len.q.val();
                        self.m_first.d.next = true;
                        // the send goes ahead: it no longer waits for the window
                        self.s_flags.d.next.wait_drain = false;
                        if !self.inflight.val() {
                            // the window was empty: it starts at this WQE, nothing
                            // acknowledged yet, full retry budgets
                            self.s_spsn.d.next = self.s_psn.q.val();
                            self.s_rpsn.d.next = self.s_psn.q.val();
                            self.s_retry.d.next = self.retry_load.val();
                        }
                        self.state.d.next = ReqState::PktHdr;
                        if self.is_rd.val() {
                            self.state.d.next = ReqState::RdReq;
                        }
                    } else {
                        self.c_status.d.next = self.c_st[1].val();
                        self.c_vendor.d.next = self.c_vend[4].val();
                        self.state.d.next = ReqState::Qerr;
                    }
                } else {
                    self.state.d.next = ReqState::SgeReq;
                }
            }
            ReqState::SgeReq => {
                if self.sgb_hit.val() {
                    // read with the WQE's header: from the SGE buffer, as if read now
                    self.d0.d.next = self.sgb_a.val();
                    self.d1.d.next = self.sgb_l.val();
                    self.d_done.d.next = true;
                    self.d_err.d.next = false;
                    self.state.d.next = ReqState::SgeWait;
                } else {
                    self.dma_rd.req_valid.next = !self.kinds.full.val();
                    self.dma_rd.req_addr.next = self.w_slot.q.val()
                        + bit_cast::<64, 16>(self.c_hdr_len.val())
                        + (bit_cast::<64, 8>(self.r_k.q.val()) << 4);
                    self.dma_rd.req_len.next = self.c_sge_len.val();
                    self.rd_fire.next = self.dma_rd.req_valid.val() & self.dma_rd.req_ready.val();
                    if self.rd_fire.val() {
                        self.kinds.push.next = true;
                        self.kinds.din.next = 0.into();
                        self.state.d.next = ReqState::SgeWait;
                    }
                }
            }
            ReqState::SgeWait => {
                if self.d_done.q.val() {
                    self.d_done.d.next = false;
                    self.g_addr.d.next = self.x_saddr.val();
                    self.g_len.d.next = self.x_slen.val();
                    self.g_lkey.d.next = self.x_lkey.val();
                    self.state.d.next = ReqState::SgeMr;
                    if self.d_err.q.val() {
                        // the SGE's read failed: handled like an SGE that fails its lkey
                        // check (SgeMrWait), with the fatal status: a READ's response is
                        // discarded; a packet whose header is out is finished with zeros,
                        // poisoned (`pay_bad`)
                        self.g_len.d.next = 0.into();
                        self.c_status.d.next = self.c_st[10].val();
                        self.c_vendor.d.next = self.c_vend[8].val();
                        self.state.d.next = ReqState::Qerr;
                        self.r_resume.d.next = false;
                        if self.r_pass2.q.val() & !self.r_skip.q.val() & !self.r_resume.q.val() {
                            self.state.d.next = ReqState::ZeroFill;
                        }
                        if self.r_rrsp.q.val() {
                            // (`w_err`: the READ then fails as a failed DMA access)
                            self.r_rfail.d.next = true;
                            self.w_err.d.next = true;
                            self.state.d.next = ReqState::RrPlace;
                        }
                    }
                }
            }
            ReqState::SgeMr => {
                if self.g_len.q.val() == 0 {
                    // an empty SGE: nothing to check or read
                    self.r_k.d.next = self.r_k.q.val() + 1;
                    self.g_rem.d.next = 0.into();
                    self.state.d.next = ReqState::SgeNext;
                    if self.r_pass2.q.val() {
                        self.state.d.next = ReqState::Gather;
                    }
                    if self.r_rrsp.q.val() {
                        self.state.d.next = ReqState::RrPlace;
                    }
                    if self.r_resume.q.val() {
                        // (the host emptied the SGE since: the next packet gathers from the next)
                        self.r_resume.d.next = false;
                        self.state.d.next = ReqState::PktHdr;
                    }
                } else {
                    self.mr_req_valid.next = true;
                    if self.mr_req_ready.val() {
                        self.state.d.next = ReqState::SgeMrWait;
                    }
                }
            }
            ReqState::SgeMrWait => {
                if self.mr_resp_valid.val() {
                    if self.mr_resp_ok.val() {
                        self.g_iova.d.next = self.mr_resp_addr.val();
                        self.g_rem.d.next = self.g_len.q.val();
                        self.r_sum.d.next =
                            self.r_sum.q.val() + bit_cast::<40, 32>(self.g_len.q.val());
                        self.r_k.d.next = self.r_k.q.val() + 1;
                        self.state.d.next = ReqState::SgeNext;
                        if self.r_pass2.q.val() {
                            self.state.d.next = ReqState::Gather;
                        }
                        if self.r_rrsp.q.val() {
                            self.state.d.next = ReqState::RrPlace;
                        }
                        if self.r_resume.q.val() {
                            // a message set aside goes on: at the cursor's byte of the SGE
                            // (all of it if the host shortened the SGE since: still inside
                            // the region just checked)
                            self.r_resume.d.next = false;
                            if self.s_cur.q.val().get_bits::<32>(40) <= self.g_len.q.val() {
                                self.g_iova.d.next = self.mr_resp_addr.val()
                                    + bit_cast::<64, 32>(
                                        self.g_len.q.val() - self.s_cur.q.val().get_bits::<32>(40),
                                    );
                                self.g_rem.d.next = self.s_cur.q.val().get_bits::<32>(40);
                            }
                            self.state.d.next = ReqState::PktHdr;
                        }
                    } else if self.r_rrsp.q.val() {
                        // a READ's SGE went away since the request: the rest of the response
                        // is discarded and the READ fails (RrDone)
                        self.r_rfail.d.next = true;
                        self.state.d.next = ReqState::RrPlace;
                    } else {
                        self.c_status.d.next = self.c_st[3].val();
                        self.c_vendor.d.next = self.c_vend[5].val();
                        self.state.d.next = ReqState::Qerr;
                        self.r_resume.d.next = false;
                        if self.r_pass2.q.val() & !self.r_skip.q.val() & !self.r_resume.q.val() {
                            // the MR went away between the passes: finish the packet whose
                            // header is out with zeros, then fail the WQE
                            self.state.d.next = ReqState::ZeroFill;
                        }
                    }
                }
            }
            ReqState::PktHdr => {
                // (a packet walked, not sent, passes whatever holds the TX path)
                self.pk_valid.next = !self.skip_now.val()
                    & !self.tx_hold.val()
                    & !self.sh_wait.val()
                    & !self.win_wait.val()
                    & !self.turn_over.val();
                self.pk_se.next = self.is_last.val() & self.w_flags.q.val().get_bit(1);
                if self.win_wait.val() {
                    // a new message that does not fit whole in the QP's PSN window beside
                    // what is outstanding: nothing of it goes; the QP waits, out of the ring,
                    // until the window has drained (`wait_drain`), then sends it from its WQE
                    // (a message longer than the window thus goes alone)
                    self.s_flags.d.next.wait_drain = true;
                    self.state.d.next = ReqState::Requeue;
                } else if !self.skip_now.val()
                    & (self.tx_hold.val()
                        | (self.sh_wait.val() & self.others_wait.val())
                        | self.turn_over.val())
                {
                    // PFC holds the TX path before this packet, or the shaper holds the QP
                    // while other work waits, or the turn's quantum is used up while other
                    // QPs wait in the ring: the job sets itself aside, the QP back in the
                    // ring, and its message goes on from this packet when the QP is next
                    // served (`suspended`, the cursor). An atomic (one packet) simply starts
                    // again from its WQE. (The shaper holding a QP with nothing else to do
                    // leaves the job waiting here: setting aside would cost a WQE fetch.)
                    self.s_cur.d.next = self.cur_now.val();
                    if !self.is_atom.val() {
                        self.s_flags.d.next.suspended = true;
                    }
                    self.ev_yield.next = self.tx_hold.val();
                    self.ev_sh_yield.next =
                        !self.tx_hold.val() & self.sh_wait.val() & self.others_wait.val();
                    self.state.d.next = ReqState::Requeue;
                } else if (self.pk_ready.val() & !self.sh_wait.val()) | self.skip_now.val() {
                    if !self.skip_now.val() {
                        // (a message set aside goes on from here: it is no longer; the shaper
                        // is charged the packet's payload)
                        self.s_flags.d.next.suspended = false;
                        self.sh_charge.next = self.plen.val() != 0;
                    }
                    self.p_rem.d.next = self.plen.val();
                    self.p_last.d.next = self.is_last.val();
                    self.m_rem.d.next = self.m_rem.q.val() - self.plen32.val();
                    self.m_first.d.next = false;
                    self.s_lpsn.d.next = self.s_psn.q.val();
                    self.s_psn.d.next = self.s_psn.q.val() + 1;
                    self.r_skip.d.next = self.skip_now.val();
                    if !self.retrying.val() {
                        self.s_hpsn.d.next = self.s_psn.q.val() + 1;
                    }
                    if self.s_si.q.val() == self.s_hi.q.val() {
                        // a new message's first packet: its row in the in-flight table now
                        // (its last PSN from its length), so that ACKs, NAKs and the timers
                        // see the message while the rest of it is still to be sent: it may be
                        // set aside between packets (PFC, the shaper, the send quantum)
                        self.tbl.wr_en.next = true;
                        self.tbl.wr_data.next.last_psn = self.row_lpsn.val();
                        self.s_hi.d.next = self.s_hi.q.val() + 1;
                        if self.s_si.q.val() == self.s_ci.q.val() {
                            // it is the oldest outstanding
                            self.s_wrid.d.next = self.w_wrid.q.val();
                            self.s_op.d.next = self.cqe_op.val();
                            self.s_sig.d.next = self.w_flags.q.val().get_bit(0);
                        }
                    }
                    if !self.skip_now.val() {
                        self.turn_pk.d.next = self.turn_pk.q.val() + 1;
                        self.n_packets.d.next = self.n_packets.q.val() + 1;
                        if self.retrying.val() {
                            self.n_retx.d.next = self.n_retx.q.val() + 1;
                            self.ev_retransmit.next = true;
                        }
                    }
                    self.state.d.next = ReqState::PktDone;
                    if self.plen.val() != 0 {
                        self.state.d.next = ReqState::Gather;
                    }
                }
            }
            ReqState::Gather => {
                if self.p_rem.q.val() == 0 {
                    self.state.d.next = ReqState::PktDone;
                } else if self.g_rem.q.val() == 0 {
                    // the next SGE (pass 1 proved the SGEs cover the message)
                    self.state.d.next = ReqState::SgeReq;
                } else if self.r_skip.q.val() {
                    // a packet the peer has acknowledged: move the cursor, read nothing
                    self.g_iova.d.next = self.g_iova.q.val() + bit_cast::<64, 32>(self.chunk.val());
                    self.g_rem.d.next = self.g_rem.q.val() - self.chunk.val();
                    self.p_rem.d.next = self.p_rem.q.val() - self.chunk.val().get_bits::<13>(0);
                } else {
                    self.dma_rd.req_valid.next = !self.kinds.full.val() & self.pf_room.val();
                    self.dma_rd.req_addr.next = self.g_iova.q.val();
                    self.dma_rd.req_len.next = self.chunk.val().get_bits::<16>(0);
                    self.rd_fire.next = self.dma_rd.req_valid.val() & self.dma_rd.req_ready.val();
                    if self.rd_fire.val() {
                        self.resv.d.next = self.resv.q.val() + self.pf_beats.val();
                        if self.pf_pop.val() {
                            self.resv.d.next = self.resv.q.val() + self.pf_beats.val() - 1;
                        }
                        self.kinds.push.next = true;
                        self.kinds.din.next = 1.into();
                        if self.chunk.val() == self.p_rem32.val() {
                            self.kinds.din.next = 3.into();
                        }
                        self.g_iova.d.next =
                            self.g_iova.q.val() + bit_cast::<64, 32>(self.chunk.val());
                        self.g_rem.d.next = self.g_rem.q.val() - self.chunk.val();
                        self.p_rem.d.next = self.p_rem.q.val() - self.chunk.val().get_bits::<13>(0);
                    }
                }
            }
            ReqState::ZeroFill => {
                // after every read in flight has reached the packer, zeros to the packet's end
                if !self.kinds.valid.val() & self.pf_empty.val() {
                    if self.p_rem.q.val() == 0 {
                        self.state.d.next = ReqState::Qerr;
                    } else {
                        self.packer.inp.valid.next = true;
                        self.packer.inp.data.next = 0.into();
                        self.packer.inp.last.next = true;
                        self.packer.inp_eop.next = self.p_rem.q.val() <= 8;
                        for k in 1..9 {
                            if self.zf_n.val() == self.c_cnt[k].val() {
                                self.packer.inp.keep.next = self.c_keep[k].val();
                            }
                        }
                        if self.packer.inp.ready.val() {
                            self.p_rem.d.next =
                                self.p_rem.q.val() - bit_cast::<13, 4>(self.zf_n.val());
                        }
                    }
                }
            }
            ReqState::PktDone => {
                self.state.d.next = ReqState::PktHdr;
                if self.p_last.q.val() {
                    // the message is out (its row was written at its first packet): the send
                    // index on, the QP back in the work ring if the window allows another;
                    // the ACK timer runs from the first message sent whole
                    self.s_si.d.next = self.s_si.q.val() + 1;
                    if !self.tmr_armed.val() {
                        self.s_tmr.d.next = self.arm_next.val();
                        self.s_flags.d.next.probed = false;
                    }
                    self.s_dst.d.next = self.g_iova.q.val();
                    self.n_messages.d.next = self.n_messages.q.val() + 1;
                    self.state.d.next = ReqState::Requeue;
                }
            }
            ReqState::AckApply => {
                // an ACK or NAK: PSNs inside the window count, stale ones are dropped. First
                // the walk retires every SEND / WRITE it covers, from the oldest (an ACK at or
                // after a WQE's last PSN, a NAK after it), one CQE per signaled WQE in order
                self.state.d.next = ReqState::Idle;
                self.r_ret.d.next = false;
                if self.inflight.val() & self.in_range.val() {
                    self.state.d.next = ReqState::RetChk;
                }
            }
            ReqState::RetChk => {
                // the oldest row (read at s_ci) retires, or the walk ends with it the oldest
                if self.ret_ok.val() {
                    self.c_wrid.d.next = self.row.q.val().wr_id;
                    self.c_op.d.next = bit_cast::<8, 3>(self.row.q.val().opcode);
                    self.c_index.d.next = self.s_ci.q.val();
                    self.c_vendor.d.next = self.c_vend[0].val();
                    self.c_status.d.next = self.c_st[0].val();
                    self.c_err.d.next = false;
                    self.s_ci.d.next = self.s_ci.q.val() + 1;
                    self.s_spsn.d.next = self.row.q.val().last_psn + 1;
                    self.r_ret.d.next = true;
                    self.state.d.next = ReqState::RetRd;
                    if self.row.q.val().signaled {
                        self.state.d.next = ReqState::RetCqe;
                    }
                } else {
                    self.s_lpsn.d.next = self.row.q.val().last_psn;
                    self.s_wrid.d.next = self.row.q.val().wr_id;
                    self.s_op.d.next = bit_cast::<8, 3>(self.row.q.val().opcode);
                    self.s_sig.d.next = self.row.q.val().signaled;
                    self.state.d.next = ReqState::AckTail;
                }
            }
            ReqState::RetRd => {
                // the row of the new consumer index is read
                self.state.d.next = ReqState::RetChk;
            }
            ReqState::RetCqe => {
                self.cqe_valid.next = true;
                if self.cqe_ready.val() {
                    self.state.d.next = ReqState::RetRd;
                }
            }
            ReqState::AckTail => {
                self.state.d.next = ReqState::Requeue;
                self.c_wrid.d.next = self.s_wrid.q.val();
                self.c_op.d.next = self.s_op.q.val();
                self.c_index.d.next = self.s_ci.q.val();
                self.c_vendor.d.next = self.c_vend[0].val();
                self.c_err.d.next = false;
                if self.r_ret.q.val() {
                    // progress: the retry budgets reloaded, the resume PSN at least at the
                    // window's new start (a rewind already queued goes on from there), the
                    // ACK timer restarted for what is left, or stopped
                    self.s_retry.d.next = self.retry_load.val();
                    if self.d_rs.val().get_bit(23) {
                        self.s_rpsn.d.next = self.s_spsn.q.val();
                    }
                    if self.rewinding.val() & self.d_ps.val().get_bit(23) {
                        self.s_psn.d.next = self.s_spsn.q.val();
                    }
                    if self.d_sc.val().get_bit(15) {
                        // (a message being sent again and set aside there is acknowledged
                        // whole: it does not go on)
                        self.s_si.d.next = self.s_ci.q.val();
                        self.s_flags.d.next.suspended = false;
                    }
                    if !self.inflight.val() {
                        // (a new message set aside keeps its cursor's PSN: it is not in the
                        // window yet)
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.s_flags.d.next.probed = false;
                        if !self.suspended.val() | self.d_sc.val().get_bit(15) {
                            self.s_psn.d.next = self.s_hpsn.q.val();
                        }
                        self.s_si.d.next = self.s_ci.q.val();
                    } else if !self.tmr_rnr.val() {
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.s_flags.d.next.probed = false;
                        if self.whole_out.val() {
                            self.s_tmr.d.next = self.arm_next.val();
                        }
                    }
                }
                if !self.inflight.val() {
                    // everything retired
                } else if (self.r_asyn.q.val().get_bits::<3>(5) == 0)
                    & ((self.r_aatom.q.val() != self.out_atom.val()) | self.out_rd.val())
                {
                    // an ATOMIC ACKNOWLEDGE for a message that is not an atomic, or a plain
                    // ACK for an atomic (which carries no result) or a READ: nothing more
                } else if self.r_asyn.q.val().get_bits::<3>(5) == 0 {
                    if self.covered.val() & self.out_atom.val() {
                        // the atomic's result: into its local SGE first, then retire
                        self.state.d.next = ReqState::AtWr;
                    } else if self.in_range.val() & !self.a_fwd.val().get_bit(23) {
                        // progress inside the oldest message: resume after it, retry budgets
                        // reloaded, the ACK timer restarted
                        self.s_rpsn.d.next = self.r_apsn.q.val() + 1;
                        self.s_retry.d.next = self.retry_load.val();
                        if !self.tmr_rnr.val() {
                            self.s_tmr.d.next = self.c_tmr_stop.val();
                            self.s_flags.d.next.probed = false;
                            if self.whole_out.val() {
                                self.s_tmr.d.next = self.arm_next.val();
                            }
                        }
                    }
                } else if (self.r_asyn.q.val().get_bits::<3>(5) == 1)
                    & self.outstanding.val()
                    & self.in_range.val()
                    & !(self.tmr_armed.val() & self.tmr_rnr.val())
                {
                    // RNR NAK: wait the timer it carries (nothing is sent meanwhile), then
                    // send again from its PSN
                    self.n_naks.d.next = self.n_naks.q.val() + 1;
                    self.s_rpsn.d.next = self.r_apsn.q.val();
                    self.s_tmr.d.next = self.arm_rnr.val();
                    if self.s_retry.q.val().get_bits::<3>(4) == 0 {
                        self.s_flags.d.next.err = true;
                        self.s_ci.d.next = self.s_ci.q.val() + 1;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.c_err.d.next = true;
                        self.c_status.d.next = self.c_st[9].val();
                        self.ev_retry_exc.next = true;
                        self.state.d.next = ReqState::Qerr;
                    } else if self.s_retry.q.val().get_bits::<3>(4) != 7 {
                        // rnr_retry 7 = infinite
                        self.s_retry.d.next = self.s_retry.q.val() - 16;
                    }
                } else if (self.r_asyn.q.val() == 0x60)
                    & self.nak_new.val()
                    & self.in_range.val()
                    & !(self.tmr_armed.val() & self.tmr_rnr.val())
                {
                    // NAK PSN sequence error: Go-Back-N from its PSN (the first one the
                    // responder misses) across the WQEs of the window: the send index back to
                    // the oldest, its packets before the NAK's PSN skipped. While an RNR wait
                    // runs, sequence NAKs are the echo of an earlier loss, and so are those
                    // of a rewind being sent for PSNs it has not sent again yet; one for a
                    // PSN it has sent again (`nak_new`) reports that packet lost again, and
                    // the rewind starts over from it (else only the ACK timer would find
                    // it). The NAK acknowledges every PSN before its own: past the resume
                    // PSN that is progress, and the retry budget starts afresh (as for an
                    // ACK).
                    self.n_naks.d.next = self.n_naks.q.val() + 1;
                    if self.retry_now.val().get_bits::<3>(0) == 0 {
                        self.s_flags.d.next.err = true;
                        self.s_ci.d.next = self.s_ci.q.val() + 1;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.c_err.d.next = true;
                        self.c_status.d.next = self.c_st[8].val();
                        self.c_vendor.d.next = self.c_vend[7].val();
                        self.ev_retry_exc.next = true;
                        self.state.d.next = ReqState::Qerr;
                    } else {
                        self.s_retry.d.next = self.retry_now.val() - 1;
                        // (a READ resumes where its responses stopped: its cursor is there)
                        if !self.out_rd.val() {
                            self.s_rpsn.d.next = self.r_apsn.q.val();
                        }
                        self.s_psn.d.next = self.s_spsn.q.val();
                        self.s_si.d.next = self.s_ci.q.val();
                        self.s_flags.d.next.wait_drain = false;
                        self.s_flags.d.next.suspended = false;
                        self.s_flags.d.next.probe = false;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.n_resent.d.next = self.n_resent.q.val() + 1;
                        self.ev_rewind.next = true;
                    }
                } else if (self.r_asyn.q.val().get_bits::<3>(5) == 3)
                    & (self.r_asyn.q.val() != 0x60)
                    & self.in_range.val()
                {
                    // NAK invalid request / remote access / remote operational error: the
                    // oldest WQE left fails, the QP goes to ERR, the rest are flushed
                    self.s_flags.d.next.err = true;
                    self.s_ci.d.next = self.s_ci.q.val() + 1;
                    self.s_tmr.d.next = self.c_tmr_stop.val();
                    self.n_naks.d.next = self.n_naks.q.val() + 1;
                    self.c_err.d.next = true;
                    self.c_status.d.next = self.c_st[7].val();
                    if self.r_asyn.q.val() == 0x61 {
                        self.c_status.d.next = self.c_st[5].val();
                    }
                    if self.r_asyn.q.val() == 0x62 {
                        self.c_status.d.next = self.c_st[6].val();
                    }
                    self.state.d.next = ReqState::Qerr;
                }
            }
            ReqState::TmrApply => {
                self.state.d.next = ReqState::Idle;
                self.c_wrid.d.next = self.s_wrid.q.val();
                self.c_op.d.next = self.s_op.q.val();
                self.c_index.d.next = self.s_ci.q.val();
                self.c_vendor.d.next = self.c_vend[0].val();
                self.c_err.d.next = false;
                if self.tmr_due.val() {
                    self.s_tmr.d.next = self.c_tmr_stop.val();
                    self.state.d.next = ReqState::Writeback;
                    if self.inflight.val() & self.tmr_rnr.val() {
                        // RNR wait over: the window again from the NAKed PSN
                        self.s_psn.d.next = self.s_spsn.q.val();
                        self.s_si.d.next = self.s_ci.q.val();
                        self.s_flags.d.next.wait_drain = false;
                        self.s_flags.d.next.suspended = false;
                        self.s_flags.d.next.probe = false;
                        self.n_resent.d.next = self.n_resent.q.val() + 1;
                        self.ev_rewind.next = true;
                        self.state.d.next = ReqState::Requeue;
                    } else if self.inflight.val()
                        & !self.s_flags.q.val().probed
                        & !self.out_rdat.val()
                    {
                        // the probe timeout (a quarter of the local ACK timeout, while the
                        // window holds only SEND / WRITE): a tail-loss probe, the highest PSN
                        // sent sent again with AckReq (the packets before it walked, not
                        // sent), and the ACK timer re-armed with the whole timeout. Whatever
                        // was lost at the tail, the probe gets an answer: a lost last packet
                        // arrives in sequence and is ACKed, a lost ACK is answered by the
                        // duplicate's re-ACK, a lost NAK by the NAK again (the responder NAKs
                        // a PSN out of sequence again when the requester has gone back). No
                        // retry is spent, and neither a timeout nor a rewind is counted (the
                        // probe has its counter, and its packet counts as sent again).
                        self.s_psn.d.next = self.s_spsn.q.val();
                        self.s_si.d.next = self.s_ci.q.val();
                        self.s_flags.d.next.wait_drain = false;
                        self.s_flags.d.next.suspended = false;
                        self.s_flags.d.next.probe = true;
                        self.s_flags.d.next.probed = true;
                        self.s_tmr.d.next = self.arm_ack.val();
                        self.ev_probe.next = true;
                        self.state.d.next = ReqState::Requeue;
                    } else if self.inflight.val() {
                        // local ACK timeout: Go-Back-N from the first unacknowledged PSN,
                        // across the WQEs of the window
                        self.n_tmo.d.next = self.n_tmo.q.val() + 1;
                        self.ev_timeout.next = true;
                        if self.s_retry.q.val().get_bits::<3>(0) == 0 {
                            self.s_flags.d.next.err = true;
                            self.s_ci.d.next = self.s_ci.q.val() + 1;
                            self.c_err.d.next = true;
                            self.c_status.d.next = self.c_st[8].val();
                            self.c_vendor.d.next = self.c_vend[6].val();
                            self.ev_retry_exc.next = true;
                            self.state.d.next = ReqState::Qerr;
                        } else {
                            self.s_retry.d.next = self.s_retry.q.val() - 1;
                            self.s_psn.d.next = self.s_spsn.q.val();
                            self.s_si.d.next = self.s_ci.q.val();
                            self.s_flags.d.next.wait_drain = false;
                            self.s_flags.d.next.suspended = false;
                            self.s_flags.d.next.probe = false;
                            self.s_flags.d.next.probed = false;
                            self.n_resent.d.next = self.n_resent.q.val() + 1;
                            self.ev_rewind.next = true;
                            self.state.d.next = ReqState::Requeue;
                        }
                    }
                }
            }
            ReqState::AtWr => {
                // the original value to the atomic's local SGE: a word job of the mover, once
                // the writes of an earlier READ response have completed (AtDone takes the
                // next write completion as this one's)
                self.mover.job_valid.next = self.wr_idle.val();
                self.mover.job_word_job.next = true;
                self.mover.job_addr.next = self.s_dst.q.val();
                if self.mover.job_ready.val() & self.wr_idle.val() {
                    self.state.d.next = ReqState::AtDone;
                }
            }
            ReqState::AtDone => {
                // the value is in host memory: the atomic completes (a failed write is a
                // fatal error, docs/DMA.md 6: the QP goes to ERR)
                if self.dma_wr.done_valid.val() {
                    self.s_ci.d.next = self.s_ci.q.val() + 1;
                    self.s_si.d.next = self.s_ci.q.val() + 1;
                    self.s_psn.d.next = self.s_lpsn.q.val() + 1;
                    self.s_hpsn.d.next = self.s_lpsn.q.val() + 1;
                    self.s_spsn.d.next = self.s_lpsn.q.val() + 1;
                    self.s_tmr.d.next = self.c_tmr_stop.val();
                    if self.dma_wr.done_error.val() {
                        self.s_flags.d.next.err = true;
                        self.c_err.d.next = true;
                        self.c_status.d.next = self.c_st[10].val();
                        self.c_vendor.d.next = self.c_vend[8].val();
                        self.state.d.next = ReqState::Qerr;
                    } else {
                        self.c_status.d.next = self.c_st[0].val();
                        self.state.d.next = ReqState::Requeue;
                        if self.signaled.val() {
                            self.state.d.next = ReqState::Cqe;
                        }
                    }
                }
            }
            ReqState::RdReq => {
                // the READ request: one packet, RETH for the bytes from the resume PSN on
                // (all of them the first time), PSN = the resume PSN; the READ takes one PSN
                // per response packet
                self.pk_valid.next = !self.tx_hold.val();
                self.pk_opcode.next = 12.into();
                self.pk_psn.next = self.s_rpsn.q.val();
                self.pk_va.next = self.w_va.q.val() + bit_cast::<64, 32>(self.rd_off.val());
                self.pk_dlen.next = self.w_len.q.val() - self.rd_off.val();
                self.pk_plen.next = 0.into();
                self.pk_ackreq.next = true;
                if self.tx_hold.val() {
                    // PFC holds the TX path: set aside before the request goes (its WQE is
                    // read and checked again when the QP is next served)
                    self.ev_yield.next = true;
                    self.state.d.next = ReqState::Requeue;
                } else if self.pk_ready.val() {
                    self.s_flags.d.next.suspended = false;
                    self.s_lpsn.d.next =
                        self.s_spsn.q.val() + self.rd_np.val().get_bits::<24>(0) - 1;
                    self.s_psn.d.next = self.s_spsn.q.val() + self.rd_np.val().get_bits::<24>(0);
                    self.n_packets.d.next = self.n_packets.q.val() + 1;
                    if self.retrying.val() {
                        self.n_retx.d.next = self.n_retx.q.val() + 1;
                        self.ev_retransmit.next = true;
                    } else {
                        // a new READ: the cursor at its first byte
                        self.s_rk.d.next = 0.into();
                        self.s_rrem.d.next = 0.into();
                        self.s_rleft.d.next = self.w_len.q.val();
                    }
                    // out, waiting for its responses (alone in the window: its row, the send
                    // index on). After a gap's rewind, responses beyond the resume PSN are
                    // still ignored (`read_gap` stays) until one in sequence arrives: those of the
                    // first try may still be on their way
                    self.tbl.wr_en.next = true;
                    self.tbl.wr_data.next.last_psn =
                        self.s_spsn.q.val() + self.rd_np.val().get_bits::<24>(0) - 1;
                    self.s_hpsn.d.next = self.s_spsn.q.val() + self.rd_np.val().get_bits::<24>(0);
                    self.s_si.d.next = self.s_si.q.val() + 1;
                    self.s_hi.d.next = self.s_si.q.val() + 1;
                    self.s_wrid.d.next = self.w_wrid.q.val();
                    self.s_op.d.next = self.cqe_op.val();
                    self.s_sig.d.next = self.w_flags.q.val().get_bit(0);
                    self.s_tmr.d.next = self.arm_ack.val();
                    self.n_messages.d.next = self.n_messages.q.val() + 1;
                    self.state.d.next = ReqState::Writeback;
                }
            }
            ReqState::RrApply => {
                // a READ response: in sequence and well formed -> place it at the cursor;
                // else drained (the first one beyond a gap sends the READ again from the
                // resume PSN, once per gap; duplicates and strays are dropped). The previous
                // response's payload may still be on its way to host memory (RrDone lets a
                // READ's packets before its last go on as soon as their jobs are taken): one
                // of another QP waits here until those writes have completed; one of the same
                // QP keeps their `w_err` (a failed write fails that READ)
                self.r_rrsp.d.next = true;
                self.r_rfail.d.next = false;
                if self.wr_idle.val() {
                    self.w_err.d.next = false;
                }
                self.w_slot.d.next = self.slot_addr.val();
                self.r_k.d.next = self.s_rk.q.val();
                self.g_rem.d.next = self.s_rrem.q.val();
                self.g_iova.d.next = self.s_dst.q.val();
                self.p_rem.d.next = self.r_rplen.q.val();
                self.c_wrid.d.next = self.s_wrid.q.val();
                self.c_op.d.next = self.s_op.q.val();
                self.c_index.d.next = self.s_ci.q.val();
                self.c_vendor.d.next = self.c_vend[0].val();
                self.c_err.d.next = false;
                self.r_wb.d.next = true;
                // (`w_slot` is the READ's WQE now, whose SGEs are not in the buffer)
                self.sgb_ok.d.next = false;
                if !self.wr_idle.val() & (self.r_qpn.q.val() != self.w_qpn.q.val()) {
                    self.state.d.next = ReqState::RrApply;
                } else if self.rr_ok.val() {
                    self.state.d.next = ReqState::RrPlace;
                } else {
                    self.r_gap.d.next = self.outstanding.val()
                        & self.out_rd.val()
                        & self.rr_ahead.val()
                        & !self.s_flags.q.val().read_gap;
                    self.state.d.next = ReqState::RrDrain;
                }
            }
            ReqState::RrPlace => {
                // the packet's bytes at the cursor, SGE by SGE (fetched and checked as needed)
                if self.p_rem.q.val() == 0 {
                    self.state.d.next = ReqState::RrDone;
                } else if self.r_rfail.q.val() {
                    self.r_piece.d.next = bit_cast::<16, 13>(self.p_rem.q.val());
                    self.state.d.next = ReqState::RrXfer;
                } else if self.g_rem.q.val() == 0 {
                    self.state.d.next = ReqState::SgeReq;
                } else {
                    self.r_piece.d.next = bit_cast::<16, 13>(self.p_rem.q.val());
                    if self.g_rem.q.val() < bit_cast::<32, 13>(self.p_rem.q.val()) {
                        self.r_piece.d.next = self.g_rem.q.val().get_bits::<16>(0);
                    }
                    self.state.d.next = ReqState::RrXfer;
                }
            }
            ReqState::RrXfer => {
                // one piece to the data mover: placed at the cursor, or (after a failed SGE
                // check) cut and dropped; the packet's last piece reopens the mover's payload
                // gate when it is done. The cursor moves on as the job is taken (`job_ready`
                // is a register of the mover: no stream handshake reaches the wide adders)
                self.mover.job_valid.next = true;
                if self.mover.job_ready.val() {
                    self.w_qpn.d.next = self.r_qpn.q.val();
                    self.g_iova.d.next =
                        self.g_iova.q.val() + bit_cast::<64, 16>(self.r_piece.q.val());
                    self.g_rem.d.next =
                        self.g_rem.q.val() - bit_cast::<32, 16>(self.r_piece.q.val());
                    self.p_rem.d.next = self.p_rem.q.val() - self.r_piece.q.val().get_bits::<13>(0);
                    self.state.d.next = ReqState::RrPlace;
                }
            }
            ReqState::RrDone => {
                // every piece of the packet is the mover's: the cursor and the resume PSN
                // move on, the retry budget is reloaded (progress). A packet before the READ's
                // last goes on at once, its payload still streaming to host memory (the next
                // response's header is taken meanwhile: NicTop's `hdr_ahead_ok`); the last
                // one, or a failed one, waits until the mover is idle and every write has
                // completed, then the READ completes (or fails)
                if self.wr_idle.val()
                    | (!self.rr_lastp.val() & !self.r_rfail.q.val() & !self.w_err.q.val())
                {
                    self.s_rpsn.d.next = self.s_rpsn.q.val() + 1;
                    self.s_retry.d.next = self.retry_load.val();
                    self.s_rk.d.next = self.r_k.q.val();
                    self.s_rrem.d.next = self.g_rem.q.val();
                    self.s_dst.d.next = self.g_iova.q.val();
                    self.s_rleft.d.next =
                        self.s_rleft.q.val() - bit_cast::<32, 13>(self.r_rplen.q.val());
                    self.s_flags.d.next.read_gap = false;
                    if self.outstanding.val() & !self.tmr_rnr.val() {
                        self.s_tmr.d.next = self.arm_ack.val();
                    }
                    self.state.d.next = ReqState::Writeback;
                    if self.r_rfail.q.val() | self.w_err.q.val() {
                        // an SGE invalidated meanwhile: local protection error; a failed write
                        // (or SGE read): fatal; the QP to ERR
                        self.s_flags.d.next.read_gap = false;
                        self.s_flags.d.next.err = true;
                        self.s_ci.d.next = self.s_ci.q.val() + 1;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.c_err.d.next = true;
                        self.c_status.d.next = self.c_st[3].val();
                        self.c_vendor.d.next = self.c_vend[5].val();
                        if self.w_err.q.val() {
                            // (a failed DMA write is a fatal error, docs/DMA.md 6)
                            self.c_status.d.next = self.c_st[10].val();
                            self.c_vendor.d.next = self.c_vend[8].val();
                        }
                        self.state.d.next = ReqState::Qerr;
                    } else if self.rr_lastp.val() {
                        self.s_flags.d.next.read_gap = false;
                        self.s_ci.d.next = self.s_ci.q.val() + 1;
                        self.s_si.d.next = self.s_ci.q.val() + 1;
                        self.s_psn.d.next = self.s_lpsn.q.val() + 1;
                        self.s_hpsn.d.next = self.s_lpsn.q.val() + 1;
                        self.s_spsn.d.next = self.s_lpsn.q.val() + 1;
                        self.s_tmr.d.next = self.c_tmr_stop.val();
                        self.c_status.d.next = self.c_st[0].val();
                        self.state.d.next = ReqState::Requeue;
                        if self.signaled.val() {
                            self.state.d.next = ReqState::Cqe;
                        }
                    }
                }
            }
            ReqState::RrDrain => {
                // a dropped response's payload, then: the gap's rewind, or write back
                // (once the mover has taken the previous response's payload)
                self.rp_ready.next =
                    !self.pay_done.q.val() & (self.r_rplen.q.val() != 0) & !self.mover.busy.val();
                if (self.r_rplen.q.val() == 0)
                    | self.pay_done.q.val()
                    | (self.rpay.valid.val() & self.rpay.last.val() & self.rp_ready.val())
                {
                    self.state.d.next = ReqState::Idle;
                    if self.r_wb.q.val() {
                        self.state.d.next = ReqState::Writeback;
                    }
                    if self.r_gap.q.val() {
                        // a response was lost: the READ again from the resume PSN (its
                        // cursor is there), once per gap, within the retry budget
                        if self.s_retry.q.val().get_bits::<3>(0) == 0 {
                            self.s_flags.d.next.read_gap = false;
                            self.s_flags.d.next.err = true;
                            self.s_ci.d.next = self.s_ci.q.val() + 1;
                            self.s_tmr.d.next = self.c_tmr_stop.val();
                            self.c_err.d.next = true;
                            self.c_status.d.next = self.c_st[8].val();
                            self.c_vendor.d.next = self.c_vend[7].val();
                            self.ev_retry_exc.next = true;
                            self.state.d.next = ReqState::Qerr;
                        } else {
                            self.s_retry.d.next = self.s_retry.q.val() - 1;
                            self.s_psn.d.next = self.s_spsn.q.val();
                            self.s_si.d.next = self.s_ci.q.val();
                            self.s_flags.d.next.suspended = false;
                            self.s_flags.d.next.probe = false;
                            self.s_flags.d.next.read_gap = true;
                            self.s_tmr.d.next = self.c_tmr_stop.val();
                            self.n_resent.d.next = self.n_resent.q.val() + 1;
                            self.ev_rewind.next = true;
                            self.state.d.next = ReqState::Requeue;
                        }
                    }
                }
            }
            ReqState::Qerr => {
                // a local or remote error: the QP goes to ERR, then the error completion
                if self.c_err.q.val()
                    & !self.r_flush.q.val()
                    & (self.r_job.q.val() == 1)
                    & !self.r_pass2.q.val()
                    & (self.s_si.q.val() != self.s_ci.q.val())
                {
                    // a WQE that fails its checks while earlier ones are outstanding: its
                    // error waits until they have retired (completions stay in order)
                    self.s_flags.d.next.wait_drain = true;
                    self.state.d.next = ReqState::Requeue;
                } else if self.c_err.q.val() {
                    self.qerr_valid.next = true;
                    if self.qerr_ready.val() {
                        self.s_flags.d.next.err = true;
                        self.n_errors.d.next = self.n_errors.q.val() + 1;
                        self.state.d.next = ReqState::Cqe;
                        if !self.r_flush.q.val() & (self.r_job.q.val() == 1) {
                            // a local error of the WQE being sent retires it here; one found
                            // after its first packet left while earlier WQEs are outstanding
                            // (an MR invalidated between the passes) leaves its completion to
                            // the flush, which completes the window in order
                            self.s_ci.d.next = self.s_ci.q.val() + 1;
                            if self.s_si.q.val() != self.s_ci.q.val() {
                                self.s_ci.d.next = self.s_ci.q.val();
                                self.state.d.next = ReqState::Requeue;
                            }
                        }
                    }
                } else {
                    self.state.d.next = ReqState::Cqe;
                }
            }
            ReqState::Cqe => {
                self.cqe_valid.next = true;
                if self.cqe_ready.val() {
                    self.state.d.next = ReqState::Requeue;
                }
            }
            ReqState::Requeue => {
                self.state.d.next = ReqState::Writeback;
                if !self.queued.val()
                    & ((self.qp_err.val() & (self.s_pi.q.val() != self.s_ci.q.val()))
                        | (!self.qp_err.val() & self.can_send.val()))
                {
                    self.sched.push_valid.next = true;
                    self.s_flags.d.next.queued = true;
                }
            }
            ReqState::QueryWait => {
                // the RAMs read at the queried QP's row
                self.state.d.next = ReqState::QueryAns;
            }
            ReqState::QueryAns => {
                self.rtq_ack.next = true;
                self.q_pend.d.next = false;
                self.state.d.next = ReqState::Idle;
            }
            ReqState::Writeback => {
                self.ram_pi.write_enable.next = true;
                self.ram_ci.write_enable.next = true;
                self.ram_psn.write_enable.next = true;
                self.ram_spsn.write_enable.next = true;
                self.ram_hpsn.write_enable.next = true;
                self.ram_flags.write_enable.next = true;
                self.ram_si.write_enable.next = true;
                self.ram_hi.write_enable.next = true;
                self.ram_rpsn.write_enable.next = true;
                self.ram_cur.write_enable.next = true;
                self.ram_retry.write_enable.next = true;
                self.timers.set_valid.next = true;
                self.ram_dst.write_enable.next = true;
                self.ram_rk.write_enable.next = true;
                self.ram_rrem.write_enable.next = true;
                self.ram_rleft.write_enable.next = true;
                self.state.d.next = ReqState::Idle;
            }
        }
        // READ response payload taken (by the mover, or drained)
        self.rpay.ready.next = self.mover.pay.ready.val() | self.rp_ready.val();
        if self.rpay.valid.val() & self.rp_ready.val() & self.rpay.last.val() {
            self.pay_done.d.next = true;
        }
        // DMA writes in flight: + a request (a READ piece or an atomic result), - a completion
        self.wr_any.next = self.mover.wr_valid.val() & self.dma_wr.req_ready.val();
        if self.wr_any.val() & !self.dma_wr.done_valid.val() {
            self.w_out.d.next = self.w_out.q.val() + 1;
        }
        if !self.wr_any.val() & self.dma_wr.done_valid.val() {
            self.w_out.d.next = self.w_out.q.val() - 1;
        }
        if self.dma_wr.done_valid.val() & self.dma_wr.done_error.val() {
            self.w_err.d.next = true;
        }

        // ================= poisoned packets ==================================================
        // A payload beat from a failed DMA read (its FIFO entry's error bit), or a zero beat
        // of ZeroFill, makes its packet bad: `pay_bad` goes with the packet's beats to the TX
        // builder, which complements the frame's ICRC, so no receiver takes its bytes. The
        // packet is then lost like one dropped on the link: Go-Back-N sends it again,
        // re-reading host memory, until the retries run out (RETRY_EXC_ERR).
        // (After all assignments to the packer's input above: this reads them.)
        self.in_err.next = self.pf_out.val().get_bit(74);
        if (self.state.q.val() == ReqState::ZeroFill)
            & !self.kinds.valid.val()
            & self.pf_empty.val()
        {
            self.in_err.next = true;
        }
        self.pk_in_fire.next = self.packer.inp.valid.val() & self.packer.inp.ready.val();
        self.pk_out_last.next =
            self.packer.out.valid.val() & self.packer.out.ready.val() & self.packer.out.last.val();
        self.cur_bad.next = self.pb_acc.q.val() | (self.pk_in_fire.val() & self.in_err.val());
        // the packer's output is the packet it is flushing, if any, else its input's packet
        self.pay_bad.next = self.cur_bad.val();
        if self.pb_pend.q.val() {
            self.pay_bad.next = self.pb_flush.q.val();
        }
        if self.pk_in_fire.val() {
            self.pb_acc.d.next = self.cur_bad.val();
            if self.packer.inp.last.val() & self.packer.inp_eop.val() {
                self.pb_acc.d.next = false;
                if !self.pk_out_last.val() {
                    // the packer keeps the packet's last bytes for a flush cycle
                    self.pb_pend.d.next = true;
                    self.pb_flush.d.next = self.cur_bad.val();
                }
            }
        }
        if self.pb_pend.q.val() & self.pk_out_last.val() {
            self.pb_pend.d.next = false;
        }
    }
}
