//! `SimBackend` and the AXI4-Lite master.
//!
//! * The driver's `Backend` contract over a memory-only register target (a plain register file
//!   test double, not a NIC model): DMA buffers read/write/free through the host-memory model,
//!   IOVAs aligned and distinct, interrupts, and timeouts honoured in simulated time.
//! * `AxiLiteMaster` against a small AXI4-Lite register-file slave written in rust-hdl (with
//!   its own ready/valid stalls), on the rust-hdl engine, on the Verilator engine, in lock step,
//!   and behind `SimBackend` as a `RegisterTarget`, i.e. the whole chain a NIC model uses.
use ferroce_driver::{Backend, DmaBuffer, Error};
use ferroce_hdl::cosim::{CoSim, VerilatedBlock};
use ferroce_hdl::testbench::{Bench, Rng, Stepper};
use ferroce_sim::host::axil::{AxilIds, AxilPins, StepperAxiLite, VerilatedAxiLite};
use ferroce_sim::host::backend::{cycles_to_duration, duration_to_cycles, DEFAULT_RELAX_CYCLES};
use ferroce_sim::host::memory::{HostMemory, SharedMemory, PAGE_SIZE};
use ferroce_sim::host::{AxiLiteMaster, RegisterTarget, SimBackend, DEFAULT_CLOCK_HZ};
use rust_hdl::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

// ---- a register-file test double ---------------------------------------------------------------

/// Registers in a map, a cycle counter, and interrupts scripted to fire at given cycles.
/// Each register access costs `ACCESS_CYCLES`, as an AXI4-Lite transaction would.
#[derive(Default)]
struct RegisterFile {
    regs: HashMap<u32, u32>,
    cycles: u64,
    /// (vector, cycle at which it fires)
    scheduled: Vec<(u16, u64)>,
    pending: HashMap<u16, u32>,
    accesses: Vec<(bool, u32, u32)>,
}

const ACCESS_CYCLES: u64 = 4;

impl RegisterFile {
    fn advance(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.cycles += 1;
            let now = self.cycles;
            for (v, _) in self.scheduled.iter().filter(|(_, at)| *at == now) {
                *self.pending.entry(*v).or_default() += 1;
            }
        }
    }
}

impl RegisterTarget for RegisterFile {
    fn axil_read(&mut self, addr: u32) -> u32 {
        self.advance(ACCESS_CYCLES);
        let v = self.regs.get(&addr).copied().unwrap_or(0);
        self.accesses.push((false, addr, v));
        v
    }
    fn axil_write(&mut self, addr: u32, data: u32) {
        self.advance(ACCESS_CYCLES);
        self.regs.insert(addr, data);
        self.accesses.push((true, addr, data));
    }
    fn step(&mut self, cycles: u64) {
        self.advance(cycles);
    }
    fn interrupt_pending(&self, vector: u16) -> bool {
        self.pending.get(&vector).is_some_and(|n| *n > 0)
    }
    fn now(&self) -> Duration {
        cycles_to_duration(self.cycles, DEFAULT_CLOCK_HZ)
    }
    fn ack_interrupt(&mut self, vector: u16) {
        if let Some(n) = self.pending.get_mut(&vector) {
            *n -= 1;
        }
    }
}

fn backend() -> (Arc<SimBackend<RegisterFile>>, SharedMemory) {
    let memory = HostMemory::shared();
    (
        Arc::new(SimBackend::new(RegisterFile::default(), memory.clone())),
        memory,
    )
}

#[test]
fn backend_is_send_sync_and_usable_as_dyn_backend() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SimBackend<RegisterFile>>();
    let (b, _) = backend();
    let dynb: Arc<dyn Backend> = b.clone();
    dynb.write32(0x10c, 0xdead_beef);
    assert_eq!(dynb.read32(0x10c), 0xdead_beef);
    assert_eq!(
        b.target().accesses,
        vec![(true, 0x10c, 0xdead_beef), (false, 0x10c, 0xdead_beef)]
    );
    assert_eq!(b.target().cycles, 2 * ACCESS_CYCLES);
}

