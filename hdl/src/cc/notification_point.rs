//! [`NotificationPoint`]: the DCQCN notification point: which ECN-marked packets make the NIC
//! send a CNP (IBTA Vol 1 Annex A17.9: RoCEv2 congestion management).
//!
//! The NIC's receive glue offers every *marked* packet it accepts on `mk_*`: a RoCEv2 packet of
//! an RC opcode whose IP ECN field (IPv4 ToS / IPv6 traffic class bits 1:0) is CE (0b11), with a
//! good ICRC, addressed to a local GID and to a QPN the build has. With `enable` set, the block
//! queues a CNP request for the packet's QP on `cnp_*` unless that QP was sent one too recently:
//! at most one CNP per QP per `interval` microseconds (`CC_NP_CNP_INTERVAL`, mlx5
//! `min_time_between_cnps`); `interval` = 0 sends one per marked packet. The packet formatter
//! turns a request into the CNP frame (the peer's QPN, the address vector, DSCP and ECN from
//! `CFG_TRAFFIC`) and discards it if the QP is not in a receiving state.
//!
//! # Time
//! `tick_us` is a 1 us pulse (the NIC's [`crate::nic::TimeBase::microsecond`]: `ID_CLOCK_KHZ` /
//! 1000 cycles, exact at 125 MHz and 250 MHz). The block counts it in `now` (32 bits, wraps
//! after 71.6 minutes). A marked packet taken while `now` = t is compared with the QP's last
//! CNP time `last`: a CNP is queued if the QP never had one, or `now - last > interval`
//! (wrapping). So two CNPs of one QP are queued more than `interval` and less than
//! `interval + 1` microseconds apart (the resolution of the tick); on the wire the spacing can
//! differ from that by the transmit queueing of the two (the formatter and the TX builder
//! finishing the frame in progress). A QP idle for exactly a multiple of 2^32 us within
//! `interval` would be suppressed once (the wrap): accepted for a 32-bit time base.
//!
//! # Per-QP state
//! One [`NpQpState`] word per QPN in block RAM (2^QA x 33 bits), cleared after configuration
//! by the `Init` sweep (2^QA cycles, `mk_ready` low). It is not cleared when a QP is
//! re-created: a stale time only delays the new QP's first CNP by at most `interval`.
//!
//! # Throughput and back-pressure
//! Four cycles per marked packet (`Idle` takes it and reads the QP's word, `Check` registers
//! the word, `Elapsed` the time since the QP's last CNP, `Decide` queues a CNP or not and
//! writes the word back): no cycle computes from the block RAM's output, and each has at most
//! one 32-bit carry chain (ECP5, 125 MHz: docs/CONGESTION.md). A marked packet is at least
//! nine beats long on the 64-bit datapath, so this keeps up with one a packet. The CNP queue holds [`NP_QUEUE`] requests; `mk_ready` is low while it is
//! full, so marked packets wait (the receive glue holds the parser's header) rather than lose
//! a CNP. Unmarked packets never meet this block.
//!
//! # Ports
//! * `tick_us`, `enable` (`CFG_CONTROL.DCQCN_NP_ENABLE`), `interval`.
//! * `mk_valid`/`mk_ready`/`mk_qpn`: marked packets.
//! * `cnp_valid`/`cnp_ready`/`cnp_qpn`: CNP requests (first word fall through).
//! * `ev_queued` / `ev_suppressed`: one-cycle pulses per decision (a CNP queued; none, because
//!   of the interval or a cleared `enable`).
use crate::widget::RegFifo;
use rust_hdl::prelude::*;

/// CNP requests the queue holds.
pub const NP_QUEUE: usize = 8;

/// Cycles from the one in which a marked packet is taken (`mk_valid & mk_ready`) to the one
/// with its decision (`ev_queued` or `ev_suppressed`, and the CNP request pushed).
pub const DECISION_CYCLES: u64 = 3;

