//! The DCQCN reaction point end to end: two hardware NICs (the Verilator model of the emitted
//! Verilog), driven only through the driver, over a link that marks every ECN-capable frame CE
//! (a switch queue above its marking threshold all the time). B's notification point answers
//! A's WRITEs with CNPs; A's reaction point gives the QP a limiter at the first CNP and cuts
//! its rate at every rate-reduce period with a CNP (alpha starts at 1023, so every cut is the
//! largest one allowed, `rpg_min_dec_fac` = 50 %: 25,000 -> 12,500 -> 6,250 -> 3,125 Mb/s ->
//! the floor), down to `rpg_min_rate`, set here to 2,000 Mb/s so that the floor is measurable
//! in a short run. Checked from the frames on the link (their cycle stamps), not from the
//! NIC's state:
//! * with the reaction point on for the QP, A's payload rate after the cuts is the floor,
//!   within 2 % (the shaper's accuracy over whole messages, docs/CONGESTION.md), well before
//!   the first rate-increase timer (300 us) could raise it;
//! * the cuts reach the wire within a few microseconds of the CNPs (the sweep of the feeder);
//! * with the QP's enable off (or the reaction point off), the same marking leaves the rate
//!   at the link's, and every CNP is counted in `CNT_RP_CNP_DISABLED`;
//! * every message arrives intact in both cases.
//!
//! Needs verilator (`scripts/install-tools.sh`).
use ferroce_driver::{DcqcnParams, Pmtu, QpRate, Remote, RtsAttr, SendWr, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::regs;
use ferroce_proto::wire::Opcode;
use ferroce_sim::cmd::verbs::{enable_dcqcn, verilated_pair, Host, DEPTH};
use ferroce_sim::link_faults::LinkFaults;
use ferroce_sim::nic_pair::{captured_roce, lock, SharedPair};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

type Pair = (SharedPair<VerilatedNic>, [Host<VerilatedNic>; 2]);

const LEN: usize = 4096;
const MSGS: usize = 60;
const FLOOR_MBPS: u32 = 2000;

fn pair(seed: u64) -> Pair {
    let mut rng = Rng::new(seed);
    verilated_pair(1, LEN, true, Pmtu::Mtu1024, &mut rng, &RtsAttr::default()).unwrap()
}

/// RoCE frames on the link: (cycle, payload bytes, opcode, sender).
fn frames(h: &Pair) -> Vec<(u64, usize, Opcode, usize)> {
    captured_roce(&h.0)
        .into_iter()
        .map(|f| (f.cycle, f.payload_len, f.opcode, f.from))
        .collect()
}

struct Outcome {
    /// A's data packets: (cycle, payload bytes, first of its message)
    data: Vec<(u64, usize, bool)>,
    /// cycles of the CNPs B sent
    cnps: Vec<u64>,
    cnp_received: u64,
    cnp_disabled: u64,
    clock_khz: u32,
    /// A's QP's rate as its NIC reports it (`CC_QP_RATE`) once the last message completed
    rate_at_end: QpRate,
}

/// Posts the WRITEs in batches of at most `DEPTH` (the message slots), waits for them, checks
/// the data; `rp_qp`: the reaction point on and enabled for A's QP (else on with the QP off).
fn run(seed: u64, rp_qp: bool) -> Outcome {
    let h = pair(seed);
    let [a, b] = &h.1;
    enable_dcqcn(&a.device).unwrap();
    let params = DcqcnParams {
        rpg_min_rate: FLOOR_MBPS,
        ..DcqcnParams::default()
    };
    a.device.set_dcqcn_params(&params).unwrap();
    a.device.set_qp_dcqcn(a.qps[0].qpn(), rp_qp).unwrap();
    lock(&h.0).set_faults(LinkFaults {
        ecn_mark: 1.0,
        seed,
        ..LinkFaults::default()
    });
    let mut rng = Rng::new(seed + 7);
    let all: Vec<Vec<u8>> = (0..MSGS).map(|_| rng.bytes(LEN)).collect();
    let mut done = 0;
    while done < MSGS {
        let n = (MSGS - done).min(DEPTH);
        let batch: Vec<SendWr> = (done..done + n)
            .map(|k| {
                let slot = k % DEPTH;
                a.mr.write(slot * LEN, &all[k]).unwrap();
                SendWr::write(
                    k as u64,
                    Remote {
                        va: b.mr.addr((DEPTH + slot) * LEN),
                        rkey: b.mr.rkey(),
                    },
                    vec![a.mr.sge(slot * LEN, LEN as u32).unwrap()],
                )
                .signaled()
            })
            .collect();
        a.qps[0].post_send(&batch).unwrap();
        let wc =
            a.cq.poll_until(n, n + 1, Duration::from_millis(500))
                .unwrap();
        assert_eq!(wc.len(), n, "{wc:?}");
        for w in &wc {
            assert_eq!(w.status, WcStatus::Success, "{w:?}");
        }
        for k in done..done + n {
            let mut got = vec![0u8; LEN];
            b.mr.read((DEPTH + k % DEPTH) * LEN, &mut got).unwrap();
            assert_eq!(got, all[k], "message {k}");
        }
        done += n;
    }
    let rate_at_end = a.device.qp_rate(a.qps[0].qpn()).unwrap();
    let f = frames(&h);
    let regs_a = a.device.registers();
    Outcome {
        data: f
            .iter()
            .filter(|x| x.3 == 0 && x.1 > 0)
            .map(|x| (x.0, x.1, x.2 == Opcode::RC_RDMA_WRITE_FIRST))
            .collect(),
        cnps: f
            .iter()
            .filter(|x| x.3 == 1 && x.2 == Opcode::CNP)
            .map(|x| x.0)
            .collect(),
        cnp_received: regs_a.read64(regs::CNT_CNP_RECEIVED_LO),
        cnp_disabled: regs_a.read64(regs::CNT_RP_CNP_DISABLED_LO),
        clock_khz: a.device.info().clock_khz,
        rate_at_end,
    }
}

/// Payload rate in Mb/s from packet i0's stamp to packet i1's (the bytes of [i0, i1)).
fn rate(pk: &[(u64, usize, bool)], i0: usize, i1: usize, clock_khz: u32) -> f64 {
    let bytes: usize = pk[i0..i1].iter().map(|p| p.1).sum();
    bytes as f64 * 8.0 * clock_khz as f64 / 1000.0 / (pk[i1].0 - pk[i0].0) as f64
}

#[test]
fn cnps_cut_the_qp_to_the_floor_and_a_disabled_qp_is_not_cut() {
    if !require_tool("verilator") {
        return;
    }
    let on = run(5, true);
    let us = on.clock_khz as u64 / 1000;
    assert!(on.cnps.len() >= 5, "{} CNPs", on.cnps.len());
    assert_eq!(on.cnp_disabled, 0);
    assert_eq!(on.cnp_received, on.cnps.len() as u64);
    // the cuts: first CNP (limiter, no cut), then one halving per 4 us reduce period with a
    // CNP: the floor is reached 4 periods after the second CNP at the latest; allow the
    // feeder's sweep and the message in flight (a few us). Measured between message starts
    // (the shaper charges a message where it starts), to the last message's start; the
    // increase timer never fires while every period brings a CNP (a decrease restarts it).
    let t_floor = on.cnps[1] + 5 * 4 * us + 10 * us;
    let i0 = on
        .data
        .iter()
        .position(|p| p.0 >= t_floor && p.2)
        .expect("a message after the floor");
    let i1 = on.data.iter().rposition(|p| p.2).unwrap();
    assert!(i1 >= i0 + 4 * 30, "{} packets measured", i1 - i0);
    let r = rate(&on.data, i0, i1, on.clock_khz);
    eprintln!(
        "reaction point on: {} CNPs; at the floor {r:.1} Mb/s over {} packets ({} .. {} cycles, first CNP at {})",
        on.cnps.len(),
        i1 - i0,
        on.data[i0].0,
        on.data[i1].0,
        on.cnps[0]
    );
    assert!(
        (r - FLOOR_MBPS as f64).abs() < 0.02 * FLOOR_MBPS as f64,
        "{r:.1} Mb/s at the floor of {FLOOR_MBPS}"
    );

    // the NIC's register says the same: the QP is held at the floor (the last CNP came less
    // than a rate-increase period, 300 us, before)
    assert_eq!(on.rate_at_end, QpRate::Limited { mbps: FLOOR_MBPS });

    let off = run(5, false);
    assert_eq!(off.rate_at_end, QpRate::Unlimited);
    assert!(off.cnps.len() >= 5);
    assert_eq!(off.cnp_disabled, off.cnp_received);
    assert_eq!(off.cnp_received, off.cnps.len() as u64);
    let r_off = rate(&off.data, 0, off.data.len() - 1, off.clock_khz);
    eprintln!(
        "QP's reaction point off: {} CNPs, all counted disabled; {r_off:.1} Mb/s",
        off.cnps.len()
    );
    assert!(
        r_off > 4.0 * FLOOR_MBPS as f64,
        "{r_off:.1} Mb/s with the QP's DCQCN off"
    );
}
