//! Directed scenarios, generic over the stepper: run on the rust-hdl bench (`mr_table`) and
//! through the co-simulation harness (`mr_cosim`), with the model (`super::Model`, verdicts from
//! `MrEntry::check`) checking every output of every cycle and hand-written expectations on top.
use super::*;
use ferroce_hdl::mr::drive::*;
use ferroce_hdl::mr::*;
use ferroce_hdl::testbench::Stepper;
use ferroce_proto::host::mr::make_key;

pub type Table = MrTable1k;

/// Drives a bench and the model in lock step; every cycle's outputs must agree.
pub struct Lockstep<S: Stepper<Table>> {
    pub s: S,
    pub m: Model,
}

impl<S: Stepper<Table>> Lockstep<S> {
    pub fn new(s: S) -> Self {
        Lockstep {
            s,
            m: Model::new(1024),
        }
    }
    pub fn cycle(&mut self, inp: CycleIn) -> CycleOut {
        let want = self.m.outputs();
        let got = step(&mut self.s, &inp);
        assert_eq!(got, want, "cycle {}: inputs {inp:?}", self.m.cycle);
        self.m.apply(&inp);
        got
    }
    pub fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.cycle(CycleIn::default());
        }
    }
    /// Issue a command and wait for its `cmd_done`.
    pub fn command(&mut self, cmd: Cmd) {
        assert!(
            !self
                .cycle(CycleIn {
                    lookup: None,
                    cmd: Some(cmd)
                })
                .busy
        );
        for _ in 0..2000 {
            if self.cycle(CycleIn::default()).done {
                return;
            }
        }
        panic!("command {cmd:?} never finished");
    }
    /// Lookups back to back (one per cycle), then their responses, checked against the model
    /// (the oracle) and against the hand-written expected codes.
    pub fn expect(&mut self, cases: &[(Lookup, u64)]) -> Vec<Response> {
        let mut got = vec![];
        let n = cases.len();
        for c in 0..n + LATENCY as usize {
            let lookup = cases.get(c).map(|x| x.0);
            if let Some(r) = self.cycle(CycleIn { lookup, cmd: None }).resp {
                got.push(r);
            }
        }
        assert_eq!(got.len(), n);
        for (i, ((l, code), r)) in cases.iter().zip(&got).enumerate() {
            assert_eq!(
                r.code,
                *code,
                "case {i}: {l:x?} -> {r:x?} (expected {})",
                code_name(*code)
            );
            assert_eq!(r.ok, *code == CODE_NONE, "case {i}");
        }
        got
    }
}

pub const SLOT: u32 = 7;
pub const BASE: u64 = 0x0000_7F00_0000_1000;
pub const LEN: u64 = 0x2000;
pub const DMA: u64 = 0x8000_0000_0000;
pub const PD: u32 = 0x00AB_CD;
pub const LW: u8 = ACCESS_LOCAL_WRITE as u8;
pub const RW: u8 = ACCESS_REMOTE_WRITE as u8;
pub const RR: u8 = ACCESS_REMOTE_READ as u8;
pub const RA: u8 = ACCESS_REMOTE_ATOMIC as u8;

pub fn entry(key8: u8, access: u8, va: u64, len: u64, dma: u64) -> EntryFields {
    EntryFields {
        key8,
        pd: PD,
        access,
        va,
        len,
        dma,
    }
}

pub fn rd(key: u32, va: u64, len: u64) -> Lookup {
    Lookup {
        key,
        pd: PD,
        need: RR,
        va,
        len,
        remote: true,
        tag: len as u8,
    }
}

