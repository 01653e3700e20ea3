//! `--catalog` end to end on file volumes: GNU tar and GNU cpio piped
//! through tapebuf into numbered volumes with `--manifest --catalog`. The
//! catalog must list what the tools list, each member where `tar -R`
//! puts it, and the checksum of every write of every volume; a stream
//! that is no archive gives exit 0, one line and the manifest's `off`;
//! `--catalog` without a manifest to write beside is refused.

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};

use tapebuf::catalog::Catalog;
use tapebuf::manifest::Manifest;
use xxhash_rust::xxh3::xxh3_64;

use crate::archive::{shell, tree};
use crate::common;

/// The tapebuf arguments every backup here gets.
const BACKUP: &str =
    "-q -o vol.%03d -s 16k --volume-size 64k --manifest m.json --catalog --summary-json s.json";

/// Runs `script` with sh in `dir`, `$TAPEBUF` naming the binary.
fn sh(dir: &Path, script: &str) -> Output {
    common::command("sh")
        .arg("-c")
        .arg(script)
        .env("TAPEBUF", common::BIN)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The volumes' bytes, concatenated: the stream.
fn stream(dir: &Path, manifest: &Manifest) -> Vec<u8> {
    let mut all = Vec::new();
    for v in &manifest.volumes {
        all.extend(fs::read(dir.join(&v.name)).unwrap());
    }
    all
}

/// Every write of every volume has its checksum in the catalog, as the
/// manifest's record runs cut the volume files.
fn check_record_sums(dir: &Path, manifest: &Manifest, catalog: &Catalog) {
    let mut table = Vec::new();
    for v in &manifest.volumes {
        let bytes = fs::read(dir.join(&v.name)).unwrap();
        let mut expected = Vec::new();
        let mut at = 0usize;
        for run in &v.records {
            for _ in 0..run.count {
                let end = at + run.bytes as usize;
                expected.push(xxh3_64(&bytes[at..end]) as u32);
                at = end;
            }
        }
        assert_eq!(at, bytes.len(), "volume {}", v.number);
        let count = expected.len() as u64;
        assert_eq!(catalog.record_sums(v.number, 0, count).unwrap(), expected);
        assert!(catalog.record_sums(v.number, 0, count + 1).is_err());
        table.push((v.number, count));
    }
    assert_eq!(catalog.volumes_with_sums(), table);
    assert!(manifest.volumes.len() >= 3, "spans volumes");
}

/// The manifest and catalog a backup left in `dir`, after it succeeded.
fn backed_up(dir: &Path, out: &Output) -> (Manifest, Catalog) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", out.status);
    let manifest = Manifest::load(&dir.join("m.json")).unwrap();
    let reference = manifest.catalog.clone().expect("a catalog entry");
    assert_eq!(reference.file, "m.catalog");
    assert_eq!(reference.off, None);
    assert!(!reference.on_tape);
    let catalog = Catalog::open(&dir.join("m.catalog")).unwrap();
    assert_eq!(catalog.len(), reference.members);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("s.json")).unwrap()).unwrap();
    assert_eq!(json["catalog"]["members"], reference.members);
    let names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".m."))
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
    (manifest, catalog)
}

#[test]
fn a_gnu_tar_backup_is_catalogued_member_by_member_where_tar_r_puts_them() {
    common::needs::tool("tar", "tar");
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    tree(dir);
    let script = format!("tar -S --format=gnu -cf - d | \"$TAPEBUF\" {BACKUP}");
    let (manifest, catalog) = backed_up(dir, &sh(dir, &script));
    assert_eq!(
        manifest.catalog.as_ref().unwrap().format.as_deref(),
        Some("gnu")
    );
    let bytes = stream(dir, &manifest);
    fs::write(dir.join("archive.tar"), &bytes).unwrap();
    let listed = shell(dir, "tar tf archive.tar");
    let lines = String::from_utf8_lossy(&listed).lines().count() as u64;
    assert_eq!(catalog.len(), lines);
    let blocks: Vec<u64> = String::from_utf8_lossy(&shell(dir, "tar tvRf archive.tar"))
        .lines()
        .filter(|line| !line.contains("Block of NULs"))
        .map(|line| {
            line["block ".len()..line.find(':').unwrap()]
                .parse::<u64>()
                .unwrap()
                * 512
        })
        .collect();
    let offsets: Vec<u64> = catalog
        .members()
        .map(|m| m.unwrap().header_offset)
        .collect();
    assert_eq!(offsets, blocks);
    let end = catalog.end().expect("the archive ended");
    assert!(end <= bytes.len() as u64 && bytes[end as usize - 1024..end as usize] == [0; 1024]);
    assert!(catalog.globals().is_empty());
    check_record_sums(dir, &manifest, &catalog);
}

