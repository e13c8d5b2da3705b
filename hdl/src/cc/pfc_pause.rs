//! [`PfcPause`]: the receive side of IEEE 802.1Qbb priority-based flow control: which of the
//! eight priorities the NIC must not start a frame on.
//!
//! # Pause timers
//! A received PFC frame (MAC Control EtherType 0x8808, opcode 0x0101, IEEE 802.1Qbb clause 36 /
//! IEEE 802.3 Annex 31D) carries a class-enable vector and eight 16-bit pause times in *quanta*
//! of 512 bit times. The RX parser pulses `pfc_valid` with the low byte of the vector
//! (`pfc_enable`) and the eight times (`pfc_times` in wire order: time\[n\] in bits
//! 127-16n .. 112-16n). For every
//! priority n whose enable bit is set, the block loads its timer with time\[n\] x 512 bit
//! times (time 0 = XON: the timer is cleared and the priority resumes at once); a priority whose
//! enable bit is clear keeps its timer. Every cycle each running timer counts down by
//! `bits_per_cycle`, saturating at 0 (expiry).
//!
//! # Link speed
//! `bits_per_cycle` is the number of bit times of the link in one core clock cycle:
//! `bits_per_cycle = floor(line rate [b/s] / core clock [Hz])`, e.g. 10 Gb/s at 125 MHz = 80,
//! 25 Gb/s at 125 MHz = 200, 100 Gb/s at 250 MHz = 400. Rounding down makes a pause last at
//! least as long as the peer asked (never shorter). A pause of q quanta holds its priority for
//! exactly `ceil(q * 512 / bits_per_cycle)` cycles after the load (q = 1 at 80: 7 cycles; the
//! longest, q = 65535 at 80, is 419 431 cycles). `bits_per_cycle` = 0 would never expire: the
//! register's reset value is not 0 (see `CFG_PFC_LINK`).
//!
//! # MAC pause input
//! `pause_in` (bit n: priority n) is the per-priority pause of a MAC that decodes PFC itself
//! (or any other reason the MAC wants a class held); it pauses its priorities for as long as it
//! is high, in addition to the timers.
//!
//! # Enable
//! With `enable` low (`CFG_CONTROL.PFC_ENABLE` clear) nothing is paused and the timers are
//! cleared; PFC frames are still reported on `ev_frame` (the NIC counts them).
//!
//! # Ports
//! * `enable`, `bits_per_cycle` (16 bits), `pause_in` (8 bits).
//! * `pfc_valid`, `pfc_enable`, `pfc_times`: the RX parser's PFC pulse.
//! * `paused` (8 bits, registered timers, combinational `pause_in`): bit n = do not start a
//!   frame of priority n. A PFC frame taken in cycle t shows on `paused` in cycle t + 1.
//! * `ev_frame`: a one-cycle pulse per PFC frame taken (the cycle after `pfc_valid`).
//! * `ev_xoff`, `ev_xon` (8 bits each, with `ev_frame`): the priorities that frame named with a
//!   nonzero pause time (XOFF) and with time 0 (XON); the NIC's per-priority counters. Like
//!   `ev_frame` they are reported whether or not `enable` is set.
use ferroce_proto::wire::pfc::QUANTUM_BIT_TIMES;
use rust_hdl::prelude::*;

/// Bits of a pause timer: 65535 quanta x 512 bit times < 2^25.
pub const PFC_TIMER_BITS: usize = 25;
const _: () = assert!(65535u64 * QUANTUM_BIT_TIMES < (1u64 << PFC_TIMER_BITS));
// The kernel multiplies by a quantum as `<< 9`.
const _: () = assert!(QUANTUM_BIT_TIMES == 1 << 9);

