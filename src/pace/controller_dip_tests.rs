//! Unit tests of the dip below the proven rate before a dry ring
//! (`controller.rs`'s header): when it is made, how deep, and what a stop
//! after it teaches.

use super::tests::{known, proven_at_40, view, BLOCK, MB};
use super::*;

/// The ring of `proven_at_40` (512 MB) at `fill` lasts this long at 40
/// MB/s with no input: 0.1 of it, 1.3 s, is inside `TRY_LEAD_S`.
const LOW: f64 = 0.1;

#[test]
fn a_reserve_about_to_run_dry_is_fed_below_the_proven_rate() {
    let (mut c, t) = proven_at_40();
    let (good, top) = (c.floor().unwrap(), c.top().unwrap());
    let rate = c.plan(view(t, LOW), BLOCK).rate.expect("paced");
    assert!(rate < good, "{rate} against {good}");
    assert!(rate >= top * PROVEN_MIN_SHARE - 1.0, "{rate}, top {top}");
}

#[test]
fn a_reserve_that_lasts_longer_than_the_lead_is_fed_at_the_proven_rate() {
    let (mut c, t) = proven_at_40();
    let good = c.floor().unwrap();
    // 0.3 of 512 MB lasts 3.8 s at 40 MB/s.
    let rate = c.plan(view(t, 0.3), BLOCK).rate.expect("paced");
    assert!(rate >= good, "{rate} against {good}");
}

#[test]
fn a_stop_after_a_dip_keeps_the_proven_rate_and_ends_the_dips() {
    let (mut c, t) = proven_at_40();
    let good = c.floor().unwrap();
    assert!(c.plan(view(t, LOW), BLOCK).rate.unwrap() < good);
    c.wrote(t, t + 2.0, BLOCK);
    assert_eq!(c.stalls().len(), 1, "the drive stopped");
    assert_eq!(c.floor(), Some(good), "not raised: the dip stopped it");
    assert_eq!(c.mode(), Mode::Pacing);
    assert!(c.plan(view(t + 2.0, LOW), BLOCK).rest);
    // Back to writing after the rest: never below the proven rate again.
    let mut at = t + 10.0;
    for fill in [0.9, 0.5, 0.2, LOW, 0.02] {
        let rate = c.plan(view(at, fill), BLOCK).rate;
        c.wrote(at, at + 0.01, BLOCK);
        assert!(rate.is_none_or(|r| r >= good), "{fill}: {rate:?}");
        at += 0.5;
    }
}

#[test]
fn a_given_floor_is_never_dipped_below() {
    let mut c = known(40.0 * MB, 100.0 * MB);
    let floor = c.floor().unwrap();
    let rate = c.plan(view(0.0, 0.02), BLOCK).rate.expect("paced");
    assert!(rate >= floor, "{rate} against {floor}");
}
