//! How pacing went, for the summary and the stats log: the range in force,
//! whether the top was learned, the mode at the end, the stall that ended
//! pacing, the share of time the outputs were fed at the floor, and when
//! and why the writer went at full speed.
//!
//! The invariant: `describe` gives exactly one clause on how pacing went,
//! whatever happened, so the summary line reads the same way for every
//! run; a clause on the dips below the floor follows only when they
//! ended while pacing, and one on full speed only when there was any.

use super::full_speed::{FullSpeed, FullSpeedTally, FullSpeedWhy};
use super::mode::{Mode, Stall};
use crate::base::size::Rate;

/// How pacing went, for the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct PaceReport {
    pub floor_bps: Option<f64>,
    pub top_bps: Option<f64>,
    /// The top rate was measured, not given.
    pub top_learned: bool,
    /// While learning, the output took a burst of half the ring or more
    /// faster than it could set the speed, so the writer passed the input
    /// on as it came.
    pub swallowed: bool,
    /// When the drive stopped in a dip below the floor, after which the
    /// floor was never dipped below again.
    pub dips_ended_s: Option<f64>,
    pub mode: Mode,
    /// The last stall: the one that turned pacing off, or the one that
    /// pacing went on after (more gently, or from a higher floor).
    pub stall: Option<Stall>,
    /// The share of time, once the floor was known, in which the outputs
    /// were fed at the floor or faster.
    pub inside_share: Option<f64>,
    /// When and why the writer went at full speed.
    pub full_speed: FullSpeed,
}

impl PaceReport {
    /// The clause on how pacing went, then the one on the dips when they
    /// ended while pacing, then the one on full speed when the writer
    /// went at full speed at all.
    pub fn describe(&self) -> String {
        let dips = (self.dips_ended_s)
            .filter(|_| self.mode != Mode::Bursts)
            .map(|at| {
                format!(
                    "no feed below the floor after {at:.1} s, when the drive stopped \
                     though fed below it before a dry ring"
                )
            });
        let clauses = [
            Some(self.how()),
            dips,
            full_speed_clause(&self.full_speed.each()),
        ];
        clauses.into_iter().flatten().collect::<Vec<_>>().join("; ")
    }

    /// One clause on how pacing went.
    fn how(&self) -> String {
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
                let stopped = self.stall.map_or(String::new(), |stall| {
                    format!(
                        "; the drive stopped once though fed at {} (a write was held \
                         {:.1} s at {:.1} s), and pacing went on",
                        rate(stall.pace),
                        stall.held_s,
                        stall.at_s
                    )
                });
                format!(
                    "paced between {} (floor) and {} (top{learned}){inside}{stopped}",
                    rate(floor),
                    rate(top)
                )
            }
            (Mode::Learning, None, Some(top), Some(stall)) => format!(
                "pacing on, but the drive stopped at each slower rate tried (the last \
                 at {:.1} s, fed at {}, a write held {:.1} s), so it took bursts at up to \
                 {} (top{}), as with plain watermarks",
                stall.at_s,
                rate(stall.pace),
                stall.held_s,
                rate(top),
                if self.top_learned { ", learned" } else { "" }
            ),
            (Mode::Learning, None, Some(top), None) => format!(
                "pacing on, but no slower rate was needed or proven: the output took \
                 the input at up to {} (top{})",
                rate(top),
                if self.top_learned { ", learned" } else { "" }
            ),
            _ if self.swallowed => "pacing on, but the output took half the ring at once \
                                    and never pushed back, so it holds more than the ring: \
                                    the input passed on as it came"
                .to_string(),
            _ => "pacing on, but the output never pushed back long enough to learn its \
                  top rate: bursts"
                .to_string(),
        }
    }
}

/// "full speed 3 times (2.1 s) because the ring was full, once (0.4 s)
/// while no slower rate was proven": every reason that happened, in the order
/// given; None when none did.
pub fn full_speed_clause(tallies: &[(FullSpeedWhy, FullSpeedTally)]) -> Option<String> {
    let each: Vec<String> = (tallies.iter())
        .filter(|(_, t)| t.times > 0)
        .map(|(why, t)| {
            let times = match t.times {
                1 => "once".to_string(),
                n => format!("{n} times"),
            };
            let link = match why {
                FullSpeedWhy::Learning => "while",
                FullSpeedWhy::RingFull | FullSpeedWhy::Bursts => "because",
            };
            format!("{times} ({:.1} s) {link} {}", t.seconds, why.words())
        })
        .collect();
    (!each.is_empty()).then(|| format!("full speed {}", each.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(times: u64, seconds: f64) -> FullSpeedTally {
        FullSpeedTally { times, seconds }
    }

    #[test]
    fn full_speed_is_named_by_reason_only_when_it_happened() {
        let mut report = PaceReport {
            floor_bps: Some(20e6),
            top_bps: Some(80e6),
            top_learned: true,
            swallowed: false,
            dips_ended_s: None,
            mode: Mode::Pacing,
            stall: None,
            inside_share: None,
            full_speed: FullSpeed::default(),
        };
        let paced = "paced between 20.0 MB/s (floor) and 80.0 MB/s (top, learned)";
        assert_eq!(report.describe(), paced);
        report.full_speed.ring_full = tally(3, 2.14);
        report.full_speed.learning = tally(1, 0.4);
        assert_eq!(
            report.describe(),
            format!(
                "{paced}; full speed 3 times (2.1 s) because the ring was full, \
                 once (0.4 s) while no slower rate was proven"
            )
        );
    }

    #[test]
    fn a_stall_that_pacing_went_on_after_is_said() {
        let report = PaceReport {
            floor_bps: Some(20e6),
            top_bps: Some(80e6),
            top_learned: false,
            swallowed: false,
            dips_ended_s: None,
            mode: Mode::Pacing,
            stall: Some(Stall {
                at_s: 12.34,
                held_s: 1.04,
                pace: 21e6,
            }),
            inside_share: None,
            full_speed: FullSpeed::default(),
        };
        assert_eq!(
            report.describe(),
            "paced between 20.0 MB/s (floor) and 80.0 MB/s (top); the drive stopped once \
             though fed at 21.0 MB/s (a write was held 1.0 s at 12.3 s), and pacing went on"
        );
    }

    #[test]
    fn dips_that_ended_are_said_before_full_speed_and_not_once_pacing_is_off() {
        let mut report = PaceReport {
            floor_bps: Some(20e6),
            top_bps: Some(80e6),
            top_learned: true,
            swallowed: false,
            dips_ended_s: Some(17.25),
            mode: Mode::Pacing,
            stall: None,
            inside_share: None,
            full_speed: FullSpeed::default(),
        };
        report.full_speed.ring_full = tally(1, 0.5);
        assert_eq!(
            report.describe(),
            "paced between 20.0 MB/s (floor) and 80.0 MB/s (top, learned); no feed below \
             the floor after 17.2 s, when the drive stopped though fed below it before a \
             dry ring; full speed once (0.5 s) because the ring was full"
        );
        report.mode = Mode::Bursts;
        report.stall = Some(Stall {
            at_s: 30.0,
            held_s: 1.0,
            pace: 21e6,
        });
        assert!(!report.describe().contains("below the floor after"));
    }

    #[test]
    fn bursts_after_stops_read_as_the_reason_for_full_speed() {
        let tallies = [(FullSpeedWhy::Bursts, tally(7, 12.0))];
        assert_eq!(
            full_speed_clause(&tallies).unwrap(),
            "full speed 7 times (12.0 s) because pacing was off after stops"
        );
        assert_eq!(full_speed_clause(&[]), None);
    }
}
