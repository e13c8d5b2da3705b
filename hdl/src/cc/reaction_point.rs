//! [`ReactionPoint`]: the DCQCN reaction point, a pool of per-QP rate limiters.
//!
//! The algorithm is DCQCN as ConnectX (mlx5) runs it: current rate Rc and target rate Rt in Mb/s,
//! alpha in Q10 (1024 = 1.0), a timer stage and a byte stage, and three timers on a 1 us tick
//! (alpha update every `dce_tcp_rtt`, at most one rate decrease every
//! `rate_reduce_monitor_period`, a rate increase every `rpg_time_reset`). docs/CONGESTION.md states
//! the arithmetic and the order of events within one microsecond line by line; in short:
//!
//! * CNP for a QP without a limiter: allocate one; Rc = Rt = `rate_to_set_on_first_cnp` (0 = the
//!   cap; at most the cap), alpha = `initial_alpha_value`, arm the three timers one period ahead.
//!   This CNP cuts nothing. A CNP for a limited QP marks "CNP arrived" for alpha and decrease.
//! * Bytes sent: counted in units of 64 x `rpg_byte_reset` bytes (0 = off); each whole unit is a
//!   rate increase and a byte-stage step; the remainder is kept.
//! * Increase: Rt += `rpg_hai_rate` if min(stages) > `rpg_threshold`, else `rpg_ai_rate` if
//!   max(stages) >= `rpg_threshold`, else nothing (fast recovery); Rt = min(Rt, cap);
//!   Rc = (Rc + Rt) / 2.
//! * At each tick, per limiter, the timers due in this order: increase (then t_stage + 1);
//!   decrease (if a CNP arrived: clamp Rt = Rc if `clamp_tgt_rate`, or bc_stage > 0, or
//!   `clamp_tgt_rate_after_time_inc` and t_stage > 0; Rc -= min(Rc x alpha >> `rpg_gd`,
//!   Rc x (100 - `rpg_min_dec_fac`) / 100); Rc = max(Rc, `rpg_min_rate`); clear the stages and the
//!   byte count; restart the increase timer); alpha (alpha = g x alpha / 1024, plus 1024 - g if a
//!   CNP arrived, at most 1023).
//!
//! # Pool
//! [`LIMITERS`] limiters serve up to 2^[`QPN_W`] QPs: a limiter is allocated at a QP's first CNP
//! (as ConnectX does) and released when the QP has recovered (at an increase-timer expiry with no
//! CNP pending, Rt = cap and Rc >= cap - 1, if `release_on_recovery`), or when software clears the
//! QP's enable. Why 16: every microsecond the sweep visits each limiter, 6 cycles for an active
//! one (increase, four decrease stages, write back; the next limiter loads during the write
//! back, one cycle more after a free one) and 1 for a free one, so 16 busy limiters take 98
//! cycles from the tick to idle, of the 125 a microsecond has at 125 MHz, leaving the rest for
//! CNP and bytes events (which wait while the sweep runs). A tick waits at most for the event
//! in progress (a CNP up to 5 cycles, bytes 6 + 2 per whole byte unit), so no tick overruns
//! while 98 + that <= 125 (docs/CONGESTION.md, "The limiter pool"). A CNP
//! that finds the pool empty leaves the QP unlimited and counts in `cnp_no_limiter`; one for a
//! disabled QP counts in `cnp_disabled`; a tick that arrives while the previous one is still
//! pending counts in `tick_overruns`. Nothing is dropped silently.
//!
//! # Division
//! Rc x (100 - f) / 100 is exact without a divider: for x < 2^30, x / 100 = (x x M) >> 32 with
//! M = ceil(2^32 / 100) = 42949673 (100 M - 2^32 = 4, so the error x x 4 / 2^32 stays below 1/100
//! and never crosses an integer; `reciprocal_is_exact` in `hdl/tests/reaction_point.rs` checks
//! every x the block can make, x <= 100 x (2^20 - 1)). Since x x M = Rc x K with
//! K = (100 - f) x M (at most 2^32 + 4), K is formed from the parameter once (registered, in
//! 16-bit pieces km2 x 2^32 + km1 x 2^16 + km0), and the quotient is one product,
//! floor(Rc x K / 2^32). The kernel has 16 x 16 multipliers only, so it is taken in pieces
//! (Rc = r1 x 2^16 + r0): hi + (lo >> 16) with lo = (r0 km1 mod 2^16) + r1 km0 + (r0 km0 >> 16)
//! and hi = r1 km1 + (r0 km1 >> 16) + km2 Rc, each below 2^32 (the test checks every Rc and f).
//!
//! # Timing
//! The decrease is a pipeline that runs every cycle on the limiter in `work` (Rc and alpha hold
//! still from `SweepDec1` to `SweepDec4`): (1) the six products and g x alpha into registers,
//! (2) Rc x alpha >> gd and the quotient's two partial sums, (3) the quotient and
//! max(Rc - (Rc x alpha >> gd), `rpg_min_rate`), (4) the smaller cut, floored, into `work`. Every
//! product goes into its own register every cycle, so Yosys cannot share a multiplier behind a
//! mux. The increase forms its three candidates (step 0, ai, hai; each capped) side by side and
//! picks one by the stages. The parameters the sweep uses are registered.
//!
//! # Ports
//! * `tick`: the 1 us pulse; ends the current microsecond (the timers due in it fire).
//! * `cnp_*`, `bytes_*`, `qp_en_*`: valid/ready requests (a CNP arrived for `cnp_qpn`; the QP
//!   sent `bytes_n` bytes; set the QP's enable). A request waits while the sweep runs.
//! * `rate_qpn` -> two cycles later (a per-QP copy in block RAM, read and registered)
//!   `rate_limited` and the limiter's `rate_rc` (the shaper's rate),
//!   `rate_rt`, `rate_alpha`, `rate_t_stage`, `rate_bc_stage`; an unlimited QP reads Rc = Rt = cap,
//!   alpha 1023, stages 0.
//! * parameters: one input per mlx5 parameter (`p_*`), `enable` (global) and
//!   `release_on_recovery`.
//! * `idle`: no request or tick in progress; `limiters_in_use`, the counters above and
//!   `rate_cuts` (rate decreases made).
use rust_hdl::prelude::*;

/// QPN bits of the QPs the block serves (the default build's 256 QPs).
pub const QPN_W: usize = 8;
/// Limiter index bits.
pub const LIM_W: usize = 4;
/// Limiters in the pool (see the module doc).
pub const LIMITERS: usize = 1 << LIM_W;
/// Rate bits: Mb/s up to 1,048,575 (100 Gb/s is 100,000).
pub const RATE_W: usize = 20;
/// Timer bits: periods up to 1,048,575 us.
pub const TIMER_W: usize = 20;
/// Stage bits: the stages saturate at 65,535 (compared only with `rpg_threshold` <= 65,534).
pub const STAGE_W: usize = 16;
/// Byte-count bits: the remainder is below 64 x 32767 < 2^21.
pub const BC_W: usize = 21;
/// Bits of one bytes-sent event (16 MiB - 1; a packet is far less).
pub const BYTES_W: usize = 24;
/// M = ceil(2^32 / 100), split in 16-bit halves (see the module doc).
pub const RECIP_100: u64 = 42_949_673;

