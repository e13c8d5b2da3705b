//! Test harness for [`RxParser`] (plain Rust): drives frames through any [`Stepper`] (the
//! rust-hdl [`crate::testbench::Bench`] or the co-simulation harness), with random input gaps and
//! output back-pressure, collects every output, and checks it against the reference model
//! ([`super::model::expect`]).
//!
//! Collected per run: the verdict pulses (in order), the released descriptors and payloads, the
//! PFC pulses, the longest run of cycles the input was held off (`valid & !ready`), and the
//! number of cycles.
use super::drop_reason::{DropReason, RxKind};
use super::model::{expect, RxConfig, RxExpect, RxRelease, RxVerdict};
use super::parser::RxParser;
use crate::header::RoceHeader;
use crate::stream::Beat;
use crate::testbench::{Feeder, Rng, Stepper};
use rust_hdl::prelude::*;

/// Random traffic shaping of one run.
#[derive(Clone, Copy, Debug)]
pub struct Shaping {
    /// Chance (percent) that the MAC idles a cycle between beats.
    pub gap_percent: u32,
    /// Chance (percent) that `hdr_ready` is low in a cycle.
    pub hdr_stall_percent: u32,
    /// Chance (percent) that `pay.ready` is low in a cycle.
    pub pay_stall_percent: u32,
    pub seed: u64,
}

impl Shaping {
    /// Full rate in, always ready out.
    pub const FULL_RATE: Shaping = Shaping {
        gap_percent: 0,
        hdr_stall_percent: 0,
        pay_stall_percent: 0,
        seed: 1,
    };
}

/// Everything a run observed.
#[derive(Clone, Debug, Default)]
pub struct RxRun {
    pub verdicts: Vec<RxVerdict>,
    /// Released descriptors+payloads and PFC pulses, in the order they came out (RoCE releases
    /// are in frame order, PFC pulses too; a PFC pulse may overtake an earlier frame's payload).
    pub releases: Vec<RxRelease>,
    /// Cycles from the first to the last input beat (inclusive) plus drain.
    pub cycles: u64,
    /// Cycles in which an input beat transferred.
    pub in_beats: u64,
    /// Longest run of consecutive cycles with `inp.valid & !inp.ready`.
    pub max_in_stall: u64,
    /// Cycle of the last input transfer.
    pub last_in_cycle: u64,
    /// Cycle (relative to the start) of each frame's last input beat.
    pub frame_end_cycles: Vec<u64>,
    /// Cycle of each verdict pulse.
    pub verdict_cycles: Vec<u64>,
    /// Cycle at which each entry of `releases` completed (PFC pulse, descriptor of an empty
    /// payload taken, last payload beat taken).
    pub release_cycles: Vec<u64>,
    /// Cycle at which each descriptor was taken.
    pub hdr_cycles: Vec<u64>,
    /// Descriptors taken while an earlier one's payload was still to come (`run_with` ahead).
    pub taken_ahead: u64,
    /// Counter increments during the run, indexed by [`DropReason::code`].
    pub counters: [u32; 8],
}

/// What the harness needs of a device under test: [`RxParser`] itself, or a wrapper around it
/// ([`super::RxParserFlat`]) whose top-level inputs are driven while the typed outputs are read
/// from the wrapped parser.
pub trait RxDut<const B: usize, const K: usize, const A: usize>: Block {
    /// The parser whose outputs are read.
    fn core(&self) -> &RxParser<B, K, A>;
    /// Top-level inputs: `inp`, `hdr_ready`, `pay.ready`, and the configuration.
    fn drive(&mut self, cfg: &RxConfig, beat: Option<&Beat>, hdr_ready: bool, pay_ready: bool);
    /// `hdr_ahead_ok` (a descriptor may be taken one ahead of a streaming payload), where the
    /// device has that input.
    fn drive_ahead(&mut self, _ok: bool) {}
}

macro_rules! drive_ports {
    ($u:expr, $cfg:expr, $beat:expr, $hr:expr, $pr:expr) => {{
        $u.cfg_mac.next = $cfg.mac.into();
        $u.cfg_promisc.next = $cfg.promisc;
        $u.cfg_max_frame.next = ($cfg.max_frame.min(0xFFFF) as u64).into();
        $u.inp.drive($beat);
        $u.hdr_ready.next = $hr;
        $u.pay.ready.next = $pr;
    }};
}

