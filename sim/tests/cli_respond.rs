//! `ferroce respond`: the NIC (cycle-accurate hardware) configured through its registers from a
//! JSON file answers hand-built RDMA WRITE streams. Checked: the frames it sends (ACK/NAK PSN,
//! syndrome, MSN, addressing), its DMA writes (only inside the registered MR, exactly the
//! payload bytes), and that attacking frames write nothing.
mod roce_frames;

use ferroce_proto::pcap::{self, PcapWriter};
use ferroce_proto::wire::{FrameBody, FrameRepr, Opcode, RoceNet};
use ferroce_sim::vcd::PERIOD_PS;
use ferroce_testkit::require_tool;
use ferroce_testkit::vcd::{read_vcd, read_vcd_with_gtkwave, vcd_options};
use roce_frames::{LOCAL_MAC, REMOTE_MAC};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const QPN: u32 = 17;
const PEER_QPN: u32 = 0x33;
const RKEY: u32 = 0x1234;
const VA: u64 = 0x7f00_0000_1000;
const MR_LEN: u64 = 8192;

fn dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_respond")
        .join(tag);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config(d: &Path, pmtu: u32) -> PathBuf {
    let p = d.join("nic.json");
    std::fs::write(
        &p,
        format!(
            r#"{{
  "local": {{"mac": "02:00:00:00:00:02", "ip": "10.0.0.2"}},
  "remote": {{"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"}},
  "qps": [{{"qpn": {QPN}, "dest_qpn": {PEER_QPN}, "rq_psn": 100, "sq_psn": 5000, "pmtu": {pmtu},
           "access": ["remote_write"]}}],
  "mrs": [{{"va": "{VA:#x}", "len": {MR_LEN}, "rkey": "{RKEY:#x}", "access": ["local_write", "remote_write"]}},
          {{"va": "0x10000", "len": 4096, "rkey": "0x2201", "access": ["local_write", "remote_read"]}}]
}}"#
        ),
    )
    .unwrap();
    p
}

fn frame(opcode: Opcode, psn: u32, reth: Option<(u64, u32, u32)>, payload: Vec<u8>) -> Vec<u8> {
    roce_frames::request(QPN, opcode, psn, reth, payload)
}

fn write_capture(path: &Path, frames: &[Vec<u8>]) {
    let mut w = PcapWriter::create(path).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write_packet(i as u64 * 1000, f).unwrap();
    }
    w.flush().unwrap();
}

/// Replay `frames` on the Verilator engine (the default).
fn respond(d: &Path, cfg: &Path, frames: &[Vec<u8>]) -> (Value, Vec<FrameRepr>) {
    respond_on("verilator", d, cfg, frames, &[])
}

/// Replay `frames` on `engine` with the `extra` options.
fn respond_on(
    engine: &str,
    d: &Path,
    cfg: &Path,
    frames: &[Vec<u8>],
    extra: &[&str],
) -> (Value, Vec<FrameRepr>) {
    let input = d.join("in.pcap");
    let out = d.join("out.pcap");
    write_capture(&input, frames);
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["respond", "--json", "--engine", engine, "--config"])
        .arg(cfg)
        .arg("--in")
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "respond failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let cap = pcap::read_file(&out).unwrap();
    let sent = cap
        .records
        .iter()
        .map(|r| FrameRepr::parse(&r.data).expect("the NIC sends well-formed frames"))
        .collect();
    (summary, sent)
}

/// (opcode, PSN, syndrome, MSN) of every frame sent, which must all be RC ACKs to the peer.
fn acks(sent: &[FrameRepr]) -> Vec<(u8, u32, u8, u32)> {
    sent.iter()
        .map(|f| {
            assert_eq!(f.eth.dst, REMOTE_MAC);
            assert_eq!(f.eth.src, LOCAL_MAC);
            let FrameBody::Roce(r) = &f.body else {
                panic!("not RoCE: {f:?}")
            };
            assert!(r.icrc_ok(), "bad ICRC on a sent frame");
            assert_eq!(r.bth.dest_qp, PEER_QPN);
            let aeth = r.ext.aeth.expect("ACK carries an AETH");
            (r.bth.opcode.0, r.bth.psn, aeth.syndrome, aeth.msn)
        })
        .collect()
}

