//! Every misuse path returns a typed error and changes nothing.

use std::sync::Arc;

use ferroce_driver::backend::fake::{FakeDevice, FakeIdentity};
use ferroce_driver::{
    AccessFlags, Error, Pmtu, QpAttr, QpAttrMask, QpCapabilities, QpInitAttr, QpState, Queue,
    RecvWr, Remote, SendOp, SendWr, Sge, WqeFlags,
};
use ferroce_proto::host::mr;
use ferroce_proto::host::regs::{caps, id_qp_limits};

use super::{connect, env, env_with, rtr, Env};

fn rts_qp(e: &Env) -> ferroce_driver::QueuePair {
    let qp = e.qp(QpCapabilities {
        max_send_wr: 4,
        max_recv_wr: 2,
        max_send_sge: 1,
        max_recv_sge: 1,
        max_inline_data: 0,
        max_unacked_psns: 1024,
    });
    connect(&qp);
    qp
}

#[test]
fn state_transitions_are_checked_before_any_write() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    let attr = |state| QpAttr {
        state,
        ..QpAttr::default()
    };
    let check = |r: ferroce_driver::Result<()>, expect: &dyn Fn(&Error) -> bool| {
        let err = r.unwrap_err();
        assert!(expect(&err), "{err:?}");
        assert!(e.nic.writes().is_empty(), "nothing written for {err:?}");
    };
    check(qp.modify(&attr(QpState::Rtr), QpAttrMask::STATE), &|e| {
        matches!(
            e,
            Error::BadTransition {
                from: QpState::Reset,
                to: QpState::Rtr
            }
        )
    });
    check(
        qp.modify(
            &attr(QpState::Init),
            QpAttrMask::STATE | QpAttrMask::ACCESS_FLAGS,
        ),
        &|e| matches!(e, Error::MissingAttributes(m) if *m == QpAttrMask::PKEY_INDEX | QpAttrMask::PORT),
    );
    check(
        qp.modify(
            &attr(QpState::Init),
            QpAttrMask::STATE
                | QpAttrMask::PKEY_INDEX
                | QpAttrMask::PORT
                | QpAttrMask::ACCESS_FLAGS
                | QpAttrMask::ALT_PATH,
        ),
        &|e| matches!(e, Error::UnsupportedAttributes(m) if *m == QpAttrMask::ALT_PATH),
    );
    check(
        qp.modify(&attr(QpState::Init), QpAttrMask::STATE | QpAttrMask::CREATE),
        &|e| matches!(e, Error::InvalidArgument(_)),
    );
    qp.to_init(AccessFlags::NONE).unwrap();
    e.nic.clear_log();
    // INIT -> RTR does not take SQ_PSN.
    let mut a = attr(QpState::Rtr);
    let r = rtr();
    a.av = r.av;
    let rtr_mask = QpAttrMask::STATE
        | QpAttrMask::AV
        | QpAttrMask::PATH_MTU
        | QpAttrMask::DEST_QPN
        | QpAttrMask::RQ_PSN
        | QpAttrMask::MAX_DEST_RD_ATOMIC
        | QpAttrMask::MIN_RNR_TIMER;
    check(
        qp.modify(&a, rtr_mask | QpAttrMask::SQ_PSN),
        &|e| matches!(e, Error::AttributeNotAllowed(m) if *m == QpAttrMask::SQ_PSN),
    );
    // Values that do not fit their fields.
    let mut bad = a;
    bad.rq_psn = 1 << 24;
    check(qp.modify(&bad, rtr_mask), &|e| {
        matches!(e, Error::InvalidAttribute(_))
    });
    // Values above the device's limits.
    let mut big = a;
    big.max_dest_rd_atomic = 17;
    check(qp.modify(&big, rtr_mask), &|e| {
        matches!(
            e,
            Error::ExceedsDeviceLimit {
                attr: "max_dest_rd_atomic",
                value: 17,
                max: 16
            }
        )
    });
    let mut gid = a;
    gid.av.sgid_index = 16;
    check(qp.modify(&gid, rtr_mask), &|e| {
        matches!(
            e,
            Error::ExceedsDeviceLimit {
                attr: "sgid_index",
                ..
            }
        )
    });
    let mut acc = attr(QpState::Init);
    acc.access = AccessFlags(0x40);
    check(qp.modify(&acc, QpAttrMask::ACCESS_FLAGS), &|e| {
        matches!(e, Error::InvalidAccess(_))
    });
    assert_eq!(qp.state(), QpState::Init);
    // Any state may go to ERR and RESET.
    qp.to_error().unwrap();
    qp.to_reset().unwrap();
    assert_eq!(qp.state(), QpState::Reset);
}

