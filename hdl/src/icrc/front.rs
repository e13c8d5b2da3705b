//! `IcrcFront`: the frame-geometry tracker and CRC datapath shared by [`super::IcrcChecker`] and
//! [`super::IcrcGenerator`] (and the RX ingest stage).
//!
//! Why one shared block: both ends need exactly the same position bookkeeping (EtherType/VLAN,
//! L3 kind, length field, span end, per-byte masks) and the same CRC; only what they do with
//! the result differs. It observes a stream (it never back-pressures): the parent drives
//! `fire` high on every beat that transfers, with that beat's `data/keep/last`.
//!
//! **Pipeline** ([`IcrcFront::LATENCY`] = 3 cycles, one beat per cycle, never stalls). In one
//! cycle the chain EtherType -> L3 kind -> length field -> span end -> CRC byte count -> CRC
//! matrix closes at ~32 MHz on ECP5; it is cut into three register stages:
//!
//! 1. *capture*: the beat and its position (beat index, byte offset) are registered with what
//!    can be computed from the raw beat alone: EtherType comparisons, and for each of the six
//!    (kind, VLAN) combinations whether its length field is in this beat, the span end it
//!    would give (`field + constant`), and the CRC span end `cend` (the same minus the excluded
//!    ICRC) turned into that beat's CRC byte count and the difference `cend - base` of the next
//!    beat. Both are exact here because a combination's field sits in a fixed beat whose base
//!    is a constant.
//! 2. *geometry*: VLAN and kind are resolved, the span end is selected, and the CRC byte count
//!    is selected: the hit combination's from stage 1, or the frame's so far from registers
//!    that hold whether `cend > base` for the coming beat and then `cend - base` (K less per
//!    beat: compares with constants only); the position masks are applied;
//!    the masked beat and its byte count are registered. (The register replaces the
//!    `cend - base` subtraction and compares that closed stage 2 at ~90 MHz; frame offsets
//!    are 16-bit, as before, so frames are up to 64 KiB.)
//! 3. *CRC*: the [`Crc32Step`] absorbs the masked beat; the truncation test of a last beat is
//!    computed from the (now registered) frame geometry.
//!
//! Behaviour is unchanged: every output equals what the one-cycle formulation computed for the
//! same beat, three cycles later.
//!
//! Inputs: `clock`, `fire`, `data`, `keep`, `last`.
//! Outputs, all registered, describing the beat that fired `LATENCY` cycles earlier: `o_fire`
//! (that beat transferred), `o_last` (it was a last beat), `o_kind`, `o_end_valid`, `o_end`
//! (frame offset one past the ICRC), `o_base` (frame offset of the beat's first byte),
//! `o_trunc` (meaningful on a last beat: the frame ended before `o_end`, or before the length
//! field), `o_crc` (CRC register after absorbing the beat). Kind, end and CRC describe the frame
//! up to and including that beat, and stay as they are until the next beat comes out.
//!
//! Mode (constructor argument): `exclude_icrc = true` stops the CRC at `end - 4` (generator);
//! `false` runs it through the ICRC (checker, residue test).
use super::{
    l3_start, lanes, length_field, variant_or, Crc32Step, COMBOS, KIND_IPV4, KIND_IPV6,
    KIND_ROCEV1, NHB,
};
use rust_hdl::prelude::*;

/// The (kind, VLAN) combinations that have a length field.
const NC: usize = 6;

