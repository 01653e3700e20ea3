//! How long the ring spent near full (at least `NEAR_FULL` of its blocks
//! held) and near empty (at most `NEAR_EMPTY`), for every run, paced or
//! not: for the summary, `--summary-json`, the stats file and `tapebuf
//! report`.
//!
//! The data path keeps no clock for this (without `--pace` the writer
//! reads none at all): a thread of its own looks at the ring's fill
//! (`Stats::fill`, the blocks filled and not yet released) every `TICK`
//! and charges the time since its previous look to what it saw then, so
//! each time is exact to about one tick per crossing of a threshold.
//!
//! The invariant: only the time from the writer's start to the input's
//! end counts. The first fill up to the high watermark is the ring being
//! primed, not running dry, and the drain after the input's end empties
//! the ring by design; neither says anything about the two sides' speeds.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{select, tick, Receiver};

use crate::pipeline::stats::Stats;

/// The fill, 0 to 1, from which the ring counts as near full.
pub const NEAR_FULL: f64 = 0.9;
/// The fill, 0 to 1, up to which the ring counts as near empty.
pub const NEAR_EMPTY: f64 = 0.1;
/// How often the ring is looked at.
pub const TICK: Duration = Duration::from_millis(20);

/// Where the ring's fill stood at one look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zone {
    NearFull,
    Between,
    NearEmpty,
}

impl Zone {
    fn of(fill: f64) -> Zone {
        if fill >= NEAR_FULL {
            Zone::NearFull
        } else if fill <= NEAR_EMPTY {
            Zone::NearEmpty
        } else {
            Zone::Between
        }
    }
}

/// The seconds the ring spent near full and near empty so far.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RingTime {
    pub near_full_s: f64,
    pub near_empty_s: f64,
    /// The previous counted look: when, and what it saw.
    last: Option<(f64, Zone)>,
}

impl RingTime {
    /// A look at the ring at `now` (seconds), `fill` from 0 to 1. The time
    /// since the previous counted look is charged to what that look saw;
    /// a look that is not `counting` (before the writer's start, after the
    /// input's end) starts no time of its own.
    pub fn look(&mut self, now: f64, fill: f64, counting: bool) {
        if let Some((at, zone)) = self.last {
            let dt = (now - at).max(0.0);
            match zone {
                Zone::NearFull => self.near_full_s += dt,
                Zone::NearEmpty => self.near_empty_s += dt,
                Zone::Between => {}
            }
        }
        self.last = counting.then(|| (now, Zone::of(fill)));
    }
}

/// True while the ring's time counts: the writer has left its first wait
/// for the high watermark, and the input has not ended.
fn counting(stats: &Stats) -> bool {
    let started = stats.blocks_released.load(Relaxed) > 0 || !stats.writer_waiting.load(Relaxed);
    started && !stats.input_done.load(Relaxed)
}

/// One look, its totals published in `stats` for the summary.
fn look(stats: &Stats, time: &mut RingTime) {
    time.look(stats.seconds(), stats.fill(), counting(stats));
    let ns = |s: f64| (s * 1e9) as u64;
    stats.near_full_ns.store(ns(time.near_full_s), Relaxed);
    stats.near_empty_ns.store(ns(time.near_empty_s), Relaxed);
}

/// Starts the ring clock; it looks once more and ends when `stop` is
/// dropped.
pub fn spawn(stats: Arc<Stats>, stop: Receiver<()>) -> JoinHandle<bool> {
    crate::base::thread::spawn("ring-time", move || {
        let ticks = tick(TICK);
        let mut time = RingTime::default();
        loop {
            select! {
                recv(ticks) -> _ => look(&stats, &mut time),
                recv(stop) -> _ => {
                    look(&stats, &mut time);
                    return true;
                },
            }
        }
    })
    .expect("spawning the ring-time thread")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_interval_is_charged_to_the_zone_seen_at_its_start() {
        let mut t = RingTime::default();
        t.look(0.0, 0.95, true);
        t.look(1.0, 0.5, true);
        t.look(1.5, 0.05, true);
        t.look(2.25, 0.9, true);
        t.look(2.5, 0.1, true);
        t.look(3.0, 0.0, true);
        assert_eq!(t.near_full_s, 1.0 + 0.25);
        assert_eq!(t.near_empty_s, 0.75 + 0.5);
    }

    #[test]
    fn time_outside_the_counted_span_is_nobodys() {
        let mut t = RingTime::default();
        // Priming: the writer has not started.
        t.look(0.0, 0.0, false);
        t.look(1.0, 0.5, false);
        // Streaming, full, until the input ends at 3 s.
        t.look(2.0, 1.0, true);
        t.look(3.0, 1.0, false);
        // The drain.
        t.look(4.0, 0.0, false);
        t.look(5.0, 0.0, false);
        assert_eq!((t.near_full_s, t.near_empty_s), (1.0, 0.0));
    }

    #[test]
    fn the_clock_counts_from_the_writers_start_to_the_inputs_end() {
        let stats = Stats::new(10, 1);
        assert!(!counting(&stats), "priming");
        stats.writer_waiting.store(false, Relaxed);
        assert!(counting(&stats));
        stats.writer_waiting.store(true, Relaxed);
        stats.block_filled();
        stats.block_released();
        assert!(counting(&stats), "a wait after an underrun counts");
        stats.input_done.store(true, Relaxed);
        assert!(!counting(&stats), "the drain");
    }
}
