//! [`RateShaper`]: a token-bucket rate shaper for a pool of rate-limited QPs (docs/CONGESTION.md).
//!
//! Each of [`SHAPER_SLOTS`] slots holds one QP's rate and bucket. A QP without a slot is
//! unlimited: the shaper never makes it wait. A QP with a slot is *eligible* to start a packet
//! (or, in today's requester, a message) iff its bucket is >= 0; the start debits the bucket by
//! the wire bytes (`charge_*`), so one start may take it negative (a deficit the refill pays
//! back before the next start). Every cycle every bucket gains its slot's rate and is capped at
//! `burst` bytes (the NIC sets the largest PMTU, 4096), so a QP idle for a long time starts at
//! most one burst early.
//!
//! # Fixed point
//! * A slot's rate is bytes per cycle in 16.16 fixed point (`rate_int` . `rate_frac`): at least
//!   16 fractional bits as docs/CONGESTION.md asks, up to 65535 bytes per cycle.
//! * The bucket is a signed 32-bit byte count (`bucket_int`, two's complement) and a 16-bit
//!   fraction: it spans a deficit of a whole 2 GiB message (a debit is at most 2^31 - 1 bytes,
//!   and only an eligible, non-negative bucket is debited).
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
//! Every bucket is refilled every cycle, so each slot is its own registers and adder (about 120
//! flip-flops and a 48-bit add and compare), and the eligibility query compares the QPN with
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
//!   (`burst`); a rate change keeps the bucket. Three cycles per write (`set_ready` is high in
//!   `Idle` only).
//! * `q_qpn` -> `q_limited`, `q_eligible` (combinational): the gate's question. An unlimited QP
//!   reads limited 0, eligible 1.
//! * `rd_qpn` -> `rd_limited`, `rd_mbps` (combinational): a second read port for the rate
//!   feeder (the slot's rate in Mb/s as written).
//! * `st_qpn` -> `st_limited`, `st_mbps` (combinational): the same for the host's status
//!   register `CC_QP_RATE` (a third port, so the feeder's sweep never waits for the host).
//! * `charge_valid`, `charge_qpn`, `charge_bytes`: a start; debits the QP's slot (ignored for
//!   an unlimited QP). Counts above 2^31 - 1 saturate there.
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
/// Largest charge: a debit never exceeds 2^31 - 1 bytes (RoCE's message limit is 2^31).
pub const MAX_CHARGE: u64 = (1 << 31) - 1;

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
    /// Convert Mb/s to bytes per cycle (the two partial products).
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
    w_rint: DFF<Bits<32>>,
    w_rfrac: DFF<Bits<17>>,
    w_hit: [DFF<Bit>; SHAPER_SLOTS],
    w_pick: [DFF<Bit>; SHAPER_SLOTS],
    in_use: DFF<Bits<{ SLOT_W + 1 }>>,
    n_exhausted: DFF<Bits<32>>,
    s_valid: [DFF<Bit>; SHAPER_SLOTS],
    s_qpn: [DFF<Bits<SH_QPN_W>>; SHAPER_SLOTS],
    s_mbps: [DFF<Bits<MBPS_W>>; SHAPER_SLOTS],
    /// the rate's integer part (< 2^16) and fraction (< 2^16), kept at the widths of the adds
    s_rint: [DFF<Bits<32>>; SHAPER_SLOTS],
    s_rfrac: [DFF<Bits<17>>; SHAPER_SLOTS],
    s_bint: [DFF<Bits<32>>; SHAPER_SLOTS],
    s_bfrac: [DFF<Bits<17>>; SHAPER_SLOTS],
    // ---- combinational helpers
    seen_free: Signal<Local, Bit>,
    m_lo: Signal<Local, Bits<16>>,
    m_hi: Signal<Local, Bits<16>>,
    p_lo: Signal<Local, Bits<32>>,
    p_hi: Signal<Local, Bits<32>>,
    rate: Signal<Local, Bits<32>>,
    debit: Signal<Local, Bits<32>>,
    burst32: Signal<Local, Bits<32>>,
    f_sum: [Signal<Local, Bits<17>>; SHAPER_SLOTS],
    refill: [Signal<Local, Bits<32>>; SHAPER_SLOTS],
    capped: [Signal<Local, Bits<32>>; SHAPER_SLOTS],
    nfrac: [Signal<Local, Bits<17>>; SHAPER_SLOTS],
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
            w_rint: Default::default(),
            w_rfrac: Default::default(),
            w_hit: Default::default(),
            w_pick: Default::default(),
            in_use: Default::default(),
            n_exhausted: Default::default(),
            s_valid: Default::default(),
            s_qpn: Default::default(),
            s_mbps: Default::default(),
            s_rint: Default::default(),
            s_rfrac: Default::default(),
            s_bint: Default::default(),
            s_bfrac: Default::default(),
            seen_free: Default::default(),
            m_lo: Default::default(),
            m_hi: Default::default(),
            p_lo: Default::default(),
            p_hi: Default::default(),
            rate: Default::default(),
            debit: Default::default(),
            burst32: Default::default(),
            f_sum: Default::default(),
            refill: Default::default(),
            capped: Default::default(),
            nfrac: Default::default(),
            set_hit: Default::default(),
        }
    }
}

