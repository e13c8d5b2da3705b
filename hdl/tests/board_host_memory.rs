//! The on-chip host memory (`ferroce_hdl::board::OnChipHostMemory`) against a software byte
//! array. The NIC side is driven by a model of the DMA contract (docs/DMA.md): random
//! addresses and lengths (1-byte requests, every alignment, requests that end at the last
//! byte), requests partly or wholly outside the window, random `valid` gaps on requests and
//! write data and random `ready` on the response stream. The host side is an AXI4-Lite master
//! model with random `valid` gaps and random `bready`/`rready`, reading and writing 32-bit
//! words with random strobes, inside and outside the window, at the same time.
//!
//! Checked: every read response byte for byte against the model, exactly `len` bytes, `keep`
//! contiguous from the top, the request's tag, in request order, `rsp_error` on every beat
//! exactly for requests outside the window (and zero data then); every write's `done` in order
//! with its tag and `done_error` exactly for requests outside the window; every host read
//! against the model and SLVERR exactly outside the window; responses held while not taken;
//! at the end the whole memory read back through both ports, so no write touched a byte
//! outside its request or strobes. On the rust-hdl block, then on the emitted Verilog
//! (Verilator) in lock step with it; Yosys `synth_ecp5` of the 64 KiB memory.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::{HostMemory64K, OnChipHostMemory};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

mod dma_common;
use dma_common::NicDriver;

/// The bench's memory: 8 KiB (AW = 10) at a high IOVA, so all 64 address bits matter.
const AW: usize = 10;
type Mem = OnChipHostMemory<AW>;
const BASE: u64 = 0x0000_6A10_0000_2000;
const SIZE: usize = 8 << AW;

fn outside(addr: u64, len: usize) -> bool {
    addr < BASE || addr - BASE >= SIZE as u64 || addr - BASE + len as u64 > SIZE as u64
}

#[derive(Clone, Copy)]
struct Knobs {
    nic_valid: u32,
    nic_ready: u32,
    host_valid: u32,
    host_ready: u32,
}

/// The NIC side of the DMA port: the shared driver, and the checks that depend on this shell
/// (the window, the model memory).
#[derive(Default)]
struct Nic {
    drv: NicDriver,
    reads: u64,
    read_errors: u64,
    writes: u64,
    write_errors: u64,
}

impl Nic {
    fn push_write(&mut self, addr: u64, data: Vec<u8>, tag: u8) {
        self.drv.push_write(addr, data, tag);
    }

    fn drive(&mut self, u: &mut Mem, rng: &mut Rng, k: Knobs) {
        self.drv.drive(&mut u.dma, rng, k.nic_valid, k.nic_ready);
    }

    fn sample(&mut self, u: &Mem, refmem: &mut [u8]) {
        let s = self.drv.sample(&u.dma);
        if let Some((req, bytes, errs)) = s.read {
            if outside(req.addr, req.len) {
                assert!(errs.iter().all(|&x| x), "rsp_error missing");
                assert!(bytes.iter().all(|&x| x == 0), "errored data not zero");
                self.read_errors += 1;
            } else {
                assert!(errs.iter().all(|&x| !x), "spurious rsp_error");
                let a = (req.addr - BASE) as usize;
                assert!(
                    bytes == refmem[a..a + req.len],
                    "read {:#x}+{} differs from the model",
                    req.addr,
                    req.len
                );
            }
            self.reads += 1;
        }
        if let Some((r, data)) = s.wr_accepted {
            if !outside(r.addr, r.len) {
                let a = (r.addr - BASE) as usize;
                refmem[a..a + r.len].copy_from_slice(&data);
            }
        }
        if let Some((r, err)) = s.done {
            assert_eq!(err, outside(r.addr, r.len), "done_error (tag {})", r.tag);
            self.writes += 1;
            self.write_errors += err as u64;
        }
    }

    fn idle(&self) -> bool {
        self.drv.idle()
    }
}

#[derive(Clone, Copy)]
enum HostOp {
    Write { off: u32, data: u32, strb: u8 },
    Read { off: u32 },
}

/// The AXI4-Lite master (the UART bridge's side).
#[derive(Default)]
struct Host {
    ops: VecDeque<HostOp>,
    shown: bool,
    /// an accepted access awaiting its answer: (is_write, expected rdata, expected error)
    waiting: Option<(bool, u32, bool)>,
    held: Option<(u64, u64)>,
    reads: u64,
    writes: u64,
    errors: u64,
}

