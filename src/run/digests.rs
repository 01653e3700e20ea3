//! The `--hash` digests at the end of a run: printed, and written to
//! `--hash-file` only for a clean run, so that a file of digests never
//! vouches for a stream that ended early.

use crate::base::console::say;
use crate::config::Config;
use crate::hash::Digests;

/// Prints the `--hash` digests (unless -q with --hash-file) and writes
/// `--hash-file` for a clean run. False if the file could not be written.
pub fn report_digests(config: &Config, digests: &Digests, clean: bool) -> bool {
    if config.hashes.is_empty() {
        return true;
    }
    if !config.quiet || config.hash_file.is_none() || !clean {
        for line in digests.lines(clean) {
            say(&line);
        }
    }
    let Some(path) = &config.hash_file else {
        return true;
    };
    let text = match digests.file_text(&config.hashed_stream_name()) {
        Some(text) if clean => text,
        _ => {
            say(&format!(
                "tapebuf: --hash-file {}: not written, because the run failed",
                path.display()
            ));
            return true;
        }
    };
    match std::fs::write(path, text) {
        Ok(()) => true,
        Err(e) => {
            say(&format!(
                "tapebuf: --hash-file {}: cannot write: {e}",
                path.display()
            ));
            false
        }
    }
}
