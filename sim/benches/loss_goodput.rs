//! Goodput of the two hardware NICs (Verilator model) against frame loss on the link, as a
//! fraction of the lossless rate, for 1 KiB and 64 KiB RDMA WRITEs over 16 QPs at PMTU 1024:
//! `cargo bench -p ferroce-sim --bench loss_goodput`. Loss applies to both directions (requests
//! and ACKs); every message is still verified byte for byte by the scenario. Set
//! `FERROCE_BENCH_SCALE=10` for a longer (nightly-sized) run.
use ferroce_sim::cmd::verbs::{run_scenario_with, Engine, VerbsArgs, VerbsLinkArgs};

fn main() {
    let scale: usize = std::env::var("FERROCE_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    println!(
        "{:>6} {:>6} {:>9} {:>11} {:>8} {:>9} {:>9} {:>8} {:>7}",
        "size", "loss", "messages", "cycles", "B/cycle", "goodput", "resent", "timeouts", "tmo"
    );
    for (size, label, messages) in [(1024usize, "1K", 2000usize), (65536, "64K", 96)] {
        let mut lossless = None;
        for loss in [0.0, 0.001, 0.01, 0.05] {
            let args = VerbsArgs {
                ops: vec!["write".into()],
                sizes: vec![size.to_string()],
                qps: 16,
                messages: messages * scale,
                seed: 900,
                pmtu: 1024,
                pcap: None,
                json: false,
                dma_jitter: false,
                ipv6: false,
                vlan: None,
            };
            let link = VerbsLinkArgs {
                loss,
                ..VerbsLinkArgs::default()
            };
            let r = match run_scenario_with(&args, &link, Engine::Verilator) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("loss_goodput: {e}");
                    std::process::exit(1);
                }
            };
            if r.failed != 0 || r.verified != r.messages {
                eprintln!("loss_goodput: {label} at loss {loss}: {r:?}");
                std::process::exit(1);
            }
            let rate = r.bytes as f64 / r.cycles as f64;
            let base = *lossless.get_or_insert(rate);
            println!(
                "{:>6} {:>6} {:>9} {:>11} {:>8.2} {:>8.1}% {:>9} {:>8} {:>7}",
                label,
                format!("{}%", loss * 100.0),
                r.messages,
                r.cycles,
                rate,
                100.0 * rate / base,
                r.retransmitted[0] + r.retransmitted[1],
                r.timeouts[0] + r.timeouts[1],
                r.timeout
            );
        }
    }
}
