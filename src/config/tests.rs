//! `Config::from_cli` as the user meets it: defaults, sizes, and refusals.

use super::*;
use crate::cli::Cli;
use crate::pace::{PaceRequest, PaceSettings};
use crate::tape::AtEnd;
use clap::Parser;

const MACHINE: MachineInfo = MachineInfo {
    physical_memory_bytes: 8 << 30,
};

fn config(args: &[&str]) -> Result<Config, ConfigError> {
    let mut argv = vec!["tapebuf"];
    argv.extend_from_slice(args);
    Config::from_cli(&Cli::try_parse_from(argv).unwrap(), MACHINE)
}

#[test]
fn defaults_suit_a_tape_drive() {
    let c = config(&[]).unwrap();
    assert_eq!(c.pipeline.block_bytes, 256 * 1024);
    assert_eq!(c.pipeline.memory_bytes(), DEFAULT_MEMORY_BYTES);
    assert_eq!(
        (c.pipeline.high_pct_for(false), c.pipeline.low_pct),
        (0, 100)
    );
    assert_eq!(
        c.pipeline.high_pct_for(true),
        90,
        "a tape waits for a long burst"
    );
    assert_eq!(c.outputs, vec![OutputSpec::Stdout]);
    assert_eq!(c.input, InputSpec::Stdin);
}

#[test]
fn any_two_of_size_memory_blocks_fix_the_third() {
    let c = config(&["-s", "1M", "-m", "64M"]).unwrap();
    assert_eq!((c.pipeline.block_bytes, c.pipeline.blocks), (1 << 20, 64));
    let c = config(&["-s", "64k", "-b", "10"]).unwrap();
    assert_eq!((c.pipeline.block_bytes, c.pipeline.blocks), (64 << 10, 10));
    let c = config(&["-m", "40M", "-b", "10"]).unwrap();
    assert_eq!((c.pipeline.block_bytes, c.pipeline.blocks), (4 << 20, 10));
}

#[test]
fn memory_as_percent_of_ram() {
    let c = config(&["-m", "25%"]).unwrap();
    assert_eq!(c.pipeline.memory_bytes(), 2 << 30);
}

#[test]
fn block_larger_than_memory_names_both_flags() {
    let e = config(&["-s", "2M", "-m", "1M"]).unwrap_err();
    assert_eq!(e.flag, "-s/--block-size");
    assert!(e.why.contains("-m/--memory"), "{e}");
}

#[test]
fn inconsistent_triple_is_refused() {
    let e = config(&["-s", "1M", "-m", "64M", "-b", "10"]).unwrap_err();
    assert!(e.flag.contains("-b/--blocks"), "{e}");
}

#[test]
fn tiny_blocks_and_huge_block_counts_are_refused() {
    let e = config(&["-s", "16"]).unwrap_err();
    assert_eq!(e.flag, "-s/--block-size");
    let e = config(&["-s", "512", "-m", "1G"]).unwrap_err();
    assert!(e.why.contains("at most 131072"), "{e}");
    // Without -m, a small block gets as many blocks as allowed.
    assert_eq!(config(&["-s", "512"]).unwrap().pipeline.blocks, 131072);
}

#[test]
fn single_block_ring_is_refused() {
    assert!(config(&["-s", "1M", "-m", "1M"]).is_err());
    assert!(config(&["-b", "1"]).is_err());
}

#[test]
fn memory_beyond_physical_ram_is_refused() {
    let e = config(&["-m", "9G"]).unwrap_err();
    assert_eq!(e.flag, "-m/--memory");
}

#[test]
fn watermarks_must_be_percentages_and_may_be_combined() {
    let e = config(&["-P", "120"]).unwrap_err();
    assert_eq!(e.flag, "-P/--high-watermark");
    assert!(config(&["-p", "abc"]).is_err());
    let c = config(&["-P", "90", "-p", "20"]).unwrap();
    assert_eq!((c.pipeline.high_pct, c.pipeline.low_pct), (Some(90), 20));
    let c = config(&["-P", "0"]).unwrap();
    assert_eq!(
        c.pipeline.high_pct_for(true),
        0,
        "-P always overrides the tape default"
    );
}

#[test]
fn direct_needs_aligned_blocks() {
    let e = config(&["--direct", "-s", "10000"]).unwrap_err();
    assert_eq!(e.flag, "--direct");
    assert!(config(&["--direct", "-s", "64k"]).is_ok());
}

