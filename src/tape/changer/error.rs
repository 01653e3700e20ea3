//! Why a changer operation failed, typed where a caller decides something
//! (try another slot, another destination, another path) and with the
//! system's error kept everywhere else: the library's sense data when it
//! gave some (`Robot`), the errno otherwise (`Io`).

use std::io;
use std::path::PathBuf;

use super::element::ElementAddress;
use crate::tape::scsi::sg_io::Sense;

/// A changer operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum ChangerError {
    /// The path opened, but it does not answer the changer ioctls.
    #[error("{}: not a medium changer ({source})", path.display())]
    NotAChanger { path: PathBuf, source: io::Error },
    /// The element to take a medium from holds none.
    #[error("{from} is empty")]
    SlotEmpty { from: ElementAddress },
    /// The element to put a medium in already holds one.
    #[error("{to} is full")]
    DestinationFull { to: ElementAddress },
    /// The changer has no such element.
    #[error("the changer has no {address}")]
    NoSuchElement { address: ElementAddress },
    /// The tape node's drive element could not be told by serial number.
    #[error(
        "{}: cannot tell which drive of the changer this is ({why}); name its drive element with --drive-element N",
        node.display()
    )]
    NoDriveMatch { node: PathBuf, why: String },
    /// The library refused or failed a command and said why in its sense
    /// data (only through SG_IO; `ch` keeps the sense to itself). `words`
    /// is the key and the additional sense in words, as `sg_io::Sense`
    /// gives them.
    #[error("{what}: {words} (sense {key:02X}/{asc:02X}/{ascq:02X})")]
    Robot {
        what: String,
        key: u8,
        asc: u8,
        ascq: u8,
        words: String,
    },
    /// Anything else the system said, and what was being done.
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
}

impl ChangerError {
    /// An `Io` error while doing `what`.
    pub fn io(what: impl Into<String>, source: io::Error) -> ChangerError {
        ChangerError::Io {
            what: what.into(),
            source,
        }
    }

    /// A `Robot` error while doing `what`, the library having said `sense`.
    pub fn robot(what: impl Into<String>, sense: Sense) -> ChangerError {
        ChangerError::Robot {
            what: what.into(),
            key: sense.key,
            asc: sense.asc,
            ascq: sense.ascq,
            words: sense.words(),
        }
    }
}
