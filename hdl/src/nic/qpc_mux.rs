//! `QpcReadMux`: shares the CSR block's single QP-context read port (`qpc_rd_*`, fixed latency
//! 2, no back-pressure) between three readers.
//!
//! Port `a` has priority and no ready: it is the receive path (the responder), which must never
//! wait behind a sender. Port `b` has a ready (`b_rd_ready = !a_rd_valid`) and is served in any
//! cycle `a` does not read. A two-stage owner pipeline follows each read, so the data (shared,
//! wired straight from the CSR block to both readers) is flagged valid only to the reader that
//! asked: `a_valid` / `b_valid` / `c_valid`. Port `c` (the requester) is served when neither `a`
//! nor `b` reads: `b` (the packet formatter) is what the requester itself waits on.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct QpcReadMux<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- reader a (priority, no ready)
    pub a_rd_valid: Signal<In, Bit>,
    pub a_rd_qpn: Signal<In, Bits<QA>>,
    pub a_valid: Signal<Out, Bit>,
    // ---- reader b
    pub b_rd_valid: Signal<In, Bit>,
    pub b_rd_ready: Signal<Out, Bit>,
    pub b_rd_qpn: Signal<In, Bits<QA>>,
    pub b_valid: Signal<Out, Bit>,
    // ---- reader c (lowest priority)
    pub c_rd_valid: Signal<In, Bit>,
    pub c_rd_ready: Signal<Out, Bit>,
    pub c_rd_qpn: Signal<In, Bits<QA>>,
    pub c_valid: Signal<Out, Bit>,
    // ---- the CSR block's port
    pub rd_valid: Signal<Out, Bit>,
    pub rd_qpn: Signal<Out, Bits<QA>>,
    pub valid: Signal<In, Bit>,
    // ---- owner pipeline: bit 0 = read issued, bit 1 = it was b's, bit 2 = it was c's
    own1: DFF<Bits<3>>,
    own2: DFF<Bits<3>>,
}

impl<const QA: usize> Default for QpcReadMux<QA> {
    fn default() -> Self {
        QpcReadMux {
            clock: Default::default(),
            a_rd_valid: Default::default(),
            a_rd_qpn: Default::default(),
            a_valid: Default::default(),
            b_rd_valid: Default::default(),
            b_rd_ready: Default::default(),
            b_rd_qpn: Default::default(),
            b_valid: Default::default(),
            c_rd_valid: Default::default(),
            c_rd_ready: Default::default(),
            c_rd_qpn: Default::default(),
            c_valid: Default::default(),
            rd_valid: Default::default(),
            rd_qpn: Default::default(),
            valid: Default::default(),
            own1: Default::default(),
            own2: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for QpcReadMux<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, own1, own2);
        self.b_rd_ready.next = !self.a_rd_valid.val();
        self.c_rd_ready.next = !self.a_rd_valid.val() & !self.b_rd_valid.val();
        self.rd_valid.next = self.a_rd_valid.val() | self.b_rd_valid.val() | self.c_rd_valid.val();
        self.rd_qpn.next = self.a_rd_qpn.val();
        self.own1.d.next = 0.into();
        if self.a_rd_valid.val() {
            self.own1.d.next = 1.into();
        } else if self.b_rd_valid.val() {
            self.rd_qpn.next = self.b_rd_qpn.val();
            self.own1.d.next = 3.into();
        } else if self.c_rd_valid.val() {
            self.rd_qpn.next = self.c_rd_qpn.val();
            self.own1.d.next = 5.into();
        }
        self.own2.d.next = self.own1.q.val();
        self.a_valid.next = self.valid.val()
            & self.own2.q.val().get_bit(0)
            & !self.own2.q.val().get_bit(1)
            & !self.own2.q.val().get_bit(2);
        self.b_valid.next =
            self.valid.val() & self.own2.q.val().get_bit(0) & self.own2.q.val().get_bit(1);
        self.c_valid.next =
            self.valid.val() & self.own2.q.val().get_bit(0) & self.own2.q.val().get_bit(2);
    }
}
