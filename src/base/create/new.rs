//! New files: created exclusively, never through a name that is already
//! there (a planted symlink included), and temporaries under names nobody
//! can guess, or under no name at all.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::Path;

use super::sys;

/// The mode a backup or an extracted archive is created with, before the
/// umask: as a shell redirection makes it.
pub const DATA_MODE: u32 = 0o666;
/// The mode a record of a backup (manifest, catalog, report, log) is
/// created with, before the umask: readable by all, written by its owner.
pub const RECORD_MODE: u32 = 0o644;

/// How many random names are tried before a directory is called full of
/// them (each try colliding is a 2^-64 event unless someone plants them).
const NAME_TRIES: u32 = 100;

/// Creates `path` for writing with `O_CREAT|O_EXCL|O_NOFOLLOW`: fails with
/// AlreadyExists when anything, a symlink included, is there.
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    sys::open_at(
        None,
        path.as_os_str(),
        libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW,
        mode,
    )
}

/// Creates a file for reading and writing in `dir` under a fresh random
/// name `.STEM.RANDOM.tmp`, exclusively; returns it and its name.
pub fn named_temporary(dir: &File, stem: &OsStr, mode: u32) -> io::Result<(File, OsString)> {
    let mut last = None;
    for _ in 0..NAME_TRIES {
        let mut name = OsString::from(".");
        name.push(stem);
        name.push(format!(".{}.tmp", sys::random_hex()?));
        let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        match sys::open_at(Some(dir), &name, flags, mode) {
            Ok(file) => return Ok((file, name)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name was free")))
}

/// A file in `dir` that is never visible by name and vanishes when closed
/// (`O_TMPFILE`), for scratch data; where the filesystem cannot make one,
/// a random name created exclusively and unlinked at once. Mode 0600.
pub fn scratch(dir: &Path, stem: &OsStr) -> io::Result<File> {
    let dir = sys::open_dir(dir)?;
    if let Some(file) = anonymous(&dir, 0o600)? {
        return Ok(file);
    }
    let (file, name) = named_temporary(&dir, stem, 0o600)?;
    sys::unlink_in(&dir, &name)?;
    Ok(file)
}

/// An `O_TMPFILE` file in `dir`, or None where the kernel or filesystem
/// has none (EOPNOTSUPP, EISDIR from old kernels, EINVAL).
pub(super) fn anonymous(dir: &File, mode: u32) -> io::Result<Option<File>> {
    match sys::open_at(
        Some(dir),
        OsStr::new("."),
        libc::O_RDWR | libc::O_TMPFILE,
        mode,
    ) {
        Ok(file) => Ok(Some(file)),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL | libc::ENOENT)
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}