#[test]
fn path_mtu_above_the_device_maximum() {
    let id = FakeIdentity {
        qp_limits: id_qp_limits::MAX_PMTU.place(3) | id_qp_limits::MAX_SGE.place(4),
        ..FakeIdentity::default()
    };
    let e = env_with(FakeDevice::with_identity(id));
    let qp = e.qp(QpCapabilities::default());
    qp.to_init(AccessFlags::NONE).unwrap();
    let mut r = rtr();
    r.path_mtu = Pmtu::Mtu4096;
    r.max_dest_rd_atomic = 0;
    assert!(matches!(
        qp.to_rtr(&r),
        Err(Error::ExceedsDeviceLimit {
            attr: "path_mtu",
            value: 4096,
            max: 1024
        })
    ));
}

#[test]
fn posting_in_the_wrong_state() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    let sge = e.mr.sge(0, 8).unwrap();
    assert!(matches!(
        qp.post_recv(&[RecvWr::new(1, vec![sge])]),
        Err(Error::InvalidState {
            state: QpState::Reset,
            ..
        })
    ));
    qp.to_init(AccessFlags::NONE).unwrap();
    assert!(matches!(
        qp.post_send(&[SendWr::send(1, vec![sge])]),
        Err(Error::InvalidState {
            state: QpState::Init,
            ..
        })
    ));
    qp.to_rtr(&rtr()).unwrap();
    assert!(matches!(
        qp.post_send(&[SendWr::send(1, vec![sge])]),
        Err(Error::InvalidState {
            state: QpState::Rtr,
            ..
        })
    ));
    assert!(
        e.nic.writes().iter().all(|w| w.offset < 0x10_0000),
        "no doorbell"
    );
}

#[test]
fn full_queues() {
    let e = env();
    let qp = rts_qp(&e);
    let sge = e.mr.sge(0, 8).unwrap();
    let five: Vec<SendWr> = (0..5).map(|i| SendWr::send(i, vec![sge])).collect();
    assert!(matches!(
        qp.post_send(&five),
        Err(Error::QueueFull {
            queue: Queue::Send,
            ..
        })
    ));
    assert_eq!(qp.outstanding_sends(), 0, "all or nothing");
    qp.post_send(&five[..4]).unwrap();
    assert!(matches!(
        qp.post_send(&five[..1]),
        Err(Error::QueueFull {
            queue: Queue::Send,
            ..
        })
    ));
    qp.post_recv(&[RecvWr::new(1, vec![sge]), RecvWr::new(2, vec![sge])])
        .unwrap();
    assert!(matches!(
        qp.post_recv(&[RecvWr::new(3, vec![sge])]),
        Err(Error::QueueFull {
            queue: Queue::Recv,
            ..
        })
    ));
}

