//! The RX front end of the NIC's receive engine: [`RxParser`] and its blocks.
//!
//! * [`parser`]: [`RxParser`], the top (store-and-forward, ports, stall bound).
//! * [`ingest`]: header window, frame buffer writes, on-the-fly ICRC, frame record.
//! * [`l3`]: Ethernet / IPv4 / IPv6 / GRH / UDP fields and L2-L3 checks.
//! * [`transport`]: BTH and extension headers, lengths, kind and verdict.
//! * [`readout`]: releases accepted frames (descriptor, realigned payload) and frees the buffer.
//! * [`flat`]: [`RxParserFlat`], the same with a flat `Bits` descriptor port (co-simulation).
//! * [`harness`]: plain-Rust test driver and frame generators.
//! * [`counters`]: saturating per-reason counters.
//! * [`opclass`]: known opcodes and their payload rule.
//! * [`drop_reason`]: the verdict codes ([`DropReason`], [`RxKind`]).
//! * [`model`]: the plain-Rust reference model (executable specification of the verdicts).
pub mod counters;
pub mod drop_reason;
pub mod flat;
pub mod harness;
pub mod ingest;
pub mod l3;
pub mod model;
pub mod opclass;
pub mod parser;
pub mod readout;
pub mod transport;

pub use drop_reason::{DropReason, RxKind};
pub use flat::RxParserFlat;
pub use parser::RxParser;

/// The 64-bit profile: 8-byte beats, a 2048-word (16 KiB) frame buffer.
pub type RxParser64 = RxParser<64, 8, 11>;
/// [`RxParser64`] with a flat descriptor port (co-simulation, Verilog tops).
pub type RxParserFlat64 = RxParserFlat<64, 8, 11>;
