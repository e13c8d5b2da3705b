//! Driving a [`ReactionPoint`] through its ports, on either engine: the rust-hdl block (any
//! [`Stepper`]: [`crate::testbench::Bench`], or the lock-step [`crate::cosim::CoSim`]) or its
//! Verilator model ([`VerilatedBlock`]). Used by the block tests and by `ferroce dcqcn-trace`.
use super::reaction_point::*;
use crate::cosim::VerilatedBlock;
use crate::testbench::Stepper;
use ferroce_proto::host::regs;

/// The ports a driver touches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pin {
    Tick,
    CnpValid,
    CnpQpn,
    CnpReady,
    BytesValid,
    BytesQpn,
    BytesN,
    BytesReady,
    QpEnValid,
    QpEnQpn,
    QpEnValue,
    QpEnReady,
    RateQpn,
    RateLimited,
    RateRc,
    RateRt,
    RateAlpha,
    RateTStage,
    RateBcStage,
    Enable,
    ReleaseOnRecovery,
    LineRate,
    TimeReset,
    ByteReset,
    Threshold,
    MaxRate,
    AiRate,
    HaiRate,
    Gd,
    MinDecFac,
    MinRate,
    FirstCnpRate,
    AlphaG,
    AlphaPeriod,
    ReducePeriod,
    InitialAlpha,
    ClampTgtRate,
    ClampAfterTimeInc,
    Idle,
    LimitersInUse,
    CnpNoLimiter,
    CnpDisabled,
    TickOverruns,
}

/// Every pin with its port name (rust-hdl's name, as the Verilator model lists it).
pub const PINS: [(Pin, &str); 43] = [
    (Pin::Tick, "tick"),
    (Pin::CnpValid, "cnp_valid"),
    (Pin::CnpQpn, "cnp_qpn"),
    (Pin::CnpReady, "cnp_ready"),
    (Pin::BytesValid, "bytes_valid"),
    (Pin::BytesQpn, "bytes_qpn"),
    (Pin::BytesN, "bytes_n"),
    (Pin::BytesReady, "bytes_ready"),
    (Pin::QpEnValid, "qp_en_valid"),
    (Pin::QpEnQpn, "qp_en_qpn"),
    (Pin::QpEnValue, "qp_en_value"),
    (Pin::QpEnReady, "qp_en_ready"),
    (Pin::RateQpn, "rate_qpn"),
    (Pin::RateLimited, "rate_limited"),
    (Pin::RateRc, "rate_rc"),
    (Pin::RateRt, "rate_rt"),
    (Pin::RateAlpha, "rate_alpha"),
    (Pin::RateTStage, "rate_t_stage"),
    (Pin::RateBcStage, "rate_bc_stage"),
    (Pin::Enable, "enable"),
    (Pin::ReleaseOnRecovery, "release_on_recovery"),
    (Pin::LineRate, "line_rate"),
    (Pin::TimeReset, "p_time_reset"),
    (Pin::ByteReset, "p_byte_reset"),
    (Pin::Threshold, "p_threshold"),
    (Pin::MaxRate, "p_max_rate"),
    (Pin::AiRate, "p_ai_rate"),
    (Pin::HaiRate, "p_hai_rate"),
    (Pin::Gd, "p_gd"),
    (Pin::MinDecFac, "p_min_dec_fac"),
    (Pin::MinRate, "p_min_rate"),
    (Pin::FirstCnpRate, "p_first_cnp_rate"),
    (Pin::AlphaG, "p_alpha_g"),
    (Pin::AlphaPeriod, "p_alpha_period"),
    (Pin::ReducePeriod, "p_reduce_period"),
    (Pin::InitialAlpha, "p_initial_alpha"),
    (Pin::ClampTgtRate, "p_clamp_tgt_rate"),
    (Pin::ClampAfterTimeInc, "p_clamp_after_time_inc"),
    (Pin::Idle, "idle"),
    (Pin::LimitersInUse, "limiters_in_use"),
    (Pin::CnpNoLimiter, "cnp_no_limiter"),
    (Pin::CnpDisabled, "cnp_disabled"),
    (Pin::TickOverruns, "tick_overruns"),
];

