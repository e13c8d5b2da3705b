//! The fabric ([`ferroce_fabric`]) as the medium between the NICs (two or more) of a
//! [`NicPair`](crate::nic_pair::NicPair): each NIC's MAC is an external host port of the
//! fabric, on the pair's clock (one cycle at 250 MHz is 4000 ps of fabric time).
//!
//! Per cycle the pair asks the fabric whether each NIC's link takes transmit beats (the link
//! rate paces the MAC: see [`ferroce_fabric`]'s port interface), hands it every frame a NIC
//! finished transmitting, and feeds each NIC the frames that reached its port.
use std::sync::{Arc, Mutex, MutexGuard};

use ferroce_fabric::{Fabric, NodeId, Ps, PS_PER_S};

use crate::nic_pair::{PairMedium, PAIR_CLOCK_HZ};

/// Fabric time of one NIC cycle.
pub const PS_PER_CYCLE: Ps = PS_PER_S / PAIR_CLOCK_HZ;

/// A fabric with the NICs' host ports.
pub struct FabricNet {
    pub fabric: Fabric,
    /// The hosts the NICs of side 0 (A), 1 (B), ... are.
    pub nics: Vec<NodeId>,
}

/// Shared between the pair (as its medium) and whoever reads the fabric's statistics.
pub type SharedFabric = Arc<Mutex<FabricNet>>;

pub fn lock(f: &SharedFabric) -> MutexGuard<'_, FabricNet> {
    f.lock().unwrap_or_else(|e| e.into_inner())
}

/// The pair's medium over a shared fabric.
pub struct FabricMedium(pub SharedFabric);

impl PairMedium for FabricMedium {
    fn tx_ready(&mut self, side: usize, cycle: u64) -> bool {
        let mut f = lock(&self.0);
        let host = f.nics[side];
        f.fabric.tx_ready(host, cycle * PS_PER_CYCLE)
    }
    fn send(&mut self, from: usize, cycle: u64, frame: Vec<u8>) {
        let mut f = lock(&self.0);
        let host = f.nics[from];
        f.fabric.send(host, cycle * PS_PER_CYCLE, frame);
    }
    fn deliver(&mut self, to: usize, cycle: u64) -> Vec<Vec<u8>> {
        let mut f = lock(&self.0);
        f.fabric.advance(cycle * PS_PER_CYCLE);
        let host = f.nics[to];
        f.fabric
            .take_received(host)
            .into_iter()
            .map(|(_, b)| b)
            .collect()
    }
}
