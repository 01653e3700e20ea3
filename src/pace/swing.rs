//! How bursty the input is, in bytes: the swing of what has been read
//! around a steady line at the input's mean rate. A ring that holds the
//! swing lets the writer feed the drive at the mean while the input
//! bursts and pauses around it.
//!
//! The swing over a stretch of time is the larger of the largest rise and
//! the largest fall of `read - mean × t` within it: the room a ring needs
//! to take a burst, or the data it needs to cover a lull, if the pace were
//! exactly the mean. It is measured in `SAMPLE_S` steps over the last
//! `HISTORY_S`, so an input that calms down is believed after a while.
//!
//! The invariant: memory is bounded (`HISTORY_S / SAMPLE_S` samples), and
//! the swing is never negative.

use std::collections::VecDeque;

/// How often the deviation from the mean is sampled.
const SAMPLE_S: f64 = 0.1;
/// How far back the swing looks.
pub const HISTORY_S: f64 = 60.0;

/// The deviation of the input from a line at its mean, sampled.
#[derive(Debug, Clone, Default)]
pub(super) struct Swing {
    /// (time, bytes read - mean × time) at each sample.
    samples: VecDeque<(f64, f64)>,
    /// The line: bytes it had reached at the last sample.
    line: f64,
    last: Option<(f64, f64)>,
    /// The swing of the samples held, worked out once per sample rather
    /// than once per block.
    swing: Option<f64>,
}

impl Swing {
    /// Takes in that `read` bytes had been read at `now`, while the mean
    /// input rate was `mean` bytes per second.
    pub(super) fn sample(&mut self, now: f64, read: f64, mean: f64) {
        if let Some((at, _)) = self.last {
            if now - at < SAMPLE_S {
                return;
            }
            self.line += mean * (now - at);
        } else {
            self.line = read;
        }
        self.last = Some((now, read));
        self.samples.push_back((now, read - self.line));
        while self
            .samples
            .front()
            .is_some_and(|&(t, _)| now - t > HISTORY_S)
        {
            self.samples.pop_front();
        }
        self.swing = self.measure();
    }

    /// The swing seen so far in bytes: the larger of the largest rise and
    /// the largest fall of the deviation within the history; None before
    /// two samples.
    pub(super) fn bytes(&self) -> Option<f64> {
        self.swing
    }

    fn measure(&self) -> Option<f64> {
        if self.samples.len() < 2 {
            return None;
        }
        let (mut low, mut high) = (f64::MAX, f64::MIN);
        let (mut rise, mut fall) = (0.0f64, 0.0f64);
        for &(_, d) in &self.samples {
            low = low.min(d);
            high = high.max(d);
            rise = rise.max(d - low);
            fall = fall.max(high - d);
        }
        Some(rise.max(fall))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: f64 = 1e6;

    #[test]
    fn a_steady_input_swings_by_nothing() {
        let mut s = Swing::default();
        for i in 0..100 {
            let t = i as f64 * 0.1;
            s.sample(t, 50.0 * MB * t, 50.0 * MB);
        }
        assert!(s.bytes().unwrap() < 1.0, "{:?}", s.bytes());
    }

    #[test]
    fn bursts_and_lulls_around_the_mean_swing_by_what_a_ring_must_hold() {
        // 1 s at 60 MB/s, then 1 s at 20: a mean of 40, so 20 MB above the
        // line after each burst and back on it after each lull: a ring
        // fed at the mean holds between some fill and 20 MB more.
        let mut s = Swing::default();
        let mut read = 0.0;
        for i in 0..200 {
            let t = i as f64 * 0.1;
            s.sample(t, read, 40.0 * MB);
            read += if (i / 10) % 2 == 0 {
                6.0 * MB
            } else {
                2.0 * MB
            };
        }
        let swing = s.bytes().unwrap();
        assert!((swing - 20.0 * MB).abs() < 2.5 * MB, "{swing}");
    }

    #[test]
    fn the_history_is_bounded() {
        let mut s = Swing::default();
        for i in 0..100_000 {
            s.sample(i as f64 * 0.1, i as f64, 10.0);
        }
        assert!(s.samples.len() as f64 <= HISTORY_S / SAMPLE_S + 1.0);
    }
}
