//! `ferroce-vfio-edu`: checks the driver's generic VFIO layer ([`VfioDevice`]) on a real kernel
//! against QEMU's `edu` PCI device (QEMU `docs/specs/edu.txt`), which has a DMA engine.
//!
//! ```text
//! ferroce-vfio-edu --pci 0000:00:02.0
//! ```
//! The device must be bound to `vfio-pci` behind an IOMMU (`scripts/vfio/guest-test.sh` boots
//! a QEMU guest with a virtual VT-d IOMMU and does it). The program
//! 1. opens the device through VFIO, checks the edu identity and liveness registers on BAR0;
//! 2. maps two DMA buffers and has the device copy a seeded pattern from one buffer into its
//!    own memory and back out into the other, then compares byte for byte, for several sizes
//!    and offsets;
//! 3. programs DMA reads and writes at IOVAs outside every mapping, and at the IOVA of a buffer
//!    that was dropped (unmapped), and requires each to be reported as
//!    [`VfioError::DmaFault`] with the right direction and page, with no mapped byte changed.
//!
//! It prints one `vfio-edu:` line per step and exits 0 only if every step held; 1 otherwise,
//! 2 for bad arguments.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ferroce_driver::backend::vfio::{
    DmaAccess, IommuFaultLog, PciAddress, VfioDevice, VfioDeviceOptions, VfioError,
};
use ferroce_driver::DmaBuffer;

/// edu registers (QEMU docs/specs/edu.txt), BAR0 offsets.
const EDU_ID: u32 = 0x00;
const EDU_LIVENESS: u32 = 0x04;
const EDU_DMA_SRC: u32 = 0x80;
const EDU_DMA_DST: u32 = 0x88;
const EDU_DMA_COUNT: u32 = 0x90;
const EDU_DMA_CMD: u32 = 0x98;
/// DMA command bits: start (stays set while the transfer runs), direction (set: from the
/// device's memory to the bus address).
const DMA_CMD_START: u32 = 0x1;
const DMA_CMD_TO_BUS: u32 = 0x2;
/// The device's own DMA memory: 4096 bytes at device address 0x40000. QEMU 7.2's range check
/// wants the end of a transfer strictly below 0x41000 (and stops the machine otherwise), so a
/// transfer ends at most at byte 4095.
const EDU_MEM: u64 = 0x4_0000;
const EDU_MEM_LEN: usize = 4096;
const EDU_MEM_END: usize = EDU_MEM_LEN - 1;
/// edu masks bus addresses to 28 bits: every IOVA stays below that.
const IOVA_START: u64 = 0x10_0000;
const IOVA_END: u64 = 1 << 28;
/// IOVAs inside the window that no buffer ever gets (the allocator fills from the bottom).
const UNMAPPED_READ: u64 = 0x0800_0000;
const UNMAPPED_WRITE: u64 = 0x0900_3000;
/// How long the kernel may take to log a fault after the transfer ended.
const FAULT_SETTLE: Duration = Duration::from_millis(500);

#[derive(Debug)]
enum Failure {
    Vfio(VfioError),
    Driver(ferroce_driver::Error),
    Check(String),
}

impl From<VfioError> for Failure {
    fn from(e: VfioError) -> Self {
        Failure::Vfio(e)
    }
}
impl From<ferroce_driver::Error> for Failure {
    fn from(e: ferroce_driver::Error) -> Self {
        Failure::Driver(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Vfio(e) => write!(f, "{e}"),
            Failure::Driver(e) => write!(f, "{e}"),
            Failure::Check(s) => f.write_str(s),
        }
    }
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::Check(what()))
    }
}

/// The edu device on a [`VfioDevice`].
struct Edu {
    dev: VfioDevice,
    faults: IommuFaultLog,
}

