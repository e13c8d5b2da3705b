//! The PFC frame inserter's bench and co-simulation: random data frames (1..=530 beats, random
//! last keep, random gaps inside and between frames), random `out.ready` (30-100 %), random
//! XOFF/XON requests with random quanta, priority and source MAC. The reference is written from
//! IEEE 802.1Qbb and the module doc, not from the HDL: the PFC frame bytes come from
//! `ferroce_proto` (`EthernetRepr` + `PfcRepr` emitted into a 60-byte frame), the order of frames
//! from the arbitration rule (at a boundary a pending request goes first). Checked every cycle:
//! the AXI hold rule on `out`; at a boundary, a pending request's first PFC beat is offered in
//! that very cycle, else the next data beat, else nothing; inside a data frame `out` is `inp`
//! (no PFC beat interleaved); inside a PFC frame each beat equals proto's bytes; `req_ready`
//! pulses exactly when a PFC frame's last beat is taken. At the end: the data frames equal the
//! input ones in order, byte for byte. With `out.ready` high and no gaps inside data frames the
//! wait of every request is exactly the rest of the data frame in progress + 8 cycles.
//! Also: Verilator lock-step co-simulation and Yosys `synth_ecp5`.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::stream::{frame_to_beats, Beat};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_hdl::tx::pfc_inserter::{PfcFrameInserter, PFC_BEATS};
use ferroce_proto::wire::ethernet::mac_to_u64;
use ferroce_proto::wire::ethernet::{
    ethertype, EthernetFrame, EthernetRepr, HEADER_LEN, MIN_FRAME_LEN,
};
use ferroce_proto::wire::pfc::{PfcPacket, PfcRepr, DST_MAC};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

/// One request's fields as the generator and the configuration give them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Req {
    xon: bool,
    quanta: u16,
    prio: u8,
    mac: [u8; 6],
}

/// The reference frame: proto's Ethernet header and PFC body, zero padding to the minimum
/// frame (no FCS).
fn pfc_frame(r: &Req) -> Vec<u8> {
    let time = if r.xon { 0 } else { r.quanta };
    let mut buf = vec![0u8; MIN_FRAME_LEN];
    EthernetRepr {
        dst: DST_MAC,
        src: r.mac,
        vlan: None,
        ethertype: ethertype::MAC_CONTROL,
    }
    .emit(&mut EthernetFrame::new_unchecked(&mut buf[..]));
    PfcRepr::pause_priority(r.prio, time)
        .emit(&mut PfcPacket::new_unchecked(&mut buf[HEADER_LEN..]));
    buf
}

fn random_req(rng: &mut Rng) -> Req {
    let m = rng.bytes(6);
    Req {
        xon: rng.percent(40),
        quanta: if rng.percent(10) {
            0xFFFF
        } else {
            rng.below(0x10000) as u16
        },
        prio: rng.below(8) as u8,
        mac: [m[0], m[1], m[2], m[3], m[4], m[5]],
    }
}

/// Data frames into `inp`: gaps of `frame_gap_max` cycles at most between frames, a gap of
/// `beat_gap_pct` % before each later beat of a frame; an offered beat is held until taken.
struct Src {
    frames: VecDeque<Vec<Beat>>,
    pos: usize,
    presenting: bool,
    gap_left: u64,
    beat_gap_pct: u32,
    frame_gap_max: u64,
}

impl Src {
    fn beat(&mut self, rng: &mut Rng) -> Option<Beat> {
        if !self.presenting && !self.frames.is_empty() {
            if self.pos == 0 {
                if self.gap_left > 0 {
                    self.gap_left -= 1;
                } else {
                    self.presenting = true;
                }
            } else {
                self.presenting = !rng.percent(self.beat_gap_pct);
            }
        }
        if self.presenting {
            Some(self.frames[0][self.pos].clone())
        } else {
            None
        }
    }
    fn after_edge(&mut self, fired: bool, rng: &mut Rng) {
        if !fired {
            return;
        }
        assert!(self.presenting, "inp taken while no beat offered");
        self.presenting = false;
        self.pos += 1;
        if self.pos == self.frames[0].len() {
            self.frames.pop_front();
            self.pos = 0;
            self.gap_left = rng.below(self.frame_gap_max + 1);
        }
    }
}

