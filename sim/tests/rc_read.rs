//! RDMA READ through two hardware NICs (the Verilator model of the emitted Verilog), driven only
//! through the driver's verbs API: responses segmented at the PMTU and scattered into the
//! requester's SGEs, every size class, recovery from a lost response (the READ is asked again
//! from the first missing PSN, for the rest of the bytes only, and the responder answers the
//! duplicate from host memory again), and the access check. READs mixed with every other verb:
//! `rc_atomic.rs`; READs under loss, duplication, reordering and corruption: `verbs_loss.rs`.
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
use ferroce_sim::nic_pair::{captured_roce, lock, CapturedRoce, SharedPair};
use ferroce_sim::nic_verilated::VerilatedNic;
use ferroce_testkit::require_tool;
use std::time::Duration;

fn args(ops: &[&str], sizes: &[&str], qps: usize, messages: usize, pmtu: usize) -> VerbsArgs {
    VerbsArgs {
        ops: ops.iter().map(|s| s.to_string()).collect(),
        sizes: sizes.iter().map(|s| s.to_string()).collect(),
        qps,
        messages,
        seed: 31,
        pmtu,
        pcap: None,
        json: false,
        dma_jitter: true,
        ipv6: false,
        vlan: None,
    }
}

/// READs of every size class (empty, one byte, around the PMTU, many packets) at the smallest
/// and the largest PMTU, scattered over 1 to 4 SGEs: the bytes arrive exactly, nothing after
/// them is written (checked by the scenario at each READ's completion).
#[test]
fn reads_of_every_size_scatter_exactly() {
    if !require_tool("verilator") {
        return;
    }
    for pmtu in [256, 4096] {
        let sizes = [
            "0", "1", "255", "256", "257", "1000", "4096", "4097", "20000",
        ];
        let r = run_scenario(&args(&["read"], &sizes, 4, 90, pmtu), Engine::Verilator).unwrap();
        assert!(
            r.failed == 0 && r.verified == 90 && r.errors.is_empty(),
            "PMTU {pmtu}: {r:?}"
        );
    }
}

/// 64 KiB READs both ways over 16 QPs at PMTU 1024, the host DMA answering at once: each NIC
/// answers the peer's READs while it takes the responses to its own. The requester takes READ
/// responses as fast as the link brings them (it judges the next response's header while its
/// data mover places the last), its READ requests get their turn between the READ responses
/// its responder sends, and it sets a send job aside rather than hold the receive path while the
/// FIFO is half full: no frame is dropped for lack of room and no READ waits for a timeout.
/// (Before, the requester waited for the transmit path behind 64 KiB of READ responses with a
/// READ response at the head of its receive FIFO, which overflowed.)
#[test]
fn long_reads_both_ways_lose_nothing_in_the_receive_fifo() {
    if !require_tool("verilator") {
        return;
    }
    let mut a = args(&["read"], &["64K"], 16, 32, 1024);
    a.dma_jitter = false;
    a.seed = 1;
    let r = run_scenario(&a, Engine::Verilator).unwrap();
    assert!(
        r.failed == 0 && r.verified == 32 && r.errors.is_empty(),
        "{r:?}"
    );
    for (h, c) in r.per_host.iter().enumerate() {
        assert_eq!(
            c.rx_no_room, 0,
            "host {h} dropped frames for lack of room: {c:?}"
        );
        assert_eq!(c.timeouts, 0, "host {h} waited for an ACK timeout: {c:?}");
    }
}

/// The RoCE frames `from` sent since the last call.
fn frames(pair: &SharedPair<VerilatedNic>, from: usize) -> Vec<CapturedRoce> {
    captured_roce(pair)
        .into_iter()
        .filter(|f| f.from == from)
        .collect()
}

