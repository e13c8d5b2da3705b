//! [`CqConfigTable`]: the host-programmed configuration of each CQ (`CQ_BASE`, `CQ_CFG`: log2
//! entries and interrupt vector, and whether the CQ exists), with the read port the completion
//! engine uses, plus the per-CQ reference count the command windows keep (QPs not in RESET that
//! name the CQ as send or receive CQ).
//!
//! The runtime state of a CQ (producer index, consumer index from the doorbells, arm mode,
//! overflow) belongs to the completion engine, which sees CREATE / DESTROY and the CQ doorbells
//! in order on the `cev_*` stream; the CSR block asks for it on QUERY through `rtq_*`.
//!
//! # Engine read port (fixed latency 2)
//!
//! `rd_valid`/`rd_cqn` in cycle `c` -> `cqc_valid` = 1 and `cqc_exists`, `cqc_base`,
//! `cqc_log2_entries`, `cqc_vector` of that CQ in cycle `c + 2` (registered, held until the next
//! read's data). One read per cycle.
//!
//! # Command port ([`super::ctx::CtxWindows`])
//!
//! * config read: `fsm_rd`/`fsm_cqn`, granted (`fsm_ack`) when the engine does not read; words
//!   on `rq_*` in the next cycle. Config write: `wr_cqn`, `we_cfg`, `wd_*`.
//! * reference RAM (the command FSM's own port): read every cycle at `ref_cqn` (data on
//!   `rq_ref` two cycles later: bit 24 exists, 23:0 reference count), written with
//!   `ref_we`/`ref_wd` at `ref_cqn`. The block RAM's output is registered (`ref_q`) before the
//!   command machine sees it: the block RAM's clock-to-output (5.6 ns on ECP5) followed by the
//!   machine's compare and write enables did not fit a 125 MHz clock (docs/RESOURCES.md). A
//!   write is seen by a read whose address is presented in a later cycle.
//! * `clear` (CFG_RESET): zeroes every row in `2^CA` cycles (`clearing` high meanwhile).
use super::konst;
use ferroce_proto::host::regs::cq_cfg;
use rust_hdl::prelude::*;

/// Stored part of `CQ_CFG` (bits 15:0: log2 entries, vector).
pub const CFG_W: usize = (cq_cfg::VECTOR.lsb + cq_cfg::VECTOR.width) as usize;
pub const LOG2_W: usize = cq_cfg::LOG2_ENTRIES.width as usize;
pub const VEC_W: usize = cq_cfg::VECTOR.width as usize;
/// Reference RAM word: bit 24 the CQ exists, 23:0 the number of references.
pub const REF_W: usize = 25;

fn zero_ram<D: Synth, const A: usize>() -> RAM<D, A> {
    RAM::from((0..(1usize << A)).map(|_| D::default()))
}

#[derive(LogicBlock)]
pub struct CqConfigTable<const CA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- engine read port ----
    pub rd_valid: Signal<In, Bit>,
    pub rd_cqn: Signal<In, Bits<CA>>,
    pub cqc_valid: Signal<Out, Bit>,
    pub cqc_exists: Signal<Out, Bit>,
    pub cqc_base: Signal<Out, Bits<64>>,
    pub cqc_log2_entries: Signal<Out, Bits<LOG2_W>>,
    pub cqc_vector: Signal<Out, Bits<VEC_W>>,
    // ---- command port ----
    pub fsm_rd: Signal<In, Bit>,
    pub fsm_cqn: Signal<In, Bits<CA>>,
    pub fsm_ack: Signal<Out, Bit>,
    pub rq_base_lo: Signal<Out, Bits<32>>,
    pub rq_base_hi: Signal<Out, Bits<32>>,
    pub rq_cfg: Signal<Out, Bits<CFG_W>>,
    pub rq_exists: Signal<Out, Bit>,
    pub wr_cqn: Signal<In, Bits<CA>>,
    pub we_cfg: Signal<In, Bit>,
    pub wd_base_lo: Signal<In, Bits<32>>,
    pub wd_base_hi: Signal<In, Bits<32>>,
    pub wd_cfg: Signal<In, Bits<CFG_W>>,
    pub wd_exists: Signal<In, Bit>,
    pub ref_cqn: Signal<In, Bits<CA>>,
    pub ref_we: Signal<In, Bit>,
    pub ref_wd: Signal<In, Bits<REF_W>>,
    pub rq_ref: Signal<Out, Bits<REF_W>>,
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,

    m_base_lo: RAM<Bits<32>, CA>,
    m_base_hi: RAM<Bits<32>, CA>,
    m_cfg: RAM<Bits<CFG_W>, CA>,
    m_exists: RAM<Bit, CA>,
    m_ref: RAM<Bits<REF_W>, CA>,

    v1: DFF<Bit>,
    o_valid: DFF<Bit>,
    o_exists: DFF<Bit>,
    o_base: DFF<Bits<64>>,
    o_log2: DFF<Bits<LOG2_W>>,
    o_vector: DFF<Bits<VEC_W>>,
    clr: DFF<Bit>,
    clr_idx: DFF<Bits<CA>>,
    ref_q: DFF<Bits<REF_W>>,

    c_zero_a: Constant<Bits<CA>>,
    c_one_a: Constant<Bits<CA>>,
    c_last_a: Constant<Bits<CA>>,
    c_log2_lsb: Constant<Bits<5>>,
    c_vec_lsb: Constant<Bits<5>>,

    rd_addr: Signal<Local, Bits<CA>>,
    w_addr: Signal<Local, Bits<CA>>,
    r_addr: Signal<Local, Bits<CA>>,
}

