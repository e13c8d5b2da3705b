//! [`VerilatedNic`]: the NIC's emitted Verilog (`NicTop`, the same text `ferroce verilog`
//! writes) compiled by Verilator, as a [`NicHardware`] model: the fast engine of [`NicSystem`].
//!
//! The rust-hdl simulation of the whole NIC runs a few hundred cycles per second; the Verilator
//! model of the same Verilog runs orders of magnitude faster, which is what makes message
//! matrices and long runs (`ferroce verbs`) practical. Equivalence of the two is checked by the
//! lock-step co-simulation (`sim/tests/nic_cosim.rs`) and by running one `verbs` scenario on both
//! engines and comparing every frame and cycle count (`sim/tests/cli_verbs.rs`).
//!
//! The first use builds the model (about a minute; cached by the Verilog's hash, see
//! `ferroce_hdl::cosim`), so Verilator and a C++ compiler are needed.
use crate::host::axil::{AxilIn, AxilOut};
use crate::host::dma_shell::{DmaPortIds, VerilatedDmaPort};
use crate::host::{AxiLiteMaster, AxiLitePort, DmaShell};
use crate::nic_system::{NicCounters, NicHardware, COUNTER_PORTS};
use crate::vcd::{VcdWindow, PERIOD_PS};
use ferroce_hdl::cosim::engine::StreamIds;
use ferroce_hdl::cosim::{Port, VerilatedBlock};
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::stream::Beat;
use std::sync::OnceLock;

/// Port indices of the AXI4-Lite slave.
struct AxilIds {
    awaddr: usize,
    awvalid: usize,
    awready: usize,
    wdata: usize,
    wstrb: usize,
    wvalid: usize,
    wready: usize,
    bresp: usize,
    bvalid: usize,
    bready: usize,
    araddr: usize,
    arvalid: usize,
    arready: usize,
    rdata: usize,
    rresp: usize,
    rvalid: usize,
    rready: usize,
}

/// The Verilator model of `NicTop` and its port indices.
pub struct VerilatedNic {
    model: VerilatedBlock,
    axil: AxilIds,
    dma: DmaPortIds,
    rx: StreamIds,
    tx: StreamIds,
    link_up: usize,
    irq_pulse: usize,
    counters: [usize; 26],
    cycles: u64,
    /// The cycles to write to the VCD (a model built with tracing), if any.
    vcd: Option<VcdWindow>,
}

// SAFETY: the Verilator model is a plain C++ object with no thread-local state (built without
// Verilator threads); `VerilatedNic` owns it exclusively and every access goes through `&mut
// self`, so moving it to another thread (the driver backend keeps it behind a mutex) is sound.
unsafe impl Send for VerilatedNic {}

impl VerilatedNic {
    /// Build (or take from the cache) and load the model. Needs a big stack on the calling
    /// thread (rust-hdl walks the whole NIC recursively to emit it).
    pub fn new() -> Result<VerilatedNic, String> {
        Self::with_vcd(None)
    }

    /// [`VerilatedNic::new`], or with `vcd` the model built with Verilator's tracing (its own
    /// cached model) writing every signal over the window (see [`crate::vcd`]).
    pub fn with_vcd(vcd: Option<VcdWindow>) -> Result<VerilatedNic, String> {
        // Every model is of the same `NicTop::default()`: emitting the whole NIC takes seconds
        // of rust-hdl (more than loading the cached model), and a test makes dozens of models,
        // so the Verilog and ports are emitted once per process.
        static SOURCE: OnceLock<(String, Vec<Port>)> = OnceLock::new();
        let (verilog, ports) =
            SOURCE.get_or_init(|| VerilatedBlock::source(&mut NicTop::default()));
        let mut model = VerilatedBlock::from_verilog_with(
            verilog,
            VerilatedBlock::TOP,
            ports.clone(),
            vcd.is_some(),
        )?;
        if let Some(w) = &vcd {
            model.trace_open(&w.path)?;
        }
        let p = |n: &str| model.port(n);
        let axil = AxilIds {
            awaddr: p("s_axil_awaddr"),
            awvalid: p("s_axil_awvalid"),
            awready: p("s_axil_awready"),
            wdata: p("s_axil_wdata"),
            wstrb: p("s_axil_wstrb"),
            wvalid: p("s_axil_wvalid"),
            wready: p("s_axil_wready"),
            bresp: p("s_axil_bresp"),
            bvalid: p("s_axil_bvalid"),
            bready: p("s_axil_bready"),
            araddr: p("s_axil_araddr"),
            arvalid: p("s_axil_arvalid"),
            arready: p("s_axil_arready"),
            rdata: p("s_axil_rdata"),
            rresp: p("s_axil_rresp"),
            rvalid: p("s_axil_rvalid"),
            rready: p("s_axil_rready"),
        };
        let nic = VerilatedNic {
            dma: DmaPortIds::new(&model, "dma"),
            rx: model.stream("rx_mac"),
            tx: model.stream("tx_mac"),
            link_up: p("link_up"),
            irq_pulse: p("irq_pulse"),
            counters: COUNTER_PORTS.map(p),
            axil,
            model,
            cycles: 0,
            vcd,
        };
        Ok(nic)
    }
}

