//! The plan against catalogs written in code, tar-like, with no archive
//! behind them: where a global header goes among the pieces, a member
//! that ends before it starts, and a choice longer than the plan keeps.

use std::path::Path;

use crate::archive::{Format, Member, MemberKind};
use crate::catalog::{Catalog, CatalogWriter};

use super::plan::{plan, plan_with, Piece, PlanError, Tail, KEEP_MEMBERS};
use super::test_plan::{globs, laid};

/// A catalog of `members` (path, header offset, end offset), tar-like.
fn synthetic(dir: &Path, members: &[(&str, u64, u64)]) -> Catalog {
    let path = dir.join("s.catalog");
    let mut w = CatalogWriter::create(&path, Format::Pax).unwrap();
    for &(p, start, end) in members {
        w.add(&Member {
            path: p.into(),
            kind: MemberKind::File,
            size: 0,
            mtime: 0,
            link: None,
            header_offset: start,
            end_offset: end,
            inode: None,
        })
        .unwrap();
    }
    w.finish().unwrap();
    Catalog::open(&path).unwrap()
}

#[test]
fn a_global_header_comes_before_the_first_chosen_member_after_it_and_never_after_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let members = [
        ("a", 0, 1024),
        ("b", 2048, 3072),
        ("c", 3072, 4096),
        ("d", 5120, 6144),
    ];
    let catalog = synthetic(dir.path(), &members);
    let tail = Tail {
        globals: vec![(1024, 2048), (4096, 5120)],
        trailer: None,
    };
    let stream = |start, end| Piece::Stream { start, end };
    let p = laid(plan_with(&catalog, tail.clone(), &globs(&["b", "d"])));
    assert_eq!(p.pieces[..2], [stream(1024, 3072), stream(4096, 6144)]);
    assert_eq!(p.bytes(), 10240);
    let p = laid(plan_with(&catalog, tail.clone(), &globs(&["a"])));
    assert_eq!(p.pieces[..1], [stream(0, 1024)]);
    assert_eq!(p.pieces.len(), 2);
    let p = laid(plan_with(&catalog, tail.clone(), &globs(&["c"])));
    assert_eq!(p.pieces[..2], [stream(1024, 2048), stream(3072, 4096)]);
}

#[test]
fn a_member_that_ends_before_it_starts_is_a_damaged_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = synthetic(dir.path(), &[("a", 0, 1024), ("b", 2048, 1536)]);
    match plan(&catalog, &globs(&["*"])).map(|p| p.members) {
        Err(PlanError::Catalog(e)) => assert!(e.to_string().contains("member b ends at byte 1536")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_choice_past_what_the_plan_keeps_is_read_again_from_the_catalog_alike() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..KEEP_MEMBERS + 10).map(|i| format!("m{i:05}")).collect();
    let members: Vec<(&str, u64, u64)> = (names.iter().enumerate())
        .map(|(i, n)| (n.as_str(), i as u64 * 1024, i as u64 * 1024 + 512))
        .collect();
    let catalog = synthetic(dir.path(), &members);
    let all = laid(plan_with(&catalog, Tail::default(), &globs(&["m*"])));
    assert_eq!(all.members.len(), members.len());
    assert_eq!(all.pieces.len(), members.len() + 1);
    let few = laid(plan_with(&catalog, Tail::default(), &globs(&["m0000*"])));
    assert_eq!(few.pieces.len(), 11);
    assert_eq!(few.pieces[..10], all.pieces[..10]);
}
