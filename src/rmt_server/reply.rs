//! The server's side of the wire: `A<n>\n` for success (followed by data
//! for R and S), `E<errno>\n<message>\n` for failure, and the text that
//! goes into messages and log lines.
//!
//! Invariant: whatever a client sent, a reply is exactly one `A` line (plus
//! the number of bytes it announces) or exactly two lines for `E`. Every
//! message passes through [`one_line`], so a path or a device error can
//! never add a line and shift the client's view of the stream.

use std::io::{self, Write};

use crate::base::shown::one_line;

/// One reply, before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `A<n>\n`.
    Ack(u64),
    /// `A<k>\n` and then the first k bytes of the session's data buffer.
    Data(usize),
    /// `A<size>\n` and then these bytes (a raw `struct mtget`).
    Status(Vec<u8>),
    /// `E<errno>\n<message>\n`.
    Error { errno: i32, message: String },
}

impl Reply {
    /// An error reply whose message is the system's text for `errno`
    /// followed by `context`: "Permission denied: /etc/passwd is outside
    /// the allowed paths".
    pub fn error(errno: i32, context: &str) -> Reply {
        Reply::Error {
            errno,
            message: format!("{}: {context}", strerror(errno)),
        }
    }

    /// The reply to an admitted open that failed. ELOOP there means a
    /// symbolic link stood where the admitted path had none (a directory
    /// swapped for a link after the check, or a final link), which the
    /// opener never follows; the reply says so rather than only "Too many
    /// levels of symbolic links".
    pub fn open_failed(errno: i32, asked: &str) -> Reply {
        if errno != libc::ELOOP {
            return Reply::error(errno, asked);
        }
        Reply::Error {
            errno,
            message: format!(
                "{}: {asked}: a symbolic link is on the way, and this server follows none when opening",
                strerror(errno)
            ),
        }
    }

    /// An error reply with the system's text for the error and nothing
    /// else, as GNU rmt sends: clients recognise `E28\nNo space left on
    /// device\n` as the end of the medium.
    pub fn os_error(e: &io::Error) -> Reply {
        let errno = errno_of(e);
        Reply::Error {
            errno,
            message: strerror(errno),
        }
    }

    /// The same error with `context` after the system's text.
    pub fn os_error_about(e: &io::Error, context: &str) -> Reply {
        Reply::error(errno_of(e), context)
    }

    /// Writes the reply to `out` and flushes it. `data` is the session's
    /// buffer, from which a `Data` reply takes its bytes.
    pub fn send(&self, out: &mut dyn Write, data: &[u8]) -> io::Result<()> {
        match self {
            Reply::Ack(n) => writeln!(out, "A{n}")?,
            Reply::Data(k) => {
                writeln!(out, "A{k}")?;
                out.write_all(&data[..*k])?;
            }
            Reply::Status(bytes) => {
                writeln!(out, "A{}", bytes.len())?;
                out.write_all(bytes)?;
            }
            Reply::Error { errno, message } => {
                write!(out, "E{errno}\n{}\n", one_line(message))?;
            }
        }
        out.flush()
    }
}

/// The errno to report for `e`: its OS error number, or the nearest one
/// for errors made in Rust (a write of zero bytes is a full medium).
pub fn errno_of(e: &io::Error) -> i32 {
    if let Some(n) = e.raw_os_error() {
        return n;
    }
    match e.kind() {
        io::ErrorKind::WriteZero | io::ErrorKind::StorageFull => libc::ENOSPC,
        io::ErrorKind::NotFound => libc::ENOENT,
        io::ErrorKind::PermissionDenied => libc::EACCES,
        io::ErrorKind::InvalidInput => libc::EINVAL,
        io::ErrorKind::UnexpectedEof => libc::EIO,
        _ => libc::EIO,
    }
}

/// The C library's text for `errno`, in the C locale ("No space left on
/// device"), without Rust's " (os error 28)" suffix.
pub fn strerror(errno: i32) -> String {
    let text = io::Error::from_raw_os_error(errno).to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(reply: &Reply, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        reply.send(&mut out, data).unwrap();
        out
    }

    #[test]
    fn end_of_medium_is_reported_exactly_as_gnu_rmt_does() {
        let e = io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(
            sent(&Reply::os_error(&e), b""),
            b"E28\nNo space left on device\n"
        );
        let zero = io::Error::from(io::ErrorKind::WriteZero);
        assert_eq!(
            sent(&Reply::os_error(&zero), b""),
            b"E28\nNo space left on device\n"
        );
    }

    #[test]
    fn messages_never_span_two_lines() {
        let r = Reply::error(libc::EACCES, "/srv/evil\nA0\n is refused");
        assert_eq!(
            sent(&r, b""),
            b"E13\nPermission denied: /srv/evil\\nA0\\n is refused\n"
        );
    }

    #[test]
    fn data_and_status_replies_announce_their_length() {
        assert_eq!(sent(&Reply::Data(3), b"abcdef"), b"A3\nabc");
        assert_eq!(sent(&Reply::Status(vec![1, 2]), b""), b"A2\n\x01\x02");
        assert_eq!(sent(&Reply::Ack(0), b""), b"A0\n");
    }
}
