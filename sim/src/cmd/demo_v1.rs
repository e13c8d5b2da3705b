//! `ferroce demo --roce v1`: the demo's servers A and B speaking RoCEv1 (IBTA Vol 1 Annex
//! A16: a GRH directly over Ethernet, EtherType 0x8915, no IP or UDP header), in two runs of
//! the same two whole ferroce NICs (the cycle-accurate hardware, driven through the driver's
//! verbs API; each NIC's GID 0 is a RoCEv1 entry and its `CFG_CONTROL.ROCEV1_ENABLE` is set):
//!
//! 1. **Across the L3 fabric**: A (Leaf-1) and B (Leaf-2) as in the RoCEv2 demo, two spines.
//!    A posts one RDMA WRITE to B; its NIC sends the packets as RoCEv1 frames, and Leaf-1
//!    drops every one of them: a RoCEv1 frame has no IP header, so a router has no address to
//!    route it by, and B's MAC is not on Leaf-1's L2 segment. The switch counts them
//!    (`SwitchStats::rocev1_not_routed`); B receives nothing and the WRITE never completes
//!    (the run stops after [`L3_ATTEMPT_CYCLES`]).
//! 2. **On one L2 segment**: B is cabled to Leaf-1 beside A (the spines stay, idle); Leaf-1
//!    bridges the frames by destination MAC, and A runs the demo's WRITE, READ and SEND over
//!    its QPs to B, every message checked byte for byte.
//!
//! ```text
//!     run 1:   Leaf-1 [A]  --x-->  Spine-1/2  -->  Leaf-2 [B]     (dropped at Leaf-1)
//!     run 2:   Leaf-1 [A, B]                                      (bridged by MAC)
//! ```
//!
//! No background traffic runs (it congests a spine, which RoCEv1 never reaches). The RoCEv2
//! demo's per-QP UDP source port and spine columns do not apply: RoCEv1 has no UDP header and
//! its frames never leave Leaf-1.
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ferroce_driver::Device;
use ferroce_fabric::topology::spine_leaf;
use ferroce_fabric::{HostKind, LinkSpec, SwitchConfig};
use ferroce_proto::host::config::{Gid, GidEntry, GidType};
use ferroce_proto::host::regs;
use serde_json::{json, Value};

use super::demo::{host, DemoArgs, A_IP, A_MAC, B_IP, B_MAC};
use super::verbs::{
    self, Engine, Plan, PlannedMessage, RunHooks, VerbOp, VerbsArgs, VerbsLinkArgs,
};
use super::CliError;
use crate::fabric_net::{self, FabricMedium, FabricNet, SharedFabric, PS_PER_CYCLE};
use crate::report::{self, ip, LinkCounts};

/// How long the L3 attempt runs: 80 us at 250 MHz, far longer than a 16 KiB WRITE takes on
/// one leaf and far shorter than the local ACK timeout (2.1 ms), so nothing is retransmitted.
pub const L3_ATTEMPT_CYCLES: u64 = 20_000;

/// Each NIC's GID 0 as a RoCEv1 entry (the same GID, its IPv4-mapped address), and RoCEv1
/// receive enabled: the QPs' source GID index 0 then makes the NIC send RoCEv1.
pub fn speak_rocev1(d: &Device) -> Result<(), CliError> {
    let r = d.registers();
    let gid = Gid::from_regs(core::array::from_fn(|w| {
        r.read(regs::gid_data(0, w as u32))
    }));
    d.set_gid(
        0,
        &GidEntry {
            gid,
            ty: GidType::RoceV1,
        },
    )
    .map_err(|e| CliError(format!("GID 0 as RoCEv1: {e}")))?;
    let control = r.read(regs::CFG_CONTROL);
    d.set_control(control | regs::cfg_control::ROCEV1_ENABLE)
        .map_err(|e| CliError(format!("CFG_CONTROL.ROCEV1_ENABLE: {e}")))
}

/// The demo's spine-leaf fabric with A on Leaf-1 and B on Leaf-`b_leaf + 1`, no background.
fn build(args: &DemoArgs, b_leaf: usize) -> FabricNet {
    let delay = args.delay_ns * 1000;
    let host_link = LinkSpec::gbps(args.host_gbps, delay);
    let fabric_link = LinkSpec::gbps(args.fabric_gbps, delay);
    let mut leaves = vec![vec![], vec![], vec![]];
    leaves[0].push(host("A", A_MAC, A_IP, HostKind::External, true));
    leaves[b_leaf].push(host("B", B_MAC, B_IP, HostKind::External, false));
    let cfg = SwitchConfig {
        ecmp_seed: args.seed,
        ..SwitchConfig::default()
    };
    let t = spine_leaf(leaves, 2, cfg, host_link, fabric_link);
    let (a, b) = (t.hosts[0], t.hosts[1]);
    FabricNet {
        fabric: t.fabric,
        nics: vec![a, b],
    }
}

