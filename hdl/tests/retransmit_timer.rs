//! The requester's retransmit timers (`ferroce_hdl::req::RetransmitTimer`): a directed check of
//! expiry (kind, QPN, latency, nothing early, a stopped timer never fires), the block bench
//! (random ticks, arms of both kinds, stops, job reads and random back-pressure on the expiry
//! output, every output checked against the reference model [`RetransmitTimerModel`] every
//! cycle), the same traffic co-simulated with the emitted Verilog in lock step (Verilator), and
//! Yosys `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::req::retransmit_timer::{TimerInputs, TimerOutputs};
use ferroce_hdl::req::{RetransmitTimer, RetransmitTimerModel};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

const QA: usize = 4;
type Uut = RetransmitTimer<QA>;

fn drive<S: Stepper<Uut>>(s: &mut S, i: &TimerInputs) {
    let u = s.uut();
    u.tick.next = i.tick;
    u.job_qpn.next = (i.job_qpn as u64).into();
    u.exp_ready.next = i.exp_ready;
    u.set_valid.next = i.set.is_some();
    let (q, armed, rnr, deadline) = i.set.unwrap_or((0, false, false, 0));
    u.set_qpn.next = (q as u64).into();
    u.set_armed.next = armed;
    u.set_rnr.next = rnr;
    u.set_deadline.next = (deadline as u64).into();
}

fn outputs<S: Stepper<Uut>>(s: &mut S) -> TimerOutputs {
    let u = s.uut();
    TimerOutputs {
        now: u.now.val().to_u64() as u32,
        job: (
            u.job_armed.val(),
            u.job_rnr.val(),
            u.job_deadline.val().to_u64() as u32,
        ),
        exp: u
            .exp_valid
            .val()
            .then(|| (u.exp_qpn.val().to_u64() as u32, u.exp_rnr.val())),
    }
}

/// Counts of what the traffic exercised.
#[derive(Debug, Default)]
struct Seen {
    arms: u64,
    stops: u64,
    expiries: u64,
    rnr_expiries: u64,
    held: u64,
}

/// `cycles` cycles of random traffic, the block against the model at every cycle.
fn run<S: Stepper<Uut>>(s: &mut S, seed: u64, cycles: u64) -> Seen {
    let mut rng = Rng::new(seed);
    let mut m = RetransmitTimerModel::new(QA);
    let mut seen = Seen::default();
    for c in 0..cycles {
        let now = m.outputs().now;
        let set = if rng.percent(20) {
            let q = rng.range(0, (1 << QA) - 1) as u32;
            if rng.percent(25) {
                seen.stops += 1;
                Some((q, false, false, rng.next_u64() as u32))
            } else {
                seen.arms += 1;
                // mostly soon (a few ticks ahead, or already past), sometimes far ahead
                let deadline = match rng.below(10) {
                    0 => now.wrapping_add(1 << 30),
                    1 => now.wrapping_sub(rng.below(5) as u32),
                    _ => now.wrapping_add(rng.below(12) as u32),
                };
                Some((q, true, rng.percent(40), deadline))
            }
        } else {
            None
        };
        let i = TimerInputs {
            tick: rng.percent(30),
            job_qpn: rng.range(0, (1 << QA) - 1) as u32,
            set,
            // back-pressure on the expiry output
            exp_ready: rng.percent(35),
        };
        drive(s, &i);
        s.settle();
        let got = outputs(s);
        assert_eq!(got, m.outputs(), "cycle {c}: inputs {i:?}");
        if let Some((_, rnr)) = got.exp {
            if i.exp_ready {
                seen.expiries += 1;
                seen.rnr_expiries += rnr as u64;
            } else {
                seen.held += 1;
            }
        }
        s.tick();
        m.clock(&i);
    }
    seen
}

fn check(seen: &Seen) {
    assert!(
        seen.expiries > 100 && seen.rnr_expiries > 20 && seen.held > 100 && seen.stops > 100,
        "{seen:?}"
    );
}

