//! The AXI4-Lite split (`ferroce_hdl::board::AxilSplit`): a master model (one access at a time,
//! as `UartAxil` issues them, random `valid` gaps and random `bready`/`rready`) against two
//! AXI4-Lite memory models written here (random `READY`s, AW and W taken independently, random
//! B/R latency, SLVERR for offsets with bit 20 set, which they do not write).
//!
//! Checked: each access reaches the slave that address bit 31 selects and only it, with bit 31
//! cleared and the data and strobes unchanged; read data and responses come back unchanged;
//! the payloads toward either side are held while `valid & !ready`; at the end both slave
//! memories equal the reference. On the rust-hdl block, then on the emitted Verilog
//! (Verilator) in lock step; Yosys `synth_ecp5`.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::AxilSplit;
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};
use std::collections::HashMap;

/// The pins of one master port of the split, as plain values.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct MPins {
    awaddr: u64,
    awvalid: bool,
    wdata: u64,
    wstrb: u64,
    wvalid: bool,
    bready: bool,
    araddr: u64,
    arvalid: bool,
    rready: bool,
}

fn mpins(u: &AxilSplit, i: usize) -> MPins {
    if i == 0 {
        MPins {
            awaddr: u.m0_axil_awaddr.val().to_u64(),
            awvalid: u.m0_axil_awvalid.val(),
            wdata: u.m0_axil_wdata.val().to_u64(),
            wstrb: u.m0_axil_wstrb.val().to_u64(),
            wvalid: u.m0_axil_wvalid.val(),
            bready: u.m0_axil_bready.val(),
            araddr: u.m0_axil_araddr.val().to_u64(),
            arvalid: u.m0_axil_arvalid.val(),
            rready: u.m0_axil_rready.val(),
        }
    } else {
        MPins {
            awaddr: u.m1_axil_awaddr.val().to_u64(),
            awvalid: u.m1_axil_awvalid.val(),
            wdata: u.m1_axil_wdata.val().to_u64(),
            wstrb: u.m1_axil_wstrb.val().to_u64(),
            wvalid: u.m1_axil_wvalid.val(),
            bready: u.m1_axil_bready.val(),
            araddr: u.m1_axil_araddr.val().to_u64(),
            arvalid: u.m1_axil_arvalid.val(),
            rready: u.m1_axil_rready.val(),
        }
    }
}

/// The slave's outputs: awready, wready, (bvalid, bresp), arready, (rvalid, rdata, rresp).
type SOut = (bool, bool, bool, u64, bool, bool, u64, u64);

fn set_slave(u: &mut AxilSplit, i: usize, o: SOut) {
    let (awr, wr, bv, br, arr, rv, rd, rr) = o;
    if i == 0 {
        u.m0_axil_awready.next = awr;
        u.m0_axil_wready.next = wr;
        u.m0_axil_bvalid.next = bv;
        u.m0_axil_bresp.next = br.into();
        u.m0_axil_arready.next = arr;
        u.m0_axil_rvalid.next = rv;
        u.m0_axil_rdata.next = rd.into();
        u.m0_axil_rresp.next = rr.into();
    } else {
        u.m1_axil_awready.next = awr;
        u.m1_axil_wready.next = wr;
        u.m1_axil_bvalid.next = bv;
        u.m1_axil_bresp.next = br.into();
        u.m1_axil_arready.next = arr;
        u.m1_axil_rvalid.next = rv;
        u.m1_axil_rdata.next = rd.into();
        u.m1_axil_rresp.next = rr.into();
    }
}

fn bad(off: u64) -> bool {
    off >> 20 & 1 == 1
}

/// An AXI4-Lite memory.
#[derive(Default)]
struct Slave {
    mem: HashMap<u64, u32>,
    aw: Option<u64>,
    w: Option<(u64, u64)>,
    /// (due cycle, bresp)
    b: Option<(u64, u64)>,
    /// (due cycle, rdata, rresp)
    r: Option<(u64, u64, u64)>,
    out: SOut,
    held: Option<MPins>,
    accesses: u64,
}

impl Slave {
    fn drive(&mut self, now: u64, rng: &mut Rng, ready: u32) {
        let bv = self.b.is_some_and(|b| now >= b.0);
        let rv = self.r.is_some_and(|r| now >= r.0);
        self.out = (
            self.aw.is_none() && self.b.is_none() && rng.percent(ready),
            self.w.is_none() && self.b.is_none() && rng.percent(ready),
            bv,
            self.b.map_or(0, |b| b.1),
            self.r.is_none() && rng.percent(ready),
            rv,
            self.r.map_or(0, |r| r.1),
            self.r.map_or(0, |r| r.2),
        );
    }

