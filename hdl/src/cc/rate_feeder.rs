//! [`RateFeeder`]: what joins the DCQCN reaction point to the rate shaper in the NIC
//! (docs/CONGESTION.md, "Reaction point in the NIC").
//!
//! * **Static limits.** A host write of a QP's static limit (`CC_QP_RATE_LIMIT`, Mb/s, 0 =
//!   none) is kept here, one word per QP.
//! * **The sweep.** The block visits QPN 0, 1, .., 255, 0, .. one per cycle in a four-stage
//!   pipeline: it reads the QP's static limit and the reaction point's rate port (two cycles),
//!   and the shaper's current limit of the QP, and computes the limit the QP must have:
//!   the reaction point's Rc if it holds a limiter for the QP, the static limit if lower (and
//!   not 0), else the static limit. A cycle later (a register stage for timing) it compares that with the shaper's; if they differ it writes the shaper
//!   (waiting for `sh_set_ready`), drops the three QPs behind in the pipeline and starts again at
//!   the next QPN. A QP's limit therefore reaches the shaper within one sweep of a change: 256
//!   cycles plus a few per write (about 1.1 us at 250 MHz for one change; the reaction point
//!   changes a rate at most once per microsecond tick and per CNP).
//! * **Events.** CNPs received (`cnp_in_*`, one pulse each) and bytes sent (`bytes_in_*`, one
//!   pulse per request packet with its payload bytes, from the requester) wait in two 16-entry
//!   queues for the reaction point, which takes no event while its microsecond sweep runs. A
//!   bytes event larger than the reaction point's 24-bit port is handed on in pieces of
//!   2^24 - 1 bytes. An event that finds its queue full is lost and pulses `ev_cnp_dropped`
//!   or `ev_bytes_dropped` (counted by the NIC in `CNT_RP_CNP_DROPPED` and
//!   `CNT_RP_BYTES_DROPPED`); zero bytes are not an event.
//!
//! The block holds no DCQCN arithmetic: that is all in [`super::ReactionPoint`].
use super::reaction_point::{BYTES_W, QPN_W, RATE_W};
use rust_hdl::prelude::*;

// `more` tests bits 31:24 of the 32-bit count: the piece is 24 bits
const _: () = assert!(BYTES_W == 24);
/// The largest bytes event the reaction point takes.
pub const BYTES_PIECE: u64 = (1 << BYTES_W) - 1;

/// A bytes-sent event waiting for the reaction point.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct ChargeEntry {
    pub qpn: Bits<QPN_W>,
    pub bytes: Bits<32>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum FeedState {
    /// After reset: clear every QP's static limit, one per cycle.
    Init,
    /// The sweep: a QPN enters the pipeline every cycle; a mismatch at its end goes to `Set`.
    Sweep,
    /// Write the shaper's limit of the QP found different; then the sweep resumes after it.
    Set,
}

#[derive(LogicBlock)]
pub struct RateFeeder {
    pub clock: Signal<In, Clock>,
    // ---- host writes of a static limit
    pub static_valid: Signal<In, Bit>,
    pub static_qpn: Signal<In, Bits<QPN_W>>,
    pub static_mbps: Signal<In, Bits<RATE_W>>,
    // ---- events in (pulses)
    pub cnp_in_valid: Signal<In, Bit>,
    pub cnp_in_qpn: Signal<In, Bits<QPN_W>>,
    pub bytes_in_valid: Signal<In, Bit>,
    pub bytes_in_qpn: Signal<In, Bits<QPN_W>>,
    pub bytes_in_n: Signal<In, Bits<32>>,
    // ---- to the reaction point
    pub rp_cnp_valid: Signal<Out, Bit>,
    pub rp_cnp_qpn: Signal<Out, Bits<QPN_W>>,
    pub rp_cnp_ready: Signal<In, Bit>,
    pub rp_bytes_valid: Signal<Out, Bit>,
    pub rp_bytes_qpn: Signal<Out, Bits<QPN_W>>,
    pub rp_bytes_n: Signal<Out, Bits<BYTES_W>>,
    pub rp_bytes_ready: Signal<In, Bit>,
    /// the reaction point's rate port: `rp_rate_qpn` -> two cycles later the other two
    pub rp_rate_qpn: Signal<Out, Bits<QPN_W>>,
    pub rp_rate_limited: Signal<In, Bit>,
    pub rp_rate_rc: Signal<In, Bits<RATE_W>>,
    // ---- to the shaper
    pub sh_set_valid: Signal<Out, Bit>,
    pub sh_set_qpn: Signal<Out, Bits<QPN_W>>,
    pub sh_set_mbps: Signal<Out, Bits<RATE_W>>,
    pub sh_set_ready: Signal<In, Bit>,
    /// the shaper's combinational read port
    pub sh_rd_qpn: Signal<Out, Bits<QPN_W>>,
    pub sh_rd_limited: Signal<In, Bit>,
    pub sh_rd_mbps: Signal<In, Bits<RATE_W>>,
    // ---- status
    /// one-cycle pulses: a CNP / a bytes event was lost (its queue was full)
    pub ev_cnp_dropped: Signal<Out, Bit>,
    pub ev_bytes_dropped: Signal<Out, Bit>,
    // ---- state
    state: DFF<FeedState>,
    /// the QPN entering the pipeline (and the static RAM's clearing index in `Init`)
    scan: DFF<Bits<QPN_W>>,
    /// pipeline tags: stage 1 (static RAM read), stage 2 (every value of the QP ready)
    p1: DFF<Bits<QPN_W>>,
    v1: DFF<Bit>,
    p2: DFF<Bits<QPN_W>>,
    v2: DFF<Bit>,
    /// stage 3: the limit the QP in stage 2 must have and the one the shaper had, registered
    /// (the compare gets a cycle of its own)
    p3: DFF<Bits<QPN_W>>,
    v3: DFF<Bit>,
    want_q: DFF<Bits<RATE_W>>,
    have_q: DFF<Bits<RATE_W>>,
    /// the static RAM's word, one cycle later (lined up with the reaction point's port)
    stat_q: DFF<Bits<RATE_W>>,
    set_qpn: DFF<Bits<QPN_W>>,
    set_mbps: DFF<Bits<RATE_W>>,
    /// bytes of the charge at the head of its queue still to hand on
    left: DFF<Bits<32>>,
    /// `left` holds the head charge's bytes still to hand on
    loaded: DFF<Bit>,
    cnp_drop: DFF<Bit>,
    bytes_drop: DFF<Bit>,
    stat: RAM<Bits<RATE_W>, QPN_W>,
    cnp_q: SynchronousFIFO<Bits<QPN_W>, 4, 5, 1>,
    bytes_q: SynchronousFIFO<ChargeEntry, 4, 5, 1>,
    // ---- combinational helpers
    want: Signal<Local, Bits<RATE_W>>,
    have: Signal<Local, Bits<RATE_W>>,
    more: Signal<Local, Bit>,
    entry: Signal<Local, ChargeEntry>,
    c_piece: Constant<Bits<32>>,
    c_last_qpn: Constant<Bits<QPN_W>>,
}