/// The state of one rate limiter (one RAM word).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct RpLimiter {
    /// Allocated to `qpn`.
    pub active: Bit,
    pub qpn: Bits<QPN_W>,
    /// Current rate Rc, Mb/s.
    pub rc: Bits<RATE_W>,
    /// Target rate Rt, Mb/s.
    pub rt: Bits<RATE_W>,
    /// alpha, Q10.
    pub alpha: Bits<10>,
    pub t_stage: Bits<STAGE_W>,
    pub bc_stage: Bits<STAGE_W>,
    /// Bytes counted towards the next byte-stage step.
    pub byte_count: Bits<BC_W>,
    /// A CNP arrived since the last alpha update.
    pub alpha_cnp: Bit,
    /// A CNP arrived since the last rate decrease.
    pub dec_cnp: Bit,
    /// Ticks until each timer is due (0 = due at the end of this microsecond).
    pub inc_left: Bits<TIMER_W>,
    pub dec_left: Bits<TIMER_W>,
    pub alpha_left: Bits<TIMER_W>,
}

/// A QP's word in the rate port's copy (what the rate port reads).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct RpRateWord {
    pub limited: Bit,
    pub rc: Bits<RATE_W>,
    pub rt: Bits<RATE_W>,
    pub alpha: Bits<10>,
    pub t_stage: Bits<STAGE_W>,
    pub bc_stage: Bits<STAGE_W>,
}

/// A QP's entry in the QPN -> limiter map.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct RpMapEntry {
    pub limited: Bit,
    pub limiter: Bits<LIM_W>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RpState {
    /// After reset: clear the map, the enables and the limiters, fill the free list.
    Init,
    /// Take the pending tick (a sweep), else a QP-enable write, else a CNP, else bytes.
    Idle,
    /// Sweep: the limiter `idx` is read; skip it if free, else load it.
    SweepLoad,
    /// Sweep: the increase timer (if due).
    SweepInc,
    /// Sweep, decrease 1: clamp Rt; the products Rc x alpha and Rc x K (K = (100 - f) x M)
    /// are registered.
    SweepDec1,
    /// Sweep, decrease 2: Rc x alpha >> gd and the two partial sums of the quotient are
    /// registered.
    SweepDec2,
    /// Sweep, decrease 3: the quotient Rc x (100 - f) / 100, and Rc - (Rc x alpha >> gd)
    /// floored at `rpg_min_rate`, are registered.
    SweepDec3,
    /// Sweep, decrease 4: the cut (the smaller decrease, floored); the alpha timer and the
    /// timers' countdown; the next limiter is read.
    SweepDec4,
    /// Sweep: write the limiter back (releasing it if it recovered); load the next limiter or
    /// done.
    SweepWrite,
    /// CNP: the QP's map entry and enable are read (block RAM; registered in `map_q`, `en_q`).
    CnpWait,
    /// CNP: the QP's map entry and enable, registered; update, allocate or count.
    CnpMap,
    /// CNP for a limited QP: set both "CNP arrived" flags.
    CnpLoad,
    /// Bytes: the QP's map entry is read.
    BytesWait,
    /// Bytes: the QP's map entry, registered.
    BytesMap,
    /// Bytes: the limiter is read; add the bytes to its count.
    BytesLoad,
    /// Bytes: one increase per whole unit (then BytesPrep); else to the write back.
    BytesLoop,
    /// Bytes: the next increase's candidates are formed from `work`.
    BytesPrep,
    /// QP enable cleared: the QP's map entry is read.
    CfgWait,
    /// QP enable cleared: release the QP's limiter if it has one.
    CfgMap,
    /// An event's limiter record, prepared in `work`, is written back (the limiter RAM's write
    /// data is always `work`, so its input mux stays small).
    LimStore,
}

