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

use super::PaceSettings;

/// The floor, as a fraction of the top rate, when it is not given. The
/// slowest speed of every LTO generation's speed matching is at most 0.44
/// of its fastest for full-height drives; half-height LTO-9 reaches 0.62,
/// which the first stall's raise covers.
pub const AUTO_FLOOR_FRACTION: f64 = 0.5;
/// How much a stall raises the floor above the pace that stalled.
pub const STALL_RAISE: f64 = 1.25;
/// Stalls while paced before pacing is turned off.
pub const STALLS_BEFORE_BURSTS: u32 = 2;
/// A paced write held this long was held for a reposition.
pub const STALL_MIN_S: f64 = 0.5;
/// The time constant of the smoothed input rate.
pub const ARRIVAL_WINDOW_S: f64 = 10.0;
/// The fill the controller steers towards.
pub const SETPOINT_FILL: f64 = 0.5;
/// From this fill on the writer is not paced.
pub const FULL_FILL: f64 = 0.98;
/// The target falls by at most this share of the top rate per second, so
/// that a drive running fast can slow down with it.
pub const FALL_PER_S: f64 = 0.125;
/// Unpaced writing at the start of each burst that is not used to learn
/// the top rate.
pub const LEARN_SKIP_S: f64 = 2.0;
/// The length of one window that measures the top rate.
pub const LEARN_WINDOW_S: f64 = 1.0;
/// A given floor is the drive's slowest speed: the pace keeps this much
/// above it, so that the jitter of sleeps and scheduling never feeds the
/// drive below it on average.
pub const GIVEN_FLOOR_MARGIN: f64 = 1.05;
/// How late a paced write may start and still be caught up with: the
/// schedule keeps this much credit, so that sleeps that overshoot do not
/// make the mean rate fall below the target.
pub const SCHEDULE_SLACK_S: f64 = 0.05;
/// The window over which the share of time inside the pace is judged.
pub const JUDGE_WINDOW_S: f64 = 1.0;
/// A gap between writes longer than this ends a burst.
const BURST_GAP_S: f64 = 0.01;
/// In a window that measures the top rate, the share of time spent inside
/// writes: the output, not the input, must have set the speed.
const BUSY_SHARE: f64 = 0.8;

/// What the writer sees just before it writes a block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub now: f64,
    /// How full the ring is, 0 to 1, counting the block about to be
    /// written.
    pub fill: f64,
    /// Bytes read from the input so far.
    pub read_bytes: u64,
    /// The reader is waiting for room.
    pub reader_waiting: bool,
    /// The input has ended: what is left in the ring goes at full speed,
    /// since the drive stops at the end anyway.
    pub input_done: bool,
}

/// How the controller is driving the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The top rate is not known yet: bursts, as with plain watermarks.
    Learning,
    Pacing,
    /// Pacing was turned off after the drive stopped while paced.
    Bursts,
}

/// Why a write may start when it does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Seconds to wait before writing.
    pub wait_s: f64,
    /// The target rate in bytes per second, or None for full speed.
    pub rate: Option<f64>,
}

/// A stall the controller reacted to, for the summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    pub at_s: f64,
    pub held_s: f64,
    pub pace: f64,
}

#[derive(Debug, Clone, Default)]
struct Window {
    start: f64,
    bytes: f64,
    busy: f64,
}

