//! Live interoperation with Linux Soft-RoCE: the simulated ferroce NIC (`ferroce peer`, the
//! Verilator model of the emitted Verilog) against unmodified `ibv_rc_pingpong`, `ib_write_bw`,
//! `ib_read_bw`, `ib_send_bw` and `ib_atomic_bw` (fetch-add and compare-swap) on rdma_rxe in a
//! QEMU guest, with ferroce as server and as client, MTU 1024 and 4096, and with 1 % of the RoCE
//! frames dropped on the link, and over IPv6 in both roles. `scripts/peer/interop.sh` runs each case and checks that both
//! sides exit 0, that the Linux tool printed its own success output, and that every frame of
//! both captures (QEMU's and the NIC's) has a good ICRC by ferroce's parser and, when the
//! independent oracle is present beside the project, by that oracle too.
//!
//! Needs root (debootstrap), QEMU, debootstrap, cpio and kmod (`scripts/peer/install-host-deps.sh`)
//! and Debian's package mirror to build the guest once (`scripts/peer/build-guest.sh`, cached in
//! `target/peer/guest`). Without the tools or root the test fails (`ferroce_testkit`; skipped
//! and says so under `FERROCE_SKIP_MISSING_TOOLS=1`).
use ferroce_testkit::{require_tool, workspace_root as repo};
use std::process::Command;

/// Every case: TOOL:FERROCE_ROLE:MTU[:SIZE[:ITERS[:LOSS[:NET]]]] (see interop.sh).
const CASES: &[&str] = &[
    "rc_pingpong:server:1024:1024:100",
    "rc_pingpong:client:4096:4096:100",
    "write_bw:server:1024:4096:100",
    "write_bw:client:4096:16384:100",
    "read_bw:server:4096:4096:100",
    "read_bw:client:1024:1024:100",
    "send_bw:server:4096:8192:100",
    "send_bw:client:1024:1024:100",
    "atomic_fadd:server:1024:8:100",
    "atomic_fadd:client:1024:8:100",
    "atomic_cas:server:1024:8:100",
    "atomic_cas:client:1024:8:100",
    // 1 % of the RoCE frames lost, each direction: both stacks recover
    "rc_pingpong:server:1024:1024:200:0.01",
    "write_bw:client:1024:1024:300:0.01",
    "read_bw:client:1024:1024:300:0.01",
    "atomic_fadd:server:1024:8:300:0.01",
    // RoCEv2 over IPv6 (rxe's GID of the guest's global address; the guest's ND and MLD
    // frames reach the NIC, which drops and counts them)
    "rc_pingpong:server:1024:1024:100:0:ipv6",
    "write_bw:client:1024:4096:100:0:ipv6",
];

#[test]
fn linux_tools_on_soft_roce_against_ferroce() {
    for tool in [
        "qemu-system-x86_64",
        "debootstrap",
        "cpio",
        "depmod",
        "verilator",
    ] {
        if !require_tool(tool) {
            return;
        }
    }
    let Some(guest) = ferroce_testkit::live_guest("Soft-RoCE interop test") else {
        return;
    };
    let repo = repo();

    let mut cmd = Command::new("bash");
    cmd.arg(repo.join("scripts/peer/interop.sh"))
        .arg("--ferroce")
        .arg(env!("CARGO_BIN_EXE_ferroce"))
        .arg("--guest")
        .arg(&guest)
        .arg("--out")
        .arg(repo.join("target/peer/test-runs"));
    // the independent ICRC oracle, when the shared reference folder sits beside the project
    let oracle = repo.join("../shared/oracles/check_pcap_icrc.py");
    if oracle.exists() {
        cmd.arg("--oracle").arg(&oracle);
    }
    let out = cmd.args(CASES).output().expect("running interop.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("== interop results"))
        .skip(1)
        .collect();
    assert_eq!(table.len(), CASES.len(), "one result per case:\n{stdout}");
    let failed: Vec<&&str> = table
        .iter()
        .filter(|l| l.split_whitespace().nth(1) != Some("ok"))
        .collect();
    assert!(failed.is_empty(), "failed cases:\n{failed:#?}");
    assert!(out.status.success(), "interop.sh exited {}", out.status);
    // the lossy cases really lost frames (and still completed, above)
    for l in table.iter().filter(|l| l.contains("loss0.01")) {
        let lost: u64 = l
            .split_whitespace()
            .find_map(|w| w.strip_prefix("lost="))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(lost > 0, "a 1 % loss case lost nothing: {l}");
    }
}
