//! The stream clock-domain crossing (`ferroce_hdl::board::StreamCdcFifo64`): random frames of
//! 1 to 1600 bytes from one clock to another, for several ratios of the two clock periods
//! (input faster, output faster, nearly equal), with random `valid` gaps on the input and
//! random `ready` on the output. Checked: the frames come out byte for byte and in order
//! (the keep rules by `peek`), an input beat is never lost or duplicated when the FIFO fills
//! (the output stalls long enough for it to fill in one of the runs), and Yosys `synth_ecp5`
//! puts the FIFO's RAM in block RAM. The two clocks are stepped by hand, edge by edge, on the
//! rust-hdl block; the Verilator co-simulation harness drives one clock, so this block has none.
//!
//! Needs yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::StreamCdcFifo64;
use ferroce_hdl::testbench::{settle_block, Collector, Feeder, Rng};
use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};
use rust_hdl::prelude::*;

fn random_frames(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = if rng.percent(30) {
                rng.range(1, 20)
            } else {
                rng.range(21, 1600)
            };
            rng.bytes(len)
        })
        .collect()
}

/// Runs `frames` through with the input clock's period `pin` and the output's `pout` (in
/// arbitrary time units); returns the largest number of cycles the input saw `ready` low in a
/// row.
fn run(seed: u64, pin: u64, pout: u64, gap: u32, stall: u32) -> u64 {
    let mut rng = Rng::new(seed);
    let frames = random_frames(&mut rng, 40);
    let mut u = StreamCdcFifo64::default();
    u.connect_all();
    let mut feeder = Feeder::new(gap);
    for f in &frames {
        feeder.push_frame(f, 8);
    }
    let mut coll = Collector::new(stall);
    // the output clock starts 3 units later, so the two clocks are not in phase
    let (mut next_in, mut next_out) = (pin, pout + 3);
    let (mut lvl_in, mut lvl_out) = (false, false);
    let (mut full_run, mut worst) = (0u64, 0u64);
    u.inp_clock.next = Clock { clk: false };
    u.out_clock.next = Clock { clk: false };
    feeder.drive(&mut u.inp, &mut rng);
    coll.drive_ready(&mut u.out, &mut rng);
    settle_block(&mut u);
    let mut guard = 0u64;
    while coll.beats.iter().filter(|b| b.last).count() < frames.len() {
        // the next edge of either clock (each toggles every half period)
        let t = next_in.min(next_out);
        let edge_in = next_in == t;
        let edge_out = next_out == t;
        let rise_in = edge_in && !lvl_in;
        let rise_out = edge_out && !lvl_out;
        // sample the handshakes that this rising edge completes
        let fired_in = rise_in && u.inp.fires();
        if rise_in {
            if u.inp.valid.val() && !u.inp.ready.val() {
                full_run += 1;
                worst = worst.max(full_run);
            } else {
                full_run = 0;
            }
        }
        if rise_out {
            coll.sample(&u.out);
        }
        if edge_in {
            lvl_in = !lvl_in;
            next_in += pin / 2;
            u.inp_clock.next = Clock { clk: lvl_in };
        }
        if edge_out {
            lvl_out = !lvl_out;
            next_out += pout / 2;
            u.out_clock.next = Clock { clk: lvl_out };
        }
        settle_block(&mut u);
        // new inputs after a rising edge, in that clock's domain
        if rise_in {
            feeder.after_edge(fired_in);
            feeder.drive(&mut u.inp, &mut rng);
        }
        if rise_out {
            coll.drive_ready(&mut u.out, &mut rng);
        }
        if rise_in || rise_out {
            settle_block(&mut u);
        }
        guard += 1;
        assert!(guard < 20_000_000, "stuck at t = {t}");
    }
    for b in &coll.beats {
        assert!(b.last || b.bytes.len() == 8, "short beat before last");
    }
    assert!(
        coll.frames() == frames,
        "frames differ (periods {pin}/{pout})"
    );
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    eprintln!(
        "periods in {pin} out {pout}, gap {gap}% stall {stall}%: {} frames, {bytes} bytes, longest input stall {worst} cycles",
        frames.len()
    );
    worst
}

#[test]
fn cdc_random_frames_and_clock_ratios() {
    let t0 = std::time::Instant::now();
    run(1, 16, 16, 20, 20);
    run(2, 16, 38, 0, 0);
    run(3, 38, 16, 30, 10);
    run(4, 16, 18, 10, 50);
    // a slow, stalling output: the FIFO fills and the input waits
    let worst = run(5, 10, 26, 0, 70);
    assert!(worst > 0, "the FIFO never filled");
    eprintln!("{:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn yosys_synth_stream_cdc() {
    let m = "ferroce_stream_cdc_64";
    let v = ferroce_hdl::verilog::block_verilog(&mut StreamCdcFifo64::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stream_cdc_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // 512 x 73 bits: at least two DP16KD (each 512 x 36)
    assert!(st.count("DP16KD") >= 2, "{}", st.line(ECP5_CELLS));
}
