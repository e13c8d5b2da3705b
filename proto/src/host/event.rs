//! Asynchronous events: things that happen to a QP, a CQ or the device outside any WQE,
//! delivered through a small FIFO read at `ASYNC_EVENT` / `ASYNC_EVENT_INFO` and popped by a
//! write to `ASYNC_EVENT_POP` (reads have no side effects, so a debugger dump cannot lose
//! events). A non-empty FIFO sets `IRQ_STATUS.ASYNC`.

use super::regs::{async_event, async_event_info};
use super::{Error, Result};

/// Event types; values are `enum ibv_event_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AsyncEventType {
    /// CQ overflow; id = CQN.
    CqErr = 0,
    /// The NIC moved the QP to ERR because of a local error (bad WQE, lkey, DMA, CQ overflow,
    /// retries exhausted); id = QPN.
    QpFatal = 1,
    /// The QP's responder saw an invalid request and sent NAK 0x61; QP is in ERR.
    QpReqErr = 2,
    /// The QP's responder saw a remote access violation and sent NAK 0x62; QP is in ERR.
    QpAccessErr = 3,
    /// First packet received in RTR (communication established).
    CommEst = 4,
    /// RTS->SQD drain finished (only when EN_SQD_ASYNC_NOTIFY was given).
    SqDrained = 5,
    /// The device stopped (DMA failure or internal error); id = 0. Reset is needed.
    DeviceFatal = 8,
}

impl AsyncEventType {
    pub const fn from_u8(v: u8) -> Option<AsyncEventType> {
        Some(match v {
            0 => AsyncEventType::CqErr,
            1 => AsyncEventType::QpFatal,
            2 => AsyncEventType::QpReqErr,
            3 => AsyncEventType::QpAccessErr,
            4 => AsyncEventType::CommEst,
            5 => AsyncEventType::SqDrained,
            8 => AsyncEventType::DeviceFatal,
            _ => return None,
        })
    }
}

/// One async event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AsyncEvent {
    pub ty: AsyncEventType,
    /// QPN or CQN (24 bits).
    pub id: u32,
    /// Completion status behind a QP error (raw `WcStatus` value), else 0.
    pub status: u8,
    /// Vendor error (see `cqe::vendor_err`), else 0.
    pub vendor_err: u8,
}

impl AsyncEvent {
    /// Register values (`ASYNC_EVENT`, `ASYNC_EVENT_INFO`) for this event at the FIFO head.
    pub fn encode(&self) -> Result<(u32, u32)> {
        if !async_event::ID.fits(self.id) {
            return Err(Error::InvalidField {
                field: "event id",
                value: self.id as u64,
            });
        }
        Ok((
            async_event::ID.place(self.id)
                | async_event::TYPE.place(self.ty as u32)
                | async_event::VALID.place(1),
            async_event_info::VENDOR_ERR.place(self.vendor_err as u32)
                | async_event_info::STATUS.place(self.status as u32),
        ))
    }

    /// Decode the head of the FIFO: `Ok(None)` when it is empty.
    pub fn decode(event: u32, info: u32) -> Result<Option<AsyncEvent>> {
        if !async_event::VALID.bit(event) {
            return Ok(None);
        }
        let t = async_event::TYPE.get(event) as u8;
        let ty = AsyncEventType::from_u8(t).ok_or(Error::InvalidField {
            field: "event type",
            value: t as u64,
        })?;
        Ok(Some(AsyncEvent {
            ty,
            id: async_event::ID.get(event),
            status: async_event_info::STATUS.get(info) as u8,
            vendor_err: async_event_info::VENDOR_ERR.get(info) as u8,
        }))
    }
}
