//! When each paced block is due: the schedule that spaces writes by the
//! target rate and catches up on writes that started late.
//!
//! The invariant: lateness is made up only within `SCHEDULE_SLACK_S` and
//! within one paced run; after a rest the schedule starts afresh, so a
//! pause never turns into a burst.

/// How late a paced write may start and still be caught up with: the
/// schedule keeps this much credit, so that sleeps that overshoot do not
/// make the mean rate fall below the target.
pub const SCHEDULE_SLACK_S: f64 = 0.05;

/// The time the next block is due.
#[derive(Debug, Clone)]
pub(super) struct Schedule {
    due: f64,
}

impl Schedule {
    pub(super) fn new() -> Schedule {
        Schedule {
            due: f64::NEG_INFINITY,
        }
    }

    /// Schedules a block of `bytes` at `rate` bytes per second; gives the
    /// seconds to wait before writing it.
    pub(super) fn paced(&mut self, now: f64, bytes: u64, rate: f64) -> f64 {
        let start = self.due.max(now - SCHEDULE_SLACK_S);
        self.due = start + bytes as f64 / rate;
        (start - now).max(0.0)
    }

    /// A block written at full speed: the next one is due at once.
    pub(super) fn full_speed(&mut self, now: f64) {
        self.due = now;
    }
}
