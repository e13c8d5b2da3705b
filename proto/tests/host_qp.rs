//! QP states, transitions, required attributes and the QP window encoding.

use ferroce_proto::host::config::Gid;
use ferroce_proto::host::qp::*;
use ferroce_proto::host::regs::{self, CmdResult};
use ferroce_proto::host::{Error as HostError, RegWrite};
use proptest::prelude::*;
use std::collections::HashMap;
use QpState::{Error, Init, Reset, Rtr, Rts, Sqd, Sqe};

#[test]
fn state_encodings_match_ibverbs() {
    for (s, v) in [
        (Reset, 0),
        (Init, 1),
        (Rtr, 2),
        (Rts, 3),
        (Sqd, 4),
        (Sqe, 5),
        (Error, 6),
    ] {
        assert_eq!(s as u8, v);
        assert_eq!(QpState::from_u8(v), Some(s));
    }
    assert_eq!(QpState::from_u8(7), None);
    assert!(regs::qp_state::STATE.fits(Error as u32));
}

#[test]
fn transitions() {
    // The full 7x7 matrix, rows = from, columns = to (R I RTR RTS SQD SQE E).
    let expected: [[bool; 7]; 7] = [
        [true, true, false, false, false, false, true], // RESET
        [true, true, true, false, false, false, true],  // INIT
        [true, false, false, true, false, false, true], // RTR
        [true, false, false, true, true, false, true],  // RTS
        [true, false, false, true, true, false, true],  // SQD
        [true, false, false, false, false, false, true], // SQE (not reachable for RC)
        [true, false, false, false, false, false, true], // ERR
    ];
    for (i, from) in QpState::ALL.iter().enumerate() {
        for (j, to) in QpState::ALL.iter().enumerate() {
            assert_eq!(
                transition_allowed(*from, *to),
                expected[i][j],
                "{from:?} -> {to:?}"
            );
            assert_eq!(
                transition_attrs(*from, *to).is_some(),
                expected[i][j],
                "{from:?} -> {to:?}"
            );
        }
    }
}

/// IBTA Vol 1, 10.3 / docs/PROTOCOL.md §9: the attributes each step of RESET -> INIT -> RTR -> RTS
/// needs.
#[test]
fn required_attributes_follow_roce_md() {
    use QpAttrMask as M;
    let r = |a, b| transition_attrs(a, b).unwrap().required;
    assert_eq!(
        r(Reset, Init),
        M::PKEY_INDEX | M::PORT | M::ACCESS_FLAGS | M::CREATE
    );
    assert_eq!(
        r(Init, Rtr),
        M::AV | M::PATH_MTU | M::DEST_QPN | M::RQ_PSN | M::MAX_DEST_RD_ATOMIC | M::MIN_RNR_TIMER
    );
    assert_eq!(
        r(Rtr, Rts),
        M::SQ_PSN | M::TIMEOUT | M::RETRY_CNT | M::RNR_RETRY | M::MAX_QP_RD_ATOMIC
    );
    assert_eq!(r(Rts, Error), M::NONE);
    assert_eq!(r(Sqd, Reset), M::NONE);
    // Every listed attribute is one the hardware accepts.
    for from in QpState::ALL {
        for to in QpState::ALL {
            if let Some(t) = transition_attrs(from, to) {
                assert!(
                    QpAttrMask::SUPPORTED.contains(t.required | t.optional),
                    "{from:?}->{to:?}"
                );
                assert_eq!((t.required & t.optional), M::NONE);
            }
        }
    }
}

