//! The PFC receive tap's bench and co-simulation. Random traffic: PFC frames built with
//! ferroce_proto (`FrameRepr::new_pfc`), tagged and untagged, random class-enable vectors and
//! times, to the PFC address, to our MAC and to other MACs; PAUSE frames; PFC frames cut at
//! random lengths (around the body's end too), padded or extended, with a header byte mutated;
//! RoCE frames and random frames; random gaps between beats and between frames (garbage on the
//! idle data/keep/last lines); promiscuous mode on and off per frame. The oracle is the RX
//! parser's reference model (`rx::model::expect`, written from IEEE 802.1Qbb and docs/, not from
//! this block): the tap must pulse exactly for the frames the model releases as
//! `RxRelease::Pfc`, with their enable byte and times, in order, exactly N = 1 cycle after the
//! cycle that presents the frame's last beat, and hold `pfc_enable` / `pfc_times` between
//! pulses. The model's `oversize` rule is off (the tap does not judge frame size limits).
//!
//! Also the same traffic on the emitted Verilog (Verilator) in lock step, and Yosys
//! `synth_ecp5`. Needs verilator, make, g++ and yosys (`ferroce_testkit::require_tool`).
use std::collections::VecDeque;

use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::rx::model::{expect, RxConfig, RxRelease, PFC_DA};
use ferroce_hdl::rx::PfcRxTap;
use ferroce_hdl::stream::{frame_to_beats, keep_mask, pack_data, Beat};
use ferroce_hdl::testbench::{random_roce_frame, Bench, FrameOpts, Rng, Stepper};
use ferroce_proto::wire::ethernet::{ethertype, HEADER_LEN, VLAN_HEADER_LEN};
use ferroce_proto::wire::pfc::{self, PfcRepr};
use ferroce_proto::wire::{FrameRepr, VlanTag};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use rust_hdl::prelude::*;

/// Cycles from the cycle presenting a PFC frame's last beat to its `pfc_valid` pulse.
const PULSE_LATENCY: u64 = 1;

