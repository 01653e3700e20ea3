use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

use rustls::{ClientConnection, ServerConnection, StreamOwned};

use super::*;

struct Sides {
    receiver: KeyPair,
    sender: KeyPair,
}

fn keys() -> Sides {
    Sides {
        receiver: KeyPair::generate().unwrap(),
        sender: KeyPair::generate().unwrap(),
    }
}

fn allowing(pair: &KeyPair, name: &str) -> AllowList {
    let mut list = AllowList::default();
    list.add(pair.fingerprint(), name.into(), "test").unwrap();
    list
}

/// Runs a handshake and a 1 MiB transfer on loopback; each side's result
/// (the bytes the receiver got) and what each check saw.
fn exchange(
    sender: Arc<ClientConfig>,
    receiver: Arc<ServerConfig>,
) -> (Result<(), String>, Result<Vec<u8>, String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = thread::spawn(move || {
        let (socket, _) = listener.accept().unwrap();
        let conn = ServerConnection::new(receiver).map_err(|e| e.to_string())?;
        let mut stream = StreamOwned::new(conn, socket);
        let mut got = Vec::new();
        stream.read_to_end(&mut got).map_err(|e| e.to_string())?;
        Ok(got)
    });
    let socket = TcpStream::connect(addr).unwrap();
    let conn = ClientConnection::new(sender, receiver_name()).unwrap();
    let mut stream = StreamOwned::new(conn, socket);
    let sent = stream
        .write_all(&vec![7u8; 1 << 20])
        .and_then(|()| {
            stream.conn.send_close_notify();
            stream.flush()
        })
        .map_err(|e| e.to_string());
    drop(stream);
    (sent, serving.join().unwrap())
}

#[test]
fn peers_with_the_right_keys_agree_and_each_names_the_other() {
    let k = keys();
    let (client, sender_saw) = sender_config(&k.sender, k.receiver.fingerprint()).unwrap();
    let (server, receiver_saw) = receiver_config(&k.receiver, allowing(&k.sender, "db1")).unwrap();
    let (sent, got) = exchange(client, server);
    sent.unwrap();
    assert_eq!(got.unwrap(), vec![7u8; 1 << 20]);
    assert_eq!(
        receiver_saw.verdict(),
        Some(Verdict::Accepted {
            key: k.sender.fingerprint(),
            name: "db1".into()
        })
    );
    assert!(
        matches!(sender_saw.verdict(), Some(Verdict::Accepted { key, .. }) if key == k.receiver.fingerprint())
    );
}

#[test]
fn a_sender_whose_key_is_not_allowed_is_refused_before_any_byte_is_read() {
    let k = keys();
    let stranger = KeyPair::generate().unwrap();
    let (client, _) = sender_config(&stranger, k.receiver.fingerprint()).unwrap();
    let (server, receiver_saw) = receiver_config(&k.receiver, allowing(&k.sender, "db1")).unwrap();
    let (_, got) = exchange(client, server);
    assert!(
        got.is_err(),
        "the receiver read {:?} bytes",
        got.map(|g| g.len())
    );
    assert_eq!(
        receiver_saw.verdict(),
        Some(Verdict::Refused {
            key: stranger.fingerprint(),
            why: "the sender's key is not allowed".into()
        })
    );
}

#[test]
fn a_receiver_that_is_not_the_pinned_one_is_refused_by_the_sender() {
    let k = keys();
    let impostor = KeyPair::generate().unwrap();
    let (client, sender_saw) = sender_config(&k.sender, k.receiver.fingerprint()).unwrap();
    let (server, _) = receiver_config(&impostor, allowing(&k.sender, "db1")).unwrap();
    let (sent, got) = exchange(client, server);
    assert!(sent.is_err());
    assert!(got.is_err());
    match sender_saw.verdict() {
        Some(Verdict::Refused { key, why }) => {
            assert_eq!(key, impostor.fingerprint());
            assert!(why.contains(&k.receiver.fingerprint().to_string()), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

#[path = "cut_tests.rs"]
mod cut;
