//! post_send / post_recv: WQE bytes, doorbells, ring wrap and owner bits.

use ferroce_driver::{
    QpCapabilities, QpInitAttr, QueuePair, RecvWr, Remote, SendOp, SendWr, Sge, WqeFlags,
};
use ferroce_proto::host::cqe::CqeOpcode;
use ferroce_proto::host::regs;
use ferroce_proto::host::wqe::{Payload, RecvWqe, SendWqe};

use super::{connect, cqe, env, w, Env};

fn slot(e: &Env, qp: &QueuePair, index: u32) -> Vec<u8> {
    let (base, ring) = qp.sq_ring();
    e.nic
        .mem_read(base + ring.slot_offset(index) as u64, ring.stride())
        .unwrap()
}

fn rslot(e: &Env, qp: &QueuePair, index: u32) -> Vec<u8> {
    let (base, ring) = qp.rq_ring();
    e.nic
        .mem_read(base + ring.slot_offset(index) as u64, ring.stride())
        .unwrap()
}

#[test]
fn every_send_opcode_parses_back_and_rings_the_doorbell() {
    let e = env();
    let qp = e.qp(QpCapabilities {
        max_send_sge: 2,
        ..QpCapabilities::default()
    });
    connect(&qp);
    let a = e.mr.sge(0, 100).unwrap();
    let b = e.mr.sge(4096, 28).unwrap();
    let eight = e.mr.sge(8192, 8).unwrap();
    let remote = Remote {
        va: 0x7f00_0000_1000,
        rkey: 0x1234_5601,
    };
    let wrs = [
        SendWr::send(1, vec![a, b]).signaled(),
        SendWr::send_imm(2, 0x0102_0304, vec![a]).solicited(),
        SendWr::write(3, remote, vec![b, a]).signaled(),
        SendWr::write_imm(4, remote, 0xdead_beef, vec![a]).fenced(),
        SendWr::read(5, remote, vec![b]),
        SendWr::cmp_swap(6, remote, 1, 2, eight),
        SendWr::fetch_add(7, remote, 5, eight),
        SendWr::write(8, remote, vec![]).signaled(),
    ];
    for (i, wr) in wrs.iter().enumerate() {
        e.nic.clear_log();
        qp.post_send(std::slice::from_ref(wr)).unwrap();
        let pi = i as u32 + 1;
        assert_eq!(
            e.nic.writes(),
            [w(0x10_0000 + 8 * qp.qpn(), pi)],
            "one SQ doorbell with the new producer index"
        );
        assert_eq!(e.nic.writes()[0], regs::sq_doorbell_write(qp.qpn(), pi));
        let parsed = SendWqe::parse(&slot(&e, &qp, i as u32)).unwrap();
        let expected = match &wr.payload {
            Payload::Sges(s) => SendWqe::new(true, wr.op, wr.flags, wr.wr_id, s.clone()),
            Payload::Inline(_) => unreachable!(),
        };
        assert_eq!(parsed, expected, "WR {i}");
        parsed.validate().unwrap();
    }
    assert_eq!(qp.outstanding_sends(), wrs.len() as u32);
    assert!(e.nic.violations().is_empty());
}

#[test]
fn batches_ring_once_and_sq_sig_all_signals() {
    let e = env();
    let qp =
        e.pd.create_qp(&QpInitAttr {
            send_cq: &e.cq,
            recv_cq: &e.cq,
            cap: QpCapabilities::default(),
            sq_sig_all: true,
        })
        .unwrap();
    connect(&qp);
    e.nic.clear_log();
    let wrs: Vec<SendWr> = (0..3)
        .map(|i| SendWr::send(i, vec![e.mr.sge(0, 8).unwrap()]))
        .collect();
    qp.post_send(&wrs).unwrap();
    assert_eq!(e.nic.writes(), [regs::sq_doorbell_write(qp.qpn(), 3)]);
    for i in 0..3 {
        let p = SendWqe::parse(&slot(&e, &qp, i)).unwrap();
        assert_eq!(p.wr_id, i as u64);
        assert!(p.flags.contains(WqeFlags::SIGNALED));
    }
}

#[test]
fn inline_data_parses_back() {
    let e = env();
    let qp = e.qp(QpCapabilities {
        max_inline_data: 40,
        ..QpCapabilities::default()
    });
    assert!(qp.caps().max_inline_data >= 40);
    connect(&qp);
    let wr = SendWr::new(9, SendOp::Send)
        .with_inline(b"hello, inline".to_vec())
        .signaled();
    qp.post_send(&[wr]).unwrap();
    let p = SendWqe::parse(&slot(&e, &qp, 0)).unwrap();
    assert_eq!(p.payload, Payload::Inline(b"hello, inline".to_vec()));
    assert_eq!(p.length, 13);
}

