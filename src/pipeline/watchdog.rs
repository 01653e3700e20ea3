//! The watchdog (`-W SECS`): ends a run in which no byte has moved, in or
//! out, for too long, so a stalled peer (a hung ssh, a stuck device, a
//! producer that will never write again) cannot keep a cron job waiting
//! forever. It only reads the counters; the main thread asks it on a timer.
//!
//! A volume change is not a stall: from the filemark through the unload,
//! the change command or prompt, the wait for the drive to be ready and the
//! open, the volume log says "changing", and the change's own limits
//! (`--change-timeout`) apply instead. The clock restarts when it ends.

use std::time::{Duration, Instant};

use crate::pipeline::stats::Snapshot;

#[derive(Debug)]
pub struct Watchdog {
    limit: Duration,
    last: (u64, u64),
    since: Instant,
}

impl Watchdog {
    pub fn new(limit: Duration, now: Instant) -> Watchdog {
        Watchdog {
            limit,
            last: (0, 0),
            since: now,
        }
    }

    /// Returns why the run should end, once nothing has moved for the limit.
    pub fn check(&mut self, snap: &Snapshot, now: Instant) -> Option<String> {
        let moved = (snap.read_bytes, snap.written_bytes);
        // A volume change has its own time limit (--change-timeout).
        if moved != self.last || snap.changing_volume {
            self.last = moved;
            self.since = now;
            return None;
        }
        let idle = now.saturating_duration_since(self.since);
        (idle >= self.limit).then(|| {
            format!(
                "-W/--watchdog: no data moved for {} s (read {} bytes, committed {} bytes)",
                idle.as_secs(),
                snap.read_bytes,
                snap.written_bytes
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(read: u64, written: u64) -> Snapshot {
        Snapshot {
            read_bytes: read,
            written_bytes: written,
            ..Snapshot::default()
        }
    }

    #[test]
    fn fires_only_after_the_limit_without_progress() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut w = Watchdog::new(Duration::from_secs(10), t0);
        assert_eq!(w.check(&snap(5, 0), t0 + 9 * s), None);
        // Progress at 9 s restarts the clock.
        assert_eq!(w.check(&snap(5, 0), t0 + 18 * s), None);
        let why = w.check(&snap(5, 0), t0 + 19 * s).unwrap();
        assert!(why.contains("no data moved for 10 s"), "{why}");
        assert!(why.contains("read 5 bytes, committed 0 bytes"), "{why}");
    }

    #[test]
    fn a_volume_change_is_not_a_stall_and_restarts_the_clock() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut w = Watchdog::new(Duration::from_secs(10), t0);
        let changing = Snapshot {
            changing_volume: true,
            ..snap(5, 5)
        };
        assert_eq!(w.check(&changing, t0 + 30 * s), None);
        assert_eq!(w.check(&changing, t0 + 600 * s), None);
        // The change ended at 600 s: idle from there, not from 0.
        assert_eq!(w.check(&snap(5, 5), t0 + 609 * s), None);
        assert!(w.check(&snap(5, 5), t0 + 610 * s).is_some());
    }

    #[test]
    fn output_progress_alone_counts() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut w = Watchdog::new(Duration::from_secs(10), t0);
        assert_eq!(w.check(&snap(100, 10), t0 + 5 * s), None);
        assert_eq!(w.check(&snap(100, 20), t0 + 14 * s), None);
        assert_eq!(w.check(&snap(100, 30), t0 + 23 * s), None);
    }
}