/// One QP's notification-point state (one RAM word).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct NpQpState {
    /// The QP has been sent a CNP since the block was configured.
    pub sent: Bit,
    /// `now` when its last CNP was queued.
    pub last_us: Bits<32>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum NpState {
    /// After configuration: clear every QP's word, one per cycle.
    Init,
    /// Take a marked packet (if the CNP queue has room); read its QP's word.
    Idle,
    /// The QP's word is out of the block RAM: register it (the RAM's clock-to-output is most
    /// of a 125 MHz cycle on ECP5, so nothing is computed from it in the same cycle).
    Check,
    /// Time since the QP's last CNP: `now - last`, registered.
    Elapsed,
    /// Queue a CNP and stamp the time, or suppress.
    Decide,
}

#[derive(LogicBlock)]
pub struct NotificationPoint<const QA: usize> {
    pub clock: Signal<In, Clock>,
    pub tick_us: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub interval: Signal<In, Bits<32>>,
    // ---- marked packets
    pub mk_valid: Signal<In, Bit>,
    pub mk_ready: Signal<Out, Bit>,
    pub mk_qpn: Signal<In, Bits<QA>>,
    // ---- CNP requests
    pub cnp_valid: Signal<Out, Bit>,
    pub cnp_ready: Signal<In, Bit>,
    pub cnp_qpn: Signal<Out, Bits<QA>>,
    // ---- decisions
    pub ev_queued: Signal<Out, Bit>,
    pub ev_suppressed: Signal<Out, Bit>,
    // ---- state
    state: DFF<NpState>,
    now: DFF<Bits<32>>,
    /// the marked packet being decided: its QPN and `now` when it was taken
    ev_qpn: DFF<Bits<QA>>,
    ev_t: DFF<Bits<32>>,
    ev_en: DFF<Bit>,
    /// the QP's word as read, and the microseconds since its last CNP
    w_word: DFF<NpQpState>,
    w_elapsed: DFF<Bits<32>>,
    init_i: DFF<Bits<QA>>,
    qps: RAM<NpQpState, QA>,
    queue: RegFifo<QA, NP_QUEUE, 4>,
    c_zero: Constant<NpQpState>,
    c_last: Constant<Bits<QA>>,
    // ---- combinational helpers
    stamp: Signal<Local, NpQpState>,
}

impl<const QA: usize> Default for NotificationPoint<QA> {
    fn default() -> Self {
        NotificationPoint {
            clock: Default::default(),
            tick_us: Default::default(),
            enable: Default::default(),
            interval: Default::default(),
            mk_valid: Default::default(),
            mk_ready: Default::default(),
            mk_qpn: Default::default(),
            cnp_valid: Default::default(),
            cnp_ready: Default::default(),
            cnp_qpn: Default::default(),
            ev_queued: Default::default(),
            ev_suppressed: Default::default(),
            state: Default::default(),
            now: Default::default(),
            ev_qpn: Default::default(),
            ev_t: Default::default(),
            ev_en: Default::default(),
            w_word: Default::default(),
            w_elapsed: Default::default(),
            init_i: Default::default(),
            qps: Default::default(),
            queue: Default::default(),
            c_zero: Constant::new(NpQpState::default()),
            c_last: Constant::new((((1u64 << QA) - 1) as u64).into()),
            stamp: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for NotificationPoint<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, now, ev_qpn, ev_t, ev_en, w_word, w_elapsed, init_i);
        self.qps.read_clock.next = self.clock.val();
        self.qps.write_clock.next = self.clock.val();
        self.queue.clock.next = self.clock.val();
        // the microsecond count
        if self.tick_us.val() {
            self.now.d.next = self.now.q.val() + 1;
        }
        // defaults
        self.mk_ready.next = false;
        self.ev_queued.next = false;
        self.ev_suppressed.next = false;
        self.qps.read_address.next = self.mk_qpn.val();
        self.qps.write_address.next = self.ev_qpn.q.val();
        self.qps.write_data.next = self.c_zero.val();
        self.qps.write_enable.next = false;
        self.queue.push.next = false;
        self.queue.din.next = self.ev_qpn.q.val();
        self.queue.flush.next = false;
        self.cnp_valid.next = self.queue.valid.val();
        self.cnp_qpn.next = self.queue.dout.val();
        self.queue.pop.next = self.queue.valid.val() & self.cnp_ready.val();
        self.stamp.next.sent = true;
        self.stamp.next.last_us = self.ev_t.q.val();

        match self.state.q.val() {
            NpState::Init => {
                self.qps.write_address.next = self.init_i.q.val();
                self.qps.write_enable.next = true;
                self.init_i.d.next = self.init_i.q.val() + 1;
                if self.init_i.q.val() == self.c_last.val() {
                    self.state.d.next = NpState::Idle;
                }
            }
            NpState::Idle => {
                // a free slot in the queue is guaranteed for the decision that follows
                self.mk_ready.next = !self.queue.full.val();
                if self.mk_valid.val() & !self.queue.full.val() {
                    self.ev_qpn.d.next = self.mk_qpn.val();
                    self.ev_t.d.next = self.now.q.val();
                    self.ev_en.d.next = self.enable.val();
                    self.state.d.next = NpState::Check;
                }
            }
            NpState::Check => {
                self.w_word.d.next = self.qps.read_data.val();
                self.state.d.next = NpState::Elapsed;
            }
            NpState::Elapsed => {
                self.w_elapsed.d.next = self.ev_t.q.val() - self.w_word.q.val().last_us;
                self.state.d.next = NpState::Decide;
            }
            NpState::Decide => {
                if self.ev_en.q.val()
                    & (!self.interval.val().any()
                        | !self.w_word.q.val().sent
                        | (self.w_elapsed.q.val() > self.interval.val()))
                {
                    self.qps.write_data.next = self.stamp.val();
                    self.qps.write_enable.next = true;
                    self.queue.push.next = true;
                    self.ev_queued.next = true;
                } else {
                    self.ev_suppressed.next = true;
                }
                self.state.d.next = NpState::Idle;
            }
            _ => {
                self.state.d.next = NpState::Idle;
            }
        }
    }
}

