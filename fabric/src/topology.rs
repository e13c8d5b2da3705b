//! The topologies the scenarios use: back to back, one switch with N hosts (incast), and
//! spine-leaf (L leaves, S spines, H hosts per leaf).
use crate::{Fabric, HostConfig, LinkSpec, NodeId, SwitchConfig};

/// A built topology: the fabric and where everything is.
pub struct Built {
    pub fabric: Fabric,
    /// Hosts in the order their configurations were given.
    pub hosts: Vec<NodeId>,
    pub leaves: Vec<NodeId>,
    pub spines: Vec<NodeId>,
}

fn switch_mac(i: usize) -> [u8; 6] {
    [0x02, 0x5e, 0, 0, (i >> 8) as u8, i as u8]
}

/// Two hosts joined by one link.
pub fn back_to_back(a: HostConfig, b: HostConfig, link: LinkSpec) -> Built {
    let mut fabric = Fabric::new();
    let ha = fabric.add_host(a);
    let hb = fabric.add_host(b);
    fabric.connect(ha, hb, link);
    fabric.compute_routes();
    Built {
        fabric,
        hosts: vec![ha, hb],
        leaves: vec![],
        spines: vec![],
    }
}

/// One switch with every host on it.
pub fn single_switch(hosts: Vec<HostConfig>, cfg: SwitchConfig, link: LinkSpec) -> Built {
    let mut fabric = Fabric::new();
    let sw = fabric.add_switch("Switch", cfg, switch_mac(1));
    let ids: Vec<_> = hosts
        .into_iter()
        .map(|h| {
            let id = fabric.add_host(h);
            fabric.connect(id, sw, link);
            id
        })
        .collect();
    fabric.compute_routes();
    Built {
        fabric,
        hosts: ids,
        leaves: vec![sw],
        spines: vec![],
    }
}

/// `hosts[l]` are the hosts of leaf `l` (named Leaf-1.., Spine-1..); every leaf joins every
/// spine with one `fabric_link`; hosts join their leaf with `host_link`.
pub fn spine_leaf(
    hosts: Vec<Vec<HostConfig>>,
    spines: usize,
    cfg: SwitchConfig,
    host_link: LinkSpec,
    fabric_link: LinkSpec,
) -> Built {
    let mut fabric = Fabric::new();
    let leaves: Vec<_> = (0..hosts.len())
        .map(|l| fabric.add_switch(&format!("Leaf-{}", l + 1), cfg.clone(), switch_mac(l + 1)))
        .collect();
    let sp: Vec<_> = (0..spines)
        .map(|s| {
            fabric.add_switch(
                &format!("Spine-{}", s + 1),
                cfg.clone(),
                switch_mac(0x100 + s),
            )
        })
        .collect();
    let mut ids = Vec::new();
    for (l, hs) in hosts.into_iter().enumerate() {
        for h in hs {
            let id = fabric.add_host(h);
            fabric.connect(id, leaves[l], host_link);
            ids.push(id);
        }
    }
    for &l in &leaves {
        for &s in &sp {
            fabric.connect(l, s, fabric_link);
        }
    }
    fabric.compute_routes();
    Built {
        fabric,
        hosts: ids,
        leaves,
        spines: sp,
    }
}
