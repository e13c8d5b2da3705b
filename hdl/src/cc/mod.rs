//! Congestion control: the DCQCN notification and reaction points (docs/CONGESTION.md).
//!
//! * [`notification_point::NotificationPoint`]: which ECN-CE-marked packets make the NIC send a
//!   CNP to the QP's peer (at most one per QP per `CC_NP_CNP_INTERVAL` microseconds).
//! * [`reaction_point::ReactionPoint`]: per-QP rate limiters (Rc, Rt, alpha, the timer and byte
//!   stages, the alpha, rate-decrease and rate-increase timers) driven by CNP arrivals, bytes
//!   sent and the 1 us tick; a read port gives a QP's current rate to the shaper.
//! * [`pfc_pause::PfcPause`]: IEEE 802.1Qbb receive side: per-priority pause timers loaded
//!   from received PFC frames (quanta of 512 bit times at `CFG_PFC.LINK_BITS` bit times per
//!   cycle) and the MAC's pause input; NicTop's transmit arbiter does not start a frame of a
//!   paused priority.
//! * [`pfc_xoff::PfcXoffGenerator`]: IEEE 802.1Qbb transmit side: when to send XOFF / XON of
//!   the RoCE priority from the receive buffer's fill level (hysteresis between two thresholds,
//!   XOFF refreshed at half its pause).
//! * [`rate_shaper::RateShaper`]: token buckets for up to 16 rate-limited QPs (bytes per cycle
//!   in 16.16 fixed point from Mb/s), the eligibility the requester's gate asks.
//! * [`rate_feeder::RateFeeder`]: the static limits, the reaction point's CNP and bytes
//!   queues, and the sweep that gives the shaper min(static limit, Rc) of every QP.
pub mod drive;
pub mod notification_point;
pub mod pfc_pause;
pub mod pfc_xoff;
pub mod rate_feeder;
pub mod rate_shaper;
pub mod reaction_point;

pub use notification_point::{NotificationPoint, NpModel, NpQpState};
pub use pfc_pause::{PfcPause, PfcPauseModel};
pub use pfc_xoff::{PfcXoffGenerator, PfcXoffModel};
pub use rate_feeder::RateFeeder;
pub use rate_shaper::{RateShaper, ShaperModel, SHAPER_SLOTS};
pub use reaction_point::{ReactionPoint, RpLimiter, LIMITERS};
