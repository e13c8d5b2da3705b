//! The LambdaConcept ECPIX-5 85F board top level (`constraints/ecpix5-85f/`): the NIC with a
//! 1 Gb/s MAC for the board's RGMII PHY, registers and "host memory" over the board's USB UART,
//! so that a user can load the bitstream and reach the NIC from a PC.
//!
//! Two blocks:
//!
//! * [`Ecpix5Top`]: exactly the ports of `constraints/ecpix5-85f/ecpix5-85f.lpf` (module
//!   `ferroce_ecpix5_top` in the emitted Verilog). It holds the PLL ([`Ecp5Pll`], an `EHXPLLL`
//!   instance), the RGMII pins ([`RgmiiEcp5`]) and the core. It is checked with Yosys and
//!   nextpnr-ecp5, not simulated: the PLL cannot run in the rust-hdl simulation (its model
//!   below only passes the input clock through).
//! * [`Ecpix5Core`]: everything else, with its three clocks and the PLL's lock as ports, so that
//!   a bench drives the clocks directly (`--test board_ecpix5`).
//!
//! # Clocks
//!
//! The 100 MHz oscillator (`clk100`) feeds an `EHXPLLL` with `CLKI_DIV` 4 (25 MHz at the phase
//! detector), feedback from `CLKOP` with `CLKFB_DIV` 5 and `CLKOP_DIV` 5, so the VCO runs at
//! 25 MHz x 5 x 5 = 625 MHz (the ECP5 VCO range is 400-800 MHz, the phase detector's input
//! 3.125-400 MHz, the output dividers 1-128: Lattice TN1263, and what Project Trellis' `ecppll`
//! and nextpnr-ecp5 accept). The outputs:
//!
//! * `CLKOP` = 625 / 5 = **125 MHz**: the RGMII transmit side (`MacTx`, the transmit
//!   `ODDRX1F`s, the clock forwarded to the PHY), as 1000BASE-T needs.
//! * `CLKOS` = 625 / 30 = **20.83 MHz**: the NIC's clock (`NicTop`, the UART bridge, the host
//!   memory). The whole NIC does not reach 125 MHz on ECP5 (docs/RESOURCES.md: a placed
//!   estimate of about 22 MHz), so it runs slow; 1 Gb/s needs 15.6 MHz at 8 bytes a cycle, and
//!   20.83 MHz leaves a third for header overhead and back-pressure while staying under the
//!   placement estimate. `CLKOS_DIV` is [`NIC_CLKOS_DIV`]; [`NIC_CLOCK_HZ`] the resulting rate.
//!
//! The receive side runs in the PHY's recovered clock `eth_rx_clk` (125 MHz at 1 Gb/s). The
//! three domains meet only in the two `StreamCdcFifo64`s and in the lock synchronisers below.
//!
//! # Data path
//!
//! * Receive: `eth_rx_*` -> `RgmiiEcp5` (IDDRX1F) -> `MacRx` (FCS checked and stripped, bad
//!   frames dropped) -> `StreamWidthUp8To64` -> `StreamCdcFifo64` (`eth_rx_clk` to the NIC's
//!   clock) -> the NIC's `rx_mac`.
//! * Transmit: the NIC's `tx_mac` -> `StreamCdcFifo64` (NIC clock to 125 MHz) ->
//!   `StreamPacketFifo64` (whole frames, as `MacTx` needs) -> `StreamWidthDown64To8` -> `MacTx`
//!   (preamble, padding, FCS, gap) -> `RgmiiEcp5` (ODDRX1F).
//! * Registers: `uart_rx`/`uart_tx` -> `UartAxil` (docs/INTEGRATION.md, "UART register
//!   protocol") -> `AxilSplit`: address bit 31 clear to the NIC's BAR0 (`s_axil_*`, the low 21
//!   bits), set to the host memory's AXI4-Lite port.
//! * Host memory: the NIC's `dma` port is served by `OnChipHostMemory<12>` (32 KiB of block RAM)
//!   at the IOVA [`HOST_MEM_BASE`] = `0x8000_0000`, the same number as its UART address, so a
//!   PC writes a WQE at UART address `A` and hands the NIC the IOVA `A`. 32 KiB rather than
//!   64 KiB because the NIC already takes 169 of the LFE5UM5G-85F's 208 DP16KD blocks
//!   (docs/RESOURCES.md); this memory takes 16, the FIFOs and `MacRx` 11.
//!
//! # Resets
//!
//! No reset pin (constraints/ecpix5-85f/README.md): every register has its power-on value. Each
//! domain has a power-on counter that starts once the PLL reports lock (`LOCK` through two
//! synchroniser flip-flops in that domain) and counts 128 cycles; until then the domain's
//! inputs are held idle: `MacRx` sees `rx_dv` low, the NIC's streams are neither valid nor
//! ready, the UART line reads idle, `MacTx` is offered nothing. The NIC itself has no reset
//! port (docs/INTEGRATION.md section 1), and its clock is the PLL's output while the PLL locks,
//! so a PC writes `CFG_RESET` once after loading the bitstream (the driver does at open) before
//! relying on any context.
//!
//! The PHY: `eth_rst_n` is held low for `phy_reset_cycles` NIC clocks after lock (12.6 ms on
//! the board: 2^18 cycles at 20.83 MHz, over the 10 ms minimum of common 1000BASE-T PHYs; which
//! PHY the board carries was not checked), then high for good. `eth_mdc` is driven low and
//! `eth_mdio` is an unused input (left to its pull-up): there is no MDIO master, so the PHY runs
//! from its strap settings (autonegotiation) and the NIC's `link_up` (`CFG_STATUS.LINK_UP`) is
//! simply 1 once the NIC's domain is out of its power-on wait, not the PHY's link state.
//!
//! # LEDs
//!
//! Driven active low (the amaranth-boards description inverts them; the LiteX one does not
//! say: if the board's LEDs are active high, lit and dark swap below):
//! * red: heartbeat, bit 24 of a counter in the NIC's clock (a 1.6 s period at 20.83 MHz): the
//!   PLL runs and the NIC's clock domain is alive;
//! * green: activity, lit for 2^22 NIC cycles (0.2 s) after a frame went into the NIC from the
//!   MAC or out of the NIC to the MAC;
//! * blue: lit while the NIC's domain waits for the PLL's lock and its power-on count (steady
//!   blue means no lock).
use super::{
    AxilSplit, MacRx, MacTx, OnChipHostMemory, RgmiiEcp5, StreamCdcFifo64, StreamPacketFifo64,
    StreamWidthDown64To8, StreamWidthUp8To64, UartAxil,
};
use crate::dma::DmaMaster;
use crate::nic::NicTop;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// `EHXPLLL` input divider: 100 MHz / 4 = 25 MHz at the phase detector.
pub const PLL_CLKI_DIV: u32 = 4;
/// `EHXPLLL` feedback divider (feedback from `CLKOP`): VCO = 25 MHz x 5 x `CLKOP_DIV`.
pub const PLL_CLKFB_DIV: u32 = 5;
/// `EHXPLLL` `CLKOP` divider: 625 MHz / 5 = 125 MHz (RGMII transmit).
pub const PLL_CLKOP_DIV: u32 = 5;
/// `EHXPLLL` `CLKOS` divider: 625 MHz / 30 = 20.83 MHz (the NIC's clock).
pub const NIC_CLKOS_DIV: u32 = 30;
/// The board's oscillator.
pub const CLK100_HZ: u64 = 100_000_000;
/// The PLL's VCO frequency.
pub const PLL_VCO_HZ: u64 =
    CLK100_HZ / PLL_CLKI_DIV as u64 * PLL_CLKFB_DIV as u64 * PLL_CLKOP_DIV as u64;
