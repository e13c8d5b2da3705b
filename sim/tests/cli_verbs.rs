//! Two NICs back to back, driven only through the driver's verbs API (`ferroce verbs` and its
//! library): the requester's segmentation and gather, the responder's placement, ACKs, the
//! completer's CQEs, and the error paths (remote access errors NAKed on the wire, an error
//! completion at the requester, nothing written at the responder, the rest of the SQ flushed,
//! other QPs unaffected). The hardware runs as its Verilator model (the same Verilog as
//! `ferroce verilog`); one scenario also runs on the rust-hdl simulation and must give the same
//! frames and cycle count.
use ferroce_driver::{AccessFlags, ArmMode, QpState, Remote, SendWr, WcOpcode, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::pcap;
use ferroce_proto::wire::{FrameBody, FrameRepr, Opcode, RoceNet};
use ferroce_sim::cmd::verbs::{connect, open_pair, run_scenario, Engine, VerbsArgs};
use ferroce_sim::host::ShellConfig;
use ferroce_sim::nic_pair::{captured_roce, lock};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_sim::vcd::PERIOD_PS;
use ferroce_testkit::require_tool;
use ferroce_testkit::vcd::{read_vcd, read_vcd_with_gtkwave, vcd_options};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

fn dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_verbs")
        .join(tag);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn args(sizes: &[&str], qps: usize, messages: usize, pmtu: usize, seed: u64) -> VerbsArgs {
    VerbsArgs {
        ops: vec!["write".into()],
        sizes: sizes.iter().map(|s| s.to_string()).collect(),
        qps,
        messages,
        seed,
        pmtu,
        pcap: None,
        json: false,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    }
}

/// `ferroce verbs ARGS --json`: its summary; panics with the error if the command fails.
fn verbs_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .arg("verbs")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "verbs {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// WRITE, WRITE with immediate, SEND and SEND with immediate of 0 B, 1 B, PMTU-1, PMTU, PMTU+1
/// and 64 KiB in both directions, on 1 QP and on 16 QPs at once (random DMA timing), every
/// PMTU: every byte verified at the receiver (SENDs scattered over 1 to 4 receive SGEs), every
/// completion's status, opcode, byte_len, imm_data, QPNs and wr_id checked (inside
/// `run_scenario`), send and receive completions both counted. One test per PMTU (the same runs
/// as one loop over the PMTUs), so that they run side by side.
#[test]
fn verbs_matrix_pmtu_256() {
    verbs_matrix(0, 256);
}

#[test]
fn verbs_matrix_pmtu_512() {
    verbs_matrix(1, 512);
}

#[test]
fn verbs_matrix_pmtu_1024() {
    verbs_matrix(2, 1024);
}

#[test]
fn verbs_matrix_pmtu_2048() {
    verbs_matrix(3, 2048);
}

#[test]
fn verbs_matrix_pmtu_4096() {
    verbs_matrix(4, 4096);
}

fn verbs_matrix(k: usize, pmtu: usize) {
    if !require_tool("verilator") {
        return;
    }
    let sizes = [
        "0".to_string(),
        "1".to_string(),
        (pmtu - 1).to_string(),
        pmtu.to_string(),
        (pmtu + 1).to_string(),
        "64K".to_string(),
    ];
    let sizes: Vec<&str> = sizes.iter().map(|s| s.as_str()).collect();
    // each direction runs through every size of every operation (4 x 6 messages); the
    // 16-QP run with DMA jitter at PMTUs 256, 1024 and 4096 (CI time)
    let runs: &[(usize, usize, bool)] = if k % 2 == 0 {
        &[(1, 48, false), (16, 2 * 16 * 6, true)]
    } else {
        &[(1, 48, false)]
    };
    for &(qps, messages, jitter) in runs {
        let mut a = args(&sizes, qps, messages, pmtu, 100 + k as u64);
        a.ops = ["write", "write_imm", "send", "send_imm"]
            .map(String::from)
            .to_vec();
        a.dma_jitter = jitter;
        let r = run_scenario(&a, Engine::Verilator).unwrap();
        // a WRITE completes at the sender only, the others at both ends
        let per_dir = (messages / 2) as u64;
        let receiving = (0..per_dir).filter(|j| (j / 6) % 4 != 0).count() as u64;
        assert!(
            r.failed == 0
                && r.verified == messages as u64
                && r.completions == messages as u64 + 2 * receiving,
            "PMTU {pmtu}, {qps} QPs: {r:?}"
        );
        // one request packet per PMTU of each message (a 0-byte message is one packet)
        let sizes_b: Vec<u64> = sizes
            .iter()
            .map(|s| match *s {
                "64K" => 65536,
                x => x.parse().unwrap(),
            })
            .collect();
        let per_dir = messages / 2;
        let expected: u64 = (0..per_dir)
            .map(|j| sizes_b[j % 6].div_ceil(pmtu as u64).max(1))
            .sum();
        // plus every packet sent again: with both hosts sending at line rate a NIC's receive
        // side can fall behind its link, and its receive FIFO drops whole frames (PFC is off
        // here), which Go-Back-N resends (`CNT_RETRANSMIT`)
        assert_eq!(
            r.packets,
            [expected + r.retransmitted[0], expected + r.retransmitted[1]],
            "PMTU {pmtu}, {qps} QPs"
        );
    }
}

/// The same scenario on the rust-hdl simulation and on the Verilator model of the emitted
/// Verilog: identical frames on the link, identical cycle counts.
#[test]
fn engines_agree_frame_for_frame() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("engines");
    let mut reports = vec![];
    let mut captures = vec![];
    for (engine, name) in [
        (Engine::RustHdl, "rust-hdl"),
        (Engine::Verilator, "verilator"),
    ] {
        // 2 WRITEs then 2 SENDs with immediate in each direction
        let mut a = args(&["0", "300"], 2, 8, 256, 5);
        a.ops = vec!["write".into(), "send_imm".into()];
        let p = d.join(format!("{name}.pcap"));
        a.pcap = Some(p.clone());
        let r = run_scenario(&a, engine).unwrap();
        assert_eq!((r.verified, r.failed), (8, 0), "{name}: {r:?}");
        let c = pcap::read_file(&p).unwrap();
        captures.push(
            c.records
                .iter()
                .map(|r| (r.ts_ns, r.data.clone()))
                .collect::<Vec<_>>(),
        );
        reports.push(r);
    }
    assert!(!captures[0].is_empty());
    assert_eq!(
        captures[0], captures[1],
        "the engines sent different frames"
    );
    assert_eq!(reports[0].cycles, reports[1].cycles);
}

