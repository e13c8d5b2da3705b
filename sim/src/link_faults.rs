//! Faults on a simulated Ethernet link: loss, duplication, reordering, bit errors and random
//! delay, per frame, deterministic from a seed.
//!
//! This is software modelling what lies outside the NIC (cables, switches). [`FaultyLink`] is
//! one direction of a link: frames go in with [`FaultyLink::send`] and come out with
//! [`FaultyLink::deliver`] when they are due. What a frame suffers is decided independently
//! for every frame from a small PRNG of its own ([`SplitMix64`]); every frame draws the same
//! number of values whatever happens to it, so with one seed the fate of frame `n` (lost or not,
//! which bit flips, how late it is) depends only on `n` and the rates, not on what happened to
//! the frames before it.
//!
//! A corrupted frame gets one bit flipped anywhere in it (Ethernet header, IP header, payload,
//! ICRC): the receiving NIC's checks (addresses, IP checksum, ICRC) must drop it.
//!
//! ECN marking (`ecn_mark`) models a congested switch queue (RFC 3168): an ECN-capable IP frame
//! (ECT(0) or ECT(1)) is marked CE with that probability, the IPv4 header checksum updated (the
//! RoCE ICRC does not cover the ECN bits). Its decisions come from a random stream of their own,
//! so adding marking to a link leaves the fate of every frame under the other faults as it was.
use std::collections::BTreeMap;

/// How long a frame held back for reordering waits for a successor to overtake it before it is
/// delivered anyway (cycles after it was sent).
pub const REORDER_HOLD_LIMIT: u64 = 2000;

/// What the link does to frames. Rates are probabilities per frame (0 to 1); the default is a
/// perfect link.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkFaults {
    /// A frame is lost.
    pub loss: f64,
    /// A frame is delivered twice (the copy a little later).
    pub dup: f64,
    /// A frame is held back and delivered right after the next frame of its direction (the two
    /// are swapped). The frame that overtakes a held frame is never held back itself, so of all
    /// frames about `reorder / (1 + reorder)` end up overtaken.
    pub reorder: f64,
    /// A frame gets one random bit flipped.
    pub corrupt: f64,
    /// Largest extra delay of a frame, in cycles (uniform in 0..=delay; 0 = none). Frames keep
    /// their order whatever their delay, except where they are reordered or duplicated on
    /// purpose.
    pub delay: u64,
    /// An ECN-capable IPv4/IPv6 frame is marked CE (congestion experienced).
    pub ecn_mark: f64,
    /// Seed of the random decisions (each direction draws its own stream from it).
    pub seed: u64,
}

impl LinkFaults {
    /// Every rate is a probability (0 to 1, not NaN).
    pub fn validate(&self) -> Result<(), String> {
        for (name, rate) in [
            ("loss", self.loss),
            ("dup", self.dup),
            ("reorder", self.reorder),
            ("corrupt", self.corrupt),
            ("ecn_mark", self.ecn_mark),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                return Err(format!(
                    "{name} must be a fraction between 0 and 1, got {rate}"
                ));
            }
        }
        Ok(())
    }

    /// The link does nothing to frames (no loss, duplication, reordering, corruption or delay).
    pub fn is_perfect(&self) -> bool {
        self.loss == 0.0
            && self.dup == 0.0
            && self.reorder == 0.0
            && self.corrupt == 0.0
            && self.delay == 0
            && self.ecn_mark == 0.0
    }
}

/// What one direction of a link did (frames).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Frames given to the link.
    pub sent: u64,
    /// Frames that came out of it (copies included).
    pub delivered: u64,
    /// Frames lost.
    pub dropped: u64,
    /// Frames delivered with one bit flipped.
    pub corrupted: u64,
    /// Extra copies delivered.
    pub duplicated: u64,
    /// Frames delivered after their successor (swapped with it).
    pub reordered: u64,
    /// ECN-capable frames marked CE.
    pub ce_marked: u64,
    /// Frames in the link when the stats were read: sent (or copied) and not delivered yet, so
    /// that `sent - dropped + duplicated == delivered + in_flight` at any time.
    pub in_flight: u64,
}

/// The splitmix64 generator: tiny, fast, and good enough to decide the fate of frames.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in 0..=max.
    pub fn up_to(&mut self, max: u64) -> u64 {
        let x = self.next_u64();
        match max.checked_add(1) {
            // the high half of a 64 x 64 bit product: no division, bias below 2^-64 * max
            Some(n) => ((x as u128 * n as u128) >> 64) as u64,
            None => x,
        }
    }
}

