//! [`RgmiiEcp5`]: the RGMII double-data-rate pins of a 1 Gb/s PHY on ECP5, as the vendor's I/O
//! primitives, turned into the GMII-style byte interface of `MacRx`/`MacTx`.
//!
//! RGMII (version 2.0 of the HP/Marvell specification) carries a GMII octet per 125 MHz cycle
//! on four data pins at both clock edges: bits 3:0 at the rising edge, bits 7:4 at the falling
//! edge; the control pin carries the enable (`TX_EN`/`RX_DV`) at the rising edge and
//! enable XOR error at the falling edge.
//!
//! * Receive: each of `rgmii_rxd[3:0]` and `rgmii_rx_ctl` goes through a `DELAYG` (a fixed
//!   input delay, `rx_delay` taps) into an `IDDRX1F` clocked by `rgmii_rx_clk`; its `Q0`
//!   (rising-edge sample) and `Q1` (the falling-edge sample after it) make one octet,
//!   `gmii_rx_dv = Q0(ctl)` and `gmii_rx_er = Q0(ctl) ^ Q1(ctl)`. The GMII side is in the
//!   `rgmii_rx_clk` domain.
//! * Transmit: an `ODDRX1F` per pin clocked by `tx_clk` (125 MHz), `D0` = the rising-edge
//!   half, `D1` = the falling-edge half; the PHY's clock `rgmii_tx_clk` is forwarded by an
//!   `ODDRX1F` with `D0 = 1`, `D1 = 0` and a `DELAYG` of `tx_delay` taps.
//!
//! RGMII wants the clock to arrive 1.5 to 2 ns after the data at the receiver; a PHY in RGMII-ID
//! mode adds that itself, otherwise the FPGA must (the `DELAYG` taps here). Which mode the
//! ECPIX-5's PHY is strapped to was not checked: the delays are constructor parameters
//! (`DEL_MODE "USER_DEFINED"`, `DEL_VALUE` = taps), 0 by default.
//!
//! The emitted Verilog instantiates the primitives (rust-hdl `Verilog::Wrapper`); Yosys
//! `synth_ecp5` and nextpnr-ecp5 know them. The Rust simulation is a behavioural model of the
//! primitives written from the description above (zero delay, one cycle of receive latency),
//! for benches of a top level; it is not a model of the silicon's timing.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RgmiiEcp5 {
    // ---- PHY pins
    pub rgmii_rx_clk: Signal<In, Clock>,
    pub rgmii_rxd: Signal<In, Bits<4>>,
    pub rgmii_rx_ctl: Signal<In, Bit>,
    pub rgmii_tx_clk: Signal<Out, Bit>,
    pub rgmii_txd: Signal<Out, Bits<4>>,
    pub rgmii_tx_ctl: Signal<Out, Bit>,
    // ---- GMII side: transmit in `tx_clk`, receive in `rgmii_rx_clk`
    pub tx_clk: Signal<In, Clock>,
    pub gmii_txd: Signal<In, Bits<8>>,
    pub gmii_tx_en: Signal<In, Bit>,
    pub gmii_tx_er: Signal<In, Bit>,
    pub gmii_rxd: Signal<Out, Bits<8>>,
    pub gmii_rx_dv: Signal<Out, Bit>,
    pub gmii_rx_er: Signal<Out, Bit>,
    /// input delay taps (`DELAYG` on every receive pin)
    _rx_delay: u8,
    /// output delay taps (`DELAYG` on the forwarded transmit clock)
    _tx_delay: u8,
    /// simulation model state: {rising-edge sample (ctl, nibble), falling-edge sample, the
    /// transmit register's D0 and D1 halves}
    _m: ModelState,
}

#[derive(Clone, Copy, Debug, Default)]
struct ModelState {
    rise: (bool, u64),
    fall: (bool, u64),
    d0: (bool, u64),
    d1: (bool, u64),
}

impl RgmiiEcp5 {
    /// `rx_delay`, `tx_delay`: `DELAYG` taps on the receive pins and on the forwarded transmit
    /// clock (0..=127; 0 for a PHY that adds the RGMII delays itself).
    pub fn new(rx_delay: u8, tx_delay: u8) -> Self {
        assert!(
            rx_delay < 128 && tx_delay < 128,
            "DELAYG has 7-bit delay values"
        );
        RgmiiEcp5 {
            rgmii_rx_clk: Default::default(),
            rgmii_rxd: Default::default(),
            rgmii_rx_ctl: Default::default(),
            rgmii_tx_clk: Default::default(),
            rgmii_txd: Default::default(),
            rgmii_tx_ctl: Default::default(),
            tx_clk: Default::default(),
            gmii_txd: Default::default(),
            gmii_tx_en: Default::default(),
            gmii_tx_er: Default::default(),
            gmii_rxd: Default::default(),
            gmii_rx_dv: Default::default(),
            gmii_rx_er: Default::default(),
            _rx_delay: rx_delay,
            _tx_delay: tx_delay,
            _m: ModelState::default(),
        }
    }
}

impl Default for RgmiiEcp5 {
    /// No FPGA-side delays (a PHY in RGMII-ID mode).
    fn default() -> Self {
        Self::new(0, 0)
    }
}

