//! An AXI4-Lite bus-functional model and a model of the CSR block's environment, in plain Rust,
//! driving a [`CsrBlock`] through a [`Stepper`] (the rust-hdl [`crate::testbench::Bench`] or the
//! co-simulation harness [`crate::cosim::CoSim`]). Not synthesised.
//!
//! * AXI: [`Csr::write_burst`] / [`Csr::read_burst`] run the AW, W and B (AR and R) channels as
//!   independent processes: each valid rises after a random delay of 0..=`max_delay` cycles
//!   (so AW before W, W before AW and both together all occur), stays high with stable
//!   payload until its ready (AXI rule), and `bready`/`rready` are randomly low
//!   (`ready_stall` percent). While a valid is low the payload lines carry random junk.
//! * Environment: consumers of the `qev_*` / `cev_*` streams with random back-pressure
//!   (recording every event in order), an `rtq_*` responder (answers from [`Csr::rtq_data`]
//!   after 0..=`rtq_latency` cycles; 0 = in the same cycle), the MR drain handshake, and a
//!   record of `irq_pulse`. Every other input is 0 unless a test drives it through
//!   [`Csr::cycle`]'s `drive` closure or the per-cycle [`Csr::hook`].
use super::block::CsrBlock;
use crate::testbench::{Rng, Stepper};
use ferroce_proto::host::regs::{self, CmdStatus};
use ferroce_proto::host::RegWrite;
use std::collections::HashMap;

/// One `qev_*` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QEv {
    pub kind: u64,
    pub qpn: u32,
    pub value: u32,
}

/// One `cev_*` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CEv {
    pub kind: u64,
    pub cqn: u32,
    pub value: u32,
}

/// Random timing of the AXI master.
#[derive(Clone, Copy, Debug)]
pub struct AxilTiming {
    /// A valid rises 0..=max_delay cycles after the channel may present its next beat.
    pub max_delay: u32,
    /// Percent of cycles with `bready` / `rready` low.
    pub ready_stall: u32,
}

impl AxilTiming {
    pub const FAST: AxilTiming = AxilTiming {
        max_delay: 0,
        ready_stall: 0,
    };
    pub const RANDOM: AxilTiming = AxilTiming {
        max_delay: 3,
        ready_stall: 30,
    };
}

pub type Hook<const QA: usize, const CA: usize, const MA: usize> =
    Box<dyn FnMut(&mut CsrBlock<QA, CA, MA>, u64)>;

/// The CSR block under test with its bus master and environment.
pub struct Csr<S, const QA: usize, const CA: usize, const MA: usize> {
    pub s: S,
    pub rng: Rng,
    pub timing: AxilTiming,
    /// Percent of cycles with `qev_ready` / `cev_ready` low.
    pub qev_stall: u32,
    pub cev_stall: u32,
    pub qev: Vec<QEv>,
    pub cev: Vec<CEv>,
    /// `rtq_*` answers by (is CQ, index); missing entries answer zeros.
    pub rtq_data: HashMap<(bool, u32), [u32; 3]>,
    pub rtq_latency: u32,
    pub rtq_log: Vec<(bool, u32)>,
    rtq_wait: Option<(u32, bool, u32)>,
    pub drain_latency: u32,
    pub drains: u32,
    drain_wait: Option<u32>,
    /// (cycle, irq_pulse) for every cycle with a pulse.
    pub irq: Vec<(u64, u32)>,
    pub hook: Option<Hook<QA, CA, MA>>,
    /// Cycles in which a write was held back (awready and wready both low with AW and W
    /// presented): the doorbell back-pressure.
    pub held_cycles: u64,
    /// Writes whose AW handshake came before / after / in the same cycle as their W handshake.
    pub aw_first: u64,
    pub w_first: u64,
    pub together: u64,
}

