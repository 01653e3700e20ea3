//! One tar header block decoded: the checksum (unsigned or signed sums,
//! as GNU tar accepts), the magic that says POSIX, GNU or v7, and the
//! fields a member needs. A GNU header's bytes from 345 on are its own
//! (times, sparse map), never a ustar prefix.

use super::numbers::{tar_size, tar_time};

pub(super) const BLOCK: usize = 512;
pub(super) const BLOCK_U64: u64 = BLOCK as u64;

/// Which writer's header this is, from bytes 257..265.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Magic {
    /// "ustar\0" "00": ustar or pax.
    Posix,
    /// "ustar  \0": GNU tar.
    Gnu,
    /// All NUL: a v7 header (accepted when its checksum is valid).
    V7,
}

/// A header whose checksum and magic were valid.
pub(super) struct Header<'a> {
    pub block: &'a [u8],
    pub magic: Magic,
    pub typeflag: u8,
    pub size: u64,
    pub mtime: i64,
}

/// Rounds a data length up to whole 512-byte blocks.
pub(super) fn pad512(size: u64) -> Option<u64> {
    size.checked_add(BLOCK_U64 - 1)
        .map(|n| n & !(BLOCK_U64 - 1))
}

pub(super) fn is_zero(block: &[u8]) -> bool {
    block.iter().all(|&b| b == 0)
}

/// Decodes a 512-byte block, or says why it is not a tar header.
pub(super) fn decode(block: &[u8]) -> Result<Header<'_>, String> {
    debug_assert_eq!(block.len(), BLOCK);
    check_sum(block)?;
    let magic = match &block[257..265] {
        [b'u', b's', b't', b'a', b'r', 0, _, _] => Magic::Posix,
        b"ustar  \0" => Magic::Gnu,
        m if is_zero(m) => Magic::V7,
        _ => return Err("a tar header with an unknown magic".to_string()),
    };
    let size = tar_size(&block[124..136]).ok_or("a tar header whose size field is not a size")?;
    let mtime = tar_time(&block[136..148]).ok_or("a tar header whose mtime field is not a time")?;
    Ok(Header {
        block,
        magic,
        typeflag: block[156],
        size,
        mtime,
    })
}

fn check_sum(block: &[u8]) -> Result<(), String> {
    let stored = tar_size(&block[148..156]);
    let mut unsigned: u64 = 8 * u64::from(b' ');
    let mut signed: i64 = 8 * i64::from(b' ');
    for (i, &b) in block.iter().enumerate() {
        if !(148..156).contains(&i) {
            unsigned += u64::from(b);
            signed += i64::from(b as i8);
        }
    }
    match stored {
        Some(sum) if sum == unsigned || i64::try_from(sum) == Ok(signed) => Ok(()),
        Some(sum) => Err(format!(
            "not a tar header (checksum {sum}, the bytes sum to {unsigned})"
        )),
        None => Err("not a tar header (no checksum)".to_string()),
    }
}

impl Header<'_> {
    /// The member's name: ustar's prefix + "/" + name, or the name alone.
    pub fn name(&self) -> Vec<u8> {
        let name = field(&self.block[0..100]);
        if self.magic != Magic::Posix {
            return name.to_vec();
        }
        let prefix = field(&self.block[345..500]);
        if prefix.is_empty() {
            return name.to_vec();
        }
        [prefix, b"/", name].concat()
    }

    /// The link target field.
    pub fn link(&self) -> Vec<u8> {
        field(&self.block[157..257]).to_vec()
    }
}

/// A text field: up to its first NUL, or the whole field when full.
pub(super) fn field(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}
