//! The proto crate against outside oracles: tshark's RoCE dissector for every header field, and
//! scapy's own ICRC implementation (scapy.contrib.roce) for the ICRC, over a few hundred random
//! frames of every opcode on IPv4, IPv6 and RoCEv1.
//!
//! These tests need tshark and Debian's python3-scapy (`scripts/install-tools.sh`). Without them
//! they fail, or are skipped and say so under `FERROCE_SKIP_MISSING_TOOLS=1` (`ferroce_testkit`).

use std::path::{Path, PathBuf};
use std::process::Command;

use ferroce_proto::pcap::PcapWriter;
use ferroce_proto::testgen::{random_roce_frame, FrameSpec, NetMix, Rng};
use ferroce_proto::wire::{FrameRepr, RoceNet};

const FRAMES: usize = 400;

/// True if `tool` runs (`probe` succeeds); otherwise the outside-tool policy of
/// `ferroce_testkit` (the test fails, or is skipped and says so under the opt-out).
fn have_tool(tool: &str, probe: &[&str]) -> bool {
    let name = if tool == "/usr/bin/python3" {
        "python3-scapy"
    } else {
        tool
    };
    ferroce_testkit::require(
        name,
        Command::new(tool).args(probe),
        ferroce_testkit::install_hint(name),
    )
}

fn write_capture(name: &str, frames: &[FrameRepr]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(name);
    let mut writer = PcapWriter::create(&path).expect("create pcap");
    for (i, frame) in frames.iter().enumerate() {
        writer
            .write_packet(i as u64 * 1000, &frame.emit())
            .expect("write pcap");
    }
    writer.flush().expect("flush pcap");
    path
}

fn random_frames(seed: u64, nets: NetMix) -> Vec<FrameRepr> {
    let mut rng = Rng::new(seed);
    let spec = FrameSpec {
        nets,
        max_payload: 1500,
        ..FrameSpec::default()
    };
    (0..FRAMES)
        .map(|_| random_roce_frame(&mut rng, &spec))
        .collect()
}

/// tshark's heuristic sub-dissectors can claim SEND payloads and mark them malformed; TFTP
/// claims UDP port 69 (docs/PROTOCOL.md §1.1).
const DISABLED: &[&str] = &[
    "rpcordma",
    "smc",
    "smb_direct",
    "nvme-rdma",
    "lnet",
    "iser",
    "infiniband_sdp",
    "fcoib",
    "tftp",
];

const FIELDS: &[&str] = &[
    "frame.number",
    "infiniband.bth.opcode",
    "infiniband.bth.destqp",
    "infiniband.bth.psn",
    "infiniband.bth.a",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.p_key",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome",
    "infiniband.aeth.msn",
    "infiniband.atomiceth.swapdt",
    "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh.origremdt",
    "infiniband.immdt",
    "infiniband.deth.q_key",
    "infiniband.deth.srcqp",
    "infiniband.invariant.crc",
];

