//! [`DmaMemcpy`]: copy `len` bytes from host address `src` to `dst` through the DMA port.
//!
//! The smallest complete user of [`DmaMaster`]: it exists to prove that the port interfaces
//! emit clean, synthesisable Verilog and to give the simulator's DMA shell model a real
//! hardware block to serve (sim/tests/host_dma_shell.rs). It is not part of the NIC datapath.
//!
//! Why it is so small: the DMA contract does the realignment. A read response starts with the
//! byte at `src` in the MSB of its first beat and a write's data starts with the byte for `dst`
//! in the MSB of its first beat, so the response stream *is* the write data stream, whatever
//! the two alignments are. The block only issues the two requests and passes the stream
//! through.
//!
//! Ports:
//! * `cmd_*`: one copy per transfer (`cmd_valid & cmd_ready`): `cmd_src`, `cmd_dst`,
//!   `cmd_len` (1 ..= [`super::DMA_MAX_LEN`]), `cmd_tag`. `cmd_ready` is registered; the next
//!   copy is taken as soon as the shell accepted both requests of the previous one, so several
//!   copies can be in flight (read latency is overlapped).
//! * `done_*`: the write completion of each copy, in command order (a one-cycle strobe with the
//!   copy's tag and the shell's error flag). When `done_valid` rises, the copy is visible in
//!   host memory.
//! * `read_error`: sticky, set when any read response beat carried `rsp_error` (the data
//!   written for that copy are then zeros).
//! * `dma`: the DMA port. Read and write requests carry the command's tag.
use super::{DmaMaster, DMA_ADDR_BITS, DMA_LEN_BITS, DMA_TAG_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DmaMemcpy<const B: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    pub cmd_src: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub cmd_dst: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub cmd_len: Signal<In, Bits<DMA_LEN_BITS>>,
    pub cmd_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub done_error: Signal<Out, Bit>,
    pub read_error: Signal<Out, Bit>,
    pub dma: DmaMaster<B, K>,
    /// The read request of the current copy is not yet accepted by the shell.
    rd_pending: DFF<Bit>,
    /// The write request of the current copy is not yet accepted by the shell.
    wr_pending: DFF<Bit>,
    src: DFF<Bits<DMA_ADDR_BITS>>,
    dst: DFF<Bits<DMA_ADDR_BITS>>,
    len: DFF<Bits<DMA_LEN_BITS>>,
    tag: DFF<Bits<DMA_TAG_BITS>>,
    rd_err: DFF<Bit>,
}

impl<const B: usize, const K: usize> Logic for DmaMemcpy<B, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_pending, wr_pending, src, dst, len, tag, rd_err);
        // Requests straight from the registers: valid never depends on ready, and the fields
        // hold while a request waits (AXI rule).
        self.cmd_ready.next = !self.rd_pending.q.val() & !self.wr_pending.q.val();
        self.dma.rd.req_valid.next = self.rd_pending.q.val();
        self.dma.rd.req_addr.next = self.src.q.val();
        self.dma.rd.req_len.next = self.len.q.val();
        self.dma.rd.req_tag.next = self.tag.q.val();
        self.dma.wr.req_valid.next = self.wr_pending.q.val();
        self.dma.wr.req_addr.next = self.dst.q.val();
        self.dma.wr.req_len.next = self.len.q.val();
        self.dma.wr.req_tag.next = self.tag.q.val();
        if self.dma.rd.req_ready.val() {
            self.rd_pending.d.next = false;
        }
        if self.dma.wr.req_ready.val() {
            self.wr_pending.d.next = false;
        }
        // A new copy only when both requests of the previous one are gone, so the shared
        // len/tag registers are free.
        if self.cmd_valid.val() & !self.rd_pending.q.val() & !self.wr_pending.q.val() {
            self.rd_pending.d.next = true;
            self.wr_pending.d.next = true;
            self.src.d.next = self.cmd_src.val();
            self.dst.d.next = self.cmd_dst.val();
            self.len.d.next = self.cmd_len.val();
            self.tag.d.next = self.cmd_tag.val();
        }
        // Read responses come in request order and writes take their data in request order,
        // so response i is exactly the data of write i: pass the stream through.
        self.dma.wr.data.valid.next = self.dma.rd.rsp.valid.val();
        self.dma.wr.data.data.next = self.dma.rd.rsp.data.val();
        self.dma.wr.data.keep.next = self.dma.rd.rsp.keep.val();
        self.dma.wr.data.last.next = self.dma.rd.rsp.last.val();
        self.dma.rd.rsp.ready.next = self.dma.wr.data.ready.val();
        if self.dma.rd.rsp.valid.val() & self.dma.wr.data.ready.val() & self.dma.rd.rsp_error.val()
        {
            self.rd_err.d.next = true;
        }
        self.read_error.next = self.rd_err.q.val();
        self.done_valid.next = self.dma.wr.done_valid.val();
        self.done_tag.next = self.dma.wr.done_tag.val();
        self.done_error.next = self.dma.wr.done_error.val();
    }
}

