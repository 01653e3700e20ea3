//! `--hash` and `--hash-file` against independent tools: sha256sum and
//! md5sum from coreutils, b3sum, and xxhsum.

use crate::common;

use common::{needs, pattern, run, tapebuf};

/// The first word `tool` prints for `file` (its digest). `tool` was
/// checked with `needs::tool` at the start of the test.
fn digest_by(tool: &[&str], file: &std::path::Path) -> String {
    let out = crate::common::command(tool[0])
        .args(&tool[1..])
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", tool[0]));
    assert!(out.status.success(), "{} failed", tool[0]);
    let text = String::from_utf8(out.stdout).unwrap();
    // xxhsum -H3 prints "XXH3 (file) = hex"; the others "hex  file".
    match text.split_once(" = ") {
        Some((_, hex)) => hex.trim().to_string(),
        None => text.split_whitespace().next().unwrap().to_string(),
    }
}

#[test]
fn every_digest_matches_the_independent_tool() {
    needs::tool("md5sum", "coreutils");
    needs::tool("sha256sum", "coreutils");
    needs::tool("b3sum", "b3sum");
    needs::tool("xxhsum", "xxhash");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    // Not a whole number of blocks, so the short last block is covered.
    std::fs::write(&input, pattern(5 * 1024 * 1024 + 123, 11)).unwrap();
    let out = tapebuf()
        .args([
            "-i",
            input.to_str().unwrap(),
            "-o",
            "/dev/null",
            "-s",
            "64k",
        ])
        .args(["--hash", "md5", "--hash", "sha256", "--hash", "blake3"])
        .args(["--hash", "xxh3", "--hash", "sha256"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    let expected = [
        ("md5", digest_by(&["md5sum"], &input)),
        ("sha256", digest_by(&["sha256sum"], &input)),
        ("blake3", digest_by(&["b3sum"], &input)),
        ("xxh3", digest_by(&["xxhsum", "-H3"], &input)),
    ];
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("tapebuf:")).collect();
    let want: Vec<String> = expected
        .iter()
        .map(|(alg, hex)| format!("{alg}: {hex}"))
        .collect();
    assert_eq!(lines, want, "a repeated --hash is computed once: {err}");
    assert!(err
        .lines()
        .last()
        .unwrap()
        .starts_with("tapebuf: summary: "));
}

#[test]
fn the_hash_file_checks_with_sha256sum() {
    needs::tool("sha256sum", "coreutils");
    let dir = tempfile::tempdir().unwrap();
    let sums = dir.path().join("out.sha256");
    let out = dir.path().join("out.img");
    let r = run(
        &[
            "-o",
            out.to_str().unwrap(),
            "--hash",
            "sha256",
            "--hash-file",
            sums.to_str().unwrap(),
            "-q",
        ],
        pattern(300_000, 5),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert_eq!(r.stderr, "", "-q with --hash-file prints nothing");
    let check = crate::common::command("sha256sum")
        .arg("-c")
        .arg(&sums)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{said}");
    assert!(said.contains(": OK"), "{said}");

    // Change one byte of the output and the check must fail.
    let mut data = std::fs::read(&out).unwrap();
    data[1000] ^= 1;
    std::fs::write(&out, data).unwrap();
    let recheck = crate::common::command("sha256sum")
        .arg("-c")
        .arg(&sums)
        .output()
        .unwrap();
    assert!(!recheck.status.success());
}

#[test]
fn several_digests_go_to_the_hash_file_as_tagged_lines_cksum_checks() {
    needs::tool("cksum", "coreutils");
    let dir = tempfile::tempdir().unwrap();
    let sums = dir.path().join("sums");
    let out = dir.path().join("o");
    let r = run(
        &[
            "-o",
            out.to_str().unwrap(),
            "--hash",
            "md5",
            "--hash",
            "sha256",
            "--hash-file",
            sums.to_str().unwrap(),
        ],
        pattern(10_000, 2),
    );
    assert!(r.status.success(), "{}", r.stderr);
    let text = std::fs::read_to_string(&sums).unwrap();
    assert!(text.starts_with("MD5 ("), "{text}");
    let check = crate::common::command("cksum")
        .arg("-c")
        .arg(&sums)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn a_hash_file_without_a_hash_is_a_usage_error() {
    let r = run(&["--hash-file", "/tmp/x"], Vec::new());
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(
        r.stderr.trim(),
        "tapebuf: --hash-file: needs --hash to say which digest to write"
    );
}

#[test]
fn an_unknown_algorithm_is_a_usage_error_that_lists_the_choices() {
    let r = run(&["--hash", "crc7"], Vec::new());
    assert_eq!(r.status.code(), Some(2));
    assert!(r.stderr.contains("crc7"), "{}", r.stderr);
    assert!(r.stderr.contains("sha256"), "{}", r.stderr);
}

#[test]
#[should_panic(
    expected = "needs `no-such-digest-tool`, which is not installed: apt-get install no-such-package"
)]
fn a_missing_tool_fails_the_test_naming_the_package_to_install() {
    needs::tool("no-such-digest-tool", "no-such-package");
}
