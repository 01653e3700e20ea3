//! Archives built byte by byte for the unit tests: tar headers with their
//! checksums, pax records, cpio headers, and a parse that feeds a stream
//! in chunks of a given size.

use super::{Member, Parser};

pub const POSIX: &[u8; 8] = b"ustar\x0000";
pub const GNU: &[u8; 8] = b"ustar  \0";

/// A tar header with a valid checksum.
pub fn header(name: &[u8], typeflag: u8, size: u64, magic: &[u8; 8]) -> Vec<u8> {
    let mut block = vec![0u8; 512];
    block[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
    block[100..107].copy_from_slice(b"0000644");
    block[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    block[136..147].copy_from_slice(b"14361066340");
    block[156] = typeflag;
    block[257..265].copy_from_slice(magic);
    seal(&mut block);
    block
}

/// Writes the checksum of a header whose other bytes are final.
pub fn seal(block: &mut [u8]) {
    block[148..156].copy_from_slice(b"        ");
    let sum: u32 = block.iter().map(|&b| u32::from(b)).sum();
    block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// A member: its header, then `size` bytes of data padded to 512.
pub fn member(name: &[u8], typeflag: u8, size: u64, magic: &[u8; 8]) -> Vec<u8> {
    let mut bytes = header(name, typeflag, size, magic);
    bytes.resize(512 + (size as usize).div_ceil(512) * 512, b'd');
    bytes
}

/// An extended header ('x', 'g', 'L', 'K') holding `data`.
pub fn extension(typeflag: u8, data: &[u8], magic: &[u8; 8]) -> Vec<u8> {
    let mut bytes = header(b"././@LongLink", typeflag, data.len() as u64, magic);
    bytes.extend_from_slice(data);
    bytes.resize(512 + data.len().div_ceil(512) * 512, 0);
    bytes
}

/// One pax record with its length.
pub fn record(key: &str, value: &str) -> String {
    let body = format!(" {key}={value}\n");
    let mut len = body.len() + 1;
    while format!("{len}").len() + body.len() != len {
        len += 1;
    }
    format!("{len}{body}")
}

/// The end: two zero blocks and padding.
pub fn end() -> Vec<u8> {
    vec![0; 1024 + 512 * 3]
}

/// A newc (or crc, `magic` 070702) member.
pub fn newc(magic: &str, name: &str, mode: u32, nlink: u32, data: &[u8], ino: u32) -> Vec<u8> {
    let fields = [
        ino,
        mode,
        0,
        0,
        nlink,
        1_700_000_000,
        data.len() as u32,
        8,
        1,
        0,
        0,
        name.len() as u32 + 1,
        0,
    ];
    let mut bytes = magic.as_bytes().to_vec();
    for field in fields {
        bytes.extend_from_slice(format!("{field:08X}").as_bytes());
    }
    bytes.extend_from_slice(name.as_bytes());
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes.extend_from_slice(data);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes
}

/// An odc member.
pub fn odc(name: &str, mode: u32, data: &[u8]) -> Vec<u8> {
    let header = format!(
        "070707{:06o}{:06o}{:06o}{:06o}{:06o}{:06o}{:06o}{:011o}{:06o}{:011o}",
        1,
        2,
        mode,
        0,
        0,
        1,
        0,
        1_700_000_000u64,
        name.len() + 1,
        data.len()
    );
    let mut bytes = header.into_bytes();
    bytes.extend_from_slice(name.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(data);
    bytes
}

/// Feeds `stream` in chunks of `chunk` bytes (0: whole) and finishes.
pub fn parse(stream: &[u8], chunk: usize) -> (Vec<Member>, Result<(), String>, Parser) {
    let mut parser = Parser::new();
    let mut members = Vec::new();
    let chunk = if chunk == 0 {
        stream.len().max(1)
    } else {
        chunk
    };
    for piece in stream.chunks(chunk) {
        parser.feed(piece);
        members.extend(parser.take_members());
    }
    let result = parser.finish();
    members.extend(parser.take_members());
    (members, result, parser)
}

/// The same parse whatever the split.
pub fn parse_every_split(stream: &[u8]) -> (Vec<Member>, Result<(), String>) {
    let (members, result, _) = parse(stream, 0);
    for chunk in [1, 7, 512, 513, 65536] {
        let (other, other_result, _) = parse(stream, chunk);
        assert_eq!(other, members, "chunks of {chunk}");
        assert_eq!(other_result, result, "chunks of {chunk}");
    }
    (members, result)
}
