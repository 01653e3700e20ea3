//! The rmt client when the remote shell goes wrong in every way we know
//! (it fails, prints a banner, runs a server that lies, never answers or
//! sends an endless error line),
//! and how the remote shell, the server and a local name with a colon are
//! chosen from the environment and the options.

use crate::common;
use crate::rmt_client::support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{pattern, tapebuf};
use support::{rsh, run, script, send_via, write_file, GNU_RMT};

/// Sends `source_len` bytes to `target` through a scripted remote end
/// (`body` is the script's shell code) and expects exit 1 with `expected`
/// in standard error.
fn refused_by_scripted_remote(
    body: &str,
    source_len: usize,
    target: &str,
    extra: &[&str],
    expected: &str,
) {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(source_len, 5));
    let ssh = script(dir.path(), "ssh", body);
    let (code, stderr) = send_via(&ssh, &source, target, extra);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn a_remote_shell_that_fails_is_quoted_with_its_exit_status() {
    refused_by_scripted_remote(
        "echo 'ssh: connect to host vault port 22: Connection refused' >&2; exit 255",
        10_000,
        "vault:/dev/nst0",
        &[],
        "exited with status 255: \"ssh: connect to host vault port 22: Connection refused\"",
    );
}

#[test]
fn a_login_banner_before_the_server_is_an_error_that_quotes_it() {
    refused_by_scripted_remote(
        &format!("echo 'Welcome to vault, the tape host'; exec {GNU_RMT}"),
        10_000,
        "vault:/dev/null",
        &[],
        "the remote end answered \"Welcome to vault, the tape host\", which is not an rmt reply",
    );
}

#[test]
fn a_short_write_count_is_an_error_with_the_byte_offset() {
    // A server that opens, then says it wrote only 100 bytes of the first
    // block, and hangs up.
    refused_by_scripted_remote(
        "read open; read flags; echo A0; read w; echo A100",
        1 << 20,
        "vault:/dev/nst0",
        &["-s", "64k"],
        "the server wrote only 100 of a 65536-byte block at byte 0 (a short W count)",
    );
}

/// Runs `command` to its end; returns its exit code, standard error, and
/// peak resident memory in KiB. The peak is measured by GNU time, a small
/// process that forks the command: a peak taken from this test process's
/// own wait4 would count the test process's memory too, since a child's
/// peak includes what it held between fork and exec (the kernel keeps it
/// across exec), and this process runs every test of its binary at once.
fn run_measured(command: std::process::Command) -> (i32, String, i64) {
    let time = crate::common::needs::tool("/usr/bin/time", "time");
    let dir = tempfile::tempdir().unwrap();
    let peak = dir.path().join("peak");
    let output = crate::common::command(time)
        .args(["-f", "%M", "-o", peak.to_str().unwrap()])
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("running tapebuf under GNU time");
    let said = std::fs::read_to_string(&peak).unwrap();
    // GNU time says "Command exited with non-zero status N" first.
    let kib = said.lines().last().and_then(|l| l.trim().parse().ok());
    let code = output.status.code().expect("tapebuf ended by a signal");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (
        code,
        stderr,
        kib.unwrap_or_else(|| panic!("no peak in {said:?}")),
    )
}

#[test]
fn a_400_mb_error_line_is_a_protocol_error_read_no_further() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(100_000, 12));
    let ssh = script(
        dir.path(),
        "ssh",
        "read open; read flags; printf 'E5\\n'; head -c 400000000 /dev/zero | tr '\\0' x; echo",
    );
    let mut command = tapebuf();
    command
        .args(["-i", source.to_str().unwrap(), "-o", "vault:/dev/nst0"])
        .args(["--rsh-command", &ssh])
        .stdin(Stdio::null());
    let (code, stderr, peak_kib) = run_measured(command);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("-o vault:/dev/nst0: cannot open it over rmt: protocol error: the server sent an error message longer than 4096 bytes (no end of line in its first 4097 bytes), longer than any rmt reply"),
        "{stderr}"
    );
    assert!(peak_kib < 64 << 10, "the client peaked at {peak_kib} KiB");
}

#[test]
fn a_server_that_never_answers_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(10_000, 8));
    let started = Instant::now();
    let (code, stderr) = send_via(
        &rsh(),
        &source,
        "vault:/dev/nst0",
        &["--rmt-command", "sleep 600", "--timeout", "2"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("no reply from the rmt server for 2 s (--timeout)"),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn rsh_and_rmt_come_from_the_environment_when_no_flag_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(200_000, 9);
    let source = write_file(dir.path(), "source", &data);
    let remote = dir.path().join("remote");
    let mut command = tapebuf();
    command
        .args([
            "-i",
            source.to_str().unwrap(),
            "-o",
            &format!("backup@localhost:{}", remote.display()),
        ])
        .env("RSH", rsh())
        .env("RMT", GNU_RMT)
        .stdin(Stdio::null());
    let (code, stderr, _) = run(command);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read(&remote).unwrap(), data);
}

#[test]
fn force_local_keeps_a_name_with_a_colon_local() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(5000, 10);
    let mut command = tapebuf();
    command
        .current_dir(dir.path())
        .args(["-o", "vault:archive.tar", "--force-local"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let feeder = common::feed_stdin(&mut child, data.clone(), common::Feed::Fast);
    let (status, stderr) = common::finish(&mut child);
    feeder.join().unwrap();
    assert!(status.success(), "{stderr}");
    assert_eq!(
        std::fs::read(dir.path().join("vault:archive.tar")).unwrap(),
        data
    );
}

#[test]
fn rmt_options_that_cannot_apply_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-o", "vault:/dev/nst0", "--rmt-window", "0"],
            "tapebuf: --rmt-window: must be 1 (lock-step) to 4096, not 0",
        ),
        (
            &["-o", "out.tar", "--rsh-command", "ssh"],
            "tapebuf: --rsh-command: no input or output is remote (HOST:PATH)",
        ),
        (
            &["-o", "vault:/dev/nst0", "-D", "1G"],
            "tapebuf: -D/--volume-size: does not apply to a remote output (HOST:PATH): a remote tape changes volumes at the end of the medium only",
        ),
        (
            &["-o", "vault:", "-s", "64k"],
            "tapebuf: -o/--output: vault:: the remote name has no path after the ':'",
        ),
        (
            &["-o", "vault:/dev/nst0", "--rmt-flavor", "sysv"],
            "tapebuf: invalid value 'sysv' for '--rmt-flavor <FLAVOR>'; one of gnu, bsd (see 'tapebuf --help')",
        ),
    ];
    for (args, message) in cases {
        let mut command = tapebuf();
        command.args(*args).stdin(Stdio::null());
        let (code, stderr, _) = run(command);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.trim(), *message, "{args:?}");
    }
}
