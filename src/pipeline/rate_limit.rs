//! Rate limits (`-r`, `-R`): a limit that sleeps after each block so that
//! the rate stays at or below a limit. Idle time is not saved up: after a
//! pause in the stream longer than a block's share, the first block goes
//! out at once, but the sleep after it is its full share, so a burst of N
//! blocks takes at least N blocks' time and a throttle meant to protect a
//! link or a device holds over every burst, not only on average. Lateness
//! shorter than a block's share (the write itself, a sleep that overslept)
//! is not a pause: the schedule goes on from where it was, so a steady
//! stream runs at the limit, not below it by the time each write takes.
//! Sleeps end early when the run is stopped, so a slow limit never delays
//! Ctrl-C.

use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

/// Holds a stream of blocks to at most `bytes_per_s` on average.
#[derive(Debug)]
pub struct RateLimit {
    bytes_per_s: u64,
    /// When the bytes sent so far may be considered transmitted.
    due: Instant,
}

impl RateLimit {
    pub fn new(bytes_per_s: u64) -> RateLimit {
        RateLimit {
            bytes_per_s: bytes_per_s.max(1),
            due: Instant::now(),
        }
    }

    /// How long to wait after `n` more bytes so the rate stays in bounds.
    pub fn delay_after(&mut self, n: usize, now: Instant) -> Duration {
        let cost = Duration::from_secs_f64(n as f64 / self.bytes_per_s as f64);
        // A schedule that fell behind `now` by more than a block's share
        // means the stream was idle; restart it from now rather than bank
        // the idle time as credit, and charge this block to the restarted
        // schedule too: charging it to the idle time would let it out for
        // free, and a burst after every pause would then run a block ahead
        // of the limit. Less than that is the time the write took.
        let late = now.saturating_duration_since(self.due);
        self.due = match late > cost {
            true => now + cost,
            false => self.due + cost,
        };
        self.due.saturating_duration_since(now)
    }

    /// Accounts `n` bytes and sleeps as needed, waking early on `stop`.
    pub fn throttle(&mut self, n: usize, stop: &Receiver<()>) {
        let delay = self.delay_after(n, Instant::now());
        if !delay.is_zero() {
            let _ = stop.recv_timeout(delay);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_keeps_the_rate_at_the_limit() {
        let mut p = RateLimit::new(1000);
        let t0 = p.due;
        // 500 bytes at 1000 B/s are due at 0.5 s, the next 500 at 1 s.
        assert_eq!(p.delay_after(500, t0), Duration::from_millis(500));
        assert_eq!(
            p.delay_after(500, t0 + Duration::from_millis(500)),
            Duration::from_millis(500)
        );
    }

    #[test]
    fn idle_time_is_not_banked_as_credit() {
        let mut p = RateLimit::new(1000);
        let t0 = p.due;
        // After 10 idle seconds a block goes out at once, and is followed
        // by its full second, not sent on saved-up credit...
        let later = t0 + Duration::from_secs(10);
        assert_eq!(p.delay_after(1000, later), Duration::from_secs(1));
        // ...and so is the next.
        let next = later + Duration::from_secs(1);
        assert_eq!(p.delay_after(1000, next), Duration::from_secs(1));
    }

    #[test]
    fn a_steady_stream_whose_writes_take_time_still_runs_at_the_limit() {
        // 10 blocks of 100 bytes at 1000 B/s, each write taking 10 ms
        // after its sleep: the last write ends at 1.01 s, not at 1.1 s.
        let mut p = RateLimit::new(1000);
        let start = p.due;
        let mut now = start;
        for _ in 0..10 {
            now += Duration::from_millis(10);
            now += p.delay_after(100, now);
        }
        assert_eq!(now - start, Duration::from_millis(1000));
    }

    #[test]
    fn a_burst_after_a_pause_takes_a_blocks_time_per_block() {
        // 8 blocks of 100 bytes at 1000 B/s, written the moment each
        // sleep ends, after an idle spell: 0.8 s, never faster than the
        // limit (a free first block would make it 0.7 s).
        let mut p = RateLimit::new(1000);
        let mut now = p.due + Duration::from_secs(5);
        let start = now;
        for _ in 0..8 {
            now += p.delay_after(100, now);
        }
        assert_eq!(now - start, Duration::from_millis(800));
    }
}
