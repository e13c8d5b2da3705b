//! `ferroce verbs`: two simulated NICs back to back (the cycle-accurate hardware, [`NicPair`]),
//! driven only through the driver's verbs API, each on its own simulated host.
//!
//! Both hosts open their NIC, allocate a PD, a CQ and one data buffer registered as an MR, and
//! connect `--qps` RC QP pairs (RESET -> INIT -> RTR -> RTS, random initial PSNs from the seed).
//! Messages alternate direction (even: host A sends, odd: host B) and go round robin over the QP
//! pairs; in each direction they run through every size, then the next operation (cycling),
//! with random bytes from
//! the seed, and a random scatter/gather list (1 to 4 SGEs) over its source slot. Every work
//! request is signaled; every completion is checked (status, opcode, QPN, peer QPN, wr_id in
//! posting order per QP) and the message's bytes are compared at the receiver when its
//! completion arrives, before its slots are reused.
//!
//! Operations: `write`, `write_imm`, `send`, `send_imm`. For the last three the receiver posts
//! a receive WQE before the message is sent: for a SEND a random scatter list (1 to 4 SGEs)
//! over the destination slot, a little longer than the message (the bytes past the message,
//! guard bytes, must stay untouched), for a WRITE with immediate no SGE. The receive completion
//! is checked too (opcode, byte_len, imm_data, QPNs, wr_id in posting order) and the bytes
//! are compared when it arrives.
//!
//! `atomic_fadd` and `atomic_cas` (8 bytes whatever the sizes say) work on each host's atomic
//! area after its slots: every fetch-add of either direction goes to the peer's one counter
//! (from all QPs at once, with a random add), each QP's compare-swaps to its own word at the
//! peer (half of them matching the word's current value, half not). The original value lands
//! in the source slot (guard bytes after it). Checks: a compare-swap returns exactly what its
//! word held (only its QP changes it, in order); the fetch-adds' original values on a host,
//! sorted, form one serial order (each equals the sum of the adds before it), and the counter
//! holds the sum of all; every compare-swap word ends as its QP's swaps left it.
//!
//! `read` reads the message from the peer's destination slot into the sender's source slot (a
//! random scatter list; random bytes there before, guard bytes after); the bytes are compared
//! at the READ's completion.
//!
//! The link can be faulty ([`VerbsLinkArgs`]: loss, duplication, reordering, bit errors and
//! delay on both directions, from the seed), and the QPs' transport attributes (local ACK
//! timeout, retry counts) can be chosen; the report then says what the link did and what the
//! NICs did about it (retransmitted packets, NAKs, ACK timeouts, QPs out of retries). The checks
//! stay the same: every message must still arrive intact, exactly once, in order.
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use ferroce_driver::backend::Backend;
use ferroce_driver::{
    CompletionQueue, Device, MemoryRegion, ProtectionDomain, QpCapabilities, QpInitAttr, QueuePair,
    RtrAttr, RtsAttr,
};
use ferroce_driver::{DcqcnParams, QpRate};
use ferroce_driver::{RecvWr, Remote, SendWr, WcOpcode, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::config::{Gid, GidEntry, PfcConfig, TrafficConfig};
use ferroce_proto::host::qp::{AccessFlags, AddressVector, Pmtu};
use ferroce_proto::host::regs;
use ferroce_proto::host::wqe::Sge;
use ferroce_proto::pcap::PcapWriter;
use serde_json::json;

use super::CliError;
use crate::host::{HostMemory, ShellConfig, SimBackend};
use crate::link_faults::{LinkFaults, LinkStats, REORDER_HOLD_LIMIT};
use crate::nic_pair::{lock, NicPair, PairSide, SharedPair, PAIR_CLOCK_HZ};
use crate::nic_system::NicHardware;
use crate::nic_verilated::VerilatedNic;
use crate::vcd::{VcdBench, VcdWindow};
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Bench;

/// The operations `--ops` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerbOp {
    Write,
    WriteImm,
    Send,
    SendImm,
    AtomicCas,
    AtomicFadd,
    Read,
}

impl VerbOp {
    /// Parse one `--ops` name; an unknown name is an error that lists the operations.
    pub fn parse(name: &str) -> Result<VerbOp, CliError> {
        match name {
            "write" => Ok(VerbOp::Write),
            "write_imm" => Ok(VerbOp::WriteImm),
            "send" => Ok(VerbOp::Send),
            "send_imm" => Ok(VerbOp::SendImm),
            "atomic_cas" => Ok(VerbOp::AtomicCas),
            "atomic_fadd" => Ok(VerbOp::AtomicFadd),
            "read" => Ok(VerbOp::Read),
            _ => Err(CliError(format!(
                "unknown operation '{name}' (operations: write, write_imm, send, send_imm, read, atomic_cas, atomic_fadd)"
            ))),
        }
    }

    /// The message consumes a receive WQE at the receiver (and completes there).
    pub fn receives(self) -> bool {
        matches!(self, VerbOp::WriteImm | VerbOp::Send | VerbOp::SendImm)
    }

    /// An 8-byte atomic on the peer's atomic area (the message sizes do not apply).
    pub fn is_atomic(self) -> bool {
        matches!(self, VerbOp::AtomicCas | VerbOp::AtomicFadd)
    }

    /// It carries immediate data.
    pub fn has_imm(self) -> bool {
        matches!(self, VerbOp::WriteImm | VerbOp::SendImm)
    }
}

/// Parse a size: bytes, or with a K / M suffix (binary: 64K = 65536).
pub fn parse_size(s: &str) -> Result<usize, CliError> {
    let t = s.trim();
    let (num, mul) = match t.chars().last() {
        Some('K') | Some('k') => (&t[..t.len() - 1], 1024),
        Some('M') | Some('m') => (&t[..t.len() - 1], 1024 * 1024),
        _ => (t, 1),
    };
    let n: usize = num.parse().map_err(|_| {
        CliError(format!(
            "size '{s}' is not a number of bytes (e.g. 0, 1023, 64K)"
        ))
    })?;
    let v = n
        .checked_mul(mul)
        .filter(|v| *v <= MAX_SIZE)
        .ok_or_else(|| CliError(format!("size '{s}' is larger than {MAX_SIZE} bytes")))?;
    Ok(v)
}

/// Largest message `verbs` runs (each QP keeps [`DEPTH`] slots of the largest size per host).
pub const MAX_SIZE: usize = 16 << 20;
/// Work requests kept posted per QP (twice the NIC's send window, `ferroce_hdl::req::WINDOW`,
/// so that a QP's window stays full while its completions are polled).
pub const DEPTH: usize = 32;
/// Most QP pairs.
pub const MAX_QPS: usize = 64;
/// Written after each destination range before the message is posted, checked after.
const GUARD: [u8; 16] = *b"ferroce-guard-16";
/// Cycles without a completion before the run is declared stuck (at least: longer when the
/// transport's timeouts or the link's delays need it, see [`watchdog_cycles`]).
const WATCHDOG: u64 = 4_000_000;

#[derive(Clone, Debug)]
pub struct VerbsArgs {
    pub ops: Vec<String>,
    pub sizes: Vec<String>,
    pub qps: usize,
    pub messages: usize,
    pub seed: u64,
    pub pmtu: usize,
    pub pcap: Option<PathBuf>,
    pub json: bool,
    /// Random DMA latency and back-pressure (the shell's stressed timing, from the seed).
    pub dma_jitter: bool,
    /// Both NICs on IPv6 ([`IPS6`]: GID 0 and every address vector), RoCEv2 over IPv6.
    pub ipv6: bool,
    /// Both NICs tag every RoCE frame with this 802.1Q VLAN ID (`TrafficConfig::vlan`; PCP
    /// from `CFG_PFC`: 3 for data and ACKs, 6 for CNPs after reset); `None`: untagged.
    pub vlan: Option<u16>,
}

impl Default for VerbsArgs {
    /// The command line's defaults.
    fn default() -> Self {
        VerbsArgs {
            ops: vec!["write".into()],
            sizes: ["0", "1", "1023", "1024", "1025", "65536"]
                .map(String::from)
                .to_vec(),
            qps: 1,
            messages: 12,
            seed: 1,
            pmtu: 1024,
            pcap: None,
            json: false,
            dma_jitter: false,
            ipv6: false,
            vlan: None,
        }
    }
}

/// The link's faults (both directions, seeded from [`VerbsArgs::seed`]) and the QPs' transport
/// attributes for their RTS transition.
#[derive(Clone, Debug, PartialEq)]
pub struct VerbsLinkArgs {
    /// Fraction of frames lost.
    pub loss: f64,
    /// Fraction of frames delivered twice.
    pub dup: f64,
    /// Fraction of frames swapped with the next one of their direction.
    pub reorder: f64,
    /// Fraction of frames with one bit flipped.
    pub corrupt: f64,
    /// Largest random extra delay of a frame, in cycles.
    pub delay: u64,
    /// Fraction of ECN-capable frames the link marks CE (a congested switch queue).
    pub ecn_mark: f64,
    /// Static rate limit of every QP of both hosts in Mb/s of RoCE payload
    /// (`Device::set_qp_rate_limit`, the NIC's rate shaper); 0 = none.
    pub rate_limit: u32,
    /// DCQCN on both hosts: the reaction point (`CFG_CONTROL.DCQCN_RP_ENABLE` and every QP's
    /// `CC_QP_DCQCN`) besides the notification point, which is always on.
    pub dcqcn: bool,
    /// Local ACK timeout code (4.096 us x 2^timeout; 0 = infinite); `None`: chosen from the
    /// run's QPs and sizes ([`auto_timeout`]).
    pub timeout: Option<u8>,
    /// Retries after an ACK timeout or a NAK sequence error before the QP fails (0..=7).
    pub retry_cnt: u8,
    /// Retries after an RNR NAK (0..=7, 7 = infinite).
    pub rnr_retry: u8,
    /// Packets a send job sends of its message while other QPs wait for their turn
    /// (`Device::set_send_quantum`, `CFG_SQ_QUANTUM`); 0 = a whole message per turn; `None`:
    /// the NIC's reset value (16).
    pub send_quantum: Option<u8>,
}

/// Smallest local ACK timeout code [`auto_timeout`] picks: 4.096 us x 2^6 = 262 us, 65 536
/// cycles at 250 MHz, far above the round trip of two back-to-back NICs (under a thousand cycles
/// for a lone message) and short enough that a lost frame costs little simulation time (the
/// driver's default of 14, 67 ms, is 16.8 M cycles).
pub const MIN_AUTO_TIMEOUT: u8 = 6;

/// The local ACK timeout code for a run of `qps` QP pairs with messages of at most `max_size`
/// bytes: the smallest code from [`MIN_AUTO_TIMEOUT`] whose timeout covers moving 3 x `qps` x
/// `max_size` bytes over the link at 8 bytes a cycle, plus 16 384 cycles.
///
/// The link does not hold frames back, so a receiving NIC's input queue can hold every message
/// in flight towards it (one per QP), and an ACK can wait behind that in both directions. With
/// 16 QPs of 64 KiB messages the slowest ACK measured came about 110 000 cycles after the last
/// packet of its message (DMA jitter on): a timeout shorter than that times out messages that
/// were never lost. This gives 6 for 1 QP of 64 KiB, 9 (524 288 cycles) for 16.
pub fn auto_timeout(qps: usize, max_size: usize) -> u8 {
    let need = (3 * qps as u128 * max_size as u128).div_ceil(8) + 16_384;
    (MIN_AUTO_TIMEOUT..=31)
        .find(|t| ack_timeout_cycles(*t).is_some_and(|c| c as u128 >= need))
        .unwrap_or(31)
}

