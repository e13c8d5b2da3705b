//! [`RcWriteResponder`]: the RC responder for RDMA WRITE (ROCE.md 4.4; decisions in the
//! [module documentation](super)).
//!
//! # Ports
//!
//! * Request in: `hdr_valid`/`hdr_ready`/`hdr` ([`RoceHeader`]) and `pay` (message data only,
//!   first byte in the top byte of the beat, `last` on the final beat, no beats for an empty
//!   payload), exactly [`crate::rx::RxParser`]'s outputs: the payload of a frame follows its
//!   header, and the next header comes after the payload's last beat.
//! * QP context read (the CSR block's engine port, fixed latency 2): `qpc_rd_valid`,
//!   `qpc_rd_qpn` out; `qpc_state`, `qpc_access`, `qpc_pd`, `qpc_dest_qpn`, `qpc_pmtu`,
//!   `qpc_rq_psn` in, read 2 cycles after the request (they need not hold afterwards).
//! * Responder state load: `load_valid`/`load_ready`/`load_qpn`: (re)initialise the QP's
//!   responder state from its QP context (ePSN = `qpc_rq_psn`, MSN 0, no WRITE in progress,
//!   flags clear). The NIC top raises it for every MODIFY into RTR (CSR `qev_*` QEV_MODIFY).
//! * MR lookup master: `mr_req_*` out, `mr_resp_*` in ([`crate::mr::MrTable`]'s port: response
//!   5 cycles after acceptance, no back-pressure; one lookup outstanding at a time here).
//!   `mr_drain_req` in / `mr_drain_ack` out: the INVALIDATE drain handshake.
//! * DMA write master `dma_wr` ([`DmaWriteMaster`], docs/DMA.md): one write per packet with a
//!   non-empty payload, `req_len` = payload bytes, `req_tag` = low 8 bits of the QPN.
//! * Responses: `ack_valid`/`ack_ready`, `ack_qpn` (ours), `ack_dest_qpn`, `ack_psn`,
//!   `ack_syndrome` (AETH syndrome byte), `ack_msn`.
//! * QP to ERR: `qerr_valid`/`qerr_ready`, `qerr_qpn`, `qerr_status`, `qerr_vendor` (the CSR
//!   block's `qerr_*` port).
//! * Counters `cnt_*` (32-bit, saturating, see [`super::counters::RespCounters`]).
//!
//! # Per-QP state (block RAM, `2^QA` rows, zero at power-up)
//!
//! ePSN (24), MSN (24), flags (`nak_sent`, `in_write`: a FIRST/MIDDLE was executed and the
//! message continues, `err`: this responder moved the QP to ERR), and the WRITE cursor: VA
//! (64, as two 32-bit RAMs: 32-bit values simulate much faster), rkey (32) and bytes remaining
//! (32). Read at the address of the packet's QPN, written back once per packet.
//!
//! # Timing
//!
//! One packet at a time, in this order of states: `Idle` (header taken) -> `Rd` (QP context
//! and state RAM read) -> `RdWait` -> `Latch` (both registered) -> `Check` (every check from
//! registers; waits while the ACK queue is full) -> `MrReq` -> `MrWait` (5 cycles) -> `Xfer`
//! (DMA request and payload beats, straight from `pay` to `dma_wr.data`) -> `Commit` (state
//! written, response queued). A packet that is not executed goes from `Check` or `MrWait` to
//! `Drain` (payload discarded) or straight back to `Idle`. That is 12 cycles of overhead per
//! executed packet plus one cycle per payload beat: 128 + 12 cycles for PMTU 1024 at 64 bits
//! (~91% of the stream rate). Pipelining the next header's look-ups under the current payload
//! would hide the overhead; not done yet.
use super::{
    RespAckQueue, RespCounters, QERR_STATUS_ACCESS, QERR_STATUS_INVALID, SYN_ACK, SYN_NAK_ACCESS,
    SYN_NAK_INVALID, SYN_NAK_PSN,
};
use crate::csr::qp_config::{ACC_W, PMTU_W, ST_W};
use crate::dma::DmaWriteMaster;
use crate::header::RoceHeader;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// The default build: 64-bit datapath, 256 QPs.
pub type RcWriteResponder64 = RcWriteResponder<64, 8, 8>;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum WrState {
    Idle,
    LoadRd,
    LoadWait,
    LoadWrite,
    Rd,
    RdWait,
    Latch,
    Check,
    MrReq,
    MrWait,
    Xfer,
    Commit,
    Drain,
}

