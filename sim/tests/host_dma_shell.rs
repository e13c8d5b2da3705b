//! The DMA shell model against real hardware: the `DmaMemcpy` block of `ferroce_hdl::dma`
//! (read a range, write it elsewhere) served by `DmaShell`, with random sizes and alignments,
//! then host memory compared with a reference. The same scenario runs on the rust-hdl
//! simulation, on the Verilator model (through the by-name port adapter), and on both in lock
//! step (co-simulation). Directed tests pin the shell's own timing, ordering and protocol
//! checks through a scripted port.
use ferroce_hdl::cosim::{CoSim, VerilatedBlock};
use ferroce_hdl::dma::memcpy::{DmaMemcpy, DmaMemcpy64};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_sim::host::dma_shell::{
    DmaPort, DmaPortIds, DmaRequest, RawBeat, ResponseBeat, VerilatedDmaPort, WriteDone,
};
use ferroce_sim::host::memory::{DmaWrite, HostMemory};
use ferroce_sim::host::{DmaShell, ShellConfig};
use std::collections::VecDeque;
use std::ops::Range;

// ---- the memcpy scenario ----------------------------------------------------------------------

/// One copy command.
#[derive(Clone, Copy, Debug)]
struct Copy {
    src: u64,
    dst: u64,
    len: u64,
    tag: u8,
}

/// What a harness must do to run the memcpy block for one cycle, whatever the engine.
trait Harness {
    fn drive_cmd(&mut self, cmd: Option<&Copy>);
    fn shell_drive(&mut self, shell: &mut DmaShell);
    fn settle(&mut self);
    fn cmd_ready(&mut self) -> bool;
    /// `(tag, error)` if `done_valid`.
    fn done(&mut self) -> Option<(u8, bool)>;
    fn read_error(&mut self) -> bool;
    fn shell_sample(&mut self, shell: &mut DmaShell);
    fn tick(&mut self);
}

/// A rust-hdl `Bench` or a `CoSim`, of a memcpy block of any width.
struct StepperHarness<S, const B: usize, const K: usize>(S);

impl<const B: usize, const K: usize, S: Stepper<DmaMemcpy<B, K>>> Harness
    for StepperHarness<S, B, K>
{
    fn drive_cmd(&mut self, cmd: Option<&Copy>) {
        let u = self.0.uut();
        let c = cmd.copied().unwrap_or(Copy {
            src: 0,
            dst: 0,
            len: 0,
            tag: 0,
        });
        u.cmd_valid.next = cmd.is_some();
        u.cmd_src.next = c.src.into();
        u.cmd_dst.next = c.dst.into();
        u.cmd_len.next = c.len.into();
        u.cmd_tag.next = (c.tag as u64).into();
    }
    fn shell_drive(&mut self, shell: &mut DmaShell) {
        shell.drive(&mut self.0.uut().dma);
    }
    fn settle(&mut self) {
        self.0.settle();
    }
    fn cmd_ready(&mut self) -> bool {
        self.0.uut().cmd_ready.val()
    }
    fn done(&mut self) -> Option<(u8, bool)> {
        let u = self.0.uut();
        u.done_valid
            .val()
            .then(|| (u.done_tag.val().to_u64() as u8, u.done_error.val()))
    }
    fn read_error(&mut self) -> bool {
        self.0.uut().read_error.val()
    }
    fn shell_sample(&mut self, shell: &mut DmaShell) {
        shell.sample(&self.0.uut().dma);
    }
    fn tick(&mut self) {
        self.0.tick();
    }
}

/// The Verilator model, reached by port name.
struct VerilatedHarness {
    vb: VerilatedBlock,
    dma: DmaPortIds,
    cmd: [usize; 5],
    out: [usize; 5],
}

impl VerilatedHarness {
    /// The Verilator model of a memcpy block of any width.
    fn new<const B: usize, const K: usize>() -> Self {
        let vb = VerilatedBlock::new(&mut DmaMemcpy::<B, K>::default());
        let dma = DmaPortIds::new(&vb, "dma");
        let cmd = ["cmd_valid", "cmd_src", "cmd_dst", "cmd_len", "cmd_tag"].map(|n| vb.port(n));
        let out = [
            "done_valid",
            "done_tag",
            "done_error",
            "read_error",
            "cmd_ready",
        ]
        .map(|n| vb.port(n));
        VerilatedHarness { vb, dma, cmd, out }
    }
}

