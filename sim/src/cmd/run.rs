//! `ferroce run FILE`: build the fabric a scenario file describes ([`crate::scenario`]), put
//! its two ferroce hosts on it as whole ferroce NICs (the cycle-accurate hardware, Verilator
//! engine by default), run every workload through the driver's verbs API exactly as
//! `ferroce demo` does ([`verbs::run_scenario_planned`] over [`FabricMedium`]), with the plain
//! traffic sources and the faults the file gives, and report what happened.
//!
//! Every message is checked byte for byte at its receiver. Only the network is software.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ferroce_fabric::topology::{back_to_back, single_switch, spine_leaf, Built};
use ferroce_fabric::{packet, Fabric, FlowKey, HostConfig, HostKind, NodeId, Source};
use serde_json::{json, Value};

use super::verbs::{self, Engine, Plan, RunHooks, VerbsArgs, VerbsLinkArgs, VerbsReport};
use super::CliError;
use crate::fabric_net::{self, FabricMedium, FabricNet, SharedFabric, PS_PER_CYCLE};
use crate::nic_pair::PAIR_CLOCK_HZ;
use crate::plot::RatePlot;
use crate::report::{self, ip, port_toward, LinkCounts};
use crate::scenario::{self, HostRole, Scenario, TopologyKind};

pub use crate::report::SAMPLE_PS;

/// `ferroce run`'s options.
#[derive(Clone, Debug)]
pub struct RunArgs {
    pub file: PathBuf,
    pub engine: String,
    pub out: Option<PathBuf>,
    pub json: bool,
    /// Check the file and print what it describes; run nothing.
    pub check: bool,
    /// The two ferroce NICs' waveforms over this window (NIC A's to the file, B's beside it).
    pub vcd: Option<crate::vcd::VcdWindow>,
}

/// The fabric of a scenario with these UDP source ports for its traffic hosts; returns it
/// and the node of each host (in the file's order).
fn build_with(sc: &Scenario, sports: &[u16]) -> (Built, Vec<NodeId>) {
    let cfg = |i: usize| {
        let h = &sc.hosts[i];
        let kind = match &h.role {
            HostRole::Ferroce => HostKind::External,
            HostRole::Sink => HostKind::Sink,
            HostRole::Traffic(t) => HostKind::Source(Source {
                dst_mac: sc.hosts[t.to].mac,
                dst_ip: sc.hosts[t.to].ip,
                sport: sports[i],
                dport: t.udp_dport,
                frame_bytes: t.frame_bytes,
                rate_bps: t.rate_bps,
                dscp: t.dscp,
                priority: t.priority,
                ecn: if t.ect { 2 } else { 0 },
                start: t.start,
                stop: t.stop,
            }),
        };
        HostConfig {
            name: h.name.clone(),
            mac: h.mac,
            ip: h.ip,
            kind,
            // a MAC transmit FIFO of one 4 KiB frame and a little more
            tx_fifo_bytes: 4608,
            capture: sc.pcap == Some(i),
        }
    };
    match sc.topology {
        TopologyKind::BackToBack => {
            let t = back_to_back(cfg(0), cfg(1), sc.host_link);
            let ids = t.hosts.clone();
            (t, ids)
        }
        TopologyKind::SingleSwitch => {
            let t = single_switch(
                (0..sc.hosts.len()).map(cfg).collect(),
                sc.switch.clone(),
                sc.host_link,
            );
            let ids = t.hosts.clone();
            (t, ids)
        }
        TopologyKind::SpineLeaf => {
            // spine_leaf numbers hosts leaf by leaf: remember where each file host went
            let mut order = Vec::new();
            let mut leaves = vec![Vec::new(); sc.leaves];
            for l in 0..sc.leaves {
                for i in (0..sc.hosts.len()).filter(|i| sc.hosts[*i].leaf == l) {
                    leaves[l].push(cfg(i));
                    order.push(i);
                }
            }
            let t = spine_leaf(
                leaves,
                sc.spines,
                sc.switch.clone(),
                sc.host_link,
                sc.fabric_link,
            );
            let mut ids = vec![0; sc.hosts.len()];
            for (k, i) in order.into_iter().enumerate() {
                ids[i] = t.hosts[k];
            }
            (t, ids)
        }
    }
}

