//! 24-bit packet sequence number (PSN) arithmetic (IBTA Vol 1, 9.7; docs/PROTOCOL.md §5).
//!
//! PSNs live on a circle of 2^24 values. "Before" and "after" are only meaningful for PSNs less
//! than 2^23 apart, which every RC window respects; comparisons use Linux rxe's
//! `psn_compare(a, b) = (s32)((a - b) << 8)`, which shifts the 24-bit difference into the top of a
//! 32-bit word so that the sign bit is the 24-bit difference's sign.
//!
//! Both free functions over plain `u32` (what hardware registers and wire fields hold) and a
//! [`Psn`] newtype are provided. Inputs with junk above bit 23 are tolerated: every function
//! ignores the upper 8 bits.

use core::cmp::Ordering;
use core::fmt;

/// Mask of the 24 significant PSN bits.
pub const PSN_MASK: u32 = 0x00FF_FFFF;

/// Number of distinct PSNs (2^24).
pub const PSN_MODULUS: u32 = 1 << 24;

/// Largest distance for which [`psn_compare`] gives a meaningful order (2^23 - 1). Windows of
/// unacknowledged PSNs must stay below this.
pub const PSN_MAX_DISTANCE: u32 = (1 << 23) - 1;

/// `psn + n` modulo 2^24.
#[inline]
pub const fn psn_add(psn: u32, n: u32) -> u32 {
    psn.wrapping_add(n) & PSN_MASK
}

/// `psn - n` modulo 2^24.
#[inline]
pub const fn psn_sub(psn: u32, n: u32) -> u32 {
    psn.wrapping_sub(n) & PSN_MASK
}

/// The PSN following `psn`, wrapping 0xFFFFFF to 0.
#[inline]
pub const fn psn_next(psn: u32) -> u32 {
    psn_add(psn, 1)
}

/// rxe's `psn_compare`: positive if `a` is after `b`, negative if before, zero if equal.
///
/// The magnitude is the signed 24-bit distance times 256; only the sign is meant to be used
/// (use [`psn_diff`] for the distance). Exactly `(s32)((a - b) << 8)`.
#[inline]
pub const fn psn_compare(a: u32, b: u32) -> i32 {
    (a.wrapping_sub(b) << 8) as i32
}

/// Signed distance `a - b` in `[-2^23, 2^23)`: how many PSNs `a` is after `b`.
#[inline]
pub const fn psn_diff(a: u32, b: u32) -> i32 {
    // Arithmetic shift undoes the <<8 while keeping the sign.
    psn_compare(a, b) >> 8
}

/// [`psn_compare`] as an [`Ordering`] (`Greater` = `a` is after `b`).
#[inline]
pub fn psn_cmp(a: u32, b: u32) -> Ordering {
    psn_compare(a, b).cmp(&0)
}

/// True if `psn` is before `expected` (a responder's ePSN): a duplicate of something already
/// executed, to be re-acknowledged but not re-executed.
#[inline]
pub const fn is_duplicate(psn: u32, expected: u32) -> bool {
    psn_compare(psn, expected) < 0
}

/// True if `psn` is after `expected`: out of sequence, some packets were lost in between.
#[inline]
pub const fn is_ahead(psn: u32, expected: u32) -> bool {
    psn_compare(psn, expected) > 0
}

/// Where an incoming PSN falls relative to the expected PSN (the responder's `CHK_PSN` step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PsnClass {
    /// Equal to the expected PSN.
    Expected,
    /// Before the expected PSN (up to 2^23 behind): already seen.
    Duplicate,
    /// After the expected PSN: out of sequence (NAK with PSN sequence error).
    Ahead,
}

/// Classifies `psn` against the expected PSN `expected`.
#[inline]
pub const fn classify(psn: u32, expected: u32) -> PsnClass {
    let d = psn_compare(psn, expected);
    if d == 0 {
        PsnClass::Expected
    } else if d < 0 {
        PsnClass::Duplicate
    } else {
        PsnClass::Ahead
    }
}

/// A 24-bit PSN. Always holds a value `<= 0xFFFFFF`.
///
/// It deliberately does not implement `PartialOrd`/`Ord`: serial-number order is not transitive
/// around the circle, so sorting PSNs would be a bug. Use [`Psn::cmp_serial`] or [`Psn::diff`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Psn(u32);

impl Psn {
    /// PSN 0.
    pub const ZERO: Psn = Psn(0);
    /// The largest PSN, 0xFFFFFF.
    pub const MAX: Psn = Psn(PSN_MASK);

    /// Makes a PSN from the low 24 bits of `v`.
    #[inline]
    pub const fn new(v: u32) -> Psn {
        Psn(v & PSN_MASK)
    }

    /// The PSN as a number in `0..=0xFFFFFF`.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The next PSN (wraps).
    #[inline]
    pub const fn next(self) -> Psn {
        Psn(psn_next(self.0))
    }

    /// `self + n` modulo 2^24.
    #[inline]
    pub const fn add(self, n: u32) -> Psn {
        Psn(psn_add(self.0, n))
    }

