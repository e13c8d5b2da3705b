//! `ferroce demo`: the case this project started from. Server A (10.0.1.10) on Leaf-1 and
//! server B (10.0.2.10) on Leaf-2 of a spine-leaf fabric with two spines; ECMP on the 5-tuple,
//! PFC on priority 3, ECN marking above 200 KB of queue. A runs RDMA WRITE, READ and SEND to
//! B over several RC QPs while two plain traffic sources (other vendors' hosts, not ferroce
//! NICs) on Leaf-1 and Leaf-3 send to two sinks on Leaf-2 through Spine-1 for a while,
//! congesting Spine-1's port toward Leaf-2.
//!
//! ```text
//!                 Spine-1 (congested toward Leaf-2)        Spine-2
//!            (every leaf joins both spines: 10 Gb/s links)
//!      Leaf-1                    Leaf-2                   Leaf-3
//!   A   background-1     B   sink-1   sink-2          background-2
//! ```
//!
//! A and B are whole ferroce NICs: the cycle-accurate hardware (Verilator engine by default),
//! each driven through the driver's verbs API on its own simulated host, exactly as
//! `ferroce verbs` drives them ([`super::verbs::run_scenario_full`]); every message is
//! checked byte for byte. Only the network is software ([`ferroce_fabric`]).
//!
//! What the run shows is what is built: switches mark ECN CE above the threshold and the NICs
//! receive the marked packets and answer with CNPs (the NICs' notification points, counted by
//! the NICs); the senders' DCQCN reaction points cut their QPs' rates (counted by the NICs);
//! switches pause each other with PFC, and the NICs run PFC too (pauses from their leaf
//! honoured, XOFF sent when their receive FIFO fills, all counted by the NICs).
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ferroce_fabric::packet;
use ferroce_fabric::red::Red;
use ferroce_fabric::topology::spine_leaf;
use ferroce_fabric::{
    FlowKey, HostConfig, HostKind, LinkSpec, NodeId, Source, SwitchConfig, PS_PER_S,
};
use serde_json::{json, Value};

use super::verbs::{self, Engine, RunHooks, VerbsArgs, VerbsLinkArgs, VerbsReport};
use super::CliError;
use crate::fabric_net::{self, FabricMedium, FabricNet, SharedFabric, PS_PER_CYCLE};
use crate::nic_pair::PAIR_CLOCK_HZ;
use crate::report::{self, ip, port_toward, LinkCounts, SAMPLE_PS};
use crate::vcd::VcdWindow;

pub const A_MAC: [u8; 6] = [0x02, 0xfe, 0, 1, 0, 0x0a];
pub const B_MAC: [u8; 6] = [0x02, 0xfe, 0, 2, 0, 0x0a];
pub const A_IP: [u8; 4] = [10, 0, 1, 10];
pub const B_IP: [u8; 4] = [10, 0, 2, 10];
/// The switches mark every ECN-capable packet that leaves a queue deeper than this.
pub const ECN_STEP_BYTES: u64 = 200_000;
/// The plain background hosts (on Leaf-1 and Leaf-3) and their sinks (on Leaf-2).
const BG: [(&str, [u8; 6], [u8; 4], usize); 2] = [
    (
        "background-1",
        [0x02, 0xee, 0, 1, 0, 0x0b],
        [10, 0, 1, 11],
        0,
    ),
    (
        "background-2",
        [0x02, 0xee, 0, 3, 0, 0x0a],
        [10, 0, 3, 10],
        2,
    ),
];
const SINKS: [(&str, [u8; 6], [u8; 4]); 2] = [
    ("sink-1", [0x02, 0xee, 0, 2, 0, 0x0b], [10, 0, 2, 11]),
    ("sink-2", [0x02, 0xee, 0, 2, 0, 0x0c], [10, 0, 2, 12]),
];

