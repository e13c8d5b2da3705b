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
//!   placement of the whole top are `constraints/ecpix5-85f/build.sh` (tens of minutes).
//!
//! Needs yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::ecpix5_top::{NIC_CLKOS_DIV, NIC_CLOCK_HZ, PLL_CLKOP_DIV};
use ferroce_hdl::board::{Ecpix5Core, Ecpix5Top};
use ferroce_hdl::testbench::settle_block;
use ferroce_proto::host::regs;
use ferroce_testkit::{workspace_root, yosys_check};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// NIC cycles per UART bit in the benches.
const DIV: u64 = 8;
const TIMEOUT: u32 = 40 * DIV as u32;
const PHY_RESET: u32 = 20;
/// Half periods in time units: NIC clock, Ethernet clocks.
const NIC_HALF: u64 = 3;
const ETH_HALF: u64 = 2;

/// Serial decoder of `uart_tx`, sampled once per NIC cycle.
#[derive(Default)]
struct Decoder {
    prev: bool,
    start: Option<u64>,
    bits: u16,
    bytes: Vec<u8>,
}

impl Decoder {
    fn sample(&mut self, t: u64, line: bool) {
        match self.start {
            None => {
                if self.prev && !line {
                    self.start = Some(t);
                }
            }
            Some(t0) => {
                let dt = t - t0;
                if dt >= DIV / 2 && (dt - DIV / 2).is_multiple_of(DIV) {
                    let k = (dt - DIV / 2) / DIV;
                    match k {
                        0 => assert!(!line, "start bit at NIC cycle {t}"),
                        1..=8 => self.bits |= (line as u16) << (k - 1),
                        _ => {
                            assert!(line, "stop bit low at NIC cycle {t}");
                            self.bytes.push(self.bits as u8);
                            self.bits = 0;
                            self.start = None;
                        }
                    }
                }
            }
        }
        self.prev = line;
    }
}

struct Board {
    u: Box<Ecpix5Core>,
    t: u64,
    nic_cycles: u64,
    line: VecDeque<bool>,
    gmii: VecDeque<(u8, bool)>,
    dec: Decoder,
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
            dec: Decoder::default(),
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
            self.line.extend(std::iter::repeat_n(false, DIV as usize));
            for i in 0..8 {
                self.line
                    .extend(std::iter::repeat_n((b >> i) & 1 == 1, DIV as usize));
            }
            self.line
                .extend(std::iter::repeat_n(true, 2 * DIV as usize));
        }
    }

    /// Send a command and wait for `n` answer bytes.
    fn command(&mut self, bytes: &[u8], n: usize) -> Vec<u8> {
        self.send(bytes);
        let mut guard = 0;
        while !self.line.is_empty() {
            self.nic_cycle();
        }
        while self.dec.bytes.len() < n || self.dec.start.is_some() {
            self.nic_cycle();
            guard += 1;
            assert!(guard < 100 * DIV, "no answer ({:?} so far)", self.dec.bytes);
        }
        for _ in 0..2 * DIV {
            self.nic_cycle();
        }
        std::mem::take(&mut self.dec.bytes)
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
