//! [`StreamPacketFifo64`]: a store-and-forward FIFO for 64-bit ferroce frames, 512 beats deep.
//! A frame leaves only once its last beat is in, and then at one beat per cycle while the sink
//! is ready: `MacTx` must get a started frame without gaps (a gap becomes `tx_er`), and the
//! NIC's transmit stream may pause inside a frame, so a board puts this before
//! `StreamWidthDown64To8` and `MacTx`.
//!
//! Frames may be up to 512 beats (4096 bytes) long; a longer one would wait forever for room
//! (the writer waits for space, the reader for a whole frame). The RAM is read one cycle ahead:
//! the output shows the RAM's output for the read pointer, and the read address moves on in
//! the cycle a beat is taken. A frame counts as stored one cycle after its last beat is
//! written, so the RAM's output has the last beat by the time the frame is offered.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct StreamPacketFifo64 {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<64, 8>,
    pub out: StreamSource<64, 8>,
    ram: RAM<Bits<73>, 9>,
    /// write and read pointers, one bit wider than the address (full vs empty)
    wp: DFF<Bits<10>>,
    rp: DFF<Bits<10>>,
    /// complete frames stored and not yet taken whole
    frames: DFF<Bits<10>>,
    /// a frame's last beat was written at the last edge
    commit: DFF<Bit>,
    l_used: Signal<Local, Bits<10>>,
    l_rp1: Signal<Local, Bits<10>>,
    l_wfire: Signal<Local, Bit>,
    l_rfire: Signal<Local, Bit>,
    l_lastb: Signal<Local, Bits<73>>,
    l_head: Signal<Local, Bits<73>>,
}

impl Logic for StreamPacketFifo64 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, frames, commit);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.l_used.next = self.wp.q.val() - self.rp.q.val();
        // write side: {data, keep, last} at the write pointer while there is room
        self.inp.ready.next = self.l_used.val() != 512;
        self.l_wfire.next = self.inp.valid.val() & self.inp.ready.val();
        self.l_lastb.next = 0.into();
        if self.inp.last.val() {
            self.l_lastb.next = 1.into();
        }
        self.ram.write_address.next = self.wp.q.val().get_bits::<9>(0);
        self.ram.write_data.next = (bit_cast::<73, 64>(self.inp.data.val()) << 9)
            | (bit_cast::<73, 8>(self.inp.keep.val()) << 1)
            | self.l_lastb.val();
        self.ram.write_enable.next = self.l_wfire.val();
        if self.l_wfire.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        self.commit.d.next = self.l_wfire.val() & self.inp.last.val();
        // read side: offer the head beat while a whole frame is stored
        self.l_head.next = self.ram.read_data.val();
        self.out.valid.next = self.frames.q.val().any();
        self.out.data.next = self.l_head.val().get_bits::<64>(9);
        self.out.keep.next = self.l_head.val().get_bits::<8>(1);
        self.out.last.next = self.l_head.val().get_bit(0);
        self.l_rfire.next = self.out.valid.val() & self.out.ready.val();
        self.l_rp1.next = self.rp.q.val() + 1;
        self.ram.read_address.next = self.rp.q.val().get_bits::<9>(0);
        if self.l_rfire.val() {
            self.rp.d.next = self.l_rp1.val();
            self.ram.read_address.next = self.l_rp1.val().get_bits::<9>(0);
        }
        // frames: + one committed, - one whose last beat is taken
        if self.commit.q.val() & !(self.l_rfire.val() & self.out.last.val()) {
            self.frames.d.next = self.frames.q.val() + 1;
        }
        if !self.commit.q.val() & self.l_rfire.val() & self.out.last.val() {
            self.frames.d.next = self.frames.q.val() - 1;
        }
    }
}
