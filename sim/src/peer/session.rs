//! The ferroce side of each tool's test, as an application on the simulated host: everything
//! on the NIC goes through the driver's verbs API (open the device, PD, CQ, QP, MR, modify the
//! QP to INIT/RTR/RTS with the peer's QPN/PSN/GID and MAC, post sends and receives, poll the
//! CQ); the tool's out-of-band exchange goes over the control channel in the tool's own
//! formats ([`super::exchange`]).
//!
//! Each flow mirrors what the tool's own peer does, message for message, so that the unmodified
//! tool on the other side completes: the same exchange order, the same operations on the wire
//! (opcode, size, count, target addresses), the same closing handshakes. docs/INTEROP.md lists
//! the orders.
use super::control::{Control, ControlError};
use super::exchange::{
    gids_compatible, parse_be32, BwReport, ExchangeError, MtuMessage, PerftestDest,
    PerftestVersion, PingpongDest, Side, BW_REPORT_FIELDS, DONE, PERFTEST_MIN_VERSION,
    PERFTEST_VERSION_LEN, PINGPONG_MSG_LEN,
};
use super::system::{lock, PeerTarget, SharedPeer};
use crate::host::{SharedMemory, SimBackend};
use crate::nic_system::NicHardware;
use ferroce_driver::backend::Backend;
use ferroce_driver::{
    CompletionQueue, Device, MemoryRegion, ProtectionDomain, QpCapabilities, QpInitAttr, QueuePair,
    RecvWr, Remote, RtrAttr, RtsAttr, SendWr, WcStatus, WorkCompletion,
};
use ferroce_proto::host::config::{Gid, GidEntry};
use ferroce_proto::host::qp::{AccessFlags, AddressVector, Pmtu};
use ferroce_proto::host::regs;
use ferroce_proto::host::wqe::Sge;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Cycles the NIC runs each time a session finds nothing to do (no byte on the control
/// channel, no completion): a few milliseconds of wall time on the Verilator model.
const IDLE_CYCLES: u64 = 256;
/// Work requests a session keeps posted per queue.
const QUEUE_DEPTH: u32 = 64;
/// What perftest assumes for the peer's page (its cycle buffer) and cache line when it has not
/// been told otherwise: the simulated host's values, which the exchange raises to the peer's.
const OUR_CYCLE_BUFFER: u32 = 4096;
const OUR_CACHE_LINE: u32 = 64;
/// Largest cycle buffer a peer may announce (a page: anything above 16 MiB is not one).
const MAX_CYCLE_BUFFER: u32 = 16 << 20;
/// How long a session waits for the peer's closing `done` after sending its own (the tools
/// send it but never read it, so it may never come if the bridge closes first).
const DONE_WAIT: Duration = Duration::from_secs(2);
/// How long the NIC keeps running after a ping-pong's last completion: long enough for the
/// ACK of the peer's last message to leave (a few thousand cycles) with a wide margin, short
/// enough not to matter.
const PINGPONG_LINGER: Duration = Duration::from_secs(3);

/// The tests `ferroce peer` can take part in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `ibv_rc_pingpong`: SEND/RECV ping-pong.
    RcPingpong,
    /// `ib_write_bw`.
    WriteBw,
    /// `ib_read_bw`.
    ReadBw,
    /// `ib_send_bw`.
    SendBw,
    /// `ib_atomic_bw -A FETCH_AND_ADD` (perftest's default atomic).
    AtomicFadd,
    /// `ib_atomic_bw -A CMP_AND_SWAP`.
    AtomicCas,
}

impl Tool {
    pub const NAMES: &'static str =
        "rc_pingpong, write_bw, read_bw, send_bw, atomic_fadd, atomic_cas";

    pub fn parse(s: &str) -> Option<Tool> {
        Some(match s {
            "rc_pingpong" => Tool::RcPingpong,
            "write_bw" => Tool::WriteBw,
            "read_bw" => Tool::ReadBw,
            "send_bw" => Tool::SendBw,
            "atomic_fadd" => Tool::AtomicFadd,
            "atomic_cas" => Tool::AtomicCas,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Tool::RcPingpong => "rc_pingpong",
            Tool::WriteBw => "write_bw",
            Tool::ReadBw => "read_bw",
            Tool::SendBw => "send_bw",
            Tool::AtomicFadd => "atomic_fadd",
            Tool::AtomicCas => "atomic_cas",
        }
    }

    /// The tool's own default message size (neither tool exchanges it: both sides must be
    /// given the same).
    pub fn default_size(self) -> usize {
        match self {
            Tool::RcPingpong => 4096,
            Tool::AtomicFadd | Tool::AtomicCas => 8,
            _ => 65536,
        }
    }

    /// The tool's own default iteration count (not exchanged either).
    pub fn default_iters(self) -> u64 {
        match self {
            Tool::WriteBw => 5000,
            _ => 1000,
        }
    }

    pub fn is_atomic(self) -> bool {
        matches!(self, Tool::AtomicFadd | Tool::AtomicCas)
    }

    /// The QP access the tool's peer grants the other side (perftest grants only what its
    /// test needs; rc_pingpong's SEND/RECV needs none).
    fn remote_access(self) -> AccessFlags {
        match self {
            Tool::RcPingpong => AccessFlags::NONE,
            Tool::WriteBw => AccessFlags::REMOTE_WRITE,
            Tool::ReadBw => AccessFlags::REMOTE_READ,
            Tool::SendBw => AccessFlags::REMOTE_WRITE,
            Tool::AtomicFadd | Tool::AtomicCas => AccessFlags::REMOTE_ATOMIC,
        }
    }

    /// Reads or atomics: the responder's outstanding-request limit matters.
    fn needs_rd_atomic(self) -> bool {
        matches!(self, Tool::ReadBw | Tool::AtomicFadd | Tool::AtomicCas)
    }
}

/// The ferroce QP's transport timers (its local ACK timeout runs in NIC time, see
/// docs/INTEROP.md for the choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transport {
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
}

