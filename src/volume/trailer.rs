//! The volume trailer: a small tape file that tapebuf writes after each
//! volume's data, so that a restore knows, without a manifest and without
//! `-n`, whether the backup goes on on another volume.
//!
//! A tape volume is laid out as
//!
//! ```text
//! data records ... FILEMARK  trailer record  FILEMARK
//! ```
//!
//! The data stays the first tape file, so tar, dd or cpio reading the tape
//! directly find exactly the stream. The trailer is one record of
//! `TRAILER_BYTES` bytes of plain text: a magic line, then `key value`
//! lines (the backup's random id, the volume number, how the volume ends,
//! its bytes, the stream's bytes through its end and the XXH3-64 digest of
//! every stream byte from byte 0 through its end), padded with NULs. An
//! ANSI label does the same with its EOV and EOF labels; this one is
//! smaller and says only what a restore needs.
//!
//! A file volume (`-D`, numbered names) cannot carry a tape file after
//! its data, and must stay exactly the stream's bytes, so its trailer goes
//! in the extended attribute `user.tapebuf.trailer` instead, where the
//! filesystem keeps them (ext4, xfs, btrfs, tmpfs do; vfat does not, and a
//! copy without `-a`/`--xattrs` drops them). Beside it goes an empty
//! marker file whose name carries the same trailer (`trailer_marker.rs`),
//! which plain copies keep.
//!
//! The digest line (`stream-xxh3`) is what makes a substituted volume
//! show: whatever a volume holds, the next trailer read vouches for every
//! byte before it. A trailer from before the line was added still reads,
//! without the digest; a later version's extra lines are ignored, and an
//! attribute is read whatever its length up to `XATTR_READ_BYTES`.
//!
//! How a volume ends: `continues` (it filled up; volume N+1 follows),
//! `last` (the stream ended cleanly here) or `cut` (the run was stopped or
//! its input failed, so the stream is short). A restore goes on exactly
//! while the trailers say `continues`, checks that each volume belongs to
//! the same backup and comes in order, and fails on `cut`.

use std::fmt::Write as _;

/// The size of the trailer record.
pub const TRAILER_BYTES: usize = 512;
/// The largest record looked at as a possible trailer; a larger one is
/// data (of a backup appended after this one).
pub const TRAILER_READ_BYTES: usize = 64 * 1024;
/// The first line of every trailer.
const MAGIC: &str = "tapebuf volume trailer 1";

/// How a volume ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ends {
    /// The volume filled up: the stream goes on on the next volume.
    Continues,
    /// The stream ended cleanly on this volume.
    Last,
    /// The run that wrote it was stopped or lost its input: the stream is
    /// short.
    Cut,
}

impl Ends {
    /// Every way a volume ends, for tests that cover them all.
    pub const ALL: [Ends; 3] = [Ends::Continues, Ends::Last, Ends::Cut];

    /// The word a trailer says it with.
    pub fn word(self) -> &'static str {
        match self {
            Ends::Continues => "continues",
            Ends::Last => "last",
            Ends::Cut => "cut",
        }
    }

    fn from_word(word: &str) -> Option<Ends> {
        match word {
            "continues" => Some(Ends::Continues),
            "last" => Some(Ends::Last),
            "cut" => Some(Ends::Cut),
            _ => None,
        }
    }
}

/// What one volume's trailer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trailer {
    /// The backup's id: 32 hex digits, the same on every volume.
    pub backup: String,
    /// The volume's number, from 1.
    pub volume: u32,
    pub ends: Ends,
    /// The stream's bytes on this volume.
    pub volume_bytes: u64,
    /// The stream's bytes on this volume and every one before it.
    pub stream_bytes: u64,
    /// XXH3-64 over the stream's bytes from byte 0 through this volume's
    /// end; None in a trailer written before the digest was added.
    pub stream_digest: Option<u64>,
}

