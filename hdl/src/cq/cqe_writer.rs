//! [`CqeWriter`]: writes completion-queue entries into the CQ rings in host memory and raises
//! CQ interrupts (`ferroce_proto::host::cqe` layout, `ferroce_proto::host::cq` rules).
//!
//! Per CQ (block RAM, `2^CA` rows): the producer index (PI), the consumer index the driver last
//! reported (CI doorbells, arm doorbells) and the arm mode. It follows the CSR block's `cev_*`
//! stream in order: CREATE sets PI = CI = the initial CI and disarms, DESTROY disarms, CI
//! records the CI, ARM records the CI and arms (firing at once when PI != CI, so a CQE that
//! landed between the driver's last poll and the arm is never missed).
//!
//! A CQE request (`cqe_*`) reads the CQ's configuration (the CSR block's `cqc_*` port, latency
//! 2) and its runtime row, then writes the 32-byte entry with one DMA write at
//! `base + (PI mod 2^log2) * 32`, owner bit `ring::owner_for(PI)` in the last byte (so the
//! driver sees it last), and increments PI. An armed CQ fires its vector (`cq_irq_*`) on the
//! next CQE (mode Next) or the next solicited or error CQE (mode Solicited), and disarms.
//!
//! Dropped and counted (`cnt_dropped`): a CQE for a CQ that does not exist or whose ring is
//! full (`PI - CI == entries`; the CQ error state and async event of `host::cq` are not
//! implemented yet).
use crate::csr::cq_config::{LOG2_W, VEC_W};
use crate::csr::qp_config::CQN_W;
use crate::dma::DmaWriteMaster;
use crate::widget::{ByteSwap32, ByteSwap64};
use ferroce_proto::host::cqe::{field as cf, CQE_LEN};
use rust_hdl::prelude::*;

// The kernel writes the CQE as four beats with literal byte positions (rust-hdl emits a named
// constant as an undeclared Verilog identifier); this ties them to `ferroce_proto`'s layout:
// beat 0 wr_id; beat 1 byte_len, imm; beat 2 qpn, src_qp; beat 3 wqe_index, vendor_err, flags,
// status, opcode, reserved, owner (last byte).
const _: () = assert!(
    CQE_LEN == 32
        && cf::WR_ID == 0
        && cf::BYTE_LEN == 8
        && cf::IMM_INV == 12
        && cf::QPN == 16
        && cf::SRC_QP == 20
        && cf::WQE_INDEX == 24
        && cf::VENDOR_ERR == 26
        && cf::FLAGS == 27
        && cf::STATUS == 28
        && cf::OPCODE == 29
        && cf::OWNER == 31
);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CqwState {
    Idle,
    EvWait,
    EvReg,
    EvApply,
    Rd,
    RdWait,
    Latch,
    Check,
    Write,
    Done,
    QueryWait,
    QueryReg,
    QueryAns,
}

