//! The tape library flags of a buffer run and of `tapebuf verify`, as a
//! user mistypes them: each mistake is one line naming the flag, exit
//! status 2, before a byte is read or written, and the output file that a
//! refused start would have created is not left behind.

use crate::common;

/// Runs tapebuf with `args` on a small input; the exit code and stderr.
fn refused(args: &[&str]) -> (i32, String) {
    let out = common::run(args, common::pattern(10_000, 3));
    (out.status.code().unwrap_or(-1), out.stderr)
}

#[test]
fn a_pool_or_cleaning_without_a_changer_is_a_usage_error_naming_the_flag() {
    let cases: [(&[&str], &str); 4] = [
        (&["--slots", "1-3"], "--slots"),
        (&["--barcodes", "E01*"], "--barcodes"),
        (&["--drive-element", "0"], "--drive-element"),
        (&["--clean"], "--clean"),
    ];
    for (flags, flag) in cases {
        let mut args = vec!["-q", "-o", "/dev/null"];
        args.extend_from_slice(flags);
        let (code, err) = refused(&args);
        assert_eq!(
            err,
            format!("tapebuf: {flag}: needs --changer, the tape library's changer device\n")
        );
        assert_eq!(code, 2);
    }
}

#[test]
fn a_changer_beside_a_change_command_is_refused() {
    let (code, err) = refused(&["-o", "/dev/null", "--changer", "/dev/sch0", "-A", "true"]);
    assert_eq!(
        err,
        "tapebuf: --changer: changes volumes itself; give it or -A/--change-command, not both\n"
    );
    assert_eq!(code, 2);
}

#[test]
fn a_bad_slot_list_is_refused_naming_it() {
    let (code, err) = refused(&[
        "-o",
        "/dev/null",
        "--changer",
        "/dev/sch0",
        "--slots",
        "3-1",
    ]);
    assert!(err.starts_with("tapebuf: --slots: "), "{err}");
    assert!(err.contains("3-1"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(code, 2);
}

#[test]
fn a_changer_with_no_tape_endpoint_is_refused_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("backup.tar");
    let (code, err) = refused(&[
        "-o",
        out.to_str().unwrap(),
        "--changer",
        "/dev/sch0",
        "--slots",
        "1-3",
    ]);
    assert_eq!(
        err,
        "tapebuf: --changer: neither the input nor any output is a tape drive\n"
    );
    assert_eq!(code, 2);
    assert!(!out.exists(), "the refused start left {}", out.display());
}
