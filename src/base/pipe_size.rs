//! Larger pipe buffers. A pipe holds 64 KiB by default, so moving a 1 MiB
//! block through one takes sixteen wake-ups of each side. When an endpoint
//! is a pipe, tapebuf asks the kernel to size it to one block, and to at
//! least 1 MiB so that small blocks still let the neighbour run ahead
//! (capped by /proc/sys/fs/pipe-max-size). Pipe buffers are kernel memory,
//! not part of the process's RSS. This is only a speed-up: refusal is fine.

use std::os::fd::AsFd;

use nix::fcntl::{fcntl, FcntlArg};
use nix::sys::stat::{fstat, SFlag};

/// The pipe size asked for even when blocks are small.
const MIN_PIPE_BYTES: usize = 1 << 20;

/// Grows the pipe behind `fd` to hold a block, if it is a pipe and smaller.
pub fn grow_to(fd: impl AsFd, block_bytes: usize) {
    let bytes = block_bytes.max(MIN_PIPE_BYTES);
    let fd = fd.as_fd();
    let is_fifo = fstat(fd)
        .map(|st| SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits()) == SFlag::S_IFIFO)
        .unwrap_or(false);
    if !is_fifo {
        return;
    }
    let current = fcntl(fd, FcntlArg::F_GETPIPE_SZ).unwrap_or(0).max(0) as usize;
    if current >= bytes {
        return;
    }
    let limit = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(1 << 20);
    let want = bytes.min(limit).min(i32::MAX as usize) as i32;
    let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(want));
}