/// The NIC's clock (`CLKOS`).
pub const NIC_CLOCK_HZ: u64 = PLL_VCO_HZ / NIC_CLKOS_DIV as u64;
/// The transmit clock (`CLKOP`).
pub const TX_CLOCK_HZ: u64 = PLL_VCO_HZ / PLL_CLKOP_DIV as u64;
const _: () = assert!(PLL_VCO_HZ >= 400_000_000 && PLL_VCO_HZ <= 800_000_000);
const _: () = assert!(CLK100_HZ / PLL_CLKI_DIV as u64 >= 3_125_000);
const _: () = assert!(TX_CLOCK_HZ == 125_000_000);
/// IOVA of the host memory (also its address on the UART bus: bit 31 selects it).
pub const HOST_MEM_BASE: u64 = 0x8000_0000;
/// Word address bits of the host memory (32 KiB).
pub const HOST_MEM_AW: usize = 12;
/// PHY reset on the board: 2^18 NIC cycles (12.6 ms at 20.83 MHz).
pub const PHY_RESET_CYCLES: u32 = 1 << 18;
/// The UART command timeout on the board: 2^20 NIC cycles (50 ms).
pub const UART_TIMEOUT: u32 = 1 << 20;
// the NIC's register bus is 21 bits wide; the kernel slices it with a literal
const _: () = assert!(crate::csr::AXIL_ADDR_BITS == 21);

