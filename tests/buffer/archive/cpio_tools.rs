//! GNU cpio's three ASCII formats, parsed and checked member by member.

use tapebuf::archive::{Format, MemberKind};

use super::{listing, pairs, parse, run, shell, tree};
use crate::common;

/// The parser lists what `cpio -tv` lists, and each member's byte range
/// followed by the archive's own trailer lists that member alone.
fn check_format(format: &str, expected: Format) {
    common::needs::tool("cpio", "cpio");
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    tree(root);
    shell(
        root,
        &format!("find d | sort | cpio -o -H {format} > archive.cpio 2>/dev/null"),
    );
    let bytes = std::fs::read(root.join("archive.cpio")).unwrap();
    let (members, parser) = parse(&bytes);
    assert_eq!(parser.format(), Some(expected));
    let tv = listing(&shell(root, "cpio -tv < archive.cpio 2>/dev/null"), 4, 8);
    assert_eq!(pairs(&members), tv);
    let (start, end) = parser.trailer().unwrap();
    let trailer = &bytes[start as usize..end as usize];
    for member in &members {
        let mut slice = bytes[member.header_offset as usize..member.end_offset as usize].to_vec();
        slice.extend_from_slice(trailer);
        let listed = run(root, "cpio -t 2>/dev/null", Some(&slice), true);
        assert_eq!(
            String::from_utf8_lossy(&listed),
            format!("{}\n", member.path)
        );
    }
    let link = members.iter().find(|m| m.path == "d/sl").unwrap();
    assert_eq!(
        (link.kind, link.link.clone()),
        (MemberKind::Symlink, Some("t".repeat(200).into()))
    );
    let linked: Vec<_> = members
        .iter()
        .filter(|m| m.path == "d/hl" || m.path == "d/small")
        .map(|m| m.inode)
        .collect();
    let groups = expected != Format::CpioOdc;
    assert!(
        linked.iter().all(|inode| inode.is_some() == groups) && linked[0] == linked[1],
        "{linked:?}"
    );
}

#[test]
fn cpio_newc_members_match_its_listing_and_each_range_is_an_archive_of_itself() {
    check_format("newc", Format::CpioNewc);
}

#[test]
fn cpio_crc_members_match_its_listing_and_each_range_is_an_archive_of_itself() {
    check_format("crc", Format::CpioCrc);
}

#[test]
fn cpio_odc_members_match_its_listing_and_each_range_is_an_archive_of_itself() {
    check_format("odc", Format::CpioOdc);
}
