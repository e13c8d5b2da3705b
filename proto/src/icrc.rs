//! The RoCE invariant CRC (ICRC), for RoCEv2 over IPv4 and IPv6 and for RoCEv1 (IBTA Vol 1, 7.8;
//! Annex A17 and A16; docs/PROTOCOL.md §4).
//!
//! The ICRC is the IEEE 802.3 CRC-32 (the zlib `crc32`) of a *pseudo-packet*:
//!
//! ```text
//! 8 x 0xFF (stands for the InfiniBand LRH, which RoCE does not carry)
//! ‖ IPv4 / IPv6 header, or the RoCEv1 GRH          (variant fields set to all-ones)
//! ‖ UDP header (RoCEv2 only)                       (checksum set to all-ones)
//! ‖ BTH                                            (byte 4: FECN, BECN, Resv6a set to all-ones)
//! ‖ extension headers ‖ payload ‖ pad              (covered as-is)
//! ```
//!
//! The fields that routers and switches may rewrite in flight (TOS/ECN, TTL, IP checksum,
//! IPv6 traffic class, flow label and hop limit, UDP checksum, FECN/BECN) are replaced by ones so
//! that the CRC stays *invariant* end to end. The result goes on the wire least-significant byte
//! first, like an Ethernet FCS: `compute(..).to_le_bytes()`.
//!
//! Hardware does not feed the 8-byte 0xFF prefix; it starts its CRC register at
//! [`ICRC_SEED`], the register state after that prefix. [`compute`] does the same, so the only
//! data copied is the few masked header bytes (on the stack).
//!
//! Header offsets are fixed: RoCEv2 allows no IPv4 options (Linux rxe also assumes a 20-byte
//! IPv4 header), and IPv6 extension headers are not used. A caller must reject frames with
//! `IHL != 5` or an IPv6 next header other than UDP before trusting the ICRC.

/// Length of the ICRC trailer on the wire, in bytes.
pub const ICRC_LEN: usize = 4;

/// Length of the all-ones prefix that stands in for the InfiniBand LRH.
pub const LRH_PREFIX_LEN: usize = 8;

/// CRC register value after shifting the 8-byte all-ones LRH prefix into a register that
/// started at `0xFFFF_FFFF` (no output inversion). Hardware loads this as the register seed and
/// then feeds the masked L3 headers; this is rxe's `crc32_le(0xdebb20e3, ...)`.
///
/// (It is numerically the same as the CRC-32 residue [`ICRC_RESIDUE_REGISTER`]: 4 x 0xFF zeroes
/// a register that starts at all-ones, and the next 4 x 0xFF then act like an appended
/// complemented CRC.)
pub const ICRC_SEED: u32 = 0xDEBB_20E3;

/// CRC register value (no output inversion) after feeding a whole pseudo-packet *including* its
/// correct ICRC bytes. A receiver that streams the ICRC through its CRC engine checks for this.
pub const ICRC_RESIDUE_REGISTER: u32 = 0xDEBB_20E3;

/// The same residue as a finished (inverted) CRC-32: `crc32(pseudo ‖ ICRC) == ICRC_RESIDUE`
/// for every good packet (Python: `zlib.crc32(pseudo + icrc) == 0x2144DF1C`).
pub const ICRC_RESIDUE: u32 = !ICRC_RESIDUE_REGISTER;

/// Which network header precedes the transport headers; it decides what is masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IcrcNet {
    /// RoCEv2 over IPv4: 20-byte IPv4 header, 8-byte UDP header, then the BTH.
    Ipv4,
    /// RoCEv2 over IPv6: 40-byte IPv6 header, 8-byte UDP header, then the BTH.
    Ipv6,
    /// RoCEv1 (EtherType 0x8915): 40-byte GRH (IPv6 layout), then the BTH; no UDP.
    RoceV1,
}

