//! One rmt session: read a request, act on the open device, reply, until
//! the client closes its end.
//!
//! Invariants: every request read gets exactly one reply, in order, and
//! each reply is flushed before the next request is read, so a pipelining
//! client can match replies to requests and never waits on a buffered
//! reply. W's data is always read in full before anything else happens,
//! even when no device is open or the write then fails, so the stream
//! stays in step. At most one device is open; a new O closes the old one
//! first, and C does not end the session (GNU rmt exits after C; staying
//! costs nothing, since clients start a new session per volume anyway).
//! Memory is one reusable buffer of at most [`MAX_RECORD_BYTES`].

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use super::flags::OpenFlags;
use super::journal::Journal;
use super::log::Log;
use super::policy::Policy;
use super::reply::{strerror, Reply};
use super::request::{read_request, Request, RequestError, MAX_RECORD_BYTES};
use super::target::{Opener, Target};
use crate::base::shown::{shown, shown_letter};

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The client closed its end between requests; the device, if any,
    /// closed cleanly. Exit status 0.
    Finished,
    /// As `Finished`, but closing the device at the end failed.
    CloseFailed,
    /// A request could not be consumed safely (see `request.rs`); it was
    /// answered with an error and the session ended.
    Violation,
    /// The input ended inside a request.
    Truncated,
    /// Reading the input failed.
    InputFailed,
    /// Writing a reply failed: the client is gone.
    ClientGone,
}

impl Outcome {
    /// The process exit status: 0 for `Finished`, else 1.
    pub fn exit_code(self) -> i32 {
        match self {
            Outcome::Finished => crate::base::exit::SUCCESS,
            _ => crate::base::exit::FAILURE,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Outcome::Finished => "end of input",
            Outcome::CloseFailed => "end of input, but closing the device failed",
            Outcome::Violation => "protocol violation",
            Outcome::Truncated => "the input ended inside a request",
            Outcome::InputFailed => "reading requests failed",
            Outcome::ClientGone => "the client stopped reading replies",
        }
    }
}

/// Serves requests from `input`, replying on `output`, until the input
/// ends or the session cannot go on. Opens go through `policy`, then
/// `opener`; events go to `log`. The open device is closed before this
/// returns.
pub fn serve(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    policy: &Policy,
    opener: &mut dyn Opener,
    log: &Log,
) -> Outcome {
    let mut session = Session {
        policy,
        opener,
        journal: Journal::new(log),
        device: None,
        buf: Vec::new(),
        written_bytes: 0,
        read_bytes: 0,
    };
    session
        .journal
        .info(&format!("session start; policy: {policy}"));
    let mut outcome = loop {
        if let Err(end) = session.step(input, output) {
            break end;
        }
    };
    if session.close_device().is_err() && outcome == Outcome::Finished {
        outcome = Outcome::CloseFailed;
    }
    let summary = format!(
        "session end: {}; {} bytes written, {} bytes read",
        outcome.describe(),
        session.written_bytes,
        session.read_bytes
    );
    match outcome {
        Outcome::Finished => session.journal.info(&summary),
        _ => session.journal.warn(&summary),
    }
    outcome
}

struct Session<'a> {
    policy: &'a Policy,
    opener: &'a mut dyn Opener,
    journal: Journal<'a>,
    device: Option<Device>,
    /// W's data and R's reply; grows to the largest record, at most
    /// MAX_RECORD_BYTES.
    buf: Vec<u8>,
    /// Totals over every device of the session.
    written_bytes: u64,
    read_bytes: u64,
}

struct Device {
    target: Box<dyn Target>,
    path: PathBuf,
    written_bytes: u64,
    read_bytes: u64,
}

