//! `tapebuf library` as a user runs it, without a library: every path that
//! is not a changer is one line and a documented exit status, its help is
//! there, and the JSON's field names are the ones the manual documents.
//! The inventory itself is tested against the emulated library in the
//! crate (`src/library/`), and on the real `ch` driver in the tape lab.

use std::process::{Output, Stdio};

use crate::common::tapebuf;
use tapebuf::library::nodes::TapeNode;
use tapebuf::library::view::library_json;
use tapebuf::tape::changer::{ElementAddress, Inventory, MediumChanger};
use tapebuf::tape::emulated::changer::{EmulatedChanger, Tape};

fn library(args: &[&str]) -> Output {
    tapebuf()
        .arg("library")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running tapebuf library")
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
fn a_regular_file_is_not_a_changer_and_is_a_usage_error() {
    let f = tempfile::NamedTempFile::new().unwrap();
    let path = f.path().to_str().unwrap();
    for json in [false, true] {
        let args: &[&str] = if json { &[path, "--json"] } else { &[path] };
        let line = format!("tapebuf: {path}: not a medium changer (a regular file)");
        refused(&library(args), 2, &line);
    }
}

#[test]
fn dev_null_answers_that_it_is_not_a_changer() {
    refused(
        &library(&["/dev/null"]),
        2,
        "tapebuf: /dev/null: not a medium changer (Inappropriate ioctl for device)",
    );
}

#[test]
fn a_directory_is_not_a_changer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let line = format!("tapebuf: {path}: not a medium changer (a directory)");
    refused(&library(&[path]), 2, &line);
}

#[test]
fn a_path_that_does_not_exist_is_an_io_failure() {
    refused(
        &library(&["/nonexistent/sch0", "--json"]),
        1,
        "tapebuf: /nonexistent/sch0: No such file or directory",
    );
}

#[test]
fn without_a_device_it_is_a_usage_error() {
    let out = library(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("tapebuf: library: "), "{err}");
    assert!(err.contains("<DEVICE>"), "{err}");
}

#[test]
fn help_says_what_it_shows_and_its_exit_statuses() {
    for flag in ["-h", "--help"] {
        let out = library(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let help = stdout(&out);
        assert!(help.starts_with("tapebuf library: "), "{help}");
        assert!(
            help.contains("Usage: tapebuf library [OPTIONS] <DEVICE>"),
            "{help}"
        );
        assert!(help.contains("--json"), "{help}");
        assert!(help.contains("tapebuf(1), LIBRARY"), "{help}");
    }
}

#[test]
fn the_main_help_lists_it_and_help_library_is_its_help() {
    let main = tapebuf().arg("--help").output().unwrap();
    let text = stdout(&main);
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("library"))
        .unwrap_or_else(|| panic!("no library in {text}"));
    assert!(line.contains("which /dev/nst is which"), "{line}");
    let via_help = tapebuf().args(["help", "library"]).output().unwrap();
    assert_eq!(via_help.status.code(), Some(0));
    assert_eq!(
        stdout(&via_help).lines().next(),
        stdout(&library(&["--help"])).lines().next()
    );
}

#[test]
fn every_json_field_is_documented_in_the_manual() {
    let mut changer = EmulatedChanger::new(1, vec![Some(Tape::tagged("E01001L6")), None], 1);
    changer.drives[0].identifier = Some("IBM     ULT3580-TD6     LABDRV01".into());
    changer
        .move_medium(ElementAddress::slot(0), ElementAddress::drive(0))
        .unwrap();
    let inventory = Inventory::read(&mut changer).unwrap();
    let nodes = [TapeNode {
        path: "/dev/nst0".into(),
        serial: Some("LABDRV01".into()),
    }];
    let view = serde_json::to_value(library_json("/dev/sch0", &inventory, &nodes)).unwrap();
    crate::common::manual::assert_every_field_documented(&view, "LIBRARY");
}
