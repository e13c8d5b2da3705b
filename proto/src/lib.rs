//! ferroce-proto: the single source of truth shared by the hardware, the simulator and the driver.
//!
//! * [`wire`]: typed views over packet bytes plus small `Repr` values (smoltcp style) for every
//!   header a RoCE NIC sees, and a whole-frame [`wire::FrameRepr`].
//! * [`icrc`]: the RoCE invariant CRC (RoCEv2 over IPv4/IPv6, RoCEv1).
//! * [`psn`], [`syndrome`], [`flow`]: transport arithmetic (24-bit PSNs, AETH syndromes, UDP source
//!   port entropy, packets per message).
//! * [`pcap`]: capture files in and out.
//! * [`host`]: the host interface (BAR0 register map, WQE/CQE layouts, QP states).
#![forbid(unsafe_code)]

pub mod flow;
pub mod host;
pub mod icrc;
pub mod pcap;
pub mod psn;
pub mod syndrome;
pub mod testgen;
pub mod wire;
