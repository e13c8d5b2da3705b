//! `TxFrameCore`: descriptor + payload stream -> Ethernet frame with a zero ICRC placeholder
//! (64-bit profile). [`super::TxHeaderBuilder`] puts the ICRC generator behind it.
//!
//! Output frame: headers ‖ payload ‖ PadCnt zero bytes ‖ 4 zero bytes (ICRC placeholder) ‖
//! zero Ethernet padding up to 60 bytes. IPv4 total length, IPv6 payload length, UDP length,
//! GRH PayLen, the IPv4 header checksum and PadCnt are computed here from `payload_len` and the
//! opcode (`pad_cnt` of the descriptor is ignored: PadCnt = (-len)&3, see `crate::header`).
//!
//! # How (and why this shape)
//!
//! *Word-aligned header.* Every RoCE header after Ethernet is a whole number of 32-bit words;
//! only the Ethernet header (14 or 18 bytes) is not. Prepending two virtual bytes makes the
//! whole header a sequence of `NV` 32-bit words (`v0 = {16'h0, DA[47:32]}`, `v1 = DA[31:0]`,
//! ...), and then output beat `i` is always the fixed window `{w[2i][15:0], w[2i+1],
//! w[2i+2][31:16]}`, whatever VLAN, L3 kind and opcode are. So the header lives in a 27-word
//! shift register `q` that moves two words per beat and the output is fixed wiring: no barrel
//! shifter, no per-beat decoder. Building the words is a small mux per word (6 layouts of
//! L3/UDP and 11 of the extension headers), done once per frame.
//!
//! *Two-way realignment.* The header length is `H = 4*NV - 2`, so `H mod 8` is 2 (NV odd) or
//! 6 (NV even): the payload is realigned with a 2:1 mux, `{q0[15:0], P[63:16]}` or
//! `{q0[15:0], q1, P[63:48]}`, the rest of the payload beat stays in `q0/q1` for the next beat.
//! Likewise the covered length `C = H + len + pad` is 2 or 6 mod 8: the last covered beat holds
//! 2 bytes (then the 4-byte placeholder fits in the same beat) or 6 (then one extra beat).
//!
//! *Descriptor side pipeline (Fmax).* Opcode -> header length -> byte counts -> checksum is
//! computed in three registered steps (`s1_*`, `s2_*`, `s3_*`) from the descriptor register `a`
//! while the previous frame streams; `a` is ready 3 cycles after it was accepted and is
//! consumed when its header is loaded into `q`. A frame lasts at least 8 cycles (60 bytes), so
//! one descriptor register suffices for back-to-back frames.
//!
//! *Back-to-back.* The next header is loaded in the cycle the last beat of the previous frame
//! leaves stage 0, so frames follow with no idle cycle: ceil(frame_bytes / 8) cycles each.
//!
//! *Fmax.* The decision that enables ~900 flops (`load`, shift, payload write) is two LUT levels
//! from registers: "this beat ends the frame" (`endf_r`), "last header/payload beat"
//! (`hlast`/`plast`) are registered, `desc_ready` is `!a_v` (not `!a_v | load`), and the output
//! `ready` arrives from a register when the block sits behind a skid buffer (as in
//! [`super::TxHeaderBuilder`]). Measured 79 -> 116 MHz on ECP5 with these.
//!
//! *Payload stream.* The builder consumes exactly ceil(payload_len / 8) beats per frame (none for
//! payload_len 0) and trusts `payload_len`: the payload's `keep` and `last` are not looked at;
//! bytes past `payload_len` in the last beat are replaced by zeros (they become the pad).
//!
//! *Poisoned frames.* `pay_bad`, sampled with every payload beat taken, says that the beat's
//! bytes could not be read from host memory (docs/DMA.md, section 6). One such beat fills the
//! frame's ICRC placeholder with ones instead of zeros; the [`crate::icrc::IcrcGenerator`]
//! XORs the ICRC into it, so the frame leaves with the complement of its ICRC and every
//! receiver drops it (IBTA Vol 1, 7.8.1: a packet with a bad ICRC is silently dropped). The
//! length and timing of the frame do not change.
//!
//! Ports: `clock`; descriptor handshake `desc_valid`/`desc_ready`/`desc`; `pay` (sink) and
//! `pay_bad`; `out` (source, registered).
use crate::header::{ExtDecode, RoceHeader};
use crate::stream::{Sink64, Source64};
use rust_hdl::prelude::*;

/// Stage-0 state: which part of the frame the next output beat comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CoreState {
    /// No frame in progress.
    Idle,
    /// Full header beats from the word register.
    Hdr,
    /// One output beat per payload beat (realigned).
    Pay,
    /// The leftover 2 or 6 bytes after the last payload beat (or after the header).
    Flush,
    /// The extra beat holding the end of the placeholder (and Ethernet padding).
    Tail,
}

/// Header words in the shift register: at most 5 (Ethernet + VLAN, virtual words) + 12 (IPv6 +
/// UDP) + 3 (BTH) + 7 (AtomicETH).
pub const NQ: usize = 27;

