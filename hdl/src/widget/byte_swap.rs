//! [`ByteSwap64`] and [`ByteSwap32`]: a word with its bytes in the reverse order. Purely
//! combinational: `out` is `inp` with byte 0 (bits 7:0) in the top byte and so on.
//!
//! Why: the NIC's beats carry the lowest address in their most significant byte (the wire's
//! order, so a header field reads straight off the beat), while host structures (WQEs, SGEs,
//! CQEs, the atomic operands and results) are little-endian (docs/HOST-INTERFACE.md). Every
//! such field crosses that boundary through one of these, instead of eight shifted bytes
//! written out at each use. A byte swap is wiring only: it costs no logic after synthesis.
//!
//! Ports: `inp`, `out`. A field narrower than the word (a 32-bit length inside a 64-bit beat)
//! takes the 32-bit widget on its slice (`beat.get_bits::<32>(32)`).
use rust_hdl::prelude::*;

/// A 64-bit byte swap: `out` = `inp` with bytes 0..8 reversed (`u64::swap_bytes`).
#[derive(LogicBlock, Default)]
pub struct ByteSwap64 {
    pub inp: Signal<In, Bits<64>>,
    pub out: Signal<Out, Bits<64>>,
}

impl Logic for ByteSwap64 {
    #[hdl_gen]
    fn update(&mut self) {
        self.out.next = (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(0)) << 56)
            | (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(16)) << 40)
            | (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(24)) << 32)
            | (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(32)) << 24)
            | (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(40)) << 16)
            | (bit_cast::<64, 8>(self.inp.val().get_bits::<8>(48)) << 8)
            | bit_cast::<64, 8>(self.inp.val().get_bits::<8>(56));
    }
}

/// A 32-bit byte swap: `out` = `inp` with bytes 0..4 reversed (`u32::swap_bytes`).
#[derive(LogicBlock, Default)]
pub struct ByteSwap32 {
    pub inp: Signal<In, Bits<32>>,
    pub out: Signal<Out, Bits<32>>,
}

impl Logic for ByteSwap32 {
    #[hdl_gen]
    fn update(&mut self) {
        self.out.next = (bit_cast::<32, 8>(self.inp.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<32, 8>(self.inp.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.inp.val().get_bits::<8>(16)) << 8)
            | bit_cast::<32, 8>(self.inp.val().get_bits::<8>(24));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::{settle_block, Rng};

    /// Against Rust's own `swap_bytes` (the model), for random words and single bytes.
    #[test]
    fn byte_swaps_match_swap_bytes() {
        let mut rng = Rng::new(7);
        let mut w64 = ByteSwap64::default();
        let mut w32 = ByteSwap32::default();
        w64.connect_all();
        w32.connect_all();
        let mut words: Vec<u64> = (0..8).map(|k| 0xA5u64 << (8 * k)).collect();
        words.extend((0..200).map(|_| rng.next_u64()));
        for x in words {
            w64.inp.next = x.into();
            settle_block(&mut w64);
            assert_eq!(w64.out.val().to_u64(), x.swap_bytes(), "{x:#x}");
            let y = x as u32;
            w32.inp.next = (y as u64).into();
            settle_block(&mut w32);
            assert_eq!(w32.out.val().to_u64() as u32, y.swap_bytes(), "{y:#x}");
        }
    }

    /// Synthesis check (the emitted Verilog through Yosys, as the other widgets).
    #[test]
    fn byte_swaps_synthesise() {
        crate::csr::synth_check(&mut ByteSwap64::default(), "byte_swap64");
        crate::csr::synth_check(&mut ByteSwap32::default(), "byte_swap32");
    }
}