#[test]
fn dma_buffers_live_in_the_host_memory_model() {
    let (b, memory) = backend();
    let buf = b.alloc_dma(10_000, 4096).unwrap();
    let iova = buf.iova();
    assert_eq!(buf.len(), 10_000);
    assert_eq!(buf.to_vec(0, 10_000).unwrap(), vec![0; 10_000], "zeroed");
    // driver writes -> the model (what the NIC's DMA reads) sees them at the IOVA
    buf.write(4090, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap();
    buf.write_u64(16, 0x1122_3344_5566_7788).unwrap();
    {
        let mut m = memory.lock().unwrap();
        assert_eq!(
            m.dma_read(iova + 4090, 10).unwrap(),
            vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        );
        assert_eq!(m.read_u64(iova + 16), 0x1122_3344_5566_7788);
        // the NIC writes -> the driver reads them (no caching)
        m.dma_write(iova + 9_000, &[0xee; 1000]).unwrap();
        assert!(
            m.dma_write(iova + 9_001, &[0xee; 1000]).is_err(),
            "past the buffer: IOMMU fault"
        );
    }
    assert_eq!(buf.to_vec(8_999, 3).unwrap(), vec![0, 0xee, 0xee]);
    buf.fill(0, 8, 0x5a).unwrap();
    assert_eq!(
        memory.lock().unwrap().read_vec(iova, 9),
        vec![0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0]
    );
    assert!(matches!(
        buf.write(9_999, &[0, 0]),
        Err(Error::DmaOutOfBounds { .. })
    ));
    // freeing unmaps: the NIC can no longer reach it
    assert!(memory.lock().unwrap().is_mapped(iova, 10_000));
    drop(buf);
    assert!(!memory.lock().unwrap().is_mapped(iova, 1));
    assert!(memory.lock().unwrap().mappings().is_empty());
}

#[test]
fn iovas_are_aligned_distinct_and_recycled_zeroed() {
    let (b, memory) = backend();
    let mut rng = Rng::new(5);
    let mut live: Vec<DmaBuffer> = vec![];
    for round in 0..400 {
        if !live.is_empty() && rng.percent(40) {
            let i = rng.below(live.len() as u64) as usize;
            live.swap_remove(i);
            continue;
        }
        let len = rng.range(1, 70_000);
        let align = 1usize << rng.range(0, 22);
        let buf = b.alloc_dma(len, align).unwrap();
        assert_eq!(
            buf.iova() % align as u64,
            0,
            "round {round}: {buf:?} not aligned to {align:#x}"
        );
        assert_eq!(buf.iova() % PAGE_SIZE, 0, "page-aligned like VFIO mappings");
        assert_eq!(
            buf.to_vec(0, len).unwrap(),
            vec![0; len],
            "fresh memory is zeroed"
        );
        buf.fill(0, len, 0xff).unwrap();
        live.push(buf);
        let mut ranges: Vec<(u64, u64)> = live
            .iter()
            .map(|b| (b.iova(), b.iova() + b.len() as u64))
            .collect();
        ranges.sort();
        for w in ranges.windows(2) {
            assert!(w[0].1 < w[1].0, "overlapping or touching mappings {w:?}");
        }
    }
    assert_eq!(memory.lock().unwrap().mappings().len(), live.len());
    drop(live);
    assert!(memory.lock().unwrap().mappings().is_empty());
    assert!(matches!(b.alloc_dma(0, 8), Err(Error::InvalidArgument(_))));
    assert!(matches!(b.alloc_dma(8, 3), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        b.alloc_dma(1 << 50, 8),
        Err(Error::DmaAlloc { .. })
    ));
}

#[test]
fn wait_interrupt_honours_timeouts_in_simulated_time() {
    let (b, _) = backend();
    let cycle = cycles_to_duration(1, DEFAULT_CLOCK_HZ);
    assert_eq!(cycle, Duration::from_nanos(4));
    // nothing scheduled: false after exactly the timeout of simulated time
    let t0 = b.now();
    let wall = std::time::Instant::now();
    assert!(!b.wait_interrupt(3, Duration::from_micros(10)).unwrap());
    let waited = b.now() - t0;
    assert!(
        waited >= Duration::from_micros(10) && waited < Duration::from_micros(10) + cycle,
        "waited {waited:?}"
    );
    assert!(
        wall.elapsed() < Duration::from_secs(5),
        "simulated, not wall-clock, time"
    );
    // an interrupt 100 cycles ahead: true, at that cycle, consumed once
    let now = b.target().cycles;
    b.target().scheduled.push((3, now + 100));
    b.target().scheduled.push((4, now + 50));
    let t0 = b.now();
    assert!(b.wait_interrupt(3, Duration::from_millis(1)).unwrap());
    assert_eq!(b.now() - t0, cycles_to_duration(100, DEFAULT_CLOCK_HZ));
    assert!(
        !b.wait_interrupt(3, Duration::from_nanos(40)).unwrap(),
        "one firing, one successful wait"
    );
    // vector 4 fired while waiting for 3: still pending, returned without stepping
    let t0 = b.now();
    assert!(b.wait_interrupt(4, Duration::ZERO).unwrap());
    assert_eq!(b.now(), t0);
    // relax advances a few cycles
    let t0 = b.now();
    b.relax();
    assert_eq!(
        b.now() - t0,
        cycles_to_duration(DEFAULT_RELAX_CYCLES, DEFAULT_CLOCK_HZ)
    );
    assert_eq!(
        duration_to_cycles(Duration::from_nanos(9), DEFAULT_CLOCK_HZ),
        3
    );
}

#[test]
fn other_threads_reach_the_target_while_one_waits() {
    let (b, _) = backend();
    let waiter = {
        let b = b.clone();
        std::thread::spawn(move || b.wait_interrupt(7, Duration::from_millis(2)).unwrap())
    };
    // the other thread's accesses interleave with the waiting thread's cycles
    for i in 0..50 {
        b.write32(0x200 + 4 * i, i);
    }
    let now = b.target().cycles;
    b.target().scheduled.push((7, now + 10));
    assert!(
        waiter.join().unwrap(),
        "the interrupt scheduled by this thread fires for the waiter"
    );
    assert_eq!(b.read32(0x200 + 4 * 49), 49);
}

// ---- an AXI4-Lite slave in rust-hdl --------------------------------------------------------------

/// Four 32-bit registers at byte addresses 0x0, 0x4, 0x8, 0xC (byte strobes honoured);
/// reads above 0xC return SLVERR. Ready signals are withheld in a pseudo-random pattern (a
/// free-running counter) to exercise the master's handshakes; B and R come one cycle after the
/// handshakes they answer, from registers.
#[derive(LogicBlock, Default)]
struct AxilRegs {
    clock: Signal<In, Clock>,
    s_axil_awaddr: Signal<In, Bits<21>>,
    s_axil_awvalid: Signal<In, Bit>,
    s_axil_awready: Signal<Out, Bit>,
    s_axil_wdata: Signal<In, Bits<32>>,
    s_axil_wstrb: Signal<In, Bits<4>>,
    s_axil_wvalid: Signal<In, Bit>,
    s_axil_wready: Signal<Out, Bit>,
    s_axil_bresp: Signal<Out, Bits<2>>,
    s_axil_bvalid: Signal<Out, Bit>,
    s_axil_bready: Signal<In, Bit>,
    s_axil_araddr: Signal<In, Bits<21>>,
    s_axil_arvalid: Signal<In, Bit>,
    s_axil_arready: Signal<Out, Bit>,
    s_axil_rdata: Signal<Out, Bits<32>>,
    s_axil_rresp: Signal<Out, Bits<2>>,
    s_axil_rvalid: Signal<Out, Bit>,
    s_axil_rready: Signal<In, Bit>,
    count: DFF<Bits<5>>,
    aw_got: DFF<Bit>,
    aw_addr: DFF<Bits<21>>,
    w_got: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    b_pending: DFF<Bit>,
    r_pending: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    r_err: DFF<Bit>,
    reg0: DFF<Bits<32>>,
    reg1: DFF<Bits<32>>,
    reg2: DFF<Bits<32>>,
    reg3: DFF<Bits<32>>,
    merged: Signal<Local, Bits<32>>,
    old: Signal<Local, Bits<32>>,
    b0: Signal<Local, Bits<8>>,
    b1: Signal<Local, Bits<8>>,
    b2: Signal<Local, Bits<8>>,
    b3: Signal<Local, Bits<8>>,
}

impl Logic for AxilRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, count, aw_got, aw_addr, w_got, w_data, w_strb, b_pending, r_pending,
            r_data, r_err, reg0, reg1, reg2, reg3
        );
        self.count.d.next = self.count.q.val() + 1;
        self.s_axil_awready.next =
            !self.aw_got.q.val() & !self.b_pending.q.val() & !self.count.q.val().get_bit(0);
        self.s_axil_wready.next =
            !self.w_got.q.val() & !self.b_pending.q.val() & !self.count.q.val().get_bit(1);
        self.s_axil_arready.next = !self.r_pending.q.val()
            & !(self.count.q.val().get_bit(2) & self.count.q.val().get_bit(0));
        self.s_axil_bvalid.next = self.b_pending.q.val();
        self.s_axil_bresp.next = 0.into();
        self.s_axil_rvalid.next = self.r_pending.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = 0.into();
        if self.r_err.q.val() {
            self.s_axil_rresp.next = 2.into();
        }
        if self.s_axil_awvalid.val()
            & !self.aw_got.q.val()
            & !self.b_pending.q.val()
            & !self.count.q.val().get_bit(0)
        {
            self.aw_got.d.next = true;
            self.aw_addr.d.next = self.s_axil_awaddr.val();
        }
        if self.s_axil_wvalid.val()
            & !self.w_got.q.val()
            & !self.b_pending.q.val()
            & !self.count.q.val().get_bit(1)
        {
            self.w_got.d.next = true;
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_strb.d.next = self.s_axil_wstrb.val();
        }
        // both halves of a write in: apply it with its byte strobes, answer next cycle
        self.old.next = self.reg0.q.val();
        if self.aw_addr.q.val().get_bits::<2>(2) == 1 {
            self.old.next = self.reg1.q.val();
        }
        if self.aw_addr.q.val().get_bits::<2>(2) == 2 {
            self.old.next = self.reg2.q.val();
        }
        if self.aw_addr.q.val().get_bits::<2>(2) == 3 {
            self.old.next = self.reg3.q.val();
        }
        self.b0.next = self.old.val().get_bits::<8>(0);
        if self.w_strb.q.val().get_bit(0) {
            self.b0.next = self.w_data.q.val().get_bits::<8>(0);
        }
        self.b1.next = self.old.val().get_bits::<8>(8);
        if self.w_strb.q.val().get_bit(1) {
            self.b1.next = self.w_data.q.val().get_bits::<8>(8);
        }
        self.b2.next = self.old.val().get_bits::<8>(16);
        if self.w_strb.q.val().get_bit(2) {
            self.b2.next = self.w_data.q.val().get_bits::<8>(16);
        }
        self.b3.next = self.old.val().get_bits::<8>(24);
        if self.w_strb.q.val().get_bit(3) {
            self.b3.next = self.w_data.q.val().get_bits::<8>(24);
        }
        self.merged.next = bit_cast::<32, 8>(self.b0.val())
            | (bit_cast::<32, 8>(self.b1.val()) << 8)
            | (bit_cast::<32, 8>(self.b2.val()) << 16)
            | (bit_cast::<32, 8>(self.b3.val()) << 24);
        if self.aw_got.q.val() & self.w_got.q.val() & !self.b_pending.q.val() {
            self.aw_got.d.next = false;
            self.w_got.d.next = false;
            self.b_pending.d.next = true;
            if self.aw_addr.q.val().get_bits::<2>(2) == 0 {
                self.reg0.d.next = self.merged.val();
            }
            if self.aw_addr.q.val().get_bits::<2>(2) == 1 {
                self.reg1.d.next = self.merged.val();
            }
            if self.aw_addr.q.val().get_bits::<2>(2) == 2 {
                self.reg2.d.next = self.merged.val();
            }
            if self.aw_addr.q.val().get_bits::<2>(2) == 3 {
                self.reg3.d.next = self.merged.val();
            }
        }
        if self.b_pending.q.val() & self.s_axil_bready.val() {
            self.b_pending.d.next = false;
        }
        if self.r_pending.q.val() & self.s_axil_rready.val() {
            self.r_pending.d.next = false;
        }
        if self.s_axil_arvalid.val()
            & !self.r_pending.q.val()
            & !(self.count.q.val().get_bit(2) & self.count.q.val().get_bit(0))
        {
            self.r_pending.d.next = true;
            self.r_err.d.next = self.s_axil_araddr.val().get_bits::<17>(4).any();
            self.r_data.d.next = self.reg0.q.val();
            if self.s_axil_araddr.val().get_bits::<2>(2) == 1 {
                self.r_data.d.next = self.reg1.q.val();
            }
            if self.s_axil_araddr.val().get_bits::<2>(2) == 2 {
                self.r_data.d.next = self.reg2.q.val();
            }
            if self.s_axil_araddr.val().get_bits::<2>(2) == 3 {
                self.r_data.d.next = self.reg3.q.val();
            }
        }
    }
}