/// The frame in progress on `out`, as the reference sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutFrame {
    Boundary,
    /// a data frame, beats taken so far
    Data(usize),
    /// a PFC frame for this request, beats taken so far
    Pfc(Req, usize),
}

struct Opts {
    frames: usize,
    ready_pct: u32,
    beat_gap_pct: u32,
    frame_gap_max: u64,
    /// a request starts with this chance (1/n) per cycle once the last one is done
    req_one_in: u64,
}

#[derive(Default, Debug)]
struct Stats {
    data_frames: u64,
    pfc_frames: u64,
    xons: u64,
    /// requests that found a data frame in progress, and that found data waiting at a boundary
    behind_data: u64,
    ties: u64,
    /// requests served at once: they found no data frame in progress
    at_boundary: u64,
    worst_wait: u64,
    /// largest (wait - rest of the data frame in progress)
    worst_excess: u64,
    cycles: u64,
}

fn run<S: Stepper<PfcFrameInserter>>(b: &mut S, seed: u64, o: &Opts) -> Stats {
    let mut rng = Rng::new(seed);
    let mut st = Stats::default();
    let mut src = Src {
        frames: VecDeque::new(),
        pos: 0,
        presenting: false,
        gap_left: 0,
        beat_gap_pct: o.beat_gap_pct,
        frame_gap_max: o.frame_gap_max,
    };
    let mut expected: VecDeque<Vec<u8>> = VecDeque::new();
    for _ in 0..o.frames {
        let beats = if rng.percent(50) {
            rng.range(1, 8)
        } else {
            rng.range(1, 530)
        };
        let len = (beats - 1) * 8 + rng.range(1, 8);
        let f = rng.bytes(len);
        src.frames.push_back(frame_to_beats(&f, 8));
        expected.push_back(f);
    }
    // the request being offered: fields, first cycle, rest of the data frame then in progress
    let mut req: Option<(Req, u64, usize)> = None;
    let mut cool = 0u64;
    let mut out_frame = OutFrame::Boundary;
    let mut held: Option<Beat> = None;
    let mut got: Vec<u8> = vec![];
    let start = b.cycles();
    loop {
        let c = b.cycles();
        assert!(c - start < 200_000, "seed {seed}: no progress");
        if req.is_none() {
            if cool > 0 {
                cool -= 1;
            } else if rng.below(o.req_one_in) == 0 {
                let rest = match out_frame {
                    OutFrame::Data(k) => expected[0].len().div_ceil(8) - k,
                    _ => 0,
                };
                req = Some((random_req(&mut rng), c, rest));
            }
        }
        if req.is_none() && src.frames.is_empty() && out_frame == OutFrame::Boundary {
            break;
        }
        // 1. inputs. The fields are don't-care without a request and once the frame is
        // committed (latched at its first beat): scramble them there.
        let in_beat = src.beat(&mut rng);
        let ready = rng.percent(o.ready_pct);
        let committed = matches!(out_frame, OutFrame::Pfc(..));
        let fields = match req {
            Some((r, _, _)) if !committed => r,
            _ => random_req(&mut rng),
        };
        {
            let u = b.uut();
            u.inp.drive(in_beat.as_ref());
            u.out.ready.next = ready;
            u.req_valid.next = req.is_some();
            u.req_xon.next = fields.xon;
            u.quanta.next = (fields.quanta as u64).into();
            u.prio.next = (fields.prio as u64).into();
            u.cfg_mac.next = mac_to_u64(fields.mac).into();
        }
        b.settle();
        // 2. outputs against the reference
        let u = b.uut();
        let offered = u.out.peek();
        let inp_ready = u.inp.ready.val();
        let req_ready = u.req_ready.val();
        if let Some(h) = &held {
            assert_eq!(
                offered.as_ref(),
                Some(h),
                "seed {seed} cycle {c}: offered beat withdrawn"
            );
        }
        if out_frame == OutFrame::Boundary {
            if let Some((r, _, _)) = req {
                // the pending request goes first, now
                if in_beat.is_some() {
                    st.ties += 1;
                }
                out_frame = OutFrame::Pfc(r, 0);
            } else if in_beat.is_some() {
                out_frame = OutFrame::Data(0);
            } else {
                assert!(
                    offered.is_none(),
                    "seed {seed} cycle {c}: a beat from nowhere"
                );
            }
        }
        let mut last_pfc_taken = false;
        match out_frame {
            OutFrame::Boundary => {}
            OutFrame::Data(_) => {
                assert_eq!(
                    offered, in_beat,
                    "seed {seed} cycle {c}: out is not inp in a data frame"
                );
                assert_eq!(inp_ready, ready, "seed {seed} cycle {c}: inp.ready");
            }
            OutFrame::Pfc(r, k) => {
                let want = &frame_to_beats(&pfc_frame(&r), 8)[k];
                assert_eq!(
                    offered.as_ref(),
                    Some(want),
                    "seed {seed} cycle {c}: PFC beat {k} of {r:?}"
                );
                assert!(
                    !inp_ready,
                    "seed {seed} cycle {c}: inp taken during a PFC frame"
                );
                last_pfc_taken = ready && k + 1 == PFC_BEATS;
            }
        }
        assert_eq!(
            req_ready, last_pfc_taken,
            "seed {seed} cycle {c}: req_ready"
        );
        let fired = offered.is_some() && ready;
        held = if offered.is_some() && !ready {
            offered.clone()
        } else {
            None
        };
        if fired {
            let bt = offered.unwrap();
            got.extend_from_slice(&bt.bytes);
            out_frame = match out_frame {
                OutFrame::Data(k) if !bt.last => OutFrame::Data(k + 1),
                OutFrame::Pfc(r, k) if !bt.last => OutFrame::Pfc(r, k + 1),
                OutFrame::Data(_) => {
                    let want = expected.pop_front().expect("more data frames out than in");
                    assert_eq!(
                        got, want,
                        "seed {seed} cycle {c}: data frame {}",
                        st.data_frames
                    );
                    st.data_frames += 1;
                    got.clear();
                    OutFrame::Boundary
                }
                OutFrame::Pfc(r, _) => {
                    assert_eq!(got, pfc_frame(&r), "seed {seed} cycle {c}: PFC frame");
                    let (rq, t0, rest) = req.take().expect("a PFC frame without a request");
                    assert_eq!(rq, r);
                    let wait = c - t0 + 1;
                    st.worst_wait = st.worst_wait.max(wait);
                    st.worst_excess = st.worst_excess.max(wait - rest as u64);
                    if rest > 0 {
                        st.behind_data += 1;
                    } else {
                        st.at_boundary += 1;
                    }
                    if o.ready_pct == 100 && o.beat_gap_pct == 0 {
                        // the documented bound, met exactly
                        assert_eq!(
                            wait,
                            rest as u64 + PFC_BEATS as u64,
                            "seed {seed} cycle {c}: wait"
                        );
                    }
                    st.pfc_frames += 1;
                    st.xons += r.xon as u64;
                    got.clear();
                    cool = rng.below(40);
                    OutFrame::Boundary
                }
                OutFrame::Boundary => unreachable!(),
            };
        }
        let in_fired = in_beat.is_some() && inp_ready;
        b.tick();
        src.after_edge(in_fired, &mut rng);
    }
    assert!(expected.is_empty() && got.is_empty());
    st.cycles = b.cycles() - start;
    st
}

