//! RoCEv1 end to end through two hardware NICs (the Verilator model of the emitted Verilog),
//! driven through the driver's verbs API: each NIC's GID 0 is a RoCEv1 entry (IBTA Vol 1 Annex
//! A16: GRH after Ethernet, EtherType 0x8915, no IP or UDP) and `CFG_CONTROL.ROCEV1_ENABLE` is
//! set. Checked: every WRITE, READ and SEND verified byte for byte by the run, and every RoCE
//! frame on the link (both directions, captured to a pcap and parsed by proto's wire module)
//! is RoCEv1: EtherType 0x8915, no RoCEv2 frame at all.
//!
//! Needs verilator (`scripts/install-tools.sh`).
use ferroce_proto::pcap::read_file;
use ferroce_proto::wire::{FrameKind, FrameRepr};
use ferroce_sim::cmd::demo_v1::speak_rocev1;
use ferroce_sim::cmd::verbs::{run_scenario_hooked, Engine, RunHooks, VerbsArgs, VerbsLinkArgs};
use ferroce_testkit::require_tool;
use std::path::PathBuf;

#[test]
fn write_read_send_over_rocev1() {
    if !require_tool("verilator") {
        return;
    }
    let pcap = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rocev1_tx.pcap");
    let args = VerbsArgs {
        ops: ["write", "read", "send"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        sizes: ["1", "700", "3000"].iter().map(|s| s.to_string()).collect(),
        qps: 2,
        messages: 12,
        seed: 3,
        pmtu: 1024,
        pcap: Some(pcap.clone()),
        json: false,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    };
    let hooks = RunHooks {
        setup: Some(speak_rocev1),
        ..RunHooks::default()
    };
    let r =
        run_scenario_hooked(&args, &VerbsLinkArgs::default(), Engine::Verilator, hooks).unwrap();
    assert!(
        r.failed == 0 && r.verified == 12 && r.errors.is_empty(),
        "{r:?}"
    );
    let cap = read_file(&pcap).unwrap();
    let mut v1 = 0;
    for rec in &cap.records {
        let f = FrameRepr::parse(&rec.data).expect("a frame proto parses");
        match f.kind() {
            FrameKind::RoceV1 => {
                assert_eq!(&rec.data[12..14], &[0x89, 0x15]);
                v1 += 1;
            }
            FrameKind::RoceV2 => panic!("a RoCEv2 frame on a RoCEv1 run"),
            _ => {}
        }
    }
    eprintln!("{v1} RoCEv1 frames, {} cycles", r.cycles);
    assert!(v1 >= 24, "{v1} RoCEv1 frames");
}
