//! Numbered file volumes whose trailers were lost, copied without
//! attributes, or replaced (issue 45 findings 3 and 4): the marker file
//! beside each volume, the stream digest in every trailer, and a restore
//! that never exits 0 on a set it cannot prove whole.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::common::{self, sha256, summary_line};
use super::{run_detached, write_input};
use tapebuf::volume::trailer_marker;

/// A backup of `len` bytes of `seed` in 1 MiB numbered volumes under
/// `dir`: the pattern's name and the data.
fn backup(dir: &Path, len: usize, seed: u64, extra: &[&str]) -> (String, Vec<u8>) {
    std::fs::create_dir_all(dir).unwrap();
    let (input, data) = write_input(dir, len, seed);
    std::fs::rename(&input, dir.join("data")).unwrap();
    let input = dir.join("data").display().to_string();
    let name = format!("{}/v.%03d", dir.display());
    let mut args = vec!["-s", "64k", "-D", "1M", "-i", &input, "-o", &name];
    args.extend_from_slice(extra);
    let (out, stderr) = run_detached(&args);
    assert!(out.status.success(), "{stderr}");
    (name, data)
}

fn volume(dir: &Path, n: u32) -> PathBuf {
    dir.join(format!("v.{n:03}"))
}

/// Restores `name` into `dir/restored`: exit code, bytes, stderr.
fn restore(name: &str, dir: &Path, extra: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let restored = dir.join("restored");
    let _ = std::fs::remove_file(&restored);
    let r = restored.display().to_string();
    let mut args = vec!["-s", "64k", "-i", name, "-o", &r];
    args.extend_from_slice(extra);
    let (out, stderr) = run_detached(&args);
    let bytes = std::fs::read(&restored).unwrap_or_default();
    (out.status.code(), bytes, stderr)
}

/// Removes the trailer attribute of `path`, as a copy without `-a` does.
fn drop_attribute(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let p = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    let name = std::ffi::CString::new(tapebuf::volume::trailer::XATTR_NAME).unwrap();
    // SAFETY: removexattr(2) reads two NUL-terminated strings alive here.
    let done = unsafe { libc::removexattr(p.as_ptr(), name.as_ptr()) };
    assert_eq!(
        done,
        0,
        "{}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

fn drop_markers(path: &Path) {
    assert!(
        trailer_marker::remove_markers(path).unwrap() > 0,
        "{}",
        path.display()
    );
}

/// `cp` without `-a`: the bytes, not the attributes.
fn plain_cp(from: &Path, to: &Path) {
    let ok = common::command("cp").arg(from).arg(to).status().unwrap();
    assert!(ok.success());
}

fn the_read_failure<'a>(stderr: &'a str, name: &str) -> &'a str {
    let prefix = format!("tapebuf: {name}: read failed at byte ");
    stderr
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no read failure in {stderr}"))
}

#[test]
fn every_volume_has_an_empty_marker_and_cat_of_the_volumes_is_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let (_, data) = backup(dir.path(), 3_500_000, 31, &[]);
    for n in 1..=4 {
        let markers = trailer_marker::markers_beside(&volume(dir.path(), n)).unwrap();
        assert_eq!(markers.len(), 1, "volume {n}");
        let attribute = tapebuf::volume::trailer::read_from_file(&volume(dir.path(), n)).unwrap();
        assert_eq!(attribute.as_ref(), Some(&markers[0].1), "volume {n}");
        assert!(markers[0].1.stream_digest.is_some());
    }
    // The shell's order puts each marker after its volume: still the stream.
    let out = common::command("sh")
        .current_dir(dir.path())
        .args(["-c", "cat v.* > image"])
        .status()
        .unwrap();
    assert!(out.success());
    assert_eq!(
        sha256(&std::fs::read(dir.path().join("image")).unwrap()),
        sha256(&data)
    );
}

