//! [`PfcXoffGenerator`]: the transmit side of IEEE 802.1Qbb priority-based flow control: when
//! the NIC must ask its peer to stop (XOFF) or resume (XON) the RoCE priority, from the fill
//! level of its receive buffer.
//!
//! # Hysteresis
//! `fill` is the occupancy of the receive buffer in front of host DMA (the unit is the caller's:
//! NicTop gives beats, docs/CONGESTION.md). With `enable` high:
//! * in `Idle`, `fill >= xoff_thresh` requests an XOFF;
//! * once the XOFF is taken (`send_ready`), the block is `Paused`; `fill < xon_thresh` there
//!   requests an XON (pause time 0 = resume, IEEE 802.1Qbb clause 36.1.3.1) and, once it is
//!   taken, the block is `Idle` again;
//! * while `Paused` and not drained, the XOFF is *refreshed*: the block keeps the pause it asked
//!   for as a timer (the XOFF's `quanta` x 512 bit times, counted down by `bits_per_cycle` each
//!   cycle, the pace of [`super::pfc_pause::PfcPause`]) and requests another XOFF when half of it
//!   is left, so the peer's pause never lapses while the buffer is above the XON threshold.
//!
//! `xon_thresh` should be at most `xoff_thresh` (the hysteresis band); with `xon_thresh >
//! xoff_thresh` the block still alternates XOFF and XON, each taken frame moving it one step.
//! `quanta` should not be 0 (an XOFF of 0 quanta is an XON; the refresh would then ask again at
//! once).
//!
//! # Request handshake
//! `send_valid` with `send_xon` (0: XOFF of `quanta`; 1: XON) is held until `send_ready`; the
//! frame source forms the PFC frame from them. A request is not withdrawn: an XOFF whose buffer
//! drains before it is taken is still sent, and the XON follows.
//!
//! # Enable
//! With `enable` low (`CFG_CONTROL.PFC_ENABLE` clear) nothing is requested and the block returns
//! to `Idle` (a pending request is dropped; the peer's pause, if any, runs out on its own).
//!
//! # Ports
//! * `enable`, `fill` (16 bits), `xoff_thresh`, `xon_thresh`, `quanta`, `bits_per_cycle`
//!   (16 bits each).
//! * `send_valid`, `send_xon` out, `send_ready` in: the request.
//! * `ev_xoff`, `ev_xon`: one-cycle pulses the cycle an XOFF / XON is taken (the counters).
//! * `asserted`: XOFF sent and not yet resumed (`Paused` or a pending XON), for status.
use ferroce_proto::wire::pfc::QUANTUM_BIT_TIMES;
use rust_hdl::prelude::*;

use super::pfc_pause::PFC_TIMER_BITS;

// The kernel multiplies by a quantum as `<< 9` and takes half of it as `<< 8`.
const _: () = assert!(QUANTUM_BIT_TIMES == 1 << 9);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum XoffState {
    /// Below the XOFF threshold, nothing asked of the peer.
    Idle,
    /// An XOFF is requested (first or refresh), waiting for `send_ready`.
    SendXoff,
    /// The peer is paused; watch the drain (XON) and the refresh timer.
    Paused,
    /// An XON is requested, waiting for `send_ready`.
    SendXon,
}

#[derive(LogicBlock)]
pub struct PfcXoffGenerator {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    pub fill: Signal<In, Bits<16>>,
    pub xoff_thresh: Signal<In, Bits<16>>,
    pub xon_thresh: Signal<In, Bits<16>>,
    pub quanta: Signal<In, Bits<16>>,
    pub bits_per_cycle: Signal<In, Bits<16>>,
    // ---- the request to the frame source
    pub send_valid: Signal<Out, Bit>,
    pub send_xon: Signal<Out, Bit>,
    pub send_ready: Signal<In, Bit>,
    // ---- events and status
    pub ev_xoff: Signal<Out, Bit>,
    pub ev_xon: Signal<Out, Bit>,
    pub asserted: Signal<Out, Bit>,
    // ---- state
    state: DFF<XoffState>,
    /// remaining pause the last XOFF asked for, in bit times
    timer: DFF<Bits<PFC_TIMER_BITS>>,
    // ---- combinational helpers
    step: Signal<Local, Bits<PFC_TIMER_BITS>>,
    /// the XOFF's pause in bit times, and half of it (the refresh point)
    load: Signal<Local, Bits<PFC_TIMER_BITS>>,
    half: Signal<Local, Bits<PFC_TIMER_BITS>>,
}

impl Default for PfcXoffGenerator {
    fn default() -> Self {
        PfcXoffGenerator {
            clock: Default::default(),
            enable: Default::default(),
            fill: Default::default(),
            xoff_thresh: Default::default(),
            xon_thresh: Default::default(),
            quanta: Default::default(),
            bits_per_cycle: Default::default(),
            send_valid: Default::default(),
            send_xon: Default::default(),
            send_ready: Default::default(),
            ev_xoff: Default::default(),
            ev_xon: Default::default(),
            asserted: Default::default(),
            state: Default::default(),
            timer: Default::default(),
            step: Default::default(),
            load: Default::default(),
            half: Default::default(),
        }
    }
}

