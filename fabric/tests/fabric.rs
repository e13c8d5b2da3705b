//! The fabric's behaviour: serialisation and propagation timing, RED marking against its
//! curve, ECMP spreading, PFC pause and resume, pause expiry, RoCEv1 not routed.
use ferroce_fabric::packet::{self, udp_frame, ECN_CE};
use ferroce_fabric::red::Red;
use ferroce_fabric::topology::{back_to_back, single_switch, spine_leaf};
use ferroce_fabric::{HostConfig, HostKind, LinkSpec, PfcConfig, Source, SwitchConfig, PS_PER_S};

fn host(name: &str, i: u8, kind: HostKind) -> HostConfig {
    HostConfig {
        name: name.into(),
        mac: [2, 0, 0, 0, 0, i],
        ip: [10, 0, i / 16, i],
        kind,
        tx_fifo_bytes: 1 << 30,
        capture: false,
    }
}

fn source(to: &HostConfig, sport: u16, rate_bps: u64, frame: usize) -> Source {
    Source {
        dst_mac: to.mac,
        dst_ip: to.ip,
        sport,
        dport: 4791,
        frame_bytes: frame,
        rate_bps,
        dscp: 26,
        priority: 3,
        ecn: 2,
        start: 0,
        stop: u64::MAX,
    }
}

/// A UDP frame from `from` to `to` (ECT(0), DSCP 26).
fn frame(from: &HostConfig, to: &HostConfig, sport: u16, len: usize) -> Vec<u8> {
    udp_frame(from.mac, from.ip, &source(to, sport, 1, len))
}

#[test]
fn serialisation_and_propagation_timing() {
    let a = host("A", 1, HostKind::External);
    let b = host("B", 2, HostKind::External);
    let link = LinkSpec::gbps(10, 1_000_000);
    let mut t = back_to_back(a.clone(), b.clone(), link);
    let (ha, hb) = (t.hosts[0], t.hosts[1]);
    t.fabric.send(ha, 0, frame(&a, &b, 1, 1000));
    t.fabric.send(ha, 0, frame(&a, &b, 1, 1000));
    t.fabric.advance(10 * 1_000_000);
    let got = t.fabric.take_received(hb);
    // (1000 + 24 bytes) x 8 bits at 10 Gb/s = 819.2 ns, then 1 us on the wire; the second
    // frame waits for the first
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0, 819_200 + 1_000_000);
    assert_eq!(got[1].0, 2 * 819_200 + 1_000_000);

    // through one switch: stored, then forwarded (two serialisations, two delays)
    let mut t = single_switch(vec![a.clone(), b.clone()], SwitchConfig::default(), link);
    let (ha, hb) = (t.hosts[0], t.hosts[1]);
    t.fabric.send(ha, 5_000, frame(&a, &b, 1, 1000));
    t.fabric.advance(10_000_000);
    let got = t.fabric.take_received(hb);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 5_000 + 2 * (819_200 + 1_000_000));
}

#[test]
fn tx_ready_paces_the_mac_to_the_link() {
    let mut a = host("A", 1, HostKind::External);
    a.tx_fifo_bytes = 2000;
    let b = host("B", 2, HostKind::External);
    let mut t = back_to_back(a.clone(), b.clone(), LinkSpec::gbps(10, 0));
    let ha = t.hosts[0];
    assert!(t.fabric.tx_ready(ha, 0));
    t.fabric.send(ha, 0, frame(&a, &b, 1, 1000));
    // 1000 bytes on the wire's way: still room for one more
    assert!(t.fabric.tx_ready(ha, 0));
    t.fabric.send(ha, 0, frame(&a, &b, 1, 1000));
    assert!(!t.fabric.tx_ready(ha, 0));
    // once the first frame is out, the backlog is under the FIFO again
    assert!(t.fabric.tx_ready(ha, 819_200 + 1));
}

