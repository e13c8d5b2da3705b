//! The PCIe DMA shell model: serves a NIC's DMA port (`ferroce_hdl::dma`, docs/DMA.md) cycle
//! by cycle from the host-memory model.
//!
//! On a board this is the vendor's or Corundum's DMA engine plus PCIe; here it is software,
//! because it lies outside the FPGA design. It implements the contract of docs/DMA.md and
//! checks the NIC's side of it (a violation panics with the cycle and the rule):
//!
//! * **Reads**: up to `max_reads` requests outstanding; each request's bytes are taken from
//!   host memory when it is accepted and streamed back, in request order, from
//!   `read_latency` cycles later, at most `read_bytes_per_cycle` on average. An access to
//!   unmapped IOVA space is an IOMMU fault: the response still has `len` bytes (zeros) with
//!   `rsp_error = 1`.
//! * **Writes**: up to `max_writes` outstanding; data beats are taken for the oldest request
//!   still missing data. A write becomes visible (is applied to host memory) `write_latency`
//!   cycles after its last data beat, plus a random `0 ..= write_jitter` cycles: with jitter,
//!   outstanding writes may become visible out of request order (as PCIe relaxed ordering or
//!   a multi-ID AXI bridge allows). Completions are nevertheless strictly in request order, and
//!   a write's completion is presented only after it *and every earlier write* are visible, so
//!   a NIC that waits for the data's completion before writing a CQE is always right, and one
//!   that does not is caught.
//! * **Back-pressure**: with `stall_percent > 0`, every ready and every response beat is
//!   randomly withheld, to shake out NIC handshake bugs.
//!
//! # Reaching the port: [`DmaPort`]
//!
//! The shell talks to the port through the [`DmaPort`] trait, implemented here for the
//! rust-hdl interface [`DmaMaster`] (a block stepped by `Bench` or `CoSim`: pass
//! `&mut uut.dma`) and for a Verilator model ([`VerilatedDmaPort`], by port name).
//!
//! # One cycle
//!
//! ```ignore
//! shell.drive(&mut bench.uut.dma);   // 1. the shell's outputs for this cycle
//! /* other models drive their inputs */
//! bench.settle();                    // 2. the block settles
//! shell.sample(&bench.uut.dma);      // 3. handshakes of this cycle (before the edge)
//! bench.tick();                      // 4. rising edge
//! ```
//! The shell's outputs depend only on its own state (never combinationally on the NIC's
//! outputs), so a single settle per cycle is exact.
use super::lock;
use super::memory::SharedMemory;
use ferroce_hdl::cosim::engine::StreamIds;
use ferroce_hdl::cosim::VerilatedBlock;
use ferroce_hdl::dma::{DmaMaster, DMA_MAX_LEN};
use ferroce_hdl::stream::{unpack_data, Beat};
use ferroce_hdl::testbench::Rng;
use std::collections::VecDeque;

/// A read or write request as the NIC presents it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaRequest {
    pub addr: u64,
    pub len: u64,
    pub tag: u8,
}

/// One read response beat as the shell drives it: `bytes` are the valid bytes in wire order
/// (1 ..= beat width), first byte in the data MSB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseBeat {
    pub bytes: Vec<u8>,
    pub last: bool,
    pub tag: u8,
    pub error: bool,
}

/// One write data beat as the NIC presents it, undecoded: `data` holds all beat bytes in wire
/// order, `keep` bit `K-1-i` enables byte `i` (so the shell can check the keep rules itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawBeat {
    pub data: Vec<u8>,
    pub keep: u64,
    pub last: bool,
}

/// A write completion as the shell drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteDone {
    pub tag: u8,
    pub error: bool,
}