/// Length of the IPv4 header RoCEv2 uses (no options).
const IPV4_LEN: usize = 20;
/// Length of an IPv6 header or a GRH.
const IPV6_LEN: usize = 40;
/// Length of the UDP header.
const UDP_LEN: usize = 8;
/// Offset of the masked FECN/BECN/Resv6a byte inside the BTH.
const BTH_MASKED_BYTE: usize = 4;
/// Offset of the UDP checksum inside the UDP header.
const UDP_CHECKSUM: usize = 6;

impl IcrcNet {
    /// Offset of the BTH from the start of `l3` (the first byte of the IP header or GRH).
    pub const fn bth_offset(self) -> usize {
        match self {
            IcrcNet::Ipv4 => IPV4_LEN + UDP_LEN,
            IcrcNet::Ipv6 => IPV6_LEN + UDP_LEN,
            IcrcNet::RoceV1 => IPV6_LEN,
        }
    }

    /// Number of leading `l3` bytes that contain masked fields: everything up to and including
    /// BTH byte 4. Bytes past this point are covered unchanged.
    const fn masked_span(self) -> usize {
        self.bth_offset() + BTH_MASKED_BYTE + 1
    }

    /// Sets the variant fields of `hdr` (a copy of the first bytes of `l3`) to all-ones.
    /// Fields that lie beyond the end of `hdr` (a short buffer) are simply skipped.
    fn mask(self, hdr: &mut [u8]) {
        match self {
            IcrcNet::Ipv4 => {
                ones(hdr, 1, 1); // TOS: DSCP and ECN (switches mark ECN)
                ones(hdr, 8, 1); // TTL (decremented per hop)
                ones(hdr, 10, 2); // header checksum (changes with TTL and ECN)
                ones(hdr, IPV4_LEN + UDP_CHECKSUM, 2);
            }
            IcrcNet::Ipv6 | IcrcNet::RoceV1 => {
                // Traffic class and flow label. The version nibble is kept (rxe sets
                // `priority = 0xf` and the flow label to ones), giving 6F FF FF FF.
                if let Some(b) = hdr.first_mut() {
                    *b |= 0x0F;
                }
                ones(hdr, 1, 3);
                ones(hdr, 7, 1); // hop limit
                if self == IcrcNet::Ipv6 {
                    ones(hdr, IPV6_LEN + UDP_CHECKSUM, 2);
                }
            }
        }
        // FECN, BECN and Resv6a: the whole byte, since real NICs set Resv6a bits (docs/PROTOCOL.md
        // §2.1).
        ones(hdr, self.bth_offset() + BTH_MASKED_BYTE, 1);
    }
}

/// Sets `hdr[at..at + len]` to 0xFF, skipping the bytes beyond the end of a short buffer.
fn ones(hdr: &mut [u8], at: usize, len: usize) {
    let end = (at + len).min(hdr.len());
    if at < end {
        hdr[at..end].fill(0xFF);
    }
}

/// Computes the ICRC of a RoCE packet.
///
/// `l3` spans from the first byte of the IPv4 / IPv6 header or RoCEv1 GRH to the last pad byte;
/// it excludes Ethernet/VLAN headers, the ICRC itself, any Ethernet padding and the FCS.
/// The wire bytes are `compute(net, l3).to_le_bytes()`.
///
/// If `l3` is too short to hold all the headers, the masked fields that do exist are masked and
/// the CRC of what is there is returned (no panic). Such a value is meaningless as an ICRC but
/// keeps the function total, so callers can check lengths wherever it suits them.
pub fn compute(net: IcrcNet, l3: &[u8]) -> u32 {
    // Start after the LRH prefix. crc32fast keeps its state in finished (inverted) form, so the
    // register seed is passed complemented.
    let mut hasher = crc32fast::Hasher::new_with_initial(!ICRC_SEED);

    // Copy only the header bytes that carry masked fields (at most 53 bytes) to the stack.
    let mut hdr = [0u8; IcrcNet::Ipv6.masked_span()];
    let n = net.masked_span().min(l3.len());
    hdr[..n].copy_from_slice(&l3[..n]);
    net.mask(&mut hdr[..n]);

    hasher.update(&hdr[..n]);
    hasher.update(&l3[n..]);
    hasher.finalize()
}

