//! The configuration file of `ferroce respond` (docs/RESPOND.md): one NIC's addresses, QPs,
//! memory regions and receive buffers, as a user writes them for a capture of their own peer.
//!
//! Parsing is strict: unknown fields, malformed addresses, out-of-range numbers and names the
//! NIC does not know are errors that name the offending entry, never silently ignored, because a
//! replay against a wrong configuration "works" and proves nothing. Numbers may be JSON numbers
//! or strings in decimal or `0x` hexadecimal (keys and addresses are usually written in hex).
use ferroce_proto::host::qp::AccessFlags;
use ferroce_proto::host::{mr, ring};
use serde::Deserialize;
use std::fmt;
use std::net::IpAddr;

/// QPNs the default build implements (`CsrBlockDefault`: 2^8 QPs; 0 and 1 are reserved).
pub const MAX_QPN: u32 = 255;
/// MR key indices of the default build (`MrTable1k`).
pub const MR_INDICES: u32 = 1024;
/// Most entries of a send or receive queue (the hardware's ring geometry:
/// `QP_RING_CFG.LOG2_*_ENTRIES` up to [`ring::MAX_LOG2_WQ_ENTRIES`]).
pub const MAX_WQ_ENTRIES: u32 = 1 << ring::MAX_LOG2_WQ_ENTRIES;
/// Entries of a queue the configuration does not size (the smallest ring the hardware takes).
pub const MIN_WQ_ENTRIES: u32 = 1 << ring::MIN_LOG2_ENTRIES;

/// A configuration error: which entry and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError(msg.into()))
}

/// A number written as a JSON number or a decimal / `0x` hex string.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
enum Num {
    N(u64),
    S(String),
}

impl Num {
    fn get(&self, what: &str) -> Result<u64, ConfigError> {
        match self {
            Num::N(n) => Ok(*n),
            Num::S(s) => {
                let t = s.trim();
                let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
                    None => t.replace('_', "").parse::<u64>(),
                };
                r.or_else(|_| err(format!("{what}: `{s}` is not a number")))
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEndpoint {
    mac: String,
    ip: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQp {
    qpn: Num,
    dest_qpn: Num,
    rq_psn: Num,
    sq_psn: Num,
    pmtu: Num,
    #[serde(default)]
    access: Vec<String>,
    #[serde(default)]
    sq_depth: Option<Num>,
    #[serde(default)]
    rq_depth: Option<Num>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMr {
    va: Num,
    len: Num,
    rkey: Num,
    #[serde(default)]
    access: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecv {
    qpn: Num,
    len: Num,
    count: Num,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    local: RawEndpoint,
    remote: RawEndpoint,
    #[serde(default)]
    qps: Vec<RawQp>,
    #[serde(default)]
    mrs: Vec<RawMr>,
    #[serde(default)]
    recv_buffers: Vec<RawRecv>,
}

/// One end of the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub mac: [u8; 6],
    pub ip: IpAddr,
}

/// A QP, connected (RTS) to `dest_qpn` on the remote end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QpConfig {
    pub qpn: u32,
    pub dest_qpn: u32,
    /// The responder's first expected PSN.
    pub rq_psn: u32,
    /// The requester's first PSN.
    pub sq_psn: u32,
    /// Path MTU in bytes (256, 512, 1024, 2048 or 4096).
    pub pmtu: u32,
    pub access: AccessFlags,
    /// log2 of the send queue's entries: `qps[].sq_depth` rounded up to a power of two, else
    /// the smallest ring.
    pub sq_log2_entries: u8,
    /// log2 of the receive queue's entries: `qps[].rq_depth` rounded up to a power of two, else
    /// the smallest power of two that holds every receive `recv_buffers` posts on the QP.
    pub rq_log2_entries: u8,
}

/// log2 of the smallest ring of at least `n` entries (and at least [`MIN_WQ_ENTRIES`]).
fn ring_log2(n: u32) -> u8 {
    n.max(MIN_WQ_ENTRIES).next_power_of_two().trailing_zeros() as u8
}

/// An optional queue depth: 1..=[`MAX_WQ_ENTRIES`].
fn depth(n: &Option<Num>, what: &str) -> Result<Option<u32>, ConfigError> {
    let Some(n) = n else { return Ok(None) };
    let v = n.get(what)?;
    if v == 0 || v > MAX_WQ_ENTRIES as u64 {
        return err(format!(
            "{what}: {v} entries (1 to {MAX_WQ_ENTRIES}, the hardware's largest queue)"
        ));
    }
    Ok(Some(v as u32))
}

/// A memory region as the remote sees it: `va`, `len`, `rkey`. The simulator backs it with
/// host memory at an IOVA of its own choosing; the MR entry translates `va` to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MrConfig {
    pub va: u64,
    pub len: u64,
    pub rkey: u32,
    pub access: AccessFlags,
}

/// `count` receive buffers of `len` bytes posted on QP `qpn`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvConfig {
    pub qpn: u32,
    pub len: u32,
    pub count: u32,
}

/// A validated `respond` configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RespondConfig {
    pub local: Endpoint,
    pub remote: Endpoint,
    pub qps: Vec<QpConfig>,
    pub mrs: Vec<MrConfig>,
    pub recv_buffers: Vec<RecvConfig>,
}

/// Parse `aa:bb:cc:dd:ee:ff` (or with `-`).
pub fn parse_mac(s: &str) -> Result<[u8; 6], ConfigError> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return err(format!(
            "`{s}` is not a MAC address (six hex bytes, aa:bb:cc:dd:ee:ff)"
        ));
    }
    let mut mac = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        if p.len() != 2 {
            return err(format!("`{s}` is not a MAC address (byte `{p}`)"));
        }
        mac[i] = u8::from_str_radix(p, 16)
            .or_else(|_| err(format!("`{s}` is not a MAC address (byte `{p}`)")))?;
    }
    Ok(mac)
}

