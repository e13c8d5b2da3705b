//! The RC engines' data mover (`ferroce_hdl::dma::PayloadMover`): its block bench (random
//! payloads one after the other, each cut into random place and discard jobs, atomic word jobs
//! between packets; random gaps on the payload stream and on the jobs, random back-pressure on
//! the DMA request and data; every request and every data byte checked against the reference
//! model `mover_model`), the same traffic co-simulated with the emitted Verilog in lock step
//! (Verilator), its throughput, and Yosys `synth_ecp5` of the block.
//!
//! Needs verilator, make, g++ and yosys (the tool policy of `ferroce_testkit::require_tool`).
use ferroce_hdl::cosim::run_cosim;
use ferroce_hdl::dma::mover::{mover_model, MoverModelJob, MoverWrite};
use ferroce_hdl::dma::{MoverJob, PayloadMover};
use ferroce_hdl::stream::beats_to_frames;
use ferroce_hdl::testbench::{Bench, Collector, Feeder, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};
use std::collections::VecDeque;

type Uut = PayloadMover;

/// Random packets and the jobs that cover them.
fn traffic(rng: &mut Rng, n: usize, max_len: usize) -> (Vec<Vec<u8>>, Vec<MoverModelJob>) {
    let mut packets = vec![];
    let mut jobs = vec![];
    for _ in 0..n {
        if rng.below(6) == 0 {
            jobs.push(MoverModelJob::Word {
                addr: rng.next_u64(),
                tag: rng.below(256) as u8,
                word: rng.next_u64(),
            });
        }
        let len = rng.range(1, max_len);
        packets.push(rng.bytes(len));
        // 1..4 pieces; a discard anywhere (a receive error drops the rest: then it is last)
        let mut at = 0;
        while at < len {
            let n = if rng.below(3) == 0 {
                len - at
            } else {
                rng.range(1, len - at)
            };
            at += n;
            let end = at == len;
            if end && rng.below(5) == 0 {
                jobs.push(MoverModelJob::Discard { len: n, end });
            } else if rng.below(12) == 0 {
                jobs.push(MoverModelJob::Discard { len: n, end });
            } else {
                jobs.push(MoverModelJob::Place {
                    addr: rng.next_u64(),
                    len: n,
                    tag: rng.below(256) as u8,
                    end,
                });
            }
        }
    }
    (packets, jobs)
}

fn job_bits(j: &MoverModelJob) -> MoverJob {
    let mut b = MoverJob::default();
    match *j {
        MoverModelJob::Place {
            addr,
            len,
            tag,
            end,
        } => {
            b.addr = addr.into();
            b.len = (len as u64).into();
            b.tag = (tag as u64).into();
            b.end = end;
        }
        MoverModelJob::Discard { len, end } => {
            b.len = (len as u64).into();
            b.discard = true;
            b.end = end;
        }
        MoverModelJob::Word { addr, tag, word } => {
            b.addr = addr.into();
            // a length the block must ignore for a word job
            b.len = 3u64.into();
            b.tag = (tag as u64).into();
            b.word_job = true;
            b.word = word.into();
        }
    }
    b
}

fn drive_job(u: &mut Uut, j: &MoverJob) {
    u.job_addr.next = j.addr;
    u.job_len.next = j.len;
    u.job_tag.next = j.tag;
    u.job_discard.next = j.discard;
    u.job_word_job.next = j.word_job;
    u.job_word.next = j.word;
    u.job_end.next = j.end;
}

/// Percent chances of idling each cycle: payload gaps, job gaps, request and data stalls.
#[derive(Clone, Copy, Debug)]
struct Shape {
    pay_gap: u32,
    job_gap: u32,
    req_stall: u32,
    data_stall: u32,
}

