//! The text half of `tapebuf report`: peak, mean and minimum rates, the
//! time the output spent waiting, underruns per GiB, and a hint.
//!
//! The invariant of the rates: the output's rate while streaming (its
//! bytes over the run less the time it waited) is never above its peak.
//! The peak is the fastest full sampling interval, or the streaming rate
//! itself when that is faster: a stop shorter than the interval falls
//! inside every interval and hides the rate the output really held. With
//! `-R` the writer's rate limit (`pipeline::rate_limit`) charges every
//! block its share of time, so the streaming rate is never above the cap
//! either.
//!
//! The hint's model: after a stop the writer waits until the ring holds
//! H bytes (the high watermark's share of -m, at least one block), then
//! streams at the output's rate `out` while the input refills at `in`, so
//! the ring drains at `out - in` and one burst moves `H * out / (out - in)`
//! bytes before the next stop. A stream of T bytes thus stops about
//! `T * (1 - in/out) / H` times: the stops are inversely proportional to
//! H. The hint scales the stops it saw by `H / H'` for a suggested H'
//! (four times -m, and -P at least 90).
//!
//! A run recorded with `--pace` gets one more line: the range of the pace
//! targets the writer held, and at how many samples it held one. A file
//! whose summary has them gets a line on the ring (`ring_seen`): the time
//! near full and near empty, and the full-speed episodes by reason.

use super::ring_seen::RingSeen;
use super::timeline::Timeline;
use crate::base::size::{bytes_per_s, Bytes, Rate};

/// Peak, mean and minimum of a rate, in bytes per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The fastest full interval; for the output, at least its rate while
    /// streaming (see the module's invariant).
    pub peak: f64,
    pub mean: f64,
    pub min: f64,
}

/// What the report says about a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub duration_s: f64,
    pub in_bytes: u64,
    pub out_bytes: u64,
    pub input: Spread,
    pub output: Spread,
    /// The output's rate while it was not waiting.
    pub streaming_rate: f64,
    pub waiting_s: f64,
    pub underruns: u64,
    pub underruns_per_gib: f64,
    pub volume_changes: u64,
    /// None when the run did not pace.
    pub pace: Option<PaceSeen>,
    /// None when the file's summary says nothing of the ring's times.
    pub ring: Option<RingSeen>,
    pub hint: String,
}

/// The pace targets the samples carry, of a run recorded with `--pace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaceSeen {
    /// The lowest and highest target, in bytes per second; None when the
    /// writer held no target at any sample.
    pub range_bps: Option<(u64, u64)>,
    /// Samples with a target, and all samples.
    pub held: usize,
    pub samples: usize,
}

impl PaceSeen {
    /// None for a run without pacing (and for files from before it).
    pub fn of(t: &Timeline) -> Option<PaceSeen> {
        let targets: Vec<u64> = t.samples.iter().filter_map(|s| s.pace_bps).collect();
        if !t.start.pacing && targets.is_empty() {
            return None;
        }
        let range_bps = targets
            .iter()
            .min()
            .zip(targets.iter().max())
            .map(|(&lo, &hi)| (lo, hi));
        Some(PaceSeen {
            range_bps,
            held: targets.len(),
            samples: t.samples.len(),
        })
    }

    pub fn line(&self) -> String {
        match self.range_bps {
            Some((lo, hi)) => format!(
                "pacing: on, target {} to {}, held at {} of {} samples",
                Rate(lo as f64),
                Rate(hi as f64),
                self.held,
                self.samples
            ),
            None => "pacing: on, but the writer held no pace target at any sample".to_string(),
        }
    }
}

/// The suggestion the hint makes: this many times the ring, and at least
/// this high watermark.
pub const SUGGESTED_RING_FACTOR: u64 = 4;
pub const SUGGESTED_HIGH_PCT: u8 = 90;