fn parse_access(names: &[String], what: &str) -> Result<AccessFlags, ConfigError> {
    let mut a = 0u32;
    for n in names {
        a |= match n.as_str() {
            "local_write" => AccessFlags::LOCAL_WRITE.0,
            "remote_write" => AccessFlags::REMOTE_WRITE.0,
            "remote_read" => AccessFlags::REMOTE_READ.0,
            "remote_atomic" => AccessFlags::REMOTE_ATOMIC.0,
            other => {
                return err(format!(
                    "{what}: unknown access `{other}` (local_write, remote_write, remote_read, remote_atomic)"
                ))
            }
        };
    }
    Ok(AccessFlags(a))
}

fn endpoint(e: &RawEndpoint, what: &str) -> Result<Endpoint, ConfigError> {
    let mac = parse_mac(&e.mac).map_err(|x| ConfigError(format!("{what}.mac: {x}")))?;
    let ip = e.ip.parse::<IpAddr>().or_else(|_| {
        err(format!(
            "{what}.ip: `{}` is not an IPv4 or IPv6 address",
            e.ip
        ))
    })?;
    Ok(Endpoint { mac, ip })
}

fn bounded(n: &Num, what: &str, max: u64) -> Result<u64, ConfigError> {
    let v = n.get(what)?;
    if v > max {
        return err(format!("{what}: {v} is larger than {max}"));
    }
    Ok(v)
}