/// An ECP5 `EHXPLLL` (emitted as the vendor cell): `CLKOP` = 125 MHz and `CLKOS` = the NIC's
/// clock from the 100 MHz oscillator, with the dividers of the module doc. The rust-hdl model
/// passes `clki` through to both outputs and reports lock (no frequency synthesis): a bench
/// simulates [`Ecpix5Core`] with its own clocks instead.
#[derive(LogicBlock, Default)]
pub struct Ecp5Pll {
    pub clki: Signal<In, Clock>,
    pub clkop: Signal<Out, Clock>,
    pub clkos: Signal<Out, Clock>,
    pub lock: Signal<Out, Bit>,
}

impl Logic for Ecp5Pll {
    fn update(&mut self) {
        self.clkop.next = self.clki.val();
        self.clkos.next = self.clki.val();
        self.lock.next = true;
    }

    fn connect(&mut self) {
        self.clkop.connect();
        self.clkos.connect();
        self.lock.connect();
    }

    fn hdl(&self) -> Verilog {
        // CPHASE = DIV - 1 is no phase shift (the convention of Lattice's tools and LiteX);
        // the attributes are the loop-filter settings `ecppll` and LiteX give for this range
        let code = format!(
            "(* FREQUENCY_PIN_CLKI=\"100\" *)\n\
             (* FREQUENCY_PIN_CLKOP=\"125\" *)\n\
             (* FREQUENCY_PIN_CLKOS=\"{nic:.4}\" *)\n\
             (* ICP_CURRENT=\"12\" *) (* LPF_RESISTOR=\"8\" *) (* MFG_ENABLE_FILTEROPAMP=\"1\" *) (* MFG_GMCREF_SEL=\"2\" *)\n\
             EHXPLLL #(\n\
             .PLLRST_ENA(\"DISABLED\"), .INTFB_WAKE(\"DISABLED\"), .STDBY_ENABLE(\"DISABLED\"),\n\
             .DPHASE_SOURCE(\"DISABLED\"), .OUTDIVIDER_MUXA(\"DIVA\"), .OUTDIVIDER_MUXB(\"DIVB\"),\n\
             .OUTDIVIDER_MUXC(\"DIVC\"), .OUTDIVIDER_MUXD(\"DIVD\"),\n\
             .CLKI_DIV({clki}), .FEEDBK_PATH(\"CLKOP\"), .CLKFB_DIV({fb}),\n\
             .CLKOP_ENABLE(\"ENABLED\"), .CLKOP_DIV({op}), .CLKOP_CPHASE({opc}), .CLKOP_FPHASE(0),\n\
             .CLKOS_ENABLE(\"ENABLED\"), .CLKOS_DIV({os}), .CLKOS_CPHASE({osc}), .CLKOS_FPHASE(0)\n\
             ) pll_i (\n\
             .RST(1'b0), .STDBY(1'b0), .CLKI(clki), .CLKOP(clkop), .CLKOS(clkos), .CLKFB(clkop),\n\
             .CLKINTFB(), .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),\n\
             .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .LOCK(lock)\n\
             );\n",
            nic = NIC_CLOCK_HZ as f64 / 1e6,
            clki = PLL_CLKI_DIV,
            fb = PLL_CLKFB_DIV,
            op = PLL_CLKOP_DIV,
            opc = PLL_CLKOP_DIV - 1,
            os = NIC_CLKOS_DIV,
            osc = NIC_CLKOS_DIV - 1,
        );
        Verilog::Wrapper(Wrapper {
            code,
            // Yosys replaces the black box with its own ECP5 cell library
            cores: "(* blackbox *) module EHXPLLL(input CLKI, input CLKFB, input PHASESEL1, input PHASESEL0, input PHASEDIR, input PHASESTEP, input PHASELOADREG, input STDBY, input PLLWAKESYNC, input RST, input ENCLKOP, input ENCLKOS, input ENCLKOS2, input ENCLKOS3, output CLKOP, output CLKOS, output CLKOS2, output CLKOS3, output LOCK, output INTLOCK, output REFCLK, output CLKINTFB);\n\
                    parameter CLKI_DIV = 1; parameter CLKFB_DIV = 1; parameter CLKOP_DIV = 8; parameter CLKOS_DIV = 8; parameter CLKOS2_DIV = 8; parameter CLKOS3_DIV = 8;\n\
                    parameter CLKOP_ENABLE = \"ENABLED\"; parameter CLKOS_ENABLE = \"DISABLED\"; parameter CLKOS2_ENABLE = \"DISABLED\"; parameter CLKOS3_ENABLE = \"DISABLED\";\n\
                    parameter CLKOP_CPHASE = 0; parameter CLKOS_CPHASE = 0; parameter CLKOS2_CPHASE = 0; parameter CLKOS3_CPHASE = 0;\n\
                    parameter CLKOP_FPHASE = 0; parameter CLKOS_FPHASE = 0; parameter CLKOS2_FPHASE = 0; parameter CLKOS3_FPHASE = 0;\n\
                    parameter FEEDBK_PATH = \"CLKOP\"; parameter OUTDIVIDER_MUXA = \"DIVA\"; parameter OUTDIVIDER_MUXB = \"DIVB\"; parameter OUTDIVIDER_MUXC = \"DIVC\"; parameter OUTDIVIDER_MUXD = \"DIVD\";\n\
                    parameter PLLRST_ENA = \"DISABLED\"; parameter INTFB_WAKE = \"DISABLED\"; parameter STDBY_ENABLE = \"DISABLED\"; parameter DPHASE_SOURCE = \"DISABLED\";\n\
                    endmodule\n"
                .into(),
        })
    }
}

