//! Learning the top rate when `--pace` does not give it: from windows of
//! unpaced, back-to-back writing in which the output, not the input, set
//! the speed, and set it steadily.
//!
//! The invariant: a window counts only if the writer spent `BUSY_SHARE` of
//! each half of it inside writes, and both halves moved the same rate
//! within `STEADY_TOLERANCE`. The start of a burst, while the drive's own
//! buffer swallows writes faster than tape moves, fails that test whatever
//! the buffer's size, so no fixed time is skipped; a ring that holds only a
//! second or two of writing still teaches the top.
//!
//! A burst can also teach that there is no top to learn: when the output
//! took `SWALLOW_SHARE` of the ring or more, faster than one window, it
//! holds more than the ring (a drive whose own buffer is the larger), and
//! never sets the speed while the ring is the smaller store.

/// The length of one window that measures the top rate.
pub const LEARN_WINDOW_S: f64 = 0.5;
/// A gap between writes longer than this ends a burst.
const BURST_GAP_S: f64 = 0.01;
/// In each half of a window that measures the top rate, the share of time
/// spent inside writes: the output, not the input, must have set the
/// speed.
const BUSY_SHARE: f64 = 0.8;
/// How far the two halves of a window may differ in rate and still be one
/// steady speed: a drive stepping from one speed to the next differs by
/// about a tenth.
const STEADY_TOLERANCE: f64 = 0.05;

/// A burst that moved this share of the ring within one window was
/// swallowed by the output.
pub const SWALLOW_SHARE: f64 = 0.5;

/// Bytes and time inside writes over part of a window.
#[derive(Debug, Clone, Copy, Default)]
struct Half {
    bytes: f64,
    busy: f64,
}

#[derive(Debug, Clone, Default)]
struct Window {
    start: f64,
    first: Half,
    second: Half,
}

/// The burst under way and the window measuring it.
#[derive(Debug, Clone, Default)]
pub(super) struct TopLearner {
    last_end: Option<f64>,
    window: Option<Window>,
    /// When the burst under way began, and the bytes it moved.
    burst: Option<(f64, f64)>,
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
        self.burst.get_or_insert((started, 0.0)).1 += bytes;
        self.last_end = Some(ended);
        rate
    }

    /// Whether the burst under way moved `SWALLOW_SHARE` of a ring of
    /// `ring_bytes` within one window: too fast for the output to have set
    /// the speed.
    pub(super) fn swallowed(&self, ring_bytes: f64) -> bool {
        match (self.burst, self.last_end) {
            (Some((start, moved)), Some(end)) => {
                moved >= SWALLOW_SHARE * ring_bytes && end - start < LEARN_WINDOW_S
            }
            _ => false,
        }
    }

    /// The writing stopped for a reason of its own: what follows is a new
    /// burst.
    pub(super) fn rest(&mut self) {
        self.window = None;
        self.last_end = None;
        self.burst = None;
    }

    fn measure(&mut self, started: f64, ended: f64, bytes: f64, unpaced: bool) -> Option<f64> {
        let contiguous = self
            .last_end
            .is_some_and(|end| started - end <= BURST_GAP_S);
        if !unpaced || !contiguous {
            self.window = None;
            return None;
        }
        let w = self.window.get_or_insert(Window {
            start: started,
            ..Window::default()
        });
        let half = match ended - w.start < LEARN_WINDOW_S / 2.0 {
            true => &mut w.first,
            false => &mut w.second,
        };
        half.bytes += bytes;
        half.busy += ended - started;
        let span = ended - w.start;
        if span < LEARN_WINDOW_S {
            return None;
        }
        let w = self.window.take()?;
        steady_rate(&w, span)
    }
}

/// The rate of a closed window `span` seconds long, if the output set it
/// steadily in both halves.
fn steady_rate(w: &Window, span: f64) -> Option<f64> {
    let half_span = span / 2.0;
    let busy = |h: &Half| h.busy >= BUSY_SHARE * half_span;
    if !busy(&w.first) || !busy(&w.second) || w.first.busy <= 0.0 || w.second.busy <= 0.0 {
        return None;
    }
    let (a, b) = (w.first.bytes / w.first.busy, w.second.bytes / w.second.busy);
    let steady = (a - b).abs() <= STEADY_TOLERANCE * a.max(b);
    steady.then(|| (w.first.bytes + w.second.bytes) / span)
}
