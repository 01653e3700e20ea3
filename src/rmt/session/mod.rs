//! One rmt session: the remote shell running the server on the far host,
//! and the two pipes to it.
//!
//! Requests go out on the child's standard input from the caller's thread.
//! A reply thread (`session/replies.rs`) reads standard output, one reply
//! per request in order; it learns each reply's shape (`R` and `S` replies
//! carry bytes) from a queue filled as requests are sent, so it never has
//! to guess. The remote shell itself, with the tail of its standard error
//! that a failure quotes, is in `session/shell.rs`, and the errors in
//! `session/error.rs`. Every wait is bounded: writes wait for room with
//! poll(2) up to the timeout, replies are awaited with a timeout, and the
//! child's exit is awaited with one too. Once the run is stopped (a
//! signal, the watchdog), every wait ends within `STOP_DRAIN` of the
//! stop, so the bytes acknowledged by then can be reported as what was
//! committed.
//!
//! The remote shell leads its own process group. A session that is
//! dropped without `finish` ends that group (SIGTERM, then SIGKILL after a
//! short wait), and every group still alive is remembered
//! (`base::child_groups`), so that `end_children` can end them when the
//! run ends early, even
//! while a session is still opening in another thread.
//!
//! After `C`'s reply the server's output must end. Anything more, or a
//! reply that arrives when no request awaits one, means replies and
//! requests are out of step, and is a desync error: a reply taken for the
//! wrong request could hide a failed write or close.

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::process::ChildStdin;
use std::time::{Duration, Instant};

use crossbeam_channel::{never, select, Receiver, RecvTimeoutError, Sender};
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use super::flavor::Flavor;
use super::name::RemoteName;
use super::protocol::{Expect, Reply, ReplyError, Request};
use replies::{Replies, Trailing};
use shell::Shell;

mod error;
mod replies;
mod shell;

pub use error::{CloseFailed, RmtError};

/// The remote shell when neither `--rsh-command` nor `RSH` names one: ssh
/// that never asks for a password or a host key, and passes bytes as they
/// are, so that it fails at once under cron instead of waiting for a
/// person.
pub const DEFAULT_RSH: &[&str] = &["ssh", "-T", "-e", "none", "-o", "BatchMode=yes"];
/// The server command when neither `--rmt-command` nor `RMT` names one.
pub const DEFAULT_RMT_COMMAND: &str = "/etc/rmt";
/// How long any one reply may take without `--timeout`: long enough for a
/// drive to load, rewind or unload a cartridge.
pub const DEFAULT_REPLY_TIMEOUT: Duration = Duration::from_secs(600);
/// How long waits go on once the run is stopped: long enough for a healthy
/// server to answer what is in flight, short enough to fit the run's grace.
const STOP_DRAIN: Duration = Duration::from_millis(750);
/// How often a wait to send looks at the stop signal.
const SEND_POLL: Duration = Duration::from_millis(100);

/// How to reach rmt servers, shared by every session of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RmtSettings {
    /// The remote shell and its own arguments.
    pub rsh: Vec<String>,
    /// The server command run on the far host.
    pub rmt_command: String,
    pub flavor: Flavor,
    /// The longest wait for a reply, or for room to send.
    pub timeout: Duration,
    /// A fixed number of requests in flight; None adapts to the link.
    pub window: Option<usize>,
}

/// A running remote shell with the server at its far end.
pub struct Session {
    shell: Shell,
    stdin: Option<ChildStdin>,
    expects: Option<Sender<Expect>>,
    replies: Receiver<Result<Reply, ReplyError>>,
    spare: Sender<Vec<u8>>,
    /// What the server sent after the last reply, once requests have ended.
    trailing: Receiver<Trailing>,
    /// The run's stop signal, and when this session first saw it.
    stop: Option<Receiver<()>>,
    stopped_at: Option<Instant>,
    timeout: Duration,
    header: Vec<u8>,
    /// Requests sent whose replies have not been taken.
    outstanding: usize,
}

