//! The QP-context read port: one `LogicInterface` pair, declared once, used by every block that
//! reads a QP's context ([`QpcReadMaster`]) and by every block that serves it
//! ([`QpcReadSlave`]), the way [`crate::dma`] declares the DMA port.
//!
//! * Served by [`super::QpConfigTable`] (passed through unchanged by [`super::ctx::CtxWindows`]
//!   and [`super::CsrBlock`], all as a port named `qpc`), and by the three reader ports of the
//!   NIC's `QpcReadMux` (`nic::qpc_mux`).
//! * Read by the responder (`resp::RcWriteResponder` and its flat wrapper), the packet
//!   formatter (`nic::PacketFormatter`) and the requester (`req::RcRequester`), each through a
//!   port named `qpc`; the mux's side toward the CSR block is a reader too.
//!
//! A block that needs only some of the fields still takes the whole interface (unused inputs
//! cost nothing after synthesis); on a top level whose port is `qpc` the emitted Verilog ports
//! are `qpc$rd_valid`, `qpc$rd_qpn`, `qpc$state`, ...
//!
//! # Protocol
//!
//! * Request: `rd_valid` with `rd_qpn`; the read is taken at a rising edge where `rd_valid &
//!   rd_ready`. The CSR block is always ready (`rd_ready` = 1: the engines have priority over
//!   its command port, one read per cycle, no back-pressure); the mux's priority port (`a`) is
//!   always ready too, its other ports are granted by `rd_ready`.
//! * Answer: fixed latency 2. A read taken in cycle `c` (`rd_valid & rd_ready`) has `valid` = 1
//!   and every field of that QP in cycle `c + 2` (registered; the fields hold until the next
//!   read's data replace them). Behind the mux, `valid` is raised only on the port that asked;
//!   the fields are shared.
//! * Fields: the QP's host-programmed attributes (`ferroce_proto::host::qp::QpAttr`), widths
//!   from [`super::qp_config`]. Byte strings in wire order (`dmac`: first byte in 47:40; `dgid`:
//!   GID byte 0 in 127:120), 64-bit ring bases as one value. `sqd_notify` is the SQD
//!   async-notify request of the last MODIFY into SQD.
use super::qp_config::{
    ACC_W, CQN_W, FLOW_W, LOG2E_W, LOG2S_W, PMTU_W, PSNWIN_W, RD_W, RETRY_W, RNR_W, SGID_W,
    SPORT_W, ST_W, TIMEOUT_W, W24,
};
use rust_hdl::prelude::*;

/// QP-context read port, reader side: the request goes out, the context comes in.
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "QpcReadSlave"]
pub struct QpcReadMaster<const QA: usize> {
    pub rd_valid: Signal<Out, Bit>,
    pub rd_ready: Signal<In, Bit>,
    pub rd_qpn: Signal<Out, Bits<QA>>,
    pub valid: Signal<In, Bit>,
    pub state: Signal<In, Bits<ST_W>>,
    pub sqd_notify: Signal<In, Bit>,
    pub access: Signal<In, Bits<ACC_W>>,
    pub pd: Signal<In, Bits<W24>>,
    pub dest_qpn: Signal<In, Bits<W24>>,
    pub pmtu: Signal<In, Bits<PMTU_W>>,
    pub max_rd_atomic: Signal<In, Bits<RD_W>>,
    pub max_dest_rd_atomic: Signal<In, Bits<RD_W>>,
    pub timeout: Signal<In, Bits<TIMEOUT_W>>,
    pub retry_cnt: Signal<In, Bits<RETRY_W>>,
    pub rnr_retry: Signal<In, Bits<RETRY_W>>,
    pub min_rnr_timer: Signal<In, Bits<RNR_W>>,
    pub sq_psn: Signal<In, Bits<W24>>,
    pub rq_psn: Signal<In, Bits<W24>>,
    pub dmac: Signal<In, Bits<48>>,
    pub dgid: Signal<In, Bits<128>>,
    pub sgid_index: Signal<In, Bits<SGID_W>>,
    pub traffic_class: Signal<In, Bits<8>>,
    pub hop_limit: Signal<In, Bits<8>>,
    pub default_dscp: Signal<In, Bit>,
    pub flow_label: Signal<In, Bits<FLOW_W>>,
    pub udp_sport: Signal<In, Bits<SPORT_W>>,
    pub sq_base: Signal<In, Bits<64>>,
    pub rq_base: Signal<In, Bits<64>>,
    pub sq_log2_entries: Signal<In, Bits<LOG2E_W>>,
    pub sq_log2_stride: Signal<In, Bits<LOG2S_W>>,
    pub sq_log2_psn_window: Signal<In, Bits<PSNWIN_W>>,
    pub rq_log2_entries: Signal<In, Bits<LOG2E_W>>,
    pub rq_log2_stride: Signal<In, Bits<LOG2S_W>>,
    pub send_cqn: Signal<In, Bits<CQN_W>>,
    pub recv_cqn: Signal<In, Bits<CQN_W>>,
}

/// QP-context read port, context side (the mirror of [`QpcReadMaster`]).
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "QpcReadMaster"]
pub struct QpcReadSlave<const QA: usize> {
    pub rd_valid: Signal<In, Bit>,
    pub rd_ready: Signal<Out, Bit>,
    pub rd_qpn: Signal<In, Bits<QA>>,
    pub valid: Signal<Out, Bit>,
    pub state: Signal<Out, Bits<ST_W>>,
    pub sqd_notify: Signal<Out, Bit>,
    pub access: Signal<Out, Bits<ACC_W>>,
    pub pd: Signal<Out, Bits<W24>>,
    pub dest_qpn: Signal<Out, Bits<W24>>,
    pub pmtu: Signal<Out, Bits<PMTU_W>>,
    pub max_rd_atomic: Signal<Out, Bits<RD_W>>,
    pub max_dest_rd_atomic: Signal<Out, Bits<RD_W>>,
    pub timeout: Signal<Out, Bits<TIMEOUT_W>>,
    pub retry_cnt: Signal<Out, Bits<RETRY_W>>,
    pub rnr_retry: Signal<Out, Bits<RETRY_W>>,
    pub min_rnr_timer: Signal<Out, Bits<RNR_W>>,
    pub sq_psn: Signal<Out, Bits<W24>>,
    pub rq_psn: Signal<Out, Bits<W24>>,
    pub dmac: Signal<Out, Bits<48>>,
    pub dgid: Signal<Out, Bits<128>>,
    pub sgid_index: Signal<Out, Bits<SGID_W>>,
    pub traffic_class: Signal<Out, Bits<8>>,
    pub hop_limit: Signal<Out, Bits<8>>,
    pub default_dscp: Signal<Out, Bit>,
    pub flow_label: Signal<Out, Bits<FLOW_W>>,
    pub udp_sport: Signal<Out, Bits<SPORT_W>>,
    pub sq_base: Signal<Out, Bits<64>>,
    pub rq_base: Signal<Out, Bits<64>>,
    pub sq_log2_entries: Signal<Out, Bits<LOG2E_W>>,
    pub sq_log2_stride: Signal<Out, Bits<LOG2S_W>>,
    pub sq_log2_psn_window: Signal<Out, Bits<PSNWIN_W>>,
    pub rq_log2_entries: Signal<Out, Bits<LOG2E_W>>,
    pub rq_log2_stride: Signal<Out, Bits<LOG2S_W>>,
    pub send_cqn: Signal<Out, Bits<CQN_W>>,
    pub recv_cqn: Signal<Out, Bits<CQN_W>>,
}
