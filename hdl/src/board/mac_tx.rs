//! [`MacTx`]: the transmit half of a 1 Gb/s Ethernet MAC on a GMII-style byte interface (IEEE
//! 802.3 clause 35; the board's RGMII I/O registers sit outside, see docs/INTEGRATION.md).
//!
//! For every frame on `inp` (destination address first, no FCS, 8-bit stream with `last`):
//! the preamble (seven 0x55 octets) and the start frame delimiter 0xD5 (IEEE 802.3 clause
//! 3.2.1, 3.2.2), the frame, zero padding up to the minimum of 60 octets before the FCS
//! (clause 3.2.8, minFrameSize 64 with the FCS), the FCS (clause 3.2.9: CRC-32 over address,
//! type and data fields, complemented, sent least significant bit first, i.e. the reflected
//! register's low byte first), then at least 12 idle octets (clause 4.4.2, interFrameGap
//! 96 bit times) before the next preamble.
//!
//! A frame must be offered back to back once it has started (GMII cannot pause): the board
//! top feeds the block from a store-and-forward FIFO. If `inp.valid` drops inside a frame the
//! block sends error octets (`gmii_tx_er`, clause 35.2.1.6, so the receiver discards the
//! frame) until the next byte comes, and pulses `ev_underrun`.
//!
//! # Ports
//! * `inp`: the frames (`StreamSink<8, 1>`; `ready` only in the data phase).
//! * `gmii_tx_en`, `gmii_tx_er`, `gmii_txd`: registered, one octet per cycle.
//! * `ev_frame`: one pulse per frame completed (after its FCS); `ev_underrun`.
use crate::icrc::crc32_step::Crc32Step;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Octets of preamble before the SFD.
pub const PREAMBLE_OCTETS: u64 = 7;
/// Minimum octets of a frame before its FCS (padding fills up to this).
pub const MIN_PAYLOAD: u64 = 60;
/// Idle octets between two frames.
pub const IFG_OCTETS: u64 = 12;
// the kernel counts these as literals
const _: () = assert!(PREAMBLE_OCTETS == 7 && MIN_PAYLOAD == 60 && IFG_OCTETS == 12);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MtxState {
    /// The inter-frame gap is over: wait for a frame.
    Idle,
    /// Send the seven preamble octets.
    Preamble,
    /// Send the start frame delimiter; reset the CRC.
    Sfd,
    /// Send the frame's octets as they are taken from `inp`.
    Data,
    /// Send zero octets up to 60.
    Pad,
    /// Send the four FCS octets.
    Fcs,
    /// Idle octets of the inter-frame gap.
    Gap,
}

#[derive(LogicBlock)]
pub struct MacTx {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<8, 1>,
    pub gmii_tx_en: Signal<Out, Bit>,
    pub gmii_tx_er: Signal<Out, Bit>,
    pub gmii_txd: Signal<Out, Bits<8>>,
    pub ev_frame: Signal<Out, Bit>,
    pub ev_underrun: Signal<Out, Bit>,
    // ---- blocks
    crc_step: Crc32Step<32, 4>,
    // ---- state
    state: DFF<MtxState>,
    n: DFF<Bits<16>>,
    crc: DFF<Bits<32>>,
    /// the FCS octets still to send, the next one in bits 7:0
    fcs: DFF<Bits<32>>,
    en_r: DFF<Bit>,
    er_r: DFF<Bit>,
    txd_r: DFF<Bits<8>>,
    c_ones: Constant<Bits<32>>,
}

impl Default for MacTx {
    fn default() -> Self {
        MacTx {
            clock: Default::default(),
            inp: Default::default(),
            gmii_tx_en: Default::default(),
            gmii_tx_er: Default::default(),
            gmii_txd: Default::default(),
            ev_frame: Default::default(),
            ev_underrun: Default::default(),
            crc_step: Default::default(),
            state: Default::default(),
            n: Default::default(),
            crc: Default::default(),
            fcs: Default::default(),
            en_r: Default::default(),
            er_r: Default::default(),
            txd_r: Default::default(),
            c_ones: Constant::new(0xFFFF_FFFFu64.into()),
        }
    }
}

impl Logic for MacTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, n, crc, fcs, en_r, er_r, txd_r);
        // defaults
        self.gmii_tx_en.next = self.en_r.q.val();
        self.gmii_tx_er.next = self.er_r.q.val();
        self.gmii_txd.next = self.txd_r.q.val();
        self.inp.ready.next = false;
        self.ev_frame.next = false;
        self.ev_underrun.next = false;
        self.en_r.d.next = false;
        self.er_r.d.next = false;
        self.txd_r.d.next = 0.into();
        self.n.d.next = self.n.q.val() + 1;
        self.crc_step.state.next = self.crc.q.val();
        self.crc_step.data.next = bit_cast::<32, 8>(self.inp.data.val()) << 24;
        self.crc_step.count.next = 1.into();

        match self.state.q.val() {
            MtxState::Idle => {
                self.n.d.next = 0.into();
                if self.inp.valid.val() {
                    self.state.d.next = MtxState::Preamble;
                }
            }
            MtxState::Preamble => {
                self.en_r.d.next = true;
                self.txd_r.d.next = 0x55.into();
                if self.n.q.val() == 6 {
                    self.state.d.next = MtxState::Sfd;
                }
            }
            MtxState::Sfd => {
                self.en_r.d.next = true;
                self.txd_r.d.next = 0xD5.into();
                self.crc.d.next = self.c_ones.val();
                self.n.d.next = 0.into();
                self.state.d.next = MtxState::Data;
            }
            MtxState::Data => {
                self.en_r.d.next = true;
                self.inp.ready.next = true;
                self.n.d.next = self.n.q.val();
                if self.inp.valid.val() {
                    self.txd_r.d.next = self.inp.data.val();
                    self.crc.d.next = self.crc_step.crc.val();
                    self.n.d.next = self.n.q.val() + 1;
                    if self.inp.last.val() {
                        if self.n.q.val() < 59 {
                            self.state.d.next = MtxState::Pad;
                        } else {
                            self.state.d.next = MtxState::Fcs;
                            self.fcs.d.next = !self.crc_step.crc.val();
                            self.n.d.next = 0.into();
                        }
                    }
                } else {
                    self.er_r.d.next = true;
                    self.ev_underrun.next = true;
                }
            }
            MtxState::Pad => {
                self.en_r.d.next = true;
                self.crc_step.data.next = 0.into();
                self.crc.d.next = self.crc_step.crc.val();
                if self.n.q.val() == 59 {
                    self.state.d.next = MtxState::Fcs;
                    self.fcs.d.next = !self.crc_step.crc.val();
                    self.n.d.next = 0.into();
                }
            }
            MtxState::Fcs => {
                self.en_r.d.next = true;
                self.txd_r.d.next = self.fcs.q.val().get_bits::<8>(0);
                self.fcs.d.next = self.fcs.q.val() >> 8;
                if self.n.q.val() == 3 {
                    self.n.d.next = 0.into();
                    self.ev_frame.next = true;
                    self.state.d.next = MtxState::Gap;
                }
            }
            MtxState::Gap => {
                // 12 idle octets on the wire: the last FCS octet leaves the output register
                // in this state's first cycle
                if self.n.q.val() == 12 {
                    self.state.d.next = MtxState::Idle;
                }
            }
            _ => {
                self.state.d.next = MtxState::Idle;
            }
        }
    }
}
