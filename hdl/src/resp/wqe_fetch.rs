//! [`RqWqeFetch`]: the responder's reads of its receive queue: a receive WQE (its header and
//! first SGEs at the RQ slot of the consumer index) or one later SGE of it (16 bytes, or from
//! the SGE buffer below), by DMA, decoded into fields and checked (the owner bit of the index's ring pass, the SGE
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
//!   `rq_pi` (free-running producer index: WQEs `rq_ci .. rq_pi` are posted), read with a WQE
//!   command for the read-ahead below. `flush`: drops the WQE read ahead (a QP load: a MODIFY
//!   may restart the ring at the same base).
//! * `dma_rd`: the DMA read master. In `Idle` a command is the DMA request itself
//!   (`req_valid` = `cmd_valid`, `cmd_ready` = `req_ready`: no cycle is added), except a
//!   command a buffer answers (`cmd_ready` high, no request); in `Rx` and `AheadRx` every
//!   response beat is taken at once (`rsp.ready` high). `busy`: the read ahead holds the port
//!   (a user sharing the port, the responder's atomic read, waits).
//! * `done`: a one-cycle pulse with the read's last beat (combinational), or the cycle after a
//!   command a buffer answered; the fields are valid
//!   from the next cycle until the next command: `rd_error` (a beat of the read carried
//!   `rsp_error`), `owner_ok`, `nsge_ok`, `wqe_nsge`, `wqe_len`, `wr_id` (from the last WQE
//!   read), `sge_addr`, `sge_len`, `sge_lkey` (from the last read: SGE 0 of a WQE read, or the
//!   SGE read).
//!
//! Per read: `Idle` (request accepted) -> `Rx` (2 + 2 x SGEs beats for a WQE, 2 for an SGE at
//! 64 bits) -> `Idle` with `done` on the last beat (-> `Ahead` to read the next WQE ahead).
//!
//! # The SGE buffer
//!
//! A WQE read takes the header and the first [`RQ_SGE_PREFETCH`] SGEs the slot holds in one
//! read, and keeps those SGEs. An SGE command for one of them, while the ring's base and
//! consumer index are still those of that WQE read, is answered from the buffer: no DMA read,
//! `done` the cycle after the command. The DMA read channel is in order and shared with
//! the requester's payload reads, so every read the responder saves is a wait behind those
//! (a SEND over four SGEs needed four reads, each waiting its turn). The buffer is dropped by
//! the next WQE read and by a read that failed. A failed WQE read (`rsp_error` on any beat: the
//! flag may come on a later beat than the fault, docs/DMA.md 6) is made again for the header
//! and SGE 0 only (`Retry`), so a fault in the later SGEs stays an SGE read's failure, as
//! without the buffer.
//!
//! # The WQE read ahead
//!
//! A SEND's receive WQE is read when its first packet arrives, and that read waits in the
//! in-order DMA read channel behind every payload read the requester has issued before it,
//! once per message. So after a WQE is taken whole (from a read that did not fail, or from this
//! buffer), if the next WQE of the ring is posted (`rq_pi - rq_ci >= 2`, modulo 2^16) the block
//! reads it at once (`Ahead`, `AheadRx`: header and first SGEs, as a WQE command would) into a
//! second buffer, keyed by the ring base and its index. A WQE command for exactly that WQE is
//! then answered from it: no read, `done` the next cycle, its SGEs moved into the SGE buffer,
//! and the WQE after it read ahead in turn. The owner bit and SGE count are checked on use as
//! for a read. The read ahead is dropped by any other WQE command, by a failed read ahead (the
//! command then reads), and by `flush`. While its beats arrive (`AheadRx`) only SGE commands
//! the SGE buffer answers are taken; any other command waits (its read would come after those
//! beats anyway). The host writes a WQE before ringing the RQ doorbell that posts it
//! (docs/HOST-INTERFACE.md section 5.3), so a WQE read ahead of a posted index is the one the
//! host wrote.
use crate::csr::qp_config::{LOG2E_W, LOG2S_W};
use crate::dma::DmaReadMaster;
use crate::widget::{ByteSwap32, ByteSwap64};
use ferroce_proto::host::ring::{owner_for, Ring, RingKind};
use ferroce_proto::host::wqe::{
    recv_field as rf, recv_sge_capacity, sge_field as sf, Sge, RECV_HEADER_LEN, SGE_LEN,
};
use rust_hdl::prelude::*;