impl Default for VerbsLinkArgs {
    /// A perfect link; the timeout chosen from the run ([`auto_timeout`]), 7 retries, infinite
    /// RNR retries.
    fn default() -> Self {
        VerbsLinkArgs {
            loss: 0.0,
            dup: 0.0,
            reorder: 0.0,
            corrupt: 0.0,
            delay: 0,
            ecn_mark: 0.0,
            rate_limit: 0,
            dcqcn: false,
            timeout: None,
            retry_cnt: 7,
            rnr_retry: 7,
            send_quantum: None,
        }
    }
}

impl VerbsLinkArgs {
    /// The link's faults for a run with this seed.
    pub fn faults(&self, seed: u64) -> LinkFaults {
        LinkFaults {
            loss: self.loss,
            dup: self.dup,
            reorder: self.reorder,
            corrupt: self.corrupt,
            delay: self.delay,
            ecn_mark: self.ecn_mark,
            seed,
        }
    }

    /// Any fault on the link.
    pub fn any_fault(&self) -> bool {
        !self.faults(0).is_perfect()
    }

    /// Every value in its range, or an error naming the option.
    pub fn validate(&self) -> Result<(), CliError> {
        for (name, rate) in [
            ("--loss", self.loss),
            ("--dup", self.dup),
            ("--reorder", self.reorder),
            ("--corrupt", self.corrupt),
            ("--ecn-mark", self.ecn_mark),
        ] {
            check_fraction(name, rate)?;
        }
        if let Some(t) = self.timeout {
            check_at_most("--timeout", t, 31)?;
        }
        check_at_most("--retry-cnt", self.retry_cnt, 7)?;
        check_at_most("--rnr-retry", self.rnr_retry, 7)?;
        Ok(())
    }
}

/// `--vlan`'s value parser: an 802.1Q VLAN ID, 0 ..= 4094 (4095 is reserved, IEEE 802.1Q 9.6).
pub fn vlan_id(s: &str) -> Result<u16, String> {
    match s.parse::<u16>() {
        Ok(v) if v < 0xFFF => Ok(v),
        _ => Err(format!("'{s}' is not a VLAN ID (0 ..= 4094)")),
    }
}

fn check_fraction(name: &str, rate: f64) -> Result<f64, CliError> {
    if (0.0..=1.0).contains(&rate) {
        Ok(rate)
    } else {
        Err(CliError(format!(
            "{name} must be a fraction between 0 and 1, got {rate}"
        )))
    }
}

fn check_at_most(name: &str, v: u8, max: u8) -> Result<u8, CliError> {
    if v <= max {
        Ok(v)
    } else {
        Err(CliError(format!("{name} must be 0..={max}, got {v}")))
    }
}

/// Parse an `on|off` option (`name` as on the command line).
pub fn on_off(name: &'static str) -> impl Fn(&str) -> Result<bool, String> + Clone {
    move |v| match v {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{name} takes on or off, not '{v}'")),
    }
}

/// Parse a rate option (`name` as on the command line): a fraction between 0 and 1.
pub fn parse_fraction(name: &str, s: &str) -> Result<f64, CliError> {
    let v: f64 = s.trim().parse().map_err(|_| {
        CliError(format!(
            "{name} must be a fraction between 0 and 1, got '{s}'"
        ))
    })?;
    check_fraction(name, v)
}

/// Parse a small integer option (`name` as on the command line) in 0..=max.
pub fn parse_at_most(name: &str, s: &str, max: u8) -> Result<u8, CliError> {
    match s.trim().parse::<u64>() {
        Ok(v) if v <= max as u64 => Ok(v as u8),
        Ok(v) => Err(CliError(format!("{name} must be 0..={max}, got {v}"))),
        Err(_) => Err(CliError(format!("{name} must be 0..={max}, got '{s}'"))),
    }
}

/// [`parse_fraction`] for option `name`, as a command-line value parser.
pub fn fraction(
    name: &'static str,
) -> impl Fn(&str) -> Result<f64, CliError> + Clone + Send + Sync + 'static {
    move |s| parse_fraction(name, s)
}

/// [`parse_at_most`] for option `name`, as a command-line value parser.
pub fn at_most(
    name: &'static str,
    max: u8,
) -> impl Fn(&str) -> Result<u8, CliError> + Clone + Send + Sync + 'static {
    move |s| parse_at_most(name, s, max)
}

/// Cycles of one local ACK timeout (code `timeout`, 4.096 us x 2^timeout) at the simulated
/// clock; `None` for 0 (no timeout).
pub fn ack_timeout_cycles(timeout: u8) -> Option<u64> {
    ferroce_proto::flow::ack_timeout_ns(timeout)
        .map(|ns| (ns as u128 * PAIR_CLOCK_HZ as u128).div_ceil(1_000_000_000) as u64)
}

/// Cycles without a completion before a run is declared stuck: [`WATCHDOG`], or twice the time
/// a requester may spend on timeouts for one message (`retry_cnt + 1` timeouts of code
/// `timeout`) if that is longer, plus what the link's delay and reordering can add.
pub fn watchdog_cycles(link: &VerbsLinkArgs, timeout: u8) -> u64 {
    let retries = ack_timeout_cycles(timeout)
        .map_or(0, |t| t.saturating_mul(2 * (link.retry_cnt as u64 + 1)));
    let hold = if link.reorder > 0.0 {
        REORDER_HOLD_LIMIT
    } else {
        0
    };
    WATCHDOG
        .max(retries)
        .saturating_add(link.delay.saturating_mul(4))
        .saturating_add(hold)
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct VerbsReport {
    pub messages: u64,
    pub verified: u64,
    pub failed: u64,
    pub completions: u64,
    pub cycles: u64,
    /// The rate an unlimited QP sends at in Mb/s: its link's (a fabric's host links) or the
    /// NIC's line rate (`ID_LINE_RATE`).
    pub line_mbps: u32,
    pub bytes: u64,
    pub frames: [u64; 2],
    pub packets: [u64; 2],
    /// Requester counters of each side (NAKs received, messages sent again).
    pub naks: [u64; 2],
    pub resent: [u64; 2],
    /// The NICs' counters: request packets retransmitted, local ACK timer expiries, QPs failed
    /// with their retries exhausted.
    pub retransmitted: [u64; 2],
    pub timeouts: [u64; 2],
    pub retry_exceeded: [u64; 2],
    /// The NICs' congestion counters: RoCE packets received with ECN CE
    /// (`np_ecn_marked_roce_packets`), CNPs sent (`np_cnp_sent`), CNPs received.
    pub ecn_ce: [u64; 2],
    pub cnp_sent: [u64; 2],
    pub cnp_received: [u64; 2],
    /// PFC (IEEE 802.1Qbb): frames received naming the RoCE or CNP priority
    /// (`CNT_PFC_PAUSE`), cycles the RoCE priority was paused (`CNT_PFC_PAUSED_CYCLES`).
    pub pfc_pause: [u64; 2],
    pub pfc_paused_cycles: [u64; 2],
    /// What each direction of the link did (0: A to B, 1: B to A).
    pub link: [LinkStats; 2],
    /// The QPs' local ACK timeout code (as given, or chosen by [`auto_timeout`]).
    pub timeout: u8,
    pub errors: Vec<String>,
    /// Every message completed at its sender, in completion order.
    pub records: Vec<MessageRecord>,
    /// The QPNs of each host's QPs (index: QP pair).
    pub qpns: [Vec<u32>; 2],
    /// Every host's counters (the arrays above hold hosts A and B only).
    pub per_host: Vec<HostCounts>,
}

/// One host's NIC counters at the end of a run.
#[derive(Clone, Debug, Default)]
pub struct HostCounts {
    pub frames: u64,
    pub packets: u64,
    pub naks: u64,
    pub resent: u64,
    pub retransmitted: u64,
    /// Tail-loss probes its requester sent (`CNT_TLP_PROBE`; their packets also count in
    /// `retransmitted`).
    pub probes: u64,
    pub timeouts: u64,
    pub retry_exceeded: u64,
    pub ecn_ce: u64,
    pub cnp_sent: u64,
    pub cnp_received: u64,
    /// PFC pause frames received for a priority it uses, and cycles its RoCE class was paused.
    pub pfc_pause: u64,
    pub pfc_paused_cycles: u64,
    /// DCQCN reaction point: rate decreases made, CNPs that changed nothing because DCQCN was
    /// off for the QP (`CNT_RP_RATE_CUTS`, `CNT_RP_CNP_DISABLED`).
    pub rp_rate_cuts: u64,
    pub rp_cnp_disabled: u64,
    /// Frames its receive FIFO dropped for lack of room (`CNT_RX_DROP_NO_ROOM`), PFC XOFF and
    /// XON frames it sent (`CNT_PFC_XOFF_SENT`, `CNT_PFC_XON_SENT`).
    pub rx_no_room: u64,
    pub pfc_xoff_sent: u64,
    pub pfc_xon_sent: u64,
    /// Responses its responder parked while PFC paused it (`CNT_RESP_ACK_PARKED`).
    pub ack_parked: u64,
    /// Send jobs its requester set aside while PFC paused it (`CNT_REQ_PFC_YIELD`).
    pub req_pfc_yield: u64,
    /// Send jobs its requester set aside while the shaper held their QP
    /// (`CNT_REQ_SHAPER_YIELD`).
    pub req_shaper_yield: u64,
    /// Its PFC counters per priority (frames received and sent, XOFF / XON, paused cycles).
    pub pfc_prio: ferroce_driver::PfcPriorityCounters,
    /// Its QPs' QPNs.
    pub qpns: Vec<u32>,
    /// Per QP, its rate (`CC_QP_RATE`, [`Device::qp_rate`]) sampled every
    /// [`RATE_SAMPLE_CYCLES`] while DCQCN or a rate limit is on: (cycle, as the records', Mb/s,
    /// an unlimited QP at the line rate). The last sample is the one at the end.
    pub rate_samples: Vec<Vec<(u64, u32)>>,
    /// Per QP, its rate at the end of the run.
    pub final_rate: Vec<QpRate>,
    /// What its NIC's ID_CAPS says it has: PFC pauses honoured on transmit, the DCQCN
    /// reaction point, the notification point.
    pub has_pfc: bool,
    /// PFC switched on in its NIC (`CFG_CONTROL.PFC_ENABLE` at the end of the run).
    pub pfc_on: bool,
    pub has_dcqcn_rp: bool,
    pub has_dcqcn_np: bool,
}

/// One message as its sender's completion saw it.
#[derive(Clone, Debug)]
pub struct MessageRecord {
    pub index: u64,
    pub op: VerbOp,
    /// The sending host (0: A) and the QP pair.
    pub side: usize,
    pub qp: usize,
    pub bytes: usize,
    /// Cycles at which it was posted and its completion was polled.
    pub posted: u64,
    pub completed: u64,
    /// Its completion and its bytes checked out.
    pub ok: bool,
}

/// What a run does beyond [`VerbsArgs`]: the hosts' addresses, a network in place of the
/// back-to-back link, one-way traffic, a progress callback.
pub struct RunHooks {
    /// The hosts' MAC and IPv4 addresses: two for a pair (A, B); with more, every host but
    /// the last is a sender whose QPs pair with the last host's, the hub ([`peer_of`]: an
    /// incast), and the NICs need a medium.
    pub addrs: Vec<([u8; 6], [u8; 4])>,
    /// Attached after the QPs are connected ([`NicPair::set_medium`]).
    pub medium: Option<Box<dyn crate::nic_pair::PairMedium>>,
    /// Host A posts every message (the default alternates A and B).
    pub one_way: bool,
    /// Each QP's UDP source port from its flow label ([`connect_qps`]).
    pub flow_sports: bool,
    /// Called about every `progress_every` cycles with the cycles so far and the report.
    pub progress: Option<Box<dyn FnMut(u64, &VerbsReport) + Send>>,
    pub progress_every: u64,
    /// Register bits set after the QPs are connected, as (side, offset, bits OR'ed into the
    /// register's value): for tests of hardware the driver does not enable (its `ID_CAPS` bit
    /// not claimed yet), e.g. `CFG_CONTROL.PFC_ENABLE`.
    pub set_bits: Vec<(usize, u32, u32)>,
    /// Called on every host's device once it is open and enabled, before its QPs exist (e.g.
    /// to switch a feature on through the driver); an error ends the run.
    pub setup: Option<fn(&Device) -> Result<(), CliError>>,
    /// DMA shell timing per host, as (side, timing), applied after the QPs are connected (e.g.
    /// a host whose DMA writes are slower than the link).
    pub shells: Vec<(usize, ShellConfig)>,
    /// The rate of every NIC's link in Mb/s when the medium runs it slower than the NIC's
    /// line rate (a fabric's host links), told to each NIC before traffic starts as a board's
    /// driver would at link-up ([`tell_link_rate`]); `None` leaves the reset values (a link at
    /// the NIC's `ID_LINE_RATE`).
    pub link_mbps: Option<u32>,
    /// The NICs' DCQCN parameters, written after the link rate (its `rpg_max_rate` capped at
    /// `link_mbps`); `None` keeps the reset values (mlx5's defaults).
    pub dcqcn_params: Option<DcqcnParams>,
}

impl Default for RunHooks {
    fn default() -> Self {
        RunHooks {
            addrs: vec![(MACS[0], IPS[0]), (MACS[1], IPS[1])],
            medium: None,
            one_way: false,
            flow_sports: false,
            progress: None,
            progress_every: u64::MAX,
            set_bits: Vec::new(),
            shells: Vec::new(),
            setup: None,
            link_mbps: None,
            dcqcn_params: None,
        }
    }
}

/// One message of a [`Plan`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedMessage {
    /// The host that posts it (0: A, 1: B).
    pub side: usize,
    pub qp: usize,
    pub op: VerbOp,
    /// Bytes (an atomic moves 8 whatever this says).
    pub size: usize,
    /// Not posted before this many cycles from the start of the traffic.
    pub not_before: u64,
}

