//! [`NicPair`]: two simulated NICs, each with its own host, connected back to back by a link,
//! stepped together cycle by cycle.
//!
//! Each NIC is the cycle-accurate hardware ([`NicSystem`]); the link moves every frame one NIC
//! finishes transmitting into the other's receive queue (and, when capturing, into a list with
//! its direction and cycle, for `--pcap`). The link is perfect unless told otherwise: it can
//! lose chosen frames ([`NicPair::lose_frames`]) and suffer random faults (loss, duplication,
//! reordering, bit errors, delay: [`NicPair::set_faults`], one [`FaultyLink`] per direction).
//! On a perfect link a frame enters the other NIC in the same [`NicPair::cycle`] that took it
//! from its sender. [`PairSide`] is one side as the driver's
//! [`RegisterTarget`]: both NICs share one clock, so a register access or a wait on one side
//! steps both.
use crate::host::backend::cycles_to_duration;
use crate::host::{RegisterTarget, SharedMemory, ShellConfig};
use crate::link_faults::{FaultyLink, LinkFaults, LinkStats};
use crate::nic_system::{NicHardware, NicSystem};
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Bench;
use ferroce_proto::wire::{FrameBody, FrameRepr, Opcode};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Core clock assumed for timestamps and driver timeouts (as [`NicSystem`]).
pub const PAIR_CLOCK_HZ: u64 = crate::host::backend::DEFAULT_CLOCK_HZ;

/// One frame seen on the link.
#[derive(Clone, Debug)]
pub struct LinkFrame {
    /// The NIC that sent it (0 or 1).
    pub from: usize,
    /// Cycle at which its last beat left the sender.
    pub cycle: u64,
    pub bytes: Vec<u8>,
}

/// What joins the two NICs instead of the built-in link: a network model (e.g. the fabric,
/// [`crate::fabric_net`]) seen from the two NICs' MACs, in cycles of the pair's clock.
pub trait PairMedium: Send {
    /// Whether side `side`'s link takes transmit beats in cycle `cycle` (its pacing).
    fn tx_ready(&mut self, side: usize, cycle: u64) -> bool;
    /// A frame whose last beat left side `from` in cycle `cycle`.
    fn send(&mut self, from: usize, cycle: u64, frame: Vec<u8>);
    /// The frames that have reached side `to` by cycle `cycle`, in order.
    fn deliver(&mut self, to: usize, cycle: u64) -> Vec<Vec<u8>>;
}

/// Two NICs and the link between them; `H` is the hardware model of both (rust-hdl by
/// default, or [`crate::nic_verilated::VerilatedNic`]).
pub struct NicPair<H: NicHardware = Bench<NicTop>> {
    /// Two NICs, or more over a medium ([`NicPair::group`]).
    nics: Vec<NicSystem<H>>,
    capture: bool,
    frames: Vec<LinkFrame>,
    /// Frames each NIC has sent.
    sent: Vec<u64>,
    /// Frames the link loses: ordinals (0-based, counting every frame a side sends).
    lose: [std::collections::BTreeSet<u64>; 2],
    lost: [u64; 2],
    /// The two directions of the link (index: the sending side).
    links: [FaultyLink; 2],
    /// A network in place of the link ([`NicPair::set_medium`]).
    medium: Option<Box<dyn PairMedium>>,
}

impl<H: NicHardware> NicPair<H> {
    /// Two NICs (hardware models `hw`) over their own host memories.
    pub fn new(hw: [H; 2], memory: [SharedMemory; 2], shell: ShellConfig, capture: bool) -> Self {
        Self::group(Vec::from(hw), Vec::from(memory), shell, capture)
    }

    /// Two or more NICs (hardware models `hw`, one host memory each) on one clock. More than
    /// two need a medium ([`NicPair::set_medium`]) before traffic: the built-in link joins
    /// NICs 0 and 1 only, and the others' frames go nowhere without one.
    pub fn group(hw: Vec<H>, memory: Vec<SharedMemory>, shell: ShellConfig, capture: bool) -> Self {
        assert!(
            hw.len() >= 2 && hw.len() == memory.len(),
            "two or more NICs, a memory each"
        );
        let n = hw.len();
        NicPair {
            nics: hw
                .into_iter()
                .zip(memory)
                .map(|(h, m)| NicSystem::with_stepper(h, m, shell))
                .collect(),
            capture,
            frames: Vec::new(),
            sent: vec![0; n],
            lose: Default::default(),
            lost: [0; 2],
            links: [FaultyLink::perfect(), FaultyLink::perfect()],
            medium: None,
        }
    }

    /// Join the NICs through `medium` instead of the link from now on: it paces each NIC's
    /// transmit side and carries every frame (the link's faults and [`NicPair::lose_frames`]
    /// no longer apply; the capture stays what each side sent).
    pub fn set_medium(&mut self, medium: Box<dyn PairMedium>) {
        self.medium = Some(medium);
    }

