//! Why a changer operation failed, typed where a caller decides something
//! (try another slot, another destination, another path) and with the
//! system's error kept everywhere else.

use std::io;
use std::path::PathBuf;

use super::element::ElementAddress;

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
}