impl Session<'_> {
    fn step(&mut self, input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), Outcome> {
        let request = match read_request(input) {
            Ok(request) => request,
            Err(RequestError::Eof) => return Err(Outcome::Finished),
            Err(e @ RequestError::Truncated { .. }) => {
                self.journal.warn(&format!("protocol violation: {e}"));
                return Err(Outcome::Truncated);
            }
            Err(RequestError::Io(e)) => {
                self.journal.warn(&format!("reading requests: {e}"));
                return Err(Outcome::InputFailed);
            }
            Err(RequestError::Rejected(r)) => {
                let letter = shown_letter(r.command);
                self.journal.warn(&format!(
                    "protocol violation: {letter} request refused: E{} {}",
                    r.errno, r.message
                ));
                if r.command == b'O' {
                    // As on GNU rmt, an O request drops the old device.
                    let _ = self.close_device();
                }
                let reply = Reply::Error {
                    errno: r.errno,
                    message: r.message,
                };
                self.send(output, &reply)?;
                return if r.fatal {
                    Err(Outcome::Violation)
                } else {
                    Ok(())
                };
            }
        };
        let command = letter(&request);
        let reply = self.execute(request, input)?;
        // Opens log their own verdict.
        if let (Reply::Error { errno, message }, false) = (&reply, command == 'O') {
            self.journal
                .warn(&format!("{command} request: replied E{errno} {message}"));
        }
        self.send(output, &reply)
    }

    fn send(&mut self, output: &mut dyn Write, reply: &Reply) -> Result<(), Outcome> {
        reply.send(output, &self.buf).map_err(|e| {
            self.journal.warn(&format!("writing a reply: {e}"));
            Outcome::ClientGone
        })
    }

    fn execute(&mut self, request: Request, input: &mut dyn BufRead) -> Result<Reply, Outcome> {
        Ok(match request {
            Request::Open { path, flags } => self.open(&path, flags),
            Request::Close => match self.device {
                None => no_device(),
                Some(_) => match self.close_device() {
                    Ok(()) => Reply::Ack(0),
                    Err(e) => Reply::os_error(&e),
                },
            },
            Request::Write { len } => {
                self.receive(input, len)?;
                self.write(len)
            }
            Request::Read { len } => self.read(len),
            Request::Ioctl { op, count } => {
                if op.writes && self.policy.is_read_only() {
                    return Ok(Reply::error(
                        libc::EACCES,
                        &format!(
                            "{} writes to the tape and this server is read-only",
                            op.name
                        ),
                    ));
                }
                let Some(device) = self.device.as_mut() else {
                    return Ok(no_device());
                };
                let result = device.target.ioctl(op.code, count);
                let verdict = match &result {
                    Ok(()) => "done".to_string(),
                    Err(e) => format!("failed: {}", strerror(super::reply::errno_of(e))),
                };
                let path = shown(device.path.as_os_str().as_encoded_bytes());
                self.journal
                    .info(&format!("{} {count} on {path}: {verdict}", op.name));
                match result {
                    Ok(()) => Reply::Ack(0),
                    Err(e) => Reply::os_error(&e),
                }
            }
            Request::Status => match self.device.as_mut() {
                None => no_device(),
                Some(device) => match device.target.status() {
                    Ok(bytes) => Reply::Status(bytes),
                    Err(e) => Reply::os_error(&e),
                },
            },
            Request::Seek { whence, offset } => match self.device.as_mut() {
                None => no_device(),
                Some(device) => match device.target.seek(whence, offset) {
                    Ok(at) => Reply::Ack(at),
                    Err(e) => Reply::os_error(&e),
                },
            },
        })
    }

    fn open(&mut self, path: &Path, flags: OpenFlags) -> Reply {
        if self.device.is_some() {
            let _ = self.close_device();
        }
        let asked = shown(path.as_os_str().as_encoded_bytes());
        let real = match self.policy.admit(path, flags) {
            Ok(real) => real,
            Err(refusal) => {
                self.journal.warn(&format!(
                    "open {asked} {flags}: refused: {}",
                    refusal.detail
                ));
                return Reply::Error {
                    errno: refusal.errno,
                    message: refusal.message,
                };
            }
        };
        let real_shown = shown(real.as_os_str().as_encoded_bytes());
        let also = if real_shown == asked {
            String::new()
        } else {
            format!(" (asked for {asked})")
        };
        let root = self.policy.root_of(&real);
        match self.opener.open_beneath(&root, &real, flags) {
            Ok(target) => {
                self.journal
                    .info(&format!("open {real_shown}{also} {flags}: allowed"));
                self.device = Some(Device {
                    target,
                    path: real,
                    written_bytes: 0,
                    read_bytes: 0,
                });
                Reply::Ack(0)
            }
            Err(e) => {
                let errno = super::reply::errno_of(&e);
                self.journal.warn(&format!(
                    "open {real_shown}{also} {flags}: allowed, but failed: {}",
                    strerror(errno)
                ));
                Reply::open_failed(errno, &asked)
            }
        }
    }

    /// Reads W's `len` bytes of data into the buffer.
    fn receive(&mut self, input: &mut dyn BufRead, len: usize) -> Result<(), Outcome> {
        self.grow_buf(len);
        input.read_exact(&mut self.buf[..len]).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                self.journal.warn(&format!(
                    "protocol violation: the input ended inside the data of W{len}"
                ));
                Outcome::Truncated
            } else {
                self.journal.warn(&format!("reading W data: {e}"));
                Outcome::InputFailed
            }
        })
    }

    /// Writes the buffer's first `len` bytes, looping over short writes.
    fn write(&mut self, len: usize) -> Reply {
        let Some(device) = self.device.as_mut() else {
            return no_device();
        };
        let mut done = 0;
        let mut failure = None;
        while done < len {
            match device.target.write(&self.buf[done..len]) {
                Ok(0) => {
                    failure = Some(io::Error::from_raw_os_error(libc::ENOSPC));
                    break;
                }
                Ok(n) => done += n.min(len - done),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        device.written_bytes += done as u64;
        self.written_bytes += done as u64;
        match failure {
            None => Reply::Ack(len as u64),
            Some(e) => Reply::os_error(&e),
        }
    }

    /// One read of up to `len` bytes into the buffer.
    fn read(&mut self, len: usize) -> Reply {
        if self.device.is_none() {
            return no_device();
        }
        self.grow_buf(len);
        let device = self.device.as_mut().expect("checked above");
        match device.target.read(&mut self.buf[..len]) {
            Ok(k) => {
                let k = k.min(len);
                device.read_bytes += k as u64;
                self.read_bytes += k as u64;
                Reply::Data(k)
            }
            Err(e) => Reply::os_error(&e),
        }
    }

    fn grow_buf(&mut self, len: usize) {
        debug_assert!(len <= MAX_RECORD_BYTES);
        if self.buf.len() < len {
            self.buf.resize(len, 0);
        }
    }

    /// Closes the open device, if any, and logs what went through it.
    fn close_device(&mut self) -> io::Result<()> {
        let Some(device) = self.device.take() else {
            return Ok(());
        };
        let result = device.target.close();
        let path = shown(device.path.as_os_str().as_encoded_bytes());
        let counts = format!(
            "{} bytes written, {} bytes read",
            device.written_bytes, device.read_bytes
        );
        match &result {
            Ok(()) => self.journal.info(&format!("close {path}: {counts}")),
            Err(e) => self.journal.warn(&format!(
                "close {path}: {counts}; close failed: {}",
                strerror(super::reply::errno_of(e))
            )),
        }
        result
    }
}

fn no_device() -> Reply {
    Reply::error(libc::EBADF, "no device is open")
}

fn letter(request: &Request) -> char {
    match request {
        Request::Open { .. } => 'O',
        Request::Close => 'C',
        Request::Write { .. } => 'W',
        Request::Read { .. } => 'R',
        Request::Ioctl { .. } => 'I',
        Request::Status => 'S',
        Request::Seek { .. } => 'L',
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
