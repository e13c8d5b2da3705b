//! [`UartRx`]: an asynchronous serial receiver, 8 data bits, no parity, 1 stop bit (8N1), least
//! significant bit first (the framing of TIA-232 / the FTDI USB UART on the board).
//!
//! The line idles high. A falling edge starts a character: the block waits half a bit and
//! checks the line is still low (a glitch shorter than that is ignored), then samples the
//! eight data bits and the stop bit in the middle of each bit period. A character whose stop
//! bit is low (a framing error or a break) is not delivered: `frame_err` pulses instead.
//!
//! # Ports
//! * `rxd`: the serial line (asynchronous: two flip-flops synchronise it into `clock`).
//! * `valid` / `data`: one-cycle pulse per received character (no back-pressure: a consumer
//!   has a whole character time, 10 bit periods, to take it).
//! * `frame_err`: one-cycle pulse per character with a low stop bit.
//!
//! The bit period is `clocks_per_bit` cycles of `clock` ([`UartRx::new`]), e.g. 1085 at
//! 125 MHz for 115200 baud (0.006 % fast: a UART tolerates a few percent).
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum UrxState {
    /// Line high: wait for a falling edge (a start bit).
    Idle,
    /// Half a bit into the start bit: still low means a character, high a glitch.
    Start,
    /// Sample the eight data bits, one per bit period, LSB first.
    Data,
    /// Sample the stop bit: high delivers the character, low is a framing error.
    Stop,
}

#[derive(LogicBlock)]
pub struct UartRx {
    pub clock: Signal<In, Clock>,
    pub rxd: Signal<In, Bit>,
    pub valid: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<8>>,
    pub frame_err: Signal<Out, Bit>,
    // ---- state
    /// the synchroniser, inverted (1 = line low) so that the reset value 0 is an idle line
    sync1_n: DFF<Bit>,
    sync2_n: DFF<Bit>,
    state: DFF<UrxState>,
    cnt: DFF<Bits<16>>,
    nbit: DFF<Bits<4>>,
    shreg: DFF<Bits<8>>,
    c_full: Constant<Bits<16>>,
    c_half: Constant<Bits<16>>,
    c_msb: Constant<Bits<8>>,
}

impl UartRx {
    /// A receiver with a bit period of `clocks_per_bit` cycles (at least 4).
    pub fn new(clocks_per_bit: u16) -> Self {
        assert!(clocks_per_bit >= 4, "UartRx: clocks_per_bit >= 4");
        UartRx {
            clock: Default::default(),
            rxd: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            frame_err: Default::default(),
            sync1_n: Default::default(),
            sync2_n: Default::default(),
            state: Default::default(),
            cnt: Default::default(),
            nbit: Default::default(),
            shreg: Default::default(),
            c_full: Constant::new(((clocks_per_bit - 1) as u64).into()),
            c_half: Constant::new(((clocks_per_bit / 2 - 1) as u64).into()),
            c_msb: Constant::new(0x80u64.into()),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sync1_n, sync2_n, state, cnt, nbit, shreg);
        // defaults
        self.sync1_n.d.next = !self.rxd.val();
        self.sync2_n.d.next = self.sync1_n.q.val();
        self.valid.next = false;
        self.frame_err.next = false;
        self.data.next = self.shreg.q.val();
        self.cnt.d.next = self.cnt.q.val() + 1;
        match self.state.q.val() {
            UrxState::Idle => {
                self.cnt.d.next = 0.into();
                if self.sync2_n.q.val() {
                    self.state.d.next = UrxState::Start;
                }
            }
            UrxState::Start => {
                if self.cnt.q.val() == self.c_half.val() {
                    self.cnt.d.next = 0.into();
                    self.nbit.d.next = 0.into();
                    if self.sync2_n.q.val() {
                        self.state.d.next = UrxState::Data;
                    } else {
                        self.state.d.next = UrxState::Idle;
                    }
                }
            }
            UrxState::Data => {
                if self.cnt.q.val() == self.c_full.val() {
                    self.cnt.d.next = 0.into();
                    if self.sync2_n.q.val() {
                        self.shreg.d.next = self.shreg.q.val() >> 1;
                    } else {
                        self.shreg.d.next = (self.shreg.q.val() >> 1) | self.c_msb.val();
                    }
                    self.nbit.d.next = self.nbit.q.val() + 1;
                    if self.nbit.q.val() == 7 {
                        self.state.d.next = UrxState::Stop;
                    }
                }
            }
            UrxState::Stop => {
                if self.cnt.q.val() == self.c_full.val() {
                    if self.sync2_n.q.val() {
                        self.frame_err.next = true;
                    } else {
                        self.valid.next = true;
                    }
                    self.state.d.next = UrxState::Idle;
                }
            }
            _ => {
                self.state.d.next = UrxState::Idle;
            }
        }
    }
}
