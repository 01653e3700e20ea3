//! GNU tar's three formats, parsed and checked member by member.

use std::path::Path;

use tapebuf::archive::{Format, Member, MemberKind};

use super::{listing, pairs, parse, run, shell, tree};
use crate::common;

/// The pax global headers' `[start, end)` ranges.
type Globals = Vec<(u64, u64)>;

/// Archives the tree in `format`: the archive, the parser's members and
/// the pax global headers' ranges.
fn archive(
    root: &Path,
    format: &str,
    extra: &str,
) -> (Vec<u8>, Vec<Member>, Globals, Option<Format>) {
    common::needs::tool("tar", "tar");
    tree(root);
    // ustar cannot hold the longest names (tar says so and goes on), nor
    // sparse files (tar refuses -S with it).
    let ustar = format == "ustar";
    let sparse = if ustar { "" } else { "-S" };
    let script = format!("tar {sparse} --format={format} {extra} -cf archive.tar d");
    run(root, &script, None, !ustar);
    let bytes = std::fs::read(root.join("archive.tar")).unwrap();
    let (members, parser) = parse(&bytes);
    (bytes, members, parser.globals().to_vec(), parser.format())
}

/// The parser lists what `tar tv` lists, and each member's byte range,
/// after the global headers and before two zero blocks, lists itself.
fn check(root: &Path, bytes: &[u8], members: &[Member], globals: &[(u64, u64)]) {
    let tv = listing(&shell(root, "tar tvf archive.tar"), 2, 5);
    assert_eq!(pairs(members), tv);
    let mut prelude = Vec::new();
    for &(start, end) in globals {
        let at = start as usize;
        let size =
            usize::from_str_radix(std::str::from_utf8(&bytes[at + 124..at + 135]).unwrap(), 8)
                .unwrap();
        assert_eq!(end as usize, at + 512 + size.div_ceil(512) * 512);
        prelude.extend_from_slice(&bytes[at..end as usize]);
    }
    for member in members {
        let mut slice = prelude.clone();
        slice.extend_from_slice(&bytes[member.header_offset as usize..member.end_offset as usize]);
        slice.extend_from_slice(&[0; 1024]);
        let listed = run(root, "tar tf -", Some(&slice), true);
        assert_eq!(
            String::from_utf8_lossy(&listed),
            format!("{}\n", member.path)
        );
    }
}

/// `tar tvR`'s block numbers lie in each member's range: at its first
/// header in GNU format, after its pax header in pax.
fn check_block_numbers(root: &Path, members: &[Member], exact: bool) {
    let text = shell(root, "tar tvRf archive.tar");
    let blocks: Vec<u64> = String::from_utf8_lossy(&text)
        .lines()
        .filter(|line| !line.contains("Block of NULs"))
        .map(|line| {
            line["block ".len()..line.find(':').unwrap()]
                .parse::<u64>()
                .unwrap()
                * 512
        })
        .collect();
    assert_eq!(blocks.len(), members.len());
    for (at, member) in blocks.into_iter().zip(members) {
        assert!(
            (member.header_offset..member.end_offset).contains(&at),
            "{member:?} at {at}"
        );
        assert!(!exact || at == member.header_offset, "{member:?} at {at}");
    }
}

fn kind_of<'a>(members: &'a [Member], suffix: &str) -> &'a Member {
    members
        .iter()
        .find(|m| m.path.ends_with(suffix.as_bytes()))
        .unwrap()
}

