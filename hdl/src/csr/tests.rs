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
    let mut c: Csr<Bench<CsrBlockDefault>, 8, 8, 10> =
        Csr::new(Bench::new(CsrBlockDefault::default(), |u| &mut u.clock), 1, AxilTiming::FAST);
    eprintln!("build {:?}", t.elapsed());
    let t = std::time::Instant::now();
    c.idle(2000);
    eprintln!("idle: {:.0} cycles/s", 2000.0 / t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    let n0 = c.s.cycles();
    for i in 0..200u32 {
        c.write(regs::CFG_SCRATCH, i);
    }
    eprintln!("writes: {:.0} cycles/s", (c.s.cycles() - n0) as f64 / t.elapsed().as_secs_f64());
}