#[derive(LogicBlock)]
pub struct CqeWriter<const CA: usize> {
    pub clock: Signal<In, Clock>,
    // ---- CQ events from the CSR block (kind 0 CI, 1 ARM, 2 CREATE, 3 DESTROY) ----
    pub cev_valid: Signal<In, Bit>,
    pub cev_ready: Signal<Out, Bit>,
    pub cev_kind: Signal<In, Bits<2>>,
    pub cev_cqn: Signal<In, Bits<CA>>,
    pub cev_value: Signal<In, Bits<32>>,
    // ---- completions to write ----
    pub cqe_valid: Signal<In, Bit>,
    pub cqe_ready: Signal<Out, Bit>,
    pub cqe_cqn: Signal<In, Bits<CQN_W>>,
    pub cqe_wr_id: Signal<In, Bits<64>>,
    pub cqe_byte_len: Signal<In, Bits<32>>,
    /// immediate data in wire order (or the invalidated rkey, little-endian in the CQE)
    pub cqe_imm: Signal<In, Bits<32>>,
    pub cqe_qpn: Signal<In, Bits<24>>,
    pub cqe_src_qp: Signal<In, Bits<24>>,
    pub cqe_wqe_index: Signal<In, Bits<16>>,
    pub cqe_vendor: Signal<In, Bits<8>>,
    pub cqe_flags: Signal<In, Bits<8>>,
    pub cqe_status: Signal<In, Bits<8>>,
    pub cqe_opcode: Signal<In, Bits<8>>,
    // ---- CQ configuration read (CSR block, latency 2) ----
    pub cqc_rd_valid: Signal<Out, Bit>,
    pub cqc_rd_cqn: Signal<Out, Bits<CA>>,
    pub cqc_valid: Signal<In, Bit>,
    pub cqc_exists: Signal<In, Bit>,
    pub cqc_base: Signal<In, Bits<64>>,
    pub cqc_log2_entries: Signal<In, Bits<LOG2_W>>,
    pub cqc_vector: Signal<In, Bits<VEC_W>>,
    // ---- DMA writes ----
    pub dma_wr: DmaWriteMaster<64, 8>,
    // ---- interrupts ----
    pub cq_irq_valid: Signal<Out, Bit>,
    pub cq_irq_vector: Signal<Out, Bits<5>>,
    // ---- runtime query (QUERY of a CQ: CQ_PI, CQ_CI, CQ_STATE) ----
    pub rtq_valid: Signal<In, Bit>,
    pub rtq_cqn: Signal<In, Bits<CA>>,
    pub rtq_ack: Signal<Out, Bit>,
    pub rtq_pi: Signal<Out, Bits<32>>,
    pub rtq_ci: Signal<Out, Bits<32>>,
    pub rtq_state: Signal<Out, Bits<32>>,
    // ---- counters ----
    pub cnt_written: Signal<Out, Bits<32>>,
    pub cnt_dropped: Signal<Out, Bits<32>>,
    /// one-cycle pulse per CQE written (`cnt_written` counts them; this feeds `CNT_CQE`)
    pub ev_written: Signal<Out, Bit>,

    ram_pi: RAM<Bits<24>, CA>,
    ram_ci: RAM<Bits<24>, CA>,
    ram_arm: RAM<Bits<2>, CA>,
    /// The runtime row as read, registered: a block RAM's output (5.8 ns clock-to-output on
    /// ECP5) feeds only these registers, never the comparisons and the next state (the
    /// block's critical path was that one, docs/RESOURCES.md). Valid two cycles after
    /// `r_cqn` settles.
    row_pi: DFF<Bits<24>>,
    row_ci: DFF<Bits<24>>,
    row_arm: DFF<Bits<2>>,
    state: DFF<CqwState>,
    q_pend: DFF<Bit>,
    q_cqn: DFF<Bits<CA>>,
    r_cqn: DFF<Bits<CA>>,
    r_kind: DFF<Bits<2>>,
    r_value: DFF<Bits<32>>,
    f_wrid: DFF<Bits<64>>,
    f_len: DFF<Bits<32>>,
    f_imm: DFF<Bits<32>>,
    f_qpn: DFF<Bits<32>>,
    f_src: DFF<Bits<32>>,
    f_index: DFF<Bits<16>>,
    f_vendor: DFF<Bits<8>>,
    f_flags: DFF<Bits<8>>,
    f_status: DFF<Bits<8>>,
    f_opcode: DFF<Bits<8>>,
    k_exists: DFF<Bit>,
    k_base: DFF<Bits<64>>,
    k_log2: DFF<Bits<LOG2_W>>,
    k_vector: DFF<Bits<VEC_W>>,
    s_pi: DFF<Bits<24>>,
    s_ci: DFF<Bits<24>>,
    s_arm: DFF<Bits<2>>,
    beat: DFF<Bits<2>>,
    reqd: DFF<Bit>,
    n_written: DFF<Bits<32>>,
    n_dropped: DFF<Bits<32>>,
    c_nqp: Constant<Bits<CQN_W>>,
    c_one: Constant<Bits<24>>,
    // locals
    mask: Signal<Local, Bits<24>>,
    pass: Signal<Local, Bits<24>>,
    owner: Signal<Local, Bits<8>>,
    used: Signal<Local, Bits<24>>,
    size: Signal<Local, Bits<24>>,
    fire: Signal<Local, Bit>,
    wr_en: Signal<Local, Bit>,
    req_fire: Signal<Local, Bit>,
    last_fire: Signal<Local, Bit>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_wrid: ByteSwap64,
    le_len: ByteSwap32,
    le_qpn: ByteSwap32,
    le_src: ByteSwap32,
}

