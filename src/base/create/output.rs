//! Files the user names (`-o`, `-l`, `--stats`, `report -o`, `extract -o`,
//! probe's file target, the rmt server's audit log): created exclusively
//! when nothing is there, otherwise opened only as the user's policy says.
//!
//! The rule for symbolic links: a symlink in the last component is
//! followed only when it is owned by the caller or by root, hop by hop,
//! reading each link once through a descriptor so that it cannot be
//! swapped between the check and the open. `/dev/tape -> /dev/nst0`,
//! `/dev/stdout` and a user's own links keep working; a link another user
//! planted (in a group-writable backup directory, say) is refused, so root
//! is never steered into another file. The components before the last are
//! followed as the kernel follows them.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::{new, sys};

/// What to do with a file that is already at the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Nothing may be there: create it (`O_EXCL|O_NOFOLLOW`).
    Refuse,
    /// Create it, or truncate what is there (`-f`).
    Truncate,
    /// Create it, or append to what is there (`--append`, `-l`).
    Append,
    /// Open what is there as it is (a device, a FIFO); create nothing.
    AsIs,
}

/// How many links are followed before the name is called a loop, as the
/// kernel's own bound.
const MAX_HOPS: usize = 40;

/// Opens the output `path` for writing as `existing` says, creating a new
/// file with `mode` (less the umask).
pub fn open_output(path: &Path, existing: Existing, mode: u32) -> io::Result<File> {
    let flags = match existing {
        Existing::Refuse => return new::create_new(path, mode),
        Existing::Truncate => libc::O_WRONLY | libc::O_TRUNC,
        Existing::Append => libc::O_WRONLY | libc::O_APPEND,
        Existing::AsIs => return open_existing(path, libc::O_WRONLY),
    };
    // Created exclusively, or else opened without O_CREAT: no moment at
    // which a planted name is both created and followed.
    for _ in 0..MAX_HOPS {
        match new::create_new(path, mode) {
            Ok(file) if existing == Existing::Append => {
                drop(file);
                return open_existing(path, flags);
            }
            Ok(file) => return Ok(file),
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
            Err(_) => {}
        }
        match open_existing(path, flags) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && is_symlink(path) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    "is a symbolic link to nothing; tapebuf creates no file through a link",
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            other => return other,
        }
    }
    Err(io::Error::other("appeared and vanished again and again"))
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Opens `path` for appending, creating it with `mode` when missing: the
/// `-l` log and the rmt server's audit log.
pub fn append(path: &Path, mode: u32) -> io::Result<File> {
    open_output(path, Existing::Append, mode)
}

/// Opens the existing `path` with `flags`, following a last-component
/// symlink only when the caller or root owns it (see the module header).
pub fn open_existing(path: &Path, flags: i32) -> io::Result<File> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        match sys::open_at(None, path.as_os_str(), flags | libc::O_NOFOLLOW, 0) {
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => match hop(&path, e)? {
                Hop::Next(next) => path = next,
                // /proc/self/fd/N (`/dev/stdout`): the kernel resolves it
                // to this process's own descriptor, which no one plants.
                Hop::Magic => return sys::open_at(None, path.as_os_str(), flags, 0),
            },
            other => return other,
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// Where a name leads when its links are followed by the rule above.
pub enum Resolved {
    /// The name that is no link, or the first link another user owns.
    Name(PathBuf),
    /// A /proc link to an open descriptor (`/dev/stdout`).
    Descriptor,
}

/// Follows the links at `path` as `open_existing` would, without opening
/// what they lead to.
pub fn resolve(path: &Path) -> io::Result<Resolved> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {}
            _ => return Ok(Resolved::Name(path)),
        }
        match hop(&path, io::Error::from_raw_os_error(libc::ELOOP)) {
            Ok(Hop::Next(next)) => path = next,
            Ok(Hop::Magic) => return Ok(Resolved::Descriptor),
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                return Ok(Resolved::Name(path))
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// Why the last component of `path` (or of a link it leads to) is a link
/// tapebuf will not follow, for a refusal before anything is opened;
/// None when it may be followed or is no link.
pub fn foreign_link(path: &Path) -> Option<String> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.file_type().is_symlink() {
            return None;
        }
        if let Err(e) = check_owner(&path, std::os::unix::fs::MetadataExt::uid(&meta)) {
            return Some(e.to_string());
        }
        path = beside(&path, &std::fs::read_link(&path).ok()?);
    }
    None
}

/// Where a symlink whose owner passed leads.
enum Hop {
    /// The name its text gives.
    Next(PathBuf),
    /// A /proc link to an open descriptor of this process, whose text
    /// (`pipe:[123]`) is no name: opened through the kernel.
    Magic,
}

/// The next name after the symlink at `path`, once its owner passes;
/// `refused` (ELOOP) when `path` is not a symlink after all (a loop in
/// the directories before it).
fn hop(path: &Path, refused: io::Error) -> io::Result<Hop> {
    let link = sys::open_at(None, path.as_os_str(), libc::O_PATH | libc::O_NOFOLLOW, 0)?;
    // SAFETY: a zeroed stat is a valid out-buffer; the descriptor is open
    // and the empty path names it (AT_EMPTY_PATH).
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let flags = libc::AT_EMPTY_PATH | libc::AT_SYMLINK_NOFOLLOW;
    // SAFETY: as above.
    if unsafe { libc::fstatat(link.as_raw_fd(), c"".as_ptr(), &mut st, flags) } < 0 {
        return Err(io::Error::last_os_error());
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFLNK {
        return Err(refused);
    }
    check_owner(path, st.st_uid)?;
    // SAFETY: a zeroed statfs is a valid out-buffer for the open descriptor.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstatfs(link.as_raw_fd(), &mut fs) } == 0
        && fs.f_type == libc::PROC_SUPER_MAGIC
    {
        return Ok(Hop::Magic);
    }
    let mut buf = vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: reads at most buf.len() bytes into `buf`, from the link the
    // descriptor holds, so the text is the link whose owner was checked.
    let n = unsafe {
        libc::readlinkat(
            link.as_raw_fd(),
            c"".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    buf.truncate(n as usize);
    Ok(Hop::Next(beside(path, Path::new(OsStr::from_bytes(&buf)))))
}

/// The link text `target` as a name: relative to the link's directory.
fn beside(link: &Path, target: &Path) -> PathBuf {
    if target.is_absolute() {
        target.to_path_buf()
    } else {
        sys::parent_of(link).join(target)
    }
}

/// A link is followed when the caller or root owns it.
fn check_owner(path: &Path, owner: u32) -> io::Result<()> {
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    if owner == 0 || owner == me {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} is a symbolic link owned by uid {owner}, neither you nor root; \
             tapebuf follows no link another user could have planted",
            path.display()
        ),
    ))
}
