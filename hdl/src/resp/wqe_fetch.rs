//! [`RqWqeFetch`]: the responder's reads of its receive queue: a receive WQE (its header and
//! first SGE, 32 bytes at the RQ slot of the consumer index) or one later SGE of it (16 bytes),
//! by DMA, decoded into fields and checked (the owner bit of the index's ring pass, the SGE
//! count within the slot, the read's error flag). The layout is `ferroce_proto`'s receive WQE
//! (docs/HOST-INTERFACE.md; `ferroce_proto::host::wqe`); the responder's use of it (RNR NAK,
//! NAK 0x63 on a malformed WQE, the SGE cursor) is in the [module documentation](super).
//!
//! # Ports
//!
//! * Command: `cmd_valid`/`cmd_ready`, `cmd_sge` (0: the WQE at `rq_ci`; 1: its SGE
//!   `sge_index`), `cmd_tag` (the DMA tag). The ring's geometry and indices, read while the
//!   command is offered and, for the checks, until the next one: `rq_base`,
//!   `rq_log2_entries`, `rq_log2_stride`, `rq_ci` (free-running consumer index), `sge_index`.
//! * `dma_rd`: the DMA read master. In `Idle` a command is the DMA request itself
//!   (`req_valid` = `cmd_valid`, `cmd_ready` = `req_ready`: no cycle is added); in `Rx` every
//!   response beat is taken at once (`rsp.ready` high).
//! * `done`: a one-cycle pulse with the read's last beat (combinational); the fields are valid
//!   from the next cycle until the next command: `rd_error` (a beat of the read carried
//!   `rsp_error`), `owner_ok`, `nsge_ok`, `wqe_nsge`, `wqe_len`, `wr_id` (from the last WQE
//!   read), `sge_addr`, `sge_len`, `sge_lkey` (from the last read: SGE 0 of a WQE read, or the
//!   SGE read).
//!
//! Per read: `Idle` (request accepted) -> `Rx` (4 beats for a WQE, 2 for an SGE at 64 bits)
//! -> `Idle` with `done` on the last beat.
use crate::csr::qp_config::{LOG2E_W, LOG2S_W};
use crate::dma::DmaReadMaster;
use crate::widget::{ByteSwap32, ByteSwap64};
use ferroce_proto::host::ring::{owner_for, Ring, RingKind};
use ferroce_proto::host::wqe::{
    recv_field as rf, recv_sge_capacity, sge_field as sf, Sge, RECV_HEADER_LEN, SGE_LEN,
};
use rust_hdl::prelude::*;

// The kernel reads the receive WQE and SGE layouts as literals (rust-hdl emits a named constant
// as an undeclared Verilog identifier); these tie them to `ferroce_proto`. Beat 0 = owner (bit
// 0 of byte 0), num_sge (byte 3), length (bytes 4..8, LE); beat 1 = wr_id (LE); then SGEs of 16
// bytes: address (LE), length (LE), lkey (LE). A beat's MSB is the byte at the lowest address.
const _: () = assert!(
    rf::OWNER == 0
        && rf::NUM_SGE == 3
        && rf::LENGTH == 4
        && rf::WR_ID == 8
        && rf::SGES == RECV_HEADER_LEN
        && RECV_HEADER_LEN == 16
        && SGE_LEN == 16
        && sf::ADDR == 0
        && sf::LENGTH == 8
        && sf::LKEY == 12
        && recv_sge_capacity(5) == 1
        && owner_for(0, 1)
);

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum WqeFetchState {
    /// No read in progress: a command goes out as the DMA request.
    Idle,
    /// The read's response beats, each taken as it comes; the last ends the read.
    Rx,
}