/// How the shell reaches a NIC's DMA port: read the NIC's outputs (after a settle), drive the
/// NIC's inputs (before the settle). Implemented for the rust-hdl [`DmaMaster`] and for
/// [`VerilatedDmaPort`]; a top level with another shape implements it in a few lines.
pub trait DmaPort {
    /// Bytes per data beat (`K`); at most 64.
    fn beat_bytes(&self) -> usize;
    /// `rd.req_*` if `rd.req_valid`.
    fn read_request(&self) -> Option<DmaRequest>;
    fn set_read_request_ready(&mut self, ready: bool);
    /// Drive `rd.rsp` (+ `rsp_tag`, `rsp_error`), or idle it with `None`.
    fn drive_read_response(&mut self, beat: Option<&ResponseBeat>);
    /// `rd.rsp.ready`.
    fn read_response_ready(&self) -> bool;
    /// `wr.req_*` if `wr.req_valid`.
    fn write_request(&self) -> Option<DmaRequest>;
    fn set_write_request_ready(&mut self, ready: bool);
    /// `wr.data` if `wr.data.valid`.
    fn write_data(&self) -> Option<RawBeat>;
    fn set_write_data_ready(&mut self, ready: bool);
    /// Drive `wr.done_*` (a one-cycle strobe), or idle it with `None`.
    fn drive_write_done(&mut self, done: Option<WriteDone>);
}

/// Timing and behaviour of the shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShellConfig {
    /// Cycles from a read request's acceptance edge to the cycle its first beat can be
    /// presented, minus one (0: the very next cycle).
    pub read_latency: u64,
    /// Cycles from a write's last data beat to its visibility in host memory, minus one.
    pub write_latency: u64,
    /// Average read bandwidth in bytes per cycle; 0 = one full beat per cycle.
    pub read_bytes_per_cycle: u32,
    /// Average write bandwidth in bytes per cycle; 0 = one full beat per cycle.
    pub write_bytes_per_cycle: u32,
    /// Read requests accepted and not yet fully answered (PCIe tags / completion buffer).
    pub max_reads: usize,
    /// Write requests accepted and not yet completed.
    pub max_writes: usize,
    /// Chance in percent, each cycle, of withholding each ready and each new response beat.
    pub stall_percent: u32,
    /// Extra random visibility delay per write, `0 ..= write_jitter` cycles (0: writes
    /// become visible in request order).
    pub write_jitter: u64,
    /// Seed of the stall and jitter generator.
    pub seed: u64,
}

impl Default for ShellConfig {
    /// A PCIe Gen3-like shell at 250 MHz: ~800 ns read round trip, posted writes completing
    /// after ~200 ns, full-rate beats, 32 reads and 32 writes outstanding.
    fn default() -> Self {
        ShellConfig {
            read_latency: 200,
            write_latency: 50,
            read_bytes_per_cycle: 0,
            write_bytes_per_cycle: 0,
            max_reads: 32,
            max_writes: 32,
            stall_percent: 0,
            write_jitter: 0,
            seed: 1,
        }
    }
}

impl ShellConfig {
    /// No latency, full rate, no stalls: for fast unit tests.
    pub fn ideal() -> Self {
        ShellConfig {
            read_latency: 0,
            write_latency: 0,
            ..Self::default()
        }
    }

    /// Random back-pressure, reordered write visibility and few outstanding requests: for
    /// robustness tests of a NIC block.
    pub fn stressed(seed: u64) -> Self {
        ShellConfig {
            read_latency: 7,
            write_latency: 3,
            max_reads: 3,
            max_writes: 3,
            stall_percent: 30,
            write_jitter: 12,
            seed,
            ..Self::default()
        }
    }
}

/// Counters of what the shell served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShellStats {
    pub read_requests: u64,
    pub read_bytes: u64,
    pub read_errors: u64,
    pub write_requests: u64,
    pub write_bytes: u64,
    pub write_errors: u64,
    /// Cycles in which a response beat was presented and the NIC was not ready.
    pub response_stalls: u64,
    /// Most read requests outstanding at once.
    pub max_reads_seen: usize,
    /// Most write requests outstanding at once.
    pub max_writes_seen: usize,
}

struct PendingRead {
    req: DmaRequest,
    data: Vec<u8>,
    error: bool,
    first_beat_at: u64,
    sent: usize,
}

