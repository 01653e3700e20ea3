//! Checks every output before any is opened, so that a refused command line
//! leaves nothing behind: an existing regular file without -f/--append, a
//! directory, an output that is the input under another name, and an output
//! named twice. The checks change nothing on disk; the plan they return
//! says how each output is to be opened.

use std::path::PathBuf;

use super::OpenError;
use crate::config::{Config, ExistingFile, OutputSpec};
use crate::file_id::Identity;

/// How one output is to be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Stdout,
    /// Nothing is there: create it, exclusively.
    Create(PathBuf),
    /// A regular file the user allowed us to truncate.
    Truncate(PathBuf),
    /// A regular file the user asked to extend.
    Append(PathBuf),
    /// A device, FIFO or socket: open it as it is.
    AsIs(PathBuf),
}

/// Checks all outputs against each other and against the input.
pub fn check(config: &Config, input: Option<Identity>) -> Result<Vec<Plan>, OpenError> {
    let mut seen: Vec<(Identity, String)> = Vec::new();
    // Files still to be created, by directory and name: `-o a -o ./a`.
    let mut new_files: Vec<(Option<Identity>, std::ffi::OsString, String)> = Vec::new();
    let mut plans = Vec::with_capacity(config.outputs.len());
    for spec in &config.outputs {
        let name = spec.display_name();
        let (plan, identity) = match spec {
            OutputSpec::Stdout => (Plan::Stdout, Identity::of_fd(std::io::stdout())),
            OutputSpec::File(path) => {
                let identity = Identity::of_path(path).map_err(|e| {
                    OpenError::Io(
                        anyhow::Error::new(e).context(format!("-o {name}: cannot inspect")),
                    )
                })?;
                let plan = match identity.map(|i| i.kind) {
                    None => {
                        let dir = match path.parent() {
                            Some(d) if !d.as_os_str().is_empty() => d,
                            _ => std::path::Path::new("."),
                        };
                        let key = (
                            Identity::of_path(dir).ok().flatten(),
                            path.file_name().unwrap_or_default().to_os_string(),
                        );
                        if let Some((_, _, first)) = new_files
                            .iter()
                            .find(|(d, f, _)| (d, f) == (&key.0, &key.1))
                        {
                            return Err(OpenError::Conflict(format!(
                                "{name} is the same file as {first}; every output would get the data twice"
                            )));
                        }
                        new_files.push((key.0, key.1, name.clone()));
                        Plan::Create(path.clone())
                    }
                    Some(crate::file_id::Kind::Regular) => match config.existing {
                        ExistingFile::Refuse => return Err(OpenError::Exists(name)),
                        ExistingFile::Truncate => Plan::Truncate(path.clone()),
                        ExistingFile::Append => Plan::Append(path.clone()),
                    },
                    Some(_) if path.is_dir() => {
                        return Err(OpenError::Io(anyhow::anyhow!("-o {name}: is a directory")))
                    }
                    Some(_) => Plan::AsIs(path.clone()),
                };
                (plan, identity)
            }
        };
        if let Some(id) = identity {
            if input == Some(id) && id.holds_data() {
                return Err(OpenError::Conflict(format!(
                    "{name} is the input; writing it while reading it would destroy it"
                )));
            }
            if let Some((_, first)) = seen.iter().find(|(other, _)| *other == id) {
                return Err(OpenError::Conflict(format!(
                    "{name} is the same file as {first}; every output would get the data twice"
                )));
            }
            seen.push((id, name));
        }
        plans.push(plan);
    }
    Ok(plans)
}