#[test]
fn sges_must_lie_in_a_memory_region_of_the_qp_pd() {
    let e = env();
    let qp = rts_qp(&e);
    let send = |sge: Sge| qp.post_send(&[SendWr::send(1, vec![sge])]);
    // No MR with this key.
    let unknown = Sge {
        addr: e.mr.va(),
        length: 8,
        lkey: mr::make_key(40, 0),
    };
    assert!(matches!(send(unknown), Err(Error::UnknownKey { .. })));
    // Right index, stale key byte.
    let stale = Sge {
        lkey: e.mr.lkey() ^ 1,
        ..e.mr.sge(0, 8).unwrap()
    };
    assert!(matches!(send(stale), Err(Error::UnknownKey { .. })));
    // Outside the region.
    let end = Sge {
        addr: e.mr.addr(e.mr.len() - 4),
        length: 8,
        lkey: e.mr.lkey(),
    };
    assert!(matches!(send(end), Err(Error::SgeOutOfRange { .. })));
    let before = Sge {
        addr: e.mr.va() - 1,
        length: 1,
        lkey: e.mr.lkey(),
    };
    assert!(matches!(send(before), Err(Error::SgeOutOfRange { .. })));
    assert!(matches!(
        e.mr.sge(e.mr.len(), 1),
        Err(Error::SgeOutOfRange { .. })
    ));
    // An MR of another PD.
    let pd2 = e.dev.alloc_pd().unwrap();
    let other = pd2
        .register(e.buf.clone(), AccessFlags::LOCAL_WRITE)
        .unwrap();
    let err = send(other.sge(0, 8).unwrap()).unwrap_err();
    assert!(
        matches!(err, Error::WrongPd { mr_pd, qp_pd, .. } if mr_pd == pd2.pdn() && qp_pd == e.pd.pdn()),
        "{err:?}"
    );
    // Receives and READ responses need LOCAL_WRITE.
    let ro =
        e.pd.register(e.buf.clone(), AccessFlags::REMOTE_READ)
            .unwrap();
    let sge = ro.sge(0, 8).unwrap();
    assert!(matches!(
        qp.post_recv(&[RecvWr::new(1, vec![sge])]),
        Err(Error::AccessDenied {
            needed: AccessFlags::LOCAL_WRITE,
            ..
        })
    ));
    let remote = Remote {
        va: 0x1000,
        rkey: 5,
    };
    assert!(matches!(
        qp.post_send(&[SendWr::read(1, remote, vec![sge])]),
        Err(Error::AccessDenied { .. })
    ));
    // ... but a gather does not.
    send(sge).unwrap();
    // A deregistered region's key is gone.
    let gone = other.sge(0, 8).unwrap();
    drop(other);
    assert!(matches!(send(gone), Err(Error::UnknownKey { .. })));
}

#[test]
fn work_request_shape() {
    let e = env();
    let qp = rts_qp(&e);
    let sge = e.mr.sge(0, 8).unwrap();
    let remote = Remote {
        va: 0x1000,
        rkey: 5,
    };
    assert!(matches!(
        qp.post_send(&[SendWr::send(1, vec![sge, sge])]),
        Err(Error::TooManySges { count: 2, max: 1 })
    ));
    assert!(matches!(
        qp.post_recv(&[RecvWr::new(1, vec![sge, sge])]),
        Err(Error::TooManySges { count: 2, max: 1 })
    ));
    let huge = Sge {
        length: 1 << 31,
        ..sge
    };
    let qp2 = e.qp(QpCapabilities {
        max_send_sge: 2,
        ..QpCapabilities::default()
    });
    connect(&qp2);
    assert!(matches!(
        qp2.post_send(&[SendWr::send(1, vec![huge, sge])]),
        Err(Error::MessageTooLong { .. })
    ));
    // Atomics: one 8-byte SGE and an 8-byte aligned remote VA.
    let eight = e.mr.sge(64, 8).unwrap();
    assert!(matches!(
        qp.post_send(&[SendWr::fetch_add(
            1,
            Remote {
                va: 0x1004,
                rkey: 5
            },
            1,
            eight
        )]),
        Err(Error::InvalidWorkRequest(_))
    ));
    assert!(matches!(
        qp.post_send(&[SendWr::cmp_swap(1, remote, 1, 2, sge_len(eight, 4))]),
        Err(Error::InvalidWorkRequest(_))
    ));
    // READ cannot be inline; inline needs room.
    let qpi = e.qp(QpCapabilities {
        max_inline_data: 16,
        ..QpCapabilities::default()
    });
    connect(&qpi);
    let max = qpi.caps().max_inline_data as usize;
    assert!(matches!(
        qpi.post_send(&[SendWr::new(1, SendOp::Send).with_inline(vec![0; max + 1])]),
        Err(Error::InlineTooLarge { .. })
    ));
    assert!(matches!(
        qpi.post_send(&[SendWr::new(1, SendOp::Read { remote }).with_inline(vec![0; 4])]),
        Err(Error::InvalidWorkRequest(_))
    ));
    // Undefined flag bits (INLINE is not a flag the caller sets).
    let mut wr = SendWr::send(1, vec![sge]);
    wr.flags = WqeFlags(WqeFlags::INLINE_BIT);
    assert!(matches!(
        qp.post_send(&[wr]),
        Err(Error::InvalidArgument(_))
    ));
    // A batch with one bad request posts nothing.
    assert!(qp
        .post_send(&[SendWr::send(1, vec![sge]), SendWr::send(2, vec![sge, sge])])
        .is_err());
    assert_eq!(qp.outstanding_sends(), 0);
}