#[derive(LogicBlock)]
pub struct PfcPause {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    pub bits_per_cycle: Signal<In, Bits<16>>,
    pub pause_in: Signal<In, Bits<8>>,
    // ---- received PFC frames
    pub pfc_valid: Signal<In, Bit>,
    pub pfc_enable: Signal<In, Bits<8>>,
    pub pfc_times: Signal<In, Bits<128>>,
    // ---- outputs
    pub paused: Signal<Out, Bits<8>>,
    pub ev_frame: Signal<Out, Bit>,
    pub ev_xoff: Signal<Out, Bits<8>>,
    pub ev_xon: Signal<Out, Bits<8>>,
    // ---- state
    /// remaining pause of each priority, in bit times
    timer: [DFF<Bits<PFC_TIMER_BITS>>; 8],
    frame: DFF<Bit>,
    /// the priorities the frame taken last cycle paused / resumed
    xoff_ev: DFF<Bits<8>>,
    xon_ev: DFF<Bits<8>>,
    // ---- combinational helpers
    /// time[n] of the frame on `pfc_*`, and its enable bit
    quanta: [Signal<Local, Bits<16>>; 8],
    cev: [Signal<Local, Bit>; 8],
    /// the MAC's pause of priority n
    mac: [Signal<Local, Bit>; 8],
    /// bit n set when priority n is paused
    pmask: [Signal<Local, Bits<8>>; 8],
    /// bit n set when time[n] of the frame on `pfc_*` is nonzero
    nzmask: [Signal<Local, Bits<8>>; 8],
    nonzero: Signal<Local, Bits<8>>,
    step: Signal<Local, Bits<PFC_TIMER_BITS>>,
    /// time[n] in bit times
    load: [Signal<Local, Bits<PFC_TIMER_BITS>>; 8],
    c_bit: [Constant<Bits<8>>; 8],
}

impl Default for PfcPause {
    fn default() -> Self {
        PfcPause {
            clock: Default::default(),
            enable: Default::default(),
            bits_per_cycle: Default::default(),
            pause_in: Default::default(),
            pfc_valid: Default::default(),
            pfc_enable: Default::default(),
            pfc_times: Default::default(),
            paused: Default::default(),
            ev_frame: Default::default(),
            ev_xoff: Default::default(),
            ev_xon: Default::default(),
            timer: Default::default(),
            frame: Default::default(),
            xoff_ev: Default::default(),
            xon_ev: Default::default(),
            quanta: Default::default(),
            cev: Default::default(),
            mac: Default::default(),
            pmask: Default::default(),
            nzmask: Default::default(),
            nonzero: Default::default(),
            step: Default::default(),
            load: Default::default(),
            c_bit: core::array::from_fn(|n| Constant::new((1u64 << n).into())),
        }
    }
}

