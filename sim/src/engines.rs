//! The HDL front ends run on the fast engine: their emitted Verilog compiled by Verilator
//! ([`VerilatedBlock`]), driven cycle by cycle through their ports. The same blocks run on the
//! rust-hdl engine through `ferroce_hdl::{tx::drive, rx::harness}`; the co-simulation tests prove
//! both engines agree cycle for cycle, so long runs (benchmarks, scenarios) use this one.

use std::collections::VecDeque;

use ferroce_hdl::cosim::VerilatedBlock;
use ferroce_hdl::header::{RoceHeader, ROCE_HEADER_BITS};
use ferroce_hdl::rx::harness::RxRun;
use ferroce_hdl::rx::model::{RxConfig, RxRelease, RxVerdict};
use ferroce_hdl::rx::{DropReason, RxKind, RxParserFlat64};
use ferroce_hdl::stream::{frame_to_beats, Beat};
use ferroce_hdl::tx::TxHeaderBuilderFlat;
use rust_hdl::prelude::Bits;

use crate::vcd::{verilated_model, VcdClock, VcdWindow};

/// A Verilator model could not be built (Verilator or a C++ compiler missing, or a build error).
pub type EngineError = String;

/// The transmit builder on Verilator, output always ready.
pub struct VerilatedTx {
    model: VerilatedBlock,
    clock: VcdClock,
}

/// What a transmit run produced.
pub struct TxRun {
    pub frames: Vec<Vec<u8>>,
    pub cycles: u64,
}

impl VerilatedTx {
    pub fn new() -> Result<VerilatedTx, EngineError> {
        Self::with_vcd(None)
    }