fn host_bad(off: u32) -> bool {
    off as usize >= SIZE
}

impl Host {
    fn drive(&mut self, u: &mut Mem, rng: &mut Rng, k: Knobs) {
        if !self.shown && self.waiting.is_none() && !self.ops.is_empty() {
            self.shown = rng.percent(k.host_valid);
        }
        let (mut aw, mut ar) = (false, false);
        let (mut addr, mut data, mut strb) = (0u32, 0u32, 0u8);
        if self.shown {
            match *self.ops.front().unwrap() {
                HostOp::Write {
                    off,
                    data: d,
                    strb: s,
                } => {
                    aw = true;
                    (addr, data, strb) = (off, d, s);
                }
                HostOp::Read { off } => {
                    ar = true;
                    addr = off;
                }
            }
        }
        u.s_axil_awvalid.next = aw;
        u.s_axil_wvalid.next = aw;
        u.s_axil_awaddr.next = (addr as u64).into();
        u.s_axil_wdata.next = (data as u64).into();
        u.s_axil_wstrb.next = (strb as u64).into();
        u.s_axil_arvalid.next = ar;
        u.s_axil_araddr.next = (addr as u64).into();
        u.s_axil_bready.next = rng.percent(k.host_ready);
        u.s_axil_rready.next = rng.percent(k.host_ready);
    }

    fn sample(&mut self, u: &Mem, refmem: &mut [u8]) {
        let b = (u.s_axil_bvalid.val(), u.s_axil_bresp.val().to_u64());
        let r = (u.s_axil_rdata.val().to_u64(), u.s_axil_rresp.val().to_u64());
        if let Some(h) = self.held.take() {
            let now = if u.s_axil_bvalid.val() { (0, b.1) } else { r };
            assert!(
                (u.s_axil_bvalid.val() || u.s_axil_rvalid.val()) && now == h,
                "B or R withdrawn or changed"
            );
        }
        if u.s_axil_awvalid.val() {
            assert_eq!(
                u.s_axil_awready.val(),
                u.s_axil_wready.val(),
                "the slave takes AW and W together"
            );
        }
        if u.s_axil_awvalid.val() && u.s_axil_awready.val() {
            let HostOp::Write { off, data, strb } = self.ops.pop_front().unwrap() else {
                unreachable!()
            };
            let bad = host_bad(off);
            if !bad {
                let a = (off & !3) as usize;
                for i in 0..4 {
                    if strb >> i & 1 == 1 {
                        refmem[a + i] = (data >> (8 * i)) as u8;
                    }
                }
            }
            self.waiting = Some((true, 0, bad));
            self.shown = false;
        }
        if u.s_axil_arvalid.val() && u.s_axil_arready.val() {
            let HostOp::Read { off } = self.ops.pop_front().unwrap() else {
                unreachable!()
            };
            let bad = host_bad(off);
            let mut v = 0u32;
            if !bad {
                let a = (off & !3) as usize;
                v = u32::from_le_bytes(refmem[a..a + 4].try_into().unwrap());
            }
            self.waiting = Some((false, v, bad));
            self.shown = false;
        }
        if u.s_axil_bvalid.val() {
            let (w, _, bad) = self.waiting.expect("B without a write");
            assert!(w, "B for a read");
            if u.s_axil_bready.val() {
                assert_eq!(b.1, if bad { 2 } else { 0 }, "bresp");
                self.waiting = None;
                self.writes += 1;
                self.errors += bad as u64;
            } else {
                self.held = Some((0, b.1));
            }
        }
        if u.s_axil_rvalid.val() {
            let (w, v, bad) = self.waiting.expect("R without a read");
            assert!(!w, "R for a write");
            if u.s_axil_rready.val() {
                assert_eq!(r.1, if bad { 2 } else { 0 }, "rresp");
                assert_eq!(r.0, v as u64, "host read data");
                self.waiting = None;
                self.reads += 1;
                self.errors += bad as u64;
            } else {
                self.held = Some(r);
            }
        }
    }

    fn idle(&self) -> bool {
        self.ops.is_empty() && self.waiting.is_none()
    }
}

/// A random length (1-byte ones, short, medium and long ones).
fn random_len(rng: &mut Rng, max: usize) -> usize {
    match rng.range(0, 9) {
        0..=1 => 1,
        2..=4 => rng.range(2, 17),
        5..=7 => rng.range(18, 200),
        _ => rng.range(201, max),
    }
}

