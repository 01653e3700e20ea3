//! Hardware encryption's command line as a user runs it, without a drive:
//! `tapebuf key new|show --tape`, and every way `--encrypt-key` and
//! `--key-dir` are refused before anything is written, each one line and
//! exit status 2. The drive's side is tested in the crate against the
//! emulated drive (`src/tape/encryption/`) and on mhvtl's drives in the
//! tape lab.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::{Output, Stdio};

use crate::common::tapebuf;

fn run(args: &[&str]) -> Output {
    tapebuf()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("tapebuf runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `out` failed with status 2 saying only `line` on stderr.
fn refused(out: &Output, line: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    assert_eq!(stderr(out), format!("tapebuf: {line}\n"));
}

/// A new tape key in `dir`, and the line `key new --tape` printed.
fn new_key(dir: &std::path::Path, name: &str) -> (String, String) {
    let file = dir.join(name);
    let out = run(&["key", "new", "--tape", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    (
        file.to_str().unwrap().to_string(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn a_new_tape_key_is_64_hex_digits_of_mode_0600_printed_as_its_fingerprint_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let (file, line) = new_key(dir.path(), "t.key");
    let (print, named) = line.trim_end().split_once(' ').unwrap();
    assert_eq!(named, file);
    assert!(
        print.starts_with("tapebuf:") && print.len() == 32,
        "{print}"
    );
    let meta = fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let text = fs::read_to_string(&file).unwrap();
    assert_eq!(text.len(), 65);
    assert!(text[..64].bytes().all(|b| b.is_ascii_hexdigit()) && text.ends_with('\n'));
    let shown = run(&["key", "show", "--tape", &file]);
    assert_eq!(String::from_utf8(shown.stdout).unwrap(), line);
    let (_, other) = new_key(dir.path(), "u.key");
    assert_ne!(
        other.split(' ').next(),
        Some(print),
        "two keys, two fingerprints"
    );
    let again = run(&["key", "new", "--tape", &file]);
    refused(&again, &format!("key: {file}: exists; a key is never written over another file (remove it, or give another name)"));
}

#[test]
fn a_tape_key_others_may_read_or_that_holds_no_key_is_refused_before_anything_opens() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = new_key(dir.path(), "t.key");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    let out = dir.path().join("never.bin");
    let out = out.to_str().unwrap();
    let open = run(&["-i", "/dev/null", "-o", out, "--encrypt-key", &file]);
    refused(
        &open,
        &format!("--encrypt-key: {file}: mode 0644 lets others read it; run chmod 600 {file}"),
    );
    let junk = dir.path().join("junk.key");
    fs::write(&junk, "not a key\n").unwrap();
    fs::set_permissions(&junk, fs::Permissions::from_mode(0o600)).unwrap();
    let junk = junk.to_str().unwrap();
    let bad = run(&["-i", "/dev/null", "-o", out, "--encrypt-key", junk]);
    refused(&bad, &format!("--encrypt-key: {junk}: not a tapebuf key: it holds neither a line of 64 hex digits (a 256-bit key, as tapebuf key new --tape and stenc write it) nor 32 raw bytes"));
    assert!(!std::path::Path::new(out).exists());
}

#[test]
fn an_output_that_would_hold_the_backup_unencrypted_is_refused_and_left_uncreated() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = new_key(dir.path(), "t.key");
    let out = dir.path().join("clear.bin");
    let out = out.to_str().unwrap();
    let run_ = run(&["-i", "/dev/null", "-o", out, "--encrypt-key", &file]);
    refused(
        &run_,
        "--encrypt-key: neither the input nor any output is a local tape drive",
    );
    assert!(
        !std::path::Path::new(out).exists(),
        "the refused output was removed"
    );
}

#[test]
fn a_key_dir_that_is_not_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = new_key(dir.path(), "t.key");
    let out = run(&["-i", "/dev/null", "-o", "/dev/null", "--key-dir", &file]);
    refused(&out, &format!("--key-dir: {file}: not a directory"));
}

#[test]
fn a_tape_key_is_never_overwritten_by_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = new_key(dir.path(), "t.key");
    let before = fs::read(&file).unwrap();
    let out = run(&["-i", "/dev/null", "-o", &file, "-f", "--encrypt-key", &file]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--encrypt-key"), "{}", stderr(&out));
    assert_eq!(fs::read(&file).unwrap(), before);
}
