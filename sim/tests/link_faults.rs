//! The fault model of the simulated link ([`FaultyLink`]): a perfect link delivers every frame
//! the next cycle in order; loss, duplication, reordering and corruption happen at their rates
//! (tight bounds over 100 000 frames); the same seed gives the same link, another seed another;
//! reordering swaps neighbours; corruption flips exactly one bit; nothing disappears except by
//! loss; bad rates are refused.
//!
//! Then two NICs (the Verilator model) over a faulty link through `ferroce verbs`: every message
//! still arrives intact, exactly once, in order; the link's counters add up; the run is
//! deterministic; the command line refuses bad values and reports what happened.
use ferroce_sim::cmd::verbs::{
    ack_timeout_cycles, auto_timeout, run_scenario, run_scenario_with, watchdog_cycles, Engine,
    VerbsArgs, VerbsLinkArgs, VerbsReport,
};
use ferroce_sim::link_faults::{FaultyLink, LinkFaults, LinkStats, REORDER_HOLD_LIMIT};
use ferroce_testkit::require_tool;
use std::process::Command;

const N: u64 = 100_000;

/// Frame `n`: its number in the first 8 bytes, then a pattern, 60 to 99 bytes long.
fn frame(n: u64) -> Vec<u8> {
    let len = 60 + (n % 40) as usize;
    let mut f: Vec<u8> = (0..len)
        .map(|i| (i as u8).wrapping_mul(37) ^ 0x5A)
        .collect();
    f[..8].copy_from_slice(&n.to_le_bytes());
    f
}

fn number(f: &[u8]) -> u64 {
    u64::from_le_bytes(f[..8].try_into().unwrap())
}

/// Send `n` frames, one every `gap` cycles, delivering every cycle; then drain. Returns every
/// delivered frame with its delivery cycle.
fn run(link: &mut FaultyLink, n: u64, gap: u64) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut cycle = 0;
    for i in 0..n {
        link.send(cycle, frame(i));
        for _ in 0..gap {
            cycle += 1;
            out.extend(link.deliver(cycle).into_iter().map(|f| (cycle, f)));
        }
    }
    while link.in_flight() > 0 {
        cycle += 1;
        out.extend(link.deliver(cycle).into_iter().map(|f| (cycle, f)));
        assert!(cycle < n * gap + 1_000_000, "the link never drains");
    }
    out
}

fn faults(f: impl FnOnce(&mut LinkFaults)) -> LinkFaults {
    let mut l = LinkFaults {
        seed: 7,
        ..LinkFaults::default()
    };
    f(&mut l);
    l.validate().unwrap();
    l
}

fn within(what: &str, got: u64, n: u64, lo: f64, hi: f64) {
    let r = got as f64 / n as f64;
    assert!(
        (lo..=hi).contains(&r),
        "{what}: {got} of {n} = {r}, expected {lo}..={hi}"
    );
}

#[test]
fn perfect_link_delivers_everything_next_cycle_in_order() {
    let mut link = FaultyLink::new(LinkFaults::default(), 0);
    assert!(LinkFaults::default().is_perfect());
    let mut cycle = 100;
    for i in 0..1000u64 {
        // 0 to 3 frames in one cycle
        let burst = i % 4;
        for k in 0..burst {
            link.send(cycle, frame(i * 4 + k));
        }
        cycle += 1;
        let got = link.deliver(cycle);
        let want: Vec<_> = (0..burst).map(|k| frame(i * 4 + k)).collect();
        assert_eq!(got, want, "cycle {cycle}");
    }
    let s = link.stats();
    assert_eq!(
        s,
        LinkStats {
            sent: 1500,
            delivered: 1500,
            ..LinkStats::default()
        }
    );
    // not before the next cycle
    link.send(cycle, frame(0));
    assert!(link.deliver(cycle).is_empty());
    assert_eq!(link.deliver(cycle + 1), vec![frame(0)]);
}

#[test]
fn loss_rate_and_nothing_else_lost() {
    let mut link = FaultyLink::new(faults(|f| f.loss = 0.05), 0);
    let out = run(&mut link, N, 1);
    let s = link.stats();
    within("dropped", s.dropped, N, 0.045, 0.055);
    assert_eq!(s.sent, N);
    assert_eq!(s.delivered, N - s.dropped);
    assert_eq!(out.len() as u64, s.delivered);
    // the survivors in order, untouched
    let nums: Vec<u64> = out.iter().map(|(_, f)| number(f)).collect();
    assert!(nums.windows(2).all(|w| w[0] < w[1]));
    assert!(out.iter().all(|(_, f)| *f == frame(number(f))));
    assert_eq!((s.corrupted, s.duplicated, s.reordered), (0, 0, 0));
}

