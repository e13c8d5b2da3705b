//! Every classic-pcap error kind, its offset and its message.

use ferroce_proto::pcap::{self, PcapErrorKind, PcapWriter, MAX_RECORD_LEN};

/// A valid little-endian nanosecond pcap with two 100-byte frames.
fn valid() -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    w.write_packet(1, &[0xAA; 100]).unwrap();
    w.write_packet(2, &[0xBB; 100]).unwrap();
    w.into_inner()
}

#[test]
fn unreadable_file_names_the_file() {
    let path = std::env::temp_dir().join("ferroce_no_such_dir_for_pcap_test/capture.pcap");
    let err = pcap::read_file(&path).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::Io(_)));
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{}: cannot read: ", path.display())),
        "{msg}"
    );
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn foreign_file_bad_magic() {
    let err = pcap::read_named_bytes("notes.txt", b"hello world, not a capture").unwrap_err();
    assert!(matches!(
        err.kind,
        PcapErrorKind::BadMagic { magic: 0x6865_6c6c }
    ));
    assert_eq!(err.offset, 0);
    assert_eq!(
        err.to_string(),
        "notes.txt: not a pcap or pcapng file (magic 0x68656c6c) at byte 0"
    );
}

#[test]
fn truncated_file_header() {
    let f = valid();
    for n in [0, 3, 4, 23] {
        let err = pcap::read_named_bytes("capture.pcap", &f[..n]).unwrap_err();
        assert!(
            matches!(err.kind, PcapErrorKind::TruncatedFileHeader),
            "{n}: {err}"
        );
        assert_eq!(
            err.to_string(),
            "capture.pcap: truncated file header at byte 0"
        );
    }
}

#[test]
fn truncated_record_header() {
    let f = valid();
    let second = 24 + 16 + 100;
    let err = pcap::read_named_bytes("capture.pcap", &f[..second + 10]).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::TruncatedRecordHeader));
    assert_eq!(err.offset, second as u64);
    assert_eq!(
        err.to_string(),
        format!("capture.pcap: truncated record header at byte {second}")
    );
}

#[test]
fn truncated_record() {
    let f = valid();
    let second = 24 + 16 + 100;
    let err = pcap::read_named_bytes("capture.pcap", &f[..f.len() - 1]).unwrap_err();
    assert!(matches!(
        err.kind,
        PcapErrorKind::TruncatedRecord {
            declared: 100,
            available: 99
        }
    ));
    assert_eq!(err.offset, second as u64);
    assert_eq!(
        err.to_string(),
        format!("capture.pcap: truncated record at byte {second} (100 bytes declared, 99 present)")
    );
}

#[test]
fn record_too_long() {
    let mut f = valid();
    // incl_len of the first record, little-endian at 24 + 8.
    f[32..36].copy_from_slice(&(MAX_RECORD_LEN + 1).to_le_bytes());
    let err = pcap::read_named_bytes("capture.pcap", &f).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::RecordTooLong { len } if len == MAX_RECORD_LEN + 1));
    assert_eq!(err.offset, 24);
    assert_eq!(
        err.to_string(),
        "capture.pcap: record length 262145 exceeds the 262144-byte limit at byte 24"
    );

    // Exactly the limit is fine (if the data is there).
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    w.write_packet(0, &vec![0; MAX_RECORD_LEN as usize])
        .unwrap();
    assert_eq!(
        pcap::read_bytes(w.get_ref()).unwrap().records[0].data.len(),
        MAX_RECORD_LEN as usize
    );
}

#[test]
fn record_boundary_truncation_is_a_shorter_capture() {
    let f = valid();
    let cap = pcap::read_bytes(&f[..24 + 16 + 100]).unwrap();
    assert_eq!(cap.len(), 1);
}
