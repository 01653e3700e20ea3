//! The network flags, checked against each other and the endpoints:
//! `--allow`, `--raw`, `--timeout`, `--connect-timeout`,
//! `--resume-timeout`, `--tcp-buffer`,
//! the keys of a private stream (`--key`, `--pin`, `--allow-key(s)`),
//! and mbuffer's `-4` and `-6`, which apply to -I and -O only and, as in
//! mbuffer, change nothing without them.

use crate::base::errors::ConfigError;
use crate::base::size::{parse_size, Bytes};
use crate::cli::key_args::KtlsArg;
use crate::cli::Cli;
use crate::keys::AllowList;
use crate::net::tls::{Ktls, TlsSettings};
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
        tls: check_keys(cli, listening, connecting)?,
    })
}

/// The files a private stream reads: `--key` and `--allow-keys`, each with
/// its flag, so that no output or report can be one of them.
pub fn key_files(cli: &Cli) -> Vec<(&'static str, std::path::PathBuf)> {
    [
        ("--key", &cli.keys.key),
        ("--allow-keys", &cli.keys.allow_keys),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.clone().map(|p| (flag, p)))
    .collect()
}

/// `--key`, `--pin`, `--allow-key` and `--allow-keys`, checked against
/// each other and the endpoints; the key and the allowed keys' file are
/// read once here, so that a bad one fails before anything starts.
fn check_keys(
    cli: &Cli,
    listening: bool,
    connecting: bool,
) -> Result<Option<TlsSettings>, ConfigError> {
    let keyed = cli.keys.key.is_some();
    needs("--key", !keyed || listening || connecting, "to -I and -O")?;
    needs(
        "--pin",
        cli.keys.pin.is_none() || (connecting && keyed),
        "to -O with --key",
    )?;
    let allowing = !cli.keys.allow_key.is_empty() || cli.keys.allow_keys.is_some();
    needs(
        "--allow-key",
        cli.keys.allow_key.is_empty() || (listening && keyed),
        "to -I with --key",
    )?;
    needs(
        "--allow-keys",
        cli.keys.allow_keys.is_none() || (listening && keyed),
        "to -I with --key",
    )?;
    needs(
        "--ktls",
        cli.keys.ktls == KtlsArg::Auto || keyed,
        "to -I and -O with --key",
    )?;
    let Some(key) = &cli.keys.key else {
        return Ok(None);
    };
    if cli.raw {
        return Err(ConfigError::new(
            "--key",
            "a raw stream (--raw) has no framing to make private; drop one of them",
        ));
    }
    if connecting && cli.keys.pin.is_none() {
        return Err(ConfigError::new(
            "--key",
            "-O needs the receiver's fingerprint too: --pin FINGERPRINT (tapebuf key show on the receiver)",
        ));
    }
    if listening && !allowing {
        return Err(ConfigError::new(
            "--key",
            "-I needs the senders it allows: --allow-key FINGERPRINT[=NAME] or --allow-keys FILE",
        ));
    }
    let pin = match &cli.keys.pin {
        Some(text) => Some(text.parse().map_err(|why| ConfigError::new("--pin", why))?),
        None => None,
    };
    let allow = (cli.keys.allow_key.iter())
        .map(|text| {
            AllowList::entry(text, "--allow-key")
                .map_err(|why| ConfigError::new("--allow-key", why))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let tls = TlsSettings {
        key: key.clone(),
        pin,
        allow,
        allow_file: cli.keys.allow_keys.clone(),
        ktls: match cli.keys.ktls {
            KtlsArg::Auto => Ktls::Auto,
            KtlsArg::On => Ktls::On,
            KtlsArg::Off => Ktls::Off,
        },
    };
    tls.key_pair()
        .map_err(|why| ConfigError::new("--key", why.trim_start_matches("--key: ").to_string()))?;
    if listening {
        tls.allowed()
            .map_err(|why| ConfigError::new("--allow-keys", why))?;
    }
    Ok(Some(tls))
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

/// Refuses `flag` unless `ok`: it applies only to `what`.
fn needs(flag: &str, ok: bool, what: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(flag, format!("only applies {what}")))
    }
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