/// One frame waiting for its delivery cycle.
#[derive(Debug)]
struct Held {
    frame: Vec<u8>,
    /// When it was sent.
    sent: u64,
    /// When it would be due on its own.
    due: u64,
    /// Deliver a copy this many cycles after it.
    dup_after: Option<u64>,
}

/// One direction of a link with [`LinkFaults`].
///
/// A frame sent at cycle `c` is due at cycle `c + 1 + extra` (`extra` uniform in
/// `0..=delay`); [`FaultyLink::deliver`]`(now)` returns every frame due at or before `now`, in
/// delivery order. Frames that are not reordered keep their relative order: a frame is never
/// due before the frame sent ahead of it.
#[derive(Debug)]
pub struct FaultyLink {
    faults: LinkFaults,
    rng: SplitMix64,
    /// The ECN marking decisions (a stream of their own: see the module doc).
    mark_rng: SplitMix64,
    /// Frames scheduled, by (due cycle, order of scheduling).
    pending: BTreeMap<(u64, u64), Vec<u8>>,
    seq: u64,
    /// Due cycle of the last frame scheduled in order (copies aside).
    last_due: u64,
    /// A frame held back until the next one overtakes it.
    held: Option<Held>,
    stats: LinkStats,
}

impl FaultyLink {
    /// One direction of a link (`direction` picks its random stream: 0 and 1 for the two
    /// directions of a pair).
    pub fn new(faults: LinkFaults, direction: u64) -> Self {
        FaultyLink {
            faults,
            rng: SplitMix64::new(stream_seed(faults.seed, direction)),
            mark_rng: SplitMix64::new(stream_seed(faults.seed, direction + 2)),
            pending: BTreeMap::new(),
            seq: 0,
            last_due: 0,
            held: None,
            stats: LinkStats::default(),
        }
    }

    /// A perfect link (every frame due the cycle after it was sent).
    pub fn perfect() -> Self {
        Self::new(LinkFaults::default(), 0)
    }

    /// Change what the link does from now on (frames in flight and the counters stay; the
    /// random stream restarts from the new seed).
    pub fn set_faults(&mut self, faults: LinkFaults, direction: u64) {
        self.faults = faults;
        self.rng = SplitMix64::new(stream_seed(faults.seed, direction));
        self.mark_rng = SplitMix64::new(stream_seed(faults.seed, direction + 2));
    }

    pub fn faults(&self) -> &LinkFaults {
        &self.faults
    }

    pub fn stats(&self) -> LinkStats {
        LinkStats {
            in_flight: self.in_flight() as u64,
            ..self.stats
        }
    }

    /// Frames in the link (sent, neither delivered nor lost yet).
    pub fn in_flight(&self) -> usize {
        self.pending.len() + self.held.is_some() as usize
    }

    /// A frame leaves the sender at `cycle`.
    pub fn send(&mut self, cycle: u64, mut frame: Vec<u8>) {
        self.stats.sent += 1;
        let f = self.faults;
        // the same draws for every frame, whatever happens to it
        let r = &mut self.rng;
        let (u_loss, u_corrupt, bit, extra, u_reorder, u_dup, dup_extra) = (
            r.unit(),
            r.unit(),
            r.next_u64(),
            r.up_to(f.delay),
            r.unit(),
            r.unit(),
            r.up_to(f.delay),
        );
        // one marking draw per frame, whatever happens to it
        let u_mark = self.mark_rng.unit();
        if u_loss < f.loss {
            self.stats.dropped += 1;
            return;
        }
        if u_mark < f.ecn_mark && mark_ce(&mut frame) {
            self.stats.ce_marked += 1;
        }
        if u_corrupt < f.corrupt && !frame.is_empty() {
            let bit = (((bit as u128) * (frame.len() as u128 * 8)) >> 64) as usize;
            frame[bit / 8] ^= 1 << (bit % 8);
            self.stats.corrupted += 1;
        }
        let dup_after = (u_dup < f.dup).then_some(1 + dup_extra);
        let due = cycle.saturating_add(1).saturating_add(extra);
        if let Some(h) = self.held.take() {
            // this frame overtakes the held one, which follows right after it
            let due = self.schedule(due, frame, dup_after);
            self.schedule(due.max(h.due), h.frame, h.dup_after);
            self.stats.reordered += 1;
        } else if u_reorder < f.reorder {
            self.held = Some(Held {
                frame,
                sent: cycle,
                due,
                dup_after,
            });
        } else {
            self.schedule(due, frame, dup_after);
        }
    }

