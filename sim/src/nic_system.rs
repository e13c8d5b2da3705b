//! [`NicSystem`]: one simulated NIC in its surroundings, cycle by cycle.
//!
//! The NIC is the hardware ([`ferroce_hdl::nic::NicTop`], stepped by rust-hdl); around it,
//! only what lies outside the FPGA: the host's MMIO (an [`AxiLiteMaster`]), the PCIe DMA shell
//! over the host-memory model ([`DmaShell`]), and the MAC's two streams (frames in from a
//! queue, frames out into a list). It implements [`RegisterTarget`], so the driver runs on it
//! unchanged through [`SimBackend`](crate::host::SimBackend).
//!
//! One cycle: every outside model drives its inputs, the NIC settles, every model samples the
//! handshakes of the cycle, the clock rises (see [`crate::host`]).
use crate::host::axil::{AxilIn, AxilOut};
use crate::host::backend::{cycles_to_duration, DEFAULT_CLOCK_HZ};
use crate::host::memory::DmaWrite;
use crate::host::{
    AxiLiteMaster, AxiLitePort, DmaShell, RegisterTarget, SharedMemory, ShellConfig,
};
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::stream::Beat;
use ferroce_hdl::testbench::{Bench, Collector, Feeder, Rng, Stepper};
use std::time::Duration;

/// The NIC's receive-side counters as its summary outputs show them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCounts {
    pub accepted: u64,
    pub bad_icrc: u64,
    pub truncated: u64,
    pub length: u64,
    pub oversize: u64,
    pub unsupported: u64,
    pub mac_mismatch: u64,
    pub bad_opcode: u64,
}

/// The responder's event counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RespCounts {
    pub executed: u64,
    pub duplicate: u64,
    pub psn_err: u64,
    pub access_err: u64,
    pub invalid: u64,
    pub unsupported: u64,
    pub qp_drop: u64,
    pub dma_error: u64,
    /// RNR NAKs queued (SEND / WRITE_WITH_IMM with no receive posted).
    pub rnr: u64,
    /// Receive completions queued (success or error).
    pub recv: u64,
}

/// The requester's and CQE writer's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReqCounts {
    pub packets: u64,
    pub messages: u64,
    pub acks: u64,
    pub naks: u64,
    pub resent: u64,
    pub errors: u64,
    pub cqes_written: u64,
    pub cqes_dropped: u64,
}

/// Every counter a NIC model reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicCounters {
    pub rx: RxCounts,
    pub resp: RespCounts,
    pub req: ReqCounts,
}

/// What [`NicSystem`] needs from the NIC hardware model, one phase of a cycle at a time: the
/// rust-hdl simulation (any [`Stepper`] of [`NicTop`]: alone, or in lock step with its
/// Verilog) or the Verilator model of the same Verilog ([`crate::nic_verilated::VerilatedNic`]).
pub trait NicHardware {
    fn set_link_up(&mut self, up: bool);
    /// Drive every input for this cycle: the host's AXI4-Lite master, the DMA shell, the MAC's
    /// receive beat (if any) and transmit ready.
    fn drive(
        &mut self,
        axil: &mut AxiLiteMaster,
        shell: &mut DmaShell,
        rx: Option<&Beat>,
        tx_ready: bool,
    );
    /// Propagate combinational logic.
    fn settle(&mut self);
    /// After settling: let the models sample the cycle's handshakes. Returns whether the
    /// receive beat was taken, the transmitted beat if one was taken, and the interrupt pulses.
    fn sample(
        &mut self,
        axil: &mut AxiLiteMaster,
        shell: &mut DmaShell,
        tx_ready: bool,
    ) -> (bool, Option<Beat>, u32);
    /// The rising clock edge.
    fn tick(&mut self);
    fn cycles(&self) -> u64;
    fn counters(&mut self) -> NicCounters;
}