impl Trailer {
    /// The trailer record: `TRAILER_BYTES` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut record = self.text().into_bytes();
        debug_assert!(record.len() <= TRAILER_BYTES);
        record.resize(TRAILER_BYTES, 0);
        record
    }

    /// The trailer's text, without the padding (a file's attribute).
    fn text(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "{MAGIC}");
        let _ = writeln!(text, "backup {}", self.backup);
        let _ = writeln!(text, "volume {}", self.volume);
        let _ = writeln!(text, "ends {}", self.ends.word());
        let _ = writeln!(text, "volume-bytes {}", self.volume_bytes);
        let _ = writeln!(text, "stream-bytes {}", self.stream_bytes);
        if let Some(digest) = self.stream_digest {
            let _ = writeln!(text, "stream-xxh3 {digest:016x}");
        }
        text
    }

    /// The error for a trailer that could not be written after the data.
    pub fn not_written(&self, e: std::io::Error) -> std::io::Error {
        std::io::Error::new(
            e.kind(),
            format!(
                "volume {}: the data and its filemark are on tape, but the trailer after them could not be written: {e}",
                self.volume
            ),
        )
    }

    /// Reads a record: `Ok(None)` when it is not a trailer at all (data),
    /// `Err(why)` when it begins like one but cannot be read.
    pub fn parse(record: &[u8]) -> Result<Option<Trailer>, String> {
        let Some(rest) = record.strip_prefix(MAGIC.as_bytes()) else {
            return Ok(None);
        };
        if rest.first() != Some(&b'\n') {
            return Ok(None);
        }
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let text = std::str::from_utf8(&rest[..end])
            .map_err(|_| "a volume trailer that is not text".to_string())?;
        let mut fields = Fields::default();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            fields.set(key, value)?;
        }
        fields.finish().map(Some)
    }
}

/// The fields of a trailer as they are read.
#[derive(Default)]
struct Fields {
    backup: Option<String>,
    volume: Option<u32>,
    ends: Option<Ends>,
    volume_bytes: Option<u64>,
    stream_bytes: Option<u64>,
    stream_digest: Option<u64>,
}

impl Fields {
    /// Takes one line; unknown keys are left for later versions.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let bad = || format!("a volume trailer with a bad {key} line: {value:?}");
        match key {
            "backup" if is_backup_id(value) => self.backup = Some(value.to_string()),
            "backup" => return Err(bad()),
            "volume" => self.volume = Some(value.parse().ok().filter(|&v| v > 0).ok_or_else(bad)?),
            "ends" => self.ends = Some(Ends::from_word(value).ok_or_else(bad)?),
            "volume-bytes" => self.volume_bytes = Some(value.parse().map_err(|_| bad())?),
            "stream-bytes" => self.stream_bytes = Some(value.parse().map_err(|_| bad())?),
            "stream-xxh3" if value.len() == 16 => {
                self.stream_digest = Some(u64::from_str_radix(value, 16).map_err(|_| bad())?)
            }
            "stream-xxh3" => return Err(bad()),
            _ => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<Trailer, String> {
        let missing = |key: &str| format!("a volume trailer without its {key} line");
        Ok(Trailer {
            backup: self.backup.ok_or_else(|| missing("backup"))?,
            volume: self.volume.ok_or_else(|| missing("volume"))?,
            ends: self.ends.ok_or_else(|| missing("ends"))?,
            volume_bytes: self.volume_bytes.ok_or_else(|| missing("volume-bytes"))?,
            stream_bytes: self.stream_bytes.ok_or_else(|| missing("stream-bytes"))?,
            stream_digest: self.stream_digest,
        })
    }
}

pub(super) fn is_backup_id(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The extended attribute that holds a file volume's trailer.
pub const XATTR_NAME: &str = "user.tapebuf.trailer";

/// Attaches `trailer` to the open file `fd` as its extended attribute.
/// Ok(false) where the filesystem keeps no such attributes.
pub fn attach_to_file(fd: std::os::fd::BorrowedFd<'_>, trailer: &Trailer) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let text = trailer.text();
    let name = std::ffi::CString::new(XATTR_NAME).expect("no NUL in the name");
    // SAFETY: fsetxattr(2) reads the NUL-terminated name and `text.len()`
    // bytes of `text`, both alive for the call.
    let done = unsafe {
        libc::fsetxattr(
            fd.as_raw_fd(),
            name.as_ptr(),
            text.as_ptr().cast(),
            text.len(),
            0,
        )
    };
    if done == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOTSUP | libc::EPERM) => Ok(false),
        _ => Err(e),
    }
}

