//! What each tool lists, read back into one shape: GNU tar
//! (`tar --numeric-owner --quoting-style=escape -tvf`), bsdtar (`bsdtar
//! -tvf`), GNU cpio (`cpio -itv`, names raw) and `tapebuf ls`, all with
//! `LC_ALL=C` and `TZ=UTC`. An entry is a kind letter as `tar tv` shows
//! it (`-` file, `h` hard link, `l`, `d`, `c`, `b`, `p`), the name's
//! bytes, the size for files, and a link's target.

use std::path::Path;
use std::process::Stdio;

use tapebuf::archive::{Member, MemberKind};

#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: char,
    pub name: Vec<u8>,
    /// Compared for files only: for the other kinds the tools show the
    /// header's size field, which is no data.
    pub size: Option<u64>,
    pub link: Option<Vec<u8>>,
    /// The size column whatever the kind (not compared).
    raw_size: u64,
}

impl Entry {
    pub fn new(kind: char, name: Vec<u8>, size: u64, link: Option<Vec<u8>>) -> Entry {
        Entry {
            kind,
            name,
            size: (kind == '-').then_some(size),
            link,
            raw_size: size,
        }
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        (self.kind, &self.name, self.size, &self.link)
            == (other.kind, &other.name, other.size, &other.link)
    }
}

/// A tool's listing: whether it ran cleanly, and its entries.
#[derive(Debug)]
pub struct Listing {
    pub ok: bool,
    pub entries: Vec<Entry>,
    pub stderr: String,
}

fn run(program: &str, args: &[&str], path: &Path) -> (bool, Vec<u8>, String) {
    // std's Command, not common::command: without a pre_exec hook std
    // starts the child with posix_spawn (no fork of this many-threaded
    // test), which is what lets ten thousand archives be listed twice in
    // the time bound. A tool listing a small regular file cannot hang.
    let out = std::process::Command::new(program)
        .args(args)
        .arg(path)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Clean: exit 0 and nothing said (bsdtar says "Damaged tar archive"
    // and resynchronises, GNU tar warns of a lone zero block, both with
    // exit 0).
    (
        out.status.success() && stderr.is_empty(),
        out.stdout,
        stderr,
    )
}

pub fn gnu_tar(path: &Path) -> Listing {
    let args = ["--numeric-owner", "--quoting-style=escape", "-tvf"];
    let (ok, out, stderr) = run("tar", &args, path);
    let entries = lines(&out)
        .filter_map(|l| entry(l, 5, true))
        .filter(|e| e.kind != 'V')
        .collect();
    Listing {
        ok,
        entries,
        stderr,
    }
}

pub fn bsdtar(path: &Path, cpio: bool) -> Listing {
    let (ok, out, stderr) = run("bsdtar", &["-tvf"], path);
    let entries = lines(&out)
        .filter_map(|l| entry(l, 8, true))
        .map(|mut e| {
            // bsdtar shows a newc hard link to an earlier name of the
            // same file as `link to`; cpio lists it as a file.
            if cpio && e.kind == 'h' {
                e.kind = '-';
                e.link = None;
                e.size = Some(e.raw_size);
            }
            e
        })
        .collect();
    Listing {
        ok,
        entries,
        stderr,
    }
}

pub fn cpio(path: &Path) -> Listing {
    let (ok, out, stderr) = run("cpio", &["-itv", "--quiet", "-F"], path);
    let entries = lines(&out).filter_map(|l| entry(l, 8, false)).collect();
    Listing {
        ok,
        entries,
        stderr,
    }
}

fn lines(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    out.split(|&b| b == b'\n').filter(|l| !l.is_empty())
}

/// A line: `tokens` fields (a device's `major,minor` may be two), one
/// space, then the name and a link's target.
fn entry(line: &[u8], tokens: usize, escaped: bool) -> Option<Entry> {
    let size_at = if tokens == 5 { 2 } else { 4 };
    let mut at = 0;
    let mut fields: Vec<&[u8]> = Vec::new();
    let mut minor_skipped = false;
    while fields.len() < tokens {
        while line.get(at) == Some(&b' ') {
            at += 1;
        }
        let start = at;
        while at < line.len() && line[at] != b' ' {
            at += 1;
        }
        if start == at {
            return None;
        }
        if !minor_skipped && fields.len() == size_at + 1 && fields[size_at].ends_with(b",") {
            minor_skipped = true;
            continue;
        }
        fields.push(&line[start..at]);
    }
    let mut rest = line.get(at + 1..).unwrap_or_default();
    // GNU tar: 'C' a contiguous file, '?' a type it does not know (and
    // the name is followed by what it says about it).
    let mut kind = match char::from(*fields[0].first()?) {
        'C' => '-',
        '?' => {
            rest = &rest[..rfind(rest, b" unknown file type ").unwrap_or(rest.len())];
            '-'
        }
        other => other,
    };
    let size_field = fields[size_at];
    let (name, link) = if let Some(i) = find(rest, b" link to ") {
        kind = 'h';
        (&rest[..i], Some(&rest[i + 9..]))
    } else if let Some(i) = find(rest, b" -> ") {
        (&rest[..i], Some(&rest[i + 4..]))
    } else {
        (rest, None)
    };
    let text = |b: &[u8]| if escaped { unescape(b) } else { b.to_vec() };
    // bsdtar shows a link with an empty target without its arrow.
    let link = link.or((kind == 'l' || kind == 'h').then_some(&b""[..]));
    let raw_size = parse_size(size_field);
    Some(Entry {
        kind,
        name: text(name),
        size: (kind == '-').then_some(raw_size),
        link: link.map(text),
        raw_size,
    })
}

fn parse_size(field: &[u8]) -> u64 {
    std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Reads back `--quoting-style=escape` (and tapebuf's `Name::escaped`):
/// `\\`, the C letters, and `\ooo`.
pub fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' || i + 1 == text.len() {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let next = text[i + 1];
        let letter = match next {
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            b'0'..=b'7' => None,
            other => Some(other),
        };
        match letter {
            Some(b) => {
                out.push(b);
                i += 2;
            }
            None => {
                let digits = &text[i + 1..(i + 4).min(text.len())];
                let value = digits.iter().fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                out.push(value as u8);
                i += 1 + digits.len();
            }
        }
    }
    out
}

/// tapebuf's members as a tool would list them.
pub fn of_members(members: &[Member]) -> Vec<Entry> {
    members
        .iter()
        .map(|m| {
            let kind = match m.kind {
                MemberKind::File | MemberKind::Sparse | MemberKind::Other => '-',
                MemberKind::HardLink => 'h',
                MemberKind::Symlink => 'l',
                MemberKind::Directory => 'd',
                MemberKind::CharDevice => 'c',
                MemberKind::BlockDevice => 'b',
                MemberKind::Fifo => 'p',
            };
            Entry {
                kind,
                name: m.path.to_vec(),
                size: (kind == '-').then_some(m.size),
                link: m.link.as_ref().map(|l| l.to_vec()),
                raw_size: m.size,
            }
        })
        .collect()
}