pub fn edge_cases_range_and_wrap<S: Stepper<Table>>(s: S) {
    let mut t = Lockstep::new(s);
    let key = make_key(SLOT, 0x42);
    t.command(Cmd::Write {
        index: SLOT,
        entry: entry(0x42, LW | RR, BASE, LEN, DMA),
    });
    let r = t.expect(&[
        (rd(key, BASE, 1), CODE_NONE),                      // va at base
        (rd(key, BASE + LEN - 1, 1), CODE_NONE),            // last byte
        (rd(key, BASE + LEN, 1), CODE_RANGE),               // one past
        (rd(key, BASE - 1, 1), CODE_RANGE),                 // one before
        (rd(key, BASE, LEN), CODE_NONE),                    // len = length
        (rd(key, BASE, LEN + 1), CODE_RANGE),               // len = length + 1
        (rd(key, BASE + 1, LEN), CODE_RANGE),               // whole length, shifted by one
        (rd(key, BASE + LEN - 8, 8), CODE_NONE),            // last 8 bytes
        (rd(key, BASE + LEN - 7, 8), CODE_RANGE),           // crosses the end
        (rd(key, BASE + 0x10, u64::MAX - 0xF), CODE_RANGE), // va + len wraps to base
        (rd(key, u64::MAX, 2), CODE_RANGE),                 // va + len wraps to 1
        (rd(key, u64::MAX - 0xF, BASE + 0x20), CODE_RANGE), // va + len wraps into the region
        (rd(0xDEAD_BEEF, 0, 0), CODE_NONE),                 // zero length: nothing checked
        (rd(key, BASE + LEN + 5, 0), CODE_NONE),            // zero length out of range
    ]);
    assert_eq!(r[0].addr, DMA);
    assert_eq!(r[1].addr, DMA + LEN - 1);
    assert_eq!(r[4].addr, DMA);
    assert_eq!(r[7].addr, DMA + LEN - 8);
    assert!(r[12].zero && r[12].addr == 0 && r[13].zero && r[13].addr == 0);
    assert!(r.iter().enumerate().all(|(i, x)| x.zero == (i >= 12)));

    // a region that ends at the top of the address space
    let top = u64::MAX - 0xFFE; // bytes top ..= u64::MAX
    t.command(Cmd::Write {
        index: 8,
        entry: entry(1, RR, top, 0xFFF, 0x1000),
    });
    let k8 = make_key(8, 1);
    let r = t.expect(&[
        (rd(k8, u64::MAX, 1), CODE_NONE),
        (rd(k8, u64::MAX, 2), CODE_RANGE),
        (rd(k8, top, 0xFFF), CODE_NONE),
        (rd(k8, top + 0x800, u64::MAX), CODE_RANGE),
        (rd(k8, top - 1, 2), CODE_RANGE),
        (rd(k8, 0, 1), CODE_RANGE),
    ]);
    assert_eq!(r[0].addr, 0x1000 + 0xFFE);
    // length 2^64 - 1 from 0: every byte but the last
    t.command(Cmd::Write {
        index: 9,
        entry: entry(2, RR, 0, u64::MAX, 0),
    });
    let k9 = make_key(9, 2);
    let r = t.expect(&[
        (rd(k9, 0, u64::MAX), CODE_NONE),
        (rd(k9, 1, u64::MAX), CODE_RANGE),
        (rd(k9, u64::MAX - 1, 1), CODE_NONE),
        (rd(k9, u64::MAX, 1), CODE_RANGE),
        (rd(k9, 0x1234_5678_9ABC, 0x1000), CODE_NONE),
    ]);
    assert_eq!(r[4].addr, 0x1234_5678_9ABC);
    // borrows and carries across the 32-bit halves
    t.command(Cmd::Write {
        index: 10,
        entry: entry(3, RR, 0xFFFF_FFF0, 0x20, 0x0000_0001_FFFF_FFF8),
    });
    let k10 = make_key(10, 3);
    let r = t.expect(&[
        (rd(k10, 0x1_0000_0008, 8), CODE_NONE),
        (rd(k10, 0x1_0000_0010, 1), CODE_RANGE),
        (rd(k10, 0xFFFF_FFEF, 1), CODE_RANGE),
        (rd(k10, 0xFFFF_FFF0, 0x20), CODE_NONE),
        (rd(k10, 0xFFFF_FFF8, 0x10), CODE_NONE),
    ]);
    assert_eq!(r[0].addr, 0x0000_0001_FFFF_FFF8 + 0x18);
    assert_eq!(r[4].addr, 0x0000_0002_0000_0000);
    // a zero-length region refuses every non-empty access
    t.command(Cmd::Write {
        index: 11,
        entry: entry(4, RR, BASE, 0, DMA),
    });
    t.expect(&[
        (rd(make_key(11, 4), BASE, 1), CODE_RANGE),
        (rd(make_key(11, 4), BASE, 0), CODE_NONE),
    ]);
}

