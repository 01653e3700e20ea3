//! The plan against the real tools: GNU tar (gnu, pax) and GNU cpio
//! (newc, crc, odc) archive a tree with long names, hard links (one
//! long-named), an empty file, a symbolic link and directories; the
//! archive is parsed and catalogued, and the plan's pieces, copied out of
//! the archive's bytes, must be an archive that `tar tf` lists and `tar
//! xf` / `cpio -i` extract cleanly, each member equal to what the whole
//! archive gives.
//!
//! The tree and its archive are in `test_tree.rs`, the drained plan in
//! `test_plan.rs`; the plan against catalogs written in code is in
//! `plan_catalog_tests.rs`.

use std::fs;

use crate::catalog::Patterns;

use super::plan::{plan, plan_with, Piece, PlanError, Tail};
use super::test_plan::{assemble, globs, laid};
use super::test_tree::{extract, made, same_members, tar_list, LONG_LINK};

const CHOSEN: &[&str] = &["d/small", "d/empty", "d/sl", "d/x*", "d/nothing*"];

fn tar_case(script: &str) {
    let m = made(script);
    let plan = laid(plan_with(&m.catalog, m.tail.clone(), &globs(CHOSEN)));
    let from_file = laid(super::plan::plan(&m.catalog, &globs(CHOSEN)));
    assert_eq!(
        from_file.pieces, plan.pieces,
        "the catalog file keeps what the plan needs"
    );
    assert_eq!(plan.unmatched, vec![4], "d/nothing* chose nothing");
    assert_eq!(plan.needed.len(), 1);
    assert_eq!(plan.needed[0].path, format!("d/{LONG_LINK}"));
    assert_eq!(plan.needed[0].by, "d/small");
    assert_eq!(plan.missing, []);
    let out = assemble(&m.archive, &plan);
    assert_eq!(out.len() % 10240, 0);
    // In stream order: the link's target first, as tar wrote it.
    let (x, long) = ("x".repeat(120), format!("d/{LONG_LINK}"));
    let want = [&long, "d/empty", "d/sl", "d/small", &format!("d/{x}/")];
    assert_eq!(
        tar_list(&m, &out),
        [&want[..], &[&format!("d/{x}/deep")]].concat()
    );
    let whole = extract(&m, "whole", "tar xf -", &m.archive);
    let part = extract(&m, "part", "tar xf -", &out);
    same_members(&part, &whole);
    assert!(!part.join("d/hl").exists());
    assert_eq!(fs::read(part.join("d/small")).unwrap(), b"three names\n");
}

#[test]
fn a_gnu_tar_subset_with_a_hard_link_to_a_long_name_outside_it_extracts_as_the_whole() {
    tar_case("tar --sort=name --format=gnu -cf - d");
}

#[test]
fn a_pax_subset_with_a_global_header_extracts_as_the_whole() {
    let script = "tar --sort=name --format=pax --pax-option=comment=hi -cf - d";
    tar_case(script);
    let m = made(script);
    assert_eq!(m.tail.globals.len(), 1);
    let plan = laid(plan_with(&m.catalog, m.tail.clone(), &globs(&["d/sl"])));
    let out = assemble(&m.archive, &plan);
    let (g_start, g_end) = m.tail.globals[0];
    let global = &m.archive[g_start as usize..g_end as usize];
    assert_eq!(
        &out[..global.len()],
        global,
        "the global header comes first"
    );
    assert_eq!(tar_list(&m, &out), ["d/sl"]);
}

#[test]
fn choosing_everything_copies_the_members_as_one_range_and_ends_like_tar() {
    let m = made("tar --sort=name --format=gnu -cf - d");
    let plan = laid(plan_with(&m.catalog, m.tail.clone(), &globs(&["d"])));
    let last = plan.members.last().unwrap().end_offset;
    assert_eq!(
        plan.pieces[0],
        Piece::Stream {
            start: 0,
            end: last
        }
    );
    assert_eq!(plan.pieces.len(), 2);
    assert!(plan.needed.is_empty() && plan.unmatched.is_empty());
    assert_eq!(plan.stream_bytes(), last);
    // GNU tar ends its own archive the same way: the same bytes.
    assert_eq!(assemble(&m.archive, &plan), m.archive);
}

fn cpio_case(format: &str, data_carrier: bool) {
    let script = format!("find d | sort | cpio -o --quiet -H {format}");
    let m = made(&script);
    // In newc and crc only the last name of a file carries its data.
    let plan = laid(plan_with(
        &m.catalog,
        m.tail.clone(),
        &globs(&["d/hl", "d/empty", "d/sl"]),
    ));
    let added: Vec<&str> = plan
        .needed
        .iter()
        .map(|n| n.path.to_str().unwrap())
        .collect();
    assert_eq!(
        added,
        if data_carrier {
            vec!["d/small"]
        } else {
            vec![]
        }
    );
    for tail in [m.tail.clone(), Tail::default()] {
        let plan = laid(plan_with(
            &m.catalog,
            tail.clone(),
            &globs(&["d/hl", "d/empty", "d/sl"]),
        ));
        let out = assemble(&m.archive, &plan);
        assert_eq!(out.len() % 512, 0);
        let name = format!("part{}", tail.trailer.is_some());
        let part = extract(&m, &name, "cpio -idm --quiet", &out);
        let whole = m.root.parent().unwrap().join("whole");
        if !whole.exists() {
            extract(&m, "whole", "cpio -idm --quiet", &m.archive);
        }
        same_members(&part, &whole);
        assert_eq!(fs::read(part.join("d/hl")).unwrap(), b"three names\n");
    }
}

#[test]
fn a_newc_subset_brings_the_member_of_a_link_group_that_carries_the_data() {
    cpio_case("newc", true);
}

#[test]
fn a_crc_subset_brings_the_member_of_a_link_group_that_carries_the_data() {
    cpio_case("crc", true);
}

#[test]
fn an_odc_subset_needs_no_other_member_each_link_carries_the_data() {
    cpio_case("odc", false);
}

#[test]
fn a_made_trailer_is_byte_for_byte_what_gnu_cpio_writes() {
    for name in ["newc", "crc", "odc"] {
        let m = made(&format!("find d | sort | cpio -o --quiet -H {name}"));
        let (start, end) = m.tail.trailer.unwrap();
        let original = &m.archive[start as usize..end as usize];
        assert_eq!(
            crate::archive::cpio_trailer(m.catalog.format()),
            original,
            "{name}"
        );
    }
}

#[test]
fn no_member_chosen_is_an_error_naming_every_glob() {
    let m = made("tar --format=gnu -cf - d");
    match plan(&m.catalog, &globs(&["nope", "d/zz*"])).map(|p| p.members) {
        Err(PlanError::NoMatch { unmatched }) => assert_eq!(unmatched, vec![0, 1]),
        other => panic!("{other:?}"),
    }
    match plan(&m.catalog, &Patterns::default()).map(|p| p.members) {
        Err(PlanError::NoMatch { unmatched }) => assert!(unmatched.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_glob_on_a_directory_counts_as_matched_by_what_is_under_it() {
    let m = made("tar --format=gnu -cf - d");
    let x = format!("d/{}", "x".repeat(120));
    let plan = laid(plan(&m.catalog, &globs(&[&x, "d/x*/deep"])));
    assert!(plan.unmatched.is_empty());
    assert_eq!(plan.members.len(), 2);
}