/// The messages of a run given one by one (a scenario file's workloads) instead of the round
/// robin of [`VerbsArgs`]'s operations, sizes and message count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Posted in this order (so sorted by `not_before`).
    pub messages: Vec<PlannedMessage>,
    /// The run stops this many cycles after the start of the traffic; messages not completed
    /// by then count as failed.
    pub deadline: Option<u64>,
}

fn cli<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> CliError + '_ {
    move |e| CliError(format!("{what}: {e}"))
}

/// One host: its NIC's driver objects (one PD, one CQ for sends and receives, one data buffer
/// registered with LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ and REMOTE_ATOMIC, the QPs).
pub struct Host<H: NicHardware + Send + 'static> {
    pub backend: Arc<SimBackend<PairSide<H>>>,
    pub device: Device,
    pub pd: ProtectionDomain,
    pub cq: CompletionQueue,
    pub mr: MemoryRegion,
    pub qps: Vec<QueuePair>,
    /// Offset in `mr` of the atomic area: the fetch-add counter at +0, QP q's compare-swap
    /// word at +64 + 8q (zero at the start; only atomics touch them).
    pub atomic_area: usize,
    /// The host's MAC and IPv4 address (its GID 0 unless the pair runs over IPv6).
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// The host's GID 0 (its IPv4-mapped or IPv6 address): the peer's address vectors use it.
    pub gid: Gid,
}

/// A message posted and not completed yet (at the sender, or at the receiver).
struct InFlight {
    index: u64,
    /// Cycle at which it was posted.
    posted: u64,
    wr_id: u64,
    op: VerbOp,
    imm: u32,
    dst_offset: usize,
    data: Vec<u8>,
    /// An atomic: the add value (fetch-add), or the original value the compare-swap must
    /// return (the QP's word changes only through its own compare-swaps, in order).
    atomic: u64,
}

/// Where QP `q` of host `side` goes, of `n` hosts whose senders have `qps` QPs each: host
/// `n - 1` is the hub and holds `(n - 1) x qps` QPs, QP `s x qps + j` of the hub pairs with QP
/// `j` of sender `s`. With two hosts that is QP i of A with QP i of B, both ways.
pub fn peer_of(n: usize, qps: usize, side: usize, q: usize) -> (usize, usize) {
    let hub = n - 1;
    if side < hub {
        (hub, side * qps + q)
    } else {
        (q / qps, q % qps)
    }
}

/// The QPs host `side` of `n` holds when each sender has `qps` ([`peer_of`]).
pub fn qps_of(n: usize, qps: usize, side: usize) -> usize {
    if side + 1 == n {
        (n - 1) * qps
    } else {
        qps
    }
}

/// A host's name in messages: A, B, C, ... (by its side).
pub fn host_name(side: usize) -> String {
    if side < 26 {
        char::from(b'A' + side as u8).to_string()
    } else {
        format!("H{side}")
    }
}

/// The two hosts' MAC and IPv4 addresses.
pub const MACS: [[u8; 6]; 2] = [[0x02, 0xfe, 0, 0, 0, 0x0a], [0x02, 0xfe, 0, 0, 0, 0x0b]];
pub const IPS: [[u8; 4]; 2] = [[10, 0, 0, 1], [10, 0, 0, 2]];
/// Their IPv6 addresses with `--ipv6` (2001:db8::1 and ::2, the documentation prefix of RFC 3849).
pub const IPS6: [[u8; 16]; 2] = [
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
];

fn open_host<H: NicHardware + Send + 'static>(
    pair: &SharedPair<H>,
    side: usize,
    memory: crate::host::SharedMemory,
    slot: usize,
    qps: usize,
    (mac, ip): ([u8; 6], [u8; 4]),
    ipv6: bool,
    setup: Option<fn(&Device) -> Result<(), CliError>>,
) -> Result<Host<H>, CliError> {
    let backend = Arc::new(SimBackend::new(
        PairSide {
            pair: pair.clone(),
            side,
        },
        memory,
    ));
    let dynb: Arc<dyn Backend> = backend.clone();
    let host = host_name(side);
    let device = Device::open(dynb).map_err(cli(&format!("host {host}: opening the NIC")))?;
    device.set_mac(mac);
    let (entry, gid, family) = if ipv6 && side < 2 {
        (
            GidEntry::ipv6(IPS6[side].into()),
            Gid(IPS6[side]),
            regs::cfg_control::IPV6_ENABLE,
        )
    } else {
        (GidEntry::ipv4(ip.into()), Gid::from_ipv4(ip.into()), 0)
    };
    device.set_gid(0, &entry).map_err(cli("GID 0"))?;
    // the DCQCN notification point when the NIC has one (CNPs for CE-marked packets, as a
    // ConnectX does by default)
    let np = if device.info().has(regs::caps::DCQCN_NP) {
        regs::cfg_control::DCQCN_NP_ENABLE
    } else {
        0
    };
    device
        .set_control(regs::cfg_control::RX_ENABLE | regs::cfg_control::TX_ENABLE | family | np)
        .map_err(cli("CFG_CONTROL"))?;
    if let Some(f) = setup {
        f(&device)?;
    }
    let pd = device.alloc_pd().map_err(cli("allocating a PD"))?;
    let cq = device
        .create_cq((2 * qps * DEPTH) as u32, 0)
        .map_err(cli("creating the CQ"))?;
    // per QP: DEPTH source slots then DEPTH destination slots
    // and the atomic area after them
    let atomic_area = qps * DEPTH * 2 * slot;
    let len = atomic_area + 4096;
    let buf = Arc::new(
        device
            .alloc_dma(len, 4096)
            .map_err(cli(&format!("host {host}: {len} bytes of data buffer")))?,
    );
    let mr = pd
        .register(
            buf,
            AccessFlags::LOCAL_WRITE
                | AccessFlags::REMOTE_WRITE
                | AccessFlags::REMOTE_READ
                | AccessFlags::REMOTE_ATOMIC,
        )
        .map_err(cli("registering the data buffer"))?;
    let mut list = Vec::new();
    for _ in 0..qps {
        let qp = pd
            .create_qp(&QpInitAttr {
                send_cq: &cq,
                recv_cq: &cq,
                cap: QpCapabilities {
                    max_send_wr: DEPTH as u32,
                    max_send_sge: 4,
                    max_recv_wr: DEPTH as u32,
                    max_recv_sge: 4,
                    ..QpCapabilities::default()
                },
                sq_sig_all: false,
            })
            .map_err(cli("creating a QP"))?;
        list.push(qp);
    }
    Ok(Host {
        backend,
        device,
        pd,
        cq,
        mr,
        qps: list,
        atomic_area,
        mac,
        ip,
        gid,
    })
}

/// Take every QP pair RESET -> INIT -> RTR -> RTS (QP i of host A with QP i of host B), with
/// random initial PSNs and the driver's default transport attributes ([`RtsAttr::default`]).
pub fn connect<H: NicHardware + Send + 'static>(
    hosts: &[Host<H>; 2],
    pmtu: Pmtu,
    rng: &mut Rng,
) -> Result<(), CliError> {
    connect_with(hosts, pmtu, rng, &RtsAttr::default())
}

/// [`connect`] with these transport attributes for RTS (`rts.sq_psn` is ignored: each QP gets
/// its random initial PSN).
pub fn connect_with<H: NicHardware + Send + 'static>(
    hosts: &[Host<H>; 2],
    pmtu: Pmtu,
    rng: &mut Rng,
    rts: &RtsAttr,
) -> Result<(), CliError> {
    connect_qps(hosts, pmtu, rng, rts, false)
}

