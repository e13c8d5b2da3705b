//! Congestion control: the DCQCN reaction point (docs/CONGESTION.md).
//!
//! * [`reaction_point::ReactionPoint`]: per-QP rate limiters (Rc, Rt, alpha, the timer and byte
//!   stages, the alpha, rate-decrease and rate-increase timers) driven by CNP arrivals, bytes
//!   sent and the 1 us tick; a read port gives a QP's current rate to the shaper.
pub mod drive;
pub mod reaction_point;

pub use reaction_point::{ReactionPoint, RpLimiter, LIMITERS};
