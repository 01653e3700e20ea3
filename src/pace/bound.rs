//! The fewest stops possible: a lower bound on the stops of a drive that
//! NO feeder can beat, for a given input, ring and drive (issue 46's
//! yardstick). A count from the simulator below this bound is a bug in
//! the bound.
//!
//! The input is its producer's arrival curve `P(x)`: bytes produced after
//! `x` seconds of the producer's own work (its clock stands still while
//! the ring is full, so `P` is the same whatever the feeder does). `K` is
//! the ring plus the drive's buffer, `v` the drive's slowest speed.
//!
//! Why it is a bound. Follow any feeder along the work axis `x`, and let
//! `s(x)` be the bytes held (ring plus drive buffer) when the producer is
//! at `x`. Always `s <= K`. While the drive streams it moves at least `v`
//! bytes per second and the producer advances at most one work second per
//! second, so between two work positions `s` grows by at most
//! `P(x2) - P(x1) - v(x2 - x1)`; while the ring is full the producer
//! stands still and `s` only falls. A stop happens at the latest when `s`
//! would go below zero. The bound runs the most favourable feeder
//! allowed by these facts alone, ignoring every cost that could only add
//! stops (repositioning time, the drive's restart fill, speed changes,
//! its speed above `v`):
//!
//! 1. after a stop at `x_k` (or at the start, `x_0 = 0`), it waits until
//!    the latest work position `y` with `P(y) <= P(x_k) + K`: no feeder
//!    can be further along when it restarts, since a stopped drive takes
//!    nothing and at most `K` bytes fit in ring and drive;
//! 2. it restarts there holding `K`, the most anyone can hold, and
//!    streams at `v`, `s` capped at `K`, until `s < 0`: the next stop
//!    `x_{k+1}`; the end of input ends the count (the final flush is not
//!    a stop).
//!
//! By induction any real feeder's k-th stop comes at a work position no
//! later than `x_k`: it restarts no later than `y`; from its restart its
//! holding is at most that of the same capped walk started there with
//! `K`, which at `y` is at most `K`, and the capped walk keeps order, so
//! it is at most the bound's walk from `y` on, which is negative at
//! `x_{k+1}`. Hence it makes at least as many stops. On the sampled curve
//! the walk is exact: arrivals and drain are both linear between samples.
//!
//! The physics in closed form (`steady_stops_per_byte`): a steady input
//! at `r < v` stops once per `K·v/(v − r)` bytes (fill `K` while stopped,
//! then drain at `v − r`); at `r >= v` a steady input forces none, and
//! only the ring's room against the input's swings can.

use super::drive_model::DriveSpec;
use super::sim::Producer;

/// A producer's cumulative output, sampled every `dt_s` of its work.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrivals {
    pub dt_s: f64,
    /// Bytes produced by `i · dt_s`; non-decreasing, the last is the total.
    pub cum_bytes: Vec<f64>,
}

impl Arrivals {
    /// The curve of a simulated producer, stepped as `sim` steps it.
    pub fn from_producer(p: &Producer, dt_s: f64) -> Arrivals {
        let mut cum_bytes = vec![0.0];
        let mut produced = 0.0;
        let mut x = 0.0;
        while produced < p.total_bytes {
            let rate = p.rate_at(x);
            produced = (produced + rate * dt_s).min(p.total_bytes);
            cum_bytes.push(produced);
            x += dt_s;
            if cum_bytes.len() > 100_000_000 {
                break; // a producer that never ends
            }
        }
        Arrivals { dt_s, cum_bytes }
    }

    pub fn total_bytes(&self) -> f64 {
        self.cum_bytes.last().copied().unwrap_or(0.0)
    }
}

/// The fewest stops any feeder can make on `drive`, with a ring of
/// `ring_bytes`, for the input `arrivals` (see the header for why).
pub fn fewest_stops(arrivals: &Arrivals, ring_bytes: f64, drive: &DriveSpec) -> u64 {
    let k = ring_bytes + drive.buffer_bytes;
    let v_step = drive.slowest() * arrivals.dt_s;
    let cum = &arrivals.cum_bytes;
    let total = arrivals.total_bytes();
    let (mut stops, mut at_stop, mut i) = (0, 0.0, 0);
    loop {
        if at_stop + k >= total {
            return stops;
        }
        // The latest restart: the last sample within K of the stop.
        while i + 1 < cum.len() && cum[i + 1] <= at_stop + k {
            i += 1;
        }
        let mut held = k;
        loop {
            i += 1;
            if i >= cum.len() || cum[i] >= total {
                return stops;
            }
            held = (held + cum[i] - cum[i - 1] - v_step).min(k);
            if held < 0.0 {
                stops += 1;
                at_stop = cum[i];
                break;
            }
        }
    }
}

