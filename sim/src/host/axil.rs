//! An AXI4-Lite master: the host CPU's 32-bit MMIO reads and writes of BAR0, as the PCIe shell
//! delivers them to the NIC's `s_axil_*` slave port.
//!
//! The master is a small state machine with the same two-phase cycle as every outside model
//! ([`AxiLiteMaster::drive`] before the settle, [`AxiLiteMaster::sample`] after it), so a NIC
//! model can run it alongside the DMA shell and the MACs in one cycle loop. For a block on its
//! own, [`AxiLiteMaster::read`] / [`AxiLiteMaster::write`] run a whole transaction, stepping the
//! clock through [`Clocked`].
//!
//! The slave is reached through [`AxiLitePort`] (set the master's signals, read the slave's),
//! implemented here for
//! * a rust-hdl block stepped by a `Stepper` ([`StepperAxiLite`]), given a function that maps
//!   the block's signals ([`AxilPins`]), whatever the block calls them;
//! * a Verilator model ([`VerilatedAxiLite`]), by port name: `s_axil_awvalid` or
//!   `s_axil$awvalid` (a flat field or a `LogicInterface` named `s_axil`).
//!
//! Protocol (AXI4-Lite, AMBA IHI0022): a write presents AW and W together and waits for each
//! handshake independently, then takes B; a read presents AR, then takes R. Valid signals are
//! never withdrawn before their handshake. Optional jitter delays the valids and the B/R
//! readies at random, to check that the slave does not depend on a particular timing.
use ferroce_hdl::cosim::VerilatedBlock;
use ferroce_hdl::testbench::{Rng, Stepper};
use rust_hdl::prelude::*;
use std::marker::PhantomData;

/// The signals the master drives (inputs of the NIC's slave port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxilIn {
    AwValid,
    AwAddr,
    AwProt,
    WValid,
    WData,
    WStrb,
    BReady,
    ArValid,
    ArAddr,
    ArProt,
    RReady,
}

/// The signals the slave drives (outputs of the NIC's slave port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxilOut {
    AwReady,
    WReady,
    BValid,
    BResp,
    ArReady,
    RValid,
    RData,
    RResp,
}

/// Access to a block's AXI4-Lite slave port. `set` drives an input for the next settle;
/// `get` reads an output after a settle. A port without `*prot`, `wstrb` or `*resp`
/// ignores / reads 0 for them.
pub trait AxiLitePort {
    fn set(&mut self, signal: AxilIn, value: u64);
    fn get(&mut self, signal: AxilOut) -> u64;
}

/// Settle and clock the system that holds the slave (for the blocking helpers).
pub trait Clocked {
    /// Propagate combinational logic after inputs changed.
    fn settle(&mut self);
    /// One rising clock edge.
    fn tick(&mut self);
}

/// The outcome of one transaction. `resp`: 0 OKAY, 1 EXOKAY, 2 SLVERR, 3 DECERR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxilCompletion {
    /// Read data (0 for a write).
    pub data: u32,
    pub resp: u8,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Read { addr: u32 },
    Write { addr: u32, data: u32, strb: u8 },
}

/// The AXI4-Lite master state machine (one transaction at a time).
#[derive(Clone, Debug)]
pub struct AxiLiteMaster {
    op: Option<Op>,
    /// AW (or AR) handshake done.
    addr_done: bool,
    /// W handshake done.
    data_done: bool,
    /// Valids asserted (jitter may delay the first assertion, never withdraw it).
    addr_shown: bool,
    data_shown: bool,
    /// What `drive` put on the port this cycle.
    drove_resp_ready: bool,
    completion: Option<AxilCompletion>,
    jitter: Option<(Rng, u32)>,
    cycles_in_op: u64,
    /// A transaction that takes longer than this panics: a hung bus is a NIC bug.
    pub timeout_cycles: u64,
}

impl Default for AxiLiteMaster {
    fn default() -> Self {
        Self::new()
    }
}

