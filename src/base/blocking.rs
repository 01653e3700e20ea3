//! Blocking I/O on descriptors that may have been left non-blocking.
//!
//! A parent can hand tapebuf a stdin or stdout with O_NONBLOCK set (the
//! flag lives in the shared open file, so our duplicate inherits it). A
//! read or write then fails with EAGAIN instead of waiting. These adapters
//! wait for the descriptor with poll(2) and try again, so such a backup
//! behaves like any other; the watchdog and signals remain the way out.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// Reads and writes `file`, waiting instead of failing with EAGAIN.
pub struct Blocking<'a>(pub &'a File);

fn wait(file: &File, flags: PollFlags) -> io::Result<()> {
    let mut fds = [PollFd::new(file.as_fd(), flags)];
    match poll(&mut fds, PollTimeout::NONE) {
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
        Err(e) => Err(io::Error::from(e)),
    }
}

impl Read for Blocking<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match (&mut &*self.0).read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => wait(self.0, PollFlags::POLLIN)?,
                other => return other,
            }
        }
    }
}

impl Write for Blocking<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match (&mut &*self.0).write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait(self.0, PollFlags::POLLOUT)?
                }
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
