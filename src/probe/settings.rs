//! `tapebuf probe`'s validated configuration: every check on the command
//! line in one place, each error naming the flag (or the path) it is
//! about, and every default resolved.
//!
//! The target is classified here from what the path is: a directory (a
//! temporary file is made in it), a file that does not exist yet, an
//! existing file (refused if it holds data, unless `--force`), a character
//! or block device (a tape if it answers the tape ioctls when opened), or a
//! remote `[user@]host:path`. Whether a device may be overwritten (`--yes`
//! or a confirmation) is decided when the probe starts, since it may ask on
//! the terminal. The invariant: a `ProbeConfig` always describes a sweep
//! that can be run: at least one size, at least one run, and a stream of
//! at least four blocks of the largest size, so the quarter mark of the
//! differential method falls on a block boundary inside the stream.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::sweep::Plan;
use crate::base::block::DIRECT_ALIGN_BYTES;
use crate::base::errors::ConfigError;
use crate::base::size::parse_size;
use crate::cli::probe::ProbeCli;
use crate::rmt::name::RemoteName;
use crate::rmt::protocol::MAX_RECORD_BYTES;
use crate::rmt::session::{RmtSettings, DEFAULT_REPLY_TIMEOUT};

/// The default sizes: the powers of two from 16 KiB to 4 MiB.
pub const DEFAULT_SIZES: &str = "16k..4M";
/// The largest block size accepted (what one rmt record may hold).
pub const MAX_BLOCK_BYTES: u64 = MAX_RECORD_BYTES as u64;
/// The stream per run on a tape, remote target or device, where a few
/// seconds per run is too little to see the drive stream.
pub const DEFAULT_DEVICE_STREAM_BYTES: u64 = 256 << 20;
/// The stream per run on a file.
pub const DEFAULT_FILE_STREAM_BYTES: u64 = 64 << 20;
/// The most runs per size.
pub const MAX_RUNS: u32 = 1000;

/// What TARGET is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    /// A file that does not exist: the probe creates it, and removes it.
    NewFile(PathBuf),
    /// A directory: the probe makes a uniquely named file in it, and
    /// removes it.
    InDirectory(PathBuf),
    /// A regular file that exists (empty, or `--force`); left empty.
    ExistingFile(PathBuf),
    /// A character or block device: a tape drive, a disk, /dev/null.
    Device(PathBuf),
    Remote(RemoteName),
}

