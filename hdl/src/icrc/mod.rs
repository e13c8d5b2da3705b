//! RoCE invariant CRC (ICRC) in hardware: [`IcrcChecker`] (RX) and [`IcrcGenerator`] (TX).
//!
//! Both sit on a full Ethernet frame stream (destination MAC in the first byte; an FCS or
//! Ethernet padding after the ICRC is allowed and ignored) and find everything they need in the
//! frame itself, one beat per cycle with no bubbles:
//!
//! * EtherType at bytes 12-13; `0x8100` means one 802.1Q tag and the real EtherType at 16-17
//!   (L3 starts at 14, or 18 with the tag). `0x0800` IPv4, `0x86DD` IPv6, `0x8915` RoCEv1 (GRH);
//!   anything else is "not RoCE" (the checker says so, the generator passes it untouched).
//! * The span length from the UDP length (IPv4: L3+24, IPv6: L3+44) or the GRH payload length
//!   (RoCEv1: L3+4): the ICRC occupies `[end-4, end)` with `end = L3 + 20|40|40 + length`,
//!   *not* the end of the frame (IBTA Annex A17; docs/PROTOCOL.md §1: short frames carry Ethernet
//!   padding).
//!
//! Why self-parsing instead of taking "L3 kind + span length" from the header parser: the first
//! masked byte (IPv4 TOS, byte 15) is in the same 64-bit beat as the EtherType, and at 512 bits
//! the whole header is in beat 0, so a parser result would always arrive too late for a
//! one-pass, full-rate CRC. The few header fields involved cost ~40 flops.
//!
//! The CRC formulation (IBTA Vol 1, 7.8; docs/PROTOCOL.md §4.2, as rxe computes it): the register
//! starts at 0 at the frame start; bytes before `L3-4` are forced to 0 (a zero register stays zero
//! over zero bytes), bytes `[L3-4, L3)` are forced to `0xFF` (so the register reaches the
//! LRH-skipping seed `0xDEBB20E3` exactly at L3), variant fields are ORed with ones by byte
//! position (tables per L3 kind and VLAN presence), and the span is cut at its end by the
//! realigning [`Crc32Step`]. The generator stops the CRC at `end-4` and writes `~crc` LSB first
//! into `[end-4, end)`; the checker runs the CRC through the received ICRC and compares the
//! register with the CRC-32 residue `0xDEBB20E3`.
//!
//! Widths: `B` data bits, `K = B/8` bytes, `8 <= K` (the tables need the EtherType in the same
//! or an earlier beat than the first masked byte). Type aliases give the 64-bit profile.
pub mod checker;
pub mod crc32_step;
pub mod drive;
pub mod front;
pub mod generator;

pub use checker::IcrcChecker;
pub use crc32_step::Crc32Step;
pub use front::IcrcFront;
pub use generator::IcrcGenerator;

/// 64-bit profile.
pub type IcrcChecker64 = IcrcChecker<64, 8>;
/// 64-bit profile.
pub type IcrcGenerator64 = IcrcGenerator<64, 8>;

/// L3 kind codes (`Bits<2>`), as reported by [`IcrcFront`].
pub const KIND_NONE: u64 = 0;
pub const KIND_IPV4: u64 = 1;
pub const KIND_IPV6: u64 = 2;
pub const KIND_ROCEV1: u64 = 3;

/// CRC register after a good pseudo-packet *including* its ICRC (CRC-32 residue).
pub const RESIDUE: u32 = 0xDEBB_20E3;

/// Entries of the per-beat position tables (beat index 0..NHB-1; the index saturates at
/// NHB-1, whose entry is plain pass-through).
pub const NHB: usize = 16;

/// Byte offset of L3 in the frame.
pub const fn l3_start(vlan: bool) -> usize {
    if vlan {
        18
    } else {
        14
    }
}

