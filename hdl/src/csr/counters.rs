//! [`CsrCounters`]: the `CNT_*` statistics counters (HOST-INTERFACE section 10).
//!
//! Counter `i` is the one whose LO register is at `CNT_BASE + 8 i` (the order of
//! `regs::counters()`); `inc` bit `i` adds 1 to it in that cycle, except for `CNT_RX_BYTES` and
//! `CNT_TX_BYTES`, which add `rx_bytes` / `tx_bytes` when their bit is set. Counters are
//! [`COUNTER_BITS`] = 48 bits wide (LO = bits 31:0, HI = bits 47:32 with 31:16 reading 0) and
//! wrap. `clear` (CFG_RESET) zeroes them.
//!
//! The read rule: a read of a LO register latches that counter's HI half into one shared
//! shadow register; a read of a HI register returns the shadow if the last LO read was of the
//! same counter (and no clear came since), else the live HI half. So LO-then-HI is one
//! consistent snapshot while the counter moves. Reads of LO/HI have no other effect.
use super::{addr_const, Addr, COUNTER_BITS, NUM_COUNTERS};
use ferroce_proto::host::regs;
use rust_hdl::prelude::*;

/// Width of the implemented HI half.
pub const HI_BITS: usize = COUNTER_BITS - 32;
/// Width of a counter index (the shadow register's tag).
const IDX_BITS: usize = 7;
const _: () = assert!(NUM_COUNTERS <= 1 << IDX_BITS);

/// Index (bit of `inc`) of the counter whose LO register is at `lo_offset`.
pub fn counter_index(lo_offset: u32) -> usize {
    let i = regs::counters()
        .position(|(_, off)| off == lo_offset)
        .expect("not a counter LO register");
    assert_eq!(lo_offset, regs::CNT_BASE + 8 * i as u32);
    i
}

#[derive(LogicBlock)]
pub struct CsrCounters {
    pub clock: Signal<In, Clock>,
    pub rd: Signal<In, Bit>,
    pub raddr: Signal<In, Addr>,
    pub rdata: Signal<Out, Bits<32>>,
    pub clear: Signal<In, Bit>,
    pub inc: Signal<In, Bits<NUM_COUNTERS>>,
    pub rx_bytes: Signal<In, Bits<16>>,
    pub tx_bytes: Signal<In, Bits<16>>,
    lo: [DFF<Bits<32>>; NUM_COUNTERS],
    hi: [DFF<Bits<HI_BITS>>; NUM_COUNTERS],
    shadow: DFF<Bits<HI_BITS>>,
    sh_idx: DFF<Bits<IDX_BITS>>,
    sh_valid: DFF<Bit>,
    c_lo_addr: [Constant<Addr>; NUM_COUNTERS],
    c_hi_addr: [Constant<Addr>; NUM_COUNTERS],
    c_idx: [Constant<Bits<IDX_BITS>>; NUM_COUNTERS],
    c_is_rxb: [Constant<Bit>; NUM_COUNTERS],
    c_is_txb: [Constant<Bit>; NUM_COUNTERS],
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_zero_hi: Constant<Bits<HI_BITS>>,
    c_one_hi: Constant<Bits<HI_BITS>>,
    amt: [Signal<Local, Bits<32>>; NUM_COUNTERS],
    sum: [Signal<Local, Bits<32>>; NUM_COUNTERS],
    lsel: Signal<Local, Bits<32>>,
    hsel: Signal<Local, Bits<HI_BITS>>,
    hi_hit: Signal<Local, Bit>,
}

