//! PFC (IEEE 802.1Qbb) end to end, both directions of the protocol in the NIC: two NICs
//! (Verilator engine) on a link with a fixed propagation delay; host A RDMA-WRITEs to host B,
//! whose DMA writes run at a quarter of the link rate, so B's receive side backs up into its
//! receive FIFO (`RxAdmission`, in front of the parser: the MAC cannot wait).
//! * PFC on at both NICs: B sends XOFF on the RoCE priority when the FIFO passes the XOFF
//!   threshold (`CFG_PFC_XOFF`) and XON once it drains; A's transmit side honours them. Checked:
//!   no frame dropped for lack of room (`CNT_RX_DROP_NO_ROOM` = 0), XOFF and XON frames sent and
//!   seen on the wire as PFC frames of priority 3 naming B's MAC, A paused, no retransmission,
//!   every message verified.
//! * PFC off: the same stall drops whole frames at B's FIFO, counted, and Go-Back-N recovers
//!   (every message still verified).
//! * Both directions stalled, PFC on: A and B WRITE to each other and both hosts' DMA is slow,
//!   so each NIC receives the other's XOFF while its own receive FIFO is full of data. The
//!   pause is decoded at wire time in front of the FIFO (`PfcRxTap`), so no frame of the paused
//!   NIC starts later than a fixed bound after the PFC frame's last beat until the pause ends,
//!   however long the queue behind which the PFC frame entered the FIFO; nothing is dropped.
//! * Both directions stalled with atomics: WRITEs and atomics both ways; atomic acknowledges
//!   park like ACKs while paused, nothing is dropped or resent, every original value verified.
//! * Per-priority counters: the XOFF/XON frames on the wire are the sender's
//!   `CNT_PFC_TX_*_P3` and the receiver's `CNT_PFC_RX_*_P3`, every other priority 0.
//!
//! Needs verilator (`scripts/install-tools.sh`).
use ferroce_proto::wire::{ethertype, EthernetFrame, PfcPacket, PfcRepr};
use ferroce_sim::cmd::verbs::{
    enable_pfc, run_scenario_hooked, Engine, RunHooks, VerbsArgs, VerbsLinkArgs, VerbsReport, MACS,
};
use ferroce_sim::host::ShellConfig;
use ferroce_sim::nic_pair::PairMedium;
use ferroce_testkit::require_tool;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// One-way propagation delay of the link, in cycles (0.8 us at 250 MHz, about 160 m of fibre).
const DELAY: u64 = 200;
/// Host B's DMA write bandwidth, bytes per cycle (the link brings up to 8).
const B_WRITE_BYTES_PER_CYCLE: u32 = 2;

/// PFC frames seen on the wire: (from side, cycle, pause time of priority 3).
type PfcLog = Arc<Mutex<Vec<(usize, u64, u16)>>>;

/// What each side did on the wire, for the pause-timing check.
#[derive(Default)]
struct WireLog {
    /// per side: the first-beat cycle of each frame it sent that is not MAC control
    data_starts: [Vec<u64>; 2],
    /// per side: (last-beat cycle into its NIC, pause time of priority 3) of each PFC frame it
    /// received
    pfc_in: [Vec<(u64, u16)>; 2],
}

/// A full-rate link with a fixed delay each way; frames enter the other NIC one beat a cycle.
struct DelayLink {
    queue: [VecDeque<(u64, Vec<u8>)>; 2],
    pfc: PfcLog,
    wire: Arc<Mutex<WireLog>>,
    /// per side: the first cycle its receive side is free (frames enter it back to back, one
    /// beat a cycle: the MAC never waits)
    busy: [u64; 2],
}

fn pfc_time_of(frame: &[u8]) -> Option<u16> {
    let eth = EthernetFrame::new_checked(frame).ok()?;
    if eth.ethertype() != ethertype::MAC_CONTROL {
        return None;
    }
    let pfc = PfcPacket::new_checked(eth.payload()).ok()?;
    PfcRepr::parse(&pfc).ok()?.time_for(3)
}

