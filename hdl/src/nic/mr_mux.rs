//! `MrPortMux`: shares the MR table's lookup port between the responder (`a`, priority: the
//! receive path must not wait behind a sender) and the requester's gather checks (`b`).
//!
//! The table answers a fixed number of cycles after it accepts a lookup and has no
//! back-pressure; each user keeps at most one lookup outstanding. The mux keeps it simple and
//! exact: one lookup in flight in total (`busy`, `owner`), its response flagged valid only to
//! the user that asked (`a_resp_valid` / `b_resp_valid`; the response data is wired to both).
//! That costs a few cycles per lookup, against one lookup per packet or SGE.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MrPortMux {
    pub clock: Signal<In, Clock>,
    // ---- user a (responder)
    pub a_req_valid: Signal<In, Bit>,
    pub a_req_ready: Signal<Out, Bit>,
    pub a_req_key: Signal<In, Bits<32>>,
    pub a_req_pd: Signal<In, Bits<24>>,
    pub a_req_need: Signal<In, Bits<4>>,
    pub a_req_va: Signal<In, Bits<64>>,
    pub a_req_len: Signal<In, Bits<64>>,
    pub a_req_remote: Signal<In, Bit>,
    pub a_req_tag: Signal<In, Bits<8>>,
    pub a_resp_valid: Signal<Out, Bit>,
    // ---- user b (requester: local gather, no rights needed)
    pub b_req_valid: Signal<In, Bit>,
    pub b_req_ready: Signal<Out, Bit>,
    pub b_req_key: Signal<In, Bits<32>>,
    pub b_req_pd: Signal<In, Bits<24>>,
    /// rights b needs (LOCAL_WRITE for a READ's or an atomic's destination; 0 for a gather)
    pub b_req_need: Signal<In, Bits<4>>,
    pub b_req_va: Signal<In, Bits<64>>,
    pub b_req_len: Signal<In, Bits<64>>,
    pub b_resp_valid: Signal<Out, Bit>,
    // ---- the table's port
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_key: Signal<Out, Bits<32>>,
    pub req_pd: Signal<Out, Bits<24>>,
    pub req_need: Signal<Out, Bits<4>>,
    pub req_va: Signal<Out, Bits<64>>,
    pub req_len: Signal<Out, Bits<64>>,
    pub req_remote: Signal<Out, Bit>,
    pub req_tag: Signal<Out, Bits<8>>,
    pub resp_valid: Signal<In, Bit>,
    busy: DFF<Bit>,
    owner_b: DFF<Bit>,
}

impl Default for MrPortMux {
    fn default() -> Self {
        MrPortMux {
            clock: Default::default(),
            a_req_valid: Default::default(),
            a_req_ready: Default::default(),
            a_req_key: Default::default(),
            a_req_pd: Default::default(),
            a_req_need: Default::default(),
            a_req_va: Default::default(),
            a_req_len: Default::default(),
            a_req_remote: Default::default(),
            a_req_tag: Default::default(),
            a_resp_valid: Default::default(),
            b_req_valid: Default::default(),
            b_req_ready: Default::default(),
            b_req_key: Default::default(),
            b_req_pd: Default::default(),
            b_req_need: Default::default(),
            b_req_va: Default::default(),
            b_req_len: Default::default(),
            b_resp_valid: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_key: Default::default(),
            req_pd: Default::default(),
            req_need: Default::default(),
            req_va: Default::default(),
            req_len: Default::default(),
            req_remote: Default::default(),
            req_tag: Default::default(),
            resp_valid: Default::default(),
            busy: Default::default(),
            owner_b: Default::default(),
        }
    }
}

impl Logic for MrPortMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, owner_b);
        self.req_valid.next =
            (self.a_req_valid.val() | self.b_req_valid.val()) & !self.busy.q.val();
        self.a_req_ready.next = self.req_ready.val() & !self.busy.q.val();
        self.b_req_ready.next = self.req_ready.val() & !self.busy.q.val() & !self.a_req_valid.val();
        // a's request, unless only b asks
        self.req_key.next = self.a_req_key.val();
        self.req_pd.next = self.a_req_pd.val();
        self.req_need.next = self.a_req_need.val();
        self.req_va.next = self.a_req_va.val();
        self.req_len.next = self.a_req_len.val();
        self.req_remote.next = self.a_req_remote.val();
        self.req_tag.next = self.a_req_tag.val();
        if !self.a_req_valid.val() {
            self.req_key.next = self.b_req_key.val();
            self.req_pd.next = self.b_req_pd.val();
            self.req_need.next = self.b_req_need.val();
            self.req_va.next = self.b_req_va.val();
            self.req_len.next = self.b_req_len.val();
            self.req_remote.next = false;
            self.req_tag.next = 0.into();
        }
        if self.req_valid.val() & self.req_ready.val() {
            self.busy.d.next = true;
            self.owner_b.d.next = !self.a_req_valid.val();
        }
        self.a_resp_valid.next = self.resp_valid.val() & self.busy.q.val() & !self.owner_b.q.val();
        self.b_resp_valid.next = self.resp_valid.val() & self.busy.q.val() & self.owner_b.q.val();
        if self.resp_valid.val() {
            self.busy.d.next = false;
        }
    }
}