/// The 4th of 8 READ responses is lost: the requester sees the 5th out of sequence and asks
/// again once, from the lost PSN, for the remaining 1232 bytes at VA + 768; the responder
/// answers that duplicate request from host memory; the data arrives exactly.
#[test]
fn a_lost_read_response_is_asked_for_again_from_its_psn() {
    if !require_tool("verilator") {
        return;
    }
    let mut rng = Rng::new(9);
    let rts = RtsAttr {
        timeout: 8,
        retry_cnt: 7,
        rnr_retry: 7,
        ..RtsAttr::default()
    };
    let (pair, hosts) = verilated_pair(1, 8192, true, Pmtu::Mtu256, &mut rng, &rts).unwrap();
    let [a, b] = &hosts;
    let data = rng.bytes(2000);
    b.mr.write(4096, &data).unwrap();
    a.mr.write(0, &vec![0xEE; 2016]).unwrap();
    let remote = Remote {
        va: b.mr.addr(4096),
        rkey: b.mr.rkey(),
    };
    lock(&pair).lose_frames(1, [3]);
    let sges = vec![
        a.mr.sge(0, 300).unwrap(),
        a.mr.sge(300, 1).unwrap(),
        a.mr.sge(301, 1699).unwrap(),
    ];
    a.qps[0]
        .post_send(&[SendWr::read(5, remote, sges).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1, "no completion");
    assert_eq!(
        (wc[0].wr_id, wc[0].status, wc[0].opcode),
        (5, WcStatus::Success, WcOpcode::RdmaRead)
    );
    let mut got = vec![0u8; 2016];
    a.mr.read(0, &mut got).unwrap();
    assert_eq!(&got[..2000], &data[..]);
    assert_eq!(&got[2000..], &[0xEE; 16], "nothing after the READ's bytes");
    let reqs: Vec<_> = frames(&pair, 0)
        .into_iter()
        .filter(|f| f.opcode == Opcode::RC_RDMA_READ_REQUEST)
        .collect();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let (first_psn, first_reth) = (reqs[0].psn, reqs[0].reth.unwrap());
    assert_eq!(first_reth, (b.mr.addr(4096), 2000));
    assert_eq!(
        reqs[1].psn,
        (first_psn + 3) & 0xFF_FFFF,
        "again from the lost PSN"
    );
    assert_eq!(reqs[1].reth.unwrap(), (b.mr.addr(4096) + 768, 1232));
    assert_eq!(a.device.counter(regs::CNT_RETRY_EVENT_LO), 1);
    assert_eq!(
        a.device.counter(regs::CNT_ACK_TIMEOUT_LO),
        0,
        "no timer needed"
    );
    assert_eq!(b.device.counter(regs::CNT_RX_DUPLICATE_LO), 1);
}

/// A READ on a QP without REMOTE_READ is a remote access error: REM_ACCESS_ERR, nothing
/// written into the local SGE, both QPs in ERR.
#[test]
fn a_read_without_remote_read_is_an_access_error() {
    if !require_tool("verilator") {
        return;
    }
    let hw = [VerilatedNic::new().unwrap(), VerilatedNic::new().unwrap()];
    let (_pair, hosts) = open_pair(hw, ShellConfig::ideal(), 1, 4096, false).unwrap();
    let access = AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_ATOMIC;
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
            rq_psn: 100 + peer as u32,
            max_dest_rd_atomic: 4,
            min_rnr_timer: 1,
        })
        .unwrap();
        qp.to_rts(&RtsAttr {
            sq_psn: 100 + side as u32,
            timeout: 6,
            ..RtsAttr::default()
        })
        .unwrap();
    }
    let [a, b]: &[Host<VerilatedNic>; 2] = &hosts;
    a.mr.write(0, &[0x77; 64]).unwrap();
    let remote = Remote {
        va: b.mr.addr(1024),
        rkey: b.mr.rkey(),
    };
    a.qps[0]
        .post_send(&[SendWr::read(3, remote, vec![a.mr.sge(0, 64).unwrap()]).signaled()])
        .unwrap();
    let wc = a.cq.poll_until(1, 4, Duration::from_millis(2)).unwrap();
    assert_eq!(wc.len(), 1, "no completion");
    assert_eq!((wc[0].wr_id, wc[0].status), (3, WcStatus::RemAccessErr));
    let mut got = [0u8; 64];
    a.mr.read(0, &mut got).unwrap();
    assert_eq!(got, [0x77; 64]);
    assert_eq!(a.qps[0].query().unwrap().attr.state, QpState::Error);
    assert_eq!(b.qps[0].query().unwrap().attr.state, QpState::Error);
}