/// [`connect_with`]; with `flow_sports` each QP's address vector carries the UDP source port
/// of its flow label, `udp_source_port(lqpn, rqpn, calc_flow_label(lqpn, rqpn))` (IBTA Vol 1
/// Annex A17: the source port is the flow's entropy for ECMP), as Linux's verbs library sets
/// it, instead of 0 (the NIC's CFG_UDP_SPORT policy, one port for every QP).
///
/// With more than two hosts every sender's QPs pair with the last host's ([`peer_of`]).
pub fn connect_qps<H: NicHardware + Send + 'static>(
    hosts: &[Host<H>],
    pmtu: Pmtu,
    rng: &mut Rng,
    rts: &RtsAttr,
    flow_sports: bool,
) -> Result<(), CliError> {
    let hosts_n = hosts.len();
    let n = hosts[0].qps.len();
    // per QP pair (sender s, QP j: s x n + j): the sender's and the hub's initial PSN
    let pairs = (hosts_n - 1) * n;
    let psn: Vec<[u32; 2]> = (0..pairs)
        .map(|_| [rng.below(1 << 24) as u32, rng.below(1 << 24) as u32])
        .collect();
    let hub = hosts_n - 1;
    for side in 0..hosts_n {
        for i in 0..hosts[side].qps.len() {
            let (peer, pi) = peer_of(hosts_n, n, side, i);
            let (l, me) = if side < hub {
                (side * n + i, 0)
            } else {
                (i, 1)
            };
            let qp = &hosts[side].qps[i];
            let what = format!("host {} QP {}", host_name(side), qp.qpn());
            qp.to_init(
                AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_ATOMIC,
            )
            .map_err(cli(&format!("{what}: to INIT")))?;
            let (lqpn, rqpn) = (qp.qpn(), hosts[peer].qps[pi].qpn());
            let flow = ferroce_proto::flow::calc_flow_label(lqpn, rqpn);
            let udp_sport = if flow_sports {
                ferroce_proto::flow::udp_source_port(lqpn, rqpn, flow)
            } else {
                0
            };
            qp.to_rtr(&RtrAttr {
                av: AddressVector {
                    dmac: hosts[peer].mac,
                    dgid: hosts[peer].gid,
                    udp_sport,
                    ..AddressVector::default()
                },
                path_mtu: pmtu,
                dest_qpn: hosts[peer].qps[pi].qpn(),
                rq_psn: psn[l][1 - me],
                max_dest_rd_atomic: 4,
                min_rnr_timer: 12,
            })
            .map_err(cli(&format!("{what}: to RTR")))?;
            qp.to_rts(&RtsAttr {
                sq_psn: psn[l][me],
                ..*rts
            })
            .map_err(cli(&format!("{what}: to RTS")))?;
        }
    }
    Ok(())
}

/// The [`GUARD`]-sized bytes at `offset` of `mr` (written as [`GUARD`] before a message; a
/// write past its end changes them).
fn read_guard(mr: &MemoryRegion, offset: usize) -> Result<[u8; GUARD.len()], CliError> {
    let mut guard = [0u8; GUARD.len()];
    mr.read(offset, &mut guard)
        .map_err(cli("reading the guard bytes"))?;
    Ok(guard)
}

/// A random scatter/gather list of 1..=4 pieces covering `len` bytes at `offset` of `mr`.
fn sg_list(
    mr: &MemoryRegion,
    offset: usize,
    len: usize,
    rng: &mut Rng,
) -> Result<Vec<Sge>, CliError> {
    let pieces = 1 + rng.below(4) as usize;
    let mut cuts: Vec<usize> = (1..pieces).map(|_| rng.range(0, len)).collect();
    cuts.push(0);
    cuts.push(len);
    cuts.sort_unstable();
    cuts.windows(2)
        .map(|w| {
            mr.sge(offset + w[0], (w[1] - w[0]) as u32)
                .map_err(cli("building an SGE"))
        })
        .collect()
}

/// Two hosts with their NICs (`hw`) back to back: each opened through the driver with `qps`
/// QPs (not connected yet: see [`connect`]) and a data buffer of `2 * qps * DEPTH` slots of
/// `slot` bytes. Over IPv4 ([`IPS`]).
pub fn open_pair<H: NicHardware + Send + 'static>(
    hw: [H; 2],
    shell: ShellConfig,
    qps: usize,
    slot: usize,
    capture: bool,
) -> Result<(SharedPair<H>, [Host<H>; 2]), CliError> {
    open_pair_on(hw, shell, qps, slot, capture, false)
}

/// Two hardware NICs (Verilator, [`VerilatedNic`]) back to back on the ideal shell, opened by
/// [`open_pair`] and connected by [`connect_with`] (`rts`, PMTU `pmtu`, initial PSNs from
/// `rng`): the fixture of the tests that drive the hardware NIC through the driver, kept here
/// so they open and connect it one way.
pub fn verilated_pair(
    qps: usize,
    slot: usize,
    capture: bool,
    pmtu: Pmtu,
    rng: &mut Rng,
    rts: &RtsAttr,
) -> Result<(SharedPair<VerilatedNic>, [Host<VerilatedNic>; 2]), CliError> {
    let nic = || VerilatedNic::new().map_err(|e| CliError(format!("Verilator NIC model: {e}")));
    let (pair, hosts) = open_pair([nic()?, nic()?], ShellConfig::ideal(), qps, slot, capture)?;
    connect_with(&hosts, pmtu, rng, rts)?;
    Ok((pair, hosts))
}

/// [`open_pair`] over IPv6 ([`IPS6`]) when `ipv6`, else IPv4.
pub fn open_pair_on<H: NicHardware + Send + 'static>(
    hw: [H; 2],
    shell: ShellConfig,
    qps: usize,
    slot: usize,
    capture: bool,
    ipv6: bool,
) -> Result<(SharedPair<H>, [Host<H>; 2]), CliError> {
    open_pair_at(
        hw,
        shell,
        qps,
        slot,
        capture,
        [(MACS[0], IPS[0]), (MACS[1], IPS[1])],
        ipv6,
    )
}

/// [`open_pair`] with these MAC and IPv4 addresses for hosts A and B (and IPv6 GIDs
/// [`IPS6`] when `ipv6`).
pub fn open_pair_at<H: NicHardware + Send + 'static>(
    hw: [H; 2],
    shell: ShellConfig,
    qps: usize,
    slot: usize,
    capture: bool,
    addrs: [([u8; 6], [u8; 4]); 2],
    ipv6: bool,
) -> Result<(SharedPair<H>, [Host<H>; 2]), CliError> {
    let (pair, hosts) = open_group(Vec::from(hw), shell, qps, slot, capture, &addrs, ipv6, None)?;
    let Ok(hosts) = <[Host<H>; 2]>::try_from(hosts) else {
        unreachable!("two hosts")
    };
    Ok((pair, hosts))
}

/// Two or more hosts with their NICs (`hw`, one per address in `addrs`), opened through the
/// driver: every sender with `qps` QPs, the last host (the hub) with one per sender's QP
/// ([`peer_of`], not connected yet: see [`connect_qps`]); a data buffer of
/// `2 x QPs x DEPTH` slots of `slot` bytes each. More than two need a medium before traffic.
pub fn open_group<H: NicHardware + Send + 'static>(
    hw: Vec<H>,
    shell: ShellConfig,
    qps: usize,
    slot: usize,
    capture: bool,
    addrs: &[([u8; 6], [u8; 4])],
    ipv6: bool,
    setup: Option<fn(&Device) -> Result<(), CliError>>,
) -> Result<(SharedPair<H>, Vec<Host<H>>), CliError> {
    let n = hw.len();
    if n < 2 || addrs.len() != n {
        return Err(CliError(format!(
            "{n} NIC models for {} addresses: two or more, one each",
            addrs.len()
        )));
    }
    if ipv6 && n > 2 {
        return Err(CliError("IPv6 with two hosts only".into()));
    }
    let memory: Vec<_> = (0..n).map(|_| HostMemory::shared()).collect();
    let pair: SharedPair<H> = Arc::new(Mutex::new(NicPair::group(
        hw,
        memory.clone(),
        shell,
        capture,
    )));
    let mut hosts = Vec::new();
    for (side, m) in memory.into_iter().enumerate() {
        hosts.push(open_host(
            &pair,
            side,
            m,
            slot,
            qps_of(n, qps, side),
            addrs[side],
            ipv6,
            setup,
        )?);
    }
    Ok((pair, hosts))
}

/// Which hardware model runs the NICs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The Verilator model of the emitted Verilog (fast; needs Verilator).
    Verilator,
    /// The rust-hdl simulation (slow; needs nothing else).
    RustHdl,
}

impl Engine {
    pub fn parse(s: &str) -> Result<Engine, CliError> {
        match s {
            "verilator" => Ok(Engine::Verilator),
            "rust-hdl" => Ok(Engine::RustHdl),
            _ => Err(CliError(format!(
                "--engine '{s}' is not an engine (verilator, rust-hdl)"
            ))),
        }
    }
}

/// Run the scenario on `engine` over a perfect link with the default transport attributes
/// ([`VerbsLinkArgs::default`]); the report says what happened (the caller decides the exit
/// code).
pub fn run_scenario(args: &VerbsArgs, engine: Engine) -> Result<VerbsReport, CliError> {
    run_scenario_with(args, &VerbsLinkArgs::default(), engine)
}

/// Run the scenario on `engine` with these link faults and transport attributes. Runs on a
/// thread with a big stack (emitting the NIC for Verilator recurses deeply).
pub fn run_scenario_with(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    engine: Engine,
) -> Result<VerbsReport, CliError> {
    run_scenario_vcd(args, link, engine, None)
}

/// [`run_scenario_with`], writing the NICs' waveforms over `vcd`'s window when given: NIC A's
/// to its file, NIC B's to [`VcdWindow::for_second_nic`].
pub fn run_scenario_vcd(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    engine: Engine,
    vcd: Option<&VcdWindow>,
) -> Result<VerbsReport, CliError> {
    run_scenario_full(args, link, engine, RunHooks::default(), vcd, None)
}

/// [`run_scenario_with`] with [`RunHooks`] (addresses, a network between the NICs, one-way
/// traffic, progress).
pub fn run_scenario_hooked(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    engine: Engine,
    hooks: RunHooks,
) -> Result<VerbsReport, CliError> {
    run_scenario_full(args, link, engine, hooks, None, None)
}

/// [`run_scenario_hooked`] posting the messages of `plan` (see [`Plan`]).
pub fn run_scenario_planned(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    engine: Engine,
    hooks: RunHooks,
    plan: Plan,
) -> Result<VerbsReport, CliError> {
    run_scenario_full(args, link, engine, hooks, None, Some(plan))
}

/// The scenario with hooks and optional waveforms (NIC A's to the window's file, NIC B's to
/// [`VcdWindow::for_second_nic`]).
pub fn run_scenario_full(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    engine: Engine,
    hooks: RunHooks,
    vcd: Option<&VcdWindow>,
    plan: Option<Plan>,
) -> Result<VerbsReport, CliError> {
    link.validate()?;
    check_args(args, plan.as_ref(), hooks.addrs.len())?;
    let args = args.clone();
    let link = link.clone();
    let vcd = vcd.map(|w| [w.clone(), w.for_second_nic()]);
    if let Some(w) = &vcd {
        for x in w {
            x.check().map_err(CliError)?;
        }
    }
    let n = hooks.addrs.len();
    if n > 2 && vcd.is_some() {
        return Err(CliError(
            "waveforms (--vcd) are written for runs of two NICs only".into(),
        ));
    }
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || match (engine, vcd) {
            (Engine::RustHdl, None) => {
                let hw = (0..n)
                    .map(|_| Bench::new(NicTop::default(), |u| &mut u.clock))
                    .collect();
                run_on_group(&args, &link, hw, hooks, plan)
            }
            (Engine::RustHdl, Some([a, b])) => {
                let traced = |w| {
                    VcdBench::new(Bench::new(NicTop::default(), |u| &mut u.clock), w)
                        .map_err(CliError)
                };
                let hw = [traced(a)?, traced(b)?];
                run_on_planned(&args, &link, hw, hooks, plan)
            }
            (Engine::Verilator, vcd) => {
                let windows: Vec<Option<VcdWindow>> = match vcd {
                    Some([a, b]) => vec![Some(a), Some(b)],
                    None => vec![None; n],
                };
                let build = |w| {
                    VerilatedNic::with_vcd(w).map_err(|e| {
                        CliError(format!("building the Verilator model of the NIC: {e}"))
                    })
                };
                let hw = windows
                    .into_iter()
                    .map(build)
                    .collect::<Result<Vec<_>, _>>()?;
                run_on_group(&args, &link, hw, hooks, plan)
            }
        })
        .map_err(cli("starting the simulation thread"))?
        .join()
        .map_err(|_| CliError("the simulation thread panicked".into()))?
}

