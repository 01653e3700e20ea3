//! Signals in the middle of a file probe: SIGUSR1 prints a status line
//! and the probe goes on; SIGINT and SIGHUP stop it, remove the file, and
//! the probe dies of the signal.

use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

use crate::common::{self, tapebuf, wait};
use crate::probe_cli::{entries, stderr};
/// Waits for `cond` by polling, up to `limit`.
fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    wait::within(limit, || cond().then_some(())).is_some()
}

/// Starts a file probe in a fresh directory on disk, and returns once it
/// has begun writing (the file holds a block) and catches `sig`.
fn probe_mid_sweep(
    size: &str,
    sig: nix::sys::signal::Signal,
) -> (tempfile::TempDir, std::process::Child) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let child = tapebuf()
        .args(["probe", dir.path().to_str().unwrap()])
        .args(["--sizes", "1M", "--size", size, "--runs", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = wait_for(Duration::from_secs(60), || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().metadata().is_ok_and(|m| m.len() > 0))
    });
    assert!(started, "the probe never started writing");
    common::wait_until_caught(child.id(), sig);
    (dir, child)
}

fn send(child: &std::process::Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
}

#[test]
fn sigusr1_mid_sweep_prints_a_status_line_and_the_probe_completes() {
    let (dir, child) = probe_mid_sweep("256M", nix::sys::signal::Signal::SIGUSR1);
    send(&child, nix::sys::signal::Signal::SIGUSR1);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.signal(), None, "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    let status = err
        .lines()
        .find(|l| l.starts_with("tapebuf: probe: status: "))
        .unwrap_or_else(|| panic!("no status line: {err}"));
    assert!(status.contains(" of 1 runs done after "), "{status}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1M"));
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

/// A probe stopped by `sig` mid-sweep removes its file, says so, and dies
/// of the signal.
fn assert_stops_cleanly(sig: nix::sys::signal::Signal) {
    // On disk (not tmpfs), with a stream far longer than the test lasts.
    let (dir, mut child) = probe_mid_sweep("16G", sig);
    send(&child, sig);
    let ended = wait_for(Duration::from_secs(60), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    if !ended {
        let _ = child.kill();
        panic!("the probe did not stop on {sig:?}");
    }
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.signal(), Some(sig as i32), "{err}");
    assert!(
        err.contains(&format!("interrupted by {}; removed ", sig.as_str())),
        "{err}"
    );
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn ctrl_c_during_a_file_probe_removes_the_file_and_dies_of_sigint() {
    assert_stops_cleanly(nix::sys::signal::Signal::SIGINT);
}

#[test]
fn sighup_mid_sweep_removes_the_file_and_dies_of_sighup() {
    assert_stops_cleanly(nix::sys::signal::Signal::SIGHUP);
}
