//! `NicTop`: the whole NIC (64-bit profile): what the host sees on BAR0, what the MAC sees on
//! its two streams and what the PCIe DMA shell sees on the DMA port.
//!
//! ```text
//!  s_axil_* --> CsrBlock (registers, QP/CQ/MR tables) --cfg--> everything
//!                 | qev: MODIFY into RTR, RQ doorbells --> responder; SQ doorbells, other MODIFYs
//!                 |      --> requester; MODIFY into RESET / RESET->INIT --> both (RQ, SQ restart)
//!                 | cev: CQ doorbells, CREATE/DESTROY --> CqeWriter
//!                 | qpc read port <-- QpcReadMux <-- a: responder, b: formatter, c: requester
//!                 | MR lookup port <-- MrPortMux <-- a: responder, b: requester (lkeys)
//!  rx_mac -+-> PfcRxTap --pfc_*--> PfcPause (pause timers: the TX arbiter's gate)
//!          +-> RxAdmission (FIFO; fill --> PfcXoffGenerator --> PfcFrameInserter, before tx_mac)
//!  (FIFO) --> RxParser --hdr--+-- requests --> RcWriteResponder --dma.wr (DmaWriteMux a)--> host
//!                             |        (WRITE, SEND, RQ) | ack_* (in order, after placement;
//!                             |                          |  parked aside while PFC-paused)
//!                             |   recv WQEs, SGEs <--dma.rd (DmaReadMux a)   | cqe_* (receive)
//!                             +-- ACKs --> rx_ackq (16) --> RcRequester <--dma.rd (DmaReadMux b)-- WQEs, SGEs, payload
//!                                              | pk_* (one per packet)    | cqe_* --> CqeWriter
//!                                              |  atomic results --dma.wr-+  (DmaWriteMux b =
//!                                              v                             wrmux2: CQEs, results)
//!              ACKs (priority) --> PacketFormatter --hdr--> TxHeaderBuilder --> tx_mac
//!                           requester payload (packed) --pay--^
//! ```
//!
//! The RC transport of issue "the NIC end to end": SEND, SEND with immediate, WRITE and WRITE
//! with immediate at both ends: the requester segments and gathers, the responder places
//! (WRITE at the RETH's MR, SEND into the receive WQE's SGEs), every packet checked against the
//! MR key table, acknowledged in order, completions at both ends (the CQE writer takes the
//! responder's receive completions first). Atomics: the requester sends COMPARE_SWAP /
//! FETCH_ADD and writes the ATOMIC ACKNOWLEDGE's original value into its local SGE; the
//! responder executes them on host memory and answers duplicates from its replay cache. READ:
//! the responder's read responder answers, the requester scatters the responses. A QP entering
//! ERR (host MODIFY or an engine's `qerr`) is flushed on both queues, the responder first.
//!
//! Counters: the RX verdicts, TX frames/bytes and the responder's ACK/NAK/duplicate/drop events
//! go to the CSR block's `CNT_*` registers (as `cnt_inc` pulses). The parser's, responder's,
//! requester's and CQE writer's own totals are also top-level outputs (`rx_cnt_*`, `resp_cnt_*`,
//! `req_cnt_*`, `cq_cnt_*`) for simulation summaries.
use super::packet_formatter::{OPCODE_RC_ACK, OPCODE_RC_ATOMIC_ACK, OPCODE_RC_CNP};
use super::{DmaReadMux, DmaWriteMux, MrPortMux, PacketFormatter, QpcReadMux, TimeBase};
use crate::cc::rate_shaper::shaper_factor;
use crate::cc::{
    NotificationPoint, PfcPause, PfcXoffGenerator, RateFeeder, RateShaper, ReactionPoint,
};
use crate::cq::CqeWriter;
use crate::csr::{CsrBlockDefault, QpcReadMaster, QEV_MODIFY, QEV_RQ};
use crate::dma::{DmaMaster, DmaReadMaster, DmaWriteMaster};
use crate::header::{L3_IPV4, L3_IPV6, L3_ROCEV1};
use crate::req::{RcRequester, RxAck, RX_ACKQ_BITS};
use crate::resp::RcWriteResponder;
use crate::rx::{DropReason, PfcRxTap, RxAdmission64, RxParser64};
use crate::stream::{Sink64, Source64, StreamSink, StreamSource};
use crate::tx::{PfcFrameInserter, TxHeaderBuilder};
use crate::widget::RegFifo;
use ferroce_proto::host::config::GidType;
use ferroce_proto::host::qp::QpState;
use ferroce_proto::host::regs;
use rust_hdl::prelude::*;

// The READ_RESPONSE opcodes the kernel routes to the requester as a literal range (13..=16).
const _: () = assert!(
    ferroce_proto::wire::Opcode::RC_RDMA_READ_RESPONSE_FIRST.0 == 13
        && ferroce_proto::wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY.0 == 16
);

/// QPN bits of the default build (256 QPs), as `CsrBlockDefault`.
pub const NIC_QA: usize = 8;
// The kernel slices the BTH DestQP at bit 8 (QPN in range, the NP's and the CNP port's QPN) and
// reads CFG_CONTROL.DCQCN_NP_ENABLE as bit 5, as literals.
const _: () = assert!(NIC_QA == 8 && regs::cfg_control::DCQCN_NP_ENABLE == 1 << 5);
// ... and CFG_CONTROL.DCQCN_RP_ENABLE as bit 4, CC_QP_DCQCN's enable as bit 0, CC_RP_FLAGS'
// clamp_tgt_rate as bit 0 and clamp_tgt_rate_after_time_inc as bit 1.
const _: () = assert!(regs::cfg_control::DCQCN_RP_ENABLE == 1 << 4);
const _: () = assert!(crate::cc::reaction_point::QPN_W == NIC_QA);
/// The rate shaper's burst in bytes: the largest PMTU (IBTA Vol 1 9.7.2.1, 4096).
pub const SHAPER_BURST: u64 = 4096;
// The kernel slices CC_QP_SELECT at 8 bits (the QPN) and CC_QP_RATE_LIMIT at 20 (Mb/s).
const _: () = assert!(crate::cc::rate_shaper::SH_QPN_W == NIC_QA);
const _: () = assert!(crate::cc::rate_shaper::MBPS_W == 20);
// CC_QP_RATE: the shaper's Mb/s in its low bits, then the QPN, then LIMITED.
const _: () = assert!(
    regs::cc_qp_rate::MBPS.lsb == 0
        && regs::cc_qp_rate::MBPS.width as usize == 20
        && regs::cc_qp_rate::QPN.lsb == 20
        && regs::cc_qp_rate::QPN.width as usize >= NIC_QA
);
/// Number of CSR counters (`cnt_inc` width).
pub const NIC_COUNTERS: usize = regs::NUM_COUNTERS as usize;

/// Words (8 bytes) the receive FIFO must have free for a frame to be admitted at its first
/// beat (`RxAdmission::reserve`): one largest RoCE frame (`MAX_ROCE_FRAME_LEN`, 4198 bytes). A longer (non-RoCE) frame that meets a
/// full FIFO is cut, and the parser drops it.
pub const RX_ADMIT_RESERVE: usize = ferroce_proto::wire::frame::MAX_ROCE_FRAME_LEN.div_ceil(8);
const _: () = assert!(RX_ADMIT_RESERVE < regs::cfg_pfc_xoff::FIFO_WORDS as usize);