/// ICRC OR-mask of the byte at L3-relative offset `rel` (0 = not masked).
pub fn variant_or(kind: u64, rel: usize) -> u8 {
    match kind {
        KIND_IPV4 => match rel {
            1 | 8 | 10 | 11 => 0xFF, // TOS, TTL, header checksum
            26 | 27 => 0xFF,         // UDP checksum (20 + 6)
            32 => 0xFF,              // BTH byte 4 (20 + 8 + 4)
            _ => 0,
        },
        KIND_IPV6 => match rel {
            0 => 0x0F,         // version kept, traffic class high nibble masked
            1..=3 | 7 => 0xFF, // TC low nibble + flow label; hop limit
            46 | 47 => 0xFF,   // UDP checksum (40 + 6)
            52 => 0xFF,        // BTH byte 4 (40 + 8 + 4)
            _ => 0,
        },
        KIND_ROCEV1 => match rel {
            0 => 0x0F,
            1..=3 | 7 => 0xFF, // GRH masked like IPv6
            44 => 0xFF,        // BTH byte 4 (40 + 4)
            _ => 0,
        },
        _ => 0,
    }
}

/// (frame offset of the 16-bit length field, value added to it to get `end`) for a kind.
pub fn length_field(kind: u64, vlan: bool) -> (usize, usize) {
    let l3 = l3_start(vlan);
    match kind {
        KIND_IPV4 => (l3 + 24, l3 + 20),
        KIND_IPV6 => (l3 + 44, l3 + 40),
        KIND_ROCEV1 => (l3 + 4, l3 + 40),
        _ => panic!("no length field for kind {kind}"),
    }
}

/// The (kind, vlan) combinations, in the order of the front end's tables.
pub const COMBOS: [(u64, bool); 6] = [
    (KIND_IPV4, false),
    (KIND_IPV4, true),
    (KIND_IPV6, false),
    (KIND_IPV6, true),
    (KIND_ROCEV1, false),
    (KIND_ROCEV1, true),
];

/// Build a `Bits<B>` from per-lane bytes (lane 0 = most significant byte).
pub(crate) fn lanes<const B: usize>(f: impl Fn(usize) -> u8) -> rust_hdl::prelude::Bits<B> {
    let v: Vec<u8> = (0..B / 8).map(f).collect();
    crate::stream::pack_data::<B>(&v)
}

/// Software reference of the whole-frame ICRC as the hardware sees it (used by tests and the
/// simulator): parses the frame like the hardware, returns `(icrc, icrc_offset)`, or `None` if
/// the frame is not RoCE or too short. Independent of the hardware tables: it builds the
/// pseudo-packet byte by byte and uses the table CRC from [`crc32_step`].
pub fn reference_icrc(frame: &[u8]) -> Option<(u32, usize)> {
    if frame.len() < 14 {
        return None;
    }
    let mut et = u16::from_be_bytes([frame[12], frame[13]]);
    let mut vlan = false;
    if et == 0x8100 {
        if frame.len() < 18 {
            return None;
        }
        vlan = true;
        et = u16::from_be_bytes([frame[16], frame[17]]);
    }
    let kind = match et {
        0x0800 => KIND_IPV4,
        0x86DD => KIND_IPV6,
        0x8915 => KIND_ROCEV1,
        _ => return None,
    };
    let l3 = l3_start(vlan);
    let (lp, add) = length_field(kind, vlan);
    if frame.len() < lp + 2 {
        return None;
    }
    let end = add + u16::from_be_bytes([frame[lp], frame[lp + 1]]) as usize;
    if end < l3 + 4 || end > frame.len() {
        return None;
    }
    let mut pseudo = vec![0xFFu8; 8];
    for (rel, &b) in frame[l3..end - 4].iter().enumerate() {
        pseudo.push(b | variant_or(kind, rel));
    }
    let r = crc32_step::crc32_update(0xFFFF_FFFF, &pseudo);
    Some((!r, end - 4))
}
