//! Opening a catalog: the header, the footer and the index are read and
//! checked against each other and against the file's size before any
//! member is, so a damaged or hostile file is refused with a reason
//! (InvalidData), never a panic, and nothing is allocated beyond what the
//! file itself holds. Blocks are read later, one at a time, with ordinary
//! positioned reads (no mmap: a file that shrinks under us is an error,
//! not a signal).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::archive::{Format, Name};

use super::layout::{
    Footer, Header, FOOTER_BYTES, FRAME_BYTES, HEADER_BYTES, INDEX_ENTRY_MIN, MAX_BLOCK_MEMBERS,
    MAX_BODY_BYTES, MAX_PATH_BYTES, MIN_MEMBER_BYTES,
};
use super::sections::{CatalogExtras, SUM_BYTES};
use super::varint::Cursor;

/// Where a block is and what it starts with.
#[derive(Debug, Clone)]
pub(crate) struct BlockEntry {
    pub offset: u64,
    /// Its whole length, frame included.
    pub bytes: u64,
    pub first_header_offset: u64,
    pub members: u32,
    pub first_path: Name,
}

/// An open catalog: its header and index in memory, its blocks on disk.
pub struct Catalog {
    pub(crate) path: PathBuf,
    pub(crate) file: File,
    format: Format,
    members: u64,
    pub(crate) blocks: Vec<BlockEntry>,
    extras: CatalogExtras,
    /// Where the record checksums start.
    sums_offset: u64,
}

impl Catalog {
    /// Opens the catalog at `path` and checks its header, footer and index.
    pub fn open(path: &Path) -> io::Result<Catalog> {
        // A FIFO in its place is refused, not waited on.
        let file = crate::base::path_registry::open_regular(path)?;
        let len = file.metadata()?.len();
        let bad = |msg: String| invalid(path, msg);
        if len < HEADER_BYTES + FOOTER_BYTES {
            return Err(bad(format!("{len} bytes, too short for a catalog")));
        }
        let header = Header::decode(&read_at(&file, 0, HEADER_BYTES)?).map_err(bad)?;
        let footer = Footer::decode(&read_at(&file, len - FOOTER_BYTES, FOOTER_BYTES)?)
            .map_err(|e| bad(format!("footer: {e}")))?;
        check_footer(&footer, &header, len).map_err(bad)?;
        let index = read_at(&file, footer.index_offset, footer.index_bytes)?;
        if xxhash_rust::xxh3::xxh3_64(&index) != footer.index_checksum {
            return Err(bad(format!(
                "index at byte {}: checksum mismatch",
                footer.index_offset
            )));
        }
        let blocks = parse_index(&index, &footer)
            .map_err(|e| bad(format!("index at byte {}: {e}", footer.index_offset)))?;
        let tail_at = footer.index_offset + footer.index_bytes;
        let tail = read_at(&file, tail_at, footer.tail_bytes)?;
        if xxhash_rust::xxh3::xxh3_64(&tail) != footer.tail_checksum {
            return Err(bad(format!("tail at byte {tail_at}: checksum mismatch")));
        }
        let extras = CatalogExtras::decode(&tail, footer.sums_bytes, header.version)
            .map_err(|e| bad(format!("tail at byte {tail_at}: {e}")))?;
        Ok(Catalog {
            path: path.to_path_buf(),
            file,
            format: header.format,
            members: header.members,
            blocks,
            extras,
            sums_offset: footer.sums_offset,
        })
    }

    /// Tar's pax global ('g') headers, as `[start, end)` stream ranges in
    /// order.
    pub fn globals(&self) -> &[(u64, u64)] {
        &self.extras.globals
    }

    /// cpio's TRAILER!!! member, `[start, end)`.
    pub fn trailer(&self) -> Option<(u64, u64)> {
        self.extras.trailer
    }

    /// Where the archive ended in the stream (after tar's end blocks, or
    /// cpio's trailer and its padding).
    pub fn end(&self) -> Option<u64> {
        self.extras.end
    }

    /// The volumes the drive encrypted, each with its key's fingerprint.
    pub fn volume_keys(&self) -> &[(u32, String)] {
        &self.extras.keys
    }

    /// The volumes whose record checksums it holds, and how many records
    /// each has.
    pub fn volumes_with_sums(&self) -> Vec<(u32, u64)> {
        self.extras.volumes.clone()
    }

