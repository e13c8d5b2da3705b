//! Base Transport Header (IBTA Vol 1, 9.2; docs/PROTOCOL.md §2.1), 12 bytes:
//!
//! ```text
//! byte 0      OpCode
//! byte 1      SE(7) M(6) PadCnt(5:4) TVer(3:0)
//! bytes 2-3   P_Key
//! byte 4      FECN(7) BECN(6) Resv6(5:0)      <- whole byte masked in the ICRC
//! bytes 5-7   DestQP
//! byte 8      AckReq(7) Resv7(6:0)
//! bytes 9-11  PSN
//! ```
//! Every bit is carried, reserved ones included: real NICs set MigReq and byte 4 = 0x10, and a
//! parsed frame must re-emit byte-exact.

use super::opcode::Opcode;
use super::{get_u16, get_u24, put_u16, put_u24, Result};

mod field {
    pub const OPCODE: usize = 0;
    pub const FLAGS: usize = 1;
    pub const PKEY: usize = 2;
    pub const FECN_BECN_RESV6: usize = 4;
    pub const DEST_QP: usize = 5;
    pub const ACK_RESV7: usize = 8;
    pub const PSN: usize = 9;
}

/// Default P_Key (full member of the default partition).
pub const DEFAULT_PKEY: u16 = 0xFFFF;

fixed_header_view!(
    /// A view of a BTH in a byte buffer.
    Bth,
    12,
    "BTH"
);

impl<T: AsRef<[u8]>> Bth<T> {
    fn byte(&self, at: usize) -> u8 {
        self.buffer.as_ref()[at]
    }

    /// OpCode.
    pub fn opcode(&self) -> Opcode {
        Opcode(self.byte(field::OPCODE))
    }

    /// SE: solicited event.
    pub fn solicited(&self) -> bool {
        self.byte(field::FLAGS) & 0x80 != 0
    }

    /// M: migration request.
    pub fn mig_req(&self) -> bool {
        self.byte(field::FLAGS) & 0x40 != 0
    }

    /// PadCnt: pad bytes (0..=3) between payload and ICRC.
    pub fn pad_cnt(&self) -> u8 {
        (self.byte(field::FLAGS) >> 4) & 0x3
    }

    /// TVer: transport header version (0).
    pub fn tver(&self) -> u8 {
        self.byte(field::FLAGS) & 0x0F
    }

    /// P_Key.
    pub fn pkey(&self) -> u16 {
        get_u16(self.buffer.as_ref(), field::PKEY)
    }

    /// FECN: forward explicit congestion notification.
    pub fn fecn(&self) -> bool {
        self.byte(field::FECN_BECN_RESV6) & 0x80 != 0
    }

    /// BECN: backward explicit congestion notification (set in CNPs).
    pub fn becn(&self) -> bool {
        self.byte(field::FECN_BECN_RESV6) & 0x40 != 0
    }

    /// The 6 reserved bits of byte 4.
    pub fn resv6(&self) -> u8 {
        self.byte(field::FECN_BECN_RESV6) & 0x3F
    }

    /// Destination QP number, 24 bits.
    pub fn dest_qp(&self) -> u32 {
        get_u24(self.buffer.as_ref(), field::DEST_QP)
    }

    /// AckReq.
    pub fn ack_req(&self) -> bool {
        self.byte(field::ACK_RESV7) & 0x80 != 0
    }

    /// The 7 reserved bits of byte 8 (covered by the ICRC).
    pub fn resv7(&self) -> u8 {
        self.byte(field::ACK_RESV7) & 0x7F
    }

