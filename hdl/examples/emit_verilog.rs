//! Writes the Verilog of the top-level blocks (as `ferroce verilog --out DIR` does) without
//! building the simulator: `cargo run --release -p ferroce-hdl --example emit_verilog -- DIR`.
//! `scripts/timing.sh --verilog DIR` synthesises and places blocks from it.
fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: emit_verilog DIR");
        std::process::exit(2)
    });
    match ferroce_hdl::verilog::emit_verilog(std::path::Path::new(&dir)) {
        Ok(paths) => println!("wrote {} Verilog files to {dir}", paths.len()),
        Err(e) => {
            eprintln!("emit_verilog: {dir}: {e}");
            std::process::exit(1)
        }
    }
}
