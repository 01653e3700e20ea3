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
//!
//! The cases are grouped by what goes wrong: `writes` (replies to a
//! backup), `stalls` (a server that stands still, ended by a timeout, the
//! watchdog or a signal) and `reads` (replies to a restore); the helpers
//! here start tapebuf against the fake and check what every case shares.

use crate::common;

mod fake;
mod reads;
mod stalls;
mod writes;

use std::process::{Child, ExitStatus, Stdio};

use fake::{fake, Fake, Fault};

use common::{pattern, summary_number, tapebuf};

const BLOCK: usize = 64 << 10;
const MIB: usize = 1 << 20;

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
