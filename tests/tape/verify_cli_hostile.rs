//! Manifests that contradict themselves or claim the impossible, given to
//! `tapebuf verify` and to a restore with `--manifest`: each is refused
//! before any volume is read, exit status 2, with the field named; and a
//! stream digest is printed only when it was checked.

// Shared with verify_cli.rs, which uses the helpers this file does not.
#[allow(dead_code)]
use crate::verify_cli::backup;

use std::time::{Duration, Instant};

use backup::{verify, Backup};
use xxhash_rust::xxh3::xxh3_64;

/// Rewrites the backup's manifest with `change`.
fn edit(b: &Backup, change: impl FnOnce(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(b.manifest()).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    change(&mut m);
    std::fs::write(b.manifest(), serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

/// Verify and a restore both refuse the manifest, saying `why`, exit 2,
/// and the restore passes on nothing.
fn assert_refused(b: &Backup, why: &str) {
    let (code, lines) = verify(b, &[]);
    assert_eq!(lines, vec![format!("tapebuf: --manifest m.json: {why}")]);
    assert_eq!(code, 2);
    let (code, out, err) = b.restore(&[]);
    assert_eq!(
        err,
        format!("tapebuf: --manifest {}: {why}\n", b.manifest().display())
    );
    assert!(out.is_empty());
    assert_eq!(code, 2);
}

#[test]
fn a_manifest_missing_its_last_volume_is_refused_by_the_sum_of_bytes() {
    let b = Backup::write(2_500_000, 30);
    edit(&b, |m| {
        m["volumes"].as_array_mut().unwrap().pop();
    });
    assert_refused(
        &b,
        "stream.bytes: 2500000 is not the 2097152 bytes the 2 volume entries hold; a volume's entry is missing or wrong",
    );
}

#[test]
fn a_stream_of_one_byte_over_three_volumes_is_refused() {
    let b = Backup::write(2_500_000, 31);
    edit(&b, |m| m["stream"]["bytes"] = 1.into());
    assert_refused(
        &b,
        "stream.bytes: 1 is not the 2500000 bytes the 3 volume entries hold; a volume's entry is missing or wrong",
    );
}

#[test]
fn an_unknown_digest_algorithm_is_refused_not_read_as_xxh3() {
    let b = Backup::write(1_500_000, 32);
    edit(&b, |m| m["digest_algorithm"] = "bogus".into());
    assert_refused(
        &b,
        "digest_algorithm: \"bogus\" is not an algorithm this tapebuf knows (md5, sha256, blake3, xxh3)",
    );
}

#[test]
fn version_zero_is_refused() {
    let b = Backup::write(1_500_000, 33);
    edit(&b, |m| m["version"] = 0.into());
    assert_refused(
        &b,
        "version: 0 is not a manifest version; this tapebuf reads version 1",
    );
}

#[test]
fn repeated_volume_numbers_are_refused() {
    let b = Backup::write(2_500_000, 34);
    edit(&b, |m| m["volumes"][2]["number"] = 2.into());
    assert_refused(
        &b,
        "volumes[2].number: 2, but the volumes are numbered 1, 2, 3, ... in order, so this one is 3",
    );
}

#[test]
fn a_huge_fingerprint_exits_2_at_once_without_an_abort() {
    let b = Backup::write(1_500_000, 35);
    edit(&b, |m| {
        m["volumes"][0]["fingerprint"]["bytes"] = 1_000_000_000_000_000u64.into()
    });
    let started = Instant::now();
    assert_refused(
        &b,
        "volumes[0].fingerprint.bytes: 1000000000000000 is more than the 65536 bytes a fingerprint covers",
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_manifest_file_over_64_mib_is_refused_unread() {
    let b = Backup::write(1_500_000, 36);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(b.manifest())
        .unwrap();
    file.set_len(100 << 20).unwrap();
    assert_refused(
        &b,
        "is 104857600 bytes; a manifest is at most 67108864 bytes (64 MiB, see tapebuf(1), MANIFESTS)",
    );
}

#[test]
fn a_stream_digest_that_does_not_match_the_volumes_is_not_printed_as_checked() {
    let b = Backup::write(2_500_000, 37);
    edit(&b, |m| m["stream"]["digest"] = "0123456789abcdef".into());
    let (code, lines) = verify(&b, &[]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[3],
        format!(
            "tapebuf: verify: all 3 volumes match the manifest (2500000 bytes), but the stream they make has xxh3 {:016x}, not the manifest's 0123456789abcdef",
            xxh3_64(&b.data)
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn the_stream_digest_printed_is_the_one_read() {
    let b = Backup::write(2_500_000, 38);
    let (code, lines) = verify(&b, &[]);
    assert_eq!(
        lines.last().unwrap(),
        &format!(
            "tapebuf: verify: all 3 volumes match the manifest (2500000 bytes, xxh3 {:016x})",
            xxh3_64(&b.data)
        )
    );
    assert_eq!(code, 0);
}
