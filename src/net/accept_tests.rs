//! The wait for a sender against real sockets: strangers are ignored,
//! the sender is found, `--raw` takes any bytes as raw, and a header
//! announcing blocks beyond the receiver's memory is refused.

use super::*;
use crate::net::{ListenAddr, PeerAddr};
use std::io::Write;

fn listener() -> (Listener, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let l = super::super::socket::listen(
        &ListenAddr::parse(&format!("127.0.0.1:{port}")).unwrap(),
        &NetSettings::default(),
    )
    .unwrap();
    (l, port)
}

fn connect(port: u16) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port)).unwrap()
}

fn soon() -> Option<Instant> {
    Some(Instant::now() + Duration::from_secs(10))
}

#[test]
fn empty_and_foreign_connections_are_ignored_and_the_sender_is_found() {
    let (l, port) = listener();
    drop(connect(port)); // a health check
    let mut http = connect(port);
    http.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut cut = connect(port);
    cut.write_all(&frame::header(4096)[..9]).unwrap();
    drop(cut);
    let mut sender = connect(port);
    sender.write_all(&frame::header(4096)).unwrap();
    let mut notes = Vec::new();
    let got = await_sender(&l, &NetSettings::default(), None, soon(), |n| notes.push(n))
        .unwrap()
        .unwrap();
    assert_eq!(got.opening, Opening::Framed);
    assert_eq!(got.first, frame::header(4096));
    let all = notes.join("\n");
    assert!(all.contains("closed without sending anything"), "{all}");
    assert!(
        all.contains("did not begin with a tapebuf stream header"),
        "{all}"
    );
    assert!(
        all.contains("closed after 9 bytes, inside a tapebuf stream header"),
        "{all}"
    );
}

#[test]
fn with_raw_allowed_any_bytes_make_a_sender_but_nothing_does_not() {
    let (l, port) = listener();
    drop(connect(port));
    let mut nc = connect(port);
    nc.write_all(b"ustar").unwrap();
    let settings = NetSettings {
        raw: true,
        ..NetSettings::default()
    };
    let mut notes = Vec::new();
    let got = await_sender(&l, &settings, None, soon(), |n| notes.push(n))
        .unwrap()
        .unwrap();
    assert_eq!(got.opening, Opening::Raw);
    assert_eq!(got.first, b"ustar");
    assert!(
        notes[0].contains("closed without sending anything"),
        "{notes:?}"
    );
}

#[test]
fn with_raw_a_stream_that_begins_with_the_header_is_still_raw() {
    let (l, port) = listener();
    let mut recorded = connect(port);
    recorded.write_all(&frame::header(4096)).unwrap();
    let settings = NetSettings {
        raw: true,
        ..NetSettings::default()
    };
    let got = await_sender(&l, &settings, None, soon(), |_| {})
        .unwrap()
        .unwrap();
    assert_eq!(got.opening, Opening::Raw);
    assert!(frame::header(4096).starts_with(&got.first));
}

#[test]
fn a_header_announcing_blocks_larger_than_the_memory_is_ignored() {
    let (l, port) = listener();
    let mut hostile = connect(port);
    hostile.write_all(&frame::header(1 << 31)).unwrap();
    let mut sender = connect(port);
    sender.write_all(&frame::header(1 << 20)).unwrap();
    let settings = NetSettings {
        sender_block_limit_bytes: Some(8 << 20),
        ..NetSettings::default()
    };
    let mut notes = Vec::new();
    let got = await_sender(&l, &settings, None, soon(), |n| notes.push(n))
        .unwrap()
        .unwrap();
    assert_eq!(got.first, frame::header(1 << 20));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("announced blocks of 2147483648 bytes, more than this receiver's memory (-m, 8388608 bytes)"),
        "{notes:?}"
    );
}

#[test]
fn a_plain_header_saying_its_frames_are_unsummed_is_ignored() {
    let (l, port) = listener();
    let mut unchecked = connect(port);
    unchecked
        .write_all(&frame::header_with(4096, frame::UNSUMMED))
        .unwrap();
    let mut sender = connect(port);
    sender.write_all(&frame::header(4096)).unwrap();
    let mut notes = Vec::new();
    let got = await_sender(&l, &NetSettings::default(), None, soon(), |n| notes.push(n))
        .unwrap()
        .unwrap();
    assert_eq!(got.first, frame::header(4096));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("its frames carry no checksums, which only a stream inside TLS may send"),
        "{notes:?}"
    );
}

#[test]
fn a_silent_connection_is_dropped_after_the_stall_limit() {
    let (l, port) = listener();
    let _silent = connect(port);
    let settings = NetSettings {
        stall: Some(Duration::from_secs(1)),
        ..NetSettings::default()
    };
    let mut notes = Vec::new();
    let deadline = Some(Instant::now() + Duration::from_millis(2500));
    let e = await_sender(&l, &settings, None, deadline, |n| notes.push(n)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("no tapebuf stream header within 1 s"),
        "{notes:?}"
    );
}

#[test]
fn a_refused_sender_is_reported_and_the_wait_goes_on() {
    let (l, port) = listener();
    let peer = PeerAddr::parse(&format!("127.0.0.1:{port}")).unwrap();
    let _c = super::super::socket::connect(
        &peer,
        &NetSettings::default(),
        Duration::from_secs(5),
        |_| {},
    )
    .unwrap();
    let settings = NetSettings {
        allow: vec![crate::net::AllowRule::parse("10.9.9.9").unwrap()],
        ..NetSettings::default()
    };
    let mut notes = Vec::new();
    let deadline = Some(Instant::now() + Duration::from_millis(500));
    let e = await_sender(&l, &settings, None, deadline, |n| notes.push(n)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("not covered by --allow"), "{notes:?}");
}
