//! Destruction: what each handle's Drop writes, in which order, and what it frees.

use std::sync::Arc;
use std::time::Duration;

use ferroce_driver::backend::fake::{FakeDevice, FakeIdentity};
use ferroce_driver::{
    AccessFlags, Device, DeviceOptions, QpCapabilities, QpInitAttr, QpState, SendWr,
};
use ferroce_proto::host::cq::CqConfig;
use ferroce_proto::host::cqe::CqeOpcode;
use ferroce_proto::host::mr::MrEntry;
use ferroce_proto::host::qp::{QpAttr, QpAttrMask, QpQuery};
use ferroce_proto::host::regs;
use ferroce_proto::host::RegWrite;

use super::{complete_into, connect, cqe, env};

fn modify_to(qpn: u32, state: QpState) -> Vec<RegWrite> {
    QpAttr {
        state,
        ..QpAttr::default()
    }
    .modify_writes(qpn, QpAttrMask::STATE)
    .unwrap()
}

#[test]
fn mr_drop_invalidates_then_frees_the_buffer() {
    let e = env();
    let buf = Arc::new(e.dev.alloc_dma(4096, 64).unwrap());
    let iova = buf.iova();
    let mr = e.pd.register(buf, AccessFlags::LOCAL_WRITE).unwrap();
    let index = ferroce_proto::host::mr::key_index(mr.lkey());
    e.nic.clear_log();
    drop(mr);
    assert_eq!(e.nic.writes(), MrEntry::invalidate_writes(index));
    assert_eq!(e.nic.writes(), [super::w(0x900, index), super::w(0x904, 2)]);
    assert!(
        e.nic.freed().contains(&(iova, 4096)),
        "buffer freed after INVALIDATE"
    );
}

#[test]
fn buffer_outlives_its_handle_while_registered() {
    let e = env();
    let buf = Arc::new(e.dev.alloc_dma(4096, 64).unwrap());
    let iova = buf.iova();
    let mr =
        e.pd.register(buf.clone(), AccessFlags::LOCAL_WRITE)
            .unwrap();
    drop(buf);
    assert!(
        !e.nic.freed().iter().any(|f| f.0 == iova),
        "the MR keeps it"
    );
    drop(mr);
    assert!(e.nic.freed().iter().any(|f| f.0 == iova));
}

/// HOST-INTERFACE.md 7.3: ERR, wait for the flush (QUERY until consumer = producer), RESET,
/// free the rings; the CQ is destroyed only after its last QP, whatever the drop order.
#[test]
fn qp_and_cq_destruction_order() {
    let e = env();
    let cq = e.dev.create_cq(8, 0).unwrap();
    let cqn = cq.cqn();
    let cq_ring = cq.ring_iova();
    let qp =
        e.pd.create_qp(&QpInitAttr {
            send_cq: &cq,
            recv_cq: &cq,
            cap: QpCapabilities::default(),
            sq_sig_all: false,
        })
        .unwrap();
    connect(&qp);
    qp.post_send(&[SendWr::send(1, vec![e.mr.sge(0, 8).unwrap()])])
        .unwrap();
    let qpn = qp.qpn();
    let (sq_base, _) = qp.sq_ring();
    let (rq_base, _) = qp.rq_ring();

    e.nic.clear_log();
    drop(cq); // The QP still uses it: nothing happens yet.
    assert!(e.nic.writes().is_empty());

    drop(qp);
    let mut expected = modify_to(qpn, QpState::Error);
    expected.extend(QpQuery::writes(qpn));
    expected.extend(modify_to(qpn, QpState::Reset));
    expected.extend(CqConfig::destroy_writes(cqn));
    assert_eq!(e.nic.writes(), expected);
    let freed: Vec<u64> = e.nic.freed().iter().map(|f| f.0).collect();
    let pos = |a| freed.iter().position(|&f| f == a).expect("freed");
    assert!(pos(sq_base) < pos(cq_ring) && pos(rq_base) < pos(cq_ring));
    assert!(e.nic.violations().is_empty());

    // The QPN is free again.
    let again = e.qp(QpCapabilities::default());
    assert!(again.qpn() >= 2);
}