struct PendingWrite {
    req: DmaRequest,
    data: Vec<u8>,
    /// Cycle at whose sample the write becomes visible (set when its data are complete).
    land_at: Option<u64>,
    landed: bool,
    error: bool,
}

/// What the shell put on the port in the current cycle (decided in `drive`, used in `sample`).
#[derive(Default)]
struct Driven {
    rd_req_ready: bool,
    rsp: Option<ResponseBeat>,
    wr_req_ready: bool,
    wr_data_ready: bool,
    done: Option<WriteDone>,
}

/// The DMA shell model (see the module doc).
pub struct DmaShell {
    memory: SharedMemory,
    config: ShellConfig,
    rng: Rng,
    cycle: u64,
    reads: VecDeque<PendingRead>,
    writes: VecDeque<PendingWrite>,
    rd_credit: u64,
    wr_credit: u64,
    out: Driven,
    /// The response beat presented last cycle was not taken: present it again.
    rsp_held: Option<ResponseBeat>,
    /// Requests / data presented and not accepted last cycle (AXI: must be held).
    rd_req_waiting: Option<DmaRequest>,
    wr_req_waiting: Option<DmaRequest>,
    wr_data_waiting: Option<RawBeat>,
    stats: ShellStats,
}

impl DmaShell {
    pub fn new(memory: SharedMemory, config: ShellConfig) -> Self {
        DmaShell {
            memory,
            rng: Rng::new(config.seed),
            config,
            cycle: 0,
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            rd_credit: 0,
            wr_credit: 0,
            out: Driven::default(),
            rsp_held: None,
            rd_req_waiting: None,
            wr_req_waiting: None,
            wr_data_waiting: None,
            stats: ShellStats::default(),
        }
    }

    /// The host memory this shell serves.
    pub fn memory(&self) -> &SharedMemory {
        &self.memory
    }

    pub fn config(&self) -> &ShellConfig {
        &self.config
    }

    /// Change the timing from the next cycle on (what is in flight stays; the stall generator
    /// is reseeded from `config.seed`): e.g. a host whose DMA writes slow down mid-run.
    pub fn set_config(&mut self, config: ShellConfig) {
        self.rng = Rng::new(config.seed);
        self.config = config;
    }

