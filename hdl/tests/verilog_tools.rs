//! The emitted Verilog of every top-level block through the open tools:
//! Icarus (`iverilog -g2012`, must compile clean), Verilator `--lint-only -Wall` (only the
//! documented waivers below), Yosys `synth_ecp5` and `synth_xilinx` (the latter `#[ignore]`d in CI: an
//! UltraScale+ estimate, `-- --ignored`; no errors, no
//! "Latch inferred", `check -assert` clean). Resource counts are printed (`--nocapture`) and
//! written to `$CARGO_TARGET_TMPDIR/verilog_tools/resources.txt`.
//!
//! A missing tool fails the test and names the command that installs it (`ferroce_testkit`;
//! `FERROCE_SKIP_MISSING_TOOLS=1` skips it instead, with a `SKIPPED` line).
use ferroce_hdl::verilog::{all_blocks, Emitted};
use ferroce_testkit::require_tool;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// Verilator waivers, each one a rust-hdl artefact, not a design issue:
const VERILATOR_WAIVERS: &[&str] = &[
    // rust-hdl writes every bare integer literal as 32'hN (`x = 32'h0` into a 4-bit reg);
    // truncation is what the Rust model does too (co-simulation checks it).
    "-Wno-WIDTH",
    // rust-hdl emits every sub-module into the one file of its top (`top$child`).
    "-Wno-DECLFILENAME",
    // rust-hdl declares a stub wire for every output of a child block, used or not (a shared
    // child such as IcrcFront has outputs only one of its parents reads); Yosys removes them.
    "-Wno-UNUSEDSIGNAL",
    // each rust-hdl module body is one `always @(*)` block that both drives a child's inputs
    // and reads its outputs, which Verilator sees as a module-granular (false) loop.
    "-Wno-UNOPTFLAT",
    // rust-hdl's register for a `LogicState` enum declares the enum's labels as localparams
    // and never reads them.
    "-Wno-UNUSEDPARAM",
];

/// Blocks whose synthesis is checked by their own tests with options they need
/// (tx_verilog, rx_verilog, mr_tools, csr_tools: e.g. the MR and CSR tables' RAMs cannot take
/// `-abc9` on Yosys 0.23), so the generic Yosys runs here do not synthesise them twice.
const SYNTHESISED_ELSEWHERE: &[&str] = &[
    "ferroce_tx_header_builder_64",
    "ferroce_rx_parser_64",
    "ferroce_mr_table_1k",
    "ferroce_csr",
    // The DMA-to-AXI4 bridge: synth_ecp5 and synth_xilinx in tests/board_dma_axi4.rs.
    "ferroce_dma_axi4_64",
    // The whole NIC: its parts are synthesised above and in their own tests; the top's own
    // synthesis (~15 min for both families here) is left to resource reports, not CI.
    "ferroce_nic_64",
];

/// Every top-level block's Verilog, emitted once for the four tests (emitting the whole NIC
/// takes seconds), each of which gets its own copy of the files in `<tag>/`.
fn emitted(tag: &str) -> Vec<(String, PathBuf)> {
    static BLOCKS: OnceLock<Vec<Emitted>> = OnceLock::new();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("verilog_tools")
        .join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    BLOCKS
        .get_or_init(all_blocks)
        .iter()
        .map(|e| {
            let p = dir.join(format!("{}.v", e.module));
            std::fs::write(&p, &e.verilog).unwrap();
            (e.module.clone(), p)
        })
        .collect()
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn iverilog_compiles_clean() {
    if !require_tool("iverilog") {
        return;
    }
    for (m, p) in emitted("iverilog") {
        let vvp = p.with_extension("vvp");
        let (ok, text) = run(Command::new("iverilog")
            .args(["-g2012", "-Wall", "-s", &m, "-o"])
            .arg(&vvp)
            .arg(&p));
        // -Wall here only reports timescale notes for files without `timescale; errors matter
        let real: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("timescale"))
            .filter(|l| !l.trim().is_empty())
            .collect();
        assert!(ok && real.is_empty(), "iverilog {m}:\n{text}");
    }
}

