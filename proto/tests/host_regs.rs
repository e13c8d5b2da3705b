//! Register map invariants: no overlaps, alignment, doorbell addressing, naming rules.

use ferroce_proto::host::regs::{self, Access, Doorbell, BAR0_SIZE, REGISTERS};
use ferroce_proto::host::{Field, Version, HOST_INTERFACE_VERSION};
use proptest::prelude::*;
use std::collections::HashMap;

/// Every element of every register: 4-byte aligned, inside BAR0, and no two registers share
/// an address (arrays are expanded element by element, because interleaved arrays such as
/// the GID words or the SQ/RQ doorbells have overlapping spans but disjoint addresses).
#[test]
fn no_register_offsets_overlap() {
    let mut seen: HashMap<u32, &str> = HashMap::new();
    for r in REGISTERS {
        assert!(r.count >= 1, "{}", r.name);
        assert!(r.count == 1 || r.stride >= 4, "{}: array stride", r.name);
        assert!(
            r.count > 1 || r.stride == 0,
            "{}: plain register with a stride",
            r.name
        );
        assert!(r.end() <= BAR0_SIZE, "{} ends beyond BAR0", r.name);
        for n in 0..r.count {
            let off = r.at(n);
            assert_eq!(off % 4, 0, "{}[{n}] unaligned", r.name);
            if let Some(other) = seen.insert(off, r.name) {
                panic!("{} and {other} both at {off:#x}", r.name);
            }
        }
    }
}

#[test]
fn names_are_unique_and_in_address_order() {
    let mut names = std::collections::HashSet::new();
    for w in REGISTERS.windows(2) {
        assert!(
            w[0].offset < w[1].offset,
            "{} / {} out of order",
            w[0].name,
            w[1].name
        );
    }
    for r in REGISTERS {
        assert!(names.insert(r.name), "duplicate {}", r.name);
        assert!(
            r.name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
            "{}",
            r.name
        );
    }
}

/// 64-bit pairs: every `_LO` has its `_HI` right after it, with the same access.
#[test]
fn lo_hi_pairs_are_adjacent() {
    for r in REGISTERS {
        if let Some(stem) = r.name.strip_suffix("_LO") {
            let hi = regs::find(&format!("{stem}_HI"))
                .unwrap_or_else(|| panic!("{} has no _HI", r.name));
            assert_eq!(hi.offset, r.offset + 4, "{stem}");
            assert_eq!(hi.access, r.access, "{stem}");
        }
        if let Some(stem) = r.name.strip_suffix("_HI") {
            assert!(
                regs::find(&format!("{stem}_LO")).is_some(),
                "{} has no _LO",
                r.name
            );
        }
    }
}

#[test]
fn counters_are_contiguous_read_only_pairs() {
    let c: Vec<_> = regs::counters().collect();
    assert_eq!(c.len() as u32, regs::NUM_COUNTERS);
    for (i, (name, off)) in c.iter().enumerate() {
        assert_eq!(*off, regs::CNT_BASE + 8 * i as u32, "{name}");
        assert_eq!(regs::decode(*off).unwrap().0.access, Access::RO);
    }
    // The counter block fits its 4 KiB page.
    let end = regs::CNT_BASE + 8 * regs::NUM_COUNTERS;
    assert!(end <= regs::CNT_BASE + 0x1000, "{end:#x}");
}

#[test]
fn identity_values() {
    assert_eq!(&regs::MAGIC.to_le_bytes(), b"FRCE");
    assert_eq!(regs::find("ID_MAGIC").unwrap().reset, 0x4543_5246);
    assert_eq!(
        Version::from_reg(regs::find("ID_VERSION").unwrap().reset),
        HOST_INTERFACE_VERSION
    );
    assert_eq!(
        Version::from_reg(HOST_INTERFACE_VERSION.to_reg()),
        HOST_INTERFACE_VERSION
    );
    let v = |major, minor| Version { major, minor };
    assert!(v(1, 0).driver_accepts(v(1, 3)));
    assert!(!v(1, 3).driver_accepts(v(1, 2)));
    assert!(!v(1, 0).driver_accepts(v(2, 0)));
}

