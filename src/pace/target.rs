//! The target rate while pacing: the input's mean rate, corrected by how
//! far the ring's fill is from a set point, moving no faster than a drive
//! can follow.
//!
//! - **The set point** is the fill the controller steers towards: the
//!   input's measured swing (`swing`), so that a lull has data to draw on
//!   and a burst has room to land, kept between `SETPOINT_MIN_SHARE` and
//!   `SETPOINT_MAX_SHARE` of the ring.
//! - **The correction** is proportional: a fill `e` bytes from the set
//!   point adds `e / tau` to the mean, where `tau` is `STIFFNESS` times the
//!   time the drive's range (top − floor) takes to move the set point's
//!   bytes. A small ring or a wide range gives a quick correction, a large
//!   ring a gentle one; no constant is tied to one drive or one input.
//! - **The mean** is smoothed over `MEAN_WINDOW_TAUS` times `tau`, so that
//!   it follows the input's trend, not its bursts.
//! - **The slew**: while the drive moves, the target rises or falls by at
//!   most `SLEW_SHARE_PER_S` of the range per second, halved after each
//!   stop the drive could not follow (`slow_down`). After full speed the
//!   target starts from the rate the output really took, not the top.
//! - **But never into a dry ring.** When the target is so far above what
//!   the input brings now that the slew could not bring it down before
//!   the ring empties, it falls as fast as that takes (with
//!   `DRY_MARGIN`): a dry ring stops any drive for certain, a quick fall
//!   only a drive that cannot follow it. A drive that stopped after a
//!   fall has shown it cannot, and from then on the slew alone holds.
//!
//! The invariant: the target stays between the floor and the top; only
//! from rest is it taken without slewing. Full speed (None) means the
//! reader waits for room, or the input has ended.

use std::collections::VecDeque;

use super::swing::Swing;
use super::view::View;

/// The set point, as a share of the ring: at least this much...
pub const SETPOINT_MIN_SHARE: f64 = 0.125;
/// ... and at most this much, so that a burst always has half the ring.
pub const SETPOINT_MAX_SHARE: f64 = 0.5;
/// The set point before the input's swing is known.
pub const SETPOINT_START_SHARE: f64 = 0.25;
/// How gently the fill is corrected: `tau` in units of the time the range
/// takes to move the set point's bytes.
pub const STIFFNESS: f64 = 2.0;
/// The window of the input's mean, in units of `tau`.
pub const MEAN_WINDOW_TAUS: f64 = 4.0;
/// The window of the input's mean before `tau` is known.
const FIRST_MEAN_WINDOW_S: f64 = 10.0;
/// The target moves by at most this share of the range per second.
pub const SLEW_SHARE_PER_S: f64 = 0.3;
/// The window over which the rate the output took, and the rate the
/// input brings now, are measured.
const SHORT_WINDOW_S: f64 = 0.25;
/// The fall that keeps the ring from running dry is taken this much
/// steeper than the least that would do, so that it ends with data to
/// spare.
const DRY_MARGIN: f64 = 1.5;
/// How far back a stop looks for a fall in the target.
pub const FOLLOW_S: f64 = 2.0;

/// The gains in force for a ring, a swing and a range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gains {
    pub setpoint_bytes: f64,
    pub tau_s: f64,
    pub mean_window_s: f64,
}

impl Gains {
    /// The gains for a ring of `ring_bytes`, an input that swings by
    /// `swing` bytes (None before it is known), and a range of `span`
    /// bytes per second.
    pub fn new(ring_bytes: f64, swing: Option<f64>, span: f64) -> Gains {
        let setpoint_bytes = match swing {
            Some(s) => s.clamp(
                SETPOINT_MIN_SHARE * ring_bytes,
                SETPOINT_MAX_SHARE * ring_bytes,
            ),
            None => SETPOINT_START_SHARE * ring_bytes,
        };
        let tau_s = STIFFNESS * setpoint_bytes / span.max(1.0);
        Gains {
            setpoint_bytes,
            tau_s,
            mean_window_s: MEAN_WINDOW_TAUS * tau_s,
        }
    }
}

/// The smoothed input rate, the rate the output took, and the last
/// target.
#[derive(Debug, Clone)]
pub(super) struct Target {
    ring_bytes: f64,
    arrival: Option<f64>,
    swing: Swing,
    /// Bytes per second the output took, over `SHORT_WINDOW_S`.
    delivered: f64,
    /// Bytes per second the input brought, over the same window.
    inflow: f64,
    last_bytes: f64,
    last_view: Option<View>,
    gains: Option<Gains>,
    rate: f64,
    /// (time, target) of the paced plans of the last `FOLLOW_S`.
    recent: VecDeque<(f64, f64)>,
    slew_scale: f64,
    /// The drive is standing still (the start, or a restart after the
    /// ring ran dry): the next target need not slew from the last.
    from_rest: bool,
}

impl Target {
    /// Starts from rest, at the top rate if it is given.
    pub(super) fn new(top: Option<f64>, ring_bytes: f64) -> Target {
        Target {
            ring_bytes: ring_bytes.max(1.0),
            arrival: None,
            swing: Swing::default(),
            delivered: 0.0,
            inflow: 0.0,
            last_bytes: 0.0,
            last_view: None,
            gains: None,
            rate: top.unwrap_or(0.0),
            recent: VecDeque::new(),
            slew_scale: 1.0,
            from_rest: true,
        }
    }