/// The demo's options (the command line's).
#[derive(Clone, Debug)]
pub struct DemoArgs {
    pub qps: usize,
    pub messages: usize,
    pub size: String,
    pub pmtu: usize,
    pub seed: u64,
    pub engine: String,
    pub out: Option<PathBuf>,
    pub json: bool,
    pub host_gbps: u64,
    pub fabric_gbps: u64,
    pub delay_ns: u64,
    pub background_gbps: f64,
    pub background_start_us: u64,
    pub background_stop_us: u64,
    pub roce: String,
    /// Waveforms: A's NIC to the window's file, B's to [`VcdWindow::for_second_nic`].
    pub vcd: Option<VcdWindow>,
}

/// Where the demo's nodes are.
struct Layout {
    leaves: Vec<NodeId>,
    spines: Vec<NodeId>,
    sinks: Vec<NodeId>,
    backgrounds: Vec<NodeId>,
    bg_sports: Vec<u16>,
    /// Spine-1's port toward Leaf-2 (where the background meets A's traffic).
    congested: (NodeId, usize),
}

pub(crate) fn host(
    name: &str,
    mac: [u8; 6],
    ip: [u8; 4],
    kind: HostKind,
    capture: bool,
) -> HostConfig {
    HostConfig {
        name: name.into(),
        mac,
        ip,
        kind,
        // a MAC transmit FIFO of one 4 KiB frame and a little more
        tx_fifo_bytes: 4608,
        capture,
    }
}

fn build(args: &DemoArgs) -> (FabricNet, Layout) {
    let delay = args.delay_ns * 1000;
    let host_link = LinkSpec::gbps(args.host_gbps, delay);
    let fabric_link = LinkSpec::gbps(args.fabric_gbps, delay);
    let start = args.background_start_us * 1_000_000;
    let stop = args.background_stop_us * 1_000_000;
    let bg = |i: usize, sport| Source {
        dst_mac: SINKS[i].1,
        dst_ip: SINKS[i].2,
        sport,
        dport: 5001,
        frame_bytes: 1024,
        rate_bps: (args.background_gbps * 1e9) as u64,
        dscp: 26,
        priority: 3,
        ecn: 2,
        start,
        stop,
    };
    // leaves: [A, background-1], [B, sink-1, sink-2], [background-2]
    let hosts = |sports: [u16; 2]| {
        let mut leaves = vec![
            vec![host("A", A_MAC, A_IP, HostKind::External, true)],
            vec![host("B", B_MAC, B_IP, HostKind::External, false)],
            vec![],
        ];
        for (name, mac, ip) in SINKS {
            leaves[1].push(host(name, mac, ip, HostKind::Sink, false));
        }
        for (i, (name, mac, ip, leaf)) in BG.iter().enumerate() {
            let kind = HostKind::Source(bg(i, sports[i]));
            leaves[*leaf].push(host(name, *mac, *ip, kind, false));
        }
        leaves
    };
    // ECN marking above 200 KB, as the case this demo reproduces has it: every ECN-capable
    // packet that leaves a queue deeper than that is marked (a step, not the fabric's default
    // RED ramp to 800 KB, under which only a few of A's packets in the congested queue were
    // marked and whether a QP saw two CNPs, and so a rate cut, depended on the seed)
    let cfg = SwitchConfig {
        ecmp_seed: args.seed,
        red: Some(Red {
            kmin: ECN_STEP_BYTES,
            kmax: ECN_STEP_BYTES,
            pmax: 1.0,
            average_weight: None,
        }),
        ..SwitchConfig::default()
    };
    // each background flow's UDP source port: the first one its leaf's ECMP sends to Spine-1
    let probe = spine_leaf(hosts([0, 0]), 2, cfg.clone(), host_link, fabric_link);
    let spine1 = probe.spines[0];
    let mut sports = [0u16; 2];
    for (i, (_, _, ip, leaf)) in BG.iter().enumerate() {
        let l = probe.leaves[*leaf];
        let up = port_toward(&probe.fabric, l, spine1);
        sports[i] = (49152u16..)
            .find(|s| {
                let key = FlowKey {
                    src_ip: packet::mapped(*ip),
                    dst_ip: packet::mapped(SINKS[i].2),
                    sport: *s,
                    dport: 5001,
                };
                probe.fabric.ecmp_port(l, &key, 17) == Some(up)
            })
            .expect("some port hashes to Spine-1");
    }
    let mut t = spine_leaf(hosts(sports), 2, cfg, host_link, fabric_link);
    t.fabric.sample_every(SAMPLE_PS);
    let congested = (
        t.spines[0],
        port_toward(&t.fabric, t.spines[0], t.leaves[1]),
    );
    // host order: A, background-1, B, sink-1, sink-2, background-2
    let layout = Layout {
        leaves: t.leaves.clone(),
        spines: t.spines.clone(),
        sinks: vec![t.hosts[3], t.hosts[4]],
        backgrounds: vec![t.hosts[1], t.hosts[5]],
        bg_sports: sports.to_vec(),
        congested,
    };
    (
        FabricNet {
            fabric: t.fabric,
            nics: vec![t.hosts[0], t.hosts[2]],
        },
        layout,
    )
}

