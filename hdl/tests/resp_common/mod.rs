//! Test bench of the RDMA WRITE responder (`ferroce_hdl::resp::RcWriteResponder`): the block is
//! stepped cycle by cycle against plain-Rust models of everything around it,
//!
//! * the QP context read port (latency 2; random garbage on every cycle that is not the
//!   answer to a read, so a read at the wrong cycle cannot pass),
//! * the MR table lookup port (latency 5, the verdict of `ferroce_proto::host::mr::MrEntry::check`,
//!   random `req_ready`),
//! * the DMA write slave (host memory as a `Vec<u8>`, random `req_ready`/`data.ready`,
//!   optionally no data before the request, completions in order after random delays,
//!   injected `done_error`),
//! * the request source (headers built by `ferroce_proto::wire` and converted with
//!   `RoceHeader::from_frame`, payload after its header, next header after the payload, as
//!   the RX parser does) and the ACK / QP-error sinks (random ready),
//!
//! and compared with [`Model`], a software responder written from IBTA Vol 1, 9.7 (docs/PROTOCOL.md
//! §7) and the decisions in `hdl/src/resp/mod.rs`: every response in order, the QP-error requests,
//! the counters and the whole host memory, byte for byte. Each response is also checked, at the
//! cycle it leaves, to come after the completion of every DMA write of its packet and of the
//! packets before it.
#![allow(dead_code)]
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::header::RoceHeader;
use ferroce_hdl::resp::*;
use ferroce_hdl::stream::frame_to_beats;
use ferroce_hdl::testbench::{Bench, Feeder, Rng, Stepper};
use ferroce_proto::flow::Pmtu;
use ferroce_proto::host::mr::{make_key, MrEntry, MrViolation};
use ferroce_proto::host::qp::{AccessFlags, QpState};
use ferroce_proto::psn::{psn_add, psn_diff};
use ferroce_proto::wire::{
    BthRepr, EthernetRepr, ExtHeaders, FrameRepr, ImmDtRepr, Opcode, RethRepr, RoceNet,
};
use rust_hdl::prelude::*;
use std::collections::{HashMap, HashSet, VecDeque};

/// The block under test: the responder behind its flat-descriptor wrapper, so the same bench
/// drives the rust-hdl simulation alone ([`Env::new`]) or in lock step with its emitted
/// Verilog under Verilator ([`Env::new_cosim`]).
pub type Uut = RcWriteResponderFlat64;
/// Bytes per beat.
pub const K: usize = 8;
/// Number of QPs of the build (QA = 8).
pub const NQP: u32 = 256;
/// IOVA of `mem[0]`: every DMA write must land in `MEM_BASE .. MEM_BASE + MEM_SIZE`.
pub const MEM_BASE: u64 = 0x7_4000_0000;
pub const MEM_SIZE: usize = 96 * 1024;

pub const OP_FIRST: u8 = 0x06;
pub const OP_MIDDLE: u8 = 0x07;
pub const OP_LAST: u8 = 0x08;
pub const OP_LAST_IMM: u8 = 0x09;
pub const OP_ONLY: u8 = 0x0A;
pub const OP_ONLY_IMM: u8 = 0x0B;

pub const ACK: u8 = 0x1F;
/// RNR NAK with the QP's min_rnr_timer (0 in the harness).
pub const RNR: u8 = 0x20;
pub const NAK_PSN: u8 = 0x60;
pub const NAK_INV: u8 = 0x61;
pub const NAK_ACC: u8 = 0x62;
pub const NAK_OP: u8 = 0x63;

/// The QP context fields the responder reads.
#[derive(Clone, Copy, Debug)]
pub struct QpCfg {
    pub state: QpState,
    pub access: AccessFlags,
    pub pd: u32,
    pub dest_qpn: u32,
    /// Bytes (256 ..= 4096).
    pub pmtu: u32,
    pub rq_psn: u32,
}

impl QpCfg {
    pub fn rtr(pd: u32, dest_qpn: u32, pmtu: u32, rq_psn: u32) -> QpCfg {
        QpCfg {
            state: QpState::Rtr,
            access: AccessFlags(
                AccessFlags::LOCAL_WRITE.0
                    | AccessFlags::REMOTE_WRITE.0
                    | AccessFlags::REMOTE_READ.0,
            ),
            pd,
            dest_qpn,
            pmtu,
            rq_psn,
        }
    }
}

impl Default for QpCfg {
    fn default() -> Self {
        QpCfg {
            state: QpState::Reset,
            access: AccessFlags::NONE,
            pd: 0,
            dest_qpn: 0,
            pmtu: 256,
            rq_psn: 0,
        }
    }
}

/// Random back-pressure and gaps, in percent per cycle.
#[derive(Clone, Copy, Debug)]
pub struct Knobs {
    pub hdr_gap: u32,
    pub pay_gap: u32,
    pub mr_stall: u32,
    pub dma_req_stall: u32,
    pub dma_data_stall: u32,
    /// The DMA shell takes no data before it has accepted the request it belongs to.
    pub data_needs_req: bool,
    /// Completions come 1 ..= 1 + done_delay cycles after the write's data (in order).
    pub done_delay: u64,
    pub ack_stall: u32,
    pub qerr_stall: u32,
    /// Percent per cycle that a PFC pause of the TX path starts or ends: while paused the
    /// bench holds `ack_ready` low and `ack_park` high, as `NicTop` does.
    pub pause_flip: u32,
}

