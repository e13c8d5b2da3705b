//! Extension transport headers that follow the BTH (IBTA Vol 1, 9.3; docs/PROTOCOL.md §2.2), all
//! big-endian, and [`ExtHeaders`], the set an opcode carries, parsed and emitted in wire order:
//! DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH (and the CNP's reserved bytes).

use super::cnp::{CnpPayload, CnpRepr};
use super::opcode::{header_len, HeaderSet, Opcode};
use super::{get_u24, get_u32, get_u64, put_u24, put_u32, put_u64, Result};

// ---------------------------------------------------------------------------------------------
// RETH: VA(8) R_Key(4) DMA Length(4)

fixed_header_view!(
    /// RDMA Extended Transport Header view.
    Reth,
    header_len::RETH,
    "RETH"
);

impl<T: AsRef<[u8]>> Reth<T> {
    /// Remote virtual address.
    pub fn va(&self) -> u64 {
        get_u64(self.buffer.as_ref(), 0)
    }
    /// Remote key.
    pub fn rkey(&self) -> u32 {
        get_u32(self.buffer.as_ref(), 8)
    }
    /// DMA length: the whole message length, not this packet's.
    pub fn dma_len(&self) -> u32 {
        get_u32(self.buffer.as_ref(), 12)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Reth<T> {
    /// Sets the virtual address.
    pub fn set_va(&mut self, va: u64) {
        put_u64(self.buffer.as_mut(), 0, va);
    }
    /// Sets the remote key.
    pub fn set_rkey(&mut self, rkey: u32) {
        put_u32(self.buffer.as_mut(), 8, rkey);
    }
    /// Sets the DMA length.
    pub fn set_dma_len(&mut self, len: u32) {
        put_u32(self.buffer.as_mut(), 12, len);
    }
}

/// RETH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RethRepr {
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
}

impl RethRepr {
    pub const HEADER_LEN: usize = header_len::RETH;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(reth: &Reth<T>) -> Result<RethRepr> {
        reth.check_len()?;
        Ok(RethRepr {
            va: reth.va(),
            rkey: reth.rkey(),
            dma_len: reth.dma_len(),
        })
    }
    /// Always 16.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, reth: &mut Reth<T>) {
        reth.set_va(self.va);
        reth.set_rkey(self.rkey);
        reth.set_dma_len(self.dma_len);
    }
}

// ---------------------------------------------------------------------------------------------
// AETH: Syndrome(1) MSN(3)

fixed_header_view!(
    /// ACK Extended Transport Header view.
    Aeth,
    header_len::AETH,
    "AETH"
);

impl<T: AsRef<[u8]>> Aeth<T> {
    /// Syndrome: ACK / RNR NAK / NAK plus a 5-bit code (see [`crate::syndrome`]).
    pub fn syndrome(&self) -> u8 {
        self.buffer.as_ref()[0]
    }
    /// Message sequence number, 24 bits.
    pub fn msn(&self) -> u32 {
        get_u24(self.buffer.as_ref(), 1)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Aeth<T> {
    /// Sets the syndrome.
    pub fn set_syndrome(&mut self, syndrome: u8) {
        self.buffer.as_mut()[0] = syndrome;
    }
    /// Sets the MSN (low 24 bits).
    pub fn set_msn(&mut self, msn: u32) {
        put_u24(self.buffer.as_mut(), 1, msn);
    }
}

/// AETH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AethRepr {
    pub syndrome: u8,
    /// 24 bits.
    pub msn: u32,
}

impl AethRepr {
    pub const HEADER_LEN: usize = header_len::AETH;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(aeth: &Aeth<T>) -> Result<AethRepr> {
        aeth.check_len()?;
        Ok(AethRepr {
            syndrome: aeth.syndrome(),
            msn: aeth.msn(),
        })
    }
    /// Always 4.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, aeth: &mut Aeth<T>) {
        aeth.set_syndrome(self.syndrome);
        aeth.set_msn(self.msn);
    }
}

// ---------------------------------------------------------------------------------------------
// AtomicETH: VA(8) R_Key(4) Swap/Add(8) Compare(8), packed (no alignment padding)

fixed_header_view!(
    /// Atomic Extended Transport Header view.
    AtomicEth,
    header_len::ATOMIC_ETH,
    "AtomicETH"
);

