//! poll_cq: owner-bit protocol, wrap, consumer-index doorbells, error handling, arming.

use std::time::Duration;

use ferroce_driver::{
    ArmMode, Error, QpCapabilities, QpInitAttr, QpState, RecvWr, SendWr, WcOpcode, WcStatus,
};
use ferroce_proto::host::cq;
use ferroce_proto::host::cqe::{vendor_err, CqeOpcode, CQE_LEN};

use super::{complete_into, connect, cqe, env, w};

#[test]
fn owner_bit_wrap_and_ci_doorbells() {
    let e = env();
    let small = e.dev.create_cq(4, 0).unwrap();
    assert_eq!(small.capacity(), 4);
    let qp =
        e.pd.create_qp(&QpInitAttr {
            send_cq: &small,
            recv_cq: &small,
            cap: QpCapabilities {
                max_send_wr: 16,
                ..QpCapabilities::default()
            },
            sq_sig_all: true,
        })
        .unwrap();
    connect(&qp);
    let wrs: Vec<SendWr> = (0..14)
        .map(|i| SendWr::send(100 + i, vec![e.mr.sge(0, 4).unwrap()]))
        .collect();
    qp.post_send(&wrs).unwrap();
    e.nic.clear_log();

    assert!(small.poll(8).unwrap().is_empty(), "zeroed ring reads empty");
    assert!(e.nic.writes().is_empty(), "no doorbell for an empty poll");

    let ring = small.ring();
    let write = |index: u32, owner: bool| {
        let mut c = cqe(qp.qpn(), CqeOpcode::Send, index as u16, 100 + index as u64);
        complete_into(&e.nic, &small, index, &mut c);
        if owner != ring.owner(index) {
            // Overwrite with the other owner value: a leftover of the previous pass.
            c.owner = owner;
            let mut raw = [0u8; CQE_LEN];
            c.emit(&mut raw).unwrap();
            e.nic
                .mem_write(small.ring_iova() + ring.slot_offset(index) as u64, &raw);
        }
    };

    // Indices 0..12 over passes 0, 1, 2, 3 of the 4-slot ring, 3 CQEs at a time (the NIC
    // never runs more than 4 ahead of the CI the driver reported).
    let mut ci = 0u32;
    while ci < 12 {
        for i in ci..ci + 3 {
            write(i, ring.owner(i));
        }
        // The slot after them still holds the previous pass's entry (or zeros): not new.
        let wcs = small.poll(8).unwrap();
        assert_eq!(
            wcs.iter().map(|w| w.wr_id).collect::<Vec<_>>(),
            (ci..ci + 3).map(|i| 100 + i as u64).collect::<Vec<_>>()
        );
        ci += 3;
        assert_eq!(
            e.nic.writes().last(),
            Some(&cq::ci_doorbell(small.cqn(), ci))
        );
    }
    assert_eq!(ci, 12, "passes 0..3 done: owner 1, 0, 1, 0");

    // An entry with the wrong phase for its index is ignored until rewritten.
    write(12, !ring.owner(12));
    assert!(small.poll(8).unwrap().is_empty());
    write(12, ring.owner(12));
    write(13, ring.owner(13));
    // `max` bounds one poll.
    assert_eq!(small.poll(1).unwrap()[0].wr_id, 112);
    assert_eq!(small.poll_one().unwrap().unwrap().wr_id, 113);
    assert_eq!(qp.outstanding_sends(), 0);
    assert!(e.nic.violations().is_empty());
}

#[test]
fn receive_completions_carry_their_fields() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    qp.to_init(ferroce_driver::AccessFlags::NONE).unwrap();
    let sge = e.mr.sge(0, 256).unwrap();
    qp.post_recv(&[RecvWr::new(1, vec![sge]), RecvWr::new(2, vec![sge])])
        .unwrap();
    let mut c = cqe(qp.qpn(), CqeOpcode::RecvRdmaWithImm, 0, 1);
    c.byte_len = 200;
    c.imm = Some(0x0102_0304);
    c.solicited = true;
    e.complete(0, c);
    let wc = e.cq.poll_one().unwrap().unwrap();
    assert_eq!(wc.wr_id, 1);
    assert_eq!(wc.opcode, WcOpcode::RecvRdmaWithImm);
    assert!(wc.opcode.is_recv());
    assert_eq!(wc.byte_len, 200);
    assert_eq!(wc.imm, Some(0x0102_0304));
    assert!(wc.solicited && wc.is_success());
    assert_eq!((wc.qp_num, wc.src_qp), (qp.qpn(), 0x77));
    assert_eq!(qp.outstanding_recvs(), 1);
}

