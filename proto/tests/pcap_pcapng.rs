//! pcapng reading, from hand-built files in both byte orders.

use ferroce_proto::pcap::{self, CaptureFormat, PcapErrorKind, LINKTYPE_ETHERNET};

/// Minimal pcapng builder.
struct Ng {
    be: bool,
    out: Vec<u8>,
}

impl Ng {
    fn new() -> Ng {
        Ng {
            be: false,
            out: Vec::new(),
        }
    }
    fn w16(&self, v: u16) -> [u8; 2] {
        if self.be {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    fn w32(&self, v: u32) -> [u8; 4] {
        if self.be {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    /// Appends a block of `block_type` with `body` (padded to 4 bytes).
    fn block(&mut self, block_type: u32, body: &[u8]) -> &mut Ng {
        let mut body = body.to_vec();
        while !body.len().is_multiple_of(4) {
            body.push(0);
        }
        let total = 12 + body.len() as u32;
        let (t, l) = (self.w32(block_type), self.w32(total));
        self.out.extend_from_slice(&t);
        self.out.extend_from_slice(&l);
        self.out.extend_from_slice(&body);
        self.out.extend_from_slice(&l);
        self
    }
    /// Starts a section in the given byte order.
    fn shb(&mut self, be: bool) -> &mut Ng {
        self.be = be;
        let mut body = Vec::new();
        body.extend_from_slice(&self.w32(0x1A2B_3C4D));
        body.extend_from_slice(&self.w16(1));
        body.extend_from_slice(&self.w16(0));
        body.extend_from_slice(&[0xFF; 8]); // section length unknown (-1)
        self.block(0x0A0D_0D0A, &body)
    }
    /// Interface with an optional `if_tsresol` and `if_tsoffset`.
    fn idb(
        &mut self,
        link: u16,
        snaplen: u32,
        tsresol: Option<u8>,
        tsoffset: Option<i64>,
    ) -> &mut Ng {
        let mut body = Vec::new();
        body.extend_from_slice(&self.w16(link));
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&self.w32(snaplen));
        // An if_name option first, to exercise option skipping.
        body.extend_from_slice(&self.w16(2));
        body.extend_from_slice(&self.w16(5));
        body.extend_from_slice(b"eth0\0\0\0\0");
        if let Some(r) = tsresol {
            body.extend_from_slice(&self.w16(9));
            body.extend_from_slice(&self.w16(1));
            body.extend_from_slice(&[r, 0, 0, 0]);
        }
        if let Some(o) = tsoffset {
            body.extend_from_slice(&self.w16(14));
            body.extend_from_slice(&self.w16(8));
            let o = o as u64;
            let bytes = if self.be {
                o.to_be_bytes()
            } else {
                o.to_le_bytes()
            };
            body.extend_from_slice(&bytes);
        }
        body.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
        self.block(1, &body)
    }
    fn epb(&mut self, iface: u32, ticks: u64, orig: u32, data: &[u8]) -> &mut Ng {
        let mut body = Vec::new();
        body.extend_from_slice(&self.w32(iface));
        body.extend_from_slice(&self.w32((ticks >> 32) as u32));
        body.extend_from_slice(&self.w32(ticks as u32));
        body.extend_from_slice(&self.w32(data.len() as u32));
        body.extend_from_slice(&self.w32(orig));
        body.extend_from_slice(data);
        while !body.len().is_multiple_of(4) {
            body.push(0);
        }
        // An epb_flags option, which must be ignored.
        body.extend_from_slice(&self.w16(2));
        body.extend_from_slice(&self.w16(4));
        body.extend_from_slice(&[1, 0, 0, 0]);
        body.extend_from_slice(&[0, 0, 0, 0]);
        self.block(6, &body)
    }
    fn spb(&mut self, orig: u32, data: &[u8]) -> &mut Ng {
        let mut body = self.w32(orig).to_vec();
        body.extend_from_slice(data);
        self.block(3, &body)
    }
    fn opb(&mut self, iface: u16, ticks: u64, data: &[u8]) -> &mut Ng {
        let mut body = Vec::new();
        body.extend_from_slice(&self.w16(iface));
        body.extend_from_slice(&self.w16(0));
        body.extend_from_slice(&self.w32((ticks >> 32) as u32));
        body.extend_from_slice(&self.w32(ticks as u32));
        body.extend_from_slice(&self.w32(data.len() as u32));
        body.extend_from_slice(&self.w32(data.len() as u32));
        body.extend_from_slice(data);
        self.block(2, &body)
    }
}

fn frame(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8) ^ seed).collect()
}

#[test]
fn single_section_both_byte_orders() {
    for be in [false, true] {
        let (a, b, c, d) = (frame(61, 1), frame(64, 2), frame(30, 3), frame(5, 4));
        let mut ng = Ng::new();
        ng.shb(be)
            .idb(LINKTYPE_ETHERNET, 0, None, None) // default resolution: microseconds
            .block(4, &[1, 2, 3, 4, 5, 6, 7, 8]) // name resolution block: skipped
            .block(0x0BAD_1234, &[9; 20]) // unknown/custom block: skipped
            .epb(0, 1_650_000_000_000_001, 61, &a)
            .spb(100, &b) // orig 100, captured 64: truncated
            .block(5, &[0; 12]) // interface statistics: skipped
            .opb(0, 42, &c)
            .spb(5, &d);
        let cap = pcap::read_bytes(&ng.out).unwrap();
        assert_eq!(cap.format, CaptureFormat::PcapNg);
        assert_eq!(cap.interfaces.len(), 1);
        assert_eq!(cap.link_type(), Some(1));
        assert_eq!(cap.interfaces[0].offset, 28 + 8); // after the 28-byte SHB, past the block header
        assert_eq!(cap.len(), 4);

        assert_eq!(cap.records[0].ts_ns, 1_650_000_000_000_001_000);
        assert_eq!(cap.records[0].data, a);
        assert_eq!(cap.records[0].orig_len, 61);

        assert_eq!(cap.records[1].ts_ns, 0); // SPB has no timestamp
        assert_eq!(cap.records[1].data, b);
        assert_eq!(cap.records[1].orig_len, 100);
        assert!(cap.records[1].is_truncated());

        assert_eq!(cap.records[2].ts_ns, 42_000);
        assert_eq!(cap.records[2].data, c);

        // SPB padding bytes are not data: the captured length is min(orig_len, block space).
        assert_eq!(cap.records[3].data, d);
        assert!(cap.ensure_ethernet().is_ok());
    }
}

#[test]
fn multiple_sections_interfaces_and_resolutions() {
    let mut ng = Ng::new();
    ng.shb(false)
        .idb(1, 65535, Some(9), None) // nanoseconds
        .idb(1, 65535, Some(0x80 | 10), Some(100)) // 1/1024 s, +100 s
        .epb(1, 2048, 60, &frame(60, 1))
        .epb(0, 77, 60, &frame(60, 2))
        .shb(true) // a new big-endian section: interface ids restart
        .idb(1, 128, None, None)
        .epb(0, 3, 60, &frame(60, 3))
        .spb(200, &frame(200, 4)); // snaplen 128 limits the SPB
    let cap = pcap::read_bytes(&ng.out).unwrap();
    assert_eq!(cap.interfaces.len(), 3);
    let got: Vec<(u32, u64)> = cap.records.iter().map(|r| (r.interface, r.ts_ns)).collect();
    assert_eq!(got, vec![(1, 102_000_000_000), (0, 77), (2, 3_000), (2, 0)]);
    assert_eq!(cap.records[2].data, frame(60, 3));
    assert_eq!(cap.records[3].data, frame(128, 4));
    assert_eq!(cap.records[3].orig_len, 200);
}

#[test]
fn non_ethernet_interface_rejected_with_its_offset() {
    let mut ng = Ng::new();
    ng.shb(false).idb(1, 0, None, None);
    let second_idb = ng.out.len();
    ng.idb(113, 0, None, None); // Linux cooked capture
    let cap = pcap::read_bytes(&ng.out).unwrap();
    assert_eq!(cap.link_type(), Some(1));
    let err = cap.ensure_ethernet().unwrap_err();
    assert!(matches!(
        err.kind,
        PcapErrorKind::NonEthernetLinkType { link_type: 113 }
    ));
    assert_eq!(err.offset, second_idb as u64 + 8);
}

#[test]
fn section_header_only() {
    let mut ng = Ng::new();
    ng.shb(true);
    let cap = pcap::read_bytes(&ng.out).unwrap();
    assert!(cap.is_empty());
    assert_eq!(cap.link_type(), None);
}

#[test]
fn packet_for_undefined_interface() {
    let mut ng = Ng::new();
    ng.shb(false).idb(1, 0, None, None);
    let at = ng.out.len();
    ng.epb(1, 0, 4, &[1, 2, 3, 4]);
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(matches!(
        err.kind,
        PcapErrorKind::UnknownInterface { interface: 1 }
    ));
    assert_eq!(err.offset, at as u64 + 8);

    // A new section forgets the previous section's interfaces.
    let mut ng = Ng::new();
    ng.shb(false).idb(1, 0, None, None).shb(false);
    let at = ng.out.len();
    ng.spb(4, &[1, 2, 3, 4]);
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(matches!(
        err.kind,
        PcapErrorKind::UnknownInterface { interface: 0 }
    ));
    assert_eq!(err.offset, at as u64);
}

#[test]
fn malformed_blocks() {
    // Trailing length differs from the leading one.
    let mut ng = Ng::new();
    ng.shb(false).idb(1, 0, None, None);
    let at = ng.out.len();
    ng.epb(0, 0, 4, &[1, 2, 3, 4]);
    let last = ng.out.len() - 4;
    ng.out[last] ^= 4;
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::MalformedBlock { .. }));
    assert_eq!(err.offset, at as u64);
    assert!(err
        .to_string()
        .starts_with(&format!("<memory>: malformed pcapng block at byte {at}: ")));

    // Captured length larger than the block.
    let mut ng = Ng::new();
    ng.shb(false).idb(1, 0, None, None);
    let at = ng.out.len();
    ng.epb(0, 0, 4, &[1, 2, 3, 4]);
    ng.out[at + 20] = 200; // captured length field (LE low byte)
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(
        matches!(err.kind, PcapErrorKind::MalformedBlock { .. }),
        "{err}"
    );

    // Block length not a multiple of 4.
    let mut ng = Ng::new();
    ng.shb(false);
    let at = ng.out.len();
    ng.block(4, &[0; 8]);
    ng.out[at + 4] = 21;
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::MalformedBlock { .. }));
    assert_eq!(err.offset, at as u64);

    // Bad byte-order magic.
    let mut ng = Ng::new();
    ng.shb(false);
    ng.out[8] = 0;
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::MalformedBlock { .. }));

    // Unsupported major version.
    let mut ng = Ng::new();
    ng.shb(false);
    ng.out[12] = 2;
    let err = pcap::read_bytes(&ng.out).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::MalformedBlock { .. }));
}

#[test]
fn truncated_pcapng() {
    let mut ng = Ng::new();
    ng.shb(false).idb(1, 0, None, None);
    let at = ng.out.len();
    ng.epb(0, 0, 64, &frame(64, 0));
    let full = ng.out.clone();

    // Inside the first section header: truncated file header.
    let err = pcap::read_bytes(&full[..20]).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::TruncatedFileHeader));
    assert_eq!(err.offset, 0);
    // Inside a block header.
    let err = pcap::read_bytes(&full[..at + 6]).unwrap_err();
    assert!(matches!(err.kind, PcapErrorKind::TruncatedRecordHeader));
    assert_eq!(err.offset, at as u64);
    // Inside a block body.
    let err = pcap::read_bytes(&full[..at + 40]).unwrap_err();
    assert!(
        matches!(
            err.kind,
            PcapErrorKind::TruncatedRecord {
                declared: 108,
                available: 40
            }
        ),
        "{err}"
    );
    assert_eq!(err.offset, at as u64);
    // Every truncation point gives Ok (at a block boundary) or an error, never a panic.
    for n in 0..full.len() {
        let _ = pcap::read_bytes(&full[..n]);
    }
}
