//! AETH syndrome byte: ACK with credits, RNR NAK with a timer, NAK with an error code
//! (IBTA Vol 1, 9.3 AETH; docs/PROTOCOL.md §6).
//!
//! ```text
//! bit 7     reserved (sent as 0, ignored on receive as rxe does)
//! bits 6:5  00 ACK | 01 RNR NAK | 10 reserved | 11 NAK
//! bits 4:0  ACK: credit code | RNR NAK: RNR timer code | NAK: NAK code
//! ```
//!
//! Also the two tables behind the 5-bit codes: end-to-end credits (rdmavt `credit_table`) and
//! RNR timer values (IBA / `enum ib_rnr_timeout`), with inverse look-ups.

/// Mask of the 5-bit code in the low bits of a syndrome.
const CODE_MASK: u8 = 0x1F;

/// Credit code meaning "invalid": no end-to-end flow control (rxe always sends it).
pub const CREDIT_CODE_UNLIMITED: u8 = 0x1F;

/// Credits for credit codes 0..=30 (rdmavt `credit_table`). Code 31 is "unlimited".
pub const CREDIT_TABLE: [u32; 31] = [
    0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
    2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
];

/// RNR NAK wait per timer code, in nanoseconds (IBA; Linux `enum ib_rnr_timeout`). Code 0 is the
/// longest wait, 655.36 ms; codes 1..=31 increase from 10 µs to 491.52 ms. Code 25 is 61.44 ms
/// (rxe's table has a typo, 61.41 ms).
pub const RNR_TIMER_NS: [u64; 32] = {
    const US: [u64; 32] = [
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560,
        3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880,
        163_840, 245_760, 327_680, 491_520,
    ];
    let mut ns = [0u64; 32];
    let mut i = 0;
    while i < 32 {
        ns[i] = US[i] * 1_000;
        i += 1;
    }
    ns
};

/// NAK error codes (syndrome class 11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NakCode {
    /// Code 0, syndrome 0x60: PSN sequence error (the requester must go back N).
    PsnSequenceError,
    /// Code 1, syndrome 0x61: invalid request.
    InvalidRequest,
    /// Code 2, syndrome 0x62: remote access error (R_Key, PD, range).
    RemoteAccessError,
    /// Code 3, syndrome 0x63: remote operational error.
    RemoteOperationalError,
    /// Code 4, syndrome 0x64: invalid RD request (RD only).
    InvalidRdRequest,
    /// Codes 5..=31: reserved. Holds the 5-bit code. rxe treats these as remote operational
    /// errors.
    Reserved(u8),
}

impl NakCode {
    /// Decodes the low 5 bits of a NAK syndrome (upper bits are ignored).
    pub const fn from_code(code: u8) -> NakCode {
        match code & CODE_MASK {
            0 => NakCode::PsnSequenceError,
            1 => NakCode::InvalidRequest,
            2 => NakCode::RemoteAccessError,
            3 => NakCode::RemoteOperationalError,
            4 => NakCode::InvalidRdRequest,
            c => NakCode::Reserved(c),
        }
    }

    /// The 5-bit code (0..=31). A `Reserved` value is masked to 5 bits.
    pub const fn code(self) -> u8 {
        match self {
            NakCode::PsnSequenceError => 0,
            NakCode::InvalidRequest => 1,
            NakCode::RemoteAccessError => 2,
            NakCode::RemoteOperationalError => 3,
            NakCode::InvalidRdRequest => 4,
            NakCode::Reserved(c) => c & CODE_MASK,
        }
    }
}