#[test]
fn rates_accept_sizes_per_second() {
    let c = config(&["--pace"]).unwrap();
    assert_eq!(c.pipeline.pace, PaceRequest::On(PaceSettings::default()));
    let c = config(&["--pace", "112MB:360MB"]).unwrap();
    let range = PaceSettings {
        floor: Some(112_000_000),
        ceiling: Some(360_000_000),
    };
    assert_eq!(c.pipeline.pace, PaceRequest::On(range));
    assert_eq!(
        c.pipeline.high_pct_for(false),
        90,
        "a paced run restarts as a tape"
    );
    let c = config(&["--pace=40M"]).unwrap();
    let floor = Some(40 << 20);
    assert_eq!(c.pipeline.pace_for(false).unwrap().floor, floor);
    assert_eq!(
        config(&["--no-pace"]).unwrap().pipeline.pace_for(true),
        None
    );
    assert_eq!(config(&[]).unwrap().pipeline.pace_for(false), None);
    assert!(
        config(&[]).unwrap().pipeline.pace_for(true).is_some(),
        "on for tapes"
    );
    let capped = config(&["--pace", "50M:200M", "-R", "100M"]).unwrap();
    assert_eq!(
        capped.pipeline.pace_for(false).unwrap().ceiling,
        Some(100 << 20)
    );
    let err = config(&["--pace", "300M:100M"]).unwrap_err();
    assert_eq!(err.flag, "--pace");
    assert!(config(&["--pace", "fast"]).is_err());
    assert!(config(&["--pace", "0"]).is_err());
    assert!(Cli::try_parse_from(["tapebuf", "--pace", "--no-pace"]).is_err());
    let c = config(&["-r", "10M", "-R", "5M/s"]).unwrap();
    assert_eq!(c.pipeline.input_rate_bytes_per_s, Some(10 << 20));
    assert_eq!(c.pipeline.output_rate_bytes_per_s, Some(5 << 20));
    assert!(config(&["-R", "0"]).is_err());
}

#[test]
fn volume_options_are_checked() {
    let e = config(&["-D", "100k", "-o", "x"]).unwrap_err();
    assert_eq!(e.flag, "-D/--volume-size");
    assert!(e.why.contains("smaller than one block"), "{e}");
    let e = config(&["-D", "1G"]).unwrap_err();
    assert!(e.why.contains("standard output"), "{e}");
    let e = config(&["-o", "a%d.%d"]).unwrap_err();
    assert_eq!(e.flag, "-o/--output");
    let e = config(&["-n", "2"]).unwrap_err();
    assert_eq!(e.flag, "-n/--volumes");
    let e = config(&["--direct", "-o", "v.%03d"]).unwrap_err();
    assert_eq!(e.flag, "--direct");
    let c = config(&["-D", "1G", "-o", "v.%03d", "-A", "true", "--eject"]).unwrap();
    assert_eq!(c.sink.volume_size, Some(1 << 30));
    assert_eq!(c.sink.endpoint.at_end, AtEnd::Eject);
    assert_eq!(c.sink.endpoint.change.command.as_deref(), Some("true"));
}

// --manifest and --verify.

fn refusal(args: &[&str]) -> String {
    config(args).unwrap_err().to_string()
}

#[test]
fn a_manifest_that_could_not_be_written_is_refused_before_the_run() {
    assert_eq!(
        refusal(&["-o", "x", "--manifest", "/no/such/dir/m.json"]),
        "--manifest /no/such/dir/m.json: cannot be written: /no/such/dir is not a directory"
    );
}

#[test]
fn a_manifest_describes_one_output_and_whole_volumes() {
    assert_eq!(
        refusal(&["-o", "a", "-o", "b", "--manifest", "m.json"]),
        "--manifest m.json: describes one backup, so it needs exactly one output; 2 are given"
    );
    assert_eq!(
        refusal(&["-o", "a", "--append", "--verify"]),
        "--append: cannot go with --manifest or --verify, which describe and read back whole volumes"
    );
}

#[test]
fn a_manifest_with_neither_an_output_nor_a_tape_or_file_to_check_is_refused() {
    assert_eq!(
        refusal(&["--manifest", "m.json"]),
        "--manifest m.json: needs an output to describe (-o) or a tape or file to check (-i); standard input to standard output has neither"
    );
    assert_eq!(
        refusal(&["-i", "/no/such/file", "--manifest", "/no/such/m.json"]),
        "--manifest /no/such/m.json: cannot read it: No such file or directory (os error 2); a restore checks its input against the manifest and never writes one"
    );
}

#[test]
fn a_restore_with_a_manifest_reads_with_the_backups_block_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    let recording = crate::manifest::Recording {
        alg: HashAlg::Xxh3,
        verify: false,
        quiet: true,
    };
    let ledger = crate::manifest::Ledger::new(recording, 1 << 20, "/dev/nst0");
    // As a recording run does, volume 1 begins with the ledger.
    ledger.begin(1, "/dev/nst0");
    ledger.manifest(true, None).save(&path).unwrap();
    let m = path.to_str().unwrap();
    let c = config(&["-i", "/dev/nst0", "--manifest", m]).unwrap();
    assert_eq!(c.pipeline.block_bytes, 1 << 20);
    let c = config(&["-i", "/dev/nst0", "-s", "64k", "--manifest", m]).unwrap();
    assert_eq!(c.pipeline.block_bytes, 64 << 10);
}