/// The scenario's arguments, parsed and checked.
struct Checked {
    ops: Vec<VerbOp>,
    sizes: Vec<usize>,
    pmtu: Pmtu,
    max_size: usize,
    /// bytes per message slot in host memory
    slot: usize,
}

/// Checks the arguments (and the plan, for `n` NICs) before anything is built: a bad option is
/// refused at once, not after the models of the NICs were built.
fn check_args(args: &VerbsArgs, plan: Option<&Plan>, n: usize) -> Result<Checked, CliError> {
    if let Some(p) = &plan {
        if let Some(m) = p
            .messages
            .iter()
            .find(|m| m.side >= n || m.qp >= qps_of(n, args.qps, m.side))
        {
            return Err(CliError(format!(
                "a planned message on side {} QP {}: there are {n} sides and {} QPs per sender",
                m.side, m.qp, args.qps
            )));
        }
        if p.messages
            .windows(2)
            .any(|w| w[1].not_before < w[0].not_before)
        {
            return Err(CliError(
                "the planned messages are not in time order".into(),
            ));
        }
    }
    if args.ops.is_empty() {
        return Err(CliError("--ops is empty (e.g. --ops write)".into()));
    }
    if args.sizes.is_empty() {
        return Err(CliError("--sizes is empty (e.g. --sizes 0,1,4096)".into()));
    }
    if !(1..=MAX_QPS).contains(&args.qps) {
        return Err(CliError(format!(
            "--qps must be 1..={MAX_QPS}, not {}",
            args.qps
        )));
    }
    let ops = args
        .ops
        .iter()
        .map(|o| VerbOp::parse(o))
        .collect::<Result<Vec<_>, _>>()?;
    let sizes = args
        .sizes
        .iter()
        .map(|s| parse_size(s))
        .collect::<Result<Vec<_>, _>>()?;
    let pmtu = Pmtu::from_bytes(args.pmtu as u32).ok_or_else(|| {
        CliError(format!(
            "--pmtu {} is not a path MTU (256, 512, 1024, 2048, 4096)",
            args.pmtu
        ))
    })?;
    let max_size = plan
        .and_then(|p| p.messages.iter().map(|m| m.size).max())
        .unwrap_or(0)
        .max(*sizes.iter().max().expect("not empty"));
    let slot = (max_size + GUARD.len()).next_multiple_of(64);
    if slot * DEPTH * 2 * args.qps * (n - 1) > 1 << 30 {
        return Err(CliError(format!(
            "{} QPs x {DEPTH} messages in flight x {slot} bytes need more than 1 GiB per host; use fewer QPs or smaller sizes",
            args.qps
        )));
    }
    Ok(Checked {
        ops,
        sizes,
        pmtu,
        max_size,
        slot,
    })
}

/// Run the scenario on these NIC models with `hooks` (see [`RunHooks`]).
pub fn run_on_with<H: NicHardware + Send + 'static>(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    hw: [H; 2],
    hooks: RunHooks,
) -> Result<VerbsReport, CliError> {
    run_on_planned(args, link, hw, hooks, None)
}

/// [`run_on_with`], posting the messages of `plan` when given (see [`Plan`]).
pub fn run_on_planned<H: NicHardware + Send + 'static>(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    hw: [H; 2],
    hooks: RunHooks,
    plan: Option<Plan>,
) -> Result<VerbsReport, CliError> {
    run_on_group(args, link, Vec::from(hw), hooks, plan)
}

