//! Co-simulation: the emitted Verilog of the ICRC blocks (and the stream skid buffer) against
//! their rust-hdl models, cycle by cycle, every output port compared at every settle and clock
//! phase, with random frames and random valid/ready gaps. Also the CRC leaf's hand-written
//! Verilog against its Rust model through the `VerilatedBlock` engine, and engine speed.
//!
//! Needs verilator, make and g++ (policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::{CoSim, VerilatedBlock};
use ferroce_hdl::icrc::drive::{run_checker, run_generator};
use ferroce_hdl::icrc::*;
use ferroce_hdl::stream::pack_data;
use ferroce_hdl::testbench::*;
use ferroce_hdl::widget::StreamSkid;
use ferroce_testkit::require_cosim_tools;

fn frames(rng: &mut Rng, n: usize, corrupt: bool) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let (mut f, at) = random_roce_frame(rng, FrameOpts::default());
            if corrupt && rng.percent(30) {
                let p = rng.range(0, at + 3);
                f[p] ^= 1 << rng.below(8);
            }
            if corrupt && rng.percent(10) {
                let n = rng.range(1, f.len());
                f.truncate(n);
            }
            f
        })
        .collect()
}

#[test]
fn cosim_icrc_checker() {
    if !require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(IcrcChecker64::default(), |u| &mut u.clock);
    let mut rng = Rng::new(11);
    for (gap, stall) in [(0, 0), (20, 0), (0, 20), (35, 35)] {
        let f = frames(&mut rng, 60, true);
        let (v, out, _) = run_checker(&mut cs, &f, gap, stall, &mut rng);
        assert_eq!(out, f);
        assert_eq!(v.len(), f.len());
    }
    eprintln!(
        "checker: {} lock-step comparisons, 0 mismatches",
        cs.compares
    );
}

#[test]
fn cosim_icrc_generator() {
    if !require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(IcrcGenerator64::default(), |u| &mut u.clock);
    let mut rng = Rng::new(12);
    for (gap, stall) in [(0, 0), (20, 0), (0, 20), (35, 35)] {
        let good = frames(&mut rng, 60, false);
        let blank: Vec<Vec<u8>> = good
            .iter()
            .map(|f| {
                let (_, at) = reference_icrc(f).unwrap();
                let mut g = f.clone();
                g[at..at + 4].copy_from_slice(&[0; 4]);
                g
            })
            .collect();
        let (out, _) = run_generator(&mut cs, &blank, gap, stall, &mut rng);
        assert_eq!(out, good);
    }
    eprintln!(
        "generator: {} lock-step comparisons, 0 mismatches",
        cs.compares
    );
}

#[test]
fn cosim_stream_skid() {
    if !require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(StreamSkid::<64, 8>::default(), |u| &mut u.clock);
    let mut rng = Rng::new(13);
    let f: Vec<Vec<u8>> = (0..50)
        .map(|_| {
            let n = rng.range(1, 50);
            rng.bytes(n)
        })
        .collect();
    let mut feeder = Feeder::new(30);
    for x in &f {
        feeder.push_frame(x, 8);
    }
    let mut col = Collector::new(30);
    for _ in 0..3000 {
        feeder.drive(&mut cs.uut().inp, &mut rng);
        col.drive_ready(&mut cs.uut().out, &mut rng);
        cs.settle();
        let fired = cs.uut().inp.fires();
        col.sample(&cs.uut().out);
        cs.tick();
        feeder.after_edge(fired);
    }
    assert_eq!(col.frames(), f);
}

/// The CRC leaf has two independent descriptions (Rust `update`, generated Verilog): compare
/// them on random inputs through the fast engine.
#[test]
fn crc32_step_verilog_matches_rust() {
    if !require_cosim_tools() {
        return;
    }
    let mut uut = Crc32Step::<64, 8>::default();
    let mut m = VerilatedBlock::new(&mut uut);
    let (st, d, c, o) = (
        m.port("state"),
        m.port("data"),
        m.port("count"),
        m.port("crc"),
    );
    let mut rng = Rng::new(14);
    for i in 0..20000 {
        let state = rng.next_u64() as u32;
        let bytes = rng.bytes(8);
        let n = if i < 1000 { i % 10 } else { rng.range(0, 9) };
        m.set(st, state as u64);
        m.set(d, pack_data::<64>(&bytes).to_u64());
        m.set(c, n as u64);
        m.eval();
        let want = crc32_step::crc32_update(state, &bytes[..n.min(8)]);
        assert_eq!(
            m.get(o) as u32,
            want,
            "state {state:08x} bytes {bytes:02x?} n {n}"
        );
    }
    // and the 512-bit leaf
    let mut uut = Crc32Step::<512, 64>::default();
    let mut m = VerilatedBlock::new(&mut uut);
    let (st, d, c, o) = (
        m.port("state"),
        m.port("data"),
        m.port("count"),
        m.port("crc"),
    );
    for _ in 0..3000 {
        let state = rng.next_u64() as u32;
        let bytes = rng.bytes(64);
        let n = rng.range(0, 64);
        let words: Vec<u64> = (0..8)
            .rev()
            .map(|k| u64::from_be_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap()))
            .collect();
        m.set(st, state as u64);
        m.set_words(d, &words);
        m.set(c, n as u64);
        m.eval();
        assert_eq!(
            m.get(o) as u32,
            crc32_step::crc32_update(state, &bytes[..n]),
            "512-bit n {n}"
        );
    }
}