impl PairMedium for DelayLink {
    fn tx_ready(&mut self, _side: usize, _cycle: u64) -> bool {
        true
    }
    fn send(&mut self, from: usize, cycle: u64, frame: Vec<u8>) {
        if let Ok(eth) = EthernetFrame::new_checked(&frame[..]) {
            if eth.ethertype() == ethertype::MAC_CONTROL {
                let pfc = PfcPacket::new_checked(eth.payload()).expect("a whole PFC frame");
                let repr = PfcRepr::parse(&pfc).expect("a PFC frame");
                assert_eq!(
                    eth.src_addr(),
                    MACS[from],
                    "PFC frame from the sender's MAC"
                );
                let t = repr.time_for(3).expect("priority 3 named");
                assert_eq!(pfc.class_enable(), 1 << 3, "only the RoCE priority");
                self.pfc.lock().unwrap().push((from, cycle, t));
            } else {
                let beats = (frame.len() as u64).div_ceil(8);
                self.wire.lock().unwrap().data_starts[from].push(cycle + 1 - beats);
            }
        }
        self.queue[1 - from].push_back((cycle + DELAY, frame));
    }
    fn deliver(&mut self, to: usize, cycle: u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while self.queue[to].front().is_some_and(|f| f.0 <= cycle) {
            let f = self.queue[to].pop_front().unwrap().1;
            // a frame handed over now offers its first beat in the next cycle
            let first = self.busy[to].max(cycle + 1);
            self.busy[to] = first + (f.len() as u64).div_ceil(8);
            if let Some(t) = pfc_time_of(&f) {
                self.wire.lock().unwrap().pfc_in[to].push((self.busy[to] - 1, t));
            }
            out.push(f);
        }
        out
    }
}

struct Run {
    report: VerbsReport,
    pfc: Vec<(usize, u64, u16)>,
    wire: WireLog,
}

/// `both_ways`: both hosts post WRITEs and both hosts' DMA is slow; else only A posts and only
/// B's DMA is slow.
fn run(pfc_on: bool, both_ways: bool) -> Run {
    let args = VerbsArgs {
        ops: vec!["write".into()],
        sizes: vec!["65536".into()],
        qps: 2,
        messages: 8,
        seed: 11,
        pmtu: 1024,
        ..VerbsArgs::default()
    };
    run_args(&args, pfc_on, both_ways)
}

fn run_args(args: &VerbsArgs, pfc_on: bool, both_ways: bool) -> Run {
    let pfc = PfcLog::default();
    let wire = Arc::new(Mutex::new(WireLog::default()));
    let slow = ShellConfig {
        write_bytes_per_cycle: B_WRITE_BYTES_PER_CYCLE,
        ..ShellConfig::ideal()
    };
    let hooks = RunHooks {
        medium: Some(Box::new(DelayLink {
            queue: Default::default(),
            pfc: pfc.clone(),
            wire: wire.clone(),
            busy: [0; 2],
        })),
        one_way: !both_ways,
        // PFC through the driver on both NICs (ID_CAPS.PFC)
        setup: if pfc_on { Some(enable_pfc) } else { None },
        shells: if both_ways {
            vec![(0, slow), (1, slow)]
        } else {
            vec![(1, slow)]
        },
        ..RunHooks::default()
    };
    let report =
        run_scenario_hooked(args, &VerbsLinkArgs::default(), Engine::Verilator, hooks).unwrap();
    assert_eq!(report.failed, 0, "{:?}", report.errors);
    assert_eq!(report.verified, report.messages, "{:?}", report.errors);
    let pfc = std::mem::take(&mut *pfc.lock().unwrap());
    let wire = std::mem::take(&mut *wire.lock().unwrap());
    Run { report, pfc, wire }
}

