//! `NicTop`: the whole NIC as one block (64-bit profile): what the host sees on BAR0, what the
//! MAC sees on its two streams and what the PCIe DMA shell sees on the DMA port.
//!
//! ```text
//!  s_axil_* --> CsrBlock (registers, QP/CQ/MR tables) --cfg--> everything
//!                 |  qev (MODIFY into RTR) --> responder load
//!                 |  qpc read port <-- QpcReadMux <-- a: responder, b: AckFormatter
//!                 |  MR lookup port <-- responder;  qerr <-- responder
//!  rx_mac --> RxParser --hdr/pay--> RcWriteResponder --dma.wr--> host memory
//!                                        | ack_* (in packet order, after data placement)
//!                                        v
//!                                   AckFormatter --hdr--> TxHeaderBuilder --> tx_mac
//! ```
//!
//! This is the responder half of the RC transport (issue "the NIC end to end"): RDMA WRITE
//! (with and without immediate; the immediate's receive-queue completion is not done yet),
//! checked per packet against the MR key table, acknowledged in order. The requester half (SQ
//! fetch, segmentation, completer, CQEs) and the SEND responder are not in this top yet: the
//! DMA read channel is idle, SQ/RQ doorbells are consumed and ignored, CQ events are consumed.
//!
//! Counters: the RX verdicts, TX frames/bytes and the responder's ACK/NAK/duplicate/drop events
//! go to the CSR block's `CNT_*` registers (as `cnt_inc` pulses). The parser's and responder's
//! own totals are also top-level outputs (`rx_cnt_*`, `resp_cnt_*`) for simulation summaries.
use super::{AckFormatter, QpcReadMux};
use crate::csr::{CsrBlockDefault, QEV_MODIFY};
use crate::dma::{DmaMaster, DmaWriteMaster};
use crate::resp::RcWriteResponder;
use crate::rx::{DropReason, RxParser64};
use crate::stream::{Sink64, Source64, StreamSink, StreamSource};
use crate::tx::TxHeaderBuilder;
use ferroce_proto::host::qp::QpState;
use ferroce_proto::host::regs;
use rust_hdl::prelude::*;

/// QPN bits of the default build (256 QPs), as `CsrBlockDefault`.
pub const NIC_QA: usize = 8;
/// Number of CSR counters (`cnt_inc` width).
pub const NIC_COUNTERS: usize = regs::NUM_COUNTERS as usize;

const fn cnt(off: u32) -> usize {
    ((off - regs::CNT_BASE) / 8) as usize
}
const C_RX_FRAMES: usize = cnt(regs::CNT_RX_FRAMES_LO);
const C_RX_ROCE: usize = cnt(regs::CNT_RX_ROCE_LO);
const C_NOT_ROCE: usize = cnt(regs::CNT_RX_DROP_NOT_ROCE_LO);
const C_ADDR: usize = cnt(regs::CNT_RX_DROP_ADDR_LO);
const C_LENGTH: usize = cnt(regs::CNT_RX_DROP_LENGTH_LO);
const C_HEADER: usize = cnt(regs::CNT_RX_DROP_HEADER_LO);
const C_ICRC: usize = cnt(regs::CNT_RX_DROP_ICRC_LO);
const C_TX_FRAMES: usize = cnt(regs::CNT_TX_FRAMES_LO);
const C_TX_ACK: usize = cnt(regs::CNT_TX_ACK_LO);
const C_NAK_PSN: usize = cnt(regs::CNT_TX_NAK_PSN_SEQ_LO);
const C_NAK_INV: usize = cnt(regs::CNT_TX_NAK_INV_REQ_LO);
const C_NAK_ACC: usize = cnt(regs::CNT_TX_NAK_REM_ACCESS_LO);
const C_NAK_OP: usize = cnt(regs::CNT_TX_NAK_REM_OP_LO);
/// Counter events the top pulses (the `idx` table in `Default`).
const NEV: usize = 13;

