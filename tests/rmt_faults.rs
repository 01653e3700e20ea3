//! The rmt client against a misbehaving server: no fault may end in a
//! false success.
//!
//! The real binary is the client. Its remote shell is a bash script that
//! joins its standard input and output to a TCP connection to this test,
//! where a scripted fake rmt server answers: it dies mid-write, replies
//! garbage, replies twice or to nothing, stalls, fails a close, says E28
//! on a file, and reads back more or less than was asked. The fake keeps
//! what it really accepted, so each case checks tapebuf's exit status,
//! that the committed count it reports equals what the server accepted
//! (or what the output holds, for reads), and that exit 0 comes only with
//! a byte-exact result.

mod common;

#[path = "rmt_faults/fake.rs"]
mod fake;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use fake::{fake, Fake, Fault};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use common::{pattern, summary_number, tapebuf};

const BLOCK: usize = 64 << 10;

/// tapebuf writing `data` to `target` through the fake; returns the exit
/// status and standard error.
fn backup(fake: &Fake, target: &str, data: &[u8], extra: &[&str]) -> (ExitStatus, String) {
    let mut child = spawn_backup(fake, target, extra);
    let feeder = common::feed_stdin(&mut child, data.to_vec(), common::Feed::Fast);
    let outcome = common::finish(&mut child);
    let _ = feeder.join();
    outcome
}