    /// [`VerilatedTx::new`]; with `vcd`, the model built with Verilator's tracing writes every
    /// signal over the window (see [`crate::vcd`]).
    pub fn with_vcd(vcd: Option<&VcdWindow>) -> Result<VerilatedTx, EngineError> {
        Ok(VerilatedTx {
            model: verilated_model(&mut TxHeaderBuilderFlat::default(), vcd)?,
            clock: VcdClock::new(vcd.cloned()),
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
            self.clock.tick(m);
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
    clock: VcdClock,
}

impl VerilatedRx {
    pub fn new(cfg: &RxConfig) -> Result<VerilatedRx, EngineError> {
        Self::with_vcd(cfg, None)
    }

    /// [`VerilatedRx::new`]; with `vcd`, the model built with Verilator's tracing writes every
    /// signal over the window (see [`crate::vcd`]).
    pub fn with_vcd(cfg: &RxConfig, vcd: Option<&VcdWindow>) -> Result<VerilatedRx, EngineError> {
        let mut model = verilated_model(&mut RxParserFlat64::default(), vcd)?;
        let (mac, promisc, max) = (
            model.port("cfg_mac"),
            model.port("cfg_promisc"),
            model.port("cfg_max_frame"),
        );
        model.set(mac, cfg.mac);
        model.set(promisc, cfg.promisc as u64);
        model.set(max, cfg.max_frame.min(0xFFFF) as u64);
        let (hdr_ready, pay_ready) = (model.port("hdr_ready"), model.port("pay$ready"));
        model.set(hdr_ready, 1);
        model.set(pay_ready, 1);
        Ok(VerilatedRx {
            model,
            clock: VcdClock::new(vcd.cloned()),
        })
    }

    /// Feed `frames` back to back at full rate and collect every output, as the rust-hdl
    /// harness ([`ferroce_hdl::rx::harness::run`] with [`Shaping::FULL_RATE`]) does: the
    /// verdicts, the released descriptors with their payloads and the PFC pulses, the counter
    /// increments, and the cycles up to the same end (outputs drained, one more cycle for the
    /// counters), so both engines report the same numbers.
    ///
    /// [`Shaping::FULL_RATE`]: ferroce_hdl::rx::harness::Shaping::FULL_RATE
    pub fn run(&mut self, frames: &[Vec<u8>]) -> RxRun {
        let m = &mut self.model;
        let (inp, pay) = (m.stream("inp"), m.stream("pay"));
        let (vv, vk, vr, vi, vf) = (
            m.port("vd_valid"),
            m.port("vd_kind"),
            m.port("vd_reason"),
            m.port("vd_icrc_ok"),
            m.port("vd_flen"),
        );
        let (hv, hd) = (m.port("hdr_valid"), m.port("hdr"));
        let (pv, pe, pt) = (
            m.port("pfc_valid"),
            m.port("pfc_enable"),
            m.port("pfc_times"),
        );
        // The counters, in [`DropReason::code`] order (`cnt_accepted`, `cnt_bad_icrc`, ...).
        let counter_ids = DropReason::ALL.map(|r| m.port(&format!("cnt_{}", r.name())));
        let read_counters = |m: &VerilatedBlock| counter_ids.map(|i| m.get(i) as u32);
        let cnt0 = read_counters(m);
        let mut beats: VecDeque<Beat> = frames.iter().flat_map(|f| frame_to_beats(f, 8)).collect();
        let mut out = RxRun::default();
        let mut words = vec![0u64; ROCE_HEADER_BITS.div_ceil(64)];
        let mut pending: Option<RoceHeader> = None;
        let mut payload = Vec::new();
        let (mut cycles, mut idle) = (0u64, 0u64);
        loop {
            m.drive_stream(inp, beats.front());
            m.eval();
            let taken = !beats.is_empty() && m.get(inp.ready) == 1;
            let mut progress = taken;
            if m.get(vv) == 1 {
                progress = true;
                out.verdict_cycles.push(cycles);
                out.verdicts.push(RxVerdict {
                    kind: RxKind::from_code(m.get(vk) as u8).expect("verdict kind code"),
                    reason: DropReason::from_code(m.get(vr) as u8).expect("drop reason code"),
                    icrc_ok: m.get(vi) == 1,
                    flen: m.get(vf) as usize,
                });
            }
            if m.get(pv) == 1 {
                progress = true;
                let mut t = [0u64; 2];
                m.get_words(pt, &mut t);
                // Pause time n is bits 127-16n..112-16n (the first on the wire in the MSBs).
                let times = std::array::from_fn(|n| {
                    let lo = 112 - 16 * n;
                    (t[lo / 64] >> (lo % 64)) as u16
                });
                out.releases.push(RxRelease::Pfc {
                    enable: m.get(pe) as u8,
                    times,
                });
                out.release_cycles.push(cycles);
            }
            if m.get(hv) == 1 {
                progress = true;
                m.get_words(hd, &mut words);
                let hdr = header_from_words(&words);
                out.hdr_cycles.push(cycles);
                if hdr.payload_len.index() == 0 {
                    out.releases.push(RxRelease::Roce {
                        hdr,
                        payload: vec![],
                    });
                    out.release_cycles.push(cycles);
                } else {
                    pending = Some(hdr);
                }
            }
            if let Some(beat) = m.peek_stream(pay) {
                progress = true;
                payload.extend_from_slice(&beat.bytes);
                if beat.last {
                    let hdr = pending.take().expect("payload beat without a descriptor");
                    out.releases.push(RxRelease::Roce {
                        hdr,
                        payload: std::mem::take(&mut payload),
                    });
                    out.release_cycles.push(cycles);
                }
            }
            self.clock.tick(m);
            cycles += 1;
            if taken {
                out.in_beats += 1;
                out.last_in_cycle = cycles;
                if beats.pop_front().is_some_and(|b| b.last) {
                    out.frame_end_cycles.push(cycles - 1);
                }
            }
            let accepted = out
                .verdicts
                .iter()
                .filter(|v| v.reason == DropReason::Accepted)
                .count();
            if beats.is_empty()
                && out.verdicts.len() == frames.len()
                && out.releases.len() == accepted
                && pending.is_none()
            {
                // One more cycle for the counters to count the last verdict.
                m.eval();
                self.clock.tick(m);
                cycles += 1;
                m.eval();
                break;
            }
            idle = if progress { 0 } else { idle + 1 };
            assert!(
                idle < 10_000,
                "receive engine made no progress for 10000 cycles: {} of {} verdicts",
                out.verdicts.len(),
                frames.len()
            );
        }
        out.cycles = cycles;
        let cnt1 = read_counters(m);
        for i in 0..cnt1.len() {
            out.counters[i] = cnt1[i].wrapping_sub(cnt0[i]);
        }
        out
    }
}

/// A descriptor from the flat port's 64-bit words, least significant first (the inverse of
/// [`descriptor_words`]).
fn header_from_words(words: &[u64]) -> RoceHeader {
    let mut bits = Bits::<ROCE_HEADER_BITS>::default();
    for j in 0..ROCE_HEADER_BITS {
        if (words[j / 64] >> (j % 64)) & 1 == 1 {
            bits = bits.replace_bit(j, true);
        }
    }
    bits.into()
}
