//! The DMA shells' shared realigners (`ferroce_hdl::board::ReadRealign` and `WriteRealign`)
//! on their own, against reference models written here from the DMA port's byte order
//! (docs/DMA.md section 3): a request at address `a` of `len` bytes covers the 8-byte words
//! `a / 8 ..= (a + len - 1) / 8`; the response (or the write data) is the bytes `a .. a + len`
//! in order, 8 a beat, the first byte in the MSB, `keep` contiguous from the top.
//!
//! Random alignments (all eight), random lengths (1-byte ones, ones ending on a word boundary,
//! long ones), random gaps on requests and words, random back-pressure on the output.
//!
//! * `ReadRealign`: every response byte for byte against the memory, exactly `len` bytes, the
//!   request's tag on every beat, `out_err` on every beat of a request started with
//!   `start_err` and, after a word marked `word_err`, exactly from the beat that word completes
//!   on; exactly the request's words taken, `start_words` equal to that count, beats held while
//!   not taken, no word taken while idle.
//! * `WriteRealign`: every word written into a memory model with its mask; at the end the
//!   memory equals a software copy into which each request's bytes were copied (so no mask
//!   covered a byte outside its request); exactly the request's words, `words_left` counting
//!   down to 0, no input beat taken without `take`.
//!
//! On the rust-hdl blocks, then on the emitted Verilog (Verilator) in lock step; Yosys
//! `synth_ecp5` of both. Needs verilator, make, g++ and yosys (the tool policy of
//! `ferroce_testkit::require_tool`).
use ferroce_hdl::board::{ReadRealign, WriteRealign};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

const MEM: usize = 8192;

/// A random request inside the memory: every alignment, 1-byte ones, ones whose end is a word
/// boundary, short and long ones.
fn random_req(rng: &mut Rng) -> (usize, usize) {
    let addr = rng.range(0, 1000) * 8 + rng.range(0, 7);
    let len = match rng.range(0, 9) {
        0..=1 => 1,
        2..=3 => rng.range(2, 24),
        4 => (8 - addr % 8) + 8 * rng.range(0, 4),
        5..=7 => rng.range(25, 300),
        _ => rng.range(301, 1500),
    };
    (addr, len.min(MEM - addr))
}

/// The words a request covers (reference: from the byte addresses, not the block's formula).
fn words_of(addr: usize, len: usize) -> usize {
    (addr + len - 1) / 8 - addr / 8 + 1
}

/// A memory word in ferroce order (the byte at the lowest address in the MSB).
fn word_at(mem: &[u8], w: usize) -> u64 {
    u64::from_be_bytes(mem[8 * w..8 * w + 8].try_into().unwrap())
}

struct RdReq {
    addr: usize,
    len: usize,
    tag: u8,
    /// started with `start_err`
    err: bool,
    /// the word (index in the request) marked `word_err`, if any
    bad_word: Option<usize>,
}

/// Reference: the error flag of response beat `i`. Beat `i` is complete once the words holding
/// its bytes are in: with an aligned start word `i`, otherwise word `i + 1` (the first word
/// only reaches the hold register), capped at the request's last word.
fn beat_err(r: &RdReq, i: usize) -> bool {
    if r.err {
        return true;
    }
    let words = words_of(r.addr, r.len);
    let last_word = (i + (!r.addr.is_multiple_of(8)) as usize).min(words - 1);
    r.bad_word.is_some_and(|b| b <= last_word)
}

/// Percent chances, per cycle, of a request starting, of a word or beat being presented, and
/// of the output being taken.
#[derive(Clone, Copy)]
struct Knobs {
    start: u32,
    word: u32,
    ready: u32,
}

impl Knobs {
    fn random(rng: &mut Rng) -> Self {
        Knobs {
            start: rng.range(30, 100) as u32,
            word: rng.range(30, 100) as u32,
            ready: rng.range(30, 100) as u32,
        }
    }
}