impl Knobs {
    /// Everything always ready, no gaps.
    pub fn none() -> Knobs {
        Knobs {
            hdr_gap: 0,
            pay_gap: 0,
            mr_stall: 0,
            dma_req_stall: 0,
            dma_data_stall: 0,
            data_needs_req: false,
            done_delay: 0,
            ack_stall: 0,
            qerr_stall: 0,
            pause_flip: 0,
        }
    }
    /// Random back-pressure on every port.
    pub fn heavy() -> Knobs {
        Knobs {
            hdr_gap: 30,
            pay_gap: 30,
            mr_stall: 40,
            dma_req_stall: 50,
            dma_data_stall: 40,
            data_needs_req: true,
            done_delay: 40,
            ack_stall: 50,
            qerr_stall: 60,
            pause_flip: 2,
        }
    }
}

/// One request as the RX parser releases it.
#[derive(Clone, Debug)]
pub struct Pkt {
    pub hdr: RoceHeader,
    pub payload: Vec<u8>,
    /// Bytes of the whole frame as emitted (Ethernet header to ICRC, no FCS): the beats it
    /// takes on a 64-bit link are `frame_len.div_ceil(8)`.
    pub frame_len: usize,
}

impl Pkt {
    pub fn psn(&self) -> u32 {
        self.hdr.psn.to_u64() as u32
    }
    pub fn opcode(&self) -> u8 {
        self.hdr.opcode.to_u64() as u8
    }
}

/// A request frame built by `ferroce_proto::wire`, emitted, parsed back and converted to the
/// hardware descriptor (the path a received frame takes). `reth` = (VA, rkey, DMA length).
pub fn pkt(
    opcode: u8,
    qpn: u32,
    psn: u32,
    ack_req: bool,
    reth: Option<(u64, u32, u32)>,
    imm: Option<u32>,
    payload: &[u8],
) -> Pkt {
    let eth = EthernetRepr {
        dst: [0x02, 0, 0, 0, 0, 0x0B],
        src: [0x02, 0, 0, 0, 0, 0x0A],
        vlan: None,
        ethertype: 0,
    };
    let net = RoceNet::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 0xC000 | (qpn as u16 & 0xFF));
    let mut bth = BthRepr::new(Opcode(opcode), qpn & 0xFF_FFFF, psn & 0xFF_FFFF);
    bth.ack_req = ack_req;
    let ext = ExtHeaders {
        reth: reth.map(|(va, rkey, dma_len)| RethRepr { va, rkey, dma_len }),
        imm_dt: imm.map(|imm| ImmDtRepr { imm }),
        ..Default::default()
    };
    let fr = FrameRepr::new_roce(eth, net, bth, ext, payload.to_vec());
    let bytes = fr.emit();
    let parsed = FrameRepr::parse(&bytes).expect("proto parses its own frame");
    let (hdr, pay) = RoceHeader::from_frame(&parsed).expect("RoCE frame");
    assert_eq!(pay, payload);
    Pkt {
        hdr,
        payload: pay.to_vec(),
        frame_len: bytes.len(),
    }
}

/// The packets of one RDMA WRITE message of `data` to `va`/`rkey` starting at `psn0`, cut by
/// `pmtu` the way a requester does (ONLY, or FIRST MIDDLE* LAST; AckReq on the last packet,
/// ImmDt on the last if `imm`). Returns the packets and the next PSN.
pub fn write_msg(
    qpn: u32,
    psn0: u32,
    va: u64,
    rkey: u32,
    data: &[u8],
    pmtu: usize,
    imm: Option<u32>,
) -> (Vec<Pkt>, u32) {
    let len = data.len() as u32;
    let mut out = vec![];
    let mut psn = psn0;
    if data.len() <= pmtu {
        let op = if imm.is_some() { OP_ONLY_IMM } else { OP_ONLY };
        out.push(pkt(op, qpn, psn, true, Some((va, rkey, len)), imm, data));
        return (out, psn_add(psn, 1));
    }
    let chunks: Vec<&[u8]> = data.chunks(pmtu).collect();
    for (i, c) in chunks.iter().enumerate() {
        let p = if i == 0 {
            pkt(OP_FIRST, qpn, psn, false, Some((va, rkey, len)), None, c)
        } else if i + 1 == chunks.len() {
            let op = if imm.is_some() { OP_LAST_IMM } else { OP_LAST };
            pkt(op, qpn, psn, true, None, imm, c)
        } else {
            pkt(OP_MIDDLE, qpn, psn, false, None, None, c)
        };
        out.push(p);
        psn = psn_add(psn, 1);
    }
    (out, psn)
}

