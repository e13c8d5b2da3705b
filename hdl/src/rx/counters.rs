//! `RxCounters`: one saturating 32-bit counter per verdict code (accepted plus every drop
//! reason of [`DropReason`]), counting the `vd_valid` pulses of the RX front end.
//!
//! Ports: `clock`; `valid`, `reason` (in); `accepted`, `bad_icrc`, `truncated`, `length`,
//! `oversize`, `unsupported`, `mac_mismatch`, `bad_opcode` (out, registered).
use super::drop_reason::DropReason;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RxCounters {
    pub clock: Signal<In, Clock>,
    pub valid: Signal<In, Bit>,
    pub reason: Signal<In, DropReason>,
    pub accepted: Signal<Out, Bits<32>>,
    pub bad_icrc: Signal<Out, Bits<32>>,
    pub truncated: Signal<Out, Bits<32>>,
    pub length: Signal<Out, Bits<32>>,
    pub oversize: Signal<Out, Bits<32>>,
    pub unsupported: Signal<Out, Bits<32>>,
    pub mac_mismatch: Signal<Out, Bits<32>>,
    pub bad_opcode: Signal<Out, Bits<32>>,
    c: [DFF<Bits<32>>; 8],
}

impl Logic for RxCounters {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..8 {
            self.c[i].clock.next = self.clock.val();
            self.c[i].d.next = self.c[i].q.val();
        }
        // one arm per code (the index of the DropReason variant)
        if self.valid.val() {
            match self.reason.val() {
                DropReason::Accepted => {
                    if !self.c[0].q.val().all() {
                        self.c[0].d.next = self.c[0].q.val() + 1;
                    }
                }
                DropReason::BadIcrc => {
                    if !self.c[1].q.val().all() {
                        self.c[1].d.next = self.c[1].q.val() + 1;
                    }
                }
                DropReason::Truncated => {
                    if !self.c[2].q.val().all() {
                        self.c[2].d.next = self.c[2].q.val() + 1;
                    }
                }
                DropReason::Length => {
                    if !self.c[3].q.val().all() {
                        self.c[3].d.next = self.c[3].q.val() + 1;
                    }
                }
                DropReason::Oversize => {
                    if !self.c[4].q.val().all() {
                        self.c[4].d.next = self.c[4].q.val() + 1;
                    }
                }
                DropReason::Unsupported => {
                    if !self.c[5].q.val().all() {
                        self.c[5].d.next = self.c[5].q.val() + 1;
                    }
                }
                DropReason::MacMismatch => {
                    if !self.c[6].q.val().all() {
                        self.c[6].d.next = self.c[6].q.val() + 1;
                    }
                }
                DropReason::BadOpcode => {
                    if !self.c[7].q.val().all() {
                        self.c[7].d.next = self.c[7].q.val() + 1;
                    }
                }
            }
        }
        self.accepted.next = self.c[0].q.val();
        self.bad_icrc.next = self.c[1].q.val();
        self.truncated.next = self.c[2].q.val();
        self.length.next = self.c[3].q.val();
        self.oversize.next = self.c[4].q.val();
        self.unsupported.next = self.c[5].q.val();
        self.mac_mismatch.next = self.c[6].q.val();
        self.bad_opcode.next = self.c[7].q.val();
    }
}

impl RxCounters {
    /// Test/driver helper: the counter of `r`.
    pub fn get(&self, r: DropReason) -> u32 {
        self.c[r.code() as usize].q.val().to_u32()
    }

    /// Test helper: preset a counter (to test saturation without 4 billion frames).
    pub fn preset(&mut self, r: DropReason, v: u32) {
        self.c[r.code() as usize].q.next = (v as u64).into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{Bench, Stepper};

    #[test]
    fn counters_count_and_saturate() {
        let mut b = Bench::new(RxCounters::default(), |u| &mut u.clock);
        for r in DropReason::ALL {
            for _ in 0..(r.code() + 1) {
                b.uut().valid.next = true;
                b.uut().reason.next = r;
                b.settle();
                b.tick();
            }
        }
        b.uut().valid.next = false;
        b.settle();
        b.tick();
        for r in DropReason::ALL {
            assert_eq!(b.uut.get(r), r.code() as u32 + 1, "{}", r.name());
        }
        // saturation: preset one counter just below the top
        b.uut().preset(DropReason::Length, 0xFFFF_FFFE);
        b.settle();
        for _ in 0..3 {
            b.uut().valid.next = true;
            b.uut().reason.next = DropReason::Length;
            b.settle();
            b.tick();
        }
        b.uut().valid.next = false;
        b.settle();
        assert_eq!(b.uut.get(DropReason::Length), 0xFFFF_FFFF);
        assert_eq!(b.uut().length.val().to_u32(), 0xFFFF_FFFF);
        assert_eq!(b.uut.get(DropReason::BadIcrc), 2);
    }

    #[test]
    fn rx_counters_synthesises() {
        let mut uut = RxCounters::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("rx_counters", &generate_verilog(&uut));
    }
}