/// A decoded AETH syndrome byte.
///
/// The 5-bit fields are plain `u8`s for convenience; [`AethSyndrome::encode`] keeps only their
/// low 5 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AethSyndrome {
    /// Class 00: positive acknowledgement carrying an end-to-end credit code (see [`credits`]).
    Ack {
        /// 0..=30 index [`CREDIT_TABLE`]; 31 means no flow control.
        credit_code: u8,
    },
    /// Class 01: receiver not ready; retry after the time of [`rnr_timer_ns`]`(timer_code)`.
    RnrNak {
        /// RNR timer code, 0..=31.
        timer_code: u8,
    },
    /// Class 11: negative acknowledgement.
    Nak(NakCode),
    /// Class 10: reserved by the IBA. Holds the low 5 bits so the byte can be re-encoded.
    Reserved {
        /// The low 5 bits of the syndrome.
        low_bits: u8,
    },
}

impl AethSyndrome {
    /// ACK with no end-to-end flow control (syndrome 0x1F), what rxe always sends.
    pub const ACK_UNLIMITED: AethSyndrome = AethSyndrome::Ack {
        credit_code: CREDIT_CODE_UNLIMITED,
    };

    /// Decodes a syndrome byte. Bit 7 is reserved and ignored.
    pub const fn decode(syndrome: u8) -> AethSyndrome {
        let low = syndrome & CODE_MASK;
        match (syndrome >> 5) & 0b11 {
            0b00 => AethSyndrome::Ack { credit_code: low },
            0b01 => AethSyndrome::RnrNak { timer_code: low },
            0b11 => AethSyndrome::Nak(NakCode::from_code(low)),
            _ => AethSyndrome::Reserved { low_bits: low },
        }
    }

    /// Encodes to a syndrome byte with bit 7 clear.
    pub const fn encode(self) -> u8 {
        match self {
            AethSyndrome::Ack { credit_code } => credit_code & CODE_MASK,
            AethSyndrome::RnrNak { timer_code } => 0x20 | (timer_code & CODE_MASK),
            AethSyndrome::Nak(code) => 0x60 | code.code(),
            AethSyndrome::Reserved { low_bits } => 0x40 | (low_bits & CODE_MASK),
        }
    }

    /// True for an ACK (class 00), whatever its credits.
    pub const fn is_ack(self) -> bool {
        matches!(self, AethSyndrome::Ack { .. })
    }

    /// True for an RNR NAK or a NAK.
    pub const fn is_nak(self) -> bool {
        matches!(self, AethSyndrome::RnrNak { .. } | AethSyndrome::Nak(_))
    }
}

impl From<u8> for AethSyndrome {
    fn from(syndrome: u8) -> Self {
        AethSyndrome::decode(syndrome)
    }
}

impl From<AethSyndrome> for u8 {
    fn from(s: AethSyndrome) -> u8 {
        s.encode()
    }
}

impl From<NakCode> for AethSyndrome {
    fn from(code: NakCode) -> Self {
        AethSyndrome::Nak(code)
    }
}

/// Credits advertised by an ACK credit code: `None` for 31 (no flow control), otherwise the
/// rdmavt table value. Only the low 5 bits of `code` are used.
pub const fn credits(code: u8) -> Option<u32> {
    let code = code & CODE_MASK;
    if code == CREDIT_CODE_UNLIMITED {
        None
    } else {
        Some(CREDIT_TABLE[code as usize])
    }
}

/// The credit code a responder should advertise when it has `available` receive WQEs: the
/// largest code whose credit count does not exceed `available` (rdmavt `rvt_compute_aeth`), so
/// it never promises more than it has. Saturates at code 30 (32768 credits).
pub const fn credit_code_for(available: u32) -> u8 {
    let mut code = 0;
    while code + 1 < CREDIT_TABLE.len() && CREDIT_TABLE[code + 1] <= available {
        code += 1;
    }
    code as u8
}

/// The smallest credit code whose credit count is at least `n`. Above 32768 credits only code
/// 31 ("unlimited", no flow control) covers `n`, so that is returned.
pub const fn credit_code_covering(n: u32) -> u8 {
    let mut code = 0;
    while code < CREDIT_TABLE.len() {
        if CREDIT_TABLE[code] >= n {
            return code as u8;
        }
        code += 1;
    }
    CREDIT_CODE_UNLIMITED
}