/// The MR table as the software rule sees it: entries by index, with their valid bit.
#[derive(Clone, Debug, Default)]
pub struct MrModel {
    pub entries: HashMap<u32, (MrEntry, bool)>,
}

impl MrModel {
    /// Register (or re-register) an MR; returns its key.
    pub fn reg(
        &mut self,
        index: u32,
        key8: u8,
        pd: u32,
        access: AccessFlags,
        va: u64,
        length: u64,
        dma: u64,
    ) -> u32 {
        let e = MrEntry {
            key: make_key(index, key8),
            pd,
            access,
            va,
            length,
            dma,
        };
        e.validate().expect("valid MR");
        self.entries.insert(index, (e, true));
        e.key
    }
    pub fn invalidate(&mut self, index: u32) {
        self.entries.get_mut(&index).expect("MR").1 = false;
    }
    /// The lookup port's verdict: `Ok(addr)` (0 for a zero length) or the violation.
    pub fn lookup(
        &self,
        key: u32,
        pd: u32,
        need: AccessFlags,
        va: u64,
        len: u64,
    ) -> Result<u64, MrViolation> {
        if len == 0 {
            return Ok(0);
        }
        match self.entries.get(&(key >> 8)) {
            None => Err(MrViolation::Invalid),
            Some((e, valid)) => e.check(*valid, key, pd, need, va, len),
        }
    }
}

fn code_of(v: MrViolation) -> u64 {
    match v {
        MrViolation::Invalid => 1,
        MrViolation::KeyMismatch => 2,
        MrViolation::PdMismatch => 3,
        MrViolation::Access => 4,
        MrViolation::Range => 5,
    }
}

/// A response the model expects, with the number of DMA writes (in issue order) that must have
/// completed before it may leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpAck {
    pub ack: AckOut,
    pub dma_before: usize,
}

/// A QP-to-ERR request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QerrOut {
    pub qpn: u32,
    pub status: u8,
    pub vendor: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub executed: u32,
    pub duplicate: u32,
    pub psn_err: u32,
    pub access_err: u32,
    pub invalid: u32,
    pub unsupported: u32,
    pub qp_drop: u32,
    pub dma_error: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct MState {
    epsn: u32,
    msn: u32,
    nak_sent: bool,
    /// the PSN of the latest packet out of sequence
    oos_psn: u32,
    in_write: bool,
    err: bool,
    va: u64,
    rkey: u32,
    resid: u32,
    /// executed packets since the QP's last ACK (ACK coalescing)
    nack: u32,
}

/// The software responder (the reference the block is compared with).
#[derive(Clone, Debug, Default)]
pub struct Model {
    qp: HashMap<u32, MState>,
    pub acks: Vec<ExpAck>,
    pub qerrs: Vec<QerrOut>,
    pub cnt: Counters,
    /// Expected host memory.
    pub mem: Vec<u8>,
    /// DMA writes the block must issue so far.
    pub dma_writes: usize,
    /// `cfg_ack_every` (`CFG_ACK_COALESCE`): at least one ACK every this many executed
    /// packets of a QP; 0 = only AckReq packets and message ends.
    pub ack_every: u32,
}

impl Model {
    pub fn load(&mut self, qpn: u32, rq_psn: u32) {
        self.qp.insert(
            qpn,
            MState {
                epsn: rq_psn & 0xFF_FFFF,
                ..Default::default()
            },
        );
    }

    /// ePSN of a QP (tests use it to check recovery).
    pub fn epsn(&self, qpn: u32) -> u32 {
        self.qp.get(&qpn).map(|s| s.epsn).unwrap_or(0)
    }

    fn respond(&mut self, qpn: u32, dest: u32, psn: u32, syndrome: u8, msn: u32) {
        self.acks.push(ExpAck {
            ack: AckOut {
                qpn,
                dest_qpn: dest,
                psn: psn & 0xFF_FFFF,
                syndrome,
                msn: msn & 0xFF_FFFF,
            },
            dma_before: self.dma_writes,
        });
    }

    /// An atomic (COMPARE_SWAP, FETCH_ADD) in sequence that the responder refuses before
    /// touching memory: NAK invalid request (inside a message, with payload, VA not 8-byte
    /// aligned) or NAK remote access (QP without REMOTE_ATOMIC), QP to ERR. Executing one needs
    /// the NIC's DMA read port, which this harness does not have (the model refuses to guess).
    fn process_refused_atomic(&mut self, p: &Pkt, qps: &[QpCfg]) {
        let qpn = p.hdr.dest_qp.to_u64() as u32;
        if qpn >= NQP || !qps[qpn as usize].state.receives() {
            self.cnt.qp_drop += 1;
            return;
        }
        let cfg = qps[qpn as usize];
        let mut st = self.qp.get(&qpn).copied().unwrap_or_default();
        if st.err {
            self.cnt.qp_drop += 1;
            return;
        }
        let psn = p.psn();
        assert_eq!(
            psn_diff(psn, st.epsn),
            0,
            "the model takes atomics in sequence only"
        );
        let (syn, status) = if st.in_write || !p.payload.is_empty() || p.hdr.va.to_u64() % 8 != 0 {
            self.cnt.invalid += 1;
            (NAK_INV, QERR_STATUS_INVALID)
        } else {
            assert!(
                !cfg.access.contains(AccessFlags::REMOTE_ATOMIC),
                "executing an atomic needs a DMA read port (not in this harness)"
            );
            self.cnt.access_err += 1;
            (NAK_ACC, QERR_STATUS_ACCESS)
        };
        st.err = true;
        self.qp.insert(qpn, st);
        self.respond(qpn, cfg.dest_qpn, psn, syn, st.msn);
        self.qerrs.push(QerrOut {
            qpn,
            status: status as u8,
            vendor: 0,
        });
    }

