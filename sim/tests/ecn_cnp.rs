//! The DCQCN notification point end to end: two NICs (`ferroce verbs`' scenario, Verilator
//! engine) over a link that marks a seeded fraction of ECN-capable frames CE. Checked:
//! * every message verified; CE packets counted by the receiver (`CNT_RX_ECN_CE`), CNPs counted
//!   where sent (`CNT_CNP_SENT`) and where received (`CNT_CNP_RECEIVED`), equal to the CNPs in
//!   the capture; each CNP addressed to the QP's peer;
//! * per QP, consecutive CNPs on the wire at least `CC_NP_CNP_INTERVAL` (4 us) apart, less the
//!   transmit queueing a CNP can meet (see [`queueing_bound`]); marked packets within the
//!   interval suppressed;
//! * the NIC's CNP equals the ConnectX-4 Lx CNP byte for byte outside the addresses (MACs, IPs,
//!   IPv4 ID and checksum, DestQP, ICRC), and carries a valid ICRC (proto's ICRC and the outside
//!   ICRC oracle over the whole capture);
//! * tshark dissects the NIC's CNPs and the ConnectX one to the same fields (addresses aside).
//!   tshark 4.0 knows a CNP by its opcode (129), BTH fields and 16 reserved bytes only.
//!
//! Needs verilator and tshark (`scripts/install-tools.sh`); the ICRC oracle comes with the
//! published vectors beside the repository (`ferroce_testkit::shared_dir`).
use ferroce_hdl::tx::vectors::{hex, ROCE_MD_VECTORS};
use ferroce_proto::pcap::{read_file, PcapWriter};
use ferroce_proto::wire::{ethertype, EthernetFrame, FrameRepr};
use ferroce_sim::cmd::verbs::{run_scenario_with, Engine, VerbsArgs, VerbsLinkArgs, VerbsReport};
use ferroce_sim::nic_pair::PAIR_CLOCK_HZ;
use ferroce_testkit::{require_tool, shared_dir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const PMTU: usize = 1024;
const QPS: usize = 4;
/// `CC_NP_CNP_INTERVAL` after reset, us.
const INTERVAL_US: u64 = 4;

/// A CNP frame's offsets that depend on the addresses (or on the sender's IP ID counter):
/// MACs, IPv4 ID, header checksum, addresses, BTH DestQP, ICRC.
fn address_byte(i: usize, len: usize) -> bool {
    i < 12
        || (18..20).contains(&i)
        || (24..34).contains(&i)
        || (47..50).contains(&i)
        || i >= len - 4
}

/// Largest difference of the transmit queueing of two CNPs, in cycles: a CNP can wait for the
/// TX builder to finish the frame it is sending and for the formatter's request in progress
/// (one more frame), both at most a PMTU frame (PMTU + 74 header bytes at 8 bytes a cycle), and
/// behind the CNPs of the other QPs (a formatter pass and a 62-byte frame each, 16 cycles).
fn queueing_bound() -> u64 {
    2 * ((PMTU as u64 + 74).div_ceil(8) + 2) + 16 * QPS as u64
}

struct Run {
    report: VerbsReport,
    /// (send time in cycles, sender, frame)
    frames: Vec<(u64, usize, Vec<u8>)>,
    pcap: PathBuf,
}

fn run(ipv6: bool, vlan: Option<u16>) -> Run {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let pcap = dir.join(match (ipv6, vlan) {
        (_, Some(_)) => "ecn_cnp_vlan.pcap",
        (true, None) => "ecn_cnp_v6.pcap",
        (false, None) => "ecn_cnp_v4.pcap",
    });
    let args = VerbsArgs {
        ops: ["write", "read", "send"].map(String::from).to_vec(),
        sizes: ["1", "1024", "6000"].map(String::from).to_vec(),
        qps: QPS,
        messages: 48,
        seed: 21,
        pmtu: PMTU,
        pcap: Some(pcap.clone()),
        json: false,
        dma_jitter: false,
        ipv6,
        vlan,
    };
    let link = VerbsLinkArgs {
        ecn_mark: 0.3,
        ..VerbsLinkArgs::default()
    };
    let report = run_scenario_with(&args, &link, Engine::Verilator).unwrap();
    let cap = read_file(&pcap).unwrap();
    let a_mac = cap.records[0].data[6..12].to_vec();
    let frames = cap
        .records
        .iter()
        .map(|r| {
            let from = if r.data[6..12] == a_mac[..] { 0 } else { 1 };
            let cycle = r.ts_ns as u128 * PAIR_CLOCK_HZ as u128 / 1_000_000_000;
            (cycle as u64, from, r.data.clone())
        })
        .collect();
    Run {
        report,
        frames,
        pcap,
    }
}

fn is_cnp(f: &[u8]) -> bool {
    FrameRepr::parse(f)
        .ok()
        .and_then(|r| r.summary().opcode)
        .is_some_and(|o| o.0 == 0x81)
}

/// The run's checks; the outside ICRC oracle reads `oracle_pcap` (the run's capture, or a copy
/// the oracle can read).
fn check_run(r: &Run, oracle_pcap: &Path) {
    let rep = &r.report;
    assert_eq!(rep.failed, 0, "{:?}", rep.errors);
    assert_eq!(rep.verified, rep.messages, "{:?}", rep.errors);
    let cnps: Vec<&(u64, usize, Vec<u8>)> = r.frames.iter().filter(|f| is_cnp(&f.2)).collect();
    for side in 0..2 {
        let marked_to_side = rep.link[1 - side].ce_marked;
        let sent_by_side = cnps.iter().filter(|f| f.1 == side).count() as u64;
        // every frame the link marked towards this side was an RC packet or a CNP; the NIC
        // counts the RC ones
        assert!(rep.ecn_ce[side] <= marked_to_side, "side {side}: {rep:?}");
        assert_eq!(rep.cnp_sent[side], sent_by_side, "side {side}");
        assert_eq!(rep.cnp_received[1 - side], sent_by_side, "side {side}");
        assert!(rep.cnp_sent[side] <= rep.ecn_ce[side]);
    }
    assert!(rep.ecn_ce[1] > 0 && rep.cnp_sent[1] > 0, "{rep:?}");
    // the interval suppressed some marked packets
    assert!(
        rep.cnp_sent[0] + rep.cnp_sent[1] < rep.ecn_ce[0] + rep.ecn_ce[1],
        "{rep:?}"
    );
    // each CNP goes to a QP of the other side; per QP, spaced by the interval
    let cycles_per_us = PAIR_CLOCK_HZ / 1_000_000;
    let min_gap = INTERVAL_US * cycles_per_us - queueing_bound();
    let mut last: BTreeMap<(usize, u32), u64> = BTreeMap::new();
    let mut closest = u64::MAX;
    for (cycle, from, f) in &cnps {
        let qpn = FrameRepr::parse(f).unwrap().summary().dest_qp.unwrap();
        assert!(rep.qpns[1 - from].contains(&qpn), "CNP to QP {qpn:#x}");
        if let Some(prev) = last.insert((*from, qpn), *cycle) {
            let gap = cycle - prev;
            closest = closest.min(gap);
            assert!(
                gap >= min_gap,
                "CNPs to QP {qpn:#x} {gap} cycles apart (at least {min_gap})"
            );
        }
    }
    eprintln!(
        "{} CE packets received, {} CNPs sent (A/B {}/{}), closest CNPs of one QP {} cycles apart (interval {} cycles), {} cycles",
        rep.ecn_ce[0] + rep.ecn_ce[1],
        cnps.len(),
        rep.cnp_sent[0],
        rep.cnp_sent[1],
        closest,
        INTERVAL_US * cycles_per_us,
        rep.cycles
    );
    // a valid ICRC on every CNP (proto's ICRC)
    for (_, _, f) in &cnps {
        assert_eq!(FrameRepr::parse(f).unwrap().icrc_ok(), Some(true));
    }
    icrc_oracle(oracle_pcap, cnps.len());
}

/// With `--vlan 100` (`CFG_TRAFFIC.VLAN_TAG`) and `CFG_PFC` at reset, every RoCE frame of both
/// NICs carries an 802.1Q tag with VID 100 and DEI 0, PCP 6 (`cnp_802p_prio`) on CNPs and 3 on
/// everything else; the NICs take each other's tagged frames (every message verified, the CNP
/// counts as untagged). The ICRC does not cover the Ethernet header (IBTA Annex A17, docs/PROTOCOL.md §1):
/// proto's check runs on the tagged frames, the outside oracle on a copy with the tags taken out.
#[test]
fn tagged_frames_carry_the_vid_and_the_priority_of_their_kind() {
    if !require_tool("verilator") {
        return;
    }
    let r = run(false, Some(100));
    let mut untagged = Vec::new();
    let (mut cnps, mut others) = (0, 0);
    for (_, from, f) in &r.frames {
        let eth = EthernetFrame::new_checked(&f[..]).unwrap();
        if eth.ethertype() == ethertype::MAC_CONTROL {
            continue;
        }
        let tag = eth
            .vlan()
            .unwrap_or_else(|| panic!("untagged frame from {from}: {}", hex_of(f)));
        let cnp = is_cnp(f);
        assert_eq!((tag.vid, tag.dei), (100, false));
        assert_eq!(tag.pcp, if cnp { 6 } else { 3 }, "{}", hex_of(f));
        if cnp {
            cnps += 1;
        } else {
            others += 1;
        }
        assert_eq!(FrameRepr::parse(f).unwrap().icrc_ok(), Some(true));
        let mut u = f.clone();
        u.drain(12..16);
        untagged.push(u);
    }
    eprintln!("{cnps} tagged CNPs, {others} other tagged frames");
    assert!(cnps > 0 && others > 0);
    assert_eq!(
        r.report.cnp_sent[0] + r.report.cnp_sent[1],
        cnps as u64,
        "{:?}",
        r.report
    );
    let pcap = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ecn_cnp_vlan_untagged.pcap");
    let mut w = PcapWriter::create(&pcap).unwrap();
    for f in &untagged {
        w.write_packet(0, f).unwrap();
    }
    drop(w);
    check_run(&r, &pcap);
}

/// The outside ICRC oracle accepts every RoCE frame of the capture, the CNPs among them.
fn icrc_oracle(pcap: &Path, cnps: usize) {
    let Some(shared) = shared_dir() else {
        return;
    };
    if !require_tool("/usr/bin/python3") {
        return;
    }
    let oracle = shared.join("oracles/check_pcap_icrc.py");
    let o = Command::new("/usr/bin/python3")
        .arg(&oracle)
        .arg(pcap)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!text.contains("'bad'"), "ICRC oracle: {text}");
    assert!(
        text.contains(&format!("'0x81': {cnps}")),
        "ICRC oracle: {text}"
    );
}

