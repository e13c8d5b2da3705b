//! What the commands report, written once:
//! * JSON descriptions of frames, shared by every command that prints per-frame lines
//!   (`pcap-info`, `rx-replay`, ...), so one frame always reads the same way;
//! * the pieces of a fabric run's summary (`ferroce demo`, `ferroce run`): per-operation
//!   goodput and latency, busy switch ports, a link's frames counted from the capture, the
//!   pcap and summary files, and the lines that print them.

use std::collections::BTreeMap;

use std::path::Path;

use ferroce_fabric::packet::{self, Kind};
use ferroce_fabric::{Captured, Fabric, NodeId};
use ferroce_proto::pcap::PcapWriter;
use ferroce_proto::syndrome::{credits, rnr_timer_ns, AethSyndrome};
use ferroce_proto::wire::{FrameBody, FrameKind, FrameRepr, Opcode, PfcRepr, RoceNet};
use serde_json::{json, Map, Value};

use crate::cmd::verbs::{VerbOp, VerbsReport};
use crate::cmd::CliError;
use crate::nic_pair::PAIR_CLOCK_HZ;

/// The kind names of the CLI: legacy 802.3x PAUSE is reported with PFC (both are MAC-control
/// pause frames) and told apart by the `"pfc"` object's `"legacy_pause"` field.
pub fn kind_name(kind: FrameKind) -> &'static str {
    match kind {
        FrameKind::Pause => "pfc",
        other => other.name(),
    }
}

/// Every header field worth showing of a parsed frame, as a JSON object (without `"frame"`).
pub fn frame_fields(frame: &FrameRepr) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("kind".into(), json!(kind_name(frame.kind())));
    o.insert("len".into(), json!(frame.buffer_len()));
    if let Some(tag) = frame.eth.vlan {
        o.insert(
            "vlan".into(),
            json!({"pcp": tag.pcp, "dei": tag.dei, "vid": tag.vid}),
        );
    }
    match &frame.body {
        FrameBody::Roce(roce) => {
            let bth = &roce.bth;
            o.insert("opcode".into(), json!(bth.opcode.0));
            o.insert("opcode_name".into(), json!(bth.opcode.to_string()));
            o.insert("dest_qp".into(), json!(bth.dest_qp));
            o.insert("psn".into(), json!(bth.psn));
            o.insert("ack_req".into(), json!(bth.ack_req));
            o.insert("se".into(), json!(bth.solicited));
            o.insert("mig_req".into(), json!(bth.mig_req));
            o.insert("pad_cnt".into(), json!(bth.pad_cnt));
            o.insert("pkey".into(), json!(bth.pkey));
            o.insert("becn".into(), json!(bth.becn));
            o.insert("payload_len".into(), json!(roce.payload.len()));
            o.insert(
                "icrc".into(),
                json!(format!(
                    "{:08x}",
                    u32::from_be_bytes(roce.icrc.to_le_bytes())
                )),
            );
            o.insert("icrc_ok".into(), json!(roce.icrc_ok()));
            match &roce.net {
                RoceNet::Ipv4 { ip, udp } => {
                    o.insert("net".into(), json!("ipv4"));
                    o.insert(
                        "src".into(),
                        json!(std::net::Ipv4Addr::from(ip.src).to_string()),
                    );
                    o.insert(
                        "dst".into(),
                        json!(std::net::Ipv4Addr::from(ip.dst).to_string()),
                    );
                    o.insert("ecn".into(), json!(ip.tos & 3));
                    o.insert("udp_sport".into(), json!(udp.src_port));
                }
                RoceNet::Ipv6 { ip, udp } => {
                    o.insert("net".into(), json!("ipv6"));
                    o.insert(
                        "src".into(),
                        json!(std::net::Ipv6Addr::from(ip.src).to_string()),
                    );
                    o.insert(
                        "dst".into(),
                        json!(std::net::Ipv6Addr::from(ip.dst).to_string()),
                    );
                    o.insert("ecn".into(), json!(ip.traffic_class & 3));
                    o.insert("udp_sport".into(), json!(udp.src_port));
                }
                RoceNet::RoceV1 { grh } => {
                    o.insert("net".into(), json!("grh"));
                    o.insert(
                        "src".into(),
                        json!(std::net::Ipv6Addr::from(grh.sgid).to_string()),
                    );
                    o.insert(
                        "dst".into(),
                        json!(std::net::Ipv6Addr::from(grh.dgid).to_string()),
                    );
                }
            }
            let ext = &roce.ext;
            if let Some(h) = ext.deth {
                o.insert("deth".into(), json!({"qkey": h.qkey, "src_qp": h.src_qp}));
            }
            if let Some(h) = ext.reth {
                o.insert(
                    "reth".into(),
                    json!({"va": h.va, "rkey": h.rkey, "dma_len": h.dma_len}),
                );
            }
            if let Some(h) = ext.atomic_eth {
                o.insert(
                    "atomic_eth".into(),
                    json!({"va": h.va, "rkey": h.rkey, "swap_add": h.swap_add, "compare": h.compare}),
                );
            }
            if let Some(h) = ext.aeth {
                o.insert("aeth".into(), aeth_json(h.syndrome, h.msn));
            }
            if let Some(h) = ext.atomic_ack_eth {
                o.insert("atomic_ack_eth".into(), json!({"orig": h.orig}));
            }
            if let Some(h) = ext.imm_dt {
                o.insert("imm_dt".into(), json!(h.imm));
            }
            if let Some(h) = ext.ieth {
                o.insert("ieth".into(), json!({"rkey": h.rkey}));
            }
        }
        FrameBody::Pfc(PfcRepr::Pfc {
            class_enable,
            times,
        }) => {
            o.insert(
                "pfc".into(),
                json!({"legacy_pause": false, "class_enable": class_enable, "times": times}),
            );
        }
        FrameBody::Pfc(PfcRepr::Pause { time }) => {
            o.insert("pfc".into(), json!({"legacy_pause": true, "time": time}));
        }
        FrameBody::Other(_) => {}
    }
    o
}

