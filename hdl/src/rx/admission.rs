//! [`RxAdmission`]: the receive MAC FIFO in front of the RX parser, which drops whole frames
//! when there is no room for them instead of back-pressuring the MAC.
//!
//! # Where and why
//! MAC (FCS stripped) -> `RxAdmission` -> [`super::RxParser`]. An Ethernet MAC cannot wait: a
//! frame arrives at line rate whether or not the host keeps up, so `inp.ready` is **always
//! high** and this block is where the NIC decides, per frame, to keep or lose it. Its `out`
//! side takes the parser's back-pressure (the parser's store-and-forward buffer stalls when host
//! DMA stalls). Its fill level is the occupancy the PFC XOFF generator
//! ([`crate::cc::pfc_xoff`], IEEE 802.1Qbb) watches: with PFC the XOFF threshold must leave
//! headroom below the FIFO size for the frames still in flight after the XOFF is decided (the
//! frame being sent by the peer, the cable, the peer's reaction time; the arithmetic is in
//! docs/CONGESTION.md), so that lossless traffic never meets the drop rule below.
//!
//! # Admission rule (per frame)
//! `held` = words written and not yet taken at `out` (at most `2^F`), `free = 2^F - held`, both
//! as of the start of the cycle (a word taken in the same cycle does not count yet).
//! * At a frame's **first beat** (the first beat after reset or after a beat with `last`) the
//!   frame is **admitted** if `free >= reserve` and `free >= 1`; otherwise it is **dropped**:
//!   no beat of it is written, `ev_drop` pulses once. The NIC sets `reserve` to the words of the
//!   largest frame it accepts, so an admitted frame always fits.
//! * An admitted frame longer than its reservation that meets a full FIFO is **cut**: the beat
//!   written when `free == 1` (and which is not the frame's last) is written with `last` set,
//!   `ev_cut` pulses once, and the rest of the frame is discarded (the parser then drops it by
//!   its length / ICRC checks). Nothing is ever overwritten.
//!
//! # Output
//! Cut-through: a word is offered at `out` two cycles after the cycle its beat arrived when it is
//! the oldest word held (one cycle to write the RAM, one for the registered RAM read), and then
//! one beat per cycle while `out.ready` is high. The RAM's read register plus a one-word skid
//! register are the output stage: a read is issued only when the output stage empties at this
//! edge, so the RAM's read register (which cannot hold) always has somewhere to go. `out.data`,
//! `keep` and `last` are don't-care while `out.valid` is low (they show the RAM read register).
//!
//! # Ports
//! * `clock`.
//! * `inp` ([`StreamSink`]) from the MAC; `inp.ready` is constant 1.
//! * `out` ([`StreamSource`]) to the parser.
//! * `reserve` (16 bits, words): sampled at each first beat.
//! * `fill` (16 bits): `held` (registered: a beat written or taken in cycle t shows from t+1).
//! * `ev_drop`, `ev_cut`: one-cycle pulses, registered: the cycle after the dropped frame's
//!   first beat / the cut beat.
//!
//! Parameters: `B` data bits, `K = B/8` keep bits, `F` RAM address bits (`F <= 15`, so `2^F`
//! fits `fill`). The words are `B + K + 1` bits wide, held in three RAMs (data, keep, last) that
//! share the addresses; the NIC uses [`super::RxAdmission64`] (B = 64, F = 12: 4096 words,
//! 32 KiB of data).
use crate::stream::{Beat, StreamSink, StreamSource};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Where the input is, frame-wise.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum AdmState {
    /// Between frames: the next beat is a first beat and is admitted or dropped.
    Start,
    /// Inside an admitted frame: its beats are written.
    Pass,
    /// Inside a dropped or cut frame: its beats are discarded up to its last.
    Discard,
}

#[derive(LogicBlock)]
pub struct RxAdmission<const B: usize, const K: usize, const F: usize> {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<B, K>,
    pub out: StreamSource<B, K>,
    pub reserve: Signal<In, Bits<16>>,
    pub fill: Signal<Out, Bits<16>>,
    pub ev_drop: Signal<Out, Bit>,
    pub ev_cut: Signal<Out, Bit>,
    // ---- input side
    state: DFF<AdmState>,
    /// word counters (16 bits, wrapping); the RAM address is their low F bits
    wr_ptr: DFF<Bits<16>>,
    rd_ptr: DFF<Bits<16>>,
    /// words written and not yet taken at `out`
    held: DFF<Bits<16>>,
    r_drop: DFF<Bit>,
    r_cut: DFF<Bit>,
    // ---- output stage: the RAMs' read registers and one skid word
    /// the RAMs' read registers hold a word issued at the last edge
    r_valid: DFF<Bit>,
    s_valid: DFF<Bit>,
    s_data: DFF<Bits<B>>,
    s_keep: DFF<Bits<K>>,
    s_last: DFF<Bit>,
    // ---- storage
    ram_data: RAM<Bits<B>, F>,
    ram_keep: RAM<Bits<K>, F>,
    ram_last: RAM<Bit, F>,
    c_size: Constant<Bits<16>>,
    c_one: Constant<Bits<16>>,
    // ---- combinational helpers
    free: Signal<Local, Bits<16>>,
    admit: Signal<Local, Bit>,
    one_left: Signal<Local, Bit>,
    wr: Signal<Local, Bit>,
    wr_last: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
}