impl Logic for PfcPause {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, frame, xoff_ev, xon_ev);
        for n in 0..8 {
            self.timer[n].clock.next = self.clock.val();
            self.timer[n].d.next = self.timer[n].q.val();
        }
        // the frame's fields, one priority each (the parser's wire order: time[n] at 112 - 16n)
        self.quanta[0].next = self.pfc_times.val().get_bits::<16>(112);
        self.quanta[1].next = self.pfc_times.val().get_bits::<16>(96);
        self.quanta[2].next = self.pfc_times.val().get_bits::<16>(80);
        self.quanta[3].next = self.pfc_times.val().get_bits::<16>(64);
        self.quanta[4].next = self.pfc_times.val().get_bits::<16>(48);
        self.quanta[5].next = self.pfc_times.val().get_bits::<16>(32);
        self.quanta[6].next = self.pfc_times.val().get_bits::<16>(16);
        self.quanta[7].next = self.pfc_times.val().get_bits::<16>(0);
        self.cev[0].next = self.pfc_enable.val().get_bits::<1>(0).any();
        self.cev[1].next = self.pfc_enable.val().get_bits::<1>(1).any();
        self.cev[2].next = self.pfc_enable.val().get_bits::<1>(2).any();
        self.cev[3].next = self.pfc_enable.val().get_bits::<1>(3).any();
        self.cev[4].next = self.pfc_enable.val().get_bits::<1>(4).any();
        self.cev[5].next = self.pfc_enable.val().get_bits::<1>(5).any();
        self.cev[6].next = self.pfc_enable.val().get_bits::<1>(6).any();
        self.cev[7].next = self.pfc_enable.val().get_bits::<1>(7).any();
        self.mac[0].next = self.pause_in.val().get_bits::<1>(0).any();
        self.mac[1].next = self.pause_in.val().get_bits::<1>(1).any();
        self.mac[2].next = self.pause_in.val().get_bits::<1>(2).any();
        self.mac[3].next = self.pause_in.val().get_bits::<1>(3).any();
        self.mac[4].next = self.pause_in.val().get_bits::<1>(4).any();
        self.mac[5].next = self.pause_in.val().get_bits::<1>(5).any();
        self.mac[6].next = self.pause_in.val().get_bits::<1>(6).any();
        self.mac[7].next = self.pause_in.val().get_bits::<1>(7).any();
        self.step.next = bit_cast::<PFC_TIMER_BITS, 16>(self.bits_per_cycle.val());
        // time[n] quanta x 512 bit times
        self.load[0].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[0].val()) << 9;
        self.load[1].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[1].val()) << 9;
        self.load[2].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[2].val()) << 9;
        self.load[3].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[3].val()) << 9;
        self.load[4].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[4].val()) << 9;
        self.load[5].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[5].val()) << 9;
        self.load[6].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[6].val()) << 9;
        self.load[7].next = bit_cast::<PFC_TIMER_BITS, 16>(self.quanta[7].val()) << 9;

        self.frame.d.next = self.pfc_valid.val();
        self.ev_frame.next = self.frame.q.val();
        // the frame's XOFF and XON priorities, reported with `ev_frame`
        for n in 0..8 {
            self.nzmask[n].next = 0.into();
            if self.quanta[n].val().any() {
                self.nzmask[n].next = self.c_bit[n].val();
            }
        }
        self.nonzero.next = self.nzmask[0].val()
            | self.nzmask[1].val()
            | self.nzmask[2].val()
            | self.nzmask[3].val()
            | self.nzmask[4].val()
            | self.nzmask[5].val()
            | self.nzmask[6].val()
            | self.nzmask[7].val();
        self.xoff_ev.d.next = 0.into();
        self.xon_ev.d.next = 0.into();
        if self.pfc_valid.val() {
            self.xoff_ev.d.next = self.pfc_enable.val() & self.nonzero.val();
            self.xon_ev.d.next = self.pfc_enable.val() & !self.nonzero.val();
        }
        self.ev_xoff.next = self.xoff_ev.q.val();
        self.ev_xon.next = self.xon_ev.q.val();
        for n in 0..8 {
            // count down, saturating at 0 (expiry)
            if self.timer[n].q.val() > self.step.val() {
                self.timer[n].d.next = self.timer[n].q.val() - self.step.val();
            } else {
                self.timer[n].d.next = 0.into();
            }
            // a frame enabling priority n reloads it (0 quanta = XON)
            if self.pfc_valid.val() & self.cev[n].val() {
                self.timer[n].d.next = self.load[n].val();
            }
            if !self.enable.val() {
                self.timer[n].d.next = 0.into();
            }
            self.pmask[n].next = 0.into();
            if self.enable.val() & (self.timer[n].q.val().any() | self.mac[n].val()) {
                self.pmask[n].next = self.c_bit[n].val();
            }
        }
        self.paused.next = self.pmask[0].val()
            | self.pmask[1].val()
            | self.pmask[2].val()
            | self.pmask[3].val()
            | self.pmask[4].val()
            | self.pmask[5].val()
            | self.pmask[6].val()
            | self.pmask[7].val();
    }
}

