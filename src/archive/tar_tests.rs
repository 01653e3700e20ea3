//! tar on hand-built archives: exact offsets for ustar, GNU and pax
//! members, extended headers, sparse files, base-256 numbers, and every
//! header the parser must refuse.

use super::build_tests::*;
use super::{Format, MemberKind, MAX_HEADER_BYTES};

#[test]
fn ustar_members_lie_at_their_header_and_end_offsets() {
    let stream = [
        member(b"a", b'0', 600, POSIX),
        member(b"d", b'5', 0, POSIX),
        header(b"s", b'2', 0, POSIX),
        member(b"e", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    let bounds: Vec<_> = members
        .iter()
        .map(|m| {
            (
                m.path.to_str().unwrap(),
                m.kind,
                m.size,
                m.header_offset,
                m.end_offset,
            )
        })
        .collect();
    assert_eq!(
        bounds,
        [
            ("a", MemberKind::File, 600, 0, 1536),
            ("d", MemberKind::Directory, 0, 1536, 2048),
            ("s", MemberKind::Symlink, 0, 2048, 2560),
            ("e", MemberKind::File, 0, 2560, 3072),
        ]
    );
    assert_eq!(members[0].mtime, 0o14361066340);
    assert_eq!(members[2].link.as_ref().and_then(|l| l.to_str()), Some(""));
    let (_, _, parser) = parse(&stream, 0);
    assert_eq!(parser.format(), Some(Format::Ustar));
    assert_eq!(parser.end(), Some(3072 + 1024));
}

#[test]
fn the_ustar_prefix_is_read_only_under_the_posix_magic() {
    let mut posix = header(b"name", b'0', 0, POSIX);
    posix[345..351].copy_from_slice(b"prefix");
    seal(&mut posix);
    let mut gnu = header(b"name", b'0', 0, GNU);
    gnu[345..351].copy_from_slice(b"prefix");
    seal(&mut gnu);
    let (members, _) = parse_every_split(&[posix, end()].concat());
    assert_eq!(members[0].path, "prefix/name");
    let (members, _) = parse_every_split(&[gnu, end()].concat());
    assert_eq!(members[0].path, "name");
}

#[test]
fn a_gnu_long_name_and_link_start_the_member_at_their_first_header() {
    let name = "n".repeat(300);
    let target = "t".repeat(200);
    let stream = [
        member(b"first", b'0', 1, GNU),
        extension(b'K', format!("{target}\0").as_bytes(), GNU),
        extension(b'L', format!("{name}\0").as_bytes(), GNU),
        header(&name.as_bytes()[..100], b'1', 0, GNU),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    assert_eq!(members[1].path, name);
    assert_eq!(members[1].kind, MemberKind::HardLink);
    assert_eq!(
        members[1].link.as_ref().and_then(|l| l.to_str()),
        Some(target.as_str())
    );
    assert_eq!(
        (members[1].header_offset, members[1].end_offset),
        (1024, 1024 + 1024 + 1024 + 512)
    );
}

#[test]
fn a_pax_header_names_the_member_and_sets_the_size_that_is_skipped() {
    let records = [
        record("path", "long/pax/name"),
        record("size", "1000"),
        record("mtime", "-1.5"),
    ]
    .concat();
    let stream = [
        extension(b'x', records.as_bytes(), POSIX),
        member(b"short", b'0', 1000, POSIX)[..512].to_vec(),
        vec![b'd'; 1024],
        member(b"next", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    assert_eq!(
        (
            members[0].path.to_str().unwrap(),
            members[0].size,
            members[0].mtime
        ),
        ("long/pax/name", 1000, -2)
    );
    assert_eq!((members[0].header_offset, members[0].end_offset), (0, 2560));
    assert_eq!(
        (members[1].path.to_str().unwrap(), members[1].header_offset),
        ("next", 2560)
    );
    let (_, _, parser) = parse(&stream, 0);
    assert_eq!(parser.format(), Some(Format::Pax));
}

#[test]
fn a_pax_global_header_belongs_to_no_member_and_a_local_empty_value_cancels_it() {
    let stream = [
        member(b"a", b'0', 0, POSIX),
        extension(b'g', record("mtime", "7").as_bytes(), POSIX),
        member(b"b", b'0', 0, POSIX),
        extension(b'x', record("mtime", "").as_bytes(), POSIX),
        member(b"c", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    let got: Vec<_> = members
        .iter()
        .map(|m| (m.path.to_str().unwrap(), m.mtime, m.header_offset))
        .collect();
    assert_eq!(
        got,
        [
            ("a", 0o14361066340, 0),
            ("b", 7, 1536),
            ("c", 0o14361066340, 2048)
        ]
    );
    let (_, _, parser) = parse(&stream, 0);
    assert_eq!(parser.globals(), &[(512, 1536)]);
}

#[test]
fn an_old_gnu_sparse_member_skips_its_extension_blocks_and_reports_its_real_size() {
    let mut sparse = header(b"sp", b'S', 1024, GNU);
    sparse[482] = 1;
    sparse[483..494].copy_from_slice(b"00050000000");
    seal(&mut sparse);
    let mut extension_block = vec![0u8; 512];
    extension_block[504] = 1;
    let last = vec![0u8; 512];
    let stream = [
        sparse,
        extension_block,
        last,
        vec![b'd'; 1024],
        member(b"after", b'0', 0, GNU),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    assert_eq!(
        (members[0].kind, members[0].size, members[0].end_offset),
        (MemberKind::Sparse, 0o50000000, 2560)
    );
    assert_eq!(members[1].header_offset, 2560);
}

#[test]
fn a_pax_sparse_member_reports_its_real_name_and_size() {
    let records = [
        record("GNU.sparse.major", "1"),
        record("GNU.sparse.name", "d/sp"),
        record("GNU.sparse.realsize", "10485762"),
    ]
    .concat();
    let stream = [
        extension(b'x', records.as_bytes(), POSIX),
        member(b"d/GNUSparseFile.1/sp", b'0', 1536, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    assert_eq!(
        (
            members[0].path.to_str().unwrap(),
            members[0].kind,
            members[0].size
        ),
        ("d/sp", MemberKind::Sparse, 10485762)
    );
    assert_eq!(members[0].end_offset, 1024 + 512 + 1536);
}

#[test]
fn base_256_numbers_give_large_sizes_and_negative_times() {
    let mut block = header(b"big", b'0', 0, GNU);
    block[124..136].copy_from_slice(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0]);
    block[136..148].copy_from_slice(&[0xff; 12]);
    seal(&mut block);
    let mut stream = block;
    stream.resize(512 + 4096, 0);
    stream.extend(end());
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    assert_eq!(
        (members[0].size, members[0].mtime, members[0].end_offset),
        (4096, -1, 4608)
    );
}

#[test]
fn a_signed_checksum_is_accepted_as_gnu_tar_accepts_it() {
    let mut block = header(b"\xe9t\xe9", b'0', 0, POSIX);
    block[148..156].copy_from_slice(b"        ");
    let sum: i32 = block.iter().map(|&b| i32::from(b as i8)).sum();
    block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let (members, result) = parse_every_split(&[block, end()].concat());
    assert_eq!(result, Ok(()));
    assert_eq!(members.len(), 1);
}

#[test]
fn a_v7_header_is_followed_as_ustar_and_a_trailing_slash_is_a_directory() {
    let stream = [
        member(b"dir/", b'0', 0, &[0; 8]),
        member(b"f", 0, 3, &[0; 8]),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(result, Ok(()));
    assert_eq!(
        (members[0].kind, members[1].kind, members[1].end_offset),
        (MemberKind::Directory, MemberKind::File, 1536)
    );
    assert_eq!(parse(&stream, 0).2.format(), Some(Format::Ustar));
}

#[test]
fn the_stream_may_end_at_a_member_boundary_but_not_inside_one() {
    let stream = [
        extension(b'L', &[b'l'; 200], GNU),
        member(b"l", b'0', 700, GNU),
        member(b"b", b'0', 0, GNU),
    ]
    .concat();
    let boundaries = [2560, 3072];
    for cut in 1..=stream.len() {
        let (members, result) = parse_every_split(&stream[..cut]);
        assert_eq!(
            result.is_ok(),
            boundaries.contains(&cut),
            "cut at {cut}: {result:?}"
        );
        assert_eq!(
            members.len(),
            boundaries.iter().filter(|&&b| b <= cut).count(),
            "cut at {cut}"
        );
    }
    // Past the end only zeros may follow: anything else (a second archive
    // appended) would be missing from the catalog.
    let after_end = [member(b"a", b'0', 0, POSIX), end(), b"not zero".to_vec()].concat();
    let result = parse_every_split(&after_end).1;
    assert!(result
        .unwrap_err()
        .contains("data after the archive's end at byte 1536"));
}

#[test]
fn a_pax_header_of_almost_the_limit_is_read_and_its_memory_given_back() {
    let comment = "c".repeat(MAX_HEADER_BYTES as usize - 100);
    let stream = [
        extension(b'x', record("comment", &comment).as_bytes(), POSIX),
        member(b"a", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result, parser) = parse(&stream, 65536);
    assert_eq!((members.len(), result), (1, Ok(())));
    assert!(parser.buffered() <= 64 << 10, "{}", parser.buffered());
}
