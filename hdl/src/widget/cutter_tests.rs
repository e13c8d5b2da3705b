//! Block tests of the stream cutter: random packets cut into random pieces against a byte
//! model, with random gaps and stalls on every port; throughput without gaps; the `piece_short` path
//! (a cut longer than the packet); synthesis and lint smoke tests.
use super::cutter::*;
use crate::stream::{frame_to_beats, Beat};
use crate::testbench::{Bench, Collector, Rng, Stepper};
use std::process::Command;

/// Random pieces (1..=5 of them, never empty) that add up to `len`.
fn random_cuts(rng: &mut Rng, len: usize) -> Vec<usize> {
    let k = rng.range(1, 5.min(len));
    let mut at: Vec<usize> = vec![0, len];
    while at.len() < k + 1 {
        let c = rng.range(1, len - 1);
        if !at.contains(&c) {
            at.push(c);
        }
    }
    at.sort_unstable();
    at.windows(2).map(|w| w[1] - w[0]).collect()
}

/// What a run saw: the output beats, the `piece_short` pulses (index of the piece they ended), and
/// the cycle in which the final beat left.
struct Run {
    beats: Vec<Beat>,
    shorts: Vec<usize>,
    cycles: u64,
}

/// Feeds `packets` on `inp` and `cuts` (all packets' cuts in order) on the cut port, with
/// `gap` percent idle cycles on both and `stall` percent `ready = 0` on `out`; runs until
/// `pieces` pieces have come out.
fn run_cutter(
    packets: &[Vec<u8>],
    cuts: &[usize],
    pieces: usize,
    gap: u32,
    stall: u32,
    seed: u64,
) -> Run {
    let beats: Vec<Beat> = packets.iter().flat_map(|p| frame_to_beats(p, 8)).collect();
    let mut bench = Bench::new(StreamCutter::default(), |u| &mut u.clock);
    let mut rng = Rng::new(seed);
    let mut out = Collector::new(stall);
    let mut shorts = vec![];
    let (mut pos, mut cpos) = (0, 0);
    let (mut presenting, mut cut_presenting) = (false, false);
    let total: usize = packets.iter().map(|p| p.len()).sum();
    let mut done_at = None;
    let mut held: Option<Beat> = None;
    for _ in 0..(20 * total + 1000) {
        if !presenting {
            presenting = pos < beats.len() && !rng.percent(gap);
        }
        if !cut_presenting {
            cut_presenting = cpos < cuts.len() && !rng.percent(gap);
        }
        {
            let u = bench.uut();
            u.inp
                .drive(if presenting { Some(&beats[pos]) } else { None });
            u.cut_valid.next = cut_presenting;
            u.cut_len.next = if cut_presenting {
                (cuts[cpos] as u64).into()
            } else {
                0.into()
            };
            out.drive_ready(&mut u.out, &mut rng);
        }
        bench.settle();
        let (fired, cut_fired) = {
            let u = bench.uut();
            let pieces_before = out.beats.iter().filter(|b| b.last).count();
            // AXI: a beat shown without ready is shown again, unchanged
            if let Some(b) = &held {
                assert_eq!(u.out.peek().as_ref(), Some(b), "out changed while stalled");
            }
            held = if u.out.valid.val() && !u.out.ready.val() {
                u.out.peek()
            } else {
                None
            };
            let got = out.sample(&u.out);
            if u.piece_short.val() {
                assert!(
                    got && u.out.last.val(),
                    "short outside a piece's last transfer"
                );
                shorts.push(pieces_before);
            }
            (u.inp.fires(), u.cut_valid.val() && u.cut_ready.val())
        };
        bench.tick();
        if fired {
            pos += 1;
            presenting = false;
        }
        if cut_fired {
            cpos += 1;
            cut_presenting = false;
        }
        if out.beats.iter().filter(|b| b.last).count() == pieces {
            done_at = Some(bench.cycles());
            break;
        }
    }
    let cycles = done_at.expect("the cutter hung: not every piece came out");
    assert_eq!(pos, beats.len(), "input beats left over");
    // a few idle cycles more: nothing else may come out
    for _ in 0..5 {
        let u = bench.uut();
        u.inp.drive(None);
        u.cut_valid.next = false;
        u.out.ready.next = true;
        bench.settle();
        assert!(!bench.uut().out.valid.val(), "a beat after the last piece");
        bench.tick();
    }
    Run {
        beats: out.beats,
        shorts,
        cycles,
    }
}