fn hooks(shared: &SharedFabric, args: &DemoArgs) -> RunHooks {
    RunHooks {
        addrs: vec![(A_MAC, A_IP), (B_MAC, B_IP)],
        medium: Some(Box::new(FabricMedium(shared.clone()))),
        one_way: true,
        setup: Some(speak_rocev1),
        link_mbps: Some((args.host_gbps * 1000) as u32),
        ..RunHooks::default()
    }
}

/// Every switch's `rocev1_not_routed` count, by name (those above zero).
fn not_routed(f: &ferroce_fabric::Fabric) -> serde_json::Map<String, Value> {
    f.switches()
        .into_iter()
        .map(|s| (f.name(s).to_string(), f.switch_stats(s).rocev1_not_routed))
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k, json!(n)))
        .collect()
}

/// Frames A sent with EtherType 0x8915 (the capture of A's link).
fn v1_frames_sent(cap: &[ferroce_fabric::Captured]) -> u64 {
    cap.iter()
        .filter(|c| c.sent && c.bytes.get(12..14) == Some(&0x8915u16.to_be_bytes()[..]))
        .count() as u64
}

pub fn run(args: &DemoArgs, engine: Engine, size: usize) -> Result<ExitCode, CliError> {
    let link = VerbsLinkArgs {
        timeout: Some(9),
        ..VerbsLinkArgs::default()
    };
    if !args.json {
        println!(
            "ferroce demo --roce v1: A (MAC 02:fe:00:01:00:0a) and B (02:fe:00:02:00:0a), RoCEv1 (GRH over Ethernet, EtherType 0x8915, no IP header); {} Gb/s host links; engine: {}",
            args.host_gbps, args.engine
        );
        println!("  run 1: A on Leaf-1, B on Leaf-2 (across the L3 fabric): one WRITE of {size} B");
    }
    let wall = Instant::now();
    // run 1: across the leaves
    let l3_net = Arc::new(Mutex::new(build(args, 1)));
    let l3_args = VerbsArgs {
        ops: vec!["write".into()],
        sizes: vec![args.size.clone()],
        qps: 1,
        messages: 1,
        seed: args.seed,
        pmtu: args.pmtu,
        pcap: None,
        json: true,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    };
    let plan = Plan {
        messages: vec![PlannedMessage {
            side: 0,
            qp: 0,
            op: VerbOp::Write,
            size,
            not_before: 0,
        }],
        deadline: Some(L3_ATTEMPT_CYCLES),
    };
    let l3 = verbs::run_scenario_full(
        &l3_args,
        &link,
        engine,
        hooks(&l3_net, args),
        None,
        Some(plan),
    )?;
    let l3_summary = {
        let mut n = fabric_net::lock(&l3_net);
        let (ha, hb) = (n.nics[0], n.nics[1]);
        let cap = n.fabric.take_capture(ha);
        let f = &n.fabric;
        let spine_frames: u64 = f
            .switches()
            .into_iter()
            .filter(|s| f.name(*s).starts_with("Spine"))
            .flat_map(|s| (0..f.ports(s)).map(move |p| (s, p)))
            .map(|(s, p)| f.port_stats(s, p).tx_frames)
            .sum();
        json!({
            "a": "Leaf-1", "b": "Leaf-2",
            "messages": l3.messages,
            "completed": l3.verified,
            "rocev1_frames_sent_by_a": v1_frames_sent(&cap),
            "rocev1_not_routed": not_routed(f),
            "frames_through_spines": spine_frames,
            "frames_received_by_b": f.host_stats(hb).rx_frames,
            "cycles": l3.cycles,
            "note": "RoCEv1 is a link-layer protocol: the GRH sits directly on Ethernet with no IP header, so a router (here Leaf-1, an L3 switch) has nothing to route by and B's MAC is not on its segment; every frame is dropped and counted as not routed",
        })
    };
    if !args.json {
        println!(
            "    A's NIC sent {} RoCEv1 frames; dropped as not routed: {}; through the spines: {}; received by B: {}; the WRITE completed: {}",
            l3_summary["rocev1_frames_sent_by_a"],
            l3_summary["rocev1_not_routed"],
            l3_summary["frames_through_spines"],
            l3_summary["frames_received_by_b"],
            l3.verified == 1
        );
        println!("    ({})", l3_summary["note"].as_str().unwrap_or_default());
        println!(
            "  run 2: A and B both on Leaf-1 (one L2 segment, bridged by MAC): {} RC QPs, {} messages of {} B (WRITE, READ, SEND), PMTU {}",
            args.qps, args.messages, size, args.pmtu
        );
    }
    // run 2: one L2 segment
    let l2_net: SharedFabric = Arc::new(Mutex::new(build(args, 0)));
    let vargs = VerbsArgs {
        ops: vec!["write".into(), "read".into(), "send".into()],
        sizes: vec![args.size.clone()],
        qps: args.qps,
        messages: args.messages,
        seed: args.seed,
        pmtu: args.pmtu,
        pcap: None,
        json: args.json,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    };
    let r = verbs::run_scenario_full(
        &vargs,
        &link,
        engine,
        hooks(&l2_net, args),
        args.vcd.as_ref(),
        None,
    )?;
    let wall_s = wall.elapsed().as_secs_f64();
    let mut n = fabric_net::lock(&l2_net);
    let ha = n.nics[0];
    let cap = n.fabric.take_capture(ha);
    let counts = LinkCounts::of(&cap);
    let mut files = serde_json::Map::new();
    if let Some(dir) = &args.out {
        let p = dir.join("a.pcap");
        report::write_pcap(&p, &cap)?;
        files.insert("pcap".into(), json!(p.display().to_string()));
    }
    let f = &n.fabric;
    let leaf1 = f.switches()[0];
    let bridged: u64 = (0..f.ports(leaf1))
        .map(|p| f.port_stats(leaf1, p).tx_frames)
        .sum();
    let spine_frames: u64 = f
        .switches()
        .into_iter()
        .filter(|s| f.name(*s).starts_with("Spine"))
        .flat_map(|s| (0..f.ports(s)).map(move |p| (s, p)))
        .map(|(s, p)| f.port_stats(s, p).tx_frames)
        .sum();
    let summary = json!({
        "roce": "v1",
        "engine": args.engine,
        "nics": "two ferroce NICs (the cycle-accurate hardware model), driven through the driver's verbs API, GID 0 a RoCEv1 entry and CFG_CONTROL.ROCEV1_ENABLE set",
        "seed": args.seed,
        "topology": {
            "segment": "Leaf-1 (A and B both on it; Spine-1, Spine-2, Leaf-2 and Leaf-3 idle)",
            "host_link_gbps": args.host_gbps, "fabric_link_gbps": args.fabric_gbps,
            "link_delay_ns": args.delay_ns,
            "a": ip(A_IP), "b": ip(B_IP),
        },
        "qps": args.qps,
        "message_size": size,
        "messages": r.messages,
        "verified": r.verified,
        "failed": r.failed,
        "errors": r.errors,
        "operations": report::operations(&r),
        "not_applicable": "per-QP UDP source port and spine: RoCEv1 has no UDP header and its frames stay on Leaf-1; no background traffic (it would congest a spine RoCEv1 never reaches)",
        "retransmitted_packets": {"a": r.retransmitted[0], "b": r.retransmitted[1]},
        "ack_timeouts": {"a": r.timeouts[0], "b": r.timeouts[1]},
        "naks": {"a": r.naks[0], "b": r.naks[1]},
        "leaf1_frames_bridged": bridged,
        "frames_through_spines": spine_frames,
        "rocev1_not_routed": not_routed(f),
        "drops": {"switches": report::scan_ports(f, None).drops},
        "a_link": {
            "frames": counts.frames,
            "rocev1_frames_sent": v1_frames_sent(&cap),
            "sent": counts.sent,
            "received": counts.received,
        },
        "l3_attempt": l3_summary,
        "files": files,
        "cycles": r.cycles,
        "simulated_us": (r.cycles * PS_PER_CYCLE) as f64 / 1e6,
        "wall_s": wall_s,
    });
    drop(n);
    if let Some(dir) = &args.out {
        report::write_summary(&dir.join("summary.json"), &summary)?;
    }
    if args.json {
        println!("{summary}");
    } else {
        report::print_headline(&summary);
        report::print_operations(&summary);
        println!(
            "  Leaf-1 bridged {} frames, the spines carried {}; retransmitted packets A/B: {}/{}",
            bridged, spine_frames, r.retransmitted[0], r.retransmitted[1]
        );
        println!(
            "  (no UDP source port or spine per QP: {})",
            summary["not_applicable"].as_str().unwrap_or_default()
        );
        report::print_files(&summary);
    }
    let l3_blocked = l3.verified == 0
        && l3_summary["frames_received_by_b"] == 0
        && l3_summary["rocev1_not_routed"]["Leaf-1"]
            .as_u64()
            .is_some_and(|n| n > 0);
    Ok(if r.failed == 0 && r.verified == r.messages && l3_blocked {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
