//! Bad input and failures: each gives one clear `tapebuf: ...` line, the
//! documented exit status, and never loses data silently.
//!
//! The cases are grouped by topic in tests/errors/.

mod common;
#[path = "errors/full_disk.rs"]
mod full_disk;
#[path = "errors/inputs.rs"]
mod inputs;
#[path = "errors/outputs.rs"]
mod outputs;
#[path = "errors/process.rs"]
mod process;
#[path = "errors/restore_files.rs"]
mod restore_files;
#[path = "errors/usage.rs"]
mod usage;
#[path = "errors/written_paths.rs"]
mod written_paths;

/// The lines of `stderr` that are not the summary.
pub fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("tapebuf: summary: "))
        .collect()
}