/// What a session is told.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub tool: Tool,
    pub side: Side,
    pub size: usize,
    pub iters: u64,
    pub pmtu: Pmtu,
    /// GID 0: IPv4 (IPv4-mapped RoCEv2 GID) or IPv6 (RoCEv2 over IPv6).
    pub my_ip: IpAddr,
    pub my_mac: [u8; 6],
    pub peer_mac: [u8; 6],
    pub transport: Transport,
    /// Wall-clock end of the whole run.
    pub deadline: Instant,
    /// Initial PSN of the ferroce QP (24 bits).
    pub psn: u32,
}

#[derive(Debug, Error)]
pub enum SessionError {
    #[error(transparent)]
    Control(#[from] ControlError),
    #[error("{0}")]
    Exchange(#[from] ExchangeError),
    #[error("{what}: {source}")]
    Driver {
        what: &'static str,
        source: ferroce_driver::Error,
    },
    #[error("{0}")]
    Link(String),
    #[error("wall-clock timeout while {0}")]
    Timeout(String),
    #[error("the peer cannot run this test: {0}")]
    Peer(String),
    #[error("work request {wr_id} completed with {status:?} (vendor error {vendor_err})")]
    Completion {
        wr_id: u64,
        status: WcStatus,
        vendor_err: u8,
    },
}

fn drv(what: &'static str) -> impl Fn(ferroce_driver::Error) -> SessionError {
    move |source| SessionError::Driver { what, source }
}

type Result<T> = core::result::Result<T, SessionError>;

/// What a session did.
#[derive(Clone, Debug, Default)]
pub struct SessionReport {
    /// What the session was doing last (the step that failed, on an error).
    pub stage: String,
    pub peer_version: Option<String>,
    /// The peer's address record, as text.
    pub peer_qpn: Option<u32>,
    pub peer_psn: Option<u32>,
    pub peer_gid: Option<String>,
    pub my_qpn: u32,
    pub my_psn: u32,
    /// Path MTU the QP ran with (bytes).
    pub pmtu: u32,
    pub send_posted: u64,
    pub send_completed: u64,
    pub recv_posted: u64,
    pub recv_completed: u64,
    /// Payload bytes of this side's completed sends (or reads) and receives.
    pub bytes: u64,
    /// Wall time of this side's test loop.
    pub test_seconds: f64,
    /// The report this side sent (perftest client) or received (perftest server).
    pub report_sent: Option<BwReport>,
    pub report_received: Option<BwReport>,
    /// The peer's closing `done` arrived.
    pub got_done: bool,
}

/// The driver's objects of the session's host.
pub struct Host<H: NicHardware + Send + 'static> {
    pub backend: Arc<SimBackend<PeerTarget<H>>>,
    pub device: Device,
    pub pd: ProtectionDomain,
    pub cq: CompletionQueue,
    pub qp: QueuePair,
}

impl<H: NicHardware + Send + 'static> Host<H> {
    /// Open the NIC through the driver and set up what does not depend on the peer: MAC, GID 0
    /// (the IPv4 address), receive and transmit enabled, a PD, one CQ, one RC QP in INIT with
    /// the remote access the tool needs.
    pub fn open(shared: &SharedPeer<H>, memory: SharedMemory, cfg: &SessionConfig) -> Result<Self> {
        let backend = Arc::new(SimBackend::new(PeerTarget(shared.clone()), memory));
        let dynb: Arc<dyn Backend> = backend.clone();
        let device = Device::open(dynb).map_err(drv("opening the NIC"))?;
        device.set_mac(cfg.my_mac);
        device
            .set_gid(0, &my_gid_entry(cfg))
            .map_err(drv("setting GID 0"))?;
        device
            .set_control(regs::cfg_control::RX_ENABLE | regs::cfg_control::TX_ENABLE)
            .map_err(drv("enabling receive and transmit"))?;
        let pd = device.alloc_pd().map_err(drv("allocating a PD"))?;
        let cq = device
            .create_cq(4 * QUEUE_DEPTH, 0)
            .map_err(drv("creating the CQ"))?;
        let qp = pd
            .create_qp(&QpInitAttr {
                send_cq: &cq,
                recv_cq: &cq,
                cap: QpCapabilities {
                    max_send_wr: QUEUE_DEPTH,
                    max_send_sge: 1,
                    max_recv_wr: QUEUE_DEPTH,
                    max_recv_sge: 1,
                    ..QpCapabilities::default()
                },
                sq_sig_all: false,
            })
            .map_err(drv("creating the QP"))?;
        qp.to_init(cfg.tool.remote_access())
            .map_err(drv("moving the QP to INIT"))?;
        Ok(Host {
            backend,
            device,
            pd,
            cq,
            qp,
        })
    }