impl<const CA: usize> Default for CqeWriter<CA> {
    fn default() -> Self {
        assert!((1..=16).contains(&CA), "CqeWriter: CA must be 1..=16");
        fn zram<T: Synth + Default, const A: usize>() -> RAM<T, A> {
            RAM::from((0..(1usize << A)).map(|_| T::default()))
        }
        CqeWriter {
            le_wrid: Default::default(),
            le_len: Default::default(),
            le_qpn: Default::default(),
            le_src: Default::default(),
            clock: Default::default(),
            cev_valid: Default::default(),
            cev_ready: Default::default(),
            cev_kind: Default::default(),
            cev_cqn: Default::default(),
            cev_value: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_cqn: Default::default(),
            cqe_wr_id: Default::default(),
            cqe_byte_len: Default::default(),
            cqe_imm: Default::default(),
            cqe_qpn: Default::default(),
            cqe_src_qp: Default::default(),
            cqe_wqe_index: Default::default(),
            cqe_vendor: Default::default(),
            cqe_flags: Default::default(),
            cqe_status: Default::default(),
            cqe_opcode: Default::default(),
            cqc_rd_valid: Default::default(),
            cqc_rd_cqn: Default::default(),
            cqc_valid: Default::default(),
            cqc_exists: Default::default(),
            cqc_base: Default::default(),
            cqc_log2_entries: Default::default(),
            cqc_vector: Default::default(),
            dma_wr: Default::default(),
            cq_irq_valid: Default::default(),
            cq_irq_vector: Default::default(),
            rtq_valid: Default::default(),
            rtq_cqn: Default::default(),
            rtq_ack: Default::default(),
            rtq_pi: Default::default(),
            rtq_ci: Default::default(),
            rtq_state: Default::default(),
            cnt_written: Default::default(),
            ev_written: Default::default(),
            cnt_dropped: Default::default(),
            ram_pi: zram(),
            ram_ci: zram(),
            ram_arm: zram(),
            row_pi: Default::default(),
            row_ci: Default::default(),
            row_arm: Default::default(),
            state: Default::default(),
            q_pend: Default::default(),
            q_cqn: Default::default(),
            r_cqn: Default::default(),
            r_kind: Default::default(),
            r_value: Default::default(),
            f_wrid: Default::default(),
            f_len: Default::default(),
            f_imm: Default::default(),
            f_qpn: Default::default(),
            f_src: Default::default(),
            f_index: Default::default(),
            f_vendor: Default::default(),
            f_flags: Default::default(),
            f_status: Default::default(),
            f_opcode: Default::default(),
            k_exists: Default::default(),
            k_base: Default::default(),
            k_log2: Default::default(),
            k_vector: Default::default(),
            s_pi: Default::default(),
            s_ci: Default::default(),
            s_arm: Default::default(),
            beat: Default::default(),
            reqd: Default::default(),
            n_written: Default::default(),
            n_dropped: Default::default(),
            c_nqp: Constant::new((1u64 << CA).into()),
            c_one: Constant::new(1u64.into()),
            mask: Default::default(),
            pass: Default::default(),
            owner: Default::default(),
            used: Default::default(),
            size: Default::default(),
            fire: Default::default(),
            wr_en: Default::default(),
            req_fire: Default::default(),
            last_fire: Default::default(),
        }
    }
}