    /// Cycles sampled so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    pub fn stats(&self) -> ShellStats {
        self.stats
    }

    /// Nothing outstanding: every accepted read answered, every accepted write completed.
    pub fn idle(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty()
    }

    fn stall(&mut self) -> bool {
        self.config.stall_percent > 0 && self.rng.percent(self.config.stall_percent)
    }

    /// Enough bandwidth credit for `n` bytes this cycle (always, at full rate).
    fn credit_ok(bytes_per_cycle: u32, credit: u64, n: usize) -> bool {
        bytes_per_cycle == 0 || credit >= n as u64
    }

    /// Step 1 of a cycle: drive the shell's side of the port from the shell's state.
    pub fn drive<P: DmaPort + ?Sized>(&mut self, port: &mut P) {
        let k = port.beat_bytes();
        assert!((1..=64).contains(&k), "DMA shell: beat of {k} bytes");
        // read requests
        let rd_req_ready = self.reads.len() < self.config.max_reads && !self.stall();
        // read response: a beat once presented is held until taken (AXI rule)
        let rsp = match self.rsp_held.take() {
            Some(b) => Some(b),
            None => match self.reads.front() {
                Some(r) if self.cycle >= r.first_beat_at => {
                    let n = k.min(r.data.len() - r.sent);
                    let beat = ResponseBeat {
                        bytes: r.data[r.sent..r.sent + n].to_vec(),
                        last: r.sent + n == r.data.len(),
                        tag: r.req.tag,
                        error: r.error,
                    };
                    let ok = Self::credit_ok(self.config.read_bytes_per_cycle, self.rd_credit, n);
                    (ok && !self.stall()).then_some(beat)
                }
                _ => None,
            },
        };
        // write requests and data
        let wr_req_ready = self.writes.len() < self.config.max_writes && !self.stall();
        let want = self
            .writes
            .iter()
            .find(|w| (w.data.len() as u64) < w.req.len)
            .map(|w| w.req.len as usize - w.data.len());
        let wr_data_ready = match want {
            Some(rem) => {
                Self::credit_ok(
                    self.config.write_bytes_per_cycle,
                    self.wr_credit,
                    rem.min(k),
                ) && !self.stall()
            }
            None => false,
        };
        // completions: in request order, only once the write (hence every earlier one) landed
        let done = self.writes.front().filter(|w| w.landed).map(|w| WriteDone {
            tag: w.req.tag,
            error: w.error,
        });
        let out = Driven {
            rd_req_ready,
            rsp,
            wr_req_ready,
            wr_data_ready,
            done,
        };
        port.set_read_request_ready(out.rd_req_ready);
        port.drive_read_response(out.rsp.as_ref());
        port.set_write_request_ready(out.wr_req_ready);
        port.set_write_data_ready(out.wr_data_ready);
        port.drive_write_done(out.done);
        self.out = out;
    }

    #[track_caller]
    fn violation(&self, what: String) -> ! {
        panic!(
            "DMA protocol violation by the NIC at shell cycle {}: {what}",
            self.cycle
        )
    }

    fn check_request(&self, channel: &str, req: DmaRequest) {
        if req.len == 0 || req.len > DMA_MAX_LEN as u64 {
            self.violation(format!(
                "{channel} request of {} bytes (1 ..= {DMA_MAX_LEN})",
                req.len
            ));
        }
        if req.addr.checked_add(req.len).is_none() {
            self.violation(format!(
                "{channel} request at {:#x} + {} wraps past 2^64",
                req.addr, req.len
            ));
        }
    }

    /// Step 3 of a cycle (after the settle, before the clock edge): take the handshakes of
    /// this cycle and advance the shell's state by one cycle.
    pub fn sample<P: DmaPort + ?Sized>(&mut self, port: &P) {
        let k = port.beat_bytes();
        let out = std::mem::take(&mut self.out);
        // writes whose visibility time has come (any order, with jitter)
        if self
            .writes
            .iter()
            .any(|w| !w.landed && w.land_at.is_some_and(|t| t <= self.cycle))
        {
            let mut mem = lock(&self.memory);
            for w in self
                .writes
                .iter_mut()
                .filter(|w| !w.landed && w.land_at.is_some_and(|t| t <= self.cycle))
            {
                w.landed = true;
                if mem.dma_write(w.req.addr, &w.data).is_err() {
                    w.error = true;
                    self.stats.write_errors += 1;
                }
            }
        }
        // read request
        let rd_req = port.read_request();
        if let Some(held) = self.rd_req_waiting.take() {
            if rd_req != Some(held) {
                self.violation(format!("read request {held:?} changed or withdrawn before it was accepted (now {rd_req:?})"));
            }
        }
        if let Some(req) = rd_req {
            if out.rd_req_ready {
                self.check_request("read", req);
                let (data, error) = match lock(&self.memory).dma_read(req.addr, req.len) {
                    Ok(d) => (d, false),
                    Err(_) => (vec![0; req.len as usize], true),
                };
                self.stats.read_requests += 1;
                self.stats.read_errors += error as u64;
                self.reads.push_back(PendingRead {
                    req,
                    data,
                    error,
                    first_beat_at: self.cycle + 1 + self.config.read_latency,
                    sent: 0,
                });
                self.stats.max_reads_seen = self.stats.max_reads_seen.max(self.reads.len());
            } else {
                self.rd_req_waiting = Some(req);
            }
        }
        // read response
        if let Some(beat) = out.rsp {
            if port.read_response_ready() {
                let n = beat.bytes.len();
                let head = self
                    .reads
                    .front_mut()
                    .expect("a presented beat belongs to the head read");
                head.sent += n;
                self.stats.read_bytes += n as u64;
                if self.config.read_bytes_per_cycle > 0 {
                    self.rd_credit = self.rd_credit.saturating_sub(n as u64);
                }
                if head.sent == head.data.len() {
                    self.reads.pop_front();
                }
            } else {
                self.stats.response_stalls += 1;
                self.rsp_held = Some(beat);
            }
        }
        // write request
        let wr_req = port.write_request();
        if let Some(held) = self.wr_req_waiting.take() {
            if wr_req != Some(held) {
                self.violation(format!("write request {held:?} changed or withdrawn before it was accepted (now {wr_req:?})"));
            }
        }
        if let Some(req) = wr_req {
            if out.wr_req_ready {
                self.check_request("write", req);
                self.stats.write_requests += 1;
                self.writes.push_back(PendingWrite {
                    req,
                    data: Vec::with_capacity(req.len as usize),
                    land_at: None,
                    landed: false,
                    error: false,
                });
                self.stats.max_writes_seen = self.stats.max_writes_seen.max(self.writes.len());
            } else {
                self.wr_req_waiting = Some(req);
            }
        }
        // write data
        let beat = port.write_data();
        if let Some(held) = self.wr_data_waiting.take() {
            if beat.as_ref() != Some(&held) {
                self.violation(format!("write data beat {held:?} changed or withdrawn before it was accepted (now {beat:?})"));
            }
        }
        if let Some(raw) = beat {
            if out.wr_data_ready {
                self.take_write_beat(k, raw);
            } else {
                self.wr_data_waiting = Some(raw);
            }
        }
        // the completion presented this cycle is delivered (no back-pressure)
        if out.done.is_some() {
            self.writes.pop_front();
        }
        // bandwidth credit, capped so that idle time does not buy a burst
        if self.config.read_bytes_per_cycle > 0 {
            self.rd_credit = (self.rd_credit + self.config.read_bytes_per_cycle as u64)
                .min(k.max(self.config.read_bytes_per_cycle as usize) as u64);
        }
        if self.config.write_bytes_per_cycle > 0 {
            self.wr_credit = (self.wr_credit + self.config.write_bytes_per_cycle as u64)
                .min(k.max(self.config.write_bytes_per_cycle as usize) as u64);
        }
        self.cycle += 1;
    }

    fn take_write_beat(&mut self, k: usize, raw: RawBeat) {
        // keep must be n ones from the top, n >= 1
        let n = (0..k)
            .take_while(|&i| raw.keep >> (k - 1 - i) & 1 == 1)
            .count();
        let tail_clear = (n..k).all(|i| raw.keep >> (k - 1 - i) & 1 == 0);
        if n == 0 || !tail_clear {
            self.violation(format!(
                "write data keep {:#x} is not contiguous from the top (beat {raw:?})",
                raw.keep
            ));
        }
        let cycle = self.cycle;
        let jitter = if self.config.write_jitter > 0 {
            self.rng.below(self.config.write_jitter + 1)
        } else {
            0
        };
        let latency = self.config.write_latency;
        let Some(w) = self
            .writes
            .iter_mut()
            .find(|w| (w.data.len() as u64) < w.req.len)
        else {
            self.violation("write data accepted with no write request waiting for it".into())
        };
        let req = w.req;
        w.data.extend_from_slice(&raw.data[..n]);
        let got = w.data.len() as u64;
        let complete = got == req.len;
        if got > req.len || raw.last != complete || (n < k && !raw.last) {
            let msg = format!(
                "write {req:?}: beat of {n} bytes, last = {}, brings the data to {got} bytes",
                raw.last
            );
            self.violation(msg);
        }
        if complete {
            w.land_at = Some(cycle + 1 + latency + jitter);
        }
        self.stats.write_bytes += n as u64;
        if self.config.write_bytes_per_cycle > 0 {
            self.wr_credit = self.wr_credit.saturating_sub(n as u64);
        }
    }
}

