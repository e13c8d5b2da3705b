//! RC recovery through two hardware NICs (the Verilator model of the emitted Verilog), driven
//! only through the driver's verbs API, with chosen frames lost on the link: the local ACK
//! timer (a lost last packet, a lost ACK), retry exhaustion on a peer that stopped answering
//! (only that QP fails, its SQ is flushed, the other QP keeps running, and the QP is reset and
//! used again), and RNR retries with their timer and budget.
//!
//! Times are asserted in cycles against the QP's configured timeout: the NIC counts 1.024 us
//! ticks of a 250 MHz clock (256 cycles), the ACK timeout is 4 ticks << timeout, and the
//! scanner that finds an expired timer needs at most one pass over the QPs (256 cycles).
use ferroce_driver::{
    AccessFlags, Pmtu, QueuePair, RecvWr, Remote, RtrAttr, RtsAttr, SendWr, WcOpcode, WcStatus,
    WorkCompletion,
};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::config::Gid;
use ferroce_proto::host::qp::{AddressVector, QpState};
use ferroce_proto::host::regs;
use ferroce_sim::cmd::verbs::{open_pair, verilated_pair, Host, IPS, MACS};
use ferroce_sim::host::ShellConfig;
use ferroce_sim::nic_pair::{captured_roce, lock, CapturedRoce, SharedPair};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

const TICK: u64 = 256;

/// Cycles of the local ACK timeout `t` (4 ticks << t).
fn timeout_cycles(t: u8) -> u64 {
    (4 * TICK) << t
}

fn counter(h: &Host<VerilatedNic>, lo: u32) -> u64 {
    h.device.counter(lo)
}

fn cycles(pair: &SharedPair<VerilatedNic>) -> u64 {
    lock(pair).cycles()
}

fn rts(timeout: u8, retry_cnt: u8, rnr_retry: u8) -> RtsAttr {
    RtsAttr {
        timeout,
        retry_cnt,
        rnr_retry,
        ..RtsAttr::default()
    }
}

/// Bring QP `i` of both hosts from RESET to RTS (PSNs `psn[side]`), the responder's RNR timer
/// field `min_rnr`.
fn connect_one(
    hosts: &[Host<VerilatedNic>; 2],
    i: usize,
    psn: [u32; 2],
    rts: &RtsAttr,
    min_rnr: u8,
) {
    for side in 0..2 {
        let peer = 1 - side;
        let qp: &QueuePair = &hosts[side].qps[i];
        qp.to_init(AccessFlags::REMOTE_WRITE).unwrap();
        qp.to_rtr(&RtrAttr {
            av: AddressVector {
                dmac: MACS[peer],
                dgid: Gid::from_ipv4(IPS[peer].into()),
                ..AddressVector::default()
            },
            path_mtu: Pmtu::Mtu256,
            dest_qpn: hosts[peer].qps[i].qpn(),
            rq_psn: psn[peer],
            max_dest_rd_atomic: 0,
            min_rnr_timer: min_rnr,
        })
        .unwrap();
        qp.to_rts(&RtsAttr {
            sq_psn: psn[side],
            ..*rts
        })
        .unwrap();
    }
}

/// The RoCE frames `from` sent since the last call, in order (their capture cycle, PSN and
/// AETH syndrome are what the tests look at).
fn sent_by(pair: &SharedPair<VerilatedNic>, from: usize) -> Vec<CapturedRoce> {
    captured_roce(pair)
        .into_iter()
        .filter(|f| f.from == from)
        .collect()
}