fn pins(u: &mut AxilRegs) -> AxilPins<'_> {
    AxilPins {
        awvalid: &mut u.s_axil_awvalid,
        awready: &mut u.s_axil_awready,
        awaddr: &mut u.s_axil_awaddr,
        awprot: None,
        wvalid: &mut u.s_axil_wvalid,
        wready: &mut u.s_axil_wready,
        wdata: &mut u.s_axil_wdata,
        wstrb: Some(&mut u.s_axil_wstrb),
        bvalid: &mut u.s_axil_bvalid,
        bready: &mut u.s_axil_bready,
        bresp: Some(&mut u.s_axil_bresp),
        arvalid: &mut u.s_axil_arvalid,
        arready: &mut u.s_axil_arready,
        araddr: &mut u.s_axil_araddr,
        arprot: None,
        rvalid: &mut u.s_axil_rvalid,
        rready: &mut u.s_axil_rready,
        rdata: &mut u.s_axil_rdata,
        rresp: Some(&mut u.s_axil_rresp),
    }
}

/// Random writes and reads against a software copy of the four registers.
fn exercise(
    master: &mut AxiLiteMaster,
    mut write: impl FnMut(&mut AxiLiteMaster, u32, u32) -> u8,
    mut read: impl FnMut(&mut AxiLiteMaster, u32) -> (u32, u8),
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let mut model = [0u32; 4];
    for _ in 0..60 {
        let r = rng.below(4) as u32;
        if rng.percent(50) {
            let v = rng.next_u64() as u32;
            assert_eq!(write(master, 4 * r, v), 0);
            model[r as usize] = v;
        } else {
            assert_eq!(read(master, 4 * r), (model[r as usize], 0), "register {r}");
        }
    }
    assert_eq!(read(master, 0x40).1, 2, "SLVERR passes through");
}

