//! mbuffer's spellings (`cli::mbuffer`, and `-v LEVEL`), translated once
//! into tapebuf's own options before anything else is checked, so that the
//! rest of `config` sees one spelling per idea. What has no tapebuf option
//! (`-4`/`-6`, `-Q`, `--pid`, the "MD5 hash:" line) is read where it is
//! used. An option tapebuf cannot honour is refused in one line:
//! `<option>: <why>; use <the tapebuf way>`.

use std::time::Duration;

use crate::base::errors::ConfigError;
use crate::cli::Cli;
use crate::hash::HashAlg;
use crate::net::Family;

/// The `-a` command when there is no `-A`: an autoloader that loads the
/// next cartridge by itself needs nothing run, only the eject before and
/// the wait for a ready drive after, which every change does.
pub const SELF_LOADING: &str = "true";

/// The verbosity `-q` and `-v LEVEL` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// `-q`, or mbuffer's levels 0 (none) and 1 (errors): errors only.
    Quiet,
    /// mbuffer's 2 and 3 (its default).
    Normal,
    /// mbuffer's 4 to 6 (information, debugging), or `-v` alone.
    Verbose,
}

/// The verbosity of a command line.
pub fn verbosity(cli: &Cli) -> Verbosity {
    match (cli.quiet, cli.verbose) {
        (true, _) | (_, Some(0..=1)) => Verbosity::Quiet,
        (false, Some(4..)) => Verbosity::Verbose,
        _ => Verbosity::Normal,
    }
}

/// `-4` or `-6`, if either.
pub fn family(cli: &Cli) -> Option<Family> {
    match (cli.mbuffer.ipv4, cli.mbuffer.ipv6) {
        (true, _) => Some(Family::V4),
        (_, true) => Some(Family::V6),
        _ => None,
    }
}

/// The command line in tapebuf's own terms: `-H` is `--hash md5`, `-v 0`
/// is `-q`, `--tcptimeo` is `--timeout`, `-a` without `-A` is a change
/// command that only waits. Err for `-u` and for values tapebuf cannot
/// read.
pub fn translate(cli: &Cli) -> Result<Cli, ConfigError> {
    let m = &cli.mbuffer;
    if let Some(num) = &m.pause {
        return Err(ConfigError::new(
            "-u",
            format!(
                "tapebuf does not pause after each write (asked: {num}); use -R/--output-rate RATE to slow the writer"
            ),
        ));
    }
    let mut out = cli.clone();
    if m.md5 && !out.hash.contains(&HashAlg::Md5) {
        out.hash.push(HashAlg::Md5);
    }
    out.quiet = verbosity(cli) == Verbosity::Quiet;
    if let Some(text) = &m.autoloader_secs {
        text.trim().parse::<u64>().map_err(|_| {
            ConfigError::new(
                "-a",
                format!("'{text}' is not a number of seconds; use -A CMD to load the next volume"),
            )
        })?;
        out.change_command = out.change_command.or(Some(SELF_LOADING.to_string()));
    }
    if let Some(text) = &m.tcp_timeout {
        let secs = whole_seconds(parse_duration(text)?);
        let network = cli.listen.is_some() || !cli.connect.is_empty();
        if network && out.timeout.is_none() {
            out.timeout = Some(secs);
        }
    }
    Ok(out)
}

/// A refusal of `-m` said again for `-t`/`-T`, whose file-backed buffer
/// is what made so large a size work in mbuffer.
pub fn explain_memory(cli: &Cli, e: ConfigError) -> ConfigError {
    let file_buffer = cli.mbuffer.temp_file || cli.mbuffer.temp_file_path.is_some();
    if !file_buffer || e.flag != "-m/--memory" {
        return e;
    }
    let flag = if cli.mbuffer.temp_file_path.is_some() {
        "-T"
    } else {
        "-t"
    };
    ConfigError::new(
        flag,
        format!(
            "tapebuf keeps its buffer in memory, never in a file, and -m/--memory: {}; use a -m that fits in memory",
            e.why
        ),
    )
}

/// `--tcptimeo`: a number with a unit (us, ms, s, sec, m, min, h).
fn parse_duration(text: &str) -> Result<Duration, ConfigError> {
    const FLAG: &str = "--tcptimeo";
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| {
        ConfigError::new(FLAG, format!("'{text}' is not a time; use --timeout SECS"))
    })?;
    let unit_secs = match unit.trim() {
        "" => {
            return Err(ConfigError::new(
                FLAG,
                format!(
                    "'{text}' has no unit, and mbuffer's own pages read it as microseconds or as milliseconds; use --timeout SECS"
                ),
            ))
        }
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(ConfigError::new(
                FLAG,
                format!("'{other}' is not a unit of time (us, ms, s, m, h); use --timeout SECS"),
            ))
        }
    };
    Ok(Duration::from_secs_f64(value * unit_secs))
}