impl AxiLiteMaster {
    pub fn new() -> Self {
        AxiLiteMaster {
            op: None,
            addr_done: false,
            data_done: false,
            addr_shown: false,
            data_shown: false,
            drove_resp_ready: false,
            completion: None,
            jitter: None,
            cycles_in_op: 0,
            timeout_cycles: 100_000,
        }
    }

    /// A master that delays valids and response readies at random (`percent` chance per
    /// cycle), reproducibly from `seed`.
    pub fn with_jitter(seed: u64, percent: u32) -> Self {
        AxiLiteMaster {
            jitter: Some((Rng::new(seed), percent)),
            ..Self::new()
        }
    }

    /// A transaction is in progress.
    pub fn busy(&self) -> bool {
        self.op.is_some()
    }

    fn start(&mut self, op: Op) {
        assert!(
            self.op.is_none(),
            "AxiLiteMaster: a transaction is already in progress"
        );
        self.op = Some(op);
        self.addr_done = false;
        self.data_done = false;
        self.addr_shown = false;
        self.data_shown = false;
        self.completion = None;
        self.cycles_in_op = 0;
    }

    /// Begin a 32-bit read of byte address `addr`.
    pub fn start_read(&mut self, addr: u32) {
        self.start(Op::Read { addr });
    }

    /// Begin a 32-bit write (all four byte strobes) of `data` to byte address `addr`.
    pub fn start_write(&mut self, addr: u32, data: u32) {
        self.start(Op::Write {
            addr,
            data,
            strb: 0xF,
        });
    }

    /// The completion of the last transaction, once (`None` while busy).
    pub fn take_completion(&mut self) -> Option<AxilCompletion> {
        self.completion.take()
    }

    fn hold_back(&mut self) -> bool {
        match &mut self.jitter {
            Some((rng, p)) => rng.percent(*p),
            None => false,
        }
    }

    /// Step 1 of a cycle: drive the master's signals.
    pub fn drive<P: AxiLitePort + ?Sized>(&mut self, port: &mut P) {
        let (mut awvalid, mut wvalid, mut arvalid, mut bready, mut rready) =
            (false, false, false, false, false);
        match self.op {
            None => {}
            Some(Op::Write { addr, data, strb }) => {
                if !self.addr_done {
                    self.addr_shown = self.addr_shown || !self.hold_back();
                    awvalid = self.addr_shown;
                }
                if !self.data_done {
                    self.data_shown = self.data_shown || !self.hold_back();
                    wvalid = self.data_shown;
                }
                bready = self.addr_done && self.data_done && !self.hold_back();
                port.set(AxilIn::AwAddr, addr as u64);
                port.set(AxilIn::AwProt, 0);
                port.set(AxilIn::WData, data as u64);
                port.set(AxilIn::WStrb, strb as u64);
            }
            Some(Op::Read { addr }) => {
                if !self.addr_done {
                    self.addr_shown = self.addr_shown || !self.hold_back();
                    arvalid = self.addr_shown;
                }
                rready = self.addr_done && !self.hold_back();
                port.set(AxilIn::ArAddr, addr as u64);
                port.set(AxilIn::ArProt, 0);
            }
        }
        port.set(AxilIn::AwValid, awvalid as u64);
        port.set(AxilIn::WValid, wvalid as u64);
        port.set(AxilIn::BReady, bready as u64);
        port.set(AxilIn::ArValid, arvalid as u64);
        port.set(AxilIn::RReady, rready as u64);
        self.drove_resp_ready = bready || rready;
    }