#[test]
fn pfc_xoff_keeps_a_stalled_receiver_lossless() {
    if !require_tool("verilator") {
        return;
    }
    let Run {
        report: r,
        pfc: log,
        ..
    } = run(true, false);
    let (a, b) = (&r.per_host[0], &r.per_host[1]);
    eprintln!(
        "PFC on: {} cycles, B: {} XOFF, {} XON sent, {} dropped for lack of room; A: {} PFC frames received, paused {} cycles, {} packets retransmitted",
        r.cycles, b.pfc_xoff_sent, b.pfc_xon_sent, b.rx_no_room, a.pfc_pause, a.pfc_paused_cycles, a.retransmitted
    );
    assert_eq!(b.rx_no_room, 0, "a frame was dropped with PFC on");
    assert!(b.pfc_xoff_sent > 0 && b.pfc_xon_sent > 0, "{b:?}");
    assert_eq!(a.retransmitted, 0, "nothing lost, nothing resent");
    assert!(a.pfc_paused_cycles > 0, "A was paused");
    // every PFC frame on the wire is B's, and they are what B's counters say
    assert!(log.iter().all(|f| f.0 == 1), "{log:?}");
    let xoffs = log.iter().filter(|f| f.2 != 0).count() as u64;
    let xons = log.iter().filter(|f| f.2 == 0).count() as u64;
    assert_eq!((xoffs, xons), (b.pfc_xoff_sent, b.pfc_xon_sent));
    assert_eq!(
        a.pfc_pause,
        xoffs + xons,
        "A counted every PFC frame it got"
    );
    // per priority: B sent them all on the RoCE priority (3), A received them there, and A's
    // priority 3 was paused exactly as long as its RoCE class
    let (pa, pb) = (&a.pfc_prio, &b.pfc_prio);
    let only3 = |v: u64| core::array::from_fn::<u64, 8, _>(|p| if p == 3 { v } else { 0 });
    assert_eq!(pb.tx_xoff, only3(xoffs), "{pb:?}");
    assert_eq!(pb.tx_xon, only3(xons), "{pb:?}");
    assert_eq!(pa.rx_xoff, only3(xoffs), "{pa:?}");
    assert_eq!(pa.rx_xon, only3(xons), "{pa:?}");
    assert_eq!(pa.paused_cycles, only3(a.pfc_paused_cycles), "{pa:?}");
    assert_eq!(pa.tx_xoff.iter().sum::<u64>(), a.pfc_xoff_sent, "{pa:?}");
    // XOFF and XON alternate, starting with an XOFF (refreshes are XOFFs in a row)
    assert!(log.first().is_some_and(|f| f.2 != 0), "{log:?}");
    for w in log.windows(2) {
        assert!(w[0].2 != 0 || w[1].2 != 0, "two XONs in a row: {log:?}");
    }
    assert!(log.iter().filter(|f| f.2 != 0).all(|f| f.2 == u16::MAX));
}

#[test]
fn without_pfc_the_same_stall_drops_and_counts() {
    if !require_tool("verilator") {
        return;
    }
    let Run {
        report: r,
        pfc: log,
        ..
    } = run(false, false);
    let (a, b) = (&r.per_host[0], &r.per_host[1]);
    eprintln!(
        "PFC off: {} cycles, B: {} frames dropped for lack of room; A: {} packets retransmitted",
        r.cycles, b.rx_no_room, a.retransmitted
    );
    assert!(log.is_empty(), "no PFC frame with PFC off: {log:?}");
    assert_eq!(b.pfc_xoff_sent + b.pfc_xon_sent, 0);
    assert!(b.rx_no_room > 0, "the stall drops frames without PFC");
    assert!(a.retransmitted > 0, "Go-Back-N resent what was dropped");
}

/// Both hosts sent XOFFs (their FIFOs filled), dropped nothing and resent nothing; prints each
/// host's PFC figures.
fn check_both_ways_lossless(what: &str, r: &VerbsReport) {
    for (s, h) in r.per_host.iter().enumerate() {
        eprintln!(
            "{what}, PFC on: host {s}: {} XOFF / {} XON sent, {} PFC frames received, paused {} cycles, {} responses parked, {} send jobs set aside, {} dropped for lack of room, {} retransmitted, {} tail-loss probes ({} cycles)",
            h.pfc_xoff_sent, h.pfc_xon_sent, h.pfc_pause, h.pfc_paused_cycles, h.ack_parked, h.req_pfc_yield, h.rx_no_room, h.retransmitted, h.probes, r.cycles
        );
        assert_eq!(h.rx_no_room, 0, "host {s} dropped a frame with PFC on");
        // (both hosts' DMA is slow, so an ACK may come after the probe timeout, a quarter of
        // the ACK timeout: a tail-loss probe sends one packet again, and nothing else is)
        assert_eq!(
            (h.retransmitted, h.timeouts),
            (h.probes, 0),
            "host {s}: nothing lost, nothing resent but tail-loss probes"
        );
        assert!(h.pfc_xoff_sent > 0, "host {s}'s FIFO filled: {h:?}");
    }
}

/// CFG_PFC.LINK_BITS after reset (25 Gb/s at 250 MHz): one quantum of 512 bit times lasts
/// 512 / 100 cycles.
const LINK_BITS: u64 = 100;
/// Beats of the longest frame either host sends: a WRITE FIRST of one PMTU (1024; Ethernet 14,
/// IPv4 20, UDP 8, BTH 12, RETH 16, payload, ICRC 4) at 8 bytes a beat.
const MAX_FRAME_BEATS: u64 = (14 + 20 + 8 + 12 + 16 + 1024 + 4u64).div_ceil(8);
/// Latest start of a paused NIC's frame after the PFC frame's last beat (docs/CONGESTION.md,
/// PFC): decode and the pause block's register (16 at most), then the frame on the wire and the
/// two the arbiter had already handed to the formatter and the TX builder.
const GATE_BOUND: u64 = 16 + 2 * MAX_FRAME_BEATS;

