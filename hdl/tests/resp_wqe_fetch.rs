//! The responder's receive-queue reads (`ferroce_hdl::resp::RqWqeFetch`): its block bench
//! (random ring geometries, WQEs written with `ferroce_proto`'s `RecvWqe`, some with a wrong
//! owner bit or too many SGEs, random DMA back-pressure, response gaps and read errors; every
//! request and every decoded field checked against the reference model; the SGEs read with
//! their WQE answered from the buffer without a read, unless the command is for another ring;
//! a failed WQE read made again for the header and SGE 0 alone), the same traffic
//! co-simulated with the emitted Verilog in lock step (Verilator), and Yosys `synth_ecp5` of the
//! block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::resp::wqe_fetch::{RqWqeFetchModel, WqeFetchResult};
use ferroce_hdl::resp::RqWqeFetch;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_proto::host::ring::{Ring, RingKind};
use ferroce_proto::host::wqe::{recv_field, recv_sge_capacity, RecvWqe, Sge};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::HashMap;

type Uut = RqWqeFetch;

/// Counts of what the traffic exercised.
#[derive(Debug, Default)]
struct Seen {
    wqe_reads: u64,
    sge_reads: u64,
    sge_buffered: u64,
    retries: u64,
    other_ring: u64,
    owner_bad: u64,
    nsge_bad: u64,
    errors: u64,
    stalls: u64,
}

/// A host memory of 8-byte words (sparse).
#[derive(Default)]
struct Memory(HashMap<u64, u8>);

impl Memory {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.0.insert(addr + i as u64, *b);
        }
    }
    fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| self.0.get(&(addr + i)).copied().unwrap_or(0))
            .collect()
    }
}

/// How a read through the block starts and ends.
#[derive(Copy, Clone, PartialEq, Eq)]
enum ReadKind {
    /// a command (a WQE read, or an SGE read if `sge`), `done` with its last beat
    Command,
    /// a WQE read that fails: no `done`, the block reads again on its own
    FailingWqe,
    /// that read again (no command), `done` with its last beat
    Retry,
    /// the next posted WQE read ahead (no command, no `done`, `busy` throughout)
    Ahead,
}