    fn sample(&mut self, p: MPins, now: u64, rng: &mut Rng) {
        if let Some(h) = self.held.take() {
            if h.awvalid {
                assert!(p.awvalid && p.awaddr == h.awaddr, "AW withdrawn or changed");
            }
            if h.wvalid {
                assert!(
                    p.wvalid && (p.wdata, p.wstrb) == (h.wdata, h.wstrb),
                    "W changed"
                );
            }
            if h.arvalid {
                assert!(p.arvalid && p.araddr == h.araddr, "AR withdrawn or changed");
            }
        }
        let (awr, wr, bv, _, arr, rv, _, _) = self.out;
        let mut hold = MPins::default();
        if p.awvalid {
            assert!(p.awaddr >> 31 == 0, "bit 31 not cleared");
            if awr {
                self.aw = Some(p.awaddr);
            } else {
                hold.awvalid = true;
                hold.awaddr = p.awaddr;
            }
        }
        if p.wvalid {
            if wr {
                self.w = Some((p.wdata, p.wstrb));
            } else {
                hold.wvalid = true;
                (hold.wdata, hold.wstrb) = (p.wdata, p.wstrb);
            }
        }
        if p.arvalid {
            assert!(p.araddr >> 31 == 0, "bit 31 not cleared");
            if arr {
                let e = bad(p.araddr);
                let v = if e {
                    0
                } else {
                    *self.mem.get(&(p.araddr & !3)).unwrap_or(&0)
                };
                self.r = Some((now + 1 + rng.range(0, 6) as u64, v as u64, 2 * e as u64));
                self.accesses += 1;
            } else {
                hold.arvalid = true;
                hold.araddr = p.araddr;
            }
        }
        if hold != MPins::default() {
            self.held = Some(hold);
        }
        if bv && p.bready {
            self.b = None;
        }
        if rv && p.rready {
            self.r = None;
        }
        if let (Some(a), Some((d, s))) = (self.aw, self.w) {
            let e = bad(a);
            if !e {
                let old = *self.mem.get(&(a & !3)).unwrap_or(&0);
                let mut v = old;
                for i in 0..4 {
                    if s >> i & 1 == 1 {
                        v = (v & !(0xFF << (8 * i))) | ((d as u32) & (0xFF << (8 * i)));
                    }
                }
                self.mem.insert(a & !3, v);
            }
            self.b = Some((now + 1 + rng.range(0, 6) as u64, 2 * e as u64));
            self.aw = None;
            self.w = None;
            self.accesses += 1;
        }
    }
}

#[derive(Clone, Copy)]
enum Op {
    Write(u64, u32, u8),
    Read(u64),
}

struct Stats {
    ops: usize,
    per_slave: (u64, u64),
    errors: u64,
}