/// Everything of the board top level except the PLL and the RGMII pins: the MAC, the FIFOs,
/// the NIC, the UART register path and the host memory, with their clocks as ports (see the
/// module doc).
#[derive(LogicBlock)]
pub struct Ecpix5Core {
    /// The NIC's clock (the PLL's `CLKOS`).
    pub nic_clock: Signal<In, Clock>,
    /// The 125 MHz transmit clock (the PLL's `CLKOP`).
    pub tx_clock: Signal<In, Clock>,
    /// The PHY's receive clock.
    pub rx_clock: Signal<In, Clock>,
    /// The PLL's lock (asynchronous; synchronised in each domain).
    pub pll_lock: Signal<In, Bit>,
    // ---- GMII side of the RGMII pins: receive in `rx_clock`, transmit in `tx_clock`
    pub gmii_rxd: Signal<In, Bits<8>>,
    pub gmii_rx_dv: Signal<In, Bit>,
    pub gmii_rx_er: Signal<In, Bit>,
    pub gmii_txd: Signal<Out, Bits<8>>,
    pub gmii_tx_en: Signal<Out, Bit>,
    pub gmii_tx_er: Signal<Out, Bit>,
    // ---- board pins
    pub uart_rx: Signal<In, Bit>,
    pub uart_tx: Signal<Out, Bit>,
    pub led_r: Signal<Out, Bit>,
    pub led_g: Signal<Out, Bit>,
    pub led_b: Signal<Out, Bit>,
    pub eth_rst_n: Signal<Out, Bit>,
    pub eth_mdc: Signal<Out, Bit>,
    // ---- blocks
    mac_rx: MacRx,
    up: StreamWidthUp8To64,
    cdc_rx: StreamCdcFifo64,
    nic: NicTop,
    cdc_tx: StreamCdcFifo64,
    pfifo: StreamPacketFifo64,
    down: StreamWidthDown64To8,
    mac_tx: MacTx,
    uart: UartAxil,
    split: AxilSplit,
    mem: OnChipHostMemory<HOST_MEM_AW>,
    // ---- power-on: lock synchronisers and counters per domain (done at bit 7)
    rx_lock1: DFF<Bit>,
    rx_lock2: DFF<Bit>,
    rx_por: DFF<Bits<8>>,
    tx_lock1: DFF<Bit>,
    tx_lock2: DFF<Bit>,
    tx_por: DFF<Bits<8>>,
    nic_lock1: DFF<Bit>,
    nic_lock2: DFF<Bit>,
    nic_por: DFF<Bits<8>>,
    /// NIC cycles of PHY reset so far (stops at `c_phy_reset`)
    phy_cnt: DFF<Bits<24>>,
    phy_done: DFF<Bit>,
    c_phy_reset: Constant<Bits<24>>,
    // ---- LEDs (NIC clock)
    heart: DFF<Bits<25>>,
    act: DFF<Bits<22>>,
    c_act: Constant<Bits<22>>,
    // ---- combinational
    l_rx_ok: Signal<Local, Bit>,
    l_tx_ok: Signal<Local, Bit>,
    l_nic_ok: Signal<Local, Bit>,
    l_frame: Signal<Local, Bit>,
}

