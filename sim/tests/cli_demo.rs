//! The main scenario (`ferroce demo`): two ferroce NICs on a spine-leaf fabric. One run with
//! the defaults (the command the README shows), then its outputs checked against each other:
//! every message verified, both spines carry A's QPs, the switches mark and the NIC receives
//! CE-marked packets, the summary's numbers agree with the frames in `a.pcap` (packets per
//! operation, CE marks, the UDP source ports seen on each spine), tshark opens the capture and
//! the ICRC oracle accepts every RoCE frame in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use ferroce_testkit::require_tool;
use serde_json::Value;

fn ferroce(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(args)
        .output()
        .unwrap()
}

/// `ferroce demo ARGS --out DIR --json` (DIR emptied first), which must exit 0: its summary.
fn demo_json(dir: &Path, args: &[&str]) -> Value {
    let _ = std::fs::remove_dir_all(dir);
    let mut all = vec!["demo"];
    all.extend_from_slice(args);
    all.extend(["--out", dir.to_str().unwrap(), "--json"]);
    let out = ferroce(&all);
    let s: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{s}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s
}

/// The frames of a capture that tshark reads (and that match its display `filter`).
fn tshark_frames(pcap: &Path, filter: Option<&str>) -> u64 {
    let mut args = vec!["-r", pcap.to_str().unwrap()];
    if let Some(f) = filter {
        args.extend(["-Y", f]);
    }
    args.extend(["-T", "fields", "-e", "frame.number"]);
    let t = Command::new("tshark").args(&args).output().unwrap();
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    String::from_utf8_lossy(&t.stdout).lines().count() as u64
}

/// One frame of a.pcap as the test reads it (independently of the fabric's parser).
struct Seen {
    from_a: bool,
    to_a: bool,
    sport: u16,
    opcode: u8,
    ce: bool,
}

fn read_capture(path: &Path) -> Vec<Seen> {
    let cap = ferroce_proto::pcap::read_file(path).expect("a.pcap reads");
    let mut out = Vec::new();
    for f in cap.frames() {
        // RoCEv2 over IPv4 only (the demo's addresses)
        if f.len() < 14 + 20 + 8 + 12 || f[12..14] != [0x08, 0x00] || f[23] != 17 {
            continue;
        }
        let ihl = (f[14] & 15) as usize * 4;
        let u = 14 + ihl;
        if u16::from_be_bytes([f[u + 2], f[u + 3]]) != 4791 {
            continue;
        }
        out.push(Seen {
            from_a: f[26..30] == [10, 0, 1, 10],
            to_a: f[30..34] == [10, 0, 1, 10],
            sport: u16::from_be_bytes([f[u], f[u + 1]]),
            opcode: f[u + 8],
            ce: f[15] & 3 == 3,
        });
    }
    out
}

fn family(op: u8) -> &'static str {
    match op {
        0x00..=0x05 => "send",
        0x06..=0x0b => "write",
        0x0c => "read_request",
        0x0d..=0x10 => "read_response",
        0x11 => "ack",
        0x81 => "cnp",
        _ => "other",
    }
}

/// rates.png: its size, one curve per QP of A in the rates panel (each in its series
/// colour), the congested queue's curve in the queue panel.
fn check_png(path: &Path, qps: usize) {
    use ferroce_sim::plot::{COLOURS, FRAME, QUEUE_COLOUR};
    let img = ferroce_testkit::RgbImage::read_png(path);
    assert_eq!((img.w, img.h), (FRAME.w as u32, FRAME.h as u32));
    let (a, b) = FRAME.inside(0);
    let drawn = img.colours_present(a, b, &COLOURS, 5);
    assert_eq!(
        drawn.len(),
        qps.min(COLOURS.len()),
        "series colours drawn: {drawn:?}"
    );
    let (a, b) = FRAME.inside(1);
    assert!(
        img.count(a, b, QUEUE_COLOUR) > 100,
        "no queue curve in rates.png"
    );
}

