//! The run as a whole: memory that cannot be had, `--quiet`, help and
//! version, a broken stderr (for every command), and a lock already taken
//! each end the way the manual says.

use std::process::Stdio;

use crate::common::*;

#[test]
fn memory_that_cannot_be_had_is_reported_at_start() {
    // Limit the address space so the ring cannot be mapped.
    let out = crate::common::command("sh")
        .args([
            "-c",
            &format!("ulimit -v 300000; exec {BIN} -m 1G -s 1M </dev/null"),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("tapebuf: -m/--memory: cannot allocate 1024 blocks of 1048576 bytes"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn quiet_still_reports_failures() {
    let out = run(&["-q", "-o", "/dev/full"], pattern(1000, 1));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr
            .contains("tapebuf: /dev/full: write failed at byte 0"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("tapebuf: summary: "), "{}", out.stderr);
}

#[test]
fn help_and_version_succeed_on_stdout() {
    let out = run(&["--help"], vec![]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("--high-watermark"));
    assert_eq!(out.stderr, "");
    let out = run(&["--version"], vec![]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "tapebuf 0.1.0");
}

#[test]
fn broken_stderr_does_not_abort_the_backup() {
    // stderr is a pipe whose reader is already gone: the summary cannot be
    // printed, but the data must still go through, with success.
    let (read_end, write_end) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
    drop(read_end);
    let input = pattern(300_000, 8);
    let mut child = tapebuf()
        .args(["-s", "4k"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(write_end))
        .spawn()
        .unwrap();
    let feeder = feed_stdin(&mut child, input.clone(), Feed::Fast);
    let drainer = drain_stdout(&mut child, Drain::Fast);
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    assert_eq!(sha256(&drainer.join().unwrap()), sha256(&input));
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn every_command_says_a_usage_error_to_a_broken_stderr_without_dying() {
    // Each command's entry goes through the one console: a usage error
    // written to a pipe whose reader is gone still ends with status 2, not
    // with a panic (the rmt server once printed with eprintln!).
    for words in [
        &["--no-such-flag"][..],
        &["rmt", "--no-such-flag"],
        &["probe", "--no-such-flag"],
        &["report", "--no-such-flag"],
        &["completions", "no-such-shell"],
    ] {
        let (read_end, write_end) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        drop(read_end);
        let status = tapebuf()
            .args(words)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(write_end))
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{words:?}: {status:?}");
    }
}

#[test]
fn lock_failure_names_the_lock_flag() {
    needs::root("setpriv drops to nobody, whom prlimit denies locked memory");
    needs::tool("prlimit", "util-linux");
    needs::tool("setpriv", "util-linux");
    // Root may always lock memory, so run as nobody with no lock allowance.
    let out = crate::common::command("prlimit")
        .args(["--memlock=0:0", "setpriv", "--reuid=65534", "--regid=65534"])
        .args([
            "--clear-groups",
            "--inh-caps=-all",
            BIN,
            "-L",
            "-s",
            "64k",
            "-b",
            "4",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("prlimit and setpriv from util-linux");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "tapebuf: -L/--lock: cannot lock 262144 bytes in memory: Operation not permitted (os error 1) \
         (raise 'ulimit -l', or run with CAP_IPC_LOCK)"
    );
}
