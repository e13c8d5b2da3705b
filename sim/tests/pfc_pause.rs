//! PFC (IEEE 802.1Qbb) pause honoured by the NIC, end to end: two NICs (`ferroce verbs`'
//! scenario, Verilator engine, host A sending 64 KiB WRITEs) joined by a link model that hands
//! host A's NIC PFC frames at chosen moments. Checked from the frames on the wire:
//! * pause: after a PFC frame pausing the RoCE priority (CFG_PFC 2:0, 3) reaches the NIC, no
//!   frame of host A starts later than [`gate_bound`] cycles after the PFC frame's last beat
//!   until the pause ends (frames already past the transmit arbiter finish and at most two more
//!   that were inside the formatter and the TX builder start);
//! (the last beat is the link model's: frames enter the NIC one beat a cycle, in order)
//! * expiry: a pause of Q quanta ends by itself after ceil(Q x 512 / LINK_BITS) cycles
//!   (LINK_BITS = 100 after reset: 25 Gb/s at 250 MHz), and traffic resumes within a few cycles
//!   (the resume latency is printed);
//! * XON: a pause of 65535 quanta ended early by a PFC frame with quanta 0;
//! * CNPs: with host B also sending, host A's notification point answers B's CE-marked frames
//!   while A's RoCE priority is paused: CNPs go on their own priority;
//! * other priorities: a pause of priority 5 does not stop RoCE data;
//! * PFC off (CFG_CONTROL.PFC_ENABLE clear): the same frames change nothing on the wire but
//!   are counted;
//! * `CNT_PFC_PAUSE` counts the frames naming the RoCE or CNP priority, `CNT_PFC_PAUSED_CYCLES`
//!   the exact cycles the RoCE priority was paused; the per-priority counters
//!   (`CNT_PFC_RX_XOFF_Pn`, `CNT_PFC_RX_XON_Pn`, `CNT_PFC_PAUSED_CYCLES_Pn`) each frame and
//!   cycle under its priority;
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
/// Cycles between the end of one event and the next.
const SETTLE: u64 = 3000;
/// CFG_PFC.LINK_BITS after reset (25 Gb/s at 250 MHz).
const LINK_BITS: u64 = 100;
/// Beats of the longest frame host A sends: a WRITE FIRST of one PMTU (Ethernet 14, IPv4 20,
/// UDP 8, BTH 12, RETH 16, payload, ICRC 4) at 8 bytes a beat.
const MAX_FRAME_BEATS: u64 = (14 + 20 + 8 + 12 + 16 + PMTU as u64 + 4).div_ceil(8);

/// Latest start of a frame of a paused priority after the PFC frame's last beat, in cycles
/// (docs/CONGESTION.md, PFC): the parser's latency to `pfc_valid` and the pause block's
/// register (at most 16 cycles), then the frame
/// the MAC is sending and the two the arbiter had already given the formatter and the TX
/// builder, each at most `MAX_FRAME_BEATS` (the last of them starts when the one before it
/// ends).
fn gate_bound() -> u64 {
    16 + 2 * MAX_FRAME_BEATS
}

/// Latest first frame after a pause ends (its expiry counted from the PFC frame's last beat,
/// or an XON's last beat), in cycles: the parser's latency to the pause block (16) as in
/// [`gate_bound`], then
/// the transmit pipeline from the arbiter to the MAC's first beat: the formatter's QP context
/// read and header, the TX builder's first beat (at most 16).
fn resume_bound() -> u64 {
    16 + 16
}

/// Least spacing of two CNPs of one QP on the wire, in cycles: `CC_NP_CNP_INTERVAL` after reset
/// (4 us, 1000 cycles at 250 MHz) less the largest difference of their transmit queueing (the
/// frame the TX builder is sending and the formatter's request in progress, each at most
/// `MAX_FRAME_BEATS` plus 2, and the formatter pass of the CNP itself, 16).
const CNP_INTERVAL_CYCLES: u64 = 1000 - (2 * (MAX_FRAME_BEATS + 2) + 16);