/// An AETH decoded: the raw syndrome and MSN plus what they mean.
fn aeth_json(syndrome: u8, msn: u32) -> Value {
    let mut o = json!({"syndrome": syndrome, "msn": msn});
    match AethSyndrome::decode(syndrome) {
        AethSyndrome::Ack { credit_code } => {
            o["type"] = json!("ack");
            o["credits"] = json!(credits(credit_code)); // null = unlimited
        }
        AethSyndrome::RnrNak { timer_code } => {
            o["type"] = json!("rnr_nak");
            o["rnr_timer_ns"] = json!(rnr_timer_ns(timer_code));
        }
        AethSyndrome::Nak(code) => {
            o["type"] = json!("nak");
            o["nak_code"] = json!(code.code());
        }
        AethSyndrome::Reserved { .. } => o["type"] = json!("reserved"),
    }
    o
}

/// Counts per kind, per opcode and of bad ICRCs, for the summary line every command prints last.
#[derive(Default)]
pub struct Tally {
    pub frames: u64,
    pub kinds: BTreeMap<String, u64>,
    pub opcodes: BTreeMap<String, u64>,
    pub bad_icrc: u64,
    pub malformed: u64,
}

impl Tally {
    pub fn add(&mut self, fields: &Map<String, Value>) {
        self.frames += 1;
        if let Some(kind) = fields.get("kind").and_then(Value::as_str) {
            *self.kinds.entry(kind.to_string()).or_default() += 1;
        }
        if let Some(name) = fields.get("opcode_name").and_then(Value::as_str) {
            *self.opcodes.entry(name.to_string()).or_default() += 1;
        }
        if fields.get("icrc_ok") == Some(&Value::Bool(false)) {
            self.bad_icrc += 1;
        }
        if fields.contains_key("error") {
            self.malformed += 1;
        }
    }