#[test]
fn check_modify_cases() {
    use QpAttrMask as M;
    let init = M::STATE | M::PKEY_INDEX | M::PORT | M::ACCESS_FLAGS | M::CREATE;
    assert_eq!(check_modify(Reset, init, Init), Ok(Init));
    assert_eq!(
        check_modify(Reset, M::STATE | M::ACCESS_FLAGS, Init),
        Err(ModifyError::Missing(M::PKEY_INDEX | M::PORT | M::CREATE))
    );
    assert_eq!(
        check_modify(Reset, M::STATE, Rts),
        Err(ModifyError::BadTransition {
            from: Reset,
            to: Rts
        })
    );
    assert_eq!(
        check_modify(Init, init, Init),
        Err(ModifyError::NotAllowed(M::CREATE))
    );
    assert_eq!(
        check_modify(Rts, M::STATE | M::ALT_PATH, Rts),
        Err(ModifyError::Unsupported(M::ALT_PATH))
    );
    assert_eq!(
        check_modify(Rts, M::QKEY, Rts).unwrap_err().result(),
        CmdResult::Unsupported
    );
    // No STATE: attribute change in the current state.
    assert_eq!(check_modify(Rts, M::MIN_RNR_TIMER, Reset), Ok(Rts));
    assert_eq!(
        check_modify(Rtr, M::MIN_RNR_TIMER, Reset),
        Err(ModifyError::BadTransition { from: Rtr, to: Rtr })
    );
    // Anything may go to ERR or RESET with no attributes.
    for s in QpState::ALL {
        assert_eq!(check_modify(s, M::STATE, Error), Ok(Error));
        assert_eq!(check_modify(s, M::STATE, Reset), Ok(Reset));
    }
}

#[test]
fn access_flags() {
    use AccessFlags as A;
    assert_eq!(
        [
            A::LOCAL_WRITE.0,
            A::REMOTE_WRITE.0,
            A::REMOTE_READ.0,
            A::REMOTE_ATOMIC.0
        ],
        [1, 2, 4, 8]
    );
    assert!(A::REMOTE_READ.is_valid_for_mr());
    assert!(!A::REMOTE_WRITE.is_valid_for_mr());
    assert!(!A::REMOTE_ATOMIC.is_valid_for_mr());
    assert!((A::REMOTE_WRITE | A::LOCAL_WRITE).is_valid_for_mr());
    assert!(!(A::MW_BIND).is_supported());
    assert!((A::LOCAL_WRITE | A::REMOTE_ANY).is_supported());
}

#[test]
fn pmtu() {
    assert_eq!([Pmtu::Mtu256, Pmtu::Mtu4096].map(Pmtu::bytes), [256, 4096]);
    for v in 1..=5 {
        let p = Pmtu::from_ibv_enum(v).unwrap();
        assert_eq!(Pmtu::from_bytes(p.bytes()), Some(p));
        assert!(regs::qp_mtu_rd::PATH_MTU.fits(p.ibv_enum() as u32));
    }
}

fn state() -> impl Strategy<Value = QpState> {
    prop::sample::select(QpState::ALL.to_vec())
}

