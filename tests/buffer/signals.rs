//! Signals: SIGUSR1 prints a status line and the run goes on; SIGINT,
//! SIGTERM and SIGHUP stop the run, print what was committed, and end with
//! the signal (SIGHUP only where it is not ignored, as under nohup). The
//! cases that move data run on both rings, the zero-copy one and the
//! copying one. The last case checks what they all rely on: each child
//! starts with every signal at its default, even when the suite itself runs
//! under nohup.
//!
//! The watchdog (-W), which ends a stalled run as a stop signal ends a
//! run, is in `signals/watchdog.rs`, on the same live runs.

use crate::common;
mod watchdog;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::Child;
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// A tapebuf whose stdin stays open until `close_stdin` is sent, whose
/// stderr lines arrive on a channel, and from whose stdout `head` bytes
/// have already been read (so data flows and the handlers are installed).
struct Live {
    child: Child,
    close_stdin: mpsc::Sender<()>,
    stderr_lines: mpsc::Receiver<String>,
    stdout: std::process::ChildStdout,
}

fn start_live(args: &[&str], head: usize) -> (Live, Vec<u8>) {
    let mut child = spawn_piped(args);
    let mut stdin = child.stdin.take().unwrap();
    let (close_tx, close_rx) = mpsc::channel::<()>();
    let data = pattern(head, 42);
    let sent = data.clone();
    std::thread::spawn(move || {
        stdin.write_all(&sent).unwrap();
        let _ = close_rx.recv(); // hold stdin open until told
    });
    let stderr = child.stderr.take().unwrap();
    let (line_tx, line_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut got = vec![0; head];
    stdout.read_exact(&mut got).unwrap();
    assert_eq!(got, data, "the first bytes passed through");
    (
        Live {
            child,
            close_stdin: close_tx,
            stderr_lines: line_rx,
            stdout,
        },
        got,
    )
}

fn next_line(live: &Live) -> String {
    live.stderr_lines
        .recv_timeout(Duration::from_secs(20))
        .expect("a stderr line within 20 s")
}

#[test]
fn sigusr1_prints_a_status_line_and_the_run_continues_on_both_rings() {
    for ring in RINGS {
        let (mut live, _) = start_live(&on_ring(ring, &["-s", "4k", "-b", "8"]), 8192);
        kill(Pid::from_raw(live.child.id() as i32), Signal::SIGUSR1).unwrap();
        let line = next_line(&live);
        assert!(line.starts_with("tapebuf: status: in 8192 bytes"), "{line}");
        // The writer counts a block as committed just after write(2) returns,
        // so the status may trail what the test has already read by a block.
        let out: u64 = line
            .split("out ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no out count in {line}"));
        assert!(out == 4096 || out == 8192, "{line}");
        assert!(
            line.contains("underruns") && line.contains("overruns"),
            "{line}"
        );
        live.close_stdin.send(()).unwrap();
        let mut rest = Vec::new();
        live.stdout.read_to_end(&mut rest).unwrap();
        let status = live.child.wait().unwrap();
        assert_eq!(status.code(), Some(0));
        let summary = next_line(&live);
        assert!(
            summary.starts_with("tapebuf: summary: in 8192 bytes, out 8192 bytes"),
            "{summary}"
        );
    }
}

#[test]
fn sigusr1_status_line_stays_whole_beside_a_forced_progress_bar() {
    let (mut live, _) = start_live(&["--progress", "-s", "4k", "-b", "8"], 8192);
    kill(Pid::from_raw(live.child.id() as i32), Signal::SIGUSR1).unwrap();
    // The bar's redraws share stderr: find the status line among them. The
    // bar is cleared before it, so the line starts at the left margin.
    let line = loop {
        let line = next_line(&live);
        if line.contains("tapebuf: status:") {
            break line;
        }
    };
    let visible = line.rsplit('\r').next().unwrap();
    assert!(
        visible.starts_with("tapebuf: status: in 8192 bytes"),
        "{line:?}"
    );
    live.close_stdin.send(()).unwrap();
    let mut rest = Vec::new();
    live.stdout.read_to_end(&mut rest).unwrap();
    assert_eq!(live.child.wait().unwrap().code(), Some(0));
}

fn assert_stops_on(signal: Signal, name: &str) {
    for ring in RINGS {
        let (mut live, _) = start_live(&on_ring(ring, &["-s", "4k", "-b", "8"]), 12288);
        kill(Pid::from_raw(live.child.id() as i32), signal).unwrap();
        let mut rest = Vec::new();
        live.stdout.read_to_end(&mut rest).unwrap();
        let status = live.child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal as i32), "{status:?}");
        let summary = next_line(&live);
        assert!(
            summary.starts_with(&format!(
                "tapebuf: summary: interrupted by {name}: in 12288 bytes, out 12288 bytes"
            )),
            "{summary}"
        );
        assert!(rest.is_empty());
        let _ = live.close_stdin.send(());
    }
}

#[test]
fn sigint_mid_run_stops_with_the_summary_and_the_signal_status() {
    assert_stops_on(Signal::SIGINT, "SIGINT");
}

#[test]
fn sigterm_mid_run_stops_with_the_summary_and_the_signal_status() {
    assert_stops_on(Signal::SIGTERM, "SIGTERM");
}

#[test]
fn sighup_mid_run_stops_with_the_summary_like_sigterm() {
    // A dropped ssh session or a cron parent going away.
    assert_stops_on(Signal::SIGHUP, "SIGHUP");
}

