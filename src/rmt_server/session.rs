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
use super::mtops;
use super::outcome::Outcome;
use super::policy::Policy;
use super::reply::{self, errno_of, strerror};
use super::target::{Opener, Target};
use crate::base::escape::{shown, shown_letter};
use crate::rmt::protocol::{
    read_request, send_bytes, ReadError, Rejection, Reply, Request, MAX_RECORD_BYTES,
};

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

/// What a request is answered with.
enum Answer {
    Reply(Reply),
    /// R's data: the first k bytes of the session's buffer, sent from it.
    Data(usize),
    /// A request whose O flags or I operation this server does not take,
    /// refused as the protocol reader refuses a malformed one.
    Refused(Rejection),
}

impl Session<'_> {
    fn step(&mut self, input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), Outcome> {
        let request = match read_request(input) {
            Ok(request) => request,
            Err(ReadError::Eof) => return Err(Outcome::Finished),
            Err(e @ ReadError::Truncated { .. }) => {
                self.journal.warn(&format!("protocol violation: {e}"));
                return Err(Outcome::Truncated);
            }
            Err(ReadError::Io(e)) => {
                self.journal.warn(&format!("reading requests: {e}"));
                return Err(Outcome::InputFailed);
            }
            Err(ReadError::Rejected(r)) => return self.refuse(output, r),
        };
        let command = request.letter();
        let reply = match self.execute(request, input)? {
            Answer::Reply(reply) => reply,
            Answer::Data(k) => return self.sent(send_bytes(output, &self.buf[..k])),
            Answer::Refused(r) => return self.refuse(output, r),
        };
        // Opens log their own verdict.
        if let (Reply::Failed { errno, message }, false) = (&reply, command == 'O') {
            self.journal
                .warn(&format!("{command} request: replied E{errno} {message}"));
        }
        self.sent(reply.send(output))
    }

    /// Answers a refused request, and ends the session if the input is no
    /// longer in step.
    fn refuse(&mut self, output: &mut dyn Write, r: Rejection) -> Result<(), Outcome> {
        let letter = shown_letter(r.command);
        self.journal.warn(&format!(
            "protocol violation: {letter} request refused: E{} {}",
            r.errno, r.message
        ));
        if r.command == b'O' {
            // As on GNU rmt, an O request drops the old device.
            let _ = self.close_device();
        }
        let reply = Reply::Failed {
            errno: r.errno,
            message: r.message,
        };
        self.sent(reply.send(output))?;
        match r.fatal {
            true => Err(Outcome::Violation),
            false => Ok(()),
        }
    }

    /// How sending a reply went: a failure means the client is gone.
    fn sent(&mut self, result: io::Result<()>) -> Result<(), Outcome> {
        result.map_err(|e| {
            self.journal.warn(&format!("writing a reply: {e}"));
            Outcome::ClientGone
        })
    }

    fn execute(&mut self, request: Request, input: &mut dyn BufRead) -> Result<Answer, Outcome> {
        Ok(Answer::Reply(match request {
            Request::Open { path, flags } => match OpenFlags::parse(flags.as_bytes()) {
                Ok(flags) => self.open(&path, flags),
                Err(why) => return Ok(Answer::Refused(Rejection::invalid(b'O', &why))),
            },
            Request::Close => match self.device {
                None => no_device(),
                Some(_) => match self.close_device() {
                    Ok(()) => Reply::Number(0),
                    Err(e) => reply::os_error(&e),
                },
            },
            Request::Write(len) => {
                self.receive(input, len)?;
                self.write(len)
            }
            Request::Read(len) => return Ok(self.read(len)),
            Request::Ioctl { op, count } => return Ok(self.ioctl(op, count)),
            Request::Status => match self.device.as_mut() {
                None => no_device(),
                Some(device) => match device.target.status() {
                    Ok(bytes) => Reply::Bytes(bytes),
                    Err(e) => reply::os_error(&e),
                },
            },
            Request::Seek { whence, offset } => match self.device.as_mut() {
                None => no_device(),
                Some(device) => match device.target.seek(whence, offset) {
                    Ok(at) => Reply::Number(at),
                    Err(e) => reply::os_error(&e),
                },
            },
        }))
    }

    /// I: a tape operation this server runs, `count` times.
    fn ioctl(&mut self, code: u32, count: u32) -> Answer {
        let Some(op) = i32::try_from(code).ok().and_then(mtops::lookup) else {
            let why = format!("tape operation {code} is not supported by this server");
            return Answer::Refused(Rejection::invalid(b'I', &why));
        };
        let Ok(count) = i32::try_from(count) else {
            let why = format!("tape count {count} is out of range");
            return Answer::Refused(Rejection::invalid(b'I', &why));
        };
        if op.writes && self.policy.is_read_only() {
            let why = format!(
                "{} writes to the tape and this server is read-only",
                op.name
            );
            return Answer::Reply(reply::error(libc::EACCES, &why));
        }
        let Some(device) = self.device.as_mut() else {
            return Answer::Reply(no_device());
        };
        let result = device.target.ioctl(op.code, count);
        let verdict = match &result {
            Ok(()) => "done".to_string(),
            Err(e) => format!("failed: {}", strerror(errno_of(e))),
        };
        let path = shown(device.path.as_os_str().as_encoded_bytes());
        self.journal
            .info(&format!("{} {count} on {path}: {verdict}", op.name));
        Answer::Reply(match result {
            Ok(()) => Reply::Number(0),
            Err(e) => reply::os_error(&e),
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
                return Reply::Failed {
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
                Reply::Number(0)
            }
            Err(e) => {
                let errno = errno_of(&e);
                self.journal.warn(&format!(
                    "open {real_shown}{also} {flags}: allowed, but failed: {}",
                    strerror(errno)
                ));
                reply::open_failed(errno, &asked)
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
            None => Reply::Number(len as u64),
            Some(e) => reply::os_error(&e),
        }
    }

    /// One read of up to `len` bytes into the buffer.
    fn read(&mut self, len: usize) -> Answer {
        if self.device.is_none() {
            return Answer::Reply(no_device());
        }
        self.grow_buf(len);
        let device = self.device.as_mut().expect("checked above");
        match device.target.read(&mut self.buf[..len]) {
            Ok(k) => {
                let k = k.min(len);
                device.read_bytes += k as u64;
                self.read_bytes += k as u64;
                Answer::Data(k)
            }
            Err(e) => Answer::Reply(reply::os_error(&e)),
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
                strerror(errno_of(e))
            )),
        }
        result
    }
}

fn no_device() -> Reply {
    reply::error(libc::EBADF, "no device is open")
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
