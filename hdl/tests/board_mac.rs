//! The board's Ethernet MAC halves (`ferroce_hdl::board::{MacTx, MacRx}`) on their GMII byte
//! interface, against an independent FCS (the `crc32fast` crate: CRC-32 of IEEE 802.3 clause
//! 3.2.9) and the framing rules of IEEE 802.3 clause 3 and 4.4.2, with RoCE frames from the
//! project's frame generator and random bytes:
//!
//! * transmit: every frame on the wire is 7 x 0x55, 0xD5, the frame padded with zeros to 60
//!   octets, its FCS (least significant octet first), then at least 12 idle octets; an
//!   underrun sends `tx_er`;
//! * receive: random preamble lengths and gaps, frames with a good FCS, a corrupted FCS or a
//!   corrupted octet, `rx_er`, runts and overlong frames; exactly the good frames come out,
//!   without FCS and in order, under random back-pressure, and every drop is counted by reason;
//! * loopback: transmit into receive.
//!
//! On the rust-hdl blocks and on the emitted Verilog (Verilator) in lock step; Yosys
//! `synth_ecp5` of both. Needs verilator, make, g++ and yosys.
use ferroce_hdl::board::{MacRx, MacTx};
use ferroce_hdl::cosim::CoSim;
use ferroce_hdl::stream::Beat;
use ferroce_hdl::testbench::{random_roce_frame, Bench, Collector, FrameOpts, Rng, Stepper};
use ferroce_testkit::{require_cosim_tools, synth_ecp5_block, ECP5_CELLS};

fn fcs(frame: &[u8]) -> [u8; 4] {
    crc32fast::hash(frame).to_le_bytes()
}

fn random_frame(rng: &mut Rng, max: usize) -> Vec<u8> {
    if rng.percent(50) {
        let (f, _) = random_roce_frame(
            rng,
            FrameOpts {
                max_payload: 256,
                ..Default::default()
            },
        );
        f
    } else {
        let n = rng.range(14, max);
        rng.bytes(n)
    }
}

/// What the wire must carry for `frame` (preamble, SFD, padded frame, FCS).
fn wire_of(frame: &[u8]) -> Vec<u8> {
    let mut w = vec![0x55; 7];
    w.push(0xD5);
    let mut f = frame.to_vec();
    if f.len() < 60 {
        f.resize(60, 0);
    }
    w.extend(&f);
    w.extend(fcs(&f));
    w
}

fn run_tx<S: Stepper<MacTx>>(b: &mut S, seed: u64, frames: usize) {
    let mut rng = Rng::new(seed);
    let mut queue: std::collections::VecDeque<Vec<u8>> =
        (0..frames).map(|_| random_frame(&mut rng, 300)).collect();
    let want: Vec<Vec<u8>> = queue.iter().map(|f| wire_of(f)).collect();
    let (mut pos, mut got, mut cur) = (0usize, Vec::new(), Vec::new());
    let (mut idle, mut started, mut ev_frames) = (100u64, false, 0usize);
    let mut cycles = 0;
    while got.len() < frames || idle < 20 {
        cycles += 1;
        assert!(cycles < 400_000, "stuck");
        // the frame source: back to back within a frame, random delay between frames
        let offer = match queue.front() {
            Some(f) if started || rng.percent(20) => Some(f[pos]),
            _ => None,
        };
        {
            let u = b.uut();
            u.inp.valid.next = offer.is_some();
            u.inp.data.next = (offer.unwrap_or(0) as u64).into();
            u.inp.keep.next = 1u64.into();
            u.inp.last.next = queue.front().map_or(false, |f| pos + 1 == f.len());
        }
        b.settle();
        let u = b.uut();
        assert!(!u.gmii_tx_er.val() && !u.ev_underrun.val());
        ev_frames += u.ev_frame.val() as usize;
        if u.gmii_tx_en.val() {
            if cur.is_empty() {
                assert!(idle >= 12, "inter-frame gap of {idle} octets");
            }
            cur.push(u.gmii_txd.val().to_u64() as u8);
            idle = 0;
        } else {
            if !cur.is_empty() {
                got.push(std::mem::take(&mut cur));
            }
            idle += 1;
        }
        if offer.is_some() {
            started = true;
            if u.inp.ready.val() {
                pos += 1;
                if pos == queue.front().unwrap().len() {
                    queue.pop_front();
                    pos = 0;
                    started = false;
                }
            }
        }
        b.tick();
    }
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "frame {i} on the wire");
    }
    assert_eq!(ev_frames, frames);
}

#[test]
fn tx_frames_on_the_wire() {
    for seed in 1..4 {
        let mut b = Bench::new(MacTx::default(), |u| &mut u.clock);
        run_tx(&mut b, seed, 30);
    }
}