/// One read through the block: the command held until taken (random DMA `req_ready`), the
/// request checked, the response beats given with random gaps (and, if `error`, one beat
/// flagged), `done` checked to come exactly with the last beat (unless the read is a failing
/// WQE read, which the block makes again: [`ReadKind`]).
#[allow(clippy::too_many_arguments)]
fn read<S: Stepper<Uut>>(
    s: &mut S,
    rng: &mut Rng,
    mem: &Memory,
    want_addr: u64,
    want_len: usize,
    sge: bool,
    error: bool,
    kind: ReadKind,
    seen: &mut Seen,
) {
    let tag = rng.below(256);
    let by_command = kind == ReadKind::Command || kind == ReadKind::FailingWqe;
    if by_command {
        s.uut().cmd_valid.next = true;
        s.uut().cmd_sge.next = sge;
        s.uut().cmd_tag.next = tag.into();
    }
    loop {
        let ready = rng.below(3) != 0;
        s.uut().dma_rd.req_ready.next = ready;
        s.uut().dma_rd.rsp.valid.next = false;
        s.settle();
        assert!(
            s.uut().dma_rd.req_valid.val(),
            "a command (or the block) makes the request"
        );
        assert_eq!(
            s.uut().busy.val(),
            kind == ReadKind::Ahead,
            "busy: the read ahead"
        );
        if by_command {
            assert_eq!(s.uut().cmd_ready.val(), ready);
        }
        assert!(!s.uut().done.val());
        if ready {
            assert_eq!(s.uut().dma_rd.req_addr.val().to_u64(), want_addr, "address");
            assert_eq!(s.uut().dma_rd.req_len.val().to_u64() as usize, want_len);
            if by_command {
                assert_eq!(s.uut().dma_rd.req_tag.val().to_u64(), tag);
            }
            s.tick();
            break;
        }
        seen.stalls += 1;
        s.tick();
    }
    // the command's inputs may change now: the block holds the read
    s.uut().cmd_valid.next = false;
    s.uut().cmd_sge.next = rng.below(2) == 0;
    if kind == ReadKind::Ahead {
        // a WQE command offered meanwhile must wait
        s.uut().cmd_valid.next = rng.below(2) == 0;
        s.uut().cmd_sge.next = false;
    }
    s.uut().dma_rd.req_ready.next = rng.below(2) == 0;
    let bytes = mem.read(want_addr, want_len);
    let beats = want_len / 8;
    let bad_beat = if error {
        rng.range(0, beats - 1)
    } else {
        beats
    };
    for (i, chunk) in bytes.chunks(8).enumerate() {
        // gaps
        while rng.below(3) == 0 {
            s.uut().dma_rd.rsp.valid.next = false;
            s.settle();
            assert!(s.uut().dma_rd.rsp.ready.val(), "beats are taken at once");
            assert!(!s.uut().dma_rd.req_valid.val(), "one read at a time");
            assert!(!s.uut().done.val());
            assert_eq!(s.uut().busy.val(), kind == ReadKind::Ahead);
            if kind == ReadKind::Ahead {
                // a WQE command waits for the read ahead's beats
                assert!(!s.uut().cmd_ready.val(), "no command during the read ahead");
            }
            s.tick();
        }
        let word = u64::from_be_bytes(chunk.try_into().unwrap());
        s.uut().dma_rd.rsp.valid.next = true;
        s.uut().dma_rd.rsp.data.next = word.into();
        s.uut().dma_rd.rsp.keep.next = 0xFFu64.into();
        s.uut().dma_rd.rsp.last.next = i + 1 == beats;
        s.uut().dma_rd.rsp_error.next = i == bad_beat;
        s.uut().dma_rd.rsp_tag.next = tag.into();
        s.settle();
        assert!(s.uut().dma_rd.rsp.ready.val());
        assert!(kind != ReadKind::Ahead || !s.uut().cmd_ready.val());
        assert_eq!(
            s.uut().done.val(),
            i + 1 == beats && by_command_done(kind),
            "done with the last beat"
        );
        s.tick();
    }
    s.uut().dma_rd.rsp.valid.next = false;
    s.uut().dma_rd.rsp_error.next = false;
    s.uut().cmd_valid.next = false;
    s.settle();
    assert!(!s.uut().done.val(), "one pulse per read");
}

fn by_command_done(kind: ReadKind) -> bool {
    kind == ReadKind::Command || kind == ReadKind::Retry
}

/// A command a buffer answers (an SGE the SGE buffer holds, or with `!sge` the WQE read
/// ahead): taken at once with no DMA request, `done` the next cycle. After a WQE from the read
/// ahead the block may request the next read ahead in the `done` cycle: `req_ready` is held low
/// there, and the caller serves that read.
fn answered<S: Stepper<Uut>>(s: &mut S, rng: &mut Rng, sge: bool) {
    s.uut().cmd_valid.next = true;
    s.uut().cmd_sge.next = sge;
    s.uut().dma_rd.req_ready.next = rng.below(2) == 0;
    s.uut().dma_rd.rsp.valid.next = false;
    s.settle();
    assert!(
        s.uut().cmd_ready.val(),
        "a buffered command is taken at once"
    );
    assert!(
        !s.uut().dma_rd.req_valid.val(),
        "a buffered command is not read"
    );
    assert!(!s.uut().done.val());
    s.tick();
    s.uut().cmd_valid.next = false;
    s.uut().cmd_sge.next = rng.below(2) == 0;
    s.uut().dma_rd.req_ready.next = false;
    s.settle();
    assert!(s.uut().done.val(), "done the cycle after the command");
    assert!(!sge || !s.uut().dma_rd.req_valid.val());
    s.tick();
    s.settle();
    assert!(!s.uut().done.val(), "one pulse per command");
}

