//! Completion queues: context programming, arm modes and CQ doorbells.
//!
//! The NIC keeps per CQ: base IOVA, log2 size, interrupt vector, producer index (PI), the
//! consumer index (CI) last reported by the driver, and the arm state. It writes CQE `PI`
//! with owner bit `ring::owner_for(PI)` and increments PI.
//!
//! * **CI doorbell** (`DB_CQ_CI[n]`): the driver reports how far it has consumed. The NIC
//!   needs it only to detect overflow, so the driver may batch it (e.g. every quarter ring).
//! * **Arm doorbell** (`DB_CQ_ARM[n]`): CI update plus a one-shot request for an event.
//!   With [`ArmMode::Next`] the NIC raises the CQ's interrupt vector at the next CQE; with
//!   [`ArmMode::Solicited`] at the next receive CQE whose request had SE set, or any error CQE.
//!   If entries are already waiting when the arm arrives (PI != the CI in the doorbell), the
//!   event fires at once, so a CQE that lands between the driver's last poll and the arm is
//!   never missed (verbs allows such early events). Firing disarms the CQ.
//! * **Overflow**: before writing a CQE the NIC checks `PI - CI < entries`. If the ring is
//!   full it does not overwrite: the CQ enters error (`CQ_STATE.OVERFLOW`), an async event
//!   `CqErr` is queued, and the QP that wanted to complete moves to ERR (async `QpFatal`,
//!   vendor error CQ_OVERFLOW). Later completions for that CQ are dropped; the driver must
//!   destroy and recreate it.

use super::regs::{self, cq_cfg, cq_state, db};
use super::ring::Ring;
use super::{join64, split64, Error, RegWrite, Result};

/// Arm request in the arm doorbell (`DB_CQ_ARM` bits 25:24).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ArmMode {
    /// CI update only (same as the CI doorbell).
    None = 0,
    /// Event on the next completion (`ibv_req_notify_cq(cq, 0)`).
    Next = 1,
    /// Event on the next solicited or error completion (`ibv_req_notify_cq(cq, 1)`).
    Solicited = 2,
}

impl ArmMode {
    pub const fn from_u8(v: u8) -> Option<ArmMode> {
        Some(match v {
            0 => ArmMode::None,
            1 => ArmMode::Next,
            2 => ArmMode::Solicited,
            _ => return None,
        })
    }
}

/// CI doorbell write for CQ `cqn`.
pub const fn ci_doorbell(cqn: u32, ci: u32) -> RegWrite {
    RegWrite::new(regs::cq_ci_doorbell(cqn), db::CQ_CI.place(ci))
}

/// Arm doorbell write for CQ `cqn`.
pub const fn arm_doorbell(cqn: u32, ci: u32, mode: ArmMode) -> RegWrite {
    RegWrite::new(
        regs::cq_arm_doorbell(cqn),
        db::CQ_CI.place(ci) | db::CQ_ARM.place(mode as u32),
    )
}

/// Decode an arm doorbell value into (CI, mode).
pub fn decode_arm(value: u32) -> Result<(u32, ArmMode)> {
    let m = db::CQ_ARM.get(value) as u8;
    let mode = ArmMode::from_u8(m).ok_or(Error::InvalidField {
        field: "arm mode",
        value: m as u64,
    })?;
    Ok((db::CQ_CI.get(value), mode))
}

/// The CQ context the driver programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CqConfig {
    /// Ring IOVA (aligned to 64 bytes).
    pub base: u64,
    pub log2_entries: u8,
    /// Interrupt vector raised by events of this CQ (< ID_MISC.VECTORS).
    pub vector: u8,
    /// Initial consumer index (normally 0); the NIC starts with PI = CI.
    pub ci: u32,
}

impl CqConfig {
    pub fn ring(&self) -> Result<Ring> {
        Ring::completion(self.log2_entries)
    }

    /// The CREATE sequence. The driver zeroes the ring before it (so no slot carries owner 1
    /// on pass 0).
    pub fn create_writes(&self, cqn: u32) -> Result<Vec<RegWrite>> {
        let ring = self.ring()?;
        if !self.base.is_multiple_of(ring.align()) {
            return Err(Error::InvalidField {
                field: "cq base",
                value: self.base,
            });
        }
        if cqn >= regs::MAX_CQS {
            return Err(Error::InvalidField {
                field: "cqn",
                value: cqn as u64,
            });
        }
        if self.vector as u32 >= regs::MAX_VECTORS {
            return Err(Error::InvalidField {
                field: "vector",
                value: self.vector as u64,
            });
        }
        if !db::CQ_CI.fits(self.ci) {
            return Err(Error::InvalidField {
                field: "ci",
                value: self.ci as u64,
            });
        }
        let (lo, hi) = split64(self.base);
        Ok(vec![
            RegWrite::new(regs::CQ_CMD_CQN, cqn),
            RegWrite::new(regs::CQ_BASE_LO, lo),
            RegWrite::new(regs::CQ_BASE_HI, hi),
            RegWrite::new(
                regs::CQ_CFG,
                cq_cfg::LOG2_ENTRIES.place(self.log2_entries as u32)
                    | cq_cfg::VECTOR.place(self.vector as u32),
            ),
            RegWrite::new(regs::CQ_CI, self.ci),
            RegWrite::new(regs::CQ_CMD, regs::cq_cmd::CREATE),
        ])
    }

    /// The DESTROY sequence. Refused with InUse while a QP not in RESET uses the CQ.
    pub fn destroy_writes(cqn: u32) -> [RegWrite; 2] {
        [
            RegWrite::new(regs::CQ_CMD_CQN, cqn),
            RegWrite::new(regs::CQ_CMD, regs::cq_cmd::DESTROY),
        ]
    }

    pub fn query_writes(cqn: u32) -> [RegWrite; 2] {
        [
            RegWrite::new(regs::CQ_CMD_CQN, cqn),
            RegWrite::new(regs::CQ_CMD, regs::cq_cmd::QUERY),
        ]
    }
}

/// The CQ window after QUERY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CqQuery {
    pub config: CqConfig,
    pub valid: bool,
    pub pi: u32,
    pub armed: bool,
    pub armed_solicited: bool,
    pub overflow: bool,
}

impl CqQuery {
    pub fn from_window(mut read: impl FnMut(u32) -> u32) -> CqQuery {
        let cfg = read(regs::CQ_CFG);
        let st = read(regs::CQ_STATE);
        CqQuery {
            config: CqConfig {
                base: join64(read(regs::CQ_BASE_LO), read(regs::CQ_BASE_HI)),
                log2_entries: cq_cfg::LOG2_ENTRIES.get(cfg) as u8,
                vector: cq_cfg::VECTOR.get(cfg) as u8,
                ci: db::CQ_CI.get(read(regs::CQ_CI)),
            },
            valid: cq_cfg::VALID.bit(cfg),
            pi: db::CQ_CI.get(read(regs::CQ_PI)),
            armed: st & cq_state::ARMED != 0,
            armed_solicited: st & cq_state::ARMED_SOLICITED != 0,
            overflow: st & cq_state::OVERFLOW != 0,
        }
    }
}