#[test]
fn demo_runs_and_its_summary_agrees_with_its_capture() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-out");
    let s = demo_json(&dir, &[]);
    for f in ["a.pcap", "rates.svg", "rates.png", "summary.json"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    check_png(&dir.join("rates.png"), s["qps"].as_u64().unwrap() as usize);
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(on_disk, s, "summary.json differs from the printed summary");
    assert_eq!(s["engine"], "verilator");
    // every message verified: WRITE, READ and SEND, 8 QPs
    let messages = s["messages"].as_u64().unwrap();
    assert_eq!(messages, 96);
    assert_eq!(s["verified"], messages);
    assert_eq!(s["failed"], 0);
    for op in ["write", "read", "send"] {
        assert_eq!(s["operations"][op]["messages"], 32, "{op}");
        assert_eq!(s["operations"][op]["verified"], 32, "{op}");
        let p50 = s["operations"][op]["latency_us"]["p50"].as_f64().unwrap();
        let p99 = s["operations"][op]["latency_us"]["p99"].as_f64().unwrap();
        assert!(p50 > 0.0 && p99 >= p50, "{op}: {p50} {p99}");
    }
    // the congestion: marks at the switches, CE-marked packets reach B's NIC, switches pause
    // each other
    assert!(
        s["ecn"]["ce_marked_by_switches"].as_u64().unwrap() > 0,
        "{s}"
    );
    assert!(s["ecn"]["ce_received"]["b"].as_u64().unwrap() > 0, "{s}");
    let congested = s["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["port"] == "Spine-1 -> Leaf-2")
        .expect("Spine-1's port toward Leaf-2 congested");
    assert!(congested["peak_bytes"].as_u64().unwrap() > 200_000);
    assert!(congested["ce_marked"].as_u64().unwrap() > 0);
    // B's notification point answers the marked packets with CNPs
    assert!(s["cnps"]["sent"]["b"].as_u64().unwrap() > 0, "{s}");
    assert!(
        s["cnps"]["sent"]["b"].as_u64().unwrap() <= s["ecn"]["ce_received"]["b"].as_u64().unwrap(),
        "{s}"
    );
    // A's reaction point answers B's CNPs with rate cuts (the NIC's counter)
    assert_eq!(s["dcqcn"]["reaction_point"], true, "{s}");
    assert!(
        s["dcqcn"]["rate_cuts"]["a"].as_u64().unwrap() > 0,
        "{}",
        s["dcqcn"]
    );
    // the NICs run PFC (ID_CAPS.PFC) and, at 10 Gb/s host links, never run out of room
    assert_eq!(s["pfc"]["nics"]["on"], true, "{}", s["pfc"]);
    for side in ["a", "b"] {
        assert_eq!(s["pfc"]["nics"]["dropped_no_room"][side], 0, "{}", s["pfc"]);
    }

    // the capture against the summary
    let frames = read_capture(&dir.join("a.pcap"));
    let mut sent: BTreeMap<&str, u64> = BTreeMap::new();
    let mut received: BTreeMap<&str, u64> = BTreeMap::new();
    let mut ce_to_a = 0;
    let mut sports = BTreeSet::new();
    for f in &frames {
        if f.from_a {
            *sent.entry(family(f.opcode)).or_default() += 1;
            if family(f.opcode) != "ack" {
                sports.insert(f.sport);
            }
        }
        if f.to_a {
            *received.entry(family(f.opcode)).or_default() += 1;
            ce_to_a += u64::from(f.ce);
        }
    }
    for (k, v) in &sent {
        assert_eq!(s["a_link"]["sent"][*k], *v, "A sent {k}");
    }
    for (k, v) in &received {
        assert_eq!(s["a_link"]["received"][*k], *v, "A received {k}");
    }
    assert_eq!(s["ecn"]["ce_received"]["a"], ce_to_a);
    // packets per operation: 16 KiB at PMTU 1024 is 16 packets, plus what was retransmitted
    let resent = s["retransmitted_packets"]["a"].as_u64().unwrap();
    assert_eq!(sent["write"] + sent["send"], 2 * 32 * 16 + resent);
    assert!(sent["read_request"] >= 32);
    assert_eq!(
        received["read_response"],
        32 * 16 + s["retransmitted_packets"]["b"].as_u64().unwrap()
    );
    // the CNPs on A's link are the ones the NICs counted (the fabric loses none)
    assert_eq!(
        sent.get("cnp").copied().unwrap_or(0),
        s["cnps"]["sent"]["a"].as_u64().unwrap()
    );
    assert_eq!(
        received.get("cnp").copied().unwrap_or(0),
        s["cnps"]["received"]["a"].as_u64().unwrap()
    );
    assert_eq!(s["cnps"]["received"]["a"], s["cnps"]["sent"]["b"]);
    // the UDP source ports A used: one per QP, each seen on exactly one spine, both spines used
    let mut on_spines = BTreeSet::new();
    for spine in ["Spine-1", "Spine-2"] {
        let ports: Vec<u64> = s["spines"][spine]["udp_sports_from_a"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert!(!ports.is_empty(), "{spine} carried none of A's QPs");
        assert!(s["spines"][spine]["frames_from_a"].as_u64().unwrap() > 0);
        for p in ports {
            assert!(on_spines.insert(p as u16), "port {p} on two spines");
        }
    }
    assert_eq!(on_spines, sports, "UDP source ports in a.pcap vs per spine");
    assert_eq!(sports.len(), 8);

    // outside tools: tshark reads every frame, the ICRC oracle accepts every RoCE frame
    if require_tool("tshark") {
        let n = tshark_frames(&dir.join("a.pcap"), None);
        assert_eq!(n, s["a_link"]["frames"].as_u64().unwrap());
    }
    let oracle =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracles/check_pcap_icrc.py");
    // the shared reference folder sits beside the project in CI; elsewhere it may not
    let have_oracle = oracle.is_file();
    assert!(
        have_oracle || std::env::var_os("CI").is_none(),
        "CI must have the ICRC oracle at {}",
        oracle.display()
    );
    if !have_oracle {
        eprintln!(
            "note: {} not present; skipping the ICRC oracle",
            oracle.display()
        );
    } else if require_tool("/usr/bin/python3") {
        // Debian's python3 with python3-scapy (scripts/install-tools.sh)
        let o = Command::new("/usr/bin/python3")
            .arg(&oracle)
            .arg(dir.join("a.pcap"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!text.contains("'bad'"), "ICRC oracle: {text}");
        assert!(
            text.contains(&format!("'ok': {}", frames.len())),
            "ICRC oracle: {text}"
        );
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    let out = ferroce(&["demo", "--pmtu", "1000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pmtu 1000"));
    let out = ferroce(&["demo", "--roce", "v1", "--pmtu", "1000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing runs");
    let out = ferroce(&["demo", "--roce", "v3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--roce v3: expected v2 or v1"));
    let out = ferroce(&["demo", "--host-gbps", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--host-gbps"));
}

/// `ferroce demo --roce v1`: the same two NICs speak RoCEv1 (GRH directly over Ethernet,
/// EtherType 0x8915). Across the leaves Leaf-1 cannot route it (no IP header): A's NIC sends,
/// Leaf-1 drops and counts every frame, B receives nothing. With B on A's leaf the frames are
/// bridged by MAC and WRITE, READ and SEND complete, every message verified. a.pcap (run 2) is
/// read here independently: every RoCE frame either way is RoCEv1 (none is IPv4/UDP 4791), its
/// GRH next header is the BTH (0x1B), and tshark dissects them all as InfiniBand.
#[test]
fn roce_v1_demo_is_not_routed_across_leaves_and_runs_on_one() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-v1-out");
    let s = demo_json(&dir, &["--roce", "v1", "--messages", "24"]);
    assert_eq!(s["roce"], "v1");
    // run 1: across the L3 fabric nothing arrives
    let l3 = &s["l3_attempt"];
    let sent = l3["rocev1_frames_sent_by_a"].as_u64().unwrap();
    assert!(sent > 0, "{l3}");
    assert_eq!(
        l3["rocev1_not_routed"]["Leaf-1"].as_u64(),
        Some(sent),
        "{l3}"
    );
    assert_eq!(l3["frames_received_by_b"], 0, "{l3}");
    assert_eq!(l3["frames_through_spines"], 0, "{l3}");
    assert_eq!(l3["completed"], 0, "{l3}");
    // run 2: on one leaf, every message verified
    let messages = s["messages"].as_u64().unwrap();
    assert_eq!(messages, 24);
    assert_eq!(s["verified"], messages, "{s}");
    assert_eq!(s["failed"], 0);
    for op in ["write", "read", "send"] {
        assert_eq!(s["operations"][op]["verified"], 8, "{op}");
    }
    assert_eq!(s["frames_through_spines"], 0, "{s}");
    assert!(s["leaf1_frames_bridged"].as_u64().unwrap() > 0, "{s}");
    // the capture of A's link, read here
    let cap = ferroce_proto::pcap::read_file(&dir.join("a.pcap")).expect("a.pcap reads");
    let (mut v1_from_a, mut v1_to_a, mut v2) = (0u64, 0u64, 0u64);
    for f in cap.frames() {
        if f.len() < 14 {
            continue;
        }
        match u16::from_be_bytes([f[12], f[13]]) {
            0x8915 => {
                // GRH (40 bytes): next header 0x1B, then the BTH
                assert!(f.len() >= 14 + 40 + 12, "short RoCEv1 frame");
                assert_eq!(f[14 + 6], 0x1B, "GRH next header");
                // A's MAC: 02:fe:00:01:00:0a
                if f[6..12] == [0x02, 0xfe, 0x00, 0x01, 0x00, 0x0a] {
                    v1_from_a += 1;
                } else {
                    v1_to_a += 1;
                }
            }
            0x0800 if f.len() >= 14 + 20 + 8 && f[23] == 17 => {
                let u = 14 + (f[14] & 15) as usize * 4;
                if u16::from_be_bytes([f[u + 2], f[u + 3]]) == 4791 {
                    v2 += 1;
                }
            }
            _ => {}
        }
    }
    assert_eq!(v2, 0, "RoCEv2 frames in a RoCEv1 run");
    assert!(v1_from_a > 0 && v1_to_a > 0, "{v1_from_a} {v1_to_a}");
    assert_eq!(s["a_link"]["rocev1_frames_sent"].as_u64(), Some(v1_from_a));
    if require_tool("tshark") {
        let n = tshark_frames(&dir.join("a.pcap"), Some("infiniband"));
        assert_eq!(
            n,
            v1_from_a + v1_to_a,
            "frames tshark dissects as InfiniBand"
        );
    }
}
