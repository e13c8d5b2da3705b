//! `Crc32Step`: combinational CRC-32 (IEEE 802.3, reflected, no pre/post inversion) over the
//! first `count` bytes of one beat.
//!
//! Why a hand-written leaf: this is the hot kernel. rust-hdl kernels cannot accumulate an XOR
//! (a `Local` cannot be read back after writing it in the same pass, `.next` cannot be read,
//! there is no `set_bit` and no concatenation), so a 64->32 XOR matrix written with `#[hdl_gen]`
//! either needs 64 convergence passes or shifts through a heap big-integer. Like rust-hdl's own
//! `DFF`, this block therefore has a plain-Rust `update` (table-driven, byte at a time) and a
//! generated `Verilog::Custom` body. The Verilog is the measured formulation of docs/HDL-RULES.md
//! ("Timing and synthesis"):
//!
//! 1. `x = data` with the register XORed into the first four bytes (lane 0 gets bits 7:0);
//! 2. realign: `y = x >> 8*(K - count)` so the `count` valid bytes sit at the *end* of the beat
//!    (leading zero bytes leave a zero register unchanged, so a fixed K-byte matrix applies);
//! 3. `crc = M * y`: one fixed `B -> 32` XOR matrix (CRC of the K-byte word from register 0);
//! 4. correction for `count < 4`: the register bytes that did not meet a data byte are shifted
//!    out of `x`, so `crc ^= state >> 8*count`; `count == 0` gives `crc = state`.
//!
//! For beats up to [`PARALLEL_MAX_K`] bytes (the 64-bit profile) the Verilog instead computes
//! the result for every count in parallel (one XOR tree per bit over fixed masks of `data` and
//! `state`) and selects it by `count`: same function, the count off the trees' inputs (timing,
//! docs/RESOURCES.md "Timing closure of the front ends").
//!
//! The two descriptions (Rust `update` and Verilog) are independent implementations of the
//! same function: the unit test below checks the Rust one against `crc32fast`, and the
//! co-simulation test (`tests/cosim_icrc.rs`) checks the Verilog one against the Rust one.
//!
//! Ports: `state` (register in), `data` (beat, first wire byte in the MSB), `count` (number of
//! leading bytes to absorb, 0..=K; larger values mean K), `crc` (register out).
use rust_hdl::prelude::*;

/// Reflected CRC-32 polynomial.
pub const POLY: u32 = 0xEDB8_8320;

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

/// Byte-at-a-time table for the reflected CRC-32.
pub static TABLE: [u32; 256] = make_table();

/// Software model: absorb `bytes` into register `r` (no inversion).
#[inline]
pub fn crc32_update(mut r: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        r = (r >> 8) ^ TABLE[((r ^ b as u32) & 0xff) as usize];
    }
    r
}

/// Wire bytes of a beat (first wire byte = most significant byte of `x`).
#[inline]
pub fn beat_bytes<const B: usize>(x: Bits<B>, out: &mut [u8]) {
    if B <= 64 {
        let v = x.to_u64();
        for (i, o) in out.iter_mut().enumerate().take(B / 8) {
            *o = (v >> (B - 8 - 8 * i)) as u8;
        }
    } else {
        for (c, chunk) in out[..B / 8].chunks_mut(8).enumerate() {
            let v = x.get_bits::<64>(B - 64 * (c + 1)).to_u64();
            for (i, o) in chunk.iter_mut().enumerate() {
                *o = (v >> (56 - 8 * i)) as u8;
            }
        }
    }
}

#[derive(LogicBlock)]
pub struct Crc32Step<const B: usize, const K: usize> {
    pub state: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<B>>,
    pub count: Signal<In, Bits<8>>,
    pub crc: Signal<Out, Bits<32>>,
}

impl<const B: usize, const K: usize> Default for Crc32Step<B, K> {
    fn default() -> Self {
        assert!(
            B == 8 * K && (4..=128).contains(&K),
            "Crc32Step: need B == 8*K, 4 <= K <= 128"
        );
        Self {
            state: Default::default(),
            data: Default::default(),
            count: Default::default(),
            crc: Default::default(),
        }
    }
}

