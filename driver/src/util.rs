//! Small internal helpers: number allocation, lock handling, and memory the NIC may still use.

use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::{Mutex, MutexGuard};

/// Lock a mutex, ignoring poisoning. The driver's locked data stays consistent across a
/// panic in another thread (every update is a plain assignment), and Drop paths must not
/// panic, so a poisoned lock is simply used.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Allocator for object numbers (QPN, CQN, MR index, PD) in `first .. end`.
///
/// Fresh numbers are handed out first and freed ones are reused oldest first, so a number
/// comes back as late as possible: a stale completion or key for a destroyed object is then
/// very unlikely to meet a new object with the same number (the driver guards against it
/// anyway).
#[derive(Debug)]
pub(crate) struct IdAllocator {
    next: u32,
    end: u32,
    free: VecDeque<u32>,
}

impl IdAllocator {
    pub(crate) fn new(first: u32, end: u32) -> IdAllocator {
        IdAllocator {
            next: first,
            end,
            free: VecDeque::new(),
        }
    }

    pub(crate) fn alloc(&mut self) -> Option<u32> {
        if self.next < self.end {
            self.next += 1;
            Some(self.next - 1)
        } else {
            self.free.pop_front()
        }
    }

    pub(crate) fn release(&mut self, id: u32) {
        debug_assert!(id < self.next && !self.free.contains(&id));
        self.free.push_back(id);
    }
}

/// Memory (or another resource) the NIC may access. It is released normally on drop, unless
/// the driver could not make the NIC stop using it (a command timed out): then [`leak`]
/// keeps it alive forever, because freeing memory a device may still write to would corrupt
/// whatever reuses it.
///
/// [`leak`]: DeviceOwned::leak
pub(crate) struct DeviceOwned<T>(Option<T>);

impl<T> DeviceOwned<T> {
    pub(crate) fn new(value: T) -> DeviceOwned<T> {
        DeviceOwned(Some(value))
    }

    /// Never free the value.
    pub(crate) fn leak(&mut self) {
        if let Some(v) = self.0.take() {
            std::mem::forget(v);
        }
    }
}

impl<T> Deref for DeviceOwned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // Only `leak` empties it, and only from the owner's Drop.
        self.0.as_ref().expect("DeviceOwned used after leak")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fresh_first_then_oldest_freed() {
        let mut a = IdAllocator::new(2, 5);
        assert_eq!(a.alloc(), Some(2));
        assert_eq!(a.alloc(), Some(3));
        a.release(2);
        assert_eq!(a.alloc(), Some(4));
        a.release(3);
        assert_eq!(a.alloc(), Some(2));
        assert_eq!(a.alloc(), Some(3));
        assert_eq!(a.alloc(), None);
    }
}
