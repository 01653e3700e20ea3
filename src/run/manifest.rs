//! The end of a run that records its output: the `--verify` line, and the
//! manifest written atomically, also after a failed or stopped run (then
//! marked unclean, with what was committed).

use std::sync::Arc;

use crate::base::console::say;
use crate::config::Config;
use crate::manifest::Ledger;
use crate::observe::summary::Summary;
use crate::sink::read_back::verify_line;

/// Says what `--verify` found and writes `--manifest`. False when a
/// volume failed its read-back or the manifest could not be written.
pub fn finish_recording(config: &Config, ledgers: &[Arc<Ledger>], summary: &Summary) -> bool {
    let mut ok = true;
    for ledger in ledgers {
        let failures = ledger.verify_failures();
        if let Some(line) = verify_line(ledger) {
            if !config.quiet || !failures.is_empty() {
                say(&line);
            }
        }
        ok &= failures.is_empty();
    }
    let (Some(path), Some(ledger)) = (config.manifest.written(), ledgers.first()) else {
        return ok;
    };
    let clean = summary.is_clean();
    let manifest = ledger.manifest(clean, (!clean).then(|| unclean_because(summary)));
    match manifest.save(path) {
        Ok(()) if clean => {
            if !config.quiet {
                say(&format!(
                    "tapebuf: manifest: {} ({} volume(s), {} bytes, {} {})",
                    path.display(),
                    manifest.volumes.len(),
                    manifest.stream.bytes,
                    manifest.digest_algorithm,
                    manifest.stream.digest
                ));
            }
            ok
        }
        Ok(()) => {
            say(&format!(
                "tapebuf: manifest: {}: written, marked unclean: it holds the {} bytes committed",
                path.display(),
                manifest.stream.bytes
            ));
            ok
        }
        Err(e) => {
            say(&format!(
                "tapebuf: --manifest {}: cannot write it: {e}",
                path.display()
            ));
            false
        }
    }
}

/// Why the run was not clean, in a few words, for the manifest.
fn unclean_because(summary: &Summary) -> String {
    if let Some(sig) = summary.interrupted_by {
        return format!("interrupted by {sig}");
    }
    if let Some(why) = &summary.stalled {
        return why.clone();
    }
    if let Some(e) = &summary.input_error {
        return e.clone();
    }
    if let Some(f) = summary.failed_outputs.first() {
        return f.clone();
    }
    format!(
        "{} bytes were read but not committed",
        summary.uncommitted_bytes()
    )
}
