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
use crate::link_faults::SplitMix64;
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
    /// RoCE frames the lossy link dropped: from the guest, and from the NIC.
    pub lost_in: u64,
    pub lost_out: u64,
}

/// A lossy link (`ferroce peer --loss`): each RoCE frame (UDP port 4791) is dropped with
/// probability `rate`, drawn from a seeded generator per direction, so a run's pattern follows
/// the frames' order. Other frames always pass: the loss is there to exercise the transports.
#[derive(Clone, Debug)]
pub struct LinkLoss {
    pub rate: f64,
    pub seed: u64,
    rng: [SplitMix64; 2],
}

impl LinkLoss {
    pub fn new(rate: f64, seed: u64) -> LinkLoss {
        LinkLoss {
            rate,
            seed,
            rng: [
                SplitMix64::new(seed),
                SplitMix64::new(seed ^ 0x9E37_79B9_7F4A_7C15),
            ],
        }
    }

    /// Whether this frame, going in direction `dir` (0 into the NIC, 1 out of it), is lost.
    fn drops(&mut self, dir: usize, frame: &[u8]) -> bool {
        if self.rate <= 0.0 || !is_roce(frame) {
            return false;
        }
        self.rng[dir].unit() < self.rate
    }
}

/// A RoCEv2 frame: IPv4 or IPv6 (no VLAN, as on this link) carrying UDP to port 4791.
fn is_roce(f: &[u8]) -> bool {
    let port_at = |u: usize| f.len() >= u + 4 && u16::from_be_bytes([f[u + 2], f[u + 3]]) == 4791;
    match f.get(12..14) {
        Some([0x08, 0x00]) if f.len() > 23 && f[23] == 17 => {
            port_at(14 + (f[14] as usize & 15) * 4)
        }
        Some([0x86, 0xDD]) if f.len() > 20 && f[20] == 17 => port_at(54),
        _ => false,
    }
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
    loss: LinkLoss,
}

impl<H: NicHardware> PeerSystem<H> {
    pub fn new(
        hw: H,
        memory: SharedMemory,
        shell: ShellConfig,
        pcap: Option<PcapWriter<BufWriter<File>>>,
        loss: LinkLoss,
    ) -> PeerSystem<H> {
        PeerSystem {
            nic: NicSystem::with_stepper(hw, memory, shell),
            link: None,
            pcap,
            since_poll: 0,
            totals: LinkTotals::default(),
            error: None,
            start: Instant::now(),
            loss,
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
            // the capture is taken at the NIC's MAC: what it sent, lost or not
            if self.loss.drops(1, f) {
                self.totals.lost_out += 1;
            } else {
                link.send(f);
            }
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
                    // and what reached it
                    if self.loss.drops(0, &f) {
                        self.totals.lost_in += 1;
                        continue;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn udp4(dport: u16) -> Vec<u8> {
        let mut f = vec![0u8; 60];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[23] = 17;
        f[36..38].copy_from_slice(&dport.to_be_bytes());
        f
    }

    #[test]
    fn loss_takes_roce_frames_only_at_about_the_rate_and_repeats() {
        let roce = udp4(4791);
        let other = udp4(4790);
        let mut arp = vec![0u8; 60];
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        let mut l = LinkLoss::new(0.1, 7);
        let pattern: Vec<bool> = (0..20_000).map(|_| l.drops(0, &roce)).collect();
        let n = pattern.iter().filter(|&&d| d).count();
        assert!((1_800..2_200).contains(&n), "{n} of 20000 dropped at 10 %");
        assert!((0..1000).all(|_| !l.drops(0, &other) && !l.drops(1, &arp)));
        let mut again = LinkLoss::new(0.1, 7);
        let same: Vec<bool> = (0..20_000).map(|_| again.drops(0, &roce)).collect();
        assert_eq!(pattern, same, "the same seed gives the same pattern");
        let mut none = LinkLoss::new(0.0, 7);
        assert!((0..1000).all(|_| !none.drops(1, &roce)));
    }
}
