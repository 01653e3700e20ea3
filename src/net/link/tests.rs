//! Opening a private stream between the two ends' own functions, in one
//! process over loopback: what each end's socket is left with.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use super::*;
use crate::keys::KeyPair;
use crate::net::frame;
use crate::net::socket::Timed;
use crate::net::tls::{Ktls, TlsSettings};
use crate::net::NetSettings;

/// Each end's key settings, with the key files in `dir`.
fn settings(dir: &std::path::Path) -> (TlsSettings, TlsSettings) {
    let (rx, tx) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    rx.write_new(&dir.join("rx.key")).unwrap();
    tx.write_new(&dir.join("tx.key")).unwrap();
    let receiver = TlsSettings {
        key: dir.join("rx.key"),
        pin: None,
        pinned: Vec::new(),
        allow: vec![(tx.fingerprint(), "db1".into())],
        allow_file: None,
        pki: None,
        ktls: Ktls::Auto,
    };
    let sender = TlsSettings {
        key: dir.join("tx.key"),
        pin: Some(rx.fingerprint()),
        pinned: Vec::new(),
        allow: Vec::new(),
        allow_file: None,
        pki: None,
        ktls: Ktls::Auto,
    };
    (receiver, sender)
}

#[test]
fn a_receiver_leaves_the_handshake_with_no_time_limit_on_its_socket() {
    let dir = tempfile::tempdir().unwrap();
    let (receiver, sender) = settings(dir.path());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let sending = std::thread::spawn(move || {
        let timed = Timed::new(TcpStream::connect(addr).unwrap(), &NetSettings::default());
        let limit = Duration::from_secs(10);
        let (mut link, _) = open_as_sender(timed, &sender, limit, None).unwrap();
        link.write_all(&frame::header(4096)).unwrap();
        link.flush().unwrap();
        link
    });
    let (mut stream, _) = listener.accept().unwrap();
    let limit = Duration::from_secs(10);
    let (allowed, header) = open_as_receiver(&mut stream, &[], &receiver, (limit, limit)).unwrap();
    let _link = sending.join().unwrap();
    assert_eq!(allowed.name, "db1");
    assert_eq!(header, frame::header(4096));
    // Without --timeout a quiet sender is waited for as long as it takes.
    assert_eq!(stream.read_timeout().unwrap(), None);
    assert_eq!(stream.write_timeout().unwrap(), None);
}
