//! The NIC's DMA port toward a PCIe DMA shell (docs/DMA.md is the full contract).
//!
//! Everything the NIC reads from or writes to host memory (WQEs, payload, received data, CQEs)
//! goes through one request/response port that an XDMA, QDMA or Corundum-style shell can serve
//! through a thin adapter. The port is made of two independent channels, each a rust-hdl
//! `LogicInterface` pair, width-generic like the stream
//! interface (`B` data bits, `K = B / 8` byte enables):
//!
//! * **Read** ([`DmaReadMaster`] on the NIC, [`DmaReadSlave`] on the shell): a request
//!   (`req_valid`/`req_ready`, `req_addr` 64 bits, `req_len` 16 bits, `req_tag` 8 bits) and a
//!   response data stream `rsp` with [`crate::stream`] semantics (the byte at `req_addr` is the
//!   most significant byte of the first beat, `keep` contiguous from the top, `last` on the
//!   final beat, exactly `req_len` bytes) plus the sidebands `rsp_tag` and `rsp_error`.
//!   Responses come back **in request order**.
//! * **Write** ([`DmaWriteMaster`] / [`DmaWriteSlave`]): a request (same fields) and its data
//!   stream `data` (exactly `req_len` bytes, same byte order), then a completion strobe
//!   `done_valid` with `done_tag`/`done_error`. Completions come back **in request order**,
//!   and a completion means the write is globally visible to the host: anything the NIC issues
//!   after seeing it (a CQE write, a read of the same bytes) is ordered after the data.
//! * **Atomic**: reserved. The `at_*` names are reserved for a third channel (PCIe AtomicOps:
//!   fetch-add / compare-swap on 8 bytes, returning the original value). In v1 the NIC executes
//!   RDMA atomics itself as a read and a write on this port (docs/DMA.md, section 2.3).
//!
//! [`DmaMaster`] bundles both channels (`rd`, `wr`): on a top level whose port field is `dma`,
//! the emitted Verilog ports are `dma$rd$req_valid`, `dma$rd$rsp$data`, `dma$wr$done_tag`, ...
//!
//! [`DmaMemcpy`] is the smallest user of the port (read a range, write it elsewhere): it is the
//! synthesis smoke test of the interfaces and the test block of the simulator's DMA shell model.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

pub mod memcpy;
pub use memcpy::DmaMemcpy;
pub mod mover;
pub use mover::{MoverJob, PayloadMover};

/// Width of a DMA address (an IOVA: the host IOMMU's address space is 64 bits).
pub const DMA_ADDR_BITS: usize = 64;
/// Width of a request length in bytes. 16 bits cover a 4096-byte payload plus any WQE batch;
/// the longest request is [`DMA_MAX_LEN`] bytes, and a length of 0 is illegal.
pub const DMA_LEN_BITS: usize = 16;
/// Width of a request tag. The NIC chooses tags freely (they need not be unique: responses
/// are in order anyway); the shell returns each request's tag with its response/completion.
pub const DMA_TAG_BITS: usize = 8;
/// Longest request in bytes (`2^DMA_LEN_BITS - 1`).
pub const DMA_MAX_LEN: usize = (1 << DMA_LEN_BITS) - 1;

/// Read channel, NIC side: the NIC issues requests and consumes the response stream.
///
/// Request: a transfer happens at a rising edge with `req_valid & req_ready`; while
/// `req_valid & !req_ready` the NIC holds `req_addr`/`req_len`/`req_tag` and `req_valid`
/// (AXI rule). `req_valid` must not depend combinationally on `req_ready`.
///
/// Response: `rsp` is a stream of exactly `req_len` bytes per request, first byte (the one at
/// `req_addr`) in the MSB of the first beat, `last` on its final beat; `rsp_tag` and
/// `rsp_error` are valid with every beat; `rsp_tag` is constant within one response and
/// `rsp_error`, once set, stays set to its last beat (a shell that learns of a failure per
/// burst may set it after the first beats, so consumers OR it over the beats). `rsp_error = 1`
/// means the shell could not read the memory (IOMMU fault, completion error, timeout): the
/// beats still carry exactly `req_len` bytes (zeros) so the NIC's framing never breaks.
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "DmaReadSlave"]
pub struct DmaReadMaster<const B: usize, const K: usize> {
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub req_len: Signal<Out, Bits<DMA_LEN_BITS>>,
    pub req_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub rsp: StreamSink<B, K>,
    pub rsp_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub rsp_error: Signal<In, Bit>,
}

/// Read channel, shell side (the mirror of [`DmaReadMaster`]).
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "DmaReadMaster"]
pub struct DmaReadSlave<const B: usize, const K: usize> {
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub req_len: Signal<In, Bits<DMA_LEN_BITS>>,
    pub req_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub rsp: StreamSource<B, K>,
    pub rsp_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub rsp_error: Signal<Out, Bit>,
}

/// Write channel, NIC side: the NIC issues requests, streams their data, and receives one
/// completion per request.
///
/// Request: as for reads. Data: `data` carries exactly `req_len` bytes per request, in
/// request order, same byte order and keep rules as the read response. The shell may hold
/// `data.ready` low until it has accepted the request the data belongs to, so the NIC must
/// not make `req_valid` wait for the data to be accepted (it may present the data first).
///
/// Completion: `done_valid` is a one-cycle strobe per request, in request order, with no
/// back-pressure (the NIC must always take it). It means the write and every earlier write
/// are globally visible to the host. `done_error = 1`: the write failed (IOMMU fault, bus
/// error) and may have been dropped in whole or in part.
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "DmaWriteSlave"]
pub struct DmaWriteMaster<const B: usize, const K: usize> {
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub req_len: Signal<Out, Bits<DMA_LEN_BITS>>,
    pub req_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub data: StreamSource<B, K>,
    pub done_valid: Signal<In, Bit>,
    pub done_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub done_error: Signal<In, Bit>,
}

/// Write channel, shell side (the mirror of [`DmaWriteMaster`]).
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "DmaWriteMaster"]
pub struct DmaWriteSlave<const B: usize, const K: usize> {
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub req_len: Signal<In, Bits<DMA_LEN_BITS>>,
    pub req_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub data: StreamSink<B, K>,
    pub done_valid: Signal<Out, Bit>,
    pub done_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub done_error: Signal<Out, Bit>,
}

/// The whole DMA port, NIC side: a read and a write channel (independent: no ordering between
/// them, see docs/DMA.md section 4).
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "DmaSlave"]
pub struct DmaMaster<const B: usize, const K: usize> {
    pub rd: DmaReadMaster<B, K>,
    pub wr: DmaWriteMaster<B, K>,
}

/// The whole DMA port, shell side.
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "DmaMaster"]
pub struct DmaSlave<const B: usize, const K: usize> {
    pub rd: DmaReadSlave<B, K>,
    pub wr: DmaWriteSlave<B, K>,
}

/// 64-bit profile (10/25G, open toolchains).
pub type DmaMaster64 = DmaMaster<64, 8>;
/// 64-bit profile, shell side.
pub type DmaSlave64 = DmaSlave<64, 8>;
/// 512-bit profile (100G), later.
pub type DmaMaster512 = DmaMaster<512, 64>;
/// 512-bit profile, shell side.
pub type DmaSlave512 = DmaSlave<512, 64>;
