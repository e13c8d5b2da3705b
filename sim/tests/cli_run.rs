//! `ferroce run FILE`: every scenario file in `scenarios/` runs (each is one of the examples
//! docs/SCENARIOS.md shows), and what its summary says is checked against the file itself
//! (messages per operation, request packets from sizes and the path MTU), against the capture
//! it wrote (frames, CE marks, request packets per operation, counted here from the pcap) and
//! against the switches' and hosts' counters. Broken files exit 2 with the line and the field
//! named, having run and written nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use ferroce_sim::plot::{COLOURS, FRAME, QUEUE_COLOUR};
use ferroce_testkit::RgbImage;
use serde_json::Value;

fn ferroce(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(args)
        .output()
        .unwrap()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .into()
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(workspace().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "the example scenarios are missing");
    v
}

/// A RoCEv2 request's operation from its BTH opcode (RC), as the test counts it.
fn request_family(op: u8) -> Option<&'static str> {
    match op {
        0x00..=0x05 => Some("send"),
        0x06..=0x0b => Some("write"),
        0x0c => Some("read_request"),
        0x13 | 0x14 => Some("atomic"),
        _ => None,
    }
}

/// Frames of a capture: (source IPv4 or none, BTH opcode if RoCEv2, CE, UDP source port).
fn read_capture(path: &Path) -> Vec<(Option<[u8; 4]>, Option<u8>, bool, u16)> {
    let cap = ferroce_proto::pcap::read_file(path).expect("the pcap reads");
    cap.frames()
        .map(|f| {
            if f.len() < 34 || f[12..14] != [0x08, 0x00] {
                return (None, None, false, 0);
            }
            let src: [u8; 4] = f[26..30].try_into().unwrap();
            let ce = f[15] & 3 == 3;
            let u = 14 + (f[14] & 15) as usize * 4;
            let roce = f[23] == 17
                && f.len() >= u + 20
                && u16::from_be_bytes([f[u + 2], f[u + 3]]) == 4791;
            let sport = if f.len() >= u + 2 {
                u16::from_be_bytes([f[u], f[u + 1]])
            } else {
                0
            };
            (Some(src), roce.then(|| f[u + 8]), ce, sport)
        })
        .collect()
}

fn ip_of(s: &str) -> [u8; 4] {
    let v: Vec<u8> = s.split('.').map(|x| x.parse().unwrap()).collect();
    v.try_into().unwrap()
}

/// Request packets a host's workloads need (no retransmission): per family.
fn expected_requests(host: &toml::Value, pmtu: u64) -> BTreeMap<&'static str, u64> {
    let mut m = BTreeMap::new();
    for w in host
        .get("workloads")
        .and_then(|w| w.as_array())
        .into_iter()
        .flatten()
    {
        let count = w["count"].as_integer().unwrap() as u64;
        let size = w["size"].as_integer().unwrap() as u64;
        let packets = size.div_ceil(pmtu).max(1);
        let (fam, n) = match w["op"].as_str().unwrap() {
            "write" | "write_imm" => ("write", count * packets),
            "send" | "send_imm" => ("send", count * packets),
            "read" => ("read_request", count),
            _ => ("atomic", count),
        };
        *m.entry(fam).or_default() += n;
    }
    m
}

/// rates.png: the plot's size, curves in the rates panel (returns how many series colours
/// are drawn there), the queue's curve in the queue panel when there are switches.
fn check_png(path: &Path, name: &str, switches: bool) -> usize {
    let img = RgbImage::read_png(path);
    assert_eq!((img.w, img.h), (FRAME.w as u32, FRAME.h as u32), "{name}");
    let (a, b) = FRAME.inside(0);
    let colours = img.colours_present(a, b, &COLOURS, 5).len();
    assert!(colours >= 1, "{name}: no rate curve in rates.png");
    // (back to back, there is no switch and no queue)
    let (a, b) = FRAME.inside(1);
    let queue = img.count(a, b, QUEUE_COLOUR);
    assert_eq!(
        queue > 50,
        switches,
        "{name}: {queue} pixels of the queue curve"
    );
    colours
}