    /// Packet sequence number, 24 bits.
    pub fn psn(&self) -> u32 {
        get_u24(self.buffer.as_ref(), field::PSN)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Bth<T> {
    fn update(&mut self, at: usize, mask: u8, value: u8) {
        let b = &mut self.buffer.as_mut()[at];
        *b = (*b & !mask) | (value & mask);
    }

    /// Sets OpCode.
    pub fn set_opcode(&mut self, op: Opcode) {
        self.buffer.as_mut()[field::OPCODE] = op.0;
    }

    /// Sets SE.
    pub fn set_solicited(&mut self, on: bool) {
        self.update(field::FLAGS, 0x80, if on { 0x80 } else { 0 });
    }

    /// Sets M.
    pub fn set_mig_req(&mut self, on: bool) {
        self.update(field::FLAGS, 0x40, if on { 0x40 } else { 0 });
    }

    /// Sets PadCnt (low 2 bits of `pad`).
    pub fn set_pad_cnt(&mut self, pad: u8) {
        self.update(field::FLAGS, 0x30, pad << 4);
    }

    /// Sets TVer (low 4 bits).
    pub fn set_tver(&mut self, tver: u8) {
        self.update(field::FLAGS, 0x0F, tver);
    }

    /// Sets P_Key.
    pub fn set_pkey(&mut self, pkey: u16) {
        put_u16(self.buffer.as_mut(), field::PKEY, pkey);
    }

    /// Sets FECN.
    pub fn set_fecn(&mut self, on: bool) {
        self.update(field::FECN_BECN_RESV6, 0x80, if on { 0x80 } else { 0 });
    }

    /// Sets BECN.
    pub fn set_becn(&mut self, on: bool) {
        self.update(field::FECN_BECN_RESV6, 0x40, if on { 0x40 } else { 0 });
    }

    /// Sets the 6 reserved bits of byte 4 (low 6 bits of `value`).
    pub fn set_resv6(&mut self, value: u8) {
        self.update(field::FECN_BECN_RESV6, 0x3F, value);
    }

    /// Sets DestQP (low 24 bits).
    pub fn set_dest_qp(&mut self, qpn: u32) {
        put_u24(self.buffer.as_mut(), field::DEST_QP, qpn);
    }

    /// Sets AckReq.
    pub fn set_ack_req(&mut self, on: bool) {
        self.update(field::ACK_RESV7, 0x80, if on { 0x80 } else { 0 });
    }

    /// Sets the 7 reserved bits of byte 8 (low 7 bits of `value`).
    pub fn set_resv7(&mut self, value: u8) {
        self.update(field::ACK_RESV7, 0x7F, value);
    }

    /// Sets PSN (low 24 bits).
    pub fn set_psn(&mut self, psn: u32) {
        put_u24(self.buffer.as_mut(), field::PSN, psn);
    }
}

/// A BTH as a value. Multi-bit fields hold their value in the low bits; `emit` drops anything
/// above the field width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BthRepr {
    pub opcode: Opcode,
    /// SE.
    pub solicited: bool,
    /// M. rxe sends 0, hardware NICs 1; ignored on receive.
    pub mig_req: bool,
    /// 0..=3.
    pub pad_cnt: u8,
    /// 4 bits; 0.
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    /// 6 bits.
    pub resv6: u8,
    /// 24 bits.
    pub dest_qp: u32,
    pub ack_req: bool,
    /// 7 bits.
    pub resv7: u8,
    /// 24 bits.
    pub psn: u32,
}

impl BthRepr {
    /// Length of a BTH.
    pub const HEADER_LEN: usize = 12;

    /// A BTH with the default P_Key and every flag and reserved bit clear.
    pub const fn new(opcode: Opcode, dest_qp: u32, psn: u32) -> BthRepr {
        BthRepr {
            opcode,
            solicited: false,
            mig_req: false,
            pad_cnt: 0,
            tver: 0,
            pkey: DEFAULT_PKEY,
            fecn: false,
            becn: false,
            resv6: 0,
            dest_qp,
            ack_req: false,
            resv7: 0,
            psn,
        }
    }

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(bth: &Bth<T>) -> Result<BthRepr> {
        bth.check_len()?;
        Ok(BthRepr {
            opcode: bth.opcode(),
            solicited: bth.solicited(),
            mig_req: bth.mig_req(),
            pad_cnt: bth.pad_cnt(),
            tver: bth.tver(),
            pkey: bth.pkey(),
            fecn: bth.fecn(),
            becn: bth.becn(),
            resv6: bth.resv6(),
            dest_qp: bth.dest_qp(),
            ack_req: bth.ack_req(),
            resv7: bth.resv7(),
            psn: bth.psn(),
        })
    }

    /// Always 12.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }

    /// Writes all 12 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, bth: &mut Bth<T>) {
        bth.set_opcode(self.opcode);
        bth.set_solicited(self.solicited);
        bth.set_mig_req(self.mig_req);
        bth.set_pad_cnt(self.pad_cnt);
        bth.set_tver(self.tver);
        bth.set_pkey(self.pkey);
        bth.set_fecn(self.fecn);
        bth.set_becn(self.becn);
        bth.set_resv6(self.resv6);
        bth.set_dest_qp(self.dest_qp);
        bth.set_ack_req(self.ack_req);
        bth.set_resv7(self.resv7);
        bth.set_psn(self.psn);
    }
}
