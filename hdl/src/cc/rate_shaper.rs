//! [`RateShaper`]: a token-bucket rate shaper for a pool of rate-limited QPs (docs/CONGESTION.md).
//!
//! Each of [`SHAPER_SLOTS`] slots holds one QP's rate and bucket. A QP without a slot is
//! unlimited: the shaper never makes it wait. A QP with a slot is *eligible* to start a packet
//! iff its bucket is >= 0 and no start of its own waits to be paid; the start debits the bucket
//! by the packet's bytes (`charge_*`) in the next cycle, so one start may take it negative (a
//! deficit the refill pays back before the next start). Every cycle every bucket gains its
//! slot's rate and is capped at `burst` bytes (the NIC sets the largest PMTU, 4096), so a QP
//! idle for a long time starts at most one burst early.
//!
//! # Timing
//! The bucket's update is one carry chain: bucket + rate - debit as a carry-save sum (the
//! debit registered the cycle before, one register for all slots since one start comes a
//! cycle), and beside it the cap test `bucket >= burst - rate` against a per-slot threshold
//! kept with the rate. A rate write is four cycles (multiply, sum, per-slot enables, apply),
//! each a register stage. Out of context the block places and routes above 125 MHz on ECP5
//! (docs/CONGESTION.md).
//!
//! # Fixed point
//! * A slot's rate is bytes per cycle in 16.16 fixed point (`rate_int` . `rate_frac`): at least
//!   16 fractional bits as docs/CONGESTION.md asks, up to 65535 bytes per cycle.
//! * The bucket is a signed 18-bit byte count (two's complement) and a 16-bit fraction, one
//!   34-bit word: it holds a bucket at the burst plus a refill (each below 2^16 bytes) and a
//!   deficit of one packet (a debit is at most [`MAX_CHARGE`], 65535 bytes, and only an
//!   eligible, non-negative bucket is debited). The requester charges each packet's payload,
//!   at most the PMTU (4096).
//! * Rates arrive in Mb/s (the reaction point's Rc, or a static per-QP limit) on `set_*` and are
//!   converted once, at the write, with the clock-derived `factor` (bytes per cycle per Mb/s in
//!   units of 2^-24): `rate (2^-16 B/cycle) = floor(mbps x factor / 2^8)`, with
//!   `factor = round(2^24 x 125 / clock_khz)` (one Mb/s is 125 bytes per millisecond, so
//!   125 / clock_khz bytes per cycle; `ID_CLOCK_KHZ` is the clock). At 125 MHz factor = 16777
//!   (exact 16777.216: the factor's error is 1.3e-5 relative); the truncation to 2^-16 B/cycle
//!   loses less than 1 / (mbps x 0.0655) relative at 125 MHz: 0.15 % at 10 Mb/s, 1.5 % at
//!   1 Mb/s (the rate's precision, not the bucket's: the bucket accumulates it exactly). The
//!   factor is 16 bits, so clocks down to 32.001 MHz. The product uses the kernel's 16 x 16
//!   multipliers: Mb/s (20 bits) in a 16-bit low and a 4-bit high piece.
//!
//! # Why 16 slots
//! Every bucket is refilled every cycle, so each slot is its own registers and adder (about 140
//! flip-flops and a 34-bit add and compare), and the eligibility query compares the QPN with
//! every slot in one cycle: the cost is linear in the slots and paid at the core clock. 16
//! matches the reaction point's limiter pool ([`super::reaction_point::LIMITERS`]): every QP the
//! reaction point limits can hold a slot at the same time, plus none to spare for static
//! limits beyond that. A write that finds no slot (all 16 held by other QPs) leaves the QP
//! unlimited and counts in `slot_exhausted`: never silent.
//!
//! # Ports
//! * `factor`, `burst`: parameters (above).
//! * `set_valid`/`set_ready`/`set_qpn`/`set_mbps`: give QP `set_qpn` the rate `set_mbps` Mb/s;
//!   0 releases its slot (the QP becomes unlimited). A new slot starts with a full bucket
//!   (`burst`); a rate change keeps the bucket. Four cycles per write (`set_ready` is high in
//!   `Idle` only).
//! * `q_qpn` -> `q_limited`, `q_eligible` (combinational): the gate's question. An unlimited QP
//!   reads limited 0, eligible 1.
//! * `rd_qpn` -> `rd_limited`, `rd_mbps` (combinational): a second read port for the rate
//!   feeder (the slot's rate in Mb/s as written).
//! * `st_qpn` -> `st_limited`, `st_mbps` (combinational): the same for the host's status
//!   register `CC_QP_RATE` (a third port, so the feeder's sweep never waits for the host).
//! * `charge_valid`, `charge_qpn`, `charge_bytes`: a start; debits the QP's slot (ignored for
//!   an unlimited QP). Counts above 65535 saturate there.
//! * `slots_in_use`, `slot_exhausted`.
use rust_hdl::prelude::*;

