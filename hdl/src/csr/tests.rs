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
        b.uut().rd.next = true;
        b.uut().raddr.next = (addr as u64).into();
        b.settle();
        let v = b.uut().rdata.val().to_u64() as u32;
        b.tick();
        b.uut().rd.next = false;
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
