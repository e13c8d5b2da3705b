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
//!
//! # Structure: a counter RAM, small accumulators and a flush sweep
//! Ninety 48-bit counters as registers, each with its own adder and a 180-way read mux, cost
//! about 8,600 LUT4, 2,160 carry cells and 4,300 flip-flops on ECP5: more than some engines.
//! Here a counter is split in two parts whose sum is its value:
//! * its *settled* part, one 48-bit word of a counter RAM (two copies written together: one
//!   read by the sweep, one by the host, so neither waits for the other);
//! * its *accumulator*, a small register that counts the increments since the sweep last
//!   visited it: [`EV_ACC_BITS`] bits for event counters, [`BYTE_ACC_BITS`] for the two byte
//!   counters.
//!
//! A sweep visits one counter per cycle, in index order and without pause, so it visits each
//! one every [`NUM_COUNTERS`] cycles: it adds the accumulator to the RAM word (one shared 48-bit
//! adder), writes it back, and restarts the accumulator from that cycle's increment. Between
//! two visits an accumulator takes at most `NUM_COUNTERS` increments of 1 (or of 65,535 bytes),
//! which is what fixes its width (checked at compile time). A flag per counter says whether its
//! RAM word has been written since the last clear; a clear resets the flags and accumulators in
//! one cycle, so the RAM itself never needs clearing (nor initial contents).
//!
//! A host read of a counter register is exact: the host copy of the RAM is read at the pending
//! read's address (`raddr`, held by the AXI front end while `rd_pending`), and one cycle later
//! the value is the RAM word (or the word the sweep wrote at that edge, forwarded; or 0 if not
//! written since the clear) plus the live accumulator. `rd_ready` is low for that cycle: a
//! counter read takes one cycle more than other registers; `rd_ready` is high for every other
//! address.
use super::{addr_const, Addr, COUNTER_BITS, NUM_COUNTERS};
use ferroce_proto::host::regs;
use rust_hdl::prelude::*;

/// Width of the implemented HI half.
pub const HI_BITS: usize = COUNTER_BITS - 32;
/// Width of a counter index (RAM address, the shadow register's tag).
pub const IDX_BITS: usize = 7;
/// Width of an event counter's accumulator: holds `NUM_COUNTERS` increments of 1.
pub const EV_ACC_BITS: usize = 7;
/// Width of a byte counter's accumulator: holds `NUM_COUNTERS` increments of 65,535.
pub const BYTE_ACC_BITS: usize = 24;
// the sweep writes one counter and reads the next in the same cycle: two different words
const _: () = assert!(NUM_COUNTERS >= 2 && NUM_COUNTERS <= 1 << IDX_BITS);
const _: () = assert!(NUM_COUNTERS < 1 << EV_ACC_BITS);
const _: () = assert!(NUM_COUNTERS * 0xFFFF < 1 << BYTE_ACC_BITS);
// a counter's index is address bits 9:3 (`IDX_BITS` bits from bit 3: literals in `update`)
const _: () = assert!(IDX_BITS == 7 && regs::CNT_BASE % (8 << IDX_BITS) == 0);
const _: () = assert!(COUNTER_BITS == 48);

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
    /// The read happens (one-cycle strobe): `rdata` is the value, a LO read latches HI.
    pub rd: Signal<In, Bit>,
    /// A read is pending at `raddr` (held stable meanwhile).
    pub rd_pending: Signal<In, Bit>,
    pub raddr: Signal<In, Addr>,
    /// `rdata` is valid for `raddr` in this cycle (always, for an address that is no counter).
    pub rd_ready: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub clear: Signal<In, Bit>,
    pub inc: Signal<In, Bits<NUM_COUNTERS>>,
    pub rx_bytes: Signal<In, Bits<16>>,
    pub tx_bytes: Signal<In, Bits<16>>,
    // ---- the settled parts: two copies of one RAM ----
    ram_sweep: RAM<Bits<COUNTER_BITS>, IDX_BITS>,
    ram_host: RAM<Bits<COUNTER_BITS>, IDX_BITS>,
    /// RAM word `i` was written since the last clear (else the settled part is 0).
    written: [DFF<Bit>; NUM_COUNTERS],
    // ---- accumulators ----
    acc: [DFF<Bits<EV_ACC_BITS>>; NUM_COUNTERS],
    acc_rxb: DFF<Bits<BYTE_ACC_BITS>>,
    acc_txb: DFF<Bits<BYTE_ACC_BITS>>,
    // ---- the sweep: counter `k` this cycle, one-hot in `visit` ----
    k: DFF<Bits<IDX_BITS>>,
    visit: DFFWithInit<Bits<NUM_COUNTERS>>,
    // ---- host reads ----
    /// The sweep wrote the word the host copy read at the last edge (`fw_val`).
    fw_hit: DFF<Bit>,
    fw_val: DFF<Bits<COUNTER_BITS>>,
    /// Index presented to the host copy in the last cycle, and whether a read was pending.
    h_idx_q: DFF<Bits<IDX_BITS>>,
    h_pend_q: DFF<Bit>,
    shadow: DFF<Bits<HI_BITS>>,
    sh_idx: DFF<Bits<IDX_BITS>>,
    sh_valid: DFF<Bit>,
    // ---- constants ----
    c_idx: [Constant<Bits<IDX_BITS>>; NUM_COUNTERS],
    c_is_rxb: [Constant<Bit>; NUM_COUNTERS],
    c_is_txb: [Constant<Bit>; NUM_COUNTERS],
    c_last: Constant<Bits<IDX_BITS>>,
    c_base: Constant<Addr>,
    c_end: Constant<Addr>,
    c_visit0: Constant<Bits<NUM_COUNTERS>>,
    // ---- locals ----
    k_next: Signal<Local, Bits<IDX_BITS>>,
    sw_ev: Signal<Local, Bits<EV_ACC_BITS>>,
    sw_rxb: Signal<Local, Bit>,
    sw_txb: Signal<Local, Bit>,
    sw_written: Signal<Local, Bit>,
    sw_amt: Signal<Local, Bits<BYTE_ACC_BITS>>,
    sw_base: Signal<Local, Bits<COUNTER_BITS>>,
    sw_sum: Signal<Local, Bits<COUNTER_BITS>>,
    inc_rxb: Signal<Local, Bit>,
    inc_txb: Signal<Local, Bit>,
    h_hit: Signal<Local, Bit>,
    h_idx: Signal<Local, Bits<IDX_BITS>>,
    h_ev: Signal<Local, Bits<EV_ACC_BITS>>,
    h_rxb: Signal<Local, Bit>,
    h_txb: Signal<Local, Bit>,
    h_written: Signal<Local, Bit>,
    h_amt: Signal<Local, Bits<BYTE_ACC_BITS>>,
    h_base: Signal<Local, Bits<COUNTER_BITS>>,
    snap: Signal<Local, Bits<COUNTER_BITS>>,
    hsel: Signal<Local, Bits<HI_BITS>>,
}

