//! `-- CMD [ARGS...]`, `--to CMD` and `--accept-status`: the commands
//! tapebuf runs beside the stream, checked before anything is opened. A
//! producer whose program cannot be found is a usage error (exit 2) before
//! any output is created, not a failed backup.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::base::child::ChildSpec;
use crate::base::errors::ConfigError;

/// The producer `-- CMD [ARGS...]`, its program found.
pub(super) fn producer(argv: &[OsString], accept: &[u8]) -> Result<ChildSpec, ConfigError> {
    let spec = ChildSpec::program(argv.to_vec(), accept.to_vec());
    let program = argv
        .first()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ConfigError::new("--", "names no command to run (give it after '--')"))?;
    if find_program(program).is_none() {
        return Err(ConfigError::new(
            "--",
            format!(
                "{}: no such program{}",
                program.to_string_lossy(),
                if Path::new(program).components().count() > 1 {
                    " (or it is not executable)"
                } else {
                    " in $PATH"
                }
            ),
        ));
    }
    Ok(spec)
}

/// The consumer `--to CMD`, run by `/bin/sh -c`.
pub(super) fn consumer(line: &str, accept: &[u8]) -> Result<ChildSpec, ConfigError> {
    if line.trim().is_empty() {
        return Err(ConfigError::new("--to", "names no command to run"));
    }
    Ok(ChildSpec::shell(line, accept.to_vec()))
}

/// `--accept-status` without a command to judge.
pub(super) fn check_accept(accept: &[u8], has_command: bool) -> Result<(), ConfigError> {
    if !accept.is_empty() && !has_command {
        return Err(ConfigError::new(
            "--accept-status",
            "judges a command's exit status: give one after '--' or with --to",
        ));
    }
    Ok(())
}

/// Where `program` runs from: itself when it names a path, else the
/// first executable file of that name in `$PATH`.
fn find_program(program: &OsStr) -> Option<PathBuf> {
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if Path::new(program).components().count() > 1 {
        return executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}
