//! `tapebuf report` on a `--manifest` file: the summary of a real backup
//! (the run, the stream, a line per volume with its records and read-back),
//! an unclean run and a failed read-back said plainly, a newer manifest
//! refused, a manifest that contradicts itself or is too large refused by
//! name, a large honest one summarised, no picture for a manifest, and a
//! reader that closes early.

use crate::common;

use std::path::{Path, PathBuf};

use common::{pattern, tapebuf};
use xxhash_rust::xxh3::xxh3_64;

const STREAM: usize = 3_000_000;
const MIB: usize = 1 << 20;

/// A backup of 3,000,000 pattern bytes into three 1 MiB file volumes in
/// `dir`, verified, with its manifest at `dir/m.json`; and the input.
fn backed_up(dir: &Path) -> (PathBuf, Vec<u8>) {
    let data = pattern(STREAM, 20);
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    let out = tapebuf()
        .current_dir(dir)
        .args(["-i", "in.bin", "-o", "v.%02d", "--volume-size", "1M"])
        .args(["--verify", "--manifest", "m.json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    (dir.join("m.json"), data)
}

fn report(args: &[&Path]) -> (Option<i32>, String, String) {
    let out = tapebuf().arg("report").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn hex(data: &[u8]) -> String {
    format!("{:016x}", xxh3_64(data))
}

/// `volume N: ...` up to the read-back, whose seconds vary.
fn volume_head(dir: &Path, number: usize, data: &[u8], records: &str) -> String {
    format!(
        "volume {number}: {}/v.{number:02}, {}, {records}, 0 filemarks, xxh3 {}, verified ok in ",
        dir.display(),
        match data.len() {
            MIB => "1.00 MiB (1048576 bytes)".to_string(),
            n => format!("881.69 KiB ({n} bytes)"),
        },
        hex(data)
    )
}

/// Runs `tapebuf report` on `manifest`, asserts that it fails with status
/// 1 (a report's invalid input, tapebuf(1), REPORT) and says `why` about
/// it in one line, and returns what it printed on stdout.
fn assert_refused(manifest: &Path, why: &str) -> String {
    let (code, stdout, stderr) = report(&[manifest]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!("tapebuf: report: {}: {why}\n", manifest.display())
    );
    stdout
}

fn edit(path: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    change(&mut value);
    std::fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

#[test]
fn a_verified_backup_is_summarised_run_stream_and_a_line_per_volume() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, data) = backed_up(dir.path());
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let (code, stdout, stderr) = report(&[&manifest]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 9, "{stdout}");
    assert_eq!(lines[0], format!("backup: {}/v.%02d", dir.path().display()));
    assert!(lines[1].starts_with("started: 20"), "{stdout}");
    assert!(lines[1].contains("Z, ended: 20"), "{stdout}");
    assert_eq!(lines[2], "run: clean");
    assert_eq!(
        lines[3],
        format!(
            "written by tapebuf {}, block size 256 KiB, digest xxh3",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(
        lines[4],
        format!("stream: 2.86 MiB (3000000 bytes), xxh3 {}", hex(&data))
    );
    let volumes = [
        (&data[..MIB], "4 x 256 KiB"),
        (&data[MIB..2 * MIB], "4 x 256 KiB"),
        (&data[2 * MIB..], "3 x 256 KiB + 1 x 116416 B"),
    ];
    for (i, (bytes, records)) in volumes.iter().enumerate() {
        let line = lines[5 + i];
        let head = volume_head(dir.path(), i + 1, bytes, records);
        assert!(line.starts_with(&head), "{line}\nnot after\n{head}");
        // O_DIRECT on most disks; the fallback's words on a tmpfs /tmp.
        let method = &recorded["volumes"][i]["verified"]["method"];
        let tail = format!(" ({})", method.as_str().unwrap());
        assert!(line.ends_with(&tail), "{line}");
    }
    assert_eq!(lines[8], "verdict: 3 volumes written and verified");
}

#[test]
fn an_unclean_run_and_its_incomplete_volume_are_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    edit(&manifest, |m| {
        m["clean"] = false.into();
        m["unclean_because"] = "the input failed: Input/output error".into();
        m["volumes"][2]["complete"] = false.into();
        m["volumes"][2].as_object_mut().unwrap().remove("verified");
    });
    let (code, stdout, stderr) = report(&[&manifest]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[2],
        "run: UNCLEAN: the input failed: Input/output error"
    );
    assert!(
        lines[7].ends_with(", INCOMPLETE: the run stopped while writing it, not verified"),
        "{stdout}"
    );
    assert_eq!(
        lines[8],
        "verdict: NOT a good backup: the run was unclean; 1 volume incomplete"
    );
}

#[test]
fn a_failed_read_back_names_the_volume_and_the_first_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    edit(&manifest, |m| {
        m["volumes"][1]["verified"] = serde_json::json!({
            "ok": false,
            "method": "O_DIRECT",
            "seconds": 12.34,
            "problem": "differs in record 2, which starts at byte 524288 of the volume",
            "first_bad_byte": 524288
        });
    });
    let (code, stdout, stderr) = report(&[&manifest]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[6].ends_with(concat!(
            ", verify FAILED: differs in record 2, which starts at byte 524288 of the volume",
            " (first bad byte 524288) (O_DIRECT, 12.3 s)"
        )),
        "{stdout}"
    );
    assert_eq!(
        lines[8],
        "verdict: NOT a good backup: verify failed on volume 2"
    );
}

#[test]
fn a_manifest_of_a_newer_version_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    edit(&manifest, |m| m["version"] = 2.into());
    let stdout = assert_refused(
        &manifest,
        "is manifest version 2; this tapebuf reads up to version 1",
    );
    assert_eq!(stdout, "");
}

#[test]
fn a_manifest_that_claims_the_impossible_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    edit(&manifest, |m| {
        m["volumes"][0]["fingerprint"]["bytes"] = 1_000_000_000_000_000u64.into()
    });
    let stdout = assert_refused(&manifest, "volumes[0].fingerprint.bytes: 1000000000000000 is more than the 65536 bytes a fingerprint covers");
    assert_eq!(stdout, "");
    edit(&manifest, |m| {
        m["volumes"][0]["fingerprint"]["bytes"] = 65536.into();
        m["volumes"].as_array_mut().unwrap().pop();
    });
    assert_refused(&manifest, "stream.bytes: 3000000 is not the 2097152 bytes the 2 volume entries hold; a volume's entry is missing or wrong");
}