#[test]
fn qp_in_init_drains_and_resets() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    qp.to_init(AccessFlags::NONE).unwrap();
    let qpn = qp.qpn();
    e.nic.clear_log();
    drop(qp);
    let mut expected = modify_to(qpn, QpState::Error);
    expected.extend(QpQuery::writes(qpn));
    expected.extend(modify_to(qpn, QpState::Reset));
    assert_eq!(e.nic.writes(), expected);
}

#[test]
fn handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<ferroce_driver::Device>();
    check::<ferroce_driver::ProtectionDomain>();
    check::<ferroce_driver::MemoryRegion>();
    check::<ferroce_driver::CompletionQueue>();
    check::<ferroce_driver::QueuePair>();
    check::<ferroce_driver::DmaBuffer>();
    check::<ferroce_driver::Error>();
}

#[test]
fn qp_in_reset_drops_without_commands() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    let (sq, _) = qp.sq_ring();
    e.nic.clear_log();
    drop(qp);
    assert!(e.nic.writes().is_empty());
    assert!(e.nic.freed().iter().any(|f| f.0 == sq));
}

/// CQEs a destroyed QP left in its CQ never reach a new QP that reuses the QPN.
#[test]
fn stale_completions_of_a_destroyed_qp_are_dropped() {
    // Only QPN 2 exists, so the second QP must reuse it.
    let nic = FakeDevice::with_identity(FakeIdentity {
        num_qps: 3,
        ..FakeIdentity::default()
    });
    let e = super::env_with(nic);
    let qp = e.qp(QpCapabilities::default());
    connect(&qp);
    let sge = e.mr.sge(0, 8).unwrap();
    qp.post_send(&[SendWr::send(1, vec![sge]).signaled()])
        .unwrap();
    let mut c = cqe(2, CqeOpcode::Send, 0, 1);
    complete_into(&e.nic, &e.cq, 0, &mut c); // not polled before the QP goes away
    drop(qp);

    let qp = e.qp(QpCapabilities::default());
    assert_eq!(qp.qpn(), 2);
    connect(&qp);
    qp.post_send(&[SendWr::send(5, vec![sge]).signaled()])
        .unwrap();
    assert!(
        e.cq.poll(8).unwrap().is_empty(),
        "old CQE dropped, not misattributed"
    );
    assert_eq!(e.cq.stray_completions(), 0);
    assert_eq!(qp.outstanding_sends(), 1);
    let mut c = cqe(2, CqeOpcode::Send, 0, 5);
    complete_into(&e.nic, &e.cq, 1, &mut c);
    assert_eq!(e.cq.poll(8).unwrap()[0].wr_id, 5);
}

/// If the NIC never confirms, memory it may still touch is leaked rather than freed.
#[test]
fn unconfirmed_destruction_leaks_memory() {
    let nic = FakeDevice::new();
    let opts = DeviceOptions {
        command_timeout: Duration::from_micros(20),
        drain_timeout: Duration::from_micros(20),
        ..DeviceOptions::default()
    };
    let dev = Device::open_with(nic.clone(), opts).unwrap();
    let pd = dev.alloc_pd().unwrap();
    let cq = dev.create_cq(4, 0).unwrap();
    let buf = Arc::new(dev.alloc_dma(256, 64).unwrap());
    let buf_iova = buf.iova();
    let mr = pd.register(buf, AccessFlags::LOCAL_WRITE).unwrap();
    let qp = pd
        .create_qp(&QpInitAttr {
            send_cq: &cq,
            recv_cq: &cq,
            cap: QpCapabilities::default(),
            sq_sig_all: false,
        })
        .unwrap();
    qp.to_init(AccessFlags::NONE).unwrap();
    let (sq, _) = qp.sq_ring();
    let cq_ring = cq.ring_iova();
    let allocated = nic.allocations().len();

    nic.set_busy_polls(u32::MAX);
    drop(qp);
    drop(mr);
    drop(cq);
    let freed: Vec<u64> = nic.freed().iter().map(|f| f.0).collect();
    for iova in [sq, cq_ring, buf_iova] {
        assert!(!freed.contains(&iova), "{iova:#x} must not be freed");
    }
    assert_eq!(nic.allocations().len(), allocated);
    let _ = regs::QP_CMD;
}
