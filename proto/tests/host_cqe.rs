//! CQE layout, status/opcode encodings and the owner/phase protocol.

use ferroce_proto::host::cqe::*;
use ferroce_proto::host::ring::{owner_for, Ring, RingKind};
use ferroce_proto::host::Error;
use proptest::prelude::*;

const OPCODES: [CqeOpcode; 8] = [
    CqeOpcode::Send,
    CqeOpcode::RdmaWrite,
    CqeOpcode::RdmaRead,
    CqeOpcode::CompSwap,
    CqeOpcode::FetchAdd,
    CqeOpcode::LocalInv,
    CqeOpcode::Recv,
    CqeOpcode::RecvRdmaWithImm,
];

const STATUSES: [(WcStatus, u8); 14] = [
    (WcStatus::Success, 0),
    (WcStatus::LocLenErr, 1),
    (WcStatus::LocQpOpErr, 2),
    (WcStatus::LocProtErr, 4),
    (WcStatus::WrFlushErr, 5),
    (WcStatus::BadRespErr, 7),
    (WcStatus::LocAccessErr, 8),
    (WcStatus::RemInvReqErr, 9),
    (WcStatus::RemAccessErr, 10),
    (WcStatus::RemOpErr, 11),
    (WcStatus::RetryExcErr, 12),
    (WcStatus::RnrRetryExcErr, 13),
    (WcStatus::FatalErr, 19),
    (WcStatus::GeneralErr, 21),
];

fn cqe() -> impl Strategy<Value = Cqe> {
    let extra = prop_oneof![
        Just((None, None)),
        any::<u32>().prop_map(|i| (Some(i), None)),
        any::<u32>().prop_map(|k| (None, Some(k))),
    ];
    (
        any::<bool>(),
        0..OPCODES.len(),
        0..STATUSES.len(),
        0u32..1 << 24,
        0u32..1 << 24,
        any::<u64>(),
        any::<u32>(),
        extra,
        any::<bool>(),
        any::<u16>(),
        any::<u8>(),
    )
        .prop_map(
            |(
                owner,
                o,
                s,
                qpn,
                src_qp,
                wr_id,
                byte_len,
                (imm, inv),
                solicited,
                wqe_index,
                vendor_err,
            )| Cqe {
                owner,
                opcode: OPCODES[o],
                status: STATUSES[s].0,
                qpn,
                src_qp,
                wr_id,
                byte_len,
                imm,
                invalidated_rkey: inv,
                solicited,
                wqe_index,
                vendor_err,
            },
        )
}

proptest! {
    #[test]
    fn cqe_round_trips(c in cqe(), fill: u8) {
        let mut b = [fill; CQE_LEN];
        c.emit(&mut b).unwrap();
        prop_assert_eq!(Cqe::parse(&b).unwrap(), c);
        prop_assert_eq!(Cqe::is_new(&b, c.owner), Ok(true));
        prop_assert_eq!(Cqe::is_new(&b, !c.owner), Ok(false));
    }

    #[test]
    fn cqe_rejects_short_buffers(c in cqe(), short in 0usize..CQE_LEN) {
        let mut b = [0u8; CQE_LEN];
        c.emit(&mut b).unwrap();
        prop_assert_eq!(Cqe::parse(&b[..short]), Err(Error::Truncated { needed: CQE_LEN, available: short }));
        let mut small = vec![0u8; short];
        prop_assert_eq!(c.emit(&mut small), Err(Error::Truncated { needed: CQE_LEN, available: short }));
    }

    /// Simulate a CQ over several passes: the reader sees exactly the entries written, in
    /// order, and never a stale one, starting from a zeroed ring.
    #[test]
    fn phase_protocol(log2 in 1u8..5, batches in proptest::collection::vec(0u32..40, 1..20)) {
        let ring = Ring::completion(log2).unwrap();
        let mut mem = vec![0u8; ring.bytes()];
        let (mut pi, mut ci) = (0u32, 0u32);
        for n in batches {
            // The NIC writes up to n entries, never overflowing.
            for _ in 0..n {
                if ring.is_full(pi, ci) { break; }
                let c = Cqe { owner: ring.owner(pi), opcode: CqeOpcode::Send, status: WcStatus::Success, qpn: 2, src_qp: 3,
                    wr_id: pi as u64, byte_len: 0, imm: None, invalidated_rkey: None, solicited: false, wqe_index: 0, vendor_err: 0 };
                let off = ring.slot_offset(pi);
                c.emit(&mut mem[off..off + CQE_LEN]).unwrap();
                pi += 1;
            }
            // The driver polls until the owner bit says "old".
            loop {
                let off = ring.slot_offset(ci);
                if !Cqe::is_new(&mem[off..off + CQE_LEN], ring.owner(ci)).unwrap() { break; }
                prop_assert_eq!(Cqe::parse(&mem[off..off + CQE_LEN]).unwrap().wr_id, ci as u64);
                ci += 1;
            }
            prop_assert_eq!(ci, pi);
        }
    }
}

