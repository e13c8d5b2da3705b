//! Scenario files (TOML) for `ferroce run FILE`: a topology, its links and switches, hosts
//! (ferroce NICs, plain traffic sources, sinks) with their QPs and workloads, faults, a
//! duration and the outputs. docs/SCENARIOS.md documents every field.
//!
//! [`load`] reads a file into a [`Scenario`], checked throughout: an unknown field, a value of
//! the wrong type, a name that refers to nothing, a leaf that does not exist give an error
//! naming the file, the line and the field, before anything runs.
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use ferroce_fabric::red::Red;
use ferroce_fabric::{LinkFault, LinkSpec, PfcConfig, Ps, SwitchConfig};
use serde::Deserialize;
use toml::Spanned;

use crate::cmd::verbs::{PlannedMessage, VerbOp, MAX_QPS, MAX_SIZE};
use crate::nic_pair::PAIR_CLOCK_HZ;

/// The ferroce NICs a scenario can hold today (the NIC system joins a pair).
pub const MAX_FERROCE_HOSTS: usize = 2;

// ---------------------------------------------------------------------------------------
// The file, as serde reads it.

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    description: Option<String>,
    #[serde(default = "one")]
    seed: u64,
    duration_us: Option<Spanned<f64>>,
    topology: TopologyToml,
    #[serde(default)]
    switch: SwitchToml,
    #[serde(default)]
    rdma: RdmaToml,
    #[serde(default)]
    hosts: Vec<HostToml>,
    #[serde(default)]
    faults: Vec<FaultToml>,
    #[serde(default)]
    output: OutputToml,
}

fn one() -> u64 {
    1
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    BackToBack,
    SingleSwitch,
    SpineLeaf,
}