/// The `B -> 32` matrix: row `j` has bit `i` set if data bit `i` (of the realigned word,
/// bit numbering of `Bits<B>`) feeds CRC bit `j`, starting from register 0.
pub fn matrix_rows(b: usize) -> Vec<Vec<bool>> {
    let k = b / 8;
    let mut rows = vec![vec![false; b]; 32];
    let mut bytes = vec![0u8; k];
    for i in 0..b {
        bytes.iter_mut().for_each(|x| *x = 0);
        // bit i of Bits<B> lives in lane (b-1-i)/8, bit i%8 of that byte
        bytes[(b - 1 - i) / 8] = 1 << (i % 8);
        let c = crc32_update(0, &bytes);
        for (j, row) in rows.iter_mut().enumerate() {
            row[i] = (c >> j) & 1 != 0;
        }
    }
    rows
}

fn hex_of(bitsv: &[bool]) -> String {
    // bitsv[i] = bit i; print MSB first
    let n = bitsv.len();
    let digits = n.div_ceil(4);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let mut v = 0;
        for t in 0..4 {
            let i = d * 4 + t;
            if i < n && bitsv[i] {
                v |= 1 << t;
            }
        }
        s.push(std::char::from_digit(v, 16).unwrap());
    }
    s
}

/// Widest beat (bytes) for which the Verilog computes the CRC for every count in parallel.
pub const PARALLEL_MAX_K: usize = 8;

/// Masks of the CRC after `n` bytes as a linear function of the beat and the register: bit `j`
/// of the result is the parity of `data & d[j]` XOR the parity of `state & s[j]` (`d[j]` in
/// `Bits<B>` numbering, as a bit vector).
pub fn count_masks(b: usize, n: usize) -> (Vec<Vec<bool>>, [u32; 32]) {
    let k = b / 8;
    let mut d = vec![vec![false; b]; 32];
    let mut sm = [0u32; 32];
    let mut bytes = vec![0u8; k];
    for i in 0..b {
        bytes.iter_mut().for_each(|x| *x = 0);
        bytes[(b - 1 - i) / 8] = 1 << (i % 8);
        let c = crc32_update(0, &bytes[..n]);
        for (j, row) in d.iter_mut().enumerate() {
            row[i] = (c >> j) & 1 != 0;
        }
    }
    let zeros = vec![0u8; k];
    for i in 0..32 {
        let c = crc32_update(1 << i, &zeros[..n]);
        for (j, m) in sm.iter_mut().enumerate() {
            if (c >> j) & 1 != 0 {
                *m |= 1 << i;
            }
        }
    }
    (d, sm)
}

/// The timing formulation for narrow beats (issue 17): the CRC is linear in (register, beat),
/// so each count's result is one XOR tree per bit over fixed masks of `data` and `state`, all
/// counts in parallel, and the registered count only drives the final select. The realigning
/// shifter in front of the one matrix (below) put the count at the start of a ~10-cell path;
/// this costs more LUTs (one tree set per count), hence only up to [`PARALLEL_MAX_K`].
fn parallel_verilog(b: usize, k: usize) -> String {
    let mut v = String::new();
    v.push_str(&format!(
        "// CRC-32 step over the first `count` of {k} bytes, every count in parallel (see ferroce-hdl icrc/crc32_step.rs)\n"
    ));
    for n in 1..=k {
        v.push_str(&format!("reg [31:0] c{n};\n"));
    }
    v.push_str("always @(*) begin\n");
    for n in 1..=k {
        let (d, sm) = count_masks(b, n);
        for (j, (dj, sj)) in d.iter().zip(sm.iter()).enumerate() {
            v.push_str(&format!(
                "    c{n}[{j}] = ^(data & {b}'h{}) ^ ^(state & 32'h{sj:08x});\n",
                hex_of(dj)
            ));
        }
    }
    v.push_str("    case (count)\n");
    v.push_str("        8'd0: crc = state;\n");
    for n in 1..k {
        v.push_str(&format!("        8'd{n}: crc = c{n};\n"));
    }
    v.push_str(&format!("        default: crc = c{k};\n"));
    v.push_str("    endcase\n");
    v.push_str("end\n");
    v
}

impl<const B: usize, const K: usize> Logic for Crc32Step<B, K> {
    fn update(&mut self) {
        let state = self.state.val().to_u32();
        let n = (self.count.val().to_u64() as usize).min(K);
        let mut buf = [0u8; 128];
        beat_bytes::<B>(self.data.val(), &mut buf);
        self.crc.next = (crc32_update(state, &buf[..n]) as u64).into();
    }

    fn connect(&mut self) {
        self.crc.connect();
    }

