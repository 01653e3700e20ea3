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
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use socket2::{Domain, SockAddr, SockRef, Socket, TcpKeepalive, Type};

use super::allow::canonical;
use super::{ListenAddr, NetSettings, PeerAddr};

/// Keepalive: the first probe after 60 s of silence, then one every 10 s;
/// 6 unanswered probes end the connection.
const KEEPALIVE: TcpKeepalive = TcpKeepalive::new()
    .with_time(Duration::from_secs(60))
    .with_interval(Duration::from_secs(10))
    .with_retries(6);
/// Pauses between connect rounds grow from the first to the last.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(2);

/// A peer address as people write it: IPv4-mapped IPv6 shown as IPv4.
pub fn show(addr: SocketAddr) -> String {
    SocketAddr::new(canonical(addr.ip()), addr.port()).to_string()
}

/// A TCP socket for `addr`'s family, closed on exec.
fn new_socket(addr: &SocketAddr) -> io::Result<Socket> {
    Socket::new(Domain::for_address(*addr), Type::STREAM, None)
}

/// Sets SO_SNDBUF and SO_RCVBUF. Returns a warning when the kernel gave
/// less than asked (it caps them at net.core.wmem_max and rmem_max).
fn set_buffers(socket: &Socket, bytes: usize) -> io::Result<Option<String>> {
    socket.set_send_buffer_size(bytes)?;
    socket.set_recv_buffer_size(bytes)?;
    // Linux reports twice the value it keeps for itself.
    let snd = socket.send_buffer_size()? / 2;
    let rcv = socket.recv_buffer_size()? / 2;
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

/// Binds and listens, or takes the socket systemd passed for the port
/// (`activation`). A busy port or a bad address is an error naming it.
pub fn listen(addr: &ListenAddr, settings: &NetSettings) -> io::Result<Listener> {
    if let Some((fd, socket)) = super::activation::take(addr.port)? {
        return Ok(Listener {
            socket,
            name: addr.to_string(),
            warning: Some(format!(
                "listening on descriptor {fd}, passed by systemd (socket activation)"
            )),
        });
    }
    let candidates = addr.resolve_in(settings.family)?;
    let dual_stack = addr.host.is_none() && settings.family.is_none();
    let mut last = None;
    for candidate in candidates {
        match bind_one(candidate, dual_stack, settings) {
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
    let socket = match new_socket(&addr) {
        // No IPv6 on this host: every IPv4 address instead.
        Err(e) if dual_stack && e.raw_os_error() == Some(libc::EAFNOSUPPORT) => {
            let v4 = SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), addr.port());
            return bind_one(v4, false, settings);
        }
        other => other?,
    };
    socket.set_reuse_address(true)?;
    if addr.is_ipv6() {
        socket.set_only_v6(!dual_stack)?;
    }
    let warning = match settings.buffer_bytes {
        Some(b) => set_buffers(&socket, b)?,
        None => None,
    };
    socket.bind(&SockAddr::from(addr))?;
    socket.listen(8)?;
    Ok((TcpListener::from(socket), warning))
}

impl Listener {
    /// The address and port bound: the port the system chose for port 0.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Accepts one waiting connection (blocking if none is waiting).
    pub fn accept_one(&self) -> io::Result<(TcpStream, SocketAddr)> {
        self.socket.accept()
    }

    /// Makes `accept_one` return at once when no connection waits, for a
    /// listener that is polled (a service's).
    pub fn accept_without_waiting(&self) -> io::Result<()> {
        self.socket.set_nonblocking(true)
    }
}

impl AsFd for Listener {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.socket.as_fd()
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
        match peer.resolve_in(settings.family) {
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
    let socket = new_socket(&addr)?;
    let warning = match settings.buffer_bytes {
        Some(b) => set_buffers(&socket, b)?,
        None => None,
    };
    // Non-blocking connect, waited on for at most `limit`; the socket is
    // blocking again when it returns.
    match socket.connect_timeout(&SockAddr::from(addr), limit) {
        // A timeout of our own wait, not the kernel's ETIMEDOUT.
        Err(e) if e.kind() == io::ErrorKind::TimedOut && e.raw_os_error().is_none() => Err(
            io::Error::new(io::ErrorKind::TimedOut, "no answer (connect timed out)"),
        ),
        Err(e) => Err(e),
        Ok(()) => Ok((TcpStream::from(socket), warning)),
    }
}

/// Turns on keepalive and, with `--timeout`, the stall limits.
pub fn tune(stream: &TcpStream, settings: &NetSettings) -> io::Result<()> {
    let socket = SockRef::from(stream);
    socket.set_tcp_keepalive(&KEEPALIVE)?;
    if let Some(limit) = settings.stall {
        stream.set_read_timeout(Some(limit))?;
        stream.set_write_timeout(Some(limit))?;
        socket.set_tcp_user_timeout(Some(limit))?;
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

    /// A timeout as the peer that `what` (sent, took) nothing for `--timeout`.
    pub fn explain(&self, e: io::Error, what: &str) -> io::Error {
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
    fn tuning_sets_keepalive_and_the_stall_limits() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let settings = NetSettings {
            stall: Some(Duration::from_secs(7)),
            ..NetSettings::default()
        };
        tune(&stream, &settings).unwrap();
        let s = SockRef::from(&stream);
        assert!(s.keepalive().unwrap());
        assert_eq!(s.tcp_keepalive_time().unwrap(), Duration::from_secs(60));
        assert_eq!(s.tcp_keepalive_interval().unwrap(), Duration::from_secs(10));
        assert_eq!(s.tcp_keepalive_retries().unwrap(), 6);
        assert_eq!(s.tcp_user_timeout().unwrap(), Some(Duration::from_secs(7)));
        assert_eq!(stream.read_timeout().unwrap(), Some(Duration::from_secs(7)));
        assert_eq!(
            stream.write_timeout().unwrap(),
            Some(Duration::from_secs(7))
        );
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