#[test]
fn a_manifest_over_64_mib_is_refused_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&manifest)
        .unwrap();
    file.set_len(65 << 20).unwrap();
    let stdout = assert_refused(&manifest, "is 68157440 bytes; a manifest is at most 67108864 bytes (64 MiB, see tapebuf(1), MANIFESTS)");
    assert_eq!(stdout, "");
}

#[test]
fn a_large_honest_manifest_of_ten_thousand_volumes_is_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    edit(&manifest, |m| {
        let first = m["volumes"][0].clone();
        let volumes: Vec<serde_json::Value> = (1..=10_000u32)
            .map(|n| {
                let mut v = first.clone();
                v["number"] = n.into();
                v
            })
            .collect();
        m["volumes"] = volumes.into();
        m["stream"]["bytes"] = (10_000 * MIB as u64).into();
    });
    let size = std::fs::metadata(&manifest).unwrap().len();
    assert!(size < 64 << 20, "{size} bytes");
    let (code, stdout, stderr) = report(&[&manifest]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5 + 10_000 + 1, "{stderr}");
    assert_eq!(
        lines[5 + 10_000],
        "verdict: 10000 volumes written and verified"
    );
}

#[test]
fn a_manifest_has_no_picture_and_asking_for_one_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    let svg = dir.path().join("m.svg");
    let (code, stdout, stderr) = report(&[&manifest, Path::new("-o"), &svg]);
    assert_eq!(code, Some(2));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        format!(
            "tapebuf: report: {}: a manifest has no picture; drop -o {}\n",
            manifest.display(),
            svg.display()
        )
    );
    assert!(!svg.exists());
}

#[test]
fn a_reader_that_closes_after_one_line_ends_the_report_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, _) = backed_up(dir.path());
    // Its stdout is a pipe whose read end is closed before it starts:
    // its first write meets EPIPE.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = tapebuf()
        .arg("report")
        .arg(&manifest)
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");

    // And as a user types it, with `head -1`.
    let out = crate::common::command("bash")
        .arg("-c")
        .arg(format!(
            "'{}' report '{}' | head -1; echo \"status ${{PIPESTATUS[0]}}\"",
            common::BIN,
            manifest.display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = format!("backup: {}/v.%02d\nstatus 0\n", dir.path().display());
    assert_eq!(stdout, first);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr, "");
}
