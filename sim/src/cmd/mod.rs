//! The implementation of each `ferroce` command. Each `run` returns the process exit code or a
//! [`CliError`] that `main` prints as `ferroce: <message>`.
pub mod bench;
pub mod dcqcn_trace;
pub mod demo;
pub mod demo_v1;
pub mod incast;
pub mod pcap_info;
pub mod peer;
pub mod respond;
pub mod run;
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

/// The waveform options of every command that runs the hardware (see [`crate::vcd`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct VcdArgs {
    /// Write every signal of the hardware the command runs (the NIC, or the block it drives),
    /// with hierarchical names, as a VCD file (GTKWave, Surfer), on either engine; with two
    /// NICs, the second one's go to FILE with `.b` before its extension.
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<std::path::PathBuf>,
    /// First clock cycle written (counted from reset, 4 ns a cycle).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "vcd")]
    pub vcd_from: u64,
    /// Cycles written.
    #[arg(long, value_name = "M", default_value_t = 10_000, requires = "vcd")]
    pub vcd_cycles: u64,
}

impl VcdArgs {
    /// The window asked for, if `--vcd` was given.
    pub fn window(&self) -> Option<crate::vcd::VcdWindow> {
        self.vcd.as_ref().map(|p| crate::vcd::VcdWindow {
            path: p.clone(),
            from: self.vcd_from,
            cycles: self.vcd_cycles,
        })
    }
}

/// The engine (`--engine`) and the waveform window (`--vcd`) of a command that runs the
/// hardware, checked before the run: a known engine, a window of at least one cycle, a file that
/// can be created.
pub fn engine_and_vcd(
    engine: &str,
    vcd: Option<&crate::vcd::VcdWindow>,
) -> Result<verbs::Engine, CliError> {
    let engine = verbs::Engine::parse(engine)?;
    if let Some(w) = vcd {
        w.check().map_err(CliError)?;
    }
    Ok(engine)
}
