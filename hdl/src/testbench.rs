//! Testbench helpers: hand stepping of a rust-hdl block, stream feeders/collectors with random
//! valid/ready gaps, a tiny deterministic RNG, and the PC's side of a UART line
//! ([`uart_char_levels`], [`UartDecoder`]).
//!
//! Why hand stepping: the threaded `Simulation` of rust-hdl is ~3x slower than calling
//! `simulate()` by hand (docs/HDL-RULES.md). [`Bench`] does `connect_all` + `check_all` once, then
//! each [`Stepper::tick`] raises the clock, settles, lowers it and settles again.
//!
//! A test cycle always has this shape (the same for [`Bench`] and for the co-simulation
//! harness [`crate::cosim::CoSim`], which implements [`Stepper`] too):
//!
//! ```ignore
//! feeder.drive(&mut b.uut().inp, &mut rng);      // 1. set inputs (.next)
//! collector.drive_ready(&mut b.uut().out, &mut rng);
//! b.settle();                                     // 2. combinational settle
//! let fired = b.uut().inp.fires();                // 3. sample handshakes / outputs
//! collector.sample(&b.uut().out);
//! b.tick();                                       // 4. rising edge (registers update)
//! feeder.after_edge(fired);
//! ```
use crate::stream::{frame_to_beats, Beat, StreamSink, StreamSource};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Something that steps a block cycle by cycle: the pure rust-hdl [`Bench`], or the
/// co-simulation harness (rust-hdl and Verilator in lock step).
pub trait Stepper<B: Block> {
    /// The rust-hdl block: set inputs with `.next`, read outputs with `.val()`.
    fn uut(&mut self) -> &mut B;
    /// Propagate combinational logic after inputs changed (outputs become valid).
    fn settle(&mut self);
    /// One rising clock edge (then the clock goes low again); registers update.
    fn tick(&mut self);
    /// Number of rising edges so far.
    fn cycles(&self) -> u64;
}

/// A stepper lent to a driver that takes one by value (e.g. `HdlPins(&mut cosim)`).
impl<B: Block, S: Stepper<B> + ?Sized> Stepper<B> for &mut S {
    fn uut(&mut self) -> &mut B {
        (**self).uut()
    }
    fn settle(&mut self) {
        (**self).settle()
    }
    fn tick(&mut self) {
        (**self).tick()
    }
    fn cycles(&self) -> u64 {
        (**self).cycles()
    }
}

/// Accessor for a block's clock input, e.g. `|u: &mut MyBlock| &mut u.clock`.
pub type ClockFn<B> = fn(&mut B) -> &mut Signal<In, Clock>;

/// Hand-stepped rust-hdl simulation of one block.
pub struct Bench<B: Block> {
    pub uut: B,
    clock: ClockFn<B>,
    cycles: u64,
}

impl<B: Block> Bench<B> {
    /// Connects and checks the block (panics with rust-hdl's check error on a bad design).
    pub fn new(mut uut: B, clock: ClockFn<B>) -> Self {
        uut.connect_all();
        if let Err(e) = check_all(&uut) {
            panic!("rust-hdl check_all failed: {e:?}");
        }
        clock(&mut uut).next = Clock::from(false);
        let mut b = Bench {
            uut,
            clock,
            cycles: 0,
        };
        b.settle();
        b
    }
}

/// Settle a block; panics if it does not converge within 100 passes (a combinational loop).
pub fn settle_block<B: Block>(uut: &mut B) {
    assert!(
        simulate(uut, 100),
        "rust-hdl: logic did not converge (combinational loop?)"
    );
}

impl<B: Block> Bench<B> {
    /// Drive the clock to `level` and settle (a rising edge counts a cycle). [`Stepper::tick`]
    /// is `clock_level(true)` then `clock_level(false)`.
    pub fn clock_level(&mut self, level: bool) {
        (self.clock)(&mut self.uut).next = Clock::from(level);
        settle_block(&mut self.uut);
        if level {
            self.cycles += 1;
        }
    }
}