impl Ecpix5Core {
    /// A core whose UART runs at `clocks_per_bit` NIC cycles per bit, abandons a command after
    /// `uart_timeout` idle cycles (see `UartAxil::new`), and holds the PHY in reset for
    /// `phy_reset_cycles` NIC cycles after the PLL locks (at most 2^24 - 1).
    pub fn new(clocks_per_bit: u16, uart_timeout: u32, phy_reset_cycles: u32) -> Self {
        assert!(
            phy_reset_cycles > 0 && phy_reset_cycles < (1 << 24),
            "Ecpix5Core: phy_reset_cycles must be 1..2^24"
        );
        Ecpix5Core {
            nic_clock: Default::default(),
            tx_clock: Default::default(),
            rx_clock: Default::default(),
            pll_lock: Default::default(),
            gmii_rxd: Default::default(),
            gmii_rx_dv: Default::default(),
            gmii_rx_er: Default::default(),
            gmii_txd: Default::default(),
            gmii_tx_en: Default::default(),
            gmii_tx_er: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            led_r: Default::default(),
            led_g: Default::default(),
            led_b: Default::default(),
            eth_rst_n: Default::default(),
            eth_mdc: Default::default(),
            mac_rx: Default::default(),
            up: Default::default(),
            cdc_rx: Default::default(),
            nic: Default::default(),
            cdc_tx: Default::default(),
            pfifo: Default::default(),
            down: Default::default(),
            mac_tx: Default::default(),
            uart: UartAxil::new(clocks_per_bit, uart_timeout),
            split: Default::default(),
            mem: OnChipHostMemory::new(HOST_MEM_BASE),
            rx_lock1: Default::default(),
            rx_lock2: Default::default(),
            rx_por: Default::default(),
            tx_lock1: Default::default(),
            tx_lock2: Default::default(),
            tx_por: Default::default(),
            nic_lock1: Default::default(),
            nic_lock2: Default::default(),
            nic_por: Default::default(),
            phy_cnt: Default::default(),
            phy_done: Default::default(),
            c_phy_reset: Constant::new((phy_reset_cycles as u64).into()),
            heart: Default::default(),
            act: Default::default(),
            c_act: Constant::new(((1u64 << 22) - 1).into()),
            l_rx_ok: Default::default(),
            l_tx_ok: Default::default(),
            l_nic_ok: Default::default(),
            l_frame: Default::default(),
        }
    }
}

