//! Waveforms of the NIC (`--vcd FILE --vcd-from N --vcd-cycles M`): every signal of the hardware
//! with its hierarchical name, over a window of clock cycles, as a VCD file for GTKWave or
//! Surfer, on either engine.
//!
//! Time: cycle `k` (the `k`-th rising edge of the NIC clock since reset, from 0) is at
//! `k * PERIOD_PS` picoseconds (the 250 MHz core clock). The rust-hdl engine writes the values
//! after each rising edge (its enumerated states by name, as string variables); the Verilator
//! engine writes them after the rising edge and again after the falling edge (half a period
//! later), with the clock itself, states as numbers.
use crate::host::backend::DEFAULT_CLOCK_HZ;
use ferroce_hdl::cosim::VerilatedBlock;
use ferroce_hdl::testbench::{Bench, Stepper};
use rust_hdl::core::vcd_probe::{write_vcd_change, write_vcd_dump, write_vcd_header, VCDProbe};
use rust_hdl::prelude::Block;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// One clock period in the VCD's time unit (1 ps).
pub const PERIOD_PS: u64 = 1_000_000_000_000 / DEFAULT_CLOCK_HZ;

/// Where and which cycles to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcdWindow {
    pub path: PathBuf,
    /// First cycle written.
    pub from: u64,
    /// Cycles written.
    pub cycles: u64,
}

impl VcdWindow {
    /// Whether cycle `k` is in the window.
    pub fn contains(&self, k: u64) -> bool {
        k >= self.from && k - self.from < self.cycles
    }

    /// The window for the second NIC of a pair: the same cycles, in `FILE.b.vcd` (`x.vcd` ->
    /// `x.b.vcd`; without an extension, `FILE.b`).
    pub fn for_second_nic(&self) -> VcdWindow {
        let p = &self.path;
        let name = match (p.file_stem(), p.extension()) {
            (Some(stem), Some(ext)) => {
                format!("{}.b.{}", stem.to_string_lossy(), ext.to_string_lossy())
            }
            _ => format!("{}.b", p.file_name().unwrap_or_default().to_string_lossy()),
        };
        VcdWindow {
            path: p.with_file_name(name),
            ..self.clone()
        }
    }

    /// Check the arguments before a run: a window of at least one cycle, a file that can be
    /// created.
    pub fn check(&self) -> Result<(), String> {
        if self.cycles == 0 {
            return Err("--vcd-cycles must be at least 1".into());
        }
        File::create(&self.path).map_err(|e| format!("--vcd {}: {e}", self.path.display()))?;
        Ok(())
    }
}

/// rust-hdl's VCD with its enumerated signals declared as strings. rust-hdl declares them
/// `$var wire 0` and writes their values as names (`sIdle`), which a reader that keeps to the
/// wire type drops (GTKWave's `vcd2fst` does); declared `$var string`, the VCD extension
/// GTKWave reads string values from, they keep their names. The header is held until
/// `$enddefinitions` and written rewritten; the values pass straight through.
struct StringVars<W: Write> {
    out: W,
    header: Option<Vec<u8>>,
}

impl<W: Write> StringVars<W> {
    fn new(out: W) -> StringVars<W> {
        StringVars {
            out,
            header: Some(Vec::new()),
        }
    }
}

impl<W: Write> Write for StringVars<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(header) = &mut self.header else {
            return self.out.write(buf);
        };
        // Look for the end of the header only in what this write added (and the few bytes
        // before it, where the keyword may have begun).
        let end = b"$enddefinitions";
        let from = header.len().saturating_sub(end.len() - 1);
        header.extend_from_slice(buf);
        if header[from..].windows(end.len()).any(|w| w == end) {
            let text = String::from_utf8_lossy(header).replace("$var wire 0 ", "$var string 0 ");
            self.out.write_all(text.as_bytes())?;
            self.header = None;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A rust-hdl simulation ([`Bench`]) that writes a VCD of its block over a window of cycles.
pub struct VcdBench<B: Block> {
    bench: Bench<B>,
    window: VcdWindow,
    probe: Option<VCDProbe<StringVars<BufWriter<File>>>>,
    dumped: bool,
}

impl<B: Block> VcdBench<B> {
    pub fn new(bench: Bench<B>, window: VcdWindow) -> Result<VcdBench<B>, String> {
        let f = File::create(&window.path)
            .map_err(|e| format!("--vcd {}: {e}", window.path.display()))?;
        let probe = write_vcd_header(StringVars::new(BufWriter::new(f)), &bench.uut);
        Ok(VcdBench {
            bench,
            window,
            probe: Some(probe),
            dumped: false,
        })
    }

    fn path(&self) -> &Path {
        &self.window.path
    }
}

impl<B: Block> Stepper<B> for VcdBench<B> {
    fn uut(&mut self) -> &mut B {
        self.bench.uut()
    }
    fn settle(&mut self) {
        self.bench.settle();
    }
    fn tick(&mut self) {
        let k = self.bench.cycles();
        self.bench.tick();
        if self.window.contains(k) {
            let mut p = self.probe.take().expect("probe present");
            if let Err(e) = p.timestamp(k * PERIOD_PS) {
                panic!("writing {}: {e}", self.path().display());
            }
            p = if self.dumped {
                write_vcd_change(p, &self.bench.uut)
            } else {
                self.dumped = true;
                write_vcd_dump(p, &self.bench.uut)
            };
            self.probe = Some(p);
        }
    }
    fn cycles(&self) -> u64 {
        self.bench.cycles()
    }
}

/// The Verilator model of `uut` (built once, then taken from the cache); with `vcd`, the model
/// built with Verilator's tracing (its own cached model) with its VCD open on the window's file.
/// Tick it through a [`VcdClock`] of the same window.
pub fn verilated_model<B: Block>(
    uut: &mut B,
    vcd: Option<&VcdWindow>,
) -> Result<VerilatedBlock, String> {
    let (verilog, ports) = VerilatedBlock::source(uut);
    let mut model =
        VerilatedBlock::from_verilog_with(&verilog, VerilatedBlock::TOP, ports, vcd.is_some())?;
    if let Some(w) = vcd {
        model.trace_open(&w.path)?;
    }
    Ok(model)
}

/// The clock of a Verilator model from [`verilated_model`]: counts cycles from reset and, with a
/// window, dumps every signal after both edges of the cycles inside it (time as in this
/// module's introduction).
#[derive(Clone, Debug, Default)]
pub struct VcdClock {
    window: Option<VcdWindow>,
    cycles: u64,
}

impl VcdClock {
    pub fn new(window: Option<VcdWindow>) -> VcdClock {
        VcdClock { window, cycles: 0 }
    }

    /// One clock cycle of `model`.
    pub fn tick(&mut self, model: &mut VerilatedBlock) {
        match &self.window {
            Some(w) if w.contains(self.cycles) => {
                let t = self.cycles * PERIOD_PS;
                model.tick_traced(t, t + PERIOD_PS / 2);
            }
            _ => model.tick(),
        }
        self.cycles += 1;
    }

    /// Cycles ticked since reset.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }
}
