//! Adaptive pacing (`--pace`): feeding a speed-matching tape drive at the
//! rate data arrives, smoothed, so that it streams instead of stopping.
//!
//! - `controller`: the rules, as a pure function of time and what the
//!   writer sees;
//! - `drive_model`: a timing model of a drive (speeds, buffer, stops), for
//!   tests and the streaming benchmark;
//! - `sim`: the ring, a producer, the writer and the drive model on a
//!   simulated clock, so that tests can measure stops without sleeping.

pub mod controller;
pub mod drive_model;
pub mod sim;

pub use controller::{Controller, Mode, Plan, View};

/// The user's range: `--pace` alone leaves both to be learned or derived,
/// `--pace MIN` gives the floor, `--pace MIN:MAX` both (bytes per second).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PaceSettings {
    pub floor: Option<u64>,
    pub ceiling: Option<u64>,
}
