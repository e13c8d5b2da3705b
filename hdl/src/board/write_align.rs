//! [`WriteRealign`]: the write half of a DMA shell's byte realignment. It turns a write
//! request's data stream (docs/DMA.md section 3: the byte at the request's address in the
//! MSB of the first beat) into the 8-byte memory words the request covers, each with a byte
//! mask, at any byte alignment.
//!
//! # Why it exists
//! `DmaAxi4Bridge` (words out as AXI4 W beats) and `OnChipHostMemory` (words into block RAM)
//! both write a word-addressed memory from the DMA port; this block is the one copy of the
//! shift and the first/last-word masks they share (the read half is `ReadRealign`).
//!
//! # How
//! Word `k` of the request holds the last `off` bytes of input beat `k - 1` and the first
//! `8 - off` bytes of beat `k` (`off` = the address modulo 8), taken from `{hold, beat}` with
//! a one-beat hold register; when the request covers one word more than it has beats, the last
//! word needs no input beat (zeros fill in behind the hold register). The mask covers lanes
//! `off..8` of the first word and lanes up to the one of the request's last byte in the last
//! word. No register on the way out: a word goes when the parent `take`s it while
//! `word_valid` (its input beat is presented, or none is needed), and the input beat is taken
//! in the same cycle, so the parent keeps one word per cycle.
//!
//! # Ports
//! * `start`: a request is accepted this cycle (the parent gives it only between requests),
//!   with `start_off` (address modulo 8) and `start_len` (bytes, 1..=65535).
//! * `inp`: the request's data beats (only `valid`, `data` and `ready` are used: the contract
//!   fixes the byte count, docs/DMA.md N6); `inp.ready` is `take` while a beat is needed.
//! * `take` (in): the parent can write a word this cycle (it gives it only while
//!   `words_left` is not 0: `word_valid` is not gated by it); `word_valid`, `word` (ferroce
//!   byte order: lane 0, the byte at the word's address, in the MSB), `word_mask` (bit `j`
//!   enables lane `j`, the AXI4 `WSTRB` convention), `words_left` (words of the request still
//!   to write, including the one presented; 0 after the last).
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WriteRealign {
    pub clock: Signal<In, Clock>,
    // ---- request (taken when `start`)
    pub start: Signal<In, Bit>,
    pub start_off: Signal<In, Bits<3>>,
    pub start_len: Signal<In, Bits<16>>,
    // ---- data beats in
    pub inp: StreamSink<64, 8>,
    // ---- memory words out
    pub take: Signal<In, Bit>,
    pub word_valid: Signal<Out, Bit>,
    pub word: Signal<Out, Bits<64>>,
    pub word_mask: Signal<Out, Bits<8>>,
    pub words_left: Signal<Out, Bits<14>>,
    // ---- constants
    c_ff: Constant<Bits<8>>,
    c_seven: Constant<Bits<3>>,
    // ---- registers
    off: DFF<Bits<3>>,
    /// words of the request not yet written
    rem: DFF<Bits<14>>,
    /// input beats not yet taken
    ileft: DFF<Bits<14>>,
    /// the next word is the request's first
    first: DFF<Bit>,
    /// mask of the request's last word
    lastmask: DFF<Bits<8>>,
    /// the previous input beat
    hold: DFF<Bits<64>>,
    // ---- combinational temporaries
    l_end: Signal<Local, Bits<17>>,
    l_lm: Signal<Local, Bits<16>>,
    l_a: Signal<Local, Bits<14>>,
    l_o: Signal<Local, Bits<14>>,
    l_esh: Signal<Local, Bits<3>>,
    l_need: Signal<Local, Bit>,
    l_cur: Signal<Local, Bits<64>>,
    l_cat: Signal<Local, Bits<128>>,
    l_sh: Signal<Local, Bits<8>>,
    l_fire: Signal<Local, Bit>,
}

impl Default for WriteRealign {
    fn default() -> Self {
        WriteRealign {
            clock: Default::default(),
            start: Default::default(),
            start_off: Default::default(),
            start_len: Default::default(),
            inp: Default::default(),
            take: Default::default(),
            word_valid: Default::default(),
            word: Default::default(),
            word_mask: Default::default(),
            words_left: Default::default(),
            c_ff: Constant::new(0xFF.into()),
            c_seven: Constant::new(7.into()),
            off: Default::default(),
            rem: Default::default(),
            ileft: Default::default(),
            first: Default::default(),
            lastmask: Default::default(),
            hold: Default::default(),
            l_end: Default::default(),
            l_lm: Default::default(),
            l_a: Default::default(),
            l_o: Default::default(),
            l_esh: Default::default(),
            l_need: Default::default(),
            l_cur: Default::default(),
            l_cat: Default::default(),
            l_sh: Default::default(),
            l_fire: Default::default(),
        }
    }
}

impl Logic for WriteRealign {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, off, rem, ileft, first, lastmask, hold);
        // ================= request geometry (used on `start`)
        // words = (off + len - 1) / 8 + 1, input beats = (len - 1) / 8 + 1 (len >= 1, widths
        // chosen not to wrap); the lane of the last byte, as a shift for the last mask
        self.l_end.next =
            bit_cast::<17, 3>(self.start_off.val()) + bit_cast::<17, 16>(self.start_len.val()) - 1;
        self.l_lm.next = self.start_len.val() - 1;
        self.l_a.next = bit_cast::<14, 17>(self.l_end.val() >> 3) + 1;
        self.l_o.next = bit_cast::<14, 16>(self.l_lm.val() >> 3) + 1;
        self.l_esh.next = self.c_seven.val() - self.l_end.val().get_bits::<3>(0);

        // ================= data path
        // the word is bits [63 + 8 off : 8 off] of {previous beat, this beat}; after the last
        // input beat, zeros fill in
        self.l_need.next = self.ileft.q.val().any();
        self.l_cur.next = 0.into();
        if self.l_need.val() {
            self.l_cur.next = self.inp.data.val();
        }
        self.l_cat.next =
            (bit_cast::<128, 64>(self.hold.q.val()) << 64) | bit_cast::<128, 64>(self.l_cur.val());
        self.l_sh.next = bit_cast::<8, 3>(self.off.q.val()) << 3;
        self.word.next = self.l_cur.val();
        if self.off.q.val().any() {
            self.word.next = self.l_cat.val().get_bits::<64>(self.l_sh.val().index());
        }
        // lanes off..8 on the first word, lanes up to the last byte's on the last
        self.word_mask.next = self.c_ff.val();
        if self.first.q.val() {
            self.word_mask.next = self.c_ff.val() << self.off.q.val();
        }
        if self.rem.q.val() == 1 {
            self.word_mask.next = self.word_mask.val() & self.lastmask.q.val();
        }

        // ================= handshakes
        self.words_left.next = self.rem.q.val();
        self.word_valid.next = !self.l_need.val() | self.inp.valid.val();
        self.inp.ready.next = self.take.val() & self.l_need.val();
        self.l_fire.next = self.take.val() & self.word_valid.val();
        if self.l_fire.val() {
            self.rem.d.next = self.rem.q.val() - 1;
            self.first.d.next = false;
            if self.l_need.val() {
                self.ileft.d.next = self.ileft.q.val() - 1;
                self.hold.d.next = self.inp.data.val();
            }
        }
        if self.start.val() {
            self.off.d.next = self.start_off.val();
            self.rem.d.next = self.l_a.val();
            self.ileft.d.next = self.l_o.val();
            self.first.d.next = true;
            self.lastmask.d.next = self.c_ff.val() >> self.l_esh.val();
        }
    }
}
