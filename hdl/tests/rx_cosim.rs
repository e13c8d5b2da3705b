//! Co-simulation of RxParser: its emitted Verilog (Verilator) against the rust-hdl model in lock
//! step (`ferroce_hdl::cosim::CoSim`: every output port compared at every settle and both clock
//! phases), with the same stimulus as the rust-hdl tests: the published vectors (docs/PROTOCOL.md
//! §11), random frames of every opcode and L3 kind, malformed frames, random valid/ready gaps. The
//! outputs must also equal the reference model. Needs verilator, make and g++
//! (`ferroce_testkit::require_tool` policy).
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{check, known_opcodes, random_roce_frame, run, FrameOpts, Shaping};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::{RxParser64, RxParserFlat64};
use ferroce_hdl::testbench::Rng;
use ferroce_testkit::require_cosim_tools;

fn mixed_frames(rng: &mut Rng, n_per_op: usize) -> Vec<Vec<u8>> {
    let opts = FrameOpts {
        max_payload: 300,
        ..Default::default()
    };
    let mut v = vec![];
    for op in known_opcodes() {
        for i in 0..n_per_op {
            let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][(op as usize + i) % 3];
            let mut f = random_roce_frame(rng, op, l3, &opts);
            match rng.below(10) {
                0 => {
                    let p = rng.range(0, f.len() - 1);
                    f[p] ^= 1 << rng.below(8);
                }
                1 => {
                    let n = rng.range(1, f.len());
                    f.truncate(n);
                }
                2 => {
                    let n = rng.range(1, 100);
                    f = rng.bytes(n);
                }
                _ => {}
            }
            v.push(f);
        }
    }
    v
}

#[test]
fn rx_cosim_parser() {
    if !require_cosim_tools() {
        return;
    }
    let t = std::time::Instant::now();
    let mut cs = CoSim::new(RxParserFlat64::default(), |u| &mut u.clock);
    eprintln!("model built in {:.1} s", t.elapsed().as_secs_f64());
    let mut rng = Rng::new(77);
    for (i, sh) in [(0, 0, 0), (25, 0, 0), (0, 40, 40), (30, 30, 50)]
        .iter()
        .enumerate()
    {
        let cfg = RxConfig {
            promisc: i % 2 == 1,
            ..RxConfig::default()
        };
        let frames = mixed_frames(&mut rng, 2);
        let t = std::time::Instant::now();
        let r = run(
            &mut cs,
            &frames,
            &cfg,
            Shaping {
                gap_percent: sh.0,
                hdr_stall_percent: sh.1,
                pay_stall_percent: sh.2,
                seed: 300 + i as u64,
            },
        );
        check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
        eprintln!(
            "shaping {sh:?}: {} frames, {} cycles in lock step, {:.0} cycles/s",
            frames.len(),
            r.cycles,
            r.cycles as f64 / t.elapsed().as_secs_f64()
        );
    }
    eprintln!(
        "rx parser: {} lock-step comparisons, 0 mismatches",
        cs.compares
    );
}

