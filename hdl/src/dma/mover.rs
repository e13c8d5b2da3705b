//! [`PayloadMover`]: the data mover of both RC engines. It owns a payload stream's cutter and
//! the DMA write port, and runs one job at a time while its engine's state machine goes on.
//! The responder ([`crate::resp::RcWriteResponder`]) places WRITE and SEND payloads and
//! atomics' new values with it; the requester ([`crate::req::RcRequester`]) places READ
//! responses' payloads and atomics' original values.
//!
//! Why (the responder): a WRITE packet's header is judged in about 13 cycles, its 1 KiB payload takes 128 beats.
//! Done one after the other, a stream of WRITE packets is taken slower than the link delivers it.
//! With the payload handed over as a job, the state machine takes and judges the next header
//! while this block moves the previous payload, so the responder keeps up with the line
//! (`resp_write::write_packets_taken_at_line_rate`). The block's own bench is
//! `hdl/tests/dma_mover.rs`.
//!
//! # Jobs (`job_valid`/`job_ready` and the `job_*` fields, registered as a [`MoverJob`])
//!
//! * place (`job_discard` and `job_word_job` low): cut the next `job_len` bytes of the packet's
//!   payload and write them to host address `job_addr` as one DMA write tagged `job_tag` (a
//!   WRITE packet's payload, or one piece of a SEND packet's payload that ends at a receive
//!   SGE's end);
//! * discard (`job_discard`): cut the next `job_len` bytes and drop them (what is left of a
//!   packet after a receive error);
//! * word (`job_word_job`): write the 8 bytes of `job_word` to `job_addr` (an atomic's new
//!   value); the payload stream is not touched.
//!
//! A payload job's length is never 0, and a packet's payload jobs add up to exactly its payload
//! length; the last of them has `job_end` set. An engine never gives a job it cannot finish
//! (docs/DMA.md: a write's data are exactly its `req_len` bytes).
//!
//! # The payload gate
//!
//! The payload stream `pay` carries packet after packet. Its beats enter the cutter only from
//! the first cut of a packet on (`in_cut`), and no beat after the packet's last one (`pay_done`)
//! enters until the job with `end` is done: so the cutter never takes the next packet's bytes
//! early, and an engine that discards a packet without a job (it reads `pay` itself while
//! this block is idle, `busy` low) sees that packet's first beat.
//!
//! # Timing
//!
//! `job_ready` is `!busy`, a register. A job is registered when taken; the next cycle its cut,
//! its request and its data go side by side (the DMA shell may want the request before it
//! takes data: docs/DMA.md 4). The job is done the cycle after both the request and the last
//! data beat were taken (decided from two registers, so no stream handshake reaches the job
//! register's enables), and the next job can be taken the cycle after that: a 1 KiB payload
//! costs its 128 beats plus 3 cycles. The data leave through a register slice ([`StreamSkid`]).
//!
//! The request's fields, `wr_valid` and `data.valid` never depend on `wr_ready` or
//! `data.ready` in the same cycle.
use crate::stream::{StreamSink, StreamSource};
use crate::widget::{StreamCutter, StreamSkid};
use rust_hdl::prelude::*;

/// One job of the [`PayloadMover`] as its register holds it (module documentation; the ports
/// are the same fields, flat, so that the block co-simulates on its own).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct MoverJob {
    /// Host address of the DMA write (the MR check's translation).
    pub addr: Bits<64>,
    /// Bytes of the payload to cut (never 0); a word job writes 8 whatever `len` says.
    pub len: Bits<16>,
    /// The DMA write's tag.
    pub tag: Bits<8>,
    /// Drop the bytes: no DMA write.
    pub discard: Bit,
    /// Write `word` (8 bytes, first byte in the MSBs), not payload bytes.
    pub word_job: Bit,
    pub word: Bits<64>,
    /// The last payload job of the packet: the payload gate resets when it is done.
    pub end: Bit,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MoverState {
    /// no job: `job_ready` high
    Idle,
    /// a payload job: its cut, its DMA request (none for a discard) and its data (dropped for
    /// a discard) side by side; done the cycle after the request and the last beat were taken
    Move,
    /// a word job: its request and its single beat side by side
    Word,
}

