//! The requester half of the RC transport: send work requests in, packets out, completions
//! back, and recovery from loss (Go-Back-N, the local ACK timer, RNR waits, retry budgets),
//! and the requester side of RDMA READ and the atomics.
//!
//! * [`RcRequester`]: the SQ scheduler (a work ring of QPs with posted WQEs, each at most once,
//!   served in order), WQE and SGE fetch by DMA with lkey checks in the MR table, segmentation
//!   into PMTU packets with FIRST/MIDDLE/LAST/ONLY opcodes, RETH and ImmDt, payload gather by
//!   DMA, and the completer (ACKs retire WQEs, CQEs through [`crate::cq::CqeWriter`]).
//! * [`StreamPacker`]: joins the DMA read pieces of one packet (a packet may span SGEs) into
//!   one contiguous payload stream.
//!
//! # Decisions
//!
//! * **One message in flight per QP** (the ACK of its last packet retires it before the QP's
//!   next WQE is fetched). Many QPs keep the link busy; one QP is limited to one message per
//!   round trip. The per-QP state keeps the first and last PSN of the message in flight, so
//!   the RC issue can grow it into a window.
//! * **Two passes over the SGEs**: every SGE's lkey, PD and range are checked (and the lengths
//!   added up against the WQE's length) before the first packet leaves, so a bad SGE is a local
//!   protection or length error with nothing on the wire. The second pass translates and reads.
//!   An MR invalidated between the passes finishes the packet already announced with zeros and
//!   fails the WQE (the QP goes to ERR, so the peer never completes that message).
//! * **AckReq on the last packet of each message only** (as rxe by default). An ACK retires the
//!   message when its PSN is at or after the message's last PSN (24-bit modular comparison).
//! * **Go-Back-N at PSN granularity, from host memory** (no retransmission buffer on the card):
//!   per QP the block keeps the *resume PSN*, the first PSN of the message in flight that the
//!   peer has not acknowledged. An ACK inside the message moves it forward; a NAK PSN sequence
//!   error sets it to the NAK's PSN (the first one the responder misses) and sends again at
//!   once; an ACK timeout sends again from it. Sending again re-reads the WQE, re-checks the
//!   SGEs and walks the segmentation from the message's first PSN, but packets before the
//!   resume PSN are *skipped*: their bytes move the SGE cursor (and may fetch the next SGE)
//!   without a DMA read or a packet, so the first packet on the wire is the resume PSN's
//!   (FIRST/MIDDLE/LAST as its position in the message says; RETH only on a FIRST/ONLY).
//!   Packets sent again count in CNT_RETRANSMIT, each rewind in CNT_RETRY_EVENT.
//! * **ACKs and NAKs are checked against the message in flight**: only a PSN in
//!   `[first, last]` of the message (24-bit modular, so a message may straddle the PSN wrap)
//!   counts; an ACK at or after `last` retires it (coalesced ACKs); anything else is stale (a
//!   duplicate or a late frame from an earlier try) and dropped. An ACK that arrives after a
//!   timeout already queued the message again still retires it (the resend then goes on to the
//!   next WQE); a NAK then is ignored (the resend answers it).
//! * **Local ACK timer** (per QP, in block RAM): armed when a message's last packet is handed to
//!   the formatter and re-armed by every ACK that moves the resume PSN: 4.096 us x 2^timeout
//!   (QP_TIMERS; 0 = never; codes above 28 count as 28), in ticks of 1.024 us from
//!   [`crate::nic::TimeBase`]. A scanner reads one QP's timer per cycle (a second copy of the
//!   timer RAM, since a RAM has one read port), holds the first expired one, and the job
//!   machine takes it after ACKs and doorbells; the job re-reads the QP's own timer, so a stale
//!   find does nothing. Expiry counts in CNT_ACK_TIMEOUT.
//! * **Retry budgets** (IBA): `retry_cnt` retries after a timeout or a NAK sequence error,
//!   `rnr_retry` after RNR NAKs (7 = infinite), both reloaded at each new message and whenever
//!   an ACK shows progress. A retry needed with none left completes the WQE with
//!   RETRY_EXC_ERR (vendor RETRY_TIMEOUT or RETRY_NAK) or RNR_RETRY_EXC_ERR, puts only that QP
//!   in ERR and flushes the rest of its SQ (CNT_RETRY_EXCEEDED).
//! * **RNR NAK**: the QP waits the time the NAK's timer field encodes (IBA table: 0.01 ms ..
//!   491.52 ms, 0 = 655.36 ms), counted as 10.24 us per 10 us unit (never shorter than asked),
//!   then sends again from the NAK's PSN. While it waits, sequence NAKs for the rest of that
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
//!   bytes go through a [`crate::resp::StreamCutter`] into the SGEs, one DMA write per piece,
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
//!   discarded). With one message in flight per QP there is no later request for an implied
//!   NAK, and `max_rd_atomic` is met for any value of at least one.
//! * **Supported opcodes**: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ
//!   and the two atomics. Others (LOCAL_INV, SEND_WITH_INV) and the INLINE flag complete with
//!   LOC_QP_OP_ERR (vendor error WQE_OPCODE).
pub mod packer;
pub mod requester;

pub use packer::StreamPacker;
pub use requester::RcRequester;

#[cfg(test)]
mod tests;
