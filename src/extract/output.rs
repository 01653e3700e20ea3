//! Where the archive goes: standard output, refused when it is a
//! terminal (an archive is not for reading on a screen), or `-o FILE`,
//! refused when it exists unless `-f`. Either is refused, `-f` or not,
//! when it is one of the files the extract reads (a volume, the catalog,
//! the manifest): `paths.rs` registers them all first.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use super::failure::Failure;

/// How much is gathered before a write(2).
const WRITE_BYTES: usize = 1 << 20;

/// Checks the output before anything is read.
pub fn check(output: Option<&Path>, force: bool) -> Result<(), Failure> {
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