    /// Register a zeroed buffer of `len` bytes with every access the tests need.
    fn buffer(&self, len: usize) -> Result<MemoryRegion> {
        let buf = Arc::new(
            self.device
                .alloc_dma(len.max(64), 4096)
                .map_err(drv("allocating the data buffer"))?,
        );
        self.pd
            .register(
                buf,
                AccessFlags::LOCAL_WRITE
                    | AccessFlags::REMOTE_WRITE
                    | AccessFlags::REMOTE_READ
                    | AccessFlags::REMOTE_ATOMIC,
            )
            .map_err(drv("registering the data buffer"))
    }

    /// The NIC's own counters through BAR0: retransmitted packets, ACK timeouts, QPs out of
    /// retries.
    pub fn transport_counters(&self) -> [(&'static str, u64); 3] {
        [
            (
                "retransmitted_packets",
                self.device.counter(regs::CNT_RETRANSMIT_LO),
            ),
            (
                "ack_timeouts",
                self.device.counter(regs::CNT_ACK_TIMEOUT_LO),
            ),
            (
                "retry_exceeded",
                self.device.counter(regs::CNT_RETRY_EXCEEDED_LO),
            ),
        ]
    }
}

/// The session's I/O: the control channel, and the NIC clocked whenever the session waits.
struct Io<'a, H: NicHardware> {
    ctl: &'a mut Control,
    shared: SharedPeer<H>,
    deadline: Instant,
    side: Side,
}

/// Clock the NIC a little; fail on the deadline or a dead link.
fn idle_step<H: NicHardware>(
    shared: &SharedPeer<H>,
    deadline: Instant,
    waiting: &str,
) -> Result<()> {
    if Instant::now() >= deadline {
        return Err(SessionError::Timeout(waiting.to_string()));
    }
    let mut p = lock(shared);
    p.run(IDLE_CYCLES);
    if let Some(e) = p.error() {
        return Err(SessionError::Link(e.to_string()));
    }
    if !p.link_up() {
        return Err(SessionError::Link("link: not connected".into()));
    }
    Ok(())
}

impl<H: NicHardware> Io<'_, H> {
    fn send(&mut self, what: &'static str, msg: &[u8]) -> Result<()> {
        let (shared, deadline) = (&self.shared, self.deadline);
        let waiting = format!("sending {what}");
        let mut idle = || idle_step(shared, deadline, &waiting);
        self.ctl.send(what, msg, &mut idle)
    }

    fn recv(&mut self, what: &'static str, n: usize) -> Result<Vec<u8>> {
        let (shared, deadline) = (&self.shared, self.deadline);
        let waiting = format!("waiting for the peer's {what}");
        let mut idle = || idle_step(shared, deadline, &waiting);
        self.ctl.recv(what, n, &mut idle)
    }

    /// One message each way, in the tool's order for this side (the client writes first).
    fn xchg(&mut self, what: &'static str, mine: &[u8], theirs_len: usize) -> Result<Vec<u8>> {
        if self.side.writes_first() {
            self.send(what, mine)?;
            self.recv(what, theirs_len)
        } else {
            let t = self.recv(what, theirs_len)?;
            self.send(what, mine)?;
            Ok(t)
        }
    }

    /// Clock the NIC while the session has nothing to do.
    fn clock(&self, waiting: &str) -> Result<()> {
        idle_step(&self.shared, self.deadline, waiting)
    }
}

/// Run the tool's test as its peer. `report` is filled in as the session goes (also when it
/// fails: `stage` says where).
pub fn run<H: NicHardware + Send + 'static>(
    shared: &SharedPeer<H>,
    host: &Host<H>,
    ctl: &mut Control,
    cfg: &SessionConfig,
    report: &mut SessionReport,
) -> Result<()> {
    let mut io = Io {
        ctl,
        shared: shared.clone(),
        deadline: cfg.deadline,
        side: cfg.side,
    };
    report.my_qpn = host.qp.qpn();
    report.my_psn = cfg.psn;
    if cfg.tool == Tool::RcPingpong {
        rc_pingpong(&mut io, host, cfg, report)
    } else {
        perftest(&mut io, host, cfg, report)
    }
}