#[test]
fn tx_underrun_sends_error_octets() {
    let mut b = Bench::new(MacTx::default(), |u| &mut u.clock);
    let (mut er, mut ev) = (0, 0);
    for c in 0..200 {
        // one octet offered, then nothing: the frame has started and cannot pause
        b.uut().inp.valid.next = c < 9 || c == 40;
        b.uut().inp.data.next = 0xA5u64.into();
        b.uut().inp.last.next = c == 40;
        b.settle();
        er += b.uut().gmii_tx_er.val() as u32;
        ev += b.uut().ev_underrun.val() as u32;
        b.tick();
    }
    assert!(
        er > 0 && ev > 0 && er == ev,
        "{er} error octets, {ev} underrun events"
    );
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Good,
    BadFcs,
    BadOctet,
    RxEr,
    Runt,
    Long,
}

/// The GMII octets (dv, er, data) of one frame as a PHY hands them over.
fn gmii_of(rng: &mut Rng, kind: Kind) -> (Vec<(bool, bool, u8)>, Option<Vec<u8>>) {
    let mut f = match kind {
        Kind::Runt => {
            let n = rng.range(1, 59);
            rng.bytes(n)
        }
        Kind::Long => {
            let n = rng.range(1519, 1600);
            rng.bytes(n)
        }
        _ => {
            let mut f = random_frame(rng, 1518);
            if f.len() < 60 {
                f.resize(60, 0);
            }
            f
        }
    };
    let mut wire = f.clone();
    wire.extend(fcs(&f));
    match kind {
        Kind::BadFcs => {
            let i = wire.len() - 1 - rng.range(0, 3);
            wire[i] ^= 1 << rng.range(0, 7);
        }
        Kind::BadOctet => {
            let i = rng.range(0, f.len() - 1);
            wire[i] ^= 1 << rng.range(0, 7);
        }
        _ => {}
    }
    let mut o: Vec<(bool, bool, u8)> = Vec::new();
    for _ in 0..rng.range(0, 7) {
        o.push((true, false, 0x55));
    }
    o.push((true, false, 0xD5));
    let er_at = rng.range(0, wire.len() - 1);
    for (i, &x) in wire.iter().enumerate() {
        o.push((true, kind == Kind::RxEr && i == er_at, x));
    }
    for _ in 0..rng.range(12, 30) {
        o.push((false, false, 0));
    }
    let good = (kind == Kind::Good).then(|| std::mem::take(&mut f));
    (o, good)
}

fn run_rx<S: Stepper<MacRx>>(b: &mut S, seed: u64, frames: usize, stall: u32) {
    let mut rng = Rng::new(seed);
    let kinds = [
        Kind::Good,
        Kind::Good,
        Kind::Good,
        Kind::BadFcs,
        Kind::BadOctet,
        Kind::RxEr,
        Kind::Runt,
        Kind::Long,
    ];
    let mut octets = std::collections::VecDeque::new();
    let mut want = Vec::new();
    let mut count = [0u64; 6];
    for _ in 0..frames {
        let k = kinds[rng.range(0, kinds.len() - 1)];
        count[k as usize] += 1;
        let (o, g) = gmii_of(&mut rng, k);
        octets.extend(o);
        if let Some(g) = g {
            want.push(g);
        }
    }
    let mut col = Collector::new(stall);
    let mut ev = [0u64; 5];
    let mut quiet = 0;
    while !octets.is_empty() || quiet < 3000 {
        let (dv, er, d) = octets.pop_front().unwrap_or((false, false, 0));
        {
            let u = b.uut();
            u.gmii_rx_dv.next = dv;
            u.gmii_rx_er.next = er;
            u.gmii_rxd.next = (d as u64).into();
        }
        col.drive_ready(&mut b.uut().out, &mut rng);
        b.settle();
        let u = b.uut();
        col.sample(&u.out);
        for (i, e) in [
            &u.ev_good,
            &u.ev_bad_fcs,
            &u.ev_bad_len,
            &u.ev_rx_er,
            &u.ev_overflow,
        ]
        .iter()
        .enumerate()
        {
            ev[i] += e.val() as u64;
        }
        quiet = if octets.is_empty() { quiet + 1 } else { 0 };
        b.tick();
    }
    let got = col.frames();
    assert_eq!(got.len(), want.len(), "good frames out");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "frame {i}");
    }
    let u = b.uut();
    assert_eq!(ev[0], count[Kind::Good as usize]);
    assert_eq!(
        ev[1],
        count[Kind::BadFcs as usize] + count[Kind::BadOctet as usize]
    );
    assert_eq!(
        ev[2],
        count[Kind::Runt as usize] + count[Kind::Long as usize]
    );
    assert_eq!(ev[3], count[Kind::RxEr as usize]);
    assert_eq!(ev[4], 0);
    assert_eq!(u.cnt_good.val().to_u64(), ev[0]);
    assert_eq!(u.cnt_bad_fcs.val().to_u64(), ev[1]);
    assert_eq!(u.cnt_bad_len.val().to_u64(), ev[2]);
    assert_eq!(u.cnt_rx_er.val().to_u64(), ev[3]);
    assert!(count.iter().all(|&c| c > 0), "every kind: {count:?}");
    eprintln!(
        "seed {seed}: {frames} frames {count:?}, {} cycles",
        b.cycles()
    );
}

