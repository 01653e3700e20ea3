//! A timing model of a tape drive, for tests and the streaming benchmark.
//!
//! The model knows nothing of bytes' contents, only of how many there are
//! and when they move. It has:
//!
//! - a set of streaming speeds: one for a fixed-speed drive, several for a
//!   speed-matching one;
//! - its own buffer, which the host's writes fill and the tape drains;
//! - a speed choice (`speed_choice`; by default, every `speed_check_s`
//!   the drive takes the slowest speed at or above the rate it has been fed (a decaying average over
//!   `feed_window_s`), steps up one speed when its buffer is over three
//!   quarters full and down one when it is under a quarter, so that a feed
//!   between two speeds is followed by dithering rather than by stops);
//! - a stop: the buffer runs empty while the tape moves. The drive then
//!   repositions (backhitches) for `reposition_s`, holding the host's
//!   writes meanwhile if `holds_writes_while_repositioning`, and starts
//!   again once its buffer is `restart_fill` full;
//! - counters: stops, and the time spent at each speed and standing still.
//!
//! Time is explicit (seconds from any origin, never going back), so the
//! same model runs under a simulated clock in tests and under the wall
//! clock in `benches/streaming.rs`. What a real drive may do differently is
//! written down in docs/tapes.md ("Pacing") and docs/performance.md.

use super::speed_choice::{matching_speed, next_speed, SpeedChoice};

/// What kind of drive to model.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveSpec {
    /// Streaming speeds in bytes per second, ascending.
    pub speeds: Vec<f64>,
    pub buffer_bytes: f64,
    /// Seconds a stop costs: decelerate, rewind, accelerate.
    pub reposition_s: f64,
    /// How full the buffer must be before the tape moves again.
    pub restart_fill: f64,
    pub holds_writes_while_repositioning: bool,
    /// How often the drive reconsiders its speed.
    pub speed_check_s: f64,
    /// The time constant of the feed rate the drive matches.
    pub feed_window_s: f64,
    /// How it picks a speed at each check (`speed_choice`).
    pub choice: SpeedChoice,
}

impl DriveSpec {
    /// A speed-matching drive with `steps` evenly spaced speeds from
    /// `slowest` to `fastest` bytes per second.
    pub fn speed_matching(slowest: f64, fastest: f64, steps: usize) -> DriveSpec {
        let steps = steps.max(2);
        let speeds = (0..steps)
            .map(|i| slowest + (fastest - slowest) * i as f64 / (steps - 1) as f64)
            .collect();
        DriveSpec::with_speeds(speeds)
    }

    /// This drive, stepping only on its buffer's thresholds and at once:
    /// up when over three quarters full, down when under a quarter,
    /// toward its feed over the last half second (issue 46's held-out
    /// speed-matching drive).
    pub fn stepping_on_thresholds(mut self) -> DriveSpec {
        self.choice = SpeedChoice::Thresholds;
        self.speed_check_s = 0.002;
        self.feed_window_s = 0.5;
        self
    }

    /// A drive that streams at one speed only.
    pub fn fixed_speed(speed: f64) -> DriveSpec {
        DriveSpec::with_speeds(vec![speed])
    }

    fn with_speeds(speeds: Vec<f64>) -> DriveSpec {
        let top = speeds.last().copied().unwrap_or(1.0);
        DriveSpec {
            speeds,
            // Half a second of data at the top speed, like LTO's buffers.
            buffer_bytes: top * 0.5,
            reposition_s: 1.0,
            restart_fill: 0.5,
            holds_writes_while_repositioning: true,
            speed_check_s: 0.25,
            feed_window_s: 1.0,
            choice: SpeedChoice::Periodic,
        }
    }

    pub fn top(&self) -> f64 {
        self.speeds.last().copied().unwrap_or(0.0)
    }

