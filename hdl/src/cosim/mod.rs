//! Generic co-simulation of any rust-hdl block against its own emitted Verilog (Verilator),
//! and the same Verilator model as a fast simulation engine.
//!
//! How it works (docs/HDL-RULES.md, "Speed"):
//! 1. [`ports`]: a `Probe` visitor lists the top-level ports of the block (name as rust-hdl
//!    emits it, e.g. `inp$valid`, direction, width, clock or not).
//! 2. [`build::build_model`]: emits the block's Verilog, wraps it in a generated top
//!    `cosim_top` whose ports are `p0, p1, ...` (sanitised: rust-hdl names contain `$`), writes
//!    a generic `extern "C"` shim (`fcs_new/free/eval/port/tick`), verilates
//!    (`verilator --cc -Wno-fatal`, `OPT_FAST=-O2`), links a shared library with `-fPIC`, and
//!    caches it under the target directory keyed by a hash of Verilog + shim + Verilator version
//!    + options. The Verilator runtime objects are built once per Verilator version and reused.
//! 3. [`VerilatedBlock`]: loads the library with `libloading`; ports are set and read through
//!    pointers returned once by the shim (one FFI call per `eval`).
//! 4. [`CoSim`]: runs the rust-hdl block and the Verilator model in lock step: the test drives
//!    the rust-hdl block exactly as with [`crate::testbench::Bench`] (it implements
//!    [`crate::testbench::Stepper`]); at every settle and both clock phases the harness copies
//!    every input port into the model, evaluates it and compares **every output port**; a
//!    mismatch panics with the cycle, phase, port and both values.
//!
//! Usage:
//! ```ignore
//! let mut cs = CoSim::new(IcrcChecker64::default(), |u| &mut u.clock);
//! // ... drive cs.uut() like a Bench, call cs.settle() / cs.tick() ...
//! let mut fast = VerilatedBlock::new(&mut IcrcChecker64::default());
//! let v = fast.port("inp$valid");
//! fast.set(v, 1); fast.tick(); let r = fast.get(fast.port("inp$ready"));
//! ```
//! Limitations: one clock domain (all clock ports toggle together); top-level ports of struct
//! type (`LogicStruct`) are not supported (enum ports are); tri-state ports are not supported.
use rust_hdl::prelude::*;

pub mod build;
pub mod engine;
pub mod lockstep;

pub use engine::VerilatedBlock;
pub use lockstep::{run_cosim, CoSim};

/// One top-level port of a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// rust-hdl's Verilog name (`inp$valid`).
    pub name: String,
    pub input: bool,
    pub width: usize,
    pub clock: bool,
    /// Labels of an enum-typed port (value = label index).
    pub labels: Option<Vec<String>>,
}

impl Port {
    /// Number of 64-bit words of a value.
    pub fn words(&self) -> usize {
        self.width.div_ceil(64)
    }
}

#[derive(Default)]
struct PortLister {
    depth: usize,
    ns: Vec<String>,
    ports: Vec<Port>,
}

fn flat_name(ns: &[String], name: &str) -> String {
    if ns.is_empty() {
        name.to_string()
    } else {
        format!("{}${}", ns.join("$"), name)
    }
}

impl Probe for PortLister {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
        self.ns.clear();
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            self.ns.push(name.to_string());
        }
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let input = match signal.kind() {
            AtomKind::InputParameter => true,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => false,
            AtomKind::InOutParameter => panic!("cosim: inout port {name} not supported"),
            _ => return,
        };
        let d = signal.descriptor();
        let labels = match &d.kind {
            TypeKind::Enum(l) => Some(l.clone()),
            TypeKind::Composite(_) => panic!("cosim: struct-typed port {name} not supported"),
            _ => None,
        };
        self.ports.push(Port {
            name: flat_name(&self.ns, name),
            input,
            width: signal.bits(),
            clock: d.name == "clock",
            labels,
        });
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            self.ns.pop();
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The top-level ports of a block, in visiting order (the order of [`read_ports`]).
pub fn ports<B: Block>(uut: &B) -> Vec<Port> {
    let mut p = PortLister::default();
    uut.accept("top", &mut p);
    p.ports
}

struct ValueReader<'a> {
    depth: usize,
    ports: &'a [Port],
    idx: usize,
    out: &'a mut [u64],
    one: VCDValue,
}

fn vcd_is_one(v: &VCDValue, one: &VCDValue) -> bool {
    match (v, one) {
        (VCDValue::Single(a), VCDValue::Single(b)) => a == b,
        _ => false,
    }
}

impl Probe for ValueReader<'_> {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, _name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        match signal.kind() {
            AtomKind::InputParameter | AtomKind::OutputParameter | AtomKind::OutputPassthrough => {}
            _ => return,
        }
        let port = &self.ports[self.idx];
        let w = port.words();
        let base: usize = self.ports[..self.idx].iter().map(|p| p.words()).sum();
        let dst = &mut self.out[base..base + w];
        dst.iter_mut().for_each(|x| *x = 0);
        let one = match &self.one {
            VCDValue::Single(v) => v,
            _ => unreachable!(),
        };
        match signal.vcd() {
            v @ VCDValue::Single(_) => dst[0] = vcd_is_one(&v, &self.one) as u64,
            VCDValue::Vector(bitsv) => {
                // MSB first
                let n = bitsv.len();
                for (i, b) in bitsv.iter().enumerate() {
                    if b == one {
                        let bit = n - 1 - i;
                        dst[bit / 64] |= 1 << (bit % 64);
                    }
                }
            }
            VCDValue::String(s) => {
                let labels = port.labels.as_ref().expect("enum port");
                dst[0] = labels
                    .iter()
                    .position(|l| *l == s || l.ends_with(&format!("::{s}")))
                    .unwrap_or_else(|| panic!("enum label {s} of {}", port.name))
                    as u64;
            }
            VCDValue::Composite(_) => panic!("cosim: struct-typed port {}", port.name),
        }
        self.idx += 1;
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// Read the current (`val()`) value of every top-level port into `out`: port `i` occupies
/// `ports[i].words()` little-endian 64-bit words, ports packed in order.
pub fn read_ports<B: Block>(uut: &B, ports: &[Port], out: &mut [u64]) {
    let mut r = ValueReader {
        depth: 0,
        ports,
        idx: 0,
        out,
        one: VCDValue::from(true),
    };
    uut.accept("top", &mut r);
    assert_eq!(r.idx, ports.len(), "cosim: port list changed");
}

/// Total number of value words for `ports`.
pub fn total_words(ports: &[Port]) -> usize {
    ports.iter().map(|p| p.words()).sum()
}