impl<T: AsRef<[u8]>> AtomicEth<T> {
    /// Remote virtual address (8-byte aligned for a valid request).
    pub fn va(&self) -> u64 {
        get_u64(self.buffer.as_ref(), 0)
    }
    /// Remote key.
    pub fn rkey(&self) -> u32 {
        get_u32(self.buffer.as_ref(), 8)
    }
    /// Swap value (COMPARE_SWAP) or addend (FETCH_ADD).
    pub fn swap_add(&self) -> u64 {
        get_u64(self.buffer.as_ref(), 12)
    }
    /// Compare value (COMPARE_SWAP only).
    pub fn compare(&self) -> u64 {
        get_u64(self.buffer.as_ref(), 20)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AtomicEth<T> {
    /// Sets the virtual address.
    pub fn set_va(&mut self, va: u64) {
        put_u64(self.buffer.as_mut(), 0, va);
    }
    /// Sets the remote key.
    pub fn set_rkey(&mut self, rkey: u32) {
        put_u32(self.buffer.as_mut(), 8, rkey);
    }
    /// Sets the swap/add value.
    pub fn set_swap_add(&mut self, value: u64) {
        put_u64(self.buffer.as_mut(), 12, value);
    }
    /// Sets the compare value.
    pub fn set_compare(&mut self, value: u64) {
        put_u64(self.buffer.as_mut(), 20, value);
    }
}

/// AtomicETH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AtomicEthRepr {
    pub va: u64,
    pub rkey: u32,
    pub swap_add: u64,
    pub compare: u64,
}

impl AtomicEthRepr {
    pub const HEADER_LEN: usize = header_len::ATOMIC_ETH;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(eth: &AtomicEth<T>) -> Result<AtomicEthRepr> {
        eth.check_len()?;
        Ok(AtomicEthRepr {
            va: eth.va(),
            rkey: eth.rkey(),
            swap_add: eth.swap_add(),
            compare: eth.compare(),
        })
    }
    /// Always 28.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, eth: &mut AtomicEth<T>) {
        eth.set_va(self.va);
        eth.set_rkey(self.rkey);
        eth.set_swap_add(self.swap_add);
        eth.set_compare(self.compare);
    }
}

// ---------------------------------------------------------------------------------------------
// AtomicAckETH: original remote data(8)

fixed_header_view!(
    /// Atomic Acknowledge Extended Transport Header view.
    AtomicAckEth,
    header_len::ATOMIC_ACK_ETH,
    "AtomicAckETH"
);