/// The reference model: the CNP decisions of the block for a sequence of marked packets, each
/// with the microsecond count when it was taken (`ticks` seen in the cycles before).
#[derive(Clone, Debug, Default)]
pub struct NpModel {
    last: std::collections::HashMap<u32, u32>,
}

impl NpModel {
    /// Whether the marked packet of QP `qpn` taken at microsecond `now` queues a CNP.
    pub fn marked(&mut self, qpn: u32, now: u32, interval: u32, enable: bool) -> bool {
        if !enable {
            return false;
        }
        let send = match self.last.get(&qpn) {
            None => true,
            Some(&t) => interval == 0 || now.wrapping_sub(t) > interval,
        };
        if send {
            self.last.insert(qpn, now);
        }
        send
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{Bench, Stepper};

    #[test]
    fn interval_zero_sends_one_per_marked_packet_and_disable_none() {
        let mut b = Bench::new(NotificationPoint::<8>::default(), |u| &mut u.clock);
        let run = |b: &mut Bench<NotificationPoint<8>>, en: bool, interval: u64| {
            let mut n = 0;
            b.uut().enable.next = en;
            b.uut().interval.next = interval.into();
            b.uut().cnp_ready.next = true;
            for _ in 0..300 {
                b.uut().mk_valid.next = true;
                b.uut().mk_qpn.next = 9u64.into();
                b.settle();
                if b.uut().cnp_valid.val() {
                    n += 1;
                }
                b.tick();
            }
            b.uut().mk_valid.next = false;
            for _ in 0..20 {
                b.settle();
                if b.uut().cnp_valid.val() {
                    n += 1;
                }
                b.tick();
            }
            n
        };
        // the first 256 cycles are the Init sweep: 44 cycles of packets at 4 cycles each
        assert_eq!(run(&mut b, true, 0), 11);
        // no tick: with an interval, only the first CNP of the QP... which was sent already
        assert_eq!(run(&mut b, true, 5), 0);
        assert_eq!(run(&mut b, false, 0), 0);
        assert_eq!(run(&mut b, true, 0), 75);
    }

    #[test]
    fn synthesizes() {
        crate::csr::synth_check(&mut NotificationPoint::<8>::default(), "notification_point");
    }
}
