//! [`CsrGlobal`]: the identity block, global configuration (`CFG_*`), congestion-control
//! parameters (`CC_*`), interrupts (`IRQ_*`), the async event FIFO (`ASYNC_EVENT*`) and the GID
//! table of the CSR block.
//!
//! Register bus (from the AXI front end): `wr`/`waddr`/`wdata` is a one-cycle write strobe,
//! `rd`/`raddr` a one-cycle read strobe; `rdata` is the value at `raddr` (combinational, 0 when
//! `rd` is low or the address is not one of this block's registers).
//!
//! Outputs to the engines are registers: `cfg_control`, `cfg_udp_sport`, `cfg_traffic`,
//! `cfg_pfc` (the register words), `cfg_mac` (48 bits, first wire byte in 47:40, applied when
//! `CFG_MAC_HI` is written), the sixteen `cc_*` words, `gid0` .. `gid15` (GID table entry n,
//! GID byte 0, first on the wire, in bits 127:120) and `gid_type` (entry n's `GID_ATTR.TYPE` in
//! bits `2n+1..2n`).
use super::{
    addr_const, konst, lsb_const, rw_reset, Addr, CsrParams, EVENT_FIFO_DEPTH, GID_ENTRIES,
};
use crate::widget::ByteSwap32;
use crate::widget::{LutRam, RegFifo};
use ferroce_proto::host::regs::{
    self, async_event, async_event_info, cfg_status, gid_attr, irq_status,
};
use rust_hdl::prelude::*;

/// Plain RW registers of this block, in the order of the `rw` array (the `cc_*` outputs and
/// the named accessors below use these positions; `CsrGlobal::new` checks the list against
/// `regs::REGISTERS`).
pub fn plain_rw() -> [u32; NRW] {
    [
        regs::CFG_CONTROL,
        regs::CFG_SCRATCH,
        regs::CFG_MAC_LO,
        regs::CFG_MAC_HI,
        regs::CFG_UDP_SPORT,
        regs::CFG_TRAFFIC,
        regs::CFG_PFC,
        regs::IRQ_ENABLE,
        regs::IRQ_VEC_MASK,
        regs::IRQ_CTRL_VECTOR,
        regs::CC_RP_TIME_RESET,
        regs::CC_RP_BYTE_RESET,
        regs::CC_RP_THRESHOLD,
        regs::CC_RP_AI_RATE,
        regs::CC_RP_HAI_RATE,
        regs::CC_RP_MIN_RATE,
        regs::CC_RP_MAX_RATE,
        regs::CC_RP_GD,
        regs::CC_RP_MIN_DEC_FAC,
        regs::CC_RP_ALPHA_G,
        regs::CC_RP_ALPHA_PERIOD,
        regs::CC_RP_REDUCE_PERIOD,
        regs::CC_RP_INITIAL_ALPHA,
        regs::CC_RP_FLAGS,
        regs::CC_RP_FIRST_CNP_RATE,
        regs::CC_NP_CNP_INTERVAL,
        regs::CFG_ACK_COALESCE,
        regs::CC_QP_SELECT,
        regs::CC_QP_RATE_LIMIT,
        regs::CC_QP_DCQCN,
        regs::CFG_PFC_XOFF,
        regs::CFG_PFC_QUANTA,
        regs::CFG_SQ_QUANTUM,
    ]
}
/// Number of plain RW registers.
pub const NRW: usize = 33;
/// Number of identity registers.
pub const NID: usize = 13;
/// GID data words (4 per entry).
pub const NGW: usize = 4 * GID_ENTRIES;
/// Width of the GID type field.
pub const GID_TYPE_W: usize = gid_attr::TYPE.width as usize;
/// Async event FIFO entry: id 23:0, type 28:24, status 36:29, vendor error 44:37.
pub const EV_W: usize = 45;

/// Leaves of the read tree of pages 0x000 .. 0x3FF: `page * 32 + word`.
pub const NPL: usize = 128;
/// Address bits that must be 0 for a read to reach a register of this block (above the 2 KiB
/// of pages 0..3 and the GID table, and the byte offset).
const RD_OUTSIDE: u32 = (regs::BAR0_SIZE - 1) & !0x7FF | 0x3;
/// The read-tree leaf of each `rw` register (the literal `pl` indices in `update`).
const RW_LEAF: [usize; NRW] = [
    32, 35, 36, 37, 38, 39, 40, 97, 99, 100, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76,
    77, 78, 79, 41, 80, 81, 82, 42, 43, 44,
];
/// The read-tree leaves of the other readable registers, as used in `update`.
const OTHER_LEAF: [(u32, usize); 7] = [
    (regs::CFG_STATUS, 33),
    (regs::IRQ_STATUS, 96),
    (regs::IRQ_VEC_PENDING, 98),
    (regs::ASYNC_EVENT, 104),
    (regs::ASYNC_EVENT_INFO, 105),
    (regs::ASYNC_EVENT_LOST, 107),
    (regs::CC_QP_RATE, 83),
];

/// The read-tree leaf of a register of pages 0x000 .. 0x3FF.
fn read_leaf(offset: u32) -> usize {
    assert!(offset < regs::GID_BASE && offset & 0x83 == 0, "{offset:#x}");
    (((offset >> 8) & 3) * 32 + ((offset >> 2) & 31)) as usize
}

