//! Plain-Rust reference model of [`super::RxParser`]: what it must output for one frame.
//!
//! This is the executable specification of the RX front end's classification (kind, drop
//! reason, ICRC flag), written independently of the hardware: the tests run every frame through
//! both and compare. The descriptor of an accepted RoCE frame comes from
//! [`RoceHeader::parse_frame`] (the shared plain-Rust parser of the descriptor), the ICRC from
//! [`crate::icrc::reference_icrc`] (a byte-wise pseudo-packet CRC).
//!
//! # Classification, in priority order
//!
//! Bytes past the end of the frame read as 0 (the hardware window does the same).
//!
//! 1. `oversize`: the frame is longer than `min(cfg.max_frame, hard_max)`.
//! 2. `truncated` (kind `other`): shorter than 14 bytes, or 18 with an 802.1Q tag.
//! 3. EtherType: not IPv4/IPv6/RoCEv1/MAC-control -> `unsupported` (kind `other`).
//! 4. MAC control: opcode not visible -> `truncated`; opcode != 0x0101 -> `unsupported`
//!    (`other`); else kind `pfc`: DA not 01:80:C2:00:00:01 nor ours (and not promiscuous) ->
//!    `mac_mismatch`; shorter than L2 + 20 -> `truncated`; else `accepted` (PFC output).
//! 5. L3 header (IPv4+UDP 28 B, IPv6+UDP 48 B, GRH 40 B) not complete -> `truncated` (`other`).
//! 6. Not RoCE (IPv4 byte 0 != 0x45, fragmented (MF or offset), protocol != 17; IPv6 version
//!    != 6 or next header != 17; UDP dport != 4791; GRH version != 6 or next header != 0x1B)
//!    -> `unsupported` (`other`).
//! 7. Kind is now RoCE (`cnp` if the opcode byte is 0x81). DA not ours and not promiscuous ->
//!    `mac_mismatch`.
//! 8. BTH not complete -> `truncated`; unknown opcode -> `bad_opcode`; extension headers not
//!    complete -> `truncated`.
//! 9. `length`: IPv4 TotalLength != 20 + UDP.Length, IPv6 PayLen != UDP.Length, UDP.Length < 8,
//!    or L_ib < 12 + ext + 4.
//! 10. Frame shorter than L2 + L3 + L_ib -> `truncated`; longer and longer than 64 bytes ->
//!    `length` (only Ethernet minimum-size padding may follow the ICRC).
//! 11. `length`: PadCnt larger than what is left for the payload, PadCnt != (-payload) & 3, or
//!    payload illegal for the opcode ([`PayClass`]) or over 4096 bytes.
//! 12. ICRC residue wrong -> `bad_icrc`; else `accepted`.
//!
//! `icrc_ok` is reported for every frame: the ICRC matched and the kind is a RoCE kind.
use super::drop_reason::{DropReason, RxKind};
use crate::header::RoceHeader;

/// Destination MAC of PFC / PAUSE frames.
pub const PFC_DA: u64 =
    ferroce_proto::wire::ethernet::mac_to_u64(ferroce_proto::wire::pfc::DST_MAC);
/// Largest payload of one packet (PMTU 4096).
pub const MAX_PAYLOAD: usize = 4096;
/// Frames up to this length may carry bytes after the ICRC (Ethernet minimum-size padding,
/// 60 bytes untagged or 64 tagged, FCS excluded).
pub const MAX_PADDED_FRAME: usize = 64;

/// Local configuration of the RX front end (the `cfg_*` ports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxConfig {
    /// Our MAC address (48 bits, first wire byte in bits 47..40).
    pub mac: u64,
    /// Accept any destination MAC.
    pub promisc: bool,
    /// Longest accepted frame in bytes (FCS excluded); longer frames are `oversize`.
    pub max_frame: usize,
}

impl Default for RxConfig {
    /// MAC 02:00:00:00:00:02 (the published vectors' destination, docs/PROTOCOL.md §11), not
    /// promiscuous, PMTU 4096 plus the largest header set with VLAN and IPv6 (18 + 48 + 12 + 28 + 3
    /// pad + 4 ICRC).
    fn default() -> Self {
        RxConfig {
            mac: 0x0200_0000_0002,
            promisc: false,
            max_frame: 4096 + 113,
        }
    }
}