// ---- DmaPort for the rust-hdl interface ----------------------------------------------------

impl<const B: usize, const K: usize> DmaPort for DmaMaster<B, K> {
    fn beat_bytes(&self) -> usize {
        K
    }
    fn read_request(&self) -> Option<DmaRequest> {
        let r = &self.rd;
        r.req_valid.val().then(|| DmaRequest {
            addr: r.req_addr.val().to_u64(),
            len: r.req_len.val().to_u64(),
            tag: r.req_tag.val().to_u64() as u8,
        })
    }
    fn set_read_request_ready(&mut self, ready: bool) {
        self.rd.req_ready.next = ready;
    }
    fn drive_read_response(&mut self, beat: Option<&ResponseBeat>) {
        let b = beat.map(|b| Beat {
            bytes: b.bytes.clone(),
            last: b.last,
        });
        self.rd.rsp.drive(b.as_ref());
        self.rd.rsp_tag.next = (beat.map_or(0, |b| b.tag) as u64).into();
        self.rd.rsp_error.next = beat.is_some_and(|b| b.error);
    }
    fn read_response_ready(&self) -> bool {
        self.rd.rsp.ready.val()
    }
    fn write_request(&self) -> Option<DmaRequest> {
        let w = &self.wr;
        w.req_valid.val().then(|| DmaRequest {
            addr: w.req_addr.val().to_u64(),
            len: w.req_len.val().to_u64(),
            tag: w.req_tag.val().to_u64() as u8,
        })
    }
    fn set_write_request_ready(&mut self, ready: bool) {
        self.wr.req_ready.next = ready;
    }
    fn write_data(&self) -> Option<RawBeat> {
        let d = &self.wr.data;
        d.valid.val().then(|| RawBeat {
            data: unpack_data::<B>(d.data.val(), K),
            keep: d.keep.val().to_u64(),
            last: d.last.val(),
        })
    }
    fn set_write_data_ready(&mut self, ready: bool) {
        self.wr.data.ready.next = ready;
    }
    fn drive_write_done(&mut self, done: Option<WriteDone>) {
        self.wr.done_valid.next = done.is_some();
        self.wr.done_tag.next = (done.map_or(0, |d| d.tag) as u64).into();
        self.wr.done_error.next = done.is_some_and(|d| d.error);
    }
}