#[test]
fn axil_master_on_rust_hdl_block() {
    for jitter in [None, Some(40)] {
        let mut bench = Bench::new(AxilRegs::default(), |u| &mut u.clock);
        let mut m = match jitter {
            Some(p) => AxiLiteMaster::with_jitter(3, p),
            None => AxiLiteMaster::new(),
        };
        let bench = std::cell::RefCell::new(&mut bench);
        exercise(
            &mut m,
            |m, a, v| {
                m.write(
                    &mut StepperAxiLite::new(&mut **bench.borrow_mut(), pins),
                    a,
                    v,
                )
                .resp
            },
            |m, a| {
                let c = m.read(&mut StepperAxiLite::new(&mut **bench.borrow_mut(), pins), a);
                (c.data, c.resp)
            },
            1,
        );
    }
}

#[test]
fn axil_master_on_verilator_and_in_lock_step() {
    if !ferroce_testkit::require_tool("verilator") {
        return;
    }
    let mut vb = VerilatedBlock::new(&mut AxilRegs::default());
    let ids = AxilIds::new(&vb, "s_axil");
    let vb = std::cell::RefCell::new(&mut vb);
    let mut m = AxiLiteMaster::with_jitter(4, 30);
    exercise(
        &mut m,
        |m, a, v| {
            m.write(&mut VerilatedAxiLite::new(&mut vb.borrow_mut(), &ids), a, v)
                .resp
        },
        |m, a| {
            let c = m.read(&mut VerilatedAxiLite::new(&mut vb.borrow_mut(), &ids), a);
            (c.data, c.resp)
        },
        2,
    );
    let mut cs = CoSim::new(AxilRegs::default(), |u| &mut u.clock);
    let cs_cell = std::cell::RefCell::new(&mut cs);
    let mut m = AxiLiteMaster::with_jitter(5, 30);
    exercise(
        &mut m,
        |m, a, v| {
            m.write(
                &mut StepperAxiLite::new(&mut **cs_cell.borrow_mut(), pins),
                a,
                v,
            )
            .resp
        },
        |m, a| {
            let c = m.read(
                &mut StepperAxiLite::new(&mut **cs_cell.borrow_mut(), pins),
                a,
            );
            (c.data, c.resp)
        },
        3,
    );
    assert!(cs_cell.borrow().compares > 500);
}

