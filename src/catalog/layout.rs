//! The catalog file's fixed parts, byte by byte (all integers
//! little-endian), and the limits a reader holds a file to.
//!
//! ```text
//! header, 32 bytes at offset 0:
//!    0  magic "TAPEBUF-CATALOG\n"            16 bytes
//!   16  version                               u16 (3 with keys, else 2; 1 is read too)
//!   18  format (archive::Format, see code())  u8
//!   19  flags                                 u8 (0; a reader refuses others)
//!   20  block target (members a block holds)  u32 (256)
//!   24  members                               u64
//! blocks, from offset 32, back to back (block.rs):
//!    0  body bytes                            u32
//!    4  members                               u32
//!    8  XXH3-64 of the body                   u64
//!   16  body: the members, front-coded
//! record checksums, from the footer's sums offset: for each volume of
//! the tail's volume table, in its order, one u32 per record (the low 32
//! bits of the record's XXH3-64), back to back (none without a table)
//! index, one entry per block, in order:
//!    0  the block's file offset               u64
//!    8  its first member's header_offset      u64
//!   16  its member count                      u32
//!   20  its first path's length               u32
//!   24  its first path                        that many bytes
//! tail, right after the index (sections.rs):
//!    globals   u32 count, then per pax 'g' header its [start, end) as two u64
//!    trailer   u8 0 or 1, then if 1 cpio's TRAILER!!! [start, end) as two u64
//!    end       u8 0 or 1, then if 1 the stream offset where the archive ended, u64
//!    volumes   u32 count, then per volume its number u32 and records u64
//!    keys      (version 3) u32 count, then per volume the drive encrypted
//!              its number u32, its key's fingerprint's length u8 and text
//! footer, the last 80 bytes:
//!    0  index offset                          u64
//!    8  index bytes                           u64
//!   16  blocks                                u64
//!   24  members                               u64 (as in the header)
//!   32  XXH3-64 of the index                  u64
//!   40  sums offset                           u64 (where the blocks end)
//!   48  sums bytes                            u64 (4 x the volumes' records)
//!   56  tail bytes                            u64
//!   64  XXH3-64 of the tail                   u64
//!   72  magic "TBCATEND"                      8 bytes
//! ```
//!
//! The footer makes the file one self-describing blob: a reader finds the
//! index, the tail and the sums from the end, and the blocks from the
//! index. The parts lie back to back: header, blocks, sums, index, tail,
//! footer.

use crate::archive::{Format, MemberKind};

use super::varint::Cursor;

pub(crate) const MAGIC: &[u8; 16] = b"TAPEBUF-CATALOG\n";
pub(crate) const END_MAGIC: &[u8; 8] = b"TBCATEND";
/// Version 2 stores paths and link targets as the archive's bytes;
/// version 1 (the same layout) stored them made UTF-8 lossily, so a
/// version 1 name with U+FFFD in it may stand for other bytes.
/// Version 3 adds the tail's keys: the fingerprint of the key each
/// encrypted volume needs. A catalog without keys is written as version 2,
/// which tapebufs before encryption read.
pub(crate) const VERSION: u16 = 3;
pub(crate) const PLAIN_VERSION: u16 = 2;
/// The oldest version a reader accepts.
pub(crate) const OLDEST_VERSION: u16 = 1;
pub(crate) const HEADER_BYTES: u64 = 32;
pub(crate) const FOOTER_BYTES: u64 = 80;
pub(crate) const FRAME_BYTES: u64 = 16;
/// Smallest index entry: the fixed fields and an empty path.
pub(crate) const INDEX_ENTRY_MIN: u64 = 24;
/// Members a writer puts in one block.
pub(crate) const BLOCK_TARGET: u32 = 256;
/// A writer closes a block once its body reaches this many bytes.
pub(crate) const BLOCK_SOFT_BYTES: usize = 64 << 10;
/// The most bytes a reader accepts in one block's body.
pub(crate) const MAX_BODY_BYTES: u64 = 1 << 20;
/// The most members a reader accepts in one block.
pub(crate) const MAX_BLOCK_MEMBERS: u32 = 1 << 16;
/// The smallest a member can be in a body (shared, suffix length, kind,
/// size, mtime, header and end deltas: one byte each).
pub(crate) const MIN_MEMBER_BYTES: u64 = 7;
/// The longest path or link target, in bytes.
pub(crate) const MAX_PATH_BYTES: usize = 64 << 10;

