//! `ferroce peer`: one simulated ferroce NIC as the live peer of a Linux RDMA test tool running
//! over Soft-RoCE (rdma_rxe) in a QEMU guest (docs/INTEROP.md).
//!
//! Every argument is checked before the NIC model is built (building or loading it takes
//! seconds). Then: the NIC is opened through the driver, the link and the control channel are
//! connected (listening or connecting, as told), the session runs the tool's peer
//! ([`crate::peer::session`]), and one JSON object summarises the run: frames and bytes on the
//! link, the control messages, the work done, the peer's addresses and report, and the NIC's
//! counters. Exit status 0 only if the session completed.
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Bench;
use ferroce_proto::host::qp::Pmtu;
use ferroce_proto::pcap::PcapWriter;
use serde_json::{json, Value};

use super::verbs::{parse_size, Engine};
use super::CliError;
use crate::host::{HostMemory, ShellConfig};
use crate::nic_system::{NicCounters, NicHardware};
use crate::nic_verilated::VerilatedNic;
use crate::peer::control::{Control, Dir};
use crate::peer::exchange::{BwReport, Side};
use crate::peer::link::QemuLink;
use crate::peer::session::{self, Host, SessionConfig, SessionReport, Tool, Transport};
use crate::peer::socket;
use crate::peer::system::LinkLoss;
use crate::peer::system::{lock, PeerSystem, SharedPeer};
use crate::vcd::{VcdBench, VcdWindow};

/// Local ACK timeout code of the ferroce QP by default: 4.096 us x 2^10 = 4.2 ms of NIC time,
/// 1 048 576 cycles, about 10 s of wall time at the Verilator model's ~100 000 cycles/s. The
/// link is a lossless socket, so the timer only matters if the guest drops a packet; it must
/// not fire while the guest is merely slow (a QEMU guest on a busy 2-core host can stall for
/// seconds), and it should still recover within the run when it does fire.
pub const DEFAULT_ACK_TIMEOUT: u8 = 10;

/// The command line, as given.
#[derive(Clone, Debug, clap::Args)]
pub struct PeerArgs {
    /// The test: rc_pingpong, write_bw, read_bw, send_bw, atomic_fadd, atomic_cas.
    #[arg(long)]
    pub tool: String,
    /// ferroce's side of the tool's connection: server or client.
    #[arg(long)]
    pub role: String,
    /// Unix socket of the RoCE link (QEMU `-netdev stream`).
    #[arg(long, value_name = "SOCK")]
    pub link: PathBuf,
    /// Listen on --link (QEMU connects); default: connect to QEMU's socket.
    #[arg(long)]
    pub link_listen: bool,
    /// Unix socket of the control byte stream (QEMU virtio-serial chardev).
    #[arg(long, value_name = "SOCK")]
    pub ctl: PathBuf,
    /// Listen on --ctl; default: connect.
    #[arg(long)]
    pub ctl_listen: bool,
    /// The guest NIC's MAC (aa:bb:cc:dd:ee:ff).
    #[arg(long)]
    pub peer_mac: String,
    /// ferroce's IP address: IPv4 (GID 0 is the IPv4-mapped RoCEv2 GID) or IPv6 (GID 0 is
    /// the address, RoCEv2 over IPv6). The tool must use a GID of the same family.
    #[arg(long)]
    pub my_ip: String,
    /// ferroce's MAC.
    #[arg(long, default_value = "02:fe:00:00:00:01")]
    pub my_mac: String,
    /// Message size in bytes (K and M suffixes); default: the tool's own default. Give
    /// the tool the same (-s): it is not exchanged.
    #[arg(long)]
    pub size: Option<String>,
    /// Iterations; default: the tool's own default. Give the tool the same (-n).
    #[arg(long)]
    pub iters: Option<u64>,
    /// RoCE path MTU in bytes (1024 for a guest NIC with a 1500-byte MTU; 4096 needs jumbo
    /// frames in the guest).
    #[arg(long, default_value_t = 1024)]
    pub mtu: usize,
    /// Wall-clock limit of the whole run, in seconds.
    #[arg(long, value_name = "S", default_value_t = 600.0)]
    pub timeout: f64,
    /// Write every frame of the link, both directions (wall-clock timestamps).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<PathBuf>,
    /// Hardware model: verilator (fast) or rust-hdl (far too slow for a live peer).
    #[arg(long, default_value = "verilator")]
    pub engine: String,
    /// Local ACK timeout of ferroce's QP: 4.096 us x 2^T of NIC time, 0 = none (0..=31).
    /// The NIC runs ~2500 times slower than wall time: 10 is about 10 s of wall time.
    #[arg(long, value_name = "T", default_value_t = DEFAULT_ACK_TIMEOUT)]
    pub ack_timeout: u8,
    /// Retries after an ACK timeout or a sequence NAK (0..=7).
    #[arg(long, value_name = "N", default_value_t = 7)]
    pub retry_cnt: u8,
    /// Retries after an RNR NAK (0..=7, 7 = infinite).
    #[arg(long, value_name = "N", default_value_t = 7)]
    pub rnr_retry: u8,
    /// Drop this fraction (0..1) of the RoCE frames on the link, each direction on its own
    /// (a lossy link between the guest and the NIC; other frames always pass).
    #[arg(long, value_name = "R", default_value_t = 0.0)]
    pub loss: f64,
    /// Seed of the loss pattern (deterministic in the frames' order).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub vcd: super::VcdArgs,
}

