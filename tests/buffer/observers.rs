//! Watching a run: the `--stats` timeline, `tapebuf report` and its SVG,
//! the quiet stderr of a run without a terminal, `--status-interval`,
//! `--log`, `--summary-json`, the summary line itself, and the progress
//! bar on a pseudo-terminal (script(1)). Slow runs are made slow by
//! tapebuf's own rate limits (-r, -R), never by sleeps.
//!
//! This file holds the helpers and the `--stats` tests; `observers/`
//! holds `tapebuf report`'s text (`report`) and picture (`picture`), what
//! stderr, the log and the terminal show (`console`), and what the summary
//! line says (`summary`).

use crate::common;
mod console;
mod picture;
mod report;
mod summary;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{pattern, tapebuf};
use serde_json::Value;

/// Writes `len` pattern bytes to `dir/input` and returns its path.
fn input_file(dir: &Path, len: usize) -> String {
    let path = dir.join("input");
    std::fs::write(&path, pattern(len, 6)).unwrap();
    path.display().to_string()
}

fn run_ok(args: &[&str]) -> String {
    let out = tapebuf().args(args).stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{args:?}: {stderr}");
    stderr
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn of_kind<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["kind"] == kind).collect()
}

/// Records a run of `len` pattern bytes from `dir/input` into `dir/out`
/// with `args`, sampled every `interval_s`, into `dir/NAME`.
fn record_a_run(dir: &Path, name: &str, len: usize, args: &[&str], interval_s: &str) -> PathBuf {
    let input = input_file(dir, len);
    let stats = dir.join(name);
    let out = dir.join("out").display().to_string();
    let mut all = vec!["-i", &input, "-o", &out];
    all.extend(args);
    all.extend([
        "--stats",
        stats.to_str().unwrap(),
        "--stats-interval",
        interval_s,
    ]);
    run_ok(&all);
    stats
}

/// A 2 MB run into a file through a 64 KiB ring, read at 4 MiB/s, that
/// waits for half the ring after every stop: about 60 underruns.
fn record_a_run_with_underruns(dir: &Path) -> PathBuf {
    let args = ["-s", "4k", "-b", "16", "-P", "50", "-r", "4M"];
    record_a_run(dir, "run.jsonl", 2_000_000, &args, "0.05")
}

#[test]
fn stats_file_is_a_monotonic_timeline_whose_last_totals_are_the_bytes_moved() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_run_with_underruns(dir.path());
    let recs = records(&stats);
    assert_eq!(recs[0]["kind"], "start");
    assert_eq!(recs[0]["schema"], "tapebuf-stats");
    assert_eq!(recs[0]["version"], 1);
    assert_eq!(recs[0]["total_bytes"], 2_000_000);
    let samples = of_kind(&recs, "sample");
    assert!(
        samples.len() >= 3,
        "a 0.5 s run sampled every 0.05 s: {recs:?}"
    );
    let mut last_t = 0.0;
    let mut last_out = 0;
    for s in &samples {
        let t = s["t_s"].as_f64().unwrap();
        let out = s["out_bytes"].as_u64().unwrap();
        assert!(t > last_t, "time goes forward: {s}");
        assert!(out >= last_out, "bytes out never fall: {s}");
        assert!(s["in_bytes"].as_u64().unwrap() >= out, "{s}");
        let fill = s["fill_pct"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&fill), "{s}");
        // The range since the previous sample holds the fill of the tick
        // (within the one block that may move between the two readings).
        let (low, high) = (
            s["fill_min_pct"].as_f64().unwrap(),
            s["fill_max_pct"].as_f64().unwrap(),
        );
        assert!(
            low <= fill + 6.25 && fill <= high + 6.25 && low <= high && high <= 100.0,
            "{s}"
        );
        assert!(
            s["writer"] == "streaming" || s["writer"] == "waiting",
            "{s}"
        );
        (last_t, last_out) = (t, out);
    }
    let last = samples.last().unwrap();
    assert_eq!(last["in_bytes"], 2_000_000);
    assert_eq!(last["out_bytes"], 2_000_000);
    let summary = recs.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["in_bytes"], 2_000_000);
    assert_eq!(summary["out_bytes"], 2_000_000);
    assert_eq!(summary["clean"], true);
    assert!(summary["underruns"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(summary["underruns"], last["underruns"]);
    // Every interval in which an underrun happened saw the ring run dry,
    // whatever the fill at its tick: empty, or at most the one block the
    // reader was handing over as the writer looked (1 of 16 blocks); and
    // the ring reached the -P 50 mark.
    let mut before = 0;
    for s in &samples {
        let underruns = s["underruns"].as_u64().unwrap();
        if underruns > before {
            assert!(s["fill_min_pct"].as_f64().unwrap() <= 6.25, "{s}");
        }
        before = underruns;
    }
    assert!(
        samples
            .iter()
            .any(|s| s["fill_max_pct"].as_f64().unwrap() >= 50.0),
        "{samples:?}"
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("out")).unwrap().len(),
        2_000_000
    );
}