#[test]
fn red_marks_along_its_curve() {
    let red = Red {
        kmin: 100_000,
        kmax: 400_000,
        pmax: 0.5,
        average_weight: None,
    };
    assert_eq!(red.probability(100_000.0), 0.0);
    assert!((red.probability(250_000.0) - 0.25).abs() < 1e-12);
    assert_eq!(red.probability(400_001.0), 1.0);
    // a burst of frames from a 30 Gb/s link into a 10 Gb/s egress: the depth each frame sees
    // at dequeue follows from the two links' timing, so every frame's marking probability is
    // known; the marks counted per probability band must match the curve
    let len = 1000usize;
    let n = 2000usize;
    let fast = LinkSpec::gbps(30, 0);
    let slow = LinkSpec::gbps(10, 0);
    let (ta, td) = (fast.serialise(len), slow.serialise(len));
    let arrive: Vec<u64> = (0..n as u64).map(|k| (k + 1) * ta).collect();
    let mut dequeue = vec![0u64; n];
    for i in 0..n {
        dequeue[i] = if i == 0 {
            arrive[0]
        } else {
            arrive[i].max(dequeue[i - 1] + td)
        };
    }
    let depth: Vec<usize> = (0..n)
        .map(|i| arrive.iter().filter(|t| **t <= dequeue[i]).count() - i)
        .collect();
    let bands = [0.0, 1e-9, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0];
    let mut obs = [0f64; 8];
    let mut exp = [0f64; 8];
    let mut var = [0f64; 8];
    let a = host("A", 1, HostKind::External);
    let b = host("B", 2, HostKind::External);
    for round in 0..4u64 {
        let mut f = ferroce_fabric::Fabric::new();
        let sw = f.add_switch(
            "S",
            SwitchConfig {
                red: Some(red),
                pfc: None,
                ecmp_seed: round,
                ..SwitchConfig::default()
            },
            [2, 9, 9, 9, 9, 9],
        );
        let ha = f.add_host(a.clone());
        let hb = f.add_host(b.clone());
        f.connect(ha, sw, fast);
        f.connect(hb, sw, slow);
        f.compute_routes();
        for _ in 0..n {
            f.send(ha, 0, frame(&a, &b, 7, len));
        }
        f.advance(PS_PER_S / 100);
        let got = f.take_received(hb);
        assert_eq!(got.len(), n);
        for (i, (t, fr)) in got.iter().enumerate() {
            assert_eq!(
                *t,
                dequeue[i] + td,
                "frame {i} left the switch when computed"
            );
            let p = red.probability((depth[i] * len) as f64);
            let band = if p == 0.0 {
                0
            } else if p >= 1.0 {
                7
            } else {
                bands.iter().rposition(|b| p > *b).unwrap()
            };
            let h = packet::parse(fr).unwrap();
            obs[band] += (h.ecn == ECN_CE) as u64 as f64;
            exp[band] += p;
            var[band] += p * (1.0 - p);
        }
    }
    assert_eq!(obs[0], 0.0, "marked below Kmin");
    assert_eq!(obs[7], exp[7], "not every frame above Kmax was marked");
    assert!(exp[7] > 0.0 && obs[0] == 0.0 && var[0] == 0.0, "{exp:?}");
    for b in 1..6 {
        assert!(
            exp[b] > 10.0,
            "band {b} has too few frames to judge: {exp:?}"
        );
        let tol = 4.0 * var[b].sqrt() + 2.0;
        assert!(
            (obs[b] - exp[b]).abs() <= tol,
            "band {b}: {} marks, the curve gives {:.1} +- {tol:.1}",
            obs[b],
            exp[b]
        );
    }
}

#[test]
fn ecmp_spreads_64_qps_over_two_spines() {
    let a = host("A", 0x1a, HostKind::External);
    let b = host("B", 0x2a, HostKind::External);
    let link = LinkSpec::gbps(10, 1000);
    let mut t = spine_leaf(
        vec![vec![a.clone()], vec![b.clone()]],
        2,
        SwitchConfig::default(),
        link,
        link,
    );
    let (ha, hb) = (t.hosts[0], t.hosts[1]);
    // the UDP source ports the NIC gives 64 QPs (from their QPNs, IBTA Annex A17)
    for q in 0..64u32 {
        let (lqpn, rqpn) = (0x100 + q, 0x200 + q);
        let flow = ferroce_proto::flow::calc_flow_label(lqpn, rqpn);
        let sport = ferroce_proto::flow::udp_source_port(lqpn, rqpn, flow);
        t.fabric
            .send(ha, q as u64 * 1_000_000, frame(&a, &b, sport, 200));
    }
    t.fabric.advance(PS_PER_S / 1000);
    assert_eq!(t.fabric.take_received(hb).len(), 64);
    let per: Vec<usize> = t
        .spines
        .iter()
        .map(|s| t.fabric.switch_flows(*s).len())
        .collect();
    assert_eq!(per.iter().sum::<usize>(), 64, "{per:?}");
    for p in &per {
        assert!(
            (26..=38).contains(p),
            "64 QPs over two spines: {per:?} (40/60 at worst)"
        );
    }
    // the same flows with another seed land differently (the hash is seeded)
    let key = |s: u16| ferroce_fabric::FlowKey {
        src_ip: packet::mapped(a.ip),
        dst_ip: packet::mapped(b.ip),
        sport: s,
        dport: 4791,
    };
    let differ = (0..64u16)
        .filter(|s| {
            ferroce_fabric::ecmp_hash(1, &key(*s), 17) % 2
                != ferroce_fabric::ecmp_hash(2, &key(*s), 17) % 2
        })
        .count();
    assert!(differ > 10, "{differ}");
}

