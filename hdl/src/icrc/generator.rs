//! `IcrcGenerator`: writes the RoCE ICRC into every RoCE frame passing through, at full rate.
//!
//! The upstream (header builder) emits the complete frame with a 4-byte placeholder where the
//! ICRC goes, i.e. at `[end-4, end)` where `end` follows from the UDP length (GRH payload length
//! for RoCEv1); bytes after it (Ethernet padding) are passed unchanged. The generator
//! XORs the ICRC, least significant byte first, into the placeholder: a builder that leaves
//! zeros there gets the ICRC; one that leaves ones gets its complement, a frame that every
//! receiver's ICRC check drops (how the transmit path poisons a frame whose payload could not
//! be read from host memory, see [`crate::tx::TxFrameCore`]). Frames that are not RoCE
//! (EtherType) pass unchanged.
//!
//! Why patch in place instead of append: frame lengths do not change, so the builder's IP
//! and UDP lengths (which include the ICRC anyway) are final, no extra beat and no bubble is
//! ever needed, and the minimum-frame padding stays the builder's business.
//!
//! Timing: every beat taken goes down a fixed pipeline that never stalls, beside the
//! pipelined [`IcrcFront`] (3 cycles): when the front describes a beat, the beat is at the end
//! of a matching 3-register delay line; one register stage then works out where the
//! placeholder lies in it (it is patched with the CRC register, final because the CRC span
//! stops right before the placeholder; a placeholder straddling two beats is patched in both),
//! a second one patches it, and it is written into an output FIFO. `inp.ready` is a credit
//! check (beats taken and not yet delivered < [`IcrcGenerator::CREDITS`], registered), so the
//! FIFO never overflows and full rate needs no combinational path from `out.ready`. Latency:
//! [`IcrcGenerator::LATENCY`] = 7 cycles from a beat taken to the same beat offered, one beat
//! per cycle.
//!
//! Ports: `clock`, `inp` (sink), `out` (source).
use super::IcrcFront;
use crate::stream::{StreamSink, StreamSource};
use crate::widget::ByteSwap32;
use rust_hdl::prelude::*;

/// Address bits of the output FIFO (16 entries).
const FIFO_BITS: usize = 4;

#[derive(LogicBlock)]
pub struct IcrcGenerator<const B: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<B, K>,
    pub out: StreamSource<B, K>,
    front: IcrcFront<B, K>,
    // delay line matching the front's latency (loaded every cycle)
    d1_data: DFF<Bits<B>>,
    d1_keep: DFF<Bits<K>>,
    d1_last: DFF<Bit>,
    d2_data: DFF<Bits<B>>,
    d2_keep: DFF<Bits<K>>,
    d2_last: DFF<Bit>,
    d3_data: DFF<Bits<B>>,
    d3_keep: DFF<Bits<K>>,
    d3_last: DFF<Bit>,
    // placeholder geometry of the beat in stage 4
    g_valid: DFF<Bit>,
    g_data: DFF<Bits<B>>,
    g_keep: DFF<Bits<K>>,
    g_last: DFF<Bit>,
    g_patch: DFF<Bit>,
    g_shl: DFF<Bits<16>>,
    g_shr: DFF<Bits<16>>,
    g_icrc: DFF<Bits<32>>,
    // patched beat, written into the FIFO
    p_valid: DFF<Bit>,
    p_data: DFF<Bits<B>>,
    p_keep: DFF<Bits<K>>,
    p_last: DFF<Bit>,
    // beats taken and not yet delivered
    credit: DFF<Bits<8>>,
    f_data: SynchronousFIFO<Bits<B>, FIFO_BITS, { FIFO_BITS + 1 }, 1>,
    f_keep: SynchronousFIFO<Bits<K>, FIFO_BITS, { FIFO_BITS + 1 }, 1>,
    f_last: SynchronousFIFO<Bit, FIFO_BITS, { FIFO_BITS + 1 }, 1>,
    c_k16: Constant<Bits<16>>,
    c_top: Constant<Bits<16>>,
    c_top_ones: Constant<Bits<B>>,
    c_credits: Constant<Bits<8>>,
    take: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    e4: Signal<Local, Bits<16>>,
    icrc: Signal<Local, Bits<32>>,
    icrc_top: Signal<Local, Bits<B>>,
    pbits: Signal<Local, Bits<B>>,
    /// little-endian host fields <-> wire-order beats (`crate::widget::byte_swap`)
    le_icrc: ByteSwap32,
}