const fn opts(
    frames: usize,
    ready_pct: u32,
    beat_gap_pct: u32,
    frame_gap_max: u64,
    req_one_in: u64,
) -> Opts {
    Opts {
        frames,
        ready_pct,
        beat_gap_pct,
        frame_gap_max,
        req_one_in,
    }
}

#[test]
fn block_bench_random_traffic_against_model() {
    let t0 = std::time::Instant::now();
    let runs = [
        (1u64, opts(150, 30, 20, 20, 30)),
        (2, opts(150, 60, 10, 30, 80)),
        (3, opts(200, 85, 30, 10, 20)),
        (4, opts(200, 100, 5, 40, 50)),
    ];
    let mut total = Stats::default();
    for (seed, o) in &runs {
        let mut b = Bench::new(PfcFrameInserter::default(), |u| &mut u.clock);
        let st = run(&mut b, *seed, o);
        eprintln!("seed {seed}, out.ready {} %: {st:?}", o.ready_pct);
        assert!(
            st.pfc_frames > 10 && st.xons > 2 && st.behind_data > 3,
            "{st:?}"
        );
        total.ties += st.ties;
        total.cycles += st.cycles;
        total.worst_wait = total.worst_wait.max(st.worst_wait);
    }
    // some requests met data waiting at a boundary and went first
    assert!(total.ties > 3, "{total:?}");
    eprintln!(
        "{} cycles in {:.1} s, worst wait {} cycles, {} boundary ties",
        total.cycles,
        t0.elapsed().as_secs_f64(),
        total.worst_wait,
        total.ties
    );
}

