//! `IcrcFront`: the frame-geometry tracker and CRC datapath shared by [`super::IcrcChecker`] and
//! [`super::IcrcGenerator`].
//!
//! Why one shared block: both ends need exactly the same position bookkeeping (EtherType/VLAN,
//! L3 kind, length field, span end, per-byte masks) and the same CRC; only what they do with
//! the result differs. It observes a stream (it never back-pressures): the parent drives
//! `fire` high on every beat that transfers, with that beat's `data/keep/last`.
//!
//! Inputs: `clock`, `fire`, `data`, `keep`, `last`.
//! Combinational outputs, describing the current (firing) beat: `crc_next` (register after
//! absorbing it), `cur_kind`, `cur_end_valid`, `cur_end` (frame offset one past the ICRC),
//! `cur_base` (frame offset of the beat's first byte), `truncated` (meaningful on the last beat:
//! the frame ended before `cur_end`, or before the length field).
//! Registered outputs, describing the frame up to the last beat that fired (they stay valid
//! after the last beat until the next frame's first beat fires): `kind`, `end_valid`, `span_end`,
//! `crc`.
//!
//! Mode (constructor argument): `exclude_icrc = true` stops the CRC at `end - 4` (generator);
//! `false` runs it through the ICRC (checker, residue test).
use super::{
    l3_start, lanes, length_field, variant_or, Crc32Step, COMBOS, KIND_IPV4, KIND_IPV6,
    KIND_ROCEV1, NHB,
};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IcrcFront<const B: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub fire: Signal<In, Bit>,
    pub data: Signal<In, Bits<B>>,
    pub keep: Signal<In, Bits<K>>,
    pub last: Signal<In, Bit>,

    pub crc_next: Signal<Out, Bits<32>>,
    pub cur_kind: Signal<Out, Bits<2>>,
    pub cur_end_valid: Signal<Out, Bit>,
    pub cur_end: Signal<Out, Bits<16>>,
    pub cur_base: Signal<Out, Bits<16>>,
    pub truncated: Signal<Out, Bit>,
    pub kind: Signal<Out, Bits<2>>,
    pub end_valid: Signal<Out, Bit>,
    pub span_end: Signal<Out, Bits<16>>,
    pub crc: Signal<Out, Bits<32>>,

    step: Crc32Step<B, K>,

    // frame state (registered)
    r_mid: DFF<Bit>,
    r_beat: DFF<Bits<4>>,
    r_base: DFF<Bits<16>>,
    r_vlan: DFF<Bit>,
    r_kind: DFF<Bits<2>>,
    r_end: DFF<Bits<16>>,
    r_endv: DFF<Bit>,
    r_crc: DFF<Bits<32>>,

    // constants
    c_k16: Constant<Bits<16>>,
    c_k8: Constant<Bits<8>>,
    c_sub: Constant<Bits<16>>,
    c_et1_beat: Constant<Bits<4>>,
    c_et1_off: Constant<Bits<16>>,
    c_et2_beat: Constant<Bits<4>>,
    c_et2_off: Constant<Bits<16>>,
    c_ones: Constant<Bits<B>>,
    c_zero: Constant<Bits<B>>,
    c_beat_max: Constant<Bits<4>>,
    c_one4: Constant<Bits<4>>,
    c_idx: [Constant<Bits<4>>; NHB],
    cc_kind: [Constant<Bits<2>>; 6],
    cc_vlan: [Constant<Bit>; 6],
    cc_len_beat: [Constant<Bits<4>>; 6],
    cc_len_off: [Constant<Bits<16>>; 6],
    cc_len_add: [Constant<Bits<16>>; 6],
    t_and_n: [Constant<Bits<B>>; NHB],
    t_and_v: [Constant<Bits<B>>; NHB],
    t_lrh_n: [Constant<Bits<B>>; NHB],
    t_lrh_v: [Constant<Bits<B>>; NHB],
    t_var_4n: [Constant<Bits<B>>; NHB],
    t_var_4v: [Constant<Bits<B>>; NHB],
    t_var_6n: [Constant<Bits<B>>; NHB],
    t_var_6v: [Constant<Bits<B>>; NHB],
    t_var_1n: [Constant<Bits<B>>; NHB],
    t_var_1v: [Constant<Bits<B>>; NHB],

    // combinational locals
    s_beat: Signal<Local, Bits<4>>,
    s_base: Signal<Local, Bits<16>>,
    s_state: Signal<Local, Bits<32>>,
    f_et1: Signal<Local, Bits<16>>,
    f_et2: Signal<Local, Bits<16>>,
    f_et: Signal<Local, Bits<16>>,
    et_here: Signal<Local, Bit>,
    c_vlan: Signal<Local, Bit>,
    c_kind: Signal<Local, Bits<2>>,
    c_end: Signal<Local, Bits<16>>,
    c_endv: Signal<Local, Bit>,
    c_cend: Signal<Local, Bits<16>>,
    len_hit: Signal<Local, Bit>,
    len_f: Signal<Local, Bits<16>>,
    len_add: Signal<Local, Bits<16>>,
    diff: Signal<Local, Bits<16>>,
    diff2: Signal<Local, Bits<16>>,
    n: Signal<Local, Bits<8>>,
    and_w: Signal<Local, Bits<B>>,
    lrh_w: Signal<Local, Bits<B>>,
    var_w: Signal<Local, Bits<B>>,
    trunc: Signal<Local, Bit>,
}