impl<S: Stepper<CsrBlock<QA, CA, MA>>, const QA: usize, const CA: usize, const MA: usize>
    Csr<S, QA, CA, MA>
{
    pub fn new(s: S, seed: u64, timing: AxilTiming) -> Self {
        Csr {
            s,
            rng: Rng::new(seed),
            timing,
            qev_stall: 0,
            cev_stall: 0,
            qev: vec![],
            cev: vec![],
            rtq_data: HashMap::new(),
            rtq_latency: 2,
            rtq_log: vec![],
            rtq_wait: None,
            drain_latency: 2,
            drains: 0,
            drain_wait: None,
            irq: vec![],
            hook: None,
            held_cycles: 0,
            aw_first: 0,
            w_first: 0,
            together: 0,
        }
    }

    pub fn uut(&mut self) -> &mut CsrBlock<QA, CA, MA> {
        self.s.uut()
    }

    /// One clock cycle: environment inputs, then `drive` (test inputs), settle, environment
    /// sampling, then `sample` (the test's look at the settled outputs), then the edge.
    pub fn cycle<R>(
        &mut self,
        drive: impl FnOnce(&mut CsrBlock<QA, CA, MA>, &mut Rng),
        sample: impl FnOnce(&CsrBlock<QA, CA, MA>) -> R,
    ) -> R {
        let cyc = self.s.cycles();
        let qev_ready = !self.rng.percent(self.qev_stall);
        let cev_ready = !self.rng.percent(self.cev_stall);
        // rtq / drain answers due this cycle
        let rtq_now = match self.rtq_wait {
            Some((0, cq, idx)) => Some((cq, idx)),
            _ => None,
        };
        let drain_now = matches!(self.drain_wait, Some(0));
        let rtq_words = rtq_now.map(|k| *self.rtq_data.get(&k).unwrap_or(&[0; 3]));
        {
            let u = self.s.uut();
            // pulse-type inputs default to 0 every cycle
            u.cnt_inc.next = 0.into();
            u.cnt_rx_bytes.next = 0.into();
            u.cnt_tx_bytes.next = 0.into();
            u.ev_valid.next = false;
            u.cq_irq_valid.next = false;
            u.fatal_set.next = false;
            u.qerr_valid.next = false;
            u.qpc.rd_valid.next = false;
            u.cqc_rd_valid.next = false;
            u.mr_req_valid.next = false;
            u.qev_ready.next = qev_ready;
            u.cev_ready.next = cev_ready;
            u.rtq_ack.next = rtq_words.is_some();
            let w = rtq_words.unwrap_or([0; 3]);
            u.rtq_d0.next = (w[0] as u64).into();
            u.rtq_d1.next = (w[1] as u64).into();
            u.rtq_d2.next = (w[2] as u64).into();
            u.mr_drain_ack.next = drain_now;
        }
        if let Some(h) = self.hook.as_mut() {
            h(self.s.uut(), cyc);
        }
        {
            let Csr { s, rng, .. } = self;
            drive(s.uut(), rng);
        }
        self.s.settle();
        // zero-latency responders answer within the cycle
        let (req, cq, idx) = {
            let u = self.s.uut();
            (
                u.rtq_req.val(),
                u.rtq_cq.val(),
                u.rtq_index.val().to_u64() as u32,
            )
        };
        let mut resettle = false;
        if req {
            assert!(
                self.rtq_wait.is_none() || rtq_now.is_some(),
                "rtq_req while a query is pending"
            );
            self.rtq_log.push((cq, idx));
            if self.rtq_latency == 0 {
                let w = *self.rtq_data.get(&(cq, idx)).unwrap_or(&[0; 3]);
                let u = self.s.uut();
                u.rtq_ack.next = true;
                u.rtq_d0.next = (w[0] as u64).into();
                u.rtq_d1.next = (w[1] as u64).into();
                u.rtq_d2.next = (w[2] as u64).into();
                resettle = true;
                self.rtq_wait = None;
            } else {
                let l = self.rng.range(1, self.rtq_latency as usize) as u32;
                self.rtq_wait = Some((l, cq, idx));
            }
        }
        let dreq = self.s.uut().mr_drain_req.val();
        if dreq && self.drain_wait.is_none() && !drain_now {
            if self.drain_latency == 0 {
                self.s.uut().mr_drain_ack.next = true;
                resettle = true;
                self.drains += 1;
            } else {
                self.drain_wait = Some(self.rng.range(1, self.drain_latency as usize) as u32);
            }
        }
        if drain_now {
            assert!(dreq, "drain_req dropped before the ack");
            self.drains += 1;
        }
        if resettle {
            self.s.settle();
        }
        let r = {
            let u = self.s.uut();
            if u.qev_valid.val() && u.qev_ready.val() {
                self.qev.push(QEv {
                    kind: u.qev_kind.val().to_u64(),
                    qpn: u.qev_qpn.val().to_u64() as u32,
                    value: u.qev_value.val().to_u64() as u32,
                });
            }
            if u.cev_valid.val() && u.cev_ready.val() {
                self.cev.push(CEv {
                    kind: u.cev_kind.val().to_u64(),
                    cqn: u.cev_cqn.val().to_u64() as u32,
                    value: u.cev_value.val().to_u64() as u32,
                });
            }
            let p = u.irq_pulse.val().to_u64() as u32;
            if p != 0 {
                self.irq.push((cyc, p));
            }
            if u.s_axil_awvalid.val()
                && u.s_axil_wvalid.val()
                && !u.s_axil_awready.val()
                && !u.s_axil_wready.val()
            {
                self.held_cycles += 1;
            }
            sample(u)
        };
        self.s.tick();
        // count down the responders
        self.rtq_wait = match self.rtq_wait {
            Some((0, ..)) => None,
            Some((n, cq, idx)) => Some((n - 1, cq, idx)),
            None => None,
        };
        self.drain_wait = match self.drain_wait {
            Some(0) => None,
            Some(n) => Some(n - 1),
            None => None,
        };
        r
    }

    /// `n` idle bus cycles.
    pub fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.cycle(idle_axi, |_| ());
        }
    }

    /// Write `writes` in order with independent AW, W and B processes. Returns the number of
    /// cycles taken.
    pub fn write_burst(&mut self, writes: &[(u32, u32)]) -> u64 {
        let t0 = self.s.cycles();
        let n = writes.len();
        let (mut aw_i, mut w_i, mut b_n) = (0usize, 0usize, 0usize);
        let mut aw_delay = self.delay();
        let mut w_delay = self.delay();
        let (mut aw_on, mut w_on) = (false, false);
        let mut aw_at = vec![];
        let mut w_at = vec![];
        let stall = self.timing.ready_stall;
        while b_n < n {
            if !aw_on && aw_i < n {
                if aw_delay == 0 {
                    aw_on = true;
                } else {
                    aw_delay -= 1;
                }
            }
            if !w_on && w_i < n {
                if w_delay == 0 {
                    w_on = true;
                } else {
                    w_delay -= 1;
                }
            }
            let aw = if aw_on { Some(writes[aw_i].0) } else { None };
            let w = if w_on { Some(writes[w_i].1) } else { None };
            let (af, wf, bf) = self.cycle(
                |u, rng| {
                    idle_axi(u, rng);
                    if let Some(a) = aw {
                        u.s_axil_awvalid.next = true;
                        u.s_axil_awaddr.next = (a as u64).into();
                    }
                    if let Some(d) = w {
                        u.s_axil_wvalid.next = true;
                        u.s_axil_wdata.next = (d as u64).into();
                        u.s_axil_wstrb.next = 0xF.into();
                    }
                    u.s_axil_bready.next = !rng.percent(stall);
                },
                |u| {
                    (
                        u.s_axil_awvalid.val() && u.s_axil_awready.val(),
                        u.s_axil_wvalid.val() && u.s_axil_wready.val(),
                        u.s_axil_bvalid.val() && u.s_axil_bready.val(),
                    )
                },
            );
            let now = self.s.cycles();
            if af {
                aw_i += 1;
                aw_on = false;
                aw_delay = self.delay();
                aw_at.push(now);
            }
            if wf {
                w_i += 1;
                w_on = false;
                w_delay = self.delay();
                w_at.push(now);
            }
            if bf {
                b_n += 1;
                assert!(b_n <= aw_i && b_n <= w_i, "B before its AW and W");
            }
            assert!(
                self.s.cycles() - t0 < 100_000 + 1000 * n as u64,
                "write burst stuck"
            );
        }
        for (a, w) in aw_at.iter().zip(&w_at) {
            match a.cmp(w) {
                std::cmp::Ordering::Less => self.aw_first += 1,
                std::cmp::Ordering::Greater => self.w_first += 1,
                std::cmp::Ordering::Equal => self.together += 1,
            }
        }
        self.s.cycles() - t0
    }

    /// Read `addrs` in order with independent AR and R processes.
    pub fn read_burst(&mut self, addrs: &[u32]) -> Vec<u32> {
        let t0 = self.s.cycles();
        let n = addrs.len();
        let mut out = vec![];
        let mut ar_i = 0usize;
        let mut ar_delay = self.delay();
        let mut ar_on = false;
        let stall = self.timing.ready_stall;
        while out.len() < n {
            if !ar_on && ar_i < n {
                if ar_delay == 0 {
                    ar_on = true;
                } else {
                    ar_delay -= 1;
                }
            }
            let ar = if ar_on { Some(addrs[ar_i]) } else { None };
            let (af, r) = self.cycle(
                |u, rng| {
                    idle_axi(u, rng);
                    if let Some(a) = ar {
                        u.s_axil_arvalid.next = true;
                        u.s_axil_araddr.next = (a as u64).into();
                    }
                    u.s_axil_rready.next = !rng.percent(stall);
                },
                |u| {
                    let r = if u.s_axil_rvalid.val() && u.s_axil_rready.val() {
                        assert_eq!(u.s_axil_rresp.val().to_u64(), 0, "rresp");
                        Some(u.s_axil_rdata.val().to_u64() as u32)
                    } else {
                        None
                    };
                    (u.s_axil_arvalid.val() && u.s_axil_arready.val(), r)
                },
            );
            if af {
                ar_i += 1;
                ar_on = false;
                ar_delay = self.delay();
            }
            if let Some(v) = r {
                assert!(out.len() < ar_i, "R before its AR");
                out.push(v);
            }
            assert!(
                self.s.cycles() - t0 < 100_000 + 1000 * n as u64,
                "read burst stuck"
            );
        }
        out
    }

    fn delay(&mut self) -> u32 {
        self.rng.range(0, self.timing.max_delay as usize) as u32
    }

    pub fn write(&mut self, addr: u32, data: u32) {
        self.write_burst(&[(addr, data)]);
    }

    pub fn read(&mut self, addr: u32) -> u32 {
        self.read_burst(&[addr])[0]
    }

    /// Write a command sequence (e.g. `QpAttr::modify_writes`).
    pub fn run(&mut self, w: &[RegWrite]) {
        let v: Vec<(u32, u32)> = w.iter().map(|x| (x.offset, x.value)).collect();
        self.write_burst(&v);
    }

    /// Poll a command status register until BUSY clears (panics after `limit` polls).
    pub fn wait_cmd(&mut self, status_reg: u32) -> CmdStatus {
        for _ in 0..10_000 {
            let s = CmdStatus::decode(self.read(status_reg));
            if !s.busy {
                return s;
            }
        }
        panic!("command at {status_reg:#x} never finished");
    }

    /// `run` + `wait_cmd` of the window the last write belongs to.
    pub fn command(&mut self, w: &[RegWrite]) -> CmdStatus {
        self.run(w);
        let last = w.last().expect("empty command").offset;
        let status = if last == regs::QP_CMD {
            regs::QP_CMD_STATUS
        } else if last == regs::MR_CMD {
            regs::MR_CMD_STATUS
        } else {
            assert_eq!(last, regs::CQ_CMD);
            regs::CQ_CMD_STATUS
        };
        self.wait_cmd(status)
    }
}

/// AXI master idle: no valids, junk on the payload lines, readies high.
pub fn idle_axi<const QA: usize, const CA: usize, const MA: usize>(
    u: &mut CsrBlock<QA, CA, MA>,
    rng: &mut Rng,
) {
    u.s_axil_awvalid.next = false;
    u.s_axil_wvalid.next = false;
    u.s_axil_arvalid.next = false;
    u.s_axil_awaddr.next = (rng.next_u64() & ((1 << super::AXIL_ADDR_BITS) - 1)).into();
    u.s_axil_araddr.next = (rng.next_u64() & ((1 << super::AXIL_ADDR_BITS) - 1)).into();
    u.s_axil_wdata.next = (rng.next_u64() & 0xFFFF_FFFF).into();
    u.s_axil_wstrb.next = (rng.next_u64() & 0xF).into();
    u.s_axil_bready.next = true;
    u.s_axil_rready.next = true;
}