/// [`run_on_planned`] on two or more NICs (one per address of `hooks.addrs`; more than two
/// need `hooks.medium` and a plan, and the senders' QPs pair with the last host's:
/// [`peer_of`]).
pub fn run_on_group<H: NicHardware + Send + 'static>(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    hw: Vec<H>,
    mut hooks: RunHooks,
    plan: Option<Plan>,
) -> Result<VerbsReport, CliError> {
    let n = hw.len();
    if n != hooks.addrs.len() || n < 2 {
        return Err(CliError(format!(
            "{n} NICs for {} addresses",
            hooks.addrs.len()
        )));
    }
    if n > 2 && (plan.is_none() || hooks.medium.is_none()) {
        return Err(CliError(
            "more than two NICs run a plan over a medium".into(),
        ));
    }
    let Checked {
        ops,
        sizes,
        pmtu,
        max_size,
        slot,
    } = check_args(args, plan.as_ref(), n)?;
    let shell = if args.dma_jitter {
        ShellConfig::stressed(args.seed)
    } else {
        ShellConfig::ideal()
    };
    let (pair, hosts) = open_group(
        hw,
        shell,
        args.qps,
        slot,
        args.pcap.is_some(),
        &hooks.addrs,
        args.ipv6,
        hooks.setup,
    )?;
    let mut rng = Rng::new(args.seed);
    let timeout = link
        .timeout
        .unwrap_or_else(|| auto_timeout(args.qps, max_size));
    let rts = RtsAttr {
        timeout,
        retry_cnt: link.retry_cnt,
        rnr_retry: link.rnr_retry,
        ..RtsAttr::default()
    };
    connect_qps(&hosts, pmtu, &mut rng, &rts, hooks.flow_sports)?;
    if let Some(vid) = args.vlan {
        for h in &hosts {
            let traffic = TrafficConfig {
                vlan: Some(vid),
                ..TrafficConfig::decode(h.device.registers().read(regs::CFG_TRAFFIC))
            };
            h.device
                .set_traffic(&traffic)
                .map_err(|e| CliError(format!("--vlan {vid}: {e}")))?;
        }
    }
    if let Some(mbps) = hooks.link_mbps {
        for h in &hosts {
            tell_link_rate(&h.device, mbps)?;
        }
    }
    if let Some(mut p) = hooks.dcqcn_params {
        if let Some(mbps) = hooks.link_mbps {
            if p.rpg_max_rate == 0 || p.rpg_max_rate > mbps {
                p.rpg_max_rate = mbps;
            }
        }
        for h in &hosts {
            h.device
                .set_dcqcn_params(&p)
                .map_err(|e| CliError(format!("DCQCN parameters: {e}")))?;
        }
    }
    for h in &hosts {
        if link.dcqcn {
            enable_dcqcn(&h.device)?;
        }
        enable_qp_dcqcn(h)?;
        if let Some(q) = link.send_quantum {
            h.device.set_send_quantum(q);
        }
    }
    if link.rate_limit > 0 {
        for h in &hosts {
            for q in &h.qps {
                h.device
                    .set_qp_rate_limit(q.qpn(), link.rate_limit)
                    .map_err(|e| CliError(format!("--rate-limit {}: {e}", link.rate_limit)))?;
            }
        }
        // the limits reach the shaper within a sweep of its feeder (about 1 us): start the
        // traffic once every QP reads its limit, or once two sweeps have passed (a QP beyond the
        // shaper's 16 slots stays unlimited, counted by the NIC)
        let t0 = lock(&pair).cycles();
        while lock(&pair).cycles() - t0 < 2 * RATE_SWEEP_CYCLES {
            let mut all = true;
            for h in &hosts {
                for q in &h.qps {
                    let r = h
                        .device
                        .qp_rate(q.qpn())
                        .map_err(cli("reading CC_QP_RATE"))?;
                    all &= r
                        == QpRate::Limited {
                            mbps: link.rate_limit,
                        };
                }
            }
            if all {
                break;
            }
        }
    }
    // the link's faults (opening and connecting went through registers only, not the link)
    lock(&pair).set_faults(link.faults(args.seed));
    for &(side, offset, bits) in &hooks.set_bits {
        let b = &hosts[side.min(1)].backend;
        let v = b.read32(offset);
        b.write32(offset, v | bits);
    }
    for &(side, shell) in &hooks.shells {
        lock(&pair).nic(side).set_shell_config(shell);
    }
    if let Some(m) = hooks.medium.take() {
        lock(&pair).set_medium(m);
    }
    let mut next_progress = hooks.progress_every;
    let watchdog = watchdog_cycles(link, timeout);
    let mut pcap = match &args.pcap {
        Some(p) => Some(PcapWriter::create(p).map_err(cli(&p.display().to_string()))?),
        None => None,
    };

    let start = lock(&pair).cycles();
    let total = plan
        .as_ref()
        .map_or(args.messages as u64, |p| p.messages.len() as u64);
    // a plan's messages per (side, QP) so far: each takes the next of the QP's slots
    let mut planned_on: Vec<Vec<u64>> = (0..n).map(|h| vec![0; qps_of(n, args.qps, h)]).collect();
    let mut report = VerbsReport {
        messages: total,
        timeout,
        qpns: [0, 1].map(|h| hosts[h].qps.iter().map(|q| q.qpn()).collect()),
        ..VerbsReport::default()
    };
    let one_way = hooks.one_way;
    report.line_mbps = hooks
        .link_mbps
        .unwrap_or(hosts[0].device.info().line_rate_mbps);
    // the QPs' rates, sampled through CC_QP_RATE while something can change them: a static
    // limit, or a NIC's reaction point on (`CFG_CONTROL.DCQCN_RP_ENABLE`, however it was set).
    // The reads take the host loop a few cycles each; other runs are not touched.
    let sample_rates = link.rate_limit > 0
        || hosts.iter().any(|h| {
            h.device.registers().read(regs::CFG_CONTROL) & regs::cfg_control::DCQCN_RP_ENABLE != 0
        });
    let mut rate_samples: Vec<Vec<Vec<(u64, u32)>>> = hosts
        .iter()
        .map(|h| vec![Vec::new(); h.qps.len()])
        .collect();
    let mut next_rate_sample = start;
    // in flight per (sender side, QP), and receives expected per (receiver side, QP)
    let queues = || -> Vec<Vec<VecDeque<InFlight>>> {
        (0..n)
            .map(|h| {
                (0..qps_of(n, args.qps, h))
                    .map(|_| VecDeque::new())
                    .collect()
            })
            .collect()
    };
    let mut flight = queues();
    let mut rflight = queues();
    // atomics: the value of each compare-swap word as its QP's compare-swaps leave it (index:
    // the host that holds it, QP), and every fetch-add's (original value, add) per host
    let mut cas_word: Vec<Vec<u64>> = (0..n).map(|h| vec![0; qps_of(n, args.qps, h)]).collect();
    let mut fadds: Vec<Vec<(u64, u64)>> = vec![Vec::new(); n];
    let mut next = 0u64;
    let mut last_progress = start;
    let mut done = 0u64;
    let mut recv_pending = 0u64;
    while done < total || recv_pending > 0 {
        // post what fits
        while next < total {
            // (side, QP, operation, length, slot)
            let (side, q, op, len, k) = if let Some(p) = &plan {
                let m = &p.messages[next as usize];
                if lock(&pair).cycles() - start < m.not_before {
                    break;
                }
                let k = (planned_on[m.side][m.qp] % DEPTH as u64) as usize;
                let len = if m.op.is_atomic() { 8 } else { m.size };
                (m.side, m.qp, m.op, len, k)
            } else {
                // j: the message's number in its direction
                let (side, j) = if one_way {
                    (0, next)
                } else {
                    ((next % 2) as usize, next / 2)
                };
                let q = (j % args.qps as u64) as usize;
                // each direction runs through every size, then the next operation
                let op = ops[((j / sizes.len() as u64) % ops.len() as u64) as usize];
                // an atomic moves 8 bytes whatever the size list says
                let len = if op.is_atomic() {
                    8
                } else {
                    sizes[(j % sizes.len() as u64) as usize]
                };
                // slot k of QP q: source at (q * DEPTH + k) * slot, destination after all
                // sources
                let k = ((j / args.qps as u64) % DEPTH as u64) as usize;
                (side, q, op, len, k)
            };
            // the peer's host and QP
            let (ps, pq) = peer_of(n, args.qps, side, q);
            if flight[side][q].len() >= DEPTH || rflight[ps][pq].len() >= DEPTH {
                break;
            }
            if plan.is_some() {
                planned_on[side][q] += 1;
            }
            let src = (q * DEPTH + k) * slot;
            let dst = (qps_of(n, args.qps, ps) * DEPTH + pq * DEPTH + k) * slot;
            // a destination slot is reused only once the receive completion of its last
            // message was checked (that check reads the slot): the sender's completion can come
            // long before, when the receiver's CQ holds more completions than one poll takes
            if rflight[ps][pq].iter().any(|m| m.dst_offset == dst) {
                break;
            }
            let data = rng.bytes(len);
            let imm = rng.below(1 << 32) as u32;
            let host = &hosts[side];
            let peer = &hosts[ps];
            let wr_id = (next << 8) | q as u64;
            // the receive's, on the peer's QP
            let rwr_id = (next << 8) | pq as u64;
            let remote_at = |offset: usize| Remote {
                va: peer.mr.addr(offset),
                rkey: peer.mr.rkey(),
            };
            // the work request, where its bytes land (checked at its completion) and, for an
            // atomic, its add value or the original value its compare-swap must return
            let (wr, landing, atomic) = match op {
                VerbOp::AtomicCas | VerbOp::AtomicFadd => {
                    // the result lands in the source slot (random bytes there now, so a
                    // missing write shows), with a guard after it
                    host.mr
                        .write(src, &data)
                        .map_err(cli("writing the result slot"))?;
                    host.mr
                        .write(src + 8, &GUARD)
                        .map_err(cli("writing the guard bytes"))?;
                    let result = host
                        .mr
                        .sge(src, 8)
                        .map_err(cli("building the result SGE"))?;
                    if op == VerbOp::AtomicFadd {
                        let add = 1 + rng.below(1 << 20);
                        let remote = remote_at(peer.atomic_area);
                        (SendWr::fetch_add(wr_id, remote, add, result), src, add)
                    } else {
                        // half of them match the word, half miss it (the word stays)
                        let cur = cas_word[ps][pq];
                        let compare = if rng.below(2) == 0 {
                            cur
                        } else {
                            cur ^ (1 + rng.below(1 << 32))
                        };
                        let swap = (rng.below(1 << 32) << 32) | rng.below(1 << 32);
                        if compare == cur {
                            cas_word[ps][pq] = swap;
                        }
                        let remote = remote_at(peer.atomic_area + 64 + 8 * pq);
                        let wr = SendWr::cmp_swap(wr_id, remote, compare, swap, result);
                        (wr, src, cur)
                    }
                }
                VerbOp::Read => {
                    // the data at the peer's destination slot, read into the source slot
                    // (random bytes there now), with a guard after it
                    peer.mr
                        .write(dst, &data)
                        .map_err(cli("writing the data to read"))?;
                    host.mr
                        .write(src, &rng.bytes(len))
                        .map_err(cli("writing the read's destination"))?;
                    host.mr
                        .write(src + len, &GUARD)
                        .map_err(cli("writing the guard bytes"))?;
                    let sges = sg_list(&host.mr, src, len, &mut rng)?;
                    (SendWr::read(wr_id, remote_at(dst), sges), src, 0)
                }
                VerbOp::Write | VerbOp::WriteImm | VerbOp::Send | VerbOp::SendImm => {
                    host.mr
                        .write(src, &data)
                        .map_err(cli("writing the source data"))?;
                    // a guard after the destination range: a write past the message would
                    // change it
                    peer.mr
                        .write(dst + len, &GUARD)
                        .map_err(cli("writing the guard bytes"))?;
                    let sges = sg_list(&host.mr, src, len, &mut rng)?;
                    if op.receives() {
                        // the receive WQE first: a SEND lands in a scatter list a little
                        // longer than the message (over the guard bytes); a WRITE with
                        // immediate needs no SGE
                        let rsges = if op == VerbOp::WriteImm {
                            Vec::new()
                        } else {
                            let room = len + rng.below(GUARD.len() as u64 + 1) as usize;
                            sg_list(&peer.mr, dst, room, &mut rng)?
                        };
                        peer.qps[pq]
                            .post_recv(&[RecvWr::new(rwr_id, rsges)])
                            .map_err(cli(&format!("message {next}: post_recv")))?;
                        rflight[ps][pq].push_back(InFlight {
                            index: next,
                            posted: lock(&pair).cycles(),
                            wr_id: rwr_id,
                            op,
                            imm,
                            dst_offset: dst,
                            data: data.clone(),
                            atomic: 0,
                        });
                        recv_pending += 1;
                    }
                    let wr = match op {
                        VerbOp::Write => SendWr::write(wr_id, remote_at(dst), sges),
                        VerbOp::WriteImm => SendWr::write_imm(wr_id, remote_at(dst), imm, sges),
                        VerbOp::Send => SendWr::send(wr_id, sges),
                        _ => SendWr::send_imm(wr_id, imm, sges),
                    };
                    (wr, dst, 0)
                }
            };
            host.qps[q]
                .post_send(&[wr.signaled()])
                .map_err(cli(&format!("message {next}: post_send")))?;
            flight[side][q].push_back(InFlight {
                index: next,
                posted: lock(&pair).cycles(),
                wr_id,
                op,
                imm,
                dst_offset: landing,
                data,
                atomic,
            });
            report.bytes += len as u64;
            next += 1;
        }
        // completions
        let mut progressed = false;
        let polled = lock(&pair).cycles();
        for side in 0..n {
            let wcs = hosts[side].cq.poll(64).map_err(cli("polling the CQ"))?;
            for wc in wcs {
                progressed = true;
                report.completions += 1;
                let q = (wc.wr_id & 0xFF) as usize;
                let recv = wc.opcode.is_recv();
                // a send completion at the sender, a receive completion at the receiver
                let queue = if recv { &mut rflight } else { &mut flight };
                let expected = hosts[side]
                    .qps
                    .get(q)
                    .and_then(|_| queue[side][q].pop_front());
                let Some(m) = expected else {
                    report.failed += 1;
                    report.errors.push(format!("unexpected completion {wc:?}"));
                    continue;
                };
                // the peer of this completion's QP: the receiver of a send, the sender of a receive
                let (ps, pq) = peer_of(n, args.qps, side, q);
                let (local, remote) = (hosts[side].qps[q].qpn(), hosts[ps].qps[pq].qpn());
                // (a READ's data lands at its requester)
                let receiver = if recv || m.op == VerbOp::Read {
                    side
                } else {
                    ps
                };
                if recv {
                    recv_pending -= 1;
                } else {
                    done += 1;
                }
                let mut bad = Vec::new();
                if wc.wr_id != m.wr_id {
                    bad.push(format!("wr_id {:#x}, expected {:#x}", wc.wr_id, m.wr_id));
                }
                if wc.status != WcStatus::Success {
                    bad.push(format!(
                        "status {:?} (vendor error {})",
                        wc.status, wc.vendor_err
                    ));
                }
                let want_op = match (recv, m.op) {
                    (false, VerbOp::Write | VerbOp::WriteImm) => WcOpcode::RdmaWrite,
                    (false, VerbOp::Send | VerbOp::SendImm) => WcOpcode::Send,
                    (false, VerbOp::AtomicCas) => WcOpcode::CompSwap,
                    (false, VerbOp::AtomicFadd) => WcOpcode::FetchAdd,
                    (false, VerbOp::Read) => WcOpcode::RdmaRead,
                    (true, VerbOp::WriteImm) => WcOpcode::RecvRdmaWithImm,
                    (true, _) => WcOpcode::Recv,
                };
                if wc.opcode != want_op {
                    bad.push(format!("opcode {:?}, expected {want_op:?}", wc.opcode));
                }
                if wc.qp_num != local || wc.src_qp != remote {
                    bad.push(format!("QPNs {}/{}", wc.qp_num, wc.src_qp));
                }
                let want_len = if recv { m.data.len() as u32 } else { 0 };
                if wc.byte_len != want_len {
                    bad.push(format!("byte_len {}, expected {want_len}", wc.byte_len));
                }
                if recv {
                    let want_imm = m.op.has_imm().then_some(m.imm);
                    if wc.imm != want_imm {
                        bad.push(format!("imm {:x?}, expected {want_imm:x?}", wc.imm));
                    }
                }
                // the bytes: at the receive completion, or at the send completion of a WRITE
                // (its ACK means placed)
                let check_data = recv || !m.op.receives();
                if m.op.is_atomic() {
                    // the original value in the result slot, nothing after it
                    let mut got = [0u8; 8];
                    hosts[side]
                        .mr
                        .read(m.dst_offset, &mut got)
                        .map_err(cli("reading the atomic result"))?;
                    let guard = read_guard(&hosts[side].mr, m.dst_offset + 8)?;
                    if guard != GUARD {
                        bad.push(format!("bytes after the result were written: {guard:02x?}"));
                    }
                    let orig = u64::from_le_bytes(got);
                    if m.op == VerbOp::AtomicCas && orig != m.atomic {
                        bad.push(format!(
                            "compare-swap returned {orig:#x}, the word held {:#x}",
                            m.atomic
                        ));
                    }
                    if m.op == VerbOp::AtomicFadd {
                        fadds[ps].push((orig, m.atomic));
                    }
                } else if check_data {
                    let mut got = vec![0u8; m.data.len()];
                    hosts[receiver]
                        .mr
                        .read(m.dst_offset, &mut got)
                        .map_err(cli("reading the destination"))?;
                    let guard = read_guard(&hosts[receiver].mr, m.dst_offset + m.data.len())?;
                    if guard != GUARD {
                        bad.push(format!(
                            "bytes after the message were written: {guard:02x?}"
                        ));
                    }
                    if got != m.data {
                        let at = got
                            .iter()
                            .zip(&m.data)
                            .position(|(a, b)| a != b)
                            .unwrap_or(0);
                        bad.push(format!("data differs at byte {at} of {}", m.data.len()));
                    }
                }
                if !recv {
                    report.records.push(MessageRecord {
                        index: m.index,
                        op: m.op,
                        side,
                        qp: q,
                        bytes: m.data.len(),
                        posted: m.posted,
                        completed: polled,
                        ok: bad.is_empty(),
                    });
                }
                if bad.is_empty() {
                    if check_data {
                        report.verified += 1;
                    }
                } else {
                    report.failed += 1;
                    if report.errors.len() < 16 {
                        report.errors.push(format!(
                            "message {} ({:?}, {} B, {} completion at host {} QP {}): {}",
                            m.index,
                            m.op,
                            m.data.len(),
                            if recv { "receive" } else { "send" },
                            host_name(side),
                            local,
                            bad.join("; ")
                        ));
                    }
                }
            }
        }
        let now = {
            let mut p = lock(&pair);
            if !progressed {
                for _ in 0..32 {
                    p.cycle();
                }
            }
            if let Some(w) = pcap.as_mut() {
                for f in p.take_captured() {
                    w.write_packet(f.cycle * 1_000_000_000 / PAIR_CLOCK_HZ, &f.bytes)
                        .map_err(cli("writing the pcap"))?;
                }
            }
            p.cycles()
        };
        if sample_rates && now >= next_rate_sample {
            for (h, log) in hosts.iter().zip(rate_samples.iter_mut()) {
                for (q, l) in h.qps.iter().zip(log.iter_mut()) {
                    let r = h
                        .device
                        .qp_rate(q.qpn())
                        .map_err(cli("reading CC_QP_RATE"))?;
                    l.push((now, r.mbps_or(report.line_mbps)));
                }
            }
            next_rate_sample = now + RATE_SAMPLE_CYCLES;
        }
        if now >= next_progress {
            if let Some(f) = hooks.progress.as_mut() {
                f(now - start, &report);
            }
            next_progress = now + hooks.progress_every;
        }
        // waiting for a planned message's time is not being stuck
        let waiting = plan.as_ref().is_some_and(|p| {
            p.messages
                .get(next as usize)
                .is_some_and(|m| now - start < m.not_before)
        });
        if let Some(d) = plan.as_ref().and_then(|p| p.deadline) {
            if now - start >= d && (done < total || recv_pending > 0) {
                let missing = total - done;
                report.failed += missing + recv_pending;
                report.errors.push(format!(
                    "the run's duration ({d} cycles) passed: {missing} messages not completed at the sender, {recv_pending} receives not completed"
                ));
                break;
            }
        }
        if progressed || waiting {
            last_progress = now;
        } else if now - last_progress > watchdog {
            let missing = total - done;
            report.failed += missing + recv_pending;
            report.errors.push(format!(
                "no completion for {watchdog} cycles: {missing} messages never completed at the sender, {recv_pending} receives never completed"
            ));
            break;
        }
    }
    // fetch-adds: in the order of their original values each one saw exactly the sum of
    // those before it (one serial order exists: atomic, none lost or done twice), and the
    // counter holds the sum of all of them; compare-swap words hold what their QP's
    // compare-swaps left
    for (h, log) in fadds.iter_mut().enumerate() {
        let host = &hosts[h];
        let mut word = [0u8; 8];
        let mut errors = Vec::new();
        if !log.is_empty() {
            log.sort_unstable();
            let mut sum = 0u64;
            for &(orig, add) in log.iter() {
                if orig != sum {
                    errors.push(format!(
                        "host {}: a fetch-add returned {orig:#x} where the serial order gives {sum:#x}",
                        host_name(h)
                    ));
                    break;
                }
                sum = sum.wrapping_add(add);
            }
            host.mr
                .read(host.atomic_area, &mut word)
                .map_err(cli("reading the fetch-add counter"))?;
            if u64::from_le_bytes(word) != sum {
                errors.push(format!(
                    "host {}: the fetch-add counter holds {:#x}, the {} adds sum to {sum:#x}",
                    host_name(h),
                    u64::from_le_bytes(word),
                    log.len()
                ));
            }
        }
        for (q, want) in cas_word[h].iter().enumerate() {
            host.mr
                .read(host.atomic_area + 64 + 8 * q, &mut word)
                .map_err(cli("reading a compare-swap word"))?;
            if u64::from_le_bytes(word) != *want {
                errors.push(format!(
                    "host {} QP {q}: the compare-swap word holds {:#x}, expected {want:#x}",
                    host_name(h),
                    u64::from_le_bytes(word)
                ));
            }
        }
        report.failed += errors.len() as u64;
        report.errors.extend(errors);
    }
    let mut p = lock(&pair);
    report.cycles = p.cycles() - start;
    report.frames = p.frames_sent();
    let rc = [p.nic(0).req_counts(), p.nic(1).req_counts()];
    report.packets = [rc[0].packets, rc[1].packets];
    report.naks = [rc[0].naks, rc[1].naks];
    report.resent = [rc[0].resent, rc[1].resent];
    report.link = p.link_stats();
    let frames = p.frames_sent_all();
    for (side, h) in hosts.iter().enumerate() {
        let rc = p.nic(side).req_counts();
        report.per_host.push(HostCounts {
            frames: frames[side],
            packets: rc.packets,
            naks: rc.naks,
            resent: rc.resent,
            qpns: h.qps.iter().map(|q| q.qpn()).collect(),
            has_pfc: h.device.info().has(regs::caps::PFC),
            has_dcqcn_rp: h.device.info().has(regs::caps::DCQCN_RP),
            has_dcqcn_np: h.device.info().has(regs::caps::DCQCN_NP),
            ..HostCounts::default()
        });
    }
    drop(p);
    // the NICs' counters through the driver (register reads step the pair: after the cycle
    // count above)
    for (side, (h, mut log)) in hosts.iter().zip(rate_samples).enumerate() {
        let c = &mut report.per_host[side];
        for (q, l) in h.qps.iter().zip(log.iter_mut()) {
            let r = h
                .device
                .qp_rate(q.qpn())
                .map_err(cli("reading CC_QP_RATE"))?;
            c.final_rate.push(r);
            if sample_rates {
                l.push((start + report.cycles, r.mbps_or(report.line_mbps)));
            }
        }
        c.rate_samples = log;
        c.retransmitted = h.device.counter(regs::CNT_RETRANSMIT_LO);
        c.probes = h.device.counter(regs::CNT_TLP_PROBE_LO);
        c.timeouts = h.device.counter(regs::CNT_ACK_TIMEOUT_LO);
        c.retry_exceeded = h.device.counter(regs::CNT_RETRY_EXCEEDED_LO);
        c.ecn_ce = h.device.counter(regs::CNT_RX_ECN_CE_LO);
        c.cnp_sent = h.device.counter(regs::CNT_CNP_SENT_LO);
        c.cnp_received = h.device.counter(regs::CNT_CNP_RECEIVED_LO);
        c.pfc_pause = h.device.counter(regs::CNT_PFC_PAUSE_LO);
        c.pfc_paused_cycles = h.device.counter(regs::CNT_PFC_PAUSED_CYCLES_LO);
        c.rp_rate_cuts = h.device.counter(regs::CNT_RP_RATE_CUTS_LO);
        c.rp_cnp_disabled = h.device.counter(regs::CNT_RP_CNP_DISABLED_LO);
        c.rx_no_room = h.device.counter(regs::CNT_RX_DROP_NO_ROOM_LO);
        c.pfc_xoff_sent = h.device.counter(regs::CNT_PFC_XOFF_SENT_LO);
        c.pfc_xon_sent = h.device.counter(regs::CNT_PFC_XON_SENT_LO);
        c.ack_parked = h.device.counter(regs::CNT_RESP_ACK_PARKED_LO);
        c.req_pfc_yield = h.device.counter(regs::CNT_REQ_PFC_YIELD_LO);
        c.req_shaper_yield = h.device.counter(regs::CNT_REQ_SHAPER_YIELD_LO);
        c.pfc_prio = h.device.pfc_priority_counters();
        c.pfc_on =
            h.device.registers().read(regs::CFG_CONTROL) & regs::cfg_control::PFC_ENABLE != 0;
    }
    for side in 0..2 {
        let c = &report.per_host[side];
        report.retransmitted[side] = c.retransmitted;
        report.timeouts[side] = c.timeouts;
        report.retry_exceeded[side] = c.retry_exceeded;
        report.ecn_ce[side] = c.ecn_ce;
        report.cnp_sent[side] = c.cnp_sent;
        report.cnp_received[side] = c.cnp_received;
        report.pfc_pause[side] = c.pfc_pause;
        report.pfc_paused_cycles[side] = c.pfc_paused_cycles;
    }
    if let Some(mut w) = pcap {
        w.flush().map_err(cli("writing the pcap"))?;
    }
    // keep the hosts (and their NIC state) alive until the end of the run
    for h in &hosts {
        let _ = (&h.backend, &h.device);
    }
    Ok(report)
}