fn attr() -> impl Strategy<Value = QpAttr> {
    let av = (
        any::<[u8; 6]>(),
        any::<[u8; 16]>(),
        0u8..16,
        any::<u8>(),
        any::<bool>(),
        any::<u8>(),
        0u32..1 << 20,
        any::<u16>(),
    )
        .prop_map(
            |(
                dmac,
                dgid,
                sgid_index,
                traffic_class,
                use_default_dscp,
                hop_limit,
                flow_label,
                udp_sport,
            )| AddressVector {
                dmac,
                dgid: Gid(dgid),
                sgid_index,
                traffic_class,
                use_default_dscp,
                hop_limit,
                flow_label,
                udp_sport,
            },
        );
    let create = (
        0u32..1 << 24,
        any::<u64>(),
        1u8..=15,
        6u8..=10,
        any::<u64>(),
        1u8..=15,
        5u8..=10,
        any::<u16>(),
        any::<u16>(),
        0u8..=15,
    )
        .prop_map(
            |(pd, sq, sqe, sqs, rq, rqe, rqs, send_cqn, recv_cqn, win)| QpCreate {
                pd,
                sq_base: sq & !0xFFF,
                sq_log2_entries: sqe,
                sq_log2_stride: sqs,
                rq_base: rq & !0xFFF,
                rq_log2_entries: rqe,
                rq_log2_stride: rqs,
                send_cqn,
                recv_cqn,
                sq_log2_psn_window: win,
            },
        );
    let timers = (0u8..32, 0u8..8, 0u8..8, 0u8..32);
    let psns = (0u32..1 << 24, 0u32..1 << 24, 0u32..1 << 24);
    (
        state(),
        state(),
        any::<bool>(),
        0u32..16,
        av,
        1u8..=5,
        timers,
        psns,
        any::<u8>(),
        any::<u8>(),
        create,
    )
        .prop_map(
            |(
                state,
                cur_state,
                en_sqd_async_notify,
                access,
                av,
                mtu,
                (timeout, retry_cnt, rnr_retry, min_rnr_timer),
                (rq_psn, sq_psn, dest_qpn),
                max_rd_atomic,
                max_dest_rd_atomic,
                create,
            )| {
                QpAttr {
                    state,
                    cur_state,
                    en_sqd_async_notify,
                    access: AccessFlags(access),
                    pkey_index: 0,
                    port: 1,
                    av,
                    path_mtu: Pmtu::from_ibv_enum(mtu).unwrap(),
                    timeout,
                    retry_cnt,
                    rnr_retry,
                    min_rnr_timer,
                    rq_psn,
                    sq_psn,
                    max_rd_atomic,
                    max_dest_rd_atomic,
                    dest_qpn,
                    create,
                }
            },
        )
}

fn apply(writes: &[RegWrite]) -> HashMap<u32, u32> {
    writes.iter().map(|w| (w.offset, w.value)).collect()
}

proptest! {
    /// Every attribute survives staging into the window and decoding back.
    #[test]
    fn attr_round_trips_through_window(a in attr()) {
        let regs_written = apply(&a.staging_writes(QpAttrMask::SUPPORTED).unwrap());
        let back = QpAttr::from_window(|o| regs_written.get(&o).copied().unwrap_or(0)).unwrap();
        prop_assert_eq!(back, a);
    }

    /// Only window registers are written, each once, and a mask writes only what it names.
    #[test]
    fn staging_writes_stay_in_the_window(a in attr(), mask in any::<u32>()) {
        let mask = QpAttrMask(mask) & QpAttrMask::SUPPORTED;
        let w = a.staging_writes(mask).unwrap();
        let mut seen = std::collections::HashSet::new();
        for r in &w {
            prop_assert!(seen.insert(r.offset));
            let (info, _) = regs::decode(r.offset).unwrap();
            prop_assert!(info.name.starts_with("QP_") && info.access == regs::Access::RW, "{}", info.name);
        }
        if !mask.intersects(QpAttrMask::CREATE) {
            prop_assert!(!seen.contains(&regs::QP_SQ_BASE_LO));
        }
        if !mask.intersects(QpAttrMask::AV) {
            prop_assert!(!seen.contains(&regs::QP_AV_DGID0));
        }
    }

    #[test]
    fn modify_sequence_shape(a in attr(), qpn in 0u32..regs::MAX_QPS) {
        let mask = QpAttrMask::STATE | QpAttrMask::SQ_PSN;
        let w = a.modify_writes(qpn, mask).unwrap();
        prop_assert_eq!(w[0], RegWrite::new(regs::QP_CMD_QPN, qpn));
        prop_assert_eq!(w[1], RegWrite::new(regs::QP_ATTR_MASK, mask.0));
        prop_assert_eq!(*w.last().unwrap(), RegWrite::new(regs::QP_CMD, regs::qp_cmd::MODIFY));
        prop_assert_eq!(w.len(), 5);
    }
}

