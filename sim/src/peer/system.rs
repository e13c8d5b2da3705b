//! [`PeerSystem`]: one simulated NIC ([`NicSystem`]: the hardware model with its host memory,
//! DMA shell and MMIO) whose MAC is the live link to a QEMU guest ([`QemuLink`]).
//!
//! The NIC clocks continuously; every [`POLL_CYCLES`] cycles the link is serviced: the frames
//! the NIC finished transmitting go out to the guest (and to the capture), the frames the guest
//! sent enter the NIC's receive stream. Between polls the NIC runs on its own, so polling
//! costs a system call per [`POLL_CYCLES`] cycles, not per cycle. [`PeerTarget`] is the system
//! as the driver's register target: every register access and every wait of the driver clocks
//! it, link included.
use super::link::{LinkError, QemuLink};
use crate::host::backend::cycles_to_duration;
use crate::host::{RegisterTarget, SharedMemory, ShellConfig, DEFAULT_CLOCK_HZ};
use crate::nic_system::{NicCounters, NicHardware, NicSystem};
use ferroce_proto::pcap::PcapWriter;
use std::fs::File;
use std::io::BufWriter;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Cycles between two services of the link: 64 cycles are well under a millisecond of wall
/// time on the Verilator model (about 100 000 cycles/s), so the guest sees no added latency
/// worth the name, and the system calls stay a small part of the work.
pub const POLL_CYCLES: u64 = 64;

/// What went through the link and what became of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkTotals {
    pub frames_in: u64,
    pub bytes_in: u64,
    pub frames_out: u64,
    pub bytes_out: u64,
    /// Frames the NIC transmitted before the link was connected (lost, as on a link that is
    /// down).
    pub dropped_unconnected: u64,
    /// Zero-length frames from the guest (dropped before the MAC).
    pub empty_in: u64,
}

/// The NIC and its link.
pub struct PeerSystem<H: NicHardware> {
    nic: NicSystem<H>,
    link: Option<QemuLink>,
    pcap: Option<PcapWriter<BufWriter<File>>>,
    since_poll: u64,
    totals: LinkTotals,
    /// The first link failure (the link is gone after it; the session reports it).
    error: Option<String>,
    /// Capture timestamps are wall-clock time since this instant (the link is live).
    start: Instant,
}

impl<H: NicHardware> PeerSystem<H> {
    pub fn new(
        hw: H,
        memory: SharedMemory,
        shell: ShellConfig,
        pcap: Option<PcapWriter<BufWriter<File>>>,
    ) -> PeerSystem<H> {
        PeerSystem {
            nic: NicSystem::with_stepper(hw, memory, shell),
            link: None,
            pcap,
            since_poll: 0,
            totals: LinkTotals::default(),
            error: None,
            start: Instant::now(),
        }
    }

    /// Attach the connected link: from now on frames flow.
    pub fn attach(&mut self, link: QemuLink) {
        self.link = Some(link);
    }

    /// One cycle of the NIC, and the link's service when it is due.
    pub fn cycle(&mut self) {
        self.nic.cycle();
        self.since_poll += 1;
        if self.since_poll >= POLL_CYCLES {
            self.since_poll = 0;
            self.service();
        }
    }

    /// Run `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.cycle();
        }
    }

    /// Move frames both ways now.
    pub fn service(&mut self) {
        let out = self.nic.take_frames();
        let ts = self.start.elapsed().as_nanos() as u64;
        let Some(link) = self.link.as_mut() else {
            self.totals.dropped_unconnected += out.len() as u64;
            return;
        };
        for f in &out {
            link.send(f);
            if let Some(w) = self.pcap.as_mut() {
                if let Err(e) = w.write_packet(ts, f) {
                    self.error
                        .get_or_insert(format!("writing the capture: {e}"));
                    self.pcap = None;
                }
            }
        }
        let result: Result<Vec<Vec<u8>>, LinkError> = link.flush().and_then(|_| link.poll_rx());
        match result {
            Ok(frames) => {
                for f in frames {
                    if let Some(w) = self.pcap.as_mut() {
                        if let Err(e) = w.write_packet(ts, &f) {
                            self.error
                                .get_or_insert(format!("writing the capture: {e}"));
                            self.pcap = None;
                        }
                    }
                    self.nic.receive(&f);
                }
            }
            Err(e) => {
                self.error.get_or_insert(e.to_string());
                self.collect_link_totals();
                self.link = None;
            }
        }
        self.collect_link_totals();
    }

    /// Copy the link's counts into the totals (kept after the link is gone).
    fn collect_link_totals(&mut self) {
        if let Some(l) = &self.link {
            self.totals.frames_in = l.received.frames;
            self.totals.bytes_in = l.received.bytes;
            self.totals.frames_out = l.sent.frames;
            self.totals.bytes_out = l.sent.bytes;
            self.totals.empty_in = l.empty;
        }
    }

    /// Write out what is queued for the guest, waiting up to `limit` of wall time (at the end
    /// of a run, so that the last ACKs reach the guest).
    pub fn drain(&mut self, limit: Duration) {
        self.service();
        let end = Instant::now() + limit;
        while self.link.as_ref().is_some_and(|l| l.backlog() > 0) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
            self.service();
        }
        if let Some(w) = self.pcap.as_mut() {
            if let Err(e) = w.flush() {
                self.error
                    .get_or_insert(format!("writing the capture: {e}"));
            }
        }
    }

    pub fn totals(&self) -> LinkTotals {
        self.totals
    }

    /// The first link (or capture) failure, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    pub fn link_up(&self) -> bool {
        self.link.is_some()
    }

    pub fn cycles(&self) -> u64 {
        self.nic.cycles()
    }

    /// The NIC model's counter outputs.
    pub fn counters(&mut self) -> NicCounters {
        NicCounters {
            rx: self.nic.rx_counts(),
            resp: self.nic.resp_counts(),
            req: self.nic.req_counts(),
        }
    }

    fn transaction(&mut self) -> u32 {
        loop {
            self.cycle();
            if let Some(d) = self.nic.take_completion() {
                return d;
            }
        }
    }
}

/// A [`PeerSystem`] shared by the driver's backend and the session (which clocks it while it
/// waits on the control channel).
pub type SharedPeer<H> = Arc<Mutex<PeerSystem<H>>>;

/// Lock the shared system (a panic elsewhere does not make it unusable).
pub fn lock<H: NicHardware>(p: &SharedPeer<H>) -> MutexGuard<'_, PeerSystem<H>> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shared system as the driver backend's register target.
pub struct PeerTarget<H: NicHardware>(pub SharedPeer<H>);

impl<H: NicHardware + Send> RegisterTarget for PeerTarget<H> {
    fn axil_read(&mut self, addr: u32) -> u32 {
        let mut p = lock(&self.0);
        p.nic.start_read(addr);
        p.transaction()
    }
    fn axil_write(&mut self, addr: u32, data: u32) {
        let mut p = lock(&self.0);
        p.nic.start_write(addr, data);
        p.transaction();
    }
    fn step(&mut self, cycles: u64) {
        lock(&self.0).run(cycles);
    }
    fn interrupt_pending(&self, vector: u16) -> bool {
        lock(&self.0).nic.interrupt_pending(vector)
    }
    fn ack_interrupt(&mut self, vector: u16) {
        lock(&self.0).nic.ack_interrupt(vector)
    }
    fn now(&self) -> Duration {
        cycles_to_duration(lock(&self.0).cycles(), DEFAULT_CLOCK_HZ)
    }
}