fn cx4lx_cnp() -> Vec<u8> {
    let v = hex(ROCE_MD_VECTORS
        .iter()
        .find(|(n, _)| *n == "cx4lx_cnp_real")
        .unwrap()
        .1);
    // the embedded copy is the published capture
    if let Some(shared) = shared_dir() {
        let file = std::fs::read_to_string(shared.join("vectors/cx4lx_cnp.hex")).unwrap();
        assert_eq!(hex(file.trim()), v);
    }
    v
}

const TSHARK_FIELDS: &[&str] = &[
    "ip.version",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.len",
    "ip.flags.df",
    "ip.ttl",
    "ip.proto",
    "udp.srcport",
    "udp.dstport",
    "udp.length",
    "udp.checksum",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.tver",
    "infiniband.bth.p_key",
    "infiniband.reserved",
    "infiniband.bth.a",
    "infiniband.bth.reserved7",
    "infiniband.bth.psn",
    "infiniband.vendor",
    "infiniband.bth.destqp",
];

/// tshark's dissection of each frame (the fields above).
fn tshark(frames: &[&[u8]], name: &str) -> Vec<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut w = PcapWriter::create(&path).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write_packet(i as u64 * 1000, f).unwrap();
    }
    w.flush().unwrap();
    let mut cmd = Command::new("tshark");
    cmd.arg("-r")
        .arg(&path)
        .args(["-T", "fields", "-E", "separator=|", "-E", "occurrence=a"]);
    for f in TSHARK_FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('|').map(str::to_string).collect())
        .collect()
}

