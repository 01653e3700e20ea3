//! One place that knows every path a run writes: each output file (every
//! volume of a numbered one) and each report file (`--manifest`,
//! `--hash-file`, `--summary-json`, `--stats`, `-l`, and `--catalog`'s
//! file beside the manifest). Before anything is
//! opened it refuses any of them that is, or would become, the same file as
//! something the run reads (the input, each of its volumes, the manifest a
//! restore checks against, `--key` and `--allow-keys`) or something else it writes. A file that is
//! there is compared by identity (device and inode, through links); a file
//! still to be made by its directory's identity and its name, so a report
//! named like a later volume (`--manifest v.02` beside `-o v.%02d`) is
//! caught before volume 1. Every kind of file counts, pipes included
//! (`--stats /dev/stdout` when stdout carries the data, `-l /dev/stdin`
//! when stdin does); only `/dev/null`, `/dev/zero` and a terminal may take
//! any number of writers. The rules are `base::path_registry`'s, the
//! one registry every command uses.

use std::path::{Path, PathBuf};

use super::{ConfigError, InputSpec, ManifestPlan, OutputSpec};
use crate::base::file_id::Identity;
use crate::base::path_registry::{clash, need_regular, Need, Registry, Role, Spot, Use};
use crate::observe::settings::ObserveSettings;
use crate::volume::VolumeNames;

