//! [`CsrDoorbells`]: decodes writes to the doorbell regions (HOST-INTERFACE section 5) into two
//! event streams, each buffered in a [`RegFifo`] of [`DB_FIFO_DEPTH`] entries:
//!
//! * `qev_*` (QP events): `qev_kind` = [`QEV_SQ`] / [`QEV_RQ`] (a doorbell; `qev_value` = the
//!   new producer index, `db::PRODUCER` of the written word) or [`QEV_MODIFY`] (a MODIFY
//!   command completed; `qev_value` = new state in `QP_STATE.STATE`, old state in
//!   `QP_STATE.CUR_STATE`); `qev_qpn` the QPN.
//! * `cev_*` (CQ events): `cev_kind` = [`CEV_CI`] / [`CEV_ARM`] (a doorbell; `cev_value` = the
//!   written word: CI in 23:0, arm mode in 25:24) or [`CEV_CREATE`] (`cev_value` = the initial
//!   CI) / [`CEV_DESTROY`]; `cev_cqn` the CQN.
//!
//! Both are valid/ready streams (AXI rules: `*_valid` stays high and the entry stable until
//! `*_ready`). The decode is `number = (addr - base) >> log2(stride)`, word = `(addr - base) &
//! (stride - 1)`, with bases and strides from `regs`. A doorbell for a number at or above the
//! implemented count (`2^QA` QPs, `2^CA` CQs) is dropped.
//!
//! Back-pressure: `wr_ok` says whether a write to `waddr` can be performed now: it is low when
//! the write is a doorbell for a full FIFO. The AXI front end holds such a write (its `awready`
//! / `wready` stay low) until `wr_ok` rises, so no doorbell is ever lost. Bus doorbells have
//! priority over the context notifications (`qmod_*`, `cnote_*`), which wait (`*_ready` low)
//! in a cycle in which the bus pushes into the same FIFO.
use super::{
    addr_const, konst, lsb_const, Addr, CEV_ARM, CEV_CI, DB_FIFO_DEPTH, QEV_MODIFY, QEV_RQ, QEV_SQ,
};
use crate::widget::RegFifo;
use ferroce_proto::host::regs::{self, db};
use rust_hdl::prelude::*;

/// Width of a QPN / CQN in the doorbell address space (64 Ki of each).
pub const DB_NUM_BITS: usize = regs::MAX_QPS.trailing_zeros() as usize;
const _: () = assert!(regs::MAX_QPS == regs::MAX_CQS);
/// Width of the SQ/RQ producer index (`db::PRODUCER`).
pub const PI_BITS: usize = db::PRODUCER.width as usize;
// The FIFO entry layouts below use the literal field positions 2 and 18.
const _: () = assert!(DB_NUM_BITS == 16 && PI_BITS == 16);
/// QP FIFO entry: kind 1:0, qpn 17:2, value 33:18.
pub const QEV_W: usize = 2 + DB_NUM_BITS + PI_BITS;
/// CQ FIFO entry: kind 1:0, cqn 17:2, value 49:18.
pub const CEV_W: usize = 2 + DB_NUM_BITS + 32;

#[derive(LogicBlock)]
pub struct CsrDoorbells<const QA: usize, const CA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- register bus (writes only; doorbells read 0) ----
    pub wr: Signal<In, Bit>,
    pub waddr: Signal<In, Addr>,
    pub wdata: Signal<In, Bits<32>>,
    pub wr_ok: Signal<Out, Bit>,
    pub flush: Signal<In, Bit>,
    // ---- notifications from the command windows ----
    pub qmod_valid: Signal<In, Bit>,
    pub qmod_ready: Signal<Out, Bit>,
    pub qmod_qpn: Signal<In, Bits<DB_NUM_BITS>>,
    pub qmod_value: Signal<In, Bits<PI_BITS>>,
    pub cnote_valid: Signal<In, Bit>,
    pub cnote_ready: Signal<Out, Bit>,
    pub cnote_kind: Signal<In, Bits<2>>,
    pub cnote_cqn: Signal<In, Bits<DB_NUM_BITS>>,
    pub cnote_value: Signal<In, Bits<32>>,
    // ---- event streams ----
    pub qev_valid: Signal<Out, Bit>,
    pub qev_ready: Signal<In, Bit>,
    pub qev_kind: Signal<Out, Bits<2>>,
    pub qev_qpn: Signal<Out, Bits<DB_NUM_BITS>>,
    pub qev_value: Signal<Out, Bits<PI_BITS>>,
    pub cev_valid: Signal<Out, Bit>,
    pub cev_ready: Signal<In, Bit>,
    pub cev_kind: Signal<Out, Bits<2>>,
    pub cev_cqn: Signal<Out, Bits<DB_NUM_BITS>>,
    pub cev_value: Signal<Out, Bits<32>>,

    qfifo: RegFifo<QEV_W, DB_FIFO_DEPTH, 4>,
    cfifo: RegFifo<CEV_W, DB_FIFO_DEPTH, 4>,

    c_qp_base: Constant<Addr>,
    c_cq_base: Constant<Addr>,
    c_qp_sh: Constant<Bits<5>>,
    c_cq_sh: Constant<Bits<5>>,
    c_qp_word: Constant<Addr>,
    c_cq_word: Constant<Addr>,
    c_rq_off: Constant<Addr>,
    c_arm_off: Constant<Addr>,
    c_qpn_oob: Constant<Bits<DB_NUM_BITS>>,
    c_cqn_oob: Constant<Bits<DB_NUM_BITS>>,
    c_zero_num: Constant<Bits<DB_NUM_BITS>>,
    c_pi_lsb: Constant<Bits<5>>,
    c_k_sq: Constant<Bits<2>>,
    c_k_rq: Constant<Bits<2>>,
    c_k_ci: Constant<Bits<2>>,
    c_k_arm: Constant<Bits<2>>,
    c_k_mod: Constant<Bits<2>>,

    qrel: Signal<Local, Addr>,
    crel: Signal<Local, Addr>,
    qpn: Signal<Local, Bits<DB_NUM_BITS>>,
    cqn: Signal<Local, Bits<DB_NUM_BITS>>,
    is_rq: Signal<Local, Bit>,
    is_arm: Signal<Local, Bit>,
    qhit: Signal<Local, Bit>,
    chit: Signal<Local, Bit>,
    qkind: Signal<Local, Bits<2>>,
    ckind: Signal<Local, Bits<2>>,
    bus_q: Signal<Local, Bit>,
    bus_c: Signal<Local, Bit>,
}

