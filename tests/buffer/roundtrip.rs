//! Byte-exact round trips through the real binary and real pipes, checked
//! by sha256: many block and ring sizes, inputs that are not a whole number
//! of blocks, slow producers, slow consumers, files and several outputs.

use crate::common;

use std::time::Duration;

use common::*;

fn assert_round_trip(args: &[&str], len: usize, feed: Feed, drain: Drain) {
    let input = pattern(len, len as u64 ^ args.len() as u64);
    let out = run_with(args, input.clone(), feed, drain);
    assert!(
        out.status.success(),
        "{args:?}: {:?} {}",
        out.status,
        out.stderr
    );
    assert_eq!(out.stdout.len(), input.len(), "{args:?}: byte count");
    assert_eq!(sha256(&out.stdout), sha256(&input), "{args:?}: checksum");
    assert_eq!(summary_number(&out.stderr, "in "), len as u64);
    assert_eq!(summary_number(&out.stderr, "out "), len as u64);
}

#[test]
fn copies_stdin_to_stdout_byte_exact_across_block_and_ring_sizes() {
    let cases: &[(&str, &str, usize)] = &[
        ("512", "4k", 100_000),
        ("4k", "8k", 1 << 20),
        ("64k", "1M", 3 << 20),
        ("256k", "4M", 5 << 20),
        ("1M", "2M", 7 << 20),
        ("1M", "64M", 9 << 20),
    ];
    for &(s, m, len) in cases {
        assert_round_trip(&["-s", s, "-m", m], len, Feed::Fast, Drain::Fast);
    }
}

#[test]
fn input_that_is_not_a_whole_number_of_blocks_keeps_its_tail() {
    for len in [0, 1, 4095, 4097, 65_535, 65_537, 3 * 65_536 + 17] {
        assert_round_trip(&["-s", "64k", "-b", "4"], len, Feed::Fast, Drain::Fast);
    }
}

#[test]
fn slow_bursty_producer_is_joined_into_whole_blocks() {
    assert_round_trip(
        &["-s", "64k", "-b", "8"],
        2 << 20,
        Feed::Slow {
            chunk: 7_919,
            pause: Duration::from_micros(300),
        },
        Drain::Fast,
    );
}

#[test]
fn slow_consumer_with_overruns_loses_nothing() {
    let input = pattern(4 << 20, 7);
    let out = run_with(
        &["-s", "16k", "-b", "8", "-P", "50", "-p", "25", "--verbose"],
        input.clone(),
        Feed::Fast,
        Drain::Slow {
            chunk: 32 << 10,
            pause: Duration::from_micros(500),
        },
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
    assert!(summary_count(&out.stderr, "overruns") > 0, "{}", out.stderr);
}

#[test]
fn slow_producer_and_slow_consumer_together() {
    let input = pattern(1 << 20, 11);
    let out = run_with(
        &["-s", "8k", "-b", "16", "-P", "75"],
        input.clone(),
        Feed::Slow {
            chunk: 3_000,
            pause: Duration::from_micros(200),
        },
        Drain::Slow {
            chunk: 5_000,
            pause: Duration::from_micros(200),
        },
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
}

#[test]
fn every_output_gets_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tar");
    let b = dir.path().join("b.tar");
    let c = dir.path().join("c.tar");
    let input = pattern((3 << 20) + 12_345, 3);
    let out = run(
        &[
            "-s",
            "64k",
            "-m",
            "1M",
            "-o",
            a.to_str().unwrap(),
            "-o",
            b.to_str().unwrap(),
            "-o",
            c.to_str().unwrap(),
        ],
        input.clone(),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    for p in [&a, &b, &c] {
        assert_eq!(sha256_file(p), sha256(&input), "{}", p.display());
    }
}

#[test]
fn stdout_and_a_file_together() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("copy");
    let input = pattern(1 << 20, 5);
    let out = run(
        &["-s", "4k", "-b", "4", "-o", "-", "-o", a.to_str().unwrap()],
        input.clone(),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
    assert_eq!(sha256_file(&a), sha256(&input));
}

#[test]
fn reads_a_named_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("home.tar");
    let input = pattern(2_000_000, 9);
    std::fs::write(&src, &input).unwrap();
    let out = run(&["-i", src.to_str().unwrap(), "-s", "32k"], vec![]);
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
}

#[test]
fn force_overwrites_and_append_extends_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out");
    std::fs::write(&path, b"old contents that are longer than the new").unwrap();
    let out = run(&["-f", "-o", path.to_str().unwrap()], b"new".to_vec());
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    let out = run(
        &["--append", "-o", path.to_str().unwrap()],
        b"+more".to_vec(),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), b"new+more");
}

#[test]
fn sync_and_direct_still_write_every_byte() {
    // /var/tmp is a disk filesystem where O_DIRECT usually works; where it
    // does not, tapebuf falls back and must still be byte exact.
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let path = dir.path().join("direct.out");
    let input = pattern((1 << 20) + 1234, 13);
    let out = run(
        &[
            "-c",
            "--direct",
            "-s",
            "64k",
            "-b",
            "4",
            "-o",
            path.to_str().unwrap(),
        ],
        input.clone(),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256_file(&path), sha256(&input));
}

#[test]
fn locked_memory_works_for_a_small_ring() {
    let input = pattern(500_000, 19);
    let out = run(&["-L", "-s", "64k", "-b", "4"], input.clone());
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
}

#[test]
fn quiet_prints_nothing_on_success() {
    let out = run(&["-q"], pattern(10_000, 1));
    assert!(out.status.success());
    assert_eq!(out.stderr, "");
}

#[test]
fn summary_is_one_line_with_bytes_seconds_and_rate_and_verbose_adds_the_counts() {
    for verbose in [false, true] {
        let args: &[&str] = match verbose {
            false => &["-s", "4k"],
            true => &["-s", "4k", "--verbose"],
        };
        let out = run(args, pattern(100_000, 2));
        let lines: Vec<&str> = out.stderr.lines().collect();
        // --verbose also describes the ring at the start.
        assert_eq!(lines.len(), 1 + verbose as usize, "{:?}", out.stderr);
        assert_eq!(verbose, lines[0].starts_with("tapebuf: start: ring of "));
        let line = lines[lines.len() - 1];
        assert!(
            line.starts_with("tapebuf: summary: in 100000 bytes, out 100000 bytes (97.66 KiB), "),
            "{line}"
        );
        assert!(line.contains(" s, "), "{line}");
        assert!(line.contains("/s"), "{line}");
        assert_eq!(
            line.contains("underruns") && line.contains("overruns"),
            verbose,
            "{line}"
        );
    }
}

#[test]
fn output_rate_limit_holds_the_stream_back() {
    // 600 kB at 200 kB/s cannot finish in under 2 s, whatever the machine
    // (one block may pass unpaced). A lower bound cannot flake on a slow
    // machine; speed itself is measured by the benchmarks.
    let input = pattern(600_000, 23);
    let started = std::time::Instant::now();
    let out = run(&["-s", "64k", "-R", "200k"], input.clone());
    let took = started.elapsed();
    assert!(out.status.success(), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
    assert!(took >= Duration::from_secs(2), "took only {took:?}");
}