#[test]
fn error_completion_moves_the_qp_to_error() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    connect(&qp);
    let sge = e.mr.sge(0, 64).unwrap();
    qp.post_send(&[SendWr::send(1, vec![sge]), SendWr::send(2, vec![sge])])
        .unwrap();
    let mut c = cqe(qp.qpn(), CqeOpcode::Send, 0, 1);
    c.status = WcStatus::RemAccessErr;
    e.complete(0, c);
    let mut f = cqe(qp.qpn(), CqeOpcode::Send, 1, 2);
    f.status = WcStatus::WrFlushErr;
    f.vendor_err = vendor_err::FLUSH;
    e.complete(1, f);
    let wcs = e.cq.poll(4).unwrap();
    assert_eq!(wcs[0].status, WcStatus::RemAccessErr);
    assert_eq!(
        (wcs[1].status, wcs[1].vendor_err),
        (WcStatus::WrFlushErr, vendor_err::FLUSH)
    );
    assert_eq!(qp.state(), QpState::Error);
    assert!(matches!(
        qp.post_send(&[SendWr::send(3, vec![sge])]),
        Err(Error::InvalidState {
            state: QpState::Error,
            ..
        })
    ));
    // Receives may still be posted in ERR (they are flushed), as in verbs.
    qp.post_recv(&[RecvWr::new(4, vec![sge])]).unwrap();
}

#[test]
fn bad_cqes_are_reported_once_after_the_good_ones() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    connect(&qp);
    let sge = e.mr.sge(0, 64).unwrap();
    qp.post_send(&[SendWr::send(1, vec![sge]).signaled()])
        .unwrap();
    e.complete(0, cqe(qp.qpn(), CqeOpcode::Send, 0, 1));
    // Index 1: an undefined opcode.
    let ring = e.cq.ring();
    let mut raw = [0u8; CQE_LEN];
    raw[0x1D] = 0x55;
    raw[0x1F] = ring.owner(1) as u8;
    e.nic.mem_write(e.cq.ring_iova() + 32, &raw);
    // Index 2: a WQE index that is not outstanding.
    e.complete(2, cqe(qp.qpn(), CqeOpcode::Send, 7, 9));
    // Index 3: a stray CQE for a QP this CQ does not serve.
    e.complete(3, cqe(999, CqeOpcode::Send, 0, 9));

    let wcs = e.cq.poll(8).unwrap();
    assert_eq!(wcs.len(), 1, "the good completion first");
    let err = e.cq.poll(8).unwrap_err();
    assert!(matches!(err, Error::BadCqe { index: 1, .. }), "{err}");
    let err = e.cq.poll(8).unwrap_err();
    assert!(
        matches!(&err, Error::BadCqe { index: 2, reason, .. } if reason.contains("not outstanding")),
        "{err}"
    );
    assert!(e.cq.poll(8).unwrap().is_empty(), "stray entry dropped");
    assert_eq!(e.cq.stray_completions(), 1);
    assert_eq!(e.nic.writes().last(), Some(&cq::ci_doorbell(e.cq.cqn(), 4)));
}

#[test]
fn arm_and_wait() {
    let e = env();
    let cq = e.dev.create_cq(8, 3).unwrap();
    e.nic.clear_log();
    cq.arm(ArmMode::Solicited);
    assert_eq!(
        e.nic.writes(),
        [w(0x18_0004 + 8 * cq.cqn(), 2 << 24)],
        "CI 0, mode 2"
    );
    assert!(!cq.wait_event(Duration::from_millis(5)).unwrap());
    e.nic.raise_interrupt(3);
    assert!(cq.wait_event(Duration::from_millis(5)).unwrap());
    let t0 = e.nic.time();
    assert!(cq
        .poll_until(1, 8, Duration::from_micros(50))
        .unwrap()
        .is_empty());
    assert!(
        e.nic.time() - t0 >= Duration::from_micros(50),
        "waited in backend time"
    );
}