/// The command line: JSON summary fields, exit codes, and clear errors for unknown operations
/// or bad arguments.
#[test]
fn cli_summary_and_errors() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("cli");
    let pcap_path = d.join("link.pcap");
    let v = verbs_json(&[
        "--ops",
        "write,read,atomic_fadd,atomic_cas",
        "--sizes",
        "0,700,3000",
        "--qps",
        "3",
        "--messages",
        "24",
        "--seed",
        "3",
        "--pmtu",
        "512",
        "--pcap",
        pcap_path.to_str().unwrap(),
    ]);
    // (READs and atomics complete at the requester only, like WRITEs)
    assert_eq!(v["messages"], 24);
    assert_eq!(v["verified"], 24);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["completions"], 24);
    assert!(v["cycles"].as_u64().unwrap() > 0);
    // the capture holds both directions, every frame with a good ICRC
    let cap = pcap::read_file(&pcap_path).unwrap();
    let mut writes = [0, 0];
    let mut acks = [0, 0];
    // READ requests, READ responses, atomics, ATOMIC ACKNOWLEDGEs
    let mut kinds = [0; 4];
    for rec in &cap.records {
        let f = FrameRepr::parse(&rec.data).expect("well-formed frame");
        let FrameBody::Roce(r) = &f.body else {
            panic!("not RoCE")
        };
        assert!(r.icrc_ok());
        let side = (f.eth.src == ferroce_sim::cmd::verbs::MACS[1]) as usize;
        if r.bth.opcode == Opcode::RC_ACKNOWLEDGE {
            acks[side] += 1;
        } else {
            writes[side] += 1;
        }
        let o = r.bth.opcode;
        if o == Opcode::RC_RDMA_READ_REQUEST {
            kinds[0] += 1;
        } else if (Opcode::RC_RDMA_READ_RESPONSE_FIRST.0..=Opcode::RC_RDMA_READ_RESPONSE_ONLY.0)
            .contains(&o.0)
        {
            kinds[1] += 1;
        } else if o == Opcode::RC_COMPARE_SWAP || o == Opcode::RC_FETCH_ADD {
            kinds[2] += 1;
        } else if o == Opcode::RC_ATOMIC_ACKNOWLEDGE {
            kinds[3] += 1;
        }
    }
    assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
    assert!(
        writes[0] > 0 && writes[1] > 0 && acks[0] > 0 && acks[1] > 0,
        "{writes:?} {acks:?}"
    );

    for (bad, why) in [
        (vec!["--ops", "frobnicate"], "unknown operation"),
        (vec!["--pmtu", "1000"], "not a path MTU"),
        (vec!["--sizes", "12x"], "not a number"),
        (vec!["--qps", "0"], "--qps"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
            .arg("verbs")
            .args(&bad)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad:?} succeeded");
        assert!(err.contains(why), "{bad:?}: {err}");
    }
}

