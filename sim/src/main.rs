//! `ferroce`: the command-line front end of the simulator.
//!
//! Every command that exercises the NIC runs the cycle-accurate hardware model; the only software
//! here is what lies outside the FPGA (captures, host memory, links).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ferroce_sim::cmd;
use ferroce_sim::cmd::verbs;

#[derive(Parser)]
#[command(
    name = "ferroce",
    version,
    about = "ferroce: an open FPGA RoCEv2 NIC, simulated"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `ferroce demo`'s options.
#[derive(clap::Args)]
struct DemoCli {
    /// RC QP pairs from A to B.
    #[arg(long, default_value_t = 8)]
    qps: usize,
    /// Messages in total (WRITE, READ, SEND in turn, round robin over the QPs).
    #[arg(long, default_value_t = 96)]
    messages: usize,
    /// Bytes per message (K and M suffixes: 16K).
    #[arg(long, default_value = "16K")]
    size: String,
    /// Path MTU in bytes (256, 512, 1024, 2048, 4096).
    #[arg(long, default_value_t = 1024)]
    pmtu: usize,
    /// Random seed (data, initial PSNs, the switches' ECMP hash and ECN draws).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Hardware model of both NICs: verilator (fast) or rust-hdl (slow).
    #[arg(long, default_value = "verilator")]
    engine: String,
    #[command(flatten)]
    vcd: cmd::VcdArgs,
    /// Write a.pcap (A's link), rates.svg, rates.png and summary.json here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the summary as one JSON object (no progress lines).
    #[arg(long)]
    json: bool,
    /// Host link rate, Gb/s.
    #[arg(long, default_value_t = 10)]
    host_gbps: u64,
    /// Leaf-spine link rate, Gb/s.
    #[arg(long, default_value_t = 10)]
    fabric_gbps: u64,
    /// Propagation delay of every link, ns.
    #[arg(long, default_value_t = 500)]
    delay_ns: u64,
    /// Offered load of the background source through Spine-1, Gb/s (0: none).
    #[arg(long, default_value_t = 10.0)]
    background_gbps: f64,
    /// When the background starts and stops, microseconds of simulated time.
    #[arg(long, default_value_t = 20)]
    background_start_us: u64,
    #[arg(long, default_value_t = 1200)]
    background_stop_us: u64,
    /// RoCE version: v2 (the default), or v1: A and B speak RoCEv1 (GRH over Ethernet,
    /// EtherType 0x8915) in two runs, across the leaves (Leaf-1 cannot route it: nothing
    /// arrives) and with B on A's leaf (bridged: WRITE, READ and SEND verified). Anything else
    /// exits 2 naming --roce.
    #[arg(long, default_value = "v2")]
    roce: String,
}

