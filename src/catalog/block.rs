//! One block of members: how a member is written into a block's body and
//! read back out of it. Each block starts afresh (its first path is
//! whole, its first header_offset absolute), so any block can be read
//! alone.
//!
//! A member in the body, in order:
//!
//! ```text
//! Paths and link targets are the archive's bytes, whatever they are.
//!
//! shared     varint  bytes its path shares with the previous path's start
//!                    (0 for a block's first member)
//! suffix     varint length, then the path's remaining bytes
//! kind       u8      kind code (layout.rs) | 0x40 has a link | 0x80 has an inode
//! size       varint
//! mtime      zigzag varint
//! header     zigzag varint  header_offset - the previous member's end_offset
//!                    (wrapping; from 0 for a block's first member, so usually 0)
//! span       varint  end_offset - header_offset (wrapping)
//! link       varint length, then the target's bytes       if 0x40
//! inode      varint device, varint inode                   if 0x80
//! ```

use crate::archive::{Member, Name};

use super::layout::{kind_code, kind_from, MAX_PATH_BYTES};
use super::varint::{put, unzigzag, zigzag, Cursor};

const HAS_LINK: u8 = 0x40;
const HAS_INODE: u8 = 0x80;

/// The body of the block being written.
#[derive(Default)]
pub(crate) struct BlockWriter {
    pub body: Vec<u8>,
    pub members: u32,
    pub first_header_offset: u64,
    pub first_path: Name,
    previous_path: Vec<u8>,
    previous_end: u64,
}

impl BlockWriter {
    /// Appends `member` to the body.
    pub(crate) fn add(&mut self, member: &Member) {
        let path: &[u8] = &member.path;
        if self.members == 0 {
            self.first_header_offset = member.header_offset;
            self.first_path.clone_from(&member.path);
        }
        let shared = path
            .iter()
            .zip(&self.previous_path)
            .take_while(|(a, b)| a == b)
            .count();
        put(&mut self.body, shared as u64);
        put(&mut self.body, (path.len() - shared) as u64);
        self.body.extend_from_slice(&path[shared..]);
        let mut kind = kind_code(member.kind);
        if member.link.is_some() {
            kind |= HAS_LINK;
        }
        if member.inode.is_some() {
            kind |= HAS_INODE;
        }
        self.body.push(kind);
        put(&mut self.body, member.size);
        put(&mut self.body, zigzag(member.mtime));
        let gap = member.header_offset.wrapping_sub(self.previous_end) as i64;
        put(&mut self.body, zigzag(gap));
        put(
            &mut self.body,
            member.end_offset.wrapping_sub(member.header_offset),
        );
        if let Some(link) = &member.link {
            put(&mut self.body, link.len() as u64);
            self.body.extend_from_slice(link.as_bytes());
        }
        if let Some((device, inode)) = member.inode {
            put(&mut self.body, device);
            put(&mut self.body, inode);
        }
        self.previous_path.clear();
        self.previous_path.extend_from_slice(path);
        self.previous_end = member.end_offset;
        self.members += 1;
    }

    /// Empties the block for the next one.
    pub(crate) fn clear(&mut self) {
        *self = BlockWriter {
            body: std::mem::take(&mut self.body),
            ..BlockWriter::default()
        };
        self.body.clear();
    }
}

/// Reads a block's members out of its body, one at a time.
pub(crate) struct BlockReader {
    previous_path: Vec<u8>,
    previous_end: u64,
}

impl BlockReader {
    pub(crate) fn new() -> BlockReader {
        BlockReader {
            previous_path: Vec::new(),
            previous_end: 0,
        }
    }

    /// The member at the cursor.
    pub(crate) fn next(&mut self, c: &mut Cursor) -> Result<Member, String> {
        let shared = c.length(self.previous_path.len(), "shared prefix length")?;
        let suffix_len = c.length(MAX_PATH_BYTES - shared, "path length")?;
        let suffix = c.take(suffix_len, "path")?;
        self.previous_path.truncate(shared);
        self.previous_path.extend_from_slice(suffix);
        let path = Name::new(self.previous_path.as_slice());
        let code = c.byte("kind")?;
        let kind = kind_from(code & !(HAS_LINK | HAS_INODE))
            .ok_or_else(|| format!("unknown kind byte {code:#04x}"))?;
        let size = c.varint("size")?;
        let mtime = unzigzag(c.varint("mtime")?);
        let gap = unzigzag(c.varint("header offset")?);
        let header_offset = self.previous_end.wrapping_add(gap as u64);
        let end_offset = header_offset.wrapping_add(c.varint("end offset")?);
        let link = if code & HAS_LINK != 0 {
            let n = c.length(MAX_PATH_BYTES, "link length")?;
            let bytes = c.take(n, "link")?;
            Some(Name::from(bytes))
        } else {
            None
        };
        let inode = if code & HAS_INODE != 0 {
            Some((c.varint("device")?, c.varint("inode")?))
        } else {
            None
        };
        self.previous_end = end_offset;
        Ok(Member {
            path,
            kind,
            size,
            mtime,
            link,
            header_offset,
            end_offset,
            inode,
        })
    }
}
