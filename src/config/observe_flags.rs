//! The observer flags, checked: `-v` (as mbuffer's levels made it; `-q`
//! is an endpoint setting, read through `Config::quiet`), `--progress`,
//! `--no-progress`, `--size`, `--status-interval`, `--log` (and mbuffer's
//! `-Q`), `--summary-json`, `--stats` and `--stats-interval`. Every error
//! names its flag, and an interval is always a positive, finite duration.

use std::time::Duration;

use crate::base::errors::ConfigError;
use crate::base::size::parse_size;
use crate::cli::Cli;
use crate::observe::settings::{
    ObserveSettings, ProgressMode, DEFAULT_STATS_INTERVAL, MIN_INTERVAL,
};

/// Checks the observer flags against each other and `-q`.
pub fn resolve(cli: &Cli) -> Result<ObserveSettings, ConfigError> {
    let progress = match (cli.observe.progress, cli.observe.no_progress, cli.quiet) {
        (true, _, true) => {
            return Err(ConfigError::new(
                "--progress",
                "does not combine with -q/--quiet, which prints nothing but errors",
            ))
        }
        (true, _, false) => ProgressMode::On,
        (false, true, _) | (false, false, true) => ProgressMode::Off,
        (false, false, false) => ProgressMode::Auto,
    };
    let total_bytes = match &cli.observe.size {
        None => None,
        Some(text) => {
            Some(parse_size(text).map_err(|e| ConfigError::new("--size", e.to_string()))?)
        }
    };
    let status_interval = cli
        .observe
        .status_interval
        .as_deref()
        .map(|t| parse_interval(t, "--status-interval"))
        .transpose()?;
    if cli.quiet && status_interval.is_some() && cli.observe.log.is_none() {
        return Err(ConfigError::new(
            "--status-interval",
            "prints to stderr, which -q/--quiet keeps for errors; add -l/--log FILE",
        ));
    }
    let stats_interval = cli
        .observe
        .stats_interval
        .as_deref()
        .map(|t| parse_interval(t, "--stats-interval"))
        .transpose()?;
    let stats = match (&cli.observe.stats, stats_interval) {
        (Some(path), interval) => Some((path.clone(), interval.unwrap_or(DEFAULT_STATS_INTERVAL))),
        (None, Some(_)) => {
            return Err(ConfigError::new(
                "--stats-interval",
                "only applies to --stats FILE",
            ))
        }
        (None, None) => None,
    };
    Ok(ObserveSettings {
        verbose: super::mbuffer_flags::verbosity(cli) == super::mbuffer_flags::Verbosity::Verbose,
        progress,
        total_bytes,
        status_interval,
        log: cli.observe.log.clone(),
        log_summary: !cli.mbuffer.quiet_log,
        summary_json: cli.observe.summary_json.clone(),
        stats,
    })
}

/// Seconds, with decimals, at least `MIN_INTERVAL`.
fn parse_interval(text: &str, flag: &str) -> Result<Duration, ConfigError> {
    let secs: f64 = text
        .trim()
        .trim_end_matches('s')
        .parse()
        .map_err(|_| ConfigError::new(flag, format!("'{text}' is not a number of seconds")))?;
    if !secs.is_finite() || secs < MIN_INTERVAL.as_secs_f64() {
        return Err(ConfigError::new(
            flag,
            format!(
                "must be at least {} seconds, not {text}",
                MIN_INTERVAL.as_secs_f64()
            ),
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn resolve_args(args: &[&str]) -> Result<ObserveSettings, ConfigError> {
        let mut all = vec!["tapebuf"];
        all.extend_from_slice(args);
        resolve(&Cli::try_parse_from(all).unwrap())
    }

    fn flag_of(args: &[&str]) -> String {
        resolve_args(args).unwrap_err().flag
    }

    #[test]
    fn progress_is_automatic_unless_forced_or_quiet() {
        assert_eq!(resolve_args(&[]).unwrap().progress, ProgressMode::Auto);
        assert_eq!(
            resolve_args(&["--progress"]).unwrap().progress,
            ProgressMode::On
        );
        assert_eq!(
            resolve_args(&["--no-progress"]).unwrap().progress,
            ProgressMode::Off
        );
        assert_eq!(resolve_args(&["-q"]).unwrap().progress, ProgressMode::Off);
        assert_eq!(flag_of(&["-q", "--progress"]), "--progress");
    }

    #[test]
    fn progress_and_no_progress_together_are_refused_by_the_parser() {
        assert!(Cli::try_parse_from(["tapebuf", "--progress", "--no-progress"]).is_err());
    }

    #[test]
    fn intervals_are_seconds_with_decimals_and_need_their_file() {
        let s = resolve_args(&["--stats", "x", "--stats-interval", "0.1"]).unwrap();
        assert_eq!(s.stats.unwrap().1, Duration::from_millis(100));
        let s = resolve_args(&["--stats", "x"]).unwrap();
        assert_eq!(s.stats.unwrap().1, DEFAULT_STATS_INTERVAL);
        assert_eq!(flag_of(&["--stats-interval", "1"]), "--stats-interval");
        assert_eq!(
            flag_of(&["--stats", "x", "--stats-interval", "0"]),
            "--stats-interval"
        );
        assert_eq!(flag_of(&["--status-interval", "soon"]), "--status-interval");
        assert_eq!(resolve_args(&["--log", "l"]).unwrap().log, Some("l".into()));
        assert_eq!(
            flag_of(&["-q", "--status-interval", "1"]),
            "--status-interval"
        );
        assert!(resolve_args(&["-q", "--status-interval", "1", "-l", "l"]).is_ok());
        assert_eq!(flag_of(&["--size", "lots"]), "--size");
    }
}
