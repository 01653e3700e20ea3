//! Raw streams to and from mbuffer: an mbuffer sender is refused without
//! `--raw` and read with a warning with it, and `--raw` sends plain bytes an
//! mbuffer receiver stores exactly. A `--raw` receiver takes every stream
//! as raw, even one that begins with tapebuf's header, and a framed sender
//! that a raw receiver never answers says to send with `--raw`.

use std::process::Stdio;
use std::time::Duration;

use crate::common::{self, pattern, run, sha256, spawn_piped};
use crate::network::harness::*;

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

/// Starts an mbuffer receiver storing to `output`, on a port found free
/// (mbuffer cannot pick its own; see `foreign_listener`), and returns it
/// and its port once it listens.
fn mbuffer_receives(output: &std::path::Path) -> (std::process::Child, u16) {
    common::needs::tool("mbuffer", "mbuffer");
    common::ports::foreign_listener(|port| {
        crate::common::command("mbuffer")
            .args(["-q", "-I", &format!("127.0.0.1:{port}")])
            .args(["-o", output.to_str().unwrap()])
            .stderr(Stdio::piped())
            .spawn()
            .expect("running mbuffer (.ci/run installs it)")
    })
}

#[test]
fn an_mbuffer_sender_is_refused_without_raw_and_the_receiver_does_not_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, pattern(MIB, 3)).unwrap();
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "--connect-timeout", "3"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
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
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let data = pattern(3 * MIB + 77, 9);
    std::fs::write(&input, &data).unwrap();
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--raw"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
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
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let (mut mbuffer, port) = mbuffer_receives(&output);
    let data = pattern(2 * MIB + 5, 4);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--raw", "-q"],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut mbuffer, Duration::from_secs(20)).success());
    assert_eq!(std::fs::read(&output).unwrap(), data);
}

/// What a framed `tapebuf -O` sends, recorded by a listener in the test
/// that keeps every byte, never replies, and closes at the sender's end.
/// Returns the recording and the sender's exit code and stderr.
fn record_framed_stream(data: Vec<u8>) -> (Vec<u8>, Option<i32>, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let recorder = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut recording = Vec::new();
        std::io::Read::read_to_end(&mut conn, &mut recording).unwrap();
        recording
    });
    let r = run(
        &[
            "-O",
            &format!("127.0.0.1:{port}"),
            "--plain",
            "-s",
            "64k",
            "-q",
        ],
        data,
    );
    (recorder.join().unwrap(), r.status.code(), r.stderr)
}

#[test]
fn a_raw_stream_that_begins_with_tapebufs_header_arrives_as_the_bytes_sent() {
    let data = pattern(MIB + 333, 21);
    let (recording, _, _) = record_framed_stream(data.clone());
    assert!(recording.starts_with(b"\x89TAPEBUF"));
    assert!(recording.len() > data.len());
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--raw"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let sender = run(
        &["-O", &format!("127.0.0.1:{port}"), "--raw", "-q"],
        recording.clone(),
    );
    assert_eq!(sender.status.code(), Some(0), "sender: {}", sender.stderr);
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    assert_eq!(status.code(), Some(0), "receiver: {err}");
    let (n, hash) = received.join().unwrap();
    assert_eq!((n, hash), (recording.len() as u64, sha256(&recording)));
    assert!(
        err.contains("the stream begins with tapebuf's header, but --raw takes every stream as raw: it is kept as sent, framing and all (a tapebuf sender to a --raw receiver sends with --raw too)"),
        "{err}"
    );
    assert!(
        err.contains(&format!("out {} bytes", recording.len())),
        "{err}"
    );
}

const RAW_HINT: &str = "If the receiver is mbuffer, nc, socat or tapebuf -I --raw, it takes raw bytes and stores tapebuf's framing as data: send with --raw";

#[test]
fn a_sender_whose_confirmation_never_comes_says_to_send_with_raw() {
    let data = pattern(MIB, 22);
    let (recording, code, err) = record_framed_stream(data.clone());
    assert_eq!(code, Some(1), "{err}");
    let confirmed = format!(
        "the receiver closed the connection without confirming the end of the stream; it may not have all {} bytes. {RAW_HINT}",
        data.len()
    );
    assert!(err.contains(&confirmed), "{err}");
    assert!(recording.starts_with(b"\x89TAPEBUF"));
}

#[test]
fn a_framed_sender_into_an_mbuffer_receiver_fails_naming_raw() {
    common::needs::tool("mbuffer", "mbuffer");
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let (mut mbuffer, port) = mbuffer_receives(&output);
    let data = pattern(2 * MIB, 23);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--plain", "-q"],
        data.clone(),
    );
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    assert!(r.stderr.contains(RAW_HINT), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{} bytes", data.len())),
        "{}",
        r.stderr
    );
    let status = exit_within(&mut mbuffer, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0));
    // mbuffer stored tapebuf's framing as data, as the hint says.
    let stored = std::fs::read(&output).unwrap();
    assert!(stored.starts_with(b"\x89TAPEBUF"));
    assert!(stored.len() > data.len());
}
