//! `ferroce respond --config NIC.json --in IN.pcap --out OUT.pcap [--json]`: one simulated NIC
//! (the cycle-accurate hardware, [`NicSystem`]) configured from a file through its registers,
//! receives the frames of IN in order on its MAC; OUT holds every frame it transmits.
//!
//! Configuration goes through the driver's register layer exactly as on a board: reset,
//! MAC and GID 0, one PD, the MRs with the file's keys (backed by host memory at IOVAs the
//! simulator picks; the MR entry translates the file's VA), a CQ, and each QP taken RESET ->
//! INIT -> RTR -> RTS with the file's QPN, PSNs, PMTU and access flags (docs/RESPOND.md).
//!
//! The summary lists the NIC's DMA writes into host memory (each with its IOVA, its length, and
//! where it falls in the remote's view: the MR's rkey and VA), the frames accepted and dropped
//! by reason, the responder's events, the frames sent, and the NIC's `CNT_*` counters read
//! through BAR0 by the driver.
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use ferroce_driver::backend::Backend;
use ferroce_driver::Window;
use ferroce_driver::{Device, DeviceOptions};
use ferroce_proto::host::config::{Gid, GidEntry};
use ferroce_proto::host::mr::{key_index, make_key, MrEntry};
use ferroce_proto::host::qp::{
    transition_attrs, AccessFlags, AddressVector, Pmtu, QpAttr, QpAttrMask, QpCreate, QpState,
};
use ferroce_proto::host::regs;
use ferroce_proto::host::ring::owner_for;
use ferroce_proto::host::wqe::{RecvWqe, Sge};
use ferroce_proto::pcap::{self, PcapWriter};
use serde_json::{json, Value};

use super::verbs::Engine;
use super::CliError;
use crate::host::{HostMemory, ShellConfig, SimBackend};
use crate::nic_system::{NicHardware, NicSystem};
use crate::nic_verilated::VerilatedNic;
use crate::respond_config::{MrConfig, RespondConfig};
use crate::vcd::{VcdBench, VcdWindow};
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Bench;

/// The one protection domain every MR and QP of a respond configuration shares.
pub const RESPOND_PD: u32 = 1;
/// The MR table index of the first receive-buffer region (the next ones count down from it):
/// the top of the default 1024-entry table.
pub const RECV_MR_TOP: u32 = 1023;
/// Cycles of quiet after a frame before the next one is offered (the NIC has answered it).
const QUIET: u64 = 64;
/// Cycles a single frame may keep the NIC busy before the replay gives up on it.
const FRAME_LIMIT: u64 = 200_000;

fn cli<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> CliError + '_ {
    move |e| CliError(format!("{what}: {e}"))
}

fn gid_of(ip: std::net::IpAddr) -> GidEntry {
    match ip {
        std::net::IpAddr::V4(a) => GidEntry::ipv4(a),
        std::net::IpAddr::V6(a) => GidEntry::ipv6(a),
    }
}

/// Where an IOVA falls in the remote's view of the configured MRs.
fn remote_view(mrs: &[(MrConfig, u64)], iova: u64) -> Value {
    for (m, base) in mrs {
        if iova >= *base && iova < base + m.len {
            return json!({"rkey": m.rkey, "va": m.va + (iova - base)});
        }
    }
    Value::Null
}

/// A configured NIC ready to receive: the backend (owning the NIC, hardware model `H`), the
/// device, and each MR with the IOVA backing it.
pub struct RespondNic<H: NicHardware + Send + 'static> {
    pub backend: Arc<SimBackend<NicSystem<H>>>,
    pub device: Device,
    pub mrs: Vec<(MrConfig, u64)>,
    /// Buffers that back MRs, rings and CQs: kept alive while the NIC may use them.
    _buffers: Vec<Arc<ferroce_driver::DmaBuffer>>,
    _cq: ferroce_driver::CompletionQueue,
}