/// Speed of the checker on the Verilator engine at full rate, and agreement of its verdicts
/// with the software reference (run with --nocapture to see the numbers).
#[test]
fn verilated_checker_speed() {
    if !require_cosim_tools() {
        return;
    }
    let mut m = VerilatedBlock::new(&mut IcrcChecker64::default());
    let p = |n: &str| m.port(n);
    let (valid, data, keep, last, ready, verdict, ok) = (
        p("inp$valid"),
        p("inp$data"),
        p("inp$keep"),
        p("inp$last"),
        p("out$ready"),
        p("verdict"),
        p("icrc_ok"),
    );
    let mut rng = Rng::new(15);
    let f = frames(&mut rng, 200, true);
    let expect: Vec<bool> = f
        .iter()
        .map(|x| {
            reference_icrc(x)
                .map(|(c, at)| x[at..at + 4] == c.to_le_bytes())
                .unwrap_or(false)
        })
        .collect();
    // pre-cut beats
    let mut beats = vec![];
    for x in &f {
        for (i, c) in x.chunks(8).enumerate() {
            beats.push((
                pack_data::<64>(c).to_u64(),
                keep_bits(c.len()),
                (i + 1) * 8 >= x.len(),
            ));
        }
    }
    m.set(ready, 1);
    let mut got = vec![];
    let reps = 50;
    let t = std::time::Instant::now();
    let mut cycles = 0u64;
    for r in 0..reps {
        for &(d, k, l) in &beats {
            m.set(valid, 1);
            m.set(data, d);
            m.set(keep, k);
            m.set(last, l as u64);
            m.tick();
            cycles += 1;
            if r == 0 && m.get(verdict) == 1 {
                got.push(m.get(ok) == 1);
            }
        }
    }
    // the last frame's verdict comes the checker's latency after its last beat
    m.set(valid, 0);
    for _ in 0..IcrcChecker64::LATENCY {
        m.tick();
        if m.get(verdict) == 1 {
            got.push(m.get(ok) == 1);
        }
    }
    let dt = t.elapsed().as_secs_f64();
    assert_eq!(got, expect);
    eprintln!(
        "Verilator IcrcChecker64: {cycles} cycles in {dt:.3} s = {:.0} cycles/s",
        cycles as f64 / dt
    );
}

/// The fast engine's stream helpers on the generator (512 frames, full rate), and the
/// cost of a cache hit.
#[test]
fn verilated_generator_stream_helpers() {
    if !require_cosim_tools() {
        return;
    }
    let _warm = VerilatedBlock::new(&mut IcrcGenerator64::default());
    let t = std::time::Instant::now();
    let mut m = VerilatedBlock::new(&mut IcrcGenerator64::default());
    eprintln!(
        "VerilatedBlock::new on a cache hit: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let (i, o) = (m.stream("inp"), m.stream("out"));
    let mut rng = Rng::new(16);
    let good = frames(&mut rng, 100, false);
    let mut feeder = Feeder::new(0);
    for f in &good {
        let (_, at) = reference_icrc(f).unwrap();
        let mut g = f.clone();
        g[at..at + 4].copy_from_slice(&[0; 4]);
        feeder.push_frame(&g, 8);
    }
    m.set(o.ready, 1);
    let mut col = vec![];
    let mut cycles = 0;
    while col
        .iter()
        .filter(|b: &&ferroce_hdl::stream::Beat| b.last)
        .count()
        < good.len()
    {
        let beat = feeder.queue.front().cloned();
        m.drive_stream(i, beat.as_ref());
        m.eval();
        let fired = beat.is_some() && m.get(i.ready) == 1;
        if let Some(b) = m.peek_stream(o) {
            col.push(b);
        }
        m.tick();
        if fired {
            feeder.queue.pop_front();
        }
        cycles += 1;
        assert!(cycles < 100_000);
    }
    assert_eq!(ferroce_hdl::stream::beats_to_frames(&col), good);
}

fn keep_bits(n: usize) -> u64 {
    (0xff00u64 >> n) & 0xff
}

/// The harness must catch a known silent divergence: bare literals are 32-bit in Verilog, so
/// `(a + 1) >> 1` on an 8-bit `a` differs at a = 255 (docs/HDL-RULES.md).
mod trap {
    use rust_hdl::prelude::*;
    #[derive(LogicBlock, Default)]
    pub struct LiteralTrap {
        pub clock: Signal<In, Clock>,
        pub a: Signal<In, Bits<8>>,
        pub o: Signal<Out, Bits<8>>,
    }
    impl Logic for LiteralTrap {
        #[hdl_gen]
        fn update(&mut self) {
            self.o.next = (self.a.val() + 1) >> 1;
        }
    }
}

#[test]
fn cosim_catches_literal_width_divergence() {
    if !require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(trap::LiteralTrap::default(), |u| &mut u.clock);
    for a in 0..255u64 {
        cs.uut().a.next = a.into();
        cs.settle();
    }
    cs.uut().a.next = 255.into();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cs.settle()));
    let msg = r.expect_err("mismatch not detected");
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains("port `o`")
            && msg.contains("rust-hdl = 0x0")
            && msg.contains("verilator = 0x80"),
        "{msg}"
    );
}
