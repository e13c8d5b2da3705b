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

/// A full-rate link with a fixed delay each way; frames enter the other NIC one beat a cycle.
struct DelayLink {
    queue: [VecDeque<(u64, Vec<u8>)>; 2],
    pfc: PfcLog,
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
            }
        }
        self.queue[1 - from].push_back((cycle + DELAY, frame));
    }
    fn deliver(&mut self, to: usize, cycle: u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while self.queue[to].front().is_some_and(|f| f.0 <= cycle) {
            out.push(self.queue[to].pop_front().unwrap().1);
        }
        out
    }
}

fn run(pfc_on: bool) -> (VerbsReport, Vec<(usize, u64, u16)>) {
    let pfc = PfcLog::default();
    let args = VerbsArgs {
        ops: vec!["write".into()],
        sizes: vec!["65536".into()],
        qps: 2,
        messages: 8,
        seed: 11,
        pmtu: 1024,
        ..VerbsArgs::default()
    };
    let slow = ShellConfig {
        write_bytes_per_cycle: B_WRITE_BYTES_PER_CYCLE,
        ..ShellConfig::ideal()
    };
    let hooks = RunHooks {
        medium: Some(Box::new(DelayLink {
            queue: Default::default(),
            pfc: pfc.clone(),
        })),
        one_way: true,
        // PFC through the driver on both NICs (ID_CAPS.PFC)
        setup: if pfc_on { Some(enable_pfc) } else { None },
        shells: vec![(1, slow)],
        ..RunHooks::default()
    };
    let report =
        run_scenario_hooked(&args, &VerbsLinkArgs::default(), Engine::Verilator, hooks).unwrap();
    assert_eq!(report.failed, 0, "{:?}", report.errors);
    assert_eq!(report.verified, report.messages, "{:?}", report.errors);
    let log = std::mem::take(&mut *pfc.lock().unwrap());
    (report, log)
}

#[test]
fn pfc_xoff_keeps_a_stalled_receiver_lossless() {
    if !require_tool("verilator") {
        return;
    }
    let (r, log) = run(true);
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
    let (r, log) = run(false);
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
