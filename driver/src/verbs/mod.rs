//! The verbs API: ibverbs-shaped, RAII handles, typed errors.
//!
//! ```text
//! Device::open(backend) ─┬─ alloc_pd() ── ProtectionDomain ─┬─ register(buffer) ── MemoryRegion
//!                        │                                  └─ create_qp(init) ──── QueuePair
//!                        └─ create_cq(entries, vector) ── CompletionQueue
//! ```
//!
//! Handles are reference-counted internally, so they carry no lifetimes, and destruction
//! happens in the order the hardware needs whatever order the application drops them in:
//! a QP keeps its PD and CQs alive, an MR keeps its PD and buffer alive, and every object
//! keeps the device alive. Dropping a handle releases the hardware object:
//!
//! * [`MemoryRegion`]: MR INVALIDATE, then the buffer may be freed;
//! * [`QueuePair`]: MODIFY to ERR, wait for the flush, MODIFY to RESET, free the rings;
//! * [`CompletionQueue`]: CQ DESTROY (after its QPs), free the ring;
//! * [`ProtectionDomain`]: the PD number returns to the pool.
//!
//! If the NIC does not confirm a release (a command times out), the memory it might still
//! access is deliberately leaked rather than freed.

mod cq;
mod dcqcn;
mod device;
mod pd;
mod qp;
mod wr;

pub use cq::CompletionQueue;
pub use dcqcn::DcqcnParams;
pub use device::{Device, DeviceInfo, DeviceOptions, PfcPriorityCounters, QpRate};
pub use pd::{MemoryRegion, ProtectionDomain};
pub use qp::{QpCapabilities, QpInitAttr, QueuePair, RtrAttr, RtsAttr};
pub use wr::{
    Payload, RecvWr, Remote, SendOp, SendWr, Sge, WcOpcode, WcStatus, WorkCompletion, WqeFlags,
};