/// Rounded up to whole seconds, at least one: tapebuf's `--timeout` unit.
fn whole_seconds(d: Duration) -> u64 {
    d.as_secs_f64().ceil().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn cli(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("tapebuf").chain(args.iter().copied())).unwrap()
    }

    fn translated(args: &[&str]) -> Cli {
        translate(&cli(args)).unwrap()
    }

    #[test]
    fn md5_is_hash_md5_once() {
        assert_eq!(translated(&["-H"]).hash, vec![HashAlg::Md5]);
        assert_eq!(
            translated(&["--md5", "--hash", "md5", "--hash", "sha256"]).hash,
            vec![HashAlg::Md5, HashAlg::Sha256]
        );
    }

    #[test]
    fn verbose_levels_map_to_quiet_normal_and_verbose() {
        for (args, want) in [
            (&["-v", "0"][..], Verbosity::Quiet),
            (&["-v", "1"], Verbosity::Quiet),
            (&["-v", "3"], Verbosity::Normal),
            (&["-v", "5"], Verbosity::Verbose),
            (&["-v"], Verbosity::Verbose),
            (&["-q", "-v", "6"], Verbosity::Quiet),
            (&["-v", "1", "-v", "4"], Verbosity::Verbose),
        ] {
            assert_eq!(verbosity(&cli(args)), want, "{args:?}");
        }
        assert!(translated(&["-v", "0"]).quiet);
        assert!(Cli::try_parse_from(["tapebuf", "-v", "7"]).is_err());
    }

    #[test]
    fn pause_after_writes_is_refused_naming_the_output_rate() {
        let e = translate(&cli(&["-u", "1000"])).unwrap_err();
        assert_eq!(e.flag, "-u");
        assert!(
            e.why
                .ends_with("use -R/--output-rate RATE to slow the writer"),
            "{}",
            e.why
        );
    }

    #[test]
    fn an_autoloader_time_without_a_command_waits_for_the_drive() {
        assert_eq!(
            translated(&["-a", "60"]).change_command.as_deref(),
            Some(SELF_LOADING)
        );
        assert_eq!(
            translated(&["-a", "60", "-A", "load"])
                .change_command
                .as_deref(),
            Some("load")
        );
        assert_eq!(translate(&cli(&["-a", "soon"])).unwrap_err().flag, "-a");
    }

    #[test]
    fn tcp_timeout_needs_a_unit_and_becomes_whole_seconds_for_network_runs() {
        let net = |t: &str| translated(&["-I", "9090", "--tcptimeo", t]).timeout;
        assert_eq!(net("10s"), Some(10));
        assert_eq!(net("1500ms"), Some(2));
        assert_eq!(net("2min"), Some(120));
        assert_eq!(net("5us"), Some(1));
        assert_eq!(translated(&["--tcptimeo", "10s"]).timeout, None);
        assert_eq!(
            translated(&["-I", "9090", "--timeout", "3", "--tcptimeo", "10s"]).timeout,
            Some(3)
        );
        for bad in ["10", "ten", "10 fortnights"] {
            let e = translate(&cli(&["-I", "9090", "--tcptimeo", bad])).unwrap_err();
            assert_eq!(e.flag, "--tcptimeo", "{bad}");
        }
    }

    #[test]
    fn the_last_of_ipv4_ipv6_and_either_wins() {
        assert_eq!(family(&cli(&["-4"])), Some(Family::V4));
        assert_eq!(family(&cli(&["-4", "-6"])), Some(Family::V6));
        assert_eq!(family(&cli(&["-6", "-0"])), None);
        assert_eq!(family(&cli(&[])), None);
    }

    #[test]
    fn a_memory_refusal_names_the_file_buffer_option_that_asked_for_it() {
        let e = ConfigError::new("-m/--memory", "800 GiB is more than this machine's 8 GiB");
        assert_eq!(explain_memory(&cli(&[]), e.clone()).flag, "-m/--memory");
        let t = explain_memory(&cli(&["-T", "/var/tmp/buf"]), e);
        assert_eq!(t.flag, "-T");
        assert!(t.why.contains("never in a file"), "{}", t.why);
    }
}