    pub fn to_json(&self) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("summary".into(), json!(true));
        o.insert("frames".into(), json!(self.frames));
        o.insert("kinds".into(), json!(self.kinds));
        o.insert("opcodes".into(), json!(self.opcodes));
        o.insert("bad_icrc".into(), json!(self.bad_icrc));
        o.insert("malformed".into(), json!(self.malformed));
        o
    }
}

// ---- fabric run summaries (`ferroce demo`, `ferroce run`) ----

/// The switches' time-series sample interval of a fabric run.
pub const SAMPLE_PS: u64 = 2_000_000;

/// Dotted-quad text of an IPv4 address.
pub fn ip(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// The `p` quantile (0..=1) of ascending `sorted` values, nearest rank; 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// Ascending copy of `v` (finite values).
fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    v
}

/// Every verb, in the order summaries list them.
pub const VERB_OPS: [VerbOp; 7] = [
    VerbOp::Write,
    VerbOp::WriteImm,
    VerbOp::Send,
    VerbOp::SendImm,
    VerbOp::Read,
    VerbOp::AtomicCas,
    VerbOp::AtomicFadd,
];

/// A verb's name in summaries.
pub fn op_name(op: VerbOp) -> &'static str {
    match op {
        VerbOp::Write => "write",
        VerbOp::WriteImm => "write_imm",
        VerbOp::Send => "send",
        VerbOp::SendImm => "send_imm",
        VerbOp::Read => "read",
        VerbOp::AtomicCas => "atomic_cas",
        VerbOp::AtomicFadd => "atomic_fadd",
    }
}

/// Per verb that ran: messages, verified, bytes, goodput over the span from the first post to
/// the last completion, and latency (post to completion) p50 / p99, in microseconds of the
/// NICs' clock.
pub fn operations(r: &VerbsReport) -> Map<String, Value> {
    let mut ops = Map::new();
    for op in VERB_OPS {
        let recs: Vec<_> = r.records.iter().filter(|m| m.op == op).collect();
        if recs.is_empty() {
            continue;
        }
        let lat = sorted(
            recs.iter()
                .map(|m| (m.completed - m.posted) as f64 * 1e6 / PAIR_CLOCK_HZ as f64)
                .collect(),
        );
        let bytes: u64 = recs.iter().map(|m| m.bytes as u64).sum();
        let first = recs.iter().map(|m| m.posted).min().unwrap_or(0);
        let last = recs.iter().map(|m| m.completed).max().unwrap_or(0);
        let span = (last - first).max(1) as f64 / PAIR_CLOCK_HZ as f64;
        ops.insert(
            op_name(op).into(),
            json!({
                "messages": recs.len(),
                "verified": recs.iter().filter(|m| m.ok).count(),
                "bytes": bytes,
                "goodput_gbps": bytes as f64 * 8.0 / span / 1e9,
                "latency_us": {"p50": percentile(&lat, 0.5), "p99": percentile(&lat, 0.99)},
            }),
        );
    }
    ops
}

/// The port of `from` whose link leads to `to` (adjacent nodes).
pub fn port_toward(f: &Fabric, from: NodeId, to: NodeId) -> usize {
    (0..f.ports(from))
        .find(|p| f.peer(from, *p).0 == to)
        .expect("adjacent")
}

/// What every switch port did, summed, and the busy ones listed.
#[derive(Default)]
pub struct PortScan {
    /// Every port whose queue passed `kmin` or that marked, dropped or sent XOFF, as JSON.
    pub queues: Vec<Value>,
    pub marked: u64,
    pub drops: u64,
    pub headroom_drops: u64,
    pub xoff: u64,
    pub xon: u64,
    /// PFC frames (XOFF + XON) the switches sent toward each neighbouring node.
    pub pfc_to: BTreeMap<NodeId, u64>,
    /// The port with the largest queue peak, and that peak.
    pub busiest: Option<((NodeId, usize), u64)>,
}

