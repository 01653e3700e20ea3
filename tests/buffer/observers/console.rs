//! What the user sees of a run: a quiet stderr without a terminal, the
//! start line of `-v`, `--status-interval` records, `--log` (alone, as
//! mbuffer's `-l`, and with mbuffer's `-Q`) and `--summary-json`, usage
//! errors for observer flags alone, and the progress bar on a
//! pseudo-terminal.

use std::process::Stdio;

use serde_json::Value;

use crate::common::{self, pattern, run, summary_line, tapebuf, BIN};
use crate::observers::input_file;
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
fn log_alone_takes_every_message_and_the_summary_even_with_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    let out = run(
        &["-q", "--hash", "sha256", "-l", log.to_str().unwrap()],
        pattern(300_000, 4),
    );
    assert!(out.status.success(), "{}", out.stderr);
    let digest = format!("sha256: {}", common::sha256(&pattern(300_000, 4)));
    assert_eq!(out.stderr, format!("{digest}\n"));
    let logged = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = logged.lines().collect();
    assert_eq!(lines.len(), 2, "{logged}");
    assert_eq!(lines[0], digest);
    assert!(
        lines[1].starts_with("tapebuf: summary: in 300000 bytes"),
        "{logged}"
    );
}

#[test]
fn log_gets_errors_too_and_mbuffers_quiet_log_keeps_the_summary_out() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.log");
    let taken = dir.path().join("taken");
    std::fs::write(&taken, b"old").unwrap();
    let out = run(
        &["-l", log.to_str().unwrap(), "-o", taken.to_str().unwrap()],
        pattern(1000, 5),
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged, out.stderr, "the log holds exactly what stderr got");
    assert!(logged.contains("already exists"), "{logged}");

    let quiet_log = dir.path().join("quiet.log");
    let out = run(&["-Q", "-l", quiet_log.to_str().unwrap()], pattern(1000, 6));
    assert!(out.status.success(), "{}", out.stderr);
    summary_line(&out.stderr);
    assert_eq!(std::fs::read_to_string(&quiet_log).unwrap(), "");
}

#[test]
fn verbose_says_the_ring_and_the_endpoints_before_the_summary() {
    for args in [
        &["-v", "-s", "64k", "-b", "8"][..],
        &["-v", "5", "-s", "64k", "-b", "8"],
    ] {
        let out = run(args, pattern(100_000, 8));
        assert!(out.status.success(), "{}", out.stderr);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(
            lines[0],
            "tapebuf: start: ring of 8 blocks of 64.00 KiB (512.00 KiB), writer starts at 0% full, reader resumes at 100%; input stdin; output stdout",
            "{args:?}"
        );
        assert!(lines[1].starts_with("tapebuf: summary: "), "{args:?}");
    }
    let quiet = run(&["-v", "1"], pattern(1000, 8));
    assert!(
        quiet.status.success() && quiet.stderr.is_empty(),
        "{}",
        quiet.stderr
    );
}

#[test]
fn a_log_that_cannot_be_written_is_said_once_and_fails_the_run() {
    let out = run(&["-l", "/dev/full"], pattern(1000, 7));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let said: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("-l/--log"))
        .collect();
    assert_eq!(
        said,
        ["tapebuf: -l/--log /dev/full: cannot write: No space left on device (os error 28)"]
    );
    assert_eq!(
        out.stdout,
        pattern(1000, 7),
        "the stream itself went through"
    );
}

#[test]
fn observer_flags_without_their_partner_are_usage_errors() {
    for (args, flag) in [
        (&["--stats-interval", "1"][..], "--stats-interval"),
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

/// What a pseudo-terminal of `columns` columns shows while tapebuf
/// copies 4 MiB from a file at 4 MiB/s (about a second, five redraws):
/// each state of the bar's line as drawn, and the lines after it.
fn on_a_terminal(columns: u16) -> (Vec<String>, Vec<String>) {
    common::needs::tool("script", "bsdutils");
    let dir = tempfile::tempdir().unwrap();
    let input = input_file(dir.path(), 4 << 20);
    let output = dir.path().join("out");
    let out = crate::common::command("script")
        .args([
            "-q",
            "-e",
            "-f",
            "-c",
            &format!(
                "stty cols {columns} rows 24 && exec {BIN} -i {input} -o {} -s 64k -R 4M",
                output.display()
            ),
            "/dev/null",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("script(1) from util-linux");
    let terminal = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{terminal}");
    assert_eq!(std::fs::metadata(&output).unwrap().len(), 4 << 20);
    let drawn: Vec<String> = terminal
        .split(['\r', '\n'])
        .map(shown)
        .filter(|l| l.starts_with("ring "))
        .collect();
    let lines: Vec<String> = terminal
        .split('\n')
        .map(|l| shown(l.trim_end_matches('\r')))
        .filter(|l| !l.trim().is_empty())
        .collect();
    (drawn, lines)
}

#[test]
fn on_a_terminal_the_bar_appears_and_the_end_is_the_clean_summary() {
    let (drawn, lines) = on_a_terminal(80);
    assert!(!drawn.is_empty(), "no bar: {lines:?}");
    assert!(
        drawn.iter().any(|l| l.contains(" ETA ")),
        "-i on a file gives an ETA: {drawn:?}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("tapebuf: summary: in 4194304 bytes"),
        "{lines:?}"
    );
    assert!(!last.contains("ring "), "{last:?}");
}

#[test]
fn on_narrow_terminals_the_bar_keeps_its_eta_and_totals_within_the_width() {
    for columns in [40, 60, 80] {
        let (drawn, lines) = on_a_terminal(columns);
        assert!(!drawn.is_empty(), "{columns}: no bar: {lines:?}");
        for line in &drawn {
            assert!(
                line.chars().count() <= columns as usize,
                "{columns}: {line:?}"
            );
            // Before the first byte is written there is no rate for an ETA.
            assert!(
                line.contains(" ETA ") || line.contains(" 0 B out"),
                "{columns}: {line:?}"
            );
            assert!(line.trim_end().ends_with(" out"), "{columns}: {line:?}");
        }
    }
}
