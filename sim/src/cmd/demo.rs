//! `ferroce demo`: the main simulated RoCEv2 scenario of this stage of the project.
//!
//! Host A sends RDMA WRITE and SEND-with-immediate messages to host B over a simulated link:
//!
//! ```text
//!  message stimulus --> A: TxHeaderBuilder (HDL) --> link (bit errors injected) --> B: RxParser (HDL)
//!  (stands in for the                                                                 |
//!   segmenter, next)                                      accepted packets, reassembled and checked
//! ```
//!
//! Both NIC front ends run cycle-accurate. The stimulus cuts each message into PMTU packets
//! with FIRST/MIDDLE/LAST opcodes, PSNs, RETH and ImmDt the way the hardware segmenter will;
//! it is the test bench, not the NIC. The link flips one bit in `--corrupt` chosen frames: B's
//! ICRC check must drop exactly those, and every other message must arrive byte for byte.
//! (Recovering the dropped packets is the reliable transport's job, which comes next.)

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::rx::harness::{self, Shaping};
use ferroce_hdl::rx::model::{RxConfig, RxRelease};
use ferroce_hdl::rx::{DropReason, RxParser64};
use ferroce_hdl::testbench::{Bench, Rng as HdlRng};
use ferroce_hdl::tx::drive::{run_builder, Timing};
use ferroce_hdl::tx::TxHeaderBuilder;
use ferroce_proto::flow::udp_source_port;
use ferroce_proto::pcap::PcapWriter;
use ferroce_proto::testgen::Rng;
use ferroce_proto::wire::{
    BthRepr, EthernetRepr, ExtHeaders, FrameRepr, ImmDtRepr, Opcode, RethRepr, RoceNet,
};
use serde_json::json;

use super::CliError;

const MAC_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0A];
const MAC_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0B];
const QPN_A: u32 = 0x11;
const QPN_B: u32 = 0x12;

pub struct DemoArgs<'a> {
    pub messages: usize,
    pub size: usize,
    pub pmtu: usize,
    pub corrupt: usize,
    pub seed: u64,
    pub pcap: Option<&'a Path>,
}

/// One packet of a message: the frame and which message and byte range it carries.
struct Packet {
    frame: FrameRepr,
    message: usize,
}

/// The stimulus: message -> packets, as the segmenter will do it in hardware.
fn segment(messages: &[Vec<u8>], pmtu: usize, ipv6: bool) -> Vec<Packet> {
    let sport = udp_source_port(QPN_A, QPN_B, 0);
    let mut psn = 0xFF_FFF0u32; // start near the 24-bit wrap so the demo crosses it
    let mut packets = Vec::new();
    for (m, data) in messages.iter().enumerate() {
        let write = m % 2 == 0;
        let chunks: Vec<&[u8]> = if data.is_empty() {
            vec![&[][..]]
        } else {
            data.chunks(pmtu).collect()
        };
        let n = chunks.len();
        for (i, chunk) in chunks.iter().enumerate() {
            let (first, last) = (i == 0, i + 1 == n);
            let opcode = match (write, first, last) {
                (true, true, true) => Opcode::RC_RDMA_WRITE_ONLY,
                (true, true, false) => Opcode::RC_RDMA_WRITE_FIRST,
                (true, false, false) => Opcode::RC_RDMA_WRITE_MIDDLE,
                (true, false, true) => Opcode::RC_RDMA_WRITE_LAST,
                (false, true, true) => Opcode::RC_SEND_ONLY_WITH_IMMEDIATE,
                (false, true, false) => Opcode::RC_SEND_FIRST,
                (false, false, false) => Opcode::RC_SEND_MIDDLE,
                (false, false, true) => Opcode::RC_SEND_LAST_WITH_IMMEDIATE,
            };
            let mut bth = BthRepr::new(opcode, QPN_B, psn);
            bth.ack_req = last;
            psn = (psn + 1) & 0xFF_FFFF;
            let ext = ExtHeaders {
                reth: (write && first).then_some(RethRepr {
                    va: 0x7f00_0000_0000 + (m as u64) * 0x10_0000,
                    rkey: 0x0001_0042,
                    dma_len: data.len() as u32,
                }),
                imm_dt: (!write && last).then_some(ImmDtRepr {
                    imm: 0xC0DE_0000 | m as u32,
                }),
                ..ExtHeaders::default()
            };
            let net = if ipv6 {
                RoceNet::ipv6(ipv6_addr(1), ipv6_addr(2), sport)
            } else {
                RoceNet::ipv4([10, 0, 1, 1], [10, 0, 2, 1], sport)
            };
            let eth = EthernetRepr {
                dst: MAC_B,
                src: MAC_A,
                vlan: None,
                ethertype: net.ethertype(),
            };
            packets.push(Packet {
                frame: FrameRepr::new_roce(eth, net, bth, ext, chunk.to_vec()),
                message: m,
            });
        }
    }
    packets
}