/// QPN bits (the default build's 256 QPs; the reaction point's width).
pub const SH_QPN_W: usize = super::reaction_point::QPN_W;
/// Slot index bits.
pub const SLOT_W: usize = 4;
/// Slots in the pool (see the module doc).
pub const SHAPER_SLOTS: usize = 1 << SLOT_W;
/// Bits of a rate in Mb/s (the reaction point's `RATE_W`).
pub const MBPS_W: usize = super::reaction_point::RATE_W;
/// Bucket word width: a signed 32-bit byte count and a 16-bit fraction.
pub const BW: usize = 34;
/// Largest charge: a debit never exceeds 65535 bytes (one packet: the largest PMTU is 4096);
/// larger counts saturate there.
pub const MAX_CHARGE: u64 = (1 << 16) - 1;

/// The conversion factor for a clock of `clock_khz` kHz: bytes per cycle per Mb/s in units of
/// 2^-24, rounded (see the module doc). `None` if it does not fit the 16-bit port.
pub fn shaper_factor(clock_khz: u32) -> Option<u16> {
    if clock_khz == 0 {
        return None;
    }
    let f = ((125u64 << 24) + clock_khz as u64 / 2) / clock_khz as u64;
    u16::try_from(f).ok().filter(|&f| f > 0)
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ShState {
    /// Take a rate write: find the QP's slot and the first free one.
    Idle,
    /// Convert Mb/s to bytes per cycle: the two partial products, registered.
    Multiply,
    /// ... their sum; each slot's part in the write, registered.
    Convert,
    /// Write the slot: update, allocate, release, or count the exhaustion.
    Apply,
}

#[derive(LogicBlock)]
pub struct RateShaper {
    pub clock: Signal<In, Clock>,
    pub factor: Signal<In, Bits<16>>,
    pub burst: Signal<In, Bits<16>>,
    // ---- rate writes
    pub set_valid: Signal<In, Bit>,
    pub set_ready: Signal<Out, Bit>,
    pub set_qpn: Signal<In, Bits<SH_QPN_W>>,
    pub set_mbps: Signal<In, Bits<MBPS_W>>,
    // ---- the gate's query
    pub q_qpn: Signal<In, Bits<SH_QPN_W>>,
    pub q_limited: Signal<Out, Bit>,
    pub q_eligible: Signal<Out, Bit>,
    // ---- read port
    pub rd_qpn: Signal<In, Bits<SH_QPN_W>>,
    pub rd_limited: Signal<Out, Bit>,
    pub rd_mbps: Signal<Out, Bits<MBPS_W>>,
    // ---- status read port (CC_QP_RATE)
    pub st_qpn: Signal<In, Bits<SH_QPN_W>>,
    pub st_limited: Signal<Out, Bit>,
    pub st_mbps: Signal<Out, Bits<MBPS_W>>,
    // ---- starts
    pub charge_valid: Signal<In, Bit>,
    pub charge_qpn: Signal<In, Bits<SH_QPN_W>>,
    pub charge_bytes: Signal<In, Bits<32>>,
    // ---- status
    pub slots_in_use: Signal<Out, Bits<{ SLOT_W + 1 }>>,
    pub slot_exhausted: Signal<Out, Bits<32>>,
    // ---- state
    state: DFF<ShState>,
    w_qpn: DFF<Bits<SH_QPN_W>>,
    w_mbps: DFF<Bits<MBPS_W>>,
    w_found: DFF<Bit>,
    w_free: DFF<Bit>,
    /// the converted rate (16.16 bytes per cycle) and its cap threshold `burst - rate`
    w_rate: DFF<Bits<BW>>,
    w_hit: [DFF<Bit>; SHAPER_SLOTS],
    w_pick: [DFF<Bit>; SHAPER_SLOTS],
    /// the write releases (0 Mb/s); per slot: released, rate updated, newly allocated
    w_zero: DFF<Bit>,
    en_rel: [DFF<Bit>; SHAPER_SLOTS],
    en_upd: [DFF<Bit>; SHAPER_SLOTS],
    en_new: [DFF<Bit>; SHAPER_SLOTS],
    /// `burst - rate` of the rate being written
    w_thr: Signal<Local, Bits<BW>>,
    in_use: DFF<Bits<{ SLOT_W + 1 }>>,
    n_exhausted: DFF<Bits<32>>,
    s_valid: [DFF<Bit>; SHAPER_SLOTS],
    s_qpn: [DFF<Bits<SH_QPN_W>>; SHAPER_SLOTS],
    s_mbps: [DFF<Bits<MBPS_W>>; SHAPER_SLOTS],
    /// the rate, 16.16 bytes per cycle in a bucket-wide word (top bits 0)
    s_rate: [DFF<Bits<BW>>; SHAPER_SLOTS],
    /// `burst - rate`: a bucket at or above it reaches the burst with this cycle's refill
    s_thr: [DFF<Bits<BW>>; SHAPER_SLOTS],
    /// the bucket, 32.16 bytes, two's complement
    s_bucket: [DFF<Bits<BW>>; SHAPER_SLOTS],
    /// the start charged to the slot in the previous cycle: it came (per slot), its bytes << 16
    /// (one register: one start a cycle), and `burst` minus them
    s_dv: [DFF<Bit>; SHAPER_SLOTS],
    debit_q: DFF<Bits<BW>>,
    cap_q: DFF<Bits<BW>>,
    // ---- combinational helpers
    seen_free: Signal<Local, Bit>,
    m_lo: Signal<Local, Bits<16>>,
    m_hi: Signal<Local, Bits<16>>,
    p_lo: DFF<Bits<32>>,
    p_hi: DFF<Bits<32>>,
    rate: Signal<Local, Bits<32>>,
    debit: Signal<Local, Bits<BW>>,
    burst_w: Signal<Local, Bits<BW>>,
    /// the carry-save form of bucket + rate - debit (sum and shifted carries), its result,
    /// the capped value burst - debit, and the cap decision
    cs_sum: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    cs_carry: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    next_b: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    not_debit: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    at_cap: [Signal<Local, Bit>; SHAPER_SLOTS],
    cmp_a: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    cmp_t: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    cmp_d: [Signal<Local, Bits<BW>>; SHAPER_SLOTS],
    c_sign: Constant<Bits<BW>>,
    c_one: Constant<Bits<BW>>,
    c_all: Constant<Bits<BW>>,
    set_hit: [Signal<Local, Bit>; SHAPER_SLOTS],
}

impl Default for RateShaper {
    fn default() -> Self {
        RateShaper {
            clock: Default::default(),
            factor: Default::default(),
            burst: Default::default(),
            set_valid: Default::default(),
            set_ready: Default::default(),
            set_qpn: Default::default(),
            set_mbps: Default::default(),
            q_qpn: Default::default(),
            q_limited: Default::default(),
            q_eligible: Default::default(),
            rd_qpn: Default::default(),
            rd_limited: Default::default(),
            rd_mbps: Default::default(),
            st_qpn: Default::default(),
            st_limited: Default::default(),
            st_mbps: Default::default(),
            charge_valid: Default::default(),
            charge_qpn: Default::default(),
            charge_bytes: Default::default(),
            slots_in_use: Default::default(),
            slot_exhausted: Default::default(),
            state: Default::default(),
            w_qpn: Default::default(),
            w_mbps: Default::default(),
            w_found: Default::default(),
            w_free: Default::default(),
            w_rate: Default::default(),
            w_hit: Default::default(),
            w_pick: Default::default(),
            w_zero: Default::default(),
            en_rel: Default::default(),
            en_upd: Default::default(),
            en_new: Default::default(),
            w_thr: Default::default(),
            in_use: Default::default(),
            n_exhausted: Default::default(),
            s_valid: Default::default(),
            s_qpn: Default::default(),
            s_mbps: Default::default(),
            s_rate: Default::default(),
            s_thr: Default::default(),
            s_bucket: Default::default(),
            debit_q: Default::default(),
            cap_q: Default::default(),
            s_dv: Default::default(),
            seen_free: Default::default(),
            m_lo: Default::default(),
            m_hi: Default::default(),
            p_lo: Default::default(),
            p_hi: Default::default(),
            rate: Default::default(),
            debit: Default::default(),
            burst_w: Default::default(),
            cs_sum: Default::default(),
            cs_carry: Default::default(),
            next_b: Default::default(),
            not_debit: Default::default(),
            at_cap: Default::default(),
            cmp_a: Default::default(),
            cmp_t: Default::default(),
            cmp_d: Default::default(),
            c_sign: Constant::new(Bits::<BW>::from(1u64 << (BW - 1))),
            c_one: Constant::new(Bits::<BW>::from(1u64)),
            c_all: Constant::new(Bits::<BW>::from((1u64 << BW) - 1)),
            set_hit: Default::default(),
        }
    }
}

// the kernel's literals tied to the constants they stand for
const _: () = assert!(SHAPER_SLOTS == 16);
const _: () = assert!(MAX_CHARGE == 0xFFFF);
// the bucket's sign is bit 47
const _: () = assert!(BW == 34);

impl Logic for RateShaper {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            w_qpn,
            w_mbps,
            w_found,
            w_free,
            w_zero,
            w_rate,
            p_lo,
            p_hi,
            debit_q,
            cap_q,
            in_use,
            n_exhausted
        );
        // ---- defaults
        self.set_ready.next = false;
        self.q_limited.next = false;
        self.q_eligible.next = true;
        self.rd_limited.next = false;
        self.rd_mbps.next = 0.into();
        self.st_limited.next = false;
        self.st_mbps.next = 0.into();
        self.seen_free.next = false;
        for i in 0..SHAPER_SLOTS {
            self.set_hit[i].next = false;
        }
        self.burst_w.next = bit_cast::<BW, 16>(self.burst.val()) << 16;
        self.w_thr.next = self.burst_w.val() - self.w_rate.q.val();
        self.debit.next = bit_cast::<BW, 16>(self.charge_bytes.val().get_bits::<16>(0)) << 16;
        if self.charge_bytes.val().get_bits::<16>(16).any() {
            self.debit.next = bit_cast::<BW, 16>(0xFFFF.into()) << 16;
        }
        // one start a cycle: its bytes, and burst minus them, for the slot that pays next cycle
        self.debit_q.d.next = self.debit.val();
        self.cap_q.d.next = self.burst_w.val() - self.debit.val();
        // Mb/s x factor / 2^8 in 2^-16 bytes per cycle (module doc)
        self.m_lo.next = bit_cast::<16, MBPS_W>(self.w_mbps.q.val());
        self.m_hi.next = bit_cast::<16, 4>(self.w_mbps.q.val().get_bits::<4>(16));
        self.p_lo.d.next = self.m_lo.val() * self.factor.val();
        self.p_hi.d.next = self.m_hi.val() * self.factor.val();
        // p_hi < 2^20, so p_hi << 8 < 2^28 and the sum < 2^29
        self.rate.next = (self.p_lo.q.val() >> 8) + (self.p_hi.q.val() << 8);

        for i in 0..SHAPER_SLOTS {
            self.w_hit[i].clock.next = self.clock.val();
            self.w_pick[i].clock.next = self.clock.val();
            self.en_rel[i].clock.next = self.clock.val();
            self.en_upd[i].clock.next = self.clock.val();
            self.en_new[i].clock.next = self.clock.val();
            self.en_rel[i].d.next = self.en_rel[i].q.val();
            self.en_upd[i].d.next = self.en_upd[i].q.val();
            self.en_new[i].d.next = self.en_new[i].q.val();
            self.s_valid[i].clock.next = self.clock.val();
            self.s_qpn[i].clock.next = self.clock.val();
            self.s_mbps[i].clock.next = self.clock.val();
            self.s_rate[i].clock.next = self.clock.val();
            self.s_thr[i].clock.next = self.clock.val();
            self.s_bucket[i].clock.next = self.clock.val();
            self.s_dv[i].clock.next = self.clock.val();
            self.w_hit[i].d.next = self.w_hit[i].q.val();
            self.w_pick[i].d.next = self.w_pick[i].q.val();
            self.s_valid[i].d.next = self.s_valid[i].q.val();
            self.s_qpn[i].d.next = self.s_qpn[i].q.val();
            self.s_mbps[i].d.next = self.s_mbps[i].q.val();
            self.s_rate[i].d.next = self.s_rate[i].q.val();
            self.s_thr[i].d.next = self.s_thr[i].q.val();
            // ---- a start: its debit is registered here and paid in the next cycle
            self.s_dv[i].d.next = self.charge_valid.val()
                & self.s_valid[i].q.val()
                & (self.s_qpn[i].q.val() == self.charge_qpn.val());
            // ---- refill (every cycle), cap at the burst, pay the registered debit: one
            // carry chain. bucket + rate - debit = bucket + rate + !debit + 1, added as a
            // carry-save sum and its carries (the + 1 in the carries' free bit 0); the cap
            // compares the bucket with burst - rate (kept per slot) beside it, as signed
            // numbers (sign bits flipped: an unsigned compare)
            self.not_debit[i].next = self.c_all.val();
            if self.s_dv[i].q.val() {
                self.not_debit[i].next = !self.debit_q.q.val();
            }
            self.cs_sum[i].next =
                self.s_bucket[i].q.val() ^ self.s_rate[i].q.val() ^ self.not_debit[i].val();
            self.cs_carry[i].next = (((self.s_bucket[i].q.val() & self.s_rate[i].q.val())
                | (self.s_bucket[i].q.val() & self.not_debit[i].val())
                | (self.s_rate[i].q.val() & self.not_debit[i].val()))
                << 1)
                | self.c_one.val();
            self.next_b[i].next = self.cs_sum[i].val() + self.cs_carry[i].val();
            // (as the borrow of a subtraction: the synthesis tools map it to a carry chain,
            // where a compare became six levels of LUTs)
            self.cmp_a[i].next = self.s_bucket[i].q.val() ^ self.c_sign.val();
            self.cmp_t[i].next = self.s_thr[i].q.val() ^ self.c_sign.val();
            // a - t borrows iff t's top bit is set and a's is not, or they are equal and the
            // difference's top bit is set
            self.cmp_d[i].next = self.cmp_a[i].val() - self.cmp_t[i].val();
            self.at_cap[i].next = !((!self.cmp_a[i].val().get_bit(33)
                & self.cmp_t[i].val().get_bit(33))
                | (!(self.cmp_a[i].val().get_bit(33) ^ self.cmp_t[i].val().get_bit(33))
                    & self.cmp_d[i].val().get_bit(33)));
            self.s_bucket[i].d.next = self.next_b[i].val();
            if self.at_cap[i].val() {
                self.s_bucket[i].d.next = self.burst_w.val();
                if self.s_dv[i].q.val() {
                    self.s_bucket[i].d.next = self.cap_q.q.val();
                }
            }
            // ---- the query ports
            if self.s_valid[i].q.val() & (self.s_qpn[i].q.val() == self.q_qpn.val()) {
                self.q_limited.next = true;
                self.q_eligible.next =
                    !self.s_bucket[i].q.val().get_bit(33) & !self.s_dv[i].q.val();
            }
            if self.s_valid[i].q.val() & (self.s_qpn[i].q.val() == self.rd_qpn.val()) {
                self.rd_limited.next = true;
                self.rd_mbps.next = self.s_mbps[i].q.val();
            }
            if self.s_valid[i].q.val() & (self.s_qpn[i].q.val() == self.st_qpn.val()) {
                self.st_limited.next = true;
                self.st_mbps.next = self.s_mbps[i].q.val();
            }
        }

        match self.state.q.val() {
            ShState::Idle => {
                self.set_ready.next = true;
                if self.set_valid.val() {
                    self.w_qpn.d.next = self.set_qpn.val();
                    self.w_mbps.d.next = self.set_mbps.val();
                    self.w_zero.d.next = !self.set_mbps.val().any();
                    self.w_found.d.next = false;
                    for i in 0..SHAPER_SLOTS {
                        self.set_hit[i].next =
                            self.s_valid[i].q.val() & (self.s_qpn[i].q.val() == self.set_qpn.val());
                        self.w_hit[i].d.next = self.set_hit[i].val();
                        if self.set_hit[i].val() {
                            self.w_found.d.next = true;
                        }
                        self.w_pick[i].d.next = !self.s_valid[i].q.val() & !self.seen_free.val();
                        if !self.s_valid[i].q.val() {
                            self.seen_free.next = true;
                        }
                    }
                    self.w_free.d.next = self.seen_free.val();
                    self.state.d.next = ShState::Multiply;
                }
            }
            ShState::Multiply => {
                self.state.d.next = ShState::Convert;
            }
            ShState::Convert => {
                self.w_rate.d.next = bit_cast::<BW, 32>(self.rate.val());
                // each slot's part in the write, registered for Apply (16 slots apart on the
                // die: one enable each, no shared decision on the path)
                for i in 0..SHAPER_SLOTS {
                    self.en_rel[i].d.next = self.w_zero.q.val() & self.w_hit[i].q.val();
                    self.en_upd[i].d.next =
                        !self.w_zero.q.val() & self.w_found.q.val() & self.w_hit[i].q.val();
                    self.en_new[i].d.next = !self.w_zero.q.val()
                        & !self.w_found.q.val()
                        & self.w_free.q.val()
                        & self.w_pick[i].q.val();
                }
                self.state.d.next = ShState::Apply;
            }
            ShState::Apply => {
                // release; a new rate for the QP's slot (its bucket kept); or the first free
                // slot allocated with a full bucket; or no slot: counted
                for i in 0..SHAPER_SLOTS {
                    if self.en_rel[i].q.val() {
                        self.s_valid[i].d.next = false;
                    }
                    if self.en_upd[i].q.val() | self.en_new[i].q.val() {
                        self.s_mbps[i].d.next = self.w_mbps.q.val();
                        self.s_rate[i].d.next = self.w_rate.q.val();
                        self.s_thr[i].d.next = self.w_thr.val();
                    }
                    if self.en_new[i].q.val() {
                        self.s_valid[i].d.next = true;
                        self.s_qpn[i].d.next = self.w_qpn.q.val();
                        self.s_bucket[i].d.next = self.burst_w.val();
                    }
                }
                if self.w_zero.q.val() {
                    if self.w_found.q.val() {
                        self.in_use.d.next = self.in_use.q.val() - 1;
                    }
                } else if !self.w_found.q.val() {
                    if self.w_free.q.val() {
                        self.in_use.d.next = self.in_use.q.val() + 1;
                    } else {
                        self.n_exhausted.d.next = self.n_exhausted.q.val() + 1;
                    }
                }
                self.state.d.next = ShState::Idle;
            }
            _ => {
                self.state.d.next = ShState::Idle;
            }
        }
        self.slots_in_use.next = self.in_use.q.val();
        self.slot_exhausted.next = self.n_exhausted.q.val();
    }
}