impl Default for RateFeeder {
    fn default() -> Self {
        RateFeeder {
            clock: Default::default(),
            static_valid: Default::default(),
            static_qpn: Default::default(),
            static_mbps: Default::default(),
            cnp_in_valid: Default::default(),
            cnp_in_qpn: Default::default(),
            bytes_in_valid: Default::default(),
            bytes_in_qpn: Default::default(),
            bytes_in_n: Default::default(),
            rp_cnp_valid: Default::default(),
            rp_cnp_qpn: Default::default(),
            rp_cnp_ready: Default::default(),
            rp_bytes_valid: Default::default(),
            rp_bytes_qpn: Default::default(),
            rp_bytes_n: Default::default(),
            rp_bytes_ready: Default::default(),
            rp_rate_qpn: Default::default(),
            rp_rate_limited: Default::default(),
            rp_rate_rc: Default::default(),
            sh_set_valid: Default::default(),
            sh_set_qpn: Default::default(),
            sh_set_mbps: Default::default(),
            sh_set_ready: Default::default(),
            sh_rd_qpn: Default::default(),
            sh_rd_limited: Default::default(),
            sh_rd_mbps: Default::default(),
            ev_cnp_dropped: Default::default(),
            ev_bytes_dropped: Default::default(),
            state: Default::default(),
            scan: Default::default(),
            p1: Default::default(),
            v1: Default::default(),
            p2: Default::default(),
            v2: Default::default(),
            p3: Default::default(),
            v3: Default::default(),
            want_q: Default::default(),
            have_q: Default::default(),
            stat_q: Default::default(),
            set_qpn: Default::default(),
            set_mbps: Default::default(),
            left: Default::default(),
            loaded: Default::default(),
            cnp_drop: Default::default(),
            bytes_drop: Default::default(),
            stat: Default::default(),
            cnp_q: Default::default(),
            bytes_q: Default::default(),
            want: Default::default(),
            have: Default::default(),
            more: Default::default(),
            entry: Default::default(),
            c_piece: Constant::new(BYTES_PIECE.into()),
            c_last_qpn: Constant::new(((1u64 << QPN_W) - 1).into()),
        }
    }
}

