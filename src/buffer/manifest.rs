//! The end of a run that records its output: the `--catalog` file ended,
//! the `--verify` line, and the manifest written atomically, also after a
//! failed or stopped run (then marked unclean, with what was committed).

use std::sync::Arc;

use crate::base::console::{message, say};
use crate::config::Config;
use crate::manifest::{CatalogRef, Ledger};
use crate::observe::summary::Summary;
use crate::sink::read_back::verify_line;

/// Ends `--catalog`'s file (already ended where the last volume closed
/// cleanly), for the summary; None without `--catalog`.
pub fn finish_catalog(ledgers: &[Arc<Ledger>]) -> Option<CatalogRef> {
    ledgers.first()?.finish_catalog()
}

/// Says what `--verify` found and writes `--manifest`. False when a
/// volume failed its read-back or the manifest could not be written.
pub fn finish_recording(config: &Config, ledgers: &[Arc<Ledger>], summary: &Summary) -> bool {
    let mut ok = true;
    for ledger in ledgers {
        let failures = ledger.verify_failures();
        if let Some(line) = verify_line(ledger) {
            if !config.quiet() || !failures.is_empty() {
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
            if !config.quiet() {
                say(&message!(
                    "manifest: {} ({}, {} bytes, {} {})",
                    path.display(),
                    crate::base::size::count(manifest.volumes.len() as u64, "volume"),
                    manifest.stream.bytes,
                    manifest.digest_algorithm,
                    manifest.stream.digest
                ));
            }
            ok
        }
        Ok(()) => {
            say(&message!(
                "manifest: {}: written, marked unclean: it holds the {} bytes committed",
                path.display(),
                manifest.stream.bytes
            ));
            ok
        }
        Err(e) => {
            say(&message!(
                "--manifest {}: cannot write it: {e}",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::config::MachineInfo;
    use crate::manifest::{Manifest, Verified};
    use crate::pipeline::stats::Stats;
    use clap::Parser;

    fn config(manifest: &std::path::Path) -> Config {
        let argv = [
            "tapebuf",
            "-q",
            "--verify",
            "-o",
            "/nonexistent/out",
            "--manifest",
        ];
        let cli = Cli::try_parse_from(argv.iter().copied().chain([manifest.to_str().unwrap()]));
        let machine = MachineInfo {
            physical_memory_bytes: 8 << 30,
        };
        Config::from_cli(&cli.unwrap(), machine).unwrap()
    }

    /// A ledger of one volume of `data`, read back as `ok` says.
    fn ledger(config: &Config, data: &[u8], ok: bool) -> Arc<Ledger> {
        let ledger = Ledger::new(config.manifest.recording().unwrap(), 65536, "out");
        ledger.begin(1, "out");
        ledger.record(data);
        ledger.end_volume(0);
        let verified = Verified {
            ok,
            method: "O_DIRECT".into(),
            seconds: 0.5,
            problem: (!ok).then(|| "differs in record 0".to_string()),
            first_bad_byte: (!ok).then_some(0),
        };
        ledger.set_verified(1, verified);
        ledger
    }

    #[test]
    fn a_volume_that_failed_its_read_back_fails_the_run_and_the_manifest_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let config = config(&path);
        let summary = Summary::collect(&Stats::new(4, 1), None, None);
        assert!(summary.is_clean());
        let good = ledger(&config, b"abc", true);
        assert!(finish_recording(&config, &[good], &summary));
        let bad = ledger(&config, b"abc", false);
        assert!(!finish_recording(&config, &[bad], &summary));
        let written = Manifest::load(&path).unwrap();
        let found = written.volumes[0].verified.as_ref().unwrap();
        assert!(!found.ok);
        assert_eq!(found.problem.as_deref(), Some("differs in record 0"));
    }

    #[test]
    fn a_manifest_that_cannot_be_written_fails_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        std::fs::create_dir(&gone).unwrap();
        let config = config(&gone.join("m.json"));
        std::fs::remove_dir(&gone).unwrap();
        let summary = Summary::collect(&Stats::new(4, 1), None, None);
        let good = ledger(&config, b"abc", true);
        assert!(!finish_recording(&config, &[good], &summary));
    }
}