// ---- DmaPort for a Verilator model -----------------------------------------------------------

/// Port indices of one request (`req_valid`, `req_ready`, `req_addr`, `req_len`, `req_tag`).
#[derive(Clone, Copy, Debug)]
struct RequestIds {
    valid: usize,
    ready: usize,
    addr: usize,
    len: usize,
    tag: usize,
}

/// Port indices of a [`DmaMaster`] on a [`VerilatedBlock`], resolved once by name.
#[derive(Clone, Debug)]
pub struct DmaPortIds {
    beat_bytes: usize,
    rd_req: RequestIds,
    rd_rsp: StreamIds,
    rd_rsp_tag: usize,
    rd_rsp_error: usize,
    wr_req: RequestIds,
    wr_data: StreamIds,
    wr_done_valid: usize,
    wr_done_tag: usize,
    wr_done_error: usize,
}

impl DmaPortIds {
    /// The ports of the [`DmaMaster`] field named `prefix` (e.g. `"dma"` for
    /// `dma$rd$req_valid`, ...). Panics with the port list if one is missing.
    pub fn new(block: &VerilatedBlock, prefix: &str) -> Self {
        let p = |s: &str| block.port(&format!("{prefix}${s}"));
        let req = |ch: &str| RequestIds {
            valid: p(&format!("{ch}$req_valid")),
            ready: p(&format!("{ch}$req_ready")),
            addr: p(&format!("{ch}$req_addr")),
            len: p(&format!("{ch}$req_len")),
            tag: p(&format!("{ch}$req_tag")),
        };
        let rd_rsp = block.stream(&format!("{prefix}$rd$rsp"));
        let beat_bytes = block.ports[rd_rsp.data].width / 8;
        assert!(
            beat_bytes <= 64,
            "DMA port {prefix}: beats over 64 bytes are not supported"
        );
        DmaPortIds {
            beat_bytes,
            rd_req: req("rd"),
            rd_rsp,
            rd_rsp_tag: p("rd$rsp_tag"),
            rd_rsp_error: p("rd$rsp_error"),
            wr_req: req("wr"),
            wr_data: block.stream(&format!("{prefix}$wr$data")),
            wr_done_valid: p("wr$done_valid"),
            wr_done_tag: p("wr$done_tag"),
            wr_done_error: p("wr$done_error"),
        }
    }
}

