//! MR entries, CQ contexts and doorbells, async events, GIDs and MAC addresses.

use ferroce_proto::host::config::*;
use ferroce_proto::host::cq::*;
use ferroce_proto::host::event::*;
use ferroce_proto::host::mr::*;
use ferroce_proto::host::qp::AccessFlags;
use ferroce_proto::host::regs;
use ferroce_proto::host::{Error, RegWrite};
use proptest::prelude::*;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

fn apply(writes: &[RegWrite]) -> HashMap<u32, u32> {
    writes.iter().map(|w| (w.offset, w.value)).collect()
}

fn mr_access() -> impl Strategy<Value = AccessFlags> {
    (0u32..16)
        .prop_map(AccessFlags)
        .prop_filter("verbs rule", |a| a.is_valid_for_mr())
}

fn mr() -> impl Strategy<Value = MrEntry> {
    (
        any::<u32>(),
        0u32..1 << 24,
        mr_access(),
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
    )
        .prop_map(|(key, pd, access, va, len, dma)| {
            let length = len % (u64::MAX - va.max(dma)).max(1);
            MrEntry {
                key,
                pd,
                access,
                va,
                length,
                dma,
            }
        })
}

proptest! {
    #[test]
    fn mr_round_trips_through_window(e in mr()) {
        let w = e.write_writes().unwrap();
        prop_assert_eq!(w[0], RegWrite::new(regs::MR_CMD_INDEX, key_index(e.key)));
        prop_assert_eq!(*w.last().unwrap(), RegWrite::new(regs::MR_CMD, regs::mr_cmd::WRITE));
        let mut m = apply(&w);
        *m.get_mut(&regs::MR_ACCESS).unwrap() |= regs::mr_access::VALID.mask();
        let (back, valid) = MrEntry::from_window(|o| m.get(&o).copied().unwrap_or(0));
        prop_assert!(valid);
        prop_assert_eq!(back, e);
    }

    /// The protection check against a straightforward reference.
    #[test]
    fn mr_check(va in 0u64..1 << 20, length in 0u64..1 << 12, addr in 0u64..1 << 21, len in 0u64..1 << 13, dma: u32) {
        let e = MrEntry { key: make_key(5, 0x3C), pd: 9, access: AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ, va, length, dma: dma as u64 };
        let inside = addr >= va && addr + len <= va + length;
        let got = e.check(true, e.key, 9, AccessFlags::REMOTE_READ, addr, len);
        if inside {
            prop_assert_eq!(got, Ok(addr - va + dma as u64));
        } else {
            prop_assert_eq!(got, Err(MrViolation::Range));
        }
    }

    #[test]
    fn cq_round_trips_through_window(base in any::<u64>(), log2 in 1u8..=22, vector in 0u8..32, ci in 0u32..1 << 24, cqn in 0u32..regs::MAX_CQS) {
        let c = CqConfig { base: base & !63, log2_entries: log2, vector, ci };
        let w = c.create_writes(cqn).unwrap();
        prop_assert_eq!(w[0], RegWrite::new(regs::CQ_CMD_CQN, cqn));
        let m = apply(&w);
        let q = CqQuery::from_window(|o| m.get(&o).copied().unwrap_or(0));
        prop_assert_eq!(q.config, c);
    }

    #[test]
    fn cq_doorbells(cqn in 0u32..regs::MAX_CQS, ci in 0u32..1 << 24, mode in 0u8..3) {
        let mode = ArmMode::from_u8(mode).unwrap();
        let w = arm_doorbell(cqn, ci, mode);
        prop_assert_eq!(regs::Doorbell::decode(w.offset), Some(regs::Doorbell::CqArm(cqn)));
        prop_assert_eq!(decode_arm(w.value).unwrap(), (ci, mode));
        let w = ci_doorbell(cqn, ci);
        prop_assert_eq!(regs::Doorbell::decode(w.offset), Some(regs::Doorbell::CqCi(cqn)));
        prop_assert_eq!(w.value, ci);
    }

    #[test]
    fn async_event_round_trips(t in prop::sample::select(vec![0u8, 1, 2, 3, 4, 5, 8]), id in 0u32..1 << 24, status: u8, vendor_err: u8) {
        let e = AsyncEvent { ty: AsyncEventType::from_u8(t).unwrap(), id, status, vendor_err };
        let (ev, info) = e.encode().unwrap();
        prop_assert_eq!(AsyncEvent::decode(ev, info), Ok(Some(e)));
        prop_assert_eq!(AsyncEvent::decode(ev & !regs::async_event::VALID.mask(), info), Ok(None));
    }

    #[test]
    fn gid_and_mac_round_trip(g: [u8; 16], mac: [u8; 6], ty in 0u8..4) {
        prop_assert_eq!(Gid::from_regs(Gid(g).to_regs()), Gid(g));
        let (lo, hi) = mac_to_regs(mac);
        prop_assert_eq!(mac_from_regs(lo, hi), mac);
        prop_assert!(hi <= 0xFFFF);
        let e = GidEntry { gid: Gid(g), ty: GidType::from_u8(ty) };
        prop_assert_eq!(GidEntry::from_regs(Gid(g).to_regs(), ty as u32), e);
    }
}

