//! `Catalog::matching` chooses members as tar chooses them by name.

use crate::archive::{Format, MemberKind};

use super::globs::build;
use super::round_trip_tests::{member, write};
use super::Catalog;

/// The paths `patterns` choose from a small home tree.
fn chosen(patterns: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.catalog");
    let tree = [
        ("home/", MemberKind::Directory),
        ("home/alice/", MemberKind::Directory),
        ("home/alice/notes.txt", MemberKind::File),
        ("home/alice/thesis/", MemberKind::Directory),
        ("home/alice/thesis/ch1.tex", MemberKind::File),
        ("home/alice/thesis/fig/plot.svg", MemberKind::File),
        ("home/alicia/notes.txt", MemberKind::File),
        ("home/bob/notes.txt", MemberKind::File),
        ("home/bob/thesis.tex", MemberKind::File),
    ];
    let members: Vec<_> = tree
        .iter()
        .enumerate()
        .map(|(i, (p, k))| member(p, *k, i as u64 * 1024, 0))
        .collect();
    write(&path, Format::Gnu, &members);
    let catalog = Catalog::open(&path).unwrap();
    let typed: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
    let set = build(&typed).unwrap();
    catalog
        .matching(&set)
        .map(|m| m.unwrap().path.to_string())
        .collect()
}

#[test]
fn a_glob_chooses_the_paths_it_matches() {
    assert_eq!(
        chosen(&["home/*/notes.txt"]),
        [
            "home/alice/notes.txt",
            "home/alicia/notes.txt",
            "home/bob/notes.txt"
        ]
    );
    assert_eq!(chosen(&["**/*.tex"]).len(), 2);
    assert!(chosen(&["nothing"]).is_empty());
}

#[test]
fn a_match_on_a_directory_chooses_it_and_everything_under_it() {
    assert_eq!(
        chosen(&["home/alice/thesis"]),
        [
            "home/alice/thesis/",
            "home/alice/thesis/ch1.tex",
            "home/alice/thesis/fig/plot.svg"
        ]
    );
    // A name that only starts another's is not its directory.
    assert_eq!(
        chosen(&["home/alice"]),
        [
            "home/alice/",
            "home/alice/notes.txt",
            "home/alice/thesis/",
            "home/alice/thesis/ch1.tex",
            "home/alice/thesis/fig/plot.svg"
        ]
    );
    assert_eq!(chosen(&["home"]).len(), 9);
}

#[test]
fn a_star_crosses_slashes_as_in_tar_extraction() {
    assert_eq!(chosen(&["home/*.tex"]).len(), 2);
    // Directory matches still bring their contents along.
    assert_eq!(chosen(&["home/b*"]).len(), 2);
    assert_eq!(chosen(&["home/alic?"]).len(), 5);
}

#[test]
fn several_globs_choose_their_union_once_each_in_stream_order() {
    assert_eq!(
        chosen(&[
            "home/bob/thesis.tex",
            "home/alice/thesis/ch1.tex",
            "**/*.tex"
        ]),
        ["home/alice/thesis/ch1.tex", "home/bob/thesis.tex"]
    );
}
