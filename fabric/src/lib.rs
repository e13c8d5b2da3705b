//! ferroce-fabric: the network outside the NIC, event-driven per frame.
//!
//! Switches and links lie outside the FPGA, so they are software. A [`Fabric`] holds nodes
//! (switches and hosts) joined by full-duplex links; it moves whole frames, one event per frame
//! edge, never per byte, in picoseconds ([`Ps`]). Links serialise each frame at their bit rate
//! (plus the preamble, FCS and inter-frame gap, [`WIRE_OVERHEAD`]) and add their propagation
//! delay. Switches store and forward: a frame is looked at once its last bit has arrived.
//!
//! # The port toward a NIC model
//!
//! A host of kind [`HostKind::External`] is where a NIC model (the cycle-accurate ferroce NIC
//! in `ferroce-sim`) plugs in. The whole interface is four calls, all in [`Ps`] on the
//! fabric's one clock, which the NIC model converts from its cycles:
//!
//! - [`Fabric::tx_ready`]`(host, t)`: the MAC side's pacing. The host link accepts bytes at its
//!   rate; the MAC has a transmit FIFO of [`HostConfig::tx_fifo_bytes`]. Ready is false while
//!   the bytes handed over and not yet on the wire fill that FIFO, so a NIC that transmits
//!   faster than the link (the 64-bit datapath at 250 MHz carries 16 Gb/s) is held back to
//!   the link rate by its own stream back-pressure.
//! - [`Fabric::send`]`(host, t, frame)`: a frame (no FCS) whose last byte left the NIC at `t`.
//! - [`Fabric::advance`]`(t)`: run every event up to `t` (calls must not go back in time).
//! - [`Fabric::take_received`]`(host)`: frames whose last bit reached the host by now, with
//!   their arrival time, in order (MAC Control frames included: a NIC that does not act on
//!   PFC still receives it).
//!
//! Nothing else couples the two sides, so the NIC can equally be a model in another process
//! or another simulator exchanging these timestamped messages (docs/SCALE-OUT.md).
//!
//! # Switches
//!
//! Per port eight egress queues (IEEE 802.1p priorities) over one shared buffer with dynamic
//! thresholds (a queue may grow while it holds less than `alpha` times the free buffer:
//! Choudhury and Hahne); ECN marking of ECT packets at dequeue ([`red::Red`]); PFC per
//! ingress port and priority (IEEE 802.1Qbb: XOFF above `xoff` bytes held from that port,
//! XON below `xon`, `headroom` bytes still admitted after XOFF for what is on the wire, pauses
//! received honoured until they expire or are lifted); the priority of a frame from its 802.1Q
//! PCP when tagged, else from its DSCP; a strict-priority class for CNPs; L3
//! forwarding of IP (RoCEv2) with ECMP over equal-cost next hops by a seeded hash of the
//! 5-tuple, UDP source port included; L2 forwarding by destination MAC for everything else,
//! RoCEv1 included (EtherType 0x8915 carries no IP header and is never routed).
pub mod packet;
pub mod red;
pub mod topology;

use packet::{Header, Kind};
use red::Red;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};

/// Time in picoseconds.
pub type Ps = u64;
/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;
/// Bytes a frame occupies on the wire beyond the MAC stream's bytes: preamble and SFD (8),
/// FCS (4), inter-frame gap (12) (IEEE 802.3).
pub const WIRE_OVERHEAD: u64 = 24;
/// Bit times in one pause quantum (IEEE 802.1Qbb).
pub const QUANTUM_BITS: u64 = 512;

/// One direction of a link: bit rate and propagation delay (both directions are the same).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    pub rate_bps: u64,
    pub delay_ps: Ps,
}

impl LinkSpec {
    pub const fn gbps(g: u64, delay_ps: Ps) -> LinkSpec {
        LinkSpec {
            rate_bps: g * 1_000_000_000,
            delay_ps,
        }
    }

    /// Time to serialise `bytes` (MAC bytes; the wire overhead is added).
    pub fn serialise(&self, bytes: usize) -> Ps {
        ((bytes as u128 + WIRE_OVERHEAD as u128) * 8 * PS_PER_S as u128)
            .div_ceil(self.rate_bps as u128) as Ps
    }

    /// Duration of `quanta` pause quanta at this rate.
    pub fn quanta(&self, quanta: u16) -> Ps {
        (quanta as u128 * QUANTUM_BITS as u128 * PS_PER_S as u128 / self.rate_bps as u128) as Ps
    }
}

/// PFC on a switch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PfcConfig {
    /// Bit n: priority n is lossless (paused, never dropped for lack of buffer while the
    /// headroom lasts).
    pub priorities: u8,
    /// XOFF when the bytes held from one ingress port in one priority exceed this.
    pub xoff: u64,
    /// XON when they fall to this or below.
    pub xon: u64,
    /// Bytes still admitted after XOFF (what the upstream sends before the pause takes hold).
    pub headroom: u64,
    /// Pause time of an XOFF, in quanta (refreshed at half of it while still above XON).
    pub quanta: u16,
}

impl PfcConfig {
    pub fn lossless(&self, prio: u8) -> bool {
        self.priorities & (1 << prio) != 0
    }
}

