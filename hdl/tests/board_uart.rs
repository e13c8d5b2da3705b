//! The UART to AXI4-Lite bridge (`ferroce_hdl::board::UartAxil`): a PC model drives the serial
//! line bit by bit (8N1, LSB first, random idle time between characters), an independent
//! serial decoder samples `txd` in the middle of each bit and checks the framing, and an
//! AXI4-Lite slave model (a register file, random `ready`/`valid` delays, SLVERR above
//! 0x8000_0000) serves the bus. Every answer is checked against the protocol of the module
//! doc (the reference model below, written from the table there), as is every register the
//! slave holds. Garbage bytes, characters with a framing error and commands abandoned by the
//! timeout are mixed in. On the rust-hdl block, then on the emitted Verilog (Verilator) in lock
//! step with it; Yosys `synth_ecp5` of the bridge.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::UartAxil;
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::testbench::{uart_char_levels, Bench, Rng, Stepper, UartDecoder};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::{HashMap, VecDeque};

const DIV: usize = 16;
const TIMEOUT: u32 = 40 * DIV as u32;

fn bridge() -> UartAxil {
    UartAxil::new(DIV as u16, TIMEOUT)
}

/// AXI4-Lite slave model: registers, random handshake delays, SLVERR at and above 0x8000_0000.
#[derive(Default)]
struct Slave {
    regs: HashMap<u32, u32>,
    aw: Option<u32>,
    w: Option<u32>,
    b_pending: Option<(u64, bool)>,
    r_pending: Option<(u64, u32, bool)>,
    writes: u64,
    reads: u64,
}

impl Slave {
    fn drive(&mut self, u: &mut UartAxil, rng: &mut Rng, now: u64) {
        u.m_axil_awready.next = self.aw.is_none() && self.b_pending.is_none() && rng.percent(50);
        u.m_axil_wready.next = self.w.is_none() && self.b_pending.is_none() && rng.percent(50);
        u.m_axil_arready.next = self.r_pending.is_none() && rng.percent(50);
        let bv = matches!(self.b_pending, Some((t, _)) if now >= t);
        u.m_axil_bvalid.next = bv;
        u.m_axil_bresp.next = (if matches!(self.b_pending, Some((_, true))) {
            2u64
        } else {
            0
        })
        .into();
        let rv = matches!(self.r_pending, Some((t, _, _)) if now >= t);
        u.m_axil_rvalid.next = rv;
        let (d, e) = self.r_pending.map(|(_, d, e)| (d, e)).unwrap_or((0, false));
        u.m_axil_rdata.next = (d as u64).into();
        u.m_axil_rresp.next = (if e { 2u64 } else { 0 }).into();
    }

    /// After settle: the handshakes of this cycle.
    fn sample(&mut self, u: &UartAxil, rng: &mut Rng, now: u64) {
        if u.m_axil_awvalid.val() && u.m_axil_awready.val() {
            self.aw = Some(u.m_axil_awaddr.val().to_u64() as u32);
        }
        if u.m_axil_wvalid.val() && u.m_axil_wready.val() {
            assert_eq!(u.m_axil_wstrb.val().to_u64(), 0xF);
            self.w = Some(u.m_axil_wdata.val().to_u64() as u32);
        }
        if u.m_axil_bvalid.val() && u.m_axil_bready.val() {
            self.b_pending = None;
        }
        if u.m_axil_rvalid.val() && u.m_axil_rready.val() {
            self.r_pending = None;
        }
        if let (Some(a), Some(d)) = (self.aw, self.w) {
            if self.b_pending.is_none() {
                let err = a >= 0x8000_0000;
                if !err {
                    self.regs.insert(a, d);
                }
                self.writes += 1;
                self.b_pending = Some((now + 1 + rng.range(0, 4) as u64, err));
                self.aw = None;
                self.w = None;
            }
        }
        if u.m_axil_arvalid.val() && u.m_axil_arready.val() {
            let a = u.m_axil_araddr.val().to_u64() as u32;
            let err = a >= 0x8000_0000;
            let d = if err {
                0xDEAD_BEEF
            } else {
                *self.regs.get(&a).unwrap_or(&0)
            };
            self.reads += 1;
            self.r_pending = Some((now + 1 + rng.range(0, 4) as u64, d, err));
        }
    }
}

