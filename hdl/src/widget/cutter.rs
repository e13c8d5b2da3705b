//! [`StreamCutter`]: splits one packet stream into byte pieces, each re-aligned to a beat
//! boundary (64-bit datapath). The inverse of [`super::StreamPacker`].
//!
//! Why: the RC responder places a received SEND's payload into the receiver's scatter/gather
//! entries. One packet's payload may need several DMA writes (the last 5 bytes of one SGE, the
//! first 1019 of the next), and every DMA write's data stream starts with its first byte in the
//! MSB of its first beat (docs/DMA.md). So the payload is cut into pieces, and each piece is
//! shifted up so that it starts at a beat boundary.
//!
//! Ports: `inp` is a packet's payload (`last` on its final beat, `keep` full on the others).
//! `cut_*` gives the length of the next piece; the user's contract is that a packet's pieces
//! add up to exactly its payload length (a piece never spans two packets). `out` carries each
//! piece as its own stream (`last` on the piece's final beat). A cut of length 0 is taken and
//! dropped (no output). If the packet ends before the piece is complete, the piece ends
//! early with the bytes there are, `piece_short` pulses as that last beat transfers, and the
//! rest of the cut is forgotten: the block never hangs and never mixes two packets. (Not named
//! `short`: that is a C++ keyword, which Verilator rejects.)
//!
//! Timing: `cut_ready` is `!busy` (a register). A cut is taken in the same cycle as its first
//! beat can leave (`out` looks at `cut_len` combinationally while idle), so pieces follow each
//! other without a bubble, and in steady state one beat leaves per clock. `out.valid` depends
//! on `inp.valid`, `cut_valid` and state, never on `out.ready`; `inp.ready` follows
//! `out.ready`.
//!
//! State: `hold` keeps up to 7 bytes of an input beat that were left after a piece ended
//! mid-beat (MSB-aligned, zero below), `fill` counts them, and `hold_end` says they are the
//! packet's final bytes (the beat they came from had `last`): then no input beat is taken
//! until they are gone, so the next packet's bytes never join them. `rem` counts the bytes the
//! current piece still needs.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamCutter {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<64, 8>,
    pub cut_valid: Signal<In, Bit>,
    pub cut_ready: Signal<Out, Bit>,
    pub cut_len: Signal<In, Bits<16>>,
    pub out: StreamSource<64, 8>,
    /// High in the cycle where the last beat of a piece that the packet's end cut short
    /// transfers (`out.valid & out.ready & out.last`).
    pub piece_short: Signal<Out, Bit>,
    busy: DFF<Bit>,
    rem: DFF<Bits<16>>,
    hold: DFF<Bits<64>>,
    fill: DFF<Bits<4>>,
    hold_end: DFF<Bit>,
    // locals
    /// a piece is being worked on this cycle (in progress, or its cut is being taken)
    act: Signal<Local, Bit>,
    /// bytes the piece still needs (the register, or the cut being taken)
    rcur: Signal<Local, Bits<16>>,
    /// bytes this beat of the piece wants: min(8, rcur)
    want: Signal<Local, Bits<4>>,
    /// this cycle also takes bytes from `inp` (hold alone is not enough, and not a packet end)
    take: Signal<Local, Bit>,
    n: Signal<Local, Bits<4>>,
    dmask: Signal<Local, Bits<64>>,
    total: Signal<Local, Bits<4>>,
    emit: Signal<Local, Bits<4>>,
    /// the bytes counted in `total` end the packet
    pend: Signal<Local, Bit>,
    left: Signal<Local, Bits<4>>,
    fin: Signal<Local, Bit>,
    absorb: Signal<Local, Bit>,
    sh: Signal<Local, Bits<8>>,
    esh: Signal<Local, Bits<8>>,
    comb: Signal<Local, Bits<128>>,
    rest: Signal<Local, Bits<128>>,
    emask: Signal<Local, Bits<64>>,
    ekeep: Signal<Local, Bits<8>>,
    /// `c_keep[k]`: keep of a beat with k bytes (k = 0..=8)
    c_keep: [Constant<Bits<8>>; 9],
    /// `c_mask[k]`: the top k bytes of a beat
    c_mask: [Constant<Bits<64>>; 9],
    c_cnt: [Constant<Bits<4>>; 9],
}

impl Default for StreamCutter {
    fn default() -> Self {
        StreamCutter {
            clock: Default::default(),
            inp: Default::default(),
            cut_valid: Default::default(),
            cut_ready: Default::default(),
            cut_len: Default::default(),
            out: Default::default(),
            piece_short: Default::default(),
            busy: Default::default(),
            rem: Default::default(),
            hold: Default::default(),
            fill: Default::default(),
            hold_end: Default::default(),
            act: Default::default(),
            rcur: Default::default(),
            want: Default::default(),
            take: Default::default(),
            n: Default::default(),
            dmask: Default::default(),
            total: Default::default(),
            emit: Default::default(),
            pend: Default::default(),
            left: Default::default(),
            fin: Default::default(),
            absorb: Default::default(),
            sh: Default::default(),
            esh: Default::default(),
            comb: Default::default(),
            rest: Default::default(),
            emask: Default::default(),
            ekeep: Default::default(),
            c_keep: core::array::from_fn(|k| Constant::new(((0xFF00u64 >> k) & 0xFF).into())),
            c_mask: core::array::from_fn(|k| {
                let m = if k == 0 { 0 } else { u64::MAX << (64 - 8 * k) };
                Constant::new(m.into())
            }),
            c_cnt: core::array::from_fn(|k| Constant::new((k as u64).into())),
        }
    }
}

