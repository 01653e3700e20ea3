//! The picture `tapebuf report -o` draws of a recorded run: a fill axis
//! that ends at 100%, the start (-P) and resume (-p) watermarks drawn as
//! tagged dashed lines, the fill's range within each interval as a filled
//! band (never as two lines), and underruns called tape stops only when an
//! output was a tape.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::svg::{points, report_svg};
use crate::common::{needs, tapebuf};
use crate::observers::{input_file, record_a_run_with_underruns, records};

/// The colours the SVG writes: the band, the start and resume watermarks.
const BAND: &str = "#82AAEB";
const START: &str = "#007878";
const RESUME: &str = "#787878";

/// What a test reads from the SVG.
struct Picture {
    /// Every text, in document order.
    texts: Vec<String>,
    /// The points of each polygon filled with the band's colour.
    bands: Vec<Vec<(i32, i32)>>,
    /// The points of every polyline, by stroke colour.
    lines: Vec<(String, Vec<(i32, i32)>)>,
}

impl Picture {
    fn has(&self, text: &str) -> bool {
        self.texts.iter().any(|t| t == text)
    }

    /// The points of the polylines stroked in `color`.
    fn stroked(&self, color: &str) -> Vec<(i32, i32)> {
        self.lines
            .iter()
            .filter(|(c, _)| c == color)
            .flat_map(|(_, p)| p.clone())
            .collect()
    }

    /// The numbers among the fill chart's texts (its axes' labels): those
    /// after its y axis title and before the rates chart's.
    fn fill_axis_numbers(&self) -> Vec<f64> {
        let from = self
            .texts
            .iter()
            .position(|t| t == "ring fill (%)")
            .unwrap();
        let to = self.texts.iter().position(|t| t == "rate (MB/s)").unwrap();
        self.texts[from..to]
            .iter()
            .filter_map(|t| t.parse().ok())
            .collect()
    }
}

/// Runs `tapebuf report STATS -o SVG` and reads the SVG back.
fn draw(stats: &Path) -> Picture {
    let (text, _) = report_svg(stats);
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("invalid SVG: {e}"));
    let of = |name: &'static str| {
        doc.descendants()
            .filter(move |n| n.tag_name().name() == name)
    };
    Picture {
        texts: of("text")
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_string())
            .collect(),
        bands: of("polygon")
            .filter(|n| n.attribute("fill") == Some(BAND))
            .map(|n| points(n.attribute("points").unwrap()))
            .collect(),
        lines: of("polyline")
            .map(|n| {
                let stroke = n.attribute("stroke").unwrap_or_default().to_string();
                (stroke, points(n.attribute("points").unwrap()))
            })
            .collect(),
    }
}

/// Checks the fill chart: axis to 100%, both watermarks drawn level and
/// tagged, the range a band and no line.
fn check_fill_chart(p: &Picture, high: &str, low: &str) {
    let top = p.fill_axis_numbers().into_iter().fold(0.0, f64::max);
    assert_eq!(top, 100.0, "the fill axis' labels: {:?}", p.texts);
    for text in [
        format!("-P {high}%"),
        format!("-p {low}%"),
        format!("start watermark, -P {high}%"),
        format!("resume watermark, -p {low}%"),
        "fill range within each interval".to_string(),
    ] {
        assert!(p.has(&text), "no '{text}' in {:?}", p.texts);
    }
    for color in [START, RESUME] {
        let dashes = p.stroked(color);
        assert!(dashes.len() >= 20, "{color}: dashed, not one stroke");
        // The legend's swatch and the line across the chart: two levels.
        let mut ys: Vec<i32> = dashes.iter().map(|p| p.1).collect();
        ys.dedup();
        ys.sort();
        ys.dedup();
        assert_eq!(ys.len(), 2, "{color}: {ys:?}");
    }
    assert!(!p.bands.is_empty(), "no band");
    assert!(
        p.stroked(BAND).is_empty(),
        "the fill range is drawn as lines"
    );
}

#[test]
fn the_fill_chart_of_a_file_run_ends_at_100_percent_with_watermarks_and_a_band() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_run_with_underruns(dir.path());
    assert_eq!(records(&stats)[0]["tape_output"], false);
    let p = draw(&stats);
    check_fill_chart(&p, "50", "100");
    // A file does not stop: its underruns are waits of the writer.
    assert!(p.has("underrun (writer waited)"), "{:?}", p.texts);
    assert!(!p.texts.iter().any(|t| t.contains("tape stop")));
}

/// A 3 MB run to a remote file over rmt (a remote tape, as far as tapebuf
/// knows), read at 5 MiB/s and written at most at 8 MiB/s, unpaced: it
/// stops, and tapebuf counts each stop as a drive's.
fn record_a_remote_run(dir: &Path) -> PathBuf {
    let rmt = needs::tool("/usr/sbin/rmt-tar", "tar");
    let input = input_file(dir, 3_000_000);
    let stats = dir.join("remote.jsonl");
    let target = format!("localhost:{}", dir.join("on-the-tape-host").display());
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let out = tapebuf()
        .args([
            "--rsh-command",
            &rsh,
            "--rmt-command",
            rmt.to_str().unwrap(),
        ])
        .args([
            "-i",
            &input,
            "-o",
            &target,
            "--rmt-window",
            "1",
            "--no-pace",
        ])
        .args(["-s", "64k", "-m", "1M", "-p", "40", "-r", "5M", "-R", "8M"])
        .args([
            "--stats",
            stats.to_str().unwrap(),
            "--stats-interval",
            "0.05",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stats
}

#[test]
fn underruns_on_a_remote_tape_are_tape_stops_under_the_tapes_watermarks() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_remote_run(dir.path());
    let recs = records(&stats);
    assert_eq!(recs[0]["tape_output"], true);
    assert!(recs.last().unwrap()["underruns"].as_u64().unwrap() > 0);
    let p = draw(&stats);
    // A tape's default start watermark, and the -p given.
    check_fill_chart(&p, "90", "40");
    assert!(p.has("underrun (tape stop)"), "{:?}", p.texts);
    assert!(!p.has("underrun (writer waited)"));
}

#[test]
fn underruns_in_a_file_from_before_the_tape_field_are_only_underruns() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_run_with_underruns(dir.path());
    let text = std::fs::read_to_string(&stats).unwrap();
    let old = text.replacen(r#","tape_output":false"#, "", 1);
    assert_ne!(old, text);
    let old_stats = dir.path().join("old.jsonl");
    std::fs::write(&old_stats, old).unwrap();
    let p = draw(&old_stats);
    assert!(p.has("underrun"), "{:?}", p.texts);
    assert!(!p.texts.iter().any(|t| t.starts_with("underrun (")));
}