/// A [`VerilatedBlock`]'s DMA port, for [`DmaShell::drive`] / [`DmaShell::sample`]. Build it
/// for each use: `shell.drive(&mut VerilatedDmaPort::new(&mut model, &ids))`.
pub struct VerilatedDmaPort<'a> {
    block: &'a mut VerilatedBlock,
    ids: &'a DmaPortIds,
}

impl<'a> VerilatedDmaPort<'a> {
    pub fn new(block: &'a mut VerilatedBlock, ids: &'a DmaPortIds) -> Self {
        VerilatedDmaPort { block, ids }
    }

    fn request(&self, r: RequestIds) -> Option<DmaRequest> {
        (self.block.get(r.valid) != 0).then(|| DmaRequest {
            addr: self.block.get(r.addr),
            len: self.block.get(r.len),
            tag: self.block.get(r.tag) as u8,
        })
    }
}

impl DmaPort for VerilatedDmaPort<'_> {
    fn beat_bytes(&self) -> usize {
        self.ids.beat_bytes
    }
    fn read_request(&self) -> Option<DmaRequest> {
        self.request(self.ids.rd_req)
    }
    fn set_read_request_ready(&mut self, ready: bool) {
        self.block.set(self.ids.rd_req.ready, ready as u64);
    }
    fn drive_read_response(&mut self, beat: Option<&ResponseBeat>) {
        let b = beat.map(|b| Beat {
            bytes: b.bytes.clone(),
            last: b.last,
        });
        self.block.drive_stream(self.ids.rd_rsp, b.as_ref());
        self.block
            .set(self.ids.rd_rsp_tag, beat.map_or(0, |b| b.tag as u64));
        self.block
            .set(self.ids.rd_rsp_error, beat.is_some_and(|b| b.error) as u64);
    }
    fn read_response_ready(&self) -> bool {
        self.block.get(self.ids.rd_rsp.ready) != 0
    }
    fn write_request(&self) -> Option<DmaRequest> {
        self.request(self.ids.wr_req)
    }
    fn set_write_request_ready(&mut self, ready: bool) {
        self.block.set(self.ids.wr_req.ready, ready as u64);
    }
    fn write_data(&self) -> Option<RawBeat> {
        let s = self.ids.wr_data;
        if self.block.get(s.valid) == 0 {
            return None;
        }
        let w = self.block.ports[s.data].width;
        let mut words = vec![0u64; w.div_ceil(64)];
        self.block.get_words(s.data, &mut words);
        let data = (0..w / 8)
            .map(|i| {
                let bit = w - 8 * (i + 1);
                (words[bit / 64] >> (bit % 64)) as u8
            })
            .collect();
        Some(RawBeat {
            data,
            keep: self.block.get(s.keep),
            last: self.block.get(s.last) != 0,
        })
    }
    fn set_write_data_ready(&mut self, ready: bool) {
        self.block.set(self.ids.wr_data.ready, ready as u64);
    }
    fn drive_write_done(&mut self, done: Option<WriteDone>) {
        self.block
            .set(self.ids.wr_done_valid, done.is_some() as u64);
        self.block
            .set(self.ids.wr_done_tag, done.map_or(0, |d| d.tag as u64));
        self.block
            .set(self.ids.wr_done_error, done.is_some_and(|d| d.error) as u64);
    }
}
