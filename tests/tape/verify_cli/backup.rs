//! A backup on numbered file volumes, written by the real binary with a
//! manifest, and the damage the tests do to it.

use std::path::PathBuf;

use super::common::{pattern, tapebuf};

/// `--volume-size` of every backup here.
pub const VOLUME: u64 = 1 << 20;

pub struct Backup {
    pub dir: tempfile::TempDir,
    pub data: Vec<u8>,
}

impl Backup {
    /// Writes `len` pattern bytes to `v.%02d` in 1 MiB volumes, 64 KiB
    /// blocks, with a manifest.
    pub fn write(len: usize, seed: u64) -> Backup {
        let dir = tempfile::tempdir().unwrap();
        let data = pattern(len, seed);
        std::fs::write(dir.path().join("in.bin"), &data).unwrap();
        let out = tapebuf()
            .current_dir(dir.path())
            .args(["-q", "-i", "in.bin", "-o", "v.%02d", "-s", "64k"])
            .args(["--volume-size", "1M", "--manifest", "m.json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Backup { dir, data }
    }

    pub fn pattern(&self) -> String {
        self.dir.path().join("v.%02d").display().to_string()
    }

    pub fn path(&self, n: u32) -> PathBuf {
        self.dir.path().join(format!("v.{n:02}"))
    }

    pub fn name(&self, n: u32) -> String {
        self.path(n).display().to_string()
    }

    /// Volume `n` as the manifest names it: absolutely, although the
    /// backup was written with a relative name.
    pub fn short(&self, n: u32) -> String {
        self.name(n)
    }

    pub fn manifest(&self) -> PathBuf {
        self.dir.path().join("m.json")
    }

    /// Flips every bit of one byte of volume `n`.
    pub fn flip(&self, n: u32, at: u64) {
        let mut bytes = std::fs::read(self.path(n)).unwrap();
        bytes[at as usize] ^= 0xff;
        std::fs::write(self.path(n), bytes).unwrap();
    }

    pub fn truncate(&self, n: u32, len: u64) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(self.path(n))
            .unwrap();
        file.set_len(len).unwrap();
    }

    pub fn swap(&self, a: u32, b: u32) {
        let tmp = self.dir.path().join("swap");
        std::fs::rename(self.path(a), &tmp).unwrap();
        std::fs::rename(self.path(b), self.path(a)).unwrap();
        std::fs::rename(&tmp, self.path(b)).unwrap();
    }

    /// Marks the manifest as a run that did not end cleanly.
    pub fn mark_unclean(&self, why: &str) {
        let text = std::fs::read_to_string(self.manifest()).unwrap();
        let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
        m["clean"] = serde_json::Value::Bool(false);
        m["unclean_because"] = serde_json::Value::String(why.into());
        std::fs::write(self.manifest(), m.to_string()).unwrap();
    }

    /// `tapebuf -i v.%02d --manifest m.json ARGS > stdout`: the exit
    /// code, standard output and standard error.
    pub fn restore(&self, args: &[&str]) -> (i32, Vec<u8>, String) {
        let out = tapebuf()
            .args(["-i", &self.pattern(), "--manifest"])
            .arg(self.manifest())
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code().unwrap_or(-1), out.stdout, err)
    }

    /// Asserts an "ok" line for volume `n` of `bytes`.
    pub fn assert_ok_line(&self, line: &str, n: u32, bytes: u64) {
        let head = format!(
            "tapebuf: verify: volume {n} ({}): ok, {bytes} bytes, ",
            self.short(n)
        );
        assert!(line.starts_with(&head) && line.ends_with(" s"), "{line}");
    }
}

/// `tapebuf verify --manifest m.json ARGS` in the backup's directory, a
/// process of its own with no -i: the exit code and the lines on
/// standard error.
pub fn verify(b: &Backup, args: &[&str]) -> (i32, Vec<String>) {
    let out = tapebuf()
        .current_dir(b.dir.path())
        .args(["verify", "--manifest", "m.json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines = err.lines().map(str::to_string).collect();
    (out.status.code().unwrap_or(-1), lines)
}