#[test]
fn duplication_rate_copies_identical_and_a_little_later() {
    let mut link = FaultyLink::new(faults(|f| f.dup = 0.02), 0);
    let out = run(&mut link, N, 3);
    let s = link.stats();
    within("duplicated", s.duplicated, N, 0.018, 0.022);
    assert_eq!(s.delivered, N + s.duplicated);
    let mut count = vec![0u32; N as usize];
    let mut first = vec![u64::MAX; N as usize];
    for (c, f) in &out {
        let n = number(f) as usize;
        assert_eq!(*f, frame(n as u64));
        count[n] += 1;
        if first[n] == u64::MAX {
            first[n] = *c;
        } else {
            assert!(*c > first[n], "the copy of {n} is not later");
        }
    }
    assert!(count.iter().all(|c| *c == 1 || *c == 2));
    assert_eq!(
        count.iter().filter(|c| **c == 2).count() as u64,
        s.duplicated
    );
}

#[test]
fn corruption_rate_flips_exactly_one_bit() {
    let mut link = FaultyLink::new(faults(|f| f.corrupt = 0.1), 1);
    let out = run(&mut link, N, 1);
    let s = link.stats();
    within("corrupted", s.corrupted, N, 0.095, 0.105);
    assert_eq!(s.delivered, N);
    let mut flipped = 0;
    let mut positions = std::collections::BTreeSet::new();
    for (i, (_, f)) in out.iter().enumerate() {
        // in order (no reordering), so the frame number is the index even if its bit flipped
        let want = frame(i as u64);
        assert_eq!(f.len(), want.len());
        let bits: u32 = f.iter().zip(&want).map(|(a, b)| (a ^ b).count_ones()).sum();
        assert!(bits <= 1, "frame {i}: {bits} bits differ");
        if bits == 1 {
            flipped += 1;
            let byte = f.iter().zip(&want).position(|(a, b)| a != b).unwrap();
            positions.insert(byte * 8 + (f[byte] ^ want[byte]).trailing_zeros() as usize);
        }
    }
    assert_eq!(flipped, s.corrupted);
    // anywhere in the frame: headers and tail both hit
    assert!(positions.iter().any(|p| *p < 64));
    assert!(positions.iter().any(|p| *p >= 90 * 8));
    assert!(positions.len() > 500);
}

#[test]
fn reordering_swaps_neighbours() {
    let r = 0.05;
    let mut link = FaultyLink::new(faults(|f| f.reorder = r), 0);
    let out = run(&mut link, N, 2);
    let s = link.stats();
    // a frame that overtakes a held one is not held itself: r / (1 + r) of all frames
    let p = r / (1.0 + r);
    within("reordered", s.reordered, N, p * 0.9, p * 1.1);
    assert_eq!(s.delivered, N);
    let nums: Vec<u64> = out.iter().map(|(_, f)| number(f)).collect();
    let mut i = 0;
    let mut swaps = 0;
    while i < nums.len() {
        if nums[i] == i as u64 {
            i += 1;
        } else {
            // a swap of two neighbours, nothing else
            assert_eq!(
                (nums[i], nums[i + 1]),
                (i as u64 + 1, i as u64),
                "at {i}: {:?}",
                &nums[i..(i + 4).min(nums.len())]
            );
            swaps += 1;
            i += 2;
        }
    }
    assert_eq!(swaps, s.reordered);
}

#[test]
fn held_frame_without_successor_is_delivered_anyway() {
    let mut link = FaultyLink::new(faults(|f| f.reorder = 1.0), 0);
    link.send(10, frame(1));
    assert!(link.deliver(11).is_empty());
    assert!(link.deliver(10 + REORDER_HOLD_LIMIT - 1).is_empty());
    assert_eq!(link.deliver(10 + REORDER_HOLD_LIMIT), vec![frame(1)]);
    // with a successor: swapped
    link.send(5000, frame(2));
    link.send(5001, frame(3));
    assert_eq!(link.deliver(5002), vec![frame(3), frame(2)]);
    let s = link.stats();
    assert_eq!((s.sent, s.delivered, s.reordered), (3, 3, 1));
}

