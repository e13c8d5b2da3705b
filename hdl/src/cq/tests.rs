//! Block tests of the CQE writer: every entry it writes is parsed by `ferroce_proto`'s `Cqe`
//! and compared with what was asked; ring slots, owner bit across passes, overflow, arm modes
//! and interrupt vectors; random back-pressure on the DMA write channel.
use super::*;
use crate::testbench::{Bench, Rng, Stepper};
use ferroce_proto::host::cqe::{flags, Cqe, CqeOpcode, WcStatus, CQE_LEN};
use ferroce_proto::host::ring::owner_for;

const CQN: u64 = 3;
const BASE: u64 = 0x7000_0000;
const LOG2: u64 = 2;
const VECTOR: u64 = 5;

/// One completion request.
#[derive(Clone, Copy, Debug)]
struct Req {
    cqn: u64,
    wr_id: u64,
    byte_len: u32,
    imm: u32,
    qpn: u32,
    src_qp: u32,
    index: u16,
    vendor: u8,
    flags: u8,
    status: WcStatus,
    opcode: CqeOpcode,
}

fn random_req(rng: &mut Rng) -> Req {
    let opcodes = [
        CqeOpcode::Send,
        CqeOpcode::RdmaWrite,
        CqeOpcode::Recv,
        CqeOpcode::RecvRdmaWithImm,
    ];
    let opcode = opcodes[rng.below(4) as usize];
    Req {
        cqn: CQN,
        wr_id: rng.next_u64(),
        byte_len: rng.next_u64() as u32,
        imm: rng.next_u64() as u32,
        qpn: rng.below(1 << 24) as u32,
        src_qp: rng.below(1 << 24) as u32,
        index: rng.next_u64() as u16,
        vendor: 0,
        flags: if opcode == CqeOpcode::RecvRdmaWithImm {
            flags::WITH_IMM
        } else {
            0
        },
        status: WcStatus::Success,
        opcode,
    }
}

struct Harness {
    bench: Bench<CqeWriter<4>>,
    rng: Rng,
    stall: u32,
    exists: bool,
    /// CQ config read pipeline (latency 2)
    rd: [bool; 2],
    writes: Vec<(u64, u64, Vec<u8>)>,
    irqs: Vec<u64>,
}

impl Harness {
    fn new(stall: u32, seed: u64) -> Harness {
        Harness {
            bench: Bench::new(CqeWriter::<4>::default(), |u| &mut u.clock),
            rng: Rng::new(seed),
            stall,
            exists: true,
            rd: [false; 2],
            writes: vec![],
            irqs: vec![],
        }
    }

    /// One cycle; `drive` sets the request inputs; returns (cev taken, cqe taken).
    fn cycle(&mut self, drive: impl FnOnce(&mut CqeWriter<4>)) -> (bool, bool) {
        let req_ready = !self.rng.percent(self.stall);
        let data_ready = !self.rng.percent(self.stall);
        {
            let u = self.bench.uut();
            u.cev_valid.next = false;
            u.cqe_valid.next = false;
            drive(u);
            u.cqc_valid.next = self.rd[1];
            u.cqc_exists.next = self.exists;
            u.cqc_base.next = BASE.into();
            u.cqc_log2_entries.next = LOG2.into();
            u.cqc_vector.next = VECTOR.into();
            u.dma_wr.req_ready.next = req_ready;
            u.dma_wr.data.ready.next = data_ready;
            u.dma_wr.done_valid.next = false;
            u.dma_wr.done_tag.next = 0.into();
            u.dma_wr.done_error.next = false;
        }
        self.bench.settle();
        let taken = {
            let u = self.bench.uut();
            if u.dma_wr.req_valid.val() && req_ready {
                self.writes.push((
                    u.dma_wr.req_addr.val().to_u64(),
                    u.dma_wr.req_len.val().to_u64(),
                    vec![],
                ));
            }
            if u.dma_wr.data.valid.val() && data_ready {
                let w = self.writes.last_mut().expect("data before its request");
                let d = u.dma_wr.data.data.val().to_u64();
                assert_eq!(u.dma_wr.data.keep.val().to_u64(), 0xFF);
                w.2.extend_from_slice(&d.to_be_bytes());
                assert_eq!(u.dma_wr.data.last.val(), w.2.len() == CQE_LEN);
            }
            if u.cq_irq_valid.val() {
                self.irqs.push(u.cq_irq_vector.val().to_u64());
            }
            let rd = u.cqc_rd_valid.val();
            if rd {
                assert_eq!(u.cqc_rd_cqn.val().to_u64(), CQN & 0xF);
            }
            self.rd = [rd, self.rd[0]];
            (
                u.cev_valid.val() && u.cev_ready.val(),
                u.cqe_valid.val() && u.cqe_ready.val(),
            )
        };
        self.bench.tick();
        taken
    }

    fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.cycle(|_| {});
        }
    }

    fn event(&mut self, kind: u64, value: u64) {
        for _ in 0..100 {
            let (taken, _) = self.cycle(|u| {
                u.cev_valid.next = true;
                u.cev_kind.next = kind.into();
                u.cev_cqn.next = CQN.into();
                u.cev_value.next = value.into();
            });
            if taken {
                self.idle(8);
                return;
            }
        }
        panic!("event not taken");
    }

    fn cqe(&mut self, r: Req) {
        for _ in 0..200 {
            let (_, taken) = self.cycle(|u| {
                u.cqe_valid.next = true;
                u.cqe_cqn.next = r.cqn.into();
                u.cqe_wr_id.next = r.wr_id.into();
                u.cqe_byte_len.next = (r.byte_len as u64).into();
                u.cqe_imm.next = (r.imm as u64).into();
                u.cqe_qpn.next = (r.qpn as u64).into();
                u.cqe_src_qp.next = (r.src_qp as u64).into();
                u.cqe_wqe_index.next = (r.index as u64).into();
                u.cqe_vendor.next = (r.vendor as u64).into();
                u.cqe_flags.next = (r.flags as u64).into();
                u.cqe_status.next = (r.status as u64).into();
                u.cqe_opcode.next = (r.opcode as u64).into();
            });
            if taken {
                self.idle(60);
                return;
            }
        }
        panic!("CQE not taken");
    }

    fn counts(&mut self) -> (u64, u64) {
        let u = self.bench.uut();
        (u.cnt_written.val().to_u64(), u.cnt_dropped.val().to_u64())
    }
}

fn check_entry(w: &(u64, u64, Vec<u8>), r: &Req, pi: u32) {
    let slot = (pi as u64) & ((1 << LOG2) - 1);
    assert_eq!(w.0, BASE + slot * CQE_LEN as u64, "slot of PI {pi}");
    assert_eq!(w.1, CQE_LEN as u64);
    let c = Cqe::parse(&w.2).expect("a well-formed CQE");
    assert_eq!(c.owner, owner_for(pi, LOG2 as u8), "owner bit of PI {pi}");
    assert_eq!(
        (
            c.wr_id,
            c.byte_len,
            c.qpn,
            c.src_qp,
            c.wqe_index,
            c.vendor_err,
            c.status,
            c.opcode
        ),
        (r.wr_id, r.byte_len, r.qpn, r.src_qp, r.index, r.vendor, r.status, r.opcode)
    );
    if r.flags & flags::WITH_IMM != 0 {
        assert_eq!(c.imm, Some(r.imm));
    } else {
        assert_eq!(c.imm, None);
    }
}

#[test]
fn cqes_fill_the_ring_with_the_owner_bit_of_each_pass_and_overflow_is_dropped() {
    for (seed, stall) in [(1, 0), (2, 40)] {
        let mut h = Harness::new(stall, seed);
        let mut rng = Rng::new(seed + 10);
        // CREATE with initial CI 0, then 4 CQEs fill the 4-entry ring
        h.event(2, 0);
        let mut sent = vec![];
        for _ in 0..4 {
            let r = random_req(&mut rng);
            h.cqe(r);
            sent.push(r);
        }
        // the ring is full (PI - CI = 4): the next one is dropped
        h.cqe(random_req(&mut rng));
        assert_eq!(h.counts(), (4, 1));
        // the driver consumed 3: 3 more land, on the second pass (owner 0)
        h.event(0, 3);
        for _ in 0..3 {
            let r = random_req(&mut rng);
            h.cqe(r);
            sent.push(r);
        }
        assert_eq!(h.counts(), (7, 1));
        assert_eq!(h.writes.len(), 7);
        for (pi, (w, r)) in h.writes.iter().zip(&sent).enumerate() {
            check_entry(w, r, pi as u32);
        }
        assert!(h.irqs.is_empty(), "never armed, yet an interrupt");
    }
}

#[test]
fn arm_modes_fire_once_on_the_right_completion() {
    let mut h = Harness::new(20, 7);
    let mut rng = Rng::new(8);
    h.event(2, 0);
    // ARM next with nothing waiting (CI = PI = 0): no interrupt yet
    h.event(1, (1 << 24) | 0);
    assert!(h.irqs.is_empty());
    h.cqe(random_req(&mut rng));
    assert_eq!(h.irqs, vec![VECTOR], "armed: the next CQE interrupts");
    h.cqe(random_req(&mut rng));
    assert_eq!(h.irqs.len(), 1, "disarmed after firing");
    // ARM solicited (CI = 2 = PI): a plain success does not fire, an error does
    h.event(1, (2 << 24) | 2);
    h.cqe(random_req(&mut rng));
    assert_eq!(h.irqs.len(), 1);
    h.event(0, 3);
    let mut e = random_req(&mut rng);
    e.status = WcStatus::RemAccessErr;
    e.vendor = 0;
    h.cqe(e);
    assert_eq!(h.irqs.len(), 2, "an error CQE fires a solicited arm");
    // ARM solicited again: a solicited receive fires
    h.event(1, (2 << 24) | 4);
    let mut s = random_req(&mut rng);
    s.opcode = CqeOpcode::Recv;
    s.flags = flags::SOLICITED;
    h.cqe(s);
    assert_eq!(h.irqs.len(), 3);
    // ARM next while a CQE is waiting (the driver's CI is behind PI): fires at once
    h.event(1, (1 << 24) | 4);
    assert_eq!(h.irqs, vec![VECTOR; 4]);
    // ARM with mode 0 is a CI update only
    h.event(1, 5);
    h.cqe(random_req(&mut rng));
    assert_eq!(h.irqs.len(), 4);
    assert_eq!(h.counts(), (6, 0));
}

#[test]
fn a_cqe_for_a_cq_that_does_not_exist_is_dropped() {
    let mut h = Harness::new(0, 3);
    let mut rng = Rng::new(4);
    h.exists = false;
    h.cqe(random_req(&mut rng));
    let mut r = random_req(&mut rng);
    r.cqn = 1 << 4; // outside the 16-CQ table
    h.exists = true;
    h.cqe(r);
    assert_eq!(h.counts(), (0, 2));
    assert!(h.writes.is_empty());
}

#[test]
fn cqe_writer_synthesizes() {
    crate::csr::synth_check(&mut CqeWriter::<8>::default(), "cqe_writer");
}
