//! [`CoSim`]: rust-hdl and Verilator in lock step, every output compared at every step.
use super::{read_ports, total_words, Port, VerilatedBlock};
use crate::testbench::{Bench, ClockFn, Stepper};
use rust_hdl::prelude::*;

pub struct CoSim<B: Block> {
    bench: Bench<B>,
    model: VerilatedBlock,
    ports: Vec<Port>,
    offs: Vec<usize>,
    rbuf: Vec<u64>,
    vbuf: Vec<u64>,
    /// Number of comparison points passed (each compares every output port).
    pub compares: u64,
}

// SAFETY: the Verilated model (a loaded library and the model it allocated) is owned by this
// value alone and only ever used through `&mut self`, so it is used from one thread at a time;
// moving it to another thread between steps is safe (the same holds for the simulator's
// `VerilatedNic`). This lets a lock-step NIC run where the simulator's NIC models run, behind
// a mutex shared with the host threads.
unsafe impl<B: Block + Send> Send for CoSim<B> {}

impl<B: Block> CoSim<B> {
    /// Build the Verilator model of `uut` (cached) and pair it with a rust-hdl [`Bench`].
    /// Panics if Verilator or the C++ compiler fail.
    pub fn new(uut: B, clock: ClockFn<B>) -> Self {
        let mut bench = Bench::new(uut, clock);
        let model = VerilatedBlock::new(&mut bench.uut);
        let ports = model.ports.clone();
        let mut offs = vec![];
        let mut o = 0;
        for p in &ports {
            offs.push(o);
            o += p.words();
        }
        let n = total_words(&ports);
        let mut cs = CoSim {
            bench,
            model,
            ports,
            offs,
            rbuf: vec![0; n],
            vbuf: vec![0; n],
            compares: 0,
        };
        cs.compare("initial");
        cs
    }

    /// The Verilator side (e.g. to inspect ports).
    pub fn model(&self) -> &VerilatedBlock {
        &self.model
    }

    /// Copy every input from the rust-hdl block into the model, evaluate, compare every
    /// output. Panics on a mismatch.
    fn compare(&mut self, phase: &str) {
        read_ports(&self.bench.uut, &self.ports, &mut self.rbuf);
        for (i, p) in self.ports.iter().enumerate() {
            if p.input {
                let o = self.offs[i];
                self.model.set_words(i, &self.rbuf[o..o + p.words()]);
            }
        }
        self.model.eval();
        let mut bad = vec![];
        for (i, p) in self.ports.iter().enumerate() {
            if p.input {
                continue;
            }
            let o = self.offs[i];
            let w = p.words();
            self.model.get_words(i, &mut self.vbuf[o..o + w]);
            if self.rbuf[o..o + w] != self.vbuf[o..o + w] {
                bad.push(format!(
                    "  port `{}` ({} bits): rust-hdl = {}  verilator = {}",
                    p.name,
                    p.width,
                    hex_words(&self.rbuf[o..o + w]),
                    hex_words(&self.vbuf[o..o + w])
                ));
            }
        }
        if !bad.is_empty() {
            let inputs: Vec<String> = self
                .ports
                .iter()
                .enumerate()
                .filter(|(_, p)| p.input)
                .map(|(i, p)| {
                    format!(
                        "{}={}",
                        p.name,
                        hex_words(&self.rbuf[self.offs[i]..self.offs[i] + p.words()])
                    )
                })
                .collect();
            panic!(
                "co-simulation mismatch at cycle {} ({phase}):\n{}\n  inputs: {}",
                self.bench.cycles(),
                bad.join("\n"),
                inputs.join(" ")
            );
        }
        self.compares += 1;
    }
}

fn hex_words(w: &[u64]) -> String {
    let mut s = String::from("0x");
    for (i, x) in w.iter().rev().enumerate() {
        if i == 0 {
            s += &format!("{x:x}");
        } else {
            s += &format!("_{x:016x}");
        }
    }
    s
}

impl<B: Block> Stepper<B> for CoSim<B> {
    fn uut(&mut self) -> &mut B {
        &mut self.bench.uut
    }
    fn settle(&mut self) {
        self.bench.settle();
        self.compare("settle");
    }
    fn tick(&mut self) {
        self.bench.clock_level(true);
        self.compare("after rising edge");
        self.bench.clock_level(false);
        self.compare("after falling edge");
    }
    fn cycles(&self) -> u64 {
        self.bench.cycles()
    }
}

/// The block tests' co-simulation driver: builds the Verilator model of `uut` (cached), runs
/// `body` (the same traffic and checks the block bench runs on a [`Bench`], written once over
/// [`Stepper`]) on the lock-step pair, then prints `what`, the cycles, the wall time and the
/// comparisons made. Any output mismatch panics inside `body` (see [`CoSim`]).
pub fn run_cosim<B: Block, R>(
    what: &str,
    uut: B,
    clock: ClockFn<B>,
    body: impl FnOnce(&mut CoSim<B>) -> R,
) -> R {
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(uut, clock);
    let r = body(&mut cs);
    eprintln!(
        "{what}: {} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares
    );
    r
}
