//! How the controller drives the writer (learning, pacing, bursts) and the
//! one event that ends pacing: a stall, a paced write held so long that
//! the drive must have stopped and repositioned.
//!
//! The invariant: only a paced write can be a stall; a slow write at full
//! speed is the drive's own pace.

/// Stalls while paced before pacing is turned off.
pub const STALLS_BEFORE_BURSTS: u32 = 2;
/// A paced write held this long was held for a reposition.
pub const STALL_MIN_S: f64 = 0.25;
/// How much a stall raises the floor above the pace that stalled.
pub const STALL_RAISE: f64 = 1.25;

/// How the controller is driving the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The top rate is not known yet: bursts, as with plain watermarks.
    Learning,
    Pacing,
    /// Pacing was turned off after the drive stopped while paced.
    Bursts,
}

/// A stall the controller reacted to, for the summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    pub at_s: f64,
    pub held_s: f64,
    pub pace: f64,
}

/// Whether a write of `bytes`, paced with the drive's top rate `top`, that
/// was held `held_s` seconds, was held for a reposition: it took far
/// longer than a block takes at the top rate, and at least `STALL_MIN_S`.
/// A pace just under the top counts too: a drive fixed at its top speed,
/// fed a little slower, empties its buffer and stops.
pub fn is_stall(top: f64, held_s: f64, bytes: u64) -> bool {
    held_s >= STALL_MIN_S.max(20.0 * bytes as f64 / top)
}