#[derive(LogicBlock)]
pub struct IcrcFront<const B: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub fire: Signal<In, Bit>,
    pub data: Signal<In, Bits<B>>,
    pub keep: Signal<In, Bits<K>>,
    pub last: Signal<In, Bit>,

    pub o_fire: Signal<Out, Bit>,
    pub o_last: Signal<Out, Bit>,
    pub o_kind: Signal<Out, Bits<2>>,
    pub o_end_valid: Signal<Out, Bit>,
    pub o_end: Signal<Out, Bits<16>>,
    pub o_base: Signal<Out, Bits<16>>,
    pub o_trunc: Signal<Out, Bit>,
    pub o_crc: Signal<Out, Bits<32>>,

    step: Crc32Step<B, K>,

    // stage 1 state: position in the frame (updated on `fire`)
    p_mid: DFF<Bit>,
    p_beat: DFF<Bits<4>>,
    p_base: DFF<Bits<16>>,
    // stage 1 -> 2 registers (loaded every cycle)
    q1_fire: DFF<Bit>,
    q1_last: DFF<Bit>,
    q1_first: DFF<Bit>,
    q1_data: DFF<Bits<B>>,
    q1_keep: DFF<Bits<K>>,
    q1_beat: DFF<Bits<4>>,
    q1_base: DFF<Bits<16>>,
    q1_at1: DFF<Bit>,
    q1_tag: DFF<Bit>,
    q1_k1: DFF<Bits<2>>,
    q1_at2: DFF<Bit>,
    q1_k2: DFF<Bits<2>>,
    q1_hit: [DFF<Bit>; NC],
    q1_end: [DFF<Bits<16>>; NC],
    q1_nc: [DFF<Bits<8>>; NC],
    q1_dn: [DFF<Bits<16>>; NC],
    q1_pn: [DFF<Bit>; NC],
    // stage 2 state: the frame's geometry after the last beat through stage 2
    r_vlan: DFF<Bit>,
    r_kind: DFF<Bits<2>>,
    r_end: DFF<Bits<16>>,
    r_pos: DFF<Bit>,
    r_d: DFF<Bits<16>>,
    r_endv: DFF<Bit>,
    // stage 2 -> 3 registers (loaded every cycle)
    q2_fire: DFF<Bit>,
    q2_last: DFF<Bit>,
    q2_first: DFF<Bit>,
    q2_md: DFF<Bits<B>>,
    q2_n: DFF<Bits<8>>,
    q2_keep: DFF<Bits<K>>,
    q2_base: DFF<Bits<16>>,
    // stage 3 state and output registers
    r_crc: DFF<Bits<32>>,
    q3_fire: DFF<Bit>,
    q3_last: DFF<Bit>,
    q3_kind: DFF<Bits<2>>,
    q3_endv: DFF<Bit>,
    q3_end: DFF<Bits<16>>,
    q3_base: DFF<Bits<16>>,
    q3_trunc: DFF<Bit>,

    // constants
    c_k16: Constant<Bits<16>>,
    c_k8: Constant<Bits<8>>,
    c_sub: Constant<Bits<16>>,
    c_et1_beat: Constant<Bits<4>>,
    c_et1_off: Constant<Bits<16>>,
    c_et2_beat: Constant<Bits<4>>,
    c_et2_off: Constant<Bits<16>>,
    c_et1_kb: Constant<Bits<16>>,
    c_et2_kb: Constant<Bits<16>>,
    c_ones: Constant<Bits<B>>,
    c_zero: Constant<Bits<B>>,
    c_beat_max: Constant<Bits<4>>,
    c_one4: Constant<Bits<4>>,
    c_idx: [Constant<Bits<4>>; NHB],
    cc_kind: [Constant<Bits<2>>; NC],
    cc_vlan: [Constant<Bit>; NC],
    cc_len_beat: [Constant<Bits<4>>; NC],
    cc_len_off: [Constant<Bits<16>>; NC],
    cc_len_add: [Constant<Bits<16>>; NC],
    cc_len_cadd: [Constant<Bits<16>>; NC],
    cc_len_base: [Constant<Bits<16>>; NC],
    cc_len_next: [Constant<Bits<16>>; NC],
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

    // stage 1 locals
    s_beat: Signal<Local, Bits<4>>,
    s_base: Signal<Local, Bits<16>>,
    f_et1: Signal<Local, Bits<16>>,
    f_et2: Signal<Local, Bits<16>>,
    has_et1: Signal<Local, Bit>,
    has_et2: Signal<Local, Bit>,
    f_len: [Signal<Local, Bits<16>>; NC],
    f_cend: [Signal<Local, Bits<16>>; NC],
    f_e: [Signal<Local, Bits<16>>; NC],
    // stage 2 locals
    b_endv: Signal<Local, Bit>,
    c_vlan: Signal<Local, Bit>,
    c_kind: Signal<Local, Bits<2>>,
    c_end: Signal<Local, Bits<16>>,
    c_pos: Signal<Local, Bit>,
    c_d: Signal<Local, Bits<16>>,
    c_endv: Signal<Local, Bit>,
    et_here: Signal<Local, Bit>,
    et_code: Signal<Local, Bits<2>>,
    m_hit: [Signal<Local, Bit>; NC],
    n: Signal<Local, Bits<8>>,
    and_w: Signal<Local, Bits<B>>,
    lrh_w: Signal<Local, Bits<B>>,
    var_w: Signal<Local, Bits<B>>,
    // stage 3 locals
    s_state: Signal<Local, Bits<32>>,
    diff2: Signal<Local, Bits<16>>,
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
    /// Cycles from a beat's `fire` to the outputs describing it.
    pub const LATENCY: usize = 3;

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
        let sub = if exclude_icrc { 4 } else { 0 };
        Self {
            clock: Default::default(),
            fire: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            o_fire: Default::default(),
            o_last: Default::default(),
            o_kind: Default::default(),
            o_end_valid: Default::default(),
            o_end: Default::default(),
            o_base: Default::default(),
            o_trunc: Default::default(),
            o_crc: Default::default(),
            step: Default::default(),
            p_mid: Default::default(),
            p_beat: Default::default(),
            p_base: Default::default(),
            q1_fire: Default::default(),
            q1_last: Default::default(),
            q1_first: Default::default(),
            q1_data: Default::default(),
            q1_keep: Default::default(),
            q1_beat: Default::default(),
            q1_base: Default::default(),
            q1_at1: Default::default(),
            q1_tag: Default::default(),
            q1_k1: Default::default(),
            q1_at2: Default::default(),
            q1_k2: Default::default(),
            q1_hit: Default::default(),
            q1_end: Default::default(),
            q1_nc: Default::default(),
            q1_dn: Default::default(),
            q1_pn: Default::default(),
            r_vlan: Default::default(),
            r_kind: Default::default(),
            r_end: Default::default(),
            r_pos: Default::default(),
            r_d: Default::default(),
            r_endv: Default::default(),
            q2_fire: Default::default(),
            q2_last: Default::default(),
            q2_first: Default::default(),
            q2_md: Default::default(),
            q2_n: Default::default(),
            q2_keep: Default::default(),
            q2_base: Default::default(),
            r_crc: Default::default(),
            q3_fire: Default::default(),
            q3_last: Default::default(),
            q3_kind: Default::default(),
            q3_endv: Default::default(),
            q3_end: Default::default(),
            q3_base: Default::default(),
            q3_trunc: Default::default(),
            c_k16: k16(K),
            c_k8: Constant::new((K as u64).into()),
            c_sub: k16(sub),
            c_et1_beat: k4(beat(12)),
            c_et1_off: k16(off(12)),
            c_et2_beat: k4(beat(16)),
            c_et2_off: k16(off(16)),
            // keep bit of the EtherType's second byte (13, or 17 behind a tag)
            c_et1_kb: k16(K - 1 - 13 % K),
            c_et2_kb: k16(K - 1 - 17 % K),
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
            // end - sub, modulo 2^16 like the 16-bit subtraction it replaces
            cc_len_cadd: std::array::from_fn(|c| {
                let (kind, vlan) = COMBOS[c];
                k16((length_field(kind, vlan).1 + 0x1_0000 - sub) & 0xFFFF)
            }),
            // frame offset of the beat holding the length field (that beat's `base`)
            cc_len_base: std::array::from_fn(|c| {
                let (kind, vlan) = COMBOS[c];
                k16(beat(length_field(kind, vlan).0) * K)
            }),
            // ... and of the beat after it
            cc_len_next: std::array::from_fn(|c| {
                let (kind, vlan) = COMBOS[c];
                k16((beat(length_field(kind, vlan).0) + 1) * K)
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
            f_et1: Default::default(),
            f_et2: Default::default(),
            has_et1: Default::default(),
            has_et2: Default::default(),
            f_len: Default::default(),
            f_cend: Default::default(),
            f_e: Default::default(),
            b_endv: Default::default(),
            c_vlan: Default::default(),
            c_kind: Default::default(),
            c_end: Default::default(),
            c_pos: Default::default(),
            c_d: Default::default(),
            c_endv: Default::default(),
            et_here: Default::default(),
            et_code: Default::default(),
            m_hit: Default::default(),
            n: Default::default(),
            and_w: Default::default(),
            lrh_w: Default::default(),
            var_w: Default::default(),
            s_state: Default::default(),
            diff2: Default::default(),
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
        dff_setup!(
            self, clock, p_mid, p_beat, p_base, q1_fire, q1_last, q1_first, q1_data, q1_keep,
            q1_beat, q1_base, q1_at1, q1_tag, q1_k1, q1_at2, q1_k2, r_vlan, r_kind, r_end, r_pos,
            r_d, r_endv, q2_fire, q2_last, q2_first, q2_md, q2_n, q2_keep, q2_base, r_crc, q3_fire,
            q3_last, q3_kind, q3_endv, q3_end, q3_base, q3_trunc
        );
        // (every Local below is written before it is read: Rust and Verilog then agree)
        // ==== stage 1: capture the beat and what the raw beat alone tells ===================
        self.s_beat.next = self.p_beat.q.val();
        self.s_base.next = self.p_base.q.val();
        if !self.p_mid.q.val() {
            self.s_beat.next = 0.into();
            self.s_base.next = 0.into();
        }
        self.f_et1.next = self.data.val().get_bits::<16>(self.c_et1_off.val().index());
        self.f_et2.next = self.data.val().get_bits::<16>(self.c_et2_off.val().index());
        self.q1_fire.d.next = self.fire.val();
        self.q1_last.d.next = self.last.val();
        self.q1_first.d.next = !self.p_mid.q.val();
        self.q1_data.d.next = self.data.val();
        self.q1_keep.d.next = self.keep.val();
        self.q1_beat.d.next = self.s_beat.val();
        self.q1_base.d.next = self.s_base.val();
        self.q1_at1.d.next = self.s_beat.val() == self.c_et1_beat.val();
        // (an EtherType the frame ends before is no EtherType: the lanes past `keep` carry
        // whatever the source left there)
        self.has_et1.next = self.keep.val().get_bit(self.c_et1_kb.val().index());
        self.has_et2.next = self.keep.val().get_bit(self.c_et2_kb.val().index());
        self.q1_tag.d.next = (self.f_et1.val() == 0x8100) & self.has_et1.val();
        self.q1_at2.d.next = self.s_beat.val() == self.c_et2_beat.val();
        self.q1_k1.d.next = 0.into();
        if self.has_et1.val() {
            if self.f_et1.val() == 0x0800 {
                self.q1_k1.d.next = 1.into();
            } else if self.f_et1.val() == 0x86DD {
                self.q1_k1.d.next = 2.into();
            } else if self.f_et1.val() == 0x8915 {
                self.q1_k1.d.next = 3.into();
            }
        }
        self.q1_k2.d.next = 0.into();
        if self.has_et2.val() {
            if self.f_et2.val() == 0x0800 {
                self.q1_k2.d.next = 1.into();
            } else if self.f_et2.val() == 0x86DD {
                self.q1_k2.d.next = 2.into();
            } else if self.f_et2.val() == 0x8915 {
                self.q1_k2.d.next = 3.into();
            }
        }
        for c in 0..NC {
            self.q1_hit[c].clock.next = self.clock.val();
            self.q1_end[c].clock.next = self.clock.val();
            self.q1_nc[c].clock.next = self.clock.val();
            self.q1_dn[c].clock.next = self.clock.val();
            self.q1_pn[c].clock.next = self.clock.val();
            self.f_len[c].next = self
                .data
                .val()
                .get_bits::<16>(self.cc_len_off[c].val().index());
            self.q1_hit[c].d.next = self.s_beat.val() == self.cc_len_beat[c].val();
            self.q1_end[c].d.next = self.f_len[c].val() + self.cc_len_add[c].val();
            // CRC span end `cend` this combination would give, and what it means for the beat
            // holding the field (whose base is a constant when it hits) and for the next one
            self.f_cend[c].next = self.f_len[c].val() + self.cc_len_cadd[c].val();
            self.f_e[c].next = self.f_cend[c].val() - self.cc_len_base[c].val();
            self.q1_nc[c].d.next = 0.into();
            if self.f_cend[c].val() > self.cc_len_base[c].val() {
                self.q1_nc[c].d.next = self.c_k8.val();
                if self.f_e[c].val() < self.c_k16.val() {
                    self.q1_nc[c].d.next = self.f_e[c].val().get_bits::<8>(0);
                }
            }
            self.q1_pn[c].d.next = self.f_cend[c].val() > self.cc_len_next[c].val();
            self.q1_dn[c].d.next = self.f_cend[c].val() - self.cc_len_next[c].val();
        }
        if self.fire.val() {
            self.p_mid.d.next = !self.last.val();
            if self.s_beat.val() != self.c_beat_max.val() {
                self.p_beat.d.next = self.s_beat.val() + self.c_one4.val();
            }
            self.p_base.d.next = self.s_base.val() + self.c_k16.val();
        }
        // ==== stage 2: VLAN, kind, span end, byte count, masks =============================
        // the frame so far, or a fresh frame at its first beat
        self.c_vlan.next = self.r_vlan.q.val();
        self.c_kind.next = self.r_kind.q.val();
        self.c_end.next = self.r_end.q.val();
        self.b_endv.next = self.r_endv.q.val();
        if self.q1_first.q.val() {
            self.c_vlan.next = false;
            self.c_kind.next = 0.into();
            self.c_end.next = 0.into();
            self.b_endv.next = false;
        }
        if self.q1_at1.q.val() {
            self.c_vlan.next = self.q1_tag.q.val();
        }
        self.et_here.next = self.q1_at1.q.val() & !self.c_vlan.val();
        self.et_code.next = self.q1_k1.q.val();
        if self.c_vlan.val() {
            self.et_here.next = self.q1_at2.q.val();
            self.et_code.next = self.q1_k2.q.val();
        }
        if self.et_here.val() {
            self.c_kind.next = self.et_code.val();
        }
        // byte count of this beat inside the CRC span, for the frame's end so far: `r_pos`
        // says `cend > base` for this beat, `r_d` is then `cend - base` ...
        self.n.next = self.c_k8.val();
        if self.b_endv.val() {
            self.n.next = 0.into();
            if self.r_pos.q.val() {
                self.n.next = self.c_k8.val();
                if self.r_d.q.val() < self.c_k16.val() {
                    self.n.next = self.r_d.q.val().get_bits::<8>(0);
                }
            }
        }
        // (the next beat's base is K further on)
        self.c_pos.next = self.r_pos.q.val() & (self.r_d.q.val() > self.c_k16.val());
        self.c_d.next = self.r_d.q.val() - self.c_k16.val();
        self.c_endv.next = self.b_endv.val();
        // ... or for the end this beat's length field gives (counted in stage 1)
        for c in 0..NC {
            self.m_hit[c].next = (self.c_kind.val() == self.cc_kind[c].val())
                & (self.c_vlan.val() == self.cc_vlan[c].val())
                & self.q1_hit[c].q.val();
            if self.m_hit[c].val() {
                self.c_end.next = self.q1_end[c].q.val();
                self.c_pos.next = self.q1_pn[c].q.val();
                self.c_d.next = self.q1_dn[c].q.val();
                self.c_endv.next = true;
                self.n.next = self.q1_nc[c].q.val();
            }
        }
        // position masks: zero before L3-4, 0xFF over [L3-4, L3), variant fields
        self.and_w.next = self.c_ones.val();
        self.lrh_w.next = self.c_zero.val();
        self.var_w.next = self.c_zero.val();
        for b in 0..NHB {
            if self.q1_beat.q.val() == self.c_idx[b].val() {
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
        self.q2_fire.d.next = self.q1_fire.q.val();
        self.q2_last.d.next = self.q1_last.q.val();
        self.q2_first.d.next = self.q1_first.q.val();
        self.q2_md.d.next =
            ((self.q1_data.q.val() & self.and_w.val()) | self.lrh_w.val()) | self.var_w.val();
        self.q2_n.d.next = self.n.val();
        self.q2_keep.d.next = self.q1_keep.q.val();
        self.q2_base.d.next = self.q1_base.q.val();
        if self.q1_fire.q.val() {
            self.r_vlan.d.next = self.c_vlan.val();
            self.r_kind.d.next = self.c_kind.val();
            self.r_end.d.next = self.c_end.val();
            self.r_pos.d.next = self.c_pos.val();
            self.r_d.d.next = self.c_d.val();
            self.r_endv.d.next = self.c_endv.val();
        }
        // ==== stage 3: CRC; truncation of a last beat ======================================
        // (the stage-2 state now describes the frame up to this beat: the next beat, if any,
        // only updates it at the end of this cycle)
        self.s_state.next = self.r_crc.q.val();
        if self.q2_first.q.val() {
            self.s_state.next = 0.into();
        }
        self.step.state.next = self.s_state.val();
        self.step.data.next = self.q2_md.q.val();
        self.step.count.next = self.q2_n.q.val();
        if self.q2_fire.q.val() {
            self.r_crc.d.next = self.step.crc.val();
        }
        // on the last beat, is byte end-1 present?
        self.trunc.next = false;
        self.diff2.next = self.r_end.q.val() - self.q2_base.q.val();
        if self.q2_last.q.val() {
            if !self.r_endv.q.val() {
                self.trunc.next = true;
            } else if self.r_end.q.val() > self.q2_base.q.val() {
                if self.diff2.val() > self.c_k16.val() {
                    self.trunc.next = true;
                } else if self.diff2.val() != 0 {
                    if !self
                        .q2_keep
                        .q
                        .val()
                        .get_bit((self.c_k16.val() - self.diff2.val()).index())
                    {
                        self.trunc.next = true;
                    }
                }
            }
        }
        self.q3_fire.d.next = self.q2_fire.q.val();
        self.q3_last.d.next = self.q2_last.q.val();
        self.q3_kind.d.next = self.r_kind.q.val();
        self.q3_endv.d.next = self.r_endv.q.val();
        self.q3_end.d.next = self.r_end.q.val();
        self.q3_base.d.next = self.q2_base.q.val();
        self.q3_trunc.d.next = self.trunc.val();
        // ==== outputs ========================================================================
        self.o_fire.next = self.q3_fire.q.val();
        self.o_last.next = self.q3_last.q.val();
        self.o_kind.next = self.q3_kind.q.val();
        self.o_end_valid.next = self.q3_endv.q.val();
        self.o_end.next = self.q3_end.q.val();
        self.o_base.next = self.q3_base.q.val();
        self.o_trunc.next = self.q3_trunc.q.val();
        self.o_crc.next = self.r_crc.q.val();
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
