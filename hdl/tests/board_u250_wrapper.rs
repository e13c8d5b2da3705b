//! The Alveo U250 example top level (`constraints/alveo-u250/ferroce_u250_top.v`) without
//! Vivado: Verilator `--lint-only -Wall` and Icarus elaborate it against the port-list stubs of
//! the AMD IP (`constraints/alveo-u250/stubs/`), the emitted DMA bridge, and a stub of the NIC
//! whose ports are generated from `NicTop` itself, so a renamed or resized NIC port breaks this
//! test rather than the vendor build. Verilator's `PINMISSING` (part of `-Wall`) fails on any
//! port of an instance left out. Then the board files against each other: every port of the
//! wrapper has a pin in `alveo-u250.xdc` and every pin of the XDC belongs to a wrapper port
//! (except QSFP28 lanes 1-3, which the one-lane example does not use); the XDC passes
//! `xdc_check.tcl`; `build.tcl` is complete Tcl and uses only commands of the Vivado
//! non-project flow listed below.
//!
//! Needs verilator, iverilog and tclsh (the tool policy of `ferroce_testkit`).
use ferroce_hdl::board::DmaAxi4Bridge;
use ferroce_testkit::{require, require_tool, workspace_root};
use rust_hdl::prelude::Block;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const MODULE: &str = "ferroce_u250_top";

