//! `tapebuf report` on a recorded run: a valid SVG with a red line at each
//! underrun and a purple one at each volume change, the stops explained,
//! rates that stay within the `-R` cap and the peak, and bad input named by
//! file and line. What the picture draws is checked in `picture.rs`.

use std::path::Path;

use crate::common::tapebuf;
use crate::observers::{
    input_file, of_kind, record_a_run, record_a_run_with_underruns, records, run_ok,
};

fn parse_svg(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("invalid SVG: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    // Every text in the picture, joined, to look for axis labels.
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text")
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("|")
}

fn report(args: &[&str]) -> (std::process::Output, String) {
    let out = tapebuf().arg("report").args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    (out, stdout)
}

#[test]
fn report_draws_a_valid_svg_with_underrun_markers_and_explains_the_stops() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_run_with_underruns(dir.path());
    let svg = dir.path().join("run.svg");
    let (out, stdout) = report(&[stats.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let texts = parse_svg(&svg);
    for label in [
        "time (s)",
        "ring fill (%)",
        "rate (MB/s)",
        "underrun (writer waited)",
        "input rate",
        "output rate",
    ] {
        assert!(texts.contains(label), "no '{label}' in the SVG: {texts}");
    }
    assert!(!texts.contains("volume change"), "{texts}");
    assert!(stdout.contains("input rate: peak"), "{stdout}");
    assert!(stdout.contains("output waiting:"), "{stdout}");
    assert!(stdout.contains("per GiB"), "{stdout}");
    let hint = stdout.lines().find(|l| l.starts_with("hint: ")).unwrap();
    assert!(hint.contains("below the output's"), "{hint}");
    assert!(hint.contains("would cut the stops from"), "{hint}");
}

/// A rate as `Rate` prints it (`8.3 MB/s`, `950.2 kB/s`, `0 B/s`), in
/// bytes per second.
fn rate(text: &str) -> f64 {
    let (number, unit) = text.trim().split_once(' ').unwrap();
    let scale = match unit {
        "GB/s" => 1e9,
        "MB/s" => 1e6,
        "kB/s" => 1e3,
        "B/s" => 1.0,
        other => panic!("unit {other} in {text:?}"),
    };
    number.parse::<f64>().unwrap() * scale
}

#[test]
fn the_rate_while_streaming_stays_within_the_output_cap_and_the_peak() {
    // 6 MB read at 4 MiB/s and written at most at 8 MiB/s through a
    // 1 MiB ring that restarts at half full: a burst of some 16 blocks
    // after each of many stops.
    let dir = tempfile::tempdir().unwrap();
    let args = ["-s", "64k", "-m", "1M", "-P", "50", "-r", "4M", "-R", "8M"];
    let stats = record_a_run(dir.path(), "capped.jsonl", 6_000_000, &args, "0.1");
    let (status, stdout) = report(&[stats.to_str().unwrap()]);
    assert!(status.status.success(), "{stdout}");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("output rate: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let peak = rate(&line["peak ".len()..line.find(',').unwrap()]);
    let streaming = rate(
        line.split("; ")
            .nth(1)
            .unwrap()
            .trim_end_matches(" while streaming"),
    );
    let underruns = stdout
        .lines()
        .find(|l| l.starts_with("underruns: "))
        .unwrap();
    assert!(!underruns.starts_with("underruns: 0 "), "{stdout}");
    // Printed to a tenth of a MB/s: the cap plus half a tenth at most.
    let cap = 8.0 * 1024.0 * 1024.0;
    assert!(
        streaming <= cap + 0.05e6,
        "{streaming} B/s while streaming, above the -R cap of {cap}:\n{stdout}"
    );
    assert!(streaming <= peak, "{line}");
    assert!(streaming > cap * 0.8, "{line}");
}

#[test]
fn report_marks_volume_changes_of_a_run_split_into_numbered_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = input_file(dir.path(), 2_000_000);
    let stats = dir.path().join("vol.jsonl");
    let names = format!("{}/v.%03d", dir.path().display());
    run_ok(&[
        "-i",
        &input,
        "-o",
        &names,
        "-s",
        "64k",
        "-D",
        "512k",
        "-R",
        "8M",
        "--stats",
        stats.to_str().unwrap(),
        "--stats-interval",
        "0.05",
    ]);
    let recs = records(&stats);
    assert_eq!(of_kind(&recs, "sample").last().unwrap()["volume"], 4);
    assert_eq!(recs.last().unwrap()["volumes"], 4);
    let svg = dir.path().join("vol.svg");
    let (out, stdout) = report(&[stats.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(parse_svg(&svg).contains("volume change"));
    assert!(stdout.contains("3 volume changes"), "{stdout}");
}

#[test]
fn report_names_the_file_and_line_of_bad_input_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_run_with_underruns(dir.path());
    let mut text = std::fs::read_to_string(&stats).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let broken = format!("{}\n{}\nnot json\n", lines[0], lines[1]);
    text = broken;
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, text).unwrap();
    let (out, _) = report(&[bad.to_str().unwrap(), "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("tapebuf: report: {}: ", bad.display())),
        "{stderr}"
    );
    assert!(stderr.trim_end().ends_with("(line 3)"), "{stderr}");

    let (out, _) = report(&["/nonexistent/run.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let (out, _) = report(&[]);
    assert_eq!(out.status.code(), Some(2));
}
