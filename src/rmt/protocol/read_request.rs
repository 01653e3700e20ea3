//! Reading one rmt request as the server does: a command letter, then its
//! argument lines, each checked before anything acts on it. What O's
//! flags and I's operation mean is the server's to judge (`rmt_server/`);
//! here they are read as the protocol's text and numbers.
//!
//! Invariant: after a request is read, the input is positioned at the next
//! request, or the error says it is not. Every argument line is read whole
//! before any is judged, so a bad value in one line still leaves the
//! stream in step ([`Rejection::fatal`] is false). Only when that is
//! impossible (a W count that cannot be trusted to skip its data, an
//! argument longer than its limit, an unknown command letter) is the
//! rejection fatal, and the session replies and ends instead of reading
//! the rest as commands. Memory is bounded: no line is read past its
//! limit, and W's data is read by the session into a buffer of at most
//! [`MAX_RECORD_BYTES`].
//!
//! L is read in GNU rmt's order, `L<whence>\n<offset>\n`. BSD rmt, star
//! and dump clients send `L<offset>\n<whence>\n`; only `L0\n0\n` (rewind a
//! file) means the same to both, and any other L from such a client is
//! misread or refused with "seek direction out of range".

use std::ffi::OsStr;
use std::io::{self, BufRead};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::number::{parse_count, parse_signed, NumberError};
use super::reply::strerror;
use super::request::{Request, MAX_RECORD_BYTES};
use crate::base::escape::{shown, shown_letter};

/// The longest path an O request may carry, as Linux's PATH_MAX.
pub const MAX_PATH_BYTES: usize = 4096;
/// The longest numeric argument line.
pub const MAX_NUMBER_BYTES: usize = 64;
/// The longest flags line of an O request (`577 O_WRONLY|O_CREAT|...`).
pub const MAX_FLAGS_BYTES: usize = 256;

/// Why no request could be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The input ended cleanly, between requests.
    #[error("end of input")]
    Eof,
    /// The input ended inside a request.
    #[error("the input ended inside a {} request", shown_letter(*.command))]
    Truncated { command: u8 },
    #[error("{}", .0.message)]
    Rejected(Rejection),
    #[error("reading requests: {0}")]
    Io(#[from] io::Error),
}

/// A request refused before anything acted on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The command letter as sent.
    pub command: u8,
    pub errno: i32,
    /// The reply's message, one line.
    pub message: String,
    /// True when the input is no longer known to be at a request
    /// boundary: the session must reply and then end.
    pub fatal: bool,
}

impl Rejection {
    /// A refusal of a well-formed request whose value the reader cannot
    /// take: EINVAL, with the system's text and then `context`. The input
    /// is still in step.
    pub fn invalid(command: u8, context: &str) -> Rejection {
        Rejection {
            command,
            errno: libc::EINVAL,
            message: format!("{}: {context}", strerror(libc::EINVAL)),
            fatal: false,
        }
    }
}

/// Reads the next request.
pub fn read_request(input: &mut dyn BufRead) -> Result<Request, ReadError> {
    let Some(command) = read_byte(input)? else {
        return Err(ReadError::Eof);
    };
    match command {
        b'O' => read_open(input),
        b'C' => {
            arg(input, command, MAX_PATH_BYTES, libc::EINVAL)?;
            Ok(Request::Close)
        }
        b'S' => {
            arg(input, command, MAX_NUMBER_BYTES, libc::EINVAL)?;
            Ok(Request::Status)
        }
        b'W' => read_write(input),
        b'R' => read_read(input),
        b'I' => read_ioctl(input),
        b'L' => read_seek(input),
        other => Err(ReadError::Rejected(Rejection {
            command: other,
            errno: libc::EINVAL,
            message: format!("Garbage command {}", shown_letter(other)),
            fatal: true,
        })),
    }
}

fn read_open(input: &mut dyn BufRead) -> Result<Request, ReadError> {
    let path = arg(input, b'O', MAX_PATH_BYTES, libc::ENAMETOOLONG)?;
    let flags = arg(input, b'O', MAX_FLAGS_BYTES, libc::EINVAL)?;
    if path.contains(&0) {
        return Err(reject(b'O', "the path contains a NUL byte"));
    }
    let flags =
        String::from_utf8(flags).map_err(|_| reject(b'O', "the open flags are not text"))?;
    let path = PathBuf::from(OsStr::from_bytes(&path));
    Ok(Request::Open { path, flags })
}

/// W's count decides how many bytes of data follow; a count that cannot
/// be trusted cannot be skipped, so every problem with it is fatal.
fn read_write(input: &mut dyn BufRead) -> Result<Request, ReadError> {
    let line = number_arg(input, b'W')?;
    match parse_count(&line) {
        Ok(n) if n <= MAX_RECORD_BYTES as u64 => Ok(Request::Write(n as usize)),
        Ok(_) | Err(NumberError::TooLarge) => Err(fatal(
            b'W',
            &format!(
                "W count {} is above the maximum record size of {MAX_RECORD_BYTES} bytes",
                shown(&line)
            ),
        )),
        Err(e) => Err(fatal(b'W', &count_problem("W count", &line, e))),
    }
}

