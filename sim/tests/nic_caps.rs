//! `ID_CAPS` says only what is true: every capability bit the built NIC claims is tied to
//! behaviour through the driver, and every feature enable whose bit is clear is refused.
//! * Set bits with a verb behind them (IPv4, RDMA READ, atomics): two NICs run those verbs,
//!   every byte and completion verified.
//! * `DCQCN_NP`: over a link that marks ECN CE, the receiving NIC counts the marked packets and
//!   sends CNPs, which the other NIC counts as received.
//! * `DCQCN_RP`: with the reaction point on, the CNPs of a marking link make the sender's NIC
//!   cut its QP's rate (`CNT_RP_RATE_CUTS`), none of them ignored as disabled.
//! * `PFC`: a receiver whose host DMA is slower than the link sends XOFF/XON, the sender
//!   pauses, and no frame is dropped for lack of room.
//! * Every `CFG_CONTROL` feature enable: accepted if its bit is set, else refused with
//!   `Error::MissingCapability` naming the feature.
use ferroce_driver::Error;
use ferroce_proto::host::regs::{caps, cfg_control as c};
use ferroce_sim::cmd::verbs::{
    enable_pfc, open_pair, run_scenario, run_scenario_hooked, run_scenario_with, Engine, RunHooks,
    VerbsArgs, VerbsLinkArgs,
};
use ferroce_sim::host::ShellConfig;
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;

fn args(ops: &[&str]) -> VerbsArgs {
    VerbsArgs {
        ops: ops.iter().map(|s| s.to_string()).collect(),
        sizes: ["1", "300", "2000"].iter().map(|s| s.to_string()).collect(),
        qps: 1,
        messages: 6,
        seed: 5,
        pmtu: 1024,
        pcap: None,
        json: false,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    }
}

#[test]
fn every_capability_bit_is_true_of_the_nic() {
    if !require_tool("verilator") {
        return;
    }
    let caps_read = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
            let (_pair, hosts) = open_pair(hw, ShellConfig::ideal(), 1, 0, false).unwrap();
            let dev = &hosts[0].device;
            let have = dev.info().caps;
            let base = c::RX_ENABLE | c::TX_ENABLE;
            for (bit, cap, feature) in [
                (c::ROCEV1_ENABLE, caps::ROCEV1, "RoCEv1"),
                (c::IPV6_ENABLE, caps::IPV6, "IPv6"),
                (c::DCQCN_RP_ENABLE, caps::DCQCN_RP, "DCQCN reaction point"),
                (
                    c::DCQCN_NP_ENABLE,
                    caps::DCQCN_NP,
                    "DCQCN notification point",
                ),
                (c::PFC_ENABLE, caps::PFC, "PFC"),
            ] {
                let r = dev.set_control(base | bit);
                if have & cap != 0 {
                    assert!(r.is_ok(), "{feature}: claimed but refused: {r:?}");
                } else {
                    match r {
                        Err(Error::MissingCapability { feature: f, cap: b }) => {
                            assert_eq!((f, b), (feature, cap))
                        }
                        other => panic!("{feature}: not claimed, yet {other:?}"),
                    }
                }
            }
            dev.set_control(base).unwrap();
            have
        })
        .unwrap()
        .join()
        .unwrap();
    // PFC: a receiver whose host DMA writes at a quarter of the link rate sends XOFF/XON and
    // drops nothing for lack of room (sim/tests/pfc_lossless.rs has the whole check)
    if caps_read & caps::PFC != 0 {
        let mut a = args(&["write"]);
        a.sizes = vec!["64K".to_string()];
        a.messages = 4;
        let hooks = RunHooks {
            one_way: true,
            setup: Some(enable_pfc),
            shells: vec![(
                1,
                ShellConfig {
                    write_bytes_per_cycle: 2,
                    ..ShellConfig::ideal()
                },
            )],
            ..RunHooks::default()
        };
        let r =
            run_scenario_hooked(&a, &VerbsLinkArgs::default(), Engine::Verilator, hooks).unwrap();
        assert!(r.failed == 0 && r.verified == 4, "{r:?}");
        let b = &r.per_host[1];
        assert!(b.pfc_xoff_sent > 0 && b.rx_no_room == 0, "{b:?}");
        assert!(r.per_host[0].pfc_paused_cycles > 0, "{r:?}");
    }
    // the reaction point: CNPs cut the sender's rate
    if caps_read & caps::DCQCN_RP != 0 {
        let link = VerbsLinkArgs {
            ecn_mark: 1.0,
            dcqcn: true,
            ..VerbsLinkArgs::default()
        };
        let mut a = args(&["write"]);
        a.sizes = vec!["64K".to_string()];
        // (4 messages: every frame is marked, so the rates fall low and each further 64 KiB
        // message costs about 40 s of simulation; the first CNP already cuts)
        a.messages = 4;
        let r = run_scenario_with(&a, &link, Engine::Verilator).unwrap();
        assert!(r.failed == 0 && r.verified == 4, "{r:?}");
        let cuts: u64 = r.per_host.iter().map(|h| h.rp_rate_cuts).sum();
        let ignored: u64 = r.per_host.iter().map(|h| h.rp_cnp_disabled).sum();
        assert!(cuts > 0, "no rate cut: {r:?}");
        assert_eq!(ignored, 0, "{r:?}");
    }
    // the notification point: CE-marked packets make the receiver send CNPs
    if caps_read & caps::DCQCN_NP != 0 {
        let link = VerbsLinkArgs {
            ecn_mark: 0.2,
            ..VerbsLinkArgs::default()
        };
        let r = run_scenario_with(&args(&["write"]), &link, Engine::Verilator).unwrap();
        assert!(r.failed == 0 && r.verified == 6, "{r:?}");
        let (marked, ce, sent, received) = (
            r.link[0].ce_marked + r.link[1].ce_marked,
            r.ecn_ce[0] + r.ecn_ce[1],
            r.cnp_sent[0] + r.cnp_sent[1],
            r.cnp_received[0] + r.cnp_received[1],
        );
        assert!(marked > 0 && ce > 0 && sent > 0, "{r:?}");
        assert_eq!(sent, received, "{r:?}");
    }
    for (cap, ops) in [
        (caps::IPV4, &["write"][..]),
        (caps::RDMA_READ, &["read"][..]),
        (caps::ATOMICS, &["atomic_cas", "atomic_fadd"][..]),
    ] {
        if caps_read & cap != 0 {
            let r = run_scenario(&args(ops), Engine::Verilator).unwrap();
            assert!(
                r.failed == 0 && r.verified == 6 && r.errors.is_empty(),
                "{ops:?}: {r:?}"
            );
        }
    }
}
