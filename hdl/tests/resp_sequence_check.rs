//! The responder's sequence check (`ferroce_hdl::resp::RespSequenceCheck`): its block bench
//! (random request headers and QP states, biased towards the boundaries of every rule, each
//! cycle's outputs checked against the reference model written from the protocol rules), a few
//! directed cases from IBTA Vol 1 9.7.4.1 (PSN wrap) and 9.7.5 (opcode sequence), the same
//! stimulus co-simulated with the emitted Verilog in lock step (Verilator), and Yosys
//! `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::resp::sequence_check::{
    RespSequenceCheckModel, SeqCheckInput, SeqOpClass, SeqVerdict,
};
use ferroce_hdl::resp::RespSequenceCheck;
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_proto::host::qp::{AccessFlags, QpState};
use ferroce_proto::psn::psn_add;
use ferroce_proto::wire::Opcode;
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::HashMap;

type Uut = RespSequenceCheck<8>;
const MODEL: RespSequenceCheckModel = RespSequenceCheckModel { qa: 8 };

/// Drive one check's inputs.
fn drive(u: &mut Uut, x: &SeqCheckInput) {
    u.opcode.next = (x.opcode as u64).into();
    u.qpn.next = (x.qpn as u64).into();
    u.psn.next = (x.psn as u64).into();
    u.plen.next = (x.plen as u64).into();
    u.dma_len.next = (x.dma_len as u64).into();
    u.va_low.next = (x.va & 7).into();
    u.qp_state.next = (x.qp_state as u64).into();
    u.qp_access.next = (x.qp_access as u64).into();
    u.qp_pmtu.next = (x.qp_pmtu as u64).into();
    u.epsn.next = (x.epsn as u64).into();
    u.nak_sent.next = x.nak_sent;
    u.oos_psn.next = (x.oos_psn as u64).into();
    u.in_write.next = x.in_write;
    u.in_send.next = x.in_send;
    u.qp_err.next = x.qp_err;
    u.cursor_resid.next = (x.cursor_resid as u64).into();
}

/// The block's verdict: exactly one `v_*` output may be high.
fn verdict(u: &Uut) -> SeqVerdict {
    let v = [
        (u.v_unsupported.val(), SeqVerdict::Unsupported),
        (u.v_qp_drop.val(), SeqVerdict::QpDrop),
        (u.v_dup_atomic.val(), SeqVerdict::DuplicateAtomic),
        (u.v_dup_read.val(), SeqVerdict::DuplicateRead),
        (u.v_dup.val(), SeqVerdict::Duplicate),
        (u.v_psn_nak.val(), SeqVerdict::PsnNak),
        (u.v_psn_drop.val(), SeqVerdict::PsnDrop),
        (u.v_invalid.val(), SeqVerdict::InvalidRequest),
        (u.v_access.val(), SeqVerdict::AccessError),
        (u.v_execute.val(), SeqVerdict::Execute),
    ];
    let high: Vec<SeqVerdict> = v.iter().filter(|(b, _)| *b).map(|(_, s)| *s).collect();
    assert_eq!(high.len(), 1, "one verdict at a time: {high:?}");
    high[0]
}

fn class(u: &Uut) -> SeqOpClass {
    SeqOpClass {
        is_send: u.is_send.val(),
        is_write: u.is_write.val(),
        is_read: u.is_read.val(),
        is_atomic: u.is_atomic.val(),
        opens: u.opens.val(),
        ends: u.ends.val(),
        has_reth: u.has_reth.val(),
        has_imm: u.has_imm.val(),
        send_opens: u.send_opens.val(),
        send_ends: u.send_ends.val(),
        write_imm_end: u.write_imm_end.val(),
    }
}

