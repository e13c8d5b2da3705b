//! `ferroce rx-replay` and `ferroce tx-replay` end to end: random frames of every opcode (some
//! corrupted), the shared vectors and the real hardware capture, through the HDL front ends on
//! the Verilator engine (the default); one capture on both engines, compared line for line and
//! frame for frame; the waveforms of `--vcd`.

use std::path::PathBuf;
use std::process::Command;

use ferroce_proto::pcap::{self, PcapWriter};
use ferroce_proto::testgen::{random_roce_frame, FrameSpec, Rng};
use ferroce_proto::wire::{FrameRepr, RoceNet};
use ferroce_sim::vcd::PERIOD_PS;
use ferroce_testkit::require_tool;
use ferroce_testkit::vcd::{read_vcd, read_vcd_with_gtkwave, vcd_options};
use serde_json::Value;

fn ferroce(args: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(args)
        .output()
        .expect("run ferroce");
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    (
        out.status.code(),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write_capture(name: &str, frames: &[Vec<u8>]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut w = PcapWriter::create(&path).unwrap();
    for f in frames {
        w.write_packet(0, f).unwrap();
    }
    w.flush().unwrap();
    path
}

#[test]
fn rx_replay_accepts_good_frames_and_drops_corrupted_ones() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(7);
    let spec = FrameSpec {
        max_payload: 1024,
        ..FrameSpec::default()
    };
    let mut frames = Vec::new();
    let mut corrupted = Vec::new();
    for i in 0..60 {
        let frame = random_roce_frame(&mut rng, &spec);
        let mut bytes = frame.emit();
        // Every fourth frame gets one bit flipped inside the ICRC-covered span (after the
        // Ethernet header, before the ICRC), in a byte the ICRC does not mask.
        let bad = i % 4 == 3;
        if bad {
            let roce = frame.roce().unwrap();
            let l2 = frame.eth.buffer_len();
            let net_len = roce.net.header_len();
            // Flip a bit in the payload, pad or extension headers: never masked.
            let start = l2 + net_len + 12;
            let end = l2 + net_len + roce.ib_len() - 4;
            if end > start {
                let at = start + rng.below((end - start) as u64) as usize;
                bytes[at] ^= 1 << rng.below(8);
            } else {
                // No header past the BTH: flip the PSN's low bit instead.
                bytes[l2 + net_len + 11] ^= 1;
            }
        }
        corrupted.push(bad);
        frames.push((frame, bytes));
    }
    let path = write_capture(
        "rx_replay_random.pcap",
        &frames.iter().map(|f| f.1.clone()).collect::<Vec<_>>(),
    );
    let (code, lines, err) = ferroce(&["rx-replay", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(lines.len(), frames.len() + 1);
    for (i, ((frame, _), bad)) in frames.iter().zip(&corrupted).enumerate() {
        let line = &lines[i];
        let bth = frame.bth().unwrap();
        assert_eq!(line["frame"], i + 1);
        if *bad {
            assert_eq!(line["accepted"], false, "frame {}: {line}", i + 1);
            assert_eq!(line["drop_reason"], "bad_icrc", "frame {}", i + 1);
            assert_eq!(line["icrc_ok"], false);
            assert_eq!(
                line["opcode"],
                Value::Null,
                "a dropped frame releases nothing"
            );
        } else {
            assert_eq!(line["accepted"], true, "frame {}: {line}", i + 1);
            assert_eq!(line["drop_reason"], Value::Null);
            assert_eq!(line["icrc_ok"], true);
            assert_eq!(line["opcode"], bth.opcode.0);
            assert_eq!(line["dest_qp"], bth.dest_qp);
            assert_eq!(line["psn"], bth.psn);
            assert_eq!(line["payload_len"], frame.roce().unwrap().payload.len());
            let kind = match frame.roce().unwrap().net {
                _ if bth.opcode.is_cnp() => "cnp",
                RoceNet::RoceV1 { .. } => "roce_v1",
                _ => "roce_v2",
            };
            assert_eq!(line["kind"], kind);
        }
    }
    let summary = lines.last().unwrap();
    let bad = corrupted.iter().filter(|b| **b).count() as u64;
    assert_eq!(summary["dropped"], bad);
    assert_eq!(summary["hardware_counters"]["bad_icrc"], bad);
    assert_eq!(
        summary["hardware_counters"]["accepted"],
        frames.len() as u64 - bad
    );
}

#[test]
fn rx_replay_mac_filter_drops_other_destinations() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(9);
    let frame = random_roce_frame(
        &mut rng,
        &FrameSpec {
            nets: ferroce_proto::testgen::NetMix::IPV4,
            ..FrameSpec::default()
        },
    );
    let path = write_capture("rx_replay_mac.pcap", &[frame.emit()]);
    let (code, lines, _) = ferroce(&[
        "rx-replay",
        path.to_str().unwrap(),
        "--mac",
        "02:00:00:00:00:99",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(lines[0]["accepted"], false);
    assert_eq!(lines[0]["drop_reason"], "mac_mismatch");
    let (code, _, err) = ferroce(&["rx-replay", path.to_str().unwrap(), "--mac", "nonsense"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("bad MAC address"), "{err}");
}

#[test]
fn tx_replay_rebuilds_random_frames_byte_identical() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(11);
    let spec = FrameSpec {
        max_payload: 2048,
        ..FrameSpec::default()
    };
    let frames: Vec<Vec<u8>> = (0..50)
        .map(|_| random_roce_frame(&mut rng, &spec))
        .map(|f| f.emit())
        .collect();
    let input = write_capture("tx_replay_in.pcap", &frames);
    let output = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tx_replay_out.pcap");
    let (code, lines, err) = ferroce(&[
        "tx-replay",
        input.to_str().unwrap(),
        "--out",
        output.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err} {lines:?}");
    assert_eq!(lines[0]["identical"], 50);
    let rebuilt = pcap::read_file(&output).unwrap();
    let rebuilt: Vec<Vec<u8>> = rebuilt.records.into_iter().map(|r| r.data).collect();
    assert_eq!(rebuilt, frames);
}

#[test]
fn tx_replay_reports_a_frame_it_cannot_reproduce() {
    if !require_tool("verilator") {
        return;
    }
    // A frame whose IPv4 header checksum is wrong on the wire: the hardware computes the right
    // one, so the rebuild differs and the command must say so and exit 1.
    let mut rng = Rng::new(13);
    let spec = FrameSpec {
        nets: ferroce_proto::testgen::NetMix::IPV4,
        ..FrameSpec::default()
    };
    let good = random_roce_frame(&mut rng, &spec).emit();
    let mut bad = good.clone();
    let l2 = FrameRepr::parse(&good).unwrap().eth.buffer_len();
    bad[l2 + 10] ^= 0xFF;
    let input = write_capture("tx_replay_bad_in.pcap", &[good, bad]);
    let output = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tx_replay_bad_out.pcap");
    let (code, lines, _) = ferroce(&[
        "tx-replay",
        input.to_str().unwrap(),
        "--out",
        output.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(lines[0]["identical"], 1);
    assert_eq!(lines[0]["different"], 1);
    assert_eq!(lines[0]["differences"][0]["frame"], 2);
    assert_eq!(lines[0]["differences"][0]["first_difference_at"], l2 + 10);
}

#[test]
fn replays_of_the_shared_vectors_and_real_capture() {
    if !require_tool("verilator") {
        return;
    }
    let Some(dir) = ferroce_testkit::shared_dir().map(|d| d.join("vectors")) else {
        return;
    };
    let real = dir.join("real/hw_send_imm_ack_mtu1024.pcap");
    let (code, lines, err) = ferroce(&["rx-replay", real.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["frames"], 123);
    assert_eq!(summary["accepted"], 105);
    assert_eq!(summary["kinds"]["roce_v2"], 105);
    assert!(lines[..123]
        .iter()
        .filter(|l| l["kind"] == "roce_v2")
        .all(|l| l["accepted"] == true && l["icrc_ok"] == true));

    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tx_replay_real.pcap");
    let (code, lines, err) = ferroce(&[
        "tx-replay",
        real.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(lines[0]["rebuilt"], 105);
    assert_eq!(lines[0]["identical"], 105);

    let (_, lines, _) = ferroce(&[
        "rx-replay",
        dir.join("roce_bad_icrc.pcap").to_str().unwrap(),
    ]);
    assert_eq!(lines[0]["drop_reason"], "bad_icrc");
    for name in [
        "roce_vectors.pcap",
        "extra_vectors.pcap",
        "external_vectors.pcap",
    ] {
        let (code, lines, err) = ferroce(&["rx-replay", dir.join(name).to_str().unwrap()]);
        assert_eq!(code, Some(0), "{err}");
        let n = lines.len() - 1;
        assert!(
            lines[..n].iter().all(|l| l["accepted"] == true),
            "{name}: {lines:?}"
        );
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tx_{name}"));
        let (code, lines, err) = ferroce(&[
            "tx-replay",
            dir.join(name).to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{name}: {err} {lines:?}");
    }
}

/// A small capture of every kind of verdict: random RoCE frames of every opcode (every third one
/// with a bit of its ICRC flipped), one cut short, one PFC frame.
fn mixed_capture(name: &str) -> PathBuf {
    let mut rng = Rng::new(21);
    let spec = FrameSpec {
        max_payload: 600,
        ..FrameSpec::default()
    };
    let mut frames: Vec<Vec<u8>> = (0..18)
        .map(|i| {
            let mut f = random_roce_frame(&mut rng, &spec).emit();
            if i % 3 == 2 {
                let at = f.len() - 1 - rng.below(4) as usize;
                f[at] ^= 0x10;
            }
            f
        })
        .collect();
    let short = frames[0][..40].to_vec();
    frames.push(short);
    // PFC (IEEE 802.1Qbb): MAC control to 01:80:c2:00:00:01, opcode 0x0101, classes 3 and 5.
    let mut pfc = vec![
        0x01, 0x80, 0xc2, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0x08,
    ];
    pfc.extend_from_slice(&[0x01, 0x01, 0x00, 0x28]);
    for class in 0..8u16 {
        pfc.extend_from_slice(
            &(if class == 3 || class == 5 {
                0xFFFF
            } else {
                0u16
            })
            .to_be_bytes(),
        );
    }
    pfc.resize(60, 0);
    frames.push(pfc);
    write_capture(name, &frames)
}

/// Both engines on the same capture: rx-replay's lines (verdicts, released fields, PFC, counters,
/// cycles) are identical, and so are tx-replay's rebuilt frames and summary (cycles included).
#[test]
fn replays_agree_on_both_engines() {
    if !require_tool("verilator") {
        return;
    }
    let input = mixed_capture("engines_in.pcap");
    let input = input.to_str().unwrap();
    let (mut rx, mut tx) = (vec![], vec![]);
    for engine in ["verilator", "rust-hdl"] {
        let (code, lines, err) = ferroce(&["rx-replay", input, "--engine", engine]);
        assert_eq!(code, Some(0), "{engine}: {err}");
        rx.push(lines);
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("engines_{engine}.pcap"));
        let (code, lines, err) = ferroce(&[
            "tx-replay",
            input,
            "--out",
            out.to_str().unwrap(),
            "--engine",
            engine,
        ]);
        // exit 1: the frames with a flipped ICRC bit are rebuilt with the right ICRC
        assert_eq!(code, Some(1), "{engine}: {err}");
        tx.push((lines, std::fs::read(&out).unwrap()));
    }
    // the capture exercises every path: accepted and dropped frames, a PFC release
    let summary = rx[0].last().unwrap();
    assert_eq!(summary["frames"], 20);
    assert!(summary["accepted"].as_u64().unwrap() >= 10, "{summary}");
    assert_eq!(summary["drop_reasons"]["bad_icrc"], 6, "{summary}");
    assert_eq!(summary["drop_reasons"]["truncated"], 1, "{summary}");
    // the PFC frame (the last) gets its own pause times, even though its pulse overtakes the
    // payload of the frame before it; no other frame gets a PFC field
    let pfc = &rx[0][19];
    assert_eq!(pfc["kind"], "pfc", "{pfc}");
    assert_eq!(pfc["opcode"], Value::Null, "{pfc}");
    assert_eq!(pfc["pfc"]["class_enable"], 0x28, "{pfc}");
    let times = serde_json::json!([0, 0, 0, 0xFFFF, 0, 0xFFFF, 0, 0]);
    assert_eq!(pfc["pfc"]["times"], times, "{pfc}");
    assert_eq!(rx[0].iter().filter(|l| !l["pfc"].is_null()).count(), 1);
    assert_eq!(rx[0], rx[1], "rx-replay: the engines differ");
    assert_eq!(tx[0].0[0]["identical"], 12, "{:?}", tx[0].0);
    assert_eq!(tx[0].0[0]["different"], 6, "{:?}", tx[0].0);
    assert_eq!(tx[0], tx[1], "tx-replay: the engines differ");
}

/// `rx-replay --vcd` on both engines: the run's lines are those of a run without it; the file
/// holds exactly the window asked for (one dump a cycle on rust-hdl, one after each edge on
/// Verilator) with the parser's hierarchical signal names, in which its readout state machine
/// and its receive front end change; GTKWave's reader reads both files with the same (the
/// rust-hdl engine's states as names, the Verilator engine's as numbers).
#[test]
fn rx_replay_vcd_on_both_engines() {
    if !require_tool("verilator") {
        return;
    }
    let input = mixed_capture("vcd_in.pcap");
    let input = input.to_str().unwrap();
    let (from, cycles) = (20u64, 300u64);
    for (engine, dumps, prefix) in [("rust-hdl", 1, "uut."), ("verilator", 2, "TOP.")] {
        let (_, plain, _) = ferroce(&["rx-replay", input, "--engine", engine]);
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("rx_{engine}.vcd"));
        let options = vcd_options(&path, from, cycles);
        let mut args = vec!["rx-replay", input, "--engine", engine];
        args.extend(options.iter().map(String::as_str));
        let (code, lines, err) = ferroce(&args);
        assert_eq!(code, Some(0), "{engine}: {err}");
        assert_eq!(lines, plain, "{engine}: --vcd changed the run");
        let mut readers = vec![(read_vcd(&path), "our reader")];
        readers.extend(read_vcd_with_gtkwave(&path).map(|v| (v, "GTKWave")));
        for (vcd, reader) in readers {
            let what = format!("{engine}, {reader}");
            vcd.assert_window(&what, from, cycles, PERIOD_PS, dumps);
            assert!(
                vcd.names.values().flatten().all(|n| n.starts_with(prefix)),
                "{what}: not one hierarchy"
            );
            let state = if engine == "verilator" {
                ".readout.state$q"
            } else {
                ".readout.state.q"
            };
            assert!(vcd.changes_of(state) > 0, "{what}: readout state constant");
            assert!(
                vcd.changes_of(".ingest.front.s_state") > 0,
                "{what}: front end constant"
            );
        }
    }
}

/// The engine and waveform options are checked before anything runs: an unknown engine, an
/// empty window or a file that cannot be created exit 2 naming the option.
#[test]
fn replay_options_are_checked() {
    let input = mixed_capture("options_in.pcap");
    let input = input.to_str().unwrap();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("options_out.pcap");
    let nowhere = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no/such/dir/x.vcd");
    for cmd in [
        vec!["rx-replay", input],
        vec!["tx-replay", input, "--out", out.to_str().unwrap()],
    ] {
        for (bad, why) in [
            (
                vec!["--engine", "iverilog"],
                "--engine 'iverilog' is not an engine",
            ),
            (
                vec!["--vcd", "x.vcd", "--vcd-cycles", "0"],
                "--vcd-cycles must be at least 1",
            ),
            (vec!["--vcd", nowhere.to_str().unwrap()], "--vcd "),
        ] {
            let args: Vec<&str> = cmd.iter().chain(&bad).copied().collect();
            let (code, lines, err) = ferroce(&args);
            assert_eq!(code, Some(2), "{args:?}: {err}");
            assert!(lines.is_empty(), "{args:?}: ran anyway");
            assert!(err.contains(why), "{args:?}: {err}");
        }
    }
}

/// `tx-replay --vcd` on the rust-hdl engine: the same summary and frames as without it, and the
/// window asked for, one dump a cycle, in which the builder's ICRC generator (`gen`) runs.
#[test]
fn tx_replay_vcd_on_rust_hdl() {
    let input = mixed_capture("tx_vcd_in.pcap");
    let input = input.to_str().unwrap();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (from, cycles) = (5u64, 200u64);
    let mut runs = vec![];
    for vcd in [None, Some(tmp.join("tx_rust-hdl.vcd"))] {
        let out = tmp.join("tx_vcd_out.pcap");
        let mut args = vec!["tx-replay", input, "--out", out.to_str().unwrap()];
        args.extend(["--engine", "rust-hdl"]);
        let options = vcd.as_ref().map(|p| vcd_options(p, from, cycles));
        args.extend(options.iter().flatten().map(String::as_str));
        let (code, lines, err) = ferroce(&args);
        assert_eq!(code, Some(1), "{err}"); // the frames with a flipped ICRC bit differ
        runs.push((lines, std::fs::read(&out).unwrap()));
        if let Some(p) = vcd {
            let vcd = read_vcd(&p);
            vcd.assert_window("tx-replay", from, cycles, PERIOD_PS, 1);
            assert!(
                vcd.changes_of("uut.gen.front.s_state") > 0,
                "ICRC state constant"
            );
        }
    }
    assert_eq!(runs[0], runs[1], "--vcd changed the run");
}