/// The reference model, written from IEEE 802.1Qbb: per-priority remaining pause in bit times.
#[derive(Clone, Debug, Default)]
pub struct PfcPauseModel {
    /// remaining pause of each priority, in bit times
    pub remaining: [u64; 8],
}

impl PfcPauseModel {
    /// One cycle: `frame` is a PFC frame taken this cycle (class-enable vector, times in
    /// quanta). Returns the `paused` vector of this cycle (before the cycle's edge).
    pub fn cycle(
        &mut self,
        enable: bool,
        bits_per_cycle: u64,
        pause_in: u8,
        frame: Option<(u8, [u16; 8])>,
    ) -> u8 {
        let mut paused = 0u8;
        for n in 0..8 {
            if enable && (self.remaining[n] > 0 || pause_in >> n & 1 == 1) {
                paused |= 1 << n;
            }
        }
        for n in 0..8 {
            self.remaining[n] = self.remaining[n].saturating_sub(bits_per_cycle);
            if let Some((en, times)) = frame {
                if en >> n & 1 == 1 {
                    self.remaining[n] = times[n] as u64 * QUANTUM_BIT_TIMES;
                }
            }
            if !enable {
                self.remaining[n] = 0;
            }
        }
        paused
    }
}

/// The priorities a PFC frame (class-enable vector, times in quanta) pauses and resumes:
/// (XOFF: enabled with a nonzero time, XON: enabled with time 0), IEEE 802.1Qbb clause 36.
pub fn frame_xoff_xon(enable_vector: u8, times: &[u16; 8]) -> (u8, u8) {
    let (mut xoff, mut xon) = (0u8, 0u8);
    for (n, t) in times.iter().enumerate() {
        if enable_vector >> n & 1 == 1 {
            if *t == 0 {
                xon |= 1 << n;
            } else {
                xoff |= 1 << n;
            }
        }
    }
    (xoff, xon)
}

/// Cycles a pause of `quanta` holds its priority at `bits_per_cycle` (docs/CONGESTION.md).
pub fn pause_cycles(quanta: u16, bits_per_cycle: u16) -> u64 {
    (quanta as u64 * QUANTUM_BIT_TIMES).div_ceil(bits_per_cycle as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{Bench, Stepper};

    fn times_bits(t: [u16; 8]) -> Bits<128> {
        let mut b = Bits::<128>::default();
        for (n, q) in t.iter().enumerate() {
            b.set_bits::<16>(112 - 16 * n, (*q as u64).into());
        }
        b
    }

    #[test]
    fn one_quantum_at_80_bits_per_cycle_holds_7_cycles_and_xon_resumes() {
        let mut b = Bench::new(PfcPause::default(), |u| &mut u.clock);
        b.uut().enable.next = true;
        b.uut().bits_per_cycle.next = 80.into();
        b.uut().pfc_valid.next = true;
        b.uut().pfc_enable.next = 0x08.into();
        b.uut().pfc_times.next = times_bits([0, 0, 0, 1, 0, 0, 0, 0]);
        b.tick();
        b.uut().pfc_valid.next = false;
        let mut held = 0;
        for _ in 0..20 {
            b.settle();
            if b.uut().paused.val().to_u64() == 0x08 {
                held += 1;
            } else {
                assert_eq!(b.uut().paused.val().to_u64(), 0);
            }
            b.tick();
        }
        // 512 / 80 = 6.4: 7 cycles
        assert_eq!(held, 7);
        assert_eq!(held, pause_cycles(1, 80));
        // a long pause, then XON one cycle later
        b.uut().pfc_valid.next = true;
        b.uut().pfc_times.next = times_bits([0, 0, 0, 1000, 0, 0, 0, 0]);
        b.tick();
        b.uut().pfc_times.next = times_bits([0; 8]);
        b.settle();
        assert_eq!(b.uut().paused.val().to_u64(), 0x08);
        b.tick();
        b.uut().pfc_valid.next = false;
        b.settle();
        assert_eq!(b.uut().paused.val().to_u64(), 0);
    }
}
