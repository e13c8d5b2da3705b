//! Unit tests of the CSR block on a small build (16 QPs, 8 CQs, 16 MRs). The full map, QP/MR/CQ
//! programming and doorbell tests run on the default build in `hdl/tests/csr_*.rs`.
use super::bfm::*;
use super::*;
use crate::testbench::{Bench, Stepper};
use ferroce_proto::host::regs;

type Small = CsrBlock<4, 3, 4>;

fn csr(seed: u64, t: AxilTiming) -> Csr<Bench<Small>, 4, 3, 4> {
    Csr::new(Bench::new(Small::default(), |u| &mut u.clock), seed, t)
}

#[test]
fn identity_reads() {
    let mut c = csr(1, AxilTiming::RANDOM);
    let want = CsrParams::default().identity(4, 3, 4);
    let addrs: Vec<u32> = want.iter().map(|x| x.0).collect();
    let got = c.read_burst(&addrs);
    for (i, (off, v)) in want.iter().enumerate() {
        assert_eq!(got[i], *v, "{}", reg_info(*off).name);
    }
    assert_eq!(c.read(regs::ID_MAGIC), regs::MAGIC);
}

#[test]
#[ignore]
fn speed_default_build() {
    let t = std::time::Instant::now();
    let mut c: Csr<Bench<CsrBlockDefault>, 8, 8, 10> = Csr::new(
        Bench::new(CsrBlockDefault::default(), |u| &mut u.clock),
        1,
        AxilTiming::FAST,
    );
    eprintln!("build {:?}", t.elapsed());
    let t = std::time::Instant::now();
    c.idle(2000);
    eprintln!("idle: {:.0} cycles/s", 2000.0 / t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    let n0 = c.s.cycles();
    for i in 0..200u32 {
        c.write(regs::CFG_SCRATCH, i);
    }
    eprintln!(
        "writes: {:.0} cycles/s",
        (c.s.cycles() - n0) as f64 / t.elapsed().as_secs_f64()
    );
}

/// The 48-bit counters carry from LO into HI, and the LO read latches HI: a HI read after the
/// counter moved on returns the HI of the LO read (CsrCounters alone: a carry needs 2^16 cycles
/// of the largest byte increment).
#[test]
fn counter_carry_and_lo_latches_hi() {
    use super::counters::{counter_index, CsrCounters};
    let mut b = Bench::new(CsrCounters::default(), |u| &mut u.clock);
    let i = counter_index(regs::CNT_RX_BYTES_LO);
    let j = counter_index(regs::CNT_TX_FRAMES_LO);
    let (lo, hi) = (regs::CNT_RX_BYTES_LO, regs::CNT_RX_BYTES_HI);
    let mut model: u64 = 0;
    let read = |b: &mut Bench<CsrCounters>, addr: u32| -> u32 {
        b.uut().inc.next = 0.into();
        b.uut().rd_pending.next = true;
        b.uut().raddr.next = (addr as u64).into();
        b.settle();
        let mut waited = 0;
        while !b.uut().rd_ready.val() {
            b.tick();
            waited += 1;
            assert!(waited <= 1, "a counter read waits one cycle");
        }
        b.uut().rd.next = true;
        b.settle();
        let v = b.uut().rdata.val().to_u64() as u32;
        b.tick();
        b.uut().rd.next = false;
        b.uut().rd_pending.next = false;
        v
    };
    let run = |b: &mut Bench<CsrCounters>, n: usize, model: &mut u64| {
        b.uut().inc.next = ((1u64 << i) | (1u64 << j)).into();
        b.uut().rx_bytes.next = 0xFFFF.into();
        b.uut().rd.next = false;
        for _ in 0..n {
            b.tick();
            *model += 0xFFFF;
        }
        b.uut().inc.next = 0.into();
        b.settle();
    };
    run(&mut b, 65_540, &mut model);
    assert_eq!(model >> 32, 1);
    let l = read(&mut b, lo);
    let h = read(&mut b, hi);
    assert_eq!((h as u64) << 32 | l as u64, model, "carry into HI");
    // LO read latches HI = 1; the counter then passes 2^33; HI still reads the latched 1
    let l = read(&mut b, lo);
    run(&mut b, 65_540, &mut model);
    assert_eq!(model >> 32, 2);
    assert_eq!(
        read(&mut b, hi),
        1,
        "HI read returns the half latched by the LO read"
    );
    assert_eq!(l as u64 | 1 << 32, model - 65_540 * 0xFFFF);
    // a new LO read latches the new HI
    let l = read(&mut b, lo);
    assert_eq!((read(&mut b, hi) as u64) << 32 | l as u64, model);
    // the other counter counted cycles
    assert_eq!(read(&mut b, regs::CNT_TX_FRAMES_LO), 2 * 65_540);
    // clear
    b.uut().clear.next = true;
    b.tick();
    b.uut().clear.next = false;
    assert_eq!(read(&mut b, lo) as u64 | (read(&mut b, hi) as u64) << 32, 0);
}

/// Counters read while they move: every cycle about a quarter of the counters count (the byte
/// counters by random amounts), reads of random LO and HI registers start at random times and
/// each value is compared with a model of the counter at the read's cycle; clears come now and
/// then. 3,000 cycles are over 30 sweeps of the counter RAM, so reads meet the sweep at every
/// phase, including the cycle it writes the word being read.
#[test]
fn counters_read_exact_while_counting() {
    use super::counters::{counter_index, CsrCounters};
    use crate::testbench::Rng;
    let mut b = Bench::new(CsrCounters::default(), |u| &mut u.clock);
    let mut rng = Rng::new(11);
    let rxb = counter_index(regs::CNT_RX_BYTES_LO);
    let txb = counter_index(regs::CNT_TX_BYTES_LO);
    let mut model = vec![0u64; NUM_COUNTERS];
    // pending read: (index, HI?, cycles waited)
    let mut pending: Option<(usize, bool, u32)> = None;
    let (mut reads, mut waits, mut clears) = (0, 0, 0);
    for _ in 0..3_000 {
        let clear = rng.below(500) == 0;
        let inc: Vec<bool> = (0..NUM_COUNTERS).map(|_| rng.percent(25)).collect();
        let mut bits = rust_hdl::prelude::Bits::<NUM_COUNTERS>::default();
        for (i, on) in inc.iter().enumerate() {
            bits = bits.replace_bit(i, *on);
        }
        let (rb, tb) = (rng.below(0x10000), rng.below(0x10000));
        if pending.is_none() && rng.percent(40) {
            pending = Some((rng.below(NUM_COUNTERS as u64) as usize, rng.percent(30), 0));
        }
        let u = b.uut();
        u.inc.next = bits;
        u.rx_bytes.next = rb.into();
        u.tx_bytes.next = tb.into();
        u.clear.next = clear;
        u.rd.next = false;
        u.rd_pending.next = pending.is_some();
        if let Some((i, hi, _)) = pending {
            u.raddr.next = ((regs::CNT_BASE + 8 * i as u32 + 4 * hi as u32) as u64).into();
        }
        b.settle();
        if let Some((i, hi, w)) = pending {
            if b.uut().rd_ready.val() {
                b.uut().rd.next = true;
                b.settle();
                let got = b.uut().rdata.val().to_u64();
                // values stay below 2^32 here: HI reads 0 (the carry test covers HI)
                let want = if hi {
                    model[i] >> 32
                } else {
                    model[i] & 0xFFFF_FFFF
                };
                assert_eq!(got, want, "counter {i} {}", if hi { "HI" } else { "LO" });
                pending = None;
                reads += 1;
            } else {
                assert_eq!(w, 0, "a counter read waits one cycle, not more");
                pending = Some((i, hi, w + 1));
                waits += 1;
            }
        }
        b.tick();
        if clear {
            model.iter_mut().for_each(|m| *m = 0);
            clears += 1;
        } else {
            for (i, m) in model.iter_mut().enumerate() {
                if inc[i] {
                    *m += if i == rxb {
                        rb
                    } else if i == txb {
                        tb
                    } else {
                        1
                    };
                }
            }
        }
    }
    assert!(
        reads > 500 && waits > 500 && clears >= 2,
        "{reads} {waits} {clears}"
    );
}
