//! `tapebuf report`'s line on the ring: the time it spent near full and
//! near empty, and for a paced run the writer's full-speed episodes by
//! reason, as the stats file's summary record gives them. A file from
//! before these fields, or one without a summary, gets no line.

use super::timeline::Timeline;
use crate::observe::record::SummaryRecord;
use crate::pace::report::full_speed_clause;
use crate::pace::{FullSpeed, FullSpeedTally};

/// The ring's times and the full-speed episodes of one recorded run.
#[derive(Debug, Clone, PartialEq)]
pub struct RingSeen {
    pub duration_s: f64,
    /// Seconds near full and near empty; None in files from before.
    pub near_s: Option<(f64, f64)>,
    /// The full-speed clause, "full speed 3 times (2.1 s) because ...";
    /// "no full speed" for a paced run that had none; None when the run
    /// did not pace or the file is from before.
    pub full_speed: Option<String>,
}

impl RingSeen {
    pub fn of(t: &Timeline) -> Option<RingSeen> {
        let summary = t.summary.as_ref()?;
        let ring = summary.ring.as_ref();
        let near_s = ring.and_then(|r| r.near_full_s.zip(r.near_empty_s));
        let full_speed = full_speed(summary);
        (near_s.is_some() || full_speed.is_some()).then_some(RingSeen {
            duration_s: summary.t_s,
            near_s,
            full_speed,
        })
    }

    /// "ring: near full 12.3 s (41% of the run), near empty 0.4 s (1%);
    /// full speed once (2.1 s) because the ring was full"
    pub fn line(&self) -> String {
        let share = |s: f64| match self.duration_s > 0.0 {
            true => 100.0 * s / self.duration_s,
            false => 0.0,
        };
        let mut parts = Vec::new();
        if let Some((full, empty)) = self.near_s {
            parts.push(format!(
                "near full {full:.1} s ({:.0}% of the run), near empty {empty:.1} s ({:.0}%)",
                share(full),
                share(empty)
            ));
        }
        parts.extend(self.full_speed.clone());
        format!("ring: {}", parts.join("; "))
    }
}

/// The full-speed clause of a paced run's summary record.
fn full_speed(summary: &SummaryRecord) -> Option<String> {
    let counts = &summary.pace.as_ref()?.full_speed;
    if counts.is_empty() {
        return None;
    }
    let tallies: Vec<_> = (FullSpeed::default().each().iter())
        .map(|(why, _)| {
            let tally = counts
                .get(why.key())
                .map_or_else(FullSpeedTally::default, |c| FullSpeedTally {
                    times: c.times,
                    seconds: c.seconds,
                });
            (*why, tally)
        })
        .collect();
    Some(full_speed_clause(&tallies).unwrap_or_else(|| "no full speed".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::record::{FullSpeedCount, PaceMode, PaceSummary, RingSummary};

    fn summary(ring: Option<(f64, f64)>, pace: Option<&[(&str, u64, f64)]>) -> SummaryRecord {
        let json = r#"{"schema":"tapebuf-stats","version":1,"t_s":10.0,"in_bytes":10,"out_bytes":10,"rate_bytes_per_s":1.0,"underruns":0,"overruns":0,"waiting_s":0.0,"volumes":1,"clean":true,"interrupted_by":null,"input_error":null,"failed_outputs":[],"stalled":null,"line":"tapebuf: summary: ..."}"#;
        let mut s: SummaryRecord = serde_json::from_str(json).unwrap();
        s.ring = ring.map(|(full, empty)| {
            Box::new(RingSummary {
                kind: "copying".into(),
                why: None,
                pipes: 0,
                pipe_bytes: 0,
                peak_held_bytes: 0,
                near_full_s: Some(full),
                near_empty_s: Some(empty),
            })
        });
        s.pace = pace.map(|counts| {
            Box::new(PaceSummary {
                floor_bps: None,
                top_bps: None,
                top_learned: false,
                swallowed: false,
                mode: PaceMode::Pacing,
                stall: None,
                inside_share: None,
                full_speed: (counts.iter())
                    .map(|&(key, times, seconds)| {
                        (key.to_string(), FullSpeedCount { times, seconds })
                    })
                    .collect(),
            })
        });
        s
    }

    fn seen(summary: Option<SummaryRecord>) -> Option<RingSeen> {
        let start = r#"{"schema":"tapebuf-stats","version":1,"tapebuf":"0.1.0","block_bytes":4096,"ring_bytes":65536,"high_pct":50,"low_pct":100,"total_bytes":null,"interval_s":1.0}"#;
        let t = Timeline {
            start: serde_json::from_str(start).unwrap(),
            samples: vec![],
            summary,
        };
        RingSeen::of(&t)
    }

    #[test]
    fn the_ring_line_gives_the_times_and_the_full_speed_episodes_by_reason() {
        let pace = [
            ("ring_full", 3, 2.14),
            ("learning", 1, 0.4),
            ("bursts", 0, 0.0),
        ];
        let line = seen(Some(summary(Some((4.1, 0.26)), Some(&pace))))
            .unwrap()
            .line();
        assert_eq!(
            line,
            "ring: near full 4.1 s (41% of the run), near empty 0.3 s (3%); \
             full speed 3 times (2.1 s) because the ring was full, \
             once (0.4 s) while no slower rate was proven"
        );
        let calm = [("ring_full", 0, 0.0)];
        let line = seen(Some(summary(Some((0.0, 0.0)), Some(&calm))))
            .unwrap()
            .line();
        assert!(line.ends_with("(0%); no full speed"), "{line}");
    }

    #[test]
    fn a_file_from_before_or_without_a_summary_has_no_ring_line() {
        assert_eq!(seen(None), None);
        assert_eq!(seen(Some(summary(None, None))), None);
        let unpaced = seen(Some(summary(Some((1.0, 2.0)), None))).unwrap();
        assert_eq!(
            unpaced.line(),
            "ring: near full 1.0 s (10% of the run), near empty 2.0 s (20%)"
        );
    }
}