#[test]
fn a_full_receive_fifo_does_not_delay_a_pause() {
    if !require_tool("verilator") {
        return;
    }
    let Run {
        report: r, wire, ..
    } = run(true, true);
    check_both_ways_lossless("both ways", &r);
    // every XOFF that reached a NIC: none of its frames starts after the bound until the pause
    // ends (the next PFC frame for the priority replaces the timer, else it expires)
    let mut windows = 0;
    let mut worst = 0;
    for s in 0..2 {
        let pfc = &wire.pfc_in[s];
        for (i, &(at, t)) in pfc.iter().enumerate() {
            if t == 0 {
                continue;
            }
            let expiry = at + (t as u64 * 512).div_ceil(LINK_BITS);
            let end = pfc.get(i + 1).map_or(expiry, |n| n.0.min(expiry));
            let starts: Vec<u64> = wire.data_starts[s]
                .iter()
                .copied()
                .filter(|&c| c >= at && c < end)
                .collect();
            if let Some(&last) = starts.last() {
                worst = worst.max(last - at);
            }
            assert!(
                starts.iter().all(|&c| c - at <= GATE_BOUND),
                "host {s}: XOFF in at {at}, pause to {end}: frames started at {:?} cycles after it (bound {GATE_BOUND})",
                starts.iter().map(|c| c - at).collect::<Vec<_>>()
            );
            windows += 1;
        }
    }
    eprintln!("{windows} pauses checked; latest frame start {worst} cycles after the XOFF's last beat (bound {GATE_BOUND})");
    assert!(windows >= 2, "each side was paused at least once");
}

/// Both hosts WRITE and run atomics at each other with slow DMA on both sides, PFC on: the
/// responder's atomic acknowledges wait for a paused transmit path too, so they park like ACKs
/// (`RespAckQueue`) and the receive FIFOs keep draining; nothing is dropped or resent, every
/// atomic's original value is verified.
#[test]
fn atomics_both_ways_park_and_finish() {
    if !require_tool("verilator") {
        return;
    }
    let args = VerbsArgs {
        ops: vec![
            "write".into(),
            "atomic_fadd".into(),
            "atomic_cas".into(),
            "atomic_fadd".into(),
        ],
        sizes: vec!["65536".into()],
        qps: 4,
        messages: 32,
        seed: 23,
        pmtu: 1024,
        ..VerbsArgs::default()
    };
    let Run { report: r, .. } = run_args(&args, true, true);
    check_both_ways_lossless("WRITEs and atomics both ways", &r);
    for (s, h) in r.per_host.iter().enumerate() {
        assert!(h.pfc_paused_cycles > 0, "host {s} was paused: {h:?}");
        assert!(h.ack_parked > 0, "host {s} parked responses: {h:?}");
    }
}

/// Both hosts WRITE, READ and run atomics at each other with slow DMA on both sides, PFC on.
/// READ responses go to the requester, so a requester that waited inside a message for a
/// paused TX path would stop draining its receive FIFO and the two NICs would pause each other
/// for good; instead it sets the job aside (`CNT_REQ_PFC_YIELD`), places READ responses, and
/// goes on after the pause. Nothing is dropped or resent and every READ's data is verified.
#[test]
fn reads_both_ways_set_jobs_aside_and_finish() {
    if !require_tool("verilator") {
        return;
    }
    let args = VerbsArgs {
        ops: vec![
            "write".into(),
            "read".into(),
            "atomic_fadd".into(),
            "read".into(),
        ],
        sizes: vec!["65536".into()],
        qps: 4,
        messages: 32,
        seed: 29,
        pmtu: 1024,
        ..VerbsArgs::default()
    };
    let Run { report: r, .. } = run_args(&args, true, true);
    check_both_ways_lossless("WRITEs, READs and atomics both ways", &r);
    for (s, h) in r.per_host.iter().enumerate() {
        assert!(h.pfc_paused_cycles > 0, "host {s} was paused: {h:?}");
        assert!(h.req_pfc_yield > 0, "host {s} set send jobs aside: {h:?}");
    }
}
