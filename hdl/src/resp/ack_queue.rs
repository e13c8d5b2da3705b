//! [`RespAckQueue`]: the responder's ordered response queue.
//!
//! Every packet that needs a response or issued a DMA write pushes one [`AckEntry`], in packet
//! order. The head entry leaves when
//!
//! * it issued no DMA write, or the completion of its write has arrived (completions come in
//!   request order, docs/DMA.md O2, and every write has exactly one entry, so the k-th entry
//!   with `need_done` owns the k-th completion); and then
//! * its receive completion, if any (`cqe`), has been released on `cqe_go`/`cqe_taken` (the
//!   responder keeps the CQE itself in a FIFO of the same order); and then
//! * its response, if any, has been taken on `ack_*` (valid/ready); and then
//! * its QP-to-ERR request, if any, has been taken on `qerr_*` (valid/ready).
//!
//! So no response overtakes the data placement of an earlier packet: an ACK means that the
//! data of its packet and of everything before it is visible to the host (N2).
//!
//! A completion with `done_error` turns its entry's response into NAK 0x63 (sent even if the
//! entry had none) followed by a QP-to-ERR request (`FatalErr`, vendor `DMA`), and pulses
//! `dma_error` when the entry retires.
//!
//! # Parking while the TX path is paused
//!
//! A response waits at the head until the TX path takes it, and everything behind it waits
//! too. When PFC pauses the RoCE priority (`park` high) that wait can close a loop: the
//! entries behind the head hold the responder, the responder stops draining the receive FIFO,
//! the FIFO stays above its XON level, this NIC keeps pausing its peer, and the peer, doing
//! the same, keeps pausing this NIC (two NICs writing to each other stop for good). So while
//! `park` is high, a head entry with a response (an ACK, a NAK, an atomic acknowledge with its
//! original value, or a READ to answer; not one followed by a QP-to-ERR request; its completion
//! and CQE release done) moves into a second FIFO of `2^PARK_BITS` entries and leaves the entry
//! queue. Parked responses go out first, in the order they were parked, and the entry queue's
//! head is offered only while none is parked, so responses still leave in packet order and
//! none is lost: the requester
//! sees exactly the responses it would have seen. `parked` pulses once per parked entry. A
//! parked READ is offered to the READ responder from the parking FIFO (which may take it while
//! paused: its packets still wait for the TX path). A head that cannot park (a NAK that moves
//! the QP to ERR, or the parking FIFO full) still waits, and a pause can still stall the
//! responder behind it (docs/CONGESTION.md). A head that parks is not offered on `ack_*` in
//! that cycle and is offered again, unchanged, from the parking FIFO: no response is taken
//! twice.
//!
//! Ports: `push`/`entry`/`full` (the writer checks `full`; a push while full is lost);
//! `done_valid`/`done_error` (no back-pressure: completions wait in a FIFO as deep as the entry
//! queue, which cannot overflow as long as the writer issues a DMA write only while the entry
//! queue has room for that write's entry); `ack_*`; `qerr_*`; `park` / `parked`; `idle`
//! (nothing queued or parked); `dma_error` (one-cycle pulse).
use super::{
    AckEntry, ACKQ_BITS, PARK_BITS, QERR_STATUS_DMA, QERR_VENDOR_DMA, SYN_NAK_OPERATIONAL,
};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum AckOutState {
    /// Waiting for the head entry's completion, then offering its CQE release (if any) and
    /// its response.
    Head,
    /// The head entry's CQE is released; offering its response.
    Resp,
    /// The response is out; offering the QP-to-ERR request.
    Qerr,
}

