//! The command-window sequences of HOST-INTERFACE.md 6 and 7, register by register.

use std::sync::Arc;
use std::time::Duration;

use ferroce_driver::backend::fake::{BarAccess, FakeDevice};
use ferroce_driver::{
    AccessFlags, Device, DeviceOptions, Error, QpAttr, QpAttrMask, QpCapabilities, QpState, Window,
};
use ferroce_proto::host::mr::{self, MrEntry};
use ferroce_proto::host::qp::QpCreate;
use ferroce_proto::host::regs::{self, CmdResult, CmdStatus};

use super::{env, rtr, rts, w};

/// The window protocol: status read (idle) before the writes, command register last, status
/// polled until BUSY clears.
fn assert_window_protocol(log: &[BarAccess], status: u32, command: u32) {
    let idle = CmdStatus::encode(false, CmdResult::Ok);
    let busy = CmdStatus::encode(true, CmdResult::Ok);
    assert_eq!(
        log[0],
        BarAccess::Read {
            offset: status,
            value: idle
        }
    );
    let cmd_at = log
        .iter()
        .position(|a| matches!(a, BarAccess::Write { offset, .. } if *offset == command))
        .expect("command written");
    assert_eq!(
        &log[cmd_at + 1..],
        [
            BarAccess::Read {
                offset: status,
                value: busy
            },
            BarAccess::Read {
                offset: status,
                value: idle
            },
        ]
    );
}

#[test]
fn register_mr_sequence() {
    let nic = FakeDevice::new();
    let dev = Device::open(nic.clone()).unwrap();
    let pd = dev.alloc_pd().unwrap();
    let buf = Arc::new(dev.alloc_dma(8192, 4096).unwrap());
    nic.clear_log();
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let mr = pd
        .register_range(buf.clone(), 0x100, 0x1000, access)
        .unwrap();
    let dma = buf.iova() + 0x100;
    assert_eq!(mr.lkey(), mr::make_key(0, 0));
    assert_eq!(mr.va(), dma, "VA = IOVA unless ZERO_BASED");
    // HOST-INTERFACE.md 6.2, spelled out: index, key, PD, access, VA, length, DMA, command.
    assert_eq!(
        nic.writes(),
        [
            w(0x900, 0),
            w(0x90C, mr.lkey()),
            w(0x910, pd.pdn()),
            w(0x914, 0x3),
            w(0x918, dma as u32),
            w(0x91C, (dma >> 32) as u32),
            w(0x920, 0x1000),
            w(0x924, 0),
            w(0x928, dma as u32),
            w(0x92C, (dma >> 32) as u32),
            w(0x904, 1),
        ]
    );
    let entry = MrEntry {
        key: mr.lkey(),
        pd: pd.pdn(),
        access,
        va: dma,
        length: 0x1000,
        dma,
    };
    assert_eq!(nic.writes(), entry.write_writes().unwrap());
    assert_window_protocol(&nic.log(), regs::MR_CMD_STATUS, regs::MR_CMD);

    // ZERO_BASED: the region's addresses start at 0.
    let zb = pd
        .register_range(
            buf,
            0,
            64,
            AccessFlags::LOCAL_WRITE | AccessFlags::ZERO_BASED,
        )
        .unwrap();
    assert_eq!(zb.va(), 0);
    assert_eq!(zb.access(), AccessFlags::LOCAL_WRITE);
    assert_eq!(zb.sge(8, 8).unwrap().addr, 8);
}

#[test]
fn create_cq_sequence() {
    let nic = FakeDevice::new();
    let dev = Device::open(nic.clone()).unwrap();
    nic.clear_log();
    let cq = dev.create_cq(100, 2).unwrap();
    assert_eq!(cq.capacity(), 128);
    let base = cq.ring_iova();
    assert_eq!(base % 64, 0);
    assert_eq!(
        nic.writes(),
        [
            w(0xA00, cq.cqn()),
            w(0xA0C, base as u32),
            w(0xA10, (base >> 32) as u32),
            w(0xA14, 7 | (2 << 8)),
            w(0xA18, 0),
            w(0xA04, 1),
        ]
    );
    assert_window_protocol(&nic.log(), regs::CQ_CMD_STATUS, regs::CQ_CMD);
    assert_eq!(
        nic.mem_read(base, 128 * 32).unwrap(),
        vec![0; 128 * 32],
        "ring zeroed before CREATE"
    );
}