#[derive(LogicBlock)]
pub struct PayloadMover {
    pub clock: Signal<In, Clock>,
    // ---- jobs ----
    pub job_valid: Signal<In, Bit>,
    pub job_ready: Signal<Out, Bit>,
    pub job_addr: Signal<In, Bits<64>>,
    pub job_len: Signal<In, Bits<16>>,
    pub job_tag: Signal<In, Bits<8>>,
    pub job_discard: Signal<In, Bit>,
    pub job_word_job: Signal<In, Bit>,
    pub job_word: Signal<In, Bits<64>>,
    pub job_end: Signal<In, Bit>,
    /// A job is held (taken and not done).
    pub busy: Signal<Out, Bit>,
    // ---- the payload stream (packets one after the other) ----
    pub pay: StreamSink<64, 8>,
    // ---- the DMA write port's request and data ----
    pub wr_valid: Signal<Out, Bit>,
    pub wr_ready: Signal<In, Bit>,
    pub wr_addr: Signal<Out, Bits<64>>,
    pub wr_len: Signal<Out, Bits<16>>,
    pub wr_tag: Signal<Out, Bits<8>>,
    pub data: StreamSource<64, 8>,

    cutter: StreamCutter,
    wdat: StreamSkid<64, 8>,
    state: DFF<MoverState>,
    /// the job taken
    j: DFF<MoverJob>,
    /// its cut was taken
    cutd: DFF<Bit>,
    /// its request was taken (a discard has none: set when the job is taken)
    reqd: DFF<Bit>,
    /// its last data beat was taken
    datad: DFF<Bit>,
    /// a cut of the current packet was taken: its payload beats may enter the cutter
    in_cut: DFF<Bit>,
    /// the current packet's last beat entered the cutter: no more beats until its end job is done
    pay_done: DFF<Bit>,
    c_word_len: Constant<Bits<16>>,
    c_keep_all: Constant<Bits<8>>,
}

impl Default for PayloadMover {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_addr: Default::default(),
            job_len: Default::default(),
            job_tag: Default::default(),
            job_discard: Default::default(),
            job_word_job: Default::default(),
            job_word: Default::default(),
            job_end: Default::default(),
            busy: Default::default(),
            pay: Default::default(),
            wr_valid: Default::default(),
            wr_ready: Default::default(),
            wr_addr: Default::default(),
            wr_len: Default::default(),
            wr_tag: Default::default(),
            data: Default::default(),
            cutter: Default::default(),
            wdat: Default::default(),
            state: Default::default(),
            j: Default::default(),
            cutd: Default::default(),
            reqd: Default::default(),
            datad: Default::default(),
            in_cut: Default::default(),
            pay_done: Default::default(),
            c_word_len: Constant::new(8.into()),
            c_keep_all: Constant::new(0xFF.into()),
        }
    }
}