#[test]
fn delay_keeps_order_and_stays_within_bounds() {
    let delay = 50;
    let mut link = FaultyLink::new(faults(|f| f.delay = delay), 0);
    let mut sent_at = Vec::new();
    let mut out = Vec::new();
    let mut cycle = 0u64;
    for i in 0..N {
        sent_at.push(cycle);
        link.send(cycle, frame(i));
        // sometimes several frames in one cycle
        if i % 3 != 0 {
            cycle += 1;
        }
        out.extend(link.deliver(cycle).into_iter().map(|f| (cycle, f)));
    }
    while link.in_flight() > 0 {
        cycle += 1;
        out.extend(link.deliver(cycle).into_iter().map(|f| (cycle, f)));
    }
    assert_eq!(out.len() as u64, N);
    let mut late = 0u64;
    for (i, (c, f)) in out.iter().enumerate() {
        assert_eq!(number(f), i as u64, "out of order");
        let d = c - sent_at[i];
        assert!(d >= 1, "frame {i} arrived in the cycle it was sent");
        // within its own delay, or right behind the frame ahead of it
        assert!(
            d <= 1 + delay || (i > 0 && *c == out[i - 1].0),
            "frame {i}: {d} cycles late"
        );
        late += (d > 1) as u64;
    }
    // most frames are delayed some
    assert!(late > N / 2, "{late}");
}

#[test]
fn same_seed_same_link_other_seed_other_link() {
    let all = |seed| LinkFaults {
        loss: 0.03,
        dup: 0.03,
        reorder: 0.03,
        corrupt: 0.03,
        delay: 20,
        ecn_mark: 0.0,
        seed,
    };
    let go = |f: LinkFaults, dir: u64| {
        let mut l = FaultyLink::new(f, dir);
        let out = run(&mut l, 20_000, 2);
        (out, l.stats())
    };
    let a = go(all(1), 0);
    assert_eq!(a, go(all(1), 0));
    assert_ne!(a.0, go(all(2), 0).0);
    // the two directions of one link draw different streams
    assert_ne!(a.0, go(all(1), 1).0);
    // every fault happened, and frames are only ever lost by loss
    let s = a.1;
    assert!(s.dropped > 0 && s.duplicated > 0 && s.reordered > 0 && s.corrupted > 0);
    assert_eq!(s.delivered, s.sent - s.dropped + s.duplicated);
}

#[test]
fn one_seed_same_losses_whatever_the_other_rates() {
    // every frame draws the same numbers: adding other faults does not change which are lost
    let lost = |f: LinkFaults| {
        let mut l = FaultyLink::new(f, 0);
        let out = run(&mut l, 5000, 1);
        let mut got: Vec<u64> = out.iter().map(|(_, f)| number(f)).collect();
        got.sort_unstable();
        got.dedup();
        got
    };
    let base = faults(|f| f.loss = 0.1);
    let more = faults(|f| {
        f.loss = 0.1;
        f.dup = 0.2;
        f.reorder = 0.2;
        f.delay = 9;
    });
    assert_eq!(lost(base), lost(more));
}

#[test]
fn validate_refuses_rates_outside_zero_to_one() {
    for (f, name) in [
        (faults(|_| {}), ""),
        (
            LinkFaults {
                loss: 1.5,
                ..LinkFaults::default()
            },
            "loss",
        ),
        (
            LinkFaults {
                dup: f64::NAN,
                ..LinkFaults::default()
            },
            "dup",
        ),
        (
            LinkFaults {
                reorder: -0.1,
                ..LinkFaults::default()
            },
            "reorder",
        ),
        (
            LinkFaults {
                corrupt: f64::INFINITY,
                ..LinkFaults::default()
            },
            "corrupt",
        ),
    ] {
        match f.validate() {
            Ok(()) => assert!(name.is_empty(), "{f:?} accepted"),
            Err(e) => {
                assert!(!name.is_empty(), "{f:?}: {e}");
                assert!(e.contains(name) && e.contains("between 0 and 1"), "{e}");
            }
        }
    }
    assert!(LinkFaults {
        loss: 1.0,
        ..LinkFaults::default()
    }
    .validate()
    .is_ok());
    assert!(!LinkFaults {
        delay: 1,
        ..LinkFaults::default()
    }
    .is_perfect());
}

#[test]
fn total_loss_and_certain_faults() {
    let mut l = FaultyLink::new(faults(|f| f.loss = 1.0), 0);
    assert!(run(&mut l, 1000, 1).is_empty());
    assert_eq!(l.stats().dropped, 1000);
    let mut l = FaultyLink::new(faults(|f| f.dup = 1.0), 0);
    assert_eq!(run(&mut l, 1000, 1).len(), 2000);
    let mut l = FaultyLink::new(faults(|f| f.corrupt = 1.0), 0);
    let out = run(&mut l, 1000, 1);
    assert!(out
        .iter()
        .enumerate()
        .all(|(i, (_, f))| *f != frame(i as u64)));
}

