//! `ferroce bench --quick --json`: every row's frames went through the engines correctly (the
//! command itself fails otherwise) and the numbers are sane: no engine beats the ideal
//! ceil(bytes/8) of the 64-bit datapath.

use std::process::Command;

use serde_json::Value;

#[test]
fn bench_reports_cycles_per_frame_for_every_size_and_path() {
    let verilator = Command::new("verilator").arg("--version").output().is_ok();
    if !verilator {
        assert!(std::env::var_os("CI").is_none(), "CI must have Verilator");
    }
    let mut args = vec!["bench", "--quick", "--json"];
    if !verilator {
        args.push("--no-verilator");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let engines = if verilator { 2 } else { 1 };
    assert_eq!(rows.len(), 8 * 2 * engines);
    for row in rows {
        let per_frame = row["cycles_per_frame"].as_f64().unwrap();
        let ideal = row["ideal_cycles_per_frame"].as_f64().unwrap();
        assert!(per_frame >= ideal, "{row}");
        assert!(row["sim_cycles_per_second"].as_f64().unwrap() > 0.0);
    }
}