/// One step of the PC's session: what it sends and, from the protocol, what comes back.
enum Step {
    Write(u32, u32),
    Read(u32),
    /// a byte that is not a command
    Garbage(u8),
    /// a character with a low stop bit (no answer)
    BadFrame(u8),
    /// the first `n` bytes of a write, then silence past the timeout (no answer)
    Abandoned(usize),
}

struct Run {
    line: VecDeque<bool>,
    /// the PC's receiver of `txd`
    dec: UartDecoder,
    slave: Slave,
    t: u64,
    frame_errs: u64,
    cmds: u64,
}

impl Run {
    fn cycle<S: Stepper<UartAxil>>(&mut self, b: &mut S, rng: &mut Rng) {
        let level = self.line.pop_front().unwrap_or(true);
        let u = b.uut();
        u.rxd.next = level;
        self.slave.drive(u, rng, self.t);
        b.settle();
        let u = b.uut();
        self.slave.sample(u, rng, self.t);
        self.dec.sample(self.t, u.txd.val());
        self.frame_errs += u.ev_frame_err.val() as u64;
        self.cmds += u.ev_cmd.val() as u64;
        // AXI4-Lite rule: a master does not wait for ready before valid
        b.tick();
        self.t += 1;
    }

    /// Send `bytes` (random idle time between characters, well under the timeout).
    fn send(&mut self, bytes: &[u8], rng: &mut Rng) {
        for &x in bytes {
            uart_char_levels(x, DIV, true, &mut self.line);
            let gap = rng.range(0, 2 * DIV);
            self.line.extend(std::iter::repeat(true).take(gap));
        }
    }

    /// Run until `n` answer bytes arrived (and the line and bus are quiet), or, for `n` = 0,
    /// for long enough that an answer would have started.
    fn answer<S: Stepper<UartAxil>>(&mut self, b: &mut S, rng: &mut Rng, n: usize) -> Vec<u8> {
        let mut guard = 0;
        while !self.line.is_empty() {
            self.cycle(b, rng);
        }
        if n == 0 {
            for _ in 0..(TIMEOUT as usize + 20 * DIV) {
                self.cycle(b, rng);
            }
        } else {
            while self.dec.bytes.len() < n || self.dec.busy() {
                self.cycle(b, rng);
                guard += 1;
                assert!(guard < 200 * DIV, "no answer ({:?} so far)", self.dec.bytes);
            }
            // a stray extra answer byte would start within a character time
            for _ in 0..2 * DIV {
                self.cycle(b, rng);
            }
        }
        self.dec.take_bytes()
    }
}