/// The pacing state of one run.
#[derive(Debug, Clone)]
pub struct Controller {
    settings: PaceSettings,
    mode: Mode,
    top: Option<f64>,
    arrival: Option<f64>,
    last_view: Option<View>,
    target: f64,
    /// The drive is standing still (the start, or a restart after the
    /// ring ran dry): the next target need not fall gently from the last.
    from_rest: bool,
    due: f64,
    last_plan: Option<Plan>,
    last_end: Option<f64>,
    burst_start: f64,
    window: Option<Window>,
    stalls: Vec<Stall>,
    /// Time, in windows of `JUDGE_WINDOW_S`, in which the output was fed
    /// at the floor or faster, and all such time, once the floor was known.
    inside_s: f64,
    judged_s: f64,
    /// The window being judged: when it began and the bytes sent since.
    judging: Option<(f64, f64)>,
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
            arrival: None,
            last_view: None,
            target: top.unwrap_or(0.0),
            from_rest: true,
            due: f64::NEG_INFINITY,
            last_plan: None,
            last_end: None,
            burst_start: 0.0,
            window: None,
            stalls: Vec::new(),
            inside_s: 0.0,
            judged_s: 0.0,
            judging: None,
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
    pub fn report(&self) -> super::PaceReport {
        super::PaceReport {
            floor_bps: self.floor(),
            top_bps: self.top,
            top_learned: self.settings.ceiling.is_none() && self.top.is_some(),
            mode: self.mode,
            stall: self.stalls.first().copied(),
            inside_share: self.inside_share(),
        }
    }

    pub fn stalls(&self) -> &[Stall] {
        &self.stalls
    }

    /// The share of time, once the floor was known, in which the output
    /// was fed at the floor or faster; None before any such time.
    pub fn inside_share(&self) -> Option<f64> {
        let (mut inside, mut judged) = (self.inside_s, self.judged_s);
        // The window still open counts for what it has seen so far.
        if let (Some((start, sent)), Some(view), Some(floor)) =
            (self.judging, self.last_view, self.floor())
        {
            let span = view.now - start;
            if span > 0.0 {
                judged += span;
                if sent / span >= floor * 0.95 {
                    inside += span;
                }
            }
        }
        (judged > 0.0).then(|| inside / judged)
    }

    /// The target of the last plan: a rate, or None for full speed.
    pub fn current_target(&self) -> Option<f64> {
        self.last_plan.and_then(|p| p.rate)
    }

    /// Decides when the next block of `bytes` may be written.
    pub fn plan(&mut self, view: View, bytes: u64) -> Plan {
        self.judge(view.now);
        // After a rest the schedule starts afresh: lateness is caught up
        // only within a paced run, never as a burst after a pause.
        if self.from_rest {
            self.due = view.now;
        }
        let dt = self.update_arrival(view);
        let rate = match self.mode {
            Mode::Pacing => self.target_rate(view, dt),
            Mode::Learning | Mode::Bursts => None,
        };
        let plan = match rate {
            Some(r) => {
                let start = self.due.max(view.now - SCHEDULE_SLACK_S);
                self.due = start + bytes as f64 / r;
                Plan {
                    wait_s: (start - view.now).max(0.0),
                    rate: Some(r),
                }
            }
            None => {
                self.due = view.now;
                Plan {
                    wait_s: 0.0,
                    rate: None,
                }
            }
        };
        self.last_plan = Some(plan);
        if let Some((_, sent)) = self.judging.as_mut() {
            *sent += bytes as f64;
        }
        plan
    }

    /// Reports a write of `bytes` that ran from `started` to `ended`.
    pub fn wrote(&mut self, started: f64, ended: f64, bytes: u64) {
        let held = (ended - started).max(0.0);
        let paced = self.last_plan.and_then(|p| p.rate);
        if let (Mode::Pacing, Some(pace)) = (self.mode, paced) {
            let top = self.top.unwrap_or(pace);
            if pace < top * 0.95 && held >= STALL_MIN_S.max(20.0 * bytes as f64 / top) {
                self.stalled(ended, held, pace);
            }
        }
        self.learn(started, ended, bytes as f64, paced.is_none());
        self.last_end = Some(ended);
    }

    /// The writing stopped for a reason of its own: the ring ran dry and
    /// the writer will wait for the high watermark, or a write waited for
    /// a volume change. What follows is a new burst.
    pub fn ran_dry(&mut self) {
        self.from_rest = true;
        self.window = None;
        self.last_end = None;
    }

    fn stalled(&mut self, at_s: f64, held_s: f64, pace: f64) {
        self.stalls.push(Stall { at_s, held_s, pace });
        self.mode = Mode::Bursts;
    }

