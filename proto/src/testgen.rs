//! Deterministic random frames for tests, oracles and benchmarks.
//!
//! Every crate that checks something against real-looking traffic (the HDL engines, the outside
//! oracles tshark and scapy, the benchmarks) draws its frames from here, so they all exercise the
//! same variety: every known opcode, IPv4/IPv6/RoCEv1, with and without a VLAN tag, random
//! header fields a real stack may set (IP ID, TOS, MigReq, BTH reserved bits) and payloads up to
//! a chosen size. The generator is seeded and has no dependencies, so a failing case is
//! reproducible from its seed alone.

use crate::wire::{
    AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, DethRepr, EthernetRepr, ExtHeaders,
    FrameRepr, IethRepr, ImmDtRepr, Opcode, RethRepr, RoceNet, VlanTag,
};

/// SplitMix64: tiny, fast, good enough for test stimulus, identical on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        self.next_u64() % n
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        self.fill(&mut out);
        out
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Which network layers a generated frame may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetMix {
    pub ipv4: bool,
    pub ipv6: bool,
    pub roce_v1: bool,
}

impl NetMix {
    pub const ALL: NetMix = NetMix {
        ipv4: true,
        ipv6: true,
        roce_v1: true,
    };
    pub const IPV4: NetMix = NetMix {
        ipv4: true,
        ipv6: false,
        roce_v1: false,
    };
    pub const ROCE_V2: NetMix = NetMix {
        ipv4: true,
        ipv6: true,
        roce_v1: false,
    };
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct FrameSpec {
    pub nets: NetMix,
    /// Opcodes to draw from; empty means [`Opcode::ALL_KNOWN`].
    pub opcodes: Vec<Opcode>,
    /// Largest payload in bytes (opcodes that carry no payload get none).
    pub max_payload: usize,
    /// Percentage of frames with an 802.1Q tag.
    pub vlan_percent: u64,
    /// Randomise fields our own NIC would leave at defaults (IP ID, TOS, TTL, MigReq, BTH
    /// reserved bits, P_Key, UDP checksum), as real stacks do.
    pub wild_fields: bool,
}

impl Default for FrameSpec {
    fn default() -> FrameSpec {
        FrameSpec {
            nets: NetMix::ALL,
            opcodes: Vec::new(),
            max_payload: 4096,
            vlan_percent: 25,
            wild_fields: true,
        }
    }
}

/// A payload length biased toward the edges that break datapaths: 0, 1..8, around beat and
/// PMTU boundaries, and the maximum.
pub fn payload_len(rng: &mut Rng, max: usize) -> usize {
    if max == 0 {
        return 0;
    }
    let len = match rng.below(6) {
        0 => rng.below(9) as usize,
        1 => {
            let edge = rng.pick(&[64usize, 256, 512, 1024, 2048, 4096]);
            (edge + rng.below(9) as usize).saturating_sub(4)
        }
        2 => max,
        _ => rng.below(max as u64 + 1) as usize,
    };
    len.min(max)
}

/// A payload length that is legal for `opcode` (IBTA Vol 1, 9.2; docs/PROTOCOL.md §3.1): none for
/// opcodes without payload, exactly one PMTU (256..4096, at most `max` when `max >= 256`) for
/// FIRST/MIDDLE, 1.. for LAST, 0.. for ONLY, so receivers that check lengths accept the frame.
pub fn message_payload_len(rng: &mut Rng, opcode: Opcode, max: usize) -> usize {
    use crate::wire::Position;
    if !opcode.has_payload() {
        return 0;
    }
    match opcode.position() {
        Some(Position::First | Position::Middle) => {
            let pmtus: Vec<usize> = [256usize, 512, 1024, 2048, 4096]
                .into_iter()
                .filter(|p| *p <= max.max(256))
                .collect();
            rng.pick(&pmtus)
        }
        Some(Position::Last) => payload_len(rng, max).max(1),
        _ => payload_len(rng, max),
    }
}

/// One random, finalized (lengths, checksum, pad and ICRC consistent) RoCE frame.
pub fn random_roce_frame(rng: &mut Rng, spec: &FrameSpec) -> FrameRepr {
    let opcode = if spec.opcodes.is_empty() {
        rng.pick(&Opcode::ALL_KNOWN)
    } else {
        rng.pick(&spec.opcodes)
    };
    let mut nets = Vec::new();
    if spec.nets.ipv4 {
        nets.push(0);
    }
    if spec.nets.ipv6 {
        nets.push(1);
    }
    if spec.nets.roce_v1 {
        nets.push(2);
    }
    assert!(!nets.is_empty(), "FrameSpec: no network layer allowed");
    let sport = 0xC000 | (rng.next_u32() as u16 & 0x3FFF);
    let mut net = match rng.pick(&nets) {
        0 => RoceNet::ipv4(rng.bytes(), rng.bytes(), sport),
        1 => RoceNet::ipv6(rng.bytes(), rng.bytes(), sport),
        _ => RoceNet::roce_v1(rng.bytes(), rng.bytes()),
    };
    if spec.wild_fields {
        match &mut net {
            RoceNet::Ipv4 { ip, udp } => {
                ip.tos = rng.next_u32() as u8;
                ip.ident = rng.next_u32() as u16;
                ip.ttl = rng.next_u32() as u8;
                udp.checksum = if rng.chance(1, 4) {
                    rng.next_u32() as u16
                } else {
                    0
                };
            }
            RoceNet::Ipv6 { ip, udp } => {
                ip.traffic_class = rng.next_u32() as u8;
                ip.flow_label = rng.next_u32() & 0xF_FFFF;
                ip.hop_limit = rng.next_u32() as u8;
                udp.checksum = if rng.chance(1, 4) {
                    rng.next_u32() as u16
                } else {
                    0
                };
            }
            RoceNet::RoceV1 { grh } => {
                grh.traffic_class = rng.next_u32() as u8;
                grh.flow_label = rng.next_u32() & 0xF_FFFF;
                grh.hop_limit = rng.next_u32() as u8;
            }
        }
    }
    let mut bth = BthRepr::new(
        opcode,
        rng.next_u32() & 0xFF_FFFF,
        rng.next_u32() & 0xFF_FFFF,
    );
    bth.ack_req = rng.chance(1, 2);
    if opcode.is_cnp() {
        bth.becn = true;
        bth.psn = 0;
        bth.ack_req = false;
    }
    if spec.wild_fields && !opcode.is_cnp() {
        bth.solicited = rng.chance(1, 4);
        bth.mig_req = rng.chance(1, 2);
        bth.fecn = rng.chance(1, 8);
        bth.becn = rng.chance(1, 8);
        bth.resv6 = if rng.chance(1, 4) {
            rng.next_u32() as u8 & 0x3F
        } else {
            0
        };
        bth.resv7 = if rng.chance(1, 8) {
            rng.next_u32() as u8 & 0x7F
        } else {
            0
        };
        bth.pkey = if rng.chance(1, 4) {
            rng.next_u32() as u16
        } else {
            0xFFFF
        };
    }
    let set = opcode.headers();
    let ext = ExtHeaders {
        deth: set.deth.then(|| DethRepr {
            qkey: rng.next_u32(),
            src_qp: rng.next_u32() & 0xFF_FFFF,
            ..Default::default()
        }),
        reth: set.reth.then(|| RethRepr {
            va: rng.next_u64(),
            rkey: rng.next_u32(),
            dma_len: rng.next_u32(),
        }),
        atomic_eth: set.atomic_eth.then(|| AtomicEthRepr {
            va: rng.next_u64() & !7,
            rkey: rng.next_u32(),
            swap_add: rng.next_u64(),
            compare: rng.next_u64(),
        }),
        aeth: set.aeth.then(|| AethRepr {
            syndrome: rng.pick(&[0x1F, 0x00, 0x05, 0x06, 0x2E, 0x60, 0x61, 0x62, 0x63]),
            msn: rng.next_u32() & 0xFF_FFFF,
        }),
        atomic_ack_eth: set.atomic_ack_eth.then(|| AtomicAckEthRepr {
            orig: rng.next_u64(),
        }),
        imm_dt: set.imm_dt.then(|| ImmDtRepr {
            imm: rng.next_u32(),
        }),
        ieth: set.ieth.then(|| IethRepr {
            rkey: rng.next_u32(),
        }),
        cnp: None, // finalize() supplies the CNP's reserved zero bytes
    };
    let mut payload = vec![0u8; message_payload_len(rng, opcode, spec.max_payload)];
    rng.fill(&mut payload);
    let mut src: [u8; 6] = rng.bytes();
    src[0] &= 0xFE; // unicast source
    let vlan = rng.chance(spec.vlan_percent, 100).then(|| VlanTag {
        pcp: rng.below(8) as u8,
        dei: rng.chance(1, 8),
        vid: rng.below(4096) as u16,
    });
    let eth = EthernetRepr {
        dst: rng.bytes(),
        src,
        vlan,
        ethertype: net.ethertype(),
    };
    FrameRepr::new_roce(eth, net, bth, ext, payload)
}

/// The shared test vectors (`../shared/vectors` beside the project: the published hex/pcap
/// vectors and a real hardware capture). Users' clones do not have it, so tests that read it
/// print a note and skip there; CI always has it, so under CI (`CI` set) its absence is a
/// failure rather than a silent skip.
pub fn shared_vectors_dir() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must have the shared vectors at {}",
        dir.display()
    );
    eprintln!("note: {} not present; skipping", dir.display());
    None
}