#[test]
fn a_copy_without_attributes_restores_from_its_markers_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (_, data) = backup(&dir.path().join("a"), 3_500_000, 32, &[]);
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    let script = format!(
        "cp {}/v.* {}/",
        dir.path().join("a").display(),
        copy.display()
    );
    assert!(common::command("sh")
        .args(["-c", &script])
        .status()
        .unwrap()
        .success());
    assert_eq!(
        tapebuf::volume::trailer::read_from_file(&volume(&copy, 1)).unwrap(),
        None
    );
    let json = dir.path().join("s.json");
    let name = format!("{}/v.%03d", copy.display());
    let (code, bytes, stderr) = restore(
        &name,
        dir.path(),
        &["--summary-json", json.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(sha256(&bytes), sha256(&data));
    assert!(
        summary_line(&stderr).contains("volume 1,2,3,4's trailer was read from its marker file"),
        "{stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(summary["bounded"], true, "{summary}");
}

/// The ways a volume's trailer goes: its attribute (a copy), its marker
/// (deleted), both.
#[derive(Debug, Clone, Copy)]
enum Lost {
    Attribute,
    Marker,
    Both,
}

const ALL_LOST: [Lost; 3] = [Lost::Attribute, Lost::Marker, Lost::Both];

fn lose(path: &Path, lost: Lost) {
    if matches!(lost, Lost::Attribute | Lost::Both) {
        drop_attribute(path);
    }
    if matches!(lost, Lost::Marker | Lost::Both) {
        drop_markers(path);
    }
}

#[test]
fn a_set_whose_third_volume_lost_its_trailer_and_whose_fourth_is_gone_never_exits_0() {
    // issue 45 finding 4 (measured): vol.003 lost its xattr, vol.004 missing
    for lost in ALL_LOST {
        let dir = tempfile::tempdir().unwrap();
        let (name, data) = backup(dir.path(), 3_500_000, 33, &[]);
        lose(&volume(dir.path(), 3), lost);
        std::fs::remove_file(volume(dir.path(), 4)).unwrap();
        let (code, bytes, stderr) = restore(&name, dir.path(), &[]);
        assert_eq!(code, Some(1), "{lost:?}: {stderr}");
        assert_eq!(bytes[..], data[..bytes.len()], "{lost:?}");
        let line = the_read_failure(&stderr, &name);
        match lost {
            Lost::Both => assert!(
                line.ends_with(&format!(
                    "{}: volume 3 has no trailer, but volume 2's says the backup continues onto it: its trailer was lost or it is not this backup's volume, so the stream is not proven past byte 2097152",
                    volume(dir.path(), 3).display()
                )),
                "{line}"
            ),
            _ => assert!(line.contains("cannot open volume 4"), "{lost:?}: {line}"),
        }
    }
}

/// How another backup's volume takes the place of one of ours.
#[derive(Debug, Clone, Copy)]
enum Swap {
    /// `cp other/v.00N v.00N`: into our file, whose attribute stays.
    OverIt,
    /// Ours removed first: the copy has no attribute; our marker stays.
    Instead,
    /// Ours and its marker removed: the copy has no trailer at all.
    InsteadWithoutMarker,
}

#[test]
fn a_volume_replaced_by_another_backups_is_caught_by_the_next_trailer() {
    // issue 45 finding 4 (measured): vol.003 or vol.001 replaced by another
    // backup's volume, copied with plain cp
    let others = tempfile::tempdir().unwrap();
    backup(others.path(), 3_500_000, 35, &[]);
    for n in [1, 3] {
        for swap in [Swap::OverIt, Swap::Instead, Swap::InsteadWithoutMarker] {
            let dir = tempfile::tempdir().unwrap();
            let (name, _) = backup(dir.path(), 3_500_000, 34, &[]);
            let ours = volume(dir.path(), n);
            if !matches!(swap, Swap::OverIt) {
                std::fs::remove_file(&ours).unwrap();
            }
            if matches!(swap, Swap::InsteadWithoutMarker) {
                drop_markers(&ours);
            }
            plain_cp(&volume(others.path(), n), &ours);
            let (code, _, stderr) = restore(&name, dir.path(), &[]);
            assert_eq!(code, Some(1), "volume {n} {swap:?}: {stderr}");
            let line = the_read_failure(&stderr, &name);
            let caught = line.contains("is not the stream its trailer vouches for")
                || line.contains("volume 3 has no trailer, but volume 2's says");
            assert!(caught, "volume {n} {swap:?}: {line}");
        }
    }
}

#[test]
fn a_single_file_whose_trailer_says_cut_fails_its_restore() {
    // issue 45 finding 3: `tapebuf -i out.bin` of a run that was cut (here
    // by the watchdog: its input stalls, held open, after 300,000 bytes)
    let dir = tempfile::tempdir().unwrap();
    let out_bin = dir.path().join("out.bin");
    let manifest = dir.path().join("m.json");
    let mut child = common::tapebuf()
        .args(["-s", "64k", "-W", "1", "-o", out_bin.to_str().unwrap()])
        .arg("--manifest")
        .arg(&manifest)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&common::pattern(300_000, 36)).unwrap();
    let (status, stderr) = common::finish(&mut child);
    drop(stdin);
    assert_eq!(status.code(), Some(1), "{stderr}");
    let t = tapebuf::volume::trailer::read_from_file(&out_bin)
        .unwrap()
        .expect("a trailer");
    assert_eq!(t.ends, tapebuf::volume::Ends::Cut);
    let name = out_bin.display().to_string();
    let (code, bytes, stderr) = restore(&name, dir.path(), &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(t.stream_bytes, 4 * 65536, "the whole blocks committed");
    assert_eq!(bytes.len() as u64, t.stream_bytes);
    assert!(
        the_read_failure(&stderr, &name).ends_with(&format!(
            "{name}: volume 1 is where the backup was cut short when it was written (its run was stopped or lost its input): the stream ends at byte {} and is incomplete",
            t.stream_bytes
        )),
        "{stderr}"
    );
}

#[test]
fn a_copy_without_attributes_of_an_unclean_backup_fails_its_manifest_restore() {
    // issue 45 finding 3: the manifest says "clean": false
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    let a = dir.path().join("a");
    let (_, data) = backup(
        &a,
        2_500_000,
        37,
        &["--manifest", manifest.to_str().unwrap()],
    );
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    m["clean"] = serde_json::Value::Bool(false);
    m["unclean_because"] = "interrupted by SIGINT".into();
    std::fs::write(&manifest, m.to_string()).unwrap();
    // The copy has neither attributes nor markers: nothing but the
    // manifest says where the backup ends.
    for n in 1..=3 {
        drop_attribute(&volume(&a, n));
        drop_markers(&volume(&a, n));
    }
    let name = format!("{}/v.%03d", a.display());
    let (code, bytes, stderr) = restore(
        &name,
        dir.path(),
        &["--manifest", manifest.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(sha256(&bytes), sha256(&data));
    assert!(
        the_read_failure(&stderr, &name).ends_with(
            "the manifest says the backup was not clean (interrupted by SIGINT): the stream read ends at byte 2500000 and is incomplete"
        ),
        "{stderr}"
    );
}

#[test]
fn a_set_with_no_trailer_at_all_restores_but_says_nothing_bounded_it() {
    // issue 45 finding 4: the note was filtered out for file volumes
    let dir = tempfile::tempdir().unwrap();
    let (name, data) = backup(dir.path(), 2_500_000, 38, &[]);
    for n in 1..=3 {
        lose(&volume(dir.path(), n), Lost::Both);
    }
    let json = dir.path().join("s.json");
    let (code, bytes, stderr) = restore(
        &name,
        dir.path(),
        &["--summary-json", json.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(sha256(&bytes), sha256(&data));
    assert!(
        summary_line(&stderr).contains(
            "the 3 volumes had no tapebuf trailer, so nothing said whether the backup goes on"
        ),
        "{stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(summary["bounded"], false, "{summary}");
    assert!(
        summary["unbounded_because"]
            .as_str()
            .unwrap()
            .starts_with("no trailer said where the backup ends"),
        "{summary}"
    );
}

#[test]
fn a_trailer_attribute_longer_than_a_record_still_reads() {
    // issue 45 finding 12: a later version's extra line made it ERANGE
    let dir = tempfile::tempdir().unwrap();
    let (name, data) = backup(dir.path(), 2_500_000, 39, &[]);
    for n in 1..=3 {
        let path = volume(dir.path(), n);
        let t = tapebuf::volume::trailer::read_from_file(&path)
            .unwrap()
            .unwrap();
        let record = t.encode();
        let end = record.iter().position(|&b| b == 0).unwrap();
        let mut text = record[..end].to_vec();
        text.extend_from_slice(format!("label {}\n", "x".repeat(3000)).as_bytes());
        set_attribute(&path, &text);
    }
    let (code, bytes, stderr) = restore(&name, dir.path(), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(sha256(&bytes), sha256(&data));
}

fn set_attribute(path: &Path, value: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    let p = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    let name = std::ffi::CString::new(tapebuf::volume::trailer::XATTR_NAME).unwrap();
    // SAFETY: setxattr(2) reads two NUL-terminated strings and `value`,
    // all alive for the call.
    let done = unsafe {
        libc::setxattr(
            p.as_ptr(),
            name.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    assert_eq!(done, 0, "{}", std::io::Error::last_os_error());
}
