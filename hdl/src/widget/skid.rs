//! `StreamSkid`: a full-rate register slice (skid buffer) for [`StreamSource`]/[`StreamSink`].
//!
//! Why: it cuts every combinational path through a stream (data, valid *and* ready are all
//! registered), at one cycle of latency and no throughput loss, so blocks can be pipelined for
//! Fmax without reasoning about `ready` timing. Two beat registers: `main` drives the output,
//! `skid` catches the one beat that arrives in the cycle the output stalls (`inp.ready` is
//! registered, so the upstream only learns about the stall one cycle later).
//!
//! Ports: `clock`, `inp` (sink), `out` (source).
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct StreamSkid<const B: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub inp: StreamSink<B, K>,
    pub out: StreamSource<B, K>,
    m_valid: DFF<Bit>,
    m_data: DFF<Bits<B>>,
    m_keep: DFF<Bits<K>>,
    m_last: DFF<Bit>,
    s_valid: DFF<Bit>,
    s_data: DFF<Bits<B>>,
    s_keep: DFF<Bits<K>>,
    s_last: DFF<Bit>,
}

impl<const B: usize, const K: usize> Logic for StreamSkid<B, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, m_valid, m_data, m_keep, m_last, s_valid, s_data, s_keep, s_last);
        // defaults: outputs straight from the registers
        self.out.valid.next = self.m_valid.q.val();
        self.out.data.next = self.m_data.q.val();
        self.out.keep.next = self.m_keep.q.val();
        self.out.last.next = self.m_last.q.val();
        self.inp.ready.next = !self.s_valid.q.val();
        if self.out.ready.val() | !self.m_valid.q.val() {
            // the output register is free at this edge
            if self.s_valid.q.val() {
                self.m_valid.d.next = true;
                self.m_data.d.next = self.s_data.q.val();
                self.m_keep.d.next = self.s_keep.q.val();
                self.m_last.d.next = self.s_last.q.val();
                self.s_valid.d.next = false;
            } else {
                self.m_valid.d.next = self.inp.valid.val();
                self.m_data.d.next = self.inp.data.val();
                self.m_keep.d.next = self.inp.keep.val();
                self.m_last.d.next = self.inp.last.val();
            }
        } else if self.inp.valid.val() & !self.s_valid.q.val() {
            // output stalled and a beat arrives: park it in the skid register
            self.s_valid.d.next = true;
            self.s_data.d.next = self.inp.data.val();
            self.s_keep.d.next = self.inp.keep.val();
            self.s_last.d.next = self.inp.last.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbench::*;

    fn run(gap: u32, stall: u32, seed: u64) {
        let mut rng = Rng::new(seed);
        let mut b = Bench::new(StreamSkid::<64, 8>::default(), |u| &mut u.clock);
        let mut feeder = Feeder::new(gap);
        let mut col = Collector::new(stall);
        let mut frames = vec![];
        for _ in 0..30 {
            let n = rng.range(1, 40);
            let f = rng.bytes(n);
            feeder.push_frame(&f, 8);
            frames.push(f);
        }
        let mut full_rate = 0;
        for _ in 0..2000 {
            feeder.drive(&mut b.uut.inp, &mut rng);
            col.drive_ready(&mut b.uut.out, &mut rng);
            b.settle();
            let fired = b.uut.inp.fires();
            full_rate += fired as u32;
            col.sample(&b.uut.out);
            b.tick();
            feeder.after_edge(fired);
        }
        assert!(feeder.is_empty());
        assert_eq!(col.frames(), frames);
        if gap == 0 && stall == 0 {
            let beats: usize = frames.iter().map(|f| f.len().div_ceil(8)).sum();
            assert_eq!(full_rate as usize, beats);
        }
    }

    #[test]
    fn skid_passes_frames_with_gaps_and_stalls() {
        run(0, 0, 1);
        run(30, 0, 2);
        run(0, 40, 3);
        run(30, 40, 4);
    }

    /// Synthesis check (rust-hdl style): the emitted Verilog passes Yosys `synth_ice40`'s
    /// front end (skipped quietly if yosys is absent, see `crate::verilog` tests for the
    /// strict tool checks).
    #[test]
    fn skid_synthesises() {
        let mut uut = StreamSkid::<64, 8>::default();
        uut.connect_all();
        ferroce_testkit::yosys_check("stream_skid", &generate_verilog(&uut));
    }
}
