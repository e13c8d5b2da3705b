//! The requester half of the RC transport: send work requests in, packets out, completions
//! back, and recovery from loss (Go-Back-N, the local ACK timer, RNR waits, retry budgets),
//! and the requester side of RDMA READ and the atomics.
//!
//! * [`RcRequester`]: the job machine: WQE and SGE fetch by DMA with lkey checks in the MR
//!   table, segmentation into PMTU packets with FIRST/MIDDLE/LAST/ONLY opcodes, RETH and ImmDt,
//!   payload gather by DMA, and the completer (ACKs retire WQEs, CQEs through
//!   [`crate::cq::CqeWriter`]).
//! * [`SendScheduler`]: the work ring of QPs with WQEs to send or flush (each at most once,
//!   served in order, at most one message per turn, cut after `CFG_SQ_QUANTUM` packets while
//!   other QPs wait) and the rate shaper's gate at its head (a held QP
//!   goes to the tail).
//! * [`RetransmitTimer`]: the per-QP timers (local ACK timeout, RNR wait), the tick count, and
//!   the scanner that hands an expired timer to the requester's job machine.
//! * [`InflightTable`]: the send window, one [`InflightSlot`] row per WQE sent and not retired.
//! * [`crate::widget::StreamPacker`] (a shared widget): joins the DMA read pieces of one packet (a packet may span SGEs) into
//!   one contiguous payload stream.
//! * [`crate::dma::PayloadMover`] (shared with the responder): every DMA write of the
//!   requester is one of its jobs: each piece of a READ response's payload at the scatter
//!   cursor (a piece ends at a local SGE's end; after a failed SGE check the rest is cut and
//!   dropped), and an atomic's original value as a word job.
//!
//! # Decisions
//!
//! * **A send window per QP**: up to [`WINDOW`] (16) WQEs in flight. Per QP the block keeps
//!   the consumer index `ci` (the oldest WQE not retired), the *send index* `si` (the next WQE
//!   to send) and the window's high index `hi` (one past the newest WQE sent; `si < hi` only
//!   while a rewind sends the window again), the window's first PSN (the oldest's first), the
//!   next PSN and one past the highest PSN sent. The work-ring job of a QP sends WQE `si`
//!   (fetch, pass-1 checks, segmentation) and puts the QP back at the tail of the ring while
//!   the window allows another: a WQE sent again after a rewind always may; a new one needs a
//!   free row, fewer unacknowledged PSNs than the QP's PSN window, and no READ or atomic
//!   outstanding. A QP whose window is full leaves the ring; the ACK job that frees room puts
//!   it back.
//! * **Fairness between QPs at packet granularity**: a turn sends at most one message, and at
//!   most `CFG_SQ_QUANTUM` packets of it (off after reset) while other QPs wait in the work
//!   ring; then the job sets itself aside as a PFC-held job does (the message's cursor saved,
//!   the QP to the ring's tail), so a 64 KiB message delays a 64-byte one on another QP by a
//!   quantum, not by its whole length. A QP alone in the ring is never cut. Going on costs the
//!   WQE's and the cursor's SGE's reads again, hidden behind the other QPs' packets.
//! * **The PSN window is per QP**, fixed at creation (`QP_RING_CFG` 31:28, log2 of the PSNs;
//!   the driver's `QpCapabilities::max_unacked_psns`, 1024 by default, 1 ..= 32768): PSNs
//!   sent and not retired (from the window's first PSN to the highest sent) plus the new
//!   message's packets must stay within it. The message's packet count is known once its WQE
//!   is read, so the check is made at its first packet (PktHdr, from a register settled
//!   before): a message that does not fit sends nothing, and its QP waits out of the ring
//!   (`wait_drain`) until everything before it has retired, then sends it. A message longer
//!   than the window therefore goes alone (its own packets are the only ones outstanding);
//!   holding a message back mid-way for ACKs (rxe's per-packet limit) is not done yet.
//! * **The in-flight table** ([`InflightTable`], one block RAM of `2^QA x 16` rows of 92 bits:
//!   last PSN, wr_id, completion opcode, signaled) holds what retirement and recovery need
//!   without reading the WQE again; a row is written when its WQE's first packet (a READ's
//!   request) is handed to the formatter, its last PSN from the packet count, so that ACKs,
//!   NAKs and timers act on a message set aside part-way (PFC, the shaper, the send quantum)
//!   like on any other. 16 rows: at 256 QPs the table is 4096 x 92 bits
//!   (368 Kbit, about 21 ECP5 EBRs or 11 Xilinx 36 Kb BRAMs), and 16 one-packet messages cover
//!   the round trip of the two simulated NICs (~550 cycles for a 1 KiB WRITE, ~140 cycles of
//!   wire time each); 32 would double the RAM for the small-message case only.
//! * **Cumulative retirement**: an ACK with PSN p retires, from the oldest, every SEND / WRITE
//!   whose last PSN is at or before p (24-bit modular, relative to the window's first PSN; only
//!   a PSN between the window's first and the highest sent counts, others are stale), one CQE
//!   per signaled WQE, in order, two cycles per WQE. Progress reloads the retry budgets and
//!   restarts the ACK timer if a message sent whole is still outstanding (stops it otherwise:
//!   a message sent in part has not asked for an ACK yet, and may wait long for its next turn
//!   or a PFC pause). A NAK first
//!   retires everything before its PSN (IBTA Vol 1, 9.7.5.2.2: a NAK acknowledges the PSNs
//!   before it), then acts on the oldest WQE left.
//! * **READ and atomics are alone in the window** (this step of the window): a READ or an
//!   atomic is sent only when nothing is outstanding (its job, finding one at `si` with
//!   earlier WQEs outstanding, leaves the QP out of the ring until they retire, the flag
//!   `wait_drain` of [`ReqQpFlags`]), and
//!   nothing is sent after it until it retires. The READ's scatter cursor and the atomic's
//!   destination (`ram_dst`, `ram_rk`, ...) therefore still belong to the one READ / atomic in
//!   flight, and no implied NAK can arise (no later request can be answered first);
//!   `max_rd_atomic` is met for any value of at least one. A READ or atomic thus costs the
//!   window a drain; SEND and WRITE windows around it are unaffected.
//! * **Completions stay in order**: a WQE that fails its pass-1 checks while earlier WQEs are
//!   outstanding waits (`wait_drain`) until they retire, then fails as before. An MR invalidated
//!   between the passes of such a WQE (its first packet already out) moves the QP to ERR with
//!   that status and leaves the WQE's completion to the flush (WR_FLUSH_ERR, in order after the
//!   outstanding ones).
//! * **Two passes over the SGEs**: every SGE's lkey, PD and range are checked (and the lengths
//!   added up against the WQE's length) before the first packet leaves, so a bad SGE is a local
//!   protection or length error with nothing on the wire. The second pass translates and reads.
//!   An MR invalidated between the passes finishes the packet already announced with zeros and
//!   fails the WQE (the QP goes to ERR, so the peer never completes that message).
//! * **One DMA read per WQE**: the DMA read channel is in order and shared by the descriptor
//!   reads, the payload reads and the responder's receive-WQE reads, so a read issued behind a
//!   payload read waits for all of that payload. A WQE's read therefore takes its header and its
//!   first `SGE_PREFETCH` (4) SGEs at once; both passes, and a message set aside going on, take
//!   those SGEs from the job's SGE buffer (an SGE past them is read on its own). A read with the
//!   SGEs that fails is made again for the header alone, so a fault in the SGEs stays an SGE
//!   failure. Payload reads are bounded only by the payload FIFO's room (below): a cap of one
//!   or two packets' beats in flight, tried, bought nothing and slowed a QP beside a
//!   rate-limited one (docs/MEASUREMENTS.md).
//! * **The next WQE read ahead**: when a send job has its WQE and the QP has another posted,
//!   that next WQE (header and first SGEs) is read at once (`WqeAhead`), before the job
//!   requests its payload, into a one-WQE buffer kept for that QP and index (`ahd_*`). The
//!   QP's next send job takes it at `WqeReq` instead of reading then, behind the payload;
//!   any other job of the QP (a rewind, a flush) and any MODIFY drop it. One read ahead is
//!   held, and a job sends one message, so it is made only while no other QP waits in the work
//!   ring (the QP's next job comes next); QPs taking turns read their WQEs as before.
//! * **AckReq on the last packet of each message only** (as rxe by default): with at most 16
//!   messages in flight, every message's ACK request keeps ACKs coming back well before the
//!   window fills (the responder may coalesce them: one ACK retires every WQE up to its PSN).
//! * **Go-Back-N at PSN granularity across messages, from host memory** (no retransmission
//!   buffer on the card): per QP the block keeps the *resume PSN*, the first PSN the peer has
//!   not acknowledged (inside the oldest WQE). An ACK inside it moves it forward; a NAK PSN
//!   sequence error sets it to the NAK's PSN (the first one the responder misses) and sends
//!   again at once; an ACK timeout or the end of an RNR wait sends again from it. A rewind
//!   sets `si := ci` and the next PSN to the window's first; the send path then re-reads WQE
//!   `ci` and the following ones in turn (packets below the highest PSN sent count as
//!   retransmissions; while they go out, sequence NAKs are the echo of the loss and are
//!   ignored). An ACK that arrives meanwhile still retires what it covers, and the resend goes
//!   on from the new oldest. Sending again re-reads the WQE, re-checks the
//!   SGEs and walks the segmentation from the message's first PSN, but packets before the
//!   resume PSN are *skipped*: their bytes move the SGE cursor (and may fetch the next SGE)
//!   without a DMA read or a packet, so the first packet on the wire is the resume PSN's
//!   (FIRST/MIDDLE/LAST as its position in the message says; RETH only on a FIRST/ONLY).
//!   Packets sent again count in CNT_RETRANSMIT, each rewind in CNT_RETRY_EVENT.
//! * **A send job set aside at a packet** (PFC pauses the TX path while the receive path waits
//!   on the requester, or the rate shaper holds the QP while other work waits: docs/CONGESTION.md)
//!   saves its message's cursor in `ram_cur` (bytes left, the next SGE, bytes left in the SGE
//!   before it) and puts the QP back in the work ring. When the QP is next served the WQE is
//!   read again and, unlike a rewind, nothing is walked: the SGE the cursor is in is fetched and
//!   checked in the MR table again and the next packet starts. A rewind, or the retirement of
//!   a message set aside while it was being sent again, drops the cursor. READ requests and
//!   atomics are one packet: set aside, they start again from their WQE.
//! * **ACKs and NAKs are checked against the window**: only a PSN from the window's first to
//!   the highest one sent (24-bit modular, so a window may straddle the PSN wrap) counts;
//!   anything else is stale (a duplicate or a late frame from an earlier try) and dropped.
//! * **Local ACK timer** (per QP, in block RAM): armed when a message's last packet is handed to
//!   the formatter and the timer is not running, re-armed by every ACK that shows progress
//!   while a message sent whole is outstanding, stopped otherwise: 4.096 us x 2^timeout
//!   (QP_TIMERS; 0 = never; codes above 28 count as 28), in ticks of 1.024 us from
//!   [`crate::nic::TimeBase`]. The timers are a block of their own, [`RetransmitTimer`]: a job
//!   reads its QP's timer when it starts and writes it back when it ends (arming, re-arming,
//!   stopping it or turning it into an RNR wait in between); a scanner reads one QP's timer per
//!   cycle (a second copy of the timer RAM, since a RAM has one read port), holds the first
//!   expired one, and the job machine takes it after ACKs and doorbells; the job re-reads the
//!   QP's own timer, so a stale find does nothing. Expiry counts in CNT_ACK_TIMEOUT.
//! * **Retry budgets** (IBA): `retry_cnt` retries after a timeout or a NAK sequence error,
//!   `rnr_retry` after RNR NAKs (7 = infinite), both reloaded when a window starts and whenever
//!   an ACK shows progress. A retry needed with none left completes the WQE with
//!   RETRY_EXC_ERR (vendor RETRY_TIMEOUT or RETRY_NAK) or RNR_RETRY_EXC_ERR, puts only that QP
//!   in ERR and flushes the rest of its SQ (CNT_RETRY_EXCEEDED).
//! * **RNR NAK**: the QP waits the time the NAK's timer field encodes (IBA table: 0.01 ms ..
//!   491.52 ms, 0 = 655.36 ms), counted as 10.24 us per 10 us unit (never shorter than asked),
//!   sending nothing meanwhile, then sends the window again from the NAK's PSN. While it waits, sequence NAKs for the rest of that
//!   message (the responder's reaction to packets after the refused one) are ignored.
//! * **NAK invalid request / remote access / remote operational error**: the WQE completes with
//!   REM_INV_REQ_ERR / REM_ACCESS_ERR / REM_OP_ERR, the QP goes to ERR through the CSR block's
//!   `qerr` port, and every WQE after it completes with WR_FLUSH_ERR.
//! * **Atomics** (ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD): the WQE must have one local SGE
//!   of 8 bytes (else LOC_LEN_ERR, vendor WQE_LENGTH); its lkey is checked with LOCAL_WRITE in
//!   pass 1 and the translated address kept per QP. One packet, COMPARE_SWAP (swap and compare
//!   data) or FETCH_ADD (the add value), AckReq, no payload; the remote address's alignment is
//!   the responder's to check (NAK invalid request). Only an ATOMIC ACKNOWLEDGE of its PSN
//!   retires it (a plain ACK carries no result and is dropped, as is an ATOMIC ACKNOWLEDGE for
//!   anything else): its original value is written (8 bytes, little-endian, the host's order)
//!   into the local SGE by a DMA write, and only after that write's completion does the CQE
//!   (CompSwap / FetchAdd) go out. Loss recovery is the same as for other messages: the
//!   request is sent again, and the responder answers a duplicate from its replay cache.
//! * **RDMA READ**: the SGEs (the destination) are checked with LOCAL_WRITE in pass 1, then
//!   one READ request (RETH: remote VA, rkey, length; AckReq) takes `ceil(length / PMTU)`
//!   PSNs (at least one). Its responses come from the receive path with their payload
//!   (`rr_*`, `rpay`): one job each. A response is placed only if it is the next one (PSN =
//!   the resume PSN) with the opcode and length its place asks (FIRST/ONLY at the first PSN,
//!   LAST/ONLY at the last, PMTU bytes except the last, which carries exactly the rest; past
//!   the first PSN a FIRST or ONLY also fits, as the answer to a request sent again): its
//!   bytes go through a [`crate::widget::StreamCutter`] into the SGEs, one DMA write per piece,
//!   at a per-QP scatter cursor (SGE index, bytes left in it, its translated address, bytes
//!   of the READ still to come), fetching and checking the next SGE when one is full. After
//!   the packet's writes complete, the cursor and the resume PSN move on (progress: the retry
//!   budget is reloaded); the last response completes the READ (CQE RdmaRead) once its data
//!   is in host memory. A response beyond the resume PSN means one was lost: the READ is sent
//!   again **from the resume PSN for the rest of the bytes** (VA + and length - the bytes
//!   placed), once per gap; further responses beyond it are ignored until one in sequence
//!   arrives (those of the first try may still be arriving, as rxe does). Duplicates and
//!   strays are drained and dropped. A plain ACK never retires a READ; a NAK fails it as any
//!   request; the ACK timer sends it again from the resume PSN. An SGE whose MR went away
//!   since the request, or a failed write, fails it with LOC_PROT_ERR (the rest of the packet
//!   discarded). A READ is alone in the window (see above): there is no later request for an
//!   implied NAK.
//! * **Supported opcodes**: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ
//!   and the two atomics. Others (LOCAL_INV, SEND_WITH_INV) and the INLINE flag complete with
//!   LOC_QP_OP_ERR (vendor error WQE_OPCODE).
pub mod inflight;
pub mod requester;
pub mod retransmit_timer;
pub mod send_scheduler;

