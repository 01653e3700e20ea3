//! A connection cut at every byte, in each direction, through a relay that
//! forwards the first n bytes one way and then closes both connections:
//! during the handshake, in the data, or before the close. The receiver
//! must end with an error, never with a stream, and neither side may hang
//! (every socket has a deadline).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use rustls::{ClientConnection, ServerConnection, StreamOwned};

use super::*;

const LIMIT: Duration = Duration::from_secs(5);

/// Which way the relay cuts.
#[derive(Clone, Copy, Debug)]
enum Way {
    ToReceiver,
    ToSender,
}

/// Copies `from` to `to` until `cut` bytes have passed (or forever when
/// None); returns how many passed.
fn pump(mut from: TcpStream, mut to: TcpStream, cut: Option<usize>) -> usize {
    let mut passed = 0;
    let mut buf = [0u8; 4096];
    loop {
        let room = cut.map_or(buf.len(), |c| (c - passed).min(buf.len()));
        if room == 0 {
            break;
        }
        match from.read(&mut buf[..room]) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
                passed += n;
            }
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
    passed
}

/// One handshake and a small transfer through the relay, cut after `cut`
/// bytes going `way`. Returns what the receiver got, and the bytes that
/// went `way`.
fn through_relay(k: &Sides, way: Way, cut: Option<usize>) -> (Result<Vec<u8>, String>, usize) {
    let (client, _) = sender_config(&k.sender, k.receiver.fingerprint()).unwrap();
    let (server, _) = receiver_config(&k.receiver, allowing(&k.sender, "db1")).unwrap();
    let receiver = TcpListener::bind("127.0.0.1:0").unwrap();
    let relay = TcpListener::bind("127.0.0.1:0").unwrap();
    let (to_receiver, to_relay) = (receiver.local_addr().unwrap(), relay.local_addr().unwrap());
    let serving = thread::spawn(move || {
        let (socket, _) = receiver.accept().unwrap();
        socket.set_read_timeout(Some(LIMIT)).unwrap();
        let conn = ServerConnection::new(server).map_err(|e| e.to_string())?;
        let mut got = Vec::new();
        StreamOwned::new(conn, socket)
            .read_to_end(&mut got)
            .map_err(|e| e.to_string())?;
        Ok(got)
    });
    let relaying = thread::spawn(move || {
        let (outer, _) = relay.accept().unwrap();
        let inner = TcpStream::connect(to_receiver).unwrap();
        let (up, down) = match way {
            Way::ToReceiver => (cut, None),
            Way::ToSender => (None, cut),
        };
        let (o2, i2) = (outer.try_clone().unwrap(), inner.try_clone().unwrap());
        let back = thread::spawn(move || pump(i2, o2, down));
        let forth = pump(outer, inner, up);
        let back = back.join().unwrap();
        match way {
            Way::ToReceiver => forth,
            Way::ToSender => back,
        }
    });
    let socket = TcpStream::connect(to_relay).unwrap();
    socket.set_read_timeout(Some(LIMIT)).unwrap();
    socket.set_write_timeout(Some(LIMIT)).unwrap();
    let conn = ClientConnection::new(client, receiver_name()).unwrap();
    let mut stream = StreamOwned::new(conn, socket);
    // The sender's own result is not asserted: after its Finished it may
    // have written into a connection already cut. It must only not hang.
    let _ = stream.write_all(b"payload").and_then(|()| {
        stream.conn.send_close_notify();
        stream.flush()
    });
    drop(stream);
    let got = serving.join().unwrap();
    (got, relaying.join().unwrap())
}

#[test]
fn a_connection_cut_at_any_byte_either_way_never_gives_the_receiver_a_stream() {
    let k = keys();
    for way in [Way::ToReceiver, Way::ToSender] {
        let (whole, total) = through_relay(&k, way, None);
        assert_eq!(whole.unwrap(), b"payload", "uncut, {way:?}");
        // Every cut short of the whole, the close included, is an error:
        // a stream without its close_notify is a truncated one.
        for cut in 0..total {
            let (got, _) = through_relay(&k, way, Some(cut));
            assert!(
                got.is_err(),
                "cut after {cut} of {total} bytes {way:?}: the receiver got {got:?}"
            );
        }
    }
}
