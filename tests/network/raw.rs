//! Raw streams to and from mbuffer: an mbuffer sender is refused without
//! `--raw` and read with a warning with it, and `--raw` sends plain bytes an
//! mbuffer receiver stores exactly.

use std::process::Stdio;
use std::time::Duration;

use crate::common::{self, pattern, run, sha256, spawn_piped};
use crate::harness::*;

/// Sends `input` with mbuffer to `port`; returns mbuffer's status.
fn mbuffer_sends(input: &std::path::Path, port: u16) -> std::process::ExitStatus {
    common::needs::tool("mbuffer", "mbuffer");
    crate::common::command("mbuffer")
        .args([
            "-q",
            "-i",
            input.to_str().unwrap(),
            "-O",
            &format!("127.0.0.1:{port}"),
        ])
        .stderr(Stdio::null())
        .status()
        .expect("running mbuffer (.ci/run installs it)")
}

#[test]
fn an_mbuffer_sender_is_refused_without_raw_and_the_receiver_does_not_succeed() {
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, pattern(MIB, 3)).unwrap();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--connect-timeout", "3"]);
    let received = drain(&mut receiver);
    wait_listening(port);
    // mbuffer's own status depends on when it notices the hang-up.
    let _ = mbuffer_sends(&input, port);
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("ignored a connection from 127.0.0.1:")
            && err.contains("did not begin with a tapebuf stream header (to take a raw stream from mbuffer, nc or socat, start the receiver with --raw)"),
        "{err}"
    );
    assert!(err.contains("no sender connected in time"), "{err}");
    assert_eq!(received.join().unwrap().0, 0);
}

#[test]
fn an_mbuffer_sender_is_read_raw_with_a_warning() {
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let data = pattern(3 * MIB + 77, 9);
    std::fs::write(&input, &data).unwrap();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--raw"]);
    let received = drain(&mut receiver);
    wait_listening(port);
    assert!(mbuffer_sends(&input, port).success());
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    assert!(status.success(), "{err}");
    let (n, hash) = received.join().unwrap();
    assert_eq!((n, hash), (data.len() as u64, sha256(&data)));
    assert!(
        err.contains("no tapebuf header: reading a raw stream (--raw), in which a truncated stream cannot be detected"),
        "{err}"
    );
    assert!(err.contains("raw stream, truncation undetectable"), "{err}");
}

#[test]
fn raw_mode_sends_plain_bytes_an_mbuffer_receiver_stores_exactly() {
    common::needs::tool("mbuffer", "mbuffer");
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let mut mbuffer = crate::common::command("mbuffer")
        .args([
            "-q",
            "-I",
            &format!("127.0.0.1:{port}"),
            "-o",
            output.to_str().unwrap(),
        ])
        .stderr(Stdio::null())
        .spawn()
        .expect("running mbuffer (.ci/run installs it)");
    let data = pattern(2 * MIB + 5, 4);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--raw", "-q"],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut mbuffer, Duration::from_secs(20)).success());
    assert_eq!(std::fs::read(&output).unwrap(), data);
}
