//! `ferroce bench`: cycles per frame of the HDL transmit and receive front ends against the
//! ideal `ceil(frame bytes / 8)` of the 64-bit datapath, for frame sizes 64 B to 4 KiB, and the
//! simulation speed (cycles per second) of the rust-hdl engine and of the Verilator engine.
//!
//! Frames are RC SEND_ONLY over IPv4 sent back to back with the outputs always ready, so any
//! cycle above the ideal is the engine's own per-frame overhead.

use std::process::ExitCode;
use std::time::Instant;

use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::rx::harness::{self, Shaping};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::{DropReason, RxParser64};
use ferroce_hdl::testbench::{Bench, Rng as HdlRng};
use ferroce_hdl::tx::drive::{run_builder, Timing};
use ferroce_hdl::tx::TxHeaderBuilder;
use ferroce_proto::testgen::Rng;
use ferroce_proto::wire::{BthRepr, EthernetRepr, ExtHeaders, FrameRepr, Opcode, RoceNet};
use serde_json::{json, Value};

use super::CliError;
use crate::engines::{VerilatedRx, VerilatedTx};

const SIZES: [usize; 8] = [64, 128, 256, 512, 1024, 1518, 2048, 4096];

/// `count` SEND_ONLY frames of about `size` bytes (payload a multiple of 4, so no pad).
fn frames_of_size(size: usize, count: usize, rng: &mut Rng) -> Vec<FrameRepr> {
    let payload = (size.saturating_sub(58)) & !3;
    (0..count)
        .map(|i| {
            let net = RoceNet::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 0xC001);
            let eth = EthernetRepr {
                dst: [2, 0, 0, 0, 0, 2],
                src: [2, 0, 0, 0, 0, 1],
                vlan: None,
                ethertype: net.ethertype(),
            };
            let bth = BthRepr::new(Opcode::RC_SEND_ONLY, 0x11, i as u32);
            let mut data = vec![0u8; payload];
            rng.fill(&mut data);
            FrameRepr::new_roce(eth, net, bth, ExtHeaders::default(), data)
        })
        .collect()
}

struct Row {
    engine: &'static str,
    path: &'static str,
    frame_bytes: usize,
    frames: usize,
    /// Cycles charged to the frames (steady state).
    cycles: u64,
    /// Every cycle simulated, for the engine's speed.
    simulated: u64,
    seconds: f64,
}

impl Row {
    fn json(&self) -> Value {
        let ideal = self.frame_bytes.div_ceil(8) as f64;
        let per_frame = self.cycles as f64 / self.frames as f64;
        json!({
            "engine": self.engine, "path": self.path, "frame_bytes": self.frame_bytes,
            "frames": self.frames, "cycles": self.cycles,
            "cycles_per_frame": (per_frame * 100.0).round() / 100.0,
            "ideal_cycles_per_frame": ideal,
            "efficiency": ((ideal / per_frame) * 1000.0).round() / 1000.0,
            "sim_cycles_per_second": (self.simulated as f64 / self.seconds).round(),
        })
    }
}