/// Checks the ICRC of a packet: `l3_with_icrc` is `l3` as for [`compute`] followed by the
/// 4 ICRC bytes as found on the wire. Returns `false` when the buffer is shorter than the ICRC.
pub fn verify(net: IcrcNet, l3_with_icrc: &[u8]) -> bool {
    let Some(split) = l3_with_icrc.len().checked_sub(ICRC_LEN) else {
        return false;
    };
    let (l3, icrc) = l3_with_icrc.split_at(split);
    let wire = u32::from_le_bytes([icrc[0], icrc[1], icrc[2], icrc[3]]);
    compute(net, l3) == wire
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed is exactly the register state after the 8-byte LRH prefix.
    #[test]
    fn seed_is_register_after_lrh_prefix() {
        let mut h = crc32fast::Hasher::new();
        h.update(&[0xFF; LRH_PREFIX_LEN]);
        // finalize() inverts; undo it to get the raw register.
        assert_eq!(!h.finalize(), ICRC_SEED);
    }

    /// Feeding a good ICRC through the CRC leaves the well-known CRC-32 residue.
    #[test]
    fn residue_after_good_icrc() {
        let l3 = b"\x45\x00\x00\x20 some bytes that are not a real packet";
        let icrc = compute(IcrcNet::Ipv4, l3);
        let mut pseudo = vec![0xFF; LRH_PREFIX_LEN];
        let mut masked = l3.to_vec();
        IcrcNet::Ipv4.mask(&mut masked);
        pseudo.extend_from_slice(&masked);
        assert_eq!(crc32fast::hash(&pseudo), icrc);
        pseudo.extend_from_slice(&icrc.to_le_bytes());
        assert_eq!(crc32fast::hash(&pseudo), ICRC_RESIDUE);
        assert_eq!(ICRC_RESIDUE, 0x2144_DF1C);
    }

    /// docs/PROTOCOL.md §11: the worked example's pseudo-packet, given with its masks already
    /// applied.
    #[test]
    fn worked_example_pseudo_packet() {
        let pseudo = hex(
            "ffffffffffffffff45ff003812344000ff11ffffc0a80101c0a80102c00112b70024ffff\
                          0410ffffff0000118000010048656c6c6f20526f43452100",
        );
        assert_eq!(pseudo.len(), 60);
        assert_eq!(crc32fast::hash(&pseudo), 0x70E2_39B6);
        // Without output inversion the register ends at 0x8F1DC649 (docs/PROTOCOL.md §11).
        assert_eq!(!crc32fast::hash(&pseudo), 0x8F1D_C649);
        // compute() re-masks already-masked fields idempotently.
        assert_eq!(
            compute(IcrcNet::Ipv4, &pseudo[LRH_PREFIX_LEN..]),
            0x70E2_39B6
        );
    }

    #[test]
    fn short_input_does_not_panic() {
        for net in [IcrcNet::Ipv4, IcrcNet::Ipv6, IcrcNet::RoceV1] {
            for len in 0..64 {
                let buf = vec![0x5Au8; len];
                let _ = compute(net, &buf);
                let _ = verify(net, &buf);
            }
        }
        assert!(!verify(IcrcNet::Ipv4, &[1, 2, 3]));
    }

    #[test]
    fn ipv6_keeps_version_nibble() {
        let mut hdr = [0x66u8, 0xA1, 0x23, 0x45, 0, 0x24, 0x11, 0x40];
        IcrcNet::Ipv6.mask(&mut hdr);
        assert_eq!(hdr, [0x6F, 0xFF, 0xFF, 0xFF, 0, 0x24, 0x11, 0xFF]);
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
