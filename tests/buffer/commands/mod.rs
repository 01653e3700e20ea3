//! The commands tapebuf runs beside the stream: the producer of `tapebuf
//! -- CMD` (`producer.rs`), the consumer of `--to CMD` (`consumer.rs`), and
//! the README's cron example, run exactly as printed (`cron.rs`).

mod consumer;
mod cron;
mod producer;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use crate::common::{self, wait};

/// A directory for one run, where tapebuf and its commands work.
pub struct Run {
    dir: tempfile::TempDir,
}

/// How a tapebuf run ended.
pub struct Ended {
    pub status: ExitStatus,
    pub stderr: String,
}

impl Run {
    pub fn new() -> Run {
        Run {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A file of `len` known bytes in the directory; its path.
    pub fn bytes(&self, len: usize) -> String {
        let path = self.path(&format!("data-{len}"));
        std::fs::write(&path, common::pattern(len, len as u64)).unwrap();
        path.display().to_string()
    }

    /// tapebuf `args -- argv`, in the directory, with `env` set.
    pub fn command<S: AsRef<OsStr>>(
        &self,
        args: &[&str],
        argv: &[S],
        env: &[(&str, &str)],
    ) -> Command {
        let mut command = common::tapebuf();
        command.current_dir(self.dir.path()).args(args);
        if !argv.is_empty() {
            command.arg("--").args(argv);
        }
        for (k, v) in env {
            command.env(k, v);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        command
    }

    /// Runs tapebuf `args -- argv` to its end.
    pub fn tapebuf<S: AsRef<OsStr>>(
        &self,
        args: &[&str],
        argv: &[S],
        env: &[(&str, &str)],
    ) -> Ended {
        let out = self.command(args, argv, env).output().unwrap();
        Ended {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The exit status of `tapebuf -q -i FILE -o /dev/null`: a restore that
/// reads the backup's trailer.
pub fn restore_status(run: &Run, file: &str) -> Option<i32> {
    run.tapebuf::<&str>(&["-q", "-i", file, "-o", "/dev/null"], &[], &[])
        .status
        .code()
}

/// The pid a command wrote into `path`.
pub fn pid_in(path: &Path) -> i32 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.trim().parse().unwrap()
}

/// Waits until process `pid` no longer runs (gone, or a zombie), and
/// fails the test naming `what` if it still runs 10 s on.
#[track_caller]
pub fn gone(pid: i32, what: &str) {
    let ended = wait::within(Duration::from_secs(10), || {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => Some(()),
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
                .then_some(()),
        }
    });
    assert!(ended.is_some(), "{what}: process {pid} outlived tapebuf");
}
