//! cpio archives made up from a seed: newc, crc and odc, with files,
//! directories, symbolic links (the target is the data), FIFOs, devices
//! and newc hard-link groups (the data on the group's last name), names
//! with odd bytes (GNU `cpio -t` prints names raw, so never a newline),
//! and now and then a bad magic, a missing trailer or a cut.

use super::gen_tar::{name, MTIME};
use super::rng::Rng;

/// The three formats' magic numbers.
pub const MAGICS: [&str; 3] = ["070701", "070702", "070707"];

struct Entry<'a> {
    ino: u64,
    mode: u64,
    nlink: u64,
    name: &'a [u8],
    data: &'a [u8],
}

fn newc(magic: &str, e: &Entry) -> Vec<u8> {
    let fields = [
        e.ino,
        e.mode,
        0,
        0,
        e.nlink,
        MTIME,
        e.data.len() as u64,
        8,
        1,
        0,
        0,
        e.name.len() as u64 + 1,
        0,
    ];
    let mut out = magic.as_bytes().to_vec();
    for f in fields {
        out.extend_from_slice(format!("{f:08X}").as_bytes());
    }
    out.extend_from_slice(e.name);
    out.push(0);
    out.resize(out.len().div_ceil(4) * 4, 0);
    out.extend_from_slice(e.data);
    out.resize(out.len().div_ceil(4) * 4, 0);
    out
}

fn odc(e: &Entry) -> Vec<u8> {
    let header = format!(
        "070707{:06o}{:06o}{:06o}{:06o}{:06o}{:06o}{:06o}{:011o}{:06o}{:011o}",
        1,
        e.ino % 0o777777,
        e.mode,
        0,
        0,
        e.nlink,
        0,
        MTIME,
        e.name.len() + 1,
        e.data.len()
    );
    let mut out = header.into_bytes();
    out.extend_from_slice(e.name);
    out.push(0);
    out.extend_from_slice(e.data);
    out
}

fn entry(magic: &str, e: &Entry) -> Vec<u8> {
    if magic == "070707" {
        odc(e)
    } else {
        newc(magic, e)
    }
}

/// A name for cpio: no newline, no NUL.
fn cpio_name(rng: &mut Rng) -> Vec<u8> {
    let mut n = name(rng);
    n.retain(|&b| b != b'\n' && b != 0);
    n
}

/// One archive.
pub fn archive(rng: &mut Rng) -> Vec<u8> {
    let magic = *rng.pick(&MAGICS);
    let mut out = Vec::new();
    for ino in 1..2 + rng.below(5) {
        let name = cpio_name(rng);
        let kind = *rng.pick(&[
            0o100644u64,
            0o100644,
            0o040755,
            0o120777,
            0o010644,
            0o020644,
        ]);
        let data: Vec<u8> = match kind {
            0o100644 => (0..rng.below(700)).map(|_| rng.below(256) as u8).collect(),
            0o120777 => cpio_name(rng),
            _ if rng.chance(5) => vec![b'x'; 3],
            _ => Vec::new(),
        };
        let linked = kind == 0o100644 && magic != "070707" && rng.chance(15);
        if linked {
            let first = cpio_name(rng);
            let e = Entry {
                ino,
                mode: kind,
                nlink: 2,
                name: &first,
                data: b"",
            };
            out.extend(entry(magic, &e));
        }
        let nlink = if linked { 2 } else { 1 };
        let e = Entry {
            ino,
            mode: kind,
            nlink,
            name: &name,
            data: &data,
        };
        out.extend(entry(magic, &e));
        if rng.chance(2) {
            let at = out.len() - 1 - rng.below(out.len().min(40) as u64) as usize;
            out[at] ^= 1 + rng.below(255) as u8;
        }
    }
    if !rng.chance(3) {
        let e = Entry {
            ino: 0,
            mode: 0,
            nlink: 1,
            name: b"TRAILER!!!",
            data: b"",
        };
        out.extend(entry(magic, &e));
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    if rng.chance(3) {
        out.truncate(rng.below(out.len() as u64) as usize);
    }
    out
}