/// Receive-FIFO fill (words) from which a send job of the requester sets itself aside at its
/// next packet when the receive path waits on the requester (a READ response at the FIFO's
/// head): half the FIFO. Below it the job goes on (setting aside costs a WQE fetch); above
/// it the other half absorbs what arrives while the current packet (at most two, with the
/// responder's turns) goes out, so the FIFO never overflows for want of a requester.
pub const RX_REQ_YIELD_WORDS: usize = regs::cfg_pfc_xoff::FIFO_WORDS as usize / 2;
const _: () =
    assert!(RX_REQ_YIELD_WORDS + 2 * RX_ADMIT_RESERVE < regs::cfg_pfc_xoff::FIFO_WORDS as usize);

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
const C_NAK_RNR: usize = cnt(regs::CNT_TX_NAK_RNR_LO);
const C_RX_BYTES: usize = cnt(regs::CNT_RX_BYTES_LO);
const C_TX_BYTES: usize = cnt(regs::CNT_TX_BYTES_LO);
const C_RX_ACK: usize = cnt(regs::CNT_RX_ACK_LO);
const C_RX_NAK_PSN: usize = cnt(regs::CNT_RX_NAK_PSN_SEQ_LO);
const C_RX_NAK_RNR: usize = cnt(regs::CNT_RX_NAK_RNR_LO);
const C_RX_NAK_INV: usize = cnt(regs::CNT_RX_NAK_INV_REQ_LO);
const C_RX_NAK_ACC: usize = cnt(regs::CNT_RX_NAK_REM_ACCESS_LO);
const C_RX_NAK_OP: usize = cnt(regs::CNT_RX_NAK_REM_OP_LO);
const C_RETRANSMIT: usize = cnt(regs::CNT_RETRANSMIT_LO);
const C_RETRY_EVENT: usize = cnt(regs::CNT_RETRY_EVENT_LO);
const C_ACK_TIMEOUT: usize = cnt(regs::CNT_ACK_TIMEOUT_LO);
const C_RETRY_EXCEEDED: usize = cnt(regs::CNT_RETRY_EXCEEDED_LO);
const C_RX_DUPLICATE: usize = cnt(regs::CNT_RX_DUPLICATE_LO);
const C_RX_ECN_CE: usize = cnt(regs::CNT_RX_ECN_CE_LO);
const C_CNP_SENT: usize = cnt(regs::CNT_CNP_SENT_LO);
const C_CNP_RECEIVED: usize = cnt(regs::CNT_CNP_RECEIVED_LO);
const C_PFC_PAUSE: usize = cnt(regs::CNT_PFC_PAUSE_LO);
const C_PFC_PAUSED_CYCLES: usize = cnt(regs::CNT_PFC_PAUSED_CYCLES_LO);
const C_RP_NO_LIMITER: usize = cnt(regs::CNT_RP_CNP_NO_LIMITER_LO);
const C_RP_DISABLED: usize = cnt(regs::CNT_RP_CNP_DISABLED_LO);
const C_RP_OVERRUN: usize = cnt(regs::CNT_RP_TICK_OVERRUN_LO);
const C_RP_CNP_DROPPED: usize = cnt(regs::CNT_RP_CNP_DROPPED_LO);
const C_RP_BYTES_DROPPED: usize = cnt(regs::CNT_RP_BYTES_DROPPED_LO);
const C_RP_RATE_CUTS: usize = cnt(regs::CNT_RP_RATE_CUTS_LO);
const C_RX_NO_ROOM: usize = cnt(regs::CNT_RX_DROP_NO_ROOM_LO);
const C_PFC_XOFF_SENT: usize = cnt(regs::CNT_PFC_XOFF_SENT_LO);
const C_PFC_XON_SENT: usize = cnt(regs::CNT_PFC_XON_SENT_LO);
const C_ACK_PARKED: usize = cnt(regs::CNT_RESP_ACK_PARKED_LO);
const C_REQ_PFC_YIELD: usize = cnt(regs::CNT_REQ_PFC_YIELD_LO);
const C_REQ_SHAPER_YIELD: usize = cnt(regs::CNT_REQ_SHAPER_YIELD_LO);
const C_TLP_PROBE: usize = cnt(regs::CNT_TLP_PROBE_LO);
const C_UNKNOWN_QP: usize = cnt(regs::CNT_RX_DROP_UNKNOWN_QP_LO);
const C_QP_STATE: usize = cnt(regs::CNT_RX_DROP_QP_STATE_LO);
const C_OUT_OF_SEQ: usize = cnt(regs::CNT_RX_DROP_OUT_OF_SEQ_LO);
const C_CQE: usize = cnt(regs::CNT_CQE_LO);
const C_DMA_ERROR: usize = cnt(regs::CNT_DMA_ERROR_LO);
// Per-priority PFC counters: eight consecutive counters each, priority 0 first, so an 8-bit
// per-priority event vector shifted to the first one is their `cnt_inc` bits.
const C_PFC_RX_XOFF0: usize = cnt(regs::CNT_PFC_RX_XOFF_P0_LO);
const C_PFC_RX_XON0: usize = cnt(regs::CNT_PFC_RX_XON_P0_LO);
const C_PFC_PAUSED0: usize = cnt(regs::CNT_PFC_PAUSED_CYCLES_P0_LO);
const C_PFC_TX_XOFF0: usize = cnt(regs::CNT_PFC_TX_XOFF_P0_LO);
const C_PFC_TX_XON0: usize = cnt(regs::CNT_PFC_TX_XON_P0_LO);
// (proto checks that each group is eight consecutive counters; the shifts are 8 bits wide)
const _: () = assert!(C_PFC_TX_XON0 + 7 < 256);
/// Counter events the top pulses (the `idx` table in `Default`).
const NEV: usize = 51;
// PFC (docs/CONGESTION.md): the kernel reads CFG_CONTROL.PFC_ENABLE as bit 6 and CFG_PFC's
// fields at their positions as literals.
const _: () = assert!(
    regs::cfg_control::PFC_ENABLE == 1 << 6
        && regs::cfg_pfc::DATA_PRIO.lsb == 0
        && regs::cfg_pfc::DATA_PRIO.width == 3
        && regs::cfg_pfc::CNP_PRIO.lsb == 4
        && regs::cfg_pfc::CNP_PRIO.width == 3
        && regs::cfg_pfc::LINK_BITS.lsb == 16
        && regs::cfg_pfc::LINK_BITS.width == 16
);

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
    /// per-priority pause from the MAC (bit n: do not start a frame of priority n)
    pub pfc_pause_in: Signal<In, Bits<8>>,
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
    pub resp_cnt_rnr: Signal<Out, Bits<32>>,
    pub resp_cnt_recv: Signal<Out, Bits<32>>,
    pub req_cnt_packets: Signal<Out, Bits<32>>,
    pub req_cnt_messages: Signal<Out, Bits<32>>,
    pub req_cnt_acks: Signal<Out, Bits<32>>,
    pub req_cnt_naks: Signal<Out, Bits<32>>,
    pub req_cnt_resent: Signal<Out, Bits<32>>,
    pub req_cnt_errors: Signal<Out, Bits<32>>,
    pub cq_cnt_written: Signal<Out, Bits<32>>,
    pub cq_cnt_dropped: Signal<Out, Bits<32>>,
    /// the PFC pause state (bit n: priority n paused), for simulation summaries and tests
    pub pfc_paused: Signal<Out, Bits<8>>,
    // ---- blocks
    csr: CsrBlockDefault,
    rx: RxParser64,
    resp: RcWriteResponder<NIC_QA>,
    qmux: QpcReadMux<NIC_QA>,
    fmt: PacketFormatter<NIC_QA>,
    tx: TxHeaderBuilder,
    req: RcRequester<NIC_QA, { NIC_QA + crate::req::WIN_LOG2 }>,
    timebase: TimeBase,
    /// the 1 us tick of the congestion-control blocks
    timebase_us: TimeBase,
    /// DCQCN notification point: CNP requests for CE-marked packets (docs/CONGESTION.md)
    np: NotificationPoint<NIC_QA>,
    /// per-QP token buckets (docs/CONGESTION.md): the limit of each QP the feeder gives it; the
    /// requester's work ring skips a QP whose bucket is negative
    shaper: RateShaper,
    /// DCQCN reaction point: a pool of 16 per-QP rate limiters driven by received CNPs, bytes
    /// sent and the 1 us tick (docs/CONGESTION.md)
    rp: ReactionPoint,
    /// static limits (CC_QP_RATE_LIMIT), the reaction point's event queues, and the sweep that
    /// gives the shaper min(static limit, Rc) of every QP
    feeder: RateFeeder,
    /// a CC_QP_DCQCN write waits for the reaction point's `qp_en_ready`
    dq_pend: DFF<Bit>,
    /// CC_QP_RATE's word: the shaper's status port for the QP in CC_QP_SELECT, registered
    qp_rate_now: DFF<Bits<32>>,
    c_rate_limited: Constant<Bits<32>>,
    /// the reaction point's counters one cycle ago (a change is one event)
    rp_seen: [DFF<Bits<32>>; 4],
    /// the shaper's Mb/s -> bytes-per-cycle factor for the build's clock, and its burst
    c_sh_factor: Constant<Bits<16>>,
    c_sh_burst: Constant<Bits<16>>,
    /// the build's line rate in Mb/s (`ID_LINE_RATE`), the reaction point's rate ceiling
    c_line_rate: Constant<Bits<20>>,
    cqw: CqeWriter<8>,
    mrmux: MrPortMux,
    wrmux: DmaWriteMux,
    /// the CQE writer and the requester's atomic results share `wrmux.b`
    wrmux2: DmaWriteMux,
    rdmux: DmaReadMux,
    /// the READ responder's payload reads and the requester's share `rdmux.b`
    rdmux2: DmaReadMux,
    /// who owns the payload of each header the formatter took with one, in order (1: the
    /// responder's READ responses, 0: the requester): the TX builder takes payloads in header
    /// order
    pay_own: RegFifo<1, 4, 3>,
    pay_resp: Signal<Local, Bit>,
    // ---- glue
    ev: [Signal<Local, Bits<NIC_COUNTERS>>; NEV],
    /// DMA failures not yet counted (see `update`), and this cycle's count after each source
    dma_err_q: DFF<Bits<8>>,
    dma_err_n: Signal<Local, Bits<8>>,
    dma_err_m: Signal<Local, Bits<8>>,
    load_hit: Signal<Local, Bit>,
    /// a MODIFY that restarts the queues (into RESET, or RESET->INIT): responder, then requester
    rqr_hit: Signal<Local, Bit>,
    /// a MODIFY into ERR: the responder flushes the RQ, the requester the SQ
    err_hit: Signal<Local, Bit>,
    /// an event for both engines (responder first, then requester)
    both_hit: Signal<Local, Bit>,
    /// the responder has taken the current restart event; the requester's turn
    ev_half: DFF<Bit>,
    rq_ev: Signal<Local, Bit>,
    is_ack: Signal<Local, Bit>,
    /// READ_RESPONSE FIRST/MIDDLE/LAST/ONLY: to the requester, with their payload
    is_rresp: Signal<Local, Bit>,
    /// the payload on the RX stream belongs to a READ response (the requester's)
    pay_req: DFF<Bit>,
    syn: Signal<Local, Bits<8>>,
    rsyn: Signal<Local, Bits<8>>,
    /// the received packet's destination IP is one of the valid local GIDs
    ip_ok: Signal<Local, Bit>,
    /// a packet for a foreign IP was taken: its payload is being discarded
    draining: DFF<Bit>,
    /// the received header's BTH DestQP is one of the build's QPNs
    qp_in_range: Signal<Local, Bit>,
    /// the header's destination QP, opcode and traffic class as plain signals (a bit range of
    /// a struct field would be emitted as a chained part-select, which Icarus refuses)
    rx_dqp: Signal<Local, Bits<24>>,
    rx_op: Signal<Local, Bits<8>>,
    rx_tc: Signal<Local, Bits<8>>,
    /// the received header is an accepted RoCEv2 RC packet with IP ECN = CE, for the NP
    marked: Signal<Local, Bit>,
    /// a marked header waits for the notification point (its CNP queue is full)
    np_hold: Signal<Local, Bit>,
    /// the received header is a CNP (opcode 0x81) for one of the build's QPNs
    is_cnp: Signal<Local, Bit>,
    /// CNP receive port, to the DCQCN reaction point (through the feeder's queue): one pulse
    /// per CNP received (good ICRC, local GID, QPN of the
    /// build), `cnp_rx_qpn` its BTH DestQP. Counted in CNT_CNP_RECEIVED; never given to the
    /// responder or the requester.
    cnp_rx_valid: Signal<Local, Bit>,
    cnp_rx_qpn: Signal<Local, Bits<NIC_QA>>,
    // ---- PFC (IEEE 802.1Qbb): pause timers and the TX gate (docs/CONGESTION.md)
    pfc: PfcPause,
    /// the receive FIFO in front of the parser (the MAC cannot wait: whole frames are dropped
    /// when it has no room), whose fill level drives the XOFF generator
    adm: RxAdmission64,
    c_adm_reserve: Constant<Bits<16>>,
    /// PFC frames decoded from the MAC beats in front of the FIFO, so a pause takes effect at
    /// wire time, not after the data queued ahead of it (the parser still consumes and counts
    /// them; its own PFC outputs are left unused)
    pfc_tap: PfcRxTap,
    /// received ACKs in front of the requester, which takes them only between the packets it
    /// sends: while PFC holds it inside a message, ACKs queue here and the receive path goes on
    /// (READ responses wait until the queue is empty, so the requester sees both in order)
    rx_ackq: SynchronousFIFO<RxAck, RX_ACKQ_BITS, { RX_ACKQ_BITS + 1 }, 1>,
    rx_ack_push: Signal<Local, Bit>,
    /// PFC XOFF / XON decisions from the FIFO's fill, and the frame source that puts them on
    /// the wire between data frames (after the arbiter: a MAC-control bypass)
    xoff: PfcXoffGenerator,
    pfc_ins: PfcFrameInserter,
    /// CFG_PFC's priorities of RoCE data/ACKs and of CNPs
    pfc_roce_prio: Signal<Local, Bits<3>>,
    pfc_cnp_prio: Signal<Local, Bits<3>>,
    /// the RoCE priority / the CNP priority is paused
    pfc_roce_hold: Signal<Local, Bit>,
    /// the receive path's header waits on the requester (a READ response, or an ACK the ACK
    /// queue has no room for)
    rx_waits_req: Signal<Local, Bit>,
    /// the receive FIFO holds at least `RX_REQ_YIELD_WORDS`
    rx_fill_high: Signal<Local, Bit>,
    c_req_yield: Constant<Bits<16>>,
    pfc_cnp_hold: Signal<Local, Bit>,
    /// the RoCE priority as a priority vector, and the PFC frame sent this cycle as one
    pfc_roce_bit: Signal<Local, Bits<8>>,
    pfc_tx_xoff: Signal<Local, Bits<8>>,
    pfc_tx_xon: Signal<Local, Bits<8>>,
    /// the per-priority PFC counters' `cnt_inc` bits
    pfc_prio_inc: Signal<Local, Bits<NIC_COUNTERS>>,
    /// where each per-priority counter group starts in `cnt_inc`
    c_at_rx_xoff: Constant<Bits<8>>,
    c_at_rx_xon: Constant<Bits<8>>,
    c_at_paused: Constant<Bits<8>>,
    c_at_tx_xoff: Constant<Bits<8>>,
    c_at_tx_xon: Constant<Bits<8>>,
    c_prio_one: Constant<Bits<8>>,
    /// the arbiter's candidates that may start: a CNP, a responder packet (ACK, NAK, READ
    /// response), a requester packet
    go_cnp: Signal<Local, Bit>,
    go_ack: Signal<Local, Bit>,
    go_req: Signal<Local, Bit>,
    /// the responder's packet is the one the formatter is offered (not the requester's turn)
    sel_ack: Signal<Local, Bit>,
    /// the requester's packet goes ahead of the responder's (its turn, and no payload)
    req_first: Signal<Local, Bit>,
    /// the responder sent a READ-response packet since the requester's last packet, so a
    /// waiting requester packet without payload goes next
    req_turn: DFF<Bit>,
    c_gt_v4: Constant<Bits<2>>,
    c_gt_v6: Constant<Bits<2>>,
    c_gt_v1: Constant<Bits<2>>,
    c_l3_v4: Constant<Bits<2>>,
    c_l3_v6: Constant<Bits<2>>,
    c_l3_v1: Constant<Bits<2>>,
    c_modify: Constant<Bits<2>>,
    c_rtr: Constant<Bits<3>>,
    c_err: Constant<Bits<3>>,
    c_rq: Constant<Bits<2>>,
    c_ack_op: Constant<Bits<8>>,
    c_atack_op: Constant<Bits<8>>,
    c_cnp_op: Constant<Bits<8>>,
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
            C_RX_BYTES,
            C_TX_BYTES,
            C_RX_ACK,
            C_RX_NAK_PSN,
            C_RX_NAK_RNR,
            C_RX_NAK_INV,
            C_RX_NAK_ACC,
            C_RX_NAK_OP,
            C_ADDR,
            C_NAK_RNR,
            C_RETRANSMIT,
            C_RETRY_EVENT,
            C_ACK_TIMEOUT,
            C_RETRY_EXCEEDED,
            C_RX_DUPLICATE,
            C_RX_ECN_CE,
            C_CNP_SENT,
            C_CNP_RECEIVED,
            C_PFC_PAUSE,
            C_PFC_PAUSED_CYCLES,
            C_RP_NO_LIMITER,
            C_RP_DISABLED,
            C_RP_OVERRUN,
            C_RP_CNP_DROPPED,
            C_RP_BYTES_DROPPED,
            C_RP_RATE_CUTS,
            C_RX_NO_ROOM,
            C_PFC_XOFF_SENT,
            C_PFC_XON_SENT,
            C_ACK_PARKED,
            C_REQ_PFC_YIELD,
            C_REQ_SHAPER_YIELD,
            C_UNKNOWN_QP,
            C_QP_STATE,
            C_OUT_OF_SEQ,
            C_CQE,
            C_DMA_ERROR,
            C_TLP_PROBE,
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
            pfc_pause_in: Default::default(),
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
            resp_cnt_rnr: Default::default(),
            resp_cnt_recv: Default::default(),
            req_cnt_packets: Default::default(),
            req_cnt_messages: Default::default(),
            req_cnt_acks: Default::default(),
            req_cnt_naks: Default::default(),
            req_cnt_resent: Default::default(),
            req_cnt_errors: Default::default(),
            cq_cnt_written: Default::default(),
            cq_cnt_dropped: Default::default(),
            pfc_paused: Default::default(),
            csr: Default::default(),
            rx: Default::default(),
            resp: Default::default(),
            qmux: Default::default(),
            fmt: Default::default(),
            tx: Default::default(),
            req: Default::default(),
            timebase: TimeBase::new(crate::csr::CsrParams::default().clock_khz),
            timebase_us: TimeBase::microsecond(crate::csr::CsrParams::default().clock_khz),
            np: Default::default(),
            shaper: Default::default(),
            rp: Default::default(),
            feeder: Default::default(),
            dq_pend: Default::default(),
            qp_rate_now: Default::default(),
            c_rate_limited: Constant::new((regs::cc_qp_rate::LIMITED.mask() as u64).into()),
            rp_seen: Default::default(),
            c_sh_factor: Constant::new(
                (shaper_factor(crate::csr::CsrParams::default().clock_khz)
                    .expect("the build's clock is within the shaper's range")
                    as u64)
                    .into(),
            ),
            c_sh_burst: Constant::new(SHAPER_BURST.into()),
            c_line_rate: Constant::new(
                (crate::csr::CsrParams::default().line_rate_mbps as u64).into(),
            ),
            cqw: Default::default(),
            mrmux: Default::default(),
            wrmux: Default::default(),
            wrmux2: Default::default(),
            rdmux: Default::default(),
            rdmux2: Default::default(),
            pay_own: Default::default(),
            pay_resp: Default::default(),
            ev: core::array::from_fn(|_| Default::default()),
            dma_err_q: Default::default(),
            dma_err_n: Default::default(),
            dma_err_m: Default::default(),
            load_hit: Default::default(),
            rqr_hit: Default::default(),
            err_hit: Default::default(),
            both_hit: Default::default(),
            c_err: Constant::new((QpState::Error as u64).into()),
            ev_half: Default::default(),
            rq_ev: Default::default(),
            is_ack: Default::default(),
            is_rresp: Default::default(),
            pay_req: Default::default(),
            syn: Default::default(),
            rsyn: Default::default(),
            ip_ok: Default::default(),
            draining: Default::default(),
            qp_in_range: Default::default(),
            rx_dqp: Default::default(),
            rx_op: Default::default(),
            rx_tc: Default::default(),
            marked: Default::default(),
            np_hold: Default::default(),
            is_cnp: Default::default(),
            cnp_rx_valid: Default::default(),
            cnp_rx_qpn: Default::default(),
            pfc: Default::default(),
            adm: Default::default(),
            c_adm_reserve: Constant::new((RX_ADMIT_RESERVE as u64).into()),
            xoff: Default::default(),
            pfc_ins: Default::default(),
            pfc_tap: Default::default(),
            rx_ackq: Default::default(),
            rx_ack_push: Default::default(),
            pfc_roce_prio: Default::default(),
            pfc_cnp_prio: Default::default(),
            pfc_roce_hold: Default::default(),
            rx_waits_req: Default::default(),
            rx_fill_high: Default::default(),
            c_req_yield: Constant::new((RX_REQ_YIELD_WORDS as u64).into()),
            pfc_cnp_hold: Default::default(),
            pfc_roce_bit: Default::default(),
            pfc_tx_xoff: Default::default(),
            pfc_tx_xon: Default::default(),
            pfc_prio_inc: Default::default(),
            c_at_rx_xoff: Constant::new((C_PFC_RX_XOFF0 as u64).into()),
            c_at_rx_xon: Constant::new((C_PFC_RX_XON0 as u64).into()),
            c_at_paused: Constant::new((C_PFC_PAUSED0 as u64).into()),
            c_at_tx_xoff: Constant::new((C_PFC_TX_XOFF0 as u64).into()),
            c_at_tx_xon: Constant::new((C_PFC_TX_XON0 as u64).into()),
            c_prio_one: Constant::new(1.into()),
            go_cnp: Default::default(),
            go_ack: Default::default(),
            go_req: Default::default(),
            sel_ack: Default::default(),
            req_first: Default::default(),
            req_turn: Default::default(),
            c_gt_v4: Constant::new((GidType::RoceV2Ipv4 as u64).into()),
            c_gt_v6: Constant::new((GidType::RoceV2Ipv6 as u64).into()),
            c_gt_v1: Constant::new((GidType::RoceV1 as u64).into()),
            c_l3_v4: Constant::new(L3_IPV4.into()),
            c_l3_v6: Constant::new(L3_IPV6.into()),
            c_l3_v1: Constant::new(L3_ROCEV1.into()),
            c_modify: Constant::new(QEV_MODIFY.into()),
            c_rtr: Constant::new((QpState::Rtr as u64).into()),
            c_rq: Constant::new(QEV_RQ.into()),
            c_ack_op: Constant::new(OPCODE_RC_ACK.into()),
            c_atack_op: Constant::new(OPCODE_RC_ATOMIC_ACK.into()),
            c_cnp_op: Constant::new(OPCODE_RC_CNP.into()),
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
        dff_setup!(
            self,
            clock,
            dma_err_q,
            draining,
            ev_half,
            pay_req,
            dq_pend,
            qp_rate_now,
            req_turn
        );
        for i in 0..4 {
            self.rp_seen[i].clock.next = self.clock.val();
            self.rp_seen[i].d.next = self.rp_seen[i].q.val();
        }
        self.csr.clock.next = self.clock.val();
        self.rx.clock.next = self.clock.val();
        self.resp.clock.next = self.clock.val();
        self.qmux.clock.next = self.clock.val();
        self.fmt.clock.next = self.clock.val();
        self.tx.clock.next = self.clock.val();
        self.req.clock.next = self.clock.val();
        self.timebase.clock.next = self.clock.val();
        self.timebase_us.clock.next = self.clock.val();
        self.np.clock.next = self.clock.val();
        self.shaper.clock.next = self.clock.val();
        self.rp.clock.next = self.clock.val();
        self.feeder.clock.next = self.clock.val();
        self.req.tick.next = self.timebase.tick.val();
        self.cqw.clock.next = self.clock.val();
        self.mrmux.clock.next = self.clock.val();
        self.wrmux.clock.next = self.clock.val();
        self.wrmux2.clock.next = self.clock.val();
        self.rdmux.clock.next = self.clock.val();
        self.rdmux2.clock.next = self.clock.val();
        self.pay_own.clock.next = self.clock.val();
        self.pfc.clock.next = self.clock.val();
        self.adm.clock.next = self.clock.val();
        self.xoff.clock.next = self.clock.val();
        self.pfc_ins.clock.next = self.clock.val();
        self.pfc_tap.clock.next = self.clock.val();
        self.rx_ackq.clock.next = self.clock.val();

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
        // CQ interrupts from the CQE writer; no async events yet
        self.csr.cq_irq_valid.next = self.cqw.cq_irq_valid.val();
        self.csr.cq_irq_vector.next = self.cqw.cq_irq_vector.val();
        self.csr.ev_valid.next = false;
        self.csr.ev_type.next = 0.into();
        self.csr.ev_id.next = 0.into();
        self.csr.ev_status.next = 0.into();
        self.csr.ev_vendor.next = 0.into();
        // CQ doorbells and CREATE/DESTROY to the CQE writer
        self.cqw.cev_valid.next = self.csr.cev_valid.val();
        self.csr.cev_ready.next = self.cqw.cev_ready.val();
        self.cqw.cev_kind.next = self.csr.cev_kind.val();
        self.cqw.cev_cqn.next = self.csr.cev_cqn.val().get_bits::<8>(0);
        self.cqw.cev_value.next = self.csr.cev_value.val();
        // QUERY's runtime state: a QP's SQ indices from the requester, its RQ indices from the
        // responder (below), a CQ's PI/CI/arm state from the CQE writer
        self.req.rtq_valid.next = self.csr.rtq_req.val() & !self.csr.rtq_cq.val();
        self.req.rtq_qpn.next = self.csr.rtq_index.val().get_bits::<NIC_QA>(0);
        self.cqw.rtq_valid.next = self.csr.rtq_req.val() & self.csr.rtq_cq.val();
        self.cqw.rtq_cqn.next = self.csr.rtq_index.val().get_bits::<8>(0);
        self.csr.rtq_ack.next = self.req.rtq_ack.val() | self.cqw.rtq_ack.val();
        self.csr.rtq_d0.next = self.req.rtq_sq_index.val();
        // QP_RQ_INDEX from the responder's query port (read at the held QPN)
        self.resp.rtq_qpn.next = self.csr.rtq_index.val().get_bits::<NIC_QA>(0);
        self.csr.rtq_d1.next = self.resp.rtq_rq_index.val();
        self.csr.rtq_d2.next = 0.into();
        if self.req.rtq_drained.val() {
            self.csr.rtq_d2.next = 1.into();
        }
        if self.cqw.rtq_ack.val() {
            self.csr.rtq_d0.next = self.cqw.rtq_pi.val();
            self.csr.rtq_d1.next = self.cqw.rtq_ci.val();
            self.csr.rtq_d2.next = self.cqw.rtq_state.val();
        }
        // CQ table port: the CQE writer's
        self.csr.cqc_rd_valid.next = self.cqw.cqc_rd_valid.val();
        self.csr.cqc_rd_cqn.next = self.cqw.cqc_rd_cqn.val();
        self.cqw.cqc_valid.next = self.csr.cqc_valid.val();
        self.cqw.cqc_exists.next = self.csr.cqc_exists.val();
        self.cqw.cqc_base.next = self.csr.cqc_base.val();
        self.cqw.cqc_log2_entries.next = self.csr.cqc_log2_entries.val();
        self.cqw.cqc_vector.next = self.csr.cqc_vector.val();

        // ---- receive front end
        // the MAC's beats enter the admission FIFO (always ready); the parser reads it
        StreamSink::<64, 8>::link(&mut self.rx_mac, &mut self.adm.inp);
        self.adm.reserve.next = self.c_adm_reserve.val();
        self.rx.inp.valid.next = self.adm.out.valid.val();
        self.rx.inp.data.next = self.adm.out.data.val();
        self.rx.inp.keep.next = self.adm.out.keep.val();
        self.rx.inp.last.next = self.adm.out.last.val();
        self.adm.out.ready.next = self.rx.inp.ready.val();
        // the PFC tap listens to the same beats (the MAC never waits: every valid beat counts)
        self.pfc_tap.mon_valid.next = self.rx_mac.valid.val();
        self.pfc_tap.mon_data.next = self.rx_mac.data.val();
        self.pfc_tap.mon_keep.next = self.rx_mac.keep.val();
        self.pfc_tap.mon_last.next = self.rx_mac.last.val();
        self.pfc_tap.cfg_mac.next = self.csr.cfg_mac.val();
        self.pfc_tap.cfg_promisc.next = false;
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

        // ---- received packets: ACKNOWLEDGEs (no payload) to the requester, everything else
        // to the responder (which drains and counts what it does not execute, including an
        // ACKNOWLEDGE that claims a payload)
        self.is_ack.next = ((self.rx.hdr.val().opcode == self.c_ack_op.val())
            | (self.rx.hdr.val().opcode == self.c_atack_op.val()))
            & (self.rx.hdr.val().payload_len == 0);
        // the destination IP must be a valid local GID of the packet's kind (IPv4: the
        // entry's low 32 bits; IPv6 and RoCEv1: all 128); a packet for another address is
        // taken here, counted (RX_DROP_ADDR) and its payload discarded
        self.ip_ok.next = (((self.csr.gid_type.val().get_bits::<2>(0) == self.c_gt_v4.val())
            & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
            & (self.csr.gid0.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
            | ((self.csr.gid_type.val().get_bits::<2>(0) == self.c_gt_v6.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                & (self.csr.gid0.val() == self.rx.hdr.val().ip6_dst))
            | ((self.csr.gid_type.val().get_bits::<2>(0) == self.c_gt_v1.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                & (self.csr.gid0.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(2) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid1.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(2) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid1.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(2) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid1.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(4) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid2.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(4) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid2.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(4) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid2.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(6) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid3.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(6) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid3.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(6) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid3.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(8) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid4.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(8) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid4.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(8) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid4.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(10) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid5.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(10) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid5.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(10) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid5.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(12) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid6.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(12) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid6.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(12) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid6.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(14) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid7.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(14) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid7.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(14) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid7.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(16) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid8.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(16) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid8.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(16) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid8.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(18) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid9.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(18) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid9.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(18) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid9.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(20) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid10.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(20) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid10.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(20) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid10.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(22) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid11.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(22) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid11.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(22) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid11.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(24) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid12.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(24) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid12.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(24) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid12.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(26) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid13.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(26) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid13.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(26) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid13.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(28) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid14.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(28) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid14.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(28) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid14.val() == self.rx.hdr.val().ip6_dst)))
            | (((self.csr.gid_type.val().get_bits::<2>(30) == self.c_gt_v4.val())
                & (self.rx.hdr.val().l3 == self.c_l3_v4.val())
                & (self.csr.gid15.val().get_bits::<32>(0) == self.rx.hdr.val().ip4_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(30) == self.c_gt_v6.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v6.val())
                    & (self.csr.gid15.val() == self.rx.hdr.val().ip6_dst))
                | ((self.csr.gid_type.val().get_bits::<2>(30) == self.c_gt_v1.val())
                    & (self.rx.hdr.val().l3 == self.c_l3_v1.val())
                    & (self.csr.gid15.val() == self.rx.hdr.val().ip6_dst)));
        self.is_rresp.next = (self.rx.hdr.val().opcode >= 13) & (self.rx.hdr.val().opcode <= 16);
        // ---- ECN and CNPs (docs/CONGESTION.md): a RoCEv2 RC packet (opcode 0x00..0x1F) with
        // IP ECN = CE for one of our QPNs goes to the notification point as well as to its
        // engine (both in the same cycle: the NP's `mk_ready` holds the header if needed); a
        // CNP for one of our QPNs is taken here (counted, offered on `cnp_rx_*`)
        self.rx_dqp.next = self.rx.hdr.val().dest_qp;
        self.rx_op.next = self.rx.hdr.val().opcode;
        self.rx_tc.next = self.rx.hdr.val().tclass;
        self.qp_in_range.next = !self.rx_dqp.val().get_bits::<16>(8).any();
        self.marked.next = self.rx.hdr_valid.val()
            & self.ip_ok.val()
            & !self.draining.q.val()
            & self.qp_in_range.val()
            & !self.rx_op.val().get_bits::<3>(5).any()
            & ((self.rx.hdr.val().l3 == self.c_l3_v4.val())
                | (self.rx.hdr.val().l3 == self.c_l3_v6.val()))
            & (self.rx_tc.val().get_bits::<2>(0) == 3);
        self.np_hold.next = self.marked.val() & !self.np.mk_ready.val();
        self.is_cnp.next =
            (self.rx.hdr.val().opcode == self.c_cnp_op.val()) & self.qp_in_range.val();
        self.resp.hdr_valid.next = self.rx.hdr_valid.val()
            & !self.is_ack.val()
            & !self.is_rresp.val()
            & !self.is_cnp.val()
            & self.ip_ok.val()
            & !self.draining.q.val()
            & !self.np_hold.val();
        self.req.rr_valid.next = self.rx.hdr_valid.val()
            & self.is_rresp.val()
            & self.ip_ok.val()
            & !self.draining.q.val()
            & !self.np_hold.val()
            & self.rx_ackq.empty.val();
        self.rx_ack_push.next = self.rx.hdr_valid.val()
            & self.is_ack.val()
            & self.ip_ok.val()
            & !self.draining.q.val()
            & !self.np_hold.val()
            & !self.rx_ackq.full.val();
        self.rx_ackq.write.next = self.rx_ack_push.val();
        self.rx_ackq.data_in.next.qpn = self.rx.hdr.val().dest_qp;
        self.rx_ackq.data_in.next.psn = self.rx.hdr.val().psn;
        self.rx_ackq.data_in.next.syndrome = self.rx.hdr.val().aeth_syndrome;
        self.rx_ackq.data_in.next.atomic = self.rx.hdr.val().opcode == self.c_atack_op.val();
        self.rx_ackq.data_in.next.orig = self.rx.hdr.val().atomic_orig;
        self.req.ack_valid.next = !self.rx_ackq.empty.val();
        self.rx_ackq.read.next = self.req.ack_valid.val() & self.req.ack_ready.val();
        // a header may be taken while the previous frame's payload still streams when both
        // payloads go the same way: the payload in flight is the responder's (or there is
        // none) and this header is ours and not a READ response (the responder, an ACK, a
        // CNP), or both are READ responses (the requester's). So each engine judges the next
        // packet while its data mover places the last.
        self.rx.hdr_ahead_ok.next = !self.draining.q.val()
            & self.ip_ok.val()
            & (self.pay_req.q.val() == self.is_rresp.val());
        self.rx.hdr_ready.next = false;
        if !self.draining.q.val() {
            self.rx.hdr_ready.next = self.resp.hdr_ready.val();
            if self.is_ack.val() {
                self.rx.hdr_ready.next = !self.rx_ackq.full.val();
            }
            if self.is_rresp.val() {
                self.rx.hdr_ready.next = self.req.rr_ready.val() & self.rx_ackq.empty.val();
            }
            if self.is_cnp.val() {
                self.rx.hdr_ready.next = true;
            }
            if self.np_hold.val() {
                self.rx.hdr_ready.next = false;
            }
            if !self.ip_ok.val() {
                self.rx.hdr_ready.next = true;
                if self.rx.hdr_valid.val() & (self.rx.hdr.val().payload_len != 0) {
                    self.draining.d.next = true;
                }
            }
        }
        self.np.mk_valid.next = self.marked.val() & self.rx.hdr_ready.val();
        self.np.mk_qpn.next = self.rx_dqp.val().get_bits::<8>(0);
        self.np.tick_us.next = self.timebase_us.tick.val();
        self.np.enable.next = self.csr.cfg_control.val().get_bit(5);
        self.np.interval.next = self.csr.cc_np_cnp_interval.val();
        self.cnp_rx_valid.next =
            self.rx.hdr_valid.val() & self.is_cnp.val() & self.ip_ok.val() & !self.draining.q.val();
        self.cnp_rx_qpn.next = self.rx_dqp.val().get_bits::<8>(0);
        // ---- rate shaper and DCQCN reaction point (docs/CONGESTION.md). A CC_QP_RATE_LIMIT
        // write stores the static limit of the QP in CC_QP_SELECT in the feeder; the feeder's
        // sweep gives the shaper min(static limit, the reaction point's Rc) of every QP. The
        // requester's Pop asks the shaper about the QP at its work ring's head and charges each
        // message where it starts (the shaper's bucket and the reaction point's byte counter).
        self.shaper.factor.next = self.c_sh_factor.val();
        self.shaper.burst.next = self.c_sh_burst.val();
        self.feeder.static_valid.next = self.csr.cc_qp_rate_wr.val();
        self.feeder.static_qpn.next = self.csr.cc_qp_select.val().get_bits::<8>(0);
        self.feeder.static_mbps.next = self.csr.cc_qp_rate_limit.val().get_bits::<20>(0);
        self.shaper.set_valid.next = self.feeder.sh_set_valid.val();
        self.shaper.set_qpn.next = self.feeder.sh_set_qpn.val();
        self.shaper.set_mbps.next = self.feeder.sh_set_mbps.val();
        self.feeder.sh_set_ready.next = self.shaper.set_ready.val();
        self.shaper.rd_qpn.next = self.feeder.sh_rd_qpn.val();
        self.feeder.sh_rd_limited.next = self.shaper.rd_limited.val();
        self.feeder.sh_rd_mbps.next = self.shaper.rd_mbps.val();
        self.shaper.q_qpn.next = self.req.sh_qpn.val();
        // CC_QP_RATE: what the shaper holds for the QP the host selected
        self.shaper.st_qpn.next = self.csr.cc_qp_select.val().get_bits::<8>(0);
        self.qp_rate_now.d.next = bit_cast::<32, 20>(self.shaper.st_mbps.val())
            | (bit_cast::<32, 8>(self.shaper.st_qpn.val()) << 20);
        if self.shaper.st_limited.val() {
            self.qp_rate_now.d.next = bit_cast::<32, 20>(self.shaper.st_mbps.val())
                | (bit_cast::<32, 8>(self.shaper.st_qpn.val()) << 20)
                | self.c_rate_limited.val();
        }
        self.csr.cc_qp_rate_now.next = self.qp_rate_now.q.val();
        self.req.sh_wait.next = self.shaper.q_limited.val() & !self.shaper.q_eligible.val();
        self.shaper.charge_valid.next = self.req.sh_charge.val();
        self.shaper.charge_qpn.next = self.req.sh_charge_qpn.val();
        self.shaper.charge_bytes.next = self.req.sh_charge_bytes.val();
        self.feeder.bytes_in_valid.next = self.req.sh_charge.val();
        self.feeder.bytes_in_qpn.next = self.req.sh_charge_qpn.val();
        self.feeder.bytes_in_n.next = self.req.sh_charge_bytes.val();
        self.feeder.cnp_in_valid.next = self.cnp_rx_valid.val();
        self.feeder.cnp_in_qpn.next = self.cnp_rx_qpn.val();
        self.rp.cnp_valid.next = self.feeder.rp_cnp_valid.val();
        self.rp.cnp_qpn.next = self.feeder.rp_cnp_qpn.val();
        self.feeder.rp_cnp_ready.next = self.rp.cnp_ready.val();
        self.rp.bytes_valid.next = self.feeder.rp_bytes_valid.val();
        self.rp.bytes_qpn.next = self.feeder.rp_bytes_qpn.val();
        self.rp.bytes_n.next = self.feeder.rp_bytes_n.val();
        self.feeder.rp_bytes_ready.next = self.rp.bytes_ready.val();
        self.rp.rate_qpn.next = self.feeder.rp_rate_qpn.val();
        self.feeder.rp_rate_limited.next = self.rp.rate_limited.val();
        self.feeder.rp_rate_rc.next = self.rp.rate_rc.val();
        // a CC_QP_DCQCN write: the QP's enable, held until the reaction point takes it
        if self.csr.cc_qp_dcqcn_wr.val() {
            self.dq_pend.d.next = true;
        }
        self.rp.qp_en_valid.next = self.dq_pend.q.val();
        if self.dq_pend.q.val() & self.rp.qp_en_ready.val() & !self.csr.cc_qp_dcqcn_wr.val() {
            self.dq_pend.d.next = false;
        }
        self.rp.qp_en_qpn.next = self.csr.cc_qp_select.val().get_bits::<8>(0);
        self.rp.qp_en_value.next = self.csr.cc_qp_dcqcn.val().get_bit(0);
        // the parameters: CC_RP_* (mlx5 names), the global enable, the build's line rate
        self.rp.tick.next = self.timebase_us.tick.val();
        self.rp.enable.next = self.csr.cfg_control.val().get_bit(4);
        self.rp.release_on_recovery.next = true;
        self.rp.line_rate.next = self.c_line_rate.val();
        self.rp.p_time_reset.next = self.csr.cc_rp_time_reset.val().get_bits::<20>(0);
        self.rp.p_byte_reset.next = self.csr.cc_rp_byte_reset.val().get_bits::<15>(0);
        self.rp.p_threshold.next = self.csr.cc_rp_threshold.val().get_bits::<16>(0);
        self.rp.p_max_rate.next = self.csr.cc_rp_max_rate.val().get_bits::<20>(0);
        self.rp.p_ai_rate.next = self.csr.cc_rp_ai_rate.val().get_bits::<20>(0);
        self.rp.p_hai_rate.next = self.csr.cc_rp_hai_rate.val().get_bits::<20>(0);
        self.rp.p_gd.next = self.csr.cc_rp_gd.val().get_bits::<5>(0);
        self.rp.p_min_dec_fac.next = self.csr.cc_rp_min_dec_fac.val().get_bits::<7>(0);
        self.rp.p_min_rate.next = self.csr.cc_rp_min_rate.val().get_bits::<20>(0);
        self.rp.p_first_cnp_rate.next = self.csr.cc_rp_first_cnp_rate.val().get_bits::<20>(0);
        self.rp.p_alpha_g.next = self.csr.cc_rp_alpha_g.val().get_bits::<11>(0);
        self.rp.p_alpha_period.next = self.csr.cc_rp_alpha_period.val().get_bits::<20>(0);
        self.rp.p_reduce_period.next = self.csr.cc_rp_reduce_period.val().get_bits::<20>(0);
        self.rp.p_initial_alpha.next = self.csr.cc_rp_initial_alpha.val().get_bits::<10>(0);
        self.rp.p_clamp_tgt_rate.next = self.csr.cc_rp_flags.val().get_bit(0);
        self.rp.p_clamp_after_time_inc.next = self.csr.cc_rp_flags.val().get_bit(1);
        // its counters, as events: each counts at most one per cycle
        self.rp_seen[0].d.next = self.rp.cnp_no_limiter.val();
        self.rp_seen[1].d.next = self.rp.cnp_disabled.val();
        self.rp_seen[2].d.next = self.rp.tick_overruns.val();
        self.rp_seen[3].d.next = self.rp.rate_cuts.val();
        // payload: to the responder, or to the requester after a READ response's header (the
        // parser presents a header only after the previous frame's payload is out, except one
        // that `hdr_ahead_ok` lets through, which does not change the route), or discarded
        // after a foreign header
        if self.rx.hdr_valid.val() & self.rx.hdr_ready.val() & self.ip_ok.val() {
            self.pay_req.d.next = self.is_rresp.val();
        }
        self.resp.pay.valid.next =
            self.rx.pay.valid.val() & !self.draining.q.val() & !self.pay_req.q.val();
        self.resp.pay.data.next = self.rx.pay.data.val();
        self.resp.pay.keep.next = self.rx.pay.keep.val();
        self.resp.pay.last.next = self.rx.pay.last.val();
        self.req.rpay.valid.next =
            self.rx.pay.valid.val() & !self.draining.q.val() & self.pay_req.q.val();
        self.req.rpay.data.next = self.rx.pay.data.val();
        self.req.rpay.keep.next = self.rx.pay.keep.val();
        self.req.rpay.last.next = self.rx.pay.last.val();
        self.rx.pay.ready.next = self.resp.pay.ready.val();
        if self.pay_req.q.val() {
            self.rx.pay.ready.next = self.req.rpay.ready.val();
        }
        if self.draining.q.val() {
            self.rx.pay.ready.next = true;
            if self.rx.pay.valid.val() & self.rx.pay.last.val() {
                self.draining.d.next = false;
            }
        }
        self.resp.hdr.next = self.rx.hdr.val();
        self.req.ack_qpn.next = self.rx_ackq.data_out.val().qpn;
        self.req.ack_psn.next = self.rx_ackq.data_out.val().psn;
        self.req.ack_syndrome.next = self.rx_ackq.data_out.val().syndrome;
        self.req.ack_atomic.next = self.rx_ackq.data_out.val().atomic;
        self.req.ack_orig.next = self.rx_ackq.data_out.val().orig;
        self.req.rr_qpn.next = self.rx.hdr.val().dest_qp;
        self.req.rr_psn.next = self.rx.hdr.val().psn;
        self.req.rr_opcode.next = self.rx.hdr.val().opcode;
        self.req.rr_plen.next = self.rx.hdr.val().payload_len;

        // ---- responder
        // QP context (one interface, crate::csr::qpc_port): the responder is the mux's
        // priority reader (fixed latency, no ready), then the formatter, then the requester
        QpcReadMaster::<NIC_QA>::join(&mut self.resp.qpc, &mut self.qmux.a);
        QpcReadMaster::<NIC_QA>::join(&mut self.fmt.qpc, &mut self.qmux.b);
        QpcReadMaster::<NIC_QA>::join(&mut self.req.qpc, &mut self.qmux.c);
        QpcReadMaster::<NIC_QA>::join(&mut self.qmux.out, &mut self.csr.qpc);
        self.resp.cfg_ack_every.next = self.csr.cfg_ack_coalesce.val().get_bits::<8>(0);
        // queue events, in order: a MODIFY into RTR (re)loads the responder's state from the
        // QP's RQ_PSN; RQ doorbells go to the responder (its receive queue); a MODIFY into
        // RESET or RESET->INIT restarts both queues, a MODIFY into ERR (host or engine) flushes
        // both (responder first, then requester); SQ doorbells and every other MODIFY go to
        // the requester
        self.load_hit.next = (self.csr.qev_kind.val() == self.c_modify.val())
            & (self.csr.qev_value.val().get_bits::<3>(0) == self.c_rtr.val());
        self.rqr_hit.next = (self.csr.qev_kind.val() == self.c_modify.val())
            & ((self.csr.qev_value.val().get_bits::<3>(0) == 0)
                | ((self.csr.qev_value.val().get_bits::<3>(0) == 1)
                    & (self.csr.qev_value.val().get_bits::<3>(4) == 0)));
        self.err_hit.next = (self.csr.qev_kind.val() == self.c_modify.val())
            & (self.csr.qev_value.val().get_bits::<3>(0) == self.c_err.val());
        self.both_hit.next = self.rqr_hit.val() | self.err_hit.val();
        self.rq_ev.next = self.csr.qev_kind.val() == self.c_rq.val();
        self.resp.load_valid.next = self.csr.qev_valid.val()
            & (self.load_hit.val() | (self.both_hit.val() & !self.ev_half.q.val()));
        self.resp.load_kind.next = 0.into();
        if self.rqr_hit.val() {
            self.resp.load_kind.next = 1.into();
        }
        if self.err_hit.val() {
            self.resp.load_kind.next = 2.into();
        }
        self.resp.load_qpn.next = self.csr.qev_qpn.val().get_bits::<NIC_QA>(0);
        self.resp.rqdb_valid.next = self.csr.qev_valid.val() & self.rq_ev.val();
        self.resp.rqdb_qpn.next = self.csr.qev_qpn.val().get_bits::<NIC_QA>(0);
        self.resp.rqdb_pi.next = self.csr.qev_value.val();
        self.req.ev_valid.next = self.csr.qev_valid.val()
            & !self.load_hit.val()
            & !self.rq_ev.val()
            & (!self.both_hit.val() | self.ev_half.q.val());
        self.req.ev_kind.next = self.csr.qev_kind.val();
        self.req.ev_qpn.next = self.csr.qev_qpn.val().get_bits::<NIC_QA>(0);
        self.req.ev_value.next = self.csr.qev_value.val();
        self.csr.qev_ready.next = self.req.ev_ready.val();
        if self.load_hit.val() {
            self.csr.qev_ready.next = self.resp.load_ready.val();
        }
        if self.rq_ev.val() {
            self.csr.qev_ready.next = self.resp.rqdb_ready.val();
        }
        if self.both_hit.val() {
            self.csr.qev_ready.next = self.ev_half.q.val() & self.req.ev_ready.val();
            if self.csr.qev_valid.val() & !self.ev_half.q.val() & self.resp.load_ready.val() {
                self.ev_half.d.next = true;
            }
            if self.csr.qev_valid.val() & self.ev_half.q.val() & self.req.ev_ready.val() {
                self.ev_half.d.next = false;
            }
        }
        // MR table: the responder's remote checks first, then the requester's lkeys
        self.mrmux.a_req_valid.next = self.resp.mr_req_valid.val();
        self.resp.mr_req_ready.next = self.mrmux.a_req_ready.val();
        self.mrmux.a_req_key.next = self.resp.mr_req_key.val();
        self.mrmux.a_req_pd.next = self.resp.mr_req_pd.val();
        self.mrmux.a_req_need.next = self.resp.mr_req_need.val();
        self.mrmux.a_req_va.next = self.resp.mr_req_va.val();
        self.mrmux.a_req_len.next = self.resp.mr_req_len.val();
        self.mrmux.a_req_remote.next = self.resp.mr_req_remote.val();
        self.mrmux.a_req_tag.next = self.resp.mr_req_tag.val();
        self.mrmux.b_req_valid.next = self.req.mr_req_valid.val();
        self.req.mr_req_ready.next = self.mrmux.b_req_ready.val();
        self.mrmux.b_req_key.next = self.req.mr_req_key.val();
        self.mrmux.b_req_pd.next = self.req.mr_req_pd.val();
        self.mrmux.b_req_va.next = self.req.mr_req_va.val();
        self.mrmux.b_req_len.next = self.req.mr_req_len.val();
        self.mrmux.b_req_need.next = self.req.mr_req_need.val();
        self.csr.mr_req_valid.next = self.mrmux.req_valid.val();
        self.mrmux.req_ready.next = self.csr.mr_req_ready.val();
        self.csr.mr_req_key.next = self.mrmux.req_key.val();
        self.csr.mr_req_pd.next = self.mrmux.req_pd.val();
        self.csr.mr_req_need.next = self.mrmux.req_need.val();
        self.csr.mr_req_va.next = self.mrmux.req_va.val();
        self.csr.mr_req_len.next = self.mrmux.req_len.val();
        self.csr.mr_req_remote.next = self.mrmux.req_remote.val();
        self.csr.mr_req_tag.next = self.mrmux.req_tag.val();
        self.mrmux.resp_valid.next = self.csr.mr_resp_valid.val();
        self.resp.mr_resp_valid.next = self.mrmux.a_resp_valid.val();
        self.resp.mr_resp_ok.next = self.csr.mr_resp_ok.val();
        self.resp.mr_resp_code.next = self.csr.mr_resp_code.val();
        self.resp.mr_resp_zero.next = self.csr.mr_resp_zero.val();
        self.resp.mr_resp_addr.next = self.csr.mr_resp_addr.val();
        self.resp.mr_resp_remote.next = self.csr.mr_resp_remote.val();
        self.resp.mr_resp_tag.next = self.csr.mr_resp_tag.val();
        self.req.mr_resp_valid.next = self.mrmux.b_resp_valid.val();
        self.req.mr_resp_ok.next = self.csr.mr_resp_ok.val();
        self.req.mr_resp_addr.next = self.csr.mr_resp_addr.val();
        self.resp.mr_drain_req.next = self.csr.mr_drain_req.val();
        self.csr.mr_drain_ack.next = self.resp.mr_drain_ack.val();
        // QP to ERR
        // QP to ERR: the responder first, then the requester
        self.csr.qerr_valid.next = self.resp.qerr_valid.val() | self.req.qerr_valid.val();
        self.resp.qerr_ready.next = self.csr.qerr_ready.val();
        self.req.qerr_ready.next = self.csr.qerr_ready.val() & !self.resp.qerr_valid.val();
        self.csr.qerr_qpn.next = self.resp.qerr_qpn.val();
        self.csr.qerr_status.next = self.resp.qerr_status.val();
        self.csr.qerr_vendor.next = self.resp.qerr_vendor.val();
        if !self.resp.qerr_valid.val() {
            self.csr.qerr_qpn.next = self.req.qerr_qpn.val();
            self.csr.qerr_status.next = self.req.qerr_status.val();
            self.csr.qerr_vendor.next = self.req.qerr_vendor.val();
        }
        // DMA: the responder and the CQE writer share the write channel; the requester reads
        DmaWriteMaster::<64, 8>::join(&mut self.resp.dma_wr, &mut self.wrmux.a);
        DmaWriteMaster::<64, 8>::join(&mut self.cqw.dma_wr, &mut self.wrmux2.a);
        DmaWriteMaster::<64, 8>::join(&mut self.req.dma_wr, &mut self.wrmux2.b);
        DmaWriteMaster::<64, 8>::join(&mut self.wrmux2.out, &mut self.wrmux.b);
        DmaWriteMaster::<64, 8>::link(&mut self.dma.wr, &mut self.wrmux.out);
        // the responder (receive WQEs and SGEs) and the requester (send WQEs, SGEs, payload)
        // share the read channel
        DmaReadMaster::<64, 8>::join(&mut self.resp.dma_rd, &mut self.rdmux.a);
        DmaReadMaster::<64, 8>::join(&mut self.resp.rd_dma, &mut self.rdmux2.a);
        DmaReadMaster::<64, 8>::join(&mut self.req.dma_rd, &mut self.rdmux2.b);
        DmaReadMaster::<64, 8>::join(&mut self.rdmux2.out, &mut self.rdmux.b);
        DmaReadMaster::<64, 8>::link(&mut self.dma.rd, &mut self.rdmux.out);
        self.resp_cnt_executed.next = self.resp.cnt_executed.val();
        self.resp_cnt_duplicate.next = self.resp.cnt_duplicate.val();
        self.resp_cnt_psn_err.next = self.resp.cnt_psn_err.val();
        self.resp_cnt_access_err.next = self.resp.cnt_access_err.val();
        self.resp_cnt_invalid.next = self.resp.cnt_invalid.val();
        self.resp_cnt_unsupported.next = self.resp.cnt_unsupported.val();
        self.resp_cnt_qp_drop.next = self.resp.cnt_qp_drop.val();
        self.resp_cnt_dma_error.next = self.resp.cnt_dma_error.val();
        self.resp_cnt_rnr.next = self.resp.cnt_rnr.val();
        self.resp_cnt_recv.next = self.resp.cnt_recv.val();
        self.req_cnt_packets.next = self.req.cnt_packets.val();
        self.req_cnt_messages.next = self.req.cnt_messages.val();
        self.req_cnt_acks.next = self.req.cnt_acks.val();
        self.req_cnt_naks.next = self.req.cnt_naks.val();
        self.req_cnt_resent.next = self.req.cnt_resent.val();
        self.req_cnt_errors.next = self.req.cnt_errors.val();
        self.cq_cnt_written.next = self.cqw.cnt_written.val();
        self.cq_cnt_dropped.next = self.cqw.cnt_dropped.val();

        // ---- completions: the responder's receive completions first, then the requester's
        self.cqw.cqe_valid.next = self.resp.cqe_valid.val() | self.req.cqe_valid.val();
        self.resp.cqe_ready.next = self.cqw.cqe_ready.val();
        self.req.cqe_ready.next = self.cqw.cqe_ready.val() & !self.resp.cqe_valid.val();
        self.cqw.cqe_cqn.next = self.resp.cqe_cqn.val();
        self.cqw.cqe_wr_id.next = self.resp.cqe_wr_id.val();
        self.cqw.cqe_byte_len.next = self.resp.cqe_byte_len.val();
        self.cqw.cqe_imm.next = self.resp.cqe_imm.val();
        self.cqw.cqe_qpn.next = self.resp.cqe_qpn.val();
        self.cqw.cqe_src_qp.next = self.resp.cqe_src_qp.val();
        self.cqw.cqe_wqe_index.next = self.resp.cqe_wqe_index.val();
        self.cqw.cqe_vendor.next = self.resp.cqe_vendor.val();
        self.cqw.cqe_flags.next = self.resp.cqe_flags.val();
        self.cqw.cqe_status.next = self.resp.cqe_status.val();
        self.cqw.cqe_opcode.next = self.resp.cqe_opcode.val();
        if !self.resp.cqe_valid.val() {
            self.cqw.cqe_cqn.next = self.req.cqe_cqn.val();
            self.cqw.cqe_wr_id.next = self.req.cqe_wr_id.val();
            self.cqw.cqe_byte_len.next = 0.into();
            self.cqw.cqe_imm.next = 0.into();
            self.cqw.cqe_qpn.next = self.req.cqe_qpn.val();
            self.cqw.cqe_src_qp.next = self.req.cqe_src_qp.val();
            self.cqw.cqe_wqe_index.next = self.req.cqe_wqe_index.val();
            self.cqw.cqe_vendor.next = self.req.cqe_vendor.val();
            self.cqw.cqe_flags.next = 0.into();
            self.cqw.cqe_status.next = self.req.cqe_status.val();
            self.cqw.cqe_opcode.next = self.req.cqe_opcode.val();
        }

        // ---- PFC (IEEE 802.1Qbb, docs/CONGESTION.md): pause timers loaded from received PFC
        // frames and the MAC's pause input; the TX gate is in the arbiter below
        self.pfc.enable.next = self.csr.cfg_control.val().get_bit(6);
        self.pfc.bits_per_cycle.next = self.csr.cfg_pfc.val().get_bits::<16>(16);
        self.pfc.pause_in.next = self.pfc_pause_in.val();
        self.pfc.pfc_valid.next = self.pfc_tap.pfc_valid.val();
        self.pfc.pfc_enable.next = self.pfc_tap.pfc_enable.val();
        self.pfc.pfc_times.next = self.pfc_tap.pfc_times.val();
        self.pfc_paused.next = self.pfc.paused.val();
        self.pfc_roce_prio.next = self.csr.cfg_pfc.val().get_bits::<3>(0);
        self.pfc_cnp_prio.next = self.csr.cfg_pfc.val().get_bits::<3>(4);
        self.pfc_roce_hold.next = self
            .pfc
            .paused
            .val()
            .get_bit(self.pfc_roce_prio.val().index());
        self.pfc_cnp_hold.next = self
            .pfc
            .paused
            .val()
            .get_bit(self.pfc_cnp_prio.val().index());
        self.go_cnp.next = self.np.cnp_valid.val() & !self.pfc_cnp_hold.val();
        self.go_ack.next = self.resp.ack_valid.val() & !self.pfc_roce_hold.val();
        // paused: the responder moves plain ACKs / NAKs aside and keeps draining the receive
        // FIFO (else two NICs pausing each other stop for good: RespAckQueue)
        self.resp.ack_park.next = self.pfc_roce_hold.val();
        self.go_req.next = self.req.pk_valid.val() & !self.pfc_roce_hold.val();
        // ... and while paused the requester sets a send job aside, instead of waiting inside
        // it, once the receive path waits on it: a READ response, or an ACK the full ACK queue
        // cannot take (else two NICs that READ from each other stop). A pause with nothing
        // waiting keeps the job at its next packet, which then leaves as soon as the pause ends
        self.rx_waits_req.next = self.rx.hdr_valid.val()
            & self.ip_ok.val()
            & !self.draining.q.val()
            & !self.np_hold.val()
            & (self.is_rresp.val() | (self.is_ack.val() & self.rx_ackq.full.val()));
        // ... and likewise, PFC or not, once the receive FIFO is half full behind a header that
        // waits on the requester (a READ response stream from the peer while the requester is
        // inside a long message, or waits for its turn on the TX path)
        self.rx_fill_high.next = self.adm.fill.val() >= self.c_req_yield.val();
        self.req.tx_hold.next =
            (self.pfc_roce_hold.val() | self.rx_fill_high.val()) & self.rx_waits_req.val();
        self.req.cfg_quantum.next = self.csr.cfg_sq_quantum.val().get_bits::<8>(0);

        // ---- packets out: the responder's ACKs first (they free the peer's requester), then
        // the requester's packets, READ responses and requests taking turns (below); the
        // formatter latches its request when it takes it
        // CNPs go first of all (IBTA Annex A17: a CNP is not held behind data). A candidate
        // of a PFC-paused priority does not start (CNPs: CFG_PFC.CNP_PRIO; ACKs, READ
        // responses and requests: CFG_PFC.DATA_PRIO); the others go around it.
        // The responder's packets go before the requester's, except that after a
        // READ-response packet (one with payload) a waiting requester packet without payload
        // (a READ or atomic request) goes next (`req_turn`): a long READ answered to the peer
        // does not hold up our own requests, nor, behind them, the READ responses our
        // requester must take from the receive FIFO. (Giving every requester packet that turn
        // halved the rate of a WRITE sent beside READ responses, and the requester, inside
        // its WRITE longer, held READ responses at the receive FIFO's head: with 64 KiB READs
        // and WRITEs both ways over 8 QPs, 226,909 cycles and 144 frames dropped against
        // 169,894 and none.)
        self.fmt.pk_valid.next = self.go_cnp.val() | self.go_ack.val() | self.go_req.val();
        self.req_first.next =
            self.req_turn.q.val() & self.go_req.val() & (self.req.pk_plen.val() == 0);
        self.sel_ack.next = self.go_ack.val() & !self.req_first.val();
        self.np.cnp_ready.next = self.fmt.pk_ready.val() & !self.pfc_cnp_hold.val();
        self.resp.ack_ready.next = self.fmt.pk_ready.val()
            & !self.go_cnp.val()
            & !self.pfc_roce_hold.val()
            & !self.req_first.val();
        self.req.pk_ready.next = self.fmt.pk_ready.val()
            & !self.go_cnp.val()
            & (!self.go_ack.val() | (self.req_turn.q.val() & (self.req.pk_plen.val() == 0)))
            & !self.pfc_roce_hold.val();
        if self.fmt.pk_valid.val() & self.fmt.pk_ready.val() & !self.go_cnp.val() {
            if !self.sel_ack.val() {
                self.req_turn.d.next = false;
            } else if self.resp.ack_plen.val() != 0 {
                self.req_turn.d.next = true;
            }
        }
        self.fmt.pk_qpn.next = self.resp.ack_qpn.val();
        self.fmt.pk_opcode.next = self.resp.ack_opcode.val();
        self.fmt.pk_orig.next = self.resp.ack_orig.val();
        self.fmt.pk_swap.next = 0.into();
        self.fmt.pk_compare.next = 0.into();
        self.fmt.pk_dest_qpn.next = self.resp.ack_dest_qpn.val();
        self.fmt.pk_psn.next = self.resp.ack_psn.val();
        self.fmt.pk_ackreq.next = false;
        self.fmt.pk_se.next = false;
        self.fmt.pk_syndrome.next = self.resp.ack_syndrome.val();
        self.fmt.pk_msn.next = self.resp.ack_msn.val();
        self.fmt.pk_va.next = 0.into();
        self.fmt.pk_rkey.next = 0.into();
        self.fmt.pk_dlen.next = 0.into();
        self.fmt.pk_imm.next = 0.into();
        self.fmt.pk_plen.next = self.resp.ack_plen.val();
        if !self.sel_ack.val() {
            self.fmt.pk_qpn.next = self.req.pk_qpn.val();
            self.fmt.pk_opcode.next = self.req.pk_opcode.val();
            self.fmt.pk_dest_qpn.next = self.req.pk_dest_qpn.val();
            self.fmt.pk_psn.next = self.req.pk_psn.val();
            self.fmt.pk_ackreq.next = self.req.pk_ackreq.val();
            self.fmt.pk_se.next = self.req.pk_se.val();
            self.fmt.pk_syndrome.next = 0.into();
            self.fmt.pk_msn.next = 0.into();
            self.fmt.pk_va.next = self.req.pk_va.val();
            self.fmt.pk_rkey.next = self.req.pk_rkey.val();
            self.fmt.pk_dlen.next = self.req.pk_dlen.val();
            self.fmt.pk_imm.next = self.req.pk_imm.val();
            self.fmt.pk_plen.next = self.req.pk_plen.val();
            self.fmt.pk_swap.next = self.req.pk_swap.val();
            self.fmt.pk_compare.next = self.req.pk_compare.val();
            self.fmt.pk_orig.next = 0.into();
        }
        if self.go_cnp.val() {
            // the formatter takes DestQP, BECN and the CNP's marking from the QP context
            self.fmt.pk_qpn.next = self.np.cnp_qpn.val();
            self.fmt.pk_opcode.next = self.c_cnp_op.val();
            self.fmt.pk_dest_qpn.next = 0.into();
            self.fmt.pk_psn.next = 0.into();
            self.fmt.pk_ackreq.next = false;
            self.fmt.pk_se.next = false;
            self.fmt.pk_syndrome.next = 0.into();
            self.fmt.pk_msn.next = 0.into();
            self.fmt.pk_va.next = 0.into();
            self.fmt.pk_rkey.next = 0.into();
            self.fmt.pk_dlen.next = 0.into();
            self.fmt.pk_imm.next = 0.into();
            self.fmt.pk_plen.next = 0.into();
            self.fmt.pk_swap.next = 0.into();
            self.fmt.pk_compare.next = 0.into();
            self.fmt.pk_orig.next = 0.into();
        }
        self.fmt.cfg_mac.next = self.csr.cfg_mac.val();
        self.fmt.cfg_traffic.next = self.csr.cfg_traffic.val();
        self.fmt.cfg_pfc.next = self.csr.cfg_pfc.val();
        self.fmt.cfg_udp_sport.next = self.csr.cfg_udp_sport.val();
        self.fmt.gid0.next = self.csr.gid0.val();
        self.fmt.gid1.next = self.csr.gid1.val();
        self.fmt.gid2.next = self.csr.gid2.val();
        self.fmt.gid3.next = self.csr.gid3.val();
        self.fmt.gid4.next = self.csr.gid4.val();
        self.fmt.gid5.next = self.csr.gid5.val();
        self.fmt.gid6.next = self.csr.gid6.val();
        self.fmt.gid7.next = self.csr.gid7.val();
        self.fmt.gid8.next = self.csr.gid8.val();
        self.fmt.gid9.next = self.csr.gid9.val();
        self.fmt.gid10.next = self.csr.gid10.val();
        self.fmt.gid11.next = self.csr.gid11.val();
        self.fmt.gid12.next = self.csr.gid12.val();
        self.fmt.gid13.next = self.csr.gid13.val();
        self.fmt.gid14.next = self.csr.gid14.val();
        self.fmt.gid15.next = self.csr.gid15.val();
        self.fmt.gid_type.next = self.csr.gid_type.val();
        self.tx.desc_valid.next = self.fmt.hdr_valid.val();
        self.fmt.hdr_ready.next = self.tx.desc_ready.val();
        self.tx.desc.next = self.fmt.hdr.val();
        // payload: the responder's READ responses or the requester's packets, in the order
        // the formatter took their headers
        self.pay_own.push.next =
            self.fmt.pk_valid.val() & self.fmt.pk_ready.val() & (self.fmt.pk_plen.val() != 0);
        self.pay_own.din.next = 0.into();
        if self.sel_ack.val() & !self.go_cnp.val() {
            self.pay_own.din.next = 1.into();
        }
        self.pay_own.flush.next = false;
        self.pay_resp.next = self.pay_own.dout.val().any();
        self.tx.pay.valid.next = self.pay_own.valid.val() & self.req.pay.valid.val();
        self.tx.pay.data.next = self.req.pay.data.val();
        self.tx.pay.keep.next = self.req.pay.keep.val();
        self.tx.pay.last.next = self.req.pay.last.val();
        // (a payload beat from a failed host read poisons its frame: TxFrameCore)
        self.tx.pay_bad.next = self.req.pay_bad.val();
        self.req.pay.ready.next =
            self.pay_own.valid.val() & !self.pay_resp.val() & self.tx.pay.ready.val();
        self.resp.rpay.ready.next =
            self.pay_own.valid.val() & self.pay_resp.val() & self.tx.pay.ready.val();
        if self.pay_resp.val() {
            self.tx.pay.valid.next = self.pay_own.valid.val() & self.resp.rpay.valid.val();
            self.tx.pay.data.next = self.resp.rpay.data.val();
            self.tx.pay.keep.next = self.resp.rpay.keep.val();
            self.tx.pay.last.next = self.resp.rpay.last.val();
            self.tx.pay_bad.next = self.resp.rpay_bad.val();
        }
        self.pay_own.pop.next =
            self.tx.pay.valid.val() & self.tx.pay.ready.val() & self.tx.pay.last.val();
        // PFC XOFF / XON (IEEE 802.1Qbb) from the receive FIFO's fill, on the RoCE priority;
        // the frames are put between data frames after the arbiter, so the pause of our own
        // data classes never holds them
        self.xoff.enable.next = self.csr.cfg_control.val().get_bit(6);
        self.xoff.fill.next = self.adm.fill.val();
        self.xoff.xoff_thresh.next = self.csr.cfg_pfc_xoff.val().get_bits::<16>(0);
        self.xoff.xon_thresh.next = self.csr.cfg_pfc_xoff.val().get_bits::<16>(16);
        self.xoff.quanta.next = self.csr.cfg_pfc_quanta.val().get_bits::<16>(0);
        self.xoff.bits_per_cycle.next = self.csr.cfg_pfc.val().get_bits::<16>(16);
        self.xoff.send_ready.next = self.pfc_ins.req_ready.val();
        self.pfc_ins.req_valid.next = self.xoff.send_valid.val();
        self.pfc_ins.req_xon.next = self.xoff.send_xon.val();
        self.pfc_ins.cfg_mac.next = self.csr.cfg_mac.val();
        self.pfc_ins.prio.next = self.pfc_roce_prio.val();
        self.pfc_ins.quanta.next = self.csr.cfg_pfc_quanta.val().get_bits::<16>(0);
        self.pfc_ins.inp.valid.next = self.tx.out.valid.val();
        self.pfc_ins.inp.data.next = self.tx.out.data.val();
        self.pfc_ins.inp.keep.next = self.tx.out.keep.val();
        self.pfc_ins.inp.last.next = self.tx.out.last.val();
        self.tx.out.ready.next = self.pfc_ins.inp.ready.val();
        StreamSource::<64, 8>::link(&mut self.tx_mac, &mut self.pfc_ins.out);

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
        self.syn.next = self.fmt.hdr.val().aeth_syndrome;
        if self.fmt.hdr_valid.val()
            & self.tx.desc_ready.val()
            & ((self.fmt.hdr.val().opcode == self.c_ack_op.val())
                | (self.fmt.hdr.val().opcode == self.c_atack_op.val()))
        {
            if self.syn.val().get_bits::<3>(5) == 0 {
                self.ev[8].next = self.c_mask[8].val();
            }
            if self.syn.val().get_bits::<3>(5) == 1 {
                self.ev[22].next = self.c_mask[22].val();
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
        // byte counters add cnt_rx_bytes / cnt_tx_bytes when their bit is set
        if self.rx.vd_valid.val() {
            self.ev[13].next = self.c_mask[13].val();
        }
        if self.tx_mac.valid.val() & self.tx_mac.ready.val() {
            self.ev[14].next = self.c_mask[14].val();
        }
        // ACKs and NAKs received (queued for the requester), by AETH syndrome
        self.rsyn.next = self.rx.hdr.val().aeth_syndrome;
        if self.rx_ack_push.val() {
            if self.rsyn.val().get_bits::<3>(5) == 0 {
                self.ev[15].next = self.c_mask[15].val();
            }
            if self.rsyn.val().get_bits::<3>(5) == 1 {
                self.ev[17].next = self.c_mask[17].val();
            }
            if self.rsyn.val().get_bits::<3>(5) == 3 {
                if self.rsyn.val().get_bits::<5>(0) == self.c_nak[0].val() {
                    self.ev[16].next = self.c_mask[16].val();
                }
                if self.rsyn.val().get_bits::<5>(0) == self.c_nak[1].val() {
                    self.ev[18].next = self.c_mask[18].val();
                }
                if self.rsyn.val().get_bits::<5>(0) == self.c_nak[2].val() {
                    self.ev[19].next = self.c_mask[19].val();
                }
                if self.rsyn.val().get_bits::<5>(0) == self.c_nak[3].val() {
                    self.ev[20].next = self.c_mask[20].val();
                }
            }
        }
        if self.rx.hdr_valid.val() & !self.ip_ok.val() & !self.draining.q.val() {
            self.ev[21].next = self.c_mask[21].val();
        }
        // the requester's retransmission events
        if self.req.ev_retransmit.val() {
            self.ev[23].next = self.c_mask[23].val();
        }
        if self.req.ev_rewind.val() {
            self.ev[24].next = self.c_mask[24].val();
        }
        if self.req.ev_probe.val() {
            self.ev[50].next = self.c_mask[50].val();
        }
        if self.req.ev_timeout.val() {
            self.ev[25].next = self.c_mask[25].val();
        }
        if self.req.ev_retry_exc.val() {
            self.ev[26].next = self.c_mask[26].val();
        }
        // duplicate requests the responder answered without executing them again
        if self.resp.ev_duplicate.val() {
            self.ev[27].next = self.c_mask[27].val();
        }
        // ECN-CE packets taken by the notification point; CNPs sent and received
        if self.np.mk_valid.val() {
            self.ev[28].next = self.c_mask[28].val();
        }
        if self.fmt.hdr_valid.val()
            & self.tx.desc_ready.val()
            & (self.fmt.hdr.val().opcode == self.c_cnp_op.val())
        {
            self.ev[29].next = self.c_mask[29].val();
        }
        if self.cnp_rx_valid.val() {
            self.ev[30].next = self.c_mask[30].val();
        }
        // PFC frames received pausing (or resuming) a priority the NIC uses; cycles the RoCE
        // priority was paused
        if self.pfc_tap.pfc_valid.val()
            & (self
                .pfc_tap
                .pfc_enable
                .val()
                .get_bit(self.pfc_roce_prio.val().index())
                | self
                    .pfc_tap
                    .pfc_enable
                    .val()
                    .get_bit(self.pfc_cnp_prio.val().index()))
        {
            self.ev[31].next = self.c_mask[31].val();
        }
        if self.pfc_roce_hold.val() {
            self.ev[32].next = self.c_mask[32].val();
        }
        // the reaction point: CNPs without a limiter or for a disabled QP, late ticks, lost
        // events
        if self.rp.cnp_no_limiter.val() != self.rp_seen[0].q.val() {
            self.ev[33].next = self.c_mask[33].val();
        }
        if self.rp.cnp_disabled.val() != self.rp_seen[1].q.val() {
            self.ev[34].next = self.c_mask[34].val();
        }
        if self.rp.tick_overruns.val() != self.rp_seen[2].q.val() {
            self.ev[35].next = self.c_mask[35].val();
        }
        if self.feeder.ev_cnp_dropped.val() {
            self.ev[36].next = self.c_mask[36].val();
        }
        if self.feeder.ev_bytes_dropped.val() {
            self.ev[37].next = self.c_mask[37].val();
        }
        if self.rp.rate_cuts.val() != self.rp_seen[3].q.val() {
            self.ev[38].next = self.c_mask[38].val();
        }
        // frames the receive FIFO dropped for lack of room; PFC frames sent
        if self.adm.ev_drop.val() {
            self.ev[39].next = self.c_mask[39].val();
        }
        if self.xoff.ev_xoff.val() {
            self.ev[40].next = self.c_mask[40].val();
        }
        if self.xoff.ev_xon.val() {
            self.ev[41].next = self.c_mask[41].val();
        }
        // responses the responder parked while the RoCE priority was paused
        if self.resp.ack_parked.val() {
            self.ev[42].next = self.c_mask[42].val();
        }
        // send jobs the requester set aside while the RoCE priority was paused (not those set
        // aside for a half-full receive FIFO alone: `RX_REQ_YIELD_WORDS`)
        if self.req.ev_yield.val() & self.pfc_roce_hold.val() {
            self.ev[43].next = self.c_mask[43].val();
        }
        // ... and because the shaper held their QP while other work waited
        if self.req.ev_sh_yield.val() {
            self.ev[44].next = self.c_mask[44].val();
        }
        // requests the responder dropped: QPN not implemented, QP not receiving, PSN ahead
        if self.resp.ev_unknown_qp.val() {
            self.ev[45].next = self.c_mask[45].val();
        }
        if self.resp.ev_qp_state.val() {
            self.ev[46].next = self.c_mask[46].val();
        }
        if self.resp.ev_out_of_seq.val() {
            self.ev[47].next = self.c_mask[47].val();
        }
        if self.cqw.ev_written.val() {
            self.ev[48].next = self.c_mask[48].val();
        }
        // DMA transactions the shell reported as failed: a read response (at its last beat,
        // `rsp_error` being sticky over the beats) and a write completion. Both can come in
        // one cycle and the counter takes one a cycle, so a count of pending events carries
        // the second to the next cycle (it saturates at 255: two failures a cycle for 255
        // cycles).
        self.dma_err_n.next = self.dma_err_q.q.val();
        if self.dma.rd.rsp.valid.val()
            & self.dma.rd.rsp.ready.val()
            & self.dma.rd.rsp.last.val()
            & self.dma.rd.rsp_error.val()
            & !self.dma_err_q.q.val().all()
        {
            self.dma_err_n.next = self.dma_err_q.q.val() + 1;
        }
        self.dma_err_m.next = self.dma_err_n.val();
        if self.dma.wr.done_valid.val() & self.dma.wr.done_error.val() & !self.dma_err_n.val().all()
        {
            self.dma_err_m.next = self.dma_err_n.val() + 1;
        }
        self.dma_err_q.d.next = 0.into();
        if self.dma_err_m.val() != 0 {
            self.ev[49].next = self.c_mask[49].val();
            self.dma_err_q.d.next = self.dma_err_m.val() - 1;
        }
        // per priority: PFC frames received naming it (XOFF: a nonzero time, XON: 0), cycles
        // it was paused, PFC frames sent on it (the XOFF generator's, on the RoCE priority)
        self.pfc_roce_bit.next = self.c_prio_one.val() << self.pfc_roce_prio.val();
        self.pfc_tx_xoff.next = 0.into();
        if self.xoff.ev_xoff.val() {
            self.pfc_tx_xoff.next = self.pfc_roce_bit.val();
        }
        self.pfc_tx_xon.next = 0.into();
        if self.xoff.ev_xon.val() {
            self.pfc_tx_xon.next = self.pfc_roce_bit.val();
        }
        self.pfc_prio_inc.next = (bit_cast::<NIC_COUNTERS, 8>(self.pfc.ev_xoff.val())
            << self.c_at_rx_xoff.val())
            | (bit_cast::<NIC_COUNTERS, 8>(self.pfc.ev_xon.val()) << self.c_at_rx_xon.val())
            | (bit_cast::<NIC_COUNTERS, 8>(self.pfc.paused.val()) << self.c_at_paused.val())
            | (bit_cast::<NIC_COUNTERS, 8>(self.pfc_tx_xoff.val()) << self.c_at_tx_xoff.val())
            | (bit_cast::<NIC_COUNTERS, 8>(self.pfc_tx_xon.val()) << self.c_at_tx_xon.val());
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
            | self.ev[12].val()
            | self.ev[13].val()
            | self.ev[14].val()
            | self.ev[15].val()
            | self.ev[16].val()
            | self.ev[17].val()
            | self.ev[18].val()
            | self.ev[19].val()
            | self.ev[20].val()
            | self.ev[21].val()
            | self.ev[22].val()
            | self.ev[23].val()
            | self.ev[24].val()
            | self.ev[25].val()
            | self.ev[26].val()
            | self.ev[27].val()
            | self.ev[28].val()
            | self.ev[29].val()
            | self.ev[30].val()
            | self.ev[31].val()
            | self.ev[32].val()
            | self.ev[33].val()
            | self.ev[34].val()
            | self.ev[35].val()
            | self.ev[36].val()
            | self.ev[37].val()
            | self.ev[38].val()
            | self.ev[39].val()
            | self.ev[40].val()
            | self.ev[41].val()
            | self.ev[42].val()
            | self.ev[43].val()
            | self.ev[44].val()
            | self.ev[45].val()
            | self.ev[46].val()
            | self.ev[47].val()
            | self.ev[48].val()
            | self.ev[49].val()
            | self.ev[50].val()
            | self.pfc_prio_inc.val();
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
