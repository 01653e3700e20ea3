//! Why the writer went at full speed while pacing was on, how often and
//! for how long: for the summary, `--summary-json` and the stats file, so
//! that a run says when the pace gave way and why.
//!
//! The invariant: each plan is counted under exactly one state (paced, or
//! full speed for one reason); the time up to the next plan is charged to
//! it, and an episode is a run of plans in the same full-speed state. The
//! drain after the input has ended is not counted: the drive stops at the
//! end anyway.

/// Why a block went at full speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FullSpeedWhy {
    /// The ring was full and the reader waited for room.
    RingFull,
    /// No rate slower than the top was proven yet, or the input was
    /// passed on as it came after a dry ring.
    Learning,
    /// Pacing was turned off after the drive stopped while paced.
    Bursts,
}

/// How often the writer went at full speed for one reason, and how long.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FullSpeedTally {
    pub times: u64,
    pub seconds: f64,
}

/// Full speed while pacing was on, by reason.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FullSpeed {
    pub ring_full: FullSpeedTally,
    pub learning: FullSpeedTally,
    pub bursts: FullSpeedTally,
    /// The state of the last plan and when it was made; None before the
    /// first, or after a rest.
    last: Option<(Option<FullSpeedWhy>, f64)>,
}

impl FullSpeed {
    fn tally(&mut self, why: FullSpeedWhy) -> &mut FullSpeedTally {
        match why {
            FullSpeedWhy::RingFull => &mut self.ring_full,
            FullSpeedWhy::Learning => &mut self.learning,
            FullSpeedWhy::Bursts => &mut self.bursts,
        }
    }

    /// Counts a plan made at `now`: paced (None), at full speed for a
    /// reason, or not counted at all (the input has ended: `counted`
    /// false).
    pub(super) fn plan(&mut self, now: f64, why: Option<FullSpeedWhy>, counted: bool) {
        if let Some((Some(before), at)) = self.last {
            self.tally(before).seconds += (now - at).max(0.0);
        }
        if !counted {
            self.last = None;
            return;
        }
        let same = matches!(self.last, Some((w, _)) if w == why);
        if let (Some(w), false) = (why, same) {
            self.tally(w).times += 1;
        }
        self.last = Some((why, now));
    }

    /// The writing stopped (the ring ran dry): the time until the next
    /// plan is nobody's.
    pub(super) fn rest(&mut self, now: f64) {
        self.plan(now, None, false);
    }

    /// Every reason with its tally, for reports.
    pub fn each(&self) -> [(FullSpeedWhy, FullSpeedTally); 3] {
        [
            (FullSpeedWhy::RingFull, self.ring_full),
            (FullSpeedWhy::Learning, self.learning),
            (FullSpeedWhy::Bursts, self.bursts),
        ]
    }
}

impl FullSpeedWhy {
    /// The reason in words, for the summary.
    pub fn words(self) -> &'static str {
        match self {
            FullSpeedWhy::RingFull => "the ring was full",
            FullSpeedWhy::Learning => "no slower rate was proven",
            FullSpeedWhy::Bursts => "pacing was off after stops",
        }
    }

    /// The reason as a key, for JSON.
    pub fn key(self) -> &'static str {
        match self {
            FullSpeedWhy::RingFull => "ring_full",
            FullSpeedWhy::Learning => "learning",
            FullSpeedWhy::Bursts => "bursts",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_of_full_speed_plans_is_one_episode_charged_its_time() {
        let mut f = FullSpeed::default();
        f.plan(0.0, None, true);
        f.plan(1.0, Some(FullSpeedWhy::RingFull), true);
        f.plan(1.5, Some(FullSpeedWhy::RingFull), true);
        f.plan(2.0, None, true);
        f.plan(3.0, Some(FullSpeedWhy::RingFull), true);
        f.rest(3.25);
        f.plan(10.0, Some(FullSpeedWhy::RingFull), true);
        f.plan(10.5, None, false);
        assert_eq!(f.ring_full.times, 3);
        assert!(
            (f.ring_full.seconds - 1.75).abs() < 1e-9,
            "{:?}",
            f.ring_full
        );
        assert_eq!(f.learning, FullSpeedTally::default());
    }
}
