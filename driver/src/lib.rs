//! ferroce-driver: the host driver of the ferroce RoCEv2 NIC.
//!
//! Shaped like [ixy.rs]: one device trait ([`Backend`]), one module per backend
//! ([`backend::vfio`] for hardware, [`backend::fake`] for tests; the simulator implements
//! the trait in `ferroce-sim`), all register access through two audited functions
//! ([`regs::Registers::read`] and [`regs::Registers::write`]), DMA memory as an owning type
//! ([`DmaBuffer`]), and RAII verbs handles ([`verbs`]).
//!
//! The host interface (register map, doorbells, WQE/CQE layouts, QP transition table) is
//! defined once, in `ferroce_proto::host`; this crate uses those definitions and never
//! re-declares an offset or a layout. It does not depend on rust-hdl.
//!
//! ```
//! use std::sync::Arc;
//! use ferroce_driver::backend::fake::FakeDevice;
//! use ferroce_driver::{AccessFlags, Device, QpCapabilities, QpInitAttr};
//!
//! let nic = FakeDevice::new();
//! let dev = Device::open(nic.clone()).unwrap();
//! let pd = dev.alloc_pd().unwrap();
//! let cq = dev.create_cq(64, 0).unwrap();
//! let buf = Arc::new(dev.alloc_dma(4096, 64).unwrap());
//! let mr = pd.register(buf, AccessFlags::LOCAL_WRITE).unwrap();
//! let qp = pd
//!     .create_qp(&QpInitAttr { send_cq: &cq, recv_cq: &cq, cap: QpCapabilities::default(), sq_sig_all: false })
//!     .unwrap();
//! qp.to_init(AccessFlags::NONE).unwrap();
//! qp.post_recv(&[ferroce_driver::RecvWr::new(1, vec![mr.sge(0, 4096).unwrap()])]).unwrap();
//! ```
//!
//! [ixy.rs]: https://github.com/ixy-languages/ixy.rs

pub mod backend;
mod error;
pub mod regs;
mod util;
pub mod verbs;

pub use backend::{Backend, DmaBuffer, DmaMemory};
pub use error::{Error, Queue, Result, Window};
pub use verbs::*;

pub use ferroce_proto::host::cq::ArmMode;
pub use ferroce_proto::host::qp::{AccessFlags, AddressVector, Pmtu, QpAttr, QpAttrMask, QpState};
