//! [`MrTable`]: the memory-region key table and protection check (IBTA Vol 1, 10.6;
//! docs/PROTOCOL.md §10).
//!
//! See the [module documentation](super) for the rule, the port timing and the command
//! semantics; this file is the implementation.
//!
//! Storage: eight block RAMs ([`NoRwRam`]) of `2^A` rows, all read at the same address and all
//! written at the same address: `valid` (1 bit, its own RAM so INVALIDATE and CLEAR touch only
//! it), `meta` (36 bits: key8 in 7:0, PD in 31:8, access in 35:32) and the 64-bit base VA,
//! length and DMA base as 32-bit halves (32-bit arithmetic, and `Bits<32>` simulates much
//! faster than `Bits<64>`). Every RAM is initialised to zero (a Verilog `initial` loop, so
//! neither Icarus nor a real device ever reads X).
//!
//! No lookup ever uses a row read at an edge where the same RAM is written: WRITE and
//! INVALIDATE write in the cycle after their strobe, with `req_ready = 0`; CLEAR writes the
//! valid RAM while lookups continue, but those are forced invalid. So the RAMs can be
//! `no_rw_check` (collision result don't-care) and map onto block RAM without Yosys's
//! read-first emulation.
//!
//! Pipeline (`E0` = the edge that accepts a request; one stage per cycle, LATENCY = 5):
//! * stage 0 (request cycle): RAM read address = key\[8 +: A\]; index-out-of-range and
//!   zero-length flags; request registered into `s1_*` at E0 while the RAMs read the row.
//! * stage 1: the row leaves the block RAMs (slow clock-to-out: DP16KD without its output
//!   register, which Yosys 0.23 cannot use) and is registered as is into `r_*`; the request
//!   moves to `t_*`.
//! * stage 1b: key8 / PD / access compares; low and high halves of `va - base` and
//!   `length - len` (32-bit subtract and compare each, in parallel), registered into `s2_*`.
//! * stage 2: borrows folded into the high halves (`va >= base`, `len <= length`), low-half
//!   compare of `va - base <= length - len`, low half of the translation and its carry.
//! * stage 3: high-half compare, high half of the translation, the verdict (priority
//!   invalid > key > PD > access > range), registered into the response outputs.
use rust_hdl::prelude::*;

use super::{
    CODE_ACCESS, CODE_INVALID, CODE_KEY, CODE_NONE, CODE_PD, CODE_RANGE, DRAIN_CYCLES,
    MAX_ADDR_BITS, REMOTE_ANY,
};
use crate::widget::NoRwRam;

/// The MR table with `2^A` entries (key index = key bits `8 + A - 1 .. 8`; keys whose index
/// has any bit at or above `A` set are out of range). [`super::MrTable1k`] is the default build.
#[derive(LogicBlock)]
pub struct MrTable<const A: usize> {
    pub clock: Signal<In, Clock>,

    // ---- lookup request (valid/ready) ----
    pub req_valid: Signal<In, Bit>,
    /// Low only in the cycle after a WRITE/INVALIDATE/QUERY strobe (the command uses the RAMs).
    pub req_ready: Signal<Out, Bit>,
    /// Full 32-bit lkey/rkey.
    pub req_key: Signal<In, Bits<32>>,
    /// PD of the QP making the access.
    pub req_pd: Signal<In, Bits<24>>,
    /// Rights the access needs (mask of the `ACCESS_*` bits; 0 for a local gather).
    pub req_need: Signal<In, Bits<4>>,
    pub req_va: Signal<In, Bits<64>>,
    pub req_len: Signal<In, Bits<64>>,
    /// A remote (responder) access: the NAK-vs-completion distinction for the consumer, and
    /// a remote access must name at least one REMOTE_* right in `req_need`.
    pub req_remote: Signal<In, Bit>,
    /// Opaque, returned with the response.
    pub req_tag: Signal<In, Bits<8>>,

    // ---- lookup response (fixed latency, no back-pressure) ----
    pub resp_valid: Signal<Out, Bit>,
    pub resp_ok: Signal<Out, Bit>,
    /// `CODE_*`; `CODE_NONE` when `resp_ok`.
    pub resp_code: Signal<Out, Bits<3>>,
    /// The access had length 0: `resp_ok = 1`, nothing checked, `resp_addr = 0`.
    pub resp_zero: Signal<Out, Bit>,
    /// `va - base + dma` when `resp_ok & !resp_zero`, else 0.
    pub resp_addr: Signal<Out, Bits<64>>,
    pub resp_remote: Signal<Out, Bit>,
    pub resp_tag: Signal<Out, Bits<8>>,

