//! [`ReadRealign`]: the read half of a DMA shell's byte realignment. It turns the 8-byte
//! memory words a read request covers into the response stream of the DMA port
//! (docs/DMA.md section 3): the byte at the request's address in the MSB of the first beat,
//! `keep` contiguous from the top, exactly `len` bytes, `last` on the final beat.
//!
//! # Why it exists
//! Every shell that serves the DMA port from a word-addressed memory has to do this shift at
//! any byte alignment, with one extra beat at the end when the request's bytes fit in as many
//! words as beats. `DmaAxi4Bridge` (words from AXI4 R beats) and `OnChipHostMemory` (words
//! from block RAM) both do; this block is the one copy they share, so both answer with the
//! same stream rules and the same timing.
//!
//! # How
//! A one-word hold register keeps the previous word; each response beat is the 8 bytes that
//! start `off` bytes into `{hold, word}` (`off` = the address modulo 8). With `off != 0` the
//! first word only fills the hold register, and when the request needs as many words as beats
//! a last *flush* beat is made of the hold register alone (state `Flush`). Every beat goes out
//! through an output register, so nothing on `out` depends combinationally on `out.ready`.
//! One request at a time; a word is taken per cycle while the output register is free.
//!
//! # Ports
//! * `start`: accept a request this cycle (the parent gives it only while `idle`), with
//!   `start_off` (address modulo 8), `start_len` (bytes, 1..=65535), `start_tag`, and
//!   `start_err` (the request is known to fail: it then takes as many words as it has beats,
//!   aligned, which the parent makes up itself, and every beat carries `out_err`).
//!   `start_words` is the number of words the request presented on `start_*` needs
//!   (combinational, for the parent's fetch side; not used with `start_err`).
//! * `word` (ferroce byte order: the byte at the lowest address in the MSB), `word_valid`,
//!   `word_ready`, `word_err` (this word could not be read: `out_err` from its beat on).
//! * `out` (the response stream), `out_tag`, `out_err` (valid with every beat).
//! * `idle`: no request in progress; `err`: the current request's error flag so far.
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RealignState {
    /// No request: wait for `start`.
    Idle,
    /// Take words, realign, fill the output register.
    Data,
    /// Every word is in but one output beat is left in the hold register: send it.
    Flush,
}

#[derive(LogicBlock)]
pub struct ReadRealign {
    pub clock: Signal<In, Clock>,
    // ---- request (taken when `start`)
    pub start: Signal<In, Bit>,
    pub start_off: Signal<In, Bits<3>>,
    pub start_len: Signal<In, Bits<16>>,
    pub start_tag: Signal<In, Bits<8>>,
    pub start_err: Signal<In, Bit>,
    pub start_words: Signal<Out, Bits<14>>,
    pub idle: Signal<Out, Bit>,
    pub err: Signal<Out, Bit>,
    // ---- memory words in
    pub word_valid: Signal<In, Bit>,
    pub word: Signal<In, Bits<64>>,
    pub word_err: Signal<In, Bit>,
    pub word_ready: Signal<Out, Bit>,
    // ---- response out
    pub out: StreamSource<64, 8>,
    pub out_tag: Signal<Out, Bits<8>>,
    pub out_err: Signal<Out, Bit>,
    // ---- constants
    c_ff: Constant<Bits<8>>,
    c_seven: Constant<Bits<3>>,
    // ---- registers
    state: DFF<RealignState>,
    off: DFF<Bits<3>>,
    /// words still to take
    left: DFF<Bits<14>>,
    /// response beats still to produce
    oleft: DFF<Bits<14>>,
    /// the last response beat comes from the hold register alone (after the last word)
    flush: DFF<Bit>,
    /// the next word is the request's first
    first: DFF<Bit>,
    lastkeep: DFF<Bits<8>>,
    tag: DFF<Bits<8>>,
    /// the request failed (from `start_err` or any `word_err`)
    rerr: DFF<Bit>,
    /// the previous word, ferroce order
    hold: DFF<Bits<64>>,
    // ---- output register
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_keep: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    o_tag: DFF<Bits<8>>,
    o_err: DFF<Bit>,
    // ---- combinational temporaries
    l_end: Signal<Local, Bits<17>>,
    l_lm: Signal<Local, Bits<16>>,
    l_a: Signal<Local, Bits<14>>,
    l_o: Signal<Local, Bits<14>>,
    l_ksh: Signal<Local, Bits<3>>,
    l_cat: Signal<Local, Bits<128>>,
    l_flcat: Signal<Local, Bits<128>>,
    l_sh: Signal<Local, Bits<8>>,
    l_comb: Signal<Local, Bits<64>>,
    l_fl: Signal<Local, Bits<64>>,
    l_ofree: Signal<Local, Bit>,
    l_fire: Signal<Local, Bit>,
    l_emit: Signal<Local, Bit>,
}

