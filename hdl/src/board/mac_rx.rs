//! [`MacRx`]: the receive half of a 1 Gb/s Ethernet MAC on a GMII-style byte interface (IEEE
//! 802.3 clause 35; the board's RGMII I/O registers sit outside, see docs/INTEGRATION.md), with
//! a store-and-forward buffer so that only good frames reach the NIC.
//!
//! A frame starts with preamble octets (0x55, any number, none needed) and the SFD 0xD5 (IEEE
//! 802.3 clause 3.2.1, 3.2.2) while `gmii_rx_dv` is high; it ends when `gmii_rx_dv` falls. Its
//! octets after the SFD go into the buffer as they come, through the CRC-32 (clause 3.2.9),
//! four octets behind, so that the FCS itself is never written. At the end the frame is
//! *committed* (the reader may take it) if the CRC register over the frame and its FCS holds
//! the residue [`FCS_RESIDUE`], its length with the FCS is 64 to [`MAX_FRAME`] octets (clause
//! 3.2.7, 4.2.4.2.2), `gmii_rx_er` was never high inside it and the buffer did not run full;
//! otherwise its octets are given back (the write pointer returns to the frame's start) and
//! the reason is counted. A preamble octet other than 0x55 / 0xD5 drops the frame (counted as
//! a bad length: it never had a well-formed start).
//!
//! # Buffer
//! A ring of 2^12 octets in block RAM (9 bits a word: the octet and `last`), enough for a
//! maximum frame while the previous one is read. The reader side is a stream of committed
//! frames without FCS (`out`, `StreamSource<8, 1>`, first word fall through), in this block's
//! clock domain; the board top crosses it into the NIC's clock.
//!
//! # Ports
//! * `gmii_rx_dv`, `gmii_rx_er`, `gmii_rxd`: one octet per cycle (from the RGMII input
//!   registers).
//! * `out`: the good frames, FCS stripped.
//! * `ev_good`, `ev_bad_fcs`, `ev_bad_len`, `ev_rx_er`, `ev_overflow`: one pulse per frame
//!   at its end, one reason per dropped frame (in this order of precedence: overflow, `rx_er`,
//!   length, FCS); `cnt_*`: the same as 32-bit totals.
use crate::icrc::crc32_step::Crc32Step;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// The CRC-32 register (reflected, initialised to all ones, not complemented) after a frame
/// and its correct FCS (IEEE 802.3 clause 3.2.9): the residue of the polynomial.
pub const FCS_RESIDUE: u32 = 0xDEBB_20E3;
/// Longest frame accepted, FCS included (a VLAN-tagged 1500-octet payload: IEEE 802.3 clause
/// 3.5).
pub const MAX_FRAME: u64 = 1522;
/// Shortest frame accepted, FCS included (IEEE 802.3 clause 4.4.2, minFrameSize).
pub const MIN_FRAME: u64 = 64;
// the kernel compares with these as literals
const _: () = assert!(MAX_FRAME == 1522 && MIN_FRAME == 64);
/// Address bits of the buffer (2^12 octets).
pub const RX_BUF_BITS: usize = 12;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MrxState {
    /// Between frames: wait for `rx_dv` with a preamble octet or the SFD.
    Idle,
    /// Preamble octets: wait for the SFD.
    Preamble,
    /// Frame octets into the CRC and the buffer; at the end of `rx_dv`, commit or drop.
    Data,
    /// A malformed start: wait for `rx_dv` to fall.
    Skip,
}

