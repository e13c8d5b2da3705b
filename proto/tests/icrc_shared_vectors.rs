//! ICRC over the shared vector files and the real hardware capture (docs/PROTOCOL.md §11), read
//! with our pcap reader. Runs only when `../shared/vectors` exists next to the workspace.

use std::path::PathBuf;

use ferroce_proto::icrc::{self, IcrcNet, ICRC_LEN};
use ferroce_proto::pcap;

fn vectors_dir() -> Option<PathBuf> {
    ferroce_proto::testgen::shared_vectors_dir()
}

/// Locates the ICRC-covered bytes of a RoCE frame: `(flavour, l3 including the ICRC)`.
/// Uses the UDP length (or GRH payload length) rather than the frame end, because short frames
/// carry Ethernet padding after the ICRC. `None` for anything that is not RoCE.
fn roce_l3(frame: &[u8]) -> Option<(IcrcNet, &[u8])> {
    let ethertype = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
    let l3 = frame.get(14..)?;
    let udp_dport = |udp: &[u8]| u16::from_be_bytes([udp[2], udp[3]]);
    let (net, len) = match ethertype {
        0x0800 => {
            let udp = l3.get(20..28)?;
            if l3[9] != 17 || udp_dport(udp) != 4791 {
                return None;
            }
            (
                IcrcNet::Ipv4,
                20 + u16::from_be_bytes([udp[4], udp[5]]) as usize,
            )
        }
        0x86DD => {
            let udp = l3.get(40..48)?;
            if l3[6] != 17 || udp_dport(udp) != 4791 {
                return None;
            }
            (
                IcrcNet::Ipv6,
                40 + u16::from_be_bytes([udp[4], udp[5]]) as usize,
            )
        }
        0x8915 => (
            IcrcNet::RoceV1,
            40 + u16::from_be_bytes([*l3.get(4)?, *l3.get(5)?]) as usize,
        ),
        _ => return None,
    };
    Some((net, l3.get(..len)?))
}

/// (RoCE frames, of which ICRC-valid) in a capture file.
fn check_file(name: &str) -> Option<(usize, usize)> {
    let path = vectors_dir()?.join(name);
    let cap = pcap::read_file(&path).unwrap().ensure_ethernet().unwrap();
    let mut roce = 0;
    let mut good = 0;
    for frame in cap.frames() {
        if let Some((net, l3)) = roce_l3(frame) {
            roce += 1;
            assert!(l3.len() > ICRC_LEN);
            if icrc::verify(net, l3) {
                good += 1;
            }
        }
    }
    Some((roce, good))
}

#[test]
fn real_hardware_capture_all_icrcs_valid() {
    if let Some((roce, good)) = check_file("real/hw_send_imm_ack_mtu1024.pcap") {
        assert_eq!(roce, 105);
        assert_eq!(good, 105);
    }
}

#[test]
fn vector_pcaps_valid() {
    if let Some((roce, good)) = check_file("roce_vectors.pcap") {
        assert_eq!(roce, 13);
        assert_eq!(good, 13);
    }
    // RoCEv1 and UD vectors (the PFC frame is not RoCE).
    if let Some((roce, good)) = check_file("extra_vectors.pcap") {
        assert_eq!(roce, 2);
        assert_eq!(good, 2);
    }
    // The real CX-4 Lx CNP and scapy's UC regression packet (TOS 0x01, UDP checksum 0xaca2).
    if let Some((roce, good)) = check_file("external_vectors.pcap") {
        assert_eq!(roce, 2);
        assert_eq!(good, 2);
    }
}

#[test]
fn bad_icrc_pcap_detected() {
    if let Some((roce, good)) = check_file("roce_bad_icrc.pcap") {
        assert_eq!(roce, 1);
        assert_eq!(good, 0);
    }
}

/// The hex vector files: one frame per line, `#` comments.
#[test]
fn hex_vector_files_valid() {
    let Some(dir) = vectors_dir() else { return };
    let mut checked = 0;
    for name in ["roce_vectors.hex", "extra_vectors.hex", "cx4lx_cnp.hex"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        for line in text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let frame: Vec<u8> = (0..line.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&line[i..i + 2], 16).unwrap())
                .collect();
            if let Some((net, l3)) = roce_l3(&frame) {
                assert!(icrc::verify(net, l3), "{name}: {line}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 13 + 2 + 1);
}