impl<B: Block> Stepper<B> for Bench<B> {
    fn uut(&mut self) -> &mut B {
        &mut self.uut
    }
    fn settle(&mut self) {
        settle_block(&mut self.uut);
    }
    fn tick(&mut self) {
        self.clock_level(true);
        self.clock_level(false);
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
}

/// Small deterministic xorshift64* generator (no dependency, reproducible from a seed).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }
    /// True with probability `p` percent.
    pub fn percent(&mut self, p: u32) -> bool {
        (self.below(100) as u32) < p
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Drives a queue of beats into a block's [`StreamSink`] port, with random bubbles
/// (`gap_percent` chance of idling each cycle while not already presenting a beat).
/// Once a beat is presented it is held until accepted (AXI rule).
#[derive(Clone, Debug, Default)]
pub struct Feeder {
    pub queue: VecDeque<Beat>,
    pub gap_percent: u32,
    presenting: bool,
}

impl Feeder {
    pub fn new(gap_percent: u32) -> Self {
        Feeder {
            gap_percent,
            ..Default::default()
        }
    }
    /// Queue a whole frame, cut into beats of `k` bytes.
    pub fn push_frame(&mut self, frame: &[u8], k: usize) {
        self.queue.extend(frame_to_beats(frame, k));
    }
    /// Step 1 of a cycle: drive the port.
    pub fn drive<const B: usize, const K: usize>(
        &mut self,
        port: &mut StreamSink<B, K>,
        rng: &mut Rng,
    ) {
        port.drive(self.next_beat(rng));
    }
    /// Step 1 without a rust-hdl port: the beat to present this cycle (if any).
    pub fn next_beat(&mut self, rng: &mut Rng) -> Option<&Beat> {
        if !self.presenting {
            self.presenting = !self.queue.is_empty() && !rng.percent(self.gap_percent);
        }
        self.presented()
    }
    /// Step 4: after the edge, with `fired` sampled before the edge (`port.fires()`).
    pub fn after_edge(&mut self, fired: bool) {
        if fired {
            assert!(
                self.presenting,
                "Feeder: a transfer fired while not presenting"
            );
            self.queue.pop_front();
            self.presenting = false;
        }
    }
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
    /// The beat currently presented (if any).
    pub fn presented(&self) -> Option<&Beat> {
        if self.presenting {
            self.queue.front()
        } else {
            None
        }
    }
}

/// Accepts beats from a block's [`StreamSource`] port with random back-pressure
/// (`stall_percent` chance of `ready = 0` each cycle) and records them.
#[derive(Clone, Debug, Default)]
pub struct Collector {
    pub beats: Vec<Beat>,
    pub stall_percent: u32,
}

impl Collector {
    pub fn new(stall_percent: u32) -> Self {
        Collector {
            stall_percent,
            ..Default::default()
        }
    }
    /// Step 1: drive `ready`.
    pub fn drive_ready<const B: usize, const K: usize>(
        &mut self,
        port: &mut StreamSource<B, K>,
        rng: &mut Rng,
    ) {
        port.ready.next = !rng.percent(self.stall_percent);
    }
    /// Step 3 (after settle, before the edge): record the beat if a transfer fires.
    pub fn sample<const B: usize, const K: usize>(&mut self, port: &StreamSource<B, K>) -> bool {
        if port.fires() {
            self.beats.push(port.peek().expect("valid"));
            true
        } else {
            false
        }
    }
    /// Complete frames received so far (plus an unterminated tail, if any).
    pub fn frames(&self) -> Vec<Vec<u8>> {
        crate::stream::beats_to_frames(&self.beats)
    }
}

/// Options for [`random_roce_frame`].
#[derive(Clone, Copy, Debug)]
pub struct FrameOpts {
    /// 1 IPv4, 2 IPv6, 3 RoCEv1 (see `crate::icrc::KIND_*`); 0 = random of the three.
    pub kind: u64,
    /// None = random.
    pub vlan: Option<bool>,
    pub max_payload: usize,
    /// Up to this many random bytes after the ICRC (Ethernet padding / FCS).
    pub max_trailer: usize,
}

impl Default for FrameOpts {
    fn default() -> Self {
        FrameOpts {
            kind: 0,
            vlan: None,
            max_payload: 200,
            max_trailer: 8,
        }
    }
}

/// A random RoCE frame (Ethernet header, optional 802.1Q tag, IPv4/IPv6+UDP or GRH, BTH with
/// random contents, payload, ICRC, random trailer). Header fields other than the lengths,
/// EtherType, UDP port and next-header are random (checksums are not valid: the ICRC blocks do
/// not look at them). Returns `(frame, icrc_offset)` with the correct ICRC in place.
pub fn random_roce_frame(rng: &mut Rng, o: FrameOpts) -> (Vec<u8>, usize) {
    use crate::icrc::{KIND_IPV4, KIND_IPV6};
    let kind = if o.kind == 0 {
        1 + rng.below(3)
    } else {
        o.kind
    };
    let vlan = o.vlan.unwrap_or_else(|| rng.percent(30));
    let pay = rng.range(0, o.max_payload);
    let l_ib = 12 + pay + 4; // BTH + payload(+pad) + ICRC
    let mut f = rng.bytes(12);
    if vlan {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend(rng.bytes(2));
    }
    let put16 = |f: &mut Vec<u8>, v: usize| f.extend_from_slice(&(v as u16).to_be_bytes());
    match kind {
        KIND_IPV4 => {
            put16(&mut f, 0x0800);
            let mut ip = rng.bytes(20);
            ip[0] = 0x45;
            ip[2..4].copy_from_slice(&((20 + 8 + l_ib) as u16).to_be_bytes());
            ip[9] = 17;
            f.extend(ip);
        }
        KIND_IPV6 => {
            put16(&mut f, 0x86DD);
            let mut ip = rng.bytes(40);
            ip[0] = 0x60 | (ip[0] & 0x0F);
            ip[4..6].copy_from_slice(&((8 + l_ib) as u16).to_be_bytes());
            ip[6] = 17;
            f.extend(ip);
        }
        _ => {
            put16(&mut f, 0x8915);
            let mut grh = rng.bytes(40);
            grh[0] = 0x60 | (grh[0] & 0x0F);
            grh[4..6].copy_from_slice(&(l_ib as u16).to_be_bytes());
            grh[6] = 0x1B;
            f.extend(grh);
        }
    }
    if kind != crate::icrc::KIND_ROCEV1 {
        let mut udp = rng.bytes(8);
        udp[2..4].copy_from_slice(&4791u16.to_be_bytes());
        udp[4..6].copy_from_slice(&((8 + l_ib) as u16).to_be_bytes());
        f.extend(udp);
    }
    f.extend(rng.bytes(12 + pay));
    let at = f.len();
    f.extend_from_slice(&[0; 4]);
    let trailer = rng.range(0, o.max_trailer);
    f.extend(rng.bytes(trailer));
    let (icrc, off) = crate::icrc::reference_icrc(&f).expect("well-formed frame");
    assert_eq!(off, at);
    f[at..at + 4].copy_from_slice(&icrc.to_le_bytes());
    (f, at)
}

/// Decode a hex string (whitespace ignored).
pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// The PC's side of a UART line in a bench: 8N1 characters (one start bit, eight data bits
/// LSB first, one stop bit) turned into line levels, one level per cycle.
///
/// Why here: the benches of the UART bridge (`board::UartAxil`) and of the boards that embed
/// it (`board::Ecpix5Core`) both speak the bridge's protocol bit by bit; one host model keeps
/// their idea of the line the same instead of two copies that could drift apart.
///
/// `bit` is the number of cycles per bit (the bridge's divider); `stop_ok` false makes a
/// framing error: the stop bit is low for three quarters of a bit before the line goes high
/// (idle) for a whole bit.
pub fn uart_char_levels(byte: u8, bit: usize, stop_ok: bool, out: &mut VecDeque<bool>) {
    out.extend(std::iter::repeat_n(false, bit));
    for i in 0..8 {
        out.extend(std::iter::repeat_n((byte >> i) & 1 == 1, bit));
    }
    if !stop_ok {
        out.extend(std::iter::repeat_n(false, bit * 3 / 4));
    }
    out.extend(std::iter::repeat_n(true, bit));
}

/// The PC's receiver of a UART line in a bench (see [`uart_char_levels`] for why it lives
/// here): fed the line once per cycle, a falling edge from idle starts a character, each bit is
/// sampled in its middle, and the decoder panics on a low start bit's absence or a low stop bit
/// (a framing error on the device's transmit side is a failure of the device under test).
#[derive(Clone, Debug)]
pub struct UartDecoder {
    /// Cycles per bit.
    bit: u64,
    prev: bool,
    /// The cycle of the falling edge of the character being received.
    start: Option<u64>,
    bits: u16,
    /// The characters received so far (take them with [`UartDecoder::take_bytes`]).
    pub bytes: Vec<u8>,
}

impl UartDecoder {
    /// A decoder for `bit` cycles per bit. The line counts as low before the first sample, so
    /// a line that starts low does not start a character until it has been high.
    pub fn new(bit: u64) -> Self {
        UartDecoder {
            bit,
            prev: false,
            start: None,
            bits: 0,
            bytes: Vec::new(),
        }
    }

    /// The line's level at cycle `t` (one call per cycle, `t` increasing by one).
    pub fn sample(&mut self, t: u64, line: bool) {
        let bit = self.bit;
        match self.start {
            None => {
                if self.prev && !line {
                    self.start = Some(t);
                }
            }
            Some(t0) => {
                let dt = t - t0;
                if dt >= bit / 2 && (dt - bit / 2).is_multiple_of(bit) {
                    let k = (dt - bit / 2) / bit;
                    match k {
                        0 => assert!(!line, "UART: start bit high at cycle {t}"),
                        1..=8 => self.bits |= (line as u16) << (k - 1),
                        _ => {
                            assert!(line, "UART: stop bit low at cycle {t}");
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

    /// Whether a character is being received (its start edge seen, its stop bit not yet).
    pub fn busy(&self) -> bool {
        self.start.is_some()
    }

    /// The characters received so far; the list starts empty again.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }
}
