//! [`RetransmitTimer`]: the requester's per-QP timers (the local ACK timeout and the RNR wait,
//! IBTA Vol 1, 9.7.6.1.2 and 9.7.5.2.8), the tick count they run on, and the scanner that finds
//! the expired ones.
//!
//! # Why a job copy and a scanner copy
//!
//! The requester works on one QP at a time: a job reads the QP's timer when it starts, changes
//! it in a register while it runs (arms it when a message's last packet leaves, re-arms it on
//! progress, stops it when nothing is outstanding, turns it into an RNR wait), and writes it
//! back when it ends. The scanner must meanwhile look at every QP's timer, and a block RAM has
//! one read port, so the timers are kept twice: `ram_job` (read at `job_qpn`) and `ram_scan`
//! (read by the scanner, one QP per cycle: a full pass every `2^QA` cycles, 0.26 us at 256 QPs
//! and 250 MHz, far below the 1.024 us tick). Every write goes to both.
//!
//! A timer found expired is held on `exp_*` until the requester takes it (the scanner stops
//! meanwhile, so nothing is lost and nothing is found twice while held). The requester re-reads
//! the QP's own timer in its job, so a find that went stale (the timer was re-armed or stopped
//! since the scanner read it) does nothing there.
//!
//! # Ports
//!
//! * `tick`: one pulse per 1.024 us ([`crate::nic::TimeBase`]); `now`: the tick count (32
//!   bits, wrapping: deadlines are compared modulo 2^32, so a timer may run up to 2^31 ticks).
//! * `job_qpn` -> `job_armed`, `job_rnr`, `job_deadline`: the QP's timer, one cycle after the
//!   address (a RAM read).
//! * `set_valid`, `set_qpn`, `set_armed`, `set_rnr`, `set_deadline`: write a QP's timer: arm it
//!   (`set_armed`, an RNR wait if `set_rnr`, else the ACK timeout, expiring when `now` reaches
//!   `set_deadline`) or stop it (`set_armed` low). Always taken.
//! * `exp_valid`/`exp_ready`, `exp_qpn`, `exp_rnr`: an expired timer (its QP, its kind); taken
//!   when both are high.
use rust_hdl::prelude::*;

/// One QP's timer, as the RAMs hold it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, LogicStruct)]
pub struct QpTimer {
    /// The timer runs.
    pub armed: Bit,
    /// It is an RNR wait (nothing is sent until it expires), else the local ACK timeout.
    pub rnr: Bit,
    /// The tick count at which it expires (modulo 2^32).
    pub deadline: Bits<32>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum TimerScanState {
    /// The scanner reads one QP's timer copy per cycle and checks the one read the cycle
    /// before.
    Scanning,
    /// An expired timer was found: it is offered on `exp_*` until taken, the scanner waits.
    Holding,
}

#[derive(LogicBlock)]
pub struct RetransmitTimer<const QA: usize> {
    pub clock: Signal<In, Clock>,
    /// one pulse per timer tick (1.024 us)
    pub tick: Signal<In, Bit>,
    /// the tick count (wrapping)
    pub now: Signal<Out, Bits<32>>,
    /// the QP whose timer `job_*` shows in the next cycle
    pub job_qpn: Signal<In, Bits<QA>>,
    pub job_armed: Signal<Out, Bit>,
    pub job_rnr: Signal<Out, Bit>,
    pub job_deadline: Signal<Out, Bits<32>>,
    /// write a QP's timer (arm with a kind and a deadline, or stop): both copies
    pub set_valid: Signal<In, Bit>,
    pub set_qpn: Signal<In, Bits<QA>>,
    pub set_armed: Signal<In, Bit>,
    pub set_rnr: Signal<In, Bit>,
    pub set_deadline: Signal<In, Bits<32>>,
    /// an expired timer, held until taken
    pub exp_valid: Signal<Out, Bit>,
    pub exp_ready: Signal<In, Bit>,
    pub exp_qpn: Signal<Out, Bits<QA>>,
    /// the expired timer was an RNR wait (else the ACK timeout)
    pub exp_rnr: Signal<Out, Bit>,