#[derive(LogicBlock)]
pub struct RqWqeFetch {
    pub clock: Signal<In, Clock>,
    // ---- command ----
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    /// 0: the receive WQE at `rq_ci` (header and SGE 0); 1: its SGE `sge_index`
    pub cmd_sge: Signal<In, Bit>,
    /// the DMA tag of the read
    pub cmd_tag: Signal<In, Bits<8>>,
    // ---- the receive queue ----
    /// ring base IOVA
    pub rq_base: Signal<In, Bits<64>>,
    /// log2 of the ring's entries
    pub rq_log2_entries: Signal<In, Bits<LOG2E_W>>,
    /// log2 of the slot size in bytes (at least 5: a header and one SGE)
    pub rq_log2_stride: Signal<In, Bits<LOG2S_W>>,
    /// the free-running consumer index (the WQE's slot and its owner-bit pass)
    pub rq_ci: Signal<In, Bits<16>>,
    /// the SGE an SGE read fetches (1 = the second)
    pub sge_index: Signal<In, Bits<8>>,
    // ---- DMA ----
    pub dma_rd: DmaReadMaster<64, 8>,
    // ---- result ----
    /// one-cycle pulse with the read's last beat
    pub done: Signal<Out, Bit>,
    /// a beat of the last read carried `rsp_error`
    pub rd_error: Signal<Out, Bit>,
    /// the WQE's owner bit is the one the ring's pass at `rq_ci` expects
    pub owner_ok: Signal<Out, Bit>,
    /// the WQE's SGE count fits its slot
    pub nsge_ok: Signal<Out, Bit>,
    /// the WQE's SGE count
    pub wqe_nsge: Signal<Out, Bits<8>>,
    /// the WQE's length (its SGEs' total)
    pub wqe_len: Signal<Out, Bits<32>>,
    /// the WQE's wr_id
    pub wr_id: Signal<Out, Bits<64>>,
    /// the SGE read last: address, length, lkey
    pub sge_addr: Signal<Out, Bits<64>>,
    pub sge_len: Signal<Out, Bits<32>>,
    pub sge_lkey: Signal<Out, Bits<32>>,

    state: DFF<WqeFetchState>,
    /// the read in progress is an SGE read
    r_sge: DFF<Bit>,
    /// beats taken of the read in progress
    r_cnt: DFF<Bits<2>>,
    r_err: DFF<Bit>,
    /// the beats: WQE header, wr_id, SGE address, SGE length and lkey
    d0: DFF<Bits<64>>,
    d1: DFF<Bits<64>>,
    d2: DFF<Bits<64>>,
    d3: DFF<Bits<64>>,
    c_one16: Constant<Bits<16>>,
    ring_mask: Signal<Local, Bits<16>>,
    slot_addr: Signal<Local, Bits<64>>,
    ci_pass: Signal<Local, Bits<16>>,
    sge_cap: Signal<Local, Bits<16>>,
    fire: Signal<Local, Bit>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_wrid: ByteSwap64,
    le_sge_addr: ByteSwap64,
    le_len: ByteSwap32,
    le_sge_len: ByteSwap32,
    le_sge_lkey: ByteSwap32,
}

impl Default for RqWqeFetch {
    fn default() -> Self {
        Self {
            le_wrid: Default::default(),
            le_sge_addr: Default::default(),
            le_len: Default::default(),
            le_sge_len: Default::default(),
            le_sge_lkey: Default::default(),
            clock: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_sge: Default::default(),
            cmd_tag: Default::default(),
            rq_base: Default::default(),
            rq_log2_entries: Default::default(),
            rq_log2_stride: Default::default(),
            rq_ci: Default::default(),
            sge_index: Default::default(),
            dma_rd: Default::default(),
            done: Default::default(),
            rd_error: Default::default(),
            owner_ok: Default::default(),
            nsge_ok: Default::default(),
            wqe_nsge: Default::default(),
            wqe_len: Default::default(),
            wr_id: Default::default(),
            sge_addr: Default::default(),
            sge_len: Default::default(),
            sge_lkey: Default::default(),
            state: Default::default(),
            r_sge: Default::default(),
            r_cnt: Default::default(),
            r_err: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            d2: Default::default(),
            d3: Default::default(),
            c_one16: Constant::new(1u64.into()),
            ring_mask: Default::default(),
            slot_addr: Default::default(),
            ci_pass: Default::default(),
            sge_cap: Default::default(),
            fire: Default::default(),
        }
    }
}

