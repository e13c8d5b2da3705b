//! The reader never panics: arbitrary bytes, arbitrary bytes behind each valid magic, and
//! truncated or corrupted valid files.

use ferroce_proto::pcap::{self, PcapWriter};
use proptest::prelude::*;

/// A valid classic pcap with a few frames.
fn valid_pcap() -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    for i in 0..4u8 {
        w.write_packet(u64::from(i) * 1_000, &vec![i; 30 + usize::from(i) * 7])
            .unwrap();
    }
    w.into_inner()
}

/// A valid little-endian pcapng: SHB, IDB with if_tsresol, two EPBs, an SPB.
fn valid_pcapng() -> Vec<u8> {
    fn block(out: &mut Vec<u8>, t: u32, body: &[u8]) {
        let mut body = body.to_vec();
        while !body.len().is_multiple_of(4) {
            body.push(0);
        }
        let total = (12 + body.len()) as u32;
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&total.to_le_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&total.to_le_bytes());
    }
    let mut out = Vec::new();
    let mut shb = 0x1A2B_3C4Du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&[0xFF; 8]);
    block(&mut out, 0x0A0D_0D0A, &shb);
    block(
        &mut out,
        1,
        &[1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0],
    );
    for i in 0..2u8 {
        let mut epb = vec![0, 0, 0, 0, 0, 0, 0, 0, i, 0, 0, 0, 13, 0, 0, 0, 13, 0, 0, 0];
        epb.extend_from_slice(&[i; 13]);
        block(&mut out, 6, &epb);
    }
    let mut spb = vec![9, 0, 0, 0];
    spb.extend_from_slice(&[7; 9]);
    block(&mut out, 3, &spb);
    out
}

#[test]
fn valid_files_parse() {
    assert_eq!(pcap::read_bytes(&valid_pcap()).unwrap().len(), 4);
    assert_eq!(pcap::read_bytes(&valid_pcapng()).unwrap().len(), 3);
}

#[test]
fn every_truncation_of_valid_files() {
    for f in [valid_pcap(), valid_pcapng()] {
        for n in 0..f.len() {
            let _ = pcap::read_bytes(&f[..n]).map(|c| c.len());
        }
    }
}

/// The magics the reader dispatches on, in both byte orders.
const MAGICS: [[u8; 4]; 5] = [
    [0xD4, 0xC3, 0xB2, 0xA1],
    [0xA1, 0xB2, 0xC3, 0xD4],
    [0x4D, 0x3C, 0xB2, 0xA1],
    [0xA1, 0xB2, 0x3C, 0x4D],
    [0x0A, 0x0D, 0x0D, 0x0A],
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = pcap::read_bytes(&bytes);
    }

    /// Past the magic check, so the header and record parsers see random input.
    #[test]
    fn arbitrary_bytes_after_magic(m in 0usize..5, tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = MAGICS[m].to_vec();
        if m == 4 {
            // Give the pcapng section a valid byte-order magic some of the time.
            if tail.first().is_some_and(|b| b & 1 == 0) {
                bytes.extend_from_slice(&[28, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A]);
            }
        }
        bytes.extend_from_slice(&tail);
        let _ = pcap::read_bytes(&bytes);
    }

    /// Corrupt a few bytes of a valid file, then truncate it somewhere.
    #[test]
    fn corrupted_and_truncated_valid_files(ng in any::<bool>(),
                                           edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 0..6),
                                           cut in any::<proptest::sample::Index>()) {
        let mut f = if ng { valid_pcapng() } else { valid_pcap() };
        for (at, v) in edits {
            let i = at.index(f.len());
            f[i] = v;
        }
        let n = cut.index(f.len() + 1);
        let _ = pcap::read_bytes(&f[..n]);
    }
}
