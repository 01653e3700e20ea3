//! A remote probe through the real GNU rmt server and a stand-in rsh, a
//! remote shell that does not exist, and a probe's JSON fed straight into
//! `tapebuf report`.

use std::process::Stdio;

use crate::common::{self, tapebuf};
use crate::probe_cli::{probe, results, stderr, GNU_RMT};
use tapebuf::probe::schema::TargetKind;

#[test]
fn a_remote_probe_through_gnu_rmt_verifies_and_leaves_the_file_empty() {
    common::needs::tool(GNU_RMT, "tar");
    let dir = tempfile::tempdir().unwrap();
    let remote = dir.path().join("on-the-tape-host");
    let target = format!("localhost:{}", remote.display());
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let out = crate::common::command(common::BIN)
        .args([
            "probe",
            &target,
            "--rsh-command",
            &rsh,
            "--rmt-command",
            GNU_RMT,
        ])
        .args([
            "--sizes", "16k..64k", "--size", "1M", "--runs", "2", "--yes", "--json",
        ])
        .args(["--timeout", "30"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r = results(&out);
    assert_eq!(r.target, target);
    assert_eq!(r.target_kind, TargetKind::Remote);
    assert_eq!(r.results.len(), 3);
    assert!(r.results.iter().all(|s| s.verified), "{r:?}");
    assert_eq!(std::fs::metadata(&remote).unwrap().len(), 0);
}

/// The issue's own pipeline: `tapebuf probe ... --json > probe.json &&
/// tapebuf report probe.json -o probe.svg`. The report reads the probe's
/// real output (not a handcrafted file), draws a dot per size and
/// direction, and names the recommended sizes the probe chose.
#[test]
fn probe_json_goes_straight_into_report_as_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = probe(&[
        work.to_str().unwrap(),
        "--sizes",
        "16k..128k",
        "--size",
        "2M",
        "--runs",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let found = results(&out);
    let json = dir.path().join("probe.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let svg = dir.path().join("probe.svg");
    let report = tapebuf()
        .args([
            "report",
            json.to_str().unwrap(),
            "-o",
            svg.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout).into_owned();
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    assert!(report.stderr.is_empty(), "{}", stderr(&report));
    let picture = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&picture).expect("the report is valid SVG");
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    for label in ["block size", "16k", "128k"] {
        assert!(
            texts.iter().any(|t| t.contains(label)),
            "no '{label}' in {texts:?}"
        );
    }
    let kib = |b: u64| format!("{}k", b >> 10);
    let write = kib(found.recommend.write_block_bytes);
    assert!(
        text.contains(&write),
        "the recommended {write} is not in:\n{text}"
    );
}

#[test]
fn a_remote_shell_that_does_not_exist_is_named_once() {
    let out = probe(&["--rsh-command", "nosuchrsh", "--yes", "host:/tmp/never"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("nosuchrsh").count(), 1, "{err}");
    assert!(
        err.starts_with("tapebuf: probe: host:/tmp/never: ")
            && err.contains("cannot start the remote shell 'nosuchrsh'"),
        "{err}"
    );
}