impl<const B: usize, const K: usize, const A: usize> RxDut<B, K, A> for RxParser<B, K, A> {
    fn core(&self) -> &RxParser<B, K, A> {
        self
    }
    fn drive(&mut self, cfg: &RxConfig, beat: Option<&Beat>, hdr_ready: bool, pay_ready: bool) {
        drive_ports!(self, cfg, beat, hdr_ready, pay_ready);
    }
    fn drive_ahead(&mut self, ok: bool) {
        self.hdr_ahead_ok.next = ok;
    }
}

impl<const B: usize, const K: usize, const A: usize> RxDut<B, K, A>
    for super::RxParserFlat<B, K, A>
{
    fn core(&self) -> &RxParser<B, K, A> {
        &self.core
    }
    fn drive(&mut self, cfg: &RxConfig, beat: Option<&Beat>, hdr_ready: bool, pay_ready: bool) {
        drive_ports!(self, cfg, beat, hdr_ready, pay_ready);
    }
}

/// Read all counters of a parser.
pub fn counters<const B: usize, const K: usize, const A: usize>(u: &RxParser<B, K, A>) -> [u32; 8] {
    [
        u.cnt_accepted.val().to_u32(),
        u.cnt_bad_icrc.val().to_u32(),
        u.cnt_truncated.val().to_u32(),
        u.cnt_length.val().to_u32(),
        u.cnt_oversize.val().to_u32(),
        u.cnt_unsupported.val().to_u32(),
        u.cnt_mac_mismatch.val().to_u32(),
        u.cnt_bad_opcode.val().to_u32(),
    ]
}

/// Drive `frames` through the parser and collect its outputs. Panics if the parser makes no
/// progress for `10_000` cycles (a hang), emits something unexpected structurally (payload
/// without descriptor, a descriptor overtaking the previous payload, more verdicts than
/// frames), or, with the outputs always ready, holds the input off longer than
/// [`RxParser::STALL_BOUND`].
pub fn run<const B: usize, const K: usize, const A: usize, U: RxDut<B, K, A>, S: Stepper<U>>(
    s: &mut S,
    frames: &[Vec<u8>],
    cfg: &RxConfig,
    shaping: Shaping,
) -> RxRun {
    run_with(s, frames, cfg, shaping, false)
}

/// [`run`], with `hdr_ahead_ok` held at `ahead`: then a descriptor may be taken while the
/// previous payload still streams (at most two taken before a payload's last beat: one ahead
/// of the payload the readout streams, and that one may follow the tail of the one before in
/// the output slice; more is a panic), and the payloads must still come in descriptor order. Releases are recorded in descriptor order, each once its
/// payload is complete.
pub fn run_with<
    const B: usize,
    const K: usize,
    const A: usize,
    U: RxDut<B, K, A>,
    S: Stepper<U>,
