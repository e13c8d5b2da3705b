//! Classic pcap: writer -> reader round trips and hand-built files in both byte orders.

use ferroce_proto::pcap::{
    self, CaptureFormat, PcapErrorKind, PcapRecord, PcapWriter, LINKTYPE_ETHERNET, MAX_RECORD_LEN,
};

fn frame(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn writer_reader_round_trip() {
    let packets: Vec<(u64, Vec<u8>)> = vec![
        (0, frame(60, 1)),
        (1_650_000_000_123_456_789, frame(1082, 2)),
        (1_650_000_000_999_999_999, frame(0, 3)),
        (4_294_967_295_999_999_999, frame(MAX_RECORD_LEN as usize, 4)), // last representable second
    ];
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    for (ts, data) in &packets {
        w.write_packet(*ts, data).unwrap();
    }
    let bytes = w.into_inner();

    let cap = pcap::read_bytes(&bytes).unwrap();
    assert_eq!(cap.name, "<memory>");
    assert_eq!(
        cap.format,
        CaptureFormat::Pcap {
            big_endian: false,
            nanosecond: true
        }
    );
    assert_eq!(cap.link_type(), Some(LINKTYPE_ETHERNET));
    assert_eq!(cap.interfaces[0].snaplen, MAX_RECORD_LEN);
    assert_eq!(cap.len(), packets.len());
    for (rec, (ts, data)) in cap.records.iter().zip(&packets) {
        assert_eq!(rec.ts_ns, *ts);
        assert_eq!(&rec.data, data);
        assert_eq!(rec.orig_len as usize, data.len());
        assert_eq!(rec.interface, 0);
        assert!(!rec.is_truncated());
    }
    let cap = cap.ensure_ethernet().unwrap();
    assert_eq!(cap.frames().count(), packets.len());
}

#[test]
fn write_record_keeps_orig_len() {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    let rec = PcapRecord {
        ts_ns: 5_000,
        orig_len: 1500,
        interface: 3,
        data: frame(64, 9),
    };
    w.write_record(&rec).unwrap();
    // orig_len below the data length is raised to it.
    w.write_record(&PcapRecord {
        orig_len: 1,
        ..PcapRecord::new(6_000, frame(10, 1))
    })
    .unwrap();
    let cap = pcap::read_bytes(w.get_ref()).unwrap();
    assert_eq!(
        cap.records[0],
        PcapRecord {
            interface: 0,
            ..rec
        }
    );
    assert!(cap.records[0].is_truncated());
    assert_eq!(cap.records[1].orig_len, 10);
}

#[test]
fn writer_rejects_unrepresentable_packets() {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    let too_long = vec![0u8; MAX_RECORD_LEN as usize + 1];
    assert_eq!(
        w.write_packet(0, &too_long).unwrap_err().kind(),
        std::io::ErrorKind::InvalidInput
    );
    let err = w
        .write_packet(4_294_967_296 * 1_000_000_000, &[1])
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    // Nothing was written by the failed calls.
    assert_eq!(w.get_ref().len(), 24);
}

#[test]
fn create_and_read_file() {
    let path = std::env::temp_dir().join(format!(
        "ferroce_pcap_roundtrip_{}.pcap",
        std::process::id()
    ));
    let mut w = PcapWriter::create(&path).unwrap();
    w.write_packet(1_000_000_001, &frame(100, 7)).unwrap();
    w.flush().unwrap();
    drop(w);
    let cap = pcap::read_file(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(cap.name, path.display().to_string());
    assert_eq!(
        cap.records,
        vec![PcapRecord::new(1_000_000_001, frame(100, 7))]
    );
}

/// Builds a classic pcap by hand: `be` selects big-endian, `ns` nanosecond magic.
fn classic(be: bool, ns: bool, link: u32, records: &[(u32, u32, u32, &[u8])]) -> Vec<u8> {
    let w32 = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let w16 = |v: u16| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let mut f = Vec::new();
    f.extend_from_slice(&w32(if ns { 0xA1B2_3C4D } else { 0xA1B2_C3D4 }));
    f.extend_from_slice(&w16(2));
    f.extend_from_slice(&w16(4));
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&w32(65535));
    f.extend_from_slice(&w32(link));
    for &(sec, frac, orig, data) in records {
        f.extend_from_slice(&w32(sec));
        f.extend_from_slice(&w32(frac));
        f.extend_from_slice(&w32(data.len() as u32));
        f.extend_from_slice(&w32(orig));
        f.extend_from_slice(data);
    }
    f
}

#[test]
fn both_byte_orders_and_resolutions() {
    let a = frame(42, 1);
    let b = frame(7, 2);
    for be in [false, true] {
        for ns in [false, true] {
            let f = classic(be, ns, 1, &[(10, 500, 42, &a), (11, 999_999, 100, &b)]);
            let cap = pcap::read_bytes(&f).unwrap();
            assert_eq!(
                cap.format,
                CaptureFormat::Pcap {
                    big_endian: be,
                    nanosecond: ns
                }
            );
            assert_eq!(cap.link_type(), Some(1));
            assert_eq!(cap.interfaces[0].snaplen, 65535);
            let unit = if ns { 1 } else { 1_000 };
            assert_eq!(cap.records[0].ts_ns, 10_000_000_000 + 500 * unit);
            assert_eq!(cap.records[1].ts_ns, 11_000_000_000 + 999_999 * unit);
            assert_eq!(cap.records[0].data, a);
            assert_eq!(cap.records[1].data, b);
            assert_eq!(cap.records[1].orig_len, 100);
            assert!(cap.records[1].is_truncated());
        }
    }
}

#[test]
fn header_only_file_is_empty_capture() {
    let f = classic(false, false, 1, &[]);
    let cap = pcap::read_bytes(&f).unwrap();
    assert!(cap.is_empty());
}

#[test]
fn non_ethernet_link_type_reported_and_rejectable() {
    // LINKTYPE_RAW (101), with FCS flag bits in the upper half that must be ignored.
    let f = classic(
        true,
        false,
        0x1000_0000 | 101,
        &[(0, 0, 4, &[0x45, 0, 0, 4])],
    );
    let cap = pcap::read_bytes(&f).unwrap();
    assert_eq!(cap.link_type(), Some(101));
    let err = cap.ensure_ethernet().unwrap_err();
    assert!(matches!(
        err.kind,
        PcapErrorKind::NonEthernetLinkType { link_type: 101 }
    ));
    assert_eq!(err.offset, 20);
    assert_eq!(
        err.to_string(),
        "<memory>: link type 101 is not Ethernet (1) at byte 20"
    );
}
