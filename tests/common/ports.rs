//! Ports for network tests, without races between tests running at once.
//! A tapebuf receiver is started with `-I ...:0`: it binds any free port
//! itself and says which (`listening_port`). A listener in the test keeps
//! its `TcpListener` bound and passes its port. Only a foreign program
//! that must be told a port to listen on (mbuffer's `-I`) is given one
//! found free (`foreign_listener`), and is restarted when it was taken.

use std::io::Read;
use std::net::TcpListener;
use std::process::{Child, ChildStderr};
use std::sync::mpsc;
use std::time::Duration;

use super::wait;

/// How long a listener may take to bind and say so.
const LISTEN_LIMIT: Duration = Duration::from_secs(30);

/// What tapebuf says once `-I` with port 0 is bound.
const LISTENING: &str = "tapebuf: -I: listening on ";

/// The port a tapebuf started with `-I` port 0 bound, read from its line
/// `tapebuf: -I: listening on ADDR:PORT`. The child's stderr is read a
/// byte at a time up to that line (nothing is buffered past it) and then
/// put back, so the test reads the rest of stderr as if that line had not
/// been there. Fails the test when the line does not come within 30 s.
#[track_caller]
pub fn listening_port(child: &mut Child) -> u16 {
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_to_listening_line(stderr));
    });
    let (stderr, said) = match rx.recv_timeout(LISTEN_LIMIT) {
        Ok(read) => read,
        Err(_) => {
            let _ = child.kill();
            panic!("tapebuf did not say where it listens within {LISTEN_LIMIT:?}");
        }
    };
    child.stderr = Some(stderr);
    said.lines()
        .find_map(port_said)
        .unwrap_or_else(|| panic!("no '{LISTENING}ADDR:PORT' line in {said:?}"))
}

/// The port in a line `tapebuf: -I: listening on ADDR:PORT`, if it is one.
pub fn port_said(line: &str) -> Option<u16> {
    let addr = line.strip_prefix(LISTENING)?;
    addr.rsplit_once(':')?.1.trim_end().parse().ok()
}

/// A port bound by the test and not listened on: a connection to it is
/// refused, and no other test can take it while the socket lives. With
/// SO_REUSEADDR, so that a tapebuf (which sets it too) started later can
/// still bind and listen on the port.
pub fn refusing_port() -> (socket2::Socket, u16) {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    socket.set_reuse_address(true).unwrap();
    let any: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
    socket.bind(&any.into()).unwrap();
    let port = socket.local_addr().unwrap().as_socket().unwrap().port();
    (socket, port)
}

/// Reads `stderr` up to and including the listening line (or its end).
fn read_to_listening_line(mut stderr: ChildStderr) -> (ChildStderr, String) {
    let mut said = Vec::new();
    let mut byte = [0u8];
    while stderr.read(&mut byte).unwrap_or(0) == 1 {
        said.push(byte[0]);
        let line_start = said[..said.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        if byte[0] == b'\n' && said[line_start..].starts_with(LISTENING.as_bytes()) {
            break;
        }
    }
    (stderr, String::from_utf8_lossy(&said).into_owned())
}

/// Starts a foreign program that listens on a port it is told (`start`
/// gets the port; its stderr must be piped), and returns it once that port
/// listens. A free port cannot be avoided here: mbuffer cannot bind any
/// port and say which. Such a port is found free and released before the
/// program binds it, so another test may take it in between; when the
/// program then ends saying "Address already in use", it is started again
/// on another port.
#[track_caller]
pub fn foreign_listener(mut start: impl FnMut(u16) -> Child) -> (Child, u16) {
    for _ in 0..5 {
        let port = free_port();
        let mut child = start(port);
        let ended = wait::until(LISTEN_LIMIT, "the foreign listener's start", || {
            if let Some(status) = child.try_wait().unwrap() {
                return Some(Some(status));
            }
            listens(port).then_some(None)
        });
        let Some(status) = ended else {
            return (child, port);
        };
        let mut said = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = err.read_to_string(&mut said);
        }
        assert!(
            said.contains("in use"),
            "the listener ended ({status}) before it listened: {said}"
        );
    }
    panic!("every port tried was taken before the listener bound it");
}

/// A port that was free a moment ago, on IPv4 and IPv6 loopback alike.
fn free_port() -> u16 {
    let l = TcpListener::bind("[::]:0").expect("binding a probe port");
    l.local_addr().unwrap().port()
}

/// Whether something listens on `port`, by reading the kernel's socket
/// tables (connecting to find out would take the listener's one sender).
pub fn listens(port: u16) -> bool {
    let needle = format!(":{port:04X} ");
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|table| {
        std::fs::read_to_string(table)
            .unwrap_or_default()
            .lines()
            .any(|l| {
                let cols: Vec<&str> = l.split_whitespace().collect();
                cols.len() > 3 && format!("{} ", cols[1]).ends_with(&needle) && cols[3] == "0A"
            })
    })
}
