//! How pacing went, for the summary and the stats log: the range in force,
//! whether the top was learned, the mode at the end, the stall that ended
//! pacing, and the share of time the outputs were fed at the floor.
//!
//! The invariant: `describe` gives exactly one clause, whatever happened,
//! so the summary line reads the same way for every run.

use super::full_speed::FullSpeed;
use super::mode::{Mode, Stall};
use crate::base::size::Rate;

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
    /// When and why the writer went at full speed.
    pub full_speed: FullSpeed,
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
