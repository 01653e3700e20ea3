//! What a path or descriptor really is: its device and inode, and its kind.
//! Used to refuse an output that is the input under another name
//! (`-i a.tar -o ./a.tar`, `< a.tar >> a.tar`) and an output given twice
//! (`-o - -o /dev/stdout`), which would destroy or double the data.

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
    Other,
}

/// A file's identity: equal identities are the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub kind: Kind,
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
        } else {
            Kind::Other
        };
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            kind,
        }
    }

    /// Writing this while reading it would destroy data.
    pub fn holds_data(&self) -> bool {
        matches!(self.kind, Kind::Regular | Kind::BlockDevice)
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