fn sge_len(s: Sge, length: u32) -> Sge {
    Sge { length, ..s }
}

#[test]
fn capabilities_are_respected() {
    let id = FakeIdentity {
        caps: caps::IPV4,
        ..FakeIdentity::default()
    };
    let e = env_with(FakeDevice::with_identity(id));
    let init = |cap| {
        e.pd.create_qp(&QpInitAttr {
            send_cq: &e.cq,
            recv_cq: &e.cq,
            cap,
            sq_sig_all: false,
        })
    };
    assert!(matches!(
        init(QpCapabilities {
            max_inline_data: 8,
            ..QpCapabilities::default()
        }),
        Err(Error::Unsupported(_))
    ));
    let qp = init(QpCapabilities::default()).unwrap();
    assert!(matches!(
        qp.to_init(AccessFlags::REMOTE_ATOMIC),
        Err(Error::Unsupported(_))
    ));
    connect_plain(&qp);
    let eight = e.mr.sge(0, 8).unwrap();
    let remote = Remote {
        va: 0x1000,
        rkey: 5,
    };
    assert!(matches!(
        qp.post_send(&[SendWr::fetch_add(1, remote, 1, eight)]),
        Err(Error::Unsupported("atomics"))
    ));
    assert!(matches!(
        qp.post_send(&[SendWr::read(1, remote, vec![eight])]),
        Err(Error::Unsupported("RDMA READ"))
    ));
    assert!(matches!(
        qp.post_send(&[SendWr::new(1, SendOp::LocalInv { key: 5 })]),
        Err(Error::Unsupported("LOCAL_INV"))
    ));
}

fn connect_plain(qp: &ferroce_driver::QueuePair) {
    qp.to_init(AccessFlags::REMOTE_WRITE).unwrap();
    qp.to_rtr(&rtr()).unwrap();
    qp.to_rts(&super::rts()).unwrap();
}

#[test]
fn queue_pair_creation_limits() {
    let e = env();
    let init = |cap| {
        e.pd.create_qp(&QpInitAttr {
            send_cq: &e.cq,
            recv_cq: &e.cq,
            cap,
            sq_sig_all: false,
        })
    };
    assert!(matches!(
        init(QpCapabilities {
            max_send_sge: 17,
            ..QpCapabilities::default()
        }),
        Err(Error::ExceedsDeviceLimit {
            attr: "max_send_sge",
            ..
        })
    ));
    assert!(matches!(
        init(QpCapabilities {
            max_recv_wr: 8193,
            ..QpCapabilities::default()
        }),
        Err(Error::ExceedsDeviceLimit {
            attr: "max_recv_wr",
            ..
        })
    ));
    assert!(matches!(
        init(QpCapabilities {
            max_inline_data: 2000,
            ..QpCapabilities::default()
        }),
        Err(Error::ExceedsDeviceLimit {
            attr: "send WQE size",
            ..
        })
    ));
    // The send window in PSNs: at least one, at most 32768 (QP_RING_CFG 31:28), rounded
    // up to a power of two.
    assert!(matches!(
        init(QpCapabilities {
            max_unacked_psns: 0,
            ..QpCapabilities::default()
        }),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        init(QpCapabilities {
            max_unacked_psns: 32769,
            ..QpCapabilities::default()
        }),
        Err(Error::ExceedsDeviceLimit {
            attr: "max_unacked_psns",
            value: 32769,
            max: 32768
        })
    ));
    for (asked, got) in [(1, 1), (100, 128), (128, 128), (32768, 32768)] {
        let qp = init(QpCapabilities {
            max_unacked_psns: asked,
            ..QpCapabilities::default()
        })
        .unwrap();
        assert_eq!(qp.caps().max_unacked_psns, got, "asked {asked}");
    }
    assert_eq!(QpCapabilities::default().max_unacked_psns, 1024);
    // Objects of two devices do not mix.
    let other = ferroce_driver::Device::open(FakeDevice::new()).unwrap();
    let foreign_cq = other.create_cq(4, 0).unwrap();
    assert!(matches!(
        e.pd.create_qp(&QpInitAttr {
            send_cq: &foreign_cq,
            recv_cq: &e.cq,
            cap: QpCapabilities::default(),
            sq_sig_all: false
        }),
        Err(Error::WrongDevice)
    ));
}