fn k16(x: usize) -> Constant<Bits<16>> {
    Constant::new((x as u64).into())
}

fn k4(x: usize) -> Constant<Bits<4>> {
    assert!(x < 16);
    Constant::new((x as u64).into())
}

impl<const B: usize, const K: usize> IcrcFront<B, K> {
    /// `exclude_icrc`: stop the CRC at `end - 4` (generator) instead of at `end` (checker).
    pub fn new(exclude_icrc: bool) -> Self {
        assert!(
            B == 8 * K && (8..=64).contains(&K) && K.is_power_of_two(),
            "IcrcFront: B = 8*K, K in 8..=64"
        );
        // Offset (in Bits<B> numbering) of the 16-bit field at frame byte `p` (p even).
        let off = |p: usize| B - 8 * (p % K) - 16;
        // the last table entry (NHB-1) is where the beat index saturates: it must be plain
        let beat = |p: usize| {
            assert!(p / K < NHB - 1);
            p / K
        };
        let and_t = |vlan: bool| -> [Constant<Bits<B>>; NHB] {
            std::array::from_fn(|b| {
                Constant::new(lanes::<B>(|j| {
                    if b * K + j < l3_start(vlan) {
                        0
                    } else {
                        0xFF
                    }
                }))
            })
        };
        let lrh_t = |vlan: bool| -> [Constant<Bits<B>>; NHB] {
            let l3 = l3_start(vlan);
            std::array::from_fn(|b| {
                Constant::new(lanes::<B>(|j| {
                    if (l3 - 4..l3).contains(&(b * K + j)) {
                        0xFF
                    } else {
                        0
                    }
                }))
            })
        };
        let var_t = |kind: u64, vlan: bool| -> [Constant<Bits<B>>; NHB] {
            let l3 = l3_start(vlan);
            std::array::from_fn(|b| {
                Constant::new(lanes::<B>(|j| {
                    let p = b * K + j;
                    if p >= l3 {
                        variant_or(kind, p - l3)
                    } else {
                        0
                    }
                }))
            })
        };
        // every masked byte must lie inside the tables
        assert!(l3_start(true) + 53 < (NHB - 1) * K);
        Self {
            clock: Default::default(),
            fire: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            crc_next: Default::default(),
            cur_kind: Default::default(),
            cur_end_valid: Default::default(),
            cur_end: Default::default(),
            cur_base: Default::default(),
            truncated: Default::default(),
            kind: Default::default(),
            end_valid: Default::default(),
            span_end: Default::default(),
            crc: Default::default(),
            step: Default::default(),
            r_mid: Default::default(),
            r_beat: Default::default(),
            r_base: Default::default(),
            r_vlan: Default::default(),
            r_kind: Default::default(),
            r_end: Default::default(),
            r_endv: Default::default(),
            r_crc: Default::default(),
            c_k16: k16(K),
            c_k8: Constant::new((K as u64).into()),
            c_sub: k16(if exclude_icrc { 4 } else { 0 }),
            c_et1_beat: k4(beat(12)),
            c_et1_off: k16(off(12)),
            c_et2_beat: k4(beat(16)),
            c_et2_off: k16(off(16)),
            c_ones: Constant::new(lanes::<B>(|_| 0xFF)),
            c_zero: Constant::new(Bits::default()),
            c_beat_max: k4(NHB - 1),
            c_one4: k4(1),
            c_idx: std::array::from_fn(k4),
            cc_kind: std::array::from_fn(|c| Constant::new(COMBOS[c].0.into())),
            cc_vlan: std::array::from_fn(|c| Constant::new(COMBOS[c].1)),
            cc_len_beat: std::array::from_fn(|c| {
                let (kind, vlan) = COMBOS[c];
                k4(beat(length_field(kind, vlan).0))
            }),
            cc_len_off: std::array::from_fn(|c| {
                let (kind, vlan) = COMBOS[c];
                k16(off(length_field(kind, vlan).0))
            }),
            cc_len_add: std::array::from_fn(|c| {
                let (kind, vlan) = COMBOS[c];
                k16(length_field(kind, vlan).1)
            }),
            t_and_n: and_t(false),
            t_and_v: and_t(true),
            t_lrh_n: lrh_t(false),
            t_lrh_v: lrh_t(true),
            t_var_4n: var_t(KIND_IPV4, false),
            t_var_4v: var_t(KIND_IPV4, true),
            t_var_6n: var_t(KIND_IPV6, false),
            t_var_6v: var_t(KIND_IPV6, true),
            t_var_1n: var_t(KIND_ROCEV1, false),
            t_var_1v: var_t(KIND_ROCEV1, true),
            s_beat: Default::default(),
            s_base: Default::default(),
            s_state: Default::default(),
            f_et1: Default::default(),
            f_et2: Default::default(),
            f_et: Default::default(),
            et_here: Default::default(),
            c_vlan: Default::default(),
            c_kind: Default::default(),
            c_end: Default::default(),
            c_endv: Default::default(),
            c_cend: Default::default(),
            len_hit: Default::default(),
            len_f: Default::default(),
            len_add: Default::default(),
            diff: Default::default(),
            diff2: Default::default(),
            n: Default::default(),
            and_w: Default::default(),
            lrh_w: Default::default(),
            var_w: Default::default(),
            trunc: Default::default(),
        }
    }
}