#[derive(LogicBlock)]
pub struct TxFrameCore {
    pub clock: Signal<In, Clock>,
    pub desc_valid: Signal<In, Bit>,
    pub desc_ready: Signal<Out, Bit>,
    pub desc: Signal<In, RoceHeader>,
    pub pay: Sink64,
    /// valid with each `pay` beat: the beat's data is bad, poison the frame
    pub pay_bad: Signal<In, Bit>,
    pub out: Source64,

    dec: ExtDecode,
    /// a payload beat of the frame in stage 0 came with `pay_bad`
    bad: DFF<Bit>,
    bad_now: Signal<Local, Bit>,
    // descriptor register and its age (cycles since accepted, saturating at 3 = side pipe done)
    a_v: DFF<Bit>,
    a_h: DFF<RoceHeader>,
    a_age: DFF<Bits<2>>,
    // side pipeline step 1
    s1_ext: DFF<Bits<3>>,
    s1_deth: DFF<Bit>,
    s1_reth: DFF<Bit>,
    s1_atomic: DFF<Bit>,
    s1_aeth: DFF<Bit>,
    s1_ack: DFF<Bit>,
    s1_imm: DFF<Bit>,
    s1_ieth: DFF<Bit>,
    s1_pad: DFF<Bits<2>>,
    s1_lp: DFF<Bits<14>>,
    s1_part: DFF<Bits<19>>,
    s1_nv: DFF<Bits<5>>,
    // step 2
    s2_lib: DFF<Bits<16>>,
    s2_sum: DFF<Bits<20>>,
    s2_c: DFF<Bits<16>>,
    s2_pb: DFF<Bits<11>>,
    s2_hb: DFF<Bits<4>>,
    s2_pmask: DFF<Bits<64>>,
    // step 3
    s3_csum: DFF<Bits<16>>,
    s3_n6: DFF<Bit>,
    s3_flush: DFF<Bit>,
    s3_small: DFF<Bit>,
    // stage 0 (frame engine)
    st: DFF<CoreState>,
    q: [DFF<Bits<32>>; NQ],
    hcnt: DFF<Bits<4>>,
    pcnt: DFF<Bits<11>>,
    // registered `hcnt == 1` / `pcnt == 1` (keeps the counter compare off the load path)
    hlast: DFF<Bit>,
    plast: DFF<Bit>,
    // registered "the current stage-0 beat ends the frame" (Tail, or a 2-byte Flush)
    endf_r: DFF<Bit>,
    e_pbz: DFF<Bit>,
    e_r6: DFF<Bit>,
    e_n6: DFF<Bit>,
    e_flush: DFF<Bit>,
    e_small: DFF<Bit>,
    e_pmask: DFF<Bits<64>>,
    // output register
    o_v: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_keep: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    // constants
    c_ones: Constant<Bits<64>>,
    c_m2: Constant<Bits<64>>,
    c_m6: Constant<Bits<64>>,
    // the placeholder's bytes in a last beat with 2 covered bytes, in one with 6, in Tail
    c_ph2: Constant<Bits<64>>,
    c_ph6: Constant<Bits<64>>,
    c_ph_tail: Constant<Bits<64>>,
    // locals: side pipeline
    l_len: Signal<Local, Bits<13>>,
    l_pad: Signal<Local, Bits<2>>,
    l_s4: Signal<Local, Bits<32>>,
    l_d4: Signal<Local, Bits<32>>,
    l_l3w: Signal<Local, Bits<5>>,
    l_len7: Signal<Local, Bits<14>>,
    l_nvm1: Signal<Local, Bits<5>>,
    l_lo3: Signal<Local, Bits<3>>,
    l_sh: Signal<Local, Bits<7>>,
    l_f1: Signal<Local, Bits<17>>,
    l_f2: Signal<Local, Bits<16>>,
    l_c7: Signal<Local, Bits<16>>,
    l_hbpb: Signal<Local, Bits<13>>,
    // locals: header words
    a_rdy: Signal<Local, Bit>,
    l_v4: Signal<Local, Bit>,
    l_v6: Signal<Local, Bit>,
    l_da: Signal<Local, Bits<48>>,
    l_sa: Signal<Local, Bits<48>>,
    l_s6: Signal<Local, Bits<128>>,
    l_d6: Signal<Local, Bits<128>>,
    l_va: Signal<Local, Bits<64>>,
    l_swap: Signal<Local, Bits<64>>,
    l_cmp: Signal<Local, Bits<64>>,
    l_orig: Signal<Local, Bits<64>>,
    l_et: Signal<Local, Bits<16>>,
    l_tot: Signal<Local, Bits<16>>,
    l_ulen: Signal<Local, Bits<16>>,
    l_ip4: [Signal<Local, Bits<32>>; 7],
    l_ip6: [Signal<Local, Bits<32>>; 12],
    l_grh1: Signal<Local, Bits<32>>,
    l_bx: [Signal<Local, Bits<32>>; 10],
    l_t: [Signal<Local, Bits<32>>; 22],
    // locals: stage 0
    o_free: Signal<Local, Bit>,
    s0_valid: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    endf: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    pre_load: Signal<Local, Bit>,
    st_nx: Signal<Local, CoreState>,
    n6_nx: Signal<Local, Bit>,
    l_win: Signal<Local, Bits<64>>,
    l_p: Signal<Local, Bits<64>>,
    l_beat: Signal<Local, Bits<64>>,
}

