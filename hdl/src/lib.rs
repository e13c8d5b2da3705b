//! ferroce-hdl: the ferroce NIC in Rust-HDL, and its Verilog emission.
//!
//! * [`stream`]: the packet stream interface (valid/ready/data/keep/last, first wire byte in the
//!   data MSB) and plain-Rust beat helpers.
//! * [`testbench`]: hand stepping ([`testbench::Bench`]), stream feeders/collectors, RNG.
pub mod stream;
pub mod testbench;
pub mod verilog;
pub mod icrc;
pub mod cosim;
pub mod tx;
pub mod header;
pub mod rx;
pub mod mr;
