//! Bad input and failures: each gives one clear `tapebuf: ...` line, the
//! documented exit status, and never loses data silently.
//!
//! The cases are grouped by topic in tests/errors/.

use crate::common;
mod alias_matrix;
mod failure_lines;
mod full_disk;
mod inputs;
mod one_identity;
mod outputs;
mod process;
mod restore_files;
mod usage;
mod written_paths;

/// The sha256 of every file at the top of `dir` (through links), by
/// name: what a refused run must leave as it was.
pub fn file_sums(dir: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, common::sha256_file(&e.path()))
        })
        .collect()
}

/// Runs tapebuf in `dir`, with nothing on standard input: its exit code
/// and its standard error.
pub fn run_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = common::tapebuf()
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines of `stderr` that are not the summary.
pub fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("tapebuf: summary: "))
        .collect()
}
