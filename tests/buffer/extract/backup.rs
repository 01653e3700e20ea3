//! A backup for the extract tests: a small tree archived by the real
//! tool, split by tapebuf into three file volumes with a manifest and
//! the catalog `--catalog` writes beside it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::common;

/// A backup of a small tree on three file volumes of 256 KiB, in records
/// of 16 KiB: `d/mid` (700 000 bytes) spans volumes 1 to 3, `d/z_last`
/// is the archive's last member.
pub struct Backup {
    pub dir: tempfile::TempDir,
}

impl Backup {
    pub fn new() -> Backup {
        Backup::made_with("tar --sort=name --format=gnu -cf full.tar d")
    }

    /// A backup of the tree as `script` archives it into `full.tar`.
    pub fn made_with(script: &str) -> Backup {
        common::needs::tool("tar", "tar");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("d/sub")).unwrap();
        fs::write(root.join("d/a"), b"hello\n").unwrap();
        fs::write(root.join("d/mid"), common::pattern(700_000, 7)).unwrap();
        fs::write(root.join("d/sub/s1"), common::pattern(5000, 8)).unwrap();
        fs::write(root.join("d/sub/s2"), common::pattern(40_000, 9)).unwrap();
        fs::write(root.join("d/sub").join("l".repeat(150)), b"long\n").unwrap();
        fs::write(root.join("d/z_last"), b"last\n").unwrap();
        fs::hard_link(root.join("d/a"), root.join("d/hl")).unwrap();
        sh(root, script);
        Backup::backed_up(dir)
    }

    /// A backup of `archive`, bytes made by hand.
    pub fn of(archive: &[u8]) -> Backup {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("full.tar"), archive).unwrap();
        Backup::backed_up(dir)
    }

    /// `full.tar` in `dir` backed up onto volumes with a catalog.
    fn backed_up(dir: tempfile::TempDir) -> Backup {
        let root = dir.path();
        let out = common::tapebuf()
            .current_dir(root)
            .args([
                "-i", "full.tar", "-o", "vol.%03d", "-D", "256k", "-s", "16k",
            ])
            .args(["--manifest", "home.json", "--catalog", "-q"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Backup { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `tapebuf extract --manifest home.json ARGS -o out.tar`.
    pub fn extract(&self, args: &[&str]) -> Output {
        let _ = fs::remove_file(self.path("out.tar"));
        self.extract_to("out.tar", args)
    }

    /// `tapebuf extract --manifest home.json ARGS -o OUT`.
    pub fn extract_to(&self, out: &str, args: &[&str]) -> Output {
        common::tapebuf()
            .current_dir(self.dir.path())
            .args(["extract", "--manifest", "home.json", "-o", out])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// The files `tar xf` gives from `archive`, by path, with their
    /// checksums.
    pub fn unpacked(&self, archive: &str, names: &[&str]) -> Vec<(String, String)> {
        let script = format!("tar xf ../{archive} {}", names.join(" "));
        self.unpacked_by(archive, &script)
    }

    /// The files `script` unpacks, run in a new directory.
    pub fn unpacked_by(&self, archive: &str, script: &str) -> Vec<(String, String)> {
        let into = self.path(&format!("x-{archive}"));
        let _ = fs::remove_dir_all(&into);
        fs::create_dir(&into).unwrap();
        sh(&into, script);
        let mut found = Vec::new();
        walk(&into, &into, &mut found);
        found.sort();
        found
    }
}

fn walk(root: &Path, dir: &Path, found: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, found);
        } else {
            let name = path.strip_prefix(root).unwrap().display().to_string();
            found.push((name, common::sha256_file(&path)));
        }
    }
}

pub fn sh(dir: &Path, script: &str) {
    let out = common::command("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The last line on stderr: the summary.
pub fn summary(out: &Output) -> String {
    stderr(out).lines().last().unwrap_or_default().to_string()
}

/// What stderr says.
pub fn said(out: &Output) -> Vec<String> {
    stderr(out).lines().map(str::to_string).collect()
}
