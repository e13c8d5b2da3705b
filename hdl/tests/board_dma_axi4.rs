//! The DMA-port-to-AXI4 bridge (`ferroce_hdl::board::DmaAxi4Bridge`) against an AXI4 slave
//! memory model written here from the AXI4 rules (AMBA AXI4, IHI 0022): random `READY`s on
//! every channel, random R/B latency, W accepted before its AW, SLVERR for every burst in two
//! "faulty" pages. The NIC side is driven by a model of the DMA contract (docs/DMA.md): random
//! request addresses and lengths (1-byte requests, 4 KiB-crossing ones, every alignment), random
//! `valid` gaps on requests and write data and random `ready` on the response stream.
//!
//! Checked: every burst obeys the AXI4 rules the bridge promises (INCR, 8-byte beats, aligned
//! address, no 4 KiB crossing, at most `max_beats` beats, `WLAST` on the burst's last beat,
//! payloads held while `valid & !ready`); every read response byte for byte against the memory,
//! with exactly `len` bytes, `keep` contiguous from the top, the request's tag, responses in
//! request order, `rsp_error` exactly for requests that touched a faulty page; every write's
//! `done` in order with its tag and `done_error` exactly for the faulty pages, and, at the end,
//! the whole memory byte for byte against a software copy (so no strobe wrote a byte outside
//! its request). On the rust-hdl block, then on the emitted Verilog (Verilator) in lock step
//! with it; Yosys `synth_ecp5` and `synth_xilinx` of the bridge.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::DmaAxi4Bridge;
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_testkit::{require_tool, synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

mod dma_common;
use dma_common::NicDriver;

/// The memory window: 16 pages at a high address (so all 64 address bits matter).
const BASE: u64 = 0x0000_7F3A_5000_0000;
const PAGES: usize = 16;
const SIZE: usize = PAGES * 4096;
/// Reads of the concurrent phase use pages 0..8 (never written), writes pages 8..16.
const READ_PAGES: (usize, usize) = (0, 8);
const WRITE_PAGES: (usize, usize) = (8, 16);
/// Every burst into these pages answers SLVERR (reads return garbage, writes are dropped).
const BAD_PAGES: [usize; 2] = [5, 12];

fn bad(addr: u64, len: usize) -> bool {
    let first = ((addr - BASE) / 4096) as usize;
    let last = ((addr - BASE + len as u64 - 1) / 4096) as usize;
    (first..=last).any(|p| BAD_PAGES.contains(&p))
}

fn page_bad(addr: u64) -> bool {
    BAD_PAGES.contains(&(((addr - BASE) / 4096) as usize))
}

/// The slave's handshake probabilities (percent) and latency range.
#[derive(Clone, Copy)]
struct Knobs {
    ready: u32,
    nic_valid: u32,
    nic_ready: u32,
    max_latency: usize,
}

struct Burst {
    addr: u64,
    beats: usize,
    done: usize,
    due: u64,
    shown: bool,
}

/// AXI4 slave memory model.
struct Slave {
    mem: Vec<u8>,
    max_beats: usize,
    reads: VecDeque<Burst>,
    aws: VecDeque<(u64, usize)>,
    ws: VecDeque<(u64, u8, bool)>,
    bs: VecDeque<(bool, u64, bool)>,
    /// payloads presented without ready last cycle (must be held)
    held_ar: Option<(u64, u64)>,
    held_aw: Option<(u64, u64)>,
    held_w: Option<(u64, u64, bool)>,
    bursts_rd: u64,
    bursts_wr: u64,
    page_end_bursts: u64,
}

impl Slave {
    fn check_burst(&self, addr: u64, len: u64, size: u64, burst: u64) {
        assert_eq!(size, 3, "AxSIZE");
        assert_eq!(burst, 1, "AxBURST must be INCR");
        assert_eq!(addr % 8, 0, "AxADDR {addr:#x} not 8-byte aligned");
        let beats = len as usize + 1;
        assert!(beats <= self.max_beats, "{beats} beats > max");
        assert!(
            (addr % 4096) as usize + 8 * beats <= 4096,
            "burst at {addr:#x} of {beats} beats crosses 4 KiB"
        );
        assert!(
            addr >= BASE && addr - BASE + 8 * beats as u64 <= SIZE as u64,
            "burst at {addr:#x} outside the window"
        );
    }

    fn drive(&mut self, u: &mut DmaAxi4Bridge, rng: &mut Rng, k: Knobs, now: u64) {
        u.m_axi_arready.next = rng.percent(k.ready);
        u.m_axi_awready.next = rng.percent(k.ready);
        u.m_axi_wready.next = rng.percent(k.ready);
        // R: a beat once shown stays until taken (AXI rule); it is shown after the burst's
        // latency, then with random gaps
        let (mut rv, mut rd, mut rr, mut rl) = (false, 0u64, 0u64, false);
        if let Some(b) = self.reads.front_mut() {
            if now >= b.due && (b.shown || rng.percent(k.ready)) {
                b.shown = true;
                rv = true;
                let a = (b.addr - BASE) as usize + 8 * b.done;
                let mut d = [0u8; 8];
                d.copy_from_slice(&self.mem[a..a + 8]);
                rd = u64::from_le_bytes(d);
                if page_bad(b.addr) {
                    rd = 0xBAD0_BAD0_BAD0_BAD0;
                    rr = 2;
                }
                rl = b.done + 1 == b.beats;
            }
        }
        u.m_axi_rvalid.next = rv;
        u.m_axi_rdata.next = rd.into();
        u.m_axi_rresp.next = rr.into();
        u.m_axi_rlast.next = rl;
        let mut bv = false;
        let mut br = 0u64;
        if let Some((shown, due, err)) = self.bs.front_mut() {
            if now >= *due && (*shown || rng.percent(k.ready)) {
                *shown = true;
                bv = true;
                br = if *err { 2 } else { 0 };
            }
        }
        u.m_axi_bvalid.next = bv;
        u.m_axi_bresp.next = br.into();
    }

    /// After settle: this cycle's handshakes.
    fn sample(&mut self, u: &DmaAxi4Bridge, rng: &mut Rng, k: Knobs, now: u64) {
        let ar = (u.m_axi_araddr.val().to_u64(), u.m_axi_arlen.val().to_u64());
        if let Some(h) = self.held_ar.take() {
            assert!(u.m_axi_arvalid.val() && ar == h, "AR withdrawn or changed");
        }
        if u.m_axi_arvalid.val() {
            if u.m_axi_arready.val() {
                self.check_burst(
                    ar.0,
                    ar.1,
                    u.m_axi_arsize.val().to_u64(),
                    u.m_axi_arburst.val().to_u64(),
                );
                self.bursts_rd += 1;
                if (ar.0 + 8 * (ar.1 + 1)).is_multiple_of(4096) {
                    self.page_end_bursts += 1;
                }
                self.reads.push_back(Burst {
                    addr: ar.0,
                    beats: ar.1 as usize + 1,
                    done: 0,
                    due: now + 1 + rng.range(0, k.max_latency) as u64,
                    shown: false,
                });
            } else {
                self.held_ar = Some(ar);
            }
        }
        if u.m_axi_rvalid.val() && u.m_axi_rready.val() {
            let b = self.reads.front_mut().expect("R without a burst");
            b.done += 1;
            b.shown = false;
            if b.done == b.beats {
                self.reads.pop_front();
            } else {
                b.addr += 8;
                b.beats -= 1;
                b.done = 0;
            }
        }
        let aw = (u.m_axi_awaddr.val().to_u64(), u.m_axi_awlen.val().to_u64());
        if let Some(h) = self.held_aw.take() {
            assert!(u.m_axi_awvalid.val() && aw == h, "AW withdrawn or changed");
        }
        if u.m_axi_awvalid.val() {
            if u.m_axi_awready.val() {
                self.check_burst(
                    aw.0,
                    aw.1,
                    u.m_axi_awsize.val().to_u64(),
                    u.m_axi_awburst.val().to_u64(),
                );
                self.bursts_wr += 1;
                self.aws.push_back((aw.0, aw.1 as usize + 1));
            } else {
                self.held_aw = Some(aw);
            }
        }
        let w = (
            u.m_axi_wdata.val().to_u64(),
            u.m_axi_wstrb.val().to_u64(),
            u.m_axi_wlast.val(),
        );
        if let Some(h) = self.held_w.take() {
            assert!(u.m_axi_wvalid.val() && w == h, "W withdrawn or changed");
        }
        if u.m_axi_wvalid.val() {
            if u.m_axi_wready.val() {
                self.ws.push_back((w.0, w.1 as u8, w.2));
            } else {
                self.held_w = Some(w);
            }
        }
        if u.m_axi_bvalid.val() && u.m_axi_bready.val() {
            self.bs.pop_front().expect("B without a burst");
        }
        // a burst whose address and data are all in is written (or refused) and answered
        while let Some(&(addr, beats)) = self.aws.front() {
            if self.ws.len() < beats {
                break;
            }
            self.aws.pop_front();
            let err = page_bad(addr);
            for i in 0..beats {
                let (d, s, l) = self.ws.pop_front().unwrap();
                assert_eq!(l, i + 1 == beats, "WLAST on beat {i} of {beats}");
                if !err {
                    for lane in 0..8 {
                        if s >> lane & 1 == 1 {
                            let a = (addr - BASE) as usize + 8 * i + lane;
                            self.mem[a] = (d >> (8 * lane)) as u8;
                        }
                    }
                }
            }
            self.bs
                .push_back((false, now + 1 + rng.range(0, k.max_latency) as u64, err));
        }
    }
}

/// The NIC side: the shared DMA-port driver, and the checks that depend on this shell (the
/// faulty pages, the memory).
struct Nic {
    drv: NicDriver,
    /// the reference memory
    refmem: Vec<u8>,
    reads_checked: u64,
    read_errors: u64,
    writes_done: u64,
    write_errors: u64,
}

impl Nic {
    fn drive(&mut self, u: &mut DmaAxi4Bridge, rng: &mut Rng, k: Knobs) {
        self.drv.drive(&mut u.dma, rng, k.nic_valid, k.nic_ready);
    }

    fn sample(&mut self, u: &DmaAxi4Bridge) {
        let s = self.drv.sample(&u.dma);
        if let Some((req, bytes, errs)) = s.read {
            if bad(req.addr, req.len) {
                assert!(
                    *errs.last().unwrap(),
                    "rsp_error missing at {:#x}",
                    req.addr
                );
                // once set it stays set to the end of the response
                let first = errs.iter().position(|&x| x).unwrap();
                assert!(errs[first..].iter().all(|&x| x));
                self.read_errors += 1;
            } else {
                assert!(errs.iter().all(|&x| !x), "spurious rsp_error");
                let a = (req.addr - BASE) as usize;
                assert!(
                    bytes == self.refmem[a..a + req.len],
                    "read {:#x}+{} differs from memory",
                    req.addr,
                    req.len
                );
            }
            self.reads_checked += 1;
        }
        if let Some((r, data)) = s.wr_accepted {
            let a = (r.addr - BASE) as usize;
            for (i, x) in data.iter().enumerate() {
                if !page_bad(r.addr + i as u64) {
                    self.refmem[a + i] = *x;
                }
            }
        }
        if let Some((r, err)) = s.done {
            assert_eq!(err, bad(r.addr, r.len), "done_error (tag {})", r.tag);
            self.writes_done += 1;
            self.write_errors += err as u64;
        }
    }

    fn idle(&self) -> bool {
        self.drv.idle()
    }
}

/// A random request inside pages `pages` (1-byte ones, 4 KiB-crossing ones, every alignment).
fn random_req(rng: &mut Rng, pages: (usize, usize), max_len: usize) -> (u64, usize) {
    let len = match rng.range(0, 19) {
        0..=2 => 1,
        3..=7 => rng.range(2, 16),
        8..=13 => rng.range(17, 300),
        14..=17 => rng.range(301, 2100),
        _ => rng.range(2101, max_len),
    };
    let (lo, hi) = (pages.0 * 4096, pages.1 * 4096);
    let off = if rng.percent(35) {
        // straddle a page boundary
        let p = rng.range(pages.0 + 1, pages.1 - 1) * 4096;
        let before = rng.range(1, len.clamp(1, 64));
        (p - before).clamp(lo, hi - len)
    } else {
        rng.range(lo, hi - len)
    };
    (BASE + off as u64, len)
}

struct Stats {
    cycles: u64,
    reads: u64,
    writes: u64,
    read_errors: u64,
    write_errors: u64,
    bursts: (u64, u64),
    page_end_bursts: u64,
}

fn session<S: Stepper<DmaAxi4Bridge>>(
    b: &mut S,
    seed: u64,
    max_beats: usize,
    n: usize,
    max_len: usize,
) -> Stats {
    let mut rng = Rng::new(seed);
    let k = Knobs {
        ready: rng.range(40, 95) as u32,
        nic_valid: rng.range(40, 95) as u32,
        nic_ready: rng.range(40, 95) as u32,
        max_latency: rng.range(0, 24),
    };
    let mem = rng.bytes(SIZE);
    let mut slave = Slave {
        mem: mem.clone(),
        max_beats,
        reads: VecDeque::new(),
        aws: VecDeque::new(),
        ws: VecDeque::new(),
        bs: VecDeque::new(),
        held_ar: None,
        held_aw: None,
        held_w: None,
        bursts_rd: 0,
        bursts_wr: 0,
        page_end_bursts: 0,
    };
    let mut nic = Nic {
        drv: NicDriver::default(),
        refmem: mem,
        reads_checked: 0,
        read_errors: 0,
        writes_done: 0,
        write_errors: 0,
    };
    let (mut ones, mut crossing) = (0, 0);
    // phase 1: reads of the read pages and writes of the write pages, concurrently;
    // phase 2: read back the write pages
    for phase in 0..2 {
        for _ in 0..n {
            let (addr, len) = random_req(
                &mut rng,
                if phase == 0 { READ_PAGES } else { WRITE_PAGES },
                max_len,
            );
            ones += (len == 1) as u64;
            crossing += ((addr % 4096) as usize + len > 4096) as u64;
            let tag = rng.next_u64() as u8;
            nic.drv.push_read(addr, len, tag);
            if phase == 0 {
                let (addr, len) = random_req(&mut rng, WRITE_PAGES, max_len);
                ones += (len == 1) as u64;
                crossing += ((addr % 4096) as usize + len > 4096) as u64;
                let data = rng.bytes(len);
                let tag = rng.next_u64() as u8;
                nic.drv.push_write(addr, data, tag);
            }
        }
        let mut guard = 0u64;
        while !nic.idle() {
            let now = b.cycles();
            slave.drive(b.uut(), &mut rng, k, now);
            nic.drive(b.uut(), &mut rng, k);
            b.settle();
            slave.sample(b.uut(), &mut rng, k, now);
            nic.sample(b.uut());
            b.tick();
            guard += 1;
            assert!(
                guard < 4_000_000,
                "stuck: {} reads, {} writes left",
                nic.drv.rd_expect.len() + nic.drv.rd_todo.len(),
                nic.drv.wr_expect.len() + nic.drv.wr_todo.len()
            );
        }
        assert!(slave.reads.is_empty() && slave.bs.is_empty() && slave.ws.is_empty());
    }
    assert!(slave.mem == nic.refmem, "memory differs from the reference");
    assert!(
        ones > 0 && crossing > 0,
        "{ones} 1-byte, {crossing} crossing requests"
    );
    Stats {
        cycles: b.cycles(),
        reads: nic.reads_checked,
        writes: nic.writes_done,
        read_errors: nic.read_errors,
        write_errors: nic.write_errors,
        bursts: (slave.bursts_rd, slave.bursts_wr),
        page_end_bursts: slave.page_end_bursts,
    }
}

fn report(tag: &str, s: &Stats) {
    eprintln!(
        "{tag}: {} cycles, {} reads ({} errored), {} writes ({} errored), {} AR / {} AW bursts, {} ending at a 4 KiB boundary",
        s.cycles, s.reads, s.read_errors, s.writes, s.write_errors, s.bursts.0, s.bursts.1, s.page_end_bursts
    );
}

#[test]
fn block_bench_random_requests() {
    let t0 = std::time::Instant::now();
    for (seed, max_beats) in [(1u64, 256usize), (2, 16), (3, 1), (4, 64)] {
        let mut b = Bench::new(DmaAxi4Bridge::new(max_beats as u16), |u| &mut u.clock);
        let s = session(&mut b, seed, max_beats, 60, 5000);
        report(&format!("seed {seed}, max {max_beats} beats"), &s);
        assert!(
            s.read_errors > 0 && s.write_errors > 0,
            "no SLVERR exercised"
        );
        assert!(s.page_end_bursts > 0);
    }
    eprintln!("bench: {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn cosim_dma_axi4_random() {
    if !ferroce_testkit::require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(DmaAxi4Bridge::new(32), |u| &mut u.clock);
    let s = session(&mut cs, 11, 32, 25, 4500);
    report("cosim", &s);
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` (like every board block) and `synth_xilinx -abc9` (the bridge's target
/// is an UltraScale+ card): no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_dma_axi4() {
    let m = "ferroce_dma_axi4_64";
    let v = ferroce_hdl::verilog::block_verilog(&mut DmaAxi4Bridge::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dma_axi4_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    assert!(
        st.count("LUT4") > 100 && st.count("TRELLIS_FF") > 300,
        "{}",
        st.line(ECP5_CELLS)
    );
    if !require_tool("yosys") {
        return;
    }
    let src = dir.join(format!("{m}.v"));
    let stat = dir.join(format!("{m}_xilinx.txt"));
    let out = std::process::Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {}; synth_xilinx -flatten -abc9 -top {m}; check -assert; tee -o {} stat",
            src.display(),
            stat.display()
        ))
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "yosys synth_xilinx failed: {log}");
    assert!(!log.contains("Latch inferred"), "{log}");
    let st = ferroce_testkit::SynthStat {
        module: m.to_string(),
        text: std::fs::read_to_string(&stat).unwrap(),
    };
    let cells = ["LUT", "FD", "CARRY", "MUXF"];
    eprintln!("synth_xilinx {m}: {}", st.line(&cells));
    assert!(
        st.count("LUT") > 100 && st.count("FD") > 300,
        "{}",
        st.line(&cells)
    );
}
