//! The text half of `tapebuf report`: peak, mean and minimum rates, the
//! time the output spent waiting, underruns per GiB, and a hint.
//!
//! The hint's model: after a stop the writer waits until the ring holds
//! H bytes (the high watermark's share of -m, at least one block), then
//! streams at the output's rate `out` while the input refills at `in`, so
//! the ring drains at `out - in` and one burst moves `H * out / (out - in)`
//! bytes before the next stop. A stream of T bytes thus stops about
//! `T * (1 - in/out) / H` times: the stops are inversely proportional to
//! H. The hint scales the stops it saw by `H / H'` for a suggested H'
//! (four times -m, and -P at least 90).

use super::timeline::Timeline;
use crate::size::{Bytes, Rate};

/// Peak, mean and minimum of a rate, in bytes per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
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
    pub hint: String,
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
            let mean = per_s(bytes, duration_s);
            let rates: Vec<f64> = full.iter().map(|s| rate(s)).collect();
            Spread {
                peak: rates.iter().copied().fold(mean, f64::max),
                mean,
                min: rates.iter().copied().fold(mean, f64::min),
            }
        };
        let input = spread(&|s| s.in_rate_bytes_per_s, in_bytes);
        let output = spread(&|s| s.out_rate_bytes_per_s, out_bytes);
        let streaming_rate = per_s(out_bytes, duration_s - waiting_s);
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
        vec![
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
            format!("hint: {}", self.hint),
        ]
    }
}

fn per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds
    } else {
        0.0
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
mod tests {
    use super::*;

    #[test]
    fn the_writer_gathers_the_watermarks_share_and_at_least_a_block() {
        assert_eq!(gathered_bytes(1000, 90, 10), 900);
        assert_eq!(gathered_bytes(1000, 0, 10), 10);
    }
}
