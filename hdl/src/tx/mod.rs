//! The transmit engine's front end.
//!
//! * [`TxHeaderBuilder`] (header_builder.rs): descriptor + payload -> complete frame with ICRC.
//! * [`TxFrameCore`] (frame_core.rs): the builder's datapath up to an ICRC placeholder.
//! * [`TxHeaderBuilderFlat`] (flat.rs): the builder with a flat `Bits` descriptor port (co-sim).
//! * [`PfcFrameInserter`] (pfc_inserter.rs): IEEE 802.1Qbb PFC frames inserted in front of the MAC.
//! * [`drive`]: the plain-Rust stimulus driver shared by tests, co-simulation and benchmarks.
//! * [`vectors`]: the published RoCEv2 test vectors (hex, docs/PROTOCOL.md §11).
pub mod drive;
pub mod flat;
pub mod frame_core;
pub mod header_builder;
pub mod pfc_inserter;
pub mod vectors;

pub use flat::TxHeaderBuilderFlat;
pub use frame_core::TxFrameCore;
pub use header_builder::TxHeaderBuilder;
pub use pfc_inserter::PfcFrameInserter;