impl<S: Stepper<NicTop>> NicHardware for S {
    fn set_link_up(&mut self, up: bool) {
        self.uut().link_up.next = up;
    }
    fn drive(
        &mut self,
        axil: &mut AxiLiteMaster,
        shell: &mut DmaShell,
        rx: Option<&Beat>,
        tx_ready: bool,
    ) {
        let u = self.uut();
        axil.drive(&mut TopAxil(u));
        shell.drive(&mut u.dma);
        u.rx_mac.drive(rx);
        u.tx_mac.ready.next = tx_ready;
    }
    fn settle(&mut self) {
        Stepper::settle(self);
    }
    fn sample(
        &mut self,
        axil: &mut AxiLiteMaster,
        shell: &mut DmaShell,
        _tx_ready: bool,
    ) -> (bool, Option<Beat>, u32) {
        let u = self.uut();
        axil.sample(&mut TopAxil(u));
        shell.sample(&u.dma);
        let tx = if u.tx_mac.fires() {
            u.tx_mac.peek()
        } else {
            None
        };
        (u.rx_mac.fires(), tx, u.irq_pulse.val().to_u64() as u32)
    }
    fn tick(&mut self) {
        Stepper::tick(self);
    }
    fn cycles(&self) -> u64 {
        Stepper::cycles(self)
    }
    fn counters(&mut self) -> NicCounters {
        let u = self.uut();
        let ports = [
            &u.rx_cnt_accepted,
            &u.rx_cnt_bad_icrc,
            &u.rx_cnt_truncated,
            &u.rx_cnt_length,
            &u.rx_cnt_oversize,
            &u.rx_cnt_unsupported,
            &u.rx_cnt_mac_mismatch,
            &u.rx_cnt_bad_opcode,
            &u.resp_cnt_executed,
            &u.resp_cnt_duplicate,
            &u.resp_cnt_psn_err,
            &u.resp_cnt_access_err,
            &u.resp_cnt_invalid,
            &u.resp_cnt_unsupported,
            &u.resp_cnt_qp_drop,
            &u.resp_cnt_dma_error,
            &u.req_cnt_packets,
            &u.req_cnt_messages,
            &u.req_cnt_acks,
            &u.req_cnt_naks,
            &u.req_cnt_resent,
            &u.req_cnt_errors,
            &u.cq_cnt_written,
            &u.cq_cnt_dropped,
            &u.resp_cnt_rnr,
            &u.resp_cnt_recv,
        ];
        NicCounters::from_ports(ports.map(|p| p.val().to_u64()))
    }
}

/// The NIC's summary counter outputs, in the order [`NicCounters::from_ports`] takes them.
pub const COUNTER_PORTS: [&str; 26] = [
    "rx_cnt_accepted",
    "rx_cnt_bad_icrc",
    "rx_cnt_truncated",
    "rx_cnt_length",
    "rx_cnt_oversize",
    "rx_cnt_unsupported",
    "rx_cnt_mac_mismatch",
    "rx_cnt_bad_opcode",
    "resp_cnt_executed",
    "resp_cnt_duplicate",
    "resp_cnt_psn_err",
    "resp_cnt_access_err",
    "resp_cnt_invalid",
    "resp_cnt_unsupported",
    "resp_cnt_qp_drop",
    "resp_cnt_dma_error",
    "req_cnt_packets",
    "req_cnt_messages",
    "req_cnt_acks",
    "req_cnt_naks",
    "req_cnt_resent",
    "req_cnt_errors",
    "cq_cnt_written",
    "cq_cnt_dropped",
    "resp_cnt_rnr",
    "resp_cnt_recv",
];

impl NicCounters {
    /// The counters from the values of the [`COUNTER_PORTS`], in that order.
    pub fn from_ports(c: [u64; 26]) -> NicCounters {
        NicCounters {
            rx: RxCounts {
                accepted: c[0],
                bad_icrc: c[1],
                truncated: c[2],
                length: c[3],
                oversize: c[4],
                unsupported: c[5],
                mac_mismatch: c[6],
                bad_opcode: c[7],
            },
            resp: RespCounts {
                executed: c[8],
                duplicate: c[9],
                psn_err: c[10],
                access_err: c[11],
                invalid: c[12],
                unsupported: c[13],
                qp_drop: c[14],
                dma_error: c[15],
                rnr: c[24],
                recv: c[25],
            },
            req: ReqCounts {
                packets: c[16],
                messages: c[17],
                acks: c[18],
                naks: c[19],
                resent: c[20],
                errors: c[21],
                cqes_written: c[22],
                cqes_dropped: c[23],
            },
        }
    }
}

/// A simulated NIC with its host and MAC models. `S` is the hardware model: rust-hdl alone
/// ([`Bench`], the default), rust-hdl and its emitted Verilog in lock step
/// ([`ferroce_hdl::cosim::CoSim`], which fails on the first output that differs), or the
/// Verilator model alone ([`crate::nic_verilated::VerilatedNic`], the fast engine).
pub struct NicSystem<S: NicHardware = Bench<NicTop>> {
    bench: S,
    axil: AxiLiteMaster,
    shell: DmaShell,
    rx_feed: Feeder,
    tx_collect: Collector,
    rng: Rng,
    clock_hz: u64,
    /// Interrupt vectors that fired and were not consumed yet (as an MSI-X controller would
    /// latch them).
    irq_pending: u32,
    /// The link side of the MAC accepts beats (a paced link lowers it: [`NicSystem::set_tx_ready`]).
    link_ready: bool,
}

