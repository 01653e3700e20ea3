//! Unit tests of the pacing controller: each drives it with a simulated
//! clock and checks one of the rules in `controller.rs`'s header.

use super::*;
use crate::pace::mode::{STALL_MIN_S, STALL_RAISE};
use crate::pace::schedule::SCHEDULE_SLACK_S;
use crate::pace::view::View;

pub(super) const MB: f64 = 1e6;
/// The ring of every test here: 512 MB.
const RING: f64 = 512.0 * MB;
pub(super) const BLOCK: u64 = 1_000_000;

pub(super) fn known(floor: f64, top: f64) -> Controller {
    let s = PaceSettings {
        floor: Some(floor as u64),
        ceiling: Some(top as u64),
    };
    Controller::new(s, RING)
}

fn learning() -> Controller {
    Controller::new(PaceSettings::default(), RING)
}

pub(super) fn view(now: f64, fill: f64) -> View {
    View {
        now,
        fill,
        read_bytes: 0,
        reader_waiting: false,
        input_done: false,
    }
}

/// Writes 1 MB blocks back to back from `t`, each taking `each_s`, for
/// `seconds`; gives the time at the end.
fn burst(c: &mut Controller, t: f64, each_s: f64, seconds: f64) -> f64 {
    let mut t = t;
    let end = t + seconds;
    while t < end {
        let p = c.plan(view(t, 0.5), BLOCK);
        assert!(!p.rest, "{p:?}");
        t += p.wait_s;
        c.wrote(t, t + each_s, BLOCK);
        t += each_s;
    }
    t
}

/// Passes blocks on as they come, one every `gap_s`, for `seconds`, each
/// write taking no time; gives the time at the end.
fn follow(c: &mut Controller, t: f64, gap_s: f64, seconds: f64) -> f64 {
    let mut t = t;
    let end = t + seconds;
    assert!(c.passing_through());
    // Until the end, or until the follow proved its rate.
    while t < end && c.passing_through() {
        let p = c.plan(view(t, 0.0), BLOCK);
        assert_eq!(p.rate, None, "the input is passed on as it comes");
        c.wrote(t, t + 0.0001, BLOCK);
        t += gap_s;
    }
    t
}

/// A controller that learned a top of 100 MB/s from a 4 s burst, ran the
/// ring dry, and followed the input at 40 MB/s for longer than the
/// proof: the rate proven is 40 MB/s.
pub(super) fn proven_at_40() -> (Controller, f64) {
    let mut c = learning();
    let t = burst(&mut c, 0.0, 0.01, 4.0);
    c.ran_dry();
    let t = follow(&mut c, t, 0.025, PROOF_S + 0.5);
    (c, t)
}

#[test]
fn a_run_starts_as_bursts_from_the_high_watermark() {
    let mut c = learning();
    assert_eq!(c.mode(), Mode::Learning);
    assert_eq!(c.start_fill(0.9), 0.9);
    let p = c.plan(view(0.0, 0.9), BLOCK);
    assert_eq!((p.rate, p.rest, p.wait_s), (None, false, 0.0));
}

#[test]
fn the_top_rate_is_learned_from_a_sustained_unpaced_burst() {
    let mut c = learning();
    burst(&mut c, 0.0, 0.01, 4.0);
    let top = c.top().unwrap();
    assert!((top - 100.0 * MB).abs() < MB, "top {top}");
    // A top alone proves no slower rate: bursts go on.
    assert_eq!(c.mode(), Mode::Learning);
    assert_eq!(c.floor(), None);
}

#[test]
fn an_output_that_never_pushes_back_teaches_nothing() {
    let mut c = learning();
    let mut t = 0.0;
    for _ in 0..1000 {
        c.plan(view(t, 0.01), BLOCK);
        c.wrote(t, t + 0.0001, BLOCK);
        t += 0.02;
    }
    assert_eq!(c.top(), None);
    assert_eq!(c.mode(), Mode::Learning);
}

#[test]
fn at_a_dry_ring_the_input_is_passed_on_as_it_arrives() {
    let mut c = learning();
    let t = burst(&mut c, 0.0, 0.01, 2.0);
    assert!(!c.passing_through());
    c.ran_dry();
    assert!(c.passing_through());
    // No watermark to wait for: the next block goes as soon as it is in.
    assert_eq!(c.start_fill(0.9), 0.0);
    follow(&mut c, t, 0.025, 1.0);
    assert!(c.stalls().is_empty());
}

#[test]
fn a_follow_that_lasts_the_proof_without_a_stop_proves_its_rate() {
    let (c, _) = proven_at_40();
    assert_eq!(c.mode(), Mode::Pacing);
    let floor = c.floor().unwrap();
    assert!((floor - 40.0 * MB).abs() < 1.5 * MB, "floor {floor}");
    assert!(!c.passing_through());
}

#[test]
fn a_follow_through_a_pause_proves_no_rate_below_a_quarter_of_the_top() {
    let mut c = learning();
    let t = burst(&mut c, 0.0, 0.01, 4.0);
    c.ran_dry();
    // One block a second: a drive with a large buffer rides that out.
    follow(&mut c, t, 1.0, PROOF_S + 1.0);
    let floor = c.floor().unwrap();
    let top = c.top().unwrap();
    assert_eq!(floor, top * PROVEN_MIN_SHARE);
}