pub fn run(args: &DemoArgs) -> Result<ExitCode, CliError> {
    let engine = Engine::parse(&args.engine)?;
    if args.roce != "v2" && args.roce != "v1" {
        return Err(CliError(format!("--roce {}: expected v2 or v1", args.roce)));
    }
    let size = verbs::parse_size(&args.size)?;
    if ferroce_proto::host::qp::Pmtu::from_bytes(args.pmtu as u32).is_none() {
        return Err(CliError(format!(
            "--pmtu {} is not a path MTU (256, 512, 1024, 2048, 4096)",
            args.pmtu
        )));
    }
    if !(1..=verbs::MAX_QPS).contains(&args.qps) {
        return Err(CliError(format!(
            "--qps must be 1..={}, not {}",
            verbs::MAX_QPS,
            args.qps
        )));
    }
    for (name, g) in [
        ("--host-gbps", args.host_gbps),
        ("--fabric-gbps", args.fabric_gbps),
    ] {
        if !(1..=400).contains(&g) {
            return Err(CliError(format!("{name} must be 1..=400, got {g}")));
        }
    }
    if !(0.0..=400.0).contains(&args.background_gbps) {
        return Err(CliError(format!(
            "--background-gbps must be 0..=400, got {}",
            args.background_gbps
        )));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| CliError(format!("{}: {e}", dir.display())))?;
    }
    if args.roce == "v1" {
        // two runs: across the leaves (not routed), then on one leaf (bridged)
        return super::demo_v1::run(args, engine, size);
    }
    let (net, layout) = build(args);
    let shared: SharedFabric = Arc::new(Mutex::new(net));
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
    // queueing in the fabric delays ACKs by up to a few hundred microseconds: a local ACK
    // timeout of 4.096 us x 2^9 = 2.1 ms keeps every delayed ACK from timing out
    let link = VerbsLinkArgs {
        timeout: Some(9),
        ..VerbsLinkArgs::default()
    };
    let progress_fabric = shared.clone();
    let congested = layout.congested;
    let quiet = args.json;
    let total = args.messages;
    let hooks = RunHooks {
        addrs: vec![(A_MAC, A_IP), (B_MAC, B_IP)],
        medium: Some(Box::new(FabricMedium(shared.clone()))),
        one_way: true,
        flow_sports: true,
        progress: Some(Box::new(move |cycles, r: &VerbsReport| {
            if quiet {
                return;
            }
            let f = fabric_net::lock(&progress_fabric);
            let q: u64 = (0..8)
                .map(|p| f.fabric.queue_bytes(congested.0, congested.1, p))
                .sum();
            let marked = f.fabric.port_stats(congested.0, congested.1).marked;
            eprintln!(
                "  {:>8.1} us simulated: {}/{} messages done, Spine-1 -> Leaf-2 queue {:>4} KB, {} CE marks there",
                cycles as f64 * 1e6 / PAIR_CLOCK_HZ as f64,
                r.records.len(),
                total,
                q / 1000,
                marked
            );
        })),
        progress_every: 50_000,
        set_bits: Vec::new(),
        // DCQCN on both NICs: the reaction point besides the notification point (the run
        // enables it for every QP once connected); PFC on both NICs, as on the switches
        setup: Some(super::verbs::enable_dcqcn_and_pfc),
        shells: Vec::new(),
        // the NICs learn their links' rate (PFC quanta, the DCQCN reaction point's cap)
        link_mbps: Some((args.host_gbps * 1000) as u32),
        dcqcn_params: None,
    };
    if !args.json {
        println!(
            "ferroce demo: A {} (Leaf-1) -> B {} (Leaf-2), 2 spines, {} Gb/s host links, {} Gb/s fabric links; {} RC QPs, {} messages of {} B (WRITE, READ, SEND), PMTU {}; engine: {}",
            ip(A_IP), ip(B_IP), args.host_gbps, args.fabric_gbps, args.qps, args.messages, size, args.pmtu, args.engine
        );
        println!(
            "  background: two plain traffic sources (not ferroce NICs), 10.0.1.11 -> 10.0.2.11 and 10.0.3.10 -> 10.0.2.12, {} Gb/s each from {} us to {} us, UDP source ports {:?} (hashed onto Spine-1)",
            args.background_gbps, args.background_start_us, args.background_stop_us, layout.bg_sports
        );
    }
    let wall = Instant::now();
    let report = verbs::run_scenario_full(&vargs, &link, engine, hooks, args.vcd.as_ref(), None)?;
    let wall_s = wall.elapsed().as_secs_f64();
    let mut f = fabric_net::lock(&shared);
    let summary = summarise(args, size, &report, &mut f, &layout, wall_s)?;
    drop(f);
    if args.json {
        println!("{summary}");
    } else {
        print_summary(&summary);
    }
    Ok(
        if report.failed == 0 && report.verified == report.messages {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    )
}

