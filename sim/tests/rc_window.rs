//! The requester's send window through two hardware NICs (the Verilator model of the emitted
//! Verilog), driven only through the driver's verbs API: many WQEs of one QP in flight at once,
//! completed in order by cumulative ACKs; a frame lost in the middle of the window recovered by
//! Go-Back-N across message boundaries (the sequence NAK, no timer); a READ between WRITEs
//! (the window drains before it and waits for its responses).
use ferroce_driver::{Pmtu, Remote, RtsAttr, SendWr, WcOpcode, WcStatus, WorkCompletion};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::regs;
use ferroce_sim::cmd::verbs::{verilated_pair, Host};
use ferroce_sim::nic_pair::{captured_roce, lock, CapturedRoce, SharedPair};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

type Pair = (SharedPair<VerilatedNic>, [Host<VerilatedNic>; 2]);

/// The transport attributes of every pair here: a 4.2 ms ACK timeout (4.096 us x 2^10), full
/// retry budgets.
fn rts() -> RtsAttr {
    RtsAttr {
        timeout: 10,
        retry_cnt: 7,
        rnr_retry: 7,
        ..RtsAttr::default()
    }
}

fn pair(slot: usize, pmtu: Pmtu, seed: u64, capture: bool) -> Pair {
    let mut rng = Rng::new(seed);
    verilated_pair(1, slot, capture, pmtu, &mut rng, &rts()).unwrap()
}

fn cycles(pair: &SharedPair<VerilatedNic>) -> u64 {
    lock(pair).cycles()
}

/// Polls until `n` completions arrived (at most 50 ms of NIC time).
fn wait(h: &Host<VerilatedNic>, n: usize) -> Vec<WorkCompletion> {
    let wc =
        h.cq.poll_until(n, n + 1, Duration::from_millis(50))
            .unwrap();
    assert_eq!(wc.len(), n, "completions: {wc:?}");
    wc
}

/// Posts WRITEs of `len` bytes from A's slot k to B's slot `base + k` (wr_id `id0 + k`), all
/// at once; returns the data of each.
fn post_writes(h: &Pair, k0: usize, n: usize, len: usize, id0: u64, rng: &mut Rng) -> Vec<Vec<u8>> {
    let [a, b] = &h.1;
    let mut wrs = Vec::new();
    let mut datas = Vec::new();
    for k in k0..k0 + n {
        let data = rng.bytes(len);
        a.mr.write(k * len, &data).unwrap();
        let remote = Remote {
            va: b.mr.addr((32 + k) * len),
            rkey: b.mr.rkey(),
        };
        wrs.push(
            SendWr::write(
                id0 + (k - k0) as u64,
                remote,
                vec![a.mr.sge(k * len, len as u32).unwrap()],
            )
            .signaled(),
        );
        datas.push(data);
    }
    a.qps[0].post_send(&wrs).unwrap();
    datas
}

fn check_landed(h: &Pair, k0: usize, len: usize, datas: &[Vec<u8>]) {
    let b = &h.1[1];
    for (i, d) in datas.iter().enumerate() {
        let mut got = vec![0u8; len];
        b.mr.read((32 + k0 + i) * len, &mut got).unwrap();
        assert_eq!(&got, d, "message {i}");
    }
}

fn check_in_order(wc: &[WorkCompletion], id0: u64, op: WcOpcode) {
    for (i, w) in wc.iter().enumerate() {
        assert_eq!(
            (w.wr_id, w.status, w.opcode),
            (id0 + i as u64, WcStatus::Success, op),
            "completion {i}: {wc:?}"
        );
    }
}

