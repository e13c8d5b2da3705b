//! JSON descriptions of frames, shared by every command that prints per-frame lines
//! (`pcap-info`, `rx-replay`, ...), so one frame always reads the same way.

use std::collections::BTreeMap;

use ferroce_proto::syndrome::{credits, rnr_timer_ns, AethSyndrome};
use ferroce_proto::wire::{FrameBody, FrameKind, FrameRepr, PfcRepr, RoceNet};
use serde_json::{json, Map, Value};

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