#[test]
fn byte_strobes_reach_the_slave() {
    use ferroce_sim::host::axil::{AxiLitePort, AxilIn, AxilOut, Clocked};
    let mut bench = Bench::new(AxilRegs::default(), |u| &mut u.clock);
    let mut m = AxiLiteMaster::new();
    m.write(&mut StepperAxiLite::new(&mut bench, pins), 8, 0x1122_3344);
    // a raw partial write through the port trait: only byte 1
    let mut p = StepperAxiLite::new(&mut bench, pins);
    p.set(AxilIn::AwAddr, 8);
    p.set(AxilIn::WData, 0xaabb_ccdd);
    p.set(AxilIn::WStrb, 0b0010);
    p.set(AxilIn::AwValid, 1);
    p.set(AxilIn::WValid, 1);
    p.set(AxilIn::BReady, 1);
    let (mut aw, mut w) = (false, false);
    for _ in 0..20 {
        p.settle();
        aw |= p.get(AxilOut::AwReady) != 0;
        w |= p.get(AxilOut::WReady) != 0;
        let b = p.get(AxilOut::BValid) != 0;
        p.tick();
        p.set(AxilIn::AwValid, !aw as u64);
        p.set(AxilIn::WValid, !w as u64);
        if b {
            break;
        }
    }
    p.set(AxilIn::AwValid, 0);
    p.set(AxilIn::WValid, 0);
    p.set(AxilIn::BReady, 0);
    for _ in 0..3 {
        p.tick();
    }
    assert_eq!(
        m.read(&mut StepperAxiLite::new(&mut bench, pins), 8).data,
        0x1122_cc44
    );
}