/// Stops per byte forced by a steady input at `rate` on a drive whose
/// slowest speed is `slowest`, with `held_bytes` of ring and drive
/// buffer: one per `held·v/(v − r)` bytes below the slowest speed, none
/// at or above it.
pub fn steady_stops_per_byte(rate: f64, slowest: f64, held_bytes: f64) -> f64 {
    if rate >= slowest {
        return 0.0;
    }
    (slowest - rate) / (held_bytes * slowest)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: f64 = 1e6;

    fn drive(slowest: f64, buffer: f64) -> DriveSpec {
        let mut d = DriveSpec::speed_matching(slowest, 3.0 * slowest, 5);
        d.buffer_bytes = buffer;
        d
    }

    fn bound(p: &Producer, ring: f64, d: &DriveSpec) -> u64 {
        fewest_stops(&Arrivals::from_producer(p, 0.001), ring, d)
    }

    #[test]
    fn a_steady_input_above_the_slowest_speed_forces_no_stop() {
        let p = Producer::steady(50.0 * MB, 5000.0 * MB);
        assert_eq!(bound(&p, 32.0 * MB, &drive(40.0 * MB, 8.0 * MB)), 0);
    }

    #[test]
    fn a_steady_input_below_the_slowest_speed_stops_as_the_closed_form_says() {
        // K = 40 MB, v = 40, r = 30: one stop per 160 MB; 4000 MB.
        let p = Producer::steady(30.0 * MB, 4000.0 * MB);
        let stops = bound(&p, 32.0 * MB, &drive(40.0 * MB, 8.0 * MB));
        let expected = 4000.0 * MB * steady_stops_per_byte(30.0 * MB, 40.0 * MB, 40.0 * MB);
        assert_eq!(expected, 25.0);
        assert!((stops as f64 - expected).abs() <= 1.0, "{stops} stops");
    }

    #[test]
    fn an_input_that_fits_in_ring_and_drive_forces_no_stop() {
        let p = Producer::steady(1.0 * MB, 39.0 * MB);
        assert_eq!(bound(&p, 32.0 * MB, &drive(40.0 * MB, 8.0 * MB)), 0);
    }

    #[test]
    fn a_pause_longer_than_the_held_bytes_last_forces_a_stop_each_time() {
        // 100 MB/s for 1 s, then nothing for 2 s: K = 40 MB lasts 1 s at
        // 40 MB/s, so every pause stops the drive; 10 cycles, the last
        // pause after the end of input.
        let p = Producer::bursty((1.0, 100.0 * MB), (2.0, 0.0), 1000.0 * MB);
        let stops = bound(&p, 32.0 * MB, &drive(40.0 * MB, 8.0 * MB));
        assert_eq!(stops, 9);
    }

    #[test]
    fn a_ring_that_bridges_every_pause_forces_no_stop() {
        // The same input with K = 520 MB: a 2 s pause drains 80 MB, and
        // each cycle brings 100 MB for the 120 MB the drive takes in 3 s;
        // the deficit of 20 MB a cycle never empties 520 MB in 10 cycles.
        let p = Producer::bursty((1.0, 100.0 * MB), (2.0, 0.0), 1000.0 * MB);
        assert_eq!(bound(&p, 512.0 * MB, &drive(40.0 * MB, 8.0 * MB)), 0);
    }

    #[test]
    fn a_larger_ring_never_raises_the_bound() {
        let p = Producer::bursty((0.5, 90.0 * MB), (1.5, 5.0 * MB), 3000.0 * MB);
        let d = drive(40.0 * MB, 4.0 * MB);
        let counts: Vec<u64> = [8.0, 32.0, 128.0, 512.0]
            .iter()
            .map(|r| bound(&p, r * MB, &d))
            .collect();
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    }
}
