//! A catalog reads back exactly the members written to it, in order.

use crate::archive::{Format, Member, MemberKind};

use super::{Catalog, CatalogWriter};

pub(super) fn member(path: &str, kind: MemberKind, header_offset: u64, size: u64) -> Member {
    Member {
        path: path.into(),
        kind,
        size,
        mtime: 1_700_000_000,
        link: None,
        header_offset,
        end_offset: header_offset + 512 + size.div_ceil(512) * 512,
        inode: None,
    }
}

/// `count` members in a tar-like walk, each following the last.
pub(super) fn walk(count: usize) -> Vec<Member> {
    let mut offset = 0;
    (0..count)
        .map(|i| {
            let path = format!("home/user{}/dir{}/file{i:05}.txt", i / 100, i / 10);
            let m = member(&path, MemberKind::File, offset, (i * 37) as u64);
            offset = m.end_offset;
            m
        })
        .collect()
}

pub(super) fn write(path: &std::path::Path, format: Format, members: &[Member]) -> u64 {
    let mut w = CatalogWriter::create(path, format).unwrap();
    for m in members {
        w.add(m).unwrap();
    }
    let summary = w.finish().unwrap();
    assert_eq!(summary.members, members.len() as u64);
    summary.bytes
}

fn read(path: &std::path::Path) -> Vec<Member> {
    let catalog = Catalog::open(path).unwrap();
    let members: Vec<Member> = catalog.members().map(Result::unwrap).collect();
    assert_eq!(catalog.len(), members.len() as u64);
    members
}

#[test]
fn every_kind_with_links_inodes_and_offsets_past_4_gib_reads_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let kinds = MemberKind::ALL;
    let mut members = Vec::new();
    let mut offset = (5u64 << 30) - 1024;
    for (i, kind) in kinds.iter().enumerate() {
        let mut m = member(&format!("data/{i}"), *kind, offset, 3 << 30);
        m.mtime = -86_400 * i as i64;
        if matches!(kind, MemberKind::HardLink | MemberKind::Symlink) {
            m.link = Some(format!("../target/{i}").into());
        }
        if i % 2 == 0 {
            m.inode = Some((u64::MAX - i as u64, 1 << 40));
        }
        offset = m.end_offset + 512 * i as u64;
        members.push(m);
    }
    write(&path, Format::CpioNewc, &members);
    assert_eq!(read(&path), members);
    assert_eq!(Catalog::open(&path).unwrap().format(), Format::CpioNewc);
}

#[test]
fn long_and_unicode_paths_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    // 64 KiB, the longest a path may be.
    let long = "d/".repeat(32 * 1024 - 1);
    let members = vec![
        member(&format!("{long}dd"), MemberKind::Directory, 0, 0),
        member(&format!("{long}x"), MemberKind::File, 512, 10),
        member("größe/日本語/ファイル.txt", MemberKind::File, 2048, 5),
        member("größe/日本/ファイル.txt", MemberKind::File, 4096, 5),
        member("", MemberKind::Other, 8192, 0),
    ];
    write(&path, Format::Pax, &members);
    assert_eq!(read(&path), members);
}

#[test]
fn many_blocks_read_back_in_stream_order_even_when_offsets_go_backwards() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let mut members = walk(1000);
    members[300].header_offset = 0;
    members[301].header_offset = u64::MAX;
    members[301].end_offset = 7;
    members[302].mtime = i64::MIN;
    members[303].mtime = i64::MAX;
    members[304].size = u64::MAX;
    let bytes = write(&path, Format::Gnu, &members);
    assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
    assert_eq!(read(&path), members);
    // Front-coding and varints keep it small.
    assert!(bytes < 1000 * 24, "{bytes} bytes");
}

#[test]
fn an_empty_catalog_opens_with_no_members() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let bytes = write(&path, Format::Ustar, &[]);
    // The header, an empty tail (four counts and flags) and the footer.
    assert_eq!(bytes, 32 + 10 + 80);
    let catalog = Catalog::open(&path).unwrap();
    assert!(catalog.is_empty());
    assert_eq!(catalog.members().count(), 0);
}

