//! PFC (IEEE 802.1Qbb) pause honoured by the NIC, end to end: two NICs (`ferroce verbs`'
//! scenario, Verilator engine, host A sending 64 KiB WRITEs) joined by a link model that hands
//! host A's NIC PFC frames at chosen moments. Checked from the frames on the wire:
//! * pause: after a PFC frame pausing the RoCE priority (CFG_PFC 2:0, 3) reaches the NIC, no
//!   frame of host A starts later than [`gate_bound`] cycles after the PFC frame's arrival
//!   until the pause ends (frames already past the transmit arbiter finish and at most two more
//!   that were inside the formatter and the TX builder start);
//! * expiry: a pause of Q quanta ends by itself after ceil(Q x 512 / LINK_BITS) cycles
//!   (LINK_BITS = 100 after reset: 25 Gb/s at 250 MHz), and traffic resumes within a few cycles
//!   (the resume latency is printed);
//! * XON: a pause of 65535 quanta ended early by a PFC frame with quanta 0;
//! * other priorities: a pause of priority 5 does not stop RoCE data;
//! * PFC off (CFG_CONTROL.PFC_ENABLE clear): the same frames change nothing on the wire but
//!   are counted;
//! * `CNT_PFC_PAUSE` counts the frames naming the RoCE or CNP priority, `CNT_PFC_PAUSED_CYCLES`
//!   the exact cycles the RoCE priority was paused;
//! * every message verified.
//!
//! Needs verilator (`scripts/install-tools.sh`).
use ferroce_proto::host::regs;
use ferroce_proto::wire::{FrameRepr, PfcRepr};
use ferroce_sim::cmd::verbs::{run_scenario_hooked, Engine, RunHooks, VerbsArgs, VerbsLinkArgs};
use ferroce_sim::nic_pair::PairMedium;
use ferroce_testkit::require_tool;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const PMTU: usize = 1024;
/// CFG_PFC.LINK_BITS after reset (25 Gb/s at 250 MHz).
const LINK_BITS: u64 = 100;
/// Beats of the longest frame host A sends: a WRITE FIRST of one PMTU (Ethernet 14, IPv4 20,
/// UDP 8, BTH 12, RETH 16, payload, ICRC 4) at 8 bytes a beat.
const MAX_FRAME_BEATS: u64 = (14 + 20 + 8 + 12 + 16 + PMTU as u64 + 4).div_ceil(8);
/// Beats of a PFC frame (60 bytes without FCS).
const PFC_BEATS: u64 = 8;

/// Latest start of a frame of a paused priority after the PFC frame was handed to the NIC's
/// receive side, in cycles (docs/CONGESTION.md, PFC): the PFC frame's own beats, the parser's
/// latency to `pfc_valid` and the pause block's register (at most 16 cycles), then the frame
/// the MAC is sending and the two the arbiter had already given the formatter and the TX
/// builder, each at most `MAX_FRAME_BEATS` (the last of them starts when the one before it
/// ends).
fn gate_bound() -> u64 {
    PFC_BEATS + 16 + 2 * MAX_FRAME_BEATS
}

/// Latest first frame after a pause ends (expiry, or an XON's arrival), in cycles: the PFC
/// frame's beats and the parser's latency to the pause block (16) as in [`gate_bound`], then
/// the transmit pipeline from the arbiter to the MAC's first beat: the formatter's QP context
/// read and header, the TX builder's first beat (at most 16).
fn resume_bound() -> u64 {
    PFC_BEATS + 16 + 16
}

fn pause_cycles(quanta: u64) -> u64 {
    (quanta * 512).div_ceil(LINK_BITS)
}

/// What happens to host A's NIC: after its `after`-th frame since the previous event ended, a
/// PFC frame `pfc`; then (for XON) a second one `gap` cycles later.
#[derive(Clone, Copy, Debug)]
enum Event {
    Pause { prio: u8, quanta: u16 },
    PauseThenXon { quanta: u16, gap: u64 },
}