impl Logic for StreamCutter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, rem, hold, fill, hold_end);
        // the piece: the one in progress, or the cut offered now (taken at this edge whatever
        // `out` does, so a beat shown now is shown again, unchanged, next cycle)
        self.cut_ready.next = !self.busy.q.val();
        self.rcur.next = self.rem.q.val();
        self.act.next = self.busy.q.val();
        if !self.busy.q.val() {
            self.rcur.next = self.cut_len.val();
            // a zero-length cut is taken and dropped
            self.act.next = self.cut_valid.val() & (self.cut_len.val() != 0);
        }
        self.want.next = bit_cast::<4, 3>(self.rcur.val().get_bits::<3>(0));
        if self.rcur.val().get_bits::<13>(3) != 0 {
            self.want.next = self.c_cnt[8].val();
        }
        // hold alone serves the beat if it has all the bytes the beat wants, or if its bytes
        // end the packet (the next input beat belongs to the next packet)
        self.take.next = !self.hold_end.q.val() & (self.fill.q.val() < self.want.val());
        // bytes of the input beat (keep is contiguous from the top), and their mask
        self.n.next = 0.into();
        self.dmask.next = 0.into();
        if self.take.val() & self.inp.valid.val() {
            for k in 1..9 {
                if self.inp.keep.val() == self.c_keep[k].val() {
                    self.n.next = self.c_cnt[k].val();
                    self.dmask.next = self.c_mask[k].val();
                }
            }
        }
        self.total.next = self.fill.q.val() + self.n.val();
        self.pend.next = self.hold_end.q.val();
        if self.take.val() {
            self.pend.next = self.inp.last.val();
        }
        self.emit.next = self.want.val();
        if self.total.val() < self.want.val() {
            self.emit.next = self.total.val();
        }
        self.left.next = self.total.val() - self.emit.val();
        // this beat ends the piece: the piece has all its bytes, or the packet ends right here
        // (then `piece_short` if the piece wanted more)
        self.fin.next = (bit_cast::<16, 4>(self.emit.val()) == self.rcur.val())
            | (self.pend.val() & (self.left.val() == 0));
        // not enough bytes and no packet end: only a non-full beat without `last` (outside the
        // contract) gets here; its bytes join hold
        self.absorb.next = self.take.val()
            & self.inp.valid.val()
            & (self.total.val() < self.want.val())
            & !self.inp.last.val();
        // hold's bytes, then the input beat's right behind them, in a 16-byte window
        self.sh.next = bit_cast::<8, 4>(self.fill.q.val()) << 3;
        self.esh.next = bit_cast::<8, 4>(self.emit.val()) << 3;
        self.comb.next = (bit_cast::<128, 64>(self.hold.q.val()) << 64)
            | ((bit_cast::<128, 64>(self.inp.data.val() & self.dmask.val()) << 64)
                >> self.sh.val());
        // what stays after this beat's bytes leave, moved up to the top
        self.rest.next = self.comb.val() << self.esh.val();
        self.emask.next = 0.into();
        self.ekeep.next = 0.into();
        for k in 1..9 {
            if self.emit.val() == self.c_cnt[k].val() {
                self.emask.next = self.c_mask[k].val();
                self.ekeep.next = self.c_keep[k].val();
            }
        }

        // defaults
        self.inp.ready.next = false;
        self.out.valid.next = false;
        self.out.data.next = self.comb.val().get_bits::<64>(64) & self.emask.val();
        self.out.keep.next = self.ekeep.val();
        self.out.last.next = false;
        self.piece_short.next = false;
        self.busy.d.next = self.act.val();
        self.rem.d.next = self.rcur.val();

        if self.act.val() {
            if self.absorb.val() {
                self.inp.ready.next = true;
                self.hold.d.next = self.comb.val().get_bits::<64>(64);
                self.fill.d.next = self.total.val();
            } else if !self.take.val() | self.inp.valid.val() {
                // one beat of the piece
                self.out.valid.next = true;
                self.inp.ready.next = self.take.val() & self.out.ready.val();
                self.out.last.next = self.fin.val();
                self.piece_short.next = self.fin.val()
                    & (bit_cast::<16, 4>(self.emit.val()) != self.rcur.val())
                    & self.out.ready.val();
                if self.out.ready.val() {
                    self.rem.d.next = self.rcur.val() - bit_cast::<16, 4>(self.emit.val());
                    self.hold.d.next = self.rest.val().get_bits::<64>(64);
                    self.fill.d.next = self.left.val();
                    self.hold_end.d.next = self.pend.val() & (self.left.val() != 0);
                    if self.fin.val() {
                        self.busy.d.next = false;
                    }
                }
            }
        }
    }
}