fn my_gid_entry(cfg: &SessionConfig) -> GidEntry {
    match cfg.my_ip {
        IpAddr::V4(ip) => GidEntry::ipv4(ip),
        IpAddr::V6(ip) => GidEntry::ipv6(ip),
    }
}

fn my_gid(cfg: &SessionConfig) -> Gid {
    my_gid_entry(cfg).gid
}

/// The tool's GID must be of ferroce's family (IPv4-mapped or IPv6): the hardware sends one
/// RoCEv2 encapsulation per source GID, and perftest refuses a mixed pair too.
fn check_peer_gid(cfg: &SessionConfig, peer: &Gid, flag: &str) -> Result<()> {
    if gids_compatible(&my_gid(cfg), peer) {
        return Ok(());
    }
    let family = if cfg.my_ip.is_ipv4() {
        "IPv4 RoCEv2 GID"
    } else {
        "IPv6 RoCEv2 GID of a global address"
    };
    Err(SessionError::Peer(format!(
        "its GID {} is not of the family of ferroce's {} (run the tool with {flag} and the index of the guest's {family})",
        gid_text(peer),
        gid_text(&my_gid(cfg))
    )))
}

/// RTR towards the peer (and RTS if `rts`) with this session's transport settings.
fn connect_qp<H: NicHardware + Send + 'static>(
    host: &Host<H>,
    cfg: &SessionConfig,
    peer: (u32, u32, Gid),
    pmtu: Pmtu,
    rd_atomic: (u8, u8),
    rts: bool,
) -> Result<()> {
    let (dest_qpn, peer_psn, dgid) = peer;
    let (max_rd_atomic, max_dest_rd_atomic) = rd_atomic;
    host.qp
        .to_rtr(&RtrAttr {
            av: AddressVector {
                dmac: cfg.peer_mac,
                dgid,
                ..AddressVector::default()
            },
            path_mtu: pmtu,
            dest_qpn,
            rq_psn: peer_psn,
            max_dest_rd_atomic,
            // 12: 0.64 ms, the RNR delay both tools ask of their peers
            min_rnr_timer: 12,
        })
        .map_err(drv("moving the QP to RTR"))?;
    if rts {
        host.qp
            .to_rts(&RtsAttr {
                sq_psn: cfg.psn,
                timeout: cfg.transport.timeout,
                retry_cnt: cfg.transport.retry_cnt,
                rnr_retry: cfg.transport.rnr_retry,
                max_rd_atomic,
            })
            .map_err(drv("moving the QP to RTS"))?;
    }
    Ok(())
}

fn check_wc(wc: &WorkCompletion) -> Result<()> {
    if wc.status == WcStatus::Success {
        Ok(())
    } else {
        Err(SessionError::Completion {
            wr_id: wc.wr_id,
            status: wc.status,
            vendor_err: wc.vendor_err,
        })
    }
}

fn sges(mr: &MemoryRegion, offset: usize, len: usize) -> Result<Vec<Sge>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    Ok(vec![mr
        .sge(offset, len as u32)
        .map_err(drv("building an SGE"))?])
}

// ---------------------------------------------------------------------------------------------
// ibv_rc_pingpong

/// Work request ids of the ping-pong, as the tool tells its two kinds apart.
const PP_RECV: u64 = 1;
const PP_SEND: u64 = 2;