    // ---- programming port (the CSR block's MR command window) ----
    pub cmd_index: Signal<In, Bits<A>>,
    /// WRITE: load `wr_*` into entry `cmd_index` and mark it valid.
    pub cmd_write: Signal<In, Bit>,
    /// INVALIDATE: clear the valid bit of entry `cmd_index` (the fields are kept, QUERY shows them).
    pub cmd_invalidate: Signal<In, Bit>,
    /// QUERY: read entry `cmd_index` into `q_*`.
    pub cmd_query: Signal<In, Bit>,
    /// CLEAR: invalidate every entry (CFG_RESET); takes `2^A` cycles.
    pub cmd_clear: Signal<In, Bit>,
    pub wr_key8: Signal<In, Bits<8>>,
    pub wr_pd: Signal<In, Bits<24>>,
    pub wr_access: Signal<In, Bits<4>>,
    pub wr_va: Signal<In, Bits<64>>,
    pub wr_len: Signal<In, Bits<64>>,
    pub wr_dma: Signal<In, Bits<64>>,
    /// A command is running; command strobes are ignored while it is high.
    pub cmd_busy: Signal<Out, Bit>,
    /// One-cycle strobe: the command finished (`cmd_busy` is already low in that cycle).
    pub cmd_done: Signal<Out, Bit>,
    pub q_valid: Signal<Out, Bit>,
    pub q_key8: Signal<Out, Bits<8>>,
    pub q_pd: Signal<Out, Bits<24>>,
    pub q_access: Signal<Out, Bits<4>>,
    pub q_va: Signal<Out, Bits<64>>,
    pub q_len: Signal<Out, Bits<64>>,
    pub q_dma: Signal<Out, Bits<64>>,

    // ---- storage ----
    m_valid: NoRwRam<1, A>,
    m_meta: NoRwRam<36, A>,
    m_va_lo: NoRwRam<32, A>,
    m_va_hi: NoRwRam<32, A>,
    m_len_lo: NoRwRam<32, A>,
    m_len_hi: NoRwRam<32, A>,
    m_dma_lo: NoRwRam<32, A>,
    m_dma_hi: NoRwRam<32, A>,

    // ---- constants ----
    /// Key bits that must be 0 for the index to be in range (bits 31 .. 8 + A).
    c_oob_mask: Constant<Bits<32>>,
    c_remote_any: Constant<Bits<4>>,
    c_code_none: Constant<Bits<3>>,
    c_code_invalid: Constant<Bits<3>>,
    c_code_key: Constant<Bits<3>>,
    c_code_pd: Constant<Bits<3>>,
    c_code_access: Constant<Bits<3>>,
    c_code_range: Constant<Bits<3>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_zero64: Constant<Bits<64>>,
    c_zero8: Constant<Bits<8>>,
    c_zero_a: Constant<Bits<A>>,
    c_one_a: Constant<Bits<A>>,
    c_last_a: Constant<Bits<A>>,
    c_drain: Constant<Bits<3>>,
    c_zero3: Constant<Bits<3>>,
    c_bit0: Constant<Bits<1>>,
    c_bit1: Constant<Bits<1>>,
    c_one3: Constant<Bits<3>>,

    // ---- locals ----
    ready_l: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    busy: Signal<Local, Bit>,
    rd_addr: Signal<Local, Bits<A>>,
    e_key8: Signal<Local, Bits<8>>,
    e_pd: Signal<Local, Bits<24>>,
    e_acc: Signal<Local, Bits<4>>,
    e_va_lo: Signal<Local, Bits<32>>,
    e_va_hi: Signal<Local, Bits<32>>,
    e_len_lo: Signal<Local, Bits<32>>,
    e_len_hi: Signal<Local, Bits<32>>,
    bd32: Signal<Local, Bits<32>>,
    be32: Signal<Local, Bits<32>>,
    ct32: Signal<Local, Bits<32>>,
    t_hi: Signal<Local, Bits<32>>,
    dle: Signal<Local, Bit>,
    range_ok: Signal<Local, Bit>,