    /// the timers the jobs read
    ram_job: RAM<QpTimer, QA>,
    /// the same timers, for the scanner (a RAM has one read port)
    ram_scan: RAM<QpTimer, QA>,
    ticks: DFF<Bits<32>>,
    /// the QP the scanner reads now, and the one whose timer `ram_scan` shows
    scan: DFF<Bits<QA>>,
    scan_prev: DFF<Bits<QA>>,
    state: DFF<TimerScanState>,
    /// the expired timer held
    found_qpn: DFF<Bits<QA>>,
    found_rnr: DFF<Bit>,
    set_word: Signal<Local, QpTimer>,
    /// ticks since the scanned timer's deadline (bit 31 clear: it is due)
    scan_late: Signal<Local, Bits<32>>,
}

impl<const QA: usize> Default for RetransmitTimer<QA> {
    fn default() -> Self {
        assert!((1..=16).contains(&QA), "RetransmitTimer: QA must be 1..=16");
        RetransmitTimer {
            clock: Default::default(),
            tick: Default::default(),
            now: Default::default(),
            job_qpn: Default::default(),
            job_armed: Default::default(),
            job_rnr: Default::default(),
            job_deadline: Default::default(),
            set_valid: Default::default(),
            set_qpn: Default::default(),
            set_armed: Default::default(),
            set_rnr: Default::default(),
            set_deadline: Default::default(),
            exp_valid: Default::default(),
            exp_ready: Default::default(),
            exp_qpn: Default::default(),
            exp_rnr: Default::default(),
            ram_job: RAM::from((0..(1usize << QA)).map(|_| QpTimer::default())),
            ram_scan: RAM::from((0..(1usize << QA)).map(|_| QpTimer::default())),
            ticks: Default::default(),
            scan: Default::default(),
            scan_prev: Default::default(),
            state: Default::default(),
            found_qpn: Default::default(),
            found_rnr: Default::default(),
            set_word: Default::default(),
            scan_late: Default::default(),
        }
    }
}

impl<const QA: usize> Logic for RetransmitTimer<QA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ticks, scan, scan_prev, state, found_qpn, found_rnr);
        self.ram_job.read_clock.next = self.clock.val();
        self.ram_job.write_clock.next = self.clock.val();
        self.ram_scan.read_clock.next = self.clock.val();
        self.ram_scan.write_clock.next = self.clock.val();
        // ---- defaults
        self.now.next = self.ticks.q.val();
        if self.tick.val() {
            self.ticks.d.next = self.ticks.q.val() + 1;
        }
        self.ram_job.read_address.next = self.job_qpn.val();
        self.job_armed.next = self.ram_job.read_data.val().armed;
        self.job_rnr.next = self.ram_job.read_data.val().rnr;
        self.job_deadline.next = self.ram_job.read_data.val().deadline;
        self.set_word.next.armed = self.set_armed.val();
        self.set_word.next.rnr = self.set_rnr.val();
        self.set_word.next.deadline = self.set_deadline.val();
        self.ram_job.write_address.next = self.set_qpn.val();
        self.ram_job.write_data.next = self.set_word.val();
        self.ram_job.write_enable.next = self.set_valid.val();
        self.ram_scan.write_address.next = self.set_qpn.val();
        self.ram_scan.write_data.next = self.set_word.val();
        self.ram_scan.write_enable.next = self.set_valid.val();
        self.exp_valid.next = false;
        self.exp_qpn.next = self.found_qpn.q.val();
        self.exp_rnr.next = self.found_rnr.q.val();
        // the scanner: `ram_scan` shows the timer of `scan_prev`
        self.ram_scan.read_address.next = self.scan.q.val();
        self.scan_prev.d.next = self.scan.q.val();
        self.scan_late.next = self.ticks.q.val() - self.ram_scan.read_data.val().deadline;
        match self.state.q.val() {
            TimerScanState::Scanning => {
                self.scan.d.next = self.scan.q.val() + 1;
                if self.ram_scan.read_data.val().armed & !self.scan_late.val().get_bit(31) {
                    self.found_qpn.d.next = self.scan_prev.q.val();
                    self.found_rnr.d.next = self.ram_scan.read_data.val().rnr;
                    self.state.d.next = TimerScanState::Holding;
                }
            }
            TimerScanState::Holding => {
                self.exp_valid.next = true;
                if self.exp_ready.val() {
                    self.state.d.next = TimerScanState::Scanning;
                }
            }
        }
    }
}

/// What the block's outputs show in one cycle (after the inputs of that cycle settle).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimerOutputs {
    pub now: u32,
    pub job: (bool, bool, u32),
    pub exp: Option<(u32, bool)>,
}

/// The inputs of one cycle.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimerInputs {
    pub tick: bool,
    pub job_qpn: u32,
    /// (QPN, armed, RNR kind, deadline)
    pub set: Option<(u32, bool, bool, u32)>,
    pub exp_ready: bool,
}

/// The reference model, cycle by cycle, in plain Rust: a tick count, two copies of every
/// QP's timer (read one cycle after the address, the old value when the same QP is written at
/// the same edge), a scanner that walks the QPs in order and holds the first due timer it
/// reads until it is taken.
#[derive(Clone, Debug)]
pub struct RetransmitTimerModel {
    qps: usize,
    now: u32,
    job: Vec<(bool, bool, u32)>,
    scan_copy: Vec<(bool, bool, u32)>,
    job_read: (bool, bool, u32),
    scan_read: (bool, bool, u32),
    scan: u32,
    scan_prev: u32,
    found: Option<(u32, bool)>,
}

impl RetransmitTimerModel {
    pub fn new(qa: usize) -> Self {
        let qps = 1usize << qa;
        RetransmitTimerModel {
            qps,
            now: 0,
            job: vec![(false, false, 0); qps],
            scan_copy: vec![(false, false, 0); qps],
            job_read: (false, false, 0),
            scan_read: (false, false, 0),
            scan: 0,
            scan_prev: 0,
            found: None,
        }
    }

    /// The outputs in the current cycle (they do not depend on this cycle's inputs).
    pub fn outputs(&self) -> TimerOutputs {
        TimerOutputs {
            now: self.now,
            job: self.job_read,
            exp: self.found,
        }
    }

    /// The clock edge at the end of a cycle with inputs `i`.
    pub fn clock(&mut self, i: &TimerInputs) {
        let mask = (self.qps - 1) as u32;
        // this cycle's scanner address; `scan_read` is the timer of `scan_prev`
        let addr = self.scan;
        match self.found {
            None => {
                let (armed, rnr, deadline) = self.scan_read;
                // due: now at or past the deadline, modulo 2^32 (less than 2^31 ticks late)
                if armed && self.now.wrapping_sub(deadline) < 1 << 31 {
                    self.found = Some((self.scan_prev, rnr));
                }
                self.scan = (self.scan + 1) & mask;
            }
            Some(_) => {
                if i.exp_ready {
                    self.found = None;
                }
            }
        }
        self.scan_prev = addr;
        // reads see the words before this edge's write
        self.job_read = self.job[i.job_qpn as usize];
        self.scan_read = self.scan_copy[addr as usize];
        if let Some((q, armed, rnr, deadline)) = i.set {
            self.job[q as usize] = (armed, rnr, deadline);
            self.scan_copy[q as usize] = (armed, rnr, deadline);
        }
        if i.tick {
            self.now = self.now.wrapping_add(1);
        }
    }
}