impl Logic for Ecpix5Core {
    #[hdl_gen]
    fn update(&mut self) {
        // ================= clocks
        self.mac_rx.clock.next = self.rx_clock.val();
        self.up.clock.next = self.rx_clock.val();
        self.cdc_rx.inp_clock.next = self.rx_clock.val();
        self.cdc_rx.out_clock.next = self.nic_clock.val();
        self.nic.clock.next = self.nic_clock.val();
        self.uart.clock.next = self.nic_clock.val();
        self.split.clock.next = self.nic_clock.val();
        self.mem.clock.next = self.nic_clock.val();
        self.cdc_tx.inp_clock.next = self.nic_clock.val();
        self.cdc_tx.out_clock.next = self.tx_clock.val();
        self.pfifo.clock.next = self.tx_clock.val();
        self.down.clock.next = self.tx_clock.val();
        self.mac_tx.clock.next = self.tx_clock.val();
        self.rx_lock1.clock.next = self.rx_clock.val();
        self.rx_lock2.clock.next = self.rx_clock.val();
        self.rx_por.clock.next = self.rx_clock.val();
        self.tx_lock1.clock.next = self.tx_clock.val();
        self.tx_lock2.clock.next = self.tx_clock.val();
        self.tx_por.clock.next = self.tx_clock.val();
        self.nic_lock1.clock.next = self.nic_clock.val();
        self.nic_lock2.clock.next = self.nic_clock.val();
        self.nic_por.clock.next = self.nic_clock.val();
        self.phy_cnt.clock.next = self.nic_clock.val();
        self.phy_done.clock.next = self.nic_clock.val();
        self.heart.clock.next = self.nic_clock.val();
        self.act.clock.next = self.nic_clock.val();

        // ================= power-on: two synchroniser stages, then 128 cycles
        self.rx_lock1.d.next = self.pll_lock.val();
        self.rx_lock2.d.next = self.rx_lock1.q.val();
        self.tx_lock1.d.next = self.pll_lock.val();
        self.tx_lock2.d.next = self.tx_lock1.q.val();
        self.nic_lock1.d.next = self.pll_lock.val();
        self.nic_lock2.d.next = self.nic_lock1.q.val();
        self.l_rx_ok.next = self.rx_por.q.val().get_bit(7);
        self.l_tx_ok.next = self.tx_por.q.val().get_bit(7);
        self.l_nic_ok.next = self.nic_por.q.val().get_bit(7);
        self.rx_por.d.next = self.rx_por.q.val();
        if self.rx_lock2.q.val() & !self.l_rx_ok.val() {
            self.rx_por.d.next = self.rx_por.q.val() + 1;
        }
        self.tx_por.d.next = self.tx_por.q.val();
        if self.tx_lock2.q.val() & !self.l_tx_ok.val() {
            self.tx_por.d.next = self.tx_por.q.val() + 1;
        }
        self.nic_por.d.next = self.nic_por.q.val();
        if self.nic_lock2.q.val() & !self.l_nic_ok.val() {
            self.nic_por.d.next = self.nic_por.q.val() + 1;
        }
        // the PHY's reset: low from configuration until `c_phy_reset` cycles after lock
        self.phy_cnt.d.next = self.phy_cnt.q.val();
        self.phy_done.d.next = self.phy_done.q.val();
        if self.nic_lock2.q.val() & !self.phy_done.q.val() {
            self.phy_cnt.d.next = self.phy_cnt.q.val() + 1;
            if self.phy_cnt.q.val() == self.c_phy_reset.val() {
                self.phy_done.d.next = true;
            }
        }
        self.eth_rst_n.next = self.phy_done.q.val();
        self.eth_mdc.next = false;

        // ================= receive: RGMII -> MacRx -> 8 to 64 -> CDC -> NIC
        self.mac_rx.gmii_rxd.next = self.gmii_rxd.val();
        self.mac_rx.gmii_rx_dv.next = self.gmii_rx_dv.val() & self.l_rx_ok.val();
        self.mac_rx.gmii_rx_er.next = self.gmii_rx_er.val() & self.l_rx_ok.val();
        StreamSource::<8, 1>::join(&mut self.mac_rx.out, &mut self.up.inp);
        StreamSource::<64, 8>::join(&mut self.up.out, &mut self.cdc_rx.inp);
        self.nic.rx_mac.valid.next = self.cdc_rx.out.valid.val() & self.l_nic_ok.val();
        self.cdc_rx.out.ready.next = self.nic.rx_mac.ready.val() & self.l_nic_ok.val();
        self.nic.rx_mac.data.next = self.cdc_rx.out.data.val();
        self.nic.rx_mac.keep.next = self.cdc_rx.out.keep.val();
        self.nic.rx_mac.last.next = self.cdc_rx.out.last.val();
        self.nic.link_up.next = self.l_nic_ok.val();
        self.nic.pfc_pause_in.next = 0.into();

        // ================= transmit: NIC -> CDC -> packet FIFO -> 64 to 8 -> MacTx
        self.cdc_tx.inp.valid.next = self.nic.tx_mac.valid.val() & self.l_nic_ok.val();
        self.nic.tx_mac.ready.next = self.cdc_tx.inp.ready.val() & self.l_nic_ok.val();
        self.cdc_tx.inp.data.next = self.nic.tx_mac.data.val();
        self.cdc_tx.inp.keep.next = self.nic.tx_mac.keep.val();
        self.cdc_tx.inp.last.next = self.nic.tx_mac.last.val();
        StreamSource::<64, 8>::join(&mut self.cdc_tx.out, &mut self.pfifo.inp);
        StreamSource::<64, 8>::join(&mut self.pfifo.out, &mut self.down.inp);
        self.mac_tx.inp.valid.next = self.down.out.valid.val() & self.l_tx_ok.val();
        self.down.out.ready.next = self.mac_tx.inp.ready.val() & self.l_tx_ok.val();
        self.mac_tx.inp.data.next = self.down.out.data.val();
        self.mac_tx.inp.keep.next = self.down.out.keep.val();
        self.mac_tx.inp.last.next = self.down.out.last.val();
        self.gmii_txd.next = self.mac_tx.gmii_txd.val();
        self.gmii_tx_en.next = self.mac_tx.gmii_tx_en.val();
        self.gmii_tx_er.next = self.mac_tx.gmii_tx_er.val();

        // ================= host memory on the NIC's DMA port
        DmaMaster::<64, 8>::join(&mut self.nic.dma, &mut self.mem.dma);

        // ================= registers: UART -> AXI4-Lite -> split (bit 31) -> NIC / memory
        self.uart.rxd.next = self.uart_rx.val() | !self.l_nic_ok.val();
        self.uart_tx.next = self.uart.txd.val();
        self.split.s_axil_awaddr.next = self.uart.m_axil_awaddr.val();
        self.split.s_axil_awvalid.next = self.uart.m_axil_awvalid.val();
        self.uart.m_axil_awready.next = self.split.s_axil_awready.val();
        self.split.s_axil_wdata.next = self.uart.m_axil_wdata.val();
        self.split.s_axil_wstrb.next = self.uart.m_axil_wstrb.val();
        self.split.s_axil_wvalid.next = self.uart.m_axil_wvalid.val();
        self.uart.m_axil_wready.next = self.split.s_axil_wready.val();
        self.uart.m_axil_bresp.next = self.split.s_axil_bresp.val();
        self.uart.m_axil_bvalid.next = self.split.s_axil_bvalid.val();
        self.split.s_axil_bready.next = self.uart.m_axil_bready.val();
        self.split.s_axil_araddr.next = self.uart.m_axil_araddr.val();
        self.split.s_axil_arvalid.next = self.uart.m_axil_arvalid.val();
        self.uart.m_axil_arready.next = self.split.s_axil_arready.val();
        self.uart.m_axil_rdata.next = self.split.s_axil_rdata.val();
        self.uart.m_axil_rresp.next = self.split.s_axil_rresp.val();
        self.uart.m_axil_rvalid.next = self.split.s_axil_rvalid.val();
        self.split.s_axil_rready.next = self.uart.m_axil_rready.val();
        // port 0: the NIC's BAR0 (21 address bits)
        self.nic.s_axil_awaddr.next = self.split.m0_axil_awaddr.val().get_bits::<21>(0);
        self.nic.s_axil_awvalid.next = self.split.m0_axil_awvalid.val();
        self.split.m0_axil_awready.next = self.nic.s_axil_awready.val();
        self.nic.s_axil_wdata.next = self.split.m0_axil_wdata.val();
        self.nic.s_axil_wstrb.next = self.split.m0_axil_wstrb.val();
        self.nic.s_axil_wvalid.next = self.split.m0_axil_wvalid.val();
        self.split.m0_axil_wready.next = self.nic.s_axil_wready.val();
        self.split.m0_axil_bresp.next = self.nic.s_axil_bresp.val();
        self.split.m0_axil_bvalid.next = self.nic.s_axil_bvalid.val();
        self.nic.s_axil_bready.next = self.split.m0_axil_bready.val();
        self.nic.s_axil_araddr.next = self.split.m0_axil_araddr.val().get_bits::<21>(0);
        self.nic.s_axil_arvalid.next = self.split.m0_axil_arvalid.val();
        self.split.m0_axil_arready.next = self.nic.s_axil_arready.val();
        self.split.m0_axil_rdata.next = self.nic.s_axil_rdata.val();
        self.split.m0_axil_rresp.next = self.nic.s_axil_rresp.val();
        self.split.m0_axil_rvalid.next = self.nic.s_axil_rvalid.val();
        self.nic.s_axil_rready.next = self.split.m0_axil_rready.val();
        // port 1: the host memory
        self.mem.s_axil_awaddr.next = self.split.m1_axil_awaddr.val();
        self.mem.s_axil_awvalid.next = self.split.m1_axil_awvalid.val();
        self.split.m1_axil_awready.next = self.mem.s_axil_awready.val();
        self.mem.s_axil_wdata.next = self.split.m1_axil_wdata.val();
        self.mem.s_axil_wstrb.next = self.split.m1_axil_wstrb.val();
        self.mem.s_axil_wvalid.next = self.split.m1_axil_wvalid.val();
        self.split.m1_axil_wready.next = self.mem.s_axil_wready.val();
        self.split.m1_axil_bresp.next = self.mem.s_axil_bresp.val();
        self.split.m1_axil_bvalid.next = self.mem.s_axil_bvalid.val();
        self.mem.s_axil_bready.next = self.split.m1_axil_bready.val();
        self.mem.s_axil_araddr.next = self.split.m1_axil_araddr.val();
        self.mem.s_axil_arvalid.next = self.split.m1_axil_arvalid.val();
        self.split.m1_axil_arready.next = self.mem.s_axil_arready.val();
        self.split.m1_axil_rdata.next = self.mem.s_axil_rdata.val();
        self.split.m1_axil_rresp.next = self.mem.s_axil_rresp.val();
        self.split.m1_axil_rvalid.next = self.mem.s_axil_rvalid.val();
        self.mem.s_axil_rready.next = self.split.m1_axil_rready.val();

        // ================= LEDs (active low: false = lit)
        self.heart.d.next = self.heart.q.val() + 1;
        self.l_frame.next = (self.cdc_rx.out.valid.val()
            & self.nic.rx_mac.ready.val()
            & self.cdc_rx.out.last.val()
            & self.l_nic_ok.val())
            | (self.nic.tx_mac.valid.val()
                & self.cdc_tx.inp.ready.val()
                & self.nic.tx_mac.last.val()
                & self.l_nic_ok.val());
        self.act.d.next = self.act.q.val();
        if self.act.q.val().any() {
            self.act.d.next = self.act.q.val() - 1;
        }
        if self.l_frame.val() {
            self.act.d.next = self.c_act.val();
        }
        self.led_r.next = self.heart.q.val().get_bit(24);
        self.led_g.next = !self.act.q.val().any();
        self.led_b.next = self.l_nic_ok.val();
    }
}

