//! `--to CMD`: the consumer's exit status decides the restore, a consumer
//! that stops reading fails the write it broke, and a stream that ends
//! early never reaches the consumer as a clean end of input.

use super::{gone, pid_in, Run};
use crate::common::{self, sha256_file};

#[test]
fn a_restore_into_tar_through_to_is_byte_exact() {
    let run = Run::new();
    let data = run.bytes(2_000_000);
    let made = run.tapebuf(
        &["-q", "-o", "b.tar"],
        &[
            "tar",
            "cf",
            "-",
            "-C",
            run.path("").to_str().unwrap(),
            "data-2000000",
        ],
        &[],
    );
    assert_eq!(made.status.code(), Some(0), "{}", made.stderr);
    std::fs::create_dir(run.path("out")).unwrap();
    let restored = run.tapebuf::<&str>(&["-q", "-i", "b.tar", "--to", "tar xf - -C out"], &[], &[]);
    assert_eq!(restored.status.code(), Some(0), "{}", restored.stderr);
    assert_eq!(
        sha256_file(&run.path("out/data-2000000")),
        sha256_file(std::path::Path::new(&data))
    );
}

/// Every way a consumer fails, as a shell command line, and what the
/// message says.
const FAILURES: &[(&str, &str)] = &[
    (
        "echo $$ >pid; cat >/dev/null; echo 'tar: bad header' >&2; exit 2",
        "exited with status 2 after taking 1000000 bytes; its stderr ended: tar: bad header",
    ),
    (
        "echo $$ >pid; head -c 10 >/dev/null; exit 0",
        "exited 0 before the stream ended (it stopped reading)",
    ),
    (
        "echo $$ >pid; head -c 10 >/dev/null; exit 4",
        "exited with status 4",
    ),
    (
        "echo $$ >pid; head -c 10 >/dev/null; kill -KILL $$",
        "was killed by SIGKILL",
    ),
];

#[test]
fn a_consumer_that_fails_in_any_way_fails_the_restore() {
    for (line, says) in FAILURES {
        let run = Run::new();
        let data = run.bytes(1_000_000);
        let result = run.tapebuf::<&str>(&["-i", &data, "--to", line], &[], &[]);
        assert_eq!(result.status.code(), Some(1), "{line}: {}", result.stderr);
        let first = result.stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("tapebuf: --to {line}: ")),
            "{line}: {first}"
        );
        assert!(first.contains(says), "{line}: {first}");
        assert!(
            common::summary_line(&result.stderr).contains("FAILED --to"),
            "{}",
            result.stderr
        );
        gone(pid_in(&run.path("pid")), line);
    }
}

#[test]
fn a_stream_cut_short_ends_the_consumer_by_a_signal_not_an_end_of_input() {
    // The producer fails midway: `cat > copy` must not see an end of
    // input, after which it would exit 0 with a copy that looks whole.
    let run = Run::new();
    let data = run.bytes(500_000);
    let result = run.tapebuf(
        &["--to", "echo $$ >pid; exec cat >copy"],
        &["sh", "-c", "head -c 100000 \"$OUT\"; exit 1"],
        &[("OUT", &data)],
    );
    assert_eq!(result.status.code(), Some(1), "{}", result.stderr);
    assert!(result.stderr.contains("INPUT FAILED"), "{}", result.stderr);
    gone(pid_in(&run.path("pid")), "the consumer of a cut stream");
}
