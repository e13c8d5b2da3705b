//! [`StreamWidthDown64To8`]: unpacks the NIC's 64-bit ferroce stream (`NicTop::tx_mac`) into
//! the MAC's 8-bit frames (`MacTx`'s input), first byte first (the MSB of each beat; only the
//! `keep` bytes of a frame's last beat).
//!
//! A beat is held in a register and shifted out one byte per cycle from its top byte. The next
//! beat is taken in the cycle the held beat's last byte leaves, so a frame whose 64-bit beats
//! arrive without gaps leaves without gaps, one byte per cycle: `MacTx` needs a started frame
//! without gaps (a gap becomes `tx_er`). The NIC's stream may pause inside a frame, so a board
//! puts a store-and-forward FIFO (`StreamPacketFifo64`) in front of this block and the MAC.
//!
//! `inp.ready` depends combinationally on `out.ready` (allowed: ready may depend on ready and
//! valid); `out.valid` and `out.data` come from registers.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamWidthDown64To8 {
    pub clock: Signal<In, Clock>,
    /// 64-bit frames, ferroce byte order.
    pub inp: StreamSink<64, 8>,
    /// 8-bit frames (keep always 1).
    pub out: StreamSource<8, 1>,
    /// `c_cnt[i]` = 7 - i: the byte count of a beat whose highest clear keep bit is bit i
    c_cnt: [Constant<Bits<4>>; 8],
    /// a beat is held
    h_valid: DFF<Bit>,
    /// the held beat, shifted so the next byte out is the top byte
    h_data: DFF<Bits<64>>,
    /// bytes of the held beat still to send (1..=8 while `h_valid`)
    h_left: DFF<Bits<4>>,
    /// the held beat is a frame's last
    h_last: DFF<Bit>,
    l_cnt: Signal<Local, Bits<4>>,
    l_ofire: Signal<Local, Bit>,
    l_take: Signal<Local, Bit>,
}

impl Default for StreamWidthDown64To8 {
    fn default() -> Self {
        StreamWidthDown64To8 {
            clock: Default::default(),
            inp: Default::default(),
            out: Default::default(),
            c_cnt: core::array::from_fn(|i| Constant::new(((7 - i) as u64).into())),
            h_valid: Default::default(),
            h_data: Default::default(),
            h_left: Default::default(),
            h_last: Default::default(),
            l_cnt: Default::default(),
            l_ofire: Default::default(),
            l_take: Default::default(),
        }
    }
}

impl Logic for StreamWidthDown64To8 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, h_valid, h_data, h_left, h_last);
        // bytes in the incoming beat: keep is contiguous from the top (bit 7 = byte 0), so the
        // count is 7 - (the highest clear bit), or 8 when none is clear; the loop runs upward
        // so the highest clear bit's assignment is the one that stays
        self.l_cnt.next = 8.into();
        for i in 0..8 {
            if !self.inp.keep.val().get_bit(i) {
                self.l_cnt.next = self.c_cnt[i].val();
            }
        }
        self.out.valid.next = self.h_valid.q.val();
        self.out.data.next = self.h_data.q.val().get_bits::<8>(56);
        self.out.keep.next = true.into();
        self.out.last.next = self.h_last.q.val() & (self.h_left.q.val() == 1);
        self.l_ofire.next = self.h_valid.q.val() & self.out.ready.val();
        // take a beat when nothing is held or the held beat's last byte leaves now
        self.l_take.next =
            !self.h_valid.q.val() | (self.l_ofire.val() & (self.h_left.q.val() == 1));
        self.inp.ready.next = self.l_take.val();
        if self.l_ofire.val() {
            self.h_data.d.next = self.h_data.q.val() << 8;
            self.h_left.d.next = self.h_left.q.val() - 1;
            if self.h_left.q.val() == 1 {
                self.h_valid.d.next = false;
            }
        }
        if self.inp.valid.val() & self.l_take.val() {
            self.h_valid.d.next = true;
            self.h_data.d.next = self.inp.data.val();
            self.h_left.d.next = self.l_cnt.val();
            self.h_last.d.next = self.inp.last.val();
        }
    }
}
