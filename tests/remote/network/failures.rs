//! Peers that end badly: a killed or stalled sender, a raw sender stopped
//! early, a killed receiver, a sender `--allow` refuses, and a port nobody
//! listens on. Each fails the other side in a way that says why.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use crate::common::{pattern, spawn_piped};
use crate::network::harness::*;

#[test]
fn a_killed_sender_fails_the_receiver_with_the_bytes_it_got() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "--timeout", "10"]);
    let port = listening_port(&mut receiver);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--plain", "-q"]);
    let _feeder = feed(&mut sender, None);
    // Once data flows, kill the sender mid-stream.
    let mut got = vec![0u8; 4 * MIB];
    stdout.read_exact(&mut got).unwrap();
    kill(&sender, "-KILL");
    let _ = sender.wait();
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = exit_within(&mut receiver, Duration::from_secs(10));
    let err = stderr_of(&mut receiver);
    assert_eq!(status.code(), Some(1), "{err}");
    let total = (got.len() + rest.len()) as u64;
    assert!(
        err.contains(&format!(
            "the connection ended after {total} bytes without tapebuf's end-of-stream trailer"
        )),
        "{total}: {err}"
    );
    assert!(err.contains("INPUT FAILED"), "{err}");
}

#[test]
fn a_raw_sender_stopped_early_resets_the_connection_so_a_raw_receiver_fails() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--raw"]);
    let port = listening_port(&mut receiver);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--raw", "-q"]);
    let _feeder = feed(&mut sender, None);
    let mut got = vec![0u8; 4 * MIB];
    stdout.read_exact(&mut got).unwrap();
    kill(&sender, "-INT");
    let status = sender.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT));
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    let status = exit_within(&mut receiver, Duration::from_secs(10));
    let err = stderr_of(&mut receiver);
    // Without framing nothing can be proved, but a reset is no clean end.
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("Connection reset by peer"), "{err}");
}

#[test]
fn a_stalled_sender_fails_the_receiver_after_the_timeout() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "--timeout", "2"]);
    let port = listening_port(&mut receiver);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--plain", "-q"]);
    let mut stdin = sender.stdin.take().unwrap();
    stdin.write_all(&pattern(MIB, 3)).unwrap();
    // Once the first block has come through, the sender stops, but lives:
    // only the timeout can end the receiver's wait.
    let mut first = vec![0u8; 256 * 1024];
    stdout.read_exact(&mut first).unwrap();
    kill(&sender, "-STOP");
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    kill(&sender, "-KILL");
    let _ = sender.wait();
    let total = first.len() + rest.len();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("the peer sent nothing for 2 s (--timeout)"),
        "{err}"
    );
    assert!(
        err.contains(&format!("read failed at byte {total}")),
        "{err}"
    );
}

#[test]
fn a_killed_receiver_fails_the_sender() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain"]);
    let port = listening_port(&mut receiver);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{port}"),
        "--plain",
        "--timeout",
        "10",
    ]);
    let _feeder = feed(&mut sender, None);
    let mut got = vec![0u8; 4 * MIB];
    stdout.read_exact(&mut got).unwrap();
    kill(&receiver, "-KILL");
    let _ = receiver.wait();
    let status = exit_within(&mut sender, Duration::from_secs(15));
    let err = stderr_of(&mut sender);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("FAILED receiver 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(err.contains("bytes read but not committed"), "{err}");
}

#[test]
fn a_sender_outside_allow_is_refused_and_the_listener_keeps_waiting() {
    // Dual stack: the IPv4 sender is refused, the IPv6 one allowed.
    let mut receiver = spawn_piped(&["-I", "0", "--plain", "--allow", "::1"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let mut intruder = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{port}"),
        "--plain",
        "--timeout",
        "10",
    ]);
    let _ = feed(&mut intruder, Some(1));
    let status = exit_within(&mut intruder, Duration::from_secs(20));
    let intruder_err = stderr_of(&mut intruder);
    assert_eq!(status.code(), Some(1), "{intruder_err}");
    let (reader, seen) = stderr_until(&mut receiver, "refused a connection from 127.0.0.1:");
    assert!(seen.contains("not covered by --allow"), "{seen}");

    let mut sender = spawn_piped(&["-O", &format!("[::1]:{port}"), "--plain"]);
    let sent = feed(&mut sender, Some(4));
    assert!(
        sender.wait().unwrap().success(),
        "{}",
        stderr_of(&mut sender)
    );
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = rest_of(reader, seen);
    assert!(status.success(), "{err}");
    assert_eq!(received.join().unwrap(), sent.join().unwrap());
}

#[test]
fn a_port_nobody_listens_on_fails_within_the_connect_timeout() {
    let (_held, port) = refusing_port();
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{port}"),
        "--plain",
        "--connect-timeout",
        "1",
    ]);
    drop(sender.stdin.take());
    let status = exit_within(&mut sender, Duration::from_secs(10));
    let err = stderr_of(&mut sender);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "tapebuf: -O 127.0.0.1:{port}: cannot connect within 1 s"
        )),
        "{err}"
    );
    assert!(err.contains("Connection refused"), "{err}");
}