impl Logic for RqWqeFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, r_sge, r_cnt, r_err, d0, d1, d2, d3);

        // RQ slot of the consumer index: base + (ci mod 2^log2e) << log2s; owner bit 1 on
        // even passes of the ring (ring::owner_for)
        self.ring_mask.next = (self.c_one16.val() << self.rq_log2_entries.val()) - 1;
        self.slot_addr.next = self.rq_base.val()
            + (bit_cast::<64, 16>(self.rq_ci.val() & self.ring_mask.val())
                << self.rq_log2_stride.val());
        self.ci_pass.next = self.rq_ci.val() >> self.rq_log2_entries.val();
        // SGEs a receive slot holds: (2^log2s - 16) / 16
        self.sge_cap.next = (self.c_one16.val() << (self.rq_log2_stride.val() - 4)) - 1;

        // ---- the decoded beats (little-endian fields, first byte in the beat's MSBs)
        self.owner_ok.next = self.d0.q.val().get_bit(56) == !self.ci_pass.val().get_bit(0);
        self.wqe_nsge.next = self.d0.q.val().get_bits::<8>(32);
        self.nsge_ok.next =
            bit_cast::<16, 8>(self.d0.q.val().get_bits::<8>(32)) <= self.sge_cap.val();
        self.le_len.inp.next = self.d0.q.val().get_bits::<32>(0);
        self.wqe_len.next = self.le_len.out.val();
        self.le_wrid.inp.next = self.d1.q.val();
        self.wr_id.next = self.le_wrid.out.val();
        self.le_sge_addr.inp.next = self.d2.q.val();
        self.sge_addr.next = self.le_sge_addr.out.val();
        self.le_sge_len.inp.next = self.d3.q.val().get_bits::<32>(32);
        self.sge_len.next = self.le_sge_len.out.val();
        self.le_sge_lkey.inp.next = self.d3.q.val().get_bits::<32>(0);
        self.sge_lkey.next = self.le_sge_lkey.out.val();
        self.rd_error.next = self.r_err.q.val();

        // ---- defaults: no request, no beat taken; the request's fields from the inputs (a
        // WQE: 32 bytes at its slot; an SGE: 16 bytes at slot + 16 + 16 x index)
        self.cmd_ready.next = false;
        self.done.next = false;
        self.dma_rd.req_valid.next = false;
        self.dma_rd.req_addr.next = self.slot_addr.val();
        self.dma_rd.req_len.next = 32.into();
        if self.cmd_sge.val() {
            self.dma_rd.req_addr.next =
                self.slot_addr.val() + 16 + (bit_cast::<64, 8>(self.sge_index.val()) << 4);
            self.dma_rd.req_len.next = 16.into();
        }
        self.dma_rd.req_tag.next = self.cmd_tag.val();
        self.dma_rd.rsp.ready.next = false;
        self.fire.next = false;

        match self.state.q.val() {
            WqeFetchState::Idle => {
                self.dma_rd.req_valid.next = self.cmd_valid.val();
                self.cmd_ready.next = self.dma_rd.req_ready.val();
                if self.cmd_valid.val() & self.dma_rd.req_ready.val() {
                    self.r_sge.d.next = self.cmd_sge.val();
                    self.r_cnt.d.next = 0.into();
                    self.r_err.d.next = false;
                    self.state.d.next = WqeFetchState::Rx;
                }
            }
            WqeFetchState::Rx => {
                self.dma_rd.rsp.ready.next = true;
                self.fire.next = self.dma_rd.rsp.valid.val();
                if self.fire.val() {
                    // a WQE's beats go to d0..d3, an SGE's to d2, d3 (the WQE's header and
                    // wr_id stay)
                    if !self.r_sge.q.val() & (self.r_cnt.q.val() == 0) {
                        self.d0.d.next = self.dma_rd.rsp.data.val();
                    }
                    if !self.r_sge.q.val() & (self.r_cnt.q.val() == 1) {
                        self.d1.d.next = self.dma_rd.rsp.data.val();
                    }
                    if (!self.r_sge.q.val() & (self.r_cnt.q.val() == 2))
                        | (self.r_sge.q.val() & (self.r_cnt.q.val() == 0))
                    {
                        self.d2.d.next = self.dma_rd.rsp.data.val();
                    }
                    if (!self.r_sge.q.val() & (self.r_cnt.q.val() == 3))
                        | (self.r_sge.q.val() & (self.r_cnt.q.val() == 1))
                    {
                        self.d3.d.next = self.dma_rd.rsp.data.val();
                    }
                    self.r_cnt.d.next = self.r_cnt.q.val() + 1;
                    if self.dma_rd.rsp_error.val() {
                        self.r_err.d.next = true;
                    }
                    if self.dma_rd.rsp.last.val() {
                        self.done.next = true;
                        self.state.d.next = WqeFetchState::Idle;
                    }
                }
            }
        }
    }
}

