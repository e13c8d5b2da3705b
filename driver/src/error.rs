//! The driver's error type.
//!
//! Every failure is a typed variant: device faults (bad identity, command results, timeouts),
//! backend faults (VFIO, DMA memory), and misuse of the verbs API (full queues, illegal QP
//! transitions, SGEs that no memory region covers, ...). The driver never panics on misuse;
//! a panic is a driver bug.

use core::time::Duration;

use ferroce_proto::host::qp::{AccessFlags, QpAttrMask, QpState};
use ferroce_proto::host::regs::CmdResult;
use ferroce_proto::host::Version;

/// `Result` with the driver's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;

/// Which command window a command ran in (HOST-INTERFACE.md section 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Window {
    Qp,
    Mr,
    Cq,
}

/// Which work queue of a QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Queue {
    Send,
    Recv,
}

/// Everything that can go wrong in the driver.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // ---- backend ------------------------------------------------------------------------
    /// Opening or operating the VFIO backend failed.
    #[cfg(feature = "vfio")]
    #[error(transparent)]
    Vfio(#[from] crate::backend::vfio::VfioError),
    /// A backend-specific failure (for backends outside this crate, e.g. the simulator).
    #[error("ferroce: backend: {0}")]
    Backend(String),
    /// A [`crate::DmaBuffer`] access outside the buffer.
    #[error("ferroce: DMA buffer access out of bounds: offset {offset:#x} + {len} bytes > size {size:#x}")]
    DmaOutOfBounds {
        offset: usize,
        len: usize,
        size: usize,
    },
    /// The backend could not provide DMA memory.
    #[error("ferroce: cannot allocate {len} bytes of DMA memory: {reason}")]
    DmaAlloc { len: usize, reason: String },

    // ---- device -------------------------------------------------------------------------
    /// `ID_MAGIC` does not read "FRCE": BAR0 is not a ferroce NIC (or the BAR is not mapped).
    #[error("ferroce: no ferroce NIC behind BAR0: ID_MAGIC reads {0:#010x}, expected 0x45435246")]
    BadMagic(u32),
    /// The device's host interface version is not one this driver can drive.
    #[error("ferroce: device speaks host interface {device}, this driver needs {driver} (same major, minor >= {})", driver.minor)]
    IncompatibleVersion { device: Version, driver: Version },
    /// An identity register reports an impossible value.
    #[error("ferroce: device reports an invalid {0}")]
    BadDeviceInfo(&'static str),
    /// The device did not finish something in time (measured in backend time).
    #[error("ferroce: timeout after {after:?} waiting for {what}")]
    Timeout { what: &'static str, after: Duration },
    /// A command window reported a result other than Ok.
    #[error("ferroce: {window:?} command failed: {result:?}")]
    Command { window: Window, result: CmdResult },
    /// A command window reported a result code this host interface version does not define.
    #[error("ferroce: {window:?} command returned unknown result code {raw}")]
    UnknownCommandResult { window: Window, raw: u8 },
    /// The device wrote a CQE the driver cannot accept (malformed, or for a WQE that is not
    /// outstanding). This is a device (or simulator) bug.
    #[error("ferroce: bad CQE in CQ {cqn} at index {index:#x}: {reason}")]
    BadCqe {
        cqn: u32,
        index: u32,
        reason: String,
    },
    /// Layout encoding failed (a value that the host-interface format cannot carry).
    #[error("ferroce: {0}")]
    Layout(ferroce_proto::host::Error),

    // ---- misuse -------------------------------------------------------------------------
    /// An argument is out of range or inconsistent.
    #[error("ferroce: invalid argument: {0}")]
    InvalidArgument(&'static str),
    /// The device lacks the capability (or this driver the feature) the request needs.
    #[error("ferroce: unsupported: {0}")]
    Unsupported(&'static str),
    /// A feature enable was refused: the device's `ID_CAPS` lacks its bit (`regs::caps`).
    #[error("ferroce: the device does not implement {feature} (ID_CAPS bit {cap:#x} clear)")]
    MissingCapability { feature: &'static str, cap: u32 },
    /// No free QPN, CQN, MR index or PD number.
    #[error("ferroce: out of {0}")]
    OutOfResources(&'static str),
    /// Objects from two different devices were combined.
    #[error("ferroce: objects belong to different devices")]
    WrongDevice,
    /// The QP state transition is not allowed (IBA RC table, `qp::transition_allowed`).
    #[error("ferroce: QP transition {from:?} -> {to:?} is not allowed")]
    BadTransition { from: QpState, to: QpState },
    /// The transition needs attributes the mask does not name.
    #[error("ferroce: QP transition is missing required attributes {0:?}")]
    MissingAttributes(QpAttrMask),
    /// The mask names attributes ferroce never supports (APM, Q_Key, CAP, unknown bits).
    #[error("ferroce: unsupported QP attributes {0:?}")]
    UnsupportedAttributes(QpAttrMask),
    /// The mask names attributes this transition does not take.
    #[error("ferroce: QP attributes {0:?} are not allowed in this transition")]
    AttributeNotAllowed(QpAttrMask),
    /// An attribute value does not fit its field.
    #[error("ferroce: invalid QP attribute: {0}")]
    InvalidAttribute(ferroce_proto::host::Error),
    /// An attribute is above what this device implements.
    #[error("ferroce: {attr} = {value} exceeds the device maximum {max}")]
    ExceedsDeviceLimit {
        attr: &'static str,
        value: u64,
        max: u64,
    },
    /// The operation is not allowed in the QP's current state (e.g. post_send before RTS).
    #[error("ferroce: QP {qpn} is in state {state:?}: cannot {op}")]
    InvalidState {
        qpn: u32,
        state: QpState,
        op: &'static str,
    },
    /// The work queue has no free slot: poll the CQ first.
    #[error("ferroce: {queue:?} queue of QP {qpn} is full")]
    QueueFull { qpn: u32, queue: Queue },
    /// More SGEs than one WQE of this QP holds.
    #[error("ferroce: {count} SGEs, at most {max} per work request")]
    TooManySges { count: usize, max: usize },
    /// The message is longer than RoCE allows (2^31 bytes).
    #[error("ferroce: message length {length} exceeds {max}")]
    MessageTooLong { length: u64, max: u64 },
    /// More inline bytes than one WQE of this QP holds.
    #[error("ferroce: {length} inline bytes, at most {max}")]
    InlineTooLarge { length: usize, max: usize },
    /// A work request breaks a rule of the WQE format (e.g. an atomic without one 8-byte SGE).
    #[error("ferroce: invalid work request: {0}")]
    InvalidWorkRequest(ferroce_proto::host::Error),
    /// An SGE names an lkey that no registered memory region has.
    #[error("ferroce: lkey {lkey:#x} is not a registered memory region")]
    UnknownKey { lkey: u32 },
    /// An SGE's memory region belongs to another protection domain than the QP.
    #[error("ferroce: lkey {lkey:#x} belongs to PD {mr_pd}, the QP to PD {qp_pd}")]
    WrongPd { lkey: u32, mr_pd: u32, qp_pd: u32 },
    /// An SGE reaches outside its memory region.
    #[error("ferroce: SGE [{addr:#x}, +{length}) is outside the memory region of lkey {lkey:#x}")]
    SgeOutOfRange { lkey: u32, addr: u64, length: u32 },
    /// An SGE's memory region lacks the right the operation needs (LOCAL_WRITE to receive).
    #[error("ferroce: memory region {lkey:#x} lacks access {needed:?}")]
    AccessDenied { lkey: u32, needed: AccessFlags },
    /// Access flags that break the verbs rules or that ferroce does not implement.
    #[error("ferroce: invalid access flags {0:?}")]
    InvalidAccess(AccessFlags),
}
