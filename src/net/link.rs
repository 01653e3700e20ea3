//! The byte stream under the frames: the TCP connection itself, or TLS
//! 1.3 over it between two tapebuf keys (`net::tls`).
//!
//! A private stream opens in three steps, each bounded by the handshake's
//! time limit (`--timeout`, else `accept::HEADER_WAIT`):
//! 1. the TLS handshake, in which each side checks the other's key;
//! 2. the receiver's [`ACCEPT`], sent only once it has allowed the
//!    sender's key. In TLS 1.3 the sender's handshake is over before the
//!    receiver has judged its key, so without this word a refused sender
//!    would start sending into a connection the receiver is closing;
//! 3. the sender's stream header, inside TLS, then the frames.
//!
//! Nothing of the stream is sent before step 2, so whatever is refused is
//! refused before a byte of data is written.

use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use rustls::{ClientConnection, ServerConnection, StreamOwned};

use super::facts::{LinkFacts, Privacy};
use super::frame::HEADER_LEN;
use super::socket::Timed;
use super::tls::{self, TlsSettings, Verdict};
use crate::keys::Fingerprint;

/// How long a receiver waits for the sender's close_notify at the end.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// The receiver's word that it allowed the sender's key.
pub const ACCEPT: [u8; 8] = *b"TBUF-IN\0";

/// How much a TLS socket reads at once (`Sock`).
const READ_AHEAD: usize = 256 * 1024;
/// How much ciphertext rustls may hold for the socket. Its default, 64
/// KiB, splits every write of a large block into a write(2) per 64 KiB.
const SEND_AHEAD: usize = 1024 * 1024;

/// The socket under TLS. rustls asks its socket for a few KiB at a time,
/// a read(2) each; reading through a buffer of `READ_AHEAD` makes that
/// one per buffer. Writes go straight to the socket.
pub struct Sock(BufReader<Timed>);

impl Sock {
    fn new(timed: Timed) -> Sock {
        Sock(BufReader::with_capacity(READ_AHEAD, timed))
    }

    fn tcp(&self) -> &TcpStream {
        &self.0.get_ref().stream
    }
}

impl Read for Sock {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Sock {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.get_mut().write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.get_mut().write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.get_mut().flush()
    }
}

/// A connection as the frames see it.
pub enum Link {
    Plain(Timed),
    Sender(Box<StreamOwned<ClientConnection, Sock>>),
    Receiver(Box<StreamOwned<ServerConnection, Sock>>),
}

impl Link {
    /// The receiver's link to an allowed sender, whose handshake is done.
    pub fn receiver(sender: AllowedSender, timed: Timed) -> Link {
        Link::Receiver(Box::new(StreamOwned::new(sender.conn, Sock::new(timed))))
    }

    /// The TCP connection underneath.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Link::Plain(t) => &t.stream,
            Link::Sender(s) => s.sock.tcp(),
            Link::Receiver(s) => s.sock.tcp(),
        }
    }

    /// Ends this side's sending: a TLS close_notify first, so that the
    /// peer can tell the end from a cut, then a half-close.
    pub fn close_write(&mut self) -> io::Result<()> {
        match self {
            Link::Plain(_) => {}
            Link::Sender(s) => {
                s.conn.send_close_notify();
                s.flush()?;
            }
            Link::Receiver(s) => {
                s.conn.send_close_notify();
                s.flush()?;
            }
        }
        self.tcp().shutdown(Shutdown::Write)
    }

    /// After the receiver's reply to a whole stream: reads the sender's close_notify before
    /// the connection is closed. A socket closed with that record unread
    /// is reset, and a reset can destroy the reply before the sender
    /// reads it. Bounded by `CLOSE_WAIT`; the outcome is already decided.
    pub fn await_close(&mut self) {
        let Link::Receiver(s) = self else {
            return;
        };
        if s.sock.tcp().set_read_timeout(Some(CLOSE_WAIT)).is_err() {
            return;
        }
        let until = std::time::Instant::now() + CLOSE_WAIT;
        let mut rest = [0u8; 512];
        while std::time::Instant::now() < until && matches!(s.read(&mut rest), Ok(n) if n > 0) {}
        s.conn.send_close_notify();
        let _ = s.flush();
    }

    /// What the summary says of this stream, as `endpoint` to `peer`:
    /// the peer's key and name come from the caller, who learnt them in
    /// the handshake.
    pub fn facts(&self, endpoint: String, peer: String) -> LinkFacts {
        match self {
            Link::Plain(_) => LinkFacts::new(endpoint, peer, Privacy::Plain),
            Link::Sender(_) | Link::Receiver(_) => LinkFacts {
                records: Some("user space".to_string()),
                ..LinkFacts::new(endpoint, peer, Privacy::Tls)
            },
        }
    }
}

/// A byte stream both ways: what each kind of link is underneath.
trait Duplex: Read + Write {}
impl<T: Read + Write> Duplex for T {}

impl Link {
    /// The stream this link reads and writes, whichever kind it is.
    fn duplex(&mut self) -> &mut dyn Duplex {
        match self {
            Link::Plain(t) => t,
            Link::Sender(s) => s.as_mut(),
            Link::Receiver(s) => s.as_mut(),
        }
    }
}

impl Read for Link {
    /// A TLS connection cut without close_notify reads as its end, as a
    /// plain one does: the frames above tell a cut from a whole stream by
    /// their trailer, and say so with the byte count.
    /// A record whose tag fails says so in words.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.duplex().read(buf) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
            Err(e) if is_decrypt_error(&e) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a TLS record failed its authentication tag: the stream was damaged or altered in transit",
            )),
            other => other,
        }
    }
}