impl Session {
    /// Starts `RSH HOST [-l USER] RMT_COMMAND`. Nothing is sent yet.
    pub fn start(remote: &RemoteName, settings: &RmtSettings) -> Result<Session, RmtError> {
        let (shell, stdin, stdout) = Shell::start(remote, &settings.rsh, &settings.rmt_command)?;
        prepare_requests(&stdin);
        let Replies {
            expects,
            replies,
            spare,
            trailing,
        } = Replies::start(stdout);
        Ok(Session {
            shell,
            stdin: Some(stdin),
            expects: Some(expects),
            replies,
            spare,
            trailing,
            stop: None,
            stopped_at: None,
            timeout: settings.timeout,
            header: Vec::with_capacity(64),
            outstanding: 0,
        })
    }

    /// Sends one request (with W's data) without waiting for its reply.
    pub fn send(&mut self, request: &Request, data: &[u8]) -> Result<(), RmtError> {
        self.header.clear();
        request.encode(&mut self.header)?;
        let expect = match request {
            Request::Read(n) => Expect::Data(*n),
            Request::Status => Expect::Status,
            _ => Expect::Number,
        };
        if let Some(expects) = &self.expects {
            let _ = expects.send(expect);
        }
        self.outstanding += 1;
        let header = std::mem::take(&mut self.header);
        let sent = self.write_all(&header, data);
        self.header = header;
        sent
    }

    /// Sends a request and waits for its reply: for everything but the
    /// data path. An `E` reply is an error.
    pub fn call(&mut self, request: &Request) -> Result<Reply, RmtError> {
        debug_assert_eq!(self.outstanding, 0, "a call waits behind nothing");
        self.send(request, &[])?;
        RmtError::check(self.wait_reply()?)
    }

    /// The number of requests sent whose replies have not been taken.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// True when a reply has arrived and not been taken.
    pub fn reply_ready(&self) -> bool {
        !self.replies.is_empty()
    }