/// A request inside `[lo, hi)` of the window (offsets), or (with `bad`) one partly or wholly
/// outside the window.
fn random_req(rng: &mut Rng, lo: usize, hi: usize, bad: bool) -> (u64, usize) {
    if bad {
        let len = random_len(rng, 300);
        let addr = match rng.range(0, 3) {
            // starts below the window
            0 => BASE - rng.range(1, 64) as u64,
            // runs past its end
            1 => BASE + SIZE as u64 - rng.range(0, len - 1) as u64,
            // far away
            2 => BASE + (1u64 << rng.range(20, 40)),
            // wraps past 2^64 relative to the base
            _ => BASE.wrapping_sub(1u64 << 40),
        };
        return (addr, len);
    }
    let len = random_len(rng, (hi - lo).min(1500));
    let off = if rng.percent(15) {
        hi - len
    } else {
        rng.range(lo, hi - len)
    };
    (BASE + off as u64, len)
}

fn host_ops(
    rng: &mut Rng,
    n: usize,
    lo: usize,
    hi: usize,
    rd_lo: usize,
    rd_hi: usize,
) -> Vec<HostOp> {
    (0..n)
        .map(|_| {
            let bad = rng.percent(8);
            let off = if bad {
                if rng.percent(50) {
                    (SIZE + rng.range(0, 4096)) as u32
                } else {
                    0xFFFF_FFF0 | rng.range(0, 15) as u32
                }
            } else {
                rng.range(lo, hi - 1) as u32
            };
            if rng.percent(50) {
                HostOp::Write {
                    off,
                    data: rng.next_u64() as u32,
                    strb: rng.range(0, 15) as u8,
                }
            } else if rng.percent(50) && !bad {
                HostOp::Read {
                    off: rng.range(rd_lo, rd_hi - 1) as u32,
                }
            } else {
                HostOp::Read { off }
            }
        })
        .collect()
}

struct Stats {
    cycles: u64,
    reads: u64,
    read_errors: u64,
    writes: u64,
    write_errors: u64,
    host: (u64, u64, u64),
}

fn run<S: Stepper<Mem>>(
    b: &mut S,
    rng: &mut Rng,
    k: Knobs,
    nic: &mut Nic,
    host: &mut Host,
    refmem: &mut [u8],
) {
    let mut guard = 0u64;
    while !(nic.idle() && host.idle()) {
        nic.drive(b.uut(), rng, k);
        host.drive(b.uut(), rng, k);
        b.settle();
        nic.sample(b.uut(), refmem);
        host.sample(b.uut(), refmem);
        b.tick();
        guard += 1;
        assert!(guard < 2_000_000, "stuck");
    }
}

fn session<S: Stepper<Mem>>(b: &mut S, seed: u64, n: usize) -> Stats {
    let mut rng = Rng::new(seed);
    let k = Knobs {
        nic_valid: rng.range(40, 100) as u32,
        nic_ready: rng.range(40, 100) as u32,
        host_valid: rng.range(30, 100) as u32,
        host_ready: rng.range(30, 100) as u32,
    };
    let mut refmem = vec![0u8; SIZE];
    let mut nic = Nic::default();
    let mut host = Host::default();
    // phase 0: fill the whole memory with random data by DMA writes of random lengths
    let mut off = 0;
    while off < SIZE {
        let len = random_len(&mut rng, 1500).min(SIZE - off);
        let tag = rng.next_u64() as u8;
        nic.push_write(BASE + off as u64, rng.bytes(len), tag);
        off += len;
    }
    run(b, &mut rng, k, &mut nic, &mut host, &mut refmem);
    // phase 1, all at once: DMA reads of the first half, DMA writes to the third quarter, the
    // host reads and writes the last quarter and reads the first half; errored requests
    // anywhere (they write nothing, so they cannot disturb the others)
    let (q2, q3) = (SIZE / 2, SIZE * 3 / 4);
    for _ in 0..n {
        let bad = rng.percent(10);
        let (addr, len) = random_req(&mut rng, 0, q2, bad);
        let tag = rng.next_u64() as u8;
        nic.drv.push_read(addr, len, tag);
        let bad = rng.percent(10);
        let (addr, len) = random_req(&mut rng, q2, q3, bad);
        let tag = rng.next_u64() as u8;
        nic.push_write(addr, rng.bytes(len), tag);
    }
    host.ops.extend(host_ops(&mut rng, n, q3, SIZE, 0, q2));
    run(b, &mut rng, k, &mut nic, &mut host, &mut refmem);
    // phase 2: read everything back, by DMA in random chunks and by the host at random
    let mut off = 0;
    while off < SIZE {
        let len = random_len(&mut rng, 1500).min(SIZE - off);
        let tag = rng.next_u64() as u8;
        nic.drv.push_read(BASE + off as u64, len, tag);
        off += len;
    }
    for _ in 0..n {
        host.ops.push_back(HostOp::Read {
            off: rng.range(0, SIZE - 1) as u32,
        });
    }
    run(b, &mut rng, k, &mut nic, &mut host, &mut refmem);
    Stats {
        cycles: b.cycles(),
        reads: nic.reads,
        read_errors: nic.read_errors,
        writes: nic.writes,
        write_errors: nic.write_errors,
        host: (host.reads, host.writes, host.errors),
    }
}

