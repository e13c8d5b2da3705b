//! ferroce-sim: the simulator (HDL stepping, host memory, fabric) and the CLI's commands.
pub mod cmd;
pub mod engines;
pub mod fabric_net;
pub mod host;
pub mod link_faults;
pub mod nic_pair;
pub mod nic_system;
pub mod nic_verilated;
pub mod peer;
pub mod plot;
pub mod raster;
pub mod report;
pub mod respond_config;
pub mod scenario;
pub mod vcd;