#[test]
fn mr_checks_in_order() {
    let e = MrEntry {
        key: make_key(1, 7),
        pd: 2,
        access: AccessFlags::REMOTE_READ,
        va: 0x1000,
        length: 0x100,
        dma: 0x9000,
    };
    assert_eq!(
        e.check(false, e.key, 2, AccessFlags::REMOTE_READ, 0x1000, 1),
        Err(MrViolation::Invalid)
    );
    assert_eq!(
        e.check(true, make_key(1, 8), 2, AccessFlags::REMOTE_READ, 0x1000, 1),
        Err(MrViolation::KeyMismatch)
    );
    assert_eq!(
        e.check(true, e.key, 3, AccessFlags::REMOTE_READ, 0x1000, 1),
        Err(MrViolation::PdMismatch)
    );
    assert_eq!(
        e.check(true, e.key, 2, AccessFlags::REMOTE_WRITE, 0x1000, 1),
        Err(MrViolation::Access)
    );
    assert_eq!(
        e.check(true, e.key, 2, AccessFlags::REMOTE_READ, 0x10FF, 1),
        Ok(0x90FF)
    );
    assert_eq!(
        e.check(true, e.key, 2, AccessFlags::REMOTE_READ, 0x10FF, 2),
        Err(MrViolation::Range)
    );
    assert_eq!(
        e.check(true, e.key, 2, AccessFlags::REMOTE_READ, u64::MAX, 2),
        Err(MrViolation::Range)
    );
    assert_eq!(key_index(e.key), 1);
}

#[test]
fn mr_validation() {
    let e = MrEntry {
        key: 0x100,
        pd: 1,
        access: AccessFlags::REMOTE_WRITE,
        va: 0,
        length: 1,
        dma: 0,
    };
    assert!(matches!(
        e.validate(),
        Err(Error::InvalidField {
            field: "access",
            ..
        })
    ));
    let e = MrEntry {
        access: AccessFlags::LOCAL_WRITE,
        va: u64::MAX,
        ..e
    };
    assert!(matches!(e.validate(), Err(Error::Inconsistent { .. })));
    assert_eq!(
        MrEntry::invalidate_writes(4)[1],
        RegWrite::new(regs::MR_CMD, regs::mr_cmd::INVALIDATE)
    );
}

#[test]
fn cq_create_checks() {
    let c = CqConfig {
        base: 0x1000,
        log2_entries: 10,
        vector: 1,
        ci: 0,
    };
    assert!(c.create_writes(3).is_ok());
    assert!(matches!(
        CqConfig { base: 0x1010, ..c }.create_writes(3),
        Err(Error::InvalidField {
            field: "cq base",
            ..
        })
    ));
    assert!(matches!(
        CqConfig {
            log2_entries: 23,
            ..c
        }
        .create_writes(3),
        Err(Error::InvalidField {
            field: "log2_entries",
            ..
        })
    ));
    assert!(matches!(
        c.create_writes(regs::MAX_CQS),
        Err(Error::InvalidField { field: "cqn", .. })
    ));
    assert!(decode_arm(3 << 24).is_err());
}

#[test]
fn gids() {
    let g = Gid::from_ipv4(Ipv4Addr::new(10, 0, 0, 1));
    assert_eq!(g.0, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1]);
    assert_eq!(g.to_ipv4(), Some(Ipv4Addr::new(10, 0, 0, 1)));
    // The IPv4 address sits in DATA3 with the first octet in bits 7:0.
    assert_eq!(g.to_regs()[3], 0x0100_000A);
    let ll = Gid::link_local([0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
    assert_eq!(
        Ipv6Addr::from(ll.0),
        "fe80::11:22ff:fe33:4455".parse::<Ipv6Addr>().unwrap()
    );
    let w = GidEntry::ipv4(Ipv4Addr::new(192, 168, 1, 2))
        .writes(3)
        .unwrap();
    assert_eq!(w.first().unwrap(), &RegWrite::new(regs::gid_attr(3), 0));
    assert_eq!(w.last().unwrap(), &RegWrite::new(regs::gid_attr(3), 1));
    assert_eq!(
        w[4],
        RegWrite::new(regs::gid_data(3, 3), u32::from_le_bytes([192, 168, 1, 2]))
    );
    let bad = GidEntry {
        gid: Gid::from(Ipv6Addr::LOCALHOST),
        ty: GidType::RoceV2Ipv4,
    };
    assert!(bad.writes(0).is_err());
    assert!(GidEntry::ipv6(Ipv6Addr::LOCALHOST)
        .writes(regs::GID_MAX_ENTRIES)
        .is_err());
}

#[test]
fn mac_register_order() {
    let [lo, hi] = mac_writes([0x02, 0x00, 0x00, 0xAA, 0xBB, 0xCC]);
    assert_eq!(lo, RegWrite::new(regs::CFG_MAC_LO, 0xAA00_0002));
    assert_eq!(hi, RegWrite::new(regs::CFG_MAC_HI, 0xCCBB));
}
