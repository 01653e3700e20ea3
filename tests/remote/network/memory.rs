//! A sender cannot take the receiver's memory beyond `-m`: a header that
//! announces a block larger than the receiver's memory is refused before
//! anything is allocated for it, as other connections that are not a
//! sender are, and the real sender after it gets through.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use crate::common::spawn_piped;
use crate::network::harness::*;

/// The receiver's `-m`, and the most its peak resident memory may be: the
/// ring and a debug build's own needs, far below one hostile frame.
const MEMORY: &str = "8M";
const PEAK_LIMIT_KIB: u64 = 64 << 10;

/// The peak resident memory of a live process so far (VmHWM), in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

/// A tapebuf stream header announcing `block`-byte blocks, then the head
/// of a frame that long (its checksum is never reached).
fn announcing(block: u32) -> Vec<u8> {
    let mut opening = b"\x89TAPEBUF\x01\0\0\0".to_vec();
    opening.extend_from_slice(&block.to_be_bytes());
    opening.extend_from_slice(&block.to_be_bytes());
    opening.extend_from_slice(&[0u8; 8]);
    opening
}

/// Connects, sends `opening`, then pushes up to `limit` bytes of frame
/// data for as long as the receiver takes them; returns the bytes pushed.
fn hostile_sender(port: u16, opening: Vec<u8>, limit: u64) -> std::thread::JoinHandle<u64> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::thread::spawn(move || {
        stream.write_all(&opening).unwrap();
        let chunk = vec![0u8; MIB];
        let mut pushed = 0u64;
        while pushed < limit && stream.write_all(&chunk).is_ok() {
            pushed += MIB as u64;
        }
        pushed
    })
}

#[test]
fn a_header_announcing_a_block_beyond_the_memory_is_refused_before_any_allocation() {
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "-s", "64k", "-m", MEMORY]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let limit = 1u64 << 30;
    let hostile = hostile_sender(port, announcing(1 << 31), limit);
    let (reader, seen) = stderr_until(&mut receiver, "ignored a connection");
    assert!(
        seen.contains("it announced blocks of 2147483648 bytes, more than this receiver's memory (-m, 8388608 bytes) can hold"),
        "{seen}"
    );
    // The receiver hung up on it long before a gibibyte went through.
    let pushed = hostile.join().unwrap();
    assert!(pushed < limit, "the receiver took {pushed} bytes");
    let peak = peak_kib(receiver.id());
    assert!(peak < PEAK_LIMIT_KIB, "the receiver peaked at {peak} KiB");

    // It is still waiting, and the real sender gets through intact.
    let connect = format!("127.0.0.1:{port}");
    let mut sender = spawn_piped(&["-O", &connect, "--plain", "-s", "64k", "-m", MEMORY, "-q"]);
    let sent = feed(&mut sender, Some(4));
    let sender_err = stderr_of(&mut sender);
    let sender_status = exit_within(&mut sender, Duration::from_secs(60));
    assert_eq!(sender_status.code(), Some(0), "sender: {sender_err}");
    let status = exit_within(&mut receiver, Duration::from_secs(60));
    let err = rest_of(reader, seen);
    assert_eq!(status.code(), Some(0), "receiver: {err}");
    let (sent, received) = (sent.join().unwrap(), received.join().unwrap());
    assert_eq!(sent.0, 4 * MIB as u64);
    assert_eq!(received, sent, "receiver: {err}");
    assert!(err.contains(&format!("out {} bytes", 4 * MIB)), "{err}");
}

#[test]
fn a_tapebuf_sender_with_blocks_larger_than_the_receivers_memory_is_refused_and_both_fail() {
    let mut receiver = spawn_piped(&[
        "-I",
        "127.0.0.1:0",
        "--plain",
        "-m",
        MEMORY,
        "-s",
        "1M",
        "--connect-timeout",
        "5",
    ]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let connect = format!("127.0.0.1:{port}");
    let mut sender = spawn_piped(&["-O", &connect, "--plain", "-s", "16M", "-m", "64M", "-q"]);
    let _fed = feed(&mut sender, Some(64));
    let sender_err = stderr_of(&mut sender);
    let sender_status = exit_within(&mut sender, Duration::from_secs(60));
    assert_eq!(sender_status.code(), Some(1), "sender: {sender_err}");
    assert!(sender_err.contains("receiver 127.0.0.1:"), "{sender_err}");
    let status = exit_within(&mut receiver, Duration::from_secs(60));
    let err = stderr_of(&mut receiver);
    assert_eq!(status.code(), Some(1), "receiver: {err}");
    assert!(
        err.contains("it announced blocks of 16777216 bytes, more than this receiver's memory (-m, 8388608 bytes) can hold; give the receiver a -m of at least the sender's -s"),
        "{err}"
    );
    assert!(err.contains("no sender connected in time"), "{err}");
    assert_eq!(received.join().unwrap().0, 0);
}
