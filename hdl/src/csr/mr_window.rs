//! [`MrWindow`]: the MR command window (HOST-INTERFACE 6.2) driving an [`MrTable`] that lives
//! inside it; the table's lookup port is passed through (`req_*` / `resp_*`).
//!
//! Commands (result in `MR_CMD_STATUS.RESULT`):
//! * WRITE: BadIndex if `MR_CMD_INDEX >= 2^MA`; BadValue if `MR_KEY >> 8 != MR_CMD_INDEX`, if
//!   `MR_ACCESS[7:4]` names a flag the hardware does not implement, if REMOTE_WRITE or
//!   REMOTE_ATOMIC is given without LOCAL_WRITE, or if `va + len` or `dma + len` overflows 64
//!   bits (`MrEntry::validate`); else the table's WRITE, done when the table reports done.
//! * INVALIDATE: BadIndex; the table's INVALIDATE; then the drain handshake: `drain_req` stays
//!   high until `drain_ack`, which the engines give once every access that passed the MR check
//!   before the INVALIDATE has finished moving data (tie `drain_ack = drain_req` without
//!   engines). Only then does the command report done.
//! * QUERY: BadIndex; the table's QUERY; the staging registers are loaded (`MR_KEY` = index << 8
//!   | key8, `MR_ACCESS` = flags | VALID << 31).
//! * other codes: Unsupported.
//! * `clear` (CFG_RESET): the table's CLEAR (`2^MA` cycles), `clearing` meanwhile.
use super::{addr_const, konst, lsb_const, Addr};
use crate::mr::MrTable;
use ferroce_proto::host::mr;
use ferroce_proto::host::qp::AccessFlags;
use ferroce_proto::host::regs::{self, cmd_status, mr_access, mr_cmd, CmdResult};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum MrState {
    Idle,
    ClearIssue,
    ClearWait,
    Start,
    Issue,
    Wait,
    Drain,
    Finish,
}

#[derive(LogicBlock)]
pub struct MrWindow<const MA: usize> {
    pub clock: Signal<In, Clock>,
    pub wr: Signal<In, Bit>,
    pub waddr: Signal<In, Addr>,
    pub wdata: Signal<In, Bits<32>>,
    pub rd: Signal<In, Bit>,
    pub raddr: Signal<In, Addr>,
    pub rdata: Signal<Out, Bits<32>>,
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    pub cmd_done: Signal<Out, Bit>,
    pub drain_req: Signal<Out, Bit>,
    pub drain_ack: Signal<In, Bit>,
    // ---- MR table lookup port (pass-through) ----
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_key: Signal<In, Bits<32>>,
    pub req_pd: Signal<In, Bits<24>>,
    pub req_need: Signal<In, Bits<4>>,
    pub req_va: Signal<In, Bits<64>>,
    pub req_len: Signal<In, Bits<64>>,
    pub req_remote: Signal<In, Bit>,
    pub req_tag: Signal<In, Bits<8>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_ok: Signal<Out, Bit>,
    pub resp_code: Signal<Out, Bits<3>>,
    pub resp_zero: Signal<Out, Bit>,
    pub resp_addr: Signal<Out, Bits<64>>,
    pub resp_remote: Signal<Out, Bit>,
    pub resp_tag: Signal<Out, Bits<8>>,
    mr: MrTable<MA>,

    s_index: DFF<Bits<32>>,
    s_key: DFF<Bits<32>>,
    s_pd: DFF<Bits<32>>,
    s_access: DFF<Bits<32>>,
    s_va_lo: DFF<Bits<32>>,
    s_va_hi: DFF<Bits<32>>,
    s_len_lo: DFF<Bits<32>>,
    s_len_hi: DFF<Bits<32>>,
    s_dma_lo: DFF<Bits<32>>,
    s_dma_hi: DFF<Bits<32>>,
    busy: DFF<Bit>,
    cmd: DFF<Bits<32>>,
    result: DFF<Bits<8>>,
    res: DFF<Bits<8>>,
    st: DFF<MrState>,
    clr_pend: DFF<Bit>,
    done_q: DFF<Bit>,

