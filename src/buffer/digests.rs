//! The `--hash` digests at the end of a run: printed, and written to
//! `--hash-file` only for a clean run, so that a file of digests never
//! vouches for a stream that ended early. With mbuffer's `-H`/`--md5`, a
//! whole stream's MD5 is printed as mbuffer prints it, `MD5 hash: <hex>`,
//! for the scripts that read that line (`awk '/MD5 hash/ {print $3}'`);
//! an MD5 of part of a stream keeps tapebuf's wording, so that no such
//! script takes it for the whole.

use crate::base::console::{message, say};
use crate::base::create;
use crate::config::Config;
use crate::hash::{Digests, HashAlg};

/// Prints the `--hash` digests (unless -q with --hash-file) and writes
/// `--hash-file` for a clean run. False if the file could not be written.
pub fn report_digests(config: &Config, digests: &Digests, clean: bool) -> bool {
    if config.hashes.is_empty() {
        return true;
    }
    if !config.quiet() || config.hash_file.is_none() || !clean {
        for (line, (alg, digest)) in digests.lines(clean).into_iter().zip(digests.results()) {
            match digest {
                Some(d) if clean && alg == HashAlg::Md5 && config.md5_as_mbuffer => {
                    say(&format!("MD5 hash: {}", d.hex))
                }
                _ => say(&line),
            }
        }
    }
    let Some(path) = &config.hash_file else {
        return true;
    };
    let text = match digests.file_text(&config.hashed_stream_name()) {
        Some(text) if clean => text,
        _ => {
            say(&message!(
                "--hash-file {}: not written, because the run failed",
                path.display()
            ));
            return true;
        }
    };
    match create::write_record(path, text.as_bytes(), create::RECORD_MODE) {
        Ok(()) => true,
        Err(e) => {
            say(&message!(
                "--hash-file {}: cannot write: {e}",
                path.display()
            ));
            false
        }
    }
}
