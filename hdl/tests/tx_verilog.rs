//! The TX header builder's emitted Verilog through the open tools (the same checks as
//! `tests/verilog_tools.rs` runs on the registered top-level blocks): Icarus `-g2012 -Wall`
//! clean, Verilator `--lint-only -Wall` clean with the documented rust-hdl waivers, Yosys
//! `synth_ecp5` with no latches and `check -assert` clean; resource counts printed.
use ferroce_hdl::tx::{TxFrameCore, TxHeaderBuilder};
use ferroce_hdl::verilog::block_verilog;
use ferroce_testkit::require_tool;
use std::path::PathBuf;
use std::process::Command;

/// The waivers of `tests/verilog_tools.rs` (rust-hdl artefacts: 32-bit literals, one file per
/// top, stub wires for unused child outputs, module-granular false loops), plus
/// `-Wno-UNUSEDPARAM`: rust-hdl's `DFF<E>` for a `LogicState` enum `E` declares the enum's
/// labels as localparams in the register module, which never uses them.
const VERILATOR_WAIVERS: &[&str] = &[
    "-Wno-WIDTH",
    "-Wno-DECLFILENAME",
    "-Wno-UNUSEDSIGNAL",
    "-Wno-UNOPTFLAT",
    "-Wno-UNUSEDPARAM",
];

fn emitted() -> Vec<(String, PathBuf)> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tx_verilog");
    std::fs::create_dir_all(&dir).unwrap();
    let mut v = vec![];
    for (m, text) in [
        (
            "ferroce_tx_header_builder_64",
            block_verilog(
                &mut TxHeaderBuilder::default(),
                "ferroce_tx_header_builder_64",
            ),
        ),
        (
            "ferroce_tx_frame_core_64",
            block_verilog(&mut TxFrameCore::default(), "ferroce_tx_frame_core_64"),
        ),
    ] {
        let p = dir.join(format!("{m}.v"));
        std::fs::write(&p, text).unwrap();
        v.push((m.to_string(), p));
    }
    v
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
fn tx_iverilog_compiles_clean() {
    if !require_tool("iverilog") {
        return;
    }
    for (m, p) in emitted() {
        let vvp = p.with_extension("vvp");
        let (ok, text) = run(Command::new("iverilog")
            .args(["-g2012", "-Wall", "-s", &m, "-o"])
            .arg(&vvp)
            .arg(&p));
        let real: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("timescale"))
            .filter(|l| !l.trim().is_empty())
            .collect();
        assert!(ok && real.is_empty(), "iverilog {m}:\n{text}");
    }
}

#[test]
fn tx_verilator_lint_clean() {
    if !require_tool("verilator") {
        return;
    }
    for (m, p) in emitted() {
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

#[test]
fn tx_yosys_synth_ecp5_clean() {
    if !require_tool("yosys") {
        return;
    }
    for (m, p) in emitted() {
        let log = p.with_extension("ecp5.log");
        let stat = p.with_extension("ecp5.stat");
        let s = format!(
            "read_verilog {}; synth_ecp5 -top {m}; check -assert; tee -q -o {} stat",
            p.display(),
            stat.display()
        );
        let (ok, text) = run(Command::new("yosys")
            .arg("-q")
            .arg("-l")
            .arg(&log)
            .arg("-p")
            .arg(&s));
        let logtext = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(ok, "yosys {m} failed:\n{text}\n(log {})", log.display());
        let latches: Vec<&str> = logtext
            .lines()
            .filter(|l| l.contains("Latch inferred"))
            .collect();
        assert!(latches.is_empty(), "yosys {m}: {latches:#?}");
        let st = std::fs::read_to_string(&stat).unwrap_or_default();
        let count = |c: &str| -> u64 {
            st.lines()
                .filter_map(|l| {
                    let mut w = l.split_whitespace();
                    let name = w.next()?;
                    let n = w.next()?.parse::<u64>().ok()?;
                    name.starts_with(c).then_some(n)
                })
                .sum()
        };
        eprintln!(
            "ecp5 {m}: LUT4={} TRELLIS_FF={} CCU2C={}",
            count("LUT4"),
            count("TRELLIS_FF"),
            count("CCU2C")
        );
    }
}
