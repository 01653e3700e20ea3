//! The server's replies: the protocol's [`Reply`] (sent by
//! `rmt/protocol`), built from what went wrong here, and the text that
//! goes into messages and log lines.
//!
//! Invariant: an error reply's message is the system's text for its errno
//! first ("Permission denied: ..."), so clients that match GNU rmt's
//! messages, such as `E28\nNo space left on device\n` at the end of the
//! medium, read ours the same way.

use std::io;

pub use crate::rmt::protocol::strerror;
use crate::rmt::protocol::Reply;

/// An error reply whose message is the system's text for `errno`
/// followed by `context`: "Permission denied: /etc/passwd is outside the
/// allowed paths".
pub fn error(errno: i32, context: &str) -> Reply {
    Reply::Failed {
        errno,
        message: format!("{}: {context}", strerror(errno)),
    }
}

/// The reply to an admitted open that failed. ELOOP there means a
/// symbolic link stood where the admitted path had none (a directory
/// swapped for a link after the check, or a final link), which the opener
/// never follows; the reply says so rather than only "Too many levels of
/// symbolic links".
pub fn open_failed(errno: i32, asked: &str) -> Reply {
    if errno != libc::ELOOP {
        return error(errno, asked);
    }
    Reply::Failed {
        errno,
        message: format!(
            "{}: {asked}: a symbolic link is on the way, and this server follows none when opening",
            strerror(errno)
        ),
    }
}

/// An error reply with the system's text for the error and nothing else,
/// as GNU rmt sends: clients recognise `E28\nNo space left on device\n` as
/// the end of the medium.
pub fn os_error(e: &io::Error) -> Reply {
    let errno = errno_of(e);
    Reply::Failed {
        errno,
        message: strerror(errno),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_of_medium_is_reported_exactly_as_gnu_rmt_does() {
        let e = io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(os_error(&e).encoded(), b"E28\nNo space left on device\n");
        let zero = io::Error::from(io::ErrorKind::WriteZero);
        assert_eq!(os_error(&zero).encoded(), b"E28\nNo space left on device\n");
    }

    #[test]
    fn messages_never_span_two_lines() {
        let r = error(libc::EACCES, "/srv/evil\nA0\n is refused");
        assert_eq!(
            r.encoded(),
            b"E13\nPermission denied: /srv/evil\\nA0\\n is refused\n"
        );
    }
}