    /// Every frame due at or before `cycle`, in delivery order.
    pub fn deliver(&mut self, cycle: u64) -> Vec<Vec<u8>> {
        if self
            .held
            .as_ref()
            .is_some_and(|h| cycle >= h.sent.saturating_add(REORDER_HOLD_LIMIT))
        {
            // nothing came to overtake it: on its way
            let h = self.held.take().expect("held");
            self.schedule(h.due.max(cycle), h.frame, h.dup_after);
        }
        let mut out = Vec::new();
        while let Some(entry) = self.pending.first_entry() {
            if entry.key().0 > cycle {
                break;
            }
            out.push(entry.remove());
        }
        self.stats.delivered += out.len() as u64;
        out
    }

    /// Queue a frame in order (due no earlier than the frame ahead of it), and its copy if it
    /// has one; returns its due cycle.
    fn schedule(&mut self, due: u64, frame: Vec<u8>, dup_after: Option<u64>) -> u64 {
        let due = due.max(self.last_due);
        self.last_due = due;
        if let Some(after) = dup_after {
            self.stats.duplicated += 1;
            self.pending
                .insert((due.saturating_add(after), self.seq + 1), frame.clone());
        }
        self.pending.insert((due, self.seq), frame);
        self.seq += 2;
        due
    }
}

/// Marks an ECN-capable (ECT(0) or ECT(1)) IPv4 or IPv6 frame CE in place, untagged or with one
/// 802.1Q tag; IPv4's header checksum is updated. Returns whether it marked: Not-ECT frames,
/// frames already CE and non-IP frames are left alone (RFC 3168 5).
pub fn mark_ce(frame: &mut [u8]) -> bool {
    let mut l3 = 14;
    if frame.len() >= 18 && frame[12..14] == [0x81, 0x00] {
        l3 = 18;
    }
    if frame.len() < l3 + 2 {
        return false;
    }
    match [frame[l3 - 2], frame[l3 - 1]] {
        [0x08, 0x00] => {
            let ihl = (frame[l3] & 0x0F) as usize * 4;
            if frame[l3] >> 4 != 4 || ihl < 20 || frame.len() < l3 + ihl {
                return false;
            }
            let ecn = frame[l3 + 1] & 3;
            if ecn == 0 || ecn == 3 {
                return false;
            }
            frame[l3 + 1] |= 3;
            frame[l3 + 10..l3 + 12].fill(0);
            let mut sum = 0u32;
            for w in frame[l3..l3 + ihl].chunks(2) {
                sum += u16::from_be_bytes([w[0], w[1]]) as u32;
            }
            while sum > 0xFFFF {
                sum = (sum & 0xFFFF) + (sum >> 16);
            }
            frame[l3 + 10..l3 + 12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
            true
        }
        [0x86, 0xDD] => {
            // traffic class: bits 3:0 of byte 0 and 7:4 of byte 1; ECN is bits 5:4 of byte 1
            let ecn = (frame[l3 + 1] >> 4) & 3;
            if frame[l3] >> 4 != 6 || ecn == 0 || ecn == 3 {
                return false;
            }
            frame[l3 + 1] |= 0x30;
            true
        }
        _ => false,
    }
}

/// The random stream of one direction.
fn stream_seed(seed: u64, direction: u64) -> u64 {
    let mut g = SplitMix64::new(seed ^ direction.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    g.next_u64() ^ direction
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: u64) -> Vec<u8> {
        let mut f = vec![0u8; 60 + (n % 40) as usize];
        f[..8].copy_from_slice(&n.to_le_bytes());
        f
    }

    #[test]
    fn perfect_link_is_next_cycle_in_order() {
        let mut l = FaultyLink::perfect();
        assert!(l.faults().is_perfect());
        l.send(10, frame(0));
        l.send(10, frame(1));
        assert!(l.deliver(10).is_empty());
        assert_eq!(l.deliver(11), vec![frame(0), frame(1)]);
        assert_eq!(l.in_flight(), 0);
        assert_eq!(
            l.stats(),
            LinkStats {
                sent: 2,
                delivered: 2,
                ..LinkStats::default()
            }
        );
    }

    #[test]
    fn splitmix_up_to_covers_the_range() {
        let mut r = SplitMix64::new(1);
        let mut seen = [false; 4];
        for _ in 0..1000 {
            seen[r.up_to(3) as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
        assert_eq!(SplitMix64::new(5).up_to(0), 0);
        let _ = r.up_to(u64::MAX);
    }
}
