//! The watchdog (-W): a run in which no byte moves, in or out, for the
//! seconds given ends with an error and the summary says STALLED, even
//! while its outputs are still being opened; a slow trickle is progress
//! and never fires it. The cases that move data run on both rings.

use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::start_live;
use crate::common::*;

#[test]
fn watchdog_ends_a_stalled_run_with_an_error_on_both_rings() {
    for ring in RINGS {
        // Some data passes, then the producer goes silent but keeps the pipe open.
        let (mut live, _) = start_live(&on_ring(ring, &["-s", "4k", "-b", "8", "-W", "1"]), 4096);
        let (done_tx, done_rx) = mpsc::channel();
        let pid = live.child.id();
        let waiter = std::thread::spawn(move || {
            let status = live.child.wait().unwrap();
            let _ = done_tx.send(());
            (status, live.stderr_lines, live.close_stdin)
        });
        if done_rx.recv_timeout(Duration::from_secs(30)).is_err() {
            let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
            panic!("the watchdog did not end the run within 30 s");
        }
        let (status, lines, _close) = waiter.join().unwrap();
        assert_eq!(status.code(), Some(1));
        let error = lines.recv_timeout(Duration::from_secs(5)).unwrap();
        // The timer ticks every 250 ms, so on a loaded machine it may say 2 s.
        assert!(
            error.starts_with("tapebuf: -W/--watchdog: no data moved for ")
                && error.ends_with(" s (read 4096 bytes, committed 4096 bytes)"),
            "{error}"
        );
        let summary = lines.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(
            summary.starts_with("tapebuf: summary: in 4096 bytes, out 4096 bytes"),
            "{summary}"
        );
        assert!(summary.ends_with("; STALLED"), "{summary}");
    }
}

#[test]
fn watchdog_counts_a_slow_trickle_as_progress_on_both_rings() {
    for ring in RINGS {
        // 4 KiB every 200 ms into 1 MiB blocks: no block fills for seconds, but
        // data keeps moving, so a 2 s watchdog must not fire.
        let input = pattern(12 * 4096, 4);
        let out = run_with(
            &on_ring(ring, &["-s", "1M", "-b", "2", "-W", "2"]),
            input.clone(),
            Feed::Slow {
                chunk: 4096,
                pause: Duration::from_millis(200),
            },
            Drain::Fast,
        );
        assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
        assert_eq!(sha256(&out.stdout), sha256(&input));
    }
}

#[test]
fn watchdog_also_ends_a_start_that_never_finishes() {
    // A FIFO output whose reader never comes: opening it blocks for ever.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    // timeout(1) turns a hang into a failure (status 124) instead of a stuck test.
    let out = crate::common::command("timeout")
        .args(["30", BIN, "-W", "1", "-o", fifo.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("tapebuf: -W/--watchdog: no data moved for ")
            && stderr
                .trim_end()
                .ends_with(" s: still opening the input and outputs"),
        "{stderr}"
    );
}
