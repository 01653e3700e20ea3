//! Running `tapebuf extract`: the manifest and its catalog are read (an
//! unreadable one, or a backup made without `--catalog`, is a usage
//! error), the names choose the members and the plan says which stream
//! bytes and made bytes form the archive, the output is checked before
//! any volume is touched, and the pieces are copied (`copy.rs`) from the
//! volumes (`open.rs`). The summary line says what it cost.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::copy::copy;
use super::failure::Failure;
use super::open::{reader, Getting};
use super::output;
use super::paths::{self, Paths};
use super::plan::{plan, Missing, Needed, PlanError};
use super::summary;
use crate::base::console::{message, say};
use crate::base::exit::{Exit, SUCCESS};
use crate::base::size::count;
use crate::catalog::Catalog;
use crate::cli::command::Command;
use crate::cli::extract::ExtractCli;
use crate::config::{change_policy, check_library};
use crate::manifest::Manifest;

/// `tapebuf extract`.
pub struct Extract;

impl Command for Extract {
    const NAME: &'static str = "extract";
    type Args = ExtractCli;

    fn run(args: ExtractCli) -> Exit {
        match extract(&args) {
            Ok(None) => Exit::Code(SUCCESS),
            Ok(Some(failure)) | Err(failure) => {
                say(&message!("{}", failure.line()));
                Exit::Code(failure.exit_code())
            }
        }
    }
}

/// Extracts; Ok(Some) when the archive was written but a glob chose
/// nothing.
fn extract(args: &ExtractCli) -> Result<Option<Failure>, Failure> {
    let started = Instant::now();
    let usage =
        |flag: &str, e: &dyn std::fmt::Display| Failure::Usage(format!("extract: {flag}: {e}"));
    let globs = crate::catalog::globs::build(&args.globs).map_err(|e| usage("GLOB", &e))?;
    let policy = change_policy(args.change_command.as_deref(), args.change_timeout)
        .map_err(|e| Failure::Usage(format!("extract: {e}")))?;
    let library = check_library(&args.library, args.change_command.is_some())
        .map_err(|e| Failure::Usage(format!("extract: {e}")))?;
    let manifest =
        Manifest::load(&args.manifest).map_err(|e| usage(&manifest_flag(&args.manifest), &e))?;
    let catalog_path = catalog_path(&args.manifest, &manifest)?;
    let catalog = open_catalog(&args.manifest, &catalog_path)?;
    let input = args
        .input
        .clone()
        .unwrap_or_else(|| PathBuf::from(&manifest.output));
    paths::check(&Paths {
        manifest_path: &args.manifest,
        manifest: &manifest,
        catalog: &catalog_path,
        input: &input,
        output: args.output.as_deref(),
        key: args.tape.encrypt_key.as_deref(),
    })?;
    output::check(args.output.as_deref(), args.force)?;
    let plan = plan(&catalog, &globs).map_err(|e| match e {
        PlanError::NoMatch { .. } => Failure::Failed(unmatched_line(
            &args.globs.iter().map(String::as_str).collect::<Vec<_>>(),
        )),
        // The catalog could not be read.
        other => Failure::Usage(format!("extract: {other}")),
    })?;
    if !args.quiet {
        say_needed(&plan.needed);
    }
    say_missing(&plan.missing);
    let unmatched: Vec<&str> = (plan.unmatched.iter())
        .map(|&i| args.globs[i].as_str())
        .collect();
    let getting = Getting {
        policy,
        library: library.as_ref(),
        quiet: args.quiet,
        guards: (args.tape.guards()).map_err(|e| Failure::Usage(format!("extract: {e}")))?,
    };
    let mut volumes = reader(&input, &manifest, getting)?;
    let mut out = output::open(args.output.as_deref(), args.force)?;
    let copied = copy(
        plan.pieces(),
        &manifest,
        volumes.as_mut(),
        &catalog,
        out.as_mut(),
    );
    let cost = volumes.cost();
    copied.map_err(|why| {
        Failure::Failed(format!("extract: {why}; the archive written is cut short"))
    })?;
    drop(out);
    if !args.quiet {
        // What a full read reads: every volume's bytes (the stream's
        // and any padding), each read once.
        let volumes: u64 = manifest.volumes.iter().map(|v| v.bytes).sum();
        let backup = manifest.stream.bytes.max(volumes);
        say(&message!(
            "{}",
            summary::line(
                plan.members,
                &cost,
                backup,
                started.elapsed(),
                summary::backup_seconds(&manifest.started, &manifest.ended)
            )
        ));
    }
    Ok(ending(&plan.missing, &unmatched))
}

/// The catalog at `path`, which the manifest at `manifest` names; a
/// damaged one is the manifest's flag's error, one that cannot be read
/// names both.
fn open_catalog(manifest: &Path, path: &Path) -> Result<Catalog, Failure> {
    Catalog::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => {
            Failure::Usage(format!("extract: {}: {e}", manifest_flag(manifest)))
        }
        _ => Failure::Usage(format!(
            "extract: {}: its catalog {}: {e}",
            manifest_flag(manifest),
            path.display()
        )),
    })
}

/// The failure a written archive still ends with: hard links without
/// their targets, or names that chose nothing.
fn ending(missing: &[Missing], unmatched: &[&str]) -> Option<Failure> {
    if !missing.is_empty() {
        Some(Failure::Failed(missing_line(missing)))
    } else {
        (!unmatched.is_empty()).then(|| Failure::Failed(unmatched_line(unmatched)))
    }
}

/// One line for each hard link in the output whose target is in no
/// member before it: `tar xf` cannot make it.
fn say_missing(missing: &[Missing]) {
    for m in missing {
        say(&message!(
            "extract: {}: its hard link target {} is no member before it in the backup; tar cannot make the link",
            m.path.escaped(),
            m.target.escaped()
        ));
    }
}

/// The last line when hard links lack their targets.
fn missing_line(missing: &[Missing]) -> String {
    format!(
        "extract: {} without {target}: the archive written is not whole",
        count(missing.len() as u64, "hard link"),
        target = if missing.len() == 1 {
            "its target"
        } else {
            "their targets"
        }
    )
}

/// One line for each member added because a chosen one needs it.
fn say_needed(needed: &[Needed]) {
    for n in needed {
        say(&message!(
            "extract: also {}: {} needs it (a hard link's target, or the data of its cpio link group)",
            n.path.escaped(),
            n.by.escaped()
        ));
    }
}

/// `--manifest FILE`, for messages.
fn manifest_flag(path: &Path) -> String {
    format!("--manifest {}", path.display())
}

/// The catalog the manifest names, beside it; a usage error when the
/// backup kept none.
fn catalog_path(manifest_path: &Path, manifest: &Manifest) -> Result<PathBuf, Failure> {
    let flag = manifest_flag(manifest_path);
    let Some(catalog) = &manifest.catalog else {
        return Err(Failure::Usage(format!(
            "extract: {flag}: the backup has no catalog (back up with --catalog to make one)"
        )));
    };
    if let Some(why) = &catalog.off {
        return Err(Failure::Usage(format!(
            "extract: {flag}: the backup's catalog was turned off ({why})"
        )));
    }
    catalog
        .path_beside(manifest_path)
        .map_err(|why| Failure::Usage(format!("extract: {flag}: {why}")))
}

/// The line for globs that chose no member.
fn unmatched_line(globs: &[&str]) -> String {
    let quoted: Vec<String> = globs.iter().map(|g| format!("'{g}'")).collect();
    match quoted.len() {
        1 => format!("extract: {}: matches no member", quoted[0]),
        _ => format!("extract: {}: match no member", quoted.join(", ")),
    }
}