fn summarise(
    args: &DemoArgs,
    size: usize,
    r: &VerbsReport,
    net: &mut FabricNet,
    layout: &Layout,
    wall_s: f64,
) -> Result<Value, CliError> {
    let f = &mut net.fabric;
    let (ha, hb) = (net.nics[0], net.nics[1]);
    // per operation
    let ops = report::operations(r);
    // per QP: its UDP source port (from the frames A sent) and the spine that carried it
    let mut qps = Vec::new();
    let mut spine_sports: Vec<Vec<u16>> = vec![Vec::new(); layout.spines.len()];
    let a_flows: Vec<FlowKey> = f
        .host_stats(hb)
        .rx_flows
        .keys()
        .filter(|k| k.src_ip == packet::mapped(A_IP))
        .copied()
        .collect();
    for q in 0..r.qpns[0].len() {
        let (lqpn, rqpn) = (r.qpns[0][q], r.qpns[1][q]);
        let flow = ferroce_proto::flow::calc_flow_label(lqpn, rqpn);
        let sport = ferroce_proto::flow::udp_source_port(lqpn, rqpn, flow);
        let seen = a_flows.iter().any(|k| k.sport == sport);
        let spine = layout.spines.iter().position(|s| {
            f.switch_flows(*s)
                .keys()
                .any(|k| k.sport == sport && k.src_ip == packet::mapped(A_IP))
        });
        if let Some(s) = spine {
            spine_sports[s].push(sport);
        }
        qps.push(json!({
            "qp": q,
            "qpn_a": lqpn,
            "qpn_b": rqpn,
            "udp_sport": sport,
            "seen_at_b": seen,
            "spine": spine.map(|s| f.name(layout.spines[s]).to_string()),
        }));
    }
    let spines: serde_json::Map<String, Value> = layout
        .spines
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let frames_a: u64 = f
                .switch_flows(*s)
                .iter()
                .filter(|(k, _)| k.src_ip == packet::mapped(A_IP))
                .map(|(_, n)| *n)
                .sum();
            let mut sports = spine_sports[i].clone();
            sports.sort_unstable();
            (
                f.name(*s).to_string(),
                json!({"qps": spine_sports[i].len(), "frames_from_a": frames_a, "udp_sports_from_a": sports}),
            )
        })
        .collect();
    // queues: every switch port whose queue passed Kmin or that marked, dropped or paused;
    // PFC between switches apart from PFC toward the NICs
    let kmin = ECN_STEP_BYTES;
    let ports = report::scan_ports(f, Some(kmin));
    let to_nics = [ha, hb].map(|h| ports.pfc_to.get(&h).copied().unwrap_or(0));
    let (mut xoff_total, mut xon_total) = (ports.xoff, ports.xon);
    for &s in &f.switches() {
        for p in 0..f.ports(s) {
            if [ha, hb].contains(&f.peer(s, p).0) {
                let st = f.port_stats(s, p);
                xoff_total -= st.pfc_xoff_sent;
                xon_total -= st.pfc_xon_sent;
            }
        }
    }
    // A's link, counted from its frames (what a.pcap holds)
    let cap = f.take_capture(ha);
    let link = LinkCounts::of(&cap);
    let mut files = serde_json::Map::new();
    if let Some(dir) = &args.out {
        let p = dir.join("a.pcap");
        report::write_pcap(&p, &cap)?;
        files.insert("pcap".into(), json!(p.display().to_string()));
        let svg = plot_svg(f, layout, ha, kmin);
        let sp = dir.join("rates.svg");
        report::write_file(&sp, &svg)?;
        files.insert("svg".into(), json!(sp.display().to_string()));
        let png = crate::plot::RatePlot::from_fabric(
            f,
            ha,
            Some(layout.congested),
            SAMPLE_PS,
            Some(kmin),
        );
        let pp = dir.join("rates.png");
        report::write_file(&pp, png.png())?;
        files.insert("png".into(), json!(pp.display().to_string()));
    }
    let hsa = f.host_stats(ha).clone();
    let hsb = f.host_stats(hb).clone();
    let bg: u64 = layout.sinks.iter().map(|h| f.host_stats(*h).rx_bytes).sum();
    let bg_sent: u64 = layout
        .backgrounds
        .iter()
        .map(|h| f.host_stats(*h).tx_bytes)
        .sum();
    let sim_ps = r.cycles * PS_PER_CYCLE;
    let summary = json!({
        "engine": args.engine,
        "nics": "two ferroce NICs (the cycle-accurate hardware model), driven through the driver's verbs API",
        "topology": {
            "leaves": layout.leaves.len(), "spines": layout.spines.len(),
            "host_link_gbps": args.host_gbps, "fabric_link_gbps": args.fabric_gbps,
            "link_delay_ns": args.delay_ns,
            "a": ip(A_IP), "b": ip(B_IP),
            "ecn_kmin_bytes": kmin,
            "pfc_priority": 3,
        },
        "qps": args.qps,
        "message_size": size,
        "messages": r.messages,
        "verified": r.verified,
        "failed": r.failed,
        "errors": r.errors,
        "operations": ops,
        "per_qp": qps,
        "spines": spines,
        "retransmitted_packets": {"a": r.retransmitted[0], "b": r.retransmitted[1]},
        "ack_timeouts": {"a": r.timeouts[0], "b": r.timeouts[1]},
        "naks": {"a": r.naks[0], "b": r.naks[1]},
        "ecn": {
            "ce_marked_by_switches": ports.marked,
            "ce_received": {"a": hsa.rx_ce, "b": hsb.rx_ce},
        },
        "cnps": {
            "sent": {"a": r.cnp_sent[0], "b": r.cnp_sent[1]},
            "received": {"a": r.cnp_received[0], "b": r.cnp_received[1]},
            "note": "NIC counters (CNT_CNP_SENT, CNT_CNP_RECEIVED)",
        },
        "dcqcn": {
            "reaction_point": true,
            "rate_cuts": {"a": r.per_host[0].rp_rate_cuts, "b": r.per_host[1].rp_rate_cuts},
            "note": "NIC counters (CNT_RP_RATE_CUTS): the NICs' DCQCN reaction points (mlx5 defaults) cut a QP's rate at each rate-reduce period with a CNP",
        },
        "pfc": {
            "between_switches": {"xoff": xoff_total, "xon": xon_total},
            "to_nics": {"a": to_nics[0], "b": to_nics[1]},
            "nics": {
                "on": r.per_host[0].pfc_on && r.per_host[1].pfc_on,
                "pauses_received": {"a": r.per_host[0].pfc_pause, "b": r.per_host[1].pfc_pause},
                "paused_cycles": {"a": r.per_host[0].pfc_paused_cycles, "b": r.per_host[1].pfc_paused_cycles},
                "xoff_sent": {"a": r.per_host[0].pfc_xoff_sent, "b": r.per_host[1].pfc_xoff_sent},
                "dropped_no_room": {"a": r.per_host[0].rx_no_room, "b": r.per_host[1].rx_no_room},
            },
            "note": "switches pause each other and the plain background host on priority 3; the NICs run PFC on priority 3 too (NIC counters CNT_PFC_PAUSE, CNT_PFC_PAUSED_CYCLES, CNT_PFC_XOFF_SENT, CNT_RX_DROP_NO_ROOM): they honour their leaf's pauses and send XOFF when their receive FIFO fills",
        },
        "drops": {"switches": ports.drops},
        "queues": ports.queues,
        "background": {
            "sources": "two plain traffic sources (not ferroce NICs) on Leaf-1 and Leaf-3, both through Spine-1; they honour PFC and ignore ECN",
            "rate_gbps_each": args.background_gbps,
            "udp_sports": layout.bg_sports,
            "bytes_sent": bg_sent,
            "bytes_delivered": bg,
        },
        "a_link": {
            "frames": link.frames,
            "sent": link.sent,
            "received": link.received,
            "ce_received": link.ce_received,
            "pfc_received": link.pfc_received,
        },
        "files": files,
        "cycles": r.cycles,
        "simulated_us": sim_ps as f64 / 1e6,
        "fabric_events": f.events_run(),
        "wall_s": wall_s,
    });
    if let Some(dir) = &args.out {
        report::write_summary(&dir.join("summary.json"), &summary)?;
    }
    Ok(summary)
}