#[test]
fn retransmit_timer_block_bench_random() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let seen = run(&mut b, 21, 20_000);
    check(&seen);
    eprintln!("{seen:?}");
}

/// One timer by hand: it does not fire before its deadline, fires with its QPN and kind
/// within one scan pass (2^QA cycles, plus the RAM read) once due, is held until taken, and a
/// stopped timer never fires.
#[test]
fn retransmit_timer_fires_once_due() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let idle = TimerInputs::default();
    let cycle = |b: &mut Bench<Uut>, i: &TimerInputs| -> TimerOutputs {
        drive(b, i);
        b.settle();
        let o = outputs(b);
        b.tick();
        o
    };
    // QP 9: an RNR wait until tick 5; QP 3: an ACK timeout until tick 5, stopped again
    cycle(
        &mut b,
        &TimerInputs {
            set: Some((9, true, true, 5)),
            ..idle
        },
    );
    cycle(
        &mut b,
        &TimerInputs {
            set: Some((3, true, false, 5)),
            ..idle
        },
    );
    cycle(
        &mut b,
        &TimerInputs {
            set: Some((3, false, false, 5)),
            job_qpn: 9,
            ..idle
        },
    );
    let o = cycle(&mut b, &idle);
    assert_eq!(o.job, (true, true, 5), "the job port reads QP 9's timer");
    // not due before the fifth tick, for several scan passes
    for _ in 0..5 {
        for _ in 0..40 {
            assert_eq!(
                cycle(&mut b, &idle).exp,
                None,
                "nothing before the deadline"
            );
        }
        cycle(&mut b, &TimerInputs { tick: true, ..idle });
    }
    let mut waited = 0;
    loop {
        let o = cycle(&mut b, &idle);
        assert_eq!(o.now, 5);
        if let Some(e) = o.exp {
            assert_eq!(e, (9, true), "QP 9's RNR wait");
            break;
        }
        waited += 1;
        assert!(waited <= (1 << QA) + 1, "found within one scan pass");
    }
    // held (no ready) until taken, then QP 9 is found again (still armed): never QP 3
    for _ in 0..50 {
        assert_eq!(
            cycle(&mut b, &idle).exp,
            Some((9, true)),
            "held until taken"
        );
    }
    let taken = TimerInputs {
        exp_ready: true,
        ..idle
    };
    assert_eq!(cycle(&mut b, &taken).exp, Some((9, true)));
    // stop QP 9: nothing fires any more
    cycle(
        &mut b,
        &TimerInputs {
            set: Some((9, false, false, 0)),
            exp_ready: true,
            ..idle
        },
    );
    let mut after_stop = 0;
    for _ in 0..200 {
        if let Some(e) = cycle(&mut b, &taken).exp {
            assert_eq!(e.0, 9, "only QP 9 was armed");
            after_stop += 1;
        }
    }
    assert!(after_stop <= 1, "a find from before the stop at most");
}

#[test]
fn cosim_retransmit_timer_random() {
    if !require_cosim_tools() {
        return;
    }
    let seen = run_cosim(
        "retransmit timer",
        Uut::default(),
        |u| &mut u.clock,
        |cs| run(cs, 22, 8_000),
    );
    eprintln!("{seen:?}");
    assert!(seen.expiries > 30 && seen.held > 30, "{seen:?}");
}

/// Yosys `synth_ecp5` of the block (at the NIC's 256 QPs): no latch, `check -assert` clean;
/// prints the resources.
#[test]
fn yosys_synth_ecp5_retransmit_timer() {
    let m = "ferroce_retransmit_timer";
    let v = ferroce_hdl::verilog::block_verilog(&mut RetransmitTimer::<8>::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rtm_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the timers live in block RAM (two copies), not in flip-flops
    assert!(
        st.count("DP16KD") >= 2 && st.count("TRELLIS_FF") < 200,
        "{}",
        st.line(ECP5_CELLS)
    );
}