/// `ibv_rc_pingpong`'s flow. Both sides post receives before the exchange. Client: sends its
/// record, reads the server's, sends `done`, connects, posts the first SEND. Server: reads
/// the client's record, connects (RTR and RTS) before it answers, sends its record, reads
/// `done`. Then each side sends a message whenever both its last SEND and a RECV have
/// completed, until it has sent and received `iters` messages of `size` bytes.
fn rc_pingpong<H: NicHardware + Send + 'static>(
    io: &mut Io<'_, H>,
    host: &Host<H>,
    cfg: &SessionConfig,
    report: &mut SessionReport,
) -> Result<()> {
    report.stage = "posting receives".into();
    // one buffer, received into and sent from (the tool does the same)
    let mr = host.buffer(cfg.size)?;
    let mut recv_posted = 0u64;
    let rx_depth = (QUEUE_DEPTH as u64).min(cfg.iters.max(1));
    let recv = RecvWr::new(PP_RECV, sges(&mr, 0, cfg.size)?);
    while recv_posted < rx_depth {
        host.qp
            .post_recv(std::slice::from_ref(&recv))
            .map_err(drv("posting a receive"))?;
        recv_posted += 1;
    }
    let me = PingpongDest {
        lid: 0,
        qpn: host.qp.qpn(),
        psn: cfg.psn,
        gid: my_gid(cfg),
    };
    report.stage = "exchanging addresses".into();
    if cfg.side == Side::Client {
        io.send("rc_pingpong address", &me.emit())?;
        let peer = PingpongDest::parse(&io.recv("rc_pingpong address", PINGPONG_MSG_LEN)?)?;
        io.send("done", &DONE)?;
        note_pingpong_peer(report, &peer);
        connect_pingpong(host, cfg, &peer)?;
    } else {
        let peer = PingpongDest::parse(&io.recv("rc_pingpong address", PINGPONG_MSG_LEN)?)?;
        note_pingpong_peer(report, &peer);
        // RTR before answering: the client sends its first message as soon as it has our
        // record
        connect_pingpong(host, cfg, &peer)?;
        io.send("rc_pingpong address", &me.emit())?;
        let done = io.recv("done", DONE.len())?;
        report.got_done = done == DONE;
    }
    report.pmtu = cfg.pmtu.bytes();
    report.stage = "ping-pong".into();
    let send = SendWr::send(PP_SEND, sges(&mr, 0, cfg.size)?).signaled();
    let start = Instant::now();
    let (mut scnt, mut rcnt) = (0u64, 0u64);
    let mut pending = PP_RECV;
    if cfg.side == Side::Client {
        host.qp
            .post_send(std::slice::from_ref(&send))
            .map_err(drv("posting a send"))?;
        report.send_posted += 1;
        pending |= PP_SEND;
    }
    while rcnt < cfg.iters || scnt < cfg.iters {
        let wcs = host.cq.poll(16).map_err(drv("polling the CQ"))?;
        if wcs.is_empty() {
            io.clock("waiting for ping-pong completions")?;
            continue;
        }
        for wc in wcs {
            check_wc(&wc)?;
            match wc.wr_id {
                PP_SEND => {
                    scnt += 1;
                    report.send_completed += 1;
                    report.bytes += cfg.size as u64;
                }
                PP_RECV => {
                    rcnt += 1;
                    report.recv_completed += 1;
                    report.bytes += wc.byte_len as u64;
                    // keep the receive queue full (the tool posts ahead the same way)
                    if recv_posted < cfg.iters {
                        host.qp
                            .post_recv(std::slice::from_ref(&recv))
                            .map_err(drv("posting a receive"))?;
                        recv_posted += 1;
                    }
                }
                other => {
                    return Err(SessionError::Peer(format!(
                        "completion for unknown work request {other}"
                    )))
                }
            }
            pending &= !wc.wr_id;
            if scnt < cfg.iters && pending == 0 {
                host.qp
                    .post_send(std::slice::from_ref(&send))
                    .map_err(drv("posting a send"))?;
                report.send_posted += 1;
                pending = PP_RECV | PP_SEND;
            }
        }
    }
    report.recv_posted = recv_posted;
    report.test_seconds = start.elapsed().as_secs_f64();
    report.stage = "finished".into();
    // nothing on the socket tells when the peer is done: its last SEND completes only when
    // our ACK for it reaches it, so the NIC keeps running a while
    linger(io, PINGPONG_LINGER);
    Ok(())
}

fn note_pingpong_peer(report: &mut SessionReport, peer: &PingpongDest) {
    report.peer_qpn = Some(peer.qpn);
    report.peer_psn = Some(peer.psn);
    report.peer_gid = Some(gid_text(&peer.gid));
}

fn connect_pingpong<H: NicHardware + Send + 'static>(
    host: &Host<H>,
    cfg: &SessionConfig,
    peer: &PingpongDest,
) -> Result<()> {
    check_peer_gid(cfg, &peer.gid, "-g")?;
    // the tool asks for one outstanding read/atomic each way; a ping-pong uses none
    connect_qp(
        host,
        cfg,
        (peer.qpn, peer.psn, peer.gid),
        cfg.pmtu,
        (1, 1),
        true,
    )
}