    /// The next reply if it has arrived.
    pub fn try_reply(&mut self) -> Result<Option<Reply>, RmtError> {
        if self.outstanding == 0 {
            return Ok(None);
        }
        match self.replies.try_recv() {
            Ok(reply) => self.took(reply).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// Lets `stop` cut every later wait short (to `STOP_DRAIN`).
    pub fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = Some(stop.clone());
    }

    /// When waits must end because the run was stopped, if it was.
    fn stop_deadline(&mut self) -> Option<Instant> {
        if self.stopped_at.is_none()
            && self
                .stop
                .as_ref()
                .is_some_and(crate::base::signals::stopped)
        {
            self.stopped_at = Some(Instant::now());
        }
        self.stopped_at.map(|at| at + STOP_DRAIN)
    }

    /// The next reply, waiting up to the timeout.
    pub fn wait_reply(&mut self) -> Result<Reply, RmtError> {
        self.wait_reply_within(self.timeout)
    }

    /// The next reply, waiting up to `limit` (and less once stopped). A
    /// timeout kills the session; a stop leaves it to the caller.
    pub fn wait_reply_within(&mut self, limit: Duration) -> Result<Reply, RmtError> {
        assert!(self.outstanding > 0, "waiting for a reply to nothing");
        let timeout_at = Instant::now() + limit;
        loop {
            let stop_at = self.stop_deadline();
            let deadline = stop_at.map_or(timeout_at, |s| s.min(timeout_at));
            let stop = match (stop_at, &self.stop) {
                (None, Some(stop)) => stop.clone(),
                _ => never(),
            };
            select! {
                recv(self.replies) -> reply => return match reply {
                    Ok(reply) => self.took(reply),
                    Err(_) => Err(self.ended("the reply reader stopped")),
                },
                recv(stop) -> _ => continue,
                default(deadline.saturating_duration_since(Instant::now())) => {
                    if stop_at.is_some_and(|s| s <= timeout_at) {
                        return Err(RmtError::Stopped);
                    }
                    self.shell.kill();
                    return Err(RmtError::TimedOut(limit.as_secs()));
                }
            }
        }
    }

    /// Gives a reply's buffer back for reuse.
    pub fn recycle(&self, buf: Vec<u8>) {
        let _ = self.spare.send(buf);
    }

    fn took(&mut self, reply: Result<Reply, ReplyError>) -> Result<Reply, RmtError> {
        self.outstanding -= 1;
        reply.map_err(|e| match e {
            ReplyError::Garbage(line) => {
                self.shell.kill();
                RmtError::Protocol(format!(
                    "the remote end answered \"{line}\", which is not an rmt reply \
                     (a login banner, or a shell that cannot run '{}'?){}",
                    self.shell.program(),
                    self.shell.quoted_stderr()
                ))
            }
            ReplyError::TooMuch { .. } | ReplyError::LineTooLong { .. } => {
                self.shell.kill();
                RmtError::Protocol(format!("protocol error: {e}"))
            }
            ReplyError::Unsolicited(start) => {
                self.shell.kill();
                RmtError::Desync(format!(
                    "the server sent \"{start}\" when no request awaited a reply \
                     (a reply to a request never sent, or one request answered twice)"
                ))
            }
            other => self.ended(&other.to_string()),
        })
    }

    /// Closes standard input, waits for the child to end, and checks that
    /// it ended well.
    pub fn finish(mut self) -> Result<(), RmtError> {
        self.stdin = None;
        self.expects = None;
        match self.trailing.recv_timeout(self.timeout) {
            Ok(Trailing { bytes: 0, .. }) | Err(RecvTimeoutError::Disconnected) => {}
            Ok(Trailing { bytes, start }) => {
                self.shell.kill();
                return Err(RmtError::Desync(format!(
                    "the server sent {bytes} more bytes after the reply to C, starting \"{start}\" \
                     (a reply to a request never sent, or one request answered twice), so its \
                     replies were out of step with the requests"
                )));
            }
            Err(RecvTimeoutError::Timeout) => {
                self.shell.kill();
                return Err(RmtError::TimedOut(self.timeout.as_secs()));
            }
        }
        match self.shell.exit_status(self.timeout) {
            Some(status) if status.success() => Ok(()),
            Some(_) => Err(self.ended("the remote shell failed after the session")),
            None => {
                self.shell.kill();
                Err(RmtError::TimedOut(self.timeout.as_secs()))
            }
        }
    }

    /// The error for a session that ended under us, with the child's exit
    /// status and the last words on its standard error.
    pub fn ended(&mut self, what: &str) -> RmtError {
        self.stdin = None;
        RmtError::Ended(format!("{what}; {}", self.shell.last_words()))
    }

    /// Sends `header` and then `data`, in one system call when the pipe
    /// has room: a header on its own would wake the remote shell for eight
    /// bytes, and every program after it in turn.
    fn write_all(&mut self, header: &[u8], data: &[u8]) -> Result<(), RmtError> {
        let mut parts = [io::IoSlice::new(header), io::IoSlice::new(data)];
        let mut left = &mut parts[..];
        let mut waiting_since: Option<Instant> = None;
        while !left.is_empty() {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(self.ended("the session is closed"));
            };
            match stdin.write_vectored(left) {
                Ok(0) => return Err(self.ended("the rmt server stopped reading")),
                Ok(n) => {
                    io::IoSlice::advance_slices(&mut left, n);
                    waiting_since = None;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let timeout_at = *waiting_since.get_or_insert_with(Instant::now) + self.timeout;
                    let now = Instant::now();
                    if self.stop_deadline().is_some_and(|s| s <= now) {
                        return Err(RmtError::Stopped);
                    }
                    if timeout_at <= now {
                        self.shell.kill();
                        return Err(RmtError::TimedOut(self.timeout.as_secs()));
                    }
                    let slice = (timeout_at - now).min(SEND_POLL).as_millis() as i32;
                    let stdin = self.stdin.as_mut().expect("checked above");
                    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLOUT)];
                    match poll(
                        &mut fds,
                        PollTimeout::try_from(slice).unwrap_or(PollTimeout::MAX),
                    ) {
                        Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                        Err(e) => return Err(self.ended(&format!("waiting to send failed: {e}"))),
                    }
                }
                Err(e) => return Err(self.ended(&format!("sending to the rmt server failed: {e}"))),
            }
        }
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stdin = None;
        self.shell.end();
    }
}

/// Makes the pipe for requests large, and non-blocking, so that a send
/// waits for room with poll(2) and a timeout instead of blocking.
fn prepare_requests(stdin: &ChildStdin) {
    crate::base::pipe_size::grow_to(stdin.as_fd(), 1 << 20);
    let flags = fcntl(stdin.as_fd(), FcntlArg::F_GETFL).map_err(io::Error::from);
    if let Ok(bits) = flags {
        let nonblocking = OFlag::from_bits_truncate(bits) | OFlag::O_NONBLOCK;
        let _ = fcntl(stdin.as_fd(), FcntlArg::F_SETFL(nonblocking));
    }
}
