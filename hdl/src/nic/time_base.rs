//! [`TimeBase`]: the NIC's timer tick, one pulse every 1.024 us of core clock (the transport
//! timers), or every 1 us ([`TimeBase::microsecond`], the congestion-control timers): one
//! divider, [`TimeBase::every_ns`], parametrised by its period.
//!
//! Every transport timer counts these ticks: the local ACK timeout (4.096 us x 2^timeout = 4
//! ticks << timeout) and the RNR wait (the NAK's 10 us units, taken as 10 ticks = 10.24 us:
//! never shorter than the peer asked, IBA gives minimums). 1.024 us rather than 1 us keeps the
//! ACK timeout exact with a shift.
//!
//! # Ports
//! * `tick`: high for one cycle every `cycles_per_tick` cycles.
use rust_hdl::prelude::*;

/// Counter width: up to 65,535 cycles per tick (a 64 GHz clock).
const DIV_W: usize = 16;

#[derive(LogicBlock)]
pub struct TimeBase {
    pub clock: Signal<In, Clock>,
    pub tick: Signal<Out, Bit>,
    count: DFF<Bits<DIV_W>>,
    /// cycles per tick minus one
    c_last: Constant<Bits<DIV_W>>,
}

impl TimeBase {
    /// A tick every `period_ns` nanoseconds of a core clock of `clock_khz`, rounded to whole
    /// cycles ([`TimeBase::cycles_per`]). The one constructor; [`TimeBase::new`] and
    /// [`TimeBase::microsecond`] are its two uses in the NIC.
    pub fn every_ns(clock_khz: u32, period_ns: u64) -> TimeBase {
        let cycles = Self::cycles_per(clock_khz, period_ns);
        assert!(
            cycles <= 1 << DIV_W,
            "TimeBase: clock too fast for the divider"
        );
        TimeBase {
            clock: Default::default(),
            tick: Default::default(),
            count: Default::default(),
            c_last: Constant::new((cycles - 1).into()),
        }
    }

    /// Cycles of a `clock_khz` clock in `period_ns` nanoseconds, rounded to the nearest whole
    /// cycle, at least 1.
    pub fn cycles_per(clock_khz: u32, period_ns: u64) -> u64 {
        ((clock_khz as u64 * period_ns + 500_000) / 1_000_000).max(1)
    }

    /// The transport time base for a core clock of `clock_khz` (`ID_CLOCK_KHZ`): 1.024 us
    /// rounded to whole cycles (128 at 125 MHz, 256 at 250 MHz).
    pub fn new(clock_khz: u32) -> TimeBase {
        Self::every_ns(clock_khz, 1024)
    }

    /// A 1 us time base for a core clock of `clock_khz`: `clock_khz / 1000` cycles, rounded
    /// (exact when the clock is a whole number of MHz: 125 cycles at 125 MHz, 250 at 250 MHz;
    /// 156 at 156.25 MHz, a 0.9984 us tick). The DCQCN timers count microseconds.
    pub fn microsecond(clock_khz: u32) -> TimeBase {
        Self::every_ns(clock_khz, 1000)
    }

    /// Cycles per tick of [`TimeBase::microsecond`].
    pub fn cycles_per_us(clock_khz: u32) -> u64 {
        Self::cycles_per(clock_khz, 1000)
    }

    /// Cycles per tick of a time base built for `clock_khz` ([`TimeBase::new`]).
    pub fn cycles_per_tick(clock_khz: u32) -> u64 {
        Self::cycles_per(clock_khz, 1024)
    }
}

impl Logic for TimeBase {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        self.tick.next = false;
        self.count.d.next = self.count.q.val() + 1;
        if self.count.q.val() == self.c_last.val() {
            self.count.d.next = 0.into();
            self.tick.next = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{Bench, Stepper};

    /// Ticks of `b` over `n` periods: exactly `n`, each `period` cycles apart.
    fn check_period(mut b: Bench<TimeBase>, period: u64, n: usize, what: &str) {
        let mut ticks = vec![];
        for c in 0..(period * n as u64) {
            b.settle();
            if b.uut().tick.val() {
                ticks.push(c);
            }
            b.tick();
        }
        assert_eq!(ticks.len(), n, "{what}");
        assert!(
            ticks.windows(2).all(|w| w[1] - w[0] == period),
            "{what}: {ticks:?}"
        );
    }

    #[test]
    fn ticks_every_1024_ns_of_clock() {
        for (khz, period) in [(125_000u32, 128u64), (250_000, 256), (156_250, 160)] {
            assert_eq!(TimeBase::cycles_per_tick(khz), period);
            let b = Bench::new(TimeBase::new(khz), |u: &mut TimeBase| &mut u.clock);
            check_period(b, period, 5, &format!("{khz} kHz"));
        }
    }

    #[test]
    fn microsecond_ticks_every_clock_mhz_cycles() {
        for (khz, period) in [(125_000u32, 125u64), (250_000, 250), (156_250, 156)] {
            assert_eq!(TimeBase::cycles_per_us(khz), period);
            let b = Bench::new(TimeBase::microsecond(khz), |u: &mut TimeBase| &mut u.clock);
            check_period(b, period, 4, &format!("{khz} kHz, 1 us"));
        }
    }

    #[test]
    fn synthesizes() {
        crate::csr::synth_check(&mut TimeBase::new(250_000), "time_base");
    }
}