/// The arguments, checked.
#[derive(Clone, Debug)]
pub struct Plan {
    pub session: SessionConfig,
    pub link: PathBuf,
    pub link_listen: bool,
    pub ctl: PathBuf,
    pub ctl_listen: bool,
    pub pcap: Option<PathBuf>,
    pub engine: Engine,
    pub timeout: Duration,
    pub loss: LinkLoss,
    /// Waveforms of the NIC over a window of cycles.
    pub vcd: Option<VcdWindow>,
}

fn parse_mac(option: &str, s: &str) -> Result<[u8; 6], CliError> {
    crate::respond_config::parse_mac(s).map_err(|e| CliError(format!("{option}: {e}")))
}

/// Check every argument (nothing is built or opened here).
pub fn plan(args: &PeerArgs) -> Result<Plan, CliError> {
    let tool = Tool::parse(&args.tool).ok_or_else(|| {
        CliError(format!(
            "--tool '{}' is not a tool ({})",
            args.tool,
            Tool::NAMES
        ))
    })?;
    let side = match args.role.as_str() {
        "server" => Side::Server,
        "client" => Side::Client,
        r => {
            return Err(CliError(format!(
                "--role '{r}' is not a role (server, client)"
            )))
        }
    };
    let peer_mac = parse_mac("--peer-mac", &args.peer_mac)?;
    let my_mac = parse_mac("--my-mac", &args.my_mac)?;
    if my_mac[0] & 1 != 0 {
        return Err(CliError(format!(
            "--my-mac {} is a multicast address",
            args.my_mac
        )));
    }
    if my_mac == peer_mac {
        return Err(CliError("--my-mac and --peer-mac are the same".into()));
    }
    let my_ip: IpAddr = args.my_ip.trim().parse().map_err(|_| {
        CliError(format!(
            "--my-ip '{}' is not an IPv4 or IPv6 address (it becomes ferroce's RoCEv2 GID 0)",
            args.my_ip
        ))
    })?;
    let not_unicast = match my_ip {
        IpAddr::V4(ip) => ip.is_unspecified() || ip.is_multicast() || ip.is_broadcast(),
        IpAddr::V6(ip) => {
            ip.is_unspecified()
                || ip.is_multicast()
                || ip.is_loopback()
                || ip.to_ipv4_mapped().is_some()
        }
    };
    if not_unicast {
        return Err(CliError(format!(
            "--my-ip {my_ip} is not a unicast address"
        )));
    }
    let size = match &args.size {
        Some(s) => parse_size(s)?,
        None => tool.default_size(),
    };
    if tool.is_atomic() && size != 8 {
        return Err(CliError(format!(
            "--size {size}: atomics are 8 bytes (perftest's atomic test sends 8 whatever -s says)"
        )));
    }
    if tool != Tool::RcPingpong && size == 0 {
        return Err(CliError(
            "--size 0: perftest messages are at least 1 byte".into(),
        ));
    }
    let iters = args.iters.unwrap_or(tool.default_iters());
    if iters == 0 {
        return Err(CliError("--iters must be at least 1".into()));
    }
    let pmtu = Pmtu::from_bytes(args.mtu as u32).ok_or_else(|| {
        CliError(format!(
            "--mtu {} is not a RoCE path MTU (256, 512, 1024, 2048, 4096; 1024 for a guest NIC with the usual 1500-byte MTU)",
            args.mtu
        ))
    })?;
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 7.0 * 86400.0) {
        return Err(CliError(format!(
            "--timeout {} must be a number of seconds above 0 (at most a week)",
            args.timeout
        )));
    }
    for (name, v, max) in [
        ("--ack-timeout", args.ack_timeout, 31),
        ("--retry-cnt", args.retry_cnt, 7),
        ("--rnr-retry", args.rnr_retry, 7),
    ] {
        if v > max {
            return Err(CliError(format!("{name} must be 0..={max}, got {v}")));
        }
    }
    if args.link == args.ctl {
        return Err(CliError("--link and --ctl name the same socket".into()));
    }
    socket::check_path("--link", &args.link, args.link_listen)
        .map_err(|e| CliError(e.to_string()))?;
    socket::check_path("--ctl", &args.ctl, args.ctl_listen).map_err(|e| CliError(e.to_string()))?;
    if let Some(p) = &args.pcap {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(CliError(format!(
                "--pcap {}: directory {} does not exist",
                p.display(),
                dir.display()
            )));
        }
    }
    let engine = Engine::parse(&args.engine)?;
    if !(0.0..1.0).contains(&args.loss) {
        return Err(CliError(format!(
            "--loss {} must be a fraction in 0..1 (0.01 drops 1 % of the RoCE frames)",
            args.loss
        )));
    }
    let loss = LinkLoss::new(args.loss, args.seed);
    let timeout = Duration::from_secs_f64(args.timeout);
    Ok(Plan {
        session: SessionConfig {
            tool,
            side,
            size,
            iters,
            pmtu,
            my_ip,
            my_mac,
            peer_mac,
            transport: Transport {
                timeout: args.ack_timeout,
                retry_cnt: args.retry_cnt,
                rnr_retry: args.rnr_retry,
            },
            // set when the run starts
            deadline: Instant::now() + timeout,
            psn: 0,
        },
        link: args.link.clone(),
        link_listen: args.link_listen,
        ctl: args.ctl.clone(),
        ctl_listen: args.ctl_listen,
        pcap: args.pcap.clone(),
        engine,
        timeout,
        loss,
        vcd: args.vcd.window(),
    })
}

