//! `--manifest FILE` and `--verify`: which way the manifest goes, checked
//! against the endpoints.
//!
//! With an output other than standard output, the run records its output
//! and writes the manifest at the end; then there must be exactly one
//! output, since a manifest describes one backup. With standard output as
//! the only output and a tape or file as the input, the run is a restore
//! and checks each volume read against the manifest. `--verify` reads
//! every output back, so standard output cannot be one of them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::base::config_error::ConfigError;
use crate::cli::Cli;
use crate::hash::HashAlg;
use crate::manifest::{Manifest, Recording};
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;

/// What `--manifest` and `--verify` ask of the run.
#[derive(Debug, Clone, Default)]
pub enum ManifestPlan {
    #[default]
    None,
    /// Record the output (`--verify`, and the manifest to write, if any).
    Record {
        path: Option<PathBuf>,
        recording: Recording,
    },
    /// Check the input against this manifest, read from `path`.
    Check {
        path: PathBuf,
        manifest: Arc<Manifest>,
    },
}

impl ManifestPlan {
    /// What the outputs record, if anything.
    pub fn recording(&self) -> Option<Recording> {
        match self {
            ManifestPlan::Record { recording, .. } => Some(*recording),
            _ => None,
        }
    }

    /// The manifest the input is checked against, if any.
    pub fn checked(&self) -> Option<&Arc<Manifest>> {
        match self {
            ManifestPlan::Check { manifest, .. } => Some(manifest),
            _ => None,
        }
    }

    /// Where the manifest of this run is written, if anywhere.
    pub fn written(&self) -> Option<&PathBuf> {
        match self {
            ManifestPlan::Record { path, .. } => path.as_ref(),
            _ => None,
        }
    }
}

/// Resolves `--manifest` and `--verify` against the endpoints.
pub fn resolve(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    hashes: &[HashAlg],
) -> Result<ManifestPlan, ConfigError> {
    let to_stdout = matches!(outputs, [OutputSpec::Stdout]);
    if cli.verify && outputs.iter().any(|o| matches!(o, OutputSpec::Stdout)) {
        return Err(ConfigError::new(
            "--verify",
            "reads the output back, and standard output cannot be read back; name the output with -o",
        ));
    }
    if let Some(OutputSpec::Connect(peer)) = outputs
        .iter()
        .find(|o| matches!(o, OutputSpec::Connect(_)))
        .filter(|_| cli.verify || cli.manifest.is_some())
    {
        let flag = if cli.verify { "--verify" } else { "--manifest" };
        return Err(ConfigError::new(
            flag,
            format!("-O {peer}: a TCP receiver's volumes cannot be recorded or read back from here; record them where they are written"),
        ));
    }
    let records = cli.verify || (cli.manifest.is_some() && !to_stdout);
    if records && cli.append {
        return Err(ConfigError::new(
            "--append",
            "cannot go with --manifest or --verify, which describe and read back whole volumes",
        ));
    }
    let recording = Recording {
        alg: hashes.first().copied().unwrap_or(HashAlg::Xxh3),
        verify: cli.verify,
        quiet: cli.quiet,
    };
    let Some(path) = cli.manifest.clone() else {
        return Ok(match cli.verify {
            true => ManifestPlan::Record {
                path: None,
                recording,
            },
            false => ManifestPlan::None,
        });
    };
    if !to_stdout {
        if outputs.len() > 1 {
            return Err(ConfigError::new(
                format!("--manifest {}", path.display()),
                format!(
                    "describes one backup, so it needs exactly one output; {} are given",
                    outputs.len()
                ),
            ));
        }
        writable_dir(&path)?;
        return Ok(ManifestPlan::Record {
            path: Some(path),
            recording,
        });
    }
    match input {
        InputSpec::File(_) | InputSpec::Remote(_) => {
            let manifest = Manifest::load(&path).map_err(|e| {
                ConfigError::new(format!("--manifest {}", path.display()), e.to_string())
            })?;
            Ok(ManifestPlan::Check {
                path,
                manifest: Arc::new(manifest),
            })
        }
        _ => Err(ConfigError::new(
            format!("--manifest {}", path.display()),
            "needs an output to describe (-o) or a tape or file to check (-i); standard input to standard output has neither",
        )),
    }
}

/// The manifest is written at the end of a run that may take hours, so a
/// directory it cannot be written to is refused before the run starts.
fn writable_dir(path: &Path) -> Result<(), ConfigError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let refuse = |why: String| ConfigError::new(format!("--manifest {}", path.display()), why);
    if !dir.is_dir() {
        return Err(refuse(format!(
            "cannot be written: {} is not a directory",
            dir.display()
        )));
    }
    nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK).map_err(|e| {
        refuse(format!(
            "cannot be written: {}: {}",
            dir.display(),
            std::io::Error::from(e)
        ))
    })
}

/// A restore with `--manifest` and neither `-s` nor `-b` reads with the
/// backup's block size, so that a tape's records fit the block: the
/// command line with `-s` set so, or None when it needs no change (or the
/// manifest cannot be read, which `resolve` then says).
pub fn restore_block_size(cli: &Cli) -> Option<Cli> {
    let path = cli.manifest.as_ref()?;
    let to_stdout = cli.connect.is_empty() && cli.outputs.iter().all(|o| o.as_os_str() == "-");
    let from_medium =
        cli.listen.is_none() && cli.input.as_ref().is_some_and(|i| i.as_os_str() != "-");
    if cli.block_size.is_some() || cli.blocks.is_some() || !to_stdout || !from_medium {
        return None;
    }
    let manifest = Manifest::load(path).ok()?;
    let mut adjusted = cli.clone();
    adjusted.block_size = Some(manifest.block_bytes.to_string());
    Some(adjusted)
}