#[test]
fn doorbells_for_qpn_0_and_max_are_inside_the_bar() {
    let max = regs::MAX_QPS - 1;
    for (db, lo, hi) in [
        (Doorbell::Sq(0), regs::DB_QP_BASE, regs::DB_CQ_BASE),
        (Doorbell::Rq(0), regs::DB_QP_BASE, regs::DB_CQ_BASE),
        (Doorbell::Sq(max), regs::DB_QP_BASE, regs::DB_CQ_BASE),
        (Doorbell::Rq(max), regs::DB_QP_BASE, regs::DB_CQ_BASE),
        (Doorbell::CqCi(0), regs::DB_CQ_BASE, BAR0_SIZE),
        (Doorbell::CqArm(0), regs::DB_CQ_BASE, BAR0_SIZE),
        (
            Doorbell::CqCi(regs::MAX_CQS - 1),
            regs::DB_CQ_BASE,
            BAR0_SIZE,
        ),
        (
            Doorbell::CqArm(regs::MAX_CQS - 1),
            regs::DB_CQ_BASE,
            BAR0_SIZE,
        ),
    ] {
        let off = db.offset();
        assert!(off >= lo && off + 4 <= hi, "{db:?} at {off:#x}");
        assert_eq!(Doorbell::decode(off), Some(db));
        // The generic decoder finds the same array element.
        let (r, n) = regs::decode(off).unwrap();
        assert!(r.name.starts_with("DB_"), "{}", r.name);
        assert_eq!(r.at(n), off);
    }
    assert_eq!(regs::rq_doorbell(max) + 4, regs::DB_CQ_BASE);
    assert_eq!(regs::cq_arm_doorbell(regs::MAX_CQS - 1) + 4, BAR0_SIZE);
}

#[test]
fn doorbell_pages_never_expose_privileged_registers() {
    let last_privileged = REGISTERS
        .iter()
        .filter(|r| !r.name.starts_with("DB_"))
        .map(|r| r.end())
        .max()
        .unwrap();
    for shift in 12..=19 {
        let page = 1u32 << shift;
        assert!(
            regs::qp_doorbell_page(0, page) >= last_privileged,
            "page {page}"
        );
        // Every doorbell in a page belongs to the same QP group, and the groups tile the region.
        let per = regs::doorbells_per_page(page);
        assert_eq!(
            regs::qp_doorbell_page(per - 1, page),
            regs::qp_doorbell_page(0, page)
        );
        assert_eq!(
            regs::qp_doorbell_page(per, page),
            regs::qp_doorbell_page(0, page) + page
        );
        assert_eq!(
            regs::cq_doorbell_page(per, page),
            regs::cq_doorbell_page(0, page) + page
        );
    }
    assert_eq!(regs::doorbells_per_page(4096), 512);
}

#[test]
fn doorbell_decode_rejects_non_doorbells() {
    assert_eq!(Doorbell::decode(0), None);
    assert_eq!(Doorbell::decode(regs::DB_QP_BASE - 4), None);
    assert_eq!(Doorbell::decode(regs::DB_QP_BASE + 2), None);
    assert_eq!(Doorbell::decode(BAR0_SIZE), None);
}

#[test]
fn doorbell_values() {
    let w = regs::sq_doorbell_write(7, 0x1_2345);
    assert_eq!((w.offset, w.value), (regs::DB_QP_BASE + 56, 0x2345));
    let w = regs::rq_doorbell_write(7, 3);
    assert_eq!((w.offset, w.value), (regs::DB_QP_BASE + 60, 3));
}

#[test]
fn command_status_round_trip() {
    use regs::{CmdResult, CmdStatus};
    for v in 0..=7u8 {
        let r = CmdResult::from_u8(v).unwrap();
        for busy in [false, true] {
            let s = CmdStatus::decode(CmdStatus::encode(busy, r));
            assert_eq!((s.busy, s.result), (busy, Ok(r)));
        }
    }
    assert_eq!(CmdStatus::decode(0x2A00).result, Err(0x2A));
}

