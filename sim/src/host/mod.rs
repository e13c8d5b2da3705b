//! Everything on the host side of the NIC's PCIe boundary, in software (the FPGA's contents are
//! hardware and live in `ferroce-hdl`).
//!
//! * [`memory`]: host memory addressed by IOVA: a sparse byte store, the IOVA allocator
//!   (the IOMMU mappings), the log of the NIC's DMA writes and IOMMU faults, and snapshots for
//!   "memory outside these regions is untouched" checks.
//! * [`dma_shell`]: the PCIe DMA shell that serves the NIC's DMA port
//!   (`ferroce_hdl::dma`, docs/DMA.md) cycle by cycle from the host-memory model, with
//!   configurable latency, bandwidth, back-pressure and write visibility; reachable through
//!   the [`dma_shell::DmaPort`] trait for a rust-hdl block and for a Verilator model.
//! * [`axil`]: an AXI4-Lite master (the host CPU's MMIO reads and writes of BAR0 as they
//!   arrive at the NIC's `s_axil_*` slave port), for rust-hdl blocks and Verilator models.
//! * [`backend`]: [`backend::SimBackend`], the driver's `Backend` over the host-memory model
//!   and a [`backend::RegisterTarget`] (the NIC model, stepped in simulated time).
//!
//! # How a simulated system composes these
//!
//! One simulation cycle of a NIC top level is: every outside model drives the block's inputs
//! (`DmaShell::drive`, `AxiLiteMaster::drive`, MAC feeders...), the block settles, every model
//! samples the handshakes of that cycle (`DmaShell::sample`, `AxiLiteMaster::sample`, ...),
//! then the clock edge. The models' outputs never depend on the block's outputs within the same
//! cycle, so one settle is enough and the order between models does not matter.
pub mod axil;
pub mod backend;
pub mod dma_shell;
pub mod memory;

pub use axil::{AxiLiteMaster, AxiLitePort, AxilIn, AxilOut, Clocked};
pub use backend::{RegisterTarget, SimBackend, DEFAULT_CLOCK_HZ};
pub use dma_shell::{DmaPort, DmaShell, ShellConfig};
pub use memory::{HostMemory, SharedMemory};

/// Lock a mutex, ignoring poisoning: a panic in another thread (a failed assertion in a test)
/// must not turn every later access into a second, unrelated panic.
pub fn lock<T: ?Sized>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