/// The scenario's fabric: traffic hosts with `via` get the first UDP source port from 49152
/// their leaf's ECMP hash sends to that spine; the faults are on their links.
fn build(sc: &Scenario) -> Result<(Built, Vec<NodeId>, Vec<u16>), CliError> {
    let mut sports: Vec<u16> = (0..sc.hosts.len())
        .map(|i| match &sc.hosts[i].role {
            HostRole::Traffic(t) => t.udp_sport.unwrap_or(49152 + i as u16),
            _ => 0,
        })
        .collect();
    if sc
        .hosts
        .iter()
        .any(|h| matches!(&h.role, HostRole::Traffic(t) if t.via.is_some()))
    {
        let (probe, _) = build_with(sc, &sports);
        for (i, h) in sc.hosts.iter().enumerate() {
            let HostRole::Traffic(t) = &h.role else {
                continue;
            };
            let Some(via) = t.via else { continue };
            let leaf = probe.leaves[h.leaf];
            let up = port_toward(&probe.fabric, leaf, probe.spines[via]);
            let dst = &sc.hosts[t.to];
            sports[i] = (49152u16..=u16::MAX)
                .find(|s| {
                    let key = FlowKey {
                        src_ip: packet::mapped(h.ip),
                        dst_ip: packet::mapped(dst.ip),
                        sport: *s,
                        dport: t.udp_dport,
                    };
                    probe.fabric.ecmp_port(leaf, &key, 17) == Some(up)
                })
                .ok_or_else(|| {
                    CliError(format!(
                        "host '{}': no UDP source port takes its traffic through Spine-{}",
                        h.name,
                        via + 1
                    ))
                })?;
        }
    }
    let (mut t, ids) = build_with(sc, &sports);
    let mut names: BTreeMap<String, NodeId> = BTreeMap::new();
    for (i, h) in sc.hosts.iter().enumerate() {
        names.insert(h.name.clone(), ids[i]);
    }
    for s in t.fabric.switches() {
        names.insert(t.fabric.name(s).to_string(), s);
    }
    for f in &sc.faults {
        let (a, b) = (names[&f.link[0]], names[&f.link[1]]);
        let p = port_toward(&t.fabric, a, b);
        t.fabric.set_link_faults(a, p, f.fault.clone());
    }
    t.fabric.sample_every(SAMPLE_PS);
    Ok((t, ids, sports))
}

fn describe(sc: &Scenario, sports: &[u16]) -> String {
    let mut s = format!("scenario '{}': {} topology", sc.name, sc.topology.name());
    if sc.topology == TopologyKind::SpineLeaf {
        s += &format!(" ({} leaves, {} spines)", sc.leaves, sc.spines);
    }
    s += &format!(", host links {} Gb/s", sc.host_link.rate_bps as f64 / 1e9);
    if sc.topology == TopologyKind::SpineLeaf {
        s += &format!(
            ", fabric links {} Gb/s",
            sc.fabric_link.rate_bps as f64 / 1e9
        );
    }
    if sc.ferroce.is_empty() {
        s += "; no ferroce NIC (plain hosts only)\n";
    } else {
        s += &format!(
            "; {} messages on {} QP pair(s), PMTU {}\n",
            sc.plan.len(),
            sc.qps,
            sc.pmtu
        );
    }
    for (i, h) in sc.hosts.iter().enumerate() {
        let what = match &h.role {
            HostRole::Ferroce => "ferroce NIC (the cycle-accurate hardware, driven through the verbs API)".to_string(),
            HostRole::Sink => "plain sink".to_string(),
            HostRole::Traffic(t) => format!(
                "plain traffic source, not a ferroce NIC: {} Gb/s of {} B UDP frames to {} (UDP source port {})",
                t.rate_bps as f64 / 1e9,
                t.frame_bytes,
                sc.hosts[t.to].name,
                sports[i]
            ),
        };
        let at = if sc.topology == TopologyKind::SpineLeaf {
            format!(" on Leaf-{}", h.leaf + 1)
        } else {
            String::new()
        };
        s += &format!("  {} {}{at}: {what}\n", h.name, ip(h.ip));
    }
    s
}