/// SGEs a receive WQE's read takes with its header (fewer if the slot holds fewer): SENDs
/// scattered over up to this many SGEs need one DMA read per WQE.
pub const RQ_SGE_PREFETCH: usize = 4;
/// Beats of the header (owner/num_sge/length, wr_id) before SGE 0 in a WQE read.
const HDR_BEATS: usize = RECV_HEADER_LEN / 8;
// (`r_cnt` counts a WQE read's beats in 4 bits)
const _: () = assert!(HDR_BEATS + 2 * RQ_SGE_PREFETCH <= 16);

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
    /// The WQE read failed: the header and SGE 0 are read again on their own.
    Retry,
    /// The next posted WQE's read ahead is requested (`a_addr`, `a_len`).
    Ahead,
    /// Its response beats, each taken as it comes (into `a_*`); SGE buffer hits are answered
    /// meanwhile.
    AheadRx,
}

#[derive(LogicBlock)]
pub struct RqWqeFetch {
    pub clock: Signal<In, Clock>,
    // ---- command ----
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    /// 0: the receive WQE at `rq_ci` (header and first SGEs); 1: its SGE `sge_index`
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
    /// the free-running producer index (read with a WQE command: is the next WQE posted?)
    pub rq_pi: Signal<In, Bits<16>>,
    /// drop the WQE read ahead (a QP load)
    pub flush: Signal<In, Bit>,
    /// the read ahead's request or beats hold the DMA port (`Ahead`, `AheadRx`): a user that
    /// shares the port waits
    pub busy: Signal<Out, Bit>,
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
    r_cnt: DFF<Bits<4>>,
    r_err: DFF<Bit>,
    /// the read in progress is the header-only retry of a failed WQE read
    r_short: DFF<Bit>,
    /// the SGE buffer: SGE k's address beat and length/lkey beat, of the WQE read at ring
    /// base `b_base`, consumer index `b_ci`; `b_n` of them, valid while `b_ok`
    sga: [DFF<Bits<64>>; RQ_SGE_PREFETCH],
    sgl: [DFF<Bits<64>>; RQ_SGE_PREFETCH],
    b_ok: DFF<Bit>,
    b_n: DFF<Bits<8>>,
    b_base: DFF<Bits<64>>,
    b_ci: DFF<Bits<16>>,
    /// `done` next cycle: a command a buffer answered
    p_done: DFF<Bit>,
    /// The WQE read ahead: header beats, SGE beats, the ring base and index it belongs to,
    /// its SGE count; held while `a_valid`, whole once `a_done` (`a_err`: a beat failed).
    a_hdr: [DFF<Bits<64>>; HDR_BEATS],
    a_sga: [DFF<Bits<64>>; RQ_SGE_PREFETCH],
    a_sgl: [DFF<Bits<64>>; RQ_SGE_PREFETCH],
    a_valid: DFF<Bit>,
    a_done: DFF<Bit>,
    a_err: DFF<Bit>,
    a_base: DFF<Bits<64>>,
    a_ci: DFF<Bits<16>>,
    a_n: DFF<Bits<8>>,
    /// its request (latched when the WQE before it was taken) and the beats taken of it
    a_addr: DFF<Bits<64>>,
    a_len: DFF<Bits<16>>,
    a_tag: DFF<Bits<8>>,
    a_cnt: DFF<Bits<4>>,
    /// a `flush` came while its request waited: it is not kept
    a_kill: DFF<Bit>,
    /// the WQE after `rq_ci` is posted; its slot address
    nx_posted: Signal<Local, Bit>,
    nx_slot: Signal<Local, Bits<64>>,
    /// a WQE command the read ahead answers
    a_hit: Signal<Local, Bit>,
    /// a WQE was taken whole and the next is posted: read it ahead
    go_ahead: Signal<Local, Bit>,
    /// SGEs a WQE read takes: min(the slot's capacity, RQ_SGE_PREFETCH); its bytes
    b_fetch: Signal<Local, Bits<8>>,
    wqe_rd_len: Signal<Local, Bits<16>>,
    /// the SGE command is answered from the buffer; the buffered SGE `sge_index`
    hit: Signal<Local, Bit>,
    b_a: Signal<Local, Bits<64>>,
    b_l: Signal<Local, Bits<64>>,
    c_beat_a: [Constant<Bits<4>>; RQ_SGE_PREFETCH],
    c_beat_l: [Constant<Bits<4>>; RQ_SGE_PREFETCH],
    c_k: [Constant<Bits<8>>; RQ_SGE_PREFETCH],
    c_max: Constant<Bits<16>>,
    c_hdr_len: Constant<Bits<16>>,
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
            rq_pi: Default::default(),
            flush: Default::default(),
            busy: Default::default(),
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
            r_short: Default::default(),
            sga: Default::default(),
            sgl: Default::default(),
            b_ok: Default::default(),
            b_n: Default::default(),
            b_base: Default::default(),
            b_ci: Default::default(),
            p_done: Default::default(),
            a_hdr: Default::default(),
            a_sga: Default::default(),
            a_sgl: Default::default(),
            a_valid: Default::default(),
            a_done: Default::default(),
            a_err: Default::default(),
            a_base: Default::default(),
            a_ci: Default::default(),
            a_n: Default::default(),
            a_addr: Default::default(),
            a_len: Default::default(),
            a_tag: Default::default(),
            a_cnt: Default::default(),
            a_kill: Default::default(),
            nx_posted: Default::default(),
            nx_slot: Default::default(),
            a_hit: Default::default(),
            go_ahead: Default::default(),
            b_fetch: Default::default(),
            wqe_rd_len: Default::default(),
            hit: Default::default(),
            b_a: Default::default(),
            b_l: Default::default(),
            c_beat_a: core::array::from_fn(|k| Constant::new(((HDR_BEATS + 2 * k) as u64).into())),
            c_beat_l: core::array::from_fn(|k| {
                Constant::new(((HDR_BEATS + 2 * k + 1) as u64).into())
            }),
            c_k: core::array::from_fn(|k| Constant::new((k as u64).into())),
            c_max: Constant::new((RQ_SGE_PREFETCH as u64).into()),
            c_hdr_len: Constant::new((RECV_HEADER_LEN as u64).into()),
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
        dff_setup!(
            self, clock, state, r_sge, r_cnt, r_err, r_short, b_ok, b_n, b_base, b_ci, p_done,
            a_valid, a_done, a_err, a_base, a_ci, a_n, a_addr, a_len, a_tag, a_cnt, a_kill, d0, d1,
            d2, d3
        );
        for k in 0..RQ_SGE_PREFETCH {
            self.sga[k].clock.next = self.clock.val();
            self.sgl[k].clock.next = self.clock.val();
            self.sga[k].d.next = self.sga[k].q.val();
            self.sgl[k].d.next = self.sgl[k].q.val();
            self.a_sga[k].clock.next = self.clock.val();
            self.a_sgl[k].clock.next = self.clock.val();
            self.a_sga[k].d.next = self.a_sga[k].q.val();
            self.a_sgl[k].d.next = self.a_sgl[k].q.val();
        }
        for k in 0..HDR_BEATS {
            self.a_hdr[k].clock.next = self.clock.val();
            self.a_hdr[k].d.next = self.a_hdr[k].q.val();
        }