impl<const B: usize, const K: usize, const F: usize> Default for RxAdmission<B, K, F> {
    fn default() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::PARAMS_OK;
        RxAdmission {
            clock: Default::default(),
            inp: Default::default(),
            out: Default::default(),
            reserve: Default::default(),
            fill: Default::default(),
            ev_drop: Default::default(),
            ev_cut: Default::default(),
            state: Default::default(),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            held: Default::default(),
            r_drop: Default::default(),
            r_cut: Default::default(),
            r_valid: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_last: Default::default(),
            ram_data: Default::default(),
            ram_keep: Default::default(),
            ram_last: Default::default(),
            c_size: Constant::new((Self::WORDS as u64).into()),
            c_one: Constant::new(1u64.into()),
            free: Default::default(),
            admit: Default::default(),
            one_left: Default::default(),
            wr: Default::default(),
            wr_last: Default::default(),
            take: Default::default(),
            issue: Default::default(),
        }
    }
}

impl<const B: usize, const K: usize, const F: usize> RxAdmission<B, K, F> {
    /// FIFO size in words (`2^F`).
    pub const WORDS: usize = 1 << F;
    /// Compile-time check of the parameters (evaluated in `Default`).
    pub const PARAMS_OK: () = assert!(
        B == 8 * K && K > 0 && F >= 1 && F <= 15,
        "RxAdmission: B = 8 K, 1 <= F <= 15"
    );
}

