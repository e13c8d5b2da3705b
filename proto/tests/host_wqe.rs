//! Send and receive WQE layouts: round trips, exact byte positions, length checks.

use ferroce_proto::host::wqe::*;
use ferroce_proto::host::Error;
use proptest::prelude::*;

fn sge() -> impl Strategy<Value = Sge> {
    (any::<u64>(), any::<u32>(), any::<u32>()).prop_map(|(addr, length, lkey)| Sge {
        addr,
        length,
        lkey,
    })
}

fn remote() -> impl Strategy<Value = Remote> {
    (any::<u64>(), any::<u32>()).prop_map(|(va, rkey)| Remote { va, rkey })
}

fn send_op() -> impl Strategy<Value = SendOp> {
    prop_oneof![
        Just(SendOp::Send),
        any::<u32>().prop_map(|imm| SendOp::SendImm { imm }),
        any::<u32>().prop_map(|rkey| SendOp::SendInv { rkey }),
        remote().prop_map(|remote| SendOp::Write { remote }),
        (remote(), any::<u32>()).prop_map(|(remote, imm)| SendOp::WriteImm { remote, imm }),
        remote().prop_map(|remote| SendOp::Read { remote }),
        (remote(), any::<u64>(), any::<u64>()).prop_map(|(remote, compare, swap)| {
            SendOp::CmpSwap {
                remote,
                compare,
                swap,
            }
        }),
        (remote(), any::<u64>()).prop_map(|(remote, add)| SendOp::FetchAdd { remote, add }),
        any::<u32>().prop_map(|key| SendOp::LocalInv { key }),
    ]
}

fn flags() -> impl Strategy<Value = WqeFlags> {
    (0u8..8).prop_map(WqeFlags)
}

/// A send WQE together with the log2 stride of a slot it fits in.
fn send_wqe() -> impl Strategy<Value = (SendWqe, u8)> {
    (6u8..=10).prop_flat_map(|log2| {
        let payload = prop_oneof![
            proptest::collection::vec(sge(), 0..=send_sge_capacity(log2)).prop_map(Payload::Sges),
            proptest::collection::vec(any::<u8>(), 0..=inline_capacity(log2))
                .prop_map(Payload::Inline),
        ];
        (
            any::<bool>(),
            send_op(),
            flags(),
            any::<u64>(),
            any::<u32>(),
            payload,
        )
            .prop_map(move |(owner, op, flags, wr_id, len, payload)| {
                let length = match &payload {
                    Payload::Inline(d) => d.len() as u32,
                    Payload::Sges(_) => len,
                };
                (
                    SendWqe {
                        owner,
                        op,
                        flags,
                        wr_id,
                        length,
                        payload,
                    },
                    log2,
                )
            })
    })
}

fn recv_wqe() -> impl Strategy<Value = (RecvWqe, u8)> {
    (5u8..=10).prop_flat_map(|log2| {
        (
            any::<bool>(),
            any::<u64>(),
            any::<u32>(),
            proptest::collection::vec(sge(), 0..=recv_sge_capacity(log2)),
        )
            .prop_map(move |(owner, wr_id, length, sges)| {
                (
                    RecvWqe {
                        owner,
                        wr_id,
                        length,
                        sges,
                    },
                    log2,
                )
            })
    })
}