#[test]
fn sighup_stays_ignored_under_nohup_and_the_run_completes() {
    let data = pattern(64 * 1024, 5);
    let mut child = crate::common::command("nohup")
        .arg(BIN)
        .args(["-s", "4k", "-q"])
        .arg("-o")
        .arg("/dev/null")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("nohup from coreutils");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&data[..4096]).unwrap();
    // nohup ignores SIGHUP: tapebuf must not catch it, but SIGUSR1 yes.
    wait_until_caught(pid, Signal::SIGUSR1);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let ignored = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap();
    assert_ne!(ignored & (1 << (libc::SIGHUP - 1)), 0, "{status}");
    kill(Pid::from_raw(pid as i32), Signal::SIGHUP).unwrap();
    stdin.write_all(&data[4096..]).unwrap();
    drop(stdin);
    let (status, stderr) = finish(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn sigint_with_data_still_in_the_ring_reports_it_as_not_committed_on_both_rings() {
    for ring in RINGS {
        // A high watermark keeps the writer waiting, so data sits in the ring.
        let mut child = spawn_piped(&on_ring(ring, &["-s", "4k", "-b", "10", "-P", "100"]));
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // A first full ring passes through: proof that the handlers are in place.
        stdin.write_all(&pattern(10 * 4096, 1)).unwrap();
        let mut first = vec![0; 10 * 4096];
        stdout.read_exact(&mut first).unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let pid = Pid::from_raw(child.id() as i32);
        // Ask for status until `want` shows; the handlers are in place by now.
        let mut status_until = |want: &str| {
            for _ in 0..10_000 {
                kill(pid, Signal::SIGUSR1).unwrap();
                let line = lines.next().unwrap().unwrap();
                if line.contains(want) {
                    return;
                }
            }
            panic!("status never showed {want:?}");
        };
        // The writer has drained the ring and stopped: it now waits for 10.
        status_until("out 40960 bytes, ");
        status_until(", 1 underruns, ");
        // Then 3 blocks: fewer than the 10 the writer now waits for.
        stdin.write_all(&pattern(3 * 4096, 2)).unwrap();
        status_until("tapebuf: status: in 53248 bytes");
        kill(pid, Signal::SIGINT).unwrap();
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGINT));
        assert!(out.is_empty());
        let summary = lines.next().unwrap().unwrap();
        assert!(
            summary.starts_with(
                "tapebuf: summary: interrupted by SIGINT: in 53248 bytes, out 40960 bytes"
            ),
            "{summary}"
        );
        assert!(
            summary.ends_with("; 12288 bytes read but not committed"),
            "{summary}"
        );
        drop(stdin);
    }
}

#[test]
fn signals_are_answered_while_an_output_fifo_waits_for_its_reader() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let mut child = spawn_piped(&["-o", fifo.to_str().unwrap()]);
    let pid = child.id();
    wait_until_caught(pid, Signal::SIGUSR1);
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    kill(Pid::from_raw(pid as i32), Signal::SIGUSR1).unwrap();
    assert_eq!(
        lines.next().unwrap().unwrap(),
        "tapebuf: status: starting: opening the input and outputs"
    );
    kill(Pid::from_raw(pid as i32), Signal::SIGINT).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT));
    assert_eq!(
        lines.next().unwrap().unwrap(),
        "tapebuf: interrupted by SIGINT while opening the input and outputs; nothing was read"
    );
}

#[test]
fn sigint_counts_the_bytes_of_a_block_still_filling_as_not_committed_on_both_rings() {
    for ring in RINGS {
        let mut child = spawn_piped(&on_ring(ring, &["-s", "64k", "-b", "4"]));
        let pid = child.id();
        wait_until_caught(pid, Signal::SIGUSR1);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&pattern(10_000, 3)).unwrap(); // less than one block
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let mut seen = false;
        for _ in 0..10_000 {
            kill(Pid::from_raw(pid as i32), Signal::SIGUSR1).unwrap();
            if lines
                .next()
                .unwrap()
                .unwrap()
                .starts_with("tapebuf: status: in 10000 bytes")
            {
                seen = true;
                break;
            }
        }
        assert!(seen, "the status never counted the partial block");
        kill(Pid::from_raw(pid as i32), Signal::SIGINT).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGINT));
        let summary = lines.next().unwrap().unwrap();
        assert!(
            summary.starts_with(
                "tapebuf: summary: interrupted by SIGINT: in 10000 bytes, out 0 bytes"
            ),
            "{summary}"
        );
        assert!(
            summary.ends_with("; 10000 bytes read but not committed"),
            "{summary}"
        );
        drop(stdin);
    }
}

/// The suite may run under `nohup` (SIGHUP ignored) or as a background job
/// (SIGINT and SIGQUIT ignored); the signal tests above need their children
/// to start with every signal at its default, and none blocked.
#[test]
fn a_test_child_starts_with_default_signals_even_when_the_suite_ignores_them() {
    // SAFETY: ignoring SIGHUP in the test process; nothing here sends it.
    unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) };
    let out = common::command("cat")
        .arg("/proc/self/status")
        .output()
        .unwrap();
    assert!(out.status.success());
    let status = String::from_utf8(out.stdout).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no {name} in {status}"))
            .to_string()
    };
    // Signals 1 to 31, the ones with names (32 and 33 belong to the C
    // library and cannot be set).
    let standard = |name: &str| u64::from_str_radix(&field(name), 16).unwrap() & 0x7fff_ffff;
    assert_eq!(standard("SigIgn:"), 0, "ignored: {}", field("SigIgn:"));
    assert_eq!(standard("SigBlk:"), 0, "blocked: {}", field("SigBlk:"));
}
