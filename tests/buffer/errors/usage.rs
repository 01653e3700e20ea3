//! Usage errors: an unknown, missing, misspelt or out-of-range option is
//! one `tapebuf: ...` line naming the flag, and exit status 2.

use crate::common::*;

#[test]
fn unknown_option_is_a_usage_error_with_one_line() {
    let out = run(&["--frobnicate"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{:?}", out.stderr);
    assert!(out.stderr.starts_with("tapebuf: "), "{}", out.stderr);
    assert!(out.stderr.contains("--frobnicate"), "{}", out.stderr);
}

#[test]
fn a_missing_argument_is_named_in_the_one_line() {
    let out = run(&["report"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: report: the following required arguments were not provided: <FILE> \
         (see 'tapebuf report --help')"
    );
}

#[test]
fn a_misspelt_option_keeps_the_suggestion() {
    let out = run(&["--ouptut", "x"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: unexpected argument '--ouptut' found; a similar argument exists: \
         '--output' (see 'tapebuf --help')"
    );
}

#[test]
fn a_negative_watermark_names_the_flag() {
    let out = run(&["-P", "-5"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -P/--high-watermark: '-5' is not a percentage from 0 to 100"
    );
}

#[test]
fn a_negative_number_of_seconds_names_the_flag() {
    let out = run(&["--timeout", "-1"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("tapebuf: invalid value '-1' for '--timeout <SECS>'"),
        "{}",
        out.stderr
    );
}

#[test]
fn block_size_larger_than_memory_names_both_flags() {
    let out = run(&["-s", "4M", "-m", "1M"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -s/--block-size: the block size 4.00 MiB is larger than -m/--memory 1.00 MiB"
    );
}

#[test]
fn high_watermark_over_100_is_refused() {
    let out = run(&["-P", "120"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -P/--high-watermark: '120' is not a percentage from 0 to 100"
    );
}

#[test]
fn bad_size_names_the_flag() {
    let out = run(&["-m", "lots"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stderr
            .starts_with("tapebuf: -m/--memory: 'lots' is not a size"),
        "{}",
        out.stderr
    );
}
