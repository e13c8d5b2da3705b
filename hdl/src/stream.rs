//! The ferroce packet stream interface (AXI4-Stream subset: valid, ready, data, keep, last).
//!
//! # Parameters
//!
//! `StreamSource<B, K>` / `StreamSink<B, K>`: `B` is the data width in **bits**, `K = B / 8` the
//! number of byte enables (stable Rust cannot compute `B / 8` in a type, so both are given;
//! [`StreamSource::WIDTH_OK`] asserts `B == 8 * K` at compile time wherever the helpers are used).
//! Profiles: [`Source64`]/[`Sink64`] (64-bit "lite", built and tested now) and
//! [`Source512`]/[`Sink512`] (512-bit "full", later). Blocks stay generic over `<B, K>`.
//!
//! # Conventions (fixed for the whole design)
//!
//! * **Byte order: the first wire byte is the most significant byte of `data`**
//!   (`data[B-1 : B-8]`), the second byte is `data[B-9 : B-16]`, and so on ("big-endian beat").
//!   A 64-bit beat carrying wire bytes `01 02 .. 08` has `data == 0x0102030405060708`.
//! * **`keep` bit `K-1 - i` enables byte `i`** (so keep's MSB goes with data's MSB byte). Valid
//!   bytes are always **contiguous from the top**: `keep` is all ones on every beat except the last
//!   beat of a frame, where it is `n` ones followed by zeros (`1 <= n <= K`); it is never 0.
//!   Bytes whose keep bit is 0 are don't-care for a sink; sources in this design drive them 0.
//! * A transfer happens on a rising clock edge where `valid & ready`. `last` marks the final beat
//!   of a frame. A source must hold `data/keep/last` while `valid & !ready` (AXI rule); `valid`
//!   must not depend combinationally on `ready`, `ready` may depend on `valid`.
//!
//! `StreamSource` is the port of the block that *produces* the stream (valid/data/keep/last are
//! outputs, ready an input); `StreamSink` is the mating port of the consumer. Inside a parent's
//! `#[hdl_gen] update`, connect a producer to a consumer with
//! `StreamSource::join(&mut self.a.out, &mut self.b.inp)`, and pass a parent's own port through to
//! a child's port of the same direction with `StreamSink::link(&mut self.inp, &mut self.child.inp)`.
//!
//! Plain-Rust helpers for testbenches (cutting a frame into beats, packing bytes into `Bits`,
//! reassembling) live here too, so every test uses the same byte-order convention.
use rust_hdl::prelude::*;

/// Producer side of a packet stream (see the module doc for byte order and keep rules).
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "StreamSink"]
pub struct StreamSource<const B: usize, const K: usize> {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    pub data: Signal<Out, Bits<B>>,
    pub keep: Signal<Out, Bits<K>>,
    pub last: Signal<Out, Bit>,
}

/// Consumer side of a packet stream (see the module doc for byte order and keep rules).
#[derive(LogicInterface, Clone, Debug, Default)]
#[join = "StreamSource"]
pub struct StreamSink<const B: usize, const K: usize> {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub data: Signal<In, Bits<B>>,
    pub keep: Signal<In, Bits<K>>,
    pub last: Signal<In, Bit>,
}

/// 64-bit profile (10/25G, open toolchains).
pub type Source64 = StreamSource<64, 8>;
/// 64-bit profile (10/25G, open toolchains).
pub type Sink64 = StreamSink<64, 8>;
/// 512-bit profile (100G), later.
pub type Source512 = StreamSource<512, 64>;
/// 512-bit profile (100G), later.
pub type Sink512 = StreamSink<512, 64>;

impl<const B: usize, const K: usize> StreamSource<B, K> {
    /// Compile-time check that `B == 8 * K` (evaluated where referenced).
    pub const WIDTH_OK: () = assert!(B == 8 * K && K > 0, "stream: B must be 8 * K bits");
}
impl<const B: usize, const K: usize> StreamSink<B, K> {
    /// Compile-time check that `B == 8 * K` (evaluated where referenced).
    pub const WIDTH_OK: () = assert!(B == 8 * K && K > 0, "stream: B must be 8 * K bits");
}

// ---------------------------------------------------------------------------------------------
// Plain-Rust helpers (testbenches, simulator glue). Not synthesised.
// ---------------------------------------------------------------------------------------------

/// One beat in software form: `bytes` holds the valid bytes in wire order (1..=K of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    pub bytes: Vec<u8>,
    pub last: bool,
}

/// Cut a frame into beats of `k` bytes (the last beat may be shorter). An empty frame gives no
/// beats (streams never carry empty frames).
pub fn frame_to_beats(frame: &[u8], k: usize) -> Vec<Beat> {
    assert!(k > 0);
    let n = frame.len().div_ceil(k);
    frame
        .chunks(k)
        .enumerate()
        .map(|(i, c)| Beat {
            bytes: c.to_vec(),
            last: i + 1 == n,
        })
        .collect()
}