/// Checks the literal leaf positions of the read tree against the register map: every
/// readable register of pages 0..3 of this block has its leaf, the identity registers are
/// leaves 0 .. NID-1 in order, and the GID table is where the tree expects it.
fn check_read_leaves(id: &[(u32, u32)], rwl: &[u32; NRW]) {
    for (i, (off, _)) in id.iter().enumerate() {
        assert_eq!(read_leaf(*off), i, "identity register {off:#x}");
    }
    for i in 0..NRW {
        assert_eq!(read_leaf(rwl[i]), RW_LEAF[i], "rw register {:#x}", rwl[i]);
    }
    for (off, l) in OTHER_LEAF {
        assert_eq!(read_leaf(off), l, "register {off:#x}");
    }
    // every readable register below the GID table is one of the above
    let n = regs::REGISTERS
        .iter()
        .filter(|r| r.offset < regs::GID_BASE && r.access != regs::Access::WO)
        .count();
    assert_eq!(n, NID + NRW + OTHER_LEAF.len());
    assert_eq!(regs::GID_BASE, 0x400);
    assert_eq!(regs::GID_STRIDE, 0x20);
    assert_eq!(regs::gid_data(0, 0), regs::GID_BASE);
    assert_eq!(regs::gid_attr(0), regs::GID_BASE + 0x10);
    assert!(regs::BAR0_SIZE > 0x800);
}

#[derive(LogicBlock)]
pub struct CsrGlobal {
    pub clock: Signal<In, Clock>,
    // ---- register bus ----
    pub wr: Signal<In, Bit>,
    pub waddr: Signal<In, Addr>,
    pub wdata: Signal<In, Bits<32>>,
    pub rd: Signal<In, Bit>,
    pub raddr: Signal<In, Addr>,
    pub rdata: Signal<Out, Bits<32>>,
    // ---- reset and status ----
    /// Contexts are being cleared (CFG_STATUS.READY = 0).
    pub resetting: Signal<In, Bit>,
    /// One-cycle pulse: CFG_RESET was written with bit 0 set.
    pub reset_req: Signal<Out, Bit>,
    pub link_up: Signal<In, Bit>,
    /// Pulse: a fatal device error (sets CFG_STATUS.FATAL and IRQ_STATUS.FATAL).
    pub fatal_set: Signal<In, Bit>,
    /// Pulse: a command window finished (IRQ_STATUS.CMD_DONE).
    pub cmd_done: Signal<In, Bit>,
    /// `CC_QP_RATE`'s word: the rate shaper's limit of the QP in `CC_QP_SELECT` (registered by
    /// the NIC top)
    pub cc_qp_rate_now: Signal<In, Bits<32>>,
    // ---- configuration outputs ----
    pub cfg_control: Signal<Out, Bits<32>>,
    pub cfg_udp_sport: Signal<Out, Bits<32>>,
    pub cfg_traffic: Signal<Out, Bits<32>>,
    pub cfg_pfc: Signal<Out, Bits<32>>,
    /// `CFG_ACK_COALESCE` (the responder's ACK interval)
    pub cfg_ack_coalesce: Signal<Out, Bits<32>>,
    /// `CFG_PFC_XOFF` (XOFF / XON thresholds of the receive FIFO) and `CFG_PFC_QUANTA`
    pub cfg_pfc_xoff: Signal<Out, Bits<32>>,
    pub cfg_pfc_quanta: Signal<Out, Bits<32>>,
    /// `CFG_SQ_QUANTUM` (the requester's packets per turn while other QPs wait)
    pub cfg_sq_quantum: Signal<Out, Bits<32>>,
    pub cfg_mac: Signal<Out, Bits<48>>,
    pub cc_rp_time_reset: Signal<Out, Bits<32>>,
    pub cc_rp_byte_reset: Signal<Out, Bits<32>>,
    pub cc_rp_threshold: Signal<Out, Bits<32>>,
    pub cc_rp_ai_rate: Signal<Out, Bits<32>>,
    pub cc_rp_hai_rate: Signal<Out, Bits<32>>,
    pub cc_rp_min_rate: Signal<Out, Bits<32>>,
    pub cc_rp_max_rate: Signal<Out, Bits<32>>,
    pub cc_rp_gd: Signal<Out, Bits<32>>,
    pub cc_rp_min_dec_fac: Signal<Out, Bits<32>>,
    pub cc_rp_alpha_g: Signal<Out, Bits<32>>,
    pub cc_rp_alpha_period: Signal<Out, Bits<32>>,
    pub cc_rp_reduce_period: Signal<Out, Bits<32>>,
    pub cc_rp_initial_alpha: Signal<Out, Bits<32>>,
    pub cc_rp_flags: Signal<Out, Bits<32>>,
    pub cc_rp_first_cnp_rate: Signal<Out, Bits<32>>,
    pub cc_np_cnp_interval: Signal<Out, Bits<32>>,
    /// `CC_QP_SELECT` and `CC_QP_RATE_LIMIT` (the rate shaper's static limit of one QP)
    pub cc_qp_select: Signal<Out, Bits<32>>,
    pub cc_qp_rate_limit: Signal<Out, Bits<32>>,
    /// One-cycle pulse, the cycle after a write of `CC_QP_RATE_LIMIT` (both words above valid)
    pub cc_qp_rate_wr: Signal<Out, Bit>,
    /// `CC_QP_DCQCN` and the one-cycle pulse the cycle after a write of it
    pub cc_qp_dcqcn: Signal<Out, Bits<32>>,
    pub cc_qp_dcqcn_wr: Signal<Out, Bit>,
    pub gid0: Signal<Out, Bits<128>>,
    pub gid1: Signal<Out, Bits<128>>,
    pub gid2: Signal<Out, Bits<128>>,
    pub gid3: Signal<Out, Bits<128>>,
    pub gid4: Signal<Out, Bits<128>>,
    pub gid5: Signal<Out, Bits<128>>,
    pub gid6: Signal<Out, Bits<128>>,
    pub gid7: Signal<Out, Bits<128>>,
    pub gid8: Signal<Out, Bits<128>>,
    pub gid9: Signal<Out, Bits<128>>,
    pub gid10: Signal<Out, Bits<128>>,
    pub gid11: Signal<Out, Bits<128>>,
    pub gid12: Signal<Out, Bits<128>>,
    pub gid13: Signal<Out, Bits<128>>,
    pub gid14: Signal<Out, Bits<128>>,
    pub gid15: Signal<Out, Bits<128>>,
    pub gid_type: Signal<Out, Bits<32>>,
    // ---- interrupts ----
    /// Pulse from the completion engine: CQ event on vector `cq_irq_vector`.
    pub cq_irq_valid: Signal<In, Bit>,
    pub cq_irq_vector: Signal<In, Bits<5>>,
    pub irq_pulse: Signal<Out, Bits<32>>,
    pub irq_level: Signal<Out, Bits<32>>,
    // ---- async events from the engines (dropped and counted when the FIFO is full) ----
    pub ev_valid: Signal<In, Bit>,
    pub ev_type: Signal<In, Bits<5>>,
    pub ev_id: Signal<In, Bits<24>>,
    pub ev_status: Signal<In, Bits<8>>,
    pub ev_vendor: Signal<In, Bits<8>>,

