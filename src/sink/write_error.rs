//! The ways a write fails that the summary must tell apart: part of a block
//! written, a failure acknowledged late, a failed volume change; and the
//! one message for each, naming the output and the byte offset.

use std::io;

/// Why a volume change failed, carried inside the io::Error so that the
/// message can say what is safe.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct VolumeChangeFailed(pub String);

/// A failure from a sink whose writes are acknowledged late (rmt), whose
/// message already says what the medium holds; the count itself comes from
/// `Sink::acknowledged_bytes`.
#[derive(Debug, thiserror::Error)]
#[error("{why}")]
pub struct LateFailure {
    pub why: String,
}

impl LateFailure {
    /// The late failure inside `err`, if it is one.
    pub fn within(err: &io::Error) -> Option<&LateFailure> {
        err.get_ref().and_then(|e| e.downcast_ref::<LateFailure>())
    }
}

/// A write that failed after part of the block had gone out, as when a
/// disk fills in the middle of a block. Those bytes are on the medium, so
/// they count as committed: the count stays exact, not merely safe.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PartialWrite {
    pub written_bytes: u64,
    pub source: io::Error,
}

impl PartialWrite {
    /// `err`, marked with the bytes of the block written before it.
    pub fn wrap(written_bytes: usize, err: io::Error) -> io::Error {
        if written_bytes == 0 {
            return err;
        }
        let kind = err.kind();
        let partial = PartialWrite {
            written_bytes: written_bytes as u64,
            source: err,
        };
        io::Error::new(kind, partial)
    }

    /// The bytes of the block written before `err`, and its cause.
    pub fn split(err: &io::Error) -> (u64, &io::Error) {
        match err.get_ref().and_then(|e| e.downcast_ref::<PartialWrite>()) {
            Some(p) => (p.written_bytes, &p.source),
            None => (0, err),
        }
    }
}

/// The message for a failed write, naming the output and the byte offset.
/// A closed pipe downstream is data loss, and says so in plain words.
pub fn describe_write_error(name: &str, offset: u64, err: &io::Error) -> String {
    if let Some(change) = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<VolumeChangeFailed>())
    {
        return format!("{name}: {change}");
    }
    if let Some(late) = LateFailure::within(err) {
        return format!("{name}: {late}");
    }
    if err.kind() == io::ErrorKind::BrokenPipe {
        format!("{name}: output closed after {offset} bytes")
    } else {
        format!("{name}: write failed at byte {offset}: {err}")
    }
}