fn pause_cycles(quanta: u64) -> u64 {
    (quanta * 512).div_ceil(LINK_BITS)
}

/// What happens to host A's NIC: a PFC frame; then (for XON) a second one `gap` cycles later.
#[derive(Clone, Copy, Debug)]
enum Event {
    Pause { prio: u8, quanta: u16 },
    PauseThenXon { quanta: u16, gap: u64 },
}

#[derive(Default)]
struct Log {
    /// host A's frames: (first beat cycle, last beat cycle, BTH opcode)
    a_frames: Vec<(u64, u64, u8)>,
    /// the cycle of each PFC frame's last beat into host A's NIC, per event
    injected: Vec<Vec<u64>>,
}

/// A perfect link (a frame enters the other NIC the cycle after its last beat) that hands
/// host A PFC frames: the first event after host A's `every`-th data frame, each next one at
/// the first data frame of host A at least `SETTLE` cycles after the previous event ended.
struct Probe {
    log: Arc<Mutex<Log>>,
    queue: [VecDeque<(u64, Vec<u8>)>; 2],
    events: VecDeque<Event>,
    every: u64,
    since: u64,
    /// no event before this cycle
    not_before: u64,
    /// the PFC frames of the current event still to hand over: (cycle, frame)
    pending: VecDeque<(u64, Vec<u8>)>,
    src: [u8; 6],
    /// host B's frames are marked ECN CE until this cycle (A's notification point answers
    /// with CNPs, on the CNP priority)
    mark_until: u64,
    /// the cycle from which host A's receive side is free: frames enter it one beat a cycle,
    /// in order (the NIC takes a beat every cycle unless its receive side pushes back)
    a_busy: u64,
}