#[derive(LogicBlock)]
pub struct NicTop {
    pub clock: Signal<In, Clock>,
    // ---- host registers (BAR0), AXI4-Lite slave
    pub s_axil_awaddr: Signal<In, Bits<{ crate::csr::AXIL_ADDR_BITS }>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<{ crate::csr::AXIL_ADDR_BITS }>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // ---- MAC (frames without FCS)
    pub rx_mac: Sink64,
    pub tx_mac: Source64,
    pub link_up: Signal<In, Bit>,
    // ---- PCIe DMA shell
    pub dma: DmaMaster<64, 8>,
    // ---- interrupts
    pub irq_pulse: Signal<Out, Bits<32>>,
    pub irq_level: Signal<Out, Bits<32>>,
    // ---- simulation summaries
    pub rx_cnt_accepted: Signal<Out, Bits<32>>,
    pub rx_cnt_bad_icrc: Signal<Out, Bits<32>>,
    pub rx_cnt_truncated: Signal<Out, Bits<32>>,
    pub rx_cnt_length: Signal<Out, Bits<32>>,
    pub rx_cnt_oversize: Signal<Out, Bits<32>>,
    pub rx_cnt_unsupported: Signal<Out, Bits<32>>,
    pub rx_cnt_mac_mismatch: Signal<Out, Bits<32>>,
    pub rx_cnt_bad_opcode: Signal<Out, Bits<32>>,
    pub resp_cnt_executed: Signal<Out, Bits<32>>,
    pub resp_cnt_duplicate: Signal<Out, Bits<32>>,
    pub resp_cnt_psn_err: Signal<Out, Bits<32>>,
    pub resp_cnt_access_err: Signal<Out, Bits<32>>,
    pub resp_cnt_invalid: Signal<Out, Bits<32>>,
    pub resp_cnt_unsupported: Signal<Out, Bits<32>>,
    pub resp_cnt_qp_drop: Signal<Out, Bits<32>>,
    pub resp_cnt_dma_error: Signal<Out, Bits<32>>,
    // ---- blocks
    csr: CsrBlockDefault,
    rx: RxParser64,
    resp: RcWriteResponder<64, 8, NIC_QA>,
    qmux: QpcReadMux<NIC_QA>,
    ackf: AckFormatter<NIC_QA>,
    tx: TxHeaderBuilder,
    // ---- glue
    ev: [Signal<Local, Bits<NIC_COUNTERS>>; NEV],
    load_hit: Signal<Local, Bit>,
    syn: Signal<Local, Bits<8>>,
    c_modify: Constant<Bits<2>>,
    c_rtr: Constant<Bits<3>>,
    c_mask: [Constant<Bits<NIC_COUNTERS>>; NEV],
    c_nak: [Constant<Bits<5>>; 4],
    c_keep: [Constant<Bits<8>>; 8],
    c_keep_bytes: [Constant<Bits<16>>; 8],
}

impl Default for NicTop {
    fn default() -> Self {
        let idx = [
            C_RX_FRAMES,
            C_RX_ROCE,
            C_NOT_ROCE,
            C_ADDR,
            C_LENGTH,
            C_HEADER,
            C_ICRC,
            C_TX_FRAMES,
            C_TX_ACK,
            C_NAK_PSN,
            C_NAK_INV,
            C_NAK_ACC,
            C_NAK_OP,
        ];
        NicTop {
            clock: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            rx_mac: Default::default(),
            tx_mac: Default::default(),
            link_up: Default::default(),
            dma: Default::default(),
            irq_pulse: Default::default(),
            irq_level: Default::default(),
            rx_cnt_accepted: Default::default(),
            rx_cnt_bad_icrc: Default::default(),
            rx_cnt_truncated: Default::default(),
            rx_cnt_length: Default::default(),
            rx_cnt_oversize: Default::default(),
            rx_cnt_unsupported: Default::default(),
            rx_cnt_mac_mismatch: Default::default(),
            rx_cnt_bad_opcode: Default::default(),
            resp_cnt_executed: Default::default(),
            resp_cnt_duplicate: Default::default(),
            resp_cnt_psn_err: Default::default(),
            resp_cnt_access_err: Default::default(),
            resp_cnt_invalid: Default::default(),
            resp_cnt_unsupported: Default::default(),
            resp_cnt_qp_drop: Default::default(),
            resp_cnt_dma_error: Default::default(),
            csr: Default::default(),
            rx: Default::default(),
            resp: Default::default(),
            qmux: Default::default(),
            ackf: Default::default(),
            tx: Default::default(),
            ev: core::array::from_fn(|_| Default::default()),
            load_hit: Default::default(),
            syn: Default::default(),
            c_modify: Constant::new(QEV_MODIFY.into()),
            c_rtr: Constant::new((QpState::Rtr as u64).into()),
            c_mask: core::array::from_fn(|i| {
                Constant::new(Bits::<NIC_COUNTERS>::default().replace_bit(idx[i], true))
            }),
            // NAK codes in the order of ev[9..13]: PSN sequence, invalid request, remote
            // access, remote operational
            c_nak: core::array::from_fn(|k| Constant::new((k as u64).into())),
            // keep of a last beat with k+1 bytes (contiguous from the top)
            c_keep: core::array::from_fn(|k| Constant::new(((0xFF00u64 >> (k + 1)) & 0xFF).into())),
            c_keep_bytes: core::array::from_fn(|k| Constant::new(((k + 1) as u64).into())),
        }
    }
}

