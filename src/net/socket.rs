//! Making, tuning and waiting on TCP sockets.
//!
//! - Listening binds `[::]` with IPV6_V6ONLY off, so one socket takes IPv6
//!   and IPv4 senders; a host without IPv6 falls back to `0.0.0.0`. A bind
//!   address restricts it. Waiting for the sender is `accept`'s.
//! - Connecting tries every address a name resolves to, each with a
//!   non-blocking connect bounded by the time left, and retries with a
//!   growing pause until `--connect-timeout`, so a receiver that starts a
//!   little later is still reached.
//! - Every connection gets TCP keepalive (a vanished peer is noticed in
//!   about two minutes even when nothing is in flight). `--timeout` adds
//!   SO_RCVTIMEO, SO_SNDTIMEO and TCP_USER_TIMEOUT, so a stream that stands
//!   still in either direction fails with a message saying so.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::socket::{self as ns, sockopt, AddressFamily, SockFlag, SockType, SockaddrStorage};

use super::allow::canonical;
use super::{ListenAddr, NetSettings, PeerAddr};

/// Keepalive: first probe after this much silence, then every interval.
const KEEPALIVE_IDLE_S: u32 = 60;
const KEEPALIVE_INTERVAL_S: u32 = 10;
const KEEPALIVE_PROBES: u32 = 6;
/// Pauses between connect rounds grow from the first to the last.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(2);

/// A peer address as people write it: IPv4-mapped IPv6 shown as IPv4.
pub fn show(addr: SocketAddr) -> String {
    SocketAddr::new(canonical(addr.ip()), addr.port()).to_string()
}

fn new_socket(addr: &SocketAddr) -> io::Result<OwnedFd> {
    let family = if addr.is_ipv4() {
        AddressFamily::Inet
    } else {
        AddressFamily::Inet6
    };
    Ok(ns::socket(
        family,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC,
        None,
    )?)
}

/// Sets SO_SNDBUF and SO_RCVBUF. Returns a warning when the kernel gave
/// less than asked (it caps them at net.core.wmem_max and rmem_max).
fn set_buffers(fd: &OwnedFd, bytes: usize) -> io::Result<Option<String>> {
    ns::setsockopt(fd, sockopt::SndBuf, &bytes)?;
    ns::setsockopt(fd, sockopt::RcvBuf, &bytes)?;
    // Linux reports twice the value it keeps for itself.
    let snd = ns::getsockopt(fd, sockopt::SndBuf)? / 2;
    let rcv = ns::getsockopt(fd, sockopt::RcvBuf)? / 2;
    if snd < bytes || rcv < bytes {
        return Ok(Some(format!(
            "--tcp-buffer: the kernel capped the socket buffers at {} bytes (send) and {} bytes (receive); raise net.core.wmem_max and net.core.rmem_max to get {bytes}",
            snd, rcv
        )));
    }
    Ok(None)
}

/// A listening socket for `-I`.
pub struct Listener {
    socket: TcpListener,
    /// What the user asked for, for messages.
    pub name: String,
    /// A warning from tuning the socket, to print once.
    pub warning: Option<String>,
}

/// Binds and listens. A busy port or a bad address is an error naming it.
pub fn listen(addr: &ListenAddr, settings: &NetSettings) -> io::Result<Listener> {
    let candidates = addr.resolve()?;
    let mut last = None;
    for candidate in candidates {
        match bind_one(candidate, addr.host.is_none(), settings) {
            Ok((socket, warning)) => {
                return Ok(Listener {
                    socket,
                    name: addr.to_string(),
                    warning,
                })
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no address to listen on")))
}

fn bind_one(
    addr: SocketAddr,
    dual_stack: bool,
    settings: &NetSettings,
) -> io::Result<(TcpListener, Option<String>)> {
    let fd = match new_socket(&addr) {
        // No IPv6 on this host: every IPv4 address instead.
        Err(e) if dual_stack && e.raw_os_error() == Some(libc::EAFNOSUPPORT) => {
            let v4 = SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), addr.port());
            return bind_one(v4, false, settings);
        }
        other => other?,
    };
    ns::setsockopt(&fd, sockopt::ReuseAddr, &true)?;
    if addr.is_ipv6() {
        ns::setsockopt(&fd, sockopt::Ipv6V6Only, &!dual_stack)?;
    }
    let warning = match settings.buffer_bytes {
        Some(b) => set_buffers(&fd, b)?,
        None => None,
    };
    ns::bind(fd.as_raw_fd(), &SockaddrStorage::from(addr))?;
    ns::listen(&fd, ns::Backlog::new(8).expect("a small backlog is valid"))?;
    Ok((TcpListener::from(fd), warning))
}

impl Listener {
    /// Accepts one waiting connection (blocking if none is waiting).
    pub fn accept_one(&self) -> io::Result<(TcpStream, SocketAddr)> {
        self.socket.accept()
    }
}

impl AsFd for Listener {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.socket.as_fd()
    }
}