fn session<S: Stepper<AxilSplit>>(b: &mut S, seed: u64, n: usize) -> Stats {
    let mut rng = Rng::new(seed);
    let (mvalid, mready, sready) = (
        rng.range(30, 100) as u32,
        rng.range(30, 100) as u32,
        rng.range(30, 100) as u32,
    );
    // a few addresses per slave so reads hit earlier writes; some in the SLVERR range
    let addrs: Vec<u64> = (0..24)
        .map(|i| {
            let hi = if i % 2 == 1 { 1u64 << 31 } else { 0 };
            let errbit = if i % 6 == 5 { 1u64 << 20 } else { 0 };
            hi | errbit | (rng.next_u64() & 0x000F_FFFC)
        })
        .collect();
    let ops: Vec<Op> = (0..n)
        .map(|_| {
            let a = addrs[rng.range(0, addrs.len() - 1)];
            if rng.percent(50) {
                Op::Write(a, rng.next_u64() as u32, rng.range(0, 15) as u8)
            } else {
                Op::Read(a)
            }
        })
        .collect();
    let mut refmem: [HashMap<u64, u32>; 2] = [HashMap::new(), HashMap::new()];
    let mut slaves = [Slave::default(), Slave::default()];
    let mut errors = 0;
    for op in &ops {
        // present the access (after a random gap), then wait for its answer
        let (sel, off) = match *op {
            Op::Write(a, ..) | Op::Read(a) => ((a >> 31) as usize, a & 0x7FFF_FFFF),
        };
        let mut accepted = false;
        let mut done = false;
        let mut shown = false;
        let mut guard = 0;
        while !done {
            let now = b.cycles();
            for (i, s) in slaves.iter_mut().enumerate() {
                s.drive(now, &mut rng, sready);
                set_slave(b.uut(), i, s.out);
            }
            if !accepted && !shown {
                shown = rng.percent(mvalid);
            }
            let u = b.uut();
            let (aw, ar) = match *op {
                Op::Write(..) => (shown && !accepted, false),
                Op::Read(..) => (false, shown && !accepted),
            };
            let (a, d, s) = match *op {
                Op::Write(a, d, s) => (a, d as u64, s as u64),
                Op::Read(a) => (a, 0, 0),
            };
            u.s_axil_awvalid.next = aw;
            u.s_axil_wvalid.next = aw;
            u.s_axil_awaddr.next = a.into();
            u.s_axil_wdata.next = d.into();
            u.s_axil_wstrb.next = s.into();
            u.s_axil_arvalid.next = ar;
            u.s_axil_araddr.next = a.into();
            u.s_axil_bready.next = rng.percent(mready);
            u.s_axil_rready.next = rng.percent(mready);
            b.settle();
            let u = b.uut();
            if aw && u.s_axil_awready.val() {
                assert!(u.s_axil_wready.val(), "AW taken without W");
                accepted = true;
            }
            if ar && u.s_axil_arready.val() {
                accepted = true;
            }
            if u.s_axil_bvalid.val() && u.s_axil_bready.val() {
                let Op::Write(_, d, st) = *op else {
                    panic!("B for a read")
                };
                let e = bad(off);
                assert_eq!(u.s_axil_bresp.val().to_u64(), 2 * e as u64, "bresp");
                if !e {
                    let v = refmem[sel].entry(off & !3).or_insert(0);
                    for i in 0..4 {
                        if st >> i & 1 == 1 {
                            *v = (*v & !(0xFF << (8 * i))) | (d & (0xFF << (8 * i)));
                        }
                    }
                }
                errors += e as u64;
                done = true;
            }
            if u.s_axil_rvalid.val() && u.s_axil_rready.val() {
                assert!(matches!(op, Op::Read(_)), "R for a write");
                let e = bad(off);
                assert_eq!(u.s_axil_rresp.val().to_u64(), 2 * e as u64, "rresp");
                let want = if e {
                    0
                } else {
                    *refmem[sel].get(&(off & !3)).unwrap_or(&0)
                };
                assert_eq!(u.s_axil_rdata.val().to_u64(), want as u64, "rdata");
                errors += e as u64;
                done = true;
            }
            let before = (slaves[0].accesses, slaves[1].accesses);
            for (i, s) in slaves.iter_mut().enumerate() {
                let p = mpins(b.uut(), i);
                s.sample(p, now, &mut rng);
            }
            // the access reached the selected slave only
            assert_eq!(
                slaves[1 - sel].accesses,
                [before.0, before.1][1 - sel],
                "wrong slave"
            );
            b.tick();
            guard += 1;
            assert!(guard < 10_000, "stuck");
        }
    }
    for (i, s) in slaves.iter().enumerate() {
        for (a, v) in &refmem[i] {
            assert_eq!(s.mem.get(a).unwrap_or(&0), v, "slave {i} at {a:#x}");
        }
        assert_eq!(s.mem.len(), refmem[i].len(), "slave {i} has extra words");
    }
    Stats {
        ops: ops.len(),
        per_slave: (slaves[0].accesses, slaves[1].accesses),
        errors,
    }
}

#[test]
fn block_bench_random_accesses() {
    for seed in 1..=4 {
        let mut b = Bench::new(AxilSplit::default(), |u| &mut u.clock);
        let s = session(&mut b, seed, 2000);
        eprintln!(
            "seed {seed}: {} accesses, {} to slave 0, {} to slave 1, {} SLVERR",
            s.ops, s.per_slave.0, s.per_slave.1, s.errors
        );
        assert_eq!(s.per_slave.0 + s.per_slave.1, s.ops as u64);
        assert!(s.per_slave.0 > 0 && s.per_slave.1 > 0 && s.errors > 0);
    }
}

#[test]
fn cosim_axil_split_random() {
    if !ferroce_testkit::require_cosim_tools() {
        return;
    }
    let mut cs = CoSim::new(AxilSplit::default(), |u| &mut u.clock);
    let s = session(&mut cs, 9, 2000);
    eprintln!(
        "cosim: {} accesses in {} cycles, {} comparisons, 0 mismatches",
        s.ops,
        cs.cycles(),
        cs.compares
    );
}

#[test]
fn yosys_synth_axil_split() {
    let m = "ferroce_axil_split";
    let v = ferroce_hdl::verilog::block_verilog(&mut AxilSplit::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("axil_split_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the registered write address, data, strobes and read address and data at least
    assert!(st.count("TRELLIS_FF") >= 120, "{}", st.line(ECP5_CELLS));
}