#[test]
fn post_recv_parses_back() {
    let e = env();
    let qp = e.qp(QpCapabilities {
        max_recv_sge: 3,
        ..QpCapabilities::default()
    });
    qp.to_init(ferroce_driver::AccessFlags::NONE).unwrap();
    e.nic.clear_log();
    let sges = vec![e.mr.sge(0, 1024).unwrap(), e.mr.sge(2048, 512).unwrap()];
    qp.post_recv(&[RecvWr::new(77, sges.clone()), RecvWr::new(78, vec![])])
        .unwrap();
    assert_eq!(e.nic.writes(), [w(0x10_0004 + 8 * qp.qpn(), 2)]);
    assert_eq!(e.nic.writes()[0], regs::rq_doorbell_write(qp.qpn(), 2));
    let p = RecvWqe::parse(&rslot(&e, &qp, 0)).unwrap();
    assert_eq!(p, RecvWqe::new(true, 77, sges));
    assert_eq!(p.length, 1536);
    assert_eq!(RecvWqe::parse(&rslot(&e, &qp, 1)).unwrap().wr_id, 78);
}

/// Three passes over a 4-entry SQ: the owner bit flips each pass, unsignalled WQEs are
/// retired by the next CQE's wqe_index, and a full queue refuses more.
#[test]
fn ring_wrap_owner_bit_and_unsignalled_retirement() {
    let e = env();
    let qp = e.qp(QpCapabilities {
        max_send_wr: 4,
        ..QpCapabilities::default()
    });
    assert_eq!(qp.caps().max_send_wr, 4);
    connect(&qp);
    let sge = e.mr.sge(0, 16).unwrap();
    for pass in 0..3u32 {
        let cq_index = pass;
        for k in 0..4u32 {
            let mut wr = SendWr::send((pass * 4 + k) as u64, vec![sge]);
            if k == 3 {
                wr = wr.signaled();
            }
            e.nic.clear_log();
            qp.post_send(&[wr]).unwrap();
            assert_eq!(
                e.nic.writes(),
                [regs::sq_doorbell_write(qp.qpn(), pass * 4 + k + 1)]
            );
            let p = SendWqe::parse(&slot(&e, &qp, k)).unwrap();
            assert_eq!(p.owner, pass % 2 == 0, "pass {pass}: owner 1, 0, 1, ...");
            assert_eq!(p.wr_id, (pass * 4 + k) as u64);
        }
        assert!(matches!(
            qp.post_send(&[SendWr::send(99, vec![sge])]),
            Err(ferroce_driver::Error::QueueFull {
                queue: ferroce_driver::Queue::Send,
                ..
            })
        ));
        // One CQE for the signalled WQE retires all four.
        let last = (pass * 4 + 3) as u16;
        e.complete(cq_index, cqe(qp.qpn(), CqeOpcode::Send, last, last as u64));
        let wcs = e.cq.poll(8).unwrap();
        assert_eq!(wcs.len(), 1);
        assert_eq!(wcs[0].wr_id, last as u64);
        assert_eq!(qp.outstanding_sends(), 0);
    }
}

/// Producer indices are 16-bit on the wire: after 65536 posts the doorbell value wraps and
/// the owner-bit pattern continues.
#[test]
fn producer_index_wraps_at_16_bits() {
    let e = env();
    let qp = e.qp(QpCapabilities {
        max_send_wr: 2,
        ..QpCapabilities::default()
    });
    connect(&qp);
    let sge: Sge = e.mr.sge(0, 4).unwrap();
    let mut pi: u32 = 0;
    let mut ci_cq: u32 = 0;
    let capacity = e.cq.capacity();
    while pi < 65536 + 2 {
        qp.post_send(&[
            SendWr::send(pi as u64, vec![sge]),
            SendWr::send(pi as u64 + 1, vec![sge]).signaled(),
        ])
        .unwrap();
        pi += 2;
        let last = (pi - 1) as u16;
        e.complete(ci_cq, cqe(qp.qpn(), CqeOpcode::Send, last, 0));
        ci_cq = (ci_cq + 1) % (1 << 24);
        assert_eq!(e.cq.poll(4).unwrap().len(), 1);
        if pi.is_multiple_of(8192) {
            e.nic.clear_log(); // keep the fake's log small
        }
    }
    assert!(ci_cq > capacity, "the CQ wrapped many times too");
    let last_db = *e
        .nic
        .writes()
        .iter()
        .rev()
        .find(|w| w.offset == regs::sq_doorbell(qp.qpn()))
        .unwrap();
    assert_eq!(last_db.value, 2, "65538 mod 2^16");
    // Index 65537 is pass 32768 (even, owner 1), which is also what its 16-bit form 0x0001
    // (pass 0) gives: the owner pattern survives the wrap of the 16-bit index.
    let p = SendWqe::parse(&slot(&e, &qp, 65537)).unwrap();
    assert!(p.owner);
    assert_eq!(p.wr_id, 65537);
}