impl Harness for VerilatedHarness {
    fn drive_cmd(&mut self, cmd: Option<&Copy>) {
        let c = cmd.copied().unwrap_or(Copy {
            src: 0,
            dst: 0,
            len: 0,
            tag: 0,
        });
        self.vb.set(self.cmd[0], cmd.is_some() as u64);
        self.vb.set(self.cmd[1], c.src);
        self.vb.set(self.cmd[2], c.dst);
        self.vb.set(self.cmd[3], c.len);
        self.vb.set(self.cmd[4], c.tag as u64);
    }
    fn shell_drive(&mut self, shell: &mut DmaShell) {
        shell.drive(&mut VerilatedDmaPort::new(&mut self.vb, &self.dma));
    }
    fn settle(&mut self) {
        self.vb.eval();
    }
    fn cmd_ready(&mut self) -> bool {
        self.vb.get(self.out[4]) != 0
    }
    fn done(&mut self) -> Option<(u8, bool)> {
        (self.vb.get(self.out[0]) != 0).then(|| {
            (
                self.vb.get(self.out[1]) as u8,
                self.vb.get(self.out[2]) != 0,
            )
        })
    }
    fn read_error(&mut self) -> bool {
        self.vb.get(self.out[3]) != 0
    }
    fn shell_sample(&mut self, shell: &mut DmaShell) {
        shell.sample(&VerilatedDmaPort::new(&mut self.vb, &self.dma));
    }
    fn tick(&mut self) {
        self.vb.tick();
    }
}

/// Outcome of running a list of copies.
struct Ran {
    dones: Vec<(u8, bool)>,
    read_error: bool,
    cycles: u64,
}

/// Feed `copies` (with random command gaps) until every completion is back and the shell is
/// idle.
fn run_copies(
    h: &mut dyn Harness,
    shell: &mut DmaShell,
    copies: &[Copy],
    rng: &mut Rng,
    gap_percent: u32,
) -> Ran {
    let mut queue: VecDeque<Copy> = copies.iter().copied().collect();
    let mut dones = vec![];
    let mut presenting = false;
    let budget = 200_000 + copies.iter().map(|c| c.len).sum::<u64>() * 4;
    let mut cycles = 0;
    while dones.len() < copies.len() || !shell.idle() {
        // a command once presented stays until taken (AXI rule)
        presenting = presenting || (!queue.is_empty() && !rng.percent(gap_percent));
        h.drive_cmd(if presenting { queue.front() } else { None });
        h.shell_drive(shell);
        h.settle();
        if presenting && h.cmd_ready() {
            queue.pop_front();
            presenting = false;
        }
        if let Some(d) = h.done() {
            dones.push(d);
        }
        h.shell_sample(shell);
        h.tick();
        cycles += 1;
        assert!(
            cycles < budget,
            "memcpy did not finish: {} of {} done after {cycles} cycles",
            dones.len(),
            copies.len()
        );
    }
    Ran {
        dones,
        read_error: h.read_error(),
        cycles,
    }
}

