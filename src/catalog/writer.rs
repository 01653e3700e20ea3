//! Writing a catalog: members arrive in stream order and go into blocks as
//! they come, so memory stays one block and the index (a few bytes per
//! 256 members). The file is written to a temporary nobody can name in
//! advance (`base::create::Replacement`) and renamed into place only once
//! whole and synced: a reader sees the old catalog or the new one, never
//! part of one.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::base::create::{Replacement, RECORD_MODE};

use crate::archive::{Format, Member};

use super::block::BlockWriter;
use super::layout::{
    Footer, Header, BLOCK_SOFT_BYTES, BLOCK_TARGET, FOOTER_BYTES, HEADER_BYTES, MAGIC,
    MAX_PATH_BYTES, PLAIN_VERSION,
};
use super::sections::CatalogExtras;

/// What a finished catalog holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogSummary {
    /// Members written.
    pub members: u64,
    /// The catalog file's size in bytes.
    pub bytes: u64,
}

/// A catalog being written; `finish` puts it in place.
pub struct CatalogWriter {
    /// The temporary that `finish` renames over the catalog's path
    /// (`base::create::Replacement`: dropped unfinished, it leaves none).
    replacement: Replacement,
    file: Option<BufWriter<File>>,
    format: Format,
    block: BlockWriter,
    index: Vec<u8>,
    blocks: u64,
    members: u64,
    /// Bytes written to the file so far.
    offset: u64,
}

impl CatalogWriter {
    /// Starts a catalog of a `format` archive, to be put at `path` by
    /// `finish` (a temporary file beside it until then).
    pub fn create(path: &Path, format: Format) -> io::Result<CatalogWriter> {
        let replacement = Replacement::begin(path, RECORD_MODE)?;
        let file = replacement.file().try_clone()?;
        let mut file = BufWriter::with_capacity(1 << 16, file);
        let header = Header {
            format,
            members: 0,
            version: PLAIN_VERSION,
        };
        file.write_all(&header.encode())?;
        Ok(CatalogWriter {
            replacement,
            file: Some(file),
            format,
            block: BlockWriter::default(),
            index: Vec::new(),
            blocks: 0,
            members: 0,
            offset: HEADER_BYTES,
        })
    }

    /// Removes the catalog at `path` left by an earlier run, when there is
    /// one (a file that begins as a catalog does; anything else is left
    /// alone): a run whose catalog turned off leaves none that its new
    /// manifest would seem to name. True when one was removed.
    pub fn remove_stale(path: &Path) -> io::Result<bool> {
        let mut magic = [0u8; 16];
        let is_catalog = match File::open(path) {
            Ok(mut file) => file.read_exact(&mut magic).is_ok() && &magic == MAGIC,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        };
        if is_catalog {
            std::fs::remove_file(path)?;
        }
        Ok(is_catalog)
    }

    /// Adds the next member in stream order. A path or link target over
    /// 64 KiB is refused (InvalidInput) and nothing is added.
    pub fn add(&mut self, member: &Member) -> io::Result<()> {
        let link_bytes = member.link.as_ref().map_or(0, |l| l.len());
        if member.path.len() > MAX_PATH_BYTES || link_bytes > MAX_PATH_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "catalog: a path or link of {} bytes is over the limit of {MAX_PATH_BYTES}",
                    member.path.len().max(link_bytes)
                ),
            ));
        }
        self.block.add(member);
        self.members += 1;
        if self.block.members >= BLOCK_TARGET || self.block.body.len() >= BLOCK_SOFT_BYTES {
            self.write_block()?;
        }
        Ok(())
    }

    /// Writes the last block, the index and the footer, syncs the file and
    /// renames it over the catalog's path: a catalog of members alone.
    pub fn finish(self) -> io::Result<CatalogSummary> {
        self.finish_with(&CatalogExtras::default(), &mut io::empty())
    }

    /// As `finish`, with what the archive holds besides its members and
    /// the record checksums: `sums` gives exactly the 4-byte checksums of
    /// `extras.volumes`, volume after volume (InvalidInput otherwise).
    pub fn finish_with(
        mut self,
        extras: &CatalogExtras,
        sums: &mut dyn Read,
    ) -> io::Result<CatalogSummary> {
        if self.block.members > 0 {
            self.write_block()?;
        }
        let sums_bytes = extras
            .sums_bytes()
            .ok_or_else(|| invalid_input("a volume table past u64".into()))?;
        let mut writer = self.file.take().expect("open until finish");
        let copied = io::copy(&mut sums.take(sums_bytes), &mut writer)?;
        if copied != sums_bytes {
            return Err(invalid_input(format!(
                "{copied} bytes of record checksums, the volume table counts {sums_bytes}"
            )));
        }
        let tail = extras.encode();
        let footer = Footer {
            index_offset: self.offset + sums_bytes,
            index_bytes: self.index.len() as u64,
            blocks: self.blocks,
            members: self.members,
            index_checksum: xxhash_rust::xxh3::xxh3_64(&self.index),
            sums_offset: self.offset,
            sums_bytes,
            tail_bytes: tail.len() as u64,
            tail_checksum: xxhash_rust::xxh3::xxh3_64(&tail),
        };
        writer.write_all(&self.index)?;
        writer.write_all(&tail)?;
        writer.write_all(&footer.encode())?;
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        let header = Header {
            format: self.format,
            members: self.members,
            version: extras.version(),
        };
        file.write_all_at(&header.encode(), 0)?;
        drop(file);
        self.replacement.commit()?;
        Ok(CatalogSummary {
            members: self.members,
            bytes: footer.index_offset + footer.index_bytes + footer.tail_bytes + FOOTER_BYTES,
        })
    }

    /// Frames the block, writes it and notes it in the index.
    fn write_block(&mut self) -> io::Result<()> {
        let block = &self.block;
        let file = self.file.as_mut().expect("open until finish");
        file.write_all(&(block.body.len() as u32).to_le_bytes())?;
        file.write_all(&block.members.to_le_bytes())?;
        file.write_all(&xxhash_rust::xxh3::xxh3_64(&block.body).to_le_bytes())?;
        file.write_all(&block.body)?;
        self.index.extend_from_slice(&self.offset.to_le_bytes());
        self.index
            .extend_from_slice(&block.first_header_offset.to_le_bytes());
        self.index.extend_from_slice(&block.members.to_le_bytes());
        self.index
            .extend_from_slice(&(block.first_path.len() as u32).to_le_bytes());
        self.index.extend_from_slice(block.first_path.as_bytes());
        self.offset += 16 + block.body.len() as u64;
        self.blocks += 1;
        self.block.clear();
        Ok(())
    }
}

fn invalid_input(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("catalog: {msg}"))
}
