//! [`SendScheduler`]: the requester's work ring, the QPs with WQEs to send or flush, served in
//! order, at most one message per turn (and at most `CFG_SQ_QUANTUM` packets of it while
//! other QPs wait: the requester's job sets itself aside), and the rate shaper's gate at the
//! ring's head
//! (docs/CONGESTION.md).
//!
//! # The ring
//!
//! A QP is in the ring at most once: the requester keeps a per-QP `queued` flag
//! ([`super::ReqQpFlags`]) and pushes a QP only when it is not queued (a doorbell, the end of a
//! job that leaves the window room for another message, an ACK that frees room, a QP going to
//! ERR with WQEs to flush). So `2^QA` words always suffice, and a push is always taken. The
//! head and tail counters are 16 bits wide; only their low `QA` bits address the RAM, and the
//! ring is empty when they are equal.
//!
//! # Taking the head, and the shaper's gate
//!
//! The head's QPN is a RAM read: `head_qpn` shows the word at the head one cycle after the head
//! moved (the requester spends that cycle in its `PopWait` state). `pop` takes the head. The
//! rate shaper is asked about `head_qpn` (the requester drives `sh_qpn` with it while not at a
//! packet); if it says wait (`gate_wait`), the popped QP goes straight back to the tail (it
//! stays queued) and `taken` stays low, so the next QP of the ring gets its turn and a QP over
//! its rate does not hold up the others. Else `taken` is high: the requester starts a send job
//! for `head_qpn` (the QP is off the ring; the job clears its `queued` flag).
//!
//! # Ports
//!
//! * `push_valid`, `push_qpn`: append a QP at the tail (always taken; never in the cycle of a
//!   `pop` with `gate_wait`, which writes the tail itself: the requester's states are apart).
//! * `nonempty`: the ring holds a QP; `head_qpn`: the QP at the head.
//! * `pop`, `gate_wait`: take the head (with `gate_wait`: move it to the tail); `taken`: the
//!   head was taken for a job (`pop` and not `gate_wait`).
use rust_hdl::prelude::*;
use std::collections::VecDeque;

#[derive(LogicBlock)]
pub struct SendScheduler<const QA: usize> {
    pub clock: Signal<In, Clock>,
    /// append a QP at the tail
    pub push_valid: Signal<In, Bit>,
    pub push_qpn: Signal<In, Bits<QA>>,
    /// the ring holds at least one QP
    pub nonempty: Signal<Out, Bit>,
    /// the QP at the head (one cycle after the head moved)
    pub head_qpn: Signal<Out, Bits<QA>>,
    /// take the head
    pub pop: Signal<In, Bit>,
    /// the rate shaper holds the head's QP: a pop moves it to the tail
    pub gate_wait: Signal<In, Bit>,
    /// a pop took the head for a send job
    pub taken: Signal<Out, Bit>,

    /// the ring: QPNs, each at most once
    ram_ring: RAM<Bits<QA>, QA>,
    head: DFF<Bits<16>>,
    tail: DFF<Bits<16>>,
}

impl<const QA: usize> Default for SendScheduler<QA> {
    fn default() -> Self {
        assert!((1..=16).contains(&QA), "SendScheduler: QA must be 1..=16");
        SendScheduler {
            clock: Default::default(),
            push_valid: Default::default(),
            push_qpn: Default::default(),
            nonempty: Default::default(),
            head_qpn: Default::default(),
            pop: Default::default(),
            gate_wait: Default::default(),
            taken: Default::default(),
            ram_ring: RAM::from((0..(1usize << QA)).map(|_| Bits::<QA>::default())),
            head: Default::default(),
            tail: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for SendScheduler<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head, tail);
        self.ram_ring.read_clock.next = self.clock.val();
        self.ram_ring.write_clock.next = self.clock.val();
        // ---- defaults: the head's word is read, a push writes at the tail
        self.ram_ring.read_address.next = self.head.q.val().get_bits::<QA>(0);
        self.ram_ring.write_address.next = self.tail.q.val().get_bits::<QA>(0);
        self.ram_ring.write_data.next = self.push_qpn.val();
        self.ram_ring.write_enable.next = self.push_valid.val();
        self.nonempty.next = self.head.q.val() != self.tail.q.val();
        self.head_qpn.next = self.ram_ring.read_data.val();
        self.taken.next = self.pop.val() & !self.gate_wait.val();
        if self.push_valid.val() {
            self.tail.d.next = self.tail.q.val() + 1;
        }
        if self.pop.val() {
            self.head.d.next = self.head.q.val() + 1;
            if self.gate_wait.val() {
                // the shaper holds this QP: back to the tail, still queued
                self.ram_ring.write_data.next = self.ram_ring.read_data.val();
                self.ram_ring.write_enable.next = true;
                self.tail.d.next = self.tail.q.val() + 1;
            }
        }
    }
}

/// The reference model, cycle by cycle, in plain Rust: the ring as a queue of QPNs, and the
/// head's QPN as the block shows it (read one cycle after the head moved; the word is the one
/// before a write at the same edge).
#[derive(Clone, Debug)]
pub struct SendSchedulerModel {
    qa: usize,
    ring: VecDeque<u32>,
    /// what `head_qpn` shows this cycle
    shown: u32,
    /// the block's RAM words (what a read returns once the head moved onto an empty slot)
    words: Vec<u32>,
    head: u16,
    tail: u16,
}

impl SendSchedulerModel {
    pub fn new(qa: usize) -> Self {
        SendSchedulerModel {
            qa,
            ring: VecDeque::new(),
            shown: 0,
            words: vec![0; 1 << qa],
            head: 0,
            tail: 0,
        }
    }

    /// The QPs in the ring, head first.
    pub fn ring(&self) -> &VecDeque<u32> {
        &self.ring
    }

    pub fn nonempty(&self) -> bool {
        !self.ring.is_empty()
    }

    pub fn head_qpn(&self) -> u32 {
        self.shown
    }

    /// `taken` in a cycle with these inputs.
    pub fn taken(&self, pop: bool, gate_wait: bool) -> bool {
        pop && !gate_wait
    }

    /// The clock edge at the end of a cycle; returns the QP taken for a job, if any.
    pub fn clock(&mut self, push: Option<u32>, pop: bool, gate_wait: bool) -> Option<u32> {
        assert!(
            !(push.is_some() && pop && gate_wait),
            "a push and a gated pop never share a cycle"
        );
        let mask = (1usize << self.qa) - 1;
        let read = self.words[self.head as usize & mask];
        let mut taken = None;
        if let Some(q) = push {
            assert!(!self.ring.contains(&q), "QP {q} is queued already");
            assert!(self.ring.len() < 1 << self.qa, "the ring is full");
            self.words[self.tail as usize & mask] = q;
            self.ring.push_back(q);
            self.tail = self.tail.wrapping_add(1);
        }
        if pop {
            let q = self.ring.pop_front().expect("a pop of an empty ring");
            assert_eq!(q, self.shown, "the pop takes the QP shown at the head");
            self.head = self.head.wrapping_add(1);
            if gate_wait {
                self.words[self.tail as usize & mask] = q;
                self.ring.push_back(q);
                self.tail = self.tail.wrapping_add(1);
            } else {
                taken = Some(q);
            }
        }
        self.shown = read;
        taken
    }
}
