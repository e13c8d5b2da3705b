//! A first RDMA program on ferroce: two NICs, one RC connection, an RDMA WRITE and a SEND.
//!
//! ```sh
//! cargo run --release --example two_nics              # the NICs as Verilator models (fast)
//! cargo run --release --example two_nics -- --rust-hdl  # the rust-hdl simulation (slow, no tools)
//! ```
//!
//! The Verilator engine compiles the NIC's emitted Verilog on first use (about a minute, then
//! cached); it needs verilator, make and g++ (`bash scripts/install-tools.sh`).
//!
//! Everything in [`application`] goes through the driver's verbs API (`ferroce_driver`), as a
//! program on a real machine would: open the device, register memory, create and connect the
//! queue pairs, post work requests, poll completions. Only [`main`] knows the NICs are
//! simulated: it builds one driver backend per NIC. To run the same application on two boards,
//! replace the backend line in `main` with one backend per board from VFIO (driver feature
//! `vfio`, the default of `ferroce-driver`; see driver/src/backend/vfio):
//!
//! ```ignore
//! use ferroce_driver::backend::vfio::VfioBackend;
//! let nics: [Arc<dyn Backend>; 2] = [
//!     Arc::new(VfioBackend::open("0000:01:00.0")?),
//!     Arc::new(VfioBackend::open("0000:02:00.0")?),
//! ];
//! ```
//!
//! (On two boards the ports must be cabled to each other, and the MAC and IP addresses below
//! must be the ones the boards use.)

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferroce_driver::backend::Backend;
use ferroce_driver::{
    AccessFlags, AddressVector, CompletionQueue, Device, MemoryRegion, Pmtu, ProtectionDomain,
    QpCapabilities, QpInitAttr, QueuePair, RecvWr, Remote, RtrAttr, RtsAttr, SendWr, WcOpcode,
    WcStatus,
};
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Bench;
use ferroce_proto::host::config::{Gid, GidEntry};
use ferroce_proto::host::regs::cfg_control;
use ferroce_sim::host::{HostMemory, ShellConfig, SimBackend};
use ferroce_sim::nic_pair::{NicPair, PairSide};
use ferroce_sim::nic_system::NicHardware;
use ferroce_sim::nic_verilated::VerilatedNic;

/// The two hosts' addresses (RoCEv2 over IPv4: GID 0 is the IPv4-mapped address).
const MAC: [[u8; 6]; 2] = [[0x02, 0xfe, 0, 0, 0, 0x0a], [0x02, 0xfe, 0, 0, 0, 0x0b]];
const IP: [[u8; 4]; 2] = [[10, 0, 0, 1], [10, 0, 0, 2]];
/// Each side's initial send PSN (any 24-bit values; the peer expects them).
const PSN: [u32; 2] = [0x00_1000, 0xff_fff0];

/// The registered buffer of each host, and where the messages go in it.
const BUF_LEN: usize = 64 * 1024;
const WRITE_LEN: usize = 10_000; // several packets at PMTU 1024
const WRITE_SRC: usize = 0; // in host A's buffer
const WRITE_DST: usize = 16 * 1024; // in host B's buffer
const SEND_LEN: usize = 3_000;
const SEND_SRC: usize = 12 * 1024; // in host A's buffer
const RECV_DST: usize = 32 * 1024; // host B's receive buffer
const RECV_LEN: u32 = 4096; // room for the SEND

/// How long (device time) to wait for the completions.
const TIMEOUT: Duration = Duration::from_millis(20);

pub fn main() -> Result<(), String> {
    let rust_hdl = std::env::args().any(|a| a == "--rust-hdl");
    // A thread with a big stack: building the Verilator model walks the whole NIC recursively.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            // The backend line: simulated NICs (see the top of the file for boards over VFIO).
            let nics = if rust_hdl {
                simulated([
                    Bench::new(NicTop::default(), |u| &mut u.clock),
                    Bench::new(NicTop::default(), |u| &mut u.clock),
                ])
            } else {
                simulated([VerilatedNic::new()?, VerilatedNic::new()?])
            };
            application(nics)
        })
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "the application thread panicked".to_string())?
}

