//! `ferroce dcqcn-trace` against the reference model of the DCQCN reaction point
//! (`dcqcn_rp.py`, run with python3 from `<workspace>/../shared/oracles/`): the hardware block must
//! print exactly the model's samples on the model's own self-test sequences and on random traces
//! of its generator, for several parameter sets; bad input exits 2 naming the line and field.
use std::path::PathBuf;
use std::process::{Command, Output};

/// `<workspace>/../shared/oracles/dcqcn_rp.py`, or under `$FERROCE_SHARED` if set (a checkout
/// whose shared/ directory lives elsewhere).
fn oracle() -> PathBuf {
    let shared = std::env::var_os("FERROCE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let p = shared.join("oracles/dcqcn_rp.py");
    assert!(
        p.is_file(),
        "the DCQCN reference model {} is missing (the shared/ directory beside the workspace)",
        p.display()
    );
    p
}

fn verilator() -> bool {
    ferroce_testkit::require_tool("verilator")
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferroce_cli_dcqcn_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run_ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn python(args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(oracle())
        .args(args)
        .output()
        .expect("python3 (apt-get install -y python3)");
    run_ok(out, &format!("dcqcn_rp.py {args:?}"))
}

fn ferroce(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(args)
        .output()
        .unwrap()
}

/// Run a trace through both; they must print the same lines (and at least one sample).
fn compare(name: &str, trace: &str, params: &str) {
    compare_on(name, trace, params, "verilator")
}

fn compare_on(name: &str, trace: &str, params: &str, engine: &str) {
    let tp = tmp(&format!("{name}.jsonl"), trace);
    let pp = tmp(&format!("{name}.json"), params);
    let (t, p) = (tp.to_str().unwrap(), pp.to_str().unwrap());
    let want = python(&["--trace", t, "--params", p]);
    let got = run_ok(
        ferroce(&["dcqcn-trace", "--in", t, "--params", p, "--engine", engine]),
        "ferroce dcqcn-trace",
    );
    assert!(want.lines().count() > 0, "{name}: no samples");
    let name = format!("{name} ({engine})");
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(g, w, "{name}: sample {} differs (params {params})", i + 1);
    }
    assert_eq!(
        got.lines().count(),
        want.lines().count(),
        "{name}: sample count"
    );
}

/// A trace from `(t, events)` ticks: "cnp", a byte count, and a sample after each tick.
fn ticks(ticks: &[(u64, Vec<&str>)]) -> String {
    let mut s = String::new();
    for (t, evs) in ticks {
        for e in evs {
            match *e {
                "cnp" => s += &format!("{{\"t\": {t}, \"ev\": \"cnp\"}}\n"),
                n => s += &format!("{{\"t\": {t}, \"ev\": \"bytes\", \"n\": {n}}}\n"),
            }
        }
        s += &format!("{{\"t\": {t}, \"ev\": \"sample\"}}\n");
    }
    s
}

#[test]
fn self_test_sequences() {
    if !verilator() {
        return;
    }
    // The model's first sequence (isekai's RateUpdate: first CNP rate 85000, min rate 100),
    // with a sample after every tick it checks, then 1000 CNPs one microsecond apart.
    let b = (32767u64 * 64).to_string();
    let b2 = (2 * 32767u64 * 64).to_string();
    let mut seq: Vec<(u64, Vec<&str>)> = vec![
        (0, vec!["cnp"]),
        (300, vec![]),
        (301, vec!["cnp"]),
        (302, vec![]),
        (304, vec![]),
        (305, vec!["cnp"]),
        (308, vec![]),
        (607, vec![]),
        (608, vec![]),
        (609, vec!["cnp"]),
        (612, vec![]),
        (613, vec![&b, "cnp"]),
        (616, vec![]),
        (617, vec![&b2]),
        (916, vec![]),
        (1216, vec![]),
        (1516, vec![]),
        (1517, vec!["cnp"]),
        (1520, vec![]),
    ];
    seq.extend((1521..2521).map(|t| (t, vec!["cnp"])));
    compare(
        "rate_update",
        &ticks(&seq),
        r#"{"rate_to_set_on_first_cnp": 85000, "rpg_min_rate": 100}"#,
    );
    // A cut at the increase timer's expiry: the increase first, the cut clamps Rt to it. On
    // both engines (the rust-hdl block itself, and its Verilog).
    let expiry = ticks(&[
        (0, vec!["cnp"]),
        (1, vec!["cnp"]),
        (303, vec!["cnp"]),
        (304, vec![]),
        (305, vec![]),
    ]);
    for engine in ["verilator", "rust-hdl"] {
        let params = r#"{"rate_to_set_on_first_cnp": 50000}"#;
        compare_on("cut_at_expiry", &expiry, params, engine);
    }
    // 10 MiB before the first CNP count nothing; with the byte counter off neither after.
    let mib10 = (5u64 << 21).to_string();
    let before = ticks(&[
        (0, vec![&mib10]),
        (7, vec!["cnp", &mib10]),
        (8, vec![&mib10]),
        (400, vec![]),
    ]);
    compare("bytes_before_first_cnp", &before, "{}");
    compare("byte_counter_off", &before, r#"{"rpg_byte_reset": 0}"#);
}

#[test]
fn random_traces() {
    if !verilator() {
        return;
    }
    for (k, params) in [
        "{}",
        r#"{"rate_to_set_on_first_cnp": 85000, "rpg_min_rate": 100}"#,
        r#"{"clamp_tgt_rate": 1, "rpg_threshold": 3, "rpg_max_rate": 40000, "line_rate_mbps": 25000}"#,
        r#"{"rpg_byte_reset": 150, "rpg_gd": 8, "rpg_min_dec_fac": 80, "dce_tcp_rtt": 3, "rate_reduce_monitor_period": 7, "rpg_time_reset": 55, "clamp_tgt_rate_after_time_inc": 0, "initial_alpha_value": 600, "dce_tcp_g": 900, "rpg_ai_rate": 40, "rpg_hai_rate": 400}"#,
    ]
    .iter()
    .enumerate()
    {
        let pp = tmp(&format!("gen{k}.json"), params);
        for seed in [k as u64 * 10 + 1] {
            let trace = python(&[
                "--gen",
                &seed.to_string(),
                "800",
                "--params",
                pp.to_str().unwrap(),
            ]);
            compare(&format!("gen{k}_{seed}"), &trace, params);
        }
    }
}

#[test]
fn bad_input_names_line_and_field() {
    for (trace, params, want) in [
        (
            "{\"t\": 0, \"ev\": \"cnp\"}\n{\"t\": 1, \"ev\": \"bytes\", \"n\": -4}\n",
            "{}",
            "line 2: field 'n'",
        ),
        (
            "{\"t\": 5, \"ev\": \"cnp\"}\n{\"t\": 4, \"ev\": \"cnp\"}\n",
            "{}",
            "line 2: field 't'",
        ),
        (
            "{\"t\": 0, \"ev\": \"pause\"}\n",
            "{}",
            "line 1: field 'ev'",
        ),
        ("not json\n", "{}", "line 1: not JSON"),
        (
            "{\"t\": 0, \"ev\": \"cnp\"}\n",
            r#"{"rpg_gd": 40}"#,
            "field 'rpg_gd': 40 out of range",
        ),
        (
            "{\"t\": 0, \"ev\": \"cnp\"}\n",
            r#"{"rpg_time_reset": 0}"#,
            "field 'rpg_time_reset'",
        ),
        (
            "{\"t\": 0, \"ev\": \"cnp\"}\n",
            r#"{"rpg_foo": 1}"#,
            "field 'rpg_foo': unknown",
        ),
        (
            "{\"t\": 0, \"ev\": \"cnp\"}\n",
            r#"{"first_cnp_cuts": true}"#,
            "field 'first_cnp_cuts'",
        ),
    ] {
        let tp = tmp("bad.jsonl", trace);
        let pp = tmp("bad.json", params);
        let out = ferroce(&[
            "dcqcn-trace",
            "--in",
            tp.to_str().unwrap(),
            "--params",
            pp.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{trace} {params}: {err}");
        assert!(
            err.contains(want),
            "{trace} {params}: want '{want}' in: {err}"
        );
        assert!(out.stdout.is_empty(), "nothing printed on bad input");
    }
}

/// `--vcd` on the rust-hdl engine: the same samples as without it, and the window asked for,
/// one dump a cycle, with the block's hierarchical names, in which its state machine runs (CNPs
/// cut the rate, the timers run).
#[test]
fn vcd_of_the_reaction_point() {
    let trace = tmp(
        "vcd_trace.jsonl",
        "{\"t\": 0, \"ev\": \"bytes\", \"n\": 100000}\n{\"t\": 1, \"ev\": \"cnp\"}\n\
         {\"t\": 2, \"ev\": \"sample\"}\n{\"t\": 5, \"ev\": \"cnp\"}\n{\"t\": 10, \"ev\": \"sample\"}\n",
    );
    let trace = trace.to_str().unwrap();
    let vcd = tmp("rp.vcd", "");
    let (from, cycles) = (10u64, 300u64);
    let plain = ferroce(&["dcqcn-trace", "--in", trace, "--engine", "rust-hdl"]);
    let plain = run_ok(plain, "dcqcn-trace");
    assert_eq!(plain.lines().count(), 2, "{plain}");
    let mut args = vec!["dcqcn-trace", "--in", trace, "--engine", "rust-hdl"];
    let options = ferroce_testkit::vcd::vcd_options(&vcd, from, cycles);
    args.extend(options.iter().map(String::as_str));
    assert_eq!(run_ok(ferroce(&args), "dcqcn-trace --vcd"), plain);
    let v = ferroce_testkit::vcd::read_vcd(&vcd);
    v.assert_window("dcqcn-trace", from, cycles, ferroce_sim::vcd::PERIOD_PS, 1);
    assert!(v.names.values().flatten().all(|n| n.starts_with("uut.")));
    assert!(v.changes_of("uut.state.q") > 0, "state machine constant");
}
