//! RxParser on the real hardware capture (docs/PROTOCOL.md §11, `hw_send_imm_ack_mtu1024.pcap`):
//! all 105 RoCEv2 frames accepted with a good ICRC, descriptors and payloads equal to
//! ferroce_proto's parse, the other 18 frames classified `other`. Skipped (and says so) when the
//! shared vectors are not there (`ferroce_testkit::shared_dir`).
mod rx_common;

use ferroce_hdl::rx::harness::{check, run, Shaping};
use ferroce_hdl::rx::model::{RxConfig, RxRelease};
use ferroce_hdl::rx::{DropReason, RxKind, RxParser64};
use ferroce_hdl::testbench::Bench;

#[test]
fn real_capture_105_roce_18_other() {
    let Some(shared) = ferroce_testkit::shared_dir() else {
        return;
    };
    let pcap = shared.join("vectors/real/hw_send_imm_ack_mtu1024.pcap");
    let cap = ferroce_proto::pcap::read_file(&pcap).expect("read pcap");
    let frames: Vec<Vec<u8>> = cap.frames().map(|f| f.to_vec()).collect();
    // the project's reader agrees with an independent one
    assert_eq!(
        frames,
        rx_common::pcap_frames(&std::fs::read(&pcap).unwrap())
    );
    assert_eq!(frames.len(), 123);
    let cfg = RxConfig {
        promisc: true,
        ..RxConfig::default()
    };
    let mut b = Bench::new(RxParser64::default(), |u| &mut u.clock);
    let t = std::time::Instant::now();
    let r = run(&mut b, &frames, &cfg, Shaping::FULL_RATE);
    let secs = t.elapsed().as_secs_f64();
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    let roce: Vec<usize> = (0..frames.len())
        .filter(|&i| r.verdicts[i].kind == RxKind::RoceV2Ipv4)
        .collect();
    assert_eq!(roce.len(), 105);
    for &i in &roce {
        assert_eq!(r.verdicts[i].reason, DropReason::Accepted, "frame {i}");
        assert!(r.verdicts[i].icrc_ok, "frame {i}");
    }
    let other: Vec<_> = r
        .verdicts
        .iter()
        .filter(|v| v.kind == RxKind::Other)
        .collect();
    assert_eq!(other.len(), 18);
    assert!(other
        .iter()
        .all(|v| v.reason == DropReason::Unsupported && !v.icrc_ok));
    // released descriptors and payloads equal ferroce_proto's parse, in order
    let want: Vec<RxRelease> = roce
        .iter()
        .map(|&i| rx_common::proto_release(&frames[i]))
        .collect();
    assert_eq!(r.releases.len(), 105);
    for (k, (g, w)) in r.releases.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "release {k} (frame {})", roce[k]);
    }
    assert_eq!(r.counters[0], 105);
    assert_eq!(r.counters[DropReason::Unsupported.code() as usize], 18);
    let beats: u64 = frames.iter().map(|f| f.len().div_ceil(8) as u64).sum();
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    eprintln!(
        "pcap: {} frames, {bytes} bytes, {beats} beats = sum ceil(bytes/8); last input beat at cycle {}, \
         drained at {}; max input stall {}; {:.0} cycles/s (rust-hdl)",
        frames.len(),
        r.last_in_cycle,
        r.cycles,
        r.max_in_stall,
        r.cycles as f64 / secs
    );
    assert_eq!(
        r.last_in_cycle, beats,
        "the capture did not stream at full rate"
    );
}