impl TargetSpec {
    /// True when the probe destroys what is on the target, so that it
    /// needs `--yes` or a confirmation.
    pub fn needs_confirmation(&self) -> bool {
        matches!(self, TargetSpec::Device(_) | TargetSpec::Remote(_))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeConfig {
    pub target: TargetSpec,
    /// TARGET as the user typed it.
    pub label: String,
    pub plan: Plan,
    pub direct: bool,
    pub json: bool,
    pub yes: bool,
    /// For a remote target.
    pub rmt: Option<RmtSettings>,
}

impl ProbeConfig {
    /// Checks the command line; `env` reads the environment (RSH, RMT).
    pub fn from_cli(
        cli: &ProbeCli,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ProbeConfig, ConfigError> {
        let label = cli.target.display().to_string();
        let target = classify(cli)?;
        let sizes = parse_sizes(cli.sizes.as_deref().unwrap_or(DEFAULT_SIZES))?;
        let largest = *sizes.last().expect("parse_sizes never returns none");
        if !(1..=MAX_RUNS).contains(&cli.runs) {
            return Err(ConfigError::new(
                "--runs",
                format!("must be 1 to {MAX_RUNS}, not {}", cli.runs),
            ));
        }
        let stream_bytes = match &cli.size {
            Some(text) => {
                parse_size(text).map_err(|e| ConfigError::new("--size", e.to_string()))?
            }
            None if matches!(target, TargetSpec::Device(_) | TargetSpec::Remote(_)) => {
                DEFAULT_DEVICE_STREAM_BYTES
            }
            None => DEFAULT_FILE_STREAM_BYTES,
        };
        if stream_bytes < 4 * largest {
            return Err(ConfigError::new(
                "--size",
                format!(
                    "{stream_bytes} bytes is less than four blocks of the largest size \
                     ({largest} bytes); give at least {} or smaller --sizes",
                    4 * largest
                ),
            ));
        }
        if cli.direct {
            check_direct(&target, &label, &sizes, stream_bytes)?;
        }
        let rmt = remote_settings(cli, &target, &label, &env)?;
        Ok(ProbeConfig {
            target,
            label,
            plan: Plan {
                sizes,
                runs: cli.runs,
                stream_bytes,
                data: cli.data.into(),
            },
            direct: cli.direct,
            json: cli.json,
            yes: cli.yes,
            rmt,
        })
    }
}

/// `--direct` works on a local file or block device, with aligned sizes.
fn check_direct(
    target: &TargetSpec,
    label: &str,
    sizes: &[u64],
    stream_bytes: u64,
) -> Result<(), ConfigError> {
    if matches!(target, TargetSpec::Remote(_)) {
        return Err(ConfigError::new(
            "--direct",
            "is for a local file or block device, not a remote target",
        ));
    }
    if let TargetSpec::Device(path) = target {
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device()) {
            return Err(ConfigError::new(
                "--direct",
                format!(
                    "is for a file or block device, and {label} is a character device (a tape?)"
                ),
            ));
        }
    }
    let align = DIRECT_ALIGN_BYTES;
    if let Some(bad) = sizes.iter().find(|&&s| s % align != 0) {
        return Err(ConfigError::new(
            "--direct",
            format!(
                "O_DIRECT needs block sizes that are multiples of {align} bytes, and {bad} is not"
            ),
        ));
    }
    if !stream_bytes.is_multiple_of(align) {
        return Err(ConfigError::new(
            "--size",
            format!("with --direct, must be a multiple of {align} bytes, not {stream_bytes}"),
        ));
    }
    Ok(())
}

/// The rmt settings for a remote target; for a local one, a refusal of
/// any rmt flag given.
fn remote_settings(
    cli: &ProbeCli,
    target: &TargetSpec,
    label: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<RmtSettings>, ConfigError> {
    if matches!(target, TargetSpec::Remote(_)) {
        let rmt = rmt_settings(cli, &env)?;
        if let TargetSpec::Remote(name) = &target {
            let fits = rmt.flavor.check_name(name);
            fits.map_err(|why| ConfigError::new("TARGET", why))?;
        }
        Ok(Some(rmt))
    } else {
        let given = [
            ("--rsh-command", cli.remote.rsh_command.is_some()),
            ("--rmt-command", cli.remote.rmt_command.is_some()),
            ("--rmt-flavor", cli.remote.rmt_flavor.is_some()),
            ("--timeout", cli.timeout.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
            return Err(ConfigError::new(
                *flag,
                format!("{label} is not remote (HOST:PATH)"),
            ));
        }
        Ok(None)
    }
}

/// What the path names; refuses a file with data unless `--force`.
fn classify(cli: &ProbeCli) -> Result<TargetSpec, ConfigError> {
    let path = &cli.target;
    let shown = path.display().to_string();
    if !cli.remote.force_local {
        match RemoteName::parse(path) {
            Ok(Some(name)) => return Ok(TargetSpec::Remote(name)),
            Ok(None) => {}
            Err(why) => return Err(ConfigError::new("TARGET", why)),
        }
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(TargetSpec::InDirectory(path.clone())),
        Ok(m) if m.is_file() => {
            if m.len() > 0 && !cli.force {
                return Err(ConfigError::new(
                    shown,
                    format!(
                        "holds {} bytes, which the probe would overwrite; give --force to \
                         go on (the file is left empty afterwards)",
                        m.len()
                    ),
                ));
            }
            Ok(TargetSpec::ExistingFile(path.clone()))
        }
        Ok(m) if m.file_type().is_char_device() || m.file_type().is_block_device() => {
            Ok(TargetSpec::Device(path.clone()))
        }
        Ok(_) => Err(ConfigError::new(
            shown,
            "is not a file, a directory, a tape drive or a block device",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if !parent.is_dir() {
                return Err(ConfigError::new(
                    shown,
                    format!("cannot be created: {} is not a directory", parent.display()),
                ));
            }
            Ok(TargetSpec::NewFile(path.clone()))
        }
        Err(e) => Err(ConfigError::new(shown, e.to_string())),
    }
}

/// `A..B` (powers of two from A to B) or `a,b,c`; ascending, no repeats.
pub fn parse_sizes(text: &str) -> Result<Vec<u64>, ConfigError> {
    let bad = |why: String| ConfigError::new("--sizes", why);
    let size = |t: &str| -> Result<u64, ConfigError> {
        let n = parse_size(t).map_err(|e| bad(e.to_string()))?;
        if n == 0 || n > MAX_BLOCK_BYTES {
            return Err(bad(format!(
                "'{}' is outside 1 byte to {MAX_BLOCK_BYTES} bytes",
                t.trim()
            )));
        }
        Ok(n)
    };
    let mut sizes = if let Some((a, b)) = text.split_once("..") {
        let (low, high) = (size(a)?, size(b)?);
        for (t, n) in [(a, low), (b, high)] {
            if !n.is_power_of_two() {
                return Err(bad(format!(
                    "'{}' is not a power of two; a range A..B runs over powers of two (or give a list, 64k,100k)",
                    t.trim()
                )));
            }
        }
        if low > high {
            return Err(bad(format!("'{text}' runs backwards")));
        }
        std::iter::successors(Some(low), |&n| Some(n * 2))
            .take_while(|&n| n <= high)
            .collect()
    } else {
        text.split(',').map(size).collect::<Result<Vec<u64>, _>>()?
    };
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// The remote shell and server, by flag, then environment, then default,
/// as for `-i`/`-o HOST:PATH` (see `rmt/settings.rs`).
fn rmt_settings(
    cli: &ProbeCli,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<RmtSettings, ConfigError> {
    let (rsh, rmt_command) = crate::config::rmt_flags::commands(
        cli.remote.rsh_command.as_deref(),
        cli.remote.rmt_command.as_deref(),
        env,
    )?;
    let timeout = match cli.timeout {
        Some(0) => return Err(ConfigError::new("--timeout", "must be at least 1 second")),
        Some(s) => std::time::Duration::from_secs(s),
        None => DEFAULT_REPLY_TIMEOUT,
    };
    Ok(RmtSettings {
        rsh,
        rmt_command,
        flavor: cli.remote.rmt_flavor.unwrap_or_default(),
        timeout,
        window: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn cli(args: &[&str]) -> ProbeCli {
        ProbeCli::try_parse_from(std::iter::once("tapebuf probe").chain(args.iter().copied()))
            .unwrap()
    }

    fn config(args: &[&str]) -> Result<ProbeConfig, ConfigError> {
        ProbeConfig::from_cli(&cli(args), |_| None)
    }

    #[test]
    fn a_range_means_the_powers_of_two_between_its_ends() {
        assert_eq!(
            parse_sizes("16k..128k").unwrap(),
            vec![16384, 32768, 65536, 131072]
        );
        assert_eq!(
            parse_sizes("1M,64k,256k,64k").unwrap(),
            vec![65536, 262144, 1 << 20]
        );
        assert_eq!(parse_sizes(DEFAULT_SIZES).unwrap().len(), 9);
    }

    #[test]
    fn bad_sizes_name_the_flag() {
        for bad in ["", "12q", "100k..1M", "1M..64k", "0", "128M", "64k,,1M"] {
            let e = parse_sizes(bad).unwrap_err();
            assert_eq!(e.flag, "--sizes", "{bad}: {e}");
        }
    }

    #[test]
    fn the_stream_must_hold_four_of_the_largest_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let e = config(&[d, "--sizes", "1M", "--size", "3M"]).unwrap_err();
        assert_eq!(e.flag, "--size");
        let ok = config(&[d, "--sizes", "1M", "--size", "4M"]).unwrap();
        assert_eq!(ok.plan.stream_bytes, 4 << 20);
        assert_eq!(ok.target, TargetSpec::InDirectory(dir.path().to_path_buf()));
        assert_eq!(
            config(&[d]).unwrap().plan.stream_bytes,
            DEFAULT_FILE_STREAM_BYTES
        );
        assert_eq!(config(&[d, "--runs", "0"]).unwrap_err().flag, "--runs");
    }

    #[test]
    fn a_file_with_data_needs_force_and_devices_need_confirmation() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data");
        std::fs::write(&file, b"precious").unwrap();
        let f = file.to_str().unwrap();
        let e = config(&[f]).unwrap_err();
        assert_eq!(e.flag, f);
        assert!(e.why.contains("--force"), "{e}");
        assert_eq!(
            config(&[f, "--force"]).unwrap().target,
            TargetSpec::ExistingFile(file.clone())
        );
        let null = config(&["/dev/null"]).unwrap();
        assert!(null.target.needs_confirmation());
        assert_eq!(null.plan.stream_bytes, DEFAULT_DEVICE_STREAM_BYTES);
    }

    #[test]
    fn rmt_flags_belong_to_remote_targets_only() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let e = config(&[d, "--rsh-command", "ssh"]).unwrap_err();
        assert_eq!(e.flag, "--rsh-command");
        let remote = config(&["vault:/dev/nst0", "--rsh-command", "ssh -p 2222"]).unwrap();
        assert_eq!(remote.rmt.unwrap().rsh, vec!["ssh", "-p", "2222"]);
        assert_eq!(
            config(&["vault:/dev/nst0", "--direct"]).unwrap_err().flag,
            "--direct"
        );
    }
}