/// A 24-bit initial PSN that differs from run to run (as the tools draw theirs).
fn random_psn() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    (h.finish() & 0xFF_FFFF) as u32
}

pub fn run(args: &PeerArgs) -> Result<ExitCode, CliError> {
    let mut plan = plan(args)?;
    if let Some(w) = &plan.vcd {
        w.check().map_err(CliError)?;
    }
    // the capture is opened before the model is built: a bad path fails fast
    let pcap = match &plan.pcap {
        Some(p) => Some(
            PcapWriter::create(p).map_err(|e| CliError(format!("--pcap {}: {e}", p.display())))?,
        ),
        None => None,
    };
    plan.session.psn = random_psn();
    let summary = std::thread::Builder::new()
        // emitting the NIC for Verilator recurses deeply
        .stack_size(256 << 20)
        .spawn(move || -> Result<Value, CliError> {
            match (plan.engine, plan.vcd.clone()) {
                (Engine::Verilator, vcd) => {
                    let hw = VerilatedNic::with_vcd(vcd).map_err(|e| {
                        CliError(format!("building the Verilator model of the NIC: {e}"))
                    })?;
                    Ok(run_on(&plan, hw, pcap))
                }
                (Engine::RustHdl, None) => {
                    let hw = Bench::new(NicTop::default(), |u| &mut u.clock);
                    Ok(run_on(&plan, hw, pcap))
                }
                (Engine::RustHdl, Some(w)) => {
                    let hw = VcdBench::new(Bench::new(NicTop::default(), |u| &mut u.clock), w)
                        .map_err(CliError)?;
                    Ok(run_on(&plan, hw, pcap))
                }
            }
        })
        .map_err(|e| CliError(format!("starting the simulation thread: {e}")))?
        .join()
        .map_err(|_| CliError("the simulation thread panicked".into()))??;
    println!("{summary}");
    Ok(if summary["ok"] == json!(true) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Run the whole thing on hardware model `hw`; the summary says how it went (errors included).
fn run_on<H: NicHardware + Send + 'static>(
    plan: &Plan,
    hw: H,
    pcap: Option<PcapWriter<std::io::BufWriter<std::fs::File>>>,
) -> Value {
    let started = Instant::now();
    let mut cfg = plan.session.clone();
    cfg.deadline = started + plan.timeout;
    let memory = HostMemory::shared();
    let shared: SharedPeer<H> = Arc::new(Mutex::new(PeerSystem::new(
        hw,
        memory.clone(),
        ShellConfig::ideal(),
        pcap,
        plan.loss.clone(),
    )));
    let mut report = SessionReport::default();
    let mut ctl: Option<Control> = None;
    let mut host: Option<Host<H>> = None;
    let result = (|| -> Result<(), String> {
        report.stage = "opening the NIC".into();
        let h = Host::open(&shared, memory, &cfg).map_err(|e| e.to_string())?;
        report.stage = "connecting the link".into();
        let stream = socket::open("link", &plan.link, plan.link_listen, cfg.deadline)
            .map_err(|e| e.to_string())?;
        lock(&shared).attach(QemuLink::new(stream).map_err(|e| format!("link: {e}"))?);
        report.stage = "connecting the control channel".into();
        // the guest may already talk on the link: keep the NIC clocking meanwhile
        let sh = shared.clone();
        let stream = socket::open_with(
            "control channel",
            &plan.ctl,
            plan.ctl_listen,
            cfg.deadline,
            &mut || lock(&sh).run(512),
        )
        .map_err(|e| e.to_string())?;
        let c = ctl.insert(Control::new(stream).map_err(|e| format!("control channel: {e}"))?);
        let h = host.insert(h);
        session::run(&shared, h, c, &cfg, &mut report).map_err(|e| e.to_string())
    })();
    summarize(
        plan,
        &cfg,
        &shared,
        host.as_ref(),
        ctl.as_ref(),
        &report,
        result,
        started,
    )
}

fn report_json(r: &Option<BwReport>) -> Value {
    match r {
        Some(r) => json!({
            "size": r.size,
            "iters": r.iters,
            "bw_peak_mb_s": r.bw_peak,
            "bw_avg_mb_s": r.bw_avg,
            "msg_rate_mpps": r.msg_rate,
        }),
        None => Value::Null,
    }
}

fn counters_json(c: &NicCounters) -> Value {
    json!({
        "rx": {
            "accepted": c.rx.accepted,
            "bad_icrc": c.rx.bad_icrc,
            "truncated": c.rx.truncated,
            "length": c.rx.length,
            "oversize": c.rx.oversize,
            "unsupported": c.rx.unsupported,
            "mac_mismatch": c.rx.mac_mismatch,
            "bad_opcode": c.rx.bad_opcode,
        },
        "responder": {
            "executed": c.resp.executed,
            "duplicate": c.resp.duplicate,
            "psn_err": c.resp.psn_err,
            "access_err": c.resp.access_err,
            "invalid": c.resp.invalid,
            "unsupported": c.resp.unsupported,
            "qp_drop": c.resp.qp_drop,
            "dma_error": c.resp.dma_error,
            "rnr_naks": c.resp.rnr,
            "recv_completions": c.resp.recv,
        },
        "requester": {
            "packets": c.req.packets,
            "messages": c.req.messages,
            "acks": c.req.acks,
            "naks": c.req.naks,
            "resent": c.req.resent,
            "errors": c.req.errors,
            "cqes_written": c.req.cqes_written,
            "cqes_dropped": c.req.cqes_dropped,
        },
    })
}

fn mac_text(m: &[u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[allow(clippy::too_many_arguments)]
fn summarize<H: NicHardware + Send + 'static>(
    plan: &Plan,
    cfg: &SessionConfig,
    shared: &SharedPeer<H>,
    host: Option<&Host<H>>,
    ctl: Option<&Control>,
    report: &SessionReport,
    result: Result<(), String>,
    started: Instant,
) -> Value {
    // the NIC's own transport counters through BAR0 (register reads clock the system)
    let transport_counters: Value = match host {
        Some(h) => h
            .transport_counters()
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        None => Value::Null,
    };
    let mut sys = lock(shared);
    let totals = sys.totals();
    let counters = sys.counters();
    let cycles = sys.cycles();
    let link_error = sys.error().map(str::to_string);
    drop(sys);
    let wall = started.elapsed().as_secs_f64();
    // a link that closed after the test (the guest exiting) is no failure: it is reported
    // with the link, and is in `errors` only when the session failed
    let errors: Vec<String> = result.as_ref().err().cloned().into_iter().collect();
    let control = match ctl {
        Some(c) => json!({
            "bytes_in": c.bytes_in,
            "bytes_out": c.bytes_out,
            "unread": c.unread(),
            "messages": c.log.iter().map(|m| json!({
                "dir": if m.dir == Dir::In { "in" } else { "out" },
                "what": m.what,
                "len": m.len,
            })).collect::<Vec<_>>(),
        }),
        None => Value::Null,
    };
    json!({
        "ok": result.is_ok(),
        "tool": cfg.tool.name(),
        "role": if cfg.side == Side::Server { "server" } else { "client" },
        "stage": report.stage,
        "errors": errors,
        "size": cfg.size,
        "iters": cfg.iters,
        "mtu": report.pmtu,
        "transport": {
            "timeout": cfg.transport.timeout,
            "retry_cnt": cfg.transport.retry_cnt,
            "rnr_retry": cfg.transport.rnr_retry,
        },
        "local": {
            "ip": cfg.my_ip.to_string(),
            "mac": mac_text(&cfg.my_mac),
            "qpn": report.my_qpn,
            "psn": report.my_psn,
        },
        "peer": {
            "mac": mac_text(&cfg.peer_mac),
            "version": report.peer_version,
            "qpn": report.peer_qpn,
            "psn": report.peer_psn,
            "gid": report.peer_gid,
            "got_done": report.got_done,
        },
        "work": {
            "send_posted": report.send_posted,
            "send_completed": report.send_completed,
            "recv_posted": report.recv_posted,
            "recv_completed": report.recv_completed,
            "bytes": report.bytes,
            "test_seconds": report.test_seconds,
        },
        "report_sent": report_json(&report.report_sent),
        "report_received": report_json(&report.report_received),
        "link": {
            "path": plan.link.display().to_string(),
            "frames_in": totals.frames_in,
            "bytes_in": totals.bytes_in,
            "frames_out": totals.frames_out,
            "bytes_out": totals.bytes_out,
            "dropped_unconnected": totals.dropped_unconnected,
            "loss": plan.loss.rate,
            "seed": plan.loss.seed,
            "dropped_loss_in": totals.lost_in,
            "dropped_loss_out": totals.lost_out,
            "empty_in": totals.empty_in,
            "error": link_error,
        },
        "control": control,
        "nic": counters_json(&counters),
        "nic_transport": transport_counters,
        "cycles": cycles,
        "wall_seconds": wall,
        "cycles_per_second": if wall > 0.0 { cycles as f64 / wall } else { 0.0 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn args() -> PeerArgs {
        PeerArgs {
            tool: "write_bw".into(),
            role: "server".into(),
            link: std::env::temp_dir().join("ferroce-test-link.sock"),
            link_listen: true,
            ctl: std::env::temp_dir().join("ferroce-test-ctl.sock"),
            ctl_listen: true,
            peer_mac: "52:54:00:12:34:56".into(),
            my_ip: "10.0.0.1".into(),
            my_mac: "02:fe:00:00:00:01".into(),
            size: None,
            iters: None,
            mtu: 1024,
            timeout: 60.0,
            pcap: None,
            engine: "verilator".into(),
            ack_timeout: DEFAULT_ACK_TIMEOUT,
            retry_cnt: 7,
            rnr_retry: 7,
            loss: 0.0,
            seed: 1,
            vcd: Default::default(),
        }
    }

    fn err(a: &PeerArgs) -> String {
        plan(a).unwrap_err().0
    }

    #[test]
    fn good_arguments_and_defaults() {
        let p = plan(&args()).unwrap();
        assert_eq!(p.session.size, 65536);
        assert_eq!(p.session.iters, 5000);
        assert_eq!(p.session.pmtu, Pmtu::Mtu1024);
        let mut a = args();
        a.tool = "atomic_cas".into();
        a.role = "client".into();
        let p = plan(&a).unwrap();
        assert_eq!((p.session.size, p.session.iters), (8, 1000));
        assert_eq!(p.session.side, Side::Client);
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        let mut a = args();
        a.tool = "write".into();
        assert!(err(&a).contains("--tool 'write'"));
        let mut a = args();
        a.role = "both".into();
        assert!(err(&a).contains("--role"));
        let mut a = args();
        a.peer_mac = "52:54:00:12:34".into();
        assert!(err(&a).starts_with("--peer-mac"));
        let mut a = args();
        a.my_mac = a.peer_mac.clone();
        assert!(err(&a).contains("same"));
        let mut a = args();
        a.my_ip = "10.0.0".into();
        assert!(err(&a).contains("--my-ip"));
        for bad in ["ff02::1", "::", "::ffff:10.0.0.1", "224.0.0.1"] {
            let mut a = args();
            a.my_ip = bad.into();
            assert!(err(&a).contains("not a unicast address"), "{bad}");
        }
        let mut a = args();
        a.mtu = 1500;
        assert!(err(&a).contains("--mtu 1500"));
        let mut a = args();
        a.timeout = 0.0;
        assert!(err(&a).contains("--timeout"));
        let mut a = args();
        a.tool = "atomic_fadd".into();
        a.size = Some("64".into());
        assert!(err(&a).contains("8 bytes"));
        let mut a = args();
        a.iters = Some(0);
        assert!(err(&a).contains("--iters"));
        let mut a = args();
        a.ack_timeout = 32;
        assert!(err(&a).contains("--ack-timeout"));
        let mut a = args();
        a.ctl = a.link.clone();
        assert!(err(&a).contains("same socket"));
        let mut a = args();
        a.link = PathBuf::from("/nonexistent-dir-for-ferroce/link.sock");
        assert!(err(&a).contains("--link"));
        let mut a = args();
        a.engine = "fpga".into();
        assert!(err(&a).contains("--engine"));
        let mut a = args();
        a.loss = 1.0;
        assert!(err(&a).contains("--loss 1"));
        a.loss = -0.1;
        assert!(err(&a).contains("--loss"));
        a.loss = 0.01;
        assert!(plan(&a).is_ok());
        let mut a = args();
        a.pcap = Some(PathBuf::from("/nonexistent-dir-for-ferroce/x.pcap"));
        assert!(err(&a).contains("--pcap"));
    }
}
