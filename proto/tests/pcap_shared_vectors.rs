//! The shared capture files: the real hardware capture (docs/PROTOCOL.md §11) and the vector pcaps.
//! Runs only when `../shared/vectors` exists next to the workspace.

use std::path::PathBuf;

use ferroce_proto::pcap::{self, CaptureFormat, PcapWriter, LINKTYPE_ETHERNET};

fn vectors_dir() -> Option<PathBuf> {
    ferroce_proto::testgen::shared_vectors_dir()
}

#[test]
fn real_capture_has_123_frames() {
    let Some(dir) = vectors_dir() else { return };
    let cap = pcap::read_file(dir.join("real/hw_send_imm_ack_mtu1024.pcap")).unwrap();
    assert_eq!(
        cap.format,
        CaptureFormat::Pcap {
            big_endian: false,
            nanosecond: false
        }
    );
    assert_eq!(cap.link_type(), Some(LINKTYPE_ETHERNET));
    assert_eq!(cap.len(), 123);
    assert!(cap.records.iter().all(|r| !r.is_truncated()));
    // Microsecond timestamps scaled to ns. (Frame 66 is stamped 1 µs before frame 65: the
    // capture is not strictly monotonic, so nothing here may assume it is.)
    assert_eq!(cap.records[66].ts_ns, 1_650_970_190_671_271_000);
    assert_eq!(cap.records[65].ts_ns, 1_650_970_190_671_272_000);
    // About 21.3 s in all (2022-04-26).
    let span = cap.records[122].ts_ns - cap.records[0].ts_ns;
    assert!(
        (21_000_000_000..22_000_000_000).contains(&span),
        "span {span}"
    );
    assert!(cap.records[0].ts_ns / 1_000_000_000 > 1_650_000_000);
    // PMTU 1024: SEND_FIRST frames are 1082 bytes.
    assert!(cap.frames().any(|f| f.len() == 1082));
}

/// Writing a real capture back out and reading it again preserves every frame and timestamp.
#[test]
fn real_capture_rewrite_round_trip() {
    let Some(dir) = vectors_dir() else { return };
    let cap = pcap::read_file(dir.join("real/hw_send_imm_ack_mtu1024.pcap")).unwrap();
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    for r in &cap.records {
        w.write_record(r).unwrap();
    }
    let again = pcap::read_bytes(w.get_ref()).unwrap();
    assert_eq!(again.records, cap.records);
}

/// roce_vectors.pcap holds exactly the frames of roce_vectors.hex.
#[test]
fn vector_pcap_matches_hex() {
    let Some(dir) = vectors_dir() else { return };
    let cap = pcap::read_file(dir.join("roce_vectors.pcap"))
        .unwrap()
        .ensure_ethernet()
        .unwrap();
    let text = std::fs::read_to_string(dir.join("roce_vectors.hex")).unwrap();
    let hex_frames: Vec<Vec<u8>> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            (0..l.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&l[i..i + 2], 16).unwrap())
                .collect()
        })
        .collect();
    assert_eq!(hex_frames.len(), 13);
    let frames: Vec<Vec<u8>> = cap.frames().map(<[u8]>::to_vec).collect();
    assert_eq!(frames, hex_frames);
}

#[test]
fn all_shared_pcaps_are_readable_ethernet() {
    let Some(dir) = vectors_dir() else { return };
    for (name, frames) in [
        ("roce_vectors.pcap", 13),
        ("extra_vectors.pcap", 3),
        ("external_vectors.pcap", 2),
        ("roce_bad_icrc.pcap", 1),
    ] {
        let cap = pcap::read_file(dir.join(name))
            .unwrap()
            .ensure_ethernet()
            .unwrap();
        assert_eq!(cap.len(), frames, "{name}");
    }
}