impl<const CA: usize> Logic for CqeWriter<CA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, q_pend, q_cqn, r_cqn, r_kind, r_value, f_wrid, f_len, f_imm, f_qpn,
            f_src, f_index, f_vendor, f_flags, f_status, f_opcode, k_exists, k_base, k_log2,
            k_vector, s_pi, s_ci, s_arm, beat, reqd, n_written, n_dropped, row_pi, row_ci, row_arm
        );
        self.ram_pi.read_clock.next = self.clock.val();
        self.ram_pi.write_clock.next = self.clock.val();
        self.ram_ci.read_clock.next = self.clock.val();
        self.ram_ci.write_clock.next = self.clock.val();
        self.ram_arm.read_clock.next = self.clock.val();
        self.ram_arm.write_clock.next = self.clock.val();
        // defaults
        self.cev_ready.next = false;
        self.cqe_ready.next = false;
        self.cqc_rd_valid.next = false;
        self.cqc_rd_cqn.next = self.r_cqn.q.val();
        self.cq_irq_valid.next = false;
        self.cq_irq_vector.next = self.k_vector.q.val().get_bits::<5>(0);
        self.cnt_written.next = self.n_written.q.val();
        self.cnt_dropped.next = self.n_dropped.q.val();
        self.ev_written.next = false;
        self.ram_pi.read_address.next = self.r_cqn.q.val();
        self.ram_ci.read_address.next = self.r_cqn.q.val();
        self.ram_arm.read_address.next = self.r_cqn.q.val();
        self.ram_pi.write_address.next = self.r_cqn.q.val();
        self.ram_ci.write_address.next = self.r_cqn.q.val();
        self.ram_arm.write_address.next = self.r_cqn.q.val();
        self.ram_pi.write_data.next = self.s_pi.q.val();
        self.ram_ci.write_data.next = self.s_ci.q.val();
        self.ram_arm.write_data.next = self.s_arm.q.val();
        self.row_pi.d.next = self.ram_pi.read_data.val();
        self.row_ci.d.next = self.ram_ci.read_data.val();
        self.row_arm.d.next = self.ram_arm.read_data.val();
        self.wr_en.next = false;
        self.dma_wr.req_valid.next = false;
        self.dma_wr.req_len.next = 32.into();
        self.dma_wr.req_tag.next = 0.into();
        self.dma_wr.data.valid.next = false;
        self.dma_wr.data.keep.next = 0xFF.into();
        self.dma_wr.data.last.next = self.beat.q.val() == 3;
        self.req_fire.next = false;
        self.last_fire.next = false;

        // slot of PI and its owner bit (1 on even passes of the ring)
        self.mask.next = (self.c_one.val() << self.k_log2.q.val()) - 1;
        self.size.next = self.c_one.val() << self.k_log2.q.val();
        self.pass.next = self.s_pi.q.val() >> self.k_log2.q.val();
        self.owner.next = 0.into();
        if !self.pass.val().get_bit(0) {
            self.owner.next = 1.into();
        }
        self.used.next = self.s_pi.q.val() - self.s_ci.q.val();
        self.dma_wr.req_addr.next =
            self.k_base.q.val() + (bit_cast::<64, 24>(self.s_pi.q.val() & self.mask.val()) << 5);
        // the entry's four beats, first byte in the MSB (little-endian fields byte-swapped)
        self.le_wrid.inp.next = self.f_wrid.q.val();
        self.dma_wr.data.data.next = self.le_wrid.out.val();
        self.le_len.inp.next = self.f_len.q.val();
        if self.beat.q.val() == 1 {
            self.dma_wr.data.data.next = (bit_cast::<64, 32>(self.le_len.out.val()) << 32)
                | bit_cast::<64, 32>(self.f_imm.q.val());
        }
        self.le_src.inp.next = self.f_src.q.val();
        self.le_qpn.inp.next = self.f_qpn.q.val();
        if self.beat.q.val() == 2 {
            self.dma_wr.data.data.next = (bit_cast::<64, 32>(self.le_qpn.out.val()) << 32)
                | bit_cast::<64, 32>(self.le_src.out.val());
        }
        if self.beat.q.val() == 3 {
            self.dma_wr.data.data.next = (bit_cast::<64, 16>(
                (bit_cast::<16, 8>(self.f_index.q.val().get_bits::<8>(0)) << 8)
                    | bit_cast::<16, 8>(self.f_index.q.val().get_bits::<8>(8)),
            ) << 48)
                | (bit_cast::<64, 8>(self.f_vendor.q.val()) << 40)
                | (bit_cast::<64, 8>(self.f_flags.q.val()) << 32)
                | (bit_cast::<64, 8>(self.f_status.q.val()) << 24)
                | (bit_cast::<64, 8>(self.f_opcode.q.val()) << 16)
                | bit_cast::<64, 8>(self.owner.val());
        }
        // an armed CQ fires: mode 1 (next) on any CQE, mode 2 (solicited) on a solicited
        // (flags bit 2) or error CQE
        self.fire.next = (self.s_arm.q.val() == 1)
            | ((self.s_arm.q.val() == 2)
                & (self.f_flags.q.val().get_bit(2) | (self.f_status.q.val() != 0)));

        // runtime query: latched, answered between jobs (state: bit 0 armed, bit 1 armed for
        // solicited completions; overflow is not tracked, see the module doc)
        self.rtq_ack.next = false;
        self.rtq_pi.next = bit_cast::<32, 24>(self.row_pi.q.val());
        self.rtq_ci.next = bit_cast::<32, 24>(self.row_ci.q.val());
        self.rtq_state.next = 0.into();
        if self.row_arm.q.val() == 1 {
            self.rtq_state.next = 1.into();
        }
        if self.row_arm.q.val() == 2 {
            self.rtq_state.next = 2.into();
        }
        if self.rtq_valid.val() {
            self.q_pend.d.next = true;
            self.q_cqn.d.next = self.rtq_cqn.val();
        }

        match self.state.q.val() {
            CqwState::Idle => {
                if self.q_pend.q.val() {
                    self.r_cqn.d.next = self.q_cqn.q.val();
                    self.state.d.next = CqwState::QueryWait;
                } else if self.cev_valid.val() {
                    self.cev_ready.next = true;
                    self.r_cqn.d.next = self.cev_cqn.val();
                    self.r_kind.d.next = self.cev_kind.val();
                    self.r_value.d.next = self.cev_value.val();
                    self.state.d.next = CqwState::EvWait;
                } else if self.cqe_valid.val() {
                    self.cqe_ready.next = true;
                    self.r_cqn.d.next = self.cqe_cqn.val().get_bits::<CA>(0);
                    self.f_wrid.d.next = self.cqe_wr_id.val();
                    self.f_len.d.next = self.cqe_byte_len.val();
                    self.f_imm.d.next = self.cqe_imm.val();
                    self.f_qpn.d.next = bit_cast::<32, 24>(self.cqe_qpn.val());
                    self.f_src.d.next = bit_cast::<32, 24>(self.cqe_src_qp.val());
                    self.f_index.d.next = self.cqe_wqe_index.val();
                    self.f_vendor.d.next = self.cqe_vendor.val();
                    self.f_flags.d.next = self.cqe_flags.val();
                    self.f_status.d.next = self.cqe_status.val();
                    self.f_opcode.d.next = self.cqe_opcode.val();
                    self.r_kind.d.next = 0.into();
                    self.state.d.next = CqwState::Rd;
                    if self.cqe_cqn.val() >= self.c_nqp.val() {
                        self.n_dropped.d.next = self.n_dropped.q.val() + 1;
                        self.state.d.next = CqwState::Idle;
                    }
                }
            }
            CqwState::EvWait => {
                // the runtime row of the CQ is read at r_cqn
                self.state.d.next = CqwState::EvReg;
            }
            CqwState::EvReg => {
                // the row leaves the RAMs into its registers
                self.state.d.next = CqwState::EvApply;
            }
            CqwState::EvApply => {
                // the CQ's runtime row (read at r_cqn), updated by the event
                self.s_pi.d.next = self.row_pi.q.val();
                self.s_ci.d.next = self.r_value.q.val().get_bits::<24>(0);
                self.s_arm.d.next = self.row_arm.q.val();
                self.state.d.next = CqwState::Done;
                if self.r_kind.q.val() == 1 {
                    // ARM: fire at once if entries are waiting (the vector is in the CQ's
                    // configuration: read it first), else arm
                    self.s_arm.d.next = self.r_value.q.val().get_bits::<2>(24);
                    if (self.r_value.q.val().get_bits::<2>(24) != 0)
                        & (self.row_pi.q.val() != self.r_value.q.val().get_bits::<24>(0))
                    {
                        self.s_arm.d.next = 0.into();
                        self.state.d.next = CqwState::Rd;
                    }
                }
                if self.r_kind.q.val() == 2 {
                    // CREATE: an empty ring starting at the initial CI, disarmed
                    self.s_pi.d.next = self.r_value.q.val().get_bits::<24>(0);
                    self.s_arm.d.next = 0.into();
                }
                if self.r_kind.q.val() == 3 {
                    // DESTROY: disarmed
                    self.s_ci.d.next = self.row_ci.q.val();
                    self.s_arm.d.next = 0.into();
                }
            }
            CqwState::Rd => {
                self.cqc_rd_valid.next = true;
                self.state.d.next = CqwState::RdWait;
            }
            CqwState::RdWait => {
                self.state.d.next = CqwState::Latch;
            }
            CqwState::Latch => {
                self.k_exists.d.next = self.cqc_exists.val();
                self.k_base.d.next = self.cqc_base.val();
                self.k_log2.d.next = self.cqc_log2_entries.val();
                self.k_vector.d.next = self.cqc_vector.val();
                if self.r_kind.q.val() == 1 {
                    // an ARM that fires at once (from EvApply): the vector is known now
                    self.cq_irq_vector.next = self.cqc_vector.val().get_bits::<5>(0);
                    self.cq_irq_valid.next = true;
                    self.state.d.next = CqwState::Done;
                } else {
                    self.s_pi.d.next = self.row_pi.q.val();
                    self.s_ci.d.next = self.row_ci.q.val();
                    self.s_arm.d.next = self.row_arm.q.val();
                    self.state.d.next = CqwState::Check;
                }
            }
            CqwState::Check => {
                self.beat.d.next = 0.into();
                self.reqd.d.next = false;
                self.state.d.next = CqwState::Write;
                if !self.k_exists.q.val() | (self.used.val() >= self.size.val()) {
                    self.n_dropped.d.next = self.n_dropped.q.val() + 1;
                    self.state.d.next = CqwState::Idle;
                }
            }
            CqwState::Write => {
                // the request first, then the four beats (data may wait for the request)
                self.dma_wr.req_valid.next = !self.reqd.q.val();
                self.req_fire.next = !self.reqd.q.val() & self.dma_wr.req_ready.val();
                if self.req_fire.val() {
                    self.reqd.d.next = true;
                }
                self.dma_wr.data.valid.next = self.reqd.q.val();
                if self.reqd.q.val() & self.dma_wr.data.ready.val() {
                    self.beat.d.next = self.beat.q.val() + 1;
                    self.last_fire.next = self.beat.q.val() == 3;
                }
                if self.last_fire.val() {
                    self.state.d.next = CqwState::Done;
                    self.s_pi.d.next = self.s_pi.q.val() + 1;
                    self.n_written.d.next = self.n_written.q.val() + 1;
                    self.ev_written.next = true;
                    if self.fire.val() {
                        self.cq_irq_valid.next = true;
                        self.s_arm.d.next = 0.into();
                    }
                }
            }
            CqwState::QueryWait => {
                // the queried CQ's runtime row is read at r_cqn
                self.state.d.next = CqwState::QueryReg;
            }
            CqwState::QueryReg => {
                // the row leaves the RAMs into its registers
                self.state.d.next = CqwState::QueryAns;
            }
            CqwState::QueryAns => {
                self.rtq_ack.next = true;
                self.q_pend.d.next = false;
                self.state.d.next = CqwState::Idle;
            }
            CqwState::Done => {
                // write the runtime row back (PI, CI, arm)
                self.wr_en.next = true;
                self.state.d.next = CqwState::Idle;
            }
        }
        self.ram_pi.write_enable.next = self.wr_en.val();
        self.ram_ci.write_enable.next = self.wr_en.val();
        self.ram_arm.write_enable.next = self.wr_en.val();
    }
}
