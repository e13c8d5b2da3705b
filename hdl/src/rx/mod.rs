//! The RX front end of the NIC's receive engine: [`RxParser`] and its blocks.
//!
//! MAC frames (FCS stripped) in; out come, per frame, exactly one verdict (`vd_*`: kind, ICRC
//! flag, [`DropReason`]), and for accepted frames the [`crate::header::RoceHeader`] descriptor
//! plus the payload (message data only), or a PFC pulse. Store-and-forward: the frame is
//! buffered in block RAM while its header window is parsed and its ICRC checked on the fly;
//! nothing is released before the verdict. See [`parser`] for ports, sizes and the input stall
//! bound, [`model`] for the classification rules (executable specification, priority order).
//!
//! Pipeline (64-bit profile): input skid -> [`ingest`] (window, buffer write, ICRC) -> [`l3`] ->
//! [`transport`] -> commit (verdict pulse, counters, record + descriptor queues) ->
//! [`readout`] (descriptor, realigned payload, buffer free) -> output skid. Each parse stage is
//! one register holding one frame; opcode decode, header-length arithmetic and the payload
//! barrel shift sit in different stages (the 50-70 MHz one-cycle path of docs/HDL-RULES.md is
//! split).
//!
//! Measured (64-bit, `cargo test` profile, 2 shared cores):
//!
//! | what | value |
//! |---|---|
//! | input, back to back | `ceil(bytes/8)` cycles per frame, no bubble (real capture: 123 frames, 9397 beats in 9397 cycles; 114 random frames of every opcode: 3874 in 3874) |
//! | last beat -> verdict pulse / descriptor offered | 8 / 9 cycles (3 of them the pipelined ICRC front) |
//! | readout | 1 cycle per dropped frame; `2 + ceil(payload/8)` per accepted one |
//! | worst input stall, outputs ready | 239 cycles measured (bound [`RxParser::STALL_BOUND`] = 527) |
//! | rust-hdl simulation | ~3.5-4.5 k cycles/s (11 settle passes per cycle: clock-tree depth) |
//! | Verilator engine ([`RxParserFlat`]) | ~0.55 M cycles/s |
//! | lock-step co-simulation | ~1-1.6 k cycles/s, 0 mismatches |
//! | Yosys `synth_ecp5 -abc9` | 7221 LUT4, 6516 FF, 8 DP16KD (frame buffer), 596 DPR16X4 (descriptor queue) |
//! | nextpnr-ecp5 (85F, out of context) | whole parser 30.0 MHz before the ICRC front was pipelined (docs/RESOURCES.md; not re-measured since): the critical path is inside the shared `IcrcFront` (beat phase -> VLAN/kind -> span-end arithmetic -> CRC byte count -> `crc_next`, ~30 ns) plus the residue compare; the parser's own stages alone: L3 164 MHz, readout 178 MHz (reg-to-reg); transport is the deepest (17 LUT4 levels input-to-register: split it next if the front is pipelined) |
//!
//! Also generic: tested at 128 and 512 bits (`tests/rx_wide.rs`).
//!
//! * [`admission`]: [`RxAdmission`], the MAC-side FIFO in front of the parser that drops whole
//!   frames for lack of room (the MAC cannot wait; its fill level drives PFC).
//! * [`pfc_tap`]: [`PfcRxTap`], decodes PFC frames from the MAC beats in front of the FIFO
//!   (pause at wire time).
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
pub mod admission;
pub mod counters;
pub mod drop_reason;
pub mod flat;
pub mod harness;
pub mod ingest;
pub mod l3;
pub mod model;
pub mod opclass;
pub mod parser;
pub mod pfc_tap;
pub mod readout;
pub mod transport;

pub use admission::RxAdmission;
pub use drop_reason::{DropReason, RxKind};
pub use flat::RxParserFlat;
pub use parser::RxParser;
pub use pfc_tap::PfcRxTap;

/// The 64-bit profile: 8-byte beats, a 2048-word (16 KiB) frame buffer.
pub type RxParser64 = RxParser<64, 8, 11>;
/// [`RxParser64`] with a flat descriptor port (co-simulation, Verilog tops).
pub type RxParserFlat64 = RxParserFlat<64, 8, 11>;
/// The NIC's admission FIFO: 8-byte beats, 4096 words (32 KiB of data).
pub type RxAdmission64 = RxAdmission<64, 8, 12>;
