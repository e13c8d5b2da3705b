//! `ferroce incast`: N sender NICs write to one receiver NIC through one switch, every host
//! link at the same rate (10 Gb/s by default), so the switch's egress port toward the
//! receiver is the bottleneck and its queue takes whatever the senders send beyond its rate.
//!
//! The incast is a [`Scenario`] built here (a `single_switch` topology of N + 1 ferroce hosts)
//! and run by `ferroce run`'s machinery ([`run::execute`]): every endpoint is a whole ferroce
//! NIC (the cycle-accurate hardware, Verilator engine by default) driven through the driver's
//! verbs API, every message an RDMA WRITE checked byte for byte at the receiver. Only the
//! switch and the links are software.
//!
//! Measured, on top of the scenario summary:
//! - per sender: goodput (its verified bytes over the time from its first post to its last
//!   completion) and its goodput in the convergence window (the bytes of its messages that
//!   completed in the window, over the window: message-grained);
//! - the convergence window: the second half of the time in which every sender has work (from
//!   the first post to the earliest last completion of any sender); Jain's fairness index
//!   (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984) is taken over the senders' goodputs there;
//! - bottleneck utilisation: the wire bits (frames plus preamble, FCS and inter-frame gap)
//!   the switch sent toward the receiver in that window over the link's capacity;
//! - the bottleneck queue's depth p50/p99 over the fabric's samples while traffic runs (and
//!   again in the convergence window alone), and its peak; drops (every frame the switch dropped, PFC headroom overflows among them), PFC
//!   XOFF frames the switch sent, CE marks,
//!   CNPs the receiver's NIC sent.
use std::path::PathBuf;
use std::process::ExitCode;

use ferroce_driver::Device;
use ferroce_fabric::{LinkSpec, SwitchConfig, PS_PER_S, WIRE_OVERHEAD};
use serde_json::{json, Value};

use super::run::{self, RunArgs};
use super::verbs::{self, PlannedMessage, VerbOp, MAX_SIZE};
use super::CliError;
use crate::fabric_net::PS_PER_CYCLE;
use crate::report::{percentile, port_toward};
use crate::scenario::{HostRole, HostSpec, Scenario, TopologyKind, DEFAULT_TIMEOUT};

/// Most senders an incast takes (the receiver holds one QP per sender QP).
pub const MAX_SENDERS: usize = 16;

/// `ferroce incast`'s options.
#[derive(clap::Args, Clone, Debug)]
pub struct IncastArgs {
    /// Sender NICs (1..=16), each writing to the one receiver NIC.
    #[arg(long, default_value_t = 2)]
    pub senders: usize,
    /// Bytes per RDMA WRITE (e.g. 4096, 64K, 1M).
    #[arg(long, default_value = "64K")]
    pub size: String,
    /// WRITEs each sender posts (all at once; the NIC's send window paces them).
    #[arg(long, default_value_t = 24)]
    pub messages: u64,
    /// QPs per sender (the receiver has one for each).
    #[arg(long, default_value_t = 1)]
    pub qps: usize,
    /// The NICs' DCQCN reaction point (rate cuts on CNPs): on or off.
    #[arg(long, default_value = "off")]
    pub dcqcn: String,
    /// The NICs' DCQCN parameters: a JSON file of mlx5 names (`rpg_time_reset`,
    /// `rpg_ai_rate`, `min_time_between_cnps`, ...; docs/CONGESTION.md); absent names keep
    /// mlx5's defaults, `rpg_max_rate` is capped at the link's rate.
    #[arg(long, value_name = "FILE")]
    pub dcqcn_params: Option<PathBuf>,
    /// The switch's PFC on priority 3 (XOFF 256 KB, XON 128 KB, headroom 128 KB): on or off.
    #[arg(long, default_value = "on")]
    pub pfc: String,
    /// The switch's ECN marking (RED, Kmin 200 KB, Kmax 800 KB, Pmax 0.2): on or off.
    #[arg(long, default_value = "on")]
    pub ecn: String,
    /// RED's Kmin, bytes of egress queue where marking starts.
    #[arg(long, default_value_t = 200_000)]
    pub kmin: u64,
    /// RED's Kmax, bytes of egress queue where the marking probability reaches Pmax (every
    /// ECT packet is marked above it).
    #[arg(long, default_value_t = 800_000)]
    pub kmax: u64,
    /// RED's marking probability at Kmax (0 < P <= 1).
    #[arg(long, default_value_t = 0.2)]
    pub pmax: f64,
    /// The switch's shared buffer, bytes (default 12 MB).
    #[arg(long, default_value_t = 12_000_000)]
    pub buffer: u64,
    /// Every host link's rate, Gb/s.
    #[arg(long, default_value_t = 10.0)]
    pub gbps: f64,
    /// Path MTU of the QPs (256, 512, 1024, 2048, 4096).
    #[arg(long, default_value_t = 4096)]
    pub pmtu: usize,
    /// Give up (the unfinished messages count as failed) after this many simulated us.
    #[arg(long, value_name = "US")]
    pub duration: Option<f64>,
    /// Seed of the data, the PSNs and the switch's hash.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Hardware model of the NICs: verilator (fast) or rust-hdl (slow).
    #[arg(long, default_value = "verilator")]
    pub engine: String,
    /// Write rates.svg, rates.png and summary.json here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as one JSON object (no progress lines).
    #[arg(long)]
    pub json: bool,
}

