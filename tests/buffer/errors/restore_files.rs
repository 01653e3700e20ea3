//! A restore from files with `--manifest` checks what it reads against the
//! manifest and never writes it: a damaged volume, or a damaged single
//! file named otherwise than in the manifest (a link to it), fails the run
//! with status 1, and the manifest and every volume are left as they were.

use std::path::Path;

use crate::common::*;
use crate::errors::error_lines;
use crate::errors::run_in;

/// Changes one byte of the file at `path`, at `at`.
fn damage(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

/// Backs `src.bin` (3,000,000 pattern bytes) up in `dir` with `args`.
fn back_up(dir: &Path, args: &[&str]) {
    std::fs::write(dir.join("src.bin"), pattern(3_000_000, 33)).unwrap();
    let (code, stderr) = run_in(dir, &[&["-q", "-i", "src.bin"], args].concat());
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_damaged_volume_fails_the_restore_and_the_manifest_is_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    back_up(
        d,
        &[
            "-s",
            "64k",
            "-o",
            "v.%02d",
            "-D",
            "1M",
            "--manifest",
            "m.json",
        ],
    );
    damage(&d.join("v.02"), 500_000);
    let kept = ["m.json", "v.01", "v.02", "v.03"].map(|f| sha256_file(&d.join(f)));
    let args = [
        "-q",
        "-s",
        "64k",
        "-i",
        "v.%02d",
        "-o",
        "back.bin",
        "--manifest",
        "m.json",
    ];
    let (code, stderr) = run_in(d, &args);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        error_lines(&stderr),
        [
            "tapebuf: v.%02d: read failed at byte 2097152: volume 2 (v.02): \
          differs between bytes 0 and 1048576 of the volume"
        ]
    );
    assert_eq!(
        kept,
        ["m.json", "v.01", "v.02", "v.03"].map(|f| sha256_file(&d.join(f)))
    );
}

#[test]
fn a_single_file_restore_through_a_link_checks_against_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    back_up(d, &["-o", "one.bin", "--manifest", "one.json"]);
    damage(&d.join("one.bin"), 2_000_000);
    std::os::unix::fs::symlink("one.bin", d.join("link.bin")).unwrap();
    let kept = ["one.json", "one.bin"].map(|f| sha256_file(&d.join(f)));
    let args = [
        "-q",
        "-i",
        "link.bin",
        "-o",
        "back.bin",
        "--manifest",
        "one.json",
    ];
    let (code, stderr) = run_in(d, &args);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        error_lines(&stderr),
        [
            "tapebuf: link.bin: read failed at byte 3000000: volume 1 (link.bin): \
          differs between bytes 0 and 3000000 of the volume"
        ]
    );
    assert_eq!(
        kept,
        ["one.json", "one.bin"].map(|f| sha256_file(&d.join(f)))
    );
}