pub fn run(args: &RunArgs) -> Result<ExitCode, CliError> {
    let sc = scenario::load(&args.file).map_err(|e| CliError(e.0))?;
    if args.check {
        super::engine_and_vcd(&args.engine, args.vcd.as_ref())?;
        let (_, _, sports) = build(&sc)?;
        print!("{}", describe(&sc, &sports));
        println!("  the file is good (--check: nothing run)");
        return Ok(ExitCode::SUCCESS);
    }
    let out = execute(&sc, args, None, None)?;
    let summary = out.summary;
    if args.json {
        println!("{summary}");
    } else {
        print_summary(&summary);
    }
    Ok(if out.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A hook called on every NIC's device once it is open ([`RunHooks::setup`]).
pub type Setup = fn(&ferroce_driver::Device) -> Result<(), CliError>;

/// What [`execute`] leaves: the summary (also in `summary.json` when asked), the NICs' report,
/// the fabric after the run (its outputs taken) and each host's node.
pub struct Outcome {
    pub summary: Value,
    pub report: Option<VerbsReport>,
    pub fabric: Fabric,
    pub ids: Vec<NodeId>,
    /// Every message completed and verified.
    pub ok: bool,
}

/// Run a checked scenario (from a file, or built by a command such as `ferroce incast`): build
/// its fabric, put its ferroce hosts on it as whole NICs on `args.engine`, run every workload
/// through the verbs API, write the outputs `args.out` asks for, summarise. `setup` is called
/// on every NIC's device once it is open.
/// Run a scenario; `setup` is called on every NIC's device once open, `dcqcn_params` (if any)
/// are the NICs' DCQCN parameters (mlx5 names; `rpg_max_rate` capped at the host link's rate).
pub fn execute(
    sc: &Scenario,
    args: &RunArgs,
    setup: Option<Setup>,
    dcqcn_params: Option<ferroce_driver::DcqcnParams>,
) -> Result<Outcome, CliError> {
    let engine = super::engine_and_vcd(&args.engine, args.vcd.as_ref())?;
    let (built, ids, sports) = build(sc)?;
    if !args.json {
        print!("{}", describe(sc, &sports));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| CliError(format!("{}: {e}", dir.display())))?;
    }
    let wall = Instant::now();
    let Built { mut fabric, .. } = built;
    let (report, mut fabric) = if sc.ferroce.is_empty() {
        fabric.advance(sc.duration.expect("checked"));
        (None, fabric)
    } else {
        let shared: SharedFabric = Arc::new(Mutex::new(FabricNet {
            fabric,
            nics: sc.ferroce.iter().map(|i| ids[*i]).collect(),
        }));
        let report = run_nics(
            sc,
            engine,
            args.json,
            args.vcd.as_ref(),
            &shared,
            setup,
            dcqcn_params,
        )?;
        let fabric = std::mem::take(&mut fabric_net::lock(&shared).fabric);
        (Some(report), fabric)
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let summary = summarise(
        args,
        sc,
        report.as_ref(),
        &mut fabric,
        &ids,
        &sports,
        wall_s,
    )?;
    let ok = report
        .as_ref()
        .is_none_or(|r| r.failed == 0 && r.verified == r.messages);
    Ok(Outcome {
        summary,
        report,
        fabric,
        ids,
        ok,
    })
}

fn run_nics(
    sc: &Scenario,
    engine: Engine,
    quiet: bool,
    vcd: Option<&crate::vcd::VcdWindow>,
    shared: &SharedFabric,
    setup: Option<Setup>,
    dcqcn_params: Option<ferroce_driver::DcqcnParams>,
) -> Result<VerbsReport, CliError> {
    let vargs = VerbsArgs {
        ops: vec!["write".into()],
        sizes: vec!["0".into()],
        qps: sc.qps,
        messages: sc.plan.len(),
        seed: sc.seed,
        pmtu: sc.pmtu,
        pcap: None,
        json: quiet,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    };
    let link = VerbsLinkArgs {
        timeout: Some(sc.timeout),
        retry_cnt: sc.retry_cnt,
        ..VerbsLinkArgs::default()
    };
    let total = sc.plan.len();
    let hooks = RunHooks {
        addrs: sc
            .ferroce
            .iter()
            .map(|i| (sc.hosts[*i].mac, sc.hosts[*i].ip))
            .collect(),
        medium: Some(Box::new(FabricMedium(shared.clone()))),
        one_way: false,
        flow_sports: true,
        progress: Some(Box::new(move |cycles, r: &VerbsReport| {
            if !quiet {
                eprintln!(
                    "  {:>8.1} us simulated: {}/{} messages done",
                    cycles as f64 * 1e6 / PAIR_CLOCK_HZ as f64,
                    r.records.len(),
                    total
                );
            }
        })),
        progress_every: 100_000,
        set_bits: Vec::new(),
        setup,
        shells: Vec::new(),
        // the NICs learn their links' rate (PFC quanta, the DCQCN reaction point's cap)
        link_mbps: Some((sc.host_link.rate_bps / 1_000_000) as u32),
        dcqcn_params,
    };
    let plan = Plan {
        messages: sc.plan.clone(),
        deadline: sc.duration.map(|d| d / PS_PER_CYCLE),
    };
    verbs::run_scenario_full(&vargs, &link, engine, hooks, vcd, Some(plan))
}

#[allow(clippy::too_many_arguments)]
fn summarise(
    args: &RunArgs,
    sc: &Scenario,
    r: Option<&VerbsReport>,
    f: &mut Fabric,
    ids: &[NodeId],
    sports: &[u16],
    wall_s: f64,
) -> Result<Value, CliError> {
    let kmin = sc.switch.red.map(|r| r.kmin);
    // per operation (the ferroce hosts' messages)
    let ops = r.map(report::operations).unwrap_or_default();
    // per QP: its UDP source port and the spine that carried it
    let mut per_qp = Vec::new();
    // (every sender's QPs: with two hosts, A's)
    let n = sc.ferroce.len();
    if let Some(r) = r {
        for (side, q) in (0..n - 1).flat_map(|s| (0..sc.qps).map(move |q| (s, q))) {
            let (hub, hq) = verbs::peer_of(n, sc.qps, side, q);
            let (lqpn, rqpn) = (r.per_host[side].qpns[q], r.per_host[hub].qpns[hq]);
            let flow = ferroce_proto::flow::calc_flow_label(lqpn, rqpn);
            let sport = ferroce_proto::flow::udp_source_port(lqpn, rqpn, flow);
            let a_ip = packet::mapped(sc.hosts[sc.ferroce[side]].ip);
            let spines: Vec<String> = f
                .switches()
                .into_iter()
                .filter(|s| f.name(*s).starts_with("Spine-"))
                .filter(|s| {
                    f.switch_flows(*s)
                        .keys()
                        .any(|k| k.sport == sport && k.src_ip == a_ip)
                })
                .map(|s| f.name(s).to_string())
                .collect();
            let mut v = json!({
                "qp": q, "qpn_a": lqpn, "qpn_b": rqpn, "udp_sport": sport, "spines_from_a": spines,
            });
            if n > 2 {
                v["sender"] = json!(sc.hosts[sc.ferroce[side]].name);
            }
            per_qp.push(v);
        }
    }
    // every switch port that queued past Kmin or marked, dropped, paused or lost frames; the
    // busiest (largest peak) is the one plotted
    let ports = report::scan_ports(&f, kmin);
    // the faulty links: frames lost in each direction
    let mut links = Vec::new();
    let node = |n: &str| -> NodeId {
        sc.hosts
            .iter()
            .position(|h| h.name == n)
            .map(|i| ids[i])
            .or_else(|| f.switches().into_iter().find(|s| f.name(*s) == n))
            .expect("checked")
    };
    for x in &sc.faults {
        let (a, b) = (node(&x.link[0]), node(&x.link[1]));
        let (pa, pb) = (port_toward(f, a, b), port_toward(f, b, a));
        links.push(json!({
            "link": format!("{} - {}", x.link[0], x.link[1]),
            "loss": x.fault.loss,
            "down_us": x.fault.down.iter().map(|(a, b)| [*a as f64 / 1e6, *b as f64 / 1e6]).collect::<Vec<_>>(),
            "lost": {
                format!("{} -> {}", x.link[0], x.link[1]): f.port_stats(a, pa).lost,
                format!("{} -> {}", x.link[1], x.link[0]): f.port_stats(b, pb).lost,
            },
        }));
    }
    // hosts
    let hosts: Vec<Value> = sc
        .hosts
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let st = f.host_stats(ids[i]);
            let kind = match &h.role {
                HostRole::Ferroce => "ferroce NIC".to_string(),
                HostRole::Sink => "plain sink".to_string(),
                HostRole::Traffic(_) => "plain traffic source (not a ferroce NIC)".to_string(),
            };
            let mut v = json!({
                "name": h.name, "kind": kind, "ip": ip(h.ip),
                "tx_frames": st.tx_frames, "tx_bytes": st.tx_bytes,
                "rx_frames": st.rx_frames, "rx_bytes": st.rx_bytes,
                "rx_ce": st.rx_ce, "rx_pfc": st.rx_pfc,
            });
            if let HostRole::Traffic(t) = &h.role {
                v["to"] = json!(sc.hosts[t.to].name);
                v["udp_sport"] = json!(sports[i]);
                v["offered_gbps"] = json!(t.rate_bps as f64 / 1e9);
            }
            if sc.topology == TopologyKind::SpineLeaf {
                v["leaf"] = json!(h.leaf + 1);
            }
            v
        })
        .collect();
    // the captured link, counted from its frames (what the pcap holds)
    let mut files = serde_json::Map::new();
    let mut pcap_counts = Value::Null;
    if let Some(i) = sc.pcap {
        let cap = f.take_capture(ids[i]);
        let c = LinkCounts::of(&cap);
        pcap_counts = json!({
            "host": sc.hosts[i].name,
            "frames": c.frames,
            "roce_sent": c.sent,
            "roce_received": c.received,
            "ce_received": c.ce_received,
            "pfc_received": c.pfc_received,
        });
        if let Some(dir) = &args.out {
            let p = dir.join(format!("{}.pcap", sc.hosts[i].name));
            report::write_pcap(&p, &cap)?;
            files.insert("pcap".into(), json!(p.display().to_string()));
        }
    }
    if let (Some(dir), true) = (&args.out, sc.plot) {
        // the first ferroce host's flows (or the first traffic host's) and the busiest queue
        let who = sc
            .ferroce
            .first()
            .copied()
            .or_else(|| {
                sc.hosts
                    .iter()
                    .position(|h| matches!(h.role, HostRole::Traffic(_)))
            })
            .unwrap_or(0);
        let plot = RatePlot::from_fabric(&f, ids[who], ports.busiest.map(|b| b.0), SAMPLE_PS, kmin);
        let p = dir.join("rates.svg");
        report::write_file(&p, plot.svg())?;
        files.insert("svg".into(), json!(p.display().to_string()));
        let p = dir.join("rates.png");
        report::write_file(&p, plot.png())?;
        files.insert("png".into(), json!(p.display().to_string()));
    }
    let cycles = r.map_or(f.now() / PS_PER_CYCLE, |r| r.cycles);
    let nics = if sc.ferroce.is_empty() {
        "none: plain hosts only".to_string()
    } else if sc.ferroce.len() == 2 {
        format!("{} and {}: two ferroce NICs (the cycle-accurate hardware model), driven through the driver's verbs API", sc.hosts[sc.ferroce[0]].name, sc.hosts[sc.ferroce[1]].name)
    } else {
        format!("{}: {} ferroce NICs (the cycle-accurate hardware model), driven through the driver's verbs API", sc.ferroce.iter().map(|i| sc.hosts[*i].name.as_str()).collect::<Vec<_>>().join(", "), sc.ferroce.len())
    };
    let mut summary = json!({
        "scenario": sc.name,
        "engine": if sc.ferroce.is_empty() { "none" } else { args.engine.as_str() },
        "nics": nics,
        "topology": {
            "kind": sc.topology.name(),
            "leaves": sc.leaves, "spines": sc.spines,
            "host_link_gbps": sc.host_link.rate_bps as f64 / 1e9,
            "fabric_link_gbps": sc.fabric_link.rate_bps as f64 / 1e9,
            "ecn_kmin_bytes": kmin,
            "pfc": sc.switch.pfc.is_some(),
        },
        "qps": sc.qps,
        "messages": r.map_or(0, |r| r.messages),
        "verified": r.map_or(0, |r| r.verified),
        "failed": r.map_or(0, |r| r.failed),
        "errors": r.map_or(Vec::new(), |r| r.errors.clone()),
        "operations": ops,
        "per_qp": per_qp,
        "retransmitted_packets": r.map(|r| json!({"a": r.retransmitted[0], "b": r.retransmitted[1]})),
        "ack_timeouts": r.map(|r| json!({"a": r.timeouts[0], "b": r.timeouts[1]})),
        "naks": r.map(|r| json!({"a": r.naks[0], "b": r.naks[1]})),
        "hosts": hosts,
        "ecn": {"ce_marked_by_switches": ports.marked},
        "pfc": {"xoff_sent": ports.xoff, "xon_sent": ports.xon},
        "drops": {"switches": ports.drops, "headroom": ports.headroom_drops},
        "queues": ports.queues,
        "faulty_links": links,
        "pcap_link": pcap_counts,
        "files": files,
        "cycles": cycles,
        "simulated_us": f.now() as f64 / 1e6,
        "fabric_events": f.events_run(),
        "wall_s": wall_s,
    });
    if let (Some(dir), true) = (&args.out, sc.summary) {
        let p = dir.join("summary.json");
        summary["files"]["summary"] = json!(p.display().to_string());
        report::write_summary(&p, &summary)?;
    }
    Ok(summary)
}

