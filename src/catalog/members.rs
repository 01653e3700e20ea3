//! Listing a catalog: its members in stream order, decoded a block at a
//! time into one reused buffer. A damaged block ends the listing with an
//! error naming the block and its byte offset (the members before it have
//! been given); nothing follows an error.

use std::io;

use crate::archive::Member;

use super::block::BlockReader;
use super::layout::FRAME_BYTES;
use super::reader::{invalid, Catalog};
use super::varint::Cursor;

/// The members of a catalog, in stream order (`Catalog::members`).
pub struct Members<'a> {
    catalog: &'a Catalog,
    /// The block loaded in `buf`, if any, and the next to load.
    block: Option<usize>,
    next_block: usize,
    buf: Vec<u8>,
    /// Where the next member starts in `buf`.
    at: usize,
    /// Members of the loaded block not yet given.
    left: u32,
    reader: BlockReader,
    failed: bool,
}

impl Catalog {
    /// Every member, in stream order.
    pub fn members(&self) -> Members<'_> {
        Members {
            catalog: self,
            block: None,
            next_block: 0,
            buf: Vec::new(),
            at: 0,
            left: 0,
            reader: BlockReader::new(),
            failed: false,
        }
    }
}

impl Members<'_> {
    /// The next member, or None after the last block.
    fn advance(&mut self) -> io::Result<Option<Member>> {
        while self.left == 0 {
            if let Some(i) = self.block {
                if self.at != self.buf.len() {
                    let extra = self.buf.len() - self.at;
                    return Err(self.damaged(i, format!("{extra} bytes after its last member")));
                }
            }
            let i = self.next_block;
            if i >= self.catalog.blocks.len() {
                return Ok(None);
            }
            self.catalog.read_block(i, &mut self.buf)?;
            self.block = Some(i);
            self.next_block += 1;
            self.at = FRAME_BYTES as usize;
            self.left = self.catalog.blocks[i].members;
            self.reader = BlockReader::new();
        }
        let i = self.block.expect("a block is loaded");
        let first = self.left == self.catalog.blocks[i].members;
        let mut c = Cursor::new(&self.buf[self.at..]);
        let decoded = self.reader.next(&mut c);
        let at = self.at + c.position();
        let member = decoded.map_err(|e| self.damaged(i, format!("at body byte {at}: {e}")))?;
        self.at = at;
        self.left -= 1;
        let entry = &self.catalog.blocks[i];
        if first
            && (member.path != entry.first_path
                || member.header_offset != entry.first_header_offset)
        {
            return Err(self.damaged(i, "its first member is not the one the index names".into()));
        }
        Ok(Some(member))
    }

    fn damaged(&self, i: usize, msg: String) -> io::Error {
        let offset = self.catalog.blocks[i].offset;
        invalid(
            &self.catalog.path,
            format!("block {i} at byte {offset}: {msg}"),
        )
    }
}

impl Iterator for Members<'_> {
    type Item = io::Result<Member>;

    fn next(&mut self) -> Option<io::Result<Member>> {
        if self.failed {
            return None;
        }
        let result = self.advance();
        self.failed = result.is_err();
        result.transpose()
    }
}