fn report(tag: &str, s: &Stats) {
    eprintln!(
        "{tag}: {} cycles, {} DMA reads ({} errored), {} DMA writes ({} errored), host {} reads, {} writes, {} SLVERR",
        s.cycles, s.reads, s.read_errors, s.writes, s.write_errors, s.host.0, s.host.1, s.host.2
    );
}

#[test]
fn block_bench_random_accesses() {
    let t0 = std::time::Instant::now();
    for seed in 1..=4u64 {
        let mut b = Bench::new(Mem::new(BASE), |u| &mut u.clock);
        let s = session(&mut b, seed, 500);
        report(&format!("seed {seed}"), &s);
        assert!(
            s.read_errors > 0 && s.write_errors > 0 && s.host.2 > 0,
            "no error exercised"
        );
    }
    eprintln!("bench: {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn cosim_host_memory_random() {
    if !ferroce_testkit::require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(Mem::new(BASE), |u| &mut u.clock);
    let s = session(&mut cs, 21, 400);
    report("cosim", &s);
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of the 64 KiB memory: no latch, `check -assert` clean, the byte lanes
/// in block RAM (each 8192 x 8 lane takes four DP16KD as 2048 x 9, so at least 32); prints the
/// resources.
#[test]
fn yosys_synth_host_memory() {
    let m = "ferroce_host_memory_64k";
    let v = ferroce_hdl::verilog::block_verilog(&mut HostMemory64K::new(0x1_0000_0000), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("host_memory_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    assert!(
        st.count("DP16KD") >= 32 && st.count("TRELLIS_FF") > 100,
        "{}",
        st.line(ECP5_CELLS)
    );
}

/// The rates the module doc promises: with a sink that is always ready and data that is
/// always valid, a read streams one beat per cycle and a write takes one word per cycle, at
/// any alignment (plus a fixed start-up of a few cycles).
#[test]
fn one_word_per_cycle() {
    for off in [0u64, 3, 7] {
        let len = 4096usize;
        let beats = len.div_ceil(8) as u64;
        let addr = BASE + 64 + off;
        // write: request and data presented together, data always valid
        let mut b = Bench::new(Mem::new(BASE), |u| &mut u.clock);
        let mut nic = Nic::default();
        let mut refmem = vec![0u8; SIZE];
        let mut rng = Rng::new(off);
        nic.push_write(addr, rng.bytes(len), 1);
        let all = Knobs {
            nic_valid: 100,
            nic_ready: 100,
            host_valid: 100,
            host_ready: 100,
        };
        let mut host = Host::default();
        run(&mut b, &mut rng, all, &mut nic, &mut host, &mut refmem);
        let wr_cycles = b.cycles();
        // read it back
        let c0 = b.cycles();
        nic.drv.push_read(addr, len, 2);
        run(&mut b, &mut rng, all, &mut nic, &mut host, &mut refmem);
        let rd_cycles = b.cycles() - c0;
        eprintln!("offset {off}: {len}-byte write in {wr_cycles} cycles, read in {rd_cycles} cycles ({beats} beats)");
        assert_eq!((nic.writes, nic.reads), (1, 1));
        assert!(
            wr_cycles <= beats + 4,
            "write: {wr_cycles} cycles for {beats} beats"
        );
        assert!(
            rd_cycles <= beats + 4,
            "read: {rd_cycles} cycles for {beats} beats"
        );
    }
}