#[test]
fn a_pax_backup_keeps_its_global_headers_ranges() {
    common::needs::tool("tar", "tar");
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    tree(dir);
    let script =
        format!("tar -S --format=pax --pax-option=comment=hi -cf - d | \"$TAPEBUF\" {BACKUP}");
    let (manifest, catalog) = backed_up(dir, &sh(dir, &script));
    assert_eq!(
        manifest.catalog.as_ref().unwrap().format.as_deref(),
        Some("pax")
    );
    let bytes = stream(dir, &manifest);
    fs::write(dir.join("archive.tar"), &bytes).unwrap();
    let lines = String::from_utf8_lossy(&shell(dir, "tar tf archive.tar"))
        .lines()
        .count();
    assert_eq!(catalog.len(), lines as u64);
    let &[(start, end)] = catalog.globals() else {
        panic!("one global header: {:?}", catalog.globals())
    };
    assert_eq!(bytes[start as usize + 156], b'g');
    let first = catalog.members().next().unwrap().unwrap();
    assert_eq!(end, first.header_offset);
    check_record_sums(dir, &manifest, &catalog);
}

#[test]
fn a_cpio_backup_lists_what_cpio_lists_and_keeps_its_trailer() {
    common::needs::tool("cpio", "cpio");
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    tree(dir);
    let script = format!("find d | cpio -o -H newc 2>/dev/null | \"$TAPEBUF\" {BACKUP}");
    let (manifest, catalog) = backed_up(dir, &sh(dir, &script));
    assert_eq!(
        manifest.catalog.as_ref().unwrap().format.as_deref(),
        Some("cpio_newc")
    );
    let bytes = stream(dir, &manifest);
    fs::write(dir.join("archive.cpio"), &bytes).unwrap();
    let listed = shell(dir, "cpio -t --quiet < archive.cpio");
    let lines = String::from_utf8_lossy(&listed).lines().count();
    assert_eq!(catalog.len(), lines as u64);
    let (start, end) = catalog.trailer().expect("cpio's trailer");
    let trailer = &bytes[start as usize..end as usize];
    assert!(trailer.starts_with(b"070701"));
    assert!(trailer.windows(10).any(|w| w == b"TRAILER!!!"));
    assert!(catalog.end().unwrap() >= end);
    check_record_sums(dir, &manifest, &catalog);
}

#[test]
fn a_stream_that_is_no_archive_turns_the_catalog_off_and_the_backup_succeeds() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    fs::write(dir.join("noise"), common::pattern(300_000, 3)).unwrap();
    let out = sh(dir, &format!("\"$TAPEBUF\" -i noise {BACKUP}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", out.status);
    let off: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("--catalog: off:"))
        .collect();
    assert_eq!(off.len(), 1, "{stderr}");
    assert!(
        off[0].starts_with("tapebuf: --catalog: off: byte 0: "),
        "{stderr}"
    );
    let manifest = Manifest::load(&dir.join("m.json")).unwrap();
    let reference = manifest.catalog.unwrap();
    assert!(reference.off.unwrap().starts_with("byte 0: "));
    assert_eq!(reference.members, 0);
    assert_eq!(manifest.stream.bytes, 300_000);
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("vol."))
        .collect();
    names.sort();
    assert_eq!(names, ["m.json", "noise", "s.json"]);
}

#[test]
fn two_tar_archives_one_after_the_other_turn_the_catalog_off_rather_than_list_half() {
    common::needs::tool("tar", "tar");
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    fs::create_dir_all(dir.join("s")).unwrap();
    fs::create_dir_all(dir.join("d")).unwrap();
    fs::write(dir.join("s/one"), b"one\n").unwrap();
    fs::write(dir.join("d/two"), common::pattern(20_000, 4)).unwrap();
    let out = sh(
        dir,
        &format!("(tar cf - s; tar cf - d) | \"$TAPEBUF\" {BACKUP}"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", out.status);
    assert!(stderr.contains("(a second archive appended?)"), "{stderr}");
    let manifest = Manifest::load(&dir.join("m.json")).unwrap();
    let off = manifest.catalog.unwrap().off.unwrap();
    // GNU tar pads its first archive to 10240 bytes, all zeros.
    assert!(
        off.starts_with("byte 10240: data after the archive's end at byte "),
        "{off}"
    );
    assert!(!dir.join("m.catalog").exists());
}

#[test]
fn catalog_without_a_manifest_to_write_beside_is_refused_in_one_line() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    fs::write(dir.join("in"), b"x").unwrap();
    let cases = [
        (
            "\"$TAPEBUF\" -i in -o out --catalog",
            "--catalog: needs --manifest",
        ),
        (
            "\"$TAPEBUF\" -i in -o out --manifest m.catalog --catalog",
            "--manifest m.catalog: ends in .catalog",
        ),
        (
            "\"$TAPEBUF\" -i in -o out --manifest m.json --catalog --zero-copy=on",
            "--zero-copy=on",
        ),
    ];
    for (script, says) in cases {
        let out = sh(dir, script);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{script}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{script}: {stderr}");
        assert!(stderr.contains(says), "{script}: {stderr}");
    }
    // A restore checks against a manifest; it writes no catalog.
    let out = sh(dir, "\"$TAPEBUF\" -q -i in -o vol.%03d --manifest r.json");
    assert!(out.status.success());
    let out = sh(
        dir,
        "\"$TAPEBUF\" -i vol.%03d --manifest r.json --catalog > /dev/null",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--catalog: catalogs a backup as it is written"),
        "{stderr}"
    );
    assert!(!dir.join("out").exists() && !dir.join("m.json").exists());
}