/// Fields declared for one register must not overlap each other.
#[test]
fn packed_fields_are_disjoint() {
    use regs::*;
    let groups: &[(&str, &[Field])] = &[
        (
            "ID_RING_LIMITS",
            &[
                id_ring_limits::LOG2_SQ_ENTRIES,
                id_ring_limits::LOG2_RQ_ENTRIES,
                id_ring_limits::LOG2_CQ_ENTRIES,
                id_ring_limits::LOG2_STRIDE,
            ],
        ),
        (
            "ID_QP_LIMITS",
            &[
                id_qp_limits::MAX_PMTU,
                id_qp_limits::MAX_RD_ATOMIC,
                id_qp_limits::MAX_DEST_RD_ATOMIC,
                id_qp_limits::MAX_SGE,
            ],
        ),
        (
            "ID_MISC",
            &[id_misc::GID_ENTRIES, id_misc::VECTORS, id_misc::PD_BITS],
        ),
        (
            "CFG_UDP_SPORT",
            &[
                cfg_udp_sport::BASE,
                cfg_udp_sport::ENTROPY_BITS,
                cfg_udp_sport::FIXED,
            ],
        ),
        (
            "CFG_TRAFFIC",
            &[
                cfg_traffic::DEFAULT_DSCP,
                cfg_traffic::DATA_ECN,
                cfg_traffic::CNP_DSCP,
                cfg_traffic::ACK_ECN,
                cfg_traffic::CNP_ECN,
            ],
        ),
        ("CFG_PFC", &[cfg_pfc::DATA_PRIO, cfg_pfc::CNP_PRIO]),
        (
            "ASYNC_EVENT",
            &[async_event::ID, async_event::TYPE, async_event::VALID],
        ),
        (
            "QP_STATE",
            &[
                qp_state::STATE,
                qp_state::CUR_STATE,
                qp_state::SQD_NOTIFY,
                qp_state::SQ_DRAINED,
            ],
        ),
        (
            "QP_MTU_RD",
            &[
                qp_mtu_rd::PATH_MTU,
                qp_mtu_rd::MAX_RD_ATOMIC,
                qp_mtu_rd::MAX_DEST_RD_ATOMIC,
            ],
        ),
        (
            "QP_TIMERS",
            &[
                qp_timers::TIMEOUT,
                qp_timers::RETRY_CNT,
                qp_timers::RNR_RETRY,
                qp_timers::MIN_RNR_TIMER,
            ],
        ),
        (
            "QP_AV_PATH",
            &[
                qp_av_path::SGID_INDEX,
                qp_av_path::TRAFFIC_CLASS,
                qp_av_path::HOP_LIMIT,
                qp_av_path::DEFAULT_DSCP,
            ],
        ),
        (
            "QP_RING_CFG",
            &[
                qp_ring_cfg::LOG2_SQ_ENTRIES,
                qp_ring_cfg::LOG2_SQ_STRIDE,
                qp_ring_cfg::LOG2_RQ_ENTRIES,
                qp_ring_cfg::LOG2_RQ_STRIDE,
                qp_ring_cfg::LOG2_SQ_PSN_WINDOW,
            ],
        ),
        ("QP_CQN", &[qp_cqn::SEND_CQN, qp_cqn::RECV_CQN]),
        (
            "CQ_CFG",
            &[cq_cfg::LOG2_ENTRIES, cq_cfg::VECTOR, cq_cfg::VALID],
        ),
        ("MR_ACCESS", &[mr_access::FLAGS, mr_access::VALID]),
        ("DB_CQ_ARM", &[db::CQ_CI, db::CQ_ARM]),
    ];
    for (name, fields) in groups {
        let mut used = 0u32;
        for f in *fields {
            assert_eq!(
                used & f.mask(),
                0,
                "{name}: field at bit {} overlaps",
                f.lsb
            );
            used |= f.mask();
        }
    }
}

