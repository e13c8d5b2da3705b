//! The same RxParser at other datapath widths (it is generic over the beat width): 512-bit
//! ("full" profile, 64-byte beats, the whole header window in two beats) and 128-bit. Random
//! frames of every opcode and L3 kind plus malformed ones, checked against the reference model.
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{check, known_opcodes, random_roce_frame, run, FrameOpts, Shaping};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::RxParser;
use ferroce_hdl::testbench::{Bench, Rng};

fn frames(seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    let opts = FrameOpts {
        max_payload: 700,
        ..Default::default()
    };
    let mut v = vec![];
    for op in known_opcodes() {
        let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][rng.below(3) as usize];
        let mut f = random_roce_frame(&mut rng, op, l3, &opts);
        match rng.below(6) {
            0 => {
                let p = rng.range(0, f.len() - 1);
                f[p] ^= 1 << rng.below(8);
            }
            1 => {
                let n = rng.range(1, f.len());
                f.truncate(n);
            }
            _ => {}
        }
        v.push(f);
    }
    v
}

fn go<const B: usize, const K: usize, const A: usize>(seed: u64) {
    let cfg = RxConfig::default();
    let f = frames(seed);
    for (i, sh) in [(0, 0, 0), (30, 30, 30)].iter().enumerate() {
        let mut b = Bench::new(RxParser::<B, K, A>::default(), |u| &mut u.clock);
        let r = run(
            &mut b,
            &f,
            &cfg,
            Shaping {
                gap_percent: sh.0,
                hdr_stall_percent: sh.1,
                pay_stall_percent: sh.2,
                seed: i as u64,
            },
        );
        check(&f, &cfg, RxParser::<B, K, A>::hard_max_frame(), &r).unwrap();
        if i == 0 {
            let beats: u64 = f.iter().map(|x| x.len().div_ceil(K) as u64).sum();
            eprintln!(
                "{B}-bit: {} frames, {beats} beats, last input beat at cycle {}, max stall {}",
                f.len(),
                r.last_in_cycle,
                r.max_in_stall
            );
        }
    }
}

#[test]
fn rx_parser_512_bit() {
    go::<512, 64, 8>(1);
}

#[test]
fn rx_parser_128_bit() {
    go::<128, 16, 10>(2);
}