    /// Process one packet with the QP and MR configuration of now; `dma_errors` holds the
    /// indexes of the DMA writes whose completion reports an error.
    pub fn process(&mut self, p: &Pkt, qps: &[QpCfg], mrs: &MrModel, dma_errors: &HashSet<usize>) {
        let h = &p.hdr;
        let op = p.opcode();
        // SEND 0..=5 is executed too, but this harness has no receive queue (no RQ doorbell,
        // no DMA read): a SEND that would open a receive WQE, and a WRITE_WITH_IMMEDIATE's end,
        // get an RNR NAK
        let send = op <= 5;
        let (first, mid, last, only) = (
            op == OP_FIRST || op == 0,
            op == OP_MIDDLE || op == 1,
            op == OP_LAST || op == OP_LAST_IMM || op == 2 || op == 3,
            op == OP_ONLY || op == OP_ONLY_IMM || op == 4 || op == 5,
        );
        if op == 0x13 || op == 0x14 {
            self.process_refused_atomic(p, qps);
            return;
        }
        if !(first || mid || last || only) {
            self.cnt.unsupported += 1;
            return;
        }
        let has_reth = !send && (first || only);
        let end = last || only;
        let qpn = h.dest_qp.to_u64() as u32;
        if qpn >= NQP || !qps[qpn as usize].state.receives() {
            self.cnt.qp_drop += 1;
            return;
        }
        let cfg = qps[qpn as usize];
        let mut st = self.qp.get(&qpn).copied().unwrap_or_default();
        if st.err {
            self.cnt.qp_drop += 1;
            return;
        }
        let psn = p.psn();
        let d = psn_diff(psn, st.epsn);
        if d < 0 {
            self.cnt.duplicate += 1;
            self.respond(qpn, cfg.dest_qpn, psn, ACK, st.msn);
            return;
        }
        if d > 0 {
            // NAKed once, and again whenever the requester has gone back (a PSN not after the
            // previous one out of sequence)
            self.cnt.psn_err += 1;
            if !st.nak_sent || psn_diff(psn, st.oos_psn) <= 0 {
                st.nak_sent = true;
                self.respond(qpn, cfg.dest_qpn, st.epsn, NAK_PSN, st.msn);
            }
            st.oos_psn = psn;
            self.qp.insert(qpn, st);
            return;
        }
        st.nak_sent = false;
        let plen = p.payload.len() as u32;
        let pmtu = cfg.pmtu;
        let seq_ok = if st.in_write {
            !send && (mid || last)
        } else {
            first || only
        };
        let len_ok = if first || mid {
            plen == pmtu
        } else if last {
            (1..=pmtu).contains(&plen)
        } else {
            plen <= pmtu
        };
        let dma_len = h.dma_len.to_u64() as u32;
        let dlen_ok = !has_reth || dma_len <= 1 << 31;
        let fail = |m: &mut Model, st: &mut MState, syn: u8, status: u64| {
            st.err = true;
            m.qp.insert(qpn, *st);
            m.respond(qpn, cfg.dest_qpn, psn, syn, st.msn);
            m.qerrs.push(QerrOut {
                qpn,
                status: status as u8,
                vendor: 0,
            });
        };
        if !(seq_ok && len_ok && dlen_ok) {
            self.cnt.invalid += 1;
            fail(self, &mut st, NAK_INV, QERR_STATUS_INVALID);
            return;
        }
        if send {
            // first/only: the RQ is empty here (mid/last never pass the sequence check)
            self.respond(qpn, cfg.dest_qpn, psn, RNR, st.msn);
            self.qp.insert(qpn, st);
            return;
        }
        let resid = if has_reth { dma_len } else { st.resid };
        let resid_ok = if end { plen == resid } else { plen < resid };
        if !cfg.access.contains(AccessFlags::REMOTE_WRITE) || !resid_ok {
            self.cnt.access_err += 1;
            fail(self, &mut st, NAK_ACC, QERR_STATUS_ACCESS);
            return;
        }
        let (key, va, mlen) = if has_reth {
            (h.rkey.to_u64() as u32, h.va.to_u64(), dma_len as u64)
        } else {
            (st.rkey, st.va, plen as u64)
        };
        let addr = match mrs.lookup(key, cfg.pd, AccessFlags::REMOTE_WRITE, va, mlen) {
            Ok(a) => a,
            Err(_) => {
                self.cnt.access_err += 1;
                fail(self, &mut st, NAK_ACC, QERR_STATUS_ACCESS);
                return;
            }
        };
        if op == OP_LAST_IMM || op == OP_ONLY_IMM {
            // the MR check passed, but no receive WQE: RNR NAK, nothing executed
            self.respond(qpn, cfg.dest_qpn, psn, RNR, st.msn);
            self.qp.insert(qpn, st);
            return;
        }
        // execute
        let mut dma_err = false;
        if plen > 0 {
            let idx = self.dma_writes;
            self.dma_writes += 1;
            dma_err = dma_errors.contains(&idx);
            if !dma_err {
                let o = (addr - MEM_BASE) as usize;
                self.mem[o..o + plen as usize].copy_from_slice(&p.payload);
            }
        }
        st.epsn = psn_add(psn, 1);
        if end {
            st.msn = (st.msn + 1) & 0xFF_FFFF;
        }
        st.in_write = !end;
        st.va = va.wrapping_add(plen as u64);
        st.rkey = key;
        st.resid = resid - plen;
        st.nack += 1;
        let emit = end || h.ack_req || (self.ack_every != 0 && st.nack >= self.ack_every);
        if emit || self.ack_every == 0 {
            st.nack = 0;
        }
        self.qp.insert(qpn, st);
        self.cnt.executed += 1;
        if dma_err {
            self.cnt.dma_error += 1;
            self.respond(qpn, cfg.dest_qpn, psn, NAK_OP, st.msn);
            self.qerrs.push(QerrOut {
                qpn,
                status: QERR_STATUS_DMA as u8,
                vendor: QERR_VENDOR_DMA as u8,
            });
        } else if emit {
            self.respond(qpn, cfg.dest_qpn, psn, ACK, st.msn);
        }
    }
}