pub fn edge_cases_keys_pd_rights<S: Stepper<Table>>(s: S) {
    let mut t = Lockstep::new(s);
    let k42 = make_key(SLOT, 0x42);
    let k43 = make_key(SLOT, 0x43);
    t.command(Cmd::Write {
        index: SLOT,
        entry: entry(0x42, LW | RR, BASE, LEN, DMA),
    });
    t.expect(&[
        (rd(k42, BASE, 4), CODE_NONE),
        (rd(k43, BASE, 4), CODE_KEY),
        (rd(make_key(SLOT + 1, 0x42), BASE, 4), CODE_INVALID), // never written
        (rd(make_key(1024, 0x42), BASE, 4), CODE_INVALID),     // index out of the table
        (rd(make_key(1024 + SLOT, 0x42), BASE, 4), CODE_INVALID), // aliases slot 7 in the RAM
        (rd(u32::MAX, BASE, 4), CODE_INVALID),
        (
            Lookup {
                pd: PD ^ 1,
                ..rd(k42, BASE, 4)
            },
            CODE_PD,
        ),
        (
            Lookup {
                pd: PD ^ 0x80_0000,
                ..rd(k42, BASE, 4)
            },
            CODE_PD,
        ),
        (
            Lookup {
                need: RW,
                ..rd(k42, BASE, 4)
            },
            CODE_ACCESS,
        ),
        (
            Lookup {
                need: 0,
                remote: false,
                ..rd(k42, BASE, 4)
            },
            CODE_NONE,
        ), // local gather
        (
            Lookup {
                need: LW,
                remote: false,
                ..rd(k42, BASE, 4)
            },
            CODE_NONE,
        ),
        (
            Lookup {
                need: 0,
                remote: true,
                ..rd(k42, BASE, 4)
            },
            CODE_ACCESS,
        ), // remote, no right named
        (
            Lookup {
                need: LW,
                remote: true,
                ..rd(k42, BASE, 4)
            },
            CODE_ACCESS,
        ),
        (
            Lookup {
                need: LW | RR,
                remote: true,
                ..rd(k42, BASE, 4)
            },
            CODE_NONE,
        ),
        // priorities: key before PD before access before range
        (
            Lookup {
                pd: 0,
                ..rd(k43, BASE + LEN, 4)
            },
            CODE_KEY,
        ),
        (
            Lookup {
                pd: 0,
                need: RA,
                ..rd(k42, BASE + LEN, 4)
            },
            CODE_PD,
        ),
        (
            Lookup {
                need: RA,
                ..rd(k42, BASE + LEN, 4)
            },
            CODE_ACCESS,
        ),
    ]);
    // re-register with a new key8: the old key is stale
    t.command(Cmd::Write {
        index: SLOT,
        entry: entry(0x43, LW | RR, BASE, LEN, DMA),
    });
    t.expect(&[(rd(k42, BASE, 4), CODE_KEY), (rd(k43, BASE, 4), CODE_NONE)]);
    // invalidate: refused, fields kept (QUERY), valid 0; invalid beats key mismatch
    t.command(Cmd::Invalidate { index: SLOT });
    t.expect(&[
        (rd(k43, BASE, 4), CODE_INVALID),
        (rd(k42, BASE, 4), CODE_INVALID),
        (rd(k43, BASE, 0), CODE_NONE),
    ]);
    t.command(Cmd::Query { index: SLOT });
    assert_eq!(
        t.m.query,
        QueryOut {
            valid: false,
            entry: entry(0x43, LW | RR, BASE, LEN, DMA)
        }
    );
    // each right missing in turn
    for missing in [LW, RW, RR, RA] {
        let acc = 0xF & !missing;
        t.command(Cmd::Write {
            index: 12,
            entry: entry(0x99, acc, BASE, LEN, DMA),
        });
        let k = make_key(12, 0x99);
        let mut cases = vec![];
        for right in [LW, RW, RR, RA] {
            let remote = right != LW;
            let code = if right == missing {
                CODE_ACCESS
            } else {
                CODE_NONE
            };
            cases.push((
                Lookup {
                    need: right,
                    remote,
                    ..rd(k, BASE, 8)
                },
                code,
            ));
        }
        cases.push((
            Lookup {
                need: 0xF,
                remote: true,
                ..rd(k, BASE, 8)
            },
            CODE_ACCESS,
        ));
        cases.push((
            Lookup {
                need: acc,
                remote: true,
                ..rd(k, BASE, 8)
            },
            CODE_NONE,
        ));
        t.expect(&cases);
    }
    // no rights at all: only local gathers pass
    t.command(Cmd::Write {
        index: 13,
        entry: entry(0x10, 0, BASE, LEN, DMA),
    });
    let k = make_key(13, 0x10);
    t.expect(&[
        (
            Lookup {
                need: 0,
                remote: false,
                ..rd(k, BASE, 8)
            },
            CODE_NONE,
        ),
        (
            Lookup {
                need: LW,
                remote: false,
                ..rd(k, BASE, 8)
            },
            CODE_ACCESS,
        ),
        (rd(k, BASE, 8), CODE_ACCESS),
    ]);
    // the last slot and slot 0
    t.command(Cmd::Write {
        index: 1023,
        entry: entry(0xFF, RR, BASE, LEN, DMA),
    });
    t.command(Cmd::Write {
        index: 0,
        entry: entry(0x00, RR, BASE, LEN, DMA),
    });
    t.expect(&[
        (rd(make_key(1023, 0xFF), BASE, 1), CODE_NONE),
        (rd(0, BASE, 1), CODE_NONE),
        (rd(make_key(0, 1), BASE, 1), CODE_KEY),
    ]);
}