#[test]
fn timeout_and_watchdog_from_the_options() {
    // 4.096 us x 2^t at 250 MHz: 1024 cycles << t
    assert_eq!(ack_timeout_cycles(0), None);
    assert_eq!(ack_timeout_cycles(6), Some(65_536));
    assert_eq!(ack_timeout_cycles(14), Some(16_777_216));
    assert_eq!(auto_timeout(1, 65536), 6);
    assert_eq!(auto_timeout(1, 0), 6);
    assert_eq!(auto_timeout(16, 65536), 9);
    assert_eq!(auto_timeout(64, 16 << 20), 19);
    let link = VerbsLinkArgs::default();
    // the fixed watchdog when timeouts are short
    assert_eq!(watchdog_cycles(&link, 6), 4_000_000);
    assert_eq!(watchdog_cycles(&link, 0), 4_000_000);
    // longer than every try of a message (retry_cnt + 1 timeouts), with room to spare
    for (t, retries) in [(9, 7), (14, 7), (14, 0), (20, 3)] {
        let l = VerbsLinkArgs {
            retry_cnt: retries,
            ..VerbsLinkArgs::default()
        };
        let all_tries = ack_timeout_cycles(t).unwrap() * (retries as u64 + 1);
        assert!(watchdog_cycles(&l, t) >= 2 * all_tries, "{t} {retries}");
    }
    let l = VerbsLinkArgs {
        delay: 1000,
        reorder: 0.1,
        ..VerbsLinkArgs::default()
    };
    assert!(watchdog_cycles(&l, 6) >= 4_000_000 + 1000 + REORDER_HOLD_LIMIT);
}

fn verbs_args(seed: u64) -> VerbsArgs {
    VerbsArgs {
        ops: ["write", "write_imm", "send", "send_imm"]
            .map(String::from)
            .to_vec(),
        sizes: ["0", "1", "300", "1024", "3000"].map(String::from).to_vec(),
        qps: 2,
        messages: 40,
        seed,
        pmtu: 256,
        ..VerbsArgs::default()
    }
}

/// Every message verified, every completion there once (a WRITE completes at the sender only,
/// the others at both ends).
fn assert_all_delivered(r: &VerbsReport, a: &VerbsArgs) {
    let per_dir = a.messages as u64 / 2;
    let sizes = a.sizes.len() as u64;
    let receiving = (0..per_dir)
        .filter(|j| !(j / sizes).is_multiple_of(4))
        .count() as u64;
    assert!(
        r.failed == 0
            && r.verified == a.messages as u64
            && r.completions == a.messages as u64 + 2 * receiving,
        "{r:?}"
    );
}

/// Each direction's counters add up: every frame sent went through the link and was delivered
/// (copies included), dropped, or is still in the link when the run stops (a windowed
/// requester may finish with a late duplicate or a re-sent frame on its way).
fn assert_link_adds_up(r: &VerbsReport) {
    for d in 0..2 {
        let l = r.link[d];
        assert_eq!(l.sent, r.frames[d], "direction {d}: {l:?}");
        assert_eq!(
            l.delivered + l.in_flight,
            l.sent - l.dropped + l.duplicated,
            "direction {d}: {l:?}"
        );
    }
}

#[test]
fn verbs_over_a_perfect_link() {
    if !require_tool("verilator") {
        return;
    }
    let a = verbs_args(3);
    let r = run_scenario_with(&a, &VerbsLinkArgs::default(), Engine::Verilator).unwrap();
    assert_all_delivered(&r, &a);
    assert_link_adds_up(&r);
    for l in r.link {
        assert_eq!(
            l,
            LinkStats {
                sent: l.sent,
                delivered: l.sent,
                ..LinkStats::default()
            }
        );
    }
    assert_eq!(r.timeout, 6);
    assert_eq!(
        (r.retransmitted, r.timeouts, r.retry_exceeded, r.naks),
        ([0; 2], [0; 2], [0; 2], [0; 2])
    );
    // run_scenario is the same run
    let plain = run_scenario(&a, Engine::Verilator).unwrap();
    assert_eq!(
        (plain.cycles, plain.frames, plain.link),
        (r.cycles, r.frames, r.link)
    );
}