/// (address, length) of every DMA write in the summary.
fn dma_writes(summary: &Value) -> Vec<(u64, u64)> {
    summary["dma_writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["address"].as_u64().unwrap(),
                w["length"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn writes(summary: &Value) -> Vec<(u64, u64)> {
    summary["dma_writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let remote = &w["remote"];
            assert_eq!(
                remote["rkey"].as_u64(),
                Some(RKEY as u64),
                "write outside the WRITE MR: {w}"
            );
            (
                remote["va"].as_u64().unwrap(),
                w["length"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn write_stream_is_placed_and_acknowledged() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("good");
    let cfg = config(&d, 256);
    let data: Vec<u8> = (0..700u32).map(|i| (i * 7 + 3) as u8).collect();
    let frames = vec![
        // ONLY, 64 B at VA+16
        frame(
            Opcode::RC_RDMA_WRITE_ONLY,
            100,
            Some((VA + 16, RKEY, 64)),
            data[..64].to_vec(),
        ),
        // FIRST/MIDDLE/LAST: 700 B at VA+1000 in 256-byte packets
        frame(
            Opcode::RC_RDMA_WRITE_FIRST,
            101,
            Some((VA + 1000, RKEY, 700)),
            data[..256].to_vec(),
        ),
        frame(
            Opcode::RC_RDMA_WRITE_MIDDLE,
            102,
            None,
            data[256..512].to_vec(),
        ),
        frame(Opcode::RC_RDMA_WRITE_LAST, 103, None, data[512..].to_vec()),
        // zero-length ONLY
        frame(Opcode::RC_RDMA_WRITE_ONLY, 104, Some((VA, RKEY, 0)), vec![]),
    ];
    let (s, sent) = respond(&d, &cfg, &frames);
    assert_eq!(s["accepted"], 5, "{s}");
    assert_eq!(s["responder"]["executed"], 5, "{s}");
    // the NIC's own counters, read through BAR0
    let c = &s["counters"];
    let bytes_in: usize = frames.iter().map(|f| f.len()).sum();
    let bytes_out: usize = sent.iter().map(|f| f.buffer_len()).sum();
    assert_eq!(c["rx_frames"], 5, "{c}");
    assert_eq!(c["rx_roce"], 5, "{c}");
    assert_eq!(c["rx_bytes"], bytes_in as u64, "{c}");
    assert_eq!(c["tx_frames"], sent.len() as u64, "{c}");
    assert_eq!(c["tx_bytes"], bytes_out as u64, "{c}");
    assert_eq!(c["tx_ack"], 3, "{c}");
    assert_eq!(c["tx_nak_rem_access"], 0, "{c}");
    // one ACK per message, PSN of its last packet, MSN counting messages
    let a = acks(&sent);
    assert_eq!(a.len(), 3, "{a:?}");
    assert_eq!(a[0].1, 100);
    assert_eq!(a[1].1, 103);
    assert_eq!(a[2].1, 104);
    for (i, (op, _, syn, msn)) in a.iter().enumerate() {
        assert_eq!(*op, 0x11);
        assert_eq!(syn >> 5, 0, "ACK, not NAK: {syn:#x}");
        assert_eq!(*msn, i as u32 + 1);
    }
    // the data went exactly where the RETHs said, and nowhere else
    let w = writes(&s);
    let total: u64 = w.iter().map(|x| x.1).sum();
    assert_eq!(total, 64 + 700, "{w:?}");
    assert_eq!(w[0], (VA + 16, 64));
    assert_eq!(w[1].0, VA + 1000);
    let covered: u64 = w[1..].iter().map(|x| x.1).sum();
    assert_eq!(covered, 700);
}

#[test]
fn attacks_get_nak_and_write_nothing() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("attacks");
    let cfg = config(&d, 1024);
    let p = vec![0xEEu8; 32];
    // each attack on its own NIC run (a remote access error moves the QP to ERR)
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "bad rkey",
            frame(
                Opcode::RC_RDMA_WRITE_ONLY,
                100,
                Some((VA, 0x1299, 32)),
                p.clone(),
            ),
        ),
        (
            "out of bounds",
            frame(
                Opcode::RC_RDMA_WRITE_ONLY,
                100,
                Some((VA + MR_LEN - 16, RKEY, 32)),
                p.clone(),
            ),
        ),
        (
            "MR without REMOTE_WRITE",
            frame(
                Opcode::RC_RDMA_WRITE_ONLY,
                100,
                Some((0x10000, 0x2201, 32)),
                p.clone(),
            ),
        ),
        (
            "VA below the MR",
            frame(
                Opcode::RC_RDMA_WRITE_ONLY,
                100,
                Some((VA - 1, RKEY, 32)),
                p.clone(),
            ),
        ),
    ];
    for (what, f) in cases {
        let (s, sent) = respond(&d, &cfg, &[f]);
        let a = acks(&sent);
        assert_eq!(a.len(), 1, "{what}: {a:?}");
        assert_eq!(
            a[0].2, 0x62,
            "{what}: NAK remote access error expected, got {:#x}",
            a[0].2
        );
        assert_eq!(a[0].1, 100, "{what}");
        assert_eq!(s["dma_writes"].as_array().unwrap().len(), 0, "{what}: {s}");
        assert_eq!(s["responder"]["access_error"], 1, "{what}: {s}");
        assert_eq!(s["counters"]["tx_nak_rem_access"], 1, "{what}: {s}");
        assert_eq!(s["counters"]["tx_ack"], 0, "{what}: {s}");
    }
    // a PSN gap: one NAK sequence error, nothing written; then the right PSN is executed
    let frames = vec![
        frame(
            Opcode::RC_RDMA_WRITE_ONLY,
            105,
            Some((VA, RKEY, 32)),
            p.clone(),
        ),
        frame(
            Opcode::RC_RDMA_WRITE_ONLY,
            106,
            Some((VA, RKEY, 32)),
            p.clone(),
        ),
        frame(
            Opcode::RC_RDMA_WRITE_ONLY,
            100,
            Some((VA + 64, RKEY, 32)),
            p.clone(),
        ),
        // and a duplicate of it: re-ACKed, not executed again
        frame(
            Opcode::RC_RDMA_WRITE_ONLY,
            100,
            Some((VA + 64, RKEY, 32)),
            p.clone(),
        ),
    ];
    let (s, sent) = respond(&d, &cfg, &frames);
    let a = acks(&sent);
    assert_eq!(a.len(), 3, "{a:?}");
    assert_eq!(
        (a[0].1, a[0].2),
        (100, 0x60),
        "NAK PSN sequence error with the expected PSN"
    );
    assert_eq!(a[1].1, 100);
    assert_eq!(a[1].2 >> 5, 0);
    assert_eq!(a[2].1, 100, "duplicate re-ACKed with its PSN");
    assert_eq!(writes(&s), vec![(VA + 64, 32)]);
    assert_eq!(s["responder"]["duplicate"], 1, "{s}");
}

#[test]
fn malformed_frames_are_dropped_and_counted() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("malformed");
    let cfg = config(&d, 1024);
    let good = frame(
        Opcode::RC_RDMA_WRITE_ONLY,
        100,
        Some((VA, RKEY, 40)),
        vec![0x5A; 40],
    );
    let mut bad_icrc = good.clone();
    let n = bad_icrc.len();
    bad_icrc[n - 10] ^= 0x01; // inside the ICRC-covered payload
    let truncated = good[..good.len() - 20].to_vec();
    let mut other_mac = good.clone();
    other_mac[5] = 0x77;
    // our MAC, another IP (a well-formed frame with a good ICRC): dropped by address
    let other_ip = roce_frames::request_to(
        [10, 0, 0, 9],
        QPN,
        Opcode::RC_RDMA_WRITE_ONLY,
        100,
        Some((VA, RKEY, 40)),
        vec![0xA5; 40],
    );
    let (s, sent) = respond(&d, &cfg, &[bad_icrc, truncated, other_mac, other_ip, good]);
    assert_eq!(s["dropped"]["bad_icrc"], 1, "{s}");
    assert_eq!(s["dropped"]["mac_mismatch"], 1, "{s}");
    // the parser passes the frame on (every check of its own passed); the top drops it
    assert_eq!(s["accepted"], 2, "{s}");
    assert_eq!(s["counters"]["rx_drop_addr"], 2, "{s}");
    assert_eq!(s["counters"]["rx_drop_icrc"], 1, "{s}");
    let dropped: u64 = s["dropped"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(dropped, 3, "{s}");
    assert_eq!(s["responder"]["executed"], 1, "{s}");
    // only the good frame was executed and acknowledged
    assert_eq!(acks(&sent).len(), 1);
    assert_eq!(writes(&s), vec![(VA, 40)]);
}

#[test]
fn bad_config_is_refused_with_a_message() {
    let d = dir("badcfg");
    let cfg = d.join("bad.json");
    std::fs::write(&cfg, r#"{"local": {"mac": "02:00:00:00:00", "ip": "10.0.0.2"}, "remote": {"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"}}"#).unwrap();
    let input = d.join("in.pcap");
    write_capture(&input, &[]);
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["respond", "--config"])
        .arg(&cfg)
        .arg("--in")
        .arg(&input)
        .arg("--out")
        .arg(d.join("out.pcap"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("local.mac"), "{err}");
}

/// SENDs into posted receive buffers (`recv_buffers`): each message lands at the start of the
/// next buffer, a multi-packet SEND continues in the same buffer, a receive completion is
/// written per message, each message is ACKed; once the buffers are used up the next SEND gets
/// an RNR NAK and nothing is written. On the rust-hdl engine (the others run on Verilator),
/// with `--vcd` over a window of 500 cycles from cycle 1100 (the configuration through the
/// registers takes the first ~1600 cycles, its QP set-up from ~1200; the replay ~600 more; each
/// cycle written costs a visit of every signal): the file holds exactly that window,
/// one dump a cycle, with rust-hdl's hierarchical names (`uut.` and the NIC's blocks), and the
/// requester's and the responder's state machines change in it (the QP set-up), read by our
/// reader and by GTKWave's.
#[test]
fn sends_fill_receive_buffers_then_rnr() {
    let d = dir("send");
    let cfg = d.join("nic.json");
    std::fs::write(
        &cfg,
        format!(
            r#"{{
  "local": {{"mac": "02:00:00:00:00:02", "ip": "10.0.0.2"}},
  "remote": {{"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"}},
  "qps": [{{"qpn": {QPN}, "dest_qpn": {PEER_QPN}, "rq_psn": 100, "sq_psn": 5000, "pmtu": 256,
           "access": []}}],
  "mrs": [],
  "recv_buffers": [{{"qpn": {QPN}, "len": 300, "count": 2}}]
}}"#
        ),
    )
    .unwrap();
    let data: Vec<u8> = (0..400u32).map(|i| (i * 13 + 1) as u8).collect();
    let send = |op, psn, p: &[u8]| roce_frames::send(QPN, op, psn, 0xABCD_0123, p.to_vec());
    let frames = vec![
        send(Opcode::RC_SEND_ONLY, 100, &data[..100]),
        send(Opcode::RC_SEND_FIRST, 101, &data[100..356]),
        send(Opcode::RC_SEND_LAST_WITH_IMMEDIATE, 102, &data[356..400]),
        // no receive buffer left
        send(Opcode::RC_SEND_ONLY, 103, &data[..10]),
    ];
    let vcd_path = d.join("nic.vcd");
    let (from, cycles) = (1100u64, 500u64);
    let (s, sent) = respond_on(
        "rust-hdl",
        &d,
        &cfg,
        &frames,
        &vcd_options(&vcd_path, from, cycles)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    // (GTKWave's only when installed, or a recorded skip under the opt-out)
    let mut readers = vec![(read_vcd(&vcd_path), "our reader")];
    readers.extend(read_vcd_with_gtkwave(&vcd_path).map(|v| (v, "GTKWave")));
    for (vcd, reader) in readers {
        let what = format!("rust-hdl NIC, {reader}");
        vcd.assert_window(&what, from, cycles, PERIOD_PS, 1);
        assert!(vcd.names.values().flatten().all(|n| n.starts_with("uut.")));
        assert!(
            vcd.changes_of("uut.req.state.q") > 0,
            "{what}: requester state constant"
        );
        assert!(
            vcd.changes_of("uut.resp.state.q") > 0,
            "{what}: responder state constant"
        );
    }
    assert_eq!(s["accepted"], 4, "{s}");
    assert_eq!(s["responder"]["executed"], 3, "{s}");
    assert_eq!(s["responder"]["receive_completions"], 2, "{s}");
    assert_eq!(s["responder"]["rnr_nak"], 1, "{s}");
    assert_eq!(s["counters"]["tx_nak_rnr"], 1, "{s}");
    let a = acks(&sent);
    assert_eq!(a.len(), 3, "{a:?}");
    assert_eq!((a[0].1, a[0].2 >> 5, a[0].3), (100, 0, 1), "{a:?}");
    assert_eq!((a[1].1, a[1].2 >> 5, a[1].3), (102, 0, 2), "{a:?}");
    // RNR NAK: PSN of the SEND, MSN unchanged
    assert_eq!((a[2].1, a[2].2 >> 5, a[2].3), (103, 1, 2), "{a:?}");
    // data writes: 100 B at the first buffer, 256 + 44 B at the second (300 bytes further);
    // the two 32-byte writes are the receive CQEs
    let w = dma_writes(&s);
    let data_w: Vec<_> = w.iter().filter(|x| x.1 != 32).copied().collect();
    assert_eq!(data_w.len(), 3, "{w:?}");
    let base = data_w[0].0;
    assert_eq!(
        data_w,
        vec![(base, 100), (base + 300, 256), (base + 556, 44)],
        "{w:?}"
    );
    assert_eq!(w.iter().filter(|x| x.1 == 32).count(), 2, "{w:?}");
}

/// A real capture's SEND stream, a few hundred messages long, replayed on the Verilator engine
/// with as many receive buffers (the queue is sized from `recv_buffers`), answered as the
/// capture's own responder answered it.
///
/// The capture (`real/hw_send_imm_ack_mtu1024.pcap`, a hardware RoCE NIC at 192.168.70.4
/// receiving `SEND_FIRST` + `SEND_LAST_WITH_IMMEDIATE` messages and one
/// `SEND_ONLY_WITH_IMMEDIATE` from 192.168.70.6 on its QP 0x45) holds 34 messages in 67
/// packets. The stream is that sequence repeated `ROUNDS` times, each round's PSNs after the
/// previous one's (the frames parsed and re-emitted with the new PSN and its ICRC; unchanged
/// they re-emit byte for byte). The expected answers are the capture's ACKs from .4, shifted by
/// the same PSN and MSN per round: every ACK to a packet with AckReq (the capture's responder
/// also sent one unsolicited ACK to a `SEND_FIRST` without AckReq, which is not an answer to
/// anything and is left out).
#[test]
fn real_send_capture_with_hundreds_of_receives_replays_on_verilator() {
    if !require_tool("verilator") {
        return;
    }
    let Some(vectors) = ferroce_testkit::shared_dir().map(|d| d.join("vectors")) else {
        return;
    };
    const ROUNDS: u32 = 8;
    const NIC_QPN: u32 = 0x45;
    const BUF: u32 = 2048;
    let cap = pcap::read_file(vectors.join("real/hw_send_imm_ack_mtu1024.pcap")).unwrap();
    let nic_ip: std::net::IpAddr = "192.168.70.4".parse().unwrap();
    let ips = |n: &RoceNet| -> (std::net::IpAddr, std::net::IpAddr) {
        match n {
            RoceNet::Ipv4 { ip, .. } => (ip.src.into(), ip.dst.into()),
            RoceNet::Ipv6 { ip, .. } => (ip.src.into(), ip.dst.into()),
            RoceNet::RoceV1 { grh } => (grh.sgid.into(), grh.dgid.into()),
        }
    };
    let roce = |data: &[u8]| -> Option<FrameRepr> {
        let f = FrameRepr::parse(data).ok()?;
        matches!(f.body, FrameBody::Roce(_)).then_some(f)
    };
    let (mut requests, mut answers) = (vec![], vec![]);
    for r in &cap.records {
        let Some(f) = roce(&r.data) else { continue };
        let FrameBody::Roce(x) = &f.body else {
            unreachable!()
        };
        if ips(&x.net).1 == nic_ip && x.bth.dest_qp == NIC_QPN && x.ext.aeth.is_none() {
            // unchanged, the parsed frame re-emits byte for byte
            assert_eq!(f.emit(), r.data);
            requests.push(f);
        } else if ips(&x.net).0 == nic_ip && x.ext.aeth.is_some() {
            answers.push(f);
        }
    }
    let span = requests.len() as u32;
    assert_eq!(span, 67, "packets of the capture's SEND stream");
    let first_psn = |f: &FrameRepr| match &f.body {
        FrameBody::Roce(x) => x.bth.psn,
        _ => unreachable!(),
    };
    let psn0 = first_psn(&requests[0]);
    let messages = requests
        .iter()
        .filter(|f| {
            let FrameBody::Roce(x) = &f.body else {
                unreachable!()
            };
            x.bth.opcode != Opcode::RC_SEND_FIRST && x.bth.opcode != Opcode::RC_SEND_MIDDLE
        })
        .count() as u32;
    assert_eq!(messages, 34);
    let ack_req: Vec<u32> = requests
        .iter()
        .filter_map(|f| match &f.body {
            FrameBody::Roce(x) if x.bth.ack_req => Some(x.bth.psn),
            _ => None,
        })
        .collect();
    answers.retain(|f| ack_req.contains(&first_psn(f)));
    assert_eq!(answers.len(), ack_req.len(), "one capture ACK per AckReq");
    let shifted = |f: &FrameRepr, round: u32, msn_too: bool| -> FrameRepr {
        let mut f = f.clone();
        let FrameBody::Roce(x) = &mut f.body else {
            unreachable!()
        };
        x.bth.psn = (x.bth.psn + round * span) & 0xFF_FFFF;
        if msn_too {
            let a = x.ext.aeth.as_mut().unwrap();
            a.msn = (a.msn + round * messages) & 0xFF_FFFF;
        }
        x.icrc = x.compute_icrc();
        f
    };
    let mut frames = vec![];
    let mut expected = vec![];
    let mut payloads = vec![];
    for round in 0..ROUNDS {
        for f in &requests {
            let g = shifted(f, round, false);
            if let FrameBody::Roce(x) = &g.body {
                payloads.push((x.bth.opcode, x.payload.len() as u64));
            }
            frames.push(g.emit());
        }
        expected.extend(answers.iter().map(|f| shifted(f, round, true)));
    }
    let local = answers[0].eth.src;
    let remote = answers[0].eth.dst;
    let mac = |m: [u8; 6]| {
        m.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    let FrameBody::Roce(a0) = &answers[0].body else {
        unreachable!()
    };
    let d = dir("real_sends");
    let cfg = d.join("nic.json");
    let count = ROUNDS * messages;
    std::fs::write(
        &cfg,
        format!(
            r#"{{
  "local": {{"mac": "{}", "ip": "192.168.70.4"}},
  "remote": {{"mac": "{}", "ip": "192.168.70.6"}},
  "qps": [{{"qpn": {NIC_QPN}, "dest_qpn": {}, "rq_psn": {psn0}, "sq_psn": 0, "pmtu": 1024}}],
  "mrs": [],
  "recv_buffers": [{{"qpn": {NIC_QPN}, "len": {BUF}, "count": {count}}}]
}}"#,
            mac(local),
            mac(remote),
            a0.bth.dest_qp
        ),
    )
    .unwrap();
    let (s, sent) = respond(&d, &cfg, &frames);
    let total = frames.len() as u64;
    assert_eq!(s["accepted"], total, "{s}");
    assert_eq!(s["responder"]["executed"], total, "{s}");
    assert_eq!(s["responder"]["receive_completions"], count, "{s}");
    assert_eq!(s["responder"]["rnr_nak"], 0, "{s}");
    // the NIC's answers are the capture's (the fields a responder decides: addressing, QPN,
    // PSN, ACK type, MSN; not the IP ID, UDP source port or credit count)
    let key = |f: &FrameRepr| {
        let FrameBody::Roce(x) = &f.body else {
            panic!("not RoCE: {f:?}")
        };
        let a = x.ext.aeth.expect("an ACK carries an AETH");
        (
            f.eth.dst,
            f.eth.src,
            ips(&x.net),
            x.bth.opcode,
            x.bth.dest_qp,
            x.bth.psn,
            a.syndrome >> 5,
            a.msn,
        )
    };
    for f in &sent {
        let FrameBody::Roce(x) = &f.body else {
            panic!("not RoCE: {f:?}")
        };
        assert!(x.icrc_ok(), "bad ICRC on a sent frame");
    }
    let got: Vec<_> = sent.iter().map(key).collect();
    let want: Vec<_> = expected.iter().map(key).collect();
    assert_eq!(got.len(), want.len(), "ACKs sent");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "ACK {i}");
    }
    // each message's data went to the next receive buffer, packet after packet
    let data: Vec<(u64, u64)> = dma_writes(&s).into_iter().filter(|w| w.1 != 32).collect();
    let mut want_data = vec![];
    let (mut buffer, mut offset) = (0u64, 0u64);
    for (op, len) in &payloads {
        if *len > 0 {
            want_data.push((buffer * BUF as u64 + offset, *len));
        }
        offset += len;
        if *op != Opcode::RC_SEND_FIRST && *op != Opcode::RC_SEND_MIDDLE {
            (buffer, offset) = (buffer + 1, 0);
        }
    }
    let base = data[0].0;
    let data: Vec<_> = data.iter().map(|(a, l)| (a - base, *l)).collect();
    assert_eq!(data, want_data);
}

