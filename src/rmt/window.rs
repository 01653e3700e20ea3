//! How many requests the client keeps in flight.
//!
//! Enough to cover the link's bandwidth times its round trip, with room to
//! spare, and never more than `MAX_IN_FLIGHT_BYTES`, because every block in
//! flight is also held in memory until its reply (it must be written again
//! on the next volume if the server answers end of media). The window
//! starts small and grows from two measurements: the shortest time a reply
//! has taken (the round trip plus the server's own work on one block) and
//! the rate replies have come back at. While the window is what limits the
//! rate, the estimate doubles it each round trip. On top of that, every
//! time a block is ready but must wait because the window is full, the
//! window grows by an eighth: the estimate alone settles too low when the
//! round trip grows with the queue, or when both ends compete for the CPU.
//! It never shrinks: a window larger than needed only costs memory that is
//! already bounded. `--rmt-window N` fixes it; 1 is the classic lock-step
//! client.

use std::time::{Duration, Instant};

/// The most block bytes held in flight, awaiting their replies.
pub const MAX_IN_FLIGHT_BYTES: usize = 32 << 20;
/// The most requests in flight, whatever the block size.
pub const MAX_WINDOW: usize = 4096;
/// Where an adaptive window starts.
const START_WINDOW: usize = 4;

#[derive(Debug, Clone)]
pub struct Window {
    fixed: bool,
    size: usize,
    cap: usize,
    block_bytes: usize,
    shortest: Option<Duration>,
    first_sent: Option<Instant>,
    acked_bytes: u64,
}

impl Window {
    /// A window for requests of `block_bytes`, fixed at `fixed` if given.
    pub fn new(fixed: Option<usize>, block_bytes: usize) -> Window {
        let cap = (MAX_IN_FLIGHT_BYTES / block_bytes.max(1)).clamp(2, MAX_WINDOW);
        Window {
            fixed: fixed.is_some(),
            size: fixed.unwrap_or(START_WINDOW.min(cap)).max(1),
            cap,
            block_bytes: block_bytes.max(1),
            shortest: None,
            first_sent: None,
            acked_bytes: 0,
        }
    }

    /// Requests that may be in flight now.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The most requests that will ever be in flight.
    pub fn most(&self) -> usize {
        match self.fixed {
            true => self.size,
            false => self.cap,
        }
    }

    /// Notes that a request is being sent.
    pub fn sending(&mut self, now: Instant) {
        self.first_sent.get_or_insert(now);
    }

    /// Notes that a block is ready but the window is full.
    pub fn full(&mut self) {
        if !self.fixed {
            self.size = (self.size + self.size / 8 + 1).min(self.cap);
        }
    }

    /// Learns from the reply to a request of `bytes` sent at `sent`.
    pub fn replied(&mut self, sent: Instant, bytes: usize, now: Instant) {
        if self.fixed {
            return;
        }
        let took = now.saturating_duration_since(sent);
        let shortest = *self.shortest.get_or_insert(took);
        let shortest = shortest.min(took);
        self.shortest = Some(shortest);
        self.acked_bytes += bytes as u64;
        let Some(first) = self.first_sent else {
            return;
        };
        let elapsed = now.saturating_duration_since(first).as_secs_f64();
        if elapsed <= 0.0 {
            return;
        }
        let rate_bytes_per_s = self.acked_bytes as f64 / elapsed;
        let in_flight_bytes = 2.0 * rate_bytes_per_s * shortest.as_secs_f64();
        let want = (in_flight_bytes / self.block_bytes as f64).ceil() as usize + 2;
        self.size = self.size.max(want.min(self.cap));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays a link with `rtt` and a bandwidth of `rate` bytes/s: each
    /// reply comes after the round trip plus its queueing behind the rest.
    fn settle(block: usize, rtt: Duration, rate: f64) -> usize {
        let mut w = Window::new(None, block);
        let start = Instant::now();
        let per_block = Duration::from_secs_f64(block as f64 / rate);
        let mut link_free = start;
        let mut now = start;
        for _ in 0..2000 {
            // Send a window's worth, then take the replies.
            let mut sent = Vec::new();
            for _ in 0..w.size() {
                w.sending(now);
                link_free = link_free.max(now) + per_block;
                sent.push((now, link_free + rtt));
            }
            for (at, reply) in sent {
                now = now.max(reply);
                w.replied(at, block, now);
            }
        }
        w.size()
    }

    #[test]
    fn grows_to_cover_bandwidth_times_round_trip() {
        // 2 ms and 100 MB/s with 64 KiB blocks: a product of about 3
        // blocks, so a window of at least that, and well below the cap.
        let size = settle(64 << 10, Duration::from_millis(2), 100e6);
        assert!((4..=64).contains(&size), "window {size}");
        // 20 ms needs about ten times as much.
        let far = settle(64 << 10, Duration::from_millis(20), 100e6);
        assert!(far >= 30, "window {far}");
    }

    #[test]
    fn never_holds_more_than_the_memory_cap() {
        let size = settle(4 << 20, Duration::from_millis(200), 1e9);
        assert_eq!(size, MAX_IN_FLIGHT_BYTES / (4 << 20));
        assert_eq!(Window::new(None, 4 << 20).most(), size);
        assert_eq!(Window::new(Some(3), 4 << 20).most(), 3);
    }

    #[test]
    fn waiting_on_a_full_window_grows_it_up_to_the_cap() {
        let mut w = Window::new(None, 1 << 20);
        let start = w.size();
        w.full();
        assert_eq!(w.size(), start + start / 8 + 1);
        for _ in 0..1000 {
            w.full();
        }
        assert_eq!(w.size(), MAX_IN_FLIGHT_BYTES / (1 << 20));
    }

    #[test]
    fn a_fixed_window_stays_put() {
        let mut w = Window::new(Some(1), 10240);
        w.full();
        let t = Instant::now();
        w.sending(t);
        w.replied(t, 10240, t + Duration::from_millis(5));
        assert_eq!(w.size(), 1);
    }
}