#[test]
fn memory_region_arguments() {
    let e = env();
    let b = e.buf.clone();
    assert!(matches!(
        e.pd.register(b.clone(), AccessFlags::REMOTE_WRITE),
        Err(Error::InvalidAccess(_))
    ));
    assert!(matches!(
        e.pd.register(b.clone(), AccessFlags::REMOTE_ATOMIC),
        Err(Error::InvalidAccess(_))
    ));
    assert!(matches!(
        e.pd.register(b.clone(), AccessFlags::LOCAL_WRITE | AccessFlags::MW_BIND),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        e.pd.register_range(b.clone(), 65536 - 8, 16, AccessFlags::NONE),
        Err(Error::DmaOutOfBounds { .. })
    ));
    assert!(matches!(
        e.pd.register_range(b, 0, 0, AccessFlags::NONE),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        e.mr.write(65536 - 2, &[0; 4]),
        Err(Error::DmaOutOfBounds { .. })
    ));
    assert!(matches!(
        e.buf.read_u64(65536 - 4),
        Err(Error::DmaOutOfBounds { .. })
    ));
}

#[test]
fn running_out_of_things() {
    let e = env();
    // 16 CQs in the fake, one used by env.
    let cqs: Vec<_> = (0..15).map(|_| e.dev.create_cq(2, 0).unwrap()).collect();
    assert!(matches!(
        e.dev.create_cq(2, 0),
        Err(Error::OutOfResources("completion queues"))
    ));
    drop(cqs);
    e.dev.create_cq(2, 0).unwrap();
    assert!(matches!(
        e.dev.create_cq(2, 9),
        Err(Error::ExceedsDeviceLimit {
            attr: "interrupt vector",
            ..
        })
    ));
    e.nic.set_dma_budget(Some(100));
    assert!(matches!(
        e.dev.create_cq(64, 0),
        Err(Error::DmaAlloc { .. })
    ));
    assert!(matches!(
        e.dev.alloc_dma(0, 64),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        e.dev.alloc_dma(64, 3),
        Err(Error::InvalidArgument(_))
    ));

    let nic = FakeDevice::with_identity(FakeIdentity {
        num_mrs: 2,
        ..FakeIdentity::default()
    });
    let dev = ferroce_driver::Device::open(nic).unwrap();
    let pd = dev.alloc_pd().unwrap();
    let buf = Arc::new(dev.alloc_dma(64, 64).unwrap());
    let _a = pd.register(buf.clone(), AccessFlags::NONE).unwrap();
    let b = pd.register(buf.clone(), AccessFlags::NONE).unwrap();
    assert!(matches!(
        pd.register(buf.clone(), AccessFlags::NONE),
        Err(Error::OutOfResources("memory regions"))
    ));
    let old_key = b.lkey();
    drop(b);
    let c = pd.register(buf, AccessFlags::NONE).unwrap();
    assert_eq!(mr::key_index(c.lkey()), mr::key_index(old_key));
    assert_ne!(c.lkey(), old_key, "a reused index gets a new key byte");
}
