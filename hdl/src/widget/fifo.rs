//! [`RegFifo`]: a small first-word-fall-through FIFO in registers, for the doorbell and
//! async-event queues of the CSR block. Storage is a ring of `D` slots with a read and a write
//! pointer: a push loads only the slot at the write pointer (a register enable, no logic per
//! stored bit) and `dout` is the slot at the read pointer (one `D`:1 multiplexer per bit).
//!
//! Ports: `push`/`din`/`full` (a push while full is ignored: callers check `full`),
//! `valid`/`dout`/`pop` (`dout` is the head while `valid`; a pop while empty is ignored),
//! `flush` (empties the FIFO; wins over a push in the same cycle). A push and a pop in the same
//! cycle are both performed (also when full: the pop makes room only for the next cycle, so a
//! full FIFO still shows `full` and refuses the push).
//!
//! `D` entries of `W` bits; `CW` is the width of the count and of the pointers (`D` must fit:
//! `D < 2^CW`). `dout` is defined only while `valid`.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegFifo<const W: usize, const D: usize, const CW: usize> {
    pub clock: Signal<In, Clock>,
    pub push: Signal<In, Bit>,
    pub din: Signal<In, Bits<W>>,
    pub full: Signal<Out, Bit>,
    pub pop: Signal<In, Bit>,
    pub valid: Signal<Out, Bit>,
    pub dout: Signal<Out, Bits<W>>,
    pub flush: Signal<In, Bit>,
    slot: [DFF<Bits<W>>; D],
    cnt: DFF<Bits<CW>>,
    rp: DFF<Bits<CW>>,
    wp: DFF<Bits<CW>>,
    c_idx: [Constant<Bits<CW>>; D],
    c_depth: Constant<Bits<CW>>,
    c_zero: Constant<Bits<CW>>,
    c_one: Constant<Bits<CW>>,
    c_last: Constant<Bits<CW>>,
    c_zero_w: Constant<Bits<W>>,
    do_push: Signal<Local, Bit>,
    do_pop: Signal<Local, Bit>,
    head: Signal<Local, Bits<W>>,
}

impl<const W: usize, const D: usize, const CW: usize> Default for RegFifo<W, D, CW> {
    fn default() -> Self {
        assert!(
            D >= 2 && (D as u64) < (1u64 << CW),
            "RegFifo: depth {D} needs a wider count than {CW} bits"
        );
        RegFifo {
            clock: Default::default(),
            push: Default::default(),
            din: Default::default(),
            full: Default::default(),
            pop: Default::default(),
            valid: Default::default(),
            dout: Default::default(),
            flush: Default::default(),
            slot: core::array::from_fn(|_| Default::default()),
            cnt: Default::default(),
            rp: Default::default(),
            wp: Default::default(),
            c_idx: core::array::from_fn(|i| Constant::new((i as u64).into())),
            c_depth: Constant::new((D as u64).into()),
            c_zero: Constant::new(0u64.into()),
            c_one: Constant::new(1u64.into()),
            c_last: Constant::new(((D - 1) as u64).into()),
            c_zero_w: Constant::new(0u64.into()),
            do_push: Default::default(),
            do_pop: Default::default(),
            head: Default::default(),
        }
    }
}

impl<const W: usize, const D: usize, const CW: usize> Logic for RegFifo<W, D, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..D {
            self.slot[i].clock.next = self.clock.val();
            self.slot[i].d.next = self.slot[i].q.val();
        }
        self.cnt.clock.next = self.clock.val();
        self.cnt.d.next = self.cnt.q.val();
        self.rp.clock.next = self.clock.val();
        self.rp.d.next = self.rp.q.val();
        self.wp.clock.next = self.clock.val();
        self.wp.d.next = self.wp.q.val();
        // defaults first
        self.do_pop.next = self.pop.val() & (self.cnt.q.val() != self.c_zero.val());
        self.do_push.next = self.push.val() & (self.cnt.q.val() != self.c_depth.val());
        if self.do_pop.val() {
            self.rp.d.next = self.rp.q.val() + self.c_one.val();
            if self.rp.q.val() == self.c_last.val() {
                self.rp.d.next = self.c_zero.val();
            }
        }
        if self.do_push.val() {
            for i in 0..D {
                if self.wp.q.val() == self.c_idx[i].val() {
                    self.slot[i].d.next = self.din.val();
                }
            }
            self.wp.d.next = self.wp.q.val() + self.c_one.val();
            if self.wp.q.val() == self.c_last.val() {
                self.wp.d.next = self.c_zero.val();
            }
        }
        if self.do_push.val() & !self.do_pop.val() {
            self.cnt.d.next = self.cnt.q.val() + self.c_one.val();
        }
        if self.do_pop.val() & !self.do_push.val() {
            self.cnt.d.next = self.cnt.q.val() - self.c_one.val();
        }
        if self.flush.val() {
            self.cnt.d.next = self.c_zero.val();
            self.rp.d.next = self.c_zero.val();
            self.wp.d.next = self.c_zero.val();
        }
        // the head: slots selected by the read pointer, ORed (one slot matches)
        self.head.next = self.c_zero_w.val();
        for i in 0..D {
            if self.rp.q.val() == self.c_idx[i].val() {
                self.head.next = self.head.val() | self.slot[i].q.val();
            }
        }
        self.valid.next = self.cnt.q.val() != self.c_zero.val();
        self.full.next = self.cnt.q.val() == self.c_depth.val();
        self.dout.next = self.head.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{Bench, Rng, Stepper};
    use std::collections::VecDeque;

    #[test]
    fn reg_fifo_matches_a_queue() {
        let mut b = Bench::new(RegFifo::<12, 4, 3>::default(), |u| &mut u.clock);
        let mut rng = Rng::new(7);
        let mut model: VecDeque<u64> = VecDeque::new();
        let mut next = 1u64;
        for cyc in 0..3000 {
            let push = rng.percent(55);
            let pop = rng.percent(45);
            let flush = rng.percent(1);
            b.uut().push.next = push;
            b.uut().din.next = next.into();
            b.uut().pop.next = pop;
            b.uut().flush.next = flush;
            b.settle();
            assert_eq!(b.uut().valid.val(), !model.is_empty(), "cycle {cyc}");
            assert_eq!(b.uut().full.val(), model.len() == 4, "cycle {cyc}");
            if let Some(h) = model.front() {
                assert_eq!(b.uut().dout.val().to_u64(), *h, "cycle {cyc}");
            }
            let can_push = model.len() < 4;
            if pop {
                model.pop_front();
            }
            if push && can_push {
                model.push_back(next);
                next = (next + 1) & 0xFFF;
            }
            if flush {
                model.clear();
            }
            b.tick();
        }
    }

    #[test]
    fn reg_fifo_synthesises() {
        let mut uut = RegFifo::<34, 8, 4>::default();
        crate::csr::synth_check(&mut uut, "csr_fifo");
    }
}