/// Polls one descriptor for `flags` up to `wait`. True when ready.
fn ready(fd: std::os::fd::BorrowedFd<'_>, flags: PollFlags, wait: Duration) -> io::Result<bool> {
    let ms = u16::try_from(wait.as_millis().max(1)).unwrap_or(u16::MAX);
    let mut fds = [PollFd::new(fd, flags)];
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(n) => Ok(n > 0),
        Err(Errno::EINTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// A connection that could not be made, with every reason seen.
#[derive(Debug, thiserror::Error)]
#[error("cannot connect within {waited_s} s ({attempts} attempts): {last}")]
pub struct ConnectError {
    pub waited_s: u64,
    pub attempts: u32,
    pub last: String,
}

/// Connects to `peer`, trying every address it resolves to and retrying
/// until `limit` has passed. `retrying` hears, once, why the first round
/// failed. Returns the stream, the address used, and any warning from
/// tuning the socket.
pub fn connect(
    peer: &PeerAddr,
    settings: &NetSettings,
    limit: Duration,
    mut retrying: impl FnMut(&str),
) -> Result<(TcpStream, SocketAddr, Option<String>), ConnectError> {
    let started = Instant::now();
    let deadline = started + limit;
    let mut pause = RETRY_FIRST;
    let mut attempts = 0;
    let mut last = String::from("no attempt was made");
    loop {
        match peer.resolve() {
            Err(e) => last = format!("cannot resolve {}: {e}", peer.host),
            Ok(addrs) => {
                for addr in addrs {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    attempts += 1;
                    match connect_one(addr, settings, left) {
                        Ok((stream, warning)) => return Ok((stream, addr, warning)),
                        Err(e) => last = format!("{}: {e}", show(addr)),
                    }
                }
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ConnectError {
                waited_s: started.elapsed().as_secs(),
                attempts,
                last,
            });
        }
        if pause == RETRY_FIRST {
            retrying(&last);
        }
        // A retry policy, not synchronisation: the receiver may not be
        // listening yet.
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(RETRY_MAX);
    }
}

fn connect_one(
    addr: SocketAddr,
    settings: &NetSettings,
    limit: Duration,
) -> io::Result<(TcpStream, Option<String>)> {
    let fd = new_socket(&addr)?;
    let warning = match settings.buffer_bytes {
        Some(b) => set_buffers(&fd, b)?,
        None => None,
    };
    let stream = TcpStream::from(fd);
    stream.set_nonblocking(true)?;
    match ns::connect(stream.as_raw_fd(), &SockaddrStorage::from(addr)) {
        Ok(()) => {}
        Err(Errno::EINPROGRESS) => {
            let deadline = Instant::now() + limit;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "no answer (connect timed out)",
                    ));
                }
                if ready(stream.as_fd(), PollFlags::POLLOUT, left)? {
                    break;
                }
            }
            let err = ns::getsockopt(&stream, sockopt::SocketError)?;
            if err != 0 {
                return Err(io::Error::from_raw_os_error(err));
            }
        }
        Err(e) => return Err(e.into()),
    }
    stream.set_nonblocking(false)?;
    Ok((stream, warning))
}

/// Turns on keepalive and, with `--timeout`, the stall limits.
pub fn tune(stream: &TcpStream, settings: &NetSettings) -> io::Result<()> {
    ns::setsockopt(stream, sockopt::KeepAlive, &true)?;
    ns::setsockopt(stream, sockopt::TcpKeepIdle, &KEEPALIVE_IDLE_S)?;
    ns::setsockopt(stream, sockopt::TcpKeepInterval, &KEEPALIVE_INTERVAL_S)?;
    ns::setsockopt(stream, sockopt::TcpKeepCount, &KEEPALIVE_PROBES)?;
    if let Some(limit) = settings.stall {
        stream.set_read_timeout(Some(limit))?;
        stream.set_write_timeout(Some(limit))?;
        let ms = u32::try_from(limit.as_millis()).unwrap_or(u32::MAX);
        ns::setsockopt(stream, sockopt::TcpUserTimeout, &ms)?;
    }
    Ok(())
}

/// A connected stream whose timeouts read as what they mean: the peer sent
/// or took nothing for `--timeout` seconds.
pub struct Timed {
    pub stream: TcpStream,
    limit_s: u64,
}

impl Timed {
    pub fn new(stream: TcpStream, settings: &NetSettings) -> Timed {
        Timed {
            stream,
            limit_s: settings.stall.map_or(0, |d| d.as_secs()),
        }
    }

    fn explain(&self, e: io::Error, what: &str) -> io::Error {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the peer {what} nothing for {} s (--timeout)", self.limit_s),
            ),
            _ => e,
        }
    }
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf).map_err(|e| self.explain(e, "sent"))
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.write(buf).map_err(|e| self.explain(e, "took"))
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.stream
            .write_vectored(bufs)
            .map_err(|e| self.explain(e, "took"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_mapped_peers_are_shown_as_ipv4() {
        assert_eq!(
            show("[::ffff:10.0.0.5]:4000".parse().unwrap()),
            "10.0.0.5:4000"
        );
        assert_eq!(show("[::1]:4000".parse().unwrap()), "[::1]:4000");
    }

    #[test]
    fn a_port_nobody_listens_on_fails_after_the_connect_timeout() {
        // Bind and drop, so the port is free and refuses.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let peer = PeerAddr::parse(&format!("127.0.0.1:{port}")).unwrap();
        let e = connect(
            &peer,
            &NetSettings::default(),
            Duration::from_millis(300),
            |_| {},
        )
        .unwrap_err();
        assert!(e.attempts >= 2, "{e}");
        assert!(e.last.contains("refused"), "{e}");
    }

    #[test]
    fn a_dual_stack_listener_takes_ipv4_and_ipv6_senders() {
        let port = TcpListener::bind("[::1]:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let l = listen(
            &ListenAddr::parse(&port.to_string()).unwrap(),
            &NetSettings::default(),
        )
        .unwrap();
        for target in [format!("127.0.0.1:{port}"), format!("[::1]:{port}")] {
            let peer = PeerAddr::parse(&target).unwrap();
            let (_s, _, _) = connect(
                &peer,
                &NetSettings::default(),
                Duration::from_secs(5),
                |_| {},
            )
            .unwrap();
            let (_, from) = l.accept_one().unwrap();
            assert!(
                from.ip().is_loopback() || show(from).starts_with("127."),
                "{from}"
            );
        }
    }
}