pub fn run(quick: bool, json_out: bool, verilator: bool) -> Result<ExitCode, CliError> {
    let (rusthdl_frames, verilator_frames) = if quick { (4, 50) } else { (16, 1000) };
    let mut rng = Rng::new(2026);
    let mut rows = Vec::new();
    let mut vtx = if verilator {
        Some(VerilatedTx::new().map_err(CliError)?)
    } else {
        None
    };
    let rx_cfg = RxConfig {
        promisc: true,
        ..RxConfig::default()
    };
    let mut vrx = if verilator {
        Some(VerilatedRx::new(&rx_cfg).map_err(CliError)?)
    } else {
        None
    };
    for size in SIZES {
        for (engine, count) in [
            ("rust-hdl", rusthdl_frames),
            ("verilator", verilator_frames),
        ] {
            if engine == "verilator" && !verilator {
                continue;
            }
            let frames = frames_of_size(size, count, &mut rng);
            let bytes: Vec<Vec<u8>> = frames.iter().map(FrameRepr::emit).collect();
            let frame_bytes = bytes[0].len();
            let jobs: Vec<(RoceHeader, Vec<u8>)> = frames
                .iter()
                .map(|f| RoceHeader::from_frame(f).map(|(h, p)| (h, p.to_vec())))
                .collect::<Result<_, _>>()
                .map_err(|e| CliError(format!("descriptor: {}", e.0)))?;

            // Transmit.
            let start = Instant::now();
            let (built, cycles, simulated) = if engine == "rust-hdl" {
                let mut bench =
                    Bench::new(TxHeaderBuilder::default(), |u: &mut TxHeaderBuilder| {
                        &mut u.clock
                    });
                let r = run_builder(&mut bench, &jobs, Timing::default(), &mut HdlRng::new(1));
                // Steady state: from the first frame's end to the last one's, so the pipeline
                // fill is not charged to the frames.
                let ends = &r.frame_end_cycles;
                let steady = (ends[ends.len() - 1] - ends[0]) * count as u64 / (count as u64 - 1);
                (r.frames, steady, r.cycles)
            } else {
                let r = vtx.as_mut().unwrap().run(&jobs);
                (r.frames, r.cycles, r.cycles)
            };
            let seconds = start.elapsed().as_secs_f64();
            if built != bytes {
                return Err(CliError(format!(
                    "{engine} transmit engine built wrong frames at size {size}"
                )));
            }
            rows.push(Row {
                engine,
                path: "tx",
                frame_bytes,
                frames: count,
                cycles,
                simulated,
                seconds,
            });

            // Receive.
            let start = Instant::now();
            let (accepted, cycles, simulated) = if engine == "rust-hdl" {
                let mut bench =
                    Bench::new(RxParser64::default(), |u: &mut RxParser64| &mut u.clock);
                let r = harness::run(&mut bench, &bytes, &rx_cfg, Shaping::FULL_RATE);
                // Steady state: the cycle the last input beat was taken (the frames arrive
                // back to back from cycle 0), so draining the last frame is not charged.
                (
                    r.verdicts
                        .iter()
                        .filter(|v| v.reason == DropReason::Accepted)
                        .count(),
                    r.last_in_cycle + 1,
                    r.cycles,
                )
            } else {
                let r = vrx.as_mut().unwrap().run(&bytes);
                (
                    r.verdicts
                        .iter()
                        .filter(|v| v.reason == DropReason::Accepted)
                        .count(),
                    // Up to the edge after the last verdict.
                    r.verdict_cycles.last().map_or(0, |c| c + 1),
                    r.cycles,
                )
            };
            let seconds = start.elapsed().as_secs_f64();
            if accepted != count {
                return Err(CliError(format!(
                    "{engine} receive engine accepted {accepted} of {count} frames at size {size}"
                )));
            }
            rows.push(Row {
                engine,
                path: "rx",
                frame_bytes,
                frames: count,
                cycles,
                simulated,
                seconds,
            });
        }
    }
    if json_out {
        println!(
            "{}",
            json!({"bench": "front_ends", "rows": rows.iter().map(Row::json).collect::<Vec<_>>()})
        );
    } else {
        println!(
            "{:<10} {:<3} {:>6} {:>7} {:>12} {:>8} {:>7} {:>12}",
            "engine", "dir", "bytes", "frames", "cycles/frame", "ideal", "effic.", "sim cyc/s"
        );
        for row in &rows {
            let j = row.json();
            println!(
                "{:<10} {:<3} {:>6} {:>7} {:>12} {:>8} {:>7} {:>12}",
                row.engine,
                row.path,
                row.frame_bytes,
                row.frames,
                j["cycles_per_frame"],
                j["ideal_cycles_per_frame"],
                j["efficiency"],
                j["sim_cycles_per_second"]
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
