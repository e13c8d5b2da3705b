//! The CSR block: the host's only way into the NIC (docs/HOST-INTERFACE.md, `ferroce_proto::host`).
//!
//! [`CsrBlock`] is an AXI4-Lite slave (`s_axil_*`, 32-bit data, 21-bit address = BAR0) that
//! implements the whole register map of `ferroce_proto::host::regs`, and holds the host-programmed
//! configuration of the NIC: the QP configuration table ([`QpConfigTable`]), the CQ configuration
//! table ([`CqConfigTable`]) and the MR key table ([`crate::mr::MrTable`], instantiated inside;
//! its lookup port is a pass-through of the CSR block's `mr_req_*`/`mr_resp_*` ports).
//!
//! Every offset, reset value, count, command code, result code and register field position
//! comes from `ferroce_proto::host` at Rust compile time (`Constant<Bits<N>>` fields initialised
//! from the proto constants, or loops over `regs::REGISTERS` / `regs::counters()`), never from a
//! copy. The QP state-transition rule is built from `qp::transition_attrs` (a 64-entry constant
//! table indexed by `(from, to)`), so the hardware and the driver check the same table.
//!
//! # Internal structure
//!
//! ```text
//!  s_axil_* -> AXI front end (block.rs) --- register bus (wr/waddr/wdata, rd/raddr, rdata OR) ---+
//!                |                                                                               |
//!                +-- CsrGlobal    identity, CFG_*, CC_*, IRQ_*, async event FIFO, GID table      |
//!                +-- CsrCounters  64-bit counters (48 implemented) in RAM, LO read latches HI    |
//!                +-- CsrDoorbells QP / CQ doorbell decode, two event FIFOs (qev_*, cev_*)        |
//!                +-- CtxWindows   QP + CQ command windows, QpConfigTable, CqConfigTable          |
//!                +-- MrWindow     MR command window, MrTable                                     |
//! ```
//!
//! # Decisions (to be stated in docs/HOST-INTERFACE.md)
//!
//! * **Bus**: one outstanding write and one outstanding read; AW and W are accepted in any order
//!   into holding registers (`awready`/`wready` are registered: one write per 2 cycles, one read
//!   per 2 cycles at full rate; a counter's read takes one cycle more: [`CsrCounters`] reads
//!   a RAM). `bresp`/`rresp` are always OKAY. Reads of reserved or write-only offsets return 0,
//!   writes to reserved or RO offsets are ignored. A write whose `wstrb` is not `0xF` is
//!   ignored (answered OKAY). `addr[1:0]` are ignored.
//! * **RW registers store all 32 bits** and read back exactly what was written, except the
//!   read-only VALID bits `MR_ACCESS[31]` and `CQ_CFG[31]` (set by QUERY, kept by writes).
//! * **Doorbells**: a doorbell is one entry in a FIFO (QP: `qev_*`, CQ: `cev_*`, depth
//!   [`DB_FIFO_DEPTH`]). When the FIFO is full the write is held in the AXI front end: `awready`
//!   and `wready` stay low until there is room. A doorbell is never lost. Doorbells for a QPN or
//!   CQN at or above the implemented count are dropped (the write completes normally).
//! * **Context notifications share the doorbell FIFOs**: every successful QP MODIFY queues a
//!   `qev` entry of kind [`QEV_MODIFY`] (value: new state in 2:0, old state in 6:4), and CQ
//!   CREATE / DESTROY queue `cev` entries of kind [`CEV_CREATE`] (value: initial CI) /
//!   [`CEV_DESTROY`]. The command reports done only once its entry is queued, so the engines see
//!   the MODIFY before any doorbell written after it.
//! * **Runtime state** (SQ/RQ producer and consumer indices, SQ drained, CQ PI/CI/arm/overflow)
//!   lives in the engines. A QUERY asks for it through the `rtq_*` handshake (`rtq_req` pulse
//!   with `rtq_cq`/`rtq_index`, answered by an `rtq_ack` pulse with `rtq_d0..d2`; a build without
//!   engines ties `rtq_ack = rtq_req` and the data to 0). QP_ERR_INFO is stored here: the engines
//!   move a QP to ERR through the `qerr_*` port, and the move is queued as a `qev` entry of
//!   kind [`QEV_MODIFY`] with new and old state ERR, so that both engines flush the QP's queues
//!   whichever engine failed it.
//! * **CQ references**: QP RESET->INIT (CREATE) counts a reference on its send and receive CQ,
//!   a QP leaving for RESET drops them; CQ DESTROY of a referenced CQ gives InUse. CQ CREATE on a
//!   referenced CQ gives InUse too (re-CREATE of an unreferenced CQ is allowed).
//! * **Command order of checks** (QP MODIFY): BadIndex (QPN >= n or QPN 0/1), Unsupported (mask
//!   bits outside `QpAttrMask::SUPPORTED`), CurStateMismatch, BadTransition, MissingAttr,
//!   BadValue (attribute not taken by the transition, then values: PMTU 1..=max, rd_atomic
//!   limits, ring geometry and alignment, CQNs in range and existing, SGID index < 16).
//!   Unknown command codes give Unsupported. Commands of the QP and CQ windows run one at a time
//!   (a command written while the other window runs waits, showing BUSY).
//! * **CFG_RESET** clears every QP, CQ and MR context, both doorbell FIFOs, the async event FIFO
//!   and ASYNC_EVENT_LOST, the counters and CFG_STATUS.FATAL; `dp_reset` is high (and
//!   CFG_STATUS.READY low) meanwhile. It keeps CFG_*, CC_*, GID and IRQ_* registers.
//! * **Interrupts**: `irq_pulse[v]` is a one-cycle pulse for every event on vector v that is
//!   not masked (a CQ event from `cq_irq_*`, or an enabled IRQ_STATUS cause being set, on
//!   `IRQ_CTRL_VECTOR`); `irq_level = IRQ_VEC_PENDING & ~IRQ_VEC_MASK` for level/INTx shells.
//!   IRQ_STATUS.ASYNC is set when an event is queued (not a level of the FIFO state).
//! * **Counters** are 48 bits (the HI register reads bits 47:32, upper bits 0). Reading a LO
//!   latches its HI into one shared shadow register; a HI read returns the shadow if the last LO
//!   read was of the same counter, else the live HI.
#[cfg(test)]
mod area;
pub mod bfm;
pub mod block;
pub mod counters;
pub mod cq_config;
pub mod ctx;
pub mod doorbell;
pub mod global;
pub mod mr_window;
pub mod qp_config;
pub mod qpc_port;
pub mod scenarios;