impl Edu {
    /// Run one DMA transfer of `count` bytes and wait for the engine to finish.
    fn dma(&self, src: u64, dst: u64, count: usize, to_bus: bool) -> Result<(), Failure> {
        let mem = if to_bus { src } else { dst };
        assert!(
            mem >= EDU_MEM && mem + count as u64 <= EDU_MEM + EDU_MEM_END as u64,
            "device memory range"
        );
        let bar = self.dev.bar0();
        // Bus addresses are below 2^28 and the device memory at 0x40000: the low halves of the
        // 64-bit registers carry them (a 32-bit write zero-extends).
        bar.write32(EDU_DMA_SRC, u32::try_from(src).expect("28-bit address"));
        bar.write32(EDU_DMA_DST, u32::try_from(dst).expect("28-bit address"));
        bar.write32(EDU_DMA_COUNT, count as u32);
        let dir = if to_bus { DMA_CMD_TO_BUS } else { 0 };
        bar.write32(EDU_DMA_CMD, DMA_CMD_START | dir);
        let t0 = Instant::now();
        while bar.read32(EDU_DMA_CMD) & DMA_CMD_START != 0 {
            check(t0.elapsed() < Duration::from_secs(10), || {
                "the edu DMA engine did not finish within 10 s".into()
            })?;
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Bus memory -> device memory, then the IOMMU's verdict.
    fn dma_in(&mut self, iova: u64, dev_off: usize, count: usize) -> Result<(), Failure> {
        self.dma(iova, EDU_MEM + dev_off as u64, count, false)?;
        Ok(self.faults.check(FAULT_SETTLE)?)
    }

    /// Device memory -> bus memory, then the IOMMU's verdict.
    fn dma_out(&mut self, dev_off: usize, iova: u64, count: usize) -> Result<(), Failure> {
        self.dma(EDU_MEM + dev_off as u64, iova, count, true)?;
        Ok(self.faults.check(FAULT_SETTLE)?)
    }
}

/// A seeded xorshift byte pattern.
fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Expect `r` to be the IOMMU fault of `access` at `iova`'s page.
fn expect_fault(r: Result<(), Failure>, access: DmaAccess, iova: u64) -> Result<String, Failure> {
    match r {
        Err(Failure::Vfio(e @ VfioError::DmaFault { .. })) => {
            let VfioError::DmaFault {
                access: a, page, ..
            } = &e
            else {
                unreachable!()
            };
            check(*a == access && *page == iova & !0xfff, || {
                format!("wrong fault reported for {access} at {iova:#x}: {e}")
            })?;
            Ok(e.to_string())
        }
        Err(e) => Err(e),
        Ok(()) => Err(Failure::Check(format!(
            "{access} at unmapped IOVA {iova:#x} was not reported as a fault"
        ))),
    }
}

fn unchanged(buf: &DmaBuffer, want: &[u8], what: &str) -> Result<(), Failure> {
    let got = buf.to_vec(0, want.len())?;
    check(got == want, || format!("{what} changed"))
}

fn run(pci: PciAddress) -> Result<(), Failure> {
    let faults = IommuFaultLog::open(pci)?;
    let dev = VfioDevice::open_with(
        &pci.to_string(),
        VfioDeviceOptions {
            iova_start: IOVA_START,
            iova_end: IOVA_END,
            bar0_min: 0x100,
        },
    )?;
    let id = dev.bar0().read32(EDU_ID);
    check(id & 0xffff == 0x00ed, || {
        format!("BAR0 identity {id:#010x} is not edu's (0xRRrr00ed)")
    })?;
    for v in [0x1234_5678u32, 0xffff_0000] {
        dev.bar0().write32(EDU_LIVENESS, v);
        let r = dev.bar0().read32(EDU_LIVENESS);
        check(r == !v, || format!("liveness: wrote {v:#x}, read {r:#x}"))?;
    }
    println!(
        "vfio-edu: opened {pci}: BAR0 {:#x} bytes, edu version {}.{}",
        dev.bar0().len(),
        id >> 24,
        (id >> 16) & 0xff
    );
    let mut edu = Edu { dev, faults };

    // Byte-for-byte round trips: src buffer -> device memory -> dst buffer.
    let src = edu.dev.alloc_dma(2 * EDU_MEM_LEN, 4096)?;
    let dst = edu.dev.alloc_dma(3 * EDU_MEM_LEN + 100, 1 << 16)?;
    check(
        src.iova() >= IOVA_START && dst.iova() + dst.len() as u64 <= IOVA_END,
        || "IOVA outside the window".into(),
    )?;
    let mut moved = 0;
    for (i, &(src_off, dev_off, dst_off, len)) in [
        (0usize, 0usize, 0usize, EDU_MEM_END),
        (4096 + 17, 5, 3 * EDU_MEM_LEN - 900, 1000),
        (123, 2047, 8191, 2047),
        (8191, EDU_MEM_END - 1, 1, 1),
    ]
    .iter()
    .enumerate()
    {
        let data = pattern(0x4791 + i as u64, len);
        src.write(src_off, &data)?;
        dst.fill(0, dst.len(), 0xa5)?;
        edu.dma_in(src.iova() + src_off as u64, dev_off, len)?;
        edu.dma_out(dev_off, dst.iova() + dst_off as u64, len)?;
        let got = dst.to_vec(dst_off, len)?;
        check(got == data, || {
            let at = got.iter().zip(&data).position(|(a, b)| a != b).unwrap_or(0);
            format!(
                "round trip {i}: byte {at} differs ({:#04x} != {:#04x})",
                got[at], data[at]
            )
        })?;
        let all = dst.to_vec(0, dst.len())?;
        let outside = all[..dst_off].iter().chain(&all[dst_off + len..]);
        check(outside.into_iter().all(|&b| b == 0xa5), || {
            format!("round trip {i}: the device wrote outside the {len} bytes")
        })?;
        moved += 2 * len;
    }
    println!(
        "vfio-edu: DMA through the IOMMU: 4 round trips, {moved} bytes moved, identical byte for byte \
         (src IOVA {:#x}, dst IOVA {:#x})",
        src.iova(),
        dst.iova()
    );

    // Unmapped IOVAs: the IOMMU refuses, the driver reports a typed fault, nothing mapped moves.
    let src_bytes = src.to_vec(0, src.len())?;
    let dst_bytes = dst.to_vec(0, dst.len())?;
    let e = expect_fault(
        edu.dma_in(UNMAPPED_READ, 0, 256),
        DmaAccess::Read,
        UNMAPPED_READ,
    )?;
    println!("vfio-edu: read at unmapped IOVA {UNMAPPED_READ:#x}: {e}");
    let e = expect_fault(
        edu.dma_out(0, UNMAPPED_WRITE + 0x40, 512),
        DmaAccess::Write,
        UNMAPPED_WRITE,
    )?;
    println!(
        "vfio-edu: write at unmapped IOVA {:#x}: {e}",
        UNMAPPED_WRITE + 0x40
    );
    unchanged(&src, &src_bytes, "a mapped buffer (src) after the faults")?;
    unchanged(&dst, &dst_bytes, "a mapped buffer (dst) after the faults")?;

    // RAII: a dropped buffer is unmapped, so its IOVA faults from then on.
    let gone = dst.iova();
    drop(dst);
    let e = expect_fault(edu.dma_out(0, gone, 64), DmaAccess::Write, gone)?;
    println!("vfio-edu: write at the IOVA {gone:#x} of a dropped buffer: {e}");

    // And the device still works through the mappings that remain.
    let data = pattern(7, 512);
    src.write(0, &data)?;
    edu.dma_in(src.iova(), 1024, 512)?;
    src.fill(0, 512, 0)?;
    edu.dma_out(1024, src.iova() + 4096, 512)?;
    check(src.to_vec(4096, 512)? == data, || {
        "round trip after the faults differs".into()
    })?;
    println!("vfio-edu: after the faults the device still moves data correctly");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pci = match args.as_slice() {
        [flag, pci] if flag == "--pci" => match pci.parse::<PciAddress>() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("ferroce-vfio-edu: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!(
                "usage: ferroce-vfio-edu --pci DDDD:BB:DD.F   (an edu device bound to vfio-pci)"
            );
            return ExitCode::from(2);
        }
    };
    match run(pci) {
        Ok(()) => {
            println!("vfio-edu: PASS");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("vfio-edu: FAIL: {e}");
            ExitCode::from(1)
        }
    }
}
