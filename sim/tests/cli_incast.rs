//! `ferroce incast`: N whole ferroce NICs (the Verilator model of the hardware, driven through
//! the verbs API) write to one receiver NIC through one switch. The summary's numbers are
//! checked against what must hold whatever the NIC does: every message verified, goodput no
//! more than the bottleneck carries, Jain's index in (0, 1], utilisation in (0, 1], the
//! queue's percentiles ordered, the switch's PFC pausing and the same setting dropping with
//! PFC off; bad arguments exit 2 naming the argument.
//!
//! Needs Verilator (`apt-get install verilator`): without it the runs fail.
use std::process::Command;

use serde_json::Value;

fn ferroce(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(args)
        .output()
        .unwrap()
}

fn incast(args: &[&str]) -> Value {
    let mut all = vec!["incast", "--json"];
    all.extend_from_slice(args);
    let out = ferroce(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "ferroce {all:?} failed ({:?}): {stderr}",
        out.status
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("{k} is not a number: {}", v[k]))
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("{k} is not a count: {}", v[k]))
}

/// The checks every run's summary passes.
fn sane(s: &Value, senders: usize, gbps: f64) {
    for k in [
        "jain",
        "utilization",
        "drops",
        "queue_p99_bytes",
        "pfc_pauses",
        "cnps",
        "senders",
    ] {
        assert!(!s[k].is_null(), "key {k} missing: {s}");
    }
    let list = s["senders"].as_array().unwrap();
    assert_eq!(list.len(), senders);
    assert_eq!(u(s, "messages"), u(s, "verified"), "{}", s["errors"]);
    assert_eq!(u(s, "failed"), 0);
    let mut sum = 0.0;
    for x in list {
        let g = f(x, "goodput_gbps");
        assert!(g > 0.0, "{x}");
        assert_eq!(u(x, "messages"), u(x, "verified"));
        sum += g;
    }
    // payload goodput cannot exceed the bottleneck's line rate
    assert!(
        sum <= gbps,
        "goodput {sum} Gb/s over a {gbps} Gb/s bottleneck"
    );
    let j = f(s, "jain");
    assert!(j > 0.0 && j <= 1.0 + 1e-12, "jain {j}");
    let ut = f(s, "utilization");
    assert!(ut > 0.0 && ut <= 1.0 + 1e-9, "utilization {ut}");
    let (p50, p99, max) = (
        u(s, "queue_p50_bytes"),
        u(s, "queue_p99_bytes"),
        u(s, "queue_max_bytes"),
    );
    assert!(p50 <= p99 && p99 <= max, "queue {p50} {p99} {max}");
}

#[test]
fn two_to_one_saturates_the_bottleneck_and_pfc_pauses() {
    let t = std::time::Instant::now();
    let s = incast(&["--senders", "2", "--size", "64K", "--messages", "12"]);
    sane(&s, 2, 10.0);
    eprintln!(
        "2:1 64K x 12, PFC on: {:.1} s wall, utilization {}, jain {}, queue p99 {} max {}, drops {}, pauses {}, CE {}, CNPs {}",
        t.elapsed().as_secs_f64(),
        s["utilization"],
        s["jain"],
        s["queue_p99_bytes"],
        s["queue_max_bytes"],
        s["drops"],
        s["pfc_pauses"],
        s["ce_marks"],
        s["cnps"]
    );
    // two line-rate senders into one link: the queue grows past XOFF (256 KB per ingress)
    assert!(u(&s, "pfc_pauses") > 0, "{s}");
    assert!(u(&s, "queue_max_bytes") > 256_000);
    assert!(f(&s, "utilization") > 0.9, "{}", s["utilization"]);
    if s["nic_honours_pfc"].as_bool() == Some(true) {
        assert_eq!(u(&s, "drops"), 0, "lossless with PFC on both sides");
    }
}