pub use block::CsrBlock;
pub use cq_config::CqConfigTable;
pub use qp_config::QpConfigTable;
pub use qpc_port::{QpcReadMaster, QpcReadSlave};

use ferroce_proto::host::regs::{self, caps, id_misc, id_qp_limits, id_ring_limits, Access};
use ferroce_proto::host::{ring, wqe};
use rust_hdl::prelude::*;

/// Width of the AXI4-Lite address: log2 of the BAR0 size.
pub const AXIL_ADDR_BITS: usize = regs::BAR0_SIZE.trailing_zeros() as usize;
const _: () = assert!(regs::BAR0_SIZE.is_power_of_two());

/// A BAR0 byte address.
pub type Addr = Bits<AXIL_ADDR_BITS>;

/// Number of 64-bit counters (`regs::NUM_COUNTERS`).
pub const NUM_COUNTERS: usize = regs::NUM_COUNTERS as usize;
/// Implemented counter width (HOST-INTERFACE 10 allows >= 48).
pub const COUNTER_BITS: usize = 48;

/// GID table entries.
pub const GID_ENTRIES: usize = regs::GID_MAX_ENTRIES as usize;

/// Depth of each doorbell FIFO (QP and CQ).
pub const DB_FIFO_DEPTH: usize = 8;
/// Depth of the async event FIFO.
pub const EVENT_FIFO_DEPTH: usize = 8;

