//! Device::open: identity, version and capability checks, reset, configuration writes.

use std::time::Duration;

use ferroce_driver::backend::fake::{BarAccess, FakeDevice, FakeIdentity};
use ferroce_driver::{Device, DeviceOptions, Error};
use ferroce_proto::host::config::{GidEntry, TrafficConfig};
use ferroce_proto::host::event::{AsyncEvent, AsyncEventType};
use ferroce_proto::host::regs::{self, caps, cfg_control, irq_status};
use ferroce_proto::host::{Version, HOST_INTERFACE_VERSION};

use super::w;

#[test]
fn open_reads_identity_resets_and_enables_control_irqs() {
    let nic = FakeDevice::new();
    let dev = Device::open(nic.clone()).unwrap();
    let info = dev.info();
    let id = FakeIdentity::default();
    assert_eq!(info.version, HOST_INTERFACE_VERSION);
    assert_eq!(info.caps, id.caps);
    assert_eq!((info.num_qps, info.num_cqs, info.num_mrs), (64, 16, 64));
    assert_eq!(info.max_log2_sq_entries, 12);
    assert_eq!(info.max_log2_stride, 10);
    assert_eq!(info.max_sge, 16);
    assert_eq!(info.vectors, 4);
    assert!(info.has(caps::RDMA_READ | caps::ATOMICS));
    assert_eq!(
        nic.writes(),
        [
            w(regs::CFG_RESET, 1),
            w(regs::IRQ_CTRL_VECTOR, 0),
            w(regs::IRQ_ENABLE, irq_status::ASYNC | irq_status::FATAL),
        ]
    );
    // READY is polled until set: the fake reports not-ready twice after the reset.
    let status_reads: Vec<u32> = nic
        .log()
        .iter()
        .filter_map(|a| match *a {
            BarAccess::Read { offset, value } if offset == regs::CFG_STATUS => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(status_reads.len(), 3);
    assert_eq!(status_reads[2] & regs::cfg_status::READY, 1);
    assert!(nic.violations().is_empty(), "{:?}", nic.violations());
}

#[test]
fn open_refuses_what_is_not_a_ferroce_v1() {
    let nic = FakeDevice::new();
    nic.set_reg(regs::ID_MAGIC, 0xFFFF_FFFF);
    let e = Device::open(nic).unwrap_err();
    assert!(matches!(e, Error::BadMagic(0xFFFF_FFFF)), "{e}");

    let nic = FakeDevice::new();
    nic.set_reg(regs::ID_VERSION, Version { major: 2, minor: 0 }.to_reg());
    let e = Device::open(nic).unwrap_err();
    assert!(matches!(e, Error::IncompatibleVersion { device, .. } if device.major == 2));
    assert!(e.to_string().contains("host interface 2.0"), "{e}");

    // A newer minor of the same major is accepted.
    let nic = FakeDevice::new();
    nic.set_reg(regs::ID_VERSION, Version { major: 1, minor: 7 }.to_reg());
    assert!(Device::open(nic).is_ok());

    let nic = FakeDevice::with_identity(FakeIdentity {
        num_qps: 2,
        ..FakeIdentity::default()
    });
    assert!(matches!(
        Device::open(nic).unwrap_err(),
        Error::BadDeviceInfo(w) if w.contains("ID_NUM_QPS")
    ));

    let nic = FakeDevice::with_identity(FakeIdentity {
        caps: caps::ATOMICS,
        ..FakeIdentity::default()
    });
    assert!(matches!(
        Device::open(nic).unwrap_err(),
        Error::BadDeviceInfo(_)
    ));
}

#[test]
fn reset_that_never_finishes_times_out() {
    let nic = FakeDevice::new();
    nic.set_reset_polls(u32::MAX);
    let opts = DeviceOptions {
        reset_timeout: Duration::from_millis(2),
        ..DeviceOptions::default()
    };
    let e = Device::open_with(nic.clone(), opts).unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(nic.time() >= Duration::from_millis(2));
}

#[test]
fn global_configuration_writes() {
    let nic = FakeDevice::new();
    let dev = Device::open(nic.clone()).unwrap();
    nic.clear_log();
    dev.set_mac([0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc]);
    // HOST-INTERFACE.md 1: MAC 02:00:00:aa:bb:cc is LO = 0xAA000002, HI = 0x0000CCBB.
    assert_eq!(
        nic.writes(),
        [
            w(regs::CFG_MAC_LO, 0xAA00_0002),
            w(regs::CFG_MAC_HI, 0x0000_CCBB)
        ]
    );
    nic.clear_log();
    let gid = GidEntry::ipv4("10.0.0.1".parse().unwrap());
    dev.set_gid(1, &gid).unwrap();
    assert_eq!(nic.writes(), gid.writes(1).unwrap());
    assert_eq!(nic.writes().last().unwrap().offset, regs::gid_attr(1));
    assert!(matches!(
        dev.set_gid(16, &gid),
        Err(Error::ExceedsDeviceLimit { .. })
    ));
    dev.set_control(cfg_control::RX_ENABLE | cfg_control::TX_ENABLE)
        .unwrap();
    assert_eq!(nic.reg(regs::CFG_CONTROL), 3);
    assert!(matches!(
        dev.set_control(cfg_control::DCQCN_RP_ENABLE),
        Err(Error::MissingCapability {
            feature: "DCQCN reaction point",
            cap: caps::DCQCN_RP
        })
    ));
    dev.set_traffic(&TrafficConfig::default()).unwrap();
    assert!(matches!(
        dev.set_traffic(&TrafficConfig {
            default_dscp: 64,
            ..TrafficConfig::default()
        }),
        Err(Error::Layout(_))
    ));
}

#[test]
fn counters_read_lo_then_hi() {
    let nic = FakeDevice::new();
    let dev = Device::open(nic.clone()).unwrap();
    nic.set_reg(regs::CNT_RX_FRAMES_LO, 5);
    nic.set_reg(regs::CNT_RX_FRAMES_HI, 1);
    nic.clear_log();
    assert_eq!(dev.counter(regs::CNT_RX_FRAMES_LO), (1 << 32) | 5);
    assert_eq!(
        nic.log(),
        [
            BarAccess::Read {
                offset: regs::CNT_RX_FRAMES_LO,
                value: 5
            },
            BarAccess::Read {
                offset: regs::CNT_RX_FRAMES_HI,
                value: 1
            },
        ]
    );
    let all = dev.counters();
    assert_eq!(all.len(), regs::NUM_COUNTERS as usize);
    assert_eq!(all[0], ("RX_FRAMES", (1 << 32) | 5));
}

#[test]
fn async_events_are_read_then_popped() {
    let nic = FakeDevice::new();
    let dev = Device::open(nic.clone()).unwrap();
    assert_eq!(dev.next_async_event().unwrap(), None);
    let ev = AsyncEvent {
        ty: AsyncEventType::QpFatal,
        id: 5,
        status: 4,
        vendor_err: 5,
    };
    let (e, i) = ev.encode().unwrap();
    nic.push_event(e, i);
    nic.clear_log();
    assert_eq!(dev.next_async_event().unwrap(), Some(ev));
    assert_eq!(nic.writes(), [w(regs::ASYNC_EVENT_POP, 1)]);
    assert_eq!(dev.next_async_event().unwrap(), None);
}
