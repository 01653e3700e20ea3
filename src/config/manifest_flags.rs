//! `--manifest FILE` and `--verify`: which way the manifest goes, checked
//! against the endpoints.
//!
//! A run that reads a past backup is a restore, and a restore checks each
//! volume it reads against the manifest and never writes it: the manifest
//! is the record that would show the restore short. A run is a restore
//! when its input is a tape drive (here or over rmt) or numbered volumes,
//! or a file and either standard output is the only output or the
//! manifest, already there, describes that very input. Any other run with
//! `--manifest` records its output and writes the manifest at the end;
//! then there must be exactly one output, since a manifest describes one
//! backup. `--verify` reads every output back, so standard output cannot
//! be one of them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::base::errors::ConfigError;
use crate::base::file_id::Identity;
use crate::cli::Cli;
use crate::hash::HashAlg;
use crate::manifest::{LoadError, Manifest, Recording};
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;
use crate::tape::drive::char_devices::{CharDevice, Verdict};
use crate::volume::VolumeNames;

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
    if path.is_dir() {
        return Err(is_a_directory(&path));
    }
    if reads_a_backup(input, &path, to_stdout) {
        return check_plan(cli, path);
    }
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
    Err(nothing_to_describe(&path))
}

/// `tapebuf verify`'s manifest, taken as a restore of its input to
/// standard output takes it: to check the input against (it is read
/// already).
pub fn check_verified(path: &Path, input: &InputSpec) -> Result<(), ConfigError> {
    if path.is_dir() {
        return Err(is_a_directory(path));
    }
    match reads_a_backup(input, path, true) {
        true => Ok(()),
        false => Err(nothing_to_describe(path)),
    }
}

/// `--manifest` names a directory.
fn is_a_directory(path: &Path) -> ConfigError {
    ConfigError::new(
        format!("--manifest {}", path.display()),
        "is a directory; name a file in it",
    )
}

/// `--manifest` with nothing to record and nothing to check.
fn nothing_to_describe(path: &Path) -> ConfigError {
    ConfigError::new(
        format!("--manifest {}", path.display()),
        "needs an output to describe (-o) or a tape or file to check (-i); standard input to standard output has neither",
    )
}

/// A restore's plan: its input is checked against the manifest at `path`,
/// which must be there; `--verify` has nothing to read back.
fn check_plan(cli: &Cli, path: PathBuf) -> Result<ManifestPlan, ConfigError> {
    if cli.verify {
        return Err(ConfigError::new(
            "--verify",
            format!(
                "reads back what a backup wrote, and this run is a restore, which checks its input against --manifest {} instead",
                path.display()
            ),
        ));
    }
    let manifest = Manifest::load(&path).map_err(|e| {
        let why = match e {
            LoadError::Io(_) => {
                format!("{e}; a restore checks its input against the manifest and never writes one")
            }
            _ => e.to_string(),
        };
        ConfigError::new(format!("--manifest {}", path.display()), why)
    })?;
    Ok(ManifestPlan::Check {
        path,
        manifest: Arc::new(manifest),
    })
}

/// True when the run reads a past backup (see the module's words):
/// a tape drive here or over rmt, numbered volumes, or a file when
/// standard output is the only output or the manifest at `manifest`
/// already describes it.
fn reads_a_backup(input: &InputSpec, manifest: &Path, to_stdout: bool) -> bool {
    match input {
        InputSpec::Remote(_) => true,
        InputSpec::File(path) => {
            let tape = CharDevice::at_path(path)
                .is_some_and(|d| matches!(d.verdict(), Verdict::Tape { .. }));
            let numbered = VolumeNames::parse(path).is_ok_and(|n| n.is_numbered());
            tape || to_stdout || numbered || describes(manifest, path)
        }
        InputSpec::Stdin | InputSpec::Listen(_) | InputSpec::Command(_) => false,
    }
}

/// True when the manifest at `manifest` exists and names `input` as what
/// the backup was written to (its output, or its first volume).
fn describes(manifest: &Path, input: &Path) -> bool {
    if !manifest.exists() {
        return false;
    }
    let Ok(m) = Manifest::load(manifest) else {
        // A manifest that cannot be read is not overwritten either: the
        // run refuses it, saying why.
        return true;
    };
    let absolute = |p: &Path| std::path::absolute(p).ok();
    let first_volume = VolumeNames::parse(input).ok().map(|n| n.volume(1));
    let named = [
        Some(input.to_path_buf()),
        absolute(input),
        first_volume.as_deref().and_then(absolute),
    ];
    let by_name = named.iter().flatten().any(|p| {
        Path::new(&m.output) == p || m.volumes.first().is_some_and(|v| Path::new(&v.name) == p)
    });
    // The same file under another name (`./v.01`, a link): by identity.
    let id = |p: &Path| Identity::of_path(p).ok().flatten();
    let input_id = first_volume.as_deref().or(Some(input)).and_then(id);
    let recorded = [
        Some(m.output.as_str()),
        m.volumes.first().map(|v| v.name.as_str()),
    ];
    by_name
        || input_id.is_some_and(|i| {
            recorded
                .iter()
                .flatten()
                .any(|r| id(Path::new(r)) == Some(i))
        })
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
    let input = cli
        .input
        .as_ref()
        .filter(|i| cli.listen.is_none() && i.as_os_str() != "-")?;
    let spec = match super::rmt_flags::remote_name(&cli.remote, "-i/--input", input) {
        Ok(Some(remote)) => InputSpec::Remote(remote),
        _ => InputSpec::File(input.clone()),
    };
    if cli.block_size.is_some() || cli.blocks.is_some() || !reads_a_backup(&spec, path, to_stdout) {
        return None;
    }
    let manifest = Manifest::load(path).ok()?;
    let mut adjusted = cli.clone();
    adjusted.block_size = Some(manifest.block_bytes.to_string());
    Some(adjusted)
}
