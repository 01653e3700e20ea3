//! The pacing controller behind `--pace`: how fast the writer should feed
//! the outputs, block by block, so that a speed-matching tape drive sees a
//! steady stream it can follow instead of bursts it must stop between.
//!
//! The controller is pure: every call is given the time (seconds from any
//! origin) and what the writer sees, so tests drive it with a simulated
//! clock and the writer with the real one. The rules:
//!
//! - **Follow the input, hold a set point.** The target rate is the
//!   input's mean rate, corrected smoothly by how far the ring's fill is
//!   from a set point sized to the input's measured swing, so that a burst
//!   has room to land and a lull has data to draw on. The gains come from
//!   the ring's size, the swing and the range (`target`).
//! - **Never below the floor.** While the ring holds data the target is at
//!   least the floor, because a drive fed slower than its slowest speed
//!   stops anyway. When the ring runs dry the writer waits, and pacing
//!   resumes after the restart.
//! - **Start early.** A run paced from its start (the top given) starts
//!   writing once the ring holds the set point (`start_fill`), not at the
//!   high watermark, if that is lower.
//! - **Full speed only when the ring is full**, that is while the reader
//!   waits for room, and once the input has ended. Pacing then resumes
//!   from the rate the output really took.
//! - **Move gently.** While the drive moves, the target rises or falls by
//!   a bounded share of the range per second, so a speed-matching drive
//!   can follow, except when that would run the ring dry first: a dry
//!   ring stops every drive, so the target then falls as fast as keeping
//!   data takes (`target`). After a start or a restart the drive stands
//!   still, and the first target is taken as it is.
//! - **Learn the top rate** when it is not given: from windows of unpaced
//!   writing in which the output, not the input, set the speed steadily
//!   (`learn`). Until it is known, the writer bursts as plain watermarks
//!   do. The floor is `AUTO_FLOOR_FRACTION` of the top.
//! - **Learn from a stop.** A paced write that is held for a reposition
//!   (`STALL_MIN_S` or more) means the drive stopped though it was fed:
//!   - after a fall of the target, the drive did not follow it: the target
//!     moves half as fast from then on;
//!   - at a steady pace near the floor, the drive does not speed-match that
//!     low: the floor is raised above that pace (`STALL_RAISE`);
//!   - at a steady pace above that, or at the `STALLS_BEFORE_BURSTS`th
//!     stop, the drive does not speed-match at all: pacing is turned off for
//!     the rest of the run, and each later burst starts from a full ring
//!     (`FULL_FILL`), the longest burst the ring allows.
//!
//! Each rule has its own file: `target` (the set point, the gains, the
//! slew), `swing` (the input's burstiness), `schedule` (spacing the
//! writes), `learn` (the top rate), `mode` (stalls), `judge` (the share of
//! time fed at the floor) and `full_speed` (when and why the pace gave
//! way). This file holds the state of one run and ties them together.

use super::full_speed::{FullSpeed, FullSpeedWhy};
use super::judge::Judge;
use super::learn::TopLearner;
use super::mode::{is_stall, Mode, Stall, STALLS_BEFORE_BURSTS, STALL_MIN_S, STALL_RAISE};
use super::report::PaceReport;
use super::schedule::Schedule;
use super::settings::PaceSettings;
use super::target::Target;
use super::view::{Plan, View};

/// From this fill on, a run whose pacing was turned off restarts after the
/// ring ran dry: the longest burst the ring allows.
pub const FULL_FILL: f64 = 0.98;
/// While learning, once the output swallowed a burst: the fill from which
/// the writer restarts after the ring ran dry. The output's own buffer is
/// the larger store, so the ring passes the input's flow on as it comes
/// rather than in lumps of most of the ring.
pub const SWALLOWED_FILL: f64 = 0.1;
/// A stop at a pace within this factor of the floor is a floor too low.
const NEAR_FLOOR: f64 = 1.1;

