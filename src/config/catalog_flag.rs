//! `--catalog`: the catalog of a backup's archive, written beside the
//! manifest that names it, so it needs `--manifest` on a run that records
//! its output (a restore only reads). Its name is the manifest's with the
//! extension `.catalog` (`home.json` -> `home.catalog`, `home` ->
//! `home.catalog`), and it must be no file the run reads or writes.
//! `--zero-copy=on` is refused already by the manifest it needs.

use std::path::{Path, PathBuf};

use super::manifest_flags::ManifestPlan;
use super::written_paths;
use crate::base::errors::ConfigError;
use crate::cli::Cli;
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;

/// Where `--catalog` writes the catalog; None without it.
pub fn resolve(
    cli: &Cli,
    manifest: &ManifestPlan,
    input: &InputSpec,
    outputs: &[OutputSpec],
) -> Result<Option<PathBuf>, ConfigError> {
    if !cli.catalog {
        return Ok(None);
    }
    let Some(manifest_path) = &cli.manifest else {
        return Err(ConfigError::new(
            "--catalog",
            "needs --manifest: the catalog is written beside the manifest, which names it",
        ));
    };
    let Some(written) = manifest.written() else {
        return Err(ConfigError::new(
            "--catalog",
            format!(
                "catalogs a backup as it is written, and with --manifest {} this run {}",
                manifest_path.display(),
                match manifest {
                    ManifestPlan::Check { .. } => "is a restore",
                    _ => "writes no manifest",
                }
            ),
        ));
    };
    let path = catalog_path(written);
    if &path == written {
        return Err(ConfigError::new(
            format!("--manifest {}", written.display()),
            "ends in .catalog, the name --catalog gives the catalog beside it; name the manifest otherwise (home.json)",
        ));
    }
    written_paths::catalog_apart(&path, input, outputs)?;
    Ok(Some(path))
}

/// The catalog's path: the manifest's, with its extension replaced by
/// (or without one, given) `.catalog`.
pub fn catalog_path(manifest: &Path) -> PathBuf {
    manifest.with_extension("catalog")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_takes_the_manifests_name_with_its_own_extension() {
        let cases = [
            ("home.json", "home.catalog"),
            ("home", "home.catalog"),
            ("/b/a.b.json", "/b/a.b.catalog"),
            ("dir.d/m", "dir.d/m.catalog"),
        ];
        for (manifest, catalog) in cases {
            assert_eq!(catalog_path(Path::new(manifest)), Path::new(catalog));
        }
    }
}
