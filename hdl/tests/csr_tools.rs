//! The emitted Verilog of the CSR block (`CsrBlockDefault`, module `ferroce_csr`) and of the QP
//! configuration table alone (`QpConfigTable<8>`, module `ferroce_qp_config`) through the open
//! tools, as `verilog_tools.rs` does for the other blocks: Icarus (`iverilog -g2012`, clean), an
//! Icarus run from power-up (no output X or Z: every RAM is initialised), Verilator
//! `--lint-only -Wall` (the documented waivers only), Yosys `synth_ecp5` and `synth_xilinx`
//! (the Xilinx runs are `#[ignore]`d: an estimate, run with `--ignored`; no errors, no latches, `check -assert`), the QP table mapped to block RAM. Resource counts
//! are printed (`--nocapture`) and written to `$CARGO_TARGET_TMPDIR/csr_tools/resources_*.txt`.
//!
//! A missing tool fails the test and names the command that installs it (`ferroce_testkit`;
//! `FERROCE_SKIP_MISSING_TOOLS=1` skips it instead, with a `SKIPPED` line).
use ferroce_hdl::csr::{CsrBlockDefault, QpConfigTable};
use ferroce_hdl::verilog::block_verilog;
use ferroce_testkit::require_tool;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The waivers of `verilog_tools.rs` (rust-hdl artefacts: 32-bit literals, one file per top,
/// stub wires for unused child outputs, module-granular false loops), plus `-Wno-UNUSEDPARAM`
/// as `tx_verilog.rs` documents it: rust-hdl's `DFF<E>` of a `LogicState` enum declares the
/// enum's labels as localparams in the register module, which never uses them. The lint test
/// first checks that every UNUSEDPARAM warning is such an enum label (no unused constant of
/// ours hides behind the waiver).
const VERILATOR_WAIVERS: &[&str] = &[
    "-Wno-WIDTH",
    "-Wno-DECLFILENAME",
    "-Wno-UNUSEDSIGNAL",
    "-Wno-UNOPTFLAT",
];
const ENUM_LABEL_WAIVER: &str = "-Wno-UNUSEDPARAM";

const CSR: &str = "ferroce_csr";
const QPT: &str = "ferroce_qp_config";

/// The module's Verilog in `<tag>/<module>.v`; each block is emitted once for all the tests.
fn emitted(module: &str, tag: &str) -> PathBuf {
    static CSR_V: OnceLock<String> = OnceLock::new();
    static QPT_V: OnceLock<String> = OnceLock::new();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("csr_tools")
        .join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{module}.v"));
    let v = match module {
        CSR => CSR_V.get_or_init(|| block_verilog(&mut CsrBlockDefault::default(), CSR)),
        QPT => QPT_V.get_or_init(|| block_verilog(&mut QpConfigTable::<8>::default(), QPT)),
        _ => unreachable!(),
    };
    std::fs::write(&p, v).unwrap();
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
fn csr_iverilog_compiles_clean() {
    if !require_tool("iverilog") {
        return;
    }
    for m in [CSR, QPT] {
        let p = emitted(m, "iverilog");
        let vvp = p.with_extension("vvp");
        let (ok, text) = run(Command::new("iverilog")
            .args(["-g2012", "-Wall", "-s", m, "-o"])
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

/// Icarus from power-up: identity read, a register write and read back, a QP QUERY (the QP
/// table RAMs), an MR QUERY, a doorbell; no output may ever be X or Z (Icarus starts
/// uninitialised memories as X, unlike rust-hdl and Verilator).
#[test]
fn csr_icarus_no_x_from_power_up() {
    if !require_tool("iverilog") || !require_tool("vvp") {
        return;
    }
    let p = emitted(CSR, "icarus_run");
    // every port of the module, from the emitted text
    let v = std::fs::read_to_string(&p).unwrap();
    let head = &v[v.find(&format!("module {CSR}(")).unwrap()..];
    let mut ins = vec![];
    let mut outs = vec![];
    for l in head.lines().skip(1) {
        let t = l.trim();
        if t.starts_with("// Sub module") || t.starts_with("always") {
            break;
        }
        let dir = if t.starts_with("input ") {
            &mut ins
        } else if t.starts_with("output ") {
            &mut outs
        } else {
            continue;
        };
        let name = t
            .trim_end_matches(';')
            .split_whitespace()
            .last()
            .unwrap()
            .to_string();
        let width: usize = match (t.find('['), t.find(':')) {
            (Some(a), Some(b)) if b > a => t[a + 1..b].trim().parse::<usize>().unwrap() + 1,
            _ => 1,
        };
        dir.push((name, width));
    }
    assert!(
        ins.len() > 30 && outs.len() > 60,
        "ports: {} in, {} out",
        ins.len(),
        outs.len()
    );
    let mut tb = String::from(
        "`timescale 1ns/1ps\nmodule tb;\n  integer cyc = 0, errors = 0;\n  reg [31:0] rd;\n",
    );
    for (n, w) in &ins {
        tb += &format!("  reg [{}:0] {n} = 0;\n", w - 1);
    }
    for (n, w) in &outs {
        tb += &format!("  wire [{}:0] {n};\n", w - 1);
    }
    let conns: Vec<String> = ins
        .iter()
        .chain(&outs)
        .map(|(n, _)| format!("    .{n}({n})"))
        .collect();
    tb += &format!("  {CSR} dut(\n{}\n  );\n", conns.join(",\n"));
    tb += "  always #5 clock = ~clock;\n  always @(negedge clock) begin\n    cyc = cyc + 1;\n";
    for (n, _) in &outs {
        tb += &format!("    if ($isunknown({n})) begin if (errors < 10) $display(\"X on {n} at %0d\", cyc); errors = errors + 1; end\n");
    }
    tb += "  end\n";
    tb += r#"
  // Handshakes are sampled at the falling edge (inputs and outputs are stable there): a
  // valid seen with ready at one falling edge was transferred at the rising edge after it.
  reg aw_go, w_go, b_seen;
  task wr(input [20:0] a, input [31:0] d);
    begin
      @(negedge clock); s_axil_awaddr = a; s_axil_awvalid = 1; s_axil_wdata = d; s_axil_wstrb = 4'hF; s_axil_wvalid = 1; s_axil_bready = 1;
      b_seen = 0;
      while (s_axil_awvalid || s_axil_wvalid) begin
        aw_go = s_axil_awvalid && s_axil_awready === 1;
        w_go = s_axil_wvalid && s_axil_wready === 1;
        @(negedge clock);
        if (aw_go) s_axil_awvalid = 0;
        if (w_go) s_axil_wvalid = 0;
        if (s_axil_bvalid === 1) b_seen = 1;
      end
      while (!b_seen) begin @(negedge clock); if (s_axil_bvalid === 1) b_seen = 1; end
    end
  endtask
  task rdr(input [20:0] a);
    begin
      @(negedge clock); s_axil_araddr = a; s_axil_arvalid = 1; s_axil_rready = 1;
      while (s_axil_arvalid) begin
        aw_go = s_axil_arready === 1;
        @(negedge clock);
        if (aw_go) s_axil_arvalid = 0;
      end
      while (s_axil_rvalid !== 1) @(negedge clock);
      rd = s_axil_rdata;
    end
  endtask
  initial begin
    qev_ready = 1; cev_ready = 1;
    repeat (3) @(negedge clock);
    rdr(21'h000); if (rd !== 32'h45435246) begin $display("magic %h", rd); errors = errors + 1; end
    wr(21'h10C, 32'hCAFEF00D); rdr(21'h10C); if (rd !== 32'hCAFEF00D) begin $display("scratch %h", rd); errors = errors + 1; end
    // QP QUERY of QPN 5: rtq answered by a tie-off below
    wr(21'h800, 5); wr(21'h804, 2);
    repeat (30) @(negedge clock);
    rdr(21'h808); if (rd !== 32'h0) begin $display("QP_CMD_STATUS %h", rd); errors = errors + 1; end
    rdr(21'h810); if (rd !== 32'h0) begin $display("QP_STATE %h", rd); errors = errors + 1; end
    // MR QUERY of index 3
    wr(21'h900, 3); wr(21'h904, 3);
    repeat (30) @(negedge clock);
    rdr(21'h908); if (rd !== 32'h0) begin $display("MR_CMD_STATUS %h", rd); errors = errors + 1; end
    // an SQ doorbell of QP 7
    wr(21'h100038, 32'h1234);
    repeat (5) @(negedge clock);
    // read the QP table port
    @(negedge clock); qpc$rd_valid = 1; qpc$rd_qpn = 5; @(negedge clock); qpc$rd_valid = 0;
    repeat (5) @(negedge clock);
    if (errors == 0) $display("PASS"); else $display("FAIL %0d", errors);
    $finish;
  end
  always @(*) begin rtq_ack = rtq_req; mr_drain_ack = mr_drain_req; end
  // a handshake that never completes fails the test instead of hanging it
  initial begin #2000000 $display("TIMEOUT at cycle %0d", cyc); $finish; end
endmodule
"#;
    let tbp = p.with_file_name("tb.v");
    std::fs::write(&tbp, tb).unwrap();
    let vvp = p.with_extension("vvp");
    let (ok, out) = run(Command::new("iverilog")
        .args(["-g2012", "-s", "tb", "-o"])
        .arg(&vvp)
        .arg(&tbp)
        .arg(&p));
    assert!(ok, "iverilog:\n{out}");
    let (ok, out) = run(Command::new("vvp").arg("-n").arg(&vvp));
    assert!(ok && out.contains("PASS"), "vvp:\n{out}");
}

#[test]
fn csr_verilator_lint_clean() {
    if !require_tool("verilator") {
        return;
    }
    for m in [CSR, QPT] {
        let p = emitted(m, "verilator");
        let (_, text) = run(Command::new("verilator")
            .args(["--lint-only", "-Wall"])
            .args(VERILATOR_WAIVERS)
            .args(["--top-module", m])
            .arg(&p));
        for l in text
            .lines()
            .filter(|l| l.starts_with("%Warning-UNUSEDPARAM"))
        {
            assert!(
                l.contains("State$"),
                "an unused parameter that is not an enum label: {l}"
            );
        }
        let (ok, text) = run(Command::new("verilator")
            .args(["--lint-only", "-Wall"])
            .args(VERILATOR_WAIVERS)
            .arg(ENUM_LABEL_WAIVER)
            .args(["--top-module", m])
            .arg(&p));
        assert!(
            ok && !text.contains("%Warning") && !text.contains("%Error"),
            "verilator {m}:\n{text}"
        );
    }
}

/// Runs a Yosys synthesis script; returns the `stat` cell counts of the prefixes in `cells`.
fn yosys(module: &str, tag: &str, script: &str, cells: &[&str]) -> Option<Vec<(String, u64)>> {
    if !require_tool("yosys") {
        return None;
    }
    let p = emitted(module, tag);
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
    assert!(
        ok,
        "yosys {tag} {module} failed:\n{text}\n(log {})",
        log.display()
    );
    let latches: Vec<&str> = logtext
        .lines()
        .filter(|l| l.contains("Latch inferred"))
        .collect();
    assert!(latches.is_empty(), "yosys {tag} {module}: {latches:#?}");
    assert!(
        !logtext.contains("ERROR"),
        "yosys {tag} {module}: see {}",
        log.display()
    );
    let st = std::fs::read_to_string(&stat).unwrap_or_default();
    let mut counts = vec![];
    let mut line = format!("{tag:6} {module:18} {:6.1} s", t.elapsed().as_secs_f64());
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
        .join("csr_tools")
        .join(format!("resources_{tag}_{module}.txt"));
    std::fs::write(out, format!("{line}\n\n{st}")).unwrap();
    Some(counts)
}

fn count(c: &[(String, u64)], name: &str) -> u64 {
    c.iter().find(|x| x.0 == name).map(|x| x.1).unwrap_or(0)
}

const ECP5_CELLS: &[&str] = &[
    "DP16KD",
    "TRELLIS_DPR16X4",
    "LUT4",
    "TRELLIS_FF",
    "CCU2C",
    "PFUMX",
    "L6MUX21",
];
const XILINX_CELLS: &[&str] = &["RAMB18E1", "RAMB36E1", "RAM", "LUT", "FD", "CARRY", "MUXF"];

#[test]
fn csr_yosys_synth_ecp5() {
    let Some(c) = yosys(CSR, "ecp5", &format!("synth_ecp5 -top {CSR}"), ECP5_CELLS) else {
        return;
    };
    // QP table (25 RAMs of 256 rows), CQ table (5), MR table (8 of 1024 rows) in block RAM
    assert!(count(&c, "DP16KD") >= 20, "{c:?}");
}

/// Plain `synth_xilinx` (~5 min here): with `-abc9`, Yosys 0.23 aborts on the LUT RAMs of the
/// tables (`std::out_of_range` in ABC9_OPS, YosysHQ/yosys#3384, fixed in 0.28), as for the MR
/// table (`mr_tools.rs`).
#[test]
#[ignore = "UltraScale+ estimate (~5 min of Yosys): run with --ignored; CI synthesises the block for ECP5"]
fn csr_yosys_synth_xilinx() {
    let Some(c) = yosys(
        CSR,
        "xilinx",
        &format!("synth_xilinx -flatten -top {CSR}"),
        XILINX_CELLS,
    ) else {
        return;
    };
    assert!(count(&c, "FD") > 1000, "{c:?}");
}

#[test]
fn qp_config_yosys_synth_ecp5() {
    let Some(c) = yosys(QPT, "ecp5", &format!("synth_ecp5 -top {QPT}"), ECP5_CELLS) else {
        return;
    };
    // 591 bits x 256 QPs = 151,296 bits in DP16KD / LUT RAM. The flip-flops are the two read
    // pipeline registers (2 x 591), the command window and control: a table that fell into
    // flip-flops would need 100x more, so the bound is the table's own bits / 32.
    assert!(count(&c, "DP16KD") >= 16, "{c:?}");
    assert!(count(&c, "TRELLIS_FF") < 591 * 256 / 32, "{c:?}");
}

#[test]
#[ignore = "UltraScale+ estimate (about a minute of Yosys): run with --ignored; CI synthesises the block for ECP5"]
fn qp_config_yosys_synth_xilinx() {
    let Some(c) = yosys(
        QPT,
        "xilinx",
        &format!("synth_xilinx -flatten -abc9 -top {QPT}"),
        XILINX_CELLS,
    ) else {
        return;
    };
    assert!(count(&c, "FD") < 1500, "{c:?}");
}
