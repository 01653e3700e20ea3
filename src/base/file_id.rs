//! What a path or descriptor really is: its device and inode, and its kind.
//! Used to refuse an output that is the input under another name
//! (`-i a.tar -o ./a.tar`, `< a.tar >> a.tar`) and an output given twice
//! (`-o - -o /dev/stdout`), which would destroy or double the data.
//! Every kind of file has an identity: a pipe, a FIFO, a socket and a
//! character device too, so `--stats /dev/stdout` is the stdout pipe
//! (`base::path_registry` holds the rules).

use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// The kinds of file that matter to the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Regular,
    BlockDevice,
    CharDevice,
    Fifo,
    Socket,
    Directory,
    Other,
}

impl Kind {
    /// The kind in words, for a refusal: "a FIFO".
    pub fn words(self) -> &'static str {
        match self {
            Kind::Regular => "a regular file",
            Kind::BlockDevice => "a block device",
            Kind::CharDevice => "a character device",
            Kind::Fifo => "a FIFO or pipe",
            Kind::Socket => "a socket",
            Kind::Directory => "a directory",
            Kind::Other => "not a regular file",
        }
    }
}

/// The `mem` driver's major, and its minors that take any write and keep
/// nothing: null and zero.
const MEM_MAJOR: u64 = 1;
const SINK_MINORS: [u64; 2] = [3, 5];
/// Terminals' majors: tty (4), tty/console/ptmx (5), pseudo-terminals
/// (136-143).
const TTY_MAJORS: [u64; 10] = [4, 5, 136, 137, 138, 139, 140, 141, 142, 143];

/// A file's identity: equal identities are the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub kind: Kind,
    /// The device numbers of a device node; 0 for anything else.
    pub rdev: u64,
}

impl Identity {
    fn from_metadata(meta: &std::fs::Metadata) -> Identity {
        let t = meta.file_type();
        let kind = if t.is_file() {
            Kind::Regular
        } else if t.is_block_device() {
            Kind::BlockDevice
        } else if t.is_char_device() {
            Kind::CharDevice
        } else if t.is_fifo() {
            Kind::Fifo
        } else if t.is_socket() {
            Kind::Socket
        } else if t.is_dir() {
            Kind::Directory
        } else {
            Kind::Other
        };
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            kind,
            rdev: if matches!(kind, Kind::CharDevice | Kind::BlockDevice) {
                meta.rdev()
            } else {
                0
            },
        }
    }

    /// `/dev/null`: empty when read, keeps nothing written.
    pub fn is_null(&self) -> bool {
        self.kind == Kind::CharDevice
            && libc::major(self.rdev) as u64 == MEM_MAJOR
            && libc::minor(self.rdev) == 3
    }

    /// Any number of a run's paths may be this one file: `/dev/null` or
    /// `/dev/zero` (nothing is kept), or a terminal (what is written there
    /// is for a person, and each line is whole).
    pub fn shareable(&self) -> bool {
        if self.kind != Kind::CharDevice {
            return false;
        }
        let (major, minor) = (libc::major(self.rdev) as u64, libc::minor(self.rdev) as u64);
        (major == MEM_MAJOR && SINK_MINORS.contains(&minor)) || TTY_MAJORS.contains(&major)
    }

    /// Writing this while reading it (or writing it twice) would destroy
    /// or mix data: everything but `/dev/null`, `/dev/zero`, a terminal
    /// and a directory (which nothing writes). A pipe, FIFO or socket
    /// counts: a report written into the pipe the data goes through is
    /// spliced into the backup.
    pub fn holds_data(&self) -> bool {
        !self.shareable() && self.kind != Kind::Directory
    }

    /// Looks a path up, following links; `None` when nothing is there.
    pub fn of_path(path: &Path) -> io::Result<Option<Identity>> {
        match std::fs::metadata(path) {
            Ok(meta) => Ok(Some(Identity::from_metadata(&meta))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The identity behind an open descriptor, such as stdin or stdout.
    pub fn of_fd(fd: impl AsFd) -> Option<Identity> {
        let file = std::fs::File::from(fd.as_fd().try_clone_to_owned().ok()?);
        file.metadata().ok().map(|m| Identity::from_metadata(&m))
    }
}