#[derive(LogicBlock)]
pub struct RcWriteResponder<const B: usize, const K: usize, const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- request ----
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_ready: Signal<Out, Bit>,
    pub hdr: Signal<In, RoceHeader>,
    pub pay: StreamSink<B, K>,
    // ---- QP context read port (latency 2) ----
    pub qpc_rd_valid: Signal<Out, Bit>,
    pub qpc_rd_qpn: Signal<Out, Bits<QA>>,
    pub qpc_state: Signal<In, Bits<ST_W>>,
    pub qpc_access: Signal<In, Bits<ACC_W>>,
    pub qpc_pd: Signal<In, Bits<24>>,
    pub qpc_dest_qpn: Signal<In, Bits<24>>,
    pub qpc_pmtu: Signal<In, Bits<PMTU_W>>,
    pub qpc_rq_psn: Signal<In, Bits<24>>,
    // ---- responder state load ----
    pub load_valid: Signal<In, Bit>,
    pub load_ready: Signal<Out, Bit>,
    pub load_qpn: Signal<In, Bits<QA>>,
    // ---- MR lookup master ----
    pub mr_req_valid: Signal<Out, Bit>,
    pub mr_req_ready: Signal<In, Bit>,
    pub mr_req_key: Signal<Out, Bits<32>>,
    pub mr_req_pd: Signal<Out, Bits<24>>,
    pub mr_req_need: Signal<Out, Bits<4>>,
    pub mr_req_va: Signal<Out, Bits<64>>,
    pub mr_req_len: Signal<Out, Bits<64>>,
    pub mr_req_remote: Signal<Out, Bit>,
    pub mr_req_tag: Signal<Out, Bits<8>>,
    pub mr_resp_valid: Signal<In, Bit>,
    pub mr_resp_ok: Signal<In, Bit>,
    pub mr_resp_code: Signal<In, Bits<3>>,
    pub mr_resp_zero: Signal<In, Bit>,
    pub mr_resp_addr: Signal<In, Bits<64>>,
    pub mr_resp_remote: Signal<In, Bit>,
    pub mr_resp_tag: Signal<In, Bits<8>>,
    pub mr_drain_req: Signal<In, Bit>,
    pub mr_drain_ack: Signal<Out, Bit>,
    // ---- DMA write master ----
    pub dma_wr: DmaWriteMaster<B, K>,
    // ---- responses ----
    pub ack_valid: Signal<Out, Bit>,
    pub ack_ready: Signal<In, Bit>,
    pub ack_qpn: Signal<Out, Bits<QA>>,
    pub ack_dest_qpn: Signal<Out, Bits<24>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub ack_syndrome: Signal<Out, Bits<8>>,
    pub ack_msn: Signal<Out, Bits<24>>,
    // ---- QP to ERR ----
    pub qerr_valid: Signal<Out, Bit>,
    pub qerr_ready: Signal<In, Bit>,
    pub qerr_qpn: Signal<Out, Bits<QA>>,
    pub qerr_status: Signal<Out, Bits<8>>,
    pub qerr_vendor: Signal<Out, Bits<8>>,
    // ---- counters ----
    pub cnt_executed: Signal<Out, Bits<32>>,
    pub cnt_duplicate: Signal<Out, Bits<32>>,
    pub cnt_psn_err: Signal<Out, Bits<32>>,
    pub cnt_access_err: Signal<Out, Bits<32>>,
    pub cnt_invalid: Signal<Out, Bits<32>>,
    pub cnt_unsupported: Signal<Out, Bits<32>>,
    pub cnt_qp_drop: Signal<Out, Bits<32>>,
    pub cnt_dma_error: Signal<Out, Bits<32>>,

    ackq: RespAckQueue<QA>,
    counters: RespCounters,
    // per-QP responder state
    ram_epsn: RAM<Bits<24>, QA>,
    ram_msn: RAM<Bits<24>, QA>,
    ram_flags: RAM<Bits<3>, QA>,
    ram_va_hi: RAM<Bits<32>, QA>,
    ram_va_lo: RAM<Bits<32>, QA>,
    ram_rkey: RAM<Bits<32>, QA>,
    ram_resid: RAM<Bits<32>, QA>,

    state: DFF<WrState>,
    // the header fields this block uses, taken in Idle
    r_op: DFF<Bits<8>>,
    r_qpn: DFF<Bits<24>>,
    r_psn: DFF<Bits<24>>,
    r_ackreq: DFF<Bit>,
    r_va_hi: DFF<Bits<32>>,
    r_va_lo: DFF<Bits<32>>,
    r_rkey: DFF<Bits<32>>,
    r_dlen: DFF<Bits<32>>,
    r_plen: DFF<Bits<13>>,
    // QP context
    r_qst: DFF<Bits<ST_W>>,
    r_qacc: DFF<Bits<ACC_W>>,
    r_qpd: DFF<Bits<24>>,
    r_qdest: DFF<Bits<24>>,
    r_pmtu: DFF<Bits<PMTU_W>>,
    // responder state of the packet's QP
    s_epsn: DFF<Bits<24>>,
    s_msn: DFF<Bits<24>>,
    s_flags: DFF<Bits<3>>,
    s_va_hi: DFF<Bits<32>>,
    s_va_lo: DFF<Bits<32>>,
    s_rkey: DFF<Bits<32>>,
    s_resid: DFF<Bits<32>>,
    // load
    r_lqpn: DFF<Bits<QA>>,
    // MR request and execution
    r_mkey: DFF<Bits<32>>,
    r_mva: DFF<Bits<64>>,
    r_mlen: DFF<Bits<64>>,
    r_addr: DFF<Bits<64>>,
    /// Xfer: the DMA request was accepted.
    r_reqd: DFF<Bit>,
    /// Xfer: the payload's last beat went out.
    r_datad: DFF<Bit>,
    /// DMA writes issued and not completed (bounded by the ACK queue depth + 1).
    dma_out: DFF<Bits<8>>,

    /// 2^QA: QPNs at or above it are out of the table.
    c_nqp: Constant<Bits<24>>,
    c_syn_ack: Constant<Bits<8>>,
    c_syn_psn: Constant<Bits<8>>,
    c_syn_inv: Constant<Bits<8>>,
    c_syn_acc: Constant<Bits<8>>,
    c_st_inv: Constant<Bits<8>>,
    c_st_acc: Constant<Bits<8>>,

    // ---- locals ----
    hva: Signal<Local, Bits<64>>,
    is_first: Signal<Local, Bit>,
    is_mid: Signal<Local, Bit>,
    is_last: Signal<Local, Bit>,
    is_only: Signal<Local, Bit>,
    has_reth: Signal<Local, Bit>,
    is_end: Signal<Local, Bit>,
    supported: Signal<Local, Bit>,
    qp_ok: Signal<Local, Bit>,
    nak_sent: Signal<Local, Bit>,
    in_write: Signal<Local, Bit>,
    qp_err: Signal<Local, Bit>,
    diff: Signal<Local, Bits<24>>,
    dup: Signal<Local, Bit>,
    inseq: Signal<Local, Bit>,
    seq_ok: Signal<Local, Bit>,
    pmtu: Signal<Local, Bits<13>>,
    len_ok: Signal<Local, Bit>,
    dlen_ok: Signal<Local, Bit>,
    acc_ok: Signal<Local, Bit>,
    plen32: Signal<Local, Bits<32>>,
    resid: Signal<Local, Bits<32>>,
    resid_ok: Signal<Local, Bit>,
    base_hi: Signal<Local, Bits<32>>,
    base_lo: Signal<Local, Bits<32>>,
    n_va_lo: Signal<Local, Bits<32>>,
    n_va_hi: Signal<Local, Bits<32>>,
    n_msn: Signal<Local, Bits<24>>,
    n_epsn: Signal<Local, Bits<24>>,
    emit: Signal<Local, Bit>,
    req_fire: Signal<Local, Bit>,
    last_fire: Signal<Local, Bit>,
    wr_qpn: Signal<Local, Bits<QA>>,
}

