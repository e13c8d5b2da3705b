//! Shared by the benches of the DMA shells (`board_dma_axi4`, `board_host_memory`): the NIC
//! side of the DMA port, driven as the contract allows (docs/DMA.md): requests held until
//! taken, presented after random gaps; write data presented after random gaps, possibly
//! before its request is taken (section 4); random `ready` on the read response. It checks
//! what the contract fixes for every shell (each response beat held while not taken, the
//! request's tag on every beat, `keep` contiguous from the top and full before the last beat,
//! exactly `len` bytes, responses and completions in request order with the request's tag)
//! and hands the test what depends on the shell: the bytes and error flags of each response,
//! the writes as they are accepted, and each completion's error flag.
#![allow(dead_code)]
use ferroce_hdl::dma::DmaSlave;
use ferroce_hdl::testbench::Rng;
use std::collections::VecDeque;

/// A DMA request (read or write).
#[derive(Clone, Copy, Debug)]
pub struct Req {
    pub addr: u64,
    pub len: usize,
    pub tag: u8,
}

/// What happened at one clock edge, for the test to check against its own memory model.
#[derive(Default)]
pub struct Sampled {
    /// A write request was taken (with its data): the memory model applies it now.
    pub wr_accepted: Option<(Req, Vec<u8>)>,
    /// A read's response is complete: the request, its bytes, `rsp_error` of each beat.
    pub read: Option<(Req, Vec<u8>, Vec<bool>)>,
    /// A write completed: the request and `done_error`.
    pub done: Option<(Req, bool)>,
}

/// The NIC side of a `DmaSlave<64, 8>`.
#[derive(Default)]
pub struct NicDriver {
    /// Reads to issue, in order.
    pub rd_todo: VecDeque<Req>,
    rd_shown: bool,
    /// Reads taken, awaiting their response.
    pub rd_expect: VecDeque<Req>,
    rd_bytes: Vec<u8>,
    rd_errs: Vec<bool>,
    held_rsp: Option<(u64, u64, bool, u64, bool)>,
    /// Writes to issue, in order, with their data.
    pub wr_todo: VecDeque<(Req, Vec<u8>)>,
    wr_shown: bool,
    /// data beats of every write not yet sent, in request order: (data, keep, last)
    wr_beats: VecDeque<(u64, u64, bool)>,
    wr_beat_shown: bool,
    /// Writes taken, awaiting their completion.
    pub wr_expect: VecDeque<Req>,
}

impl NicDriver {
    pub fn push_read(&mut self, addr: u64, len: usize, tag: u8) {
        self.rd_todo.push_back(Req { addr, len, tag });
    }

    /// Queues a write and its data beats (the first byte in the MSB of the first beat).
    pub fn push_write(&mut self, addr: u64, data: Vec<u8>, tag: u8) {
        let nb = data.len().div_ceil(8);
        for (i, c) in data.chunks(8).enumerate() {
            let mut d = 0u64;
            for (j, x) in c.iter().enumerate() {
                d |= (*x as u64) << (56 - 8 * j);
            }
            self.wr_beats
                .push_back((d, (0xFF00u64 >> c.len()) & 0xFF, i + 1 == nb));
        }
        let len = data.len();
        self.wr_todo.push_back((Req { addr, len, tag }, data));
    }