/// Two sources at line rate into one 10 Gb/s port.
fn incast(pfc: Option<PfcConfig>, ms: u64) -> (ferroce_fabric::topology::Built, Vec<usize>) {
    let sink = host("C", 3, HostKind::Sink);
    let s1 = host(
        "A",
        1,
        HostKind::Source(source(&sink, 1000, 10_000_000_000, 1024)),
    );
    let s2 = host(
        "B",
        2,
        HostKind::Source(source(&sink, 2000, 10_000_000_000, 1024)),
    );
    let cfg = SwitchConfig {
        pfc,
        buffer_bytes: 2_000_000,
        ..SwitchConfig::default()
    };
    let mut t = single_switch(vec![s1, s2, sink], cfg, LinkSpec::gbps(10, 1_000_000));
    t.fabric.advance(ms * PS_PER_S / 1000);
    let hosts = t.hosts.clone();
    (t, hosts)
}

#[test]
fn pfc_pauses_and_resumes_instead_of_dropping() {
    let pfc = SwitchConfig::default().pfc;
    let (t, h) = incast(pfc, 4);
    let sw = t.leaves[0];
    let out = t.fabric.port_stats(sw, 2);
    let (in1, in2) = (t.fabric.port_stats(sw, 0), t.fabric.port_stats(sw, 1));
    assert_eq!(out.drops, 0, "lossless priority dropped");
    assert!(
        in1.pfc_xoff_sent > 0 && in2.pfc_xoff_sent > 0,
        "{in1:?} {in2:?}"
    );
    assert!(
        in1.pfc_xon_sent > 0 && in2.pfc_xon_sent > 0,
        "never resumed"
    );
    assert!(t.fabric.port_stats(h[0], 0).pfc_received > 0);
    // the bottleneck stays busy: at least 95 % of 4 ms at 10 Gb/s reached the sink
    let rx = t.fabric.host_stats(h[2]).rx_bytes + 24 * t.fabric.host_stats(h[2]).rx_frames;
    let line = 10_000_000_000u64 / 8 * 4 / 1000;
    assert!(rx * 100 >= line * 95, "{rx} of {line} bytes");
    // the queue stays bounded by XOFF + headroom per ingress
    let c = pfc.unwrap();
    assert!(out.peak[3] <= 2 * (c.xoff + c.headroom), "{out:?}");
    // without PFC the same load drops
    let (t, _) = incast(None, 4);
    assert!(t.fabric.port_stats(t.leaves[0], 2).drops > 0);
}

#[test]
fn a_received_pause_holds_a_source_until_it_expires() {
    let sink = host("C", 3, HostKind::External);
    let s1 = host(
        "A",
        1,
        HostKind::Source(source(&sink, 1000, 1_000_000_000, 1000)),
    );
    let link = LinkSpec::gbps(10, 0);
    let mut t = back_to_back(s1, sink.clone(), link);
    let (hs, hc) = (t.hosts[0], t.hosts[1]);
    t.fabric.advance(100_000_000); // 100 us: about 12 frames at 1 Gb/s
    let before = t.fabric.take_received(hc).len();
    assert!((10..=14).contains(&before), "{before}");
    // pause priority 3 for 10000 quanta = 512 us at 10 Gb/s
    t.fabric
        .send(hc, 100_000_000, packet::pfc_frame(sink.mac, 3, 10_000));
    t.fabric.advance(100_000_000 + 500_000_000);
    let during = t.fabric.take_received(hc).len();
    assert!(during <= 1, "{during} frames during the pause");
    assert_eq!(t.fabric.port_stats(hs, 0).pfc_received, 1);
    t.fabric.advance(100_000_000 + 700_000_000);
    let after = t.fabric.take_received(hc).len();
    assert!(after >= 15, "resumed after expiry: {after}");
    // an XON (time 0) lifts a pause at once
    t.fabric
        .send(hc, 800_000_000, packet::pfc_frame(sink.mac, 3, 0xffff));
    t.fabric
        .send(hc, 810_000_000, packet::pfc_frame(sink.mac, 3, 0));
    t.fabric.take_received(hc);
    t.fabric.advance(910_000_000);
    assert!(t.fabric.take_received(hc).len() >= 10);
}

#[test]
fn rocev1_is_bridged_never_routed() {
    let a = host("A", 0x1a, HostKind::External);
    let b = host("B", 0x2a, HostKind::External);
    let c = host("C", 0x1b, HostKind::External);
    let link = LinkSpec::gbps(10, 0);
    let mut t = spine_leaf(
        vec![vec![a.clone(), c.clone()], vec![b.clone()]],
        2,
        SwitchConfig::default(),
        link,
        link,
    );
    let (ha, hb, hc) = (t.hosts[0], t.hosts[2], t.hosts[1]);
    let v1 = |to: &HostConfig| {
        let mut f = vec![0u8; 100];
        f[0..6].copy_from_slice(&to.mac);
        f[6..12].copy_from_slice(&a.mac);
        f[12..14].copy_from_slice(&0x8915u16.to_be_bytes());
        f[14] = 0x60;
        f
    };
    t.fabric.send(ha, 0, v1(&b));
    t.fabric.send(ha, 0, v1(&c));
    t.fabric.advance(PS_PER_S / 1000);
    assert_eq!(
        t.fabric.take_received(hb).len(),
        0,
        "RoCEv1 crossed the L3 fabric"
    );
    assert_eq!(t.fabric.take_received(hc).len(), 1, "same leaf: bridged");
    assert_eq!(t.fabric.switch_stats(t.leaves[0]).rocev1_not_routed, 1);
}

