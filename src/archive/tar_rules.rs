//! Where GNU tar and bsdtar read a tar header alike, and where they do
//! not: how much data follows a header of each kind (a size on a kind
//! that has none), the type flags and the names they read differently.
//! Measured with GNU tar 1.34 and bsdtar 3.6 over all 256 type flags
//! (docs/catalog.md, "As tar sees it"); the parser follows what both do
//! and turns off, naming the reason, where they differ, since a catalog
//! would then list members one of them never extracts.
//! `tests/buffer/archive/differential.rs` holds it against the tools.

use super::member::{Format, MemberKind};
use super::pax::{Effective, Key};
use super::tar::{Header, Magic};

/// A member's kind, and how many bytes of data (unpadded) follow its
/// header. Measured against GNU tar 1.34 and bsdtar 3.6
/// (docs/catalog.md, "Sizes on members without data"): the two agree
/// that a pax `size` is skipped on every kind but a directory, that a
/// header's size field is skipped on files and unknown kinds and not on
/// directories, and that a plain ustar hard link has no data. Where they
/// disagree (a header's size on a symbolic link, a device, a FIFO or a
/// volume label: GNU skips it, bsdtar does not; a pax `size` on a
/// directory: bsdtar skips it, GNU does not; a hard link's size field
/// once the archive has a pax header: bsdtar skips it, GNU does not) the
/// member is refused, since the two would extract different members.
pub(super) fn kind_and_data(
    header: &Header,
    path: &[u8],
    pax_size: Option<u64>,
    format: Option<Format>,
) -> Result<(MemberKind, u64), String> {
    let field = header.size;
    let disagree = |what: &str, skips: &str| {
        Err(format!(
            "{what} with a size of {} bytes ({skips}): GNU tar and bsdtar would list different members",
            pax_size.unwrap_or(field)
        ))
    };
    let kind = match header.typeflag {
        b'0' | 0 | b'7' if header.magic == Magic::V7 && path.ends_with(b"/") => {
            MemberKind::Directory
        }
        b'0' | 0 | b'7' | b'S' => MemberKind::File,
        b'1' => MemberKind::HardLink,
        b'2' => MemberKind::Symlink,
        b'3' => MemberKind::CharDevice,
        b'4' => MemberKind::BlockDevice,
        b'5' => MemberKind::Directory,
        b'6' => MemberKind::Fifo,
        b'D' => MemberKind::Directory,
        _ => MemberKind::Other,
    };
    let data = match (header.typeflag, pax_size) {
        (b'5', Some(0) | None) => 0,
        (b'5', Some(_)) => {
            return disagree(
                "a directory",
                "a pax size: bsdtar skips it, GNU tar does not",
            )
        }
        (b'1', Some(size)) => size,
        (b'1', None) if field != 0 && format == Some(Format::Pax) => {
            return disagree(
                "a hard link in a pax archive",
                "its size field: bsdtar skips it, GNU tar does not",
            )
        }
        (b'1', None) => 0,
        (b'2' | b'3' | b'4' | b'6', None) if field != 0 => {
            return disagree(
                kind_named(header.typeflag),
                "its size field: GNU tar skips it, bsdtar does not",
            )
        }
        (_, size) => size.unwrap_or(field),
    };
    Ok((kind, data))
}

/// Type flags the two tools read differently, measured over all 256:
/// bsdtar takes 'A' as a Solaris ACL for the next member, where GNU tar
/// lists a file; and as the
/// archive's first header (`first`), a type flag that is neither NUL, a
/// digit nor a letter makes bsdtar refuse the whole archive
/// ("Unrecognized archive format"), where GNU tar lists a file (later in
/// an archive both list one).
pub(super) fn refused_type_flag(typeflag: u8, first: bool) -> Result<(), String> {
    let why = match typeflag {
        b'A' => "a Solaris ACL to bsdtar",
        t if t == 0 || t.is_ascii_alphanumeric() || !first => return Ok(()),
        _ => "no archive to bsdtar as the first header",
    };
    Err(format!(
        "type flag {}: {why}, a file to GNU tar: GNU tar and bsdtar would list different members",
        super::name::Name::new([typeflag]).escaped()
    ))
}

/// Names the two tools read differently (measured): a pax `path` or
/// `linkpath` with an empty value (GNU tar: an empty name; bsdtar: the
/// header's field), and a hard link with an empty target (GNU tar: a link
/// to '.'; bsdtar: an empty file).
pub(super) fn disputed_names(
    attrs: &Effective,
    kind: MemberKind,
    link: Option<&[u8]>,
) -> Result<(), String> {
    let why = if attrs.emptied(Key::Path) {
        "a pax path with an empty value: GNU tar reads an empty name, bsdtar the header's"
    } else if attrs.emptied(Key::LinkPath) {
        "a pax linkpath with an empty value: GNU tar reads an empty target, bsdtar the header's"
    } else if kind == MemberKind::HardLink && link == Some(&[][..]) {
        "a hard link with an empty target: GNU tar links it to '.', bsdtar makes an empty file"
    } else {
        return Ok(());
    };
    Err(format!(
        "{why}: GNU tar and bsdtar would list different members"
    ))
}

fn kind_named(typeflag: u8) -> &'static str {
    match typeflag {
        b'2' => "a symbolic link",
        b'3' => "a character device",
        b'4' => "a block device",
        _ => "a FIFO",
    }
}