    /// Before settle: drive the NIC's outputs (`valid` percent for requests and data,
    /// `ready` percent for the response).
    pub fn drive(&mut self, dma: &mut DmaSlave<64, 8>, rng: &mut Rng, valid: u32, ready: u32) {
        if !self.rd_shown && !self.rd_todo.is_empty() {
            self.rd_shown = rng.percent(valid);
        }
        let r = self.rd_todo.front();
        dma.rd.req_valid.next = self.rd_shown;
        dma.rd.req_addr.next = r.map_or(0, |r| r.addr).into();
        dma.rd.req_len.next = (r.map_or(0, |r| r.len) as u64).into();
        dma.rd.req_tag.next = (r.map_or(0, |r| r.tag) as u64).into();
        dma.rd.rsp.ready.next = rng.percent(ready);
        if !self.wr_shown && !self.wr_todo.is_empty() {
            self.wr_shown = rng.percent(valid);
        }
        let w = self.wr_todo.front().map(|(r, _)| r);
        dma.wr.req_valid.next = self.wr_shown;
        dma.wr.req_addr.next = w.map_or(0, |r| r.addr).into();
        dma.wr.req_len.next = (w.map_or(0, |r| r.len) as u64).into();
        dma.wr.req_tag.next = (w.map_or(0, |r| r.tag) as u64).into();
        // write data may be presented before its request is taken (docs/DMA.md 4)
        if !self.wr_beat_shown && !self.wr_beats.is_empty() {
            self.wr_beat_shown = rng.percent(valid);
        }
        let b = self.wr_beats.front().copied().unwrap_or((0, 0, false));
        dma.wr.data.valid.next = self.wr_beat_shown;
        dma.wr.data.data.next = b.0.into();
        dma.wr.data.keep.next = b.1.into();
        dma.wr.data.last.next = b.2;
    }

    /// After settle, before the edge: this cycle's handshakes.
    pub fn sample(&mut self, dma: &DmaSlave<64, 8>) -> Sampled {
        let mut out = Sampled::default();
        if dma.rd.req_valid.val() && dma.rd.req_ready.val() {
            let r = self.rd_todo.pop_front().unwrap();
            self.rd_expect.push_back(r);
            self.rd_shown = false;
        }
        let rsp = &dma.rd.rsp;
        let now = (
            rsp.data.val().to_u64(),
            rsp.keep.val().to_u64(),
            rsp.last.val(),
            dma.rd.rsp_tag.val().to_u64(),
            dma.rd.rsp_error.val(),
        );
        if let Some(h) = self.held_rsp.take() {
            assert!(
                rsp.valid.val() && now == h,
                "response beat withdrawn or changed"
            );
        }
        if rsp.valid.val() && !rsp.ready.val() {
            self.held_rsp = Some(now);
        }
        if rsp.valid.val() && rsp.ready.val() {
            let req = self
                .rd_expect
                .front()
                .expect("a response beat without a request");
            let (data, keep, last, tag, e) = now;
            assert_eq!(tag, req.tag as u64, "rsp_tag");
            let n = (keep as u8).leading_ones() as usize;
            assert!(n >= 1 && keep == (0xFF00u64 >> n) & 0xFF, "keep {keep:#x}");
            assert!(last || n == 8, "short beat before last");
            for i in 0..n {
                self.rd_bytes.push((data >> (56 - 8 * i)) as u8);
            }
            self.rd_errs.push(e);
            assert!(
                self.rd_bytes.len() <= req.len,
                "response longer than {} bytes",
                req.len
            );
            if last {
                assert_eq!(self.rd_bytes.len(), req.len, "response length");
                let req = self.rd_expect.pop_front().unwrap();
                out.read = Some((
                    req,
                    std::mem::take(&mut self.rd_bytes),
                    std::mem::take(&mut self.rd_errs),
                ));
            }
        }
        if dma.wr.req_valid.val() && dma.wr.req_ready.val() {
            let (r, data) = self.wr_todo.pop_front().unwrap();
            self.wr_expect.push_back(r);
            out.wr_accepted = Some((r, data));
            self.wr_shown = false;
        }
        if dma.wr.data.valid.val() && dma.wr.data.ready.val() {
            self.wr_beats.pop_front();
            self.wr_beat_shown = false;
        }
        if dma.wr.done_valid.val() {
            let r = self.wr_expect.pop_front().expect("done without a write");
            assert_eq!(dma.wr.done_tag.val().to_u64(), r.tag as u64, "done_tag");
            out.done = Some((r, dma.wr.done_error.val()));
        }
        out
    }

    /// Every request issued and answered.
    pub fn idle(&self) -> bool {
        self.rd_todo.is_empty()
            && self.rd_expect.is_empty()
            && self.wr_todo.is_empty()
            && self.wr_expect.is_empty()
    }
}
