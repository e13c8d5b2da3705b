//! Stimulus driver for the TX builder (plain Rust), generic over the stepping engine (pure
//! rust-hdl [`crate::testbench::Bench`] or the lock-step co-simulation) and over the block
//! ([`TxHeaderBuilder`] or its core [`TxFrameCore`]): shared by unit tests, integration tests,
//! co-simulation and the throughput measurement.
use super::{TxFrameCore, TxHeaderBuilder, TxHeaderBuilderFlat};
use crate::header::RoceHeader;
use crate::stream::{Sink64, Source64};
use crate::testbench::{Collector, Feeder, Rng, Stepper};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// The ports the driver needs (the builder, its core and the flat wrapper share them).
pub trait BuilderPorts: Block {
    /// `desc_valid` (in), `desc_ready` (out), `pay` (sink), `out` (source).
    fn io(
        &mut self,
    ) -> (
        &mut Signal<In, Bit>,
        &Signal<Out, Bit>,
        &mut Sink64,
        &mut Source64,
    );
    /// Drive the descriptor port.
    fn set_desc(&mut self, h: RoceHeader);
    /// Drive `pay_bad` (valid with the payload beat presented).
    fn set_pay_bad(&mut self, bad: bool);
}
impl BuilderPorts for TxHeaderBuilder {
    fn io(
        &mut self,
    ) -> (
        &mut Signal<In, Bit>,
        &Signal<Out, Bit>,
        &mut Sink64,
        &mut Source64,
    ) {
        (
            &mut self.desc_valid,
            &self.desc_ready,
            &mut self.pay,
            &mut self.out,
        )
    }
    fn set_desc(&mut self, h: RoceHeader) {
        self.desc.next = h;
    }
    fn set_pay_bad(&mut self, bad: bool) {
        self.pay_bad.next = bad;
    }
}
impl BuilderPorts for TxFrameCore {
    fn io(
        &mut self,
    ) -> (
        &mut Signal<In, Bit>,
        &Signal<Out, Bit>,
        &mut Sink64,
        &mut Source64,
    ) {
        (
            &mut self.desc_valid,
            &self.desc_ready,
            &mut self.pay,
            &mut self.out,
        )
    }
    fn set_desc(&mut self, h: RoceHeader) {
        self.desc.next = h;
    }
    fn set_pay_bad(&mut self, bad: bool) {
        self.pay_bad.next = bad;
    }
}
impl BuilderPorts for TxHeaderBuilderFlat {
    fn io(
        &mut self,
    ) -> (
        &mut Signal<In, Bit>,
        &Signal<Out, Bit>,
        &mut Sink64,
        &mut Source64,
    ) {
        (
            &mut self.desc_valid,
            &self.desc_ready,
            &mut self.pay,
            &mut self.out,
        )
    }
    fn set_desc(&mut self, h: RoceHeader) {
        self.desc.next = h.into();
    }
    fn set_pay_bad(&mut self, bad: bool) {
        self.pay_bad.next = bad;
    }
}

/// Random timing of a run: percent chance per cycle of a descriptor gap, a payload gap, an
/// output stall.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timing {
    pub desc_gap: u32,
    pub pay_gap: u32,
    pub stall: u32,
}

/// Result of [`run_builder`].
pub struct RunResult {
    pub frames: Vec<Vec<u8>>,
    /// Cycles from the first tick to the edge that took the last output beat.
    pub cycles: u64,
    /// Cycle numbers (relative to the start) at which each frame's last beat was taken.
    pub frame_end_cycles: Vec<u64>,
}

fn presenting_next(
    presenting: &mut bool,
    descs: &VecDeque<RoceHeader>,
    t: Timing,
    rng: &mut Rng,
) -> bool {
    if !*presenting {
        *presenting = !descs.is_empty() && !rng.percent(t.desc_gap);
    }
    *presenting
}

/// Build one frame per `(descriptor, payload)` job. `payload.len()` must equal
/// `payload_len`. Panics if the block makes no progress for 1000 cycles.
pub fn run_builder<U: BuilderPorts, S: Stepper<U>>(
    s: &mut S,
    jobs: &[(RoceHeader, Vec<u8>)],
    t: Timing,
    rng: &mut Rng,
) -> RunResult {
    run_builder_with_bad(s, jobs, &[], t, rng)
}

