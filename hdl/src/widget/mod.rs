//! Generic HDL widgets shared by the NIC's blocks (none of them knows about RoCE):
//!
//! * [`LutRam`]: distributed RAM, one synchronous write port, one asynchronous read port.
//! * [`NoRwRam`]: block RAM, synchronous read, read-during-write collision don't care.
//! * [`RegFifo`]: a small first-word-fall-through FIFO in registers.
//! * [`MuxTree`]: a `2^L`:1 read multiplexer as a binary tree of 2:1 selects on the index bits.
//! * [`StreamCutter`]: cuts a packet stream into byte pieces, each re-aligned to a beat boundary.
//! * [`StreamPacker`]: joins byte segments into one packet stream (the cutter's inverse).
//! * [`StreamSkid`]: a full-rate register slice (skid buffer) for a packet stream.
//! * [`ByteSwap64`], [`ByteSwap32`]: a word's bytes reversed, between the beats' wire order and
//!   the host's little-endian fields.
//!
//! The stream interface they use ([`crate::stream::StreamSink`], [`crate::stream::StreamSource`])
//! stays in [`crate::stream`], with its plain-Rust beat helpers.
pub mod byte_swap;
pub mod cutter;
#[cfg(test)]
mod cutter_tests;
pub mod fifo;
pub mod lutram;
pub mod mux_tree;
pub mod packer;
#[cfg(test)]
mod packer_tests;
pub mod ram;
pub mod skid;

pub use byte_swap::{ByteSwap32, ByteSwap64};
pub use cutter::StreamCutter;
pub use fifo::RegFifo;
pub use lutram::LutRam;
pub use mux_tree::MuxTree;
pub use packer::StreamPacker;
pub use ram::NoRwRam;
pub use skid::StreamSkid;
