//! The whole NIC (`NicTop`: CSR block, RX parser, WRITE responder, requester, CQE writer,
//! packet formatter, TX builder) co-simulated: rust-hdl and its emitted Verilog under Verilator in lock step, every output
//! compared at every settle and clock edge, while the host programs the NIC through AXI4-Lite,
//! the DMA shell serves host memory with random stalls, and RDMA WRITE requests (good, and one
//! that violates the MR) arrive on the MAC. Any difference in any output fails the test; the
//! system-level results are checked too, so the run is known to have exercised the design.
//!
//! Needs Verilator (fails when missing, like every outside-tool test: `ferroce_testkit`).
mod roce_frames;

use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::nic::NicTop;
use ferroce_hdl::testbench::Stepper;
use ferroce_proto::host::config::{mac_writes, Gid, GidEntry};
use ferroce_proto::host::cq::CqConfig;
use ferroce_proto::host::mr::{make_key, MrEntry};
use ferroce_proto::host::qp::{
    transition_attrs, AccessFlags, AddressVector, Pmtu, QpAttr, QpAttrMask, QpCreate, QpState,
};
use ferroce_proto::host::{regs, RegWrite};
use ferroce_proto::wire::{FrameBody, FrameRepr, Opcode};
use ferroce_sim::host::{lock, HostMemory, ShellConfig};
use ferroce_sim::nic_system::NicSystem;
use ferroce_testkit::require_tool;
use roce_frames::{request, REMOTE_MAC};

const QPN: u32 = 9;
const PD: u32 = 3;

/// Run one command sequence (its last write is the command register) and wait for its result.
fn command<S: Stepper<NicTop>>(sys: &mut NicSystem<S>, writes: &[RegWrite], status: u32) {
    for w in writes {
        sys.write32(w.offset, w.value);
    }
    for _ in 0..1000 {
        let s = sys.read32(status);
        if regs::cmd_status::BUSY.get(s) == 0 {
            assert_eq!(
                regs::cmd_status::RESULT.get(s),
                0,
                "command ending at {:#x} failed",
                writes.last().unwrap().offset
            );
            return;
        }
    }
    panic!("command at {status:#x} stayed busy");
}

#[test]
fn nic_top_verilog_matches_rust_hdl_through_a_write_exchange() {
    if !require_tool("verilator") {
        return;
    }
    // Emitting and walking a design this large recurses deeply in rust-hdl: a big stack.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(exchange)
        .unwrap()
        .join()
        .unwrap();
}

fn exchange() {
    let memory = HostMemory::shared();
    let (mr_iova, cq_iova, sq_iova, rq_iova) = {
        let mut m = lock(&memory);
        (
            m.alloc(4096, 4096).unwrap(),
            m.alloc(4096, 4096).unwrap(),
            m.alloc(4096, 4096).unwrap(),
            m.alloc(4096, 4096).unwrap(),
        )
    };
    let cosim = CoSim::new(NicTop::default(), |u| &mut u.clock);
    let mut sys = NicSystem::with_stepper(cosim, memory.clone(), ShellConfig::stressed(5));

    // ---- the host programs the NIC (the same encodings the driver uses)
    for w in mac_writes(roce_frames::LOCAL_MAC) {
        sys.write32(w.offset, w.value);
    }
    let gid = GidEntry::ipv4(roce_frames::LOCAL_IP.into());
    for w in gid.writes(0).unwrap() {
        sys.write32(w.offset, w.value);
    }
    let rkey = make_key(5, 0x42);
    let va = 0x5000_0000u64;
    let mr = MrEntry {
        key: rkey,
        pd: PD,
        access: AccessFlags(AccessFlags::LOCAL_WRITE.0 | AccessFlags::REMOTE_WRITE.0),
        va,
        length: 4096,
        dma: mr_iova,
    };
    command(&mut sys, &mr.write_writes().unwrap(), regs::MR_CMD_STATUS);
    let cq = CqConfig {
        base: cq_iova,
        log2_entries: 6,
        vector: 0,
        ci: 0,
    };
    command(&mut sys, &cq.create_writes(1).unwrap(), regs::CQ_CMD_STATUS);
    let attr = QpAttr {
        access: AccessFlags::REMOTE_WRITE,
        av: AddressVector {
            dmac: REMOTE_MAC,
            dgid: Gid::from_ipv4(roce_frames::REMOTE_IP.into()),
            ..AddressVector::default()
        },
        path_mtu: Pmtu::Mtu256,
        rq_psn: 0xFF_FFFE, // across the 24-bit wrap
        dest_qpn: 0x77,
        create: QpCreate {
            pd: PD,
            sq_base: sq_iova,
            rq_base: rq_iova,
            send_cqn: 1,
            recv_cqn: 1,
            ..QpCreate::default()
        },
        ..QpAttr::default()
    };
    let mut from = QpState::Reset;
    for state in [QpState::Init, QpState::Rtr] {
        let mask = QpAttrMask::STATE | transition_attrs(from, state).unwrap().required;
        from = state;
        let w = QpAttr { state, ..attr }.modify_writes(QPN, mask).unwrap();
        command(&mut sys, &w, regs::QP_CMD_STATUS);
    }

    // ---- the peer writes: ONLY, then FIRST/LAST across the PSN wrap, then a bad rkey
    let data: Vec<u8> = (0..300u32).map(|i| (i * 13 + 1) as u8).collect();
    let frames = [
        request(
            QPN,
            Opcode::RC_RDMA_WRITE_ONLY,
            0xFF_FFFE,
            Some((va + 8, rkey, 20)),
            data[..20].to_vec(),
        ),
        request(
            QPN,
            Opcode::RC_RDMA_WRITE_FIRST,
            0xFF_FFFF,
            Some((va + 100, rkey, 300)),
            data[..256].to_vec(),
        ),
        request(
            QPN,
            Opcode::RC_RDMA_WRITE_LAST,
            0,
            None,
            data[256..].to_vec(),
        ),
        request(
            QPN,
            Opcode::RC_RDMA_WRITE_ONLY,
            1,
            Some((va, rkey ^ 0x01, 16)),
            vec![9; 16],
        ),
    ];
    for f in &frames {
        sys.receive(f);
    }
    sys.run_until_quiet(200, 100_000);

    // ---- what the exchange did (so the comparison covered real traffic)
    let acks: Vec<(u32, u8)> = sys
        .transmitted()
        .iter()
        .map(|b| {
            let f = FrameRepr::parse(b).unwrap();
            let FrameBody::Roce(r) = f.body else {
                panic!("not RoCE")
            };
            assert!(r.icrc_ok());
            (r.bth.psn, r.ext.aeth.unwrap().syndrome)
        })
        .collect();
    assert_eq!(acks.len(), 3, "{acks:x?}");
    assert_eq!(acks[0].0, 0xFF_FFFE);
    assert_eq!(acks[1].0, 0);
    assert_eq!((acks[2].0, acks[2].1), (1, 0x62));
    let m = lock(&memory);
    assert_eq!(m.read_vec(mr_iova + 8, 20), data[..20]);
    assert_eq!(m.read_vec(mr_iova + 100, 300), data);
    assert_eq!(
        m.read_vec(mr_iova, 8),
        vec![0; 8],
        "the bad-rkey WRITE wrote nothing"
    );
    drop(m);
    let compares = sys.stepper().compares;
    assert!(compares > 1000, "only {compares} comparisons");
    eprintln!(
        "NicTop lock-step: {} cycles, {compares} comparison points, 0 mismatches",
        sys.cycles()
    );
}