/// The tail of a window lost, repaired by a tail-loss probe: the ACK timer first runs a quarter
/// of the local ACK timeout, then the highest PSN sent goes again, alone with AckReq, and the
/// answer to it finishes the window, with no timeout and no retry spent. A message whose last
/// packet is lost: the probe is that packet, now in sequence. A message whose ACK is lost: the
/// probe is a duplicate, re-ACKed and not executed again. A message whose NAK is lost (a packet
/// in the middle lost, the responder dropping the rest): the probe is out of sequence but not
/// after the responder's previous PSN out of sequence, so the responder NAKs again and
/// Go-Back-N sends the rest.
#[test]
fn lost_last_packet_ack_and_nak_recover_by_a_tail_loss_probe() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(41);
    let t = 3;
    let (pair, hosts) =
        verilated_pair(1, 8192, true, Pmtu::Mtu256, &mut rng, &rts(t, 7, 7)).unwrap();
    let [a, b] = &hosts;
    let remote = |off: usize| Remote {
        va: b.mr.addr(off),
        rkey: b.mr.rkey(),
    };
    let pto = timeout_cycles(t) / 4;
    // one signaled WRITE of `len` random bytes from A's offset `src` to B's `dst`, completed
    // within 2 ms of simulated time and read back
    let mut write = |id: u64, src: usize, dst: usize, len: usize| {
        let data = rng.bytes(len);
        a.mr.write(src, &data).unwrap();
        let sge = a.mr.sge(src, len as u32).unwrap();
        a.qps[0]
            .post_send(&[SendWr::write(id, remote(dst), vec![sge]).signaled()])
            .unwrap();
        let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
        assert_eq!(wc.len(), 1, "no completion of {id}");
        assert_eq!((wc[0].wr_id, wc[0].status), (id, WcStatus::Success));
        let mut got = vec![0u8; len];
        b.mr.read(dst, &mut got).unwrap();
        assert_eq!(got, data, "message {id}");
    };
    // 2000 bytes at PMTU 256: 8 packets, the link loses the 8th (the LAST)
    lock(&pair).lose_frames(0, [7]);
    write(1, 0, 4096, 2000);
    assert_eq!(counter(a, regs::CNT_TLP_PROBE_LO), 1);
    assert_eq!(counter(a, regs::CNT_ACK_TIMEOUT_LO), 0);
    assert_eq!(counter(a, regs::CNT_RETRANSMIT_LO), 1);
    assert_eq!(counter(a, regs::CNT_RETRY_EVENT_LO), 0);
    assert_eq!(counter(a, regs::CNT_RX_NAK_PSN_SEQ_LO), 0);
    // the probe: the last packet alone, a quarter timeout after it first left
    let sent = sent_by(&pair, 0);
    assert_eq!(sent.len(), 9, "{sent:?}");
    assert_eq!(sent[8].psn, sent[7].psn, "the probe is the last PSN sent");
    let gap = sent[8].cycle - sent[7].cycle;
    assert!(
        gap >= pto - 2 * TICK && gap <= pto + 2 * TICK + 2000,
        "probe {gap} cycles after the last packet; probe timeout {pto}"
    );
    {
        let mut p = lock(&pair);
        let resp = p.nic(1).resp_counts();
        assert_eq!((resp.executed, resp.duplicate), (8, 0), "{resp:?}");
    }

    // the ACK of the next message is lost: the probe is a duplicate, re-ACKed, not executed
    let lost_ack = lock(&pair).frames_sent()[1];
    lock(&pair).lose_frames(1, [lost_ack]);
    write(2, 2048, 6144, 100);
    assert_eq!(counter(a, regs::CNT_TLP_PROBE_LO), 2);
    assert_eq!(counter(a, regs::CNT_ACK_TIMEOUT_LO), 0);
    assert_eq!(counter(a, regs::CNT_RETRANSMIT_LO), 2);
    {
        let mut p = lock(&pair);
        assert_eq!(p.frames_lost(), [1, 1]);
        let resp = p.nic(1).resp_counts();
        assert_eq!((resp.executed, resp.duplicate), (9, 1), "{resp:?}");
    }

    // 2000 bytes again: its 3rd packet and the NAK for it are lost, the responder drops
    // packets 4 to 8; the probe (packet 8 again) gets the NAK again, Go-Back-N sends 3 to 8
    let (s0, s1) = {
        let p = lock(&pair);
        (p.frames_sent()[0], p.frames_sent()[1])
    };
    lock(&pair).lose_frames(0, [s0 + 2]);
    lock(&pair).lose_frames(1, [s1]);
    // (the capture taken so far is dropped: what follows is this message's)
    sent_by(&pair, 0);
    write(3, 2048, 0, 2000);
    assert_eq!(counter(a, regs::CNT_TLP_PROBE_LO), 3);
    assert_eq!(counter(a, regs::CNT_ACK_TIMEOUT_LO), 0);
    assert_eq!(counter(b, regs::CNT_TX_NAK_PSN_SEQ_LO), 2);
    assert_eq!(counter(a, regs::CNT_RX_NAK_PSN_SEQ_LO), 1);
    // the probe and packets 3 to 8
    assert_eq!(counter(a, regs::CNT_RETRANSMIT_LO), 2 + 1 + 6);
    let sent = sent_by(&pair, 0);
    assert_eq!(sent.len(), 8 + 1 + 6, "{sent:?}");
    assert_eq!(sent[8].psn, sent[7].psn, "the probe is the last PSN sent");
    assert_eq!(sent[9].psn, sent[2].psn, "Go-Back-N from the lost packet");
    assert_eq!(lock(&pair).frames_lost(), [2, 2]);
    assert!(a.cq.poll(4).unwrap().is_empty());
}

/// Bytes of each of the two WRITEs of [`two_writes_with_losses`]: 64 packets at PMTU 256, four
/// turns of the send scheduler's quantum (16 packets after reset) while the other QP has work.
const WRITE_LEN: usize = 16_384;