/// 24 WRITEs posted at once on one QP complete in order, every byte in place, in less than a
/// third of the cycles of 24 round trips of one WRITE (the window keeps 16 in flight; one
/// message per round trip would take them all).
#[test]
fn one_qp_keeps_many_writes_in_flight_and_completes_them_in_order() {
    if !require_tool("verilator") {
        return;
    }
    let h = pair(1024, Pmtu::Mtu1024, 61, false);
    let mut rng = Rng::new(62);
    // one message alone: its round trip
    let t0 = cycles(&h.0);
    let d = post_writes(&h, 0, 1, 1024, 1, &mut rng);
    check_in_order(&wait(&h.1[0], 1), 1, WcOpcode::RdmaWrite);
    let rtt = cycles(&h.0) - t0;
    check_landed(&h, 0, 1024, &d);
    // 24 at once
    let t0 = cycles(&h.0);
    let d = post_writes(&h, 1, 24, 1024, 100, &mut rng);
    let wc = wait(&h.1[0], 24);
    let took = cycles(&h.0) - t0;
    check_in_order(&wc, 100, WcOpcode::RdmaWrite);
    check_landed(&h, 1, 1024, &d);
    assert!(
        took * 3 < 24 * rtt,
        "24 WRITEs took {took} cycles, one alone {rtt}: no window"
    );
    // nothing was sent twice
    let a = &h.1[0];
    assert_eq!(a.device.counter(regs::CNT_RETRANSMIT_LO), 0);
}

/// The third of eight one-packet WRITEs is lost: the responder NAKs (PSN sequence error) when
/// the fourth arrives, the requester retires the two before it (the NAK acknowledges them)
/// and sends again from the lost one across the following messages; all eight complete in
/// order with their data, without an ACK timeout.
#[test]
fn a_frame_lost_mid_window_recovers_across_messages_by_go_back_n() {
    if !require_tool("verilator") {
        return;
    }
    let h = pair(256, Pmtu::Mtu256, 71, true);
    let mut rng = Rng::new(72);
    lock(&h.0).lose_frames(0, [2]);
    let d = post_writes(&h, 0, 8, 200, 10, &mut rng);
    let wc = wait(&h.1[0], 8);
    check_in_order(&wc, 10, WcOpcode::RdmaWrite);
    check_landed(&h, 0, 200, &d);
    let a = &h.1[0];
    assert_eq!(a.device.counter(regs::CNT_RX_NAK_PSN_SEQ_LO), 1);
    assert_eq!(a.device.counter(regs::CNT_ACK_TIMEOUT_LO), 0);
    assert_eq!(a.device.counter(regs::CNT_RETRY_EVENT_LO), 1);
    // A's requests: the lost PSN, then (after the NAK) the same PSN again, followed by the
    // rest of the window in order
    let sent: Vec<u32> = captured_roce(&h.0)
        .into_iter()
        .filter(|f| f.from == 0)
        .map(|f| f.psn)
        .collect();
    let lost = sent[2];
    let again = sent.iter().rposition(|p| *p == lost).unwrap();
    assert!(again > 2, "{sent:?}");
    let resent = &sent[again..];
    assert_eq!(resent.len(), 6, "messages 2..8 again: {sent:?}");
    for (i, p) in resent.iter().enumerate() {
        assert_eq!(*p, (lost + i as u32) & 0xFF_FFFF, "{sent:?}");
    }
    assert_eq!(
        a.device.counter(regs::CNT_RETRANSMIT_LO),
        sent.len() as u64 - 8
    );
    let resp = lock(&h.0).nic(1).resp_counts();
    assert_eq!(resp.executed, 8, "{resp:?}");
}

