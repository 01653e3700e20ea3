//! The volume flags, checked against each other and the endpoints: `-D`,
//! `-n`, `-A` and `--change-timeout`, and numbered names.

use crate::base::errors::ConfigError;
use crate::base::size::{parse_size, Bytes};
use crate::cli::Cli;
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;
use crate::volume::{ChangePolicy, VolumeNames};

/// The volume settings, checked.
pub struct Volumes {
    pub change: ChangePolicy,
    pub volume_size: Option<u64>,
}

/// Checks the volume options against each other and the endpoints.
pub fn check_volumes(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    block_bytes: u64,
) -> Result<Volumes, ConfigError> {
    let mut numbered = false;
    for spec in outputs {
        if let OutputSpec::File(p) = spec {
            let names = VolumeNames::parse(p).map_err(|why| {
                ConfigError::new("-o/--output", format!("{}: {why}", p.display()))
            })?;
            numbered |= names.is_numbered();
        }
    }
    check_input_name(input)?;
    let volume_size = match &cli.volume_size {
        None => None,
        Some(text) => {
            let size = parse_size(text)
                .map_err(|e| ConfigError::new("-D/--volume-size", e.to_string()))?;
            if size < block_bytes {
                return Err(ConfigError::new(
                    "-D/--volume-size",
                    format!(
                        "{} is smaller than one block ({}); a tape volume holds whole records",
                        Bytes(size),
                        Bytes(block_bytes)
                    ),
                ));
            }
            if !outputs.iter().any(|o| matches!(o, OutputSpec::File(_))) {
                return Err(ConfigError::new(
                    "-D/--volume-size",
                    "needs a file or tape output (-o); standard output and -O are one stream",
                ));
            }
            Some(size)
        }
    };
    if cli.direct && (numbered || volume_size.is_some()) {
        return Err(ConfigError::new(
            "--direct",
            "does not combine with volumes (-D/--volume-size or a numbered -o name)",
        ));
    }
    check_input_volumes(cli.volumes, input)?;
    Ok(Volumes {
        change: change_policy(cli.change_command.as_deref(), cli.change_timeout)?,
        volume_size,
    })
}

/// A numbered `-i` name that can be read (one `%d`, and nothing else).
pub fn check_input_name(input: &InputSpec) -> Result<(), ConfigError> {
    if let InputSpec::File(p) = input {
        VolumeNames::parse(p)
            .map_err(|why| ConfigError::new("-i/--input", format!("{}: {why}", p.display())))?;
    }
    Ok(())
}

/// `-A` and `--change-timeout`: how a volume is changed.
pub fn change_policy(
    command: Option<&str>,
    timeout: Option<u64>,
) -> Result<ChangePolicy, ConfigError> {
    let command = match command {
        Some(c) if c.trim().is_empty() => {
            return Err(ConfigError::new("-A/--change-command", "is empty"))
        }
        c => c.map(str::to_string),
    };
    let timeout = match timeout {
        Some(0) => {
            return Err(ConfigError::new(
                "--change-timeout",
                "must be at least 1 second",
            ))
        }
        secs => secs.map(std::time::Duration::from_secs),
    };
    Ok(ChangePolicy {
        command,
        timeout,
        loader: None,
    })
}

/// `-n N`: at least one volume, read from files or a tape.
fn check_input_volumes(volumes: Option<u32>, input: &InputSpec) -> Result<(), ConfigError> {
    match volumes {
        Some(0) => Err(ConfigError::new(
            "-n/--volumes",
            "0 (mbuffer's 'ask for every volume') has no end tapebuf could tell; use -n N, or no -n for a backup tapebuf wrote, whose trailers say how many volumes follow",
        )),
        Some(_) if !matches!(input, InputSpec::File(_) | InputSpec::Remote(_)) => Err(
            ConfigError::new(
                "-n/--volumes",
                "needs -i with a tape drive or files to read volumes from",
            ),
        ),
        _ => Ok(()),
    }
}