    pub fn slowest(&self) -> f64 {
        self.speeds.first().copied().unwrap_or(0.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Motion {
    /// Standing still until the buffer is full enough (or the host
    /// flushes). Where the drive starts.
    Idle,
    Repositioning {
        until: f64,
    },
    Streaming {
        speed: usize,
    },
}

/// What the model counted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DriveTally {
    /// When the tape stopped because its buffer ran dry, in seconds.
    pub stop_times: Vec<f64>,
    /// Seconds at each speed, in the order of `DriveSpec::speeds`.
    pub seconds_at_speed: Vec<f64>,
    /// Seconds standing still or repositioning.
    pub seconds_stopped: f64,
    /// Bytes that reached the tape.
    pub bytes_on_tape: f64,
}

impl DriveTally {
    /// Times the tape stopped because its buffer ran dry.
    pub fn stops(&self) -> u64 {
        self.stop_times.len() as u64
    }

    /// Seconds spent streaming at any speed.
    pub fn seconds_streaming(&self) -> f64 {
        self.seconds_at_speed.iter().sum()
    }
}

/// The drive's state at one moment.
#[derive(Debug, Clone)]
pub struct DriveModel {
    spec: DriveSpec,
    now: f64,
    buffered: f64,
    motion: Motion,
    /// Decaying sum: bytes fed, divided by the window; a rate in B/s.
    fed_rate: f64,
    next_speed_check: f64,
    flushing: bool,
    tally: DriveTally,
}

const EMPTY: f64 = 1e-6;

impl DriveModel {
    pub fn new(spec: DriveSpec, now: f64) -> DriveModel {
        let tally = DriveTally {
            seconds_at_speed: vec![0.0; spec.speeds.len()],
            ..DriveTally::default()
        };
        DriveModel {
            spec,
            now,
            buffered: 0.0,
            motion: Motion::Idle,
            fed_rate: 0.0,
            next_speed_check: now,
            flushing: false,
            tally,
        }
    }

    pub fn spec(&self) -> &DriveSpec {
        &self.spec
    }

    pub fn tally(&self) -> &DriveTally {
        &self.tally
    }

    pub fn now(&self) -> f64 {
        self.now
    }

    /// The speed the tape moves at now, 0 when it stands still.
    pub fn speed(&self) -> f64 {
        match self.motion {
            Motion::Streaming { speed } => self.spec.speeds[speed],
            _ => 0.0,
        }
    }

    pub fn buffered(&self) -> f64 {
        self.buffered
    }

    /// How many bytes a write could put in the buffer now.
    pub fn room(&self) -> f64 {
        match self.motion {
            Motion::Repositioning { .. } if self.spec.holds_writes_while_repositioning => 0.0,
            _ => (self.spec.buffer_bytes - self.buffered).max(0.0),
        }
    }

    /// When the state will next change by itself, if the host does nothing:
    /// the end of a reposition, or the buffer running dry.
    pub fn next_event(&self) -> Option<f64> {
        match self.motion {
            Motion::Repositioning { until } => Some(until),
            Motion::Streaming { speed } => Some(self.now + self.buffered / self.spec.speeds[speed]),
            Motion::Idle => None,
        }
    }

    /// Takes up to `bytes` from the host at the current time; returns how
    /// many were taken.
    pub fn offer(&mut self, bytes: f64) -> f64 {
        let taken = bytes.min(self.room()).max(0.0);
        self.buffered += taken;
        self.fed_rate += taken / self.spec.feed_window_s;
        self.start_if_ready();
        taken
    }

    /// The host has no more data: write out what is buffered (a filemark or
    /// a close does this on a real drive).
    pub fn flush(&mut self) {
        self.flushing = true;
        self.start_if_ready();
    }

    /// Moves the clock to `t`, draining the buffer and stopping, restarting
    /// and changing speed as the drive would.
    pub fn advance(&mut self, t: f64) {
        while self.now < t {
            let step_end = t.min(self.next_speed_check.max(self.now));
            let step_end = if step_end <= self.now { t } else { step_end };
            match self.motion {
                Motion::Idle => self.pass(step_end, None),
                Motion::Repositioning { until } => {
                    let end = step_end.min(until);
                    self.pass(end, None);
                    if self.now >= until {
                        self.motion = Motion::Idle;
                        self.start_if_ready();
                    }
                }
                Motion::Streaming { speed } => {
                    let rate = self.spec.speeds[speed];
                    let dry_at = self.now + self.buffered / rate;
                    // A remainder too small to move the clock is empty:
                    // else the loop would spin on it for ever.
                    let dry_now = dry_at <= self.now;
                    let end = step_end.min(dry_at);
                    self.pass(end, Some(speed));
                    if dry_now || self.buffered <= EMPTY {
                        self.buffered = 0.0;
                        if !self.flushing {
                            self.tally.stop_times.push(self.now);
                        }
                        self.motion = Motion::Repositioning {
                            until: self.now + self.spec.reposition_s,
                        };
                    }
                }
            }
            if self.now >= self.next_speed_check {
                self.next_speed_check = self.now + self.spec.speed_check_s;
                self.choose_speed();
            }
        }
    }

    /// Lets time pass to `end` in the current motion.
    fn pass(&mut self, end: f64, speed: Option<usize>) {
        let dt = (end - self.now).max(0.0);
        self.fed_rate *= (-dt / self.spec.feed_window_s).exp();
        match speed {
            Some(i) => {
                let moved = (self.spec.speeds[i] * dt).min(self.buffered);
                self.buffered -= moved;
                self.tally.bytes_on_tape += moved;
                self.tally.seconds_at_speed[i] += dt;
            }
            None => self.tally.seconds_stopped += dt,
        }
        self.now = end;
    }

    fn start_if_ready(&mut self) {
        let ready = self.buffered >= self.spec.restart_fill * self.spec.buffer_bytes
            || (self.flushing && self.buffered > EMPTY);
        if self.motion == Motion::Idle && ready {
            self.motion = Motion::Streaming {
                speed: self.matching_speed(),
            };
        }
    }

    /// The slowest speed at or above the feed rate, else the top one.
    fn matching_speed(&self) -> usize {
        matching_speed(&self.spec.speeds, self.fed_rate)
    }

    fn choose_speed(&mut self) {
        let Motion::Streaming { speed } = self.motion else {
            return;
        };
        let fill = self.buffered / self.spec.buffer_bytes;
        let next = next_speed(
            self.spec.choice,
            &self.spec.speeds,
            speed,
            fill,
            self.fed_rate,
        );
        self.motion = Motion::Streaming { speed: next };
    }
}

#[cfg(test)]
#[path = "drive_model_tests.rs"]
mod tests;
