//! One place that knows every path a run writes: each output file (every
//! volume of a numbered one) and each report file (`--manifest`,
//! `--hash-file`, `--summary-json`, `--stats`, `-l`). Before anything is
//! opened it refuses any of them that is, or would become, the same file as
//! something the run reads (the input, each of its volumes, the manifest a
//! restore checks against) or something else it writes. A file that is
//! there is compared by identity (device and inode, through links); a file
//! still to be made by its directory's identity and its name, so a report
//! named like a later volume (`--manifest v.02` beside `-o v.%02d`) is
//! caught before volume 1. Only files that hold data count: `/dev/null`
//! may take any number of writers.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{ConfigError, InputSpec, ManifestPlan, OutputSpec};
use crate::base::file_id::Identity;
use crate::observe::settings::ObserveSettings;
use crate::tape::VolumeNames;

/// Where a file is, or would be made.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Spot {
    Existing(Identity),
    /// Not there yet: its directory (if that is there) and its name.
    New(Option<Identity>, OsString),
}

impl Spot {
    fn of(path: &Path) -> Spot {
        match Identity::of_path(path).ok().flatten() {
            Some(id) => Spot::Existing(id),
            None => Spot::New(
                Identity::of_path(parent(path)).ok().flatten(),
                path.file_name().unwrap_or_default().to_os_string(),
            ),
        }
    }

    /// True when writing one destroys what the other holds.
    fn same_as(&self, other: &Spot) -> bool {
        match (self, other) {
            (Spot::Existing(a), Spot::Existing(b)) => a == b && a.holds_data(),
            (Spot::New(Some(d), a), Spot::New(Some(e), b)) => d == e && a == b,
            _ => false,
        }
    }
}

/// A file the run reads or writes, and how to name it in a refusal.
struct Named {
    spot: Spot,
    what: String,
}

