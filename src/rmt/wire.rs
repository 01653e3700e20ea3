//! The rmt wire format as the client speaks it.
//!
//! Requests are built only from values checked here first: a path with a
//! newline, or a count the server would misread, would make the server
//! read the rest of the request as commands and lose its place. Replies
//! are parsed strictly and with bounded reads: a line that is not `A`, `E`
//! or `F` (a login banner, a shell error) is an error that quotes it, a
//! reply claiming more data than was asked for is an error, and no reply
//! can make the client allocate more than one record. Text from the server
//! is made printable (`printable`) before any message quotes it, so a
//! hostile server cannot send escape sequences to the user's terminal.

use std::io::{self, BufRead};

/// The longest reply line read: a number, or an error message.
pub const MAX_LINE_BYTES: usize = 4096;
/// The largest `struct mtget` accepted in an `S` reply.
pub const MAX_STATUS_BYTES: usize = 4096;
/// The largest record the client sends or asks for. GNU rmt and star
/// parse counts as `int`; staying far below keeps every server safe.
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// One request, built from values that are valid on every server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `O<path>\n<flags>\n`: the flags line is `<number> <SYMBOLIC>`.
    Open { path: String, flags: String },
    /// `C\n`.
    Close,
    /// `W<n>\n`, then n bytes of data, which the caller sends.
    Write(usize),
    /// `R<n>\n`.
    Read(usize),
    /// `I<op>\n<count>\n`, in the server's own op numbering.
    Ioctl { op: u8, count: u32 },
    /// `S\n`.
    Status,
    /// `L0\n0\n`: back to the start of a file. The only seek sent, since
    /// servers disagree on the order of L's two arguments and this one
    /// reads the same either way.
    SeekStart,
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
}

impl Request {
    /// Appends the request's header (not W's data) to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), RequestError> {
        use std::io::Write;
        match self {
            Request::Open { path, flags } => {
                if path.is_empty() {
                    return Err(RequestError::EmptyPath);
                }
                if path.contains(['\n', '\0']) || flags.contains(['\n', '\0']) {
                    return Err(RequestError::BadPath(path.clone()));
                }
                let _ = write!(out, "O{path}\n{flags}\n");
            }
            Request::Close => out.extend_from_slice(b"C\n"),
            Request::Write(n) | Request::Read(n) => {
                if *n == 0 || *n > MAX_RECORD_BYTES {
                    return Err(RequestError::BadCount(*n));
                }
                let letter = if matches!(self, Request::Write(_)) {
                    'W'
                } else {
                    'R'
                };
                let _ = writeln!(out, "{letter}{n}");
            }
            Request::Ioctl { op, count } => {
                if *count > i32::MAX as u32 {
                    return Err(RequestError::BadOpCount(*count));
                }
                let _ = write!(out, "I{op}\n{count}\n");
            }
            Request::Status => out.extend_from_slice(b"S\n"),
            Request::SeekStart => out.extend_from_slice(b"L0\n0\n"),
        }
        Ok(())
    }
}

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

/// A reply, matched to its request by order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `A<n>`.
    Number(u64),
    /// The bytes of an `R` or `S` reply.
    Bytes(Vec<u8>),
    /// `E<errno>\n<message>` (or `F`): the server's errno, in its own OS's
    /// numbering, and its message.
    Failed { errno: i32, message: String },
}

/// ENOSPC, the one errno number the client acts on: end of media.
pub const END_OF_MEDIUM_ERRNO: i32 = 28;

impl Reply {
    /// True for the `E28` that means end of media.
    pub fn is_end_of_medium(&self) -> bool {
        matches!(self, Reply::Failed { errno, .. } if *errno == END_OF_MEDIUM_ERRNO)
    }
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

/// A decimal number of digits only (GNU pads nothing; a `\r` or a sign is
/// not a reply from an rmt server).
fn parse_number(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 20 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
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
#[path = "wire_tests.rs"]
mod tests;