/// Scan every switch port of `f` ([`PortScan`]); a port is busy above `kmin` bytes of queue.
pub fn scan_ports(f: &Fabric, kmin: Option<u64>) -> PortScan {
    let mut scan = PortScan::default();
    for s in f.switches() {
        scan.headroom_drops += f.switch_stats(s).headroom_drops;
        for p in 0..f.ports(s) {
            let st = f.port_stats(s, p);
            let peer = f.peer(s, p).0;
            scan.marked += st.marked;
            scan.drops += st.drops;
            scan.xoff += st.pfc_xoff_sent;
            scan.xon += st.pfc_xon_sent;
            *scan.pfc_to.entry(peer).or_default() += st.pfc_xoff_sent + st.pfc_xon_sent;
            let peak: u64 = st.peak.iter().copied().max().unwrap_or(0);
            if scan.busiest.is_none_or(|(_, b)| peak > b) {
                scan.busiest = Some(((s, p), peak));
            }
            if peak > kmin.unwrap_or(0) || st.marked > 0 || st.drops > 0 || st.pfc_xoff_sent > 0 {
                let depths = sorted(
                    f.port_series(s, p)
                        .iter()
                        .map(|x| x.depth.iter().sum::<u64>() as f64)
                        .collect(),
                );
                scan.queues.push(json!({
                    "port": format!("{} -> {}", f.name(s), f.name(peer)),
                    "peak_bytes": peak,
                    "p99_bytes": percentile(&depths, 0.99) as u64,
                    "ce_marked": st.marked,
                    "drops": st.drops,
                    "pfc_xoff_sent": st.pfc_xoff_sent,
                    "pfc_xon_sent": st.pfc_xon_sent,
                }));
            }
        }
    }
    scan
}

/// The operation family of a RoCE packet's BTH opcode, as the summary counts packets.
pub fn opcode_family(op: u8) -> &'static str {
    let o = Opcode(op);
    if (Opcode::RC_SEND_FIRST.0..=Opcode::RC_SEND_ONLY_WITH_IMMEDIATE.0).contains(&o.0) {
        "send"
    } else if (Opcode::RC_RDMA_WRITE_FIRST.0..=Opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.0)
        .contains(&o.0)
    {
        "write"
    } else if o == Opcode::RC_RDMA_READ_REQUEST {
        "read_request"
    } else if (Opcode::RC_RDMA_READ_RESPONSE_FIRST.0..=Opcode::RC_RDMA_READ_RESPONSE_ONLY.0)
        .contains(&o.0)
    {
        "read_response"
    } else if o == Opcode::RC_ACKNOWLEDGE {
        "ack"
    } else if o.0 == 0x81 {
        "cnp"
    } else {
        "other"
    }
}

/// What a host's link carried, counted from the frames themselves (as a capture shows them).
#[derive(Default)]
pub struct LinkCounts {
    pub sent: BTreeMap<&'static str, u64>,
    pub received: BTreeMap<&'static str, u64>,
    pub ce_received: u64,
    pub ce_sent: u64,
    pub pfc_received: u64,
    pub frames: u64,
}

impl LinkCounts {
    /// Count every frame of a capture.
    pub fn of(cap: &[Captured]) -> LinkCounts {
        let mut c = LinkCounts::default();
        for x in cap {
            c.count(&x.bytes, x.sent);
        }
        c
    }

