//! `ID_CAPS` says only what is true: every capability bit the built NIC claims is tied to
//! behaviour through the driver, and every feature enable whose bit is clear is refused.
//! * Set bits with a verb behind them (IPv4, RDMA READ, atomics): two NICs run those verbs,
//!   every byte and completion verified.
//! * Every `CFG_CONTROL` feature enable: accepted if its bit is set, else refused with
//!   `Error::MissingCapability` naming the feature (DCQCN reaction and notification points, PFC:
//!   the NIC has no shaper using the reaction point, no CNP generation and no PFC).
use ferroce_driver::Error;
use ferroce_proto::host::regs::{caps, cfg_control as c};
use ferroce_sim::cmd::verbs::{open_pair, run_scenario, Engine, VerbsArgs};
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
    // what no block of the NIC does is not claimed
    for (cap, name) in [
        (caps::DCQCN_RP, "DCQCN_RP"),
        (caps::DCQCN_NP, "DCQCN_NP"),
        (caps::PFC, "PFC"),
    ] {
        assert_eq!(caps_read & cap, 0, "{name} claimed");
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