#[derive(LogicBlock)]
pub struct RespAckQueue<const QA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- writer ----
    pub push: Signal<In, Bit>,
    pub entry: Signal<In, AckEntry>,
    pub full: Signal<Out, Bit>,
    // ---- DMA completions ----
    pub done_valid: Signal<In, Bit>,
    pub done_error: Signal<In, Bit>,
    // ---- responses ----
    pub ack_valid: Signal<Out, Bit>,
    pub ack_ready: Signal<In, Bit>,
    pub ack_qpn: Signal<Out, Bits<QA>>,
    pub ack_dest_qpn: Signal<Out, Bits<24>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub ack_syndrome: Signal<Out, Bits<8>>,
    pub ack_msn: Signal<Out, Bits<24>>,
    /// ATOMIC ACKNOWLEDGE with `ack_orig` (cleared when a failed write turns it into a NAK)
    pub ack_atomic: Signal<Out, Bit>,
    pub ack_orig: Signal<Out, Bits<64>>,
    /// the entry is a READ to answer (`ack_raddr`, `ack_rlen`, `ack_rpmtu`), not an ACK
    pub ack_read: Signal<Out, Bit>,
    pub ack_raddr: Signal<Out, Bits<64>>,
    pub ack_rlen: Signal<Out, Bits<32>>,
    pub ack_rpmtu: Signal<Out, Bits<3>>,
    // ---- QP to ERR ----
    pub qerr_valid: Signal<Out, Bit>,
    pub qerr_ready: Signal<In, Bit>,
    pub qerr_qpn: Signal<Out, Bits<QA>>,
    pub qerr_status: Signal<Out, Bits<8>>,
    pub qerr_vendor: Signal<Out, Bits<8>>,
    // ---- receive completion release ----
    pub cqe_go: Signal<Out, Bit>,
    pub cqe_taken: Signal<In, Bit>,
    // ---- parking (the TX path is paused) ----
    /// park plain ACK / NAK heads instead of waiting (the RoCE priority is paused by PFC)
    pub park: Signal<In, Bit>,
    /// one-cycle pulse per entry parked
    pub parked: Signal<Out, Bit>,
    // ---- status ----
    pub idle: Signal<Out, Bit>,
    pub dma_error: Signal<Out, Bit>,

    q: SynchronousFIFO<AckEntry, ACKQ_BITS, { ACKQ_BITS + 1 }, 1>,
    dq: SynchronousFIFO<Bit, ACKQ_BITS, { ACKQ_BITS + 1 }, 1>,
    /// parked responses (plain ACKs and NAKs), older than every entry of `q`
    pk: SynchronousFIFO<AckEntry, PARK_BITS, { PARK_BITS + 1 }, 1>,
    /// Entries parked and not yet sent, counted here at once (the FIFO's `empty` and `full`
    /// follow a write a cycle later: the queue's head must not be offered in that cycle).
    pk_n: DFF<Bits<{ PARK_BITS + 1 }>>,
    st: DFF<AckOutState>,

    // named constants must be `Constant` fields in a kernel (a Rust `const` would be emitted
    // into the Verilog as an undeclared identifier)
    c_syn_op: Constant<Bits<8>>,
    c_status_dma: Constant<Bits<8>>,
    c_vendor_dma: Constant<Bits<8>>,
    /// Most entries parked at once (one short of the FIFO's depth).
    c_park_max: Constant<Bits<{ PARK_BITS + 1 }>>,

    /// The head entry may go (queued, and its completion is in if it needs one).
    go: Signal<Local, Bit>,
    /// Its DMA write failed.
    derr: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    want_qerr: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    /// The head entry's response may be parked (a plain ACK or NAK, `park` high, room).
    park_ok: Signal<Local, Bit>,
    /// A parked entry is taken on `ack_*` this cycle.
    pk_rd: Signal<Local, Bit>,
    /// The head entry's QPN (a struct field is sliced through a local: rust-hdl would emit
    /// a part-select of a part-select otherwise).
    head_qpn: Signal<Local, Bits<24>>,
    /// The oldest parked entry's QPN (likewise).
    park_qpn: Signal<Local, Bits<24>>,
}