fn result(u: &Uut) -> WqeFetchResult {
    WqeFetchResult {
        rd_error: u.rd_error.val(),
        owner_ok: u.owner_ok.val(),
        nsge_ok: u.nsge_ok.val(),
        wqe_nsge: u.wqe_nsge.val().to_u64() as u8,
        wqe_len: u.wqe_len.val().to_u64() as u32,
        wr_id: u.wr_id.val().to_u64(),
        sge: Sge {
            addr: u.sge_addr.val().to_u64(),
            length: u.sge_len.val().to_u64() as u32,
            lkey: u.sge_lkey.val().to_u64() as u32,
        },
    }
}

/// `n` WQEs: each read, checked, then each of its further SGEs read and checked.
fn run<S: Stepper<Uut>>(s: &mut S, seed: u64, n: usize) -> Seen {
    let mut rng = Rng::new(seed);
    let mut seen = Seen::default();
    let mut mem = Memory::default();
    for _ in 0..n {
        // a ring: 2..2^6 entries, slots of 32..256 bytes, at a 4 KiB-aligned base
        let log2e = rng.range(1, 6) as u8;
        let log2s = rng.range(5, 8) as u8;
        let ring = Ring::new(RingKind::Recv, log2e, log2s).unwrap();
        let base = (rng.next_u64() & 0xFFFF_FFFF_F000) | 0x1000_0000_0000;
        let ci = rng.below(1 << 16) as u32;
        let cap = recv_sge_capacity(log2s);
        let nsge = rng.range(0, cap.min(7));
        let sges: Vec<Sge> = (0..nsge)
            .map(|_| Sge {
                addr: rng.next_u64(),
                length: rng.next_u64() as u32 >> rng.range(0, 31),
                lkey: rng.next_u64() as u32,
            })
            .collect();
        let owner = match rng.below(8) {
            0 => !ring.owner(ci),
            _ => ring.owner(ci),
        };
        let wqe = RecvWqe::new(owner, rng.next_u64(), sges);
        let mut buf = vec![0u8; ring.stride()];
        wqe.emit(&mut buf).unwrap();
        if rng.below(8) == 0 {
            // more SGEs than the slot holds
            buf[recv_field::NUM_SGE] = rng.range(cap + 1, 255) as u8;
        }
        let slot = base + ring.slot_offset(ci) as u64;
        mem.write(slot, &buf);
        let model = RqWqeFetchModel {
            base,
            log2_entries: log2e,
            log2_stride: log2s,
        };
        let u = s.uut();
        u.rq_base.next = base.into();
        u.rq_log2_entries.next = (log2e as u64).into();
        u.rq_log2_stride.next = (log2s as u64).into();
        u.rq_ci.next = (ci as u64).into();
        // only this WQE posted: nothing is read ahead (`run_ahead` covers that)
        u.rq_pi.next = (ci.wrapping_add(1) as u64 & 0xFFFF).into();
        u.sge_index.next = (rng.below(256)).into();
        let error = rng.below(10) == 0;
        let (addr, len) = model.request(ci, None);
        let kind = if error {
            ReadKind::FailingWqe
        } else {
            ReadKind::Command
        };
        read(s, &mut rng, &mem, addr, len, false, error, kind, &mut seen);
        let mut want = model.decode(&mem.read(addr, len), None, ci, error);
        // the buffer holds the SGEs only after a read that did not fail
        let mut buffer_ok = !error;
        if error {
            // read again: the header and SGE 0 alone (which may fail too)
            let error = rng.below(4) == 0;
            let (addr, len) = model.retry_request(ci);
            read(
                s,
                &mut rng,
                &mem,
                addr,
                len,
                false,
                error,
                ReadKind::Retry,
                &mut seen,
            );
            want = model.decode(&mem.read(addr, len), None, ci, error);
            seen.retries += 1;
            buffer_ok = false;
        }
        assert_eq!(result(s.uut()), want, "WQE at {ci} of {log2e}/{log2s}");
        seen.wqe_reads += 1;
        seen.owner_bad += u64::from(!want.owner_ok);
        seen.nsge_bad += u64::from(!want.nsge_ok);
        seen.errors += u64::from(error);
        // its later SGEs (as far as the slot holds them)
        let mut prev = want;
        for k in 1..nsge {
            s.uut().sge_index.next = (k as u64).into();
            if rng.below(8) == 0 {
                // a command for another ring (another QP's receive queue, whose slot holds
                // zeros here): not the buffer's WQE, so it is read
                let other = RqWqeFetchModel {
                    base: base ^ 0x10_0000,
                    ..model
                };
                s.uut().rq_base.next = other.base.into();
                let error = rng.below(10) == 0;
                let (addr, len) = other.request(ci, Some(k as u8));
                read(
                    s,
                    &mut rng,
                    &mem,
                    addr,
                    len,
                    true,
                    error,
                    ReadKind::Command,
                    &mut seen,
                );
                let want = other.decode(&mem.read(addr, len), Some(&prev), ci, error);
                assert_eq!(result(s.uut()), want, "SGE {k} of another ring");
                s.uut().rq_base.next = base.into();
                prev = want;
                seen.other_ring += 1;
                seen.errors += u64::from(error);
            }
            let (addr, len) = model.request(ci, Some(k as u8));
            let want = if buffer_ok && model.sge_buffered(k as u8) {
                answered(s, &mut rng, true);
                seen.sge_buffered += 1;
                model.decode(&mem.read(addr, len), Some(&prev), ci, false)
            } else {
                let error = rng.below(10) == 0;
                read(
                    s,
                    &mut rng,
                    &mem,
                    addr,
                    len,
                    true,
                    error,
                    ReadKind::Command,
                    &mut seen,
                );
                seen.sge_reads += 1;
                seen.errors += u64::from(error);
                model.decode(&mem.read(addr, len), Some(&prev), ci, error)
            };
            assert_eq!(result(s.uut()), want, "SGE {k} of the WQE at {ci}");
            assert_eq!(want.sge, wqe.sges[k], "the model reads the SGE written");
            prev = want;
        }
        // a few idle cycles: nothing requested, nothing done
        for _ in 0..rng.range(0, 2) {
            s.settle();
            assert!(!s.uut().dma_rd.req_valid.val() && !s.uut().done.val());
            s.tick();
        }
    }
    seen
}

