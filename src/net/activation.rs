//! Listening sockets handed over by systemd's socket activation: when
//! `LISTEN_PID` is this process, the `LISTEN_FDS` descriptors from 3 up
//! are sockets systemd bound for it (sd_listen_fds(3)). `-I PORT` takes the
//! one that listens for TCP on that port instead of binding its own, so a
//! unit's `ExecStart=tapebuf -I 9090 ...` works the same started by hand
//! or by its `.socket` unit with `ListenStream=9090`.
//!
//! Each descriptor is taken at most once, is checked to be a listening
//! stream socket before it is used, and is made close-on-exec so that no
//! `--to` command inherits it. Descriptors that match no `-I` are left
//! alone.

use std::io;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, RawFd};
use std::sync::Mutex;

use nix::fcntl::{fcntl, FcntlArg, FdFlag};
use nix::sys::socket::{getsockname, getsockopt, sockopt, SockType, SockaddrStorage};

/// The first descriptor systemd passes.
const FIRST_FD: RawFd = 3;

/// Descriptors already taken, so that no two listeners own one.
static TAKEN: Mutex<Vec<RawFd>> = Mutex::new(Vec::new());

/// The descriptors systemd passed to this process: none unless
/// `LISTEN_PID` is this process's id.
fn passed() -> std::ops::Range<RawFd> {
    let ours = std::env::var("LISTEN_PID")
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        .is_some_and(|pid| pid == std::process::id());
    let count = std::env::var("LISTEN_FDS")
        .ok()
        .and_then(|n| n.trim().parse::<RawFd>().ok())
        .filter(|_| ours)
        .unwrap_or(0)
        .clamp(0, 1024);
    FIRST_FD..FIRST_FD + count
}

/// The passed listening TCP socket on `port` (port 0: the first passed),
/// if there is one; taken from then on.
pub fn take(port: u16) -> io::Result<Option<(RawFd, TcpListener)>> {
    let mut taken = crate::base::sync::lock(&TAKEN);
    for fd in passed() {
        // SAFETY: only borrowed for the checks below; a descriptor that
        // is not open fails them.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        let wanted = |p: u16| port == 0 || p == port;
        if taken.contains(&fd) || !listening_port(borrowed).is_some_and(wanted) {
            continue;
        }
        fcntl(borrowed, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(io::Error::from)?;
        taken.push(fd);
        // SAFETY: systemd passed `fd` to this process, nothing else in it
        // owns it (it was not taken before, and nothing opens descriptors
        // by number), and it is a listening stream socket, checked above.
        return Ok(Some((fd, unsafe { TcpListener::from_raw_fd(fd) })));
    }
    Ok(None)
}

/// The port `fd` listens on, if it is a listening TCP socket.
fn listening_port(fd: BorrowedFd<'_>) -> Option<u16> {
    let listening = getsockopt(&fd, sockopt::AcceptConn).ok()?;
    let stream = getsockopt(&fd, sockopt::SockType).ok()? == SockType::Stream;
    if !listening || !stream {
        return None;
    }
    let addr: SockaddrStorage = getsockname(fd.as_raw_fd()).ok()?;
    (addr.as_sockaddr_in().map(|a| a.port())).or_else(|| addr.as_sockaddr_in6().map(|a| a.port()))
}
