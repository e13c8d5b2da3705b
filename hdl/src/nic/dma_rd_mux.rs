//! `DmaReadMux`: shares the DMA read channel (docs/DMA.md) between the RC responder's receive
//! WQE and SGE fetches (`a`) and the requester's send WQE, SGE and payload gather reads (`b`).
//!
//! A read request is a single handshake with no data beats on the request side, so the
//! channel is arbitrated per request. A request shown on `out` must stay there unchanged until
//! it is accepted (AXI rule; the shell checks it), so the choice is free only while nothing
//! waits on `out`: then `a` wins if both request (as when both start in the same cycle), and
//! `b` is shown if `a` does not request. Once `b`'s request is on `out` and not accepted
//! at the edge (`out.req_ready` low), `hold_b` keeps `b` selected (`sel_b`) until its handshake,
//! even if `a` starts requesting meanwhile: `a` then waits (its `req_ready` stays 0) and, as
//! it holds its own request, goes next. The reverse needs no register: `a` keeps requesting
//! until accepted, so once shown it stays selected. `out.req_valid`, the request fields and
//! the selection depend only on the valids and registers, never on `out.req_ready`. Nothing is
//! shown while the owner queue (below) is full, and it grows only on an accepted request, so a
//! request waiting on `out` is never withdrawn for that reason either.
//!
//! Responses come back in request order, one whole response (`last` on its final beat) per
//! request, so the owner of every request in flight is kept in order (`own`, a bit queue of up
//! to 32 reads: bit 0 is the oldest, 1 = `b`; `own_n` counts them) and the response stream and
//! its `rsp_tag`/`rsp_error` sidebands go to the owner of the oldest request, whose `rsp.ready`
//! back-pressures the shell; the other master sees `rsp.valid = 0`. The owner is popped when
//! the beat with `last` is transferred (a request accepted in the same cycle is pushed behind
//! the pop). With 32 reads in flight no request is accepted until one completes, and with none
//! in flight `out.rsp.ready` is 0 (a response without a request is a shell bug).
use crate::dma::{DmaReadMaster, DmaReadSlave};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct DmaReadMux {
    pub clock: Signal<In, Clock>,
    /// The responder's receive WQE and SGE fetches: wins a tie, but waits behind a request of
    /// `b` that is already on `out`.
    pub a: DmaReadSlave<64, 8>,
    /// The requester's send WQE, SGE and payload reads: shown when `a` does not request, and
    /// then kept on `out` until accepted.
    pub b: DmaReadSlave<64, 8>,
    /// To the shell: a request shown here stays unchanged until `req_ready`.
    pub out: DmaReadMaster<64, 8>,
    own: DFF<Bits<32>>,
    own_n: DFF<Bits<6>>,
    /// b's request was on `out` and not accepted at the last edge: keep it there
    hold_b: DFF<Bit>,
    /// `out` shows b's request (`a` does not request, or `hold_b`)
    sel_b: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    busy: Signal<Local, Bit>,
    head_b: Signal<Local, Bit>,
    req_fire: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    popped: Signal<Local, Bits<32>>,
    n1: Signal<Local, Bits<6>>,
    mine_b: Signal<Local, Bits<32>>,
}

impl Default for DmaReadMux {
    fn default() -> Self {
        DmaReadMux {
            clock: Default::default(),
            a: Default::default(),
            b: Default::default(),
            out: Default::default(),
            own: Default::default(),
            own_n: Default::default(),
            full: Default::default(),
            busy: Default::default(),
            head_b: Default::default(),
            req_fire: Default::default(),
            pop: Default::default(),
            popped: Default::default(),
            n1: Default::default(),
            mine_b: Default::default(),
            hold_b: Default::default(),
            sel_b: Default::default(),
        }
    }
}

impl Logic for DmaReadMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, own, own_n, hold_b);
        // queue state (registered only: nothing here depends on a ready)
        self.full.next = self.own_n.q.val().get_bit(5);
        self.busy.next = self.own_n.q.val() != 0;
        self.head_b.next = self.own.q.val().get_bit(0);
        // requests: a wins unless b is held on `out`; nothing shown while the queue is full
        self.out.req_valid.next =
            (self.a.req_valid.val() | self.b.req_valid.val()) & !self.full.val();
        self.out.req_addr.next = self.a.req_addr.val();
        self.out.req_len.next = self.a.req_len.val();
        self.out.req_tag.next = self.a.req_tag.val();
        // b is offered when a does not request, and stays offered once shown until it is
        // accepted (AXI: a request on `out` must not change before its handshake)
        self.sel_b.next = !self.a.req_valid.val() | self.hold_b.q.val();
        self.mine_b.next = 0.into();
        if self.sel_b.val() {
            self.out.req_addr.next = self.b.req_addr.val();
            self.out.req_len.next = self.b.req_len.val();
            self.out.req_tag.next = self.b.req_tag.val();
            self.mine_b.next = 1.into();
        }
        self.a.req_ready.next = self.out.req_ready.val() & !self.full.val() & !self.sel_b.val();
        self.b.req_ready.next = self.out.req_ready.val() & !self.full.val() & self.sel_b.val();
        self.req_fire.next = self.out.req_valid.val() & self.out.req_ready.val();
        self.hold_b.d.next = self.out.req_valid.val()
            & !self.out.req_ready.val()
            & self.sel_b.val()
            & self.b.req_valid.val();
        // responses: to the owner of the oldest request in flight
        self.a.rsp.data.next = self.out.rsp.data.val();
        self.a.rsp.keep.next = self.out.rsp.keep.val();
        self.a.rsp.last.next = self.out.rsp.last.val();
        self.a.rsp_tag.next = self.out.rsp_tag.val();
        self.a.rsp_error.next = self.out.rsp_error.val();
        self.b.rsp.data.next = self.out.rsp.data.val();
        self.b.rsp.keep.next = self.out.rsp.keep.val();
        self.b.rsp.last.next = self.out.rsp.last.val();
        self.b.rsp_tag.next = self.out.rsp_tag.val();
        self.b.rsp_error.next = self.out.rsp_error.val();
        self.a.rsp.valid.next = self.out.rsp.valid.val() & self.busy.val() & !self.head_b.val();
        self.b.rsp.valid.next = self.out.rsp.valid.val() & self.busy.val() & self.head_b.val();
        self.out.rsp.ready.next = false;
        if self.busy.val() {
            if self.head_b.val() {
                self.out.rsp.ready.next = self.b.rsp.ready.val();
            } else {
                self.out.rsp.ready.next = self.a.rsp.ready.val();
            }
        }
        self.pop.next =
            self.out.rsp.valid.val() & self.out.rsp.ready.val() & self.out.rsp.last.val();
        // owner queue: pop the head on the last beat, push the new owner behind it
        self.popped.next = self.own.q.val();
        self.n1.next = self.own_n.q.val();
        if self.pop.val() {
            self.popped.next = self.own.q.val() >> 1;
            self.n1.next = self.own_n.q.val() - 1;
        }
        self.own.d.next = self.popped.val();
        self.own_n.d.next = self.n1.val();
        if self.req_fire.val() {
            self.own.d.next = self.popped.val() | (self.mine_b.val() << self.n1.val());
            self.own_n.d.next = self.n1.val() + 1;
        }
    }
}