    // ---- storage ----
    rw: [DFFWithInit<Bits<32>>; NRW],
    mac: DFF<Bits<48>>,
    /// GID data word k of entry n at `w = 16k + n`, byte-swapped to wire order (GID byte 4k in
    /// 31:24):
    /// one 32-bit register per bus word, so a write is a plain enable (no read-modify-write of
    /// the 128-bit entry).
    gw: [DFF<Bits<32>>; NGW],
    /// The GID table again, for the bus reads: data word k of entry n at `16k + n` as written
    /// (distributed RAM, read in the cycle of the address), and the attribute words.
    gram: LutRam<32, 6>,
    aram: LutRam<32, 4>,
    gtype: DFF<Bits<32>>,
    st: DFF<Bits<32>>,
    pend: DFF<Bits<32>>,
    pulse: DFF<Bits<32>>,
    fatal: DFF<Bit>,
    rst: DFF<Bit>,
    rl_wr: DFF<Bit>,
    dq_wr: DFF<Bit>,
    lost: DFF<Bits<32>>,
    evq: RegFifo<EV_W, EVENT_FIFO_DEPTH, 4>,

    // ---- constants ----
    c_id_val: [Constant<Bits<32>>; NID],
    c_rw_addr: [Constant<Addr>; NRW],
    c_gid_addr: [Constant<Addr>; NGW],
    c_attr_addr: [Constant<Addr>; GID_ENTRIES],
    /// raddr[4:2] of a GID attribute word
    c_slot_attr: Constant<Bits<3>>,
    /// GID data words (0x400 + 0x20 n + 4 k) and attribute words (0x410 + 0x20 n): the
    /// address bits that must match, and their value
    c_gdat_mask: Constant<Addr>,
    c_gdat_match: Constant<Addr>,
    c_gattr_mask: Constant<Addr>,
    c_gattr_match: Constant<Addr>,
    /// Address bits outside every register of this block's read tree (20:11 and 1:0)
    c_rd_outside: Constant<Addr>,
    c_addr_zero: Constant<Addr>,
    c_type_sh: [Constant<Bits<5>>; GID_ENTRIES],
    c_a_reset: Constant<Addr>,
    c_a_irq_status: Constant<Addr>,
    c_a_vec_pending: Constant<Addr>,
    c_a_event_pop: Constant<Addr>,
    c_a_mac_hi: Constant<Addr>,
    c_a_rate_limit: Constant<Addr>,
    c_a_qp_dcqcn: Constant<Addr>,
    c_st_ready: Constant<Bits<32>>,
    c_st_link: Constant<Bits<32>>,
    c_st_fatal: Constant<Bits<32>>,
    c_irq_async: Constant<Bits<32>>,
    c_irq_fatal: Constant<Bits<32>>,
    c_irq_cmd: Constant<Bits<32>>,
    c_ev_type_lsb: Constant<Bits<5>>,
    c_ev_valid: Constant<Bits<32>>,
    c_info_vendor_lsb: Constant<Bits<5>>,
    c_info_status_lsb: Constant<Bits<5>>,
    c_type_lsb: Constant<Bits<5>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_type_ones: Constant<Bits<32>>,
    c_vec_bad: Constant<Bits<32>>,

    // ---- locals ----
    wbs: Signal<Local, Bits<32>>,
    gsel: Signal<Local, Bits<32>>,
    pl: [Signal<Local, Bits<32>>; NPL],
    p1: [Signal<Local, Bits<32>>; 64],
    p2: [Signal<Local, Bits<32>>; 32],
    p3: [Signal<Local, Bits<32>>; 16],
    p4: [Signal<Local, Bits<32>>; 8],
    p5: [Signal<Local, Bits<32>>; 4],
    p6: [Signal<Local, Bits<32>>; 2],
    p7: Signal<Local, Bits<32>>,
    set_async: Signal<Local, Bits<32>>,
    set_fatal: Signal<Local, Bits<32>>,
    set_cmd: Signal<Local, Bits<32>>,
    st_set: Signal<Local, Bits<32>>,
    ctrl_fire: Signal<Local, Bit>,
    vec_cq: Signal<Local, Bits<32>>,
    vec_ctrl: Signal<Local, Bits<32>>,
    vec_set: Signal<Local, Bits<32>>,
    ev_push: Signal<Local, Bit>,
    ev_word: Signal<Local, Bits<32>>,
    ev_info: Signal<Local, Bits<32>>,
    s_ready: Signal<Local, Bits<32>>,
    s_link: Signal<Local, Bits<32>>,
    s_fatal: Signal<Local, Bits<32>>,
    status_word: Signal<Local, Bits<32>>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_wdata: ByteSwap32,
}

