//! The rmt client against the real GNU rmt server (/usr/sbin/rmt), through
//! an rsh stand-in that runs the server here: round trips, the server's
//! refusals, and the remote shell going wrong in every way we know.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{pattern, sha256, sha256_file, summary_number, tapebuf};

const GNU_RMT: &str = "/usr/sbin/rmt";

fn rsh() -> String {
    format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"))
}

/// tapebuf with the stand-in remote shell and the GNU server.
fn client(args: &[&str]) -> Command {
    common::needs::tool(GNU_RMT, "tar");
    let mut c = tapebuf();
    c.args(["--rsh-command", &rsh(), "--rmt-command", GNU_RMT])
        .args(args)
        .stdin(Stdio::null());
    c
}

fn run(mut command: Command) -> (i32, String, Vec<u8>) {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("running tapebuf");
    let code = status.code().expect("tapebuf ended by a signal");
    (code, String::from_utf8_lossy(&stderr).into_owned(), stdout)
}

fn write_file(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// A script standing in for the remote shell.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// Writes `source` to `target` through the remote shell `rsh`, as a user
/// would; returns the exit status and standard error.
fn send_via(rsh: &str, source: &Path, target: &str, extra: &[&str]) -> (i32, String) {
    let mut command = tapebuf();
    command
        .args(["-i", source.to_str().unwrap(), "-o", target])
        .args(["--rsh-command", rsh])
        .args(extra)
        .stdin(Stdio::null());
    let (code, stderr, _) = run(command);
    (code, stderr)
}

#[test]
fn a_gibibyte_goes_out_to_gnu_rmt_and_comes_back_byte_exact() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    let made = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "head -c 1073741824 /dev/urandom > '{}'",
            source.display()
        ))
        .status()
        .unwrap();
    assert!(made.success());
    let remote = dir.path().join("on-the-tape-host");
    let target = format!("localhost:{}", remote.display());
    let (code, stderr, _) = run(client(&[
        "-i",
        source.to_str().unwrap(),
        "-o",
        &target,
        "-s",
        "256k",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary_number(&stderr, "out "), 1 << 30, "{stderr}");
    let expected = sha256_of_file(&source);
    assert_eq!(sha256_of_file(&remote), expected);
    std::fs::remove_file(&source).unwrap();

    let back = dir.path().join("back");
    let (code, stderr, _) = run(client(&[
        "-i",
        &target,
        "-o",
        back.to_str().unwrap(),
        "-s",
        "256k",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary_number(&stderr, "in "), 1 << 30, "{stderr}");
    assert_eq!(sha256_of_file(&back), expected);
}

/// sha256sum's digest: reading a GiB through the test's own (unoptimised)
/// hasher would take longer than the transfer.
fn sha256_of_file(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn lock_step_and_small_blocks_give_the_same_bytes_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(3 << 20 | 777, 5);
    let source = write_file(dir.path(), "source", &data);
    let remote = dir.path().join("remote");
    let target = format!("localhost:{}", remote.display());
    for window in ["1", "3"] {
        let _ = std::fs::remove_file(&remote);
        let (code, stderr, _) = run(client(&[
            "-i",
            source.to_str().unwrap(),
            "-o",
            &target,
            "-s",
            "10k",
            "--rmt-window",
            window,
        ]));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(sha256_file(&remote), sha256(&data));
        let (code, stderr, stdout) = run(client(&[
            "-i",
            &target,
            "-s",
            "10k",
            "--rmt-window",
            window,
        ]));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(sha256(&stdout), sha256(&data), "window {window}");
    }
}

/// As the only output, the client keeps the ring's own blocks until their
/// replies, and the ring gets that many extra blocks. Here the window is
/// four times the ring, under the tape watermarks (writing resumes at 90%
/// full, reading at 50% empty): if the blocks in flight came out of the
/// ring, the reader and the writer would wait on each other for ever (the
/// watchdog turns that into exit 1). Beside a second output, the client
/// holds copies instead.
#[test]
fn a_window_larger_than_the_ring_finishes_alone_and_beside_a_second_output() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(8 << 20 | 4321, 8);
    let source = write_file(dir.path(), "source", &data);
    let remote = dir.path().join("remote");
    let target = format!("localhost:{}", remote.display());
    let copy = dir.path().join("copy");
    let ring = ["-m", "256k", "-s", "16k", "-P", "90", "-p", "50"];
    for second in [None, Some(&copy)] {
        let _ = std::fs::remove_file(&remote);
        let mut args = vec!["-i", source.to_str().unwrap(), "-o", &target];
        if let Some(path) = second {
            args.extend(["-o", path.to_str().unwrap()]);
        }
        args.extend(ring);
        args.extend(["--rmt-window", "64", "-W", "20"]);
        let (code, stderr, _) = run(client(&args));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(
            summary_number(&stderr, "out "),
            data.len() as u64,
            "{stderr}"
        );
        assert_eq!(sha256_file(&remote), sha256(&data));
        if let Some(path) = second {
            assert_eq!(sha256_file(path), sha256(&data));
        }
    }
}

#[test]
fn an_existing_remote_file_needs_force_or_append() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(100_000, 1));
    let remote = write_file(dir.path(), "remote", b"precious");
    let target = format!("localhost:{}", remote.display());
    let (code, stderr, _) = run(client(&["-i", source.to_str().unwrap(), "-o", &target]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("{target}: already exists; use -f/--force")),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&remote).unwrap(), b"precious");

    let (code, stderr, _) = run(client(&[
        "-i",
        source.to_str().unwrap(),
        "-o",
        &target,
        "--append",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read(&remote).unwrap().len(), 8 + 100_000);

    let (code, stderr, _) = run(client(&[
        "-i",
        source.to_str().unwrap(),
        "-o",
        &target,
        "-f",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read(&remote).unwrap(), pattern(100_000, 1));
}

#[test]
fn a_missing_remote_directory_is_the_servers_message_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(10_000, 2));
    let target = format!("localhost:{}/no/such/dir/x", dir.path().display());
    let (code, stderr, _) = run(client(&["-i", source.to_str().unwrap(), "-o", &target]));
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "tapebuf: -o {target}: cannot open it over rmt: the server replied \"No such file or directory\" (E2)"
        )
    );
}

