//! `tapebuf rmt`: an rmt server for GNU tar, star, dump and tapebuf
//! clients, confined to the paths its policy allows.
//!
//! A client runs `ssh host tapebuf rmt` (or tapebuf installed as
//! `/etc/rmt`) and sends requests on the server's standard input; replies
//! go to standard output. The pieces, each in its own file:
//!
//! - requests are read, and replies sent, by the protocol module the
//!   client shares (`rmt/protocol`), strictly and within its limits;
//!   `flags.rs` and `mtops.rs` say what O's flags and I's operation codes
//!   may be on this system;
//! - `policy.rs` decides which paths may be opened, using `glob.rs`
//!   patterns on paths canonicalised by `resolve.rs`, from `--allow` and
//!   the configuration file read by `conf.rs`;
//! - `session.rs` is the request loop ([`serve`]), which drives an
//!   [`Opener`] and its [`Target`]s: real files and devices
//!   (`target.rs`) or a `tape::Drive` such as the emulated one
//!   (`drive_target.rs`);
//! - `reply.rs` builds error replies from what went wrong here;
//!   `log.rs` records events to a file or syslog.
//!
//! Two departures from GNU rmt, both deliberate: the session goes on after
//! C (GNU exits; our clients start a new session per volume anyway, so
//! staying is harmless), and nothing is opened outside the policy. L takes
//! GNU's argument order, **whence first, then offset**; BSD, star and dump
//! clients send the offset first, and the two orders agree only on
//! `L0\n0\n`.
//!
//! Invariant: the process never writes to stderr once the session has
//! started (under a remote shell it is the client's terminal) and never
//! panics on client input; usage errors, before the session, are one line
//! on stderr and exit status 2.
//!
//! Signals: SIGUSR1, which `pkill -USR1 -x tapebuf` sends to every
//! tapebuf on the host, never ends a session; it is written to the audit
//! log (when there is one) and otherwise ignored, since stderr belongs to
//! the client. SIGINT, SIGTERM and SIGHUP (unless ignored, as under
//! `nohup`) are written to the audit log, and the server then dies of the
//! signal; closing the device is left to the kernel, which writes the
//! filemark after a write as on any close.
//!
//! In-process, for testing a client against the emulated tape drive:
//!
//! ```
//! use std::io::Cursor;
//! use tapebuf::rmt_server::{serve, DriveOpener, Log, Outcome, Policy};
//! use tapebuf::tape::emulated::{Cartridge, Emulated};
//!
//! let (drive, shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 30)]);
//! let mut opener = DriveOpener::new(Box::new(drive));
//! let mut input = Cursor::new(b"O/dev/nst0\n1 O_WRONLY\nW3\nabcC\n".to_vec());
//! let mut replies = Vec::new();
//! let outcome = serve(&mut input, &mut replies, &Policy::tape_devices(), &mut opener, &Log::none());
//! assert_eq!(outcome, Outcome::Finished);
//! assert_eq!(replies, b"A0\nA3\nA0\n");
//! assert_eq!(shelf.lock().unwrap().slots[0].first_file(), b"abc");
//! ```

pub mod beneath;
pub mod conf;
pub mod drive_target;
pub mod flags;
pub mod glob;
pub mod journal;
pub mod log;
pub mod mtops;
pub mod outcome;
pub mod policy;
pub mod reply;
pub mod resolve;
pub mod session;
pub mod signals;
pub mod target;

use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::os::fd::AsFd;
use std::path::PathBuf;

pub use crate::cli::rmt::RmtCli;
pub use crate::rmt::protocol::{MAX_NUMBER_BYTES, MAX_PATH_BYTES, MAX_RECORD_BYTES};
pub use conf::{ConfError, ConfFile, DEFAULT_CONFIG};
pub use drive_target::{DriveOpener, DriveTarget};
pub use flags::OpenFlags;
pub use log::{Level, Log};
pub use outcome::Outcome;
pub use policy::{Policy, Refusal, DEFAULT_PATTERNS};
pub use session::serve;
pub use target::{FileOpener, FileTarget, Opener, Target};

use crate::base::console::say;
use crate::base::exit::{Exit, FAILURE, USAGE};
use crate::cli::command::Command;

/// Standard input is read through a buffer this large, so pipelined W
/// requests arrive in few system calls.
pub const INPUT_BUFFER_BYTES: usize = 1 << 20;
/// Replies, R's data included, are gathered in a buffer this large and
/// flushed after each reply.
pub const OUTPUT_BUFFER_BYTES: usize = 1 << 20;

/// Why the server cannot start: a usage error, exit status 2.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    CommandLine(String),
    #[error("--allow {pattern}: {why}")]
    Pattern { pattern: String, why: String },
    #[error(transparent)]
    Conf(#[from] ConfError),
    #[error("--log {}: {}", .path.display(), reply::strerror(reply::errno_of(.source)))]
    Log { path: PathBuf, source: io::Error },
}

/// `tapebuf rmt`: the server, on standard input and output.
pub struct RmtServer;

impl Command for RmtServer {
    const NAME: &'static str = "rmt";
    type Args = RmtCli;

    fn usage_error(text: &str) -> String {
        format!("tapebuf rmt: command line: {text}")
    }

    fn run(cli: RmtCli) -> Exit {
        Exit::Code(run(&cli))
    }
}