    a_index: Constant<Addr>,
    a_cmd: Constant<Addr>,
    a_status: Constant<Addr>,
    a_key: Constant<Addr>,
    a_pd: Constant<Addr>,
    a_access: Constant<Addr>,
    a_va_lo: Constant<Addr>,
    a_va_hi: Constant<Addr>,
    a_len_lo: Constant<Addr>,
    a_len_hi: Constant<Addr>,
    a_dma_lo: Constant<Addr>,
    a_dma_hi: Constant<Addr>,
    k_write: Constant<Bits<32>>,
    k_inval: Constant<Bits<32>>,
    k_query: Constant<Bits<32>>,
    k_r_ok: Constant<Bits<8>>,
    k_r_index: Constant<Bits<8>>,
    k_r_value: Constant<Bits<8>>,
    k_r_unsup: Constant<Bits<8>>,
    k_busy_mask: Constant<Bits<32>>,
    k_result_lsb: Constant<Bits<5>>,
    k_idx_oob: Constant<Bits<32>>,
    k_idx24: Constant<Bits<32>>,
    k_valid: Constant<Bits<32>>,
    k_flags_lsb: Constant<Bits<5>>,
    k_acc_unsup: Constant<Bits<8>>,
    k_acc_needs_lw: Constant<Bits<8>>,
    k_acc_lw: Constant<Bits<8>>,
    k_zero8: Constant<Bits<8>>,
    k_zero32: Constant<Bits<32>>,

    idx_bad: Signal<Local, Bit>,
    acc8: Signal<Local, Bits<8>>,
    bad_value: Signal<Local, Bit>,
    va_sum: Signal<Local, Bits<32>>,
    dma_sum: Signal<Local, Bits<32>>,
    va_c: Signal<Local, Bit>,
    dma_c: Signal<Local, Bit>,
    va_ovf: Signal<Local, Bit>,
    dma_ovf: Signal<Local, Bit>,
    len_hi_n: Signal<Local, Bits<32>>,
    busy_word: Signal<Local, Bits<32>>,
}

impl<const MA: usize> Default for MrWindow<MA> {
    fn default() -> Self {
        assert!(MA <= 24);
        let r = |x: CmdResult| konst::<8>(x as u64);
        let needs_lw = (AccessFlags::REMOTE_WRITE.0 | AccessFlags::REMOTE_ATOMIC.0) as u64;
        Self {
            clock: Default::default(),
            wr: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            rd: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            cmd_done: Default::default(),
            drain_req: Default::default(),
            drain_ack: Default::default(),
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
            mr: Default::default(),
            s_index: Default::default(),
            s_key: Default::default(),
            s_pd: Default::default(),
            s_access: Default::default(),
            s_va_lo: Default::default(),
            s_va_hi: Default::default(),
            s_len_lo: Default::default(),
            s_len_hi: Default::default(),
            s_dma_lo: Default::default(),
            s_dma_hi: Default::default(),
            busy: Default::default(),
            cmd: Default::default(),
            result: Default::default(),
            res: Default::default(),
            st: Default::default(),
            clr_pend: Default::default(),
            done_q: Default::default(),
            a_index: addr_const(regs::MR_CMD_INDEX),
            a_cmd: addr_const(regs::MR_CMD),
            a_status: addr_const(regs::MR_CMD_STATUS),
            a_key: addr_const(regs::MR_KEY),
            a_pd: addr_const(regs::MR_PD),
            a_access: addr_const(regs::MR_ACCESS),
            a_va_lo: addr_const(regs::MR_VA_LO),
            a_va_hi: addr_const(regs::MR_VA_HI),
            a_len_lo: addr_const(regs::MR_LEN_LO),
            a_len_hi: addr_const(regs::MR_LEN_HI),
            a_dma_lo: addr_const(regs::MR_DMA_LO),
            a_dma_hi: addr_const(regs::MR_DMA_HI),
            k_write: konst(mr_cmd::WRITE as u64),
            k_inval: konst(mr_cmd::INVALIDATE as u64),
            k_query: konst(mr_cmd::QUERY as u64),
            k_r_ok: r(CmdResult::Ok),
            k_r_index: r(CmdResult::BadIndex),
            k_r_value: r(CmdResult::BadValue),
            k_r_unsup: r(CmdResult::Unsupported),
            k_busy_mask: konst(cmd_status::BUSY.mask() as u64),
            k_result_lsb: lsb_const(cmd_status::RESULT),
            k_idx_oob: konst(0xFFFF_FFFF & !((1u64 << MA) - 1)),
            // key index = key >> 8 (24 bits)
            k_idx24: konst((regs::MAX_MRS - 1) as u64),
            k_valid: konst(mr_access::VALID.mask() as u64),
            k_flags_lsb: lsb_const(mr_access::FLAGS),
            k_acc_unsup: konst((mr_access::FLAGS.max() & !AccessFlags::HW_MASK.0) as u64),
            k_acc_needs_lw: konst(needs_lw),
            k_acc_lw: konst(AccessFlags::LOCAL_WRITE.0 as u64),
            k_zero8: konst(0),
            k_zero32: konst(0),
            idx_bad: Default::default(),
            acc8: Default::default(),
            bad_value: Default::default(),
            va_sum: Default::default(),
            dma_sum: Default::default(),
            va_c: Default::default(),
            dma_c: Default::default(),
            va_ovf: Default::default(),
            dma_ovf: Default::default(),
            len_hi_n: Default::default(),
            busy_word: Default::default(),
        }
    }
}