    /// The ring's size, in bytes.
    pub(super) fn ring_bytes(&self) -> f64 {
        self.ring_bytes
    }

    /// The view of the last plan.
    pub(super) fn last_view(&self) -> Option<View> {
        self.last_view
    }

    /// The fill the controller steers towards, as a share of the ring.
    pub(super) fn setpoint_fill(&self) -> f64 {
        self.gains
            .map_or(SETPOINT_START_SHARE, |g| g.setpoint_bytes / self.ring_bytes)
    }

    pub(super) fn at_rest(&self) -> bool {
        self.from_rest
    }

    /// The drive stopped: the next target is taken as it is.
    pub(super) fn rest(&mut self) {
        self.from_rest = true;
        self.recent.clear();
    }

    /// The drive runs at `top` mid-burst: the target slews from there.
    pub(super) fn running_at(&mut self, top: f64) {
        self.rate = top;
        self.from_rest = false;
    }

    /// The drive stopped though paced, after the target fell: from now
    /// on the target moves half as fast.
    pub(super) fn slow_down(&mut self) {
        self.slew_scale *= 0.5;
    }

    /// Whether the target fell in the last `FOLLOW_S` before `now` to
    /// below `pace`'s 0.95: a drive that stopped then may not have
    /// followed the fall.
    pub(super) fn fell_before(&self, now: f64, pace: f64) -> bool {
        self.recent
            .iter()
            .any(|&(t, r)| now - t <= FOLLOW_S && pace < 0.95 * r)
    }

    /// Takes in `view`, just before a block of `bytes`: updates the
    /// smoothed input rate, its swing and the rate the output took; gives
    /// the seconds since the last view.
    pub(super) fn observe(&mut self, view: View, bytes: u64) -> f64 {
        let prev = self.last_view.replace(view);
        let last_bytes = std::mem::replace(&mut self.last_bytes, bytes as f64);
        let Some(prev) = prev else {
            return 0.0;
        };
        let dt = (view.now - prev.now).max(0.0);
        let new_bytes = view.read_bytes.saturating_sub(prev.read_bytes) as f64;
        // Until the window has passed, the mean of all seen so far.
        let window = self.gains.map_or(FIRST_MEAN_WINDOW_S, |g| g.mean_window_s);
        let w = window.min(view.now.max(dt)).max(1e-3);
        let arrival = match self.arrival {
            // The first estimate is the mean so far, not zero.
            None if view.now > 0.0 => view.read_bytes as f64 / view.now,
            None => 0.0,
            Some(a) => a * (-dt / w).exp() + new_bytes / w,
        };
        self.arrival = Some(arrival);
        self.swing.sample(view.now, view.read_bytes as f64, arrival);
        let keep = (-dt / SHORT_WINDOW_S).exp();
        self.delivered = self.delivered * keep + last_bytes / SHORT_WINDOW_S;
        if dt > 0.0 {
            self.inflow = self.inflow * keep + (1.0 - keep) * new_bytes / dt;
        }
        dt
    }

    /// The fall, in bytes per second per second, that brings the target
    /// down to what the input brings (or to the floor) before the ring
    /// runs dry: a target `d` above the inflow, falling at `a`, drains
    /// `d²/2a` more bytes. None of it once the drive failed to follow a
    /// fall (`slow_down`): then only the slew holds.
    fn fall_to_stay_wet(&self, view: View, floor: f64) -> f64 {
        let inflow = self.inflow.min(self.arrival.unwrap_or(0.0)).max(floor);
        let drain = self.rate - inflow;
        let held = (view.fill * self.ring_bytes).max(1.0);
        match drain > 0.0 && self.slew_scale >= 1.0 {
            true => DRY_MARGIN * drain * drain / (2.0 * held),
            false => 0.0,
        }
    }

    /// The target for `view`, `dt` seconds after the last, between `floor`
    /// and `top`; None for full speed.
    pub(super) fn next(&mut self, view: View, dt: f64, top: f64, floor: f64) -> Option<f64> {
        if view.reader_waiting || view.input_done {
            // Pacing resumes from what the drive really took.
            self.rate = self.delivered.clamp(floor, top);
            self.from_rest = false;
            return None;
        }
        let span = (top - floor).max(0.0);
        let g = Gains::new(self.ring_bytes, self.swing.bytes(), span);
        self.gains = Some(g);
        let centre = self.arrival.unwrap_or(floor).clamp(floor, top);
        let error = view.fill * self.ring_bytes - g.setpoint_bytes;
        let want = centre + error / g.tau_s;
        let step = SLEW_SHARE_PER_S * self.slew_scale * span * dt;
        let fall = step.max(self.fall_to_stay_wet(view, floor) * dt);
        let (low, high) = match std::mem::take(&mut self.from_rest) {
            true => (floor, top),
            false => (self.rate - fall, self.rate + step),
        };
        self.rate = want.clamp(low, high).clamp(floor, top);
        self.recent.push_back((view.now, self.rate));
        while self
            .recent
            .front()
            .is_some_and(|&(t, _)| view.now - t > FOLLOW_S)
        {
            self.recent.pop_front();
        }
        Some(self.rate)
    }
}