fn read_session<S: Stepper<ReadRealign>>(b: &mut S, seed: u64, n: usize) -> (u64, u64) {
    let mut rng = Rng::new(seed);
    let k = Knobs::random(&mut rng);
    let mem = rng.bytes(MEM);
    let mut todo: VecDeque<RdReq> = (0..n)
        .map(|_| {
            let (addr, len) = random_req(&mut rng);
            let err = rng.percent(8);
            let bad_word = if !err && rng.percent(10) {
                Some(rng.range(0, words_of(addr, len) - 1))
            } else {
                None
            };
            RdReq {
                addr,
                len,
                tag: rng.next_u64() as u8,
                err,
                bad_word,
            }
        })
        .collect();
    // the request in progress: its words still to present (index, word) and bytes received
    let mut cur: Option<RdReq> = None;
    let mut words: VecDeque<(usize, u64)> = VecDeque::new();
    let mut got: Vec<u8> = vec![];
    let mut beats = 0usize;
    let mut word_shown = false;
    let mut held: Option<(u64, u64, bool, u64, bool)> = None;
    let (mut done, mut errs, mut guard) = (0u64, 0u64, 0u64);
    while !(todo.is_empty() && cur.is_none()) {
        let u = b.uut();
        let go = cur.is_none() && !todo.is_empty() && rng.percent(k.start);
        let r = todo.front();
        u.start.next = go;
        u.start_off.next = (r.map_or(0, |r| r.addr % 8) as u64).into();
        u.start_len.next = (r.map_or(1, |r| r.len) as u64).into();
        u.start_tag.next = (r.map_or(0, |r| r.tag) as u64).into();
        u.start_err.next = r.is_some_and(|r| r.err);
        if !word_shown && !words.is_empty() {
            word_shown = rng.percent(k.word);
        }
        let w = words.front().copied();
        u.word_valid.next = word_shown;
        // a word the block must not take is garbage
        u.word.next = w.map_or(rng.next_u64(), |w| w.1).into();
        u.word_err.next = word_shown
            && cur
                .as_ref()
                .is_some_and(|c| w.is_some_and(|w| c.bad_word == Some(w.0)));
        u.out.ready.next = rng.percent(k.ready);
        b.settle();
        let u = b.uut();
        if go {
            assert!(u.idle.val(), "started while busy");
            let r = todo.pop_front().unwrap();
            let nw = words_of(r.addr, r.len);
            if !r.err {
                assert_eq!(u.start_words.val().to_u64(), nw as u64, "start_words");
            }
            // an errored request takes one made-up word per beat, aligned
            let count = if r.err { r.len.div_ceil(8) } else { nw };
            for i in 0..count {
                let v = if r.err {
                    rng.next_u64()
                } else {
                    word_at(&mem, r.addr / 8 + i)
                };
                words.push_back((i, v));
            }
            cur = Some(r);
        }
        if u.word_ready.val() {
            assert!(!u.idle.val(), "word_ready while idle");
        }
        if u.word_ready.val() && u.word_valid.val() {
            assert!(cur.is_some(), "word taken with no request");
            words.pop_front().expect("word taken beyond the request");
            word_shown = false;
        }
        let o = (
            u.out.data.val().to_u64(),
            u.out.keep.val().to_u64(),
            u.out.last.val(),
            u.out_tag.val().to_u64(),
            u.out_err.val(),
        );
        if let Some(h) = held.take() {
            assert!(u.out.valid.val() && o == h, "beat withdrawn or changed");
        }
        if u.out.valid.val() && !u.out.ready.val() {
            held = Some(o);
        }
        if u.out.valid.val() && u.out.ready.val() {
            let r = cur.as_ref().expect("a beat with no request");
            let (data, keep, last, tag, err) = o;
            assert_eq!(tag, r.tag as u64, "out_tag");
            let nb = (keep as u8).leading_ones() as usize;
            assert!(
                nb >= 1 && keep == (0xFF00u64 >> nb) & 0xFF,
                "keep {keep:#x}"
            );
            assert!(last || nb == 8, "short beat before last");
            assert_eq!(err, beat_err(r, beats), "out_err on beat {beats}");
            got.extend_from_slice(&data.to_be_bytes()[..nb]);
            beats += 1;
            assert!(got.len() <= r.len, "response longer than {}", r.len);
            if last {
                assert_eq!(got.len(), r.len, "response length");
                assert!(words.is_empty(), "request ended with words not taken");
                if !r.err {
                    assert!(
                        got == mem[r.addr..r.addr + r.len],
                        "read {}+{} differs",
                        r.addr,
                        r.len
                    );
                }
                errs += (r.err || r.bad_word.is_some()) as u64;
                done += 1;
                got.clear();
                beats = 0;
                cur = None;
            }
        }
        b.tick();
        guard += 1;
        assert!(guard < 5_000_000, "stuck");
    }
    (done, errs)
}

