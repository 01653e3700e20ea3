//! Helpers for running the real binary with real pipes. Standard input is
//! fed from a thread and standard output drained by another, so a test can
//! never deadlock itself on a full pipe.
//!
//! Each of the three test binaries (`buffer`, `remote`, `tape`) compiles
//! this module once and uses part of it; every helper here is used by at
//! least one of them, hence the `allow` below.

#![allow(dead_code)]

pub mod keys;
pub mod manual;
pub mod memory;
pub mod needs;
pub mod ports;
pub mod svg;
pub mod wait;

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

use sha2::{Digest, Sha256};

pub const BIN: &str = env!("CARGO_BIN_EXE_tapebuf");

/// The longest any child of a test may run, in seconds. A child still
/// running then is killed by SIGALRM, so a test that waits on it fails with
/// "signal: 14" instead of hanging the suite.
pub const CHILD_TIME_LIMIT_SECS: u32 = 300;

/// A command for a test's child. The child starts as if from a fresh shell,
/// whatever the suite inherited: every signal at its default disposition
/// (`nohup` ignores SIGHUP, a background job ignores SIGINT and SIGQUIT),
/// no signal blocked, and an alarm that ends it after
/// [`CHILD_TIME_LIMIT_SECS`] (an alarm survives `exec`).
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    // SAFETY: the closure runs between fork and exec and calls only
    // async-signal-safe functions (signal, sigemptyset, sigprocmask, alarm).
    unsafe { command.pre_exec(start_fresh) };
    command
}

fn start_fresh() -> std::io::Result<()> {
    // SAFETY: plain libc calls on a local signal set, in the child.
    unsafe {
        for signal in 1..32 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::alarm(CHILD_TIME_LIMIT_SECS);
    }
    Ok(())
}

/// tapebuf, with a tapebuf directory of its own that holds nothing, so
/// that no key, pin or allowed-keys file of the user running the tests
/// makes a run private that the test meant to fail, or the reverse. A
/// test of the default files sets `XDG_CONFIG_HOME` again.
pub fn tapebuf() -> Command {
    let mut c = command(BIN);
    c.env("XDG_CONFIG_HOME", no_config_home());
    c
}

/// An absolute directory that does not exist: the tests' tapebuf
/// directory is `NO_CONFIG/tapebuf`, and none of its files are there.
pub fn no_config_home() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-config-home")
}

/// Deterministic pseudo-random bytes, so failures reproduce.
pub fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

pub fn sha256(data: &[u8]) -> String {
    format!("{:x}", Sha256::digest(data))
}

pub fn sha256_file(path: &Path) -> String {
    sha256(&std::fs::read(path).expect("reading output file"))
}

/// How the feeder writes standard input.
#[derive(Clone, Copy)]
pub enum Feed {
    /// As fast as the pipe takes it.
    Fast,
    /// In small chunks with pauses: a slow, bursty producer like tar on a
    /// dense filesystem.
    Slow { chunk: usize, pause: Duration },
}

/// How the drainer reads standard output.
#[derive(Clone, Copy)]
pub enum Drain {
    Fast,
    Slow { chunk: usize, pause: Duration },
}

pub struct Outcome {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// Starts tapebuf with all three standard streams piped to the test.
pub fn spawn_piped(args: &[&str]) -> Child {
    tapebuf()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning tapebuf")
}

/// Reads the child's whole stderr, then reaps it.
pub fn finish(child: &mut Child) -> (ExitStatus, String) {
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap(), stderr)
}

/// Runs tapebuf with `args`, feeding `input` and collecting everything.
pub fn run_with(args: &[&str], input: Vec<u8>, feed: Feed, drain: Drain) -> Outcome {
    let mut child = spawn_piped(args);
    let feeder = feed_stdin(&mut child, input, feed);
    let drainer = drain_stdout(&mut child, drain);
    let (status, stderr) = finish(&mut child);
    let _ = feeder.join();
    let stdout = drainer.join().unwrap();
    Outcome {
        status,
        stdout,
        stderr,
    }
}

pub fn run(args: &[&str], input: Vec<u8>) -> Outcome {
    run_with(args, input, Feed::Fast, Drain::Fast)
}

pub fn feed_stdin(child: &mut Child, input: Vec<u8>, feed: Feed) -> JoinHandle<()> {
    let mut stdin = child.stdin.take().expect("piped stdin");
    std::thread::spawn(move || match feed {
        Feed::Fast => {
            let _ = stdin.write_all(&input);
        }
        Feed::Slow { chunk, pause } => {
            for piece in input.chunks(chunk) {
                if stdin.write_all(piece).is_err() {
                    return;
                }
                std::thread::sleep(pause);
            }
        }
    })
}

pub fn drain_stdout(child: &mut Child, drain: Drain) -> JoinHandle<Vec<u8>> {
    let mut stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        let mut out = Vec::new();
        match drain {
            Drain::Fast => {
                stdout.read_to_end(&mut out).unwrap();
            }
            Drain::Slow { chunk, pause } => {
                let mut buf = vec![0; chunk];
                loop {
                    let n = stdout.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    out.extend_from_slice(&buf[..n]);
                    std::thread::sleep(pause);
                }
            }
        }
        out
    })
}

/// The one summary line on stderr.
pub fn summary_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.starts_with("tapebuf: summary: "))
        .unwrap_or_else(|| panic!("no summary line in stderr: {stderr:?}"))
}

/// A number that follows `label` in the summary, e.g. "in " -> bytes read.
pub fn summary_number(stderr: &str, before: &str) -> u64 {
    let line = summary_line(stderr);
    let at = line
        .find(before)
        .unwrap_or_else(|| panic!("'{before}' not in {line:?}"));
    line[at + before.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after '{before}' in {line:?}"))
}

/// The count printed before `what` in the summary, e.g. "underruns".
pub fn summary_count(stderr: &str, what: &str) -> u64 {
    let line = summary_line(stderr);
    line.split([',', ';'])
        .map(str::trim)
        .find_map(|part| part.strip_suffix(what).and_then(|n| n.trim().parse().ok()))
        .unwrap_or_else(|| panic!("no count of {what} in {line:?}"))
}

/// Waits until the process catches `sig`, read from /proc: the handlers are
/// installed. A condition with a deadline, not a guess at timing.
pub fn wait_until_caught(pid: u32, sig: nix::sys::signal::Signal) {
    let bit = 1u64 << (sig as i32 - 1);
    wait::until(
        Duration::from_secs(10),
        &format!("{sig:?} caught by {pid}"),
        || {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
            let caught = status
                .lines()
                .find_map(|l| l.strip_prefix("SigCgt:"))
                .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
                .unwrap_or(0);
            (caught & bit != 0).then_some(())
        },
    );
}

/// Both rings, each insisted on: a case that runs on both takes one of
/// these, so a zero-copy case that fell back to the copying ring fails
/// instead of passing unseen.
pub const RINGS: [&str; 2] = ["--zero-copy=on", "--zero-copy=off"];

/// `args` after `ring` (one of `RINGS`).
pub fn on_ring<'a>(ring: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![ring];
    all.extend_from_slice(args);
    all
}
