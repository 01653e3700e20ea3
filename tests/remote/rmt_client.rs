//! The rmt client against the real GNU rmt server (/usr/sbin/rmt), through
//! an rsh stand-in that runs the server here: round trips, the server's
//! refusals, and a round trip through `tapebuf rmt`. The remote shell
//! going wrong, and the options that choose it, are in
//! rmt_client_remote_shell.rs.

use crate::common;
pub mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use common::{pattern, sha256, sha256_file, summary_number, tapebuf};
use support::{client, rsh, run, write_file};

/// A long stream through GNU rmt: four times the 16 MiB ring (`-m 16M`),
/// so that every block is reused four times each way and the window of
/// requests in flight turns over many times. A gibibyte through the
/// default 128 MiB ring showed nothing more and took sixteen times as long.
const LONG_STREAM_BYTES: u64 = 64 << 20;

#[test]
fn a_gibibyte_goes_out_to_gnu_rmt_and_comes_back_byte_exact() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    let made = crate::common::command("sh")
        .arg("-c")
        .arg(format!(
            "head -c {LONG_STREAM_BYTES} /dev/urandom > '{}'",
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
        "-m",
        "16M",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        summary_number(&stderr, "out "),
        LONG_STREAM_BYTES,
        "{stderr}"
    );
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
        "-m",
        "16M",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        summary_number(&stderr, "in "),
        LONG_STREAM_BYTES,
        "{stderr}"
    );
    assert_eq!(sha256_of_file(&back), expected);
}

/// sha256sum's digest: reading a long stream through the test's own
/// (unoptimised) hasher would take longer than the transfer.
fn sha256_of_file(path: &Path) -> String {
    let out = crate::common::command("sha256sum")
        .arg(path)
        .output()
        .unwrap();
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