#[test]
fn a_follow_before_the_top_is_known_proves_nothing() {
    let mut c = learning();
    c.plan(view(0.0, 0.9), BLOCK);
    c.wrote(0.0, 0.0001, BLOCK);
    c.ran_dry();
    follow(&mut c, 0.1, 0.025, 2.0 * PROOF_S);
    assert_eq!(c.mode(), Mode::Learning);
    assert!(c.passing_through(), "still following");
}

#[test]
fn a_stop_while_following_makes_the_writer_rest_until_the_watermark() {
    let mut c = learning();
    let t = burst(&mut c, 0.0, 0.01, 4.0);
    c.ran_dry();
    let t = follow(&mut c, t, 0.05, 1.0);
    // The drive stopped: the next write waits out its reposition.
    c.plan(view(t, 0.0), BLOCK);
    c.wrote(t, t + 1.5, BLOCK);
    assert_eq!(c.stalls().len(), 1);
    assert!(!c.passing_through());
    let p = c.plan(view(t + 1.5, 0.01), BLOCK);
    assert!(p.rest, "{p:?}");
    assert_eq!(c.start_fill(0.9), 0.9);
    // A stop at a dry ring is the one bursts make: nothing is proven,
    // and pacing is not given up.
    assert_eq!(c.mode(), Mode::Learning);
    // The first write after the rest may wait for the repositioning
    // drive: no second stall.
    let p = c.plan(view(t + 9.0, 0.9), BLOCK);
    assert!(!p.rest);
    c.wrote(t + 9.0, t + 10.0, BLOCK);
    assert_eq!(c.stalls().len(), 1);
}

#[test]
fn a_proven_rate_feeds_the_reserve_while_the_ring_holds_data() {
    let (mut c, t) = proven_at_40();
    let good = c.floor().unwrap();
    // Straight after a follow the output took about the proven rate.
    let p = c.plan(view(t, 0.3), BLOCK);
    assert!((p.rate.unwrap() - good).abs() < 2.0 * MB, "{p:?}");
    // A waiting reader, a full reserve or the end of input: full speed.
    let mut v = view(t + 0.1, 0.5);
    v.reader_waiting = true;
    assert_eq!(c.plan(v, BLOCK).rate, None);
    assert_eq!(c.plan(view(t + 0.2, RESERVE_FULL), BLOCK).rate, None);
    let mut v = view(t + 0.3, 0.5);
    v.input_done = true;
    assert_eq!(c.plan(v, BLOCK).rate, None);
}

#[test]
fn from_full_speed_the_rate_falls_gently_to_the_proven_rate() {
    let (mut c, t) = proven_at_40();
    let good = c.floor().unwrap();
    // The ring is full and the output takes 100 MB/s.
    let mut t = t;
    for _ in 0..100 {
        let mut v = view(t, 0.95);
        v.reader_waiting = true;
        c.plan(v, BLOCK);
        c.wrote(t, t + 0.01, BLOCK);
        t += 0.01;
    }
    // The input slows: the rate starts from what the output took...
    let first = c.plan(view(t, 0.8), BLOCK).rate.unwrap();
    assert!(first > 90.0 * MB, "{first}");
    // ... and a second later has fallen by at most the share per second.
    let later = c.plan(view(t + 1.0, 0.8), BLOCK).rate.unwrap();
    let most = FALL_SHARE_PER_S * (first - good) * 1.0;
    assert!(first - later <= most + 1.0, "{first} -> {later}");
    assert!(later < first);
    // In the end it reaches the proven rate, never below.
    let mut r = later;
    for i in 2..200 {
        r = c.plan(view(t + i as f64, 0.5), BLOCK).rate.unwrap();
        assert!(r >= good);
    }
    assert!((r - good).abs() < 0.01 * good, "{r}");
}

/// Stalls a paced write at `t`: the drive stopped though fed.
fn stall_paced(c: &mut Controller, t: f64) -> Plan {
    let p = c.plan(view(t, 0.5), BLOCK);
    assert!(p.rate.is_some(), "{p:?}");
    c.wrote(t, t + 2.0, BLOCK);
    p
}

#[test]
fn a_stop_at_the_proven_rate_raises_it_and_a_second_ends_pacing() {
    let (mut c, t) = proven_at_40();
    let good = c.floor().unwrap();
    stall_paced(&mut c, t + 100.0);
    assert_eq!(c.mode(), Mode::Pacing);
    assert!((c.floor().unwrap() - good * STALL_RAISE).abs() < 1.0);
    assert!(
        c.plan(view(t + 102.0, 0.5), BLOCK).rest,
        "rest after a stop"
    );
    // The write after the rest waits out the reposition: no stall...
    let p = c.plan(view(t + 110.0, 0.8), BLOCK);
    c.wrote(t + 110.0, t + 111.0, BLOCK);
    assert!(p.rate.is_some() && c.stalls().len() == 1);
    // ... a quick one ends the grace, and the next stop ends pacing.
    c.plan(view(t + 111.0, 0.8), BLOCK);
    c.wrote(t + 111.0, t + 111.001, BLOCK);
    stall_paced(&mut c, t + 200.0);
    assert_eq!(c.mode(), Mode::Bursts);
    assert!(c.plan(view(t + 202.0, 0.5), BLOCK).rest);
    // Plain bursts from then on, from the user's own watermark.
    assert_eq!(c.start_fill(0.9), 0.9);
    assert_eq!(c.plan(view(t + 210.0, 0.9), BLOCK).rate, None);
    c.ran_dry();
    assert!(!c.passing_through(), "no more following");
}

