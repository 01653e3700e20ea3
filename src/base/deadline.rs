//! A wait that looks again at intervals until something is found, a time
//! limit passes, or the run is stopped: the one shape of every poll of a
//! device or a library (a drive getting ready, a cleaning ending, the
//! operator bringing a cartridge). The pause before each look never runs
//! past the limit, and a stop ends it at once.

use std::time::{Duration, Instant};

use crossbeam_channel::{after, select, Receiver};

/// A wait of at most `limit` from when it was made, looked at every
/// `every`.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    started: Instant,
    limit: Duration,
    every: Duration,
}

/// How a pause before the next look ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pause {
    /// Time to look again.
    Look,
    /// The limit had passed (no pause was made); how long was waited.
    TimedOut(Duration),
    /// The stop channel fired (a message or its sender dropped).
    Stopped,
}

impl Deadline {
    /// Starts the wait now.
    pub fn new(limit: Duration, every: Duration) -> Deadline {
        Deadline {
            started: Instant::now(),
            limit,
            every,
        }
    }

    /// How long the wait has lasted.
    pub fn waited(&self) -> Duration {
        self.started.elapsed()
    }

    /// Pauses until the next look: `every`, cut to what is left of the
    /// limit; at once `TimedOut` when nothing is left, `Stopped` on a stop.
    pub fn pause(&self, stop: &Receiver<()>) -> Pause {
        let waited = self.waited();
        if waited >= self.limit {
            return Pause::TimedOut(waited);
        }
        select! {
            recv(stop) -> _ => Pause::Stopped,
            recv(after(self.every.min(self.limit - waited))) -> _ => Pause::Look,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::{bounded, never};

    #[test]
    fn a_pause_never_runs_past_the_limit_and_then_the_wait_times_out() {
        let deadline = Deadline::new(Duration::from_millis(30), Duration::from_secs(3600));
        assert_eq!(deadline.pause(&never()), Pause::Look);
        assert!(deadline.waited() >= Duration::from_millis(30));
        assert!(
            deadline.waited() < Duration::from_secs(10),
            "cut to the limit"
        );
        assert!(
            matches!(deadline.pause(&never()), Pause::TimedOut(w) if w >= Duration::from_millis(30))
        );
    }

    #[test]
    fn a_stop_by_message_or_by_a_dropped_sender_ends_the_pause_at_once() {
        let deadline = Deadline::new(Duration::from_secs(3600), Duration::from_secs(3600));
        let (tx, rx) = bounded::<()>(1);
        tx.send(()).unwrap();
        assert_eq!(deadline.pause(&rx), Pause::Stopped);
        drop(tx);
        assert_eq!(deadline.pause(&rx), Pause::Stopped);
        assert!(deadline.waited() < Duration::from_secs(10));
    }
}
