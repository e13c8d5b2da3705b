//! `ferroce pcap-info` end to end: the binary run on captures written here (always) and on the
//! shared vector files and real hardware capture (whenever `../shared` sits beside the project,
//! as it always does in CI, where its absence is a failure).

use std::path::PathBuf;
use std::process::Command;

use ferroce_proto::pcap::PcapWriter;
use ferroce_proto::testgen::{random_roce_frame, FrameSpec, Rng};
use serde_json::Value;

fn ferroce() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ferroce"))
}

fn run_json(args: &[&str]) -> (Vec<Value>, Value) {
    let out = ferroce().args(args).output().expect("run ferroce");
    assert!(
        out.status.success(),
        "ferroce {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let summary = lines.pop().expect("summary line");
    assert_eq!(summary["summary"], true);
    (lines, summary)
}

fn shared_vectors() -> Option<PathBuf> {
    ferroce_proto::testgen::shared_vectors_dir()
}

#[test]
fn random_frames_report_their_fields() {
    let mut rng = Rng::new(42);
    let frames: Vec<_> = (0..200)
        .map(|_| random_roce_frame(&mut rng, &FrameSpec::default()))
        .collect();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pcap_info_random.pcap");
    let mut w = PcapWriter::create(&path).unwrap();
    for f in &frames {
        w.write_packet(0, &f.emit()).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let (lines, summary) = run_json(&["pcap-info", path.to_str().unwrap()]);
    assert_eq!(lines.len(), frames.len());
    for (i, (line, frame)) in lines.iter().zip(&frames).enumerate() {
        let bth = frame.bth().unwrap();
        assert_eq!(line["frame"], i + 1);
        let want_kind = if bth.opcode.is_cnp() {
            "cnp"
        } else if matches!(
            frame.roce().unwrap().net,
            ferroce_proto::wire::RoceNet::RoceV1 { .. }
        ) {
            "roce_v1"
        } else {
            "roce_v2"
        };
        assert_eq!(line["kind"], want_kind, "frame {}", i + 1);
        assert_eq!(line["opcode"], bth.opcode.0);
        assert_eq!(line["dest_qp"], bth.dest_qp);
        assert_eq!(line["psn"], bth.psn);
        assert_eq!(line["icrc_ok"], true);
        if let Some(reth) = frame.roce().unwrap().ext.reth {
            assert_eq!(line["reth"]["va"], reth.va);
            assert_eq!(line["reth"]["rkey"], reth.rkey);
            assert_eq!(line["reth"]["dma_len"], reth.dma_len);
        }
        if let Some(aeth) = frame.roce().unwrap().ext.aeth {
            assert_eq!(line["aeth"]["syndrome"], aeth.syndrome);
            assert_eq!(line["aeth"]["msn"], aeth.msn);
        }
    }
    assert_eq!(summary["frames"], 200);
    assert_eq!(summary["bad_icrc"], 0);
}

#[test]
fn shared_vectors_and_real_capture() {
    let Some(dir) = shared_vectors() else { return };
    let real = dir.join("real/hw_send_imm_ack_mtu1024.pcap");
    let (lines, summary) = run_json(&["pcap-info", real.to_str().unwrap()]);
    assert_eq!(lines.len(), 123);
    assert_eq!(summary["kinds"]["roce_v2"], 105);
    assert_eq!(summary["kinds"]["other"], 18);
    assert_eq!(summary["bad_icrc"], 0);
    assert_eq!(summary["opcodes"]["RC_SEND_FIRST"], 33);
    assert_eq!(summary["opcodes"]["RC_SEND_LAST_WITH_IMMEDIATE"], 33);
    assert_eq!(summary["opcodes"]["RC_SEND_ONLY_WITH_IMMEDIATE"], 2);
    assert_eq!(summary["opcodes"]["RC_ACKNOWLEDGE"], 37);
    // ACKs carry credit codes 5 and 6 (6 and 8 credits) on real hardware.
    let credits: Vec<u64> = lines
        .iter()
        .filter(|l| l["opcode"] == 0x11)
        .map(|l| l["aeth"]["credits"].as_u64().unwrap())
        .collect();
    assert_eq!(credits.len(), 37);
    assert!(credits.iter().all(|c| *c == 6 || *c == 8));

    let (bad, summary) = run_json(&[
        "pcap-info",
        dir.join("roce_bad_icrc.pcap").to_str().unwrap(),
    ]);
    assert_eq!(bad[0]["icrc_ok"], false);
    assert_eq!(summary["bad_icrc"], 1);

    let (lines, _) = run_json(&["pcap-info", dir.join("roce_vectors.pcap").to_str().unwrap()]);
    assert!(lines.iter().all(|l| l["icrc_ok"] == true));
    assert_eq!(lines[10]["kind"], "cnp");
    assert_eq!(lines[11]["dst"], "fd00::2");
    let (lines, _) = run_json(&[
        "pcap-info",
        dir.join("extra_vectors.pcap").to_str().unwrap(),
    ]);
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["roce_v1", "pfc", "roce_v2"]);
    assert_eq!(lines[1]["pfc"]["times"][3], 0xFFFF);
}

#[test]
fn unreadable_input_is_a_clear_error() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let truncated = dir.join("pcap_info_truncated.pcap");
    let mut w = PcapWriter::create(&truncated).unwrap();
    w.write_packet(0, &[0u8; 100]).unwrap();
    w.flush().unwrap();
    drop(w);
    let bytes = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() - 30]).unwrap();
    let foreign = dir.join("pcap_info_foreign.pcap");
    std::fs::write(&foreign, b"this is not a capture file at all").unwrap();
    for (path, words) in [
        (truncated, "truncated record"),
        (foreign, "not a pcap"),
        (dir.join("does-not-exist.pcap"), "does-not-exist.pcap"),
    ] {
        let out = ferroce().arg("pcap-info").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{err}");
        assert!(
            err.contains(path.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}
