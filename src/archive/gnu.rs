//! GNU tar's own headers: 'L' and 'K' (a long name or link target as the
//! data of a `././@LongLink` pseudo-member, NUL included) and 'S', the old
//! sparse format, whose map may go on in 512-byte extension blocks
//! between the header and the data. The blocks are only counted.

use super::numbers::tar_size;
use super::tar::field;

/// At most this many sparse extension blocks (21 map entries each) per
/// member; more turns the parser off.
pub(super) const MAX_SPARSE_BLOCKS: u64 = 1 << 20;

/// A long name or link target from an 'L'/'K' member's data.
pub(super) fn long_name(data: &[u8]) -> Vec<u8> {
    field(data).to_vec()
}

/// An 'S' header's real size (bytes 483..495) and whether extension
/// blocks follow it (byte 482).
pub(super) fn sparse_header(block: &[u8]) -> Result<(u64, bool), String> {
    let realsize = tar_size(&block[483..495]).ok_or("a GNU sparse header without a real size")?;
    Ok((realsize, block[482] != 0))
}

/// Whether another extension block follows this one (byte 504).
pub(super) fn extension_continues(block: &[u8]) -> bool {
    block[504] != 0
}
