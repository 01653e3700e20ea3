//! Where the archive goes: standard output, refused when it is a
//! terminal (an archive is not for reading on a screen), or `-o FILE`,
//! refused when it exists unless `-f`. Either is refused, `-f` or not,
//! when it is one of the files the extract reads (a volume, the catalog,
//! the manifest): `paths.rs` registers them all first.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use super::failure::Failure;
use crate::base::create;

/// How much is gathered before a write(2).
const WRITE_BYTES: usize = 1 << 20;

/// Checks the output before anything is read.
pub fn check(output: Option<&Path>, force: bool) -> Result<(), Failure> {
    match output {
        None if io::stdout().is_terminal() => Err(Failure::Usage(
            "extract: standard output is a terminal; pipe it to 'tar xf -' or name a file with -o"
                .into(),
        )),
        // A dangling symlink is something there too: never created through.
        Some(path) if !force && path.symlink_metadata().is_ok() => Err(Failure::Usage(format!(
            "extract: -o {}: exists; give -f to overwrite it",
            path.display()
        ))),
        Some(path) => match create::foreign_link(path) {
            Some(why) => Err(Failure::Usage(format!(
                "extract: -o {}: {why}",
                path.display()
            ))),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Opens the output (`base::create`): a new file, or with `force` an
/// existing one truncated; a symlink another user owns is never followed.
pub fn open(output: Option<&Path>, force: bool) -> Result<Box<dyn Write>, Failure> {
    let Some(path) = output else {
        return Ok(Box::new(BufWriter::with_capacity(
            WRITE_BYTES,
            io::stdout(),
        )));
    };
    let existing = match force {
        true => create::Existing::Truncate,
        false => create::Existing::Refuse,
    };
    let file: File = create::open_output(path, existing, create::DATA_MODE)
        .map_err(|e| Failure::Failed(format!("extract: -o {}: {e}", path.display())))?;
    Ok(Box::new(BufWriter::with_capacity(WRITE_BYTES, file)))
}