/// The ECPIX-5 85F top level: the ports of `constraints/ecpix5-85f/ecpix5-85f.lpf` (see the
/// module doc), the PLL, the RGMII pins and [`Ecpix5Core`].
#[derive(LogicBlock)]
pub struct Ecpix5Top {
    pub clk100: Signal<In, Clock>,
    pub led_r: Signal<Out, Bit>,
    pub led_g: Signal<Out, Bit>,
    pub led_b: Signal<Out, Bit>,
    pub uart_rx: Signal<In, Bit>,
    pub uart_tx: Signal<Out, Bit>,
    pub eth_rx_clk: Signal<In, Clock>,
    pub eth_rx_ctl: Signal<In, Bit>,
    pub eth_rxd: Signal<In, Bits<4>>,
    pub eth_tx_clk: Signal<Out, Bit>,
    pub eth_tx_ctl: Signal<Out, Bit>,
    pub eth_txd: Signal<Out, Bits<4>>,
    pub eth_rst_n: Signal<Out, Bit>,
    pub eth_mdc: Signal<Out, Bit>,
    /// Unused (no MDIO master): an input, so the pin is never driven.
    pub eth_mdio: Signal<In, Bit>,
    pll: Ecp5Pll,
    rgmii: RgmiiEcp5,
    core: Ecpix5Core,
}