#[derive(Default)]
struct Log {
    /// host A's frames: (first beat cycle, last beat cycle)
    a_frames: Vec<(u64, u64)>,
    /// delivery cycles of the PFC frames, per event
    injected: Vec<Vec<u64>>,
}

/// A perfect link (a frame enters the other NIC the cycle after its last beat) that hands
/// host A PFC frames: event k after host A's `every`-th frame since event k-1 was injected
/// (plus its pause).
struct Probe {
    log: Arc<Mutex<Log>>,
    queue: [VecDeque<(u64, Vec<u8>)>; 2],
    events: VecDeque<Event>,
    every: u64,
    since: u64,
    /// the PFC frames of the current event still to hand over: (cycle, frame)
    pending: VecDeque<(u64, Vec<u8>)>,
    src: [u8; 6],
}

fn pfc_frame(src: [u8; 6], prio: u8, quanta: u16) -> Vec<u8> {
    FrameRepr::new_pfc(src, PfcRepr::pause_priority(prio, quanta)).emit()
}

impl PairMedium for Probe {
    fn tx_ready(&mut self, _side: usize, _cycle: u64) -> bool {
        true
    }
    fn send(&mut self, from: usize, cycle: u64, frame: Vec<u8>) {
        if from == 0 {
            let beats = (frame.len() as u64).div_ceil(8);
            self.log
                .lock()
                .unwrap()
                .a_frames
                .push((cycle + 1 - beats, cycle));
            self.since += 1;
            if self.since == self.every && self.pending.is_empty() {
                if let Some(e) = self.events.pop_front() {
                    let at = cycle + 1;
                    match e {
                        Event::Pause { prio, quanta } => {
                            self.pending.push_back((at, pfc_frame(self.src, prio, quanta)));
                        }
                        Event::PauseThenXon { quanta, gap } => {
                            self.pending.push_back((at, pfc_frame(self.src, 3, quanta)));
                            self.pending.push_back((at + gap, pfc_frame(self.src, 3, 0)));
                        }
                    }
                    self.log.lock().unwrap().injected.push(Vec::new());
                }
            }
        }
        self.queue[1 - from].push_back((cycle + 1, frame));
    }
    fn deliver(&mut self, to: usize, cycle: u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while self.queue[to].front().is_some_and(|f| f.0 <= cycle) {
            out.push(self.queue[to].pop_front().unwrap().1);
        }
        if to == 0 {
            while self.pending.front().is_some_and(|f| f.0 <= cycle) {
                let (_, f) = self.pending.pop_front().unwrap();
                let mut log = self.log.lock().unwrap();
                log.injected.last_mut().unwrap().push(cycle);
                out.push(f);
                if self.pending.is_empty() {
                    self.since = 0;
                }
            }
        }
        out
    }
}

struct Outcome {
    report: ferroce_sim::cmd::verbs::VerbsReport,
    log: Log,
}