impl Default for CsrCounters {
    fn default() -> Self {
        assert_eq!(regs::counters().count(), NUM_COUNTERS);
        let rxb = counter_index(regs::CNT_RX_BYTES_LO);
        let txb = counter_index(regs::CNT_TX_BYTES_LO);
        // "X_HI at off + 4" (regs module documentation); checked against the table
        for (_, off) in regs::counters() {
            assert!(super::reg_info(off + 4).name.ends_with("_HI"));
        }
        CsrCounters {
            clock: Default::default(),
            rd: Default::default(),
            rd_pending: Default::default(),
            raddr: Default::default(),
            rd_ready: Default::default(),
            rdata: Default::default(),
            clear: Default::default(),
            inc: Default::default(),
            rx_bytes: Default::default(),
            tx_bytes: Default::default(),
            ram_sweep: Default::default(),
            ram_host: Default::default(),
            written: core::array::from_fn(|_| Default::default()),
            acc: core::array::from_fn(|_| Default::default()),
            acc_rxb: Default::default(),
            acc_txb: Default::default(),
            k: Default::default(),
            visit: DFFWithInit::new(1u64.into()),
            fw_hit: Default::default(),
            fw_val: Default::default(),
            h_idx_q: Default::default(),
            h_pend_q: Default::default(),
            shadow: Default::default(),
            sh_idx: Default::default(),
            sh_valid: Default::default(),
            c_idx: core::array::from_fn(|i| Constant::new((i as u64).into())),
            c_is_rxb: core::array::from_fn(|i| Constant::new(i == rxb)),
            c_is_txb: core::array::from_fn(|i| Constant::new(i == txb)),
            c_last: Constant::new(((NUM_COUNTERS - 1) as u64).into()),
            c_base: addr_const(regs::CNT_BASE),
            c_end: addr_const(regs::CNT_BASE + 8 * NUM_COUNTERS as u32),
            c_visit0: Constant::new(1u64.into()),
            k_next: Default::default(),
            sw_ev: Default::default(),
            sw_rxb: Default::default(),
            sw_txb: Default::default(),
            sw_written: Default::default(),
            sw_amt: Default::default(),
            sw_base: Default::default(),
            sw_sum: Default::default(),
            inc_rxb: Default::default(),
            inc_txb: Default::default(),
            h_hit: Default::default(),
            h_idx: Default::default(),
            h_ev: Default::default(),
            h_rxb: Default::default(),
            h_txb: Default::default(),
            h_written: Default::default(),
            h_amt: Default::default(),
            h_base: Default::default(),
            snap: Default::default(),
            hsel: Default::default(),
        }
    }
}

