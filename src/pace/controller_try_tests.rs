//! Unit tests of the try of the input's mean (`controller.rs`'s header):
//! when it is made, and what a failed one costs.

use super::*;
use crate::pace::view::View;

const MB: f64 = 1e6;
/// The ring of every test here: 512 MB.
const RING: f64 = 512.0 * MB;
const BLOCK: u64 = 1_000_000;

/// The input: 40 MB/s from time 0, and `last` MB/s from 5 s on.
#[derive(Clone, Copy)]
struct Input {
    last: f64,
}

impl Input {
    fn read_by(self, now: f64) -> u64 {
        let before = 40.0 * MB * now.min(5.0);
        (before + self.last * MB * (now - 5.0).max(0.0)) as u64
    }

    /// What the writer sees at `now` with the ring `fill` full.
    fn view(self, now: f64, fill: f64) -> View {
        View {
            now,
            fill,
            read_bytes: self.read_by(now),
            reader_waiting: false,
            input_done: false,
        }
    }
}

const STEADY: Input = Input { last: 40.0 };

/// A controller that wrote 1 MB blocks at 100 MB/s for 6 s from a ring
/// half full, over `input`: the top is learned, and no rate is proven.
/// Gives the time.
fn bursting_over(input: Input) -> (Controller, f64) {
    let mut c = Controller::new(PaceSettings::default(), RING);
    let mut t = 0.0;
    while t < 6.0 {
        let p = c.plan(input.view(t, 0.5), BLOCK);
        assert_eq!(p.rate, None, "full speed while the ring is half full");
        c.wrote(t, t + 0.01, BLOCK);
        t += 0.01;
    }
    assert!(c.top().is_some_and(|top| (top - 100.0 * MB).abs() < MB));
    (c, t)
}

#[test]
fn near_the_end_of_a_burst_the_input_s_mean_is_tried() {
    let (mut c, t) = bursting_over(STEADY);
    // 0.2 of the ring runs dry in 102 MB / 60 MB/s = 1.7 s at full speed.
    let p = c.plan(STEADY.view(t, 0.2), BLOCK);
    let rate = p.rate.expect("the mean is tried");
    assert!((rate - 40.0 * MB).abs() < MB, "{rate}");
}

#[test]
fn no_try_while_the_ring_would_last_longer_than_the_lead() {
    // The input's mean is 48 MB/s, but it has come at 90 MB/s since 5 s:
    // at the same fill bursts would run dry in 102 MB / 10 MB/s = 10 s,
    // so there is no stop coming that a failed try could stand in for.
    let quick = Input { last: 90.0 };
    let (mut c, t) = bursting_over(quick);
    let p = c.plan(quick.view(t, 0.2), BLOCK);
    assert_eq!(p.rate, None, "full speed: {p:?}");
}

#[test]
fn a_failed_try_gathers_a_full_ring_before_the_next_burst() {
    let (mut c, t) = bursting_over(STEADY);
    assert!(c.plan(STEADY.view(t, 0.2), BLOCK).rate.is_some());
    // The drive stopped under the try: the write was held 2 s.
    c.wrote(t, t + 2.0, BLOCK);
    assert_eq!(c.stalls().len(), 1);
    assert!(c.plan(STEADY.view(t + 2.0, 0.3), BLOCK).rest);
    assert_eq!(c.start_fill(0.9), 1.0, "the head start the try had");
    // Once writing again, later rests gather the watermark as before.
    assert_eq!(c.plan(STEADY.view(t + 12.0, 1.0), BLOCK).rate, None);
    assert_eq!(c.start_fill(0.9), 0.9);
}
