//! The verbs layer against the fake backend: register sequences, WQE bytes, ring wrap and
//! owner bits, polling, every misuse error, and destruction order.

mod bringup;
mod commands;
mod lifecycle;
mod misuse;
mod poll;
mod post;

use std::net::Ipv4Addr;
use std::sync::Arc;

use ferroce_driver::backend::fake::FakeDevice;
use ferroce_driver::{
    AccessFlags, AddressVector, CompletionQueue, Device, DmaBuffer, MemoryRegion, Pmtu,
    ProtectionDomain, QpCapabilities, QpInitAttr, QueuePair, RtrAttr, RtsAttr,
};
use ferroce_proto::host::config::Gid;
use ferroce_proto::host::cqe::{Cqe, CqeOpcode, WcStatus, CQE_LEN};
use ferroce_proto::host::RegWrite;

/// A device with one PD, one CQ and one registered 64 KiB buffer.
pub struct Env {
    pub nic: Arc<FakeDevice>,
    pub dev: Device,
    pub pd: ProtectionDomain,
    pub cq: CompletionQueue,
    pub buf: Arc<DmaBuffer>,
    pub mr: MemoryRegion,
}

pub fn env() -> Env {
    env_with(FakeDevice::new())
}

pub fn env_with(nic: Arc<FakeDevice>) -> Env {
    let dev = Device::open(nic.clone()).expect("open");
    let pd = dev.alloc_pd().unwrap();
    let cq = dev.create_cq(16, 0).unwrap();
    let buf = Arc::new(dev.alloc_dma(64 * 1024, 4096).unwrap());
    let mr = pd
        .register(
            buf.clone(),
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
        )
        .unwrap();
    nic.clear_log();
    Env {
        nic,
        dev,
        pd,
        cq,
        buf,
        mr,
    }
}

impl Env {
    pub fn qp(&self, cap: QpCapabilities) -> QueuePair {
        self.pd
            .create_qp(&QpInitAttr {
                send_cq: &self.cq,
                recv_cq: &self.cq,
                cap,
                sq_sig_all: false,
            })
            .unwrap()
    }

    /// Write `cqe` into slot `index` of the CQ with the owner bit of that index, as the NIC.
    pub fn complete(&self, index: u32, mut cqe: Cqe) {
        complete_into(&self.nic, &self.cq, index, &mut cqe);
    }
}

pub fn complete_into(nic: &FakeDevice, cq: &CompletionQueue, index: u32, cqe: &mut Cqe) {
    let ring = cq.ring();
    cqe.owner = ring.owner(index);
    let mut raw = [0u8; CQE_LEN];
    cqe.emit(&mut raw).unwrap();
    assert!(nic.mem_write(cq.ring_iova() + ring.slot_offset(index) as u64, &raw));
}

/// A successful CQE for QP `qpn`.
pub fn cqe(qpn: u32, opcode: CqeOpcode, wqe_index: u16, wr_id: u64) -> Cqe {
    Cqe {
        owner: false,
        opcode,
        status: WcStatus::Success,
        qpn,
        src_qp: 0x77,
        wr_id,
        byte_len: 0,
        imm: None,
        invalidated_rkey: None,
        solicited: false,
        wqe_index,
        vendor_err: 0,
    }
}

pub fn rtr() -> RtrAttr {
    RtrAttr {
        av: AddressVector {
            dmac: [0x02, 0, 0, 0, 0, 0x02],
            dgid: Gid::from_ipv4(Ipv4Addr::new(10, 0, 0, 2)),
            ..AddressVector::default()
        },
        path_mtu: Pmtu::Mtu1024,
        dest_qpn: 0x77,
        rq_psn: 0x1000,
        max_dest_rd_atomic: 4,
        min_rnr_timer: 12,
    }
}

pub fn rts() -> RtsAttr {
    RtsAttr {
        sq_psn: 0x2000,
        ..RtsAttr::default()
    }
}

/// RESET -> INIT -> RTR -> RTS.
pub fn connect(qp: &QueuePair) {
    qp.to_init(AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ)
        .unwrap();
    qp.to_rtr(&rtr()).unwrap();
    qp.to_rts(&rts()).unwrap();
}

pub fn w(offset: u32, value: u32) -> RegWrite {
    RegWrite::new(offset, value)
}