impl RespondConfig {
    /// Parse and validate the JSON text of a configuration file.
    pub fn from_json(text: &str) -> Result<RespondConfig, ConfigError> {
        let raw: RawConfig = serde_json::from_str(text)
            .or_else(|e| err(format!("not a respond configuration: {e}")))?;
        let local = endpoint(&raw.local, "local")?;
        let remote = endpoint(&raw.remote, "remote")?;
        if local.ip.is_ipv4() != remote.ip.is_ipv4() {
            return err("local.ip and remote.ip must both be IPv4 or both IPv6");
        }
        let mut qps = vec![];
        let mut rq_depths = vec![];
        for (i, q) in raw.qps.iter().enumerate() {
            let w = |f: &str| format!("qps[{i}].{f}");
            let qpn = bounded(&q.qpn, &w("qpn"), MAX_QPN as u64)? as u32;
            if qpn < 2 {
                return err(format!(
                    "{}: QPN {qpn} is reserved (0 and 1 are special QPs)",
                    w("qpn")
                ));
            }
            if qps.iter().any(|x: &QpConfig| x.qpn == qpn) {
                return err(format!("{}: QPN {qpn} appears twice", w("qpn")));
            }
            let pmtu = q.pmtu.get(&w("pmtu"))? as u32;
            if ![256, 512, 1024, 2048, 4096].contains(&pmtu) {
                return err(format!(
                    "{}: {pmtu} is not a path MTU (256, 512, 1024, 2048, 4096)",
                    w("pmtu")
                ));
            }
            let access = parse_access(&q.access, &w("access"))?;
            if access.contains(AccessFlags::LOCAL_WRITE) {
                return err(format!(
                    "{}: local_write is an MR right, not a QP one",
                    w("access")
                ));
            }
            let sq_depth = depth(&q.sq_depth, &w("sq_depth"))?;
            rq_depths.push(depth(&q.rq_depth, &w("rq_depth"))?);
            qps.push(QpConfig {
                qpn,
                dest_qpn: bounded(&q.dest_qpn, &w("dest_qpn"), 0xFF_FFFF)? as u32,
                rq_psn: bounded(&q.rq_psn, &w("rq_psn"), 0xFF_FFFF)? as u32,
                sq_psn: bounded(&q.sq_psn, &w("sq_psn"), 0xFF_FFFF)? as u32,
                pmtu,
                access,
                sq_log2_entries: ring_log2(sq_depth.unwrap_or(MIN_WQ_ENTRIES)),
                // set once the receive buffers are known
                rq_log2_entries: 0,
            });
        }
        let mut mrs: Vec<MrConfig> = vec![];
        for (i, m) in raw.mrs.iter().enumerate() {
            let w = |f: &str| format!("mrs[{i}].{f}");
            let va = m.va.get(&w("va"))?;
            let len = m.len.get(&w("len"))?;
            if len == 0 || len > (1 << 30) {
                return err(format!("{}: {len} bytes (1 B to 1 GiB)", w("len")));
            }
            if va.checked_add(len).is_none() {
                return err(format!("{}: va + len overflows 64 bits", w("va")));
            }
            let rkey = bounded(&m.rkey, &w("rkey"), u32::MAX as u64)? as u32;
            if mr::key_index(rkey) >= MR_INDICES {
                return err(format!(
                    "{}: {rkey:#x} names MR index {} (the NIC's keys are index << 8 | key byte, index < {MR_INDICES})",
                    w("rkey"),
                    mr::key_index(rkey)
                ));
            }
            if let Some(j) = mrs
                .iter()
                .position(|x| mr::key_index(x.rkey) == mr::key_index(rkey))
            {
                return err(format!(
                    "{}: {rkey:#x} uses the same MR index as mrs[{j}] ({:#x})",
                    w("rkey"),
                    mrs[j].rkey
                ));
            }
            let access = parse_access(&m.access, &w("access"))?;
            mrs.push(MrConfig {
                va,
                len,
                rkey,
                access,
            });
        }
        let mut recv_buffers = vec![];
        for (i, r) in raw.recv_buffers.iter().enumerate() {
            let w = |f: &str| format!("recv_buffers[{i}].{f}");
            let qpn = r.qpn.get(&w("qpn"))? as u32;
            if !qps.iter().any(|q| q.qpn as u64 == qpn as u64) {
                return err(format!("{}: QP {qpn} is not in qps", w("qpn")));
            }
            recv_buffers.push(RecvConfig {
                qpn,
                len: bounded(&r.len, &w("len"), 1 << 31)? as u32,
                count: bounded(&r.count, &w("count"), MAX_WQ_ENTRIES as u64)? as u32,
            });
        }
        // each receive queue: as asked, or just large enough for what is posted on it
        for (i, q) in qps.iter_mut().enumerate() {
            let posted: u64 = recv_buffers
                .iter()
                .filter(|r| r.qpn == q.qpn)
                .map(|r| r.count as u64)
                .sum();
            let entries = match rq_depths[i] {
                Some(d) if posted > d as u64 => {
                    return err(format!(
                        "recv_buffers: {posted} receives on QP {} do not fit qps[{i}].rq_depth ({d})",
                        q.qpn
                    ))
                }
                Some(d) => d,
                None if posted > MAX_WQ_ENTRIES as u64 => {
                    return err(format!(
                        "recv_buffers: {posted} receives on QP {} do not fit the hardware's largest receive queue ({MAX_WQ_ENTRIES} entries)",
                        q.qpn
                    ))
                }
                None => posted as u32,
            };
            q.rq_log2_entries = ring_log2(entries);
        }
        Ok(RespondConfig {
            local,
            remote,
            qps,
            mrs,
            recv_buffers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{
      "local": {"mac": "02:00:00:00:00:02", "ip": "10.0.0.2"},
      "remote": {"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"},
      "qps": [{"qpn": 17, "dest_qpn": "0x11", "rq_psn": 100, "sq_psn": 0, "pmtu": 1024,
               "access": ["remote_write", "remote_read"]}],
      "mrs": [{"va": "0x7f0000001000", "len": 65536, "rkey": "0x1234", "access": ["local_write", "remote_write"]}],
      "recv_buffers": [{"qpn": 17, "len": 4096, "count": 8}]
    }"#;

    #[test]
    fn parses_the_documented_format() {
        let c = RespondConfig::from_json(GOOD).unwrap();
        assert_eq!(c.local.mac, [2, 0, 0, 0, 0, 2]);
        assert_eq!(c.remote.ip, "10.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(c.qps[0].qpn, 17);
        assert_eq!(c.qps[0].dest_qpn, 17);
        assert_eq!(c.qps[0].rq_psn, 100);
        assert_eq!(
            c.qps[0].access,
            AccessFlags(AccessFlags::REMOTE_WRITE.0 | AccessFlags::REMOTE_READ.0)
        );
        assert_eq!(c.mrs[0].va, 0x7f00_0000_1000);
        assert_eq!(c.mrs[0].rkey, 0x1234);
        assert_eq!(c.recv_buffers[0].count, 8);
    }

    fn bad(from: &str, to: &str, needle: &str) {
        let text = GOOD.replacen(from, to, 1);
        assert_ne!(text, GOOD, "replacement `{from}` not found");
        let e = RespondConfig::from_json(&text).unwrap_err();
        assert!(e.0.contains(needle), "{e} (expected `{needle}`)");
    }

    #[test]
    fn names_what_is_wrong() {
        bad("02:00:00:00:00:02", "02:00:00:00:02", "local.mac");
        bad("10.0.0.2", "10.0.0.300", "local.ip");
        bad("\"10.0.0.1\"", "\"fe80::1\"", "IPv4 or both IPv6");
        bad("\"qpn\": 17", "\"qpn\": 1", "reserved");
        bad("\"qpn\": 17", "\"qpn\": 300", "qps[0].qpn");
        bad("\"pmtu\": 1024", "\"pmtu\": 1500", "path MTU");
        bad("\"remote_read\"]", "\"remote_reed\"]", "unknown access");
        bad("\"rkey\": \"0x1234\"", "\"rkey\": \"0x123456\"", "MR index");
        bad("\"rkey\": \"0x1234\"", "\"rkey\": \"zz\"", "not a number");
        bad("\"len\": 65536", "\"len\": 0", "mrs[0].len");
        bad(
            "{\"qpn\": 17, \"len\"",
            "{\"qpn\": 18, \"len\"",
            "not in qps",
        );
        bad(
            "\"count\": 8",
            "\"count\": 8, \"extra\": 1",
            "unknown field",
        );
        bad("\"rq_psn\": 100", "\"rq_psn\": 16777216", "rq_psn");
    }

    #[test]
    fn queues_are_sized_for_the_receives() {
        let c = RespondConfig::from_json(GOOD).unwrap();
        // 8 receives: an 8-entry receive queue; the send queue the smallest ring
        assert_eq!((c.qps[0].rq_log2_entries, c.qps[0].sq_log2_entries), (3, 1));
        let many = GOOD.replace("\"count\": 8", "\"count\": 216");
        assert_eq!(
            RespondConfig::from_json(&many).unwrap().qps[0].rq_log2_entries,
            8
        );
        // two entries on one QP add up
        let two = GOOD.replace(
            "\"recv_buffers\": [",
            "\"recv_buffers\": [{\"qpn\": 17, \"len\": 64, \"count\": 9},",
        );
        assert_eq!(
            RespondConfig::from_json(&two).unwrap().qps[0].rq_log2_entries,
            5
        );
        // an explicit depth, rounded up to a power of two
        let deep = GOOD.replace(
            "\"pmtu\": 1024,",
            "\"pmtu\": 1024, \"rq_depth\": 1000, \"sq_depth\": 3,",
        );
        let q = &RespondConfig::from_json(&deep).unwrap().qps[0];
        assert_eq!((q.rq_log2_entries, q.sq_log2_entries), (10, 2));
        bad(
            "\"pmtu\": 1024,",
            "\"pmtu\": 1024, \"rq_depth\": 4,",
            "do not fit qps[0].rq_depth",
        );
        bad(
            "\"pmtu\": 1024,",
            "\"pmtu\": 1024, \"rq_depth\": 40000,",
            "qps[0].rq_depth: 40000 entries",
        );
        bad(
            "\"pmtu\": 1024,",
            "\"pmtu\": 1024, \"sq_depth\": 0,",
            "qps[0].sq_depth",
        );
        bad("\"count\": 8", "\"count\": 40000", "recv_buffers[0].count");
        let two_big = GOOD.replace(
            "\"recv_buffers\": [",
            "\"recv_buffers\": [{\"qpn\": 17, \"len\": 64, \"count\": 32767},",
        );
        let e = RespondConfig::from_json(&two_big).unwrap_err();
        assert!(e.0.contains("largest receive queue (32768 entries)"), "{e}");
    }

    #[test]
    fn duplicate_mr_index_is_refused() {
        let text = GOOD.replace(
            "\"mrs\": [",
            "\"mrs\": [{\"va\": 0, \"len\": 16, \"rkey\": \"0x12ff\"},",
        );
        let e = RespondConfig::from_json(&text).unwrap_err();
        assert!(e.0.contains("same MR index"), "{e}");
    }
}