/// Two simulated NICs back to back on a perfect link, each with its own host memory, as two
/// driver backends. Both share one clock: waiting on either steps both.
fn simulated<H: NicHardware + Send + 'static>(hw: [H; 2]) -> [Arc<dyn Backend>; 2] {
    let memory = [HostMemory::shared(), HostMemory::shared()];
    let pair = Arc::new(Mutex::new(NicPair::new(
        hw,
        memory.clone(),
        ShellConfig::ideal(),
        false,
    )));
    let [mem_a, mem_b] = memory;
    let side = |side| PairSide {
        pair: pair.clone(),
        side,
    };
    [
        Arc::new(SimBackend::new(side(0), mem_a)),
        Arc::new(SimBackend::new(side(1), mem_b)),
    ]
}

/// One host's verbs objects. Dropping them destroys the QP, deregisters the memory, and so on.
struct Host {
    // field order is drop order: the QP before its CQ, the MR before its PD
    qp: QueuePair,
    mr: MemoryRegion,
    cq: CompletionQueue,
    _pd: ProtectionDomain,
    _device: Device,
}

/// Open a NIC and set up what one RC connection needs.
fn open(backend: Arc<dyn Backend>, side: usize) -> Result<Host, String> {
    let device = Device::open(backend).map_err(err("opening the NIC"))?;
    device.set_mac(MAC[side]);
    device
        .set_gid(0, &GidEntry::ipv4(IP[side].into()))
        .map_err(err("setting GID 0"))?;
    device
        .set_control(cfg_control::RX_ENABLE | cfg_control::TX_ENABLE)
        .map_err(err("enabling the NIC"))?;
    let pd = device.alloc_pd().map_err(err("allocating a PD"))?;
    let cq = device.create_cq(16, 0).map_err(err("creating a CQ"))?;
    // DMA memory the NIC can reach, registered for local writes (receives land in it) and
    // remote writes (the peer's RDMA WRITE lands in it)
    let buf = device
        .alloc_dma(BUF_LEN, 4096)
        .map_err(err("allocating DMA memory"))?;
    let mr = pd
        .register(
            Arc::new(buf),
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .map_err(err("registering memory"))?;
    let qp = pd
        .create_qp(&QpInitAttr {
            send_cq: &cq,
            recv_cq: &cq,
            cap: QpCapabilities::default(),
            sq_sig_all: false,
        })
        .map_err(err("creating a QP"))?;
    Ok(Host {
        qp,
        mr,
        cq,
        _pd: pd,
        _device: device,
    })
}

/// RESET -> INIT -> RTR -> RTS for `hosts[side]`'s QP, connected to the peer's QP.
fn connect(hosts: &[Host; 2], side: usize) -> Result<(), String> {
    let peer = 1 - side;
    let qp = &hosts[side].qp;
    qp.to_init(AccessFlags::REMOTE_WRITE)
        .map_err(err("QP to INIT"))?;
    qp.to_rtr(&RtrAttr {
        av: AddressVector {
            dmac: MAC[peer],
            dgid: Gid::from_ipv4(IP[peer].into()),
            ..AddressVector::default()
        },
        path_mtu: Pmtu::Mtu1024,
        dest_qpn: hosts[peer].qp.qpn(),
        rq_psn: PSN[peer],
        max_dest_rd_atomic: 0,
        min_rnr_timer: 12,
    })
    .map_err(err("QP to RTR"))?;
    qp.to_rts(&RtsAttr {
        sq_psn: PSN[side],
        ..RtsAttr::default()
    })
    .map_err(err("QP to RTS"))?;
    Ok(())
}

/// The application: host A writes 10 000 bytes into host B's memory with an RDMA WRITE, then
/// sends it 3 000 bytes with a SEND into a buffer host B posted; both sides poll their
/// completions and the bytes are compared.
pub fn application(backends: [Arc<dyn Backend>; 2]) -> Result<(), String> {
    let [backend_a, backend_b] = backends;
    let hosts = [open(backend_a, 0)?, open(backend_b, 1)?];
    connect(&hosts, 0)?;
    connect(&hosts, 1)?;
    let [a, b] = &hosts;

    // the data: some recognisable bytes in host A's buffer
    let write_data: Vec<u8> = (0..WRITE_LEN).map(|i| (i * 7 + 1) as u8).collect();
    let send_data: Vec<u8> = (0..SEND_LEN).map(|i| (i * 13 + 5) as u8).collect();
    a.mr.write(WRITE_SRC, &write_data)
        .map_err(err("filling host A's buffer"))?;
    a.mr.write(SEND_SRC, &send_data)
        .map_err(err("filling host A's buffer"))?;

    // host B posts a receive for the SEND (before the SEND can arrive)
    let recv = RecvWr::new(
        100,
        vec![b.mr.sge(RECV_DST, RECV_LEN).map_err(err("receive SGE"))?],
    );
    b.qp.post_recv(&[recv])
        .map_err(err("posting the receive"))?;

    // host A: an RDMA WRITE to host B's buffer (its address and rkey would travel out of band
    // on real machines), then a SEND; both signaled, so each gets a completion
    let remote = Remote {
        va: b.mr.addr(WRITE_DST),
        rkey: b.mr.rkey(),
    };
    let write = SendWr::write(
        1,
        remote,
        vec![a
            .mr
            .sge(WRITE_SRC, WRITE_LEN as u32)
            .map_err(err("WRITE SGE"))?],
    )
    .signaled();
    let send = SendWr::send(
        2,
        vec![a
            .mr
            .sge(SEND_SRC, SEND_LEN as u32)
            .map_err(err("SEND SGE"))?],
    )
    .signaled();
    a.qp.post_send(&[write, send])
        .map_err(err("posting the WRITE and the SEND"))?;

    // poll: host A gets the WRITE's and the SEND's completions (in posting order), host B the
    // receive's; polling lets the simulated clock run
    let done = a.cq.poll_until(2, 2, TIMEOUT).map_err(err("polling A"))?;
    let wc: Vec<_> = done.iter().map(|c| (c.wr_id, c.status, c.opcode)).collect();
    let want = vec![
        (1, WcStatus::Success, WcOpcode::RdmaWrite),
        (2, WcStatus::Success, WcOpcode::Send),
    ];
    if wc != want {
        return Err(format!("host A's completions: {wc:?}, expected {want:?}"));
    }
    let got = b.cq.poll_until(1, 1, TIMEOUT).map_err(err("polling B"))?;
    let Some(r) = got.first() else {
        return Err("host B got no receive completion".into());
    };
    if (r.wr_id, r.status, r.opcode, r.byte_len)
        != (100, WcStatus::Success, WcOpcode::Recv, SEND_LEN as u32)
    {
        return Err(format!("host B's receive completion: {r:?}"));
    }

    // the bytes, read back from host B's memory
    let mut landed = vec![0u8; WRITE_LEN];
    b.mr.read(WRITE_DST, &mut landed)
        .map_err(err("reading host B's buffer"))?;
    if landed != write_data {
        return Err("the RDMA WRITE's bytes differ at host B".into());
    }
    let mut received = vec![0u8; SEND_LEN];
    b.mr.read(RECV_DST, &mut received)
        .map_err(err("reading host B's buffer"))?;
    if received != send_data {
        return Err("the SEND's bytes differ at host B".into());
    }
    println!(
        "RDMA WRITE of {WRITE_LEN} bytes and SEND of {SEND_LEN} bytes from QP {} to QP {}: \
         completions and bytes verified",
        a.qp.qpn(),
        b.qp.qpn()
    );
    Ok(())
}

/// Turns a driver error into a message that says what was being done.
fn err<E: std::fmt::Display>(what: &'static str) -> impl Fn(E) -> String {
    move |e| format!("{what}: {e}")
}
