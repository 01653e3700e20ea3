//! A disk that fills in the middle of a block: the summary counts exactly
//! the bytes the disk holds, for one file and for numbered volumes. Needs
//! root (a private mount namespace with a small tmpfs).

use std::process::Stdio;

use crate::common::*;

/// Runs tapebuf in a private mount namespace whose `disk` is a 5 MiB
/// tmpfs, writing `input` to `disk/NAME` with 3000-byte blocks, so the
/// disk fills in the middle of a block. Returns the status, stderr, and
/// the bytes that reached the disk, file by file (copied off it before
/// the namespace goes).
#[track_caller]
fn fill_a_small_disk(input: &[u8], name: &str) -> (std::process::ExitStatus, String, Vec<Vec<u8>>) {
    fill_a_small_disk_and(input, name, "")
}

/// [`fill_a_small_disk`] with `more` (shell words) after its `-o`.
#[track_caller]
fn fill_a_small_disk_and(
    input: &[u8],
    name: &str,
    more: &str,
) -> (std::process::ExitStatus, String, Vec<Vec<u8>>) {
    needs::root("unshare --mount and mount a small tmpfs");
    needs::tool("unshare", "util-linux");
    let dir = tempfile::tempdir().unwrap();
    let input_path = dir.path().join("in");
    std::fs::write(&input_path, input).unwrap();
    let (mnt, keep) = (dir.path().join("disk"), dir.path().join("kept"));
    std::fs::create_dir(&mnt).unwrap();
    std::fs::create_dir(&keep).unwrap();
    let script = format!(
        "mount -t tmpfs -o size=5m none {mnt} && {bin} -s 3000 -i {input} -o '{mnt}/{name}' {more}; s=$?; cp {mnt}/* {keep}/; exit $s",
        mnt = mnt.display(),
        keep = keep.display(),
        bin = BIN,
        input = input_path.display(),
    );
    let out = crate::common::command("unshare")
        .args(["--mount", "sh", "-c", &script])
        .stdin(Stdio::null())
        .output()
        .expect("unshare(1) from util-linux; needs root");
    let mut names: Vec<_> = std::fs::read_dir(&keep)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let files = names.iter().map(|p| std::fs::read(p).unwrap()).collect();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        files,
    )
}

/// The "out N bytes" count of the summary line.
fn out_count(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("tapebuf: summary: "))
        .and_then(|l| l.split("out ").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary in {stderr}"))
}

#[test]
fn a_disk_that_fills_mid_block_counts_exactly_the_bytes_it_holds() {
    let data = pattern(6 << 20, 31);
    let (status, stderr, files) = fill_a_small_disk(&data, "backup");
    assert_eq!(status.code(), Some(1), "{stderr}");
    let held = &files[0];
    assert_eq!(held[..], data[..held.len()]);
    assert_ne!(held.len() % 3000, 0, "the disk filled mid-block");
    assert_eq!(out_count(&stderr), held.len() as u64, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "write failed at byte {}: No space left",
            held.len()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("bytes read but not committed"), "{stderr}");
}

#[test]
fn numbered_volumes_on_a_full_disk_agree_with_the_summary_total() {
    let data = pattern(6 << 20, 32);
    let (status, stderr, files) = fill_a_small_disk(&data, "w.%02d");
    assert_eq!(status.code(), Some(1), "{stderr}");
    let held: Vec<u8> = files.concat();
    assert_eq!(held[..], data[..held.len()]);
    assert_eq!(out_count(&stderr), held.len() as u64, "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("tapebuf: summary: "))
        .unwrap();
    assert!(
        line.contains(&format!("volumes: #1 {} bytes", files[0].len())),
        "{line}"
    );
}

#[test]
fn with_one_output_full_the_summary_counts_what_every_output_holds() {
    // The other output takes every byte; "out" is still the full disk's
    // count, and the full output is named with its byte.
    let data = pattern(6 << 20, 33);
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let more = format!("-o '{}'", good.display());
    let (status, stderr, files) = fill_a_small_disk_and(&data, "backup", &more);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(sha256_file(&good), sha256(&data));
    let held = &files[0];
    assert_eq!(held[..], data[..held.len()]);
    assert!(held.len() < data.len());
    assert_eq!(out_count(&stderr), held.len() as u64, "{stderr}");
    let line = summary_line(&stderr);
    let failed = format!("/disk/backup: write failed at byte {}", held.len());
    assert!(line.contains("FAILED ") && line.contains(&failed), "{line}");
    let lost = data.len() - held.len();
    assert!(
        line.ends_with(&format!("; {lost} bytes read but not committed")),
        "{line}"
    );
}