/// Runs the server with a parsed command line; returns the exit status.
fn run(cli: &RmtCli) -> i32 {
    let (policy, log) = match setup(cli) {
        Ok(ready) => ready,
        Err(e) => {
            say(&format!("tapebuf rmt: {e}"));
            return USAGE;
        }
    };
    let (input, output) = match standard_streams() {
        Ok(streams) => streams,
        Err(e) => {
            say(&format!("tapebuf rmt: standard input or output: {e}"));
            return FAILURE;
        }
    };
    let mut input = BufReader::with_capacity(INPUT_BUFFER_BYTES, input);
    let mut output = BufWriter::with_capacity(OUTPUT_BUFFER_BYTES, output);
    std::thread::scope(|scope| {
        let signals = match signals::watch(scope, &log) {
            Ok(handle) => handle,
            Err(e) => {
                say(&format!("tapebuf rmt: cannot install signal handlers: {e}"));
                return FAILURE;
            }
        };
        let code = serve(&mut input, &mut output, &policy, &mut FileOpener, &log).exit_code();
        signals.close();
        code
    })
}

/// The policy and the log that the command line asks for. Patterns come
/// from `--allow` and the configuration file together; with none from
/// either, the default allows tape devices only.
pub fn setup(cli: &RmtCli) -> Result<(Policy, Log), SetupError> {
    register(cli).map_err(|e| SetupError::CommandLine(e.to_string()))?;
    let policy = policy_from(cli)?;
    let log = Log::open(cli.log.as_deref(), cli.syslog).map_err(|source| SetupError::Log {
        path: cli.log.clone().unwrap_or_default(),
        source,
    })?;
    Ok((policy, log))
}

/// Every path the server touches, in the one registry: the session on
/// standard input and output (one socket under inetd, which is no clash),
/// `--config` (a regular file) and `--log`, which must be neither the
/// session nor the configuration.
fn register(cli: &RmtCli) -> Result<(), crate::base::errors::ConfigError> {
    use crate::base::path_registry::{Need, Registry, Role};
    let mut registry = Registry::new();
    registry.fd("standard input (the session)", io::stdin(), Role::Read)?;
    registry.fd("standard output (the session)", io::stdout(), Role::Write)?;
    if let Some(path) = &cli.config {
        let what = format!("--config {}", path.display());
        registry.path(what, path, Role::Read, Need::Regular)?;
    }
    if let Some(path) = &cli.log {
        let what = format!("--log {}", path.display());
        registry.path(what, path, Role::Report, Need::Any)?;
    }
    Ok(())
}

/// The policy part of [`setup`].
pub fn policy_from(cli: &RmtCli) -> Result<Policy, SetupError> {
    for pattern in &cli.allow {
        glob::Pattern::new(pattern).map_err(|why| SetupError::Pattern {
            pattern: pattern.clone(),
            why,
        })?;
    }
    let conf = match &cli.config {
        Some(path) => conf::load(path, true)?,
        None => conf::load(DEFAULT_CONFIG.as_ref(), false)?,
    };
    let patterns: Vec<&String> = cli.allow.iter().chain(&conf.allow).collect();
    let policy = if patterns.is_empty() {
        Policy::tape_devices()
    } else {
        Policy::new(patterns).map_err(SetupError::CommandLine)?
    };
    Ok(policy.read_only(cli.read_only || conf.read_only))
}

/// Standard input and output as files of their own (duplicates), so that
/// reads and writes bypass std's line buffering.
fn standard_streams() -> io::Result<(File, File)> {
    let input = File::from(io::stdin().as_fd().try_clone_to_owned()?);
    let output = File::from(io::stdout().as_fd().try_clone_to_owned()?);
    Ok((input, output))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> RmtCli {
        <RmtCli as clap::Parser>::try_parse_from(
            std::iter::once("tapebuf rmt").chain(args.iter().copied()),
        )
        .unwrap()
    }

    #[test]
    fn without_patterns_the_policy_is_tape_devices_only() {
        let policy = policy_from(&cli(&["--config", "/dev/null"])).unwrap();
        assert!(policy.to_string().starts_with("tape devices only"));
        assert!(!policy.is_read_only());
    }

    #[test]
    fn allow_and_config_patterns_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("rmt.conf");
        std::fs::write(&conf, "allow /srv/conf/**\nread-only\n").unwrap();
        let conf = conf.to_str().unwrap();
        let policy = policy_from(&cli(&["--config", conf, "--allow", "/srv/flag/*"])).unwrap();
        assert!(policy.allows("/srv/conf/a/b".as_ref()));
        assert!(policy.allows("/srv/flag/x".as_ref()));
        assert!(!policy.allows("/dev/nst0".as_ref()));
        assert!(policy.is_read_only());
    }

    #[test]
    fn bad_patterns_and_missing_files_are_usage_errors() {
        let e = policy_from(&cli(&["--config", "/dev/null", "--allow", "srv/*"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--allow srv/*: a pattern must be an absolute path"
        );
        let e = policy_from(&cli(&["--config", "/nonexistent/rmt.conf"])).unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/rmt.conf: "), "{e}");
        let e = setup(&cli(&[
            "--config",
            "/dev/null",
            "--log",
            "/nonexistent/log",
        ]))
        .err()
        .unwrap();
        assert_eq!(
            e.to_string(),
            "--log /nonexistent/log: No such file or directory"
        );
    }
}
