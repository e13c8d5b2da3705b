//! `ferroce dcqcn-trace --in EVENTS.jsonl [--params P.json]`: a trace of CNP arrivals, bytes
//! sent and samples (times in microseconds) through the hardware DCQCN reaction point
//! (docs/CONGESTION.md), cycle by cycle; one JSON line per sample:
//! `{"t": .., "rc": .., "rt": .., "alpha": .., "t_stage": .., "bc_stage": ..}`.
//!
//! Trace lines: `{"t": T, "ev": "cnp"}`, `{"t": T, "ev": "bytes", "n": N}`, `{"t": T, "ev":
//! "sample"}`, T non-decreasing integers. Parameters: a JSON object with mlx5 names
//! (`rpg_time_reset`, ..., `clamp_tgt_rate_after_time_inc`) and `line_rate_mbps` (default
//! 100000); absent names keep the register map's reset values.
//!
//! The block runs on either engine (`--engine`: its Verilator model, the default, or the
//! rust-hdl simulation); `--vcd` writes its waveforms.
//!
//! The block's tick comes once the previous microsecond's sweep is done rather than every 125
//! cycles: the hardware does the same work per microsecond, the simulation just skips the idle
//! cycles between sweeps.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use ferroce_hdl::cc::drive::{
    replay, HdlPins, Pin, RpDriver, RpParams, RpPins, TraceEvent, VerilatedPins,
};
use ferroce_hdl::cc::ReactionPoint;
use ferroce_hdl::testbench::Bench;
use serde_json::Value;

use super::verbs::Engine;
use super::CliError;
use crate::vcd::{verilated_model, VcdBench, VcdClock, VcdWindow};

/// Model settings of the reference model that the hardware fixes (the value it implements).
const FIXED: [(&str, &str); 3] = [
    ("first_cnp_cuts", "false"),
    ("bytes_before_first_cnp", "false"),
    ("timer_order", "\"increase,decrease,alpha\""),
];

/// Parse a parameter file (errors name the field).
pub fn parse_params(text: &str, what: &str) -> Result<RpParams, CliError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| CliError(format!("{what}: not JSON: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| CliError(format!("{what}: not a JSON object")))?;
    let mut p = RpParams::default();
    let fields = RpParams::fields();
    for (k, val) in obj {
        if let Some((_, fixed)) = FIXED.iter().find(|(n, _)| n == k) {
            let ok = match (val, *fixed) {
                (Value::Bool(b), "false") => !b,
                (Value::Number(n), "false") => n.as_u64() == Some(0),
                (Value::String(s), f) => format!("\"{s}\"") == f,
                _ => false,
            };
            if !ok {
                return Err(CliError(format!(
                    "{what}: field '{k}': the hardware implements only {fixed}"
                )));
            }
            continue;
        }
        let (_, lo, hi, set) = fields
            .iter()
            .find(|(n, ..)| n == k)
            .ok_or_else(|| CliError(format!("{what}: field '{k}': unknown parameter")))?;
        let n = match val {
            Value::Bool(b) if *hi == 1 => *b as u64,
            Value::Number(n) => n.as_u64().ok_or_else(|| {
                CliError(format!("{what}: field '{k}': not a non-negative integer"))
            })?,
            _ => {
                return Err(CliError(format!(
                    "{what}: field '{k}': not a non-negative integer"
                )))
            }
        };
        if n < *lo || n > *hi {
            return Err(CliError(format!(
                "{what}: field '{k}': {n} out of range {lo}..={hi}"
            )));
        }
        set(&mut p, n as u32);
    }
    Ok(p)
}

/// Parse a trace (errors name the line and the field).
pub fn parse_trace(text: &str, what: &str) -> Result<Vec<(u64, TraceEvent)>, CliError> {
    let mut out = Vec::new();
    let mut last = 0u64;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |msg: String| CliError(format!("{what} line {}: {msg}", i + 1));
        let v: Value = serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?;
        let t = v
            .get("t")
            .ok_or_else(|| at("field 't' missing".into()))?
            .as_u64()
            .ok_or_else(|| at("field 't': not a non-negative integer (us)".into()))?;
        if t < last {
            return Err(at(format!("field 't': {t} is before {last}")));
        }
        last = t;
        let ev = match v.get("ev").and_then(Value::as_str) {
            Some("cnp") => TraceEvent::Cnp,
            Some("sample") => TraceEvent::Sample,
            Some("bytes") => TraceEvent::Bytes(
                v.get("n")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| at("field 'n': not a non-negative integer".into()))?,
            ),
            Some(other) => {
                return Err(at(format!(
                    "field 'ev': '{other}' is not cnp, bytes or sample"
                )))
            }
            None => return Err(at("field 'ev': missing or not a string".into())),
        };
        out.push((t, ev));
    }
    Ok(out)
}

/// The Verilator engine writing waveforms: [`VerilatedPins`] on the block's model built with
/// tracing (the same Verilog, so the same port indices), clocked through a [`VcdClock`].
struct TracedPins {
    pins: VerilatedPins,
    clock: VcdClock,
}

impl TracedPins {
    fn new(w: &VcdWindow) -> Result<TracedPins, String> {
        let mut pins = VerilatedPins::new()?;
        pins.model = verilated_model(&mut ReactionPoint::default(), Some(w))?;
        Ok(TracedPins {
            pins,
            clock: VcdClock::new(Some(w.clone())),
        })
    }
}

impl RpPins for TracedPins {
    fn set(&mut self, pin: Pin, v: u64) {
        self.pins.set(pin, v);
    }
    fn get(&mut self, pin: Pin) -> u64 {
        self.pins.get(pin)
    }
    fn settle(&mut self) {
        self.pins.settle();
    }
    fn clock(&mut self) {
        self.clock.tick(&mut self.pins.model);
    }
}

pub fn run(
    input: &Path,
    params: Option<&Path>,
    engine: &str,
    vcd: Option<&VcdWindow>,
) -> Result<ExitCode, CliError> {
    let engine = super::engine_and_vcd(engine, vcd)?;
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| CliError(format!("{}: {e}", p.display())))
    };
    let p = match params {
        Some(f) => parse_params(&read(f)?, &f.display().to_string())?,
        None => RpParams::default(),
    };
    let events = parse_trace(&read(input)?, &input.display().to_string())?;
    let verilator = |e: String| CliError(format!("verilator: {e}"));
    let bench = || {
        Bench::new(ReactionPoint::default(), |u: &mut ReactionPoint| {
            &mut u.clock
        })
    };
    let samples = match (engine, vcd) {
        (Engine::Verilator, None) => {
            let pins = VerilatedPins::new().map_err(verilator)?;
            replay(&mut RpDriver::new(pins, &p), &events)
        }
        (Engine::Verilator, Some(w)) => {
            let pins = TracedPins::new(w).map_err(verilator)?;
            replay(&mut RpDriver::new(pins, &p), &events)
        }
        (Engine::RustHdl, None) => replay(&mut RpDriver::new(HdlPins(bench()), &p), &events),
        (Engine::RustHdl, Some(w)) => {
            let hw = VcdBench::new(bench(), w.clone()).map_err(CliError)?;
            replay(&mut RpDriver::new(HdlPins(hw), &p), &events)
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (t, v) in samples {
        // The reference model's format: Python's json.dumps of the same keys in this order.
        writeln!(
            out,
            "{{\"t\": {t}, \"rc\": {}, \"rt\": {}, \"alpha\": {}, \"t_stage\": {}, \"bc_stage\": {}}}",
            v.rc, v.rt, v.alpha, v.t_stage, v.bc_stage
        )?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
