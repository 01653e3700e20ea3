//! `tapebuf report` on a run recorded with `--pace`: the writer's pace
//! target drawn dashed, in a colour of its own, on the rates' axes and
//! broken where the writer held none; a line of text with the range of
//! targets; and nothing of the kind for a run that did not pace or a file
//! from before pacing. The stats files are written by hand, so that every
//! point's place in the picture is known.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::svg::{points, report_svg};

/// The pace target's colour, and the output rate's, as the SVG writes them.
const PACE: &str = "#E67800";
const OUTPUT: &str = "#14963C";

/// Ten samples, at 1 s to 10 s. The writer held 20 MB/s from 1 s to 4 s,
/// 30 MB/s at 6 s alone, and 40 MB/s from 8 s to 10 s; at 2 s, 6 s and
/// 9 s the output ran exactly at the target.
const TARGETS: [Option<u64>; 10] = [
    Some(20_000_000),
    Some(20_000_000),
    Some(20_000_000),
    Some(20_000_000),
    None,
    Some(30_000_000),
    None,
    Some(40_000_000),
    Some(40_000_000),
    Some(40_000_000),
];
const OUT_RATES: [f64; 10] = [5e6, 20e6, 22e6, 18e6, 35e6, 30e6, 35e6, 10e6, 40e6, 38e6];