#[test]
fn every_format_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    for format in Format::ALL {
        write(&path, format, &walk(3));
        assert_eq!(Catalog::open(&path).unwrap().format(), format);
    }
}

#[test]
fn a_path_over_64_kib_is_refused_and_the_rest_still_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let mut w = CatalogWriter::create(&path, Format::Pax).unwrap();
    let huge = member(&"x".repeat(65 * 1024), MemberKind::File, 0, 0);
    let err = w.add(&huge).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    let mut linked = member("l", MemberKind::Symlink, 0, 0);
    linked.link = Some("y".repeat(65 * 1024).into());
    assert!(w.add(&linked).is_err());
    let ok = walk(2);
    for m in &ok {
        w.add(m).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(read(&path), ok);
}

#[test]
fn only_a_finished_catalog_appears_and_no_temporary_file_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let mut w = CatalogWriter::create(&path, Format::Ustar).unwrap();
    w.add(&walk(1)[0]).unwrap();
    assert!(!path.exists());
    drop(w);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    write(&path, Format::Ustar, &walk(1));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("c.catalog")]);
}

fn any_member() -> impl proptest::strategy::Strategy<Value = Member> {
    use proptest::prelude::*;
    let kind = proptest::sample::select(vec![
        MemberKind::File,
        MemberKind::HardLink,
        MemberKind::Symlink,
        MemberKind::Directory,
        MemberKind::Sparse,
        MemberKind::Other,
    ]);
    (
        "[a-c/é]{0,12}",
        kind,
        any::<u64>(),
        any::<i64>(),
        proptest::option::of("[x-z日]{0,5}"),
        any::<u64>(),
        any::<u64>(),
        proptest::option::of(any::<(u64, u64)>()),
    )
        .prop_map(
            |(path, kind, size, mtime, link, header, end, inode)| Member {
                path: path.into(),
                kind,
                size,
                mtime,
                link: link.map(Into::into),
                header_offset: header,
                end_offset: end,
                inode,
            },
        )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    #[test]
    fn any_members_read_back_as_written(members in proptest::collection::vec(any_member(), 0..600)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.catalog");
        write(&path, Format::Pax, &members);
        proptest::prop_assert_eq!(read(&path), members);
    }
}

// issue 45 finding 8: names are the archive's bytes. `x\xfe` and `x\xff`
// (and a link to one of them, over a block boundary where the index keeps
// a first path) read back as themselves, not as one lossy name.
#[test]
fn names_that_are_not_utf8_read_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let mut members = walk(300);
    let mut fe = member("", MemberKind::File, 0, 0);
    fe.path = crate::archive::Name::new(&b"x\xfe"[..]);
    let mut ff = fe.clone();
    ff.path = crate::archive::Name::new(&b"x\xff"[..]);
    let mut link = member("l", MemberKind::HardLink, 0, 0);
    link.link = Some(ff.path.clone());
    for (i, m) in [fe, ff, link].into_iter().enumerate() {
        members.insert(255 + i, m);
    }
    let mut offset = 0;
    for m in &mut members {
        let span = m.end_offset - m.header_offset;
        m.header_offset = offset;
        m.end_offset = offset + span;
        offset = m.end_offset;
    }
    write(&path, Format::Gnu, &members);
    let back = read(&path);
    assert_eq!(back, members);
    assert_eq!(back[255].path.as_bytes(), b"x\xfe");
    assert_eq!(back[256].path.as_bytes(), b"x\xff");
    assert_eq!(back[257].link.as_ref().unwrap().as_bytes(), b"x\xff");
}

// A version 1 catalog (the same layout, names made UTF-8) is still read.
#[test]
fn a_version_1_catalog_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let members = walk(300);
    write(&path, Format::Ustar, &members);
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[16..18], [2, 0]);
    bytes[16] = 1;
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(read(&path), members);
}