#[test]
fn dev_full_is_the_end_of_the_medium_e28() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(600_000, 3));
    let (code, stderr, _) = run(client(&[
        "-i",
        source.to_str().unwrap(),
        "-o",
        "localhost:/dev/full",
    ]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "localhost:/dev/full: volume 1 (localhost:/dev/full) is full before its first byte: \
             the server replied \"No space left on device\" (E28, the end of the medium)"
        ),
        "{stderr}"
    );
    assert_eq!(summary_number(&stderr, "out "), 0, "{stderr}");
    assert!(
        stderr.contains("600000 bytes read but not committed"),
        "{stderr}"
    );
}

#[test]
fn a_permission_error_on_the_server_is_reported_as_it_said() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(dir.path(), "source", &pattern(10_000, 4));
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    let target = format!("localhost:{}/x", locked.display());
    let mut command = client(&["-i", source.to_str().unwrap(), "-o", &target]);
    // The server runs as nobody, who may not create files in `locked`.
    command.env("TAPEBUF_TEST_RSH_USER", "65534");
    let (code, stderr, _) = run(command);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the server replied \"Permission denied\" (E13)"),
        "{stderr}"
    );
    assert!(!locked.join("x").exists());
}

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

#[test]
fn the_client_and_tapebuf_rmt_round_trip_and_the_server_confines_paths() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(5 << 20 | 99, 14);
    let source = write_file(dir.path(), "source", &data);
    let allowed = dir.path().join("backups");
    std::fs::create_dir(&allowed).unwrap();
    let server = format!("{} rmt --allow '{}/**'", common::BIN, allowed.display());
    let ours = |args: &[&str]| {
        let mut c = tapebuf();
        c.args(["--rsh-command", &rsh(), "--rmt-command", &server])
            .args(args)
            .stdin(Stdio::null());
        c
    };
    let target = format!("localhost:{}/monday.img", allowed.display());
    let (code, stderr, _) = run(ours(&["-i", source.to_str().unwrap(), "-o", &target]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read(allowed.join("monday.img")).unwrap(), data);
    let (code, stderr, stdout) = run(ours(&["-i", &target]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout == data);

    let outside = format!("localhost:{}/escaped.img", dir.path().display());
    let (code, stderr, _) = run(ours(&["-i", source.to_str().unwrap(), "-o", &outside]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("(E13)"), "{stderr}");
    assert!(!dir.path().join("escaped.img").exists());
}
