//! The controller's plan for each block, before the writer writes it:
//! full speed, a paced rate falling gently toward the proven one, the
//! input's mean tried near the end of a burst, or a rest (the rules are in
//! `controller.rs`'s header).

use super::{Controller, Phase};
use super::{
    DIP, DIP_FILL, FALL_SHARE_PER_S, PROOF_S, PROVEN_MIN_SHARE, RECENT_S, RESERVE_FULL, TRY_FILL,
    TRY_LEAD_S,
};
use crate::pace::full_speed::FullSpeedWhy;
use crate::pace::mode::{Mode, STALL_RAISE};
use crate::pace::view::{Plan, View};

impl Controller {
    /// Decides when the next block of `bytes` may be written, or that the
    /// writer must rest first (`Plan::rest`).
    pub fn plan(&mut self, view: View, bytes: u64) -> Plan {
        self.judge.tick(view.now, self.floor());
        if std::mem::take(&mut self.rest) {
            self.rested(view.now);
            return Plan {
                wait_s: 0.0,
                rate: None,
                rest: true,
            };
        }
        self.gather_full = false;
        let dt = self.last_now.map_or(0.0, |t| (view.now - t).max(0.0));
        self.last_now = Some(view.now);
        let rate = self.rate(view, dt);
        let plan = match rate {
            Some(r) => Plan {
                wait_s: self.schedule.paced(view.now, bytes, r),
                rate: Some(r),
                rest: false,
            },
            None => {
                self.schedule.full_speed(view.now);
                Plan {
                    wait_s: 0.0,
                    rate: None,
                    rest: false,
                }
            }
        };
        let why = match (rate, self.mode) {
            (Some(_), _) => None,
            (None, Mode::Bursts) => Some(FullSpeedWhy::Bursts),
            (None, _) if view.reader_waiting => Some(FullSpeedWhy::RingFull),
            (None, _) => Some(FullSpeedWhy::Learning),
        };
        self.full_speed.plan(view.now, why, !view.input_done);
        if let Phase::Follow { bytes: b, .. } = &mut self.phase {
            *b += bytes as f64;
        }
        self.last_plan = Some(plan);
        self.judge.sent(bytes);
        plan
    }

    /// The rate for the next block: None for full speed.
    fn rate(&mut self, view: View, dt: f64) -> Option<f64> {
        self.reads.push(view.now, view.read_bytes as f64);
        self.reads_now.push(view.now, view.read_bytes as f64);
        let paceable = self.mode != Mode::Bursts
            && self.phase == Phase::Gathered
            && !view.reader_waiting
            && view.fill < RESERVE_FULL
            && !view.input_done;
        if !paceable {
            self.paced = None;
            self.trying = None;
            return None;
        }
        let Some(good) = self.good else {
            return self.try_mean(view);
        };
        let from = match self.paced {
            Some(p) => p,
            // From full speed: the rate the output really took, if it was
            // above the proven one.
            None => self.recent_rate().unwrap_or(good),
        };
        let fall = FALL_SHARE_PER_S * self.fall_scale * (from - good).max(0.0) * dt;
        let rate = (from - fall).max(good);
        self.paced = Some(rate);
        Some(self.dip(view, rate, good))
    }

    /// A ring about to run dry is fed below the proven rate `good`, down
    /// to `DIP` of it at an empty ring, so that it runs dry later: only
    /// when it would run dry within `TRY_LEAD_S` at `rate` against the
    /// input's rate now (a dry ring, and so likely a stop, is coming
    /// anyway), never below `PROVEN_MIN_SHARE` of the top, never below a
    /// given floor, and never again once a stop followed a dip.
    fn dip(&mut self, view: View, rate: f64, good: f64) -> f64 {
        let given = self.settings.floor.is_some();
        if given || self.dips_ended.is_some() || self.dry_in(view, rate) > TRY_LEAD_S {
            return rate;
        }
        let low = (view.fill / DIP_FILL).min(1.0);
        let least = self.top.map_or(0.0, |t| t * PROVEN_MIN_SHARE);
        let dipped = rate.min((good * (DIP + (1.0 - DIP) * low)).max(least));
        if dipped < rate {
            self.dipped_at = Some(view.now);
        }
        dipped
    }

    /// Near the end of a burst, with no rate proven: the input's mean, if
    /// it is below the top and above what stopped the drive before.
    fn try_mean(&mut self, view: View) -> Option<f64> {
        if let Some((rate, since)) = self.trying {
            if view.now - since >= PROOF_S {
                self.trying = None;
                self.proved(rate);
            }
            return Some(rate);
        }
        let (top, (span, read)) = (self.top?, self.reads.span()?);
        let mean = read / span.max(1e-9);
        let above_failed = self.failed.is_none_or(|f| mean > f * STALL_RAISE);
        let worth = mean < top * 0.95 && mean >= top * PROVEN_MIN_SHARE;
        if self.dry_in(view, top) > TRY_LEAD_S
            || view.fill > TRY_FILL
            || span < PROOF_S
            || !above_failed
            || !worth
        {
            return None;
        }
        self.trying = Some((mean, view.now));
        Some(mean)
    }

    /// Seconds until the ring would run dry, written at `top` against the
    /// input's rate now; very long while the input outruns `top`.
    fn dry_in(&self, view: View, top: f64) -> f64 {
        let now = self.reads_now.span().map_or(0.0, |(s, b)| b / s.max(1e-9));
        view.fill * self.ring_bytes / (top - now).max(1.0)
    }

    /// The rate the output took over the last `RECENT_S`, if it wrote
    /// over most of that time.
    fn recent_rate(&self) -> Option<f64> {
        let (span, bytes) = self.recent.span()?;
        (span >= RECENT_S / 2.0 && bytes > 0.0).then(|| bytes / span)
    }
}