#[test]
fn a_paced_run_records_its_targets_in_the_samples_and_how_pacing_went_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    // 16 MB read at 16 MB/s through a 4 MiB ring, paced between 20 and
    // 80 MB/s: the output outruns the input, so each time the ring has
    // gathered it is drained at a pace (about 50 ms a time) and runs dry.
    let input = input_file(dir.path(), 16_000_000);
    let stats = dir.path().join("paced.jsonl");
    let json = dir.path().join("summary.json");
    let out = dir.path().join("out").display().to_string();
    run_ok(&[
        "-i",
        &input,
        "-o",
        &out,
        "-s",
        "64k",
        "-m",
        "4M",
        "-r",
        "16M",
        "--pace",
        "20MB:80MB",
        "--stats",
        stats.to_str().unwrap(),
        "--stats-interval",
        "0.02",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    let recs = records(&stats);
    assert_eq!(recs[0]["pacing"], true);
    let samples = of_kind(&recs, "sample");
    let targets: Vec<u64> = samples
        .iter()
        .filter_map(|s| {
            let pace = s.get("pace_bps").unwrap_or_else(|| panic!("{s}"));
            assert!(pace.is_null() || pace.is_u64(), "{s}");
            pace.as_u64()
        })
        .collect();
    assert!(!targets.is_empty(), "no sample held a target: {samples:?}");
    for bps in &targets {
        assert!((21_000_000..=80_000_000).contains(bps), "{targets:?}");
    }
    // The writer drops its target when it ends.
    assert!(samples.last().unwrap()["pace_bps"].is_null());
    let summary = recs.last().unwrap();
    let pace = &summary["pace"];
    // The floor in force: the given one and its 5% margin.
    assert_eq!(pace["floor_bps"], 21_000_000.0, "{summary}");
    assert_eq!(pace["top_bps"], 80_000_000.0, "{summary}");
    assert_eq!(pace["top_learned"], false, "{summary}");
    assert!(
        pace["mode"] == "pacing" || pace["mode"] == "bursts",
        "{summary}"
    );
    let share = pace["inside_share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share), "{summary}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(&written["pace"], pace);
    assert_eq!(summary["out_bytes"], 16_000_000);
}

#[test]
fn a_run_without_pacing_records_null_targets_and_no_pace_summary() {
    let dir = tempfile::tempdir().unwrap();
    let stats = record_a_run_with_underruns(dir.path());
    let recs = records(&stats);
    assert_eq!(recs[0]["pacing"], false);
    let samples = of_kind(&recs, "sample");
    assert!(
        samples.iter().all(|s| s["pace_bps"].is_null()),
        "{samples:?}"
    );
    let summary = recs.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert!(summary["pace"].is_null(), "{summary}");
}

/// Records a run of 3 MB from a file, which the reader reads at once,
/// into a 1 MiB ring written out at 2 MiB/s (-R): the reader waits for
/// room for most of the run. Returns the stats file's summary record, the
/// `--summary-json` object and stderr.
fn record_a_full_ring(dir: &Path, extra: &[&str]) -> (Value, Value, String) {
    let input = input_file(dir, 3_000_000);
    let stats = dir.join("full.jsonl");
    let json = dir.join("full.json");
    let out = dir.join("out").display().to_string();
    let mut args = vec![
        "-i", &input, "-o", &out, "-s", "64k", "-m", "1M", "-R", "2M",
    ];
    args.extend(extra);
    args.extend(["--stats", stats.to_str().unwrap()]);
    args.extend(["--summary-json", json.to_str().unwrap()]);
    let stderr = run_ok(&args);
    let recs = records(&stats);
    let written = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (recs.last().unwrap().clone(), written, stderr)
}

#[test]
fn a_ring_the_reader_waits_on_counts_its_time_near_full_paced_or_not() {
    for extra in [&[][..], &["--pace", "500kB:1MB"][..]] {
        let dir = tempfile::tempdir().unwrap();
        let (summary, written, stderr) = record_a_full_ring(dir.path(), extra);
        assert_eq!(summary["kind"], "summary");
        assert_eq!(summary["ring"], written["ring"], "{extra:?}");
        let t = summary["t_s"].as_f64().unwrap();
        let full = summary["ring"]["near_full_s"].as_f64().unwrap();
        let empty = summary["ring"]["near_empty_s"].as_f64().unwrap();
        // About 1.4 s of writing, nearly all of it on a full ring.
        assert!(full > 0.3 && full > empty, "{extra:?}: {summary}");
        assert!(full + empty <= t, "{extra:?}: {summary}");
        let report = common::tapebuf()
            .arg("report")
            .arg(dir.path().join("full.jsonl"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&report.stdout);
        assert!(text.contains("\nring: near full "), "{text}");
        if extra.is_empty() {
            assert!(summary["pace"].is_null(), "{summary}");
            continue;
        }
        // Paced: the writer gave way to the full ring, and said why.
        let fast = &summary["pace"]["full_speed"];
        assert_eq!(fast, &written["pace"]["full_speed"]);
        assert_eq!(fast["learning"]["times"], 0, "{summary}");
        assert!(
            fast["ring_full"]["times"].as_u64().unwrap() >= 1,
            "{summary}"
        );
        let seconds = fast["ring_full"]["seconds"].as_f64().unwrap();
        assert!(seconds > 0.0 && seconds <= t, "{summary}");
        let line = common::summary_line(&stderr);
        assert!(line.contains("because the ring was full"), "{line}");
        assert!(line.contains("; ring near full "), "{line}");
        assert!(text.contains("because the ring was full"), "{text}");
    }
}