    /// Step 3 of a cycle (after the settle, before the edge): take this cycle's handshakes.
    pub fn sample<P: AxiLitePort + ?Sized>(&mut self, port: &mut P) {
        let Some(op) = self.op else { return };
        self.cycles_in_op += 1;
        match op {
            Op::Write { addr, .. } => {
                // response first: it refers to handshakes of earlier cycles
                if self.drove_resp_ready && port.get(AxilOut::BValid) != 0 {
                    self.finish(0, port.get(AxilOut::BResp) as u8);
                    return;
                }
                if self.addr_shown && !self.addr_done && port.get(AxilOut::AwReady) != 0 {
                    self.addr_done = true;
                }
                if self.data_shown && !self.data_done && port.get(AxilOut::WReady) != 0 {
                    self.data_done = true;
                }
                self.check_timeout("write", addr);
            }
            Op::Read { addr } => {
                if self.drove_resp_ready && port.get(AxilOut::RValid) != 0 {
                    let data = port.get(AxilOut::RData) as u32;
                    self.finish(data, port.get(AxilOut::RResp) as u8);
                    return;
                }
                if self.addr_shown && !self.addr_done && port.get(AxilOut::ArReady) != 0 {
                    self.addr_done = true;
                }
                self.check_timeout("read", addr);
            }
        }
    }

    fn finish(&mut self, data: u32, resp: u8) {
        self.op = None;
        self.completion = Some(AxilCompletion { data, resp });
    }

    fn check_timeout(&self, what: &str, addr: u32) {
        assert!(
            self.cycles_in_op < self.timeout_cycles,
            "AXI4-Lite {what} at {addr:#x} did not complete in {} cycles (address handshake done: {}, data handshake done: {})",
            self.timeout_cycles,
            self.addr_done,
            self.data_done
        );
    }

    fn run<S: AxiLitePort + Clocked + ?Sized>(&mut self, sys: &mut S) -> AxilCompletion {
        loop {
            self.drive(sys);
            sys.settle();
            self.sample(sys);
            sys.tick();
            if let Some(c) = self.take_completion() {
                return c;
            }
        }
    }

    /// A whole read transaction on a block that nothing else drives, stepping its clock.
    pub fn read<S: AxiLitePort + Clocked + ?Sized>(
        &mut self,
        sys: &mut S,
        addr: u32,
    ) -> AxilCompletion {
        self.start_read(addr);
        self.run(sys)
    }

    /// A whole write transaction on a block that nothing else drives, stepping its clock.
    pub fn write<S: AxiLitePort + Clocked + ?Sized>(
        &mut self,
        sys: &mut S,
        addr: u32,
        data: u32,
    ) -> AxilCompletion {
        self.start_write(addr, data);
        self.run(sys)
    }
}

// ---- rust-hdl blocks -------------------------------------------------------------------------

/// One rust-hdl signal, of any width up to 64 bits, as a number.
pub trait Pin {
    fn set_u64(&mut self, value: u64);
    fn get_u64(&self) -> u64;
}

fn mask(value: u64, bits: usize) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

macro_rules! impl_pin {
    ($dir:ty) => {
        impl<const N: usize> Pin for Signal<$dir, Bits<N>> {
            fn set_u64(&mut self, value: u64) {
                self.next = mask(value, N).into();
            }
            fn get_u64(&self) -> u64 {
                self.val().to_u64()
            }
        }
        impl Pin for Signal<$dir, Bit> {
            fn set_u64(&mut self, value: u64) {
                self.next = value & 1 == 1;
            }
            fn get_u64(&self) -> u64 {
                self.val() as u64
            }
        }
    };
}
impl_pin!(In);
impl_pin!(Out);

/// The AXI4-Lite signals of a rust-hdl block, borrowed for one access. Optional signals the
/// block does not have are `None`.
pub struct AxilPins<'a> {
    pub awvalid: &'a mut dyn Pin,
    pub awready: &'a mut dyn Pin,
    pub awaddr: &'a mut dyn Pin,
    pub awprot: Option<&'a mut dyn Pin>,
    pub wvalid: &'a mut dyn Pin,
    pub wready: &'a mut dyn Pin,
    pub wdata: &'a mut dyn Pin,
    pub wstrb: Option<&'a mut dyn Pin>,
    pub bvalid: &'a mut dyn Pin,
    pub bready: &'a mut dyn Pin,
    pub bresp: Option<&'a mut dyn Pin>,
    pub arvalid: &'a mut dyn Pin,
    pub arready: &'a mut dyn Pin,
    pub araddr: &'a mut dyn Pin,
    pub arprot: Option<&'a mut dyn Pin>,
    pub rvalid: &'a mut dyn Pin,
    pub rready: &'a mut dyn Pin,
    pub rdata: &'a mut dyn Pin,
    pub rresp: Option<&'a mut dyn Pin>,
}