/// The floor, as a fraction of the top rate, when it is not given. The
/// slowest speed of every LTO generation's speed matching is at most 0.44
/// of its fastest for full-height drives; half-height LTO-9 reaches 0.62,
/// which the first stall's raise covers.
pub const AUTO_FLOOR_FRACTION: f64 = 0.5;
/// A given floor is the drive's slowest speed: the pace keeps this much
/// above it, so that the jitter of sleeps and scheduling never feeds the
/// drive below it on average.
pub const GIVEN_FLOOR_MARGIN: f64 = 1.05;

/// The pacing state of one run.
#[derive(Debug, Clone)]
pub struct Controller {
    settings: PaceSettings,
    mode: Mode,
    top: Option<f64>,
    target: Target,
    schedule: Schedule,
    last_plan: Option<Plan>,
    learner: TopLearner,
    stalls: Vec<Stall>,
    judge: Judge,
    full_speed: FullSpeed,
    /// The floor after a stop at a steady pace near it.
    floor_raised: Option<f64>,
    /// The writing stopped and started again, and no write since has
    /// gone through unheld: a drive still repositioning from that stop
    /// holds writes, which says nothing of the pace.
    restarting: bool,
    /// While learning, a burst went into the output faster than it could
    /// set the speed (`learn`): the output holds more than the ring.
    swallowed: bool,
}

