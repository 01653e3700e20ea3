//! A command tapebuf runs beside the stream: the producer of `tapebuf --
//! CMD` (its standard output is the input) or the consumer of `--to CMD`
//! (its standard input is an output).
//!
//! The command leads its own process group, remembered in
//! [`child_groups`](super::child_groups) until it is reaped, so that every
//! way a run ends can end it with whatever it started (tar's gzip). Its
//! standard error is read by a thread: every line goes to the `-l` file,
//! and the last few are kept for the message that says it failed, so a
//! clean run stays silent under cron. Its exit status decides: 0, or a
//! status the user accepted (`--accept-status`), is success; anything
//! else, and every death by a signal, is a failure.
//!
//! Invariant: a child is never left running by a run that has ended,
//! short of SIGKILL to tapebuf itself (then the producer dies of SIGPIPE
//! at its next write, and the consumer reads an end of input).

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver};

use super::child_groups::{
    end_groups, forget_group, forward_signals_to, group_alive, remember_group,
};
use super::console::{log, message};
use crate::base::sync::lock;

/// How long a command may take to exit once its stream has ended (the
/// producer closed its output, or the consumer's input was closed),
/// without `--timeout`.
pub const EXIT_WAIT: Duration = Duration::from_secs(60);
/// How many of the last lines of a child's standard error a failure
/// message quotes, and how long each may be.
const LAST_LINES: usize = 3;
const LINE_CHARS: usize = 200;
/// How often a wait for the child's exit looks again.
const WAIT_STEP: Duration = Duration::from_millis(20);
/// How long the stderr reader may take to finish once the child is gone
/// (a grandchild may hold the pipe open).
const STDERR_GRACE: Duration = Duration::from_secs(1);

/// The command the user named, before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSpec {
    /// The program and its arguments (`-- CMD ARGS`), or `sh -c LINE`.
    pub argv: Vec<OsString>,
    /// How messages name it: the words as typed.
    pub display: String,
    /// Exit statuses besides 0 that count as success (`--accept-status`).
    pub accept: Vec<u8>,
}

