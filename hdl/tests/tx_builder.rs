//! TX header builder: frames of every opcode class, L3 kind, VLAN, payload sizes, random
//! valid/ready gaps, against the plain-Rust reference (`RoceHeader::to_frame_bytes`) and the
//! published vectors (docs/PROTOCOL.md §11).
use ferroce_hdl::header::{RoceHeader, L3_IPV4, L3_IPV6, L3_ROCEV1};
use ferroce_hdl::testbench::{Bench, Rng};
use ferroce_hdl::tx::drive::{all_opcodes, no_payload, random_header, run_builder, Timing};
use ferroce_hdl::tx::vectors::{hex, ROCE_MD_VECTORS};
use ferroce_hdl::tx::{TxFrameCore, TxHeaderBuilder};

fn bench() -> Bench<TxHeaderBuilder> {
    Bench::new(TxHeaderBuilder::default(), |u| &mut u.clock)
}

#[test]
fn tx_core_first_vector_with_placeholder() {
    let (name, h) = ROCE_MD_VECTORS[0];
    let f = hex(h);
    let (hdr, pay) = RoceHeader::parse_frame(&f).unwrap();
    let mut b = Bench::new(TxFrameCore::default(), |u| &mut u.clock);
    let mut rng = Rng::new(1);
    let r = run_builder(&mut b, &[(hdr, pay)], Timing::default(), &mut rng);
    let mut want = f.clone();
    let n = want.len();
    want[n - 4..].fill(0);
    assert_eq!(r.frames[0], want, "{name}");
}

#[test]
fn tx_vectors_rebuilt_byte_identical() {
    let mut b = bench();
    let mut rng = Rng::new(2);
    let jobs: Vec<_> = ROCE_MD_VECTORS
        .iter()
        .map(|(_, h)| RoceHeader::parse_frame(&hex(h)).unwrap())
        .collect();
    let r = run_builder(&mut b, &jobs, Timing::default(), &mut rng);
    for (i, (name, h)) in ROCE_MD_VECTORS.iter().enumerate() {
        assert_eq!(hex_of(&r.frames[i]), *h, "{name}");
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Every opcode x {IPv4, IPv6, RoCEv1} x {VLAN, no VLAN}, payload lengths around every
/// alignment, random gaps and stalls; against the plain-Rust reference.
#[test]
fn tx_all_opcodes_l3_vlan_random_timing() {
    let mut rng = Rng::new(3);
    let mut jobs = vec![];
    for op in all_opcodes() {
        for l3 in [L3_IPV4, L3_IPV6, L3_ROCEV1] {
            for vlan in [false, true] {
                let len = if no_payload(op) { 0 } else { rng.range(0, 40) };
                let h = random_header(&mut rng, op, l3, vlan, len);
                jobs.push((h, rng.bytes(len)));
            }
        }
    }
    for (seed, t) in [
        (10, Timing::default()),
        (
            11,
            Timing {
                desc_gap: 30,
                pay_gap: 30,
                stall: 0,
            },
        ),
        (
            12,
            Timing {
                desc_gap: 0,
                pay_gap: 0,
                stall: 40,
            },
        ),
        (
            13,
            Timing {
                desc_gap: 50,
                pay_gap: 50,
                stall: 50,
            },
        ),
    ] {
        let mut b = bench();
        let mut rng = Rng::new(seed);
        let r = run_builder(&mut b, &jobs, t, &mut rng);
        check(&jobs, &r.frames, &format!("{t:?}"));
    }
}

fn check(jobs: &[(RoceHeader, Vec<u8>)], frames: &[Vec<u8>], what: &str) {
    assert_eq!(frames.len(), jobs.len(), "{what}");
    for (i, ((h, p), f)) in jobs.iter().zip(frames).enumerate() {
        let want = h.to_frame_bytes(p);
        assert!(
            *f == want,
            "{what}: frame {i} op {:#x} l3 {} vlan {} len {}\n got {}\nwant {}",
            h.opcode.to_u64(),
            h.l3.to_u64(),
            h.vlan,
            p.len(),
            hex_of(f),
            hex_of(&want)
        );
    }
}

/// Payload 0..=4096 bytes (every length up to 80, then a spread up to 4096, and the 13-bit
/// maximum 8191), random timing.
#[test]
fn tx_payload_lengths_0_to_4096() {
    let mut rng = Rng::new(4);
    let mut lens: Vec<usize> = (0..=80).collect();
    lens.extend([
        255, 256, 257, 1023, 1024, 1025, 2047, 2048, 4093, 4094, 4095, 4096, 8188, 8191,
    ]);
    let mut jobs = vec![];
    for (i, len) in lens.into_iter().enumerate() {
        let l3 = [L3_IPV4, L3_IPV6, L3_ROCEV1][i % 3];
        let op = [0x04u8, 0x0a, 0x0b, 0x10, 0x65, 0x05][i % 6];
        let h = random_header(&mut rng, op, l3, i % 4 == 1, len);
        jobs.push((h, rng.bytes(len)));
    }
    let mut b = bench();
    let r = run_builder(
        &mut b,
        &jobs,
        Timing {
            desc_gap: 20,
            pay_gap: 20,
            stall: 20,
        },
        &mut rng,
    );
    check(&jobs, &r.frames, "lengths");
}