#[test]
fn ipv4_cnps_match_the_connectx_cnp_and_keep_their_interval() {
    if !(require_tool("verilator") && require_tool("tshark")) {
        return;
    }
    let r = run(false, None);
    check_run(&r, &r.pcap);
    // byte for byte against the ConnectX-4 Lx CNP, addresses aside
    let cx = cx4lx_cnp();
    let ours: Vec<&[u8]> = r
        .frames
        .iter()
        .filter(|f| is_cnp(&f.2))
        .map(|f| &f.2[..])
        .collect();
    for f in &ours {
        assert_eq!(f.len(), cx.len());
        for i in 0..cx.len() {
            if !address_byte(i, cx.len()) {
                assert_eq!(
                    f[i],
                    cx[i],
                    "byte {i}: ours {} ConnectX {}",
                    hex_of(f),
                    hex_of(&cx)
                );
            }
        }
    }
    assert_eq!(FrameRepr::parse(&cx).unwrap().icrc_ok(), Some(true));
    // tshark: the same dissection, outside DestQP and the ICRC (the last 4 vendor bytes)
    let mut all = vec![&cx[..]];
    all.extend(ours.iter().copied());
    let rows = tshark(&all, "ecn_cnp_tshark.pcap");
    assert_eq!(rows.len(), all.len());
    let strip = |row: &Vec<String>| -> Vec<String> {
        let mut r = row[..TSHARK_FIELDS.len() - 1].to_vec();
        // the vendor data ends with the 16 reserved bytes and the ICRC (8 hex digits)
        let v = r.len() - 1;
        let keep = r[v].len().saturating_sub(8);
        r[v].truncate(keep);
        r
    };
    let want = strip(&rows[0]);
    assert_eq!(want[11], "129", "tshark: {want:?}");
    assert!(
        want[want.len() - 1].ends_with(&"0".repeat(32)),
        "tshark: {want:?}"
    );
    for (k, row) in rows.iter().enumerate().skip(1) {
        assert_eq!(strip(row), want, "CNP {k}");
    }
}

#[test]
fn ipv6_cnps_follow_the_address_vector() {
    if !require_tool("verilator") {
        return;
    }
    let r = run(true, None);
    check_run(&r, &r.pcap);
    for (_, _, f) in r.frames.iter().filter(|f| is_cnp(&f.2)) {
        // IPv6, traffic class = DSCP 48 + ECT(0), next header UDP, 16 reserved bytes
        assert_eq!(&f[12..14], &[0x86, 0xDD]);
        let tc = ((f[14] & 0x0F) << 4) | (f[15] >> 4);
        assert_eq!(tc, (48 << 2) | 2);
        assert_eq!(f[20], 17);
        assert_eq!(f.len(), 14 + 40 + 8 + 12 + 16 + 4);
        assert_eq!(f[54 + 8], 0x81);
        assert_eq!(f[54 + 8 + 4], 0x40, "BECN");
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