#[test]
fn owner_bit_is_one_on_the_first_pass() {
    assert!(owner_for(0, 4));
    assert!(owner_for(15, 4));
    assert!(!owner_for(16, 4));
    assert!(owner_for(32, 4));
    // A zeroed slot is never new on pass 0.
    assert_eq!(Cqe::is_new(&[0u8; CQE_LEN], owner_for(0, 4)), Ok(false));
    let r = Ring::new(RingKind::Send, 15, 6).unwrap();
    // Index wrap at 2^16 keeps the parity (log2 entries <= 15).
    assert_eq!(r.owner(0xFFFF), !r.owner(0x1_0000 & r.index_mask()));
}

#[test]
fn owner_is_the_last_byte() {
    let c = Cqe {
        owner: true,
        opcode: CqeOpcode::RecvRdmaWithImm,
        status: WcStatus::RemAccessErr,
        qpn: 0x12_3456,
        src_qp: 0x65_4321,
        wr_id: 0x0102_0304_0506_0708,
        byte_len: 0x1000,
        imm: Some(0xDEAD_BEEF),
        invalidated_rkey: None,
        solicited: true,
        wqe_index: 0xBEEF,
        vendor_err: 5,
    };
    let mut b = [0u8; CQE_LEN];
    c.emit(&mut b).unwrap();
    assert_eq!(&b[0..8], &0x0102_0304_0506_0708u64.to_le_bytes());
    assert_eq!(&b[8..12], &0x1000u32.to_le_bytes());
    assert_eq!(&b[12..16], &[0xDE, 0xAD, 0xBE, 0xEF]);
    assert_eq!(&b[16..20], &0x12_3456u32.to_le_bytes());
    assert_eq!(&b[20..24], &0x65_4321u32.to_le_bytes());
    assert_eq!(&b[24..26], &0xBEEFu16.to_le_bytes());
    assert_eq!(b[26], 5);
    assert_eq!(b[27], flags::WITH_IMM | flags::SOLICITED);
    assert_eq!(b[28], 10);
    assert_eq!(b[29], 129);
    assert_eq!(b[30], 0);
    assert_eq!(b[31], 1);
}

#[test]
fn encodings_match_ibverbs() {
    for (s, v) in STATUSES {
        assert_eq!(s as u8, v);
        assert_eq!(WcStatus::from_u8(v), Some(s));
    }
    for o in OPCODES {
        assert_eq!(CqeOpcode::from_u8(o as u8), Some(o));
        assert_eq!(
            o.is_recv(),
            matches!(o, CqeOpcode::Recv | CqeOpcode::RecvRdmaWithImm)
        );
    }
    assert_eq!(CqeOpcode::Recv as u8, 128);
    assert_eq!(WcStatus::from_u8(3), None); // LOC_EEC_OP_ERR: not used by RC
}

#[test]
fn parse_rejects_bad_fields() {
    let mut b = [0u8; CQE_LEN];
    b[field::OPCODE] = 5;
    assert_eq!(
        Cqe::parse(&b),
        Err(Error::InvalidField {
            field: "opcode",
            value: 5
        })
    );
    b[field::OPCODE] = 0;
    b[field::STATUS] = 6;
    assert_eq!(
        Cqe::parse(&b),
        Err(Error::InvalidField {
            field: "status",
            value: 6
        })
    );
    b[field::STATUS] = 0;
    b[field::FLAGS] = flags::WITH_IMM | flags::WITH_INV;
    assert!(matches!(Cqe::parse(&b), Err(Error::Inconsistent { .. })));
    b[field::FLAGS] = 0x80;
    assert!(matches!(
        Cqe::parse(&b),
        Err(Error::InvalidField { field: "flags", .. })
    ));
}

#[test]
fn nak_statuses() {
    use ferroce_proto::syndrome::NakCode;
    assert_eq!(WcStatus::for_nak(NakCode::PsnSequenceError), None);
    assert_eq!(
        WcStatus::for_nak(NakCode::InvalidRequest),
        Some(WcStatus::RemInvReqErr)
    );
    assert_eq!(
        WcStatus::for_nak(NakCode::RemoteAccessError),
        Some(WcStatus::RemAccessErr)
    );
    assert_eq!(
        WcStatus::for_nak(NakCode::RemoteOperationalError),
        Some(WcStatus::RemOpErr)
    );
    assert_eq!(
        WcStatus::for_nak(NakCode::Reserved(9)),
        Some(WcStatus::RemOpErr)
    );
}