fn check_example(file: &Path) {
    let name = file.file_stem().unwrap().to_str().unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("run-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let out = ferroce(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    let s: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name}: {s}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        on_disk, s,
        "{name}: summary.json differs from the printed one"
    );
    let doc: toml::Value = toml::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let hosts = doc["hosts"].as_array().unwrap();
    let pmtu = doc
        .get("rdma")
        .and_then(|r| r.get("pmtu"))
        .and_then(|p| p.as_integer())
        .unwrap_or(1024) as u64;
    let ferroce: Vec<&toml::Value> = hosts
        .iter()
        .filter(|h| h["kind"].as_str() == Some("ferroce"))
        .collect();
    // messages: every one of the file's, each verified
    let mut per_op: BTreeMap<String, u64> = BTreeMap::new();
    for h in &ferroce {
        for w in h
            .get("workloads")
            .and_then(|w| w.as_array())
            .into_iter()
            .flatten()
        {
            *per_op.entry(w["op"].as_str().unwrap().into()).or_default() +=
                w["count"].as_integer().unwrap() as u64;
        }
    }
    let total: u64 = per_op.values().sum();
    assert_eq!(s["messages"], total, "{name}");
    assert_eq!(s["verified"], total, "{name}: {}", s["errors"]);
    assert_eq!(s["failed"], 0, "{name}");
    for (op, n) in &per_op {
        assert_eq!(s["operations"][op]["messages"], *n, "{name}: {op}");
        assert_eq!(s["operations"][op]["verified"], *n, "{name}: {op}");
    }
    if !ferroce.is_empty() {
        assert_eq!(s["engine"], "verilator");
    }
    let by_name = |n: &str| -> &Value {
        s["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == n)
            .unwrap()
    };
    let faulty = !s["faulty_links"].as_array().unwrap().is_empty();
    // the switches' CE marks all reach hosts (none lost on the way when no link is faulty)
    let rx_ce: u64 = s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["rx_ce"].as_u64().unwrap())
        .sum();
    if !faulty {
        assert_eq!(s["ecn"]["ce_marked_by_switches"], rx_ce, "{name}");
    }
    // each faulty link lost frames, and still every message arrived (checked above)
    for l in s["faulty_links"].as_array().unwrap() {
        let lost: u64 = l["lost"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert!(lost > 0, "{name}: {l}");
    }
    // plain traffic sources sent, and are said to be plain
    for (i, h) in hosts.iter().enumerate() {
        if h["kind"].as_str() == Some("traffic") {
            let sh = &s["hosts"][i];
            assert_eq!(sh["kind"], "plain traffic source (not a ferroce NIC)");
            assert!(sh["tx_frames"].as_u64().unwrap() > 0, "{name}: {sh}");
        }
    }
    let mut plotted = None;
    if doc
        .get("output")
        .and_then(|o| o.get("plot"))
        .and_then(|p| p.as_bool())
        != Some(false)
    {
        assert!(dir.join("rates.svg").is_file(), "{name}: rates.svg");
        let switches = doc["topology"]["kind"].as_str() != Some("back_to_back");
        plotted = Some(check_png(&dir.join("rates.png"), name, switches));
    }
    // the capture against the summary
    let Some(pcap_host) = doc
        .get("output")
        .and_then(|o| o.get("pcap"))
        .and_then(|p| p.as_str())
    else {
        return;
    };
    let frames = read_capture(&dir.join(format!("{pcap_host}.pcap")));
    let sh = by_name(pcap_host);
    let ip = ip_of(sh["ip"].as_str().unwrap());
    let sent = frames.iter().filter(|f| f.0 == Some(ip)).count() as u64;
    assert_eq!(
        sent,
        sh["tx_frames"].as_u64().unwrap(),
        "{name}: frames sent"
    );
    assert_eq!(
        frames.len() as u64 - sent,
        sh["rx_frames"].as_u64().unwrap(),
        "{name}: frames received"
    );
    // the plot draws one curve per flow of the first ferroce host: when that is the
    // captured host, one colour per UDP source port it sent from
    if let (Some(colours), Some(first)) = (&plotted, ferroce.first()) {
        if first["name"].as_str() == Some(pcap_host) {
            let flows: std::collections::BTreeSet<u16> = frames
                .iter()
                .filter(|f| f.0 == Some(ip))
                .map(|f| f.3)
                .collect();
            assert_eq!(
                *colours,
                flows.len().min(COLOURS.len()),
                "{name}: curves in rates.png"
            );
        }
    }
    let ce = frames.iter().filter(|f| f.0 != Some(ip) && f.2).count() as u64;
    assert_eq!(ce, sh["rx_ce"].as_u64().unwrap(), "{name}: CE received");
    assert_eq!(
        s["pcap_link"]["frames"],
        frames.len() as u64,
        "{name}: pcap_link"
    );
    // request packets of a ferroce host's link: what its workloads need plus what the NIC
    // says it retransmitted
    let Some(side) = ferroce
        .iter()
        .position(|h| h["name"].as_str() == Some(pcap_host))
    else {
        return;
    };
    let count = |from_us: bool| {
        let mut m: BTreeMap<&str, u64> = BTreeMap::new();
        for f in &frames {
            if (f.0 == Some(ip)) == from_us {
                if let Some(fam) = f.1.and_then(request_family) {
                    *m.entry(fam).or_default() += 1;
                }
            }
        }
        m
    };
    let sides = ["a", "b"];
    let check = |got: BTreeMap<&str, u64>, want: BTreeMap<&str, u64>, who: usize| {
        let retrans = s["retransmitted_packets"][sides[who]].as_u64().unwrap();
        let g: u64 = got.values().sum();
        let w: u64 = want.values().sum();
        assert_eq!(
            g,
            w + retrans,
            "{name}: request packets of {}: {got:?}, the workloads need {want:?}, {retrans} retransmitted",
            sides[who]
        );
        if retrans == 0 {
            assert_eq!(got, want, "{name}: request packets of {}", sides[who]);
        }
    };
    check(count(true), expected_requests(ferroce[side], pmtu), side);
    if !faulty {
        check(
            count(false),
            expected_requests(ferroce[1 - side], pmtu),
            1 - side,
        );
    }
}

#[test]
fn every_example_runs_and_its_summary_agrees_with_its_capture() {
    for f in examples() {
        check_example(&f);
    }
}

/// The docs show whole example files: each `toml` block of docs/SCENARIOS.md is one of
/// `scenarios/`, and each file there is shown.
#[test]
fn the_docs_show_every_example_file() {
    let doc = std::fs::read_to_string(workspace().join("docs/SCENARIOS.md")).unwrap();
    let mut blocks = Vec::new();
    let mut rest = doc.as_str();
    while let Some(i) = rest.find("```toml\n") {
        let body = &rest[i + 8..];
        let end = body.find("```").unwrap();
        blocks.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    let files: Vec<String> = examples()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for b in &blocks {
        assert!(
            files.contains(b),
            "a toml block of docs/SCENARIOS.md is not one of scenarios/:\n{b}"
        );
    }
    for (f, p) in files.iter().zip(examples()) {
        assert!(
            blocks.contains(f),
            "{} is not shown in docs/SCENARIOS.md",
            p.display()
        );
    }
}

const GOOD: &str = r#"[topology]
kind = "spine_leaf"
leaves = 2
spines = 2

[[hosts]]
name = "A"
kind = "ferroce"
leaf = 1

[[hosts.workloads]]
to = "B"
op = "write"
size = 4096
count = 4

[[hosts]]
name = "B"
kind = "ferroce"
leaf = 2

[[faults]]
link = ["Leaf-1", "Spine-1"]
loss = 0.01
"#;

#[test]
fn broken_files_name_the_line_and_the_field_and_run_nothing() {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("run-broken");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    // the good file is good
    let good = base.join("good.toml");
    std::fs::write(&good, GOOD).unwrap();
    let out = ferroce(&["run", good.to_str().unwrap(), "--check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let third = "\n[[hosts]]\nname = \"C\"\nkind = \"ferroce\"\nleaf = 1\n";
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "unknown field",
            GOOD.replace("count = 4", "count = 4\ncolour = \"red\""),
            vec!["line 16", "colour"],
        ),
        (
            "wrong type",
            GOOD.replace("size = 4096", "size = \"4 KiB\""),
            vec!["line 14", "size"],
        ),
        (
            "a leaf that does not exist",
            GOOD.replace("leaf = 2", "leaf = 3"),
            vec!["line 20", "hosts[1].leaf", "leaf 3"],
        ),
        (
            "a link that does not exist",
            GOOD.replace("[\"Leaf-1\", \"Spine-1\"]", "[\"Leaf-1\", \"Leaf-2\"]"),
            vec![
                "line 23",
                "faults[0].link",
                "no link joins 'Leaf-1' and 'Leaf-2'",
            ],
        ),
        (
            "a node that does not exist",
            GOOD.replace("\"Spine-1\"]", "\"Spine-3\"]"),
            vec!["line 23", "faults[0].link", "Spine-3"],
        ),
        (
            "a workload to nobody",
            GOOD.replace("to = \"B\"", "to = \"Z\""),
            vec!["line 12", "hosts[0].workloads[0].to", "'Z'"],
        ),
        (
            "an unknown operation",
            GOOD.replace("op = \"write\"", "op = \"wirte\""),
            vec!["line 13", "wirte"],
        ),
        (
            "three ferroce hosts",
            format!("{GOOD}{third}"),
            vec!["line 27", "hosts[2].kind", "at most 2"],
        ),
    ];
    for (what, text, want) in cases {
        let f = base.join("broken.toml");
        std::fs::write(&f, &text).unwrap();
        let dir = base.join("out");
        let out = ferroce(&["run", f.to_str().unwrap(), "--out", dir.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        for w in want {
            assert!(err.contains(w), "{what}: '{w}' not in: {err}");
        }
        assert!(out.stdout.is_empty(), "{what}: printed {:?}", out.stdout);
        assert!(!dir.exists(), "{what}: wrote {}", dir.display());
    }
}

/// A run that outlasts its `duration_us` stops there: the messages not completed count as
/// failed, the error says so, exit status 1.
#[test]
fn a_run_stops_at_its_duration() {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("run-duration");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let f = base.join("short.toml");
    // 64 writes of 64 KiB need 3.4 ms at 10 Gb/s: 100 us is far too short
    let text = GOOD
        .replace("size = 4096\ncount = 4", "size = 65536\ncount = 64")
        .replace("[topology]", "duration_us = 100\n\n[topology]");
    std::fs::write(&f, text).unwrap();
    let out = ferroce(&["run", f.to_str().unwrap(), "--json"]);
    let s: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(1), "{s}");
    let verified = s["verified"].as_u64().unwrap();
    assert!(verified < 64, "{s}");
    assert_eq!(s["failed"].as_u64().unwrap(), 64 - verified, "{s}");
    assert!(
        s["errors"][0].as_str().unwrap().contains("duration"),
        "{}",
        s["errors"]
    );
    // it stopped at 100 us of traffic (25 000 cycles), not long after
    let cycles = s["cycles"].as_u64().unwrap();
    assert!((25_000..26_000).contains(&cycles), "{cycles} cycles");
}

/// `run --vcd`: both ferroce NICs' waveforms over the window asked for (A's to the file, B's
/// beside it), read back by our reader, with the requester's and responder's state registers
/// changing inside it (the window covers the start of the messages).
#[test]
fn run_writes_both_nics_waveforms() {
    let d = std::env::temp_dir().join(format!("ferroce-cli-run-vcd-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let path = d.join("nic.vcd");
    let (from, cycles) = (2_000, 3_000);
    let file = workspace().join("scenarios/back-to-back.toml");
    let mut args = vec!["run".to_string(), file.to_string_lossy().into_owned()];
    args.extend(ferroce_testkit::vcd::vcd_options(&path, from, cycles));
    args.push("--json".into());
    let out = ferroce(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for p in [path.clone(), d.join("nic.b.vcd")] {
        let vcd = ferroce_testkit::vcd::read_vcd(&p);
        vcd.assert_window(
            &p.display().to_string(),
            from,
            cycles,
            ferroce_sim::vcd::PERIOD_PS,
            2,
        );
        assert!(
            vcd.changes_of(".dut.req.state$q") > 0,
            "{}: requester",
            p.display()
        );
        assert!(
            vcd.changes_of(".dut.resp.state$q") > 0,
            "{}: responder",
            p.display()
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