/// `qev_kind` values: SQ doorbell (value = producer index), RQ doorbell, MODIFY done.
pub const QEV_SQ: u64 = 0;
pub const QEV_RQ: u64 = 1;
pub const QEV_MODIFY: u64 = 2;
/// `cev_kind` values: CI doorbell (value = the written word), arm doorbell (the written word:
/// CI in 23:0, mode in 25:24), CREATE (value = initial CI), DESTROY.
pub const CEV_CI: u64 = 0;
pub const CEV_ARM: u64 = 1;
pub const CEV_CREATE: u64 = 2;
pub const CEV_DESTROY: u64 = 3;

/// `rtq_*` runtime-query word layout, QP: `d0` = QP_SQ_INDEX, `d1` = QP_RQ_INDEX, `d2` bit 0 =
/// SQ drained. CQ: `d0` = CQ_PI, `d1` = CQ_CI, `d2` = CQ_STATE.
pub const RTQ_QP: u64 = 0;
pub const RTQ_CQ: u64 = 1;

/// Build-time values reported by the identity registers, and the limits the command windows
/// check against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsrParams {
    /// `ID_BUILD`.
    pub build_id: u32,
    /// `ID_CAPS` (`regs::caps` bits).
    pub caps: u32,
    /// `ID_DATAPATH`.
    pub datapath_bits: u32,
    /// `ID_CLOCK_KHZ`.
    pub clock_khz: u32,
    /// `ID_LINE_RATE` in Mb/s.
    pub line_rate_mbps: u32,
    pub max_log2_sq_entries: u8,
    pub max_log2_rq_entries: u8,
    pub max_log2_cq_entries: u8,
    pub max_log2_stride: u8,
    /// Largest path MTU code accepted (`ibv_mtu`, 5 = 4096).
    pub max_pmtu: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub max_sge: u8,
    /// PD width in bits (`ID_MISC[23:16]`).
    pub pd_bits: u8,
}

impl Default for CsrParams {
    /// The 64-bit "lite" profile. `caps` claims only what the built NicTop does (the
    /// simulator's `nic_caps` test ties every bit to the NIC's behaviour).
    fn default() -> Self {
        CsrParams {
            build_id: 0,
            // only what the built NicTop does: the DCQCN notification point (CNPs for
            // CE-marked packets), the reaction point feeding the rate shaper, PFC both ways
            // (received pauses honoured, XOFF/XON sent from the receive FIFO)
            caps: caps::IPV4
                | caps::IPV6
                | caps::ROCEV1
                | caps::ATOMICS
                | caps::RDMA_READ
                | caps::DCQCN_RP
                | caps::DCQCN_NP
                | caps::PFC,
            datapath_bits: 64,
            clock_khz: 250_000,
            line_rate_mbps: 25_000,
            max_log2_sq_entries: ring::MAX_LOG2_WQ_ENTRIES,
            max_log2_rq_entries: ring::MAX_LOG2_WQ_ENTRIES,
            max_log2_cq_entries: ring::MAX_LOG2_CQ_ENTRIES,
            max_log2_stride: ring::MAX_LOG2_WQE_STRIDE,
            max_pmtu: 5,
            max_rd_atomic: 16,
            // the responder's atomic replay cache holds the last 16 atomics of every QP
            // (`resp::atomic_cache`); a duplicate READ needs no resource (read again)
            max_dest_rd_atomic: crate::resp::atomic_cache::AT_CACHE_ENTRIES as u8,
            max_sge: wqe::send_sge_capacity(ring::MAX_LOG2_WQE_STRIDE) as u8,
            pd_bits: 24,
        }
    }
}