    /// The NICs stepped together.
    pub fn len(&self) -> usize {
        self.nics.len()
    }

    /// Never: a pair has two NICs or more.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// One cycle of every NIC, then the link (or the medium).
    ///
    /// The cycle just run is `cycle - 1` (`cycle` counts the cycles run so far): a frame whose
    /// last beat left its sender in it goes into the link as sent at `cycle - 1`, and every
    /// frame due at or before `cycle` (on a perfect link: sent at `cycle - 1`) enters the
    /// other NIC now.
    pub fn cycle(&mut self) {
        if let Some(m) = self.medium.as_mut() {
            let now = self.nics[0].cycles();
            for side in 0..self.nics.len() {
                let ready = m.tx_ready(side, now);
                self.nics[side].set_tx_ready(ready);
            }
        }
        for nic in self.nics.iter_mut() {
            nic.cycle();
        }
        let cycle = self.nics[0].cycles();
        if let Some(m) = self.medium.as_mut() {
            for from in 0..self.nics.len() {
                for f in self.nics[from].take_frames() {
                    self.sent[from] += 1;
                    if self.capture {
                        self.frames.push(LinkFrame {
                            from,
                            cycle,
                            bytes: f.clone(),
                        });
                    }
                    m.send(from, cycle.saturating_sub(1), f);
                }
            }
            for to in 0..self.nics.len() {
                for f in m.deliver(to, cycle) {
                    self.nics[to].receive(&f);
                }
            }
            return;
        }
        for from in 0..2 {
            for f in self.nics[from].take_frames() {
                let ordinal = self.sent[from];
                self.sent[from] += 1;
                if self.capture {
                    self.frames.push(LinkFrame {
                        from,
                        cycle,
                        bytes: f.clone(),
                    });
                }
                if self.lose[from].remove(&ordinal) {
                    self.lost[from] += 1;
                } else {
                    self.links[from].send(cycle.saturating_sub(1), f);
                }
            }
        }
        // without a medium NICs past the first two have no link: what they send is lost (they
        // send nothing before their QPs are connected, and a group gets its medium first)
        for from in 2..self.nics.len() {
            for _ in self.nics[from].take_frames() {
                self.sent[from] += 1;
            }
        }
        for from in 0..2 {
            if self.links[from].in_flight() != 0 {
                for f in self.links[from].deliver(cycle) {
                    self.nics[1 - from].receive(&f);
                }
            }
        }
    }

    pub fn cycles(&self) -> u64 {
        self.nics[0].cycles()
    }

    pub fn nic(&mut self, side: usize) -> &mut NicSystem<H> {
        &mut self.nics[side]
    }

    /// Make the link lose the frames with these ordinals (0-based, every frame `from` sends
    /// counts) on their way to the other side. They are still captured: the capture is what
    /// each side sent.
    pub fn lose_frames(&mut self, from: usize, ordinals: impl IntoIterator<Item = u64>) {
        self.lose[from].extend(ordinals);
    }

    /// Frames the link has lost, per sending side (the ones [`NicPair::lose_frames`] named;
    /// the random faults count theirs in [`NicPair::link_stats`]).
    pub fn frames_lost(&self) -> [u64; 2] {
        self.lost
    }

    /// Random faults on both directions of the link from now on ([`LinkFaults`]; each
    /// direction draws its own random stream from `faults.seed`). Frames named by
    /// [`NicPair::lose_frames`] are lost before these faults apply; the capture stays what
    /// each side sent. Panics if a rate is not a probability ([`LinkFaults::validate`]).
    pub fn set_faults(&mut self, faults: LinkFaults) {
        if let Err(e) = faults.validate() {
            panic!("link faults: {e}");
        }
        for (from, link) in self.links.iter_mut().enumerate() {
            link.set_faults(faults, from as u64);
        }
    }

    /// What each direction of the link did with the frames given to it (index: the sending
    /// side; frames lost by [`NicPair::lose_frames`] never reach it).
    pub fn link_stats(&self) -> [LinkStats; 2] {
        [self.links[0].stats(), self.links[1].stats()]
    }

    /// Frames sides 0 and 1 have sent.
    pub fn frames_sent(&self) -> [u64; 2] {
        [self.sent[0], self.sent[1]]
    }

    /// Frames each NIC has sent.
    pub fn frames_sent_all(&self) -> Vec<u64> {
        self.sent.clone()
    }

    /// The captured frames so far (empty unless capturing).
    pub fn take_captured(&mut self) -> Vec<LinkFrame> {
        std::mem::take(&mut self.frames)
    }

