//! The pacing controller behind `--pace`: how fast the writer should feed
//! the outputs, block by block, so that a speed-matching tape drive sees a
//! steady stream it can follow instead of bursts it must stop between.
//!
//! The controller is pure: every call is given the time (seconds from any
//! origin) and what the writer sees, so tests drive it with a simulated
//! clock and the writer with the real one. The rules:
//!
//! - **Follow the input.** The target rate is the input rate, smoothed over
//!   `ARRIVAL_WINDOW_S`, corrected by how far the ring's fill is from half
//!   full (a fuller ring raises the rate, an emptier one lowers it).
//! - **Never below the floor.** While the ring holds data the target is at
//!   least the floor, because a drive fed slower than its slowest speed
//!   stops anyway. When the ring runs dry the writer waits for the high
//!   watermark as without pacing, and pacing resumes after the restart.
//! - **A full ring means full speed.** Above the setpoint the target
//!   climbs towards the top rate; from `FULL_FILL`, whenever the reader
//!   waits for room, and once the input has ended, the writer is not paced
//!   at all.
//! - **Fall gently.** While the drive moves, the target falls by at most
//!   `FALL_PER_S` of the top rate per second, so a drive running fast can
//!   slow down with it. After a start or a restart from a dry ring, the
//!   drive stands still, and the first target is taken as it is.
//! - **Learn the top rate** when it is not given: from windows of unpaced
//!   writing in which the output, not the input, set the speed, skipping
//!   the first `LEARN_SKIP_S` of each burst, while the drive's own buffer
//!   fills faster than tape moves. Until it is known, the writer bursts as
//!   plain watermarks do. The floor is `AUTO_FLOOR_FRACTION` of the top.
//! - **Notice a drive that does not follow.** A paced write that is held
//!   for a reposition (`STALL_MIN_S` or more) means the drive stopped though
//!   it was fed steadily: the pace was below its slowest speed, so the drive
//!   does not speed-match that low, or at all. Pacing is then turned off
//!   for the rest of the run, and each later burst starts from a full ring
//!   (`FULL_FILL`), the longest burst the ring allows. That one stop is the
//!   price of finding out.
//!
//! Each rule has its own file: `target` (follow the input, the floor, full
//! speed, falling gently), `schedule` (spacing the writes), `learn` (the
//! top rate), `mode` (stalls) and `judge` (the share of time fed at the
//! floor). This file holds the state of one run and ties them together.

use super::full_speed::{FullSpeed, FullSpeedWhy};
use super::judge::Judge;
use super::learn::TopLearner;
use super::mode::{is_stall, Mode, Stall};
use super::report::PaceReport;
use super::schedule::Schedule;
use super::settings::PaceSettings;
use super::target::{Target, FULL_FILL};
use super::view::{Plan, View};

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
}

impl Controller {
    pub fn new(settings: PaceSettings) -> Controller {
        let top = settings.ceiling.map(|c| c as f64);
        Controller {
            settings,
            mode: if top.is_some() {
                Mode::Pacing
            } else {
                Mode::Learning
            },
            top,
            target: Target::new(top),
            schedule: Schedule::new(),
            last_plan: None,
            learner: TopLearner::default(),
            stalls: Vec::new(),
            judge: Judge::default(),
            full_speed: FullSpeed::default(),
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
        Some(floor.min(top))
    }

    /// How full the ring should be before the writer starts again after
    /// running dry, if fuller than the high watermark: once the drive is
    /// known not to slow down, each burst is made as long as the ring
    /// allows.
    pub fn restart_fill(&self) -> Option<f64> {
        (self.mode == Mode::Bursts).then_some(FULL_FILL)
    }

    /// How pacing went so far, for the summary.
    pub fn report(&self) -> PaceReport {
        PaceReport {
            floor_bps: self.floor(),
            top_bps: self.top,
            top_learned: self.settings.ceiling.is_none() && self.top.is_some(),
            mode: self.mode,
            stall: self.stalls.first().copied(),
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
        let dt = self.target.update_arrival(view);
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
        if let (Mode::Pacing, Some(pace)) = (self.mode, paced) {
            let top = self.top.unwrap_or(pace);
            if is_stall(pace, top, held, bytes) {
                self.stalls.push(Stall {
                    at_s: ended,
                    held_s: held,
                    pace,
                });
                self.mode = Mode::Bursts;
            }
        }
        if self.settings.ceiling.is_none() {
            let unpaced = paced.is_none();
            if let Some(rate) = self.learner.wrote(started, ended, bytes as f64, unpaced) {
                self.learned(rate);
            }
        }
    }

    /// The writing stopped for a reason of its own: the ring ran dry and
    /// the writer will wait for the high watermark, or a write waited for
    /// a volume change. What follows is a new burst.
    pub fn ran_dry(&mut self) {
        if let Some(v) = self.target.last_view() {
            self.full_speed.rest(v.now);
        }
        self.target.rest();
        self.learner.rest();
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
