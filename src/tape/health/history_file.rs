//! Where a drive's history is kept and how its file is read and written
//! (the rules are in `history.rs`'s header): the state directory from the
//! environment, the serial number as a safe file name, a bounded read of
//! the JSON, and an atomic write.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::VolumeFigures;

/// The file's format number; a file with another is refused.
const FORMAT: u32 = 1;
/// The largest history file read; a larger one is refused as damaged
/// (200 volumes take about 30 KiB).
pub(super) const MAX_FILE_BYTES: u64 = 1 << 20;
/// The most characters of a serial number kept in its file name.
const SERIAL_NAME_CHARS: usize = 64;

/// The file as written.
#[derive(Serialize, Deserialize)]
struct HistoryFile<V> {
    format: u32,
    volumes: V,
}

/// `state_dir` given the values of XDG_STATE_HOME and HOME.
pub(super) fn state_dir_from(
    xdg_state_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(state) = absolute(xdg_state_home) {
        return Some(state.join("tapebuf/drives"));
    }
    absolute(home).map(|h| h.join(".local/state/tapebuf/drives"))
}

/// The file name of the history of the drive with serial `serial`.
pub(super) fn name(serial: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let mut name: String = serial
        .trim()
        .chars()
        .map(|c| if safe(c) { c } else { '_' })
        .take(SERIAL_NAME_CHARS)
        .collect();
    if name.is_empty() || name == "." || name == ".." {
        name = name.replace('.', "_") + "_";
    }
    name + ".json"
}

/// `e` with the file it is about.
fn about(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn damaged(path: &Path, why: impl fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// The volumes in the file at `path`; None if there is no file.
pub(super) fn read(path: &Path) -> io::Result<Option<Vec<VolumeFigures>>> {
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(about(path, e)),
    };
    let mut text = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|e| about(path, e))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(damaged(path, "larger than 1 MiB, not a history"));
    }
    let file: HistoryFile<Vec<VolumeFigures>> =
        serde_json::from_slice(&text).map_err(|e| damaged(path, e))?;
    if file.format != FORMAT {
        return Err(damaged(
            path,
            format!("format {} is not {FORMAT}", file.format),
        ));
    }
    Ok(Some(file.volumes))
}

/// Writes `volumes` as the file at `path`.
pub(super) fn write(path: &Path, volumes: &[VolumeFigures]) -> io::Result<()> {
    let text = serde_json::to_vec_pretty(&HistoryFile {
        format: FORMAT,
        volumes,
    })
    .map_err(io::Error::other)?;
    write_atomically(path, &text).map_err(|e| about(path, e))
}

/// Writes `text` to `path` so that a reader sees the old file or the new
/// one (`base::create::replace_with`: a temporary nobody can name in
/// advance, mode 0600, fsync, rename, fsync of the directory); the
/// directory is created (mode 0700) if missing.
fn write_atomically(path: &Path, text: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    crate::base::create::replace_with(path, text, 0o600)
}