#[test]
fn qp_connect_sequences() {
    let e = env();
    let qp = e.qp(QpCapabilities {
        max_send_wr: 16,
        max_recv_wr: 8,
        max_send_sge: 2,
        max_recv_sge: 1,
        max_inline_data: 0,
        max_unacked_psns: 1024,
    });
    assert!(
        e.nic.writes().is_empty(),
        "create_qp writes nothing (RESET)"
    );
    let qpn = qp.qpn();
    assert_eq!(qpn, 2, "QPN 0 and 1 are reserved");
    let (sq_base, sq) = qp.sq_ring();
    let (rq_base, rq) = qp.rq_ring();
    assert_eq!(
        (sq.entries(), sq.stride()),
        (16, 128),
        "2 SGEs need a 128 B stride"
    );
    assert_eq!((rq.entries(), rq.stride()), (8, 32));

    // RESET -> INIT, spelled out (HOST-INTERFACE.md 6.1 and 7.2 step 3): the driver adds
    // CREATE; staging registers in address order; command last.
    qp.to_init(AccessFlags::REMOTE_WRITE).unwrap();
    let mask = 0x8000_0039; // CREATE | PORT | PKEY_INDEX | ACCESS_FLAGS | STATE
    assert_eq!(
        e.nic.writes(),
        [
            w(0x800, qpn),
            w(0x80C, mask),
            w(0x810, 1),
            w(0x814, 2),
            w(0x818, e.pd.pdn()),
            w(0x854, sq_base as u32),
            w(0x858, (sq_base >> 32) as u32),
            w(0x85C, rq_base as u32),
            w(0x860, (rq_base >> 32) as u32),
            w(0x864, 4 | (7 << 8) | (3 << 16) | (5 << 24) | (10 << 28)),
            w(0x868, e.cq.cqn() | (e.cq.cqn() << 16)),
            w(0x804, 1),
        ]
    );
    assert_window_protocol(&e.nic.log(), regs::QP_CMD_STATUS, regs::QP_CMD);
    assert_eq!(qp.state(), QpState::Init);

    // The same, from the shared definition.
    let attr = QpAttr {
        state: QpState::Init,
        access: AccessFlags::REMOTE_WRITE,
        create: QpCreate {
            pd: e.pd.pdn(),
            sq_base,
            sq_log2_entries: 4,
            sq_log2_stride: 7,
            rq_base,
            rq_log2_entries: 3,
            rq_log2_stride: 5,
            send_cqn: e.cq.cqn() as u16,
            recv_cqn: e.cq.cqn() as u16,
            ..QpCreate::default()
        },
        ..QpAttr::default()
    };
    assert_eq!(
        e.nic.writes(),
        attr.modify_writes(qpn, QpAttrMask(mask)).unwrap()
    );

    // INIT -> RTR and RTR -> RTS with the masks of HOST-INTERFACE.md 7.2 steps 5 and 6.
    e.nic.clear_log();
    qp.to_rtr(&rtr()).unwrap();
    let r = rtr();
    let attr = QpAttr {
        state: QpState::Rtr,
        av: r.av,
        path_mtu: r.path_mtu,
        dest_qpn: r.dest_qpn,
        rq_psn: r.rq_psn,
        max_dest_rd_atomic: r.max_dest_rd_atomic,
        min_rnr_timer: r.min_rnr_timer,
        ..QpAttr::default()
    };
    let m = QpAttrMask::STATE
        | QpAttrMask::AV
        | QpAttrMask::PATH_MTU
        | QpAttrMask::DEST_QPN
        | QpAttrMask::RQ_PSN
        | QpAttrMask::MAX_DEST_RD_ATOMIC
        | QpAttrMask::MIN_RNR_TIMER;
    assert_eq!(e.nic.writes(), attr.modify_writes(qpn, m).unwrap());
    assert_eq!(e.nic.reg(regs::QP_RQ_PSN), 0x1000);
    assert_eq!(
        e.nic.reg(regs::QP_AV_DGID3),
        0x0200_000A,
        "10.0.0.2 in wire order"
    );

    e.nic.clear_log();
    qp.to_rts(&rts()).unwrap();
    let s = rts();
    let attr = QpAttr {
        state: QpState::Rts,
        sq_psn: s.sq_psn,
        timeout: s.timeout,
        retry_cnt: s.retry_cnt,
        rnr_retry: s.rnr_retry,
        max_rd_atomic: s.max_rd_atomic,
        ..QpAttr::default()
    };
    let m = QpAttrMask::STATE
        | QpAttrMask::SQ_PSN
        | QpAttrMask::TIMEOUT
        | QpAttrMask::RETRY_CNT
        | QpAttrMask::RNR_RETRY
        | QpAttrMask::MAX_QP_RD_ATOMIC;
    assert_eq!(e.nic.writes(), attr.modify_writes(qpn, m).unwrap());
    assert_eq!(qp.state(), QpState::Rts);

    // RTS -> RTS changing only an optional attribute, without STATE.
    e.nic.clear_log();
    let attr = QpAttr {
        min_rnr_timer: 3,
        ..QpAttr::default()
    };
    qp.modify(&attr, QpAttrMask::MIN_RNR_TIMER).unwrap();
    assert_eq!(e.nic.writes()[1], w(regs::QP_ATTR_MASK, 1 << 15));
    assert_eq!(qp.state(), QpState::Rts);

    // QUERY reads the state back.
    assert_eq!(qp.query().unwrap().attr.state, QpState::Rts);
    assert!(e.nic.violations().is_empty(), "{:?}", e.nic.violations());
}

