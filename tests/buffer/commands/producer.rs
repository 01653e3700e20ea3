//! `tapebuf -- CMD`: every way the producer can end, each checked on both
//! sides: tapebuf's exit status and message, the output's bytes against
//! the committed count, the manifest's `clean` and the trailer a restore
//! reads, and that the producer is gone once tapebuf has exited.

use std::path::Path;
use std::time::Duration;

use super::{gone, pid_in, restore_status, Run};
use crate::common::{self, sha256_file, summary_number, wait};

/// A way the producer ends, as a shell script (`$OUT` is a file of known
/// bytes; every script first writes its pid to `pid`), and what tapebuf
/// must say of it.
struct Ending {
    name: &'static str,
    script: &'static str,
    extra: &'static [&'static str],
    /// A part of the one line that names the failure.
    says: &'static str,
}

/// Every way a producer ends other than success: its exit status at
/// start, midway and at the end; death by each kind of signal; an output
/// closed while it goes on; a hang under -W.
const FAILURES: &[Ending] = &[
    Ending {
        name: "fails at start",
        script: "echo $$ >pid; echo 'cannot open the disk' >&2; exit 2",
        extra: &[],
        says: "exited with status 2 after 0 bytes; its stderr ended: cannot open the disk",
    },
    Ending {
        name: "fails midway",
        script: "echo $$ >pid; head -c 300000 \"$OUT\"; exit 1",
        extra: &[],
        says: "exited with status 1 after 300000 bytes",
    },
    Ending {
        name: "fails after all its output",
        script: "echo $$ >pid; cat \"$OUT\"; exit 3",
        extra: &[],
        says: "exited with status 3 after 1000000 bytes",
    },
    Ending {
        name: "killed by SIGKILL",
        script: "echo $$ >pid; head -c 200000 \"$OUT\"; kill -KILL $$",
        extra: &[],
        says: "was killed by SIGKILL after 200000 bytes",
    },
    Ending {
        name: "killed by SIGTERM",
        script: "echo $$ >pid; head -c 200000 \"$OUT\"; kill -TERM $$",
        extra: &[],
        says: "was killed by SIGTERM after 200000 bytes",
    },
    Ending {
        name: "closes its output and keeps running",
        script: "echo $$ >pid; head -c 70000 \"$OUT\"; exec >&-; exec sleep 60",
        extra: &["--timeout", "1"],
        says: "closed its output but was still running 1 s later (--timeout); tapebuf ended it",
    },
];

#[test]
fn a_producer_that_fails_in_any_way_leaves_a_backup_that_says_it_is_cut() {
    for ending in FAILURES {
        let run = Run::new();
        let out = run.bytes(1_000_000);
        let mut args = vec!["-o", "b.tar", "--manifest", "b.json"];
        args.extend(ending.extra);
        let result = run.tapebuf(&args, &["sh", "-c", ending.script], &[("OUT", &out)]);
        let what = format!("{}: {}", ending.name, result.stderr);
        assert_eq!(result.status.code(), Some(1), "{what}");
        let line = result.stderr.lines().next().unwrap_or_default();
        assert!(line.starts_with("tapebuf: the producer `sh -c "), "{what}");
        assert!(line.contains(ending.says), "{what}");
        assert!(
            common::summary_line(&result.stderr).contains("INPUT FAILED"),
            "{what}"
        );
        // What the summary says was committed is what the file holds; an
        // empty output is removed, with its trailer's marker.
        let committed = summary_number(&result.stderr, "out ");
        let left = std::fs::metadata(run.path("b.tar")).map_or(0, |m| m.len());
        assert_eq!(left, committed, "{what}");
        let manifest = std::fs::read_to_string(run.path("b.json")).unwrap();
        assert!(manifest.contains("\"clean\": false"), "{what}: {manifest}");
        if committed == 0 {
            let names: Vec<_> = std::fs::read_dir(run.path(""))
                .unwrap()
                .flatten()
                .map(|e| e.file_name())
                .collect();
            assert!(
                !names
                    .iter()
                    .any(|n| n.to_string_lossy().starts_with("b.tar")),
                "{what}: {names:?}"
            );
        } else {
            assert_eq!(
                restore_status(&run, "b.tar"),
                Some(1),
                "{what}: a restore must fail"
            );
        }
        gone(pid_in(&run.path("pid")), &what);
    }
}

#[test]
fn a_producer_that_hangs_is_ended_by_the_watchdog() {
    let run = Run::new();
    let result = run.tapebuf(
        &["-W", "1", "-o", "b.tar", "--manifest", "b.json"],
        &["sh", "-c", "echo $$ >pid; echo some; exec sleep 60"],
        &[],
    );
    assert_eq!(result.status.code(), Some(1), "{}", result.stderr);
    assert!(result.stderr.contains("STALLED"), "{}", result.stderr);
    let manifest = std::fs::read_to_string(run.path("b.json")).unwrap();
    assert!(manifest.contains("\"clean\": false"), "{manifest}");
    gone(pid_in(&run.path("pid")), "the hung producer");
}