proptest! {
    #[test]
    fn send_wqe_round_trips((w, log2) in send_wqe(), fill: u8) {
        let mut slot = vec![fill; 1 << log2];
        w.emit(&mut slot).unwrap();
        prop_assert_eq!(SendWqe::parse(&slot).unwrap(), w.clone());
        // Parsing only needs the bytes the WQE occupies.
        prop_assert_eq!(SendWqe::parse(&slot[..w.buffer_len()]).unwrap(), w);
    }

    #[test]
    fn send_wqe_rejects_short_buffers((w, log2) in send_wqe(), cut in any::<prop::sample::Index>()) {
        let mut slot = vec![0u8; 1 << log2];
        w.emit(&mut slot).unwrap();
        let short = cut.index(w.buffer_len());
        match SendWqe::parse(&slot[..short]) {
            Err(Error::Truncated { needed, available }) => {
                prop_assert_eq!(available, short);
                prop_assert!(needed > short && needed <= w.buffer_len());
            }
            other => prop_assert!(false, "expected Truncated, got {:?}", other),
        }
        // Emitting into a buffer that is too small fails without writing past it.
        let mut small = vec![0u8; short];
        let r = w.emit(&mut small);
        let ok = matches!(r, Err(Error::Truncated { .. }) | Err(Error::TooLarge { .. }));
        prop_assert!(ok, "emit into {} bytes: {:?}", short, r);
    }

    #[test]
    fn recv_wqe_round_trips((w, log2) in recv_wqe(), fill: u8) {
        let mut slot = vec![fill; 1 << log2];
        w.emit(&mut slot).unwrap();
        prop_assert_eq!(RecvWqe::parse(&slot).unwrap(), w.clone());
        prop_assert_eq!(RecvWqe::parse(&slot[..w.buffer_len()]).unwrap(), w);
    }

    #[test]
    fn recv_wqe_rejects_short_buffers((w, log2) in recv_wqe(), cut in any::<prop::sample::Index>()) {
        let mut slot = vec![0u8; 1 << log2];
        w.emit(&mut slot).unwrap();
        let short = cut.index(w.buffer_len());
        let r = RecvWqe::parse(&slot[..short]);
        let ok = matches!(r, Err(Error::Truncated { .. }));
        prop_assert!(ok, "parse of {} bytes: {:?}", short, r);
    }

    #[test]
    fn sge_round_trips(s in sge()) {
        let mut b = [0u8; SGE_LEN];
        s.emit(&mut b).unwrap();
        prop_assert_eq!(Sge::parse(&b).unwrap(), s);
        prop_assert_eq!(Sge::parse(&b[..SGE_LEN - 1]), Err(Error::Truncated { needed: SGE_LEN, available: SGE_LEN - 1 }));
    }
}

#[test]
fn capacities() {
    assert_eq!([6, 7, 8, 9, 10].map(send_sge_capacity), [1, 5, 13, 29, 61]);
    assert_eq!(
        [5, 6, 7, 8, 9, 10].map(recv_sge_capacity),
        [1, 3, 7, 15, 31, 63]
    );
    assert_eq!(inline_capacity(6), 16);
}

#[test]
fn too_many_sges_for_the_slot() {
    let w = SendWqe::new(
        true,
        SendOp::Send,
        WqeFlags::SIGNALED,
        1,
        vec![Sge::default(); 2],
    );
    let mut slot = [0u8; 64];
    assert_eq!(
        w.emit(&mut slot),
        Err(Error::TooLarge {
            field: "SGEs",
            count: 2,
            capacity: 1
        })
    );
    let r = RecvWqe::new(true, 1, vec![Sge::default(); 2]);
    let mut slot = [0u8; 32];
    assert_eq!(
        r.emit(&mut slot),
        Err(Error::TooLarge {
            field: "SGEs",
            count: 2,
            capacity: 1
        })
    );
}

/// Byte positions, checked against the layout table in the module documentation.
#[test]
fn send_wqe_layout_bytes() {
    let w = SendWqe::new(
        true,
        SendOp::WriteImm {
            remote: Remote {
                va: 0x1122_3344_5566_7788,
                rkey: 0xAABB_CCDD,
            },
            imm: 0xDEAD_BEEF,
        },
        WqeFlags::SIGNALED | WqeFlags::SOLICITED,
        0x0102_0304_0506_0708,
        vec![Sge {
            addr: 0x7F00_0000_1000,
            length: 16,
            lkey: 0x0000_0105,
        }],
    );
    let mut b = [0xEEu8; 64];
    w.emit(&mut b).unwrap();
    assert_eq!(b[0], 1); // owner
    assert_eq!(b[1], 1); // IBV_WR_RDMA_WRITE_WITH_IMM
    assert_eq!(b[2], 3); // SIGNALED | SOLICITED
    assert_eq!(b[3], 1); // num_sge
    assert_eq!(&b[4..8], &16u32.to_le_bytes());
    assert_eq!(&b[8..16], &0x0102_0304_0506_0708u64.to_le_bytes());
    assert_eq!(&b[16..20], &[0xDE, 0xAD, 0xBE, 0xEF]); // immediate in wire order
    assert_eq!(&b[20..24], &0xAABB_CCDDu32.to_le_bytes());
    assert_eq!(&b[24..32], &0x1122_3344_5566_7788u64.to_le_bytes());
    assert_eq!(&b[32..48], &[0u8; 16]); // atomic operands unused: zero
    assert_eq!(&b[48..56], &0x7F00_0000_1000u64.to_le_bytes());
    assert_eq!(&b[56..60], &16u32.to_le_bytes());
    assert_eq!(&b[60..64], &0x105u32.to_le_bytes());
}