#[derive(LogicBlock)]
pub struct ReactionPoint {
    pub clock: Signal<In, Clock>,
    pub tick: Signal<In, Bit>,
    // ---- events
    pub cnp_valid: Signal<In, Bit>,
    pub cnp_qpn: Signal<In, Bits<QPN_W>>,
    pub cnp_ready: Signal<Out, Bit>,
    pub bytes_valid: Signal<In, Bit>,
    pub bytes_qpn: Signal<In, Bits<QPN_W>>,
    pub bytes_n: Signal<In, Bits<BYTES_W>>,
    pub bytes_ready: Signal<Out, Bit>,
    pub qp_en_valid: Signal<In, Bit>,
    pub qp_en_qpn: Signal<In, Bits<QPN_W>>,
    pub qp_en_value: Signal<In, Bit>,
    pub qp_en_ready: Signal<Out, Bit>,
    // ---- rate read port (2 cycles)
    pub rate_qpn: Signal<In, Bits<QPN_W>>,
    pub rate_limited: Signal<Out, Bit>,
    pub rate_rc: Signal<Out, Bits<RATE_W>>,
    pub rate_rt: Signal<Out, Bits<RATE_W>>,
    pub rate_alpha: Signal<Out, Bits<10>>,
    pub rate_t_stage: Signal<Out, Bits<STAGE_W>>,
    pub rate_bc_stage: Signal<Out, Bits<STAGE_W>>,
    // ---- parameters (mlx5 names)
    pub enable: Signal<In, Bit>,
    pub release_on_recovery: Signal<In, Bit>,
    pub line_rate: Signal<In, Bits<RATE_W>>,
    pub p_time_reset: Signal<In, Bits<TIMER_W>>,
    pub p_byte_reset: Signal<In, Bits<15>>,
    pub p_threshold: Signal<In, Bits<STAGE_W>>,
    pub p_max_rate: Signal<In, Bits<RATE_W>>,
    pub p_ai_rate: Signal<In, Bits<RATE_W>>,
    pub p_hai_rate: Signal<In, Bits<RATE_W>>,
    pub p_gd: Signal<In, Bits<5>>,
    pub p_min_dec_fac: Signal<In, Bits<7>>,
    pub p_min_rate: Signal<In, Bits<RATE_W>>,
    pub p_first_cnp_rate: Signal<In, Bits<RATE_W>>,
    pub p_alpha_g: Signal<In, Bits<11>>,
    pub p_alpha_period: Signal<In, Bits<TIMER_W>>,
    pub p_reduce_period: Signal<In, Bits<TIMER_W>>,
    pub p_initial_alpha: Signal<In, Bits<10>>,
    pub p_clamp_tgt_rate: Signal<In, Bit>,
    pub p_clamp_after_time_inc: Signal<In, Bit>,
    // ---- status
    pub idle: Signal<Out, Bit>,
    pub limiters_in_use: Signal<Out, Bits<{ LIM_W + 1 }>>,
    pub cnp_no_limiter: Signal<Out, Bits<32>>,
    pub cnp_disabled: Signal<Out, Bits<32>>,
    pub tick_overruns: Signal<Out, Bits<32>>,
    /// rate decreases made (a decrease timer expiry with a CNP pending)
    pub rate_cuts: Signal<Out, Bits<32>>,
    // ---- state
    state: DFF<RpState>,
    init_i: DFF<Bits<QPN_W>>,
    tick_pending: DFF<Bit>,
    idx: DFF<Bits<LIM_W>>,
    ev_qpn: DFF<Bits<QPN_W>>,
    acc: DFF<Bits<25>>,
    work: DFF<RpLimiter>,
    inc_fired: DFF<Bit>,
    cut_done: DFF<Bit>,
    /// parameters, registered: the ceiling, the floor, the periods minus one, and
    /// K = (100 - f) x M in three pieces (`km2` x 2^32 + `km1` x 2^16 + `km0`)
    cap_r: DFF<Bits<RATE_W>>,
    mr_r: DFF<Bits<RATE_W>>,
    inc_p1_r: DFF<Bits<TIMER_W>>,
    dec_p1_r: DFF<Bits<TIMER_W>>,
    alpha_p1_r: DFF<Bits<TIMER_W>>,
    k_r: DFF<Bits<16>>,
    km0: DFF<Bits<16>>,
    km1: DFF<Bits<16>>,
    km2: DFF<Bit>,
    /// the decrease pipeline (runs every cycle on `work`; the Dec states take its stages)
    pa_lo_r: DFF<Bits<32>>,
    pa_hi_r: DFF<Bits<32>>,
    pq00_r: DFF<Bits<32>>,
    pq01_r: DFF<Bits<32>>,
    pq10_r: DFF<Bits<32>>,
    pq11_r: DFF<Bits<32>>,
    ga_r: DFF<Bits<32>>,
    cut_a: DFF<Bits<32>>,
    lo_r: DFF<Bits<32>>,
    hi_r: DFF<Bits<32>>,
    rm_r: DFF<Bits<32>>,
    rc_lt_mr: DFF<Bit>,
    quo_r: DFF<Bits<32>>,
    /// stage 3's compares on the quotient: cut_a < quotient, Rc - quotient < rpg_min_rate,
    /// Rc - quotient, Rc - quotient >= capm1
    lt_r: DFF<Bit>,
    qcl_r: DFF<Bit>,
    dq_r: DFF<Bits<32>>,
    qrel_r: DFF<Bit>,
    ca_r: DFF<Bits<32>>,
    in_use: DFF<Bits<{ LIM_W + 1 }>>,
    n_no_limiter: DFF<Bits<32>>,
    n_disabled: DFF<Bits<32>>,
    n_overruns: DFF<Bits<32>>,
    n_cuts: DFF<Bits<32>>,
    /// the rate port's word, registered after the block RAM
    rv: DFF<RpRateWord>,
    /// the map entry and enable the state machine read, registered (block RAM outputs)
    map_q: DFF<RpMapEntry>,
    en_q: DFF<Bit>,
    /// the limiter just read has its increase timer due (for SweepInc)
    inc_due: DFF<Bit>,
    /// the increase's candidates, a cycle ahead (see the kernel)
    hai_r: DFF<Bit>,
    ai_r: DFF<Bit>,
    o0_r: DFF<Bit>,
    oai_r: DFF<Bit>,
    ohai_r: DFF<Bit>,
    sai_r: DFF<Bits<RATE_W>>,
    shai_r: DFF<Bits<RATE_W>>,
    rs0_r: DFF<Bits<22>>,
    rsai_r: DFF<Bits<22>>,
    rshai_r: DFF<Bits<22>>,
    rcap_r: DFF<Bits<22>>,
    f_bprep: DFF<Bit>,
    /// the release check, made in SweepDec4 for SweepWrite: the cap minus one (0 if the cap is
    /// 0), Rc minus that, and the result
    capm1_r: DFF<Bits<32>>,
    rcc_r: DFF<Bits<32>>,
    rc_ge_capm1: DFF<Bit>,
    mr_ge_capm1: DFF<Bit>,
    rel_r: DFF<Bit>,
    /// bytes: the count holds at least one more whole unit (for BytesLoop)
    ge_r: DFF<Bit>,
    /// one-hot copies of the state for the `work` register's input mux (set from the next state)
    f_load: DFF<Bit>,
    f_inc: DFF<Bit>,
    f_dec1: DFF<Bit>,
    f_dec4: DFF<Bit>,
    f_write: DFF<Bit>,
    f_cnpmap: DFF<Bit>,
    f_cnpload: DFF<Bit>,
    f_bload: DFF<Bit>,
    f_bloop: DFF<Bit>,
    f_cfgmap: DFF<Bit>,
    f_store: DFF<Bit>,
    /// limiters, read by the state machine
    lim_f: RAM<RpLimiter, LIM_W>,
    /// QPN -> limiter
    map_f: RAM<RpMapEntry, QPN_W>,
    /// per QP, what the rate port reads: written with every limiter write (at the limiter's
    /// QPN), so the port is one block RAM read and a register
    rate_q: RAM<RpRateWord, QPN_W>,
    /// per-QP enable
    qp_en: RAM<Bit, QPN_W>,
    free: SynchronousFIFO<Bits<LIM_W>, 5, 6, 1>,
    c_m0: Constant<Bits<16>>,
    c_m1: Constant<Bits<16>>,
    c_map_zero: Constant<RpMapEntry>,
    c_lim_zero: Constant<RpLimiter>,
    // ---- combinational helpers
    cap: Signal<Local, Bits<RATE_W>>,
    first_rate: Signal<Local, Bits<RATE_W>>,
    unit: Signal<Local, Bits<BC_W>>,
    xs: Signal<Local, RpLimiter>,
    rt21: Signal<Local, Bits<21>>,
    cap21: Signal<Local, Bits<21>>,
    s_ai: Signal<Local, Bits<21>>,
    s_hai: Signal<Local, Bits<21>>,
    rr: Signal<Local, Bits<22>>,
    rti_0: Signal<Local, Bits<RATE_W>>,
    rti_ai: Signal<Local, Bits<RATE_W>>,
    rti_hai: Signal<Local, Bits<RATE_W>>,
    rci_0: Signal<Local, Bits<22>>,
    rci_ai: Signal<Local, Bits<22>>,
    rci_hai: Signal<Local, Bits<22>>,
    rt_inc: Signal<Local, Bits<RATE_W>>,
    rc_inc: Signal<Local, Bits<RATE_W>>,
    r0: Signal<Local, Bits<16>>,
    r1: Signal<Local, Bits<16>>,
    alpha16: Signal<Local, Bits<16>>,
    k16: Signal<Local, Bits<16>>,
    t0: Signal<Local, Bits<32>>,
    u0: Signal<Local, Bits<32>>,
    rc32: Signal<Local, Bits<32>>,
    mr32: Signal<Local, Bits<32>>,
    da: Signal<Local, Bits<32>>,
    quo: Signal<Local, Bits<32>>,
    rc_new: Signal<Local, Bits<32>>,
    km2_rc: Signal<Local, Bits<32>>,
    g16: Signal<Local, Bits<16>>,
    a_dec: Signal<Local, Bits<12>>,
    a_cnp: Signal<Local, Bits<12>>,
    inc_p1: Signal<Local, Bits<TIMER_W>>,
    dec_p1: Signal<Local, Bits<TIMER_W>>,
    alpha_p1: Signal<Local, Bits<TIMER_W>>,
    fresh: Signal<Local, RpLimiter>,
    cnp_set: Signal<Local, RpLimiter>,
    map_new: Signal<Local, RpMapEntry>,
    rw: Signal<Local, RpRateWord>,
    go_cfg: Signal<Local, Bit>,
    go_cnp: Signal<Local, Bit>,
    go_bytes: Signal<Local, Bit>,
    nxt: Signal<Local, RpState>,
    acc_ld: Signal<Local, Bits<25>>,
    rel_cut: Signal<Local, Bit>,
    rel: Signal<Local, Bit>,
    unit2: Signal<Local, Bits<25>>,
}