/// [`run_builder`] with `pay_bad` driven high on the payload beats whose indices (counted over
/// all jobs' payload beats, from 0) are in `bad_beats`.
pub fn run_builder_with_bad<U: BuilderPorts, S: Stepper<U>>(
    s: &mut S,
    jobs: &[(RoceHeader, Vec<u8>)],
    bad_beats: &[usize],
    t: Timing,
    rng: &mut Rng,
) -> RunResult {
    let mut beat = 0usize;
    let mut descs: VecDeque<RoceHeader> = jobs.iter().map(|j| j.0).collect();
    let mut feeder = Feeder::new(t.pay_gap);
    for (h, p) in jobs {
        assert_eq!(h.payload_len.to_u64() as usize, p.len());
        if !p.is_empty() {
            feeder.push_frame(p, 8);
        }
    }
    let mut col = Collector::new(t.stall);
    let start = s.cycles();
    let mut idle = 0;
    let mut presenting = false;
    let mut ends = vec![];
    while ends.len() < jobs.len() {
        {
            let u = s.uut();
            u.set_desc(if presenting_next(&mut presenting, &descs, t, rng) {
                *descs.front().unwrap()
            } else {
                RoceHeader::default()
            });
            u.set_pay_bad(bad_beats.contains(&beat));
            let (dv, _dr, pay, out) = u.io();
            dv.next = presenting;
            feeder.drive(pay, rng);
            col.drive_ready(out, rng);
        }
        s.settle();
        let (dfired, pfired, got);
        {
            let u = s.uut();
            let (dv, dr, pay, out) = u.io();
            dfired = dv.val() && dr.val();
            pfired = pay.fires();
            got = col.sample(out);
            if got && col.beats.last().unwrap().last {
                ends.push(0);
            }
        }
        s.tick();
        if got && col.beats.last().unwrap().last {
            *ends.last_mut().unwrap() = s.cycles() - start;
        }
        feeder.after_edge(pfired);
        if pfired {
            beat += 1;
        }
        if dfired {
            descs.pop_front();
            presenting = false;
        }
        idle = if dfired || pfired || got { 0 } else { idle + 1 };
        assert!(
            idle < 1000,
            "tx builder: no progress ({} of {} frames out)",
            ends.len(),
            jobs.len()
        );
    }
    assert!(feeder.is_empty(), "tx builder: payload beats left over");
    RunResult {
        frames: col.frames(),
        cycles: s.cycles() - start,
        frame_end_cycles: ends,
    }
}

/// Every opcode the builder knows a layout for: RC 0x00..=0x14, 0x16, 0x17; UC 0x20..=0x2B;
/// UD 0x64, 0x65; CNP 0x81.
pub fn all_opcodes() -> Vec<u8> {
    let mut v: Vec<u8> = (0x00..=0x14).chain([0x16, 0x17]).collect();
    v.extend(0x20..=0x2B);
    v.extend([0x64, 0x65, 0x81]);
    v
}

/// True for opcodes that carry no payload (READ request, ACK, ATOMIC_ACK, atomics, CNP).
pub fn no_payload(op: u8) -> bool {
    matches!(op, 0x0C | 0x11 | 0x12 | 0x13 | 0x14 | 0x81)
}

fn rb<const N: usize>(rng: &mut Rng) -> Bits<N> {
    let mut x = Bits::<N>::default();
    let mut i = 0;
    while i < N {
        let w = (N - i).min(32);
        let v = rng.next_u64() & ((1u64 << w) - 1);
        x = x | (bit_cast::<N, 32>(v.into()) << i as u64);
        i += w;
    }
    x
}

/// A descriptor with every field random (reserved bits and the ignored `pad_cnt` included),
/// except `opcode`, `l3`, `vlan` and `payload_len`, which are given.
pub fn random_header(rng: &mut Rng, opcode: u8, l3: u64, vlan: bool, len: usize) -> RoceHeader {
    RoceHeader {
        eth_dst: rb(rng),
        eth_src: rb(rng),
        vlan,
        vlan_pcp: rb(rng),
        vlan_dei: rng.percent(50),
        vlan_vid: rb(rng),
        l3: l3.into(),
        tclass: rb(rng),
        hop_limit: rb(rng),
        ip_id: rb(rng),
        ip_frag: rb(rng),
        ip4_src: rb(rng),
        ip4_dst: rb(rng),
        flow_label: rb(rng),
        ip6_src: rb(rng),
        ip6_dst: rb(rng),
        udp_sport: rb(rng),
        udp_dport: rb(rng),
        udp_csum: rb(rng),
        opcode: (opcode as u64).into(),
        se: rng.percent(50),
        mig_req: rng.percent(50),
        pad_cnt: rb(rng),
        tver: rb(rng),
        pkey: rb(rng),
        fecn: rng.percent(50),
        becn: rng.percent(50),
        resv6: rb(rng),
        dest_qp: rb(rng),
        ack_req: rng.percent(50),
        resv7: rb(rng),
        psn: rb(rng),
        deth_qkey: rb(rng),
        deth_src_qp: rb(rng),
        va: rb(rng),
        rkey: rb(rng),
        dma_len: rb(rng),
        swap_add: rb(rng),
        compare: rb(rng),
        aeth_syndrome: rb(rng),
        aeth_msn: rb(rng),
        atomic_orig: rb(rng),
        imm: rb(rng),
        ieth_rkey: rb(rng),
        payload_len: (len as u64).into(),
    }
}
