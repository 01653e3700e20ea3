//! A tree for the plan's tests, archived by the real tools: `d/` with
//! names over 100 bytes, a file with three names (one long), an empty
//! file and a symbolic link with a long target. The archive is parsed and
//! catalogued as `--catalog` does it; an extraction of a subset is checked
//! against what the whole archive gives.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::archive::Parser;
use crate::catalog::{Catalog, CatalogExtras, CatalogWriter};

use super::plan::Tail;

/// Runs `script` with sh in `dir`, `stdin` fed from a file: its status,
/// standard output and standard error.
fn sh(dir: &Path, script: &str, stdin: &[u8]) -> (bool, Vec<u8>, String) {
    let input = tempfile::NamedTempFile::new().unwrap();
    fs::write(input.path(), stdin).unwrap();
    let mut sh = Command::new("sh");
    sh.args(["-c", script])
        .current_dir(dir)
        .stderr(Stdio::piped());
    let out = sh
        .stdin(fs::File::open(input.path()).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), out.stdout, stderr)
}

pub const LONG_LINK: &str = "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL";

/// `d/` with a directory and file under names over 100 bytes, a file
/// with three names (the first, sorted, over 100 bytes), an empty file
/// and a symbolic link with a target over 100 bytes.
fn tree(root: &Path) {
    let deep = root.join("d").join("x".repeat(120));
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("deep"), b"deep\n").unwrap();
    let d = root.join("d");
    fs::write(d.join("n".repeat(110)), b"long name\n").unwrap();
    fs::write(d.join(LONG_LINK), b"three names\n").unwrap();
    fs::hard_link(d.join(LONG_LINK), d.join("hl")).unwrap();
    fs::hard_link(d.join(LONG_LINK), d.join("small")).unwrap();
    fs::write(d.join("empty"), b"").unwrap();
    std::os::unix::fs::symlink("t".repeat(200), d.join("sl")).unwrap();
}

/// An archive of `tree` made by `script` (run in the tree's root).
pub struct Made {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub archive: Vec<u8>,
    pub catalog: Catalog,
    pub tail: Tail,
}

pub fn made(script: &str) -> Made {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    fs::create_dir(&root).unwrap();
    tree(&root);
    let (ok, archive, stderr) = sh(&root, script, b"");
    assert!(ok, "{script}: {stderr}");
    let mut parser = Parser::new();
    parser.feed(&archive);
    parser.finish().unwrap();
    let format = parser.format().unwrap();
    let globals = parser.globals().to_vec();
    let trailer = parser.trailer();
    let path = dir.path().join("a.catalog");
    let mut writer = CatalogWriter::create(&path, format).unwrap();
    for m in parser.take_members() {
        writer.add(&m).unwrap();
    }
    let extras = CatalogExtras {
        globals: globals.clone(),
        trailer,
        end: parser.end(),
        volumes: Vec::new(),
        keys: Vec::new(),
    };
    writer.finish_with(&extras, &mut std::io::empty()).unwrap();
    Made {
        catalog: Catalog::open(&path).unwrap(),
        _dir: dir,
        root,
        archive,
        tail: Tail { globals, trailer },
    }
}

/// Every path under `root`, relative, sorted.
fn walk(root: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            paths.push(path.strip_prefix(root).unwrap().display().to_string());
            if path.is_dir() && !path.is_symlink() {
                dirs.push(path);
            }
        }
    }
    paths.sort();
    paths
}

/// `part` (extracted from the plan's output) holds what `whole` holds
/// under the same names: the same kinds, files' bytes and links'
/// targets, and two names are one file in `part` when they are in `whole`.
pub fn same_members(part: &Path, whole: &Path) {
    let paths = walk(part);
    let mut files = Vec::new();
    for p in &paths {
        let (a, b) = (part.join(p), whole.join(p));
        let (ma, mb) = (
            fs::symlink_metadata(&a).unwrap(),
            fs::symlink_metadata(&b).unwrap(),
        );
        assert_eq!(ma.file_type(), mb.file_type(), "{p}");
        if ma.is_file() {
            assert_eq!(fs::read(&a).unwrap(), fs::read(&b).unwrap(), "{p}");
            files.push((p, ma.ino(), mb.ino()));
        } else if ma.is_symlink() {
            assert_eq!(
                fs::read_link(&a).unwrap(),
                fs::read_link(&b).unwrap(),
                "{p}"
            );
        }
    }
    for (p, part_p, whole_p) in &files {
        for (q, part_q, whole_q) in &files {
            assert_eq!(part_p == part_q, whole_p == whole_q, "{p} and {q}");
        }
    }
}

/// Extracts `archive` with `extract` (a command reading stdin) into a
/// fresh directory `name` beside the tree: it must succeed silently.
pub fn extract(m: &Made, name: &str, extract: &str, archive: &[u8]) -> PathBuf {
    let dir = m.root.parent().unwrap().join(name);
    fs::create_dir(&dir).unwrap();
    let (ok, _, stderr) = sh(&dir, extract, archive);
    let quiet = stderr.lines().all(|l| l.ends_with(" blocks"));
    assert!(ok && quiet, "{extract}: {stderr}");
    dir
}

/// The names `tar tf` lists in `archive`.
pub fn tar_list(m: &Made, archive: &[u8]) -> Vec<String> {
    let (ok, out, stderr) = sh(&m.root, "tar tf -", archive);
    assert!(ok && stderr.is_empty(), "tar tf: {stderr}");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}
