//! A block refused before it was read, for want of its key or with the
//! wrong one: a typed error, so that the volume source can tell it from
//! any other failed read (`key_refusal`) and say it as it is.

use std::io;

/// The refusal; its text names the block itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct KeyRefused(pub String);

impl From<KeyRefused> for io::Error {
    fn from(k: KeyRefused) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, k)
    }
}

/// The refusal in `e`, if that is what it is.
pub fn key_refusal(e: &io::Error) -> Option<&KeyRefused> {
    e.get_ref()?.downcast_ref::<KeyRefused>()
}