impl Default for ReactionPoint {
    fn default() -> Self {
        ReactionPoint {
            clock: Default::default(),
            tick: Default::default(),
            cnp_valid: Default::default(),
            cnp_qpn: Default::default(),
            cnp_ready: Default::default(),
            bytes_valid: Default::default(),
            bytes_qpn: Default::default(),
            bytes_n: Default::default(),
            bytes_ready: Default::default(),
            qp_en_valid: Default::default(),
            qp_en_qpn: Default::default(),
            qp_en_value: Default::default(),
            qp_en_ready: Default::default(),
            rate_qpn: Default::default(),
            rate_limited: Default::default(),
            rate_rc: Default::default(),
            rate_rt: Default::default(),
            rate_alpha: Default::default(),
            rate_t_stage: Default::default(),
            rate_bc_stage: Default::default(),
            enable: Default::default(),
            release_on_recovery: Default::default(),
            line_rate: Default::default(),
            p_time_reset: Default::default(),
            p_byte_reset: Default::default(),
            p_threshold: Default::default(),
            p_max_rate: Default::default(),
            p_ai_rate: Default::default(),
            p_hai_rate: Default::default(),
            p_gd: Default::default(),
            p_min_dec_fac: Default::default(),
            p_min_rate: Default::default(),
            p_first_cnp_rate: Default::default(),
            p_alpha_g: Default::default(),
            p_alpha_period: Default::default(),
            p_reduce_period: Default::default(),
            p_initial_alpha: Default::default(),
            p_clamp_tgt_rate: Default::default(),
            p_clamp_after_time_inc: Default::default(),
            idle: Default::default(),
            limiters_in_use: Default::default(),
            cnp_no_limiter: Default::default(),
            cnp_disabled: Default::default(),
            tick_overruns: Default::default(),
            rate_cuts: Default::default(),
            state: Default::default(),
            init_i: Default::default(),
            tick_pending: Default::default(),
            idx: Default::default(),
            ev_qpn: Default::default(),
            acc: Default::default(),
            work: Default::default(),
            inc_fired: Default::default(),
            cut_done: Default::default(),
            cap_r: Default::default(),
            mr_r: Default::default(),
            inc_p1_r: Default::default(),
            dec_p1_r: Default::default(),
            alpha_p1_r: Default::default(),
            k_r: Default::default(),
            km0: Default::default(),
            km1: Default::default(),
            km2: Default::default(),
            pa_lo_r: Default::default(),
            pa_hi_r: Default::default(),
            pq00_r: Default::default(),
            pq01_r: Default::default(),
            pq10_r: Default::default(),
            pq11_r: Default::default(),
            ga_r: Default::default(),
            cut_a: Default::default(),
            lo_r: Default::default(),
            hi_r: Default::default(),
            rm_r: Default::default(),
            rc_lt_mr: Default::default(),
            quo_r: Default::default(),
            lt_r: Default::default(),
            qcl_r: Default::default(),
            dq_r: Default::default(),
            qrel_r: Default::default(),
            ca_r: Default::default(),
            in_use: Default::default(),
            n_no_limiter: Default::default(),
            n_disabled: Default::default(),
            n_overruns: Default::default(),
            n_cuts: Default::default(),
            rv: Default::default(),
            map_q: Default::default(),
            en_q: Default::default(),
            inc_due: Default::default(),
            hai_r: Default::default(),
            ai_r: Default::default(),
            o0_r: Default::default(),
            oai_r: Default::default(),
            ohai_r: Default::default(),
            sai_r: Default::default(),
            shai_r: Default::default(),
            rs0_r: Default::default(),
            rsai_r: Default::default(),
            rshai_r: Default::default(),
            rcap_r: Default::default(),
            f_bprep: Default::default(),
            capm1_r: Default::default(),
            rcc_r: Default::default(),
            rc_ge_capm1: Default::default(),
            mr_ge_capm1: Default::default(),
            rel_r: Default::default(),
            ge_r: Default::default(),
            f_load: Default::default(),
            f_inc: Default::default(),
            f_dec1: Default::default(),
            f_dec4: Default::default(),
            f_write: Default::default(),
            f_cnpmap: Default::default(),
            f_cnpload: Default::default(),
            f_bload: Default::default(),
            f_bloop: Default::default(),
            f_cfgmap: Default::default(),
            f_store: Default::default(),
            lim_f: Default::default(),
            map_f: Default::default(),
            rate_q: Default::default(),
            qp_en: Default::default(),
            free: Default::default(),
            c_m0: Constant::new((RECIP_100 & 0xFFFF).into()),
            c_m1: Constant::new((RECIP_100 >> 16).into()),
            c_map_zero: Constant::new(RpMapEntry::default()),
            c_lim_zero: Constant::new(RpLimiter::default()),
            cap: Default::default(),
            first_rate: Default::default(),
            unit: Default::default(),
            xs: Default::default(),
            rt21: Default::default(),
            cap21: Default::default(),
            s_ai: Default::default(),
            s_hai: Default::default(),
            rr: Default::default(),
            rti_0: Default::default(),
            rti_ai: Default::default(),
            rti_hai: Default::default(),
            rci_0: Default::default(),
            rci_ai: Default::default(),
            rci_hai: Default::default(),
            rt_inc: Default::default(),
            rc_inc: Default::default(),
            r0: Default::default(),
            r1: Default::default(),
            alpha16: Default::default(),
            k16: Default::default(),
            t0: Default::default(),
            u0: Default::default(),
            rc32: Default::default(),
            mr32: Default::default(),
            da: Default::default(),
            quo: Default::default(),
            rc_new: Default::default(),
            km2_rc: Default::default(),
            g16: Default::default(),
            a_dec: Default::default(),
            a_cnp: Default::default(),
            inc_p1: Default::default(),
            dec_p1: Default::default(),
            alpha_p1: Default::default(),
            fresh: Default::default(),
            cnp_set: Default::default(),
            map_new: Default::default(),
            rw: Default::default(),
            go_cfg: Default::default(),
            go_cnp: Default::default(),
            go_bytes: Default::default(),
            nxt: Default::default(),
            acc_ld: Default::default(),
            rel_cut: Default::default(),
            rel: Default::default(),
            unit2: Default::default(),
        }
    }
}