impl Ecpix5Top {
    /// The top level with its UART at `baud` (the NIC clock divided by `baud`, rounded).
    pub fn new(baud: u32) -> Self {
        let cpb = Self::clocks_per_bit(baud);
        assert!(
            (4..65536).contains(&cpb),
            "Ecpix5Top: {baud} baud is out of the UART's range at {NIC_CLOCK_HZ} Hz"
        );
        Ecpix5Top {
            clk100: Default::default(),
            led_r: Default::default(),
            led_g: Default::default(),
            led_b: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            eth_rx_clk: Default::default(),
            eth_rx_ctl: Default::default(),
            eth_rxd: Default::default(),
            eth_tx_clk: Default::default(),
            eth_tx_ctl: Default::default(),
            eth_txd: Default::default(),
            eth_rst_n: Default::default(),
            eth_mdc: Default::default(),
            eth_mdio: Default::default(),
            pll: Default::default(),
            rgmii: RgmiiEcp5::default(),
            core: Ecpix5Core::new(cpb as u16, UART_TIMEOUT, PHY_RESET_CYCLES),
        }
    }

    /// NIC cycles per UART bit at `baud`.
    pub fn clocks_per_bit(baud: u32) -> u64 {
        (NIC_CLOCK_HZ + baud as u64 / 2) / baud as u64
    }
}

impl Default for Ecpix5Top {
    /// 115200 baud.
    fn default() -> Self {
        Self::new(115_200)
    }
}

impl Logic for Ecpix5Top {
    #[hdl_gen]
    fn update(&mut self) {
        self.pll.clki.next = self.clk100.val();
        self.core.nic_clock.next = self.pll.clkos.val();
        self.core.tx_clock.next = self.pll.clkop.val();
        self.core.rx_clock.next = self.eth_rx_clk.val();
        self.core.pll_lock.next = self.pll.lock.val();
        // RGMII pins
        self.rgmii.rgmii_rx_clk.next = self.eth_rx_clk.val();
        self.rgmii.rgmii_rxd.next = self.eth_rxd.val();
        self.rgmii.rgmii_rx_ctl.next = self.eth_rx_ctl.val();
        self.rgmii.tx_clk.next = self.pll.clkop.val();
        self.eth_tx_clk.next = self.rgmii.rgmii_tx_clk.val();
        self.eth_txd.next = self.rgmii.rgmii_txd.val();
        self.eth_tx_ctl.next = self.rgmii.rgmii_tx_ctl.val();
        self.core.gmii_rxd.next = self.rgmii.gmii_rxd.val();
        self.core.gmii_rx_dv.next = self.rgmii.gmii_rx_dv.val();
        self.core.gmii_rx_er.next = self.rgmii.gmii_rx_er.val();
        self.rgmii.gmii_txd.next = self.core.gmii_txd.val();
        self.rgmii.gmii_tx_en.next = self.core.gmii_tx_en.val();
        self.rgmii.gmii_tx_er.next = self.core.gmii_tx_er.val();
        // board pins
        self.core.uart_rx.next = self.uart_rx.val();
        self.uart_tx.next = self.core.uart_tx.val();
        self.led_r.next = self.core.led_r.val();
        self.led_g.next = self.core.led_g.val();
        self.led_b.next = self.core.led_b.val();
        self.eth_rst_n.next = self.core.eth_rst_n.val();
        self.eth_mdc.next = self.core.eth_mdc.val();
    }
}