/// Sets ECN CE in an IPv4 frame's ToS and recomputes the header checksum (the ICRC masks the
/// ToS: IBTA Vol 1 Annex A17).
fn mark_ce(f: &mut [u8]) {
    if f.len() < 34 || f[12..14] != [0x08, 0x00] {
        return;
    }
    f[15] |= 3;
    f[24] = 0;
    f[25] = 0;
    let mut sum = 0u32;
    for w in f[14..34].chunks(2) {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    let c = !(sum as u16);
    f[24..26].copy_from_slice(&c.to_be_bytes());
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
            self.log.lock().unwrap().a_frames.push((
                cycle + 1 - beats,
                cycle,
                frame.get(42).copied().unwrap_or(0),
            ));
            let data = frame.get(42) != Some(&0x81);
            if data {
                self.since += 1;
            }
            if data
                && self.since >= self.every
                && cycle >= self.not_before
                && self.pending.is_empty()
            {
                if let Some(e) = self.events.pop_front() {
                    let at = cycle + 1;
                    match e {
                        Event::Pause { prio, quanta } => {
                            let end = at + pause_cycles(quanta as u64);
                            if prio == 3 {
                                self.mark_until = end;
                                self.not_before = end + SETTLE;
                            } else {
                                self.not_before = at + 4000 + SETTLE;
                            }
                            self.pending
                                .push_back((at, pfc_frame(self.src, prio, quanta)));
                        }
                        Event::PauseThenXon { quanta, gap } => {
                            self.not_before = at + gap + SETTLE;
                            self.pending.push_back((at, pfc_frame(self.src, 3, quanta)));
                            self.pending
                                .push_back((at + gap, pfc_frame(self.src, 3, 0)));
                        }
                    }
                    self.log.lock().unwrap().injected.push(Vec::new());
                }
            }
        }
        let mut frame = frame;
        if from == 1 && cycle < self.mark_until {
            mark_ce(&mut frame);
        }
        self.queue[1 - from].push_back((cycle + 1, frame));
    }
    fn deliver(&mut self, to: usize, cycle: u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        // a frame handed over now offers its first beat in the next cycle
        let enter = |busy: &mut u64, f: &[u8]| -> u64 {
            let first = (*busy).max(cycle + 1);
            *busy = first + (f.len() as u64).div_ceil(8);
            *busy - 1
        };
        while self.queue[to].front().is_some_and(|f| f.0 <= cycle) {
            let f = self.queue[to].pop_front().unwrap().1;
            if to == 0 {
                enter(&mut self.a_busy, &f);
            }
            out.push(f);
        }
        if to == 0 {
            while self.pending.front().is_some_and(|f| f.0 <= cycle) {
                let (_, f) = self.pending.pop_front().unwrap();
                let last = enter(&mut self.a_busy, &f);
                let mut log = self.log.lock().unwrap();
                log.injected.last_mut().unwrap().push(last);
                out.push(f);
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
    run_with(pfc_on, events, true)
}

/// [`run`], with host B also posting WRITEs to host A unless `one_way`.
fn run_with(pfc_on: bool, events: &[Event], one_way: bool) -> Outcome {
    let log = Arc::new(Mutex::new(Log::default()));
    let probe = Probe {
        log: log.clone(),
        queue: Default::default(),
        events: events.iter().copied().collect(),
        every: 40,
        since: 0,
        not_before: 0,
        pending: VecDeque::new(),
        src: [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
        mark_until: 0,
        a_busy: 0,
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
        // host A posts every message (with host B's requests arriving too, A's receive side is
        // back-pressured by host DMA and the PFC frames wait behind them in the MAC's queue:
        // see docs/CONGESTION.md)
        one_way,
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

/// Host A's data frames (not CNPs) starting in [from, to).
fn data_starts_in(log: &Log, from: u64, to: u64) -> Vec<u64> {
    log.a_frames
        .iter()
        .filter(|f| f.2 != 0x81 && f.0 >= from && f.0 < to)
        .map(|f| f.0)
        .collect()
}

/// Host A's frames starting in [from, to).
fn starts_in(log: &Log, from: u64, to: u64) -> Vec<u64> {
    log.a_frames
        .iter()
        .map(|f| f.0)
        .filter(|&s| s >= from && s < to)
        .collect()
}

/// The first of host A's data frames (not a CNP) starting at or after `from`.
fn starts_in_data(log: &Log, from: u64) -> u64 {
    log.a_frames
        .iter()
        .filter(|f| f.2 != 0x81 && f.0 >= from)
        .map(|f| f.0)
        .next()
        .expect("a frame after the pause")
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
    let late = data_starts_in(log, d, d + held);
    let gate = late.iter().map(|s| s - d).max().unwrap_or(0);
    assert!(
        late.len() <= 3,
        "frames started during the pause: {late:?} (PFC at {d})"
    );
    assert!(
        gate <= bound,
        "a frame started {gate} cycles after the PFC frame (bound {bound})"
    );
    let resume = starts_in_data(log, d + held) - d - held;
    eprintln!(
        "pause 2000 quanta: last frame start {gate} cycles after the PFC frame's last beat ({} frames after it, bound {bound}); held {held} cycles; first frame {resume} cycles after expiry",
        late.len()
    );
    assert!(
        resume <= resume_bound(),
        "resume after expiry took {resume} cycles (bound {})",
        resume_bound()
    );
    // 2. 65535 quanta ended by XON after 4000 cycles
    let (d, x) = (log.injected[1][0], log.injected[1][1]);
    let late = starts_in(log, d, x);
    let gate2 = late.iter().map(|s| s - d).max().unwrap_or(0);
    let detail: Vec<(u64, u8)> = log
        .a_frames
        .iter()
        .filter(|f| f.0 >= d && f.0 < x)
        .map(|f| (f.0 - d, f.2))
        .collect();
    assert!(
        gate2 <= bound,
        "{gate2} > {bound}: XON at +{}, {detail:?}",
        x - d
    );
    let resume_xon = starts_in_data(log, x) - x;
    eprintln!(
        "pause 65535 quanta, XON 4000 cycles later: last frame start {gate2} cycles after the PFC frame's last beat; first frame {resume_xon} cycles after the XON frame's last beat"
    );
    assert!(resume_xon <= resume_bound(), "{resume_xon}");
    let xon_gap = x - d;
    // 3. priority 5 paused: RoCE data (priority 3) keeps going
    let d = log.injected[2][0];
    let during = starts_in(log, d, d + 4000);
    assert!(
        during.len() >= 10,
        "a pause of priority 5 held priority 3: {} frames in 4000 cycles",
        during.len()
    );
    // the resume bounds hold for a job that waited at its packet: nothing waited on the
    // requester during these pauses (their ACKs fit the ACK queue), so none was set aside
    assert_eq!(o.report.per_host[0].req_pfc_yield, 0);
    // counters: frames naming priority 3 (the pause, the pause and its XON); cycles paused
    assert_eq!(o.report.pfc_pause[0], 3);
    assert_eq!(o.report.pfc_paused_cycles[0], held + xon_gap);
    assert_eq!(
        (o.report.pfc_pause[1], o.report.pfc_paused_cycles[1]),
        (0, 0)
    );
    // per priority: XOFFs 2 x priority 3 and 1 x priority 5, one XON of priority 3; priority 3
    // paused as above, priority 5 from its pause to the end of the run (at least the 4000
    // cycles looked at, at most its 65535 quanta)
    let c = &o.report.per_host[0].pfc_prio;
    assert_eq!(c.rx_xoff, [0, 0, 0, 2, 0, 1, 0, 0], "{c:?}");
    assert_eq!(c.rx_xon, [0, 0, 0, 1, 0, 0, 0, 0], "{c:?}");
    let p5 = c.paused_cycles[5];
    assert!((4000..=pause_cycles(65535)).contains(&p5), "{c:?}");
    assert_eq!(
        c.paused_cycles,
        [0, 0, 0, held + xon_gap, 0, p5, 0, 0],
        "{c:?}"
    );
    assert_eq!(
        c.tx_xoff.iter().sum::<u64>(),
        o.report.per_host[0].pfc_xoff_sent,
        "{c:?}"
    );
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
    // counted per priority too, and nothing paused
    let c = &o.report.per_host[0].pfc_prio;
    assert_eq!(c.rx_xoff, [0, 0, 0, 1, 0, 0, 0, 0], "{c:?}");
    assert_eq!(c.paused_cycles, [0; 8], "{c:?}");
}

/// CNPs go on their own priority (`CFG_PFC.CNP_PRIO`, 6), which a pause of the RoCE priority
/// does not hold: host B also WRITEs to host A, B's frames are marked CE from the pause on, and
/// host A's notification point answers them while A's RoCE data is held, no two CNPs closer
/// than `min_time_between_cnps` (`CC_NP_CNP_INTERVAL`, 4 us after reset) less their queueing.
#[test]
fn cnps_leave_while_the_roce_priority_is_paused() {
    if !require_tool("verilator") {
        return;
    }
    let o = run_with(true, &EVENTS[..1], false);
    let log = &o.log;
    assert_eq!(log.injected.len(), 1, "the pause ran");
    let d = log.injected[0][0];
    let held = pause_cycles(2000);
    // A's RoCE data is held (after the frames already past the arbiter)
    let late = data_starts_in(log, d + gate_bound(), d + held);
    assert!(late.is_empty(), "data frames in the pause: {late:?}");
    let cnps: Vec<u64> = log
        .a_frames
        .iter()
        .filter(|f| f.2 == 0x81 && f.0 > d && f.0 < d + held)
        .map(|f| f.0 - d)
        .collect();
    eprintln!(
        "pause of {held} cycles: CNPs started {cnps:?} cycles after the PFC frame; A sent {} CNPs in all",
        o.report.per_host[0].cnp_sent
    );
    assert!(
        cnps.len() >= 2,
        "CNPs while the RoCE priority was paused: {cnps:?}"
    );
    assert!(
        cnps.windows(2).all(|w| w[1] - w[0] >= CNP_INTERVAL_CYCLES),
        "CNPs closer than {CNP_INTERVAL_CYCLES} cycles: {cnps:?}"
    );
}