    /// Count one frame, `sent` by the host (else received).
    pub fn count(&mut self, bytes: &[u8], sent: bool) {
        self.frames += 1;
        let Some(h) = packet::parse(bytes) else {
            return;
        };
        if h.kind == Kind::MacControl {
            if !sent {
                self.pfc_received += 1;
            }
            return;
        }
        // the BTH: after the UDP header (RoCEv2) or right after the 40-byte GRH (RoCEv1)
        let bth = if h.rocev2 {
            h.l3 + if bytes[h.l3] >> 4 == 4 { 20 } else { 40 } + 8
        } else if h.kind == Kind::RoceV1 {
            h.l3 + 40
        } else {
            return;
        };
        let fam = bytes.get(bth).map_or("other", |o| opcode_family(*o));
        let map = if sent {
            &mut self.sent
        } else {
            &mut self.received
        };
        *map.entry(fam).or_default() += 1;
        if h.ecn == packet::ECN_CE {
            if sent {
                self.ce_sent += 1;
            } else {
                self.ce_received += 1;
            }
        }
    }
}

/// Write a capture as a pcap file (nanosecond times truncated to microseconds).
pub fn write_pcap(p: &Path, cap: &[Captured]) -> Result<(), CliError> {
    let e = |x: std::io::Error| CliError(format!("{}: {x}", p.display()));
    let mut w = PcapWriter::create(p).map_err(e)?;
    for x in cap {
        w.write_packet(x.t / 1000, &x.bytes).map_err(e)?;
    }
    w.flush().map_err(e)
}

/// Write `bytes` to `p`, the error naming the file.
pub fn write_file(p: &Path, bytes: impl AsRef<[u8]>) -> Result<(), CliError> {
    std::fs::write(p, bytes).map_err(|e| CliError(format!("{}: {e}", p.display())))
}

/// Write a summary as pretty JSON to `p`.
pub fn write_summary(p: &Path, summary: &Value) -> Result<(), CliError> {
    write_file(p, serde_json::to_string_pretty(summary).expect("json"))
}

/// The first line of a summary: messages, verified, failed, cycles, time and engine.
pub fn print_headline(s: &Value) {
    println!(
        "{} messages: {} verified, {} failed; {} cycles ({:.1} us simulated) in {:.1} s wall on the {} engine",
        s["messages"], s["verified"], s["failed"], s["cycles"],
        s["simulated_us"].as_f64().unwrap_or(0.0), s["wall_s"].as_f64().unwrap_or(0.0),
        s["engine"].as_str().unwrap_or("")
    );
}

/// The summary's `"operations"` as a table (nothing when no verb ran).
pub fn print_operations(s: &Value) {
    let Some(ops) = s["operations"].as_object().filter(|o| !o.is_empty()) else {
        return;
    };
    println!("  operation    messages      bytes  goodput Gb/s  latency p50 us  p99 us");
    for (name, o) in ops {
        println!(
            "  {:<11} {:>9} {:>10} {:>13.2} {:>15.1} {:>7.1}",
            name,
            o["messages"].as_u64().unwrap_or(0),
            o["bytes"].as_u64().unwrap_or(0),
            o["goodput_gbps"].as_f64().unwrap_or(0.0),
            o["latency_us"]["p50"].as_f64().unwrap_or(0.0),
            o["latency_us"]["p99"].as_f64().unwrap_or(0.0)
        );
    }
}

/// The summary's busy switch ports (`"queues"`), one line each.
pub fn print_queues(s: &Value) {
    for q in s["queues"].as_array().into_iter().flatten() {
        println!(
            "  queue {:<22} peak {:>6} KB, p99 {:>6} KB, {} CE marks, {} drops, {} XOFF",
            q["port"].as_str().unwrap_or(""),
            q["peak_bytes"].as_u64().unwrap_or(0) / 1000,
            q["p99_bytes"].as_u64().unwrap_or(0) / 1000,
            q["ce_marked"],
            q["drops"],
            q["pfc_xoff_sent"]
        );
    }
}

/// The files a run wrote (`"files"`).
pub fn print_files(s: &Value) {
    if let Some(files) = s["files"].as_object() {
        for (k, v) in files {
            println!("  {k}: {}", v.as_str().unwrap_or(""));
        }
    }
}