fn tshark_rows(path: &Path) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    for proto in DISABLED {
        cmd.args(["--disable-protocol", proto]);
    }
    cmd.arg("-r")
        .arg(path)
        .args(["-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]);
    for field in FIELDS {
        cmd.args(["-e", field]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("tshark output is UTF-8")
        .lines()
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect()
}

/// tshark prints numbers in decimal or 0x-hex depending on the field.
fn num(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() {
        None
    } else if let Some(hex) = s.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()
    } else {
        s.parse().ok()
    }
}

#[test]
fn tshark_dissects_random_frames_like_proto() {
    if !have_tool("tshark", &["--version"]) {
        return;
    }
    let frames = random_frames(0x7e57_0001, NetMix::ALL);
    let path = write_capture("oracle_tshark.pcap", &frames);
    let rows = tshark_rows(&path);
    assert_eq!(
        rows.len(),
        frames.len(),
        "tshark saw a different number of frames"
    );
    let mut checked_fields = 0usize;
    for (frame, row) in frames.iter().zip(&rows) {
        let f = |name: &str| num(&row[FIELDS.iter().position(|x| *x == name).unwrap()]);
        let roce = frame.roce().unwrap();
        let bth = &roce.bth;
        let ctx = format!("frame {} ({})", row[0], bth.opcode);
        let mut check = |name: &str, want: u64| {
            assert_eq!(f(name), Some(want), "{ctx}: tshark {name}");
            checked_fields += 1;
        };
        check("infiniband.bth.opcode", bth.opcode.0 as u64);
        check("infiniband.bth.destqp", bth.dest_qp as u64);
        if bth.opcode.is_cnp() {
            continue; // tshark 4.0 does not know the CNP beyond its opcode and QP
        }
        check("infiniband.bth.psn", bth.psn as u64);
        check("infiniband.bth.a", bth.ack_req as u64);
        check("infiniband.bth.se", bth.solicited as u64);
        check("infiniband.bth.m", bth.mig_req as u64);
        check("infiniband.bth.padcnt", bth.pad_cnt as u64);
        check("infiniband.bth.p_key", bth.pkey as u64);
        check(
            "infiniband.invariant.crc",
            u32::from_be_bytes(roce.icrc.to_le_bytes()) as u64,
        );
        let ext = &roce.ext;
        if let Some(h) = ext.reth {
            check("infiniband.reth.va", h.va);
            check("infiniband.reth.r_key", h.rkey as u64);
            check("infiniband.reth.dmalen", h.dma_len as u64);
        }
        if let Some(h) = ext.atomic_eth {
            // tshark shows the AtomicETH VA and R_Key under the RETH field names.
            check("infiniband.reth.va", h.va);
            check("infiniband.reth.r_key", h.rkey as u64);
            check("infiniband.atomiceth.swapdt", h.swap_add);
            check("infiniband.atomiceth.cmpdt", h.compare);
        }
        if let Some(h) = ext.aeth {
            check("infiniband.aeth.syndrome", h.syndrome as u64);
            check("infiniband.aeth.msn", h.msn as u64);
        }
        if let Some(h) = ext.atomic_ack_eth {
            check("infiniband.atomicacketh.origremdt", h.orig);
        }
        if let Some(h) = ext.imm_dt {
            let shown = row[FIELDS
                .iter()
                .position(|x| *x == "infiniband.immdt")
                .unwrap()]
            .clone();
            assert_eq!(
                u32::from_str_radix(shown.trim(), 16).ok(),
                Some(h.imm),
                "{ctx}: tshark immdt"
            );
        }
        if let Some(h) = ext.deth {
            check("infiniband.deth.q_key", h.qkey as u64);
            check("infiniband.deth.srcqp", h.src_qp as u64);
        }
    }
    eprintln!(
        "tshark agreed on {checked_fields} fields of {} frames",
        frames.len()
    );
    assert!(checked_fields > FRAMES * 8);
}

#[test]
fn scapy_computes_the_same_icrc() {
    if !have_tool("/usr/bin/python3", &["-c", "import scapy.contrib.roce"]) {
        return;
    }
    // scapy's compute_icrc handles IPv4 only.
    let frames = random_frames(0x7e57_0002, NetMix::IPV4);
    let path = write_capture("oracle_scapy.pcap", &frames);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/scapy_icrc.py");
    let out = Command::new("/usr/bin/python3")
        .arg(script)
        .arg(&path)
        .output()
        .expect("run scapy");
    assert!(
        out.status.success(),
        "scapy failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        frames.len(),
        "scapy saw a different number of RoCEv2/IPv4 frames"
    );
    for (frame, line) in frames.iter().zip(lines) {
        let (number, icrc_hex) = line.split_once(' ').expect("scapy line");
        let ours = frame.roce().unwrap().compute_icrc().to_le_bytes();
        let ours_hex: String = ours.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(icrc_hex, ours_hex, "frame {number}: scapy ICRC differs");
        assert!(matches!(frame.roce().unwrap().net, RoceNet::Ipv4 { .. }));
    }
}