    /// Judges the time in windows of `JUDGE_WINDOW_S`: a window counts as
    /// inside the pace if the blocks sent in it went out at the floor's
    /// rate or faster. Single blocks are too noisy to judge: one may wait
    /// for the drive's buffer, the next goes at once.
    fn judge(&mut self, now: f64) {
        let Some(floor) = self.floor() else {
            return;
        };
        let (start, sent) = *self.judging.get_or_insert((now, 0.0));
        let span = now - start;
        if span < JUDGE_WINDOW_S {
            return;
        }
        self.judged_s += span;
        if sent / span >= floor * 0.95 {
            self.inside_s += span;
        }
        self.judging = Some((now, 0.0));
    }

    fn update_arrival(&mut self, view: View) -> f64 {
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

    fn target_rate(&mut self, view: View, dt: f64) -> Option<f64> {
        let (top, floor) = (self.top?, self.floor()?);
        let fill = view.fill;
        if view.reader_waiting || view.input_done || fill >= FULL_FILL || floor >= top {
            self.target = top;
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
            false => self.target - top * FALL_PER_S * dt,
        };
        self.target = t.max(lowest).clamp(floor, top);
        Some(self.target)
    }

    /// Measures the top rate from unpaced, back-to-back writing.
    fn learn(&mut self, started: f64, ended: f64, bytes: f64, unpaced: bool) {
        if self.settings.ceiling.is_some() {
            return;
        }
        let contiguous = self
            .last_end
            .is_some_and(|end| started - end <= BURST_GAP_S);
        if !unpaced || !contiguous {
            self.window = None;
            self.burst_start = started;
            return;
        }
        if ended - self.burst_start < LEARN_SKIP_S {
            return;
        }
        let w = self.window.get_or_insert(Window {
            start: started,
            ..Window::default()
        });
        w.bytes += bytes;
        w.busy += ended - started;
        let span = ended - w.start;
        if span < LEARN_WINDOW_S {
            return;
        }
        if w.busy >= BUSY_SHARE * span {
            let rate = w.bytes / span;
            self.top = Some(self.top.map_or(rate, |t| t.max(rate)));
            if self.mode == Mode::Learning {
                // Mid-burst: the drive runs at its top, and the pace
                // falls gently from there.
                self.mode = Mode::Pacing;
                self.target = self.top.unwrap_or(rate);
                self.from_rest = false;
            }
        }
        self.window = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: f64 = 1e6;

    fn known(floor: f64, top: f64) -> Controller {
        let s = PaceSettings {
            floor: Some(floor as u64),
            ceiling: Some(top as u64),
        };
        Controller::new(s)
    }

    fn view(now: f64, fill: f64, read: f64) -> View {
        View {
            now,
            fill,
            read_bytes: read as u64,
            reader_waiting: false,
            input_done: false,
        }
    }

    #[test]
    fn the_share_inside_the_pace_counts_whole_seconds_fed_at_the_floor() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        // 20 s fed at 50 MB/s in 1 MB blocks, unevenly: each pair of
        // blocks goes 5 ms apart, then 35 ms pass.
        let mut now = 0.0;
        for i in 0..1000 {
            c.plan(view(now, 0.5, 0.0), 1_000_000);
            now += if i % 2 == 0 { 0.005 } else { 0.035 };
        }
        assert_eq!(c.inside_share(), Some(1.0));
        // Then 10 s waiting for the high watermark: a third of the time.
        c.ran_dry();
        now += 10.0;
        for _ in 0..100 {
            c.plan(view(now, 0.9, 0.0), 1_000_000);
            now += 0.02;
        }
        let share = c.inside_share().unwrap();
        assert!((share - 2.0 / 3.0).abs() < 0.05, "{share}");
    }

    #[test]
    fn a_full_ring_means_full_speed() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        let p = c.plan(view(1.0, 0.99, 100.0 * MB), 1 << 20);
        assert_eq!(p.rate, None);
        assert_eq!(p.wait_s, 0.0);
    }

