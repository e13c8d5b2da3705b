//! The ECP5 RGMII I/O (`ferroce_hdl::board::RgmiiEcp5`).
//!
//! * The transmit pins against the RGMII encoding (bits 3:0 and `TX_EN` while the clock is
//!   high, bits 7:4 and `TX_EN ^ TX_ER` while it is low, the forwarded clock equal to the
//!   transmit clock), for random octets, enables and errors.
//! * A loop from the transmit pins to the receive pins with the receive clock a quarter cycle
//!   after the transmit clock (the RGMII skew): every octet, `dv` and `er` comes back one cycle
//!   later. Both run on the block's behavioural model of the primitives, so they check the
//!   nibble order and the control encoding of that model, not the silicon.
//! * Yosys `synth_ecp5` of the emitted Verilog: the vendor primitives are instantiated (five
//!   IDDRX1F, six ODDRX1F, six DELAYG), their ports check against Yosys's ECP5 cell library,
//!   and the delay values reach the `DEL_VALUE` parameters.
//!
//! There is no Verilator co-simulation: the emitted module is only primitive instances, which
//! Verilator cannot simulate without models of the vendor's cells.
//!
//! Needs yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::board::RgmiiEcp5;
use ferroce_hdl::testbench::{settle_block, Rng};
use ferroce_testkit::synth_ecp5_block;
use rust_hdl::prelude::*;

fn clocks(u: &mut RgmiiEcp5, tx: bool, rx: bool) {
    u.tx_clk.next = Clock { clk: tx };
    u.rgmii_rx_clk.next = Clock { clk: rx };
}

/// The wire: the receive pins show the transmit pins.
fn wire(u: &mut RgmiiEcp5) {
    u.rgmii_rxd.next = u.rgmii_txd.val();
    u.rgmii_rx_ctl.next = u.rgmii_tx_ctl.val();
}

#[test]
fn rgmii_encoding_and_loopback() {
    let mut u = RgmiiEcp5::default();
    u.connect_all();
    let mut rng = Rng::new(5);
    let n = 20_000;
    let sent: Vec<(u64, bool, bool)> = (0..n)
        .map(|_| (rng.next_u64() & 0xFF, rng.percent(70), rng.percent(10)))
        .collect();
    let (mut checked, mut errors) = (0, 0);
    clocks(&mut u, false, false);
    settle_block(&mut u);
    for (k, &(d, en, er)) in sent.iter().enumerate() {
        u.gmii_txd.next = d.into();
        u.gmii_tx_en.next = en;
        u.gmii_tx_er.next = er;
        // transmit clock rises: the first half of the octet is on the pins
        clocks(&mut u, true, false);
        settle_block(&mut u);
        assert_eq!(
            u.rgmii_txd.val().to_u64(),
            d & 0xF,
            "rising half, octet {k}"
        );
        assert_eq!(u.rgmii_tx_ctl.val(), en, "TX_EN at the rising edge");
        assert!(u.rgmii_tx_clk.val(), "forwarded clock high");
        wire(&mut u);
        // receive clock rises a quarter cycle later: the previous octet comes out
        clocks(&mut u, true, true);
        settle_block(&mut u);
        if k > 0 {
            let (pd, pen, per) = sent[k - 1];
            assert_eq!(u.gmii_rxd.val().to_u64(), pd, "rxd, octet {}", k - 1);
            assert_eq!(u.gmii_rx_dv.val(), pen, "rx_dv, octet {}", k - 1);
            assert_eq!(u.gmii_rx_er.val(), per, "rx_er, octet {}", k - 1);
            checked += 1;
            errors += per as u64;
        }
        // transmit clock falls: the second half
        clocks(&mut u, false, true);
        settle_block(&mut u);
        assert_eq!(
            u.rgmii_txd.val().to_u64(),
            d >> 4,
            "falling half, octet {k}"
        );
        assert_eq!(
            u.rgmii_tx_ctl.val(),
            en ^ er,
            "TX_EN ^ TX_ER at the falling edge"
        );
        assert!(!u.rgmii_tx_clk.val(), "forwarded clock low");
        wire(&mut u);
        clocks(&mut u, false, false);
        settle_block(&mut u);
    }
    assert_eq!(checked, n - 1);
    assert!(errors > 0);
    eprintln!("{checked} octets looped back, {errors} with rx_er");
}

#[test]
fn yosys_synth_rgmii_ecp5() {
    let m = "ferroce_rgmii_ecp5";
    let v = ferroce_hdl::verilog::block_verilog(&mut RgmiiEcp5::new(80, 72), m);
    assert!(
        v.contains(".DEL_VALUE(80)") && v.contains(".DEL_VALUE(72)"),
        "{v}"
    );
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rgmii_synth");
    let cells = ["IDDRX1F", "ODDRX1F", "DELAYG", "LUT4", "TRELLIS_FF"];
    let Some(st) = synth_ecp5_block(m, &v, &dir, &cells) else {
        return;
    };
    assert_eq!(st.count("IDDRX1F"), 5, "{}", st.line(&cells));
    assert_eq!(st.count("ODDRX1F"), 6, "{}", st.line(&cells));
    assert_eq!(st.count("DELAYG"), 6, "{}", st.line(&cells));
}