/// The header's fields after the magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub format: Format,
    pub members: u64,
    pub version: u16,
}

impl Header {
    pub(crate) fn encode(&self) -> [u8; HEADER_BYTES as usize] {
        let mut out = [0u8; HEADER_BYTES as usize];
        out[..16].copy_from_slice(MAGIC);
        out[16..18].copy_from_slice(&self.version.to_le_bytes());
        out[18] = format_code(self.format);
        out[20..24].copy_from_slice(&BLOCK_TARGET.to_le_bytes());
        out[24..32].copy_from_slice(&self.members.to_le_bytes());
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Header, String> {
        let mut c = Cursor::new(bytes);
        if c.take(16, "the magic")? != MAGIC {
            return Err("not a tapebuf catalog (no TAPEBUF-CATALOG magic)".into());
        }
        let version = u16::from_le_bytes(c.take(2, "the version")?.try_into().expect("2"));
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(format!(
                "catalog version {version}, this tapebuf reads versions {OLDEST_VERSION} to {VERSION}"
            ));
        }
        let code = c.byte("the format")?;
        let format = format_from(code).ok_or_else(|| format!("unknown archive format {code}"))?;
        let flags = c.byte("the flags")?;
        if flags != 0 {
            return Err(format!("unknown flags {flags:#04x}"));
        }
        c.u32_le("the block target")?;
        let members = c.u64_le("the member count")?;
        Ok(Header {
            format,
            members,
            version,
        })
    }
}

/// The footer's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Footer {
    pub index_offset: u64,
    pub index_bytes: u64,
    pub blocks: u64,
    pub members: u64,
    pub index_checksum: u64,
    pub sums_offset: u64,
    pub sums_bytes: u64,
    pub tail_bytes: u64,
    pub tail_checksum: u64,
}

impl Footer {
    pub(crate) fn encode(&self) -> [u8; FOOTER_BYTES as usize] {
        let mut out = [0u8; FOOTER_BYTES as usize];
        let fields = [
            self.index_offset,
            self.index_bytes,
            self.blocks,
            self.members,
            self.index_checksum,
            self.sums_offset,
            self.sums_bytes,
            self.tail_bytes,
            self.tail_checksum,
        ];
        for (i, v) in fields.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        out[72..].copy_from_slice(END_MAGIC);
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Footer, String> {
        let mut c = Cursor::new(bytes);
        let footer = Footer {
            index_offset: c.u64_le("the index offset")?,
            index_bytes: c.u64_le("the index length")?,
            blocks: c.u64_le("the block count")?,
            members: c.u64_le("the member count")?,
            index_checksum: c.u64_le("the index checksum")?,
            sums_offset: c.u64_le("the sums offset")?,
            sums_bytes: c.u64_le("the sums length")?,
            tail_bytes: c.u64_le("the tail length")?,
            tail_checksum: c.u64_le("the tail checksum")?,
        };
        if c.take(8, "the end magic")? != END_MAGIC {
            return Err("no TBCATEND footer at the end (cut short?)".into());
        }
        Ok(footer)
    }
}

/// The byte a format is stored as.
pub(crate) fn format_code(format: Format) -> u8 {
    match format {
        Format::Ustar => 0,
        Format::Gnu => 1,
        Format::Pax => 2,
        Format::CpioNewc => 3,
        Format::CpioCrc => 4,
        Format::CpioOdc => 5,
    }
}

pub(crate) fn format_from(code: u8) -> Option<Format> {
    Format::ALL.get(code as usize).copied()
}

const KINDS: [MemberKind; 9] = MemberKind::ALL;

/// The low bits of a member's kind byte (its high bits are flags).
pub(crate) fn kind_code(kind: MemberKind) -> u8 {
    KINDS.iter().position(|k| *k == kind).expect("every kind") as u8
}

pub(crate) fn kind_from(code: u8) -> Option<MemberKind> {
    KINDS.get(code as usize).copied()
}