/// Output beats split into pieces; checks keep (contiguity is checked by `peek`) and that
/// every beat but a piece's last is full.
fn pieces_of(beats: &[Beat]) -> Vec<Vec<u8>> {
    for b in beats {
        assert!(
            b.last || b.bytes.len() == 8,
            "a short beat inside a piece: {b:?}"
        );
    }
    crate::stream::beats_to_frames(beats)
}

/// The byte model: each packet cut in order by its cuts (a cut longer than what is left of
/// the packet gives what is left, and is short).
fn model(packets: &[Vec<u8>], cuts: &[Vec<usize>]) -> (Vec<Vec<u8>>, Vec<usize>) {
    let mut pieces = vec![];
    let mut shorts = vec![];
    for (p, cs) in packets.iter().zip(cuts) {
        let mut at = 0;
        for &c in cs {
            if c == 0 {
                continue;
            }
            assert!(at < p.len(), "model: a cut after the packet's end");
            let end = (at + c).min(p.len());
            if at + c > p.len() {
                shorts.push(pieces.len());
            }
            pieces.push(p[at..end].to_vec());
            at = end;
        }
        assert_eq!(at, p.len(), "model: the cuts do not cover the packet");
    }
    (pieces, shorts)
}

#[test]
fn cutter_splits_packets_into_pieces() {
    for (seed, gap, stall) in [(1, 0, 0), (2, 30, 0), (3, 0, 40), (4, 25, 25), (5, 50, 50)] {
        let mut rng = Rng::new(seed);
        let mut packets: Vec<Vec<u8>> = (0..80)
            .map(|_| {
                let len = rng.range(1, 300);
                rng.bytes(len)
            })
            .collect();
        // a few big ones (4096 bytes) in between
        for i in [10, 40, 79] {
            packets[i] = rng.bytes(4096);
        }
        let cuts: Vec<Vec<usize>> = packets
            .iter()
            .map(|p| random_cuts(&mut rng, p.len()))
            .collect();
        let (expected, exp_shorts) = model(&packets, &cuts);
        assert!(exp_shorts.is_empty());
        let flat: Vec<usize> = cuts.concat();
        let run = run_cutter(&packets, &flat, expected.len(), gap, stall, seed);
        assert_eq!(pieces_of(&run.beats), expected, "seed {seed}");
        assert!(run.shorts.is_empty(), "short asserted (seed {seed})");
    }
}

#[test]
fn cutter_handles_small_and_aligned_pieces() {
    // one-byte pieces, pieces ending on beat boundaries, pieces inside one beat, and pieces
    // ending exactly at a packet end that left bytes of its last beat over
    let packets: Vec<Vec<u8>> = vec![
        (0..17u8).collect(),
        (20..52u8).collect(),
        (60..75u8).collect(),
        (80..90u8).collect(),
        vec![99],
    ];
    let cuts = vec![
        vec![1; 17],
        vec![8, 8, 16],
        vec![3, 2, 1, 9],
        vec![9, 1],
        vec![1],
    ];
    let (expected, _) = model(&packets, &cuts);
    for (seed, gap, stall) in [(7, 0, 0), (8, 40, 40)] {
        let run = run_cutter(&packets, &cuts.concat(), expected.len(), gap, stall, seed);
        assert_eq!(pieces_of(&run.beats), expected);
        assert!(run.shorts.is_empty());
    }
}