impl Controller {
    /// A controller for a ring of `ring_bytes`.
    pub fn new(settings: PaceSettings, ring_bytes: f64) -> Controller {
        let top = settings.ceiling.map(|c| c as f64);
        Controller {
            settings,
            mode: if top.is_some() {
                Mode::Pacing
            } else {
                Mode::Learning
            },
            top,
            target: Target::new(top, ring_bytes),
            schedule: Schedule::new(),
            last_plan: None,
            learner: TopLearner::default(),
            stalls: Vec::new(),
            judge: Judge::default(),
            full_speed: FullSpeed::default(),
            floor_raised: None,
            restarting: false,
            swallowed: false,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The top rate, given or learned.
    pub fn top(&self) -> Option<f64> {
        self.top
    }

    /// The floor in force: given, or a fraction of the top rate; never
    /// above the top.
    pub fn floor(&self) -> Option<f64> {
        let top = self.top?;
        let floor = match self.settings.floor {
            Some(f) => f as f64 * GIVEN_FLOOR_MARGIN,
            None => top * AUTO_FLOOR_FRACTION,
        };
        Some(floor.max(self.floor_raised.unwrap_or(0.0)).min(top))
    }

    /// How full the ring should be before the writer starts, at the start
    /// and after running dry, given the high watermark `high` (a share of
    /// the ring):
    /// - the first start of a paced run: the set point, if lower, so that
    ///   pacing does not wait for a full ring;
    /// - while learning the top rate, and after running dry: the high
    ///   watermark, the burst that teaches the top and the most data to
    ///   resume with;
    /// - once the drive is known not to slow down: a full ring, the
    ///   longest burst it allows.
    pub fn start_fill(&self, high: f64) -> f64 {
        match self.mode {
            Mode::Bursts => high.max(FULL_FILL),
            Mode::Learning if self.swallowed => high.min(SWALLOWED_FILL),
            Mode::Learning => high,
            // A block was planned: the run has started.
            Mode::Pacing if self.last_plan.is_some() => high,
            Mode::Pacing => high.min(self.target.setpoint_fill()),
        }
    }

    /// How pacing went so far, for the summary.
    pub fn report(&self) -> PaceReport {
        PaceReport {
            floor_bps: self.floor(),
            top_bps: self.top,
            top_learned: self.settings.ceiling.is_none() && self.top.is_some(),
            swallowed: self.swallowed,
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
        let now = self.target.last_view().map(|v| v.now);
        self.judge.share(now, self.floor())
    }

    /// The target of the last plan: a rate, or None for full speed.
    pub fn current_target(&self) -> Option<f64> {
        self.last_plan.and_then(|p| p.rate)
    }

    /// Decides when the next block of `bytes` may be written.
    pub fn plan(&mut self, view: View, bytes: u64) -> Plan {
        self.judge.tick(view.now, self.floor());
        // After a rest the schedule starts afresh: lateness is caught up
        // only within a paced run, never as a burst after a pause.
        if self.target.at_rest() {
            self.schedule.restart(view.now);
        }
        let dt = self.target.observe(view, bytes);
        let rate = match (self.mode, self.top, self.floor()) {
            (Mode::Pacing, Some(top), Some(floor)) => self.target.next(view, dt, top, floor),
            _ => None,
        };
        let plan = match rate {
            Some(r) => Plan {
                wait_s: self.schedule.paced(view.now, bytes, r),
                rate: Some(r),
            },
            None => {
                self.schedule.full_speed(view.now);
                Plan {
                    wait_s: 0.0,
                    rate: None,
                }
            }
        };
        let why = match (rate, self.mode) {
            (Some(_), _) => None,
            (None, Mode::Learning) => Some(FullSpeedWhy::Learning),
            (None, Mode::Bursts) => Some(FullSpeedWhy::Bursts),
            (None, Mode::Pacing) => Some(FullSpeedWhy::RingFull),
        };
        self.full_speed.plan(view.now, why, !view.input_done);
        self.last_plan = Some(plan);
        self.judge.sent(bytes);
        plan
    }

    /// Reports a write of `bytes` that ran from `started` to `ended`.
    pub fn wrote(&mut self, started: f64, ended: f64, bytes: u64) {
        let held = (ended - started).max(0.0);
        let paced = self.last_plan.and_then(|p| p.rate);
        let restarting = std::mem::take(&mut self.restarting) && held >= STALL_MIN_S;
        self.restarting = restarting;
        if let (Mode::Pacing, Some(pace), false) = (self.mode, paced, restarting) {
            let top = self.top.unwrap_or(pace);
            if is_stall(top, held, bytes) {
                self.stalled(Stall {
                    at_s: ended,
                    held_s: held,
                    pace,
                });
            }
        }
        if self.settings.ceiling.is_none() {
            let unpaced = paced.is_none();
            if let Some(rate) = self.learner.wrote(started, ended, bytes as f64, unpaced) {
                self.learned(rate);
            }
        }
    }

    /// The drive stopped though paced: learn why (see the header).
    fn stalled(&mut self, stall: Stall) {
        self.stalls.push(stall);
        let (pace, top) = (stall.pace, self.top.unwrap_or(stall.pace));
        let floor = self.floor().unwrap_or(pace);
        let last_chance = self.stalls.len() as u32 >= STALLS_BEFORE_BURSTS;
        if last_chance {
            self.mode = Mode::Bursts;
        } else if self.target.fell_before(stall.at_s - stall.held_s, pace) {
            self.target.slow_down();
        } else if pace <= floor * NEAR_FLOOR && pace * STALL_RAISE < top * 0.95 {
            self.floor_raised = Some(pace * STALL_RAISE);
        } else {
            self.mode = Mode::Bursts;
        }
    }

    /// The writing stopped for a reason of its own: the ring ran dry and
    /// the writer will wait for the high watermark, or a write waited for
    /// a volume change. What follows is a new burst.
    pub fn ran_dry(&mut self) {
        if let Some(v) = self.target.last_view() {
            self.full_speed.rest(v.now);
        }
        if self.mode == Mode::Learning && self.learner.swallowed(self.target.ring_bytes()) {
            self.swallowed = true;
        }
        self.target.rest();
        self.learner.rest();
        self.restarting = true;
    }

    /// A window of unpaced writing measured `rate`: the top is the fastest
    /// seen so far.
    fn learned(&mut self, rate: f64) {
        let top = self.top.map_or(rate, |t| t.max(rate));
        self.top = Some(top);
        if self.mode == Mode::Learning {
            // Mid-burst: the drive runs at its top, and the pace falls
            // gently from there.
            self.mode = Mode::Pacing;
            self.target.running_at(top);
        }
    }
}

#[cfg(test)]
#[path = "controller_tests.rs"]
mod tests;
