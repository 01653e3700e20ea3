//! Kernel pipes as buffers: the zero-copy ring keeps each block in a pipe
//! of its own and moves bytes with splice(2) and tee(2), so they never
//! cross user space.
//!
//! Invariants kept here:
//! - a pipe's size is exactly what was asked for, or it is not made: the
//!   kernel rounds sizes up to a power of two pages, so only such sizes are
//!   asked for (see [`pipe_bytes_for`]);
//! - a fill never waits on a full pipe: before each splice after the first,
//!   the pipe is asked (poll, no wait) whether it has a free slot. A pipe
//!   holds at most one piece per page slot, so an input that arrives in
//!   small pieces fills the slots before the bytes;
//! - a descriptor left non-blocking by a parent is waited for with poll, as
//!   `blocking.rs` does for reads and writes.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use nix::errno::Errno;
use nix::fcntl::{fcntl, splice, tee, FcntlArg, OFlag, SpliceFFlags};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// The page size pipe slots are counted in.
const SLOT_BYTES: usize = 4096;

/// The pipe size that holds a block of `block_bytes` exactly, when the
/// kernel can make one: a power of two pages. None for other sizes, which
/// the kernel would round up, so that `-m` would no longer bound the ring.
pub fn pipe_bytes_for(block_bytes: usize) -> Option<usize> {
    let fits = block_bytes >= SLOT_BYTES
        && block_bytes.is_multiple_of(SLOT_BYTES)
        && (block_bytes / SLOT_BYTES).is_power_of_two();
    fits.then_some(block_bytes)
}

/// The kernel's largest pipe for a process without CAP_SYS_RESOURCE.
pub fn pipe_max_bytes() -> Option<usize> {
    read_proc_number("/proc/sys/fs/pipe-max-size")
}

/// The per-user soft limit on pipe memory, in bytes; None when unlimited.
pub fn user_pipe_soft_limit_bytes() -> Option<u64> {
    read_proc_number("/proc/sys/fs/pipe-user-pages-soft")
        .filter(|&pages| pages > 0)
        .map(|pages| pages as u64 * SLOT_BYTES as u64)
}

fn read_proc_number(path: &str) -> Option<usize> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// One pipe used as a buffer: both ends, and its size.
#[derive(Debug)]
pub struct KernelPipe {
    read: OwnedFd,
    write: OwnedFd,
    bytes: usize,
}

impl KernelPipe {
    /// A new pipe of exactly `bytes` (a power of two pages). Fails with
    /// the kernel's error: EPERM over `pipe-max-size` or over the user's
    /// pipe limit, EMFILE/ENFILE when out of descriptors.
    pub fn new(bytes: usize) -> io::Result<KernelPipe> {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(io::Error::from)?;
        let asked =
            i32::try_from(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        let got = fcntl(&write, FcntlArg::F_SETPIPE_SZ(asked)).map_err(io::Error::from)?;
        if got as usize != bytes {
            return Err(io::Error::other(format!(
                "the kernel made a pipe of {got} bytes, not {bytes}"
            )));
        }
        Ok(KernelPipe { read, write, bytes })
    }

    /// The pipe's size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The bytes the pipe holds now (FIONREAD).
    pub fn held(&self) -> io::Result<usize> {
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int to the pointer, which is valid.
        let rc = unsafe {
            libc::ioctl(
                std::os::fd::AsRawFd::as_raw_fd(&self.read),
                libc::FIONREAD,
                &mut n,
            )
        };
        Errno::result(rc).map_err(io::Error::from)?;
        Ok(n.max(0) as usize)
    }

    /// True when the pipe has a free slot, so a splice into it cannot wait
    /// for room. Nobody reads the pipe while it is filled, so the answer
    /// holds until the next splice.
    pub fn has_room(&self) -> bool {
        let mut fds = [PollFd::new(self.write.as_fd(), PollFlags::POLLOUT)];
        matches!(poll(&mut fds, PollTimeout::ZERO), Ok(1))
    }

    /// Moves up to `max` bytes from `from` into the pipe with one splice:
    /// the count moved, 0 at the end of the input.
    pub fn splice_in(&self, from: BorrowedFd<'_>, max: usize) -> io::Result<usize> {
        moving(from, PollFlags::POLLIN, || {
            splice(
                from,
                None,
                &self.write,
                None,
                max,
                SpliceFFlags::SPLICE_F_MOVE,
            )
        })
    }

    /// Moves up to `max` bytes from the pipe to `to` with one splice.
    pub fn splice_out(&self, to: BorrowedFd<'_>, max: usize) -> io::Result<usize> {
        moving(to, PollFlags::POLLOUT, || {
            splice(&self.read, None, to, None, max, SpliceFFlags::SPLICE_F_MOVE)
        })
    }

    /// Duplicates the first `len` bytes of this pipe into `other`, which
    /// must be empty and at least as large, without consuming them. tee
    /// cannot resume part-way, so anything short of `len` is an error.
    pub fn tee_into(&self, other: &KernelPipe, len: usize) -> io::Result<()> {
        let copied = loop {
            match tee(&self.read, &other.write, len, SpliceFFlags::empty()) {
                Err(Errno::EINTR) => continue,
                other => break other.map_err(io::Error::from)?,
            }
        };
        if copied != len {
            return Err(io::Error::other(format!(
                "tee(2) duplicated {copied} of a block's {len} bytes"
            )));
        }
        Ok(())
    }

    /// Empties the pipe: whatever an output did not take (the fan-out's
    /// tees take nothing, a failed output leaves the rest) goes to
    /// /dev/null by splice, so nothing is copied.
    pub fn empty(&self) -> io::Result<()> {
        let mut left = self.held()?;
        while left > 0 {
            let moved = self.splice_out(dev_null()?.as_fd(), left)?;
            if moved == 0 {
                break;
            }
            left = left.saturating_sub(moved);
        }
        Ok(())
    }
}

/// /dev/null, opened once for the whole process.
fn dev_null() -> io::Result<&'static File> {
    static NULL: OnceLock<Option<File>> = OnceLock::new();
    NULL.get_or_init(|| {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .ok()
    })
    .as_ref()
    .ok_or_else(|| io::Error::other("cannot open /dev/null"))
}

