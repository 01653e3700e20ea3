//! One rmt request, as both sides see it, and its encoding as the client
//! sends it (`read_request.rs` reads it back as the server does).
//!
//! A request is encoded only from values checked here first: a path with
//! a newline, or a count the server would misread, would make the server
//! read the rest of the request as commands and lose its place. So every
//! request that encodes is read back by `read_request` as the same value.

use std::io::Write;
use std::path::PathBuf;

/// The largest record a W may carry and an R may ask for: 64 MiB. The
/// client never sends more; the server ends the session on a larger W
/// (its data cannot be skipped safely) and clamps a larger R (the reply
/// may be shorter than asked). GNU rmt and star parse counts as `int`;
/// staying far below keeps every server safe, and the limit bounds the
/// memory a client can make the server use.
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// One request. Its values are the wire's: O's flags line and I's
/// operation code are in the server's own numbering, which the client
/// picks for its server (`flavor.rs`) and the server reads as its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `O<path>\n<flags>\n`: the flags line is `<number>` or
    /// `<number> <SYMBOLIC>`, such as `65 O_WRONLY|O_CREAT`.
    Open { path: PathBuf, flags: String },
    /// `C\n` (a server ignores any text after the C).
    Close,
    /// `W<n>\n`, then n bytes of data, which the caller sends (the server
    /// reads them after the request).
    Write(usize),
    /// `R<n>\n`.
    Read(usize),
    /// `I<op>\n<count>\n`, both at most `i32::MAX`.
    Ioctl { op: u32, count: u32 },
    /// `S\n`.
    Status,
    /// `L<whence>\n<offset>\n`, in GNU's order: whence first. Servers
    /// disagree on the order (BSD, star and dump take the offset first),
    /// so the client sends only [`Request::SEEK_START`], which reads the
    /// same either way.
    Seek { whence: i32, offset: i64 },
}

/// A value that cannot be sent without confusing the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("the remote path is empty")]
    EmptyPath,
    #[error(
        "the remote path {0:?} holds a newline or a NUL byte, which the rmt protocol cannot carry"
    )]
    BadPath(String),
    #[error("a record of {0} bytes is outside 1 to {MAX_RECORD_BYTES} bytes")]
    BadCount(usize),
    #[error("a tape operation count of {0} is larger than the protocol allows")]
    BadOpCount(u32),
    #[error("a tape operation code of {0} is larger than the protocol allows")]
    BadOp(u32),
    #[error("a seek from {0} is neither the start (0), the current position (1) nor the end (2)")]
    BadWhence(i32),
}

impl Request {
    /// `L0\n0\n`: back to the start of a file, the one seek every server
    /// reads the same way.
    pub const SEEK_START: Request = Request::Seek {
        whence: 0,
        offset: 0,
    };

    /// The command letter that starts the request.
    pub fn letter(&self) -> char {
        match self {
            Request::Open { .. } => 'O',
            Request::Close => 'C',
            Request::Write(_) => 'W',
            Request::Read(_) => 'R',
            Request::Ioctl { .. } => 'I',
            Request::Status => 'S',
            Request::Seek { .. } => 'L',
        }
    }

    /// Appends the request's header (not W's data) to `out`; nothing is
    /// appended for a request that cannot be sent.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), RequestError> {
        match self {
            Request::Open { path, flags } => {
                let bytes = path.as_os_str().as_encoded_bytes();
                if bytes.is_empty() {
                    return Err(RequestError::EmptyPath);
                }
                if bytes.contains(&b'\n') || bytes.contains(&0) || flags.contains(['\n', '\0']) {
                    return Err(RequestError::BadPath(path.to_string_lossy().into_owned()));
                }
                out.push(b'O');
                out.extend_from_slice(bytes);
                let _ = writeln!(out, "\n{flags}");
            }
            Request::Close => out.extend_from_slice(b"C\n"),
            Request::Write(n) | Request::Read(n) => {
                if *n == 0 || *n > MAX_RECORD_BYTES {
                    return Err(RequestError::BadCount(*n));
                }
                let _ = writeln!(out, "{}{n}", self.letter());
            }
            Request::Ioctl { op, count } => {
                if *op > i32::MAX as u32 {
                    return Err(RequestError::BadOp(*op));
                }
                if *count > i32::MAX as u32 {
                    return Err(RequestError::BadOpCount(*count));
                }
                let _ = write!(out, "I{op}\n{count}\n");
            }
            Request::Status => out.extend_from_slice(b"S\n"),
            Request::Seek { whence, offset } => {
                if !(0..=2).contains(whence) {
                    return Err(RequestError::BadWhence(*whence));
                }
                let _ = write!(out, "L{whence}\n{offset}\n");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