#[test]
fn staging_rejects_out_of_range_values() {
    let a = QpAttr::default();
    let bad = |f: fn(&mut QpAttr), mask: QpAttrMask| {
        let mut x = a;
        f(&mut x);
        x.staging_writes(mask)
    };
    assert!(matches!(
        bad(|x| x.sq_psn = 1 << 24, QpAttrMask::SQ_PSN),
        Err(HostError::InvalidField {
            field: "sq_psn",
            ..
        })
    ));
    assert!(matches!(
        bad(|x| x.timeout = 32, QpAttrMask::TIMEOUT),
        Err(HostError::InvalidField {
            field: "timeout",
            ..
        })
    ));
    assert!(matches!(
        bad(|x| x.retry_cnt = 8, QpAttrMask::RETRY_CNT),
        Err(HostError::InvalidField {
            field: "retry_cnt",
            ..
        })
    ));
    assert!(matches!(
        bad(|x| x.av.flow_label = 1 << 20, QpAttrMask::AV),
        Err(HostError::InvalidField {
            field: "flow_label",
            ..
        })
    ));
    assert!(matches!(
        bad(|x| x.port = 2, QpAttrMask::PORT),
        Err(HostError::InvalidField { field: "port", .. })
    ));
    assert!(matches!(
        bad(|x| x.create.sq_base = 0x1020, QpAttrMask::CREATE),
        Err(HostError::InvalidField {
            field: "sq_base",
            ..
        })
    ));
    assert!(matches!(
        bad(|x| x.create.sq_log2_stride = 5, QpAttrMask::CREATE),
        Err(HostError::InvalidField {
            field: "log2_stride",
            ..
        })
    ));
    assert!(matches!(
        bad(|x| x.create.rq_log2_entries = 16, QpAttrMask::CREATE),
        Err(HostError::InvalidField {
            field: "log2_entries",
            ..
        })
    ));
    // Out-of-range values outside the mask are not looked at.
    assert!(bad(|x| x.sq_psn = 1 << 24, QpAttrMask::RQ_PSN).is_ok());
}

#[test]
fn query_decodes_indices_and_errors() {
    let a = QpAttr {
        state: Rts,
        cur_state: Rts,
        ..QpAttr::default()
    };
    let mut m = apply(&a.staging_writes(QpAttrMask::SUPPORTED).unwrap());
    m.insert(regs::QP_SQ_INDEX, 0x0003_0007);
    m.insert(regs::QP_RQ_INDEX, 0x0010_0011);
    m.insert(regs::QP_ERR_INFO, 0x0C0A);
    *m.get_mut(&regs::QP_STATE).unwrap() |= regs::qp_state::SQ_DRAINED.mask();
    let q = QpQuery::from_window(|o| m.get(&o).copied().unwrap_or(0)).unwrap();
    assert_eq!(
        (q.sq_producer, q.sq_consumer, q.rq_producer, q.rq_consumer),
        (7, 3, 0x11, 0x10)
    );
    assert_eq!((q.err_status, q.err_vendor), (12, 10));
    assert!(q.sq_drained);
    assert_eq!(q.attr, a);
    assert_eq!(
        QpQuery::writes(9),
        [
            RegWrite::new(regs::QP_CMD_QPN, 9),
            RegWrite::new(regs::QP_CMD, regs::qp_cmd::QUERY)
        ]
    );
}

/// A QP still in RESET/INIT has no path MTU programmed (the window reads 0): querying it works
/// and reports the default, while a nonsense encoding is still refused.
#[test]
fn query_before_rtr_reports_the_default_path_mtu() {
    use ferroce_proto::host::qp::QpAttr;
    use ferroce_proto::host::regs;
    let attr = QpAttr::from_window(|_| 0).expect("an all-zero window is a RESET QP");
    assert_eq!(attr.path_mtu, QpAttr::default().path_mtu);
    let bad = QpAttr::from_window(|off| if off == regs::QP_MTU_RD { 0xF } else { 0 });
    assert!(bad.is_err());
}