impl Default for TxFrameCore {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            desc_valid: Default::default(),
            desc_ready: Default::default(),
            desc: Default::default(),
            pay: Default::default(),
            pay_bad: Default::default(),
            out: Default::default(),
            dec: Default::default(),
            bad: Default::default(),
            bad_now: Default::default(),
            a_v: Default::default(),
            a_h: Default::default(),
            a_age: Default::default(),
            s1_ext: Default::default(),
            s1_deth: Default::default(),
            s1_reth: Default::default(),
            s1_atomic: Default::default(),
            s1_aeth: Default::default(),
            s1_ack: Default::default(),
            s1_imm: Default::default(),
            s1_ieth: Default::default(),
            s1_pad: Default::default(),
            s1_lp: Default::default(),
            s1_part: Default::default(),
            s1_nv: Default::default(),
            s2_lib: Default::default(),
            s2_sum: Default::default(),
            s2_c: Default::default(),
            s2_pb: Default::default(),
            s2_hb: Default::default(),
            s2_pmask: Default::default(),
            s3_csum: Default::default(),
            s3_n6: Default::default(),
            s3_flush: Default::default(),
            s3_small: Default::default(),
            st: Default::default(),
            q: Default::default(),
            hcnt: Default::default(),
            pcnt: Default::default(),
            hlast: Default::default(),
            plast: Default::default(),
            endf_r: Default::default(),
            e_pbz: Default::default(),
            e_r6: Default::default(),
            e_n6: Default::default(),
            e_flush: Default::default(),
            e_small: Default::default(),
            e_pmask: Default::default(),
            o_v: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            c_ones: Constant::new(Bits::<64>::mask()),
            c_m2: Constant::new(0xFFFF_0000_0000_0000u64.into()),
            c_m6: Constant::new(0xFFFF_FFFF_FFFF_0000u64.into()),
            c_ph2: Constant::new(0x0000_FFFF_FFFF_0000u64.into()),
            c_ph6: Constant::new(0x0000_0000_0000_FFFFu64.into()),
            c_ph_tail: Constant::new(0xFFFF_0000_0000_0000u64.into()),
            l_len: Default::default(),
            l_pad: Default::default(),
            l_s4: Default::default(),
            l_d4: Default::default(),
            l_l3w: Default::default(),
            l_len7: Default::default(),
            l_nvm1: Default::default(),
            l_lo3: Default::default(),
            l_sh: Default::default(),
            l_f1: Default::default(),
            l_f2: Default::default(),
            l_c7: Default::default(),
            l_hbpb: Default::default(),
            a_rdy: Default::default(),
            l_v4: Default::default(),
            l_v6: Default::default(),
            l_da: Default::default(),
            l_sa: Default::default(),
            l_s6: Default::default(),
            l_d6: Default::default(),
            l_va: Default::default(),
            l_swap: Default::default(),
            l_cmp: Default::default(),
            l_orig: Default::default(),
            l_et: Default::default(),
            l_tot: Default::default(),
            l_ulen: Default::default(),
            l_ip4: Default::default(),
            l_ip6: Default::default(),
            l_grh1: Default::default(),
            l_bx: Default::default(),
            l_t: Default::default(),
            o_free: Default::default(),
            s0_valid: Default::default(),
            fire: Default::default(),
            fin: Default::default(),
            endf: Default::default(),
            load: Default::default(),
            pre_load: Default::default(),
            st_nx: Default::default(),
            n6_nx: Default::default(),
            l_win: Default::default(),
            l_p: Default::default(),
            l_beat: Default::default(),
        }
    }
}

