//! The summary line as a person reads it: at most 160 characters for an
//! ordinary run (tar into a file, a plain pipe, numbered volumes), every
//! detail with `--verbose` or after a failure, the copying ring's reasons
//! in plain words, and `--summary-json` keeping all that the short line
//! leaves out.

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use crate::common::{self, pattern, run, summary_line, tapebuf};
use crate::observers::input_file;

/// The most characters an ordinary run's summary line may take.
const GLANCE: usize = 160;

fn assert_short(line: &str) {
    assert!(
        line.chars().count() <= GLANCE,
        "{} characters: {line}",
        line.chars().count()
    );
    for detail in ["underruns", "overruns", "ring", "volumes: #"] {
        assert!(!line.contains(detail), "{detail}: {line}");
    }
}

/// A directory of a few files, some large, to tar.
fn tree(dir: &Path) -> std::path::PathBuf {
    let top = dir.join("home/someone/projects/a-project-with-a-long-name");
    std::fs::create_dir_all(top.join("src")).unwrap();
    for (i, len) in [3_000_000, 700_000, 12_345, 0].into_iter().enumerate() {
        std::fs::write(
            top.join(format!("src/file-{i}.dat")),
            pattern(len, i as u64),
        )
        .unwrap();
    }
    top
}

/// Runs `tapebuf args` in `dir` on a numbered-volume output of 3.5 MB in
/// 1 MiB volumes; returns its stderr.
fn numbered(dir: &Path, args: &[&str]) -> String {
    let input = input_file(dir, 3_500_000);
    let name = format!("{}/backup.%03d.tar", dir.display());
    let mut all = vec!["-s", "64k", "-D", "1M", "-i", &input, "-o", &name];
    all.extend(args);
    let out = tapebuf().args(&all).stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    stderr
}

#[test]
fn tar_into_a_file_gives_one_summary_line_of_at_most_160_characters() {
    common::needs::tool("tar", "tar");
    let dir = tempfile::tempdir().unwrap();
    let top = tree(dir.path());
    let archive = dir.path().join("backup-of-a-project.tar");
    let mut tar = crate::common::command("tar")
        .args(["cf", "-", "-C"])
        .arg(&top)
        .arg(".")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = tapebuf()
        .arg("-o")
        .arg(&archive)
        .stdin(tar.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(tar.wait().unwrap().success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let line = summary_line(&stderr);
    assert_short(line);
    let size = std::fs::metadata(&archive).unwrap().len();
    assert!(size > 3_700_000, "{size}");
    assert!(
        line.starts_with(&format!(
            "tapebuf: summary: in {size} bytes, out {size} bytes ("
        )),
        "{line}"
    );
}

#[test]
fn a_plain_pipe_and_numbered_volumes_give_short_summaries() {
    let out = run(&["-s", "64k", "-b", "4"], pattern(3_000_000, 5));
    assert!(out.status.success(), "{}", out.stderr);
    assert_short(summary_line(&out.stderr));

    let dir = tempfile::tempdir().unwrap();
    let stderr = numbered(dir.path(), &[]);
    let line = summary_line(&stderr);
    assert_short(line);
    assert!(line.ends_with("/backup.%03d.tar: 4 volumes"), "{line}");
}

#[test]
fn verbose_gives_the_counts_every_volume_and_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = numbered(dir.path(), &["--verbose"]);
    let line = summary_line(&stderr);
    assert!(line.contains(" underruns, "), "{line}");
    assert!(line.contains(" overruns; "), "{line}");
    let name = format!("{}/backup.%03d.tar", dir.path().display());
    assert!(
        line.contains(&format!(
            "; -o {name} volumes: #1 1048576 bytes, #2 1048576 bytes, #3 1048576 bytes, #4 354272 bytes; "
        )),
        "{line}"
    );
    assert!(
        line.ends_with(&format!(
            "; copying ring, because -o {name} spans volumes, which tapebuf cuts itself"
        )),
        "{line}"
    );
}

#[test]
fn the_summary_json_keeps_what_the_short_line_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let stderr = numbered(dir.path(), &["--summary-json", json.to_str().unwrap()]);
    let line = summary_line(&stderr);
    assert_short(line);
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["line"], line);
    assert!(v["underruns"].is_u64() && v["overruns"].is_u64(), "{v}");
    assert_eq!(v["tape_output"], false);
    assert_eq!(v["uncommitted_bytes"], 0);
    assert_eq!(v["pad_bytes"], 0);
    assert_eq!(v["ring"]["kind"], "copying");
    assert_eq!(v["ring"]["pipes"], 0);
    let name = format!("{}/backup.%03d.tar", dir.path().display());
    assert_eq!(
        v["ring"]["why"],
        format!("-o {name} spans volumes, which tapebuf cuts itself")
    );
    assert_eq!(
        v["volume_bytes"],
        serde_json::json!([{
            "endpoint": format!("-o {name}"),
            "bytes": [1048576, 1048576, 1048576, 354272],
        }])
    );
}

#[test]
fn the_copying_rings_reasons_are_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.tar");
    let file = file.to_str().unwrap();
    let manifest = dir.path().join("m.json");
    let manifest = manifest.to_str().unwrap();
    // Not `file`: the runs before leave it a backup's volume, with a
    // trailer, which --append refuses to grow.
    let plain = dir.path().join("plain.tar");
    std::fs::write(&plain, b"").unwrap();
    let plain = plain.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["-f", "-o", file, "--manifest", manifest],
            "--manifest hashes every byte",
        ),
        (
            &["-f", "-o", file, "--verify"],
            "--verify keeps a checksum of every record, to compare the read-back",
        ),
        (&["--hash", "md5"], "--hash reads every byte"),
        (&["--zero-copy=off"], "--zero-copy=off asks for it"),
        (
            &["-o", plain, "--append"],
            &format!("-o {plain} is open for appending, which splice(2) refuses"),
        ),
    ];
    for (args, why) in cases {
        let all = [&["--verbose", "-s", "64k", "-b", "4"], args].concat();
        let out = run(&all, pattern(300_000, 8));
        assert!(out.status.success(), "{args:?}: {}", out.stderr);
        let line = summary_line(&out.stderr);
        assert!(
            line.ends_with(&format!("; copying ring, because {why}")),
            "{args:?}: {line}"
        );
    }
}

#[test]
fn a_failed_run_says_what_was_not_committed_and_gives_every_detail() {
    let out = run(
        &["-s", "64k", "-b", "4", "-o", "/dev/full"],
        pattern(1 << 20, 9),
    );
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let line = summary_line(&out.stderr);
    assert!(line.contains(", out 0 bytes (0 B), "), "{line}");
    assert!(line.contains(" underruns, "), "{line}");
    assert!(
        line.contains(
            "; copying ring, because -o /dev/full is not a pipe, a socket or a regular file; "
        ),
        "{line}"
    );
    assert!(line.contains("; FAILED /dev/full: "), "{line}");
    let read = common::summary_number(&out.stderr, "in ");
    assert!(read > 0, "{line}");
    assert!(
        line.ends_with(&format!("; {read} bytes read but not committed")),
        "{line}"
    );
}