impl CsrParams {
    /// `ID_RING_LIMITS`.
    pub fn ring_limits(&self) -> u32 {
        id_ring_limits::LOG2_SQ_ENTRIES.place(self.max_log2_sq_entries as u32)
            | id_ring_limits::LOG2_RQ_ENTRIES.place(self.max_log2_rq_entries as u32)
            | id_ring_limits::LOG2_CQ_ENTRIES.place(self.max_log2_cq_entries as u32)
            | id_ring_limits::LOG2_STRIDE.place(self.max_log2_stride as u32)
    }
    /// `ID_QP_LIMITS`.
    pub fn qp_limits(&self) -> u32 {
        id_qp_limits::MAX_PMTU.place(self.max_pmtu as u32)
            | id_qp_limits::MAX_RD_ATOMIC.place(self.max_rd_atomic as u32)
            | id_qp_limits::MAX_DEST_RD_ATOMIC.place(self.max_dest_rd_atomic as u32)
            | id_qp_limits::MAX_SGE.place(self.max_sge as u32)
    }
    /// `ID_MISC`.
    pub fn misc(&self) -> u32 {
        id_misc::GID_ENTRIES.place(regs::GID_MAX_ENTRIES)
            | id_misc::VECTORS.place(regs::MAX_VECTORS)
            | id_misc::PD_BITS.place(self.pd_bits as u32)
    }
    /// The identity registers of a build with `2^qa` QPs, `2^ca` CQs and `2^ma` MRs, as
    /// (offset, value) pairs in address order.
    pub fn identity(&self, qa: usize, ca: usize, ma: usize) -> Vec<(u32, u32)> {
        vec![
            (regs::ID_MAGIC, regs::MAGIC),
            (regs::ID_VERSION, regs::VERSION_REG),
            (regs::ID_BUILD, self.build_id),
            (regs::ID_CAPS, self.caps),
            (regs::ID_DATAPATH, self.datapath_bits),
            (regs::ID_CLOCK_KHZ, self.clock_khz),
            (regs::ID_LINE_RATE, self.line_rate_mbps),
            (regs::ID_NUM_QPS, 1 << qa),
            (regs::ID_NUM_CQS, 1 << ca),
            (regs::ID_NUM_MRS, 1 << ma),
            (regs::ID_RING_LIMITS, self.ring_limits()),
            (regs::ID_QP_LIMITS, self.qp_limits()),
            (regs::ID_MISC, self.misc()),
        ]
    }
}

/// The register table row at `offset` (panics if there is none: a typo in the HDL).
pub fn reg_info(offset: u32) -> &'static regs::RegisterInfo {
    regs::decode(offset)
        .unwrap_or_else(|| panic!("no register at {offset:#x}"))
        .0
}

/// Reset value of the RW register at `offset`, from `regs::REGISTERS`.
pub fn rw_reset(offset: u32) -> u32 {
    let r = reg_info(offset);
    assert_eq!(r.access, Access::RW, "{} is not RW", r.name);
    r.reset
}

/// A `Constant<Addr>` for a BAR0 offset.
pub fn addr_const(offset: u32) -> Constant<Addr> {
    assert!(offset < regs::BAR0_SIZE);
    Constant::new((offset as u64).into())
}

/// A `Constant<Bits<N>>` from a u64.
pub fn konst<const N: usize>(v: u64) -> Constant<Bits<N>> {
    assert!(
        N >= 64 || v >> N == 0,
        "constant {v:#x} does not fit {N} bits"
    );
    Constant::new(v.into())
}

/// Bit position of a proto `Field` as a 5-bit constant (for shifts and `get_bits` offsets).
pub fn lsb_const(f: ferroce_proto::host::Field) -> Constant<Bits<5>> {
    konst(f.lsb as u64)
}

/// rust-hdl's synthesis smoke test (Yosys `read; hierarchy -check; proc`, no latches) of one
/// block, after the keyword check of [`crate::verilog::block_verilog`]. For the per-block tests.
#[cfg(test)]
pub(crate) fn synth_check<B: Block>(uut: &mut B, tag: &str) {
    let v = crate::verilog::block_verilog(uut, "top");
    ferroce_testkit::yosys_check(tag, &v);
}

/// The default build: 256 QPs, 256 CQs, 1024 MRs.
pub type CsrBlockDefault = CsrBlock<8, 8, 10>;

#[cfg(test)]
mod tests;