#[test]
fn gnu_tar_members_match_its_listing_and_each_range_is_an_archive_of_itself() {
    let root = tempfile::tempdir().unwrap();
    let (bytes, members, globals, format) = archive(root.path(), "gnu", "");
    assert_eq!(format, Some(Format::Gnu));
    check(root.path(), &bytes, &members, &globals);
    check_block_numbers(root.path(), &members, true);
    let sparse = kind_of(&members, "/sparse");
    assert_eq!(
        (sparse.kind, sparse.size),
        (MemberKind::Sparse, (10 << 20) + 2)
    );
    let holes = kind_of(&members, "/holes");
    assert_eq!(
        (holes.kind, holes.size),
        (MemberKind::Sparse, 29 * 65536 + 1)
    );
    let extension_blocks = &bytes[holes.header_offset as usize + 512..][..512];
    assert_eq!(
        bytes[holes.header_offset as usize + 482],
        1,
        "a map in extension blocks"
    );
    assert!(!extension_blocks.iter().all(|&b| b == 0));
    assert_eq!(kind_of(&members, "/hl").kind, MemberKind::HardLink);
    assert_eq!(kind_of(&members, "/sl").link, Some("t".repeat(200).into()));
}

#[test]
fn pax_tar_members_match_its_listing_and_each_range_with_the_globals_is_an_archive_of_itself() {
    let root = tempfile::tempdir().unwrap();
    let (bytes, members, globals, format) = archive(root.path(), "pax", "--pax-option=comment=hi");
    assert_eq!(format, Some(Format::Pax));
    assert_eq!(globals.len(), 1);
    assert_eq!(globals[0].0, 0);
    check(root.path(), &bytes, &members, &globals);
    check_block_numbers(root.path(), &members, false);
    let sparse = kind_of(&members, "/sparse");
    assert_eq!(
        (sparse.path.to_str().unwrap(), sparse.kind, sparse.size),
        ("d/sparse", MemberKind::Sparse, (10 << 20) + 2)
    );
    let deep = format!("d/{}/{}/deep", "x".repeat(120), "y".repeat(150));
    assert_eq!(kind_of(&members, "/deep").path, deep);
}

#[test]
fn ustar_members_match_its_listing_and_each_range_is_an_archive_of_itself() {
    let root = tempfile::tempdir().unwrap();
    let (bytes, members, globals, format) = archive(root.path(), "ustar", "");
    assert_eq!(format, Some(Format::Ustar));
    check(root.path(), &bytes, &members, &globals);
    check_block_numbers(root.path(), &members, true);
    assert!(
        members.iter().any(|m| m.path.len() > 100),
        "the prefix field was read"
    );
}

#[test]
fn every_pax_sparse_version_gives_the_real_name_and_size() {
    for version in ["0.0", "0.1", "1.0"] {
        let root = tempfile::tempdir().unwrap();
        let extra = format!("--sparse-version={version}");
        let (bytes, members, globals, _) = archive(root.path(), "pax", &extra);
        check(root.path(), &bytes, &members, &globals);
        let sparse = kind_of(&members, "sparse");
        assert_eq!(
            (sparse.path.to_str().unwrap(), sparse.kind, sparse.size),
            ("d/sparse", MemberKind::Sparse, (10 << 20) + 2),
            "version {version}"
        );
    }
}

#[test]
fn real_archives_with_bytes_changed_or_cut_never_panic() {
    let root = tempfile::tempdir().unwrap();
    let (bytes, members, _, _) = archive(root.path(), "pax", "--pax-option=comment=hi");
    // Change bytes in the headers, where the parser looks.
    let headers: Vec<u64> = members.iter().map(|m| m.header_offset).collect();
    for seed in 0..300u64 {
        let noise = common::pattern(16, seed);
        let mut stream = bytes.clone();
        for pair in noise.chunks(2).take(4) {
            let start = headers[usize::from(pair[0]) % headers.len()] as usize;
            stream[start + usize::from(pair[1]) * 4 % 1536] = pair[0] ^ pair[1];
        }
        let cut = stream.len() - usize::from(noise[8]) * 1000;
        let mut parser = tapebuf::archive::Parser::new();
        for piece in stream[..cut].chunks(4096 + usize::from(noise[9])) {
            parser.feed(piece);
            parser.take_members();
            assert!(parser.buffered() <= tapebuf::archive::MAX_HEADER_BYTES as usize + 512);
        }
        let _ = parser.finish();
    }
}