/// One MR lookup the block made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MrLookup {
    pub key: u32,
    pub pd: u32,
    pub need: u8,
    pub va: u64,
    pub len: u64,
    pub remote: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct MrResp {
    ok: bool,
    code: u64,
    zero: bool,
    addr: u64,
    tag: u64,
}

/// The DMA write slave.
#[derive(Default)]
struct DmaSlave {
    /// Accepted requests waiting for their data: (addr, len).
    reqs: VecDeque<(u64, usize)>,
    /// Complete data frames waiting for their request.
    frames: VecDeque<Vec<u8>>,
    cur: Vec<u8>,
    /// Scheduled completions: (cycle, tag, error).
    done_q: VecDeque<(u64, u8, bool)>,
    last_due: u64,
    tags: VecDeque<u8>,
    /// Writes matched with their data so far.
    writes: usize,
    issued: usize,
    completed: usize,
}

/// The whole bench.
pub struct Env {
    pub b: Box<dyn Stepper<Uut>>,
    pub rng: Rng,
    pub k: Knobs,
    pub qps: Vec<QpCfg>,
    pub mrs: MrModel,
    pub model: Model,
    /// Host memory as the DMA slave wrote it.
    pub mem: Vec<u8>,
    /// Indexes (issue order) of DMA writes that complete with `done_error` (and write nothing).
    pub dma_errors: HashSet<usize>,
    pkts: VecDeque<Pkt>,
    hdr_on: bool,
    feeder: Feeder,
    loads: VecDeque<u32>,
    qpc_pipe: VecDeque<Option<u32>>,
    mr_pipe: VecDeque<Option<MrResp>>,
    dma: DmaSlave,
    pub acks: Vec<AckOut>,
    pub qerrs: Vec<QerrOut>,
    pub lookups: Vec<MrLookup>,
    /// Drive `mr_drain_req`.
    pub drain_req: bool,
    /// `mr_drain_ack` was seen while `drain_req`.
    pub drain_acked: bool,
    /// The TX path is paused (`pause_flip`).
    paused: bool,
    /// `ack_parked` pulses seen.
    pub parked: u64,
    pub headers_taken: usize,
    /// The cycle each header was taken in, in order.
    pub header_cycles: Vec<u64>,
}

impl Env {
    /// The rust-hdl simulation.
    pub fn new(seed: u64, k: Knobs) -> Env {
        Self::with(
            seed,
            k,
            Box::new(Bench::new(Uut::default(), |u: &mut Uut| &mut u.clock)),
        )
    }

    /// The rust-hdl simulation and the emitted Verilog (Verilator) in lock step, every
    /// output compared at every settle (needs verilator, make, g++).
    pub fn new_cosim(seed: u64, k: Knobs) -> Env {
        Self::with(
            seed,
            k,
            Box::new(CoSim::new(Uut::default(), |u: &mut Uut| &mut u.clock)),
        )
    }