#[test]
fn cutter_throughput_without_gaps() {
    let mut rng = Rng::new(11);
    let p = rng.bytes(4096);
    for cuts in [vec![4096], vec![5, 4091]] {
        let (expected, _) = model(std::slice::from_ref(&p), std::slice::from_ref(&cuts));
        let run = run_cutter(std::slice::from_ref(&p), &cuts, expected.len(), 0, 0, 1);
        assert_eq!(pieces_of(&run.beats), expected);
        let beats: u64 = cuts.iter().map(|&c| c.div_ceil(8) as u64).sum();
        // measured: 512 cycles for [4096] and 513 for [5, 4091] (513 beats): one beat per
        // clock, no bubble between pieces
        assert_eq!(run.beats.len() as u64, beats);
        assert!(
            run.cycles <= beats + 1,
            "{cuts:?}: {} cycles for {beats} beats",
            run.cycles
        );
    }
}

#[test]
fn cutter_short_piece_ends_at_packet_end() {
    // cuts longer than the packet: the piece ends at the packet's end with `short`, the rest
    // of the cut is forgotten, and the next packet is cut correctly. Zero-length cuts are
    // dropped.
    let packets: Vec<Vec<u8>> = vec![
        (0..20u8).collect(),  // [5, 30]: the short piece takes the input's last beat
        (30..40u8).collect(), // [9, 5]: the short piece comes from hold (packet's last bytes)
        (40..56u8).collect(), // [100]: ends on a full beat
        (60..63u8).collect(), // [0, 3]: a zero cut in front
        (70..83u8).collect(), // [13]: normal after all that
    ];
    let cuts = vec![vec![5, 30], vec![9, 5], vec![100], vec![0, 3], vec![13]];
    let (expected, exp_shorts) = model(&packets, &cuts);
    assert_eq!(exp_shorts, vec![1, 3, 4]);
    for (seed, gap, stall) in [(21, 0, 0), (22, 30, 30), (23, 0, 60)] {
        let run = run_cutter(&packets, &cuts.concat(), expected.len(), gap, stall, seed);
        assert_eq!(pieces_of(&run.beats), expected, "seed {seed}");
        assert_eq!(run.shorts, exp_shorts, "seed {seed}");
    }
    // random: the last cut of some packets made longer
    let mut rng = Rng::new(24);
    let packets: Vec<Vec<u8>> = (0..60)
        .map(|_| {
            let len = rng.range(1, 300);
            rng.bytes(len)
        })
        .collect();
    let cuts: Vec<Vec<usize>> = packets
        .iter()
        .map(|p| {
            let mut c = random_cuts(&mut rng, p.len());
            if rng.percent(50) {
                *c.last_mut().unwrap() += rng.range(1, 40);
            }
            c
        })
        .collect();
    let (expected, exp_shorts) = model(&packets, &cuts);
    assert!(!exp_shorts.is_empty());
    let run = run_cutter(&packets, &cuts.concat(), expected.len(), 25, 25, 24);
    assert_eq!(pieces_of(&run.beats), expected);
    assert_eq!(run.shorts, exp_shorts);
}

#[test]
fn cutter_synthesizes() {
    crate::csr::synth_check(&mut StreamCutter::default(), "stream_cutter");
}

/// Verilator lint with the project's waivers, as `dma::memcpy`'s lint test.
#[test]
fn cutter_lints_clean() {
    if !ferroce_testkit::require_tool("verilator") {
        return;
    }
    let module = "ferroce_stream_cutter_64";
    let v = crate::verilog::block_verilog(&mut StreamCutter::default(), module);
    let dir = std::env::temp_dir().join(format!("ferroce_cutter_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{module}.v"));
    std::fs::write(&path, v).unwrap();
    let out = Command::new("verilator")
        .args([
            "--lint-only",
            "-Wall",
            "-Wno-WIDTH",
            "-Wno-DECLFILENAME",
            "-Wno-UNUSEDSIGNAL",
            "-Wno-UNOPTFLAT",
            "-Wno-UNUSEDPARAM",
        ])
        .args(["--top-module", module])
        .arg(&path)
        .output()
        .expect("running verilator");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && !text.contains("%Warning") && !text.contains("%Error"),
        "verilator:\n{text}"
    );
}