/// Refuses, naming both flags, any written path (the outputs, and the
/// `reports` of `report_files`) that is the same file as one read or
/// another one written.
pub fn check(
    input: &InputSpec,
    outputs: &[OutputSpec],
    manifest: &ManifestPlan,
    reports: &[(&'static str, PathBuf)],
) -> Result<(), ConfigError> {
    let read = read_files(input, manifest);
    let outputs = output_files(outputs);
    for (i, (flag, path)) in reports.iter().enumerate() {
        apart_from_endpoints(flag, path, &read, &outputs)?;
        let spot = Spot::of(path);
        let earlier = reports[..i]
            .iter()
            .find(|(_, p)| Spot::of(p).same_as(&spot));
        if let Some((other, p)) = earlier {
            return Err(ConfigError::new(
                format!("{flag} {}", path.display()),
                format!(
                    "is the same file as {other} {}; one would overwrite the other",
                    p.display()
                ),
            ));
        }
    }
    let input_numbered = matches!(input, InputSpec::File(p) if numbered(p));
    for output in outputs
        .iter()
        .filter(|o| o.names.is_some() || input_numbered)
    {
        output.apart_from(&read)?;
    }
    Ok(())
}

/// Refuses `--manifest` at `path` when it is the input or an output, before
/// it is taken for a manifest to check against (`config::manifest_flags`,
/// which runs after this).
pub fn manifest_apart(
    path: &Path,
    input: &InputSpec,
    outputs: &[OutputSpec],
) -> Result<(), ConfigError> {
    apart_from_endpoints(
        "--manifest",
        path,
        &input_files(input),
        &output_files(outputs),
    )
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
        &input_files(input),
        &output_files(outputs),
    )
}

/// Refuses the report file `flag path` when it is a file read or an output.
fn apart_from_endpoints(
    flag: &str,
    path: &Path,
    read: &[Named],
    outputs: &[Output],
) -> Result<(), ConfigError> {
    let spot = Spot::of(path);
    let refuse = |what: &str, why: &str| {
        Err(ConfigError::new(
            format!("{flag} {}", path.display()),
            format!("is the same file as {what}; {why}"),
        ))
    };
    if let Some(r) = read.iter().find(|r| r.spot.same_as(&spot)) {
        return refuse(&r.what, "writing it there would destroy what the run reads");
    }
    if let Some(what) = outputs.iter().find_map(|o| o.holds(&spot)) {
        return refuse(&what, "writing it there would destroy the backup");
    }
    Ok(())
}

/// What the run reads: the input and the manifest a restore checks
/// against.
fn read_files(input: &InputSpec, manifest: &ManifestPlan) -> Vec<Named> {
    let mut read = input_files(input);
    if let ManifestPlan::Check { path, .. } = manifest {
        read.push(Named {
            spot: Spot::of(path),
            what: format!(
                "--manifest {}, which this restore checks against",
                path.display()
            ),
        });
    }
    read
}

/// The input's files: itself, or each volume there now when numbered.
fn input_files(input: &InputSpec) -> Vec<Named> {
    let mut read = Vec::new();
    match input {
        InputSpec::File(path) => {
            let flag = format!("-i {}", path.display());
            read.extend(volumes_there(path, &flag));
        }
        InputSpec::Stdin => read.extend(Identity::of_fd(std::io::stdin()).map(|id| Named {
            spot: Spot::Existing(id),
            what: "standard input".to_string(),
        })),
        InputSpec::Listen(_) | InputSpec::Remote(_) => {}
    }
    read
}

/// The files `path` names now: itself, or each volume of a numbered name
/// that is there, whatever the gaps between their numbers.
fn volumes_there(path: &Path, flag: &str) -> Vec<Named> {
    let names = match VolumeNames::parse(path) {
        Ok(names) if names.is_numbered() => names,
        _ => {
            return vec![Named {
                spot: Spot::of(path),
                what: flag.to_string(),
            }]
        }
    };
    names
        .existing()
        .into_iter()
        .filter_map(|(n, p)| {
            let id = Identity::of_path(&p).ok().flatten()?;
            Some(Named {
                spot: Spot::Existing(id),
                what: format!("volume {n} of {flag} ({})", p.display()),
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
    files: Vec<Named>,
}

impl Output {
    /// How to name the output file at `spot`, if this output writes it.
    fn holds(&self, spot: &Spot) -> Option<String> {
        if let Some(f) = self.files.iter().find(|f| f.spot.same_as(spot)) {
            return Some(f.what.clone());
        }
        let (names, Spot::New(_, file_name)) = (self.names.as_ref()?, spot) else {
            return None;
        };
        let n = names.number_of(&names.volume(1).with_file_name(file_name))?;
        let volume = names.volume(n);
        Spot::of(&volume)
            .same_as(spot)
            .then(|| format!("volume {n} of {} ({})", self.flag, volume.display()))
    }

    /// Refuses a volume that is there now and is a file the run reads
    /// (`-o w.%02d` where `w.02` links to input volume `v.03`). One file
    /// against one file is `sink::preflight`'s check, with its own words.
    fn apart_from(&self, read: &[Named]) -> Result<(), ConfigError> {
        for file in &self.files {
            if let Some(r) = read.iter().find(|r| r.spot.same_as(&file.spot)) {
                return Err(ConfigError::new(
                    file.what.clone(),
                    format!(
                        "is the same file as {}; writing it would destroy what the run reads",
                        r.what
                    ),
                ));
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
                let files = volumes_there(path, &flag);
                outputs.push(Output { flag, names, files });
            }
            OutputSpec::Stdout => {
                outputs.extend(Identity::of_fd(std::io::stdout()).map(|id| Output {
                    flag: "standard output".to_string(),
                    names: None,
                    files: vec![Named {
                        spot: Spot::Existing(id),
                        what: "standard output".to_string(),
                    }],
                }))
            }
            OutputSpec::Connect(_) | OutputSpec::Remote(_) => {}
        }
    }
    outputs
}

/// Every report file, by the flag that names it.
pub fn report_files(
    manifest: &ManifestPlan,
    hash_file: Option<&PathBuf>,
    observe: &ObserveSettings,
) -> Vec<(&'static str, PathBuf)> {
    [
        ("--manifest", manifest.written().cloned()),
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

/// The directory a path is in; `.` for a bare name.
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}
