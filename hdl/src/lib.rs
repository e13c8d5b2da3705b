//! ferroce-hdl: the ferroce NIC in Rust-HDL, and its Verilog emission.
//!
//! * [`stream`]: the packet stream interface (valid/ready/data/keep/last, first wire byte in the
//!   data MSB) and plain-Rust beat helpers.
//! * [`testbench`]: hand stepping ([`testbench::Bench`]), stream feeders/collectors, RNG, the
//!   PC's side of a UART line.
//! * [`icrc`]: RoCE ICRC checker (RX) and generator (TX), full rate, self-parsing.
//! * [`verilog`]: Verilog emission of the top-level blocks ([`verilog::emit_verilog`]). (The
//!   policy for tests that need outside tools is in the `ferroce-testkit` dev-dependency.)
//! * [`cosim`]: generic lock-step co-simulation against Verilator ([`cosim::CoSim`]) and the
//!   Verilator model as a fast engine ([`cosim::VerilatedBlock`]).
pub mod board;
pub mod cc;
pub mod cosim;
pub mod cq;
pub mod csr;
pub mod dma;
pub mod header;
pub mod icrc;
pub mod mr;
pub mod nic;
pub mod req;
pub mod resp;
pub mod rx;
pub mod stream;
pub mod testbench;
pub mod tx;
pub mod verilog;
pub mod widget;
