//! [`StreamWidthUp8To64`]: packs the MAC's 8-bit frames (`MacRx`'s output) into the NIC's
//! 64-bit ferroce stream (`NicTop::rx_mac`).
//!
//! The first byte of a frame goes to the MSB of the first beat, the next one below it, and so
//! on (hdl/src/stream.rs); a beat leaves when it holds 8 bytes or when the frame's last byte
//! arrives, then with `keep` contiguous from the top. Bytes are collected in an accumulator and
//! every beat goes out through an output register, so no output depends combinationally on
//! the output's `ready`.
//!
//! `inp.ready` is high while the output register is empty or being taken. A beat leaves at
//! most every eighth input byte of a frame (every byte for one-byte frames), so with a sink
//! that takes a beat within seven cycles the input is never stalled: one byte per cycle, the
//! MAC's rate.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamWidthUp8To64 {
    pub clock: Signal<In, Clock>,
    /// 8-bit frames (keep is one bit, always 1).
    pub inp: StreamSink<8, 1>,
    /// 64-bit frames, ferroce byte order.
    pub out: StreamSource<64, 8>,
    c_ff: Constant<Bits<8>>,
    c_seven: Constant<Bits<3>>,
    /// the bytes of the beat being collected, already in place
    acc_data: DFF<Bits<64>>,
    /// how many bytes `acc_data` holds (0..=7)
    acc_n: DFF<Bits<3>>,
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_keep: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    l_sh: Signal<Local, Bits<8>>,
    l_word: Signal<Local, Bits<64>>,
    l_ksh: Signal<Local, Bits<3>>,
    l_ofree: Signal<Local, Bit>,
}

impl Default for StreamWidthUp8To64 {
    fn default() -> Self {
        StreamWidthUp8To64 {
            clock: Default::default(),
            inp: Default::default(),
            out: Default::default(),
            c_ff: Constant::new(0xFF.into()),
            c_seven: Constant::new(7.into()),
            acc_data: Default::default(),
            acc_n: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            l_sh: Default::default(),
            l_word: Default::default(),
            l_ksh: Default::default(),
            l_ofree: Default::default(),
        }
    }
}

impl Logic for StreamWidthUp8To64 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc_data, acc_n, o_valid, o_data, o_keep, o_last);
        // a beat closed after byte n keeps n + 1 bytes from the top
        self.l_ksh.next = self.c_seven.val() - self.acc_n.q.val();
        // byte n of a beat sits at bits [63 - 8n : 56 - 8n]
        self.l_sh.next = 56 - (bit_cast::<8, 3>(self.acc_n.q.val()) << 3);
        self.l_word.next =
            self.acc_data.q.val() | (bit_cast::<64, 8>(self.inp.data.val()) << self.l_sh.val());
        self.l_ofree.next = !self.o_valid.q.val() | self.out.ready.val();

        self.inp.ready.next = self.l_ofree.val();
        self.out.valid.next = self.o_valid.q.val();
        self.out.data.next = self.o_data.q.val();
        self.out.keep.next = self.o_keep.q.val();
        self.out.last.next = self.o_last.q.val();
        if self.out.ready.val() {
            self.o_valid.d.next = false;
        }
        if self.inp.valid.val() & self.l_ofree.val() {
            if self.inp.last.val() | (self.acc_n.q.val() == 7) {
                // the beat is complete: out it goes, the accumulator starts empty
                self.o_valid.d.next = true;
                self.o_data.d.next = self.l_word.val();
                self.o_keep.d.next = self.c_ff.val() << self.l_ksh.val();
                self.o_last.d.next = self.inp.last.val();
                self.acc_data.d.next = 0.into();
                self.acc_n.d.next = 0.into();
            } else {
                self.acc_data.d.next = self.l_word.val();
                self.acc_n.d.next = self.acc_n.q.val() + 1;
            }
        }
    }
}