fn print_summary(s: &Value) {
    report::print_headline(s);
    report::print_operations(s);
    println!("  QP  QPN(A)  UDP sport  spine");
    for q in s["per_qp"].as_array().into_iter().flatten() {
        println!(
            "  {:>2} {:>7} {:>10}  {}",
            q["qp"],
            q["qpn_a"],
            q["udp_sport"],
            q["spine"].as_str().unwrap_or("-")
        );
    }
    println!(
        "  retransmitted packets A/B: {}/{}; ECN: {} packets marked CE by the switches, {} CE-marked packets received by B, {} by A",
        s["retransmitted_packets"]["a"], s["retransmitted_packets"]["b"], s["ecn"]["ce_marked_by_switches"],
        s["ecn"]["ce_received"]["b"], s["ecn"]["ce_received"]["a"]
    );
    println!(
        "  CNPs sent by B: {}, received by A: {} ({})",
        s["cnps"]["sent"]["b"],
        s["cnps"]["received"]["a"],
        s["cnps"]["note"].as_str().unwrap_or("")
    );
    println!(
        "  DCQCN rate cuts by A: {}, by B: {} ({})",
        s["dcqcn"]["rate_cuts"]["a"],
        s["dcqcn"]["rate_cuts"]["b"],
        s["dcqcn"]["note"].as_str().unwrap_or("")
    );
    println!(
        "  PFC: {} XOFF / {} XON between switches, {} pause frames to A, {} to B; the NICs: paused {} / {} cycles, {} / {} XOFF sent, {} / {} frames dropped for lack of room (A / B)",
        s["pfc"]["between_switches"]["xoff"],
        s["pfc"]["between_switches"]["xon"],
        s["pfc"]["to_nics"]["a"],
        s["pfc"]["to_nics"]["b"],
        s["pfc"]["nics"]["paused_cycles"]["a"],
        s["pfc"]["nics"]["paused_cycles"]["b"],
        s["pfc"]["nics"]["xoff_sent"]["a"],
        s["pfc"]["nics"]["xoff_sent"]["b"],
        s["pfc"]["nics"]["dropped_no_room"]["a"],
        s["pfc"]["nics"]["dropped_no_room"]["b"],
    );
    report::print_queues(s);
    report::print_files(s);
}

