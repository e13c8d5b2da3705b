//! Unit tests of [`MrTable`] on a small table (16 entries). The full random comparison with
//! the software rule (`ferroce_proto::host::mr::MrEntry::check`), co-simulation and the tool
//! checks are in `hdl/tests/mr_*.rs`.
use super::drive::*;
use super::*;
use crate::testbench::Bench;

type Small = MrTable<4>;

fn bench() -> Bench<Small> {
    Bench::new(Small::default(), |u| &mut u.clock)
}

fn idle() -> CycleIn {
    CycleIn::default()
}

/// Run `inputs` then idle cycles; return the responses in order with the cycle they appeared.
/// A lookup must be presented only in cycles with `req_ready` (checked).
fn run(b: &mut Bench<Small>, inputs: &[CycleIn], extra: usize) -> Vec<(usize, Response)> {
    let mut out = vec![];
    for c in 0..inputs.len() + extra {
        let i = inputs.get(c).copied().unwrap_or_default();
        let o = step(b, &i);
        assert!(
            o.ready || i.lookup.is_none(),
            "cycle {c}: lookup presented while not ready"
        );
        if let Some(r) = o.resp {
            out.push((c, r));
        }
    }
    out
}

const E: EntryFields = EntryFields {
    key8: 0x5A,
    pd: 0x12_3456,
    access: (ACCESS_LOCAL_WRITE | ACCESS_REMOTE_READ) as u8,
    va: 0x7f00_0000_1000,
    len: 0x1000,
    dma: 0x1_0000_0000,
};

fn lk(key: u32, need: u64, va: u64, len: u64) -> Lookup {
    Lookup {
        key,
        pd: E.pd,
        need: need as u8,
        va,
        len,
        remote: need & REMOTE_ANY != 0,
        tag: (va as u8) ^ 0x33,
    }
}

#[test]
fn latency_rule_and_ordering() {
    let mut b = bench();
    let key = (3 << 8) | E.key8 as u32;
    let l = lk(key, ACCESS_REMOTE_READ, E.va + 0x10, 0x20);
    // cycle 0: a lookup and the WRITE of its entry together -> the lookup sees the old (invalid)
    // entry; cycle 1: the write uses the RAMs (req_ready = 0); cycle 2: the new entry.
    let inputs = [
        CycleIn {
            lookup: Some(l),
            cmd: Some(Cmd::Write { index: 3, entry: E }),
        },
        CycleIn {
            lookup: None,
            cmd: None,
        },
        CycleIn {
            lookup: Some(l),
            cmd: None,
        },
        CycleIn {
            lookup: Some(lk(key, ACCESS_REMOTE_WRITE, E.va, 1)),
            cmd: None,
        },
        CycleIn {
            lookup: Some(lk(key, ACCESS_LOCAL_WRITE, E.va + 0xFFF, 2)),
            cmd: None,
        },
        CycleIn {
            lookup: Some(lk(key ^ 1, 0, E.va, 1)),
            cmd: None,
        },
        CycleIn {
            lookup: Some(lk((16 << 8) | 0x5A, 0, E.va, 1)),
            cmd: None,
        },
        CycleIn {
            lookup: Some(lk(0xFFFF_FFFF, ACCESS_REMOTE_WRITE, 0, 0)),
            cmd: None,
        },
        CycleIn {
            lookup: Some(Lookup {
                pd: 7,
                ..lk(key, 0, E.va, 1)
            }),
            cmd: None,
        },
    ];
    let r = run(&mut b, &inputs, 6);
    let cyc: Vec<usize> = r.iter().map(|x| x.0).collect();
    assert_eq!(cyc, [0, 2, 3, 4, 5, 6, 7, 8].map(|c| c + LATENCY as usize));
    let codes: Vec<u64> = r.iter().map(|x| x.1.code).collect();
    assert_eq!(
        codes,
        [
            CODE_INVALID,
            CODE_NONE,
            CODE_ACCESS,
            CODE_RANGE,
            CODE_KEY,
            CODE_INVALID,
            CODE_NONE,
            CODE_PD
        ]
    );
    assert!(r[1].1.ok && r[1].1.addr == E.dma + 0x10 && r[1].1.remote && r[1].1.tag == l.tag);
    assert!(r[6].1.ok && r[6].1.zero && r[6].1.addr == 0);
    assert!(r
        .iter()
        .enumerate()
        .all(|(i, x)| x.1.ok == (i == 1 || i == 6)));
}