impl Default for ReadRealign {
    fn default() -> Self {
        ReadRealign {
            clock: Default::default(),
            start: Default::default(),
            start_off: Default::default(),
            start_len: Default::default(),
            start_tag: Default::default(),
            start_err: Default::default(),
            start_words: Default::default(),
            idle: Default::default(),
            err: Default::default(),
            word_valid: Default::default(),
            word: Default::default(),
            word_err: Default::default(),
            word_ready: Default::default(),
            out: Default::default(),
            out_tag: Default::default(),
            out_err: Default::default(),
            c_ff: Constant::new(0xFF.into()),
            c_seven: Constant::new(7.into()),
            state: Default::default(),
            off: Default::default(),
            left: Default::default(),
            oleft: Default::default(),
            flush: Default::default(),
            first: Default::default(),
            lastkeep: Default::default(),
            tag: Default::default(),
            rerr: Default::default(),
            hold: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_tag: Default::default(),
            o_err: Default::default(),
            l_end: Default::default(),
            l_lm: Default::default(),
            l_a: Default::default(),
            l_o: Default::default(),
            l_ksh: Default::default(),
            l_cat: Default::default(),
            l_flcat: Default::default(),
            l_sh: Default::default(),
            l_comb: Default::default(),
            l_fl: Default::default(),
            l_ofree: Default::default(),
            l_fire: Default::default(),
            l_emit: Default::default(),
        }
    }
}

