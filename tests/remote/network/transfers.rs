//! Whole streams between real tapebufs on loopback: IPv4, IPv6, a
//! dual-stack listener, a name with several addresses, two receivers, and a
//! receiver that starts after its sender.

use std::time::Duration;

use crate::common::spawn_piped;
use crate::network::harness::*;

/// A long stream, in MiB: four times the 32 MiB ring `transfer` gives both
/// ends, so that every block of both rings is filled and drained four
/// times and the sender waits on the receiver's window many times over. A
/// gibibyte showed nothing more and took eight times as long.
const LONG_STREAM_MIB: usize = 128;

#[test]
fn a_gib_arrives_byte_exact_over_ipv4() {
    transfer("127.0.0.1:0", "127.0.0.1", LONG_STREAM_MIB);
}

#[test]
fn a_gib_arrives_byte_exact_over_ipv6() {
    transfer("[::1]:0", "[::1]", LONG_STREAM_MIB);
}

#[test]
fn a_dual_stack_listener_takes_an_ipv4_sender() {
    transfer("0", "127.0.0.1", 16);
}

#[test]
fn a_name_that_resolves_to_several_addresses_reaches_the_listener() {
    // localhost has ::1 and 127.0.0.1; whichever is tried first, the
    // dual-stack listener answers.
    transfer("0", "localhost", 16);
}

#[test]
fn two_receivers_get_the_same_stream() {
    let mut r1 = spawn_piped(&["-I", "127.0.0.1:0", "--plain"]);
    let mut r2 = spawn_piped(&["-I", "[::1]:0", "--plain"]);
    let (p1, p2) = (listening_port(&mut r1), listening_port(&mut r2));
    let (got1, got2) = (drain(&mut r1), drain(&mut r2));
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{p1}"),
        "-O",
        &format!("[::1]:{p2}"),
        "--plain",
    ]);
    let sent = feed(&mut sender, Some(64));
    let err = stderr_of(&mut sender);
    assert!(sender.wait().unwrap().success(), "{err}");
    assert!(r1.wait().unwrap().success());
    assert!(r2.wait().unwrap().success());
    let sent = sent.join().unwrap();
    assert_eq!(got1.join().unwrap(), sent);
    assert_eq!(got2.join().unwrap(), sent);
}

#[test]
fn a_receiver_started_after_the_sender_is_reached_by_the_retries() {
    // Held, not listened on, until the receiver takes it over.
    let (_held, port) = refusing_port();
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{port}"),
        "--plain",
        "--connect-timeout",
        "60",
    ]);
    let sent = feed(&mut sender, Some(8));
    // The sender says when its first attempt was refused; only then does
    // the receiver start.
    let (reader, seen) = stderr_until(&mut sender, "retrying for up to 60 s");
    assert!(seen.contains("Connection refused"), "{seen}");
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--plain"]);
    let received = drain(&mut receiver);
    let status = exit_within(&mut sender, Duration::from_secs(30));
    let err = rest_of(reader, seen);
    assert!(status.success(), "{err}");
    assert!(receiver.wait().unwrap().success());
    assert_eq!(received.join().unwrap(), sent.join().unwrap());
}