impl<const B: usize, const K: usize, const F: usize> Logic for RxAdmission<B, K, F> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, wr_ptr, rd_ptr, held, r_drop, r_cut, r_valid, s_valid, s_data,
            s_keep, s_last
        );
        self.ram_data.write_clock.next = self.clock.val();
        self.ram_data.read_clock.next = self.clock.val();
        self.ram_keep.write_clock.next = self.clock.val();
        self.ram_keep.read_clock.next = self.clock.val();
        self.ram_last.write_clock.next = self.clock.val();
        self.ram_last.read_clock.next = self.clock.val();
        // the MAC cannot wait
        self.inp.ready.next = true;
        self.fill.next = self.held.q.val();
        self.ev_drop.next = self.r_drop.q.val();
        self.ev_cut.next = self.r_cut.q.val();
        self.r_drop.d.next = false;
        self.r_cut.d.next = false;
        // ---- admission ---------------------------------------------------------------------
        self.free.next = self.c_size.val() - self.held.q.val();
        self.admit.next = false;
        if self.free.val() >= self.reserve.val() {
            // a zero reservation still needs the one word the first beat takes
            self.admit.next = self.free.val().any();
        }
        self.one_left.next = self.free.val() == self.c_one.val();
        self.wr.next = false;
        self.wr_last.next = self.inp.last.val();
        match self.state.q.val() {
            AdmState::Start => {
                if self.inp.valid.val() {
                    if self.admit.val() {
                        self.wr.next = true;
                        if !self.inp.last.val() {
                            self.state.d.next = AdmState::Pass;
                            if self.one_left.val() {
                                self.wr_last.next = true;
                                self.r_cut.d.next = true;
                                self.state.d.next = AdmState::Discard;
                            }
                        }
                    } else {
                        self.r_drop.d.next = true;
                        if !self.inp.last.val() {
                            self.state.d.next = AdmState::Discard;
                        }
                    }
                }
            }
            AdmState::Pass => {
                if self.inp.valid.val() {
                    // free >= 1 here: the previous beat was written with free >= 2
                    self.wr.next = true;
                    if self.inp.last.val() {
                        self.state.d.next = AdmState::Start;
                    } else if self.one_left.val() {
                        self.wr_last.next = true;
                        self.r_cut.d.next = true;
                        self.state.d.next = AdmState::Discard;
                    }
                }
            }
            AdmState::Discard => {
                if self.inp.valid.val() & self.inp.last.val() {
                    self.state.d.next = AdmState::Start;
                }
            }
            _ => {
                self.state.d.next = AdmState::Start;
            }
        }
        self.ram_data.write_enable.next = self.wr.val();
        self.ram_keep.write_enable.next = self.wr.val();
        self.ram_last.write_enable.next = self.wr.val();
        self.ram_data.write_address.next = bit_cast::<F, 16>(self.wr_ptr.q.val());
        self.ram_keep.write_address.next = bit_cast::<F, 16>(self.wr_ptr.q.val());
        self.ram_last.write_address.next = bit_cast::<F, 16>(self.wr_ptr.q.val());
        self.ram_data.write_data.next = self.inp.data.val();
        self.ram_keep.write_data.next = self.inp.keep.val();
        self.ram_last.write_data.next = self.wr_last.val();
        if self.wr.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        // ---- output stage --------------------------------------------------------------------
        // the skid word is older than the read register's (both are never valid together)
        self.out.valid.next = self.s_valid.q.val() | self.r_valid.q.val();
        self.out.data.next = self.ram_data.read_data.val();
        self.out.keep.next = self.ram_keep.read_data.val();
        self.out.last.next = self.ram_last.read_data.val();
        if self.s_valid.q.val() {
            self.out.data.next = self.s_data.q.val();
            self.out.keep.next = self.s_keep.q.val();
            self.out.last.next = self.s_last.q.val();
        }
        self.take.next = self.out.ready.val() & (self.s_valid.q.val() | self.r_valid.q.val());
        if self.s_valid.q.val() {
            if self.take.val() {
                self.s_valid.d.next = false;
            }
        } else if self.r_valid.q.val() & !self.take.val() {
            // the read register is overwritten at every edge: park its word
            self.s_valid.d.next = true;
            self.s_data.d.next = self.ram_data.read_data.val();
            self.s_keep.d.next = self.ram_keep.read_data.val();
            self.s_last.d.next = self.ram_last.read_data.val();
        }
        // read the next word only when the output stage is empty after this edge, and only a
        // word written at an earlier edge (never the address written now)
        self.issue.next = false;
        if self.wr_ptr.q.val() != self.rd_ptr.q.val() {
            self.issue.next = !self.out.valid.val() | self.out.ready.val();
        }
        self.r_valid.d.next = self.issue.val();
        if self.issue.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        self.ram_data.read_address.next = bit_cast::<F, 16>(self.rd_ptr.q.val());
        self.ram_keep.read_address.next = bit_cast::<F, 16>(self.rd_ptr.q.val());
        self.ram_last.read_address.next = bit_cast::<F, 16>(self.rd_ptr.q.val());
        // ---- occupancy -----------------------------------------------------------------------
        if self.wr.val() & !self.take.val() {
            self.held.d.next = self.held.q.val() + 1;
        }
        if self.take.val() & !self.wr.val() {
            self.held.d.next = self.held.q.val() - 1;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reference model (plain Rust), written from the rules of the module doc.
// ---------------------------------------------------------------------------------------------

/// Cycles from a beat's arrival to the earliest cycle its word is offered at `out`.
pub const CUT_THROUGH_CYCLES: u64 = 2;

/// What the model decided in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdmStep {
    /// a frame was dropped at this (first) beat
    pub drop: bool,
    /// a frame was cut at this beat
    pub cut: bool,
    /// a frame was admitted at this (first) beat
    pub admitted: bool,
    /// the word written this cycle (with `last` forced on a cut)
    pub written: Option<Beat>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum ModelFrame {
    #[default]
    Start,
    Pass,
    Discard,
}

/// The FIFO as a queue of words, decisions per frame (module doc, "Admission rule").
#[derive(Clone, Debug)]
pub struct RxAdmissionModel {
    /// capacity in words (`2^F`)
    pub size: usize,
    /// held words and the cycle each one arrived
    fifo: VecDeque<(Beat, u64)>,
    frame: ModelFrame,
    cycle: u64,
}

impl RxAdmissionModel {
    pub fn new(size: usize) -> Self {
        RxAdmissionModel {
            size,
            fifo: VecDeque::new(),
            frame: ModelFrame::Start,
            cycle: 0,
        }
    }
    /// Words held (what `fill` shows this cycle).
    pub fn fill(&self) -> usize {
        self.fifo.len()
    }
    /// The beat `out` offers this cycle: the oldest held word, once it has been in the block
    /// for [`CUT_THROUGH_CYCLES`].
    pub fn offered(&self) -> Option<&Beat> {
        self.fifo
            .front()
            .filter(|(_, t)| self.cycle >= t + CUT_THROUGH_CYCLES)
            .map(|(b, _)| b)
    }
    /// One cycle: `inp` is the MAC's beat (if any), `reserve` the input port, `taken` whether
    /// the consumer took the offered beat at this edge. Panics if `taken` with nothing offered.
    pub fn cycle(&mut self, inp: Option<&Beat>, reserve: u16, taken: bool) -> AdmStep {
        let free = self.size - self.fifo.len();
        let mut step = AdmStep::default();
        if let Some(b) = inp {
            let mut write = false;
            match self.frame {
                ModelFrame::Start => {
                    if free >= reserve as usize && free >= 1 {
                        step.admitted = true;
                        write = true;
                        self.frame = ModelFrame::Pass;
                    } else {
                        step.drop = true;
                        self.frame = ModelFrame::Discard;
                    }
                }
                ModelFrame::Pass => write = true,
                ModelFrame::Discard => {}
            }
            if write {
                assert!(free >= 1, "model: write into a full FIFO");
                let mut w = b.clone();
                if !b.last && free == 1 {
                    w.last = true;
                    step.cut = true;
                    self.frame = ModelFrame::Discard;
                }
                step.written = Some(w);
            }
            if b.last {
                self.frame = ModelFrame::Start;
            }
        }
        if taken {
            assert!(
                self.offered().is_some(),
                "model: taken with nothing offered"
            );
            self.fifo.pop_front();
        }
        if let Some(w) = &step.written {
            self.fifo.push_back((w.clone(), self.cycle));
        }
        self.cycle += 1;
        step
    }
}
