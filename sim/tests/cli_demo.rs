//! The main scenario (`ferroce demo`): with a clean link every message arrives byte for byte;
//! with bit errors exactly the corrupted frames are dropped and the rest still verify.

use std::process::Command;

use serde_json::Value;

fn demo(args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .arg("demo")
        .args(args)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), report)
}

#[test]
fn clean_link_delivers_every_message() {
    let (code, r) = demo(&[
        "--messages",
        "4",
        "--size",
        "3000",
        "--pmtu",
        "512",
        "--corrupt",
        "0",
    ]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["messages_verified"], 4);
    assert_eq!(r["packets"], 4 * 6);
    assert_eq!(r["accepted"], 24);
    assert_eq!(r["rx_hardware_counters"]["bad_icrc"], 0);
}

#[test]
fn corrupted_frames_are_dropped_and_counted() {
    let (code, r) = demo(&[
        "--messages",
        "4",
        "--size",
        "2000",
        "--corrupt",
        "3",
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["frames_corrupted_on_link"], 3);
    assert_eq!(r["dropped_by_icrc_or_length"], 3);
    assert_eq!(r["accepted"], r["packets"].as_u64().unwrap() - 3);
    let hit = r["messages_hit_by_corruption"].as_u64().unwrap();
    assert!((1..=3).contains(&hit));
    assert_eq!(r["messages_verified"].as_u64().unwrap() + hit, 4);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["demo", "--pmtu", "1000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pmtu 1000"));
}