/// Counts of what the read-ahead traffic exercised.
#[derive(Debug, Default)]
struct SeenAhead {
    /// WQEs read by a command, WQEs answered from the read ahead
    reads: u64,
    ahead_hits: u64,
    /// reads ahead made, failed, dropped by a flush while their request waited
    aheads: u64,
    ahead_errors: u64,
    killed: u64,
    /// flushes between WQEs, other rings' WQE reads between WQEs
    flushes: u64,
    other_ring: u64,
    sge_buffered: u64,
}

/// Receive queues consumed in order, several WQEs posted at once (`rq_pi` ahead of `rq_ci`):
/// after each WQE taken whole the block reads the next posted one ahead (a read it makes on
/// its own, checked against the model's address and length), and a command for that WQE is
/// answered from it with no read; a flush, another ring's WQE read or a failed read ahead in
/// between drops it (the command then reads); a WQE command offered during the read ahead
/// waits. Every decoded field is checked against the reference model.
fn run_ahead<S: Stepper<Uut>>(s: &mut S, seed: u64, rings: usize) -> SeenAhead {
    let mut rng = Rng::new(seed);
    let mut seen = Seen::default();
    let mut sa = SeenAhead::default();
    let mut mem = Memory::default();
    for _ in 0..rings {
        let log2e = rng.range(1, 6) as u8;
        let log2s = rng.range(5, 8) as u8;
        let ring = Ring::new(RingKind::Recv, log2e, log2s).unwrap();
        let base = (rng.next_u64() & 0xFFFF_FFFF_F000) | 0x1000_0000_0000;
        let ci0 = rng.below(1 << 16) as u32;
        let cap = recv_sge_capacity(log2s);
        // 1 ..= entries WQEs posted, written before the doorbell that posts them
        let posted = rng.range(1, 1 << log2e) as u32;
        let pi = (ci0 + posted) & 0xFFFF;
        let mut wqes = Vec::new();
        for j in 0..posted {
            let i = (ci0 + j) & 0xFFFF;
            let nsge = rng.range(0, cap.min(7));
            let sges: Vec<Sge> = (0..nsge)
                .map(|_| Sge {
                    addr: rng.next_u64(),
                    length: rng.next_u64() as u32,
                    lkey: rng.next_u64() as u32,
                })
                .collect();
            let owner = match rng.below(16) {
                0 => !ring.owner(i),
                _ => ring.owner(i),
            };
            let wqe = RecvWqe::new(owner, rng.next_u64(), sges);
            let mut buf = vec![0u8; ring.stride()];
            wqe.emit(&mut buf).unwrap();
            mem.write(base + ring.slot_offset(i) as u64, &buf);
            wqes.push(wqe);
        }
        let model = RqWqeFetchModel {
            base,
            log2_entries: log2e,
            log2_stride: log2s,
        };
        let u = s.uut();
        u.rq_base.next = base.into();
        u.rq_log2_entries.next = (log2e as u64).into();
        u.rq_log2_stride.next = (log2s as u64).into();
        u.rq_pi.next = (pi as u64).into();
        // the block holds the read ahead of the next WQE, whole and good
        let mut held = false;
        for (j, wqe) in wqes.iter().enumerate() {
            let i = (ci0 + j as u32) & 0xFFFF;
            s.uut().rq_ci.next = (i as u64).into();
            if rng.below(8) == 0 {
                // a QP load between two WQEs
                s.uut().flush.next = true;
                s.settle();
                assert!(!s.uut().done.val() && !s.uut().dma_rd.req_valid.val());
                s.tick();
                s.uut().flush.next = false;
                held = false;
                sa.flushes += 1;
            }
            if rng.below(10) == 0 {
                // another QP's receive WQE (its slot holds zeros here), nothing posted after it
                let other = RqWqeFetchModel {
                    base: base ^ 0x10_0000,
                    ..model
                };
                s.uut().rq_base.next = other.base.into();
                s.uut().rq_pi.next = (((i + 1) & 0xFFFF) as u64).into();
                let (addr, len) = other.request(i, None);
                read(
                    s,
                    &mut rng,
                    &mem,
                    addr,
                    len,
                    false,
                    false,
                    ReadKind::Command,
                    &mut seen,
                );
                let want = other.decode(&mem.read(addr, len), None, i, false);
                assert_eq!(result(s.uut()), want, "another ring's WQE");
                s.uut().rq_base.next = base.into();
                s.uut().rq_pi.next = (pi as u64).into();
                held = false;
                sa.other_ring += 1;
            }
            let (addr, len) = model.request(i, None);
            let (want, whole) = if held {
                answered(s, &mut rng, false);
                sa.ahead_hits += 1;
                (model.decode(&mem.read(addr, len), None, i, false), true)
            } else {
                let error = rng.below(10) == 0;
                let kind = if error {
                    ReadKind::FailingWqe
                } else {
                    ReadKind::Command
                };
                read(s, &mut rng, &mem, addr, len, false, error, kind, &mut seen);
                sa.reads += 1;
                if error {
                    let error = rng.below(4) == 0;
                    let (addr, len) = model.retry_request(i);
                    read(
                        s,
                        &mut rng,
                        &mem,
                        addr,
                        len,
                        false,
                        error,
                        ReadKind::Retry,
                        &mut seen,
                    );
                    (model.decode(&mem.read(addr, len), None, i, error), false)
                } else {
                    (model.decode(&mem.read(addr, len), None, i, false), true)
                }
            };
            assert_eq!(result(s.uut()), want, "WQE at {i} of {log2e}/{log2s}");
            held = false;
            if whole && RqWqeFetchModel::reads_ahead(i, pi) {
                // the next WQE read ahead, on the block's own request
                if rng.below(8) == 0 {
                    // a QP load while that request waits: the read is made, not kept
                    s.uut().dma_rd.req_ready.next = false;
                    s.uut().flush.next = true;
                    s.settle();
                    assert!(s.uut().dma_rd.req_valid.val() && s.uut().busy.val());
                    s.tick();
                    s.uut().flush.next = false;
                    sa.killed += 1;
                } else {
                    held = true;
                }
                let error = rng.below(10) == 0;
                let (a_addr, a_len) = model.request((i + 1) & 0xFFFF, None);
                read(
                    s,
                    &mut rng,
                    &mem,
                    a_addr,
                    a_len,
                    false,
                    error,
                    ReadKind::Ahead,
                    &mut seen,
                );
                held &= !error;
                sa.aheads += 1;
                sa.ahead_errors += u64::from(error);
                assert_eq!(result(s.uut()), want, "the read ahead leaves the fields");
            } else {
                // nothing posted after it (or not taken whole): no read
                s.settle();
                assert!(!s.uut().dma_rd.req_valid.val() && !s.uut().busy.val());
            }
            // its later SGEs, from the SGE buffer as far as it holds them
            let mut prev = want;
            let nsge = if want.nsge_ok { wqe.sges.len() } else { 0 };
            for k in 1..nsge {
                s.uut().sge_index.next = (k as u64).into();
                let (addr, len) = model.request(i, Some(k as u8));
                let want = if whole && model.sge_buffered(k as u8) {
                    answered(s, &mut rng, true);
                    sa.sge_buffered += 1;
                    model.decode(&mem.read(addr, len), Some(&prev), i, false)
                } else {
                    read(
                        s,
                        &mut rng,
                        &mem,
                        addr,
                        len,
                        true,
                        false,
                        ReadKind::Command,
                        &mut seen,
                    );
                    model.decode(&mem.read(addr, len), Some(&prev), i, false)
                };
                assert_eq!(result(s.uut()), want, "SGE {k} of the WQE at {i}");
                prev = want;
            }
        }
    }
    sa
}

