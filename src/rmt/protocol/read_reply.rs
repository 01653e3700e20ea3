//! Reading one reply as the client does: parsed strictly and with
//! bounded reads. A line that is not `A`, `E` or `F` (a login banner, a
//! shell error) is an error that quotes it, a reply claiming more data
//! than was asked for is an error, and no reply can make the client
//! allocate more than one record. Text from the server is made printable
//! (`printable`) before any message quotes it, so a hostile server cannot
//! send escape sequences to the user's terminal.

use std::io::{self, BufRead};

use super::number::parse_count;
use super::reply::Reply;

/// The longest reply line read: a number, or an error message.
pub const MAX_LINE_BYTES: usize = 4096;
/// The largest `struct mtget` accepted in an `S` reply.
pub const MAX_STATUS_BYTES: usize = 4096;

/// The shape of reply a request gets, which the reply reader must know
/// before it reads: `R` and `S` replies carry bytes after their line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// `A<n>` alone.
    Number,
    /// `A<k>` and k bytes, k at most the count asked for.
    Data(usize),
    /// `A<size>` and size bytes of `struct mtget`.
    Status,
}

/// A reply that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    #[error("the server closed the connection")]
    Closed,
    #[error("the server's reply was cut short")]
    Truncated,
    #[error("unexpected reply {0:?}")]
    Garbage(String),
    /// A reply line (a number, or an `E` message) longer than any server
    /// sends; the client stops reading it after `MAX_LINE_BYTES`.
    #[error("the server sent {what} longer than {MAX_LINE_BYTES} bytes (no end of line in its first {bytes} bytes), longer than any rmt reply")]
    LineTooLong { what: &'static str, bytes: usize },
    #[error("the server sent {got} bytes for a read of at most {asked}")]
    TooMuch { got: u64, asked: u64 },
    #[error("reading the reply failed: {0}")]
    Io(String),
    /// Bytes that came when no request awaited a reply (their start).
    #[error("unsolicited reply {0:?}")]
    Unsolicited(String),
}

/// Reads one reply of the `expect` shape. `buf` is reused for the bytes
/// of an `R` reply, so a steady read needs no new allocations.
pub fn read_reply(
    input: &mut impl BufRead,
    expect: Expect,
    mut buf: Vec<u8>,
) -> Result<Reply, ReplyError> {
    let line = read_line(input, "a reply line")?.ok_or(ReplyError::Closed)?;
    let (kind, rest) = match line.split_first() {
        Some((k, rest)) => (*k, rest),
        None => return Err(garbage(&line)),
    };
    match kind {
        b'A' => {
            let n = parse_number(rest).ok_or_else(|| garbage(&line))?;
            let limit = match expect {
                Expect::Number => return Ok(Reply::Number(n)),
                Expect::Data(asked) => asked,
                Expect::Status => MAX_STATUS_BYTES,
            };
            if n > limit as u64 {
                return Err(ReplyError::TooMuch {
                    got: n,
                    asked: limit as u64,
                });
            }
            buf.clear();
            buf.resize(n as usize, 0);
            input.read_exact(&mut buf).map_err(|e| match e.kind() {
                io::ErrorKind::UnexpectedEof => ReplyError::Truncated,
                _ => ReplyError::Io(e.to_string()),
            })?;
            Ok(Reply::Bytes(buf))
        }
        b'E' | b'F' => {
            let errno = parse_number(rest)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| garbage(&line))?;
            let message = read_line(input, "an error message")?.ok_or(ReplyError::Truncated)?;
            let message = printable(message.trim_ascii());
            Ok(Reply::Failed { errno, message })
        }
        _ => Err(garbage(&line)),
    }
}

/// One line without its `\n`, or None at a clean end of input. A line
/// longer than `MAX_LINE_BYTES` is a `LineTooLong` error naming `what`,
/// read no further: no more than `MAX_LINE_BYTES + 1` bytes are kept.
fn read_line(input: &mut impl BufRead, what: &'static str) -> Result<Option<Vec<u8>>, ReplyError> {
    let mut line = Vec::new();
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReplyError::Io(e.to_string())),
        };
        if available.is_empty() {
            return match line.is_empty() {
                true => Ok(None),
                false => Err(ReplyError::Truncated),
            };
        }
        let room = MAX_LINE_BYTES + 1 - line.len();
        let available = &available[..available.len().min(room)];
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..take]);
        input.consume(take);
        let text_bytes = line.len() - usize::from(done);
        if text_bytes > MAX_LINE_BYTES {
            return Err(ReplyError::LineTooLong {
                what,
                bytes: text_bytes,
            });
        }
        if done {
            line.pop();
            return Ok(Some(line));
        }
    }
}

/// A decimal number of digits only, at most 20 of them (GNU pads
/// nothing; a `\r` or a sign is not a reply from an rmt server).
fn parse_number(text: &[u8]) -> Option<u64> {
    if text.len() > 20 {
        return None;
    }
    parse_count(text).ok()
}

/// The error for a reply line that is not a reply, quoting it (shortened).
fn garbage(line: &[u8]) -> ReplyError {
    let mut quoted = printable(&line[..line.len().min(120)]);
    if line.len() > 120 {
        quoted.push_str("...");
    }
    ReplyError::Garbage(quoted)
}

/// `bytes` as text that is safe to print: control characters (C0, DEL
/// and C1) and bytes that are not UTF-8 are written as `\xNN` (`\u{NN}`
/// for a C1 character), and a backslash as `\\`, so nothing the server
/// sends can move the cursor, set a title or clear the screen.
pub fn printable(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c == '\x7f' => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if ('\u{80}'..='\u{9f}').contains(&c) => {
                    let _ = write!(out, "\\u{{{:02x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

#[cfg(test)]
#[path = "read_reply_tests.rs"]
mod tests;
