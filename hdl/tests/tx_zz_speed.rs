use ferroce_hdl::header::L3_IPV4;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_hdl::tx::drive::{random_header, run_builder, Timing};
use ferroce_hdl::tx::{TxFrameCore};
use ferroce_hdl::icrc::IcrcGenerator;
use ferroce_hdl::icrc::drive::run_generator;
#[test]
fn speed() {
    let mut rng = Rng::new(5);
    let jobs: Vec<_> = (0..6).map(|_| (random_header(&mut rng, 0x04, L3_IPV4, false, 4096), rng.bytes(4096))).collect();
    let mut b = Bench::new(TxFrameCore::default(), |u| &mut u.clock);
    let t0 = std::time::Instant::now();
    let r = run_builder(&mut b, &jobs, Timing::default(), &mut rng);
    println!("core {:.0} cycles/s", r.cycles as f64 / t0.elapsed().as_secs_f64());
    if std::env::var("CORE_ONLY").is_ok() { return; }
    let frames: Vec<_> = jobs.iter().map(|(h,p)| h.to_frame_bytes(p)).collect();
    let mut g = Bench::new(IcrcGenerator::<64,8>::default(), |u| &mut u.clock);
    let t0 = std::time::Instant::now();
    let (_f, c) = run_generator(&mut g, &frames, 0, 0, &mut rng);
    println!("gen {:.0} cycles/s", c as f64 / t0.elapsed().as_secs_f64());
    let _ = b.cycles();
}