        // RQ slot of the consumer index: base + (ci mod 2^log2e) << log2s; owner bit 1 on
        // even passes of the ring (ring::owner_for)
        self.ring_mask.next = (self.c_one16.val() << self.rq_log2_entries.val()) - 1;
        self.slot_addr.next = self.rq_base.val()
            + (bit_cast::<64, 16>(self.rq_ci.val() & self.ring_mask.val())
                << self.rq_log2_stride.val());
        self.ci_pass.next = self.rq_ci.val() >> self.rq_log2_entries.val();
        // SGEs a receive slot holds: (2^log2s - 16) / 16
        self.sge_cap.next = (self.c_one16.val() << (self.rq_log2_stride.val() - 4)) - 1;
        // a WQE read: the header and the first SGEs the slot holds (16 bytes each)
        self.b_fetch.next = bit_cast::<8, 16>(self.c_max.val());
        if self.sge_cap.val() < self.c_max.val() {
            self.b_fetch.next = bit_cast::<8, 16>(self.sge_cap.val());
        }
        self.wqe_rd_len.next = self.c_hdr_len.val() + (bit_cast::<16, 8>(self.b_fetch.val()) << 4);
        // an SGE command the buffer answers: the same WQE (ring base and consumer index)
        self.hit.next = self.cmd_sge.val()
            & self.b_ok.q.val()
            & (self.sge_index.val() < self.b_n.q.val())
            & (self.rq_base.val() == self.b_base.q.val())
            & (self.rq_ci.val() == self.b_ci.q.val());
        // the next WQE: posted if at least two are (rq_pi - rq_ci >= 2, modulo 2^16), its slot
        self.nx_posted.next = (self.rq_pi.val() - self.rq_ci.val()) > 1;
        self.nx_slot.next = self.rq_base.val()
            + (bit_cast::<64, 16>((self.rq_ci.val() + 1) & self.ring_mask.val())
                << self.rq_log2_stride.val());
        // a WQE command the read ahead answers: that WQE, read whole
        self.a_hit.next = !self.cmd_sge.val()
            & self.a_valid.q.val()
            & self.a_done.q.val()
            & !self.a_err.q.val()
            & (self.rq_base.val() == self.a_base.q.val())
            & (self.rq_ci.val() == self.a_ci.q.val());
        self.b_a.next = self.sga[0].q.val();
        self.b_l.next = self.sgl[0].q.val();
        for k in 1..RQ_SGE_PREFETCH {
            if self.sge_index.val() == self.c_k[k].val() {
                self.b_a.next = self.sga[k].q.val();
                self.b_l.next = self.sgl[k].q.val();
            }
        }

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
        // WQE: the header and its first SGEs at its slot; an SGE: 16 bytes at slot + 16 + 16 x
        // index)
        self.cmd_ready.next = false;
        self.busy.next = (self.state.q.val() == WqeFetchState::Ahead)
            | (self.state.q.val() == WqeFetchState::AheadRx);
        self.done.next = self.p_done.q.val();
        self.p_done.d.next = false;
        if self.flush.val() {
            self.a_valid.d.next = false;
            self.a_kill.d.next = true;
        }
        self.dma_rd.req_valid.next = false;
        self.dma_rd.req_addr.next = self.slot_addr.val();
        self.dma_rd.req_len.next = self.wqe_rd_len.val();
        if self.cmd_sge.val() {
            self.dma_rd.req_addr.next =
                self.slot_addr.val() + 16 + (bit_cast::<64, 8>(self.sge_index.val()) << 4);
            self.dma_rd.req_len.next = 16.into();
        }
        self.dma_rd.req_tag.next = self.cmd_tag.val();
        self.dma_rd.rsp.ready.next = false;
        self.fire.next = false;
        self.go_ahead.next = false;