/// 64-bit profile.
pub type DmaMemcpy64 = DmaMemcpy<64, 8>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::DmaSlave;
    use crate::testbench::{Bench, Stepper};
    use std::process::Command;

    /// Every top-level port the Verilog gets, with the names the simulator's adapters use.
    #[test]
    fn port_names_are_the_documented_ones() {
        let mut uut = DmaMemcpy64::default();
        uut.connect_all();
        let ports = crate::cosim::ports(&uut);
        let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
        for n in [
            "dma$rd$req_valid",
            "dma$rd$req_ready",
            "dma$rd$req_addr",
            "dma$rd$req_len",
            "dma$rd$req_tag",
            "dma$rd$rsp$valid",
            "dma$rd$rsp$ready",
            "dma$rd$rsp$data",
            "dma$rd$rsp$keep",
            "dma$rd$rsp$last",
            "dma$rd$rsp_tag",
            "dma$rd$rsp_error",
            "dma$wr$req_valid",
            "dma$wr$req_ready",
            "dma$wr$req_addr",
            "dma$wr$req_len",
            "dma$wr$req_tag",
            "dma$wr$data$valid",
            "dma$wr$data$ready",
            "dma$wr$data$data",
            "dma$wr$data$keep",
            "dma$wr$data$last",
            "dma$wr$done_valid",
            "dma$wr$done_tag",
            "dma$wr$done_error",
        ] {
            assert!(names.contains(&n), "missing port {n}: {names:?}");
        }
        let width = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(width("dma$rd$req_addr"), 64);
        assert_eq!(width("dma$rd$req_len"), 16);
        assert_eq!(width("dma$wr$done_tag"), 8);
        assert_eq!(width("dma$wr$data$keep"), 8);
    }

    /// A shell-side block joined to the NIC-side port must type-check and connect: the join
    /// partner types are what a top level uses to wire the NIC to a shell written in rust-hdl.
    #[derive(LogicBlock, Default)]
    struct Loopback {
        clock: Signal<In, Clock>,
        copier: DmaMemcpy64,
        shell: ShellStub,
    }

    /// A degenerate shell (accepts everything, never answers) for the join test.
    #[derive(LogicBlock, Default)]
    struct ShellStub {
        port: DmaSlave<64, 8>,
    }

    impl Logic for ShellStub {
        #[hdl_gen]
        fn update(&mut self) {
            self.port.rd.req_ready.next = true;
            self.port.rd.rsp.valid.next = false;
            self.port.rd.rsp.data.next = 0.into();
            self.port.rd.rsp.keep.next = 0.into();
            self.port.rd.rsp.last.next = false;
            self.port.rd.rsp_tag.next = 0.into();
            self.port.rd.rsp_error.next = false;
            self.port.wr.req_ready.next = true;
            self.port.wr.data.ready.next = true;
            self.port.wr.done_valid.next = false;
            self.port.wr.done_tag.next = 0.into();
            self.port.wr.done_error.next = false;
        }
    }

    impl Logic for Loopback {
        #[hdl_gen]
        fn update(&mut self) {
            self.copier.clock.next = self.clock.val();
            self.copier.cmd_valid.next = true;
            self.copier.cmd_src.next = 0x1000.into();
            self.copier.cmd_dst.next = 0x2000.into();
            self.copier.cmd_len.next = 64.into();
            self.copier.cmd_tag.next = 7.into();
            DmaMaster::<64, 8>::join(&mut self.copier.dma, &mut self.shell.port);
        }
    }

    #[test]
    fn joins_to_a_shell_side_port() {
        let mut b = Bench::new(Loopback::default(), |u| &mut u.clock);
        b.settle();
        assert!(b.uut.copier.cmd_ready.val());
        b.tick();
        // the command is taken; both requests are presented and accepted by the stub
        assert!(b.uut.shell.port.rd.req_valid.val());
        assert_eq!(b.uut.shell.port.rd.req_addr.val().to_u64(), 0x1000);
        assert_eq!(b.uut.shell.port.wr.req_addr.val().to_u64(), 0x2000);
        assert_eq!(b.uut.shell.port.wr.req_len.val().to_u64(), 64);
        assert_eq!(b.uut.shell.port.wr.req_tag.val().to_u64(), 7);
        b.tick();
        assert!(b.uut.copier.cmd_ready.val());
        let mut top = Loopback::default();
        top.connect_all();
        ferroce_testkit::yosys_check("dma_loopback", &generate_verilog(&top));
    }

    fn write_verilog(tag: &str) -> (String, std::path::PathBuf) {
        let module = "ferroce_dma_memcpy_64";
        let v = crate::verilog::block_verilog(&mut DmaMemcpy64::default(), module);
        let dir = std::env::temp_dir().join(format!("ferroce_dma_{tag}_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{module}.v"));
        std::fs::write(&path, v).unwrap();
        (module.to_string(), path)
    }

    fn run(cmd: &mut Command) -> (bool, String) {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    /// Yosys: the rust-hdl validation and a full ECP5 synthesis without latches, with
    /// `check -assert` clean (the same checks hdl/tests/verilog_tools.rs applies to the
    /// datapath blocks).
    #[test]
    fn memcpy_synthesises_clean() {
        let mut uut = DmaMemcpy64::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("dma_memcpy", &generate_verilog(&uut));
        if !ferroce_testkit::require_tool("yosys") {
            return;
        }
        let (m, p) = write_verilog("yosys");
        let log = p.with_extension("log");
        let script = format!(
            "read_verilog {}; synth_ecp5 -top {m}; check -assert",
            p.display()
        );
        let (ok, text) = run(Command::new("yosys")
            .arg("-q")
            .arg("-l")
            .arg(&log)
            .arg("-p")
            .arg(&script));
        let logtext = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(ok, "yosys synth_ecp5 failed:\n{text}");
        assert!(
            !logtext.contains("Latch inferred"),
            "latch in {m}: see {}",
            log.display()
        );
    }

    /// Verilator lint with the project's documented waivers only, and Icarus compiles it.
    #[test]
    fn memcpy_lints_clean() {
        if ferroce_testkit::require_tool("verilator") {
            let (m, p) = write_verilog("verilator");
            let (ok, text) = run(Command::new("verilator")
                .args([
                    "--lint-only",
                    "-Wall",
                    "-Wno-WIDTH",
                    "-Wno-DECLFILENAME",
                    "-Wno-UNUSEDSIGNAL",
                    "-Wno-UNOPTFLAT",
                ])
                .args(["--top-module", &m])
                .arg(&p));
            assert!(
                ok && !text.contains("%Warning") && !text.contains("%Error"),
                "verilator:\n{text}"
            );
        }
        if ferroce_testkit::require_tool("iverilog") {
            let (m, p) = write_verilog("iverilog");
            let out = p.with_extension("vvp");
            let (ok, text) = run(Command::new("iverilog")
                .args(["-g2012", "-s", &m, "-o"])
                .arg(&out)
                .arg(&p));
            assert!(ok, "iverilog:\n{text}");
        }
    }
}