#[derive(Subcommand)]
enum Command {
    /// The main scenario: servers A (10.0.1.10, Leaf-1) and B (10.0.2.10, Leaf-2), two whole
    /// ferroce NICs on a simulated spine-leaf fabric (2 spines, ECMP on the 5-tuple, PFC on
    /// priority 3 between switches, ECN marking above 200 KB), A running RDMA WRITE, READ and
    /// SEND to B while plain traffic sources congest Spine-1: the switches mark CE, B's NIC
    /// sends CNPs, A's DCQCN reaction point cuts its QPs' rates, and the NICs run PFC as the
    /// switches do. `--roce v1`: the same two NICs speak RoCEv1, not routed across the leaves
    /// and bridged on one.
    Demo(DemoCli),
    /// Incast: N sender NICs RDMA-WRITE to one receiver NIC through one switch at line rate
    /// (every endpoint a whole ferroce NIC, the cycle-accurate hardware, driven through the
    /// verbs API); per-sender goodput, Jain's index, bottleneck utilisation, queue depth,
    /// drops, PFC pauses, CNPs, the rate plot.
    Incast(cmd::incast::IncastArgs),
    /// Run a scenario file (TOML, docs/SCENARIOS.md): a topology of links and switches, two
    /// ferroce NICs (the cycle-accurate hardware, driven through the verbs API) with their QPs
    /// and workloads, plain traffic hosts, faults; prints a summary, writes the outputs.
    Run {
        /// The scenario file.
        file: PathBuf,
        /// Hardware model of the NICs: verilator (fast) or rust-hdl (slow).
        #[arg(long, default_value = "verilator")]
        engine: String,
        /// Write the outputs the file asks for here (the pcap, rates.svg and rates.png, summary.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the summary as one JSON object (no progress lines).
        #[arg(long)]
        json: bool,
        /// Check the file and describe it; run nothing.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        vcd: cmd::VcdArgs,
    },
    /// Describe every frame of a capture (pcap or pcapng) as JSON Lines, then a summary object.
    PcapInfo {
        /// The capture file to read.
        file: PathBuf,
    },
    /// Run every frame of a capture through the HDL receive front end (cycle-accurate), JSON Lines.
    RxReplay {
        /// The capture file to replay.
        file: PathBuf,
        /// Accept only frames to this MAC (aa:bb:cc:dd:ee:ff); default: accept any destination.
        #[arg(long)]
        mac: Option<String>,
        /// Hardware model: verilator (the emitted Verilog, fast) or rust-hdl (slow).
        #[arg(long, default_value = "verilator")]
        engine: String,
        #[command(flatten)]
        vcd: cmd::VcdArgs,
    },
    /// Rebuild every RoCE frame of a capture through the HDL transmit front end; exits 1 if any
    /// rebuilt frame differs from its original.
    TxReplay {
        /// The capture whose RoCE frames are rebuilt.
        input: PathBuf,
        /// Where the rebuilt frames are written (pcap).
        #[arg(long)]
        out: PathBuf,
        /// Hardware model: verilator (the emitted Verilog, fast) or rust-hdl (slow).
        #[arg(long, default_value = "verilator")]
        engine: String,
        #[command(flatten)]
        vcd: cmd::VcdArgs,
    },
    /// Measure the HDL front ends: cycles per frame against the ideal for 64 B..4 KiB frames,
    /// and simulated cycles per second on the rust-hdl and Verilator engines (both, so no
    /// --engine; no --vcd, which would slow what it measures).
    Bench {
        /// Fewer frames per size (a smoke run).
        #[arg(long)]
        quick: bool,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Skip the Verilator engine (no Verilator installed).
        #[arg(long)]
        no_verilator: bool,
    },
    /// One simulated NIC, configured from a JSON file, answers the frames of a capture: OUT holds
    /// every frame it transmits; the summary lists its DMA writes and drops (docs/RESPOND.md).
    Respond {
        /// NIC configuration (addresses, QPs, MRs; docs/RESPOND.md).
        #[arg(long)]
        config: PathBuf,
        /// Frames to receive, in order (pcap or pcapng).
        #[arg(long = "in")]
        input: PathBuf,
        /// Where the NIC's transmitted frames are written (pcap).
        #[arg(long)]
        out: PathBuf,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// Hardware model: verilator (the emitted Verilog, fast) or rust-hdl (slow).
        #[arg(long, default_value = "verilator")]
        engine: String,
        #[command(flatten)]
        vcd: cmd::VcdArgs,
    },
    /// Two simulated NICs back to back, driven through the driver's verbs API: run the given
    /// operations and verify every byte and every completion (non-zero exit on any failure).
    Verbs {
        /// Operations, comma-separated: write, write_imm, send, send_imm, read, atomic_cas,
        /// atomic_fadd (all run by the hardware).
        #[arg(long, value_delimiter = ',', default_value = "write")]
        ops: Vec<String>,
        /// Message sizes in bytes, comma-separated (K and M suffixes: 64K).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "0,1,1023,1024,1025,65536"
        )]
        sizes: Vec<String>,
        /// RC QP pairs in use at once.
        #[arg(long, default_value_t = 1)]
        qps: usize,
        /// Messages in total (alternating direction, round robin over the QPs).
        #[arg(long, default_value_t = 12)]
        messages: usize,
        /// Random seed (data, scatter/gather lists, initial PSNs).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Path MTU in bytes (256, 512, 1024, 2048, 4096).
        #[arg(long, default_value_t = 1024)]
        pmtu: usize,
        /// Write every frame of the link, both directions.
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// Random DMA latency and back-pressure at both hosts (from the seed).
        #[arg(long)]
        dma_jitter: bool,
        /// Both NICs on IPv6 (GIDs 2001:db8::1 and ::2, IPv6 address vectors): RoCEv2 over IPv6.
        #[arg(long)]
        ipv6: bool,
        /// Both NICs send every RoCE frame with an IEEE 802.1Q tag of this VLAN ID (0..=4094),
        /// PCP 3 for data and ACKs and 6 for CNPs (CFG_TRAFFIC.VLAN_TAG, CFG_PFC).
        #[arg(long, value_name = "VID", value_parser = verbs::vlan_id)]
        vlan: Option<u16>,
        /// Hardware model: verilator (the emitted Verilog, fast) or rust-hdl (slow).
        #[arg(long, default_value = "verilator")]
        engine: String,
        #[command(flatten)]
        vcd: cmd::VcdArgs,
        /// Fraction of frames the link loses (each direction; e.g. 0.01 = 1 %; from the seed).
        #[arg(
            long,
            value_name = "R",
            default_value_t = 0.0,
            value_parser = verbs::fraction("--loss")
        )]
        loss: f64,
        /// Fraction of frames the link delivers twice (the copy a little later).
        #[arg(
            long,
            value_name = "R",
            default_value_t = 0.0,
            value_parser = verbs::fraction("--dup")
        )]
        dup: f64,
        /// Fraction of frames the link holds back until the next frame of their direction has
        /// overtaken them (neighbours swapped).
        #[arg(
            long,
            value_name = "R",
            default_value_t = 0.0,
            value_parser = verbs::fraction("--reorder")
        )]
        reorder: f64,
        /// Fraction of frames with one random bit flipped on the link (the receiving NIC must
        /// drop them).
        #[arg(
            long,
            value_name = "R",
            default_value_t = 0.0,
            value_parser = verbs::fraction("--corrupt")
        )]
        corrupt: f64,
        /// Largest random extra delay of a frame on the link, in cycles (frames stay in order).
        #[arg(long, value_name = "CYCLES", default_value_t = 0)]
        delay: u64,
        /// Fraction of ECN-capable frames the link marks CE (a congested switch queue); the
        /// receiving NIC answers with CNPs (at most one per QP per CC_NP_CNP_INTERVAL us).
        #[arg(
            long,
            value_name = "R",
            default_value_t = 0.0,
            value_parser = verbs::fraction("--ecn-mark")
        )]
        ecn_mark: f64,
        /// Limit every QP of both hosts to MBPS Mb/s of RoCE payload (the NIC's rate shaper,
        /// what ibv_modify_qp_rate_limit sets; at most the line rate); 0 = none. The JSON
        /// summary gives each QP's configured, measured, final and time-averaged rate.
        #[arg(long, value_name = "MBPS", default_value_t = 0)]
        rate_limit: u32,
        /// DCQCN on both NICs (`--dcqcn` alone means on): the reaction point (a CNP gives the
        /// QP a rate limiter: Rc, Rt, alpha, mlx5 defaults) besides the notification point,
        /// which is always on. The JSON's qp_rates give each QP's rate at the end, its time
        /// average and its lowest (CC_QP_RATE, sampled every 10 us).
        #[arg(long, value_name = "on|off", num_args = 0..=1, default_value = "off",
              default_missing_value = "on", value_parser = verbs::on_off("--dcqcn"))]
        dcqcn: bool,
        /// Local ACK timeout of the QPs: 4.096 us x 2^T, 0 = none (0..=31). Default: chosen from
        /// the run, at least 6 (262 us, 65 536 cycles at 250 MHz: far above the round trip of
        /// the two simulated NICs, yet cheap to simulate; the driver's usual 14 would be 16.8 M
        /// cycles per lost frame), more when many QPs with large messages can queue ahead of an
        /// ACK (9 for 16 QPs of 64 KiB), so that no message that arrived times out.
        #[arg(
            long,
            value_name = "T",
            value_parser = verbs::at_most("--timeout", 31)
        )]
        timeout: Option<u8>,
        /// Retries after an ACK timeout or a sequence error NAK before a QP fails (0..=7).
        #[arg(
            long,
            value_name = "N",
            default_value_t = 7,
            value_parser = verbs::at_most("--retry-cnt", 7)
        )]
        retry_cnt: u8,
        /// Retries after an RNR NAK (0..=7; 7 = infinite).
        #[arg(
            long,
            value_name = "N",
            default_value_t = 7,
            value_parser = verbs::at_most("--rnr-retry", 7)
        )]
        rnr_retry: u8,
        /// Packets a QP sends of one message while other QPs wait for their turn, then the
        /// next QP's turn (fair service at packet granularity, CFG_SQ_QUANTUM); 0 = a whole
        /// message per turn. Default: the NIC's reset value, 16.
        #[arg(long, value_name = "N")]
        send_quantum: Option<u8>,
    },
    /// One simulated NIC as the live RoCEv2 peer of a Linux RDMA test tool (rc_pingpong,
    /// perftest) over Soft-RoCE in a QEMU guest: the RoCE link is QEMU's `-netdev stream`
    /// socket, the control socket carries the tool's TCP exchange (docs/INTEROP.md). Prints
    /// one JSON summary; exits 0 only if the test completed.
    Peer(cmd::peer::PeerArgs),
    /// Synthesise the whole NIC (Yosys; for ECP5 also nextpnr place and route) and report its
    /// resources per block, Fmax and critical path as Markdown, CSV and JSON in --out
    /// (docs/RESOURCES.md); --check is the quick structural check CI runs.
    Synth(cmd::synth::SynthArgs),
    /// A trace of CNP arrivals, bytes sent and samples (JSON Lines, times in us) through the
    /// hardware DCQCN reaction point, cycle by cycle: one JSON line per sample (rc, rt, alpha,
    /// stages). docs/CONGESTION.md.
    DcqcnTrace {
        /// The trace: {"t": T, "ev": "cnp" | "bytes" (with "n") | "sample"} per line.
        #[arg(long = "in")]
        input: PathBuf,
        /// Parameters: a JSON object with mlx5 names and line_rate_mbps (default 100000).
        #[arg(long)]
        params: Option<PathBuf>,
        /// Hardware model: verilator (the emitted Verilog, fast) or rust-hdl (slow).
        #[arg(long, default_value = "verilator")]
        engine: String,
        #[command(flatten)]
        vcd: cmd::VcdArgs,
    },
    /// Write the Verilog of every top-level hardware block (one `<module>.v` per block).
    Verilog {
        /// Output directory (created if needed).
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Incast(a) => cmd::incast::run(&a),
        Command::Demo(d) => cmd::demo::run(&cmd::demo::DemoArgs {
            qps: d.qps,
            messages: d.messages,
            size: d.size,
            pmtu: d.pmtu,
            seed: d.seed,
            engine: d.engine,
            out: d.out,
            json: d.json,
            host_gbps: d.host_gbps,
            fabric_gbps: d.fabric_gbps,
            delay_ns: d.delay_ns,
            background_gbps: d.background_gbps,
            background_start_us: d.background_start_us,
            background_stop_us: d.background_stop_us,
            roce: d.roce,
            vcd: d.vcd.window(),
        }),
        Command::Run {
            file,
            engine,
            out,
            json,
            check,
            vcd,
        } => cmd::run::run(&cmd::run::RunArgs {
            file,
            engine,
            out,
            json,
            check,
            vcd: vcd.window(),
        }),
        Command::PcapInfo { file } => cmd::pcap_info::run(&file),
        Command::RxReplay {
            file,
            mac,
            engine,
            vcd,
        } => cmd::rx_replay::run(&file, mac.as_deref(), &engine, vcd.window().as_ref()),
        Command::TxReplay {
            input,
            out,
            engine,
            vcd,
        } => cmd::tx_replay::run(&input, &out, &engine, vcd.window().as_ref()),
        Command::Bench {
            quick,
            json,
            no_verilator,
        } => cmd::bench::run(quick, json, !no_verilator),
        Command::Respond {
            config,
            input,
            out,
            json,
            engine,
            vcd,
        } => cmd::respond::run(&config, &input, &out, json, &engine, vcd.window().as_ref()),
        Command::Verbs {
            ops,
            sizes,
            qps,
            messages,
            seed,
            pmtu,
            pcap,
            json,
            dma_jitter,
            ipv6,
            vlan,
            engine,
            vcd,
            loss,
            dup,
            reorder,
            corrupt,
            delay,
            ecn_mark,
            rate_limit,
            dcqcn,
            timeout,
            retry_cnt,
            rnr_retry,
            send_quantum,
        } => verbs::run(
            &verbs::VerbsArgs {
                ops,
                sizes,
                qps,
                messages,
                seed,
                pmtu,
                pcap,
                json,
                dma_jitter,
                ipv6,
                vlan,
            },
            &verbs::VerbsLinkArgs {
                loss,
                dup,
                reorder,
                corrupt,
                delay,
                ecn_mark,
                rate_limit,
                dcqcn,
                timeout,
                retry_cnt,
                rnr_retry,
                send_quantum,
            },
            &engine,
            vcd.window().as_ref(),
        ),
        Command::Peer(args) => cmd::peer::run(&args),
        Command::Synth(args) => cmd::synth::run(&args),
        Command::Verilog { out } => cmd::verilog::run(&out),
        Command::DcqcnTrace {
            input,
            params,
            engine,
            vcd,
        } => cmd::dcqcn_trace::run(&input, params.as_deref(), &engine, vcd.window().as_ref()),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("ferroce: {err}");
            ExitCode::from(2)
        }
    }
}