impl<const B: usize, const K: usize> IcrcGenerator<B, K> {
    /// Beats in flight at most (taken, not yet delivered): the FIFO holds 16, and a beat
    /// written at the FIFO is counted from the moment it was taken.
    pub const CREDITS: usize = 12;
    /// Cycles from a beat taken at the input to the same beat offered at the output (outputs
    /// ready): the front's 3, the geometry and patch registers, the FIFO's 2.
    pub const LATENCY: usize = IcrcFront::<B, K>::LATENCY + 4;
}

impl<const B: usize, const K: usize> Default for IcrcGenerator<B, K> {
    fn default() -> Self {
        Self {
            le_icrc: Default::default(),
            clock: Default::default(),
            inp: Default::default(),
            out: Default::default(),
            front: IcrcFront::new(true),
            d1_data: Default::default(),
            d1_keep: Default::default(),
            d1_last: Default::default(),
            d2_data: Default::default(),
            d2_keep: Default::default(),
            d2_last: Default::default(),
            d3_data: Default::default(),
            d3_keep: Default::default(),
            d3_last: Default::default(),
            g_valid: Default::default(),
            g_data: Default::default(),
            g_keep: Default::default(),
            g_last: Default::default(),
            g_patch: Default::default(),
            g_shl: Default::default(),
            g_shr: Default::default(),
            g_icrc: Default::default(),
            p_valid: Default::default(),
            p_data: Default::default(),
            p_keep: Default::default(),
            p_last: Default::default(),
            credit: Default::default(),
            f_data: Default::default(),
            f_keep: Default::default(),
            f_last: Default::default(),
            c_k16: Constant::new((K as u64).into()),
            c_top: Constant::new(((B - 32) as u64).into()),
            c_top_ones: Constant::new(super::lanes::<B>(|j| if j < 4 { 0xFF } else { 0 })),
            c_credits: Constant::new((Self::CREDITS as u64).into()),
            take: Default::default(),
            give: Default::default(),
            e4: Default::default(),
            icrc: Default::default(),
            icrc_top: Default::default(),
            pbits: Default::default(),
        }
    }
}

