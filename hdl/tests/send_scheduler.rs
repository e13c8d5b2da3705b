//! The requester's work ring (`ferroce_hdl::req::SendScheduler`): a directed check of the order
//! and of the shaper's gate (a held QP goes to the tail, the others get their turn), the block
//! bench (random pushes of QPs not queued, pops at random times with the gate randomly closed:
//! back-pressure on the ring's output; every output checked against the reference model
//! [`SendSchedulerModel`] every cycle), the same traffic co-simulated with the emitted Verilog
//! in lock step (Verilator), and Yosys `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::req::{SendScheduler, SendSchedulerModel};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

const QA: usize = 3;
type Uut = SendScheduler<QA>;

/// One cycle: drive, settle, read (nonempty, head_qpn, taken), clock.
fn cycle<S: Stepper<Uut>>(
    s: &mut S,
    push: Option<u32>,
    pop: bool,
    gate_wait: bool,
) -> (bool, u32, bool) {
    let u = s.uut();
    u.push_valid.next = push.is_some();
    u.push_qpn.next = (push.unwrap_or(0) as u64).into();
    u.pop.next = pop;
    u.gate_wait.next = gate_wait;
    s.settle();
    let u = s.uut();
    let o = (
        u.nonempty.val(),
        u.head_qpn.val().to_u64() as u32,
        u.taken.val(),
    );
    s.tick();
    o
}

/// Counts of what the traffic exercised.
#[derive(Debug, Default)]
struct Seen {
    pushes: u64,
    taken: u64,
    rotated: u64,
    full: u64,
    wraps: u64,
}

/// `cycles` cycles: pushes of QPs not in the ring, pops only once the head's word is read
/// (two cycles after the head moved or an empty ring got its first QP, as the requester's
/// Idle -> PopWait -> Pop does), the gate closed at random; the block against the model.
fn run<S: Stepper<Uut>>(s: &mut S, seed: u64, cycles: u64) -> Seen {
    let mut rng = Rng::new(seed);
    let mut m = SendSchedulerModel::new(QA);
    let mut seen = Seen::default();
    let mut ready_at = 0u64;
    let mut off_ring: Vec<u32> = (0..1u32 << QA).collect();
    for c in 0..cycles {
        let can_pop = m.nonempty() && c >= ready_at;
        let pop = can_pop && rng.percent(60);
        let gate_wait = rng.percent(35);
        let push = if !(pop && gate_wait) && !off_ring.is_empty() && rng.percent(30) {
            Some(off_ring.swap_remove(rng.range(0, off_ring.len() - 1)))
        } else {
            None
        };
        let was_empty = !m.nonempty();
        let got = cycle(s, push, pop, gate_wait);
        let want = (m.nonempty(), m.head_qpn(), m.taken(pop, gate_wait));
        assert_eq!(
            got, want,
            "cycle {c}: push {push:?} pop {pop} gate {gate_wait}"
        );
        let taken = m.clock(push, pop, gate_wait);
        if push.is_some() {
            seen.pushes += 1;
        }
        if let Some(q) = taken {
            // a QP taken for a job comes back later (as the requester's Requeue does)
            off_ring.push(q);
            seen.taken += 1;
        } else if pop {
            seen.rotated += 1;
        }
        if m.ring().len() == 1 << QA {
            seen.full += 1;
        }
        if pop || (push.is_some() && was_empty) {
            ready_at = c + 2;
        }
    }
    seen.wraps = seen.pushes / (1 << QA);
    seen
}

fn check(seen: &Seen) {
    assert!(
        seen.taken > 200 && seen.rotated > 100 && seen.full > 10 && seen.wraps > 50,
        "{seen:?}"
    );
}

#[test]
fn send_scheduler_block_bench_random() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let seen = run(&mut b, 31, 20_000);
    check(&seen);
    eprintln!("{seen:?}");
}

/// QPs 5, 2, 7 in that order; the gate holds 5 once: it goes behind 7, so the jobs are 2, 7, 5.
#[test]
fn send_scheduler_order_and_gate() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    assert_eq!(cycle(&mut b, None, false, false).0, false, "empty at reset");
    for q in [5, 2, 7] {
        cycle(&mut b, Some(q), false, false);
    }
    cycle(&mut b, None, false, false);
    let mut jobs = vec![];
    let mut gated = false;
    for _ in 0..20 {
        // the head's word is read in the cycle after it moved, shown in the next: pop then
        cycle(&mut b, None, false, false);
        let (nonempty, head, _) = cycle(&mut b, None, false, false);
        if !nonempty {
            break;
        }
        let hold = head == 5 && !gated;
        let (_, h, taken) = cycle(&mut b, None, true, hold);
        assert_eq!(h, head);
        assert_eq!(taken, !hold, "the gate decides");
        if hold {
            gated = true;
        } else {
            jobs.push(head);
        }
    }
    assert_eq!(jobs, vec![2, 7, 5]);
    assert!(!cycle(&mut b, None, false, false).0, "empty again");
}

#[test]
fn cosim_send_scheduler_random() {
    if !require_cosim_tools() {
        return;
    }
    let seen = run_cosim(
        "send scheduler",
        Uut::default(),
        |u| &mut u.clock,
        |cs| run(cs, 32, 8_000),
    );
    eprintln!("{seen:?}");
    assert!(seen.taken > 50 && seen.rotated > 30, "{seen:?}");
}

/// Yosys `synth_ecp5` of the block (at the NIC's 256 QPs): no latch, `check -assert` clean;
/// prints the resources.
#[test]
fn yosys_synth_ecp5_send_scheduler() {
    let m = "ferroce_send_scheduler";
    let v = ferroce_hdl::verilog::block_verilog(&mut SendScheduler::<8>::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ssch_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the ring is one small RAM and two counters
    assert!(st.count("TRELLIS_FF") < 80, "{}", st.line(ECP5_CELLS));
}