// ================= reference model ======================================================

/// What the block reports after a read, in plain Rust.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WqeFetchResult {
    pub rd_error: bool,
    pub owner_ok: bool,
    pub nsge_ok: bool,
    pub wqe_nsge: u8,
    pub wqe_len: u32,
    pub wr_id: u64,
    /// the SGE read last (SGE 0 of a WQE read)
    pub sge: Sge,
}

/// The reference model of one receive queue's reads, from `ferroce_proto`'s ring and WQE
/// definitions.
#[derive(Copy, Clone, Debug)]
pub struct RqWqeFetchModel {
    pub base: u64,
    pub log2_entries: u8,
    pub log2_stride: u8,
}

impl RqWqeFetchModel {
    fn ring(&self) -> Ring {
        Ring::new(RingKind::Recv, self.log2_entries, self.log2_stride).expect("a receive ring")
    }

    /// The DMA read (address, bytes) of the WQE at free-running index `ci` (header and SGE 0),
    /// or of its SGE `sge`.
    pub fn request(&self, ci: u32, sge: Option<u8>) -> (u64, usize) {
        let slot = self.base + self.ring().slot_offset(ci) as u64;
        match sge {
            None => (slot, RECV_HEADER_LEN + SGE_LEN),
            Some(k) => (
                slot + (RECV_HEADER_LEN + k as usize * SGE_LEN) as u64,
                SGE_LEN,
            ),
        }
    }

    /// The result after reading `bytes` (what [`Self::request`] addressed; `error`: a beat
    /// carried the read error). An SGE read (`prev` = the result before it) changes only the
    /// SGE and the error flag.
    pub fn decode(
        &self,
        bytes: &[u8],
        prev: Option<&WqeFetchResult>,
        ci: u32,
        error: bool,
    ) -> WqeFetchResult {
        if let Some(p) = prev {
            return WqeFetchResult {
                rd_error: error,
                sge: Sge::parse(bytes).expect("16 bytes"),
                ..*p
            };
        }
        let le32 = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let le64 = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let nsge = bytes[rf::NUM_SGE];
        WqeFetchResult {
            rd_error: error,
            owner_ok: (bytes[rf::OWNER] & 1 != 0) == self.ring().owner(ci),
            nsge_ok: nsge as usize <= recv_sge_capacity(self.log2_stride),
            wqe_nsge: nsge,
            wqe_len: le32(rf::LENGTH),
            wr_id: le64(rf::WR_ID),
            sge: Sge::parse(&bytes[rf::SGES..]).expect("16 bytes"),
        }
    }
}