#[test]
fn atomic_layout_and_validation() {
    let remote = Remote {
        va: 0x1000,
        rkey: 7,
    };
    let w = SendWqe::new(
        false,
        SendOp::CmpSwap {
            remote,
            compare: 1,
            swap: 2,
        },
        WqeFlags::NONE,
        9,
        vec![Sge {
            addr: 0x2000,
            length: 8,
            lkey: 3,
        }],
    );
    let mut b = [0u8; 64];
    w.emit(&mut b).unwrap();
    assert_eq!(b[1], 5);
    assert_eq!(&b[0x20..0x28], &1u64.to_le_bytes());
    assert_eq!(&b[0x28..0x30], &2u64.to_le_bytes());
    assert_eq!(w.validate(), Ok(()));
    let bad_align = SendWqe {
        op: SendOp::FetchAdd {
            remote: Remote {
                va: 0x1004,
                rkey: 7,
            },
            add: 1,
        },
        ..w.clone()
    };
    assert!(matches!(
        bad_align.validate(),
        Err(Error::InvalidField {
            field: "remote_va",
            ..
        })
    ));
    let two_sges = SendWqe::new(
        false,
        SendOp::FetchAdd { remote, add: 1 },
        WqeFlags::NONE,
        9,
        vec![
            Sge {
                length: 4,
                ..Sge::default()
            };
            2
        ],
    );
    assert!(two_sges.validate().is_err());
}

#[test]
fn validate_length_rules() {
    let mut w = SendWqe::new(
        true,
        SendOp::Send,
        WqeFlags::NONE,
        0,
        vec![
            Sge {
                length: 10,
                ..Sge::default()
            },
            Sge {
                length: 5,
                ..Sge::default()
            },
        ],
    );
    assert_eq!(w.length, 15);
    assert_eq!(w.validate(), Ok(()));
    w.length = 14;
    assert!(w.validate().is_err());
    let inline_read = SendWqe::inline(
        true,
        SendOp::Read {
            remote: Remote::default(),
        },
        WqeFlags::NONE,
        0,
        vec![1, 2],
    );
    assert!(inline_read.validate().is_err());
    let inline_send = SendWqe::inline(true, SendOp::Send, WqeFlags::NONE, 0, vec![1, 2]);
    assert_eq!(inline_send.validate(), Ok(()));
    let r = RecvWqe::new(
        true,
        0,
        vec![Sge {
            length: 4096,
            ..Sge::default()
        }],
    );
    assert_eq!(r.validate(), Ok(()));
    assert!(RecvWqe { length: 1, ..r }.validate().is_err());
}

#[test]
fn parse_rejects_undefined_opcode_and_flags() {
    let mut b = [0u8; 64];
    SendWqe::new(true, SendOp::Send, WqeFlags::NONE, 0, vec![])
        .emit(&mut b)
        .unwrap();
    b[1] = 8; // BIND_MW: reserved
    assert_eq!(
        SendWqe::parse(&b),
        Err(Error::InvalidField {
            field: "opcode",
            value: 8
        })
    );
    b[1] = 2;
    b[2] = 0x10;
    assert_eq!(
        SendWqe::parse(&b),
        Err(Error::InvalidField {
            field: "flags",
            value: 0x10
        })
    );
    b[2] = WqeFlags::INLINE_BIT;
    b[3] = 1;
    assert!(matches!(
        SendWqe::parse(&b),
        Err(Error::Inconsistent { .. })
    ));
}

#[test]
fn opcodes_match_ibverbs() {
    for (op, v) in [
        (SendOpcode::RdmaWrite, 0),
        (SendOpcode::RdmaWriteImm, 1),
        (SendOpcode::Send, 2),
        (SendOpcode::SendImm, 3),
        (SendOpcode::RdmaRead, 4),
        (SendOpcode::AtomicCmpSwap, 5),
        (SendOpcode::AtomicFetchAdd, 6),
        (SendOpcode::LocalInv, 7),
        (SendOpcode::SendInv, 9),
    ] {
        assert_eq!(op as u8, v);
        assert_eq!(SendOpcode::from_u8(v), Some(op));
    }
}