struct VAxil<'a>(&'a mut VerilatedBlock, &'a AxilIds);

impl AxiLitePort for VAxil<'_> {
    fn set(&mut self, s: AxilIn, v: u64) {
        let i = self.1;
        let id = match s {
            AxilIn::AwValid => i.awvalid,
            AxilIn::AwAddr => i.awaddr,
            AxilIn::WValid => i.wvalid,
            AxilIn::WData => i.wdata,
            AxilIn::WStrb => i.wstrb,
            AxilIn::BReady => i.bready,
            AxilIn::ArValid => i.arvalid,
            AxilIn::ArAddr => i.araddr,
            AxilIn::RReady => i.rready,
            AxilIn::AwProt | AxilIn::ArProt => return,
        };
        let v = if matches!(s, AxilIn::AwAddr | AxilIn::ArAddr) {
            v & 0x1F_FFFF
        } else {
            v
        };
        self.0.set(id, v);
    }
    fn get(&mut self, s: AxilOut) -> u64 {
        let i = self.1;
        self.0.get(match s {
            AxilOut::AwReady => i.awready,
            AxilOut::WReady => i.wready,
            AxilOut::BValid => i.bvalid,
            AxilOut::BResp => i.bresp,
            AxilOut::ArReady => i.arready,
            AxilOut::RValid => i.rvalid,
            AxilOut::RData => i.rdata,
            AxilOut::RResp => i.rresp,
        })
    }
}

impl NicHardware for VerilatedNic {
    fn set_link_up(&mut self, up: bool) {
        self.model.set(self.link_up, up as u64);
    }
    fn drive(
        &mut self,
        axil: &mut AxiLiteMaster,
        shell: &mut DmaShell,
        rx: Option<&Beat>,
        tx_ready: bool,
    ) {
        axil.drive(&mut VAxil(&mut self.model, &self.axil));
        shell.drive(&mut VerilatedDmaPort::new(&mut self.model, &self.dma));
        self.model.drive_stream(self.rx, rx);
        self.model.set(self.tx.ready, tx_ready as u64);
    }
    fn settle(&mut self) {
        self.model.eval();
    }
    fn sample(
        &mut self,
        axil: &mut AxiLiteMaster,
        shell: &mut DmaShell,
        tx_ready: bool,
    ) -> (bool, Option<Beat>, u32) {
        axil.sample(&mut VAxil(&mut self.model, &self.axil));
        shell.sample(&VerilatedDmaPort::new(&mut self.model, &self.dma));
        let rx_fired = self.model.get(self.rx.valid) != 0 && self.model.get(self.rx.ready) != 0;
        let tx = if tx_ready {
            self.model.peek_stream(self.tx)
        } else {
            None
        };
        (rx_fired, tx, self.model.get(self.irq_pulse) as u32)
    }
    fn tick(&mut self) {
        match &self.vcd {
            Some(w) if w.contains(self.cycles) => {
                let t = self.cycles * PERIOD_PS;
                self.model.tick_traced(t, t + PERIOD_PS / 2);
            }
            _ => self.model.tick(),
        }
        self.cycles += 1;
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
    fn counters(&mut self) -> NicCounters {
        NicCounters::from_ports(self.counters.map(|i| self.model.get(i)))
    }
}
