//! Replacing a file whole: the new content goes to a temporary nobody can
//! name in advance, is synced, and is renamed over the target inside the
//! target's own directory, which is then synced. A reader sees the old
//! file or the new one; a symlink at the target is replaced, never
//! followed; a temporary is removed on every path that does not commit.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use super::output::{self, Resolved};
use super::{new, sys};

/// A replacement under way: write through `file()`, then `commit`.
/// Dropped uncommitted, it leaves the target as it was and no temporary.
pub struct Replacement {
    file: File,
    dir: File,
    target: OsString,
    /// The temporary's name, once it has one (an O_TMPFILE has none
    /// until commit links it).
    named: Option<OsString>,
    committed: bool,
}

impl Replacement {
    /// Starts replacing `target`. A new file gets `mode` (less the umask);
    /// an existing regular file's permission bits are kept.
    pub fn begin(target: &Path, mode: u32) -> io::Result<Replacement> {
        let name = sys::file_name(target)?.to_os_string();
        if let Some(why) = not_replaceable(target)? {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
        }
        let dir = sys::open_dir(sys::parent_of(target))?;
        let (file, named) = match new::anonymous(&dir, mode)? {
            Some(file) => (file, None),
            None => {
                let (file, tmp) = new::named_temporary(&dir, &name, mode)?;
                (file, Some(tmp))
            }
        };
        let replacement = Replacement {
            file,
            dir,
            target: name,
            named,
            committed: false,
        };
        if let Ok(old) = std::fs::symlink_metadata(target) {
            if old.is_file() {
                let bits = old.mode() & 0o7777 & !0o6000;
                replacement
                    .file
                    .set_permissions(std::fs::Permissions::from_mode(bits))?;
            }
        }
        Ok(replacement)
    }

    /// The temporary, open for reading and writing.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Syncs the temporary, renames it over the target and syncs the
    /// directory.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.sync_all()?;
        let tmp = match self.named.clone() {
            Some(tmp) => tmp,
            None => self.link_anonymous()?,
        };
        sys::rename_in(&self.dir, &tmp, &self.target)?;
        self.committed = true;
        self.dir.sync_all()
    }

    /// Gives the O_TMPFILE a random name beside the target; where linking
    /// it is refused (no /proc, no capability), its bytes are copied to a
    /// named temporary instead.
    fn link_anonymous(&mut self) -> io::Result<OsString> {
        let mut last = None;
        for _ in 0..10 {
            let mut tmp = OsString::from(".");
            tmp.push(&self.target);
            tmp.push(format!(".{}.tmp", sys::random_hex()?));
            match sys::link_in(&self.file, &self.dir, &tmp) {
                Ok(()) => {
                    self.named = Some(tmp.clone());
                    return Ok(tmp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(_) => return self.copy_to_named(),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no temporary name was free")))
    }

    fn copy_to_named(&mut self) -> io::Result<OsString> {
        let mode = self.file.metadata()?.mode() & 0o7777;
        let (mut named, tmp) = new::named_temporary(&self.dir, &self.target, mode)?;
        self.named = Some(tmp.clone());
        let mut from = self.file.try_clone()?;
        io::Seek::rewind(&mut from)?;
        io::copy(&mut from, &mut named)?;
        named.sync_all()?;
        self.file = named;
        Ok(tmp)
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if let (false, Some(tmp)) = (self.committed, &self.named) {
            let _ = sys::unlink_in(&self.dir, tmp);
        }
    }
}

/// Replaces `target` with `bytes` (see `Replacement`).
pub fn replace_with(target: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let replacement = Replacement::begin(target, mode)?;
    let mut file = replacement.file();
    file.write_all(bytes)?;
    replacement.commit()
}

/// Why `target` may not be replaced: only a regular file, nothing, or a
/// symlink to either (itself replaced) is. A device, FIFO or directory,
/// or a link to one or to an open descriptor (`/dev/stdout`, `/dev/null`),
/// would be destroyed by a rename over it.
fn not_replaceable(target: &Path) -> io::Result<Option<String>> {
    let kind = |meta: &std::fs::Metadata| {
        let t = meta.file_type();
        (t.is_file() || t.is_symlink())
            .then_some(())
            .ok_or("not a regular file")
    };
    let here = match std::fs::symlink_metadata(target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let why = if !here.file_type().is_symlink() {
        kind(&here).err()
    } else {
        match output::resolve(target)? {
            Resolved::Descriptor => Some("a link to an open descriptor, not a regular file"),
            Resolved::Name(end) => match std::fs::symlink_metadata(&end) {
                Ok(meta) => kind(&meta)
                    .err()
                    .map(|_| "a link to something not a regular file"),
                Err(_) => None,
            },
        }
    };
    Ok(why.map(|w| format!("is {w}; only a regular file is replaced")))
}

/// Writes a record made whole at the end of a run (`--summary-json`,
/// `--hash-file`): where a regular file, a symlink to one or nothing is
/// at `path`, it is replaced (the link itself, never its target); where
/// a FIFO, device or open descriptor is, reached through links the caller
/// or root owns (`/dev/stdout`), it is truncated and written as it is.
pub fn write_record(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    if not_replaceable(path)?.is_none() {
        return replace_with(path, bytes, mode);
    }
    let flags = libc::O_WRONLY | libc::O_TRUNC;
    let mut file = output::open_existing(path, flags)?;
    file.write_all(bytes)
}
