//! The summary's `pace` object: the range the writer paced in, the mode
//! the pacing controller ended in, the stall that turned it off, and the
//! writer's full-speed episodes by reason.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schema::round_ms;
use crate::pace::{Mode, PaceReport};

/// What the pacing controller was doing at the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaceMode {
    /// The top rate was never learned: bursts, as with watermarks alone.
    Learning,
    Pacing,
    /// Pacing was turned off after the drive stopped while paced.
    Bursts,
}

/// The stall that turned pacing off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PaceStall {
    /// Seconds since the ring started.
    pub at_s: f64,
    /// Seconds the write that showed the stall was held.
    pub held_s: f64,
    /// The pace the writer held then, in bytes per second.
    pub pace_bps: f64,
}

/// The summary's `pace` object: the range paced in and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaceSummary {
    /// The lowest pace, given (`--pace MIN`) or derived; null if unknown.
    pub floor_bps: Option<f64>,
    /// The highest pace, given (`--pace MIN:MAX`) or learned; null if the
    /// output never pushed back long enough to learn it.
    pub top_bps: Option<f64>,
    /// `top_bps` was measured, not given.
    pub top_learned: bool,
    /// The output took half the ring at once while the top was being
    /// learned, so the input was passed on as it came. Absent in files
    /// from before, read as false.
    #[serde(default)]
    pub swallowed: bool,
    pub mode: PaceMode,
    pub stall: Option<PaceStall>,
    /// The share of time, from 0 to 1, once the floor was known, in which
    /// the outputs were fed at the floor or faster.
    pub inside_share: Option<f64>,
    /// The writer's full-speed episodes while pacing, by reason
    /// (`FullSpeedWhy::key`: "ring_full", "learning", "bursts"), each
    /// reason always present. Absent in files from before, read as empty.
    #[serde(default)]
    pub full_speed: BTreeMap<String, FullSpeedCount>,
}

/// How often the writer went at full speed for one reason, and for how
/// long in all.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FullSpeedCount {
    pub times: u64,
    pub seconds: f64,
}

impl PaceSummary {
    pub fn new(report: &PaceReport) -> PaceSummary {
        PaceSummary {
            floor_bps: report.floor_bps.map(f64::round),
            top_bps: report.top_bps.map(f64::round),
            top_learned: report.top_learned,
            swallowed: report.swallowed,
            mode: match report.mode {
                Mode::Learning => PaceMode::Learning,
                Mode::Pacing => PaceMode::Pacing,
                Mode::Bursts => PaceMode::Bursts,
            },
            stall: report.stall.map(|s| PaceStall {
                at_s: round_ms(s.at_s),
                held_s: round_ms(s.held_s),
                pace_bps: s.pace.round(),
            }),
            inside_share: report.inside_share.map(|x| (x * 1000.0).round() / 1000.0),
            full_speed: (report.full_speed.each().iter())
                .map(|(why, t)| {
                    let count = FullSpeedCount {
                        times: t.times,
                        seconds: round_ms(t.seconds),
                    };
                    (why.key().to_string(), count)
                })
                .collect(),
        }
    }
}