    fn hdl(&self) -> Verilog {
        if K <= PARALLEL_MAX_K {
            return Verilog::Custom(parallel_verilog(B, K));
        }
        let rows = matrix_rows(B);
        let mut v = String::new();
        v.push_str(&format!("// CRC-32 step over the first `count` of {K} bytes (see ferroce-hdl icrc/crc32_step.rs)\n"));
        v.push_str(&format!(
            "reg [{}:0] x;\nreg [{}:0] y;\nreg [31:0] m;\nreg [31:0] corr;\n",
            B - 1,
            B - 1
        ));
        v.push_str("always @(*) begin\n");
        v.push_str("    x = data;\n");
        for i in 0..4 {
            let hi = B - 1 - 8 * i;
            v.push_str(&format!(
                "    x[{}:{}] = data[{}:{}] ^ state[{}:{}];\n",
                hi,
                hi - 7,
                hi,
                hi - 7,
                8 * i + 7,
                8 * i
            ));
        }
        v.push_str("    case (count)\n");
        v.push_str(&format!("        8'd0: y = {B}'d0;\n"));
        for n in 1..K {
            v.push_str(&format!(
                "        8'd{n}: y = {{{}'d0, x[{}:{}]}};\n",
                8 * (K - n),
                B - 1,
                8 * (K - n)
            ));
        }
        v.push_str("        default: y = x;\n");
        v.push_str("    endcase\n");
        for (j, row) in rows.iter().enumerate() {
            v.push_str(&format!("    m[{j}] = ^(y & {B}'h{});\n", hex_of(row)));
        }
        v.push_str("    case (count)\n");
        v.push_str("        8'd1: corr = {8'd0, state[31:8]};\n");
        v.push_str("        8'd2: corr = {16'd0, state[31:16]};\n");
        v.push_str("        8'd3: corr = {24'd0, state[31:24]};\n");
        v.push_str("        default: corr = 32'd0;\n");
        v.push_str("    endcase\n");
        v.push_str("    crc = (count == 8'd0) ? state : (m ^ corr);\n");
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::pack_data;
    use crate::testbench::{settle_block, Rng};

    #[test]
    fn table_model_matches_crc32fast() {
        let mut rng = Rng::new(7);
        for _ in 0..200 {
            let n = rng.range(0, 100);
            let d = rng.bytes(n);
            let r = !crc32_update(0xffff_ffff, &d);
            assert_eq!(r, crc32fast::hash(&d));
        }
    }

    #[test]
    fn matrix_equals_model() {
        // the rows, applied in software to the realigned word, give the model's answer
        let rows = matrix_rows(64);
        let mut rng = Rng::new(9);
        for _ in 0..500 {
            let st = rng.next_u64() as u32;
            let n = rng.range(0, 8);
            let d = rng.bytes(8);
            let mut x = u64::from_be_bytes(d.clone().try_into().unwrap());
            x ^= (st.swap_bytes() as u64) << 32;
            let y = if n == 0 {
                0
            } else if n == 8 {
                x
            } else {
                x >> (8 * (8 - n))
            };
            let mut c = 0u32;
            for (j, row) in rows.iter().enumerate() {
                let p = (0..64).filter(|&i| row[i] && (y >> i) & 1 == 1).count() & 1;
                c |= (p as u32) << j;
            }
            c ^= match n {
                0 => st ^ c,
                1 => st >> 8,
                2 => st >> 16,
                3 => st >> 24,
                _ => 0,
            };
            assert_eq!(c, crc32_update(st, &d[..n]), "n={n}");
        }
    }

    #[test]
    fn block_update_matches_model() {
        let mut uut = Crc32Step::<64, 8>::default();
        uut.connect_all();
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let st = rng.next_u64() as u32;
            let n = rng.range(0, 9);
            let d = rng.bytes(8);
            uut.state.next = (st as u64).into();
            uut.data.next = pack_data::<64>(&d);
            uut.count.next = (n as u64).into();
            settle_block(&mut uut);
            assert_eq!(uut.crc.val().to_u32(), crc32_update(st, &d[..n.min(8)]));
        }
    }

    /// Synthesis check: the generated custom Verilog parses and elaborates without latches.
    #[test]
    fn crc32_step_synthesises() {
        let mut uut = Crc32Step::<64, 8>::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("crc32_step", &generate_verilog(&uut));
    }
}
