//! Finding and opening the catalog `tapebuf ls` lists, and every way that
//! can fail as one line and an exit status. With `--manifest` the catalog
//! is the file the manifest names (`catalog.file`, a name in the
//! manifest's own directory); a manifest without one, or whose catalog was
//! turned off, says why. Everything refused here, before a member is
//! listed, is exit status 2: an unreadable manifest, no catalog, and a
//! catalog file that is missing, unreadable or damaged in its header,
//! footer or index (`Catalog::open` checks those).

use std::io;
use std::path::{Path, PathBuf};

use crate::base::console::message;
use crate::base::errors::plain;
use crate::base::errors::ConfigError;
use crate::base::exit::USAGE;
use crate::base::path_registry::{Need, Registry, Role};
use crate::catalog::Catalog;
use crate::cli::ls::LsCli;
use crate::manifest::Manifest;

/// What is listed: the catalog, and the manifest it came with.
pub struct Opened {
    pub catalog: Catalog,
    pub catalog_path: PathBuf,
    pub manifest: Option<Manifest>,
}

/// Why nothing is listed: the one line, and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub line: String,
    pub status: i32,
}

fn refused(line: String) -> Refusal {
    Refusal {
        line,
        status: USAGE,
    }
}

/// Opens what `cli` names.
pub fn open(cli: &LsCli) -> Result<Opened, Refusal> {
    let (catalog_path, manifest) = match (&cli.manifest, &cli.catalog) {
        (Some(path), _) => {
            let manifest = Manifest::load(path)
                .map_err(|e| refused(message!("ls: --manifest {}: {e}", path.display())))?;
            (catalog_of(path, &manifest)?, Some(manifest))
        }
        (None, Some(path)) => (path.clone(), None),
        (None, None) => return Err(refused(message!("ls: --manifest or --catalog is needed"))),
    };
    register(cli, &catalog_path).map_err(|e| refused(message!("ls: {e}")))?;
    let catalog =
        Catalog::open(&catalog_path).map_err(|e| refused(open_error(&catalog_path, &e)))?;
    Ok(Opened {
        catalog,
        catalog_path,
        manifest,
    })
}

/// Every path `ls` touches, in the one registry: the manifest and the
/// catalog it reads (regular files, refused by `stat` when not, so a FIFO
/// cannot hang it) and standard output, where the listing goes.
fn register(cli: &LsCli, catalog: &Path) -> Result<(), ConfigError> {
    let mut registry = Registry::new();
    if let Some(path) = &cli.manifest {
        let what = format!("--manifest {}", path.display());
        registry.path(what, path, Role::Read, Need::Regular)?;
    }
    let what = match &cli.catalog {
        Some(path) => format!("--catalog {}", path.display()),
        None => format!("catalog {}", catalog.display()),
    };
    registry.path(what, catalog, Role::Read, Need::Regular)?;
    registry.fd("standard output", io::stdout(), Role::Report)
}

/// The catalog file `manifest` (read from `path`) names, or why none.
fn catalog_of(path: &Path, manifest: &Manifest) -> Result<PathBuf, Refusal> {
    let shown = path.display();
    let Some(catalog) = &manifest.catalog else {
        return Err(refused(message!(
            "ls: --manifest {shown}: the backup has no catalog (a backup with --manifest and --catalog makes one)"
        )));
    };
    if let Some(why) = &catalog.off {
        return Err(refused(message!(
            "ls: --manifest {shown}: the backup has no catalog: it stopped following the archive at {why}"
        )));
    }
    catalog
        .path_beside(path)
        .map_err(|why| refused(message!("ls: --manifest {shown}: {why}")))
}

/// The line for a catalog that would not open: a damaged one names
/// itself and where (`Catalog::open`'s error); any other names the path.
fn open_error(path: &Path, e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::InvalidData {
        message!("ls: {e}")
    } else {
        message!(
            "ls: catalog {}: cannot read it: {}",
            path.display(),
            plain(e)
        )
    }
}
