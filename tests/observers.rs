//! Watching a run: the `--stats` timeline, `tapebuf report` and its SVG,
//! the quiet stderr of a run without a terminal, `--status-interval`,
//! `--log`, `--summary-json`, and the progress bar on a pseudo-terminal
//! (script(1)). Slow runs are made slow by tapebuf's own rate limits (-r,
//! -R), never by sleeps.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{pattern, run, summary_line, tapebuf, BIN};
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

/// A 2 MB run into a file through a 64 KiB ring, read at 4 MiB/s, that
/// waits for half the ring after every stop: about 60 underruns.
fn record_a_run_with_underruns(dir: &Path) -> std::path::PathBuf {
    let input = input_file(dir, 2_000_000);
    let stats = dir.join("run.jsonl");
    let out = dir.join("out").display().to_string();
    run_ok(&[
        "-i",
        &input,
        "-o",
        &out,
        "-s",
        "4k",
        "-b",
        "16",
        "-P",
        "50",
        "-r",
        "4M",
        "--stats",
        stats.to_str().unwrap(),
        "--stats-interval",
        "0.05",
    ]);
    stats
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
        "underrun (tape stop)",
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

#[test]
fn without_a_terminal_stderr_holds_only_the_summary_line() {
    let out = run(&["-s", "4k", "-b", "8"], pattern(1_000_000, 1));
    assert!(out.status.success());
    assert_eq!(out.stderr.lines().count(), 1, "{:?}", out.stderr);
    summary_line(&out.stderr);
    assert!(!out.stderr.contains('\r'));
}

#[test]
fn status_interval_prints_plain_records_then_the_summary() {
    let out = run(
        &["-s", "64k", "-R", "4M", "--status-interval", "0.1"],
        pattern(2_000_000, 2),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert!(
        !out.stderr.contains('\r') && !out.stderr.contains('\x1b'),
        "{:?}",
        out.stderr
    );
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(lines.len() >= 3, "{lines:?}");
    let (last, records) = lines.split_last().unwrap();
    assert!(last.starts_with("tapebuf: summary: "), "{last}");
    for r in records {
        assert!(r.starts_with("tapebuf: status: in "), "{r}");
    }
}

#[test]
fn log_takes_the_status_records_and_the_summary_and_summary_json_matches() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    let json = dir.path().join("summary.json");
    let out = run(
        &[
            "-s",
            "64k",
            "-R",
            "4M",
            "--status-interval",
            "0.1",
            "-l",
            log.to_str().unwrap(),
            "--summary-json",
            json.to_str().unwrap(),
        ],
        pattern(1_000_000, 3),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{:?}", out.stderr);
    let summary = summary_line(&out.stderr);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged
            .lines()
            .next()
            .unwrap()
            .starts_with("tapebuf: status: "),
        "{logged}"
    );
    assert_eq!(logged.lines().last().unwrap(), summary);
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(value["line"], summary);
    assert_eq!(value["in_bytes"], 1_000_000);
    assert_eq!(value["out_bytes"], 1_000_000);
    assert_eq!(value["clean"], true);
}

#[test]
fn observer_flags_without_their_partner_are_usage_errors() {
    for (args, flag) in [
        (&["--stats-interval", "1"][..], "--stats-interval"),
        (&["-l", "x.log"][..], "-l/--log"),
        (&["-q", "--progress"][..], "--progress"),
    ] {
        let out = tapebuf().args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!("tapebuf: {flag}: ")),
            "{stderr}"
        );
    }
}

/// Removes ANSI escapes, and keeps what follows the last carriage return:
/// what a terminal shows on that line.
fn shown(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else if c == '\r' {
            out.clear();
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn on_a_terminal_the_bar_appears_and_the_end_is_the_clean_summary() {
    common::needs::tool("script", "bsdutils");
    let dir = tempfile::tempdir().unwrap();
    let input = input_file(dir.path(), 4 << 20);
    let output = dir.path().join("out");
    // 4 MiB at 4 MiB/s: about a second, five redraws.
    let out = Command::new("script")
        .args([
            "-q",
            "-e",
            "-f",
            "-c",
            &format!("{BIN} -i {input} -o {} -s 64k -R 4M", output.display()),
            "/dev/null",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("script(1) from util-linux");
    let terminal = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{terminal}");
    assert!(terminal.contains("ring "), "no bar: {terminal:?}");
    assert!(terminal.contains("underruns"), "{terminal:?}");
    assert!(
        terminal.contains("ETA"),
        "-i on a file gives an ETA: {terminal:?}"
    );
    let lines: Vec<String> = terminal
        .split('\n')
        .map(|l| shown(l.trim_end_matches('\r')))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("tapebuf: summary: in 4194304 bytes"),
        "{lines:?}"
    );
    assert!(!last.contains("ring "), "{last:?}");
    assert_eq!(std::fs::metadata(&output).unwrap().len(), 4 << 20);
}
