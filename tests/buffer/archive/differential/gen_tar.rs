//! Tar archives made up from a seed: a few members of every type flag
//! the parser takes (and some it does not know), in ustar, GNU and v7
//! headers, with pax headers that override the path, the link target and
//! the size (on any kind, directories, links and devices included), GNU
//! 'L'/'K' long names, names with `./` prefixes, control characters,
//! bidirectional overrides, bytes that are not UTF-8, and empty names;
//! data that holds a valid header, so that a member a size hides is seen
//! by whichever reader does not skip it; and now and then a bad
//! checksum, a missing end, a lone zero block or a cut.
//!
//! Names never hold `>` or `k`, so that ` -> ` and ` link to ` in a
//! listing always separate a name from its target.

use super::rng::Rng;

pub const POSIX: &[u8; 8] = b"ustar\x0000";
pub const GNU: &[u8; 8] = b"ustar  \0";
pub const V7: &[u8; 8] = &[0; 8];

/// The fixed mtime of every member: far enough back that every tool
/// lists a year, not a time.
pub const MTIME: u64 = 1_500_000_000;

/// The type flags members are made with, weighted by repetition.
const FLAGS: &[u8] = b"00000000111222334556677D\0\0ZAXa8";

/// A header block with a valid checksum.
pub fn header(name: &[u8], typeflag: u8, size: u64, link: &[u8], magic: &[u8; 8]) -> Vec<u8> {
    let mut b = vec![0u8; 512];
    let n = name.len().min(100);
    b[..n].copy_from_slice(&name[..n]);
    b[100..108].copy_from_slice(b"0000644\0");
    b[108..116].copy_from_slice(b"0000000\0");
    b[116..124].copy_from_slice(b"0000000\0");
    b[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    b[136..148].copy_from_slice(format!("{MTIME:011o}\0").as_bytes());
    b[156] = typeflag;
    let l = link.len().min(100);
    b[157..157 + l].copy_from_slice(&link[..l]);
    b[257..265].copy_from_slice(magic);
    if magic != V7 {
        b[265..269].copy_from_slice(b"root");
        b[297..301].copy_from_slice(b"root");
        b[329..337].copy_from_slice(b"0000001\0");
        b[337..345].copy_from_slice(b"0000002\0");
    }
    seal(&mut b);
    b
}

pub fn seal(b: &mut [u8]) {
    b[148..156].copy_from_slice(b"        ");
    let sum: u32 = b.iter().map(|&x| u32::from(x)).sum();
    b[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

pub fn padded(mut data: Vec<u8>) -> Vec<u8> {
    data.resize(data.len().div_ceil(512) * 512, 0);
    data
}

/// One pax record, its length included.
pub fn record(key: &str, value: &[u8]) -> Vec<u8> {
    let body_len = key.len() + value.len() + 3;
    let mut len = body_len + 1;
    while len.to_string().len() + body_len != len {
        len += 1;
    }
    let mut r = format!("{len} {key}=").into_bytes();
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// An extended header ('x', 'L', 'K') holding `data`.
pub fn extension(typeflag: u8, data: &[u8], magic: &[u8; 8]) -> Vec<u8> {
    let mut out = header(b"././@LongLink", typeflag, data.len() as u64, b"", magic);
    out.extend(padded(data.to_vec()));
    out
}

/// A name: a few parts of a safe alphabet, and sometimes the bytes that
/// break listings and lossy text.
pub fn name(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    if rng.chance(8) {
        out.extend_from_slice(b"./");
    }
    for part in 0..1 + rng.below(3) {
        if part > 0 {
            out.push(b'/');
        }
        for _ in 0..1 + rng.below(8) {
            out.push(*rng.pick(b"abcdefghijlmnopqrstuvwxyz0123456789._- "));
        }
        if rng.chance(10) {
            let odd: &[&[u8]] = &[
                b"\xfe",
                b"\xff",
                b"\xc3\xa9",
                b"\n",
                b"\t",
                b"\\",
                b"\"",
                b"\x01",
                b"\x7f",
                b"\xe2\x80\xae",
                b"\xe2\x81\xa7",
                b"\xc2\x85",
                b"?*[",
            ];
            let piece: &&[u8] = rng.pick(odd);
            out.extend_from_slice(piece);
        }
    }
    if rng.chance(3) {
        out.clear();
    } else if rng.chance(5) {
        out.resize(101 + rng.below(150) as usize, b'n');
    }
    out
}

/// One archive.
pub fn archive(rng: &mut Rng) -> Vec<u8> {
    let magic = *rng.pick(&[POSIX, POSIX, GNU, GNU, V7]);
    let mut out = Vec::new();
    let mut names: Vec<Vec<u8>> = Vec::new();
    for _ in 0..1 + rng.below(5) {
        member(rng, magic, &mut names, &mut out);
        if rng.chance(2) {
            let at = out.len() - 512;
            out[at + rng.below(512) as usize] ^= 1 + rng.below(255) as u8;
        }
    }
    match rng.below(40) {
        0 => {}
        1 => out.extend_from_slice(&[0; 512]),
        2 => out
            .extend_from_slice(&[[0; 512].as_slice(), &header(b"z", b'0', 0, b"", magic)].concat()),
        _ => out.extend_from_slice(&[0; 1024]),
    }
    if rng.chance(3) {
        out.truncate(rng.below(out.len() as u64) as usize);
    }
    out
}

/// Appends one member: its extended headers, its header and its data.
fn member(rng: &mut Rng, magic: &[u8; 8], names: &mut Vec<Vec<u8>>, out: &mut Vec<u8>) {
    let typeflag = if rng.chance(2) {
        rng.below(256) as u8
    } else {
        *rng.pick(FLAGS)
    };
    let name = name(rng);
    let link = match (typeflag, names.is_empty()) {
        (b'1', false) if rng.chance(80) => rng.pick(names).clone(),
        (b'1' | b'2', _) => self::name(rng),
        _ => Vec::new(),
    };
    let data_kind = matches!(typeflag, b'0' | 0 | b'7' | b'D' | b'Z' | b'A');
    let mut size = if data_kind || rng.chance(10) {
        rng.below(1500)
    } else {
        0
    };
    let mut records = Vec::new();
    let pax = magic == POSIX && rng.chance(30);
    let mut head_name = name.clone();
    if pax {
        if rng.chance(50) {
            records.extend(record("path", &name));
            head_name = self::name(rng);
        }
        if !link.is_empty() && rng.chance(50) {
            records.extend(record("linkpath", &link));
        }
        if rng.chance(40) {
            size = rng.below(1500);
            records.extend(record("size", size.to_string().as_bytes()));
        }
        if rng.chance(3) {
            records.extend_from_slice(b"9 bad\n");
        }
        out.extend(extension(b'x', &records, magic));
    } else if magic == GNU && (name.len() > 100 || rng.chance(5)) {
        out.extend(extension(b'L', &[name.as_slice(), b"\0"].concat(), magic));
        if link.len() > 100 || rng.chance(30) {
            out.extend(extension(b'K', &[link.as_slice(), b"\0"].concat(), magic));
        }
    }
    let field_size = if pax && rng.chance(50) { 0 } else { size };
    let mut block = header(&head_name, typeflag, field_size, &link, magic);
    if matches!(typeflag, b'3' | b'4') {
        block[329..337].copy_from_slice(b"0000005\0");
        seal(&mut block);
    }
    out.extend(block);
    out.extend(data(rng, size, magic));
    names.push(name);
}

/// `size` bytes of data, padded: random bytes, or a whole member (a
/// header and data that fill the rest), so that a reader that does not
/// skip them lists one more member and goes on at the next real header.
fn data(rng: &mut Rng, size: u64, magic: &[u8; 8]) -> Vec<u8> {
    let mut bytes: Vec<u8> = (0..size).map(|_| rng.below(256) as u8).collect();
    bytes = padded(bytes);
    if bytes.len() >= 512 && rng.chance(60) {
        let rest = bytes.len() as u64 - 512;
        let hidden = header(b"hidden", b'0', rest, b"", magic);
        bytes[..512].copy_from_slice(&hidden);
    }
    bytes
}
