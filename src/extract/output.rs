//! Where the archive goes: standard output, refused when it is a
//! terminal (an archive is not for reading on a screen), or `-o FILE`,
//! refused when it exists unless `-f`. Either is refused when it is one
//! of the files the extract reads (a volume, the catalog, the manifest):
//! writing it would destroy the backup, `-f` or not.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::failure::Failure;
use crate::base::file_id::Identity;

/// How much is gathered before a write(2).
const WRITE_BYTES: usize = 1 << 20;

/// Checks the output before anything is read; `reads` names each file
/// the extract reads, with what it is ("volume 2", "the catalog").
pub fn check(
    output: Option<&Path>,
    force: bool,
    reads: &[(String, PathBuf)],
) -> Result<(), Failure> {
    let (named, identity) = match output {
        Some(path) => (
            format!("-o {}", path.display()),
            Identity::of_path(path).ok().flatten(),
        ),
        None => ("standard output".to_string(), Identity::of_fd(io::stdout())),
    };
    if let Some(identity) = identity.filter(Identity::holds_data) {
        for (what, path) in reads {
            if Identity::of_path(path).ok().flatten() == Some(identity) {
                return Err(Failure::Usage(format!(
                    "extract: {named}: is {what} of the backup being read ({}); writing it would destroy it",
                    path.display()
                )));
            }
        }
    }
    match output {
        None if io::stdout().is_terminal() => Err(Failure::Usage(
            "extract: standard output is a terminal; pipe it to 'tar xf -' or name a file with -o"
                .into(),
        )),
        Some(path) if !force && path.exists() => Err(Failure::Usage(format!(
            "extract: -o {}: exists; give -f to overwrite it",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Opens the output.
pub fn open(output: Option<&Path>) -> Result<Box<dyn Write>, Failure> {
    let Some(path) = output else {
        return Ok(Box::new(BufWriter::with_capacity(
            WRITE_BYTES,
            io::stdout(),
        )));
    };
    let file: File = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(|e| Failure::Failed(format!("extract: -o {}: {e}", path.display())))?;
    Ok(Box::new(BufWriter::with_capacity(WRITE_BYTES, file)))
}
