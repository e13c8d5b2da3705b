//! The DCQCN notification point's block bench and co-simulation: random marked packets on a few
//! QPs, random microsecond ticks, random `enable` and random back-pressure on the CNP queue;
//! every decision (queued or suppressed) and the order of the CNP requests checked against the
//! reference model [`NpModel`], on the rust-hdl block and on the emitted Verilog (Verilator) in
//! lock step with it (`ferroce_hdl::cosim::run_cosim`: every output compared at every settle and
//! both clock phases). Also Yosys `synth_ecp5` of the block (resources for docs/RESOURCES.md).
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cc::notification_point::{NotificationPoint, NpModel, DECISION_CYCLES};
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

/// Random marked packets on a few QPs, random ticks and random back-pressure on the CNP
/// queue; every decision and the order of the requests against [`NpModel`].
fn run_random<S: Stepper<NotificationPoint<8>>>(b: &mut S, seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let mut model = NpModel::default();
    let interval = 3u32;
    let qps = [2u32, 3, 7, 200, 255];
    b.uut().interval.next = (interval as u64).into();
    b.uut().enable.next = true;
    let (mut now, mut taken, mut cycles) = (0u32, 0usize, 0u64);
    let mut expect = std::collections::VecDeque::new();
    let (mut queued, mut suppressed, mut popped) = (0u64, 0u64, 0u64);
    // the packet taken and the cycle its decision is due: (cycle, QP, us, enable)
    let mut pending: Option<(u64, u32, u32, bool)> = None;
    let mut offer: Option<u32> = None;
    while taken < n || pending.is_some() || !expect.is_empty() {
        cycles += 1;
        assert!(cycles < 200_000, "stuck");
        let tick = rng.percent(12);
        if offer.is_none() && taken < n && rng.percent(60) {
            offer = Some(qps[rng.range(0, qps.len() - 1)]);
        }
        let en = !rng.percent(5);
        let cnp_ready = rng.percent(40);
        {
            let u = b.uut();
            u.tick_us.next = tick;
            u.mk_valid.next = offer.is_some();
            u.mk_qpn.next = (offer.unwrap_or(0) as u64).into();
            u.enable.next = en;
            u.cnp_ready.next = cnp_ready;
        }
        b.settle();
        let u = b.uut();
        // the decision of the packet taken `DECISION_CYCLES` before
        if let Some((_, q, t, e)) = pending.filter(|p| p.0 == cycles) {
            pending = None;
            let want = model.marked(q, t, interval, e);
            assert_eq!(u.ev_queued.val(), want, "QP {q} at {t} us");
            assert_eq!(u.ev_suppressed.val(), !want, "QP {q} at {t} us");
            if want {
                expect.push_back(q);
                queued += 1;
            } else {
                suppressed += 1;
            }
        } else {
            assert!(!u.ev_queued.val() && !u.ev_suppressed.val());
        }
        if u.cnp_valid.val() && cnp_ready {
            let q = u.cnp_qpn.val().to_u64() as u32;
            assert_eq!(Some(q), expect.pop_front(), "CNP request order");
            popped += 1;
        }
        if let Some(q) = offer {
            if u.mk_ready.val() {
                pending = Some((cycles + DECISION_CYCLES, q, now, en));
                taken += 1;
                offer = None;
            }
        }
        if tick {
            now += 1;
        }
        b.tick();
    }
    assert_eq!(popped, queued);
    assert!(
        queued > 0 && suppressed > 0,
        "{queued} queued, {suppressed} suppressed"
    );
}

#[test]
fn block_bench_random_back_pressure() {
    for seed in 1..4 {
        let mut b = Bench::new(NotificationPoint::<8>::default(), |u| &mut u.clock);
        run_random(&mut b, seed, 400);
    }
}

#[test]
fn cosim_notification_point_random() {
    if !require_cosim_tools() {
        return;
    }
    run_cosim(
        "notification point",
        NotificationPoint::<8>::default(),
        |u| &mut u.clock,
        |cs| run_random(cs, 11, 300),
    );
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_notification_point() {
    let m = "ferroce_notification_point";
    let v = ferroce_hdl::verilog::block_verilog(&mut NotificationPoint::<8>::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("np_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    assert!(st.count("LUT4") > 0);
    // the per-QP words are in block RAM, not in flip-flops
    assert!(st.count("DP16KD") >= 1, "{}", st.line(ECP5_CELLS));
}
