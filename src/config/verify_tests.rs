//! `tapebuf verify` checks its input as the buffer checks a restore of the
//! same input to standard output: the same settings, the same refusals.

use std::sync::Arc;

use clap::Parser;

use super::verify_input;
use crate::cli::verify::VerifyCli;
use crate::cli::Cli;
use crate::config::{Config, MachineInfo};
use crate::hash::HashAlg;
use crate::manifest::{Ledger, Manifest, Recording};

const MACHINE: MachineInfo = MachineInfo {
    physical_memory_bytes: 8 << 30,
};

/// A one-volume backup of a file in `dir`, with blocks of 64 KiB, and its
/// manifest's path.
fn backup(dir: &std::path::Path) -> (String, String) {
    let out = dir.join("out").to_str().unwrap().to_string();
    std::fs::write(&out, b"abc").unwrap();
    let recording = Recording {
        alg: HashAlg::Xxh3,
        verify: false,
        quiet: true,
    };
    let ledger = Ledger::new(recording, 64 << 10, &out);
    ledger.begin(1, &out);
    ledger.record(b"abc");
    ledger.end_volume(0);
    let manifest = dir.join("m.json").to_str().unwrap().to_string();
    ledger.manifest(true, None).save(manifest.as_ref()).unwrap();
    (out, manifest)
}

/// What verify makes of `args`, and what the buffer makes of the restore
/// they stand for, each as its input and settings or its refusal.
fn both(args: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (out, path) = backup(dir.path());
    let manifest = Arc::new(Manifest::load(path.as_ref()).unwrap());
    let mut verify = vec!["tapebuf verify", "--manifest", &path];
    verify.extend_from_slice(args);
    let cli = VerifyCli::try_parse_from(verify).unwrap();
    let verified = match verify_input(&cli, &manifest, MACHINE) {
        Ok((input, settings)) => format!("{input:?} {settings:?}"),
        Err(e) => e.to_string(),
    };
    let mut restore = vec!["tapebuf", "--manifest", &path];
    if !args.contains(&"-i") {
        restore.extend(["-i", &out]);
    }
    if !args.contains(&"-s") {
        restore.extend(["-s", "65536"]);
    }
    restore.extend_from_slice(args);
    let restored = match Config::from_cli(&Cli::try_parse_from(restore).unwrap(), MACHINE) {
        Ok(c) => format!("{:?} {:?}", c.input, c.source),
        Err(e) => e.to_string(),
    };
    (verified, restored)
}

#[test]
fn verify_reads_its_input_as_a_restore_to_standard_output_would() {
    for args in [
        &[][..],
        &[
            "-s",
            "1M",
            "-q",
            "--eject",
            "-A",
            "load",
            "--change-timeout",
            "9",
        ],
        &["--rewind", "--force-local"],
        &[
            "-i",
            "host:/dev/nst0",
            "--timeout",
            "30",
            "--rmt-flavor",
            "bsd",
        ],
    ] {
        let (verified, restored) = both(args);
        assert!(verified.contains("InputSettings"), "{args:?}: {verified}");
        assert_eq!(verified, restored, "{args:?}");
    }
}

#[test]
fn verify_refuses_what_a_restore_refuses_in_the_same_words() {
    for args in [
        &["--timeout", "5"][..],
        &["-A", " "],
        &["--change-timeout", "0"],
        &["-i", "-"],
        &["-i", "v.%d.%d"],
        &["--rsh-command", "ssh"],
        &["-s", "3G"],
        &["-s", "10"],
        &["-i", "host:/dev/nst0", "--timeout", "0"],
        &["-i", "host:/dev/nst0", "-s", "2G"],
    ] {
        let (verified, restored) = both(args);
        assert_eq!(verified, restored, "{args:?}");
        assert!(!verified.contains("InputSettings"), "{args:?}: {verified}");
    }
}
