//! The implementation of each `ferroce` command. Each `run` returns the process exit code or a
//! [`CliError`] that `main` prints as `ferroce: <message>`.
pub mod bench;
pub mod dcqcn_trace;
pub mod demo;
pub mod pcap_info;
pub mod peer;
pub mod respond;
pub mod rx_replay;
pub mod synth;
pub mod tx_replay;
pub mod verbs;
pub mod verilog;

use std::fmt;

/// A command failed before it could do its job (bad input file, bad arguments, I/O).
#[derive(Debug)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError(e.to_string())
    }
}