    fn with(seed: u64, k: Knobs, b: Box<dyn Stepper<Uut>>) -> Env {
        let mut rng = Rng::new(seed);
        let mem = rng.bytes(MEM_SIZE);
        Env {
            b,
            rng,
            k,
            qps: vec![QpCfg::default(); NQP as usize],
            mrs: MrModel::default(),
            model: Model {
                mem: mem.clone(),
                // the NIC's reset value of CFG_ACK_COALESCE
                ack_every: 64,
                ..Default::default()
            },
            mem,
            dma_errors: HashSet::new(),
            pkts: VecDeque::new(),
            hdr_on: false,
            feeder: Feeder::new(k.pay_gap),
            loads: VecDeque::new(),
            qpc_pipe: VecDeque::from(vec![None; 2]),
            mr_pipe: VecDeque::from(vec![None; ferroce_hdl::mr::LATENCY as usize]),
            dma: DmaSlave::default(),
            acks: vec![],
            qerrs: vec![],
            lookups: vec![],
            drain_req: false,
            drain_acked: false,
            paused: false,
            parked: 0,
            headers_taken: 0,
            header_cycles: vec![],
        }
    }

    /// Program a QP's context and load its responder state (MODIFY into RTR).
    pub fn setup_qp(&mut self, qpn: u32, cfg: QpCfg) {
        self.qps[qpn as usize] = cfg;
        self.loads.push_back(qpn);
        self.model.load(qpn, cfg.rq_psn);
        let t0 = self.b.cycles();
        while !self.loads.is_empty() {
            self.step();
            assert!(self.b.cycles() - t0 < 10_000, "load never taken");
        }
    }

    /// Queue a request; the model processes it with the configuration of now (change QPs and
    /// MRs only after [`Env::settle_all`]).
    pub fn send(&mut self, p: Pkt) {
        self.model
            .process(&p, &self.qps, &self.mrs, &self.dma_errors);
        self.pkts.push_back(p);
    }

    pub fn send_all(&mut self, ps: Vec<Pkt>) {
        for p in ps {
            self.send(p);
        }
    }

    /// Whether every queued request was taken and every expected output came out.
    fn quiet(&self) -> bool {
        self.pkts.is_empty()
            && !self.hdr_on
            && self.feeder.is_empty()
            && self.loads.is_empty()
            && self.acks.len() >= self.model.acks.len()
            && self.qerrs.len() >= self.model.qerrs.len()
            && self.dma.done_q.is_empty()
            && self.dma.reqs.is_empty()
            && self.dma.frames.is_empty()
    }

    /// Run until everything queued is processed and answered, plus 40 cycles in which nothing
    /// more may come out; then compare everything with the model.
    pub fn settle_all(&mut self) {
        let t0 = self.b.cycles();
        while !self.quiet() {
            self.step();
            assert!(
                self.b.cycles() - t0 < 400_000,
                "timeout: {} requests left, {} of {} responses, {} of {} qerr",
                self.pkts.len(),
                self.acks.len(),
                self.model.acks.len(),
                self.qerrs.len(),
                self.model.qerrs.len()
            );
        }
        for _ in 0..40 {
            self.step();
        }
        self.check();
    }

    /// Compare the block with the model (responses, QP errors, counters, memory).
    pub fn check(&mut self) {
        let exp: Vec<AckOut> = self.model.acks.iter().map(|e| e.ack).collect();
        if self.acks != exp {
            let n = self
                .acks
                .iter()
                .zip(&exp)
                .take_while(|(a, b)| a == b)
                .count();
            panic!(
                "responses differ at #{n} (got {}, expected {}):\n got {:x?}\n exp {:x?}",
                self.acks.len(),
                exp.len(),
                self.acks.get(n),
                exp.get(n)
            );
        }
        assert_eq!(self.qerrs, self.model.qerrs, "QP-to-ERR requests");
        assert_eq!(self.counters(), self.model.cnt, "counters");
        assert_eq!(
            self.dma.writes, self.model.dma_writes,
            "number of DMA writes"
        );
        if self.mem != self.model.mem {
            let i = (0..MEM_SIZE)
                .find(|&i| self.mem[i] != self.model.mem[i])
                .unwrap();
            panic!(
                "host memory differs first at IOVA {:#x}: got {:02x}, expected {:02x}",
                MEM_BASE + i as u64,
                self.mem[i],
                self.model.mem[i]
            );
        }
    }

    pub fn counters(&mut self) -> Counters {
        let u = self.b.uut();
        let c = |s: &Signal<Out, Bits<32>>| s.val().to_u64() as u32;
        Counters {
            executed: c(&u.cnt_executed),
            duplicate: c(&u.cnt_duplicate),
            psn_err: c(&u.cnt_psn_err),
            access_err: c(&u.cnt_access_err),
            invalid: c(&u.cnt_invalid),
            unsupported: c(&u.cnt_unsupported),
            qp_drop: c(&u.cnt_qp_drop),
            dma_error: c(&u.cnt_dma_error),
        }
    }

    /// DMA writes issued by the block so far.
    pub fn dma_issued(&self) -> usize {
        self.dma.issued
    }
    pub fn dma_completed(&self) -> usize {
        self.dma.completed
    }