>(
    s: &mut S,
    frames: &[Vec<u8>],
    cfg: &RxConfig,
    shaping: Shaping,
    ahead: bool,
) -> RxRun {
    let mut rng = Rng::new(shaping.seed);
    let mut feeder = Feeder::new(shaping.gap_percent);
    for f in frames {
        feeder.push_frame(f, K);
    }
    let mut out = RxRun::default();
    // descriptors taken whose release waits: the first for its payload, the others (taken
    // ahead) for the payloads before theirs
    let mut pending: std::collections::VecDeque<RoceHeader> = Default::default();
    let mut pay_acc: Vec<u8> = vec![];
    let mut stall_run = 0u64;
    let mut idle = 0u64;
    let start = s.cycles();
    let cnt0 = counters(s.uut().core());
    // expected numbers of releases, to know when the outputs are drained
    let want_releases = frames
        .iter()
        .filter(|f| {
            !matches!(
                expect(f, cfg, RxParser::<B, K, A>::hard_max_frame()).release,
                RxRelease::Nothing
            )
        })
        .count();
    loop {
        {
            // Feeder::drive on a scratch port decides whether a beat is presented this cycle
            let mut scratch = crate::stream::StreamSink::<B, K>::default();
            feeder.drive(&mut scratch, &mut rng);
            let hr = !rng.percent(shaping.hdr_stall_percent);
            let pr = !rng.percent(shaping.pay_stall_percent);
            s.uut().drive(cfg, feeder.presented(), hr, pr);
            s.uut().drive_ahead(ahead);
        }
        s.settle();
        let s_cycles = s.cycles();
        let mut progress = false;
        let fired;
        {
            let u = s.uut().core();
            fired = u.inp.fires();
            let now = s_cycles - start;
            if fired {
                out.in_beats += 1;
                progress = true;
                if u.inp.last.val() {
                    out.frame_end_cycles.push(now);
                }
            }
            if u.inp.valid.val() && !u.inp.ready.val() {
                stall_run += 1;
                out.max_in_stall = out.max_in_stall.max(stall_run);
            } else {
                stall_run = 0;
            }
            if u.vd_valid.val() {
                progress = true;
                out.verdict_cycles.push(now);
                out.verdicts.push(RxVerdict {
                    kind: u.vd_kind.val(),
                    reason: u.vd_reason.val(),
                    icrc_ok: u.vd_icrc_ok.val(),
                    flen: u.vd_flen.val().index(),
                });
                assert!(
                    out.verdicts.len() <= frames.len(),
                    "more verdicts than frames"
                );
            }
            if u.pfc_valid.val() {
                progress = true;
                out.release_cycles.push(now);
                let t = u.pfc_times.val();
                let mut times = [0u16; 8];
                for (n, x) in times.iter_mut().enumerate() {
                    *x = t.get_bits::<16>(112 - 16 * n).to_u64() as u16;
                }
                out.releases.push(RxRelease::Pfc {
                    enable: u.pfc_enable.val().to_u8(),
                    times,
                });
            }
            if u.hdr_valid.val() && u.hdr_ready.val() {
                progress = true;
                out.hdr_cycles.push(now);
                if ahead {
                    // one ahead of the payload the readout streams, which may follow the
                    // tail of the one before, still in the output slice
                    assert!(
                        pending.len() < 3,
                        "a third descriptor taken before a payload's last beat"
                    );
                } else {
                    assert!(
                        pending.is_empty(),
                        "descriptor released before the previous payload ended"
                    );
                }
                let h = u.hdr.val();
                if !pending.is_empty() {
                    out.taken_ahead += 1;
                }
                if h.payload_len.index() == 0 && pending.is_empty() {
                    out.releases.push(RxRelease::Roce {
                        hdr: h,
                        payload: vec![],
                    });
                    out.release_cycles.push(now);
                } else {
                    pending.push_back(h);
                }
            }
            if u.pay.fires() {
                progress = true;
                let b: Beat = u.pay.peek().unwrap();
                let h = *pending.front().expect("payload beat without a descriptor");
                pay_acc.extend_from_slice(&b.bytes);
                assert!(
                    pay_acc.len() <= h.payload_len.index(),
                    "payload longer than the descriptor says"
                );
                if b.last {
                    assert_eq!(
                        pay_acc.len(),
                        h.payload_len.index(),
                        "payload shorter than the descriptor says"
                    );
                    out.releases.push(RxRelease::Roce {
                        hdr: h,
                        payload: std::mem::take(&mut pay_acc),
                    });
                    out.release_cycles.push(now);
                    pending.pop_front();
                    // a descriptor without payload taken ahead is complete now
                    while pending.front().is_some_and(|h| h.payload_len.index() == 0) {
                        let h = pending.pop_front().unwrap();
                        out.releases.push(RxRelease::Roce {
                            hdr: h,
                            payload: vec![],
                        });
                        out.release_cycles.push(now);
                    }
                }
            }
        }
        s.tick();
        feeder.after_edge(fired);
        if fired {
            out.last_in_cycle = s.cycles() - start;
        }
        idle = if progress { 0 } else { idle + 1 };
        let done = feeder.is_empty()
            && out.verdicts.len() == frames.len()
            && out.releases.len() == want_releases
            && pending.is_empty();
        if done {
            // let the counters catch the last verdict
            s.settle();
            s.tick();
            s.settle();
            break;
        }
        assert!(
            idle < 10_000,
            "RxParser made no progress for 10000 cycles: {} of {} frames fed, {} verdicts, {} of {} releases",
            frames.len() - feeder.queue.iter().filter(|b| b.last).count(),
            frames.len(),
            out.verdicts.len(),
            out.releases.len(),
            want_releases
        );
    }
    out.cycles = s.cycles() - start;
    if shaping.hdr_stall_percent == 0 && shaping.pay_stall_percent == 0 {
        assert!(
            out.max_in_stall <= RxParser::<B, K, A>::STALL_BOUND,
            "input held off {} cycles with the outputs always ready (bound {})",
            out.max_in_stall,
            RxParser::<B, K, A>::STALL_BOUND
        );
    }
    let cnt1 = counters(s.uut().core());
    for i in 0..8 {
        out.counters[i] = cnt1[i].wrapping_sub(cnt0[i]);
    }
    out
}