/// Refuses, naming both flags, any written path (the outputs, and the
/// `reports` of `report_files`) that is the same file as one read (the
/// input, a manifest checked against, and `also_read`: the keys of a
/// private stream) or another one written.
pub fn check(
    input: &InputSpec,
    outputs: &[OutputSpec],
    manifest: &ManifestPlan,
    reports: &[(&'static str, PathBuf)],
    also_read: &[(&'static str, PathBuf)],
) -> Result<(), ConfigError> {
    let mut read = read_files(input, manifest)?;
    let keys = key_uses(also_read);
    read.extend(keys.iter().cloned());
    let mut registry = Registry::new();
    for r in &read {
        registry.add(r.clone())?;
    }
    let outputs = output_files(outputs);
    for (flag, path) in reports {
        apart_from_endpoints(flag, path, &read, &outputs)?;
        // The manifest and the catalog are replaced by renaming a file
        // made beside them: a FIFO or device there is refused.
        let need = match *flag {
            "--catalog" | "--manifest" => Need::Regular,
            _ => Need::Any,
        };
        registry.path(
            format!("{flag} {}", path.display()),
            path,
            Role::Report,
            need,
        )?;
    }
    let input_numbered = matches!(input, InputSpec::File(p) if numbered(p));
    for output in &outputs {
        if output.names.is_some() || input_numbered || output.is_stream() {
            output.apart_from(&read)?;
        }
        // Every output, plain files too: nothing later compares an output
        // with the keys.
        output.apart_from(&keys)?;
    }
    Ok(())
}

/// The key files read (`also_read` of `check`), as uses.
fn key_uses(also_read: &[(&'static str, PathBuf)]) -> Vec<Use> {
    (also_read.iter())
        .map(|(flag, path)| Use {
            spot: Spot::of(path),
            what: format!("{flag} {}", path.display()),
            role: Role::Read,
        })
        .collect()
}

/// Refuses `--manifest` at `path` when it is the input, an output or a key
/// file, before it is taken for a manifest to check against
/// (`config::manifest_flags`, which runs after this).
pub fn manifest_apart(
    path: &Path,
    input: &InputSpec,
    outputs: &[OutputSpec],
    keys: &[(&'static str, PathBuf)],
) -> Result<(), ConfigError> {
    let mut read = input_files(input)?;
    read.extend(key_uses(keys));
    apart_from_endpoints("--manifest", path, &read, &output_files(outputs))
}

/// `--catalog`'s file must be none the run reads or writes to.
pub fn catalog_apart(
    path: &Path,
    input: &InputSpec,
    outputs: &[OutputSpec],
) -> Result<(), ConfigError> {
    apart_from_endpoints(
        "--catalog",
        path,
        &input_files(input)?,
        &output_files(outputs),
    )
}

/// Refuses the report file `flag path` when it is a file read or an output.
fn apart_from_endpoints(
    flag: &str,
    path: &Path,
    read: &[Use],
    outputs: &[Output],
) -> Result<(), ConfigError> {
    let report = Use {
        what: format!("{flag} {}", path.display()),
        role: Role::Report,
        spot: Spot::of(path),
    };
    let refuse = |why: String| Err(ConfigError::new(report.what.clone(), why));
    if let Some(why) = read.iter().find_map(|r| clash(&report, r)) {
        return refuse(why);
    }
    if let Some(written) = outputs.iter().find_map(|o| o.holds(&report.spot)) {
        if let Some(why) = clash(&report, &written) {
            return refuse(why);
        }
    }
    Ok(())
}

/// What the run reads: the input and the manifest a restore checks
/// against.
fn read_files(input: &InputSpec, manifest: &ManifestPlan) -> Result<Vec<Use>, ConfigError> {
    let mut read = input_files(input)?;
    if let ManifestPlan::Check { path, .. } = manifest {
        let what = format!(
            "--manifest {}, which this restore checks against",
            path.display()
        );
        need_regular(&format!("--manifest {}", path.display()), path, Role::Read)?;
        read.push(Use {
            spot: Spot::of(path),
            what,
            role: Role::Read,
        });
    }
    Ok(read)
}

/// The input's files: itself, or each volume there now when numbered.
fn input_files(input: &InputSpec) -> Result<Vec<Use>, ConfigError> {
    let mut read = Vec::new();
    match input {
        InputSpec::File(path) => {
            let flag = format!("-i {}", path.display());
            read.extend(volumes_there(path, &flag, Role::Read));
        }
        InputSpec::Stdin => read.extend(Identity::of_fd(std::io::stdin()).map(|id| Use {
            spot: Spot::Existing(id),
            what: "standard input".to_string(),
            role: Role::Read,
        })),
        InputSpec::Listen(_) | InputSpec::Remote(_) | InputSpec::Command(_) => {}
    }
    Ok(read)
}

/// The files `path` names now: itself, or each volume of a numbered name
/// that is there, whatever the gaps between their numbers.
fn volumes_there(path: &Path, flag: &str, role: Role) -> Vec<Use> {
    let names = match VolumeNames::parse(path) {
        Ok(names) if names.is_numbered() => names,
        _ => {
            return vec![Use {
                spot: Spot::of(path),
                what: flag.to_string(),
                role,
            }]
        }
    };
    names
        .existing()
        .into_iter()
        .filter_map(|(n, p)| {
            let id = Identity::of_path(&p).ok().flatten()?;
            Some(Use {
                spot: Spot::Existing(id),
                what: format!("volume {n} of {flag} ({})", p.display()),
                role,
            })
        })
        .collect()
}

/// One output and the files it writes.
struct Output {
    flag: String,
    /// Set for a numbered name, whose later volumes may not be there yet.
    names: Option<VolumeNames>,
    /// What is there now (or where the one file would be made).
    files: Vec<Use>,
}

impl Output {
    /// The output file at `spot`, if this output writes it.
    fn holds(&self, spot: &Spot) -> Option<Use> {
        if let Some(f) = self.files.iter().find(|f| f.spot.same_as(spot)) {
            return Some(f.clone());
        }
        let (names, Spot::New(_, file_name)) = (self.names.as_ref()?, spot) else {
            return None;
        };
        let n = names.number_of(&names.volume(1).with_file_name(file_name))?;
        let volume = names.volume(n);
        Spot::of(&volume).same_as(spot).then(|| Use {
            what: format!("volume {n} of {} ({})", self.flag, volume.display()),
            role: Role::Write,
            spot: spot.clone(),
        })
    }

    /// True for standard output or a FIFO, socket or device: a stream the
    /// run writes into, which must not be one it reads.
    fn is_stream(&self) -> bool {
        self.files.iter().any(|f| {
            matches!(&f.spot, Spot::Existing(id) if id.kind != crate::base::file_id::Kind::Regular)
        })
    }

    /// Refuses a volume that is there now and is a file the run reads
    /// (`-o w.%02d` where `w.02` links to input volume `v.03`). One file
    /// against one file is `sink::preflight`'s check, with its own words.
    fn apart_from(&self, read: &[Use]) -> Result<(), ConfigError> {
        for file in &self.files {
            if let Some(why) = read.iter().find_map(|r| clash(file, r)) {
                return Err(ConfigError::new(file.what.clone(), why));
            }
        }
        Ok(())
    }
}

/// Every output that is a file here, with the volumes there now.
fn output_files(specs: &[OutputSpec]) -> Vec<Output> {
    let mut outputs = Vec::new();
    for spec in specs {
        match spec {
            OutputSpec::File(path) => {
                let flag = format!("-o {}", path.display());
                let names = VolumeNames::parse(path)
                    .ok()
                    .filter(VolumeNames::is_numbered);
                let files = volumes_there(path, &flag, Role::Write);
                outputs.push(Output { flag, names, files });
            }
            OutputSpec::Stdout => {
                outputs.extend(Identity::of_fd(std::io::stdout()).map(|id| Output {
                    flag: "standard output".to_string(),
                    names: None,
                    files: vec![Use {
                        spot: Spot::Existing(id),
                        what: "standard output".to_string(),
                        role: Role::Write,
                    }],
                }))
            }
            OutputSpec::Connect(_) | OutputSpec::Remote(_) | OutputSpec::Command(_) => {}
        }
    }
    outputs
}

/// Every report file, by the flag that names it.
pub fn report_files(
    manifest: &ManifestPlan,
    catalog: Option<&PathBuf>,
    hash_file: Option<&PathBuf>,
    observe: &ObserveSettings,
) -> Vec<(&'static str, PathBuf)> {
    [
        ("--manifest", manifest.written().cloned()),
        ("--catalog", catalog.cloned()),
        ("--hash-file", hash_file.cloned()),
        ("--summary-json", observe.summary_json.clone()),
        ("--stats", observe.stats.as_ref().map(|(p, _)| p.clone())),
        ("-l", observe.log.clone()),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.map(|p| (flag, p)))
    .filter(|(_, p)| p.as_os_str() != "-")
    .collect()
}

fn numbered(path: &Path) -> bool {
    VolumeNames::parse(path).is_ok_and(|n| n.is_numbered())
}