/// Check the block's outputs for `x` against the model (after the caller settled it).
fn compare(u: &Uut, x: &SeqCheckInput) -> SeqVerdict {
    let want = MODEL.verdict(x);
    let got = verdict(u);
    assert_eq!(got, want, "verdict for {x:?}");
    // the class outputs of an opcode the responder does not execute are don't-cares except
    // that none of the four kinds may be claimed
    match RespSequenceCheckModel::class(x.opcode) {
        Some(c) => assert_eq!(class(u), c, "opcode class of {:#x}", x.opcode),
        None => {
            let c = class(u);
            assert!(
                !(c.is_send || c.is_write || c.is_read || c.is_atomic),
                "opcode {:#x} claimed as {c:?}",
                x.opcode
            );
        }
    }
    assert_eq!(
        u.pmtu_bytes.val().to_u64() as u32,
        RespSequenceCheckModel::pmtu_bytes(x.qp_pmtu),
        "PMTU {}",
        x.qp_pmtu
    );
    want
}

/// A random check, biased towards the boundaries of every rule.
fn random_input(rng: &mut Rng) -> SeqCheckInput {
    let ops: [u8; 17] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 19, 20, 0x11, 0x16];
    let opcode = if rng.below(20) == 0 {
        rng.next_u64() as u8
    } else {
        ops[rng.range(0, ops.len() - 1)]
    };
    let epsn = (rng.next_u64() as u32) & 0xFF_FFFF;
    let delta = match rng.below(10) {
        0..=4 => 0,
        5 => rng.range(1, 8) as u32,
        6 => 0u32.wrapping_sub(rng.range(1, 8) as u32),
        7 => (1 << 23) - 1 + rng.range(0, 2) as u32,
        _ => rng.next_u64() as u32,
    };
    let psn = psn_add(epsn, delta);
    let qp_pmtu = if rng.below(10) == 0 {
        rng.range(0, 7) as u8
    } else {
        rng.range(1, 5) as u8
    };
    let pmtu = RespSequenceCheckModel::pmtu_bytes(qp_pmtu);
    let plen = match rng.below(8) {
        0 => 0,
        1 => 1,
        2 | 3 => pmtu,
        4 => pmtu - 1,
        5 => pmtu + 1,
        _ => rng.below(8192) as u32,
    };
    let near = |rng: &mut Rng, v: u32| -> u32 {
        match rng.below(6) {
            0 => v,
            1 => v.wrapping_add(1),
            2 => v.wrapping_sub(1),
            3 => 1 << 31,
            4 => (1 << 31) + 1,
            _ => rng.next_u64() as u32 >> rng.range(0, 31),
        }
    };
    let dma_len = near(rng, plen);
    let cursor_resid = near(rng, plen);
    let (in_write, in_send) = match rng.below(3) {
        0 => (false, false),
        1 => (true, false),
        _ => (false, true),
    };
    SeqCheckInput {
        opcode,
        qpn: if rng.below(16) == 0 {
            rng.range(256, 0xFF_FFFF) as u32
        } else {
            rng.below(256) as u32
        },
        psn,
        plen,
        dma_len,
        va: if rng.below(2) == 0 {
            rng.next_u64() & !7
        } else {
            rng.next_u64()
        },
        qp_state: if rng.below(8) == 0 {
            rng.range(0, 7) as u8
        } else {
            rng.range(2, 4) as u8
        },
        qp_access: if rng.below(4) == 0 {
            rng.below(16) as u32
        } else {
            AccessFlags::REMOTE_ANY.0
        },
        qp_pmtu,
        epsn,
        nak_sent: rng.below(3) == 0,
        // the previous PSN out of sequence: near this one (before, equal, after), or anywhere
        oos_psn: match rng.below(4) {
            0 => psn_add(psn, rng.range(0, 4) as u32),
            1 => psn_add(psn, 0u32.wrapping_sub(rng.range(1, 4) as u32)),
            2 => psn_add(psn, 1 << 23),
            _ => (rng.next_u64() as u32) & 0xFF_FFFF,
        },
        in_write,
        in_send,
        qp_err: rng.below(16) == 0,
        cursor_resid,
    }
}

/// `n` random checks, one per cycle: every cycle's outputs against the model. Returns how
/// often each verdict came out.
fn run<S: Stepper<Uut>>(s: &mut S, seed: u64, n: usize) -> HashMap<SeqVerdict, u64> {
    let mut rng = Rng::new(seed);
    let mut seen = HashMap::new();
    for _ in 0..n {
        let x = random_input(&mut rng);
        drive(s.uut(), &x);
        s.settle();
        *seen.entry(compare(s.uut(), &x)).or_default() += 1;
        s.tick();
    }
    seen
}