    pub fn cycles(&self) -> u64 {
        self.b.cycles()
    }

    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// One clock cycle: drive every input, settle, sample every handshake, rising edge.
    pub fn step(&mut self) {
        let now = self.b.cycles();
        let k = self.k;
        // ---------------- drive ----------------
        {
            let rng = &mut self.rng;
            let u = self.b.uut();
            // request header: the next one as soon as the previous one was taken (the RX
            // parser's descriptor queue runs ahead of its payload queue); the payloads follow
            // in header order
            if !self.hdr_on && !self.pkts.is_empty() && !rng.percent(k.hdr_gap) {
                self.hdr_on = true;
                u.hdr.next = self.pkts.front().unwrap().hdr.into();
            }
            u.hdr_valid.next = self.hdr_on;
            self.feeder.drive(&mut u.pay, rng);
            // load
            u.load_valid.next = !self.loads.is_empty();
            u.load_qpn.next = (*self.loads.front().unwrap_or(&0) as u64).into();
            // QP context: the answer to the read of 2 cycles ago, garbage otherwise
            let q = self.qpc_pipe.pop_front().unwrap();
            let cfg = match q {
                Some(qpn) => self.qps[qpn as usize],
                None => QpCfg {
                    state: QpState::from_u8(rng.below(7) as u8).unwrap(),
                    access: AccessFlags(rng.below(16) as u32),
                    pd: rng.next_u64() as u32 & 0xFF_FFFF,
                    dest_qpn: rng.next_u64() as u32 & 0xFF_FFFF,
                    pmtu: 256 << rng.below(5),
                    rq_psn: rng.next_u64() as u32 & 0xFF_FFFF,
                },
            };
            u.qpc.state.next = (cfg.state as u64).into();
            u.qpc.access.next = (cfg.access.0 as u64 & 0xF).into();
            u.qpc.pd.next = (cfg.pd as u64).into();
            u.qpc.dest_qpn.next = (cfg.dest_qpn as u64).into();
            u.qpc.pmtu.next = (Pmtu::from_bytes(cfg.pmtu).unwrap().ibv_enum() as u64).into();
            u.qpc.rq_psn.next = (cfg.rq_psn as u64).into();
            // MR table
            u.mr_req_ready.next = !rng.percent(k.mr_stall);
            let r = self.mr_pipe.pop_front().unwrap();
            let rr = r.unwrap_or_default();
            u.mr_resp_valid.next = r.is_some();
            u.mr_resp_ok.next = rr.ok;
            u.mr_resp_code.next = rr.code.into();
            u.mr_resp_zero.next = rr.zero;
            u.mr_resp_addr.next = rr.addr.into();
            u.mr_resp_remote.next = r.is_some();
            u.mr_resp_tag.next = rr.tag.into();
            u.mr_drain_req.next = self.drain_req;
            u.cfg_ack_every.next = (self.model.ack_every as u64).into();
            // DMA slave
            u.dma_wr.req_ready.next = !rng.percent(k.dma_req_stall);
            let want = !k.data_needs_req || self.dma.reqs.len() > self.dma.frames.len();
            u.dma_wr.data.ready.next = want && !rng.percent(k.dma_data_stall);
            let done = self.dma.done_q.front().copied().filter(|d| d.0 <= now);
            u.dma_wr.done_valid.next = done.is_some();
            u.dma_wr.done_tag.next = (done.map(|d| d.1).unwrap_or(0) as u64).into();
            u.dma_wr.done_error.next = done.map(|d| d.2).unwrap_or(false);
            // responses
            if rng.percent(k.pause_flip) {
                self.paused = !self.paused;
            }
            u.ack_park.next = self.paused;
            u.ack_ready.next = !self.paused && !rng.percent(k.ack_stall);
            u.qerr_ready.next = !rng.percent(k.qerr_stall);
        }
        self.b.settle();
        // ---------------- sample ----------------
        let u = self.b.uut();
        if u.hdr_valid.val() && u.hdr_ready.val() {
            assert!(!self.drain_req, "a header was taken during an MR drain");
            let p = self.pkts.pop_front().unwrap();
            if !p.payload.is_empty() {
                self.feeder.queue.extend(frame_to_beats(&p.payload, K));
            }
            self.hdr_on = false;
            self.headers_taken += 1;
            self.header_cycles.push(now);
        }
        let pay_fired = u.pay.fires();
        if u.load_valid.val() && u.load_ready.val() {
            self.loads.pop_front();
        }
        self.qpc_pipe.push_back(
            u.qpc
                .rd_valid
                .val()
                .then(|| u.qpc.rd_qpn.val().to_u64() as u32),
        );
        let mut resp = None;
        if u.mr_req_valid.val() && u.mr_req_ready.val() {
            let l = MrLookup {
                key: u.mr_req_key.val().to_u64() as u32,
                pd: u.mr_req_pd.val().to_u64() as u32,
                need: u.mr_req_need.val().to_u64() as u8,
                va: u.mr_req_va.val().to_u64(),
                len: u.mr_req_len.val().to_u64(),
                remote: u.mr_req_remote.val(),
            };
            assert_eq!(l.need, 2, "a WRITE needs REMOTE_WRITE");
            assert!(l.remote, "a responder lookup is remote");
            let v = self
                .mrs
                .lookup(l.key, l.pd, AccessFlags(l.need as u32), l.va, l.len);
            resp = Some(match v {
                Ok(a) => MrResp {
                    ok: true,
                    code: 0,
                    zero: l.len == 0,
                    addr: a,
                    tag: u.mr_req_tag.val().to_u64(),
                },
                Err(e) => MrResp {
                    ok: false,
                    code: code_of(e),
                    zero: false,
                    addr: 0,
                    tag: u.mr_req_tag.val().to_u64(),
                },
            });
            self.lookups.push(l);
        }
        self.mr_pipe.push_back(resp);
        if u.dma_wr.req_valid.val() && u.dma_wr.req_ready.val() {
            let len = u.dma_wr.req_len.val().to_u64() as usize;
            assert!(len > 0, "zero-length DMA write");
            self.dma
                .reqs
                .push_back((u.dma_wr.req_addr.val().to_u64(), len));
            self.dma
                .tags
                .push_back(u.dma_wr.req_tag.val().to_u64() as u8);
            self.dma.issued += 1;
        }
        if u.dma_wr.data.fires() {
            let beat = u.dma_wr.data.peek().unwrap();
            if !beat.last {
                assert_eq!(beat.bytes.len(), K, "a non-final beat must be full");
            }
            self.dma.cur.extend_from_slice(&beat.bytes);
            if beat.last {
                let f = std::mem::take(&mut self.dma.cur);
                self.dma.frames.push_back(f);
            }
        }
        if u.ack_parked.val() {
            self.parked += 1;
        }
        if u.ack_valid.val() && u.ack_ready.val() {
            let a = AckOut {
                qpn: u.ack_qpn.val().to_u64() as u32,
                dest_qpn: u.ack_dest_qpn.val().to_u64() as u32,
                psn: u.ack_psn.val().to_u64() as u32,
                syndrome: u.ack_syndrome.val().to_u64() as u8,
                msn: u.ack_msn.val().to_u64() as u32,
            };
            // ACK means data placed: every write up to this response's packet has completed
            let i = self.acks.len();
            let exp = self
                .model
                .acks
                .get(i)
                .unwrap_or_else(|| panic!("unexpected response #{i}: {a:x?}"));
            assert!(
                self.dma.completed >= exp.dma_before,
                "response #{i} {a:x?} left after {} completions, needs {}",
                self.dma.completed,
                exp.dma_before
            );
            self.acks.push(a);
        }
        if u.qerr_valid.val() && u.qerr_ready.val() {
            self.qerrs.push(QerrOut {
                qpn: u.qerr_qpn.val().to_u64() as u32,
                status: u.qerr_status.val().to_u64() as u8,
                vendor: u.qerr_vendor.val().to_u64() as u8,
            });
        }
        if self.drain_req && u.mr_drain_ack.val() {
            assert_eq!(
                self.dma.issued, self.dma.completed,
                "drain acknowledged with DMA writes in flight"
            );
            self.drain_acked = true;
        }
        if let Some(d) = self.dma.done_q.front().copied() {
            if d.0 <= now {
                self.dma.done_q.pop_front();
                self.dma.completed += 1;
            }
        }
        self.b.tick();
        self.feeder.after_edge(pay_fired);
        // the shell performs a write once it has the request and all its data
        while !self.dma.reqs.is_empty() && !self.dma.frames.is_empty() {
            let (addr, len) = self.dma.reqs.pop_front().unwrap();
            let tag = self.dma.tags.pop_front().unwrap();
            let data = self.dma.frames.pop_front().unwrap();
            assert_eq!(data.len(), len, "DMA write data length != req_len");
            let idx = self.dma.writes;
            self.dma.writes += 1;
            let err = self.dma_errors.contains(&idx);
            if !err {
                assert!(
                    addr >= MEM_BASE && addr + len as u64 <= MEM_BASE + MEM_SIZE as u64,
                    "DMA write outside host memory: {addr:#x} + {len}"
                );
                let o = (addr - MEM_BASE) as usize;
                self.mem[o..o + len].copy_from_slice(&data);
            }
            let due = (now + 1 + self.rng.below(k.done_delay + 1)).max(self.dma.last_due + 1);
            self.dma.last_due = due;
            self.dma.done_q.push_back((due, tag, err));
        }
    }
}

/// An MR region inside host memory: IOVA `MEM_BASE + off`, VA `va`, `len` bytes.
pub fn mr_at(
    mrs: &mut MrModel,
    index: u32,
    key8: u8,
    pd: u32,
    access: AccessFlags,
    va: u64,
    off: u64,
    len: u64,
) -> u32 {
    assert!(off + len <= MEM_SIZE as u64);
    mrs.reg(index, key8, pd, access, va, len, MEM_BASE + off)
}

/// Rights of a typical remotely writable MR.
pub fn rw() -> AccessFlags {
    AccessFlags(AccessFlags::LOCAL_WRITE.0 | AccessFlags::REMOTE_WRITE.0)
}
