//! `tapebuf ls` as a user runs it: a backup on three file volumes written
//! by the real binary with a manifest, and a catalog beside it (written
//! here with `CatalogWriter`, as a backup with `--catalog` writes it);
//! the members are listed with their volume and barcode, chosen by glob,
//! as text and as the documented JSON, and every refusal is one line and
//! its exit status.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use tapebuf::archive::{Format, Member, MemberKind};
use tapebuf::catalog::CatalogWriter;
use tapebuf::ls::schema::{LsJson, SCHEMA, SCHEMA_VERSION};

use crate::common::{pattern, tapebuf};

/// Members in the catalog: three blocks of it.
const MEMBERS: u64 = 600;
/// Each member's span in the stream.
const SPAN: u64 = 4096;

struct Backup {
    dir: tempfile::TempDir,
}

impl Backup {
    /// 2.5 MB on `v.%02d` in 1 MiB volumes of 64 KiB records, with a
    /// manifest `m.json` naming the catalog `m.catalog`, and barcodes on
    /// volumes 1 and 2.
    fn write() -> Backup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("in.bin"), pattern(2_500_000, 35)).unwrap();
        let out = tapebuf()
            .current_dir(dir.path())
            .args(["-q", "-i", "in.bin", "-o", "v.%02d", "-s", "64k"])
            .args(["--volume-size", "1M", "--manifest", "m.json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let b = Backup { dir };
        b.edit(|m| {
            m["catalog"] =
                serde_json::json!({"file": "m.catalog", "format": "gnu", "members": MEMBERS});
            m["volumes"][0]["barcode"] = "A00001L8".into();
            m["volumes"][1]["barcode"] = "A00002L8".into();
        });
        let mut w = CatalogWriter::create(&b.path("m.catalog"), Format::Gnu).unwrap();
        for i in 0..MEMBERS {
            w.add(&member(i)).unwrap();
        }
        w.finish().unwrap();
        b
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn edit(&self, change: impl FnOnce(&mut serde_json::Value)) {
        let path = self.path("m.json");
        let mut m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        change(&mut m);
        std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    }

    /// `tapebuf ls --manifest m.json ARGS`, run in the backup's directory.
    fn ls(&self, args: &[&str]) -> Output {
        ls(self.dir.path(), &[&["--manifest", "m.json"], args].concat())
    }
}

fn ls(dir: &Path, args: &[&str]) -> Output {
    tapebuf()
        .current_dir(dir)
        .arg("ls")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Member `i`: every tenth a directory `home/uN/`, the others files in it;
/// member 7 a symbolic link.
fn member(i: u64) -> Member {
    let dir = format!("home/u{}/", i / 10);
    let (path, kind) = match i % 10 {
        0 => (dir, MemberKind::Directory),
        7 => (format!("{dir}link{i}"), MemberKind::Symlink),
        _ => (format!("{dir}f{i}.txt"), MemberKind::File),
    };
    Member {
        link: (kind == MemberKind::Symlink).then(|| "../target".into()),
        path: path.into(),
        kind,
        size: if kind == MemberKind::File { i * 3 } else { 0 },
        mtime: 1_700_000_000 + i as i64,
        header_offset: i * SPAN,
        end_offset: (i + 1) * SPAN,
        inode: None,
    }
}

/// `out` failed with `status`, saying only `line` on stderr.
fn refused(out: &Output, status: i32, line: &str) {
    assert_eq!(out.status.code(), Some(status), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), format!("{line}\n"));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn every_member_is_listed_with_its_volume_and_barcode() {
    let b = Backup::write();
    let out = b.ls(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty());
    let listing = text(&out.stdout);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len() as u64, MEMBERS);
    assert_eq!(
        lines[0],
        "d            0 2023-11-14T22:13:20Z   1 A00001L8 home/u0/"
    );
    assert_eq!(
        lines[7],
        "l            0 2023-11-14T22:13:27Z   1 A00001L8 home/u0/link7 -> ../target"
    );
    // Member 300 starts at byte 1228800: volume 2 (from 1048576).
    assert_eq!(
        lines[301],
        "f          903 2023-11-14T22:18:21Z   2 A00002L8 home/u30/f301.txt"
    );
    // Volume 3 has no barcode.
    assert_eq!(
        lines[599],
        "f         1797 2023-11-14T22:23:19Z   3 -        home/u59/f599.txt"
    );
}

#[test]
fn globs_choose_members_and_directories_and_one_that_matches_nothing_is_exit_1() {
    let b = Backup::write();
    let out = b.ls(&["home/u3", "*/f599.txt", "x/*"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "tapebuf: ls: 'x/*': matches no member\n");
    let listing = text(&out.stdout);
    let paths: Vec<&str> = listing
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(paths.len(), 11, "{listing}");
    assert_eq!(paths[0], "home/u3/");
    assert_eq!(paths[9], "home/u3/f39.txt");
    assert_eq!(paths[10], "home/u59/f599.txt");
    let out = b.ls(&["nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn json_is_one_object_of_the_documented_schema() {
    let b = Backup::write();
    let out = b.ls(&["--json", "home/u30/f301.txt", "zz"]);
    assert_eq!(out.status.code(), Some(1));
    let listing: LsJson = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listing.schema, SCHEMA);
    assert_eq!(listing.version, SCHEMA_VERSION);
    assert_eq!(listing.manifest.as_deref(), Some("m.json"));
    assert_eq!(listing.catalog, "m.catalog");
    assert_eq!(listing.format, "gnu");
    assert_eq!(listing.unmatched, ["zz"]);
    assert_eq!(listing.members.len(), 1);
    let m = &listing.members[0];
    assert_eq!(m.path, "home/u30/f301.txt");
    assert_eq!(m.kind, MemberKind::File);
    assert_eq!((m.size, m.mtime), (903, 1_700_000_301));
    assert_eq!((m.header_offset, m.end_offset), (301 * SPAN, 302 * SPAN));
    assert_eq!(m.volume, Some(2));
    assert_eq!(m.barcode.as_deref(), Some("A00002L8"));
    assert_eq!(m.volume_offset, Some(301 * SPAN - (1 << 20)));
    assert_eq!(m.record, Some((301 * SPAN - (1 << 20)) / 65536));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    crate::common::manual::assert_every_field_documented(&value, "LS");
}

#[test]
fn a_catalog_read_alone_has_no_volumes() {
    let b = Backup::write();
    let out = ls(
        b.dir.path(),
        &["--catalog", "m.catalog", "--json", "home/u0/f1.txt"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing: LsJson = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listing.manifest, None);
    let m = &listing.members[0];
    assert_eq!(
        (m.volume, m.barcode.as_deref(), m.record),
        (None, None, None)
    );
    let out = ls(b.dir.path(), &["--catalog", "m.catalog", "home/u0/f1.txt"]);
    assert_eq!(
        text(&out.stdout),
        "f            3 2023-11-14T22:13:21Z   - -        home/u0/f1.txt\n"
    );
}

#[test]
fn a_manifest_without_a_catalog_or_with_it_off_is_exit_2() {
    let b = Backup::write();
    b.edit(|m| {
        m.as_object_mut().unwrap().remove("catalog");
    });
    refused(
        &b.ls(&[]),
        2,
        "tapebuf: ls: --manifest m.json: the backup has no catalog (a backup with --manifest and --catalog makes one)",
    );
    b.edit(|m| m["catalog"] = serde_json::json!({"file": "m.catalog", "members": 0, "off": "byte 1536: not a tar header"}));
    refused(
        &b.ls(&[]),
        2,
        "tapebuf: ls: --manifest m.json: the backup has no catalog: it stopped following the archive at byte 1536: not a tar header",
    );
    b.edit(|m| m["catalog"] = serde_json::json!({"file": "../m.catalog", "members": 0}));
    refused(
        &b.ls(&[]),
        2,
        "tapebuf: ls: --manifest m.json: its catalog \"../m.catalog\" is not a file name in the manifest's directory",
    );
}

#[test]
fn a_missing_catalog_or_manifest_is_exit_2() {
    let b = Backup::write();
    std::fs::remove_file(b.path("m.catalog")).unwrap();
    refused(
        &b.ls(&[]),
        2,
        "tapebuf: ls: catalog m.catalog: cannot read it: No such file or directory",
    );
    let out = ls(b.dir.path(), &["--manifest", "none.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("tapebuf: ls: --manifest none.json: cannot read it"));
}

#[test]
fn a_catalog_damaged_in_its_footer_is_exit_2_and_in_a_block_exit_1_after_the_members_before() {
    let b = Backup::write();
    let path = b.path("m.catalog");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let out = b.ls(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.starts_with("tapebuf: ls: catalog m.catalog: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A byte of the last block's body (the index and a 64-byte-or-less
    // footer follow it; the last block is well over 200 bytes).
    let mut damaged = bytes.clone();
    let at = bytes.len() - 600;
    damaged[at] ^= 0xff;
    std::fs::write(&path, &damaged).unwrap();
    let out = b.ls(&[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("tapebuf: ls: catalog m.catalog: block 2 at byte "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(text(&out.stdout).lines().count(), 512);
}

#[test]
fn an_empty_name_and_a_missing_or_doubled_source_are_usage_errors() {
    let b = Backup::write();
    let out = b.ls(&[""]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .starts_with("tapebuf: ls: '': an empty name (tar would take it as no name at all"),
        "{}",
        text(&out.stderr)
    );
    for args in [
        &[][..],
        &["--manifest", "m.json", "--catalog", "m.catalog"][..],
    ] {
        let out = ls(b.dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&out.stderr).lines().count(),
            1,
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn the_main_help_lists_it() {
    let main = tapebuf().arg("--help").output().unwrap();
    let help = text(&main.stdout);
    assert!(
        help.lines()
            .any(|l| l.split_whitespace().next() == Some("ls")),
        "{help}"
    );
}