/// Payload rule of an opcode (IBTA Vol 1, 9.2; docs/PROTOCOL.md §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayClass {
    /// No payload (READ request, ACK, atomic ACK, atomics, CNP).
    None,
    /// FIRST/MIDDLE: exactly one PMTU: a non-zero multiple of 256, PadCnt 0.
    Full,
    /// LAST: 1..=4096 bytes.
    Last,
    /// ONLY: 0..=4096 bytes.
    Only,
}

/// Payload class of a known opcode; `None` for opcodes the NIC does not know.
pub fn opcode_class(op: u8) -> Option<PayClass> {
    let rc = |low: u8| -> Option<PayClass> {
        Some(match low {
            0x00 | 0x01 | 0x06 | 0x07 | 0x0D | 0x0E => PayClass::Full,
            0x02 | 0x03 | 0x08 | 0x09 | 0x0F | 0x16 => PayClass::Last,
            0x04 | 0x05 | 0x0A | 0x0B | 0x10 | 0x17 => PayClass::Only,
            0x0C | 0x11 | 0x12 | 0x13 | 0x14 => PayClass::None,
            _ => return None,
        })
    };
    match op >> 5 {
        0 => rc(op & 0x1F),
        1 if op & 0x1F <= 0x0B => rc(op & 0x1F),
        3 if op == 0x64 || op == 0x65 => Some(PayClass::Only),
        4 if op == 0x81 => Some(PayClass::None),
        _ => None,
    }
}

/// The verdict of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxVerdict {
    pub kind: RxKind,
    pub reason: DropReason,
    pub icrc_ok: bool,
    /// Frame length in bytes (saturating at 65535).
    pub flen: usize,
}

/// What an accepted frame releases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RxRelease {
    /// Dropped: nothing.
    Nothing,
    /// RoCE frame: the descriptor on the `hdr` port and the payload on the `pay` port (no beats
    /// when empty).
    Roce { hdr: RoceHeader, payload: Vec<u8> },
    /// PFC frame: the PFC output pulses (class-enable vector low byte, 8 pause times).
    Pfc { enable: u8, times: [u16; 8] },
}

/// Everything the parser must do with one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxExpect {
    pub verdict: RxVerdict,
    pub release: RxRelease,
}