#[test]
fn command_errors_are_typed_and_leave_state_alone() {
    let e = env();
    let qp = e.qp(QpCapabilities::default());
    e.nic.push_result(Window::Qp, CmdResult::BadValue);
    let err = qp.to_init(AccessFlags::NONE).unwrap_err();
    assert!(matches!(
        err,
        Error::Command {
            window: Window::Qp,
            result: CmdResult::BadValue
        }
    ));
    assert_eq!(qp.state(), QpState::Reset);
    qp.to_init(AccessFlags::NONE).unwrap();

    e.nic.push_result(Window::Mr, CmdResult::BadIndex);
    let err =
        e.pd.register(e.buf.clone(), AccessFlags::LOCAL_WRITE)
            .unwrap_err();
    assert!(matches!(
        err,
        Error::Command {
            window: Window::Mr,
            result: CmdResult::BadIndex
        }
    ));

    e.nic.push_result(Window::Cq, CmdResult::Unsupported);
    assert!(matches!(
        e.dev.create_cq(4, 0),
        Err(Error::Command {
            window: Window::Cq,
            result: CmdResult::Unsupported
        })
    ));
}

#[test]
fn busy_forever_times_out_in_backend_time() {
    let nic = FakeDevice::new();
    let opts = DeviceOptions {
        command_timeout: Duration::from_millis(1),
        ..DeviceOptions::default()
    };
    let dev = Device::open_with(nic.clone(), opts).unwrap();
    let pd = dev.alloc_pd().unwrap();
    let buf = Arc::new(dev.alloc_dma(64, 64).unwrap());
    nic.set_busy_polls(u32::MAX);
    let t0 = nic.time();
    let err = pd.register(buf.clone(), AccessFlags::NONE).unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert!(nic.time() - t0 >= Duration::from_millis(1));
    // The next command waits for the window first, and fails the same way without writing
    // into the busy window.
    nic.clear_log();
    assert!(matches!(
        pd.register(buf, AccessFlags::NONE),
        Err(Error::Timeout { .. })
    ));
    assert!(nic.violations().is_empty(), "{:?}", nic.violations());
    assert!(nic.writes().is_empty());
}