fn board() -> PathBuf {
    workspace_root().join("constraints/alveo-u250")
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// A stub `ferroce_nic_64` with exactly the ports of the NIC (names, directions, widths).
fn nic_stub() -> String {
    let mut nic = ferroce_hdl::nic::NicTop::default();
    nic.connect_all();
    let ports = ferroce_hdl::cosim::ports(&nic);
    assert!(ports.len() > 50, "{} NIC ports", ports.len());
    let mut v = String::from("// generated from NicTop's ports by board_u250_wrapper.rs\n");
    v += "/* verilator lint_off UNUSEDSIGNAL */\n";
    v += &format!(
        "module ferroce_nic_64({});\n",
        ports
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for p in &ports {
        let range = if p.width > 1 {
            format!("[{}:0] ", p.width - 1)
        } else {
            String::new()
        };
        if p.input {
            v += &format!("    input wire {range}{};\n", p.name);
        } else {
            v += &format!("    output wire {range}{};\n", p.name);
            v += &format!("    assign {} = {}'d0;\n", p.name, p.width);
        }
    }
    v += "endmodule\n/* verilator lint_on UNUSEDSIGNAL */\n";
    v
}

/// The files of the lint: wrapper, stubs, the generated NIC stub and the emitted bridge (its
/// rust-hdl artefacts waived inside its own file, docs/HDL-RULES.md "Lint flags").
fn sources(dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let nic = dir.join("ferroce_nic_64_stub.v");
    std::fs::write(&nic, nic_stub()).unwrap();
    let bridge = dir.join("ferroce_dma_axi4_64.v");
    let waive = "WIDTH UNUSEDSIGNAL UNOPTFLAT UNUSEDPARAM";
    let on: String = waive
        .split(' ')
        .map(|w| format!("/* verilator lint_off {w} */\n"))
        .collect();
    std::fs::write(
        &bridge,
        on + &ferroce_hdl::verilog::block_verilog(
            &mut DmaAxi4Bridge::default(),
            "ferroce_dma_axi4_64",
        ),
    )
    .unwrap();
    let mut v = vec![board().join("ferroce_u250_top.v"), nic, bridge];
    let mut stubs: Vec<PathBuf> = std::fs::read_dir(board().join("stubs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "v"))
        .collect();
    stubs.sort();
    assert!(stubs.len() >= 6, "{stubs:?}");
    v.extend(stubs);
    v
}

fn tmp(tag: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("u250_wrapper")
        .join(tag)
}

#[test]
fn verilator_lint_wrapper() {
    if !require_tool("verilator") {
        return;
    }
    let t0 = std::time::Instant::now();
    let files = sources(&tmp("verilator"));
    // several stub modules share a file; `.port()` leaves an output open on purpose
    let (ok, text) = run(Command::new("verilator")
        .args([
            "--lint-only",
            "-Wall",
            "-Wno-DECLFILENAME",
            "-Wno-PINCONNECTEMPTY",
        ])
        .args(["--top-module", MODULE])
        .args(&files));
    assert!(
        ok && !text.contains("%Warning") && !text.contains("%Error"),
        "verilator:\n{text}"
    );
    eprintln!(
        "verilator lint of the wrapper: clean, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

#[test]
fn iverilog_elaborates_wrapper() {
    if !require_tool("iverilog") {
        return;
    }
    let dir = tmp("iverilog");
    let files = sources(&dir);
    let (ok, text) = run(Command::new("iverilog")
        .args(["-g2012", "-Wall", "-s", MODULE, "-o"])
        .arg(dir.join("top.vvp"))
        .args(&files));
    let real: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("timescale") && !l.trim().is_empty())
        .collect();
    assert!(ok && real.is_empty(), "iverilog:\n{text}");
}

/// The wrapper's top-level port bits (`name` or `name[i]`), from its ANSI header.
fn wrapper_port_bits() -> BTreeSet<String> {
    let v = std::fs::read_to_string(board().join("ferroce_u250_top.v")).unwrap();
    let start = v.find(&format!("module {MODULE}")).unwrap();
    let header = &v[start..start + v[start..].find(");").unwrap()];
    let mut bits = BTreeSet::new();
    for line in header.lines() {
        let w: Vec<&str> = line
            .trim()
            .trim_end_matches(',')
            .split_whitespace()
            .collect();
        if w.len() < 3 || !(w[0] == "input" || w[0] == "output") {
            continue;
        }
        let name = w.last().unwrap().to_string();
        match w.iter().find(|x| x.starts_with('[')) {
            Some(r) => {
                let r = r.trim_matches(|c| c == '[' || c == ']');
                let (hi, lo) = r.split_once(':').unwrap();
                let (hi, lo): (usize, usize) = (hi.parse().unwrap(), lo.parse().unwrap());
                for i in lo..=hi {
                    bits.insert(format!("{name}[{i}]"));
                }
            }
            None => {
                bits.insert(name);
            }
        }
    }
    bits
}

#[test]
fn xdc_pins_match_the_wrapper_ports() {
    let xdc = std::fs::read_to_string(board().join("alveo-u250.xdc")).unwrap();
    let mut pinned = BTreeSet::new();
    for line in xdc.lines().filter(|l| l.contains("PACKAGE_PIN")) {
        let a = line.find("get_ports").unwrap() + "get_ports".len();
        let name = line[a..]
            .trim()
            .trim_end_matches(']')
            .trim()
            .trim_matches(|c| c == '{' || c == '}')
            .to_string();
        pinned.insert(name);
    }
    let ports = wrapper_port_bits();
    assert!(ports.len() > 70, "{ports:?}");
    let unpinned: Vec<_> = ports.difference(&pinned).collect();
    assert!(
        unpinned.is_empty(),
        "wrapper ports without a pin: {unpinned:?}"
    );
    let unused: BTreeSet<String> = pinned.difference(&ports).cloned().collect();
    let expected: BTreeSet<String> = (1..4)
        .flat_map(|i| ["rx_p", "rx_n", "tx_p", "tx_n"].map(|s| format!("qsfp0_{s}[{i}]")))
        .collect();
    assert_eq!(unused, expected, "XDC pins the wrapper does not use");
}

fn require_tclsh() -> bool {
    require(
        "tclsh",
        Command::new("tclsh").arg("/dev/null"),
        "bash scripts/install-tools.sh",
    )
}

#[test]
fn xdc_passes_xdc_check() {
    if !require_tclsh() {
        return;
    }
    let (ok, text) = run(Command::new("tclsh")
        .arg(workspace_root().join("constraints/xdc_check.tcl"))
        .arg(board().join("alveo-u250.xdc")));
    assert!(ok, "xdc_check.tcl:\n{text}");
    assert!(text.contains("ports placed"), "{text}");
}

/// `build.tcl` is complete Tcl (`info complete`) and, run with the Vivado commands it uses
/// replaced by recorders, calls them in the order of a non-project build with the files and
/// IP this repository defines.
#[test]
fn build_tcl_parses_and_runs_the_flow() {
    if !require_tclsh() {
        return;
    }
    let script = board().join("build.tcl");
    let dir = tmp("tcl");
    std::fs::create_dir_all(&dir).unwrap();
    let harness = dir.join("dry_run.tcl");
    // Every Vivado command build.tcl may call, recorded with its first argument; anything
    // else is an unknown command and fails the run.
    let vivado = [
        "create_project",
        "set_part",
        "read_verilog",
        "read_xdc",
        "create_ip",
        "set_property",
        "get_ips",
        "generate_target",
        "synth_ip",
        "get_files",
        "synth_design",
        "opt_design",
        "place_design",
        "phys_opt_design",
        "route_design",
        "report_timing_summary",
        "report_utilization",
        "report_drc",
        "write_checkpoint",
        "write_bitstream",
        "current_design",
        "get_ports",
        "get_clocks",
    ];
    let mut h = String::new();
    h += &format!("set text [read [open {{{}}}]]\n", script.display());
    h += "if {![info complete $text]} { puts stderr \"build.tcl: incomplete\"; exit 1 }\n";
    h += "set ::calls {}\n";
    for c in vivado {
        h += &format!(
            "proc {c} {{args}} {{ lappend ::calls [concat {c} $args]; return {c}_result }}\n"
        );
    }
    // the emitted files only need to exist for the dry run
    let nic = dir.join("nic");
    std::fs::create_dir_all(&nic).unwrap();
    for f in ["ferroce_nic_64.v", "ferroce_dma_axi4_64.v"] {
        std::fs::write(nic.join(f), "").unwrap();
    }
    h += &format!(
        "set argv [list {{{}}} {{{}}}]\nset argc 2\n",
        nic.display(),
        dir.join("out").display()
    );
    h += &format!("cd {{{}}}\n", board().display());
    // as if Vivado were sourcing it: build.tcl finds the wrapper and XDC beside itself
    h += &format!("info script {{{}}}\n", script.display());
    h += "if {[catch {eval $text} err]} { puts stderr \"build.tcl: $err\"; exit 1 }\n";
    h += "foreach c $::calls { puts $c }\n";
    std::fs::write(&harness, h).unwrap();
    let (ok, text) = run(Command::new("tclsh").arg(&harness));
    assert!(ok, "build.tcl dry run:\n{text}");
    let calls: Vec<&str> = text.lines().collect();
    let wrapper = std::fs::read_to_string(board().join("ferroce_u250_top.v")).unwrap();
    // the last call of each (utilisation is also reported after synthesis)
    let pos = |c: &str| {
        calls
            .iter()
            .rposition(|l| l.starts_with(c))
            .unwrap_or_else(|| panic!("build.tcl never calls {c}:\n{text}"))
    };
    // the IP, the sources, then the implementation steps in order
    for (ip, module) in [
        ("xdma", "xdma_0"),
        ("xxv_ethernet", "xxv_eth_0"),
        ("axi_dwidth_converter", "axi_bar_dwidth"),
        ("axi_protocol_converter", "axi_bar_lite"),
        ("axi_dwidth_converter", "axi_dma_dwidth"),
    ] {
        let made = calls.iter().any(|l| {
            l.starts_with("create_ip")
                && l.contains(&format!("-name {ip} "))
                && l.contains(&format!("-module_name {module} "))
        });
        assert!(made, "no {ip} IP named {module}:\n{text}");
        // the wrapper instantiates it under that name (its stub has the same module name)
        assert!(
            wrapper.contains(&format!("\n    {module} u_")),
            "the wrapper does not instantiate {module}"
        );
    }
    assert!(
        calls
            .iter()
            .any(|l| l.contains("CONFIG.functional_mode AXI_Bridge")),
        "{text}"
    );
    for f in [
        "ferroce_u250_top.v",
        "alveo-u250.xdc",
        "ferroce_nic_64.v",
        "ferroce_dma_axi4_64.v",
    ] {
        assert!(text.contains(f), "build.tcl does not read {f}:\n{text}");
    }
    let order = [
        "synth_design",
        "opt_design",
        "place_design",
        "route_design",
        "report_timing_summary",
        "report_utilization",
        "write_bitstream",
    ];
    let p: Vec<usize> = order.iter().map(|c| pos(c)).collect();
    assert!(
        p.windows(2).all(|w| w[0] < w[1]),
        "flow out of order: {order:?} at {p:?}"
    );
}