impl<const QA: usize, const CA: usize> Default for CsrDoorbells<QA, CA> {
    fn default() -> Self {
        assert!(QA <= DB_NUM_BITS && CA <= DB_NUM_BITS);
        assert!(regs::DB_QP_STRIDE.is_power_of_two() && regs::DB_CQ_STRIDE.is_power_of_two());
        assert!(regs::DB_QP_BASE < regs::DB_CQ_BASE);
        let num_mask = (1u64 << DB_NUM_BITS) - 1;
        CsrDoorbells {
            clock: Default::default(),
            wr: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            wr_ok: Default::default(),
            flush: Default::default(),
            qmod_valid: Default::default(),
            qmod_ready: Default::default(),
            qmod_qpn: Default::default(),
            qmod_value: Default::default(),
            cnote_valid: Default::default(),
            cnote_ready: Default::default(),
            cnote_kind: Default::default(),
            cnote_cqn: Default::default(),
            cnote_value: Default::default(),
            qev_valid: Default::default(),
            qev_ready: Default::default(),
            qev_kind: Default::default(),
            qev_qpn: Default::default(),
            qev_value: Default::default(),
            cev_valid: Default::default(),
            cev_ready: Default::default(),
            cev_kind: Default::default(),
            cev_cqn: Default::default(),
            cev_value: Default::default(),
            qfifo: Default::default(),
            cfifo: Default::default(),
            c_qp_base: addr_const(regs::DB_QP_BASE),
            c_cq_base: addr_const(regs::DB_CQ_BASE),
            c_qp_sh: konst(regs::DB_QP_STRIDE.trailing_zeros() as u64),
            c_cq_sh: konst(regs::DB_CQ_STRIDE.trailing_zeros() as u64),
            c_qp_word: addr_const(regs::DB_QP_STRIDE - 1),
            c_cq_word: addr_const(regs::DB_CQ_STRIDE - 1),
            c_rq_off: addr_const(regs::DB_RQ - regs::DB_SQ),
            c_arm_off: addr_const(regs::DB_CQ_ARM - regs::DB_CQ_CI),
            c_qpn_oob: konst(num_mask & !((1u64 << QA) - 1)),
            c_cqn_oob: konst(num_mask & !((1u64 << CA) - 1)),
            c_zero_num: konst(0),
            c_pi_lsb: lsb_const(db::PRODUCER),
            c_k_sq: konst(QEV_SQ),
            c_k_rq: konst(QEV_RQ),
            c_k_ci: konst(CEV_CI),
            c_k_arm: konst(CEV_ARM),
            c_k_mod: konst(QEV_MODIFY),
            qrel: Default::default(),
            crel: Default::default(),
            qpn: Default::default(),
            cqn: Default::default(),
            is_rq: Default::default(),
            is_arm: Default::default(),
            qhit: Default::default(),
            chit: Default::default(),
            qkind: Default::default(),
            ckind: Default::default(),
            bus_q: Default::default(),
            bus_c: Default::default(),
        }
    }
}

