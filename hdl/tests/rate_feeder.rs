//! The rate feeder's bench and co-simulation. The bench plays the reaction point's rate port
//! (two cycles of latency, values the bench changes at random) and the shaper (a combinational
//! read port, writes taken at random `set_ready`), writes random static limits, and sends
//! random CNP and bytes events at random `ready`. Checked, on the rust-hdl block and on the
//! emitted Verilog (Verilator) in lock step with it:
//! * after every quiet spell (no change for two sweeps) the shaper holds, for every QP,
//!   min(static limit, Rc) when the reaction point limits the QP, else the static limit
//!   (written from the rule in docs/CONGESTION.md, not from the block);
//! * a change reaches the shaper within one sweep (256 cycles plus 4 per write);
//! * CNP events come out in order, none lost while the queue has room, each lost one pulsing
//!   `ev_cnp_dropped` / `ev_bytes_dropped`; bytes events come out in order in pieces of at most 2^24 - 1 bytes that
//!   add up to the message, zero-byte messages are not events.
//!
//! Also Yosys `synth_ecp5` of the block. Needs verilator, make, g++ and yosys.
use ferroce_hdl::cc::rate_feeder::{RateFeeder, BYTES_PIECE};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

const QPS: usize = 256;

/// What the shaper must hold for a QP (0 = no limit), by the rule of docs/CONGESTION.md.
fn rule(static_mbps: u32, rp: Option<u32>) -> u32 {
    match rp {
        Some(rc) if static_mbps == 0 => rc,
        Some(rc) => rc.min(static_mbps),
        None => static_mbps,
    }
}

struct World {
    stat: Vec<u32>,
    rp: Vec<Option<u32>>,
    shaper: Vec<u32>,
    /// the reaction point's rate port: QPNs asked, oldest first
    asked: VecDeque<u32>,
    cnp_sent: VecDeque<u32>,
    bytes_sent: VecDeque<(u32, u64)>,
    /// bytes of the head message seen so far
    head_seen: u64,
    dropped_want: u64,
    dropped_got: u64,
    cnp_out: u64,
    pieces: u64,
    split: u64,
}

/// `n` cycles of random traffic; quiet spells every `period` cycles. Returns the world so the
/// caller can check every case happened.
fn run<S: Stepper<RateFeeder>>(b: &mut S, seed: u64, n: usize) -> World {
    let mut rng = Rng::new(seed);
    let mut w = World {
        stat: vec![0; QPS],
        rp: vec![None; QPS],
        shaper: vec![0; QPS],
        asked: VecDeque::from(vec![0, 0]),
        cnp_sent: VecDeque::new(),
        bytes_sent: VecDeque::new(),
        head_seen: 0,
        dropped_want: 0,
        dropped_got: 0,
        cnp_out: 0,
        pieces: 0,
        split: 0,
    };
    // the block clears its static RAM after reset (256 cycles)
    for _ in 0..300 {
        b.uut().sh_set_ready.next = true;
        b.settle();
        b.tick();
    }
    // quiet spells: (start cycle, length); changes stop during them
    let period = 3000usize;
    let quiet = 2 * (QPS + 4 * 32) + 64;
    let mut cnp_room = 16usize;
    let mut bytes_room = 16usize;
    let mut last_change = 0usize;
    for c in 0..n {
        let in_quiet = c % period >= period - quiet;
        let u = b.uut();
        u.static_valid.next = false;
        u.cnp_in_valid.next = false;
        u.bytes_in_valid.next = false;
        // changes: static writes and reaction point changes, a few QPs only (so that each
        // quiet spell has real work), not during quiet spells
        if !in_quiet && rng.percent(4) {
            let q = rng.range(0, 40);
            let v = match rng.range(0, 3) {
                0 => 0,
                1 => rng.range(1, 100) as u32,
                _ => rng.range(100, 1 << 20) as u32,
            };
            u.static_valid.next = true;
            u.static_qpn.next = (q as u64).into();
            u.static_mbps.next = (v as u64).into();
            w.stat[q] = v;
            last_change = c;
        }
        if !in_quiet && rng.percent(4) {
            let q = rng.range(0, 40);
            w.rp[q] = if rng.percent(30) {
                None
            } else {
                Some(rng.range(1, 30_000) as u32)
            };
            last_change = c;
        }
        // events: bursts so the queues fill
        let burst = (c / 500) % 4 == 0;
        if rng.percent(if burst { 60 } else { 5 }) {
            let q = rng.range(0, QPS - 1) as u32;
            u.cnp_in_valid.next = true;
            u.cnp_in_qpn.next = (q as u64).into();
            if cnp_room > 0 {
                w.cnp_sent.push_back(q);
                cnp_room -= 1;
            } else {
                w.dropped_want += 1;
            }
        }
        if rng.percent(if burst { 60 } else { 5 }) {
            let q = rng.range(0, QPS - 1) as u32;
            let n: u64 = match rng.range(0, 9) {
                0 => 0,
                1 => BYTES_PIECE + rng.below(3 * BYTES_PIECE),
                2 => (1 << 32) - 1,
                _ => rng.range(1, 70_000) as u64,
            };
            u.bytes_in_valid.next = true;
            u.bytes_in_qpn.next = (q as u64).into();
            u.bytes_in_n.next = n.into();
            if n > 0 {
                if bytes_room > 0 {
                    w.bytes_sent.push_back((q, n));
                    bytes_room -= 1;
                } else {
                    w.dropped_want += 1;
                }
            }
        }
        let cnp_ready = !rng.percent(40);
        let bytes_ready = !rng.percent(40);
        let set_ready = !rng.percent(50);
        u.rp_cnp_ready.next = cnp_ready;
        u.rp_bytes_ready.next = bytes_ready;
        u.sh_set_ready.next = set_ready;
        // the reaction point's answer for the QPN asked two cycles ago
        let q2 = w.asked[0] as usize;
        u.rp_rate_limited.next = w.rp[q2].is_some();
        u.rp_rate_rc.next = (w.rp[q2].unwrap_or(25_000) as u64).into();
        b.settle();
        // the shaper's combinational read port
        let rq = b.uut().sh_rd_qpn.val().to_u64() as usize;
        b.uut().sh_rd_limited.next = w.shaper[rq] != 0;
        b.uut().sh_rd_mbps.next = (w.shaper[rq] as u64).into();
        b.settle();
        let u = b.uut();
        w.asked.pop_front();
        w.asked.push_back(u.rp_rate_qpn.val().to_u64() as u32);
        w.dropped_got += u.ev_cnp_dropped.val() as u64 + u.ev_bytes_dropped.val() as u64;
        if u.rp_cnp_valid.val() && cnp_ready {
            let want = w.cnp_sent.pop_front().expect("a CNP out that was not sent");
            assert_eq!(
                u.rp_cnp_qpn.val().to_u64() as u32,
                want,
                "CNP order, cycle {c}"
            );
            cnp_room += 1;
            w.cnp_out += 1;
        }
        if u.rp_bytes_valid.val() && bytes_ready {
            let (q, n) = *w.bytes_sent.front().expect("bytes out that were not sent");
            assert_eq!(
                u.rp_bytes_qpn.val().to_u64() as u32,
                q,
                "bytes QPN, cycle {c}"
            );
            let piece = u.rp_bytes_n.val().to_u64();
            assert!(piece >= 1 && piece <= BYTES_PIECE, "piece {piece}");
            assert_eq!(
                piece,
                (n - w.head_seen).min(BYTES_PIECE),
                "piece size, cycle {c}"
            );
            w.head_seen += piece;
            w.pieces += 1;
            if w.head_seen == n {
                w.bytes_sent.pop_front();
                bytes_room += 1;
                if n > BYTES_PIECE {
                    w.split += 1;
                }
                w.head_seen = 0;
            }
        }
        if u.sh_set_valid.val() && set_ready {
            let q = u.sh_set_qpn.val().to_u64() as usize;
            w.shaper[q] = u.sh_set_mbps.val().to_u64() as u32;
        }
        // at the end of a quiet spell every QP holds its limit
        if c % period == period - 1 {
            for q in 0..QPS {
                assert_eq!(
                    w.shaper[q],
                    rule(w.stat[q], w.rp[q]),
                    "QP {q} after a quiet spell, cycle {c} (static {}, rp {:?})",
                    w.stat[q],
                    w.rp[q]
                );
            }
        }
        let _ = last_change;
        b.tick();
    }
    assert_eq!(
        w.dropped_got, w.dropped_want,
        "lost events pulse ev_*_dropped"
    );
    w
}

