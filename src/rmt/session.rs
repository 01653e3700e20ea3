//! One rmt session: the remote shell running the server on the far host,
//! and the two pipes to it.
//!
//! Requests go out on the child's standard input from the caller's thread.
//! A reply thread reads standard output, one reply per request in order;
//! it learns each reply's shape (`R` and `S` replies carry bytes) from a
//! queue filled as requests are sent, so it never has to guess. A third
//! thread keeps the tail of the child's standard error, so that a failure
//! can quote what ssh or the server said. Every wait is bounded: writes
//! wait for room with poll(2) up to the timeout, replies are awaited with
//! a timeout, and the child's exit is awaited with one too. Once the run
//! is stopped (a signal, the watchdog), every wait ends within
//! `STOP_DRAIN` of the stop, so the bytes acknowledged by then can be
//! reported as what was committed.
//!
//! The remote shell leads its own process group. A session that is
//! dropped without `finish` ends that group (SIGTERM, then SIGKILL after a
//! short wait), and every group still alive is remembered (`groups`), so
//! that `end_remote_shells` can end them when the run ends early, even
//! while a session is still opening in another thread.
//!
//! After `C`'s reply the server's output must end. Anything more, or a
//! reply that arrives when no request awaits one, means replies and
//! requests are out of step, and is a desync error: a reply taken for the
//! wrong request could hide a failed write or close.

use std::io::{self, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, never, select, unbounded, Receiver, RecvTimeoutError, Sender};
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use super::flavor::Flavor;
pub use super::groups::end_remote_shells;
use super::groups::{end_groups, forget_group, group_alive, remember_group};
use super::name::RemoteName;
use super::wire::{printable, read_reply, Expect, Reply, ReplyError, Request, RequestError};

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
/// How much of the child's standard error is kept for messages.
const STDERR_TAIL_BYTES: usize = 4096;
/// The reply reader's buffer: one read takes many small replies at once.
const REPLY_BUFFER_BYTES: usize = 1 << 20;
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

/// Why a session failed. `Remote` is the server's own refusal, which the
/// caller branches on (E28 is the end of the medium); the rest mean the
/// session is unusable.
#[derive(Debug, thiserror::Error)]
pub enum RmtError {
    #[error("the server replied \"{message}\" (E{errno})")]
    Remote { errno: i32, message: String },
    #[error("{0}")]
    Protocol(String),
    #[error("{0}")]
    Ended(String),
    /// Replies out of step with the requests: an extra reply, or one to
    /// a request never sent.
    #[error("desync: {0}")]
    Desync(String),
    #[error("no reply from the rmt server for {0} s (--timeout)")]
    TimedOut(u64),
    /// `C` was refused, or its session failed.
    #[error(transparent)]
    Close(Box<super::remote::CloseFailed>),
    /// The run was stopped while waiting on the server.
    #[error("stopped while waiting for the rmt server")]
    Stopped,
    #[error("cannot start the remote shell '{program}': {why}")]
    Spawn { program: String, why: io::Error },
    #[error(transparent)]
    Request(#[from] RequestError),
}

impl RmtError {
    /// The server's errno, for a refusal.
    pub fn errno(&self) -> Option<i32> {
        match self {
            RmtError::Remote { errno, .. } => Some(*errno),
            _ => None,
        }
    }

