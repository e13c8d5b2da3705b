//! `ferroce tx-replay IN --out OUT`: every RoCE frame of IN is parsed in software into the
//! transmit descriptor and rebuilt by the HDL transmit front end ([`TxHeaderBuilder`]) in
//! cycle-accurate simulation. OUT holds the rebuilt frames; the command reports how many are
//! byte-identical to their originals and exits non-zero if any differ. The builder runs on
//! either engine (`--engine`: its Verilator model, the default, or the rust-hdl simulation),
//! which build the same frames in the same cycles; `--vcd` writes its waveforms.
//!
//! The descriptor carries every field a real stack may set (IP ID, TOS, MigReq, BTH reserved
//! bits, UDP checksum), so a rebuild of a well-formed frame is exact; lengths, the IPv4 header
//! checksum, PadCnt, pad and ICRC are computed by the hardware.

use std::path::Path;
use std::process::ExitCode;

use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::testbench::{Bench, Rng};
use ferroce_hdl::tx::drive::{run_builder, Timing};
use ferroce_hdl::tx::TxHeaderBuilder;
use ferroce_proto::pcap::{self, PcapWriter};
use ferroce_proto::wire::FrameRepr;
use serde_json::json;

use super::verbs::Engine;
use super::CliError;
use crate::engines::VerilatedTx;
use crate::vcd::{VcdBench, VcdWindow};

pub fn run(
    input: &Path,
    output: &Path,
    engine: &str,
    vcd: Option<&VcdWindow>,
) -> Result<ExitCode, CliError> {
    let engine = super::engine_and_vcd(engine, vcd)?;
    let capture = pcap::read_file(input)
        .and_then(|c| c.ensure_ethernet())
        .map_err(|e| CliError(e.to_string()))?;
    // (frame number, timestamp, original bytes) of every RoCE frame, and the builder's jobs.
    let mut originals = Vec::new();
    let mut jobs: Vec<(RoceHeader, Vec<u8>)> = Vec::new();
    let mut skipped = Vec::new();
    for (index, record) in capture.records.iter().enumerate() {
        let Ok(frame) = FrameRepr::parse(&record.data) else {
            skipped.push(json!({"frame": index + 1, "reason": "malformed"}));
            continue;
        };
        if frame.roce().is_none() {
            continue; // not RoCE: nothing for the RoCE transmit path to build
        }
        match RoceHeader::from_frame(&frame) {
            Ok((header, payload)) => {
                jobs.push((header, payload.to_vec()));
                originals.push((index + 1, record.ts_ns, record.data.clone()));
            }
            Err(e) => skipped.push(json!({"frame": index + 1, "reason": e.0})),
        }
    }
    let bench = || {
        Bench::new(TxHeaderBuilder::default(), |u: &mut TxHeaderBuilder| {
            &mut u.clock
        })
    };
    // Back to back at full rate, the output always ready (the Verilator driver's only timing).
    let (frames, cycles) = match (engine, vcd) {
        (Engine::Verilator, vcd) => {
            let r = VerilatedTx::with_vcd(vcd)
                .map_err(|e| {
                    CliError(format!(
                        "building the Verilator model of the transmit builder: {e}"
                    ))
                })?
                .run(&jobs);
            (r.frames, r.cycles)
        }
        (Engine::RustHdl, vcd) => {
            let r = match vcd {
                None => run_builder(&mut bench(), &jobs, Timing::default(), &mut Rng::new(1)),
                Some(w) => run_builder(
                    &mut VcdBench::new(bench(), w.clone()).map_err(CliError)?,
                    &jobs,
                    Timing::default(),
                    &mut Rng::new(1),
                ),
            };
            (r.frames, r.cycles)
        }
    };
    if frames.len() != jobs.len() {
        return Err(CliError(format!(
            "the transmit path built {} frames for {} descriptors",
            frames.len(),
            jobs.len()
        )));
    }
    let mut writer =
        PcapWriter::create(output).map_err(|e| CliError(format!("{}: {e}", output.display())))?;
    let mut identical = 0usize;
    let mut differing = Vec::new();
    for ((number, ts_ns, original), rebuilt) in originals.iter().zip(&frames) {
        writer
            .write_packet(*ts_ns, rebuilt)
            .map_err(|e| CliError(format!("{}: {e}", output.display())))?;
        if rebuilt == original {
            identical += 1;
        } else {
            let first = original
                .iter()
                .zip(rebuilt)
                .position(|(a, b)| a != b)
                .unwrap_or(original.len().min(rebuilt.len()));
            differing.push(json!({"frame": number, "first_difference_at": first,
                                  "original_len": original.len(), "rebuilt_len": rebuilt.len()}));
        }
    }
    writer
        .flush()
        .map_err(|e| CliError(format!("{}: {e}", output.display())))?;
    let summary = json!({
        "frames": capture.records.len(),
        "rebuilt": frames.len(),
        "identical": identical,
        "different": differing.len(),
        "differences": differing,
        "skipped": skipped,
        "cycles": cycles,
    });
    println!("{summary}");
    Ok(if differing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