fn session<S: Stepper<UartAxil>>(b: &mut S, seed: u64, steps: usize) {
    let mut rng = Rng::new(seed);
    let mut run = Run {
        line: VecDeque::new(),
        dec: UartDecoder::new(DIV as u64),
        slave: Slave::default(),
        t: 0,
        frame_errs: 0,
        cmds: 0,
    };
    // the reference model of the register file behind the bridge
    let mut model: HashMap<u32, u32> = HashMap::new();
    let addrs = [
        0x0000_0000u32,
        0x0000_0004,
        0x0000_1008,
        0x0012_3454,
        0x8000_0010,
        0xFFFF_FFFC,
    ];
    let (mut want_errs, mut want_cmds) = (0u64, 0u64);
    let mut kinds = [0usize; 5];
    for _ in 0..20 {
        run.cycle(b, &mut rng);
    }
    for i in 0..steps {
        let a = addrs[rng.range(0, addrs.len() - 1)];
        let step = match rng.range(0, 9) {
            0..=3 => Step::Write(a, rng.next_u64() as u32),
            4..=6 => Step::Read(a),
            7 => Step::Garbage(loop {
                let g = rng.next_u64() as u8;
                if g != b'W' && g != b'R' {
                    break g;
                }
            }),
            8 => Step::BadFrame(rng.next_u64() as u8),
            _ => Step::Abandoned(rng.range(1, 8)),
        };
        match step {
            Step::Write(a, d) => {
                kinds[0] += 1;
                want_cmds += 1;
                let mut m = vec![b'W'];
                m.extend(a.to_be_bytes());
                m.extend(d.to_be_bytes());
                run.send(&m, &mut rng);
                let err = a >= 0x8000_0000;
                if !err {
                    model.insert(a, d);
                }
                let want = vec![if err { b'E' } else { b'K' }];
                assert_eq!(
                    run.answer(b, &mut rng, 1),
                    want,
                    "step {i}: W {a:#x} {d:#x}"
                );
            }
            Step::Read(a) => {
                kinds[1] += 1;
                want_cmds += 1;
                let mut m = vec![b'R'];
                m.extend(a.to_be_bytes());
                run.send(&m, &mut rng);
                let err = a >= 0x8000_0000;
                let d = if err {
                    0xDEAD_BEEF
                } else {
                    *model.get(&a).unwrap_or(&0)
                };
                let mut want = vec![if err { b'E' } else { b'K' }];
                want.extend(d.to_be_bytes());
                assert_eq!(run.answer(b, &mut rng, 5), want, "step {i}: R {a:#x}");
            }
            Step::Garbage(g) => {
                kinds[2] += 1;
                run.send(&[g], &mut rng);
                assert_eq!(run.answer(b, &mut rng, 1), vec![b'?'], "step {i}: {g:#x}");
            }
            Step::BadFrame(g) => {
                kinds[3] += 1;
                want_errs += 1;
                uart_char_levels(g, DIV, false, &mut run.line);
                assert_eq!(run.answer(b, &mut rng, 0), vec![], "step {i}: bad frame");
            }
            Step::Abandoned(n) => {
                kinds[4] += 1;
                let mut m = vec![b'W'];
                m.extend(0x0000_0004u32.to_be_bytes());
                m.extend(0x5555_AAAAu32.to_be_bytes());
                run.send(&m[..n], &mut rng);
                assert_eq!(
                    run.answer(b, &mut rng, 0),
                    vec![],
                    "step {i}: abandoned after {n}"
                );
            }
        }
    }
    assert_eq!(run.frame_errs, want_errs);
    assert_eq!(run.cmds, want_cmds);
    assert_eq!(run.slave.writes, kinds[0] as u64);
    assert_eq!(run.slave.reads, kinds[1] as u64);
    let mut held: Vec<_> = run.slave.regs.iter().map(|(a, d)| (*a, *d)).collect();
    let mut want: Vec<_> = model.iter().map(|(a, d)| (*a, *d)).collect();
    held.sort();
    want.sort();
    assert_eq!(held, want, "the slave's registers");
    assert!(
        kinds.iter().all(|&k| k > 0),
        "every kind of step: {kinds:?}"
    );
    eprintln!("seed {seed}: {steps} steps {kinds:?} in {} cycles", run.t);
}

#[test]
fn block_bench_random_session() {
    for seed in 1..4 {
        let mut b = Bench::new(bridge(), |u| &mut u.clock);
        session(&mut b, seed, 120);
    }
}

#[test]
fn cosim_uart_axil_random() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(bridge(), |u| &mut u.clock);
    session(&mut cs, 7, 40);
    eprintln!(
        "{} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
}

/// Yosys `synth_ecp5` of the bridge at the board's rate (115200 baud at 125 MHz): no latch,
/// `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_uart_axil() {
    let m = "ferroce_uart_axil";
    let v = ferroce_hdl::verilog::block_verilog(&mut UartAxil::new(1085, 1 << 20), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("uart_axil_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    assert!(
        st.count("LUT4") > 0 && st.count("TRELLIS_FF") > 100,
        "{}",
        st.line(ECP5_CELLS)
    );
}