#[test]
fn verilator_lint_clean() {
    if !require_tool("verilator") {
        return;
    }
    for (m, p) in emitted("verilator") {
        let (ok, text) = run(Command::new("verilator")
            .args(["--lint-only", "-Wall"])
            .args(VERILATOR_WAIVERS)
            .args(["--top-module", &m])
            .arg(&p));
        assert!(
            ok && !text.contains("%Warning") && !text.contains("%Error"),
            "verilator {m}:\n{text}"
        );
    }
}

fn yosys(tag: &str, script: impl Fn(&str, &str) -> String, cells: &[&str]) {
    if !require_tool("yosys") {
        return;
    }
    let mut report = String::new();
    for (m, p) in emitted(tag) {
        if SYNTHESISED_ELSEWHERE.contains(&m.as_str()) {
            continue;
        }
        let log = p.with_extension(format!("{tag}.log"));
        let stat = p.with_extension(format!("{tag}.stat"));
        let t = std::time::Instant::now();
        let s = script(&m, &p.to_string_lossy())
            + &format!("; check -assert; tee -q -o {} stat", stat.display());
        let (ok, text) = run(Command::new("yosys")
            .arg("-q")
            .arg("-l")
            .arg(&log)
            .arg("-p")
            .arg(&s));
        let logtext = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            ok,
            "yosys {tag} {m} failed:\n{text}\n(log {})",
            log.display()
        );
        let latches: Vec<&str> = logtext
            .lines()
            .filter(|l| l.contains("Latch inferred"))
            .collect();
        assert!(latches.is_empty(), "yosys {tag} {m}: {latches:#?}");
        assert!(
            !logtext.contains("ERROR"),
            "yosys {tag} {m}: see {}",
            log.display()
        );
        let st = std::fs::read_to_string(&stat).unwrap_or_default();
        let mut line = format!("{tag:6} {m:28} {:5.1} s", t.elapsed().as_secs_f64());
        for c in cells {
            let n: u64 = st
                .lines()
                .filter_map(|l| {
                    let mut w = l.split_whitespace();
                    let name = w.next()?;
                    let count = w.next()?.parse::<u64>().ok()?;
                    name.starts_with(c).then_some(count)
                })
                .sum();
            line += &format!("  {c}*={n}");
        }
        eprintln!("{line}");
        report += &line;
        report.push('\n');
    }
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("verilog_tools")
        .join(format!("resources_{tag}.txt"));
    std::fs::write(out, report).unwrap();
}

#[test]
fn yosys_synth_ecp5_clean() {
    yosys(
        "ecp5",
        |m, p| format!("read_verilog {p}; synth_ecp5 -top {m}"),
        &["LUT4", "TRELLIS_FF", "CCU2C"],
    );
}

/// Blocks synthesised for Xilinx without `-abc9`: Yosys 0.23 aborts in ABC9_OPS on their
/// inferred RAMs (`std::out_of_range`, YosysHQ/yosys#3384, fixed in 0.28; `-nolutram` does not
/// avoid it). The responder's atomic replay cache and per-QP ACK counters are such RAMs; it has
/// no wide XOR logic, so plain `synth_xilinx` takes ~80 s here.
const XILINX_WITHOUT_ABC9: &[&str] = &["ferroce_rc_write_responder_64"];

/// `-flatten -abc9`: plain `synth_xilinx` can run for over 15 minutes on wide XOR logic
/// (docs/HDL-RULES.md); `-abc9` takes well under a minute per block here.
#[test]
#[ignore = "UltraScale+ estimate (minutes of Yosys): run with --ignored; CI synthesises every block for ECP5"]
fn yosys_synth_xilinx_clean() {
    yosys(
        "xilinx",
        |m, p| {
            let abc9 = if XILINX_WITHOUT_ABC9.contains(&m) {
                ""
            } else {
                " -abc9"
            };
            format!("read_verilog {p}; synth_xilinx -flatten{abc9} -top {m}")
        },
        &["LUT", "FD", "CARRY"],
    );
}
