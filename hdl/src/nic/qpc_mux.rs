//! `QpcReadMux`: shares the CSR block's single QP-context read port (fixed latency 2, no
//! back-pressure) between three readers. Every port is the one QP-context interface of
//! [`crate::csr::qpc_port`]: `out` ([`QpcReadMaster`]) toward the CSR block, and the readers'
//! ports `a`, `b`, `c` ([`QpcReadSlave`]).
//!
//! Port `a` has priority and needs no ready (`a.rd_ready` is always 1): it is the receive path
//! (the responder), which must never wait behind a sender. Port `b` has a ready (`b.rd_ready =
//! !a.rd_valid`) and is served in any cycle `a` does not read. A two-stage owner pipeline
//! follows each read, so `valid` is raised only on the port of the reader that asked
//! (`a.valid` / `b.valid` / `c.valid`); the context fields are the CSR block's, wired to all
//! three ports. Port `c` (the requester) is served when neither `a` nor `b` reads: `b` (the
//! packet formatter) is what the requester itself waits on. `out.rd_ready` is not looked at:
//! the CSR block is always ready.
use crate::csr::qpc_port::{QpcReadMaster, QpcReadSlave};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct QpcReadMux<const QA: usize> {
    pub clock: Signal<In, Clock>,
    /// reader a (priority, always ready)
    pub a: QpcReadSlave<QA>,
    /// reader b
    pub b: QpcReadSlave<QA>,
    /// reader c (lowest priority)
    pub c: QpcReadSlave<QA>,
    /// the CSR block's port
    pub out: QpcReadMaster<QA>,
    // ---- owner pipeline: bit 0 = read issued, bit 1 = it was b's, bit 2 = it was c's
    own1: DFF<Bits<3>>,
    own2: DFF<Bits<3>>,
}

