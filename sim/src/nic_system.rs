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
}

/// A simulated NIC with its host and MAC models. `S` steps the hardware: rust-hdl alone
/// ([`Bench`], the default) or rust-hdl and its emitted Verilog in lock step
/// ([`ferroce_hdl::cosim::CoSim`], which fails on the first output that differs).
pub struct NicSystem<S: Stepper<NicTop> = Bench<NicTop>> {
    bench: S,
    axil: AxiLiteMaster,
    shell: DmaShell,
    rx_feed: Feeder,
    tx_collect: Collector,
    rng: Rng,
    clock_hz: u64,
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

impl<S: Stepper<NicTop>> NicSystem<S> {
    /// The same around an already built stepper (e.g. a co-simulation).
    pub fn with_stepper(mut bench: S, memory: SharedMemory, shell: ShellConfig) -> NicSystem<S> {
        bench.uut().link_up.next = true;
        NicSystem {
            bench,
            axil: AxiLiteMaster::new(),
            shell: DmaShell::new(memory, shell),
            rx_feed: Feeder::new(0),
            tx_collect: Collector::new(0),
            rng: Rng::new(1),
            clock_hz: DEFAULT_CLOCK_HZ,
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
        let u = self.bench.uut();
        RxCounts {
            accepted: u.rx_cnt_accepted.val().to_u64(),
            bad_icrc: u.rx_cnt_bad_icrc.val().to_u64(),
            truncated: u.rx_cnt_truncated.val().to_u64(),
            length: u.rx_cnt_length.val().to_u64(),
            oversize: u.rx_cnt_oversize.val().to_u64(),
            unsupported: u.rx_cnt_unsupported.val().to_u64(),
            mac_mismatch: u.rx_cnt_mac_mismatch.val().to_u64(),
            bad_opcode: u.rx_cnt_bad_opcode.val().to_u64(),
        }
    }

    pub fn resp_counts(&mut self) -> RespCounts {
        let u = self.bench.uut();
        RespCounts {
            executed: u.resp_cnt_executed.val().to_u64(),
            duplicate: u.resp_cnt_duplicate.val().to_u64(),
            psn_err: u.resp_cnt_psn_err.val().to_u64(),
            access_err: u.resp_cnt_access_err.val().to_u64(),
            invalid: u.resp_cnt_invalid.val().to_u64(),
            unsupported: u.resp_cnt_unsupported.val().to_u64(),
            qp_drop: u.resp_cnt_qp_drop.val().to_u64(),
            dma_error: u.resp_cnt_dma_error.val().to_u64(),
        }
    }

    /// One system cycle.
    pub fn cycle(&mut self) {
        let Self {
            bench,
            axil,
            shell,
            rx_feed,
            tx_collect,
            rng,
            ..
        } = self;
        {
            let u = bench.uut();
            axil.drive(&mut TopAxil(u));
            shell.drive(&mut u.dma);
            rx_feed.drive(&mut u.rx_mac, rng);
            tx_collect.drive_ready(&mut u.tx_mac, rng);
        }
        bench.settle();
        let fired = {
            let u = bench.uut();
            axil.sample(&mut TopAxil(u));
            shell.sample(&u.dma);
            tx_collect.sample(&u.tx_mac);
            u.rx_mac.fires()
        };
        bench.tick();
        rx_feed.after_edge(fired);
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

    fn transaction(&mut self) -> u32 {
        loop {
            self.cycle();
            if let Some(c) = self.axil.take_completion() {
                return c.data;
            }
        }
    }
}

impl<S: Stepper<NicTop> + Send> RegisterTarget for NicSystem<S> {
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
    fn interrupt_pending(&self, _vector: u16) -> bool {
        // no completion engine yet: nothing raises CQ interrupts
        false
    }
    fn now(&self) -> Duration {
        cycles_to_duration(self.bench.cycles(), self.clock_hz)
    }
}
