//! [`PfcFrameInserter`]: the MAC-control frame source of the transmit path. It sits between the
//! transmit arbiter's output (data frames from the TxHeaderBuilder) and the MAC, and puts the
//! IEEE 802.1Qbb PFC frames that [`crate::cc::pfc_xoff::PfcXoffGenerator`] asks for on the wire.
//!
//! # Why here
//! A PFC frame is a MAC-control frame (IEEE 802.1Qbb, IEEE 802.3 Annex 31B): it is what tells the
//! peer to stop, so it must not be held by the PFC pause of our own data classes nor wait behind
//! queued RoCE frames while our receive buffer fills. Inserting it after the arbiter makes it
//! wait at most for the one data frame already on its way to the MAC.
//!
//! # The frame (docs/PROTOCOL.md §12)
//! Destination 01-80-C2-00-00-01, source `cfg_mac`, EtherType 0x8808, opcode 0x0101, a
//! class-enable vector with only bit `prio` set, time[`prio`] = `quanta` for an XOFF or 0 for an
//! XON (resume), the other seven times 0, zero padding up to the 60-byte minimum frame (the MAC
//! appends the FCS): 8 beats of 64 bits, the last one with the top 4 bytes valid.
//!
//! # Arbitration
//! A frame is *in progress* on `out` from the first cycle its first beat is offered until its
//! last beat is taken (an offered beat is never withdrawn, AXI rule). At every boundary (no
//! frame in progress) a pending request (`req_valid`) goes first; otherwise the next data frame.
//! Data frames pass through unchanged, never interleaved or cut; the pass-through is
//! combinational (`inp` to `out`, `out.ready` to `inp.ready`), so it adds no cycle and no bubble.
//!
//! **Bound.** A request waits at most for the rest of the one data frame in progress when it
//! arrives, then its own 8 beats: with `out.ready` high and the data frame's beats coming without
//! gaps, `req_ready` pulses `r + 7` cycles after the first cycle of `req_valid`, where `r` is the
//! number of beats of the data frame still to be taken in that cycle (0 at a boundary: beat 0 is
//! offered in the request's first cycle and the last one is taken 7 cycles later).
//!
//! # Request handshake
//! `req_valid` with `req_xon` is held until `req_ready`, which pulses for one cycle when the PFC
//! frame's *last* beat is taken by `out` (the frame is on the wire, the request is done). The
//! frame's fields (`cfg_mac`, `prio`, `quanta`, `req_xon`) are read the cycle its first beat is
//! offered and latched for the rest of the frame. A request dropped after that (the generator's
//! `enable` cleared) does not cut the frame: it is finished and `req_ready` still pulses.
//!
//! # Ports
//! * `inp: StreamSink<64, 8>`: data frames without FCS; `out: StreamSource<64, 8>`: to the MAC.
//! * `req_valid`, `req_xon` (1 = XON: pause time 0; 0 = XOFF of `quanta`) in, `req_ready` out.
//! * `cfg_mac` (first wire byte in bits 47..40), `prio` (3 bits), `quanta` (16 bits, in 512 bit
//!   times).
use crate::stream::{Sink64, Source64};
use ferroce_proto::wire::ethernet::{
    ethertype::MAC_CONTROL, mac_to_u64, HEADER_LEN, MIN_FRAME_LEN,
};
use ferroce_proto::wire::pfc::{DST_MAC, OPCODE_PFC, PFC_LEN};
use rust_hdl::prelude::*;

/// Bytes per beat of the 64-bit profile.
const BEAT_BYTES: usize = 8;
/// Beats of a PFC frame: the 60-byte minimum frame.
pub const PFC_BEATS: usize = MIN_FRAME_LEN.div_ceil(BEAT_BYTES);
/// Valid bytes of its last beat.
pub const PFC_LAST_BYTES: usize = MIN_FRAME_LEN - (PFC_BEATS - 1) * BEAT_BYTES;
/// Frame offset of the class-enable vector (after the 2-byte opcode) and of time[0].
const CE_OFF: usize = HEADER_LEN + 2;
const TIME0_OFF: usize = HEADER_LEN + 4;

// The beat layout the kernel hard-codes: destination and the first two source bytes in beat 0;
// the rest of the source, the EtherType and the opcode in beat 1; the class-enable vector opens
// beat 2; the payload fits the minimum frame; a 3-bit beat counter.
const _: () = assert!(HEADER_LEN == 6 + 6 + 2 && CE_OFF == 2 * BEAT_BYTES);
const _: () =
    assert!(HEADER_LEN + PFC_LEN <= MIN_FRAME_LEN && TIME0_OFF + 16 == HEADER_LEN + PFC_LEN);
