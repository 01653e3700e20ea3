//! `tapebuf rmt` under signals mid-session: SIGUSR1 is logged and the
//! session completes; SIGTERM ends it, logged, and by the signal.

use crate::common;
use crate::rmt_server::support;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Stdio;

use support::Scratch;

// ---- signals --------------------------------------------------------------

/// A server logging to `rmt.log`, mid-session: `allowed/a.tar` is open
/// for writing and holds the first record, "abcdef".
fn session_with_a_record_written() -> (
    Scratch,
    PathBuf,
    std::process::Child,
    std::process::ChildStdin,
    std::process::ChildStdout,
) {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let log = s.path("rmt.log");
    let mut args = s.allow_args();
    args.extend(["--log".into(), log.display().to_string()]);
    let mut child = common::tapebuf()
        .arg("rmt")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    write!(stdin, "O{f}\n577 O_WRONLY|O_CREAT|O_TRUNC\nW6\nabcdef").unwrap();
    stdin.flush().unwrap();
    let mut replies = [0u8; 6];
    stdout.read_exact(&mut replies).unwrap();
    assert_eq!(&replies, b"A0\nA6\n");
    (s, log, child, stdin, stdout)
}

#[test]
fn a_session_survives_sigusr1_logs_it_and_completes() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let (s, log, mut child, mut stdin, mut stdout) = session_with_a_record_written();
    common::wait_until_caught(child.id(), Signal::SIGUSR1);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGUSR1).unwrap();
    // The signal was answered once the log says so.
    common::wait::until(
        std::time::Duration::from_secs(10),
        "SIGUSR1 in the log",
        || {
            std::fs::read_to_string(&log)
                .unwrap()
                .contains("SIGUSR1")
                .then_some(())
        },
    );
    write!(stdin, "W3\nghiC\n").unwrap();
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let (status, stderr) = common::finish(&mut child);
    assert_eq!(
        status.signal(),
        None,
        "killed by a signal; stderr {stderr:?}"
    );
    assert_eq!(status.code(), Some(0), "stderr {stderr:?}");
    assert_eq!(rest, b"A3\nA0\n");
    assert_eq!(stderr, "", "stderr stays clean");
    assert_eq!(
        std::fs::read(s.path("allowed/a.tar")).unwrap(),
        b"abcdefghi"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("SIGUSR1: no status line"), "{text}");
    assert!(text.contains("end of input"), "{text}");
}

#[test]
fn sigterm_ends_a_session_logged_and_by_the_signal() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let (s, log, mut child, stdin, _stdout) = session_with_a_record_written();
    common::wait_until_caught(child.id(), Signal::SIGTERM);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let (status, stderr) = common::finish(&mut child);
    drop(stdin);
    assert_eq!(status.signal(), Some(libc::SIGTERM), "stderr {stderr:?}");
    assert_eq!(stderr, "", "stderr stays clean");
    assert_eq!(std::fs::read(s.path("allowed/a.tar")).unwrap(), b"abcdef");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("session ended by SIGTERM"), "{text}");
}