impl Logic for PayloadMover {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, cutter, wdat);
        dff_setup!(self, clock, state, j, cutd, reqd, datad, in_cut, pay_done);
        // ---- defaults ----
        self.busy.next = self.state.q.val() != MoverState::Idle;
        self.job_ready.next = self.state.q.val() == MoverState::Idle;
        // the payload gate (module documentation)
        self.cutter.inp.valid.next =
            self.pay.valid.val() & self.in_cut.q.val() & !self.pay_done.q.val();
        self.cutter.inp.data.next = self.pay.data.val();
        self.cutter.inp.keep.next = self.pay.keep.val();
        self.cutter.inp.last.next = self.pay.last.val();
        self.pay.ready.next =
            self.cutter.inp.ready.val() & self.in_cut.q.val() & !self.pay_done.q.val();
        if self.cutter.inp.valid.val() & self.cutter.inp.ready.val() & self.pay.last.val() {
            self.pay_done.d.next = true;
        }
        self.cutter.cut_valid.next = false;
        self.cutter.cut_len.next = self.j.q.val().len;
        self.cutter.out.ready.next = false;
        // the request
        self.wr_valid.next = false;
        self.wr_addr.next = self.j.q.val().addr;
        self.wr_len.next = self.j.q.val().len;
        self.wr_tag.next = self.j.q.val().tag;
        // the data, through the register slice
        self.wdat.inp.valid.next = false;
        self.wdat.inp.data.next = self.cutter.out.data.val();
        self.wdat.inp.keep.next = self.cutter.out.keep.val();
        self.wdat.inp.last.next = self.cutter.out.last.val();
        self.data.valid.next = self.wdat.out.valid.val();
        self.data.data.next = self.wdat.out.data.val();
        self.data.keep.next = self.wdat.out.keep.val();
        self.data.last.next = self.wdat.out.last.val();
        self.wdat.out.ready.next = self.data.ready.val();

        match self.state.q.val() {
            MoverState::Idle => {
                if self.job_valid.val() {
                    self.j.d.next.addr = self.job_addr.val();
                    self.j.d.next.len = self.job_len.val();
                    self.j.d.next.tag = self.job_tag.val();
                    self.j.d.next.discard = self.job_discard.val();
                    self.j.d.next.word_job = self.job_word_job.val();
                    self.j.d.next.word = self.job_word.val();
                    self.j.d.next.end = self.job_end.val();
                    self.cutd.d.next = false;
                    self.reqd.d.next = self.job_discard.val();
                    self.datad.d.next = false;
                    self.state.d.next = MoverState::Move;
                    if self.job_word_job.val() {
                        self.state.d.next = MoverState::Word;
                    }
                }
            }
            MoverState::Move => {
                self.cutter.cut_valid.next = !self.cutd.q.val();
                if !self.cutd.q.val() & self.cutter.cut_ready.val() {
                    self.cutd.d.next = true;
                    self.in_cut.d.next = true;
                }
                self.wr_valid.next = !self.reqd.q.val();
                if !self.reqd.q.val() & self.wr_ready.val() {
                    self.reqd.d.next = true;
                }
                if self.j.q.val().discard {
                    // dropped as it leaves the cutter
                    self.cutter.out.ready.next = !self.datad.q.val();
                } else {
                    self.wdat.inp.valid.next = self.cutter.out.valid.val() & !self.datad.q.val();
                    self.cutter.out.ready.next = self.wdat.inp.ready.val() & !self.datad.q.val();
                }
                if self.cutter.out.valid.val()
                    & self.cutter.out.ready.val()
                    & self.cutter.out.last.val()
                {
                    self.datad.d.next = true;
                }
                if self.reqd.q.val() & self.datad.q.val() {
                    self.state.d.next = MoverState::Idle;
                    if self.j.q.val().end {
                        // the packet's payload is all cut: the gate waits for the next packet
                        self.in_cut.d.next = false;
                        self.pay_done.d.next = false;
                    }
                }
            }
            MoverState::Word => {
                self.wr_valid.next = !self.reqd.q.val();
                self.wr_len.next = self.c_word_len.val();
                if !self.reqd.q.val() & self.wr_ready.val() {
                    self.reqd.d.next = true;
                }
                self.wdat.inp.valid.next = !self.datad.q.val();
                self.wdat.inp.data.next = self.j.q.val().word;
                self.wdat.inp.keep.next = self.c_keep_all.val();
                self.wdat.inp.last.next = true;
                if !self.datad.q.val() & self.wdat.inp.ready.val() {
                    self.datad.d.next = true;
                }
                if self.reqd.q.val() & self.datad.q.val() {
                    self.state.d.next = MoverState::Idle;
                }
            }
        }
    }
}

/// One DMA write the mover issues: its request and its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoverWrite {
    pub addr: u64,
    pub tag: u8,
    pub data: Vec<u8>,
}

/// A job as the reference model takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoverModelJob {
    /// `len` payload bytes to `addr` (`tag`); `end`: the packet's last job
    Place {
        addr: u64,
        len: usize,
        tag: u8,
        end: bool,
    },
    /// `len` payload bytes dropped
    Discard { len: usize, end: bool },
    /// 8 bytes of `word` (first byte in the MSBs) to `addr`
    Word { addr: u64, tag: u8, word: u64 },
}

/// Reference model of [`PayloadMover`]: the DMA writes, in order, that `jobs` make of the
/// payloads `packets` (each packet's payload jobs cover it exactly). Panics on a job list that
/// breaks the block's contract (a zero length, jobs past a packet's end, an `end` that does
/// not end the packet).
pub fn mover_model(jobs: &[MoverModelJob], packets: &[Vec<u8>]) -> Vec<MoverWrite> {
    let mut out = vec![];
    let mut pk = packets.iter();
    let mut cur: Option<&Vec<u8>> = None;
    let mut at = 0;
    let mut take = |len: usize, end: bool| -> Vec<u8> {
        assert!(len > 0, "a payload job of 0 bytes");
        let p = *cur.get_or_insert_with(|| pk.next().expect("a job past the last packet"));
        assert!(at + len <= p.len(), "a job past the packet's end");
        let bytes = p[at..at + len].to_vec();
        at += len;
        assert_eq!(end, at == p.len(), "`end` exactly on the packet's last job");
        if end {
            cur = None;
            at = 0;
        }
        bytes
    };
    for j in jobs {
        match *j {
            MoverModelJob::Place {
                addr,
                len,
                tag,
                end,
            } => {
                let data = take(len, end);
                out.push(MoverWrite { addr, tag, data });
            }
            MoverModelJob::Discard { len, end } => {
                take(len, end);
            }
            MoverModelJob::Word { addr, tag, word } => out.push(MoverWrite {
                addr,
                tag,
                data: word.to_be_bytes().to_vec(),
            }),
        }
    }
    out
}
