//! One generated archive through the real binary: a backup of it with
//! `--manifest --catalog`, `tapebuf ls` (its text, read back with
//! `listing::unescape`) against `tar tv`, and `tapebuf extract` of one
//! file against `tar xf` of the same file, byte for byte.

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};

use super::listing::{self, unescape, Entry};
use crate::common;

fn tapebuf(dir: &Path, args: &[&str]) -> Result<Output, String> {
    let out = common::tapebuf()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "tapebuf {args:?}: {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `tapebuf ls`'s text: kind, size, time, volume, an 8-column barcode,
/// then the escaped path and ` -> ` a link's target.
fn ls_entries(text: &[u8]) -> Vec<Entry> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|line| {
            let fields: Vec<&[u8]> = line
                .split(|&b| b == b' ')
                .filter(|f| !f.is_empty())
                .collect();
            let kind = match fields[0] {
                b"h" => 'h',
                b"l" => 'l',
                b"d" => 'd',
                b"c" => 'c',
                b"b" => 'b',
                b"p" => 'p',
                _ => '-',
            };
            let rest = &line[path_start(line)..];
            let (name, link) = match rest.windows(4).position(|w| w == b" -> ") {
                Some(i) => (&rest[..i], Some(unescape(&rest[i + 4..]))),
                None => (rest, None),
            };
            let size = std::str::from_utf8(fields[1]).unwrap().parse().unwrap();
            Entry::new(kind, unescape(name), size, link)
        })
        .collect()
}

/// Where the path starts: after four fields, the barcode field padded to
/// 8 columns, and one space.
fn path_start(line: &[u8]) -> usize {
    let mut at = 0;
    for field in 0..5 {
        while line[at] == b' ' {
            at += 1;
        }
        let start = at;
        while line[at] != b' ' {
            at += 1;
        }
        if field == 4 {
            at = at.max(start + 8);
        }
    }
    at + 1
}

/// A file the archive names once, plainly enough to be a glob of itself.
fn plain_file(entries: &[Entry]) -> Option<&Entry> {
    entries.iter().find(|e| {
        e.kind == '-'
            && !e.name.is_empty()
            && !e.name.starts_with(b"./")
            && e.name
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(b))
            && entries.iter().filter(|o| o.name == e.name).count() == 1
    })
}

pub fn check(dir: &Path, archive: &[u8]) -> Result<(), String> {
    let dir = dir.join("binary");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("a.tar"), archive).unwrap();
    tapebuf(
        &dir,
        &[
            "-i",
            "a.tar",
            "-o",
            "out.bin",
            "--manifest",
            "m.json",
            "--catalog",
            "-q",
        ],
    )?;
    let tar = listing::gnu_tar(&dir.join("a.tar")).entries;
    let ls = tapebuf(&dir, &["ls", "--manifest", "m.json"])?;
    let listed = ls_entries(&ls.stdout);
    if listed != tar {
        return Err(format!("ls listed {listed:?}, tar tv {tar:?}"));
    }
    let Some(file) = plain_file(&tar) else {
        return Ok(());
    };
    let name = String::from_utf8(file.name.clone()).unwrap();
    tapebuf(
        &dir,
        &[
            "extract",
            "--manifest",
            "m.json",
            "-o",
            "x.tar",
            "--",
            &name,
        ],
    )?;
    let ours = unpacked(&dir, "x.tar", &name);
    let theirs = unpacked(&dir, "a.tar", &name);
    if ours != theirs {
        return Err(format!("{name}: extract gave {ours:?}, tar xf {theirs:?}"));
    }
    Ok(())
}

/// The bytes of `name` as `tar xf archive name` gives them.
fn unpacked(dir: &Path, archive: &str, name: &str) -> Option<Vec<u8>> {
    let into = dir.join(format!("x-{archive}"));
    let _ = fs::remove_dir_all(&into);
    fs::create_dir(&into).unwrap();
    let out = common::command("tar")
        .current_dir(&into)
        .args(["xf", &format!("../{archive}"), "--", name])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| fs::read(into.join(name)).ok())?
}
