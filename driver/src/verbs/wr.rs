//! Work requests and work completions.
//!
//! The operation, SGE and flag types are the host-interface types of `ferroce_proto` (the
//! numeric encodings are ibverbs'), re-exported here so applications need only this crate.

pub use ferroce_proto::host::cqe::{CqeOpcode as WcOpcode, WcStatus};
pub use ferroce_proto::host::wqe::{Payload, Remote, SendOp, Sge, WqeFlags};

use ferroce_proto::host::cqe::Cqe;

/// A send work request (`ibv_send_wr`): one operation, its data, and flags.
///
/// ```
/// use ferroce_driver::{Remote, SendWr, Sge};
/// let wr = SendWr::write(7, Remote { va: 0x2000, rkey: 0x105 }, vec![Sge { addr: 0x1000, length: 64, lkey: 0x200 }])
///     .signaled();
/// assert_eq!(wr.wr_id, 7);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SendWr {
    /// Returned in the work completion.
    pub wr_id: u64,
    pub op: SendOp,
    /// [`WqeFlags::SIGNALED`], [`WqeFlags::SOLICITED`], [`WqeFlags::FENCE`].
    pub flags: WqeFlags,
    /// Gather list (SEND, WRITE), scatter list for the result (READ, atomics), or inline
    /// data.
    pub payload: Payload,
}

impl SendWr {
    /// A work request for `op` with no data and no flags.
    pub fn new(wr_id: u64, op: SendOp) -> SendWr {
        SendWr {
            wr_id,
            op,
            flags: WqeFlags::NONE,
            payload: Payload::Sges(Vec::new()),
        }
    }

    /// SEND gathering from `sges`.
    pub fn send(wr_id: u64, sges: Vec<Sge>) -> SendWr {
        SendWr::new(wr_id, SendOp::Send).with_sges(sges)
    }

    /// SEND with immediate data (`imm`'s big-endian bytes travel on the wire).
    pub fn send_imm(wr_id: u64, imm: u32, sges: Vec<Sge>) -> SendWr {
        SendWr::new(wr_id, SendOp::SendImm { imm }).with_sges(sges)
    }

    /// RDMA WRITE of `sges` to `remote`.
    pub fn write(wr_id: u64, remote: Remote, sges: Vec<Sge>) -> SendWr {
        SendWr::new(wr_id, SendOp::Write { remote }).with_sges(sges)
    }

    /// RDMA WRITE with immediate data.
    pub fn write_imm(wr_id: u64, remote: Remote, imm: u32, sges: Vec<Sge>) -> SendWr {
        SendWr::new(wr_id, SendOp::WriteImm { remote, imm }).with_sges(sges)
    }

    /// RDMA READ of `remote` into `sges` (capability RDMA_READ).
    pub fn read(wr_id: u64, remote: Remote, sges: Vec<Sge>) -> SendWr {
        SendWr::new(wr_id, SendOp::Read { remote }).with_sges(sges)
    }

    /// ATOMIC compare-and-swap on the 8 bytes at `remote`; the original value lands in
    /// `result` (one 8-byte SGE). Capability ATOMICS.
    pub fn cmp_swap(wr_id: u64, remote: Remote, compare: u64, swap: u64, result: Sge) -> SendWr {
        SendWr::new(
            wr_id,
            SendOp::CmpSwap {
                remote,
                compare,
                swap,
            },
        )
        .with_sges(vec![result])
    }

    /// ATOMIC fetch-and-add; the original value lands in `result`. Capability ATOMICS.
    pub fn fetch_add(wr_id: u64, remote: Remote, add: u64, result: Sge) -> SendWr {
        SendWr::new(wr_id, SendOp::FetchAdd { remote, add }).with_sges(vec![result])
    }

    /// Replace the payload with the gather/scatter list `sges`.
    pub fn with_sges(mut self, sges: Vec<Sge>) -> SendWr {
        self.payload = Payload::Sges(sges);
        self
    }

    /// Replace the payload with inline data carried in the WQE (capability INLINE).
    pub fn with_inline(mut self, data: Vec<u8>) -> SendWr {
        self.payload = Payload::Inline(data);
        self
    }

    /// Ask for a completion on success (errors always complete).
    pub fn signaled(mut self) -> SendWr {
        self.flags = self.flags | WqeFlags::SIGNALED;
        self
    }

    /// Set the solicited-event bit on the last packet (SEND, WRITE with immediate).
    pub fn solicited(mut self) -> SendWr {
        self.flags = self.flags | WqeFlags::SOLICITED;
        self
    }

    /// Wait for earlier READs and atomics of this QP to complete first.
    pub fn fenced(mut self) -> SendWr {
        self.flags = self.flags | WqeFlags::FENCE;
        self
    }

    /// Total message length (sum of SGE lengths, or inline bytes), without overflow.
    pub fn length(&self) -> u64 {
        match &self.payload {
            Payload::Sges(s) => s.iter().map(|s| s.length as u64).sum(),
            Payload::Inline(d) => d.len() as u64,
        }
    }
}

/// A receive work request (`ibv_recv_wr`): where an incoming SEND (or the immediate of a
/// WRITE with immediate) lands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecvWr {
    pub wr_id: u64,
    /// Scatter list; the memory regions need LOCAL_WRITE.
    pub sges: Vec<Sge>,
}

impl RecvWr {
    pub fn new(wr_id: u64, sges: Vec<Sge>) -> RecvWr {
        RecvWr { wr_id, sges }
    }
}

/// A work completion (`ibv_wc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WorkCompletion {
    pub wr_id: u64,
    /// `ibv_wc_status` values.
    pub status: WcStatus,
    /// `ibv_wc_opcode` values; receive completions have [`WcOpcode::is_recv`].
    pub opcode: WcOpcode,
    /// Bytes received (RECV), read (READ), 8 (atomics), 0 otherwise.
    pub byte_len: u32,
    /// Immediate data, if the request carried some.
    pub imm: Option<u32>,
    /// The rkey a SEND with invalidate invalidated.
    pub invalidated_rkey: Option<u32>,
    /// Local QPN.
    pub qp_num: u32,
    /// Remote QPN.
    pub src_qp: u32,
    /// The request had the solicited-event bit.
    pub solicited: bool,
    /// ferroce's detail code behind an error status (`cqe::vendor_err`).
    pub vendor_err: u8,
}

impl WorkCompletion {
    pub(crate) fn from_cqe(c: &Cqe) -> WorkCompletion {
        WorkCompletion {
            wr_id: c.wr_id,
            status: c.status,
            opcode: c.opcode,
            byte_len: c.byte_len,
            imm: c.imm,
            invalidated_rkey: c.invalidated_rkey,
            qp_num: c.qpn,
            src_qp: c.src_qp,
            solicited: c.solicited,
            vendor_err: c.vendor_err,
        }
    }

    /// Whether the work request succeeded.
    pub fn is_success(&self) -> bool {
        self.status == WcStatus::Success
    }
}