impl Logic for RgmiiEcp5 {
    fn update(&mut self) {
        // receive: at a rising edge the octet of the previous rising and falling samples comes
        // out, then the new rising sample is taken; a falling edge takes the falling sample
        if self.rgmii_rx_clk.pos_edge() {
            let (r, f) = (self._m.rise, self._m.fall);
            self.gmii_rxd.next = ((f.1 << 4) | r.1).into();
            self.gmii_rx_dv.next = r.0;
            self.gmii_rx_er.next = r.0 ^ f.0;
            self._m.rise = (self.rgmii_rx_ctl.val(), self.rgmii_rxd.val().to_u64());
        }
        if self.rgmii_rx_clk.neg_edge() {
            self._m.fall = (self.rgmii_rx_ctl.val(), self.rgmii_rxd.val().to_u64());
        }
        // transmit: the rising edge registers both halves; the pins show D0 while the clock
        // is high and D1 while it is low
        if self.tx_clk.pos_edge() {
            let d = self.gmii_txd.val().to_u64();
            let (en, er) = (self.gmii_tx_en.val(), self.gmii_tx_er.val());
            self._m.d0 = (en, d & 0xF);
            self._m.d1 = (en ^ er, d >> 4);
        }
        let high = self.tx_clk.val().clk;
        let h = if high { self._m.d0 } else { self._m.d1 };
        self.rgmii_txd.next = h.1.into();
        self.rgmii_tx_ctl.next = h.0;
        self.rgmii_tx_clk.next = high;
    }

    fn connect(&mut self) {
        self.rgmii_tx_clk.connect();
        self.rgmii_txd.connect();
        self.rgmii_tx_ctl.connect();
        self.gmii_rxd.connect();
        self.gmii_rx_dv.connect();
        self.gmii_rx_er.connect();
    }

    fn hdl(&self) -> Verilog {
        let (rx, tx) = (self._rx_delay, self._tx_delay);
        let mut code = String::new();
        code.push_str("wire [4:0] rx_pin_dly;\nwire rx_ctl_q0, rx_ctl_q1, tx_clk_ddr;\n");
        // receive: ctl is bit 4 of the delayed pins
        let rx_pins = [
            "rgmii_rxd[0]",
            "rgmii_rxd[1]",
            "rgmii_rxd[2]",
            "rgmii_rxd[3]",
            "rgmii_rx_ctl",
        ];
        for (i, p) in rx_pins.iter().enumerate() {
            code.push_str(&format!(
                "DELAYG #(.DEL_MODE(\"USER_DEFINED\"), .DEL_VALUE({rx})) rx_dly_{i} (.A({p}), .Z(rx_pin_dly[{i}]));\n"
            ));
        }
        for i in 0..4 {
            code.push_str(&format!(
                "IDDRX1F rx_ddr_{i} (.D(rx_pin_dly[{i}]), .SCLK(rgmii_rx_clk), .RST(1'b0), .Q0(gmii_rxd[{i}]), .Q1(gmii_rxd[{}]));\n",
                i + 4
            ));
        }
        code.push_str(
            "IDDRX1F rx_ddr_ctl (.D(rx_pin_dly[4]), .SCLK(rgmii_rx_clk), .RST(1'b0), .Q0(rx_ctl_q0), .Q1(rx_ctl_q1));\n\
             assign gmii_rx_dv = rx_ctl_q0;\n\
             assign gmii_rx_er = rx_ctl_q0 ^ rx_ctl_q1;\n",
        );
        // transmit
        for i in 0..4 {
            code.push_str(&format!(
                "ODDRX1F tx_ddr_{i} (.SCLK(tx_clk), .RST(1'b0), .D0(gmii_txd[{i}]), .D1(gmii_txd[{}]), .Q(rgmii_txd[{i}]));\n",
                i + 4
            ));
        }
        code.push_str(&format!(
            "ODDRX1F tx_ddr_ctl (.SCLK(tx_clk), .RST(1'b0), .D0(gmii_tx_en), .D1(gmii_tx_en ^ gmii_tx_er), .Q(rgmii_tx_ctl));\n\
             ODDRX1F tx_ddr_clk (.SCLK(tx_clk), .RST(1'b0), .D0(1'b1), .D1(1'b0), .Q(tx_clk_ddr));\n\
             DELAYG #(.DEL_MODE(\"USER_DEFINED\"), .DEL_VALUE({tx})) tx_dly_clk (.A(tx_clk_ddr), .Z(rgmii_tx_clk));\n"
        ));
        Verilog::Wrapper(Wrapper {
            code,
            // Yosys replaces these black boxes with its own ECP5 cell library (they are only
            // declared so that the file stands alone for tools that read it first)
            cores: "(* blackbox *) module DELAYG(input A, output Z); parameter DEL_MODE = \"USER_DEFINED\"; parameter DEL_VALUE = 0; endmodule\n\
                    (* blackbox *) module IDDRX1F(input D, input SCLK, input RST, output Q0, output Q1); parameter GSR = \"ENABLED\"; endmodule\n\
                    (* blackbox *) module ODDRX1F(input SCLK, input RST, input D0, input D1, output Q); parameter GSR = \"ENABLED\"; endmodule\n"
                .into(),
        })
    }
}