#[test]
fn a_producer_that_succeeds_is_the_input_byte_exact_and_its_chatter_stays_out_of_q() {
    let run = Run::new();
    let out = run.bytes(3_000_000);
    let script = "echo 'tar: Removing leading `/` from member names' >&2; cat \"$OUT\"";
    let result = run.tapebuf(
        &["-q", "-o", "b.tar", "-l", "log"],
        &["sh", "-c", script],
        &[("OUT", &out)],
    );
    assert_eq!(result.status.code(), Some(0), "{}", result.stderr);
    assert_eq!(
        result.stderr, "",
        "-q and a producer that succeeded: silence"
    );
    assert_eq!(
        sha256_file(&run.path("b.tar")),
        sha256_file(Path::new(&out))
    );
    let log = std::fs::read_to_string(run.path("log")).unwrap();
    assert!(
        log.contains("tapebuf: producer: tar: Removing leading `/` from member names"),
        "the producer's stderr goes to -l: {log}"
    );
}

#[test]
fn accept_status_takes_only_the_statuses_it_names_as_success() {
    let run = Run::new();
    let accepted = run.tapebuf(
        &["-o", "one", "--accept-status", "1"],
        &["sh", "-c", "printf data; exit 1"],
        &[],
    );
    assert_eq!(accepted.status.code(), Some(0), "{}", accepted.stderr);
    assert!(
        common::summary_line(&accepted.stderr)
            .contains("producer exited 1, accepted by --accept-status"),
        "{}",
        accepted.stderr
    );
    let other = run.tapebuf(
        &["-o", "two", "--accept-status", "1"],
        &["sh", "-c", "printf data; exit 2"],
        &[],
    );
    assert_eq!(other.status.code(), Some(1), "{}", other.stderr);
    let signalled = run.tapebuf(
        &["-o", "three", "--accept-status", "1"],
        &["sh", "-c", "printf data; kill -KILL $$"],
        &[],
    );
    assert_eq!(
        signalled.status.code(),
        Some(1),
        "a signal is never accepted"
    );
}

#[test]
fn real_tar_cpio_and_dump_that_fail_fail_the_backup() {
    let producers: [(&str, &[&str], &str); 3] = [
        (
            "tar",
            &["tar", "cf", "-", "/nonexistent-dir"],
            "Cannot stat",
        ),
        (
            "cpio",
            &["sh", "-c", "echo /nonexistent-dir | cpio -o -H newc"],
            "Cannot stat",
        ),
        ("dump", &["dump", "0f", "-", "/nonexistent-disk"], "DUMP"),
    ];
    for (tool, argv, said) in producers {
        common::needs::tool(tool, tool);
        let run = Run::new();
        let result = run.tapebuf(&["-q", "-o", "b", "--manifest", "b.json"], argv, &[]);
        assert_eq!(result.status.code(), Some(1), "{tool}: {}", result.stderr);
        let line = result.stderr.lines().next().unwrap_or_default();
        assert!(line.contains(said), "{tool}: {line}");
        assert_eq!(
            restore_status(&run, "b"),
            Some(1),
            "{tool}: the restore must fail"
        );
    }
}

#[test]
fn sigterm_to_tapebuf_reaches_the_producer_and_both_end() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    use std::os::unix::process::ExitStatusExt;
    let run = Run::new();
    let mut child = run
        .command(
            &["-o", "b"],
            &[
                "sh",
                "-c",
                "echo $$ >pid; trap 'exit 9' TERM; while :; do sleep 0.05; done",
            ],
            &[],
        )
        .spawn()
        .unwrap();
    let pid = wait::until(Duration::from_secs(10), "the producer's pid", || {
        std::fs::read_to_string(run.path("pid"))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
    });
    common::wait_until_caught(child.id(), Signal::SIGTERM);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let status = wait::exit_within(&mut child, Duration::from_secs(10));
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    gone(pid, "the producer after SIGTERM to tapebuf");
}

#[test]
fn an_output_that_fails_while_the_producer_runs_ends_the_producer() {
    let run = Run::new();
    let result = run.tapebuf(
        &["--to", "head -c 1000 >/dev/null"],
        &["sh", "-c", "echo $$ >pid; exec cat /dev/zero"],
        &[],
    );
    assert_eq!(result.status.code(), Some(1), "{}", result.stderr);
    assert!(
        result.stderr.contains("FAILED --to head -c 1000"),
        "{}",
        result.stderr
    );
    gone(
        pid_in(&run.path("pid")),
        "the producer after its output failed",
    );
}

#[test]
fn a_producer_that_cannot_be_found_is_refused_before_any_output_is_made() {
    let run = Run::new();
    let result = run.tapebuf(&["-o", "b"], &["no-such-program-here"], &[]);
    assert_eq!(result.status.code(), Some(2), "{}", result.stderr);
    assert_eq!(
        result.stderr,
        "tapebuf: --: no-such-program-here: no such program in $PATH\n"
    );
    assert!(!run.path("b").exists());
    let both = run.tapebuf(&["-i", "x", "-o", "b"], &["true"], &[]);
    assert_eq!(
        both.status.code(),
        Some(2),
        "-i and -- together: {}",
        both.stderr
    );
}

#[test]
fn a_tcp_receiver_is_told_that_a_failed_producer_stopped_early() {
    let run = Run::new();
    let mut receiver = common::tapebuf()
        .args(["-I", "127.0.0.1:0", "--plain", "-o"])
        .arg(run.path("r"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let port = common::ports::listening_port(&mut receiver);
    let peer = format!("127.0.0.1:{port}");
    let sender = run.tapebuf(
        &["-q", "-O", &peer, "--plain"],
        &["sh", "-c", "head -c 100000 /dev/zero; exit 5"],
        &[],
    );
    assert_eq!(sender.status.code(), Some(1), "{}", sender.stderr);
    let status = wait::exit_within(&mut receiver, Duration::from_secs(20));
    assert_eq!(status.code(), Some(1), "the receiver must fail too");
}
