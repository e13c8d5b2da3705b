//! The counters of requests the responder drops (`CNT_RX_DROP_OUT_OF_SEQ`, `_QP_STATE`,
//! `_UNKNOWN_QP`), of CQEs written (`CNT_CQE`) and of failed DMA transactions
//! (`CNT_DMA_ERROR`), on two hardware NICs (Verilator) driven through the driver. Every expected
//! count comes from outside the NIC: the frames on the link, the completions the driver polled,
//! the host memory's IOMMU fault log.
use ferroce_driver::{AccessFlags, Pmtu, Remote, RtrAttr, RtsAttr, SendWr, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::qp::{AddressVector, QpState};
use ferroce_proto::host::regs;
use ferroce_sim::cmd::verbs::verilated_pair;
use ferroce_sim::nic_pair::{captured_roce, lock, CapturedRoce, SharedPair};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

/// Side 0's RoCE frames captured since the last call (their ordinal among every frame side 0
/// sent in that capture, destination QPN, PSN).
fn sent_by_a(pair: &SharedPair<VerilatedNic>) -> Vec<CapturedRoce> {
    captured_roce(pair)
        .into_iter()
        .filter(|f| f.from == 0)
        .collect()
}

#[test]
fn drops_cqes_and_dma_errors_are_counted() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(17);
    let rts = RtsAttr {
        timeout: 1,
        retry_cnt: 1,
        rnr_retry: 7,
        ..RtsAttr::default()
    };
    let (pair, hosts) = verilated_pair(3, 8192, true, Pmtu::Mtu256, &mut rng, &rts).unwrap();
    let [a, b] = &hosts;
    let remote = Remote {
        va: b.mr.addr(0),
        rkey: b.mr.rkey(),
    };
    a.mr.write(0, &rng.bytes(2000)).unwrap();
    let _ = sent_by_a(&pair);

    // ---- 1. out of sequence: a 2000-byte WRITE in 8 packets loses its third; b NAKs the
    // fourth and drops what follows until the resent third
    let sent_before = lock(&pair).frames_sent()[0];
    lock(&pair).lose_frames(0, [sent_before + 2]);
    a.qps[0]
        .post_send(&[SendWr::write(1, remote, vec![a.mr.sge(0, 2000).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!(wc[0].status, WcStatus::Success);
    let mut cqes_a = wc.len() as u64;
    // b's expected PSN over the frames it received (the lost one never arrived)
    let frames = sent_by_a(&pair);
    let lost = frames[2].ordinal;
    let mut epsn = frames[0].psn;
    let mut ahead = 0u64;
    for f in &frames {
        if f.ordinal == lost {
            continue;
        }
        let d = f.psn.wrapping_sub(epsn) & 0xFF_FFFF;
        if d == 0 {
            epsn = (epsn + 1) & 0xFF_FFFF;
        } else if d < 1 << 23 {
            ahead += 1;
        }
    }
    assert!(ahead >= 1, "{frames:?}");
    assert_eq!(b.device.counter(regs::CNT_RX_DROP_OUT_OF_SEQ_LO), ahead);
    assert!(b.device.counter(regs::CNT_TX_NAK_PSN_SEQ_LO) >= 1);

    // ---- 2. QP state: b's QP 1 goes to ERR; a's WRITE on QP 1 is dropped at every try and
    // ends in RETRY_EXC_ERR
    b.qps[1].to_error().unwrap();
    assert_eq!(b.qps[1].state(), QpState::Error);
    a.qps[1]
        .post_send(&[SendWr::write(2, remote, vec![a.mr.sge(0, 100).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!(wc[0].status, WcStatus::RetryExcErr);
    cqes_a += wc.len() as u64;
    let to_qp1 = sent_by_a(&pair)
        .iter()
        .filter(|f| f.dest_qp == b.qps[1].qpn())
        .count() as u64;
    assert!(to_qp1 >= 2, "the first try and a retry");
    assert_eq!(b.device.counter(regs::CNT_RX_DROP_QP_STATE_LO), to_qp1);

    // ---- 3. unknown QP: a's QP 2 is reconnected to a QPN b does not implement
    let qp = &a.qps[2];
    qp.to_reset().unwrap();
    qp.to_init(AccessFlags::REMOTE_WRITE).unwrap();
    let bogus = 0x1234;
    qp.to_rtr(&RtrAttr {
        av: AddressVector {
            dmac: b.mac,
            dgid: b.gid,
            ..AddressVector::default()
        },
        path_mtu: Pmtu::Mtu256,
        dest_qpn: bogus,
        rq_psn: 0,
        max_dest_rd_atomic: 4,
        min_rnr_timer: 12,
    })
    .unwrap();
    qp.to_rts(&RtsAttr { sq_psn: 7, ..rts }).unwrap();
    qp.post_send(&[SendWr::write(3, remote, vec![a.mr.sge(0, 100).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!(wc[0].status, WcStatus::RetryExcErr);
    cqes_a += wc.len() as u64;
    let to_bogus = sent_by_a(&pair)
        .iter()
        .filter(|f| f.dest_qp == bogus)
        .count() as u64;
    assert!(to_bogus >= 2);
    assert_eq!(b.device.counter(regs::CNT_RX_DROP_UNKNOWN_QP_LO), to_bogus);
    assert_eq!(
        b.device.counter(regs::CNT_RX_DROP_QP_STATE_LO),
        to_qp1,
        "no other drop counted as a state drop"
    );

    // ---- 4. DMA errors: b's MR memory is unmapped from the IOMMU while the MR stays valid;
    // a's WRITE is placed by DMA writes that fault
    assert_eq!(b.device.counter(regs::CNT_DMA_ERROR_LO), 0);
    let iova = b.mr.buffer().iova();
    let faults_before = {
        let mut m = b.backend.memory().lock().unwrap();
        assert!(m.free(iova).is_some(), "the MR's buffer was mapped");
        m.faults().len()
    };
    a.qps[0]
        .post_send(&[SendWr::write(4, remote, vec![a.mr.sge(0, 600).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    cqes_a += wc.len() as u64;
    let faults = b.backend.memory().lock().unwrap().faults().len() - faults_before;
    assert!(faults >= 1, "the WRITE met the unmapped memory");
    assert_eq!(b.device.counter(regs::CNT_DMA_ERROR_LO), faults as u64);
    assert_eq!(a.device.counter(regs::CNT_DMA_ERROR_LO), 0);

    // ---- CQEs: every completion a polled, none at b (WRITEs complete at the requester)
    assert_eq!(a.device.counter(regs::CNT_CQE_LO), cqes_a);
    assert_eq!(b.device.counter(regs::CNT_CQE_LO), 0);
}
