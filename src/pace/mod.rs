//! Adaptive pacing (`--pace`): feeding a speed-matching tape drive at the
//! rate data arrives, smoothed, so that it streams instead of stopping.
//!
//! - `settings`: what the user asked for, and the range in force;
//! - `controller`: the rules, as a pure function of time and what the
//!   writer sees (`view`): bursts first, follow the input at a dry ring,
//!   feed a reserve at a proven rate (its plan before each block in
//!   `controller_plan.rs`, what it learns after in
//!   `controller_feedback.rs`); with the files it shares them with,
//!   `schedule`, `learn`, `mode` (stalls), `judge`, `full_speed` and
//!   `trail` (rates over a sliding window);
//! - `report`: how pacing went, for the summary;
//! - `drive_model`: a timing model of a drive (speeds, buffer, stops), for
//!   tests and the streaming benchmark;
//! - `sim`: the ring, a producer, the writer and the drive model on a
//!   simulated clock, so that tests can measure stops without sleeping;
//! - `speed_choice`: the drive model's speed policies;
//! - `families`: drives and inputs drawn from a seed, for the grid;
//! - `grid`: one cell of the grid, run with each contender;
//! - `bound`: the fewest stops any feeder could make, the yardstick.
//!
//! `drive_model`, `speed_choice`, `sim`, `bound`, `families` and `grid`
//! are test models: compiled only for tests and with the `test-support`
//! feature (which `tests/` and `benches/` get
//! through the crate's dev-dependency on itself), never in a release build.
//!
//! The invariant of the folder: it imports only from `base`, so the
//! engine, the configuration and the observers can all look down to it.

#[cfg(any(test, feature = "test-support"))]
pub mod bound;
pub mod controller;
#[cfg(any(test, feature = "test-support"))]
pub mod drive_model;
#[cfg(any(test, feature = "test-support"))]
pub mod families;
pub mod full_speed;
#[cfg(any(test, feature = "test-support"))]
pub mod grid;
mod judge;
mod learn;
pub mod mode;
pub mod report;
mod schedule;
pub mod settings;
#[cfg(any(test, feature = "test-support"))]
pub mod sim;
#[cfg(any(test, feature = "test-support"))]
pub mod speed_choice;
mod trail;
pub mod view;

pub use controller::Controller;
pub use full_speed::{FullSpeed, FullSpeedTally, FullSpeedWhy};
pub use mode::{Mode, Stall};
pub use report::PaceReport;
pub use settings::{PaceRequest, PaceSettings};
pub use view::{Plan, View};