impl Logic for ReactionPoint {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            init_i,
            tick_pending,
            idx,
            ev_qpn,
            acc,
            work,
            inc_fired,
            cut_done,
            cap_r,
            mr_r,
            inc_p1_r,
            dec_p1_r,
            alpha_p1_r,
            k_r,
            km0,
            km1,
            km2,
            pa_lo_r,
            pa_hi_r,
            pq00_r,
            pq01_r,
            pq10_r,
            pq11_r,
            ga_r,
            cut_a,
            lo_r,
            hi_r,
            rm_r,
            rc_lt_mr,
            quo_r,
            lt_r,
            qcl_r,
            dq_r,
            qrel_r,
            ca_r,
            in_use,
            n_no_limiter,
            n_disabled,
            n_overruns,
            n_cuts,
            rv,
            map_q,
            en_q,
            inc_due,
            hai_r,
            ai_r,
            o0_r,
            oai_r,
            ohai_r,
            sai_r,
            shai_r,
            rs0_r,
            rsai_r,
            rshai_r,
            rcap_r,
            f_bprep,
            capm1_r,
            rcc_r,
            rc_ge_capm1,
            mr_ge_capm1,
            rel_r,
            ge_r,
            f_load,
            f_inc,
            f_dec1,
            f_dec4,
            f_write,
            f_cnpmap,
            f_cnpload,
            f_bload,
            f_bloop,
            f_cfgmap,
            f_store
        );
        clock!(self, clock, free);
        self.lim_f.read_clock.next = self.clock.val();
        self.lim_f.write_clock.next = self.clock.val();
        self.rate_q.read_clock.next = self.clock.val();
        self.rate_q.write_clock.next = self.clock.val();
        self.map_f.read_clock.next = self.clock.val();
        self.map_f.write_clock.next = self.clock.val();
        self.qp_en.read_clock.next = self.clock.val();
        self.qp_en.write_clock.next = self.clock.val();

        // ---- defaults
        self.cnp_ready.next = false;
        self.bytes_ready.next = false;
        self.qp_en_ready.next = false;
        self.go_cfg.next = false;
        self.go_cnp.next = false;
        self.go_bytes.next = false;
        self.nxt.next = self.state.q.val();
        self.lim_f.read_address.next = self.idx.q.val();
        self.lim_f.write_address.next = self.idx.q.val();
        self.lim_f.write_data.next = self.work.q.val();
        self.lim_f.write_enable.next = false;
        self.map_f.read_address.next = self.ev_qpn.q.val();
        self.map_f.write_address.next = self.ev_qpn.q.val();
        self.map_f.write_data.next = self.c_map_zero.val();
        self.map_f.write_enable.next = false;
        self.qp_en.read_address.next = self.ev_qpn.q.val();
        self.qp_en.write_address.next = self.ev_qpn.q.val();
        self.qp_en.write_data.next = false;
        self.qp_en.write_enable.next = false;
        self.free.data_in.next = self.idx.q.val();
        self.free.write.next = false;
        self.free.read.next = false;

        self.map_q.d.next = self.map_f.read_data.val();
        self.inc_due.d.next = self.lim_f.read_data.val().inc_left == 0;
        self.en_q.d.next = self.qp_en.read_data.val();

        // ---- the tick: pending until a sweep takes it; one arriving while pending is an overrun
        if self.tick.val() {
            self.tick_pending.d.next = true;
            if self.tick_pending.q.val() {
                self.n_overruns.d.next = self.n_overruns.q.val() + 1;
            }
        }

        // ---- rates: cap = min(max_rate or line, line); first rate = min(first or cap, cap)
        self.cap.next = self.line_rate.val();
        if (self.p_max_rate.val() != 0) & (self.p_max_rate.val() < self.line_rate.val()) {
            self.cap.next = self.p_max_rate.val();
        }
        self.first_rate.next = self.cap.val();
        if (self.p_first_cnp_rate.val() != 0) & (self.p_first_cnp_rate.val() < self.cap.val()) {
            self.first_rate.next = self.p_first_cnp_rate.val();
        }
        self.unit.next = bit_cast::<BC_W, 15>(self.p_byte_reset.val()) << 6;
        self.unit2.next = bit_cast::<25, BC_W>(self.unit.val()) << 1;
        self.acc_ld.next =
            self.acc.q.val() + bit_cast::<25, BC_W>(self.lim_f.read_data.val().byte_count);
        // periods minus one (a period of 0 counts as 1)
        self.inc_p1.next = 0.into();
        if self.p_time_reset.val() != 0 {
            self.inc_p1.next = self.p_time_reset.val() - 1;
        }
        self.dec_p1.next = 0.into();
        if self.p_reduce_period.val() != 0 {
            self.dec_p1.next = self.p_reduce_period.val() - 1;
        }
        self.alpha_p1.next = 0.into();
        if self.p_alpha_period.val() != 0 {
            self.alpha_p1.next = self.p_alpha_period.val() - 1;
        }

        // parameters into registers (they change only by host writes): K = (100 - f) x M as
        // k x m0 + 2^16 x k x m1, kept in 16-bit pieces (K <= 2^32 + 4)
        self.cap_r.d.next = self.cap.val();
        self.mr_r.d.next = self.p_min_rate.val();
        self.inc_p1_r.d.next = self.inc_p1.val();
        self.dec_p1_r.d.next = self.dec_p1.val();
        self.alpha_p1_r.d.next = self.alpha_p1.val();
        self.k16.next = 0.into();
        if self.p_min_dec_fac.val() < 100 {
            self.k16.next = 100 - bit_cast::<16, 7>(self.p_min_dec_fac.val());
        }
        self.k_r.d.next = self.k16.val();
        self.t0.next = self.k_r.q.val() * self.c_m0.val();
        self.u0.next = (self.t0.val() >> 16) + (self.k_r.q.val() * self.c_m1.val());
        self.km0.d.next = bit_cast::<16, 32>(self.t0.val() & 0xFFFF);
        self.km1.d.next = bit_cast::<16, 32>(self.u0.val() & 0xFFFF);
        self.km2.d.next = self.u0.val().get_bit(16);

        // ---- the increase of the limiter in `work`: Rt + the step chosen by the stages
        // (min(stages) > threshold: hai; max(stages) >= threshold: ai; else 0), at most the
        // cap; Rc = (Rc + Rt) / 2. In two halves: the three candidates (step 0, ai, hai), their
        // sums and compares with the cap, are registered a cycle ahead, from the limiter being
        // loaded (`lim_f.read_data`, in SweepLoad, SweepWrite and BytesLoad) or from `work`
        // (BytesPrep); SweepInc and BytesLoop then only pick.
        self.xs.next = self.lim_f.read_data.val();
        if self.f_bprep.q.val() {
            self.xs.next = self.work.q.val();
        }
        self.hai_r.d.next = (self.xs.val().t_stage > self.p_threshold.val())
            & (self.xs.val().bc_stage > self.p_threshold.val());
        self.ai_r.d.next = (self.xs.val().t_stage >= self.p_threshold.val())
            | (self.xs.val().bc_stage >= self.p_threshold.val());
        self.rt21.next = bit_cast::<21, RATE_W>(self.xs.val().rt);
        self.cap21.next = bit_cast::<21, RATE_W>(self.cap_r.q.val());
        self.s_ai.next = self.rt21.val() + bit_cast::<21, RATE_W>(self.p_ai_rate.val());
        self.s_hai.next = self.rt21.val() + bit_cast::<21, RATE_W>(self.p_hai_rate.val());
        self.sai_r.d.next = bit_cast::<RATE_W, 21>(self.s_ai.val());
        self.shai_r.d.next = bit_cast::<RATE_W, 21>(self.s_hai.val());
        self.o0_r.d.next = self.rt21.val() > self.cap21.val();
        self.oai_r.d.next = self.s_ai.val() > self.cap21.val();
        self.ohai_r.d.next = self.s_hai.val() > self.cap21.val();
        self.rr.next =
            bit_cast::<22, RATE_W>(self.xs.val().rc) + bit_cast::<22, RATE_W>(self.xs.val().rt);
        self.rs0_r.d.next = self.rr.val();
        self.rsai_r.d.next = self.rr.val() + bit_cast::<22, RATE_W>(self.p_ai_rate.val());
        self.rshai_r.d.next = self.rr.val() + bit_cast::<22, RATE_W>(self.p_hai_rate.val());
        self.rcap_r.d.next =
            bit_cast::<22, RATE_W>(self.xs.val().rc) + bit_cast::<22, RATE_W>(self.cap_r.q.val());
        // the pick (the candidates are of the limiter now in `work`)
        self.rti_0.next = self.work.q.val().rt;
        self.rci_0.next = self.rs0_r.q.val();
        if self.o0_r.q.val() {
            self.rti_0.next = self.cap_r.q.val();
            self.rci_0.next = self.rcap_r.q.val();
        }
        self.rti_ai.next = self.sai_r.q.val();
        self.rci_ai.next = self.rsai_r.q.val();
        if self.oai_r.q.val() {
            self.rti_ai.next = self.cap_r.q.val();
            self.rci_ai.next = self.rcap_r.q.val();
        }
        self.rti_hai.next = self.shai_r.q.val();
        self.rci_hai.next = self.rshai_r.q.val();
        if self.ohai_r.q.val() {
            self.rti_hai.next = self.cap_r.q.val();
            self.rci_hai.next = self.rcap_r.q.val();
        }
        self.rt_inc.next = self.rti_0.val();
        self.rc_inc.next = bit_cast::<RATE_W, 22>(self.rci_0.val() >> 1);
        if self.hai_r.q.val() {
            self.rt_inc.next = self.rti_hai.val();
            self.rc_inc.next = bit_cast::<RATE_W, 22>(self.rci_hai.val() >> 1);
        } else if self.ai_r.q.val() {
            self.rt_inc.next = self.rti_ai.val();
            self.rc_inc.next = bit_cast::<RATE_W, 22>(self.rci_ai.val() >> 1);
        }

        // ---- the decrease pipeline, one stage a cycle on the limiter in `work` (Rc and alpha
        // hold still from SweepDec1 to SweepDec4):
        // stage 1: Rc x alpha and Rc x K in 16 x 16 pieces (Rc = r1 x 2^16 + r0), g x alpha
        self.r0.next = bit_cast::<16, RATE_W>(self.work.q.val().rc & 0xFFFF);
        self.r1.next = bit_cast::<16, RATE_W>(self.work.q.val().rc >> 16);
        self.alpha16.next = bit_cast::<16, 10>(self.work.q.val().alpha);
        self.g16.next = bit_cast::<16, 11>(self.p_alpha_g.val());
        self.pa_lo_r.d.next = self.r0.val() * self.alpha16.val();
        self.pa_hi_r.d.next = self.r1.val() * self.alpha16.val();
        self.pq00_r.d.next = self.r0.val() * self.km0.q.val();
        self.pq01_r.d.next = self.r0.val() * self.km1.q.val();
        self.pq10_r.d.next = self.r1.val() * self.km0.q.val();
        self.pq11_r.d.next = self.r1.val() * self.km1.q.val();
        self.ga_r.d.next = self.g16.val() * self.alpha16.val();
        // stage 2: cut_a = Rc x alpha >> gd; the quotient floor(Rc x K / 2^32) =
        // hi + (lo >> 16) with lo = (r0 km1 mod 2^16) + r1 km0 + (r0 km0 >> 16) and
        // hi = r1 km1 + (r0 km1 >> 16) + km2 x Rc (each below 2^32); Rc - rpg_min_rate
        self.rc32.next = bit_cast::<32, RATE_W>(self.work.q.val().rc);
        self.mr32.next = bit_cast::<32, RATE_W>(self.mr_r.q.val());
        self.cut_a.d.next =
            (self.pa_lo_r.q.val() + (self.pa_hi_r.q.val() << 16)) >> self.p_gd.val();
        self.lo_r.d.next =
            (self.pq01_r.q.val() & 0xFFFF) + self.pq10_r.q.val() + (self.pq00_r.q.val() >> 16);
        self.km2_rc.next = 0.into();
        if self.km2.q.val() {
            self.km2_rc.next = self.rc32.val();
        }
        self.hi_r.d.next = self.pq11_r.q.val() + (self.pq01_r.q.val() >> 16) + self.km2_rc.val();
        self.rm_r.d.next = self.rc32.val() - self.mr32.val();
        self.rc_lt_mr.d.next = self.rc32.val() < self.mr32.val();
        // stage 3: the quotient (= floor(Rc x (100 - f) / 100), the module doc);
        // max(Rc - cut_a, rpg_min_rate) (used only when cut_a < quotient <= Rc)
        self.quo.next = self.hi_r.q.val() + (self.lo_r.q.val() >> 16);
        self.quo_r.d.next = self.quo.val();
        // stage 4's compares, made on the quotient here
        self.lt_r.d.next = self.cut_a.q.val() < self.quo.val();
        self.qcl_r.d.next = self.rc_lt_mr.q.val() | (self.quo.val() > self.rm_r.q.val());
        self.dq_r.d.next = self.rc32.val() - self.quo.val();
        self.qrel_r.d.next = self.rc_ge_capm1.q.val() & (self.quo.val() <= self.rcc_r.q.val());
        self.da.next = self.rc32.val() - self.cut_a.q.val();
        self.ca_r.d.next = self.da.val();
        if self.rc_lt_mr.q.val() | (self.cut_a.q.val() > self.rm_r.q.val()) {
            self.ca_r.d.next = self.mr32.val();
        }
        // stage 4 (SweepDec4 takes it): Rc - min(cut_a, quotient), at least rpg_min_rate
        self.rc_new.next = self.dq_r.q.val();
        if self.qcl_r.q.val() {
            self.rc_new.next = self.mr32.val();
        }
        if self.lt_r.q.val() {
            self.rc_new.next = self.ca_r.q.val();
        }

        // ---- released at an increase expiry with no CNP pending, if Rt = cap and
        // Rc + 1 >= cap, i.e. Rc >= capm1 (Rc after the cut: whichever of its three candidates
        // stage 4 picks, compared beside it)
        self.capm1_r.d.next = 0.into();
        if self.cap_r.q.val() != 0 {
            self.capm1_r.d.next = bit_cast::<32, RATE_W>(self.cap_r.q.val()) - 1;
        }
        self.rcc_r.d.next = self.rc32.val() - self.capm1_r.q.val();
        self.rc_ge_capm1.d.next = self.rc32.val() >= self.capm1_r.q.val();
        self.mr_ge_capm1.d.next = self.mr32.val() >= self.capm1_r.q.val();
        // Rc - quotient >= capm1 <=> quotient <= Rc - capm1
        self.rel_cut.next = self.qrel_r.q.val();
        if self.qcl_r.q.val() {
            self.rel_cut.next = self.mr_ge_capm1.q.val();
        }
        if self.lt_r.q.val() {
            self.rel_cut.next = self.ca_r.q.val() >= self.capm1_r.q.val();
        }
        self.rel.next = !self.work.q.val().dec_cnp & self.rc_ge_capm1.q.val();
        if self.cut_done.q.val() {
            self.rel.next = self.rel_cut.val();
        }
        self.rel_r.d.next = self.release_on_recovery.val()
            & self.inc_fired.q.val()
            & (self.work.q.val().rt == self.cap_r.q.val())
            & self.rel.val();

        // ---- alpha: g x alpha / 1024, plus 1024 - g if a CNP arrived, at most 1023
        self.a_dec.next = bit_cast::<12, 32>(self.ga_r.q.val() >> 10);
        self.a_cnp.next = self.a_dec.val() + 1024 - bit_cast::<12, 11>(self.p_alpha_g.val());
        if self.a_cnp.val() > 1023 {
            self.a_cnp.next = 1023.into();
        }

        // ---- records a request writes
        self.fresh.next = self.c_lim_zero.val();
        self.fresh.next.active = true;
        self.fresh.next.qpn = self.ev_qpn.q.val();
        self.fresh.next.rc = self.first_rate.val();
        self.fresh.next.rt = self.first_rate.val();
        self.fresh.next.alpha = self.p_initial_alpha.val();
        self.fresh.next.inc_left = self.p_time_reset.val();
        self.fresh.next.dec_left = self.p_reduce_period.val();
        self.fresh.next.alpha_left = self.p_alpha_period.val();
        self.cnp_set.next = self.lim_f.read_data.val();
        self.cnp_set.next.alpha_cnp = true;
        self.cnp_set.next.dec_cnp = true;
        self.map_new.next = self.c_map_zero.val();
        self.map_new.next.limited = true;
        self.map_new.next.limiter = self.free.data_out.val();

        match self.state.q.val() {
            RpState::Init => {
                self.map_f.write_address.next = self.init_i.q.val();
                self.map_f.write_enable.next = true;
                self.qp_en.write_address.next = self.init_i.q.val();
                self.qp_en.write_enable.next = true;
                self.lim_f.write_address.next = bit_cast::<LIM_W, QPN_W>(self.init_i.q.val());
                self.lim_f.write_data.next = self.c_lim_zero.val();
                if self.init_i.q.val() < 16 {
                    self.lim_f.write_enable.next = true;
                    self.free.data_in.next = bit_cast::<LIM_W, QPN_W>(self.init_i.q.val());
                    self.free.write.next = true;
                }
                self.init_i.d.next = self.init_i.q.val() + 1;
                if self.init_i.q.val() == 255 {
                    self.nxt.next = RpState::Idle;
                }
            }
            RpState::Idle => {
                if self.tick_pending.q.val() {
                    self.tick_pending.d.next = self.tick.val();
                    self.idx.d.next = 0.into();
                    self.lim_f.read_address.next = 0.into();
                    self.nxt.next = RpState::SweepLoad;
                } else if self.qp_en_valid.val() {
                    self.go_cfg.next = true;
                } else if self.cnp_valid.val() {
                    self.go_cnp.next = true;
                } else if self.bytes_valid.val() {
                    self.go_bytes.next = true;
                }
                if self.go_cfg.val() {
                    self.qp_en_ready.next = true;
                    self.qp_en.write_address.next = self.qp_en_qpn.val();
                    self.qp_en.write_data.next = self.qp_en_value.val();
                    self.qp_en.write_enable.next = true;
                    self.map_f.read_address.next = self.qp_en_qpn.val();
                    self.ev_qpn.d.next = self.qp_en_qpn.val();
                    if !self.qp_en_value.val() {
                        self.nxt.next = RpState::CfgWait;
                    }
                }
                if self.go_cnp.val() {
                    self.cnp_ready.next = true;
                    self.map_f.read_address.next = self.cnp_qpn.val();
                    self.qp_en.read_address.next = self.cnp_qpn.val();
                    self.ev_qpn.d.next = self.cnp_qpn.val();
                    self.nxt.next = RpState::CnpWait;
                }
                if self.go_bytes.val() {
                    self.bytes_ready.next = true;
                    self.map_f.read_address.next = self.bytes_qpn.val();
                    self.ev_qpn.d.next = self.bytes_qpn.val();
                    self.acc.d.next = bit_cast::<25, BYTES_W>(self.bytes_n.val());
                    self.nxt.next = RpState::BytesWait;
                }
            }
            RpState::SweepLoad => {
                self.inc_fired.d.next = false;
                self.cut_done.d.next = false;
                if self.lim_f.read_data.val().active {
                    self.nxt.next = RpState::SweepInc;
                } else if self.idx.q.val() == 15 {
                    self.nxt.next = RpState::Idle;
                } else {
                    self.idx.d.next = self.idx.q.val() + 1;
                    self.lim_f.read_address.next = self.idx.q.val() + 1;
                }
            }
            RpState::SweepInc => {
                if self.inc_due.q.val() {
                    self.inc_fired.d.next = true;
                }
                self.nxt.next = RpState::SweepDec1;
            }
            RpState::SweepDec1 => {
                // the pipeline's stage 1 takes Rc and alpha now
                if (self.work.q.val().dec_left == 0) & self.work.q.val().dec_cnp {
                    self.cut_done.d.next = true;
                }
                self.nxt.next = RpState::SweepDec2;
            }
            RpState::SweepDec2 => {
                self.nxt.next = RpState::SweepDec3;
            }
            RpState::SweepDec3 => {
                self.nxt.next = RpState::SweepDec4;
            }
            RpState::SweepDec4 => {
                if self.cut_done.q.val() {
                    self.n_cuts.d.next = self.n_cuts.q.val() + 1;
                }
                // the next limiter, for SweepWrite
                self.lim_f.read_address.next = self.idx.q.val() + 1;
                self.nxt.next = RpState::SweepWrite;
            }
            RpState::SweepWrite => {
                // recovered: released at an increase expiry with no CNP pending
                self.lim_f.write_enable.next = true;
                if self.rel_r.q.val() {
                    self.lim_f.write_data.next.active = false;
                    self.map_f.write_address.next = self.work.q.val().qpn;
                    self.map_f.write_enable.next = true;
                    self.free.write.next = true;
                    self.in_use.d.next = self.in_use.q.val() - 1;
                }
                // the next limiter was read in SweepDec4: load it if active (else SweepLoad
                // reads it again and skips it)
                self.inc_fired.d.next = false;
                self.cut_done.d.next = false;
                if self.idx.q.val() == 15 {
                    self.nxt.next = RpState::Idle;
                } else {
                    self.idx.d.next = self.idx.q.val() + 1;
                    if self.lim_f.read_data.val().active {
                        self.nxt.next = RpState::SweepInc;
                    } else {
                        self.lim_f.read_address.next = self.idx.q.val() + 1;
                        self.nxt.next = RpState::SweepLoad;
                    }
                }
            }
            RpState::CnpWait => {
                self.nxt.next = RpState::CnpMap;
            }
            RpState::BytesWait => {
                self.nxt.next = RpState::BytesMap;
            }
            RpState::CfgWait => {
                self.nxt.next = RpState::CfgMap;
            }
            RpState::CnpMap => {
                self.nxt.next = RpState::Idle;
                if self.map_q.q.val().limited {
                    self.idx.d.next = self.map_q.q.val().limiter;
                    self.lim_f.read_address.next = self.map_q.q.val().limiter;
                    self.nxt.next = RpState::CnpLoad;
                } else if !(self.enable.val() & self.en_q.q.val()) {
                    self.n_disabled.d.next = self.n_disabled.q.val() + 1;
                } else if self.free.empty.val() {
                    self.n_no_limiter.d.next = self.n_no_limiter.q.val() + 1;
                } else {
                    // allocate: the first CNP
                    self.free.read.next = true;
                    self.map_f.write_data.next = self.map_new.val();
                    self.map_f.write_enable.next = true;
                    self.idx.d.next = self.free.data_out.val();
                    self.in_use.d.next = self.in_use.q.val() + 1;
                    self.nxt.next = RpState::LimStore;
                }
            }
            RpState::CnpLoad => {
                self.nxt.next = RpState::LimStore;
            }
            RpState::BytesMap => {
                self.nxt.next = RpState::Idle;
                if self.map_q.q.val().limited & (self.p_byte_reset.val() != 0) {
                    self.idx.d.next = self.map_q.q.val().limiter;
                    self.lim_f.read_address.next = self.map_q.q.val().limiter;
                    self.nxt.next = RpState::BytesLoad;
                }
            }
            RpState::BytesLoad => {
                self.acc.d.next = self.acc_ld.val();
                self.ge_r.d.next = self.acc_ld.val() >= bit_cast::<25, BC_W>(self.unit.val());
                self.nxt.next = RpState::BytesLoop;
            }
            RpState::BytesLoop => {
                if self.ge_r.q.val() {
                    self.acc.d.next = self.acc.q.val() - bit_cast::<25, BC_W>(self.unit.val());
                    self.ge_r.d.next = self.acc.q.val() >= self.unit2.val();
                    self.nxt.next = RpState::BytesPrep;
                } else {
                    self.nxt.next = RpState::LimStore;
                }
            }
            RpState::BytesPrep => {
                self.nxt.next = RpState::BytesLoop;
            }
            RpState::CfgMap => {
                self.nxt.next = RpState::Idle;
                if self.map_q.q.val().limited {
                    self.map_f.write_enable.next = true;
                    self.idx.d.next = self.map_q.q.val().limiter;
                    self.free.data_in.next = self.map_q.q.val().limiter;
                    self.free.write.next = true;
                    self.in_use.d.next = self.in_use.q.val() - 1;
                    self.nxt.next = RpState::LimStore;
                }
            }
            RpState::LimStore => {
                self.lim_f.write_enable.next = true;
                self.nxt.next = RpState::Idle;
            }
        }

        // ---- the `work` register, by the (registered, one-hot) state
        if self.f_load.q.val() | self.f_write.q.val() | self.f_bload.q.val() {
            self.work.d.next = self.lim_f.read_data.val();
        }
        if self.f_cnpmap.q.val() {
            self.work.d.next = self.fresh.val();
        }
        if self.f_cnpload.q.val() {
            self.work.d.next = self.cnp_set.val();
        }
        if self.f_cfgmap.q.val() {
            // a free record that names the QP, so that the rate port's copy clears it
            self.work.d.next = self.c_lim_zero.val();
            self.work.d.next.qpn = self.ev_qpn.q.val();
        }
        if self.f_inc.q.val() & self.inc_due.q.val() {
            self.work.d.next.rt = self.rt_inc.val();
            self.work.d.next.rc = self.rc_inc.val();
            if self.work.q.val().t_stage != 0xFFFF {
                self.work.d.next.t_stage = self.work.q.val().t_stage + 1;
            }
        }
        if self.f_bloop.q.val() {
            if self.ge_r.q.val() {
                self.work.d.next.rt = self.rt_inc.val();
                self.work.d.next.rc = self.rc_inc.val();
                if self.work.q.val().bc_stage != 0xFFFF {
                    self.work.d.next.bc_stage = self.work.q.val().bc_stage + 1;
                }
            } else {
                self.work.d.next.byte_count = bit_cast::<BC_W, 25>(self.acc.q.val());
            }
        }
        // decrease 1: clamp Rt to Rc if a cut is due
        if self.f_dec1.q.val()
            & (self.work.q.val().dec_left == 0)
            & self.work.q.val().dec_cnp
            & (self.p_clamp_tgt_rate.val()
                | (self.work.q.val().bc_stage != 0)
                | (self.p_clamp_after_time_inc.val() & (self.work.q.val().t_stage != 0)))
        {
            self.work.d.next.rt = self.work.q.val().rc;
        }
        // decrease 4: the cut; the alpha timer; the countdowns
        if self.f_dec4.q.val() {
            if self.cut_done.q.val() {
                self.work.d.next.rc = bit_cast::<RATE_W, 32>(self.rc_new.val());
                self.work.d.next.dec_cnp = false;
                self.work.d.next.t_stage = 0.into();
                self.work.d.next.bc_stage = 0.into();
                self.work.d.next.byte_count = 0.into();
            }
            if self.work.q.val().alpha_left == 0 {
                self.work.d.next.alpha = bit_cast::<10, 12>(self.a_dec.val());
                if self.work.q.val().alpha_cnp {
                    self.work.d.next.alpha = bit_cast::<10, 12>(self.a_cnp.val());
                }
                self.work.d.next.alpha_cnp = false;
                self.work.d.next.alpha_left = self.alpha_p1_r.q.val();
            } else {
                self.work.d.next.alpha_left = self.work.q.val().alpha_left - 1;
            }
            if self.inc_fired.q.val() | self.cut_done.q.val() {
                self.work.d.next.inc_left = self.inc_p1_r.q.val();
            } else {
                self.work.d.next.inc_left = self.work.q.val().inc_left - 1;
            }
            if self.work.q.val().dec_left == 0 {
                self.work.d.next.dec_left = self.dec_p1_r.q.val();
            } else {
                self.work.d.next.dec_left = self.work.q.val().dec_left - 1;
            }
        }
        self.state.d.next = self.nxt.val();
        self.f_load.d.next = self.nxt.val() == RpState::SweepLoad;
        self.f_inc.d.next = self.nxt.val() == RpState::SweepInc;
        self.f_dec1.d.next = self.nxt.val() == RpState::SweepDec1;
        self.f_dec4.d.next = self.nxt.val() == RpState::SweepDec4;
        self.f_write.d.next = self.nxt.val() == RpState::SweepWrite;
        self.f_cnpmap.d.next = self.nxt.val() == RpState::CnpMap;
        self.f_cnpload.d.next = self.nxt.val() == RpState::CnpLoad;
        self.f_bload.d.next = self.nxt.val() == RpState::BytesLoad;
        self.f_bloop.d.next = self.nxt.val() == RpState::BytesLoop;
        self.f_cfgmap.d.next = self.nxt.val() == RpState::CfgMap;
        self.f_store.d.next = self.nxt.val() == RpState::LimStore;
        self.f_bprep.d.next = self.nxt.val() == RpState::BytesPrep;

        // ---- the rate port's copy takes every limiter write, at the limiter's QPN (after
        // reset: every QP unlimited)
        self.rw.next.limited = self.lim_f.write_data.val().active;
        self.rw.next.rc = self.lim_f.write_data.val().rc;
        self.rw.next.rt = self.lim_f.write_data.val().rt;
        self.rw.next.alpha = self.lim_f.write_data.val().alpha;
        self.rw.next.t_stage = self.lim_f.write_data.val().t_stage;
        self.rw.next.bc_stage = self.lim_f.write_data.val().bc_stage;
        self.rate_q.write_data.next = self.rw.val();
        self.rate_q.write_address.next = self.lim_f.write_data.val().qpn;
        self.rate_q.write_enable.next = self.lim_f.write_enable.val();
        if self.state.q.val() == RpState::Init {
            self.rate_q.write_address.next = self.init_i.q.val();
            self.rate_q.write_enable.next = true;
        }
        // rate port: QPN -> the word (1 cycle) -> registered (1 cycle)
        self.rate_q.read_address.next = self.rate_qpn.val();
        self.rv.d.next = self.rate_q.read_data.val();
        self.rate_limited.next = self.rv.q.val().limited & self.enable.val();
        self.rate_rc.next = self.rv.q.val().rc;
        self.rate_rt.next = self.rv.q.val().rt;
        self.rate_alpha.next = self.rv.q.val().alpha;
        self.rate_t_stage.next = self.rv.q.val().t_stage;
        self.rate_bc_stage.next = self.rv.q.val().bc_stage;
        if !self.rv.q.val().limited {
            self.rate_rc.next = self.cap.val();
            self.rate_rt.next = self.cap.val();
            self.rate_alpha.next = 1023.into();
            self.rate_t_stage.next = 0.into();
            self.rate_bc_stage.next = 0.into();
        }

        self.idle.next = (self.state.q.val() == RpState::Idle) & !self.tick_pending.q.val();
        self.limiters_in_use.next = self.in_use.q.val();
        self.cnp_no_limiter.next = self.n_no_limiter.q.val();
        self.cnp_disabled.next = self.n_disabled.q.val();
        self.tick_overruns.next = self.n_overruns.q.val();
        self.rate_cuts.next = self.n_cuts.q.val();
    }
}