impl<const QA: usize> Default for QpcReadMux<QA> {
    fn default() -> Self {
        QpcReadMux {
            clock: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            out: Default::default(),
            own1: Default::default(),
            own2: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for QpcReadMux<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, own1, own2);
        self.a.rd_ready.next = true;
        self.b.rd_ready.next = !self.a.rd_valid.val();
        self.c.rd_ready.next = !self.a.rd_valid.val() & !self.b.rd_valid.val();
        self.out.rd_valid.next =
            self.a.rd_valid.val() | self.b.rd_valid.val() | self.c.rd_valid.val();
        self.out.rd_qpn.next = self.a.rd_qpn.val();
        self.own1.d.next = 0.into();
        if self.a.rd_valid.val() {
            self.own1.d.next = 1.into();
        } else if self.b.rd_valid.val() {
            self.out.rd_qpn.next = self.b.rd_qpn.val();
            self.own1.d.next = 3.into();
        } else if self.c.rd_valid.val() {
            self.out.rd_qpn.next = self.c.rd_qpn.val();
            self.own1.d.next = 5.into();
        }
        self.own2.d.next = self.own1.q.val();
        self.a.valid.next = self.out.valid.val()
            & self.own2.q.val().get_bit(0)
            & !self.own2.q.val().get_bit(1)
            & !self.own2.q.val().get_bit(2);
        self.b.valid.next =
            self.out.valid.val() & self.own2.q.val().get_bit(0) & self.own2.q.val().get_bit(1);
        self.c.valid.next =
            self.out.valid.val() & self.own2.q.val().get_bit(0) & self.own2.q.val().get_bit(2);
        // ---- the context, to reader a
        self.a.state.next = self.out.state.val();
        self.a.sqd_notify.next = self.out.sqd_notify.val();
        self.a.access.next = self.out.access.val();
        self.a.pd.next = self.out.pd.val();
        self.a.dest_qpn.next = self.out.dest_qpn.val();
        self.a.pmtu.next = self.out.pmtu.val();
        self.a.max_rd_atomic.next = self.out.max_rd_atomic.val();
        self.a.max_dest_rd_atomic.next = self.out.max_dest_rd_atomic.val();
        self.a.timeout.next = self.out.timeout.val();
        self.a.retry_cnt.next = self.out.retry_cnt.val();
        self.a.rnr_retry.next = self.out.rnr_retry.val();
        self.a.min_rnr_timer.next = self.out.min_rnr_timer.val();
        self.a.sq_psn.next = self.out.sq_psn.val();
        self.a.rq_psn.next = self.out.rq_psn.val();
        self.a.dmac.next = self.out.dmac.val();
        self.a.dgid.next = self.out.dgid.val();
        self.a.sgid_index.next = self.out.sgid_index.val();
        self.a.traffic_class.next = self.out.traffic_class.val();
        self.a.hop_limit.next = self.out.hop_limit.val();
        self.a.default_dscp.next = self.out.default_dscp.val();
        self.a.flow_label.next = self.out.flow_label.val();
        self.a.udp_sport.next = self.out.udp_sport.val();
        self.a.sq_base.next = self.out.sq_base.val();
        self.a.rq_base.next = self.out.rq_base.val();
        self.a.sq_log2_entries.next = self.out.sq_log2_entries.val();
        self.a.sq_log2_stride.next = self.out.sq_log2_stride.val();
        self.a.sq_log2_psn_window.next = self.out.sq_log2_psn_window.val();
        self.a.rq_log2_entries.next = self.out.rq_log2_entries.val();
        self.a.rq_log2_stride.next = self.out.rq_log2_stride.val();
        self.a.send_cqn.next = self.out.send_cqn.val();
        self.a.recv_cqn.next = self.out.recv_cqn.val();
        // ---- the context, to reader b
        self.b.state.next = self.out.state.val();
        self.b.sqd_notify.next = self.out.sqd_notify.val();
        self.b.access.next = self.out.access.val();
        self.b.pd.next = self.out.pd.val();
        self.b.dest_qpn.next = self.out.dest_qpn.val();
        self.b.pmtu.next = self.out.pmtu.val();
        self.b.max_rd_atomic.next = self.out.max_rd_atomic.val();
        self.b.max_dest_rd_atomic.next = self.out.max_dest_rd_atomic.val();
        self.b.timeout.next = self.out.timeout.val();
        self.b.retry_cnt.next = self.out.retry_cnt.val();
        self.b.rnr_retry.next = self.out.rnr_retry.val();
        self.b.min_rnr_timer.next = self.out.min_rnr_timer.val();
        self.b.sq_psn.next = self.out.sq_psn.val();
        self.b.rq_psn.next = self.out.rq_psn.val();
        self.b.dmac.next = self.out.dmac.val();
        self.b.dgid.next = self.out.dgid.val();
        self.b.sgid_index.next = self.out.sgid_index.val();
        self.b.traffic_class.next = self.out.traffic_class.val();
        self.b.hop_limit.next = self.out.hop_limit.val();
        self.b.default_dscp.next = self.out.default_dscp.val();
        self.b.flow_label.next = self.out.flow_label.val();
        self.b.udp_sport.next = self.out.udp_sport.val();
        self.b.sq_base.next = self.out.sq_base.val();
        self.b.rq_base.next = self.out.rq_base.val();
        self.b.sq_log2_entries.next = self.out.sq_log2_entries.val();
        self.b.sq_log2_stride.next = self.out.sq_log2_stride.val();
        self.b.sq_log2_psn_window.next = self.out.sq_log2_psn_window.val();
        self.b.rq_log2_entries.next = self.out.rq_log2_entries.val();
        self.b.rq_log2_stride.next = self.out.rq_log2_stride.val();
        self.b.send_cqn.next = self.out.send_cqn.val();
        self.b.recv_cqn.next = self.out.recv_cqn.val();
        // ---- the context, to reader c
        self.c.state.next = self.out.state.val();
        self.c.sqd_notify.next = self.out.sqd_notify.val();
        self.c.access.next = self.out.access.val();
        self.c.pd.next = self.out.pd.val();
        self.c.dest_qpn.next = self.out.dest_qpn.val();
        self.c.pmtu.next = self.out.pmtu.val();
        self.c.max_rd_atomic.next = self.out.max_rd_atomic.val();
        self.c.max_dest_rd_atomic.next = self.out.max_dest_rd_atomic.val();
        self.c.timeout.next = self.out.timeout.val();
        self.c.retry_cnt.next = self.out.retry_cnt.val();
        self.c.rnr_retry.next = self.out.rnr_retry.val();
        self.c.min_rnr_timer.next = self.out.min_rnr_timer.val();
        self.c.sq_psn.next = self.out.sq_psn.val();
        self.c.rq_psn.next = self.out.rq_psn.val();
        self.c.dmac.next = self.out.dmac.val();
        self.c.dgid.next = self.out.dgid.val();
        self.c.sgid_index.next = self.out.sgid_index.val();
        self.c.traffic_class.next = self.out.traffic_class.val();
        self.c.hop_limit.next = self.out.hop_limit.val();
        self.c.default_dscp.next = self.out.default_dscp.val();
        self.c.flow_label.next = self.out.flow_label.val();
        self.c.udp_sport.next = self.out.udp_sport.val();
        self.c.sq_base.next = self.out.sq_base.val();
        self.c.rq_base.next = self.out.rq_base.val();
        self.c.sq_log2_entries.next = self.out.sq_log2_entries.val();
        self.c.sq_log2_stride.next = self.out.sq_log2_stride.val();
        self.c.sq_log2_psn_window.next = self.out.sq_log2_psn_window.val();
        self.c.rq_log2_entries.next = self.out.rq_log2_entries.val();
        self.c.rq_log2_stride.next = self.out.rq_log2_stride.val();
        self.c.send_cqn.next = self.out.send_cqn.val();
        self.c.recv_cqn.next = self.out.recv_cqn.val();
    }
}