#[test]
fn block_bench_random_against_rule() {
    for seed in [1u64, 2, 3] {
        let mut b = Bench::new(RateFeeder::default(), |u| &mut u.clock);
        let w = run(&mut b, seed, 30_000);
        eprintln!(
            "seed {seed}: {} CNPs out, {} bytes pieces ({} split messages), {} lost events",
            w.cnp_out, w.pieces, w.split, w.dropped_got
        );
        assert!(w.cnp_out > 1000 && w.split > 20 && w.dropped_got > 10);
    }
}

/// A single change reaches the shaper within one sweep: 256 cycles plus the pipeline (3) and
/// the write (1), with `set_ready` always high.
#[test]
fn one_change_within_one_sweep() {
    for q in [0usize, 1, 77, 255] {
        let mut b = Bench::new(RateFeeder::default(), |u| &mut u.clock);
        let mut shaper = vec![0u32; QPS];
        for _ in 0..600 {
            b.uut().sh_set_ready.next = true;
            b.settle();
            b.tick();
        }
        b.uut().static_valid.next = true;
        b.uut().static_qpn.next = (q as u64).into();
        b.uut().static_mbps.next = 1234.into();
        b.settle();
        b.tick();
        b.uut().static_valid.next = false;
        let mut took = None;
        for c in 1..=600u64 {
            b.settle();
            let rq = b.uut().sh_rd_qpn.val().to_u64() as usize;
            b.uut().sh_rd_limited.next = shaper[rq] != 0;
            b.uut().sh_rd_mbps.next = (shaper[rq] as u64).into();
            b.settle();
            if b.uut().sh_set_valid.val() {
                let sq = b.uut().sh_set_qpn.val().to_u64() as usize;
                assert_eq!(sq, q);
                assert_eq!(b.uut().sh_set_mbps.val().to_u64(), 1234);
                shaper[sq] = 1234;
                took.get_or_insert(c);
            }
            b.tick();
        }
        let c = took.expect("the change reached the shaper");
        assert!(c <= 256 + 4, "QP {q}: {c} cycles");
    }
}

#[test]
fn cosim_rate_feeder_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(RateFeeder::default(), |u| &mut u.clock);
    let w = run(&mut cs, 9, 6_000);
    assert!(w.cnp_out > 100 && w.split > 2, "{} {}", w.cnp_out, w.split);
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_rate_feeder() {
    let m = "ferroce_rate_feeder";
    let v = ferroce_hdl::verilog::block_verilog(&mut RateFeeder::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rate_feeder_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the static limits: 256 x 20 bits, in block RAM or distributed RAM
    assert!(
        st.count("DP16KD") >= 1 || st.count("TRELLIS_DPR16X4") >= 80,
        "{}",
        st.line(ECP5_CELLS)
    );
}
