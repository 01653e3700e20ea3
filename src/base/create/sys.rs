//! The system calls under `create`: open relative to a directory, rename
//! and link inside one, and the random part of a temporary's name.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `text` as a C string; a NUL byte in a name is refused.
pub fn c_name(text: &OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the name"))
}

/// openat(2) with O_CLOEXEC always added; `dir` None means the working
/// directory (or an absolute `path`).
pub fn open_at(dir: Option<&File>, path: &OsStr, flags: i32, mode: u32) -> io::Result<File> {
    let name = c_name(path)?;
    let dirfd = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    // SAFETY: `name` is a valid C string that outlives the call; `dirfd`
    // is AT_FDCWD or a descriptor `dir` keeps open.
    let fd = unsafe {
        libc::openat(
            dirfd,
            name.as_ptr(),
            flags | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openat returned a new descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// The directory `path` names, opened to create, rename and sync in.
pub fn open_dir(path: &Path) -> io::Result<File> {
    open_at(
        None,
        path.as_os_str(),
        libc::O_RDONLY | libc::O_DIRECTORY,
        0,
    )
}

/// renameat(2) of `from` over `to`, both in `dir`.
pub fn rename_in(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (from, to) = (c_name(from)?, c_name(to)?);
    let d = dir.as_raw_fd();
    // SAFETY: both names are valid C strings; `d` is open for the call.
    let r = unsafe { libc::renameat(d, from.as_ptr(), d, to.as_ptr()) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// unlinkat(2) of `name` in `dir`.
pub fn unlink_in(dir: &File, name: &OsStr) -> io::Result<()> {
    let name = c_name(name)?;
    // SAFETY: a valid C string and a descriptor open for the call.
    let r = unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Gives the anonymous (O_TMPFILE) `file` the name `name` in `dir`,
/// through /proc/self/fd as unprivileged callers must, else through
/// AT_EMPTY_PATH (which needs CAP_DAC_READ_SEARCH).
pub fn link_in(file: &File, dir: &File, name: &OsStr) -> io::Result<()> {
    let name = c_name(name)?;
    let proc = c_name(OsStr::new(&format!("/proc/self/fd/{}", file.as_raw_fd())))?;
    // SAFETY: valid C strings; the descriptors are open for the call.
    let r = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            proc.as_ptr(),
            dir.as_raw_fd(),
            name.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if r == 0 {
        return Ok(());
    }
    let first = io::Error::last_os_error();
    if first.raw_os_error() == Some(libc::EEXIST) {
        return Err(first);
    }
    // SAFETY: as above, with an empty path naming `file` itself.
    let r = unsafe {
        libc::linkat(
            file.as_raw_fd(),
            c"".as_ptr(),
            dir.as_raw_fd(),
            name.as_ptr(),
            libc::AT_EMPTY_PATH,
        )
    };
    if r < 0 {
        return Err(first);
    }
    Ok(())
}

/// 64 random bits in hex, from getrandom(2): a temporary's name that no
/// other user can guess ahead of the run.
pub fn random_hex() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    let mut got = 0;
    while got < bytes.len() {
        // SAFETY: writes at most the rest of `bytes`, which is ours.
        let n = unsafe { libc::getrandom(bytes[got..].as_mut_ptr().cast(), bytes.len() - got, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        got += n as usize;
    }
    Ok(format!("{:016x}", u64::from_le_bytes(bytes)))
}

/// The directory a path's last component is in (`.` for a bare name).
pub fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The last component of `path`, which must name a file.
pub fn file_name(path: &Path) -> io::Result<&OsStr> {
    path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "names no file (it ends in .. or /)",
        )
    })
}