    // ---- stage 1 (request registered, RAM row arriving) ----
    s1_v: DFF<Bit>,
    s1_key8: DFF<Bits<8>>,
    s1_oob: DFF<Bit>,
    s1_clr: DFF<Bit>,
    s1_zero: DFF<Bit>,
    s1_pd: DFF<Bits<24>>,
    s1_need: DFF<Bits<4>>,
    s1_remote: DFF<Bit>,
    s1_tag: DFF<Bits<8>>,
    s1_va_lo: DFF<Bits<32>>,
    s1_va_hi: DFF<Bits<32>>,
    s1_len_lo: DFF<Bits<32>>,
    s1_len_hi: DFF<Bits<32>>,
    // ---- stage 1b: the RAM row registered (block RAM clock-to-out is slow), request delayed ----
    r_valid: DFF<Bits<1>>,
    r_meta: DFF<Bits<36>>,
    r_va_lo: DFF<Bits<32>>,
    r_va_hi: DFF<Bits<32>>,
    r_len_lo: DFF<Bits<32>>,
    r_len_hi: DFF<Bits<32>>,
    r_dma_lo: DFF<Bits<32>>,
    r_dma_hi: DFF<Bits<32>>,
    t_v: DFF<Bit>,
    t_key8: DFF<Bits<8>>,
    t_oob: DFF<Bit>,
    t_clr: DFF<Bit>,
    t_zero: DFF<Bit>,
    t_pd: DFF<Bits<24>>,
    t_need: DFF<Bits<4>>,
    t_remote: DFF<Bit>,
    t_tag: DFF<Bits<8>>,
    t_va_lo: DFF<Bits<32>>,
    t_va_hi: DFF<Bits<32>>,
    t_len_lo: DFF<Bits<32>>,
    t_len_hi: DFF<Bits<32>>,
    // ---- stage 2 ----
    s2_v: DFF<Bit>,
    s2_vok: DFF<Bit>,
    s2_kok: DFF<Bit>,
    s2_pok: DFF<Bit>,
    s2_aok: DFF<Bit>,
    s2_zero: DFF<Bit>,
    s2_remote: DFF<Bit>,
    s2_tag: DFF<Bits<8>>,
    /// low half of va - base, its borrow
    s2_d_lo: DFF<Bits<32>>,
    s2_bd: DFF<Bit>,
    /// va_hi - base_hi (borrow not yet applied), va_hi > base_hi, va_hi == base_hi
    s2_dh0: DFF<Bits<32>>,
    s2_vgt: DFF<Bit>,
    s2_veq: DFF<Bit>,
    /// low half of length - len, its borrow
    s2_e_lo: DFF<Bits<32>>,
    s2_be: DFF<Bit>,
    /// length_hi - len_hi, length_hi > len_hi, length_hi == len_hi
    s2_eh0: DFF<Bits<32>>,
    s2_lgt: DFF<Bit>,
    s2_leq: DFF<Bit>,
    s2_dma_lo: DFF<Bits<32>>,
    s2_dma_hi: DFF<Bits<32>>,
    // ---- stage 3 ----
    s3_v: DFF<Bit>,
    s3_vok: DFF<Bit>,
    s3_kok: DFF<Bit>,
    s3_pok: DFF<Bit>,
    s3_aok: DFF<Bit>,
    s3_zero: DFF<Bit>,
    s3_remote: DFF<Bit>,
    s3_tag: DFF<Bits<8>>,
    s3_d_hi: DFF<Bits<32>>,
    s3_e_hi: DFF<Bits<32>>,
    s3_lo_le: DFF<Bit>,
    s3_ge: DFF<Bit>,
    s3_le: DFF<Bit>,
    s3_t_lo: DFF<Bits<32>>,
    s3_ct: DFF<Bit>,
    s3_dma_hi: DFF<Bits<32>>,
    // ---- response registers ----
    o_valid: DFF<Bit>,
    o_ok: DFF<Bit>,
    o_code: DFF<Bits<3>>,
    o_zero: DFF<Bit>,
    o_addr: DFF<Bits<64>>,
    o_remote: DFF<Bit>,
    o_tag: DFF<Bits<8>>,
    // ---- command state ----
    w_pend: DFF<Bit>,
    i_pend: DFF<Bit>,
    q_pend: DFF<Bit>,
    q_rd: DFF<Bit>,
    q_cap: DFF<Bit>,
    q_idx: DFF<Bits<A>>,
    clearing: DFF<Bit>,
    clr_idx: DFF<Bits<A>>,
    drain: DFF<Bits<3>>,
    done: DFF<Bit>,
    qr_valid: DFF<Bit>,
    qr_key8: DFF<Bits<8>>,
    qr_pd: DFF<Bits<24>>,
    qr_access: DFF<Bits<4>>,
    qr_va: DFF<Bits<64>>,
    qr_len: DFF<Bits<64>>,
    qr_dma: DFF<Bits<64>>,
}

