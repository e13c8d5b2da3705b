//! Failed DMA reads (docs/DMA.md, section 6) on two hardware NICs (Verilator) driven through
//! the driver: the NIC never uses the bytes of a read the shell reported as failed.
//!
//! * a WQE that cannot be read completes with FATAL_ERR (wr_id unknown: 0) and sends nothing;
//! * a READ response whose payload cannot be read leaves the responder poisoned (ICRC
//!   complemented): the requester drops it, asks again, and fails with RETRY_EXC_ERR, its
//!   memory untouched;
//! * a WRITE whose payload cannot be read leaves poisoned: the responder drops every try
//!   before any DMA, the requester fails with RETRY_EXC_ERR.
//!
//! Every expected count comes from outside the NIC: the frames on the link (their ICRC checked
//! by `ferroce_proto`), the host memory's IOMMU fault log, the completions the driver polled.
use ferroce_driver::{Pmtu, Remote, RtsAttr, SendWr, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::regs;
use ferroce_sim::cmd::verbs::verilated_pair;
use ferroce_sim::nic_pair::captured_roce;
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

#[test]
fn failed_dma_reads_are_never_used() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(23);
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
    a.mr.write(0, &rng.bytes(4096)).unwrap();
    b.mr.write(0, &rng.bytes(4096)).unwrap();
    let faults = |h: &ferroce_sim::cmd::verbs::Host<VerilatedNic>| {
        h.backend.memory().lock().unwrap().faults().len() as u64
    };
    // a clean WRITE first: the QPs work
    a.qps[2]
        .post_send(&[SendWr::write(7, remote, vec![a.mr.sge(0, 300).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc[0].status, WcStatus::Success);
    let _ = captured_roce(&pair);

    // ---- 1. a's SQ ring of QP 0 is unmapped from the IOMMU: the WQE's read fails
    let (sq_iova, _) = a.qps[0].sq_ring();
    assert!(a.backend.memory().lock().unwrap().free(sq_iova).is_some());
    a.qps[0]
        .post_send(&[SendWr::write(0x1111, remote, vec![a.mr.sge(0, 100).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!(wc[0].status, WcStatus::FatalErr);
    assert_eq!(
        wc[0].wr_id, 0,
        "the WQE was never read: its wr_id is unknown"
    );
    assert!(
        captured_roce(&pair).iter().all(|f| f.from != 0),
        "nothing sent for a WQE that could not be read"
    );
    let fa = faults(a);
    assert!(fa >= 1);
    assert_eq!(a.device.counter(regs::CNT_DMA_ERROR_LO), fa);

    // ---- 2. b's MR memory is unmapped: a READ of it gets poisoned responses
    let dst = 5000;
    let before = {
        let mut v = vec![0; 600];
        a.mr.read(dst, &mut v).unwrap();
        v
    };
    let a_icrc0 = a.device.counter(regs::CNT_RX_DROP_ICRC_LO);
    assert!(b
        .backend
        .memory()
        .lock()
        .unwrap()
        .free(b.mr.buffer().iova())
        .is_some());
    a.qps[1]
        .post_send(&[SendWr::read(0x2222, remote, vec![a.mr.sge(dst, 600).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!(wc[0].wr_id, 0x2222);
    assert_eq!(wc[0].status, WcStatus::RetryExcErr);
    let frames = captured_roce(&pair);
    let responses: Vec<_> = frames.iter().filter(|f| f.from == 1).collect();
    assert!(
        responses.len() >= 2,
        "a response to the READ and to its retry"
    );
    assert!(
        responses.iter().all(|f| !f.icrc_ok),
        "every READ response from unreadable memory is poisoned: {responses:?}"
    );
    assert!(frames.iter().filter(|f| f.from == 0).all(|f| f.icrc_ok));
    assert_eq!(
        a.device.counter(regs::CNT_RX_DROP_ICRC_LO) - a_icrc0,
        responses.len() as u64,
        "a dropped each of them"
    );
    let mut after = vec![0; 600];
    a.mr.read(dst, &mut after).unwrap();
    assert_eq!(after, before, "nothing of a failed read reached a's memory");
    let fb = faults(b);
    assert!(fb >= 1);
    assert_eq!(b.device.counter(regs::CNT_DMA_ERROR_LO), fb);

    // ---- 3. a's MR memory is unmapped: a WRITE from it leaves poisoned, b drops every try
    let b_icrc0 = b.device.counter(regs::CNT_RX_DROP_ICRC_LO);
    assert!(a
        .backend
        .memory()
        .lock()
        .unwrap()
        .free(a.mr.buffer().iova())
        .is_some());
    let fa0 = faults(a);
    a.qps[2]
        .post_send(&[SendWr::write(0x3333, remote, vec![a.mr.sge(0, 700).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!(wc[0].wr_id, 0x3333);
    assert_eq!(wc[0].status, WcStatus::RetryExcErr);
    let sent: Vec<_> = captured_roce(&pair)
        .into_iter()
        .filter(|f| f.from == 0)
        .collect();
    // 700 bytes at PMTU 256: three packets a try, at least two tries
    assert!(sent.len() >= 6, "{sent:?}");
    assert!(
        sent.iter().all(|f| !f.icrc_ok),
        "every packet poisoned: {sent:?}"
    );
    assert_eq!(
        b.device.counter(regs::CNT_RX_DROP_ICRC_LO) - b_icrc0,
        sent.len() as u64
    );
    assert_eq!(faults(b), fb, "b did no DMA for a poisoned frame");
    assert_eq!(
        a.device.counter(regs::CNT_DMA_ERROR_LO),
        faults(a),
        "a counted every failed read"
    );
    assert!(faults(a) > fa0);
}
