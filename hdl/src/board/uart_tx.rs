//! [`UartTx`]: an asynchronous serial transmitter, 8N1, least significant bit first (the
//! framing of [`super::UartRx`]).
//!
//! # Ports
//! * `valid` / `ready` / `data`: one character per `valid & ready` (`ready` is high while the
//!   transmitter is idle, so characters go out back to back with no idle time between them).
//! * `txd`: the serial line (registered; high while idle).
//!
//! The bit period is `clocks_per_bit` cycles of `clock` ([`UartTx::new`]).
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum UtxState {
    /// Line high: take a character.
    Idle,
    /// Shift out start bit, eight data bits and stop bit, one per bit period.
    Shift,
}

#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub data: Signal<In, Bits<8>>,
    pub txd: Signal<Out, Bit>,
    // ---- state
    state: DFF<UtxState>,
    /// the bits still to send, inverted (1 = line low), the next one in bit 0
    shreg_n: DFF<Bits<10>>,
    cnt: DFF<Bits<16>>,
    nbit: DFF<Bits<4>>,
    /// the line, inverted (so that the reset value 0 is an idle line)
    txd_n: DFF<Bit>,
    /// the character, inverted (a `Local` of 8 bits: `~` inside a wider Verilog expression
    /// would invert the zero extension too)
    data_n: Signal<Local, Bits<8>>,
    c_full: Constant<Bits<16>>,
    /// the start bit, inverted
    c_start: Constant<Bits<10>>,
}

impl UartTx {
    /// A transmitter with a bit period of `clocks_per_bit` cycles (at least 2).
    pub fn new(clocks_per_bit: u16) -> Self {
        assert!(clocks_per_bit >= 2, "UartTx: clocks_per_bit >= 2");
        UartTx {
            clock: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            data: Default::default(),
            txd: Default::default(),
            state: Default::default(),
            shreg_n: Default::default(),
            cnt: Default::default(),
            nbit: Default::default(),
            txd_n: Default::default(),
            data_n: Default::default(),
            c_full: Constant::new(((clocks_per_bit - 1) as u64).into()),
            c_start: Constant::new(1u64.into()),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, shreg_n, cnt, nbit, txd_n);
        // defaults
        self.txd.next = !self.txd_n.q.val();
        self.ready.next = false;
        self.data_n.next = !self.data.val();
        self.cnt.d.next = self.cnt.q.val() + 1;
        match self.state.q.val() {
            UtxState::Idle => {
                self.ready.next = true;
                self.txd_n.d.next = false;
                self.cnt.d.next = 0.into();
                if self.valid.val() {
                    // start bit (low), data LSB first, stop bit (high): inverted
                    self.shreg_n.d.next =
                        (bit_cast::<10, 8>(self.data_n.val()) << 1) | self.c_start.val();
                    self.nbit.d.next = 0.into();
                    self.state.d.next = UtxState::Shift;
                }
            }
            UtxState::Shift => {
                self.txd_n.d.next = self.shreg_n.q.val().get_bit(0);
                if self.cnt.q.val() == self.c_full.val() {
                    self.cnt.d.next = 0.into();
                    self.shreg_n.d.next = self.shreg_n.q.val() >> 1;
                    self.nbit.d.next = self.nbit.q.val() + 1;
                    if self.nbit.q.val() == 9 {
                        self.state.d.next = UtxState::Idle;
                    }
                }
            }
            _ => {
                self.state.d.next = UtxState::Idle;
            }
        }
    }
}
