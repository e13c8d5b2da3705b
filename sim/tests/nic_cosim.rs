//! The whole NIC (`NicTop`: CSR block, RX parser, WRITE responder, requester, CQE writer,
//! packet formatter, TX builder) co-simulated: rust-hdl and its emitted Verilog under Verilator in lock step, every output
//! compared at every settle and clock edge, while the host programs the NIC through AXI4-Lite,
//! the DMA shell serves host memory with random stalls, and RDMA WRITE requests (good, and one
//! that violates the MR) arrive on the MAC. Any difference in any output fails the test; the
//! system-level results are checked too, so the run is known to have exercised the design.
//! A second test runs two such lock-step NICs against each other under the driver (a `ferroce
//! verbs` run: WRITE, SEND, READ and both atomics, lost frames, a NAK and timer expiries), so
//! the requester side is held to its Verilog as well.
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

/// Both NICs of a verbs run in lock step (rust-hdl against the emitted Verilog, every output of
/// each compared at every settle and clock edge), driven by the driver: WRITEs, SENDs, READs and
/// both atomics on two QPs each way, over a link that loses frames, with a short local ACK
/// timeout (4.096 us x 2^1). Each direction runs through both sizes, then the next operation, so
/// 10 messages a direction cover all five. Seed 9 loses three frames each way; recovery takes a
/// PSN-sequence NAK and local ACK timer expiries at both requesters, with packets sent again
/// (5,331 cycles, the same as on the Verilator engine alone). So the
/// requester, its completer and timer, the CQE writer, the READ and atomic responders and the
/// READ-response and atomic-result placement all run in lock step. Any difference fails.
#[test]
fn two_nics_in_lock_step_through_reads_atomics_a_timeout_and_lost_frames() {
    if !require_tool("verilator") {
        return;
    }
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(verbs_in_lock_step)
        .unwrap()
        .join()
        .unwrap();
}

fn verbs_in_lock_step() {
    use ferroce_hdl::cosim::CoSim;
    use ferroce_sim::cmd::verbs::{run_on_with, RunHooks, VerbOp, VerbsArgs, VerbsLinkArgs};
    let args = VerbsArgs {
        ops: ["write", "send", "read", "atomic_fadd", "atomic_cas"]
            .map(String::from)
            .to_vec(),
        sizes: ["1", "2100"].map(String::from).to_vec(),
        qps: 2,
        messages: 20,
        seed: 9,
        ..VerbsArgs::default()
    };
    let link = VerbsLinkArgs {
        loss: 0.05,
        timeout: Some(1),
        ..VerbsLinkArgs::default()
    };
    let nic = || CoSim::new(NicTop::default(), |u: &mut NicTop| &mut u.clock);
    let t0 = std::time::Instant::now();
    let r = run_on_with(&args, &link, [nic(), nic()], RunHooks::default()).unwrap();
    eprintln!(
        "{} cycles in lock step, {:.1} s: {} messages verified, NAKs {:?}, timeouts {:?}, packets sent again {:?}, frames lost {} / {}",
        r.cycles,
        t0.elapsed().as_secs_f64(),
        r.verified,
        r.naks,
        r.timeouts,
        r.retransmitted,
        r.link[0].dropped,
        r.link[1].dropped
    );
    assert_eq!(r.failed, 0, "{:?}", r.errors);
    assert_eq!(r.verified, r.messages, "{:?}", r.errors);
    for op in [
        VerbOp::Write,
        VerbOp::Send,
        VerbOp::Read,
        VerbOp::AtomicFadd,
        VerbOp::AtomicCas,
    ] {
        assert!(
            r.records.iter().any(|m| m.op == op && m.ok),
            "no verified {op:?}"
        );
    }
    assert!(
        r.link[0].dropped > 0 && r.link[1].dropped > 0,
        "{:?}",
        r.link
    );
    assert!(r.naks.iter().sum::<u64>() > 0, "no NAK: {:?}", r.naks);
    assert!(r.timeouts.iter().sum::<u64>() > 0, "no timer expiry");
    assert!(r.retransmitted.iter().sum::<u64>() > 0);
}
