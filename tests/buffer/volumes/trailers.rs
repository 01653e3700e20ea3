//! The trailers of file volumes (`user.tapebuf.trailer`), which tell a
//! restore of numbered files where the backup ends, and a restore to a
//! file that checks its manifest and never rewrites it.

use std::path::Path;

use super::common::{self, sha256, summary_line};
use super::{run_detached, write_input};

/// A 3.5 MB backup in 1 MiB numbered volumes under `dir`: the pattern's
/// name and the data.
fn numbered_backup(dir: &Path, extra: &[&str]) -> (String, Vec<u8>) {
    let (input, data) = write_input(dir, 3_500_000, 11);
    let name = format!("{}/v.%03d", dir.display());
    let mut args = vec!["-s", "64k", "-D", "1M", "-i", &input, "-o", &name];
    args.extend_from_slice(extra);
    let (out, stderr) = run_detached(&args);
    assert!(out.status.success(), "{stderr}");
    (name, data)
}

#[test]
fn every_file_volume_carries_a_trailer_saying_whether_the_stream_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    numbered_backup(dir.path(), &[]);
    let trailers: Vec<_> = (1..=4)
        .map(|n| {
            let path = dir.path().join(format!("v.{n:03}"));
            tapebuf::volume::trailer::read_from_file(&path)
                .unwrap()
                .expect("a trailer in the file's extended attribute")
        })
        .collect();
    use tapebuf::volume::Ends;
    let ends: Vec<Ends> = trailers.iter().map(|t| t.ends).collect();
    assert_eq!(
        ends,
        vec![
            Ends::Continues,
            Ends::Continues,
            Ends::Continues,
            Ends::Last
        ]
    );
    assert!(trailers.iter().all(|t| t.backup == trailers[0].backup));
    assert_eq!(trailers[3].stream_bytes, 3_500_000);
}

#[test]
fn a_restore_of_numbered_volumes_missing_the_last_fails_instead_of_ending_short() {
    let dir = tempfile::tempdir().unwrap();
    let (name, data) = numbered_backup(dir.path(), &[]);
    std::fs::remove_file(dir.path().join("v.004")).unwrap();
    let restored = dir.path().join("restored");
    let (out, stderr) = run_detached(&["-s", "64k", "-i", &name, "-o", restored.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot open volume 4 ({}/v.004)",
            dir.path().display()
        )),
        "{stderr}"
    );
    let got = std::fs::read(&restored).unwrap();
    assert_eq!(got.len(), 3 << 20);
    assert_eq!(got[..], data[..got.len()]);
    assert!(
        summary_line(&stderr).contains("bytes read but not committed")
            || stderr.contains("FAILED")
            || stderr.contains("read failed"),
        "{stderr}"
    );
}

#[test]
fn a_restore_to_a_file_checks_the_manifest_and_never_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    let m = manifest.to_str().unwrap();
    let (name, data) = numbered_backup(dir.path(), &["--manifest", m]);
    let before = common::sha256_file(&manifest);
    let restored = dir.path().join("restored");
    let r = restored.to_str().unwrap();
    let (out, stderr) = run_detached(&["-i", &name, "--manifest", m, "-o", r]);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(sha256(&std::fs::read(&restored).unwrap()), sha256(&data));
    assert_eq!(
        common::sha256_file(&manifest),
        before,
        "the manifest is as the backup left it"
    );

    // A byte changed in volume 2: the restore fails against the manifest,
    // which is still not touched.
    let v2 = dir.path().join("v.002");
    let mut bytes = std::fs::read(&v2).unwrap();
    bytes[500_000] ^= 1;
    std::fs::write(&v2, bytes).unwrap();
    std::fs::remove_file(&restored).unwrap();
    let (out, stderr) = run_detached(&["-i", &name, "--manifest", m, "-o", r]);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("volume 2"), "{stderr}");
    assert_eq!(common::sha256_file(&manifest), before);
}

#[test]
fn a_restore_naming_a_manifest_that_is_not_there_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let (name, _) = numbered_backup(dir.path(), &[]);
    let manifest = dir.path().join("missing.json");
    let restored = dir.path().join("restored");
    let (out, stderr) = run_detached(&[
        "-i",
        &name,
        "--manifest",
        manifest.to_str().unwrap(),
        "-o",
        restored.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("tapebuf: --manifest {}: ", manifest.display())),
        "{stderr}"
    );
    assert!(!manifest.exists(), "no manifest was written");
}