/// A switch's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchConfig {
    /// Shared packet buffer.
    pub buffer_bytes: u64,
    /// Dynamic threshold factor: a queue admits a frame while it holds less than `alpha` x the
    /// free shared buffer.
    pub alpha: f64,
    /// ECN marking on every egress queue (`None`: no marking).
    pub red: Option<Red>,
    pub pfc: Option<PfcConfig>,
    /// Seed of the ECMP hash.
    pub ecmp_seed: u64,
    /// Priority of each DSCP for untagged frames (IP frames; RoCEv1 uses the GRH traffic class
    /// the same way). An 802.1Q-tagged frame takes its PCP as its priority.
    pub dscp_priority: [u8; 64],
    /// The strict-priority class CNPs are put in (served before every other class).
    pub cnp_priority: u8,
}

impl Default for SwitchConfig {
    /// 12 MB shared buffer, alpha 1, ECN marking above 200 KB (Kmax 800 KB, Pmax 0.2), PFC on
    /// priority 3 (XOFF 256 KB, XON 128 KB, headroom 128 KB), DSCP 26 -> priority 3 (RoCE),
    /// DSCP 48 -> 6, CNPs strict in 7.
    fn default() -> Self {
        let mut dscp_priority = [0u8; 64];
        dscp_priority[26] = 3;
        dscp_priority[48] = 6;
        SwitchConfig {
            buffer_bytes: 12_000_000,
            alpha: 1.0,
            red: Some(Red {
                kmin: 200_000,
                kmax: 800_000,
                pmax: 0.2,
                average_weight: None,
            }),
            pfc: Some(PfcConfig {
                priorities: 1 << 3,
                xoff: 256_000,
                xon: 128_000,
                headroom: 128_000,
                quanta: 0xffff,
            }),
            ecmp_seed: 1,
            dscp_priority,
            cnp_priority: 7,
        }
    }
}

/// What a host is.
#[derive(Clone, Debug, PartialEq)]
pub enum HostKind {
    /// A NIC model outside the fabric drives it through the port calls (see the crate docs).
    /// It does not act on PFC (the ferroce NIC has no PFC yet): pauses are delivered to it.
    External,
    /// A plain traffic source (another vendor's host): constant-rate UDP frames; honours PFC.
    Source(Source),
    /// Only receives (counts what arrives).
    Sink,
}

/// Constant bit-rate UDP traffic from a plain host.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub dst_mac: [u8; 6],
    pub dst_ip: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    /// MAC bytes per frame (no FCS).
    pub frame_bytes: usize,
    /// Offered load in bit/s of MAC bytes plus wire overhead.
    pub rate_bps: u64,
    pub dscp: u8,
    /// The priority its frames take at the host (PFC pauses of it stop the source).
    pub priority: u8,
    /// ECN field (2: ECT(0)).
    pub ecn: u8,
    pub start: Ps,
    pub stop: Ps,
}

/// A host's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct HostConfig {
    pub name: String,
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    pub kind: HostKind,
    /// The MAC's transmit FIFO (bytes handed over, not yet on the wire) before tx ready drops.
    pub tx_fifo_bytes: u64,
    /// Keep every frame sent and received at this host (for a capture of its link).
    pub capture: bool,
}

/// Index of a node in a [`Fabric`].
pub type NodeId = usize;

/// A frame waiting in an egress queue.
#[derive(Clone, Debug)]
struct Queued {
    bytes: Vec<u8>,
    hdr: Header,
    /// The port it came in on (its bytes count against that port's PFC thresholds).
    ingress: usize,
}

/// Counters of one port (transmit side unless said otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PortStats {
    pub tx_frames: u64,
    pub tx_bytes: u64,
    /// Frames marked CE at this egress.
    pub marked: u64,
    /// Frames dropped at this egress for lack of buffer.
    pub drops: u64,
    /// PFC frames this port sent (XOFF and XON) and received.
    pub pfc_xoff_sent: u64,
    pub pfc_xon_sent: u64,
    pub pfc_received: u64,
    /// Largest depth of each egress queue, bytes.
    pub peak: [u64; 8],
    /// Frames this port transmitted that the link lost ([`Fabric::set_link_faults`]: random
    /// loss, or the link down).
    pub lost: u64,
}

/// Faults of one link (both directions): random loss and times it is down.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkFault {
    /// Fraction of frames lost (0..=1), drawn per frame from `seed`.
    pub loss: f64,
    /// Intervals `[from, until)` during which the link is down: a frame whose transmission
    /// starts then is lost (the transmitter keeps its pace: a down link is a silent one).
    pub down: Vec<(Ps, Ps)>,
    pub seed: u64,
}

struct Port {
    peer: (NodeId, usize),
    link: LinkSpec,
    /// The transmitter is busy until then.
    tx_free: Ps,
    queues: [VecDeque<Queued>; 8],
    qbytes: [u64; 8],
    /// Pause received, per priority: until then.
    paused_until: [Ps; 8],
    /// Bytes held in the switch buffer that came in through this port, per priority.
    ingress_bytes: [u64; 8],
    xoff: [bool; 8],
    /// MAC Control frames to send ahead of everything.
    control: VecDeque<Vec<u8>>,
    red_avg: [f64; 8],
    rr: usize,
    stats: PortStats,
    fault: Option<(LinkFault, ferroce_proto::testgen::Rng)>,
}