#[test]
fn pfc_off_drops_where_pfc_on_pauses() {
    // a 1.3 MB buffer: a queue may hold about half of it, less than two 64 KB x 16 windows
    // queue, more than the 2 x 256 KB at which both ingress ports send XOFF
    let common = [
        "--senders",
        "2",
        "--size",
        "64K",
        "--messages",
        "12",
        "--buffer",
        "1300000",
        "--ecn",
        "off",
    ];
    let mut off = common.to_vec();
    off.extend(["--pfc", "off"]);
    let s = incast(&off);
    sane(&s, 2, 10.0);
    assert!(u(&s, "drops") > 0, "PFC off overflows: {s}");
    assert_eq!(u(&s, "pfc_pauses"), 0);
    let retransmitted: u64 = s["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| u(x, "retransmitted_packets"))
        .sum();
    assert!(retransmitted > 0, "drops are recovered by retransmission");
    let mut on = common.to_vec();
    on.extend(["--pfc", "on"]);
    let s = incast(&on);
    sane(&s, 2, 10.0);
    assert!(u(&s, "pfc_pauses") > 0, "{s}");
    if s["nic_honours_pfc"].as_bool() == Some(true) {
        assert_eq!(u(&s, "drops"), 0);
    }
}

#[test]
fn bad_arguments_exit_2_naming_the_argument() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let bad_key = dir.join("incast-bad-key.json");
    std::fs::write(&bad_key, r#"{"rpg_bogus": 1}"#).unwrap();
    let bad_key = bad_key.display().to_string();
    let bad_value = dir.join("incast-bad-value.json");
    std::fs::write(&bad_value, r#"{"rpg_ai_rate": -5}"#).unwrap();
    let bad_value = bad_value.display().to_string();
    for (args, word) in [
        (vec!["--senders", "0"], "--senders"),
        (vec!["--senders", "17"], "--senders"),
        (vec!["--size", "lots"], "--size"),
        (vec!["--size", "0"], "--size"),
        (vec!["--pfc", "maybe"], "--pfc"),
        (vec!["--dcqcn", "yes"], "--dcqcn"),
        (vec!["--ecn", "1"], "--ecn"),
        (vec!["--buffer", "10"], "--buffer"),
        (vec!["--pmtu", "1500"], "--pmtu"),
        (vec!["--messages", "0"], "--messages"),
        (vec!["--duration", "0"], "--duration"),
        (vec!["--engine", "spice"], "--engine"),
        (vec!["--senders", "x"], "--senders"),
        (
            vec!["--dcqcn-params", "no-such-file.json"],
            "--dcqcn-params",
        ),
        (vec!["--dcqcn-params", &bad_key], "rpg_bogus"),
        (vec!["--dcqcn-params", &bad_value], "rpg_ai_rate"),
    ] {
        let mut all = vec!["incast"];
        all.extend(args.iter().copied());
        let out = ferroce(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(word), "{all:?}: {err}");
    }
}

/// `--dcqcn on`: the senders' reaction points answer the receiver's CNPs with rate cuts (the
/// NICs' `CNT_RP_RATE_CUTS`), and every message still arrives; with `--dcqcn off` the same
/// incast makes no cut. `--dcqcn-params` reaches the NICs: with `rpg_min_rate` 4000 every
/// sender's rate as its NIC reports it (`CC_QP_RATE`) stays between that floor and the
/// link's 10 Gb/s (the cap `rpg_max_rate` the run gives the NICs), and is cut below the link.
#[test]
fn dcqcn_on_cuts_the_senders_rates() {
    let args = ["--senders", "2", "--size", "64K", "--messages", "8"];
    let params = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("incast-floor.json");
    std::fs::write(&params, r#"{"rpg_min_rate": 4000}"#).unwrap();
    let params = params.display().to_string();
    let mut on = args.to_vec();
    on.extend_from_slice(&["--dcqcn", "on", "--dcqcn-params", &params]);
    let s = incast(&on);
    sane(&s, 2, 10.0);
    assert_eq!(s["nic_dcqcn_rp"], true);
    let cuts: Vec<u64> = s["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["dcqcn_rate_cuts"].as_u64().unwrap())
        .collect();
    let cnps: Vec<u64> = s["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["cnps_received"].as_u64().unwrap())
        .collect();
    eprintln!(
        "--dcqcn on: CNPs received {cnps:?}, rate cuts {cuts:?}, utilisation {}",
        s["utilization"]
    );
    assert!(cnps.iter().all(|&c| c > 0), "{s}");
    assert!(cuts.iter().all(|&c| c > 0), "{s}");
    for x in s["senders"].as_array().unwrap() {
        let min = x["rate_min_mbps"].as_u64().unwrap();
        let fin = x["rate_final_mbps"].as_u64().unwrap();
        assert!((4000..10_000).contains(&min), "{x}");
        assert!((4000..=10_000).contains(&fin), "{x}");
    }
    let off = incast(&args);
    for x in off["senders"].as_array().unwrap() {
        assert_eq!(x["dcqcn_rate_cuts"], 0, "{off}");
        // no limiter: the link's rate, never sampled (the reaction point is off)
        assert_eq!(x["rate_final_mbps"], 10_000, "{x}");
        assert!(x["rate_min_mbps"].is_null(), "{x}");
    }
}