/// Build the NIC around hardware model `hw` and program it from `config` through its
/// registers.
pub fn configure<H: NicHardware + Send + 'static>(
    hw: H,
    config: &RespondConfig,
) -> Result<RespondNic<H>, CliError> {
    let memory = HostMemory::shared();
    let sys = NicSystem::with_stepper(hw, memory.clone(), ShellConfig::ideal());
    let backend = Arc::new(SimBackend::new(sys, memory));
    let dynb: Arc<dyn Backend> = backend.clone();
    let device = Device::open_with(dynb, DeviceOptions::default())
        .map_err(cli("opening the simulated NIC"))?;
    device.set_mac(config.local.mac);
    device
        .set_gid(0, &gid_of(config.local.ip))
        .map_err(cli("GID 0"))?;
    let mut control = regs::cfg_control::RX_ENABLE | regs::cfg_control::TX_ENABLE;
    if config.local.ip.is_ipv6() {
        control |= regs::cfg_control::IPV6_ENABLE;
    }
    device.set_control(control).map_err(cli("CFG_CONTROL"))?;
    let r = device.registers();
    let mut buffers = vec![];
    let mut mrs = vec![];
    for (i, m) in config.mrs.iter().enumerate() {
        let buf = Arc::new(
            device
                .alloc_dma(m.len as usize, 4096)
                .map_err(cli(&format!("memory for mrs[{i}]")))?,
        );
        let entry = MrEntry {
            key: m.rkey,
            pd: RESPOND_PD,
            access: m.access,
            va: m.va,
            length: m.len,
            dma: buf.iova(),
        };
        let writes = entry
            .write_writes()
            .map_err(|e| CliError(format!("mrs[{i}]: {e}")))?;
        r.command(Window::Mr, &writes, |_| ())
            .map_err(cli(&format!("registering mrs[{i}]")))?;
        mrs.push((m.clone(), buf.iova()));
        buffers.push(buf);
    }
    // one CQ for every queue: room for a completion of every WQE the queues can hold
    let cq_entries: u32 = config
        .qps
        .iter()
        .map(|q| (1u32 << q.sq_log2_entries) + (1u32 << q.rq_log2_entries))
        .sum::<u32>()
        .max(64);
    let cq = device
        .create_cq(cq_entries, 0)
        .map_err(cli(&format!("creating the CQ ({cq_entries} entries)")))?;
    let remote_gid = match config.remote.ip {
        std::net::IpAddr::V4(a) => Gid::from_ipv4(a),
        std::net::IpAddr::V6(a) => Gid(a.octets()),
    };
    let mut rings = vec![];
    for (i, q) in config.qps.iter().enumerate() {
        let what = format!("qps[{i}] (QPN {})", q.qpn);
        let create = QpCreate {
            pd: RESPOND_PD,
            send_cqn: cq.cqn() as u16,
            recv_cqn: cq.cqn() as u16,
            sq_log2_entries: q.sq_log2_entries,
            rq_log2_entries: q.rq_log2_entries,
            ..QpCreate::default()
        };
        let sq = Arc::new(
            device
                .alloc_dma(create.sq_ring().map_err(cli(&what))?.bytes(), 4096)
                .map_err(cli(&what))?,
        );
        let rq = Arc::new(
            device
                .alloc_dma(create.rq_ring().map_err(cli(&what))?.bytes(), 4096)
                .map_err(cli(&what))?,
        );
        let create = QpCreate {
            sq_base: sq.iova(),
            rq_base: rq.iova(),
            ..create
        };
        buffers.push(sq);
        // (QPN, RQ ring memory, ring geometry, receives posted so far)
        rings.push((
            q.qpn,
            rq.clone(),
            create.rq_ring().map_err(cli(&what))?,
            0u32,
        ));
        buffers.push(rq);
        let attr = QpAttr {
            access: q.access,
            av: AddressVector {
                dmac: config.remote.mac,
                dgid: remote_gid,
                sgid_index: 0,
                ..AddressVector::default()
            },
            path_mtu: Pmtu::from_bytes(q.pmtu).expect("validated by RespondConfig"),
            rq_psn: q.rq_psn,
            sq_psn: q.sq_psn,
            dest_qpn: q.dest_qpn,
            create,
            ..QpAttr::default()
        };
        // each transition with exactly the attributes the QP state table requires
        let mut from = QpState::Reset;
        for state in [QpState::Init, QpState::Rtr, QpState::Rts] {
            let mask = QpAttrMask::STATE
                | transition_attrs(from, state)
                    .expect("RESET->INIT->RTR->RTS is allowed")
                    .required;
            from = state;
            let writes = QpAttr { state, ..attr }
                .modify_writes(q.qpn, mask)
                .map_err(|e| CliError(format!("{what}: {e}")))?;
            r.command(Window::Qp, &writes, |_| ())
                .map_err(cli(&format!("{what}: modify to {state:?}")))?;
        }
    }
    // receive buffers: one MR (LOCAL_WRITE) per entry, `count` receive WQEs of one SGE each
    // written into the QP's RQ ring, then its RQ doorbell, as the driver's post_recv does
    for (i, rb) in config.recv_buffers.iter().enumerate() {
        let what = format!("recv_buffers[{i}] (QPN {})", rb.qpn);
        let (_, ring_buf, ring, posted) = rings
            .iter_mut()
            .find(|(qpn, _, _, _)| *qpn == rb.qpn)
            .expect("RespondConfig checks that the QP exists");
        if *posted + rb.count > ring.entries() {
            // RespondConfig sizes the queue for every receive: a safety net
            return Err(CliError(format!(
                "{what}: {} receives do not fit the receive queue ({} entries)",
                *posted + rb.count,
                ring.entries()
            )));
        }
        let len = (rb.len as usize * rb.count as usize).max(1);
        let buf = Arc::new(
            device
                .alloc_dma(len, 4096)
                .map_err(cli(&format!("memory for {what}")))?,
        );
        // an MR table slot no configured MR uses: from the top of the table down
        let lkey = make_key(RECV_MR_TOP - i as u32, 0xEE);
        if config
            .mrs
            .iter()
            .any(|m| key_index(m.rkey) == key_index(lkey))
        {
            return Err(CliError(format!(
                "{what}: MR table slot {} is reserved for receive buffers",
                key_index(lkey)
            )));
        }
        let entry = MrEntry {
            key: lkey,
            pd: RESPOND_PD,
            access: AccessFlags::LOCAL_WRITE,
            va: buf.iova(),
            length: len as u64,
            dma: buf.iova(),
        };
        let writes = entry
            .write_writes()
            .map_err(|e| CliError(format!("{what}: {e}")))?;
        r.command(Window::Mr, &writes, |_| ())
            .map_err(cli(&format!("registering {what}")))?;
        let mut slot = vec![0u8; ring.stride()];
        for k in 0..rb.count {
            let sge = Sge {
                addr: buf.iova() + k as u64 * rb.len as u64,
                length: rb.len,
                lkey,
            };
            let index = *posted + k;
            slot.fill(0);
            RecvWqe::new(owner_for(index, ring.log2_entries), index as u64, vec![sge])
                .emit(&mut slot)
                .map_err(|e| CliError(format!("{what}: {e}")))?;
            ring_buf
                .write(ring.slot_offset(index), &slot)
                .map_err(cli(&what))?;
        }
        *posted += rb.count;
        let db = regs::rq_doorbell_write(rb.qpn, *posted);
        r.write(db.offset, db.value);
        buffers.push(buf);
    }
    Ok(RespondNic {
        backend,
        device,
        mrs,
        _buffers: buffers,
        _cq: cq,
    })
}