/// Runs the traffic; checks every write against the model; returns the cycles taken.
fn run<S: Stepper<Uut>>(s: &mut S, seed: u64, n: usize, max_len: usize, sh: Shape) -> u64 {
    let mut rng = Rng::new(seed);
    let (packets, jobs) = traffic(&mut rng, n, max_len);
    let want = mover_model(&jobs, &packets);
    let mut pay = Feeder::new(sh.pay_gap);
    for p in &packets {
        pay.push_frame(p, 8);
    }
    let mut jobq: VecDeque<MoverJob> = jobs.iter().map(job_bits).collect();
    let mut job_on = false;
    let mut data = Collector::new(sh.data_stall);
    let mut reqs: Vec<(u64, usize, u8)> = vec![];
    let (mut busy_cycles, mut held) = (0u64, 0u64);
    let t0 = s.cycles();
    let mut idle = 0;
    while reqs.len() < want.len()
        || data.beats.iter().filter(|b| b.last).count() < want.len()
        || !jobq.is_empty()
        || !pay.is_empty()
        || s.uut().busy.val()
    {
        // jobs: held until taken
        if !job_on {
            job_on = !jobq.is_empty() && !rng.percent(sh.job_gap);
        }
        let u = s.uut();
        u.job_valid.next = job_on;
        drive_job(u, &jobq.front().copied().unwrap_or_default());
        pay.drive(&mut u.pay, &mut rng);
        u.wr_ready.next = !rng.percent(sh.req_stall);
        data.drive_ready(&mut u.data, &mut rng);
        s.settle();
        let u = s.uut();
        assert_eq!(u.job_ready.val(), !u.busy.val());
        let taken = job_on && u.job_ready.val();
        if u.wr_valid.val() && u.wr_ready.val() {
            reqs.push((
                u.wr_addr.val().to_u64(),
                u.wr_len.val().to_u64() as usize,
                u.wr_tag.val().to_u64() as u8,
            ));
        }
        let fired = u.pay.valid.val() && u.pay.ready.val();
        let moved = data.sample(&u.data);
        busy_cycles += u64::from(u.busy.val());
        s.tick();
        pay.after_edge(fired);
        if taken {
            jobq.pop_front();
            job_on = false;
            held += 1;
        }
        idle = if fired || moved || taken { 0 } else { idle + 1 };
        assert!(
            idle < 200,
            "stuck: {} of {} writes requested, {} jobs left",
            reqs.len(),
            want.len(),
            jobq.len()
        );
    }
    // nothing more: no request, no data, every payload byte taken
    for _ in 0..20 {
        s.uut().wr_ready.next = true;
        s.uut().data.ready.next = true;
        s.uut().job_valid.next = false;
        s.settle();
        assert!(!s.uut().wr_valid.val() && !s.uut().data.valid.val());
        s.tick();
    }
    assert!(jobq.is_empty() && pay.is_empty(), "jobs or payload left");
    assert_eq!(held, jobs.len() as u64);
    let got: Vec<MoverWrite> = reqs
        .iter()
        .zip(beats_to_frames(&data.beats))
        .map(|(&(addr, len, tag), bytes)| {
            assert_eq!(len, bytes.len(), "a write's data are its request's length");
            MoverWrite {
                addr,
                tag,
                data: bytes,
            }
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "write {k}");
    }
    assert!(busy_cycles > 0);
    s.cycles() - t0
}

const ROUGH: Shape = Shape {
    pay_gap: 30,
    job_gap: 40,
    req_stall: 50,
    data_stall: 30,
};

#[test]
fn mover_block_bench_random() {
    for (seed, sh) in [
        (1, ROUGH),
        (
            2,
            Shape {
                pay_gap: 0,
                job_gap: 0,
                req_stall: 0,
                data_stall: 0,
            },
        ),
        (
            3,
            Shape {
                pay_gap: 5,
                job_gap: 80,
                req_stall: 90,
                data_stall: 5,
            },
        ),
    ] {
        let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
        let cycles = run(&mut b, seed, 300, 2100, sh);
        eprintln!("seed {seed} {sh:?}: {cycles} cycles");
    }
}

/// Short payloads (1..24 bytes: pieces inside one beat, across two) at full rate.
#[test]
fn mover_short_pieces() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    run(&mut b, 4, 600, 24, ROUGH);
}

/// Whole 1 KiB payloads as single place jobs, no gaps: 128 beats plus the job's 3 cycles.
#[test]
fn mover_takes_a_payload_per_beat() {
    let mut b = Bench::new(Uut::default(), |u| &mut u.clock);
    let mut rng = Rng::new(5);
    let n = 40;
    let mut pay = Feeder::new(0);
    let mut jobq: VecDeque<MoverJob> = VecDeque::new();
    for _ in 0..n {
        pay.push_frame(&rng.bytes(1024), 8);
        jobq.push_back(job_bits(&MoverModelJob::Place {
            addr: rng.next_u64(),
            len: 1024,
            tag: 1,
            end: true,
        }));
    }
    let mut lasts = 0;
    let t0 = b.cycles();
    while lasts < n {
        let u = b.uut();
        u.job_valid.next = !jobq.is_empty();
        drive_job(u, &jobq.front().copied().unwrap_or_default());
        pay.drive(&mut u.pay, &mut rng);
        u.wr_ready.next = true;
        u.data.ready.next = true;
        b.settle();
        let u = b.uut();
        let taken = u.job_valid.val() && u.job_ready.val();
        let fired = u.pay.valid.val() && u.pay.ready.val();
        lasts += usize::from(u.data.valid.val() && u.data.last.val());
        b.tick();
        pay.after_edge(fired);
        if taken {
            jobq.pop_front();
        }
        assert!(b.cycles() - t0 < 200 * n as u64);
    }
    let per = (b.cycles() - t0) as f64 / n as f64;
    eprintln!("{per:.2} cycles per 1 KiB payload");
    assert!(per <= 131.5, "{per} cycles per 1 KiB payload");
}

#[test]
fn cosim_mover_random() {
    if !require_cosim_tools() {
        return;
    }
    run_cosim(
        "payload mover",
        Uut::default(),
        |u| &mut u.clock,
        |cs| run(cs, 6, 120, 600, ROUGH),
    );
}

/// Yosys `synth_ecp5` of the block: no latch, `check -assert` clean; prints the resources.
#[test]
fn yosys_synth_ecp5_mover() {
    let m = "ferroce_payload_mover";
    let v = ferroce_hdl::verilog::block_verilog(&mut Uut::default(), m);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mover_synth");
    let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
        return;
    };
    // the job register (64 + 64 + 16 + 8 + 4), the cutter's hold, the slice: no RAM
    assert!(
        st.count("DP16KD") == 0 && (250..700).contains(&st.count("TRELLIS_FF")),
        "{}",
        st.line(ECP5_CELLS)
    );
}
