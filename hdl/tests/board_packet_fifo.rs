//! The store-and-forward FIFO (`ferroce_hdl::board::StreamPacketFifo64`): random frames of 1 to
//! 4096 bytes with random `valid` gaps on the input and random `ready` on the output. Checked:
//! the frames come out byte for byte and in order (keep rules by `peek`, full beats before
//! `last`); no beat of a frame is offered before the frame's last beat went in; once a frame's
//! first beat is offered, a beat is offered in every cycle until its last (what `MacTx`
//! needs); the FIFO fills (the input waits) in a run with a stalling output. On the rust-hdl
//! block, then on the emitted Verilog (Verilator) in lock step; Yosys `synth_ecp5`.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::StreamPacketFifo64;
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Collector, Feeder, Rng, Stepper};
use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};

fn random_frames(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = match rng.range(0, 9) {
                0..=2 => rng.range(1, 16),
                3..=7 => rng.range(17, 1600),
                _ => rng.range(1601, 4096),
            };
            rng.bytes(len)
        })
        .collect();
    v.push(rng.bytes(4096));
    v
}

/// Returns the number of cycles the input was refused (valid and not ready).
fn run<S: Stepper<StreamPacketFifo64>>(b: &mut S, seed: u64, gap: u32, stall: u32) -> u64 {
    let mut rng = Rng::new(seed);
    let frames = random_frames(&mut rng, 40);
    let mut feeder = Feeder::new(gap);
    for f in &frames {
        feeder.push_frame(f, 8);
    }
    let mut coll = Collector::new(stall);
    let (mut in_done, mut out_started, mut inside, mut refused) = (0usize, 0usize, false, 0u64);
    let mut guard = 0u64;
    while coll.beats.iter().filter(|x| x.last).count() < frames.len() {
        feeder.drive(&mut b.uut().inp, &mut rng);
        coll.drive_ready(&mut b.uut().out, &mut rng);
        b.settle();
        let u = b.uut();
        let fired = u.inp.fires();
        refused += (u.inp.valid.val() && !u.inp.ready.val()) as u64;
        if inside {
            assert!(u.out.valid.val(), "a gap inside frame {}", out_started - 1);
        }
        if u.out.valid.val() && !inside {
            // a frame's first beat: the whole frame must be in already
            assert!(
                in_done > out_started,
                "frame {out_started} offered before its last beat went in"
            );
        }
        if u.inp.fires() && u.inp.last.val() {
            in_done += 1;
        }
        if coll.sample(&u.out) {
            let last = u.out.last.val();
            if !inside {
                out_started += 1;
            }
            inside = !last;
        }
        b.tick();
        feeder.after_edge(fired);
        guard += 1;
        assert!(guard < 5_000_000, "stuck");
    }
    for x in &coll.beats {
        assert!(x.last || x.bytes.len() == 8, "short beat before last");
    }
    assert!(coll.frames() == frames, "frames differ");
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    eprintln!(
        "gap {gap}% stall {stall}%: {} frames, {bytes} bytes, input refused {refused} cycles",
        frames.len()
    );
    refused
}

#[test]
fn bench_random_frames() {
    for (seed, gap, stall) in [(1, 0, 0), (2, 40, 0), (3, 0, 40), (4, 60, 30), (5, 0, 85)] {
        let mut b = Bench::new(StreamPacketFifo64::default(), |u| &mut u.clock);
        let refused = run(&mut b, seed, gap, stall);
        if stall >= 85 {
            assert!(refused > 0, "the FIFO never filled");
        }
    }
}

#[test]
fn cosim_packet_fifo() {
    if !ferroce_testkit::require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(StreamPacketFifo64::default(), |u| &mut u.clock);
    run(&mut cs, 7, 30, 30);
    run(&mut cs, 8, 0, 80);
    eprintln!(
        "co-simulated {} cycles, {} comparisons, 0 mismatches",
        cs.cycles(),
        cs.compares
    );
}

#[test]
fn yosys_synth_packet_fifo() {
    let m = "ferroce_packet_fifo_64";
    let v = ferroce_hdl::verilog::block_verilog(&mut StreamPacketFifo64::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("packet_fifo_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // 512 x 73 bits in block RAM
    assert!(st.count("DP16KD") >= 2, "{}", st.line(ECP5_CELLS));
}