/// A GID as text (IPv4-mapped ones as their address).
pub fn gid_text(g: &Gid) -> String {
    match g.to_ipv4() {
        Some(ip) => format!("::ffff:{ip}"),
        None => std::net::Ipv6Addr::from(g.0).to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// perftest

/// perftest's buffer addressing: where message `k` goes in the peer's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cycling {
    pub size: usize,
    pub cycle_buffer: usize,
    pub cache_line: usize,
}

impl Cycling {
    /// Message size rounded up to whole cache lines (at least one line).
    pub fn stride(&self) -> usize {
        if self.size > self.cache_line {
            self.size.next_multiple_of(self.cache_line)
        } else {
            self.cache_line
        }
    }

    /// Offset of message `k` from the buffer's start: messages of at most half the cycle
    /// buffer (and every atomic) step through it a stride at a time and wrap; larger ones all
    /// go to the start.
    pub fn offset(&self, k: u64, atomic: bool) -> usize {
        if !atomic && self.size > self.cycle_buffer / 2 {
            return 0;
        }
        let slots = (self.cycle_buffer / self.stride()).max(1) as u64;
        (k % slots) as usize * self.stride()
    }

    /// Bytes a side's buffer must cover from its advertised address.
    pub fn span(&self) -> usize {
        self.size.max(self.cycle_buffer)
    }
}

/// The perftest flows. Common prologue: version (16 bytes), cycle buffer and cache line
/// (4 bytes each, big-endian), MTU (2 bytes), then the address record (108 bytes), after which
/// both sides move their QPs to RTR (the client to RTS as well). Then, as perftest 4.5-0.17
/// does it:
///
/// * write/read/atomic: a handshake (the "remote" print), another after RTR, the client's test
///   while the server waits in a handshake; then the bandwidth report (client to server and
///   back), a closing handshake and `done` from each side;
/// * send: a handshake after RTR, the "remote" one, the server posts its receives, a handshake
///   that starts the test, the test (the server counts receives), a closing handshake and
///   `done`; no report exchange (each side prints its own).
///
/// Every handshake is one address record each way, the client writing first.
fn perftest<H: NicHardware + Send + 'static>(
    io: &mut Io<'_, H>,
    host: &Host<H>,
    cfg: &SessionConfig,
    report: &mut SessionReport,
) -> Result<()> {
    report.stage = "exchanging versions".into();
    let mine = PerftestVersion::ours();
    let theirs =
        PerftestVersion::parse(&io.xchg("version", &mine.emit()?, PERFTEST_VERSION_LEN)?)?;
    report.peer_version = Some(theirs.0.clone());
    if theirs.number() < PERFTEST_MIN_VERSION {
        return Err(SessionError::Peer(format!(
            "perftest version '{}' is older than {PERFTEST_MIN_VERSION:.2}, which perftest 4.5-0.17 refuses",
            theirs.0
        )));
    }
    // From here on the peer sizes its messages by OUR version (which it received); both
    // versions are at least 5.70, past every size change, so either choice agrees.
    report.stage = "exchanging system data".into();
    let (mut cycle_buffer, mut cache_line) = (OUR_CYCLE_BUFFER, OUR_CACHE_LINE);
    if mine.exchanges_sys_data() {
        let cb = parse_be32(
            "cycle buffer",
            &io.xchg("cycle buffer", &OUR_CYCLE_BUFFER.to_be_bytes(), 4)?,
        )?;
        let cl = parse_be32(
            "cache line size",
            &io.xchg("cache line size", &OUR_CACHE_LINE.to_be_bytes(), 4)?,
        )?;
        if cb > MAX_CYCLE_BUFFER || cl > MAX_CYCLE_BUFFER {
            return Err(SessionError::Peer(format!(
                "it announced a cycle buffer of {cb} bytes and a cache line of {cl}"
            )));
        }
        cycle_buffer = cycle_buffer.max(cb);
        cache_line = cache_line.max(cl).max(1);
    }
    report.stage = "exchanging the MTU".into();
    let mtu_len = mine.mtu_msg_len();
    let my_code = cfg.pmtu.ibv_enum();
    let peer_mtu = MtuMessage::parse(
        &io.xchg("mtu", &MtuMessage(my_code).emit(mtu_len), mtu_len)?,
        mtu_len,
    )?;
    let code = if peer_mtu.is_valid() && my_code > peer_mtu.0 {
        peer_mtu.0
    } else {
        my_code
    };
    let pmtu = Pmtu::from_ibv_enum(code).expect("a valid MTU code");
    report.pmtu = pmtu.bytes();

    // the buffer: the local half first (sources, read and atomic results), then the half the
    // peer is told about (where its writes, reads, atomics and sends land)
    let cyc = Cycling {
        size: cfg.size,
        cycle_buffer: cycle_buffer as usize,
        cache_line: cache_line as usize,
    };
    let half = cyc.span().next_multiple_of(4096);
    let mr = host.buffer(2 * half)?;
    let info = host.device.info();
    let out_reads = if cfg.tool.needs_rd_atomic() {
        info.max_dest_rd_atomic.max(1) as u16
    } else {
        1
    };
    let me = PerftestDest {
        lid: 0,
        out_reads,
        qpn: host.qp.qpn(),
        psn: cfg.psn,
        rkey: mr.rkey(),
        vaddr: mr.addr(half),
        gid: Some(my_gid(cfg)),
        srqn: 0,
    };
    let my_msg = me.emit();
    let len = my_msg.len();

    report.stage = "exchanging addresses".into();
    let peer = PerftestDest::parse(&io.xchg("address", &my_msg, len)?)?;
    report.peer_qpn = Some(peer.qpn);
    report.peer_psn = Some(peer.psn);
    let Some(peer_gid) = peer.gid else {
        return Err(SessionError::Peer("its address record has no GID".into()));
    };
    report.peer_gid = Some(gid_text(&peer_gid));
    check_peer_gid(cfg, &peer_gid, "-x")?;
    report.stage = "connecting the QP".into();
    // the peer's out_reads is its own responder limit: ours as requester cannot exceed it
    // nor our own
    let max_rd_atomic = (peer.out_reads.min(info.max_rd_atomic as u16)).clamp(1, 255) as u8;
    let client = cfg.side == Side::Client;
    connect_qp(
        host,
        cfg,
        (peer.qpn, peer.psn, peer_gid),
        pmtu,
        (max_rd_atomic, out_reads.min(255) as u8),
        client,
    )?;
    let handshake = |io: &mut Io<'_, H>, what: &'static str| -> Result<()> {
        let p = PerftestDest::parse(&io.xchg(what, &my_msg, len)?)?;
        if p.qpn != peer.qpn {
            return Err(SessionError::Peer(format!(
                "{what}: its QPN changed from {:#x} to {:#x}",
                peer.qpn, p.qpn
            )));
        }
        Ok(())
    };

    if cfg.tool == Tool::SendBw {
        report.stage = "handshakes before the test".into();
        handshake(io, "handshake after connect")?;
        handshake(io, "handshake (remote address)")?;
        let mut recv_posted = 0u64;
        if !client {
            // the server's receives, posted before the handshake that starts the test
            let depth = (QUEUE_DEPTH as u64).min(cfg.iters);
            for k in 0..depth {
                post_recv_at(host, &mr, half + cyc.offset(k, false), cfg.size)?;
                recv_posted += 1;
            }
        }
        handshake(io, "handshake before the test")?;
        report.stage = "test".into();
        let start = Instant::now();
        if client {
            run_client(io, host, cfg, &mr, &peer, cyc, half)?;
        } else {
            // count receives and keep the queue fed until every message arrived
            while report.recv_completed < cfg.iters {
                let wcs = host.cq.poll(32).map_err(drv("polling the CQ"))?;
                if wcs.is_empty() {
                    io.clock("waiting for the client's SENDs")?;
                    continue;
                }
                for wc in wcs {
                    check_wc(&wc)?;
                    report.recv_completed += 1;
                    report.bytes += wc.byte_len as u64;
                    if recv_posted < cfg.iters {
                        post_recv_at(host, &mr, half + cyc.offset(recv_posted, false), cfg.size)?;
                        recv_posted += 1;
                    }
                }
            }
            report.recv_posted = recv_posted;
        }
        report.test_seconds = start.elapsed().as_secs_f64();
        if client {
            report.send_posted = cfg.iters;
            report.send_completed = cfg.iters;
            report.bytes = cfg.iters * cfg.size as u64;
        }
    } else {
        report.stage = "handshakes before the test".into();
        handshake(io, "handshake (remote address)")?;
        handshake(io, "handshake after RTR")?;
        let iters_len = mine.report_iters_len();
        if client {
            report.stage = "test".into();
            let start = Instant::now();
            run_client(io, host, cfg, &mr, &peer, cyc, half)?;
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            report.test_seconds = secs;
            report.send_posted = cfg.iters;
            report.send_completed = cfg.iters;
            let size = if cfg.tool.is_atomic() { 8 } else { cfg.size };
            report.bytes = cfg.iters * size as u64;
            report.stage = "handshake after the test".into();
            handshake(io, "handshake after the test")?;
            // MB/s of 2^20 bytes and millions of messages per second, as perftest prints
            // them by default
            let bw = report.bytes as f64 / secs / (1u64 << 20) as f64;
            let sent = BwReport {
                size: size as u64,
                iters: cfg.iters,
                bw_peak: bw,
                bw_avg: bw,
                msg_rate: cfg.iters as f64 / secs / 1e6,
            };
            report.stage = "exchanging reports".into();
            report.report_received = Some(xchg_report(io, &sent, iters_len)?);
            report.report_sent = Some(sent);
        } else {
            report.stage = "waiting for the client's test".into();
            handshake(io, "handshake after the test")?;
            report.stage = "exchanging reports".into();
            // a one-way server has measured nothing: it sends what it has (zeros) and prints
            // the client's
            let sent = BwReport::default();
            report.report_received = Some(xchg_report(io, &sent, iters_len)?);
            report.report_sent = Some(sent);
        }
    }
    report.stage = "closing".into();
    handshake(io, "closing handshake")?;
    io.send("done", &DONE)?;
    report.got_done = wait_done(io);
    report.stage = "finished".into();
    // every operation completed before the closing handshake; this only flushes the link
    linger(io, Duration::from_millis(200));
    Ok(())
}

