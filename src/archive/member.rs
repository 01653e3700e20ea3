//! One member of an archive, as the parser found it in the stream: what a
//! catalog keeps of it and what a restore needs to read it back.

use serde::{Deserialize, Serialize};

use super::name::Name;

/// The archive formats the parser follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// POSIX ustar, without extended headers.
    Ustar,
    /// GNU tar's format (long names as 'L'/'K' members, old sparse files).
    Gnu,
    /// POSIX pax: ustar with 'x'/'g' extended headers.
    Pax,
    /// cpio's "new ASCII" format (070701).
    CpioNewc,
    /// cpio's "new ASCII" format with checksums (070702).
    CpioCrc,
    /// cpio's portable ASCII format (070707).
    CpioOdc,
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 6] = [
        Format::Ustar,
        Format::Gnu,
        Format::Pax,
        Format::CpioNewc,
        Format::CpioCrc,
        Format::CpioOdc,
    ];
}

/// What a member is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberKind {
    File,
    HardLink,
    Symlink,
    Directory,
    CharDevice,
    BlockDevice,
    Fifo,
    /// A file stored sparse (GNU 'S', or pax GNU.sparse.*).
    Sparse,
    /// Anything else the format allows and the parser skips correctly.
    Other,
}

impl MemberKind {
    /// Every kind, in declaration order.
    pub const ALL: [MemberKind; 9] = [
        MemberKind::File,
        MemberKind::HardLink,
        MemberKind::Symlink,
        MemberKind::Directory,
        MemberKind::CharDevice,
        MemberKind::BlockDevice,
        MemberKind::Fifo,
        MemberKind::Sparse,
        MemberKind::Other,
    ];
}

/// One member and where it lies in the stream (byte offsets from the
/// stream's first byte, across volumes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// Its path as the archive names it (after pax `path` or a GNU long
    /// name), byte for byte.
    pub path: Name,
    pub kind: MemberKind,
    /// The file's size: the bytes extracting it gives (a sparse file's
    /// real size).
    pub size: u64,
    /// Seconds since the epoch.
    pub mtime: i64,
    /// A link's target, for hard and symbolic links.
    pub link: Option<Name>,
    /// Where the first header that belongs to it starts: its pax 'x' or
    /// GNU 'L'/'K' header if it has one, else its own header. A restore
    /// reads from here.
    pub header_offset: u64,
    /// Where its archive entry ends, padding included: the next member's
    /// header starts here.
    pub end_offset: u64,
    /// For cpio's newc and crc hard links (a link count over 1): the
    /// device and inode. Members sharing them are one file, and only the
    /// last of them carries its data, so a restore of any needs that one.
    pub inode: Option<(u64, u64)>,
}