fn on_off(name: &str, v: &str) -> Result<bool, CliError> {
    match v {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(CliError(format!("--{name} '{v}' is not on or off"))),
    }
}

/// Switch the NIC's DCQCN reaction point on ([`verbs::enable_dcqcn`]); the run enables every
/// QP once connected.
pub fn enable_dcqcn(dev: &Device) -> Result<(), CliError> {
    verbs::enable_dcqcn(dev)
}

/// The incast as a scenario: senders S1..SN (10.0.1.10..) and the receiver R last (the hub of
/// the QP pairing, [`verbs::peer_of`]), all ferroce NICs on one switch.
pub fn scenario(a: &IncastArgs) -> Result<Scenario, CliError> {
    if !(1..=MAX_SENDERS).contains(&a.senders) {
        return Err(CliError(format!(
            "--senders {} is not 1..={MAX_SENDERS}",
            a.senders
        )));
    }
    let size = verbs::parse_size(&a.size).map_err(|e| CliError(format!("--size: {e}")))?;
    if size == 0 {
        return Err(CliError(
            "--size 0: an incast moves bytes (1 or more)".into(),
        ));
    }
    if a.qps == 0 || a.qps * a.senders > 64 {
        return Err(CliError(format!(
            "--qps {}: 1 or more per sender, at most 64 at the receiver (senders x qps)",
            a.qps
        )));
    }
    if !(1..=10_000).contains(&a.messages) {
        return Err(CliError(format!(
            "--messages {} is not 1..=10000",
            a.messages
        )));
    }
    let dcqcn = on_off("dcqcn", &a.dcqcn)?;
    let pfc = on_off("pfc", &a.pfc)?;
    let ecn = on_off("ecn", &a.ecn)?;
    let _ = dcqcn;
    if !(0.001..=1000.0).contains(&a.gbps) {
        return Err(CliError(format!(
            "--gbps {} is not a rate of 0.001..=1000 Gb/s",
            a.gbps
        )));
    }
    if !(64_000..=1_000_000_000).contains(&a.buffer) {
        return Err(CliError(format!(
            "--buffer {} is not 64000..=1000000000 bytes",
            a.buffer
        )));
    }
    if ![256, 512, 1024, 2048, 4096].contains(&a.pmtu) {
        return Err(CliError(format!(
            "--pmtu {} is not a path MTU (256, 512, 1024, 2048, 4096)",
            a.pmtu
        )));
    }
    let duration = match a.duration {
        Some(d) if !(d > 0.0 && d <= 1e6) => {
            return Err(CliError(format!(
                "--duration {d} is not in (0, 1000000] us"
            )))
        }
        Some(d) => Some((d * 1e6).round() as u64),
        None => None,
    };
    debug_assert!(size <= MAX_SIZE);
    let mut switch = SwitchConfig {
        buffer_bytes: a.buffer,
        ecmp_seed: a.seed,
        ..SwitchConfig::default()
    };
    if !pfc {
        switch.pfc = None;
    }
    if !(a.kmin < a.kmax && a.kmax <= a.buffer) {
        return Err(CliError(format!(
            "--kmin {} and --kmax {}: Kmin must be below Kmax, and Kmax at most the buffer ({})",
            a.kmin, a.kmax, a.buffer
        )));
    }
    if !(a.pmax > 0.0 && a.pmax <= 1.0) {
        return Err(CliError(format!(
            "--pmax {} is not a probability in (0, 1]",
            a.pmax
        )));
    }
    if let Some(red) = switch.red.as_mut() {
        red.kmin = a.kmin;
        red.kmax = a.kmax;
        red.pmax = a.pmax;
    }
    if !ecn {
        switch.red = None;
    }
    let n = a.senders;
    let host = |i: usize, name: String| HostSpec {
        name,
        role: HostRole::Ferroce,
        leaf: 0,
        mac: [0x02, 0xfe, 0, 1, 0, i as u8],
        ip: [10, 0, 1, 10 + i as u8],
    };
    let mut hosts: Vec<HostSpec> = (0..n).map(|i| host(i, format!("S{}", i + 1))).collect();
    hosts.push(host(n, "R".into()));
    // every sender's messages from the start, interleaved (the posting order), round robin
    // over its QPs
    let mut plan = Vec::new();
    for m in 0..a.messages {
        for s in 0..n {
            plan.push(PlannedMessage {
                side: s,
                qp: (m as usize) % a.qps,
                op: VerbOp::Write,
                size,
                not_before: 0,
            });
        }
    }
    let link = LinkSpec {
        rate_bps: (a.gbps * 1e9).round() as u64,
        delay_ps: 500_000,
    };
    Ok(Scenario {
        name: format!("incast {n}:1"),
        description: format!(
            "{n} sender NIC(s) write {size} B messages to one receiver NIC through one switch"
        ),
        seed: a.seed,
        duration,
        topology: TopologyKind::SingleSwitch,
        leaves: 1,
        spines: 0,
        host_link: link,
        fabric_link: link,
        switch,
        hosts,
        ferroce: (0..=n).collect(),
        qps: a.qps,
        pmtu: a.pmtu,
        timeout: DEFAULT_TIMEOUT,
        retry_cnt: 7,
        plan,
        faults: Vec::new(),
        pcap: None,
        plot: true,
        summary: true,
    })
}