    /// The checksums (low 32 bits of XXH3-64) of `count` records of
    /// `volume` from record `first` (from 0). An error names what is
    /// missing: a volume without checksums (NotFound), records past the
    /// volume's (InvalidInput), or a read that failed.
    pub fn record_sums(&self, volume: u32, first: u64, count: u64) -> io::Result<Vec<u32>> {
        let mut before = 0u64;
        let mut records = None;
        for (n, r) in &self.extras.volumes {
            if *n == volume {
                records = Some(*r);
                break;
            }
            before += r;
        }
        let Some(records) = records else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "catalog {}: no record checksums for volume {volume}",
                    self.path.display()
                ),
            ));
        };
        if first.checked_add(count).is_none_or(|end| end > records) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "catalog {}: records {first}..{} of volume {volume}, which has {records}",
                    self.path.display(),
                    first.saturating_add(count)
                ),
            ));
        }
        let at = self.sums_offset + (before + first) * SUM_BYTES;
        let bytes = read_at(&self.file, at, count * SUM_BYTES)
            .map_err(|e| invalid(&self.path, format!("record checksums at byte {at}: {e}")))?;
        Ok(bytes
            .chunks_exact(SUM_BYTES as usize)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }

    /// The format of the archive it catalogs.
    pub fn format(&self) -> Format {
        self.format
    }

    /// How many members it holds.
    pub fn len(&self) -> u64 {
        self.members
    }

    pub fn is_empty(&self) -> bool {
        self.members == 0
    }

    /// Reads block `i` (frame and body) into `buf` and checks its frame
    /// against the index and its checksum; the body follows the frame.
    pub(crate) fn read_block(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        let entry = &self.blocks[i];
        let bad = |msg: String| {
            invalid(
                &self.path,
                format!("block {i} at byte {}: {msg}", entry.offset),
            )
        };
        buf.resize(entry.bytes as usize, 0);
        self.file
            .read_exact_at(buf, entry.offset)
            .map_err(|e| bad(format!("reading it: {e}")))?;
        let mut c = Cursor::new(buf);
        let body_bytes = c.u32_le("body length").map_err(bad)?;
        let members = c.u32_le("member count").map_err(bad)?;
        let checksum = c.u64_le("checksum").map_err(bad)?;
        if u64::from(body_bytes) != entry.bytes - FRAME_BYTES || members != entry.members {
            return Err(bad(format!(
                "its frame says {body_bytes} bytes and {members} members, the index {} and {}",
                entry.bytes - FRAME_BYTES,
                entry.members
            )));
        }
        if xxhash_rust::xxh3::xxh3_64(&buf[FRAME_BYTES as usize..]) != checksum {
            return Err(bad("checksum mismatch".into()));
        }
        Ok(())
    }
}

/// The footer fits the file: the sums, the index and the tail lie back
/// to back between the blocks and the footer, and the index could hold as
/// many entries as it claims.
fn check_footer(footer: &Footer, header: &Header, len: u64) -> Result<(), String> {
    let sums_end = footer.sums_offset.checked_add(footer.sums_bytes);
    let tail_end = footer
        .index_offset
        .checked_add(footer.index_bytes)
        .and_then(|end| end.checked_add(footer.tail_bytes));
    if footer.sums_offset < HEADER_BYTES
        || sums_end != Some(footer.index_offset)
        || !footer.sums_bytes.is_multiple_of(SUM_BYTES)
        || tail_end != Some(len - FOOTER_BYTES)
    {
        return Err(format!(
            "footer puts the sums at byte {} for {} bytes, the index at byte {} for {} and the tail for {}, in a file of {len}",
            footer.sums_offset, footer.sums_bytes, footer.index_offset, footer.index_bytes, footer.tail_bytes
        ));
    }
    if footer.members != header.members {
        return Err(format!(
            "header counts {} members, footer {}",
            header.members, footer.members
        ));
    }
    if footer.blocks > footer.index_bytes / INDEX_ENTRY_MIN {
        return Err(format!(
            "{} blocks cannot fit an index of {} bytes",
            footer.blocks, footer.index_bytes
        ));
    }
    Ok(())
}

/// The index's entries, each block checked to lie back to back with the
/// others between the header and the index, long enough for its members
/// and no longer than a body may be.
fn parse_index(index: &[u8], footer: &Footer) -> Result<Vec<BlockEntry>, String> {
    let mut c = Cursor::new(index);
    let mut blocks: Vec<BlockEntry> = Vec::with_capacity(footer.blocks as usize);
    for i in 0..footer.blocks {
        let offset = c.u64_le("block offset")?;
        let first_header_offset = c.u64_le("first header offset")?;
        let members = c.u32_le("member count")?;
        let path_len = c.u32_le("first path length")? as usize;
        if path_len > MAX_PATH_BYTES {
            return Err(format!("block {i}: first path of {path_len} bytes"));
        }
        let path = Name::from(c.take(path_len, "first path")?);
        if members == 0 || members > MAX_BLOCK_MEMBERS {
            return Err(format!("block {i} at byte {offset}: {members} members"));
        }
        blocks.push(BlockEntry {
            offset,
            bytes: 0,
            first_header_offset,
            members,
            first_path: path,
        });
    }
    if c.remaining() != 0 {
        return Err(format!("{} bytes after the last entry", c.remaining()));
    }
    let mut start = HEADER_BYTES;
    let mut members = 0u64;
    for i in 0..blocks.len() {
        let end = blocks.get(i + 1).map_or(footer.sums_offset, |b| b.offset);
        let b = &mut blocks[i];
        let least = FRAME_BYTES + u64::from(b.members) * MIN_MEMBER_BYTES;
        let bytes = end.saturating_sub(b.offset);
        if b.offset != start || bytes < least || bytes - FRAME_BYTES > MAX_BODY_BYTES {
            return Err(format!(
                "block {i} at byte {} ending at {end} (expected to start at {start})",
                b.offset
            ));
        }
        b.bytes = bytes;
        start = end;
        members += u64::from(b.members);
    }
    if start != footer.sums_offset || members != footer.members {
        return Err(format!(
            "blocks end at byte {start} holding {members} members; the footer says {} and {}",
            footer.sums_offset, footer.members
        ));
    }
    Ok(blocks)
}

fn read_at(file: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len as usize];
    file.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}

pub(crate) fn invalid(path: &Path, msg: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("catalog {}: {msg}", path.display()),
    )
}
