//! The requester half of the RC transport: send work requests in, packets out, completions
//! back (issue "the NIC end to end"; READ, ATOMIC, timers and Go-Back-N at PSN granularity are
//! the RC-transport issue).
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
//! * **NAK PSN sequence error and RNR NAK resend the whole message** from its first PSN: the
//!   responder re-ACKs the packets it already has and executes the rest. There is no retry
//!   counter, ACK timer or RNR timer yet (lossless link assumed; the RC issue adds them).
//! * **NAK invalid request / remote access / remote operational error**: the WQE completes with
//!   REM_INV_REQ_ERR / REM_ACCESS_ERR / REM_OP_ERR, the QP goes to ERR through the CSR block's
//!   `qerr` port, and every WQE after it completes with WR_FLUSH_ERR.
//! * **Supported opcodes**: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM. Others
//!   (READ, atomics, LOCAL_INV, SEND_WITH_INV) and the INLINE flag complete with LOC_QP_OP_ERR
//!   (vendor error WQE_OPCODE) until the RC issue brings them (the CSR block already advertises
//!   READ and atomics, the capabilities of the finished design).
pub mod packer;
pub mod requester;

pub use packer::StreamPacker;
pub use requester::RcRequester;

#[cfg(test)]
mod tests;
