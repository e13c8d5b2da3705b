//! `ferroce verilog --out DIR` writes one Verilog file per top-level block and board top level,
//! each defining the module it is named after (the Verilog itself is checked by the hdl crate's tool tests).

use std::path::PathBuf;
use std::process::Command;

#[test]
fn writes_every_top_level_block() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_verilog");
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["verilog", "--out"])
        .arg(&out)
        .status()
        .expect("run ferroce");
    assert!(status.success());
    let expected: Vec<String> = ferroce_hdl::verilog::all_blocks()
        .into_iter()
        .chain(ferroce_hdl::verilog::board_tops())
        .map(|e| e.module)
        .collect();
    assert!(!expected.is_empty());
    for module in &expected {
        let text = std::fs::read_to_string(out.join(format!("{module}.v")))
            .unwrap_or_else(|e| panic!("{module}.v: {e}"));
        assert!(
            text.contains(&format!("module {module}")),
            "{module}.v lacks its module"
        );
    }
    let written = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(written, expected.len());
}

#[test]
fn unwritable_output_is_a_clear_error() {
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_verilog_not_a_dir");
    std::fs::write(&file, b"x").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["verilog", "--out"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cli_verilog_not_a_dir"));
}
