//! `ferroce peer` from the command line: argument errors (before any model is built), and (not
//! in the default set, `-- --ignored`) two `ferroce peer` processes back to back, one as each tool's server and one as its client,
//! over Unix sockets (the link framed as QEMU's `-netdev stream` frames it, the control
//! channel carrying the tools' exchange). The back-to-back runs need no QEMU: they check that
//! the two sides of each flow agree with each other and that the NICs complete the traffic;
//! agreement with the real tools rests on the byte-level format tests in
//! `sim/src/peer/exchange.rs` and on runs against a guest.
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn ferroce() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ferroce"))
}

fn peer_args(dir: &Path) -> Vec<String> {
    [
        "peer",
        "--tool",
        "write_bw",
        "--role",
        "server",
        "--link",
        &dir.join("link.sock").display().to_string(),
        "--ctl",
        &dir.join("ctl.sock").display().to_string(),
        "--peer-mac",
        "02:fe:00:00:00:02",
        "--my-ip",
        "10.9.0.1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ferroce-cli-peer-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn bad_arguments_fail_fast_with_a_message() {
    let dir = temp_dir("args");
    for (flag, value, expect) in [
        ("--tool", "ping", "--tool 'ping' is not a tool"),
        ("--role", "both", "--role 'both'"),
        ("--peer-mac", "52:54:00", "--peer-mac"),
        ("--my-ip", "not-an-ip", "--my-ip 'not-an-ip'"),
        ("--mtu", "1500", "--mtu 1500"),
        ("--timeout", "0", "--timeout 0"),
    ] {
        let mut args = peer_args(&dir);
        let i = args.iter().position(|a| a == flag);
        match i {
            Some(i) => args[i + 1] = value.to_string(),
            None => {
                args.push(flag.to_string());
                args.push(value.to_string());
            }
        }
        let start = std::time::Instant::now();
        let out = ferroce().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(expect), "{flag} {value}: {err}");
        // no model was built
        assert!(
            start.elapsed().as_secs() < 10,
            "{flag} took {:?}",
            start.elapsed()
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Start one side of a back-to-back pair.
fn start(dir: &Path, tool: &str, role: &str, size: &str, iters: &str) -> Child {
    let server = role == "server";
    let (me, peer, ip) = if server {
        ("02:fe:00:00:00:01", "02:fe:00:00:00:02", "10.9.0.1")
    } else {
        ("02:fe:00:00:00:02", "02:fe:00:00:00:01", "10.9.0.2")
    };
    let mut c = ferroce();
    c.args(["peer", "--tool", tool, "--role", role])
        .arg("--link")
        .arg(dir.join("link.sock"))
        .arg("--ctl")
        .arg(dir.join("ctl.sock"))
        .args(["--my-mac", me, "--peer-mac", peer, "--my-ip", ip])
        .args(["--size", size, "--iters", iters, "--timeout", "300"]);
    if server {
        // the server's process owns both sockets (as QEMU would own the guest's end)
        c.args(["--link-listen", "--ctl-listen"]);
    }
    c.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn summary(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "no JSON summary ({e}): {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn back_to_back(tool: &str, size: &str, iters: &str) -> (serde_json::Value, serde_json::Value) {
    let dir = temp_dir(tool);
    let server = start(&dir, tool, "server", size, iters);
    let client = start(&dir, tool, "client", size, iters);
    let (s, c) = (
        server.wait_with_output().unwrap(),
        client.wait_with_output().unwrap(),
    );
    let (s, c) = (summary(&s), summary(&c));
    std::fs::remove_dir_all(dir).unwrap();
    assert_eq!(s["ok"], true, "server: {s:#}\nclient: {c:#}");
    assert_eq!(c["ok"], true, "server: {s:#}\nclient: {c:#}");
    for side in [&s, &c] {
        // the receive path accepted every frame the other side sent, and dropped none
        assert_eq!(side["nic"]["rx"]["bad_icrc"], 0, "{side:#}");
        assert_eq!(side["nic"]["rx"]["mac_mismatch"], 0, "{side:#}");
        assert_eq!(side["nic_transport"]["retry_exceeded"], 0, "{side:#}");
    }
    // each side's frames out are the other's frames in
    assert_eq!(s["link"]["frames_out"], c["link"]["frames_in"]);
    assert_eq!(c["link"]["frames_out"], s["link"]["frames_in"]);
    (s, c)
}

/// The ping-pong back to back (about 15 s: two NIC models load, a few thousand cycles of
/// traffic, three seconds of lingering for the last ACK). Not in the default set: the live runs
/// against Linux (`sim/tests/peer_rxe.rs`) cover both roles of the ping-pong against the real
/// tool (`cargo test --release --test cli_peer -- --ignored`).
#[test]
#[ignore]
fn back_to_back_pingpong() {
    if !ferroce_testkit::require_tool("verilator") {
        return;
    }
    let (s, c) = back_to_back("rc_pingpong", "100", "5");
    for side in [&s, &c] {
        assert_eq!(side["work"]["send_completed"], 5);
        assert_eq!(side["work"]["recv_completed"], 5);
        assert_eq!(side["mtu"], 1024);
    }
    assert_eq!(s["peer"]["got_done"], true);
}

/// Every perftest flow back to back: about a minute and a half, so not in the default set
/// (`cargo test --release --test cli_peer -- --ignored`).
#[test]
#[ignore]
fn back_to_back_perftest() {
    if !ferroce_testkit::require_tool("verilator") {
        return;
    }
    let (s, c) = back_to_back("write_bw", "1024", "20");
    assert_eq!(c["work"]["send_completed"], 20);
    // the server received (and would print) the client's report
    assert_eq!(s["report_received"]["iters"], 20);
    assert_eq!(s["report_received"]["size"], 1024);
    assert_eq!(s["peer"]["version"], "6.06");
    let (s, c) = back_to_back("send_bw", "2000", "10");
    assert_eq!(s["work"]["recv_completed"], 10);
    assert_eq!(c["work"]["send_completed"], 10);
    let (_, c) = back_to_back("read_bw", "3000", "8");
    assert_eq!(c["work"]["send_completed"], 8);
    for tool in ["atomic_fadd", "atomic_cas"] {
        let (_, c) = back_to_back(tool, "8", "16");
        assert_eq!(c["work"]["send_completed"], 16);
    }
}