/// The NIC's AXI4-Lite slave as the master's port.
struct TopAxil<'a>(&'a mut NicTop);

impl AxiLitePort for TopAxil<'_> {
    fn set(&mut self, s: AxilIn, v: u64) {
        let u = &mut *self.0;
        match s {
            AxilIn::AwValid => u.s_axil_awvalid.next = v != 0,
            AxilIn::AwAddr => u.s_axil_awaddr.next = (v & 0x1F_FFFF).into(),
            AxilIn::WValid => u.s_axil_wvalid.next = v != 0,
            AxilIn::WData => u.s_axil_wdata.next = v.into(),
            AxilIn::WStrb => u.s_axil_wstrb.next = v.into(),
            AxilIn::BReady => u.s_axil_bready.next = v != 0,
            AxilIn::ArValid => u.s_axil_arvalid.next = v != 0,
            AxilIn::ArAddr => u.s_axil_araddr.next = (v & 0x1F_FFFF).into(),
            AxilIn::RReady => u.s_axil_rready.next = v != 0,
            AxilIn::AwProt | AxilIn::ArProt => {}
        }
    }
    fn get(&mut self, s: AxilOut) -> u64 {
        let u = &*self.0;
        match s {
            AxilOut::AwReady => u.s_axil_awready.val() as u64,
            AxilOut::WReady => u.s_axil_wready.val() as u64,
            AxilOut::BValid => u.s_axil_bvalid.val() as u64,
            AxilOut::BResp => u.s_axil_bresp.val().to_u64(),
            AxilOut::ArReady => u.s_axil_arready.val() as u64,
            AxilOut::RValid => u.s_axil_rvalid.val() as u64,
            AxilOut::RData => u.s_axil_rdata.val().to_u64(),
            AxilOut::RResp => u.s_axil_rresp.val().to_u64(),
        }
    }
}

impl NicSystem<Bench<NicTop>> {
    /// A NIC whose DMA shell serves `memory` with `shell` timing; MAC output never stalls.
    pub fn new(memory: SharedMemory, shell: ShellConfig) -> NicSystem {
        NicSystem::with_stepper(
            Bench::new(NicTop::default(), |u| &mut u.clock),
            memory,
            shell,
        )
    }
}

impl<S: NicHardware> NicSystem<S> {
    /// The same around an already built hardware model (a co-simulation, the Verilator model).
    pub fn with_stepper(mut bench: S, memory: SharedMemory, shell: ShellConfig) -> NicSystem<S> {
        bench.set_link_up(true);
        NicSystem {
            bench,
            axil: AxiLiteMaster::new(),
            shell: DmaShell::new(memory, shell),
            rx_feed: Feeder::new(0),
            tx_collect: Collector::new(0),
            rng: Rng::new(1),
            clock_hz: DEFAULT_CLOCK_HZ,
            irq_pending: 0,
            link_ready: true,
        }
    }

    /// Queue a frame (FCS stripped) on the MAC's receive stream.
    pub fn receive(&mut self, frame: &[u8]) {
        self.rx_feed.push_frame(frame, 8);
    }

    /// Frames still waiting to enter the NIC.
    pub fn rx_pending(&self) -> bool {
        !self.rx_feed.is_empty()
    }

    /// Every complete frame the NIC has transmitted so far.
    pub fn transmitted(&self) -> Vec<Vec<u8>> {
        let mut f = self.tx_collect.frames();
        // an unterminated tail is a frame still in flight
        if self.tx_collect.beats.last().is_some_and(|b| !b.last) {
            f.pop();
        }
        f
    }

