//! What a failure prints, as the README ("Reading the summary") and the
//! manual (OUTPUT) say, with and without `-q`: a failure before the run
//! starts is one line and no summary; a failure during the run is each
//! error on a line of its own, then the summary, which repeats it at its
//! end.

use crate::common::*;

/// The same run with and without `-q`.
fn quiet_and_not(args: &[&str]) -> [Vec<String>; 2] {
    [false, true].map(|quiet| {
        let mut all: Vec<&str> = args.to_vec();
        if quiet {
            all.insert(0, "-q");
        }
        all.iter().map(|a| a.to_string()).collect()
    })
}

fn run_owned(args: &[String], input: Vec<u8>) -> Outcome {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args, input)
}

#[test]
fn a_failure_before_the_run_starts_is_one_line_and_no_summary() {
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("old.tar");
    std::fs::write(&existing, b"old").unwrap();
    let missing = dir.path().join("absent").join("x");
    let cases: [(&[&str], i32); 4] = [
        (&["--no-such-option"], 2),
        (&["-i", "/nonexistent/tapebuf-input"], 1),
        (&["-o", missing.to_str().unwrap()], 1),
        (&["-o", existing.to_str().unwrap()], 2),
    ];
    for (args, code) in cases {
        for args in quiet_and_not(args) {
            let out = run_owned(&args, pattern(10_000, 1));
            assert_eq!(out.status.code(), Some(code), "{args:?}: {}", out.stderr);
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?}: {}", out.stderr);
            assert!(
                lines[0].starts_with("tapebuf: "),
                "{args:?}: {}",
                out.stderr
            );
            assert!(!lines[0].contains("summary:"), "{args:?}: {}", out.stderr);
        }
    }
}

#[test]
fn a_failed_output_is_its_error_then_the_summary_that_repeats_it() {
    for args in quiet_and_not(&["-s", "64k", "-o", "/dev/full"]) {
        let out = run_owned(&args, pattern(1 << 20, 2));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", out.stderr);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {}", out.stderr);
        let error = "/dev/full: write failed at byte 0: No space left on device (os error 28)";
        assert_eq!(lines[0], format!("tapebuf: {error}"));
        assert!(lines[1].starts_with("tapebuf: summary: "), "{}", lines[1]);
        // Every byte read was lost, however many were read before the
        // writer failed.
        let read = summary_number(&out.stderr, "in ");
        assert!(
            lines[1].ends_with(&format!(
                "; FAILED {error}; {read} bytes read but not committed"
            )),
            "{}",
            lines[1]
        );
    }
}

#[test]
fn a_failed_input_is_its_error_then_the_summary_that_says_input_failed() {
    // Reading a process's memory at address 0 fails with EIO.
    for args in quiet_and_not(&["-i", "/proc/self/mem"]) {
        let out = run_owned(&args, vec![]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", out.stderr);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {}", out.stderr);
        assert_eq!(
            lines[0],
            "tapebuf: /proc/self/mem: read failed at byte 0: Input/output error (os error 5)"
        );
        assert!(lines[1].starts_with("tapebuf: summary: "), "{}", lines[1]);
        assert!(lines[1].ends_with("; INPUT FAILED"), "{}", lines[1]);
    }
}