    /// Turns an `E` reply into an error; passes other replies through.
    pub fn check(reply: Reply) -> Result<Reply, RmtError> {
        match reply {
            Reply::Failed { errno, message } => Err(RmtError::Remote { errno, message }),
            other => Ok(other),
        }
    }
}

impl From<RmtError> for io::Error {
    fn from(e: RmtError) -> io::Error {
        io::Error::other(e)
    }
}

/// A running remote shell with the server at its far end.
pub struct Session {
    pid: i32,
    stdin: Option<ChildStdin>,
    expects: Option<Sender<Expect>>,
    replies: Receiver<Result<Reply, ReplyError>>,
    spare: Sender<Vec<u8>>,
    exited: Receiver<io::Result<ExitStatus>>,
    /// What the server sent after the last reply, once requests have ended.
    trailing: Receiver<Trailing>,
    /// The run's stop signal, and when this session first saw it.
    stop: Option<Receiver<()>>,
    stopped_at: Option<Instant>,
    status: Option<ExitStatus>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Disconnects when the child's standard error has ended.
    stderr_ended: Receiver<()>,
    timeout: Duration,
    program: String,
    header: Vec<u8>,
    /// Requests sent whose replies have not been taken.
    outstanding: usize,
}

impl Session {
    /// Starts `RSH HOST [-l USER] RMT_COMMAND`. Nothing is sent yet.
    pub fn start(remote: &RemoteName, settings: &RmtSettings) -> Result<Session, RmtError> {
        let (program, args) = settings
            .rsh
            .split_first()
            .expect("the remote shell command is never empty");
        let mut command = Command::new(program);
        command.args(args).arg(&remote.host);
        if let Some(user) = &remote.user {
            command.arg("-l").arg(user);
        }
        command
            .arg(&settings.rmt_command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a Ctrl-C at the terminal reaches only
            // tapebuf, which then closes the session in order.
            .process_group(0);
        let mut child = command.spawn().map_err(|why| RmtError::Spawn {
            program: program.clone(),
            why,
        })?;
        let pid = child.id() as i32;
        remember_group(pid);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        crate::base::pipe_size::grow_to(stdin.as_fd(), 1 << 20);
        let flags = fcntl(stdin.as_fd(), FcntlArg::F_GETFL).map_err(io::Error::from);
        if let Ok(bits) = flags {
            let nonblocking = OFlag::from_bits_truncate(bits) | OFlag::O_NONBLOCK;
            let _ = fcntl(stdin.as_fd(), FcntlArg::F_SETFL(nonblocking));
        }

        let (expect_tx, expect_rx) = unbounded::<Expect>();
        let (reply_tx, reply_rx) = unbounded();
        let (spare_tx, spare_rx) = unbounded::<Vec<u8>>();
        let (trailing_tx, trailing_rx) = bounded::<Trailing>(1);
        std::thread::Builder::new()
            .name("rmt-replies".into())
            .spawn(move || {
                let mut input = BufReader::with_capacity(REPLY_BUFFER_BYTES, stdout);
                let mut unsolicited: Option<String> = None;
                while let Ok(expect) = expect_rx.recv() {
                    let reply = match unsolicited.take() {
                        Some(start) => Err(ReplyError::Unsolicited(start)),
                        None => {
                            let buf = spare_rx.try_recv().unwrap_or_default();
                            read_reply(&mut input, expect, buf)
                        }
                    };
                    let failed = reply.is_err();
                    if reply_tx.send(reply).is_err() || failed {
                        return;
                    }
                    // Every request's expectation is queued before the
                    // request is sent, so bytes already here when none is
                    // queued answer nothing. (The buffer is looked at
                    // first: a reply that is here was asked for earlier.)
                    if !input.buffer().is_empty() && expect_rx.is_empty() {
                        unsolicited = Some(printable(first_line(input.buffer())));
                    }
                }
                // The session is finishing: the server's output must end.
                let _ = trailing_tx.send(Trailing::read(&mut input));
            })
            .expect("spawning the rmt reply thread");

        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let (stderr_open, stderr_ended) = bounded::<()>(0);
        std::thread::Builder::new()
            .name("rmt-stderr".into())
            .spawn(move || {
                keep_tail(stderr_pipe, &tail);
                drop(stderr_open);
            })
            .expect("spawning the rmt stderr thread");

        let (exit_tx, exit_rx) = bounded(1);
        std::thread::Builder::new()
            .name("rmt-child".into())
            .spawn(move || {
                let status = child.wait();
                if !group_alive(pid) {
                    forget_group(pid);
                }
                let _ = exit_tx.send(status);
            })
            .expect("spawning the rmt child waiter");

        Ok(Session {
            pid,
            stdin: Some(stdin),
            expects: Some(expect_tx),
            replies: reply_rx,
            spare: spare_tx,
            exited: exit_rx,
            trailing: trailing_rx,
            stop: None,
            stopped_at: None,
            status: None,
            stderr,
            stderr_ended,
            timeout: settings.timeout,
            program: program.clone(),
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
        if self.stopped_at.is_none() && self.stop.as_ref().is_some_and(crate::base::stop::stopped) {
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
                    self.kill();
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
                self.kill();
                RmtError::Protocol(format!(
                    "the remote end answered \"{line}\", which is not an rmt reply \
                     (a login banner, or a shell that cannot run '{}'?){}",
                    self.program,
                    self.quoted_stderr()
                ))
            }
            ReplyError::TooMuch { .. } => {
                self.kill();
                RmtError::Protocol(format!("protocol error: {e}"))
            }
            ReplyError::Unsolicited(start) => {
                self.kill();
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
                self.kill();
                return Err(RmtError::Desync(format!(
                    "the server sent {bytes} more bytes after the reply to C, starting \"{start}\" \
                     (a reply to a request never sent, or one request answered twice), so its \
                     replies were out of step with the requests"
                )));
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                return Err(RmtError::TimedOut(self.timeout.as_secs()));
            }
        }
        match self.exit_status(self.timeout) {
            Some(status) if status.success() => Ok(()),
            Some(_) => Err(self.ended("the remote shell failed after the session")),
            None => {
                self.kill();
                Err(RmtError::TimedOut(self.timeout.as_secs()))
            }
        }
    }

    /// The error for a session that ended under us, with the child's exit
    /// status and the last words on its standard error.
    pub fn ended(&mut self, what: &str) -> RmtError {
        self.stdin = None;
        let status = match self.exit_status(Duration::from_secs(5)) {
            Some(s) => describe_status(&self.program, s),
            None => format!("{} is still running", self.program),
        };
        // Its last words may still be in the pipe when its exit is seen.
        // A grandchild could hold the pipe open, hence the limit.
        if self.status.is_some() {
            let _ = self.stderr_ended.recv_timeout(Duration::from_secs(1));
        }
        RmtError::Ended(format!("{what}; {status}{}", self.quoted_stderr()))
    }

    fn exit_status(&mut self, wait: Duration) -> Option<ExitStatus> {
        if self.status.is_none() {
            if let Ok(Ok(status)) = self.exited.recv_timeout(wait) {
                self.status = Some(status);
            }
        }
        self.status
    }

    fn quoted_stderr(&self) -> String {
        let tail = self.stderr.lock().map(|t| t.clone()).unwrap_or_default();
        let lines: Vec<String> = tail
            .split(|&b| b == b'\n')
            .map(|l| printable(l.trim_ascii()))
            .filter(|l| !l.is_empty())
            .collect();
        match lines.len() {
            0 => String::new(),
            n => format!(": \"{}\"", lines[n.saturating_sub(3)..].join(" / ")),
        }
    }

    fn kill(&mut self) {
        if self.status.is_none() && self.exited.is_empty() {
            // The child leads its own process group; the waiter thread
            // still holds it, so the pid cannot have been reused yet.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(self.pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
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
                        self.kill();
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
        if self.exit_status(Duration::from_millis(100)).is_none() && self.exited.is_empty() {
            // The waiter thread still holds the child, so the group's id
            // cannot have been reused.
            end_groups(&[self.pid]);
            forget_group(self.pid);
        }
    }
}

/// What the server sent after its last reply: nothing, from a server in
/// step with its client.
struct Trailing {
    bytes: u64,
    /// The start of it, printable.
    start: String,
}

impl Trailing {
    /// Reads to the end of the server's output.
    fn read(input: &mut impl Read) -> Trailing {
        let mut first = Vec::new();
        let mut bytes = 0u64;
        let mut buf = [0u8; 4096];
        loop {
            match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if first.len() < 80 {
                        let room = 80 - first.len();
                        first.extend_from_slice(&buf[..n.min(room)]);
                    }
                    bytes += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        Trailing {
            bytes,
            start: printable(first_line(&first)),
        }
    }
}

/// The bytes up to the first newline (at most 80).
fn first_line(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    &bytes[..end.min(80)]
}

/// "ssh exited with status 255", or "was killed by signal 9".
fn describe_status(program: &str, status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("{program} exited with status {code}"),
        (None, Some(sig)) => format!("{program} was killed by signal {sig}"),
        _ => format!("{program} ended"),
    }
}

/// Keeps the last `STDERR_TAIL_BYTES` of `pipe` in `tail`.
fn keep_tail(mut pipe: impl Read, tail: &Mutex<Vec<u8>>) {
    let mut buf = [0u8; 1024];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if let Ok(mut t) = tail.lock() {
                    t.extend_from_slice(&buf[..n]);
                    let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
                    t.drain(..excess);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}