/// Keep the NIC running for `time` of wall time (less if the link goes away or the deadline
/// comes), then write out what is still queued for the guest.
fn linger<H: NicHardware>(io: &Io<'_, H>, time: Duration) {
    let end = (Instant::now() + time).min(io.deadline);
    while Instant::now() < end {
        let mut p = lock(&io.shared);
        if !p.link_up() {
            break;
        }
        p.run(IDLE_CYCLES);
    }
    lock(&io.shared).drain(Duration::from_secs(1));
}

/// The report's fields, one exchange each.
fn xchg_report<H: NicHardware>(
    io: &mut Io<'_, H>,
    mine: &BwReport,
    iters_len: usize,
) -> Result<BwReport> {
    let fields = mine.emit_fields(iters_len);
    let mut got = Vec::with_capacity(BW_REPORT_FIELDS);
    for (i, f) in fields.iter().enumerate() {
        got.push(io.xchg("report field", f, BwReport::field_len(i, iters_len))?);
    }
    Ok(BwReport::parse_fields(&got, iters_len)?)
}

/// Wait a little for the peer's `done` (it sends one but nothing requires it to arrive).
fn wait_done<H: NicHardware>(io: &mut Io<'_, H>) -> bool {
    let deadline = (Instant::now() + DONE_WAIT).min(io.deadline);
    let saved = std::mem::replace(&mut io.deadline, deadline);
    let r = io.recv("done", DONE.len());
    io.deadline = saved;
    matches!(r, Ok(d) if d == DONE)
}