/// Jain's fairness index of `x`: (sum x)^2 / (n sum x^2), 1 when all are equal, 1/n when one
/// takes everything.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        0.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

pub fn run(a: &IncastArgs) -> Result<ExitCode, CliError> {
    let sc = scenario(a)?;
    let dcqcn = on_off("dcqcn", &a.dcqcn)?;
    let pfc = on_off("pfc", &a.pfc)?;
    let rargs = RunArgs {
        file: PathBuf::from("incast"),
        engine: a.engine.clone(),
        out: a.out.clone(),
        json: a.json,
        check: false,
        vcd: None,
    };
    // the NICs' own DCQCN and PFC as asked (PFC on: the switch's pauses honoured, XOFF sent
    // from a NIC's receive FIFO)
    let setup: Option<run::Setup> = match (dcqcn, pfc) {
        (true, true) => Some(verbs::enable_dcqcn_and_pfc),
        (true, false) => Some(enable_dcqcn),
        (false, true) => Some(verbs::enable_pfc),
        (false, false) => None,
    };
    let params = match &a.dcqcn_params {
        Some(p) => {
            let what = format!("--dcqcn-params {}", p.display());
            let text = std::fs::read_to_string(p).map_err(|e| CliError(format!("{what}: {e}")))?;
            Some(verbs::parse_dcqcn_params(&text, &what)?)
        }
        None => None,
    };
    let mut out = run::execute(&sc, &rargs, setup, params)?;
    let incast = measure(&sc, &mut out, dcqcn)?;
    for (k, v) in incast.as_object().expect("an object") {
        out.summary[k] = v.clone();
    }
    out.summary["dcqcn_params_file"] =
        json!(a.dcqcn_params.as_ref().map(|p| p.display().to_string()));
    if let Some(dir) = &a.out {
        let p = dir.join("summary.json");
        std::fs::write(
            &p,
            serde_json::to_string_pretty(&out.summary).expect("json"),
        )
        .map_err(|e| CliError(format!("{}: {e}", p.display())))?;
    }
    if a.json {
        println!("{}", out.summary);
    } else {
        run::print_summary(&out.summary);
        print_incast(&out.summary);
    }
    Ok(if out.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The incast's own numbers (see the module docs).
fn measure(sc: &Scenario, out: &mut run::Outcome, dcqcn: bool) -> Result<Value, CliError> {
    let r = out
        .report
        .as_ref()
        .ok_or_else(|| CliError("no NIC report".into()))?;
    let f = &out.fabric;
    let n = sc.ferroce.len() - 1;
    let rx = out.ids[sc.ferroce[n]];
    let sw = f.switches()[0];
    let port = port_toward(f, sw, rx);
    let rate = sc.host_link.rate_bps as f64;
    let ps = |cycles: u64| cycles * PS_PER_CYCLE;
    // per sender: its messages' span
    let mut first = vec![u64::MAX; n];
    let mut last = vec![0u64; n];
    let mut bytes = vec![0u64; n];
    let mut msgs = vec![0u64; n];
    let mut ok = vec![0u64; n];
    for m in &r.records {
        let s = m.side;
        first[s] = first[s].min(ps(m.posted));
        last[s] = last[s].max(ps(m.completed));
        msgs[s] += 1;
        if m.ok {
            ok[s] += 1;
            bytes[s] += m.bytes as u64;
        }
    }
    let t_start = first.iter().copied().min().unwrap_or(0);
    let t_all_end = last.iter().copied().max().unwrap_or(0);
    let t_end = last.iter().copied().min().unwrap_or(0);
    let t_conv = t_start + t_end.saturating_sub(t_start) / 2;
    let series = f.port_series(sw, port);
    // each sender's goodput in the convergence window: the bytes of its verified messages
    // completed in it
    let mut in_window = vec![0u64; n];
    for m in r.records.iter().filter(|m| m.ok) {
        let t = ps(m.completed);
        if t > t_conv && t <= t_end {
            in_window[m.side] += m.bytes as u64;
        }
    }
    let window_s = t_end.saturating_sub(t_conv) as f64 / PS_PER_S as f64;
    let conv_rates: Vec<f64> = in_window
        .iter()
        .map(|b| {
            if window_s > 0.0 {
                *b as f64 * 8.0 / window_s / 1e9
            } else {
                0.0
            }
        })
        .collect();
    // bottleneck utilisation over the window's samples
    let at = |t: u64| series.iter().find(|x| x.t >= t);
    let upto = |t: u64| series.iter().rev().find(|x| x.t <= t);
    let utilization = match (at(t_conv), upto(t_end)) {
        (Some(a), Some(b)) if b.t > a.t => {
            let wire = (b.tx_bytes - a.tx_bytes) + WIRE_OVERHEAD * (b.tx_frames - a.tx_frames);
            wire as f64 * 8.0 / (rate * (b.t - a.t) as f64 / PS_PER_S as f64)
        }
        _ => 0.0,
    };
    // queue depth while traffic runs
    let mut depths: Vec<f64> = series
        .iter()
        .filter(|x| x.t >= t_start && x.t <= t_all_end)
        .map(|x| x.depth.iter().sum::<u64>() as f64)
        .collect();
    depths.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    // ... and in the convergence window
    let mut conv_depths: Vec<f64> = series
        .iter()
        .filter(|x| x.t >= t_conv && x.t <= t_end)
        .map(|x| x.depth.iter().sum::<u64>() as f64)
        .collect();
    conv_depths.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    let st = f.port_stats(sw, port);
    // (a PFC headroom overflow is one of the port's drops too)
    let headroom_drops = f.switch_stats(sw).headroom_drops;
    let mut drops = 0;
    let mut xoff = 0;
    let mut marked = 0;
    for p in 0..f.ports(sw) {
        let s = f.port_stats(sw, p);
        drops += s.drops;
        xoff += s.pfc_xoff_sent;
        marked += s.marked;
    }
    let cnps: u64 = r.per_host.iter().map(|h| h.cnp_sent).sum();
    let senders: Vec<Value> = (0..n)
        .map(|s| {
            let h = &sc.hosts[sc.ferroce[s]];
            let c = &r.per_host[s];
            let span = last[s].saturating_sub(first[s]) as f64 / PS_PER_S as f64;
            json!({
                "name": h.name,
                "ip": format!("{}.{}.{}.{}", h.ip[0], h.ip[1], h.ip[2], h.ip[3]),
                "messages": msgs[s],
                "verified": ok[s],
                "bytes": bytes[s],
                "goodput_gbps": if span > 0.0 { bytes[s] as f64 * 8.0 / span / 1e9 } else { 0.0 },
                "converged_goodput_gbps": conv_rates[s],
                "retransmitted_packets": c.retransmitted,
                "ack_timeouts": c.timeouts,
                "cnps_received": c.cnp_received,
                "dcqcn_rate_cuts": c.rp_rate_cuts,
                // its (first) QP's rate as its NIC reports it (CC_QP_RATE, sampled every 10 us while
                // DCQCN is on): at the end, averaged over the convergence window, lowest
                "rate_final_mbps": c.final_rate.first().map(|f| f.mbps_or(r.line_mbps)),
                "rate_converged_mbps": c.rate_samples.first().and_then(|s| {
                    verbs::time_averaged_mbps_in(s, t_conv / PS_PER_CYCLE, t_end / PS_PER_CYCLE)
                }),
                "rate_min_mbps": c.rate_samples.first().and_then(|s| s.iter().map(|x| x.1).min()),
                "pfc_frames_received": f.host_stats(out.ids[sc.ferroce[s]]).rx_pfc,
            })
        })
        .collect();
    let nic = &r.per_host[n];
    Ok(json!({
        "senders": senders,
        "receiver": sc.hosts[sc.ferroce[n]].name,
        "size_bytes": sc.plan.first().map_or(0, |m| m.size),
        "messages_per_sender": sc.plan.len() / n,
        "qps_per_sender": sc.qps,
        "dcqcn": dcqcn,
        "switch_pfc": sc.switch.pfc.is_some(),
        "switch_ecn": sc.switch.red.is_some(),
        "nic_honours_pfc": r.per_host.iter().all(|h| h.has_pfc && h.pfc_on),
        "nic_dcqcn_rp": r.per_host.iter().all(|h| h.has_dcqcn_rp),
        "nic_dcqcn_np": nic.has_dcqcn_np,
        "bottleneck": {
            "port": format!("{} -> {}", f.name(sw), f.name(rx)),
            "gbps": rate / 1e9,
        },
        "convergence": {
            "definition": "the second half of the time every sender has work (first post to the earliest last completion)",
            "from_us": t_conv as f64 / 1e6,
            "to_us": t_end as f64 / 1e6,
        },
        "jain": jain(&conv_rates),
        "utilization": utilization,
        "goodput_sum_gbps": (0..n).map(|s| {
            let span = last[s].saturating_sub(first[s]) as f64 / PS_PER_S as f64;
            if span > 0.0 { bytes[s] as f64 * 8.0 / span / 1e9 } else { 0.0 }
        }).sum::<f64>(),
        "queue_p50_bytes": percentile(&depths, 0.5) as u64,
        "queue_p99_bytes": percentile(&depths, 0.99) as u64,
        "converged_queue_p50_bytes": percentile(&conv_depths, 0.5) as u64,
        "converged_queue_p99_bytes": percentile(&conv_depths, 0.99) as u64,
        "queue_max_bytes": st.peak.iter().copied().max().unwrap_or(0),
        "drops": drops,
        "headroom_drops": headroom_drops,
        "pfc_pauses": xoff,
        "ce_marks": marked,
        "cnps": cnps,
    }))
}

fn print_incast(s: &Value) {
    println!(
        "incast {}:1, {} B WRITEs, DCQCN {}, switch PFC {} (the NICs {} PFC pauses), ECN {}",
        s["senders"].as_array().map_or(0, |v| v.len()),
        s["size_bytes"],
        if s["dcqcn"].as_bool() == Some(true) {
            "on"
        } else {
            "off"
        },
        if s["switch_pfc"].as_bool() == Some(true) {
            "on"
        } else {
            "off"
        },
        if s["nic_honours_pfc"].as_bool() == Some(true) {
            "honour"
        } else {
            "do not act on"
        },
        if s["switch_ecn"].as_bool() == Some(true) {
            "on"
        } else {
            "off"
        },
    );
    println!("  sender  goodput Gb/s  converged goodput Gb/s  retransmitted  CNPs received");
    for x in s["senders"].as_array().into_iter().flatten() {
        println!(
            "  {:<7} {:>12.3} {:>23.3} {:>14} {:>14}",
            x["name"].as_str().unwrap_or(""),
            x["goodput_gbps"].as_f64().unwrap_or(0.0),
            x["converged_goodput_gbps"].as_f64().unwrap_or(0.0),
            x["retransmitted_packets"],
            x["cnps_received"]
        );
    }
    println!(
        "  Jain's index {:.4} ({:.1}..{:.1} us), bottleneck {} utilisation {:.3}",
        s["jain"].as_f64().unwrap_or(0.0),
        s["convergence"]["from_us"].as_f64().unwrap_or(0.0),
        s["convergence"]["to_us"].as_f64().unwrap_or(0.0),
        s["bottleneck"]["port"].as_str().unwrap_or(""),
        s["utilization"].as_f64().unwrap_or(0.0)
    );
    println!(
        "  queue p50 {} B, p99 {} B (in the convergence window: p50 {} B, p99 {} B), max {} B; {} drops, {} PFC pauses, {} CE marks, {} CNPs",
        s["queue_p50_bytes"],
        s["queue_p99_bytes"],
        s["converged_queue_p50_bytes"],
        s["converged_queue_p99_bytes"],
        s["queue_max_bytes"],
        s["drops"],
        s["pfc_pauses"],
        s["ce_marks"],
        s["cnps"]
    );
}
