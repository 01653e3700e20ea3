//! One rmt reply, as both sides see it, and its encoding as the server
//! sends it (`read_reply.rs` reads it back as the client does):
//! `A<n>\n` for success, followed by n bytes for R and S, and
//! `E<errno>\n<message>\n` for failure.
//!
//! Invariant: whatever a client sent, a reply is exactly one `A` line
//! (plus the bytes it announces) or exactly two lines for `E`. Every
//! message passes through [`one_line`], so a path or a device error can
//! never add a line and shift the client's view of the stream.

use std::io::{self, Write};

use crate::base::escape::one_line;

/// A reply, matched to its request by order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `A<n>`.
    Number(u64),
    /// `A<k>` and k bytes: the data of an `R` reply or the raw
    /// `struct mtget` of an `S` reply.
    Bytes(Vec<u8>),
    /// `E<errno>\n<message>` (or `F`, from some servers): the server's
    /// errno, in its own OS's numbering, and its message.
    Failed { errno: i32, message: String },
}

/// ENOSPC, the one errno number the client acts on: end of media.
pub const END_OF_MEDIUM_ERRNO: i32 = 28;

impl Reply {
    /// True for the `E28` that means end of media.
    pub fn is_end_of_medium(&self) -> bool {
        matches!(self, Reply::Failed { errno, .. } if *errno == END_OF_MEDIUM_ERRNO)
    }

    /// Writes the reply to `out` and flushes it.
    pub fn send(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Reply::Number(n) => {
                writeln!(out, "A{n}")?;
                out.flush()
            }
            Reply::Bytes(bytes) => send_bytes(out, bytes),
            Reply::Failed { errno, message } => {
                write!(out, "E{errno}\n{}\n", one_line(message))?;
                out.flush()
            }
        }
    }

    /// The bytes [`Reply::send`] writes, for tests of either side.
    #[cfg(test)]
    pub(crate) fn encoded(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.send(&mut out).expect("a Vec takes every write");
        out
    }
}

/// Writes a [`Reply::Bytes`] reply straight from the caller's buffer
/// (the server's R data, which is not copied into a reply of its own),
/// and flushes it.
pub fn send_bytes(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    writeln!(out, "A{}", bytes.len())?;
    out.write_all(bytes)?;
    out.flush()
}

/// The C library's text for `errno`, in the C locale ("No space left on
/// device"), without Rust's " (os error 28)" suffix: what an `E` reply
/// says.
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

    #[test]
    fn data_and_status_replies_announce_their_length() {
        let mut out = Vec::new();
        send_bytes(&mut out, &b"abcdef"[..3]).unwrap();
        assert_eq!(out, b"A3\nabc");
        assert_eq!(Reply::Bytes(vec![1, 2]).encoded(), b"A2\n\x01\x02");
        assert_eq!(Reply::Number(0).encoded(), b"A0\n");
    }

    #[test]
    fn messages_never_span_two_lines() {
        let r = Reply::Failed {
            errno: 13,
            message: "Permission denied: /srv/evil\nA0\n is refused".into(),
        };
        assert_eq!(
            r.encoded(),
            b"E13\nPermission denied: /srv/evil\\nA0\\n is refused\n"
        );
    }

    #[test]
    fn error_text_is_the_c_librarys_without_rusts_suffix() {
        assert_eq!(strerror(libc::ENOSPC), "No space left on device");
        assert_eq!(strerror(libc::EINVAL), "Invalid argument");
    }
}