        match self.state.q.val() {
            WqeFetchState::Idle => {
                if self.p_done.q.val() {
                    // the answer from a buffer is `done` this cycle: the next command after it
                } else if self.hit.val() {
                    // an SGE from the buffer: taken at once, no read
                    self.cmd_ready.next = true;
                    if self.cmd_valid.val() {
                        self.d2.d.next = self.b_a.val();
                        self.d3.d.next = self.b_l.val();
                        self.r_err.d.next = false;
                        self.p_done.d.next = true;
                    }
                } else if self.a_hit.val() {
                    // the WQE read ahead: taken at once, no read; its SGEs become the SGE
                    // buffer, and the WQE after it is read ahead if posted
                    self.cmd_ready.next = true;
                    if self.cmd_valid.val() {
                        self.d0.d.next = self.a_hdr[0].q.val();
                        self.d1.d.next = self.a_hdr[1].q.val();
                        self.d2.d.next = self.a_sga[0].q.val();
                        self.d3.d.next = self.a_sgl[0].q.val();
                        for k in 0..RQ_SGE_PREFETCH {
                            self.sga[k].d.next = self.a_sga[k].q.val();
                            self.sgl[k].d.next = self.a_sgl[k].q.val();
                        }
                        self.b_ok.d.next = true;
                        self.b_n.d.next = self.a_n.q.val();
                        self.b_base.d.next = self.rq_base.val();
                        self.b_ci.d.next = self.rq_ci.val();
                        self.r_err.d.next = false;
                        self.p_done.d.next = true;
                        self.a_valid.d.next = false;
                        self.go_ahead.next = self.nx_posted.val();
                    }
                } else {
                    self.dma_rd.req_valid.next = self.cmd_valid.val();
                    self.cmd_ready.next = self.dma_rd.req_ready.val();
                    if self.cmd_valid.val() & self.dma_rd.req_ready.val() {
                        self.r_sge.d.next = self.cmd_sge.val();
                        self.r_cnt.d.next = 0.into();
                        self.r_err.d.next = false;
                        self.r_short.d.next = false;
                        self.state.d.next = WqeFetchState::Rx;
                        if !self.cmd_sge.val() {
                            // the buffer is this WQE's once its read has arrived whole; a WQE
                            // read ahead is some other one's: dropped
                            self.b_ok.d.next = false;
                            self.b_n.d.next = self.b_fetch.val();
                            self.b_base.d.next = self.rq_base.val();
                            self.b_ci.d.next = self.rq_ci.val();
                            self.a_valid.d.next = false;
                        }
                    }
                }
            }
            WqeFetchState::Retry => {
                // the header and SGE 0 alone (the ring inputs are still the command's)
                self.dma_rd.req_valid.next = true;
                self.dma_rd.req_addr.next = self.slot_addr.val();
                self.dma_rd.req_len.next = self.c_hdr_len.val() + 16;
                if self.dma_rd.req_ready.val() {
                    self.r_cnt.d.next = 0.into();
                    self.r_err.d.next = false;
                    self.r_short.d.next = true;
                    self.state.d.next = WqeFetchState::Rx;
                }
            }
            WqeFetchState::Rx => {
                self.dma_rd.rsp.ready.next = true;
                self.fire.next = self.dma_rd.rsp.valid.val();
                if self.fire.val() {
                    // a WQE's beats go to d0..d3 (and its SGEs to the buffer), an SGE's to d2,
                    // d3 (the WQE's header and wr_id stay)
                    for k in 0..RQ_SGE_PREFETCH {
                        if self.r_cnt.q.val() == self.c_beat_a[k].val() {
                            self.sga[k].d.next = self.dma_rd.rsp.data.val();
                        }
                        if self.r_cnt.q.val() == self.c_beat_l[k].val() {
                            self.sgl[k].d.next = self.dma_rd.rsp.data.val();
                        }
                    }
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
                        if !self.r_sge.q.val() {
                            self.b_ok.d.next = !self.r_short.q.val()
                                & !self.r_err.q.val()
                                & !self.dma_rd.rsp_error.val();
                            if !self.r_short.q.val()
                                & (self.r_err.q.val() | self.dma_rd.rsp_error.val())
                            {
                                // failed somewhere: the header and SGE 0 again, alone
                                self.done.next = false;
                                self.state.d.next = WqeFetchState::Retry;
                            } else {
                                // taken whole: the next WQE, if posted, is read ahead
                                self.go_ahead.next = !self.r_short.q.val() & self.nx_posted.val();
                            }
                        }
                    }
                }
            }
            WqeFetchState::Ahead => {
                // the read ahead's request; kept unless a `flush` came meanwhile
                self.dma_rd.req_valid.next = true;
                self.dma_rd.req_addr.next = self.a_addr.q.val();
                self.dma_rd.req_len.next = self.a_len.q.val();
                self.dma_rd.req_tag.next = self.a_tag.q.val();
                if self.dma_rd.req_ready.val() {
                    self.a_valid.d.next = !self.a_kill.q.val() & !self.flush.val();
                    self.a_done.d.next = false;
                    self.a_err.d.next = false;
                    self.a_cnt.d.next = 0.into();
                    self.state.d.next = WqeFetchState::AheadRx;
                }
            }
            WqeFetchState::AheadRx => {
                self.dma_rd.rsp.ready.next = true;
                if self.dma_rd.rsp.valid.val() {
                    if self.a_cnt.q.val() == 0 {
                        self.a_hdr[0].d.next = self.dma_rd.rsp.data.val();
                    }
                    if self.a_cnt.q.val() == 1 {
                        self.a_hdr[1].d.next = self.dma_rd.rsp.data.val();
                    }
                    for k in 0..RQ_SGE_PREFETCH {
                        if self.a_cnt.q.val() == self.c_beat_a[k].val() {
                            self.a_sga[k].d.next = self.dma_rd.rsp.data.val();
                        }
                        if self.a_cnt.q.val() == self.c_beat_l[k].val() {
                            self.a_sgl[k].d.next = self.dma_rd.rsp.data.val();
                        }
                    }
                    self.a_cnt.d.next = self.a_cnt.q.val() + 1;
                    if self.dma_rd.rsp_error.val() {
                        self.a_err.d.next = true;
                    }
                    if self.dma_rd.rsp.last.val() {
                        self.a_done.d.next = true;
                        self.state.d.next = WqeFetchState::Idle;
                    }
                }
                // meanwhile an SGE the SGE buffer holds is answered
                if self.hit.val() & !self.p_done.q.val() {
                    self.cmd_ready.next = true;
                    if self.cmd_valid.val() {
                        self.d2.d.next = self.b_a.val();
                        self.d3.d.next = self.b_l.val();
                        self.r_err.d.next = false;
                        self.p_done.d.next = true;
                    }
                }
            }
        }
        // a WQE taken whole (read, or from the read ahead) with the next one posted: its read
        // ahead is requested next (the ring inputs are still the command's)
        if self.go_ahead.val() {
            self.a_base.d.next = self.rq_base.val();
            self.a_ci.d.next = self.rq_ci.val() + 1;
            self.a_n.d.next = self.b_fetch.val();
            self.a_addr.d.next = self.nx_slot.val();
            self.a_len.d.next = self.wqe_rd_len.val();
            self.a_tag.d.next = self.cmd_tag.val();
            self.a_kill.d.next = self.flush.val();
            self.state.d.next = WqeFetchState::Ahead;
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

    /// SGEs a WQE read takes with the header (and the buffer then holds).
    pub fn sges_read_with_wqe(&self) -> usize {
        recv_sge_capacity(self.log2_stride).min(RQ_SGE_PREFETCH)
    }

    /// Whether SGE `sge` of the WQE just read (successfully) comes from the buffer, no read.
    pub fn sge_buffered(&self, sge: u8) -> bool {
        (sge as usize) < self.sges_read_with_wqe()
    }

    /// The DMA read (address, bytes) of the WQE at free-running index `ci` (header and the
    /// first SGEs), or of its SGE `sge` (when not buffered).
    pub fn request(&self, ci: u32, sge: Option<u8>) -> (u64, usize) {
        let slot = self.base + self.ring().slot_offset(ci) as u64;
        match sge {
            None => (slot, RECV_HEADER_LEN + SGE_LEN * self.sges_read_with_wqe()),
            Some(k) => (
                slot + (RECV_HEADER_LEN + k as usize * SGE_LEN) as u64,
                SGE_LEN,
            ),
        }
    }

    /// Whether taking the WQE at `ci` whole makes the block read the next one ahead: it is
    /// posted (`pi - ci >= 2`, modulo 2^16, the free-running indices).
    pub fn reads_ahead(ci: u32, pi: u32) -> bool {
        (pi.wrapping_sub(ci) & 0xFFFF) >= 2
    }

    /// The read made again after a failed WQE read: the header and SGE 0 alone.
    pub fn retry_request(&self, ci: u32) -> (u64, usize) {
        (
            self.base + self.ring().slot_offset(ci) as u64,
            RECV_HEADER_LEN + SGE_LEN,
        )
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
