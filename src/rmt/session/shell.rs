//! The remote shell behind an rmt session, as a process: `RSH HOST [-l
//! USER] RMT_COMMAND` started as the leader of its own process group, a
//! thread keeping the tail of its standard error so that a failure can
//! quote what ssh or the server said, and a thread waiting for its exit so
//! that every wait for it is bounded.
//!
//! The waiter thread holds the child until it has exited, so the group's
//! id cannot be reused while the shell may still be signalled: `kill` and
//! `end` only signal a group whose exit has not been seen. Every group is
//! remembered in `groups` from its start until it is known to be empty.

use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver};

use super::error::RmtError;
use crate::base::child_groups::{end_groups, forget_group, group_alive, remember_group};
use crate::rmt::name::RemoteName;
use crate::rmt::protocol::printable;

/// How much of the child's standard error is kept for messages.
const STDERR_TAIL_BYTES: usize = 4096;

/// A running remote shell, its exit status once seen, and the tail of its
/// standard error.
pub(super) struct Shell {
    pid: i32,
    program: String,
    exited: Receiver<io::Result<ExitStatus>>,
    status: Option<ExitStatus>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Disconnects when the child's standard error has ended.
    stderr_ended: Receiver<()>,
}

impl Shell {
    /// Starts `RSH HOST [-l USER] RMT_COMMAND` (`rsh` holding the remote
    /// shell and its own arguments) with piped standard streams; returns
    /// it with its standard input and output.
    pub(super) fn start(
        remote: &RemoteName,
        rsh: &[String],
        rmt_command: &str,
    ) -> Result<(Shell, ChildStdin, ChildStdout), RmtError> {
        let (program, args) = rsh
            .split_first()
            .expect("the remote shell command is never empty");
        let mut command = Command::new(program);
        command.args(args).arg(&remote.host);
        if let Some(user) = &remote.user {
            command.arg("-l").arg(user);
        }
        command
            .arg(rmt_command)
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

        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let (stderr_open, stderr_ended) = bounded::<()>(0);
        crate::base::thread::spawn("rmt-stderr", move || {
            keep_tail(stderr_pipe, &tail);
            drop(stderr_open);
        })
        .expect("spawning the rmt stderr thread");

        let (exit_tx, exited) = bounded(1);
        crate::base::thread::spawn("rmt-child", move || {
            let status = child.wait();
            if !group_alive(pid) {
                forget_group(pid);
            }
            let _ = exit_tx.send(status);
        })
        .expect("spawning the rmt child waiter");

        let shell = Shell {
            pid,
            program: program.clone(),
            exited,
            status: None,
            stderr,
            stderr_ended,
        };
        Ok((shell, stdin, stdout))
    }

    /// The remote shell's program, for messages.
    pub(super) fn program(&self) -> &str {
        &self.program
    }

    /// The exit status, waiting up to `wait` for it.
    pub(super) fn exit_status(&mut self, wait: Duration) -> Option<ExitStatus> {
        if self.status.is_none() {
            if let Ok(Ok(status)) = self.exited.recv_timeout(wait) {
                self.status = Some(status);
            }
        }
        self.status
    }

    /// How the shell ended, or that it still runs, and its last words on
    /// standard error: for the error of a session that ended under us.
    pub(super) fn last_words(&mut self) -> String {
        let status = match self.exit_status(Duration::from_secs(5)) {
            Some(s) => describe_status(&self.program, s),
            None => format!("{} is still running", self.program),
        };
        // Its last words may still be in the pipe when its exit is seen.
        // A grandchild could hold the pipe open, hence the limit.
        if self.status.is_some() {
            let _ = self.stderr_ended.recv_timeout(Duration::from_secs(1));
        }
        format!("{status}{}", self.quoted_stderr())
    }

    /// The last lines of standard error, as `: "..."`, or nothing.
    pub(super) fn quoted_stderr(&self) -> String {
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

    /// SIGKILL to the shell's group, unless it has exited.
    pub(super) fn kill(&mut self) {
        if self.status.is_none() && self.exited.is_empty() {
            // The child leads its own process group; the waiter thread
            // still holds it, so the pid cannot have been reused yet.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(self.pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }

    /// Ends the shell's group (SIGTERM, then SIGKILL) unless the shell
    /// exits within a short wait: for a session dropped without `finish`.
    pub(super) fn end(&mut self) {
        if self.exit_status(Duration::from_millis(100)).is_none() && self.exited.is_empty() {
            // The waiter thread still holds the child, so the group's id
            // cannot have been reused.
            end_groups(&[self.pid]);
            forget_group(self.pid);
        }
    }
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