#[test]
fn rx_keeps_good_frames_drops_and_counts_bad_ones() {
    for seed in 1..4 {
        let mut b = Bench::new(MacRx::default(), |u| &mut u.clock);
        run_rx(&mut b, seed, 40, 10);
    }
}

/// A reader slower than the wire: the buffer runs full, the frames that did not fit are
/// dropped and counted as overflows, and every frame that comes out is a whole good frame.
#[test]
fn rx_overflow_drops_whole_frames() {
    let mut b = Bench::new(MacRx::default(), |u| &mut u.clock);
    let mut rng = Rng::new(5);
    let mut octets = std::collections::VecDeque::new();
    let mut sent = Vec::new();
    for _ in 0..12 {
        let f = rng.bytes(1000);
        let mut w = f.clone();
        w.extend(fcs(&f));
        octets.push_back((true, 0xD5u8));
        octets.extend(w.iter().map(|&x| (true, x)));
        octets.extend(std::iter::repeat((false, 0)).take(12));
        sent.push(f);
    }
    let mut col = Collector::new(90);
    let (mut ovf, mut good) = (0, 0);
    for _ in 0..200_000 {
        let (dv, d) = octets.pop_front().unwrap_or((false, 0));
        b.uut().gmii_rx_dv.next = dv;
        b.uut().gmii_rxd.next = (d as u64).into();
        col.drive_ready(&mut b.uut().out, &mut rng);
        b.settle();
        col.sample(&b.uut().out);
        ovf += b.uut().ev_overflow.val() as u32;
        good += b.uut().ev_good.val() as u32;
        b.tick();
    }
    let got = col.frames();
    assert!(
        ovf > 0 && good > 0 && ovf + good == 12,
        "{ovf} overflows, {good} good"
    );
    assert_eq!(got.len(), good as usize);
    for g in &got {
        assert!(
            sent.contains(g),
            "a frame that was not sent (or a torn one)"
        );
    }
}

/// MacTx's wire into MacRx: the frames come back.
#[test]
fn loopback_tx_into_rx() {
    let mut tx = Bench::new(MacTx::default(), |u| &mut u.clock);
    let mut rx = Bench::new(MacRx::default(), |u| &mut u.clock);
    let mut rng = Rng::new(9);
    let frames: Vec<Vec<u8>> = (0..20).map(|_| random_frame(&mut rng, 1500)).collect();
    let mut feed = ferroce_hdl::testbench::Feeder::new(0);
    for f in &frames {
        feed.push_frame(f, 1);
    }
    let mut col = Collector::new(20);
    for _ in 0..60_000 {
        let beat: Option<Beat> = feed.next_beat(&mut rng).cloned();
        tx.uut().inp.drive(beat.as_ref());
        tx.settle();
        let fired = tx.uut().inp.fires();
        rx.uut().gmii_rx_dv.next = tx.uut().gmii_tx_en.val();
        rx.uut().gmii_rx_er.next = tx.uut().gmii_tx_er.val();
        rx.uut().gmii_rxd.next = tx.uut().gmii_txd.val();
        col.drive_ready(&mut rx.uut().out, &mut rng);
        rx.settle();
        col.sample(&rx.uut().out);
        tx.tick();
        rx.tick();
        feed.after_edge(fired);
    }
    let want: Vec<Vec<u8>> = frames
        .iter()
        .map(|f| {
            let mut p = f.clone();
            if p.len() < 60 {
                p.resize(60, 0);
            }
            p
        })
        .collect();
    assert_eq!(col.frames(), want);
    assert_eq!(rx.uut().cnt_good.val().to_u64(), 20);
}

#[test]
fn cosim_mac_tx_and_rx() {
    if !require_cosim_tools() {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut cs = CoSim::new(MacTx::default(), |u| &mut u.clock);
    run_tx(&mut cs, 21, 10);
    let mut cr = CoSim::new(MacRx::default(), |u| &mut u.clock);
    run_rx(&mut cr, 22, 16, 10);
    eprintln!(
        "{} + {} cycles co-simulated in {:.1} s, {} comparisons, 0 mismatches",
        cs.cycles(),
        cr.cycles(),
        t0.elapsed().as_secs_f64(),
        cs.compares + cr.compares
    );
}

/// Yosys `synth_ecp5` of both halves: no latch, `check -assert` clean; the receive buffer in
/// block RAM; prints the resources.
#[test]
fn yosys_synth_ecp5_mac() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("board_mac_synth");
    let blocks = [
        (
            "ferroce_mac_tx",
            ferroce_hdl::verilog::block_verilog(&mut MacTx::default(), "ferroce_mac_tx"),
        ),
        (
            "ferroce_mac_rx",
            ferroce_hdl::verilog::block_verilog(&mut MacRx::default(), "ferroce_mac_rx"),
        ),
    ];
    for (m, v) in blocks {
        let Some(st) = synth_ecp5_block(m, &v, &dir, ECP5_CELLS) else {
            return;
        };
        assert!(st.count("LUT4") > 0, "{m}");
        if m == "ferroce_mac_rx" {
            assert!(st.count("DP16KD") >= 1, "{m}: {}", st.line(ECP5_CELLS));
        }
    }
}
