//! Block tests of the requester's parts: the in-flight table and the retirement model; the
//! synthesis smoke tests. (The stream packer's tests are in `crate::widget`; the requester
//! itself is tested through the whole NIC: `sim/tests/cli_verbs.rs`.)
use super::inflight::InflightSlot;
use super::*;
use crate::testbench::{Bench, Rng, Stepper};

#[test]
fn requester_synthesizes() {
    crate::csr::synth_check(&mut RcRequester::<8, 12>::default(), "requester");
}

/// The in-flight table against a model: random writes and reads, a read's row one cycle after
/// its address (block RAM), a write visible to reads from the next cycle.
#[test]
fn inflight_table_reads_back_what_was_written() {
    use super::inflight::InflightTable;
    let mut bench = Bench::new(InflightTable::<6>::default(), |u| &mut u.clock);
    let mut rng = Rng::new(5);
    let mut model = vec![InflightSlot::default(); 64];
    let mut expect: Option<InflightSlot> = None;
    for cycle in 0..4000 {
        let ra = rng.below(64) as usize;
        let wa = rng.below(64) as usize;
        // (the requester never uses a row read in the cycle it is written)
        let write = rng.percent(40) && wa != ra;
        let row = InflightSlot {
            last_psn: (rng.below(1 << 24)).into(),
            wr_id: rng.next_u64().into(),
            opcode: (rng.below(5)).into(),
            signaled: rng.percent(50),
        };
        {
            let u = bench.uut();
            u.rd_addr.next = (ra as u64).into();
            u.wr_en.next = write;
            u.wr_addr.next = (wa as u64).into();
            u.wr_data.next = row;
        }
        bench.settle();
        if let Some(e) = expect {
            assert_eq!(bench.uut().rd_data.val(), e, "cycle {cycle}");
        }
        // the row read this cycle, as it is before this cycle's write
        expect = Some(model[ra]);
        bench.tick();
        if write {
            model[wa] = row;
        }
    }
}

/// Cumulative retirement as specified (hand-worked cases): rows `(last PSN, kind)`.
#[test]
fn retirement_model_cases() {
    use super::inflight::retire_model;
    // three WRITEs: PSNs 10..=12, 13..=15, 16
    let rows = [(12, 1), (15, 1), (16, 0)];
    assert_eq!(retire_model(&rows, 10, 9, true), 0, "before the window");
    assert_eq!(retire_model(&rows, 10, 11, true), 0, "inside the first");
    assert_eq!(retire_model(&rows, 10, 12, true), 1);
    assert_eq!(retire_model(&rows, 10, 15, true), 2);
    assert_eq!(retire_model(&rows, 10, 16, true), 3);
    assert_eq!(retire_model(&rows, 10, 17, true), 0, "beyond the window");
    // a NAK acknowledges the PSNs before its own
    assert_eq!(retire_model(&rows, 10, 13, false), 1);
    assert_eq!(retire_model(&rows, 10, 12, false), 0);
    assert_eq!(retire_model(&rows, 10, 16, false), 2);
    // a READ stops the walk
    assert_eq!(retire_model(&[(12, 1), (14, 2), (15, 1)], 10, 15, true), 1);
    // across the PSN wrap
    let rows = [(0xFF_FFFF, 1), (1, 1)];
    assert_eq!(retire_model(&rows, 0xFF_FFFE, 0, true), 1);
    assert_eq!(retire_model(&rows, 0xFF_FFFE, 1, true), 2);
}

#[test]
fn inflight_table_synthesizes() {
    crate::csr::synth_check(
        &mut super::inflight::InflightTable::<12>::default(),
        "inflight",
    );
}
