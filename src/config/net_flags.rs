//! The network flags, checked against each other and the endpoints:
//! `--allow`, `--raw`, `--timeout`, `--connect-timeout`,
//! `--resume-timeout`, `--tcp-buffer`,
//! whether the stream is private (`key_flags`) or in clear text,
//! and mbuffer's `-4` and `-6`, which apply to -I and -O only and, as in
//! mbuffer, change nothing without them.

use crate::base::errors::{needs, ConfigError};
use crate::base::size::{parse_size, Bytes};
use crate::cli::Cli;
use crate::net::{AllowRule, NetSettings};
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;

/// Checks the network options against each other and the endpoints.
pub fn check_net(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    remote: bool,
) -> Result<NetSettings, ConfigError> {
    let listening = matches!(input, InputSpec::Listen(_));
    let connecting = outputs.iter().any(|o| matches!(o, OutputSpec::Connect(_)));
    needs(
        "--allow",
        cli.allow.is_empty() || listening,
        "to -I/--listen",
    )?;
    needs("--raw", !cli.raw || connecting || listening, "to -I and -O")?;
    let network = listening || connecting;
    // A producer (`--`) or consumer (`--to`) gets --timeout seconds to exit
    // once its stream has ended.
    let commands = matches!(input, InputSpec::Command(_))
        || outputs.iter().any(|o| matches!(o, OutputSpec::Command(_)));
    needs_timeout(cli.timeout, network || remote || commands)?;
    needs(
        "--connect-timeout",
        cli.connect_timeout.is_none() || network,
        "to -I and -O",
    )?;
    needs(
        "--tcp-buffer",
        cli.tcp_buffer.is_none() || network,
        "to -I and -O",
    )?;
    needs(
        "--resume-timeout",
        cli.resume_timeout.is_none() || network,
        "to -I and -O",
    )?;
    if cli.raw && cli.resume_timeout.is_some() {
        return Err(ConfigError::new(
            "--resume-timeout",
            "a raw stream (--raw) has no frames to resume from; drop one of them",
        ));
    }
    let resume = secs("--resume-timeout", cli.resume_timeout)?;
    let stall = secs("--timeout", cli.timeout)?;
    let connect = secs("--connect-timeout", cli.connect_timeout)?.or(stall);
    let buffer_bytes = match &cli.tcp_buffer {
        None => None,
        Some(text) => {
            let b =
                parse_size(text).map_err(|e| ConfigError::new("--tcp-buffer", e.to_string()))?;
            if !(4096..=1 << 30).contains(&b) {
                return Err(ConfigError::new(
                    "--tcp-buffer",
                    format!("{} is outside 4 KiB to 1 GiB", Bytes(b)),
                ));
            }
            Some(b as usize)
        }
    };
    let allow = cli
        .allow
        .iter()
        .map(|text| AllowRule::parse(text).map_err(|why| ConfigError::new("--allow", why)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(NetSettings {
        stall,
        connect,
        resume,
        buffer_bytes,
        raw: cli.raw,
        sender_block_limit_bytes: None,
        allow,
        family: super::mbuffer_flags::family(cli),
        tls: super::key_flags::check_keys(cli, input, outputs, &crate::keys::KeyHome::locate)?,
    })
}

/// The network settings of a restore with no `-I` (`tapebuf verify`):
/// only `--timeout`, for a remote input.
pub fn restore_net(timeout: Option<u64>, remote: bool) -> Result<NetSettings, ConfigError> {
    needs_timeout(timeout, remote)?;
    Ok(NetSettings {
        stall: secs("--timeout", timeout)?,
        connect: secs("--timeout", timeout)?,
        ..NetSettings::default()
    })
}

/// `--timeout` applies only to a network or remote endpoint (`used`).
fn needs_timeout(timeout: Option<u64>, used: bool) -> Result<(), ConfigError> {
    needs(
        "--timeout",
        timeout.is_none() || used,
        "to -I, -O, remote tapes (HOST:PATH), -- CMD and --to CMD",
    )
}

/// Seconds, at least one.
fn secs(flag: &str, value: Option<u64>) -> Result<Option<std::time::Duration>, ConfigError> {
    match value {
        Some(0) => Err(ConfigError::new(flag, "must be at least 1 second")),
        v => Ok(v.map(std::time::Duration::from_secs)),
    }
}