    /// The captured frames so far, parsed, RoCE ones only ([`CapturedRoce::parse_all`]).
    pub fn take_captured_roce(&mut self) -> Vec<CapturedRoce> {
        CapturedRoce::parse_all(&self.take_captured())
    }

    fn transaction(&mut self, side: usize) -> u32 {
        loop {
            self.cycle();
            if let Some(d) = self.nics[side].take_completion() {
                return d;
            }
        }
    }
}

/// One captured RoCE frame, parsed by `ferroce_proto` (outside the NIC): the facts the tests
/// of the pair check on the wire.
///
/// Why here: the NIC pair's tests all read the link the same way (take the capture, parse
/// each frame, keep the RoCE ones with the sending side and a few BTH fields); one parser keeps
/// what they count the same instead of a copy per test file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedRoce {
    /// The side that sent it (0 or 1).
    pub from: usize,
    /// Its ordinal among the frames of the same capture that `from` sent, every frame counted
    /// (RoCE or not): with the capture on throughout, ordinal `k` of a take is
    /// [`NicPair::frames_sent`]`[from]` at the previous take plus `k`, as
    /// [`NicPair::lose_frames`] numbers them.
    pub ordinal: usize,
    /// Cycle at which its last beat left the sender ([`LinkFrame::cycle`]).
    pub cycle: u64,
    pub opcode: Opcode,
    pub dest_qp: u32,
    pub psn: u32,
    /// The RETH's virtual address and DMA length, if the frame has one.
    pub reth: Option<(u64, u32)>,
    /// The AETH's syndrome, if the frame has one (responses).
    pub aeth_syndrome: Option<u8>,
    /// Bytes of message data (pad excluded).
    pub payload_len: usize,
    /// Whether its ICRC is right (a poisoned frame has it complemented).
    pub icrc_ok: bool,
}

impl CapturedRoce {
    /// The RoCE frames of `frames`, in order (frames that do not parse, or are not RoCE, are
    /// left out but still count for [`CapturedRoce::ordinal`]).
    pub fn parse_all(frames: &[LinkFrame]) -> Vec<CapturedRoce> {
        let mut sent = vec![0usize; frames.iter().map(|f| f.from + 1).max().unwrap_or(0)];
        frames
            .iter()
            .filter_map(|f| {
                let ordinal = sent[f.from];
                sent[f.from] += 1;
                let FrameBody::Roce(r) = FrameRepr::parse(&f.bytes).ok()?.body else {
                    return None;
                };
                Some(CapturedRoce {
                    from: f.from,
                    ordinal,
                    cycle: f.cycle,
                    opcode: r.bth.opcode,
                    dest_qp: r.bth.dest_qp,
                    psn: r.bth.psn,
                    reth: r.ext.reth.map(|x| (x.va, x.dma_len)),
                    aeth_syndrome: r.ext.aeth.map(|a| a.syndrome),
                    payload_len: r.payload.len(),
                    icrc_ok: r.icrc_ok(),
                })
            })
            .collect()
    }
}

/// The RoCE frames captured on a shared pair since the last take
/// ([`NicPair::take_captured_roce`]).
pub fn captured_roce<H: NicHardware>(pair: &SharedPair<H>) -> Vec<CapturedRoce> {
    lock(pair).take_captured_roce()
}

/// A [`NicPair`] shared by the two sides' driver backends.
pub type SharedPair<H> = Arc<Mutex<NicPair<H>>>;

/// Lock a shared pair (a panic elsewhere does not make the simulation unusable).
pub fn lock<H: NicHardware>(p: &SharedPair<H>) -> MutexGuard<'_, NicPair<H>> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

/// One side of a shared pair, as the driver backend's register target.
pub struct PairSide<H: NicHardware> {
    pub pair: SharedPair<H>,
    pub side: usize,
}

impl<H: NicHardware + Send> RegisterTarget for PairSide<H> {
    fn axil_read(&mut self, addr: u32) -> u32 {
        let mut p = lock(&self.pair);
        p.nics[self.side].start_read(addr);
        p.transaction(self.side)
    }
    fn axil_write(&mut self, addr: u32, data: u32) {
        let mut p = lock(&self.pair);
        p.nics[self.side].start_write(addr, data);
        p.transaction(self.side);
    }
    fn step(&mut self, cycles: u64) {
        let mut p = lock(&self.pair);
        for _ in 0..cycles {
            p.cycle();
        }
    }
    fn interrupt_pending(&self, vector: u16) -> bool {
        lock(&self.pair).nics[self.side].interrupt_pending(vector)
    }
    fn ack_interrupt(&mut self, vector: u16) {
        lock(&self.pair).nics[self.side].ack_interrupt(vector)
    }
    fn now(&self) -> Duration {
        cycles_to_duration(lock(&self.pair).cycles(), PAIR_CLOCK_HZ)
    }
}