impl<T: AsRef<[u8]>> AtomicAckEth<T> {
    /// The remote value before the atomic operation.
    pub fn orig(&self) -> u64 {
        get_u64(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AtomicAckEth<T> {
    /// Sets the original remote data.
    pub fn set_orig(&mut self, value: u64) {
        put_u64(self.buffer.as_mut(), 0, value);
    }
}

/// AtomicAckETH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AtomicAckEthRepr {
    pub orig: u64,
}

impl AtomicAckEthRepr {
    pub const HEADER_LEN: usize = header_len::ATOMIC_ACK_ETH;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(eth: &AtomicAckEth<T>) -> Result<AtomicAckEthRepr> {
        eth.check_len()?;
        Ok(AtomicAckEthRepr { orig: eth.orig() })
    }
    /// Always 8.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, eth: &mut AtomicAckEth<T>) {
        eth.set_orig(self.orig);
    }
}

// ---------------------------------------------------------------------------------------------
// ImmDt: 32-bit immediate data, opaque (reaches the CQE in network byte order)

fixed_header_view!(
    /// Immediate Data header view.
    ImmDt,
    header_len::IMM_DT,
    "ImmDt"
);

impl<T: AsRef<[u8]>> ImmDt<T> {
    /// The immediate, read big-endian.
    pub fn imm(&self) -> u32 {
        get_u32(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ImmDt<T> {
    /// Sets the immediate.
    pub fn set_imm(&mut self, imm: u32) {
        put_u32(self.buffer.as_mut(), 0, imm);
    }
}

/// ImmDt as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ImmDtRepr {
    /// The 4 wire bytes read as a big-endian number.
    pub imm: u32,
}

impl ImmDtRepr {
    pub const HEADER_LEN: usize = header_len::IMM_DT;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(imm: &ImmDt<T>) -> Result<ImmDtRepr> {
        imm.check_len()?;
        Ok(ImmDtRepr { imm: imm.imm() })
    }
    /// Always 4.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, imm: &mut ImmDt<T>) {
        imm.set_imm(self.imm);
    }
}

// ---------------------------------------------------------------------------------------------
// IETH: R_Key to invalidate(4)

fixed_header_view!(
    /// Invalidate Extended Transport Header view.
    Ieth,
    header_len::IETH,
    "IETH"
);

impl<T: AsRef<[u8]>> Ieth<T> {
    /// The R_Key to invalidate.
    pub fn rkey(&self) -> u32 {
        get_u32(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ieth<T> {
    /// Sets the R_Key.
    pub fn set_rkey(&mut self, rkey: u32) {
        put_u32(self.buffer.as_mut(), 0, rkey);
    }
}

/// IETH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct IethRepr {
    pub rkey: u32,
}

impl IethRepr {
    pub const HEADER_LEN: usize = header_len::IETH;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(ieth: &Ieth<T>) -> Result<IethRepr> {
        ieth.check_len()?;
        Ok(IethRepr { rkey: ieth.rkey() })
    }
    /// Always 4.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, ieth: &mut Ieth<T>) {
        ieth.set_rkey(self.rkey);
    }
}

// ---------------------------------------------------------------------------------------------
// DETH (UD): Q_Key(4) reserved(1) SrcQP(3)

fixed_header_view!(
    /// Datagram Extended Transport Header view.
    Deth,
    header_len::DETH,
    "DETH"
);

impl<T: AsRef<[u8]>> Deth<T> {
    /// Queue key.
    pub fn qkey(&self) -> u32 {
        get_u32(self.buffer.as_ref(), 0)
    }
    /// The reserved byte.
    pub fn reserved(&self) -> u8 {
        self.buffer.as_ref()[4]
    }
    /// Source QP number, 24 bits.
    pub fn src_qp(&self) -> u32 {
        get_u24(self.buffer.as_ref(), 5)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Deth<T> {
    /// Sets the Q_Key.
    pub fn set_qkey(&mut self, qkey: u32) {
        put_u32(self.buffer.as_mut(), 0, qkey);
    }
    /// Sets the reserved byte.
    pub fn set_reserved(&mut self, value: u8) {
        self.buffer.as_mut()[4] = value;
    }
    /// Sets the source QP (low 24 bits).
    pub fn set_src_qp(&mut self, qpn: u32) {
        put_u24(self.buffer.as_mut(), 5, qpn);
    }
}

/// DETH as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DethRepr {
    pub qkey: u32,
    /// 24 bits.
    pub src_qp: u32,
    /// Carried so non-zero values re-emit exactly.
    pub reserved: u8,
}

impl DethRepr {
    pub const HEADER_LEN: usize = header_len::DETH;