/// Removes the trailer attribute from the open file `fd`, if it has one
/// (a file written anew by truncating keeps its attributes).
pub fn detach_from_file(fd: std::os::fd::BorrowedFd<'_>) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let name = std::ffi::CString::new(XATTR_NAME).expect("no NUL in the name");
    // SAFETY: fremovexattr(2) reads the NUL-terminated name, alive for
    // the call.
    if unsafe { libc::fremovexattr(fd.as_raw_fd(), name.as_ptr()) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENODATA | libc::ENOTSUP | libc::EPERM) => Ok(()),
        _ => Err(e),
    }
}

/// The longest trailer attribute read: far more than any trailer needs,
/// so that a later version's extra lines still fit, yet bounded.
pub const XATTR_READ_BYTES: usize = 64 * 1024;

/// The trailer attached to the file at `path`: Ok(None) when it has none
/// (or the filesystem keeps no attributes); Err when it has one that
/// cannot be read. The attribute's size is asked first, so a trailer of
/// any length up to `XATTR_READ_BYTES` is read whole.
pub fn read_from_file(path: &std::path::Path) -> std::io::Result<Option<Trailer>> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(XATTR_NAME).expect("no NUL in the name");
    let path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::other("a path with a NUL byte"))?;
    let absent = |e: std::io::Error| match e.raw_os_error() {
        Some(libc::ENODATA | libc::ENOTSUP) => Ok(None),
        _ => Err(e),
    };
    // The attribute may grow between the two calls: ERANGE asks again.
    for _ in 0..3 {
        // SAFETY: getxattr(2) with a size of 0 only returns the value's
        // size; it reads the two NUL-terminated strings, alive for the call.
        let size = unsafe { libc::getxattr(path.as_ptr(), name.as_ptr(), std::ptr::null_mut(), 0) };
        if size < 0 {
            return absent(std::io::Error::last_os_error());
        }
        let size = size as usize;
        if size > XATTR_READ_BYTES {
            return Err(std::io::Error::other(format!(
                "its {XATTR_NAME} attribute is {size} bytes, more than the {XATTR_READ_BYTES} a trailer may have"
            )));
        }
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: getxattr(2) writes at most `buf.len()` bytes into `buf`,
        // and reads the two NUL-terminated strings, all alive for the call.
        let n = unsafe {
            libc::getxattr(
                path.as_ptr(),
                name.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::ERANGE) {
                continue;
            }
            return absent(e);
        }
        buf.truncate(n as usize);
        return match Trailer::parse(&buf) {
            Ok(Some(t)) => Ok(Some(t)),
            Ok(None) => Err(std::io::Error::other(format!(
                "its {XATTR_NAME} attribute is not a tapebuf trailer"
            ))),
            Err(why) => Err(std::io::Error::other(why)),
        };
    }
    Err(std::io::Error::other(format!(
        "its {XATTR_NAME} attribute kept changing size while it was read"
    )))
}

/// A new backup id: 128 random bits as 32 hex digits.
pub fn new_backup_id() -> String {
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        // SAFETY: getrandom(2) writes at most the given length into the
        // buffer, which is ours and that long.
        let n = unsafe {
            libc::getrandom(bytes[filled..].as_mut_ptr().cast(), bytes.len() - filled, 0)
        };
        if n <= 0 {
            // No randomness to be had (EINTR aside): the time and the pid
            // still tell two backups apart.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let mixed = now ^ (u128::from(std::process::id()) << 96);
            bytes = mixed.to_le_bytes();
            break;
        }
        filled += n as usize;
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