impl<const A: usize> Default for MrTable<A> {
    fn default() -> Self {
        assert!(
            (1..=MAX_ADDR_BITS).contains(&A),
            "MrTable: A must be 1..={MAX_ADDR_BITS}"
        );
        let entries = 1u64 << A;
        // index = key >> 8 must be < 2^A: key bits 31 .. 8 + A must be zero
        let oob_mask = !((entries << 8) - 1) & 0xFFFF_FFFF;
        Self {
            clock: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_key: Default::default(),
            req_pd: Default::default(),
            req_need: Default::default(),
            req_va: Default::default(),
            req_len: Default::default(),
            req_remote: Default::default(),
            req_tag: Default::default(),
            resp_valid: Default::default(),
            resp_ok: Default::default(),
            resp_code: Default::default(),
            resp_zero: Default::default(),
            resp_addr: Default::default(),
            resp_remote: Default::default(),
            resp_tag: Default::default(),
            cmd_index: Default::default(),
            cmd_write: Default::default(),
            cmd_invalidate: Default::default(),
            cmd_query: Default::default(),
            cmd_clear: Default::default(),
            wr_key8: Default::default(),
            wr_pd: Default::default(),
            wr_access: Default::default(),
            wr_va: Default::default(),
            wr_len: Default::default(),
            wr_dma: Default::default(),
            cmd_busy: Default::default(),
            cmd_done: Default::default(),
            q_valid: Default::default(),
            q_key8: Default::default(),
            q_pd: Default::default(),
            q_access: Default::default(),
            q_va: Default::default(),
            q_len: Default::default(),
            q_dma: Default::default(),
            m_valid: Default::default(),
            m_meta: Default::default(),
            m_va_lo: Default::default(),
            m_va_hi: Default::default(),
            m_len_lo: Default::default(),
            m_len_hi: Default::default(),
            m_dma_lo: Default::default(),
            m_dma_hi: Default::default(),
            c_oob_mask: Constant::new(oob_mask.into()),
            c_remote_any: Constant::new(REMOTE_ANY.into()),
            c_code_none: Constant::new(CODE_NONE.into()),
            c_code_invalid: Constant::new(CODE_INVALID.into()),
            c_code_key: Constant::new(CODE_KEY.into()),
            c_code_pd: Constant::new(CODE_PD.into()),
            c_code_access: Constant::new(CODE_ACCESS.into()),
            c_code_range: Constant::new(CODE_RANGE.into()),
            c_zero32: Constant::new(0u64.into()),
            c_one32: Constant::new(1u64.into()),
            c_zero64: Constant::new(0u64.into()),
            c_zero8: Constant::new(0u64.into()),
            c_zero_a: Constant::new(0u64.into()),
            c_one_a: Constant::new(1u64.into()),
            c_last_a: Constant::new((entries - 1).into()),
            c_drain: Constant::new(DRAIN_CYCLES.into()),
            c_zero3: Constant::new(0u64.into()),
            c_bit0: Constant::new(0u64.into()),
            c_bit1: Constant::new(1u64.into()),
            c_one3: Constant::new(1u64.into()),
            ready_l: Default::default(),
            accept: Default::default(),
            busy: Default::default(),
            rd_addr: Default::default(),
            e_key8: Default::default(),
            e_pd: Default::default(),
            e_acc: Default::default(),
            e_va_lo: Default::default(),
            e_va_hi: Default::default(),
            e_len_lo: Default::default(),
            e_len_hi: Default::default(),
            bd32: Default::default(),
            be32: Default::default(),
            ct32: Default::default(),
            t_hi: Default::default(),
            dle: Default::default(),
            range_ok: Default::default(),
            s1_v: Default::default(),
            s1_key8: Default::default(),
            s1_oob: Default::default(),
            s1_clr: Default::default(),
            s1_zero: Default::default(),
            s1_pd: Default::default(),
            s1_need: Default::default(),
            s1_remote: Default::default(),
            s1_tag: Default::default(),
            s1_va_lo: Default::default(),
            s1_va_hi: Default::default(),
            s1_len_lo: Default::default(),
            s1_len_hi: Default::default(),
            r_valid: Default::default(),
            r_meta: Default::default(),
            r_va_lo: Default::default(),
            r_va_hi: Default::default(),
            r_len_lo: Default::default(),
            r_len_hi: Default::default(),
            r_dma_lo: Default::default(),
            r_dma_hi: Default::default(),
            t_v: Default::default(),
            t_key8: Default::default(),
            t_oob: Default::default(),
            t_clr: Default::default(),
            t_zero: Default::default(),
            t_pd: Default::default(),
            t_need: Default::default(),
            t_remote: Default::default(),
            t_tag: Default::default(),
            t_va_lo: Default::default(),
            t_va_hi: Default::default(),
            t_len_lo: Default::default(),
            t_len_hi: Default::default(),
            s2_v: Default::default(),
            s2_vok: Default::default(),
            s2_kok: Default::default(),
            s2_pok: Default::default(),
            s2_aok: Default::default(),
            s2_zero: Default::default(),
            s2_remote: Default::default(),
            s2_tag: Default::default(),
            s2_d_lo: Default::default(),
            s2_bd: Default::default(),
            s2_dh0: Default::default(),
            s2_vgt: Default::default(),
            s2_veq: Default::default(),
            s2_e_lo: Default::default(),
            s2_be: Default::default(),
            s2_eh0: Default::default(),
            s2_lgt: Default::default(),
            s2_leq: Default::default(),
            s2_dma_lo: Default::default(),
            s2_dma_hi: Default::default(),
            s3_v: Default::default(),
            s3_vok: Default::default(),
            s3_kok: Default::default(),
            s3_pok: Default::default(),
            s3_aok: Default::default(),
            s3_zero: Default::default(),
            s3_remote: Default::default(),
            s3_tag: Default::default(),
            s3_d_hi: Default::default(),
            s3_e_hi: Default::default(),
            s3_lo_le: Default::default(),
            s3_ge: Default::default(),
            s3_le: Default::default(),
            s3_t_lo: Default::default(),
            s3_ct: Default::default(),
            s3_dma_hi: Default::default(),
            o_valid: Default::default(),
            o_ok: Default::default(),
            o_code: Default::default(),
            o_zero: Default::default(),
            o_addr: Default::default(),
            o_remote: Default::default(),
            o_tag: Default::default(),
            w_pend: Default::default(),
            i_pend: Default::default(),
            q_pend: Default::default(),
            q_rd: Default::default(),
            q_cap: Default::default(),
            q_idx: Default::default(),
            clearing: Default::default(),
            clr_idx: Default::default(),
            drain: Default::default(),
            done: Default::default(),
            qr_valid: Default::default(),
            qr_key8: Default::default(),
            qr_pd: Default::default(),
            qr_access: Default::default(),
            qr_va: Default::default(),
            qr_len: Default::default(),
            qr_dma: Default::default(),
        }
    }
}

