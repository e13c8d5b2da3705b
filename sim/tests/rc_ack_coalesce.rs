//! ACK coalescing through two hardware NICs (the Verilator model of the emitted Verilog): the
//! responder acknowledges every AckReq packet (the requester sets it on a message's last packet)
//! and at least every N executed packets of a QP, N from `CFG_ACK_COALESCE` (reset 64), so a
//! long WRITE is acknowledged while it streams. Checked on the frames the responder sends for a
//! 16-packet WRITE: their PSNs for N = 64 (the reset value: the last packet only), 5, 1 (every
//! packet) and 0 (message ends only), with the data verified and the completion delivered.
use ferroce_driver::{Pmtu, Remote, RtsAttr, SendWr, WcStatus};
use ferroce_hdl::testbench::Rng;
use ferroce_proto::wire::Opcode;
use ferroce_sim::cmd::verbs::verilated_pair;
use ferroce_sim::nic_pair::{captured_roce, lock};
use ferroce_testkit::require_tool;
use std::time::Duration;

#[test]
fn long_write_is_acknowledged_every_n_packets() {
    if !require_tool("verilator") {
        return;
    }
    let len = 16 * 1024;
    let mut rng = Rng::new(3);
    let rts = RtsAttr {
        timeout: 14,
        retry_cnt: 7,
        rnr_retry: 7,
        ..RtsAttr::default()
    };
    let (pair, hosts) = verilated_pair(1, len, true, Pmtu::Mtu1024, &mut rng, &rts).unwrap();
    let [a, b] = &hosts;
    let remote = Remote {
        va: b.mr.addr(0),
        rkey: b.mr.rkey(),
    };
    // (N, the packets of the 16-packet WRITE that are acknowledged, 1-based)
    let cases: [(u8, Vec<u32>); 4] = [
        (64, vec![16]),
        (5, vec![5, 10, 15, 16]),
        (1, (1..=16).collect()),
        (0, vec![16]),
    ];
    let mut first_psn = None;
    for (id, (every, want)) in cases.iter().enumerate() {
        if id > 0 {
            b.device.set_ack_coalesce(*every);
        }
        let data = rng.bytes(len);
        a.mr.write(0, &data).unwrap();
        lock(&pair).take_captured();
        a.qps[0]
            .post_send(&[
                SendWr::write(id as u64, remote, vec![a.mr.sge(0, len as u32).unwrap()]).signaled(),
            ])
            .unwrap();
        let wc = a.cq.poll_until(1, 8, Duration::from_millis(4)).unwrap();
        assert_eq!(wc.len(), 1, "N = {every}: no completion");
        assert_eq!((wc[0].wr_id, wc[0].status), (id as u64, WcStatus::Success));
        let mut got = vec![0u8; len];
        b.mr.read(0, &mut got).unwrap();
        assert!(got == data, "N = {every}: data differs");
        let frames = captured_roce(&pair);
        let req: Vec<u32> = frames
            .iter()
            .filter(|f| f.from == 0)
            .map(|f| f.psn)
            .collect();
        assert_eq!(
            req.len(),
            16,
            "N = {every}: 16 request packets, none resent"
        );
        let p0 = req[0];
        if let Some(prev) = first_psn {
            assert_eq!(p0, (prev + 16 * id as u32) & 0xFF_FFFF);
        } else {
            first_psn = Some(p0);
        }
        let acks: Vec<u32> = frames
            .iter()
            .filter(|f| f.from == 1 && f.opcode == Opcode::RC_ACKNOWLEDGE)
            .map(|f| ((f.psn + 0x100_0000 - p0) & 0xFF_FFFF) + 1)
            .collect();
        assert_eq!(&acks, want, "N = {every}: acknowledged packets");
    }
}
