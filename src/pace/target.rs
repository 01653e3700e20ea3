//! The target rate while pacing: the input rate, smoothed over
//! `ARRIVAL_WINDOW_S`, bent by the ring's fill towards the floor when the
//! ring empties and towards the top when it fills.
//!
//! The invariant: the target stays between the floor and the top, and
//! while the drive moves it falls by at most `FALL_PER_S` of the top per
//! second, so a drive running fast can slow down with it; only from rest
//! is the first target taken as it is.

use super::view::View;

/// The time constant of the smoothed input rate.
pub const ARRIVAL_WINDOW_S: f64 = 10.0;
/// The fill the controller steers towards.
pub const SETPOINT_FILL: f64 = 0.5;
/// From this fill on the writer is not paced.
pub const FULL_FILL: f64 = 0.98;
/// The target falls by at most this share of the top rate per second, so
/// that a drive running fast can slow down with it.
pub const FALL_PER_S: f64 = 0.125;

/// The smoothed input rate and the last target.
#[derive(Debug, Clone)]
pub(super) struct Target {
    arrival: Option<f64>,
    last_view: Option<View>,
    rate: f64,
    /// The drive is standing still (the start, or a restart after the
    /// ring ran dry): the next target need not fall gently from the last.
    from_rest: bool,
}

impl Target {
    /// Starts from rest, at the top rate if it is given.
    pub(super) fn new(top: Option<f64>) -> Target {
        Target {
            arrival: None,
            last_view: None,
            rate: top.unwrap_or(0.0),
            from_rest: true,
        }
    }

    /// The view of the last plan.
    pub(super) fn last_view(&self) -> Option<View> {
        self.last_view
    }

    pub(super) fn at_rest(&self) -> bool {
        self.from_rest
    }

    /// The drive stopped: the next target is taken as it is.
    pub(super) fn rest(&mut self) {
        self.from_rest = true;
    }

    /// The drive runs at `top` mid-burst: the target falls gently from
    /// there.
    pub(super) fn running_at(&mut self, top: f64) {
        self.rate = top;
        self.from_rest = false;
    }

    /// Takes in `view`: updates the smoothed input rate and gives the
    /// seconds since the last view.
    pub(super) fn update_arrival(&mut self, view: View) -> f64 {
        let prev = self.last_view.replace(view);
        let Some(prev) = prev else {
            return 0.0;
        };
        let dt = (view.now - prev.now).max(0.0);
        let new_bytes = view.read_bytes.saturating_sub(prev.read_bytes) as f64;
        let arrival = match self.arrival {
            // The first estimate is the mean so far, not zero.
            None if view.now > 0.0 => view.read_bytes as f64 / view.now,
            None => 0.0,
            Some(a) => a * (-dt / ARRIVAL_WINDOW_S).exp() + new_bytes / ARRIVAL_WINDOW_S,
        };
        self.arrival = Some(arrival);
        dt
    }

    /// The target for `view`, `dt` seconds after the last, between `floor`
    /// and `top`; None for full speed.
    pub(super) fn next(&mut self, view: View, dt: f64, top: f64, floor: f64) -> Option<f64> {
        let fill = view.fill;
        if view.reader_waiting || view.input_done || fill >= FULL_FILL || floor >= top {
            self.rate = top;
            return None;
        }
        // The input rate sets the pace at the setpoint; the fill bends it
        // down to the floor at empty and up to the top at full.
        let centre = self.arrival.unwrap_or(floor).clamp(floor, top);
        let t = if fill < SETPOINT_FILL {
            floor + (centre - floor) * fill / SETPOINT_FILL
        } else {
            centre + (top - centre) * (fill - SETPOINT_FILL) / (FULL_FILL - SETPOINT_FILL)
        };
        let lowest = match std::mem::take(&mut self.from_rest) {
            true => floor,
            false => self.rate - top * FALL_PER_S * dt,
        };
        self.rate = t.max(lowest).clamp(floor, top);
        Some(self.rate)
    }
}