impl<const MA: usize> Logic for MrWindow<MA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s_index, s_key, s_pd, s_access, s_va_lo, s_va_hi, s_len_lo, s_len_hi,
            s_dma_lo, s_dma_hi, busy, cmd, result, res, st, clr_pend, done_q
        );
        self.mr.clock.next = self.clock.val();
        self.mr.req_valid.next = self.req_valid.val();
        self.req_ready.next = self.mr.req_ready.val();
        self.mr.req_key.next = self.req_key.val();
        self.mr.req_pd.next = self.req_pd.val();
        self.mr.req_need.next = self.req_need.val();
        self.mr.req_va.next = self.req_va.val();
        self.mr.req_len.next = self.req_len.val();
        self.mr.req_remote.next = self.req_remote.val();
        self.mr.req_tag.next = self.req_tag.val();
        self.resp_valid.next = self.mr.resp_valid.val();
        self.resp_ok.next = self.mr.resp_ok.val();
        self.resp_code.next = self.mr.resp_code.val();
        self.resp_zero.next = self.mr.resp_zero.val();
        self.resp_addr.next = self.mr.resp_addr.val();
        self.resp_remote.next = self.mr.resp_remote.val();
        self.resp_tag.next = self.mr.resp_tag.val();
        // ---------------- checks (defaults first) ----------------
        self.idx_bad.next = (self.s_index.q.val() & self.k_idx_oob.val()) != self.k_zero32.val();
        self.acc8.next = self
            .s_access
            .q
            .val()
            .get_bits::<8>(self.k_flags_lsb.val().index());
        // 64-bit a + b overflows iff a_hi > ~b_hi, or a_hi == ~b_hi and the low halves carry
        self.len_hi_n.next = !self.s_len_hi.q.val();
        self.va_sum.next = self.s_va_lo.q.val() + self.s_len_lo.q.val();
        self.dma_sum.next = self.s_dma_lo.q.val() + self.s_len_lo.q.val();
        self.va_c.next = self.va_sum.val() < self.s_va_lo.q.val();
        self.dma_c.next = self.dma_sum.val() < self.s_dma_lo.q.val();
        self.va_ovf.next = (self.s_va_hi.q.val() > self.len_hi_n.val())
            | ((self.s_va_hi.q.val() == self.len_hi_n.val()) & self.va_c.val());
        self.dma_ovf.next = (self.s_dma_hi.q.val() > self.len_hi_n.val())
            | ((self.s_dma_hi.q.val() == self.len_hi_n.val()) & self.dma_c.val());
        self.bad_value.next = ((self.s_key.q.val() >> 8)
            != (self.s_index.q.val() & self.k_idx24.val()))
            | ((self.acc8.val() & self.k_acc_unsup.val()) != self.k_zero8.val())
            | (((self.acc8.val() & self.k_acc_needs_lw.val()) != self.k_zero8.val())
                & ((self.acc8.val() & self.k_acc_lw.val()) == self.k_zero8.val()))
            | self.va_ovf.val()
            | self.dma_ovf.val();

        // ---------------- table programming port ----------------
        self.mr.cmd_index.next = self.s_index.q.val().get_bits::<MA>(0);
        self.mr.cmd_write.next = false;
        self.mr.cmd_invalidate.next = false;
        self.mr.cmd_query.next = false;
        self.mr.cmd_clear.next = false;
        self.mr.wr_key8.next = self.s_key.q.val().get_bits::<8>(0);
        self.mr.wr_pd.next = self.s_pd.q.val().get_bits::<24>(0);
        self.mr.wr_access.next = self.acc8.val().get_bits::<4>(0);
        self.mr.wr_va.next = (bit_cast::<64, 32>(self.s_va_hi.q.val()) << 32)
            | bit_cast::<64, 32>(self.s_va_lo.q.val());
        self.mr.wr_len.next = (bit_cast::<64, 32>(self.s_len_hi.q.val()) << 32)
            | bit_cast::<64, 32>(self.s_len_lo.q.val());
        self.mr.wr_dma.next = (bit_cast::<64, 32>(self.s_dma_hi.q.val()) << 32)
            | bit_cast::<64, 32>(self.s_dma_lo.q.val());
        self.drain_req.next = false;
        self.done_q.d.next = false;
        if self.clear.val() {
            self.clr_pend.d.next = true;
        }

        // ---------------- host writes (ignored while BUSY) ----------------
        if self.wr.val() & !self.busy.q.val() {
            if self.waddr.val() == self.a_index.val() {
                self.s_index.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_cmd.val() {
                self.busy.d.next = true;
                self.cmd.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_key.val() {
                self.s_key.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_pd.val() {
                self.s_pd.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_access.val() {
                // VALID (bit 31) is read-only: kept
                self.s_access.d.next = (self.wdata.val() & !self.k_valid.val())
                    | (self.s_access.q.val() & self.k_valid.val());
            }
            if self.waddr.val() == self.a_va_lo.val() {
                self.s_va_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_va_hi.val() {
                self.s_va_hi.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_len_lo.val() {
                self.s_len_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_len_hi.val() {
                self.s_len_hi.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dma_lo.val() {
                self.s_dma_lo.d.next = self.wdata.val();
            }
            if self.waddr.val() == self.a_dma_hi.val() {
                self.s_dma_hi.d.next = self.wdata.val();
            }
        }

        // ---------------- state machine ----------------
        match self.st.q.val() {
            MrState::Idle => {
                if self.clr_pend.q.val() {
                    self.st.d.next = MrState::ClearIssue;
                } else if self.busy.q.val() {
                    self.st.d.next = MrState::Start;
                }
            }
            MrState::ClearIssue => {
                if !self.mr.cmd_busy.val() {
                    self.mr.cmd_clear.next = true;
                    self.clr_pend.d.next = false;
                    self.st.d.next = MrState::ClearWait;
                }
            }
            MrState::ClearWait => {
                if self.mr.cmd_done.val() {
                    self.st.d.next = MrState::Idle;
                }
            }
            MrState::Start => {
                self.st.d.next = MrState::Finish;
                if (self.cmd.q.val() != self.k_write.val())
                    & (self.cmd.q.val() != self.k_inval.val())
                    & (self.cmd.q.val() != self.k_query.val())
                {
                    self.res.d.next = self.k_r_unsup.val();
                } else if self.idx_bad.val() {
                    self.res.d.next = self.k_r_index.val();
                } else if (self.cmd.q.val() == self.k_write.val()) & self.bad_value.val() {
                    self.res.d.next = self.k_r_value.val();
                } else {
                    self.st.d.next = MrState::Issue;
                }
            }
            MrState::Issue => {
                if !self.mr.cmd_busy.val() {
                    self.mr.cmd_write.next = self.cmd.q.val() == self.k_write.val();
                    self.mr.cmd_invalidate.next = self.cmd.q.val() == self.k_inval.val();
                    self.mr.cmd_query.next = self.cmd.q.val() == self.k_query.val();
                    self.st.d.next = MrState::Wait;
                }
            }
            MrState::Wait => {
                if self.mr.cmd_done.val() {
                    self.res.d.next = self.k_r_ok.val();
                    self.st.d.next = MrState::Finish;
                    if self.cmd.q.val() == self.k_inval.val() {
                        self.st.d.next = MrState::Drain;
                    }
                    if self.cmd.q.val() == self.k_query.val() {
                        self.s_key.d.next = ((self.s_index.q.val() & self.k_idx24.val()) << 8)
                            | bit_cast::<32, 8>(self.mr.q_key8.val());
                        self.s_pd.d.next = bit_cast::<32, 24>(self.mr.q_pd.val());
                        self.s_access.d.next =
                            bit_cast::<32, 4>(self.mr.q_access.val()) << self.k_flags_lsb.val();
                        if self.mr.q_valid.val() {
                            self.s_access.d.next = (bit_cast::<32, 4>(self.mr.q_access.val())
                                << self.k_flags_lsb.val())
                                | self.k_valid.val();
                        }
                        self.s_va_lo.d.next = self.mr.q_va.val().get_bits::<32>(0);
                        self.s_va_hi.d.next = self.mr.q_va.val().get_bits::<32>(32);
                        self.s_len_lo.d.next = self.mr.q_len.val().get_bits::<32>(0);
                        self.s_len_hi.d.next = self.mr.q_len.val().get_bits::<32>(32);
                        self.s_dma_lo.d.next = self.mr.q_dma.val().get_bits::<32>(0);
                        self.s_dma_hi.d.next = self.mr.q_dma.val().get_bits::<32>(32);
                    }
                }
            }
            MrState::Drain => {
                self.drain_req.next = true;
                if self.drain_ack.val() {
                    self.st.d.next = MrState::Finish;
                }
            }
            MrState::Finish => {
                self.done_q.d.next = true;
                self.busy.d.next = false;
                self.result.d.next = self.res.q.val();
                self.st.d.next = MrState::Idle;
            }
        }

        // ---------------- reads ----------------
        self.busy_word.next = self.k_zero32.val();
        if self.busy.q.val() {
            self.busy_word.next = self.k_busy_mask.val();
        }
        self.rdata.next = self.k_zero32.val();
        if self.rd.val() {
            if self.raddr.val() == self.a_index.val() {
                self.rdata.next = self.s_index.q.val();
            }
            if self.raddr.val() == self.a_status.val() {
                self.rdata.next = (bit_cast::<32, 8>(self.result.q.val())
                    << self.k_result_lsb.val())
                    | self.busy_word.val();
            }
            if self.raddr.val() == self.a_key.val() {
                self.rdata.next = self.s_key.q.val();
            }
            if self.raddr.val() == self.a_pd.val() {
                self.rdata.next = self.s_pd.q.val();
            }
            if self.raddr.val() == self.a_access.val() {
                self.rdata.next = self.s_access.q.val();
            }
            if self.raddr.val() == self.a_va_lo.val() {
                self.rdata.next = self.s_va_lo.q.val();
            }
            if self.raddr.val() == self.a_va_hi.val() {
                self.rdata.next = self.s_va_hi.q.val();
            }
            if self.raddr.val() == self.a_len_lo.val() {
                self.rdata.next = self.s_len_lo.q.val();
            }
            if self.raddr.val() == self.a_len_hi.val() {
                self.rdata.next = self.s_len_hi.q.val();
            }
            if self.raddr.val() == self.a_dma_lo.val() {
                self.rdata.next = self.s_dma_lo.q.val();
            }
            if self.raddr.val() == self.a_dma_hi.val() {
                self.rdata.next = self.s_dma_hi.q.val();
            }
        }
        self.clearing.next = self.clr_pend.q.val()
            | (self.st.q.val() == MrState::ClearIssue)
            | (self.st.q.val() == MrState::ClearWait);
        self.cmd_done.next = self.done_q.q.val();
    }
}

/// The MR key layout the window relies on (`key = index << 8 | key8`).
const _: () = assert!(mr::make_key(1, 0) == 1 << 8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_window_synthesises() {
        let mut uut = MrWindow::<4>::default();
        super::super::synth_check(&mut uut, "csr_mr");
    }
}
