//! What the writer and the pacing controller tell each other before each
//! block: the `View` the writer has of the ring and the input, and the
//! `Plan` the controller answers with.
//!
//! The invariant: both are plain values stamped with the caller's clock,
//! so the controller stays a pure function of what it is shown.

/// What the writer sees just before it writes a block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub now: f64,
    /// How full the ring is, 0 to 1, counting the block about to be
    /// written.
    pub fill: f64,
    /// Bytes read from the input so far.
    pub read_bytes: u64,
    /// The reader is waiting for room.
    pub reader_waiting: bool,
    /// The input has ended: what is left in the ring goes at full speed,
    /// since the drive stops at the end anyway.
    pub input_done: bool,
}

/// Why a write may start when it does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Seconds to wait before writing.
    pub wait_s: f64,
    /// The target rate in bytes per second, or None for full speed.
    pub rate: Option<f64>,
    /// The drive stopped: put the block back and rest until the ring
    /// holds `Controller::start_fill` again.
    pub rest: bool,
}