#[test]
fn a_faulty_link_loses_frames_and_a_down_link_all_of_them() {
    use ferroce_fabric::LinkFault;
    let a = host("A", 1, HostKind::External);
    let b = host("B", 2, HostKind::External);
    // 1000-byte frames every 1 us on a 10 Gb/s link (each takes 819.2 ns)
    let send_all = |t: &mut ferroce_fabric::topology::Built, n: u64| {
        let (ha, hb) = (t.hosts[0], t.hosts[1]);
        for i in 0..n {
            t.fabric.send(ha, i * 1_000_000, frame(&a, &b, 1, 1000));
        }
        t.fabric.advance(n * 1_000_000 + 10_000_000);
        t.fabric.take_received(hb).len() as u64
    };
    let link = LinkSpec::gbps(10, 1_000_000);
    // random loss of 20 %: about 200 of 1000 frames, the counter says exactly how many
    let mut t = back_to_back(a.clone(), b.clone(), link);
    t.fabric.set_link_faults(
        t.hosts[0],
        0,
        LinkFault {
            loss: 0.2,
            down: vec![],
            seed: 7,
        },
    );
    let got = send_all(&mut t, 1000);
    let lost = t.fabric.port_stats(t.hosts[0], 0).lost;
    assert_eq!(got + lost, 1000);
    assert!((150..=250).contains(&lost), "{lost} of 1000 lost at 20 %");
    // down from 100 us to 300 us: the 200 frames that start then are lost, no others
    let mut t = back_to_back(a.clone(), b.clone(), link);
    t.fabric.set_link_faults(
        t.hosts[1],
        0,
        LinkFault {
            loss: 0.0,
            down: vec![(100_000_000, 300_000_000)],
            seed: 7,
        },
    );
    let got = send_all(&mut t, 1000);
    assert_eq!(t.fabric.port_stats(t.hosts[0], 0).lost, 200);
    assert_eq!(got, 800);
}

/// `frame` with an 802.1Q tag (TPID 0x8100, PCP `pcp`, VID 100) after the MAC addresses.
fn tagged(mut f: Vec<u8>, pcp: u8) -> Vec<u8> {
    let tci = ferroce_proto::wire::VlanTag {
        pcp,
        dei: false,
        vid: 100,
    }
    .tci();
    let mut tag = ferroce_proto::wire::ethertype::VLAN.to_be_bytes().to_vec();
    tag.extend_from_slice(&tci.to_be_bytes());
    f.splice(12..12, tag);
    f
}

/// A tagged frame is queued in its PCP's class whatever its DSCP; an untagged one in its DSCP's
/// (26 -> 3). Two senders at once build a queue at the switch's port to the receiver, whose
/// per-priority peak shows which class held the frames.
#[test]
fn tagged_frames_travel_in_their_pcp_class() {
    let c = host("C", 3, HostKind::External);
    let a = host("A", 1, HostKind::External);
    let b = host("B", 2, HostKind::External);
    for pcp in [None, Some(5u8), Some(0)] {
        let mut t = single_switch(
            vec![a.clone(), b.clone(), c.clone()],
            SwitchConfig::default(),
            LinkSpec::gbps(10, 1_000_000),
        );
        let (ha, hb, hc) = (t.hosts[0], t.hosts[1], t.hosts[2]);
        for k in 0..20 {
            for (h, from, sport) in [(ha, &a, 1000), (hb, &b, 2000)] {
                let f = frame(from, &c, sport + k, 1000);
                let f = match pcp {
                    Some(p) => tagged(f, p),
                    None => f,
                };
                assert_eq!(packet::parse(&f).unwrap().pcp, pcp);
                t.fabric.send(h, 0, f);
            }
        }
        t.fabric.advance(PS_PER_S / 1000);
        assert_eq!(t.fabric.take_received(hc).len(), 40, "{pcp:?}");
        let out = t.fabric.port_stats(t.leaves[0], 2);
        let class = pcp.unwrap_or(3) as usize;
        for (prio, peak) in out.peak.iter().enumerate() {
            assert_eq!(*peak > 0, prio == class, "{pcp:?}: {out:?}");
        }
    }
}