/// Maps a block to its AXI4-Lite signals, e.g.
/// `|u: &mut Csr| AxilPins { awvalid: &mut u.s_axil_awvalid, .. }`.
pub type PinsFn<U> = for<'a> fn(&'a mut U) -> AxilPins<'a>;

impl<'a> AxilPins<'a> {
    fn input(&mut self, s: AxilIn) -> Option<&mut (dyn Pin + 'a)> {
        match s {
            AxilIn::AwValid => Some(&mut *self.awvalid),
            AxilIn::AwAddr => Some(&mut *self.awaddr),
            AxilIn::AwProt => self.awprot.as_deref_mut(),
            AxilIn::WValid => Some(&mut *self.wvalid),
            AxilIn::WData => Some(&mut *self.wdata),
            AxilIn::WStrb => self.wstrb.as_deref_mut(),
            AxilIn::BReady => Some(&mut *self.bready),
            AxilIn::ArValid => Some(&mut *self.arvalid),
            AxilIn::ArAddr => Some(&mut *self.araddr),
            AxilIn::ArProt => self.arprot.as_deref_mut(),
            AxilIn::RReady => Some(&mut *self.rready),
        }
    }
    fn output(&mut self, s: AxilOut) -> Option<&mut (dyn Pin + 'a)> {
        match s {
            AxilOut::AwReady => Some(&mut *self.awready),
            AxilOut::WReady => Some(&mut *self.wready),
            AxilOut::BValid => Some(&mut *self.bvalid),
            AxilOut::BResp => self.bresp.as_deref_mut(),
            AxilOut::ArReady => Some(&mut *self.arready),
            AxilOut::RValid => Some(&mut *self.rvalid),
            AxilOut::RData => Some(&mut *self.rdata),
            AxilOut::RResp => self.rresp.as_deref_mut(),
        }
    }
}

/// The AXI4-Lite slave port of a rust-hdl block inside a [`Stepper`] (`Bench` or `CoSim`);
/// [`Clocked`] settles and ticks the stepper.
pub struct StepperAxiLite<'s, U: Block, S: Stepper<U>> {
    stepper: &'s mut S,
    pins: PinsFn<U>,
    _block: PhantomData<U>,
}

impl<'s, U: Block, S: Stepper<U>> StepperAxiLite<'s, U, S> {
    pub fn new(stepper: &'s mut S, pins: PinsFn<U>) -> Self {
        StepperAxiLite {
            stepper,
            pins,
            _block: PhantomData,
        }
    }
}

impl<U: Block, S: Stepper<U>> AxiLitePort for StepperAxiLite<'_, U, S> {
    fn set(&mut self, signal: AxilIn, value: u64) {
        if let Some(p) = (self.pins)(self.stepper.uut()).input(signal) {
            p.set_u64(value);
        }
    }
    fn get(&mut self, signal: AxilOut) -> u64 {
        (self.pins)(self.stepper.uut())
            .output(signal)
            .map_or(0, |p| p.get_u64())
    }
}

impl<U: Block, S: Stepper<U>> Clocked for StepperAxiLite<'_, U, S> {
    fn settle(&mut self) {
        self.stepper.settle();
    }
    fn tick(&mut self) {
        self.stepper.tick();
    }
}

// ---- Verilator models ------------------------------------------------------------------------

