//! cpio on hand-built archives: newc/crc padding, odc without padding,
//! link groups, symbolic link targets, the trailer, and hostile fields.

use super::build_tests::*;
use super::{Format, MemberKind};

fn trailer(magic: &str) -> Vec<u8> {
    newc(magic, "TRAILER!!!", 0, 1, b"", 0)
}

#[test]
fn newc_members_are_padded_to_four_and_the_trailer_ends_the_archive() {
    let a = newc("070701", "a", 0o100644, 1, b"hello", 1);
    let l = newc("070701", "ln", 0o120777, 1, b"target", 2);
    let h1 = newc("070701", "h1", 0o100644, 2, b"", 3);
    let h2 = newc("070701", "h2", 0o100644, 2, b"xyz", 3);
    let (la, ll, lh1, lh2) = (
        a.len() as u64,
        l.len() as u64,
        h1.len() as u64,
        h2.len() as u64,
    );
    assert_eq!(la, 120);
    let mut stream = [a, l, h1, h2, trailer("070701")].concat();
    stream.resize(1024, 0);
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    let got: Vec<_> = members
        .iter()
        .map(|m| {
            (
                m.path.to_str().unwrap(),
                m.kind,
                m.size,
                m.header_offset,
                m.end_offset,
                m.inode,
            )
        })
        .collect();
    let inode = Some((8 << 32 | 1, 3));
    assert_eq!(
        got,
        [
            ("a", MemberKind::File, 5, 0, la, None),
            ("ln", MemberKind::Symlink, 6, la, la + ll, None),
            ("h1", MemberKind::File, 0, la + ll, la + ll + lh1, inode),
            (
                "h2",
                MemberKind::File,
                3,
                la + ll + lh1,
                la + ll + lh1 + lh2,
                inode
            ),
        ]
    );
    assert_eq!(
        members[1].link.as_ref().and_then(|l| l.to_str()),
        Some("target")
    );
    let (_, _, parser) = parse(&stream, 0);
    let start = la + ll + lh1 + lh2;
    assert_eq!(
        (parser.format(), parser.trailer(), parser.end()),
        (
            Some(Format::CpioNewc),
            Some((start, start + 124)),
            Some(start + 124)
        )
    );
}

#[test]
fn crc_is_newc_with_its_own_magic() {
    let stream = [
        newc("070702", "f", 0o100644, 1, b"abc", 1),
        trailer("070702"),
    ]
    .concat();
    let (members, result, parser) = parse(&stream, 0);
    assert_eq!(
        (result, parser.format(), members.len()),
        (Ok(()), Some(Format::CpioCrc), 1)
    );
}

#[test]
fn odc_members_have_no_padding_and_no_link_groups() {
    let a = odc("a", 0o100644, b"hello");
    let d = odc("d", 0o040755, b"");
    let (la, ld) = (a.len() as u64, d.len() as u64);
    assert_eq!(la, 76 + 2 + 5);
    let stream = [a, d, odc("TRAILER!!!", 0, b"")].concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    let got: Vec<_> = members
        .iter()
        .map(|m| (m.kind, m.size, m.header_offset, m.end_offset, m.mtime))
        .collect();
    assert_eq!(
        got,
        [
            (MemberKind::File, 5, 0, la, 1_700_000_000),
            (MemberKind::Directory, 0, la, la + ld, 1_700_000_000)
        ]
    );
}

#[test]
fn a_cpio_stream_without_its_trailer_does_not_end_cleanly() {
    let a = newc("070701", "a", 0o100644, 1, b"hello", 1);
    let (members, result) = parse_every_split(&a);
    assert_eq!(members.len(), 1);
    assert_eq!(
        result,
        Err("byte 120: the stream ended without cpio's TRAILER!!!".to_string())
    );
    for cut in 1..a.len() {
        let (members, result) = parse_every_split(&a[..cut]);
        assert!(members.is_empty() && result.is_err(), "cut at {cut}");
    }
}

#[test]
fn hostile_cpio_headers_turn_the_parser_off() {
    let good = newc("070701", "a", 0o100644, 1, b"", 1);
    let mut zero_name = good.clone();
    zero_name[94..102].copy_from_slice(b"00000000");
    let mut huge_name = good.clone();
    huge_name[94..102].copy_from_slice(b"7FFFFFFF");
    let mut not_hex = good.clone();
    not_hex[60] = b'g';
    let odc_in_newc = [good.clone(), odc("b", 0o100644, b""), vec![0; 64]].concat();
    let cases = [
        (zero_name, "byte 0: a cpio name size of 0 bytes"),
        (huge_name, "byte 0: a cpio name size of 2147483647 bytes"),
        (
            not_hex,
            "byte 0: a cpio header with a field that is not a number",
        ),
        (
            odc_in_newc,
            "byte 112: not a CpioNewc cpio header (magic \"070707\")",
        ),
    ];
    for (stream, reason) in cases {
        let (_, result) = parse_every_split(&stream);
        assert_eq!(result, Err(reason.to_string()));
    }
}

#[test]
fn each_cpio_format_owns_one_magic_that_reads_back_as_it_and_opens_its_trailer() {
    use super::{cpio_magic, cpio_trailer, is_cpio};
    let mut seen = Vec::new();
    for format in Format::ALL {
        let Some(magic) = cpio_magic(format) else {
            assert!(!is_cpio(format), "{format:?}");
            continue;
        };
        assert!(is_cpio(format));
        assert_eq!(super::cpio::magic(magic.as_bytes()), Some(format));
        assert!(
            cpio_trailer(format).starts_with(magic.as_bytes()),
            "{format:?}"
        );
        assert!(!seen.contains(&magic), "{magic} named twice");
        seen.push(magic);
    }
    assert_eq!(seen.len(), 3);
}