/// The scenario: a source region and a destination region with random contents, `n` copies of
/// random length (1 ..= `max_len`) and random source/destination alignment, destination ranges
/// disjoint (so the outcome does not depend on the order writes become visible). Checks the
/// destination against a reference, every completion in order with no error, the source and
/// everything outside the destination ranges untouched, the DMA write log, and no IOMMU fault.
fn memcpy_scenario(
    h: &mut dyn Harness,
    config: ShellConfig,
    seed: u64,
    n: usize,
    max_len: u64,
) -> u64 {
    let mut rng = Rng::new(seed);
    let memory = HostMemory::shared();
    let region = (n as u64 * (max_len + 64)).next_multiple_of(4096);
    let (src, dst) = {
        let mut m = memory.lock().unwrap();
        let src = m.alloc(region, 4096).unwrap();
        let dst = m.alloc(region, 4096).unwrap();
        let fill_src = rng.bytes(region as usize);
        let fill_dst = rng.bytes(region as usize);
        m.write(src, &fill_src);
        m.write(dst, &fill_dst);
        (src, dst)
    };
    let before = memory.lock().unwrap().snapshot();
    let mut expected = memory.lock().unwrap().read_vec(dst, region as usize);
    // destination slots of max_len + 64 bytes, visited in random order; random start in a slot
    let mut slots: Vec<u64> = (0..n as u64).collect();
    for i in (1..slots.len()).rev() {
        slots.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let copies: Vec<Copy> = slots
        .iter()
        .enumerate()
        .map(|(i, &slot)| {
            let len = if rng.percent(15) {
                rng.range(1, 8) as u64
            } else {
                rng.range(1, max_len as usize) as u64
            };
            let d = slot * (max_len + 64) + rng.below(64);
            let s = rng.below(region - len + 1);
            Copy {
                src: src + s,
                dst: dst + d,
                len,
                tag: i as u8,
            }
        })
        .collect();
    for c in &copies {
        let data = memory.lock().unwrap().read_vec(c.src, c.len as usize);
        let at = (c.dst - dst) as usize;
        expected[at..at + c.len as usize].copy_from_slice(&data);
    }
    let mut shell = DmaShell::new(memory.clone(), config);
    let ran = run_copies(h, &mut shell, &copies, &mut rng, 30);
    let tags: Vec<(u8, bool)> = copies.iter().map(|c| (c.tag, false)).collect();
    assert_eq!(ran.dones, tags, "completions in command order, no error");
    assert!(!ran.read_error);
    let m = memory.lock().unwrap();
    assert_eq!(
        m.read_vec(dst, region as usize),
        expected,
        "destination contents"
    );
    let allowed: Vec<Range<u64>> = copies.iter().map(|c| c.dst..c.dst + c.len).collect();
    m.assert_unchanged_outside(&before, &allowed);
    assert!(m.faults().is_empty(), "faults: {:?}", m.faults());
    let mut log = m.dma_writes().to_vec();
    let mut want: Vec<DmaWrite> = copies
        .iter()
        .map(|c| DmaWrite {
            addr: c.dst,
            len: c.len,
        })
        .collect();
    if config.write_jitter == 0 {
        assert_eq!(
            log, want,
            "without jitter, writes become visible in request order"
        );
    }
    log.sort_by_key(|w| w.addr);
    want.sort_by_key(|w| w.addr);
    assert_eq!(log, want);
    let st = shell.stats();
    assert_eq!(st.read_requests, n as u64);
    assert_eq!(st.write_bytes, copies.iter().map(|c| c.len).sum::<u64>());
    if config.stall_percent > 0 {
        assert!(
            st.response_stalls > 0,
            "the NIC side was never back-pressured: {st:?}"
        );
    }
    if config.read_latency > 0 {
        assert!(st.max_reads_seen > 1, "reads were never overlapped: {st:?}");
    }
    ran.cycles
}

fn bench() -> StepperHarness<Bench<DmaMemcpy64>, 64, 8> {
    StepperHarness(Bench::new(DmaMemcpy64::default(), |u| &mut u.clock))
}

#[test]
fn memcpy_rust_hdl_ideal_shell() {
    memcpy_scenario(&mut bench(), ShellConfig::ideal(), 1, 40, 300);
}

#[test]
fn memcpy_rust_hdl_default_shell_overlaps_reads() {
    let cycles = memcpy_scenario(&mut bench(), ShellConfig::default(), 2, 24, 200);
    // 24 copies with a 200-cycle read latency: serialised copies would take over 4800 cycles
    assert!(
        cycles < 3000,
        "read latency is not overlapped: {cycles} cycles"
    );
}

#[test]
fn memcpy_rust_hdl_stressed_shell() {
    for seed in 3..6 {
        let config = ShellConfig {
            read_bytes_per_cycle: 3,
            write_bytes_per_cycle: 5,
            ..ShellConfig::stressed(seed)
        };
        memcpy_scenario(&mut bench(), config, seed, 25, 200);
    }
}

/// The port and the shell are width-generic: the 512-bit profile copies the same way.
#[test]
fn memcpy_512_bit_profile() {
    let mut h: StepperHarness<_, 512, 64> =
        StepperHarness(Bench::new(DmaMemcpy::<512, 64>::default(), |u| {
            &mut u.clock
        }));
    memcpy_scenario(&mut h, ShellConfig::stressed(12), 12, 12, 700);
    if ferroce_testkit::require_tool("verilator") {
        let mut h = VerilatedHarness::new::<512, 64>();
        memcpy_scenario(&mut h, ShellConfig::stressed(13), 13, 30, 3000);
    }
}

#[test]
fn memcpy_verilator_engine_large_copies() {
    if !ferroce_testkit::require_tool("verilator") {
        return;
    }
    let mut h = VerilatedHarness::new::<64, 8>();
    // lengths up to 9000 bytes (payload + WQE sizes and beyond), many alignments
    memcpy_scenario(&mut h, ShellConfig::default(), 7, 120, 9000);
    let mut h = VerilatedHarness::new::<64, 8>();
    memcpy_scenario(&mut h, ShellConfig::stressed(8), 8, 200, 700);
}

#[test]
fn memcpy_cosim_rust_hdl_equals_verilog() {
    if !ferroce_testkit::require_tool("verilator") {
        return;
    }
    let cs = CoSim::new(DmaMemcpy64::default(), |u| &mut u.clock);
    let mut h = StepperHarness(cs);
    let cycles = memcpy_scenario(&mut h, ShellConfig::stressed(9), 9, 40, 100);
    // every output port compared at the settle and both clock phases of every cycle
    assert!(
        h.0.compares >= 3 * cycles,
        "{} comparisons in {cycles} cycles",
        h.0.compares
    );
}

#[test]
fn memcpy_reports_iommu_faults() {
    let memory = HostMemory::shared();
    let (src, dst) = {
        let mut m = memory.lock().unwrap();
        (m.alloc(256, 64).unwrap(), m.alloc(256, 64).unwrap())
    };
    memory.lock().unwrap().write(src, &[0xab; 256]);
    memory.lock().unwrap().write(dst, &[0xcd; 256]);
    let mut h = bench();
    let mut shell = DmaShell::new(memory.clone(), ShellConfig::ideal());
    let mut rng = Rng::new(1);
    // 1: the write runs past the destination mapping: dropped whole, completion with error
    // 2: the read runs past the source mapping: zeros are written, read error reported
    let copies = [
        Copy {
            src,
            dst: dst + 200,
            len: 100,
            tag: 1,
        },
        Copy {
            src: src + 200,
            dst,
            len: 100,
            tag: 2,
        },
    ];
    let ran = run_copies(&mut h, &mut shell, &copies, &mut rng, 0);
    assert_eq!(ran.dones, vec![(1, true), (2, false)]);
    assert!(ran.read_error);
    let m = memory.lock().unwrap();
    assert_eq!(
        m.read_vec(dst + 200, 56),
        vec![0xcd; 56],
        "a faulting write changes nothing"
    );
    assert_eq!(
        m.read_vec(dst, 100),
        vec![0; 100],
        "a failed read delivers zeros"
    );
    assert_eq!(m.faults().len(), 2);
    assert_eq!(shell.stats().read_errors, 1);
    assert_eq!(shell.stats().write_errors, 1);
}

// ---- directed tests of the shell through a scripted port ---------------------------------------

/// A port driven by the test itself (also shows that `DmaPort` is easy to implement for a
/// top level of another shape).
#[derive(Default)]
struct ScriptPort {
    rd_req: Option<DmaRequest>,
    rd_req_ready: bool,
    rsp: Option<ResponseBeat>,
    rsp_ready: bool,
    wr_req: Option<DmaRequest>,
    wr_req_ready: bool,
    wr_data: Option<RawBeat>,
    wr_data_ready: bool,
    done: Option<WriteDone>,
}

impl DmaPort for ScriptPort {
    fn beat_bytes(&self) -> usize {
        8
    }
    fn read_request(&self) -> Option<DmaRequest> {
        self.rd_req
    }
    fn set_read_request_ready(&mut self, ready: bool) {
        self.rd_req_ready = ready;
    }
    fn drive_read_response(&mut self, beat: Option<&ResponseBeat>) {
        self.rsp = beat.cloned();
    }
    fn read_response_ready(&self) -> bool {
        self.rsp_ready
    }
    fn write_request(&self) -> Option<DmaRequest> {
        self.wr_req
    }
    fn set_write_request_ready(&mut self, ready: bool) {
        self.wr_req_ready = ready;
    }
    fn write_data(&self) -> Option<RawBeat> {
        self.wr_data.clone()
    }
    fn set_write_data_ready(&mut self, ready: bool) {
        self.wr_data_ready = ready;
    }
    fn drive_write_done(&mut self, done: Option<WriteDone>) {
        self.done = done;
    }
}

fn beat(bytes: &[u8], last: bool) -> RawBeat {
    let mut data = bytes.to_vec();
    data.resize(8, 0);
    let keep = (0xffu64 << (8 - bytes.len())) & 0xff;
    RawBeat { data, keep, last }
}

/// Read timing: first beat exactly `read_latency + 1` cycles after acceptance, then one beat
/// per cycle at full rate, or `read_bytes_per_cycle` on average; bytes in address order, the
/// first one in the first beat's MSB position (`bytes[0]`).
#[test]
fn read_latency_bandwidth_and_byte_order() {
    for (bpc, min_cycles, max_cycles) in [(0u32, 512u64, 512u64), (2, 2040, 2060)] {
        let memory = HostMemory::shared();
        let a = memory.lock().unwrap().alloc(8192, 4096).unwrap();
        let data: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
        memory.lock().unwrap().write(a + 5, &data);
        let config = ShellConfig {
            read_latency: 40,
            read_bytes_per_cycle: bpc,
            ..ShellConfig::ideal()
        };
        let mut shell = DmaShell::new(memory, config);
        let mut p = ScriptPort {
            rd_req: Some(DmaRequest {
                addr: a + 5,
                len: 4096,
                tag: 0x5a,
            }),
            rsp_ready: true,
            ..Default::default()
        };
        let mut got = vec![];
        let (mut first, mut last_cycle) = (None, 0);
        for cycle in 0..10_000u64 {
            shell.drive(&mut p);
            if cycle == 0 {
                assert!(p.rd_req_ready);
            }
            if let Some(b) = &p.rsp {
                first.get_or_insert(cycle);
                assert_eq!(b.tag, 0x5a);
                assert!(!b.error);
                got.extend_from_slice(&b.bytes);
                last_cycle = cycle;
                if b.last {
                    assert_eq!(got.len(), 4096);
                }
            }
            shell.sample(&p);
            p.rd_req = None;
        }
        assert_eq!(got, data);
        assert_eq!(
            first,
            Some(41),
            "first beat read_latency + 1 cycles after acceptance"
        );
        let span = last_cycle - first.unwrap() + 1;
        assert!(
            (min_cycles..=max_cycles).contains(&span),
            "bandwidth {bpc}: {span} cycles for 4096 bytes"
        );
        assert!(shell.idle());
    }
}

/// Write completions come in request order, each only once it and every earlier write are
/// visible, even when jitter makes later writes visible first.
#[test]
fn write_completions_in_order_after_visibility() {
    let memory = HostMemory::shared();
    let base = memory.lock().unwrap().alloc(4096, 4096).unwrap();
    let config = ShellConfig {
        write_latency: 2,
        write_jitter: 30,
        seed: 11,
        ..ShellConfig::ideal()
    };
    let mut shell = DmaShell::new(memory.clone(), config);
    let mut p = ScriptPort::default();
    // 20 single-beat writes of 8 bytes, back to back; request and data presented together
    let mut pending: VecDeque<(DmaRequest, RawBeat)> = (0..20u8)
        .map(|i| {
            (
                DmaRequest {
                    addr: base + 64 * i as u64,
                    len: 8,
                    tag: i,
                },
                beat(&[i + 1; 8], true),
            )
        })
        .collect();
    let mut data_q: VecDeque<RawBeat> = VecDeque::new();
    let mut dones = vec![];
    let mut out_of_order_seen = false;
    for _ in 0..2000 {
        p.wr_req = pending.front().map(|x| x.0);
        p.wr_data = data_q.front().cloned();
        shell.drive(&mut p);
        if let Some(d) = p.done {
            let m = memory.lock().unwrap();
            for j in 0..=d.tag {
                assert_eq!(
                    m.read_vec(base + 64 * j as u64, 8),
                    vec![j + 1; 8],
                    "completion {} before write {j} is visible",
                    d.tag
                );
            }
            assert!(!d.error);
            dones.push(d.tag);
        }
        let accepted_req = p.wr_req.is_some() && p.wr_req_ready;
        let accepted_data = p.wr_data.is_some() && p.wr_data_ready;
        shell.sample(&p);
        if accepted_req {
            data_q.push_back(pending.pop_front().unwrap().1);
        }
        if accepted_data {
            data_q.pop_front();
        }
        let log = memory.lock().unwrap().dma_writes().to_vec();
        out_of_order_seen |= log.windows(2).any(|w| w[1].addr < w[0].addr);
    }
    assert_eq!(dones, (0..20).collect::<Vec<u8>>());
    assert!(
        out_of_order_seen,
        "jitter should make some writes visible out of request order"
    );
    assert!(shell.idle());
}

/// A shell cycle with a scripted port and nothing else.
fn cycle(shell: &mut DmaShell, p: &mut ScriptPort) {
    shell.drive(p);
    shell.sample(p);
}

#[test]
#[should_panic(expected = "changed or withdrawn before it was accepted")]
fn withdrawn_request_is_a_violation() {
    let memory = HostMemory::shared();
    let config = ShellConfig {
        max_reads: 1,
        read_latency: 100,
        ..ShellConfig::ideal()
    };
    let mut shell = DmaShell::new(memory, config);
    let mut p = ScriptPort {
        rd_req: Some(DmaRequest {
            addr: 0,
            len: 8,
            tag: 0,
        }),
        ..Default::default()
    };
    cycle(&mut shell, &mut p); // accepted (faulting read, irrelevant here)
    p.rd_req = Some(DmaRequest {
        addr: 64,
        len: 8,
        tag: 1,
    });
    cycle(&mut shell, &mut p); // not accepted: one read outstanding at most
    p.rd_req = Some(DmaRequest {
        addr: 128,
        len: 8,
        tag: 1,
    }); // changed while waiting
    cycle(&mut shell, &mut p);
}

#[test]
#[should_panic(expected = "brings the data to 16 bytes")]
fn write_data_longer_than_the_request_is_a_violation() {
    let memory = HostMemory::shared();
    let mut shell = DmaShell::new(memory, ShellConfig::ideal());
    let mut p = ScriptPort {
        wr_req: Some(DmaRequest {
            addr: 0,
            len: 12,
            tag: 0,
        }),
        ..Default::default()
    };
    cycle(&mut shell, &mut p);
    p.wr_req = None;
    p.wr_data = Some(beat(&[1; 8], false));
    cycle(&mut shell, &mut p);
    p.wr_data = Some(beat(&[2; 8], true));
    cycle(&mut shell, &mut p);
}

#[test]
#[should_panic(expected = "not contiguous from the top")]
fn holey_keep_is_a_violation() {
    let memory = HostMemory::shared();
    let mut shell = DmaShell::new(memory, ShellConfig::ideal());
    let mut p = ScriptPort {
        wr_req: Some(DmaRequest {
            addr: 0,
            len: 8,
            tag: 0,
        }),
        ..Default::default()
    };
    cycle(&mut shell, &mut p);
    p.wr_req = None;
    p.wr_data = Some(RawBeat {
        data: vec![1; 8],
        keep: 0xf7,
        last: true,
    });
    cycle(&mut shell, &mut p);
}

#[test]
#[should_panic(expected = "request of 0 bytes")]
fn zero_length_request_is_a_violation() {
    let memory = HostMemory::shared();
    let mut shell = DmaShell::new(memory, ShellConfig::ideal());
    let mut p = ScriptPort {
        rd_req: Some(DmaRequest {
            addr: 0x1000,
            len: 0,
            tag: 0,
        }),
        ..Default::default()
    };
    cycle(&mut shell, &mut p);
}

/// The rust-hdl port adapter follows the stream convention: first byte in the data MSB, keep
/// from the top, in both directions.
#[test]
fn port_adapter_packs_first_byte_msb() {
    use ferroce_hdl::dma::DmaMaster64;
    let mut port = DmaMaster64::default();
    port.drive_read_response(Some(&ResponseBeat {
        bytes: vec![1, 2, 3],
        last: true,
        tag: 9,
        error: true,
    }));
    assert_eq!(port.rd.rsp.data.next.to_u64(), 0x0102_0300_0000_0000);
    assert_eq!(port.rd.rsp.keep.next.to_u64(), 0xe0);
    assert!(port.rd.rsp.valid.next && port.rd.rsp.last.next && port.rd.rsp_error.next);
    assert_eq!(port.rd.rsp_tag.next.to_u64(), 9);
    port.wr.data.valid.next = true;
    port.wr.data.data.next = 0x0a0b_0c0d_0e00_0000u64.into();
    port.wr.data.keep.next = 0xf8u64.into();
    port.wr.data.last.next = true;
    let b = port.write_data().unwrap();
    assert_eq!(b.data, vec![0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0, 0, 0]);
    assert_eq!((b.keep, b.last), (0xf8, true));
}
