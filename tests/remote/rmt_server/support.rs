//! What the `tapebuf rmt` suites share: running the server on a scripted
//! standard input, what it replied and how it ended, and a scratch
//! directory with an `allowed` directory inside.

#![allow(dead_code)]

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};

use crate::common;

pub const RSH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rsh");

/// What the server replied and how it ended.
pub struct Served {
    pub status: ExitStatus,
    pub replies: Vec<u8>,
    pub stderr: String,
}

impl Served {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.replies).into_owned()
    }

    /// Asserts a clean exit with `code`: no signal, no panic.
    pub fn exited(&self, code: i32) -> &Served {
        assert_eq!(self.status.signal(), None, "killed by a signal");
        assert_eq!(
            self.status.code(),
            Some(code),
            "replies {:?}, stderr {:?}",
            self.text(),
            self.stderr
        );
        self
    }
}

/// Runs `tapebuf rmt ARGS` with `input` on stdin (fed from a thread).
pub fn serve(args: &[&str], input: impl Into<Vec<u8>>) -> Served {
    let mut all = vec!["rmt"];
    all.extend_from_slice(args);
    let out = common::run(&all, input.into());
    Served {
        status: out.status,
        replies: out.stdout,
        stderr: out.stderr,
    }
}

/// Runs the server as `command` starts it, with `input` on stdin.
pub fn serve_command(mut command: Command, input: impl Into<Vec<u8>>) -> Served {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = common::feed_stdin(&mut child, input.into(), common::Feed::Fast);
    let drainer = common::drain_stdout(&mut child, common::Drain::Fast);
    let (status, stderr) = common::finish(&mut child);
    feeder.join().unwrap();
    Served {
        status,
        replies: drainer.join().unwrap(),
        stderr,
    }
}

/// A scratch directory, canonical, with an `allowed` directory inside.
pub struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("allowed")).unwrap();
        Scratch { _dir: dir, root }
    }

    pub fn path(&self, rest: &str) -> PathBuf {
        self.root.join(rest)
    }

    pub fn s(&self, rest: &str) -> String {
        self.path(rest).display().to_string()
    }

    /// `--allow ROOT/allowed/**`, with no system configuration file.
    pub fn allow_args(&self) -> Vec<String> {
        vec![
            "--config".into(),
            "/dev/null".into(),
            "--allow".into(),
            format!("{}/allowed/**", self.root.display()),
        ]
    }

    pub fn serve(&self, extra: &[&str], input: impl Into<Vec<u8>>) -> Served {
        let owned = self.allow_args();
        let mut args: Vec<&str> = owned.iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        serve(&args, input)
    }
}

pub const E9: &str = "E9\nBad file descriptor: no device is open\n";