fn ipv6_addr(host: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = host;
    a
}

pub fn run(args: &DemoArgs) -> Result<ExitCode, CliError> {
    if ![256, 512, 1024, 2048, 4096].contains(&args.pmtu) {
        return Err(CliError(format!(
            "--pmtu {}: must be 256, 512, 1024, 2048 or 4096",
            args.pmtu
        )));
    }
    if args.messages == 0 {
        return Err(CliError("--messages must be at least 1".into()));
    }
    let mut rng = Rng::new(args.seed);
    let messages: Vec<Vec<u8>> = (0..args.messages)
        .map(|_| {
            let mut m = vec![0u8; args.size];
            rng.fill(&mut m);
            m
        })
        .collect();
    let mut packets = segment(
        &messages[..messages.len() / 2 + messages.len() % 2],
        args.pmtu,
        false,
    );
    let second = segment(
        &messages[messages.len() / 2 + messages.len() % 2..],
        args.pmtu,
        true,
    );
    let offset = messages.len() / 2 + messages.len() % 2;
    packets.extend(second.into_iter().map(|p| Packet {
        message: p.message + offset,
        ..p
    }));
    if args.corrupt > packets.len() {
        return Err(CliError(format!(
            "--corrupt {} exceeds the {} packets sent",
            args.corrupt,
            packets.len()
        )));
    }

    // Host A's transmit front end builds every frame.
    let jobs: Vec<(RoceHeader, Vec<u8>)> = packets
        .iter()
        .map(|p| RoceHeader::from_frame(&p.frame).map(|(h, d)| (h, d.to_vec())))
        .collect::<Result<_, _>>()
        .map_err(|e| CliError(format!("descriptor: {}", e.0)))?;
    let started = Instant::now();
    let mut tx = Bench::new(TxHeaderBuilder::default(), |u: &mut TxHeaderBuilder| {
        &mut u.clock
    });
    let built = run_builder(
        &mut tx,
        &jobs,
        Timing::default(),
        &mut HdlRng::new(args.seed),
    );
    // Independent check of A's output: the proto crate must parse every frame with a good ICRC.
    for (i, frame) in built.frames.iter().enumerate() {
        let parsed =
            FrameRepr::parse(frame).map_err(|e| CliError(format!("frame {}: {e}", i + 1)))?;
        if parsed.icrc_ok() != Some(true) {
            return Err(CliError(format!(
                "frame {}: transmit path produced a bad ICRC",
                i + 1
            )));
        }
    }

    // The link: one bit flipped, past the Ethernet header, in each chosen frame.
    let mut wire = built.frames.clone();
    let mut corrupted = BTreeSet::new();
    while corrupted.len() < args.corrupt {
        corrupted.insert(rng.below(wire.len() as u64) as usize);
    }
    for &i in &corrupted {
        let frame = &mut wire[i];
        let at = 14 + rng.below((frame.len() - 14) as u64) as usize;
        frame[at] ^= 1 << rng.below(8);
    }
    if let Some(path) = args.pcap {
        let mut w =
            PcapWriter::create(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        for (i, frame) in wire.iter().enumerate() {
            w.write_packet(i as u64 * 1000, frame)
                .map_err(|e| CliError(e.to_string()))?;
        }
        w.flush().map_err(|e| CliError(e.to_string()))?;
    }

    // Host B's receive front end.
    let cfg = RxConfig {
        mac: u64::from_be_bytes([
            0, 0, MAC_B[0], MAC_B[1], MAC_B[2], MAC_B[3], MAC_B[4], MAC_B[5],
        ]),
        promisc: false,
        ..RxConfig::default()
    };
    let mut rx = Bench::new(RxParser64::default(), |u: &mut RxParser64| &mut u.clock);
    let received = harness::run(&mut rx, &wire, &cfg, Shaping::FULL_RATE);
    let seconds = started.elapsed().as_secs_f64();

    // Reassemble what B accepted and check it against what A sent.
    let mut reassembled: Vec<Vec<u8>> = vec![Vec::new(); messages.len()];
    let mut complete = vec![true; messages.len()];
    let mut releases = received.releases.iter();
    let (mut accepted, mut dropped_bad_icrc, mut unexplained) = (0usize, 0usize, Vec::new());
    for (i, verdict) in received.verdicts.iter().enumerate() {
        let message = packets[i].message;
        if verdict.reason == DropReason::Accepted {
            accepted += 1;
            if corrupted.contains(&i) {
                unexplained.push(json!({"frame": i + 1, "problem": "corrupted frame accepted"}));
            }
            match releases.next() {
                Some(RxRelease::Roce { hdr, payload }) => {
                    if hdr.psn.to_u64() as u32 != packets[i].frame.psn().unwrap() {
                        unexplained
                            .push(json!({"frame": i + 1, "problem": "PSN changed on the way"}));
                    }
                    reassembled[message].extend_from_slice(payload);
                }
                _ => unexplained
                    .push(json!({"frame": i + 1, "problem": "accepted but nothing released"})),
            }
        } else {
            complete[message] = false;
            if verdict.reason == DropReason::BadIcrc && corrupted.contains(&i) {
                dropped_bad_icrc += 1;
            } else if !corrupted.contains(&i) {
                unexplained.push(json!({"frame": i + 1, "problem": format!("clean frame dropped: {}", verdict.reason.name())}));
            } else {
                // A flip in a length field can be caught before the ICRC: still a correct drop.
                dropped_bad_icrc += 1;
            }
        }
    }
    let verified = (0..messages.len())
        .filter(|&m| complete[m] && reassembled[m] == messages[m])
        .count();
    let incomplete = complete.iter().filter(|c| !**c).count();
    for m in 0..messages.len() {
        if complete[m] && reassembled[m] != messages[m] {
            unexplained.push(json!({"message": m, "problem": "payload differs"}));
        }
    }
    let ok = unexplained.is_empty() && verified + incomplete == messages.len();
    let summary = json!({
        "scenario": "front ends: A TxHeaderBuilder -> link with bit errors -> B RxParser",
        "messages": messages.len(),
        "message_bytes": args.size,
        "pmtu": args.pmtu,
        "packets": packets.len(),
        "frames_corrupted_on_link": corrupted.len(),
        "accepted": accepted,
        "dropped_by_icrc_or_length": dropped_bad_icrc,
        "messages_verified": verified,
        "messages_hit_by_corruption": incomplete,
        "tx_cycles": built.cycles,
        "rx_cycles": received.cycles,
        "rx_hardware_counters": DropReason::ALL.iter().map(|r| (r.name(), received.counters[r.code() as usize])).collect::<std::collections::BTreeMap<_, _>>(),
        "wall_seconds": (seconds * 100.0).round() / 100.0,
        "problems": unexplained,
        "ok": ok,
    });
    println!("{}", serde_json::to_string_pretty(&summary).unwrap());
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