impl TopologyKind {
    /// The name a file gives it.
    pub fn name(self) -> &'static str {
        match self {
            TopologyKind::BackToBack => "back_to_back",
            TopologyKind::SingleSwitch => "single_switch",
            TopologyKind::SpineLeaf => "spine_leaf",
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct TopologyToml {
    kind: Spanned<TopologyKind>,
    leaves: Option<Spanned<usize>>,
    spines: Option<Spanned<usize>>,
    /// back_to_back and single_switch: every link; spine_leaf: hosts to their leaf.
    #[serde(default)]
    host_link: LinkToml,
    /// spine_leaf: leaf to spine.
    fabric_link: Option<Spanned<LinkToml>>,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct LinkToml {
    #[serde(default = "ten")]
    gbps: f64,
    #[serde(default = "delay")]
    delay_ns: f64,
}

fn ten() -> f64 {
    10.0
}
fn delay() -> f64 {
    500.0
}

impl Default for LinkToml {
    fn default() -> Self {
        LinkToml {
            gbps: ten(),
            delay_ns: delay(),
        }
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct SwitchToml {
    buffer_bytes: Option<u64>,
    alpha: Option<f64>,
    ecmp_seed: Option<u64>,
    #[serde(default)]
    ecn: EcnToml,
    #[serde(default)]
    pfc: PfcToml,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct EcnToml {
    enabled: Option<bool>,
    kmin_bytes: Option<u64>,
    kmax_bytes: Option<u64>,
    pmax: Option<f64>,
    average_weight: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct PfcToml {
    enabled: Option<bool>,
    priorities: Option<Vec<u8>>,
    xoff_bytes: Option<u64>,
    xon_bytes: Option<u64>,
    headroom_bytes: Option<u64>,
    quanta: Option<u16>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct RdmaToml {
    pmtu: Option<Spanned<usize>>,
    timeout: Option<u8>,
    retry_cnt: Option<u8>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HostKindToml {
    Ferroce,
    Traffic,
    Sink,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct HostToml {
    name: Spanned<String>,
    kind: HostKindToml,
    leaf: Option<Spanned<usize>>,
    ip: Option<Spanned<String>>,
    mac: Option<Spanned<String>>,
    qps: Option<Spanned<usize>>,
    #[serde(default)]
    workloads: Vec<WorkloadToml>,
    traffic: Option<Spanned<TrafficToml>>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum OpToml {
    Write,
    WriteImm,
    Send,
    SendImm,
    Read,
    AtomicCas,
    AtomicFadd,
}

impl From<OpToml> for VerbOp {
    fn from(o: OpToml) -> VerbOp {
        match o {
            OpToml::Write => VerbOp::Write,
            OpToml::WriteImm => VerbOp::WriteImm,
            OpToml::Send => VerbOp::Send,
            OpToml::SendImm => VerbOp::SendImm,
            OpToml::Read => VerbOp::Read,
            OpToml::AtomicCas => VerbOp::AtomicCas,
            OpToml::AtomicFadd => VerbOp::AtomicFadd,
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct WorkloadToml {
    to: Spanned<String>,
    op: OpToml,
    size: Spanned<usize>,
    count: Spanned<u64>,
    qps: Option<Spanned<Vec<usize>>>,
    rate_gbps: Option<Spanned<f64>>,
    #[serde(default)]
    start_us: f64,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct TrafficToml {
    to: Spanned<String>,
    gbps: f64,
    #[serde(default = "frame_bytes")]
    frame_bytes: usize,
    #[serde(default)]
    start_us: f64,
    stop_us: Option<f64>,
    #[serde(default = "dscp")]
    dscp: u8,
    #[serde(default = "prio")]
    priority: u8,
    #[serde(default = "yes")]
    ect: bool,
    udp_sport: Option<u16>,
    #[serde(default = "dport")]
    udp_dport: u16,
    via: Option<Spanned<String>>,
}

fn frame_bytes() -> usize {
    1024
}
fn dscp() -> u8 {
    26
}
fn prio() -> u8 {
    3
}
fn yes() -> bool {
    true
}
fn dport() -> u16 {
    5001
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct FaultToml {
    link: Spanned<[String; 2]>,
    #[serde(default)]
    loss: f64,
    down_from_us: Option<f64>,
    down_until_us: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct OutputToml {
    pcap: Option<Spanned<String>>,
    plot: Option<bool>,
    summary: Option<bool>,
}

// ---------------------------------------------------------------------------------------
// The checked scenario.

/// What a host is.
#[derive(Clone, Debug, PartialEq)]
pub enum HostRole {
    /// A whole ferroce NIC (the cycle-accurate hardware), driven through the verbs API.
    Ferroce,
    /// A plain traffic source (another vendor's host, not a ferroce NIC).
    Traffic(Traffic),
    /// Only receives.
    Sink,
}

/// A plain host's constant-rate UDP traffic.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// Index of the destination host.
    pub to: usize,
    pub rate_bps: u64,
    pub frame_bytes: usize,
    pub start: Ps,
    pub stop: Ps,
    pub dscp: u8,
    pub priority: u8,
    pub ect: bool,
    /// `None`: the first port from 49152 whose ECMP hash takes the flow through `via`, or
    /// 49152 + the host's index without `via`.
    pub udp_sport: Option<u16>,
    pub udp_dport: u16,
    /// Spine index the flow should cross (spine-leaf only).
    pub via: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HostSpec {
    pub name: String,
    pub role: HostRole,
    /// Leaf index (0-based; 0 for the other topologies).
    pub leaf: usize,
    pub mac: [u8; 6],
    pub ip: [u8; 4],
}

/// A link fault, between two named nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultSpec {
    pub link: [String; 2],
    pub fault: LinkFault,
}

/// A checked scenario, ready to build and run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub seed: u64,
    /// Simulated time the run may take (the run ends earlier when every message is done).
    pub duration: Option<Ps>,
    pub topology: TopologyKind,
    pub leaves: usize,
    pub spines: usize,
    pub host_link: LinkSpec,
    pub fabric_link: LinkSpec,
    pub switch: SwitchConfig,
    pub hosts: Vec<HostSpec>,
    /// Indices of the ferroce hosts (none or two): the first is side A, the second side B.
    pub ferroce: Vec<usize>,
    /// RC QP pairs between the two ferroce hosts.
    pub qps: usize,
    pub pmtu: usize,
    /// Local ACK timeout code (4.096 us x 2^timeout).
    pub timeout: u8,
    pub retry_cnt: u8,
    /// Every message of every workload, in posting order (side 0: the first ferroce host).
    pub plan: Vec<PlannedMessage>,
    pub faults: Vec<FaultSpec>,
    /// The host whose link is captured.
    pub pcap: Option<usize>,
    pub plot: bool,
    pub summary: bool,
}

/// The default local ACK timeout of a scenario: 4.096 us x 2^9 = 2.1 ms, longer than a
/// frame can wait in a congested fabric.
pub const DEFAULT_TIMEOUT: u8 = 9;

/// A scenario error: the file, the line, the field and what is wrong.
#[derive(Debug)]
pub struct ScenarioError(pub String);

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

struct Ctx<'a> {
    file: String,
    src: &'a str,
}

impl Ctx<'_> {
    fn line(&self, span: Range<usize>) -> usize {
        self.src[..span.start.min(self.src.len())]
            .bytes()
            .filter(|b| *b == b'\n')
            .count()
            + 1
    }
    fn err(&self, span: Range<usize>, field: &str, msg: impl std::fmt::Display) -> ScenarioError {
        ScenarioError(format!(
            "{}: line {}: {field}: {msg}",
            self.file,
            self.line(span)
        ))
    }
    /// An error about the file as a whole (no one line holds it).
    fn whole(&self, field: &str, msg: impl std::fmt::Display) -> ScenarioError {
        ScenarioError(format!("{}: {field}: {msg}", self.file))
    }
}

/// Read and check a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let src = std::fs::read_to_string(path)
        .map_err(|e| ScenarioError(format!("{}: {e}", path.display())))?;
    parse(&path.display().to_string(), &src)
}

fn ps_of_us(us: f64) -> Ps {
    (us * 1e6).round() as Ps
}

fn cycles_of_us(us: f64) -> u64 {
    (us * PAIR_CLOCK_HZ as f64 / 1e6).round() as u64
}

fn parse_ip(s: &str) -> Option<[u8; 4]> {
    let v: Vec<u8> = s
        .split('.')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let v: Vec<u8> = s
        .split(':')
        .map(|x| {
            (x.len() == 2)
                .then(|| u8::from_str_radix(x, 16).ok())
                .flatten()
        })
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

fn link_spec(
    ctx: &Ctx,
    l: &LinkToml,
    span: Range<usize>,
    field: &str,
) -> Result<LinkSpec, ScenarioError> {
    if !(0.001..=1000.0).contains(&l.gbps) {
        return Err(ctx.err(
            span,
            &format!("{field}.gbps"),
            format!("{} is not a rate of 0.001..=1000 Gb/s", l.gbps),
        ));
    }
    if !(0.0..=1e9).contains(&l.delay_ns) {
        return Err(ctx.err(
            span,
            &format!("{field}.delay_ns"),
            format!("{} is not a delay of 0..=1e9 ns", l.delay_ns),
        ));
    }
    Ok(LinkSpec {
        rate_bps: (l.gbps * 1e9).round() as u64,
        delay_ps: (l.delay_ns * 1000.0).round() as Ps,
    })
}

/// Parse and check scenario text (`file` names it in errors).
pub fn parse(file: &str, src: &str) -> Result<Scenario, ScenarioError> {
    let ctx = Ctx {
        file: file.to_string(),
        src,
    };
    // serde's errors name the line, the column and the field already
    let f: File = toml::from_str(src).map_err(|e| {
        let msg = e.to_string();
        ScenarioError(format!("{file}: {}", msg.trim_end()))
    })?;
    let kind = *f.topology.kind.get_ref();
    let kspan = f.topology.kind.span();
    let (leaves, spines) = match kind {
        TopologyKind::SpineLeaf => {
            let l = f.topology.leaves.as_ref().ok_or_else(|| {
                ctx.err(
                    kspan.clone(),
                    "topology.leaves",
                    "spine_leaf needs leaves (1..=64)",
                )
            })?;
            let s = f.topology.spines.as_ref().ok_or_else(|| {
                ctx.err(
                    kspan.clone(),
                    "topology.spines",
                    "spine_leaf needs spines (1..=64)",
                )
            })?;
            for (x, name) in [(l, "topology.leaves"), (s, "topology.spines")] {
                if !(1..=64).contains(x.get_ref()) {
                    return Err(ctx.err(x.span(), name, format!("{} is not 1..=64", x.get_ref())));
                }
            }
            (*l.get_ref(), *s.get_ref())
        }
        _ => {
            for (x, name) in [
                (&f.topology.leaves, "topology.leaves"),
                (&f.topology.spines, "topology.spines"),
            ] {
                if let Some(x) = x {
                    return Err(ctx.err(
                        x.span(),
                        name,
                        "only a spine_leaf topology has leaves and spines",
                    ));
                }
            }
            if let Some(x) = &f.topology.fabric_link {
                return Err(ctx.err(
                    x.span(),
                    "topology.fabric_link",
                    "only a spine_leaf topology has fabric links",
                ));
            }
            (usize::from(kind == TopologyKind::SingleSwitch), 0)
        }
    };
    let host_link = link_spec(
        &ctx,
        &f.topology.host_link,
        kspan.clone(),
        "topology.host_link",
    )?;
    let fabric_link = match &f.topology.fabric_link {
        Some(l) => link_spec(&ctx, l.get_ref(), l.span(), "topology.fabric_link")?,
        None => host_link,
    };

    // switches: the defaults are SwitchConfig's
    let mut switch = SwitchConfig {
        ecmp_seed: f.switch.ecmp_seed.unwrap_or(f.seed),
        ..SwitchConfig::default()
    };
    if let Some(b) = f.switch.buffer_bytes {
        switch.buffer_bytes = b;
    }
    if let Some(a) = f.switch.alpha {
        if !(a > 0.0 && a <= 64.0) {
            return Err(ctx.whole("switch.alpha", format!("{a} is not in (0, 64]")));
        }
        switch.alpha = a;
    }
    let e = &f.switch.ecn;
    if e.enabled == Some(false) {
        switch.red = None;
    } else {
        let d = switch.red.expect("the default marks");
        let red = Red {
            kmin: e.kmin_bytes.unwrap_or(d.kmin),
            kmax: e.kmax_bytes.unwrap_or(d.kmax),
            pmax: e.pmax.unwrap_or(d.pmax),
            average_weight: e.average_weight.or(d.average_weight),
        };
        if red.kmin >= red.kmax {
            return Err(ctx.whole(
                "switch.ecn",
                format!(
                    "kmin_bytes {} must be below kmax_bytes {}",
                    red.kmin, red.kmax
                ),
            ));
        }
        if !(0.0..=1.0).contains(&red.pmax) {
            return Err(ctx.whole("switch.ecn.pmax", format!("{} is not 0..=1", red.pmax)));
        }
        if let Some(w) = red.average_weight {
            if !(w > 0.0 && w <= 1.0) {
                return Err(ctx.whole("switch.ecn.average_weight", format!("{w} is not in (0, 1]")));
            }
        }
        switch.red = Some(red);
    }
    let p = &f.switch.pfc;
    if p.enabled == Some(false) {
        switch.pfc = None;
    } else {
        let d = switch.pfc.expect("the default pauses");
        let mut prios = d.priorities;
        if let Some(list) = &p.priorities {
            prios = 0;
            for x in list {
                if *x > 7 {
                    return Err(ctx.whole(
                        "switch.pfc.priorities",
                        format!("{x} is not a priority (0..=7)"),
                    ));
                }
                prios |= 1 << x;
            }
        }
        let pfc = PfcConfig {
            priorities: prios,
            xoff: p.xoff_bytes.unwrap_or(d.xoff),
            xon: p.xon_bytes.unwrap_or(d.xon),
            headroom: p.headroom_bytes.unwrap_or(d.headroom),
            quanta: p.quanta.unwrap_or(d.quanta),
        };
        if pfc.xon > pfc.xoff {
            return Err(ctx.whole(
                "switch.pfc",
                format!(
                    "xon_bytes {} must not exceed xoff_bytes {}",
                    pfc.xon, pfc.xoff
                ),
            ));
        }
        switch.pfc = Some(pfc);
    }

    // hosts
    if f.hosts.is_empty() {
        return Err(ctx.whole("hosts", "a scenario needs hosts ([[hosts]])"));
    }
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    let switch_names: Vec<String> = match kind {
        TopologyKind::BackToBack => vec![],
        TopologyKind::SingleSwitch => vec!["Switch".into()],
        TopologyKind::SpineLeaf => (1..=leaves)
            .map(|i| format!("Leaf-{i}"))
            .chain((1..=spines).map(|i| format!("Spine-{i}")))
            .collect(),
    };
    for (i, h) in f.hosts.iter().enumerate() {
        let n = h.name.get_ref();
        if n.is_empty() || switch_names.contains(n) {
            return Err(ctx.err(
                h.name.span(),
                &format!("hosts[{i}].name"),
                format!("'{n}' is empty or a switch's name"),
            ));
        }
        if by_name.insert(n.clone(), i).is_some() {
            return Err(ctx.err(
                h.name.span(),
                &format!("hosts[{i}].name"),
                format!("a second host named '{n}'"),
            ));
        }
    }
    if kind == TopologyKind::BackToBack && f.hosts.len() != 2 {
        return Err(ctx.whole(
            "hosts",
            format!(
                "back_to_back joins exactly two hosts, not {}",
                f.hosts.len()
            ),
        ));
    }
    let ferroce: Vec<usize> = (0..f.hosts.len())
        .filter(|i| f.hosts[*i].kind == HostKindToml::Ferroce)
        .collect();
    if ferroce.len() > MAX_FERROCE_HOSTS {
        let h = &f.hosts[ferroce[MAX_FERROCE_HOSTS]];
        return Err(ctx.err(h.name.span(), &format!("hosts[{}].kind", ferroce[MAX_FERROCE_HOSTS]), format!(
            "{} ferroce hosts: a scenario holds at most {MAX_FERROCE_HOSTS} today (the NIC system joins a pair of NICs); make the others plain traffic hosts",
            ferroce.len()
        )));
    }
    if ferroce.len() == 1 {
        let h = &f.hosts[ferroce[0]];
        return Err(ctx.err(
            h.name.span(),
            "hosts.kind",
            "one ferroce host has no peer: a scenario has two ferroce hosts or none",
        ));
    }
    let lookup = |s: &Spanned<String>, field: &str| -> Result<usize, ScenarioError> {
        by_name
            .get(s.get_ref())
            .copied()
            .ok_or_else(|| ctx.err(s.span(), field, format!("no host named '{}'", s.get_ref())))
    };
    let mut hosts = Vec::new();
    let mut per_leaf = vec![0usize; leaves.max(1)];
    let mut qps: Option<(usize, Range<usize>)> = None;
    let mut plan: Vec<(u64, usize, PlannedMessage)> = Vec::new();
    let mut pmtu = 1024usize;
    if let Some(p) = &f.rdma.pmtu {
        if ferroce_proto::host::qp::Pmtu::from_bytes(*p.get_ref() as u32).is_none() {
            return Err(ctx.err(
                p.span(),
                "rdma.pmtu",
                format!(
                    "{} is not a path MTU (256, 512, 1024, 2048, 4096)",
                    p.get_ref()
                ),
            ));
        }
        pmtu = *p.get_ref();
    }
    for (i, h) in f.hosts.iter().enumerate() {
        let field = |x: &str| format!("hosts[{i}].{x}");
        let leaf = match (&h.leaf, kind) {
            (Some(l), TopologyKind::SpineLeaf) => {
                if !(1..=leaves).contains(l.get_ref()) {
                    return Err(ctx.err(
                        l.span(),
                        &field("leaf"),
                        format!(
                            "leaf {} does not exist (the topology has leaves 1..={leaves})",
                            l.get_ref()
                        ),
                    ));
                }
                *l.get_ref() - 1
            }
            (None, TopologyKind::SpineLeaf) => {
                return Err(ctx.err(
                    h.name.span(),
                    &field("leaf"),
                    "a host of a spine_leaf topology needs its leaf (1-based)",
                ));
            }
            (Some(l), _) => {
                return Err(ctx.err(
                    l.span(),
                    &field("leaf"),
                    "only a spine_leaf topology has leaves",
                ));
            }
            (None, _) => 0,
        };
        let k = per_leaf[leaf];
        per_leaf[leaf] += 1;
        let ip = match &h.ip {
            Some(s) => parse_ip(s.get_ref()).ok_or_else(|| {
                ctx.err(
                    s.span(),
                    &field("ip"),
                    format!("'{}' is not an IPv4 address", s.get_ref()),
                )
            })?,
            None => [10, 0, (leaf + 1) as u8, 10 + k as u8],
        };
        let mac = match &h.mac {
            Some(s) => parse_mac(s.get_ref()).ok_or_else(|| {
                ctx.err(
                    s.span(),
                    &field("mac"),
                    format!("'{}' is not a MAC address (aa:bb:cc:dd:ee:ff)", s.get_ref()),
                )
            })?,
            None => {
                let tag = if h.kind == HostKindToml::Ferroce {
                    0xfe
                } else {
                    0xee
                };
                [0x02, tag, 0, (leaf + 1) as u8, (i >> 8) as u8, i as u8]
            }
        };
        if let Some(o) = hosts
            .iter()
            .position(|x: &HostSpec| x.ip == ip || x.mac == mac)
        {
            return Err(ctx.err(
                h.name.span(),
                &field("ip"),
                format!("the same IP or MAC address as host '{}'", hosts[o].name),
            ));
        }
        if h.kind != HostKindToml::Ferroce {
            if let Some(q) = &h.qps {
                return Err(ctx.err(q.span(), &field("qps"), "only a ferroce host has QPs"));
            }
            if let Some(w) = h.workloads.first() {
                return Err(ctx.err(
                    w.to.span(),
                    &field("workloads"),
                    "only a ferroce host runs RDMA workloads (a plain host has traffic)",
                ));
            }
        }
        if h.kind != HostKindToml::Traffic {
            if let Some(t) = &h.traffic {
                return Err(ctx.err(
                    t.span(),
                    &field("traffic"),
                    "only a traffic host has traffic",
                ));
            }
        }
        let role = match h.kind {
            HostKindToml::Ferroce => {
                if let Some(q) = &h.qps {
                    if !(1..=MAX_QPS).contains(q.get_ref()) {
                        return Err(ctx.err(
                            q.span(),
                            &field("qps"),
                            format!("{} is not 1..={MAX_QPS}", q.get_ref()),
                        ));
                    }
                    if let Some((other, _)) = &qps {
                        if other != q.get_ref() {
                            return Err(ctx.err(q.span(), &field("qps"), format!("the two ferroce hosts share their QP pairs: {} here, {other} at the other", q.get_ref())));
                        }
                    }
                    qps = Some((*q.get_ref(), q.span()));
                }
                HostRole::Ferroce
            }
            HostKindToml::Sink => HostRole::Sink,
            HostKindToml::Traffic => {
                let t = h.traffic.as_ref().ok_or_else(|| {
                    ctx.err(
                        h.name.span(),
                        &field("traffic"),
                        "a traffic host needs its traffic ([hosts.traffic])",
                    )
                })?;
                let span = t.span();
                let t = t.get_ref();
                let to = lookup(&t.to, &field("traffic.to"))?;
                if to == i {
                    return Err(ctx.err(
                        t.to.span(),
                        &field("traffic.to"),
                        "a host does not send to itself",
                    ));
                }
                if !(t.gbps > 0.0 && t.gbps <= 1000.0) {
                    return Err(ctx.err(
                        span,
                        &field("traffic.gbps"),
                        format!("{} is not a rate in (0, 1000] Gb/s", t.gbps),
                    ));
                }
                if !(64..=9000).contains(&t.frame_bytes) {
                    return Err(ctx.err(
                        span,
                        &field("traffic.frame_bytes"),
                        format!("{} is not 64..=9000", t.frame_bytes),
                    ));
                }
                if t.dscp > 63 || t.priority > 7 {
                    return Err(ctx.err(span, &field("traffic"), "dscp is 0..=63, priority 0..=7"));
                }
                let stop = t.stop_us.map_or(Ps::MAX, ps_of_us);
                if t.start_us < 0.0 || stop <= ps_of_us(t.start_us) {
                    return Err(ctx.err(
                        span,
                        &field("traffic.stop_us"),
                        "the traffic must start at 0 or later and stop after it starts",
                    ));
                }
                let via = match &t.via {
                    Some(v) => {
                        let s = (1..=spines)
                            .find(|s| *v.get_ref() == format!("Spine-{s}"))
                            .ok_or_else(|| {
                                ctx.err(
                                    v.span(),
                                    &field("traffic.via"),
                                    format!("'{}' is not a spine of this topology", v.get_ref()),
                                )
                            })?;
                        if by_name
                            .get(t.to.get_ref())
                            .is_some_and(|d| f.hosts[*d].leaf == h.leaf)
                        {
                            return Err(ctx.err(
                                v.span(),
                                &field("traffic.via"),
                                "the destination is on the same leaf: the traffic crosses no spine",
                            ));
                        }
                        if t.udp_sport.is_some() {
                            return Err(ctx.err(
                                v.span(),
                                &field("traffic.via"),
                                "give via or udp_sport, not both",
                            ));
                        }
                        Some(s - 1)
                    }
                    None => None,
                };
                HostRole::Traffic(Traffic {
                    to,
                    rate_bps: (t.gbps * 1e9).round() as u64,
                    frame_bytes: t.frame_bytes,
                    start: ps_of_us(t.start_us),
                    stop,
                    dscp: t.dscp,
                    priority: t.priority,
                    ect: t.ect,
                    udp_sport: t.udp_sport,
                    udp_dport: t.udp_dport,
                    via,
                })
            }
        };
        hosts.push(HostSpec {
            name: h.name.get_ref().clone(),
            role,
            leaf,
            mac,
            ip,
        });
    }
    let qps = qps.map_or(1, |q| q.0);
    // workloads: every message, released at start + i x size / rate
    for (i, h) in f.hosts.iter().enumerate() {
        for (w_i, w) in h.workloads.iter().enumerate() {
            let field = |x: &str| format!("hosts[{i}].workloads[{w_i}].{x}");
            let to = lookup(&w.to, &field("to"))?;
            if to == i || hosts[to].role != HostRole::Ferroce {
                return Err(ctx.err(
                    w.to.span(),
                    &field("to"),
                    format!("'{}' is not the other ferroce host", w.to.get_ref()),
                ));
            }
            let side = usize::from(ferroce[1] == i);
            let op = VerbOp::from(w.op);
            let size = *w.size.get_ref();
            if size > MAX_SIZE {
                return Err(ctx.err(
                    w.size.span(),
                    &field("size"),
                    format!("{size} is more than {MAX_SIZE} bytes"),
                ));
            }
            if op.is_atomic() && size != 8 {
                return Err(ctx.err(
                    w.size.span(),
                    &field("size"),
                    "an atomic moves 8 bytes: size = 8",
                ));
            }
            let count = *w.count.get_ref();
            if !(1..=100_000).contains(&count) {
                return Err(ctx.err(
                    w.count.span(),
                    &field("count"),
                    format!("{count} is not 1..=100000"),
                ));
            }
            let on: Vec<usize> = match &w.qps {
                Some(list) => {
                    if list.get_ref().is_empty() {
                        return Err(ctx.err(list.span(), &field("qps"), "an empty list of QPs"));
                    }
                    if let Some(q) = list.get_ref().iter().find(|q| **q >= qps) {
                        return Err(ctx.err(
                            list.span(),
                            &field("qps"),
                            format!("QP {q} does not exist (the hosts have QPs 0..{qps})"),
                        ));
                    }
                    list.get_ref().clone()
                }
                None => (0..qps).collect(),
            };
            let gap = match &w.rate_gbps {
                Some(r) => {
                    if !(*r.get_ref() > 0.0 && *r.get_ref() <= 1000.0) {
                        return Err(ctx.err(
                            r.span(),
                            &field("rate_gbps"),
                            format!("{} is not a rate in (0, 1000] Gb/s", r.get_ref()),
                        ));
                    }
                    size.max(1) as f64 * 8.0 / (r.get_ref() * 1e9) * PAIR_CLOCK_HZ as f64
                }
                None => 0.0,
            };
            if w.start_us < 0.0 {
                return Err(ctx.err(w.to.span(), &field("start_us"), "a start before 0"));
            }
            let start = cycles_of_us(w.start_us);
            for m in 0..count {
                let at = start + (m as f64 * gap).round() as u64;
                plan.push((
                    at,
                    plan.len(),
                    PlannedMessage {
                        side,
                        qp: on[m as usize % on.len()],
                        op,
                        size,
                        not_before: at,
                    },
                ));
            }
        }
    }
    if plan.len() > 200_000 {
        return Err(ctx.whole(
            "workloads",
            format!("{} messages in all: at most 200000", plan.len()),
        ));
    }
    plan.sort_by_key(|(t, i, _)| (*t, *i));
    let plan: Vec<PlannedMessage> = plan.into_iter().map(|(_, _, m)| m).collect();

    // faults: on a link between two adjacent nodes
    let node_exists = |n: &str| by_name.contains_key(n) || switch_names.iter().any(|s| s == n);
    let leaf_of = |n: &str| -> Option<String> {
        let h = &hosts[*by_name.get(n)?];
        Some(match kind {
            TopologyKind::SingleSwitch => "Switch".into(),
            TopologyKind::SpineLeaf => format!("Leaf-{}", h.leaf + 1),
            TopologyKind::BackToBack => String::new(),
        })
    };
    let adjacent = |a: &str, b: &str| -> bool {
        if kind == TopologyKind::BackToBack {
            return a != b && by_name.contains_key(a) && by_name.contains_key(b);
        }
        if leaf_of(a).is_some_and(|l| l == b) || leaf_of(b).is_some_and(|l| l == a) {
            return true;
        }
        let leaf = |x: &str| x.starts_with("Leaf-") && switch_names.iter().any(|s| s == x);
        let spine = |x: &str| x.starts_with("Spine-") && switch_names.iter().any(|s| s == x);
        (leaf(a) && spine(b)) || (spine(a) && leaf(b))
    };
    let mut faults = Vec::new();
    for (i, x) in f.faults.iter().enumerate() {
        let field = format!("faults[{i}].link");
        let [a, b] = x.link.get_ref();
        for n in [a, b] {
            if !node_exists(n) {
                return Err(ctx.err(
                    x.link.span(),
                    &field,
                    format!("no node named '{n}' (hosts, or the switches {switch_names:?})"),
                ));
            }
        }
        if !adjacent(a, b) {
            return Err(ctx.err(
                x.link.span(),
                &field,
                format!("no link joins '{a}' and '{b}'"),
            ));
        }
        if !(0.0..=1.0).contains(&x.loss) {
            return Err(ctx.err(
                x.link.span(),
                &format!("faults[{i}].loss"),
                format!("{} is not a fraction 0..=1", x.loss),
            ));
        }
        let down = match (x.down_from_us, x.down_until_us) {
            (Some(a), Some(b)) if a >= 0.0 && b > a => vec![(ps_of_us(a), ps_of_us(b))],
            (None, None) => vec![],
            _ => {
                return Err(ctx.err(x.link.span(), &format!("faults[{i}].down_from_us"), "a link goes down with down_from_us and comes back with down_until_us (both, the second later)"));
            }
        };
        faults.push(FaultSpec {
            link: [a.clone(), b.clone()],
            fault: LinkFault {
                loss: x.loss,
                down,
                seed: f.seed ^ (0xfa17 + i as u64),
            },
        });
    }
    let duration = match &f.duration_us {
        Some(d) => {
            if !(*d.get_ref() > 0.0 && *d.get_ref() <= 1e6) {
                return Err(ctx.err(
                    d.span(),
                    "duration_us",
                    format!("{} is not in (0, 1000000] us", d.get_ref()),
                ));
            }
            Some(ps_of_us(*d.get_ref()))
        }
        None => None,
    };
    if ferroce.is_empty() && duration.is_none() {
        return Err(ctx.whole(
            "duration_us",
            "a scenario without ferroce hosts runs for its duration: give duration_us",
        ));
    }
    if !ferroce.is_empty() && plan.is_empty() {
        return Err(ctx.whole("hosts.workloads", "the ferroce hosts have no workload"));
    }
    if let Some(t) = f.rdma.timeout.filter(|t| *t > 31) {
        return Err(ctx.whole("rdma.timeout", format!("{t} is not 0..=31")));
    }
    if let Some(r) = f.rdma.retry_cnt.filter(|r| *r > 7) {
        return Err(ctx.whole("rdma.retry_cnt", format!("{r} is not 0..=7")));
    }
    let pcap = match &f.output.pcap {
        Some(p) => Some(lookup(p, "output.pcap")?),
        None => None,
    };
    Ok(Scenario {
        name: f.name.unwrap_or_else(|| file.to_string()),
        description: f.description.unwrap_or_default(),
        seed: f.seed,
        duration,
        topology: kind,
        leaves,
        spines,
        host_link,
        fabric_link,
        switch,
        hosts,
        ferroce,
        qps,
        pmtu,
        timeout: f.rdma.timeout.unwrap_or(DEFAULT_TIMEOUT),
        retry_cnt: f.rdma.retry_cnt.unwrap_or(7),
        plan,
        faults,
        pcap,
        plot: f.output.plot.unwrap_or(true),
        summary: f.output.summary.unwrap_or(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
[topology]
kind = "single_switch"

[[hosts]]
name = "A"
kind = "ferroce"
qps = 2
[[hosts.workloads]]
to = "B"
op = "write"
size = 4096
count = 3
rate_gbps = 1.0

[[hosts]]
name = "B"
kind = "ferroce"
"#;

    #[test]
    fn a_good_file_gives_its_plan() {
        let s = parse("x.toml", OK).unwrap();
        assert_eq!(s.ferroce, vec![0, 1]);
        assert_eq!(s.qps, 2);
        assert_eq!(s.plan.len(), 3);
        // 4096 B at 1 Gb/s: 32.768 us apart, 8192 cycles at 250 MHz
        let t: Vec<u64> = s.plan.iter().map(|m| m.not_before).collect();
        assert_eq!(t, vec![0, 8192, 16384]);
        let q: Vec<usize> = s.plan.iter().map(|m| m.qp).collect();
        assert_eq!(q, vec![0, 1, 0]);
        assert_eq!(s.hosts[0].ip, [10, 0, 1, 10]);
        assert_eq!(s.hosts[1].ip, [10, 0, 1, 11]);
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let e = parse("x.toml", &OK.replace("count = 3", "count = 3\ncolour = 1")).unwrap_err();
        assert!(e.0.contains("line 14") && e.0.contains("colour"), "{e}");
        let e = parse("x.toml", &OK.replace("size = 4096", "size = \"big\"")).unwrap_err();
        assert!(e.0.contains("line 12") && e.0.contains("size"), "{e}");
        let e = parse("x.toml", &OK.replace("to = \"B\"", "to = \"C\"")).unwrap_err();
        assert!(
            e.0.contains("line 10") && e.0.contains("workloads[0].to") && e.0.contains("'C'"),
            "{e}"
        );
    }
}
