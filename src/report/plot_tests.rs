//! Unit tests of the run picture's geometry: the fill band's outline, the
//! pace target's runs, the watermark tags kept apart, and what an
//! underrun is called.

use super::*;
use crate::report::analysis::tests::timeline_with_pace;

/// Samples at `t_s` with these (lowest, highest) fills, None for a
/// sample from before the range was recorded.
fn samples(ranges: &[(f64, Option<(f64, f64)>)]) -> Vec<Sample> {
    let mut t = timeline_with_pace(&vec![None; ranges.len()]);
    for (s, &(t_s, range)) in t.samples.iter_mut().zip(ranges) {
        s.t_s = t_s;
        s.fill_min_pct = range.map(|r| r.0);
        s.fill_max_pct = range.map(|r| r.1);
    }
    t.samples
}

#[test]
fn the_fill_band_steps_along_each_intervals_range_and_back() {
    let band = fill_bands(&samples(&[
        (1.0, Some((10.0, 50.0))),
        (2.0, Some((0.0, 60.0))),
    ]));
    assert_eq!(
        band,
        vec![vec![
            (0.0, 50.0),
            (1.0, 50.0),
            (1.0, 60.0),
            (2.0, 60.0),
            (2.0, 0.0),
            (1.0, 0.0),
            (1.0, 10.0),
            (0.0, 10.0),
        ]]
    );
}

#[test]
fn the_fill_band_breaks_where_samples_lack_a_range_and_is_absent_in_old_files() {
    let bands = fill_bands(&samples(&[
        (1.0, Some((0.0, 20.0))),
        (2.0, None),
        (3.0, Some((30.0, 40.0))),
    ]));
    assert_eq!(
        bands,
        vec![
            vec![(0.0, 20.0), (1.0, 20.0), (1.0, 0.0), (0.0, 0.0)],
            vec![(2.0, 40.0), (3.0, 40.0), (3.0, 30.0), (2.0, 30.0)],
        ]
    );
    assert!(fill_bands(&samples(&[(1.0, None), (2.0, None)])).is_empty());
}

#[test]
fn watermark_tags_closer_than_the_gap_move_apart_about_their_middle() {
    assert_eq!(apart(&[100, 50], 14), vec![100, 50]);
    assert_eq!(apart(&[100, 96], 14), vec![105, 91]);
    // Equal watermarks: the first given stays above.
    assert_eq!(apart(&[40, 40], 14), vec![33, 47]);
    assert_eq!(apart(&[], 14), Vec::<i32>::new());
}

#[test]
fn an_underrun_is_a_tape_stop_only_on_a_tape() {
    assert_eq!(underrun_label(Some(true)), "underrun (tape stop)");
    assert_eq!(underrun_label(Some(false)), "underrun (writer waited)");
    assert_eq!(underrun_label(None), "underrun");
}

#[test]
fn the_pace_target_breaks_into_runs_where_the_writer_held_none() {
    let t = timeline_with_pace(&[
        None,
        Some(20_000_000),
        Some(25_000_000),
        None,
        None,
        Some(30_000_000),
        None,
        Some(40_000_000),
        Some(40_000_000),
        Some(41_000_000),
    ]);
    assert_eq!(
        pace_runs(&t),
        vec![
            vec![(2.0, 20.0), (3.0, 25.0)],
            vec![(6.0, 30.0)],
            vec![(8.0, 40.0), (9.0, 40.0), (10.0, 41.0)],
        ]
    );
    assert!(pace_runs(&timeline_with_pace(&[None, None])).is_empty());
}
