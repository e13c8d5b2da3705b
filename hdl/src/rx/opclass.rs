//! `OpClass`: is a BTH opcode known to this NIC, and which payload rule applies to it.
//!
//! The hardware twin of [`super::model::opcode_class`] (combinational). Ports: `opcode` in;
//! `known` out; `pclass` out: [`CLASS_NONE`] (no payload allowed), [`CLASS_FULL`]
//! (FIRST/MIDDLE: one PMTU), [`CLASS_LAST`] (1..=4096), [`CLASS_ONLY`] (0..=4096).
//! Extension headers are decoded separately by [`crate::header::ExtDecode`].
use rust_hdl::prelude::*;

/// `class`: no payload allowed.
pub const CLASS_NONE: u64 = 0;
/// `class`: FIRST/MIDDLE, exactly one PMTU (a non-zero multiple of 256, PadCnt 0).
pub const CLASS_FULL: u64 = 1;
/// `class`: LAST, at least one byte.
pub const CLASS_LAST: u64 = 2;
/// `class`: ONLY, any length up to 4096.
pub const CLASS_ONLY: u64 = 3;

#[derive(LogicBlock, Default)]
pub struct OpClass {
    pub opcode: Signal<In, Bits<8>>,
    pub known: Signal<Out, Bit>,
    pub pclass: Signal<Out, Bits<2>>,
    rc_known: Signal<Local, Bit>,
    rc_class: Signal<Local, Bits<2>>,
}

impl Logic for OpClass {
    #[hdl_gen]
    fn update(&mut self) {
        // defaults first
        self.rc_known.next = true;
        self.rc_class.next = 0.into();
        self.known.next = false;
        self.pclass.next = 0.into();
        // RC table on the low five bits (one arm per code, decimal patterns: rust-hdl drops
        // `|` patterns and emits hex patterns verbatim)
        match self.opcode.val().get_bits::<5>(0).index() {
            0 => self.rc_class.next = 1.into(),
            1 => self.rc_class.next = 1.into(),
            6 => self.rc_class.next = 1.into(),
            7 => self.rc_class.next = 1.into(),
            13 => self.rc_class.next = 1.into(),
            14 => self.rc_class.next = 1.into(),
            2 => self.rc_class.next = 2.into(),
            3 => self.rc_class.next = 2.into(),
            8 => self.rc_class.next = 2.into(),
            9 => self.rc_class.next = 2.into(),
            15 => self.rc_class.next = 2.into(),
            22 => self.rc_class.next = 2.into(),
            4 => self.rc_class.next = 3.into(),
            5 => self.rc_class.next = 3.into(),
            10 => self.rc_class.next = 3.into(),
            11 => self.rc_class.next = 3.into(),
            16 => self.rc_class.next = 3.into(),
            23 => self.rc_class.next = 3.into(),
            12 => self.rc_class.next = 0.into(),
            17 => self.rc_class.next = 0.into(),
            18 => self.rc_class.next = 0.into(),
            19 => self.rc_class.next = 0.into(),
            20 => self.rc_class.next = 0.into(),
            _ => self.rc_known.next = false,
        }
        if self.opcode.val().get_bits::<3>(5) == 0 {
            // RC
            self.known.next = self.rc_known.val();
            self.pclass.next = self.rc_class.val();
        }
        if self.opcode.val().get_bits::<3>(5) == 1 {
            // UC: SEND and WRITE only (0x20..=0x2B)
            if self.opcode.val().get_bits::<5>(0) < 12 {
                self.known.next = self.rc_known.val();
                self.pclass.next = self.rc_class.val();
            }
        }
        if (self.opcode.val() == 0x64) | (self.opcode.val() == 0x65) {
            self.known.next = true;
            self.pclass.next = 3.into();
        }
        if self.opcode.val() == 0x81 {
            self.known.next = true;
            self.pclass.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rx::model::{opcode_class, PayClass};

    #[test]
    fn opclass_matches_model() {
        let mut uut = OpClass::default();
        uut.connect_all();
        for op in 0..=255u8 {
            uut.opcode.next = (op as u64).into();
            assert!(simulate(&mut uut, 10));
            let want = opcode_class(op);
            assert_eq!(uut.known.val(), want.is_some(), "opcode {op:#x}");
            if let Some(c) = want {
                let code = match c {
                    PayClass::None => CLASS_NONE,
                    PayClass::Full => CLASS_FULL,
                    PayClass::Last => CLASS_LAST,
                    PayClass::Only => CLASS_ONLY,
                };
                assert_eq!(uut.pclass.val().to_u64(), code, "opcode {op:#x}");
            }
        }
    }

    #[test]
    fn opclass_synthesises() {
        let mut uut = OpClass::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("rx_opclass", &generate_verilog(&uut));
    }
}