/// Reassemble beats into frames (each frame ends at a beat with `last`). A trailing frame
/// without `last` is returned too (as the final element), so nothing is silently dropped.
pub fn beats_to_frames(beats: &[Beat]) -> Vec<Vec<u8>> {
    let mut out = vec![];
    let mut cur = vec![];
    let mut open = false;
    for b in beats {
        cur.extend_from_slice(&b.bytes);
        open = true;
        if b.last {
            out.push(std::mem::take(&mut cur));
            open = false;
        }
    }
    if open {
        out.push(cur);
    }
    out
}

/// Pack up to `B/8` wire bytes into a data word, first byte in the most significant byte;
/// missing bytes are 0.
pub fn pack_data<const B: usize>(bytes: &[u8]) -> Bits<B> {
    assert!(
        B.is_multiple_of(8) && bytes.len() * 8 <= B,
        "pack_data: {} bytes into {} bits",
        bytes.len(),
        B
    );
    let mut x = Bits::<B>::default();
    for (i, b) in bytes.iter().enumerate() {
        x.set_bits::<8>(B - 8 * (i + 1), bits::<8>(*b as u64));
    }
    x
}

/// Unpack the first `n` wire bytes of a data word (inverse of [`pack_data`]).
pub fn unpack_data<const B: usize>(x: Bits<B>, n: usize) -> Vec<u8> {
    assert!(n * 8 <= B);
    (0..n)
        .map(|i| x.get_bits::<8>(B - 8 * (i + 1)).to_u8())
        .collect()
}

/// Keep mask for `n` valid bytes: the top `n` of `K` bits set.
pub fn keep_mask<const K: usize>(n: usize) -> Bits<K> {
    assert!(n <= K);
    let mut x = Bits::<K>::default();
    for i in 0..n {
        x = x.replace_bit(K - 1 - i, true);
    }
    x
}

/// Number of valid bytes in a keep mask; `None` if the mask is not contiguous from the top
/// (a protocol violation) or is zero.
pub fn keep_count<const K: usize>(keep: Bits<K>) -> Option<usize> {
    let mut n = 0;
    while n < K && keep.get_bit(K - 1 - n) {
        n += 1;
    }
    if n == 0 || (n..K).any(|i| keep.get_bit(K - 1 - i)) {
        None
    } else {
        Some(n)
    }
}

impl<const B: usize, const K: usize> StreamSink<B, K> {
    /// Testbench: drive this (block input) port with `beat`, or deassert `valid` with `None`.
    /// Invalid bytes are driven 0.
    pub fn drive(&mut self, beat: Option<&Beat>) {
        #[allow(clippy::let_unit_value)]
        let () = Self::WIDTH_OK;
        match beat {
            Some(b) => {
                assert!(!b.bytes.is_empty() && b.bytes.len() <= K);
                self.valid.next = true;
                self.data.next = pack_data::<B>(&b.bytes);
                self.keep.next = keep_mask::<K>(b.bytes.len());
                self.last.next = b.last;
            }
            None => {
                self.valid.next = false;
                self.data.next = Bits::default();
                self.keep.next = Bits::default();
                self.last.next = false;
            }
        }
    }
    /// Testbench: true if a transfer happens at the next edge (`valid & ready`, after settling).
    pub fn fires(&self) -> bool {
        self.valid.val() && self.ready.val()
    }
}

impl<const B: usize, const K: usize> StreamSource<B, K> {
    /// Testbench: the beat presented on this (block output) port, if `valid`. Panics on a keep
    /// mask that breaks the contiguity rule.
    pub fn peek(&self) -> Option<Beat> {
        #[allow(clippy::let_unit_value)]
        let () = Self::WIDTH_OK;
        if !self.valid.val() {
            return None;
        }
        let n = keep_count::<K>(self.keep.val())
            .unwrap_or_else(|| panic!("stream: bad keep mask {:x}", self.keep.val()));
        Some(Beat {
            bytes: unpack_data::<B>(self.data.val(), n),
            last: self.last.val(),
        })
    }
    /// Testbench: true if a transfer happens at the next edge (`valid & ready`, after settling).
    pub fn fires(&self) -> bool {
        self.valid.val() && self.ready.val()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_order_is_first_byte_msb() {
        let x = pack_data::<64>(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(x.to_u64(), 0x0102030405060708);
        let y = pack_data::<64>(&[0xaa, 0xbb]);
        assert_eq!(y.to_u64(), 0xaabb000000000000);
        assert_eq!(unpack_data::<64>(y, 2), vec![0xaa, 0xbb]);
        assert_eq!(keep_mask::<8>(3).to_u64(), 0xe0);
        assert_eq!(keep_count::<8>(bits::<8>(0xe0)), Some(3));
        assert_eq!(keep_count::<8>(bits::<8>(0xa0)), None);
        assert_eq!(keep_count::<8>(bits::<8>(0)), None);
        let p = pack_data::<512>(&[0x5a; 3]);
        assert_eq!(unpack_data::<512>(p, 4), vec![0x5a, 0x5a, 0x5a, 0]);
    }

    #[test]
    fn beats_round_trip() {
        for len in 1usize..40 {
            let f: Vec<u8> = (0..len as u8).collect();
            let b = frame_to_beats(&f, 8);
            assert_eq!(b.len(), len.div_ceil(8));
            assert!(b.last().unwrap().last);
            assert_eq!(beats_to_frames(&b), vec![f]);
        }
    }
}