// The nested `if` around `keep.get_bit(..)` guards the index in Rust (`&` does not
// short-circuit), so it must not be collapsed.
#[allow(clippy::collapsible_if)]
impl<const B: usize, const K: usize> Logic for IcrcFront<B, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_mid, r_beat, r_base, r_vlan, r_kind, r_end, r_endv, r_crc);
        // --- the frame so far, or a fresh frame at its first beat -------------------------
        // (every Local below is written before it is read: Rust and Verilog then agree)
        self.s_beat.next = self.r_beat.q.val();
        self.s_base.next = self.r_base.q.val();
        self.s_state.next = self.r_crc.q.val();
        self.c_kind.next = self.r_kind.q.val();
        self.c_end.next = self.r_end.q.val();
        self.c_endv.next = self.r_endv.q.val();
        self.c_vlan.next = self.r_vlan.q.val();
        if !self.r_mid.q.val() {
            self.s_beat.next = 0.into();
            self.s_base.next = 0.into();
            self.s_state.next = 0.into();
            self.c_kind.next = 0.into();
            self.c_end.next = 0.into();
            self.c_endv.next = false;
            self.c_vlan.next = false;
        }
        // --- EtherType, 802.1Q tag, L3 kind ------------------------------------------------
        self.f_et1.next = self.data.val().get_bits::<16>(self.c_et1_off.val().index());
        self.f_et2.next = self.data.val().get_bits::<16>(self.c_et2_off.val().index());
        if self.s_beat.val() == self.c_et1_beat.val() {
            self.c_vlan.next = self.f_et1.val() == 0x8100;
        }
        self.f_et.next = self.f_et1.val();
        self.et_here.next = (self.s_beat.val() == self.c_et1_beat.val()) & !self.c_vlan.val();
        if self.c_vlan.val() {
            self.f_et.next = self.f_et2.val();
            self.et_here.next = self.s_beat.val() == self.c_et2_beat.val();
        }
        if self.et_here.val() {
            if self.f_et.val() == 0x0800 {
                self.c_kind.next = 1.into();
            } else if self.f_et.val() == 0x86DD {
                self.c_kind.next = 2.into();
            } else if self.f_et.val() == 0x8915 {
                self.c_kind.next = 3.into();
            } else {
                self.c_kind.next = 0.into();
            }
        }
        // --- length field -> end of the ICRC ----------------------------------------------
        // (select the field and the constant first: one adder instead of six)
        self.len_hit.next = false;
        self.len_f.next = 0.into();
        self.len_add.next = 0.into();
        for c in 0..6 {
            if (self.c_kind.val() == self.cc_kind[c].val())
                & (self.c_vlan.val() == self.cc_vlan[c].val())
                & (self.s_beat.val() == self.cc_len_beat[c].val())
            {
                self.len_hit.next = true;
                self.len_f.next = self
                    .data
                    .val()
                    .get_bits::<16>(self.cc_len_off[c].val().index());
                self.len_add.next = self.cc_len_add[c].val();
            }
        }
        if self.len_hit.val() {
            self.c_end.next = self.len_f.val() + self.len_add.val();
            self.c_endv.next = true;
        }
        self.c_cend.next = self.c_end.val() - self.c_sub.val();
        // --- bytes of this beat inside the CRC span ---------------------------------------
        self.diff.next = self.c_cend.val() - self.s_base.val();
        self.n.next = self.c_k8.val();
        if self.c_endv.val() {
            if self.c_cend.val() > self.s_base.val() {
                if self.diff.val() < self.c_k16.val() {
                    self.n.next = bit_cast::<8, 16>(self.diff.val());
                }
            } else {
                self.n.next = 0.into();
            }
        }
        // --- position masks: zero before L3-4, 0xFF over [L3-4, L3), variant fields -------
        self.and_w.next = self.c_ones.val();
        self.lrh_w.next = self.c_zero.val();
        self.var_w.next = self.c_zero.val();
        for b in 0..NHB {
            if self.s_beat.val() == self.c_idx[b].val() {
                if self.c_vlan.val() {
                    self.and_w.next = self.t_and_v[b].val();
                    self.lrh_w.next = self.t_lrh_v[b].val();
                    if self.c_kind.val() == 1 {
                        self.var_w.next = self.t_var_4v[b].val();
                    } else if self.c_kind.val() == 2 {
                        self.var_w.next = self.t_var_6v[b].val();
                    } else if self.c_kind.val() == 3 {
                        self.var_w.next = self.t_var_1v[b].val();
                    }
                } else {
                    self.and_w.next = self.t_and_n[b].val();
                    self.lrh_w.next = self.t_lrh_n[b].val();
                    if self.c_kind.val() == 1 {
                        self.var_w.next = self.t_var_4n[b].val();
                    } else if self.c_kind.val() == 2 {
                        self.var_w.next = self.t_var_6n[b].val();
                    } else if self.c_kind.val() == 3 {
                        self.var_w.next = self.t_var_1n[b].val();
                    }
                }
            }
        }
        self.step.state.next = self.s_state.val();
        self.step.data.next =
            ((self.data.val() & self.and_w.val()) | self.lrh_w.val()) | self.var_w.val();
        self.step.count.next = self.n.val();
        // --- truncation: on the last beat, is byte end-1 present? --------------------------
        self.trunc.next = false;
        self.diff2.next = self.c_end.val() - self.s_base.val();
        if self.last.val() {
            if !self.c_endv.val() {
                self.trunc.next = true;
            } else if self.c_end.val() > self.s_base.val() {
                if self.diff2.val() > self.c_k16.val() {
                    self.trunc.next = true;
                } else if self.diff2.val() != 0 {
                    if !self
                        .keep
                        .val()
                        .get_bit((self.c_k16.val() - self.diff2.val()).index())
                    {
                        self.trunc.next = true;
                    }
                }
            }
        }
        // --- outputs ------------------------------------------------------------------------
        self.crc_next.next = self.step.crc.val();
        self.cur_kind.next = self.c_kind.val();
        self.cur_end_valid.next = self.c_endv.val();
        self.cur_end.next = self.c_end.val();
        self.cur_base.next = self.s_base.val();
        self.truncated.next = self.trunc.val();
        self.kind.next = self.r_kind.q.val();
        self.end_valid.next = self.r_endv.q.val();
        self.span_end.next = self.r_end.q.val();
        self.crc.next = self.r_crc.q.val();
        // --- advance on a transfer ---------------------------------------------------------
        if self.fire.val() {
            self.r_mid.d.next = !self.last.val();
            if self.s_beat.val() != self.c_beat_max.val() {
                self.r_beat.d.next = self.s_beat.val() + self.c_one4.val();
            }
            self.r_base.d.next = self.s_base.val() + self.c_k16.val();
            self.r_vlan.d.next = self.c_vlan.val();
            self.r_kind.d.next = self.c_kind.val();
            self.r_end.d.next = self.c_end.val();
            self.r_endv.d.next = self.c_endv.val();
            self.r_crc.d.next = self.step.crc.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthesis check (rust-hdl style): the front end alone elaborates in Yosys without
    /// latches or undriven wires, in both modes (its behaviour is tested through the checker
    /// and generator in `tests/icrc.rs`).
    #[test]
    fn icrc_front_synthesises() {
        for mode in [false, true] {
            let mut uut = IcrcFront::<64, 8>::new(mode);
            uut.connect_all();
            ferroce_testkit::yosys_check(&format!("icrc_front_{mode}"), &generate_verilog(&uut));
        }
    }
}
