//! The rmt client's settings from the command line and the environment:
//! which names are remote, the remote shell and the server command, the
//! server's flavour, the window and the reply timeout.
//!
//! Precedence is flag, then environment (`RSH`, `RMT`, as star and dump
//! read them), then the default. The remote shell is split into words on
//! white space, so `--rsh-command 'ssh -p 2222'` works as users expect.

use std::path::Path;

use crate::base::errors::ConfigError;
use crate::cli::{Cli, RemoteArgs};
use crate::rmt::name::RemoteName;
use crate::rmt::protocol::MAX_RECORD_BYTES;
use crate::rmt::session::{RmtSettings, DEFAULT_REPLY_TIMEOUT, DEFAULT_RMT_COMMAND, DEFAULT_RSH};
use crate::rmt::window::MAX_WINDOW;
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;

/// The remote name in an `-i` or `-o` value, unless `--force-local`.
pub fn remote_name(
    args: &RemoteArgs,
    flag: &str,
    value: &Path,
) -> Result<Option<RemoteName>, ConfigError> {
    if args.force_local {
        return Ok(None);
    }
    RemoteName::parse(value).map_err(|why| ConfigError::new(flag, why))
}

/// The rmt flags as typed: how HOST:PATH is reached, `--rmt-window` and
/// `--timeout`.
#[derive(Debug, Clone, Copy)]
pub struct RmtFlags<'a> {
    pub remote: &'a RemoteArgs,
    pub window: Option<u64>,
    pub timeout: Option<u64>,
}

impl<'a> RmtFlags<'a> {
    /// The rmt flags of the buffer's command line.
    pub fn of(cli: &'a Cli) -> RmtFlags<'a> {
        RmtFlags {
            remote: &cli.remote,
            window: cli.rmt_window,
            timeout: cli.timeout,
        }
    }
}

/// Reads the rmt flags and environment. `remote` says whether any input
/// or output is remote: the flags mean nothing otherwise, and are refused.
pub fn resolve(
    flags: RmtFlags,
    remote: bool,
    block_bytes: u64,
    env: impl Fn(&str) -> Option<String>,
) -> Result<RmtSettings, ConfigError> {
    let args = flags.remote;
    if !remote {
        let given = [
            ("--rsh-command", args.rsh_command.is_some()),
            ("--rmt-command", args.rmt_command.is_some()),
            ("--rmt-window", flags.window.is_some()),
            ("--rmt-flavor", args.rmt_flavor.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
            return Err(ConfigError::new(
                *flag,
                "no input or output is remote (HOST:PATH)",
            ));
        }
    }
    let (rsh, rmt_command) = commands(
        args.rsh_command.as_deref(),
        args.rmt_command.as_deref(),
        &env,
    )?;
    let window = match flags.window {
        Some(n) if n == 0 || n > MAX_WINDOW as u64 => {
            return Err(ConfigError::new(
                "--rmt-window",
                format!("must be 1 (lock-step) to {MAX_WINDOW}, not {n}"),
            ))
        }
        n => n.map(|n| n as usize),
    };
    if remote && block_bytes > MAX_RECORD_BYTES as u64 {
        return Err(ConfigError::new(
            "-s/--block-size",
            format!("a remote tape takes records of at most {MAX_RECORD_BYTES} bytes, not {block_bytes}"),
        ));
    }
    Ok(RmtSettings {
        rsh,
        rmt_command,
        flavor: args.rmt_flavor.unwrap_or_default(),
        timeout: flags
            .timeout
            .map(std::time::Duration::from_secs)
            .unwrap_or(DEFAULT_REPLY_TIMEOUT),
        window,
    })
}

/// The remote shell (split into words) and the server's command: by flag,
/// then the environment (`RSH`, `RMT`), then the defaults.
pub fn commands(
    rsh_flag: Option<&str>,
    rmt_flag: Option<&str>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<(Vec<String>, String), ConfigError> {
    let (rsh_text, rsh_from) = match (rsh_flag, env("RSH")) {
        (Some(flag), _) => (Some(flag.to_string()), "--rsh-command"),
        (None, Some(var)) => (Some(var), "RSH"),
        (None, None) => (None, ""),
    };
    let rsh: Vec<String> = match rsh_text {
        Some(text) => {
            let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            if words.is_empty() {
                return Err(ConfigError::new(rsh_from, "names no remote shell"));
            }
            words
        }
        None => DEFAULT_RSH.iter().map(|w| w.to_string()).collect(),
    };
    let rmt_command = match (rmt_flag, env("RMT")) {
        (Some(flag), _) => flag.to_string(),
        (None, Some(var)) if !var.trim().is_empty() => var,
        _ => DEFAULT_RMT_COMMAND.to_string(),
    };
    if rmt_command.trim().is_empty() {
        return Err(ConfigError::new("--rmt-command", "is empty"));
    }
    Ok((rsh, rmt_command))
}

/// Refuses a remote name the server would read cut in two (a BSD server's
/// 63-byte arguments), before any session starts.
pub fn check_remote_arguments(
    rmt: &RmtSettings,
    input: &InputSpec,
    outputs: &[OutputSpec],
) -> Result<(), ConfigError> {
    let inputs = match input {
        InputSpec::Remote(name) => Some(("-i/--input", name)),
        _ => None,
    };
    let outputs = outputs.iter().filter_map(|o| match o {
        OutputSpec::Remote(name) => Some(("-o/--output", name)),
        _ => None,
    });
    for (flag, name) in inputs.into_iter().chain(outputs) {
        rmt.flavor
            .check_name(name)
            .map_err(|why| ConfigError::new(flag, why))?;
    }
    Ok(())
}

/// Refuses what cannot be done to a remote output: rmt has no fsync, no
/// O_DIRECT, and volumes end only at the end of the medium.
pub fn check_remote_outputs(cli: &Cli, remote_out: bool) -> Result<(), ConfigError> {
    if !remote_out {
        return Ok(());
    }
    let refused = [
        (
            "-c/--sync",
            cli.sync,
            "rmt has no request to sync a remote file",
        ),
        (
            "--direct",
            cli.direct,
            "rmt cannot open a remote file with O_DIRECT",
        ),
        (
            "-D/--volume-size",
            cli.volume_size.is_some(),
            "a remote tape changes volumes at the end of the medium only",
        ),
    ];
    match refused.iter().find(|(_, given, _)| *given) {
        Some((flag, _, why)) => Err(ConfigError::new(
            *flag,
            format!("does not apply to a remote output (HOST:PATH): {why}"),
        )),
        None => Ok(()),
    }
}