/// R's count is clamped: the reply may always be shorter than asked.
fn read_read(input: &mut dyn BufRead) -> Result<Request, ReadError> {
    let line = number_arg(input, b'R')?;
    let len = match parse_count(&line) {
        Ok(n) => n.min(MAX_RECORD_BYTES as u64) as usize,
        Err(NumberError::TooLarge) => MAX_RECORD_BYTES,
        Err(e) => return Err(reject(b'R', &count_problem("R count", &line, e))),
    };
    Ok(Request::Read(len))
}

fn read_ioctl(input: &mut dyn BufRead) -> Result<Request, ReadError> {
    let op_line = number_arg(input, b'I')?;
    let count_line = number_arg(input, b'I')?;
    let code = parse_count(&op_line)
        .map_err(|e| reject(b'I', &count_problem("tape operation", &op_line, e)))?;
    let op = u32::try_from(code)
        .ok()
        .filter(|&op| op <= i32::MAX as u32)
        .ok_or_else(|| {
            reject(
                b'I',
                &format!("tape operation {code} is not supported by this server"),
            )
        })?;
    let count = parse_count(&count_line)
        .map_err(|e| reject(b'I', &count_problem("tape count", &count_line, e)))?;
    let count = u32::try_from(count)
        .ok()
        .filter(|&count| count <= i32::MAX as u32)
        .ok_or_else(|| reject(b'I', &format!("tape count {count} is out of range")))?;
    Ok(Request::Ioctl { op, count })
}

/// GNU's order: whence, then offset.
fn read_seek(input: &mut dyn BufRead) -> Result<Request, ReadError> {
    let whence_line = number_arg(input, b'L')?;
    let offset_line = number_arg(input, b'L')?;
    let whence = match parse_count(&whence_line) {
        Ok(w) if w <= 2 => w as i32,
        _ => {
            return Err(reject(
                b'L',
                &format!(
                    "seek direction \"{}\" out of range (GNU order: L<whence>\\n<offset>\\n)",
                    shown(&whence_line)
                ),
            ))
        }
    };
    let offset = parse_signed(&offset_line).map_err(|_| {
        reject(
            b'L',
            &format!(
                "seek offset \"{}\" is not a 64-bit number",
                shown(&offset_line)
            ),
        )
    })?;
    Ok(Request::Seek { whence, offset })
}

fn count_problem(what: &str, line: &[u8], e: NumberError) -> String {
    let text = shown(line);
    match e {
        NumberError::NotDecimal => format!("{what} \"{text}\" is not a decimal number"),
        NumberError::Negative => format!("{what} {text} is negative"),
        NumberError::TooLarge => format!("{what} {text} is out of range"),
    }
}

fn reject(command: u8, context: &str) -> ReadError {
    ReadError::Rejected(Rejection::invalid(command, context))
}

fn fatal(command: u8, context: &str) -> ReadError {
    rejection(command, libc::EINVAL, context, true)
}

fn rejection(command: u8, errno: i32, context: &str, fatal: bool) -> ReadError {
    ReadError::Rejected(Rejection {
        command,
        errno,
        message: format!("{}: {context}", strerror(errno)),
        fatal,
    })
}

fn number_arg(input: &mut dyn BufRead, command: u8) -> Result<Vec<u8>, ReadError> {
    arg(input, command, MAX_NUMBER_BYTES, libc::EINVAL)
}

/// One argument line, without its newline, of at most `limit` bytes.
fn arg(
    input: &mut dyn BufRead,
    command: u8,
    limit: usize,
    too_long_errno: i32,
) -> Result<Vec<u8>, ReadError> {
    match read_line(input, limit)? {
        Line::Complete(line) => Ok(line),
        Line::Ended => Err(ReadError::Truncated { command }),
        Line::TooLong => Err(rejection(
            command,
            too_long_errno,
            &format!(
                "an argument of the {} request is longer than {limit} bytes",
                shown_letter(command)
            ),
            true,
        )),
    }
}

enum Line {
    Complete(Vec<u8>),
    /// The input ended before the newline.
    Ended,
    /// No newline within the limit; the rest is left unread.
    TooLong,
}

fn read_line(input: &mut dyn BufRead, limit: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(Line::Ended);
        }
        let room = limit - line.len();
        let (used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) if i <= room => {
                line.extend_from_slice(&available[..i]);
                (i + 1, true)
            }
            _ if available.len() > room => return Ok(Line::TooLong),
            _ => {
                line.extend_from_slice(available);
                (available.len(), false)
            }
        };
        input.consume(used);
        if done {
            return Ok(Line::Complete(line));
        }
    }
}

fn read_byte(input: &mut dyn BufRead) -> io::Result<Option<u8>> {
    loop {
        match input.fill_buf() {
            Ok([]) => return Ok(None),
            Ok([first, ..]) => {
                let b = *first;
                input.consume(1);
                return Ok(Some(b));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Every request in `bytes`, in order, W's data skipped: a request or the
/// words of its error, until the end. For tests on both sides' grammar.
#[cfg(test)]
pub(super) fn read_every(bytes: &[u8]) -> Vec<Result<Request, String>> {
    let mut input = std::io::Cursor::new(bytes.to_vec());
    let mut out = Vec::new();
    loop {
        match read_request(&mut input) {
            Ok(r) => {
                if let Request::Write(len) = r {
                    input.consume(len);
                }
                out.push(Ok(r));
            }
            Err(ReadError::Eof) => return out,
            Err(e) => out.push(Err(e.to_string())),
        }
    }
}

#[cfg(test)]
#[path = "read_request_tests.rs"]
mod tests;