/// One engine's view of the block's ports.
pub trait RpPins {
    fn set(&mut self, pin: Pin, v: u64);
    /// Read a port (after [`RpPins::settle`]).
    fn get(&mut self, pin: Pin) -> u64;
    /// Propagate combinational logic after inputs changed.
    fn settle(&mut self);
    /// One clock cycle.
    fn clock(&mut self);
}

/// The rust-hdl engine (or the lock-step co-simulation).
pub struct HdlPins<S: Stepper<ReactionPoint>>(pub S);

impl<S: Stepper<ReactionPoint>> RpPins for HdlPins<S> {
    fn set(&mut self, pin: Pin, v: u64) {
        let u = self.0.uut();
        let b = v != 0;
        match pin {
            Pin::Tick => u.tick.next = b,
            Pin::CnpValid => u.cnp_valid.next = b,
            Pin::CnpQpn => u.cnp_qpn.next = v.into(),
            Pin::BytesValid => u.bytes_valid.next = b,
            Pin::BytesQpn => u.bytes_qpn.next = v.into(),
            Pin::BytesN => u.bytes_n.next = v.into(),
            Pin::QpEnValid => u.qp_en_valid.next = b,
            Pin::QpEnQpn => u.qp_en_qpn.next = v.into(),
            Pin::QpEnValue => u.qp_en_value.next = b,
            Pin::RateQpn => u.rate_qpn.next = v.into(),
            Pin::Enable => u.enable.next = b,
            Pin::ReleaseOnRecovery => u.release_on_recovery.next = b,
            Pin::LineRate => u.line_rate.next = v.into(),
            Pin::TimeReset => u.p_time_reset.next = v.into(),
            Pin::ByteReset => u.p_byte_reset.next = v.into(),
            Pin::Threshold => u.p_threshold.next = v.into(),
            Pin::MaxRate => u.p_max_rate.next = v.into(),
            Pin::AiRate => u.p_ai_rate.next = v.into(),
            Pin::HaiRate => u.p_hai_rate.next = v.into(),
            Pin::Gd => u.p_gd.next = v.into(),
            Pin::MinDecFac => u.p_min_dec_fac.next = v.into(),
            Pin::MinRate => u.p_min_rate.next = v.into(),
            Pin::FirstCnpRate => u.p_first_cnp_rate.next = v.into(),
            Pin::AlphaG => u.p_alpha_g.next = v.into(),
            Pin::AlphaPeriod => u.p_alpha_period.next = v.into(),
            Pin::ReducePeriod => u.p_reduce_period.next = v.into(),
            Pin::InitialAlpha => u.p_initial_alpha.next = v.into(),
            Pin::ClampTgtRate => u.p_clamp_tgt_rate.next = b,
            Pin::ClampAfterTimeInc => u.p_clamp_after_time_inc.next = b,
            other => panic!("{other:?} is an output"),
        }
    }
    fn get(&mut self, pin: Pin) -> u64 {
        let u = self.0.uut();
        match pin {
            Pin::CnpReady => u.cnp_ready.val() as u64,
            Pin::BytesReady => u.bytes_ready.val() as u64,
            Pin::QpEnReady => u.qp_en_ready.val() as u64,
            Pin::RateLimited => u.rate_limited.val() as u64,
            Pin::RateRc => u.rate_rc.val().to_u64(),
            Pin::RateRt => u.rate_rt.val().to_u64(),
            Pin::RateAlpha => u.rate_alpha.val().to_u64(),
            Pin::RateTStage => u.rate_t_stage.val().to_u64(),
            Pin::RateBcStage => u.rate_bc_stage.val().to_u64(),
            Pin::Idle => u.idle.val() as u64,
            Pin::LimitersInUse => u.limiters_in_use.val().to_u64(),
            Pin::CnpNoLimiter => u.cnp_no_limiter.val().to_u64(),
            Pin::CnpDisabled => u.cnp_disabled.val().to_u64(),
            Pin::TickOverruns => u.tick_overruns.val().to_u64(),
            other => panic!("{other:?} is an input"),
        }
    }
    fn settle(&mut self) {
        self.0.settle();
    }
    fn clock(&mut self) {
        self.0.tick();
    }
}