fn check_ahead(sa: &SeenAhead) {
    assert!(
        sa.reads > 50
            && sa.ahead_hits > 50
            && sa.aheads > 100
            && sa.ahead_errors > 5
            && sa.killed > 5
            && sa.flushes > 5
            && sa.other_ring > 5
            && sa.sge_buffered > 50,
        "{sa:?}"
    );
}

fn check(seen: &Seen) {
    assert!(
        seen.wqe_reads > 100
            && seen.sge_reads > 50
            && seen.sge_buffered > 50
            && seen.retries > 5
            && seen.other_ring > 5
            && seen.owner_bad > 5
            && seen.nsge_bad > 5,
        "{seen:?}"
    );
    assert!(seen.errors > 10 && seen.stalls > 50, "{seen:?}");
}

#[test]
fn wqe_fetch_block_bench_random() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let seen = run(&mut b, 31, 1500);
    check(&seen);
    eprintln!("{seen:?}, {} cycles", b.cycles());
}

#[test]
fn wqe_fetch_block_bench_read_ahead() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let sa = run_ahead(&mut b, 33, 600);
    check_ahead(&sa);
    eprintln!("{sa:?}, {} cycles", b.cycles());
}

#[test]
fn cosim_wqe_fetch_random() {
    if !require_cosim_tools() {
        return;
    }
    let seen = run_cosim(
        "receive WQE fetch",
        Uut::default(),
        |u| &mut u.clock,
        |cs| (run(cs, 32, 400), run_ahead(cs, 34, 200)),
    );
    check(&seen.0);
    check_ahead(&seen.1);
    eprintln!("{seen:?}");
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_wqe_fetch() {
    let m = "ferroce_rq_wqe_fetch";
    let v = ferroce_hdl::verilog::block_verilog(&mut Uut::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wqe_fetch_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the four beats in flip-flops (less the WQE header bits nothing reads, ~250), the SGE
    // buffer's eight beats (512) and its key (ring base and index, 80); the read ahead's ten
    // beats (640), its key (80) and its request (address, length, tag: 88): no RAM
    assert!(
        st.count("DP16KD") == 0 && (1550..1750).contains(&st.count("TRELLIS_FF")),
        "{}",
        st.line(ECP5_CELLS)
    );
}