#[derive(LogicBlock)]
pub struct MacRx {
    pub clock: Signal<In, Clock>,
    pub gmii_rx_dv: Signal<In, Bit>,
    pub gmii_rx_er: Signal<In, Bit>,
    pub gmii_rxd: Signal<In, Bits<8>>,
    pub out: StreamSource<8, 1>,
    pub ev_good: Signal<Out, Bit>,
    pub ev_bad_fcs: Signal<Out, Bit>,
    pub ev_bad_len: Signal<Out, Bit>,
    pub ev_rx_er: Signal<Out, Bit>,
    pub ev_overflow: Signal<Out, Bit>,
    pub cnt_good: Signal<Out, Bits<32>>,
    pub cnt_bad_fcs: Signal<Out, Bits<32>>,
    pub cnt_bad_len: Signal<Out, Bits<32>>,
    pub cnt_rx_er: Signal<Out, Bits<32>>,
    pub cnt_overflow: Signal<Out, Bits<32>>,
    // ---- blocks
    crc_step: Crc32Step<32, 4>,
    ring: RAM<Bits<9>, RX_BUF_BITS>,
    // ---- state
    state: DFF<MrxState>,
    crc: DFF<Bits<32>>,
    /// octets of the frame so far (saturating at 2^11 - 1: anything that long is too long)
    len: DFF<Bits<11>>,
    /// the last five octets, newest in `w0`; `w4` is the next to write
    w0: DFF<Bits<8>>,
    w1: DFF<Bits<8>>,
    w2: DFF<Bits<8>>,
    w3: DFF<Bits<8>>,
    w4: DFF<Bits<8>>,
    er_seen: DFF<Bit>,
    ovf: DFF<Bit>,
    /// write pointer, the start of the frame being written (= end of the committed ones),
    /// read pointer
    wp: DFF<Bits<RX_BUF_BITS>>,
    cp: DFF<Bits<RX_BUF_BITS>>,
    rp: DFF<Bits<RX_BUF_BITS>>,
    n_good: DFF<Bits<32>>,
    n_bad_fcs: DFF<Bits<32>>,
    n_bad_len: DFF<Bits<32>>,
    n_rx_er: DFF<Bits<32>>,
    n_overflow: DFF<Bits<32>>,
    c_ones: Constant<Bits<32>>,
    c_residue: Constant<Bits<32>>,
    c_last: Constant<Bits<9>>,
    // ---- combinational helpers
    wp_next: Signal<Local, Bits<RX_BUF_BITS>>,
    full: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

impl Default for MacRx {
    fn default() -> Self {
        MacRx {
            clock: Default::default(),
            gmii_rx_dv: Default::default(),
            gmii_rx_er: Default::default(),
            gmii_rxd: Default::default(),
            out: Default::default(),
            ev_good: Default::default(),
            ev_bad_fcs: Default::default(),
            ev_bad_len: Default::default(),
            ev_rx_er: Default::default(),
            ev_overflow: Default::default(),
            cnt_good: Default::default(),
            cnt_bad_fcs: Default::default(),
            cnt_bad_len: Default::default(),
            cnt_rx_er: Default::default(),
            cnt_overflow: Default::default(),
            crc_step: Default::default(),
            ring: Default::default(),
            state: Default::default(),
            crc: Default::default(),
            len: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            w4: Default::default(),
            er_seen: Default::default(),
            ovf: Default::default(),
            wp: Default::default(),
            cp: Default::default(),
            rp: Default::default(),
            n_good: Default::default(),
            n_bad_fcs: Default::default(),
            n_bad_len: Default::default(),
            n_rx_er: Default::default(),
            n_overflow: Default::default(),
            c_ones: Constant::new(0xFFFF_FFFFu64.into()),
            c_residue: Constant::new((FCS_RESIDUE as u64).into()),
            c_last: Constant::new(0x100u64.into()),
            wp_next: Default::default(),
            full: Default::default(),
            pop: Default::default(),
        }
    }
}

impl Logic for MacRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, crc, len, w0, w1, w2, w3, w4, er_seen, ovf, wp, cp, rp, n_good,
            n_bad_fcs, n_bad_len, n_rx_er, n_overflow
        );
        self.ring.read_clock.next = self.clock.val();
        self.ring.write_clock.next = self.clock.val();
        // ---- reader: first word fall through from the RAM (its read port always shows the
        // word at `rp`: the address is the next `rp`)
        self.out.valid.next = self.rp.q.val() != self.cp.q.val();
        self.out.data.next = self.ring.read_data.val().get_bits::<8>(0);
        self.out.keep.next = 1.into();
        self.out.last.next = self.ring.read_data.val().get_bit(8);
        self.pop.next = (self.rp.q.val() != self.cp.q.val()) & self.out.ready.val();
        self.ring.read_address.next = self.rp.q.val();
        if self.pop.val() {
            self.rp.d.next = self.rp.q.val() + 1;
            self.ring.read_address.next = self.rp.q.val() + 1;
        }
        // ---- writer defaults
        self.wp_next.next = self.wp.q.val() + 1;
        self.full.next = self.wp_next.val() == self.rp.q.val();
        self.ring.write_address.next = self.wp.q.val();
        self.ring.write_data.next = bit_cast::<9, 8>(self.w4.q.val());
        self.ring.write_enable.next = false;
        self.crc_step.state.next = self.crc.q.val();
        self.crc_step.data.next = bit_cast::<32, 8>(self.gmii_rxd.val()) << 24;
        self.crc_step.count.next = 1.into();
        self.ev_good.next = false;
        self.ev_bad_fcs.next = false;
        self.ev_bad_len.next = false;
        self.ev_rx_er.next = false;
        self.ev_overflow.next = false;
        self.cnt_good.next = self.n_good.q.val();
        self.cnt_bad_fcs.next = self.n_bad_fcs.q.val();
        self.cnt_bad_len.next = self.n_bad_len.q.val();
        self.cnt_rx_er.next = self.n_rx_er.q.val();
        self.cnt_overflow.next = self.n_overflow.q.val();

        match self.state.q.val() {
            MrxState::Idle => {
                self.crc.d.next = self.c_ones.val();
                self.len.d.next = 0.into();
                self.er_seen.d.next = false;
                self.ovf.d.next = false;
                if self.gmii_rx_dv.val() {
                    if self.gmii_rxd.val() == 0xD5 {
                        self.state.d.next = MrxState::Data;
                    } else if self.gmii_rxd.val() == 0x55 {
                        self.state.d.next = MrxState::Preamble;
                    } else {
                        self.state.d.next = MrxState::Skip;
                    }
                }
            }
            MrxState::Preamble => {
                if !self.gmii_rx_dv.val() {
                    self.state.d.next = MrxState::Idle;
                } else if self.gmii_rxd.val() == 0xD5 {
                    self.state.d.next = MrxState::Data;
                } else if self.gmii_rxd.val() != 0x55 {
                    self.state.d.next = MrxState::Skip;
                }
            }
            MrxState::Data => {
                if self.gmii_rx_dv.val() {
                    self.crc.d.next = self.crc_step.crc.val();
                    if self.len.q.val() != 0x7FF {
                        self.len.d.next = self.len.q.val() + 1;
                    }
                    if self.gmii_rx_er.val() {
                        self.er_seen.d.next = true;
                    }
                    self.w0.d.next = self.gmii_rxd.val();
                    self.w1.d.next = self.w0.q.val();
                    self.w2.d.next = self.w1.q.val();
                    self.w3.d.next = self.w2.q.val();
                    self.w4.d.next = self.w3.q.val();
                    // the octet five behind is not the frame's last (not the FCS either)
                    if self.len.q.val() >= 5 {
                        if self.full.val() | self.ovf.q.val() {
                            self.ovf.d.next = true;
                        } else {
                            self.ring.write_enable.next = true;
                            self.wp.d.next = self.wp_next.val();
                        }
                    }
                } else {
                    // the end of the frame: `w4` is its last octet before the FCS
                    self.state.d.next = MrxState::Idle;
                    self.wp.d.next = self.cp.q.val();
                    if self.ovf.q.val() | self.full.val() {
                        self.ev_overflow.next = true;
                        self.n_overflow.d.next = self.n_overflow.q.val() + 1;
                    } else if self.er_seen.q.val() {
                        self.ev_rx_er.next = true;
                        self.n_rx_er.d.next = self.n_rx_er.q.val() + 1;
                    } else if (self.len.q.val() < 64) | (self.len.q.val() > 1522) {
                        self.ev_bad_len.next = true;
                        self.n_bad_len.d.next = self.n_bad_len.q.val() + 1;
                    } else if self.crc.q.val() != self.c_residue.val() {
                        self.ev_bad_fcs.next = true;
                        self.n_bad_fcs.d.next = self.n_bad_fcs.q.val() + 1;
                    } else {
                        self.ring.write_data.next =
                            bit_cast::<9, 8>(self.w4.q.val()) | self.c_last.val();
                        self.ring.write_enable.next = true;
                        self.wp.d.next = self.wp_next.val();
                        self.cp.d.next = self.wp_next.val();
                        self.ev_good.next = true;
                        self.n_good.d.next = self.n_good.q.val() + 1;
                    }
                }
            }
            MrxState::Skip => {
                if !self.gmii_rx_dv.val() {
                    self.ev_bad_len.next = true;
                    self.n_bad_len.d.next = self.n_bad_len.q.val() + 1;
                    self.state.d.next = MrxState::Idle;
                }
            }
            _ => {
                self.state.d.next = MrxState::Idle;
            }
        }
    }
}