/// What one direction of the link did, for the JSON summary.
fn link_json(s: &LinkStats) -> serde_json::Value {
    json!({
        "dropped": s.dropped,
        "corrupted": s.corrupted,
        "duplicated": s.duplicated,
        "reordered": s.reordered,
        "ce_marked": s.ce_marked,
        "delivered": s.delivered,
        "in_flight": s.in_flight,
    })
}

/// DCQCN parameters from a JSON object of mlx5 names (the fields of [`DcqcnParams`], e.g.
/// `{"rpg_time_reset": 55, "rpg_ai_rate": 40}`); absent names keep mlx5's defaults. `what`
/// names the source in errors; an unknown name or a value of the wrong type is an error naming
/// it (ranges are checked when the parameters are written, [`Device::set_dcqcn_params`]).
pub fn parse_dcqcn_params(text: &str, what: &str) -> Result<DcqcnParams, CliError> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| CliError(format!("{what}: not JSON: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| CliError(format!("{what}: not a JSON object")))?;
    let mut p = DcqcnParams::default();
    for (k, val) in obj {
        let num = || {
            val.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| CliError(format!("{what}: '{k}' must be a whole number, got {val}")))
        };
        let flag = || match val {
            serde_json::Value::Bool(b) => Ok(*b),
            serde_json::Value::Number(n) if n.as_u64() == Some(0) => Ok(false),
            serde_json::Value::Number(n) if n.as_u64() == Some(1) => Ok(true),
            _ => Err(CliError(format!(
                "{what}: '{k}' must be true or false, got {val}"
            ))),
        };
        if !DcqcnParams::NAMES.contains(&k.as_str()) {
            return Err(CliError(format!(
                "{what}: '{k}' is not a DCQCN parameter (mlx5 names: {})",
                DcqcnParams::NAMES.join(", ")
            )));
        }
        let v = if DcqcnParams::is_flag(k) {
            flag()? as u32
        } else {
            num()?
        };
        p.set(k, v).expect("a name of DcqcnParams::NAMES");
    }
    Ok(p)
}

/// Switch the NIC's DCQCN reaction point on through the driver (`CFG_CONTROL.DCQCN_RP_ENABLE`);
/// a NIC whose `ID_CAPS` has no reaction point is refused, never accepted and ignored. The
/// QPs' own enables follow once they exist ([`enable_qp_dcqcn`]).
pub fn enable_dcqcn(dev: &Device) -> Result<(), CliError> {
    let control = dev.registers().read(regs::CFG_CONTROL);
    dev.set_control(control | regs::cfg_control::DCQCN_RP_ENABLE)
        .map_err(|e| CliError(format!("--dcqcn: CFG_CONTROL: {e}")))
}