/// WRITE, WRITE, READ, WRITE, WRITE posted at once: every completion in order with its
/// opcode, the READ's bytes in A's memory, the WRITEs' in B's.
#[test]
fn a_read_between_writes_completes_in_order() {
    if !require_tool("verilator") {
        return;
    }
    let h = pair(1024, Pmtu::Mtu1024, 81, false);
    let [a, b] = &h.1;
    let mut rng = Rng::new(82);
    let len = 1024;
    let mut wrs = Vec::new();
    let mut datas = Vec::new();
    for k in 0..5usize {
        let data = rng.bytes(len);
        let remote = Remote {
            va: b.mr.addr((32 + k) * len),
            rkey: b.mr.rkey(),
        };
        if k == 2 {
            // READ B's slot 32 + k into A's slot k
            b.mr.write((32 + k) * len, &data).unwrap();
            wrs.push(
                SendWr::read(
                    k as u64,
                    remote,
                    vec![a.mr.sge(k * len, len as u32).unwrap()],
                )
                .signaled(),
            );
        } else {
            a.mr.write(k * len, &data).unwrap();
            wrs.push(
                SendWr::write(
                    k as u64,
                    remote,
                    vec![a.mr.sge(k * len, len as u32).unwrap()],
                )
                .signaled(),
            );
        }
        datas.push(data);
    }
    a.qps[0].post_send(&wrs).unwrap();
    let wc = wait(a, 5);
    for (k, w) in wc.iter().enumerate() {
        let op = if k == 2 {
            WcOpcode::RdmaRead
        } else {
            WcOpcode::RdmaWrite
        };
        assert_eq!(
            (w.wr_id, w.status, w.opcode),
            (k as u64, WcStatus::Success, op),
            "{wc:?}"
        );
    }
    for (k, d) in datas.iter().enumerate() {
        let mut got = vec![0u8; len];
        if k == 2 {
            a.mr.read(k * len, &mut got).unwrap();
        } else {
            b.mr.read((32 + k) * len, &mut got).unwrap();
        }
        assert_eq!(&got, d, "message {k}");
    }
}

/// The most PSNs A had sent and not yet acknowledged at once, from the link's frames alone (an
/// independent model of IBTA Vol 1, 9.7.5.1.2 and 9.7.5.2.2, not the requester's state): a
/// request packet of A with PSN p has sent every PSN up to p; an ACK of B with PSN p
/// acknowledges every PSN up to p, a NAK (sequence error or RNR) those before p. PSNs are
/// 24-bit, counted from A's first request; ACKs of B that the link lost (`lost_b`: ordinals of
/// B's frames, as `NicPair::lose_frames` takes them) never reached A and count for nothing.
/// Returns the maximum and the number of A's request packets.
fn max_unacked(frames: &[CapturedRoce], lost_b: &[u64]) -> (u32, usize) {
    use ferroce_proto::syndrome::{AethSyndrome, NakCode};
    let m = 0xFF_FFFF;
    // a stable sort: each side's frames keep their order, so their ordinals stay those of the
    // capture (which starts with the pair, as `lose_frames` counts)
    let mut frames: Vec<_> = frames.iter().collect();
    frames.sort_by_key(|f| f.cycle);
    let (mut first, mut sent, mut acked, mut max, mut requests) = (None, 0u32, 0u32, 0u32, 0);
    for f in frames {
        let lost = f.from == 1 && lost_b.contains(&(f.ordinal as u64));
        let op = f.opcode.0;
        if f.from == 0 {
            // requests: SEND, WRITE (0..=11), READ request (12), atomics (19, 20)
            if op > 12 && op != 19 && op != 20 {
                continue;
            }
            let first = *first.get_or_insert(f.psn);
            sent = sent.max((f.psn.wrapping_sub(first) & m) + 1);
            requests += 1;
            max = max.max(sent - acked);
        } else if let (Some(first), Some(syndrome), false) = (first, f.aeth_syndrome, lost) {
            let off = f.psn.wrapping_sub(first) & m;
            let upto = match AethSyndrome::decode(syndrome) {
                AethSyndrome::Ack { .. } => off + 1,
                AethSyndrome::RnrNak { .. } | AethSyndrome::Nak(NakCode::PsnSequenceError) => off,
                _ => continue,
            };
            // a PSN beyond what was sent is stale (from before the first request)
            if upto <= sent {
                acked = acked.max(upto);
            }
        }
    }
    (max, requests)
}

