//! Why an rmt client failed, in a form callers branch on: the server's own
//! refusal (`Remote`, whose E28 is the end of the medium) is kept apart
//! from the failures that leave the session unusable (a protocol error,
//! the session's end, a desync, a timeout, a stop), and a failed close is
//! its own case, because then the data sent may not be on the medium.

use std::io;

use crate::rmt::protocol::{Reply, RequestError};

/// A close that failed: the server's `C` reply, or the session's end.
/// The data sent may not be on the medium.
#[derive(Debug, thiserror::Error)]
#[error("closing failed: {0}")]
pub struct CloseFailed(pub RmtError);

/// Why a session failed. `Remote` is the server's own refusal, which the
/// caller branches on (E28 is the end of the medium); the rest mean the
/// session is unusable.
#[derive(Debug, thiserror::Error)]
pub enum RmtError {
    #[error("the server replied \"{message}\" (E{errno})")]
    Remote { errno: i32, message: String },
    #[error("{0}")]
    Protocol(String),
    #[error("{0}")]
    Ended(String),
    /// Replies out of step with the requests: an extra reply, or one to
    /// a request never sent.
    #[error("desync: {0}")]
    Desync(String),
    #[error("no reply from the rmt server for {0} s (--timeout)")]
    TimedOut(u64),
    /// `C` was refused, or its session failed.
    #[error(transparent)]
    Close(Box<CloseFailed>),
    /// The run was stopped while waiting on the server.
    #[error("stopped while waiting for the rmt server")]
    Stopped,
    #[error("cannot start the remote shell '{program}': {why}")]
    Spawn { program: String, why: io::Error },
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The server would cut the path (`path_check`): refused before the
    /// path is sent.
    #[error(
        "the rmt server on {host} reads at most {limit} bytes of a path (a BSD rmt, or \
         Linux dump's rmt-dump), and this path is {len} bytes: it would open the wrong file \
         and run the rest as requests; give a path of at most {limit} bytes (a symlink on \
         {host}), or a server that reads whole lines with --rmt-command (GNU rmt is \
         /usr/sbin/rmt-tar on Debian)"
    )]
    PathCut {
        host: String,
        len: usize,
        limit: usize,
    },
}

impl RmtError {
    /// The server's errno, for a refusal.
    pub fn errno(&self) -> Option<i32> {
        match self {
            RmtError::Remote { errno, .. } => Some(*errno),
            _ => None,
        }
    }

    /// Turns an `E` reply into an error; passes other replies through.
    pub fn check(reply: Reply) -> Result<Reply, RmtError> {
        match reply {
            Reply::Failed { errno, message } => Err(RmtError::Remote { errno, message }),
            other => Ok(other),
        }
    }
}

impl From<RmtError> for io::Error {
    fn from(e: RmtError) -> io::Error {
        io::Error::other(e)
    }
}