impl Logic for PfcXoffGenerator {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, timer);
        self.send_valid.next = false;
        self.send_xon.next = false;
        self.ev_xoff.next = false;
        self.ev_xon.next = false;
        self.asserted.next = false;
        self.step.next = bit_cast::<PFC_TIMER_BITS, 16>(self.bits_per_cycle.val());
        self.load.next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta.val()) << 9;
        self.half.next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta.val()) << 8;
        // the peer's pause runs down at the link's pace, saturating at 0
        if self.timer.q.val() > self.step.val() {
            self.timer.d.next = self.timer.q.val() - self.step.val();
        } else {
            self.timer.d.next = 0.into();
        }
        match self.state.q.val() {
            XoffState::Idle => {
                if self.fill.val() >= self.xoff_thresh.val() {
                    self.state.d.next = XoffState::SendXoff;
                }
            }
            XoffState::SendXoff => {
                self.send_valid.next = true;
                self.asserted.next = true;
                if self.send_ready.val() {
                    self.ev_xoff.next = true;
                    self.timer.d.next = self.load.val();
                    self.state.d.next = XoffState::Paused;
                }
            }
            XoffState::Paused => {
                self.asserted.next = true;
                if self.fill.val() < self.xon_thresh.val() {
                    self.state.d.next = XoffState::SendXon;
                } else if self.timer.q.val() <= self.half.val() {
                    self.state.d.next = XoffState::SendXoff;
                }
            }
            XoffState::SendXon => {
                self.send_valid.next = true;
                self.send_xon.next = true;
                self.asserted.next = true;
                if self.send_ready.val() {
                    self.ev_xon.next = true;
                    self.timer.d.next = 0.into();
                    self.state.d.next = XoffState::Idle;
                }
            }
            _ => {
                self.state.d.next = XoffState::Idle;
            }
        }
        if !self.enable.val() {
            self.send_valid.next = false;
            self.send_xon.next = false;
            self.ev_xoff.next = false;
            self.ev_xon.next = false;
            self.asserted.next = false;
            self.timer.d.next = 0.into();
            self.state.d.next = XoffState::Idle;
        }
    }
}

/// What the generator asks in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct XoffOut {
    /// `send_valid`, `send_xon`
    pub request: Option<bool>,
    /// an XOFF / XON was taken this cycle
    pub ev_xoff: bool,
    pub ev_xon: bool,
    pub asserted: bool,
}

/// Inputs of one cycle of [`PfcXoffModel::cycle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct XoffIn {
    pub enable: bool,
    pub fill: u16,
    pub xoff_thresh: u16,
    pub xon_thresh: u16,
    pub quanta: u16,
    pub bits_per_cycle: u16,
    pub send_ready: bool,
}

/// The reference model, written from IEEE 802.1Qbb and the module doc: whether the peer has
/// been told to pause, the pause it was given (bit times left), and a pending request.
#[derive(Clone, Debug, Default)]
pub struct PfcXoffModel {
    /// XOFF taken and no XON since
    pub peer_paused: bool,
    /// bit times left of the pause the last XOFF asked for
    pub remaining: u64,
    /// a request being offered: Some(false) = XOFF, Some(true) = XON
    pub pending: Option<bool>,
}

impl PfcXoffModel {
    /// One cycle; returns the outputs of this cycle (before its edge).
    pub fn cycle(&mut self, i: XoffIn) -> XoffOut {
        if !i.enable {
            *self = PfcXoffModel::default();
            return XoffOut::default();
        }
        let out = XoffOut {
            request: self.pending,
            ev_xoff: self.pending == Some(false) && i.send_ready,
            ev_xon: self.pending == Some(true) && i.send_ready,
            asserted: self.peer_paused || self.pending.is_some(),
        };
        let half = i.quanta as u64 * QUANTUM_BIT_TIMES / 2;
        let was_remaining = self.remaining;
        self.remaining = self.remaining.saturating_sub(i.bits_per_cycle as u64);
        match self.pending {
            Some(false) if i.send_ready => {
                self.pending = None;
                self.peer_paused = true;
                self.remaining = i.quanta as u64 * QUANTUM_BIT_TIMES;
            }
            Some(true) if i.send_ready => {
                self.pending = None;
                self.peer_paused = false;
                self.remaining = 0;
            }
            Some(_) => {}
            None if !self.peer_paused => {
                if i.fill >= i.xoff_thresh {
                    self.pending = Some(false);
                }
            }
            None => {
                if i.fill < i.xon_thresh {
                    self.pending = Some(true);
                } else if was_remaining <= half {
                    self.pending = Some(false);
                }
            }
        }
        out
    }
}