/// Through the wire: 24 one-packet WRITEs posted at once on one QP never have more than the
/// window's 16 PSNs unacknowledged on the link (each WQE is one PSN here), yet keep more than
/// one in flight; the same with A's 5th request and B's 3rd ACK lost (Go-Back-N: every message
/// still lands and completes in order).
#[test]
fn the_wire_never_carries_more_unacknowledged_psns_than_the_window() {
    if !require_tool("verilator") {
        return;
    }
    for (seed, lose_a, lose_b) in [(91u64, vec![], vec![]), (93, vec![4u64], vec![2u64])] {
        let h = pair(1024, Pmtu::Mtu1024, seed, true);
        let mut rng = Rng::new(seed + 1);
        lock(&h.0).lose_frames(0, lose_a.clone());
        lock(&h.0).lose_frames(1, lose_b.clone());
        let d = post_writes(&h, 0, 24, 1024, 200, &mut rng);
        let wc = wait(&h.1[0], 24);
        check_in_order(&wc, 200, WcOpcode::RdmaWrite);
        check_landed(&h, 0, 1024, &d);
        let frames = captured_roce(&h.0);
        let (max, requests) = max_unacked(&frames, &lose_b);
        eprintln!(
            "seed {seed}, lost A {lose_a:?} B {lose_b:?}: {requests} request packets, at most {max} PSNs unacknowledged"
        );
        assert!(requests >= 24, "{requests}");
        assert!(
            max as usize <= ferroce_hdl::req::WINDOW,
            "{max} PSNs unacknowledged on the wire"
        );
        assert!(max > 1, "no window: {max}");
        if !lose_a.is_empty() {
            assert!(requests > 24, "the lost request was sent again");
            assert!(h.1[0].device.counter(regs::CNT_RETRANSMIT_LO) > 0);
        }
    }
}

/// A pair whose host A's QP has a send window of `window` PSNs, set at its creation (the
/// driver's `QpCapabilities::max_unacked_psns`, `QP_RING_CFG` 31:28); host B's QP keeps the
/// default.
fn pair_with_window(window: u32, seed: u64) -> Pair {
    use ferroce_driver::{QpCapabilities, QpInitAttr};
    use ferroce_sim::cmd::verbs::{connect_with, open_pair};
    use ferroce_sim::host::ShellConfig;
    let nic = || VerilatedNic::new().unwrap();
    let (shared, mut hosts) =
        open_pair([nic(), nic()], ShellConfig::ideal(), 1, 4096, true).unwrap();
    let a = &mut hosts[0];
    let qp =
        a.pd.create_qp(&QpInitAttr {
            send_cq: &a.cq,
            recv_cq: &a.cq,
            cap: QpCapabilities {
                max_send_wr: 32,
                max_send_sge: 4,
                max_recv_wr: 32,
                max_recv_sge: 4,
                max_unacked_psns: window,
                ..QpCapabilities::default()
            },
            sq_sig_all: false,
        })
        .unwrap();
    assert_eq!(qp.caps().max_unacked_psns, window);
    a.qps[0] = qp;
    connect_with(&hosts, Pmtu::Mtu1024, &mut Rng::new(seed), &rts()).unwrap();
    (shared, hosts)
}

/// A PSN window set at QP creation bounds what is on the wire: twelve 3-packet WRITEs (3000
/// bytes at PMTU 1024) posted at once. With 8 PSNs a second message goes while the first is
/// unacknowledged, but never a third (9 PSNs); with 2 PSNs, less than one message, each
/// message goes alone (exactly its 3 PSNs outstanding, none of the next). All complete in
/// order with their data. The bound is read off the link by `max_unacked`, not from the NIC.
#[test]
fn a_psn_window_set_at_creation_bounds_the_unacknowledged_psns() {
    if !require_tool("verilator") {
        return;
    }
    for (window, seed) in [(8u32, 301u64), (2, 303)] {
        let h = pair_with_window(window, seed);
        let mut rng = Rng::new(seed + 1);
        let d = post_writes(&h, 0, 12, 3000, 500, &mut rng);
        let wc = wait(&h.1[0], 12);
        check_in_order(&wc, 500, WcOpcode::RdmaWrite);
        check_landed(&h, 0, 3000, &d);
        let frames = captured_roce(&h.0);
        let (max, requests) = max_unacked(&frames, &[]);
        eprintln!("window {window}: {requests} request packets, at most {max} PSNs unacknowledged");
        assert_eq!(requests, 36, "nothing lost, nothing sent twice");
        if window >= 3 {
            assert!(max <= window, "{max} PSNs unacknowledged, window {window}");
            assert!(max > 3, "no second message in flight: {max}");
        } else {
            assert_eq!(max, 3, "a message longer than the window goes alone");
        }
    }
}