/// A QP with READ and atomic access, an MR that allows both, at `VA` (the WRITE MR's keys).
fn config_rd_atomic(d: &Path) -> PathBuf {
    let p = d.join("nic.json");
    std::fs::write(
        &p,
        format!(
            r#"{{
  "local": {{"mac": "02:00:00:00:00:02", "ip": "10.0.0.2"}},
  "remote": {{"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"}},
  "qps": [{{"qpn": {QPN}, "dest_qpn": {PEER_QPN}, "rq_psn": 100, "sq_psn": 5000, "pmtu": 1024,
           "access": ["remote_write", "remote_read", "remote_atomic"]}}],
  "mrs": [{{"va": "{VA:#x}", "len": {MR_LEN}, "rkey": "{RKEY:#x}",
            "access": ["local_write", "remote_write", "remote_read", "remote_atomic"]}}]
}}"#
        ),
    )
    .unwrap();
    p
}

/// The responder's READ/atomic resources (`max_dest_rd_atomic` = 16): 16 fetch-adds on one QP
/// whose ATOMIC ACKNOWLEDGEs are all lost, then all 16 sent again (duplicates, as a requester
/// with 16 outstanding resends them after its timeout): every duplicate is answered with its
/// original value, and the word was added to exactly once per atomic (16 DMA writes, and a
/// READ at the end returns the sum). The same with 16 READs of distinct data: every duplicate
/// READ is answered again with the same bytes.
#[test]
fn sixteen_atomics_and_reads_are_answered_again() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("rd_atomic");
    let cfg = config_rd_atomic(&d);
    let word_va = VA + 4096;
    let adds: Vec<u64> = (0..16u64)
        .map(|i| 0x1_0000_0001 * (i + 1) + (i << 40))
        .collect();
    let mut frames = vec![];
    let mut psn = 100u32;
    // 16 fetch-adds; their responses are "lost": the peer sends them all again
    let atomics: Vec<(u32, u64)> = adds
        .iter()
        .map(|&a| {
            psn += 1;
            (psn - 1, a)
        })
        .collect();
    for _ in 0..2 {
        for &(p, a) in &atomics {
            frames.push(roce_frames::atomic(
                QPN,
                Opcode::RC_FETCH_ADD,
                p,
                word_va,
                RKEY,
                a,
                0,
            ));
        }
    }
    // 16 distinct 64-byte blocks written, then READ back, then the READs again
    let block = |i: usize| -> Vec<u8> { (0..64).map(|b| (i * 37 + b * 5 + 1) as u8).collect() };
    for i in 0..16 {
        frames.push(frame(
            Opcode::RC_RDMA_WRITE_ONLY,
            psn,
            Some((VA + 64 * i as u64, RKEY, 64)),
            block(i),
        ));
        psn += 1;
    }
    let reads: Vec<u32> = (0..16).map(|i| psn + i).collect();
    for _ in 0..2 {
        for (i, &p) in reads.iter().enumerate() {
            frames.push(frame(
                Opcode::RC_RDMA_READ_REQUEST,
                p,
                Some((VA + 64 * i as u64, RKEY, 64)),
                vec![],
            ));
        }
    }
    psn += 16;
    // the word after everything: one READ
    frames.push(frame(
        Opcode::RC_RDMA_READ_REQUEST,
        psn,
        Some((word_va, RKEY, 8)),
        vec![],
    ));
    let (s, sent) = respond(&d, &cfg, &frames);
    let roce: Vec<_> = sent
        .iter()
        .map(|f| {
            let FrameBody::Roce(r) = &f.body else {
                panic!("not RoCE: {f:?}")
            };
            assert!(r.icrc_ok());
            assert_eq!(r.bth.dest_qp, PEER_QPN);
            r.clone()
        })
        .collect();
    // atomics: 32 ATOMIC ACKNOWLEDGEs, the second 16 equal to the first
    let at: Vec<(u32, u64)> = roce
        .iter()
        .filter(|r| r.bth.opcode == Opcode::RC_ATOMIC_ACKNOWLEDGE)
        .map(|r| (r.bth.psn, r.ext.atomic_ack_eth.expect("AtomicAckETH").orig))
        .collect();
    let mut sum = 0u64;
    let want: Vec<(u32, u64)> = atomics
        .iter()
        .map(|&(p, a)| {
            let o = sum;
            sum = sum.wrapping_add(a);
            (p, o)
        })
        .collect();
    assert_eq!(
        at.len(),
        32,
        "every atomic and every duplicate answered: {at:x?}"
    );
    assert_eq!(&at[..16], &want[..], "executed in order");
    assert_eq!(
        &at[16..],
        &want[..],
        "duplicates answered with the original values"
    );
    let word_writes = s["dma_writes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["remote"]["va"].as_u64() == Some(word_va))
        .count();
    assert_eq!(
        word_writes, 16,
        "one write per atomic, none per duplicate: {s}"
    );
    // READs: 16 responses, then the same 16 again; then the word
    let rd: Vec<(u32, Vec<u8>)> = roce
        .iter()
        .filter(|r| r.bth.opcode == Opcode::RC_RDMA_READ_RESPONSE_ONLY)
        .map(|r| (r.bth.psn, r.payload.clone()))
        .collect();
    assert_eq!(
        rd.len(),
        33,
        "{:?}",
        rd.iter().map(|x| x.0).collect::<Vec<_>>()
    );
    for k in 0..32 {
        let i = k % 16;
        assert_eq!(rd[k], (reads[i], block(i)), "READ response {k}");
    }
    assert_eq!(
        rd[32],
        (psn, sum.to_le_bytes().to_vec()),
        "the word holds the sum"
    );
    assert_eq!(s["responder"]["duplicate"], 32, "{s}");
}