impl Analysis {
    pub fn of(t: &Timeline) -> Analysis {
        let last = t.last();
        let (duration_s, in_bytes, out_bytes, waiting_s) = match &t.summary {
            Some(s) => (s.t_s, s.in_bytes, s.out_bytes, s.waiting_s),
            None => (last.t_s, last.in_bytes, last.out_bytes, last.waiting_s),
        };
        // The last sample's interval may be a sliver, whose rates are
        // noise; it counts in the means but not in peak and minimum.
        let full: Vec<_> = t
            .samples
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                let since = if *i == 0 { 0.0 } else { t.samples[i - 1].t_s };
                s.t_s - since >= t.start.interval_s * 0.5
            })
            .map(|(_, s)| s)
            .collect();
        let spread = |rate: &dyn Fn(&crate::observe::record::Sample) -> f64, bytes: u64| {
            let mean = bytes_per_s(bytes, duration_s);
            let rates: Vec<f64> = full.iter().map(|s| rate(s)).collect();
            Spread {
                peak: rates.iter().copied().fold(mean, f64::max),
                mean,
                min: rates.iter().copied().fold(mean, f64::min),
            }
        };
        let input = spread(&|s| s.in_rate_bytes_per_s, in_bytes);
        let mut output = spread(&|s| s.out_rate_bytes_per_s, out_bytes);
        let streaming_rate = bytes_per_s(out_bytes, duration_s - waiting_s);
        output.peak = output.peak.max(streaming_rate);
        let underruns = t.underruns();
        let gib = out_bytes as f64 / (1u64 << 30) as f64;
        let mut a = Analysis {
            duration_s,
            in_bytes,
            out_bytes,
            input,
            output,
            streaming_rate,
            waiting_s,
            underruns,
            underruns_per_gib: if gib > 0.0 {
                underruns as f64 / gib
            } else {
                0.0
            },
            volume_changes: t.last().volume.saturating_sub(1) as u64,
            pace: PaceSeen::of(t),
            ring: RingSeen::of(t),
            hint: String::new(),
        };
        a.hint = hint(&a, t);
        a
    }

    /// The lines printed on stdout.
    pub fn lines(&self) -> Vec<String> {
        let fmt = |s: &Spread| {
            format!(
                "peak {}, mean {}, min {}",
                Rate(s.peak),
                Rate(s.mean),
                Rate(s.min)
            )
        };
        let mut lines = vec![
            format!(
                "run: {:.1} s, in {} bytes ({}), out {} bytes ({}), {} volume changes",
                self.duration_s,
                self.in_bytes,
                Bytes(self.in_bytes),
                self.out_bytes,
                Bytes(self.out_bytes),
                self.volume_changes
            ),
            format!("input rate: {}", fmt(&self.input)),
            format!(
                "output rate: {}; {} while streaming",
                fmt(&self.output),
                Rate(self.streaming_rate)
            ),
            format!(
                "output waiting: {:.1} s ({:.0}% of the run)",
                self.waiting_s,
                if self.duration_s > 0.0 {
                    100.0 * self.waiting_s / self.duration_s
                } else {
                    0.0
                }
            ),
            format!(
                "underruns: {} ({:.1} per GiB)",
                self.underruns, self.underruns_per_gib
            ),
        ];
        lines.extend(self.pace.map(|p| p.line()));
        lines.extend(self.ring.as_ref().map(RingSeen::line));
        lines.push(format!("hint: {}", self.hint));
        lines
    }
}

/// The hint line; see the module's model.
fn hint(a: &Analysis, t: &Timeline) -> String {
    let (r_in, r_out) = (a.input.mean, a.streaming_rate);
    if a.underruns == 0 {
        return "no stops: the output never ran dry".to_string();
    }
    if r_in >= r_out * 0.95 {
        return format!(
            "the input averaged {}, as fast as the output's {}: the stops came from pauses in the input; a larger -m rides out longer pauses",
            Rate(r_in),
            Rate(r_out)
        );
    }
    let h = gathered_bytes(t.start.ring_bytes, t.start.high_pct, t.start.block_bytes);
    let ring = t.start.ring_bytes * SUGGESTED_RING_FACTOR;
    let high = t.start.high_pct.max(SUGGESTED_HIGH_PCT);
    let h_new = gathered_bytes(ring, high, t.start.block_bytes);
    let stops = (a.underruns as f64 * h as f64 / h_new as f64).ceil() as u64;
    format!(
        "the input averaged {}, below the output's {}: a larger -m or a higher -P would cut the stops from {} to {} (with -m {} -P {}; stops scale as 1/(-m x -P), see tapebuf(1), REPORT)",
        Rate(r_in),
        Rate(r_out),
        a.underruns,
        stops,
        Bytes(ring),
        high
    )
}

