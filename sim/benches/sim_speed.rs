//! Simulation speed: NIC clock cycles (250 MHz in the hardware) simulated per wall-clock
//! second, per engine (Verilator, rust-hdl), side by side in one run:
//! `cargo bench -p ferroce-sim --bench sim_speed` (not run by `cargo test`).
//!
//! - one NIC: a lone NIC in its surroundings ([`NicSystem`]: MMIO master, DMA shell, MAC
//!   streams), link up, no traffic: the model evaluated every cycle, the time loop alone.
//! - two NICs back to back: `ferroce verbs`'s scenario (RDMA WRITEs of 16 KiB over 8 QPs).
//! - two NICs on the demo's fabric: `ferroce demo` (spine-leaf, 2 spines, background traffic).
//!
//! The last two run a small and a larger message count and divide the difference in cycles
//! by the difference in wall time, so building or loading the model, opening the hosts and
//! connecting the QPs (the same in both runs) cancel. A cycle there steps both NICs (and the
//! fabric): the NIC-cycles rate is twice the clock's. `FERROCE_BENCH_SCALE=N` runs N times
//! longer.
use std::process::Command;
use std::time::{Duration, Instant};

use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Bench;
use ferroce_sim::cmd::verbs::{run_scenario, Engine, VerbsArgs};
use ferroce_sim::host::{HostMemory, ShellConfig};
use ferroce_sim::nic_system::{NicHardware, NicSystem};
use ferroce_sim::nic_verilated::VerilatedNic;

fn scale() -> u32 {
    std::env::var("FERROCE_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// Cycles per second of one idle NIC, stepped for about `secs`.
fn one_nic<H: NicHardware>(hw: H, secs: f64) -> (u64, f64) {
    let mut sys = NicSystem::with_stepper(hw, HostMemory::shared(), ShellConfig::ideal());
    // warm up (first evaluations, caches)
    for _ in 0..100 {
        sys.cycle();
    }
    let t = Instant::now();
    let mut n = 0u64;
    while t.elapsed() < Duration::from_secs_f64(secs) {
        for _ in 0..100 {
            sys.cycle();
        }
        n += 100;
    }
    (n, t.elapsed().as_secs_f64())
}

/// (clock cycles, wall seconds) of a two-NIC run with `messages`.
type Run = Box<dyn Fn(usize) -> (u64, f64)>;

fn differential(name: &str, run: &Run, small: usize, large: usize) -> Option<f64> {
    let (c1, w1) = run(small);
    let (c2, w2) = run(large);
    let (dc, dw) = (c2 as f64 - c1 as f64, w2 - w1);
    if dc <= 0.0 || dw <= 0.0 {
        println!("  {name}: no difference between the runs ({c1} cycles {w1:.2} s, {c2} cycles {w2:.2} s)");
        return None;
    }
    println!(
        "  {name}: {small} messages {c1} cycles in {w1:.2} s, {large} messages {c2} cycles in {w2:.2} s"
    );
    Some(dc / dw)
}

fn verbs_run(engine: Engine) -> Run {
    Box::new(move |messages| {
        let args = VerbsArgs {
            ops: vec!["write".into()],
            sizes: vec!["16K".into()],
            qps: 8,
            messages,
            seed: 5,
            ..VerbsArgs::default()
        };
        let t = Instant::now();
        let r = run_scenario(&args, engine).expect("the verbs scenario runs");
        assert_eq!(r.verified, r.messages, "{:?}", r.errors);
        (r.cycles, t.elapsed().as_secs_f64())
    })
}

fn demo_run(engine: &'static str) -> Run {
    Box::new(move |messages| {
        let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
            .args([
                "demo",
                "--json",
                "--engine",
                engine,
                "--messages",
                &messages.to_string(),
                "--size",
                "16K",
            ])
            .output()
            .expect("ferroce demo runs");
        let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("its JSON summary");
        assert_eq!(s["verified"], s["messages"], "{s}");
        (s["cycles"].as_u64().unwrap(), s["wall_s"].as_f64().unwrap())
    })
}

fn main() {
    let k = scale() as usize;
    println!("ferroce simulation speed (NIC clock cycles per wall-clock second)");
    let mut rows: Vec<(String, [Option<f64>; 2])> = Vec::new();
    // one NIC
    let build_v = || VerilatedNic::new().expect("the Verilator model builds");
    let build_r = || Bench::new(NicTop::default(), |u| &mut u.clock);
    let stack = |f: Box<dyn FnOnce() -> (u64, f64) + Send>| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    };
    let v = stack(Box::new(move || one_nic(build_v(), 3.0 * k as f64)));
    let r = stack(Box::new(move || one_nic(build_r(), 5.0 * k as f64)));
    println!(
        "  one NIC, idle: verilator {} cycles in {:.2} s, rust-hdl {} cycles in {:.2} s",
        v.0, v.1, r.0, r.1
    );
    rows.push((
        "one NIC (idle, link up)".into(),
        [Some(v.0 as f64 / v.1), Some(r.0 as f64 / r.1)],
    ));
    // two NICs back to back, 16 KiB WRITEs
    let pair = [
        differential(
            "back to back, verilator",
            &verbs_run(Engine::Verilator),
            16 * k,
            80 * k,
        ),
        differential(
            "back to back, rust-hdl",
            &verbs_run(Engine::RustHdl),
            2 * k,
            6 * k,
        ),
    ];
    rows.push(("two NICs back to back (16 KiB WRITEs)".into(), pair));
    // the demo's fabric
    let demo = [
        differential(
            "demo fabric, verilator",
            &demo_run("verilator"),
            24 * k,
            96 * k,
        ),
        differential("demo fabric, rust-hdl", &demo_run("rust-hdl"), 2 * k, 5 * k),
    ];
    rows.push(("two NICs on the demo's fabric".into(), demo));
    println!();
    println!(
        "{:<40} {:>22} {:>22} {:>9}",
        "", "verilator cycles/s", "rust-hdl cycles/s", "ratio"
    );
    for (name, [v, r]) in rows {
        let f = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}"));
        let ratio = match (v, r) {
            (Some(v), Some(r)) => format!("{:.0}x", v / r),
            _ => "-".into(),
        };
        println!("{name:<40} {:>22} {:>22} {:>9}", f(v), f(r), ratio);
    }
    println!("(a cycle of the two-NIC rows steps both NICs: NIC-cycles per second are twice that)");
}