/// One WRITE of [`WRITE_LEN`] bytes on each of two QPs at once (they take turns), a long ACK
/// timeout, the link losing side 0's frames `lose`: the frames side 0 sent (with the capture
/// on from the start), the completions that came within `wait` of simulated time, QP 0's
/// destination QPN and the data.
fn two_writes_with_losses(
    lose: &[u64],
    wait: Duration,
) -> (
    SharedPair<VerilatedNic>,
    [Host<VerilatedNic>; 2],
    Vec<CapturedRoce>,
    Vec<WorkCompletion>,
    u32,
    Vec<u8>,
) {
    let mut rng = Rng::new(45);
    // timeout 10: 4,194,304 cycles (16.8 ms), far beyond `wait`
    let (pair, hosts) = verilated_pair(
        2,
        2 * WRITE_LEN,
        true,
        Pmtu::Mtu256,
        &mut rng,
        &rts(10, 7, 7),
    )
    .unwrap();
    lock(&pair).lose_frames(0, lose.iter().copied());
    let data = rng.bytes(2 * WRITE_LEN);
    let a = &hosts[0];
    a.mr.write(0, &data).unwrap();
    for i in 0..2 {
        let remote = Remote {
            va: hosts[1].mr.addr((2 + i) * WRITE_LEN),
            rkey: hosts[1].mr.rkey(),
        };
        let sge = a.mr.sge(i * WRITE_LEN, WRITE_LEN as u32).unwrap();
        a.qps[i]
            .post_send(&[SendWr::write(i as u64, remote, vec![sge]).signaled()])
            .unwrap();
    }
    let wc = a.cq.poll_until(2, 4, wait).unwrap();
    let sent = sent_by(&pair, 0);
    let qp0 = hosts[1].qps[0].qpn();
    (pair, hosts, sent, wc, qp0, data)
}

/// Go-Back-N when the packet sent again is lost again, in the middle of a rewind: QP 0 loses
/// the last packet of its first turn; the NAK comes after its second turn, and the rewind's
/// turn ends one packet short of where the first try had got. The rewind's first packet is
/// lost as well: the responder, which NAKs a missing PSN once and then drops what follows,
/// NAKs it again when the packet right after it arrives again; the requester, its rewind
/// still short of the highest PSN it had sent, takes that NAK for a PSN it has sent again as
/// a new loss and goes back once more. All of it without the ACK timer (a long one, never
/// reached).
#[test]
fn a_packet_lost_again_mid_rewind_is_naked_again_and_sent_without_the_timer() {
    if !require_tool("verilator") {
        return;
    }
    let wait = Duration::from_millis(1);
    let ordinal = |sent: &[CapturedRoce], qp: u32, psn: u32, after: usize| {
        sent.iter()
            .find(|f| f.dest_qp == qp && f.psn == psn && f.ordinal > after)
            .map(|f| f.ordinal)
    };
    // a lossless run: where QP 0's 16th packet (the last of its first turn) goes
    let (_, _, sent, wc, qp0, _) = two_writes_with_losses(&[], wait);
    assert_eq!(wc.len(), 2, "not every completion without loss");
    let first_psn = sent.iter().find(|f| f.dest_qp == qp0).unwrap().psn;
    let lost_psn = first_psn + 15;
    let lost = ordinal(&sent, qp0, lost_psn, 0).unwrap();
    // it lost once: where its second try goes
    let (_, _, sent, wc, _, _) = two_writes_with_losses(&[lost as u64], wait);
    assert_eq!(wc.len(), 2, "not every completion after one loss");
    let again = ordinal(&sent, qp0, lost_psn, lost).expect("sent again");
    // lost twice
    let (pair, hosts, sent, wc, _, data) =
        two_writes_with_losses(&[lost as u64, again as u64], wait);
    let [a, b] = &hosts;
    assert_eq!(
        wc.len(),
        2,
        "not every completion within {wait:?} (the ACK timer is 16.8 ms)"
    );
    for w in &wc {
        assert_eq!(w.status, WcStatus::Success, "{w:?}");
    }
    let mut got = vec![0u8; data.len()];
    b.mr.read(2 * WRITE_LEN, &mut got).unwrap();
    assert_eq!(got, data);
    assert_eq!(counter(a, regs::CNT_ACK_TIMEOUT_LO), 0);
    assert_eq!(counter(b, regs::CNT_TX_NAK_PSN_SEQ_LO), 2);
    assert_eq!(counter(a, regs::CNT_RX_NAK_PSN_SEQ_LO), 2);
    assert_eq!(lock(&pair).frames_lost(), [2, 0]);
    // three tries of the lost PSN; when the third began, the rewind had not yet sent again
    // the highest PSN of QP 0 sent before it (the second NAK came in the middle of it)
    let tries: Vec<usize> = sent
        .iter()
        .filter(|f| f.dest_qp == qp0 && f.psn == lost_psn)
        .map(|f| f.ordinal)
        .collect();
    assert_eq!(tries.len(), 3, "{sent:?}");
    let top = sent
        .iter()
        .filter(|f| f.dest_qp == qp0 && f.ordinal < tries[1])
        .map(|f| f.psn)
        .max()
        .unwrap();
    assert!(
        top > lost_psn,
        "nothing past the lost packet before the rewind"
    );
    assert!(
        ordinal(&sent, qp0, top, tries[1]).is_none_or(|o| o > tries[2]),
        "the rewind had sent PSN {top} again before the third try: {sent:?}"
    );
}