impl Default for CsrCounters {
    fn default() -> Self {
        let offs: Vec<u32> = regs::counters().map(|(_, o)| o).collect();
        assert_eq!(offs.len(), NUM_COUNTERS);
        let rxb = counter_index(regs::CNT_RX_BYTES_LO);
        let txb = counter_index(regs::CNT_TX_BYTES_LO);
        CsrCounters {
            clock: Default::default(),
            rd: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            clear: Default::default(),
            inc: Default::default(),
            rx_bytes: Default::default(),
            tx_bytes: Default::default(),
            lo: core::array::from_fn(|_| Default::default()),
            hi: core::array::from_fn(|_| Default::default()),
            shadow: Default::default(),
            sh_idx: Default::default(),
            sh_valid: Default::default(),
            c_lo_addr: core::array::from_fn(|i| addr_const(offs[i])),
            // "X_HI at off + 4" (regs module documentation); checked against the table
            c_hi_addr: core::array::from_fn(|i| {
                let hi = offs[i] + 4;
                assert!(super::reg_info(hi).name.ends_with("_HI"));
                addr_const(hi)
            }),
            c_idx: core::array::from_fn(|i| Constant::new((i as u64).into())),
            c_is_rxb: core::array::from_fn(|i| Constant::new(i == rxb)),
            c_is_txb: core::array::from_fn(|i| Constant::new(i == txb)),
            c_zero32: Constant::new(0u64.into()),
            c_one32: Constant::new(1u64.into()),
            c_zero_hi: Constant::new(0u64.into()),
            c_one_hi: Constant::new(1u64.into()),
            amt: core::array::from_fn(|_| Default::default()),
            sum: core::array::from_fn(|_| Default::default()),
            lsel: Default::default(),
            hsel: Default::default(),
            hi_hit: Default::default(),
        }
    }
}

impl Logic for CsrCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shadow, sh_idx, sh_valid);
        for i in 0..NUM_COUNTERS {
            self.lo[i].clock.next = self.clock.val();
            self.lo[i].d.next = self.lo[i].q.val();
            self.hi[i].clock.next = self.clock.val();
            self.hi[i].d.next = self.hi[i].q.val();
            self.amt[i].next = self.c_one32.val();
            if self.c_is_rxb[i].val() {
                self.amt[i].next = bit_cast::<32, 16>(self.rx_bytes.val());
            }
            if self.c_is_txb[i].val() {
                self.amt[i].next = bit_cast::<32, 16>(self.tx_bytes.val());
            }
            self.sum[i].next = self.lo[i].q.val() + self.amt[i].val();
            if self.inc.val().get_bit(i) {
                self.lo[i].d.next = self.sum[i].val();
                // carry out of LO: amounts are < 2^16, so LO[31:16] was all ones and the
                // sum's upper half wrapped to 0 (no comparator needed)
                if self.lo[i].q.val().get_bits::<16>(16).all()
                    & !self.sum[i].val().get_bits::<16>(16).any()
                {
                    self.hi[i].d.next = self.hi[i].q.val() + self.c_one_hi.val();
                }
            }
            if self.clear.val() {
                self.lo[i].d.next = self.c_zero32.val();
                self.hi[i].d.next = self.c_zero_hi.val();
            }
        }
        if self.clear.val() {
            self.sh_valid.d.next = false;
        }
        // (bit_cast of a loop-indexed value does not translate: select first, widen after)
        self.lsel.next = self.c_zero32.val();
        self.hsel.next = self.c_zero_hi.val();
        self.hi_hit.next = false;
        if self.rd.val() {
            for i in 0..NUM_COUNTERS {
                if self.raddr.val() == self.c_lo_addr[i].val() {
                    self.lsel.next = self.lo[i].q.val();
                    self.shadow.d.next = self.hi[i].q.val();
                    self.sh_idx.d.next = self.c_idx[i].val();
                    self.sh_valid.d.next = true;
                }
                if self.raddr.val() == self.c_hi_addr[i].val() {
                    self.hi_hit.next = true;
                    self.hsel.next = self.hi[i].q.val();
                    if self.sh_valid.q.val() & (self.sh_idx.q.val() == self.c_idx[i].val()) {
                        self.hsel.next = self.shadow.q.val();
                    }
                }
            }
        }
        self.rdata.next = self.lsel.val();
        if self.hi_hit.val() {
            self.rdata.next = bit_cast::<32, HI_BITS>(self.hsel.val());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_counters_synthesise() {
        let mut uut = CsrCounters::default();
        super::super::synth_check(&mut uut, "csr_counters");
    }
}
