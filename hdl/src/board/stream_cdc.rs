//! [`StreamCdcFifo64`]: a 64-bit ferroce stream from one clock domain to another, through
//! rust-hdl's `AsynchronousFIFO` (Gray-coded pointers passed through synchronisers, a dual-clock
//! RAM), 512 beats deep. On a board it carries the MAC's frames (in the MAC's 125 MHz clock,
//! after `StreamWidthUp8To64`) into the NIC's clock and the NIC's frames back out.
//!
//! Each entry is one beat: data, keep and last (73 bits). `inp.ready` is "not full" and
//! `out.valid` is "not empty", so the stream rules hold on both sides (a beat, once shown, stays
//! until taken). It is not a packet FIFO: a frame leaves as its beats arrive, so a sink that
//! needs whole frames without gaps (`MacTx`) needs a store-and-forward stage as well. 512 beats
//! hold two frames of the longest size `MacRx` passes (1522 octets, 191 beats).
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct StreamCdcFifo64 {
    /// the input's clock
    pub inp_clock: Signal<In, Clock>,
    pub inp: StreamSink<64, 8>,
    /// the output's clock
    pub out_clock: Signal<In, Clock>,
    pub out: StreamSource<64, 8>,
    fifo: AsynchronousFIFO<Bits<73>, 9, 10, 1>,
    l_head: Signal<Local, Bits<73>>,
    l_lastb: Signal<Local, Bits<73>>,
}

impl Logic for StreamCdcFifo64 {
    #[hdl_gen]
    fn update(&mut self) {
        self.fifo.write_clock.next = self.inp_clock.val();
        self.fifo.read_clock.next = self.out_clock.val();
        // write side: {data, keep, last}
        self.l_lastb.next = 0.into();
        if self.inp.last.val() {
            self.l_lastb.next = 1.into();
        }
        self.fifo.data_in.next = (bit_cast::<73, 64>(self.inp.data.val()) << 9)
            | (bit_cast::<73, 8>(self.inp.keep.val()) << 1)
            | self.l_lastb.val();
        self.inp.ready.next = !self.fifo.full.val();
        self.fifo.write.next = self.inp.valid.val() & !self.fifo.full.val();
        // read side: the head entry is shown while the FIFO is not empty
        self.l_head.next = self.fifo.data_out.val();
        self.out.valid.next = !self.fifo.empty.val();
        self.out.data.next = self.l_head.val().get_bits::<64>(9);
        self.out.keep.next = self.l_head.val().get_bits::<8>(1);
        self.out.last.next = self.l_head.val().get_bit(0);
        self.fifo.read.next = !self.fifo.empty.val() & self.out.ready.val();
    }
}
