//! A size on a header whose kind has no data (issue 45 finding 7): what
//! GNU tar 1.34 and bsdtar 3.6 skip, measured type flag by type flag (the
//! table below; docs/catalog.md), and what the parser must then do: skip
//! what both skip, read as headers what neither skips, and turn off where
//! they differ, since a catalog would then list members one of them
//! never extracts. `tests/buffer/archive/differential` checks the same
//! against the tools themselves on generated archives.

use super::build_tests::*;
use super::MemberKind;

/// Whether each tool skips `size` bytes of data after a header with this
/// type flag, given its size in the header's field or in a pax `size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Skips {
    gnu: bool,
    bsd: bool,
}

/// Measured: `tar tvf` and `bsdtar tvf` of an archive whose member of
/// each type flag has 1024 bytes after it that hold a valid header.
fn measured(typeflag: u8, pax: bool) -> Skips {
    let regular = matches!(typeflag, b'0' | 0 | b'7' | b'D') || !b"123456".contains(&typeflag);
    match (pax, typeflag) {
        (false, _) if regular => Skips {
            gnu: true,
            bsd: true,
        },
        (false, b'1' | b'5') => Skips {
            gnu: false,
            bsd: false,
        },
        (false, _) => Skips {
            gnu: true,
            bsd: false,
        },
        (true, b'5') => Skips {
            gnu: false,
            bsd: true,
        },
        (true, _) => Skips {
            gnu: true,
            bsd: true,
        },
    }
}

/// Every type flag the parser takes as a member (the extended headers,
/// 'M', 'N', 'S' and 'V' have rules of their own; 'A' and flags
/// that are not letters or digits are refused).
fn member_flags() -> impl Iterator<Item = u8> {
    (0..=255u8).filter(|f| taken(*f) && !b"xXgLKMNSV".contains(f))
}

fn taken(typeflag: u8) -> bool {
    (typeflag == 0 || typeflag.is_ascii_alphanumeric()) && typeflag != b'A'
}

// Measured over all 256 type flags: bsdtar reads 'A' as a Solaris ACL,
// and refuses an archive whose first header's flag is not NUL,
// a digit or a letter; GNU tar lists a file for each. Later in an
// archive both list such a flag as a file.
#[test]
fn a_type_flag_bsdtar_reads_otherwise_than_gnu_tar_is_refused() {
    for typeflag in (0..=255u8).filter(|f| !taken(*f)) {
        let stream = [member(b"m", typeflag, 0, POSIX), end()].concat();
        let (members, result) = parse_every_split(&stream);
        let why = result.expect_err(&format!("{typeflag:#04x}"));
        assert!(why.starts_with("byte 0: type flag "), "{why}");
        assert!(members.is_empty());
        let later = [member(b"a", b'0', 0, POSIX), stream].concat();
        let (members, result) = parse_every_split(&later);
        if typeflag == b'A' {
            assert!(result.unwrap_err().starts_with("byte 512: type flag "));
        } else {
            assert_eq!((members.len(), result), (2, Ok(())), "{typeflag:#04x}");
            assert_eq!(members[1].kind, MemberKind::Other);
        }
    }
}

fn stream(typeflag: u8, pax: bool) -> Vec<u8> {
    let mut hidden = member(b"hidden", b'0', 5, POSIX);
    hidden.resize(1024, b'h');
    let mut parts = Vec::new();
    if pax {
        parts.push(extension(b'x', record("size", "1024").as_bytes(), POSIX));
    }
    let mut m = header(b"m", typeflag, if pax { 0 } else { 1024 }, POSIX);
    m[157] = b't'; // a link's target, for the kinds that have one
    seal(&mut m);
    parts.push(m);
    parts.push(hidden);
    parts.push(member(b"after", b'0', 0, POSIX));
    parts.push(end());
    parts.concat()
}

// issue 45 finding 7: a pax size on a symbolic link (or a device, a FIFO,
// a hard link) is skipped as both tools skip it, so the bytes after it
// are never a member; a size field both read differently is refused.
#[test]
fn a_size_on_any_kind_is_skipped_as_gnu_tar_and_bsdtar_skip_it_or_refused() {
    for pax in [false, true] {
        for typeflag in member_flags() {
            let skips = measured(typeflag, pax);
            let (members, result) = parse_every_split(&stream(typeflag, pax));
            let names: Vec<&[u8]> = members.iter().map(|m| m.path.as_bytes()).collect();
            let case = format!("type flag {typeflag:#04x}, pax {pax}: {result:?}");
            match (skips.gnu, skips.bsd) {
                (true, true) => {
                    assert_eq!(result, Ok(()), "{case}");
                    assert_eq!(names, [&b"m"[..], b"after"], "{case}");
                }
                (false, false) => {
                    assert_eq!(result, Ok(()), "{case}");
                    assert_eq!(names, [&b"m"[..], b"hidden", b"after"], "{case}");
                }
                _ => {
                    let why = result.expect_err(&case);
                    assert!(why.starts_with("byte "), "{case}");
                    assert!(why.contains("GNU tar and bsdtar"), "{case}");
                    assert!(names.is_empty(), "{case}");
                }
            }
        }
    }
}

#[test]
fn a_symbolic_link_with_a_pax_size_has_no_size_of_its_own() {
    let (members, result) = parse_every_split(&stream(b'2', true));
    assert_eq!(result, Ok(()));
    assert_eq!((members[0].kind, members[0].size), (MemberKind::Symlink, 0));
    assert_eq!((members[0].header_offset, members[0].end_offset), (0, 2560));
}

// A hard link's size field is data only to bsdtar, and only once the
// archive has had a pax header: refused there, no data elsewhere.
#[test]
fn a_hard_link_size_field_in_a_pax_archive_is_refused() {
    let stream = [
        extension(b'g', record("comment", "hi").as_bytes(), POSIX),
        header(b"h", b'1', 1024, POSIX),
        vec![0; 1024],
        end(),
    ]
    .concat();
    let (_, result) = parse_every_split(&stream);
    let why = result.unwrap_err();
    assert!(
        why.starts_with("byte 1024: a hard link in a pax archive with a size of 1024 bytes"),
        "{why}"
    );
}

// A GNU volume label with a size: GNU tar skips it, bsdtar does not.
#[test]
fn a_volume_label_with_a_size_is_refused() {
    let stream = [member(b"label", b'V', 600, GNU), end()].concat();
    let (_, result) = parse_every_split(&stream);
    assert!(result
        .unwrap_err()
        .starts_with("byte 0: a volume label ('V') with a size of 600 bytes"));
    let stream = [
        header(b"label", b'V', 0, GNU),
        member(b"a", b'0', 3, GNU),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!((members.len(), result), (1, Ok(())));
}

// issue 45, minor: an empty name is listed by GNU tar and skipped by
// bsdtar, so it is refused.
#[test]
fn a_member_with_an_empty_name_is_refused() {
    let stream = [
        member(b"", b'0', 5, POSIX),
        member(b"after", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert!(members.is_empty());
    assert!(result
        .unwrap_err()
        .starts_with("byte 0: a member with an empty name"));
}