/// Port indices of an AXI4-Lite slave port on a [`VerilatedBlock`], resolved once by name.
#[derive(Clone, Debug)]
pub struct AxilIds {
    inputs: [Option<usize>; 11],
    outputs: [Option<usize>; 8],
}

const INPUT_NAMES: [(AxilIn, &str, bool); 11] = [
    (AxilIn::AwValid, "awvalid", true),
    (AxilIn::AwAddr, "awaddr", true),
    (AxilIn::AwProt, "awprot", false),
    (AxilIn::WValid, "wvalid", true),
    (AxilIn::WData, "wdata", true),
    (AxilIn::WStrb, "wstrb", false),
    (AxilIn::BReady, "bready", true),
    (AxilIn::ArValid, "arvalid", true),
    (AxilIn::ArAddr, "araddr", true),
    (AxilIn::ArProt, "arprot", false),
    (AxilIn::RReady, "rready", true),
];

const OUTPUT_NAMES: [(AxilOut, &str, bool); 8] = [
    (AxilOut::AwReady, "awready", true),
    (AxilOut::WReady, "wready", true),
    (AxilOut::BValid, "bvalid", true),
    (AxilOut::BResp, "bresp", false),
    (AxilOut::ArReady, "arready", true),
    (AxilOut::RValid, "rvalid", true),
    (AxilOut::RData, "rdata", true),
    (AxilOut::RResp, "rresp", false),
];

impl AxilIds {
    /// The ports named `{prefix}_{signal}` or `{prefix}${signal}` (e.g. prefix `s_axil`).
    /// Panics with the port list if a required signal is missing.
    pub fn new(block: &VerilatedBlock, prefix: &str) -> Self {
        let find = |sig: &str, required: bool| {
            let id = [format!("{prefix}_{sig}"), format!("{prefix}${sig}")]
                .iter()
                .find_map(|n| block.ports.iter().position(|p| &p.name == n));
            if required && id.is_none() {
                let names: Vec<&str> = block.ports.iter().map(|p| p.name.as_str()).collect();
                panic!("AXI4-Lite port {prefix}_{sig} not found; ports: {names:?}");
            }
            id
        };
        let mut ids = AxilIds {
            inputs: [None; 11],
            outputs: [None; 8],
        };
        for (i, (_, n, req)) in INPUT_NAMES.iter().enumerate() {
            ids.inputs[i] = find(n, *req);
        }
        for (i, (_, n, req)) in OUTPUT_NAMES.iter().enumerate() {
            ids.outputs[i] = find(n, *req);
        }
        ids
    }

    fn input(&self, s: AxilIn) -> Option<usize> {
        INPUT_NAMES
            .iter()
            .position(|(x, _, _)| *x == s)
            .and_then(|i| self.inputs[i])
    }

    fn output(&self, s: AxilOut) -> Option<usize> {
        OUTPUT_NAMES
            .iter()
            .position(|(x, _, _)| *x == s)
            .and_then(|i| self.outputs[i])
    }
}

/// The AXI4-Lite slave port of a [`VerilatedBlock`]; [`Clocked`] evaluates and ticks it.
pub struct VerilatedAxiLite<'a> {
    block: &'a mut VerilatedBlock,
    ids: &'a AxilIds,
}

impl<'a> VerilatedAxiLite<'a> {
    pub fn new(block: &'a mut VerilatedBlock, ids: &'a AxilIds) -> Self {
        VerilatedAxiLite { block, ids }
    }
}

impl AxiLitePort for VerilatedAxiLite<'_> {
    fn set(&mut self, signal: AxilIn, value: u64) {
        if let Some(id) = self.ids.input(signal) {
            self.block.set(id, value);
        }
    }
    fn get(&mut self, signal: AxilOut) -> u64 {
        self.ids.output(signal).map_or(0, |id| self.block.get(id))
    }
}

impl Clocked for VerilatedAxiLite<'_> {
    fn settle(&mut self) {
        self.block.eval();
    }
    fn tick(&mut self) {
        self.block.tick();
    }
}