const _: () = assert!(PFC_BEATS == 8 && PFC_LAST_BYTES == 4);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum InsState {
    /// At a boundary: offer a PFC frame's first beat if a request is pending, else pass `inp`.
    Idle,
    /// A data frame is in progress: pass `inp` through until its last beat is taken.
    Data,
    /// A PFC frame is in progress: offer beat `beat` from the latched fields.
    Pfc,
}

#[derive(LogicBlock)]
pub struct PfcFrameInserter {
    pub clock: Signal<In, Clock>,
    pub inp: Sink64,
    pub out: Source64,
    // ---- the request
    pub req_valid: Signal<In, Bit>,
    pub req_xon: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    // ---- the frame's fields
    pub cfg_mac: Signal<In, Bits<48>>,
    pub prio: Signal<In, Bits<3>>,
    pub quanta: Signal<In, Bits<16>>,
    // ---- state
    state: DFF<InsState>,
    /// the PFC beat offered (0 outside a PFC frame)
    beat: DFF<Bits<3>>,
    /// the fields, captured every cycle in `Idle`: in `Pfc` they hold the first beat's values
    mac_q: DFF<Bits<48>>,
    prio_q: DFF<Bits<3>>,
    time_q: DFF<Bits<16>>,
    // ---- constants from ferroce_proto
    c_dst: Constant<Bits<48>>,
    /// EtherType and opcode, the last four bytes of beat 1
    c_type_op: Constant<Bits<32>>,
    c_time0: Constant<Bits<6>>,
    c_last_beat: Constant<Bits<3>>,
    c_last_keep: Constant<Bits<8>>,
    c_all_keep: Constant<Bits<8>>,
    c_one: Constant<Bits<16>>,
    c_top_shift: Constant<Bits<6>>,
    // ---- combinational helpers
    /// the fields the PFC beat is built from: live in `Idle`, latched otherwise
    f_mac: Signal<Local, Bits<48>>,
    f_prio: Signal<Local, Bits<3>>,
    f_time: Signal<Local, Bits<16>>,
    live_time: Signal<Local, Bits<16>>,
    /// frame offset of time[prio], its beat, and the shift placing it in that beat
    t_prio2: Signal<Local, Bits<6>>,
    t_off: Signal<Local, Bits<6>>,
    t_beat: Signal<Local, Bits<3>>,
    t_byte8: Signal<Local, Bits<6>>,
    t_shift: Signal<Local, Bits<6>>,
    t_word: Signal<Local, Bits<64>>,
    ce: Signal<Local, Bits<16>>,
    pfc_data: Signal<Local, Bits<64>>,
    pfc_last: Signal<Local, Bit>,
    pfc_keep: Signal<Local, Bits<8>>,
}

impl Default for PfcFrameInserter {
    fn default() -> Self {
        PfcFrameInserter {
            clock: Default::default(),
            inp: Default::default(),
            out: Default::default(),
            req_valid: Default::default(),
            req_xon: Default::default(),
            req_ready: Default::default(),
            cfg_mac: Default::default(),
            prio: Default::default(),
            quanta: Default::default(),
            state: Default::default(),
            beat: Default::default(),
            mac_q: Default::default(),
            prio_q: Default::default(),
            time_q: Default::default(),
            c_dst: Constant::new(mac_to_u64(DST_MAC).into()),
            c_type_op: Constant::new((((MAC_CONTROL as u64) << 16) | OPCODE_PFC as u64).into()),
            c_time0: Constant::new((TIME0_OFF as u64).into()),
            c_last_beat: Constant::new(((PFC_BEATS - 1) as u64).into()),
            c_last_keep: Constant::new(
                (((1u64 << PFC_LAST_BYTES) - 1) << (BEAT_BYTES - PFC_LAST_BYTES)).into(),
            ),
            c_all_keep: Constant::new(((1u64 << BEAT_BYTES) - 1).into()),
            c_one: Constant::new(1u64.into()),
            // a 16-bit time at beat byte 0 is shifted up by (8 - 2) bytes
            c_top_shift: Constant::new((8 * (BEAT_BYTES - 2) as u64).into()),
            f_mac: Default::default(),
            f_prio: Default::default(),
            f_time: Default::default(),
            live_time: Default::default(),
            t_prio2: Default::default(),
            t_off: Default::default(),
            t_beat: Default::default(),
            t_byte8: Default::default(),
            t_shift: Default::default(),
            t_word: Default::default(),
            ce: Default::default(),
            pfc_data: Default::default(),
            pfc_last: Default::default(),
            pfc_keep: Default::default(),
        }
    }
}

