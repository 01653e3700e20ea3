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

pub use controller::{Controller, Mode, Plan, Stall, View};

use crate::base::size::Rate;

/// The user's range: `--pace` alone leaves both to be learned or derived,
/// `--pace MIN` gives the floor, `--pace MIN:MAX` both (bytes per second).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PaceSettings {
    pub floor: Option<u64>,
    pub ceiling: Option<u64>,
}

/// What `--pace` asked for, before the outputs are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PaceRequest {
    /// Neither `--pace` nor `--no-pace`: on for tape outputs only.
    #[default]
    Default,
    Off,
    On(PaceSettings),
}

impl PaceRequest {
    /// The settings in force, once it is known whether an output is a
    /// tape; `-R` (`rate_limit`) caps both ends of the range, so the lower
    /// limit wins.
    pub fn resolve(self, tape_output: bool, rate_limit: Option<u64>) -> Option<PaceSettings> {
        let mut settings = match self {
            PaceRequest::Default if tape_output => PaceSettings::default(),
            PaceRequest::On(s) => s,
            PaceRequest::Default | PaceRequest::Off => return None,
        };
        if let Some(limit) = rate_limit {
            settings.ceiling = Some(settings.ceiling.map_or(limit, |c| c.min(limit)));
            settings.floor = settings.floor.map(|f| f.min(limit));
        }
        Some(settings)
    }
}

/// How pacing went, for the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct PaceReport {
    pub floor_bps: Option<f64>,
    pub top_bps: Option<f64>,
    /// The top rate was measured, not given.
    pub top_learned: bool,
    pub mode: Mode,
    /// The stall that turned pacing off.
    pub stall: Option<Stall>,
    /// The share of time, once the floor was known, in which the outputs
    /// were fed at the floor or faster.
    pub inside_share: Option<f64>,
}

impl PaceReport {
    /// One clause for the summary line.
    pub fn describe(&self) -> String {
        let rate = |bps: f64| Rate(bps).to_string();
        match (self.mode, self.floor_bps, self.top_bps, self.stall) {
            (Mode::Bursts, _, _, Some(stall)) => format!(
                "pacing turned off at {:.1} s: the drive stopped though fed at {} \
                 (a write was held {:.1} s), so it does not speed-match that low; \
                 bursts from then on",
                stall.at_s,
                rate(stall.pace),
                stall.held_s
            ),
            (_, Some(floor), Some(top), _) => {
                let learned = if self.top_learned { ", learned" } else { "" };
                let inside = self.inside_share.map_or(String::new(), |share| {
                    format!(
                        ", fed at the floor or faster {:.0}% of the time",
                        100.0 * share
                    )
                });
                format!(
                    "paced between {} (floor) and {} (top{learned}){inside}",
                    rate(floor),
                    rate(top)
                )
            }
            _ => "pacing on, but the output never pushed back long enough to learn its \
                  top rate: bursts"
                .to_string(),
        }
    }
}