pub fn print_summary(s: &Value) {
    report::print_headline(s);
    for e in s["errors"].as_array().into_iter().flatten() {
        println!("  error: {}", e.as_str().unwrap_or(""));
    }
    report::print_operations(s);
    if !s["retransmitted_packets"].is_null() {
        println!(
            "  retransmitted packets A/B: {}/{}; ACK timeouts A/B: {}/{}",
            s["retransmitted_packets"]["a"],
            s["retransmitted_packets"]["b"],
            s["ack_timeouts"]["a"],
            s["ack_timeouts"]["b"]
        );
    }
    println!(
        "  switches: {} CE marks, {} PFC XOFF / {} XON sent, {} drops",
        s["ecn"]["ce_marked_by_switches"],
        s["pfc"]["xoff_sent"],
        s["pfc"]["xon_sent"],
        s["drops"]["switches"]
    );
    println!(
        "  host        kind                                       tx frames  rx frames  rx CE"
    );
    for h in s["hosts"].as_array().into_iter().flatten() {
        println!(
            "  {:<11} {:<42} {:>9} {:>10} {:>6}",
            h["name"].as_str().unwrap_or(""),
            h["kind"].as_str().unwrap_or(""),
            h["tx_frames"].as_u64().unwrap_or(0),
            h["rx_frames"].as_u64().unwrap_or(0),
            h["rx_ce"].as_u64().unwrap_or(0)
        );
    }
    report::print_queues(s);
    for l in s["faulty_links"].as_array().into_iter().flatten() {
        println!(
            "  faulty link {}: lost {}",
            l["link"].as_str().unwrap_or(""),
            l["lost"]
        );
    }
    report::print_files(s);
}
