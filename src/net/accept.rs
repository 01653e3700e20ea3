//! Finding the one sender of `-I` among everything else that connects to
//! its port: health checks and port scans that connect and close at once,
//! strangers that send something that is not a stream, and hosts that
//! `--allow` does not cover.
//!
//! Every allowed connection is held, without blocking on it, until its
//! opening bytes say what it is. Without `--raw`, the first one whose
//! opening is a whole tapebuf header, announcing a block that fits in the
//! receiver's memory (`-m`), is the sender. With `--raw`, the first one
//! that sends any byte is, whatever its bytes: a raw stream that happens to
//! begin like a tapebuf header is still taken as raw, so a tapebuf sender
//! must send with `--raw` too. A connection that closes
//! before that, sends something else while raw streams are not allowed,
//! announces a block larger than `-m`, or
//! says nothing for too long is ignored with one line, and the wait goes
//! on. A receiver with `--key` takes only a sender whose opening is a TLS
//! handshake with an allowed key (`net::link`), and ignores the rest the
//! same way: none of them can end the run or stand in for the sender. At most
//! `MAX_PENDING` connections are held at once, so a flood cannot exhaust
//! descriptors. A stop or the deadline ends the wait.

use std::io::{self, Read};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use super::allow::allowed;
use super::frame::{self, Opening};
use super::link::{self, AllowedSender};
use super::socket::{show, Listener};
use super::NetSettings;
use crate::base::signals::stopped;

/// How often the wait looks at the stop signal and the deadlines.
const POLL_EVERY: Duration = Duration::from_millis(200);
/// The most connections held at once while they say what they are.
const MAX_PENDING: usize = 8;
/// How long a connection may take to send a whole tapebuf header when
/// `--timeout` does not say. A tapebuf sender sends it as it connects.
pub const HEADER_WAIT: Duration = Duration::from_secs(30);

/// The sender: its connection and the opening bytes already read from it.
#[derive(Debug)]
pub struct Accepted {
    pub stream: TcpStream,
    pub peer: SocketAddr,
    pub opening: Opening,
    /// Up to a header's worth of bytes: the header itself, or raw data.
    pub first: Vec<u8>,
    /// A sender with a key: its TLS state, name and key (`first` is then
    /// the header it sent inside TLS).
    pub private: Option<AllowedSender>,
}

/// A connection that has not yet said what it is.
pub(super) struct Pending {
    pub(super) stream: TcpStream,
    pub(super) peer: SocketAddr,
    first: Vec<u8>,
    since: Instant,
}

/// What one look at a pending connection found.
enum Verdict {
    Waiting,
    Sender(Opening),
    /// It began a TLS handshake, and this receiver has a key.
    Private,
    Ignored(String),
}

/// The first byte of a TLS handshake record.
const TLS_HANDSHAKE: u8 = 0x16;

/// Waits for the sender. `note` hears, one line each, every connection
/// that is refused or ignored. `Ok(None)` when `stop` fired first; a
/// TimedOut error at `deadline`.
pub fn await_sender(
    listener: &Listener,
    settings: &NetSettings,
    stop: Option<&Receiver<()>>,
    deadline: Option<Instant>,
    mut note: impl FnMut(String),
) -> io::Result<Option<Accepted>> {
    let mut pending: Vec<Pending> = Vec::new();
    loop {
        if stop.is_some_and(stopped) {
            return Ok(None);
        }
        let mut wait = POLL_EVERY;
        if let Some(d) = deadline {
            let left = d.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no sender connected in time (--connect-timeout)",
                ));
            }
            wait = wait.min(left);
        }
        if wait_any(listener, &pending, wait)? {
            if let Some(p) = take_connection(listener, settings, &mut note)? {
                if pending.len() == MAX_PENDING {
                    let oldest = pending.remove(0);
                    note(format!(
                        "{}; still waiting for the sender",
                        ignored(
                            oldest.peer,
                            &format!("more than {MAX_PENDING} connections waited at once"),
                        )
                    ));
                }
                pending.push(p);
            }
        }
        let mut i = 0;
        while i < pending.len() {
            // A look is one non-blocking read, so every held connection
            // gets one each round.
            match step(pending.remove(i), settings) {
                Step::Wait(p) => {
                    pending.insert(i, p);
                    i += 1;
                }
                Step::Ignored(line) => note(format!("{line}; still waiting for the sender")),
                Step::Sender(sender) => return Ok(Some(*sender)),
            }
        }
    }
}

