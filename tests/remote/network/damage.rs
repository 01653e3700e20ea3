//! Damage in transit: a relay flips one byte of the framed stream, and both
//! ends fail naming the frame it was in.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::common::spawn_piped;
use crate::network::harness::*;

/// Relays one connection from `from` to `to`, flipping the byte at `flip`
/// of the sender's stream, and carries the receiver's reply back.
fn damaging_relay(from: TcpListener, to: u16, flip: usize) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let (mut a, _) = from.accept().unwrap();
        // The receiver said it listens before the relay was started.
        let mut b =
            TcpStream::connect(("127.0.0.1", to)).expect("relay: connecting to the receiver");
        let (mut a_back, mut b_back) = (a.try_clone().unwrap(), b.try_clone().unwrap());
        let back = std::thread::spawn(move || {
            let _ = std::io::copy(&mut b_back, &mut a_back);
            let _ = a_back.shutdown(std::net::Shutdown::Write);
        });
        let mut buf = vec![0u8; 64 * 1024];
        let mut at = 0usize;
        loop {
            let n = match a.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if (at..at + n).contains(&flip) {
                buf[flip - at] ^= 0x01;
            }
            at += n;
            if b.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = b.shutdown(std::net::Shutdown::Write);
        let _ = back.join();
    })
}

#[test]
fn damage_in_transit_fails_both_ends_and_names_the_frame() {
    let relay = TcpListener::bind("127.0.0.1:0").unwrap();
    let relay_port = relay.local_addr().unwrap().port();
    // Header 16 bytes, then frames of 12 + 65536 bytes: this byte is in
    // the third frame's data, which starts at stream byte 131072.
    let flip = 16 + 2 * (12 + 65536) + 12 + 100;
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "-s", "64k"]);
    let port = listening_port(&mut receiver);
    let _received = drain(&mut receiver);
    let relay = damaging_relay(relay, port, flip);
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{relay_port}"),
        "--plain",
        "-s",
        "64k",
    ]);
    let _ = feed(&mut sender, Some(1));
    let sender_status = exit_within(&mut sender, Duration::from_secs(20));
    let sender_err = stderr_of(&mut sender);
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    relay.join().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("the 65536-byte frame at byte 131072 fails its checksum"),
        "{err}"
    );
    assert_eq!(sender_status.code(), Some(1), "{sender_err}");
    assert!(
        sender_err.contains("the receiver found the stream damaged at byte 131072"),
        "{sender_err}"
    );
}