/// Fair service between QPs at packet granularity (`CFG_SQ_QUANTUM`): A's QP 0 posts a 64 KiB
/// WRITE (64 packets at PMTU 1024) and QP 1 a 64-byte WRITE right after it. With the quantum
/// at 8 (packets per turn while other QPs wait) QP 1's packet leaves after at most 8 of
/// QP 0's, and QP 0's message then goes on from where it was set aside; with the quantum at 0
/// (a whole message per turn, the reset value) QP 1 waits for all 64. Both messages land whole either way.
/// Read off the link's frames.
#[test]
fn a_long_message_does_not_hold_up_another_qp_for_its_whole_length() {
    if !require_tool("verilator") {
        return;
    }
    const BIG: usize = 64 * 1024;
    for (quantum, seed) in [(8u8, 401u64), (0, 403)] {
        let mut rng = Rng::new(seed);
        let h = verilated_pair(2, BIG, true, Pmtu::Mtu1024, &mut rng, &rts()).unwrap();
        let [a, b] = &h.1;
        a.device.set_send_quantum(quantum);
        let big = rng.bytes(BIG);
        let small = rng.bytes(64);
        a.mr.write(0, &big).unwrap();
        a.mr.write(BIG, &small).unwrap();
        let to = |off: usize| Remote {
            va: b.mr.addr(off),
            rkey: b.mr.rkey(),
        };
        let big_wr =
            SendWr::write(1, to(2 * BIG), vec![a.mr.sge(0, BIG as u32).unwrap()]).signaled();
        let small_wr = SendWr::write(2, to(3 * BIG), vec![a.mr.sge(BIG, 64).unwrap()]).signaled();
        a.qps[0].post_send(&[big_wr]).unwrap();
        a.qps[1].post_send(&[small_wr]).unwrap();
        let mut wc = wait(a, 2);
        wc.sort_by_key(|w| w.wr_id);
        for (w, id) in wc.iter().zip([1u64, 2]) {
            assert_eq!((w.wr_id, w.status), (id, WcStatus::Success), "{wc:?}");
        }
        let mut got = vec![0u8; BIG];
        b.mr.read(2 * BIG, &mut got).unwrap();
        assert!(got == big, "the 64 KiB message landed whole");
        let mut got = vec![0u8; 64];
        b.mr.read(3 * BIG, &mut got).unwrap();
        assert_eq!(got, small);
        // A's request packets in wire order, by the QP they go to
        let mut frames = captured_roce(&h.0);
        frames.sort_by_key(|f| f.cycle);
        let (q0, q1) = (b.qps[0].qpn(), b.qps[1].qpn());
        let reqs: Vec<u32> = frames
            .iter()
            .filter(|f| f.from == 0 && f.opcode.0 <= 11)
            .map(|f| f.dest_qp)
            .collect();
        assert_eq!(reqs.iter().filter(|&&d| d == q0).count(), 64);
        let before = reqs.iter().position(|&d| d == q1).expect("QP 1's packet");
        eprintln!("quantum {quantum}: QP 1's packet after {before} of QP 0's");
        if quantum == 8 {
            assert!(before <= 8, "QP 1 waited for {before} packets of QP 0");
        } else {
            assert_eq!(before, 64, "a whole message per turn");
        }
    }
}
