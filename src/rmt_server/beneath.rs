//! Opening an admitted path so that nothing changed after the check can
//! lead anywhere else: the last step between the policy and the file.
//!
//! The policy judges a canonical path, a path with no symbolic link and no
//! `..` in it when it was resolved. Between that check and the open,
//! another local user who can write inside an allowed directory may swap
//! one of its directories for a symbolic link. O_NOFOLLOW guards only the
//! last component, so the open here follows no link at any component: the
//! allowed root (the literal directories of the pattern that admitted the
//! path) is opened as an O_PATH descriptor, and the rest is opened beneath
//! it with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`. Where the
//! kernel has no openat2 (ENOSYS, before Linux 5.6) the same holds by a
//! walk, one component at a time, with O_PATH | O_NOFOLLOW | O_DIRECTORY.
//!
//! Invariant: the file returned is the one named by the canonical path's
//! own directory entries, reached without following any symbolic link;
//! a link anywhere on the way fails the open with ELOOP, and a path not
//! beneath the root with EXDEV.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// How a path is walked: the kernel's openat2, or our own walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Openat2,
    Walk,
}

/// Opens the canonical `path`, which must lie beneath the canonical
/// directory `root`, with open(2) `flags` and `mode`, following no
/// symbolic link on the way (see the module documentation).
pub fn open_beneath(root: &Path, path: &Path, flags: i32, mode: u32) -> io::Result<File> {
    match open_with(Method::Openat2, root, path, flags, mode) {
        Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
            open_with(Method::Walk, root, path, flags, mode)
        }
        other => other,
    }
}

/// [`open_beneath`] with the walk chosen by the caller (tests use both).
pub fn open_with(
    method: Method,
    root: &Path,
    path: &Path,
    flags: i32,
    mode: u32,
) -> io::Result<File> {
    let rest = path
        .strip_prefix(root)
        .map_err(|_| io::Error::from_raw_os_error(libc::EXDEV))?;
    let slash = open_path_dir(libc::AT_FDCWD, Path::new("/"))?;
    let root_rel = root.strip_prefix("/").unwrap_or(root);
    let root_fd = if root_rel.as_os_str().is_empty() {
        slash
    } else {
        open_at(method, &slash, root_rel, dir_flags(), 0)?
    };
    let rest = if rest.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rest
    };
    let fd = open_at(method, &root_fd, rest, flags | libc::O_CLOEXEC, mode)?;
    Ok(File::from(fd))
}

/// The flags of a directory held only to walk from.
fn dir_flags() -> i32 {
    libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC
}

/// Opens the relative `rest` beneath `dir`, following no symbolic link.
fn open_at(
    method: Method,
    dir: &OwnedFd,
    rest: &Path,
    flags: i32,
    mode: u32,
) -> io::Result<OwnedFd> {
    for component in rest.components() {
        if !matches!(component, Component::Normal(_) | Component::CurDir) {
            // A canonical path has no `..` and no second root.
            return Err(io::Error::from_raw_os_error(libc::EXDEV));
        }
    }
    match method {
        Method::Openat2 => openat2(dir.as_raw_fd(), rest, flags, mode),
        Method::Walk => walk(dir, rest, flags, mode),
    }
}

/// One openat2(2) call with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS.
fn openat2(dir: RawFd, rest: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let name = c_path(rest)?;
    let creates = flags & libc::O_CREAT != 0 || flags & libc::O_TMPFILE == libc::O_TMPFILE;
    // SAFETY: open_how is plain data; all-zero is its documented default.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u32 as u64;
    how.mode = if creates { u64::from(mode) } else { 0 };
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    loop {
        // SAFETY: `name` is a valid C string and `how` a valid open_how of
        // the size passed; the kernel reads both and returns a new fd.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir,
                name.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            // SAFETY: the kernel just returned this descriptor to us alone.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// The same as [`openat2`] by hand: every directory on the way is opened
/// with O_PATH | O_NOFOLLOW | O_DIRECTORY, the last component with
/// O_NOFOLLOW, each relative to the one before.
fn walk(dir: &OwnedFd, rest: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let names: Vec<&Path> = rest
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .map(|c| Path::new(c.as_os_str()))
        .collect();
    let Some((last, dirs)) = names.split_last() else {
        return openat(dir.as_raw_fd(), Path::new("."), flags, mode);
    };
    let mut here: Option<OwnedFd> = None;
    for name in dirs {
        let from = here.as_ref().unwrap_or(dir).as_raw_fd();
        here = Some(open_nofollow(from, name, dir_flags(), 0)?);
    }
    let from = here.as_ref().unwrap_or(dir).as_raw_fd();
    open_nofollow(from, last, flags, mode)
}

/// One step of the walk, with O_NOFOLLOW. With O_DIRECTORY a link fails
/// with ENOTDIR; it is told as ELOOP, as openat2 tells it.
fn open_nofollow(dir: RawFd, name: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let e = match openat(dir, name, flags | libc::O_NOFOLLOW, mode) {
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => e,
        other => return other,
    };
    let flag = nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW;
    // SAFETY: `dir` is open for the whole of this call (the caller owns it).
    let dir = unsafe { std::os::fd::BorrowedFd::borrow_raw(dir) };
    match nix::sys::stat::fstatat(dir, name, flag) {
        Ok(st) if st.st_mode & libc::S_IFMT == libc::S_IFLNK => {
            Err(io::Error::from_raw_os_error(libc::ELOOP))
        }
        _ => Err(e),
    }
}

/// openat(2), retried when interrupted.
fn openat(dir: RawFd, name: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let name = c_path(name)?;
    loop {
        // SAFETY: `name` is a valid C string; openat returns a new fd.
        let fd = unsafe { libc::openat(dir, name.as_ptr(), flags, mode as libc::c_uint) };
        if fd >= 0 {
            // SAFETY: the kernel just returned this descriptor to us alone.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// An O_PATH descriptor of the directory `path` (the walk's start).
fn open_path_dir(dir: RawFd, path: &Path) -> io::Result<OwnedFd> {
    openat(dir, path, dir_flags(), 0)
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