/// The Verilator engine.
pub struct VerilatedPins {
    pub model: VerilatedBlock,
    ids: Vec<usize>,
}

impl VerilatedPins {
    /// Build (or load from the cache) the Verilator model of the block.
    pub fn new() -> Result<VerilatedPins, String> {
        let model = VerilatedBlock::try_new(&mut ReactionPoint::default())?;
        let ids = PINS.iter().map(|(_, name)| model.port(name)).collect();
        Ok(VerilatedPins { model, ids })
    }
}

impl RpPins for VerilatedPins {
    fn set(&mut self, pin: Pin, v: u64) {
        self.model.set(self.ids[pin as usize], v);
    }
    fn get(&mut self, pin: Pin) -> u64 {
        self.model.get(self.ids[pin as usize])
    }
    fn settle(&mut self) {
        self.model.eval();
    }
    fn clock(&mut self) {
        self.model.tick();
    }
}

/// The reaction point's parameters, mlx5 names; [`Default`] is the register map's reset values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpParams {
    pub rpg_time_reset: u32,
    pub rpg_byte_reset: u32,
    pub rpg_threshold: u32,
    pub rpg_max_rate: u32,
    pub rpg_ai_rate: u32,
    pub rpg_hai_rate: u32,
    pub rpg_gd: u32,
    pub rpg_min_dec_fac: u32,
    pub rpg_min_rate: u32,
    pub rate_to_set_on_first_cnp: u32,
    pub dce_tcp_g: u32,
    pub dce_tcp_rtt: u32,
    pub rate_reduce_monitor_period: u32,
    pub initial_alpha_value: u32,
    pub clamp_tgt_rate: bool,
    pub clamp_tgt_rate_after_time_inc: bool,
    /// The MAC's line rate in Mb/s (`ID_LINE_RATE`).
    pub line_rate_mbps: u32,
}

fn reset_of(name: &str) -> u32 {
    regs::find(name)
        .unwrap_or_else(|| panic!("register {name}"))
        .reset
}

impl Default for RpParams {
    fn default() -> Self {
        let flags = reset_of("CC_RP_FLAGS");
        RpParams {
            rpg_time_reset: reset_of("CC_RP_TIME_RESET"),
            rpg_byte_reset: reset_of("CC_RP_BYTE_RESET"),
            rpg_threshold: reset_of("CC_RP_THRESHOLD"),
            rpg_max_rate: reset_of("CC_RP_MAX_RATE"),
            rpg_ai_rate: reset_of("CC_RP_AI_RATE"),
            rpg_hai_rate: reset_of("CC_RP_HAI_RATE"),
            rpg_gd: reset_of("CC_RP_GD"),
            rpg_min_dec_fac: reset_of("CC_RP_MIN_DEC_FAC"),
            rpg_min_rate: reset_of("CC_RP_MIN_RATE"),
            rate_to_set_on_first_cnp: reset_of("CC_RP_FIRST_CNP_RATE"),
            dce_tcp_g: reset_of("CC_RP_ALPHA_G"),
            dce_tcp_rtt: reset_of("CC_RP_ALPHA_PERIOD"),
            rate_reduce_monitor_period: reset_of("CC_RP_REDUCE_PERIOD"),
            initial_alpha_value: reset_of("CC_RP_INITIAL_ALPHA"),
            clamp_tgt_rate: flags & regs::cc_rp_flags::CLAMP_TGT_RATE != 0,
            clamp_tgt_rate_after_time_inc: flags & regs::cc_rp_flags::CLAMP_TGT_RATE_AFTER_TIME_INC
                != 0,
            line_rate_mbps: 100_000,
        }
    }
}

