//! Every verb the NIC executes (WRITE, WRITE with immediate, SEND, SEND with immediate,
//! compare-and-swap, fetch-and-add, READ) over a lossy link at 0.1 %, 1 % and 5 % frame loss, with duplication, reordering and corruption
//! mixed in, 16 QPs, 10^4 messages in all, on the Verilator model of the emitted Verilog: every
//! message delivered exactly once, in order and byte-exact (checked by `run_scenario_with`:
//! data at the receiver, guard bytes after every destination, send and receive completions
//! with their wr_id order, opcode, byte_len and imm; every atomic's original value, one serial
//! order of all fetch-adds on a host summing exactly, compare-swap words as their QP left them:
//! a duplicate executed twice or a lost one breaks the sum; every READ's bytes at its
//! requester), no QP failing, and the run's watchdog failing any run that stops making
//! progress.
use ferroce_sim::cmd::verbs::{run_scenario_with, Engine, VerbsArgs, VerbsLinkArgs};
use ferroce_testkit::require_tool;

const SIZES: [&str; 6] = ["0", "1", "1023", "1024", "1025", "4096"];

/// The three loss rates and their message counts: 10^4 messages in all.
const RUNS: [(f64, usize); 3] = [(0.001, 4000), (0.01, 3500), (0.05, 2500)];
const _: () = assert!(RUNS[0].1 + RUNS[1].1 + RUNS[2].1 >= 10_000);

// One test per loss rate (the same runs as one loop over `RUNS`): each is a minute of one core,
// and separate tests run side by side.
#[test]
fn every_verb_survives_loss_duplication_reordering_and_corruption_at_0_1_percent() {
    survives(0);
}

#[test]
fn every_verb_survives_loss_duplication_reordering_and_corruption_at_1_percent() {
    survives(1);
}

#[test]
fn every_verb_survives_loss_duplication_reordering_and_corruption_at_5_percent() {
    survives(2);
}

fn survives(k: usize) {
    if !require_tool("verilator") {
        return;
    }
    let (loss, messages) = RUNS[k];
    let args = VerbsArgs {
        ops: [
            "write",
            "write_imm",
            "send",
            "send_imm",
            "atomic_cas",
            "atomic_fadd",
            "read",
        ]
        .map(String::from)
        .to_vec(),
        sizes: SIZES.iter().map(|s| s.to_string()).collect(),
        qps: 16,
        messages,
        seed: 500 + k as u64,
        pmtu: 1024,
        pcap: None,
        json: false,
        dma_jitter: false,
        ipv6: false,
        vlan: None,
    };
    let link = VerbsLinkArgs {
        loss,
        dup: 0.005,
        reorder: 0.005,
        corrupt: 0.005,
        timeout: Some(6),
        ..VerbsLinkArgs::default()
    };
    let r = run_scenario_with(&args, &link, Engine::Verilator).unwrap();
    // a WRITE, a READ and the atomics complete at the sender only, the others at both ends
    // (the operation of the j-th message of a direction is ops[(j / sizes) % 7])
    let per_dir = (messages / 2) as u64;
    let receiving = (0..per_dir)
        .filter(|j| (1..=3).contains(&((j / SIZES.len() as u64) % 7)))
        .count() as u64;
    assert!(
        r.failed == 0
            && r.verified == messages as u64
            && r.completions == messages as u64 + 2 * receiving
            && r.errors.is_empty(),
        "loss {loss}: {r:?}"
    );
    assert_eq!(r.retry_exceeded, [0, 0], "loss {loss}: {r:?}");
    // the faults really happened, and the NICs really recovered from them
    for (d, s) in r.link.iter().enumerate() {
        assert!(
            s.dropped > 0 && s.corrupted > 0 && s.duplicated > 0 && s.reordered > 0,
            "loss {loss}, direction {d}: {s:?}"
        );
    }
    for side in 0..2 {
        assert!(r.retransmitted[side] > 0, "loss {loss}: {r:?}");
    }
    assert!(r.timeouts[0] + r.timeouts[1] > 0, "loss {loss}: {r:?}");
}