/// The chain a NIC model uses: driver -> SimBackend -> RegisterTarget -> AxiLiteMaster ->
/// the hardware's s_axil_* port, with time advancing by the transactions' real cycle counts.
struct HdlTarget {
    bench: Bench<AxilRegs>,
    master: AxiLiteMaster,
}

impl RegisterTarget for HdlTarget {
    fn axil_read(&mut self, addr: u32) -> u32 {
        self.master
            .read(&mut StepperAxiLite::new(&mut self.bench, pins), addr)
            .data
    }
    fn axil_write(&mut self, addr: u32, data: u32) {
        self.master
            .write(&mut StepperAxiLite::new(&mut self.bench, pins), addr, data);
    }
    fn step(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.bench.tick();
        }
    }
    fn interrupt_pending(&self, _vector: u16) -> bool {
        false
    }
    fn now(&self) -> Duration {
        cycles_to_duration(self.bench.cycles(), DEFAULT_CLOCK_HZ)
    }
}

#[test]
fn sim_backend_over_an_hdl_register_block() {
    let target = HdlTarget {
        bench: Bench::new(AxilRegs::default(), |u| &mut u.clock),
        master: AxiLiteMaster::with_jitter(9, 20),
    };
    let b: Arc<dyn Backend> = Arc::new(SimBackend::new(target, HostMemory::shared()));
    let t0 = b.now();
    b.write32(4, 0x0102_0304);
    b.write32(12, 0xfeed_f00d);
    assert_eq!(b.read32(4), 0x0102_0304);
    assert_eq!(b.read32(12), 0xfeed_f00d);
    assert!(b.now() > t0, "register accesses take simulated time");
    assert!(!b.wait_interrupt(0, Duration::from_micros(1)).unwrap());
}