/// A peer QP that stops answering (moved to ERR: it drops every packet silently): the
/// requester retries `retry_cnt` times, each try a tail-loss probe a quarter timeout after the
/// window went out and the local ACK timeout after that, then completes the WQE with
/// RETRY_EXC_ERR, moves only that QP to ERR and flushes the rest of its SQ; the other QP
/// keeps working throughout. Both QPs of the failed pair are then reset and connected again
/// and carry a message.
#[test]
fn retry_exhaustion_fails_only_that_qp_then_reset_and_reuse() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(43);
    let (t, retries) = (3u8, 2u8);
    let (pair, hosts) =
        verilated_pair(2, 4096, false, Pmtu::Mtu256, &mut rng, &rts(t, retries, 7)).unwrap();
    let [a, b] = &hosts;
    let data = rng.bytes(600);
    a.mr.write(0, &data).unwrap();
    b.qps[1].to_error().unwrap();
    let remote = |off: usize| Remote {
        va: b.mr.addr(off),
        rkey: b.mr.rkey(),
    };
    let start = cycles(&pair);
    a.qps[1]
        .post_send(&[
            SendWr::write(10, remote(8192), vec![a.mr.sge(0, 600).unwrap()]).signaled(),
            SendWr::write(11, remote(9000), vec![a.mr.sge(0, 100).unwrap()]).signaled(),
        ])
        .unwrap();
    // QP 0 works meanwhile: one message per round, each completes
    let mut failed_at = None;
    let mut flushed = false;
    let mut ok0 = 0;
    for round in 0..40u64 {
        if round < 8 {
            a.qps[0]
                .post_send(&[SendWr::write(
                    100 + round,
                    remote(round as usize * 512),
                    vec![a.mr.sge(0, 512).unwrap()],
                )
                .signaled()])
                .unwrap();
        }
        for wc in a.cq.poll_until(1, 8, Duration::from_micros(20)).unwrap() {
            match wc.wr_id {
                10 => {
                    assert_eq!(wc.status, WcStatus::RetryExcErr, "{wc:?}");
                    assert_eq!(wc.qp_num, a.qps[1].qpn());
                    failed_at = Some(cycles(&pair) - start);
                }
                11 => {
                    assert!(failed_at.is_some(), "flush before the error completion");
                    assert_eq!(wc.status, WcStatus::WrFlushErr, "{wc:?}");
                    flushed = true;
                }
                id => {
                    assert!((100..108).contains(&id), "{wc:?}");
                    assert_eq!(
                        (wc.status, wc.opcode),
                        (WcStatus::Success, WcOpcode::RdmaWrite)
                    );
                    ok0 += 1;
                }
            }
        }
        if flushed && ok0 == 8 {
            break;
        }
    }
    assert!(
        flushed && ok0 == 8,
        "flushed {flushed}, QP 0 completed {ok0}"
    );
    // retry_cnt + 1 timeouts: the first try, then `retries` retries; each a probe timeout
    // (a quarter of the timeout) and a timeout
    let budget = (retries as u64 + 1) * (timeout_cycles(t) + timeout_cycles(t) / 4);
    let failed_at = failed_at.unwrap();
    assert!(
        failed_at >= budget - 3 * TICK && failed_at <= budget + 20_000,
        "failed after {failed_at} cycles; budget {budget}"
    );
    assert_eq!(counter(a, regs::CNT_ACK_TIMEOUT_LO), retries as u64 + 1);
    assert_eq!(counter(a, regs::CNT_TLP_PROBE_LO), retries as u64 + 1);
    assert_eq!(counter(a, regs::CNT_RETRY_EXCEEDED_LO), 1);
    // both WQEs are in the send window: every retry sends WQE 10's three packets and WQE 11's,
    // and every try's probe WQE 11's packet
    assert_eq!(
        counter(a, regs::CNT_RETRANSMIT_LO),
        4 * retries as u64 + retries as u64 + 1
    );
    assert_eq!(a.qps[1].query().unwrap().attr.state, QpState::Error);
    assert_eq!(a.qps[0].query().unwrap().attr.state, QpState::Rts);
    for i in 0..8 {
        let mut got = vec![0u8; 512];
        b.mr.read(i * 512, &mut got).unwrap();
        assert_eq!(got, data[..512], "QP 0 message {i}");
    }
    let mut untouched = vec![0u8; 1024];
    b.mr.read(8192, &mut untouched).unwrap();
    assert!(
        untouched.iter().all(|&x| x == 0),
        "the failed QP wrote something"
    );

    // reset both ends of the failed pair, connect them again, send
    a.qps[1].to_reset().unwrap();
    b.qps[1].to_reset().unwrap();
    connect_one(&hosts, 1, [0xFF_FFF0, 0x12], &rts(t, retries, 7), 12);
    a.qps[1]
        .post_send(&[SendWr::write(12, remote(8192), vec![a.mr.sge(0, 600).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!(wc.len(), 1, "no completion after reset");
    assert_eq!((wc[0].wr_id, wc[0].status), (12, WcStatus::Success));
    let mut got = vec![0u8; 600];
    b.mr.read(8192, &mut got).unwrap();
    assert_eq!(got, data);
}

/// `(producer, consumer)` of a QP's receive queue as QUERY reports them.
fn rq_indices(qp: &QueuePair) -> (u16, u16) {
    let q = qp.query().unwrap();
    (q.rq_producer, q.rq_consumer)
}

/// The receive completions in `wcs`, as `(wr_id, status)`, in CQ order.
fn recv_wcs(wcs: &[WorkCompletion], qpn: u32) -> Vec<(u64, WcStatus)> {
    wcs.iter()
        .filter(|w| w.opcode.is_recv() && w.qp_num == qpn)
        .map(|w| (w.wr_id, w.status))
        .collect()
}

/// A QP the host moves to ERR flushes its posted receives with WR_FLUSH_ERR, in posting order
/// and with their wr_ids; a receive posted while it stays in ERR completes the same way at
/// once; QUERY reports the RQ indices throughout; the other QP keeps working; after RESET the
/// QP carries SENDs again.
#[test]
fn host_error_flushes_posted_receives_then_reset_and_reuse() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(51);
    let (_pair, hosts) =
        verilated_pair(2, 4096, false, Pmtu::Mtu1024, &mut rng, &rts(10, 7, 7)).unwrap();
    let [a, b] = &hosts;
    let data = rng.bytes(1500);
    a.mr.write(0, &data).unwrap();
    let recv = |id: u64, k: usize| RecvWr::new(id, vec![b.mr.sge(16384 + k * 2048, 2048).unwrap()]);
    b.qps[1]
        .post_recv(&(0..4).map(|k| recv(700 + k as u64, k)).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(rq_indices(&b.qps[1]), (4, 0));
    // one SEND takes the first receive
    a.qps[1]
        .post_send(&[SendWr::send(1, vec![a.mr.sge(0, 300).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!((wc.len(), wc[0].status), (1, WcStatus::Success), "{wc:?}");
    let wc = b.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!(
        recv_wcs(&wc, b.qps[1].qpn()),
        vec![(700, WcStatus::Success)]
    );
    assert_eq!(rq_indices(&b.qps[1]), (4, 1));

    b.qps[1].to_error().unwrap();
    let wc = b.cq.poll_until(3, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(
        recv_wcs(&wc, b.qps[1].qpn()),
        (701..704)
            .map(|id| (id, WcStatus::WrFlushErr))
            .collect::<Vec<_>>(),
        "{wc:?}"
    );
    assert_eq!(wc.len(), 3, "only the flushes: {wc:?}");
    assert!(wc.iter().all(|w| w.byte_len == 0), "{wc:?}");
    assert_eq!(rq_indices(&b.qps[1]), (4, 4));
    // posted in ERR: flushed at once
    b.qps[1].post_recv(&[recv(800, 0)]).unwrap();
    let wc = b.cq.poll_until(1, 4, Duration::from_micros(100)).unwrap();
    assert_eq!(
        recv_wcs(&wc, b.qps[1].qpn()),
        vec![(800, WcStatus::WrFlushErr)]
    );
    assert_eq!(rq_indices(&b.qps[1]), (5, 5));
    let mut untouched = vec![0u8; 2048 * 3];
    b.mr.read(16384 + 2048, &mut untouched).unwrap();
    assert!(
        untouched.iter().all(|&x| x == 0),
        "a flushed receive was written"
    );

    // QP 0 is untouched by it
    b.qps[0].post_recv(&[recv(900, 6)]).unwrap();
    a.qps[0]
        .post_send(&[SendWr::send(2, vec![a.mr.sge(0, 1500).unwrap()]).signaled()])
        .unwrap();
    let wc = b.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!(
        recv_wcs(&wc, b.qps[0].qpn()),
        vec![(900, WcStatus::Success)]
    );
    assert_eq!(
        a.cq.poll_until(1, 4, Duration::from_millis(1))
            .unwrap()
            .len(),
        1
    );

    // reset both ends, connect again, receive again
    a.qps[1].to_reset().unwrap();
    b.qps[1].to_reset().unwrap();
    connect_one(&hosts, 1, [0x40, 0x80], &rts(10, 7, 7), 1);
    assert_eq!(rq_indices(&b.qps[1]), (0, 0));
    b.qps[1].post_recv(&[recv(1000, 7)]).unwrap();
    a.qps[1]
        .post_send(&[SendWr::send(3, vec![a.mr.sge(0, 1500).unwrap()]).signaled()])
        .unwrap();
    let wc = b.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!(
        recv_wcs(&wc, b.qps[1].qpn()),
        vec![(1000, WcStatus::Success)]
    );
    assert_eq!(wc[0].byte_len, 1500);
    let mut got = vec![0u8; 1500];
    b.mr.read(16384 + 7 * 2048, &mut got).unwrap();
    assert_eq!(got, data);
    assert_eq!(rq_indices(&b.qps[1]), (1, 1));
}

/// A QP that an engine moves to ERR (B's responder refusing a WRITE with a bad rkey) flushes
/// both its queues: its posted receives, and a SEND of its own that was waiting in RNR retries
/// (infinite) for a receive at the peer completes with WR_FLUSH_ERR instead of retrying on.
/// The peer's requester moves its end to ERR too (REM_ACCESS_ERR); the other QP is untouched.
#[test]
fn engine_error_flushes_both_queues() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(52);
    let (_pair, hosts) =
        verilated_pair(2, 4096, false, Pmtu::Mtu1024, &mut rng, &rts(10, 7, 7)).unwrap();
    let [a, b] = &hosts;
    a.mr.write(0, &rng.bytes(512)).unwrap();
    b.mr.write(0, &rng.bytes(512)).unwrap();
    b.qps[0]
        .post_recv(
            &(0..3)
                .map(|k| RecvWr::new(700 + k, vec![b.mr.sge(16384, 512).unwrap()]))
                .collect::<Vec<_>>(),
        )
        .unwrap();
    // A has no receive posted: B's SEND gets RNR NAKs and waits
    b.qps[0]
        .post_send(&[SendWr::send(50, vec![b.mr.sge(0, 512).unwrap()]).signaled()])
        .unwrap();
    let wc = b.cq.poll_until(1, 4, Duration::from_micros(200)).unwrap();
    assert!(wc.is_empty(), "{wc:?}");
    assert!(a.device.counter(regs::CNT_TX_NAK_RNR_LO) > 0, "no RNR NAK");
    // a WRITE with a key B does not have
    let bad = Remote {
        va: b.mr.addr(8192),
        rkey: b.mr.rkey() ^ 1,
    };
    a.qps[0]
        .post_send(&[SendWr::write(60, bad, vec![a.mr.sge(0, 256).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!(
        (wc.len(), wc[0].wr_id, wc[0].status),
        (1, 60, WcStatus::RemAccessErr)
    );
    let mut wc = b.cq.poll_until(4, 8, Duration::from_millis(1)).unwrap();
    wc.sort_by_key(|w| w.wr_id);
    let got: Vec<_> = wc.iter().map(|w| (w.wr_id, w.status, w.opcode)).collect();
    assert_eq!(
        got,
        vec![
            (50, WcStatus::WrFlushErr, WcOpcode::Send),
            (700, WcStatus::WrFlushErr, WcOpcode::Recv),
            (701, WcStatus::WrFlushErr, WcOpcode::Recv),
            (702, WcStatus::WrFlushErr, WcOpcode::Recv),
        ]
    );
    let q = b.qps[0].query().unwrap();
    assert_eq!(q.attr.state, QpState::Error);
    assert_eq!(q.err_status, WcStatus::RemAccessErr as u8);
    assert_eq!((q.rq_producer, q.rq_consumer), (3, 3));
    assert_eq!(a.qps[0].query().unwrap().attr.state, QpState::Error);
    assert_eq!(a.qps[1].query().unwrap().attr.state, QpState::Rts);
    assert_eq!(b.qps[1].query().unwrap().attr.state, QpState::Rts);
    let mut untouched = vec![0u8; 512];
    b.mr.read(8192, &mut untouched).unwrap();
    assert!(untouched.iter().all(|&x| x == 0), "the refused WRITE wrote");
    b.mr.read(16384, &mut untouched).unwrap();
    assert!(
        untouched.iter().all(|&x| x == 0),
        "a flushed receive was written"
    );
}

/// RNR: a SEND with no receive posted gets RNR NAKs; the requester waits the NAK's timer
/// between tries and gives up after `rnr_retry` retries with RNR_RETRY_EXC_ERR (that QP only);
/// with retries left, a receive posted during the wait lets the SEND through.
#[test]
fn rnr_retries_wait_the_timer_and_run_out() {
    if !require_tool("verilator") {
        return;
    }
    let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
    let (pair, hosts) = open_pair(hw, ShellConfig::ideal(), 2, 4096, true).unwrap();
    // min_rnr_timer 3 = 0.03 ms: 3 units of 10.24 us = 30 ticks
    let rnr_cycles = 30 * TICK;
    connect_one(&hosts, 0, [100, 200], &rts(10, 7, 2), 3);
    connect_one(&hosts, 1, [0xFF_FFFE, 300], &rts(10, 7, 7), 3);
    let [a, b] = &hosts;
    let data = Rng::new(47).bytes(700);
    a.mr.write(0, &data).unwrap();
    let start = cycles(&pair);
    a.qps[0]
        .post_send(&[SendWr::send(1, vec![a.mr.sge(0, 700).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    let took = cycles(&pair) - start;
    assert_eq!(wc.len(), 1, "no completion");
    assert_eq!(
        (wc[0].wr_id, wc[0].status),
        (1, WcStatus::RnrRetryExcErr),
        "{wc:?}"
    );
    assert_eq!(a.qps[0].query().unwrap().attr.state, QpState::Error);
    // the first try and 2 retries, each refused; two RNR waits between them
    let naks: Vec<CapturedRoce> = sent_by(&pair, 1)
        .into_iter()
        .filter(|f| f.aeth_syndrome.is_some_and(|s| s & 0xE0 == 0x20))
        .collect();
    assert_eq!(naks.len(), 3, "{naks:?}");
    assert!(
        naks.iter()
            .all(|n| n.psn == 100 && n.aeth_syndrome == Some(0x23)),
        "{naks:?}"
    );
    for w in naks.windows(2) {
        assert!(
            w[1].cycle - w[0].cycle >= rnr_cycles - TICK,
            "RNR retry after {} cycles, timer {rnr_cycles}",
            w[1].cycle - w[0].cycle
        );
    }
    assert!(took >= 2 * rnr_cycles - 2 * TICK, "{took}");
    assert_eq!(counter(a, regs::CNT_RETRY_EXCEEDED_LO), 1);
    assert_eq!(counter(b, regs::CNT_TX_NAK_RNR_LO), 3);

    // QP 1 (rnr_retry 7 = infinite, PSNs across the wrap): RNR until a receive is posted
    a.qps[1]
        .post_send(&[SendWr::send(2, vec![a.mr.sge(0, 700).unwrap()]).signaled()])
        .unwrap();
    assert!(a
        .cq
        .poll_until(1, 4, Duration::from_micros(200))
        .unwrap()
        .is_empty());
    assert!(counter(b, regs::CNT_TX_NAK_RNR_LO) >= 3 + 3);
    b.qps[1]
        .post_recv(&[ferroce_driver::RecvWr::new(
            7,
            vec![b.mr.sge(1024, 700).unwrap()],
        )])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(1)).unwrap();
    assert_eq!(wc.len(), 1, "no completion");
    assert_eq!(
        (wc[0].wr_id, wc[0].status),
        (2, WcStatus::Success),
        "{wc:?}"
    );
    let rwc = b.cq.poll_until(1, 4, Duration::from_micros(50)).unwrap();
    assert_eq!(rwc.len(), 1);
    assert_eq!(
        (rwc[0].wr_id, rwc[0].status, rwc[0].byte_len),
        (7, WcStatus::Success, 700)
    );
    let mut got = vec![0u8; 700];
    b.mr.read(1024, &mut got).unwrap();
    assert_eq!(got, data);
    assert_eq!(a.qps[1].query().unwrap().attr.state, QpState::Rts);
}

/// PSN wrap with loss: QPs that start near PSN 0xFFFFFF carry multi-packet messages across the
/// 24-bit wrap in both directions while the link loses request packets on both sides of the
/// wrap (recovered by sequence NAKs from the right mid-message PSN) and a last packet
/// (recovered by the ACK timer); every message arrives once, intact, in order.
#[test]
fn psn_wrap_with_loss() {
    if !require_tool("verilator") {
        return;
    }
    let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
    let (pair, hosts) = open_pair(hw, ShellConfig::ideal(), 1, 16384, true).unwrap();
    let mut rng = Rng::new(53);
    connect_one(&hosts, 0, [0xFF_FFF0, 0xFF_FFF3], &rts(3, 7, 7), 12);
    let [a, b] = &hosts;
    let data: Vec<Vec<u8>> = (0..3).map(|_| rng.bytes(2000)).collect();
    let back: Vec<Vec<u8>> = (0..2).map(|_| rng.bytes(3000)).collect();
    for (i, d) in data.iter().enumerate() {
        a.mr.write(i * 2048, d).unwrap();
    }
    for (i, d) in back.iter().enumerate() {
        b.mr.write(i * 4096, d).unwrap();
    }
    // one direction after the other, so each side's frames are its requests only (or ACKs
    // only) and the lost ordinals are the packets named
    let send =
        |from: &Host<VerilatedNic>, to: &Host<VerilatedNic>, n: usize, len: usize, id: u64| {
            let wrs: Vec<SendWr> = (0..n)
                .map(|i| {
                    SendWr::write(
                        id + i as u64,
                        Remote {
                            va: to.mr.addr(16384 + i * 4096),
                            rkey: to.mr.rkey(),
                        },
                        vec![from
                            .mr
                            .sge(i * if len > 2048 { 4096 } else { 2048 }, len as u32)
                            .unwrap()],
                    )
                    .signaled()
                })
                .collect();
            from.qps[0].post_send(&wrs).unwrap();
            let mut wc = vec![];
            for _ in 0..40 {
                wc.extend(from.cq.poll_until(1, 8, Duration::from_micros(20)).unwrap());
                if wc.len() == n {
                    break;
                }
            }
            let got: Vec<(u64, WcStatus)> = wc.iter().map(|c| (c.wr_id, c.status)).collect();
            let want: Vec<(u64, WcStatus)> =
                (0..n as u64).map(|i| (id + i, WcStatus::Success)).collect();
            assert_eq!(got, want);
        };
    // A: 3 x 2000 B = 24 packets (8 per message) from PSN 0xFFFFF0, all three messages in the
    // send window at once: lose 0xFFFFFD (message 2, 6th packet; the responder NAKs the gap),
    // then the first two packets of the resend, which starts after the window's 24 packets
    // (0xFFFFFD, 0xFFFFFE: the responder NAKs the gap again at 0xFFFFFF, which is not after
    // its previous PSN out of sequence, across the wrap; no ACK timer); message 3 runs from
    // PSN 0 after the wrap
    lock(&pair).lose_frames(0, [13, 24, 25]);
    send(a, b, 3, 2000, 0);
    // B: 2 x 3000 B = 24 packets (12 per message) from 0xFFFFF3: message 2 runs from
    // 0xFFFFFF across the wrap; lose its 3rd packet (PSN 0x000001)
    let first_b = lock(&pair).frames_sent()[1];
    lock(&pair).lose_frames(1, [first_b + 14]);
    send(b, a, 2, 3000, 10);
    for (i, d) in data.iter().enumerate() {
        let mut got = vec![0u8; 2000];
        b.mr.read(16384 + i * 4096, &mut got).unwrap();
        assert_eq!(&got, d, "A's message {i}");
    }
    for (i, d) in back.iter().enumerate() {
        let mut got = vec![0u8; 3000];
        a.mr.read(16384 + i * 4096, &mut got).unwrap();
        assert_eq!(&got, d, "B's message {i}");
    }
    assert_eq!(counter(a, regs::CNT_ACK_TIMEOUT_LO), 0);
    assert!(counter(a, regs::CNT_RX_NAK_PSN_SEQ_LO) >= 2);
    assert!(counter(b, regs::CNT_RX_NAK_PSN_SEQ_LO) >= 1);
    let mut p = lock(&pair);
    assert_eq!(p.frames_lost(), [3, 1]);
    let ra = p.nic(0).resp_counts();
    let rb = p.nic(1).resp_counts();
    // each packet placed exactly once: 24 at each side
    assert_eq!((rb.executed, ra.executed), (24, 24), "{rb:?} {ra:?}");
    drop(p);
    // where each side's resends started: the sequence NAK of the loss at 0xFFFFFD names that
    // PSN (mid-message 2), and B's resend starts at 0x000001 (mid-message 2, after the wrap)
    let frames = captured_roce(&pair);
    let starts = |from: usize| -> Vec<u32> {
        let psns: Vec<u32> = frames
            .iter()
            .filter(|f| f.from == from && f.aeth_syndrome.is_none())
            .map(|f| f.psn)
            .collect();
        psns.windows(2)
            .filter(|w| w[1] != (w[0] + 1) & 0xFF_FFFF)
            .map(|w| w[1])
            .collect()
    };
    assert_eq!(starts(0).first(), Some(&0xFF_FFFD), "{:x?}", starts(0));
    assert_eq!(starts(1), vec![0x00_0001], "{:x?}", starts(1));
}
