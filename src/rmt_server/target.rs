//! What the server opens: the [`Opener`] and [`Target`] traits that the
//! session drives, and their implementation over real files and devices.
//!
//! The traits are the seam for tests: `drive_target.rs` puts tapebuf's
//! emulated tape drive behind them, so a client can be tested end to end
//! against the server in-process. Invariant: an opener is only ever given
//! a canonical path that the policy admitted, and [`FileOpener`] opens it
//! beneath its allowed root without following a symbolic link at any
//! component (`beneath.rs`), so a link slipped in after the check, even
//! in place of a directory on the way, fails the open (ELOOP) instead of
//! leading elsewhere.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::path::Path;

use nix::unistd::{lseek, Whence};

use super::beneath::open_beneath;
use super::flags::OpenFlags;
use crate::tape::drive::mtio::{self, MtGet};

/// Opens what an O request names.
pub trait Opener {
    /// Opens the canonical, admitted `path` with `flags`.
    fn open(&mut self, path: &Path, flags: OpenFlags) -> io::Result<Box<dyn Target>>;

    /// Opens `path`, which lies beneath the allowed directory `root`,
    /// reaching it from `root` only. Openers with no file system of their
    /// own (the emulated drive) need not care, and by default just open.
    fn open_beneath(
        &mut self,
        root: &Path,
        path: &Path,
        flags: OpenFlags,
    ) -> io::Result<Box<dyn Target>> {
        let _ = root;
        self.open(path, flags)
    }
}

/// An open device or file, as the requests use it. Each method is one
/// system call's worth of work; the session does any looping.
pub trait Target: Send {
    /// One write(2): the bytes written, which may be fewer than given.
    fn write(&mut self, data: &[u8]) -> io::Result<usize>;
    /// One read(2): 0 means end of file, or a filemark on a tape.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// lseek(2) with `whence` 0, 1 or 2; the new offset.
    fn seek(&mut self, whence: i32, offset: i64) -> io::Result<u64>;
    /// MTIOCTOP with the Linux `op` code, `count` times.
    fn ioctl(&mut self, op: i32, count: i32) -> io::Result<()>;
    /// MTIOCGET: the raw `struct mtget`, [`std::mem::size_of::<MtGet>`]
    /// bytes in this machine's layout.
    fn status(&mut self) -> io::Result<Vec<u8>>;
    /// Closes, reporting errors that show only at close (a tape writes
    /// its filemark then).
    fn close(self: Box<Self>) -> io::Result<()>;
}

/// Opens real files and devices, following no symbolic link on the way
/// (`beneath.rs`); [`Opener::open`] walks from `/`.
#[derive(Debug, Default)]
pub struct FileOpener;

impl Opener for FileOpener {
    fn open(&mut self, path: &Path, flags: OpenFlags) -> io::Result<Box<dyn Target>> {
        self.open_beneath(Path::new("/"), path, flags)
    }

    fn open_beneath(
        &mut self,
        root: &Path,
        path: &Path,
        flags: OpenFlags,
    ) -> io::Result<Box<dyn Target>> {
        let bits = flags.bits() | libc::O_NOCTTY | libc::O_NOFOLLOW;
        let file = open_beneath(root, path, bits, 0o666)?;
        Ok(Box::new(FileTarget { file }))
    }
}

/// A file or device opened by [`FileOpener`].
#[derive(Debug)]
pub struct FileTarget {
    file: File,
}

impl FileTarget {
    pub fn new(file: File) -> FileTarget {
        FileTarget { file }
    }
}

/// Retries `f` while the system call was interrupted.
fn retrying<T>(mut f: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

impl Target for FileTarget {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        retrying(|| self.file.write(data))
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        retrying(|| self.file.read(buf))
    }

    fn seek(&mut self, whence: i32, offset: i64) -> io::Result<u64> {
        let whence = match whence {
            libc::SEEK_SET => Whence::SeekSet,
            libc::SEEK_CUR => Whence::SeekCur,
            libc::SEEK_END => Whence::SeekEnd,
            _ => return Err(io::Error::from_raw_os_error(libc::EINVAL)),
        };
        let at = lseek(self.file.as_fd(), offset, whence).map_err(io::Error::from)?;
        Ok(at as u64)
    }

    fn ioctl(&mut self, op: i32, count: i32) -> io::Result<()> {
        let op =
            libc::c_short::try_from(op).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        retrying(|| mtio::op(self.file.as_fd(), op, count))
    }

    fn status(&mut self) -> io::Result<Vec<u8>> {
        mtio::status(self.file.as_fd()).map(|s| mtget_bytes(&s))
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        crate::base::close::close_reporting(self.file)
    }
}

/// The bytes of `s` as the C structure lays them out: its fields in
/// order, in native byte order, with no padding (five longs then two
/// ints; `tests/tape/mtio_abi.rs` checks the layout against the C header).
pub fn mtget_bytes(s: &MtGet) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of::<MtGet>());
    for long in [s.mt_type, s.mt_resid, s.mt_dsreg, s.mt_gstat, s.mt_erreg] {
        out.extend_from_slice(&long.to_ne_bytes());
    }
    out.extend_from_slice(&s.mt_fileno.to_ne_bytes());
    out.extend_from_slice(&s.mt_blkno.to_ne_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtget_bytes_are_exactly_the_c_structure() {
        let s = MtGet {
            mt_type: 0x72,
            mt_gstat: mtio::GMT_ONLINE,
            mt_fileno: 3,
            mt_blkno: -1,
            ..MtGet::default()
        };
        let bytes = mtget_bytes(&s);
        assert_eq!(bytes.len(), std::mem::size_of::<MtGet>());
        // SAFETY: MtGet is repr(C) plain data with no padding (asserted by
        // the length check above), so its bytes are all initialised.
        let raw =
            unsafe { std::slice::from_raw_parts((&s as *const MtGet).cast::<u8>(), bytes.len()) };
        assert_eq!(bytes, raw);
    }

    #[test]
    fn a_regular_file_is_not_a_tape() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut t = FileOpener.open(&path, OpenFlags::WRITE_NEW).unwrap();
        assert_eq!(
            t.ioctl(6, 1).unwrap_err().raw_os_error(),
            Some(libc::ENOTTY)
        );
        assert_eq!(t.status().unwrap_err().raw_os_error(), Some(libc::ENOTTY));
        assert_eq!(t.write(b"hello").unwrap(), 5);
        assert_eq!(t.seek(1, -2).unwrap(), 3);
        t.close().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello");
    }

    #[test]
    fn does_not_follow_a_final_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let e = FileOpener
            .open(&dir.path().join("link"), OpenFlags::READ)
            .err()
            .unwrap();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    }
}
