//! RDMA atomics (compare-and-swap, fetch-and-add) through two hardware NICs (the Verilator
//! model of the emitted Verilog), driven only through the driver's verbs API: results in the
//! requester's local SGE, the responder's read-modify-write on its host memory, the replay
//! cache answering a duplicate without executing it again, and the error cases (misaligned
//! address, QP without REMOTE_ATOMIC).
use ferroce_driver::{AccessFlags, Pmtu, Remote, RtrAttr, RtsAttr, SendWr, WcOpcode, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::host::config::Gid;
use ferroce_proto::host::qp::{AddressVector, QpState};
use ferroce_proto::host::regs;
use ferroce_proto::wire::Opcode;
use ferroce_sim::cmd::verbs::{
    open_pair, run_scenario, verilated_pair, Engine, Host, VerbsArgs, IPS, MACS,
};
use ferroce_sim::host::ShellConfig;
use ferroce_sim::nic_pair::{captured_roce, lock, SharedPair};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

fn rts(timeout: u8) -> RtsAttr {
    RtsAttr {
        timeout,
        retry_cnt: 7,
        rnr_retry: 7,
        ..RtsAttr::default()
    }
}

/// Connect QP 0 of both hosts with these QP access flags (at both ends).
fn connect_access(hosts: &[Host<VerilatedNic>; 2], access: AccessFlags, psn: [u32; 2]) {
    for side in 0..2 {
        let peer = 1 - side;
        let qp = &hosts[side].qps[0];
        qp.to_init(access).unwrap();
        qp.to_rtr(&RtrAttr {
            av: AddressVector {
                dmac: MACS[peer],
                dgid: Gid::from_ipv4(IPS[peer].into()),
                ..AddressVector::default()
            },
            path_mtu: Pmtu::Mtu1024,
            dest_qpn: hosts[peer].qps[0].qpn(),
            rq_psn: psn[peer],
            max_dest_rd_atomic: 4,
            min_rnr_timer: 1,
        })
        .unwrap();
        qp.to_rts(&RtsAttr {
            sq_psn: psn[side],
            ..rts(6)
        })
        .unwrap();
    }
}

fn word(h: &Host<VerilatedNic>, offset: usize) -> u64 {
    let mut b = [0u8; 8];
    h.mr.read(offset, &mut b).unwrap();
    u64::from_le_bytes(b)
}

fn set_word(h: &Host<VerilatedNic>, offset: usize, v: u64) {
    h.mr.write(offset, &v.to_le_bytes()).unwrap();
}

/// Opcodes of the frames `from` sent, in order.
fn opcodes(pair: &SharedPair<VerilatedNic>, from: usize) -> Vec<Opcode> {
    captured_roce(pair)
        .into_iter()
        .filter(|f| f.from == from)
        .map(|f| f.opcode)
        .collect()
}

/// Atomics from 8 QPs in both directions, mixed with WRITEs, SENDs and READs, with DMA jitter:
/// every compare-swap returns the value its word held, every fetch-add's original value fits
/// one serial order of all fetch-adds on that host, and the counter holds their exact sum;
/// every READ's bytes arrive exactly (checked by the scenario, which fails on any mismatch).
#[test]
fn atomics_from_many_qps_are_serial_and_exact() {
    if !require_tool("verilator") {
        return;
    }
    let args = VerbsArgs {
        ops: [
            "atomic_fadd",
            "atomic_cas",
            "write",
            "send",
            "atomic_fadd",
            "read",
        ]
        .map(String::from)
        .to_vec(),
        sizes: ["1", "100", "1500"].map(String::from).to_vec(),
        qps: 8,
        messages: 600,
        seed: 77,
        pmtu: 1024,
        pcap: None,
        json: false,
        dma_jitter: true,
        ipv6: false,
        vlan: None,
    };
    let r = run_scenario(&args, Engine::Verilator).unwrap();
    assert!(
        r.failed == 0 && r.verified == 600 && r.errors.is_empty(),
        "{r:?}"
    );
}

/// The ATOMIC ACKNOWLEDGE of a fetch-add is lost: the requester's ACK timer sends the request
/// again, the responder sees a duplicate and answers it from its replay cache with the same
/// original value, without adding again. Then a compare-swap that matches and one that does
/// not, each returning the word's value.
#[test]
fn a_lost_atomic_ack_is_answered_from_the_replay_cache() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(5);
    let (pair, hosts) = verilated_pair(1, 4096, true, Pmtu::Mtu1024, &mut rng, &rts(3)).unwrap();
    let [a, b] = &hosts;
    let target = b.atomic_area;
    set_word(b, target, 1000);
    set_word(a, 0, 0xdead_beef);
    let remote = Remote {
        va: b.mr.addr(target),
        rkey: b.mr.rkey(),
    };
    // B's first frame is the ATOMIC ACKNOWLEDGE: lost
    lock(&pair).lose_frames(1, [0]);
    a.qps[0]
        .post_send(&[SendWr::fetch_add(1, remote, 23, a.mr.sge(0, 8).unwrap()).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1, "no completion");
    assert_eq!(
        (wc[0].wr_id, wc[0].status, wc[0].opcode),
        (1, WcStatus::Success, WcOpcode::FetchAdd)
    );
    assert_eq!(word(a, 0), 1000, "the original value");
    assert_eq!(word(b, target), 1023, "added once");
    assert_eq!(a.device.counter(regs::CNT_ACK_TIMEOUT_LO), 1);
    assert_eq!(b.device.counter(regs::CNT_RX_DUPLICATE_LO), 1);
    let sent_a = opcodes(&pair, 0);
    assert_eq!(
        sent_a,
        [Opcode::RC_FETCH_ADD, Opcode::RC_FETCH_ADD],
        "request, and the same request again"
    );

    // compare-swap: a match swaps, a miss leaves the word; both return what it held
    let cas = |id: u64, compare: u64, swap: u64| {
        a.qps[0]
            .post_send(&[
                SendWr::cmp_swap(id, remote, compare, swap, a.mr.sge(8, 8).unwrap()).signaled(),
            ])
            .unwrap();
        let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
        assert_eq!(wc.len(), 1, "no completion for {id}");
        assert_eq!(
            (wc[0].wr_id, wc[0].status, wc[0].opcode),
            (id, WcStatus::Success, WcOpcode::CompSwap)
        );
        word(a, 8)
    };
    assert_eq!(cas(2, 1023, 0x0102_0304_0506_0708), 1023);
    assert_eq!(word(b, target), 0x0102_0304_0506_0708);
    assert_eq!(
        cas(3, 1023, 7),
        0x0102_0304_0506_0708,
        "a miss returns the word"
    );
    assert_eq!(
        word(b, target),
        0x0102_0304_0506_0708,
        "a miss does not swap"
    );
    let sent_b = opcodes(&pair, 1);
    assert!(
        sent_b.iter().all(|&o| o == Opcode::RC_ATOMIC_ACKNOWLEDGE),
        "{sent_b:?}"
    );
}

/// A misaligned atomic never reaches the wire: the driver refuses it with a typed error (the
/// responder's NAK 0x61 for one from another stack is tested on the block, `resp_write.rs`).
/// An atomic to a QP without REMOTE_ATOMIC is a remote access error (NAK 0x62):
/// REM_ACCESS_ERR, nothing written at either end, both QPs in ERR.
#[test]
fn misaligned_and_unauthorised_atomics_fail_without_writing() {
    if !require_tool("verilator") {
        return;
    }
    for (case, access, offset, want) in [
        (
            "misaligned",
            AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_ATOMIC,
            4,
            None,
        ),
        (
            "no REMOTE_ATOMIC",
            AccessFlags::REMOTE_WRITE,
            0,
            Some(WcStatus::RemAccessErr),
        ),
    ] {
        let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
        let (_pair, hosts) = open_pair(hw, ShellConfig::ideal(), 1, 4096, false).unwrap();
        connect_access(&hosts, access, [0x10, 0xFFFFFF]);
        let [a, b] = &hosts;
        let target = b.atomic_area + offset;
        set_word(b, target, 0x1111_2222_3333_4444);
        set_word(a, 0, 0x5555);
        let remote = Remote {
            va: b.mr.addr(target),
            rkey: b.mr.rkey(),
        };
        let posted =
            a.qps[0]
                .post_send(&[SendWr::fetch_add(9, remote, 1, a.mr.sge(0, 8).unwrap()).signaled()]);
        let Some(want) = want else {
            assert!(
                matches!(posted, Err(ferroce_driver::Error::InvalidWorkRequest(_))),
                "{case}: {posted:?}"
            );
            assert_eq!(
                word(b, target),
                0x1111_2222_3333_4444,
                "{case}: remote word"
            );
            continue;
        };
        posted.unwrap();
        let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
        assert_eq!(wc.len(), 1, "{case}: no completion");
        assert_eq!((wc[0].wr_id, wc[0].status), (9, want), "{case}");
        assert_eq!(
            word(b, target),
            0x1111_2222_3333_4444,
            "{case}: remote word"
        );
        assert_eq!(word(a, 0), 0x5555, "{case}: local result slot");
        assert_eq!(
            a.qps[0].query().unwrap().attr.state,
            QpState::Error,
            "{case}"
        );
        assert_eq!(
            b.qps[0].query().unwrap().attr.state,
            QpState::Error,
            "{case}"
        );
    }
}
