//! Property test: random mixes of valid, mutated, truncated, extended and garbage frames, random
//! configuration and random valid/ready gaps. Whatever arrives, RxParser gives every frame
//! exactly the model's verdict, releases exactly the model's descriptors and payloads, counts
//! exactly, and never hangs.
use ferroce_hdl::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::rx::harness::{check, known_opcodes, random_roce_frame, run, FrameOpts, Shaping};
use ferroce_hdl::rx::model::RxConfig;
use ferroce_hdl::rx::RxParser64;
use ferroce_hdl::testbench::{Bench, Rng};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Mutation {
    None,
    Flip(usize, u8),
    Truncate(usize),
    Extend(usize),
    SetByte(usize, u8),
    Garbage(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => Just(Mutation::None),
        2 => (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        2 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (1usize..20).prop_map(Mutation::Extend),
        2 => (0usize..80, any::<u8>()).prop_map(|(p, v)| Mutation::SetByte(p, v)),
        1 => (1usize..120).prop_map(Mutation::Garbage),
    ]
}

fn frame(seed: u64, m: &Mutation) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let ops = known_opcodes();
    let op = ops[rng.below(ops.len() as u64) as usize];
    let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][rng.below(3) as usize];
    let mut f = random_roce_frame(
        &mut rng,
        op,
        l3,
        &FrameOpts {
            max_payload: 300,
            ..Default::default()
        },
    );
    match *m {
        Mutation::None => {}
        Mutation::Flip(p, b) => {
            let p = p % f.len();
            f[p] ^= 1 << b;
        }
        Mutation::Truncate(n) => f.truncate(1 + n % f.len()),
        Mutation::Extend(n) => f.extend(rng.bytes(n)),
        Mutation::SetByte(p, v) => {
            let p = p % f.len();
            f[p] = v;
        }
        Mutation::Garbage(n) => f = rng.bytes(n),
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, max_shrink_iters: 50, ..ProptestConfig::default() })]
    #[test]
    fn rx_parser_matches_model(
        frames in prop::collection::vec((any::<u64>(), mutation()), 1..12),
        promisc in any::<bool>(),
        max_frame in prop_oneof![Just(4209usize), 60usize..400],
        gap in 0u32..50,
        hstall in 0u32..50,
        pstall in 0u32..50,
        seed in any::<u64>(),
    ) {
        let frames: Vec<Vec<u8>> = frames.iter().map(|(s, m)| frame(*s, m)).collect();
        let cfg = RxConfig { promisc, max_frame, ..RxConfig::default() };
        let mut b = Bench::new(RxParser64::default(), |u| &mut u.clock);
        let r = run(&mut b, &frames, &cfg, Shaping { gap_percent: gap, hdr_stall_percent: hstall, pay_stall_percent: pstall, seed });
        prop_assert_eq!(check(&frames, &cfg, RxParser64::hard_max_frame(), &r), Ok(()));
    }
}