/// Lookups every cycle (pipeline full) while the entry is written, re-registered and
/// invalidated: the response flips exactly between the lookup of the command's cycle (old
/// entry) and the next one (new entry).
pub fn writes_while_pipeline_full<S: Stepper<Table>>(s: S) {
    let mut t = Lockstep::new(s);
    let k1 = make_key(SLOT, 1);
    let k2 = make_key(SLOT, 2);
    let e1 = entry(1, LW | RR, BASE, LEN, DMA);
    let e2 = entry(2, LW | RR, BASE, LEN, DMA + 0x10_0000);
    // every cycle: alternate the two keys, responses recorded with their request cycle
    let mut resp_by_req: Vec<(u64, Lookup, Response)> = vec![];
    let mut issued: std::collections::VecDeque<(u64, Lookup)> = Default::default();
    let mut cmd_cycles = vec![];
    let plan: &[(u64, Cmd)] = &[
        (
            10,
            Cmd::Write {
                index: SLOT,
                entry: e1,
            },
        ),
        (
            20,
            Cmd::Write {
                index: SLOT,
                entry: e2,
            },
        ),
        (25, Cmd::Invalidate { index: SLOT }), // the done cycle of the write: taken
        (
            30,
            Cmd::Write {
                index: SLOT,
                entry: e1,
            },
        ),
        (37, Cmd::Query { index: SLOT }),
        (
            41,
            Cmd::Write {
                index: SLOT,
                entry: e2,
            },
        ),
    ];
    for c in 0..56u64 {
        let cmd = plan.iter().find(|p| p.0 == c).map(|p| p.1);
        let l = rd(if c % 2 == 0 { k1 } else { k2 }, BASE + c, 1);
        let o = t.cycle(CycleIn {
            lookup: Some(l),
            cmd,
        });
        if cmd.is_some() {
            assert!(!o.busy, "cycle {c}: command must be taken");
            cmd_cycles.push(c);
        }
        if o.ready {
            issued.push_back((c, l));
        }
        if let Some(r) = o.resp {
            let (rc, rl) = issued.pop_front().unwrap();
            assert_eq!(rc + LATENCY, c);
            resp_by_req.push((rc, rl, r));
        }
    }
    // hand expectation: which entry each request cycle sees
    for (c, l, r) in &resp_by_req {
        let c = *c;
        let state = if c <= 10 {
            None
        } else if c <= 20 {
            Some(1)
        } else if c <= 25 {
            Some(2)
        } else if c <= 30 {
            None
        } else if c <= 41 {
            Some(1)
        } else {
            Some(2)
        };
        let want = match state {
            None => CODE_INVALID,
            Some(k) if (l.key & 0xFF) as u8 == k => CODE_NONE,
            Some(_) => CODE_KEY,
        };
        assert_eq!(r.code, want, "request of cycle {c} key {:x}", l.key);
        if r.ok {
            let dma = if state == Some(1) {
                DMA
            } else {
                DMA + 0x10_0000
            };
            assert_eq!(r.addr, dma + c);
        }
    }
    // each command took the RAMs in the cycle after its strobe: that cycle's lookup waited
    let waited: Vec<u64> = (0..56 - LATENCY)
        .filter(|c| !resp_by_req.iter().any(|x| x.0 == *c))
        .collect();
    assert_eq!(waited, [11, 21, 26, 31, 38, 42]);
}

pub fn clear_invalidates_everything<S: Stepper<Table>>(s: S) {
    let mut t = Lockstep::new(s);
    for i in [0u32, 5, 700, 1023] {
        t.command(Cmd::Write {
            index: i,
            entry: entry(i as u8, RR, BASE, LEN, DMA),
        });
    }
    t.expect(&[(rd(make_key(700, 700u32 as u8), BASE, 1), CODE_NONE)]);
    // lookups keep flowing during the clear (answered invalid) and the model checks timing
    let k = make_key(1023, 1023u32 as u8);
    t.cycle(CycleIn {
        lookup: Some(rd(k, BASE, 1)),
        cmd: Some(Cmd::Clear),
    });
    let mut done = None;
    for c in 1..1100u64 {
        let o = t.cycle(CycleIn {
            lookup: Some(rd(k, BASE, 1)),
            cmd: None,
        });
        if o.done {
            done = Some(c);
        }
    }
    assert_eq!(done, Some(1025)); // c + 2^A + 1
    t.idle(LATENCY as usize);
    for i in [0u32, 5, 700, 1023] {
        t.expect(&[(rd(make_key(i, i as u8), BASE, 1), CODE_INVALID)]);
    }
}
