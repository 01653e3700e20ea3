//! The pacing controller behind `--pace`: when the writer feeds the
//! outputs at full speed, when at a steady rate, and when it rests, so
//! that a tape drive seldom stops more often than plain `-P` bursts would
//! make it stop, and far less often when it can follow a slower feed.
//!
//! The controller is pure: every call is given the time (seconds from any
//! origin) and what the writer sees, so tests drive it with a simulated
//! clock and the writer with the real one.
//!
//! **Why it is seldom worse than bursts.** The host learns nothing of a
//! drive it feeds slower than the drive runs: the writes go into the
//! drive's buffer at once, whether the drive is following the feed or
//! about to stop. It learns only from stops. So every guess about the
//! drive is tried where a stop costs little or nothing extra: at a dry
//! ring, where plain bursts stop writing and the drive stops anyway once
//! its buffer drains, or in a burst's last seconds. It cannot be never:
//! a stop shifts every later burst, and a drive with a large buffer that
//! chooses its speed from its feed can be stopped by a follow through a
//! pause that bursts' gathered ring would have bridged (3% of the grid's
//! cells, by one stop in most; docs/performance.md).
//!
//! - **Bursts first.** The run starts as `-P` does: gather the high
//!   watermark, write at full speed, learning the top rate on the way.
//! - **Follow at a dry ring.** Where bursts would rest, the writer passes
//!   the input on as it arrives (`Phase::Follow`). A drive that can
//!   stream at the input's rate does, and no stop happens at all. One
//!   that cannot stops later than under bursts (its buffer drains at its
//!   speed less the input's, not at its full speed) and the ring is no
//!   fuller when it does, so the next burst starts later with the same
//!   data: the stop is the one bursts would have made.
//! - **A follow that lasts proves a rate.** After `PROOF_S` without a
//!   stop, the rate the drive took is known to be one it streams at
//!   (`good`, the lowest such rate). From then on, while the ring holds
//!   data, the writer feeds at least that rate and no faster unless the
//!   ring is full: the ring fills when the input is faster and drains
//!   when it is slower, a reserve that bridges the input's lulls. Fed at
//!   a rate below its top, the drive drains the reserve more slowly than
//!   a burst would, so the reserve lasts longer than a burst's.
//! - **Fall gently.** From full speed the paced rate falls to `good` by at
//!   most `FALL_SHARE_PER_S` of the way per second, halved after each
//!   stop that came during a fall: a drive deciding its speed slowly,
//!   with a small buffer, cannot follow a sudden fall. A ring that runs
//!   dry during the fall is a dry ring like any other: the input is
//!   followed from there.
//! - **Dip before a dry ring.** Once the reserve would run dry within
//!   `TRY_LEAD_S` at the paced rate against the input's rate now, it is
//!   fed below the proven rate, down to `DIP` of it at an empty ring (never
//!   below `PROVEN_MIN_SHARE` of the top, nor below a given floor). A dry
//!   ring is coming: in a slow phase of the input it is followed at that
//!   phase's rate, which stops a drive whose slowest speed is above it. A
//!   drive that can take the lower rate (one that steps down when its own
//!   buffer runs low) bridges the lull on the ring's last data; one that
//!   cannot stops at about the time the dry ring would have stopped it,
//!   the stop is not held against the proven rate, and the drive is never
//!   dipped again (`dips_ended`: any stop within `PROOF_S` of a dip; the
//!   summary says when).
//! - **A stop while the reserve held data** is the one stop pacing can
//!   cause. The proven rate is raised by `STALL_RAISE`, and after
//!   `STALLS_BEFORE_BURSTS` such stops pacing is off for the rest of the
//!   run: plain bursts from the high watermark.
//! - **Try the input's mean near the end of a burst**, with no rate
//!   proven: once the ring is down to `TRY_FILL` and would run dry within
//!   `TRY_LEAD_S` at full speed, so that bursts are about to stop the
//!   drive anyway. If it follows for `PROOF_S`, the mean is proven. If it
//!   stops, that stop stands in for the burst's: the try began with the
//!   ring holding what the burst would have written first, so the next
//!   rest gathers a full ring instead of the high watermark, and the
//!   bursts after it start no sooner than bursts alone would have started
//!   them. A burst with seconds still to run (a large ring, an input near
//!   the top rate) has no stop coming for a failed try to stand in for.
//! - **After any stop the writer rests** until the ring holds the high
//!   watermark again (a full ring after a failed try), as bursts do: a
//!   drive that has stopped is best restarted with the most data.
//!
//! What it cannot do: a drive that never pushes back (writes are never
//! held, not even while it repositions) gives no sign of a stop, so a
//! follow at a rate it cannot take goes on stopping it. A given `--pace
//! MIN` is taken as proven from the start, and a dry ring then rests
//! until the high watermark, as bursts do: the user has said the drive
//! cannot stream slower.
//!
//! The rules share files: `schedule` (spacing paced writes), `learn` (the
//! top rate), `mode` (stalls), `judge` (the share of time fed at the
//! floor) and `full_speed` (when and why the pace gave way).
//!
//! The controller itself is three files: this one holds the state the
//! rules share (the phase, the proven rate, the try and the rest) and what
//! the writer and the summary read of it; `controller_plan.rs` decides each
//! block's plan before it is written, and `controller_feedback.rs` learns
//! from what the writer reports after (a write, a dry ring, a volume
//! change).