impl ChildSpec {
    /// A program run with its arguments, without a shell; messages name it
    /// as a shell would take it back (`sh -c 'exit 2'`).
    pub fn program(argv: Vec<OsString>, accept: Vec<u8>) -> ChildSpec {
        let display = argv
            .iter()
            .map(|w| shell_word(&w.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ");
        ChildSpec {
            argv,
            display,
            accept,
        }
    }

    /// A command line run by `/bin/sh -c`.
    pub fn shell(line: &str, accept: Vec<u8>) -> ChildSpec {
        ChildSpec {
            argv: vec!["/bin/sh".into(), "-c".into(), line.into()],
            display: line.to_string(),
            accept,
        }
    }

    /// Starts it in its own process group with `stdin` and `stdout` as
    /// given and its standard error read by a thread; `who` prefixes the
    /// lines it writes to the `-l` file ("producer").
    pub fn spawn(&self, who: &'static str, stdin: Stdio, stdout: Stdio) -> io::Result<Running> {
        let (program, args) = self.argv.split_first().expect("a command has a program");
        let mut child = Command::new(program)
            .args(args)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let group = child.id() as i32;
        remember_group(group);
        forward_signals_to(group);
        let tail = Arc::new(Mutex::new(Tail::default()));
        let stderr = child
            .stderr
            .take()
            .map(|e| read_stderr(e, who, Arc::clone(&tail)));
        Ok(Running {
            child,
            group,
            tail,
            stderr,
            accept: self.accept.clone(),
        })
    }
}

/// The last lines a child wrote on its standard error, and how many.
#[derive(Default)]
struct Tail {
    lines: Vec<String>,
    count: u64,
}

/// Reads the child's standard error line by line until it closes.
fn read_stderr(stderr: ChildStderr, who: &'static str, tail: Arc<Mutex<Tail>>) -> JoinHandle<()> {
    crate::base::thread::spawn("child-stderr", move || {
        let mut reader = BufReader::new(stderr);
        let mut raw = Vec::new();
        while matches!(reader.read_until(b'\n', &mut raw), Ok(n) if n > 0) {
            let text = String::from_utf8_lossy(&raw);
            let line = text.trim_end_matches(['\n', '\r']);
            log(&message!("{who}: {line}"));
            let mut t = lock(&tail);
            t.count += 1;
            t.lines.push(line.chars().take(LINE_CHARS).collect());
            if t.lines.len() > LAST_LINES {
                t.lines.remove(0);
            }
            raw.clear();
        }
    })
    .expect("spawning the child's stderr reader")
}

/// A child that was started and not yet reaped.
pub struct Running {
    child: Child,
    group: i32,
    tail: Arc<Mutex<Tail>>,
    stderr: Option<JoinHandle<()>>,
    accept: Vec<u8>,
}

/// How a wait for a child's exit ended without its status.
pub enum NoExit {
    /// It was still running after the limit.
    StillRunning(Duration),
    /// The run was stopped meanwhile.
    Stopped,
}

impl Running {
    /// The child's standard input or output, when it was piped.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Waits for the child to exit, at most `limit`, and ends the wait
    /// when `stop` disconnects. On success the group is forgotten once it
    /// is empty; otherwise the child is left to [`Running::end`].
    pub fn wait(
        &mut self,
        limit: Duration,
        stop: Option<&Receiver<()>>,
    ) -> Result<ExitStatus, NoExit> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.finish_stderr();
                if !group_alive(self.group) {
                    forget_group(self.group);
                }
                return Ok(status);
            }
            if Instant::now() >= deadline {
                return Err(NoExit::StillRunning(limit));
            }
            match stop {
                Some(stop) => select! {
                    recv(stop) -> _ => return Err(NoExit::Stopped),
                    default(WAIT_STEP) => {}
                },
                None => std::thread::sleep(WAIT_STEP),
            }
        }
    }

    /// Waits at most `limit` for the child to exit once its stream has
    /// ended, and judges it: Ok with its exit status when that is success,
    /// else why not. A child still running after `limit` (`still_running`
    /// says so, given the seconds) or when the run stops is ended.
    pub fn settle(
        &mut self,
        limit: Duration,
        stop: Option<&Receiver<()>>,
        still_running: impl FnOnce(u64) -> String,
    ) -> Result<i32, String> {
        match self.wait(limit, stop) {
            Ok(status) => match self.failure(status) {
                None => Ok(status.code().unwrap_or(0)),
                Some(why) => Err(why),
            },
            Err(NoExit::StillRunning(waited)) => {
                self.end();
                Err(still_running(waited.as_secs()))
            }
            Err(NoExit::Stopped) => {
                self.end();
                Err("was ended as the run stopped".to_string())
            }
        }
    }

    /// Ends the child and its group now (SIGTERM, then SIGKILL), and
    /// reaps it.
    pub fn end(&mut self) {
        end_groups(&[self.group]);
        forget_group(self.group);
        let _ = self.child.wait();
        self.finish_stderr();
    }

    /// Sends `sig` to the child's group.
    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(self.group), sig);
    }

    /// Joins the stderr reader, waiting at most a moment for a pipe that a
    /// grandchild still holds.
    fn finish_stderr(&mut self) {
        let Some(handle) = self.stderr.take() else {
            return;
        };
        let deadline = Instant::now() + STDERR_GRACE;
        while !handle.is_finished() && Instant::now() < deadline {
            std::thread::sleep(WAIT_STEP);
        }
        if handle.is_finished() {
            let _ = handle.join();
        }
    }

    /// Why `status` is a failure, or None when it is success: 0, or a
    /// status `--accept-status` named.
    pub fn failure(&self, status: ExitStatus) -> Option<String> {
        match (status.code(), status.signal()) {
            (Some(0), _) => None,
            (Some(code), _) if self.accept.iter().any(|&a| i32::from(a) == code) => None,
            (Some(code), _) => Some(format!("exited with status {code}")),
            (None, Some(sig)) => Some(format!("was killed by {}", signal_text(sig))),
            (None, None) => Some(format!("ended with {status}")),
        }
    }

    /// The last lines of its standard error, joined for one message line
    /// (" | " between them), or None when it wrote nothing.
    pub fn last_words(&self) -> Option<String> {
        let t = lock(&self.tail);
        (!t.lines.is_empty()).then(|| t.lines.join(" | "))
    }

    /// How many lines it wrote on its standard error.
    pub fn stderr_lines(&self) -> u64 {
        lock(&self.tail).count
    }
}

/// `word` as a shell reads it back: as it is when it holds only plain
/// characters, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// "SIGKILL", or "signal 40" for one without a name.
fn signal_text(sig: i32) -> String {
    match nix::sys::signal::Signal::try_from(sig) {
        Ok(s) => s.as_str().to_string(),
        Err(_) => format!("signal {sig}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_a_command_as_a_shell_reads_it_back() {
        let argv = ["sh", "-c", "echo it's; exit 2", ""];
        let spec = ChildSpec::program(argv.iter().map(Into::into).collect(), vec![]);
        assert_eq!(spec.display, r#"sh -c 'echo it'\''s; exit 2' ''"#);
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("printf '%s|' {}", spec.display)])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "sh|-c|echo it's; exit 2||"
        );
    }
}