/// Compare a run with the model, frame by frame; returns a description of the first mismatch.
pub fn check(
    frames: &[Vec<u8>],
    cfg: &RxConfig,
    hard_max: usize,
    got: &RxRun,
) -> Result<(), String> {
    let want: Vec<RxExpect> = frames.iter().map(|f| expect(f, cfg, hard_max)).collect();
    if got.verdicts.len() != want.len() {
        return Err(format!(
            "{} verdicts for {} frames",
            got.verdicts.len(),
            want.len()
        ));
    }
    for (i, (g, w)) in got.verdicts.iter().zip(&want).enumerate() {
        if *g != w.verdict {
            return Err(format!(
                "frame {i} (len {}): verdict {:?}/{}/icrc_ok={}, model {:?}/{}/icrc_ok={}; frame {}",
                frames[i].len(),
                g.kind,
                g.reason.name(),
                g.icrc_ok,
                w.verdict.kind,
                w.verdict.reason.name(),
                w.verdict.icrc_ok,
                hex(&frames[i][..frames[i].len().min(96)])
            ));
        }
    }
    // RoCE releases (descriptor + payload, through the queues) and PFC pulses (immediate, at
    // commit) are each in frame order; between the two streams the order is free.
    for pfc in [false, true] {
        let sel = |r: &&RxRelease| match r {
            RxRelease::Nothing => false,
            RxRelease::Pfc { .. } => pfc,
            RxRelease::Roce { .. } => !pfc,
        };
        let want_rel: Vec<&RxRelease> = want.iter().map(|w| &w.release).filter(sel).collect();
        let got_rel: Vec<&RxRelease> = got.releases.iter().filter(sel).collect();
        let what = if pfc { "PFC" } else { "RoCE" };
        if got_rel.len() != want_rel.len() {
            return Err(format!(
                "{} {what} releases, model {}",
                got_rel.len(),
                want_rel.len()
            ));
        }
        for (i, (g, w)) in got_rel.iter().zip(want_rel).enumerate() {
            if *g != w {
                return Err(format!(
                    "{what} release {i} differs:\n got   {g:?}\n model {w:?}"
                ));
            }
        }
    }
    let mut cnt = [0u32; 8];
    for w in &want {
        cnt[w.verdict.reason.code() as usize] += 1;
    }
    if cnt != got.counters {
        return Err(format!("counters {:?}, model {:?}", got.counters, cnt));
    }
    Ok(())
}

/// Lower-case hex of bytes.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Bytes from hex (whitespace ignored).
pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Convenience for tests: is this verdict an accepted frame of `kind`.
pub fn accepted(v: &RxVerdict, kind: RxKind) -> bool {
    v.kind == kind && v.reason == DropReason::Accepted
}

/// Every opcode the NIC knows (RC, UC, UD, CNP).
pub fn known_opcodes() -> Vec<u8> {
    (0u8..=255)
        .filter(|&op| super::model::opcode_class(op).is_some())
        .collect()
}

/// Options of [`random_roce_frame`].
#[derive(Clone, Copy, Debug)]
pub struct FrameOpts {
    /// Destination MAC (our MAC for a non-promiscuous parser).
    pub dst_mac: u64,
    /// Largest payload to draw (<= 4096); sizes are skewed towards small ones.
    pub max_payload: usize,
    /// Chance (percent) of an 802.1Q tag.
    pub vlan_percent: u32,
}

