//! Back-to-back throughput of the TX header builder: cycles per frame against the ideal
//! ceil(frame_bytes / 8), with the descriptor and payload always available and no back-pressure.
//! Also prints the simulation speed (cycles/s) of the rust-hdl model.
use ferroce_hdl::header::{L3_IPV4, L3_IPV6};
use ferroce_hdl::testbench::{Bench, Rng};
use ferroce_hdl::tx::drive::{random_header, run_builder, Timing};
use ferroce_hdl::tx::TxHeaderBuilder;

/// Stated bound: 0 cycles of overhead per frame in steady state (the next header is loaded in
/// the cycle the previous frame's last beat leaves stage 0).
const MAX_OVERHEAD_PER_FRAME: u64 = 0;

#[test]
fn tx_back_to_back_throughput() {
    let mut rng = Rng::new(5);
    println!(
        "{:>8} {:>7} {:>7} {:>8} {:>8} {:>9}",
        "l3", "payload", "frame", "ideal", "cycles", "overhead"
    );
    for (l3, name) in [(L3_IPV4, "IPv4"), (L3_IPV6, "IPv6")] {
        for len in [0usize, 6, 64, 200, 458, 966, 1982, 4014, 4096] {
            let n = if len > 1000 { 6 } else { 20 };
            let jobs: Vec<_> = (0..n)
                .map(|_| {
                    (
                        random_header(&mut rng, 0x04, l3, false, len),
                        rng.bytes(len),
                    )
                })
                .collect();
            let mut b = Bench::new(TxHeaderBuilder::default(), |u| &mut u.clock);
            let t0 = std::time::Instant::now();
            let r = run_builder(&mut b, &jobs, Timing::default(), &mut rng);
            let dt = t0.elapsed().as_secs_f64();
            let fb = jobs[0].0.to_frame_bytes(&jobs[0].1).len() as u64;
            let ideal = fb.div_ceil(8);
            // steady state: distance between consecutive frame ends
            let per: Vec<u64> = r.frame_end_cycles.windows(2).map(|w| w[1] - w[0]).collect();
            let worst = *per.iter().max().unwrap();
            println!(
                "{:>8} {:>7} {:>7} {:>8} {:>8} {:>9}   ({:.0} sim cycles/s)",
                name,
                len,
                fb,
                ideal,
                worst,
                worst as i64 - ideal as i64,
                r.cycles as f64 / dt
            );
            if len == 0 && l3 == L3_IPV4 {
                // the descriptor is taken at edge 1; the first frame's last beat is taken at
                // edge `frame_end_cycles[0]`, `ideal - 1` edges after its first beat
                println!(
                    "latency: first output beat taken at edge {} (descriptor taken at edge 1)",
                    r.frame_end_cycles[0] - (ideal - 1)
                );
            }
            assert!(
                worst <= ideal + MAX_OVERHEAD_PER_FRAME,
                "{name} len {len}: {worst} cycles/frame, ideal {ideal}"
            );
            for (i, f) in r.frames.iter().enumerate() {
                assert_eq!(*f, jobs[i].0.to_frame_bytes(&jobs[i].1));
            }
        }
    }
}
