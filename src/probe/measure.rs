//! Timing a pass and summarising the runs: the clock, the differential
//! method, and median and spread.
//!
//! Time comes from a [`Clock`], so that tests can drive a target on a
//! virtual clock and know exactly what the probe should find (the sweep
//! takes the times; see `sweep.rs`).
//!
//! The differential method, after `reference/000`: each pass notes the time
//! at the first block boundary past a quarter of the stream, and at the
//! end. The bytes between the two marks flow at the streaming rate; what
//! the first quarter took beyond that rate is the fixed start-up cost.
//! The invariant: every figure is finite and not negative, so the JSON
//! never holds a null where a number belongs.

use std::time::Instant;

use crate::probe::schema::Measured;

/// Seconds since some fixed origin.
pub trait Clock {
    fn now_s(&self) -> f64;
}

/// The real clock: a monotonic `Instant`.
pub struct RealClock {
    origin: Instant,
}

impl RealClock {
    pub fn new() -> RealClock {
        RealClock {
            origin: Instant::now(),
        }
    }
}

impl Default for RealClock {
    fn default() -> Self {
        RealClock::new()
    }
}

impl Clock for RealClock {
    fn now_s(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }
}

/// A spread above this, in percent of the median, marks a size as noisy.
pub const NOISY_SPREAD_PCT: f64 = 10.0;

/// The shortest time a pass is taken to last, so that rates stay finite.
const MIN_SECONDS: f64 = 1e-9;

/// One pass in one direction: the two marks of the differential method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PassTiming {
    pub quarter_bytes: u64,
    pub quarter_s: f64,
    pub whole_bytes: u64,
    pub whole_s: f64,
}

impl PassTiming {
    /// The pass's rate, start-up included.
    pub fn rate_bytes_per_s(&self) -> f64 {
        self.whole_bytes as f64 / self.whole_s.max(MIN_SECONDS)
    }

    /// (start-up seconds, streaming rate) by the differential method. When
    /// the marks cannot separate the two (no time passed between them), the
    /// start-up is 0 and the streaming rate is the whole rate.
    pub fn differential(&self) -> (f64, f64) {
        let bytes = self.whole_bytes.saturating_sub(self.quarter_bytes) as f64;
        let seconds = self.whole_s - self.quarter_s;
        if bytes <= 0.0 || seconds <= 0.0 {
            return (0.0, self.rate_bytes_per_s());
        }
        let stream = bytes / seconds;
        let startup = (self.quarter_s - self.quarter_bytes as f64 / stream).max(0.0);
        (startup, stream)
    }
}

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// One direction at one size over all its runs.
pub fn summarize(passes: &[PassTiming]) -> Measured {
    let rates: Vec<f64> = passes.iter().map(PassTiming::rate_bytes_per_s).collect();
    let (startups, streams): (Vec<f64>, Vec<f64>) =
        passes.iter().map(PassTiming::differential).unzip();
    let median_rate = median(&rates);
    let min = rates.iter().copied().reduce(f64::min).unwrap_or(0.0);
    let max = rates.iter().copied().reduce(f64::max).unwrap_or(0.0);
    let spread_pct = if median_rate > 0.0 {
        100.0 * (max - min) / median_rate
    } else {
        0.0
    };
    Measured {
        rates_bytes_per_s: rates,
        median_bytes_per_s: median_rate,
        min_bytes_per_s: min,
        max_bytes_per_s: max,
        spread_pct,
        startup_s: median(&startups),
        stream_rate_bytes_per_s: median(&streams),
    }
}

/// True when the runs disagree by more than [`NOISY_SPREAD_PCT`].
pub fn is_noisy(m: &Measured) -> bool {
    m.spread_pct > NOISY_SPREAD_PCT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_differential_method_separates_startup_from_streaming() {
        // 2 s to start, then 100 MB/s: 100 MB in 3 s, 25 MB by 2.25 s.
        let t = PassTiming {
            quarter_bytes: 25_000_000,
            quarter_s: 2.25,
            whole_bytes: 100_000_000,
            whole_s: 3.0,
        };
        let (startup, stream) = t.differential();
        assert!((startup - 2.0).abs() < 1e-9, "{startup}");
        assert!((stream - 100e6).abs() < 1e-3, "{stream}");
        assert!((t.rate_bytes_per_s() - 100e6 / 3.0).abs() < 1e-3);
    }

    #[test]
    fn startup_is_never_negative_and_rates_never_infinite() {
        // A first quarter faster than the rest (a cache filling up).
        let t = PassTiming {
            quarter_bytes: 25,
            quarter_s: 0.1,
            whole_bytes: 100,
            whole_s: 10.0,
        };
        assert_eq!(t.differential().0, 0.0);
        let instant = PassTiming {
            quarter_bytes: 25,
            quarter_s: 0.0,
            whole_bytes: 100,
            whole_s: 0.0,
        };
        assert!(instant.rate_bytes_per_s().is_finite());
        assert!(instant.differential().1.is_finite());
    }

    #[test]
    fn median_and_spread_over_runs() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        let pass = |s: f64| PassTiming {
            quarter_bytes: 25,
            quarter_s: s / 4.0,
            whole_bytes: 100,
            whole_s: s,
        };
        // Rates 100, 80, 125 bytes/s: median 100, spread 45%.
        let m = summarize(&[pass(1.0), pass(1.25), pass(0.8)]);
        assert_eq!(m.median_bytes_per_s, 100.0);
        assert_eq!(m.min_bytes_per_s, 80.0);
        assert_eq!(m.max_bytes_per_s, 125.0);
        assert!((m.spread_pct - 45.0).abs() < 1e-9);
        assert!(is_noisy(&m));
    }
}
