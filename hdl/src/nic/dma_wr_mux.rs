//! `DmaWriteMux`: shares the DMA write channel (docs/DMA.md) between the responder's data
//! placement (`a`) and the CQE writer (`b`).
//!
//! A write is a request plus its data beats, so the channel is granted for one whole write:
//! from the grant until both the request and the data's last beat have gone through; `a` wins
//! when both wait. Completions come back in request order with no back-pressure, so the owner
//! of every request in flight is kept in order (`own`, a bit queue of up to 32 writes, far
//! above what the users keep in flight) and each `done` strobe goes to its owner.
use crate::dma::{DmaWriteMaster, DmaWriteSlave};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum DmaWrGrant {
    Idle,
    A,
    B,
}

#[derive(LogicBlock)]
pub struct DmaWriteMux {
    pub clock: Signal<In, Clock>,
    pub a: DmaWriteSlave<64, 8>,
    pub b: DmaWriteSlave<64, 8>,
    pub out: DmaWriteMaster<64, 8>,
    grant: DFF<DmaWrGrant>,
    reqd: DFF<Bit>,
    datad: DFF<Bit>,
    own: DFF<Bits<32>>,
    own_n: DFF<Bits<6>>,
    req_fire: Signal<Local, Bit>,
    last_fire: Signal<Local, Bit>,
    popped: Signal<Local, Bits<32>>,
    n1: Signal<Local, Bits<6>>,
    mine_b: Signal<Local, Bits<32>>,
}

impl Default for DmaWriteMux {
    fn default() -> Self {
        DmaWriteMux {
            clock: Default::default(),
            a: Default::default(),
            b: Default::default(),
            out: Default::default(),
            grant: Default::default(),
            reqd: Default::default(),
            datad: Default::default(),
            own: Default::default(),
            own_n: Default::default(),
            req_fire: Default::default(),
            last_fire: Default::default(),
            popped: Default::default(),
            n1: Default::default(),
            mine_b: Default::default(),
        }
    }
}

impl Logic for DmaWriteMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, grant, reqd, datad, own, own_n);
        // defaults: nothing forwarded
        self.out.req_valid.next = false;
        self.out.req_addr.next = self.a.req_addr.val();
        self.out.req_len.next = self.a.req_len.val();
        self.out.req_tag.next = self.a.req_tag.val();
        self.out.data.valid.next = false;
        self.out.data.data.next = self.a.data.data.val();
        self.out.data.keep.next = self.a.data.keep.val();
        self.out.data.last.next = self.a.data.last.val();
        self.a.req_ready.next = false;
        self.b.req_ready.next = false;
        self.a.data.ready.next = false;
        self.b.data.ready.next = false;
        self.req_fire.next = false;
        self.last_fire.next = false;
        match self.grant.q.val() {
            DmaWrGrant::Idle => {
                if self.a.req_valid.val() {
                    self.grant.d.next = DmaWrGrant::A;
                } else if self.b.req_valid.val() {
                    self.grant.d.next = DmaWrGrant::B;
                }
                self.reqd.d.next = false;
                self.datad.d.next = false;
            }
            DmaWrGrant::A => {
                self.out.req_valid.next = self.a.req_valid.val() & !self.reqd.q.val();
                self.a.req_ready.next = self.out.req_ready.val() & !self.reqd.q.val();
                self.out.data.valid.next = self.a.data.valid.val() & !self.datad.q.val();
                self.a.data.ready.next = self.out.data.ready.val() & !self.datad.q.val();
            }
            DmaWrGrant::B => {
                self.out.req_addr.next = self.b.req_addr.val();
                self.out.req_len.next = self.b.req_len.val();
                self.out.req_tag.next = self.b.req_tag.val();
                self.out.data.data.next = self.b.data.data.val();
                self.out.data.keep.next = self.b.data.keep.val();
                self.out.data.last.next = self.b.data.last.val();
                self.out.req_valid.next = self.b.req_valid.val() & !self.reqd.q.val();
                self.b.req_ready.next = self.out.req_ready.val() & !self.reqd.q.val();
                self.out.data.valid.next = self.b.data.valid.val() & !self.datad.q.val();
                self.b.data.ready.next = self.out.data.ready.val() & !self.datad.q.val();
            }
        }
        self.req_fire.next = self.out.req_valid.val() & self.out.req_ready.val();
        self.last_fire.next =
            self.out.data.valid.val() & self.out.data.ready.val() & self.out.data.last.val();
        if self.req_fire.val() {
            self.reqd.d.next = true;
        }
        if self.last_fire.val() {
            self.datad.d.next = true;
        }
        if (self.grant.q.val() != DmaWrGrant::Idle)
            & (self.reqd.q.val() | self.req_fire.val())
            & (self.datad.q.val() | self.last_fire.val())
        {
            self.grant.d.next = DmaWrGrant::Idle;
        }
        // completions: the head of the owner queue gets each done strobe
        self.a.done_valid.next = self.out.done_valid.val() & !self.own.q.val().get_bit(0);
        self.b.done_valid.next = self.out.done_valid.val() & self.own.q.val().get_bit(0);
        self.a.done_tag.next = self.out.done_tag.val();
        self.b.done_tag.next = self.out.done_tag.val();
        self.a.done_error.next = self.out.done_error.val();
        self.b.done_error.next = self.out.done_error.val();
        self.popped.next = self.own.q.val();
        self.n1.next = self.own_n.q.val();
        if self.out.done_valid.val() {
            self.popped.next = self.own.q.val() >> 1;
            self.n1.next = self.own_n.q.val() - 1;
        }
        self.mine_b.next = 0.into();
        if self.grant.q.val() == DmaWrGrant::B {
            self.mine_b.next = 1.into();
        }
        self.own.d.next = self.popped.val();
        self.own_n.d.next = self.n1.val();
        if self.req_fire.val() {
            self.own.d.next = self.popped.val() | (self.mine_b.val() << self.n1.val());
            self.own_n.d.next = self.n1.val() + 1;
        }
    }
}