impl Write for Link {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.duplex().write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.duplex().write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.duplex().flush()
    }
}

/// True for rustls's error for a record that failed to decrypt.
fn is_decrypt_error(e: &io::Error) -> bool {
    let inner = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    matches!(inner, Some(rustls::Error::DecryptError))
}

/// Sets both of the socket's timeouts; None waits without limit.
fn time_out(stream: &TcpStream, limit: Option<Duration>) -> io::Result<()> {
    stream.set_read_timeout(limit)?;
    stream.set_write_timeout(limit)
}

/// Why a handshake failed: it stalled past `limit`, or a check refused a
/// key, or the error itself.
fn failed(seen: &tls::Seen, e: io::Error, limit: Duration) -> String {
    if matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    ) {
        return format!(
            "the TLS handshake stood still for {} s (--timeout)",
            limit.as_secs().max(1)
        );
    }
    match seen.verdict() {
        Some(Verdict::Refused { key, why }) => {
            format!("the TLS handshake failed: {why} (it showed {key})")
        }
        _ => format!("the TLS handshake failed: {e}"),
    }
}

/// The sender's side: handshake, then the receiver's [`ACCEPT`]. Each
/// wait is bounded by `limit`; the socket goes back to `stall` after.
pub fn open_as_sender(
    timed: Timed,
    keys: &TlsSettings,
    limit: Duration,
    stall: Option<Duration>,
) -> Result<Link, String> {
    let pair = keys.key_pair()?;
    let pin = keys
        .pin
        .ok_or("--pin: the receiver's fingerprint is needed")?;
    let (config, seen) = tls::sender_config(&pair, pin)?;
    let mut conn =
        ClientConnection::new(config, tls::receiver_name()).map_err(|e| e.to_string())?;
    conn.set_buffer_limit(Some(SEND_AHEAD));
    let mut s = StreamOwned::new(conn, Sock::new(timed));
    let mine = pair.fingerprint();
    time_out(s.sock.tcp(), Some(limit)).map_err(|e| e.to_string())?;
    while s.conn.is_handshaking() {
        s.conn
            .complete_io(&mut s.sock)
            .map_err(|e| failed(&seen, e, limit))?;
    }
    let mut word = [0u8; ACCEPT.len()];
    match s.read_exact(&mut word) {
        Ok(()) if word == ACCEPT => {}
        Ok(()) => return Err("the receiver answered the handshake with something other than tapebuf's acceptance".into()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            return Err(format!("the receiver closed the connection after the handshake: it did not allow this sender's key {mine}"))
        }
        Err(e) if e.kind() == io::ErrorKind::TimedOut => {
            return Err(format!(
                "the receiver said nothing within {} s of the handshake",
                limit.as_secs()
            ))
        }
        Err(e) => {
            return Err(format!(
                "the receiver did not allow this sender's key {mine}: {e}"
            ))
        }
    }
    time_out(s.sock.tcp(), stall).map_err(|e| e.to_string())?;
    Ok(Link::Sender(Box::new(s)))
}

/// A sender the receiver allowed: its TLS state, its name and key.
#[derive(Debug)]
pub struct AllowedSender {
    pub conn: ServerConnection,
    pub name: String,
    pub key: Fingerprint,
}

/// The receiver's side, on a connection whose `first` bytes began a TLS
/// handshake: handshake, [`ACCEPT`] once the key is allowed, then the
/// stream header, which comes back beside the sender. Each wait is
/// bounded by `left`, what remains of the connection's `limit`; the
/// socket leaves with no time limit, for `socket::tune` to set
/// `--timeout`'s, or none.
pub fn open_as_receiver(
    stream: &mut TcpStream,
    first: &[u8],
    keys: &TlsSettings,
    (limit, left): (Duration, Duration),
) -> Result<(AllowedSender, Vec<u8>), String> {
    let pair = keys.key_pair()?;
    let (config, seen) = tls::receiver_config(&pair, keys.allowed()?)?;
    let mut conn = ServerConnection::new(config).map_err(|e| e.to_string())?;
    let mut opening = first;
    while !opening.is_empty() {
        conn.read_tls(&mut opening)
            .map_err(|e| failed(&seen, e, limit))?;
    }
    conn.process_new_packets()
        .map_err(|e| failed(&seen, io::Error::other(e), limit))?;
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    time_out(stream, Some(left)).map_err(|e| e.to_string())?;
    while conn.is_handshaking() {
        conn.complete_io(stream)
            .map_err(|e| failed(&seen, e, limit))?;
    }
    let Some(Verdict::Accepted { key, name }) = seen.verdict() else {
        return Err("the sender showed no key".into());
    };
    let mut s = rustls::Stream::new(&mut conn, stream);
    s.write_all(&ACCEPT)
        .and_then(|()| s.flush())
        .map_err(|e| format!("sending the acceptance failed: {e}"))?;
    let mut header = vec![0u8; HEADER_LEN];
    s.read_exact(&mut header).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => "it closed before sending a stream header".to_string(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            format!("it sent no stream header within {} s", limit.as_secs())
        }
        _ => format!("reading its stream header failed: {e}"),
    })?;
    // The handshake's limit is not the stream's: a sender may go quiet
    // for as long as its input does, unless --timeout says otherwise.
    time_out(stream, None).map_err(|e| e.to_string())?;
    Ok((AllowedSender { conn, name, key }, header))
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