/// `--ipv6`: both NICs with IPv6 GIDs and address vectors. Every operation, three sizes each
/// way (42 messages: 7 operations x 3 sizes x 2 directions), two QP pairs: every message verified, and every frame on the link is RoCEv2 over IPv6 between
/// the two hosts' addresses (source and destination by direction), with a good ICRC.
#[test]
fn ipv6_between_two_nics() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("ipv6");
    let pcap_path = d.join("link.pcap");
    let v = verbs_json(&[
        "--ipv6",
        "--ops",
        "write,send,send_imm,write_imm,read,atomic_fadd,atomic_cas",
        "--sizes",
        "0,1,1500",
        "--qps",
        "2",
        "--messages",
        "42",
        "--seed",
        "5",
        "--pmtu",
        "1024",
        "--pcap",
        pcap_path.to_str().unwrap(),
    ]);
    assert_eq!(v["ipv6"], true);
    assert_eq!(v["messages"], 42);
    assert_eq!(v["verified"], 42);
    assert_eq!(v["failed"], 0);
    let ips: [std::net::Ipv6Addr; 2] = [
        "2001:db8::1".parse().unwrap(),
        "2001:db8::2".parse().unwrap(),
    ];
    let cap = pcap::read_file(&pcap_path).unwrap();
    let mut opcodes = std::collections::BTreeSet::new();
    for rec in &cap.records {
        let f = FrameRepr::parse(&rec.data).expect("well-formed frame");
        assert_eq!(f.eth.ethertype, 0x86DD, "not IPv6: {f:?}");
        let FrameBody::Roce(r) = &f.body else {
            panic!("not RoCE")
        };
        assert!(r.icrc_ok());
        let RoceNet::Ipv6 { ip, udp } = &r.net else {
            panic!("not RoCEv2 over IPv6: {r:?}")
        };
        assert_eq!(udp.dst_port, 4791);
        let side = (f.eth.src == ferroce_sim::cmd::verbs::MACS[1]) as usize;
        assert_eq!(std::net::Ipv6Addr::from(ip.src), ips[side]);
        assert_eq!(std::net::Ipv6Addr::from(ip.dst), ips[1 - side]);
        opcodes.insert(r.bth.opcode.0);
    }
    for o in [
        Opcode::RC_RDMA_WRITE_ONLY,
        Opcode::RC_SEND_ONLY,
        Opcode::RC_RDMA_READ_REQUEST,
        Opcode::RC_FETCH_ADD,
        Opcode::RC_COMPARE_SWAP,
        Opcode::RC_ATOMIC_ACKNOWLEDGE,
        Opcode::RC_ACKNOWLEDGE,
    ] {
        assert!(opcodes.contains(&o.0), "no {o:?} on the link: {opcodes:?}");
    }
}

/// `verbs --vcd`: the file is a VCD that our reader and GTKWave's (`vcd2fst`) accept, with the
/// NIC's hierarchical signal names, covering exactly the window asked for (first and last
/// timestamps: the window's first rising edge and last falling edge, 4 ns a cycle), in which the
/// requester's and the responder's state registers change (the window is put around the first
/// message, found from a run with `--pcap`: same seed, same cycles). NIC B's waveforms go to
/// `FILE.b.vcd`.
#[test]
fn verbs_vcd_window_holds_the_state_machines() {
    if !require_tool("verilator") {
        return;
    }
    let d = dir("vcd");
    let run = |extra: &[&str]| {
        let mut a = vec![
            "--ops",
            "write,send",
            "--sizes",
            "64,600",
            "--messages",
            "4",
            "--pmtu",
            "256",
        ];
        a.extend_from_slice(extra);
        let v = verbs_json(&a);
        assert_eq!(v["verified"], 4, "{v}");
    };
    let pcap_path = d.join("link.pcap");
    run(&["--pcap", pcap_path.to_str().unwrap()]);
    let cap = pcap::read_file(&pcap_path).unwrap();
    let first_cycle = cap.records[0].ts_ns / 4;
    let (from, cycles) = (first_cycle - 100, 400u64);
    let vcd_path = d.join("nic.vcd");
    let _ = std::fs::remove_file(d.join("nic.b.vcd"));
    let options = vcd_options(&vcd_path, from, cycles);
    run(&options.iter().map(String::as_str).collect::<Vec<_>>());
    for (path, nic) in [(vcd_path.clone(), "A"), (d.join("nic.b.vcd"), "B")] {
        let mut readers = vec![(read_vcd(&path), "our reader")];
        readers.extend(read_vcd_with_gtkwave(&path).map(|v| (v, "GTKWave")));
        for (vcd, reader) in readers {
            let what = format!("NIC {nic}, {reader}");
            vcd.assert_window(&what, from, cycles, PERIOD_PS, 2);
            assert!(
                vcd.changes_of(REQ_STATE) > 0,
                "{what}: requester state constant"
            );
            assert!(
                vcd.changes_of(RESP_STATE) > 0,
                "{what}: responder state constant"
            );
        }
    }
}

/// The requester's and the write responder's state registers in the Verilog's hierarchy (the
/// DFF's output `state$q` in the NIC's instances `req` and `resp`).
const REQ_STATE: &str = ".dut.req.state$q";
const RESP_STATE: &str = ".dut.resp.state$q";

