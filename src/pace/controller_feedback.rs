//! What the controller learns from the writer's reports, after the fact:
//! a write and how long it was held (a stop, a follow that lasted and so
//! proved its rate, the top rate), a dry ring, a volume change (the rules
//! are in `controller.rs`'s header).

use super::{Controller, Phase};
use super::{AT_GOOD, GIVEN_FLOOR_MARGIN, PROOF_S, PROVEN_MIN_SHARE};
use crate::pace::mode::{is_stall, Mode, Stall, STALLS_BEFORE_BURSTS, STALL_RAISE};

impl Controller {
    /// Reports a write of `bytes` that ran from `started` to `ended`.
    pub fn wrote(&mut self, started: f64, ended: f64, bytes: u64) {
        let held = (ended - started).max(0.0);
        self.written += bytes as f64;
        self.recent.push(ended, self.written);
        let top = self.top.unwrap_or(f64::INFINITY);
        let stalled = is_stall(top, held, bytes);
        let restarting = std::mem::take(&mut self.restarting) && stalled;
        self.restarting = restarting;
        // Only a paced or a following write can tell of a stop: at full
        // speed from a gathered ring the drive sets its own pace.
        let fed = (self.phase.follow_rate(started)).or_else(|| self.last_plan.and_then(|p| p.rate));
        if let (true, false, false, Some(pace)) =
            (stalled, restarting, self.mode == Mode::Bursts, fed)
        {
            let stall = Stall {
                at_s: ended,
                held_s: held,
                pace,
            };
            self.stalled(stall);
        }
        if let (Phase::Follow { since, .. }, Some(top)) = (self.phase, self.top) {
            if !self.rest && ended - since >= PROOF_S {
                let rate = self.phase.follow_rate(ended).unwrap_or(0.0);
                self.proved(rate.max(top * PROVEN_MIN_SHARE));
            }
        }
        if self.settings.ceiling.is_none() {
            let unpaced = self.last_plan.is_none_or(|p| p.rate.is_none());
            if let Some(rate) = self.learner.wrote(started, ended, bytes as f64, unpaced) {
                self.top = Some(self.top.map_or(rate, |t| t.max(rate)));
            }
        }
    }

    /// A follow lasted `PROOF_S` without a stop at `rate`: the drive
    /// streams at it, and the ring's data becomes a reserve fed at it.
    /// Only once the top is known: an output that never pushed back may
    /// hold more than the ring, and a follow then proves nothing.
    pub(super) fn proved(&mut self, rate: f64) {
        let given = self
            .settings
            .floor
            .map_or(0.0, |f| f as f64 * GIVEN_FLOOR_MARGIN);
        let rate = self.top.map_or(rate, |t| rate.min(t)).max(given);
        if self.mode == Mode::Learning {
            self.mode = Mode::Pacing;
        }
        self.good = Some(self.good.map_or(rate, |g| g.min(rate)));
        self.phase = Phase::Gathered;
        self.paced = None;
    }

    /// The drive stopped while fed: learn why (see the header), and rest.
    fn stalled(&mut self, stall: Stall) {
        self.stalls.push(stall);
        self.rest = true;
        // The write held by the stop began at `at_s - held_s`.
        if (self.dipped_at).is_some_and(|t| stall.at_s - stall.held_s - t < PROOF_S) {
            self.dips_ended = Some(stall.at_s);
        }
        if matches!(self.phase, Phase::Follow { .. }) {
            // It cannot take the input's rate: the stop bursts would
            // have made, no later.
            return;
        }
        if let Some((rate, _)) = self.trying.take() {
            self.gather_full = true;
            self.failed = Some(self.failed.map_or(rate, |f| f.max(rate)));
            return;
        }
        let Some(good) = self.good else {
            return;
        };
        if stall.pace < good / AT_GOOD {
            // A stop in a dip below the proven rate: it says nothing of
            // the proven rate, and the dips end above.
            return;
        }
        if stall.pace > good * AT_GOOD {
            self.fall_scale /= 2.0;
            return;
        }
        self.paced_stops += 1;
        let raised = good * STALL_RAISE;
        let below_top = self.top.is_none_or(|t| raised < t * 0.95);
        match (self.paced_stops >= STALLS_BEFORE_BURSTS, below_top) {
            (false, true) => self.good = Some(raised),
            _ => self.mode = Mode::Bursts,
        }
    }

    /// The writer rests now, until `start_fill`.
    pub(super) fn rested(&mut self, now: f64) {
        self.full_speed.rest(now);
        self.trying = None;
        self.phase = Phase::Gathered;
        self.paced = None;
        self.restarting = true;
        self.learner.rest();
        self.recent.clear();
    }

    /// The ring ran dry (the writer had nothing to write), or a write
    /// waited for a volume change. After a dry ring the input is followed
    /// as it arrives; after a volume change the writer rests.
    pub fn ran_dry(&mut self) {
        let now = self.last_now.unwrap_or(0.0);
        if self.mode == Mode::Learning && self.learner.swallowed(self.ring_bytes) {
            self.swallowed = true;
        }
        self.paced = None;
        // Once pacing is off, and below a given floor (where the drive
        // stops for certain), a dry ring rests and gathers, as bursts do.
        let rest = self.mode == Mode::Bursts
            || (self.settings.floor.is_some() && self.phase == Phase::Gathered);
        match (rest, self.phase) {
            (true, _) => self.rested(now),
            (false, Phase::Follow { .. }) => {}
            (false, Phase::Gathered) => {
                self.phase = Phase::Follow {
                    since: now,
                    bytes: 0.0,
                }
            }
        }
    }

    /// A write waited for a volume change: the drive starts afresh.
    pub fn changed_volume(&mut self) {
        let now = self.last_now.unwrap_or(0.0);
        self.rested(now);
    }
}