impl RpParams {
    /// Every numeric parameter with its mlx5 name, its valid range in this block, and a setter.
    #[allow(clippy::type_complexity)]
    pub fn fields() -> Vec<(&'static str, u64, u64, fn(&mut RpParams, u32))> {
        let rate = (1u64 << RATE_W) - 1;
        let timer = (1u64 << TIMER_W) - 1;
        vec![
            ("rpg_time_reset", 1, timer, |p, v| p.rpg_time_reset = v),
            ("rpg_byte_reset", 0, 32767, |p, v| p.rpg_byte_reset = v),
            ("rpg_threshold", 0, (1 << STAGE_W) - 2, |p, v| {
                p.rpg_threshold = v
            }),
            ("rpg_max_rate", 0, rate, |p, v| p.rpg_max_rate = v),
            ("rpg_ai_rate", 0, rate, |p, v| p.rpg_ai_rate = v),
            ("rpg_hai_rate", 0, rate, |p, v| p.rpg_hai_rate = v),
            ("rpg_gd", 0, 31, |p, v| p.rpg_gd = v),
            ("rpg_min_dec_fac", 0, 100, |p, v| p.rpg_min_dec_fac = v),
            ("rpg_min_rate", 0, rate, |p, v| p.rpg_min_rate = v),
            ("rate_to_set_on_first_cnp", 0, rate, |p, v| {
                p.rate_to_set_on_first_cnp = v
            }),
            ("dce_tcp_g", 0, 1024, |p, v| p.dce_tcp_g = v),
            ("dce_tcp_rtt", 1, timer, |p, v| p.dce_tcp_rtt = v),
            ("rate_reduce_monitor_period", 1, timer, |p, v| {
                p.rate_reduce_monitor_period = v
            }),
            ("initial_alpha_value", 0, 1023, |p, v| {
                p.initial_alpha_value = v
            }),
            ("clamp_tgt_rate", 0, 1, |p, v| p.clamp_tgt_rate = v != 0),
            ("clamp_tgt_rate_after_time_inc", 0, 1, |p, v| {
                p.clamp_tgt_rate_after_time_inc = v != 0
            }),
            ("line_rate_mbps", 1, rate, |p, v| p.line_rate_mbps = v),
        ]
    }
}

/// What the rate port reads for a QP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RpView {
    pub limited: bool,
    pub rc: u64,
    pub rt: u64,
    pub alpha: u64,
    pub t_stage: u64,
    pub bc_stage: u64,
}

/// A cycle-by-cycle driver of the block.
pub struct RpDriver<P: RpPins> {
    pub pins: P,
    pub cycles: u64,
}

impl<P: RpPins> RpDriver<P> {
    /// Drive the idle inputs and the parameters, and wait for the block's reset sequence.
    pub fn new(pins: P, p: &RpParams) -> Self {
        let mut d = RpDriver { pins, cycles: 0 };
        for pin in [
            Pin::Tick,
            Pin::CnpValid,
            Pin::BytesValid,
            Pin::QpEnValid,
            Pin::ReleaseOnRecovery,
        ] {
            d.pins.set(pin, 0);
        }
        d.pins.set(Pin::Enable, 1);
        d.set_params(p);
        d.wait_idle();
        d
    }

    pub fn set_params(&mut self, p: &RpParams) {
        let s = &mut self.pins;
        s.set(Pin::LineRate, p.line_rate_mbps as u64);
        s.set(Pin::TimeReset, p.rpg_time_reset as u64);
        s.set(Pin::ByteReset, p.rpg_byte_reset as u64);
        s.set(Pin::Threshold, p.rpg_threshold as u64);
        s.set(Pin::MaxRate, p.rpg_max_rate as u64);
        s.set(Pin::AiRate, p.rpg_ai_rate as u64);
        s.set(Pin::HaiRate, p.rpg_hai_rate as u64);
        s.set(Pin::Gd, p.rpg_gd as u64);
        s.set(Pin::MinDecFac, p.rpg_min_dec_fac as u64);
        s.set(Pin::MinRate, p.rpg_min_rate as u64);
        s.set(Pin::FirstCnpRate, p.rate_to_set_on_first_cnp as u64);
        s.set(Pin::AlphaG, p.dce_tcp_g as u64);
        s.set(Pin::AlphaPeriod, p.dce_tcp_rtt as u64);
        s.set(Pin::ReducePeriod, p.rate_reduce_monitor_period as u64);
        s.set(Pin::InitialAlpha, p.initial_alpha_value as u64);
        s.set(Pin::ClampTgtRate, p.clamp_tgt_rate as u64);
        s.set(
            Pin::ClampAfterTimeInc,
            p.clamp_tgt_rate_after_time_inc as u64,
        );
    }

