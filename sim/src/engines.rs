//! The HDL front ends run on the fast engine: their emitted Verilog compiled by Verilator
//! ([`VerilatedBlock`]), driven cycle by cycle through their ports. The same blocks run on the
//! rust-hdl engine through `ferroce_hdl::{tx::drive, rx::harness}`; the co-simulation tests prove
//! both engines agree cycle for cycle, so long runs (benchmarks, scenarios) use this one.

use std::collections::VecDeque;

use ferroce_hdl::cosim::VerilatedBlock;
use ferroce_hdl::header::{RoceHeader, ROCE_HEADER_BITS};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::{DropReason, RxKind, RxParserFlat64};
use ferroce_hdl::stream::{frame_to_beats, Beat};
use ferroce_hdl::tx::TxHeaderBuilderFlat;
use rust_hdl::prelude::Bits;

/// A Verilator model could not be built (Verilator or a C++ compiler missing, or a build error).
pub type EngineError = String;

/// The transmit builder on Verilator, output always ready.
pub struct VerilatedTx {
    model: VerilatedBlock,
}

/// What a transmit run produced.
pub struct TxRun {
    pub frames: Vec<Vec<u8>>,
    pub cycles: u64,
}

impl VerilatedTx {
    pub fn new() -> Result<VerilatedTx, EngineError> {
        Ok(VerilatedTx {
            model: VerilatedBlock::try_new(&mut TxHeaderBuilderFlat::default())?,
        })
    }

    /// Build one frame per `(descriptor, payload)` job, back to back at full rate.
    pub fn run(&mut self, jobs: &[(RoceHeader, Vec<u8>)]) -> TxRun {
        let m = &mut self.model;
        let (dv, dr, d) = (m.port("desc_valid"), m.port("desc_ready"), m.port("desc"));
        let (pay, out) = (m.stream("pay"), m.stream("out"));
        let descs: Vec<Vec<u64>> = jobs.iter().map(|(h, _)| descriptor_words(h)).collect();
        let mut beats: VecDeque<Beat> = jobs
            .iter()
            .flat_map(|(_, p)| frame_to_beats(p, 8))
            .collect();
        let (mut next_desc, mut cycles) = (0usize, 0u64);
        let (mut frames, mut current) = (Vec::new(), Vec::new());
        m.set(out.ready, 1);
        while frames.len() < jobs.len() {
            m.set(dv, (next_desc < jobs.len()) as u64);
            if next_desc < jobs.len() {
                m.set_words(d, &descs[next_desc]);
            }
            m.drive_stream(pay, beats.front());
            m.eval();
            let desc_taken = next_desc < jobs.len() && m.get(dr) == 1;
            let beat_taken = !beats.is_empty() && m.get(pay.ready) == 1;
            if let Some(beat) = m.peek_stream(out) {
                current.extend_from_slice(&beat.bytes);
                if beat.last {
                    frames.push(std::mem::take(&mut current));
                }
            }
            m.tick();
            cycles += 1;
            next_desc += desc_taken as usize;
            if beat_taken {
                beats.pop_front();
            }
            assert!(
                cycles < 1_000_000 + 1000 * jobs.len() as u64,
                "transmit engine stopped making progress"
            );
        }
        TxRun { frames, cycles }
    }
}

/// The descriptor as the flat port's 64-bit words, least significant first.
fn descriptor_words(h: &RoceHeader) -> Vec<u64> {
    let bits: Bits<ROCE_HEADER_BITS> = (*h).into();
    (0..ROCE_HEADER_BITS.div_ceil(64))
        .map(|word| {
            let lo = 64 * word;
            (0..(ROCE_HEADER_BITS - lo).min(64))
                .fold(0u64, |acc, j| acc | ((bits.get_bit(lo + j) as u64) << j))
        })
        .collect()
}

/// The receive parser on Verilator, outputs always ready.
pub struct VerilatedRx {
    model: VerilatedBlock,
}

/// One per-frame verdict of the receive parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub kind: RxKind,
    pub reason: DropReason,
    pub icrc_ok: bool,
}

/// What a receive run produced.
pub struct RxRun {
    pub verdicts: Vec<Verdict>,
    pub cycles: u64,
}

impl VerilatedRx {
    pub fn new(cfg: &RxConfig) -> Result<VerilatedRx, EngineError> {
        let mut model = VerilatedBlock::try_new(&mut RxParserFlat64::default())?;
        let (mac, promisc, max) = (
            model.port("cfg_mac"),
            model.port("cfg_promisc"),
            model.port("cfg_max_frame"),
        );
        model.set(mac, cfg.mac);
        model.set(promisc, cfg.promisc as u64);
        model.set(max, cfg.max_frame as u64);
        let (hdr_ready, pay_ready) = (model.port("hdr_ready"), model.port("pay$ready"));
        model.set(hdr_ready, 1);
        model.set(pay_ready, 1);
        Ok(VerilatedRx { model })
    }

    /// Feed `frames` back to back at full rate and collect one verdict per frame.
    pub fn run(&mut self, frames: &[Vec<u8>]) -> RxRun {
        let m = &mut self.model;
        let inp = m.stream("inp");
        let (vv, vk, vr, vi) = (
            m.port("vd_valid"),
            m.port("vd_kind"),
            m.port("vd_reason"),
            m.port("vd_icrc_ok"),
        );
        let mut beats: VecDeque<Beat> = frames.iter().flat_map(|f| frame_to_beats(f, 8)).collect();
        let limit = 10 * beats.len() as u64 + 100_000;
        let (mut verdicts, mut cycles) = (Vec::new(), 0u64);
        while verdicts.len() < frames.len() {
            m.drive_stream(inp, beats.front());
            m.eval();
            let taken = !beats.is_empty() && m.get(inp.ready) == 1;
            if m.get(vv) == 1 {
                verdicts.push(Verdict {
                    kind: RxKind::from_code(m.get(vk) as u8).expect("verdict kind code"),
                    reason: DropReason::from_code(m.get(vr) as u8).expect("drop reason code"),
                    icrc_ok: m.get(vi) == 1,
                });
            }
            m.tick();
            cycles += 1;
            if taken {
                beats.pop_front();
            }
            assert!(cycles < limit, "receive engine stopped making progress");
        }
        RxRun { verdicts, cycles }
    }
}