use super::full_speed::FullSpeed;
use super::judge::Judge;
use super::learn::TopLearner;
use super::mode::{Mode, Stall};
use super::report::PaceReport;
use super::schedule::Schedule;
use super::settings::PaceSettings;
use super::trail::Trail;
use super::view::Plan;

/// The floor `tapebuf probe` recommends, as a share of the top rate.
pub const AUTO_FLOOR_FRACTION: f64 = 0.5;
/// A given floor is the drive's slowest speed: the pace keeps this much
/// above it, so that the jitter of sleeps and scheduling never feeds the
/// drive below it on average.
pub const GIVEN_FLOOR_MARGIN: f64 = 1.05;
/// A run with a given floor starts once the ring holds this much.
pub const GIVEN_START_FILL: f64 = 0.25;
/// A follow that goes this long without a stop proves the rate it fed.
pub const PROOF_S: f64 = 4.0;
/// The paced rate falls from full speed toward the proven rate by at most
/// this share of the difference per second.
pub const FALL_SHARE_PER_S: f64 = 0.3;
/// A proven rate is taken as at least this share of the top: a follow
/// through a pause of the input feeds a drive with a large buffer almost
/// nothing without a stop, which proves no such rate.
pub const PROVEN_MIN_SHARE: f64 = 0.25;
/// Above this fill the reserve is full: the writer feeds at full speed,
/// so that the ring never holds more than bursts would start with.
pub const RESERVE_FULL: f64 = 0.9;
/// Near the end of a burst, at this fill or less, a drive with no proven
/// rate is fed the input's mean rate instead of full speed: if it follows,
/// the mean is proven; if it stops, the ring held little, so the stop
/// comes little sooner than the burst's own.
pub const TRY_FILL: f64 = 0.25;
/// ... and only if, at full speed against the input's rate now, the ring
/// would run dry within this time: a burst that would go on for longer
/// (a large ring, an input near the top rate) has no stop coming that a
/// failed try could stand in for.
pub const TRY_LEAD_S: f64 = 2.0;
/// A ring about to run dry is fed below the proven rate, down to this
/// share of it at an empty ring ...
pub const DIP: f64 = 0.5;
/// ... from this fill down: a ring fuller than this is fed at the proven
/// rate.
pub const DIP_FILL: f64 = 0.5;
/// The window of the input's rate now, for `TRY_LEAD_S`.
const NOW_WINDOW_S: f64 = 1.0;
/// The window of the input's mean rate.
const MEAN_WINDOW_S: f64 = 30.0;
/// The window over which the rate the output took is measured.
const RECENT_S: f64 = 0.5;
/// A stop at a paced rate within this factor of the proven rate was a stop
/// at that rate, not during a fall.
const AT_GOOD: f64 = 1.02;

/// Where the writer is in its cycle of bursts, follows and rests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    /// Gathering the high watermark, at the start and after a stop, then
    /// writing what was gathered: at full speed, or paced at the proven
    /// rate once there is one.
    Gathered,
    /// The ring ran dry: the input is passed on as it arrives, since
    /// `since`, `bytes` written.
    Follow { since: f64, bytes: f64 },
}

impl Phase {
    /// The rate a follow has fed up to `at`; None when not following.
    fn follow_rate(self, at: f64) -> Option<f64> {
        match self {
            Phase::Follow { since, bytes } => Some(bytes / (at - since).max(1e-3)),
            Phase::Gathered => None,
        }
    }
}

