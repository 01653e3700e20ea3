//! Closing a descriptor and hearing its error: NFS and some devices report
//! write errors only at close(2), which dropping a `File` ignores. Every
//! output that is a file or a device is closed through here.

use std::fs::File;
use std::io;
use std::os::fd::IntoRawFd;

/// Closes `file` explicitly: NFS and some devices report write errors only
/// at close(2), which dropping a File would ignore.
pub fn close_reporting(file: File) -> io::Result<()> {
    let fd = file.into_raw_fd();
    // SAFETY: `fd` was just released by its File, so it is closed once.
    if unsafe { libc::close(fd) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
