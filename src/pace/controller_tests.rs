//! Unit tests of the pacing controller: each drives it with a simulated
//! clock and checks one of the rules in `controller.rs`'s header.

use super::*;
use crate::pace::schedule::SCHEDULE_SLACK_S;
use crate::pace::target::{SETPOINT_MIN_SHARE, SETPOINT_START_SHARE, SLEW_SHARE_PER_S};

const MB: f64 = 1e6;
/// The ring of every test here: 512 MB.
const RING: f64 = 512.0 * MB;

fn known(floor: f64, top: f64) -> Controller {
    let s = PaceSettings {
        floor: Some(floor as u64),
        ceiling: Some(top as u64),
    };
    Controller::new(s, RING)
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
fn a_nearly_full_ring_is_paced_at_the_top_not_at_full_speed() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    let p = c.plan(view(1.0, 0.99, 100.0 * MB), 1 << 20);
    assert_eq!(p.rate, Some(120.0 * MB));
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
        let p = c.plan(view(i as f64 * 0.1, 0.05, 0.0), 1 << 20);
        assert!(p.rate.unwrap() >= 40.0 * MB);
    }
    // A given floor is the drive's slowest speed: kept 5% above it.
    assert_eq!(c.current_target(), Some(42.0 * MB));
}

/// Plans every 0.1 s for `seconds` of an input steady at `rate`, the ring
/// at the set point: a steady input swings by nothing, so the set point
/// is the least.
fn steady_at_the_set_point(c: &mut Controller, rate: f64, seconds: f64) {
    for i in 0..(seconds * 10.0) as usize {
        let t = i as f64 * 0.1;
        c.plan(view(t, SETPOINT_MIN_SHARE, rate * t), 1 << 20);
    }
}

#[test]
fn the_rate_follows_a_steady_input_at_the_set_point() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    steady_at_the_set_point(&mut c, 75.0 * MB, 300.0);
    let r = c.current_target().unwrap();
    assert!((r - 75.0 * MB).abs() < 1.0 * MB, "target {r}");
}

#[test]
fn the_rate_rises_as_the_ring_fills() {
    let mut rates = Vec::new();
    // Above the set point (an eighth of the ring for a steady input).
    for fill in [0.125, 0.15, 0.2, 0.25] {
        let mut c = known(40.0 * MB, 120.0 * MB);
        for i in 0..100 {
            let t = i as f64 * 0.1;
            c.plan(view(t, fill, 60.0 * MB * t), 1 << 20);
        }
        rates.push(c.current_target().unwrap());
    }
    assert!(rates.windows(2).all(|w| w[0] < w[1]), "{rates:?}");
    assert!(rates[3] > 90.0 * MB, "{rates:?}");
}

/// Plans every 10 ms from `t` for `seconds`, the ring at `fill` and the
/// input steady at `rate` from `read` bytes on; gives the time and bytes
/// read at the end, and the largest fall of the target in one second.
fn hold(
    c: &mut Controller,
    t: f64,
    seconds: f64,
    fill: f64,
    rate: f64,
    read: f64,
) -> (f64, f64, f64) {
    let steps = (seconds * 100.0).round() as usize;
    let mut targets = Vec::with_capacity(steps);
    let (mut now, mut read) = (t, read);
    for _ in 0..steps {
        now += 0.01;
        read += rate * 0.01;
        targets.push(c.plan(view(now, fill, read), 1 << 20).rate.unwrap());
    }
    let fall = targets
        .windows(101.min(targets.len()))
        .map(|w| w[0] - w[w.len() - 1])
        .fold(0.0, f64::max);
    (now, read, fall)
}

/// At the top with the ring at `fill`, then the input slows to `rate`
/// for two seconds: the target's largest fall in one second of them.
fn fall_from_top(fill: f64, rate: f64) -> f64 {
    let mut c = known(40.0 * MB, 120.0 * MB);
    let (t, read, _) = hold(&mut c, 0.0, 5.0, 0.99, 120.0 * MB, 0.0);
    assert_eq!(c.current_target(), Some(120.0 * MB));
    hold(&mut c, t, 2.0, fill, rate, read).2
}

#[test]
fn the_rate_falls_no_faster_than_the_drive_can_follow_while_the_ring_holds_plenty() {
    // The ring a little below its set point, the input keeping up with
    // the target: nothing drains, and the target eases down by the slew.
    let fell = fall_from_top(0.02, 120.0 * MB);
    let span = 120.0 * MB - 40.0 * MB * GIVEN_FLOOR_MARGIN;
    assert!(fell > 0.5 * span * SLEW_SHARE_PER_S, "fell {fell}");
    assert!(fell <= span * SLEW_SHARE_PER_S + 1.0, "fell {fell}");
}

