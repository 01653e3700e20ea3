//! The `Link`: one connection as the frames see it, plain or TLS, its
//! records made in user space or by the kernel.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsFd;
use std::time::Duration;

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use rustls::{ClientConnection, ServerConnection, StreamOwned};

use super::sock::Sock;
use crate::keys::Fingerprint;
use crate::net::facts::{LinkFacts, Privacy, Records};
use crate::net::socket::Timed;
use crate::net::tls::ktls::{self, KernelTls};
use crate::net::tls::Ktls;

/// How long a receiver waits for the sender's close_notify at the end.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// The receiver's word that it allowed the sender's key.
pub const ACCEPT: [u8; 8] = *b"TBUF-IN\0";

/// A connection as the frames see it.
pub enum Link {
    Plain(Timed),
    Sender(Box<StreamOwned<ClientConnection, Sock>>),
    Receiver(Box<StreamOwned<ServerConnection, Sock>>),
    /// Either end, its records made and opened by the kernel.
    Kernel(Box<KernelTls>),
}

impl Link {
    /// The receiver's link to an allowed sender, whose handshake is done.
    pub fn receiver(sender: AllowedSender, timed: Timed) -> Link {
        match sender.conn {
            Some(conn) => Link::Receiver(Box::new(StreamOwned::new(conn, Sock::new(timed)))),
            None => Link::Kernel(Box::new(KernelTls::new(timed))),
        }
    }

    /// The TCP connection underneath.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Link::Plain(t) => &t.stream,
            Link::Sender(s) => s.sock.tcp(),
            Link::Receiver(s) => s.sock.tcp(),
            Link::Kernel(k) => k.tcp(),
        }
    }

    /// True for TLS, whichever side makes the records.
    pub fn is_private(&self) -> bool {
        !matches!(self, Link::Plain(_))
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
            Link::Kernel(k) => k.close_notify()?,
        }
        self.tcp().shutdown(Shutdown::Write)
    }

    /// After the receiver's reply to a whole stream: reads the sender's
    /// close_notify before the connection is closed. A socket closed with
    /// that record unread is reset, and a reset can destroy the reply
    /// before the sender reads it. Bounded by `CLOSE_WAIT`; the outcome is
    /// already decided.
    pub fn await_close(&mut self) {
        if matches!(self, Link::Plain(_) | Link::Sender(_))
            || self.tcp().set_read_timeout(Some(CLOSE_WAIT)).is_err()
        {
            return;
        }
        let until = std::time::Instant::now() + CLOSE_WAIT;
        let mut rest = [0u8; 512];
        while std::time::Instant::now() < until && matches!(self.read(&mut rest), Ok(n) if n > 0) {}
        let _ = match self {
            Link::Receiver(s) => {
                s.conn.send_close_notify();
                s.flush()
            }
            Link::Kernel(k) => k.close_notify(),
            Link::Plain(_) | Link::Sender(_) => Ok(()),
        };
    }

    /// What the summary says of this stream, as `endpoint` to `peer`,
    /// under `--ktls` `mode`: the peer's key and name come from the
    /// caller, who learnt them in the handshake.
    pub fn facts(&self, endpoint: String, peer: String, mode: Option<Ktls>) -> LinkFacts {
        let (records, because) = match self {
            Link::Plain(_) => return LinkFacts::new(endpoint, peer, Privacy::Plain),
            Link::Sender(_) | Link::Receiver(_) => {
                let because = ktls::why_not(mode.unwrap_or(Ktls::Auto));
                (Records::UserSpace, Some(because))
            }
            Link::Kernel(_) => (Records::Kernel, None),
        };
        LinkFacts {
            records: Some(records),
            user_space_because: because,
            ..LinkFacts::new(endpoint, peer, Privacy::Tls)
        }
    }
}

impl Link {
    /// Reads exactly `buf`, each wait bounded by `limit`; the socket goes
    /// back to `stall` (`--timeout`, or none) after, whatever happened.
    pub fn read_exact_within(
        &mut self,
        buf: &mut [u8],
        limit: Duration,
        stall: Option<Duration>,
    ) -> io::Result<()> {
        self.tcp().set_read_timeout(Some(limit))?;
        let read = self.read_exact(buf);
        self.tcp().set_read_timeout(stall)?;
        read
    }

    /// Reads what the peer has sent, waiting at most `wait` for it to
    /// send anything: None when it sent nothing in that time. Bytes that
    /// rustls or the read-ahead already hold count as sent. Once they are
    /// there, a TLS record begun is read whole (bounded by `--timeout`).
    pub fn read_ready(&mut self, buf: &mut [u8], wait: Duration) -> io::Result<Option<usize>> {
        let waiting = match self {
            Link::Sender(s) => ready_in_rustls(s.conn.reader().read(buf), &s.sock)?,
            Link::Receiver(s) => ready_in_rustls(s.conn.reader().read(buf), &s.sock)?,
            Link::Plain(_) | Link::Kernel(_) => ReadAhead::Nothing,
        };
        match waiting {
            ReadAhead::Plaintext(n) => return Ok(Some(n)),
            ReadAhead::Records => return self.read(buf).map(Some),
            ReadAhead::Nothing => {}
        }
        let mut fds = [PollFd::new(self.tcp().as_fd(), PollFlags::POLLIN)];
        let ms = u16::try_from(wait.as_millis()).unwrap_or(u16::MAX);
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) | Err(Errno::EINTR) => Ok(None),
            Ok(_) => self.read(buf).map(Some),
            Err(e) => Err(e.into()),
        }
    }
}

/// What a TLS link holds before the socket is asked.
enum ReadAhead {
    /// Plaintext that rustls had opened: this many bytes were read.
    Plaintext(usize),
    /// Records read ahead from the socket, not yet opened.
    Records,
    Nothing,
}

/// What rustls's plaintext reader gave, and whether records wait.
fn ready_in_rustls(plain: io::Result<usize>, sock: &Sock) -> io::Result<ReadAhead> {
    match plain {
        Ok(n) => Ok(ReadAhead::Plaintext(n)),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(match sock.buffered() {
            true => ReadAhead::Records,
            false => ReadAhead::Nothing,
        }),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(ReadAhead::Plaintext(0)),
        Err(e) => Err(e),
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
            Link::Kernel(k) => k.as_mut(),
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

/// True for a failure that a new connection can mend, in a resumable
/// stream: the connection's end before the stream's (`Truncated`), a
/// reset, a stall past `--timeout`. Not damage, a refusal, an abort, or a
/// stop (`Interrupted`).
pub fn dropped(e: &io::Error) -> bool {
    use crate::net::frame::FrameError;
    match e.get_ref().and_then(|i| i.downcast_ref::<FrameError>()) {
        Some(FrameError::Truncated { .. }) => true,
        Some(_) => false,
        None => !matches!(
            e.kind(),
            io::ErrorKind::InvalidData
                | io::ErrorKind::InvalidInput
                | io::ErrorKind::Unsupported
                | io::ErrorKind::PermissionDenied
                | io::ErrorKind::OutOfMemory
                | io::ErrorKind::Interrupted
        ),
    }
}

/// True for rustls's error for a record that failed to decrypt.
fn is_decrypt_error(e: &io::Error) -> bool {
    let inner = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    matches!(inner, Some(rustls::Error::DecryptError))
}

/// A sender the receiver allowed: its TLS state (None once the kernel
/// has its records), its name and key.
#[derive(Debug)]
pub struct AllowedSender {
    pub conn: Option<ServerConnection>,
    pub name: String,
    pub key: Fingerprint,
}
