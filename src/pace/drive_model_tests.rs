//! Unit tests of the drive model: stops, speeds, holds and the clock.

use super::*;

const MB: f64 = 1e6;

/// Feeds the drive at `rate` for `seconds` in 1 ms steps.
fn feed(d: &mut DriveModel, rate: f64, seconds: f64) {
    let dt = 0.001;
    let end = d.now() + seconds;
    while d.now() < end - 1e-9 {
        d.offer(rate * dt);
        let t = d.now() + dt;
        d.advance(t);
    }
}

#[test]
fn a_feed_inside_the_range_streams_without_stopping() {
    let mut d = DriveModel::new(DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9), 0.0);
    feed(&mut d, 75.0 * MB, 60.0);
    assert_eq!(d.tally().stops(), 0);
    let at = &d.tally().seconds_at_speed;
    // 75 MB/s lies between the 70 and 80 MB/s speeds.
    assert!(at[3] + at[4] > 50.0, "time at each speed: {at:?}");
}

#[test]
fn a_feed_below_the_slowest_speed_stops_the_drive_again_and_again() {
    let mut d = DriveModel::new(DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9), 0.0);
    feed(&mut d, 20.0 * MB, 60.0);
    assert!(d.tally().stops() >= 5, "stops: {}", d.tally().stops());
}

#[test]
fn a_fixed_speed_drive_fed_slower_than_its_speed_stops() {
    let mut d = DriveModel::new(DriveSpec::fixed_speed(120.0 * MB), 0.0);
    feed(&mut d, 75.0 * MB, 60.0);
    assert!(d.tally().stops() >= 10, "stops: {}", d.tally().stops());
}

#[test]
fn a_flush_writes_everything_without_counting_a_stop() {
    let mut d = DriveModel::new(DriveSpec::fixed_speed(100.0 * MB), 0.0);
    d.offer(10.0 * MB);
    d.flush();
    d.advance(1.0);
    assert_eq!(d.tally().stops(), 0);
    assert!((d.tally().bytes_on_tape - 10.0 * MB).abs() < 1.0);
}

#[test]
fn writes_are_held_while_the_drive_repositions() {
    let mut d = DriveModel::new(DriveSpec::fixed_speed(100.0 * MB), 0.0);
    d.offer(30.0 * MB);
    d.advance(0.31);
    assert_eq!(d.tally().stops(), 1);
    assert_eq!(d.room(), 0.0);
    d.advance(1.31);
    assert!(d.room() > 0.0);
}

#[test]
fn a_remainder_too_small_to_move_the_clock_ends_the_streaming() {
    // 2 µB at 100 MB/s drains in 2e-14 s, less than the clock's
    // resolution at 10^6 s: the model once spun on it for ever.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut d = DriveModel::new(DriveSpec::fixed_speed(100.0 * MB), 0.0);
        d.advance(1e6);
        d.offer(2e-6);
        d.flush();
        d.advance(1e6 + 1.0);
        let _ = tx.send(d.buffered());
    });
    let left = rx.recv_timeout(std::time::Duration::from_secs(30));
    assert_eq!(left, Ok(0.0), "advance returned with the buffer empty");
}

/// Feeds the drive a rate that ramps between 12.5 and 39.5 MB/s at
/// `slope` MB/s per second, for two minutes; gives its stops.
fn ramped(spec: DriveSpec, slope: f64) -> u64 {
    let mut d = DriveModel::new(spec, 0.0);
    let (dt, mut rate, mut down) = (0.001, 39.5, true);
    let mut t = 0.0;
    while t < 120.0 {
        rate += if down { -slope * dt } else { slope * dt };
        down = (down && rate > 12.5) || rate >= 39.5;
        d.offer(rate * MB * dt);
        t += dt;
        d.advance(t);
    }
    d.tally().stops()
}

#[test]
fn a_drive_holding_less_than_one_decision_stops_even_on_a_slowly_ramping_feed() {
    let drive = |check_s: f64, buffer_mb: f64| {
        let mut d = DriveSpec::speed_matching(12.0 * MB, 40.0 * MB, 8);
        d.speed_check_s = check_s;
        d.feed_window_s = 4.0 * check_s;
        d.buffer_bytes = buffer_mb * MB;
        d
    };
    // A 4 MB buffer is a tenth of a second; 250 ms between decisions.
    assert!(ramped(drive(0.25, 4.0), 1.0) >= 3);
    // The same drive with a larger buffer, or deciding quickly, follows.
    assert_eq!(ramped(drive(0.25, 64.0), 1.0), 0);
    assert_eq!(ramped(drive(0.002, 4.0), 8.0), 0);
}