fn check_coverage(seen: &HashMap<SeqVerdict, u64>, at_least: u64) {
    for v in [
        SeqVerdict::Unsupported,
        SeqVerdict::QpDrop,
        SeqVerdict::DuplicateAtomic,
        SeqVerdict::DuplicateRead,
        SeqVerdict::Duplicate,
        SeqVerdict::PsnNak,
        SeqVerdict::PsnDrop,
        SeqVerdict::InvalidRequest,
        SeqVerdict::AccessError,
        SeqVerdict::Execute,
    ] {
        let n = seen.get(&v).copied().unwrap_or(0);
        assert!(n >= at_least, "{v:?} came out {n} times: {seen:?}");
    }
}

#[test]
fn sequence_check_block_bench_random() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let seen = run(&mut b, 21, 40_000);
    check_coverage(&seen, 100);
    eprintln!("{seen:?}");
}

/// Directed cases, each verdict stated from the rules (not from the model).
#[test]
fn sequence_check_directed() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    // an in-sequence WRITE ONLY of 100 bytes at PMTU 1024 on an RTS QP with REMOTE_WRITE
    let base = SeqCheckInput {
        opcode: Opcode::RC_RDMA_WRITE_ONLY.0,
        qpn: 17,
        psn: 0xFF_FFFF,
        plen: 100,
        dma_len: 100,
        va: 0x1000,
        qp_state: QpState::Rts as u8,
        qp_access: AccessFlags::REMOTE_WRITE.0,
        qp_pmtu: 3,
        epsn: 0xFF_FFFF,
        ..Default::default()
    };
    let cases: Vec<(&str, SeqCheckInput, SeqVerdict)> = vec![
        ("in sequence", base, SeqVerdict::Execute),
        // 9.7.4.1: the PSN space wraps: 0 follows 0xFFFFFF (ahead), 0xFFFFFE precedes it
        (
            "ahead across the wrap",
            SeqCheckInput { psn: 0, ..base },
            SeqVerdict::PsnNak,
        ),
        // after the NAK, a PSN after the previous one out of sequence is dropped (the
        // requester goes on); one not after it means the requester went back (the missing
        // PSN lost again, or a probe after a lost NAK): NAKed again (across the wrap here)
        (
            "ahead after the NAK, after the previous one out of sequence",
            SeqCheckInput {
                psn: 1,
                nak_sent: true,
                oos_psn: 0,
                ..base
            },
            SeqVerdict::PsnDrop,
        ),
        (
            "ahead after the NAK, before the previous one out of sequence",
            SeqCheckInput {
                psn: 0,
                nak_sent: true,
                oos_psn: 5,
                ..base
            },
            SeqVerdict::PsnNak,
        ),
        (
            "ahead after the NAK, the previous one out of sequence again",
            SeqCheckInput {
                psn: 5,
                nak_sent: true,
                oos_psn: 5,
                ..base
            },
            SeqVerdict::PsnNak,
        ),
        (
            "behind",
            SeqCheckInput {
                psn: 0xFF_FFFE,
                ..base
            },
            SeqVerdict::Duplicate,
        ),
        (
            "2^23 behind is still a duplicate",
            SeqCheckInput {
                psn: 0x7F_FFFF,
                ..base
            },
            SeqVerdict::Duplicate,
        ),
        (
            "2^23 - 1 ahead",
            SeqCheckInput {
                psn: 0x7F_FFFE,
                ..base
            },
            SeqVerdict::PsnNak,
        ),
        // 9.7.5: inside a WRITE only its MIDDLE/LAST; outside one no MIDDLE/LAST
        (
            "WRITE ONLY inside a WRITE",
            SeqCheckInput {
                in_write: true,
                ..base
            },
            SeqVerdict::InvalidRequest,
        ),
        (
            "SEND LAST inside a WRITE",
            SeqCheckInput {
                opcode: Opcode::RC_SEND_LAST.0,
                in_write: true,
                ..base
            },
            SeqVerdict::InvalidRequest,
        ),
        (
            "WRITE LAST outside a message",
            SeqCheckInput {
                opcode: Opcode::RC_RDMA_WRITE_LAST.0,
                cursor_resid: 100,
                ..base
            },
            SeqVerdict::InvalidRequest,
        ),
        (
            "WRITE LAST ending the message",
            SeqCheckInput {
                opcode: Opcode::RC_RDMA_WRITE_LAST.0,
                in_write: true,
                cursor_resid: 100,
                ..base
            },
            SeqVerdict::Execute,
        ),
        (
            "WRITE LAST short of the message's end",
            SeqCheckInput {
                opcode: Opcode::RC_RDMA_WRITE_LAST.0,
                in_write: true,
                cursor_resid: 101,
                ..base
            },
            SeqVerdict::AccessError,
        ),
        (
            "SEND MIDDLE of a PMTU inside a SEND",
            SeqCheckInput {
                opcode: Opcode::RC_SEND_MIDDLE.0,
                in_send: true,
                plen: 1024,
                ..base
            },
            SeqVerdict::Execute,
        ),
        (
            "SEND MIDDLE short of a PMTU",
            SeqCheckInput {
                opcode: Opcode::RC_SEND_MIDDLE.0,
                in_send: true,
                plen: 1023,
                ..base
            },
            SeqVerdict::InvalidRequest,
        ),
        (
            "WRITE without REMOTE_WRITE",
            SeqCheckInput {
                qp_access: AccessFlags::REMOTE_READ.0,
                ..base
            },
            SeqVerdict::AccessError,
        ),
        (
            "RETH length above 2^31",
            SeqCheckInput {
                dma_len: (1 << 31) + 1,
                ..base
            },
            SeqVerdict::InvalidRequest,
        ),
        (
            "QP in INIT",
            SeqCheckInput {
                qp_state: QpState::Init as u8,
                ..base
            },
            SeqVerdict::QpDrop,
        ),
        (
            "QPN out of the table",
            SeqCheckInput { qpn: 256, ..base },
            SeqVerdict::QpDrop,
        ),
        (
            "unaligned atomic",
            SeqCheckInput {
                opcode: Opcode::RC_FETCH_ADD.0,
                qp_access: AccessFlags::REMOTE_ATOMIC.0,
                plen: 0,
                va: 0x1004,
                ..base
            },
            SeqVerdict::InvalidRequest,
        ),
        (
            "duplicate atomic",
            SeqCheckInput {
                opcode: Opcode::RC_COMPARE_SWAP.0,
                psn: 0xFF_FFF0,
                plen: 0,
                ..base
            },
            SeqVerdict::DuplicateAtomic,
        ),
        (
            "duplicate READ",
            SeqCheckInput {
                opcode: Opcode::RC_RDMA_READ_REQUEST.0,
                psn: 0xFF_FFF0,
                plen: 0,
                ..base
            },
            SeqVerdict::DuplicateRead,
        ),
        (
            "an ACKNOWLEDGE",
            SeqCheckInput {
                opcode: Opcode::RC_ACKNOWLEDGE.0,
                ..base
            },
            SeqVerdict::Unsupported,
        ),
    ];
    for (what, x, want) in cases {
        drive(b.uut(), &x);
        b.settle();
        assert_eq!(verdict(b.uut()), want, "{what}");
        assert_eq!(compare(b.uut(), &x), want, "{what}: the model");
        b.tick();
    }
}

#[test]
fn cosim_sequence_check_random() {
    if !require_cosim_tools() {
        return;
    }
    let seen = run_cosim(
        "sequence check",
        Uut::default(),
        |u| &mut u.clock,
        |cs| run(cs, 22, 8000),
    );
    check_coverage(&seen, 10);
    eprintln!("{seen:?}");
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_sequence_check() {
    let m = "ferroce_resp_sequence_check";
    let v = ferroce_hdl::verilog::block_verilog(&mut Uut::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seqchk_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // combinational: no flip-flop, no RAM
    assert!(
        st.count("TRELLIS_FF") == 0 && st.count("DP16KD") == 0 && st.count("LUT4") > 50,
        "{}",
        st.line(ECP5_CELLS)
    );
}