#[test]
fn a_rate_that_would_run_the_ring_dry_falls_faster_than_the_slew() {
    // 20 MB left and no input: at the slew the ring is dry in 0.3 s,
    // long before the target reaches the floor.
    let fell = fall_from_top(20.0 * MB / RING, 0.0);
    let span = 120.0 * MB - 40.0 * MB * GIVEN_FLOOR_MARGIN;
    assert!(fell > 2.0 * span * SLEW_SHARE_PER_S, "fell {fell}");
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
    let mut c = Controller::new(s, RING);
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
    let mut c = Controller::new(PaceSettings::default(), RING);
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

/// A controller learning the top after one burst of `blocks` writes of
/// 1 MB back to back, each taking `each_s`, that ran the ring dry.
fn after_one_burst(blocks: usize, each_s: f64) -> Controller {
    let mut c = Controller::new(PaceSettings::default(), RING);
    for i in 0..blocks {
        let t = i as f64 * each_s;
        c.plan(view(t, 0.5, 0.0), 1_000_000);
        c.wrote(t, t + each_s, 1_000_000);
    }
    c.ran_dry();
    c
}

#[test]
fn an_output_that_swallows_half_the_ring_at_once_gets_the_input_as_it_comes() {
    // 300 MB of a 512 MB ring in 0.3 s: no tape moves that fast, so the
    // output's own buffer took it.
    let c = after_one_burst(300, 0.001);
    assert_eq!(c.mode(), Mode::Learning);
    assert_eq!(c.start_fill(0.9), SWALLOWED_FILL);
    // The same bytes over 3 s: the output set the pace. And less than
    // half the ring at once proves nothing.
    assert_eq!(after_one_burst(300, 0.01).start_fill(0.9), 0.9);
    assert_eq!(after_one_burst(200, 0.001).start_fill(0.9), 0.9);
}

#[test]
fn a_stall_at_a_steady_pace_near_the_floor_raises_the_floor() {
    let mut c = settled_at_floor(40.0 * MB, 120.0 * MB);
    c.plan(view(100.0, 0.1, 0.0), 1 << 20);
    // Held for a second: the drive stopped and repositioned.
    c.wrote(100.0, 101.0, 1 << 20);
    assert_eq!(c.stalls().len(), 1);
    assert_eq!(c.mode(), Mode::Pacing);
    let floor = c.floor().unwrap();
    assert!((floor - 42.0 * MB * STALL_RAISE).abs() < 1.0, "{floor}");
}

#[test]
fn a_stall_at_a_steady_pace_well_above_the_floor_ends_pacing() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    steady_at_the_set_point(&mut c, 90.0 * MB, 60.0);
    c.wrote(60.0, 61.0, 1 << 20);
    assert_eq!(c.mode(), Mode::Bursts);
    assert_eq!(c.plan(view(64.0, 0.1, 0.0), 1 << 20).rate, None);
    assert_eq!(c.start_fill(0.9), FULL_FILL);
}

/// At the top, then 0.3 s of the target falling by the slew (the ring
/// empty, the input keeping up), then a write held for a second: a stall
/// after a fall. Gives the time and bytes read.
fn stalled_after_a_fall(c: &mut Controller) -> (f64, f64) {
    let (t, read, _) = hold(c, 0.0, 5.0, 0.99, 120.0 * MB, 0.0);
    let (t, read, fell) = hold(c, t, 0.3, 0.0, 120.0 * MB, read);
    assert!(fell > 0.0);
    c.wrote(t, t + 1.0, 1 << 20);
    assert_eq!((c.stalls().len(), c.mode()), (1, Mode::Pacing));
    (t + 1.0, read + 120.0 * MB)
}

#[test]
fn a_stall_after_a_fall_slows_the_target_and_a_second_ends_pacing() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    let (t, read) = stalled_after_a_fall(&mut c);
    // The target now falls half as fast.
    let (t, _, fell) = hold(&mut c, t, 1.5, 0.0, 120.0 * MB, read);
    let span = 120.0 * MB - 40.0 * MB * GIVEN_FLOOR_MARGIN;
    assert!(
        (fell - span * SLEW_SHARE_PER_S / 2.0).abs() < 0.01 * MB,
        "fell {fell}"
    );
    c.wrote(t, t + 1.0, 1 << 20);
    assert_eq!((c.stalls().len(), c.mode()), (2, Mode::Bursts));
}

#[test]
fn a_drive_that_stopped_after_a_fall_gets_no_quick_fall_even_towards_a_dry_ring() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    let (t, read) = stalled_after_a_fall(&mut c);
    // 20 MB left and no input: the quick fall would take the target
    // down by far more than the slew (see the test above it).
    let (_, _, fell) = hold(&mut c, t, 1.5, 20.0 * MB / RING, 0.0, read);
    let span = 120.0 * MB - 40.0 * MB * GIVEN_FLOOR_MARGIN;
    assert!(fell <= span * SLEW_SHARE_PER_S / 2.0 + 1.0, "fell {fell}");
}

#[test]
fn a_write_held_while_the_drive_restarts_after_a_dry_ring_is_not_a_stall() {
    let mut c = settled_at_floor(40.0 * MB, 120.0 * MB);
    c.ran_dry();
    // The first writes after the restart wait out the reposition that
    // the dry ring caused; the first quick write ends the grace.
    c.plan(view(100.0, 0.05, 0.0), 1 << 20);
    c.wrote(100.0, 101.0, 1 << 20);
    c.plan(view(101.0, 0.05, 0.0), 1 << 20);
    c.wrote(101.0, 101.001, 1 << 20);
    assert!(c.stalls().is_empty());
    c.plan(view(102.0, 0.05, 0.0), 1 << 20);
    c.wrote(102.0, 103.0, 1 << 20);
    assert_eq!(c.stalls().len(), 1);
}

#[test]
fn a_run_paced_from_its_start_starts_at_the_set_point_not_the_high_watermark() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    assert_eq!(c.start_fill(0.9), SETPOINT_START_SHARE);
    assert_eq!(c.start_fill(0.1), 0.1);
    c.plan(view(1.0, 0.3, 100.0 * MB), 1 << 20);
    // A restart after the ring ran dry gathers up to the watermark.
    assert_eq!(c.start_fill(0.9), 0.9);
    // Learning the top needs a burst: the watermark from the start.
    let learning = Controller::new(PaceSettings::default(), RING);
    assert_eq!(learning.start_fill(0.9), 0.9);
}

#[test]
fn a_slow_write_at_full_speed_is_not_a_stall() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    let mut v = view(0.0, 0.99, 0.0);
    v.reader_waiting = true;
    assert_eq!(c.plan(v, 1 << 20).rate, None);
    c.wrote(0.0, 2.0, 1 << 20);
    assert!(c.stalls().is_empty());
}
