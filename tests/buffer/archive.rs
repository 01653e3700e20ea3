//! The archive parser against the real tools: GNU tar (gnu, pax, ustar)
//! and GNU cpio (newc, crc, odc) archive a tree with long names, a long
//! symbolic link target, hard links, empty, sparse and larger files; the
//! parser must list what `tar tv` and `cpio -tv` list, whatever the
//! split, and each member's byte range, cut out alone, must be an archive
//! of that member and nothing else.

mod cpio_tools;
pub(crate) mod differential;
mod tar_tools;

use std::fs;
use std::path::Path;
use std::process::Stdio;

use tapebuf::archive::{Member, Parser};

use crate::common;

/// Names over 100 bytes (one ustar can split), one over 255, a symbolic link
/// target over 100, a hard link, empty, sparse (one with many holes)
/// and larger files.
pub fn tree(root: &Path) {
    let long_dir = root.join("d").join("x".repeat(120)).join("y".repeat(150));
    fs::create_dir_all(&long_dir).unwrap();
    fs::write(long_dir.join("deep"), b"deep\n").unwrap();
    let d = root.join("d");
    // Over 100 bytes, but within ustar's prefix (155) and name (100).
    fs::create_dir(d.join("p".repeat(90))).unwrap();
    fs::write(d.join("p".repeat(90)).join("q".repeat(50)), b"split\n").unwrap();
    fs::write(d.join("n".repeat(110)), b"long name\n").unwrap();
    fs::write(d.join("small"), b"hello\n").unwrap();
    fs::write(d.join("empty"), b"").unwrap();
    fs::hard_link(d.join("small"), d.join("hl")).unwrap();
    std::os::unix::fs::symlink("t".repeat(200), d.join("sl")).unwrap();
    fs::write(d.join("big"), common::pattern(300 << 10, 35)).unwrap();
    shell(root, "truncate -s 10M d/sparse && echo x >> d/sparse");
    // Thirty chunks: more than an old GNU sparse header's four map
    // entries, so its map goes on in extension blocks.
    let holes = "for i in $(seq 0 29); do printf x | dd of=d/holes bs=1 seek=$((i * 65536)) conv=notrunc 2>/dev/null; done";
    shell(root, holes);
}

/// Runs `script` with sh in `dir`: its standard output. `check` asks for
/// success.
pub fn run(dir: &Path, script: &str, stdin: Option<&[u8]>, check: bool) -> Vec<u8> {
    let input = dir.join(".stdin");
    fs::write(&input, stdin.unwrap_or_default()).unwrap();
    let out = common::command("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .stdin(fs::File::open(&input).unwrap())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !check || out.status.success(),
        "{script}: {}: {stderr}",
        out.status
    );
    out.stdout
}

pub fn shell(dir: &Path, script: &str) -> Vec<u8> {
    run(dir, script, None, true)
}

/// The archive parsed in chunks of 1 (small archives), 7, 512, 513,
/// 65536 bytes and whole: the same members every time, a clean end.
pub fn parse(archive: &[u8]) -> (Vec<Member>, Parser) {
    let (members, parser) = parse_in(archive, archive.len());
    let chunks: &[usize] = if archive.len() < 1 << 20 {
        &[1, 7, 512, 513, 65536]
    } else {
        &[7, 512, 513, 65536]
    };
    for &chunk in chunks {
        assert_eq!(parse_in(archive, chunk).0, members, "chunks of {chunk}");
    }
    (members, parser)
}

fn parse_in(archive: &[u8], chunk: usize) -> (Vec<Member>, Parser) {
    let mut parser = Parser::new();
    let mut members = Vec::new();
    for piece in archive.chunks(chunk.max(1)) {
        parser.feed(piece);
        members.extend(parser.take_members());
        assert!(parser.buffered() <= tapebuf::archive::MAX_HEADER_BYTES as usize + 512);
    }
    assert_eq!(parser.finish(), Ok(()));
    (members, parser)
}

/// `(path, size)` from a `tar tv` or `cpio -tv` listing: the size is
/// field `size_field`, the path follows field `path_field` (links cut).
pub fn listing(text: &[u8], size_field: usize, path_field: usize) -> Vec<(String, u64)> {
    let text = String::from_utf8_lossy(text);
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let path = fields[path_field];
            (path.to_string(), fields[size_field].parse().unwrap())
        })
        .collect()
}

/// The parser's `(path, size)` pairs, in stream order.
pub fn pairs(members: &[Member]) -> Vec<(String, u64)> {
    members
        .iter()
        .map(|m| (m.path.to_str().unwrap().to_string(), m.size))
        .collect()
}