impl Port {
    fn new(peer: (NodeId, usize), link: LinkSpec) -> Port {
        Port {
            peer,
            link,
            tx_free: 0,
            queues: Default::default(),
            qbytes: [0; 8],
            paused_until: [0; 8],
            ingress_bytes: [0; 8],
            xoff: [false; 8],
            control: VecDeque::new(),
            red_avg: [0.0; 8],
            rr: 0,
            stats: PortStats::default(),
            fault: None,
        }
    }
}

/// Switch-wide counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SwitchStats {
    /// IP frames with no route to their destination.
    pub no_route: u64,
    /// Non-IP frames (RoCEv1 among them) whose destination MAC is not on this switch: not
    /// routed.
    pub not_routed_l2: u64,
    pub rocev1_not_routed: u64,
    pub malformed: u64,
    /// Lossless frames dropped because the ingress headroom was exceeded.
    pub headroom_drops: u64,
}

struct Switch {
    cfg: SwitchConfig,
    ports: Vec<Port>,
    mac: [u8; 6],
    used: u64,
    routes: HashMap<[u8; 16], Vec<usize>>,
    l2: HashMap<[u8; 6], usize>,
    stats: SwitchStats,
    /// Frames forwarded per flow (source IP, destination IP, UDP source and destination
    /// port).
    flows: BTreeMap<FlowKey, u64>,
    rng: ferroce_proto::testgen::Rng,
}

/// A flow as a switch or host counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowKey {
    pub src_ip: [u8; 16],
    pub dst_ip: [u8; 16],
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    fn of(h: &Header) -> FlowKey {
        FlowKey {
            src_ip: h.src_ip,
            dst_ip: h.dst_ip,
            sport: h.sport,
            dport: h.dport,
        }
    }
}

/// Counters of a host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostStats {
    pub tx_frames: u64,
    pub tx_bytes: u64,
    pub rx_frames: u64,
    pub rx_bytes: u64,
    /// Frames received with ECN CE.
    pub rx_ce: u64,
    pub rx_pfc: u64,
    /// Frames received per flow, and their bytes.
    pub rx_flows: BTreeMap<FlowKey, (u64, u64)>,
}

/// One captured frame at a host: when its last bit left (sent) or arrived (received).
#[derive(Clone, Debug)]
pub struct Captured {
    pub t: Ps,
    pub sent: bool,
    pub bytes: Vec<u8>,
}

struct Host {
    cfg: HostConfig,
    port: Option<Port>,
    inbox: VecDeque<(Ps, Vec<u8>)>,
    stats: HostStats,
    capture: Vec<Captured>,
}

enum Node {
    Switch(Switch),
    Host(Host),
}

enum EventKind {
    /// A frame's last bit arrived at (node, port).
    Arrive(NodeId, usize, Vec<u8>),
    /// (node, port) may transmit (free, or a pause ended).
    Kick(NodeId, usize),
    /// Refresh an XOFF of (node, port, priority) if still congested.
    Refresh(NodeId, usize, u8),
    /// A source's next frame.
    Generate(NodeId),
    /// Take a time-series sample.
    Sample,
}

struct Event {
    t: Ps,
    seq: u64,
    kind: EventKind,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.t, self.seq).cmp(&(o.t, o.seq))
    }
}

/// One time-series sample of a switch port: depth of each egress queue and its counters so
/// far.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSample {
    pub t: Ps,
    pub depth: [u64; 8],
    pub marked: u64,
    pub drops: u64,
    pub pfc_sent: u64,
    /// Frames and MAC bytes this port has transmitted so far.
    pub tx_frames: u64,
    pub tx_bytes: u64,
}

/// A network of switches and hosts.
pub struct Fabric {
    nodes: Vec<Node>,
    names: Vec<String>,
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    now: Ps,
    sample_every: Option<Ps>,
    /// Per (switch, port): samples.
    series: BTreeMap<(NodeId, usize), Vec<PortSample>>,
    /// Per host: bytes sent per flow per sample interval.
    tx_series: BTreeMap<(NodeId, FlowKey), Vec<u64>>,
    events_run: u64,
}

impl Default for Fabric {
    fn default() -> Self {
        Fabric::new()
    }
}