#[test]
fn commands_busy_done_query_clear() {
    let mut b = bench();
    // WRITE: req_ready low in c + 1, busy for DRAIN_CYCLES, done in cycle c + 5
    let mut log = vec![];
    for c in 0..8 {
        let cmd = match c {
            0 => Some(Cmd::Write { index: 5, entry: E }),
            2 => Some(Cmd::Invalidate { index: 5 }), // ignored: busy (the QUERY below shows valid)
            _ => None,
        };
        let o = step(&mut b, &CycleIn { lookup: None, cmd });
        log.push((o.ready, o.busy, o.done));
    }
    assert_eq!(
        log,
        [
            (true, false, false),
            (false, true, false),
            (true, true, false),
            (true, true, false),
            (true, true, false),
            (true, false, true),
            (true, false, false),
            (true, false, false)
        ]
    );
    // QUERY: ready low in c + 1, result and done in c + 4
    let mut q = vec![];
    for c in 0..7 {
        let cmd = (c == 0).then_some(Cmd::Query { index: 5 });
        let o = step(
            &mut b,
            &CycleIn {
                lookup: Some(lk(0, 0, 0, 1)),
                cmd,
            },
        );
        q.push((o.ready, o.busy, o.done));
        if c == 4 {
            assert_eq!(
                o.query,
                QueryOut {
                    valid: true,
                    entry: E
                }
            );
        }
    }
    assert_eq!(
        q,
        [
            (true, false, false),
            (false, true, false),
            (true, true, false),
            (true, true, false),
            (true, false, true),
            (true, false, false),
            (true, false, false)
        ]
    );
    // INVALIDATE keeps the fields; QUERY shows valid = 0
    step(
        &mut b,
        &CycleIn {
            lookup: None,
            cmd: Some(Cmd::Invalidate { index: 5 }),
        },
    );
    for _ in 0..LATENCY {
        step(&mut b, &idle());
    }
    step(
        &mut b,
        &CycleIn {
            lookup: None,
            cmd: Some(Cmd::Query { index: 5 }),
        },
    );
    for _ in 0..3 {
        step(&mut b, &idle());
    }
    let o = step(&mut b, &idle());
    assert!(o.done);
    assert_eq!(
        o.query,
        QueryOut {
            valid: false,
            entry: E
        }
    );
    // CLEAR: 16 cycles, lookups answered invalid meanwhile, done at c + 17
    step(
        &mut b,
        &CycleIn {
            lookup: None,
            cmd: Some(Cmd::Write { index: 9, entry: E }),
        },
    );
    for _ in 0..LATENCY {
        step(&mut b, &idle());
    }
    let key9 = (9 << 8) | E.key8 as u32;
    let mut dones = vec![];
    let mut oks = vec![];
    for c in 0..24 {
        let cmd = (c == 0).then_some(Cmd::Clear);
        let o = step(
            &mut b,
            &CycleIn {
                lookup: Some(lk(key9, 0, E.va, 1)),
                cmd,
            },
        );
        if o.done {
            dones.push(c);
        }
        if let Some(r) = o.resp {
            oks.push(r.ok);
        }
    }
    assert_eq!(dones, [17]);
    // lookups of cycles 0 (before the clear) .. 18 answered in 5 .. 23
    let expect: Vec<bool> = (0..19).map(|c| c == 0).collect();
    assert_eq!(oks, expect);
}

/// Synthesis check beside the block: the emitted Verilog of the default 1024-entry build
/// passes Yosys's front end (`read; hierarchy -check; proc`, no latches). The full
/// synth_ecp5/synth_xilinx runs with resource counts are in `hdl/tests/mr_tools.rs`.
#[test]
fn mr_table_synthesises() {
    use rust_hdl::prelude::*;
    let mut uut = MrTable1k::default();
    uut.connect_all();
    ferroce_testkit::yosys_check("mr_table", &generate_verilog(&uut));
}
