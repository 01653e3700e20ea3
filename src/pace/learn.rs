//! Learning the top rate when `--pace` does not give it: from windows of
//! unpaced, back-to-back writing in which the output, not the input, set
//! the speed.
//!
//! The invariant: the first `LEARN_SKIP_S` of each burst are never used,
//! since the drive's own buffer fills faster than tape moves; and a window
//! counts only if the writer spent `BUSY_SHARE` of it inside writes.

/// Unpaced writing at the start of each burst that is not used to learn
/// the top rate.
pub const LEARN_SKIP_S: f64 = 2.0;
/// The length of one window that measures the top rate.
pub const LEARN_WINDOW_S: f64 = 1.0;
/// A gap between writes longer than this ends a burst.
const BURST_GAP_S: f64 = 0.01;
/// In a window that measures the top rate, the share of time spent inside
/// writes: the output, not the input, must have set the speed.
const BUSY_SHARE: f64 = 0.8;

#[derive(Debug, Clone, Default)]
struct Window {
    start: f64,
    bytes: f64,
    busy: f64,
}

/// The burst under way and the window measuring it.
#[derive(Debug, Clone, Default)]
pub(super) struct TopLearner {
    last_end: Option<f64>,
    burst_start: f64,
    window: Option<Window>,
}

impl TopLearner {
    /// Takes in a write of `bytes` from `started` to `ended`; gives the
    /// rate a window measured, if this write closed one that counts.
    pub(super) fn wrote(
        &mut self,
        started: f64,
        ended: f64,
        bytes: f64,
        unpaced: bool,
    ) -> Option<f64> {
        let rate = self.measure(started, ended, bytes, unpaced);
        self.last_end = Some(ended);
        rate
    }

    /// The writing stopped for a reason of its own: what follows is a new
    /// burst.
    pub(super) fn rest(&mut self) {
        self.window = None;
        self.last_end = None;
    }

    fn measure(&mut self, started: f64, ended: f64, bytes: f64, unpaced: bool) -> Option<f64> {
        let contiguous = self
            .last_end
            .is_some_and(|end| started - end <= BURST_GAP_S);
        if !unpaced || !contiguous {
            self.window = None;
            self.burst_start = started;
            return None;
        }
        if ended - self.burst_start < LEARN_SKIP_S {
            return None;
        }
        let w = self.window.get_or_insert(Window {
            start: started,
            ..Window::default()
        });
        w.bytes += bytes;
        w.busy += ended - started;
        let span = ended - w.start;
        if span < LEARN_WINDOW_S {
            return None;
        }
        let rate = (w.busy >= BUSY_SHARE * span).then(|| w.bytes / span);
        self.window = None;
        rate
    }
}