/// A stats file of the run above; `new_fields` false writes it as a
/// tapebuf from before pacing did, with neither `pacing` nor `pace_bps`.
fn stats_file(dir: &Path, name: &str, new_fields: bool) -> PathBuf {
    let pacing = if new_fields { r#","pacing":true"# } else { "" };
    let mut lines = vec![format!(
        r#"{{"kind":"start","schema":"tapebuf-stats","version":1,"tapebuf":"0.1.0","block_bytes":262144,"ring_bytes":67108864,"high_pct":90,"low_pct":100,"total_bytes":null,"interval_s":1.0{pacing}}}"#
    )];
    let mut out_bytes = 0.0;
    for (i, (target, out_rate)) in TARGETS.iter().zip(OUT_RATES).enumerate() {
        out_bytes += out_rate;
        let pace = match (new_fields, target) {
            (false, _) => String::new(),
            (true, Some(bps)) => format!(r#","pace_bps":{bps}"#),
            (true, None) => r#","pace_bps":null"#.to_string(),
        };
        lines.push(format!(
            r#"{{"kind":"sample","t_s":{t}.0,"in_bytes":{in_bytes},"out_bytes":{out_bytes},"fill_pct":50.0,"in_rate_bytes_per_s":25000000.0,"out_rate_bytes_per_s":{out_rate},"underruns":0,"overruns":0,"writer":"streaming","waiting_s":0.0,"volume":1{pace}}}"#,
            t = i + 1,
            in_bytes = 25_000_000 * (i + 1),
        ));
    }
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// What the picture holds of the rates panel.
struct Picture {
    texts: Vec<String>,
    /// The points of every polyline in the pace target's colour.
    pace_points: Vec<(i32, i32)>,
    /// The centres of the dots in the pace target's colour.
    pace_dots: Vec<(i32, i32)>,
    /// The output rate's line: one point per sample.
    output: Vec<(i32, i32)>,
}

/// Runs `tapebuf report FILE -o SVG`, checks it succeeded, and reads the
/// SVG back; also returns stdout.
fn report(stats: &Path) -> (Picture, String) {
    let (text, stdout) = report_svg(stats);
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("invalid SVG: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let polylines = |color: &str| -> Vec<Vec<(i32, i32)>> {
        doc.descendants()
            .filter(|n| n.tag_name().name() == "polyline" && n.attribute("stroke") == Some(color))
            .map(|n| points(n.attribute("points").unwrap()))
            .collect()
    };
    let output = polylines(OUTPUT)
        .into_iter()
        .find(|p| p.len() == OUT_RATES.len())
        .expect("the output rate's line, a point per sample");
    let picture = Picture {
        texts: doc
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_string())
            .collect(),
        pace_points: polylines(PACE).into_iter().flatten().collect(),
        pace_dots: doc
            .descendants()
            .filter(|n| n.tag_name().name() == "circle" && n.attribute("fill") == Some(PACE))
            .map(|n| {
                let at = |a: &str| n.attribute(a).unwrap().parse::<i32>().unwrap();
                (at("cx"), at("cy"))
            })
            .collect(),
        output,
    };
    (picture, stdout)
}

#[test]
fn report_draws_the_pace_target_dashed_on_the_rates_axes_with_gaps_where_none_was_held() {
    let dir = tempfile::tempdir().unwrap();
    let (p, stdout) = report(&stats_file(dir.path(), "paced.jsonl", true));
    assert!(
        p.texts.iter().any(|t| t == "pace target"),
        "no legend entry: {:?}",
        p.texts
    );
    // The sample times' places on the x axis, and the y of 20, 30 and
    // 40 MB/s, from the output rate's line, which met the target at 2 s,
    // 6 s and 9 s: the target is drawn on the same axes.
    let x = |t: usize| p.output[t - 1].0;
    let (y20, y30, y40) = (p.output[1].1, p.output[5].1, p.output[8].1);
    assert!(y40 < y30 && y30 < y20, "{:?}", p.output);

    // Within the chart, dashes lie on two levels only: no line runs
    // across a gap, and none down to zero. The legend's swatch stands
    // right of the chart, beside no data.
    let in_chart = p.pace_points.iter().filter(|q| q.0 <= x(10));
    let in_legend: Vec<&(i32, i32)> = p.pace_points.iter().filter(|q| q.0 > x(10)).collect();
    let levels: BTreeSet<i32> = in_chart.map(|p| p.1).collect();
    assert_eq!(levels, BTreeSet::from([y40, y20]), "{:?}", p.pace_points);
    assert!(
        !in_legend.is_empty(),
        "no legend swatch: {:?}",
        p.pace_points
    );
    let legend_ys: BTreeSet<i32> = in_legend.iter().map(|p| p.1).collect();
    assert_eq!(legend_ys.len(), 1, "{in_legend:?}");
    // Each level spans its run of samples, from the first sample to within
    // one dash and gap (10 px) of the last, and not beyond.
    for (y, first, last) in [(y20, 1, 4), (y40, 8, 10)] {
        let xs: Vec<i32> = p
            .pace_points
            .iter()
            .filter(|p| p.1 == y)
            .map(|p| p.0)
            .collect();
        let (lo, hi) = (*xs.iter().min().unwrap(), *xs.iter().max().unwrap());
        assert_eq!(lo, x(first), "{xs:?}");
        assert!(hi <= x(last) && hi >= x(last) - 10, "{hi} vs {}", x(last));
        assert!(xs.len() >= 4, "dashed, not one stroke: {xs:?}");
    }
    // The target held at 6 s alone is a dot, on the output rate's point.
    assert_eq!(p.pace_dots, vec![(x(6), y30)]);

    assert!(
        stdout
            .lines()
            .any(|l| l == "pacing: on, target 20.0 MB/s to 40.0 MB/s, held at 8 of 10 samples"),
        "{stdout}"
    );
}

#[test]
fn report_of_a_file_from_before_pacing_draws_no_pace_target_and_says_nothing_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let (p, stdout) = report(&stats_file(dir.path(), "old.jsonl", false));
    assert!(!p.texts.iter().any(|t| t.contains("pace")), "{:?}", p.texts);
    assert!(p.texts.iter().any(|t| t == "output rate"), "{:?}", p.texts);
    assert_eq!(p.pace_points, vec![]);
    assert_eq!(p.pace_dots, vec![]);
    assert!(!stdout.contains("pacing"), "{stdout}");
    assert!(stdout.contains("output rate: peak 40.0 MB/s"), "{stdout}");
}

#[test]
fn report_of_a_paced_run_that_never_held_a_target_draws_none_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = stats_file(dir.path(), "never.jsonl", true);
    let text = std::fs::read_to_string(&path).unwrap();
    let none = with_every_target_null(&text);
    std::fs::write(&path, none).unwrap();
    let (p, stdout) = report(&path);
    assert!(!p.texts.iter().any(|t| t == "pace target"), "{:?}", p.texts);
    assert_eq!(p.pace_points, vec![]);
    assert_eq!(p.pace_dots, vec![]);
    assert!(
        stdout
            .lines()
            .any(|l| l == "pacing: on, but the writer held no pace target at any sample"),
        "{stdout}"
    );
}

/// `text` with every `pace_bps` set to null.
fn with_every_target_null(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(r#","pace_bps":"#) {
            Some(at) => format!(r#"{},"pace_bps":null}}"#, &line[..at]),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