/// The Verilator model alone as the fast engine: the real capture (if reachable) and random
/// frames of every opcode, back to back at full rate, outputs always ready; every verdict equals
/// the model's, the counters agree, and the engine speed is printed.
#[test]
fn rx_verilator_engine_speed() {
    use ferroce_hdl::cosim::VerilatedBlock;
    use ferroce_hdl::rx::model::expect;
    use ferroce_hdl::rx::{DropReason, RxKind};
    if !require_cosim_tools() {
        return;
    }
    let mut frames: Vec<Vec<u8>> = vec![];
    let pcap = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/vectors/real/hw_send_imm_ack_mtu1024.pcap"
    );
    if let Ok(cap) = ferroce_proto::pcap::read_file(pcap) {
        frames.extend(cap.frames().map(|f| f.to_vec()));
    }
    let mut rng = Rng::new(5);
    let opts = FrameOpts {
        max_payload: 2048,
        ..Default::default()
    };
    for _ in 0..4 {
        for op in known_opcodes() {
            let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][rng.below(3) as usize];
            frames.push(random_roce_frame(&mut rng, op, l3, &opts));
        }
    }
    let cfg = RxConfig {
        promisc: true,
        ..RxConfig::default()
    };
    let mut m = VerilatedBlock::new(&mut RxParserFlat64::default());
    let p = |m: &VerilatedBlock, n: &str| m.port(n);
    let (iv, ir, id, ik, il) = (
        p(&m, "inp$valid"),
        p(&m, "inp$ready"),
        p(&m, "inp$data"),
        p(&m, "inp$keep"),
        p(&m, "inp$last"),
    );
    let (hr, prdy, vv, vk, vr, vi) = (
        p(&m, "hdr_ready"),
        p(&m, "pay$ready"),
        p(&m, "vd_valid"),
        p(&m, "vd_kind"),
        p(&m, "vd_reason"),
        p(&m, "vd_icrc_ok"),
    );
    let acc = p(&m, "cnt_accepted");
    m.set(p(&m, "cfg_mac"), cfg.mac);
    m.set(p(&m, "cfg_promisc"), cfg.promisc as u64);
    m.set(p(&m, "cfg_max_frame"), cfg.max_frame as u64);
    m.set(hr, 1);
    m.set(prdy, 1);
    let beats: Vec<(u64, u64, bool)> = frames
        .iter()
        .flat_map(|f| {
            let n = f.len().div_ceil(8);
            f.chunks(8)
                .enumerate()
                .map(move |(i, c)| {
                    let mut d = 0u64;
                    for (j, b) in c.iter().enumerate() {
                        d |= (*b as u64) << (56 - 8 * j);
                    }
                    (d, (0xFFu64 << (8 - c.len())) & 0xFF, i + 1 == n)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut verdicts = vec![];
    let mut next = 0;
    let mut cycles = 0u64;
    let t = std::time::Instant::now();
    while verdicts.len() < frames.len() {
        if next < beats.len() {
            let (d, k, l) = beats[next];
            m.set(iv, 1);
            m.set(id, d);
            m.set(ik, k);
            m.set(il, l as u64);
        } else {
            m.set(iv, 0);
        }
        m.eval();
        if next < beats.len() && m.get(ir) == 1 {
            next += 1;
        }
        if m.get(vv) == 1 {
            verdicts.push((m.get(vk) as u8, m.get(vr) as u8, m.get(vi) == 1));
        }
        m.tick();
        cycles += 1;
        assert!(
            cycles < 10 * beats.len() as u64 + 10_000,
            "engine run did not finish"
        );
    }
    let secs = t.elapsed().as_secs_f64();
    m.tick();
    m.eval();
    for (i, f) in frames.iter().enumerate() {
        let w = expect(f, &cfg, RxParser64::hard_max_frame()).verdict;
        let g = verdicts[i];
        assert_eq!(
            (
                RxKind::from_code(g.0).unwrap(),
                DropReason::from_code(g.1).unwrap(),
                g.2
            ),
            (w.kind, w.reason, w.icrc_ok),
            "frame {i}"
        );
    }
    let n_acc = verdicts.iter().filter(|v| v.1 == 0).count() as u64;
    assert_eq!(m.get(acc), n_acc);
    eprintln!(
        "verilator engine: {} frames, {} beats, {} cycles, {:.2} M cycles/s",
        frames.len(),
        beats.len(),
        cycles,
        cycles as f64 / secs / 1e6
    );
}

/// The real hardware capture (if reachable) in lock step, with output back-pressure.
#[test]
fn rx_cosim_real_capture() {
    if !require_cosim_tools() {
        return;
    }
    let Some(shared) = ferroce_testkit::shared_dir() else {
        return;
    };
    let pcap = shared.join("vectors/real/hw_send_imm_ack_mtu1024.pcap");
    let cap = ferroce_proto::pcap::read_file(&pcap).expect("read the hardware capture");
    let frames: Vec<Vec<u8>> = cap.frames().map(|f| f.to_vec()).collect();
    let cfg = RxConfig {
        promisc: true,
        ..RxConfig::default()
    };
    let mut cs = CoSim::new(RxParserFlat64::default(), |u| &mut u.clock);
    let r = run(
        &mut cs,
        &frames,
        &cfg,
        Shaping {
            gap_percent: 5,
            hdr_stall_percent: 20,
            pay_stall_percent: 20,
            seed: 9,
        },
    );
    check(&frames, &cfg, RxParser64::hard_max_frame(), &r).unwrap();
    assert_eq!(r.counters[0], 105);
    eprintln!(
        "real capture: {} cycles, {} lock-step comparisons, 0 mismatches",
        r.cycles, cs.compares
    );
}
