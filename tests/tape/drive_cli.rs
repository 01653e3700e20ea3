//! `tapebuf drive` as a user runs it, without a drive: every path that is
//! not a local tape drive is one line and a documented exit status, its
//! help is there, and the JSON's field names are the ones the manual
//! documents. The report itself is tested in the crate
//! (`src/drive_health/`), and on mhvtl's drives in the tape lab.

use std::process::{Output, Stdio};

use crate::common::tapebuf;
use tapebuf::drive_health::sample::full_report;

fn drive(args: &[&str]) -> Output {
    tapebuf()
        .arg("drive")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running tapebuf drive")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `out` failed with `status`, saying only `line` on stderr.
fn refused(out: &Output, status: i32, line: &str) {
    assert_eq!(out.status.code(), Some(status), "{}", stderr(out));
    assert_eq!(stderr(out), format!("{line}\n"));
    assert!(out.stdout.is_empty(), "{}", stdout(out));
}

#[test]
fn a_regular_file_is_not_a_tape_drive_and_is_a_usage_error() {
    let f = tempfile::NamedTempFile::new().unwrap();
    let path = f.path().to_str().unwrap();
    for json in [false, true] {
        let args: &[&str] = if json { &[path, "--json"] } else { &[path] };
        let line = format!("tapebuf: drive: {path}: not a tape drive (a regular file)");
        refused(&drive(args), 2, &line);
    }
}

#[test]
fn dev_null_is_refused_without_being_opened() {
    let out = drive(&["/dev/null"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("tapebuf: drive: /dev/null: not a tape drive (character device 1:3"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_remote_drive_is_refused_naming_the_host_to_run_it_on() {
    for name in ["vault:/dev/nst0", "backup@vault:/dev/nst0"] {
        let line = format!(
            "tapebuf: drive: {name}: health is read only on a local drive; \
             run `tapebuf drive /dev/nst0` on vault"
        );
        refused(&drive(&[name, "--json"]), 2, &line);
    }
}

#[test]
fn a_path_that_does_not_exist_is_an_io_failure() {
    refused(
        &drive(&["/nonexistent/nst0"]),
        1,
        "tapebuf: drive: /nonexistent/nst0: No such file or directory",
    );
}

#[test]
fn without_a_device_it_is_a_usage_error() {
    let out = drive(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("tapebuf: drive: "), "{err}");
    assert!(err.contains("<DEVICE>"), "{err}");
}

#[test]
fn help_says_what_it_shows_and_its_exit_statuses() {
    for flag in ["-h", "--help"] {
        let out = drive(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let help = stdout(&out);
        assert!(help.starts_with("tapebuf drive: "), "{help}");
        assert!(
            help.contains("Usage: tapebuf drive [OPTIONS] <DEVICE>"),
            "{help}"
        );
        assert!(help.contains("--json"), "{help}");
        assert!(help.contains("3 a critical TapeAlert flag"), "{help}");
        assert!(help.contains("tapebuf(1), DRIVE"), "{help}");
    }
}

#[test]
fn the_main_help_lists_it_and_help_drive_is_its_help() {
    let main = tapebuf().arg("--help").output().unwrap();
    let text = stdout(&main);
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("drive"))
        .unwrap_or_else(|| panic!("no drive in {text}"));
    assert!(line.contains("health"), "{line}");
    let via_help = tapebuf().args(["help", "drive"]).output().unwrap();
    assert_eq!(via_help.status.code(), Some(0));
    assert_eq!(
        stdout(&via_help).lines().next(),
        stdout(&drive(&["--help"])).lines().next()
    );
}

#[test]
fn every_json_field_is_documented_in_the_manual() {
    let view = serde_json::to_value(full_report()).unwrap();
    crate::common::manual::assert_every_field_documented(&view, "DRIVE");
}