/// The ECMP hash of a flow with `seed`: every equal-cost next hop is chosen as
/// `hash % hops`.
pub fn ecmp_hash(seed: u64, h: &FlowKey, protocol: u8) -> u64 {
    // FNV-1a over the 5-tuple, then a 64-bit finaliser (splitmix64) for spreading
    let mut x: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut eat = |b: u8| {
        x ^= b as u64;
        x = x.wrapping_mul(0x0000_0100_0000_01b3);
    };
    h.src_ip.iter().for_each(|b| eat(*b));
    h.dst_ip.iter().for_each(|b| eat(*b));
    eat(protocol);
    h.sport.to_be_bytes().iter().for_each(|b| eat(*b));
    h.dport.to_be_bytes().iter().for_each(|b| eat(*b));
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Fabric {
    pub fn new() -> Fabric {
        Fabric {
            nodes: Vec::new(),
            names: Vec::new(),
            events: BinaryHeap::new(),
            seq: 0,
            now: 0,
            sample_every: None,
            series: BTreeMap::new(),
            tx_series: BTreeMap::new(),
            events_run: 0,
        }
    }

    pub fn add_switch(&mut self, name: &str, cfg: SwitchConfig, mac: [u8; 6]) -> NodeId {
        let seed = cfg.ecmp_seed ^ 0x5eed;
        self.nodes.push(Node::Switch(Switch {
            cfg,
            ports: Vec::new(),
            mac,
            used: 0,
            routes: HashMap::new(),
            l2: HashMap::new(),
            stats: SwitchStats::default(),
            flows: BTreeMap::new(),
            rng: ferroce_proto::testgen::Rng::new(seed),
        }));
        self.names.push(name.into());
        self.nodes.len() - 1
    }

    pub fn add_host(&mut self, cfg: HostConfig) -> NodeId {
        let id = self.nodes.len();
        self.names.push(cfg.name.clone());
        let start = match &cfg.kind {
            HostKind::Source(s) => Some(s.start),
            _ => None,
        };
        self.nodes.push(Node::Host(Host {
            cfg,
            port: None,
            inbox: VecDeque::new(),
            stats: HostStats::default(),
            capture: Vec::new(),
        }));
        if let Some(t) = start {
            self.schedule(t, EventKind::Generate(id));
        }
        id
    }

    /// Join `a` and `b` with a link; returns the new ports' indices at `a` and `b`. A host
    /// has one port.
    pub fn connect(&mut self, a: NodeId, b: NodeId, link: LinkSpec) -> (usize, usize) {
        assert_ne!(a, b, "a link joins two nodes");
        let pa = self.port_count(a);
        let pb = self.port_count(b);
        self.add_port(a, Port::new((b, pb), link));
        self.add_port(b, Port::new((a, pa), link));
        (pa, pb)
    }

    fn port_count(&self, n: NodeId) -> usize {
        match &self.nodes[n] {
            Node::Switch(s) => s.ports.len(),
            Node::Host(h) => usize::from(h.port.is_some()),
        }
    }

    fn add_port(&mut self, n: NodeId, p: Port) {
        match &mut self.nodes[n] {
            Node::Switch(s) => s.ports.push(p),
            Node::Host(h) => {
                assert!(h.port.is_none(), "a host has one port");
                h.port = Some(p)
            }
        }
    }

    /// Fill every switch's tables: for each host, the L3 route to its IP over every neighbour
    /// on a shortest path (equal-cost next hops), and the L2 entry of its MAC on the switch it
    /// is attached to (L2 reaches only hosts on the same switch: the switches route between
    /// each other).
    pub fn compute_routes(&mut self) {
        let n = self.nodes.len();
        let neighbours = |nodes: &Vec<Node>, i: usize| -> Vec<(usize, NodeId)> {
            match &nodes[i] {
                Node::Switch(s) => s
                    .ports
                    .iter()
                    .enumerate()
                    .map(|(p, x)| (p, x.peer.0))
                    .collect(),
                Node::Host(h) => h.port.iter().map(|x| (0, x.peer.0)).collect(),
            }
        };
        for target in 0..n {
            let Node::Host(h) = &self.nodes[target] else {
                continue;
            };
            let (ip, mac) = (packet::mapped(h.cfg.ip), h.cfg.mac);
            // breadth-first distances from the host, through switches only
            let mut dist = vec![usize::MAX; n];
            dist[target] = 0;
            let mut q = VecDeque::from([target]);
            while let Some(i) = q.pop_front() {
                if i != target && !matches!(self.nodes[i], Node::Switch(_)) {
                    continue;
                }
                for (_, j) in neighbours(&self.nodes, i) {
                    if dist[j] == usize::MAX {
                        dist[j] = dist[i] + 1;
                        q.push_back(j);
                    }
                }
            }
            for i in 0..n {
                if dist[i] == usize::MAX || !matches!(self.nodes[i], Node::Switch(_)) {
                    continue;
                }
                let hops: Vec<usize> = neighbours(&self.nodes, i)
                    .into_iter()
                    .filter(|(_, j)| dist[*j] + 1 == dist[i])
                    .map(|(p, _)| p)
                    .collect();
                if let Node::Switch(s) = &mut self.nodes[i] {
                    if dist[i] == 1 {
                        s.l2.insert(mac, hops[0]);
                    }
                    s.routes.insert(ip, hops);
                }
            }
        }
    }

    /// Faults on the link at port `port` of `n`, both directions (each direction draws its own
    /// random stream from `fault.seed`).
    pub fn set_link_faults(&mut self, n: NodeId, port: usize, fault: LinkFault) {
        let (peer, pport) = self.peer(n, port);
        for (i, (node, p)) in [(n, port), (peer, pport)].into_iter().enumerate() {
            let rng = ferroce_proto::testgen::Rng::new(fault.seed ^ (0x1055 + i as u64));
            self.port_mut(node, p).fault = Some((fault.clone(), rng));
        }
    }

    /// Take a time-series sample of every switch port and bucket every host's transmitted
    /// bytes per flow, every `every` picoseconds from now.
    pub fn sample_every(&mut self, every: Ps) {
        self.sample_every = Some(every);
        self.schedule(self.now, EventKind::Sample);
    }

    pub fn now(&self) -> Ps {
        self.now
    }

    pub fn name(&self, n: NodeId) -> &str {
        &self.names[n]
    }

    /// Node ids of every switch.
    pub fn switches(&self) -> Vec<NodeId> {
        (0..self.nodes.len())
            .filter(|i| matches!(self.nodes[*i], Node::Switch(_)))
            .collect()
    }

    /// Events run so far (the simulation's work).
    pub fn events_run(&self) -> u64 {
        self.events_run
    }

    fn schedule(&mut self, t: Ps, kind: EventKind) {
        self.seq += 1;
        self.events.push(Reverse(Event {
            t,
            seq: self.seq,
            kind,
        }));
    }

    /// Run every event due at or before `t`; the fabric's time is then `t`.
    pub fn advance(&mut self, t: Ps) {
        while let Some(Reverse(e)) = self.events.peek() {
            if e.t > t {
                break;
            }
            let Reverse(e) = self.events.pop().expect("peeked");
            self.now = e.t;
            self.events_run += 1;
            self.run(e.kind);
        }
        self.now = self.now.max(t);
    }

    /// Run until no event is left (or `limit`); returns the time reached.
    pub fn run_until_idle(&mut self, limit: Ps) -> Ps {
        while let Some(Reverse(e)) = self.events.peek() {
            if e.t > limit {
                break;
            }
            let t = e.t;
            // periodic samples alone do not keep the fabric busy
            if matches!(e.kind, EventKind::Sample) && self.events.len() == 1 {
                break;
            }
            self.advance(t);
        }
        self.now
    }

    /// The MAC side's pacing of an external host at `t` (see the crate docs).
    pub fn tx_ready(&mut self, host: NodeId, t: Ps) -> bool {
        self.advance(t);
        let Node::Host(h) = &self.nodes[host] else {
            panic!("not a host")
        };
        let Some(p) = &h.port else { return false };
        let backlog_ps = p.tx_free.saturating_sub(t);
        let queued: u64 = p.qbytes.iter().sum();
        let backlog = backlog_ps as u128 * p.link.rate_bps as u128 / 8 / PS_PER_S as u128;
        (backlog as u64 + queued) < h.cfg.tx_fifo_bytes
    }

    /// A frame from an external host whose last byte left its MAC at `t`.
    pub fn send(&mut self, host: NodeId, t: Ps, frame: Vec<u8>) {
        self.advance(t);
        let Node::Host(h) = &mut self.nodes[host] else {
            panic!("not a host")
        };
        let hdr = packet::parse(&frame).unwrap_or_else(Header::unparsed);
        let p = h.port.as_mut().expect("host not connected");
        p.qbytes[0] += frame.len() as u64;
        p.queues[0].push_back(Queued {
            bytes: frame,
            hdr,
            ingress: 0,
        });
        self.kick(host, 0);
    }

    /// Frames that reached an external host so far, with their arrival times.
    pub fn take_received(&mut self, host: NodeId) -> Vec<(Ps, Vec<u8>)> {
        let Node::Host(h) = &mut self.nodes[host] else {
            panic!("not a host")
        };
        h.inbox.drain(..).collect()
    }

    /// The frames captured at a host (`HostConfig::capture`), taken.
    pub fn take_capture(&mut self, host: NodeId) -> Vec<Captured> {
        let Node::Host(h) = &mut self.nodes[host] else {
            panic!("not a host")
        };
        std::mem::take(&mut h.capture)
    }

    pub fn host_stats(&self, host: NodeId) -> &HostStats {
        let Node::Host(h) = &self.nodes[host] else {
            panic!("not a host")
        };
        &h.stats
    }

    /// Counters of port `port` of node `n` (a switch's, or a host's port 0).
    pub fn port_stats(&self, n: NodeId, port: usize) -> PortStats {
        match &self.nodes[n] {
            Node::Switch(s) => s.ports[port].stats,
            Node::Host(h) => h.port.as_ref().expect("connected").stats,
        }
    }

    /// The node at the other end of port `port` of `n`.
    pub fn peer(&self, n: NodeId, port: usize) -> (NodeId, usize) {
        match &self.nodes[n] {
            Node::Switch(s) => s.ports[port].peer,
            Node::Host(h) => h.port.as_ref().expect("connected").peer,
        }
    }

    pub fn ports(&self, n: NodeId) -> usize {
        self.port_count(n)
    }

    pub fn switch_stats(&self, n: NodeId) -> SwitchStats {
        let Node::Switch(s) = &self.nodes[n] else {
            panic!("not a switch")
        };
        s.stats
    }

    /// Frames a switch forwarded per flow.
    pub fn switch_flows(&self, n: NodeId) -> &BTreeMap<FlowKey, u64> {
        let Node::Switch(s) = &self.nodes[n] else {
            panic!("not a switch")
        };
        &s.flows
    }

    /// The ECMP next-hop port a switch picks for this flow toward `dst` (`None`: no route).
    pub fn ecmp_port(&self, n: NodeId, key: &FlowKey, protocol: u8) -> Option<usize> {
        let Node::Switch(s) = &self.nodes[n] else {
            panic!("not a switch")
        };
        let hops = s.routes.get(&key.dst_ip)?;
        Some(hops[(ecmp_hash(s.cfg.ecmp_seed, key, protocol) % hops.len() as u64) as usize])
    }

    /// The samples of a switch port (empty unless [`Fabric::sample_every`]).
    pub fn port_series(&self, n: NodeId, port: usize) -> &[PortSample] {
        self.series.get(&(n, port)).map_or(&[], |v| v.as_slice())
    }

    /// Bytes a host sent per flow in each sample interval.
    pub fn flow_tx_series(&self) -> &BTreeMap<(NodeId, FlowKey), Vec<u64>> {
        &self.tx_series
    }

    /// Bytes in a switch port's egress queue of `prio` now.
    pub fn queue_bytes(&self, n: NodeId, port: usize, prio: u8) -> u64 {
        let Node::Switch(s) = &self.nodes[n] else {
            panic!("not a switch")
        };
        s.ports[port].qbytes[prio as usize]
    }

    fn run(&mut self, kind: EventKind) {
        match kind {
            EventKind::Arrive(n, p, f) => self.arrive(n, p, f),
            EventKind::Kick(n, p) => self.kick(n, p),
            EventKind::Refresh(n, p, prio) => self.refresh(n, p, prio),
            EventKind::Generate(n) => self.generate(n),
            EventKind::Sample => self.sample(),
        }
    }

    fn port_mut(&mut self, n: NodeId, port: usize) -> &mut Port {
        match &mut self.nodes[n] {
            Node::Switch(s) => &mut s.ports[port],
            Node::Host(h) => h.port.as_mut().expect("connected"),
        }
    }

    fn sample(&mut self) {
        let Some(every) = self.sample_every else {
            return;
        };
        let t = self.now;
        for (i, node) in self.nodes.iter().enumerate() {
            if let Node::Switch(s) = node {
                for (pi, p) in s.ports.iter().enumerate() {
                    self.series.entry((i, pi)).or_default().push(PortSample {
                        t,
                        depth: p.qbytes,
                        marked: p.stats.marked,
                        drops: p.stats.drops,
                        pfc_sent: p.stats.pfc_xoff_sent,
                        tx_frames: p.stats.tx_frames,
                        tx_bytes: p.stats.tx_bytes,
                    });
                }
            }
        }
        // open the next interval of every flow's transmit series
        for v in self.tx_series.values_mut() {
            v.push(0);
        }
        self.schedule(t + every, EventKind::Sample);
    }

    /// Transmit the next frame of (n, port) if the transmitter is free.
    fn kick(&mut self, n: NodeId, port: usize) {
        let now = self.now;
        let (honours_pfc, is_switch) = match &self.nodes[n] {
            Node::Switch(_) => (true, true),
            Node::Host(h) => (!matches!(h.cfg.kind, HostKind::External), false),
        };
        let cnp_prio = match &self.nodes[n] {
            Node::Switch(s) => s.cfg.cnp_priority as usize,
            _ => 7,
        };
        let p = self.port_mut(n, port);
        if p.tx_free > now {
            return;
        }
        let frame: Option<(Vec<u8>, Option<(usize, Queued)>)>;
        if let Some(c) = p.control.pop_front() {
            frame = Some((c, None));
        } else {
            // the CNP class strictly first, then round robin over the others
            let open = |p: &Port, q: usize| {
                !p.queues[q].is_empty() && (!honours_pfc || p.paused_until[q] <= now)
            };
            let pick = if open(p, cnp_prio) {
                Some(cnp_prio)
            } else {
                (1..=8)
                    .map(|k| (p.rr + k) % 8)
                    .find(|&q| q != cnp_prio && open(p, q))
            };
            if let Some(q) = pick {
                if q != cnp_prio {
                    p.rr = q;
                }
                let item = p.queues[q].pop_front().expect("open queue");
                p.qbytes[q] -= item.bytes.len() as u64;
                frame = Some((item.bytes.clone(), Some((q, item))));
            } else {
                // paused: try again when the earliest pause on a waiting queue ends
                let next = (0..8)
                    .filter(|&q| !p.queues[q].is_empty())
                    .map(|q| p.paused_until[q])
                    .min();
                if let Some(t) = next {
                    if t > now {
                        self.schedule(t, EventKind::Kick(n, port));
                    }
                }
                return;
            }
        }
        let (mut bytes, dq) = frame.expect("chosen");
        if let (true, Some((q, item))) = (is_switch, dq.as_ref()) {
            self.dequeued(n, port, *q, item, &mut bytes);
        }
        let p = self.port_mut(n, port);
        let ser = p.link.serialise(bytes.len());
        p.tx_free = now + ser;
        p.stats.tx_frames += 1;
        p.stats.tx_bytes += bytes.len() as u64;
        let (peer, delay) = (p.peer, p.link.delay_ps);
        let lost = p.fault.as_mut().is_some_and(|(f, rng)| {
            f.down.iter().any(|(a, b)| (*a..*b).contains(&now))
                || (f.loss > 0.0 && (rng.next_u64() >> 11) as f64 / ((1u64 << 53) as f64) < f.loss)
        });
        if lost {
            p.stats.lost += 1;
        }
        if let Node::Host(h) = &mut self.nodes[n] {
            h.stats.tx_frames += 1;
            h.stats.tx_bytes += bytes.len() as u64;
            if h.cfg.capture {
                h.capture.push(Captured {
                    t: now + ser,
                    sent: true,
                    bytes: bytes.clone(),
                });
            }
            if let Some(hdr) = packet::parse(&bytes) {
                if hdr.kind == Kind::Ip && self.sample_every.is_some() {
                    let v = self.tx_series.entry((n, FlowKey::of(&hdr))).or_default();
                    if v.is_empty() {
                        v.push(0);
                    }
                    *v.last_mut().expect("one") += bytes.len() as u64;
                }
            }
        }
        if !lost {
            self.schedule(now + ser + delay, EventKind::Arrive(peer.0, peer.1, bytes));
        }
        self.schedule(now + ser, EventKind::Kick(n, port));
    }

    /// A switch's bookkeeping when a frame leaves egress queue `q` of `port`: ECN marking at
    /// dequeue, the shared buffer, the ingress port's PFC state.
    fn dequeued(&mut self, n: NodeId, port: usize, q: usize, item: &Queued, bytes: &mut [u8]) {
        let now = self.now;
        let Node::Switch(s) = &mut self.nodes[n] else {
            return;
        };
        let len = item.bytes.len() as u64;
        s.used -= len;
        // marking on the depth the frame saw at the head of the queue (itself included)
        if let Some(red) = s.cfg.red {
            let depth = (s.ports[port].qbytes[q] + len) as f64;
            let measure = match red.average_weight {
                Some(w) => {
                    let avg = &mut s.ports[port].red_avg[q];
                    *avg += w * (depth - *avg);
                    *avg
                }
                None => depth,
            };
            let prob = red.probability(measure);
            if item.hdr.ecn != 0
                && item.hdr.ecn != packet::ECN_CE
                && prob > 0.0
                && (prob >= 1.0 || (s.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= prob)
                && packet::mark_ce(bytes, &item.hdr)
            {
                s.ports[port].stats.marked += 1;
            }
        }
        let prio = q;
        let ing = &mut s.ports[item.ingress];
        ing.ingress_bytes[prio] -= len;
        if let Some(pfc) = s.cfg.pfc {
            if ing.xoff[prio] && ing.ingress_bytes[prio] <= pfc.xon {
                ing.xoff[prio] = false;
                ing.control
                    .push_back(packet::pfc_frame(s.mac, prio as u8, 0));
                ing.stats.pfc_xon_sent += 1;
                let ingress = item.ingress;
                self.schedule(now, EventKind::Kick(n, ingress));
            }
        }
    }

    fn refresh(&mut self, n: NodeId, port: usize, prio: u8) {
        let Node::Switch(s) = &mut self.nodes[n] else {
            return;
        };
        let Some(pfc) = s.cfg.pfc else { return };
        let p = &mut s.ports[port];
        if p.xoff[prio as usize] {
            p.control
                .push_back(packet::pfc_frame(s.mac, prio, pfc.quanta));
            p.stats.pfc_xoff_sent += 1;
            let half = p.link.quanta(pfc.quanta) / 2;
            let now = self.now;
            self.schedule(now + half.max(1), EventKind::Refresh(n, port, prio));
            self.kick(n, port);
        }
    }

    fn arrive(&mut self, n: NodeId, port: usize, mut f: Vec<u8>) {
        let now = self.now;
        let hdr = packet::parse(&f);
        if let Some(h) = hdr.filter(|h| h.kind == Kind::MacControl) {
            let times = packet::pause_times(&f, &h);
            let (honours, link) = match &self.nodes[n] {
                Node::Switch(_) => (true, self.port_link(n, port)),
                Node::Host(x) => (
                    !matches!(x.cfg.kind, HostKind::External),
                    self.port_link(n, port),
                ),
            };
            let p = self.port_mut(n, port);
            p.stats.pfc_received += 1;
            if honours {
                for (prio, t) in times.iter().enumerate() {
                    if let Some(q) = t {
                        p.paused_until[prio] = now + link.quanta(*q);
                    }
                }
                self.schedule(now, EventKind::Kick(n, port));
            }
            if let Node::Host(x) = &mut self.nodes[n] {
                x.stats.rx_pfc += 1;
            }
            // a NIC still receives the frame (it does not act on it)
        }
        match &mut self.nodes[n] {
            Node::Host(h) => {
                h.stats.rx_frames += 1;
                h.stats.rx_bytes += f.len() as u64;
                if let Some(hd) = hdr {
                    if hd.ecn == packet::ECN_CE {
                        h.stats.rx_ce += 1;
                    }
                    if hd.kind == Kind::Ip {
                        let e = h.stats.rx_flows.entry(FlowKey::of(&hd)).or_default();
                        e.0 += 1;
                        e.1 += f.len() as u64;
                    }
                }
                if h.cfg.capture {
                    h.capture.push(Captured {
                        t: now,
                        sent: false,
                        bytes: f.clone(),
                    });
                }
                if matches!(h.cfg.kind, HostKind::External) {
                    h.inbox.push_back((now, f));
                }
            }
            Node::Switch(s) => {
                let Some(h) = hdr else {
                    s.stats.malformed += 1;
                    return;
                };
                if h.kind == Kind::MacControl {
                    return;
                }
                let egress = match h.kind {
                    Kind::Ip => match s.routes.get(&h.dst_ip) {
                        Some(hops) => {
                            let key = FlowKey::of(&h);
                            *s.flows.entry(key).or_default() += 1;
                            hops[(ecmp_hash(s.cfg.ecmp_seed, &key, h.protocol) % hops.len() as u64)
                                as usize]
                        }
                        None => {
                            s.stats.no_route += 1;
                            return;
                        }
                    },
                    _ => match s.l2.get(&h.dst_mac) {
                        Some(p) => *p,
                        None => {
                            s.stats.not_routed_l2 += 1;
                            if h.kind == Kind::RoceV1 {
                                s.stats.rocev1_not_routed += 1;
                            }
                            return;
                        }
                    },
                };
                if egress == port {
                    s.stats.no_route += 1;
                    return;
                }
                // a tagged frame travels in its PCP's class (802.1p trust), an untagged one in
                // its DSCP's
                let prio = if h.cnp {
                    s.cfg.cnp_priority
                } else if let Some(pcp) = h.pcp {
                    pcp
                } else {
                    s.cfg.dscp_priority[h.dscp as usize & 63]
                } as usize;
                let len = f.len() as u64;
                // admission: the dynamic threshold over the free shared buffer; a lossless
                // priority may go on into its headroom
                let free = s.cfg.buffer_bytes.saturating_sub(s.used);
                let dt_ok = (s.ports[egress].qbytes[prio] + len) as f64
                    <= s.cfg.alpha * free as f64
                    && len <= free;
                let lossless = s.cfg.pfc.filter(|c| c.lossless(prio as u8));
                let admit = match lossless {
                    Some(c) => {
                        len <= free
                            && s.ports[port].ingress_bytes[prio] + len <= c.xoff + c.headroom
                    }
                    None => dt_ok,
                };
                if !admit {
                    s.ports[egress].stats.drops += 1;
                    if lossless.is_some() {
                        s.stats.headroom_drops += 1;
                    }
                    return;
                }
                if h.kind == Kind::Ip {
                    // routed: the switch is the new source MAC
                    f[6..12].copy_from_slice(&s.mac);
                }
                s.used += len;
                let ing = &mut s.ports[port];
                ing.ingress_bytes[prio] += len;
                let mut xoff = false;
                if let Some(c) = lossless {
                    if !ing.xoff[prio] && ing.ingress_bytes[prio] > c.xoff {
                        ing.xoff[prio] = true;
                        ing.control
                            .push_back(packet::pfc_frame(s.mac, prio as u8, c.quanta));
                        ing.stats.pfc_xoff_sent += 1;
                        xoff = true;
                    }
                }
                let e = &mut s.ports[egress];
                e.qbytes[prio] += len;
                e.stats.peak[prio] = e.stats.peak[prio].max(e.qbytes[prio]);
                e.queues[prio].push_back(Queued {
                    bytes: f,
                    hdr: h,
                    ingress: port,
                });
                if xoff {
                    let half = self
                        .port_link(n, port)
                        .quanta(lossless.expect("xoff").quanta)
                        / 2;
                    self.schedule(now + half.max(1), EventKind::Refresh(n, port, prio as u8));
                    self.kick(n, port);
                }
                self.kick(n, egress);
            }
        }
    }

    fn port_link(&self, n: NodeId, port: usize) -> LinkSpec {
        match &self.nodes[n] {
            Node::Switch(s) => s.ports[port].link,
            Node::Host(h) => h.port.as_ref().expect("connected").link,
        }
    }

    fn generate(&mut self, n: NodeId) {
        let now = self.now;
        let Node::Host(h) = &mut self.nodes[n] else {
            return;
        };
        let HostKind::Source(src) = h.cfg.kind.clone() else {
            return;
        };
        if now >= src.stop {
            return;
        }
        let frame = packet::udp_frame(h.cfg.mac, h.cfg.ip, &src);
        let hdr = packet::parse(&frame).expect("well formed");
        let len = frame.len();
        let p = h.port.as_mut().expect("connected");
        let prio = src.priority as usize & 7;
        // a plain host keeps at most a few frames queued (its own flow control): it stops
        // generating while paused rather than dropping
        let paused = p.paused_until.iter().any(|t| *t > now);
        if !paused && p.qbytes[prio] < 4 * len as u64 {
            p.qbytes[prio] += len as u64;
            p.queues[prio].push_back(Queued {
                bytes: frame,
                hdr,
                ingress: 0,
            });
        }
        let gap = ((len as u128 + WIRE_OVERHEAD as u128) * 8 * PS_PER_S as u128
            / src.rate_bps as u128) as Ps;
        self.schedule(now + gap.max(1), EventKind::Generate(n));
        self.kick(n, 0);
    }
}