/// Loss, duplication, reordering, bit errors and delay at once, on both directions: the NICs
/// recover (sequence NAKs, ACK timeouts, duplicates re-ACKed and not executed again) and every
/// message arrives intact, exactly once, in order, with the same checks as on a perfect link.
/// The same seed gives the same run, cycle for cycle.
#[test]
fn verbs_survive_every_fault_deterministically() {
    if !require_tool("verilator") {
        return;
    }
    let a = verbs_args(9);
    let link = VerbsLinkArgs {
        loss: 0.03,
        dup: 0.03,
        reorder: 0.03,
        corrupt: 0.03,
        delay: 20,
        ..VerbsLinkArgs::default()
    };
    let r = run_scenario_with(&a, &link, Engine::Verilator).unwrap();
    assert_all_delivered(&r, &a);
    assert_link_adds_up(&r);
    let total = |f: fn(&LinkStats) -> u64| f(&r.link[0]) + f(&r.link[1]);
    assert!(
        total(|l| l.dropped) > 0
            && total(|l| l.duplicated) > 0
            && total(|l| l.reordered) > 0
            && total(|l| l.corrupted) > 0,
        "{:?}",
        r.link
    );
    // lost and corrupted request packets were sent again
    assert!(r.retransmitted.iter().sum::<u64>() > 0, "{r:?}");
    assert_eq!(r.retry_exceeded, [0, 0]);
    let again = run_scenario_with(&a, &link, Engine::Verilator).unwrap();
    assert_eq!(
        (again.cycles, again.frames, again.link, again.retransmitted),
        (r.cycles, r.frames, r.link, r.retransmitted)
    );
    // another seed, another run
    let other = run_scenario_with(&verbs_args(10), &link, Engine::Verilator).unwrap();
    assert_all_delivered(&other, &verbs_args(10));
    assert_ne!(other.link, r.link);
}

#[test]
fn cli_fault_options_and_summary() {
    if !require_tool("verilator") {
        return;
    }
    let verbs = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ferroce"))
            .args(["verbs", "--sizes", "0,700,3000", "--messages", "10"])
            .args(["--pmtu", "512", "--seed", "4"])
            .args(extra)
            .output()
            .unwrap()
    };
    for (bad, why) in [
        (
            vec!["--loss", "1.5"],
            "--loss must be a fraction between 0 and 1, got 1.5",
        ),
        (
            vec!["--dup=-0.1"],
            "--dup must be a fraction between 0 and 1",
        ),
        (vec!["--reorder", "NaN"], "--reorder must be a fraction"),
        (vec!["--corrupt", "lots"], "--corrupt must be a fraction"),
        (vec!["--timeout", "32"], "--timeout must be 0..=31, got 32"),
        (vec!["--retry-cnt", "8"], "--retry-cnt must be 0..=7, got 8"),
        (vec!["--rnr-retry", "9"], "--rnr-retry must be 0..=7, got 9"),
        (vec!["--delay=-3"], "--delay"),
    ] {
        let out = verbs(&bad);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad:?} succeeded");
        assert!(err.contains(why), "{bad:?}: {err}");
    }

    let out = verbs(&[
        "--loss",
        "0.05",
        "--corrupt",
        "0.02",
        "--dup",
        "0.02",
        "--retry-cnt",
        "6",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["verified"].as_u64(), v["failed"].as_u64()),
        (Some(10), Some(0))
    );
    for key in [
        "retransmitted_packets",
        "naks",
        "timeouts",
        "retry_exceeded",
    ] {
        for side in ["a", "b"] {
            assert!(v[key][side].is_u64(), "{key}: {v}");
        }
    }
    for dir in ["a_to_b", "b_to_a"] {
        for key in [
            "dropped",
            "corrupted",
            "duplicated",
            "reordered",
            "delivered",
        ] {
            assert!(v["link"][dir][key].is_u64(), "{dir} {key}: {v}");
        }
        assert!(v["link"][dir]["delivered"].as_u64().unwrap() > 0);
    }
    assert_eq!(v["transport"]["timeout"], 6);
    assert_eq!(v["transport"]["retry_cnt"], 6);
    assert_eq!(v["transport"]["rnr_retry"], 7);

    // the human-readable summary: one more line with faults, none without
    let text = |extra: &[&str]| String::from_utf8(verbs(extra).stdout).unwrap();
    let with = text(&["--delay", "10", "--timeout", "7"]);
    assert!(
        with.contains("link A->B:") && with.contains("ACK timeouts"),
        "{with}"
    );
    assert!(!text(&[]).contains("link A->B:"));
}