    /// `self - n` modulo 2^24.
    #[inline]
    pub const fn sub(self, n: u32) -> Psn {
        Psn(psn_sub(self.0, n))
    }

    /// Signed distance `self - other`, see [`psn_diff`].
    #[inline]
    pub const fn diff(self, other: Psn) -> i32 {
        psn_diff(self.0, other.0)
    }

    /// rxe `psn_compare(self, other)`.
    #[inline]
    pub const fn compare(self, other: Psn) -> i32 {
        psn_compare(self.0, other.0)
    }

    /// Serial-number order: `Greater` if `self` is after `other`.
    #[inline]
    pub fn cmp_serial(self, other: Psn) -> Ordering {
        psn_cmp(self.0, other.0)
    }

    /// Classifies `self` against the expected PSN, see [`classify`].
    #[inline]
    pub const fn classify(self, expected: Psn) -> PsnClass {
        classify(self.0, expected.0)
    }
}

impl From<Psn> for u32 {
    fn from(p: Psn) -> u32 {
        p.0
    }
}

impl fmt::Display for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#08x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_sub_wrap() {
        assert_eq!(psn_add(0xFF_FFFF, 1), 0);
        assert_eq!(psn_add(0xFF_FFFE, 5), 3);
        assert_eq!(psn_next(0xFF_FFFF), 0);
        assert_eq!(psn_sub(0, 1), 0xFF_FFFF);
        assert_eq!(psn_sub(3, 5), 0xFF_FFFE);
        assert_eq!(psn_add(0x1234, PSN_MODULUS), 0x1234);
        // Junk above bit 23 is ignored.
        assert_eq!(psn_add(0xAB00_0001, 1), 2);
    }

    #[test]
    fn compare_matches_rxe_formula() {
        let cases = [
            (0u32, 0u32),
            (1, 0),
            (0, 1),
            (0, 0xFF_FFFF),
            (0xFF_FFFF, 0),
            (0x80_0000, 0),
        ];
        for (a, b) in cases {
            let rxe = ((a.wrapping_sub(b)) << 8) as i32;
            assert_eq!(psn_compare(a, b), rxe);
        }
    }

    #[test]
    fn compare_across_wrap() {
        // 0 comes right after 0xFFFFFF.
        assert!(psn_compare(0, 0xFF_FFFF) > 0);
        assert!(psn_compare(0xFF_FFFF, 0) < 0);
        assert_eq!(psn_diff(0, 0xFF_FFFF), 1);
        assert_eq!(psn_diff(0xFF_FFFF, 0), -1);
        assert_eq!(psn_diff(2, 0xFF_FFFE), 4);
        assert_eq!(psn_cmp(5, 5), Ordering::Equal);
        assert_eq!(psn_cmp(0x10, 0xFF_FFF0), Ordering::Greater);
    }

    #[test]
    fn diff_range_limits() {
        assert_eq!(psn_diff(PSN_MAX_DISTANCE, 0), PSN_MAX_DISTANCE as i32);
        // Exactly half the circle away reads as "before" (the -2^23 end of the range).
        assert_eq!(psn_diff(1 << 23, 0), -(1 << 23));
        assert_eq!(psn_diff(0, PSN_MAX_DISTANCE), -(PSN_MAX_DISTANCE as i32));
    }

    #[test]
    fn duplicate_and_ahead_around_wrap() {
        let epsn = 0x00_0002;
        assert!(is_duplicate(0xFF_FFFF, epsn));
        assert!(is_duplicate(0x00_0001, epsn));
        assert!(!is_duplicate(epsn, epsn));
        assert!(!is_ahead(epsn, epsn));
        assert!(is_ahead(0x00_0003, epsn));
        assert!(is_ahead(psn_add(epsn, PSN_MAX_DISTANCE), epsn));
        assert_eq!(classify(epsn, epsn), PsnClass::Expected);
        assert_eq!(classify(0xFF_FFF0, epsn), PsnClass::Duplicate);
        assert_eq!(classify(0x10, 0xFF_FFF0), PsnClass::Ahead);
    }

    #[test]
    fn newtype() {
        let p = Psn::new(0x1FF_FFFF);
        assert_eq!(p, Psn::MAX);
        assert_eq!(p.next(), Psn::ZERO);
        assert_eq!(Psn::ZERO.sub(1), Psn::MAX);
        assert_eq!(Psn::MAX.add(3).get(), 2);
        assert_eq!(Psn::new(2).diff(Psn::MAX), 3);
        assert_eq!(Psn::ZERO.cmp_serial(Psn::MAX), Ordering::Greater);
        assert!(Psn::ZERO.compare(Psn::MAX) > 0);
        assert_eq!(
            Psn::new(0x205).classify(Psn::new(0x205)),
            PsnClass::Expected
        );
        assert_eq!(u32::from(Psn::new(7)), 7);
        assert_eq!(Psn::new(0x205).to_string(), "0x000205");
    }
}