impl<const B: usize, const K: usize, const QA: usize> Default for RcWriteResponder<B, K, QA> {
    fn default() -> Self {
        assert!(B == 8 * K && K >= 1, "RcWriteResponder: B must be 8 * K");
        assert!(
            (1..=23).contains(&QA),
            "RcWriteResponder: QA must be 1..=23"
        );
        fn zram<const N: usize, const A: usize>() -> RAM<Bits<N>, A> {
            // initialised (a Verilog `initial` loop): no X in 4-state simulators before a QP
            // is loaded, the same zeros the Rust model reads
            RAM::from((0..(1usize << A)).map(|_| Bits::<N>::default()))
        }
        Self {
            clock: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            hdr: Default::default(),
            pay: Default::default(),
            qpc_rd_valid: Default::default(),
            qpc_rd_qpn: Default::default(),
            qpc_state: Default::default(),
            qpc_access: Default::default(),
            qpc_pd: Default::default(),
            qpc_dest_qpn: Default::default(),
            qpc_pmtu: Default::default(),
            qpc_rq_psn: Default::default(),
            load_valid: Default::default(),
            load_ready: Default::default(),
            load_qpn: Default::default(),
            mr_req_valid: Default::default(),
            mr_req_ready: Default::default(),
            mr_req_key: Default::default(),
            mr_req_pd: Default::default(),
            mr_req_need: Default::default(),
            mr_req_va: Default::default(),
            mr_req_len: Default::default(),
            mr_req_remote: Default::default(),
            mr_req_tag: Default::default(),
            mr_resp_valid: Default::default(),
            mr_resp_ok: Default::default(),
            mr_resp_code: Default::default(),
            mr_resp_zero: Default::default(),
            mr_resp_addr: Default::default(),
            mr_resp_remote: Default::default(),
            mr_resp_tag: Default::default(),
            mr_drain_req: Default::default(),
            mr_drain_ack: Default::default(),
            dma_wr: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_qpn: Default::default(),
            ack_dest_qpn: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            ack_msn: Default::default(),
            qerr_valid: Default::default(),
            qerr_ready: Default::default(),
            qerr_qpn: Default::default(),
            qerr_status: Default::default(),
            qerr_vendor: Default::default(),
            cnt_executed: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_psn_err: Default::default(),
            cnt_access_err: Default::default(),
            cnt_invalid: Default::default(),
            cnt_unsupported: Default::default(),
            cnt_qp_drop: Default::default(),
            cnt_dma_error: Default::default(),
            ackq: Default::default(),
            counters: Default::default(),
            ram_epsn: zram(),
            ram_msn: zram(),
            ram_flags: zram(),
            ram_va_hi: zram(),
            ram_va_lo: zram(),
            ram_rkey: zram(),
            ram_resid: zram(),
            state: Default::default(),
            r_op: Default::default(),
            r_qpn: Default::default(),
            r_psn: Default::default(),
            r_ackreq: Default::default(),
            r_va_hi: Default::default(),
            r_va_lo: Default::default(),
            r_rkey: Default::default(),
            r_dlen: Default::default(),
            r_plen: Default::default(),
            r_qst: Default::default(),
            r_qacc: Default::default(),
            r_qpd: Default::default(),
            r_qdest: Default::default(),
            r_pmtu: Default::default(),
            s_epsn: Default::default(),
            s_msn: Default::default(),
            s_flags: Default::default(),
            s_va_hi: Default::default(),
            s_va_lo: Default::default(),
            s_rkey: Default::default(),
            s_resid: Default::default(),
            r_lqpn: Default::default(),
            r_mkey: Default::default(),
            r_mva: Default::default(),
            r_mlen: Default::default(),
            r_addr: Default::default(),
            r_reqd: Default::default(),
            r_datad: Default::default(),
            dma_out: Default::default(),
            c_nqp: Constant::new(((1u64 << QA) as u64).into()),
            c_syn_ack: Constant::new(SYN_ACK.into()),
            c_syn_psn: Constant::new(SYN_NAK_PSN.into()),
            c_syn_inv: Constant::new(SYN_NAK_INVALID.into()),
            c_syn_acc: Constant::new(SYN_NAK_ACCESS.into()),
            c_st_inv: Constant::new(QERR_STATUS_INVALID.into()),
            c_st_acc: Constant::new(QERR_STATUS_ACCESS.into()),
            hva: Default::default(),
            is_first: Default::default(),
            is_mid: Default::default(),
            is_last: Default::default(),
            is_only: Default::default(),
            has_reth: Default::default(),
            is_end: Default::default(),
            supported: Default::default(),
            qp_ok: Default::default(),
            nak_sent: Default::default(),
            in_write: Default::default(),
            qp_err: Default::default(),
            diff: Default::default(),
            dup: Default::default(),
            inseq: Default::default(),
            seq_ok: Default::default(),
            pmtu: Default::default(),
            len_ok: Default::default(),
            dlen_ok: Default::default(),
            acc_ok: Default::default(),
            plen32: Default::default(),
            resid: Default::default(),
            resid_ok: Default::default(),
            base_hi: Default::default(),
            base_lo: Default::default(),
            n_va_lo: Default::default(),
            n_va_hi: Default::default(),
            n_msn: Default::default(),
            n_epsn: Default::default(),
            emit: Default::default(),
            req_fire: Default::default(),
            last_fire: Default::default(),
            wr_qpn: Default::default(),
        }
    }
}