/// Runs one splice, retrying an interrupted call and waiting with poll when
/// the endpoint was left non-blocking.
fn moving(
    endpoint: BorrowedFd<'_>,
    ready: PollFlags,
    mut call: impl FnMut() -> nix::Result<usize>,
) -> io::Result<usize> {
    loop {
        match call() {
            Ok(n) => return Ok(n),
            Err(Errno::EINTR) => {}
            Err(Errno::EAGAIN) => {
                let mut fds = [PollFd::new(endpoint, ready)];
                match poll(&mut fds, PollTimeout::NONE) {
                    Ok(_) | Err(Errno::EINTR) => {}
                    Err(e) => return Err(io::Error::from(e)),
                }
            }
            Err(e) => return Err(io::Error::from(e)),
        }
    }
}

/// How a fill of a pipe from an input ended, as `source::Filled` says it.
#[derive(Debug)]
pub enum PipeFill {
    /// The pipe holds the bytes asked for, or all its slots are taken.
    Full(usize),
    /// The input ended after these bytes.
    Ended(usize),
    /// Reading failed after these bytes.
    Failed(usize, io::Error),
}

/// Fills `pipe` with up to `want` bytes from `from`, counting each piece in
/// `arrived` as it lands. Stops early, before it would wait for room, once
/// every slot of the pipe is taken (a pipe that was not emptied first
/// fails at once, never waits).
pub fn fill_pipe(
    pipe: &KernelPipe,
    from: BorrowedFd<'_>,
    want: usize,
    arrived: &AtomicU64,
) -> PipeFill {
    let mut bytes = 0;
    while bytes < want {
        if !pipe.has_room() {
            if bytes == 0 {
                let e = io::Error::other("a block's pipe was full before it was filled");
                return PipeFill::Failed(0, e);
            }
            break;
        }
        match pipe.splice_in(from, want - bytes) {
            Ok(0) => return PipeFill::Ended(bytes),
            Ok(n) => {
                bytes += n;
                arrived.fetch_add(n as u64, Relaxed);
            }
            Err(e) => return PipeFill::Failed(bytes, e),
        }
    }
    PipeFill::Full(bytes)
}

/// Moves exactly `len` bytes from `pipe` to `to`. On failure, the bytes
/// that went out before it, and the error.
pub fn drain_pipe(
    pipe: &KernelPipe,
    to: BorrowedFd<'_>,
    len: usize,
) -> Result<(), (usize, io::Error)> {
    let mut done = 0;
    while done < len {
        match pipe.splice_out(to, len - done) {
            Ok(0) => return Err((done, io::ErrorKind::WriteZero.into())),
            Ok(n) => done += n,
            Err(e) => return Err((done, e)),
        }
    }
    Ok(())
}

/// Why `fd` cannot be an endpoint of the zero-copy ring, or None when it
/// can: it must be a pipe, a stream socket or a regular file, and splice
/// refuses files opened for appending or with O_DIRECT.
pub fn splice_refusal(fd: BorrowedFd<'_>) -> Option<&'static str> {
    use nix::sys::stat::{fstat, SFlag};
    let Ok(st) = fstat(fd) else {
        return Some("cannot be examined (fstat failed)");
    };
    let kind = SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits());
    let flags = fcntl(fd, FcntlArg::F_GETFL)
        .map(OFlag::from_bits_truncate)
        .unwrap_or(OFlag::empty());
    if kind == SFlag::S_IFSOCK {
        let stream = nix::sys::socket::getsockopt(&fd, nix::sys::socket::sockopt::SockType)
            .is_ok_and(|t| t == nix::sys::socket::SockType::Stream);
        if !stream {
            return Some("is a socket that is not a stream");
        }
    } else if kind != SFlag::S_IFIFO && kind != SFlag::S_IFREG {
        return Some("is not a pipe, a socket or a regular file");
    } else if kind == SFlag::S_IFREG && on_pseudo_filesystem(fd) {
        return Some("is a file of /proc or /sys, which splice(2) does not serve");
    }
    if flags.contains(OFlag::O_APPEND) {
        return Some("is open for appending, which splice(2) refuses");
    }
    if flags.contains(OFlag::O_DIRECT) {
        return Some("is open with O_DIRECT");
    }
    None
}

/// True for a file of /proc or /sys: they look like regular files, but
/// splice(2) refuses many of them (EINVAL).
fn on_pseudo_filesystem(fd: BorrowedFd<'_>) -> bool {
    use nix::sys::statfs::{fstatfs, PROC_SUPER_MAGIC, SYSFS_MAGIC};
    fstatfs(fd).is_ok_and(|fs| {
        let kind = fs.filesystem_type();
        kind == PROC_SUPER_MAGIC || kind == SYSFS_MAGIC
    })
}

#[cfg(test)]
#[path = "kernel_pipe_tests.rs"]
mod tests;