impl<const QA: usize> Default for RespAckQueue<QA> {
    fn default() -> Self {
        assert!(QA >= 1 && QA <= 23, "RespAckQueue: QA must be 1..=23");
        Self {
            clock: Default::default(),
            push: Default::default(),
            entry: Default::default(),
            full: Default::default(),
            done_valid: Default::default(),
            done_error: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_qpn: Default::default(),
            ack_dest_qpn: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            ack_msn: Default::default(),
            ack_atomic: Default::default(),
            ack_orig: Default::default(),
            ack_read: Default::default(),
            ack_raddr: Default::default(),
            ack_rlen: Default::default(),
            ack_rpmtu: Default::default(),
            qerr_valid: Default::default(),
            qerr_ready: Default::default(),
            qerr_qpn: Default::default(),
            qerr_status: Default::default(),
            qerr_vendor: Default::default(),
            cqe_go: Default::default(),
            cqe_taken: Default::default(),
            idle: Default::default(),
            dma_error: Default::default(),
            park: Default::default(),
            parked: Default::default(),
            q: Default::default(),
            dq: Default::default(),
            pk: Default::default(),
            pk_n: Default::default(),
            c_park_max: Constant::new(((1u64 << PARK_BITS) - 1).into()),
            st: Default::default(),
            c_syn_op: Constant::new(SYN_NAK_OPERATIONAL.into()),
            c_status_dma: Constant::new(QERR_STATUS_DMA.into()),
            c_vendor_dma: Constant::new(QERR_VENDOR_DMA.into()),
            go: Default::default(),
            derr: Default::default(),
            emit: Default::default(),
            want_qerr: Default::default(),
            pop: Default::default(),
            park_ok: Default::default(),
            pk_rd: Default::default(),
            head_qpn: Default::default(),
            park_qpn: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for RespAckQueue<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, q, dq, pk);
        dff_setup!(self, clock, st, pk_n);
        // ---- writer side and completions (the FIFOs do the bookkeeping) ----
        self.q.write.next = self.push.val();
        self.q.data_in.next = self.entry.val();
        self.full.next = self.q.full.val();
        self.dq.write.next = self.done_valid.val();
        self.dq.data_in.next = self.done_error.val();
        self.idle.next = self.q.empty.val() & (self.pk_n.q.val() == 0);
        // ---- head entry: defaults ----
        self.go.next =
            !self.q.empty.val() & (!self.q.data_out.val().need_done | !self.dq.empty.val());
        // gated by `go`: the completion FIFO's output is meaningless (X in Verilog) while empty
        self.derr.next = self.go.val() & self.q.data_out.val().need_done & self.dq.data_out.val();
        self.emit.next = self.q.data_out.val().emit | self.derr.val();
        self.want_qerr.next = self.q.data_out.val().qerr | self.derr.val();
        self.pop.next = false;
        // any response parks (ACK, NAK, atomic acknowledge, READ) except one followed by a
        // QP-to-ERR request, which must follow its NAK in order
        self.park_ok.next = self.park.val()
            & (self.pk_n.q.val() < self.c_park_max.val())
            & self.emit.val()
            & !self.want_qerr.val();
        self.pk.write.next = false;
        self.pk.data_in.next = self.q.data_out.val();
        self.pk.read.next = false;
        self.pk_rd.next = false;
        self.parked.next = false;
        self.ack_valid.next = false;
        self.head_qpn.next = self.q.data_out.val().qpn;
        self.park_qpn.next = self.pk.data_out.val().qpn;
        self.ack_qpn.next = self.head_qpn.val().get_bits::<QA>(0);
        self.ack_dest_qpn.next = self.q.data_out.val().dest_qpn;
        self.ack_psn.next = self.q.data_out.val().psn;
        self.ack_syndrome.next = self.q.data_out.val().syndrome;
        if self.derr.val() {
            self.ack_syndrome.next = self.c_syn_op.val();
        }
        self.ack_msn.next = self.q.data_out.val().msn;
        self.ack_atomic.next = self.q.data_out.val().atomic & !self.derr.val();
        self.ack_orig.next = self.q.data_out.val().orig;
        self.ack_read.next = self.q.data_out.val().read;
        self.ack_raddr.next = self.q.data_out.val().raddr;
        self.ack_rlen.next = self.q.data_out.val().rlen;
        self.ack_rpmtu.next = self.q.data_out.val().rpmtu;
        self.qerr_valid.next = false;
        self.qerr_qpn.next = self.head_qpn.val().get_bits::<QA>(0);
        self.qerr_status.next = self.q.data_out.val().qerr_status;
        self.qerr_vendor.next = 0.into();
        if self.derr.val() {
            self.qerr_status.next = self.c_status_dma.val();
            self.qerr_vendor.next = self.c_vendor_dma.val();
        }
        self.cqe_go.next = false;
        match self.st.q.val() {
            AckOutState::Head => {
                // ack_valid depends only on the FIFOs' state, which holds until the pop: the
                // response stays offered, unchanged, until it is taken (AXI rule)
                if self.go.val() & self.q.data_out.val().cqe {
                    // the data of the message is placed: its CQE may go first
                    self.cqe_go.next = true;
                    if self.cqe_taken.val() {
                        self.st.d.next = AckOutState::Resp;
                    }
                } else if self.go.val() {
                    if self.park_ok.val() {
                        // paused: the response waits in the parking FIFO instead
                        self.pk.write.next = true;
                        self.parked.next = true;
                        self.pop.next = true;
                    } else if self.emit.val() & (self.pk_n.q.val() == 0) {
                        self.ack_valid.next = true;
                        if self.ack_ready.val() {
                            if self.want_qerr.val() {
                                self.st.d.next = AckOutState::Qerr;
                            } else {
                                self.pop.next = true;
                            }
                        }
                    } else if !self.emit.val() {
                        // an entry without a response only consumed its completion (an
                        // entry with a qerr request always has a response)
                        self.pop.next = true;
                    }
                }
            }
            AckOutState::Resp => {
                if self.park_ok.val() {
                    self.pk.write.next = true;
                    self.parked.next = true;
                    self.pop.next = true;
                    self.st.d.next = AckOutState::Head;
                } else if self.emit.val() & (self.pk_n.q.val() == 0) {
                    self.ack_valid.next = true;
                    if self.ack_ready.val() {
                        if self.want_qerr.val() {
                            self.st.d.next = AckOutState::Qerr;
                        } else {
                            self.pop.next = true;
                            self.st.d.next = AckOutState::Head;
                        }
                    }
                } else if !self.emit.val() {
                    self.pop.next = true;
                    self.st.d.next = AckOutState::Head;
                }
            }
            AckOutState::Qerr => {
                self.qerr_valid.next = true;
                if self.qerr_ready.val() {
                    self.pop.next = true;
                    self.st.d.next = AckOutState::Head;
                }
            }
        }
        // parked responses go first (they are older than every queued entry); the queue's
        // head is not offered meanwhile (above), so the two never compete for `ack_*`
        if !self.pk.empty.val() {
            self.ack_valid.next = true;
            self.ack_qpn.next = self.park_qpn.val().get_bits::<QA>(0);
            self.ack_dest_qpn.next = self.pk.data_out.val().dest_qpn;
            self.ack_psn.next = self.pk.data_out.val().psn;
            self.ack_syndrome.next = self.pk.data_out.val().syndrome;
            self.ack_msn.next = self.pk.data_out.val().msn;
            // a parked entry had no failed write (that one has a QP-to-ERR request)
            self.ack_atomic.next = self.pk.data_out.val().atomic;
            self.ack_orig.next = self.pk.data_out.val().orig;
            self.ack_read.next = self.pk.data_out.val().read;
            self.ack_raddr.next = self.pk.data_out.val().raddr;
            self.ack_rlen.next = self.pk.data_out.val().rlen;
            self.ack_rpmtu.next = self.pk.data_out.val().rpmtu;
            self.pk_rd.next = self.ack_ready.val();
        }
        self.pk.read.next = self.pk_rd.val();
        if self.parked.val() & !self.pk_rd.val() {
            self.pk_n.d.next = self.pk_n.q.val() + 1;
        }
        if !self.parked.val() & self.pk_rd.val() {
            self.pk_n.d.next = self.pk_n.q.val() - 1;
        }
        self.q.read.next = self.pop.val();
        self.dq.read.next = self.pop.val() & self.q.data_out.val().need_done;
        self.dma_error.next = self.pop.val() & self.derr.val();
    }
}