impl<const B: usize, const K: usize, const QA: usize> Logic for RcWriteResponder<B, K, QA> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ackq, counters);
        dff_setup!(
            self, clock, state, r_op, r_qpn, r_psn, r_ackreq, r_va_hi, r_va_lo, r_rkey, r_dlen,
            r_plen, r_qst, r_qacc, r_qpd, r_qdest, r_pmtu, s_epsn, s_msn, s_flags, s_va_hi,
            s_va_lo, s_rkey, s_resid, r_lqpn, r_mkey, r_mva, r_mlen, r_addr, r_reqd, r_datad,
            dma_out
        );
        self.ram_epsn.read_clock.next = self.clock.val();
        self.ram_epsn.write_clock.next = self.clock.val();
        self.ram_msn.read_clock.next = self.clock.val();
        self.ram_msn.write_clock.next = self.clock.val();
        self.ram_flags.read_clock.next = self.clock.val();
        self.ram_flags.write_clock.next = self.clock.val();
        self.ram_va_hi.read_clock.next = self.clock.val();
        self.ram_va_hi.write_clock.next = self.clock.val();
        self.ram_va_lo.read_clock.next = self.clock.val();
        self.ram_va_lo.write_clock.next = self.clock.val();
        self.ram_rkey.read_clock.next = self.clock.val();
        self.ram_rkey.write_clock.next = self.clock.val();
        self.ram_resid.read_clock.next = self.clock.val();
        self.ram_resid.write_clock.next = self.clock.val();

        // ================= decode of the registered packet (used by Check and Commit) ======
        // opcodes (decimal literals: rust-hdl emits hex patterns verbatim): 6 FIRST, 7 MIDDLE,
        // 8 LAST, 9 LAST_WITH_IMMEDIATE, 10 ONLY, 11 ONLY_WITH_IMMEDIATE
        self.is_first.next = self.r_op.q.val() == 6;
        self.is_mid.next = self.r_op.q.val() == 7;
        self.is_last.next = (self.r_op.q.val() == 8) | (self.r_op.q.val() == 9);
        self.is_only.next = (self.r_op.q.val() == 10) | (self.r_op.q.val() == 11);
        self.has_reth.next = self.is_first.val() | self.is_only.val();
        self.is_end.next = self.is_last.val() | self.is_only.val();
        self.supported.next =
            self.is_first.val() | self.is_mid.val() | self.is_last.val() | self.is_only.val();
        // flags: bit 0 nak_sent, bit 1 in_write, bit 2 err
        self.nak_sent.next = self.s_flags.q.val().get_bit(0);
        self.in_write.next = self.s_flags.q.val().get_bit(1);
        self.qp_err.next = self.s_flags.q.val().get_bit(2);
        // QP states that receive: RTR 2, RTS 3, SQD 4 (QpState::receives)
        self.qp_ok.next = (self.r_qpn.q.val() < self.c_nqp.val())
            & ((self.r_qst.q.val() == 2) | (self.r_qst.q.val() == 3) | (self.r_qst.q.val() == 4))
            & !self.qp_err.val();
        // PSN distance, 24-bit modular: 0 = expected, bit 23 set = behind (duplicate)
        self.diff.next = self.r_psn.q.val() - self.s_epsn.q.val();
        self.dup.next = self.diff.val().get_bit(23);
        self.inseq.next = self.diff.val() == 0;
        // opcode sequence: inside a message only MIDDLE/LAST, outside only FIRST/ONLY
        self.seq_ok.next = self.is_first.val() | self.is_only.val();
        if self.in_write.val() {
            self.seq_ok.next = self.is_mid.val() | self.is_last.val();
        }
        // PMTU in bytes from the verbs enum (1 = 256 .. 5 = 4096); anything else counts as
        // 256, the strictest (such a QP cannot be in RTR: the CSR block checks the value)
        self.pmtu.next = 256.into();
        match self.r_pmtu.q.val().index() {
            2 => {
                self.pmtu.next = 512.into();
            }
            3 => {
                self.pmtu.next = 1024.into();
            }
            4 => {
                self.pmtu.next = 2048.into();
            }
            5 => {
                self.pmtu.next = 4096.into();
            }
            _ => {}
        }
        // ROCE.md 4.4 CHK_LENGTH: FIRST/MIDDLE carry exactly a PMTU, LAST 1..=PMTU, ONLY
        // 0..=PMTU; RETH DMA length at most 2^31
        self.len_ok.next = ((self.is_first.val() | self.is_mid.val())
            & (self.r_plen.q.val() == self.pmtu.val()))
            | (self.is_last.val()
                & (self.r_plen.q.val() != 0)
                & (self.r_plen.q.val() <= self.pmtu.val()))
            | (self.is_only.val() & (self.r_plen.q.val() <= self.pmtu.val()));
        self.dlen_ok.next = !self.has_reth.val()
            | !(self.r_dlen.q.val().get_bit(31) & (self.r_dlen.q.val().get_bits::<31>(0) != 0));
        // QP access flags: REMOTE_WRITE is bit 1
        self.acc_ok.next = self.r_qacc.q.val().get_bit(1);
        // the message's remaining bytes: the RETH length on FIRST/ONLY, else the cursor; a
        // FIRST/MIDDLE must leave at least one byte for the LAST, a LAST/ONLY must end it
        self.plen32.next = bit_cast::<32, 13>(self.r_plen.q.val());
        self.resid.next = self.s_resid.q.val();
        self.base_hi.next = self.s_va_hi.q.val();
        self.base_lo.next = self.s_va_lo.q.val();
        if self.has_reth.val() {
            self.resid.next = self.r_dlen.q.val();
            self.base_hi.next = self.r_va_hi.q.val();
            self.base_lo.next = self.r_va_lo.q.val();
        }
        self.resid_ok.next = ((self.is_first.val() | self.is_mid.val())
            & (self.plen32.val() < self.resid.val()))
            | (self.is_end.val() & (self.plen32.val() == self.resid.val()));
        // the state after executing this packet
        self.n_va_lo.next = self.base_lo.val() + self.plen32.val();
        self.n_va_hi.next = self.base_hi.val();
        if self.n_va_lo.val() < self.base_lo.val() {
            self.n_va_hi.next = self.base_hi.val() + 1;
        }
        self.n_msn.next = self.s_msn.q.val();
        if self.is_end.val() {
            self.n_msn.next = self.s_msn.q.val() + 1;
        }
        self.n_epsn.next = self.r_psn.q.val() + 1;
        self.emit.next = self.is_end.val() | self.r_ackreq.q.val();

        // ================= defaults ==========================================================
        self.hdr_ready.next = false;
        self.hva.next = self.hdr.val().va;
        self.load_ready.next = false;
        self.qpc_rd_valid.next = false;
        self.qpc_rd_qpn.next = self.r_qpn.q.val().get_bits::<QA>(0);
        // the state RAMs are read at the packet's QPN continuously: the row is stable from
        // the edge that takes the header on, so `Latch` sees it (and any write-back of the
        // previous packet, which happens before that edge)
        self.wr_qpn.next = self.r_qpn.q.val().get_bits::<QA>(0);
        self.ram_epsn.read_address.next = self.wr_qpn.val();
        self.ram_msn.read_address.next = self.wr_qpn.val();
        self.ram_flags.read_address.next = self.wr_qpn.val();
        self.ram_va_hi.read_address.next = self.wr_qpn.val();
        self.ram_va_lo.read_address.next = self.wr_qpn.val();
        self.ram_rkey.read_address.next = self.wr_qpn.val();
        self.ram_resid.read_address.next = self.wr_qpn.val();
        // write-back: unchanged fields keep the row's current value
        self.ram_epsn.write_enable.next = false;
        self.ram_msn.write_enable.next = false;
        self.ram_flags.write_enable.next = false;
        self.ram_va_hi.write_enable.next = false;
        self.ram_va_lo.write_enable.next = false;
        self.ram_rkey.write_enable.next = false;
        self.ram_resid.write_enable.next = false;
        self.ram_epsn.write_data.next = self.s_epsn.q.val();
        self.ram_msn.write_data.next = self.s_msn.q.val();
        self.ram_flags.write_data.next = self.s_flags.q.val();
        self.ram_va_hi.write_data.next = self.s_va_hi.q.val();
        self.ram_va_lo.write_data.next = self.s_va_lo.q.val();
        self.ram_rkey.write_data.next = self.s_rkey.q.val();
        self.ram_resid.write_data.next = self.s_resid.q.val();
        // MR request from registers (held while waiting for req_ready)
        self.mr_req_valid.next = false;
        self.mr_req_key.next = self.r_mkey.q.val();
        self.mr_req_pd.next = self.r_qpd.q.val();
        self.mr_req_need.next = 2.into(); // ACCESS_REMOTE_WRITE
        self.mr_req_va.next = self.r_mva.q.val();
        self.mr_req_len.next = self.r_mlen.q.val();
        self.mr_req_remote.next = true;
        self.mr_req_tag.next = self.r_qpn.q.val().get_bits::<8>(0);
        self.mr_drain_ack.next = false;
        // DMA write: the request from registers; the payload passes straight through, only
        // `valid`/`ready` are gated (valid never depends on ready: AXI rule)
        self.dma_wr.req_valid.next = false;
        self.dma_wr.req_addr.next = self.r_addr.q.val();
        self.dma_wr.req_len.next = bit_cast::<16, 13>(self.r_plen.q.val());
        self.dma_wr.req_tag.next = self.r_qpn.q.val().get_bits::<8>(0);
        self.dma_wr.data.valid.next = false;
        self.dma_wr.data.data.next = self.pay.data.val();
        self.dma_wr.data.keep.next = self.pay.keep.val();
        self.dma_wr.data.last.next = self.pay.last.val();
        self.pay.ready.next = false;
        self.req_fire.next = false;
        self.last_fire.next = false;
        // response entry: an ACK of this packet unless a branch says otherwise
        self.ackq.push.next = false;
        self.ackq.entry.next.need_done = false;
        self.ackq.entry.next.emit = true;
        self.ackq.entry.next.qerr = false;
        self.ackq.entry.next.qerr_status = 0.into();
        self.ackq.entry.next.qpn = self.r_qpn.q.val();
        self.ackq.entry.next.dest_qpn = self.r_qdest.q.val();
        self.ackq.entry.next.psn = self.r_psn.q.val();
        self.ackq.entry.next.syndrome = self.c_syn_ack.val();
        self.ackq.entry.next.msn = self.s_msn.q.val();
        self.ackq.done_valid.next = self.dma_wr.done_valid.val();
        self.ackq.done_error.next = self.dma_wr.done_error.val();
        // counters
        self.counters.inc_executed.next = false;
        self.counters.inc_duplicate.next = false;
        self.counters.inc_psn_err.next = false;
        self.counters.inc_access_err.next = false;
        self.counters.inc_invalid.next = false;
        self.counters.inc_unsupported.next = false;
        self.counters.inc_qp_drop.next = false;
        self.counters.inc_dma_error.next = self.ackq.dma_error.val();

        // ================= the packet state machine =========================================
        match self.state.q.val() {
            WrState::Idle => {
                // a load first: a MODIFY into RTR must apply before the QP's next packet
                if self.load_valid.val() {
                    self.load_ready.next = true;
                    self.r_lqpn.d.next = self.load_qpn.val();
                    self.state.d.next = WrState::LoadRd;
                } else if !self.mr_drain_req.val() {
                    // during an MR drain no new packet starts (see the module doc)
                    self.hdr_ready.next = true;
                    if self.hdr_valid.val() {
                        self.r_op.d.next = self.hdr.val().opcode;
                        self.r_qpn.d.next = self.hdr.val().dest_qp;
                        self.r_psn.d.next = self.hdr.val().psn;
                        self.r_ackreq.d.next = self.hdr.val().ack_req;
                        self.r_va_hi.d.next = self.hva.val().get_bits::<32>(32);
                        self.r_va_lo.d.next = self.hva.val().get_bits::<32>(0);
                        self.r_rkey.d.next = self.hdr.val().rkey;
                        self.r_dlen.d.next = self.hdr.val().dma_len;
                        self.r_plen.d.next = self.hdr.val().payload_len;
                        self.state.d.next = WrState::Rd;
                    }
                } else {
                    // idle and draining: acknowledge once every issued write has completed
                    self.mr_drain_ack.next = self.dma_out.q.val() == 0;
                }
            }
            WrState::LoadRd => {
                self.qpc_rd_valid.next = true;
                self.qpc_rd_qpn.next = self.r_lqpn.q.val();
                self.state.d.next = WrState::LoadWait;
            }
            WrState::LoadWait => {
                self.state.d.next = WrState::LoadWrite;
            }
            WrState::LoadWrite => {
                // the QP context of the load is on qpc_* now: ePSN = rq_psn, MSN 0, flags
                // clear, no WRITE in progress
                self.wr_qpn.next = self.r_lqpn.q.val();
                self.ram_epsn.write_data.next = self.qpc_rq_psn.val();
                self.ram_msn.write_data.next = 0.into();
                self.ram_flags.write_data.next = 0.into();
                self.ram_va_hi.write_data.next = 0.into();
                self.ram_va_lo.write_data.next = 0.into();
                self.ram_rkey.write_data.next = 0.into();
                self.ram_resid.write_data.next = 0.into();
                self.ram_epsn.write_enable.next = true;
                self.ram_msn.write_enable.next = true;
                self.ram_flags.write_enable.next = true;
                self.ram_va_hi.write_enable.next = true;
                self.ram_va_lo.write_enable.next = true;
                self.ram_rkey.write_enable.next = true;
                self.ram_resid.write_enable.next = true;
                self.state.d.next = WrState::Idle;
            }
            WrState::Rd => {
                self.qpc_rd_valid.next = true;
                self.state.d.next = WrState::RdWait;
            }
            WrState::RdWait => {
                self.state.d.next = WrState::Latch;
            }
            WrState::Latch => {
                self.r_qst.d.next = self.qpc_state.val();
                self.r_qacc.d.next = self.qpc_access.val();
                self.r_qpd.d.next = self.qpc_pd.val();
                self.r_qdest.d.next = self.qpc_dest_qpn.val();
                self.r_pmtu.d.next = self.qpc_pmtu.val();
                self.s_epsn.d.next = self.ram_epsn.read_data.val();
                self.s_msn.d.next = self.ram_msn.read_data.val();
                self.s_flags.d.next = self.ram_flags.read_data.val();
                self.s_va_hi.d.next = self.ram_va_hi.read_data.val();
                self.s_va_lo.d.next = self.ram_va_lo.read_data.val();
                self.s_rkey.d.next = self.ram_rkey.read_data.val();
                self.s_resid.d.next = self.ram_resid.read_data.val();
                self.state.d.next = WrState::Check;
            }
            WrState::Check => {
                // every path below pushes at most one entry; waiting here for room keeps the
                // queue (and the completion FIFO behind it) from overflowing
                if !self.ackq.full.val() {
                    self.state.d.next = WrState::Idle;
                    if self.r_plen.q.val() != 0 {
                        self.state.d.next = WrState::Drain;
                    }
                    if !self.supported.val() {
                        self.counters.inc_unsupported.next = true;
                    } else if !self.qp_ok.val() {
                        self.counters.inc_qp_drop.next = true;
                    } else if self.dup.val() {
                        // re-ACK, do not execute again (IBA C9-105)
                        self.ackq.push.next = true;
                        self.counters.inc_duplicate.next = true;
                    } else if !self.inseq.val() {
                        // ahead of ePSN: one NAK (PSN = ePSN) until an in-sequence packet
                        self.counters.inc_psn_err.next = true;
                        if !self.nak_sent.val() {
                            self.ackq.push.next = true;
                            self.ackq.entry.next.psn = self.s_epsn.q.val();
                            self.ackq.entry.next.syndrome = self.c_syn_psn.val();
                            // flags: nak_sent set, in_write kept (err is clear here)
                            self.ram_flags.write_data.next = 1.into();
                            if self.in_write.val() {
                                self.ram_flags.write_data.next = 3.into();
                            }
                            self.ram_flags.write_enable.next = true;
                        }
                    } else if !self.seq_ok.val() | !self.len_ok.val() | !self.dlen_ok.val() {
                        // class C, invalid request: NAK 0x61, QP to ERR
                        self.ackq.push.next = true;
                        self.ackq.entry.next.syndrome = self.c_syn_inv.val();
                        self.ackq.entry.next.qerr = true;
                        self.ackq.entry.next.qerr_status = self.c_st_inv.val();
                        self.ram_flags.write_data.next = 4.into();
                        self.ram_flags.write_enable.next = true;
                        self.counters.inc_invalid.next = true;
                    } else if !self.acc_ok.val() | !self.resid_ok.val() {
                        // class C, remote access error: NAK 0x62, QP to ERR
                        self.ackq.push.next = true;
                        self.ackq.entry.next.syndrome = self.c_syn_acc.val();
                        self.ackq.entry.next.qerr = true;
                        self.ackq.entry.next.qerr_status = self.c_st_acc.val();
                        self.ram_flags.write_data.next = 4.into();
                        self.ram_flags.write_enable.next = true;
                        self.counters.inc_access_err.next = true;
                    } else {
                        // in sequence and well formed: the MR check decides. FIRST/ONLY check
                        // the whole message range, MIDDLE/LAST their own bytes at the cursor
                        self.r_mkey.d.next = self.s_rkey.q.val();
                        self.r_mlen.d.next = bit_cast::<64, 32>(self.plen32.val());
                        if self.has_reth.val() {
                            self.r_mkey.d.next = self.r_rkey.q.val();
                            self.r_mlen.d.next = bit_cast::<64, 32>(self.r_dlen.q.val());
                        }
                        self.r_mva.d.next = (bit_cast::<64, 32>(self.base_hi.val()) << 32)
                            | bit_cast::<64, 32>(self.base_lo.val());
                        self.state.d.next = WrState::MrReq;
                    }
                }
            }
            WrState::MrReq => {
                self.mr_req_valid.next = true;
                if self.mr_req_ready.val() {
                    self.state.d.next = WrState::MrWait;
                }
            }
            WrState::MrWait => {
                // the only lookup outstanding is ours: its response is the next one
                if self.mr_resp_valid.val() {
                    if self.mr_resp_ok.val() {
                        self.r_addr.d.next = self.mr_resp_addr.val();
                        self.r_reqd.d.next = false;
                        self.r_datad.d.next = false;
                        self.state.d.next = WrState::Commit;
                        if self.r_plen.q.val() != 0 {
                            self.state.d.next = WrState::Xfer;
                        }
                    } else {
                        // bad rkey, PD, MR right, invalidated, out of range: nothing written
                        self.ackq.push.next = true;
                        self.ackq.entry.next.syndrome = self.c_syn_acc.val();
                        self.ackq.entry.next.qerr = true;
                        self.ackq.entry.next.qerr_status = self.c_st_acc.val();
                        self.ram_flags.write_data.next = 4.into();
                        self.ram_flags.write_enable.next = true;
                        self.counters.inc_access_err.next = true;
                        self.state.d.next = WrState::Idle;
                        if self.r_plen.q.val() != 0 {
                            self.state.d.next = WrState::Drain;
                        }
                    }
                }
            }
            WrState::Xfer => {
                // request and data side by side: the shell may want the request before it
                // takes data, so the request never waits for the data (docs/DMA.md 4)
                self.dma_wr.req_valid.next = !self.r_reqd.q.val();
                self.req_fire.next = !self.r_reqd.q.val() & self.dma_wr.req_ready.val();
                if self.req_fire.val() {
                    self.r_reqd.d.next = true;
                }
                self.dma_wr.data.valid.next = self.pay.valid.val() & !self.r_datad.q.val();
                self.pay.ready.next = self.dma_wr.data.ready.val() & !self.r_datad.q.val();
                self.last_fire.next = self.pay.valid.val()
                    & self.pay.last.val()
                    & self.dma_wr.data.ready.val()
                    & !self.r_datad.q.val();
                if self.last_fire.val() {
                    self.r_datad.d.next = true;
                }
                if (self.r_reqd.q.val() | self.req_fire.val())
                    & (self.r_datad.q.val() | self.last_fire.val())
                {
                    self.state.d.next = WrState::Commit;
                }
            }
            WrState::Commit => {
                // executed: queue the response (or just the completion wait), advance ePSN,
                // MSN at the end of a message, the cursor
                self.ackq.push.next = self.emit.val() | (self.r_plen.q.val() != 0);
                self.ackq.entry.next.need_done = self.r_plen.q.val() != 0;
                self.ackq.entry.next.emit = self.emit.val();
                self.ackq.entry.next.msn = self.n_msn.val();
                self.ram_epsn.write_data.next = self.n_epsn.val();
                self.ram_msn.write_data.next = self.n_msn.val();
                self.ram_flags.write_data.next = 0.into();
                if !self.is_end.val() {
                    self.ram_flags.write_data.next = 2.into();
                }
                self.ram_va_hi.write_data.next = self.n_va_hi.val();
                self.ram_va_lo.write_data.next = self.n_va_lo.val();
                self.ram_rkey.write_data.next = self.r_mkey.q.val();
                self.ram_resid.write_data.next = self.resid.val() - self.plen32.val();
                self.ram_epsn.write_enable.next = true;
                self.ram_msn.write_enable.next = true;
                self.ram_flags.write_enable.next = true;
                self.ram_va_hi.write_enable.next = true;
                self.ram_va_lo.write_enable.next = true;
                self.ram_rkey.write_enable.next = true;
                self.ram_resid.write_enable.next = true;
                self.counters.inc_executed.next = true;
                self.state.d.next = WrState::Idle;
            }
            WrState::Drain => {
                self.pay.ready.next = true;
                if self.pay.valid.val() & self.pay.last.val() {
                    self.state.d.next = WrState::Idle;
                }
            }
        }

        // write-back address: the packet's QP, or the loaded one
        self.ram_epsn.write_address.next = self.wr_qpn.val();
        self.ram_msn.write_address.next = self.wr_qpn.val();
        self.ram_flags.write_address.next = self.wr_qpn.val();
        self.ram_va_hi.write_address.next = self.wr_qpn.val();
        self.ram_va_lo.write_address.next = self.wr_qpn.val();
        self.ram_rkey.write_address.next = self.wr_qpn.val();
        self.ram_resid.write_address.next = self.wr_qpn.val();

        // DMA writes in flight (for the MR drain): +1 per request, -1 per completion
        if self.req_fire.val() & !self.dma_wr.done_valid.val() {
            self.dma_out.d.next = self.dma_out.q.val() + 1;
        }
        if !self.req_fire.val() & self.dma_wr.done_valid.val() {
            self.dma_out.d.next = self.dma_out.q.val() - 1;
        }

        // ================= outputs of the sub-blocks ========================================
        self.ack_valid.next = self.ackq.ack_valid.val();
        self.ackq.ack_ready.next = self.ack_ready.val();
        self.ack_qpn.next = self.ackq.ack_qpn.val();
        self.ack_dest_qpn.next = self.ackq.ack_dest_qpn.val();
        self.ack_psn.next = self.ackq.ack_psn.val();
        self.ack_syndrome.next = self.ackq.ack_syndrome.val();
        self.ack_msn.next = self.ackq.ack_msn.val();
        self.qerr_valid.next = self.ackq.qerr_valid.val();
        self.ackq.qerr_ready.next = self.qerr_ready.val();
        self.qerr_qpn.next = self.ackq.qerr_qpn.val();
        self.qerr_status.next = self.ackq.qerr_status.val();
        self.qerr_vendor.next = self.ackq.qerr_vendor.val();
        self.cnt_executed.next = self.counters.executed.val();
        self.cnt_duplicate.next = self.counters.duplicate.val();
        self.cnt_psn_err.next = self.counters.psn_err.val();
        self.cnt_access_err.next = self.counters.access_err.val();
        self.cnt_invalid.next = self.counters.invalid.val();
        self.cnt_unsupported.next = self.counters.unsupported.val();
        self.cnt_qp_drop.next = self.counters.qp_drop.val();
        self.cnt_dma_error.next = self.counters.dma_error.val();
    }
}