impl CsrGlobal {
    /// The block of a build with `2^qa` QPs, `2^ca` CQs and `2^ma` MRs.
    pub fn new(p: &CsrParams, qa: usize, ca: usize, ma: usize) -> Self {
        let id = p.identity(qa, ca, ma);
        assert_eq!(id.len(), NID);
        for (off, _) in &id {
            assert_eq!(super::reg_info(*off).access, regs::Access::RO);
        }
        let rwl = plain_rw();
        // every plain RW register of the control page outside the windows and the GID table is
        // in the list, and only those
        let expect: Vec<u32> = regs::REGISTERS
            .iter()
            .filter(|r| {
                r.access == regs::Access::RW && r.count == 1 && r.offset < regs::QP_WIN_BASE
            })
            .map(|r| r.offset)
            .collect();
        let mut got = rwl.to_vec();
        got.sort();
        assert_eq!(
            got, expect,
            "CsrGlobal::plain_rw does not match regs::REGISTERS"
        );
        // word-major: data word k of entry n at 16k + n
        let gid_addr: [u32; NGW] = core::array::from_fn(|w| {
            regs::gid_data((w % GID_ENTRIES) as u32, (w / GID_ENTRIES) as u32)
        });
        check_read_leaves(&id, &rwl);
        CsrGlobal {
            le_wdata: Default::default(),
            clock: Default::default(),
            wr: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            rd: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            resetting: Default::default(),
            reset_req: Default::default(),
            link_up: Default::default(),
            fatal_set: Default::default(),
            cmd_done: Default::default(),
            cc_qp_rate_now: Default::default(),
            cfg_control: Default::default(),
            cfg_udp_sport: Default::default(),
            cfg_traffic: Default::default(),
            cfg_pfc: Default::default(),
            cfg_ack_coalesce: Default::default(),
            cfg_pfc_xoff: Default::default(),
            cfg_pfc_quanta: Default::default(),
            cfg_sq_quantum: Default::default(),
            cfg_mac: Default::default(),
            cc_rp_time_reset: Default::default(),
            cc_rp_byte_reset: Default::default(),
            cc_rp_threshold: Default::default(),
            cc_rp_ai_rate: Default::default(),
            cc_rp_hai_rate: Default::default(),
            cc_rp_min_rate: Default::default(),
            cc_rp_max_rate: Default::default(),
            cc_rp_gd: Default::default(),
            cc_rp_min_dec_fac: Default::default(),
            cc_rp_alpha_g: Default::default(),
            cc_rp_alpha_period: Default::default(),
            cc_rp_reduce_period: Default::default(),
            cc_rp_initial_alpha: Default::default(),
            cc_rp_flags: Default::default(),
            cc_rp_first_cnp_rate: Default::default(),
            cc_np_cnp_interval: Default::default(),
            cc_qp_select: Default::default(),
            cc_qp_rate_limit: Default::default(),
            cc_qp_rate_wr: Default::default(),
            cc_qp_dcqcn: Default::default(),
            cc_qp_dcqcn_wr: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            gid4: Default::default(),
            gid5: Default::default(),
            gid6: Default::default(),
            gid7: Default::default(),
            gid8: Default::default(),
            gid9: Default::default(),
            gid10: Default::default(),
            gid11: Default::default(),
            gid12: Default::default(),
            gid13: Default::default(),
            gid14: Default::default(),
            gid15: Default::default(),
            gid_type: Default::default(),
            cq_irq_valid: Default::default(),
            cq_irq_vector: Default::default(),
            irq_pulse: Default::default(),
            irq_level: Default::default(),
            ev_valid: Default::default(),
            ev_type: Default::default(),
            ev_id: Default::default(),
            ev_status: Default::default(),
            ev_vendor: Default::default(),
            rw: core::array::from_fn(|i| DFFWithInit::new((rw_reset(rwl[i]) as u64).into())),
            mac: Default::default(),
            gw: core::array::from_fn(|_| Default::default()),
            gram: Default::default(),
            aram: Default::default(),
            gtype: Default::default(),
            st: Default::default(),
            pend: Default::default(),
            pulse: Default::default(),
            fatal: Default::default(),
            rst: Default::default(),
            rl_wr: Default::default(),
            dq_wr: Default::default(),
            lost: Default::default(),
            evq: Default::default(),
            c_id_val: core::array::from_fn(|i| konst(id[i].1 as u64)),
            c_rw_addr: core::array::from_fn(|i| addr_const(rwl[i])),
            c_gid_addr: core::array::from_fn(|w| addr_const(gid_addr[w])),
            c_attr_addr: core::array::from_fn(|n| addr_const(regs::gid_attr(n as u32))),
            c_slot_attr: konst(4),
            c_gdat_mask: addr_const((regs::BAR0_SIZE - 1) & !(0x1E0 | 0xC)),
            c_gdat_match: addr_const(regs::GID_BASE),
            c_gattr_mask: addr_const((regs::BAR0_SIZE - 1) & !0x1E0),
            c_gattr_match: addr_const(regs::gid_attr(0)),
            c_rd_outside: addr_const(RD_OUTSIDE),
            c_addr_zero: addr_const(0),
            c_type_sh: core::array::from_fn(|n| konst((GID_TYPE_W * n) as u64)),
            c_a_reset: addr_const(regs::CFG_RESET),
            c_a_irq_status: addr_const(regs::IRQ_STATUS),
            c_a_vec_pending: addr_const(regs::IRQ_VEC_PENDING),
            c_a_event_pop: addr_const(regs::ASYNC_EVENT_POP),
            c_a_mac_hi: addr_const(regs::CFG_MAC_HI),
            c_a_rate_limit: addr_const(regs::CC_QP_RATE_LIMIT),
            c_a_qp_dcqcn: addr_const(regs::CC_QP_DCQCN),
            c_st_ready: konst(cfg_status::READY as u64),
            c_st_link: konst(cfg_status::LINK_UP as u64),
            c_st_fatal: konst(cfg_status::FATAL as u64),
            c_irq_async: konst(irq_status::ASYNC as u64),
            c_irq_fatal: konst(irq_status::FATAL as u64),
            c_irq_cmd: konst(irq_status::CMD_DONE as u64),
            c_ev_type_lsb: lsb_const(async_event::TYPE),
            c_ev_valid: konst(async_event::VALID.mask() as u64),
            c_info_vendor_lsb: lsb_const(async_event_info::VENDOR_ERR),
            c_info_status_lsb: lsb_const(async_event_info::STATUS),
            c_type_lsb: lsb_const(gid_attr::TYPE),
            c_zero32: konst(0),
            c_one32: konst(1),
            c_type_ones: konst(gid_attr::TYPE.max() as u64),
            // IRQ_CTRL_VECTOR values at or above MAX_VECTORS name no vector (bits 7:5)
            c_vec_bad: konst((0xFF & !(regs::MAX_VECTORS - 1)) as u64),
            wbs: Default::default(),
            gsel: Default::default(),
            pl: core::array::from_fn(|_| Default::default()),
            p1: core::array::from_fn(|_| Default::default()),
            p2: core::array::from_fn(|_| Default::default()),
            p3: core::array::from_fn(|_| Default::default()),
            p4: core::array::from_fn(|_| Default::default()),
            p5: core::array::from_fn(|_| Default::default()),
            p6: core::array::from_fn(|_| Default::default()),
            p7: Default::default(),
            set_async: Default::default(),
            set_fatal: Default::default(),
            set_cmd: Default::default(),
            st_set: Default::default(),
            ctrl_fire: Default::default(),
            vec_cq: Default::default(),
            vec_ctrl: Default::default(),
            vec_set: Default::default(),
            ev_push: Default::default(),
            ev_word: Default::default(),
            ev_info: Default::default(),
            s_ready: Default::default(),
            s_link: Default::default(),
            s_fatal: Default::default(),
            status_word: Default::default(),
        }
    }
}

