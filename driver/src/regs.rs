//! BAR0 register access.
//!
//! Every register access of the driver goes through exactly two functions,
//! [`Registers::read`] and [`Registers::write`]. They are the audit point: they check that
//! the offset is a 4-byte aligned offset inside BAR0 (the NIC only implements aligned 32-bit
//! AXI4-Lite accesses) and hand the access to the backend. Everything else here is built on
//! them:
//!
//! * 64-bit LO/HI pairs in the documented order (LO first for both reads and writes, so
//!   counters read as a consistent snapshot and live registers apply on the HI write);
//! * doorbells, preceded by a release fence so the WQE bytes are visible before the NIC
//!   fetches them (HOST-INTERFACE.md 5.3);
//! * command windows: wait for BUSY to clear, write the sequence built by `ferroce_proto`,
//!   poll BUSY, decode RESULT (HOST-INTERFACE.md 6), all under a per-window lock because the
//!   staging registers are shared.
//!
//! Offsets and register sequences always come from `ferroce_proto::host`; this module never
//! spells a register offset itself.

use core::sync::atomic::{fence, Ordering};
use core::time::Duration;
use std::sync::{Arc, Mutex, MutexGuard};

use ferroce_proto::host::regs::{self, CmdResult, CmdStatus};
use ferroce_proto::host::{join64, split64, RegWrite};

use crate::backend::Backend;
use crate::error::{Error, Result, Window};

impl Window {
    /// The window's status register (BUSY and RESULT).
    pub const fn status_offset(self) -> u32 {
        match self {
            Window::Qp => regs::QP_CMD_STATUS,
            Window::Mr => regs::MR_CMD_STATUS,
            Window::Cq => regs::CQ_CMD_STATUS,
        }
    }

    /// The window's command register (the write that starts a command).
    pub const fn command_offset(self) -> u32 {
        match self {
            Window::Qp => regs::QP_CMD,
            Window::Mr => regs::MR_CMD,
            Window::Cq => regs::CQ_CMD,
        }
    }

    const fn index(self) -> usize {
        match self {
            Window::Qp => 0,
            Window::Mr => 1,
            Window::Cq => 2,
        }
    }
}

/// Typed access to BAR0 of one NIC.
pub struct Registers {
    backend: Arc<dyn Backend>,
    /// One lock per command window: its staging registers are shared, so a command's writes,
    /// its BUSY polling and the reading of its results must not interleave with another's.
    windows: [Mutex<()>; 3],
    command_timeout: Duration,
}

/// True for an offset the NIC decodes: 4-byte aligned and inside BAR0.
const fn valid_offset(offset: u32) -> bool {
    offset.is_multiple_of(4) && offset < regs::BAR0_SIZE
}

impl Registers {
    /// Register access over `backend`; commands time out after `command_timeout` of
    /// backend time.
    pub fn new(backend: Arc<dyn Backend>, command_timeout: Duration) -> Registers {
        Registers {
            backend,
            windows: Default::default(),
            command_timeout,
        }
    }

    /// The backend (for DMA allocation, interrupts and the clock).
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Read one 32-bit register. Audited access #1.
    ///
    /// An offset that is unaligned or outside BAR0 is a driver bug: it asserts in debug
    /// builds, and in release builds reads 0 without touching the bus, which is what the
    /// NIC answers for reserved offsets.
    pub fn read(&self, offset: u32) -> u32 {
        if !valid_offset(offset) {
            debug_assert!(false, "register read at invalid offset {offset:#x}");
            return 0;
        }
        self.backend.read32(offset)
    }

    /// Write one 32-bit register. Audited access #2.
    ///
    /// An invalid offset is a driver bug: it asserts in debug builds and is dropped in
    /// release builds (the NIC ignores writes to reserved offsets too).
    pub fn write(&self, offset: u32, value: u32) {
        if !valid_offset(offset) {
            debug_assert!(false, "register write at invalid offset {offset:#x}");
            return;
        }
        self.backend.write32(offset, value);
    }

    /// Read a 64-bit LO/HI pair: LO first, which latches the HI half of a counter.
    pub fn read64(&self, lo_offset: u32) -> u64 {
        let lo = self.read(lo_offset);
        let hi = self.read(lo_offset + 4);
        join64(lo, hi)
    }

    /// Write a 64-bit LO/HI pair: LO first, so the HI write applies a live register whole.
    pub fn write64(&self, lo_offset: u32, value: u64) {
        let (lo, hi) = split64(value);
        self.write(lo_offset, lo);
        self.write(lo_offset + 4, hi);
    }

    /// Perform `writes` in order (sequences built by `ferroce_proto`).
    pub fn apply(&self, writes: &[RegWrite]) {
        for w in writes {
            self.write(w.offset, w.value);
        }
    }

    /// Ring a doorbell. The release fence orders every earlier store to DMA memory (the WQE)
    /// before the doorbell write, as HOST-INTERFACE.md 5.3 requires.
    pub fn doorbell(&self, write: RegWrite) {
        debug_assert!(
            regs::Doorbell::decode(write.offset).is_some(),
            "{:#x} is not a doorbell",
            write.offset
        );
        fence(Ordering::Release);
        self.write(write.offset, write.value);
    }

    /// Poll until `done` holds, calling [`Backend::relax`] between polls, for at most
    /// `timeout` of backend time.
    pub fn wait_until(
        &self,
        what: &'static str,
        timeout: Duration,
        mut done: impl FnMut(&Registers) -> bool,
    ) -> Result<()> {
        let start = self.backend.now();
        loop {
            if done(self) {
                return Ok(());
            }
            if self.backend.now().saturating_sub(start) >= timeout {
                // One last look: the device may have finished while we were timing out.
                return if done(self) {
                    Ok(())
                } else {
                    Err(Error::Timeout {
                        what,
                        after: timeout,
                    })
                };
            }
            self.backend.relax();
        }
    }

    /// Wait for `window`'s BUSY to clear and return the final status.
    fn wait_idle(&self, window: Window) -> Result<CmdStatus> {
        let mut status = CmdStatus::decode(0);
        self.wait_until("command window BUSY to clear", self.command_timeout, |r| {
            status = CmdStatus::decode(r.read(window.status_offset()));
            !status.busy
        })?;
        Ok(status)
    }

    /// Run one command (HOST-INTERFACE.md 6): wait until the window is idle, write the
    /// sequence (selector, staging registers, command register last), wait for BUSY to clear,
    /// and decode RESULT. `then` runs while the window is still locked, to read what a QUERY
    /// left in the staging registers.
    pub fn command<T>(
        &self,
        window: Window,
        writes: &[RegWrite],
        then: impl FnOnce(&Registers) -> T,
    ) -> Result<T> {
        debug_assert_eq!(
            writes.last().map(|w| w.offset),
            Some(window.command_offset()),
            "a command sequence ends with the command register"
        );
        let _guard = self.lock_window(window);
        self.wait_idle(window)?;
        self.apply(writes);
        let status = self.wait_idle(window)?;
        match status.result {
            Ok(CmdResult::Ok) => Ok(then(self)),
            Ok(result) => Err(Error::Command { window, result }),
            Err(raw) => Err(Error::UnknownCommandResult { window, raw }),
        }
    }

    fn lock_window(&self, window: Window) -> MutexGuard<'_, ()> {
        // A panic while holding the lock cannot leave the window in a state the next command
        // does not handle (it waits for BUSY first), so a poisoned lock is still usable.
        self.windows[window.index()]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}