impl<const CA: usize> Default for CqConfigTable<CA> {
    fn default() -> Self {
        assert!((1..=16).contains(&CA), "CqConfigTable: CA must be 1..=16");
        Self {
            clock: Default::default(),
            rd_valid: Default::default(),
            rd_cqn: Default::default(),
            cqc_valid: Default::default(),
            cqc_exists: Default::default(),
            cqc_base: Default::default(),
            cqc_log2_entries: Default::default(),
            cqc_vector: Default::default(),
            fsm_rd: Default::default(),
            fsm_cqn: Default::default(),
            fsm_ack: Default::default(),
            rq_base_lo: Default::default(),
            rq_base_hi: Default::default(),
            rq_cfg: Default::default(),
            rq_exists: Default::default(),
            wr_cqn: Default::default(),
            we_cfg: Default::default(),
            wd_base_lo: Default::default(),
            wd_base_hi: Default::default(),
            wd_cfg: Default::default(),
            wd_exists: Default::default(),
            ref_cqn: Default::default(),
            ref_we: Default::default(),
            ref_wd: Default::default(),
            rq_ref: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            m_base_lo: zero_ram(),
            m_base_hi: zero_ram(),
            m_cfg: zero_ram(),
            m_exists: zero_ram(),
            m_ref: zero_ram(),
            v1: Default::default(),
            o_valid: Default::default(),
            o_exists: Default::default(),
            o_base: Default::default(),
            o_log2: Default::default(),
            o_vector: Default::default(),
            clr: Default::default(),
            clr_idx: Default::default(),
            ref_q: Default::default(),
            c_zero_a: konst(0),
            c_one_a: konst(1),
            c_last_a: konst((1u64 << CA) - 1),
            c_log2_lsb: super::lsb_const(cq_cfg::LOG2_ENTRIES),
            c_vec_lsb: super::lsb_const(cq_cfg::VECTOR),
            rd_addr: Default::default(),
            w_addr: Default::default(),
            r_addr: Default::default(),
        }
    }
}