/// The reference model, written from the module doc with plain integers: per slot a rate in
/// 2^-16 bytes per cycle and a signed bucket in 2^-16 bytes.
#[derive(Clone, Debug, Default)]
pub struct ShaperModel {
    /// (qpn, mbps, rate, bucket) per slot.
    pub slots: [Option<(u32, u32, i64, i64)>; SHAPER_SLOTS],
    pub exhausted: u64,
    /// the start charged in the previous cycle (QPN, bytes), paid in this one
    pub pending: Option<(u32, u64)>,
}

impl ShaperModel {
    /// A rate write taking effect (the block applies it four cycles after `set_ready`).
    pub fn set(&mut self, qpn: u32, mbps: u32, factor: u32, burst: u32) {
        let rate = ((mbps as u64 * factor as u64) >> 8) as i64;
        match (self.slot(qpn), mbps) {
            (Some(i), 0) => self.slots[i] = None,
            (None, 0) => {}
            (Some(i), _) => {
                let b = self.slots[i].unwrap().3;
                self.slots[i] = Some((qpn, mbps, rate, b));
            }
            (None, _) => match self.slots.iter().position(|s| s.is_none()) {
                Some(i) => self.slots[i] = Some((qpn, mbps, rate, (burst as i64) << 16)),
                None => self.exhausted += 1,
            },
        }
    }
    /// (limited, eligible) of a QP now.
    pub fn query(&self, qpn: u32) -> (bool, bool) {
        match self.slot(qpn) {
            Some(i) => (
                true,
                self.slots[i].unwrap().3 >= 0 && !matches!(self.pending, Some((q, _)) if q == qpn),
            ),
            None => (false, true),
        }
    }
    /// The slot's Mb/s, if the QP has one.
    pub fn mbps(&self, qpn: u32) -> Option<u32> {
        self.slot(qpn).map(|i| self.slots[i].unwrap().1)
    }
    fn slot(&self, qpn: u32) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| matches!(s, Some((q, ..)) if *q == qpn))
    }
    /// One clock edge: every bucket refilled and capped, then the start of the previous cycle
    /// (if any) debited; `charge` is this cycle's, paid at the next edge (a QP is not eligible
    /// while its start waits to be paid).
    pub fn cycle(&mut self, charge: Option<(u32, u64)>, burst: u32) {
        let cap = (burst as i64) << 16;
        let paid = self.pending.take();
        for s in self.slots.iter_mut().flatten() {
            s.3 = (s.3 + s.2).min(cap);
            if let Some((q, n)) = paid {
                if q == s.0 {
                    s.3 -= (n.min(MAX_CHARGE) as i64) << 16;
                }
            }
        }
        // a start counts only for a QP holding a slot now
        self.pending = charge.filter(|c| self.slot(c.0).is_some());
    }
    pub fn in_use(&self) -> usize {
        self.slots.iter().flatten().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_at_the_profiles_clocks() {
        assert_eq!(shaper_factor(125_000), Some(16777));
        assert_eq!(shaper_factor(250_000), Some(8389));
        assert_eq!(shaper_factor(32_000), None);
        assert_eq!(shaper_factor(0), None);
    }

    #[test]
    fn synthesizes() {
        crate::csr::synth_check(&mut RateShaper::default(), "rate_shaper");
    }
}