/// RNR NAK wait for a timer code, in nanoseconds (code 0 = 655.36 ms). Only the low 5 bits of
/// `code` are used.
pub const fn rnr_timer_ns(code: u8) -> u64 {
    RNR_TIMER_NS[(code & CODE_MASK) as usize]
}

/// The RNR timer code with the shortest wait that is at least `min_ns` nanoseconds.
///
/// Codes 1..=31 ascend from 10 µs to 491.52 ms, and code 0 is the longest, 655.36 ms. There is
/// no zero wait, so `min_ns <= 10 µs` gives code 1; anything above 655.36 ms saturates at code 0.
pub const fn rnr_timer_code_for(min_ns: u64) -> u8 {
    let mut code = 1;
    while code < RNR_TIMER_NS.len() {
        if RNR_TIMER_NS[code] >= min_ns {
            return code as u8;
        }
        code += 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_vectors() {
        // published vectors and the real capture (docs/PROTOCOL.md §11).
        assert_eq!(AethSyndrome::decode(0x1F), AethSyndrome::ACK_UNLIMITED);
        assert_eq!(credits(0x1F), None);
        assert_eq!(
            AethSyndrome::decode(0x60),
            AethSyndrome::Nak(NakCode::PsnSequenceError)
        );
        assert_eq!(
            AethSyndrome::decode(0x2E),
            AethSyndrome::RnrNak { timer_code: 14 }
        );
        assert_eq!(rnr_timer_ns(14), 1_280_000);
        assert_eq!(
            AethSyndrome::decode(0x06),
            AethSyndrome::Ack { credit_code: 6 }
        );
        assert_eq!(credits(6), Some(8));
        assert_eq!(
            AethSyndrome::decode(0x05),
            AethSyndrome::Ack { credit_code: 5 }
        );
        assert_eq!(credits(5), Some(6));
        assert_eq!(
            AethSyndrome::decode(0x61),
            AethSyndrome::Nak(NakCode::InvalidRequest)
        );
        assert_eq!(
            AethSyndrome::decode(0x62),
            AethSyndrome::Nak(NakCode::RemoteAccessError)
        );
        assert_eq!(
            AethSyndrome::decode(0x63),
            AethSyndrome::Nak(NakCode::RemoteOperationalError)
        );
        assert_eq!(
            AethSyndrome::decode(0x64),
            AethSyndrome::Nak(NakCode::InvalidRdRequest)
        );
        assert_eq!(
            AethSyndrome::decode(0x65),
            AethSyndrome::Nak(NakCode::Reserved(5))
        );
        assert_eq!(
            AethSyndrome::decode(0x7F),
            AethSyndrome::Nak(NakCode::Reserved(31))
        );
        assert_eq!(
            AethSyndrome::decode(0x40),
            AethSyndrome::Reserved { low_bits: 0 }
        );
        assert_eq!(
            AethSyndrome::decode(0x5A),
            AethSyndrome::Reserved { low_bits: 0x1A }
        );
        // Bit 7 is ignored.
        assert_eq!(
            AethSyndrome::decode(0xE0),
            AethSyndrome::Nak(NakCode::PsnSequenceError)
        );
    }

    #[test]
    fn encode_decode_round_trip_all_bytes() {
        for b in 0u8..=0x7F {
            let s = AethSyndrome::decode(b);
            assert_eq!(s.encode(), b, "syndrome {b:#04x}");
            assert_eq!(u8::from(AethSyndrome::from(b | 0x80)), b);
        }
        assert_eq!(AethSyndrome::RnrNak { timer_code: 14 }.encode(), 0x2E);
        assert_eq!(
            AethSyndrome::from(NakCode::RemoteAccessError).encode(),
            0x62
        );
        assert_eq!(AethSyndrome::Ack { credit_code: 0xFF }.encode(), 0x1F);
    }

    #[test]
    fn classes() {
        assert!(AethSyndrome::decode(0x05).is_ack());
        assert!(!AethSyndrome::decode(0x05).is_nak());
        assert!(AethSyndrome::decode(0x2E).is_nak());
        assert!(AethSyndrome::decode(0x60).is_nak());
        assert!(!AethSyndrome::decode(0x40).is_ack());
        assert!(!AethSyndrome::decode(0x40).is_nak());
    }

    #[test]
    fn nak_codes() {
        for c in 0u8..32 {
            assert_eq!(NakCode::from_code(c).code(), c);
        }
        assert_eq!(NakCode::PsnSequenceError.code(), 0);
        assert_eq!(NakCode::InvalidRdRequest.code(), 4);
    }

    /// The AETH credit table (docs/PROTOCOL.md §6), written out independently of CREDIT_TABLE.
    #[test]
    fn credit_table_matches_doc() {
        #[rustfmt::skip]
        let doc: [(u8, u32); 31] = [
            (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 6), (6, 8), (7, 12), (8, 16), (9, 24),
            (10, 32), (11, 48), (12, 64), (13, 96), (14, 128), (15, 192), (16, 256), (17, 384),
            (18, 512), (19, 768), (20, 1024), (21, 1536), (22, 2048), (23, 3072), (24, 4096),
            (25, 6144), (26, 8192), (27, 12288), (28, 16384), (29, 24576), (30, 32768),
        ];
        for (code, n) in doc {
            assert_eq!(credits(code), Some(n), "code {code}");
        }
        assert_eq!(credits(31), None);
        // Only the low 5 bits count.
        assert_eq!(credits(0x26), Some(8));
    }

    #[test]
    fn credit_inverses() {
        assert_eq!(credit_code_for(0), 0);
        assert_eq!(credit_code_for(5), 4); // 6 would over-promise
        assert_eq!(credit_code_for(6), 5);
        assert_eq!(credit_code_for(8), 6);
        assert_eq!(credit_code_for(32768), 30);
        assert_eq!(credit_code_for(u32::MAX), 30);

        assert_eq!(credit_code_covering(0), 0);
        assert_eq!(credit_code_covering(5), 5);
        assert_eq!(credit_code_covering(6), 5);
        assert_eq!(credit_code_covering(7), 6);
        assert_eq!(credit_code_covering(32768), 30);
        assert_eq!(credit_code_covering(32769), CREDIT_CODE_UNLIMITED);
        for code in 0u8..31 {
            let n = credits(code).unwrap();
            assert_eq!(credit_code_for(n), code);
            assert_eq!(credit_code_covering(n), code);
        }
    }

    /// The RNR timer table in ms (docs/PROTOCOL.md §6), written out independently of RNR_TIMER_NS.
    #[test]
    fn rnr_table_matches_doc() {
        let doc_ms = [
            655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48, 0.64, 0.96,
            1.28, 1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92,
            122.88, 163.84, 245.76, 327.68, 491.52,
        ];
        for (code, ms) in doc_ms.iter().enumerate() {
            let ns = (ms * 1e6_f64).round() as u64;
            assert_eq!(rnr_timer_ns(code as u8), ns, "code {code}");
        }
        assert_eq!(rnr_timer_ns(25), 61_440_000); // not rxe's 61410 µs
        assert_eq!(rnr_timer_ns(0), 655_360_000);
        assert_eq!(rnr_timer_ns(0x20 | 14), 1_280_000);
    }

    #[test]
    fn rnr_inverse() {
        assert_eq!(rnr_timer_code_for(0), 1);
        assert_eq!(rnr_timer_code_for(10_000), 1);
        assert_eq!(rnr_timer_code_for(10_001), 2);
        assert_eq!(rnr_timer_code_for(1_280_000), 14);
        assert_eq!(rnr_timer_code_for(1_000_000), 14);
        assert_eq!(rnr_timer_code_for(491_520_000), 31);
        assert_eq!(rnr_timer_code_for(491_520_001), 0);
        assert_eq!(rnr_timer_code_for(u64::MAX), 0);
        for code in 0u8..32 {
            assert_eq!(rnr_timer_code_for(rnr_timer_ns(code)), code);
        }
    }
}