impl<const QA: usize, const CA: usize> Logic for CsrDoorbells<QA, CA> {
    #[hdl_gen]
    fn update(&mut self) {
        self.qfifo.clock.next = self.clock.val();
        self.cfifo.clock.next = self.clock.val();
        // ---------------- decode (defaults first) ----------------
        self.qrel.next = self.waddr.val() - self.c_qp_base.val();
        self.crel.next = self.waddr.val() - self.c_cq_base.val();
        self.qpn.next = self
            .qrel
            .val()
            .get_bits::<DB_NUM_BITS>(self.c_qp_sh.val().index());
        self.cqn.next = self
            .crel
            .val()
            .get_bits::<DB_NUM_BITS>(self.c_cq_sh.val().index());
        self.is_rq.next = (self.qrel.val() & self.c_qp_word.val()) == self.c_rq_off.val();
        self.is_arm.next = (self.crel.val() & self.c_cq_word.val()) == self.c_arm_off.val();
        self.qhit.next = (self.waddr.val() >= self.c_qp_base.val())
            & (self.waddr.val() < self.c_cq_base.val())
            & ((self.qpn.val() & self.c_qpn_oob.val()) == self.c_zero_num.val());
        self.chit.next = (self.waddr.val() >= self.c_cq_base.val())
            & ((self.cqn.val() & self.c_cqn_oob.val()) == self.c_zero_num.val());
        self.qkind.next = self.c_k_sq.val();
        if self.is_rq.val() {
            self.qkind.next = self.c_k_rq.val();
        }
        self.ckind.next = self.c_k_ci.val();
        if self.is_arm.val() {
            self.ckind.next = self.c_k_arm.val();
        }
        self.wr_ok.next =
            !(self.qhit.val() & self.qfifo.full.val()) & !(self.chit.val() & self.cfifo.full.val());
        self.bus_q.next = self.wr.val() & self.qhit.val();
        self.bus_c.next = self.wr.val() & self.chit.val();

        // ---------------- QP FIFO: bus doorbell first, then MODIFY notifications ----------------
        self.qmod_ready.next = !self.bus_q.val() & !self.qfifo.full.val() & !self.flush.val();
        self.qfifo.push.next = self.bus_q.val() | (self.qmod_valid.val() & self.qmod_ready.val());
        self.qfifo.din.next = bit_cast::<QEV_W, 2>(self.c_k_mod.val())
            | (bit_cast::<QEV_W, DB_NUM_BITS>(self.qmod_qpn.val()) << 2)
            | (bit_cast::<QEV_W, PI_BITS>(self.qmod_value.val()) << 18);
        if self.bus_q.val() {
            self.qfifo.din.next = bit_cast::<QEV_W, 2>(self.qkind.val())
                | (bit_cast::<QEV_W, DB_NUM_BITS>(self.qpn.val()) << 2)
                | (bit_cast::<QEV_W, PI_BITS>(
                    self.wdata
                        .val()
                        .get_bits::<PI_BITS>(self.c_pi_lsb.val().index()),
                ) << 18);
        }
        self.qfifo.pop.next = self.qev_ready.val();
        self.qfifo.flush.next = self.flush.val();

        // ---------------- CQ FIFO ----------------
        self.cnote_ready.next = !self.bus_c.val() & !self.cfifo.full.val() & !self.flush.val();
        self.cfifo.push.next = self.bus_c.val() | (self.cnote_valid.val() & self.cnote_ready.val());
        self.cfifo.din.next = bit_cast::<CEV_W, 2>(self.cnote_kind.val())
            | (bit_cast::<CEV_W, DB_NUM_BITS>(self.cnote_cqn.val()) << 2)
            | (bit_cast::<CEV_W, 32>(self.cnote_value.val()) << 18);
        if self.bus_c.val() {
            self.cfifo.din.next = bit_cast::<CEV_W, 2>(self.ckind.val())
                | (bit_cast::<CEV_W, DB_NUM_BITS>(self.cqn.val()) << 2)
                | (bit_cast::<CEV_W, 32>(self.wdata.val()) << 18);
        }
        self.cfifo.pop.next = self.cev_ready.val();
        self.cfifo.flush.next = self.flush.val();

        // ---------------- outputs ----------------
        self.qev_valid.next = self.qfifo.valid.val();
        self.qev_kind.next = self.qfifo.dout.val().get_bits::<2>(0);
        self.qev_qpn.next = self.qfifo.dout.val().get_bits::<DB_NUM_BITS>(2);
        self.qev_value.next = self.qfifo.dout.val().get_bits::<PI_BITS>(18);
        self.cev_valid.next = self.cfifo.valid.val();
        self.cev_kind.next = self.cfifo.dout.val().get_bits::<2>(0);
        self.cev_cqn.next = self.cfifo.dout.val().get_bits::<DB_NUM_BITS>(2);
        self.cev_value.next = self.cfifo.dout.val().get_bits::<32>(18);
    }
}