impl<const B: usize, const K: usize> Logic for IcrcGenerator<B, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, d1_data, d1_keep, d1_last, d2_data, d2_keep, d2_last, d3_data, d3_keep,
            d3_last, g_valid, g_data, g_keep, g_last, g_patch, g_shl, g_shr, g_icrc, p_valid,
            p_data, p_keep, p_last, credit
        );
        clock!(self, clock, front, f_data, f_keep, f_last);
        // --- input side: credit check, full rate --------------------------------------------
        self.inp.ready.next = self.credit.q.val() < self.c_credits.val();
        self.take.next = self.inp.valid.val() & self.inp.ready.val();
        self.front.fire.next = self.take.val();
        self.front.data.next = self.inp.data.val();
        self.front.keep.next = self.inp.keep.val();
        self.front.last.next = self.inp.last.val();
        // --- delay line beside the front ------------------------------------------------------
        self.d1_data.d.next = self.inp.data.val();
        self.d1_keep.d.next = self.inp.keep.val();
        self.d1_last.d.next = self.inp.last.val();
        self.d2_data.d.next = self.d1_data.q.val();
        self.d2_keep.d.next = self.d1_keep.q.val();
        self.d2_last.d.next = self.d1_last.q.val();
        self.d3_data.d.next = self.d2_data.q.val();
        self.d3_keep.d.next = self.d2_keep.q.val();
        self.d3_last.d.next = self.d2_last.q.val();
        // --- stage 4: where is the placeholder relative to the beat the front describes? -----
        self.g_valid.d.next = self.front.o_fire.val();
        self.g_data.d.next = self.d3_data.q.val();
        self.g_keep.d.next = self.d3_keep.q.val();
        self.g_last.d.next = self.d3_last.q.val();
        self.e4.next = self.front.o_end.val() - 4;
        self.g_shl.d.next = 0.into();
        self.g_shr.d.next = 0.into();
        self.g_patch.d.next = false;
        if (self.front.o_kind.val() != 0) & self.front.o_end_valid.val() {
            if (self.e4.val() >= self.front.o_base.val())
                & (self.e4.val() < (self.front.o_base.val() + self.c_k16.val()))
            {
                self.g_patch.d.next = true;
                self.g_shr.d.next = (self.e4.val() - self.front.o_base.val()) << 3;
            } else if (self.e4.val() < self.front.o_base.val())
                & (self.front.o_end.val() > self.front.o_base.val())
            {
                self.g_patch.d.next = true;
                self.g_shl.d.next = (self.front.o_base.val() - self.e4.val()) << 3;
            }
        }
        // ICRC = ~crc, wire order LSB first: as a big-endian word that is byte-swapped
        self.icrc.next = !self.front.o_crc.val();
        self.le_icrc.inp.next = self.icrc.val();
        self.g_icrc.d.next = self.le_icrc.out.val();
        // --- stage 5: patch --------------------------------------------------------------------
        self.icrc_top.next = self.c_top_ones.val();
        self.pbits.next = self.c_top_ones.val();
        self.p_valid.d.next = self.g_valid.q.val();
        self.p_data.d.next = self.g_data.q.val();
        self.p_keep.d.next = self.g_keep.q.val();
        self.p_last.d.next = self.g_last.q.val();
        if self.g_patch.q.val() {
            self.icrc_top.next = bit_cast::<B, 32>(self.g_icrc.q.val()) << self.c_top.val();
            // (the shifts fill with zeros: only the placeholder's bits are XORed)
            self.pbits.next = (self.icrc_top.val() << self.g_shl.q.val()) >> self.g_shr.q.val();
            self.p_data.d.next = self.g_data.q.val() ^ self.pbits.val();
        }
        // --- output FIFO -------------------------------------------------------------------------
        self.f_data.write.next = self.p_valid.q.val();
        self.f_keep.write.next = self.p_valid.q.val();
        self.f_last.write.next = self.p_valid.q.val();
        self.f_data.data_in.next = self.p_data.q.val();
        self.f_keep.data_in.next = self.p_keep.q.val();
        self.f_last.data_in.next = self.p_last.q.val();
        self.out.valid.next = !self.f_data.empty.val();
        self.out.data.next = self.f_data.data_out.val();
        self.out.keep.next = self.f_keep.data_out.val();
        self.out.last.next = self.f_last.data_out.val();
        self.give.next = !self.f_data.empty.val() & self.out.ready.val();
        self.f_data.read.next = self.give.val();
        self.f_keep.read.next = self.give.val();
        self.f_last.read.next = self.give.val();
        if self.take.val() & !self.give.val() {
            self.credit.d.next = self.credit.q.val() + 1;
        } else if !self.take.val() & self.give.val() {
            self.credit.d.next = self.credit.q.val() - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthesis check (rust-hdl style): no latches, no undriven wires, no implicit nets.
    /// Behaviour: `tests/icrc.rs`; Verilog equivalence: `tests/cosim_icrc.rs`; full synthesis
    /// and lint: `tests/verilog_tools.rs`.
    #[test]
    fn icrc_generator_synthesises() {
        let mut uut = IcrcGenerator::<64, 8>::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("icrc_generator", &generate_verilog(&uut));
    }
}
