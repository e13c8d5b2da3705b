//! The responder's atomic replay cache (`ferroce_hdl::resp::AtomicReplayCache`): its block bench
//! (random inserts, clears and lookups on a few QPs against the reference model, random gaps
//! between commands), the same traffic co-simulated with the emitted Verilog in lock step
//! (Verilator, every output at every settle and clock phase), and Yosys `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::resp::atomic_cache::{
    AtomicReplayCacheModel, AT_CACHE_ENTRIES, AT_OP_CLEAR, AT_OP_INSERT, AT_OP_LOOKUP,
};
use ferroce_hdl::resp::AtomicReplayCache;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

type Uut = AtomicReplayCache<8>;

/// Counts of what the traffic exercised.
#[derive(Debug, Default)]
struct Seen {
    lookups: u64,
    hits: u64,
    full_ring_hits: u64,
    inserts: u64,
    clears: u64,
    max_latency: u64,
}

/// `n` random commands; every lookup's answer is checked against the model, and its latency
/// (command taken to `rsp_valid`) against the bound of 16 entries + 2.
fn run<S: Stepper<Uut>>(s: &mut S, seed: u64, n: usize) -> Seen {
    let mut rng = Rng::new(seed);
    let mut model = AtomicReplayCacheModel::default();
    let qpns = [0u32, 1, 7, 200, 255];
    let mut seen = Seen::default();
    let mut inserted = std::collections::HashMap::<u32, usize>::new();
    for _ in 0..n {
        let qpn = qpns[rng.range(0, qpns.len() - 1)];
        // PSNs from a small window so that lookups hit, miss, and find repeated PSNs
        let psn = (0xFF_FFF0 + rng.below(40) as u32) & 0xFF_FFFF;
        let op = match rng.below(100) {
            0..=44 => AT_OP_INSERT,
            45..=47 => AT_OP_CLEAR,
            _ => AT_OP_LOOKUP,
        };
        let orig = rng.next_u64();
        for _ in 0..rng.range(0, 3) {
            s.uut().cmd_valid.next = false;
            s.settle();
            assert!(!s.uut().rsp_valid.val(), "no answer without a lookup");
            s.tick();
        }
        s.uut().cmd_valid.next = true;
        s.uut().cmd_op.next = op.into();
        s.uut().cmd_qpn.next = (qpn as u64).into();
        s.uut().cmd_psn.next = (psn as u64).into();
        s.uut().cmd_orig.next = orig.into();
        let mut waited = 0;
        loop {
            s.settle();
            if s.uut().cmd_ready.val() {
                break;
            }
            s.tick();
            waited += 1;
            assert!(waited < 40, "the cache never became ready");
        }
        s.tick();
        s.uut().cmd_valid.next = false;
        match op {
            AT_OP_INSERT => {
                model.insert(qpn, psn, orig);
                *inserted.entry(qpn).or_default() += 1;
                seen.inserts += 1;
            }
            AT_OP_CLEAR => {
                model.clear(qpn);
                inserted.remove(&qpn);
                seen.clears += 1;
            }
            _ => {
                let mut lat = 1;
                loop {
                    s.settle();
                    if s.uut().rsp_valid.val() {
                        break;
                    }
                    assert!(
                        s.uut().cmd_ready.val() == false || lat == 1,
                        "ready before the answer"
                    );
                    s.tick();
                    lat += 1;
                    assert!(lat <= AT_CACHE_ENTRIES as u64 + 3, "lookup too slow");
                }
                seen.max_latency = seen.max_latency.max(lat);
                let want = model.lookup(qpn, psn);
                let got = s
                    .uut()
                    .rsp_hit
                    .val()
                    .then(|| s.uut().rsp_orig.val().to_u64());
                assert_eq!(got, want, "lookup QP {qpn} PSN {psn:#x}");
                seen.lookups += 1;
                if want.is_some() {
                    seen.hits += 1;
                    if inserted.get(&qpn).copied().unwrap_or(0) > AT_CACHE_ENTRIES {
                        seen.full_ring_hits += 1;
                    }
                }
                s.tick();
                s.settle();
                assert!(!s.uut().rsp_valid.val(), "one pulse per lookup");
            }
        }
    }
    seen
}

