//! Block tests of the stream packer: against a byte-level model with random segment sizes
//! and random gaps and stalls on both sides; its synthesis smoke test.
use super::packer::*;
use crate::stream::{beats_to_frames, frame_to_beats, Beat};
use crate::testbench::{Bench, Collector, Rng, Stepper};

/// Packets of random size, each cut into random segments (as the requester's DMA reads).
fn random_packets(rng: &mut Rng, n: usize) -> Vec<Vec<Vec<u8>>> {
    (0..n)
        .map(|_| {
            let len = 1 + rng.below(300) as usize;
            let data = rng.bytes(len);
            let mut cuts: Vec<usize> = (0..rng.below(4)).map(|_| rng.range(1, len)).collect();
            cuts.push(0);
            cuts.push(len);
            cuts.sort_unstable();
            cuts.dedup();
            cuts.windows(2).map(|w| data[w[0]..w[1]].to_vec()).collect()
        })
        .collect()
}

fn run_packer(packets: &[Vec<Vec<u8>>], gap: u32, stall: u32, seed: u64) -> Vec<Beat> {
    // the input beats with their end-of-packet sideband
    let mut beats: Vec<(Beat, bool)> = vec![];
    for p in packets {
        for (i, seg) in p.iter().enumerate() {
            for b in frame_to_beats(seg, 8) {
                beats.push((b, i + 1 == p.len()));
            }
        }
    }
    let mut bench = Bench::new(StreamPacker::default(), |u| &mut u.clock);
    let mut rng = Rng::new(seed);
    let mut out = Collector::new(stall);
    let mut pos = 0;
    let mut presenting = false;
    let total: usize = packets.iter().flatten().map(|s| s.len()).sum();
    for _ in 0..(20 * total + 1000) {
        if !presenting {
            presenting = pos < beats.len() && !rng.percent(gap);
        }
        {
            let u = bench.uut();
            u.inp.drive(if presenting {
                Some(&beats[pos].0)
            } else {
                None
            });
            u.inp_eop.next = presenting && beats[pos].1;
            out.drive_ready(&mut u.out, &mut rng);
        }
        bench.settle();
        let fired = {
            let u = bench.uut();
            out.sample(&u.out);
            u.inp.fires()
        };
        bench.tick();
        if fired {
            pos += 1;
            presenting = false;
        }
        if pos == beats.len() && out.beats.iter().filter(|b| b.last).count() == packets.len() {
            break;
        }
    }
    assert_eq!(pos, beats.len(), "the packer stopped taking input");
    out.beats
}

#[test]
fn packer_joins_segments_into_packets() {
    for (seed, gap, stall) in [(1, 0, 0), (2, 30, 0), (3, 0, 40), (4, 25, 25)] {
        let mut rng = Rng::new(seed);
        let packets = random_packets(&mut rng, 60);
        let beats = run_packer(&packets, gap, stall, seed);
        let expected: Vec<Vec<u8>> = packets.iter().map(|p| p.concat()).collect();
        assert_eq!(beats_to_frames(&beats), expected, "seed {seed}");
        // packed: every beat but a packet's last is full
        for b in &beats {
            assert!(
                b.last || b.bytes.len() == 8,
                "a short beat inside a packet (seed {seed})"
            );
        }
    }
}

#[test]
fn packer_handles_one_byte_segments_and_exact_beats() {
    // many 1-byte pieces, then segments that end exactly on beat boundaries
    let packets = vec![
        (0..17u8).map(|b| vec![b]).collect::<Vec<_>>(),
        vec![vec![1; 8], vec![2; 8], vec![3; 16]],
        vec![vec![4; 7], vec![5; 1]],
        vec![vec![6; 9]],
    ];
    let beats = run_packer(&packets, 0, 0, 9);
    let expected: Vec<Vec<u8>> = packets.iter().map(|p| p.concat()).collect();
    assert_eq!(beats_to_frames(&beats), expected);
}

#[test]
fn packer_synthesizes() {
    crate::csr::synth_check(&mut StreamPacker::default(), "packer");
}