impl Logic for ReadRealign {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, off, left, oleft, flush, first, lastkeep, tag, rerr, hold, o_valid,
            o_data, o_keep, o_last, o_tag, o_err
        );
        // ================= request geometry (used on `start`)
        // words = (off + len - 1) / 8 + 1; response beats = (len - 1) / 8 + 1; the last beat
        // holds (len - 1) % 8 + 1 bytes. Widths chosen so nothing wraps (len >= 1).
        self.l_end.next =
            bit_cast::<17, 3>(self.start_off.val()) + bit_cast::<17, 16>(self.start_len.val()) - 1;
        self.l_lm.next = self.start_len.val() - 1;
        self.l_a.next = bit_cast::<14, 17>(self.l_end.val() >> 3) + 1;
        self.l_o.next = bit_cast::<14, 16>(self.l_lm.val() >> 3) + 1;
        self.l_ksh.next = self.c_seven.val() - self.l_lm.val().get_bits::<3>(0);
        self.start_words.next = self.l_a.val();

        // ================= data path
        // {previous word, this word}: the beat is the 8 bytes starting `off` bytes into the
        // previous word, i.e. bits [127 - 8 off : 64 - 8 off]
        self.l_cat.next =
            (bit_cast::<128, 64>(self.hold.q.val()) << 64) | bit_cast::<128, 64>(self.word.val());
        self.l_flcat.next = bit_cast::<128, 64>(self.hold.q.val()) << 64;
        self.l_sh.next = 64 - (bit_cast::<8, 3>(self.off.q.val()) << 3);
        self.l_comb.next = self.word.val();
        if self.off.q.val().any() {
            self.l_comb.next = self.l_cat.val().get_bits::<64>(self.l_sh.val().index());
        }
        self.l_fl.next = self.l_flcat.val().get_bits::<64>(self.l_sh.val().index());
        // the output register is free this cycle if empty or being taken
        self.l_ofree.next = !self.o_valid.q.val() | self.out.ready.val();
        // with an unaligned start the first word only fills the hold register
        self.l_emit.next = !self.first.q.val() | !self.off.q.val().any();

        // ================= outputs
        self.idle.next = self.state.q.val() == RealignState::Idle;
        self.err.next = self.rerr.q.val();
        self.word_ready.next = (self.state.q.val() == RealignState::Data) & self.l_ofree.val();
        self.l_fire.next = self.word_ready.val() & self.word_valid.val();
        self.out.valid.next = self.o_valid.q.val();
        self.out.data.next = self.o_data.q.val();
        self.out.keep.next = self.o_keep.q.val();
        self.out.last.next = self.o_last.q.val();
        self.out_tag.next = self.o_tag.q.val();
        self.out_err.next = self.o_err.q.val();
        if self.out.ready.val() {
            self.o_valid.d.next = false;
        }

        // ================= state machine
        match self.state.q.val() {
            RealignState::Idle => {
                if self.start.val() {
                    self.oleft.d.next = self.l_o.val();
                    self.first.d.next = true;
                    self.lastkeep.d.next = self.c_ff.val() << self.l_ksh.val();
                    self.tag.d.next = self.start_tag.val();
                    self.rerr.d.next = self.start_err.val();
                    if self.start_err.val() {
                        // as many made-up words as beats, aligned: no hold, no flush
                        self.off.d.next = 0.into();
                        self.left.d.next = self.l_o.val();
                        self.flush.d.next = false;
                    } else {
                        self.off.d.next = self.start_off.val();
                        self.left.d.next = self.l_a.val();
                        // an unaligned start whose bytes fit in as many words as beats ends
                        // with a beat made of the hold register alone
                        self.flush.d.next =
                            self.start_off.val().any() & (self.l_a.val() == self.l_o.val());
                    }
                    self.state.d.next = RealignState::Data;
                }
            }
            RealignState::Data => {
                if self.l_fire.val() {
                    self.left.d.next = self.left.q.val() - 1;
                    self.hold.d.next = self.word.val();
                    self.first.d.next = false;
                    self.rerr.d.next = self.rerr.q.val() | self.word_err.val();
                    if self.l_emit.val() {
                        self.o_valid.d.next = true;
                        self.o_data.d.next = self.l_comb.val();
                        self.o_tag.d.next = self.tag.q.val();
                        self.o_err.d.next = self.rerr.q.val() | self.word_err.val();
                        self.oleft.d.next = self.oleft.q.val() - 1;
                        if self.oleft.q.val() == 1 {
                            self.o_keep.d.next = self.lastkeep.q.val();
                            self.o_last.d.next = true;
                        } else {
                            self.o_keep.d.next = self.c_ff.val();
                            self.o_last.d.next = false;
                        }
                    }
                    if self.left.q.val() == 1 {
                        if self.flush.q.val() {
                            self.state.d.next = RealignState::Flush;
                        } else {
                            self.state.d.next = RealignState::Idle;
                        }
                    }
                }
            }
            RealignState::Flush => {
                if self.l_ofree.val() {
                    self.o_valid.d.next = true;
                    self.o_data.d.next = self.l_fl.val();
                    self.o_keep.d.next = self.lastkeep.q.val();
                    self.o_last.d.next = true;
                    self.o_tag.d.next = self.tag.q.val();
                    self.o_err.d.next = self.rerr.q.val();
                    self.oleft.d.next = 0.into();
                    self.state.d.next = RealignState::Idle;
                }
            }
            _ => {
                self.state.d.next = RealignState::Idle;
            }
        }
    }
}