    /// Reads the header out of a view.
    pub fn parse<T: AsRef<[u8]>>(deth: &Deth<T>) -> Result<DethRepr> {
        deth.check_len()?;
        Ok(DethRepr {
            qkey: deth.qkey(),
            src_qp: deth.src_qp(),
            reserved: deth.reserved(),
        })
    }
    /// Always 8.
    pub const fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
    }
    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, deth: &mut Deth<T>) {
        deth.set_qkey(self.qkey);
        deth.set_reserved(self.reserved);
        deth.set_src_qp(self.src_qp);
    }
}

// ---------------------------------------------------------------------------------------------

/// The extension headers of one packet, each present or not. [`ExtHeaders::parse`] fills exactly
/// the ones the opcode carries; `emit` writes whichever are present, in wire order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ExtHeaders {
    pub deth: Option<DethRepr>,
    pub reth: Option<RethRepr>,
    pub atomic_eth: Option<AtomicEthRepr>,
    pub aeth: Option<AethRepr>,
    pub atomic_ack_eth: Option<AtomicAckEthRepr>,
    pub imm_dt: Option<ImmDtRepr>,
    pub ieth: Option<IethRepr>,
    /// The CNP's 16 reserved bytes.
    pub cnp: Option<CnpRepr>,
}

impl ExtHeaders {
    /// Parses the headers `opcode` carries from the start of `bytes` (the bytes right after the
    /// BTH). Returns them and how many bytes they took. Unknown opcodes carry none.
    pub fn parse(opcode: Opcode, bytes: &[u8]) -> Result<(ExtHeaders, usize)> {
        let set = opcode.headers();
        let mut ext = ExtHeaders::default();
        let mut at = 0;
        // Each step takes the next header off `bytes`; a slice shorter than the header fails
        // in new_checked with Truncated naming that header.
        if set.deth {
            ext.deth = Some(DethRepr::parse(&Deth::new_checked(&bytes[at..])?)?);
            at += header_len::DETH;
        }
        if set.reth {
            ext.reth = Some(RethRepr::parse(&Reth::new_checked(&bytes[at..])?)?);
            at += header_len::RETH;
        }
        if set.atomic_eth {
            ext.atomic_eth = Some(AtomicEthRepr::parse(&AtomicEth::new_checked(
                &bytes[at..],
            )?)?);
            at += header_len::ATOMIC_ETH;
        }
        if set.aeth {
            ext.aeth = Some(AethRepr::parse(&Aeth::new_checked(&bytes[at..])?)?);
            at += header_len::AETH;
        }
        if set.atomic_ack_eth {
            ext.atomic_ack_eth = Some(AtomicAckEthRepr::parse(&AtomicAckEth::new_checked(
                &bytes[at..],
            )?)?);
            at += header_len::ATOMIC_ACK_ETH;
        }
        if set.imm_dt {
            ext.imm_dt = Some(ImmDtRepr::parse(&ImmDt::new_checked(&bytes[at..])?)?);
            at += header_len::IMM_DT;
        }
        if set.ieth {
            ext.ieth = Some(IethRepr::parse(&Ieth::new_checked(&bytes[at..])?)?);
            at += header_len::IETH;
        }
        if set.cnp {
            ext.cnp = Some(CnpRepr::parse(&CnpPayload::new_checked(&bytes[at..])?)?);
            at += header_len::CNP;
        }
        Ok((ext, at))
    }

    /// Which headers are present.
    pub const fn present(&self) -> HeaderSet {
        HeaderSet {
            deth: self.deth.is_some(),
            reth: self.reth.is_some(),
            atomic_eth: self.atomic_eth.is_some(),
            aeth: self.aeth.is_some(),
            atomic_ack_eth: self.atomic_ack_eth.is_some(),
            imm_dt: self.imm_dt.is_some(),
            ieth: self.ieth.is_some(),
            cnp: self.cnp.is_some(),
        }
    }

    /// True when exactly the headers `opcode` carries are present, so that emit then parse
    /// gives the same value back.
    pub fn matches(&self, opcode: Opcode) -> bool {
        self.present() == opcode.headers()
    }

    /// Makes the set match `opcode`: adds the missing headers as all-zero and drops the ones the
    /// opcode does not carry.
    pub fn conform_to(&mut self, opcode: Opcode) {
        fn keep<H: Default>(slot: &mut Option<H>, wanted: bool) {
            if !wanted {
                *slot = None;
            } else if slot.is_none() {
                *slot = Some(H::default());
            }
        }
        let set = opcode.headers();
        keep(&mut self.deth, set.deth);
        keep(&mut self.reth, set.reth);
        keep(&mut self.atomic_eth, set.atomic_eth);
        keep(&mut self.aeth, set.aeth);
        keep(&mut self.atomic_ack_eth, set.atomic_ack_eth);
        keep(&mut self.imm_dt, set.imm_dt);
        keep(&mut self.ieth, set.ieth);
        keep(&mut self.cnp, set.cnp);
    }

    /// Total length of the present headers.
    pub const fn buffer_len(&self) -> usize {
        self.present().len()
    }

    /// Writes the present headers, in wire order, into the first `buffer_len()` bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) {
        let mut at = 0;
        if let Some(h) = &self.deth {
            h.emit(&mut Deth::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.reth {
            h.emit(&mut Reth::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.atomic_eth {
            h.emit(&mut AtomicEth::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.aeth {
            h.emit(&mut Aeth::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.atomic_ack_eth {
            h.emit(&mut AtomicAckEth::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.imm_dt {
            h.emit(&mut ImmDt::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.ieth {
            h.emit(&mut Ieth::new_unchecked(&mut buf[at..]));
            at += h.buffer_len();
        }
        if let Some(h) = &self.cnp {
            h.emit(&mut CnpPayload::new_unchecked(&mut buf[at..]));
        }
    }
}