/// H: the bytes the writer gathers before it starts again.
pub fn gathered_bytes(ring_bytes: u64, high_pct: u8, block_bytes: u64) -> u64 {
    (ring_bytes * high_pct as u64 / 100).max(block_bytes).max(1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::observe::record::{Sample, Start, SCHEMA, SCHEMA_VERSION};
    use crate::pipeline::stats::Snapshot;

    /// A run sampled once a second, at 1 s, 2 s, ..., with these pace
    /// targets; it paced if any sample has one.
    pub(crate) fn timeline_with_pace(targets: &[Option<u64>]) -> Timeline {
        let samples = targets
            .iter()
            .enumerate()
            .map(|(i, &pace_bps)| {
                let now = Snapshot {
                    seconds: (i + 1) as f64,
                    pace_bps,
                    ..Snapshot::default()
                };
                Sample::from_snapshots(&now, None)
            })
            .collect();
        Timeline {
            start: Start {
                schema: SCHEMA.into(),
                version: SCHEMA_VERSION,
                tapebuf: "0.1.0".into(),
                block_bytes: 4096,
                ring_bytes: 1 << 20,
                high_pct: 90,
                low_pct: 100,
                total_bytes: None,
                interval_s: 1.0,
                pacing: targets.iter().any(Option::is_some),
                tape_output: Some(false),
            },
            samples,
            summary: None,
        }
    }

    #[test]
    fn a_paced_run_says_the_range_of_targets_and_how_often_one_was_held() {
        let t = timeline_with_pace(&[None, Some(61_500_000), Some(79_600_000), None]);
        let a = Analysis::of(&t);
        let line = "pacing: on, target 61.5 MB/s to 79.6 MB/s, held at 2 of 4 samples";
        assert_eq!(a.pace.unwrap().line(), line);
        let lines = a.lines();
        assert_eq!(lines[lines.len() - 2], line);
        assert!(lines.last().unwrap().starts_with("hint: "));
    }

    #[test]
    fn a_run_without_pacing_has_no_pacing_line_and_one_that_never_held_a_target_says_so() {
        let t = timeline_with_pace(&[None, None]);
        let a = Analysis::of(&t);
        assert_eq!(a.pace, None);
        assert!(!a.lines().iter().any(|l| l.starts_with("pacing")));
        let mut t = t;
        t.start.pacing = true;
        assert_eq!(
            Analysis::of(&t).pace.unwrap().line(),
            "pacing: on, but the writer held no pace target at any sample"
        );
    }

    /// A run sampled once a second in which the output wrote
    /// `out_bytes_per_s` and waited `waiting_s_per_s` of every second.
    fn timeline_waiting(seconds: u32, out_bytes_per_s: u64, waiting_s_per_s: f64) -> Timeline {
        let mut t = timeline_with_pace(&vec![None; seconds as usize]);
        let mut previous: Option<Snapshot> = None;
        t.samples = (1..=seconds)
            .map(|i| {
                let now = Snapshot {
                    seconds: f64::from(i),
                    read_bytes: out_bytes_per_s * u64::from(i),
                    written_bytes: out_bytes_per_s * u64::from(i),
                    waiting_s: waiting_s_per_s * f64::from(i),
                    ..Snapshot::default()
                };
                let sample = Sample::from_snapshots(&now, previous.as_ref());
                previous = Some(now);
                sample
            })
            .collect();
        t
    }

    #[test]
    fn the_rate_while_streaming_is_never_above_the_peak() {
        // Every second holds a half-second stop, so every interval shows
        // 5 MB/s, while the output wrote at 10 MB/s whenever it wrote.
        let a = Analysis::of(&timeline_waiting(10, 5_000_000, 0.5));
        assert_eq!(a.streaming_rate, 10_000_000.0);
        assert_eq!(a.output.mean, 5_000_000.0);
        assert_eq!(a.output.peak, 10_000_000.0);
        assert_eq!(a.output.min, 5_000_000.0);
        assert_eq!(
            a.lines()[2],
            "output rate: peak 10.0 MB/s, mean 5.0 MB/s, min 5.0 MB/s; 10.0 MB/s while streaming"
        );
        // Without stops the three agree, and the peak is the intervals'.
        let a = Analysis::of(&timeline_waiting(10, 5_000_000, 0.0));
        assert_eq!(
            (a.output.peak, a.streaming_rate),
            (5_000_000.0, 5_000_000.0)
        );
    }

    #[test]
    fn the_writer_gathers_the_watermarks_share_and_at_least_a_block() {
        assert_eq!(gathered_bytes(1000, 90, 10), 900);
        assert_eq!(gathered_bytes(1000, 0, 10), 10);
    }
}