impl<const CA: usize> Logic for CqConfigTable<CA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, v1, o_valid, o_exists, o_base, o_log2, o_vector, clr, clr_idx, ref_q
        );
        self.m_base_lo.read_clock.next = self.clock.val();
        self.m_base_lo.write_clock.next = self.clock.val();
        self.m_base_hi.read_clock.next = self.clock.val();
        self.m_base_hi.write_clock.next = self.clock.val();
        self.m_cfg.read_clock.next = self.clock.val();
        self.m_cfg.write_clock.next = self.clock.val();
        self.m_exists.read_clock.next = self.clock.val();
        self.m_exists.write_clock.next = self.clock.val();
        self.m_ref.read_clock.next = self.clock.val();
        self.m_ref.write_clock.next = self.clock.val();

        self.rd_addr.next = self.fsm_cqn.val();
        if self.rd_valid.val() {
            self.rd_addr.next = self.rd_cqn.val();
        }
        self.fsm_ack.next = self.fsm_rd.val() & !self.rd_valid.val();
        self.w_addr.next = self.wr_cqn.val();
        self.r_addr.next = self.ref_cqn.val();
        if self.clr.q.val() {
            self.w_addr.next = self.clr_idx.q.val();
            self.r_addr.next = self.clr_idx.q.val();
        }
        self.m_base_lo.read_address.next = self.rd_addr.val();
        self.m_base_hi.read_address.next = self.rd_addr.val();
        self.m_cfg.read_address.next = self.rd_addr.val();
        self.m_exists.read_address.next = self.rd_addr.val();
        self.m_ref.read_address.next = self.ref_cqn.val();
        self.m_base_lo.write_address.next = self.w_addr.val();
        self.m_base_hi.write_address.next = self.w_addr.val();
        self.m_cfg.write_address.next = self.w_addr.val();
        self.m_exists.write_address.next = self.w_addr.val();
        self.m_ref.write_address.next = self.r_addr.val();
        self.m_base_lo.write_data.next = self.wd_base_lo.val();
        self.m_base_hi.write_data.next = self.wd_base_hi.val();
        self.m_cfg.write_data.next = self.wd_cfg.val();
        self.m_exists.write_data.next = self.wd_exists.val();
        self.m_ref.write_data.next = self.ref_wd.val();
        self.m_base_lo.write_enable.next = self.we_cfg.val();
        self.m_base_hi.write_enable.next = self.we_cfg.val();
        self.m_cfg.write_enable.next = self.we_cfg.val();
        self.m_exists.write_enable.next = self.we_cfg.val();
        self.m_ref.write_enable.next = self.ref_we.val();
        if self.clr.q.val() {
            self.m_base_lo.write_data.next = 0.into();
            self.m_base_hi.write_data.next = 0.into();
            self.m_cfg.write_data.next = 0.into();
            self.m_exists.write_data.next = false;
            self.m_ref.write_data.next = 0.into();
            self.m_base_lo.write_enable.next = true;
            self.m_base_hi.write_enable.next = true;
            self.m_cfg.write_enable.next = true;
            self.m_exists.write_enable.next = true;
            self.m_ref.write_enable.next = true;
            self.clr_idx.d.next = self.clr_idx.q.val() + self.c_one_a.val();
            if self.clr_idx.q.val() == self.c_last_a.val() {
                self.clr.d.next = false;
            }
        }
        if self.clear.val() & !self.clr.q.val() {
            self.clr.d.next = true;
            self.clr_idx.d.next = self.c_zero_a.val();
        }
        self.clearing.next = self.clr.q.val();

        self.rq_base_lo.next = self.m_base_lo.read_data.val();
        self.rq_base_hi.next = self.m_base_hi.read_data.val();
        self.rq_cfg.next = self.m_cfg.read_data.val();
        self.rq_exists.next = self.m_exists.read_data.val();
        self.ref_q.d.next = self.m_ref.read_data.val();
        self.rq_ref.next = self.ref_q.q.val();

        self.v1.d.next = self.rd_valid.val();
        self.o_valid.d.next = self.v1.q.val();
        if self.v1.q.val() {
            self.o_exists.d.next = self.m_exists.read_data.val();
            self.o_base.d.next = (bit_cast::<64, 32>(self.m_base_hi.read_data.val()) << 32)
                | bit_cast::<64, 32>(self.m_base_lo.read_data.val());
            self.o_log2.d.next = self
                .m_cfg
                .read_data
                .val()
                .get_bits::<LOG2_W>(self.c_log2_lsb.val().index());
            self.o_vector.d.next = self
                .m_cfg
                .read_data
                .val()
                .get_bits::<VEC_W>(self.c_vec_lsb.val().index());
        }
        self.cqc_valid.next = self.o_valid.q.val();
        self.cqc_exists.next = self.o_exists.q.val();
        self.cqc_base.next = self.o_base.q.val();
        self.cqc_log2_entries.next = self.o_log2.q.val();
        self.cqc_vector.next = self.o_vector.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cq_config_table_synthesises() {
        let mut uut = CqConfigTable::<4>::default();
        super::super::synth_check(&mut uut, "cq_config");
    }
}
