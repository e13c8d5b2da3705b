//! `ferroce verilog --out DIR`: write the Verilog of every top-level hardware block.

use std::path::Path;
use std::process::ExitCode;

use super::CliError;

pub fn run(out: &Path) -> Result<ExitCode, CliError> {
    let paths = ferroce_hdl::verilog::emit_verilog(out)
        .map_err(|e| CliError(format!("{}: {e}", out.display())))?;
    for path in &paths {
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!("{} ({bytes} bytes)", path.display());
    }
    eprintln!("wrote {} Verilog files to {}", paths.len(), out.display());
    Ok(ExitCode::SUCCESS)
}