impl<const A: usize> Logic for MrTable<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_v, s1_key8, s1_oob, s1_clr, s1_zero, s1_pd, s1_need, s1_remote, s1_tag,
            s1_va_lo, s1_va_hi, s1_len_lo, s1_len_hi, r_valid, r_meta, r_va_lo, r_va_hi, r_len_lo,
            r_len_hi, r_dma_lo, r_dma_hi, t_v, t_key8, t_oob, t_clr, t_zero, t_pd, t_need,
            t_remote, t_tag, t_va_lo, t_va_hi, t_len_lo, t_len_hi, s2_v, s2_vok, s2_kok, s2_pok,
            s2_aok, s2_zero, s2_remote, s2_tag, s2_d_lo, s2_bd, s2_dh0, s2_vgt, s2_veq, s2_e_lo,
            s2_be, s2_eh0, s2_lgt, s2_leq, s2_dma_lo, s2_dma_hi, s3_v, s3_vok, s3_kok, s3_pok,
            s3_aok, s3_zero, s3_remote, s3_tag, s3_d_hi, s3_e_hi, s3_lo_le, s3_ge, s3_le, s3_t_lo,
            s3_ct, s3_dma_hi, o_valid, o_ok, o_code, o_zero, o_addr, o_remote, o_tag, w_pend,
            i_pend, q_pend, q_rd, q_cap, q_idx, clearing, clr_idx, drain, done, qr_valid, qr_key8,
            qr_pd, qr_access, qr_va, qr_len, qr_dma
        );
        // ---------------- RAM clocks and defaults ----------------
        self.m_valid.clock.next = self.clock.val();
        self.m_meta.clock.next = self.clock.val();
        self.m_va_lo.clock.next = self.clock.val();
        self.m_va_hi.clock.next = self.clock.val();
        self.m_len_lo.clock.next = self.clock.val();
        self.m_len_hi.clock.next = self.clock.val();
        self.m_dma_lo.clock.next = self.clock.val();
        self.m_dma_hi.clock.next = self.clock.val();

        // ---------------- locals: defaults first ----------------
        self.busy.next = self.w_pend.q.val()
            | self.i_pend.q.val()
            | self.q_pend.q.val()
            | self.q_rd.q.val()
            | self.q_cap.q.val()
            | self.clearing.q.val()
            | (self.drain.q.val() != self.c_zero3.val());
        // the read port is free unless a QUERY reads or a WRITE/INVALIDATE writes this cycle
        // (never a lookup read and a write in the same cycle: the RAMs are no_rw_check)
        self.ready_l.next = !(self.q_pend.q.val() | self.w_pend.q.val() | self.i_pend.q.val());
        self.accept.next = self.req_valid.val() & self.ready_l.val();
        self.rd_addr.next = self.req_key.val().get_bits::<A>(8);
        if self.q_pend.q.val() {
            self.rd_addr.next = self.q_idx.q.val();
        }
        self.e_key8.next = self.r_meta.q.val().get_bits::<8>(0);
        self.e_pd.next = self.r_meta.q.val().get_bits::<24>(8);
        self.e_acc.next = self.r_meta.q.val().get_bits::<4>(32);
        self.e_va_lo.next = self.r_va_lo.q.val();
        self.e_va_hi.next = self.r_va_hi.q.val();
        self.e_len_lo.next = self.r_len_lo.q.val();
        self.e_len_hi.next = self.r_len_hi.q.val();
        self.bd32.next = self.c_zero32.val();
        if self.s2_bd.q.val() {
            self.bd32.next = self.c_one32.val();
        }
        self.be32.next = self.c_zero32.val();
        if self.s2_be.q.val() {
            self.be32.next = self.c_one32.val();
        }
        self.ct32.next = self.c_zero32.val();
        if self.s3_ct.q.val() {
            self.ct32.next = self.c_one32.val();
        }
        self.t_hi.next = self.s3_d_hi.q.val() + self.s3_dma_hi.q.val() + self.ct32.val();
        self.dle.next = (self.s3_d_hi.q.val() < self.s3_e_hi.q.val())
            | ((self.s3_d_hi.q.val() == self.s3_e_hi.q.val()) & self.s3_lo_le.q.val());
        self.range_ok.next = self.s3_ge.q.val() & self.s3_le.q.val() & self.dle.val();

        // ---------------- RAM ports ----------------
        self.m_valid.read_address.next = self.rd_addr.val();
        self.m_meta.read_address.next = self.rd_addr.val();
        self.m_va_lo.read_address.next = self.rd_addr.val();
        self.m_va_hi.read_address.next = self.rd_addr.val();
        self.m_len_lo.read_address.next = self.rd_addr.val();
        self.m_len_hi.read_address.next = self.rd_addr.val();
        self.m_dma_lo.read_address.next = self.rd_addr.val();
        self.m_dma_hi.read_address.next = self.rd_addr.val();
        self.m_valid.write_address.next = self.cmd_index.val();
        self.m_meta.write_address.next = self.cmd_index.val();
        self.m_va_lo.write_address.next = self.cmd_index.val();
        self.m_va_hi.write_address.next = self.cmd_index.val();
        self.m_len_lo.write_address.next = self.cmd_index.val();
        self.m_len_hi.write_address.next = self.cmd_index.val();
        self.m_dma_lo.write_address.next = self.cmd_index.val();
        self.m_dma_hi.write_address.next = self.cmd_index.val();
        self.m_valid.write_data.next = self.c_bit1.val();
        self.m_meta.write_data.next = bit_cast::<36, 8>(self.wr_key8.val())
            | (bit_cast::<36, 24>(self.wr_pd.val()) << 8)
            | (bit_cast::<36, 4>(self.wr_access.val()) << 32);
        self.m_va_lo.write_data.next = self.wr_va.val().get_bits::<32>(0);
        self.m_va_hi.write_data.next = self.wr_va.val().get_bits::<32>(32);
        self.m_len_lo.write_data.next = self.wr_len.val().get_bits::<32>(0);
        self.m_len_hi.write_data.next = self.wr_len.val().get_bits::<32>(32);
        self.m_dma_lo.write_data.next = self.wr_dma.val().get_bits::<32>(0);
        self.m_dma_hi.write_data.next = self.wr_dma.val().get_bits::<32>(32);
        self.m_valid.write_enable.next = false;
        self.m_meta.write_enable.next = false;
        self.m_va_lo.write_enable.next = false;
        self.m_va_hi.write_enable.next = false;
        self.m_len_lo.write_enable.next = false;
        self.m_len_hi.write_enable.next = false;
        self.m_dma_lo.write_enable.next = false;
        self.m_dma_hi.write_enable.next = false;

        // ---------------- commands ----------------
        self.done.d.next = false;
        self.w_pend.d.next = false;
        self.i_pend.d.next = false;
        if !self.busy.val() {
            if self.cmd_clear.val() {
                self.clearing.d.next = true;
                self.clr_idx.d.next = self.c_zero_a.val();
            } else if self.cmd_write.val() {
                self.w_pend.d.next = true;
                self.drain.d.next = self.c_drain.val();
            } else if self.cmd_invalidate.val() {
                self.i_pend.d.next = true;
                self.drain.d.next = self.c_drain.val();
            } else if self.cmd_query.val() {
                self.q_pend.d.next = true;
                self.q_idx.d.next = self.cmd_index.val();
            }
        }
        // WRITE / INVALIDATE execute in the cycle after the strobe (req_ready = 0), from the
        // held cmd_index / wr_* inputs
        if self.w_pend.q.val() {
            self.m_valid.write_enable.next = true;
            self.m_meta.write_enable.next = true;
            self.m_va_lo.write_enable.next = true;
            self.m_va_hi.write_enable.next = true;
            self.m_len_lo.write_enable.next = true;
            self.m_len_hi.write_enable.next = true;
            self.m_dma_lo.write_enable.next = true;
            self.m_dma_hi.write_enable.next = true;
        }
        if self.i_pend.q.val() {
            self.m_valid.write_enable.next = true;
            self.m_valid.write_data.next = self.c_bit0.val();
        }
        if self.clearing.q.val() {
            self.m_valid.write_enable.next = true;
            self.m_valid.write_data.next = self.c_bit0.val();
            self.m_valid.write_address.next = self.clr_idx.q.val();
            self.clr_idx.d.next = self.clr_idx.q.val() + self.c_one_a.val();
            if self.clr_idx.q.val() == self.c_last_a.val() {
                self.clearing.d.next = false;
                self.done.d.next = true;
            }
        }
        if self.drain.q.val() != self.c_zero3.val() {
            self.drain.d.next = self.drain.q.val() - self.c_one3.val();
            if self.drain.q.val() == self.c_one3.val() {
                self.done.d.next = true;
            }
        }
        // QUERY: the read port is ours in the q_pend cycle; the row arrives in the q_rd cycle
        self.q_rd.d.next = self.q_pend.q.val();
        self.q_cap.d.next = self.q_rd.q.val();
        if self.q_pend.q.val() {
            self.q_pend.d.next = false;
        }
        if self.q_cap.q.val() {
            self.done.d.next = true;
            self.qr_valid.d.next = self.r_valid.q.val().any();
            self.qr_key8.d.next = self.e_key8.val();
            self.qr_pd.d.next = self.e_pd.val();
            self.qr_access.d.next = self.e_acc.val();
            self.qr_va.d.next = (bit_cast::<64, 32>(self.e_va_hi.val()) << 32)
                | bit_cast::<64, 32>(self.e_va_lo.val());
            self.qr_len.d.next = (bit_cast::<64, 32>(self.e_len_hi.val()) << 32)
                | bit_cast::<64, 32>(self.e_len_lo.val());
            self.qr_dma.d.next = (bit_cast::<64, 32>(self.r_dma_hi.q.val()) << 32)
                | bit_cast::<64, 32>(self.r_dma_lo.q.val());
        }

        // ---------------- stage 0 -> 1 ----------------
        self.s1_v.d.next = self.accept.val();
        if self.accept.val() {
            self.s1_key8.d.next = self.req_key.val().get_bits::<8>(0);
            self.s1_oob.d.next = (self.req_key.val() & self.c_oob_mask.val()).any();
            self.s1_clr.d.next = self.clearing.q.val();
            self.s1_zero.d.next = !self.req_len.val().any();
            self.s1_pd.d.next = self.req_pd.val();
            self.s1_need.d.next = self.req_need.val();
            self.s1_remote.d.next = self.req_remote.val();
            self.s1_tag.d.next = self.req_tag.val();
            self.s1_va_lo.d.next = self.req_va.val().get_bits::<32>(0);
            self.s1_va_hi.d.next = self.req_va.val().get_bits::<32>(32);
            self.s1_len_lo.d.next = self.req_len.val().get_bits::<32>(0);
            self.s1_len_hi.d.next = self.req_len.val().get_bits::<32>(32);
        }

        // ---------------- stage 1 -> 1b: register the RAM row, delay the request ----------------
        self.r_valid.d.next = self.m_valid.read_data.val();
        self.r_meta.d.next = self.m_meta.read_data.val();
        self.r_va_lo.d.next = self.m_va_lo.read_data.val();
        self.r_va_hi.d.next = self.m_va_hi.read_data.val();
        self.r_len_lo.d.next = self.m_len_lo.read_data.val();
        self.r_len_hi.d.next = self.m_len_hi.read_data.val();
        self.r_dma_lo.d.next = self.m_dma_lo.read_data.val();
        self.r_dma_hi.d.next = self.m_dma_hi.read_data.val();
        self.t_v.d.next = self.s1_v.q.val();
        if self.s1_v.q.val() {
            self.t_key8.d.next = self.s1_key8.q.val();
            self.t_oob.d.next = self.s1_oob.q.val();
            self.t_clr.d.next = self.s1_clr.q.val();
            self.t_zero.d.next = self.s1_zero.q.val();
            self.t_pd.d.next = self.s1_pd.q.val();
            self.t_need.d.next = self.s1_need.q.val();
            self.t_remote.d.next = self.s1_remote.q.val();
            self.t_tag.d.next = self.s1_tag.q.val();
            self.t_va_lo.d.next = self.s1_va_lo.q.val();
            self.t_va_hi.d.next = self.s1_va_hi.q.val();
            self.t_len_lo.d.next = self.s1_len_lo.q.val();
            self.t_len_hi.d.next = self.s1_len_hi.q.val();
        }

        // ---------------- stage 1b -> 2 ----------------
        self.s2_v.d.next = self.t_v.q.val();
        if self.t_v.q.val() {
            self.s2_vok.d.next =
                self.r_valid.q.val().any() & !self.t_oob.q.val() & !self.t_clr.q.val();
            self.s2_kok.d.next = self.e_key8.val() == self.t_key8.q.val();
            self.s2_pok.d.next = self.e_pd.val() == self.t_pd.q.val();
            self.s2_aok.d.next = ((self.t_need.q.val() & self.e_acc.val()) == self.t_need.q.val())
                & (!self.t_remote.q.val() | (self.t_need.q.val() & self.c_remote_any.val()).any());
            self.s2_zero.d.next = self.t_zero.q.val();
            self.s2_remote.d.next = self.t_remote.q.val();
            self.s2_tag.d.next = self.t_tag.q.val();
            // va - base
            self.s2_d_lo.d.next = self.t_va_lo.q.val() - self.e_va_lo.val();
            self.s2_bd.d.next = self.t_va_lo.q.val() < self.e_va_lo.val();
            self.s2_dh0.d.next = self.t_va_hi.q.val() - self.e_va_hi.val();
            self.s2_vgt.d.next = self.t_va_hi.q.val() > self.e_va_hi.val();
            self.s2_veq.d.next = self.t_va_hi.q.val() == self.e_va_hi.val();
            // length - len
            self.s2_e_lo.d.next = self.e_len_lo.val() - self.t_len_lo.q.val();
            self.s2_be.d.next = self.e_len_lo.val() < self.t_len_lo.q.val();
            self.s2_eh0.d.next = self.e_len_hi.val() - self.t_len_hi.q.val();
            self.s2_lgt.d.next = self.e_len_hi.val() > self.t_len_hi.q.val();
            self.s2_leq.d.next = self.e_len_hi.val() == self.t_len_hi.q.val();
            self.s2_dma_lo.d.next = self.r_dma_lo.q.val();
            self.s2_dma_hi.d.next = self.r_dma_hi.q.val();
        }

        // ---------------- stage 2 -> 3 ----------------
        self.s3_v.d.next = self.s2_v.q.val();
        if self.s2_v.q.val() {
            self.s3_vok.d.next = self.s2_vok.q.val();
            self.s3_kok.d.next = self.s2_kok.q.val();
            self.s3_pok.d.next = self.s2_pok.q.val();
            self.s3_aok.d.next = self.s2_aok.q.val();
            self.s3_zero.d.next = self.s2_zero.q.val();
            self.s3_remote.d.next = self.s2_remote.q.val();
            self.s3_tag.d.next = self.s2_tag.q.val();
            self.s3_d_hi.d.next = self.s2_dh0.q.val() - self.bd32.val();
            self.s3_e_hi.d.next = self.s2_eh0.q.val() - self.be32.val();
            // va >= base: no borrow out of the 64-bit va - base
            self.s3_ge.d.next = self.s2_vgt.q.val() | (self.s2_veq.q.val() & !self.s2_bd.q.val());
            // len <= length: no borrow out of the 64-bit length - len
            self.s3_le.d.next = self.s2_lgt.q.val() | (self.s2_leq.q.val() & !self.s2_be.q.val());
            self.s3_lo_le.d.next = self.s2_d_lo.q.val() <= self.s2_e_lo.q.val();
            self.s3_t_lo.d.next = self.s2_d_lo.q.val() + self.s2_dma_lo.q.val();
            // carry out of d_lo + dma_lo  <=>  d_lo > ~dma_lo
            self.s3_ct.d.next = self.s2_d_lo.q.val() > !self.s2_dma_lo.q.val();
            self.s3_dma_hi.d.next = self.s2_dma_hi.q.val();
        }

        // ---------------- stage 3 -> response ----------------
        self.o_valid.d.next = self.s3_v.q.val();
        self.o_ok.d.next = false;
        self.o_code.d.next = self.c_code_none.val();
        self.o_zero.d.next = false;
        self.o_addr.d.next = self.c_zero64.val();
        self.o_remote.d.next = false;
        self.o_tag.d.next = self.c_zero8.val();
        if self.s3_v.q.val() {
            self.o_remote.d.next = self.s3_remote.q.val();
            self.o_tag.d.next = self.s3_tag.q.val();
            if self.s3_zero.q.val() {
                self.o_ok.d.next = true;
                self.o_zero.d.next = true;
            } else if !self.s3_vok.q.val() {
                self.o_code.d.next = self.c_code_invalid.val();
            } else if !self.s3_kok.q.val() {
                self.o_code.d.next = self.c_code_key.val();
            } else if !self.s3_pok.q.val() {
                self.o_code.d.next = self.c_code_pd.val();
            } else if !self.s3_aok.q.val() {
                self.o_code.d.next = self.c_code_access.val();
            } else if !self.range_ok.val() {
                self.o_code.d.next = self.c_code_range.val();
            } else {
                self.o_ok.d.next = true;
                self.o_addr.d.next = (bit_cast::<64, 32>(self.t_hi.val()) << 32)
                    | bit_cast::<64, 32>(self.s3_t_lo.q.val());
            }
        }

        // ---------------- outputs ----------------
        self.req_ready.next = self.ready_l.val();
        self.resp_valid.next = self.o_valid.q.val();
        self.resp_ok.next = self.o_ok.q.val();
        self.resp_code.next = self.o_code.q.val();
        self.resp_zero.next = self.o_zero.q.val();
        self.resp_addr.next = self.o_addr.q.val();
        self.resp_remote.next = self.o_remote.q.val();
        self.resp_tag.next = self.o_tag.q.val();
        self.cmd_busy.next = self.busy.val();
        self.cmd_done.next = self.done.q.val();
        self.q_valid.next = self.qr_valid.q.val();
        self.q_key8.next = self.qr_key8.q.val();
        self.q_pd.next = self.qr_pd.q.val();
        self.q_access.next = self.qr_access.q.val();
        self.q_va.next = self.qr_va.q.val();
        self.q_len.next = self.qr_len.q.val();
        self.q_dma.next = self.qr_dma.q.val();
    }
}