pub fn run(
    config: &Path,
    input: &Path,
    output: &Path,
    json_out: bool,
    engine: &str,
    vcd: Option<&VcdWindow>,
) -> Result<ExitCode, CliError> {
    let engine = Engine::parse(engine)?;
    if let Some(w) = vcd {
        w.check().map_err(CliError)?;
    }
    let vcd = vcd.cloned();
    let text = std::fs::read_to_string(config).map_err(cli(&config.display().to_string()))?;
    let config_v = RespondConfig::from_json(&text)
        .map_err(|e| CliError(format!("{}: {e}", config.display())))?;
    let capture = pcap::read_file(input)
        .and_then(|c| c.ensure_ethernet())
        .map_err(|e| CliError(e.to_string()))?;
    let writer =
        PcapWriter::create(output).map_err(|e| CliError(format!("{}: {e}", output.display())))?;
    let output = output.to_path_buf();
    std::thread::Builder::new()
        // emitting the NIC for Verilator recurses deeply
        .stack_size(256 << 20)
        .spawn(move || match (engine, vcd) {
            (Engine::Verilator, vcd) => {
                let hw = VerilatedNic::with_vcd(vcd).map_err(|e| {
                    CliError(format!("building the Verilator model of the NIC: {e}"))
                })?;
                replay(hw, &config_v, &capture, writer, &output, json_out)
            }
            (Engine::RustHdl, None) => {
                let hw = Bench::new(NicTop::default(), |u| &mut u.clock);
                replay(hw, &config_v, &capture, writer, &output, json_out)
            }
            (Engine::RustHdl, Some(w)) => {
                let hw = VcdBench::new(Bench::new(NicTop::default(), |u| &mut u.clock), w)
                    .map_err(CliError)?;
                replay(hw, &config_v, &capture, writer, &output, json_out)
            }
        })
        .map_err(cli("starting the simulation thread"))?
        .join()
        .map_err(|_| CliError("the simulation thread panicked".into()))?
}