/// Per-QP transmit rate of A and the congested queue's depth over time, as an SVG.
fn plot_svg(f: &ferroce_fabric::Fabric, layout: &Layout, a: NodeId, kmin: u64) -> String {
    let (w, h) = (900.0, 560.0);
    let (left, right) = (70.0, 20.0);
    let panel = [(40.0, 220.0), (320.0, 200.0)];
    let series: Vec<(&FlowKey, &Vec<u64>)> = f
        .flow_tx_series()
        .iter()
        .filter(|((n, _), _)| *n == a)
        .map(|((_, k), v)| (k, v))
        .collect();
    let q = f.port_series(layout.congested.0, layout.congested.1);
    let n = q
        .len()
        .max(series.iter().map(|(_, v)| v.len()).max().unwrap_or(0))
        .max(2);
    let t_us = |i: usize| (i as f64) * SAMPLE_PS as f64 / 1e6;
    let t_max = t_us(n - 1);
    let x = |t: f64| left + (w - left - right) * t / t_max.max(1e-9);
    let interval_s = SAMPLE_PS as f64 / PS_PER_S as f64;
    let rate_max = series
        .iter()
        .flat_map(|(_, v)| v.iter())
        .map(|b| *b as f64 * 8.0 / interval_s / 1e9)
        .fold(1.0f64, f64::max);
    let q_max = q
        .iter()
        .map(|s| s.depth.iter().sum::<u64>() as f64 / 1000.0)
        .fold((kmin as f64 / 1000.0) * 1.2, f64::max);
    let colours = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf",
    ];
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    out += &format!("<text x=\"{left}\" y=\"25\" font-size=\"14\">ferroce demo: A's transmit rate per QP (Gb/s, {} us bins)</text>\n", SAMPLE_PS / 1_000_000);
    out += &format!(
        "<text x=\"{left}\" y=\"{}\" font-size=\"14\">Spine-1 -> Leaf-2 egress queue (KB); dashed: ECN Kmin {} KB</text>\n",
        panel[1].0 - 12.0,
        kmin / 1000
    );
    for (pi, (top, ph)) in panel.iter().enumerate() {
        let ymax = if pi == 0 { rate_max } else { q_max };
        out += &format!(
            "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\n",
            w - left - right
        );
        for k in 0..=4 {
            let v = ymax * k as f64 / 4.0;
            let y = top + ph - ph * k as f64 / 4.0;
            out += &format!(
                "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.1}</text>\n",
                left - 5.0,
                y + 4.0
            );
        }
        for k in 0..=5 {
            let t = t_max * k as f64 / 5.0;
            out += &format!(
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{t:.0} us</text>\n",
                x(t),
                top + ph + 15.0
            );
        }
    }
    let (top, ph) = panel[0];
    for (i, (k, v)) in series.iter().enumerate() {
        let pts: Vec<String> = v
            .iter()
            .enumerate()
            .map(|(j, b)| {
                let r = *b as f64 * 8.0 / interval_s / 1e9;
                format!("{:.1},{:.1}", x(t_us(j)), top + ph - ph * r / rate_max)
            })
            .collect();
        let c = colours[i % colours.len()];
        out += &format!(
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.2\" points=\"{}\"><title>UDP sport {}</title></polyline>\n",
            pts.join(" "),
            k.sport
        );
    }
    let (top, ph) = panel[1];
    let pts: Vec<String> = q
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let d = s.depth.iter().sum::<u64>() as f64 / 1000.0;
            format!("{:.1},{:.1}", x(t_us(j)), top + ph - ph * d / q_max)
        })
        .collect();
    out += &format!(
        "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"{}\"/>\n",
        pts.join(" ")
    );
    let yk = top + ph - ph * (kmin as f64 / 1000.0) / q_max;
    out += &format!(
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{yk:.1}\" y2=\"{yk:.1}\" stroke=\"gray\" stroke-dasharray=\"5,4\"/>\n",
        w - right
    );
    out += "</svg>\n";
    out
}