/// `out.ready` high and no gaps inside data frames: every request waits exactly the rest of the
/// data frame in progress plus the PFC frame's own 8 beats (asserted in `run`).
#[test]
fn wait_bound_with_ready_high() {
    let mut worst = (0u64, 0u64);
    for seed in [21u64, 22] {
        let mut b = Bench::new(PfcFrameInserter::default(), |u| &mut u.clock);
        let st = run(&mut b, seed, &opts(150, 100, 0, 40, 30));
        eprintln!("seed {seed}, out.ready 100 %: {st:?}");
        assert!(
            st.pfc_frames > 30 && st.behind_data > 10 && st.at_boundary > 3,
            "{st:?}"
        );
        worst = (worst.0.max(st.worst_wait), worst.1.max(st.worst_excess));
    }
    assert_eq!(worst.1, PFC_BEATS as u64);
    eprintln!(
        "worst wait {} cycles; wait - rest of the data frame in progress <= {} cycles",
        worst.0, worst.1
    );
}

/// One frame written out by hand from docs/PROTOCOL.md §12 (not from proto, not from the HDL),
/// and the timing at an idle boundary: beat 0 in the request's first cycle, `req_ready` with
/// beat 7 seven cycles later.
#[test]
fn hand_written_frame_and_idle_timing() {
    let r = Req {
        xon: false,
        quanta: 0xABCD,
        prio: 3,
        mac: [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
    };
    let mut want = vec![
        0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x88, 0x08, 0x01,
        0x01, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0xAB, 0xCD, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    want.resize(60, 0);
    assert_eq!(pfc_frame(&r), want);
    let mut b = Bench::new(PfcFrameInserter::default(), |u| &mut u.clock);
    for xon in [false, true] {
        let u = b.uut();
        u.inp.drive(None);
        u.out.ready.next = true;
        u.req_valid.next = true;
        u.req_xon.next = xon;
        u.quanta.next = (r.quanta as u64).into();
        u.prio.next = (r.prio as u64).into();
        u.cfg_mac.next = mac_to_u64(r.mac).into();
        let mut got = vec![];
        for k in 0..PFC_BEATS {
            b.settle();
            let u = b.uut();
            let bt = u.out.peek().expect("a PFC beat every cycle");
            assert_eq!(bt.last, k + 1 == PFC_BEATS);
            assert_eq!(u.req_ready.val(), k + 1 == PFC_BEATS, "beat {k}");
            got.extend_from_slice(&bt.bytes);
            b.tick();
        }
        let mut w = want.clone();
        if xon {
            w[24] = 0;
            w[25] = 0;
        }
        assert_eq!(got, w, "xon {xon}");
    }
    b.uut().req_valid.next = false;
    b.settle();
    assert!(b.uut().out.peek().is_none());
}

#[test]
fn cosim_pfc_inserter_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(PfcFrameInserter::default(), |u| &mut u.clock);
    let st = run(&mut cs, 31, &opts(200, 70, 15, 4, 30));
    assert!(st.pfc_frames > 50 && st.ties > 3, "{st:?}");
    let st2 = run(&mut cs, 32, &opts(60, 100, 0, 3, 30));
    assert!(st2.pfc_frames > 20, "{st2:?}");
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_pfc_inserter() {
    let m = "ferroce_pfc_inserter";
    let v = ferroce_hdl::verilog::block_verilog(&mut PfcFrameInserter::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pfc_inserter_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the latched fields (48 + 3 + 16), the beat counter and the state
    assert!(st.count("TRELLIS_FF") >= 67, "{}", st.line(ECP5_CELLS));
}
