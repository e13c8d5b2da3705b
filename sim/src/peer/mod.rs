//! `ferroce peer`: the simulated ferroce NIC as a live RoCEv2 peer of Linux Soft-RoCE (rdma_rxe)
//! in a QEMU guest.
//!
//! Two Unix sockets connect the simulator to the guest: the RoCE link, which QEMU's
//! `-netdev stream` backend frames ([`link`]), and a control byte stream that carries the
//! test tool's out-of-band TCP exchange transparently ([`control`]). One [`system::PeerSystem`]
//! (the cycle-accurate NIC with its host memory and DMA shell) clocks continuously with the
//! link as its MAC; a [`session`] runs the tool's peer as an application on the simulated host,
//! through the driver's verbs API only, speaking the tool's exchange formats ([`exchange`]).
//!
//! Only the host memory, the DMA shell, the link and the control channel are software here:
//! everything the NIC does on the wire is the hardware model.
pub mod control;
pub mod exchange;
pub mod link;
pub mod session;
pub mod socket;
pub mod system;
