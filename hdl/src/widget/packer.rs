//! [`StreamPacker`]: joins byte segments into one packet stream (64-bit datapath).
//!
//! Why: a packet's payload is gathered by one DMA read per piece of a scatter/gather entry, and
//! each read's response starts at a beat boundary (docs/DMA.md). A packet that spans two SGEs
//! (5 bytes from one, 1019 from the next) must leave the NIC as one contiguous byte stream, so
//! the segments are packed: bytes of the next segment fill the tail of the previous one's last
//! beat.
//!
//! Ports: `inp` is a stream whose `last` marks the end of a *segment* (one DMA response; `keep`
//! contiguous from the top on that beat, full on the others, never an empty segment); the
//! sideband `inp_eop` (valid with every beat) says that this segment ends the *packet*. `out`
//! is the packed stream with `last` on the packet's final beat.
//!
//! State: `hold` keeps up to 7 bytes that did not fill a beat (MSB-aligned, zero below), `fill`
//! counts them. A beat in with `n` bytes makes `fill + n` bytes: 8 or more leave as one full
//! beat (the rest stays in `hold`); fewer stay, unless the packet ends, when they leave as its
//! last beat. A packet end with more than 8 bytes pending takes one extra `flush` cycle.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamPacker {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<64, 8>,
    pub inp_eop: Signal<In, Bit>,
    pub out: StreamSource<64, 8>,
    hold: DFF<Bits<64>>,
    fill: DFF<Bits<4>>,
    flush: DFF<Bit>,
    // locals
    n: Signal<Local, Bits<4>>,
    total: Signal<Local, Bits<4>>,
    dmask: Signal<Local, Bits<64>>,
    comb: Signal<Local, Bits<128>>,
    sh: Signal<Local, Bits<8>>,
    pkt_end: Signal<Local, Bit>,
    /// `c_keep[k]`: keep of a beat with k bytes (k = 0..=8)
    c_keep: [Constant<Bits<8>>; 9],
    /// `c_mask[k]`: the top k bytes of a beat
    c_mask: [Constant<Bits<64>>; 9],
    c_cnt: [Constant<Bits<4>>; 9],
}

impl Default for StreamPacker {
    fn default() -> Self {
        StreamPacker {
            clock: Default::default(),
            inp: Default::default(),
            inp_eop: Default::default(),
            out: Default::default(),
            hold: Default::default(),
            fill: Default::default(),
            flush: Default::default(),
            n: Default::default(),
            total: Default::default(),
            dmask: Default::default(),
            comb: Default::default(),
            sh: Default::default(),
            pkt_end: Default::default(),
            c_keep: core::array::from_fn(|k| Constant::new(((0xFF00u64 >> k) & 0xFF).into())),
            c_mask: core::array::from_fn(|k| {
                let m = if k == 0 { 0 } else { u64::MAX << (64 - 8 * k) };
                Constant::new(m.into())
            }),
            c_cnt: core::array::from_fn(|k| Constant::new((k as u64).into())),
        }
    }
}

impl Logic for StreamPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hold, fill, flush);
        // bytes in this beat (keep is contiguous from the top), and their mask
        self.n.next = 0.into();
        self.dmask.next = 0.into();
        for k in 1..9 {
            if self.inp.keep.val() == self.c_keep[k].val() {
                self.n.next = self.c_cnt[k].val();
                self.dmask.next = self.c_mask[k].val();
            }
        }
        self.total.next = self.fill.q.val() + self.n.val();
        self.sh.next = bit_cast::<8, 4>(self.fill.q.val()) << 3;
        // hold's bytes, then this beat's bytes right behind them, in a 16-byte window
        self.comb.next = (bit_cast::<128, 64>(self.hold.q.val()) << 64)
            | ((bit_cast::<128, 64>(self.inp.data.val() & self.dmask.val()) << 64)
                >> self.sh.val());
        self.pkt_end.next = self.inp.last.val() & self.inp_eop.val();

        // defaults
        self.inp.ready.next = false;
        self.out.valid.next = false;
        self.out.data.next = self.comb.val().get_bits::<64>(64);
        self.out.keep.next = 0xFF.into();
        self.out.last.next = false;

        if self.flush.q.val() {
            // the packet's last bytes, left over from a beat that overflowed
            self.out.valid.next = true;
            self.out.data.next = self.hold.q.val();
            self.out.last.next = true;
            for k in 1..9 {
                if self.fill.q.val() == self.c_cnt[k].val() {
                    self.out.keep.next = self.c_keep[k].val();
                }
            }
            if self.out.ready.val() {
                self.flush.d.next = false;
                self.fill.d.next = 0.into();
                self.hold.d.next = 0.into();
            }
        } else if self.inp.valid.val() {
            if self.total.val().get_bit(3) {
                // a full beat leaves; the overflow stays
                self.out.valid.next = true;
                self.out.last.next = self.pkt_end.val() & (self.total.val() == self.c_cnt[8].val());
                self.inp.ready.next = self.out.ready.val();
                if self.out.ready.val() {
                    self.hold.d.next = self.comb.val().get_bits::<64>(0);
                    self.fill.d.next = bit_cast::<4, 3>(self.total.val().get_bits::<3>(0));
                    if self.pkt_end.val() & (self.total.val() != self.c_cnt[8].val()) {
                        self.flush.d.next = true;
                    }
                }
            } else if self.pkt_end.val() {
                // the packet ends inside this beat
                self.out.valid.next = true;
                self.out.last.next = true;
                for k in 1..9 {
                    if self.total.val() == self.c_cnt[k].val() {
                        self.out.keep.next = self.c_keep[k].val();
                    }
                }
                self.inp.ready.next = self.out.ready.val();
                if self.out.ready.val() {
                    self.hold.d.next = 0.into();
                    self.fill.d.next = 0.into();
                }
            } else {
                // not a beat yet: keep the bytes
                self.inp.ready.next = true;
                self.hold.d.next = self.comb.val().get_bits::<64>(64);
                self.fill.d.next = self.total.val();
            }
        }
    }
}