fn mac_bytes(m: u64) -> [u8; 6] {
    let b = m.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

fn times_word(t: &[u16; 8]) -> u128 {
    t.iter().fold(0u128, |a, &x| a << 16 | x as u128)
}

fn bits128(b: Bits<128>) -> u128 {
    (b.get_bits::<64>(64).to_u64() as u128) << 64 | b.get_bits::<64>(0).to_u64() as u128
}

/// One random frame of the mix (see the module doc).
fn random_frame(rng: &mut Rng, our_mac: u64) -> Vec<u8> {
    let pick = rng.below(100);
    if pick < 55 {
        // PFC or PAUSE through proto
        let repr = if rng.percent(85) {
            let mut times = [0u16; 8];
            for t in times.iter_mut() {
                *t = match rng.below(4) {
                    0 => 0,
                    1 => 0xFFFF,
                    _ => rng.next_u64() as u16,
                };
            }
            PfcRepr::Pfc {
                class_enable: rng.next_u64() as u16,
                times,
            }
        } else {
            PfcRepr::Pause {
                time: rng.next_u64() as u16,
            }
        };
        let mut fr = FrameRepr::new_pfc(mac_bytes(rng.next_u64()), repr);
        let vlan = rng.percent(40);
        if vlan {
            fr.eth.vlan = Some(VlanTag::from_tci(rng.next_u64() as u16));
        }
        let mut f = fr.emit();
        let l2 = if vlan { VLAN_HEADER_LEN } else { HEADER_LEN };
        assert_eq!(
            u16::from_be_bytes([f[l2 - 2], f[l2 - 1]]),
            ethertype::MAC_CONTROL
        );
        // destination
        let da = match rng.below(5) {
            0 | 1 => PFC_DA,
            2 => our_mac,
            3 => rng.next_u64() & 0xFFFF_FFFF_FFFF,
            _ => PFC_DA ^ (1 << rng.below(48)),
        };
        f[..6].copy_from_slice(&mac_bytes(da));
        match rng.below(10) {
            // cut anywhere, or around the end of the body
            0 => f.truncate(rng.range(1, l2 + pfc::PFC_LEN + 2)),
            1 | 2 => f.truncate(rng.range(l2 + pfc::PFC_LEN - 3, l2 + pfc::PFC_LEN + 3)),
            // extended past the capture window
            3 => {
                let n = rng.range(1, 120);
                f.extend(rng.bytes(n));
            }
            // one header or body byte changed (EtherType, opcode, tag, inner type...)
            4 => {
                let i = rng.range(12, l2 + 3);
                f[i] ^= 1 << rng.below(8);
            }
            // an inner 802.1Q tag (QinQ is not parsed)
            5 if vlan => f[16..18].copy_from_slice(&ethertype::VLAN.to_be_bytes()),
            _ => {}
        }
        f
    } else if pick < 75 {
        let (f, _) = random_roce_frame(
            rng,
            FrameOpts {
                max_payload: 64,
                ..Default::default()
            },
        );
        f
    } else {
        // random bytes, often dressed as MAC control
        let n = rng.range(1, 90);
        let mut f = rng.bytes(n);
        if rng.percent(60) && n >= 16 {
            let at = if rng.percent(50) { 12 } else { 16 };
            if at == 16 {
                f[12..14].copy_from_slice(&ethertype::VLAN.to_be_bytes());
            }
            if f.len() >= at + 4 {
                f[at..at + 2].copy_from_slice(&ethertype::MAC_CONTROL.to_be_bytes());
                let op = if rng.percent(70) {
                    pfc::OPCODE_PFC
                } else {
                    pfc::OPCODE_PAUSE
                };
                f[at + 2..at + 4].copy_from_slice(&op.to_be_bytes());
            }
            if rng.percent(50) {
                f[..6].copy_from_slice(&mac_bytes(PFC_DA));
            }
        }
        f
    }
}

struct Run {
    frames: usize,
    pfc: usize,
    cycles: u64,
}

/// Outputs expected: pending pulses (due cycle, enable, times) and the held values.
struct Check {
    due: VecDeque<(u64, u8, u128)>,
    held: (u8, u128),
}

/// One cycle: drive the inputs (`beat`, or idle with garbage on the lines), check the outputs
/// against the expected pulses, tick. Returns the cycle number the beat was presented in.
fn cycle<S: Stepper<PfcRxTap>>(
    b: &mut S,
    beat: Option<&Beat>,
    mac: u64,
    promisc: bool,
    rng: &mut Rng,
    chk: &mut Check,
) -> u64 {
    let u = b.uut();
    u.cfg_mac.next = mac.into();
    u.cfg_promisc.next = promisc;
    match beat {
        Some(bt) => {
            u.mon_valid.next = true;
            u.mon_data.next = pack_data::<64>(&bt.bytes);
            u.mon_keep.next = keep_mask::<8>(bt.bytes.len());
            u.mon_last.next = bt.last;
        }
        None => {
            u.mon_valid.next = false;
            u.mon_data.next = rng.next_u64().into();
            u.mon_keep.next = (rng.next_u64() & 0xFF).into();
            u.mon_last.next = rng.percent(50);
        }
    }
    b.settle();
    let c = b.cycles();
    let u = b.uut();
    let (v, en, t) = (
        u.pfc_valid.val(),
        u.pfc_enable.val().to_u8(),
        bits128(u.pfc_times.val()),
    );
    match chk.due.front() {
        Some(&(d, we, wt)) if d == c => {
            assert!(v, "cycle {c}: PFC pulse missing");
            assert_eq!(en, we, "cycle {c}: pfc_enable");
            assert_eq!(t, wt, "cycle {c}: pfc_times {t:032x} want {wt:032x}");
            chk.held = (we, wt);
            chk.due.pop_front();
        }
        _ => {
            assert!(!v, "cycle {c}: PFC pulse for no PFC frame");
            assert_eq!((en, t), chk.held, "cycle {c}: outputs not held");
        }
    }
    b.tick();
    c
}

fn run_random<S: Stepper<PfcRxTap>>(b: &mut S, seed: u64, frames: usize, gap: u32) -> Run {
    let mut rng = Rng::new(seed);
    // a unicast MAC of ours
    let mac = rng.next_u64() & 0xFEFF_FFFF_FFFF;
    let mut chk = Check {
        due: VecDeque::new(),
        held: (0, 0),
    };
    let mut pfc_frames = 0;
    for _ in 0..frames {
        let f = random_frame(&mut rng, mac);
        let promisc = rng.percent(20);
        let cfg = RxConfig {
            mac,
            promisc,
            max_frame: usize::MAX,
        };
        let want = match expect(&f, &cfg, usize::MAX).release {
            RxRelease::Pfc { enable, times } => Some((enable, times_word(&times))),
            _ => None,
        };
        if rng.percent(30) {
            for _ in 0..rng.range(1, 4) {
                cycle(b, None, mac, promisc, &mut rng, &mut chk);
            }
        }
        for bt in frame_to_beats(&f, 8) {
            while rng.percent(gap) {
                cycle(b, None, mac, promisc, &mut rng, &mut chk);
            }
            let c = cycle(b, Some(&bt), mac, promisc, &mut rng, &mut chk);
            if bt.last {
                if let Some((e, t)) = want {
                    chk.due.push_back((c + PULSE_LATENCY, e, t));
                    pfc_frames += 1;
                }
            }
        }
    }
    for _ in 0..4 {
        cycle(b, None, mac, false, &mut rng, &mut chk);
    }
    assert!(chk.due.is_empty(), "pulses missing: {:?}", chk.due);
    Run {
        frames,
        pfc: pfc_frames,
        cycles: b.cycles(),
    }
}

#[test]
fn block_bench_random_traffic_against_model() {
    let t0 = std::time::Instant::now();
    let mut total = (0, 0, 0);
    for (seed, gap) in [(1u64, 0u32), (2, 20), (3, 60), (4, 5)] {
        let mut b = Bench::new(PfcRxTap::default(), |u| &mut u.clock);
        let r = run_random(&mut b, seed, 1500, gap);
        assert!(r.pfc > r.frames / 10, "{} PFC of {}", r.pfc, r.frames);
        total = (total.0 + r.frames, total.1 + r.pfc, total.2 + r.cycles);
    }
    eprintln!(
        "{} frames ({} PFC pulses, each {PULSE_LATENCY} cycle after its last beat), {} cycles in {:.1} s",
        total.0,
        total.1,
        total.2,
        t0.elapsed().as_secs_f64()
    );
}

/// Figures by hand: an untagged PFC frame with time[n] = 0x1000 + n and enable 0xA5 gives
/// `pfc_times` 0x1000_1001_..._1007 (time[0] on top); a tagged one the same; cut one byte
/// short of the body, nothing.
#[test]
fn hand_frames_layout_and_length_edge() {
    let times: [u16; 8] = core::array::from_fn(|n| 0x1000 + n as u16);
    let repr = PfcRepr::Pfc {
        class_enable: 0x5AA5,
        times,
    };
    let mut b = Bench::new(PfcRxTap::default(), |u| &mut u.clock);
    let mut rng = Rng::new(9);
    let mut chk = Check {
        due: VecDeque::new(),
        held: (0, 0),
    };
    let mac = 0x0200_0000_0002;
    for (vlan, cut) in [(false, 0), (true, 0), (false, 1), (true, 1), (true, 0)] {
        let mut fr = FrameRepr::new_pfc(mac_bytes(0x0200_0000_0009), repr);
        if vlan {
            fr.eth.vlan = Some(VlanTag::from_tci(0x6001));
        }
        let l2 = if vlan { VLAN_HEADER_LEN } else { HEADER_LEN };
        let mut f = fr.emit();
        f.truncate(l2 + pfc::PFC_LEN - cut);
        for bt in frame_to_beats(&f, 8) {
            let c = cycle(&mut b, Some(&bt), mac, false, &mut rng, &mut chk);
            if bt.last && cut == 0 {
                chk.due
                    .push_back((c + 1, 0xA5, 0x1000_1001_1002_1003_1004_1005_1006_1007));
            }
        }
        for _ in 0..2 {
            cycle(&mut b, None, mac, false, &mut rng, &mut chk);
        }
        assert!(chk.due.is_empty());
    }
}

#[test]
fn cosim_pfc_rx_tap_random() {
    if !require_cosim_tools() {
        return;
    }
    let r = run_cosim(
        "pfc_rx_tap",
        PfcRxTap::default(),
        |u| &mut u.clock,
        |cs| run_random(cs, 21, 800, 25),
    );
    eprintln!("co-simulated: {} frames, {} PFC pulses", r.frames, r.pfc);
    assert!(r.pfc > 50);
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_pfc_rx_tap() {
    let m = "ferroce_pfc_rx_tap";
    let v = ferroce_hdl::verilog::block_verilog(&mut PfcRxTap::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pfc_rx_tap_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // captured times + enable and their output copies, at least
    assert!(
        st.count("TRELLIS_FF") >= 2 * (128 + 8),
        "{}",
        st.line(ECP5_CELLS)
    );
}
