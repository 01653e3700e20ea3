//! Rate limits (`-r`, `-R`): a pacer that keeps the average rate since the
//! start at or below a limit by sleeping after each block. Sleeps end early
//! when the run is stopped, so a slow limit never delays Ctrl-C.

use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

/// Paces a stream of blocks to at most `bytes_per_s` on average.
#[derive(Debug)]
pub struct Pacer {
    bytes_per_s: u64,
    started: Instant,
    bytes: u64,
}

impl Pacer {
    pub fn new(bytes_per_s: u64) -> Pacer {
        Pacer {
            bytes_per_s: bytes_per_s.max(1),
            started: Instant::now(),
            bytes: 0,
        }
    }

    /// How long to wait after `n` more bytes so the average stays in bounds.
    pub fn delay_after(&mut self, n: usize, now: Instant) -> Duration {
        self.bytes += n as u64;
        let due = Duration::from_secs_f64(self.bytes as f64 / self.bytes_per_s as f64);
        (self.started + due).saturating_duration_since(now)
    }

    /// Accounts `n` bytes and sleeps as needed, waking early on `stop`.
    pub fn pace(&mut self, n: usize, stop: &Receiver<()>) {
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
    fn delay_keeps_average_at_the_limit() {
        let mut p = Pacer::new(1000);
        let t0 = p.started;
        // 500 bytes at 1000 B/s are due at 0.5 s.
        assert_eq!(p.delay_after(500, t0), Duration::from_millis(500));
        // Already late: no delay.
        assert_eq!(
            p.delay_after(100, t0 + Duration::from_secs(2)),
            Duration::ZERO
        );
    }
}