/// What one look at a held connection made of it.
pub(super) enum Step {
    Wait(Pending),
    Sender(Box<Accepted>),
    /// A line naming the connection and why it was ignored.
    Ignored(String),
}

/// How long a connection may take to say what it is: `--timeout`, else
/// `HEADER_WAIT`, and no limit for a raw stream without `--timeout`.
fn header_limit(settings: &NetSettings) -> Option<Duration> {
    match settings.raw {
        true => settings.stall,
        false => Some(settings.stall.unwrap_or(HEADER_WAIT)),
    }
}

/// Looks once at a held connection (one non-blocking read) and, once it
/// has said what it is, takes it as the sender (after its TLS handshake,
/// if it began one) or ignores it.
pub(super) fn step(mut p: Pending, settings: &NetSettings) -> Step {
    let limit = header_limit(settings);
    let verdict = match look(&mut p, settings) {
        Verdict::Waiting if limit.is_some_and(|l| p.since.elapsed() >= l) => {
            Verdict::Ignored(format!(
                "it sent no tapebuf stream header within {} s",
                limit.unwrap_or_default().as_secs()
            ))
        }
        v => v,
    };
    let peer = p.peer;
    let taken = match verdict {
        Verdict::Waiting => return Step::Wait(p),
        Verdict::Ignored(why) => Err((peer, why)),
        Verdict::Sender(opening) => plain(p, opening).map_err(|e| (peer, e.to_string())),
        Verdict::Private => {
            let whole = limit.unwrap_or(HEADER_WAIT);
            let left = whole.saturating_sub(p.since.elapsed());
            handshake(p, settings, (whole, left))
        }
    };
    match taken {
        Ok(sender) => Step::Sender(Box::new(sender)),
        Err((peer, why)) => Step::Ignored(ignored(peer, &why)),
    }
}

/// A plain sender, taken as it is.
fn plain(p: Pending, opening: Opening) -> io::Result<Accepted> {
    p.stream.set_nonblocking(false)?;
    Ok(Accepted {
        stream: p.stream,
        peer: p.peer,
        opening,
        first: p.first,
        private: None,
    })
}

/// Runs a sender's TLS handshake to its stream header, within `left` of
/// the `whole` time a connection has to say what it is. This one
/// connection is waited on alone meanwhile; `--timeout` bounds how long a
/// stalled one can hold up the others.
fn handshake(
    mut p: Pending,
    settings: &NetSettings,
    (whole, left): (Duration, Duration),
) -> Result<Accepted, (SocketAddr, String)> {
    let keys = settings.tls.as_ref().expect("only a receiver with a key");
    let left = left.max(Duration::from_millis(1));
    let (sender, header) = link::open_as_receiver(&mut p.stream, &p.first, keys, (whole, left))
        .map_err(|why| (p.peer, why))?;
    let refused = |why: String| (p.peer, format!("{} ({}): {why}", sender.name, sender.key));
    let opening = match frame::classify(&header) {
        Ok(Opening::Framed) => Opening::Framed,
        Ok(_) => {
            return Err(refused(
                "it sent no tapebuf stream header inside TLS".into(),
            ))
        }
        Err(e) => return Err(refused(e.to_string())),
    };
    if let Some(why) = too_large(&header, settings) {
        return Err(refused(why));
    }
    Ok(Accepted {
        stream: p.stream,
        peer: p.peer,
        opening,
        first: header,
        private: Some(sender),
    })
}

fn ignored(peer: SocketAddr, why: &str) -> String {
    format!("ignored a connection from {}: {why}", show(peer))
}

/// Waits up to `wait` for the listener or a pending connection to have
/// something. Returns whether the listener has a connection.
fn wait_any(listener: &Listener, pending: &[Pending], wait: Duration) -> io::Result<bool> {
    let mut fds: Vec<PollFd<'_>> = std::iter::once(listener.as_fd())
        .chain(pending.iter().map(|p| p.stream.as_fd()))
        .map(|fd| PollFd::new(fd, PollFlags::POLLIN))
        .collect();
    let ms = u16::try_from(wait.as_millis().max(1)).unwrap_or(u16::MAX);
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(_) => {}
        Err(Errno::EINTR) => return Ok(false),
        Err(e) => return Err(e.into()),
    }
    Ok(fds[0].revents().is_some_and(|r| !r.is_empty()))
}