impl Logic for PfcFrameInserter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, beat, mac_q, prio_q, time_q);
        self.out.valid.next = false;
        self.out.data.next = 0.into();
        self.out.keep.next = 0.into();
        self.out.last.next = false;
        self.inp.ready.next = false;
        self.req_ready.next = false;
        // an XON is a pause time of 0 (IEEE 802.1Qbb clause 36.1.3.1)
        self.live_time.next = self.quanta.val();
        if self.req_xon.val() {
            self.live_time.next = 0.into();
        }
        // the fields: live at a boundary (where beat 0 may be offered), latched in a frame, so
        // an offered beat holds even if the inputs change (AXI rule)
        self.f_mac.next = self.mac_q.q.val();
        self.f_prio.next = self.prio_q.q.val();
        self.f_time.next = self.time_q.q.val();
        match self.state.q.val() {
            InsState::Idle => {
                self.f_mac.next = self.cfg_mac.val();
                self.f_prio.next = self.prio.val();
                self.f_time.next = self.live_time.val();
                self.mac_q.d.next = self.cfg_mac.val();
                self.prio_q.d.next = self.prio.val();
                self.time_q.d.next = self.live_time.val();
            }
            _ => {}
        }
        // the PFC beat `beat`: time[prio] sits at frame byte TIME0_OFF + 2 prio, i.e. in beat
        // off / 8, shifted down from the top by 8 (off % 8) bits
        self.t_prio2.next = bit_cast::<6, 3>(self.f_prio.val()) << 1;
        self.t_off.next = self.c_time0.val() + self.t_prio2.val();
        self.t_beat.next = self.t_off.val().get_bits::<3>(3);
        self.t_byte8.next = bit_cast::<6, 3>(self.t_off.val().get_bits::<3>(0)) << 3;
        self.t_shift.next = self.c_top_shift.val() - self.t_byte8.val();
        self.t_word.next = bit_cast::<64, 16>(self.f_time.val()) << self.t_shift.val();
        self.ce.next = self.c_one.val() << self.f_prio.val();
        self.pfc_data.next = 0.into();
        if self.beat.q.val() == 0 {
            self.pfc_data.next = (bit_cast::<64, 48>(self.c_dst.val()) << 16)
                | (bit_cast::<64, 48>(self.f_mac.val()) >> 32);
        }
        if self.beat.q.val() == 1 {
            self.pfc_data.next = (bit_cast::<64, 48>(self.f_mac.val()) << 32)
                | bit_cast::<64, 32>(self.c_type_op.val());
        }
        if self.beat.q.val() == 2 {
            self.pfc_data.next = bit_cast::<64, 16>(self.ce.val()) << 48;
        }
        if self.beat.q.val() == self.t_beat.val() {
            self.pfc_data.next = self.pfc_data.val() | self.t_word.val();
        }
        self.pfc_last.next = self.beat.q.val() == self.c_last_beat.val();
        self.pfc_keep.next = self.c_all_keep.val();
        if self.pfc_last.val() {
            self.pfc_keep.next = self.c_last_keep.val();
        }
        match self.state.q.val() {
            InsState::Idle => {
                if self.req_valid.val() {
                    // the request goes first; beat 0 is offered now and the frame is committed
                    self.out.valid.next = true;
                    self.out.data.next = self.pfc_data.val();
                    self.out.keep.next = self.pfc_keep.val();
                    self.out.last.next = self.pfc_last.val();
                    if self.out.ready.val() {
                        self.beat.d.next = 1.into();
                    }
                    self.state.d.next = InsState::Pfc;
                } else {
                    self.out.valid.next = self.inp.valid.val();
                    self.out.data.next = self.inp.data.val();
                    self.out.keep.next = self.inp.keep.val();
                    self.out.last.next = self.inp.last.val();
                    self.inp.ready.next = self.out.ready.val();
                    // an offered data beat commits its frame, taken or not (unless it was a
                    // one-beat frame, taken)
                    if self.inp.valid.val() && !(self.out.ready.val() && self.inp.last.val()) {
                        self.state.d.next = InsState::Data;
                    }
                }
            }
            InsState::Data => {
                self.out.valid.next = self.inp.valid.val();
                self.out.data.next = self.inp.data.val();
                self.out.keep.next = self.inp.keep.val();
                self.out.last.next = self.inp.last.val();
                self.inp.ready.next = self.out.ready.val();
                if self.inp.valid.val() && self.out.ready.val() && self.inp.last.val() {
                    self.state.d.next = InsState::Idle;
                }
            }
            InsState::Pfc => {
                self.out.valid.next = true;
                self.out.data.next = self.pfc_data.val();
                self.out.keep.next = self.pfc_keep.val();
                self.out.last.next = self.pfc_last.val();
                if self.out.ready.val() {
                    if self.pfc_last.val() {
                        self.req_ready.next = true;
                        self.beat.d.next = 0.into();
                        self.state.d.next = InsState::Idle;
                    } else {
                        self.beat.d.next = self.beat.q.val() + 1;
                    }
                }
            }
            _ => {
                self.beat.d.next = 0.into();
                self.state.d.next = InsState::Idle;
            }
        }
    }
}