impl Logic for CsrGlobal {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mac, gtype, st, pend, pulse, fatal, rst, lost, rl_wr, dq_wr);
        for i in 0..NRW {
            self.rw[i].clock.next = self.clock.val();
            self.rw[i].d.next = self.rw[i].q.val();
        }
        for w in 0..NGW {
            self.gw[w].clock.next = self.clock.val();
            self.gw[w].d.next = self.gw[w].q.val();
        }
        self.evq.clock.next = self.clock.val();

        // ---------------- locals: defaults first ----------------
        // the written word byte-swapped (register byte 0 in 7:0 -> wire byte 0 on top)
        self.le_wdata.inp.next = self.wdata.val();
        self.wbs.next = self.le_wdata.out.val();
        self.gsel.next = self.c_zero32.val();
        self.ev_push.next = self.ev_valid.val() & !self.evq.full.val();
        self.set_async.next = self.c_zero32.val();
        if self.ev_push.val() {
            self.set_async.next = self.c_irq_async.val();
        }
        self.set_fatal.next = self.c_zero32.val();
        if self.fatal_set.val() {
            self.set_fatal.next = self.c_irq_fatal.val();
        }
        self.set_cmd.next = self.c_zero32.val();
        if self.cmd_done.val() {
            self.set_cmd.next = self.c_irq_cmd.val();
        }
        self.st_set.next = self.set_async.val() | self.set_fatal.val() | self.set_cmd.val();
        // IRQ_ENABLE is rw[7], IRQ_CTRL_VECTOR rw[9], IRQ_VEC_MASK rw[8]
        self.ctrl_fire.next = ((self.st_set.val() & self.rw[7].q.val()) != self.c_zero32.val())
            & ((self.rw[9].q.val() & self.c_vec_bad.val()) == self.c_zero32.val());
        self.vec_cq.next = self.c_zero32.val();
        if self.cq_irq_valid.val() {
            self.vec_cq.next = self.c_one32.val() << self.cq_irq_vector.val();
        }
        self.vec_ctrl.next = self.c_zero32.val();
        if self.ctrl_fire.val() {
            self.vec_ctrl.next = self.c_one32.val() << self.rw[9].q.val().get_bits::<5>(0);
        }
        self.vec_set.next = self.vec_cq.val() | self.vec_ctrl.val();
        self.ev_word.next = self.c_zero32.val();
        self.ev_info.next = self.c_zero32.val();
        if self.evq.valid.val() {
            self.ev_word.next = bit_cast::<32, 24>(self.evq.dout.val().get_bits::<24>(0))
                | (bit_cast::<32, 5>(self.evq.dout.val().get_bits::<5>(24))
                    << self.c_ev_type_lsb.val())
                | self.c_ev_valid.val();
            self.ev_info.next = (bit_cast::<32, 8>(self.evq.dout.val().get_bits::<8>(37))
                << self.c_info_vendor_lsb.val())
                | (bit_cast::<32, 8>(self.evq.dout.val().get_bits::<8>(29))
                    << self.c_info_status_lsb.val());
        }
        self.s_ready.next = self.c_zero32.val();
        if !(self.resetting.val() | self.rst.q.val()) {
            self.s_ready.next = self.c_st_ready.val();
        }
        self.s_link.next = self.c_zero32.val();
        if self.link_up.val() {
            self.s_link.next = self.c_st_link.val();
        }
        self.s_fatal.next = self.c_zero32.val();
        if self.fatal.q.val() {
            self.s_fatal.next = self.c_st_fatal.val();
        }
        self.status_word.next = self.s_ready.val() | self.s_link.val() | self.s_fatal.val();

        // ---------------- event FIFO ----------------
        self.evq.push.next = self.ev_push.val();
        self.evq.din.next = bit_cast::<EV_W, 24>(self.ev_id.val())
            | (bit_cast::<EV_W, 5>(self.ev_type.val()) << 24)
            | (bit_cast::<EV_W, 8>(self.ev_status.val()) << 29)
            | (bit_cast::<EV_W, 8>(self.ev_vendor.val()) << 37);
        self.evq.pop.next = false;
        self.evq.flush.next = self.rst.q.val();
        if self.ev_valid.val() & self.evq.full.val() & !self.lost.q.val().all() {
            self.lost.d.next = self.lost.q.val() + self.c_one32.val();
        }

        // ---------------- status / interrupts (sets; W1C below) ----------------
        self.st.d.next = self.st.q.val() | self.st_set.val();
        self.pend.d.next = self.pend.q.val() | self.vec_set.val();
        self.pulse.d.next = self.vec_set.val() & !self.rw[8].q.val();
        if self.fatal_set.val() {
            self.fatal.d.next = true;
        }
        self.rst.d.next = false;
        self.rl_wr.d.next = false;
        self.dq_wr.d.next = false;

        // ---------------- GID read copies ----------------
        self.gram.clock.next = self.clock.val();
        self.gram.write_enable.next = self.wr.val()
            & ((self.waddr.val() & self.c_gdat_mask.val()) == self.c_gdat_match.val());
        self.gram.write_address.next = (bit_cast::<6, 2>(self.waddr.val().get_bits::<2>(2)) << 4)
            | bit_cast::<6, 4>(self.waddr.val().get_bits::<4>(5));
        self.gram.write_data.next = self.wdata.val();
        self.gram.read_address.next = (bit_cast::<6, 2>(self.raddr.val().get_bits::<2>(2)) << 4)
            | bit_cast::<6, 4>(self.raddr.val().get_bits::<4>(5));
        self.aram.clock.next = self.clock.val();
        self.aram.write_enable.next = self.wr.val()
            & ((self.waddr.val() & self.c_gattr_mask.val()) == self.c_gattr_match.val());
        self.aram.write_address.next = self.waddr.val().get_bits::<4>(5);
        self.aram.write_data.next = self.wdata.val();
        self.aram.read_address.next = self.raddr.val().get_bits::<4>(5);

        // ---------------- writes ----------------
        if self.wr.val() {
            if self.waddr.val() == self.c_a_rate_limit.val() {
                self.rl_wr.d.next = true;
            }
            if self.waddr.val() == self.c_a_qp_dcqcn.val() {
                self.dq_wr.d.next = true;
            }
            for i in 0..NRW {
                if self.waddr.val() == self.c_rw_addr[i].val() {
                    self.rw[i].d.next = self.wdata.val();
                }
            }
            // CFG_MAC_HI applies the whole MAC (LO is rw[2])
            if self.waddr.val() == self.c_a_mac_hi.val() {
                self.mac.d.next = (bit_cast::<48, 8>(self.rw[2].q.val().get_bits::<8>(0)) << 40)
                    | (bit_cast::<48, 8>(self.rw[2].q.val().get_bits::<8>(8)) << 32)
                    | (bit_cast::<48, 8>(self.rw[2].q.val().get_bits::<8>(16)) << 24)
                    | (bit_cast::<48, 8>(self.rw[2].q.val().get_bits::<8>(24)) << 16)
                    | (bit_cast::<48, 8>(self.wdata.val().get_bits::<8>(0)) << 8)
                    | bit_cast::<48, 8>(self.wdata.val().get_bits::<8>(8));
            }
            if self.waddr.val() == self.c_a_reset.val() {
                self.rst.d.next = self.wdata.val().get_bit(0) & !self.resetting.val();
            }
            if self.waddr.val() == self.c_a_irq_status.val() {
                self.st.d.next = (self.st.q.val() & !self.wdata.val()) | self.st_set.val();
            }
            if self.waddr.val() == self.c_a_vec_pending.val() {
                self.pend.d.next = (self.pend.q.val() & !self.wdata.val()) | self.vec_set.val();
            }
            if self.waddr.val() == self.c_a_event_pop.val() {
                self.evq.pop.next = true;
            }
            for w in 0..NGW {
                if self.waddr.val() == self.c_gid_addr[w].val() {
                    self.gw[w].d.next = self.wbs.val();
                }
            }
            for n in 0..GID_ENTRIES {
                if self.waddr.val() == self.c_attr_addr[n].val() {
                    self.gtype.d.next = (self.gtype.q.val()
                        & !(self.c_type_ones.val() << self.c_type_sh[n].val()))
                        | (bit_cast::<32, GID_TYPE_W>(
                            self.wdata
                                .val()
                                .get_bits::<GID_TYPE_W>(self.c_type_lsb.val().index()),
                        ) << self.c_type_sh[n].val());
                }
            }
        }
        // CFG_RESET: flush the event FIFO, clear LOST and FATAL
        if self.rst.q.val() {
            self.lost.d.next = self.c_zero32.val();
            self.fatal.d.next = false;
        }

        // ---------------- reads ----------------
        // A multiplexer tree on the address bits (not a compare per register): pages 0x000 ..
        // 0x3FF are 4 x 32 leaves `pl[page * 32 + word]` (word = raddr[6:2], raddr[7] = 0;
        // reserved and write-only words are 0 leaves), the GID table (0x400 .. 0x5FF) is read
        // from its distributed-RAM copies. Only exact register addresses reach a register
        // (raddr[20:11] and raddr[1:0] are 0): every other address reads 0, as before.
        for i in 0..NPL {
            self.pl[i].next = self.c_zero32.val();
        }
        self.pl[0].next = self.c_id_val[0].val();
        self.pl[1].next = self.c_id_val[1].val();
        self.pl[2].next = self.c_id_val[2].val();
        self.pl[3].next = self.c_id_val[3].val();
        self.pl[4].next = self.c_id_val[4].val();
        self.pl[5].next = self.c_id_val[5].val();
        self.pl[6].next = self.c_id_val[6].val();
        self.pl[7].next = self.c_id_val[7].val();
        self.pl[8].next = self.c_id_val[8].val();
        self.pl[9].next = self.c_id_val[9].val();
        self.pl[10].next = self.c_id_val[10].val();
        self.pl[11].next = self.c_id_val[11].val();
        self.pl[12].next = self.c_id_val[12].val();
        self.pl[32].next = self.rw[0].q.val();
        self.pl[33].next = self.status_word.val();
        self.pl[35].next = self.rw[1].q.val();
        self.pl[36].next = self.rw[2].q.val();
        self.pl[37].next = self.rw[3].q.val();
        self.pl[38].next = self.rw[4].q.val();
        self.pl[39].next = self.rw[5].q.val();
        self.pl[40].next = self.rw[6].q.val();
        self.pl[41].next = self.rw[26].q.val();
        self.pl[42].next = self.rw[30].q.val();
        self.pl[43].next = self.rw[31].q.val();
        self.pl[44].next = self.rw[32].q.val();
        self.pl[64].next = self.rw[10].q.val();
        self.pl[65].next = self.rw[11].q.val();
        self.pl[66].next = self.rw[12].q.val();
        self.pl[67].next = self.rw[13].q.val();
        self.pl[68].next = self.rw[14].q.val();
        self.pl[69].next = self.rw[15].q.val();
        self.pl[70].next = self.rw[16].q.val();
        self.pl[71].next = self.rw[17].q.val();
        self.pl[72].next = self.rw[18].q.val();
        self.pl[73].next = self.rw[19].q.val();
        self.pl[74].next = self.rw[20].q.val();
        self.pl[75].next = self.rw[21].q.val();
        self.pl[76].next = self.rw[22].q.val();
        self.pl[77].next = self.rw[23].q.val();
        self.pl[78].next = self.rw[24].q.val();
        self.pl[79].next = self.rw[25].q.val();
        self.pl[80].next = self.rw[27].q.val();
        self.pl[81].next = self.rw[28].q.val();
        self.pl[82].next = self.rw[29].q.val();
        self.pl[83].next = self.cc_qp_rate_now.val();
        self.pl[96].next = self.st.q.val();
        self.pl[97].next = self.rw[7].q.val();
        self.pl[98].next = self.pend.q.val();
        self.pl[99].next = self.rw[8].q.val();
        self.pl[100].next = self.rw[9].q.val();
        self.pl[104].next = self.ev_word.val();
        self.pl[105].next = self.ev_info.val();
        self.pl[107].next = self.lost.q.val();
        for i in 0..64 {
            self.p1[i].next = self.pl[2 * i].val();
            if self.raddr.val().get_bit(2) {
                self.p1[i].next = self.pl[2 * i + 1].val();
            }
        }
        for i in 0..32 {
            self.p2[i].next = self.p1[2 * i].val();
            if self.raddr.val().get_bit(3) {
                self.p2[i].next = self.p1[2 * i + 1].val();
            }
        }
        for i in 0..16 {
            self.p3[i].next = self.p2[2 * i].val();
            if self.raddr.val().get_bit(4) {
                self.p3[i].next = self.p2[2 * i + 1].val();
            }
        }
        for i in 0..8 {
            self.p4[i].next = self.p3[2 * i].val();
            if self.raddr.val().get_bit(5) {
                self.p4[i].next = self.p3[2 * i + 1].val();
            }
        }
        for i in 0..4 {
            self.p5[i].next = self.p4[2 * i].val();
            if self.raddr.val().get_bit(6) {
                self.p5[i].next = self.p4[2 * i + 1].val();
            }
        }
        for i in 0..2 {
            self.p6[i].next = self.p5[2 * i].val();
            if self.raddr.val().get_bit(8) {
                self.p6[i].next = self.p5[2 * i + 1].val();
            }
        }
        self.p7.next = self.p6[0].val();
        if self.raddr.val().get_bit(9) {
            self.p7.next = self.p6[1].val();
        }
        // GID: the read copies (raddr[4:2]: data words 0..3, attributes 4, else 0)
        self.gsel.next = self.c_zero32.val();
        if !self.raddr.val().get_bit(4) {
            self.gsel.next = self.gram.read_data.val();
        } else if self.raddr.val().get_bits::<3>(2) == self.c_slot_attr.val() {
            self.gsel.next = self.aram.read_data.val();
        }
        self.rdata.next = self.c_zero32.val();
        if self.rd.val() & ((self.raddr.val() & self.c_rd_outside.val()) == self.c_addr_zero.val())
        {
            if !self.raddr.val().get_bit(10) {
                if !self.raddr.val().get_bit(7) {
                    self.rdata.next = self.p7.val();
                }
            } else if !self.raddr.val().get_bit(9) {
                self.rdata.next = self.gsel.val();
            }
        }

        // ---------------- outputs ----------------
        self.reset_req.next = self.rst.q.val();
        self.cfg_control.next = self.rw[0].q.val();
        self.cfg_udp_sport.next = self.rw[4].q.val();
        self.cfg_traffic.next = self.rw[5].q.val();
        self.cfg_pfc.next = self.rw[6].q.val();
        self.cfg_ack_coalesce.next = self.rw[26].q.val();
        self.cfg_pfc_xoff.next = self.rw[30].q.val();
        self.cfg_pfc_quanta.next = self.rw[31].q.val();
        self.cfg_sq_quantum.next = self.rw[32].q.val();
        self.cfg_mac.next = self.mac.q.val();
        self.cc_rp_time_reset.next = self.rw[10].q.val();
        self.cc_rp_byte_reset.next = self.rw[11].q.val();
        self.cc_rp_threshold.next = self.rw[12].q.val();
        self.cc_rp_ai_rate.next = self.rw[13].q.val();
        self.cc_rp_hai_rate.next = self.rw[14].q.val();
        self.cc_rp_min_rate.next = self.rw[15].q.val();
        self.cc_rp_max_rate.next = self.rw[16].q.val();
        self.cc_rp_gd.next = self.rw[17].q.val();
        self.cc_rp_min_dec_fac.next = self.rw[18].q.val();
        self.cc_rp_alpha_g.next = self.rw[19].q.val();
        self.cc_rp_alpha_period.next = self.rw[20].q.val();
        self.cc_rp_reduce_period.next = self.rw[21].q.val();
        self.cc_rp_initial_alpha.next = self.rw[22].q.val();
        self.cc_rp_flags.next = self.rw[23].q.val();
        self.cc_rp_first_cnp_rate.next = self.rw[24].q.val();
        self.cc_np_cnp_interval.next = self.rw[25].q.val();
        self.cc_qp_select.next = self.rw[27].q.val();
        self.cc_qp_rate_limit.next = self.rw[28].q.val();
        self.cc_qp_rate_wr.next = self.rl_wr.q.val();
        self.cc_qp_dcqcn.next = self.rw[29].q.val();
        self.cc_qp_dcqcn_wr.next = self.dq_wr.q.val();
        self.gid0.next = (bit_cast::<128, 32>(self.gw[0].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[16].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[32].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[48].q.val());
        self.gid1.next = (bit_cast::<128, 32>(self.gw[1].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[17].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[33].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[49].q.val());
        self.gid2.next = (bit_cast::<128, 32>(self.gw[2].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[18].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[34].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[50].q.val());
        self.gid3.next = (bit_cast::<128, 32>(self.gw[3].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[19].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[35].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[51].q.val());
        self.gid4.next = (bit_cast::<128, 32>(self.gw[4].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[20].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[36].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[52].q.val());
        self.gid5.next = (bit_cast::<128, 32>(self.gw[5].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[21].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[37].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[53].q.val());
        self.gid6.next = (bit_cast::<128, 32>(self.gw[6].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[22].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[38].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[54].q.val());
        self.gid7.next = (bit_cast::<128, 32>(self.gw[7].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[23].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[39].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[55].q.val());
        self.gid8.next = (bit_cast::<128, 32>(self.gw[8].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[24].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[40].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[56].q.val());
        self.gid9.next = (bit_cast::<128, 32>(self.gw[9].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[25].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[41].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[57].q.val());
        self.gid10.next = (bit_cast::<128, 32>(self.gw[10].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[26].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[42].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[58].q.val());
        self.gid11.next = (bit_cast::<128, 32>(self.gw[11].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[27].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[43].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[59].q.val());
        self.gid12.next = (bit_cast::<128, 32>(self.gw[12].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[28].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[44].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[60].q.val());
        self.gid13.next = (bit_cast::<128, 32>(self.gw[13].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[29].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[45].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[61].q.val());
        self.gid14.next = (bit_cast::<128, 32>(self.gw[14].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[30].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[46].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[62].q.val());
        self.gid15.next = (bit_cast::<128, 32>(self.gw[15].q.val()) << 96)
            | (bit_cast::<128, 32>(self.gw[31].q.val()) << 64)
            | (bit_cast::<128, 32>(self.gw[47].q.val()) << 32)
            | bit_cast::<128, 32>(self.gw[63].q.val());
        self.gid_type.next = self.gtype.q.val();
        self.irq_pulse.next = self.pulse.q.val();
        self.irq_level.next = self.pend.q.val() & !self.rw[8].q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The named outputs sit at the positions of `plain_rw()` (the literal indices in `update`).
    #[test]
    fn plain_rw_positions() {
        let l = plain_rw();
        assert_eq!(l[0], regs::CFG_CONTROL);
        assert_eq!(l[2], regs::CFG_MAC_LO);
        assert_eq!(l[4], regs::CFG_UDP_SPORT);
        assert_eq!(l[5], regs::CFG_TRAFFIC);
        assert_eq!(l[6], regs::CFG_PFC);
        assert_eq!(l[7], regs::IRQ_ENABLE);
        assert_eq!(l[8], regs::IRQ_VEC_MASK);
        assert_eq!(l[9], regs::IRQ_CTRL_VECTOR);
        // CC_* in address order from rw[10] to rw[25]
        for (k, off) in l[10..26].iter().enumerate() {
            assert_eq!(*off, regs::CC_RP_TIME_RESET + 4 * k as u32);
        }
        assert_eq!(l[25], regs::CC_NP_CNP_INTERVAL);
        assert_eq!(l[26], regs::CFG_ACK_COALESCE);
        assert_eq!(l[27], regs::CC_QP_SELECT);
        assert_eq!(l[28], regs::CC_QP_RATE_LIMIT);
        assert_eq!(l[29], regs::CC_QP_DCQCN);
        assert_eq!(l[30], regs::CFG_PFC_XOFF);
        assert_eq!(l[31], regs::CFG_PFC_QUANTA);
        assert_eq!(l[32], regs::CFG_SQ_QUANTUM);
        assert_eq!(l.len(), 33);
    }

    #[test]
    fn csr_global_synthesises() {
        let mut uut = CsrGlobal::new(&CsrParams::default(), 8, 8, 10);
        super::super::synth_check(&mut uut, "csr_global");
    }
}