/// Accepts one connection. One that `--allow` does not cover is refused
/// and noted; None then, and when the peer gave up before the accept.
pub(super) fn take_connection(
    listener: &Listener,
    settings: &NetSettings,
    note: &mut impl FnMut(String),
) -> io::Result<Option<Pending>> {
    let (stream, peer) = match listener.accept_one() {
        Ok(pair) => pair,
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ECONNABORTED | libc::EINTR | libc::EAGAIN)
            ) =>
        {
            return Ok(None)
        }
        Err(e) => return Err(e),
    };
    if !allowed(&settings.allow, peer.ip()) {
        note(format!(
            "refused a connection from {}: not covered by --allow",
            show(peer)
        ));
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return Ok(None);
    }
    stream.set_nonblocking(true)?;
    Ok(Some(Pending {
        stream,
        peer,
        first: Vec::with_capacity(frame::HEADER_LEN),
        since: Instant::now(),
    }))
}

/// Reads what a pending connection has sent so far, up to a header, and
/// judges it.
fn look(p: &mut Pending, settings: &NetSettings) -> Verdict {
    let mut buf = [0u8; frame::HEADER_LEN];
    let want = frame::HEADER_LEN - p.first.len();
    match p.stream.read(&mut buf[..want]) {
        Ok(0) if p.first.is_empty() => {
            return Verdict::Ignored("it closed without sending anything".into())
        }
        Ok(0) => {
            return Verdict::Ignored(format!(
                "it closed after {} bytes, inside a tapebuf stream header",
                p.first.len()
            ))
        }
        Ok(n) => p.first.extend_from_slice(&buf[..n]),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
            ) =>
        {
            return Verdict::Waiting
        }
        Err(e) => return Verdict::Ignored(format!("reading it failed: {e}")),
    }
    if settings.raw {
        return Verdict::Sender(Opening::Raw);
    }
    match (p.first[0] == TLS_HANDSHAKE, settings.tls.is_some()) {
        (true, true) => return Verdict::Private,
        (true, false) => return Verdict::Ignored(
            "it began a TLS handshake, but this receiver takes clear text (--plain): drop --plain here, or send with --plain".into(),
        ),
        _ => {}
    }
    match frame::classify(&p.first) {
        Ok(Opening::Incomplete) => Verdict::Waiting,
        Ok(Opening::Framed) if settings.tls.is_some() => Verdict::Ignored(
            "it sent a plain tapebuf stream, but this receiver takes only senders with a key (drop --plain on the sender)".into(),
        ),
        Ok(Opening::Framed) => match too_large(&p.first, settings).or_else(|| unchecked(&p.first)) {
            Some(why) => Verdict::Ignored(why),
            None => Verdict::Sender(Opening::Framed),
        },
        Ok(Opening::Raw) => Verdict::Ignored(
            "it did not begin with a tapebuf stream header (to take a raw stream from mbuffer, nc or socat, start the receiver with --raw)"
                .into(),
        ),
        Err(e) => Verdict::Ignored(e.to_string()),
    }
}

/// Why a plain stream's header is refused: it says its frames carry no
/// checksum, which only a TLS link may say (its records check the bytes).
fn unchecked(header: &[u8]) -> Option<String> {
    let header = header[..frame::HEADER_LEN].try_into().ok()?;
    (frame::announced_flags(header) & frame::UNSUMMED != 0)
        .then(|| "its frames carry no checksums, which only a stream inside TLS may send".into())
}

/// Why a whole header's announced block is refused: it is larger than
/// the receiver's memory, so its frames could not be held within `-m`.
fn too_large(header: &[u8], settings: &NetSettings) -> Option<String> {
    let header = header[..frame::HEADER_LEN].try_into().ok()?;
    let announced = u64::from(frame::announced_block_bytes(header));
    let limit = settings.sender_block_limit_bytes?;
    (announced > limit).then(|| {
        format!(
            "it announced blocks of {announced} bytes, more than this receiver's memory \
             (-m, {limit} bytes) can hold; give the receiver a -m of at least the sender's -s"
        )
    })
}

#[cfg(test)]
#[path = "accept_tests.rs"]
mod tests;