    fn cycle(&mut self) {
        self.pins.clock();
        self.cycles += 1;
    }

    /// Clock until `idle` (no request or tick in progress).
    pub fn wait_idle(&mut self) {
        loop {
            self.pins.settle();
            if self.pins.get(Pin::Idle) != 0 {
                return;
            }
            self.cycle();
        }
    }

    /// Present a request (its data already set) until the block takes it.
    fn request(&mut self, valid: Pin, ready: Pin) {
        self.pins.set(valid, 1);
        loop {
            self.pins.settle();
            let taken = self.pins.get(ready) != 0;
            self.cycle();
            if taken {
                break;
            }
        }
        self.pins.set(valid, 0);
    }

    pub fn set_qp_enable(&mut self, qpn: u32, on: bool) {
        self.pins.set(Pin::QpEnQpn, qpn as u64);
        self.pins.set(Pin::QpEnValue, on as u64);
        self.request(Pin::QpEnValid, Pin::QpEnReady);
    }

    pub fn cnp(&mut self, qpn: u32) {
        self.pins.set(Pin::CnpQpn, qpn as u64);
        self.request(Pin::CnpValid, Pin::CnpReady);
    }

    /// Bytes sent by a QP, as events of at most 2^BYTES_W - 1 bytes (the byte counter adds them
    /// up, so the split changes nothing).
    pub fn bytes(&mut self, qpn: u32, mut n: u64) {
        let max = (1u64 << BYTES_W) - 1;
        while n > 0 {
            let part = n.min(max);
            self.pins.set(Pin::BytesQpn, qpn as u64);
            self.pins.set(Pin::BytesN, part);
            self.request(Pin::BytesValid, Pin::BytesReady);
            n -= part;
        }
    }

    /// The 1 us pulse (one cycle), then wait until the sweep is done.
    pub fn tick(&mut self) {
        self.pins.set(Pin::Tick, 1);
        self.pins.settle();
        self.cycle();
        self.pins.set(Pin::Tick, 0);
        self.wait_idle();
    }

    /// Read a QP through the rate port (two cycles).
    pub fn read(&mut self, qpn: u32) -> RpView {
        self.pins.set(Pin::RateQpn, qpn as u64);
        self.pins.settle();
        self.cycle();
        self.cycle();
        self.pins.settle();
        let g = |s: &mut Self, p| s.pins.get(p);
        RpView {
            limited: g(self, Pin::RateLimited) != 0,
            rc: g(self, Pin::RateRc),
            rt: g(self, Pin::RateRt),
            alpha: g(self, Pin::RateAlpha),
            t_stage: g(self, Pin::RateTStage),
            bc_stage: g(self, Pin::RateBcStage),
        }
    }
}

/// One event of a reaction-point trace (times in microseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    Cnp,
    Bytes(u64),
    Sample,
}

/// The QP a trace drives (QPN 0 and 1 are reserved).
pub const TRACE_QPN: u32 = 2;

/// Replay a trace `(t, event)` (t non-decreasing) on one QP that keeps its limiter for the whole
/// trace: for each microsecond up to the last event's, its events in order, then the tick that
/// ends it; each `Sample` reads the QP after that tick. Returns `(t, view)` per sample.
pub fn replay<P: RpPins>(
    drv: &mut RpDriver<P>,
    events: &[(u64, TraceEvent)],
) -> Vec<(u64, RpView)> {
    drv.set_qp_enable(TRACE_QPN, true);
    let mut out = Vec::new();
    let (mut now, mut i) = (0u64, 0usize);
    while i < events.len() {
        let t = events[i].0;
        while now < t {
            drv.tick();
            now += 1;
        }
        let mut samples = 0;
        while i < events.len() && events[i].0 == t {
            match events[i].1 {
                TraceEvent::Cnp => drv.cnp(TRACE_QPN),
                TraceEvent::Bytes(n) => drv.bytes(TRACE_QPN, n),
                TraceEvent::Sample => samples += 1,
            }
            i += 1;
        }
        drv.tick();
        now += 1;
        if samples > 0 {
            let v = drv.read(TRACE_QPN);
            out.extend(std::iter::repeat_n((t, v), samples));
        }
    }
    out
}
