//! `ferroce rx-replay FILE`: every frame of a capture through the HDL receive front end
//! ([`RxParser`]) in cycle-accurate simulation, one JSON line per frame, then a summary. The
//! parser runs on either engine (`--engine`: its Verilator model, the default, or the rust-hdl
//! simulation), which give the same lines and counts; `--vcd` writes its waveforms.
//!
//! What a line says comes from the hardware's outputs only: its per-frame verdict (kind, ICRC,
//! drop reason) and, for accepted frames, the descriptor and payload it released. A dropped
//! frame releases nothing (store-and-forward), so its RoCE fields are null.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use ferroce_hdl::rx::harness::{self, Shaping};
use ferroce_hdl::rx::model::{RxConfig, RxRelease};
use ferroce_hdl::rx::{DropReason, RxKind, RxParser64};
use ferroce_hdl::testbench::Bench;
use ferroce_proto::pcap;
use serde_json::{json, Map, Value};

use super::verbs::Engine;
use super::CliError;
use crate::engines::VerilatedRx;
use crate::report::frame_fields;
use crate::vcd::{VcdBench, VcdWindow};

/// The CLI's kind names for the parser's verdict kinds.
fn kind_name(kind: RxKind) -> &'static str {
    match kind {
        RxKind::RoceV2Ipv4 | RxKind::RoceV2Ipv6 => "roce_v2",
        RxKind::RoceV1 => "roce_v1",
        RxKind::Cnp => "cnp",
        RxKind::Pfc => "pfc",
        RxKind::Other => "other",
    }
}

/// Parses `aa:bb:cc:dd:ee:ff` into the parser's 48-bit MAC configuration.
pub fn parse_mac(text: &str) -> Result<u64, CliError> {
    let parts: Vec<&str> = text.split(':').collect();
    let bad = || {
        CliError(format!(
            "bad MAC address {text:?}: expected six hex bytes like 02:00:00:00:00:02"
        ))
    };
    if parts.len() != 6 {
        return Err(bad());
    }
    parts.iter().try_fold(0u64, |acc, p| {
        u8::from_str_radix(p, 16)
            .map(|b| (acc << 8) | b as u64)
            .map_err(|_| bad())
    })
}

pub fn run(
    file: &Path,
    mac: Option<&str>,
    engine: &str,
    vcd: Option<&VcdWindow>,
) -> Result<ExitCode, CliError> {
    let engine = super::engine_and_vcd(engine, vcd)?;
    let capture = pcap::read_file(file)
        .and_then(|c| c.ensure_ethernet())
        .map_err(|e| CliError(e.to_string()))?;
    let cfg = RxConfig {
        mac: mac.map(parse_mac).transpose()?.unwrap_or(0),
        // Without --mac the replay accepts every destination, as a capture holds both sides.
        promisc: mac.is_none(),
        ..RxConfig::default()
    };
    let frames: Vec<Vec<u8>> = capture.records.into_iter().map(|r| r.data).collect();
    let bench = || Bench::new(RxParser64::default(), |u: &mut RxParser64| &mut u.clock);
    let result = match (engine, vcd) {
        (Engine::Verilator, vcd) => VerilatedRx::with_vcd(&cfg, vcd)
            .map_err(|e| {
                CliError(format!(
                    "building the Verilator model of the receive parser: {e}"
                ))
            })?
            .run(&frames),
        (Engine::RustHdl, None) => harness::run(&mut bench(), &frames, &cfg, Shaping::FULL_RATE),
        (Engine::RustHdl, Some(w)) => harness::run(
            &mut VcdBench::new(bench(), w.clone()).map_err(CliError)?,
            &frames,
            &cfg,
            Shaping::FULL_RATE,
        ),
    };
    if result.verdicts.len() != frames.len() {
        return Err(CliError(format!(
            "the receive path gave {} verdicts for {} frames",
            result.verdicts.len(),
            frames.len()
        )));
    }

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    // Each accepted frame released one thing, in frame order per output: PFC frames a pulse on
    // the PFC port, the others a descriptor (and payload). A PFC pulse can come out before the
    // payload of an earlier frame ends, so the two outputs are matched to frames separately.
    let (pfc, roce): (Vec<RxRelease>, Vec<RxRelease>) = result
        .releases
        .into_iter()
        .partition(|r| matches!(r, RxRelease::Pfc { .. }));
    let (mut pfc, mut roce) = (pfc.into_iter(), roce.into_iter());
    let mut by_reason: BTreeMap<&str, u64> = BTreeMap::new();
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    let mut accepted = 0u64;
    for (index, verdict) in result.verdicts.iter().enumerate() {
        let ok = verdict.reason == DropReason::Accepted;
        let mut line = Map::new();
        line.insert("frame".into(), json!(index + 1));
        line.insert("accepted".into(), json!(ok));
        line.insert("kind".into(), json!(kind_name(verdict.kind)));
        line.insert("opcode".into(), Value::Null);
        line.insert("dest_qp".into(), Value::Null);
        line.insert("psn".into(), Value::Null);
        line.insert("icrc_ok".into(), json!(verdict.icrc_ok));
        line.insert(
            "drop_reason".into(),
            if ok {
                Value::Null
            } else {
                json!(verdict.reason.name())
            },
        );
        line.insert("len".into(), json!(verdict.flen));
        *kinds.entry(kind_name(verdict.kind)).or_default() += 1;
        if ok {
            accepted += 1;
            let release = if verdict.kind == RxKind::Pfc {
                pfc.next()
            } else {
                roce.next()
            };
            match release {
                Some(RxRelease::Roce { hdr, payload }) => {
                    line.insert("opcode".into(), json!(hdr.opcode.to_u64()));
                    line.insert("dest_qp".into(), json!(hdr.dest_qp.to_u64()));
                    line.insert("psn".into(), json!(hdr.psn.to_u64()));
                    // The released descriptor and payload, rebuilt into a frame, give the
                    // extension-header fields in the same form pcap-info prints them.
                    let released = hdr.to_frame(&payload);
                    for (key, value) in frame_fields(&released) {
                        if matches!(
                            key.as_str(),
                            "reth"
                                | "aeth"
                                | "atomic_eth"
                                | "atomic_ack_eth"
                                | "imm_dt"
                                | "ieth"
                                | "deth"
                                | "payload_len"
                                | "opcode_name"
                        ) {
                            line.insert(key, value);
                        }
                    }
                }
                Some(RxRelease::Pfc { enable, times }) => {
                    line.insert(
                        "pfc".into(),
                        json!({"class_enable": enable, "times": times}),
                    );
                }
                Some(RxRelease::Nothing) | None => {
                    return Err(CliError(format!(
                        "frame {}: accepted but the receive path released nothing",
                        index + 1
                    )))
                }
            }
        } else {
            *by_reason.entry(verdict.reason.name()).or_default() += 1;
        }
        writeln!(out, "{}", Value::Object(line))?;
    }
    let counters: BTreeMap<&str, u32> = DropReason::ALL
        .iter()
        .map(|r| (r.name(), result.counters[r.code() as usize]))
        .collect();
    let summary = json!({
        "summary": true,
        "frames": frames.len(),
        "accepted": accepted,
        "dropped": frames.len() as u64 - accepted,
        "drop_reasons": by_reason,
        "kinds": kinds,
        "hardware_counters": counters,
        "cycles": result.cycles,
    });
    writeln!(out, "{summary}")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