fn run(pfc_on: bool, events: &[Event]) -> Outcome {
    let log = Arc::new(Mutex::new(Log::default()));
    let probe = Probe {
        log: log.clone(),
        queue: Default::default(),
        events: events.iter().copied().collect(),
        every: 40,
        since: 0,
        pending: VecDeque::new(),
        src: [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
    };
    let args = VerbsArgs {
        ops: vec!["write".into()],
        sizes: vec!["65536".into()],
        qps: 1,
        messages: 24,
        seed: 5,
        pmtu: PMTU,
        ..VerbsArgs::default()
    };
    let hooks = RunHooks {
        medium: Some(Box::new(probe)),
        one_way: true,
        set_bits: if pfc_on {
            vec![(0, regs::CFG_CONTROL, regs::cfg_control::PFC_ENABLE)]
        } else {
            Vec::new()
        },
        ..RunHooks::default()
    };
    let report =
        run_scenario_hooked(&args, &VerbsLinkArgs::default(), Engine::Verilator, hooks).unwrap();
    assert_eq!(report.failed, 0, "{:?}", report.errors);
    assert_eq!(report.verified, report.messages, "{:?}", report.errors);
    let log = std::mem::take(&mut *log.lock().unwrap());
    Outcome { report, log }
}

/// Host A's frames starting in [from, to).
fn starts_in(log: &Log, from: u64, to: u64) -> Vec<u64> {
    log.a_frames
        .iter()
        .map(|f| f.0)
        .filter(|&s| s >= from && s < to)
        .collect()
}

const EVENTS: [Event; 3] = [
    Event::Pause {
        prio: 3,
        quanta: 2000,
    },
    Event::PauseThenXon {
        quanta: 65535,
        gap: 4000,
    },
    Event::Pause {
        prio: 5,
        quanta: 65535,
    },
];

#[test]
fn pfc_pause_expiry_xon_and_other_priorities() {
    if !require_tool("verilator") {
        return;
    }
    let o = run(true, &EVENTS);
    let log = &o.log;
    assert_eq!(log.injected.len(), 3, "every event ran");
    let bound = gate_bound();
    // 1. a pause of 2000 quanta: 10 240 cycles, then resume by expiry
    let d = log.injected[0][0];
    let held = pause_cycles(2000);
    let late = starts_in(log, d, d + held);
    let gate = late.iter().map(|s| s - d).max().unwrap_or(0);
    assert!(late.len() <= 3, "frames started during the pause: {late:?} (PFC at {d})");
    assert!(gate <= bound, "a frame started {gate} cycles after the PFC frame (bound {bound})");
    let resume = starts_in(log, d + held, u64::MAX)[0] - d - held;
    eprintln!(
        "pause 2000 quanta: last frame start {gate} cycles after the PFC frame's arrival ({} frames after it, bound {bound}); held {held} cycles; first frame {resume} cycles after expiry",
        late.len()
    );
    assert!(
        resume <= resume_bound(),
        "resume after expiry took {resume} cycles (bound {})",
        resume_bound()
    );
    // 2. 65535 quanta ended by XON after 4000 cycles
    let (d, x) = (log.injected[1][0], log.injected[1][1]);
    assert_eq!(x - d, 4000);
    let late = starts_in(log, d, x);
    let gate2 = late.iter().map(|s| s - d).max().unwrap_or(0);
    assert!(gate2 <= bound, "{gate2} > {bound}");
    let resume_xon = starts_in(log, x, u64::MAX)[0] - x;
    eprintln!(
        "pause 65535 quanta, XON 4000 cycles later: last frame start {gate2} cycles after the PFC frame; first frame {resume_xon} cycles after the XON frame's arrival"
    );
    assert!(resume_xon <= resume_bound(), "{resume_xon}");
    // 3. priority 5 paused: RoCE data (priority 3) keeps going
    let d = log.injected[2][0];
    let during = starts_in(log, d, d + 4000);
    assert!(
        during.len() >= 10,
        "a pause of priority 5 held priority 3: {} frames in 4000 cycles",
        during.len()
    );
    // counters: frames naming priority 3 (the pause, the pause and its XON); cycles paused
    assert_eq!(o.report.pfc_pause[0], 3);
    assert_eq!(o.report.pfc_paused_cycles[0], held + 4000);
    assert_eq!((o.report.pfc_pause[1], o.report.pfc_paused_cycles[1]), (0, 0));
}

#[test]
fn pfc_off_changes_nothing_but_counts() {
    if !require_tool("verilator") {
        return;
    }
    let o = run(false, &EVENTS[..1]);
    let d = o.log.injected[0][0];
    let during = starts_in(&o.log, d, d + pause_cycles(2000));
    assert!(
        during.len() >= 20,
        "PFC off, yet {} frames in the pause",
        during.len()
    );
    assert_eq!(o.report.pfc_pause[0], 1);
    assert_eq!(o.report.pfc_paused_cycles[0], 0);
}