/// Remote access violations: bad rkey, out of bounds, MR without REMOTE_WRITE, MR of another
/// PD, deregistered MR. Each on its own QP pair: a NAK remote access error on the wire, a
/// REM_ACCESS_ERR completion at the requester and its QP in ERR, the WR posted behind it
/// flushed, the responder's memory byte-identical, and the other QPs still working.
#[test]
fn remote_access_errors_are_naked_and_write_nothing() {
    if !require_tool("verilator") {
        return;
    }
    let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
    let cases = 5;
    // QPs 0..5: the cases; 5: untouched; 6: its peer goes to ERR, then it is moved to ERR
    let (pair, hosts) = open_pair(hw, ShellConfig::ideal(), cases + 2, 4096, true).unwrap();
    let mut rng = Rng::new(11);
    connect(&hosts, ferroce_driver::Pmtu::Mtu1024, &mut rng).unwrap();
    let [a, b] = &hosts;
    // responder-side MRs for the cases that need one
    let buf = |len| Arc::new(b.device.alloc_dma(len, 4096).unwrap());
    let no_write = b.pd.register(buf(4096), AccessFlags::LOCAL_WRITE).unwrap();
    let other_pd = b.device.alloc_pd().unwrap();
    let foreign = other_pd
        .register(
            buf(4096),
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    let gone =
        b.pd.register(
            buf(4096),
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    let gone_remote = Remote {
        va: gone.addr(0),
        rkey: gone.rkey(),
    };
    drop(gone);
    let targets = [
        (
            "bad rkey",
            Remote {
                va: b.mr.addr(0),
                rkey: b.mr.rkey() ^ 0x100,
            },
        ),
        (
            "out of bounds",
            Remote {
                va: b.mr.addr(b.mr.len() - 10),
                rkey: b.mr.rkey(),
            },
        ),
        (
            "no REMOTE_WRITE",
            Remote {
                va: no_write.addr(0),
                rkey: no_write.rkey(),
            },
        ),
        (
            "wrong PD",
            Remote {
                va: foreign.addr(0),
                rkey: foreign.rkey(),
            },
        ),
        ("deregistered", gone_remote),
    ];
    let snapshot = |mr: &ferroce_driver::MemoryRegion| {
        let mut v = vec![0u8; mr.len()];
        mr.read(0, &mut v).unwrap();
        v
    };
    let before = [snapshot(&b.mr), snapshot(&no_write), snapshot(&foreign)];
    let data = rng.bytes(100);
    a.mr.write(0, &data).unwrap();
    for (i, (_, remote)) in targets.iter().enumerate() {
        let sge = a.mr.sge(0, 100).unwrap();
        let wr = SendWr::write(2 * i as u64, *remote, vec![sge]).signaled();
        let behind = SendWr::write(
            2 * i as u64 + 1,
            Remote {
                va: b.mr.addr(0),
                rkey: b.mr.rkey(),
            },
            vec![sge],
        )
        .signaled();
        a.qps[i].post_send(&[wr, behind]).unwrap();
    }
    let wcs =
        a.cq.poll_until(2 * cases, 64, Duration::from_millis(4))
            .unwrap();
    assert_eq!(wcs.len(), 2 * cases, "{wcs:?}");
    for (i, (what, _)) in targets.iter().enumerate() {
        let mine: Vec<_> = wcs.iter().filter(|w| w.qp_num == a.qps[i].qpn()).collect();
        assert_eq!(mine.len(), 2, "{what}: {mine:?}");
        assert_eq!(
            (mine[0].wr_id, mine[0].status),
            (2 * i as u64, WcStatus::RemAccessErr),
            "{what}"
        );
        assert_eq!(mine[0].opcode, WcOpcode::RdmaWrite, "{what}");
        assert_eq!(
            (mine[1].wr_id, mine[1].status),
            (2 * i as u64 + 1, WcStatus::WrFlushErr),
            "{what}"
        );
        assert_eq!(
            a.qps[i].query().unwrap().attr.state,
            QpState::Error,
            "{what}"
        );
    }
    // nothing was written at the responder
    assert_eq!(
        before,
        [snapshot(&b.mr), snapshot(&no_write), snapshot(&foreign)]
    );
    // on the wire: one NAK remote access error per case, from B
    let naks = captured_roce(&pair)
        .iter()
        .filter(|f| f.from == 1)
        .filter_map(|f| f.aeth_syndrome)
        .filter(|s| *s == 0x62)
        .count();
    assert_eq!(naks, cases);
    // QP 6: its peer is in ERR, so its WRITEs are never acknowledged; moving it to ERR flushes
    // them all, the one in flight included
    let stuck = cases + 1;
    b.qps[stuck].to_error().unwrap();
    let sge = a.mr.sge(0, 100).unwrap();
    let to_b = Remote {
        va: b.mr.addr(0),
        rkey: b.mr.rkey(),
    };
    a.qps[stuck]
        .post_send(&[
            SendWr::write(70, to_b, vec![sge]).signaled(),
            SendWr::write(71, to_b, vec![sge]).signaled(),
        ])
        .unwrap();
    assert!(a
        .cq
        .poll_until(1, 8, Duration::from_micros(200))
        .unwrap()
        .is_empty());
    a.qps[stuck].to_error().unwrap();
    let wcs = a.cq.poll_until(2, 8, Duration::from_millis(1)).unwrap();
    let got: Vec<_> = wcs.iter().map(|w| (w.wr_id, w.status)).collect();
    assert_eq!(
        got,
        vec![(70, WcStatus::WrFlushErr), (71, WcStatus::WrFlushErr)]
    );
    assert_eq!(before[0], snapshot(&b.mr));
    // QUERY reads the requester's runtime state: both WQEs consumed, the SQ drained
    let q = a.qps[stuck].query().unwrap();
    assert_eq!(
        (q.sq_producer, q.sq_consumer, q.sq_drained),
        (2, 2, true),
        "{q:?}"
    );
    let q0 = a.qps[0].query().unwrap();
    assert_eq!((q0.sq_producer, q0.sq_consumer), (2, 2), "{q0:?}");
    let qu = a.qps[cases].query().unwrap();
    assert_eq!((qu.sq_producer, qu.sq_consumer), (0, 0), "{qu:?}");
    // the CQ's runtime state through the CQ window's QUERY: PI counts every CQE written
    let cq = a
        .device
        .registers()
        .command(
            ferroce_driver::Window::Cq,
            &ferroce_proto::host::cq::CqConfig::query_writes(a.cq.cqn()),
            |w| ferroce_proto::host::cq::CqQuery::from_window(|o| w.read(o)),
        )
        .unwrap();
    assert_eq!(cq.pi, 2 * cases as u32 + 2, "{cq:?}");
    assert!(!cq.armed);

    // the untouched QP pair still works; its completion raises the CQ's interrupt (armed for
    // the next completion, with nothing waiting, so it must not fire yet)
    assert!(a.cq.poll(8).unwrap().is_empty());
    a.cq.arm(ArmMode::Next);
    assert!(!a.cq.wait_event(Duration::from_micros(20)).unwrap());
    let q = cases;
    let sge = a.mr.sge(0, 100).unwrap();
    a.qps[q]
        .post_send(&[SendWr::write(
            99,
            Remote {
                va: b.mr.addr(512),
                rkey: b.mr.rkey(),
            },
            vec![sge],
        )
        .signaled()])
        .unwrap();
    assert!(
        a.cq.wait_event(Duration::from_millis(1)).unwrap(),
        "no CQ interrupt"
    );
    let wc = a.cq.poll(8).unwrap();
    assert_eq!(wc.len(), 1);
    assert_eq!((wc[0].wr_id, wc[0].status), (99, WcStatus::Success));
    let mut got = vec![0u8; 100];
    b.mr.read(512, &mut got).unwrap();
    assert_eq!(got, data);
}

/// A request packet lost in the middle of a message: the responder NAKs the PSN sequence error
/// at the next packet, the requester goes back to the NAKed PSN (Go-Back-N mid-message: it
/// walks the SGEs over the bytes already delivered and reads host memory again from there),
/// and the message arrives once, intact.
#[test]
fn lost_middle_packet_is_recovered_by_a_sequence_nak() {
    if !require_tool("verilator") {
        return;
    }
    let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
    let (pair, hosts) = open_pair(hw, ShellConfig::ideal(), 1, 8192, true).unwrap();
    let mut rng = Rng::new(21);
    connect(&hosts, ferroce_driver::Pmtu::Mtu256, &mut rng).unwrap();
    let [a, b] = &hosts;
    // 2000 bytes at PMTU 256: 8 packets; the link loses A's 4th frame (a MIDDLE)
    lock(&pair).lose_frames(0, [3]);
    let data = rng.bytes(2000);
    a.mr.write(0, &data).unwrap();
    let remote = Remote {
        va: b.mr.addr(4096),
        rkey: b.mr.rkey(),
    };
    let sges = vec![a.mr.sge(0, 700).unwrap(), a.mr.sge(700, 1300).unwrap()];
    a.qps[0]
        .post_send(&[SendWr::write(1, remote, sges).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1, "no completion");
    assert_eq!((wc[0].wr_id, wc[0].status), (1, WcStatus::Success));
    let mut got = vec![0u8; 2000];
    b.mr.read(4096, &mut got).unwrap();
    assert_eq!(got, data);
    // the NICs' own counters through BAR0: A received one NAK PSN sequence error, B sent it
    let count = |h: &ferroce_sim::cmd::verbs::Host<VerilatedNic>, name: &str| {
        h.device
            .counters()
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
    };
    assert_eq!(count(a, "RX_NAK_PSN_SEQ"), 1);
    assert_eq!(count(b, "TX_NAK_PSN_SEQ"), 1);
    assert_eq!(count(a, "RX_ACK"), count(b, "TX_ACK"));
    assert!(count(a, "RX_ACK") >= 1);
    // 8 packets, then packets 4..8 again (PSN index 3 on)
    assert_eq!(count(a, "TX_FRAMES"), 13);
    assert_eq!(count(a, "RETRANSMIT"), 5);
    assert_eq!(count(a, "RETRY_EVENT"), 1);
    assert_eq!(count(a, "ACK_TIMEOUT"), 0);
    let mut p = lock(&pair);
    assert_eq!(p.frames_lost(), [1, 0]);
    let req = p.nic(0).req_counts();
    assert_eq!((req.naks, req.resent, req.errors), (1, 1, 0), "{req:?}");
    assert_eq!(req.packets, 13);
    let resp = p.nic(1).resp_counts();
    // packets 5..8 of the first try were out of sequence; the second try starts at the lost
    // one, so nothing arrives twice
    assert_eq!(resp.psn_err, 4, "{resp:?}");
    assert_eq!(resp.duplicate, 0, "{resp:?}");
    assert_eq!(resp.executed, 8, "{resp:?}");
    // on the wire from B: one NAK PSN sequence error, then the ACK
    let syndromes: Vec<u8> = p
        .take_captured_roce()
        .iter()
        .filter(|f| f.from == 1)
        .filter_map(|f| f.aeth_syndrome)
        .collect();
    assert_eq!(syndromes.first(), Some(&0x60), "{syndromes:x?}");
    assert_eq!(syndromes.iter().filter(|s| **s == 0x60).count(), 1);
}

/// The receive queue: a SEND with no receive posted gets RNR NAKs (the QP stays up) and lands
/// once a receive is posted, scattered over two SGEs; a SEND longer than the receive WQE is a
/// NAK invalid request, LOC_LEN_ERR at the receiver, REM_INV_REQ_ERR at the sender, nothing
/// written; a receive buffer deregistered after posting is a NAK remote operational error,
/// LOC_PROT_ERR at the receiver, nothing written; a SEND with immediate and SE on another QP
/// still completes with its imm_data and the solicited flag.
#[test]
fn receive_queue_rnr_and_receive_errors() {
    if !require_tool("verilator") {
        return;
    }
    let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
    let (pair, hosts) = open_pair(hw, ShellConfig::ideal(), 4, 4096, true).unwrap();
    let mut rng = Rng::new(31);
    connect(&hosts, ferroce_driver::Pmtu::Mtu1024, &mut rng).unwrap();
    let [a, b] = &hosts;
    let data = rng.bytes(1500);
    a.mr.write(0, &data).unwrap();
    let snapshot = |mr: &ferroce_driver::MemoryRegion| {
        let mut v = vec![0u8; mr.len()];
        mr.read(0, &mut v).unwrap();
        v
    };
    let count = |h: &ferroce_sim::cmd::verbs::Host<VerilatedNic>, name: &str| {
        h.device
            .counters()
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
    };

    // QP 0: RNR, then a receive over two SGEs (100 + 1300 bytes) for a 1300-byte SEND (two
    // packets at PMTU 1024: the second one spans the SGE boundary)
    a.qps[0]
        .post_send(&[SendWr::send(1, vec![a.mr.sge(0, 1300).unwrap()]).signaled()])
        .unwrap();
    assert!(a
        .cq
        .poll_until(1, 8, Duration::from_micros(100))
        .unwrap()
        .is_empty());
    // (the requester keeps retrying meanwhile: the counters move while they are read)
    assert!(count(b, "TX_NAK_RNR") >= 1, "no RNR NAK sent");
    assert_eq!(a.qps[0].query().unwrap().attr.state, QpState::Rts);
    b.qps[0]
        .post_recv(&[ferroce_driver::RecvWr::new(
            500,
            vec![b.mr.sge(8192, 100).unwrap(), b.mr.sge(4096, 1300).unwrap()],
        )])
        .unwrap();
    let wa = a.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(wa.len(), 1, "{wa:?}");
    assert_eq!(
        (wa[0].wr_id, wa[0].status, wa[0].opcode),
        (1, WcStatus::Success, WcOpcode::Send)
    );
    let wb = b.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(wb.len(), 1, "{wb:?}");
    let w = wb[0];
    assert_eq!(
        (w.wr_id, w.status, w.opcode, w.byte_len, w.imm),
        (500, WcStatus::Success, WcOpcode::Recv, 1300, None)
    );
    assert_eq!((w.qp_num, w.src_qp), (b.qps[0].qpn(), a.qps[0].qpn()));
    let mut got = vec![0u8; 1300];
    b.mr.read(8192, &mut got[..100]).unwrap();
    b.mr.read(4096, &mut got[100..]).unwrap();
    assert_eq!(got, data[..1300]);
    // no more RNR NAKs once the message is through: every one sent was received
    let rnr = count(b, "TX_NAK_RNR");
    assert_eq!(count(a, "RX_NAK_RNR"), rnr);
    // the receive's room past the message (SGE 1 holds 1300, the message left it 1200) is
    // untouched (fresh memory reads 0)
    let mut after = [0xFFu8; 100];
    b.mr.read(4096 + 1200, &mut after).unwrap();
    assert_eq!(after, [0u8; 100]);

    // QP 1: a 200-byte SEND into a 64-byte receive
    let before = snapshot(&b.mr);
    b.qps[1]
        .post_recv(&[ferroce_driver::RecvWr::new(
            600,
            vec![b.mr.sge(12288, 64).unwrap()],
        )])
        .unwrap();
    a.qps[1]
        .post_send(&[SendWr::send(2, vec![a.mr.sge(0, 200).unwrap()]).signaled()])
        .unwrap();
    let wa = a.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(
        wa.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(),
        vec![(2, WcStatus::RemInvReqErr)]
    );
    let wb = b.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(
        wb.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(),
        vec![(600, WcStatus::LocLenErr)]
    );
    assert_eq!(b.qps[1].query().unwrap().attr.state, QpState::Error);
    assert_eq!(snapshot(&b.mr), before, "a too-long SEND wrote memory");

    // QP 2: the receive buffer's MR is deregistered after the receive was posted
    let rbuf = Arc::new(b.device.alloc_dma(4096, 4096).unwrap());
    let rmr =
        b.pd.register(rbuf.clone(), AccessFlags::LOCAL_WRITE)
            .unwrap();
    rbuf.fill(0, 4096, 0x5A).unwrap();
    b.qps[2]
        .post_recv(&[ferroce_driver::RecvWr::new(
            700,
            vec![rmr.sge(0, 4096).unwrap()],
        )])
        .unwrap();
    drop(rmr);
    a.qps[2]
        .post_send(&[SendWr::send(3, vec![a.mr.sge(0, 300).unwrap()]).signaled()])
        .unwrap();
    let wa = a.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(
        wa.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(),
        vec![(3, WcStatus::RemOpErr)]
    );
    let wb = b.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(
        wb.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(),
        vec![(700, WcStatus::LocProtErr)]
    );
    assert_eq!(rbuf.to_vec(0, 4096).unwrap(), vec![0x5A; 4096]);

    // on the wire from B: RNR NAKs (0x20 | min_rnr_timer 12), one NAK 0x61, one NAK 0x63
    let syn: Vec<u8> = captured_roce(&pair)
        .iter()
        .filter(|f| f.from == 1)
        .filter_map(|f| f.aeth_syndrome)
        .collect();
    assert_eq!(syn.iter().filter(|s| **s == 0x20 | 12).count() as u64, rnr);
    assert_eq!(syn.iter().filter(|s| **s == 0x61).count(), 1, "{syn:02x?}");
    assert_eq!(syn.iter().filter(|s| **s == 0x63).count(), 1, "{syn:02x?}");

    // QP 3 is untouched: SEND with immediate and solicited event, zero bytes
    b.qps[3]
        .post_recv(&[ferroce_driver::RecvWr::new(800, vec![])])
        .unwrap();
    a.qps[3]
        .post_send(&[SendWr::send_imm(4, 0xDEAD_BEEF, vec![])
            .solicited()
            .signaled()])
        .unwrap();
    let wb = b.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(wb.len(), 1, "{wb:?}");
    let w = wb[0];
    assert_eq!(
        (w.wr_id, w.status, w.opcode, w.byte_len, w.imm, w.solicited),
        (
            800,
            WcStatus::Success,
            WcOpcode::Recv,
            0,
            Some(0xDEAD_BEEF),
            true
        )
    );
    let wa = a.cq.poll_until(1, 8, Duration::from_millis(1)).unwrap();
    assert_eq!(
        wa.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(),
        vec![(4, WcStatus::Success)]
    );
    let resp = lock(&pair).nic(1).resp_counts();
    assert_eq!(resp.recv, 4, "{resp:?}");
}

/// `--rate-limit MBPS`: every QP of both hosts limited by the NIC's shaper; the JSON summary
/// gives each QP's configured and measured rate (payload bytes over the cycles from its first
/// posting to its last completion). 24 WRITEs of 4 KiB, 12 per host: with the limit each
/// host's QP moves at most the limit plus its initial burst (the bucket starts full, so 2 of its
/// 12 messages leave at once: at most 12/10 of the limit) and well below the unlimited run;
/// an out-of-range limit is refused with exit 2 naming the option.
#[test]
fn rate_limit_in_the_summary() {
    if !require_tool("verilator") {
        return;
    }
    let run = |extra: &[&str]| {
        let mut a = vec![
            "--sizes",
            "4096",
            "--messages",
            "24",
            "--qps",
            "1",
            "--seed",
            "5",
        ];
        a.extend_from_slice(extra);
        verbs_json(&a)
    };
    let free = run(&[]);
    let limited = run(&["--rate-limit", "1000"]);
    for v in [&free, &limited] {
        assert_eq!(v["verified"], 24, "{v}");
    }
    let rates = |v: &serde_json::Value| -> Vec<(serde_json::Value, f64)> {
        v["qp_rates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                (
                    q["configured_mbps"].clone(),
                    q["measured_mbps"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    // the NIC's own view (CC_QP_RATE): the limit at the end and all along, and no limit
    // without one (the line rate, no samples taken)
    for q in limited["qp_rates"].as_array().unwrap() {
        assert_eq!(q["final_limited"], true, "{q}");
        assert_eq!(q["final_mbps"], 1000, "{q}");
        assert_eq!(q["min_mbps"], 1000, "{q}");
        assert_eq!(q["mean_mbps"].as_f64(), Some(1000.0), "{q}");
    }
    for q in free["qp_rates"].as_array().unwrap() {
        assert_eq!(q["final_limited"], false, "{q}");
        assert_eq!(q["final_mbps"], free["line_mbps"], "{q}");
        assert!(q["mean_mbps"].is_null(), "{q}");
    }
    let (f, l) = (rates(&free), rates(&limited));
    assert_eq!(f.len(), 2);
    assert_eq!(l.len(), 2);
    eprintln!("unlimited {f:?}; --rate-limit 1000 {l:?}");
    for ((fc, fm), (lc, lm)) in f.iter().zip(&l) {
        assert!(fc.is_null(), "{fc}");
        assert_eq!(lc, 1000, "{lc}");
        assert!(*lm <= 1000.0 * 12.0 / 10.0, "limited QP at {lm} Mb/s");
        assert!(*lm >= 500.0, "limited QP at {lm} Mb/s");
        assert!(*fm > 2.0 * lm, "unlimited {fm} Mb/s, limited {lm}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["verbs", "--messages", "2", "--rate-limit", "99999999"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--rate-limit") && err.contains("mbps"),
        "{err}"
    );
}

/// `--ecn-mark 0.01 --dcqcn on` (issue: "CNPs flow, rates fall and recover, every message
/// verified"): a link that marks 1 % of ECN-capable frames CE, both NICs' reaction points on
/// with the mlx5 defaults. Checked from the JSON: CNPs sent by both NICs and each handled at its
/// peer (or dropped there, counted, with the frames its full receive FIFO had no room for); every QP's rate as the NIC reports it (`CC_QP_RATE`, sampled every 10 us) stays within
/// the reaction point's range (`rpg_min_rate` 1 Mb/s .. the line rate) with its time average
/// between its lowest sample and the line rate; at least one QP is cut below the line rate,
/// and at least one ends above its lowest rate (the increase timer, 300 us, raised it again).
#[test]
fn dcqcn_on_a_marking_link_cuts_and_recovers_rates() {
    if !require_tool("verilator") {
        return;
    }
    let v = verbs_json(&[
        "--sizes",
        "64K",
        "--messages",
        "40",
        "--qps",
        "2",
        "--seed",
        "3",
        "--ecn-mark",
        "0.01",
        "--dcqcn",
        "on",
    ]);
    assert_eq!(v["verified"], 40, "{v}");
    assert_eq!(v["failed"], 0, "{v}");
    let line = v["line_mbps"].as_u64().unwrap();
    // Every CNP sent is handled at the peer, unless the peer's receive FIFO had no room for
    // it: without PFC (not on here) a NIC drops whole frames when that FIFO is full
    // (`CNT_RX_DROP_NO_ROOM`, `rx_dropped_no_room`), and this run's back-to-back 64 KiB
    // WRITEs in both directions fill it. So: no CNP is received that was not sent, none is
    // lost beyond the peer's dropped frames, and with no frame dropped every one arrives.
    for (h, peer) in [("a", "b"), ("b", "a")] {
        let sent = v["cnps"]["sent"][h].as_u64().unwrap();
        assert!(sent > 0, "host {h} sent no CNP: {v}");
        let received = v["cnps"]["received"][peer].as_u64().unwrap();
        let no_room = v["rx_dropped_no_room"][peer].as_u64().unwrap();
        assert!(received <= sent, "{v}");
        assert!(sent - received <= no_room, "{v}");
        if no_room == 0 {
            assert_eq!(received, sent, "{v}");
        }
    }
    let qps = v["qp_rates"].as_array().unwrap();
    assert_eq!(qps.len(), 4);
    let (mut cut, mut recovered) = (false, false);
    for q in qps {
        let min = q["min_mbps"].as_u64().unwrap();
        let fin = q["final_mbps"].as_u64().unwrap();
        let mean = q["mean_mbps"].as_f64().unwrap();
        assert!(
            (1..=line).contains(&min) && (1..=line).contains(&fin),
            "{q}"
        );
        assert!(min as f64 <= mean && mean <= line as f64, "{q}");
        cut |= min < line;
        recovered |= fin > min;
    }
    eprintln!("{}", serde_json::to_string(&v["qp_rates"]).unwrap());
    assert!(cut, "no QP was cut: {qps:?}");
    assert!(recovered, "no QP recovered from its lowest rate: {qps:?}");
}

/// `--vlan VID`: both NICs tag their frames (the capture shows the tag on every RoCE frame) and
/// still verify every message; a VID out of 0..=4094 or not a number exits 2 naming it.
#[test]
fn vlan_tags_every_frame_and_bad_ids_exit_2() {
    if !require_tool("verilator") {
        return;
    }
    let pcap = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_verbs_vlan.pcap");
    let j = verbs_json(&[
        "--vlan",
        "4094",
        "--ops",
        "write,read",
        "--sizes",
        "1,2000",
        "--messages",
        "4",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert_eq!(j["vlan"], 4094, "{j}");
    assert_eq!(j["verified"], j["messages"], "{j}");
    let cap = ferroce_proto::pcap::read_file(&pcap).unwrap();
    assert!(!cap.records.is_empty());
    for r in &cap.records {
        let eth = ferroce_proto::wire::EthernetFrame::new_checked(&r.data[..]).unwrap();
        let tag = eth.vlan().expect("an untagged frame");
        assert_eq!((tag.vid, tag.pcp), (4094, 3));
    }
    for bad in ["4095", "65536", "x"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
            .args(["verbs", "--messages", "1", "--vlan", bad])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--vlan") && err.contains("VLAN ID"), "{err}");
    }
}