fn check(seen: &Seen) {
    assert!(seen.hits > 20 && seen.lookups > seen.hits, "{seen:?}");
    assert!(seen.full_ring_hits > 0 && seen.clears > 0, "{seen:?}");
    assert!(seen.max_latency >= AT_CACHE_ENTRIES as u64, "{seen:?}");
}

/// Exactly the last 16 atomics of a QP answer, newest first, and only the QP's own.
#[test]
fn replay_cache_block_bench_random() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let seen = run(&mut b, 11, 4000);
    check(&seen);
    eprintln!("{seen:?}, {} cycles", b.cycles());
}

/// A QP's entries survive other QPs' traffic; the 17th insert evicts the 1st; a clear forgets.
#[test]
fn replay_cache_keeps_sixteen_per_qp() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let cmd = |b: &mut Bench<Uut>, op: u64, qpn: u64, psn: u64, orig: u64| -> Option<u64> {
        let u = b.uut();
        u.cmd_valid.next = true;
        u.cmd_op.next = op.into();
        u.cmd_qpn.next = qpn.into();
        u.cmd_psn.next = psn.into();
        u.cmd_orig.next = orig.into();
        b.settle();
        assert!(b.uut().cmd_ready.val());
        b.tick();
        b.uut().cmd_valid.next = false;
        let mut r = None;
        for _ in 0..(AT_CACHE_ENTRIES + 3) {
            b.settle();
            if b.uut().rsp_valid.val() {
                r = Some(
                    b.uut()
                        .rsp_hit
                        .val()
                        .then(|| b.uut().rsp_orig.val().to_u64()),
                );
            }
            b.tick();
        }
        if op == AT_OP_LOOKUP {
            r.expect("a lookup answers")
        } else {
            assert!(r.is_none());
            None
        }
    };
    for i in 0..17u64 {
        cmd(&mut b, AT_OP_INSERT, 3, 100 + i, 1000 + i);
        cmd(&mut b, AT_OP_INSERT, 4, 100 + i, 5000 + i);
    }
    assert_eq!(cmd(&mut b, AT_OP_LOOKUP, 3, 100, 0), None, "evicted");
    for i in 1..17u64 {
        assert_eq!(cmd(&mut b, AT_OP_LOOKUP, 3, 100 + i, 0), Some(1000 + i));
        assert_eq!(cmd(&mut b, AT_OP_LOOKUP, 4, 100 + i, 0), Some(5000 + i));
    }
    assert_eq!(cmd(&mut b, AT_OP_LOOKUP, 5, 110, 0), None, "another QP");
    cmd(&mut b, AT_OP_CLEAR, 3, 0, 0);
    assert_eq!(cmd(&mut b, AT_OP_LOOKUP, 3, 110, 0), None, "cleared");
    assert_eq!(
        cmd(&mut b, AT_OP_LOOKUP, 4, 110, 0),
        Some(5010),
        "not cleared"
    );
}

#[test]
fn cosim_replay_cache_random() {
    if !require_cosim_tools() {
        return;
    }
    let seen = run_cosim(
        "atomic replay cache",
        Uut::default(),
        |u| &mut u.clock,
        |cs| run(cs, 12, 1500),
    );
    check(&seen);
    eprintln!("{seen:?}");
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_replay_cache() {
    let m = "ferroce_atomic_replay_cache";
    let v = ferroce_hdl::verilog::block_verilog(&mut Uut::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("atc_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the entries live in block RAM, not in LUTs or flip-flops
    assert!(
        st.count("DP16KD") > 0 && st.count("TRELLIS_FF") < 400,
        "{}",
        st.line(ECP5_CELLS)
    );
}