/// The reference model: verdict and release for `frame` (no FCS). `hard_max` is the
/// parser's own ceiling on frame length ([`super::RxParser::hard_max_frame`]).
pub fn expect(frame: &[u8], cfg: &RxConfig, hard_max: usize) -> RxExpect {
    let flen = frame.len();
    let b = |i: usize| -> usize { frame.get(i).copied().unwrap_or(0) as usize };
    let g16 = |i: usize| b(i) << 8 | b(i + 1);
    let icrc_match = match crate::icrc::reference_icrc(frame) {
        Some((c, at)) => frame[at..at + 4] == c.to_le_bytes(),
        None => false,
    };
    let verdict = |kind: RxKind, reason: DropReason| RxVerdict {
        kind,
        reason,
        icrc_ok: icrc_match && kind.is_roce(),
        flen: flen.min(0xFFFF),
    };
    let drop = |kind: RxKind, reason: DropReason| RxExpect {
        verdict: verdict(kind, reason),
        release: RxRelease::Nothing,
    };
    let oversize = flen > cfg.max_frame.min(hard_max);

    // ---- kind
    let da = (0..6).fold(0u64, |a, i| a << 8 | b(i) as u64);
    let vlan = g16(12) == 0x8100;
    let l2 = if vlan { 18 } else { 14 };
    let l2_short = flen < l2;
    let et = g16(l2 - 2);
    let l3 = l2; // L3 start
    #[derive(PartialEq)]
    enum Class {
        V4,
        V6,
        V1,
        MacCtl,
        Other,
    }
    let class = match et {
        0x0800 => Class::V4,
        0x86DD => Class::V6,
        0x8915 => Class::V1,
        0x8808 => Class::MacCtl,
        _ => Class::Other,
    };
    let l3_len = match class {
        Class::V4 => 28,
        Class::V6 => 48,
        Class::V1 => 40,
        _ => 0,
    };
    let not_roce = match class {
        Class::V4 => {
            b(l3) != 0x45 || (g16(l3 + 6) & 0x3FFF) != 0 || b(l3 + 9) != 17 || g16(l3 + 22) != 4791
        }
        Class::V6 => b(l3) >> 4 != 6 || b(l3 + 6) != 17 || g16(l3 + 42) != 4791,
        Class::V1 => b(l3) >> 4 != 6 || b(l3 + 6) != 0x1B,
        _ => true,
    };
    let bth = l3 + l3_len;
    let op = b(bth) as u8;
    let pfc_op = class == Class::MacCtl && flen >= l2 + 2 && g16(l2) == 0x0101;
    let kind = if l2_short {
        RxKind::Other
    } else if pfc_op {
        RxKind::Pfc
    } else if class == Class::Other || class == Class::MacCtl || flen < bth || not_roce {
        RxKind::Other
    } else if op == 0x81 {
        RxKind::Cnp
    } else {
        match class {
            Class::V4 => RxKind::RoceV2Ipv4,
            Class::V6 => RxKind::RoceV2Ipv6,
            _ => RxKind::RoceV1,
        }
    };

    // ---- reason
    if oversize {
        return drop(kind, DropReason::Oversize);
    }
    if l2_short {
        return drop(kind, DropReason::Truncated);
    }
    match class {
        Class::Other => return drop(kind, DropReason::Unsupported),
        Class::MacCtl => {
            if flen < l2 + 2 {
                return drop(kind, DropReason::Truncated);
            }
            if !pfc_op {
                return drop(kind, DropReason::Unsupported);
            }
            if !(cfg.promisc || da == PFC_DA || da == cfg.mac) {
                return drop(kind, DropReason::MacMismatch);
            }
            if flen < l2 + 20 {
                return drop(kind, DropReason::Truncated);
            }
            let mut times = [0u16; 8];
            for (n, t) in times.iter_mut().enumerate() {
                *t = g16(l2 + 4 + 2 * n) as u16;
            }
            return RxExpect {
                verdict: verdict(kind, DropReason::Accepted),
                release: RxRelease::Pfc {
                    enable: b(l2 + 3) as u8,
                    times,
                },
            };
        }
        _ => {}
    }
    if flen < bth {
        return drop(kind, DropReason::Truncated);
    }
    if not_roce {
        return drop(kind, DropReason::Unsupported);
    }
    if !(cfg.promisc || da == cfg.mac) {
        return drop(kind, DropReason::MacMismatch);
    }
    if flen < bth + 12 {
        return drop(kind, DropReason::Truncated);
    }
    let Some(pclass) = opcode_class(op) else {
        return drop(kind, DropReason::BadOpcode);
    };
    let ext = crate::header::ExtLayout::of(op).len();
    if flen < bth + 12 + ext {
        return drop(kind, DropReason::Truncated);
    }
    let (lib, consistent) = match class {
        Class::V4 => {
            let ulen = g16(l3 + 24);
            (
                ulen.wrapping_sub(8) as isize,
                g16(l3 + 2) == 20 + ulen && ulen >= 8,
            )
        }
        Class::V6 => {
            let ulen = g16(l3 + 44);
            (
                ulen.wrapping_sub(8) as isize,
                g16(l3 + 4) == ulen && ulen >= 8,
            )
        }
        _ => (g16(l3 + 4) as isize, true),
    };
    if !consistent || lib < (12 + ext + 4) as isize {
        return drop(kind, DropReason::Length);
    }
    let lib = lib as usize;
    let span_end = bth + lib;
    if flen < span_end {
        return drop(kind, DropReason::Truncated);
    }
    if flen > span_end && flen > MAX_PADDED_FRAME {
        return drop(kind, DropReason::Length);
    }
    let pad = (b(bth + 1) >> 4) & 3;
    if lib < 12 + ext + 4 + pad {
        return drop(kind, DropReason::Length);
    }
    let payload = lib - 12 - ext - 4 - pad;
    let class_ok = match pclass {
        PayClass::None => payload == 0,
        PayClass::Full => payload > 0 && payload % 256 == 0,
        PayClass::Last => payload > 0,
        PayClass::Only => true,
    };
    if (payload + pad) % 4 != 0 || !class_ok || payload > MAX_PAYLOAD {
        return drop(kind, DropReason::Length);
    }
    if !icrc_match {
        return drop(kind, DropReason::BadIcrc);
    }
    let (hdr, data) = RoceHeader::parse_frame(frame).expect("model: accepted frame must parse");
    assert_eq!(
        data.len(),
        payload,
        "model and RoceHeader::parse_frame disagree on the payload"
    );
    RxExpect {
        verdict: verdict(kind, DropReason::Accepted),
        release: RxRelease::Roce { hdr, payload: data },
    }
}