impl Default for FrameOpts {
    fn default() -> Self {
        FrameOpts {
            dst_mac: RxConfig::default().mac,
            max_payload: 4096,
            vlan_percent: 30,
        }
    }
}

fn rbits<const N: usize>(rng: &mut Rng) -> Bits<N> {
    let mut x = Bits::<N>::default();
    for i in 0..N {
        x = x.replace_bit(i, rng.next_u64() & 1 == 1);
    }
    x
}

/// Payload length for an opcode's payload class, skewed small (half of them <= 64 bytes).
pub fn random_payload_len(rng: &mut Rng, op: u8, max: usize) -> usize {
    use super::model::PayClass;
    let max = max.clamp(1, 4096);
    let any = |rng: &mut Rng, lo: usize| -> usize {
        if rng.percent(50) {
            rng.range(lo, 64.min(max).max(lo))
        } else {
            rng.range(lo, max.max(lo))
        }
    };
    match super::model::opcode_class(op).expect("known opcode") {
        PayClass::None => 0,
        PayClass::Full => 256 * rng.range(1, (max / 256).max(1)),
        PayClass::Last => any(rng, 1),
        PayClass::Only => any(rng, 0),
    }
}

/// A random, valid RoCE frame (any L3 kind, VLAN or not, any known opcode, random fields),
/// built by the shared TX reference model [`RoceHeader::to_frame_bytes`].
pub fn random_roce_frame(rng: &mut Rng, op: u8, l3: u64, opts: &FrameOpts) -> Vec<u8> {
    let plen = random_payload_len(rng, op, opts.max_payload);
    let mut h = RoceHeader {
        eth_dst: opts.dst_mac.into(),
        eth_src: rbits(rng),
        vlan: rng.percent(opts.vlan_percent),
        vlan_pcp: rbits(rng),
        vlan_dei: rng.percent(50),
        vlan_vid: rbits(rng),
        l3: l3.into(),
        tclass: rbits(rng),
        hop_limit: rbits(rng),
        ip_id: rbits(rng),
        ip_frag: if rng.percent(50) {
            0x4000.into()
        } else {
            0.into()
        },
        ip4_src: rbits(rng),
        ip4_dst: rbits(rng),
        flow_label: rbits(rng),
        ip6_src: rbits(rng),
        ip6_dst: rbits(rng),
        udp_sport: rbits(rng),
        udp_dport: 4791.into(),
        udp_csum: rbits(rng),
        opcode: (op as u64).into(),
        se: rng.percent(50),
        mig_req: rng.percent(50),
        pad_cnt: 0.into(),
        tver: rbits(rng),
        pkey: rbits(rng),
        fecn: rng.percent(50),
        becn: rng.percent(50),
        resv6: rbits(rng),
        dest_qp: rbits(rng),
        ack_req: rng.percent(50),
        resv7: rbits(rng),
        psn: rbits(rng),
        payload_len: (plen as u64).into(),
        ..Default::default()
    };
    if l3 == crate::header::L3_IPV4 {
        h.flow_label = 0.into();
    } else {
        h.ip_id = 0.into();
        h.ip_frag = 0.into();
    }
    let e = h.ext();
    if e.deth {
        h.deth_qkey = rbits(rng);
        h.deth_src_qp = rbits(rng);
    }
    if e.reth || e.atomic_eth {
        h.va = rbits(rng);
        h.rkey = rbits(rng);
    }
    if e.reth {
        h.dma_len = rbits(rng);
    }
    if e.atomic_eth {
        h.swap_add = rbits(rng);
        h.compare = rbits(rng);
    }
    if e.aeth {
        h.aeth_syndrome = rbits(rng);
        h.aeth_msn = rbits(rng);
    }
    if e.atomic_ack {
        h.atomic_orig = rbits(rng);
    }
    if e.imm {
        h.imm = rbits(rng);
    }
    if e.ieth {
        h.ieth_rkey = rbits(rng);
    }
    let payload = rng.bytes(plen);
    h.to_frame_bytes(&payload)
}