    /// Take the frames the NIC has finished transmitting since the last call (a frame still in
    /// flight stays until its last beat).
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        let beats = &mut self.tx_collect.beats;
        let end = beats.iter().rposition(|b| b.last).map_or(0, |i| i + 1);
        let done: Vec<_> = beats.drain(..end).collect();
        ferroce_hdl::stream::beats_to_frames(&done)
    }

    /// Requester and CQE-writer totals.
    pub fn req_counts(&mut self) -> ReqCounts {
        self.bench.counters().req
    }

    /// Change the DMA shell's timing from the next cycle on ([`DmaShell::set_config`]).
    pub fn set_shell_config(&mut self, config: ShellConfig) {
        self.shell.set_config(config);
    }

    /// The DMA shell has nothing in flight.
    pub fn dma_idle(&self) -> bool {
        self.shell.idle()
    }

    pub fn cycles(&self) -> u64 {
        self.bench.cycles()
    }

    /// The stepper (e.g. a co-simulation's comparison count).
    pub fn stepper(&self) -> &S {
        &self.bench
    }

    /// Number of DMA writes the host memory has logged so far.
    pub fn dma_writes_len(&self) -> usize {
        crate::host::lock(self.shell.memory()).dma_writes().len()
    }

    /// The DMA writes logged after the first `n`.
    pub fn dma_writes_since(&self, n: usize) -> Vec<DmaWrite> {
        crate::host::lock(self.shell.memory()).dma_writes()[n..].to_vec()
    }

    pub fn rx_counts(&mut self) -> RxCounts {
        self.bench.counters().rx
    }

    pub fn resp_counts(&mut self) -> RespCounts {
        self.bench.counters().resp
    }

    /// Whether the link takes the MAC's transmit beats from the next cycle on (a link slower
    /// than the datapath holds the NIC back through its stream's ready).
    pub fn set_tx_ready(&mut self, ready: bool) {
        self.link_ready = ready;
    }

    /// One system cycle.
    pub fn cycle(&mut self) {
        let tx_ready = !self.rng.percent(self.tx_collect.stall_percent) && self.link_ready;
        // borrows of disjoint fields: no copy of the beat on this per-cycle path
        let rx = self.rx_feed.next_beat(&mut self.rng);
        self.bench
            .drive(&mut self.axil, &mut self.shell, rx, tx_ready);
        self.bench.settle();
        let (fired, tx, irq) = self.bench.sample(&mut self.axil, &mut self.shell, tx_ready);
        if let Some(b) = tx {
            self.tx_collect.beats.push(b);
        }
        self.irq_pending |= irq;
        self.bench.tick();
        self.rx_feed.after_edge(fired);
    }

    /// Run until every queued frame has entered, the NIC has been quiet (no DMA in flight, no
    /// new transmitted beat) for `quiet` cycles, or `limit` cycles have passed. Returns the
    /// cycles run.
    pub fn run_until_quiet(&mut self, quiet: u64, limit: u64) -> u64 {
        let start = self.cycles();
        let mut still = 0;
        let mut beats = self.tx_collect.beats.len();
        while self.cycles() - start < limit {
            self.cycle();
            let nb = self.tx_collect.beats.len();
            if self.rx_feed.is_empty() && self.shell.idle() && nb == beats {
                still += 1;
                if still >= quiet {
                    break;
                }
            } else {
                still = 0;
            }
            beats = nb;
        }
        self.cycles() - start
    }

    /// One AXI4-Lite read of BAR0 offset `addr`, stepping the whole system until it completes.
    pub fn read32(&mut self, addr: u32) -> u32 {
        self.axil.start_read(addr);
        self.transaction()
    }

    /// One AXI4-Lite write, stepping the whole system until its response.
    pub fn write32(&mut self, addr: u32, data: u32) {
        self.axil.start_write(addr, data);
        self.transaction();
    }

    /// Start an AXI4-Lite read without stepping (for a system that steps several NICs).
    pub fn start_read(&mut self, addr: u32) {
        self.axil.start_read(addr);
    }

    /// Start an AXI4-Lite write without stepping.
    pub fn start_write(&mut self, addr: u32, data: u32) {
        self.axil.start_write(addr, data);
    }

    /// The data of the AXI4-Lite transaction that completed, if one did.
    pub fn take_completion(&mut self) -> Option<u32> {
        self.axil.take_completion().map(|c| c.data)
    }

    fn transaction(&mut self) -> u32 {
        loop {
            self.cycle();
            if let Some(c) = self.axil.take_completion() {
                return c.data;
            }
        }
    }
}

impl<S: NicHardware + Send> RegisterTarget for NicSystem<S> {
    fn axil_read(&mut self, addr: u32) -> u32 {
        self.read32(addr)
    }
    fn axil_write(&mut self, addr: u32, data: u32) {
        self.write32(addr, data)
    }
    fn step(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.cycle();
        }
    }
    fn interrupt_pending(&self, vector: u16) -> bool {
        vector < 32 && self.irq_pending & (1 << vector) != 0
    }
    fn ack_interrupt(&mut self, vector: u16) {
        if vector < 32 {
            self.irq_pending &= !(1 << vector);
        }
    }
    fn now(&self) -> Duration {
        cycles_to_duration(self.bench.cycles(), self.clock_hz)
    }
}