/// The pacing state of one run.
#[derive(Debug, Clone)]
pub struct Controller {
    settings: PaceSettings,
    mode: Mode,
    phase: Phase,
    top: Option<f64>,
    /// The lowest rate the drive streamed at for `PROOF_S` without a stop.
    good: Option<f64>,
    /// The paced rate in force, falling toward `good`; None at full speed.
    paced: Option<f64>,
    /// How gently the paced rate falls: halved by each stop in a fall.
    fall_scale: f64,
    /// The writer must rest before the next write: the drive stopped.
    rest: bool,
    /// The writing stopped and started again, and no write since has gone
    /// through unheld: a drive still repositioning from that stop holds
    /// writes, which says nothing of the pace.
    restarting: bool,
    /// Stops while the reserve held data.
    paced_stops: u32,
    /// The highest rate tried near the end of a burst that stopped the
    /// drive; no rate below it times `STALL_RAISE` is tried again.
    failed: Option<f64>,
    /// The rate being tried near the end of a burst, and since when.
    trying: Option<(f64, f64)>,
    /// Bytes read over the last `MEAN_WINDOW_S`: the input's mean.
    reads: Trail,
    /// Bytes read over the last `NOW_WINDOW_S`: the input's rate now.
    reads_now: Trail,
    schedule: Schedule,
    last_plan: Option<Plan>,
    last_now: Option<f64>,
    /// Bytes written, and over the last `RECENT_S` by the writes' ends.
    written: f64,
    recent: Trail,
    learner: TopLearner,
    stalls: Vec<Stall>,
    judge: Judge,
    full_speed: FullSpeed,
    swallowed: bool,
    ring_bytes: f64,
    /// A try failed: the next rest gathers a full ring, not the high
    /// watermark, so that the bursts after it start no sooner than
    /// bursts alone would have started them.
    gather_full: bool,
    /// When a stop came within `PROOF_S` of a dip below the proven rate:
    /// from then on this drive is not fed below it again.
    dips_ended: Option<f64>,
    /// When a low ring was last fed below the proven rate.
    dipped_at: Option<f64>,
}

impl Controller {
    /// A controller for a ring of `ring_bytes`.
    pub fn new(settings: PaceSettings, ring_bytes: f64) -> Controller {
        let top = settings.ceiling.map(|c| c as f64);
        let good = settings.floor.map(|f| f as f64 * GIVEN_FLOOR_MARGIN);
        Controller {
            settings,
            mode: if good.is_some() {
                Mode::Pacing
            } else {
                Mode::Learning
            },
            phase: Phase::Gathered,
            top,
            good,
            paced: None,
            fall_scale: 1.0,
            rest: false,
            restarting: false,
            paced_stops: 0,
            failed: None,
            trying: None,
            reads: Trail::new(MEAN_WINDOW_S),
            reads_now: Trail::new(NOW_WINDOW_S),
            schedule: Schedule::new(),
            last_plan: None,
            last_now: None,
            written: 0.0,
            recent: Trail::new(RECENT_S),
            learner: TopLearner::default(),
            stalls: Vec::new(),
            judge: Judge::default(),
            full_speed: FullSpeed::default(),
            swallowed: false,
            ring_bytes,
            gather_full: false,
            dips_ended: None,
            dipped_at: None,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The top rate, given or learned.
    pub fn top(&self) -> Option<f64> {
        self.top
    }

    /// The floor in force: the lowest rate proven (or given), never above
    /// the top.
    pub fn floor(&self) -> Option<f64> {
        let good = self.good?;
        Some(self.top.map_or(good, |t| good.min(t)))
    }

    /// While the writer passes the input on as it arrives, an empty ring
    /// is not a rest: the writer waits for the next block and writes it.
    pub fn passing_through(&self) -> bool {
        matches!(self.phase, Phase::Follow { .. }) && !self.rest
    }

    /// How full the ring should be before the writer starts, at the start
    /// and after a rest, given the high watermark `high` (a share of the
    /// ring): the high watermark; nothing while following a dry ring; a
    /// quarter at the first start with a given floor.
    pub fn start_fill(&self, high: f64) -> f64 {
        match (self.mode, self.phase) {
            _ if self.gather_full => 1.0,
            (Mode::Bursts, _) => high,
            (_, Phase::Follow { .. }) if !self.rest => 0.0,
            // A floor given from the start needs no burst to learn from.
            _ if self.settings.floor.is_some() && self.last_plan.is_none() => {
                high.min(GIVEN_START_FILL)
            }
            _ => high,
        }
    }

    /// How pacing went so far, for the summary.
    pub fn report(&self) -> PaceReport {
        PaceReport {
            floor_bps: self.floor(),
            top_bps: self.top,
            top_learned: self.settings.ceiling.is_none() && self.top.is_some(),
            swallowed: self.swallowed,
            dips_ended_s: self.dips_ended,
            mode: self.mode,
            stall: self.stalls.last().copied(),
            inside_share: self.inside_share(),
            full_speed: self.full_speed.clone(),
        }
    }

    pub fn stalls(&self) -> &[Stall] {
        &self.stalls
    }

    /// The share of time, once the floor was known, in which the output
    /// was fed at the floor or faster; None before any such time.
    pub fn inside_share(&self) -> Option<f64> {
        self.judge.share(self.last_now, self.floor())
    }

    /// The target of the last plan: a rate, or None for full speed.
    pub fn current_target(&self) -> Option<f64> {
        self.last_plan.and_then(|p| p.rate)
    }
}

#[path = "controller_plan.rs"]
mod plan;

#[path = "controller_feedback.rs"]
mod feedback;

#[cfg(test)]
#[path = "controller_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "controller_try_tests.rs"]
mod try_tests;

#[cfg(test)]
#[path = "controller_dip_tests.rs"]
mod dip_tests;