fn spawn_backup(fake: &Fake, target: &str, extra: &[&str]) -> Child {
    tapebuf()
        .args(["-o", target, "-s", "64k", "-m", "2M"])
        // No case may hang: a reply that never comes ends the run.
        .args(match extra.contains(&"--timeout") {
            true => &[][..],
            false => &["--timeout", "10"][..],
        })
        .args(["--rsh-command", &fake.rsh, "--rmt-command", "rmt"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// tapebuf reading `source` (a path on the fake) to standard output.
fn restore(fake: &Fake, source: &str) -> (ExitStatus, String, Vec<u8>) {
    let out = tapebuf()
        .args([
            "-i",
            source,
            "-s",
            "64k",
            "--rmt-window",
            "8",
            "--timeout",
            "10",
        ])
        .args(["--rsh-command", &fake.rsh, "--rmt-command", "rmt"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status, stderr, out.stdout)
}

/// A backup through a fake server, after the checks every write fault
/// shares: the exit code, the committed count equal to a prefix of what
/// the fake holds, and success only when the fake holds the stream.
struct Written {
    fake: Fake,
    stderr: String,
    committed: u64,
    data: Vec<u8>,
    /// Holds the remote shell script and its pid file.
    _dir: tempfile::TempDir,
}

/// Sends `len` bytes to `target` through a fake with `fault` and expects
/// exit `code`.
fn write_case(fault: Fault, target: &str, len: usize, extra: &[&str], code: i32) -> Written {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake(dir.path(), fault, vec![]);
    let data = pattern(len, len as u64);
    let (status, stderr) = backup(&fake, target, &data, extra);
    let accepted = fake.seen.lock().unwrap().accepted.clone();
    assert_eq!(status.code(), Some(code), "{stderr}");
    if status.success() {
        assert!(
            accepted == data,
            "exit 0 with a medium that is not the stream: {stderr}"
        );
    }
    let committed = summary_number(&stderr, "out ");
    assert!(
        data.starts_with(&accepted[..committed as usize]),
        "{stderr}"
    );
    // For the record of outcomes (`--nocapture`).
    eprintln!(
        "outcome: exit {:?}, committed {committed}, server holds {}: {}",
        status.code(),
        accepted.len(),
        stderr.lines().next().unwrap_or("")
    );
    Written {
        fake,
        stderr,
        committed,
        data,
        _dir: dir,
    }
}

const MIB: usize = 1 << 20;

#[test]
fn a_well_behaved_server_gets_the_stream_exactly() {
    let w = write_case(Fault::None, "vault:/srv/b.tar", 2 * MIB, &[], 0);
    assert_eq!(w.committed, w.data.len() as u64);
}

#[test]
fn a_server_that_dies_mid_write_leaves_exactly_its_acknowledged_prefix() {
    let w = write_case(Fault::DieAtWrite(5), "vault:/dev/nst0", 2 * MIB, &[], 1);
    assert_eq!(w.committed, 5 * BLOCK as u64, "{}", w.stderr);
    assert_eq!(w.fake.seen.lock().unwrap().accepted.len(), 5 * BLOCK);
}

#[test]
fn a_garbage_reply_is_an_error_that_quotes_it() {
    let w = write_case(Fault::GarbageAtWrite(3), "vault:/dev/nst0", MIB, &[], 1);
    assert_eq!(w.committed, 3 * BLOCK as u64, "{}", w.stderr);
    assert!(
        w.stderr
            .contains("\"Permission denied, please try again.\", which is not an rmt reply"),
        "{}",
        w.stderr
    );
}

#[test]
fn a_write_answered_twice_is_a_desync_whether_the_close_fails_or_not() {
    // The case is the E5: the extra A was taken as C's reply, and
    // the E5 that C really got was never read. The extra reply is seen as
    // soon as it arrives when no request awaits one, else at the close.
    for close in ["E5\nI/O error\n", "A0\n"] {
        for window in ["1", "8"] {
            let fault = Fault::TwiceAtWrite { at: 2, close };
            let extra = ["--rmt-window", window];
            let w = write_case(fault, "vault:/srv/b.tar", MIB, &extra, 1);
            assert!(w.committed >= 3 * BLOCK as u64, "{}", w.stderr);
            assert!(
                w.stderr
                    .contains("desync: C was answered \"A65536\", not A0")
                    || w.stderr.contains(
                        "desync: the server sent \"A65536\" when no request awaited a reply"
                    ),
                "{}",
                w.stderr
            );
        }
    }
}

#[test]
fn a_reply_to_a_request_never_sent_is_a_desync() {
    let w = write_case(Fault::ExtraAfterOpen, "vault:/srv/b.tar", MIB, &[], 1);
    assert_eq!(w.committed, 0, "{}", w.stderr);
    // The extra A0 is seen as unsolicited, or (if it came late) as a
    // write of none of a block's bytes.
    assert!(
        w.stderr
            .contains("desync: the server sent \"A0\" when no request awaited a reply")
            || w.stderr.contains("wrote only 0 of a 65536-byte block"),
        "{}",
        w.stderr
    );
}

/// A server that acknowledges three blocks and then stands still, ended
/// by `flag`: exit 1, the three blocks committed, `expected` said, and no
/// remote shell left behind.
fn a_stall_ends_with_the_acknowledged_prefix(flag: &[&str], expected: &str) {
    let started = Instant::now();
    let w = write_case(
        Fault::StallAfterWrites(3),
        "vault:/srv/b.tar",
        8 * MIB,
        flag,
        1,
    );
    assert_eq!(w.committed, 3 * BLOCK as u64, "{}", w.stderr);
    assert!(w.stderr.contains(expected), "{}", w.stderr);
    assert!(started.elapsed() < Duration::from_secs(20));
    let shell = pid_in(&w.fake.pid_file, Duration::from_secs(1));
    assert!(
        gone(shell, Duration::from_secs(5)),
        "the remote shell {shell} outlived tapebuf"
    );
}

#[test]
fn a_stalled_server_times_out_with_its_acknowledged_prefix() {
    a_stall_ends_with_the_acknowledged_prefix(
        &["--timeout", "2"],
        "no reply from the rmt server for 2 s (--timeout)",
    );
}

#[test]
fn a_failed_close_says_the_data_may_not_be_on_the_medium() {
    let fault = Fault::Close("E5\nInput/output error\n");
    let w = write_case(fault, "vault:/dev/nst0", MIB, &[], 1);
    assert_eq!(w.committed, MIB as u64, "{}", w.stderr);
    assert!(
        w.stderr.contains(&format!(
            "closing failed: the server replied \"Input/output error\" (E5); the data may not be on the medium; {MIB} bytes were acknowledged before the close"
        )),
        "{}",
        w.stderr
    );
}

/// A server that refuses write `at` with `errno`, after taking `then`
/// more writes; with `sticky`, it refuses every later write too.
fn refusal(at: usize, errno: i32, message: &'static str, then: usize, sticky: bool) -> Fault {
    Fault::FailWrite {
        at,
        errno,
        message,
        then,
        sticky,
    }
}

#[test]
fn a_full_remote_disk_is_a_write_failure_and_no_volume_change() {
    let fault = refusal(4, 28, "No space left on device", 0, true);
    let w = write_case(fault, "vault:/srv/b.tar", MIB, &[], 1);
    assert_eq!(w.committed, 4 * BLOCK as u64, "{}", w.stderr);
    assert!(
        w.stderr.contains(&format!(
            "the remote disk is full: the server replied \"No space left on device\" (E28) at byte {}",
            4 * BLOCK
        )),
        "{}",
        w.stderr
    );
    let seen = w.fake.seen.lock().unwrap();
    assert!(
        !seen.requests.contains('I'),
        "no tape operation on a file: {}",
        seen.requests
    );
    assert_eq!(
        seen.requests.matches('O').count(),
        1,
        "no second volume: {}",
        seen.requests
    );
}

#[test]
fn blocks_landing_after_a_refusal_are_counted_and_named_as_stray() {
    let fault = refusal(2, 5, "Input/output error", 4, false);
    let w = write_case(fault, "vault:/dev/nst0", 2 * MIB, &["--rmt-window", "8"], 1);
    assert_eq!(w.committed, 2 * BLOCK as u64, "{}", w.stderr);
    // The four held behind the refusal, and any sent before the client
    // read it.
    let stray = w.fake.seen.lock().unwrap().accepted.len() - 2 * BLOCK;
    assert!(stray >= 4 * BLOCK);
    assert!(
        w.stderr.contains(&format!(
            "({stray} bytes beyond the committed prefix): the medium has a gap, then stray data after the committed prefix"
        )),
        "{}",
        w.stderr
    );
}

#[test]
fn an_acknowledgement_larger_than_the_block_is_not_committed() {
    let extra = ["--rmt-window", "1"];
    let w = write_case(Fault::AckTooMuch(1), "vault:/dev/nst0", MIB, &extra, 1);
    assert_eq!(w.committed, BLOCK as u64, "{}", w.stderr);
    assert!(
        w.stderr.contains(
            "acknowledged 65537 bytes of a 65536-byte block at byte 65536, more than was sent"
        ),
        "{}",
        w.stderr
    );
}

#[test]
fn server_text_reaches_the_terminal_with_its_escapes_made_harmless() {
    let fault = refusal(0, 5, "\x1b]0;owned\x07\x1b[2Jgone", 0, false);
    let w = write_case(fault, "vault:/dev/nst0", MIB, &[], 1);
    assert!(
        !w.stderr.contains('\x1b') && !w.stderr.contains('\x07'),
        "{:?}",
        w.stderr
    );
    assert!(
        w.stderr.contains("\\x1b]0;owned\\x07\\x1b[2Jgone"),
        "{}",
        w.stderr
    );
}

#[test]
fn a_remote_shell_that_cannot_start_is_one_error_line() {
    let out = tapebuf()
        .args([
            "-o",
            "vault:/srv/b.tar",
            "--rsh-command",
            "/nonexistent/ssh",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("cannot start the remote shell '/nonexistent/ssh'"),
        "{stderr}"
    );
}

/// Waits for the process `pid` to be gone (or a zombie nobody reaps).
fn gone(pid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        let alive = state.is_some_and(|s| {
            let after = s
                .rsplit_once(')')
                .map(|(_, rest)| rest.trim_start())
                .unwrap_or("");
            !after.starts_with('Z')
        });
        if !alive {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `path` to hold a number.
fn pid_in(path: &Path, within: Duration) -> i32 {
    let deadline = Instant::now() + within;
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "the remote shell never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_with_deadline(child: &mut Child, within: Duration) -> ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("tapebuf did not end within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_interrupt_while_the_server_stalls_reports_only_acknowledged_bytes() {
    for (signal, name) in [(Signal::SIGINT, "SIGINT"), (Signal::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        let fake = fake(dir.path(), Fault::StallAfterWrites(3), vec![]);
        let json = dir.path().join("summary.json");
        let mut child = tapebuf()
            .args(["-o", "vault:/srv/b.tar", "-s", "256k", "-m", "4M"])
            .args(["--rsh-command", &fake.rsh, "--rmt-command", "rmt"])
            .args(["--summary-json", json.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let feeder = common::feed_stdin(&mut child, pattern(16 << 20, 13), common::Feed::Fast);
        // Blocks beyond the three acknowledged ones have reached the server.
        let deadline = Instant::now() + Duration::from_secs(20);
        while fake
            .writes
            .recv_deadline(deadline)
            .expect("writes reach the server")
            < 6
        {}
        let shell = pid_in(&fake.pid_file, Duration::from_secs(5));
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let status = wait_with_deadline(&mut child, Duration::from_secs(10));
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        drop(feeder);
        assert_eq!(status.signal(), Some(signal as i32), "{stderr}");
        let acked = 3 * (256 << 10) as u64;
        assert_eq!(summary_number(&stderr, "out "), acked, "{stderr}");
        assert!(
            stderr.contains(&format!("interrupted by {name}")),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("volumes: #1 {acked} bytes")),
            "{stderr}"
        );
        let json = std::fs::read_to_string(&json).unwrap();
        assert!(json.contains(&format!("\"out_bytes\":{acked}")), "{json}");
        assert!(
            gone(shell, Duration::from_secs(5)),
            "the remote shell {shell} outlived tapebuf"
        );
    }
}

#[test]
fn the_watchdog_ends_a_stalled_server_with_its_acknowledged_prefix() {
    // The watchdog's own line counts acknowledged bytes too, not blocks
    // merely sent.
    a_stall_ends_with_the_acknowledged_prefix(
        &["-W", "2"],
        &format!(
            "no data moved for 2 s (read 8388608 bytes, committed {} bytes)",
            3 * BLOCK
        ),
    );
}

#[test]
fn an_interrupt_while_opening_ends_the_remote_shell_and_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let hang = dir.path().join("hang");
    std::fs::write(
        &hang,
        format!(
            "#!/bin/sh\nsleep 600 &\necho $! > {p}.child\necho $$ > {p}\nwait\n",
            p = pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hang, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = Command::new(common::BIN)
        .args([
            "-o",
            "vault:/dev/nst0",
            "--rsh-command",
            hang.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let shell = pid_in(&pids, Duration::from_secs(10));
    let grandchild = pid_in(&dir.path().join("pids.child"), Duration::from_secs(10));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let status = wait_with_deadline(&mut child, Duration::from_secs(10));
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    assert!(
        gone(shell, Duration::from_secs(5)),
        "the remote shell {shell} outlived tapebuf"
    );
    assert!(
        gone(grandchild, Duration::from_secs(5)),
        "its child {grandchild} outlived tapebuf"
    );
}

/// The checks every read fault shares: the summary's count is what the
/// output holds, the output is a prefix of the file, and exit 0 comes
/// only with the whole file.
fn assert_read_outcome(status: ExitStatus, stderr: &str, out: &[u8], file: &[u8], code: i32) {
    assert_eq!(status.code(), Some(code), "{stderr}");
    assert_eq!(summary_number(stderr, "out "), out.len() as u64, "{stderr}");
    assert!(
        file.starts_with(out),
        "the output holds bytes the file does not: {stderr}"
    );
    eprintln!(
        "outcome: exit {:?}, committed {}, output holds {} of {}: {}",
        status.code(),
        summary_number(stderr, "out "),
        out.len(),
        file.len(),
        stderr.lines().next().unwrap_or("")
    );
    if status.success() {
        assert!(out == file, "{stderr}");
    }
}

fn read_case(fault: Fault, code: i32, expected: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let file = pattern((1 << 20) + 1000, 14);
    let fake = fake(dir.path(), fault, file.clone());
    let (status, stderr, out) = restore(&fake, "vault:/srv/b.tar");
    assert_read_outcome(status, &stderr, &out, &file, code);
    assert!(stderr.contains(expected), "{stderr}");
    out
}

#[test]
fn a_well_behaved_server_reads_back_exactly() {
    let out = read_case(Fault::None, 0, "summary");
    assert_eq!(out.len(), (1 << 20) + 1000);
}

#[test]
fn a_read_answered_with_more_than_asked_is_refused() {
    read_case(
        Fault::ReadMore(3),
        1,
        "protocol error: the server sent 65546 bytes for a read of at most 65536",
    );
}

#[test]
fn a_short_read_in_the_middle_of_a_file_never_reaches_the_output() {
    read_case(
        Fault::ReadShort(3),
        1,
        "desync: a read of 65536 bytes at byte 196608 got 32768",
    );
}

#[test]
fn an_extra_read_reply_never_reaches_the_output() {
    read_case(
        Fault::ReadExtra { at: 3, len: 100 },
        1,
        "desync: a read of 65536 bytes at byte 262144 got 100",
    );
}

#[test]
fn an_extra_full_size_read_reply_fails_the_run_at_the_close() {
    // Junk the size of a block can't be told from data until the end; the
    // run must not succeed.
    let dir = tempfile::tempdir().unwrap();
    let file = pattern((1 << 20) + 1000, 15);
    let fake = fake(
        dir.path(),
        Fault::ReadExtra { at: 3, len: BLOCK },
        file.clone(),
    );
    let (status, stderr, out) = restore(&fake, "vault:/srv/b.tar");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(
        summary_number(&stderr, "out "),
        out.len() as u64,
        "{stderr}"
    );
    assert!(stderr.contains("desync"), "{stderr}");
}

#[test]
fn a_server_that_dies_mid_read_fails_with_what_came() {
    read_case(Fault::DieAtRead(4), 1, "the server closed the connection");
}