// the kernel's literals tied to the constants they stand for
const _: () = assert!(SHAPER_SLOTS == 16);
const _: () = assert!(MAX_CHARGE == 0x7FFF_FFFF);

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
            w_rint,
            w_rfrac,
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
        self.burst32.next = bit_cast::<32, 16>(self.burst.val());
        self.debit.next = self.charge_bytes.val();
        if self.charge_bytes.val().get_bit(31) {
            self.debit.next = 0x7FFF_FFFF.into();
        }
        // Mb/s x factor / 2^8 in 2^-16 bytes per cycle (module doc)
        self.m_lo.next = bit_cast::<16, MBPS_W>(self.w_mbps.q.val());
        self.m_hi.next = bit_cast::<16, 4>(self.w_mbps.q.val().get_bits::<4>(16));
        self.p_lo.next = self.m_lo.val() * self.factor.val();
        self.p_hi.next = self.m_hi.val() * self.factor.val();
        // p_hi < 2^20, so p_hi << 8 < 2^28 and the sum < 2^29
        self.rate.next = (self.p_lo.val() >> 8) + (self.p_hi.val() << 8);

        for i in 0..SHAPER_SLOTS {
            self.w_hit[i].clock.next = self.clock.val();
            self.w_pick[i].clock.next = self.clock.val();
            self.s_valid[i].clock.next = self.clock.val();
            self.s_qpn[i].clock.next = self.clock.val();
            self.s_mbps[i].clock.next = self.clock.val();
            self.s_rint[i].clock.next = self.clock.val();
            self.s_rfrac[i].clock.next = self.clock.val();
            self.s_bint[i].clock.next = self.clock.val();
            self.s_bfrac[i].clock.next = self.clock.val();
            self.w_hit[i].d.next = self.w_hit[i].q.val();
            self.w_pick[i].d.next = self.w_pick[i].q.val();
            self.s_valid[i].d.next = self.s_valid[i].q.val();
            self.s_qpn[i].d.next = self.s_qpn[i].q.val();
            self.s_mbps[i].d.next = self.s_mbps[i].q.val();
            self.s_rint[i].d.next = self.s_rint[i].q.val();
            self.s_rfrac[i].d.next = self.s_rfrac[i].q.val();
            // ---- refill (every cycle), cap at the burst, debit a start
            // (rust-hdl's macro loses a loop index inside `bit_cast`'s argument, so the rate
            // and fraction registers are stored at the widths of these adds, top bits 0)
            self.f_sum[i].next = self.s_bfrac[i].q.val() + self.s_rfrac[i].q.val();
            self.nfrac[i].next = self.f_sum[i].val() & 0xFFFF;
            self.refill[i].next = self.s_bint[i].q.val() + self.s_rint[i].q.val();
            if self.f_sum[i].val().get_bit(16) {
                self.refill[i].next = self.refill[i].val() + 1;
            }
            self.capped[i].next = self.refill[i].val();
            if !self.refill[i].val().get_bit(31) & (self.refill[i].val() >= self.burst32.val()) {
                self.capped[i].next = self.burst32.val();
                self.nfrac[i].next = 0.into();
            }
            if self.charge_valid.val()
                & self.s_valid[i].q.val()
                & (self.s_qpn[i].q.val() == self.charge_qpn.val())
            {
                self.capped[i].next = self.capped[i].val() - self.debit.val();
            }
            self.s_bint[i].d.next = self.capped[i].val();
            self.s_bfrac[i].d.next = self.nfrac[i].val();
            // ---- the query ports
            if self.s_valid[i].q.val() & (self.s_qpn[i].q.val() == self.q_qpn.val()) {
                self.q_limited.next = true;
                self.q_eligible.next = !self.s_bint[i].q.val().get_bit(31);
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
                    self.state.d.next = ShState::Convert;
                }
            }
            ShState::Convert => {
                self.w_rint.d.next = bit_cast::<32, 16>(self.rate.val().get_bits::<16>(16));
                self.w_rfrac.d.next = bit_cast::<17, 16>(self.rate.val().get_bits::<16>(0));
                self.state.d.next = ShState::Apply;
            }
            ShState::Apply => {
                if !self.w_mbps.q.val().any() {
                    // release
                    for i in 0..SHAPER_SLOTS {
                        if self.w_hit[i].q.val() {
                            self.s_valid[i].d.next = false;
                        }
                    }
                    if self.w_found.q.val() {
                        self.in_use.d.next = self.in_use.q.val() - 1;
                    }
                } else if self.w_found.q.val() {
                    // a new rate for the QP's slot; the bucket is kept
                    for i in 0..SHAPER_SLOTS {
                        if self.w_hit[i].q.val() {
                            self.s_mbps[i].d.next = self.w_mbps.q.val();
                            self.s_rint[i].d.next = self.w_rint.q.val();
                            self.s_rfrac[i].d.next = self.w_rfrac.q.val();
                        }
                    }
                } else if self.w_free.q.val() {
                    // allocate the first free slot, bucket full
                    for i in 0..SHAPER_SLOTS {
                        if self.w_pick[i].q.val() {
                            self.s_valid[i].d.next = true;
                            self.s_qpn[i].d.next = self.w_qpn.q.val();
                            self.s_mbps[i].d.next = self.w_mbps.q.val();
                            self.s_rint[i].d.next = self.w_rint.q.val();
                            self.s_rfrac[i].d.next = self.w_rfrac.q.val();
                            self.s_bint[i].d.next = self.burst32.val();
                            self.s_bfrac[i].d.next = 0.into();
                        }
                    }
                    self.in_use.d.next = self.in_use.q.val() + 1;
                } else {
                    self.n_exhausted.d.next = self.n_exhausted.q.val() + 1;
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
}

impl ShaperModel {
    /// A rate write taking effect (the block applies it three cycles after `set_ready`).
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
            Some(i) => (true, self.slots[i].unwrap().3 >= 0),
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
    /// One clock edge: every bucket refilled and capped, then the start (if any) debited.
    pub fn cycle(&mut self, charge: Option<(u32, u64)>, burst: u32) {
        let cap = (burst as i64) << 16;
        for s in self.slots.iter_mut().flatten() {
            s.3 = (s.3 + s.2).min(cap);
            if let Some((q, n)) = charge {
                if q == s.0 {
                    s.3 -= (n.min(MAX_CHARGE) as i64) << 16;
                }
            }
        }
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
