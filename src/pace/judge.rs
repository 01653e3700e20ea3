//! The share of time in which the outputs were fed at the floor or faster,
//! judged in windows of `JUDGE_WINDOW_S` once the floor is known.
//!
//! The invariant: single blocks are never judged on their own (one may
//! wait for the drive's buffer, the next goes at once); a window counts
//! whole, inside the pace or not, by the bytes sent in it.

/// The window over which the share of time inside the pace is judged.
pub const JUDGE_WINDOW_S: f64 = 1.0;
/// A window is inside the pace if it was fed at this share of the floor.
const INSIDE_SHARE_OF_FLOOR: f64 = 0.95;

/// Time, in windows of `JUDGE_WINDOW_S`, in which the output was fed at
/// the floor or faster, and all such time, once the floor was known.
#[derive(Debug, Clone, Default)]
pub(super) struct Judge {
    inside_s: f64,
    judged_s: f64,
    /// The window being judged: when it began and the bytes sent since.
    judging: Option<(f64, f64)>,
}

impl Judge {
    /// Closes the window under way if it is `JUDGE_WINDOW_S` old at `now`:
    /// it counts as inside the pace if the blocks sent in it went out at
    /// the floor's rate or faster. Nothing is judged before the floor is
    /// known.
    pub(super) fn tick(&mut self, now: f64, floor: Option<f64>) {
        let Some(floor) = floor else {
            return;
        };
        let (start, sent) = *self.judging.get_or_insert((now, 0.0));
        let span = now - start;
        if span < JUDGE_WINDOW_S {
            return;
        }
        self.judged_s += span;
        if sent / span >= floor * INSIDE_SHARE_OF_FLOOR {
            self.inside_s += span;
        }
        self.judging = Some((now, 0.0));
    }

    /// Counts a block of `bytes` sent in the window under way.
    pub(super) fn sent(&mut self, bytes: u64) {
        if let Some((_, sent)) = self.judging.as_mut() {
            *sent += bytes as f64;
        }
    }

    /// The share of time inside the pace, the window still open counting
    /// for what it has seen until `now`; None before any such time.
    pub(super) fn share(&self, now: Option<f64>, floor: Option<f64>) -> Option<f64> {
        let (mut inside, mut judged) = (self.inside_s, self.judged_s);
        if let (Some((start, sent)), Some(now), Some(floor)) = (self.judging, now, floor) {
            let span = now - start;
            if span > 0.0 {
                judged += span;
                if sent / span >= floor * INSIDE_SHARE_OF_FLOOR {
                    inside += span;
                }
            }
        }
        (judged > 0.0).then(|| inside / judged)
    }
}
