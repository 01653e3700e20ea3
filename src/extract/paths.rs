//! Every path an extract touches, in the one registry
//! (`base::path_registry`) before any volume is read: the manifest, the
//! catalog, and every file of the backup the manifest names, both where
//! `-i` reads them and where the backup wrote them (`-i COPY -o vol.002`
//! must not overwrite the backup's own volume 2, though the plan reads
//! the copy), `--encrypt-key`'s key file, then the output: `-o FILE` or standard output. A volume read
//! by seeking must be a regular file, so a FIFO in its place is refused
//! by `stat`, never waited on. A refusal is one line, exit status 2.

use std::io;
use std::path::{Path, PathBuf};

use super::failure::Failure;
use crate::base::file_id::{Identity, Kind};
use crate::base::path_registry::{Need, Registry, Role};
use crate::manifest::Manifest;
use crate::volume::VolumeNames;

/// What an extract reads and writes.
pub struct Paths<'a> {
    pub manifest_path: &'a Path,
    pub manifest: &'a Manifest,
    pub catalog: &'a Path,
    /// Where the volumes are read from (`-i`, or the manifest's output).
    pub input: &'a Path,
    pub output: Option<&'a Path>,
    /// `--encrypt-key`: a key file, never to be written over.
    pub key: Option<&'a Path>,
}

/// Registers every path, refusing the first that clashes.
pub fn check(paths: &Paths<'_>) -> Result<(), Failure> {
    register(paths).map_err(|e| Failure::Usage(format!("extract: {e}")))
}

fn register(p: &Paths<'_>) -> Result<(), crate::base::errors::ConfigError> {
    let mut registry = Registry::new();
    let read = |what: &str, path: &Path| {
        (
            format!("{what} of the backup being read ({})", path.display()),
            path.to_path_buf(),
        )
    };
    let (what, path) = read("the manifest", p.manifest_path);
    registry.path(what, &path, Role::Read, Need::Regular)?;
    let (what, path) = read("the catalog", p.catalog);
    registry.path(what, &path, Role::Read, Need::Regular)?;
    for (n, path, need) in volumes(p) {
        let (what, path) = read(&format!("volume {n}"), &path);
        registry.path(what, &path, Role::Read, need)?;
    }
    if let Some(key) = p.key {
        registry.path(
            format!("--encrypt-key {}", key.display()),
            key,
            Role::Read,
            Need::Regular,
        )?;
    }
    match p.output {
        Some(out) => registry.path(format!("-o {}", out.display()), out, Role::Write, Need::Any),
        None => registry.fd("standard output", io::stdout(), Role::Write),
    }
}

/// Every volume's file: where `-i` reads it (a numbered name's must be a
/// regular file) and where the manifest says the backup wrote it, as
/// named and beside the manifest.
fn volumes(p: &Paths<'_>) -> Vec<(u32, PathBuf, Need)> {
    let mut files = Vec::new();
    let input = VolumeNames::parse(p.input).ok();
    let recorded = VolumeNames::parse(Path::new(&p.manifest.output)).ok();
    let beside = p.manifest_path.parent().unwrap_or(Path::new("."));
    for v in &p.manifest.volumes {
        if let Some(names) = &input {
            let path = names.volume(v.number);
            files.push((v.number, path.clone(), seekable(names, &path)));
        }
        let mut written = vec![PathBuf::from(&v.name)];
        written.extend(recorded.as_ref().map(|names| names.volume(v.number)));
        for path in written {
            if path.is_relative() {
                files.push((v.number, beside.join(&path), Need::Any));
            }
            files.push((v.number, path, Need::Any));
        }
    }
    files
}

/// What a volume read by seeking must be: a numbered one a regular file;
/// one file a tape drive, a block device or a regular file, never a FIFO
/// or socket, which cannot seek and would wait for a writer.
fn seekable(names: &VolumeNames, path: &Path) -> Need {
    let stream = matches!(
        Identity::of_path(path),
        Ok(Some(Identity {
            kind: Kind::Fifo | Kind::Socket,
            ..
        }))
    );
    match names.is_numbered() || stream {
        true => Need::Regular,
        false => Need::Any,
    }
}
