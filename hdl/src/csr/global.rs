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
use super::fifo::RegFifo;
use super::{
    addr_const, konst, lsb_const, rw_reset, Addr, CsrParams, EVENT_FIFO_DEPTH, GID_ENTRIES,
};
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
    ]
}
/// Number of plain RW registers.
pub const NRW: usize = 32;
/// Number of identity registers.
pub const NID: usize = 13;
/// GID data words (4 per entry).
pub const NGW: usize = 4 * GID_ENTRIES;
/// Width of the GID type field.
pub const GID_TYPE_W: usize = gid_attr::TYPE.width as usize;
/// Async event FIFO entry: id 23:0, type 28:24, status 36:29, vendor error 44:37.
pub const EV_W: usize = 45;

/// A 128-bit mask with every bit set except GID data word `k` (big-endian position).
fn word_keep(k: usize) -> Bits<128> {
    let mut b = Bits::<128>::default();
    for i in 0..128 {
        let in_word = i >= 96 - 32 * k && i < 128 - 32 * k;
        b = b.replace_bit(i, !in_word);
    }
    b
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
    gent: [DFF<Bits<128>>; GID_ENTRIES],
    gattr: [DFF<Bits<32>>; GID_ENTRIES],
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
    c_id_addr: [Constant<Addr>; NID],
    c_id_val: [Constant<Bits<32>>; NID],
    c_rw_addr: [Constant<Addr>; NRW],
    c_gid_addr: [Constant<Addr>; NGW],
    /// Bit position of GID data word k (big-endian) in its entry, and the mask keeping the
    /// other three words.
    c_wsh: [Constant<Bits<7>>; 4],
    c_word_keep: [Constant<Bits<128>>; 4],
    c_attr_addr: [Constant<Addr>; GID_ENTRIES],
    c_type_sh: [Constant<Bits<5>>; GID_ENTRIES],
    c_a_status: Constant<Addr>,
    c_a_reset: Constant<Addr>,
    c_a_irq_status: Constant<Addr>,
    c_a_vec_pending: Constant<Addr>,
    c_a_event: Constant<Addr>,
    c_a_event_info: Constant<Addr>,
    c_a_event_pop: Constant<Addr>,
    c_a_event_lost: Constant<Addr>,
    c_a_qp_rate: Constant<Addr>,
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
    wbs128: Signal<Local, Bits<128>>,
    gsel: Signal<Local, Bits<32>>,
    rd_gid: Signal<Local, Bit>,
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
        let gid_addr: [u32; NGW] =
            core::array::from_fn(|w| regs::gid_data((w / 4) as u32, (w % 4) as u32));
        CsrGlobal {
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
            gent: core::array::from_fn(|_| Default::default()),
            gattr: core::array::from_fn(|_| Default::default()),
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
            c_id_addr: core::array::from_fn(|i| addr_const(id[i].0)),
            c_id_val: core::array::from_fn(|i| konst(id[i].1 as u64)),
            c_rw_addr: core::array::from_fn(|i| addr_const(rwl[i])),
            c_gid_addr: core::array::from_fn(|w| addr_const(gid_addr[w])),
            c_wsh: core::array::from_fn(|k| konst((96 - 32 * k) as u64)),
            c_word_keep: core::array::from_fn(|k| Constant::new(word_keep(k))),
            c_attr_addr: core::array::from_fn(|n| addr_const(regs::gid_attr(n as u32))),
            c_type_sh: core::array::from_fn(|n| konst((GID_TYPE_W * n) as u64)),
            c_a_status: addr_const(regs::CFG_STATUS),
            c_a_reset: addr_const(regs::CFG_RESET),
            c_a_irq_status: addr_const(regs::IRQ_STATUS),
            c_a_vec_pending: addr_const(regs::IRQ_VEC_PENDING),
            c_a_event: addr_const(regs::ASYNC_EVENT),
            c_a_event_info: addr_const(regs::ASYNC_EVENT_INFO),
            c_a_event_pop: addr_const(regs::ASYNC_EVENT_POP),
            c_a_event_lost: addr_const(regs::ASYNC_EVENT_LOST),
            c_a_qp_rate: addr_const(regs::CC_QP_RATE),
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
            wbs128: Default::default(),
            gsel: Default::default(),
            rd_gid: Default::default(),
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
        for n in 0..GID_ENTRIES {
            self.gattr[n].clock.next = self.clock.val();
            self.gattr[n].d.next = self.gattr[n].q.val();
            self.gent[n].clock.next = self.clock.val();
            self.gent[n].d.next = self.gent[n].q.val();
        }
        self.evq.clock.next = self.clock.val();

        // ---------------- locals: defaults first ----------------
        // the written word byte-swapped (register byte 0 in 7:0 -> wire byte 0 on top)
        self.wbs.next = (bit_cast::<32, 8>(self.wdata.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.wdata.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.wdata.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.wdata.val().get_bits::<8>(24));
        self.wbs128.next = bit_cast::<128, 32>(self.wbs.val());
        self.gsel.next = self.c_zero32.val();
        self.rd_gid.next = false;
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
            for n in 0..GID_ENTRIES {
                for k in 0..4 {
                    if self.waddr.val() == self.c_gid_addr[n * 4 + k].val() {
                        self.gent[n].d.next = (self.gent[n].q.val() & self.c_word_keep[k].val())
                            | (self.wbs128.val() << self.c_wsh[k].val());
                    }
                }
            }
            for n in 0..GID_ENTRIES {
                if self.waddr.val() == self.c_attr_addr[n].val() {
                    self.gattr[n].d.next = self.wdata.val();
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
        self.rdata.next = self.c_zero32.val();
        if self.rd.val() {
            for i in 0..NID {
                if self.raddr.val() == self.c_id_addr[i].val() {
                    self.rdata.next = self.c_id_val[i].val();
                }
            }
            for i in 0..NRW {
                if self.raddr.val() == self.c_rw_addr[i].val() {
                    self.rdata.next = self.rw[i].q.val();
                }
            }
            if self.raddr.val() == self.c_a_status.val() {
                self.rdata.next = self.status_word.val();
            }
            if self.raddr.val() == self.c_a_irq_status.val() {
                self.rdata.next = self.st.q.val();
            }
            if self.raddr.val() == self.c_a_vec_pending.val() {
                self.rdata.next = self.pend.q.val();
            }
            if self.raddr.val() == self.c_a_event.val() {
                self.rdata.next = self.ev_word.val();
            }
            if self.raddr.val() == self.c_a_event_info.val() {
                self.rdata.next = self.ev_info.val();
            }
            if self.raddr.val() == self.c_a_event_lost.val() {
                self.rdata.next = self.lost.q.val();
            }
            if self.raddr.val() == self.c_a_qp_rate.val() {
                self.rdata.next = self.cc_qp_rate_now.val();
            }
            for n in 0..GID_ENTRIES {
                for k in 0..4 {
                    if self.raddr.val() == self.c_gid_addr[n * 4 + k].val() {
                        self.rd_gid.next = true;
                        self.gsel.next = self.gent[n]
                            .q
                            .val()
                            .get_bits::<32>(self.c_wsh[k].val().index());
                    }
                }
            }
            if self.rd_gid.val() {
                self.rdata.next = (bit_cast::<32, 8>(self.gsel.val().get_bits::<8>(0)) << 24)
                    | (bit_cast::<32, 8>(self.gsel.val().get_bits::<8>(8)) << 16)
                    | (bit_cast::<32, 8>(self.gsel.val().get_bits::<8>(16)) << 8)
                    | bit_cast::<32, 8>(self.gsel.val().get_bits::<8>(24));
            }
            for n in 0..GID_ENTRIES {
                if self.raddr.val() == self.c_attr_addr[n].val() {
                    self.rdata.next = self.gattr[n].q.val();
                }
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
        self.gid0.next = self.gent[0].q.val();
        self.gid1.next = self.gent[1].q.val();
        self.gid2.next = self.gent[2].q.val();
        self.gid3.next = self.gent[3].q.val();
        self.gid4.next = self.gent[4].q.val();
        self.gid5.next = self.gent[5].q.val();
        self.gid6.next = self.gent[6].q.val();
        self.gid7.next = self.gent[7].q.val();
        self.gid8.next = self.gent[8].q.val();
        self.gid9.next = self.gent[9].q.val();
        self.gid10.next = self.gent[10].q.val();
        self.gid11.next = self.gent[11].q.val();
        self.gid12.next = self.gent[12].q.val();
        self.gid13.next = self.gent[13].q.val();
        self.gid14.next = self.gent[14].q.val();
        self.gid15.next = self.gent[15].q.val();
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
        assert_eq!(l.len(), 32);
    }

    #[test]
    fn csr_global_synthesises() {
        let mut uut = CsrGlobal::new(&CsrParams::default(), 8, 8, 10);
        super::super::synth_check(&mut uut, "csr_global");
    }
}