fn post_recv_at<H: NicHardware + Send + 'static>(
    host: &Host<H>,
    mr: &MemoryRegion,
    offset: usize,
    size: usize,
) -> Result<()> {
    host.qp
        .post_recv(&[RecvWr::new(0, sges(mr, offset, size)?)])
        .map_err(drv("posting a receive"))
}

/// The client's test: `iters` operations of the tool's kind, at most [`QUEUE_DEPTH`]
/// outstanding, each signalled (signalling only changes what the local CQ sees, not the wire).
/// Targets follow perftest's cycling through the peer's buffer from its advertised address;
/// fetch-adds add 1, compare-swaps compare with 0 and swap in 0, as perftest's do.
fn run_client<H: NicHardware + Send + 'static>(
    io: &mut Io<'_, H>,
    host: &Host<H>,
    cfg: &SessionConfig,
    mr: &MemoryRegion,
    peer: &PerftestDest,
    cyc: Cycling,
    half: usize,
) -> Result<()> {
    let atomic = cfg.tool.is_atomic();
    let wr = |k: u64| -> Result<SendWr> {
        let remote = Remote {
            va: peer.vaddr + cyc.offset(k, atomic) as u64,
            rkey: peer.rkey,
        };
        let local = cyc.offset(k, atomic).min(half.saturating_sub(cfg.size));
        Ok(match cfg.tool {
            Tool::WriteBw => SendWr::write(k, remote, sges(mr, 0, cfg.size)?),
            Tool::ReadBw => SendWr::read(k, remote, sges(mr, local, cfg.size)?),
            Tool::SendBw => SendWr::send(k, sges(mr, 0, cfg.size)?),
            Tool::AtomicFadd => {
                let result = mr.sge(local, 8).map_err(drv("building an SGE"))?;
                SendWr::fetch_add(k, remote, 1, result)
            }
            Tool::AtomicCas => {
                let result = mr.sge(local, 8).map_err(drv("building an SGE"))?;
                SendWr::cmp_swap(k, remote, 0, 0, result)
            }
            Tool::RcPingpong => unreachable!("not a perftest tool"),
        }
        .signaled())
    };
    let (mut posted, mut done) = (0u64, 0u64);
    while done < cfg.iters {
        let room = (QUEUE_DEPTH as u64).saturating_sub(posted - done);
        let batch = room.min(cfg.iters - posted);
        if batch > 0 {
            let wrs = (posted..posted + batch)
                .map(wr)
                .collect::<Result<Vec<_>>>()?;
            host.qp
                .post_send(&wrs)
                .map_err(drv("posting work requests"))?;
            posted += batch;
        }
        let wcs = host.cq.poll(64).map_err(drv("polling the CQ"))?;
        if wcs.is_empty() {
            io.clock("waiting for the test's completions")?;
            continue;
        }
        for wc in wcs {
            check_wc(&wc)?;
            done += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_round_trip() {
        for name in Tool::NAMES.split(", ") {
            assert_eq!(Tool::parse(name).unwrap().name(), name);
        }
        assert_eq!(Tool::parse("write"), None);
    }

    #[test]
    fn perftest_cycling() {
        let c = Cycling {
            size: 100,
            cycle_buffer: 4096,
            cache_line: 64,
        };
        assert_eq!(c.stride(), 128);
        assert_eq!(c.offset(0, false), 0);
        assert_eq!(c.offset(1, false), 128);
        assert_eq!(c.offset(32, false), 0);
        assert_eq!(c.span(), 4096);
        let big = Cycling { size: 65536, ..c };
        assert_eq!(big.offset(7, false), 0);
        assert_eq!(big.span(), 65536);
        let atomic = Cycling { size: 8, ..c };
        assert_eq!(atomic.stride(), 64);
        assert_eq!(atomic.offset(65, true), 64);
        // every target stays inside the span
        for size in [1usize, 63, 64, 65, 2048, 2049, 4096, 10000] {
            let c = Cycling { size, ..c };
            for k in 0..200 {
                assert!(c.offset(k, false) + size <= c.span(), "size {size} k {k}");
            }
        }
    }
}