impl Logic for RateFeeder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, scan, p1, v1, p2, v2, p3, v3, want_q, have_q, stat_q, set_qpn,
            set_mbps, left, loaded, cnp_drop, bytes_drop
        );
        clock!(self, clock, cnp_q, bytes_q);
        self.stat.read_clock.next = self.clock.val();
        self.stat.write_clock.next = self.clock.val();

        // ---- static limits: every host write goes straight into the RAM
        self.stat.write_address.next = self.static_qpn.val();
        self.stat.write_data.next = self.static_mbps.val();
        self.stat.write_enable.next = self.static_valid.val();

        // ---- event queues: in from the pulses, out to the reaction point
        self.cnp_q.data_in.next = self.cnp_in_qpn.val();
        self.cnp_q.write.next = self.cnp_in_valid.val() & !self.cnp_q.full.val();
        self.entry.next.qpn = self.bytes_in_qpn.val();
        self.entry.next.bytes = self.bytes_in_n.val();
        self.bytes_q.data_in.next = self.entry.val();
        self.bytes_q.write.next =
            self.bytes_in_valid.val() & (self.bytes_in_n.val() != 0) & !self.bytes_q.full.val();
        self.cnp_drop.d.next = self.cnp_in_valid.val() & self.cnp_q.full.val();
        self.bytes_drop.d.next =
            self.bytes_in_valid.val() & (self.bytes_in_n.val() != 0) & self.bytes_q.full.val();
        self.ev_cnp_dropped.next = self.cnp_drop.q.val();
        self.ev_bytes_dropped.next = self.bytes_drop.q.val();
        self.rp_cnp_valid.next = !self.cnp_q.empty.val();
        self.rp_cnp_qpn.next = self.cnp_q.data_out.val();
        self.cnp_q.read.next = !self.cnp_q.empty.val() & self.rp_cnp_ready.val();
        // the head charge in pieces the reaction point's port can carry: its bytes are loaded
        // into `left` (a cycle after it reaches the head) and handed on 2^24 - 1 at a time;
        // "more than a piece left" is a test of the top bits of a register
        self.more.next = self.left.q.val().get_bits::<8>(24).any();
        self.rp_bytes_valid.next = self.loaded.q.val();
        self.rp_bytes_qpn.next = self.bytes_q.data_out.val().qpn;
        self.rp_bytes_n.next = self.left.q.val().get_bits::<BYTES_W>(0);
        if self.more.val() {
            self.rp_bytes_n.next = self.c_piece.val().get_bits::<BYTES_W>(0);
        }
        self.bytes_q.read.next = false;
        if !self.loaded.q.val() & !self.bytes_q.empty.val() {
            self.left.d.next = self.bytes_q.data_out.val().bytes;
            self.loaded.d.next = true;
        }
        if self.loaded.q.val() & self.rp_bytes_ready.val() {
            if self.more.val() {
                self.left.d.next = self.left.q.val() - self.c_piece.val();
            } else {
                self.loaded.d.next = false;
                self.bytes_q.read.next = true;
            }
        }

        // ---- the sweep's pipeline: stage 0 addresses, stage 1 the static word, stage 2 compare
        self.rp_rate_qpn.next = self.scan.q.val();
        self.stat.read_address.next = self.scan.q.val();
        self.sh_rd_qpn.next = self.p2.q.val();
        self.stat_q.d.next = self.stat.read_data.val();
        self.p2.d.next = self.p1.q.val();
        self.v2.d.next = self.v1.q.val();
        self.p3.d.next = self.p2.q.val();
        self.v3.d.next = self.v2.q.val();
        self.p1.d.next = self.scan.q.val();
        self.v1.d.next = false;
        // the limit the QP in stage 2 must have, and the one the shaper has
        self.want.next = self.stat_q.q.val();
        if self.rp_rate_limited.val()
            & ((self.stat_q.q.val() == 0) | (self.rp_rate_rc.val() < self.stat_q.q.val()))
        {
            self.want.next = self.rp_rate_rc.val();
        }
        self.have.next = 0.into();
        if self.sh_rd_limited.val() {
            self.have.next = self.sh_rd_mbps.val();
        }
        self.want_q.d.next = self.want.val();
        self.have_q.d.next = self.have.val();
        self.sh_set_valid.next = false;
        self.sh_set_qpn.next = self.set_qpn.q.val();
        self.sh_set_mbps.next = self.set_mbps.q.val();

        match self.state.q.val() {
            FeedState::Init => {
                self.stat.write_address.next = self.scan.q.val();
                self.stat.write_data.next = 0.into();
                self.stat.write_enable.next = true;
                self.scan.d.next = self.scan.q.val() + 1;
                if self.scan.q.val() == self.c_last_qpn.val() {
                    self.state.d.next = FeedState::Sweep;
                }
            }
            FeedState::Sweep => {
                self.scan.d.next = self.scan.q.val() + 1;
                self.v1.d.next = true;
                if self.v3.q.val() & (self.want_q.q.val() != self.have_q.q.val()) {
                    // the three QPs behind are dropped; the sweep goes on after this one
                    self.set_qpn.d.next = self.p3.q.val();
                    self.set_mbps.d.next = self.want_q.q.val();
                    self.scan.d.next = self.p3.q.val() + 1;
                    self.v1.d.next = false;
                    self.v2.d.next = false;
                    self.v3.d.next = false;
                    self.state.d.next = FeedState::Set;
                }
            }
            FeedState::Set => {
                self.sh_set_valid.next = true;
                if self.sh_set_ready.val() {
                    self.state.d.next = FeedState::Sweep;
                }
            }
            _ => {
                self.state.d.next = FeedState::Init;
            }
        }
    }
}

/// Reference model of the sweep's result: the limit `qpn` must have in the shaper (0 = none),
/// from its static limit and the reaction point's view of it.
pub fn wanted_limit(static_mbps: u32, rp_limited: bool, rp_rc: u32) -> u32 {
    if rp_limited && (static_mbps == 0 || rp_rc < static_mbps) {
        rp_rc
    } else {
        static_mbps
    }
}