#[test]
fn a_stop_during_a_fall_halves_the_fall_and_keeps_the_proven_rate() {
    let (mut c, t) = proven_at_40();
    let good = c.floor().unwrap();
    let mut v = view(t, 0.95);
    v.reader_waiting = true;
    let mut t = t;
    for _ in 0..100 {
        v.now = t;
        c.plan(v, BLOCK);
        c.wrote(t, t + 0.01, BLOCK);
        t += 0.01;
    }
    let p = stall_paced(&mut c, t);
    assert!(p.rate.unwrap() > good * 2.0);
    assert_eq!(c.mode(), Mode::Pacing);
    assert_eq!(c.floor(), Some(good));
    assert_eq!(c.stalls().len(), 1);
}

#[test]
fn a_slow_write_at_full_speed_is_not_a_stall() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    let mut v = view(0.0, 0.99);
    v.reader_waiting = true;
    assert_eq!(c.plan(v, BLOCK).rate, None);
    c.wrote(0.0, 2.0, BLOCK);
    assert!(c.stalls().is_empty());
    assert!(!c.plan(view(2.0, 0.5), BLOCK).rest);
}

#[test]
fn a_given_floor_is_proven_from_the_start() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    assert_eq!(c.mode(), Mode::Pacing);
    assert_eq!(c.floor(), Some(40.0 * MB * GIVEN_FLOOR_MARGIN));
    // No burst to learn from: the run starts early.
    assert_eq!(c.start_fill(0.9), GIVEN_START_FILL);
    let p = c.plan(view(0.0, 0.8), BLOCK);
    assert_eq!(p.rate, Some(40.0 * MB * GIVEN_FLOOR_MARGIN));
    assert_eq!(c.start_fill(0.9), 0.9, "a restart gathers the watermark");
}

#[test]
fn a_write_held_less_than_a_reposition_is_not_a_stall() {
    let (mut c, t) = proven_at_40();
    c.plan(view(t, 0.5), BLOCK);
    c.wrote(t, t + STALL_MIN_S * 0.8, BLOCK);
    assert!(c.stalls().is_empty());
}

#[test]
fn paced_writes_are_spaced_by_the_rate() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    // Writes that take no time, 420 blocks of 1 MB at 42 MB/s (the
    // floor and its margin): 10 s, less the schedule's slack.
    let mut now = 100.0;
    for _ in 0..420 {
        now += c.plan(view(now, 0.1), BLOCK).wait_s;
        c.wrote(now, now, BLOCK);
    }
    let took = now - 100.0;
    assert!(
        (took - 10.0).abs() < SCHEDULE_SLACK_S + 0.03,
        "took {took} s"
    );
}

#[test]
fn a_write_that_runs_late_is_caught_up_so_the_mean_rate_holds() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    // Blocks are due every 1/42 s (23.8 ms); every tenth write takes
    // 40 ms. The lateness is made up afterwards, so 1000 blocks still
    // take 1000/42 s, not 1.6 s more.
    let mut now = 100.0;
    for i in 0..1000 {
        now += c.plan(view(now, 0.1), BLOCK).wait_s;
        let took = if i % 10 == 9 { 0.040 } else { 0.0 };
        c.wrote(now, now + took, BLOCK);
        now += took;
    }
    let took = now - 100.0;
    assert!((took - 1000.0 / 42.0).abs() < 0.1, "took {took} s");
}

#[test]
fn the_share_inside_the_pace_counts_whole_seconds_fed_at_the_floor() {
    let mut c = known(40.0 * MB, 120.0 * MB);
    // 20 s fed at 50 MB/s in 1 MB blocks, unevenly: each pair of
    // blocks goes 5 ms apart, then 35 ms pass.
    let mut now = 0.0;
    for i in 0..1000 {
        let mut v = view(now, 0.5);
        v.reader_waiting = true;
        c.plan(v, BLOCK);
        now += if i % 2 == 0 { 0.005 } else { 0.035 };
    }
    assert_eq!(c.inside_share(), Some(1.0));
    // Then 10 s waiting for the high watermark: a third of the time.
    c.changed_volume();
    now += 10.0;
    for _ in 0..100 {
        let mut v = view(now, 0.9);
        v.reader_waiting = true;
        c.plan(v, BLOCK);
        now += 0.02;
    }
    let share = c.inside_share().unwrap();
    assert!((share - 2.0 / 3.0).abs() < 0.05, "{share}");
}
