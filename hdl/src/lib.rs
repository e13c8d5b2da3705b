//! ferroce-hdl: the ferroce NIC in Rust-HDL, and its Verilog emission.
