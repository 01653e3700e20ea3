//! A trail of (time, cumulative bytes) points over a sliding window, for
//! the controller's rates: the input's mean over half a minute, and the
//! rate the output took over the last half second.
//!
//! The invariant: the points are cumulative, so a rate over the window is
//! the difference of its two ends; nothing is summed point by point.

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub(super) struct Trail {
    window_s: f64,
    points: VecDeque<(f64, f64)>,
}

impl Trail {
    pub(super) fn new(window_s: f64) -> Trail {
        Trail {
            window_s,
            points: VecDeque::new(),
        }
    }

    /// Adds `cumulative` bytes at `now`, and forgets points older than the
    /// window.
    pub(super) fn push(&mut self, now: f64, cumulative: f64) {
        self.points.push_back((now, cumulative));
        while self
            .points
            .front()
            .is_some_and(|p| p.0 < now - self.window_s)
        {
            self.points.pop_front();
        }
    }

    /// (seconds, bytes) from the oldest point to the newest.
    pub(super) fn span(&self) -> Option<(f64, f64)> {
        let (first, last) = (self.points.front()?, self.points.back()?);
        Some((last.0 - first.0, last.1 - first.1))
    }

    pub(super) fn clear(&mut self) {
        self.points.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_covers_only_the_window() {
        let mut t = Trail::new(1.0);
        for i in 0..=30 {
            t.push(i as f64 * 0.1, i as f64 * 10.0);
        }
        let (s, b) = t.span().unwrap();
        assert!(
            (s - 1.0).abs() < 1e-9 && (b - 100.0).abs() < 1e-9,
            "{s} {b}"
        );
        t.clear();
        assert_eq!(t.span(), None);
    }
}