impl Logic for CsrCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, acc_rxb, acc_txb, k, fw_hit, fw_val, h_idx_q, h_pend_q, shadow, sh_idx,
            sh_valid
        );
        self.visit.clock.next = self.clock.val();
        self.visit.d.next = self.visit.q.val();
        self.ram_sweep.read_clock.next = self.clock.val();
        self.ram_sweep.write_clock.next = self.clock.val();
        self.ram_host.read_clock.next = self.clock.val();
        self.ram_host.write_clock.next = self.clock.val();

        // ---------------- the sweep: counter k settles this cycle ----------------
        self.k_next.next = self.k.q.val() + 1;
        self.visit.d.next = self.visit.q.val() << 1;
        if self.k.q.val() == self.c_last.val() {
            self.k_next.next = 0.into();
            self.visit.d.next = self.c_visit0.val();
        }
        self.k.d.next = self.k_next.val();
        // the word read now is k's (addressed in the last cycle, when k was k_next)
        self.ram_sweep.read_address.next = self.k_next.val();
        self.inc_rxb.next = false;
        self.inc_txb.next = false;
        self.sw_ev.next = 0.into();
        self.sw_rxb.next = false;
        self.sw_txb.next = false;
        self.sw_written.next = false;
        for i in 0..NUM_COUNTERS {
            self.acc[i].clock.next = self.clock.val();
            self.written[i].clock.next = self.clock.val();
            self.acc[i].d.next = self.acc[i].q.val();
            self.written[i].d.next = self.written[i].q.val();
            // (bit_cast of a loop-indexed value does not translate: select here, widen after.
            // `visit` is one-hot, so the select is an OR of the visited entry: written as
            // OR-accumulation it maps to an OR tree; as `x = acc[i]` per entry it was a chain
            // of 90 priority multiplexers, 60 cells, the CSR block's critical path.)
            if self.visit.q.val().get_bit(i) {
                self.sw_ev.next = self.sw_ev.val() | self.acc[i].q.val();
                self.sw_written.next = self.sw_written.val() | self.written[i].q.val();
                self.sw_rxb.next = self.sw_rxb.val() | self.c_is_rxb[i].val();
                self.sw_txb.next = self.sw_txb.val() | self.c_is_txb[i].val();
                // the accumulator restarts from this cycle's increment
                self.acc[i].d.next = 0.into();
                self.written[i].d.next = true;
            }
            if self.inc.val().get_bit(i) {
                if self.c_is_rxb[i].val() {
                    self.inc_rxb.next = true;
                } else if self.c_is_txb[i].val() {
                    self.inc_txb.next = true;
                } else if self.visit.q.val().get_bit(i) {
                    self.acc[i].d.next = 1.into();
                } else {
                    self.acc[i].d.next = self.acc[i].q.val() + 1;
                }
            }
            if self.clear.val() {
                self.acc[i].d.next = 0.into();
                self.written[i].d.next = false;
            }
        }
        self.sw_amt.next = bit_cast::<BYTE_ACC_BITS, EV_ACC_BITS>(self.sw_ev.val());
        if self.sw_rxb.val() {
            self.sw_amt.next = self.acc_rxb.q.val();
        }
        if self.sw_txb.val() {
            self.sw_amt.next = self.acc_txb.q.val();
        }
        self.sw_base.next = 0.into();
        if self.sw_written.val() {
            self.sw_base.next = self.ram_sweep.read_data.val();
        }
        self.sw_sum.next =
            self.sw_base.val() + bit_cast::<COUNTER_BITS, BYTE_ACC_BITS>(self.sw_amt.val());
        self.ram_sweep.write_address.next = self.k.q.val();
        self.ram_sweep.write_data.next = self.sw_sum.val();
        self.ram_sweep.write_enable.next = true;
        self.ram_host.write_address.next = self.k.q.val();
        self.ram_host.write_data.next = self.sw_sum.val();
        self.ram_host.write_enable.next = true;
        // the byte accumulators
        if self.sw_rxb.val() {
            self.acc_rxb.d.next = 0.into();
        }
        if self.inc_rxb.val() {
            self.acc_rxb.d.next = bit_cast::<BYTE_ACC_BITS, 16>(self.rx_bytes.val());
            if !self.sw_rxb.val() {
                self.acc_rxb.d.next =
                    self.acc_rxb.q.val() + bit_cast::<BYTE_ACC_BITS, 16>(self.rx_bytes.val());
            }
        }
        if self.sw_txb.val() {
            self.acc_txb.d.next = 0.into();
        }
        if self.inc_txb.val() {
            self.acc_txb.d.next = bit_cast::<BYTE_ACC_BITS, 16>(self.tx_bytes.val());
            if !self.sw_txb.val() {
                self.acc_txb.d.next =
                    self.acc_txb.q.val() + bit_cast::<BYTE_ACC_BITS, 16>(self.tx_bytes.val());
            }
        }
        if self.clear.val() {
            self.acc_rxb.d.next = 0.into();
            self.acc_txb.d.next = 0.into();
            self.sh_valid.d.next = false;
        }

        // ---------------- host reads ----------------
        self.h_hit.next =
            (self.raddr.val() >= self.c_base.val()) & (self.raddr.val() < self.c_end.val());
        self.h_idx.next = self.raddr.val().get_bits::<IDX_BITS>(3);
        self.ram_host.read_address.next = self.h_idx.val();
        self.h_idx_q.d.next = self.h_idx.val();
        self.h_pend_q.d.next = self.rd_pending.val() & self.h_hit.val();
        // the word the host copy returns next cycle is the one the sweep writes now
        self.fw_hit.d.next = self.k.q.val() == self.h_idx.val();
        self.fw_val.d.next = self.sw_sum.val();
        self.rd_ready.next = !self.h_hit.val()
            | (self.h_pend_q.q.val() & (self.h_idx_q.q.val() == self.h_idx.val()));
        self.h_ev.next = 0.into();
        self.h_rxb.next = false;
        self.h_txb.next = false;
        self.h_written.next = false;
        for i in 0..NUM_COUNTERS {
            if self.h_idx.val() == self.c_idx[i].val() {
                self.h_ev.next = self.acc[i].q.val();
                self.h_written.next = self.written[i].q.val();
                self.h_rxb.next = self.c_is_rxb[i].val();
                self.h_txb.next = self.c_is_txb[i].val();
            }
        }
        self.h_amt.next = bit_cast::<BYTE_ACC_BITS, EV_ACC_BITS>(self.h_ev.val());
        if self.h_rxb.val() {
            self.h_amt.next = self.acc_rxb.q.val();
        }
        if self.h_txb.val() {
            self.h_amt.next = self.acc_txb.q.val();
        }
        self.h_base.next = 0.into();
        if self.h_written.val() {
            self.h_base.next = self.ram_host.read_data.val();
            if self.fw_hit.q.val() {
                self.h_base.next = self.fw_val.q.val();
            }
        }
        self.snap.next =
            self.h_base.val() + bit_cast::<COUNTER_BITS, BYTE_ACC_BITS>(self.h_amt.val());
        self.rdata.next = 0.into();
        self.hsel.next = self.snap.val().get_bits::<HI_BITS>(32);
        if self.sh_valid.q.val() & (self.sh_idx.q.val() == self.h_idx.val()) {
            self.hsel.next = self.shadow.q.val();
        }
        if self.rd.val() & self.h_hit.val() {
            if self.raddr.val().get_bit(2) {
                self.rdata.next = bit_cast::<32, HI_BITS>(self.hsel.val());
            } else {
                self.rdata.next = self.snap.val().get_bits::<32>(0);
                self.shadow.d.next = self.snap.val().get_bits::<HI_BITS>(32);
                self.sh_idx.d.next = self.h_idx.val();
                self.sh_valid.d.next = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ECP5 synthesis: the settled parts live in block RAM and the flip-flops are the
    /// accumulators and flags, not 48 per counter (4,344 flip-flops, 2,160 carry cells and
    /// 8,621 LUT4 when every counter was its own register and adder).
    #[test]
    fn csr_counters_synthesise() {
        use ferroce_testkit::{synth_ecp5_block, ECP5_CELLS};
        let m = "ferroce_csr_counters";
        let v = crate::verilog::block_verilog(&mut CsrCounters::default(), m);
        let dir = std::env::temp_dir().join(format!("ferroce_csr_counters_{}", std::process::id()));
        let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
            return;
        };
        let ram = st.count("DP16KD") + st.count("TRELLIS_DPR16X4");
        assert!(
            ram >= 2 && st.count("TRELLIS_FF") < 1_400 && st.count("CCU2C") < 600,
            "{}",
            st.line(ECP5_CELLS)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