/// Configure the NIC (hardware model `hw`), replay the capture, write what it sent, print the
/// summary.
fn replay<H: NicHardware + Send + 'static>(
    hw: H,
    config_v: &RespondConfig,
    capture: &pcap::Capture,
    mut writer: PcapWriter<std::io::BufWriter<std::fs::File>>,
    output: &Path,
    json_out: bool,
) -> Result<ExitCode, CliError> {
    let nic = configure(hw, config_v)?;
    let (frames_out, rx, resp, cycles, writes) = {
        let mut sys = nic.backend.target();
        let dma_before = sys.dma_writes_len();
        let start = sys.cycles();
        for rec in &capture.records {
            sys.receive(&rec.data);
            sys.run_until_quiet(QUIET, FRAME_LIMIT);
        }
        let out = sys.transmitted();
        let writes = sys.dma_writes_since(dma_before);
        (
            out,
            sys.rx_counts(),
            sys.resp_counts(),
            sys.cycles() - start,
            writes,
        )
    };
    for (i, f) in frames_out.iter().enumerate() {
        writer
            .write_packet(i as u64 * 1000, f)
            .map_err(|e| CliError(format!("{}: {e}", output.display())))?;
    }
    writer
        .flush()
        .map_err(|e| CliError(format!("{}: {e}", output.display())))?;
    // the NIC's own counters, read through BAR0 by the driver as on a board
    let counters: serde_json::Map<String, Value> = nic
        .device
        .counters()
        .into_iter()
        .map(|(name, v)| (name.to_ascii_lowercase(), json!(v)))
        .collect();
    let dma: Vec<Value> = writes
        .iter()
        .map(|w| json!({"address": w.addr, "length": w.len, "remote": remote_view(&nic.mrs, w.addr)}))
        .collect();
    let summary = json!({
        "frames_in": capture.records.len(),
        "frames_out": frames_out.len(),
        "accepted": rx.accepted,
        "dropped": {
            "bad_icrc": rx.bad_icrc, "truncated": rx.truncated, "length": rx.length,
            "oversize": rx.oversize, "unsupported": rx.unsupported,
            "mac_mismatch": rx.mac_mismatch, "bad_opcode": rx.bad_opcode,
        },
        "responder": {
            "executed": resp.executed, "duplicate": resp.duplicate, "psn_error": resp.psn_err,
            "access_error": resp.access_err, "invalid_request": resp.invalid,
            "unsupported": resp.unsupported, "qp_dropped": resp.qp_drop, "dma_error": resp.dma_error,
            "rnr_nak": resp.rnr, "receive_completions": resp.recv,
        },
        "dma_writes": dma,
        "counters": counters,
        "cycles": cycles,
    });
    if json_out {
        println!("{summary}");
    } else {
        println!(
            "respond: {} frames in, {} accepted, {} executed, {} NAKed (access {}, invalid {}, PSN {}), {} frames out, {} DMA writes, {} cycles",
            capture.records.len(),
            rx.accepted,
            resp.executed,
            resp.access_err + resp.invalid + resp.psn_err,
            resp.access_err,
            resp.invalid,
            resp.psn_err,
            frames_out.len(),
            writes.len(),
            cycles
        );
    }
    Ok(ExitCode::SUCCESS)
}