impl Logic for NicTop {
    #[hdl_gen]
    fn update(&mut self) {
        self.csr.clock.next = self.clock.val();
        self.rx.clock.next = self.clock.val();
        self.resp.clock.next = self.clock.val();
        self.qmux.clock.next = self.clock.val();
        self.ackf.clock.next = self.clock.val();
        self.tx.clock.next = self.clock.val();

        // ---- AXI4-Lite straight into the CSR block
        self.csr.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.csr.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.csr.s_axil_awready.val();
        self.csr.s_axil_wdata.next = self.s_axil_wdata.val();
        self.csr.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.csr.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.csr.s_axil_wready.val();
        self.s_axil_bresp.next = self.csr.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.csr.s_axil_bvalid.val();
        self.csr.s_axil_bready.next = self.s_axil_bready.val();
        self.csr.s_axil_araddr.next = self.s_axil_araddr.val();
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = self.csr.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();
        self.csr.link_up.next = self.link_up.val();
        self.csr.fatal_set.next = false;
        self.irq_pulse.next = self.csr.irq_pulse.val();
        self.irq_level.next = self.csr.irq_level.val();
        // no completion engine or async events yet
        self.csr.cq_irq_valid.next = false;
        self.csr.cq_irq_vector.next = 0.into();
        self.csr.ev_valid.next = false;
        self.csr.ev_type.next = 0.into();
        self.csr.ev_id.next = 0.into();
        self.csr.ev_status.next = 0.into();
        self.csr.ev_vendor.next = 0.into();
        self.csr.cev_ready.next = true;
        // QUERY's runtime state: answered at once, zeros (no SQ/RQ engines yet)
        self.csr.rtq_ack.next = self.csr.rtq_req.val();
        self.csr.rtq_d0.next = 0.into();
        self.csr.rtq_d1.next = 0.into();
        self.csr.rtq_d2.next = 0.into();
        // CQ table port unused until the completer arrives
        self.csr.cqc_rd_valid.next = false;
        self.csr.cqc_rd_cqn.next = 0.into();

        // ---- receive front end
        StreamSink::<64, 8>::link(&mut self.rx_mac, &mut self.rx.inp);
        self.rx.cfg_mac.next = self.csr.cfg_mac.val();
        self.rx.cfg_promisc.next = false;
        self.rx.cfg_max_frame.next = 0xFFFF.into();
        self.rx_cnt_accepted.next = self.rx.cnt_accepted.val();
        self.rx_cnt_bad_icrc.next = self.rx.cnt_bad_icrc.val();
        self.rx_cnt_truncated.next = self.rx.cnt_truncated.val();
        self.rx_cnt_length.next = self.rx.cnt_length.val();
        self.rx_cnt_oversize.next = self.rx.cnt_oversize.val();
        self.rx_cnt_unsupported.next = self.rx.cnt_unsupported.val();
        self.rx_cnt_mac_mismatch.next = self.rx.cnt_mac_mismatch.val();
        self.rx_cnt_bad_opcode.next = self.rx.cnt_bad_opcode.val();

        // ---- responder
        self.resp.hdr_valid.next = self.rx.hdr_valid.val();
        self.rx.hdr_ready.next = self.resp.hdr_ready.val();
        self.resp.hdr.next = self.rx.hdr.val();
        StreamSource::<64, 8>::join(&mut self.rx.pay, &mut self.resp.pay);
        // QP context: the responder is the mux's priority reader (fixed latency, no ready)
        self.qmux.a_rd_valid.next = self.resp.qpc_rd_valid.val();
        self.qmux.a_rd_qpn.next = self.resp.qpc_rd_qpn.val();
        self.qmux.b_rd_valid.next = self.ackf.qpc_rd_valid.val();
        self.qmux.b_rd_qpn.next = self.ackf.qpc_rd_qpn.val();
        self.ackf.qpc_rd_ready.next = self.qmux.b_rd_ready.val();
        self.csr.qpc_rd_valid.next = self.qmux.rd_valid.val();
        self.csr.qpc_rd_qpn.next = self.qmux.rd_qpn.val();
        self.qmux.valid.next = self.csr.qpc_valid.val();
        self.resp.qpc_state.next = self.csr.qpc_state.val();
        self.resp.qpc_access.next = self.csr.qpc_access.val();
        self.resp.qpc_pd.next = self.csr.qpc_pd.val();
        self.resp.qpc_dest_qpn.next = self.csr.qpc_dest_qpn.val();
        self.resp.qpc_pmtu.next = self.csr.qpc_pmtu.val();
        self.resp.qpc_rq_psn.next = self.csr.qpc_rq_psn.val();
        // a MODIFY into RTR (re)loads the responder's state from the QP's RQ_PSN; every other
        // event (SQ/RQ doorbells, other MODIFYs) is consumed: no SQ/RQ engine listens yet
        self.load_hit.next = (self.csr.qev_kind.val() == self.c_modify.val())
            & (self.csr.qev_value.val().get_bits::<3>(0) == self.c_rtr.val());
        self.resp.load_valid.next = self.csr.qev_valid.val() & self.load_hit.val();
        self.resp.load_qpn.next = self.csr.qev_qpn.val().get_bits::<NIC_QA>(0);
        self.csr.qev_ready.next = !self.load_hit.val() | self.resp.load_ready.val();
        // MR table
        self.csr.mr_req_valid.next = self.resp.mr_req_valid.val();
        self.resp.mr_req_ready.next = self.csr.mr_req_ready.val();
        self.csr.mr_req_key.next = self.resp.mr_req_key.val();
        self.csr.mr_req_pd.next = self.resp.mr_req_pd.val();
        self.csr.mr_req_need.next = self.resp.mr_req_need.val();
        self.csr.mr_req_va.next = self.resp.mr_req_va.val();
        self.csr.mr_req_len.next = self.resp.mr_req_len.val();
        self.csr.mr_req_remote.next = self.resp.mr_req_remote.val();
        self.csr.mr_req_tag.next = self.resp.mr_req_tag.val();
        self.resp.mr_resp_valid.next = self.csr.mr_resp_valid.val();
        self.resp.mr_resp_ok.next = self.csr.mr_resp_ok.val();
        self.resp.mr_resp_code.next = self.csr.mr_resp_code.val();
        self.resp.mr_resp_zero.next = self.csr.mr_resp_zero.val();
        self.resp.mr_resp_addr.next = self.csr.mr_resp_addr.val();
        self.resp.mr_resp_remote.next = self.csr.mr_resp_remote.val();
        self.resp.mr_resp_tag.next = self.csr.mr_resp_tag.val();
        self.resp.mr_drain_req.next = self.csr.mr_drain_req.val();
        self.csr.mr_drain_ack.next = self.resp.mr_drain_ack.val();
        // QP to ERR
        self.csr.qerr_valid.next = self.resp.qerr_valid.val();
        self.resp.qerr_ready.next = self.csr.qerr_ready.val();
        self.csr.qerr_qpn.next = self.resp.qerr_qpn.val();
        self.csr.qerr_status.next = self.resp.qerr_status.val();
        self.csr.qerr_vendor.next = self.resp.qerr_vendor.val();
        // DMA: the responder writes; nothing reads yet
        DmaWriteMaster::<64, 8>::link(&mut self.dma.wr, &mut self.resp.dma_wr);
        self.dma.rd.req_valid.next = false;
        self.dma.rd.req_addr.next = 0.into();
        self.dma.rd.req_len.next = 0.into();
        self.dma.rd.req_tag.next = 0.into();
        self.dma.rd.rsp.ready.next = true;
        self.resp_cnt_executed.next = self.resp.cnt_executed.val();
        self.resp_cnt_duplicate.next = self.resp.cnt_duplicate.val();
        self.resp_cnt_psn_err.next = self.resp.cnt_psn_err.val();
        self.resp_cnt_access_err.next = self.resp.cnt_access_err.val();
        self.resp_cnt_invalid.next = self.resp.cnt_invalid.val();
        self.resp_cnt_unsupported.next = self.resp.cnt_unsupported.val();
        self.resp_cnt_qp_drop.next = self.resp.cnt_qp_drop.val();
        self.resp_cnt_dma_error.next = self.resp.cnt_dma_error.val();

        // ---- ACKs out
        self.ackf.ack_valid.next = self.resp.ack_valid.val();
        self.resp.ack_ready.next = self.ackf.ack_ready.val();
        self.ackf.ack_qpn.next = self.resp.ack_qpn.val();
        self.ackf.ack_dest_qpn.next = self.resp.ack_dest_qpn.val();
        self.ackf.ack_psn.next = self.resp.ack_psn.val();
        self.ackf.ack_syndrome.next = self.resp.ack_syndrome.val();
        self.ackf.ack_msn.next = self.resp.ack_msn.val();
        self.ackf.qpc_valid.next = self.qmux.b_valid.val();
        self.ackf.qpc_dmac.next = self.csr.qpc_dmac.val();
        self.ackf.qpc_dgid.next = self.csr.qpc_dgid.val();
        self.ackf.qpc_sgid_index.next = self.csr.qpc_sgid_index.val();
        self.ackf.qpc_traffic_class.next = self.csr.qpc_traffic_class.val();
        self.ackf.qpc_hop_limit.next = self.csr.qpc_hop_limit.val();
        self.ackf.qpc_default_dscp.next = self.csr.qpc_default_dscp.val();
        self.ackf.qpc_flow_label.next = self.csr.qpc_flow_label.val();
        self.ackf.qpc_udp_sport.next = self.csr.qpc_udp_sport.val();
        self.ackf.cfg_mac.next = self.csr.cfg_mac.val();
        self.ackf.cfg_traffic.next = self.csr.cfg_traffic.val();
        self.ackf.cfg_udp_sport.next = self.csr.cfg_udp_sport.val();
        self.ackf.gid0.next = self.csr.gid0.val();
        self.ackf.gid1.next = self.csr.gid1.val();
        self.ackf.gid2.next = self.csr.gid2.val();
        self.ackf.gid3.next = self.csr.gid3.val();
        self.ackf.gid4.next = self.csr.gid4.val();
        self.ackf.gid5.next = self.csr.gid5.val();
        self.ackf.gid6.next = self.csr.gid6.val();
        self.ackf.gid7.next = self.csr.gid7.val();
        self.ackf.gid8.next = self.csr.gid8.val();
        self.ackf.gid9.next = self.csr.gid9.val();
        self.ackf.gid10.next = self.csr.gid10.val();
        self.ackf.gid11.next = self.csr.gid11.val();
        self.ackf.gid12.next = self.csr.gid12.val();
        self.ackf.gid13.next = self.csr.gid13.val();
        self.ackf.gid14.next = self.csr.gid14.val();
        self.ackf.gid15.next = self.csr.gid15.val();
        self.ackf.gid_type.next = self.csr.gid_type.val();
        self.tx.desc_valid.next = self.ackf.hdr_valid.val();
        self.ackf.hdr_ready.next = self.tx.desc_ready.val();
        self.tx.desc.next = self.ackf.hdr.val();
        // ACKs carry no payload: the builder takes no beat for payload_len 0
        self.tx.pay.valid.next = false;
        self.tx.pay.data.next = 0.into();
        self.tx.pay.keep.next = 0.into();
        self.tx.pay.last.next = false;
        StreamSource::<64, 8>::link(&mut self.tx_mac, &mut self.tx.out);

        // ---- CSR counters: one pulse per event. Each event drives its own mask local (a
        // local must not be accumulated through its own value: rust-hdl's val() is the last
        // settled value, so `x.next = x.val() | m` would keep stale bits in simulation).
        for i in 0..NEV {
            self.ev[i].next = 0.into();
        }
        if self.rx.vd_valid.val() {
            self.ev[0].next = self.c_mask[0].val();
            if self.rx.vd_reason.val() == DropReason::Accepted {
                self.ev[1].next = self.c_mask[1].val();
            }
            if self.rx.vd_reason.val() == DropReason::Unsupported {
                self.ev[2].next = self.c_mask[2].val();
            }
            if self.rx.vd_reason.val() == DropReason::MacMismatch {
                self.ev[3].next = self.c_mask[3].val();
            }
            if (self.rx.vd_reason.val() == DropReason::Truncated)
                | (self.rx.vd_reason.val() == DropReason::Length)
                | (self.rx.vd_reason.val() == DropReason::Oversize)
            {
                self.ev[4].next = self.c_mask[4].val();
            }
            if self.rx.vd_reason.val() == DropReason::BadOpcode {
                self.ev[5].next = self.c_mask[5].val();
            }
            if self.rx.vd_reason.val() == DropReason::BadIcrc {
                self.ev[6].next = self.c_mask[6].val();
            }
        }
        if self.tx_mac.valid.val() & self.tx_mac.ready.val() & self.tx_mac.last.val() {
            self.ev[7].next = self.c_mask[7].val();
        }
        // ACK / NAK kind from the AETH syndrome: 000xxxxx ACK, 011ccccc NAK with code c
        self.syn.next = self.ackf.hdr.val().aeth_syndrome;
        if self.ackf.hdr_valid.val() & self.tx.desc_ready.val() {
            if self.syn.val().get_bits::<3>(5) == 0 {
                self.ev[8].next = self.c_mask[8].val();
            }
            if self.syn.val().get_bits::<3>(5) == 3 {
                if self.syn.val().get_bits::<5>(0) == self.c_nak[0].val() {
                    self.ev[9].next = self.c_mask[9].val();
                }
                if self.syn.val().get_bits::<5>(0) == self.c_nak[1].val() {
                    self.ev[10].next = self.c_mask[10].val();
                }
                if self.syn.val().get_bits::<5>(0) == self.c_nak[2].val() {
                    self.ev[11].next = self.c_mask[11].val();
                }
                if self.syn.val().get_bits::<5>(0) == self.c_nak[3].val() {
                    self.ev[12].next = self.c_mask[12].val();
                }
            }
        }
        self.csr.cnt_inc.next = self.ev[0].val()
            | self.ev[1].val()
            | self.ev[2].val()
            | self.ev[3].val()
            | self.ev[4].val()
            | self.ev[5].val()
            | self.ev[6].val()
            | self.ev[7].val()
            | self.ev[8].val()
            | self.ev[9].val()
            | self.ev[10].val()
            | self.ev[11].val()
            | self.ev[12].val();
        self.csr.cnt_rx_bytes.next = 0.into();
        if self.rx.vd_valid.val() {
            self.csr.cnt_rx_bytes.next = self.rx.vd_flen.val();
        }
        // bytes of the beat the MAC takes: 8, or the contiguous keep of a last beat
        self.csr.cnt_tx_bytes.next = 0.into();
        if self.tx_mac.valid.val() & self.tx_mac.ready.val() {
            self.csr.cnt_tx_bytes.next = 8.into();
            if self.tx_mac.last.val() {
                for k in 0..8 {
                    if self.tx_mac.keep.val() == self.c_keep[k].val() {
                        self.csr.cnt_tx_bytes.next = self.c_keep_bytes[k].val();
                    }
                }
            }
        }
    }
}