/// Tell a NIC the rate its link runs at, `mbps`, as a board's driver does once the PHY has
/// negotiated it: the PFC pause timers count quanta of 512 bit times at that rate
/// (`CFG_PFC.LINK_BITS`, [`PfcConfig::link_bits_for`]), and when it is below the build's
/// `ID_LINE_RATE` the DCQCN reaction point is capped at it (mlx5's `rpg_max_rate`, the other
/// parameters at their defaults): Rc starts and recovers to the link's rate, not to a rate
/// the link cannot carry, so its cuts take effect. A rate the register cannot hold is an
/// error naming it.
pub fn tell_link_rate(dev: &Device, mbps: u32) -> Result<(), CliError> {
    let info = dev.info().clone();
    if info.has(regs::caps::DCQCN_RP) && mbps < info.line_rate_mbps {
        let p = DcqcnParams {
            rpg_max_rate: mbps,
            ..DcqcnParams::default()
        };
        dev.set_dcqcn_params(&p)
            .map_err(|e| CliError(format!("link rate {mbps} Mb/s: rpg_max_rate: {e}")))?;
    }
    let mut pfc = PfcConfig::decode(dev.registers().read(regs::CFG_PFC));
    pfc.link_bits_per_cycle = PfcConfig::link_bits_for(mbps, info.clock_khz).ok_or_else(|| {
        CliError(format!(
            "link rate {mbps} Mb/s: not a rate the PFC timers can count at a {} kHz clock",
            info.clock_khz
        ))
    })?;
    dev.set_pfc(&pfc)
        .map_err(|e| CliError(format!("link rate {mbps} Mb/s: CFG_PFC: {e}")))
}

/// Turn PFC on (`CFG_CONTROL.PFC_ENABLE`, through the driver): received pauses honoured and
/// XOFF/XON sent from the receive FIFO (`Device::set_pfc_xoff`, reset thresholds).
pub fn enable_pfc(dev: &Device) -> Result<(), CliError> {
    let control = dev.registers().read(regs::CFG_CONTROL);
    dev.set_control(control | regs::cfg_control::PFC_ENABLE)
        .map_err(|e| CliError(format!("PFC: CFG_CONTROL: {e}")))
}

/// [`enable_dcqcn`] and [`enable_pfc`].
pub fn enable_dcqcn_and_pfc(dev: &Device) -> Result<(), CliError> {
    enable_dcqcn(dev)?;
    enable_pfc(dev)
}

/// On a NIC whose reaction point is on, enable it for every QP of the host (`CC_QP_DCQCN`), as
/// mlx5 applies DCQCN to every QP of the enabled priority.
pub fn enable_qp_dcqcn<H: NicHardware + Send + 'static>(h: &Host<H>) -> Result<(), CliError> {
    let control = h.device.registers().read(regs::CFG_CONTROL);
    if control & regs::cfg_control::DCQCN_RP_ENABLE == 0 {
        return Ok(());
    }
    for q in &h.qps {
        h.device
            .set_qp_dcqcn(q.qpn(), true)
            .map_err(|e| CliError(format!("--dcqcn: QP {}: {e}", q.qpn())))?;
    }
    Ok(())
}

/// A sweep of the NIC's rate feeder over its 256 QPs (`ferroce_hdl::cc::RateFeeder`): a rate
/// written reaches the shaper within it, plus a few cycles per rate it writes.
pub const RATE_SWEEP_CYCLES: u64 = 512;

/// The interval of the QPs' rate samples ([`HostCounts::rate_samples`]): 10 us.
pub const RATE_SAMPLE_CYCLES: u64 = PAIR_CLOCK_HZ / 100_000;

/// The time average of a rate sampled at `samples` (cycle, Mb/s), each value held until the
/// next sample, from the first sample to the last; `None` with fewer than two samples.
pub fn time_averaged_mbps(samples: &[(u64, u32)]) -> Option<f64> {
    time_averaged_mbps_in(samples, samples.first()?.0, samples.last()?.0)
}

/// The same over the cycles `from..to` only (within the samples' span); `None` if that is
/// empty.
pub fn time_averaged_mbps_in(samples: &[(u64, u32)], from: u64, to: u64) -> Option<f64> {
    let from = from.max(samples.first()?.0);
    let to = to.min(samples.last()?.0);
    if to <= from {
        return None;
    }
    let sum: f64 = samples
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0].0.max(from), w[1].0.min(to));
            w[0].1 as f64 * b.saturating_sub(a) as f64
        })
        .sum();
    Some(sum / (to - from) as f64)
}

/// Per QP of each sending host: its configured rate limit (`--rate-limit`, null when none) and
/// the rate its messages moved, in Mb/s of payload: the bytes of its verified messages over the
/// cycles from the posting of its first message to its last completion (null without one);
/// the rate the NIC holds it at when the run ends (`final_mbps`, the line rate when
/// `final_limited` is false, from `CC_QP_RATE`), and that rate's time average over the run
/// (`mean_mbps`, from samples every 10 us; null when neither DCQCN nor a limit was on) and
/// its lowest sample (`min_mbps`).
pub fn qp_rates_json(r: &VerbsReport, rate_limit: u32, qps: usize) -> serde_json::Value {
    let mut out = Vec::new();
    for side in 0..2 {
        for qp in 0..qps {
            let recs: Vec<&MessageRecord> = r
                .records
                .iter()
                .filter(|m| m.side == side && m.qp == qp && m.ok)
                .collect();
            let measured = match (
                recs.iter().map(|m| m.posted).min(),
                recs.iter().map(|m| m.completed).max(),
            ) {
                (Some(t0), Some(t1)) if t1 > t0 => {
                    let bytes: usize = recs.iter().map(|m| m.bytes).sum();
                    Some(bytes as f64 * 8.0 * PAIR_CLOCK_HZ as f64 / 1e6 / (t1 - t0) as f64)
                }
                _ => None,
            };
            let host = r.per_host.get(side);
            out.push(json!({
                "host": (["a", "b"][side]),
                "qp": qp,
                "qpn": r.qpns[side].get(qp),
                "configured_mbps": (rate_limit > 0).then_some(rate_limit),
                "measured_mbps": measured,
                "final_mbps": host.and_then(|h| h.final_rate.get(qp)).map(|f| f.mbps_or(r.line_mbps)),
                "final_limited": host.and_then(|h| h.final_rate.get(qp)).map(|f| matches!(f, QpRate::Limited { .. })),
                "mean_mbps": host.and_then(|h| h.rate_samples.get(qp)).and_then(|s| time_averaged_mbps(s)),
                "min_mbps": host.and_then(|h| h.rate_samples.get(qp)).and_then(|s| s.iter().map(|x| x.1).min()),
            }));
        }
    }
    serde_json::Value::Array(out)
}

pub fn run(
    args: &VerbsArgs,
    link: &VerbsLinkArgs,
    engine: &str,
    vcd: Option<&VcdWindow>,
) -> Result<ExitCode, CliError> {
    let r = run_scenario_vcd(args, link, Engine::parse(engine)?, vcd)?;
    if args.json {
        println!(
            "{}",
            json!({
                "messages": r.messages,
                "verified": r.verified,
                "failed": r.failed,
                "completions": r.completions,
                "cycles": r.cycles,
                "bytes": r.bytes,
                "qps": args.qps,
                "pmtu": args.pmtu,
                "ipv6": args.ipv6,
                "vlan": args.vlan,
                "ops": args.ops,
                "sizes": args.sizes,
                "frames": {"a_to_b": r.frames[0], "b_to_a": r.frames[1]},
                "request_packets": {"a": r.packets[0], "b": r.packets[1]},
                "naks": {"a": r.naks[0], "b": r.naks[1]},
                "resent_messages": {"a": r.resent[0], "b": r.resent[1]},
                "retransmitted_packets": {"a": r.retransmitted[0], "b": r.retransmitted[1]},
                "tail_loss_probes": {"a": r.per_host[0].probes, "b": r.per_host[1].probes},
                "timeouts": {"a": r.timeouts[0], "b": r.timeouts[1]},
                "retry_exceeded": {"a": r.retry_exceeded[0], "b": r.retry_exceeded[1]},
                "ecn_ce_received": {"a": r.ecn_ce[0], "b": r.ecn_ce[1]},
                "rx_dropped_no_room": {"a": r.per_host[0].rx_no_room, "b": r.per_host[1].rx_no_room},
                "cnps": {
                    "sent": {"a": r.cnp_sent[0], "b": r.cnp_sent[1]},
                    "received": {"a": r.cnp_received[0], "b": r.cnp_received[1]},
                },
                "dcqcn": {
                    "reaction_point": link.dcqcn,
                    "rate_cuts": {"a": r.per_host[0].rp_rate_cuts, "b": r.per_host[1].rp_rate_cuts},
                    "cnps_ignored_dcqcn_off": {"a": r.per_host[0].rp_cnp_disabled, "b": r.per_host[1].rp_cnp_disabled},
                },
                "link": {"a_to_b": link_json(&r.link[0]), "b_to_a": link_json(&r.link[1])},
                "transport": {
                    "timeout": r.timeout,
                    "retry_cnt": link.retry_cnt,
                    "rnr_retry": link.rnr_retry,
                },
                "line_mbps": r.line_mbps,
                "qp_rates": qp_rates_json(&r, link.rate_limit, args.qps),
                "errors": r.errors,
            })
        );
    } else {
        println!(
            "{} messages over {} QP pair(s), PMTU {}: {} verified, {} failed, {} completions, {} bytes, {} cycles ({} frames A->B, {} B->A)",
            r.messages, args.qps, args.pmtu, r.verified, r.failed, r.completions, r.bytes, r.cycles, r.frames[0], r.frames[1]
        );
        if link.any_fault() {
            let l = &r.link;
            println!(
                "  link A->B: {} dropped, {} corrupted, {} duplicated, {} reordered, {} delivered; B->A: {} dropped, {} corrupted, {} duplicated, {} reordered, {} delivered; A/B: {}/{} packets retransmitted, {}/{} NAKs, {}/{} ACK timeouts, {}/{} retries exceeded",
                l[0].dropped, l[0].corrupted, l[0].duplicated, l[0].reordered, l[0].delivered,
                l[1].dropped, l[1].corrupted, l[1].duplicated, l[1].reordered, l[1].delivered,
                r.retransmitted[0], r.retransmitted[1], r.naks[0], r.naks[1],
                r.timeouts[0], r.timeouts[1], r.retry_exceeded[0], r.retry_exceeded[1]
            );
        }
        if link.ecn_mark > 0.0 || r.cnp_sent.iter().any(|&n| n > 0) {
            println!(
                "  ECN: {}/{} frames marked CE A->B/B->A; A/B: {}/{} CE packets received, {}/{} CNPs sent, {}/{} CNPs received",
                r.link[0].ce_marked, r.link[1].ce_marked, r.ecn_ce[0], r.ecn_ce[1],
                r.cnp_sent[0], r.cnp_sent[1], r.cnp_received[0], r.cnp_received[1]
            );
        }
        for e in &r.errors {
            println!("  {e}");
        }
    }
    Ok(if r.failed == 0 && r.verified == r.messages {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