    #[test]
    fn a_waiting_reader_means_full_speed_whatever_the_fill() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        let mut v = view(1.0, 0.3, 100.0 * MB);
        v.reader_waiting = true;
        assert_eq!(c.plan(v, 1 << 20).rate, None);
    }

    #[test]
    fn the_rate_never_goes_below_the_floor() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        // No input at all for a minute: the ring drains at the floor.
        for i in 0..600 {
            let p = c.plan(view(i as f64 * 0.1, 0.2, 0.0), 1 << 20);
            assert!(p.rate.unwrap() >= 40.0 * MB);
        }
        // A given floor is the drive's slowest speed: kept 5% above it.
        assert_eq!(c.current_target(), Some(42.0 * MB));
    }

    #[test]
    fn the_rate_follows_a_steady_input_at_half_fill() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        for i in 0..3000 {
            let t = i as f64 * 0.1;
            c.plan(view(t, 0.5, 75.0 * MB * t), 1 << 20);
        }
        let r = c.current_target().unwrap();
        assert!((r - 75.0 * MB).abs() < 1.0 * MB, "target {r}");
    }

    #[test]
    fn the_rate_rises_as_the_ring_fills() {
        let mut rates = Vec::new();
        for fill in [0.5, 0.7, 0.85, 0.95] {
            let mut c = known(40.0 * MB, 120.0 * MB);
            for i in 0..100 {
                let t = i as f64 * 0.1;
                c.plan(view(t, fill, 60.0 * MB * t), 1 << 20);
            }
            rates.push(c.current_target().unwrap());
        }
        assert!(rates.windows(2).all(|w| w[0] < w[1]), "{rates:?}");
        assert!(rates[3] > 100.0 * MB, "{rates:?}");
    }

    #[test]
    fn the_rate_falls_no_faster_than_the_drive_can_follow() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        let before = c.plan(view(0.0, 0.97, 0.0), 1 << 20).rate.unwrap();
        // The ring is suddenly near empty and the input stops.
        let p = c.plan(view(1.0, 0.1, 0.0), 1 << 20);
        let fell = before - p.rate.unwrap();
        assert!(fell > 0.0);
        assert!(fell <= 120.0 * MB * FALL_PER_S + 1.0, "fell {fell}");
    }

    /// A controller whose target has settled at the floor: no input, a
    /// ring a tenth full, for a minute.
    fn settled_at_floor(floor: f64, top: f64) -> Controller {
        let mut c = known(floor, top);
        for i in 0..600 {
            c.plan(view(i as f64 * 0.1, 0.1, 0.0), 1 << 20);
        }
        assert_eq!(c.current_target(), Some(floor * GIVEN_FLOOR_MARGIN));
        c
    }

    #[test]
    fn paced_writes_are_spaced_by_the_rate() {
        let mut c = settled_at_floor(40.0 * MB, 120.0 * MB);
        // Writes that take no time, 420 blocks of 1 MB at 42 MB/s (the
        // floor and its margin): 10 s, less the schedule's slack.
        let mut now = 100.0;
        for _ in 0..420 {
            now += c.plan(view(now, 0.1, 0.0), 1_000_000).wait_s;
            c.wrote(now, now, 1_000_000);
        }
        let took = now - 100.0;
        assert!(
            (took - 10.0).abs() < SCHEDULE_SLACK_S + 0.03,
            "took {took} s"
        );
    }

    #[test]
    fn a_write_that_runs_late_is_caught_up_so_the_mean_rate_holds() {
        let mut c = settled_at_floor(40.0 * MB, 120.0 * MB);
        // Blocks are due every 1/42 s (23.8 ms); every tenth write takes
        // 40 ms. The lateness is made up afterwards, so 1000 blocks still
        // take 1000/42 s, not 1.6 s more.
        let mut now = 100.0;
        for i in 0..1000 {
            now += c.plan(view(now, 0.1, 0.0), 1_000_000).wait_s;
            let took = if i % 10 == 9 { 0.040 } else { 0.0 };
            c.wrote(now, now + took, 1_000_000);
            now += took;
        }
        let took = now - 100.0;
        assert!((took - 1000.0 / 42.0).abs() < 0.1, "took {took} s");
    }

    #[test]
    fn a_start_from_rest_takes_the_target_as_it_is() {
        let mut c = known(50.0 * MB, 120.0 * MB);
        // The drive stands still: no need to start at the top and fall.
        let p = c.plan(view(0.0, 0.1, 0.0), 1 << 20);
        assert!(p.rate.unwrap() < 60.0 * MB, "{p:?}");
        c.wrote(0.0, 0.0, 1 << 20);
        // After the ring ran dry, likewise; and the time the drive stood
        // still is no credit for a burst.
        for i in 1..100 {
            c.plan(view(i as f64 * 0.1, 0.95, 0.0), 1 << 20);
        }
        assert!(c.current_target().unwrap() > 110.0 * MB);
        c.ran_dry();
        let p = c.plan(view(30.0, 0.1, 0.0), 1 << 20);
        assert!(p.rate.unwrap() < 60.0 * MB, "{p:?}");
        let q = c.plan(view(30.0, 0.1, 0.0), 1 << 20);
        let spacing = (1 << 20) as f64 / p.rate.unwrap();
        assert!((q.wait_s - spacing).abs() < 1e-9, "{q:?}");
    }

    #[test]
    fn the_top_rate_is_learned_from_a_sustained_unpaced_burst() {
        let s = PaceSettings::default();
        let mut c = Controller::new(s);
        assert_eq!(c.mode(), Mode::Learning);
        // 1 MB writes at 100 MB/s, back to back, for 4 s.
        let mut t = 0.0;
        for _ in 0..400 {
            let known = c.top().is_some();
            let p = c.plan(view(t, 0.9, 0.0), 1_000_000);
            match known {
                false => assert_eq!(p.rate, None, "bursts until the top is known"),
                // Learned mid-burst: the pace starts from the top.
                true => assert!(p.rate.unwrap() > 80.0 * MB, "{p:?}"),
            }
            c.wrote(t, t + 0.01, 1_000_000);
            t += 0.01;
        }
        let top = c.top().unwrap();
        assert!((top - 100.0 * MB).abs() < MB, "top {top}");
        assert_eq!(c.floor(), Some(top * AUTO_FLOOR_FRACTION));
        assert_eq!(c.mode(), Mode::Pacing);
    }

    #[test]
    fn an_output_that_never_pushes_back_teaches_nothing() {
        let mut c = Controller::new(PaceSettings::default());
        let mut t = 0.0;
        // Writes take no time; the writer waits for input between them.
        for _ in 0..1000 {
            c.plan(view(t, 0.01, 0.0), 1_000_000);
            c.wrote(t, t + 0.0001, 1_000_000);
            t += 0.02;
        }
        assert_eq!(c.top(), None);
        assert_eq!(c.mode(), Mode::Learning);
    }

    #[test]
    fn a_stall_while_paced_ends_pacing_for_the_rest_of_the_run() {
        let mut c = settled_at_floor(40.0 * MB, 120.0 * MB);
        assert_eq!(c.restart_fill(), None);
        c.plan(view(100.0, 0.1, 0.0), 1 << 20);
        // Held for a second: the drive stopped and repositioned.
        c.wrote(100.0, 101.0, 1 << 20);
        assert_eq!(c.stalls().len(), 1);
        assert_eq!(c.mode(), Mode::Bursts);
        assert_eq!(c.plan(view(104.0, 0.1, 0.0), 1 << 20).rate, None);
        assert_eq!(c.restart_fill(), Some(FULL_FILL));
    }

    #[test]
    fn a_slow_write_at_full_speed_is_not_a_stall() {
        let mut c = known(40.0 * MB, 120.0 * MB);
        c.plan(view(0.0, 0.99, 0.0), 1 << 20);
        c.wrote(0.0, 2.0, 1 << 20);
        assert!(c.stalls().is_empty());
    }
}