#[test]
fn reset_values_fit_and_decode() {
    use ferroce_proto::host::config::{PfcConfig, TrafficConfig, UdpSportPolicy};
    let sport = UdpSportPolicy::default();
    assert_eq!(
        (sport.base, sport.entropy_bits, sport.fixed),
        (0xC000, 14, false)
    );
    assert_eq!(
        sport.encode().unwrap(),
        regs::find("CFG_UDP_SPORT").unwrap().reset
    );
    let t = TrafficConfig::default();
    assert_eq!(
        (t.default_dscp, t.data_ecn, t.cnp_dscp, t.ack_ecn, t.cnp_ecn),
        (26, 2, 48, 2, 2)
    );
    assert_eq!(
        t.encode().unwrap(),
        regs::find("CFG_TRAFFIC").unwrap().reset
    );
    let p = PfcConfig::default();
    assert_eq!((p.data_prio, p.cnp_prio), (3, 6));
    // 25 Gb/s at 250 MHz (the lite profile's ID_LINE_RATE and ID_CLOCK_KHZ): 100 bit times
    assert_eq!(p.link_bits_per_cycle, 100);
    assert_eq!(PfcConfig::link_bits_for(25_000, 250_000), Some(100));
    assert_eq!(PfcConfig::link_bits_for(10_000, 125_000), Some(80));
    assert_eq!(PfcConfig::link_bits_for(10_000, 156_250), Some(64));
    assert_eq!(PfcConfig::link_bits_for(100, 250_000), None);
    assert_eq!(p.encode().unwrap(), regs::find("CFG_PFC").unwrap().reset);
    let zero = PfcConfig {
        link_bits_per_cycle: 0,
        ..p
    };
    assert!(
        matches!(
            zero.encode(),
            Err(ferroce_proto::host::Error::InvalidField {
                field: "link_bits_per_cycle",
                ..
            })
        ),
        "{:?}",
        zero.encode()
    );
    let bad = PfcConfig { data_prio: 8, ..p };
    assert!(matches!(
        bad.encode(),
        Err(ferroce_proto::host::Error::InvalidField {
            field: "data_prio",
            ..
        })
    ));
    for r in REGISTERS.iter().filter(|r| r.reset != 0) {
        assert!(
            matches!(r.access, Access::RW | Access::RO),
            "{} has a reset value but is {:?}",
            r.name,
            r.access
        );
    }
}

proptest! {
    #[test]
    fn field_set_get(lsb in 0u8..32, width in 1u8..=32, reg: u32, v: u32) {
        prop_assume!(lsb as u32 + width as u32 <= 32);
        let f = Field::new(lsb, width);
        let r = f.set(reg, v);
        prop_assert_eq!(f.get(r), v & f.max());
        prop_assert_eq!(r & !f.mask(), reg & !f.mask());
    }

    #[test]
    fn decode_finds_every_element(i in 0usize..1000, n: u32) {
        let r = &REGISTERS[i % REGISTERS.len()];
        let n = n % r.count;
        let (found, idx) = regs::decode(r.at(n)).unwrap();
        prop_assert_eq!(found.name, r.name);
        prop_assert_eq!(idx, n);
    }

    #[test]
    fn udp_sport_policy(base: u16, bits in 0u8..=14, fixed: bool, hash: u32) {
        use ferroce_proto::host::config::UdpSportPolicy;
        let p = UdpSportPolicy { base, entropy_bits: bits, fixed };
        prop_assert_eq!(UdpSportPolicy::decode(p.encode().unwrap()), p);
        let port = p.port(hash);
        let keep = !((1u32 << bits) - 1) as u16;
        if fixed { prop_assert_eq!(port, base) } else { prop_assert_eq!(port & keep, base & keep) }
    }
}

/// PFC transmit thresholds: reset values, and each out-of-range field named.
#[test]
fn pfc_xoff_config_checks_every_field() {
    use ferroce_proto::host::config::PfcXoffConfig;
    use ferroce_proto::host::Error;
    let d = PfcXoffConfig::default();
    assert_eq!((d.xoff_words, d.xon_words, d.quanta), (1024, 512, 65535));
    assert_eq!(
        d.encode().unwrap(),
        (
            regs::find("CFG_PFC_XOFF").unwrap().reset,
            regs::find("CFG_PFC_QUANTA").unwrap().reset
        )
    );
    let (x, q) = PfcXoffConfig {
        xoff_words: 3000,
        xon_words: 100,
        quanta: 7,
    }
    .encode()
    .unwrap();
    assert_eq!((x, q), ((100 << 16) | 3000, 7));
    for (bad, field) in [
        (PfcXoffConfig { xoff_words: 0, ..d }, "xoff_words"),
        (
            PfcXoffConfig {
                xoff_words: 4096,
                ..d
            },
            "xoff_words",
        ),
        (PfcXoffConfig { xon_words: 0, ..d }, "xon_words"),
        (
            PfcXoffConfig {
                xon_words: 1025,
                ..d
            },
            "xon_words",
        ),
        (PfcXoffConfig { quanta: 0, ..d }, "quanta"),
    ] {
        match bad.encode() {
            Err(Error::InvalidField { field: f, .. }) => assert_eq!(f, field, "{bad:?}"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    assert_eq!(PfcXoffConfig::decode(x, q).xoff_words, 3000);
}