pub use inflight::{InflightSlot, InflightTable, WINDOW, WIN_LOG2};
pub use requester::RcRequester;
pub use retransmit_timer::{QpTimer, RetransmitTimer, RetransmitTimerModel};
pub use send_scheduler::{SendScheduler, SendSchedulerModel};

use rust_hdl::prelude::*;

/// log2 of the depth of the NIC's queue of received ACKNOWLEDGEs in front of the requester.
pub const RX_ACKQ_BITS: usize = 4;

/// A received ACKNOWLEDGE or ATOMIC ACKNOWLEDGE as the requester takes it (`ack_*`), queued in
/// front of it: the requester takes ACKs only between packets it sends, and a requester held
/// by a PFC pause in the middle of a message must not hold the receive path behind an ACK
/// (docs/CONGESTION.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct RxAck {
    /// BTH destination QP (ours)
    pub qpn: Bits<24>,
    pub psn: Bits<24>,
    /// AETH syndrome
    pub syndrome: Bits<8>,
    /// ATOMIC ACKNOWLEDGE (with `orig`)
    pub atomic: Bit,
    pub orig: Bits<64>,
}

/// The requester's per-QP flags (one block-RAM word per QP, read when a job starts and written
/// back when it ends).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct ReqQpFlags {
    /// The QP is in the work ring (it is there at most once).
    pub queued: Bit,
    /// The QP is in ERR (a MODIFY to ERR, or an error this requester found): every WQE left
    /// completes with WR_FLUSH_ERR.
    pub err: Bit,
    /// A READ was sent again for a gap in its responses: responses beyond the resume PSN are
    /// ignored until one in sequence arrives (those of the first try may still be arriving).
    pub read_gap: Bit,
    /// The WQE at the send index waits until the window is empty: a READ or an atomic (alone
    /// in the window), or a WQE that failed its checks while earlier ones were outstanding
    /// (completions stay in order).
    pub wait_drain: Bit,
    /// The message at the send index was set aside at a packet (a PFC pause, or the shaper
    /// while other work waited): it goes on from its cursor (`ram_cur`). A rewind clears it,
    /// and so does the message's retirement.
    pub suspended: Bit,
    /// The rewind being sent is a tail-loss probe: its packets are walked, not sent, up to the
    /// highest PSN sent, which alone goes again, with AckReq. Any other rewind clears it.
    pub probe: Bit,
    /// The ACK timer running is the one armed by a probe: its expiry is the local ACK timeout.
    /// A timer armed anew (progress, a message sent whole with none running) clears it.
    pub probed: Bit,
}

#[cfg(test)]
mod tests;
