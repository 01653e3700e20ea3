//! One tapebuf process of a fault case: started in a session of its own (so
//! no terminal can be asked for a volume), its standard input fed from a
//! thread (so the test never blocks on a pipe and can hold it open), and
//! its standard error collected line by line (so the test can wait for a
//! line). Dropping it kills the process, so a failing test leaves nothing
//! running.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::common::{tapebuf, wait};

/// How a process ended, and everything it said.
#[derive(Debug)]
pub struct Side {
    pub status: ExitStatus,
    pub stderr: String,
}

impl Side {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.signal()
    }

    /// Asserts the exit code and that stderr says `what`.
    pub fn fails_saying(&self, code: i32, what: &str) {
        assert_eq!(self.code(), Some(code), "{}", self.stderr);
        self.says(what);
    }

    pub fn says(&self, what: &str) {
        assert!(
            self.stderr.contains(what),
            "expected {what:?} in stderr: {}",
            self.stderr
        );
    }
}

/// A running tapebuf.
pub struct Peer {
    child: Child,
    /// Chunks for standard input; dropped to close it.
    stdin: Option<Sender<Vec<u8>>>,
    feeder: Option<JoinHandle<()>>,
    lines: Receiver<String>,
    reader: Option<JoinHandle<()>>,
    seen: String,
}

impl Peer {
    /// Starts tapebuf with `args`; with `piped_stdin` the test feeds and
    /// closes its standard input, else it reads /dev/null.
    pub fn spawn(args: &[String], piped_stdin: bool) -> Peer {
        let mut cmd = tapebuf();
        cmd.args(args)
            .stdin(if piped_stdin {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        // SAFETY: setsid(2) is async-signal-safe and touches no Rust state.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let mut child = cmd.spawn().expect("spawning tapebuf");
        let (stdin, feeder) = match child.stdin.take() {
            Some(mut pipe) => {
                let (tx, rx) = mpsc::channel::<Vec<u8>>();
                let feeder = std::thread::spawn(move || {
                    for chunk in rx {
                        if pipe.write_all(&chunk).is_err() {
                            return;
                        }
                    }
                });
                (Some(tx), Some(feeder))
            }
            None => (None, None),
        };
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Peer {
            child,
            stdin,
            feeder,
            lines,
            reader: Some(reader),
            seen: String::new(),
        }
    }

    /// Queues `bytes` for standard input; returns at once.
    pub fn feed(&self, bytes: &[u8]) {
        let stdin = self
            .stdin
            .as_ref()
            .expect("standard input is piped and open");
        let _ = stdin.send(bytes.to_vec());
    }

    /// Closes standard input once what was fed has been written.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    pub fn signal(&self, sig: Signal) {
        kill(Pid::from_raw(self.child.id() as i32), sig).expect("signalling tapebuf");
    }

    /// Waits until a line of stderr contains `needle`; returns that line.
    pub fn wait_line(&mut self, needle: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen += &line;
                    self.seen.push('\n');
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {needle:?} on stderr in {limit:?}: {}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("stderr ended without {needle:?}: {}", self.seen)
                }
            }
        }
    }

    /// Waits for the process to end, failing the test if it takes longer
    /// than `limit`; `exit` still gives its status and stderr after.
    pub fn wait_gone(&mut self, limit: Duration) {
        if wait::exited_within(&mut self.child, limit).is_none() {
            panic!(
                "tapebuf did not exit within {limit:?}: {}",
                self.rest_of_stderr()
            );
        }
    }

    /// Waits for the process to end, killing it and failing the test if
    /// that takes longer than `limit`; returns its status and whole stderr.
    pub fn exit(&mut self, limit: Duration) -> Side {
        let Some(status) = wait::exited_within(&mut self.child, limit) else {
            panic!(
                "tapebuf did not exit within {limit:?}: {}",
                self.rest_of_stderr()
            );
        };
        Side {
            status,
            stderr: self.rest_of_stderr(),
        }
    }

    /// Everything said on stderr so far and until it closes.
    fn rest_of_stderr(&mut self) -> String {
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        for line in self.lines.try_iter() {
            self.seen += &line;
            self.seen.push('\n');
        }
        self.seen.clone()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stdin.take();
        if let Some(f) = self.feeder.take() {
            let _ = f.join();
        }
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}