impl Logic for TxFrameCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, a_v, a_h, a_age, s1_ext, s1_deth, s1_reth, s1_atomic, s1_aeth, s1_ack,
            s1_imm, s1_ieth, s1_pad, s1_lp, s1_part, s1_nv, s2_lib, s2_sum, s2_c, s2_pb, s2_hb,
            s2_pmask, s3_csum, s3_n6, s3_flush, s3_small, st, hcnt, pcnt, hlast, plast, endf_r,
            e_pbz, e_r6, e_n6, e_flush, e_small, e_pmask, o_v, o_data, o_keep, o_last, bad
        );
        for i in 0..NQ {
            self.q[i].clock.next = self.clock.val();
            self.q[i].d.next = self.q[i].q.val();
        }
        // ---------------------------------------------------------------- defaults
        self.l_da.next = 0.into();
        self.l_sa.next = 0.into();
        self.l_s6.next = 0.into();
        self.l_d6.next = 0.into();
        self.l_va.next = 0.into();
        self.l_swap.next = 0.into();
        self.l_cmp.next = 0.into();
        self.l_orig.next = 0.into();
        self.l_et.next = 0.into();
        self.l_tot.next = 0.into();
        self.l_ulen.next = 0.into();
        self.l_grh1.next = 0.into();
        for k in 0..7 {
            self.l_ip4[k].next = 0.into();
        }
        for k in 0..12 {
            self.l_ip6[k].next = 0.into();
        }
        for k in 0..10 {
            self.l_bx[k].next = 0.into();
        }
        for k in 0..22 {
            self.l_t[k].next = 0.into();
        }
        self.l_p.next = 0.into();
        self.l_beat.next = 0.into();
        self.s0_valid.next = false;
        self.fin.next = false;
        self.endf.next = false;
        self.load.next = false;
        self.pre_load.next = false;
        self.st_nx.next = self.st.q.val();
        self.n6_nx.next = self.e_n6.q.val();
        self.l_len.next = 0.into();
        self.l_pad.next = 0.into();
        self.l_s4.next = 0.into();
        self.l_d4.next = 0.into();
        self.l_l3w.next = 0.into();
        self.l_len7.next = 0.into();
        self.l_nvm1.next = 0.into();
        self.l_lo3.next = 0.into();
        self.l_sh.next = 0.into();
        self.l_f1.next = 0.into();
        self.l_f2.next = 0.into();
        self.l_c7.next = 0.into();
        self.l_hbpb.next = 0.into();

        // ---------------------------------------------------------------- side pipeline
        // Runs on the (static while valid) descriptor register for the 3 cycles after it was
        // accepted; the results hold once `a_age` has counted to 3. (Guarded so that the
        // simulation does not re-evaluate it every pass: shifts and slices of narrow `Bits` go
        // through a heap big-integer in rust-hdl.)
        self.dec.opcode.next = self.a_h.q.val().opcode;
        self.l_v4.next = self.a_h.q.val().l3 == 0;
        self.l_v6.next = self.a_h.q.val().l3 == 1;
        if self.a_age.q.val() != 3 {
            self.l_len.next = self.a_h.q.val().payload_len;
            self.l_pad.next = bit_cast::<2, 13>(!self.l_len.val()) + 1;
            self.l_s4.next = self.a_h.q.val().ip4_src;
            self.l_d4.next = self.a_h.q.val().ip4_dst;
            // IPv4+UDP 7 words, IPv6+UDP 12, GRH 10
            self.l_l3w.next = 10.into();
            if self.l_v4.val() {
                self.l_l3w.next = 7.into();
            }
            if self.l_v6.val() {
                self.l_l3w.next = 12.into();
            }
            // step 1: extension headers, pad, len+pad, partial IPv4 checksum, header words
            self.s1_ext.d.next = self.dec.ext_words.val();
            self.s1_deth.d.next = self.dec.deth.val();
            self.s1_reth.d.next = self.dec.reth.val();
            self.s1_atomic.d.next = self.dec.atomic_eth.val();
            self.s1_aeth.d.next = self.dec.aeth.val();
            self.s1_ack.d.next = self.dec.atomic_ack.val();
            self.s1_imm.d.next = self.dec.imm.val();
            self.s1_ieth.d.next = self.dec.ieth.val();
            self.s1_pad.d.next = self.l_pad.val();
            self.s1_lp.d.next =
                bit_cast::<14, 13>(self.l_len.val()) + bit_cast::<14, 2>(self.l_pad.val());
            self.s1_part.d.next = (bit_cast::<19, 8>(self.a_h.q.val().tclass) | 0x4500)
                + bit_cast::<19, 16>(self.a_h.q.val().ip_id)
                + bit_cast::<19, 16>(self.a_h.q.val().ip_frag)
                + ((bit_cast::<19, 8>(self.a_h.q.val().hop_limit) << 8) | 0x11)
                + bit_cast::<19, 16>(self.l_s4.val().get_bits::<16>(16))
                + bit_cast::<19, 16>(self.l_s4.val().get_bits::<16>(0))
                + bit_cast::<19, 16>(self.l_d4.val().get_bits::<16>(16))
                + bit_cast::<19, 16>(self.l_d4.val().get_bits::<16>(0));
            // NV = 4 Ethernet words (+1 VLAN) + L3/UDP words + 3 BTH + extension words
            self.s1_nv.d.next = bit_cast::<5, 3>(self.dec.ext_words.val())
                + bit_cast::<5, 1>(self.a_h.q.val().vlan.into())
                + self.l_l3w.val()
                + 7;
            // step 2: L_ib, IPv4 total length folded into the checksum sum, covered length C,
            // beat counts, last-payload-beat mask
            self.s2_lib.d.next = bit_cast::<16, 14>(self.s1_lp.q.val())
                + (bit_cast::<16, 3>(self.s1_ext.q.val()) << 2)
                + 16;
            self.s2_sum.d.next = bit_cast::<20, 19>(self.s1_part.q.val())
                + bit_cast::<20, 14>(self.s1_lp.q.val())
                + (bit_cast::<20, 3>(self.s1_ext.q.val()) << 2)
                + 44;
            self.s2_c.d.next = (bit_cast::<16, 5>(self.s1_nv.q.val()) << 2)
                + bit_cast::<16, 14>(self.s1_lp.q.val())
                - 2;
            self.l_len7.next = bit_cast::<14, 13>(self.l_len.val()) + 7;
            self.s2_pb.d.next = self.l_len7.val().get_bits::<11>(3);
            self.l_nvm1.next = self.s1_nv.q.val() - 1;
            self.s2_hb.d.next = self.l_nvm1.val().get_bits::<4>(1);
            self.l_lo3.next = self.l_len.val().get_bits::<3>(0);
            self.l_sh.next = bit_cast::<7, 3>(self.l_lo3.val()) << 3;
            self.s2_pmask.d.next = self.c_ones.val();
            if self.l_lo3.val().any() {
                self.s2_pmask.d.next = !(self.c_ones.val() >> self.l_sh.val());
            }
            // step 3: fold and invert the checksum; end-of-frame geometry
            self.l_f1.next = bit_cast::<17, 16>(self.s2_sum.q.val().get_bits::<16>(0))
                + bit_cast::<17, 4>(self.s2_sum.q.val().get_bits::<4>(16));
            self.l_f2.next = self.l_f1.val().get_bits::<16>(0)
                + bit_cast::<16, 1>(self.l_f1.val().get_bits::<1>(16));
            self.s3_csum.d.next = !self.l_f2.val();
            self.s3_n6.d.next = self.s2_c.q.val().get_bit(2);
            self.l_c7.next = self.s2_c.q.val() + 7;
            self.l_hbpb.next =
                bit_cast::<13, 4>(self.s2_hb.q.val()) + bit_cast::<13, 11>(self.s2_pb.q.val());
            self.s3_flush.d.next = self.l_c7.val().get_bits::<13>(3) != self.l_hbpb.val();
            self.s3_small.d.next = self.s2_c.q.val() < 56;
            self.a_age.d.next = self.a_age.q.val() + 1;
        }
        self.a_rdy.next = self.a_v.q.val() & (self.a_age.q.val() == 3);

        // ---------------------------------------------------------------- stage 0
        self.o_free.next = !self.o_v.q.val() | self.out.ready.val();
        // the fixed output window {q0[15:0], q1, q2[31:16]}
        // (narrow slices written as truncating casts and wide shifts: see the side pipeline)
        self.l_win.next = (bit_cast::<64, 16>(bit_cast::<16, 32>(self.q[0].q.val())) << 48)
            | (bit_cast::<64, 32>(self.q[1].q.val()) << 16)
            | (bit_cast::<64, 32>(self.q[2].q.val()) >> 16);
        match self.st.q.val() {
            CoreState::Idle => {}
            CoreState::Hdr => {
                self.s0_valid.next = true;
                self.l_beat.next = self.l_win.val();
            }
            CoreState::Pay => {
                self.s0_valid.next = self.pay.valid.val();
                self.l_p.next = self.pay.data.val();
                if self.plast.q.val() {
                    self.l_p.next = self.pay.data.val() & self.e_pmask.q.val();
                    self.fin.next = !self.e_flush.q.val();
                }
                if self.e_r6.q.val() {
                    self.l_beat.next = (bit_cast::<64, 16>(bit_cast::<16, 32>(self.q[0].q.val()))
                        << 48)
                        | (bit_cast::<64, 32>(self.q[1].q.val()) << 16)
                        | (self.l_p.val() >> 48);
                } else {
                    self.l_beat.next = (bit_cast::<64, 16>(bit_cast::<16, 32>(self.q[0].q.val()))
                        << 48)
                        | (self.l_p.val() >> 16);
                }
            }
            CoreState::Flush => {
                self.s0_valid.next = true;
                self.fin.next = true;
                self.l_beat.next = self.l_win.val();
            }
            CoreState::Tail => {
                self.s0_valid.next = true;
            }
        }
        self.fire.next = self.s0_valid.val() & self.o_free.val();
        // poison: any payload beat of the frame taken with `pay_bad` (this one included);
        // cleared when the next frame's header is loaded (never in a cycle that takes payload)
        self.bad_now.next = self.bad.q.val()
            | ((self.st.q.val() == CoreState::Pay) & self.fire.val() & self.pay_bad.val());
        self.bad.d.next = self.bad_now.val();
        self.pay.ready.next = (self.st.q.val() == CoreState::Pay) & self.o_free.val();
        // a frame ends with Tail or with a 2-byte Flush (+4 placeholder bytes). (A last payload
        // beat without Flush always leaves 6 bytes, since C = 2 mod 4: it is followed by Tail.)
        // Registered, so that `load` and its ~900 enables are two LUT levels from flops.
        self.endf.next = self.endf_r.q.val();
        self.pre_load.next =
            self.a_rdy.val() & ((self.st.q.val() == CoreState::Idle) | self.endf.val());
        // (`endf` implies Tail or Flush, where stage 0 is always valid: `fire` = `o_free`)
        self.load.next =
            self.pre_load.val() & ((self.st.q.val() == CoreState::Idle) | self.o_free.val());

        // ---------------------------------------------------------------- header words
        // Only evaluated when a load may happen this cycle (saves simulation time; in hardware
        // the muxes are there anyway and only feed `q` when `load`).
        if self.pre_load.val() {
            self.l_da.next = self.a_h.q.val().eth_dst;
            self.l_sa.next = self.a_h.q.val().eth_src;
            self.l_s6.next = self.a_h.q.val().ip6_src;
            self.l_d6.next = self.a_h.q.val().ip6_dst;
            self.l_va.next = self.a_h.q.val().va;
            self.l_swap.next = self.a_h.q.val().swap_add;
            self.l_cmp.next = self.a_h.q.val().compare;
            self.l_orig.next = self.a_h.q.val().atomic_orig;
            self.l_et.next = 0x8915.into();
            if self.l_v4.val() {
                self.l_et.next = 0x0800.into();
            }
            if self.l_v6.val() {
                self.l_et.next = 0x86DD.into();
            }
            self.l_tot.next = self.s2_lib.q.val() + 28;
            self.l_ulen.next = self.s2_lib.q.val() + 8;
            // IPv4 (5 words) + UDP (2)
            self.l_ip4[0].next = (bit_cast::<32, 8>(self.a_h.q.val().tclass) << 16)
                | bit_cast::<32, 16>(self.l_tot.val())
                | 0x4500_0000;
            self.l_ip4[1].next = (bit_cast::<32, 16>(self.a_h.q.val().ip_id) << 16)
                | bit_cast::<32, 16>(self.a_h.q.val().ip_frag);
            self.l_ip4[2].next = (bit_cast::<32, 8>(self.a_h.q.val().hop_limit) << 24)
                | bit_cast::<32, 16>(self.s3_csum.q.val())
                | 0x0011_0000;
            self.l_ip4[3].next = self.a_h.q.val().ip4_src;
            self.l_ip4[4].next = self.a_h.q.val().ip4_dst;
            self.l_ip4[5].next = (bit_cast::<32, 16>(self.a_h.q.val().udp_sport) << 16)
                | bit_cast::<32, 16>(self.a_h.q.val().udp_dport);
            self.l_ip4[6].next = (bit_cast::<32, 16>(self.l_ulen.val()) << 16)
                | bit_cast::<32, 16>(self.a_h.q.val().udp_csum);
            // IPv6 (10 words) + UDP (2); the GRH reuses all but word 1 and has no UDP
            self.l_ip6[0].next = (bit_cast::<32, 8>(self.a_h.q.val().tclass) << 20)
                | bit_cast::<32, 20>(self.a_h.q.val().flow_label)
                | 0x6000_0000;
            self.l_ip6[1].next = (bit_cast::<32, 16>(self.l_ulen.val()) << 16)
                | bit_cast::<32, 8>(self.a_h.q.val().hop_limit)
                | 0x1100;
            self.l_grh1.next = (bit_cast::<32, 16>(self.s2_lib.q.val()) << 16)
                | bit_cast::<32, 8>(self.a_h.q.val().hop_limit)
                | 0x1B00;
            self.l_ip6[2].next = self.l_s6.val().get_bits::<32>(96);
            self.l_ip6[3].next = self.l_s6.val().get_bits::<32>(64);
            self.l_ip6[4].next = self.l_s6.val().get_bits::<32>(32);
            self.l_ip6[5].next = self.l_s6.val().get_bits::<32>(0);
            self.l_ip6[6].next = self.l_d6.val().get_bits::<32>(96);
            self.l_ip6[7].next = self.l_d6.val().get_bits::<32>(64);
            self.l_ip6[8].next = self.l_d6.val().get_bits::<32>(32);
            self.l_ip6[9].next = self.l_d6.val().get_bits::<32>(0);
            self.l_ip6[10].next = self.l_ip4[5].val();
            self.l_ip6[11].next = self.l_ip4[6].val();
            // BTH (PadCnt computed, not the descriptor's)
            self.l_bx[0].next = (bit_cast::<32, 8>(self.a_h.q.val().opcode) << 24)
                | (bit_cast::<32, 1>(self.a_h.q.val().se.into()) << 23)
                | (bit_cast::<32, 1>(self.a_h.q.val().mig_req.into()) << 22)
                | (bit_cast::<32, 2>(self.s1_pad.q.val()) << 20)
                | (bit_cast::<32, 4>(self.a_h.q.val().tver) << 16)
                | bit_cast::<32, 16>(self.a_h.q.val().pkey);
            self.l_bx[1].next = (bit_cast::<32, 1>(self.a_h.q.val().fecn.into()) << 31)
                | (bit_cast::<32, 1>(self.a_h.q.val().becn.into()) << 30)
                | (bit_cast::<32, 6>(self.a_h.q.val().resv6) << 24)
                | bit_cast::<32, 24>(self.a_h.q.val().dest_qp);
            self.l_bx[2].next = (bit_cast::<32, 1>(self.a_h.q.val().ack_req.into()) << 31)
                | (bit_cast::<32, 7>(self.a_h.q.val().resv7) << 24)
                | bit_cast::<32, 24>(self.a_h.q.val().psn);
            // extension headers, in wire order DETH, RETH, AtomicETH, AETH, AtomicAckETH,
            // ImmDt, IETH (CNP: 16 zero bytes = the zero defaults)
            if self.s1_imm.q.val() {
                self.l_bx[3].next = self.a_h.q.val().imm;
            }
            if self.s1_ieth.q.val() {
                self.l_bx[3].next = self.a_h.q.val().ieth_rkey;
            }
            if self.s1_aeth.q.val() {
                self.l_bx[3].next = (bit_cast::<32, 8>(self.a_h.q.val().aeth_syndrome) << 24)
                    | bit_cast::<32, 24>(self.a_h.q.val().aeth_msn);
            }
            if self.s1_ack.q.val() {
                self.l_bx[4].next = self.l_orig.val().get_bits::<32>(32);
                self.l_bx[5].next = self.l_orig.val().get_bits::<32>(0);
            }
            if self.s1_reth.q.val() | self.s1_atomic.q.val() {
                self.l_bx[3].next = self.l_va.val().get_bits::<32>(32);
                self.l_bx[4].next = self.l_va.val().get_bits::<32>(0);
                self.l_bx[5].next = self.a_h.q.val().rkey;
            }
            if self.s1_reth.q.val() {
                self.l_bx[6].next = self.a_h.q.val().dma_len;
                if self.s1_imm.q.val() {
                    self.l_bx[7].next = self.a_h.q.val().imm;
                }
            }
            if self.s1_atomic.q.val() {
                self.l_bx[6].next = self.l_swap.val().get_bits::<32>(32);
                self.l_bx[7].next = self.l_swap.val().get_bits::<32>(0);
                self.l_bx[8].next = self.l_cmp.val().get_bits::<32>(32);
                self.l_bx[9].next = self.l_cmp.val().get_bits::<32>(0);
            }
            if self.s1_deth.q.val() {
                self.l_bx[3].next = self.a_h.q.val().deth_qkey;
                self.l_bx[4].next = bit_cast::<32, 24>(self.a_h.q.val().deth_src_qp);
                if self.s1_imm.q.val() {
                    self.l_bx[5].next = self.a_h.q.val().imm;
                }
            }
            // L3/UDP ‖ BTH ‖ ext, by L3 kind
            if self.l_v4.val() {
                for k in 0..7 {
                    self.l_t[k].next = self.l_ip4[k].val();
                }
                for k in 0..10 {
                    self.l_t[k + 7].next = self.l_bx[k].val();
                }
            } else if self.l_v6.val() {
                for k in 0..12 {
                    self.l_t[k].next = self.l_ip6[k].val();
                }
                for k in 0..10 {
                    self.l_t[k + 12].next = self.l_bx[k].val();
                }
            } else {
                for k in 0..10 {
                    self.l_t[k].next = self.l_ip6[k].val();
                }
                self.l_t[1].next = self.l_grh1.val();
                for k in 0..10 {
                    self.l_t[k + 10].next = self.l_bx[k].val();
                }
            }
        }

        // output register
        if self.o_free.val() {
            self.o_v.d.next = self.fire.val();
        }
        if self.fire.val() {
            self.o_data.d.next = self.l_beat.val();
            self.o_keep.d.next = 0xFF.into();
            self.o_last.d.next = false;
            if self.fin.val() {
                if self.e_n6.q.val() {
                    // 6 covered bytes + 2 placeholder bytes; Tail follows
                    self.o_data.d.next = self.l_beat.val() & self.c_m6.val();
                    if self.bad_now.val() {
                        self.o_data.d.next =
                            (self.l_beat.val() & self.c_m6.val()) | self.c_ph6.val();
                    }
                } else {
                    // 2 covered bytes + 4 placeholder bytes: the frame's last beat
                    self.o_data.d.next = self.l_beat.val() & self.c_m2.val();
                    if self.bad_now.val() {
                        self.o_data.d.next =
                            (self.l_beat.val() & self.c_m2.val()) | self.c_ph2.val();
                    }
                    self.o_keep.d.next = 0xFC.into();
                    self.o_last.d.next = true;
                }
            }
            if self.st.q.val() == CoreState::Tail {
                // 2 placeholder bytes, +2 zero bytes of Ethernet padding for a 58-byte frame
                self.o_data.d.next = 0.into();
                if self.bad_now.val() {
                    self.o_data.d.next = self.c_ph_tail.val();
                }
                self.o_keep.d.next = 0xC0.into();
                if self.e_small.q.val() {
                    self.o_keep.d.next = 0xF0.into();
                }
                self.o_last.d.next = true;
            }
            // state machine
            match self.st.q.val() {
                CoreState::Idle => {}
                CoreState::Hdr => {
                    for i in 0..25 {
                        self.q[i].d.next = self.q[i + 2].q.val();
                    }
                    self.hcnt.d.next = self.hcnt.q.val() - 1;
                    self.hlast.d.next = self.hcnt.q.val() == 2;
                    if self.hlast.q.val() {
                        self.st_nx.next = CoreState::Pay;
                        if self.e_pbz.q.val() {
                            self.st_nx.next = CoreState::Flush;
                        }
                    }
                }
                CoreState::Pay => {
                    // keep the part of the payload beat not yet sent: 2 bytes (r = 2) in q0,
                    // or 6 bytes (r = 6) in q0[15:0], q1
                    self.q[0].d.next = self.l_p.val().get_bits::<32>(0);
                    if self.e_r6.q.val() {
                        self.q[0].d.next = self.l_p.val().get_bits::<32>(32);
                    }
                    self.q[1].d.next = self.l_p.val().get_bits::<32>(0);
                    self.pcnt.d.next = self.pcnt.q.val() - 1;
                    self.plast.d.next = self.pcnt.q.val() == 2;
                    if self.plast.q.val() {
                        if self.e_flush.q.val() {
                            self.st_nx.next = CoreState::Flush;
                        } else {
                            self.st_nx.next = CoreState::Tail;
                        }
                    }
                }
                CoreState::Flush => {
                    self.st_nx.next = CoreState::Tail;
                }
                CoreState::Tail => {}
            }
            if self.endf.val() {
                self.st_nx.next = CoreState::Idle;
            }
        }
        self.out.valid.next = self.o_v.q.val();
        self.out.data.next = self.o_data.q.val();
        self.out.keep.next = self.o_keep.q.val();
        self.out.last.next = self.o_last.q.val();

        // ---------------------------------------------------------------- load / accept
        if self.load.val() {
            self.bad.d.next = false;
            self.st_nx.next = CoreState::Hdr;
            self.hcnt.d.next = self.s2_hb.q.val();
            self.pcnt.d.next = self.s2_pb.q.val();
            self.hlast.d.next = self.s2_hb.q.val() == 1;
            self.plast.d.next = self.s2_pb.q.val() == 1;
            self.e_pbz.d.next = self.s2_pb.q.val() == 0;
            self.e_r6.d.next = !self.s1_nv.q.val().get_bit(0);
            self.n6_nx.next = self.s3_n6.q.val();
            self.e_flush.d.next = self.s3_flush.q.val();
            self.e_small.d.next = self.s3_small.q.val();
            self.e_pmask.d.next = self.s2_pmask.q.val();
            // Ethernet as virtual words: {16'h0, DA[47:32]}, DA[31:0], SA[47:16], {SA[15:0], T}
            self.q[0].d.next = bit_cast::<32, 16>(self.l_da.val().get_bits::<16>(32));
            self.q[1].d.next = self.l_da.val().get_bits::<32>(0);
            self.q[2].d.next = self.l_sa.val().get_bits::<32>(16);
            if self.a_h.q.val().vlan {
                self.q[3].d.next =
                    (bit_cast::<32, 16>(self.l_sa.val().get_bits::<16>(0)) << 16) | 0x8100;
                self.q[4].d.next = (bit_cast::<32, 3>(self.a_h.q.val().vlan_pcp) << 29)
                    | (bit_cast::<32, 1>(self.a_h.q.val().vlan_dei.into()) << 28)
                    | (bit_cast::<32, 12>(self.a_h.q.val().vlan_vid) << 16)
                    | bit_cast::<32, 16>(self.l_et.val());
                for k in 0..22 {
                    self.q[k + 5].d.next = self.l_t[k].val();
                }
            } else {
                self.q[3].d.next = (bit_cast::<32, 16>(self.l_sa.val().get_bits::<16>(0)) << 16)
                    | bit_cast::<32, 16>(self.l_et.val());
                for k in 0..22 {
                    self.q[k + 4].d.next = self.l_t[k].val();
                }
                self.q[26].d.next = 0.into();
            }
        }
        self.st.d.next = self.st_nx.val();
        self.e_n6.d.next = self.n6_nx.val();
        self.endf_r.d.next = (self.st_nx.val() == CoreState::Tail)
            | ((self.st_nx.val() == CoreState::Flush) & !self.n6_nx.val());

        // `desc_ready` is registered state only (not `!a_v | load`): the descriptor register's
        // 1132 enables stay off the load path. A freed register takes the next descriptor one
        // cycle later, still >= 3 cycles before the shortest (8-beat) frame ends.
        self.desc_ready.next = !self.a_v.q.val();
        if self.load.val() {
            self.a_v.d.next = false;
        }
        if self.desc_valid.val() & !self.a_v.q.val() {
            self.a_v.d.next = true;
            self.a_h.d.next = self.desc.val();
            self.a_age.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthesis check (rust-hdl style) of the core alone.
    #[test]
    fn tx_frame_core_synthesises() {
        let mut uut = TxFrameCore::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("tx_frame_core", &generate_verilog(&uut));
    }
}
