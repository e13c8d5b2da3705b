//! [`RespCounters`]: the responder's event counters, 32-bit and saturating (a counter that
//! wrapped would read as "few events" exactly when there were many).
//!
//! Ports: one increment strobe per counter (`inc_*`, one event per cycle each) and the
//! matching count output (`executed`, `duplicate`, ...).
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RespCounters {
    pub clock: Signal<In, Clock>,
    /// A packet was executed (data placed, or a zero-length WRITE accepted).
    pub inc_executed: Signal<In, Bit>,
    /// A duplicate was re-ACKed.
    pub inc_duplicate: Signal<In, Bit>,
    /// An out-of-sequence packet (PSN ahead of ePSN) was NAKed or dropped.
    pub inc_psn_err: Signal<In, Bit>,
    /// NAK 0x62 (QP or MR access, length beyond the message).
    pub inc_access_err: Signal<In, Bit>,
    /// NAK 0x61 (opcode sequence, PMTU length, RETH length).
    pub inc_invalid: Signal<In, Bit>,
    /// Not an RC WRITE or SEND opcode: consumed and dropped.
    pub inc_unsupported: Signal<In, Bit>,
    /// QPN out of range, QP not receiving, or QP in error: dropped without response.
    pub inc_qp_drop: Signal<In, Bit>,
    /// A DMA write completed with `done_error`.
    pub inc_dma_error: Signal<In, Bit>,
    /// An RNR NAK was queued (SEND or WRITE_WITH_IMM with no receive WQE posted).
    pub inc_rnr: Signal<In, Bit>,
    /// A receive completion was queued (success or error).
    pub inc_recv: Signal<In, Bit>,
    pub executed: Signal<Out, Bits<32>>,
    pub duplicate: Signal<Out, Bits<32>>,
    pub psn_err: Signal<Out, Bits<32>>,
    pub access_err: Signal<Out, Bits<32>>,
    pub invalid: Signal<Out, Bits<32>>,
    pub unsupported: Signal<Out, Bits<32>>,
    pub qp_drop: Signal<Out, Bits<32>>,
    pub dma_error: Signal<Out, Bits<32>>,
    pub rnr: Signal<Out, Bits<32>>,
    pub recv: Signal<Out, Bits<32>>,
    c: [DFF<Bits<32>>; 10],
}

impl Logic for RespCounters {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..10 {
            self.c[i].clock.next = self.clock.val();
            self.c[i].d.next = self.c[i].q.val();
        }
        if self.inc_executed.val() & !self.c[0].q.val().all() {
            self.c[0].d.next = self.c[0].q.val() + 1;
        }
        if self.inc_duplicate.val() & !self.c[1].q.val().all() {
            self.c[1].d.next = self.c[1].q.val() + 1;
        }
        if self.inc_psn_err.val() & !self.c[2].q.val().all() {
            self.c[2].d.next = self.c[2].q.val() + 1;
        }
        if self.inc_access_err.val() & !self.c[3].q.val().all() {
            self.c[3].d.next = self.c[3].q.val() + 1;
        }
        if self.inc_invalid.val() & !self.c[4].q.val().all() {
            self.c[4].d.next = self.c[4].q.val() + 1;
        }
        if self.inc_unsupported.val() & !self.c[5].q.val().all() {
            self.c[5].d.next = self.c[5].q.val() + 1;
        }
        if self.inc_qp_drop.val() & !self.c[6].q.val().all() {
            self.c[6].d.next = self.c[6].q.val() + 1;
        }
        if self.inc_dma_error.val() & !self.c[7].q.val().all() {
            self.c[7].d.next = self.c[7].q.val() + 1;
        }
        if self.inc_rnr.val() & !self.c[8].q.val().all() {
            self.c[8].d.next = self.c[8].q.val() + 1;
        }
        if self.inc_recv.val() & !self.c[9].q.val().all() {
            self.c[9].d.next = self.c[9].q.val() + 1;
        }
        self.executed.next = self.c[0].q.val();
        self.duplicate.next = self.c[1].q.val();
        self.psn_err.next = self.c[2].q.val();
        self.access_err.next = self.c[3].q.val();
        self.invalid.next = self.c[4].q.val();
        self.unsupported.next = self.c[5].q.val();
        self.qp_drop.next = self.c[6].q.val();
        self.dma_error.next = self.c[7].q.val();
        self.rnr.next = self.c[8].q.val();
        self.recv.next = self.c[9].q.val();
    }
}