fn write_session<S: Stepper<WriteRealign>>(b: &mut S, seed: u64, n: usize) -> u64 {
    let mut rng = Rng::new(seed);
    let k = Knobs::random(&mut rng);
    let mut mem = rng.bytes(MEM);
    let mut refmem = mem.clone();
    let mut todo: VecDeque<(usize, usize, Vec<u8>)> = (0..n)
        .map(|_| {
            let (addr, len) = random_req(&mut rng);
            (addr, len, rng.bytes(len))
        })
        .collect();
    // the request in progress: (next word address, words left)
    let mut cur: Option<(usize, usize)> = None;
    let mut beats: VecDeque<(u64, u64, bool)> = VecDeque::new();
    let mut beat_shown = false;
    let (mut done, mut guard) = (0u64, 0u64);
    while !(todo.is_empty() && cur.is_none()) {
        let u = b.uut();
        let go = cur.is_none() && !todo.is_empty() && rng.percent(k.start);
        let r = todo.front();
        u.start.next = go;
        u.start_off.next = (r.map_or(0, |r| r.0 % 8) as u64).into();
        u.start_len.next = (r.map_or(1, |r| r.1) as u64).into();
        if !beat_shown && !beats.is_empty() {
            beat_shown = rng.percent(k.word);
        }
        let bt = beats.front().copied();
        u.inp.valid.next = beat_shown;
        u.inp.data.next = bt.map_or(rng.next_u64(), |x| x.0).into();
        u.inp.keep.next = bt.map_or(0, |x| x.1).into();
        u.inp.last.next = bt.is_some_and(|x| x.2);
        // the parent takes words only inside a request
        let take = cur.is_some() && rng.percent(k.ready);
        u.take.next = take;
        b.settle();
        let u = b.uut();
        if u.inp.ready.val() {
            assert!(take, "input taken without take");
        }
        if u.inp.valid.val() && u.inp.ready.val() {
            beats
                .pop_front()
                .expect("input beat taken beyond the request");
            beat_shown = false;
        }
        if let Some((wa, left)) = cur.as_mut() {
            assert_eq!(u.words_left.val().to_u64(), *left as u64, "words_left");
            if take && u.word_valid.val() {
                let word = u.word.val().to_u64().to_be_bytes();
                let mask = u.word_mask.val().to_u64();
                for (j, x) in word.iter().enumerate() {
                    if mask >> j & 1 == 1 {
                        mem[8 * *wa + j] = *x;
                    }
                }
                *wa += 1;
                *left -= 1;
                if *left == 0 {
                    assert!(beats.is_empty(), "request ended with input beats left");
                    cur = None;
                    done += 1;
                }
            }
        }
        if go {
            let (addr, len, data) = todo.pop_front().unwrap();
            refmem[addr..addr + len].copy_from_slice(&data);
            let nb = len.div_ceil(8);
            for (i, c) in data.chunks(8).enumerate() {
                let mut d = [0u8; 8];
                d[..c.len()].copy_from_slice(c);
                let keep = (0xFF00u64 >> c.len()) & 0xFF;
                beats.push_back((u64::from_be_bytes(d), keep, i + 1 == nb));
            }
            cur = Some((addr / 8, words_of(addr, len)));
        }
        b.tick();
        guard += 1;
        assert!(guard < 5_000_000, "stuck");
    }
    assert_eq!(b.uut().words_left.val().to_u64(), 0);
    assert!(mem == refmem, "memory differs from the reference");
    done
}

#[test]
fn read_realign_bench_random() {
    for seed in 1..=6u64 {
        let mut b = Bench::new(ReadRealign::default(), |u| &mut u.clock);
        let (n, e) = read_session(&mut b, seed, 400);
        eprintln!(
            "read seed {seed}: {n} requests ({e} errored), {} cycles",
            b.cycles()
        );
        assert!(e > 0);
    }
}

#[test]
fn write_realign_bench_random() {
    for seed in 1..=6u64 {
        let mut b = Bench::new(WriteRealign::default(), |u| &mut u.clock);
        let n = write_session(&mut b, seed, 400);
        eprintln!("write seed {seed}: {n} requests, {} cycles", b.cycles());
    }
}

#[test]
fn cosim_realign_random() {
    if !ferroce_testkit::require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(ReadRealign::default(), |u| &mut u.clock);
    let (n, _) = read_session(&mut cs, 31, 150);
    eprintln!(
        "read cosim: {n} requests, {} cycles, {} comparisons, 0 mismatches",
        cs.cycles(),
        cs.compares
    );
    let mut cs = CoSim::new(WriteRealign::default(), |u| &mut u.clock);
    let n = write_session(&mut cs, 32, 150);
    eprintln!(
        "write cosim: {n} requests, {} cycles, {} comparisons, 0 mismatches",
        cs.cycles(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of both: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_realign() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("realign_synth");
    let m = "ferroce_read_realign";
    let v = ferroce_hdl::verilog::block_verilog(&mut ReadRealign::default(), m);
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    assert!(st.count("TRELLIS_FF") > 150, "{}", st.line(ECP5_CELLS));
    let m = "ferroce_write_realign";
    let v = ferroce_hdl::verilog::block_verilog(&mut WriteRealign::default(), m);
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    assert!(st.count("TRELLIS_FF") > 80, "{}", st.line(ECP5_CELLS));
}
